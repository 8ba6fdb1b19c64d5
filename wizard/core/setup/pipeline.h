#pragma once

#include "fetch/downloadtypes.h"
#include "install/installer.h"
#include "install/installspec.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "sources/pylock.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace tfsetup::core {

class Downloader;
struct Knowledge;

// Everything known before the first byte of an install: the official files the plan needs (each
// with its checksum), the wheels pip's resolver locked (each with its URL, size and SHA-256), and
// the downloads both make. Saved with an unfinished setup, so a restart continues from here.
struct PreparedSetup {
    ArtifactList artifacts;
    PyLock lock;                      // empty without Python packages
    QList<DownloadRequest> downloads; // NVIDIA's and Python's files, then every wheel
    QList<Finding> warnings;          // the resolve's, translated

    // Bytes of the downloads whose size is known, and whether every size is known.
    qint64 totalBytes() const;
    bool allSizesKnown() const;

    QJsonObject toJson() const;
    static Result<PreparedSetup> fromJson(const QJsonObject &json);
};

// The one setup pipeline: resolve → lock → fetch → install → launchers → verify. The wizard's
// pages call its steps one by one (Options: prepare; Download: the downloader, file by file;
// Install: installSpec, then the Installer), `tfsetup install`, the lab setup, `upgrade`,
// `bundle` and the Welcome page's upgrade run the same steps, so a fix lands in one place.
//
// It owns the downloader (made from the network settings, once) that every byte of a setup goes
// through: NVIDIA's archives, Python, and every wheel, pip's included: pip resolves through the
// IndexBridge and installs from the verified wheels alone (--no-index --require-hashes).
class SetupPipeline final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupPipeline)
public:
    explicit SetupPipeline(SystemView &system, QObject *parent = nullptr);
    ~SetupPipeline() override;

    // The downloader of these settings and cache: the same object as long as they do not change
    // (a download in flight keeps the one it started with).
    Downloader &downloader(const NetworkSettings &network, const QString &cacheDir);

    // Resolve and lock: the plan's official files (a bundle's recorded ones offline), the files
    // trusted on first use when options.trustOnFirstUse says so, and the wheels of `spec`'s
    // requirements, locked by pip's resolver run by spec.pythonInterpreter (offline: from the
    // bundle's wheels, which must hold everything the requirements need). Nothing is installed;
    // only files trusted on first use, and wheels an index gives no metadata for, are downloaded.
    // Errors name the cause (a network cause, a package the index lacks, a full disk, …).
    // `accept`, when given, judges the official files found before anything else is asked of the
    // machine (disk space, pip's resolver): a plan they cannot keep is said first, and alone.
    using FilesCheck = std::function<Status(const ArtifactList &files)>;
    QCoro::Task<Result<PreparedSetup>> prepare(Plan plan, InstallSpec spec, SetupOptions options,
                                               FilesCheck accept = {});

    // Fetches the downloads (several at once, the cache first), each verified against its
    // checksum; stops at the first that fails (the others are cancelled, their bytes kept).
    QCoro::Task<Result<QList<DownloadResult>>> fetch(QList<DownloadRequest> downloads, NetworkSettings network,
                                                     QString cacheDir);

    // What locks and fetches the wheels at the install's Packages step when no Python existed to
    // lock with before (python.org's installer makes it): the same resolver, bridge and downloader.
    Installer::PackageLocker lateLocker(SetupOptions options, InstallSpec spec);

    // The Installer on a complete spec (SetupFlow::completeSpec), its signals passed on; a spec
    // without its lock is locked at the Packages step (lateLocker).
    QCoro::Task<Result<InstallOutcome>> install(InstallSpec spec, SetupOptions options);

    // prepare, fetch, completeSpec, install: what the headless drivers run.
    QCoro::Task<Result<InstallOutcome>> run(Plan plan, InstallSpec spec, SetupOptions options, FilesCheck accept = {});

    void cancel();
    bool isCancelled() const { return m_cancel->load(); }
    // For tests and fault drills: the Installer's checkpoint and drill points.
    void setInstallCheckpoint(std::function<Status(InstallStep)> checkpoint);
    void setInstallDrillPoint(std::function<void(const QString &point)> drill);

Q_SIGNALS:
    // One translated line per step and per file ("Choosing the packages with pip…", "cudnn: taken
    // from the cache, checksum verified.").
    void message(const QString &line);
    // pip's output and the installer's log, line by line.
    void logLine(const QString &line);
    // The files a fetch starts on, then each file as it arrives (the downloader's reports), and
    // the bytes of all of them together.
    void fetchStarted(const QList<tfsetup::core::DownloadRequest> &downloads);
    void fileProgress(const tfsetup::core::DownloadProgress &progress);
    void downloadProgress(qint64 done, qint64 total);
    // The Installer's, passed on.
    void stepStarted(tfsetup::core::InstallStep step, const QString &title);
    void stepFinished(tfsetup::core::InstallStep step);
    void installProgress(qint64 done, qint64 total);

private:
    QCoro::Task<Result<PyLock>> lockPackages(QString python, InstallSpec spec, SetupOptions options, QString workDir);
    QCoro::Task<Result<Installer::LockedPackages>> lockLate(QString python, SetupOptions options, InstallSpec spec);
    static QCoro::Task<Result<Installer::LockedPackages>> cancelledTask();
    QCoro::Task<Result<QString>> lockInterpreter(Plan plan, InstallSpec spec, ArtifactList artifacts,
                                                 SetupOptions options, QString workDir);
    Error cancelledError() const;

    SystemView &m_system;
    std::unique_ptr<Downloader> m_downloader;
    TransferOptions m_downloaderTransfer; // what m_downloader was made from
    QString m_downloaderCache;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QPointer<Installer> m_installer;
    std::function<Status(InstallStep)> m_checkpoint;
    std::function<void(const QString &)> m_drill;
};

} // namespace tfsetup::core
