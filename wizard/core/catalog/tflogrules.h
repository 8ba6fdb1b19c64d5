#pragma once

#include "catalog/causes.h"
#include "catalog/finding.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <utility>

namespace tfsetup::core {

// One rule of resources/catalog/tflog.json: a line pattern and the registry cause it means.
struct TfLogRule {
    QString id;
    QRegularExpression pattern;
    QString cause;   // a code of the cause registry (causes.json)
    QString variant; // which of the cause's texts; empty: by the captured parameters
    Severity severity = Severity::Info;
    QString cpuOnlyCause;     // replaces cause on a machine meant to run on the CPU; empty: no change
    QString explain;          // for harmless lines: which explanation ("numa", "tensorrt", …)
    bool summaryOnly = false; // a summary line: it adds evidence to the specific finding when there is one
    QStringList foldsInto;    // a consequence: with a finding of one of these causes, it becomes its evidence
    // A "no GPU here" line: harmless when neither the log nor what is known of its machine shows an
    // NVIDIA GPU or driver (a CPU-only node prints it on every start).
    bool harmlessWithoutGpu = false;
    // A runtime library TensorFlow's own check names: with nothing known of the CUDA installed
    // there it stays a missing runtime, not a guessed version mismatch.
    bool missingWhenUnknown = false;
    QRegularExpression needsInLog; // unless empty: the rule applies only if this matches somewhere in the log
    QList<std::pair<QRegularExpression, QString>> libraryCauses;
    QString source;
};

// The rules of resources/catalog/tflog.json, checked against the cause registry they name. The
// doctor's TfLogReader (doctor/tflogreader.h) reads logs with them.
class TfLogRules {
    Q_DECLARE_TR_FUNCTIONS(TfLogRules)

public:
    // causes: the registry the rules name (the same knowledge's; Knowledge::causes).
    static Result<TfLogRules> load(const QString &path, const CauseRegistry &causes);
    static Result<TfLogRules> fromJson(const QByteArray &json, const CauseRegistry &causes);

    const QList<TfLogRule> &rules() const { return m_rules; }
    // The first rule a single line matches, or nullptr.
    const TfLogRule *match(const QString &line) const;

private:
    QList<TfLogRule> m_rules;
};

} // namespace tfsetup::core
