#include "support/loopbackserver.h"

#include "support/testcertificates.h"

#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QMutexLocker>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <limits>

namespace tfsetup::test {

namespace {

constexpr qint64 maxHeadBytes = 64 * 1024;
constexpr qint64 chunkBytes = 64 * 1024;
// Stop queueing once this much waits in the socket: keeps memory flat for large files and makes
// dropAfter/throttle act on what actually leaves, not on what sits in a buffer.
constexpr qint64 maxQueuedBytes = 256 * 1024;
constexpr std::chrono::milliseconds throttleTick{10};

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return QByteArrayLiteral("OK");
    case 204: return QByteArrayLiteral("No Content");
    case 206: return QByteArrayLiteral("Partial Content");
    case 301: return QByteArrayLiteral("Moved Permanently");
    case 302: return QByteArrayLiteral("Found");
    case 303: return QByteArrayLiteral("See Other");
    case 307: return QByteArrayLiteral("Temporary Redirect");
    case 308: return QByteArrayLiteral("Permanent Redirect");
    case 400: return QByteArrayLiteral("Bad Request");
    case 403: return QByteArrayLiteral("Forbidden");
    case 404: return QByteArrayLiteral("Not Found");
    case 407: return QByteArrayLiteral("Proxy Authentication Required");
    case 416: return QByteArrayLiteral("Range Not Satisfiable");
    case 500: return QByteArrayLiteral("Internal Server Error");
    case 502: return QByteArrayLiteral("Bad Gateway");
    case 503: return QByteArrayLiteral("Service Unavailable");
    default: return QByteArrayLiteral("Status");
    }
}

struct ByteRange {
    qint64 first = 0;
    qint64 last = 0; // inclusive
};

enum class RangeKind { None, Satisfiable, Unsatisfiable };

// Single byte range per RFC 9110 §14.1.2; anything else is treated as "no range".
RangeKind parseRange(const QByteArray &header, qint64 size, ByteRange *range)
{
    const QByteArray value = header.trimmed();
    if (!value.startsWith("bytes="))
        return RangeKind::None;
    const QByteArray spec = value.mid(6).trimmed();
    if (spec.contains(','))
        return RangeKind::None;
    const qsizetype dash = spec.indexOf('-');
    if (dash < 0)
        return RangeKind::None;
    const QByteArray a = spec.left(dash).trimmed();
    const QByteArray b = spec.mid(dash + 1).trimmed();
    bool okA = true;
    bool okB = true;
    if (a.isEmpty()) { // suffix: last n bytes
        const qint64 n = b.toLongLong(&okB);
        if (!okB || n < 0)
            return RangeKind::None;
        if (n == 0 || size == 0)
            return RangeKind::Unsatisfiable;
        *range = {std::max<qint64>(0, size - n), size - 1};
        return RangeKind::Satisfiable;
    }
    const qint64 first = a.toLongLong(&okA);
    const qint64 last = b.isEmpty() ? std::numeric_limits<qint64>::max() : b.toLongLong(&okB);
    if (!okA || !okB || first < 0 || last < first)
        return RangeKind::None;
    if (first >= size)
        return RangeKind::Unsatisfiable;
    *range = {first, std::min(last, size - 1)};
    return RangeKind::Satisfiable;
}

} // namespace

// ---- RecordedRequest ----

QByteArray RecordedRequest::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool RecordedRequest::hasHeader(const QByteArray &name) const
{
    return std::any_of(headers.cbegin(), headers.cend(),
                       [&](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
}

namespace detail {

bool parseRequestHead(const QByteArray &head, RecordedRequest *request)
{
    const QList<QByteArray> lines = head.split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    if (requestLine.size() != 3)
        return false;
    request->method = requestLine[0];
    request->target = requestLine[1];
    request->version = requestLine[2];
    const qsizetype query = request->target.indexOf('?');
    request->path = query < 0 ? request->target : request->target.left(query);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return false;
        request->headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    return true;
}

} // namespace detail

// ---- Response ----

Response Response::bytes(QByteArray body, QByteArray contentType)
{
    Response r;
    r.m_body = std::move(body);
    r.m_contentType = std::move(contentType);
    return r;
}

Response Response::file(QString path, QByteArray contentType)
{
    Response r;
    r.m_filePath = std::move(path);
    r.m_contentType = std::move(contentType);
    return r;
}

Response Response::htmlErrorPage(QByteArray title)
{
    Response r;
    r.m_body = "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head>\n<body><h1>" + title
        + "</h1><p>The requested file is not available on this mirror.</p></body></html>\n";
    r.m_contentType = QByteArrayLiteral("text/html; charset=utf-8");
    return r;
}

Response Response::redirect(const QUrl &to, int status)
{
    Response r;
    r.m_status = status;
    r.m_body = "Moved to " + to.toEncoded() + '\n';
    r.m_contentType = QByteArrayLiteral("text/plain");
    r.m_headers.append({QByteArrayLiteral("Location"), to.toEncoded()});
    return r;
}

Response Response::status(int code, QByteArray body)
{
    Response r;
    r.m_status = code;
    r.m_body = body.isNull() ? reasonPhrase(code) + '\n' : std::move(body);
    r.m_contentType = QByteArrayLiteral("text/plain");
    return r;
}

Response &Response::throttle(qint64 bytesPerSecond)
{
    m_bytesPerSecond = bytesPerSecond;
    return *this;
}

Response &Response::dropAfter(qint64 bodyBytes)
{
    m_dropAfter = bodyBytes;
    return *this;
}

Response &Response::announceLength(qint64 contentLength)
{
    m_announcedLength = contentLength;
    return *this;
}

Response &Response::corruptAt(qint64 resourceOffset)
{
    m_corruptOffsets.append(resourceOffset);
    return *this;
}

Response &Response::ignoreRange()
{
    m_honourRange = false;
    return *this;
}

Response &Response::delayHeaders(std::chrono::milliseconds delay)
{
    m_headerDelay = delay;
    return *this;
}

Response &Response::header(QByteArray name, QByteArray value)
{
    m_headers.append({std::move(name), std::move(value)});
    return *this;
}

// ---- shared state (guarded by mutex; read by both threads) ----

struct ServerShared {
    mutable QMutex mutex;
    QHash<QByteArray, Handler> handlers;
    QHash<QByteArray, int> hits;
    QHash<QByteArray, qint64> bodyBytes; // per path: body bytes handed to the socket
    QList<RecordedRequest> log;
    int connections = 0;
    bool tls = false;
    TestCertificates certificates;
    QSslCertificate serverCertificate;
    QSslKey serverKey;
};

// One client connection: parses requests, answers them one at a time (pipelined requests wait
// in m_in), paces and truncates bodies as the Response says.
class ServerConnection final : public QObject {
public:
    ServerConnection(QTcpSocket *socket, std::shared_ptr<ServerShared> shared, int number, QObject *parent)
        : QObject(parent)
        , m_socket(socket)
        , m_shared(std::move(shared))
        , m_number(number)
    {
        m_socket->setParent(this);
        m_pumpTimer.setInterval(throttleTick);
        connect(&m_pumpTimer, &QTimer::timeout, this, &ServerConnection::pump);
        connect(m_socket, &QIODevice::readyRead, this, &ServerConnection::onReadyRead);
        connect(m_socket, &QIODevice::bytesWritten, this, &ServerConnection::pump);
        connect(m_socket, &QAbstractSocket::disconnected, this, &QObject::deleteLater);
        connect(m_socket, &QAbstractSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
            if (m_socket->state() == QAbstractSocket::UnconnectedState)
                deleteLater();
        });
    }

private:
    enum class State { ReadingHead, ReadingBody, Delaying, SendingBody, Closing };

    void onReadyRead()
    {
        m_in += m_socket->readAll();
        processInput();
    }

    void processInput()
    {
        if (m_state == State::ReadingHead) {
            const qsizetype end = m_in.indexOf("\r\n\r\n");
            if (end < 0) {
                if (m_in.size() > maxHeadBytes)
                    sendPlainAndClose(400);
                return;
            }
            if (!parseHead(m_in.left(end))) {
                sendPlainAndClose(400);
                return;
            }
            m_in.remove(0, end + 4);
            m_state = State::ReadingBody;
        }
        if (m_state == State::ReadingBody) {
            const qint64 length = m_request.header("Content-Length").toLongLong();
            if (m_in.size() < length)
                return;
            m_request.body = m_in.left(length);
            m_in.remove(0, length);
            dispatch();
        }
    }

    bool parseHead(const QByteArray &head)
    {
        m_request = RecordedRequest{};
        m_request.connection = m_number;
        return detail::parseRequestHead(head, &m_request);
    }

    void dispatch()
    {
        Handler handler;
        int hit = 0;
        {
            QMutexLocker lock(&m_shared->mutex);
            hit = ++m_shared->hits[m_request.path];
            m_shared->log.append(m_request);
            handler = m_shared->handlers.value(m_request.path);
        }
        // Called without the lock: a handler may read the log or change routes.
        m_response = handler ? handler(m_request, hit) : Response::status(404);

        const QByteArray connectionHeader = m_request.header("Connection").toLower();
        m_closeAfter = connectionHeader.contains("close")
            || (m_request.version == "HTTP/1.0" && !connectionHeader.contains("keep-alive"));

        if (m_response.m_headerDelay.count() > 0) {
            m_state = State::Delaying;
            QTimer::singleShot(m_response.m_headerDelay, this, &ServerConnection::sendHead);
        } else {
            sendHead();
        }
    }

    void sendHead()
    {
        const Response &r = m_response;
        int status = r.m_status;
        qint64 size = r.m_body.size();
        m_file.reset();
        if (!r.m_filePath.isNull()) {
            m_file = std::make_unique<QFile>(r.m_filePath);
            if (!m_file->open(QIODevice::ReadOnly)) {
                m_response = Response::status(500, "Cannot open fixture file " + r.m_filePath.toUtf8() + '\n');
                m_file.reset();
                sendHead();
                return;
            }
            size = m_file->size();
        }

        HeaderList headers;
        m_first = 0;
        m_end = size;
        if (status == 200 && r.m_honourRange) {
            headers.append({QByteArrayLiteral("Accept-Ranges"), QByteArrayLiteral("bytes")});
            ByteRange range;
            switch (m_request.hasHeader("Range") ? parseRange(m_request.header("Range"), size, &range)
                                                 : RangeKind::None) {
            case RangeKind::None: break;
            case RangeKind::Satisfiable:
                status = 206;
                m_first = range.first;
                m_end = range.last + 1;
                headers.append({QByteArrayLiteral("Content-Range"),
                                "bytes " + QByteArray::number(range.first) + '-' + QByteArray::number(range.last) + '/'
                                    + QByteArray::number(size)});
                break;
            case RangeKind::Unsatisfiable:
                status = 416;
                m_first = m_end = 0;
                m_file.reset();
                m_response.m_body.clear();
                headers.append({QByteArrayLiteral("Content-Range"), "bytes */" + QByteArray::number(size)});
                break;
            }
        }
        if (r.m_announcedLength >= 0)
            m_closeAfter = true; // the framing is broken on purpose; the connection cannot be reused
        if (r.m_dropAfter >= 0)
            m_closeAfter = true;

        QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
        const qint64 contentLength = r.m_announcedLength >= 0 ? r.m_announcedLength : m_end - m_first;
        head += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
        if (!r.m_contentType.isEmpty())
            head += "Content-Type: " + r.m_contentType + "\r\n";
        head += m_closeAfter ? QByteArrayLiteral("Connection: close\r\n")
                             : QByteArrayLiteral("Connection: keep-alive\r\n");
        for (const auto &[name, value] : std::as_const(headers))
            head += name + ": " + value + "\r\n";
        for (const auto &[name, value] : r.m_headers)
            head += name + ": " + value + "\r\n";
        head += "\r\n";
        m_socket->write(head);

        m_next = m_first;
        m_sent = 0;
        if (m_request.method == "HEAD")
            m_next = m_end;
        m_state = State::SendingBody;
        m_bodyClock.start();
        if (r.m_bytesPerSecond > 0)
            m_pumpTimer.start();
        pump();
    }

    QByteArray readChunk(qint64 offset, qint64 length)
    {
        QByteArray chunk;
        if (m_file) {
            m_file->seek(offset);
            chunk = m_file->read(length);
        } else {
            chunk = m_response.m_body.mid(offset, length);
        }
        for (const qint64 at : std::as_const(m_response.m_corruptOffsets)) {
            if (at >= offset && at < offset + chunk.size())
                chunk[at - offset] = static_cast<char>(~static_cast<unsigned char>(chunk[at - offset]));
        }
        return chunk;
    }

    void pump()
    {
        if (m_state != State::SendingBody)
            return;
        const Response &r = m_response;
        while (m_next < m_end) {
            if (m_socket->bytesToWrite() >= maxQueuedBytes)
                return; // bytesWritten brings us back
            qint64 allowed = std::min(chunkBytes, m_end - m_next);
            if (r.m_dropAfter >= 0)
                allowed = std::min(allowed, r.m_dropAfter - m_sent);
            if (r.m_bytesPerSecond > 0) {
                const qint64 budget = r.m_bytesPerSecond * m_bodyClock.elapsed() / 1000 - m_sent;
                allowed = std::min(allowed, budget);
            }
            if (allowed <= 0)
                break;
            const QByteArray chunk = readChunk(m_next, allowed);
            if (chunk.isEmpty())
                break; // the file shrank under us: stop rather than spin
            m_socket->write(chunk);
            m_next += chunk.size();
            m_sent += chunk.size();
            {
                QMutexLocker lock(&m_shared->mutex);
                m_shared->bodyBytes[m_request.path] += chunk.size();
            }
        }
        if (r.m_dropAfter >= 0 && m_sent >= r.m_dropAfter && m_next < m_end) {
            closeConnection();
            return;
        }
        if (m_next >= m_end)
            finishResponse();
    }

    void finishResponse()
    {
        m_pumpTimer.stop();
        m_file.reset();
        if (m_closeAfter) {
            closeConnection();
            return;
        }
        m_state = State::ReadingHead;
        if (!m_in.isEmpty())
            processInput();
    }

    void closeConnection()
    {
        m_pumpTimer.stop();
        m_state = State::Closing;
        // Flushes what was queued, then closes: the client gets exactly the bytes counted.
        m_socket->disconnectFromHost();
    }

    void sendPlainAndClose(int status)
    {
        const QByteArray body = reasonPhrase(status) + '\n';
        m_socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
                        + "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: "
                        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        closeConnection();
    }

    QTcpSocket *m_socket;
    std::shared_ptr<ServerShared> m_shared;
    int m_number;
    State m_state = State::ReadingHead;
    QByteArray m_in;
    RecordedRequest m_request;
    Response m_response;
    bool m_closeAfter = false;
    std::unique_ptr<QFile> m_file;
    qint64 m_first = 0;
    qint64 m_next = 0;
    qint64 m_end = 0;
    qint64 m_sent = 0;
    QElapsedTimer m_bodyClock;
    QTimer m_pumpTimer;
};

class ServerWorker final : public QTcpServer {
public:
    explicit ServerWorker(std::shared_ptr<ServerShared> shared)
        : m_shared(std::move(shared))
    {}

protected:
    void incomingConnection(qintptr descriptor) override
    {
        QTcpSocket *socket = nullptr;
        if (m_shared->tls) {
            auto *ssl = new QSslSocket;
            if (!ssl->setSocketDescriptor(descriptor)) {
                delete ssl;
                return;
            }
            ssl->setLocalCertificate(m_shared->serverCertificate);
            ssl->setPrivateKey(m_shared->serverKey);
            ssl->setPeerVerifyMode(QSslSocket::VerifyNone);
            ssl->startServerEncryption();
            socket = ssl;
        } else {
            socket = new QTcpSocket;
            if (!socket->setSocketDescriptor(descriptor)) {
                delete socket;
                return;
            }
        }
        int number = 0;
        {
            QMutexLocker lock(&m_shared->mutex);
            number = ++m_shared->connections;
        }
        new ServerConnection(socket, m_shared, number, this);
    }

private:
    std::shared_ptr<ServerShared> m_shared;
};

// ---- LoopbackServer ----

LoopbackServer::LoopbackServer(Scheme scheme)
    : m_scheme(scheme)
    , m_shared(std::make_shared<ServerShared>())
{
    m_thread.setObjectName(QStringLiteral("LoopbackServer"));
}

LoopbackServer::~LoopbackServer()
{
    if (m_thread.isRunning()) {
        m_thread.quit();
        m_thread.wait();
    }
}

bool LoopbackServer::start()
{
    if (m_worker)
        return m_port != 0;
    if (m_scheme == Https) {
        QString error;
        auto certificates = generateTestCertificates(&error);
        if (!certificates) {
            m_error = QStringLiteral("Cannot generate test certificates: ") + error;
            return false;
        }
        m_shared->tls = true;
        m_shared->certificates = *certificates;
        m_shared->serverCertificate = QSslCertificate(certificates->serverCertificatePem, QSsl::Pem);
        m_shared->serverKey = QSslKey(certificates->serverKeyPem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
        if (m_shared->serverCertificate.isNull() || m_shared->serverKey.isNull()) {
            m_error = QStringLiteral("Qt cannot read the generated certificate or key (is the TLS backend missing?)");
            return false;
        }
    }

    m_worker = new ServerWorker(m_shared);
    m_worker->moveToThread(&m_thread);
    // Deferred deletions still run after finished(), in the server thread.
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

QString LoopbackServer::errorString() const
{
    return m_error;
}

quint16 LoopbackServer::port() const
{
    return m_port;
}

QByteArray LoopbackServer::hostAndPort() const
{
    return "127.0.0.1:" + QByteArray::number(m_port);
}

QUrl LoopbackServer::url(const QString &path, const QString &host) const
{
    QUrl u;
    u.setScheme(m_scheme == Https ? QStringLiteral("https") : QStringLiteral("http"));
    u.setHost(host);
    u.setPort(m_port);
    const qsizetype query = path.indexOf(u'?');
    u.setPath(query < 0 ? path : path.left(query));
    if (query >= 0)
        u.setQuery(path.mid(query + 1));
    return u;
}

void LoopbackServer::route(const QByteArray &path, Response response)
{
    handle(path, [response = std::move(response)](const RecordedRequest &, int) { return response; });
}

void LoopbackServer::handle(const QByteArray &path, Handler handler)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->handlers.insert(path, std::move(handler));
}

void LoopbackServer::removeRoute(const QByteArray &path)
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->handlers.remove(path);
}

QList<RecordedRequest> LoopbackServer::requests() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->log;
}

QList<RecordedRequest> LoopbackServer::requests(const QByteArray &path) const
{
    QMutexLocker lock(&m_shared->mutex);
    QList<RecordedRequest> matching;
    for (const RecordedRequest &r : std::as_const(m_shared->log)) {
        if (r.path == path)
            matching.append(r);
    }
    return matching;
}

int LoopbackServer::hits(const QByteArray &path) const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->hits.value(path);
}

qint64 LoopbackServer::bodyBytesSent(const QByteArray &path) const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->bodyBytes.value(path);
}

void LoopbackServer::clearRequests()
{
    QMutexLocker lock(&m_shared->mutex);
    m_shared->log.clear();
    m_shared->hits.clear();
    m_shared->bodyBytes.clear();
}

int LoopbackServer::connectionCount() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_shared->connections;
}

QByteArray LoopbackServer::caCertificatePem() const
{
    return m_shared->certificates.caCertificatePem;
}

QByteArray LoopbackServer::serverCertificatePem() const
{
    return m_shared->certificates.serverCertificatePem;
}

QSslCertificate LoopbackServer::caCertificate() const
{
    return QSslCertificate(m_shared->certificates.caCertificatePem, QSsl::Pem);
}

QSslConfiguration LoopbackServer::clientConfiguration() const
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setCaCertificates({caCertificate()});
    return configuration;
}

bool LoopbackServer::writeCaCertificate(const QString &path) const
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && f.write(m_shared->certificates.caCertificatePem) == m_shared->certificates.caCertificatePem.size();
}

quint16 closedLoopbackPort()
{
    LoopbackServer gone;
    return gone.start() ? gone.url().port() : quint16(9);
}

} // namespace tfsetup::test
