#include "sources/resolver.h"

#include "util/jsonshape.h"

#include "catalog/version.h"
#include "sources/pythonsources.h"
#include "sources/wheelcheck.h"

#include <QCryptographicHash>
#include <QFile>

namespace tfsetup::core {

namespace {

Finding finding(const char *code, const QString &message)
{
    return Finding{QLatin1String(code), message};
}

// Says how an unpinned manifest arrived: only https proves it is NVIDIA's.
Finding unpinnedFinding(const QString &fileName, const QUrl &from)
{
    if (from.scheme() == u"https") {
        return finding("manifest_unpinned",
                       ArtifactResolver::tr("tfsetup has no pinned checksum for NVIDIA's %1; it was taken from NVIDIA "
                                            "over a verified connection.")
                           .arg(fileName));
    }
    return finding("manifest_unpinned",
                   ArtifactResolver::tr("tfsetup has no pinned checksum for NVIDIA's %1, and it came from %2 over "
                                        "plain HTTP, which cannot prove that it is NVIDIA's, yet the archives' "
                                        "checksums are read from it. Use NVIDIA's https:// address, or a sources "
                                        "catalog that pins this manifest.")
                       .arg(fileName, from.toDisplayString()));
}

QString archiveFormatOf(const QString &path)
{
    for (const char *ext : {"tar.xz", "tar.gz", "tgz", "zip", "exe", "run", "whl"}) {
        if (path.endsWith(u'.' + QLatin1String(ext)))
            return QLatin1String(ext);
    }
    return {};
}

// NVIDIA's md5sum.txt: "<md5>  <path>" per line. Returns the digest for the line ending in fileName.
QString md5For(const QByteArray &md5sums, const QString &fileName)
{
    for (const QByteArray &raw : md5sums.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        const qsizetype space = line.indexOf(u' ');
        if (space != 32)
            continue;
        const QString path = line.mid(space).trimmed();
        if (path == fileName || path.endsWith(u'/' + fileName))
            return line.left(32).toLower();
    }
    return {};
}

// "{version}" and "{tag}" of a python-build-standalone record.
QString filledIn(QString text, const StandalonePython &build)
{
    return text.replace(QStringLiteral("{version}"), build.version).replace(QStringLiteral("{tag}"), build.tag);
}

} // namespace

QString redistPlatform(const QString &os)
{
    return os == u"windows" ? QStringLiteral("windows-x86_64") : QStringLiteral("linux-x86_64");
}

Result<ResolveRequest> ResolveRequest::fromPlanJson(const QJsonObject &json)
{
    QJsonObject plan = json;
    if (json.contains(QStringLiteral("recommended"))) {
        if (!json.value(QStringLiteral("recommended")).isObject()) {
            return Error{QStringLiteral("plan_empty"),
                         ArtifactResolver::tr("The plan file has no recommended plan, so there is nothing to fetch. "
                                              "Run tfsetup plan again with other choices."),
                         {}};
        }
        plan = json.value(QStringLiteral("recommended")).toObject();
    }
    using S = JsonShape;
    static const S text = S::text(200).nullable();
    static const S planShape = S::object(
        {S::required(QStringLiteral("route"), S::text(100)), S::required(QStringLiteral("tensorflow"), S::text(100)),
         S::optional(QStringLiteral("python"), text), S::optional(QStringLiteral("python_installed"), S::flag()),
         S::optional(QStringLiteral("cuda"), text), S::optional(QStringLiteral("cudnn"), text),
         S::optional(QStringLiteral("requirement"), S::text(8192).nullable()),
         S::optional(QStringLiteral("os"), text)});
    if (const auto problem = planShape.check(plan)) {
        return JsonShape::error(QStringLiteral("plan_malformed"), ArtifactResolver::tr("The plan file"), *problem,
                                ArtifactResolver::tr("Give the output of tfsetup plan --json."));
    }
    ResolveRequest r;
    r.route = plan.value(QStringLiteral("route")).toString();
    r.tensorflow = plan.value(QStringLiteral("tensorflow")).toString();
    r.python = plan.value(QStringLiteral("python")).toString();
    r.pythonInstalled = plan.value(QStringLiteral("python_installed")).toBool(true);
    r.cuda = plan.value(QStringLiteral("cuda")).toString();
    r.cudnn = plan.value(QStringLiteral("cudnn")).toString();
    r.requirement = plan.value(QStringLiteral("requirement")).toString();
    r.os = plan.value(QStringLiteral("os")).toString();
    if (r.os.isEmpty())
        r.os = r.route == u"windows-native" || r.route == u"directml" ? QStringLiteral("windows")
                                                                      : QStringLiteral("linux");
    if (r.route.isEmpty() || r.tensorflow.isEmpty()) {
        return Error{QStringLiteral("plan_malformed"),
                     ArtifactResolver::tr("The plan file does not name a route and a TensorFlow version. Give the "
                                          "output of tfsetup plan --json."),
                     {}};
    }
    return r;
}

ArtifactResolver::ArtifactResolver(SourceCatalog catalog, MirrorSet mirrors)
    : m_catalog(std::move(catalog))
    , m_mirrors(std::move(mirrors))
{}

ArtifactResolver::~ArtifactResolver() = default;

void ArtifactResolver::setOriginBase(const QString &origin, const QUrl &base)
{
    m_originOverrides.append({origin, base});
}

QUrl ArtifactResolver::officialUrl(const QString &origin, const QString &relativePath) const
{
    QString base = m_catalog.originBase(origin);
    for (const auto &[name, url] : m_originOverrides) {
        if (name == origin)
            base = url.toString();
    }
    while (base.endsWith(u'/'))
        base.chop(1);
    return QUrl(base + u'/' + relativePath);
}

QList<QUrl> ArtifactResolver::urlsFor(const QString &origin, const QString &relativePath) const
{
    QList<QUrl> urls;
    for (const Mirror &m : m_mirrors.forOrigin(origin))
        urls.append(m.urlFor(relativePath));
    urls.append(officialUrl(origin, relativePath));
    return urls;
}

QString ArtifactResolver::indexUrl() const
{
    const QList<Mirror> pypi = m_mirrors.forOrigin(QStringLiteral("pypi"));
    if (!pypi.isEmpty())
        return pypi.first().base.toString();
    return officialUrl(QStringLiteral("pypi"), {}).toString().chopped(1);
}

QCoro::Task<Result<QByteArray>> ArtifactResolver::get(QUrl url, std::chrono::milliseconds timeout)
{
    if (url.isLocalFile()) {
        QFile f(url.toLocalFile());
        if (!f.open(QIODevice::ReadOnly))
            co_return Error{
                QStringLiteral("not_found"), {}, url.toLocalFile() + QStringLiteral(": ") + f.errorString()};
        if (f.size() > RedistManifest::maxManifestBytes)
            co_return Error{QStringLiteral("too_large"), {}, url.toLocalFile()};
        co_return f.readAll();
    }
    const HttpClient client(m_transfer);
    HttpRequest request;
    request.url = url;
    request.maxBytes = RedistManifest::maxManifestBytes;
    request.timeout = timeout.count() > 0 ? timeout : m_timeout;
    auto response = co_await client.get(std::move(request));
    if (!response) {
        m_lastNetworkError = response.error();
        co_return response.error();
    }
    co_return std::move(response->body);
}

QCoro::Task<Result<ArtifactResolver::FetchedManifest>> ArtifactResolver::fetchManifest(QString product, ManifestPin pin)
{
    const QString relative = QStringLiteral("compute/%1/redist/%2").arg(product, pin.fileName());
    const QUrl official = officialUrl(QStringLiteral("nvidia"), relative);
    QStringList tried;
    m_lastNetworkError = Error{};
    for (const QUrl &url : urlsFor(QStringLiteral("nvidia"), relative)) {
        const bool isOfficial = url == official;
        if (pin.sha256.isEmpty() && !isOfficial) {
            tried.append(url.toString()
                         + QStringLiteral(": skipped, a manifest without a pin is taken from NVIDIA only"));
            continue;
        }
        auto bytes = co_await get(url);
        if (!bytes) {
            tried.append(bytes.error().detail);
            continue;
        }
        const QString digest = QString::fromLatin1(
            QCryptographicHash::hash(*bytes, QCryptographicHash::Sha256).toHex());
        if (!pin.sha256.isEmpty() && digest != pin.sha256) {
            tried.append(QStringLiteral("%1: sha256 %2, pinned %3").arg(url.toString(), digest, pin.sha256));
            continue;
        }
        auto manifest = RedistManifest::parse(*bytes, pin.fileName());
        if (!manifest)
            co_return manifest.error();
        co_return FetchedManifest{std::move(*manifest), *bytes, url, !pin.sha256.isEmpty()};
    }
    // Name the cause: the last network failure (the official origin is tried last), or a mirror
    // that served something else than the pinned file.
    const QString cause = m_lastNetworkError.code == u"unset" || m_lastNetworkError.message.isEmpty()
        ? tr("Check the internet connection, the proxy or the mirror settings.")
        : m_lastNetworkError.message;
    co_return Error{QStringLiteral("manifest_unavailable"),
                    tr("NVIDIA's manifest %1 could not be fetched and verified from any mirror.").arg(pin.fileName())
                        + u' ' + cause,
                    tried.join(u'\n')};
}

QCoro::Task<Result<ArtifactList>> ArtifactResolver::resolve(ResolveRequest request)
{
    ArtifactList list;
    list.route = request.route;
    list.tensorflow = request.tensorflow;
    list.os = request.os;
    const bool toolkitRoute = !request.cuda.isEmpty()
        && (request.route == u"windows-native" || request.route == u"linux-toolkit");
    if (toolkitRoute) {
        if (request.cudaFrom == u"installer") {
            if (const Status s = co_await addCudaInstaller(request, &list); !s)
                co_return s.error();
        } else {
            if (const Status s = co_await addCudaArchives(request, &list); !s)
                co_return s.error();
        }
        if (const Status s = co_await addCudnn(request, &list); !s)
            co_return s.error();
    }
    if (const Status s = co_await addPython(request, &list); !s)
        co_return s.error();
    addWheelhouse(request, &list);
    // Warn before anything downloads when PyPI has no TensorFlow wheel for this Python/OS (wheelcheck.h).
    // A lab's or campus's own index (not one of the public mirror presets) is asked itself: such a
    // machine may not reach pypi.org at all, and the lab's index is what pip will install from.
    QUrl pypiJson = officialUrl(QStringLiteral("pypi"), {});
    if (const QList<Mirror> pypi = m_mirrors.forOrigin(QStringLiteral("pypi")); !pypi.isEmpty()) {
        const QString index = pypi.first().base.toString(QUrl::StripTrailingSlash);
        const bool preset = std::any_of(
            m_catalog.pypiMirrors().cbegin(), m_catalog.pypiMirrors().cend(),
            [&index](const PypiMirror &m) { return QUrl(m.url).toString(QUrl::StripTrailingSlash) == index; });
        if (!preset)
            pypiJson = pypi.first().base;
    }
    WheelCheckOptions wheelOptions{pypiJson, m_originOverrides, m_mirrors, m_timeout, m_transfer};
    auto wheels = WheelCheck::run(request, std::move(wheelOptions), &list);
    co_await wheels;
    co_return list;
}

QCoro::Task<Status> ArtifactResolver::addCudaArchives(ResolveRequest request, ArtifactList *list)
{
    auto pin = m_catalog.cudaManifest(request.cuda);
    if (!pin) {
        list->warnings.append(finding("cuda_no_manifest",
                                      tr("No NVIDIA redistributable manifest is known for CUDA %1. Use the full "
                                         "installer route (--cuda-from installer) instead.")
                                          .arg(request.cuda)));
        co_return Ok{};
    }
    auto fetched = co_await fetchManifest(QStringLiteral("cuda"), *pin);
    // Only an absent manifest falls back; a malformed one from NVIDIA itself is an error to report.
    if (!fetched && fetched.error().code == u"manifest_unavailable" && !pin->fallback.isEmpty()) {
        const auto fallback = m_catalog.cudaManifest(pin->fallback);
        if (fallback) {
            list->warnings.append(finding(
                "cuda_fallback_untested",
                tr("NVIDIA has no redistributable archives for CUDA %1. tfsetup uses the CUDA %2 archives instead: they "
                   "provide the same library names, but this combination is outside TensorFlow's tested configuration. "
                   "For the tested toolkit, choose the full CUDA %1 installer (needs administrator rights).")
                    .arg(request.cuda, fallback->version)));
            pin = fallback;
            fetched = co_await fetchManifest(QStringLiteral("cuda"), *pin);
        }
    }
    if (!fetched)
        co_return fetched.error();
    if (!fetched->pinned)
        list->warnings.append(unpinnedFinding(pin->fileName(), fetched->from));
    keepManifest(QStringLiteral("cuda"), *fetched, list);
    const auto set = m_catalog.components(pin->version);
    if (!set)
        co_return Error{
            QStringLiteral("catalog_incomplete"),
            tr("The sources catalog does not say which CUDA %1 components TensorFlow needs. Update tfsetup.")
                .arg(pin->version),
            {}};
    const QString platform = redistPlatform(request.os);
    QStringList wanted = set->components;
    if (request.includeOptional)
        wanted += set->optional;
    for (const QString &key : wanted) {
        const bool optional = set->optional.contains(key);
        const RedistComponent *component = fetched->manifest.component(key);
        const RedistFile *file = component ? component->file(platform) : nullptr;
        if (!file) {
            if (!optional) {
                list->warnings.append(finding("component_missing",
                                              tr("NVIDIA's %1 has no %2 for %3.").arg(pin->fileName(), key, platform)));
            }
            continue;
        }
        Artifact a;
        a.name = key;
        a.version = component->version;
        a.platform = platform;
        a.kind = QStringLiteral("cuda-redist-archive");
        a.source = QStringLiteral("nvidia-redist");
        a.manifest = pin->fileName();
        a.relativePath = QStringLiteral("compute/cuda/redist/") + file->relativePath;
        a.archiveFormat = archiveFormatOf(file->relativePath);
        a.urls = urlsFor(QStringLiteral("nvidia"), a.relativePath);
        a.sha256 = file->sha256;
        a.md5 = file->md5;
        a.size = file->size;
        a.trust = Artifact::Trust::Official;
        a.optional = optional;
        list->artifacts.append(a);
    }
    co_return Ok{};
}

void ArtifactResolver::keepManifest(const QString &product, const FetchedManifest &fetched, ArtifactList *list)
{
    list->manifestFiles.append(
        {QStringLiteral("compute/%1/redist/%2").arg(product, fetched.manifest.fileName()), fetched.bytes});
}

QCoro::Task<Status> ArtifactResolver::addCudaInstaller(ResolveRequest request, ArtifactList *list)
{
    const auto installer = m_catalog.installer(request.cuda);
    if (!installer) {
        co_return Error{
            QStringLiteral("installer_unknown"),
            tr("tfsetup knows no full installer for CUDA %1. Use the portable route instead.").arg(request.cuda),
            {}};
    }
    const QUrl official(request.os == u"windows" ? installer->windowsUrl : installer->linuxUrl);
    const QString path = official.path().mid(1);
    Artifact a;
    a.name = QStringLiteral("cuda");
    a.version = installer->version;
    a.platform = redistPlatform(request.os);
    a.kind = QStringLiteral("cuda-installer");
    a.source = QStringLiteral("nvidia-installer");
    a.relativePath = path;
    a.archiveFormat = archiveFormatOf(path);
    a.urls = urlsFor(QStringLiteral("nvidia"), path);
    a.needsAdmin = true;
    a.checksumUrl = installer->md5sumUrl;
    if (const auto args = m_catalog.installerArguments(request.os)) {
        for (QString arg : args->arguments)
            a.installArguments.append(arg.replace(QStringLiteral("{cuda}"), version::majorMinor(request.cuda)));
    }
    // The MD5 list is taken from NVIDIA itself, never from a mirror.
    const QString md5Path = QUrl(installer->md5sumUrl).path().mid(1);
    const auto sums = co_await get(officialUrl(QStringLiteral("nvidia"), md5Path));
    if (sums)
        a.md5 = md5For(*sums, a.fileName());
    if (a.md5.isEmpty()) {
        a.trust = Artifact::Trust::None;
        list->warnings.append(finding("installer_checksum_unavailable",
                                      tr("NVIDIA's MD5 list for the CUDA %1 installer could not be read, so the "
                                         "installer has no checksum yet. Try again online, or choose to trust it on "
                                         "first use.")
                                          .arg(installer->version)));
    } else {
        a.trust = Artifact::Trust::OfficialMd5;
        a.note = tr("NVIDIA publishes only an MD5 checksum for full installers; MD5 detects damage, not tampering.");
    }
    list->warnings.append(finding("installer_needs_admin",
                                  tr("The full CUDA %1 installer changes the whole system and needs administrator "
                                     "rights; the display driver is not installed with it.")
                                      .arg(installer->version)));
    list->artifacts.append(a);
    co_return Ok{};
}

QCoro::Task<Status> ArtifactResolver::addCudnn(ResolveRequest request, ArtifactList *list)
{
    if (request.cudnn.isEmpty())
        co_return Ok{};
    const QString platform = redistPlatform(request.os);
    const QString variant = QStringLiteral("cuda") + version::major(request.cuda);
    if (m_catalog.needsZlibwapi(request.cudnn, request.os)) {
        list->warnings.append(finding("zlibwapi_needed",
                                      tr("cuDNN %1 on Windows needs zlibwapi.dll, which NVIDIA does not ship with it. "
                                         "tfsetup does not download it from unofficial sites; see the details.")
                                          .arg(request.cudnn)));
    }
    QStringList tried;
    for (const ManifestPin &pin : m_catalog.cudnnManifests(request.cudnn)) {
        auto fetched = co_await fetchManifest(QStringLiteral("cudnn"), pin);
        if (!fetched) {
            tried.append(fetched.error().detail);
            continue;
        }
        const RedistComponent *component = fetched->manifest.component(QStringLiteral("cudnn"));
        const RedistFile *file = component ? component->file(platform, variant) : nullptr;
        if (component && !file)
            file = component->file(platform); // manifests without CUDA variants
        if (!file) {
            list->warnings.append(finding("component_missing",
                                          tr("NVIDIA's %1 has no cuDNN for %2 and CUDA %3.")
                                              .arg(pin.fileName(), platform, version::major(request.cuda))));
            co_return Ok{};
        }
        keepManifest(QStringLiteral("cudnn"), *fetched, list);
        if (!fetched->pinned)
            list->warnings.append(unpinnedFinding(pin.fileName(), fetched->from));
        Artifact a;
        a.name = QStringLiteral("cudnn");
        a.version = component->version;
        a.platform = platform;
        a.kind = QStringLiteral("cudnn-archive");
        a.source = QStringLiteral("nvidia-redist");
        a.manifest = pin.fileName();
        a.relativePath = QStringLiteral("compute/cudnn/redist/") + file->relativePath;
        a.archiveFormat = archiveFormatOf(file->relativePath);
        a.urls = urlsFor(QStringLiteral("nvidia"), a.relativePath);
        a.sha256 = file->sha256;
        a.md5 = file->md5;
        a.size = file->size;
        a.trust = Artifact::Trust::Official;
        list->artifacts.append(a);
        co_return Ok{};
    }
    QList<CudnnArchive> archives = m_catalog.cudnnArchives(request.cudnn, platform);
    // An archive is built against one CUDA major (cuDNN 8.1 links libcublas.so.11): beside another
    // CUDA it does not load, and TensorFlow falls back to the CPU.
    const QList<CudnnArchive> known = archives;
    if (!request.cuda.isEmpty()) {
        archives.removeIf([&request](const CudnnArchive &a) {
            return !a.cuda.isEmpty() && version::major(a.cuda) != version::major(request.cuda);
        });
    }
    if (archives.isEmpty() && !known.isEmpty()) {
        list->warnings.append(finding("cudnn_unavailable",
                                      tr("cuDNN %1 for %2 is built for CUDA %3, not for CUDA %4 of this plan, so "
                                         "TensorFlow could not load it. Choose the cuDNN that goes with CUDA %4.")
                                          .arg(request.cudnn, platform, known.constFirst().cuda, request.cuda)));
        co_return Ok{};
    }
    if (archives.isEmpty()) {
        list->warnings.append(finding(
            "cudnn_unavailable", tr("tfsetup knows no download of cuDNN %1 for %2.").arg(request.cudnn, platform)));
        co_return Ok{};
    }
    const CudnnArchive &archive = archives.first();
    Artifact a;
    a.name = QStringLiteral("cudnn");
    a.version = archive.version;
    a.platform = platform;
    a.kind = QStringLiteral("cudnn-archive");
    a.source = QStringLiteral("nvidia-cudnn-archive");
    a.relativePath = QUrl(archive.url).path().mid(1);
    a.archiveFormat = archiveFormatOf(a.relativePath);
    a.urls = urlsFor(QStringLiteral("nvidia"), a.relativePath);
    a.sha256 = archive.sha256;
    a.note = archive.source;
    if (archive.sha256.isEmpty()) {
        a.trust = Artifact::Trust::None;
        list->warnings.append(finding("cudnn_no_checksum",
                                      tr("NVIDIA publishes no checksum for cuDNN %1 (%2), and tfsetup knows no "
                                         "independent one. It can only be used if you choose to trust the file on "
                                         "first use.")
                                          .arg(archive.version, a.fileName())));
    } else {
        a.trust = Artifact::Trust::ThirdParty;
        list->warnings.append(finding("cudnn_third_party_checksum",
                                      tr("NVIDIA publishes no checksum for cuDNN %1; tfsetup checks it against an "
                                         "independently recorded SHA-256.")
                                          .arg(archive.version)));
    }
    list->artifacts.append(a);
    co_return Ok{};
}

QCoro::Task<Status> ArtifactResolver::addPython(ResolveRequest request, ArtifactList *list)
{
    if (request.pythonInstalled || request.python.isEmpty())
        co_return Ok{};
    if (request.os == u"windows")
        co_return co_await addPythonInstaller(request, list);
    co_return co_await addStandalonePython(request, list);
}

QCoro::Task<Result<QByteArray>> ArtifactResolver::getChecksumSource(QUrl url, std::chrono::milliseconds timeout)
{
    // Checksums come from the publisher over verified TLS, never from a mirror or plain HTTP.
    if (url.scheme() != u"https")
        co_return Error{QStringLiteral("not_tls"), {}, url.toString() + QStringLiteral(": not https, not asked")};
    auto bytes = co_await get(url, timeout);
    co_return bytes;
}

QCoro::Task<Status> ArtifactResolver::addPythonInstaller(ResolveRequest request, ArtifactList *list)
{
    const auto release = m_catalog.pythonRelease(request.python);
    if (!release) {
        list->warnings.append(finding("python_not_provided",
                                      tr("tfsetup knows no python.org installer for Python %1.").arg(request.python)));
        co_return Ok{};
    }
    const QUrl official(QString(m_catalog.pythonWindowsUrl()).replace(QStringLiteral("{version}"), release->version));
    Artifact a;
    a.name = QStringLiteral("python");
    a.version = release->version;
    a.platform = redistPlatform(request.os);
    a.kind = QStringLiteral("python-installer");
    a.source = QStringLiteral("python.org");
    a.relativePath = official.path().mid(1);
    a.archiveFormat = archiveFormatOf(a.relativePath);
    a.urls = urlsFor(QStringLiteral("python"), a.relativePath);
    a.installArguments = m_catalog.pythonWindowsArguments();

    // python.org's own downloads API: the release's id by name, then that release's files.
    const PythonChecksumApi &api = m_catalog.pythonChecksumApi();
    const QString python = QStringLiteral("python");
    std::optional<PythonOrgChecksum> published;
    QString why;
    if (api.releasePath.isEmpty() || api.releaseFilesPath.isEmpty()) {
        why = QStringLiteral("the sources catalog names no python.org API");
    } else {
        const QUrl releaseUrl = officialUrl(
            python, QString(api.releasePath).replace(QStringLiteral("{version}"), release->version));
        const auto releases = co_await getChecksumSource(releaseUrl);
        const QString id = releases ? pythonOrgReleaseId(*releases, release->version) : QString();
        if (!releases) {
            why = releases.error().detail;
        } else if (id.isEmpty()) {
            why = releaseUrl.toString() + QStringLiteral(": no release named Python ") + release->version;
        } else {
            const QUrl filesUrl = officialUrl(python,
                                              QString(api.releaseFilesPath).replace(QStringLiteral("{id}"), id));
            const auto files = co_await getChecksumSource(filesUrl);
            if (files)
                published = pythonOrgFileChecksum(*files, a.fileName());
            if (!files)
                why = files.error().detail;
            else if (!published)
                why = filesUrl.toString() + QStringLiteral(": no checksum listed for ") + a.fileName();
            else
                a.checksumUrl = filesUrl.toString();
        }
    }
    if (published) {
        a.sha256 = published->sha256;
        a.md5 = published->md5;
        a.size = published->size;
    }
    if (!a.sha256.isEmpty()) {
        a.trust = Artifact::Trust::Official;
    } else if (!a.md5.isEmpty()) {
        a.trust = Artifact::Trust::OfficialMd5;
        a.note = tr("python.org publishes only an MD5 checksum for this installer; MD5 detects damage, not tampering.");
        list->warnings.append(finding("python_md5_only",
                                      tr("python.org publishes only an MD5 checksum for %1. It detects a damaged "
                                         "download, not a deliberately altered one.")
                                          .arg(a.fileName())));
    } else {
        a.trust = Artifact::Trust::None;
        a.note = m_catalog.pythonChecksumNote() + QStringLiteral(" (") + why + u')';
        list->warnings.append(finding("python_no_pin",
                                      tr("python.org's checksum for %1 could not be read from python.org. Compare the "
                                         "file with the checksum on python.org's release page, or choose to trust it "
                                         "on first use.")
                                          .arg(a.fileName())));
    }
    list->artifacts.append(a);
    co_return Ok{};
}

QCoro::Task<Status> ArtifactResolver::addStandalonePython(ResolveRequest request, ArtifactList *list)
{
    const auto build = m_catalog.standalonePython(request.python);
    const StandaloneLayout &layout = m_catalog.standaloneLayout();
    const QString platform = redistPlatform(request.os);
    if (!build || layout.origin.isEmpty() || (!layout.platform.isEmpty() && layout.platform != platform)) {
        list->warnings.append(finding("python_not_provided",
                                      tr("Python %1 is not installed, and tfsetup knows no relocatable build of it. "
                                         "Install it with the system's package manager.")
                                          .arg(request.python)));
        co_return Ok{};
    }
    const QString file = filledIn(layout.file, *build);
    Artifact a;
    a.name = QStringLiteral("python");
    a.version = build->version;
    a.platform = platform;
    a.kind = QStringLiteral("python-archive");
    a.source = layout.origin;
    a.relativePath = filledIn(layout.path, *build).replace(QStringLiteral("{file}"), file);
    a.archiveFormat = archiveFormatOf(a.relativePath);
    a.urls = urlsFor(layout.origin, a.relativePath);

    // The release's SHA256SUMS from the publisher itself; a mirror may serve the archive only. With a
    // pin in the catalog the answer only cross-checks it: a short wait, and no answer is no error.
    const bool pinned = !build->sha256.isEmpty();
    const QUrl sumsUrl = officialUrl(layout.origin, filledIn(layout.checksums, *build));
    const auto sums = co_await getChecksumSource(sumsUrl,
                                                 pinned ? std::min(m_timeout, pinCrossCheckTimeout) : m_timeout);
    const QString published = sums ? sha256FromSums(*sums, file) : QString();
    const QString unread = sums ? sumsUrl.toString() + QStringLiteral(": no line for ") + file : sums.error().detail;
    list->warnings.append(finding("python_relocatable",
                                  tr("Python %1 is not installed. tfsetup unpacks the relocatable CPython %2 build "
                                     "(python-build-standalone, release %3) into the environment's own folder; nothing "
                                     "outside it changes.")
                                      .arg(request.python, build->version, build->tag)));
    if (pinned) {
        // Two records of the publisher's digest that disagree: the release changed after the pin
        // was recorded (a replaced, possibly compromised file) or the pin is wrong. Neither is
        // a file to install.
        if (!published.isEmpty() && published != build->sha256) {
            co_return Error{QStringLiteral("python_checksum_mismatch"),
                            tr("python-build-standalone's release %1 lists the SHA-256 %2 for %3, but tfsetup's "
                               "sources catalog pins %4. Either the release was changed after the pin was recorded "
                               "or the pin is wrong, so tfsetup will not use this file. Install Python %5 with the "
                               "system's package manager, or update tfsetup and try again.")
                                .arg(build->tag, published, file, build->sha256, request.python),
                            sumsUrl.toString() + QStringLiteral(": ") + published + QStringLiteral("; pinned: ")
                                + build->sha256 + QStringLiteral(" (") + build->sha256Source + u')'};
        }
        a.sha256 = build->sha256;
        a.trust = Artifact::Trust::Official;
        if (!published.isEmpty()) {
            a.checksumUrl = sumsUrl.toString();
            a.note = tr("SHA-256 pinned in tfsetup's sources catalog (%1) and confirmed by the release's SHA256SUMS.")
                         .arg(build->sha256Source);
        } else {
            a.note = tr("SHA-256 pinned in tfsetup's sources catalog (%1); the release's SHA256SUMS could not be read "
                        "to compare (%2).")
                         .arg(build->sha256Source, unread);
        }
    } else if (!published.isEmpty()) {
        a.sha256 = published;
        a.trust = Artifact::Trust::Official;
        a.checksumUrl = sumsUrl.toString();
    } else {
        a.trust = Artifact::Trust::None;
        a.note = unread;
        list->warnings.append(finding("python_checksum_unavailable",
                                      tr("The SHA-256 of %1 could not be read from the SHA256SUMS of "
                                         "python-build-standalone's release %2. Try again online, or choose to trust "
                                         "the file on first use.")
                                          .arg(file, build->tag)));
    }
    list->artifacts.append(a);
    co_return Ok{};
}

void ArtifactResolver::addWheelhouse(const ResolveRequest &request, ArtifactList *list) const
{
    Artifact a;
    a.name = QStringLiteral("tensorflow");
    a.version = request.tensorflow;
    a.platform = redistPlatform(request.os);
    a.kind = QStringLiteral("wheelhouse");
    a.source = QStringLiteral("pypi");
    a.archiveFormat = QStringLiteral("wheel");
    a.requirement = request.requirement.isEmpty()
        ? QStringLiteral("tensorflow==") + version::majorMinor(request.tensorflow) + QStringLiteral(".*")
        : request.requirement;
    a.indexUrl = indexUrl();
    a.trust = Artifact::Trust::IndexHash;
    list->artifacts.append(a);
}

} // namespace tfsetup::core
