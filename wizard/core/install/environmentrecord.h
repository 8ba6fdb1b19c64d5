#pragma once

#include "install/installspec.h"
#include "sources/pylock.h"
#include "util/jsonshape.h"
#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// environment.json: what an install put where, so repair and a second install can check every
// file, and ENVIRONMENT.md, the summary a student pastes into a help request.

struct RecordedFile {
    QString path;      // relative to the environment, '/'-separated
    QByteArray sha256; // files only
    qint64 size = 0;
    QString origin;     // "cuda_cudart 11.8.89 (windows-x86_64): cuda_cudart-…/bin/cudart64_110.dll" | "tfsetup"
    QString linkTarget; // links only
};

struct RecordedCommand {
    QString program;
    QStringList arguments;
    int exitCode = -1;
};

struct EnvironmentRecord {
    Q_DECLARE_TR_FUNCTIONS(EnvironmentRecord)
public:
    static constexpr int currentSchema = 1;

    int schema = currentSchema;
    QString name;
    QString created; // ISO 8601 UTC
    QString tfsetupVersion;
    QString os; // "windows" | "linux"
    QString arch;
    QByteArray fingerprint; // InstallSpec::fingerprint()
    QJsonObject spec;       // InstallSpec::toJson()
    QString pythonVersion;  // of the venv, "3.10.11"
    QString driver;         // NVIDIA driver at install time
    QStringList packages;   // pip freeze
    QList<RecordedFile> files;
    QList<RecordedCommand> commands;
    QStringList launchers; // relative paths
    QString kernelFolder;  // where the kernelspec was registered, empty when not
    // The environment's pylock.toml (the wheels pip installed, each with its URL and hash), read
    // beside the record by read(); empty for an environment without Python packages or made
    // before locks were written.
    PyLock lock;

    // What was asked for (the "plan" object), typed: route, TensorFlow, Python, CUDA, cuDNN, the
    // requirements with their extra packages, the Jupyter front end, the GPUs pinned.
    InstallSpec plan() const { return InstallSpec::fromJson(spec); }
    // The Jupyter kernel name the install registered: the plan's (the installer fills it in), else,
    // for records written before it did, the environment's name. The one rule for install,
    // repair and removal.
    QString kernelName() const;
    // The TensorFlow pip installed (from the freeze list), else the one planned.
    QString tensorflowVersion() const;

    QJsonObject toJson() const;
    // Checked against shape() first: a field of another type or size ("files": "all", a path
    // with "..", a kernel folder elsewhere) refuses the whole record, naming the field.
    static Result<EnvironmentRecord> fromJson(const QJsonObject &json);
    static const JsonShape &shape();
    // Reads <hostFolder>/environment.json and, when there is one, <hostFolder>/pylock.toml (a lock
    // that cannot be read leaves `lock` empty; repair finds the file changed).
    static Result<EnvironmentRecord> read(const QString &hostFolder);

    // A package's version from the freeze list ("tensorflow" → "2.10.1"), empty when absent.
    QString packageVersion(const QString &package) const;

    // The CUDA and cuDNN the environment runs on, and where they come from: the plan's versions,
    // else those of pip's nvidia-* wheels (the freeze list, else the lock) for a route whose
    // TensorFlow brings its CUDA as wheels (tensorflow[and-cuda]). Empty versions and no wheels:
    // the environment runs on the CPU.
    struct CudaInUse {
        QString cuda;
        QString cudnn;
        bool fromPipWheels = false;
        bool cpuOnly() const { return cuda.isEmpty() && cudnn.isEmpty() && !fromPipWheels; }
    };
    CudaInUse cudaInUse() const;
    // ENVIRONMENT.md. Plain text with Markdown headings: readable pasted anywhere.
    QString summary() const;

    // The files tfsetup writes beside the record without listing them in it (its logs, the last
    // verify, the install lock's marker), relative to the environment. Everything else in logs/
    // (TensorBoard runs, a student's notes) is the user's: carried over by a re-install, kept by
    // a removal.
    static const QStringList &companionFiles();
};

} // namespace tfsetup::core
