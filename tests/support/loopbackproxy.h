#pragma once

// A minimal HTTP proxy on 127.0.0.1 for tests of proxy settings (students behind campus proxies).
//
//  - CONNECT host:port opens a tunnel (how clients reach https:// through a proxy).
//  - Absolute-form requests ("GET http://127.0.0.1:PORT/x HTTP/1.1") are forwarded, one per
//    connection: the proxy sends the request upstream with "Connection: close" and relays the
//    answer verbatim.
//  - requireBasicAuth(user, password): anything without the matching Proxy-Authorization gets
//    407 with "Proxy-Authenticate: Basic".
//  - Only loopback targets (127.0.0.1, localhost) are reached; others get 403, so a test that
//    forgot a URL cannot leak onto the internet.
//  - mapHost("nvidia.invalid", port): requests for that name (any port) go to 127.0.0.1:port. Such
//    names resolve nowhere (RFC 2606), so an origin named so is reachable only through this proxy,
//    and a client that bypassed it fails instead of passing unnoticed.
// Like LoopbackServer it runs in its own QThread; the log and settings are thread-safe.

#include "support/loopbackserver.h"

#include <QByteArray>
#include <QList>
#include <QThread>

#include <memory>

namespace tfsetup::test {

struct ProxyShared;
class ProxyWorker;

class LoopbackProxy final {
public:
    LoopbackProxy();
    ~LoopbackProxy();
    Q_DISABLE_COPY_MOVE(LoopbackProxy)

    bool start();
    QString errorString() const;
    quint16 port() const;
    // "http://127.0.0.1:PORT", the form HTTP_PROXY / HTTPS_PROXY / curl's CURLOPT_PROXY take.
    QByteArray proxyUrl() const;

    void requireBasicAuth(const QByteArray &user, const QByteArray &password);
    void mapHost(const QString &name, quint16 port);

    // Each request head the proxy received: method "CONNECT" with target "host:port", or the
    // forwarded method with its absolute-form target. Rejected requests are logged too.
    QList<RecordedRequest> requests() const;
    int tunnelCount() const;  // CONNECT tunnels opened
    int forwardCount() const; // absolute-form requests forwarded

private:
    std::shared_ptr<ProxyShared> m_shared;
    QThread m_thread;
    ProxyWorker *m_worker = nullptr;
    quint16 m_port = 0;
    QString m_error;
};

} // namespace tfsetup::test
