#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QRegularExpression>
#include <QString>

namespace tfsetup::core {

// Why pip failed, as its output (or tfsetup's own classification of the same request) says.
enum class PipCause {
    ProxyRefused,
    ProxyAuth,
    NameNotResolved,
    ConnectionFailed,
    Timeout,
    Tls,
    IndexMissing,
    NoWheel,
    HashMismatch,
    DiskFull,
    PermissionDenied,
    Unknown,
};

// The one next step offered for a cause. Each is something the wizard can do by itself: go back
// to the Options page's field for it, back to the Choose page, run the install again, or open
// the log.
enum class PipFix {
    SetProxy,
    ChooseMirror,
    UseBundle,
    ChoosePlan,
    ChooseFolder,
    TryAgain,
    OpenLog,
};

// What the failure is read against: the Python and platform the wheels were wanted for, so a
// "No matching distribution" can say for which.
struct PipFailureContext {
    QString python;   // "3.11"
    QString platform; // as the student reads it: "Windows x86-64"
};

struct PipFailure {
    PipCause cause = PipCause::Unknown;
    PipFix fix = PipFix::OpenLog;
    QString code;        // the cause's name in resources/install/pipfailures.json: "proxy_refused"
    QString rule;        // the rule that matched; empty when an error code decided
    QString evidence;    // pip's line that says it (untranslated), empty when none did
    QString host;        // the server pip talked to, when its output names it
    QString requirement; // NoWheel: what pip could not find ("tensorflow==2.21.*")
    QString versions;    // NoWheel: what the index offered for it ("none", "2.16.1, 2.17.0")
    QString message;     // translated, plain words: what happened and what the fix does
};

// Reads pip's output for its cause. The patterns, the order they are tried in and each cause's
// fix are data (resources/install/pipfailures.json); the words are here, translated.
class PipFailureReader {
    Q_DECLARE_TR_FUNCTIONS(PipFailureReader)

public:
    static Result<PipFailureReader> load(const QString &path = QStringLiteral(":/resources/install/pipfailures.json"));
    static Result<PipFailureReader> fromJson(const QByteArray &json);
    // The reader compiled into the program (loaded once). Damaged built-in data is a packaging
    // fault: it aborts with the reason.
    static const PipFailureReader &builtin();

    // pip's output alone.
    PipFailure read(const QString &output, const PipFailureContext &context = {}) const;
    // A failed step's error: its code first (tfsetup already classified network and disk
    // failures, and pip reaches the index through it), then pip's words in its detail.
    PipFailure read(const Error &error, const PipFailureContext &context = {}) const;

    static QString causeName(PipCause cause);
    // The fix's label for a button, with its mnemonic (translated).
    static QString fixLabel(PipFix fix);

private:
    struct Rule {
        QString id;
        QRegularExpression pattern;
        PipCause cause = PipCause::Unknown;
    };
    PipFailure make(PipCause cause, const QString &output, const PipFailureContext &context) const;

    QList<Rule> m_rules;
    QHash<QString, PipCause> m_codes;
    QHash<PipCause, PipFix> m_fixes;
};

} // namespace tfsetup::core
