#pragma once

#include "catalog/finding.h"
#include "catalog/knowledge.h"
#include "detect/detector.h"
#include "doctor/systemscan.h"
#include "doctor/tflogreader.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QJsonObject>

#include <memory>
#include <optional>

namespace tfsetup::core {

// Where a pasted log comes from. Unknown: the doctor decides from the log itself (a log that
// shows a GPU this machine lacks, or another system's paths and libraries, is another machine's).
enum class LogOrigin { Unknown, ThisMachine, OtherMachine };

struct DoctorOptions {
    QString envDir;                           // --env: the environment to check
    QString tensorflow;                       // --tf: the TensorFlow version meant, when the environment cannot say
    bool cpuOnly = false;                     // --cpu-only: the environment is meant to run on the CPU
    std::optional<QString> log;               // --log: a pasted TensorFlow log or traceback
    LogOrigin logOrigin = LogOrigin::Unknown; // --log-from
    // --hardware: the detect --json of the machine to check (the log's machine) instead of this one
    std::optional<HardwareReport> hardware;
    DetectOptions detect;
    // The tfsetup-probe helper: with it, a tfsetup environment's libraries are loaded through its
    // launcher as verify loads them. Empty: they are only looked for on disk.
    QString probe;
};

// The verdict on a pasted log, kept apart from what the scan of the machine found: the causes
// the log itself shows, or that nothing in it is wrong (only harmless notices, a GPU found), or
// that the doctor knows none of its messages.
struct DoctorLogVerdict {
    QString status = QStringLiteral("unknown"); // "cause" | "nothing_wrong" | "unknown"
    QStringList causes;                         // cause codes of the log's errors and warnings, most severe first
    QStringList findingIds;                     // their finding ids ("log.…")
    DoctorText summary;

    // {status, causes, finding_ids, summary, en: {summary}}
    QJsonObject toJson() const;
};

// What the doctor concluded about a log's machine, and the verdict on the log itself.
struct DoctorLogMachine {
    LogMachine machine;        // what the log says about its machine
    bool otherMachine = false; // read on its own terms, not as this machine's
    QStringList conflicts;     // where the log and the machine checked disagree (untranslated)
    DoctorLogVerdict verdict;  // from the log's findings alone, never from the machine's scan

    QJsonObject toJson() const;
};

// The verdict on a log from the findings read in it (ids "log.…"); any other finding is ignored.
DoctorLogVerdict logVerdict(const QList<DoctorFinding> &findings);

// Masks what identifies the user in text meant to be pasted in public: the home folder (in the
// spellings a log may use: C:\Users\student, C:/Users/student, /home/student) and the user and
// host names. Built from the system view's environment.
class Redactor {
public:
    explicit Redactor(const SystemView &system);
    Redactor(QStringList homes, QStringList names);

    QString apply(const QString &text) const;

private:
    QStringList m_homes;
    QStringList m_names;
    bool m_caseInsensitive = false;
};

struct DoctorReport {
    HardwareReport hardware;
    bool hardwareFromFile = false; // --hardware: another machine's report, not this machine
    bool machineChecked = true;    // false when only the log of another machine was read
    DoctorTarget target;
    std::optional<DoctorLogMachine> log;
    QList<DoctorFinding> findings;

    int count(Severity severity) const;
    bool hasErrors() const { return count(Severity::Error) > 0; }

    // {schema, target, hardware, findings: [...], counts: {error, warning, info}}, and with a log
    // "log" (its machine) and "log_verdict" (DoctorLogVerdict, apart from the machine's findings)
    QJsonObject toJson() const;
    // For the terminal: the user's language. With a log, "This log" (the verdict and the log's
    // findings) comes before "This machine" (the scan's findings), never mixed.
    QString text() const;
    // The pasteable report: the user's language (when it is not English) followed by English,
    // every path and name passed through the redactor.
    QString reportText(const Redactor &redactor) const;
};

struct DoctorLogOptions {
    LogOrigin origin = LogOrigin::Unknown;
    bool cpuOnly = false; // the environment is meant for the CPU (--cpu-only, tensorflow-cpu)
    QString tensorflow;   // the environment's TensorFlow (--env, --tf), when the log does not say
};

struct DoctorLogReading {
    DoctorLogMachine machine;
    QList<DoctorFinding> findings; // ids start with "log."
};

// Reads a log for the machine described by `machine` (this one's detection, or another's detect
// --json): what the log says of its own machine, where the two disagree, and the causes it names,
// read on the log's own terms when it comes from another machine.
DoctorLogReading readDoctorLog(const QString &log, const HardwareReport &machine, const Knowledge &knowledge,
                               const DoctorLogOptions &options);

// Detects the machine, inspects the environment, scans the system and reads the log, all against
// one knowledge bundle (its catalog, causes and log rules).
QCoro::Task<DoctorReport> runDoctor(SystemView &system, std::shared_ptr<const Knowledge> knowledge,
                                    DoctorOptions options);

// Writes the report text to path (UTF-8), replacing the file only once it is complete; control
// characters made visible and URL secrets masked (util/text.h). A link at the path is refused
// (path_is_link), never written through.
Status writeDoctorReport(const QString &path, const QString &text);

// A TensorFlow log to read: a file, or "-" for standard input; bounded (util/inputfile.h) and
// decoded from any encoding a Windows or Linux tool writes (util/text.h's decodeTextInput), else
// refused (log_unreadable) with a message that says how to save it.
Result<QString> readLogInput(const QString &source);

} // namespace tfsetup::core
