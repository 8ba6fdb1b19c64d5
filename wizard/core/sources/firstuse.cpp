#include "sources/firstuse.h"

#include "fetch/checksum.h"
#include "fetch/downloadcache.h"

#include <QCoro/QCoroFuture>
#include <QCoro/QCoroIODevice>
#include <QCoro/QCoroNetworkReply>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

bool cancelled(const FirstUseOptions &options)
{
    return options.cancel && options.cancel->load();
}

Error cancelledError(const QString &file)
{
    return Error{QStringLiteral("cancelled"), FirstUse::tr("The download of %1 was cancelled.").arg(file), {}};
}

} // namespace

bool FirstUse::acceptsUrl(const QUrl &url, bool official)
{
    if (url.scheme() == u"https")
        return true;
    if (url.scheme() != u"http")
        return false;
    const QHostAddress host(url.host());
    return !official || url.host() == u"localhost" || (!host.isNull() && host.isLoopback());
}

QCoro::Task<Result<FirstUseFile>> FirstUse::fetch(Artifact artifact, QString destination, FirstUseOptions options)
{
    const QString file = artifact.fileName().isEmpty() ? artifact.name : artifact.fileName();
    QDir().mkpath(QFileInfo(destination).absolutePath());
    QStringList tried;
    for (qsizetype i = 0; i < artifact.urls.size(); ++i) {
        if (cancelled(options))
            co_return cancelledError(file);
        const QUrl url = artifact.urls.at(i);
        if (url.isLocalFile()) {
            // A lab share or a bundle folder: hashed off the GUI thread, then copied.
            const QString path = url.toLocalFile();
            if (!QFileInfo(path).isFile())
                continue;
            // Named future: GCC 12 mishandles temporaries (a lambda) inside a co_await expression.
            QFuture<Result<QByteArray>> hashing =
                QtConcurrent::run([path] { return hashFile(Checksum::Algorithm::Sha256, path); });
            const Result<QByteArray> digest = co_await hashing;
            if (!digest) {
                tried.append(path + QStringLiteral(": ") + digest.error().detail);
                continue;
            }
            if (const Status s = placeFile(path, destination, false); !s) {
                tried.append(path + QStringLiteral(": ") + s.error().detail);
                continue;
            }
            co_return FirstUseFile{destination, QString::fromLatin1(*digest), QFileInfo(destination).size(), url};
        }
        if (!acceptsUrl(url, i == artifact.urls.size() - 1)) {
            tried.append(url.toString() + QStringLiteral(": not https, not asked"));
            continue;
        }
        auto fetched = co_await fetchRemote(url, destination, options);
        if (fetched)
            co_return fetched;
        if (fetched.error().code == u"cancelled")
            co_return cancelledError(file);
        tried.append(fetched.error().detail);
    }
    co_return Error{QStringLiteral("download_failed"),
                    tr("%1 could not be downloaded from any source. Check the connection and the mirrors.").arg(file),
                    tried.join(u'\n')};
}

QCoro::Task<Result<FirstUseFile>> FirstUse::fetchRemote(QUrl url, QString destination, FirstUseOptions options)
{
    QNetworkAccessManager network;
    if (!options.proxy.isEmpty()) {
        const QUrl proxy(options.proxy);
        const bool socks = proxy.scheme().startsWith(u"socks");
        network.setProxy(QNetworkProxy(socks ? QNetworkProxy::Socks5Proxy : QNetworkProxy::HttpProxy, proxy.host(),
                                       quint16(proxy.port(socks ? 1080 : 8080)), proxy.userName(), proxy.password()));
    }
    QNetworkRequest request(url);
    // Never from https down to http on a redirect.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    if (!options.caBundle.isEmpty()) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.addCaCertificates(QSslCertificate::fromPath(options.caBundle));
        request.setSslConfiguration(ssl);
    }
    std::unique_ptr<QNetworkReply> reply(network.get(request));
    const QString part = destination + QStringLiteral(".part");
    QFile out(part);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        co_return Error{QStringLiteral("write_failed"), {}, part + QStringLiteral(": ") + out.errorString()};
    Hasher hasher(Checksum::Algorithm::Sha256);
    // Short waits, so a cancel is seen quickly; the stall timeout counts only waits without data.
    constexpr std::chrono::milliseconds slice{200};
    std::chrono::milliseconds idle{0};
    while (true) {
        const QByteArray chunk = reply->readAll();
        if (!chunk.isEmpty()) {
            hasher.addData(chunk);
            if (out.write(chunk) != chunk.size()) {
                reply->abort();
                out.remove();
                co_return Error{QStringLiteral("write_failed"), {}, part + QStringLiteral(": ") + out.errorString()};
            }
            idle = std::chrono::milliseconds(0);
        }
        if (reply->isFinished() && reply->bytesAvailable() == 0)
            break;
        if (cancelled(options)) {
            reply->abort();
            out.remove();
            co_return Error{QStringLiteral("cancelled"), {}, url.toString()};
        }
        if (idle >= options.stallTimeout) {
            reply->abort();
            out.remove();
            co_return Error{QStringLiteral("timeout"), {}, url.toString() + QStringLiteral(": stalled")};
        }
        if (!co_await qCoro(reply.get()).waitForReadyRead(slice) && !reply->isFinished())
            idle += slice;
    }
    out.close();
    if (reply->error() != QNetworkReply::NoError) {
        out.remove();
        co_return Error{QStringLiteral("download_failed"), {}, url.toString() + QStringLiteral(": ") + reply->errorString()};
    }
    const QString contentType = reply->header(QNetworkRequest::ContentTypeHeader).toString();
    if (contentType.startsWith(QStringLiteral("text/html"))) {
        out.remove();
        co_return Error{QStringLiteral("html_page"), {}, url.toString() + QStringLiteral(": an HTML page, not the file")};
    }
    if (const Status s = placeFile(part, destination, true); !s)
        co_return s.error();
    co_return FirstUseFile{destination, QString::fromLatin1(hasher.finalHex()), QFileInfo(destination).size(), url};
}

} // namespace tfsetup::core
