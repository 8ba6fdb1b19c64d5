#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// What the doctor says: findings, their texts and the actions that fix them. Here, beside the
// cause registry, because a cause of resources/catalog/causes.json is written as the finding it
// makes (causes.h); the system scan, the log reader (doctor/) and the repairer (repair/) use them.

// A text in two languages at once: the user's (through the installed translators) and English
// (the source text). The diagnostic report carries both so a helper who reads neither Chinese nor
// the student's language can still follow it.
struct DoctorText {
    QString translated;
    QString english;

    bool isEmpty() const { return english.isEmpty(); }
};

// Translates a source text marked with QT_TRANSLATE_NOOP("tfsetup::core::Doctor", …) and fills
// %1, %2, … in both languages. Arguments are data (paths, versions), never translated.
DoctorText doctorText(const char *source, const QStringList &arguments = {});

enum class Severity { Info, Warning, Error };
QString severityName(Severity severity); // "info" | "warning" | "error"
std::optional<Severity> severityFromName(const QString &name);

// Something a repair can do about a finding, as data: type plus parameters. The types and their
// parameters are listed in wizard/core/doctor/README.md; a repair that does not know a type
// shows the finding's fix text instead.
struct DoctorAction {
    QString type;       // "install_cuda", "prepend_path", "recreate_env", …
    QJsonObject params; // e.g. {"variable": "PATH", "dir": "C:/…/v11.2/bin"}

    QJsonObject toJson() const;
};

// One diagnosis. cause is a stable code (README), summary says what is wrong, fix what to do;
// evidence lists exact paths, versions and log lines (untranslated: they are the machine's words).
struct DoctorFinding {
    QString id; // stable within one run: "<cause>:<subject>", e.g. "path_shadowing:cudart64_110.dll"
    Severity severity = Severity::Info;
    QString cause;
    DoctorText summary;
    DoctorText fix;
    QStringList evidence;
    QList<DoctorAction> actions;

    // {id, severity, cause, summary, fix, evidence, actions, en: {summary, fix}}
    QJsonObject toJson() const;
};

// Errors first, then warnings, then infos; the order within one severity is kept.
void sortFindings(QList<DoctorFinding> &findings);

} // namespace tfsetup::core
