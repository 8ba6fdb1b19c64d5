#pragma once

#include "catalog/sourcecatalog.h"
#include "detect/hardwarereport.h"
#include "fetch/downloadtypes.h"
#include "fetch/networksettings.h"
#include "install/installspec.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "sources/mirrors.h"
#include "sources/pylock.h"
#include "sources/resolver.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QList>
#include <QString>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace tfsetup::core {

class Downloader;

struct Knowledge;

// What the student decides between choosing a plan and installing it. The wizard's Options page
// and the command line fill the same struct, so both reach the same artifacts and the same spec.
struct SetupOptions {
    QString prefix;          // folder that holds environments, in the view's spelling
    QString name;            // environment folder name; empty: InstallSpec::defaultName(plan)
    QString cacheDir;        // host folder the downloads are written to
    NetworkSettings network; // proxy, CA bundle, mirrors, limits, offline bundle: made once, handed down
    // The student accepted files that have no published checksum anywhere: they are fetched once
    // (fetchFirstUse) and the SHA-256 seen is recorded and checked from then on. Chosen each time,
    // never remembered.
    bool trustOnFirstUse = false;
    // Another sources catalog (sources.json) instead of the built-in one: drills and tests whose
    // fixture manifests stand in for NVIDIA's pinned ones. Empty: the built-in catalog.
    QString sourcesCatalog;
    // The knowledge the files are resolved by; required (null: catalog_not_given, nothing done).
    std::shared_ptr<const Knowledge> knowledge;
    // Install a Jupyter front end (JupyterLab, launchers.json's default) beside the kernel, which
    // every environment gets.
    bool jupyter = true;
    // A lab profile's install (LabSetup::inputs): SetupFlow::baseSpec starts from it instead of
    // the plan's defaults, so the wizard installs its requirements, kernel, interpreter and
    // Jupyter front end as `tfsetup install --profile` does. Folder, name and whether Jupyter is
    // wanted still come from the fields above.
    std::optional<InstallSpec> profileSpec;
    // The system the files are for ("windows" | "linux"): empty, the view's; another one for a
    // bundle made on this machine for another (tfsetup bundle --os), with the wheels' platform
    // tags (--pip-platform) pip's resolver then chooses for.
    QString os;
    QStringList pipPlatforms;

    // ~/tfsetup-envs (%USERPROFILE%\tfsetup-envs) in the view's spelling.
    static QString defaultPrefix(const SystemView &system);
    // The view user's download folder, as a host path: TFSETUP_CACHE_DIR when the view sets it,
    // else the user's cache folder (XDG_CACHE_HOME or ~/.cache; %LOCALAPPDATA%\cache on Windows,
    // as Qt's GenericCacheLocation) + /tfsetup/downloads. On this machine that is
    // DownloadCache::defaultDir(); on a fixture tree it lies inside the tree.
    static QString defaultCacheDir(const SystemView &system);
    QString environmentPath(const Plan &plan) const;
};

// A problem with a folder the student typed, for a warning beside the field. Empty when fine.
struct PathAdvice {
    QString code;    // "non_ascii", "too_long", "spaces", "not_absolute"
    QString message; // translated
    bool blocking = false;
};

// The files that go through the Downloader, with where each lands, and those that cannot.
struct DownloadPlan {
    QList<DownloadRequest> requests; // the plan's archives and Python, then every wheel of the lock
    QList<Finding> problems;         // blocking: the plan cannot be installed from these artifacts
    // Without any published checksum, with SetupOptions::trustOnFirstUse: fetched by
    // SetupFlow::fetchFirstUse into SetupFlow::destinationFor(artifact, cacheDir) before the
    // Downloader runs. Without the option they are "artifact_unverifiable" problems instead.
    QList<Artifact> firstUse;
};

// The setup flow's pure steps: plan + options → artifacts → download requests → install spec.
// SetupPipeline (setup/pipeline.h) runs them in order for the wizard and the command line alike.
class SetupFlow {
    Q_DECLARE_TR_FUNCTIONS(SetupFlow)

public:
    // The resolver's request for a plan on an OS ("windows" | "linux").
    static ResolveRequest resolveRequest(const Plan &plan, const QString &os);

    // The mirrors the options ask for; a bundle serves NVIDIA's and python.org's paths from its
    // own folders (bundle.h), in front of any other mirror. Then the mirrors the catalog names (a
    // lab's signed catalog), unless offline.
    static Result<MirrorSet> mirrors(const SetupOptions &options, const SourceCatalog &catalog);
    // The package indexes the network settings name, in order (presets as their URLs, the
    // "pypi" origin override or PyPI when none is named). Usage error for a preset the catalog
    // does not know.
    static Result<QList<QUrl>> pypiIndexes(const NetworkSettings &network, const SourceCatalog &catalog);
    // Where a locked wheel can be downloaded, in the indexes' order: its own URL where its index
    // stands, and the same file below each other index's files root (PyPI and its mirrors keep
    // files under "packages/…"; the catalog names a preset's files root when it differs from its
    // index's, as PyPI's). The checksum alone decides what is accepted.
    static QList<QUrl> wheelUrls(const LockedWheel &wheel, const QList<QUrl> &indexes, const SourceCatalog &catalog);

    // Resolves the plan's artifacts (awaits the network with the options' timeout). With a
    // bundle nothing is asked of the network: the bundle is opened, checked against the plan
    // (Bundle::servesPlan) and hashed on a worker thread, and its recorded list is the answer;
    // any failure is the error (no bundle there, not a bundle, damaged, another plan, files
    // missing or altered), never a reason to resolve online instead.
    static QCoro::Task<Result<ArtifactList>> resolveArtifacts(Plan plan, QString os, SetupOptions options);

    // Where an artifact's download lands: cacheDir/<file name>.
    static QString destinationFor(const Artifact &artifact, const QString &cacheDir);
    // The Downloader's requests for the artifacts it fetches and for every wheel of the lock.
    // An artifact whose SHA-256 was recorded on first use is an ordinary request from then on.
    // With a bundle there are none: what the bundle lacks (or a bundle that cannot be opened) is
    // a problem, not a download.
    static DownloadPlan downloadPlan(const ArtifactList &list, const PyLock &lock, const SetupOptions &options);

    // Fetches the plan's first-use artifacts (needs options.trustOnFirstUse; otherwise the list comes
    // back unchanged) into their destinations and returns the list with each one's `sha256` set to
    // what was seen and a `note` saying so with the date; `trust` stays None. The Downloader then
    // finds each file in place and verifies it against that SHA-256. `cancel`, when set, stops it.
    static QCoro::Task<Result<ArtifactList>> fetchFirstUse(ArtifactList list, SetupOptions options,
                                                           std::shared_ptr<const std::atomic<bool>> cancel = {});

    // Interpreter a venv is made from: an installed Python of the plan's minor version, a real
    // installation preferred over someone's venv. Empty when none.
    static QString pythonFor(const Plan &plan, const HardwareReport &hardware);

    // What the wizard installs before any file is known: the plan's fields (or the lab profile's,
    // options.profileSpec, with its own interpreter), the options' folders and Jupyter choice,
    // the interpreter from the hardware report, the GPUs chosen. Error
    // "python_missing" when the plan needs a Python that is neither installed nor brought by one
    // of the artifacts (list: none known yet, so only the hardware report counts).
    static Result<InstallSpec> baseSpec(const Plan &plan, const SetupOptions &options, const HardwareReport &hardware,
                                        const ArtifactList *list = nullptr);
    // The installer's input: `spec` with the verified downloads matched to their artifacts (or a
    // bundle's files), and every wheel of the lock with its verified file.
    static Result<InstallSpec> completeSpec(InstallSpec spec, const ArtifactList &list, const PyLock &lock,
                                            const QList<DownloadResult> &downloaded, const SetupOptions &options);

    // Warnings for an install folder on an OS: Windows tools (pip's long paths, nvcc, some
    // DLL loaders) break on non-ASCII characters and on paths near MAX_PATH.
    static QList<PathAdvice> adviseOnPath(const QString &path, OsFamily os);
};

} // namespace tfsetup::core
