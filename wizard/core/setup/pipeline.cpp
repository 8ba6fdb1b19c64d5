#include "setup/pipeline.h"

#include "catalog/knowledge.h"
#include "fetch/downloadcache.h"
#include "fetch/downloader.h"
#include "install/archive.h"
#include "install/launchers.h"
#include "setup/indexbridge.h"
#include "setup/locker.h"
#include "setup/setupspace.h"
#include "sources/bundle.h"

#include <QCoro/QCoroFuture>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>

#include <vector>

namespace tfsetup::core {

namespace {

// The interpreter a relocatable Python brings (python-build-standalone's install_only layout).
QString unpackedInterpreter(const QString &folder, OsFamily os)
{
    return folder
        + (os == OsFamily::Windows ? QStringLiteral("/python/python.exe") : QStringLiteral("/python/bin/python3"));
}

QJsonArray requestsJson(const QList<DownloadRequest> &requests)
{
    QJsonArray out;
    for (const DownloadRequest &r : requests) {
        QJsonArray urls;
        for (const QUrl &u : r.urls)
            urls.append(u.toString());
        out.append(QJsonObject{{QStringLiteral("name"), r.name},
                               {QStringLiteral("urls"), urls},
                               {QStringLiteral("size"), double(r.expectedSize)},
                               {QStringLiteral("algorithm"), r.checksum.algorithmName()},
                               {QStringLiteral("checksum"), QString::fromLatin1(r.checksum.hex)},
                               {QStringLiteral("destination"), r.destination},
                               {QStringLiteral("segments"), r.segments}});
    }
    return out;
}

Result<QList<ExtractedEntry>> unpackArchive(const QString &archive, const QString &folder)
{
    return ArchiveReader::extract(archive, folder);
}

} // namespace

// --- PreparedSetup ---

qint64 PreparedSetup::totalBytes() const
{
    qint64 total = 0;
    for (const DownloadRequest &r : downloads)
        total += std::max<qint64>(0, r.expectedSize);
    return total;
}

bool PreparedSetup::allSizesKnown() const
{
    return std::all_of(downloads.cbegin(), downloads.cend(),
                       [](const DownloadRequest &r) { return r.expectedSize >= 0; });
}

QJsonObject PreparedSetup::toJson() const
{
    QJsonArray warningList;
    for (const Finding &w : warnings)
        warningList.append(w.toJson());
    return {{QStringLiteral("artifacts"), artifacts.toJson()},
            {QStringLiteral("lock"), QString::fromUtf8(lock.toToml())},
            {QStringLiteral("downloads"), requestsJson(downloads)},
            {QStringLiteral("warnings"), warningList}};
}

Result<PreparedSetup> PreparedSetup::fromJson(const QJsonObject &json)
{
    PreparedSetup prepared;
    const QJsonObject list = json.value(QStringLiteral("artifacts")).toObject();
    prepared.artifacts.route = list.value(QStringLiteral("route")).toString();
    prepared.artifacts.tensorflow = list.value(QStringLiteral("tensorflow")).toString();
    prepared.artifacts.os = list.value(QStringLiteral("os")).toString();
    for (const QJsonValue &v : list.value(QStringLiteral("artifacts")).toArray())
        prepared.artifacts.artifacts.append(Artifact::fromJson(v.toObject()));
    const QString lockText = json.value(QStringLiteral("lock")).toString();
    if (!lockText.isEmpty()) {
        auto lock = PyLock::fromToml(lockText.toUtf8());
        if (!lock)
            return lock.error();
        prepared.lock = *lock;
    }
    for (const QJsonValue &v : json.value(QStringLiteral("downloads")).toArray()) {
        const QJsonObject o = v.toObject();
        DownloadRequest r;
        r.name = o.value(QStringLiteral("name")).toString();
        for (const QJsonValue &u : o.value(QStringLiteral("urls")).toArray())
            r.urls.append(QUrl(u.toString()));
        r.expectedSize = o.value(QStringLiteral("size")).toInteger(-1);
        const auto checksum = Checksum::parse(o.value(QStringLiteral("algorithm")).toString() == u"md5"
                                                  ? Checksum::Algorithm::Md5
                                                  : Checksum::Algorithm::Sha256,
                                              o.value(QStringLiteral("checksum")).toString());
        if (!checksum)
            return checksum.error();
        r.checksum = *checksum;
        r.destination = o.value(QStringLiteral("destination")).toString();
        r.segments = std::clamp(int(o.value(QStringLiteral("segments")).toInt(1)), 1, 16);
        if (r.urls.isEmpty() || r.destination.isEmpty())
            return Error{QStringLiteral("session_malformed"), {}, r.name};
        prepared.downloads.append(r);
    }
    return prepared;
}

// --- SetupPipeline ---

SetupPipeline::SetupPipeline(SystemView &system, QObject *parent)
    : QObject(parent)
    , m_system(system)
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{}

SetupPipeline::~SetupPipeline()
{
    m_cancel->store(true);
    if (m_downloader)
        m_downloader->cancelAll();
}

Downloader &SetupPipeline::downloader(const NetworkSettings &network, const QString &cacheDir)
{
    if (!m_downloader || network.transfer != m_downloaderTransfer || cacheDir != m_downloaderCache) {
        if (m_downloader)
            m_downloader->cancelAll();
        m_downloader = network.makeDownloader(cacheDir.isEmpty() ? DownloadCache::defaultDir() : cacheDir);
        // Wheels are many: several files at once, the large ones in ranges, as a download manager
        // does; pip fetches one file at a time over one connection.
        m_downloader->setMaxParallel(4);
        m_downloader->setMaxConnections(10);
        connect(m_downloader.get(), &Downloader::progress, this, &SetupPipeline::fileProgress);
        m_downloaderTransfer = network.transfer;
        m_downloaderCache = cacheDir;
    }
    return *m_downloader;
}

void SetupPipeline::cancel()
{
    m_cancel->store(true);
    if (m_downloader)
        m_downloader->cancelAll();
    if (m_installer)
        m_installer->cancel();
}

void SetupPipeline::setInstallCheckpoint(std::function<Status(InstallStep)> checkpoint)
{
    m_checkpoint = std::move(checkpoint);
}

void SetupPipeline::setInstallDrillPoint(std::function<void(const QString &point)> drill)
{
    m_drill = std::move(drill);
}

Error SetupPipeline::cancelledError() const
{
    return Error{QStringLiteral("cancelled"), tr("The setup was cancelled; nothing was changed."), {}};
}

QCoro::Task<Result<QString>> SetupPipeline::lockInterpreter(Plan plan, InstallSpec spec, ArtifactList artifacts,
                                                            SetupOptions options, QString workDir)
{
    Q_UNUSED(plan);
    if (!spec.pythonInterpreter.isEmpty())
        co_return spec.pythonInterpreter;
    // A relocatable Python the plan brings: fetched now (it would be anyway) and unpacked beside
    // the downloads just long enough for its pip to choose the packages.
    const Artifact *archive = nullptr;
    for (const Artifact &a : artifacts.artifacts) {
        if (a.kind == u"python-archive")
            archive = &a;
    }
    if (!archive) {
        co_return Error{QStringLiteral("python_missing"),
                        tr("Python %1 (64-bit) is needed to choose the packages and make the environment, and none was "
                           "found. Install it, then scan this computer again.")
                            .arg(spec.python),
                        {}};
    }
    QPointer<SetupPipeline> self(this);
    QString path = QDir(options.cacheDir).filePath(archive->fileName());
    if (const QString bundleDir = options.network.bundleDir.trimmed(); !bundleDir.isEmpty()) {
        const auto opened = Bundle::open(bundleDir);
        if (!opened)
            co_return opened.error();
        path = opened->pathOf(archive->name);
    } else {
        Q_EMIT message(tr("Fetching Python %1 to choose the packages with its pip…").arg(archive->version));
        const QList<DownloadRequest> requests{archive->toDownloadRequest(path)};
        auto fetching = fetch(requests, options.network, options.cacheDir);
        auto fetched = co_await fetching;
        if (!self)
            co_return cancelledError();
        if (!fetched)
            co_return fetched.error();
    }
    QFuture<Result<QList<ExtractedEntry>>> unpacking = QtConcurrent::run(&unpackArchive, path, workDir);
    const Result<QList<ExtractedEntry>> unpacked = co_await unpacking;
    if (!self)
        co_return cancelledError();
    if (!unpacked)
        co_return unpacked.error();
    co_return unpackedInterpreter(workDir, m_system.os());
}

QCoro::Task<Result<PreparedSetup>> SetupPipeline::prepare(Plan plan, InstallSpec spec, SetupOptions options,
                                                          FilesCheck accept)
{
    m_cancel->store(false);
    QPointer<SetupPipeline> self(this);
    if (!options.knowledge)
        co_return Knowledge::notGiven();
    auto catalog = options.knowledge->sourcesOr(options.sourcesCatalog);
    if (!catalog)
        co_return catalog.error();
    const QString os = options.os.isEmpty() ? osFamilyName(m_system.os()) : options.os;
    // Refused before a byte is fetched: a folder the launchers' PATH cannot carry.
    if (!spec.prefix.isEmpty() && !spec.name.isEmpty()) {
        if (const Status carried = LauncherWriter::checkEnvironmentPath(m_system.os(), spec.environmentPath());
            !carried)
            co_return carried.error();
    }

    Q_EMIT message(tr("Looking up the official files for TensorFlow %1…").arg(plan.tensorflow));
    auto resolved = co_await SetupFlow::resolveArtifacts(plan, os, options);
    if (!self || m_cancel->load())
        co_return cancelledError();
    if (!resolved)
        co_return resolved.error();
    if (accept) {
        if (const Status kept = accept(*resolved); !kept)
            co_return kept.error();
    }
    PreparedSetup prepared;
    prepared.artifacts = *resolved;
    prepared.warnings = resolved->warnings;

    // What is wrong with the files themselves (no checksum anywhere, not in the bundle, no disk
    // space for them) is said before pip's resolver runs: the lock takes longer and cannot help.
    const DownloadPlan early = SetupFlow::downloadPlan(prepared.artifacts, {}, options);
    if (!early.problems.isEmpty())
        co_return Error{early.problems.constFirst().code, early.problems.constFirst().message, {}};
    if (const Status space = DiskSpaceCheck::check(m_system,
                                                   setupSpaceNeeds(plan, prepared.artifacts, {}, early, options));
        !space)
        co_return space.error();
    // Files nobody publishes a checksum for, when the student chose to trust them on first use.
    if (!early.firstUse.isEmpty() && options.trustOnFirstUse) {
        auto trusted = co_await SetupFlow::fetchFirstUse(prepared.artifacts, options, m_cancel);
        if (!self || m_cancel->load())
            co_return cancelledError();
        if (!trusted)
            co_return trusted.error();
        prepared.artifacts = *trusted;
    }

    // The lock: pip's resolver, run by the environment's Python, through the bridge (or, with a
    // bundle, from the bundle's wheels alone). A Python to resolve with: the one the venv is made
    // from, or a relocatable one the plan brings. Without either the environment gets NVIDIA's
    // libraries only (a profile's "interpreter": "none"), or, when python.org's installer brings
    // the Python, the install locks with it (lateLocker).
    const bool bringsPython = std::any_of(prepared.artifacts.artifacts.cbegin(), prepared.artifacts.artifacts.cend(),
                                          [](const Artifact &a) { return a.kind == u"python-archive"; });
    const bool wanted = !spec.effectiveRequirements().isEmpty() || !spec.requirementsLock.isEmpty();
    if (wanted && (!spec.pythonInterpreter.isEmpty() || bringsPython)) {
        if (options.cacheDir.isEmpty())
            options.cacheDir = SetupOptions::defaultCacheDir(m_system);
        QDir().mkpath(options.cacheDir);
        QTemporaryDir work(QDir(options.cacheDir).filePath(QStringLiteral(".lock-XXXXXX")));
        if (!work.isValid()) {
            co_return Error{QStringLiteral("write_failed"),
                            tr("tfsetup cannot write into the download folder %1. Choose a folder that is yours.")
                                .arg(QDir::toNativeSeparators(options.cacheDir)),
                            work.errorString()};
        }
        auto interpreter = co_await lockInterpreter(plan, spec, prepared.artifacts, options, work.path());
        if (!self || m_cancel->load())
            co_return cancelledError();
        if (!interpreter)
            co_return interpreter.error();
        auto locking = lockPackages(*interpreter, spec, options, work.path());
        auto locked = co_await locking;
        if (!self || m_cancel->load())
            co_return cancelledError();
        if (!locked)
            co_return locked.error();
        prepared.lock = *locked;
    }

    const DownloadPlan downloads = SetupFlow::downloadPlan(prepared.artifacts, prepared.lock, options);
    if (!downloads.problems.isEmpty())
        co_return Error{downloads.problems.constFirst().code, downloads.problems.constFirst().message, {}};
    prepared.downloads = downloads.requests;
    if (const Status space = DiskSpaceCheck::check(
            m_system, setupSpaceNeeds(plan, prepared.artifacts, prepared.lock, downloads, options));
        !space)
        co_return space.error();
    co_return prepared;
}

QCoro::Task<Result<PyLock>> SetupPipeline::lockPackages(QString python, InstallSpec spec, SetupOptions options,
                                                        QString workDir)
{
    QPointer<SetupPipeline> self(this);
    auto catalog = options.knowledge->sourcesOr(options.sourcesCatalog);
    if (!catalog)
        co_return catalog.error();
    LockRequest request;
    request.python = python;
    request.requirements = spec.effectiveRequirements();
    request.requirementsLock = spec.requirementsLock;
    request.workDir = workDir;
    request.cancel = m_cancel;
    request.platforms = options.pipPlatforms;
    request.targetPython = spec.python;
    Locker locker(m_system);
    connect(&locker, &Locker::logLine, this, &SetupPipeline::logLine);
    const QString bundleDir = options.network.bundleDir.trimmed();
    std::unique_ptr<IndexBridge> bridge;
    std::optional<Bundle> bundle;
    if (!bundleDir.isEmpty()) {
        auto opened = Bundle::open(bundleDir);
        if (!opened)
            co_return opened.error();
        if (!opened->wheelFolder().isEmpty())
            bundle = *opened;
    }
    if (bundle) {
        request.findLinks = bundle->wheelFolder();
        Q_EMIT message(tr("Checking that the offline bundle holds every package this environment needs…"));
    } else if (options.network.offline) {
        co_return Error{QStringLiteral("bundle_incomplete"),
                        bundleDir.isEmpty()
                            ? tr("Without the network the packages can only come from an offline bundle. Give one "
                                 "with --from (or on the Options page).")
                            : tr("The offline bundle %1 holds no Python packages, and without the network none can "
                                 "be fetched. Make the bundle again with tfsetup bundle on a computer with internet "
                                 "(without --no-wheelhouse).")
                                  .arg(QDir::toNativeSeparators(bundleDir)),
                        bundleDir};
    } else {
        // Online, or a bundle made without wheels (its resolve said so): pip's resolver
        // through the bridge to the network settings' indexes.
        auto indexes = SetupFlow::pypiIndexes(options.network, *catalog);
        if (!indexes)
            co_return indexes.error();
        IndexBridge::Options bridgeOptions;
        bridgeOptions.indexes = *indexes;
        bridgeOptions.transfer = options.network.transfer;
        bridgeOptions.downloader = &downloader(options.network, options.cacheDir);
        bridgeOptions.cacheDir = options.cacheDir;
        bridge = std::make_unique<IndexBridge>(bridgeOptions);
        connect(bridge.get(), &IndexBridge::message, this, &SetupPipeline::message);
        if (const Status started = bridge->start(); !started)
            co_return started.error();
        QStringList shown;
        for (const QUrl &i : std::as_const(*indexes))
            shown.append(i.toString(QUrl::RemoveUserInfo));
        Q_EMIT message(tr("Choosing the Python packages with pip (from %1)…").arg(shown.join(QStringLiteral(", "))));
    }
    auto locking = locker.lock(request, bridge.get());
    auto locked = co_await locking;
    if (!self || m_cancel->load())
        co_return cancelledError();
    if (!locked)
        co_return locked.error();
    PyLock lock = *locked;
    for (const LockedWheel &w : std::as_const(lock.packages)) {
        if (w.sha256.size() != 64 && !bundle) {
            co_return Error{QStringLiteral("lock_incomplete"),
                            tr("No checksum could be found or recorded for %1, so it cannot be checked. Try another "
                               "package index.")
                                .arg(w.file),
                            w.url};
        }
    }
    if (bundle) {
        // Offline, the bundle's own record is what every wheel is checked against.
        for (LockedWheel &w : lock.packages) {
            const QString path = bundle->wheelPath(w.file);
            const BundleFile *file = bundle->fileAt(QDir(bundle->directory()).relativeFilePath(path));
            if (path.isEmpty() || !file) {
                co_return Error{QStringLiteral("bundle_incomplete"),
                                tr("The offline bundle %1 does not list %2. Make the bundle again.")
                                    .arg(QDir::toNativeSeparators(bundle->directory()), w.file),
                                w.file};
            }
            w.sha256 = file->sha256.toLatin1();
            w.size = file->size;
            if (const LockedWheel *original = bundle->lock().find(w.name); original && original->file == w.file) {
                w.url = original->url;
                w.index = original->index;
                w.hashFromDownload = original->hashFromDownload;
            }
        }
    }
    Q_EMIT message(tr("pip chose %n package(s), %1 in all.", nullptr, int(lock.packages.size()))
                       .arg(QLocale().formattedDataSize(lock.totalBytes(), 1, QLocale::DataSizeTraditionalFormat)));

    co_return lock;
}

Installer::PackageLocker SetupPipeline::lateLocker(SetupOptions options, InstallSpec spec)
{
    QPointer<SetupPipeline> self(this);
    return [self, options, spec](QString python) -> QCoro::Task<Result<Installer::LockedPackages>> {
        if (!self)
            return cancelledTask();
        return self->lockLate(python, options, spec);
    };
}

QCoro::Task<Result<Installer::LockedPackages>> SetupPipeline::cancelledTask()
{
    co_return Error{QStringLiteral("cancelled"), tr("The setup was cancelled; nothing was changed."), {}};
}

QCoro::Task<Result<Installer::LockedPackages>> SetupPipeline::lockLate(QString python, SetupOptions options,
                                                                       InstallSpec spec)
{
    QPointer<SetupPipeline> self(this);
    if (!options.knowledge)
        co_return Knowledge::notGiven();
    if (options.cacheDir.isEmpty())
        options.cacheDir = SetupOptions::defaultCacheDir(m_system);
    QDir().mkpath(options.cacheDir);
    QTemporaryDir work(QDir(options.cacheDir).filePath(QStringLiteral(".lock-XXXXXX")));
    if (!work.isValid())
        co_return Error{QStringLiteral("write_failed"), {}, work.errorString()};
    auto locking = lockPackages(python, spec, options, work.path());
    auto locked = co_await locking;
    if (!self)
        co_return cancelledError();
    if (!locked)
        co_return locked.error();
    const DownloadPlan downloads = SetupFlow::downloadPlan({}, *locked, options);
    auto fetching = fetch(downloads.requests, options.network, options.cacheDir);
    auto fetched = co_await fetching;
    if (!self)
        co_return cancelledError();
    if (!fetched)
        co_return fetched.error();
    auto complete = SetupFlow::completeSpec(spec, {}, *locked, *fetched, options);
    if (!complete)
        co_return complete.error();
    co_return Installer::LockedPackages{*locked, complete->artifacts};
}

QCoro::Task<Result<QList<DownloadResult>>> SetupPipeline::fetch(QList<DownloadRequest> downloads,
                                                                NetworkSettings network, QString cacheDir)
{
    QPointer<SetupPipeline> self(this);
    Downloader &d = downloader(network, cacheDir);
    qint64 total = 0;
    for (const DownloadRequest &r : downloads)
        total += std::max<qint64>(0, r.expectedSize);
    // Every file's bytes so far, for one total; finished files count whole.
    auto received = std::make_shared<QHash<QString, qint64>>();
    const QMetaObject::Connection counting = connect(&d, &Downloader::progress, this,
                                                     [this, received, total](const DownloadProgress &p) {
                                                         if (p.stage != DownloadProgress::Stage::Downloading)
                                                             return;
                                                         received->insert(p.name, p.received);
                                                         qint64 done = 0;
                                                         for (const qint64 bytes : std::as_const(*received))
                                                             done += bytes;
                                                         Q_EMIT downloadProgress(done, total);
                                                     });
    // Each fetch starts as it is made (tasks are eager); the downloader's pool runs several at
    // once. They are collected in order.
    Q_EMIT fetchStarted(downloads);
    std::vector<QCoro::Task<Result<DownloadResult>>> running;
    running.reserve(size_t(downloads.size()));
    if (!downloads.isEmpty()) {
        Q_EMIT message(tr("%n file(s) to fetch, %1 in all; files already in the download folder are only checked.",
                          nullptr, int(downloads.size()))
                           .arg(QLocale().formattedDataSize(total, 1, QLocale::DataSizeTraditionalFormat)));
    }
    for (const DownloadRequest &r : std::as_const(downloads)) {
        Q_EMIT message(
            r.expectedSize >= 0
                ? tr("Fetching %1 (%2)…")
                      .arg(r.name, QLocale().formattedDataSize(r.expectedSize, 1, QLocale::DataSizeTraditionalFormat))
                : tr("Fetching %1…").arg(r.name));
        running.push_back(d.fetch(r));
    }
    QList<DownloadResult> results;
    std::optional<Error> failure;
    for (size_t i = 0; i < running.size(); ++i) {
        auto fetched = co_await running[i];
        if (!self)
            co_return cancelledError();
        if (!fetched) {
            if (!failure) {
                failure = fetched.error();
                d.cancelAll(); // the others keep their bytes for the next run
            }
            continue;
        }
        const DownloadRequest &r = downloads.at(qsizetype(i));
        received->insert(r.name, fetched->bytes);
        const QString size = QLocale().formattedDataSize(fetched->bytes, 1, QLocale::DataSizeTraditionalFormat);
        Q_EMIT message(fetched->fromCache
                           ? tr("%1 (%2): already in the download folder, checksum verified.").arg(r.name, size)
                           : tr("%1 (%2): downloaded from %3, checksum verified.")
                                 .arg(r.name, size, fetched->source.toDisplayString(QUrl::RemoveUserInfo)));
        results.append(*fetched);
    }
    disconnect(counting);
    if (m_cancel->load())
        co_return cancelledError();
    if (failure)
        co_return *failure;
    Q_EMIT downloadProgress(total, total);
    co_return results;
}

QCoro::Task<Result<InstallOutcome>> SetupPipeline::run(Plan plan, InstallSpec spec, SetupOptions options,
                                                       FilesCheck accept)
{
    QPointer<SetupPipeline> self(this);
    auto prepared = co_await prepare(plan, spec, options, std::move(accept));
    if (!self)
        co_return cancelledError();
    if (!prepared)
        co_return prepared.error();
    for (const Finding &w : std::as_const(prepared->warnings))
        Q_EMIT message(tr("note: %1").arg(w.message));
    if (options.cacheDir.isEmpty())
        options.cacheDir = SetupOptions::defaultCacheDir(m_system);
    auto fetched = co_await fetch(prepared->downloads, options.network, options.cacheDir);
    if (!self)
        co_return cancelledError();
    if (!fetched)
        co_return fetched.error();
    auto complete = SetupFlow::completeSpec(spec, prepared->artifacts, prepared->lock, *fetched, options);
    if (!complete)
        co_return complete.error();

    auto installed = co_await install(*complete, options);
    if (!self)
        co_return cancelledError();
    co_return installed;
}

QCoro::Task<Result<InstallOutcome>> SetupPipeline::install(InstallSpec spec, SetupOptions options)
{
    QPointer<SetupPipeline> self(this);
    if (!options.knowledge)
        co_return Knowledge::notGiven();
    Installer installer(m_system, options.knowledge);
    if (spec.lock.packages.isEmpty())
        installer.setPackageLocker(lateLocker(options, spec));
    connect(&installer, &Installer::stepStarted, this, &SetupPipeline::stepStarted);
    connect(&installer, &Installer::stepFinished, this, &SetupPipeline::stepFinished);
    connect(&installer, &Installer::progress, this, &SetupPipeline::installProgress);
    connect(&installer, &Installer::logLine, this, &SetupPipeline::logLine);
    if (m_checkpoint)
        installer.setCheckpoint(m_checkpoint);
    if (m_drill)
        installer.setDrillPoint(m_drill);
    if (m_cancel->load())
        co_return cancelledError();
    m_installer = &installer;
    auto installed = co_await installer.install(std::move(spec));
    if (!self)
        co_return cancelledError();
    m_installer = nullptr;
    co_return installed;
}

} // namespace tfsetup::core
