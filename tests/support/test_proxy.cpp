// Tests of the loopback proxy: CONNECT tunnels for https, forwarding for http, Basic
// authentication, and refusal of anything but loopback targets.

#include "support/coroutinetest.h"
#include "support/httpclient.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QtTest>

using tfsetup::test::awaitTask;
using tfsetup::test::exchangeRaw;
using tfsetup::test::fetch;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

class TestSupportProxy final : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void forward_plainHttp_relaysThroughProxy();
    void connect_https_tunnelsToServer();
    void basicAuth_missing_gets407();
    void basicAuth_given_isAccepted();
    void nonLoopbackTarget_isRefused_data();
    void nonLoopbackTarget_isRefused();

private:
    QNetworkProxy proxySetting(const QString &user = {}, const QString &password = {}) const;
    std::unique_ptr<QNetworkAccessManager> m_manager;
    std::unique_ptr<LoopbackProxy> m_proxy;
};

void TestSupportProxy::init()
{
    m_manager = std::make_unique<QNetworkAccessManager>();
    m_proxy = std::make_unique<LoopbackProxy>();
    QVERIFY2(m_proxy->start(), qPrintable(m_proxy->errorString()));
    QCOMPARE(m_proxy->proxyUrl(), "http://127.0.0.1:" + QByteArray::number(m_proxy->port()));
}

void TestSupportProxy::cleanup()
{
    m_manager.reset();
    m_proxy.reset();
}

QNetworkProxy TestSupportProxy::proxySetting(const QString &user, const QString &password) const
{
    return QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), m_proxy->port(), user, password);
}

void TestSupportProxy::forward_plainHttp_relaysThroughProxy()
{
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/file", Response::bytes("via proxy"));
    m_manager->setProxy(proxySetting());

    const auto r = awaitTask(fetch(m_manager.get(), QNetworkRequest(server.url(QStringLiteral("/file?x=1")))));
    QVERIFY(r);
    QVERIFY2(r->error == QNetworkReply::NoError, qPrintable(r->errorString));
    QCOMPARE(r->body, QByteArray("via proxy"));

    const auto proxied = m_proxy->requests();
    QVERIFY(!proxied.isEmpty());
    QCOMPARE(proxied[0].method, QByteArray("GET"));
    QCOMPARE(proxied[0].target, server.url(QStringLiteral("/file?x=1")).toEncoded());
    QCOMPARE(m_proxy->forwardCount(), 1);
    // The origin sees origin-form and no proxy headers.
    const auto seen = server.requests("/file");
    QCOMPARE(seen.size(), 1);
    QCOMPARE(seen[0].target, QByteArray("/file?x=1"));
    QVERIFY(!seen[0].hasHeader("Proxy-Connection"));
}

void TestSupportProxy::connect_https_tunnelsToServer()
{
    LoopbackServer server(LoopbackServer::Https);
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    server.route("/file", Response::bytes("tunnelled"));
    m_manager->setProxy(proxySetting());

    QNetworkRequest request(server.url(QStringLiteral("/file")));
    request.setSslConfiguration(server.clientConfiguration());
    const auto r = awaitTask(fetch(m_manager.get(), request));
    QVERIFY(r);
    QVERIFY2(r->error == QNetworkReply::NoError, qPrintable(r->errorString));
    QCOMPARE(r->body, QByteArray("tunnelled"));
    QCOMPARE(m_proxy->requests().value(0).method, QByteArray("CONNECT"));
    QCOMPARE(m_proxy->requests().value(0).target, server.hostAndPort());
    QCOMPARE(m_proxy->tunnelCount(), 1);
    QCOMPARE(server.hits("/file"), 1);
}

void TestSupportProxy::basicAuth_missing_gets407()
{
    m_proxy->requireBasicAuth("student", "s3cret");
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/file", Response::bytes("x"));

    const auto raw = awaitTask(exchangeRaw(
        m_proxy->port(), "GET " + server.url(QStringLiteral("/file")).toEncoded() + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    QVERIFY(raw);
    QVERIFY(raw->closedByServer);
    QVERIFY2(raw->head().startsWith("HTTP/1.1 407 "), raw->head().constData());
    QVERIFY(raw->head().contains("Proxy-Authenticate: Basic"));
    QCOMPARE(server.hits("/file"), 0);

    m_manager->setProxy(proxySetting());
    const auto r = awaitTask(fetch(m_manager.get(), QNetworkRequest(server.url(QStringLiteral("/file")))));
    QVERIFY(r);
    QCOMPARE(r->error, QNetworkReply::ProxyAuthenticationRequiredError);
}

void TestSupportProxy::basicAuth_given_isAccepted()
{
    m_proxy->requireBasicAuth("student", "s3cret");
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/file", Response::bytes("authorised"));
    m_manager->setProxy(proxySetting(QStringLiteral("student"), QStringLiteral("s3cret")));

    const auto r = awaitTask(fetch(m_manager.get(), QNetworkRequest(server.url(QStringLiteral("/file")))));
    QVERIFY(r);
    QVERIFY2(r->error == QNetworkReply::NoError, qPrintable(r->errorString));
    QCOMPARE(r->body, QByteArray("authorised"));
    const auto proxied = m_proxy->requests();
    QCOMPARE(proxied.last().header("Proxy-Authorization"),
             QByteArray("Basic ") + QByteArray("student:s3cret").toBase64());
}

void TestSupportProxy::nonLoopbackTarget_isRefused_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::newRow("connect to a public name")
        << QByteArray("CONNECT example.invalid:443 HTTP/1.1\r\nHost: example.invalid:443\r\n\r\n");
    QTest::newRow("forward to a public address")
        << QByteArray("GET http://192.0.2.1/file HTTP/1.1\r\nHost: 192.0.2.1\r\n\r\n");
}

void TestSupportProxy::nonLoopbackTarget_isRefused()
{
    QFETCH(QByteArray, request);
    const auto raw = awaitTask(exchangeRaw(m_proxy->port(), request));
    QVERIFY(raw);
    QVERIFY(raw->closedByServer);
    QVERIFY2(raw->head().startsWith("HTTP/1.1 403 "), raw->head().constData());
    QCOMPARE(m_proxy->tunnelCount() + m_proxy->forwardCount(), 0);
}

QTEST_GUILESS_MAIN(TestSupportProxy)
#include "test_proxy.moc"
