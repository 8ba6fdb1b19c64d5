#include "fetch/downloader.h"

#include "fetch/curltransfer.h"
#include "fetch/networkerror.h"
#include "util/handover.h"

#include <QCoro/QCoroFuture>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>
#include <QPointer>
#include <QRegularExpression>
#include <QThread>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

struct Downloader::Outcome {
    enum class Kind { Ok, Cancelled, LocalFailure, AllMirrorsFailed, Mismatch, BadRequest };
    Kind kind = Kind::AllMirrorsFailed;
    DownloadResult result;
    QString code;
    QString detail;
    QString quarantined;     // where a file that failed verification was put
    QByteArray actualDigest; // of that file
    QStringList mirrorErrors;
};

Downloader::Downloader(TransferOptions options, DownloadCache cache, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_cache(std::move(cache))
    , m_connections(m_maxConnections)
{
    m_pool.setMaxThreadCount(3);
}

Downloader::~Downloader()
{
    cancelAll();
    m_pool.waitForDone();
}

void Downloader::setMaxParallel(int downloads)
{
    m_pool.setMaxThreadCount(std::max(1, downloads));
}

void Downloader::setMaxConnections(int connections)
{
    connections = std::max(1, connections);
    if (connections > m_maxConnections)
        m_connections.release(connections - m_maxConnections);
    else if (connections < m_maxConnections)
        m_connections.acquire(m_maxConnections - connections);
    m_maxConnections = connections;
}

QString Downloader::partPathFor(const QString &destination)
{
    return destination + QLatin1String(".part");
}

Status Downloader::parseSpeedFloor(const QString &text, TransferOptions *options)
{
    static const QRegularExpression form(QStringLiteral("^\\s*(\\d{1,12})([kKmM]?)\\s*(?::\\s*(\\d{1,6})\\s*)?$"));
    const QRegularExpressionMatch m = form.match(text);
    const qint64 seconds = m.hasMatch() && m.hasCaptured(3) ? m.captured(3).toLongLong() : -1;
    if (!m.hasMatch() || seconds == 0) {
        return Error{
            QStringLiteral("usage"),
            tr("\"%1\" is not a speed floor. Give the lowest acceptable speed in bytes per second, "
               "optionally with k or M and a number of seconds: 10k:60 drops a mirror that stays below 10 KiB/s "
               "for a minute; 0 turns the floor off.")
                .arg(text),
            {}};
    }
    const QString unit = m.captured(2).toLower();
    const qint64 scale = unit == u"k" ? 1024 : (unit == u"m" ? 1024 * 1024 : 1);
    options->lowSpeedBytesPerSecond = m.captured(1).toLongLong() * scale;
    if (seconds > 0)
        options->lowSpeedTime = std::chrono::seconds(seconds);
    return Ok{};
}

void Downloader::cancel(const QString &name)
{
    if (auto flag = m_cancelFlags.value(name))
        flag->store(true);
}

void Downloader::cancelAll()
{
    for (const auto &flag : std::as_const(m_cancelFlags))
        flag->store(true);
}

void Downloader::reportProgress(const DownloadProgress &p)
{
    QMetaObject::invokeMethod(
        this, [this, p] { Q_EMIT progress(p); }, Qt::QueuedConnection);
}

Downloader::Outcome Downloader::runJob(const DownloadRequest &request, const std::atomic<bool> &cancel)
{
    using Kind = Outcome::Kind;
    using AttemptOutcome = TransferAttemptResult::Outcome;
    Outcome out;
    DownloadProgress progress;
    progress.name = request.name;
    progress.total = request.expectedSize;

    // Already there and intact: nothing to fetch.
    if (QFileInfo(request.destination).isFile()) {
        progress.stage = DownloadProgress::Stage::Verifying;
        reportProgress(progress);
        auto digest = hashFile(request.checksum.algorithm, request.destination, &cancel);
        if (digest && *digest == request.checksum.hex) {
            out.kind = Kind::Ok;
            out.result = {
                request.destination, QFileInfo(request.destination).size(), {}, true, request.checksum.isWeak()};
            return out;
        }
    }
    // One process fetches a file into a shared cache; the others wait for it here.
    std::unique_ptr<QLockFile> cacheLock;
    if (m_cache.isEnabled() && !QFileInfo::exists(m_cache.pathFor(request.checksum))) {
        progress.stage = DownloadProgress::Stage::Waiting;
        reportProgress(progress);
        cacheLock = m_cache.lock(request.checksum, &cancel, m_options.cacheLockPatience);
        if (cancel.load()) {
            out.kind = Kind::Cancelled;
            return out;
        }
    }
    // In the cache: verified again on the way out.
    auto cached = m_cache.takeOut(request.checksum, request.destination, &cancel);
    if (cached && *cached) {
        out.kind = Kind::Ok;
        out.result = {request.destination, QFileInfo(request.destination).size(), {}, true, request.checksum.isWeak()};
        return out;
    }
    if (!cached)
        out.mirrorErrors.append(cached.error().message + u' ' + cached.error().detail); // names the cached file

    const QString part = partPathFor(request.destination);
    int segments = std::clamp(request.segments, 1, m_maxConnections);
    QList<QUrl> mirrors = m_options.probeMirrors ? orderMirrorsByLatency(request.urls, m_options, m_options.probeBudget)
                                                 : request.urls;
    // A mirror below the speed floor is dropped while another source is left to try; it comes
    // back once, last, should every other one fail, and the last source left is resumed rather
    // than dropped. Every move keeps the bytes already in the part file.
    QList<QUrl> requeued;
    qint64 furthest = 0; // the most of the file the part file ever held in this fetch
    for (qsizetype index = 0; index < mirrors.size(); ++index) {
        const QUrl url = mirrors.at(index);
        progress.mirror = url;
        progress.note.clear();
        int retries = 0;
        for (;;) {
            if (cancel.load()) {
                out.kind = Kind::Cancelled;
                return out;
            }
            // The global connection limit: wait for as many as this transfer will open.
            while (!m_connections.tryAcquire(segments, 100)) {
                if (cancel.load()) {
                    out.kind = Kind::Cancelled;
                    return out;
                }
            }
            progress.stage = DownloadProgress::Stage::Downloading;
            QElapsedTimer clock;
            clock.start();
            qint64 lastBytes = -1;
            qint64 lastMs = 0;
            double rate = 0;
            const TransferAttemptResult r = runTransferAttempt(
                url, part, request.expectedSize, segments, request.checksum.algorithm, m_options, cancel,
                [&](qint64 received, qint64 total) {
                    const qint64 now = clock.elapsed();
                    if (lastBytes >= 0 && now > lastMs) {
                        const double instant = double(received - lastBytes) * 1000.0 / double(now - lastMs);
                        rate = rate <= 0 ? instant : 0.7 * rate + 0.3 * instant;
                    }
                    lastBytes = received;
                    lastMs = now;
                    progress.received = received;
                    progress.total = total;
                    progress.bytesPerSecond = rate;
                    reportProgress(progress);
                });
            m_connections.release(segments);

            switch (r.outcome) {
            case AttemptOutcome::Complete: {
                const bool sizeOk = request.expectedSize < 0 || r.totalSize == request.expectedSize;
                if (r.digest == request.checksum.hex && sizeOk) {
                    const Status placed = placeFile(part, request.destination, true);
                    if (!placed) {
                        out.kind = Kind::LocalFailure;
                        out.code = placed.error().code;
                        out.detail = placed.error().detail;
                        return out;
                    }
                    m_cache.putIn(request.checksum, request.destination);
                    out.kind = Kind::Ok;
                    out.result = {request.destination, r.totalSize, url, false, request.checksum.isWeak()};
                    return out;
                }
                out.kind = Kind::Mismatch;
                out.actualDigest = r.digest;
                QFile::remove(part + QLatin1String(".state"));
                out.quarantined = quarantineFile(part);
                out.mirrorErrors.append(QStringLiteral("%1: checksum mismatch (got %2)")
                                            .arg(url.toDisplayString(), QString::fromLatin1(r.digest)));
                break;
            }
            case AttemptOutcome::Transient:
                // Progress is a part file reaching further than ever before in this fetch (not
                // bytes that went over the network: those may have been thrown away).
                if (r.keptBytes >= furthest + m_options.progressBytes) {
                    furthest = r.keptBytes;
                    retries = 0; // the next drop is the first in a row again
                }
                if (++retries <= m_options.retriesPerMirror) {
                    // Back off a little, then resume from where the bytes stopped.
                    for (int i = 0; i < retries * 5 && !cancel.load(); ++i)
                        QThread::msleep(100);
                    continue;
                }
                out.mirrorErrors.append(QStringLiteral("%1: %2 (%3)").arg(url.toDisplayString(), r.code, r.detail));
                out.code = r.code;
                out.detail = r.detail;
                break;
            case AttemptOutcome::RangeUnsupported: segments = 1; continue;
            case AttemptOutcome::MirrorFailed:
                if (r.code == u"too_slow") {
                    const bool othersLeft = index + 1 < mirrors.size();
                    if (!othersLeft && retries < m_options.retriesPerMirror) {
                        ++retries;
                        progress.note = tr("%1 comes too slowly from %2 (below %3/s for %4 s), and no other source is "
                                           "left: it goes on from there, keeping the %5 already downloaded.")
                                            .arg(request.name, url.toDisplayString(QUrl::RemoveUserInfo),
                                                 QLocale().formattedDataSize(m_options.lowSpeedBytesPerSecond))
                                            .arg(m_options.lowSpeedTime.count())
                                            .arg(QLocale().formattedDataSize(progress.received));
                        qInfo().noquote() << "download:" << progress.note + QStringLiteral(" (") + r.detail + u')';
                        reportProgress(progress);
                        progress.note.clear();
                        continue;
                    }
                    if (othersLeft) {
                        progress.note =
                            tr("%1 came too slowly from %2 (below %3/s for %4 s), so that mirror was "
                               "dropped; the download continues from %5, keeping the %6 already downloaded.")
                                .arg(request.name, url.toDisplayString(QUrl::RemoveUserInfo),
                                     QLocale().formattedDataSize(m_options.lowSpeedBytesPerSecond))
                                .arg(m_options.lowSpeedTime.count())
                                .arg(mirrors.at(index + 1).toDisplayString(QUrl::RemoveUserInfo),
                                     QLocale().formattedDataSize(progress.received));
                        qInfo().noquote() << "download:" << progress.note + QStringLiteral(" (") + r.detail + u')';
                        reportProgress(progress);
                        if (!requeued.contains(url)) {
                            requeued.append(url);
                            mirrors.append(url);
                        }
                    }
                }
                out.mirrorErrors.append(QStringLiteral("%1: %2 (%3)").arg(url.toDisplayString(), r.code, r.detail));
                out.code = r.code;
                out.detail = r.detail;
                break;
            case AttemptOutcome::LocalFailure:
                out.kind = Kind::LocalFailure;
                out.code = r.code;
                out.detail = r.detail;
                return out;
            case AttemptOutcome::Cancelled: out.kind = Kind::Cancelled; return out;
            }
            break; // next mirror
        }
    }
    if (out.kind != Kind::Mismatch)
        out.kind = Kind::AllMirrorsFailed;
    return out;
}

QCoro::Task<Result<DownloadResult>> Downloader::fetch(DownloadRequest request)
{
    if (request.urls.isEmpty() || !request.checksum.isValid() || request.destination.isEmpty()) {
        co_return Error{
            QStringLiteral("bad_request"),
            tr("The download of %1 is missing its address, its checksum or its destination.").arg(request.name),
            {}};
    }
    // A relative destination would land (and be quarantined) wherever the process happens to run.
    if (QFileInfo(request.destination).isRelative()) {
        co_return Error{QStringLiteral("bad_request"),
                        tr("The download of %1 has no full path to be saved at (\"%2\"). Give the whole path of "
                           "the file, starting from the top of the disk.")
                            .arg(request.name.isEmpty() ? request.destination : request.name, request.destination),
                        {}};
    }
    if (request.name.isEmpty())
        request.name = QFileInfo(request.destination).fileName();
    auto flag = std::make_shared<std::atomic<bool>>(false);
    m_cancelFlags.insert(request.name, flag);

    QPointer<Downloader> self(this);
    // The future is a named local: g++ 12 destroys temporaries inside a co_await expression twice.
    QFuture<Outcome> job = QtConcurrent::run(&m_pool, [this, request, flag] {
        Outcome done = runJob(request, *flag);
        TFSETUP_HANDOVER_RELEASE(flag.get());
        return done;
    });
    const Outcome out = co_await job;
    TFSETUP_HANDOVER_ACQUIRE(flag.get());
    if (!self)
        co_return Error{QStringLiteral("cancelled"), tr("The download was cancelled."), {}};
    m_cancelFlags.remove(request.name);

    DownloadProgress done;
    done.name = request.name;
    done.total = request.expectedSize;
    done.received = out.kind == Outcome::Kind::Ok ? out.result.bytes : 0;
    done.stage = out.kind == Outcome::Kind::Ok ? DownloadProgress::Stage::Done : DownloadProgress::Stage::Failed;
    Q_EMIT progress(done);

    const QString dest = QDir::toNativeSeparators(request.destination);
    switch (out.kind) {
    case Outcome::Kind::Ok: co_return out.result;
    case Outcome::Kind::Cancelled:
        co_return Error{
            QStringLiteral("cancelled"),
            tr("The download of %1 was stopped. What arrived is kept; starting it again resumes it.").arg(request.name),
            {}};
    case Outcome::Kind::LocalFailure:
        if (out.code == u"disk_full") {
            co_return Error{out.code,
                            tr("The disk is full while saving %1. Free some space (it needs %2 MB) or choose another "
                               "folder, then try again; the download resumes.")
                                .arg(dest)
                                .arg(request.expectedSize > 0 ? request.expectedSize / (1024 * 1024) : 0),
                            out.detail};
        }
        if (out.code == u"permission_denied") {
            co_return Error{
                out.code,
                tr("You may not write to the folder of %1. Choose a folder in your own user folder.").arg(dest),
                out.detail};
        }
        co_return Error{out.code, tr("Saving %1 failed. Check the disk and the folder's permissions.").arg(dest),
                        out.detail};
    case Outcome::Kind::Mismatch:
        co_return Error{QStringLiteral("checksum_mismatch"),
                        tr("%1 does not match its official %2 checksum, so it was not used. The bad file was set aside "
                           "as %3. Try again later or another mirror; if it keeps happening, something between you and "
                           "the server changes the file.")
                            .arg(request.name, request.checksum.algorithmName().toUpper(),
                                 QDir::toNativeSeparators(out.quarantined)),
                        out.mirrorErrors.join(u'\n')};
    case Outcome::Kind::BadRequest:
    case Outcome::Kind::AllMirrorsFailed: break;
    }
    // The cause in words and the next step, as for every other request (networkerror.h).
    QString message;
    if (out.code.isEmpty() || out.code == u"network") {
        message = tr("%1 could not be downloaded from any mirror.").arg(request.name);
    } else {
        static const QRegularExpression httpStatus(QStringLiteral("HTTP (\\d{3})"));
        const QRegularExpressionMatch m = httpStatus.match(out.detail);
        message = NetworkError::message(out.code, m.hasMatch() ? m.captured(1).toInt() : 0, request.name, out.detail);
    }
    co_return Error{out.code.isEmpty() ? QStringLiteral("download_failed") : out.code, message,
                    out.mirrorErrors.join(u'\n')};
}

} // namespace tfsetup::core
