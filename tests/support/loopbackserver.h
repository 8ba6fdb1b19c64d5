#pragma once

// A scriptable HTTP/1.1 (and HTTPS) server on 127.0.0.1 for download and install tests.
//
// Threading: the server runs in ITS OWN QThread with its own event loop. Tests may therefore
// block the test thread (QFuture::waitForFinished on a libcurl worker, QProcess::waitForFinished
// on a child that downloads) and the server still answers. Everything public is thread-safe:
// routes may be changed and the request log read from any thread. Handlers (see handle()) are
// called on the server thread and must not touch test-thread objects without locking.
//
//     tfsetup::test::LoopbackServer server;                      // or LoopbackServer::Https
//     QVERIFY(server.start());
//     server.route("/cudnn.tar.xz", Response::bytes(payload).throttle(256 * 1024).dropAfter(1000));
//     const QUrl url = server.url("/cudnn.tar.xz");              // http://127.0.0.1:PORT/cudnn.tar.xz
//     …
//     QCOMPARE(server.requests("/cudnn.tar.xz").last().header("range"), "bytes=1000-");
//
// Behaviour that downloaders meet in the wild, each switchable per response:
//  - Range: single ranges "a-b", "a-", "-n" give 206 with Content-Range; a start past the end
//    gives 416 with "Content-Range: bytes */size"; multiple ranges are answered 200 with the whole
//    body (allowed by RFC 9110). ignoreRange() answers 200 with the whole body and no
//    Accept-Ranges, like servers without range support. If-Range is not interpreted.
//  - throttle(bytes/s): paced from the moment the body starts, so elapsed time is measurable.
//  - dropAfter(n): closes the connection after n body bytes of this response went out.
//  - announceLength(n): a wrong Content-Length; the real body is sent and the connection closed.
//  - corruptAt(offset): flips every bit of the byte at that offset OF THE RESOURCE, so a resumed
//    (ranged) download sees the same corruption as a whole one.
//  - htmlErrorPage(): 200 text/html, like a captive portal or a mirror's "file not found" page.
//  - redirect(url, status): any absolute URL, e.g. another LoopbackServer's (scheme/port change).
//  - delayHeaders(ms): nothing is sent until then (slow start; tests of connect/first-byte timeouts).
// Connections are kept alive unless the client asks otherwise or a response modifier above
// ends the connection. Unknown paths get 404.

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QThread>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace tfsetup::test {

using HeaderList = QList<std::pair<QByteArray, QByteArray>>;

struct RecordedRequest {
    QByteArray method;  // "GET", "HEAD", …
    QByteArray target;  // as sent: "/a/b?x=1" (or absolute-form through a proxy)
    QByteArray path;    // target without the query
    QByteArray version; // "HTTP/1.1"
    HeaderList headers; // in order, names as the client spelled them
    QByteArray body;
    int connection = 0; // 1-based number of the connection it came on (keep-alive shows as reuse)

    // First value of a header, name compared case-insensitively; null when absent.
    QByteArray header(const QByteArray &name) const;
    bool hasHeader(const QByteArray &name) const;
};

class Response {
public:
    static Response bytes(QByteArray body, QByteArray contentType = QByteArrayLiteral("application/octet-stream"));
    // Streams a file from disk at request time (large payloads need not sit in memory).
    static Response file(QString path, QByteArray contentType = QByteArrayLiteral("application/octet-stream"));
    static Response htmlErrorPage(QByteArray title = QByteArrayLiteral("Not Found"));
    static Response redirect(const QUrl &to, int status = 302);
    static Response status(int code, QByteArray body = {});

    Response &throttle(qint64 bytesPerSecond);
    Response &dropAfter(qint64 bodyBytes);
    Response &announceLength(qint64 contentLength);
    Response &corruptAt(qint64 resourceOffset);
    Response &ignoreRange();
    Response &delayHeaders(std::chrono::milliseconds delay);
    Response &header(QByteArray name, QByteArray value);

    int statusCode() const { return m_status; }

private:
    friend class ServerConnection;
    int m_status = 200;
    QByteArray m_body;
    QString m_filePath;
    QByteArray m_contentType;
    HeaderList m_headers;
    bool m_honourRange = true;
    qint64 m_bytesPerSecond = 0;
    qint64 m_dropAfter = -1;
    qint64 m_announcedLength = -1;
    QList<qint64> m_corruptOffsets;
    std::chrono::milliseconds m_headerDelay{0};
};

namespace detail {
// Parses a request head (request line and header lines, without the blank line). Shared with
// the proxy.
bool parseRequestHead(const QByteArray &head, RecordedRequest *request);
} // namespace detail

// Decides the response to one request. hit counts this path's requests, from 1, so handlers can
// script "fail the first time, succeed the second".
using Handler = std::function<Response(const RecordedRequest &request, int hit)>;

class ServerWorker;
struct ServerShared;

class LoopbackServer final {
public:
    enum Scheme { Http, Https };

    explicit LoopbackServer(Scheme scheme = Http);
    ~LoopbackServer();
    Q_DISABLE_COPY_MOVE(LoopbackServer)

    // Listens on 127.0.0.1 on a free port. False (with the reason in errorString()) on failure.
    bool start();
    QString errorString() const;

    quint16 port() const;
    QByteArray hostAndPort() const; // "127.0.0.1:PORT"
    // "http(s)://127.0.0.1:PORT" + path; host "localhost" when asked (the certificate covers both).
    QUrl url(const QString &path = QStringLiteral("/"), const QString &host = QStringLiteral("127.0.0.1")) const;

    void route(const QByteArray &path, Response response);
    void handle(const QByteArray &path, Handler handler);
    void removeRoute(const QByteArray &path);

    QList<RecordedRequest> requests() const;
    QList<RecordedRequest> requests(const QByteArray &path) const;
    int hits(const QByteArray &path) const;
    // Body bytes this path's responses have sent so far, over all requests (HEAD sends none):
    // what a resumed download took from this server. clearRequests() resets it too.
    qint64 bodyBytesSent(const QByteArray &path) const;
    void clearRequests();
    int connectionCount() const;

    // HTTPS only: the generated CA (to trust explicitly) and the server certificate.
    QByteArray caCertificatePem() const;
    QByteArray serverCertificatePem() const;
    QSslCertificate caCertificate() const;
    // A client configuration trusting exactly the generated CA (no system roots).
    QSslConfiguration clientConfiguration() const;
    // Writes the CA PEM to a file (for curl's CAINFO or pip's --cert). False if it cannot.
    bool writeCaCertificate(const QString &path) const;

private:
    Scheme m_scheme;
    std::shared_ptr<ServerShared> m_shared;
    QThread m_thread;
    ServerWorker *m_worker = nullptr; // lives in m_thread
    quint16 m_port = 0;
    QString m_error;
};

// A loopback port nothing listens on (a server's, just closed): a connection there is refused.
quint16 closedLoopbackPort();

} // namespace tfsetup::test
