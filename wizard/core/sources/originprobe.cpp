#include "sources/originprobe.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "fetch/httpclient.h"
#include "fetch/networkerror.h"
#include "sources/mirrors.h"

#include <QCoro/QCoroFuture>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace tfsetup::core {

namespace {

// The Simple API project page every index and mirror serves (pypi/warehouse
// docs/user/api/index-api.md: "/<project>/"); see originprobe.h for why pip.
const QString probeProject = QStringLiteral("pip");

QUrl overrideFor(const OriginProbeRequest &request, const QString &origin)
{
    QUrl found;
    for (const auto &[name, url] : request.originOverrides) {
        if (name == origin)
            found = url;
    }
    return found;
}

QString withoutTrailingSlash(QString base)
{
    while (base.endsWith(u'/'))
        base.chop(1);
    return base;
}

QUrl below(const QString &base, const QString &relative)
{
    return QUrl(withoutTrailingSlash(base) + u'/' + relative);
}

// The manifest a toolkit route fetches first: the plan's (its fallback when unpinned), else the
// newest pinned one.
std::optional<ManifestPin> probeManifest(const SourceCatalog &catalog, const std::optional<ResolveRequest> &plan)
{
    if (plan && !plan->cuda.isEmpty()) {
        if (auto pin = catalog.cudaManifest(plan->cuda)) {
            if (pin->sha256.isEmpty() && !pin->fallback.isEmpty()) {
                if (auto fallback = catalog.cudaManifest(pin->fallback))
                    return fallback;
            }
            return pin;
        }
    }
    std::optional<ManifestPin> newest;
    for (const ManifestPin &p : catalog.cudaManifests()) {
        if (p.sha256.isEmpty())
            continue;
        if (!newest || version::less(newest->version, p.version))
            newest = p;
    }
    return newest;
}

std::optional<PythonRelease> probeRelease(const SourceCatalog &catalog, const std::optional<ResolveRequest> &plan)
{
    if (plan && !plan->python.isEmpty()) {
        if (auto release = catalog.pythonRelease(version::majorMinor(plan->python)))
            return release;
    }
    std::optional<PythonRelease> newest;
    for (const PythonRelease &r : catalog.pythonReleases()) {
        if (!newest || version::less(newest->version, r.version))
            newest = r;
    }
    return newest;
}

Result<SourceCatalog> loadCatalog(const OriginProbeRequest &request)
{
    if (!request.knowledge)
        return Knowledge::notGiven();
    return request.knowledge->sourcesOr(request.sourcesCatalog);
}

// What the student knows the origin as, for the cause's sentence.
QString describe(const OriginResult &r)
{
    if (r.origin == u"nvidia")
        return OriginProbe::tr("NVIDIA's download server %1").arg(r.host());
    if (r.origin == u"python")
        return OriginProbe::tr("python.org's downloads API (%1)").arg(r.host());
    if (r.displayName.isEmpty() || r.displayName == r.host())
        return OriginProbe::tr("the Python package index %1").arg(r.host());
    return OriginProbe::tr("the Python package index %1 (%2)").arg(r.displayName, r.host());
}

bool looksLikeHtml(const HttpResponse &response)
{
    if (response.contentType.toLower().contains("html"))
        return true;
    const QByteArray start = response.body.left(512).trimmed().toLower();
    return start.startsWith("<!doctype") || start.startsWith("<html") || start.contains("<head")
        || start.contains("<body");
}

// Whether the answer is what the origin serves, not a login or error page in its place.
bool isTheRealAnswer(const OriginResult &r, const HttpResponse &response)
{
    if (r.origin == u"nvidia") {
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        return doc.isObject() && doc.object().contains(QStringLiteral("release_label"));
    }
    if (r.origin == u"python") {
        const QJsonDocument doc = QJsonDocument::fromJson(response.body);
        return doc.isArray() || doc.isObject();
    }
    // A Simple API page (HTML, PEP 503; or JSON, PEP 691) of pip lists pip's own files.
    const QByteArray body = response.body.toLower();
    const QByteArray fileName = probeProject.toLatin1() + QByteArrayLiteral("-");
    return body.contains(fileName) && (body.contains("<a ") || body.contains("\"files\""));
}

int statusIn(const QString &detail)
{
    static const QRegularExpression http(QStringLiteral("HTTP (\\d{3})"));
    const QRegularExpressionMatch m = http.match(detail);
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}

void fail(OriginResult &r, const QString &code, int status, const QString &detail)
{
    r.reachable = false;
    r.code = code;
    r.detail = detail;
    r.message = NetworkError::message(code, status, describe(r), detail);
    r.fix = OriginProbe::fixFor(code, r.origin, detail, r.viaProxy);
}

struct Measured {
    Result<HttpResponse> response;
    qint64 elapsedMs = 0;
};

OriginResult classify(OriginResult r, const Measured &m, const OriginProbeRequest &request)
{
    r.latency = std::chrono::milliseconds(m.elapsedMs);
    if (!m.response) {
        const Error &e = m.response.error();
        r.viaProxy = !request.transfer.proxy.isEmpty();
        fail(r, e.code, statusIn(e.detail), e.detail);
        return r;
    }
    const HttpResponse &response = *m.response;
    r.viaProxy = response.viaProxy;
    r.bytes = response.body.size();
    if (!isTheRealAnswer(r, response)) {
        fail(r, looksLikeHtml(response) ? QStringLiteral("html_page") : QStringLiteral("network"), response.status,
             r.url.toString(QUrl::RemoveUserInfo)
                 + QStringLiteral(": HTTP %1, %2 bytes of %3, not the expected answer")
                       .arg(response.status)
                       .arg(r.bytes)
                       .arg(QString::fromLatin1(response.contentType.isEmpty() ? QByteArrayLiteral("no type")
                                                                               : response.contentType)));
        return r;
    }
    r.reachable = true;
    if (r.bytes >= request.minSpeedSample)
        r.bytesPerSecond = r.bytes * 1000 / std::max<qint64>(1, m.elapsedMs);
    if (r.bytesPerSecond > 0 && r.bytesPerSecond < request.slowBelowBytesPerSecond) {
        r.slow = true;
        r.code = QStringLiteral("too_slow");
        r.detail = QStringLiteral("%1: %2 bytes/s").arg(r.url.toString(QUrl::RemoveUserInfo)).arg(r.bytesPerSecond);
        r.message = NetworkError::message(r.code, 0, describe(r), r.detail);
        r.fix = OriginProbe::fixFor(r.code, r.origin, r.detail, r.viaProxy);
    }
    return r;
}

OriginResult local(OriginResult r)
{
    r.local = true;
    r.viaProxy = false;
    const QString folder = r.url.toLocalFile();
    if (QFileInfo(folder).isDir()) {
        r.reachable = true;
    } else {
        r.reachable = false;
        r.code = QStringLiteral("folder_missing");
        r.message = OriginProbe::tr("The folder %1 does not exist. Check the path of the mirror or the offline bundle.")
                        .arg(folder);
        r.fix = r.origin.startsWith(QLatin1String("pypi")) ? QStringLiteral("mirror") : QStringLiteral("bundle");
    }
    return r;
}

// The PyPI index the options name: a preset (its URL, or the preset's override) or a URL/folder.
Result<OriginResult> pypiTarget(const OriginProbeRequest &request, const SourceCatalog &catalog)
{
    OriginResult r;
    r.origin = QStringLiteral("pypi");
    const QString chosen = request.pypiMirror.trimmed().isEmpty() ? QStringLiteral("pypi")
                                                                  : request.pypiMirror.trimmed();
    r.name = chosen;
    QString base;
    if (const auto preset = catalog.pypiMirror(chosen)) {
        r.displayName = preset->name == u"pypi" ? QStringLiteral("PyPI") : preset->displayName(request.language);
        base = preset->url;
        if (preset->name == u"pypi") {
            if (const QUrl url = overrideFor(request, QStringLiteral("pypi")); url.isValid() && !url.isEmpty())
                base = url.toString();
        }
        if (const QUrl url = overrideFor(request, QStringLiteral("pypi:") + preset->name);
            url.isValid() && !url.isEmpty())
            base = url.toString();
    } else {
        auto mirror = MirrorSet::parse(QStringLiteral("pypi=") + chosen, &catalog);
        if (!mirror)
            return mirror.error();
        base = mirror->base.toString();
        r.displayName = mirror->base.isLocalFile() ? mirror->base.toLocalFile() : mirror->base.host();
        if (mirror->base.isLocalFile()) {
            r.url = mirror->base;
            return r;
        }
    }
    r.url = below(base, probeProject + u'/');
    return r;
}

} // namespace

QString OriginProbe::fixFor(const QString &code, const QString &origin, const QString &detail, bool viaProxy)
{
    // PyPI has mirrors to pick from; NVIDIA's and python.org's files come from a bundle instead.
    const QString elsewhere = origin.startsWith(QLatin1String("pypi")) ? QStringLiteral("mirror")
                                                                       : QStringLiteral("bundle");
    if (code == u"proxy_auth" || code == u"proxy_unreachable")
        return QStringLiteral("proxy");
    if (code == u"tls") {
        // A certificate for another name: something answers in the server's place, a captive
        // portal, or a proxy set wrongly. Otherwise a lab proxy's own certificate is missing.
        if (NetworkError::isWrongHost(detail))
            return viaProxy ? QStringLiteral("proxy") : QStringLiteral("login");
        return QStringLiteral("ca");
    }
    if (code == u"html_page")
        return QStringLiteral("login");
    if (code == u"cancelled")
        return {};
    // dns, connect, timeout, too_slow, proxy_error (the proxy cannot reach it), http_error, …
    return elsewhere;
}

Result<QList<OriginResult>> OriginProbe::targets(const OriginProbeRequest &request)
{
    auto catalog = loadCatalog(request);
    if (!catalog)
        return catalog.error();
    QList<OriginResult> out;

    auto pypi = pypiTarget(request, *catalog);
    if (!pypi)
        return pypi.error();
    out.append(*pypi);

    const bool bundle = !request.bundleDir.trimmed().isEmpty();
    const auto needsToolkit = [&] {
        // As the resolver decides (resolver.cpp): NVIDIA's archives only on the toolkit routes.
        return !request.plan
            || (!request.plan->cuda.isEmpty()
                && (request.plan->route == u"windows-native" || request.plan->route == u"linux-toolkit"));
    };
    OriginResult nvidia;
    nvidia.origin = QStringLiteral("nvidia");
    nvidia.needed = !bundle && needsToolkit();
    const auto manifest = probeManifest(*catalog, request.plan);
    const QString manifestPath = manifest ? QStringLiteral("compute/cuda/redist/") + manifest->fileName() : QString();
    if (!request.nvidiaMirror.trimmed().isEmpty()) {
        auto mirror = MirrorSet::parse(request.nvidiaMirror.trimmed(), &*catalog);
        if (!mirror)
            return mirror.error();
        nvidia.name = request.nvidiaMirror.trimmed();
        nvidia.url = mirror->isLocal() ? mirror->base : mirror->urlFor(manifestPath);
        nvidia.local = mirror->isLocal();
    } else {
        QString base = catalog->originBase(QStringLiteral("nvidia"));
        if (const QUrl url = overrideFor(request, QStringLiteral("nvidia")); url.isValid() && !url.isEmpty())
            base = url.toString();
        nvidia.name = QStringLiteral("nvidia");
        nvidia.url = below(base, manifestPath);
    }
    nvidia.displayName = nvidia.local ? nvidia.url.toLocalFile() : nvidia.url.host();
    out.append(nvidia);

    OriginResult python;
    python.origin = QStringLiteral("python");
    python.name = QStringLiteral("python");
    python.needed = !bundle && (!request.plan || (!request.plan->pythonInstalled && request.plan->os == u"windows"));
    QString pythonBase = catalog->originBase(QStringLiteral("python"));
    if (const QUrl url = overrideFor(request, QStringLiteral("python")); url.isValid() && !url.isEmpty())
        pythonBase = url.toString();
    QString apiPath = catalog->pythonChecksumApi().releasePath;
    if (const auto release = probeRelease(*catalog, request.plan))
        apiPath.replace(QStringLiteral("{version}"), release->version);
    python.url = QUrl(withoutTrailingSlash(pythonBase) + u'/' + apiPath, QUrl::TolerantMode);
    python.displayName = python.url.host();
    out.append(python);
    return out;
}

Result<QList<OriginResult>> OriginProbe::presetTargets(const OriginProbeRequest &request)
{
    auto catalog = loadCatalog(request);
    if (!catalog)
        return catalog.error();
    QList<OriginResult> out;
    for (const PypiMirror &preset : catalog->pypiMirrors()) {
        OriginResult r;
        r.origin = QStringLiteral("pypi:") + preset.name;
        r.name = preset.name;
        r.displayName = preset.name == u"pypi" ? QStringLiteral("PyPI") : preset.displayName(request.language);
        QString base = preset.url;
        if (preset.name == u"pypi") {
            if (const QUrl url = overrideFor(request, QStringLiteral("pypi")); url.isValid() && !url.isEmpty())
                base = url.toString();
        }
        if (const QUrl url = overrideFor(request, r.origin); url.isValid() && !url.isEmpty())
            base = url.toString();
        r.url = below(base, probeProject + u'/');
        out.append(r);
    }
    return out;
}

namespace {

// Runs every target at once on a pool of its own (one thread each, so none waits for another
// and each time measured is its own request's), awaited without blocking the caller.
QCoro::Task<QList<OriginResult>> measureAll(QList<OriginResult> targets, OriginProbeRequest request)
{
    TransferOptions transfer = request.transfer;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(request.timeout);
    transfer.connectTimeout = std::max(std::chrono::seconds(1), std::min(transfer.connectTimeout, seconds));
    transfer.probeMirrors = false;
    const HttpClient client(transfer);
    auto pool = std::make_shared<QThreadPool>();
    pool->setMaxThreadCount(std::max<int>(1, int(targets.size())));
    pool->setExpiryTimeout(1000);

    QList<QFuture<Measured>> running;
    for (const OriginResult &target : std::as_const(targets)) {
        if (target.local || target.url.isLocalFile()) {
            running.append(QFuture<Measured>());
            continue;
        }
        HttpRequest http;
        http.url = target.url;
        http.timeout = request.timeout;
        http.maxBytes = 8 * 1024 * 1024;
        http.cancel = request.cancel;
        running.append(QtConcurrent::run(pool.get(), [client, http] {
            QElapsedTimer clock;
            clock.start();
            Measured m;
            m.response = client.getBlocking(http);
            m.elapsedMs = clock.elapsed();
            return m;
        }));
    }
    QList<OriginResult> results;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        if (targets.at(i).local || targets.at(i).url.isLocalFile()) {
            results.append(local(targets.at(i)));
            continue;
        }
        QFuture<Measured> future = running.at(i);
        const Measured measured = co_await future;
        results.append(classify(targets.at(i), measured, request));
    }
    co_return results;
}

} // namespace

QCoro::Task<Result<ConnectionReport>> OriginProbe::probe(OriginProbeRequest request, bool rankMirrors)
{
    auto origins = targets(request);
    if (!origins)
        co_return origins.error();
    QList<OriginResult> all = *origins;
    if (rankMirrors) {
        auto presets = presetTargets(request);
        if (!presets)
            co_return presets.error();
        all += *presets;
    }
    const qsizetype originCount = origins->size();
    QList<OriginResult> measured = co_await measureAll(std::move(all), request);
    ConnectionReport report;
    report.origins = measured.mid(0, originCount);
    report.mirrors = measured.mid(originCount);
    rank(report.mirrors);
    co_return report;
}

QCoro::Task<Result<QList<OriginResult>>> OriginProbe::rankPypiMirrors(OriginProbeRequest request)
{
    auto presets = presetTargets(request);
    if (!presets)
        co_return presets.error();
    QList<OriginResult> measured = co_await measureAll(std::move(*presets), request);
    rank(measured);
    co_return measured;
}

void OriginProbe::rank(QList<OriginResult> &results)
{
    const auto group = [](const OriginResult &r) { return !r.reachable ? 2 : r.slow ? 1 : 0; };
    std::stable_sort(results.begin(), results.end(), [&](const OriginResult &a, const OriginResult &b) {
        if (group(a) != group(b))
            return group(a) < group(b);
        if (a.bytesPerSecond != b.bytesPerSecond)
            return a.bytesPerSecond > b.bytesPerSecond;
        return a.reachable && a.latency < b.latency;
    });
}

const OriginResult *ConnectionReport::origin(const QString &name) const
{
    for (const OriginResult &r : origins) {
        if (r.origin == name)
            return &r;
    }
    return nullptr;
}

bool ConnectionReport::neededReachable() const
{
    return std::all_of(origins.cbegin(), origins.cend(),
                       [](const OriginResult &r) { return !r.needed || r.reachable; });
}

std::optional<OriginResult> ConnectionReport::bestMirror() const
{
    // mirrors is ranked: the first reachable one is the fastest, a slow one only when no other answered.
    for (const OriginResult &r : mirrors) {
        if (r.reachable)
            return r;
    }
    return std::nullopt;
}

QJsonObject OriginResult::toJson() const
{
    const auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    return QJsonObject{
        {QStringLiteral("origin"), origin},
        {QStringLiteral("name"), name},
        {QStringLiteral("display_name"), displayName},
        {QStringLiteral("url"), url.toString(QUrl::RemoveUserInfo)},
        {QStringLiteral("host"), local ? QJsonValue() : QJsonValue(host())},
        {QStringLiteral("local"), local},
        {QStringLiteral("needed"), needed},
        {QStringLiteral("reachable"), reachable},
        {QStringLiteral("slow"), slow},
        {QStringLiteral("via_proxy"), viaProxy},
        {QStringLiteral("latency_ms"), local ? QJsonValue() : QJsonValue(qint64(latency.count()))},
        {QStringLiteral("bytes"), bytes},
        {QStringLiteral("bytes_per_second"), bytesPerSecond > 0 ? QJsonValue(bytesPerSecond) : QJsonValue()},
        {QStringLiteral("code"), orNull(code)},
        {QStringLiteral("message"), orNull(message)},
        {QStringLiteral("fix"), orNull(fix)},
    };
}

QJsonObject ConnectionReport::toJson() const
{
    QJsonArray o, m;
    for (const OriginResult &r : origins)
        o.append(r.toJson());
    for (const OriginResult &r : mirrors)
        m.append(r.toJson());
    const auto best = bestMirror();
    return QJsonObject{{QStringLiteral("ok"), neededReachable()},
                       {QStringLiteral("origins"), o},
                       {QStringLiteral("pypi_mirrors"), m},
                       {QStringLiteral("best_pypi_mirror"), best ? QJsonValue(best->name) : QJsonValue()}};
}

namespace {

QString speedText(qint64 bytesPerSecond)
{
    if (bytesPerSecond <= 0)
        return {};
    if (bytesPerSecond >= 1024 * 1024)
        return OriginProbe::tr("%1 MB/s").arg(double(bytesPerSecond) / (1024 * 1024), 0, 'f', 1);
    return OriginProbe::tr("%1 KB/s").arg(bytesPerSecond / 1024);
}

QString line(const OriginResult &r)
{
    QString state;
    if (r.local)
        state = r.reachable ? OriginProbe::tr("a folder, present") : OriginProbe::tr("a folder, missing");
    else if (r.reachable)
        state = OriginProbe::tr("reachable in %1 ms").arg(r.latency.count());
    else
        state = OriginProbe::tr("not reachable (%1)").arg(r.code);
    if (const QString speed = speedText(r.bytesPerSecond); !speed.isEmpty())
        state += QStringLiteral(", ") + speed;
    if (r.slow)
        state += QStringLiteral(", ") + OriginProbe::tr("too slow");
    if (r.viaProxy)
        state += QStringLiteral(", ") + OriginProbe::tr("through the proxy");
    if (!r.needed)
        state += QStringLiteral(", ") + OriginProbe::tr("not needed for this setup");
    QString text = QStringLiteral("%1  %2  %3\n").arg(r.origin, r.local ? r.url.toLocalFile() : r.host(), state);
    if (!r.message.isEmpty())
        text += QStringLiteral("    ") + r.message + u'\n';
    return text;
}

} // namespace

QString ConnectionReport::text() const
{
    QString out;
    for (const OriginResult &r : origins)
        out += line(r);
    if (!mirrors.isEmpty()) {
        out += OriginProbe::tr("PyPI mirrors, fastest first:") + u'\n';
        for (const OriginResult &r : mirrors)
            out += QStringLiteral("  ") + line(r);
        if (const auto best = bestMirror())
            out +=
                OriginProbe::tr("Fastest PyPI mirror here: %1 (--mirror pypi=%2).").arg(best->displayName, best->name)
                + u'\n';
        else
            out += OriginProbe::tr("No PyPI mirror answered.") + u'\n';
    }
    return out;
}

} // namespace tfsetup::core
