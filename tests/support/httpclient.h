#pragma once

// Small awaitable clients for tests that talk to LoopbackServer / LoopbackProxy: one through
// QNetworkAccessManager (what Qt code meets), one over a raw socket (exact bytes on the wire,
// including malformed framing a real client would hide). Every await has a timeout.

#include <QByteArray>
#include <QCoro/QCoroTask>
#include <QList>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QString>

#include <chrono>
#include <utility>

class QNetworkAccessManager;

namespace tfsetup::test {

struct FetchResult {
    bool finished = false; // false: the timeout hit first (the reply was aborted)
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;
    int status = 0;  // HTTP status of the final response, 0 when none
    QByteArray body; // everything received, also on error
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray header(const QByteArray &name) const;
    qint64 elapsedMs = 0;
};

// GET (or HEAD when head is true) through the manager; the request is used as given (set its
// sslConfiguration to trust a test CA, its redirect policy, …).
QCoro::Task<FetchResult> fetch(QNetworkAccessManager *manager, QNetworkRequest request, bool head = false,
                               std::chrono::milliseconds timeout = std::chrono::seconds(5));

struct RawExchange {
    bool connected = false;
    bool closedByServer = false; // false: the timeout hit with the connection still open
    QByteArray received;         // every byte the server sent
    qint64 elapsedMs = 0;
    // The first response in received, split at the blank line.
    QByteArray head() const;
    QByteArray body() const;
};

// Connects to 127.0.0.1:port over plain TCP, sends request verbatim and collects what comes back
// until the server closes the connection or the timeout passes.
QCoro::Task<RawExchange> exchangeRaw(quint16 port, QByteArray request,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(5));

} // namespace tfsetup::test
