#include "support/httpclient.h"

#include <QCoro/QCoroAbstractSocket>
#include <QCoro/QCoroNetworkReply>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QTcpSocket>

#include <algorithm>
#include <memory>

namespace tfsetup::test {

QByteArray FetchResult::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QCoro::Task<FetchResult> fetch(QNetworkAccessManager *manager, QNetworkRequest request, bool head,
                               std::chrono::milliseconds timeout)
{
    FetchResult result;
    QElapsedTimer clock;
    clock.start();
    std::unique_ptr<QNetworkReply> reply(head ? manager->head(request) : manager->get(request));
    result.finished = co_await qCoro(reply.get()).waitForFinished(timeout);
    if (!result.finished)
        reply->abort();
    result.elapsedMs = clock.elapsed();
    result.error = reply->error();
    result.errorString = reply->errorString();
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->isOpen())
        result.body = reply->readAll();
    for (const auto &pair : reply->rawHeaderPairs())
        result.headers.append({pair.first, pair.second});
    co_return result;
}

QByteArray RawExchange::head() const
{
    const qsizetype end = received.indexOf("\r\n\r\n");
    return end < 0 ? received : received.left(end);
}

QByteArray RawExchange::body() const
{
    const qsizetype end = received.indexOf("\r\n\r\n");
    return end < 0 ? QByteArray() : received.mid(end + 4);
}

QCoro::Task<RawExchange> exchangeRaw(quint16 port, QByteArray request, std::chrono::milliseconds timeout)
{
    RawExchange result;
    QElapsedTimer clock;
    clock.start();
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    result.connected = co_await qCoro(socket).waitForConnected(timeout);
    if (!result.connected)
        co_return result;
    // Collect as data arrives; the coroutine frame owns both socket and result, so the capture
    // cannot outlive them.
    QObject::connect(&socket, &QIODevice::readyRead, &socket,
                     [&socket, &result] { result.received += socket.readAll(); });
    socket.write(request);
    const auto left = timeout - std::chrono::milliseconds(clock.elapsed());
    result.closedByServer = co_await qCoro(socket).waitForDisconnected(std::max(left, std::chrono::milliseconds(1)));
    result.received += socket.readAll();
    result.elapsedMs = clock.elapsed();
    co_return result;
}

} // namespace tfsetup::test
