#pragma once

#include "sources/pylock.h"
#include "system/systemview.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

struct Plan;

// One local, already verified file the installer consumes. The downloader and the sources step
// produce these; the installer checks the SHA-256 (MD5 where nothing stronger is published) again
// before using a file.
struct InstallArtifact {
    QString kind;          // "cuda-redist-archive" | "cudnn-archive" | "wheel" (one wheel of the lock, installed by
                           // pip from the verified file alone) | "python-archive" (a relocatable CPython: unpacked
                           // into <env>/python, the venv made from it) | "python-installer" (python.org's Windows
                           // installer, run per user into <prefix>/.python-<version>)
    QString component;     // "cuda_cudart", "libcublas", "cudnn", …; a wheel's project
    QString version;       // "11.8.89", "8.9.7.29"
    QString platform;      // "windows-x86_64" | "linux-x86_64"
    QByteArray sha256;     // lower-case hex
    QString path;          // host path of the file
    QString origin;        // where it came from (URL or bundle), for the record
    QStringList arguments; // "python-installer": its silent, per-user arguments; "{prefix}" is the target folder
    QByteArray md5;        // lower-case hex, only where the publisher gives nothing stronger (python.org, older files)

    bool isArchive() const;
    QJsonObject toJson() const;
    static InstallArtifact fromJson(const QJsonObject &json);
};

// Everything one install needs, as values. Paths are target paths in the view's spelling.
struct InstallSpec {
    QString name;   // environment folder name, e.g. "tf2.10-cuda11.2"
    QString prefix; // folder holding environments

    // From the plan.
    QString route;                               // "windows-native", "linux-pip", …
    QString layout = QStringLiteral("portable"); // "portable" | "toolkit" (placement.json)
    QString tensorflow;                          // "2.10.0"
    QString package;                             // "tensorflow", "tensorflow-gpu", "tensorflow[and-cuda]"
    QString python;                              // "3.10"
    QString cuda;
    QString cudnn;
    QString driverMin;
    QString driver; // the machine's driver, for the summary

    QString pythonInterpreter;      // base interpreter the venv is made from
    QStringList requirements;       // pip requirement specifiers; empty = derived from package/tensorflow
    QString requirementsLock;       // text of a hash-locked requirements file; empty = none
    QString requirementsLockSha256; // read from a record (fromJson): the hash lock's digest, whose text is not kept
    // The wheels pip installs, as pip's resolver locked them (setup/locker.h); their verified files
    // are the "wheel" artifacts. pip installs from those files alone: no index, no network.
    PyLock lock;

    // Jupyter (launchers.json "jupyter"): the kernel's packages (ipykernel) go into every
    // environment with Python; a front end's ("lab" | "notebook" | "server") only when chosen.
    // Empty: no front end. fromPlan() chooses the data's default.
    QString jupyter;
    QString kernelName; // Jupyter kernel name; empty = the environment name
    QString kernelDisplayName;
    bool registerKernel = true;
    bool desktopEntry = true;
    // The NVIDIA GPUs the launchers and the kernel make visible (CUDA_VISIBLE_DEVICES), by
    // nvidia-smi index, in the order TensorFlow numbers them. Empty: no selection, and a caller's
    // CUDA_VISIBLE_DEVICES is left alone. See pinnedGpus().
    QList<int> gpus;

    QList<InstallArtifact> artifacts;

    QString environmentPath() const { return SystemView::join(prefix, name); }
    // The pip requirements actually installed: `requirements`, then the kernel's and the chosen
    // front end's packages that `requirements` does not name already. Empty without requirements
    // (no Python).
    QStringList effectiveRequirements() const;
    // The Jupyter packages (kernel, chosen front end) a hash lock must pin: the projects of
    // those `requirementsLock` does not name. Empty without a lock.
    QStringList missingFromLock() const;
    // The Jupyter packages this spec needs, as requirement specifiers.
    QStringList jupyterRequirements() const;
    // cuDNN major version of the cuDNN archive, 0 without one.
    int cudnnMajor() const;

    // Plan fields copied over; the caller adds artifacts, interpreter and folders.
    static InstallSpec fromPlan(const Plan &plan);
    // "tf2.10-cuda11.2" style default name.
    static QString defaultName(const Plan &plan);
    // What `gpus` holds for GPUs chosen among a machine's gpuCount NVIDIA GPUs: the choice, or
    // nothing when it is every GPU in nvidia-smi's order (pinning them would change nothing but
    // hide a GPU added later).
    static QList<int> pinnedGpus(const QList<int> &chosen, qsizetype gpuCount);

    QJsonObject toJson() const;
    // What an environment's record says was asked for (its "plan", as toJson() wrote it): the
    // typed reading every command uses. Fields of another type read as empty; folders, the
    // interpreter and the lock are not in it.
    static InstallSpec fromJson(const QJsonObject &json);
    // The requirements the user asked for beyond the plan's TensorFlow requirement and the
    // Jupyter packages: a lab profile's extra packages, a plugin. An upgrade keeps them.
    QStringList extraRequirements() const;
    // Stable digest of the inputs: an environment built from the same spec is not rebuilt.
    QByteArray fingerprint() const;
};

} // namespace tfsetup::core
