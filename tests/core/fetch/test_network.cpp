// The one HTTP client (fetch/httpclient.h) and the network as students meet it: every failure
// named by its cause, a world whose origins are reachable only through a proxy (names that
// resolve nowhere, mapped by the test proxy alone), and segmented downloads of unknown size.

#include "support/labmirror.h"

#include "fetch/downloader.h"
#include "fetch/httpclient.h"
#include "fetch/networkerror.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "setup/setupflow.h"
#include "support/coroutinetest.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::HttpClient;
using core::HttpRequest;
using core::NetworkError;
using core::TransferOptions;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

QByteArray readManifest(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray randomBytes(qsizetype size)
{
    QByteArray b(size, Qt::Uninitialized);
    QRandomGenerator generator(14);
    for (char &c : b)
        c = char(generator.bounded(256));
    return b;
}

core::Plan gpuPlan()
{
    core::Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s;
    p.driverMin = u"525.60.13"_s;
    return p;
}

// Every request the origin saw came through the proxy, and the proxy saw only the origins' names.
void verifyAllThroughProxy(const LoopbackServer &origin, const LoopbackProxy &proxy)
{
    const QList<tfsetup::test::RecordedRequest> seen = origin.requests();
    QVERIFY(!seen.isEmpty());
    QCOMPARE(proxy.forwardCount(), int(seen.size()));
    for (const auto &r : proxy.requests()) {
        const QUrl target = QUrl::fromEncoded(r.target);
        QVERIFY2(target.host().endsWith(u".invalid"_s), r.target.constData());
    }
}

} // namespace

class TestNetwork final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void failure_namesItsCause_data();
    void failure_namesItsCause();
    void messages_differByCause();
    void resolver_errorNamesTheCause();
    void proxyOnly_setupFlowResolvesAndDownloads();
    void proxyOnly_commandLine();
    void proxyOnly_labInstallPreparesThroughTheProxy();
    void segments_withoutSize_splitAfterTheFirstResponse();
    void speedFloor_commandLineOption();
};

void TestNetwork::failure_namesItsCause_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("words"); // in the translated message (English here)
    QTest::newRow("name not resolved") << u"dns"_s << u"dns"_s << u"could not be resolved"_s;
    QTest::newRow("connection refused") << u"refused"_s << u"connect"_s << u"refused the connection"_s;
    QTest::newRow("proxy not reachable") << u"proxy-refused"_s << u"proxy_unreachable"_s
                                         << u"proxy could not be reached"_s;
    QTest::newRow("no answer in time") << u"timeout"_s << u"timeout"_s << u"did not answer in time"_s;
    QTest::newRow("below the speed floor") << u"slow"_s << u"too_slow"_s << u"too slowly"_s;
    QTest::newRow("TLS: untrusted certificate") << u"tls-untrusted"_s << u"tls"_s << u"could not be verified"_s;
    QTest::newRow("TLS: certificate for another host")
        << u"tls-wrong-host"_s << u"tls"_s << u"belongs to another name"_s;
    QTest::newRow("proxy 407, plain http") << u"407-http"_s << u"proxy_auth"_s << u"user name and password"_s;
    QTest::newRow("proxy 407, tunnel") << u"407-https"_s << u"proxy_auth"_s << u"user name and password"_s;
    QTest::newRow("proxy 502") << u"502"_s << u"proxy_error"_s << u"proxy could not reach the server"_s;
    QTest::newRow("HTTP 403") << u"403"_s << u"http_error"_s << u"403 Forbidden"_s;
    QTest::newRow("HTTP 404") << u"404"_s << u"http_error"_s << u"404 Not Found"_s;
    QTest::newRow("HTTP 503") << u"503"_s << u"http_error"_s << u"(HTTP 503)"_s;
    QTest::newRow("larger than a document can be") << u"large"_s << u"too_large"_s << u"more for"_s;
}

void TestNetwork::failure_namesItsCause()
{
    QFETCH(QString, fault);
    QFETCH(QString, code);
    QFETCH(QString, words);
    LoopbackServer server;
    QVERIFY(server.start());
    LoopbackServer tls(LoopbackServer::Https);
    QVERIFY(tls.start());
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    QTemporaryDir dir;
    server.route("/doc.json", Response::bytes("{}", "application/json"));
    tls.route("/doc.json", Response::bytes("{}", "application/json"));

    TransferOptions options;
    options.connectTimeout = std::chrono::seconds(5);
    HttpRequest request;
    request.url = server.url(u"/doc.json"_s);
    request.timeout = std::chrono::seconds(10);
    if (fault == u"dns") {
        request.url = QUrl(u"http://nvidia.invalid/doc.json"_s);
    } else if (fault == u"refused" || fault == u"proxy-refused") {
        quint16 closed = 0;
        {
            LoopbackServer gone;
            QVERIFY(gone.start());
            closed = gone.url().port();
        }
        if (fault == u"refused")
            request.url = QUrl(u"http://127.0.0.1:%1/doc.json"_s.arg(closed));
        else
            options.proxy = u"http://127.0.0.1:%1"_s.arg(closed);
    } else if (fault == u"timeout") {
        server.route("/doc.json", Response::bytes("{}").delayHeaders(std::chrono::seconds(5)));
        request.timeout = std::chrono::milliseconds(600);
    } else if (fault == u"slow") {
        server.route("/doc.json", Response::bytes(QByteArray(256 * 1024, 'x')).throttle(2048));
        options.lowSpeedBytesPerSecond = 1024 * 1024;
        options.lowSpeedTime = std::chrono::seconds(1);
    } else if (fault == u"tls-untrusted") {
        request.url = tls.url(u"/doc.json"_s);
    } else if (fault == u"tls-wrong-host") {
        // The certificate is for localhost and 127.0.0.1; the proxy answers for another name.
        const QString ca = dir.filePath(u"ca.pem"_s);
        QVERIFY(tls.writeCaCertificate(ca));
        options.caBundle = ca;
        options.proxy = QString::fromLatin1(proxy.proxyUrl());
        proxy.mapHost(u"nvidia.invalid"_s, tls.url().port());
        request.url = QUrl(u"https://nvidia.invalid/doc.json"_s);
    } else if (fault == u"407-http" || fault == u"407-https") {
        proxy.requireBasicAuth("student", "s3cret");
        options.proxy = QString::fromLatin1(proxy.proxyUrl());
        if (fault == u"407-https")
            request.url = tls.url(u"/doc.json"_s);
    } else if (fault == u"502") {
        options.proxy = QString::fromLatin1(proxy.proxyUrl());
        proxy.mapHost(u"nvidia.invalid"_s, 1); // nothing listens there: the proxy answers 502
        request.url = QUrl(u"http://nvidia.invalid/doc.json"_s);
    } else if (fault == u"large") {
        server.route("/doc.json", Response::bytes(QByteArray(64 * 1024, 'x')));
        request.maxBytes = 1024;
    } else {
        const int status = fault.toInt();
        QVERIFY(status >= 400);
        server.route("/doc.json", Response::status(status));
    }
    const HttpClient client(options);
    const auto response = tfsetup::test::awaitTask(client.get(request), std::chrono::seconds(30));
    QVERIFY(response);
    QVERIFY(!response->ok());
    QCOMPARE(response->error().code, code);
    QVERIFY2(response->error().message.contains(words), qPrintable(response->error().message));
    QVERIFY2(!response->error().detail.isEmpty(), "the detail says what curl said");
    // The status the server answered is read back from the error (0: no HTTP answer at all).
    const int status = fault.toInt();
    QCOMPARE(response->error().httpStatus, status >= 400 ? status : (fault.startsWith(u"407"_s) ? 407 : 0));
}

void TestNetwork::messages_differByCause()
{
    // Offline, timed out, a bad mirror and a proxy's 502 must not read the same.
    const QString what = u"cudnn 8.9.7"_s;
    const QStringList messages{
        core::NetworkError::message(u"dns"_s, 0, what),
        core::NetworkError::message(u"connect"_s, 0, what),
        core::NetworkError::message(u"timeout"_s, 0, what),
        core::NetworkError::message(u"http_error"_s, 404, what),
        core::NetworkError::message(u"proxy_error"_s, 502, what),
        core::NetworkError::message(u"html_page"_s, 0, what),
        core::NetworkError::message(u"checksum_mismatch"_s, 0, what),
        core::NetworkError::message(u"disk_full"_s, 0, what),
        core::NetworkError::message(u"too_slow"_s, 0, what),
        core::NetworkError::message(u"proxy_auth"_s, 407, what),
    };
    for (const QString &m : messages)
        QVERIFY2(m.contains(what), qPrintable(m));
    QCOMPARE(QSet<QString>(messages.cbegin(), messages.cend()).size(), messages.size());
    QVERIFY(core::NetworkError::message(u"html_page"_s, 0, what).contains(u"log"_s, Qt::CaseInsensitive));
}

void TestNetwork::resolver_errorNamesTheCause()
{
    // What the Options page shows after Next: the cause, not "check the network" for everything.
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"nvidia.invalid"_s, 1); // the proxy cannot reach NVIDIA: 502
    QTemporaryDir cache;
    core::SetupOptions options;
    options.knowledge = tfsetup::test::shippedKnowledge();
    options.cacheDir = cache.path();
    options.network.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    options.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)},
                                       {u"pypi-json"_s, QUrl(u"http://pypi.invalid/pypi"_s)}};
    options.network.resolveTimeout = std::chrono::seconds(5);
    const auto list = tfsetup::test::awaitTask(core::SetupFlow::resolveArtifacts(gpuPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY(!list->ok());
    QCOMPARE(list->error().code, u"manifest_unavailable"_s);
    QVERIFY2(list->error().message.contains(u"proxy could not reach the server"_s), qPrintable(list->error().message));
    QVERIFY2(list->error().message.contains(u"502"_s), qPrintable(list->error().message));
}

void TestNetwork::proxyOnly_setupFlowResolvesAndDownloads()
{
    // NVIDIA and PyPI's JSON API under names that resolve nowhere: only the proxy (the Options
    // page's proxy, SetupOptions::proxy) knows them. A request that bypassed it would fail.
    LoopbackServer origin;
    QVERIFY(origin.start());
    origin.route("/compute/cuda/redist/redistrib_12.5.1.json",
                 Response::bytes(readManifest(u"cuda/redistrib_12.5.1.json"_s), "application/json"));
    origin.route("/compute/cudnn/redist/redistrib_8.9.7.json",
                 Response::bytes(readManifest(u"cudnn/redistrib_8.9.7.json"_s), "application/json"));
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"nvidia.invalid"_s, origin.url().port());
    proxy.mapHost(u"pypi.invalid"_s, origin.url().port());

    QTemporaryDir cache;
    core::SetupOptions options;
    options.knowledge = tfsetup::test::shippedKnowledge();
    options.prefix = cache.filePath(u"envs"_s);
    options.cacheDir = cache.path();
    options.network.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    options.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)},
                                       {u"pypi-json"_s, QUrl(u"http://pypi.invalid/pypi"_s)}};
    options.network.resolveTimeout = std::chrono::seconds(5);
    const auto list = tfsetup::test::awaitTask(core::SetupFlow::resolveArtifacts(gpuPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY2(list->ok(), qPrintable(list->ok() ? QString() : list->error().message + u'\n' + list->error().detail));
    QVERIFY((*list)->find(u"cuda_cudart"_s));
    QCOMPARE(origin.hits("/compute/cuda/redist/redistrib_12.5.1.json"), 1);
    QCOMPARE(origin.hits("/compute/cudnn/redist/redistrib_8.9.7.json"), 1);
    QVERIFY2(origin.hits("/pypi/tensorflow/json") == 1, "the wheel check asked through the proxy too");

    // The download, as the wizard's Downloader makes it (the same proxy). The test's bytes are not
    // NVIDIA's, so the request's checksum is the test payload's.
    const core::DownloadPlan downloads = core::SetupFlow::downloadPlan(**list, {}, options);
    QVERIFY(!downloads.requests.isEmpty());
    core::DownloadRequest request = downloads.requests.first();
    QCOMPARE(request.urls.constLast().host(), u"nvidia.invalid"_s);
    const QByteArray payload = randomBytes(300 * 1024);
    origin.route(request.urls.constLast().path().toUtf8(), Response::bytes(payload));
    request.expectedSize = payload.size();
    request.checksum = core::Checksum{core::Checksum::Algorithm::Sha256,
                                      QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()};
    TransferOptions transfer;
    transfer.proxy = options.network.transfer.proxy;
    core::Downloader downloader(transfer, core::DownloadCache());
    const auto fetched = tfsetup::test::awaitTask(downloader.fetch(request), std::chrono::seconds(60));
    QVERIFY(fetched);
    QVERIFY2(fetched->ok(),
             qPrintable(fetched->ok() ? QString() : fetched->error().message + u'\n' + fetched->error().detail));
    QCOMPARE((*fetched)->source.host(), u"nvidia.invalid"_s);
    verifyAllThroughProxy(origin, proxy);
}

void TestNetwork::proxyOnly_commandLine()
{
    LoopbackServer origin;
    QVERIFY(origin.start());
    origin.route("/compute/cuda/redist/redistrib_12.5.1.json",
                 Response::bytes(readManifest(u"cuda/redistrib_12.5.1.json"_s), "application/json"));
    origin.route("/compute/cudnn/redist/redistrib_8.9.7.json",
                 Response::bytes(readManifest(u"cudnn/redistrib_8.9.7.json"_s), "application/json"));
    const QByteArray payload = randomBytes(200 * 1024);
    origin.route("/files/a.bin", Response::bytes(payload));
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"nvidia.invalid"_s, origin.url().port());
    proxy.mapHost(u"pypi.invalid"_s, origin.url().port());
    const QString proxyUrl = QString::fromLatin1(proxy.proxyUrl());
    const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
    QVERIFY(!binary.isEmpty());
    QTemporaryDir dir;

    auto run = [&](const QStringList &arguments, QByteArray *out) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(QString::fromLatin1(name));
        p.setProcessEnvironment(env);
        p.start(binary, arguments);
        if (!p.waitForFinished(60000))
            return -1;
        *out = p.readAllStandardOutput() + p.readAllStandardError();
        return p.exitCode();
    };

    // tfsetup sources: the manifests and the wheel check through the proxy.
    QByteArray out;
    const int sources = run({u"sources"_s, u"--tf"_s, u"2.18"_s, u"--os"_s, u"linux"_s, u"--route"_s,
                             u"linux-toolkit"_s, u"--origin"_s, u"nvidia=http://nvidia.invalid/"_s, u"--origin"_s,
                             u"pypi-json=http://pypi.invalid/pypi"_s, u"--proxy"_s, proxyUrl, u"--json"_s},
                            &out);
    QVERIFY2(sources == 0, out.constData());
    const QJsonObject json = QJsonDocument::fromJson(out).object();
    QVERIFY2(!json.value(u"artifacts"_s).toArray().isEmpty(), out.constData());
    QCOMPARE(origin.hits("/compute/cuda/redist/redistrib_12.5.1.json"), 1);

    // Without the proxy the same names lead nowhere: nothing could have gone around it.
    const int direct = run({u"sources"_s, u"--tf"_s, u"2.18"_s, u"--os"_s, u"linux"_s, u"--route"_s, u"linux-toolkit"_s,
                            u"--origin"_s, u"nvidia=http://nvidia.invalid/"_s, u"--origin"_s,
                            u"pypi-json=http://pypi.invalid/pypi"_s},
                           &out);
    QVERIFY2(direct != 0, out.constData());
    QVERIFY2(out.contains("could not be resolved"), out.constData());
    QCOMPARE(origin.hits("/compute/cuda/redist/redistrib_12.5.1.json"), 1);

    // tfsetup fetch: four segments of unknown size, through the proxy.
    const QString file = dir.filePath(u"a.bin"_s);
    const int fetch = run({u"fetch"_s, u"--proxy"_s, proxyUrl, u"--no-cache"_s, u"--segments"_s, u"4"_s, u"--sha256"_s,
                           QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()),
                           u"--out"_s, file, u"http://nvidia.invalid/files/a.bin"_s},
                          &out);
    QVERIFY2(fetch == 0, out.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), payload);
    verifyAllThroughProxy(origin, proxy);
}

void TestNetwork::proxyOnly_labInstallPreparesThroughTheProxy()
{
    // tfsetup install --proxy: a lab profile's manifests and archives, all through the proxy given
    // on the command line (LabSetupOptions::network, whose proxy wins over the profile's).
    QTemporaryDir dir;
    LoopbackServer origin;
    QVERIFY(origin.start());
    tfsetup::test::LabMirror mirror;
    QVERIFY(mirror.create(dir.filePath(u"mirror"_s), origin));
    const QString profilePath = mirror.writeProfile(u"lab"_s, u"tf-lab"_s, u"8.6"_s);
    QVERIFY(!profilePath.isEmpty());
    origin.clearRequests();
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"nvidia.invalid"_s, origin.url().port());
    proxy.mapHost(u"pypi.invalid"_s, origin.url().port());

    auto profile = core::LabProfile::load(profilePath);
    QVERIFY2(profile, qPrintable(profile ? QString() : profile.error().message));
    core::LabSetupOptions options;
    options.knowledge = tfsetup::test::shippedKnowledge();
    options.prefixOverride = dir.filePath(u"envs"_s);
    options.cacheDir = dir.filePath(u"cache"_s);
    options.network.resolveTimeout = std::chrono::seconds(20);
    options.network.transfer.probeMirrors = false;
    options.network.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    options.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)},
                                       {u"pypi-json"_s, QUrl(u"http://pypi.invalid/pypi"_s)}};
    options.sourcesCatalog = mirror.sourcesPath();
    core::RealSystem system;
    core::LabSetup setup(system);
    const auto installed = tfsetup::test::awaitTask(setup.install(*profile, options), std::chrono::seconds(120));
    QVERIFY(installed);
    QVERIFY2(installed->ok(),
             qPrintable(installed->ok() ? QString() : installed->error().message + u'\n' + installed->error().detail));
    QVERIFY(QFileInfo::exists((*installed)->environmentPath + u"/environment.json"_s));
    int archives = 0;
    for (const auto &a : mirror.archives())
        archives += origin.hits(a.urlPath.toUtf8());
    QVERIFY2(archives > 0, "the archives came from the origin");
    verifyAllThroughProxy(origin, proxy);
}

void TestNetwork::segments_withoutSize_splitAfterTheFirstResponse()
{
    // aria2c -x4 needs no size: the first response tells it, and the rest is split.
    LoopbackServer server;
    QVERIFY(server.start());
    const QByteArray payload = randomBytes(2 * 1024 * 1024 + 123);
    server.route("/big.bin", Response::bytes(payload).throttle(4 * 1024 * 1024));
    QTemporaryDir dir;
    TransferOptions options;
    options.minSegmentBytes = 128 * 1024;
    options.probeMirrors = false;
    core::Downloader downloader(options, core::DownloadCache());
    core::DownloadRequest request;
    request.name = u"big.bin"_s;
    request.urls = {server.url(u"/big.bin"_s)};
    request.checksum = core::Checksum{core::Checksum::Algorithm::Sha256,
                                      QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()};
    request.destination = dir.filePath(u"big.bin"_s);
    request.segments = 4; // and no expectedSize
    const auto fetched = tfsetup::test::awaitTask(downloader.fetch(request), std::chrono::seconds(60));
    QVERIFY(fetched);
    QVERIFY2(fetched->ok(),
             qPrintable(fetched->ok() ? QString() : fetched->error().message + u'\n' + fetched->error().detail));
    QFile f(request.destination);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), payload);
    int ranged = 0;
    const QList<tfsetup::test::RecordedRequest> seen = server.requests("/big.bin");
    for (const auto &r : seen)
        ranged += r.hasHeader("range") ? 1 : 0;
    QVERIFY2(seen.first().header("range").isEmpty(), "the first request asks for the whole file");
    QVERIFY2(ranged >= 3, qPrintable(u"%1 of %2 requests were ranged"_s.arg(ranged).arg(seen.size())));
}

void TestNetwork::speedFloor_commandLineOption()
{
    // tfsetup fetch --min-speed: a trickling first mirror is left for the second, which is asked
    // only for what the first did not bring, and the switch is said on the terminal.
    const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
    QVERIFY(!binary.isEmpty());
    const QByteArray payload = randomBytes(3 * 1024 * 1024);
    LoopbackServer trickle;
    QVERIFY(trickle.start());
    trickle.route("/a.bin", Response::bytes(payload).throttle(64 * 1024));
    LoopbackServer fast;
    QVERIFY(fast.start());
    // Its HEAD answers later, so the latency probe keeps the trickle first.
    fast.handle("/a.bin", [payload](const tfsetup::test::RecordedRequest &r, int) {
        Response response = Response::bytes(payload);
        if (r.method == "HEAD")
            response.delayHeaders(std::chrono::milliseconds(500));
        return response;
    });
    QTemporaryDir dir;
    const QString file = dir.filePath(u"a.bin"_s);
    const QStringList common{u"fetch"_s,
                             trickle.url(u"/a.bin"_s).toString(),
                             fast.url(u"/a.bin"_s).toString(),
                             u"--sha256"_s,
                             QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()),
                             u"--out"_s,
                             file,
                             u"--no-cache"_s,
                             u"--min-speed"_s};
    auto run = [&](const QString &floor, QByteArray *err) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(QString::fromLatin1(name));
        p.setProcessEnvironment(env);
        p.start(binary, common + QStringList{floor});
        if (!p.waitForFinished(60000))
            return -1;
        *err = p.readAllStandardError();
        return p.exitCode();
    };
    QByteArray err;
    QCOMPARE(run(u"fast"_s, &err), 2);
    QVERIFY2(err.contains("0 turns the floor off"), err.constData());
    QCOMPARE(trickle.hits("/a.bin") + fast.hits("/a.bin"), 0);

    const int fetched = run(u"256k:1"_s, &err);
    QVERIFY2(fetched == 0, err.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), payload);
    QVERIFY2(err.contains("too slowly") && err.contains(fast.url(u"/a.bin"_s).toString().toUtf8()), err.constData());
    // The second mirror sent only the rest: what the trickle brought was kept.
    const qint64 fromTrickle = trickle.bodyBytesSent("/a.bin");
    QVERIFY(fromTrickle > 0);
    QVERIFY(fast.bodyBytesSent("/a.bin") < payload.size());
    QVERIFY(fast.bodyBytesSent("/a.bin") >= payload.size() - fromTrickle);
}

QTEST_GUILESS_MAIN(TestNetwork)
#include "test_network.moc"
