#include "support/loopbackproxy.h"

#include <QHash>
#include <QHostAddress>
#include <QMutex>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

namespace tfsetup::test {

namespace {

constexpr qint64 maxProxyHeadBytes = 64 * 1024;

bool isLoopbackHost(const QString &host)
{
    return host == u"127.0.0.1" || host.compare(u"localhost", Qt::CaseInsensitive) == 0;
}

} // namespace

struct ProxyShared {
    mutable QMutex mutex;
    QList<RecordedRequest> log;
    QByteArray expectedAuthorization; // empty: no authentication required
    int tunnels = 0;
    int forwards = 0;
    QHash<QString, quint16> hostMap; // lower-case name → loopback port
};

class ProxyConnection final : public QObject {
public:
    ProxyConnection(QTcpSocket *client, std::shared_ptr<ProxyShared> shared, QObject *parent)
        : QObject(parent)
        , m_client(client)
        , m_shared(std::move(shared))
    {
        m_client->setParent(this);
        connect(m_client, &QIODevice::readyRead, this, &ProxyConnection::onClientData);
        connect(m_client, &QAbstractSocket::disconnected, this, [this] {
            if (m_upstream)
                m_upstream->disconnectFromHost();
            deleteLater();
        });
    }

private:
    void onClientData()
    {
        m_in += m_client->readAll();
        if (m_relaying) {
            m_upstream->write(m_in);
            m_in.clear();
            return;
        }
        if (m_upstream)
            return; // still connecting; the buffered bytes follow the head
        const qsizetype end = m_in.indexOf("\r\n\r\n");
        if (end < 0) {
            if (m_in.size() > maxProxyHeadBytes)
                answerAndClose(400, {});
            return;
        }
        RecordedRequest request;
        const bool parsed = detail::parseRequestHead(m_in.left(end), &request);
        m_in.remove(0, end + 4);
        if (!parsed) {
            answerAndClose(400, {});
            return;
        }
        QByteArray expected;
        {
            QMutexLocker lock(&m_shared->mutex);
            m_shared->log.append(request);
            expected = m_shared->expectedAuthorization;
        }
        if (!expected.isEmpty() && request.header("Proxy-Authorization") != expected) {
            answerAndClose(407, "Proxy-Authenticate: Basic realm=\"tfsetup test proxy\"\r\n");
            return;
        }

        QString host;
        int port = -1;
        if (request.method == "CONNECT") {
            const qsizetype colon = request.target.lastIndexOf(':');
            host = QString::fromLatin1(request.target.left(colon));
            port = colon < 0 ? -1 : request.target.mid(colon + 1).toInt();
            m_tunnel = true;
        } else {
            const QUrl url = QUrl::fromEncoded(request.target);
            if (url.scheme() != u"http") {
                answerAndClose(400, {});
                return;
            }
            host = url.host();
            port = url.port(80);
            m_forwardHead = request.method + ' ' + url.path(QUrl::FullyEncoded).toLatin1();
            if (url.hasQuery())
                m_forwardHead += '?' + url.query(QUrl::FullyEncoded).toLatin1();
            m_forwardHead += ' ' + request.version + "\r\n";
            for (const auto &[name, value] : std::as_const(request.headers)) {
                const QByteArray lower = name.toLower();
                if (lower.startsWith("proxy-") || lower == "connection" || lower == "keep-alive")
                    continue;
                m_forwardHead += name + ": " + value + "\r\n";
            }
            m_forwardHead += "Connection: close\r\n\r\n";
        }
        {
            QMutexLocker lock(&m_shared->mutex);
            const auto mapped = m_shared->hostMap.constFind(host.toLower());
            if (mapped != m_shared->hostMap.cend()) {
                host = QStringLiteral("127.0.0.1");
                port = *mapped;
            }
        }
        if (!isLoopbackHost(host) || port <= 0 || port > 65535) {
            answerAndClose(403, {});
            return;
        }

        m_upstream = new QTcpSocket(this);
        connect(m_upstream, &QAbstractSocket::connected, this, &ProxyConnection::onUpstreamConnected);
        connect(m_upstream, &QIODevice::readyRead, this, [this] { m_client->write(m_upstream->readAll()); });
        connect(m_upstream, &QAbstractSocket::disconnected, this, [this] {
            m_client->write(m_upstream->readAll());
            m_client->disconnectFromHost();
        });
        connect(m_upstream, &QAbstractSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
            if (!m_relaying)
                answerAndClose(502, {});
        });
        m_upstream->connectToHost(QHostAddress(QHostAddress::LocalHost), static_cast<quint16>(port));
    }

    void onUpstreamConnected()
    {
        {
            QMutexLocker lock(&m_shared->mutex);
            ++(m_tunnel ? m_shared->tunnels : m_shared->forwards);
        }
        m_relaying = true;
        if (m_tunnel)
            m_client->write("HTTP/1.1 200 Connection Established\r\n\r\n");
        else
            m_upstream->write(m_forwardHead);
        if (!m_in.isEmpty()) {
            m_upstream->write(m_in);
            m_in.clear();
        }
    }

    void answerAndClose(int status, const QByteArray &extraHeaders)
    {
        const QByteArray reason = status == 407 ? QByteArrayLiteral("Proxy Authentication Required")
            : status == 403                     ? QByteArrayLiteral("Forbidden")
            : status == 502                     ? QByteArrayLiteral("Bad Gateway")
                                                : QByteArrayLiteral("Bad Request");
        const QByteArray body = reason + '\n';
        m_client->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\n" + extraHeaders
                        + "Content-Type: text/plain\r\nConnection: close\r\nContent-Length: "
                        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        m_client->disconnectFromHost();
    }

    QTcpSocket *m_client;
    QTcpSocket *m_upstream = nullptr;
    std::shared_ptr<ProxyShared> m_shared;
    QByteArray m_in;
    QByteArray m_forwardHead;
    bool m_tunnel = false;
    bool m_relaying = false;
};

class ProxyWorker final : public QTcpServer {
public:
    explicit ProxyWorker(std::shared_ptr<ProxyShared> shared)
        : m_shared(std::move(shared))
    {}

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket;
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        new ProxyConnection(socket, m_shared, this);
    }

private:
    std::shared_ptr<ProxyShared> m_shared;
};

LoopbackProxy::LoopbackProxy()
    : m_shared(std::make_shared<ProxyShared>())
{
    m_thread.setObjectName(QStringLiteral("LoopbackProxy"));
}

LoopbackProxy::~LoopbackProxy()
{
    if (m_thread.isRunning()) {
        m_thread.quit();
        m_thread.wait();
    }
}

bool LoopbackProxy::start()
{
    if (m_worker)
        return m_port != 0;
    m_worker = new ProxyWorker(m_shared);
    m_worker->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
    bool listening = false;
    QMetaObject::invokeMethod(
        m_worker,
        [this, &listening] {
            listening = m_worker->listen(QHostAddress::LocalHost, 0);
            m_port = listening ? m_worker->serverPort() : 0;
            if (!listening)
                m_error = m_worker->errorString();
        },
        Qt::BlockingQueuedConnection);
    return listening;
}

QString LoopbackProxy::errorString() const
{
    return m_error;
}

quint16 LoopbackProxy::port() const
{
    return m_port;
}

QByteArray LoopbackProxy::proxyUrl() const
{
    return "http://127.0.0.1:" + QByteArray::number(m_port);
}

void LoopbackProxy::requireBasicAuth(const QByteArray &user, const QByteArray &password)
{
    QMutexLocker lock(&m_shared->mutex);
    const QByteArray credentials = user + ':' + password;
    m_shared->expectedAuthorization = "Basic " + credentials.toBase64();
}

void LoopbackProxy::mapHost(const QString &name, quint16 port)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->hostMap.insert(name.toLower(), port);
}

QList<RecordedRequest> LoopbackProxy::requests() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->log;
}

int LoopbackProxy::tunnelCount() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->tunnels;
}

int LoopbackProxy::forwardCount() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->forwards;
}

} // namespace tfsetup::test
