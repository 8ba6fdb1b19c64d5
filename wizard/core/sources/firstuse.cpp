#include "sources/firstuse.h"

#include "fetch/checksum.h"
#include "fetch/curltransfer.h"
#include "fetch/downloadcache.h"
#include "fetch/networkerror.h"

#include <QCoro/QCoroFuture>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QThreadPool>
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
    QString cause; // the last source's failure, in words
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
            QFuture<Result<QByteArray>> hashing = QtConcurrent::run(
                [path] { return hashFile(Checksum::Algorithm::Sha256, path); });
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
        cause = fetched.error().message;
    }
    co_return Error{QStringLiteral("download_failed"),
                    tr("%1 could not be downloaded from any source.").arg(file) + u' '
                        + (cause.isEmpty() ? tr("Check the connection and the mirrors.") : cause),
                    tried.join(u'\n')};
}

QCoro::Task<Result<FirstUseFile>> FirstUse::fetchRemote(QUrl url, QString destination, FirstUseOptions options)
{
    // The Downloader's own transfer (fetch/curltransfer.h): the same proxy and CA settings, https
    // never redirected to http, a web page refused where the file was expected, and resumable:
    // what arrived stays in DESTINATION.part (with its state), and the next fetch continues it.
    TransferOptions transfer = options.transfer;
    transfer.stallTimeout = std::max(std::chrono::seconds(1),
                                     std::chrono::duration_cast<std::chrono::seconds>(options.stallTimeout));
    transfer.connectTimeout = std::min(transfer.connectTimeout,
                                       std::max(transfer.stallTimeout, std::chrono::seconds(5)));
    const QString part = destination + QStringLiteral(".part");
    std::shared_ptr<const std::atomic<bool>> cancel = options.cancel;
    if (!cancel)
        cancel = std::make_shared<const std::atomic<bool>>(false);
    // One worker of its own: a transfer may take minutes, the global pool's threads are few.
    auto worker = std::make_shared<QThreadPool>();
    worker->setMaxThreadCount(1);
    QFuture<TransferAttemptResult> running = QtConcurrent::run(worker.get(), [url, part, transfer, cancel] {
        TransferAttemptResult r;
        for (int attempt = 0; attempt <= transfer.retriesPerMirror; ++attempt) {
            r = runTransferAttempt(url, part, -1, 1, Checksum::Algorithm::Sha256, transfer, *cancel, {});
            if (r.outcome != TransferAttemptResult::Outcome::Transient || r.networkBytes == 0)
                break; // resume only what made progress: a silent server stays silent
        }
        return r;
    });
    const TransferAttemptResult r = co_await running;
    using Outcome = TransferAttemptResult::Outcome;
    if (r.outcome != Outcome::Complete) {
        // Nothing to resume from: leave nothing behind.
        if (QFileInfo(part).size() == 0 || r.outcome == Outcome::MirrorFailed)
            discardPartial(part);
        if (r.outcome == Outcome::Cancelled)
            co_return Error{QStringLiteral("cancelled"), {}, url.toString()};
        const QString why = r.code == u"timeout" ? QStringLiteral("stalled (%1)").arg(r.detail)
                                                 : r.code + QStringLiteral(": ") + r.detail;
        co_return Error{r.code, NetworkError::message(r.code, r.httpStatus, url.fileName(), r.detail),
                        url.toString() + QStringLiteral(": ") + why};
    }
    if (const Status s = placeFile(part, destination, true); !s)
        co_return s.error();
    co_return FirstUseFile{destination, QString::fromLatin1(r.digest), QFileInfo(destination).size(), url};
}

} // namespace tfsetup::core
