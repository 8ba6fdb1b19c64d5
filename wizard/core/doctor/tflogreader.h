#pragma once

#include "doctor/finding.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QRegularExpression>
#include <QString>

namespace tfsetup::core {

// One rule of resources/catalog/tflog.json: a line pattern and what it means.
struct TfLogRule {
    QString id;
    QRegularExpression pattern;
    QString cause;
    Severity severity = Severity::Info;
    QString cpuOnlyCause;   // replaces cause on a machine meant to run on the CPU; empty: no change
    QString explain;        // for harmless lines: which explanation ("numa", "tensorrt", …)
    bool summaryOnly = false; // a summary line: it adds evidence to the specific finding when there is one
    QList<std::pair<QRegularExpression, QString>> libraryCauses;
    QString source;
};

// What the log reader knows about the machine the log came from.
struct TfLogContext {
    // The environment is meant to run on the CPU (no NVIDIA GPU, or the CPU route was chosen):
    // GPU-library failures are then expected and only explained.
    bool cpuOnly = false;
};

class TfLogReader {
    Q_DECLARE_TR_FUNCTIONS(TfLogReader)

public:
    static Result<TfLogReader> load(const QString &path = QStringLiteral(":/resources/catalog/tflog.json"));
    static Result<TfLogReader> fromJson(const QByteArray &json);

    const QList<TfLogRule> &rules() const { return m_rules; }

    // Names the causes in a pasted log or traceback. Repeated lines with one meaning become one
    // finding whose evidence lists them ("line 12: …"); harmless lines give info findings only.
    QList<DoctorFinding> read(const QString &text, const TfLogContext &context = {}) const;

    // The rule a single line matches, or nullptr. For tests and the data-driven corpus.
    const TfLogRule *match(const QString &line) const;

private:
    QList<TfLogRule> m_rules;
};

// The summary and fix the doctor gives for a cause, with the subject (a library name, a version)
// filled in. Shared by the log reader and the system scan so one cause reads the same everywhere.
DoctorText causeSummary(const QString &cause, const QString &subject = {}, const QString &detail = {});
DoctorText causeFix(const QString &cause, const QString &subject = {}, const QString &detail = {});
// A plain-language reason why a harmless line can be ignored ("numa", "tensorrt", …).
DoctorText harmlessExplanation(const QString &explain);

} // namespace tfsetup::core
