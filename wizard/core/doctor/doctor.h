#pragma once

#include "catalog/catalog.h"
#include "detect/detector.h"
#include "doctor/finding.h"
#include "doctor/systemscan.h"
#include "doctor/tflogreader.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QJsonObject>

#include <optional>

namespace tfsetup::core {

struct DoctorOptions {
    QString envDir;                 // --env: the environment to check
    QString tensorflow;             // --tf: the TensorFlow version meant, when the environment cannot say
    bool cpuOnly = false;           // --cpu-only: the environment is meant to run on the CPU
    std::optional<QString> log;     // --log: a pasted TensorFlow log or traceback
    DetectOptions detect;
};

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
    DoctorTarget target;
    QList<DoctorFinding> findings;

    int count(Severity severity) const;
    bool hasErrors() const { return count(Severity::Error) > 0; }

    // {schema, target, hardware, findings: [...], counts: {error, warning, info}}
    QJsonObject toJson() const;
    // For the terminal: the user's language.
    QString text() const;
    // The pasteable report: the user's language (when it is not English) followed by English,
    // every path and name passed through the redactor.
    QString reportText(const Redactor &redactor) const;
};

// Detects the machine, inspects the environment, scans the system and reads the log.
QCoro::Task<DoctorReport> runDoctor(SystemView &system, const Catalog &catalog, const TfLogReader &logReader,
                                    DoctorOptions options);

// Writes the report text to path (UTF-8), replacing the file only once it is complete.
Status writeDoctorReport(const QString &path, const QString &text);

} // namespace tfsetup::core
