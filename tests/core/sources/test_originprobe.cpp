// "Test connection" (sources/originprobe.h): each origin a setup fetches from, measured through
// the one HTTP client, with the cause and the fix when it does not answer; the PyPI presets
// ranked by what was measured; the same from `tfsetup sources --test-connection --json`. Every
// origin is a loopback server: one fast, one throttled, one refusing, one reachable only through
// the test proxy (.invalid names), a proxy asking for a password, a captive portal's page.

#include "fetch/networkerror.h"
#include "sources/originprobe.h"
#include "support/coroutinetest.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::OriginProbe;
using core::OriginProbeRequest;
using core::OriginResult;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

// A Simple API page of pip (PEP 503): links to pip's files, about `size` bytes.
QByteArray pipPage(qsizetype size)
{
    QByteArray page = "<!DOCTYPE html><html><head><title>Links for pip</title></head><body><h1>Links for pip</h1>\n";
    for (int i = 0; page.size() < size; ++i) {
        const QByteArray file = "pip-0." + QByteArray::number(i) + ".tar.gz";
        page += "<a href=\"../../packages/" + file + "#sha256=" + QByteArray(64, 'a') + "\">" + file + "</a><br/>\n";
    }
    return page + "</body></html>\n";
}

QByteArray manifest()
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/cuda/redistrib_12.5.1.json"_s);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QByteArray pythonAnswer =
    R"([{"name": "Python", "resource_uri": "https://www.python.org/api/v2/downloads/release/1/"}])";

quint16 closedPort()
{
    LoopbackServer gone;
    if (!gone.start())
        return 9;
    return gone.url().port();
}

// The three origins on `server` (pypi's index below /simple), each answered as given.
OriginProbeRequest servedBy(LoopbackServer &server, const Response &pypi, const Response &nvidia,
                            const Response &python, const QString &host = u"127.0.0.1"_s)
{
    OriginProbeRequest request;
    request.knowledge = test::shippedKnowledge();
    const QString base = u"%1://%2:%3"_s.arg(server.url().scheme(), host).arg(server.url().port());
    request.originOverrides = {
        {u"pypi"_s, QUrl(base + u"/simple"_s)}, {u"nvidia"_s, QUrl(base + u"/"_s)}, {u"python"_s, QUrl(base + u"/"_s)}};
    request.timeout = std::chrono::seconds(8);
    const auto targets = OriginProbe::targets(request);
    if (!targets || targets->size() != 3)
        return request;
    server.route(targets->at(0).url.path().toUtf8(), pypi);
    server.route(targets->at(1).url.path().toUtf8(), nvidia);
    server.route(targets->at(2).url.path().toUtf8(), python);
    return request;
}

// Points every PyPI preset somewhere, so a ranking never leaves this machine.
void overridePresets(OriginProbeRequest &request, const QList<std::pair<QString, QUrl>> &presets)
{
    const auto catalog = core::SourceCatalog::load();
    QVERIFY(catalog);
    for (const core::PypiMirror &m : catalog->pypiMirrors()) {
        const auto it = std::find_if(presets.cbegin(), presets.cend(),
                                     [&](const auto &p) { return p.first == m.name; });
        QVERIFY2(it != presets.cend(), qPrintable(m.name));
        request.originOverrides.append({u"pypi:"_s + m.name, it->second});
    }
}

QStringList namesOf(const QList<OriginResult> &results)
{
    QStringList names;
    for (const OriginResult &r : results)
        names.append(r.name);
    return names;
}

} // namespace

class TestOriginProbe final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void targets_comeFromTheCatalog();
    void fastOrigins_areReachableAndMeasured();
    void failure_namesCauseAndFix_data();
    void failure_namesCauseAndFix();
    void throttledOrigin_isSlowWithAMirrorAsTheFix();
    void proxyOnly_everyRequestGoesThroughTheProxy();
    void ranking_fastThenSlowThenUnreachable();
    void ranking_onlySlowOnesAnswer_theFastestOfThemWins();
    void plan_narrowsWhatIsNeeded();
    void presets_haveChineseNames();
    void commandLine_json();
};

void TestOriginProbe::targets_comeFromTheCatalog()
{
    OriginProbeRequest request;
    request.knowledge = test::shippedKnowledge();
    request.pypiMirror = u"tuna"_s;
    request.language = u"zh_CN"_s;
    const auto targets = OriginProbe::targets(request);
    QVERIFY2(targets, qPrintable(targets ? QString() : targets.error().message));
    QCOMPARE(targets->size(), 3);
    const auto catalog = core::SourceCatalog::load();
    QVERIFY(catalog);
    // The preset's own index, pip's Simple API page below it; shown by the institution's name.
    QCOMPARE(targets->at(0).origin, u"pypi"_s);
    QCOMPARE(targets->at(0).url.toString(), catalog->pypiMirror(u"tuna"_s)->url + u"/pip/"_s);
    QCOMPARE(targets->at(0).displayName, catalog->pypiMirror(u"tuna"_s)->labelZh);
    // A manifest the catalog pins, below NVIDIA's origin; python.org's downloads API.
    QCOMPARE(targets->at(1).origin, u"nvidia"_s);
    QVERIFY(targets->at(1).url.toString().startsWith(catalog->originBase(u"nvidia"_s)
                                                     + u"/compute/cuda/redist/redistrib_"_s));
    QVERIFY(targets->at(1).url.path().endsWith(u".json"_s));
    QCOMPARE(targets->at(2).origin, u"python"_s);
    QVERIFY2(
        targets->at(2).url.toString().startsWith(catalog->originBase(u"python"_s) + u"/api/v2/downloads/release/"_s),
        qPrintable(targets->at(2).url.toString()));
    QVERIFY(targets->at(2).url.query().contains(u"name=Python"_s));
    // An unknown mirror kind is refused before anything is asked.
    request.pypiMirror = u"/no/such/folder"_s;
    QVERIFY(!OriginProbe::targets(request));
}

void TestOriginProbe::fastOrigins_areReachableAndMeasured()
{
    LoopbackServer server;
    QVERIFY(server.start());
    OriginProbeRequest request = servedBy(server, Response::bytes(pipPage(200 * 1024), "text/html"),
                                          Response::bytes(manifest(), "application/json"),
                                          Response::bytes(pythonAnswer, "application/json"));
    const auto report = tfsetup::test::awaitTask(OriginProbe::probe(request, false));
    QVERIFY(report);
    QVERIFY2(report->ok(), qPrintable(report->ok() ? QString() : report->error().message));
    QCOMPARE(report->value().origins.size(), 3);
    QVERIFY(report->value().mirrors.isEmpty());
    for (const OriginResult &r : report->value().origins) {
        QVERIFY2(r.reachable, qPrintable(r.origin + u": "_s + r.message));
        QVERIFY(!r.slow);
        QVERIFY(r.code.isEmpty() && r.fix.isEmpty());
        QVERIFY(!r.viaProxy);
        QVERIFY(r.bytes > 0);
    }
    // The index page and the manifest are large enough to measure a speed; python.org's answer is not.
    QVERIFY(report->value().origin(u"pypi"_s)->bytesPerSecond > 256 * 1024);
    QVERIFY(report->value().origin(u"nvidia"_s)->bytesPerSecond > 0);
    QCOMPARE(report->value().origin(u"python"_s)->bytesPerSecond, 0);
    QVERIFY(report->value().neededReachable());
    QCOMPARE(server.hits("/simple/pip/"), 1);
    QCOMPARE(server.requests().size(), 3);
    const QJsonObject json = report->value().toJson();
    QCOMPARE(json.value(u"ok"_s).toBool(), true);
    QCOMPARE(json.value(u"origins"_s).toArray().size(), 3);
    QVERIFY(json.value(u"origins"_s).toArray().at(0).toObject().value(u"code"_s).isNull());
}

void TestOriginProbe::failure_namesCauseAndFix_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("pypiFix");
    QTest::addColumn<QString>("nvidiaFix");
    QTest::newRow("refused") << u"refused"_s << u"connect"_s << u"mirror"_s << u"bundle"_s;
    QTest::newRow("name not resolved") << u"dns"_s << u"dns"_s << u"mirror"_s << u"bundle"_s;
    QTest::newRow("no answer in time") << u"timeout"_s << u"timeout"_s << u"mirror"_s << u"bundle"_s;
    QTest::newRow("captive portal page") << u"portal"_s << u"html_page"_s << u"login"_s << u"login"_s;
    QTest::newRow("proxy asks for a password") << u"407"_s << u"proxy_auth"_s << u"proxy"_s << u"proxy"_s;
    QTest::newRow("proxy not there") << u"proxy-refused"_s << u"proxy_unreachable"_s << u"proxy"_s << u"proxy"_s;
    QTest::newRow("certificate not trusted") << u"tls"_s << u"tls"_s << u"ca"_s << u"ca"_s;
    QTest::newRow("mirror without the page") << u"404"_s << u"http_error"_s << u"mirror"_s << u"bundle"_s;
}

void TestOriginProbe::failure_namesCauseAndFix()
{
    QFETCH(QString, fault);
    QFETCH(QString, code);
    QFETCH(QString, pypiFix);
    QFETCH(QString, nvidiaFix);
    LoopbackServer server;
    QVERIFY(server.start());
    LoopbackServer tls(LoopbackServer::Https);
    QVERIFY(tls.start());
    LoopbackProxy proxy;
    QVERIFY(proxy.start());

    Response pypi = Response::bytes(pipPage(32 * 1024), "text/html");
    Response nvidia = Response::bytes(manifest(), "application/json");
    Response python = Response::bytes(pythonAnswer, "application/json");
    if (fault == u"portal") {
        pypi = nvidia = python = Response::htmlErrorPage("Please log in to the campus network");
    } else if (fault == u"timeout") {
        pypi.delayHeaders(std::chrono::seconds(4));
        nvidia.delayHeaders(std::chrono::seconds(4));
        python.delayHeaders(std::chrono::seconds(4));
    } else if (fault == u"404") {
        pypi = nvidia = python = Response::status(404);
    }
    OriginProbeRequest request = fault == u"tls" ? servedBy(tls, pypi, nvidia, python)
                                                 : servedBy(server, pypi, nvidia, python);
    if (fault == u"timeout")
        request.timeout = std::chrono::milliseconds(800);
    if (fault == u"refused") {
        const QString base = u"http://127.0.0.1:%1"_s.arg(closedPort());
        request.originOverrides = {
            {u"pypi"_s, QUrl(base + u"/simple"_s)}, {u"nvidia"_s, QUrl(base)}, {u"python"_s, QUrl(base)}};
    } else if (fault == u"dns") {
        request.originOverrides = {{u"pypi"_s, QUrl(u"http://pypi.invalid/simple"_s)},
                                   {u"nvidia"_s, QUrl(u"http://nvidia.invalid"_s)},
                                   {u"python"_s, QUrl(u"http://python.invalid"_s)}};
    } else if (fault == u"407") {
        proxy.requireBasicAuth("student", "s3cret");
        request.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    } else if (fault == u"proxy-refused") {
        request.transfer.proxy = u"http://127.0.0.1:%1"_s.arg(closedPort());
    }

    const auto report = tfsetup::test::awaitTask(OriginProbe::probe(request, false), std::chrono::seconds(20));
    QVERIFY(report);
    QVERIFY(report->ok());
    QVERIFY(!report->value().neededReachable());
    for (const OriginResult &r : report->value().origins) {
        QVERIFY2(!r.reachable, qPrintable(r.origin));
        QCOMPARE(r.code, code);
        QVERIFY2(!r.message.isEmpty(), qPrintable(r.origin));
        QVERIFY2(!r.detail.isEmpty(), qPrintable(r.origin));
    }
    const auto *pypiResult = report->value().origin(u"pypi"_s);
    const auto *nvidiaResult = report->value().origin(u"nvidia"_s);
    QCOMPARE(pypiResult->fix, pypiFix);
    QCOMPARE(nvidiaResult->fix, nvidiaFix);
    // The message names the origin as the student knows it, and the cause in words.
    QVERIFY2(pypiResult->message.contains(pypiResult->host()), qPrintable(pypiResult->message));
    QVERIFY2(nvidiaResult->message.contains(u"NVIDIA"_s), qPrintable(nvidiaResult->message));
    if (fault == u"portal")
        QVERIFY2(pypiResult->message.contains(u"Log in"_s), qPrintable(pypiResult->message));
    if (fault == u"407")
        QVERIFY2(pypiResult->message.contains(u"user name and password"_s), qPrintable(pypiResult->message));
}

void TestOriginProbe::throttledOrigin_isSlowWithAMirrorAsTheFix()
{
    LoopbackServer server;
    QVERIFY(server.start());
    OriginProbeRequest request = servedBy(server, Response::bytes(pipPage(48 * 1024), "text/html").throttle(24 * 1024),
                                          Response::bytes(manifest(), "application/json"),
                                          Response::bytes(pythonAnswer, "application/json"));
    const auto report = tfsetup::test::awaitTask(OriginProbe::probe(request, false), std::chrono::seconds(20));
    QVERIFY(report && report->ok());
    const OriginResult *pypi = report->value().origin(u"pypi"_s);
    QVERIFY(pypi->reachable);
    QVERIFY(pypi->slow);
    QCOMPARE(pypi->code, u"too_slow"_s);
    QCOMPARE(pypi->fix, u"mirror"_s);
    QVERIFY2(pypi->bytesPerSecond > 10 * 1024 && pypi->bytesPerSecond < 40 * 1024,
             qPrintable(QString::number(pypi->bytesPerSecond)));
    QVERIFY(pypi->latency >= std::chrono::milliseconds(1000));
    // Slow is still reachable: the setup can go on, only more slowly.
    QVERIFY(report->value().neededReachable());
}

void TestOriginProbe::proxyOnly_everyRequestGoesThroughTheProxy()
{
    // The origins and the presets have names that resolve nowhere; only the proxy knows them.
    LoopbackServer origin;
    QVERIFY(origin.start());
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    for (const QString &name : {u"pypi.invalid"_s, u"nvidia.invalid"_s, u"python.invalid"_s, u"mirror.invalid"_s})
        proxy.mapHost(name, origin.url().port());
    OriginProbeRequest request;
    request.knowledge = test::shippedKnowledge();
    request.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    request.originOverrides = {{u"pypi"_s, QUrl(u"http://pypi.invalid/simple"_s)},
                               {u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)},
                               {u"python"_s, QUrl(u"http://python.invalid/"_s)}};
    overridePresets(request,
                    {{u"pypi"_s, QUrl(u"http://pypi.invalid/simple"_s)},
                     {u"tuna"_s, QUrl(u"http://mirror.invalid/tuna/simple"_s)},
                     {u"aliyun"_s, QUrl(u"http://mirror.invalid/aliyun/simple"_s)},
                     {u"ustc"_s, QUrl(u"http://mirror.invalid/ustc/simple"_s)}});
    const auto targets = OriginProbe::targets(request);
    QVERIFY(targets);
    origin.route("/simple/pip/", Response::bytes(pipPage(32 * 1024), "text/html"));
    origin.route(targets->at(1).url.path().toUtf8(), Response::bytes(manifest(), "application/json"));
    origin.route(targets->at(2).url.path().toUtf8(), Response::bytes(pythonAnswer, "application/json"));
    for (const char *preset : {"tuna", "aliyun", "ustc"})
        origin.route("/" + QByteArray(preset) + "/simple/pip/", Response::bytes(pipPage(32 * 1024), "text/html"));

    const auto report = tfsetup::test::awaitTask(OriginProbe::probe(request, true), std::chrono::seconds(20));
    QVERIFY(report && report->ok());
    for (const OriginResult &r : report->value().origins + report->value().mirrors) {
        QVERIFY2(r.reachable, qPrintable(r.origin + u": "_s + r.message + u" "_s + r.detail));
        QVERIFY(r.viaProxy);
    }
    QCOMPARE(report->value().mirrors.size(), 4);
    // Every request the origin saw came through the proxy, and the proxy was asked only for the
    // origins' names.
    QCOMPARE(origin.requests().size(), 7);
    QCOMPARE(proxy.forwardCount(), 7);
    for (const auto &r : proxy.requests())
        QVERIFY2(QUrl::fromEncoded(r.target).host().endsWith(u".invalid"_s), r.target.constData());
}

void TestOriginProbe::ranking_fastThenSlowThenUnreachable()
{
    LoopbackServer fast, slow, portal;
    QVERIFY(fast.start() && slow.start() && portal.start());
    fast.route("/simple/pip/", Response::bytes(pipPage(96 * 1024), "text/html"));
    slow.route("/simple/pip/", Response::bytes(pipPage(48 * 1024), "text/html").throttle(24 * 1024));
    portal.route("/simple/pip/", Response::htmlErrorPage("Hotel Wi-Fi login"));
    OriginProbeRequest request;
    request.knowledge = test::shippedKnowledge();
    request.language = u"zh_CN"_s;
    overridePresets(request,
                    {{u"pypi"_s, portal.url(u"/simple"_s)},
                     {u"tuna"_s, slow.url(u"/simple"_s)},
                     {u"aliyun"_s, QUrl(u"http://127.0.0.1:%1/simple"_s.arg(closedPort()))},
                     {u"ustc"_s, fast.url(u"/simple"_s)}});
    const auto ranked = tfsetup::test::awaitTask(OriginProbe::rankPypiMirrors(request), std::chrono::seconds(20));
    QVERIFY(ranked && ranked->ok());
    const QList<OriginResult> &list = ranked->value();
    QCOMPARE(list.size(), 4);
    QCOMPARE(list.at(0).name, u"ustc"_s);
    QVERIFY(list.at(0).reachable && !list.at(0).slow);
    QCOMPARE(list.at(1).name, u"tuna"_s);
    QVERIFY(list.at(1).reachable && list.at(1).slow);
    QVERIFY(list.at(0).bytesPerSecond > list.at(1).bytesPerSecond);
    // Neither a refused connection nor a login page counts as an answer.
    QSet<QString> rest{list.at(2).name, list.at(3).name};
    QCOMPARE(rest, (QSet<QString>{u"pypi"_s, u"aliyun"_s}));
    for (int i = 2; i < 4; ++i) {
        QVERIFY(!list.at(i).reachable);
        QCOMPARE(list.at(i).code, list.at(i).name == u"pypi"_s ? u"html_page"_s : u"connect"_s);
    }
    core::ConnectionReport report;
    report.mirrors = list;
    QCOMPARE(report.bestMirror()->name, u"ustc"_s);
    QCOMPARE(report.bestMirror()->displayName, core::SourceCatalog::load()->pypiMirror(u"ustc"_s)->labelZh);
}

void TestOriginProbe::ranking_onlySlowOnesAnswer_theFastestOfThemWins()
{
    LoopbackServer slower, slow;
    QVERIFY(slower.start() && slow.start());
    slower.route("/simple/pip/", Response::bytes(pipPage(40 * 1024), "text/html").throttle(16 * 1024));
    slow.route("/simple/pip/", Response::bytes(pipPage(40 * 1024), "text/html").throttle(40 * 1024));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(closedPort()));
    OriginProbeRequest request;
    request.knowledge = test::shippedKnowledge();
    overridePresets(request,
                    {{u"pypi"_s, refused},
                     {u"tuna"_s, slower.url(u"/simple"_s)},
                     {u"aliyun"_s, slow.url(u"/simple"_s)},
                     {u"ustc"_s, refused}});
    const auto ranked = tfsetup::test::awaitTask(OriginProbe::rankPypiMirrors(request), std::chrono::seconds(20));
    QVERIFY(ranked && ranked->ok());
    QCOMPARE(namesOf(ranked->value()).mid(0, 2), (QStringList{u"aliyun"_s, u"tuna"_s}));
    core::ConnectionReport report;
    report.mirrors = ranked->value();
    QCOMPARE(report.bestMirror()->name, u"aliyun"_s);
    QVERIFY(report.bestMirror()->slow);
}

void TestOriginProbe::plan_narrowsWhatIsNeeded()
{
    // A CPU plan with an installed Python needs PyPI alone: NVIDIA and python.org not answering
    // does not stop it.
    LoopbackServer server;
    QVERIFY(server.start());
    OriginProbeRequest request = servedBy(server, Response::bytes(pipPage(20 * 1024), "text/html"),
                                          Response::status(503), Response::status(503));
    core::ResolveRequest plan;
    plan.route = u"cpu"_s;
    plan.os = u"linux"_s;
    plan.python = u"3.11"_s;
    plan.pythonInstalled = true;
    request.plan = plan;
    const auto report = tfsetup::test::awaitTask(OriginProbe::probe(request, false));
    QVERIFY(report && report->ok());
    QVERIFY(report->value().origin(u"pypi"_s)->needed);
    QVERIFY(!report->value().origin(u"nvidia"_s)->needed);
    QVERIFY(!report->value().origin(u"nvidia"_s)->reachable);
    QVERIFY(!report->value().origin(u"python"_s)->needed);
    QVERIFY(report->value().neededReachable());

    // A toolkit route on Windows without Python needs both, and says so.
    plan.route = u"windows-native"_s;
    plan.os = u"windows"_s;
    plan.cuda = u"11.2"_s;
    plan.pythonInstalled = false;
    request.plan = plan;
    const auto targets = OriginProbe::targets(request);
    QVERIFY(targets);
    QVERIFY(targets->at(1).needed && targets->at(2).needed);
    // CUDA 11.2 has no pinned manifest: the probe asks for the one standing in for it.
    const auto catalog = core::SourceCatalog::load();
    const auto pin = catalog->cudaManifest(u"11.2"_s);
    QVERIFY(pin && !pin->fallback.isEmpty());
    QVERIFY2(targets->at(1).url.path().endsWith(catalog->cudaManifest(pin->fallback)->fileName()),
             qPrintable(targets->at(1).url.toString()));
    // An offline bundle serves NVIDIA's and python.org's files.
    request.bundleDir = u"/srv/bundle"_s;
    const auto withBundle = OriginProbe::targets(request);
    QVERIFY(withBundle);
    QVERIFY(!withBundle->at(1).needed && !withBundle->at(2).needed);
}

void TestOriginProbe::presets_haveChineseNames()
{
    const auto catalog = core::SourceCatalog::load();
    QVERIFY(catalog);
    QVERIFY(catalog->problems().isEmpty());
    for (const core::PypiMirror &m : catalog->pypiMirrors()) {
        if (m.region != u"cn")
            continue;
        QVERIFY2(!m.labelZh.isEmpty() && !m.labelZhTw.isEmpty(), qPrintable(m.name));
        QCOMPARE(m.displayName(u"zh_CN"_s), m.labelZh);
        QCOMPARE(m.displayName(u"zh_TW"_s), m.labelZhTw);
        QCOMPARE(m.displayName(u"en"_s), m.name);
        QVERIFY2(!m.source.isEmpty(), qPrintable(m.name));
    }
    QCOMPARE(catalog->pypiMirror(u"tuna"_s)->labelZh, u"清华大学 TUNA 镜像"_s);
    // Traditional falls back to Simplified where a record has no Traditional name.
    core::PypiMirror m;
    m.name = u"lab"_s;
    m.labelZh = u"实验室"_s;
    QCOMPARE(m.displayName(u"zh_TW"_s), u"实验室"_s);
}

void TestOriginProbe::commandLine_json()
{
    LoopbackServer server, mirror;
    QVERIFY(server.start() && mirror.start());
    OriginProbeRequest request = servedBy(server, Response::bytes(pipPage(32 * 1024), "text/html"),
                                          Response::bytes(manifest(), "application/json"),
                                          Response::bytes(pythonAnswer, "application/json"));
    mirror.route("/tuna/simple/pip/", Response::bytes(pipPage(64 * 1024), "text/html"));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(closedPort()));
    QStringList arguments{u"sources"_s, u"--test-connection"_s, u"--json"_s, u"--mirror"_s, u"pypi=tuna"_s};
    for (const auto &[origin, url] : std::as_const(request.originOverrides))
        arguments << u"--origin"_s << origin + u'=' + url.toString();
    arguments << u"--origin"_s << u"pypi:tuna="_s + mirror.url(u"/tuna/simple"_s).toString() << u"--origin"_s
              << u"pypi:aliyun="_s + refused.toString() << u"--origin"_s << u"pypi:ustc="_s + refused.toString();

    const auto run = [](const QStringList &args) {
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), args);
        p.waitForFinished(60'000);
        return std::make_tuple(p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError());
    };
    {
        const auto [exitCode, out, err] = run(arguments);
        QVERIFY2(exitCode == 0, err.constData());
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json.value(u"ok"_s).toBool(), true);
        const QJsonArray origins = json.value(u"origins"_s).toArray();
        QCOMPARE(origins.size(), 3);
        QStringList names;
        for (const QJsonValue &o : origins) {
            names.append(o.toObject().value(u"origin"_s).toString());
            QVERIFY(o.toObject().value(u"reachable"_s).toBool());
            QVERIFY(o.toObject().value(u"latency_ms"_s).isDouble());
        }
        QCOMPARE(names, (QStringList{u"pypi"_s, u"nvidia"_s, u"python"_s}));
        // --mirror pypi=tuna is the index tested; the preset's URL went where --origin said.
        QCOMPARE(origins.at(0).toObject().value(u"name"_s).toString(), u"tuna"_s);
        QCOMPARE(origins.at(0).toObject().value(u"host"_s).toString(), u"127.0.0.1"_s);
        QVERIFY(origins.at(0).toObject().value(u"bytes_per_second"_s).toDouble() > 0);
        QCOMPARE(mirror.hits("/tuna/simple/pip/"), 2); // as the index, and as a preset
        QCOMPARE(server.hits("/simple/pip/"), 1);      // PyPI itself, as a preset
        QCOMPARE(json.value(u"pypi_mirrors"_s).toArray().size(), 4);
        const QString best = json.value(u"best_pypi_mirror"_s).toString();
        QVERIFY2(best == u"tuna"_s || best == u"pypi"_s, qPrintable(best));
    }
    {
        // NVIDIA refuses: not every needed origin answered, exit status 1, and the JSON says which and why.
        QStringList failing = arguments;
        failing[failing.indexOf(u"nvidia="_s + request.originOverrides.at(1).second.toString())] = u"nvidia="_s
            + refused.toString();
        const auto [exitCode, out, err] = run(failing);
        QCOMPARE(exitCode, 1);
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json.value(u"ok"_s).toBool(), false);
        const QJsonObject nvidia = json.value(u"origins"_s).toArray().at(1).toObject();
        QCOMPARE(nvidia.value(u"origin"_s).toString(), u"nvidia"_s);
        QCOMPARE(nvidia.value(u"reachable"_s).toBool(), false);
        QCOMPARE(nvidia.value(u"code"_s).toString(), u"connect"_s);
        QCOMPARE(nvidia.value(u"fix"_s).toString(), u"bundle"_s);
        QVERIFY(!nvidia.value(u"message"_s).toString().isEmpty());
        QVERIFY2(err.contains("error:"), err.constData());
        // Plain text names every origin with what was found.
        failing.removeAll(u"--json"_s);
        const auto [textCode, text, textErr] = run(failing);
        QCOMPARE(textCode, 1);
        QVERIFY2(text.contains("nvidia") && text.contains("refused the connection"), text.constData());
    }
    {
        const auto [exitCode, out,
                    err] = run({u"sources"_s, u"--test-connection"_s, u"--mirror"_s, u"pypi=nothing:/x"_s});
        QCOMPARE(exitCode, 2);
        QVERIFY(!err.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestOriginProbe)
#include "test_originprobe.moc"
