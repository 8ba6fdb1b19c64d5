#pragma once

#include "fetch/networksettings.h"
#include "install/gpuchoice.h"
#include "install/installspec.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// A lab profile (JSON, see resources/profiles/example-lab.json): the plan a lab pins, its mirrors,
// install folder, kernel name and optional hash lock, so `tfsetup install --profile FILE --yes`
// and the wizard's "lab profile" path install the same thing on every machine without questions.
struct LabProfile {
    Q_DECLARE_TR_FUNCTIONS(LabProfile)
public:
    QString path; // where it was read from (relative files are found beside it)
    QString title;
    QString environment;   // environment folder name
    QString installFolder; // may hold ${HOME}, ${USERPROFILE}, ${APPDATA}, ~
    QString route;
    QString layout = QStringLiteral("portable");
    QString tensorflow;
    QString package;
    QString python; // "3.11"
    QString cuda;
    QString cudnn;
    QStringList requirements;
    QString interpreter;   // explicit base interpreter; empty = find python<version> on PATH; "none" = no Python
    QStringList indexUrls; // "mirrors.pypi": the package indexes, asked in this order
    QStringList
        trustedHosts;     // "mirrors.trustedHosts": read for older profiles; every index is reached by tfsetup itself
    QString nvidiaMirror; // the lab's copy of NVIDIA's download tree (URL or folder); empty = NVIDIA
    QString cacheFolder;  // shared download cache (may hold ${VAR}); empty = the user's cache
    QString proxy;
    // The Jupyter front end beside the kernel (launchers.json "jupyter"): "lab", "notebook",
    // "server"; empty: none. JSON "jupyter": a front end's name, true (the default, JupyterLab)
    // or false; missing: the default.
    QString jupyter;
    QString kernelName;
    QString kernelDisplayName;
    QString requirementsLockFile; // relative to the profile
    bool registerKernel = true;
    bool desktopEntry = true;
    // The GPUs each machine's environment uses (JSON "gpus": "default", "all" or [0, 2], by
    // nvidia-smi index); missing: "default", the plan's default selection on that machine.
    // Resolved by `tfsetup install` once the machine's GPUs are known.
    GpuChoice gpus;

    static Result<LabProfile> load(const QString &path);
    static Result<LabProfile> fromJson(const QJsonObject &json, const QString &path = {});

    // The install this profile asks for on `system`, before any file is known (the setup
    // pipeline adds the artifacts and the lock). prefixOverride replaces the install folder.
    Result<InstallSpec> toSpec(const SystemView &system, const QString &prefixOverride = {}) const;
    // The profile's proxy, package indexes (in its order) and NVIDIA mirror; a command line's
    // options go on top (tfsetup install --proxy, --mirror).
    NetworkSettings networkSettings(const SystemView &system) const;

    // ${VAR} and a leading ~ expanded from the view's environment.
    static QString expand(const SystemView &system, const QString &text);
    // The same for a folder the profile names (field: "installFolder"): refused when a variable
    // is not set (it would leave "/envs") or the result is not a full path.
    static Result<QString> expandFolder(const SystemView &system, const QString &text, const QString &field);
};

// The installer's artifacts from an offline bundle (sources/bundle.h: bundle.json): NVIDIA
// archives by their pinned SHA-256, the wheelhouse as a folder for pip --no-index.
Result<QList<InstallArtifact>> readBundleArtifacts(const QString &bundleFolder);

} // namespace tfsetup::core
