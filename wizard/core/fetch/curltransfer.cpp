#include "fetch/curltransfer.h"

#include "fetch/httpclient.h"
#include "util/confined.h"
#include "util/inputfile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkProxyFactory>

#include <curl/curl.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

namespace tfsetup::core {

namespace {

using Outcome = TransferAttemptResult::Outcome;

void ensureCurlGlobalInit()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Hashes the part file in order, on a thread of its own, up to the watermark: the end of the bytes
// written without a gap from the start. The transfer loop only writes and moves the watermark, so
// hashing is off its critical path (SHA-256 at its fastest costs about as much CPU as receiving
// and writing). Bytes that extend the watermark as they are written are handed over as a copy
// (a memcpy, far cheaper than the hash), up to a bound; everything else (bytes a later segment
// wrote before the earlier ones got there, bytes an earlier attempt left, a hasher that fell
// behind the bound) is read back from the part file, i.e. from the page cache the writes just
// filled, through the transfer's own reading handle.
class OrderedHasher {
public:
    OrderedHasher(Checksum::Algorithm algorithm, QFile &reader)
        : m_algorithm(algorithm)
        , m_reader(reader)
        , m_hasher(algorithm)
    {}
    ~OrderedHasher() { stop(); }
    Q_DISABLE_COPY_MOVE(OrderedHasher)

    // The first `watermark` bytes of the file are written; data/size, when given, are the last
    // `size` of them, still in memory.
    void advanceTo(qint64 watermark, const char *data = nullptr, qint64 size = 0)
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            if (watermark <= m_watermark)
                return;
            if (data && size > 0 && watermark - size == m_watermark && m_queuedBytes + size <= kMaxQueued) {
                // A spare buffer from the pool: no allocation per piece.
                QByteArray bytes;
                if (!m_spare.empty()) {
                    bytes = std::move(m_spare.back());
                    m_spare.pop_back();
                }
                bytes.resize(qsizetype(size));
                memcpy(bytes.data(), data, size_t(size));
                m_queue.push_back({m_watermark, std::move(bytes)});
                m_queuedBytes += size;
            }
            m_watermark = watermark;
            if (!m_thread.joinable())
                m_thread = std::thread([this] { run(); });
        }
        wakeIfDue();
    }

    // The file starts over from its first byte (a server that ignored Range on a resume).
    void restart()
    {
        stop();
        m_hasher = Hasher(m_algorithm);
        m_hashed = 0;
        m_watermark = 0;
        m_queue.clear();
        m_queuedBytes = 0;
        m_stopping = false;
        m_flush = false;
    }

    // Waits until the first `end` bytes are hashed and returns their digest; empty when the
    // file could not be read (*error says why) or `cancel` was set meanwhile.
    QByteArray finish(qint64 end, const std::atomic<bool> &cancel, QString *error)
    {
        advanceTo(end);
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_flush = true;
            m_wake.notify_all();
            while (m_hashed < end && m_error.isNull() && !cancel.load(std::memory_order_relaxed))
                m_done.wait_for(lock, std::chrono::milliseconds(100));
            if (m_hashed < end) {
                *error = m_error.isNull() ? QStringLiteral("cancelled") : m_error;
                return {};
            }
        }
        stop();
        return m_hasher.finalHex();
    }

private:
    static constexpr qint64 kMaxQueued = 4 * 1024 * 1024;
    // The thread is woken for this much at a time, not for every piece: a wake-up per piece
    // costs more in context switches than the hash it moves off the transfer's thread.
    static constexpr qint64 kWakeBytes = 2 * 1024 * 1024;

    bool due() const
    {
        return m_stopping || (m_hashed < m_watermark && (m_flush || m_watermark - m_hashed >= kWakeBytes));
    }

    void wakeIfDue()
    {
        bool wake = false;
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            wake = m_sleeping && due();
        }
        if (wake)
            m_wake.notify_all();
    }

    void stop()
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable())
            m_thread.join();
    }

    void run()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_sleeping = true;
            m_wake.wait(lock, [this] { return due(); });
            m_sleeping = false;
            // Everything there is, then sleep again.
            while (!m_stopping && m_hashed < m_watermark) {
                if (!hashSome(lock))
                    return;
            }
            if (m_stopping)
                return;
        }
    }

    // Hashes the next piece after m_hashed (called with the lock held; drops it meanwhile).
    bool hashSome(std::unique_lock<std::mutex> &lock)
    {
        while (!m_queue.empty() && m_queue.front().offset + m_queue.front().bytes.size() <= m_hashed) {
            m_queuedBytes -= m_queue.front().bytes.size();
            m_queue.pop_front();
        }
        const qint64 from = m_hashed;
        if (!m_queue.empty() && m_queue.front().offset == from) {
            QByteArray piece = std::move(m_queue.front().bytes);
            m_queue.pop_front();
            m_queuedBytes -= piece.size();
            lock.unlock();
            m_hasher.addData(piece);
            lock.lock();
            m_hashed = from + piece.size();
            m_spare.push_back(std::move(piece));
            m_done.notify_all();
            return true;
        }
        // From the file, up to the next piece in memory (or the watermark).
        qint64 until = m_watermark;
        if (!m_queue.empty())
            until = std::min(until, m_queue.front().offset);
        const qint64 want = std::min<qint64>(until - from, kReadChunk);
        if (m_buffer.size() < kReadChunk)
            m_buffer.resize(kReadChunk);
        lock.unlock();
        // Only this thread reads through the handle, and only while it runs. Seeking each time
        // keeps a read from ever using bytes buffered before they were written.
        const qint64 n = m_reader.seek(from) ? m_reader.read(m_buffer.data(), want) : -1;
        if (n > 0)
            m_hasher.addData(m_buffer.constData(), n);
        lock.lock();
        if (n <= 0) {
            m_error = m_reader.errorString().isEmpty() ? QStringLiteral("the part file ended early")
                                                       : m_reader.errorString();
            m_done.notify_all();
            return false;
        }
        m_hashed = from + n;
        m_done.notify_all();
        return true;
    }

    static constexpr qint64 kReadChunk = 1 << 20;
    struct Piece {
        qint64 offset;
        QByteArray bytes;
    };
    Checksum::Algorithm m_algorithm;
    QFile &m_reader;
    Hasher m_hasher;     // the thread's while it runs
    QByteArray m_buffer; // likewise
    std::mutex m_mutex;  // guards everything below
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<Piece> m_queue;
    std::vector<QByteArray> m_spare;
    qint64 m_queuedBytes = 0;
    qint64 m_watermark = 0;
    qint64 m_hashed = 0;
    bool m_stopping = false;
    bool m_flush = false;    // finish() waits: hash whatever there is
    bool m_sleeping = false; // the thread waits for m_wake
    QString m_error;
    std::thread m_thread;
};

struct Segment {
    qint64 start = 0;
    qint64 end = -1; // exclusive; -1 while the total size is unknown
    qint64 written = 0;
    // Per-connection state.
    CURL *easy = nullptr;
    qint64 connectionFrom = 0; // where this connection's request started
    struct Job *job = nullptr;
    bool validated = false;
    qint64 contentRangeStart = -1;
    qint64 contentRangeTotal = -1;
    CURLcode result = CURLE_OK;
    bool finished = false;
    // Another connection took over the second half of this range: stop at the new end.
    bool shortened = false;
    char errorBuffer[CURL_ERROR_SIZE] = {};

    qint64 length() const { return end < 0 ? -1 : end - start; }
    bool complete() const { return end >= 0 && written >= end - start; }
    qint64 requestOffset() const { return start + written; }
};

struct Job {
    QUrl url;
    QString partPath;
    qint64 expectedSize = -1;
    qint64 total = -1;
    // Without a known size the first response tells it; the rest is then split (aria2c's way).
    int wantedSegments = 1;
    bool splitPending = false;
    Checksum::Algorithm algorithm;
    QFile file;
    QFile reader; // the hasher's handle
    OrderedHasher hasher;
    // A list: curl keeps pointers to segments, and a finished connection may split a running
    // segment (work stealing) while the others are in flight.
    std::list<Segment> segments;
    const std::atomic<bool> *cancel = nullptr;
    qint64 networkBytes = 0;
    bool aborted = false;
    TransferAttemptResult failure;

    explicit Job(Checksum::Algorithm a)
        : algorithm(a)
        , hasher(a, reader)
    {}

    void fail(Outcome outcome, QString code, QString detail, int status = 0)
    {
        if (aborted)
            return;
        aborted = true;
        failure.outcome = outcome;
        failure.code = std::move(code);
        failure.detail = std::move(detail);
        failure.httpStatus = status;
    }

    qint64 received() const
    {
        qint64 sum = 0;
        for (const Segment &s : segments)
            sum += s.written;
        return sum;
    }

    // The end of the bytes written without a gap from the start (segments are in file order).
    qint64 contiguousEnd() const
    {
        qint64 end = 0;
        for (const Segment &s : segments) {
            if (s.start != end)
                break;
            end = s.start + s.written;
            if (!s.complete())
                break;
        }
        return end;
    }
};

QString statePath(const QString &partPath)
{
    return partPath + QLatin1String(".state");
}

void saveState(const Job &job)
{
    QJsonArray segs;
    for (const Segment &s : job.segments)
        segs.append(QJsonArray{double(s.start), double(s.end), double(s.written)});
    QJsonObject o{{QStringLiteral("total"), double(job.total)},
                  {QStringLiteral("algorithm"),
                   job.algorithm == Checksum::Algorithm::Sha256 ? QStringLiteral("sha256") : QStringLiteral("md5")},
                  {QStringLiteral("segments"), segs}};
    // Beside the part file, replaced in one step; a link planted at its name is refused.
    (void)writeUserFile(statePath(job.partPath), QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// Restores segments from an earlier attempt when they describe the same file; otherwise plans
// fresh segments. The part file is trusted only as far as the state says it was written.
void planSegments(Job &job, int wantedSegments, qint64 minSegmentBytes)
{
    const qint64 partSize = QFileInfo(job.partPath).size();
    if (const auto state = readInputFile(statePath(job.partPath), QStringLiteral("download state"), 1024 * 1024)) {
        const QJsonObject o = QJsonDocument::fromJson(*state).object();
        const qint64 total = o.value(QLatin1String("total")).toInteger(-1);
        const QJsonArray segs = o.value(QLatin1String("segments")).toArray();
        const bool sameFile = (job.expectedSize < 0 || total == job.expectedSize || total < 0) && !segs.isEmpty();
        if (sameFile) {
            std::list<Segment> restored;
            bool sane = true;
            qint64 expectedStart = 0;
            for (const QJsonValue &v : segs) {
                const QJsonArray a = v.toArray();
                Segment s;
                s.start = a.at(0).toInteger(-1);
                s.end = a.at(1).toInteger(-1);
                s.written = a.at(2).toInteger(-1);
                if (s.start != expectedStart || s.written < 0 || (s.end >= 0 && s.written > s.end - s.start)
                    || s.start + s.written > partSize) {
                    sane = false;
                    break;
                }
                expectedStart = s.end;
                restored.push_back(s);
            }
            if (sane && (total < 0 || restored.back().end == total)) {
                job.total = total;
                job.segments = std::move(restored);
                return;
            }
        }
    }
    // Fresh start.
    QFile::remove(job.partPath);
    job.total = job.expectedSize;
    job.segments.clear();
    int n = std::max(1, wantedSegments);
    if (job.total < 0)
        n = 1;
    else
        n = int(std::clamp<qint64>(job.total / std::max<qint64>(1, minSegmentBytes), 1, n));
    if (n == 1) {
        job.segments.push_back(Segment{0, job.total});
        return;
    }
    const qint64 chunk = job.total / n;
    for (int i = 0; i < n; ++i) {
        const qint64 start = i * chunk;
        const qint64 end = i == n - 1 ? job.total : start + chunk;
        job.segments.push_back(Segment{start, end});
    }
}

bool looksLikeHtml(const char *data, size_t size)
{
    QByteArray head = QByteArray(data, int(std::min<size_t>(size, 512))).trimmed().toLower();
    return head.startsWith("<!doctype html") || head.startsWith("<html") || head.startsWith("<head")
        || (head.startsWith("<?xml version") && head.contains("<html"));
}

bool urlIsHtml(const QUrl &url)
{
    const QString path = url.path().toLower();
    return path.endsWith(QLatin1String(".html")) || path.endsWith(QLatin1String(".htm"));
}

// First bytes of a response: is it what was asked for?
bool validateResponse(Segment &s)
{
    Job &job = *s.job;
    long status = 0;
    curl_easy_getinfo(s.easy, CURLINFO_RESPONSE_CODE, &status);
    const qint64 offset = s.requestOffset();
    const bool askedRange = offset > 0 || (s.end >= 0 && job.segments.size() > 1);
    // A login, captive-portal or "not found" page served with 200 is not the file, whatever its size.
    char *contentType = nullptr;
    curl_easy_getinfo(s.easy, CURLINFO_CONTENT_TYPE, &contentType);
    if (contentType && QByteArray(contentType).toLower().startsWith("text/html") && !urlIsHtml(job.url)) {
        job.fail(Outcome::MirrorFailed, QStringLiteral("html_page"),
                 QStringLiteral("server sent a web page (Content-Type %1) instead of the file")
                     .arg(QString::fromLatin1(contentType)));
        return false;
    }
    if (status == 200) {
        if (askedRange) {
            if (job.segments.size() > 1) {
                job.fail(Outcome::RangeUnsupported, QStringLiteral("range_unsupported"),
                         QStringLiteral("server answered 200 to a Range request"), int(status));
                return false;
            }
            // One stream resuming, and the server sends the whole file again: start over.
            s.written = 0;
            job.hasher.restart();
            job.file.resize(0);
        }
        curl_off_t length = -1;
        curl_easy_getinfo(s.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
        if (length >= 0 && job.expectedSize >= 0 && length != job.expectedSize) {
            job.fail(
                Outcome::MirrorFailed, QStringLiteral("size_mismatch"),
                QStringLiteral("server announces %1 bytes, the manifest says %2").arg(length).arg(job.expectedSize));
            return false;
        }
        if (job.total < 0 && length >= 0) {
            job.total = length;
            s.end = length;
        }
    } else if (status == 206) {
        // The total must be the manifest's, or (without one) what this file's first answer said:
        // ranges of two different files must not end up in one.
        const qint64 knownTotal = job.expectedSize >= 0 ? job.expectedSize : job.total;
        if (s.contentRangeStart != offset
            || (knownTotal >= 0 && s.contentRangeTotal >= 0 && s.contentRangeTotal != knownTotal)) {
            job.fail(Outcome::MirrorFailed, QStringLiteral("size_mismatch"),
                     QStringLiteral("Content-Range starts at %1 of %2, asked for %3 of %4")
                         .arg(s.contentRangeStart)
                         .arg(s.contentRangeTotal)
                         .arg(offset)
                         .arg(knownTotal));
            return false;
        }
        if (job.total < 0 && s.contentRangeTotal >= 0) {
            job.total = s.contentRangeTotal;
            s.end = job.total;
        }
    } else if (status != 0) {
        job.fail(Outcome::MirrorFailed, QStringLiteral("http_error"), QStringLiteral("HTTP %1").arg(status),
                 int(status));
        return false;
    }
    s.validated = true;
    return true;
}

size_t onHeader(char *buffer, size_t size, size_t count, void *userdata)
{
    auto *s = static_cast<Segment *>(userdata);
    const QByteArray line = QByteArray(buffer, int(size * count)).trimmed();
    if (line.startsWith("HTTP/")) { // a new response (after a redirect): forget the last one's headers
        s->contentRangeStart = -1;
        s->contentRangeTotal = -1;
    } else if (line.toLower().startsWith("content-range:")) {
        // "Content-Range: bytes 100-199/1000"
        const QByteArray value = line.mid(14).trimmed();
        const qsizetype space = value.indexOf(' ');
        const qsizetype dash = value.indexOf('-');
        const qsizetype slash = value.indexOf('/');
        if (space > 0 && dash > space && slash > dash) {
            s->contentRangeStart = value.mid(space + 1, dash - space - 1).toLongLong();
            const QByteArray total = value.mid(slash + 1);
            s->contentRangeTotal = total == "*" ? -1 : total.toLongLong();
        }
    }
    return size * count;
}

size_t onData(char *data, size_t size, size_t count, void *userdata)
{
    auto *s = static_cast<Segment *>(userdata);
    Job &job = *s->job;
    const size_t bytes = size * count;
    if (job.aborted)
        return 0;
    if (job.cancel->load(std::memory_order_relaxed)) {
        job.fail(Outcome::Cancelled, QStringLiteral("cancelled"), {});
        return 0;
    }
    if (!s->validated) {
        if (!validateResponse(*s))
            return 0;
        if (s->requestOffset() == 0 && looksLikeHtml(data, bytes) && !urlIsHtml(job.url)) {
            job.fail(Outcome::MirrorFailed, QStringLiteral("html_page"),
                     QStringLiteral("server sent a web page instead of the file"));
            return 0;
        }
    }
    const qint64 offset = s->requestOffset();
    size_t take = bytes;
    if (s->end >= 0 && offset + qint64(bytes) > s->end) {
        if (!s->shortened) {
            job.fail(Outcome::MirrorFailed, QStringLiteral("size_mismatch"),
                     QStringLiteral("server sent more bytes than the %1 expected").arg(job.total));
            return 0;
        }
        // The rest of this range belongs to the connection that took it over.
        take = size_t(std::max<qint64>(0, s->end - offset));
    }
    if (job.file.pos() != offset && !job.file.seek(offset)) {
        job.fail(Outcome::LocalFailure, QStringLiteral("write_failed"), job.file.errorString());
        return 0;
    }
    errno = 0;
    if (job.file.write(data, qint64(take)) != qint64(take)) {
        const int err = errno;
        job.fail(Outcome::LocalFailure,
                 err == ENOSPC ? QStringLiteral("disk_full")
                               : (err == EACCES || err == EPERM ? QStringLiteral("permission_denied")
                                                                : QStringLiteral("write_failed")),
                 err ? QString::fromLocal8Bit(strerror(err)) : job.file.errorString());
        return 0;
    }
    s->written += qint64(take);
    job.networkBytes += qint64(take);
    job.hasher.advanceTo(job.contiguousEnd(), data, qint64(take));
    // A shortened segment that reached its new end stops its transfer (curl reports a write
    // error, which the loop recognises as this segment being complete).
    return take == bytes ? bytes : 0;
}

// What went wrong, as a NetworkError code (networkerror.h) and the outcome it means for a download.
struct CurlFailure {
    Outcome outcome;
    QString code;
    QString detail;
    int status = 0;
};

// floorOnHandle: curl itself checked the speed floor on this handle (document requests), so its
// "too slow" means below the floor; otherwise curl only watched for a stall (no byte at all).
CurlFailure describeCurlError(CURLcode code, CURL *easy, const char *errorBuffer, bool viaProxy, bool floorOnHandle)
{
    QString text = QString::fromUtf8(curl_easy_strerror(code));
    if (errorBuffer && *errorBuffer)
        text += QStringLiteral(": ") + QString::fromUtf8(errorBuffer);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    long connectStatus = 0; // the proxy's answer to CONNECT
    curl_easy_getinfo(easy, CURLINFO_HTTP_CONNECTCODE, &connectStatus);
    if (viaProxy && connectStatus >= 300) {
        return {Outcome::MirrorFailed,
                connectStatus == 407 ? QStringLiteral("proxy_auth") : QStringLiteral("proxy_error"),
                text + QStringLiteral(" (proxy answered %1)").arg(connectStatus), int(connectStatus)};
    }
    switch (code) {
    case CURLE_OK: return {Outcome::Complete, {}, {}, int(status)};
    case CURLE_OPERATION_TIMEDOUT:
        // A floor above "any byte at all" that was not met: this mirror is too slow, try the next.
        if (floorOnHandle && text.contains(QLatin1String("too slow"), Qt::CaseInsensitive))
            return {Outcome::MirrorFailed, QStringLiteral("too_slow"), text};
        return {Outcome::Transient, QStringLiteral("timeout"), text};
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return {Outcome::Transient, QStringLiteral("dropped"), text};
    case CURLE_COULDNT_RESOLVE_HOST: return {Outcome::MirrorFailed, QStringLiteral("dns"), text};
    case CURLE_COULDNT_RESOLVE_PROXY: return {Outcome::MirrorFailed, QStringLiteral("proxy_unreachable"), text};
    case CURLE_COULDNT_CONNECT:
        // Through a proxy, the only connection curl opens is the one to the proxy.
        return {Outcome::MirrorFailed, viaProxy ? QStringLiteral("proxy_unreachable") : QStringLiteral("connect"),
                text};
    case CURLE_PROXY: return {Outcome::MirrorFailed, QStringLiteral("proxy_error"), text};
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return {Outcome::MirrorFailed, QStringLiteral("tls"), text};
    case CURLE_UNSUPPORTED_PROTOCOL: return {Outcome::MirrorFailed, QStringLiteral("insecure_redirect"), text};
    case CURLE_TOO_MANY_REDIRECTS: return {Outcome::MirrorFailed, QStringLiteral("redirect_loop"), text};
    case CURLE_HTTP_RETURNED_ERROR:
        if (status == 407)
            return {Outcome::MirrorFailed, QStringLiteral("proxy_auth"), QStringLiteral("HTTP 407"), int(status)};
        if (viaProxy && (status == 502 || status == 504))
            return {Outcome::MirrorFailed, QStringLiteral("proxy_error"), QStringLiteral("HTTP %1").arg(status),
                    int(status)};
        return {Outcome::MirrorFailed, QStringLiteral("http_error"), QStringLiteral("HTTP %1").arg(status),
                int(status)};
    default: return {Outcome::MirrorFailed, QStringLiteral("network"), text};
    }
}

// Whether curl goes through a proxy for url (an explicit one, the system's, or the environment's;
// no_proxy is not read, so an excepted host counts as proxied: only the words differ).
bool viaProxy(const QUrl &url, const TransferOptions &options)
{
    if (!proxyFor(url, options).isEmpty())
        return true;
    for (const char *name : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) {
        if (!qEnvironmentVariableIsEmpty(name))
            return true;
    }
    return false;
}

void classifyCurlError(Job &job, CURLcode code, Segment &s, const TransferOptions &options)
{
    if (code == CURLE_OK)
        return;
    const CurlFailure f = describeCurlError(code, s.easy, s.errorBuffer, viaProxy(job.url, options), false);
    job.fail(f.outcome, f.code, f.detail, f.status);
}

// What every request of the program shares: TLS verified, redirects never from https to http,
// the proxy, the CA bundle, the connect and low-speed limits. curl copies the strings it is given.
// A document request (one connection) has curl check the speed floor itself; its timeout (30 s
// by default) ends it before the default floor's 60 s window could, so the floor changes nothing
// there. Downloads replace that with their own check over all connections (makeEasy).
void applyTransferOptions(CURL *easy, const QUrl &target, const TransferOptions &options, char *errorBuffer)
{
    const QByteArray url = target.toEncoded();
    curl_easy_setopt(easy, CURLOPT_URL, url.constData());
    if (errorBuffer)
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
    // An HTTPS request never continues over plain HTTP.
    const bool https = target.scheme() == u"https";
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, long(options.connectTimeout.count()));
    if (options.lowSpeedBytesPerSecond > 1) {
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, long(options.lowSpeedBytesPerSecond));
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, long(options.lowSpeedTime.count()));
    } else {
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, long(options.stallTimeout.count()));
    }
    const QByteArray agent = options.userAgent.toUtf8();
    curl_easy_setopt(easy, CURLOPT_USERAGENT, agent.constData());
    const QString proxy = proxyFor(target, options);
    if (!proxy.isEmpty()) {
        const QByteArray bytes = proxy.toUtf8();
        curl_easy_setopt(easy, CURLOPT_PROXY, bytes.constData());
    }
#ifdef Q_OS_WIN
    // libcurl on OpenSSL has no CA file of its own on Windows: it verifies against Windows'
    // certificate store (where a lab or campus proxy's root is installed) only when asked, and
    // then searches a given CA bundle in addition (curl, CURLOPT_SSL_OPTIONS, since 7.71.0).
    curl_easy_setopt(easy, CURLOPT_SSL_OPTIONS, long(CURLSSLOPT_NATIVE_CA));
#endif
    if (!options.caBundle.isEmpty()) {
        const QByteArray ca = QFile::encodeName(options.caBundle);
        curl_easy_setopt(easy, CURLOPT_CAINFO, ca.constData());
    }
}

CURL *makeEasy(Segment &s, const TransferOptions &options)
{
    CURL *easy = curl_easy_init();
    applyTransferOptions(easy, s.job->url, options, s.errorBuffer);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &s);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onData);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(easy, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 1024L * 1024L);
    // The speed floor is the transfer loop's, over all connections together (SpeedFloor): four
    // segments of a link that just meets it must not each fall below it. A single connection
    // only has to deliver some byte within the stall timeout.
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, long(options.stallTimeout.count()));
    const qint64 from = s.requestOffset();
    s.connectionFrom = from;
    if (s.end >= 0 && (from > 0 || s.job->segments.size() > 1)) {
        const QByteArray range = QByteArray::number(from) + '-' + QByteArray::number(s.end - 1);
        curl_easy_setopt(easy, CURLOPT_RANGE, range.constData());
    } else if (from > 0) {
        const QByteArray range = QByteArray::number(from) + '-';
        curl_easy_setopt(easy, CURLOPT_RANGE, range.constData());
    }
    return easy;
}

// The size was unknown and the first response told it: that connection keeps the first part, the
// rest is split among new ones, as aria2c does. Each part is at least minSegmentBytes.
void splitAfterFirstResponse(Job &job, CURLM *multi, const TransferOptions &options)
{
    job.splitPending = false;
    if (job.segments.size() != 1)
        return;
    Segment &first = job.segments.front();
    if (!first.easy || first.finished || first.end < 0 || !first.validated)
        return;
    const qint64 from = first.requestOffset();
    const qint64 remaining = first.end - from;
    const int n = int(
        std::clamp<qint64>(remaining / std::max<qint64>(1, options.minSegmentBytes), 1, job.wantedSegments));
    if (n < 2)
        return;
    const qint64 chunk = remaining / n;
    const qint64 total = first.end;
    first.end = from + chunk;
    first.shortened = true;
    for (int i = 1; i < n; ++i) {
        const qint64 start = from + i * chunk;
        Segment &added = job.segments.emplace_back();
        added.start = start;
        added.end = i == n - 1 ? total : start + chunk;
        added.job = &job;
        added.easy = makeEasy(added, options);
        curl_multi_add_handle(multi, added.easy);
    }
}

// The speed floor of one attempt, over all its connections together: on average below
// options.lowSpeedBytesPerSecond over the last options.lowSpeedTime, the mirror is too slow. The
// window starts with the attempt, so connecting and waiting for the first byte count too.
class SpeedFloor {
public:
    explicit SpeedFloor(const TransferOptions &options)
        : m_floor(options.lowSpeedBytesPerSecond)
        , m_windowMs(std::chrono::duration_cast<std::chrono::milliseconds>(options.lowSpeedTime).count())
    {
        m_clock.start();
        m_samples.push_back({0, 0});
    }

    bool enabled() const { return m_floor > 0 && m_windowMs > 0; }

    // bytes: all bytes the attempt received so far. False once a whole window lies below the
    // floor; *rate is then the window's average in bytes per second.
    bool holds(qint64 bytes, double *rate)
    {
        if (!enabled())
            return true;
        const qint64 now = m_clock.elapsed();
        if (now - m_samples.back().ms >= 250)
            m_samples.push_back({now, bytes});
        // The oldest sample kept is the newest one at least a window old.
        while (m_samples.size() > 1 && m_samples[1].ms <= now - m_windowMs)
            m_samples.pop_front();
        const Sample &from = m_samples.front();
        if (now - from.ms < m_windowMs)
            return true;
        *rate = double(bytes - from.bytes) * 1000.0 / double(now - from.ms);
        return *rate >= double(m_floor);
    }

    qint64 floor() const { return m_floor; }
    qint64 windowSeconds() const { return m_windowMs / 1000; }

private:
    struct Sample {
        qint64 ms;
        qint64 bytes;
    };
    qint64 m_floor;
    qint64 m_windowMs;
    QElapsedTimer m_clock;
    std::deque<Sample> m_samples;
};

// A connection that closed before the end of its range, after bringing at least progressBytes
// (a link that drops, a server that cuts every response): a new connection goes on from its last
// byte at once, while the other ranges keep running, instead of ending the attempt for all of
// them (which throws away what their connections already had under way). A connection that
// brought less ends the attempt, and the downloader's retries decide.
bool reconnectDropped(Segment &s, CURLM *multi, const TransferOptions &options)
{
    const bool dropped = s.result == CURLE_PARTIAL_FILE || s.result == CURLE_RECV_ERROR || s.result == CURLE_SEND_ERROR
        || s.result == CURLE_GOT_NOTHING || (s.result == CURLE_OK && !s.complete());
    if (!dropped || s.job->aborted || s.end < 0 || s.complete() || !s.validated
        || s.requestOffset() - s.connectionFrom < options.progressBytes)
        return false;
    curl_multi_remove_handle(multi, s.easy);
    curl_easy_cleanup(s.easy);
    s.validated = false;
    s.contentRangeStart = -1;
    s.contentRangeTotal = -1;
    s.result = CURLE_OK;
    s.finished = false;
    s.errorBuffer[0] = '\0';
    s.easy = makeEasy(s, options);
    curl_multi_add_handle(multi, s.easy);
    return true;
}

// When a connection finished its range while others still run, it takes over the second half of
// the largest remaining range, as aria2c does: no connection idles while a slow one lags.
void stealWork(Job &job, CURLM *multi, const TransferOptions &options)
{
    Segment *victim = nullptr;
    qint64 largest = 0;
    for (Segment &s : job.segments) {
        if (!s.easy || s.finished || s.end < 0)
            continue;
        const qint64 remaining = s.end - s.requestOffset();
        if (remaining > largest) {
            largest = remaining;
            victim = &s;
        }
    }
    if (!victim || largest < std::max<qint64>(options.minSegmentBytes, 64 * 1024))
        return;
    const qint64 mid = victim->requestOffset() + largest / 2;
    auto it = std::find_if(job.segments.begin(), job.segments.end(),
                           [victim](const Segment &s) { return &s == victim; });
    Segment &taken = *job.segments.insert(std::next(it), Segment{mid, victim->end});
    victim->end = mid;
    victim->shortened = true;
    taken.job = &job;
    taken.easy = makeEasy(taken, options);
    curl_multi_add_handle(multi, taken.easy);
}

} // namespace

QString proxyFor(const QUrl &url, const TransferOptions &options)
{
    if (!options.proxy.isEmpty())
        return options.proxy;
    for (const char *name : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) {
        if (!qEnvironmentVariableIsEmpty(name))
            return {}; // libcurl honours these (and no_proxy) itself
    }
    // One lookup at a time: transfers ask from several worker threads, and the system's proxy
    // library behind Qt's factory (libproxy) is not known to be safe to call concurrently.
    static std::mutex lookup;
    const std::lock_guard<std::mutex> oneAtATime(lookup);
    const QList<QNetworkProxy> proxies = QNetworkProxyFactory::systemProxyForQuery(QNetworkProxyQuery(url));
    for (const QNetworkProxy &p : proxies) {
        if (p.type() == QNetworkProxy::HttpProxy)
            return QStringLiteral("http://%1:%2").arg(p.hostName()).arg(p.port());
        if (p.type() == QNetworkProxy::Socks5Proxy)
            return QStringLiteral("socks5h://%1:%2").arg(p.hostName()).arg(p.port());
    }
    return {};
}

QList<QUrl> orderMirrorsByLatency(const QList<QUrl> &urls, const TransferOptions &options,
                                  std::chrono::milliseconds budget)
{
    if (urls.size() < 2)
        return urls;
    ensureCurlGlobalInit();
    struct Probe {
        QUrl url;
        int index = 0;
        CURL *easy = nullptr;
        bool ok = false;
        double seconds = 1e9;
    };
    std::vector<Probe> probes(size_t(urls.size()));
    CURLM *multi = curl_multi_init();
    const long budgetMs = long(budget.count());
    for (qsizetype i = 0; i < urls.size(); ++i) {
        Probe &p = probes[size_t(i)];
        p.url = urls[i];
        p.index = int(i);
        p.easy = curl_easy_init();
        applyTransferOptions(p.easy, p.url, options, nullptr);
        curl_easy_setopt(p.easy, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(p.easy, CURLOPT_MAXREDIRS, 5L);
        curl_easy_setopt(p.easy, CURLOPT_FAILONERROR, 1L);
        curl_easy_setopt(p.easy, CURLOPT_TIMEOUT_MS, budgetMs);
        curl_easy_setopt(p.easy, CURLOPT_PRIVATE, &p);
        curl_multi_add_handle(multi, p.easy);
    }
    int running = 1;
    while (running > 0) {
        curl_multi_perform(multi, &running);
        int queued = 0;
        while (CURLMsg *msg = curl_multi_info_read(multi, &queued)) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            Probe *p = nullptr;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char **>(&p));
            p->ok = msg->data.result == CURLE_OK;
            curl_off_t micros = 0;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_TOTAL_TIME_T, &micros);
            p->seconds = double(micros) / 1e6;
        }
        if (running > 0)
            curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    }
    for (Probe &p : probes) {
        curl_multi_remove_handle(multi, p.easy);
        curl_easy_cleanup(p.easy);
    }
    curl_multi_cleanup(multi);
    std::stable_sort(probes.begin(), probes.end(), [](const Probe &a, const Probe &b) {
        if (a.ok != b.ok)
            return a.ok;
        return a.ok && a.seconds < b.seconds;
    });
    QList<QUrl> ordered;
    for (const Probe &p : probes)
        ordered.append(p.url);
    return ordered;
}

void discardPartial(const QString &partPath)
{
    QFile::remove(partPath);
    QFile::remove(statePath(partPath));
}

TransferAttemptResult runTransferAttempt(const QUrl &url, const QString &partPath, qint64 expectedSize, int segments,
                                         Checksum::Algorithm algorithm, const TransferOptions &options,
                                         const std::atomic<bool> &cancel,
                                         const std::function<void(qint64, qint64)> &progress)
{
    ensureCurlGlobalInit();
    Job job(algorithm);
    job.url = url;
    job.partPath = partPath;
    job.expectedSize = expectedSize;
    job.cancel = &cancel;
    QDir().mkpath(QFileInfo(partPath).absolutePath());
    // A .part or .part.state that is a link (or anything but a plain file) was not left by a
    // transfer: writing through it would put the download into another file. The link goes
    // (removing a link leaves its target alone) and the transfer starts afresh.
    for (const QString &own : {partPath, statePath(partPath)}) {
        const QFileInfo info(own);
        if (isLink(own) || (info.exists() && !info.isFile())) {
            QFile::remove(own);
            QFile::remove(statePath(partPath));
        }
    }
    planSegments(job, segments, options.minSegmentBytes);
    job.wantedSegments = std::max(1, segments);
    job.splitPending = job.total < 0 && job.wantedSegments > 1 && job.segments.size() == 1;

    // Both handles are opened relative to the folder, never following a link at the name: a .part
    // swapped for a link after the check above is refused, not written through (or hashed).
    const QFileInfo part(partPath);
    if (const Status opened = openConfined(job.file, part.absolutePath(), part.fileName(), ConfinedOpen::ReadWrite);
        !opened) {
        TransferAttemptResult r;
        r.outcome = Outcome::LocalFailure;
        r.code = opened.error().code == u"path_through_link" ? QStringLiteral("write_failed") : opened.error().code;
        r.detail = opened.error().detail;
        return r;
    }
    if (const Status opened = openConfined(job.reader, part.absolutePath(), part.fileName(), ConfinedOpen::ReadOnly);
        !opened) {
        TransferAttemptResult r;
        r.outcome = Outcome::LocalFailure;
        r.code = QStringLiteral("write_failed");
        r.detail = opened.error().detail;
        return r;
    }

    // Bytes an earlier attempt left in the part file are hashed from disk, while new ones arrive.
    job.hasher.advanceTo(job.contiguousEnd());

    CURLM *multi = curl_multi_init();
    for (Segment &s : job.segments) {
        s.job = &job;
        if (s.complete())
            continue;
        s.easy = makeEasy(s, options);
        curl_multi_add_handle(multi, s.easy);
    }

    QElapsedTimer sinceSave;
    sinceSave.start();
    QElapsedTimer sinceProgress;
    sinceProgress.start();
    SpeedFloor floor(options);
    int running = 1;
    while (running > 0 && !job.aborted) {
        if (cancel.load(std::memory_order_relaxed)) {
            job.fail(Outcome::Cancelled, QStringLiteral("cancelled"), {});
            break;
        }
        curl_multi_perform(multi, &running);
        if (job.splitPending && job.total > 0 && !job.aborted) {
            splitAfterFirstResponse(job, multi, options);
            if (!job.splitPending)
                curl_multi_perform(multi, &running);
        }
        int queued = 0;
        while (CURLMsg *msg = curl_multi_info_read(multi, &queued)) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            Segment *s = nullptr;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char **>(&s));
            s->result = msg->data.result;
            s->finished = true;
            if (reconnectDropped(*s, multi, options)) {
                ++running; // counted by the next curl_multi_perform
                continue;
            }
            if (s->result == CURLE_WRITE_ERROR && s->shortened && s->complete() && !job.aborted)
                s->result = CURLE_OK; // stopped at its new end on purpose
            if (s->result != CURLE_OK && s->result != CURLE_WRITE_ERROR)
                classifyCurlError(job, s->result, *s, options);
            else if (s->result == CURLE_OK && s->end < 0) // size was unknown: the stream's end is the end
                s->end = s->start + s->written, job.total = s->end;
            else if (s->result == CURLE_OK && !s->complete())
                job.fail(Outcome::Transient, QStringLiteral("dropped"),
                         QStringLiteral("connection closed after %1 of %2 bytes").arg(s->written).arg(s->length()));
            if (s->result == CURLE_OK && s->complete() && !job.aborted && job.segments.size() > 1)
                stealWork(job, multi, options);
        }
        if (double rate = 0; running > 0 && !job.aborted && !floor.holds(job.networkBytes, &rate)) {
            job.fail(Outcome::MirrorFailed, QStringLiteral("too_slow"),
                     QStringLiteral("%1 bytes/s over the last %2 s, below the floor of %3 bytes/s")
                         .arg(qint64(rate))
                         .arg(floor.windowSeconds())
                         .arg(floor.floor()));
        }
        if (running > 0 && !job.aborted)
            curl_multi_poll(multi, nullptr, 0, 100, nullptr);
        if (progress && sinceProgress.elapsed() >= 100) {
            progress(job.received(), job.total);
            sinceProgress.restart();
        }
        if (sinceSave.elapsed() >= 1000) {
            saveState(job);
            sinceSave.restart();
        }
    }
    for (Segment &s : job.segments) {
        if (s.easy) {
            curl_multi_remove_handle(multi, s.easy);
            curl_easy_cleanup(s.easy);
            s.easy = nullptr;
        }
    }
    curl_multi_cleanup(multi);
    job.file.close();
    if (progress)
        progress(job.received(), job.total);

    if (!job.aborted) {
        const bool allDone = std::all_of(job.segments.cbegin(), job.segments.cend(),
                                         [](const Segment &s) { return s.complete(); });
        QString readError;
        const QByteArray digest = allDone && job.contiguousEnd() == job.total
            ? job.hasher.finish(job.total, cancel, &readError)
            : QByteArray();
        if (!digest.isEmpty()) {
            TransferAttemptResult r;
            r.outcome = Outcome::Complete;
            r.digest = digest;
            r.totalSize = job.total;
            r.networkBytes = job.networkBytes;
            QFile::remove(statePath(partPath));
            return r;
        }
        if (cancel.load())
            job.fail(Outcome::Cancelled, QStringLiteral("cancelled"), {});
        else if (!readError.isEmpty())
            job.fail(Outcome::LocalFailure, QStringLiteral("read_failed"), readError);
        else
            job.fail(Outcome::Transient, QStringLiteral("dropped"), QStringLiteral("transfer ended early"));
    }
    if (job.failure.outcome == Outcome::RangeUnsupported || job.failure.code == u"size_mismatch")
        discardPartial(partPath);
    else
        saveState(job);
    job.failure.totalSize = job.total;
    job.failure.networkBytes = job.networkBytes;
    job.failure.keptBytes = job.received();
    return job.failure;
}

namespace {

struct DocumentTransfer {
    const HttpRequest *request = nullptr;
    const std::atomic<bool> *cancel = nullptr;
    QByteArray body;
    bool tooLarge = false;
};

size_t onDocumentData(char *data, size_t size, size_t count, void *userdata)
{
    auto *t = static_cast<DocumentTransfer *>(userdata);
    const size_t bytes = size * count;
    if (t->body.size() + qint64(bytes) > t->request->maxBytes) {
        t->tooLarge = true;
        return 0;
    }
    t->body.append(data, qsizetype(bytes));
    return bytes;
}

int onDocumentProgress(void *userdata, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    auto *t = static_cast<DocumentTransfer *>(userdata);
    return t->cancel && t->cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

} // namespace

Result<HttpResponse> runHttpRequest(const HttpRequest &request, const TransferOptions &options,
                                    const std::atomic<bool> *cancel, QString *code, int *status)
{
    ensureCurlGlobalInit();
    DocumentTransfer t;
    t.request = &request;
    t.cancel = cancel;
    char errorBuffer[CURL_ERROR_SIZE] = {};
    CURL *easy = curl_easy_init();
    const std::unique_ptr<CURL, void (*)(CURL *)> guard(easy, curl_easy_cleanup);
    applyTransferOptions(easy, request.url, options, errorBuffer);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onDocumentData);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, onDocumentProgress);
    curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(request.timeout.count()));
    if (request.headOnly)
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, ""); // whatever curl can decode
    curl_slist *headers = nullptr;
    if (!request.accept.isEmpty()) {
        const QByteArray accept = "Accept: " + request.accept;
        headers = curl_slist_append(headers, accept.constData());
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    }
    const CURLcode result = curl_easy_perform(easy);
    curl_slist_free_all(headers);
    const bool proxied = viaProxy(request.url, options);
    const QString where = request.url.toString(QUrl::RemoveUserInfo) + QStringLiteral(": ");
    long responseStatus = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &responseStatus);
    *status = int(responseStatus);
    auto failure = [&](QString why, QString detail) -> Result<HttpResponse> {
        *code = why;
        return Error{std::move(why), {}, where + detail};
    };
    if (cancel && cancel->load() && result != CURLE_OK)
        return failure(QStringLiteral("cancelled"), QStringLiteral("cancelled"));
    if (t.tooLarge)
        return failure(QStringLiteral("too_large"), QStringLiteral("more than %1 bytes").arg(request.maxBytes));
    if (result != CURLE_OK) {
        const CurlFailure f = describeCurlError(result, easy, errorBuffer, proxied, options.lowSpeedBytesPerSecond > 1);
        *status = f.status ? f.status : *status;
        return failure(f.code, f.detail);
    }
    HttpResponse response;
    response.status = int(responseStatus);
    char *contentType = nullptr;
    curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &contentType);
    response.contentType = contentType ? QByteArray(contentType) : QByteArray();
    char *effective = nullptr;
    curl_easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &effective);
    response.finalUrl = effective ? QUrl::fromEncoded(effective) : request.url;
    response.viaProxy = proxied;
    response.body = std::move(t.body);
    curl_off_t length = -1;
    if (curl_easy_getinfo(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK && length >= 0)
        response.contentLength = qint64(length);
    if (response.status >= 300) {
        QString why = QStringLiteral("http_error");
        if (response.status == 407)
            why = QStringLiteral("proxy_auth");
        else if (proxied && (response.status == 502 || response.status == 504))
            why = QStringLiteral("proxy_error");
        return failure(why, QStringLiteral("HTTP %1").arg(response.status));
    }
    return response;
}

} // namespace tfsetup::core
