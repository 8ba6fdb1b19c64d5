#pragma once

#include "detect/hardwarereport.h"
#include "fetch/downloadtypes.h"
#include "install/installspec.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "sources/mirrors.h"
#include "sources/resolver.h"
#include "sources/sourcecatalog.h"
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
#include <utility>

namespace tfsetup::core {

class Downloader;

struct Knowledge;

// What the student decides between choosing a plan and installing it. The wizard's Options page
// and the command line fill the same struct, so both reach the same artifacts and the same spec.
struct SetupOptions {
    QString prefix;       // folder that holds environments, in the view's spelling
    QString name;         // environment folder name; empty: InstallSpec::defaultName(plan)
    QString nvidiaMirror; // URL or folder laid out like NVIDIA's download server; empty: NVIDIA only
    QString pypiMirror;   // preset name from the sources catalog ("tuna") or an index URL; empty: PyPI
    QString proxy;        // "http://host:3128"; empty: the system's settings
    QString cacheDir;     // host folder the downloads are written to
    QString bundleDir;    // an offline bundle (tfsetup bundle); empty: none
    QString caBundle;     // extra CA bundle for lab or corporate TLS proxies
    // Serve an origin from elsewhere as if it were the official one (labs, tests).
    QList<std::pair<QString, QUrl>> originOverrides;
    std::chrono::milliseconds resolveTimeout{30000};
    // The student accepted files that have no published checksum anywhere: they are fetched once
    // (fetchFirstUse) and the SHA-256 seen is recorded and checked from then on. Chosen each time,
    // never remembered.
    bool trustOnFirstUse = false;
    // Another sources catalog (sources.json) instead of the built-in one: drills and tests whose
    // fixture manifests stand in for NVIDIA's pinned ones. Empty: the built-in catalog.
    QString sourcesCatalog;
    // The knowledge the files are resolved by; null: Knowledge::shared().
    std::shared_ptr<const Knowledge> knowledge;
    // Install a Jupyter front end (JupyterLab, launchers.json's default) beside the kernel, which
    // every environment gets.
    bool jupyter = true;

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

// The artifacts that go through the Downloader, with where each lands, and those that do not
// (wheelhouses are pip's, artifacts without a checksum cannot be verified).
struct DownloadPlan {
    QList<DownloadRequest> requests;
    QList<Finding> problems; // blocking: the plan cannot be installed from these artifacts
    // Without any published checksum, with SetupOptions::trustOnFirstUse: fetched by
    // SetupFlow::fetchFirstUse into SetupFlow::destinationFor(artifact, cacheDir) before the
    // Downloader runs. Without the option they are "artifact_unverifiable" problems instead.
    QList<Artifact> firstUse;
};

// The setup flow in core: plan + options → artifacts → download requests → install spec. The same
// steps for the wizard and the command line; pure where possible.
class SetupFlow {
    Q_DECLARE_TR_FUNCTIONS(SetupFlow)

public:
    // The resolver's request for a plan on an OS ("windows" | "linux").
    static ResolveRequest resolveRequest(const Plan &plan, const QString &os);

    // The mirrors the options ask for; a bundle serves NVIDIA's and python.org's paths from its
    // own folders (bundle.h), in front of any other mirror.
    static Result<MirrorSet> mirrors(const SetupOptions &options, const SourceCatalog &catalog);

    // Resolves the plan's artifacts (awaits the network with the options' timeout). With a
    // bundle nothing is asked of the network: the bundle is opened, checked against the plan
    // (Bundle::servesPlan) and hashed on a worker thread, and its recorded list is the answer;
    // any failure is the error (no bundle there, not a bundle, damaged, another plan, files
    // missing or altered), never a reason to resolve online instead. A bundle without wheels
    // (--no-wheelhouse) sends pip to these options' index, with a "bundle_no_wheelhouse" warning.
    static QCoro::Task<Result<ArtifactList>> resolveArtifacts(Plan plan, QString os, SetupOptions options);

    // Where an artifact's download lands: cacheDir/<file name>.
    static QString destinationFor(const Artifact &artifact, const QString &cacheDir);
    // The Downloader's requests for the artifacts it fetches.
    // An artifact whose SHA-256 was recorded on first use is an ordinary request from then on.
    // With a bundle there are none: what the bundle lacks (or a bundle that cannot be opened) is
    // a problem, not a download.
    static DownloadPlan downloadPlan(const ArtifactList &list, const SetupOptions &options);

    // What fetchAll() tells its caller while it works. stopped() is asked after every file, before
    // anything else is told: true when the caller is gone or was cancelled.
    struct FetchProgress {
        std::function<void(const QString &line)> message; // translated, one per file and outcome
        std::function<void(qint64 done, qint64 total)> progress;
        std::function<bool()> stopped;
    };
    // Fetches the requests in order with the downloader, each verified against its checksum (the
    // cache answers first), and stops at the first that fails. Error "cancelled" when stopped.
    static QCoro::Task<Result<QList<DownloadResult>>> fetchAll(Downloader &downloader, QList<DownloadRequest> requests,
                                                               FetchProgress progress);

    // Fetches the plan's first-use artifacts (needs options.trustOnFirstUse; otherwise the list comes
    // back unchanged) into their destinations and returns the list with each one's `sha256` set to
    // what was seen and a `note` saying so with the date; `trust` stays None. The Downloader then
    // finds each file in place and verifies it against that SHA-256. `cancel`, when set, stops it.
    static QCoro::Task<Result<ArtifactList>> fetchFirstUse(ArtifactList list, SetupOptions options,
                                                           std::shared_ptr<const std::atomic<bool>> cancel = {});

    // Interpreter a venv is made from: an installed Python of the plan's minor version, a real
    // installation preferred over someone's venv. Empty when none.
    static QString pythonFor(const Plan &plan, const HardwareReport &hardware);

    // The installer's input: the plan, the verified downloads matched to their artifacts, the
    // options' folders, mirror and proxy, and the interpreter from the hardware report.
    static Result<InstallSpec> installSpec(const Plan &plan, const ArtifactList &list,
                                           const QList<DownloadResult> &downloaded, const SetupOptions &options,
                                           const HardwareReport &hardware);

    // Warnings for an install folder on an OS: Windows tools (pip's long paths, nvcc, some
    // DLL loaders) break on non-ASCII characters and on paths near MAX_PATH.
    static QList<PathAdvice> adviseOnPath(const QString &path, OsFamily os);
};

} // namespace tfsetup::core
