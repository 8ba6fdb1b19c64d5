#include "setup/setupflow.h"

#include "catalog/knowledge.h"
#include "fetch/downloadcache.h"
#include "fetch/downloader.h"
#include "sources/bundle.h"
#include "sources/firstuse.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace tfsetup::core {

namespace {

// The options' bundle: none when no folder was given; a folder that is not a usable bundle is an
// error, never a reason to go to the network instead.
Result<std::optional<Bundle>> openBundle(const SetupOptions &options)
{
    if (options.network.bundleDir.trimmed().isEmpty())
        return std::optional<Bundle>();
    auto bundle = Bundle::open(options.network.bundleDir.trimmed());
    if (!bundle)
        return bundle.error();
    return std::optional<Bundle>(std::move(*bundle));
}

Error notInBundle(const Bundle &bundle, const Artifact &artifact)
{
    return Error{QStringLiteral("bundle_incomplete"),
                 SetupFlow::tr("The offline bundle %1 does not hold %2, which this plan needs. Make the bundle again "
                               "with tfsetup bundle on a computer with internet.")
                     .arg(QDir::toNativeSeparators(bundle.directory()),
                          artifact.fileName().isEmpty() ? artifact.name : artifact.fileName()),
                 artifact.name};
}

// The bundle's copy of an artifact, when it holds the same file (same name and checksum).
QString bundlePath(const std::optional<Bundle> &bundle, const Artifact &artifact)
{
    if (!bundle)
        return {};
    const Artifact *recorded = bundle->artifacts().find(artifact.name);
    if (!recorded || recorded->sha256 != artifact.sha256 || recorded->md5 != artifact.md5)
        return {};
    return bundle->pathOf(artifact.name);
}

// The Windows limit without the long-path opt-in: MAX_PATH is 260 characters including the
// terminating NUL. An environment adds about 120 below its folder (site-packages of TensorFlow's
// deepest wheels), so a folder longer than this leaves pip no room.
constexpr int windowsMaxPath = 260;
constexpr int windowsEnvironmentDepth = 120;

} // namespace

QString SetupOptions::defaultPrefix(const SystemView &system)
{
    const QString home = system.homeDir();
    return SystemView::join(home.isEmpty() ? QDir::homePath() : home, QStringLiteral("tfsetup-envs"));
}

QString SetupOptions::defaultCacheDir(const SystemView &system)
{
    const QString overridden = system.env(QStringLiteral("TFSETUP_CACHE_DIR"));
    const QString home = system.homeDir();
    QString folder;
    if (!overridden.isEmpty()) {
        folder = system.normalize(overridden);
    } else if (system.os() == OsFamily::Windows) {
        const QString local = system.env(QStringLiteral("LOCALAPPDATA"));
        const QString base = !local.isEmpty() ? system.normalize(local)
            : home.isEmpty()                  ? QString()
                                              : SystemView::join(home, QStringLiteral("AppData/Local"));
        if (!base.isEmpty())
            folder = SystemView::join(base, QStringLiteral("cache/tfsetup/downloads"));
    } else {
        const QString xdg = system.env(QStringLiteral("XDG_CACHE_HOME"));
        const QString base = xdg.startsWith(u'/') ? system.normalize(xdg)
            : home.isEmpty()                      ? QString()
            : system.os() == OsFamily::MacOS      ? SystemView::join(home, QStringLiteral("Library/Caches"))
                                                  : SystemView::join(home, QStringLiteral(".cache"));
        if (!base.isEmpty())
            folder = SystemView::join(base, QStringLiteral("tfsetup/downloads"));
    }
    const QString host = folder.isEmpty() ? QString() : system.hostPath(folder);
    // A view without a home maps nowhere: this machine's folder is still a working choice.
    return host.isEmpty() ? DownloadCache::defaultDir() : host;
}

QString SetupOptions::environmentPath(const Plan &plan) const
{
    return SystemView::join(prefix, name.isEmpty() ? InstallSpec::defaultName(plan) : name);
}

ResolveRequest SetupFlow::resolveRequest(const Plan &plan, const QString &os)
{
    ResolveRequest r;
    r.route = plan.route;
    r.tensorflow = plan.tensorflow;
    r.os = os;
    r.python = plan.python;
    r.pythonInstalled = plan.pythonInstalled;
    r.cuda = plan.cuda;
    r.cudnn = plan.cudnn;
    r.requirement = plan.requirement();
    return r;
}

Result<MirrorSet> SetupFlow::mirrors(const SetupOptions &options, const SourceCatalog &catalog)
{
    MirrorSet set;
    if (const QString bundleDir = options.network.bundleDir.trimmed(); !bundleDir.isEmpty()) {
        if (const Status folder = Bundle::checkFolder(bundleDir); !folder)
            return folder.error();
        // bundle.h: NVIDIA's files under nvidia/, python.org's under python/, same paths below.
        const QDir dir(bundleDir);
        set.add(Mirror{QStringLiteral("nvidia"), QUrl::fromLocalFile(dir.absoluteFilePath(QStringLiteral("nvidia")))});
        set.add(Mirror{QStringLiteral("python"), QUrl::fromLocalFile(dir.absoluteFilePath(QStringLiteral("python")))});
    }
    if (!options.network.nvidiaMirror.trimmed().isEmpty()) {
        auto mirror = MirrorSet::parse(options.network.nvidiaMirror.trimmed(), &catalog);
        if (!mirror)
            return mirror.error();
        if (mirror->origin != u"nvidia")
            mirror->origin = QStringLiteral("nvidia");
        set.add(*mirror);
    }
    for (const QString &spec : options.network.fileMirrors) {
        auto mirror = MirrorSet::parse(spec.trimmed(), &catalog);
        if (!mirror)
            return mirror.error();
        set.add(*mirror);
    }
    const QString pypi = options.network.firstPypiIndex().trimmed();
    if (!pypi.isEmpty() && pypi != u"pypi") {
        auto mirror = MirrorSet::parse(QStringLiteral("pypi=") + pypi, &catalog);
        if (!mirror)
            return mirror.error();
        set.add(*mirror);
    }
    // The lab's own mirrors, named by the (signed) catalog it installed: after the ones the
    // options give, before the origins. Checked when the catalog was read. Not offline: then the
    // bundle alone serves.
    for (const CatalogMirror &named : options.network.offline ? QList<CatalogMirror>{} : catalog.mirrors()) {
        auto mirror = MirrorSet::parse(named.origin + u'=' + named.url, &catalog);
        if (!mirror)
            return mirror.error();
        set.add(*mirror);
    }
    return set;
}

Result<QList<QUrl>> SetupFlow::pypiIndexes(const NetworkSettings &network, const SourceCatalog &catalog)
{
    QList<QUrl> out;
    const auto addIndex = [&out](const QUrl &url) {
        if (url.isValid() && !out.contains(url))
            out.append(url);
    };
    for (const QString &entry : network.pypiIndexes) {
        const QString value = entry.trimmed();
        if (value.isEmpty())
            continue;
        // A preset's URL, unless a test or lab serves that preset from elsewhere.
        QUrl overridden;
        for (const auto &[origin, base] : network.originOverrides) {
            if (origin == u"pypi:" + value || (value == u"pypi" && origin == u"pypi"))
                overridden = base;
        }
        if (!overridden.isEmpty()) {
            addIndex(overridden);
            continue;
        }
        if (const auto preset = catalog.pypiMirror(value)) {
            addIndex(QUrl(preset->url));
            continue;
        }
        auto mirror = MirrorSet::parse(QStringLiteral("pypi=") + value, &catalog);
        if (!mirror)
            return mirror.error();
        addIndex(mirror->base);
    }
    if (out.isEmpty()) {
        QUrl official(catalog.originBase(QStringLiteral("pypi")));
        for (const auto &[origin, base] : network.originOverrides) {
            if (origin == u"pypi")
                official = base;
        }
        addIndex(official);
    }
    return out;
}

QList<QUrl> SetupFlow::wheelUrls(const LockedWheel &wheel, const QList<QUrl> &indexes, const SourceCatalog &catalog)
{
    // Records keep no credentials (util/text.h's redactSecrets: "https://***@host/…"): they stay
    // where the user put them, in the indexes configured for this run. A URL on the scheme, host
    // and port of such an index gets that index's user info back; any other goes without.
    const auto withCredentials = [&indexes](QUrl url) {
        url.setUserInfo(QString());
        for (const QUrl &index : indexes) {
            if (!index.userInfo().isEmpty() && index.scheme() == url.scheme() && index.host() == url.host()
                && index.port() == url.port()) {
                url.setUserInfo(index.userInfo());
                break;
            }
        }
        return url;
    };
    const auto bare = [](const QUrl &url) { return url.toString(QUrl::StripTrailingSlash | QUrl::RemoveUserInfo); };
    const QUrl own = QUrl(wheel.url).isLocalFile() ? QUrl(wheel.url) : withCredentials(QUrl(wheel.url));
    if (own.isLocalFile())
        return {own};
    // Below a files root, PyPI and the mirrors that copy it keep the same "packages/…" path.
    const QString path = own.path();
    const qsizetype packages = path.indexOf(QStringLiteral("/packages/"));
    const QString rest = packages >= 0 ? path.mid(packages + 1) : QString();
    QList<QUrl> urls;
    bool ownPlaced = false;
    for (const QUrl &index : indexes) {
        const QString indexText = bare(index);
        if (!ownPlaced && bare(QUrl(wheel.index)) == indexText) {
            urls.append(own);
            ownPlaced = true;
            continue;
        }
        if (rest.isEmpty())
            continue;
        QString root;
        for (const PypiMirror &m : catalog.pypiMirrors()) {
            if (bare(QUrl(m.url)) == indexText && !m.files.isEmpty())
                root = m.files;
        }
        if (root.isEmpty()) {
            QString base = indexText;
            if (!base.endsWith(QStringLiteral("/simple")))
                continue; // no known layout for this index's files
            base.chop(QStringLiteral("simple").size());
            root = base;
        }
        const QUrl candidate = withCredentials(QUrl(root.endsWith(u'/') ? root : root + u'/').resolved(QUrl(rest)));
        if (candidate.isValid() && candidate != own && !urls.contains(candidate))
            urls.append(candidate);
    }
    if (!ownPlaced)
        urls.prepend(own);
    return urls;
}

QCoro::Task<Result<ArtifactList>> SetupFlow::resolveArtifacts(Plan plan, QString os, SetupOptions options)
{
    if (!options.knowledge)
        co_return Knowledge::notGiven();
    auto catalog = options.knowledge->sourcesOr(options.sourcesCatalog);
    if (!catalog)
        co_return catalog.error();
    // A bundle is opened and checked before anything could reach the network, and its recorded
    // list is all there is: a bundle that cannot serve the plan is said, not worked around.
    auto bundle = openBundle(options);
    if (!bundle)
        co_return bundle.error();
    if (*bundle) {
        const Bundle &b = **bundle;
        if (const Status serves = b.servesPlan(plan.route, plan.tensorflow, os, plan.python); !serves)
            co_return serves.error();
        if (const Status complete = co_await b.verifyAsync(); !complete)
            co_return complete.error();
        ArtifactList recorded = b.artifacts();
        if (b.wheelhouse().isEmpty()) {
            // Made with --no-wheelhouse: pip goes to the index of these options, not to the one the
            // bundle was written with, and the student is told so.
            auto mirrorSet = mirrors(options, *catalog);
            if (!mirrorSet)
                co_return mirrorSet.error();
            ArtifactResolver resolver(std::move(*catalog), std::move(*mirrorSet));
            for (const auto &[origin, base] : options.network.originOverrides)
                resolver.setOriginBase(origin, base);
            for (Artifact &a : recorded.artifacts) {
                if (a.kind != u"wheelhouse")
                    continue;
                a.indexUrl = resolver.indexUrl();
                recorded.warnings.append(
                    Finding{QStringLiteral("bundle_no_wheelhouse"),
                            tr("The offline bundle holds no pip wheels, so pip downloads %1 from %2; that needs "
                               "the network. For an install without network, make the bundle without "
                               "--no-wheelhouse.")
                                .arg(a.requirement, a.indexUrl)});
            }
        }
        co_return recorded;
    }
    auto mirrorSet = mirrors(options, *catalog);
    if (!mirrorSet)
        co_return mirrorSet.error();
    ArtifactResolver resolver(std::move(*catalog), std::move(*mirrorSet));
    for (const auto &[origin, base] : options.network.originOverrides)
        resolver.setOriginBase(origin, base);
    resolver.setTimeout(options.network.resolveTimeout);
    // Every request of the resolve goes the way the downloads go.
    resolver.setTransferOptions(options.network.transfer);
    auto list = co_await resolver.resolve(resolveRequest(plan, os));
    co_return list;
}

QString SetupFlow::destinationFor(const Artifact &artifact, const QString &cacheDir)
{
    // Components can share a file name across versions, never within one list.
    QString file = artifact.fileName();
    if (file.isEmpty())
        file = artifact.name + u'-' + artifact.version;
    return QDir(cacheDir).filePath(file);
}

DownloadPlan SetupFlow::downloadPlan(const ArtifactList &list, const PyLock &lock, const SetupOptions &options)
{
    DownloadPlan out;
    const auto opened = openBundle(options);
    if (!opened) {
        out.problems.append(Finding{opened.error().code, opened.error().message});
        return out;
    }
    const std::optional<Bundle> &bundle = *opened;
    QSet<QString> destinations;
    for (const Artifact &a : list.artifacts) {
        if (a.kind == u"wheelhouse")
            continue; // pip fetches these, checking the index's hashes
        if (!bundlePath(bundle, a).isEmpty())
            continue;
        if (bundle) {
            // With a bundle nothing is downloaded: what it lacks is missing, not fetched instead.
            if (!a.optional) {
                const Error e = notInBundle(*bundle, a);
                out.problems.append(Finding{e.code, e.message});
            }
            continue;
        }
        // A SHA-256 beside Trust::None was recorded on first use (fetchFirstUse, a bundle).
        const bool recorded = a.trust == Artifact::Trust::None && !a.sha256.isEmpty();
        if (a.needsTrustOnFirstUse() && !recorded) {
            if (a.optional)
                continue;
            if (options.trustOnFirstUse) {
                out.firstUse.append(a);
                continue;
            }
            out.problems.append(Finding{
                QStringLiteral("artifact_unverifiable"),
                tr("No checksum is published for %1, so tfsetup cannot check the download. Make an offline bundle "
                   "with tfsetup bundle --trust-on-first-use on a trusted network, or choose another plan.")
                    .arg(a.fileName().isEmpty() ? a.name : a.fileName())});
            continue;
        }
        const QString destination = destinationFor(a, options.cacheDir);
        if (destinations.contains(destination))
            continue;
        DownloadRequest request = a.toDownloadRequest(destination);
        if (request.urls.isEmpty()) {
            out.problems.append(Finding{QStringLiteral("artifact_no_url"),
                                        tr("%1 has no web address tfsetup can download from. Check the mirror "
                                           "settings.")
                                            .arg(a.fileName())});
            continue;
        }
        destinations.insert(destination);
        out.requests.append(request);
    }
    if (lock.packages.isEmpty() || bundle)
        return out; // a bundle's wheels are its own files, checked when the bundle is opened
    SourceCatalog catalog;
    if (options.knowledge) {
        if (auto c = options.knowledge->sourcesOr(options.sourcesCatalog))
            catalog = *c;
    }
    const QList<QUrl> indexes = pypiIndexes(options.network, catalog).valueOr({});
    for (const LockedWheel &w : lock.packages) {
        DownloadRequest request;
        request.name = w.file;
        request.urls = wheelUrls(w, indexes, catalog);
        request.expectedSize = w.size;
        request.checksum = Checksum{Checksum::Algorithm::Sha256, w.sha256};
        request.destination = QDir(options.cacheDir).filePath(w.file);
        // Large wheels (TensorFlow's, NVIDIA's) come in ranges at once; small ones in one piece
        // (the downloader splits nothing below its segment size).
        request.segments = 4;
        if (destinations.contains(request.destination))
            continue;
        destinations.insert(request.destination);
        out.requests.append(request);
    }
    return out;
}

QCoro::Task<Result<ArtifactList>> SetupFlow::fetchFirstUse(ArtifactList list, SetupOptions options,
                                                           std::shared_ptr<const std::atomic<bool>> cancel)
{
    if (!options.trustOnFirstUse)
        co_return list;
    const QList<Artifact> firstUse = downloadPlan(list, {}, options).firstUse;
    for (const Artifact &a : firstUse) {
        FirstUseOptions fetchOptions;
        fetchOptions.transfer = options.network.transfer;
        fetchOptions.cancel = cancel;
        const QString destination = destinationFor(a, options.cacheDir);
        auto fetched = co_await FirstUse::fetch(a, destination, std::move(fetchOptions));
        if (!fetched)
            co_return fetched.error();
        for (Artifact &listed : list.artifacts) {
            if (listed.name != a.name || listed.relativePath != a.relativePath)
                continue;
            listed.sha256 = fetched->sha256;
            if (listed.size < 0)
                listed.size = fetched->size;
            listed.note = tr("Trusted on first use: no checksum is published anywhere; this SHA-256 was recorded "
                             "when the file was downloaded on %1.")
                              .arg(QDateTime::currentDateTimeUtc().date().toString(Qt::ISODate));
        }
    }
    co_return list;
}

QString SetupFlow::pythonFor(const Plan &plan, const HardwareReport &hardware)
{
    if (plan.python.isEmpty())
        return {};
    QString fallback;
    for (const PythonInfo &p : hardware.pythons) {
        if (p.version != plan.python && !p.version.startsWith(plan.python + u'.'))
            continue;
        if (p.bits == 32)
            continue; // TensorFlow publishes 64-bit wheels only
        // A venv made from another venv breaks when the first one is deleted.
        if (p.kind != u"venv")
            return p.path;
        if (fallback.isEmpty())
            fallback = p.path;
    }
    return fallback;
}

Result<InstallSpec> SetupFlow::baseSpec(const Plan &plan, const SetupOptions &options, const HardwareReport &hardware,
                                        const ArtifactList *list)
{
    InstallSpec spec = options.profileSpec ? *options.profileSpec : InstallSpec::fromPlan(plan);
    if (!options.name.trimmed().isEmpty())
        spec.name = options.name.trimmed();
    spec.prefix = options.prefix;
    if (!options.jupyter)
        spec.jupyter.clear();
    else if (spec.jupyter.isEmpty())
        spec.jupyter = InstallSpec::fromPlan(plan).jupyter; // asked for, though the profile named none
    if (hardware.driver)
        spec.driver = hardware.driver->version;
    // The profile found its interpreter (or says "none": no Python at all), as on the command line.
    if (options.profileSpec)
        return spec;
    spec.pythonInterpreter = pythonFor(plan, hardware);
    // A relocatable Python among the artifacts is unpacked into the environment and makes the venv.
    // So does python.org's installer on Windows (run per user, beside the environments).
    const bool bringsPython = list
        && std::any_of(list->artifacts.cbegin(), list->artifacts.cend(),
                       [](const Artifact &a) { return a.kind == u"python-archive" || a.kind == u"python-installer"; });
    if (spec.pythonInterpreter.isEmpty() && !plan.python.isEmpty() && !bringsPython && (list || plan.pythonInstalled)) {
        return Error{QStringLiteral("python_missing"),
                     tr("Python %1 (64-bit) is needed to make the environment, and none was found. Install it, then "
                        "scan this computer again.")
                         .arg(plan.python),
                     {}};
    }
    return spec;
}

Result<InstallSpec> SetupFlow::completeSpec(InstallSpec spec, const ArtifactList &list, const PyLock &lock,
                                            const QList<DownloadResult> &downloaded, const SetupOptions &options)
{
    const auto opened = openBundle(options);
    if (!opened)
        return opened.error();
    const std::optional<Bundle> &bundle = *opened;
    const auto downloadedAt = [&downloaded](const QString &destination) {
        const QString wanted = QDir::cleanPath(destination);
        return std::find_if(downloaded.cbegin(), downloaded.cend(),
                            [&wanted](const DownloadResult &r) { return QDir::cleanPath(r.path) == wanted; });
    };
    spec.artifacts.clear();
    for (const Artifact &a : list.artifacts) {
        if (a.kind == u"wheelhouse")
            continue; // the lock's wheels below are what pip installs
        if (a.kind != u"cuda-redist-archive" && a.kind != u"cudnn-archive" && a.kind != u"python-archive"
            && a.kind != u"python-installer") {
            if (a.optional)
                continue;
            return Error{QStringLiteral("artifact_unsupported"),
                         tr("%1 must be installed by its own installer, which this wizard cannot run yet. Choose "
                            "the portable route, or install it yourself and scan again.")
                             .arg(a.fileName().isEmpty() ? a.name : a.fileName()),
                         a.kind};
        }
        if (a.sha256.isEmpty() && (a.kind != u"python-installer" || a.md5.isEmpty())) {
            return Error{QStringLiteral("artifact_unverifiable"),
                         tr("%1 has no SHA-256 checksum, so the installer cannot check it. Choose another plan.")
                             .arg(a.fileName()),
                         {}};
        }
        QString path = bundlePath(bundle, a);
        QString origin = path.isEmpty() ? QString() : bundle->directory();
        if (path.isEmpty() && bundle) {
            if (a.optional)
                continue;
            return notInBundle(*bundle, a);
        }
        if (path.isEmpty()) {
            const QString destination = destinationFor(a, options.cacheDir);
            const auto result = downloadedAt(destination);
            if (result == downloaded.cend()) {
                if (a.optional)
                    continue;
                return Error{QStringLiteral("artifact_not_downloaded"),
                             tr("%1 has not been downloaded yet. Go back to the download step.").arg(a.fileName()),
                             destination};
            }
            path = result->path;
            origin = result->source.isEmpty() ? (a.urls.isEmpty() ? QString() : a.urls.constLast().toString())
                                              : result->source.toString();
        }
        spec.artifacts.append(InstallArtifact{a.kind, a.name, a.version, a.platform, a.sha256.toLatin1(), path, origin,
                                              a.installArguments,
                                              a.sha256.isEmpty() ? a.md5.toLatin1() : QByteArray()});
    }
    for (const LockedWheel &w : lock.packages) {
        QString path;
        if (bundle) {
            path = bundle->wheelPath(w.file);
            if (path.isEmpty()) {
                return Error{QStringLiteral("bundle_incomplete"),
                             tr("The offline bundle %1 does not hold %2, which its lock names. Make the bundle again "
                                "with tfsetup bundle on a computer with internet.")
                                 .arg(QDir::toNativeSeparators(bundle->directory()), w.file),
                             w.file};
            }
        } else {
            const auto result = downloadedAt(QDir(options.cacheDir).filePath(w.file));
            if (result == downloaded.cend()) {
                return Error{QStringLiteral("artifact_not_downloaded"),
                             tr("%1 has not been downloaded yet. Go back to the download step.").arg(w.file), w.file};
            }
            path = result->path;
        }
        // The origin is the lock's URL, whichever mirror or cache served the bytes: the
        // environment is the same either way.
        spec.artifacts.append(
            InstallArtifact{QStringLiteral("wheel"), w.name, w.version, {}, w.sha256, path, w.url, {}, {}});
    }
    spec.lock = lock;
    return spec;
}

QList<PathAdvice> SetupFlow::adviseOnPath(const QString &path, OsFamily os)
{
    QList<PathAdvice> advice;
    const QString trimmed = path.trimmed();
    const bool windows = os == OsFamily::Windows;
    const bool absolute = windows ? (trimmed.size() >= 3 && trimmed.at(0).isLetter() && trimmed.at(1) == u':'
                                     && (trimmed.at(2) == u'/' || trimmed.at(2) == u'\\'))
                                  : trimmed.startsWith(u'/');
    if (!absolute) {
        advice.append({QStringLiteral("not_absolute"),
                       windows ? tr("Give a full folder path that starts with a drive, like C:\\tfsetup-envs.")
                               : tr("Give a full folder path that starts with /, like /home/you/tfsetup-envs."),
                       true});
        return advice;
    }
    if (!windows)
        return advice;
    const bool ascii = std::all_of(trimmed.cbegin(), trimmed.cend(), [](QChar c) { return c.unicode() < 0x80; });
    if (!ascii) {
        advice.append({QStringLiteral("non_ascii"),
                       tr("This folder has characters outside English letters and digits. Some Python packages and "
                          "NVIDIA tools fail in such folders on Windows; a folder like C:\\tfsetup-envs is safer."),
                       false});
    }
    if (trimmed.size() > windowsMaxPath - windowsEnvironmentDepth) {
        advice.append({QStringLiteral("too_long"),
                       tr("This folder path is long (%1 characters). Windows limits paths to %2 characters unless "
                          "long paths are enabled, and pip places files deep inside the environment. Choose a "
                          "shorter folder.")
                           .arg(trimmed.size())
                           .arg(windowsMaxPath),
                       false});
    }
    return advice;
}

} // namespace tfsetup::core
