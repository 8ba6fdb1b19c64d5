#pragma once

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
    QString kind;      // "cuda-redist-archive" | "cudnn-archive" | "wheelhouse" | "python-archive" (a relocatable
                       // CPython: unpacked into <env>/python, the venv made from it) | "python-installer"
                       // (python.org's Windows installer, run per user into <prefix>/.python-<version>)
    QString component; // "cuda_cudart", "libcublas", "cudnn", …
    QString version;   // "11.8.89", "8.9.7.29"
    QString platform;  // "windows-x86_64" | "linux-x86_64"
    QByteArray sha256; // lower-case hex; for a wheelhouse folder: empty (each wheel is pinned by the lock)
    QString path;      // host path of the file (a folder for a wheelhouse)
    QString origin;    // where it came from (URL or bundle), for the record
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
    QString route;      // "windows-native", "linux-pip", …
    QString layout = QStringLiteral("portable"); // "portable" | "toolkit" (placement.json)
    QString tensorflow; // "2.10.0"
    QString package;    // "tensorflow", "tensorflow-gpu", "tensorflow[and-cuda]"
    QString python;     // "3.10"
    QString cuda;
    QString cudnn;
    QString driverMin;
    QString driver;     // the machine's driver, for the summary

    QString pythonInterpreter;    // base interpreter the venv is made from
    QStringList requirements;     // pip requirement specifiers; empty = derived from package/tensorflow
    QString requirementsLock;     // text of a hash-locked requirements file; empty = none
    QStringList indexUrls;        // first is --index-url, the rest --extra-index-url
    QStringList trustedHosts;
    QString proxy;
    bool offline = false;         // pip may use the wheelhouse artifacts only

    // Jupyter (launchers.json "jupyter"): the kernel's packages (ipykernel) go into every
    // environment with Python; a front end's ("lab" | "notebook" | "server") only when chosen.
    // Empty: no front end. fromPlan() chooses the data's default.
    QString jupyter;
    QString kernelName;           // Jupyter kernel name; empty = the environment name
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
    // Stable digest of the inputs: an environment built from the same spec is not rebuilt.
    QByteArray fingerprint() const;
};

} // namespace tfsetup::core
