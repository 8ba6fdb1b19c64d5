#pragma once

#include "fetch/checksum.h"
#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <atomic>
#include <functional>

namespace tfsetup::core {

// How one attempt at one mirror ended. Classified so the caller knows whether to retry the
// same mirror (resuming), move to the next mirror, or stop altogether.
struct TransferAttemptResult {
    enum class Outcome {
        Complete,         // every byte is in the part file; digest holds its hash
        Transient,        // dropped connection or stall: retrying this mirror resumes
        RangeUnsupported, // the server ignored Range while segments were in flight: retry with one stream
        MirrorFailed,     // 404, TLS, DNS, refused redirect, HTML page, wrong size, below the speed
                          // floor ("too_slow"): try the next mirror
        LocalFailure,     // disk full, permission denied: no mirror can help
        Cancelled,
    };
    Outcome outcome = Outcome::MirrorFailed;
    QString code;   // stable: "http_error", "tls", "dns", "connect", "timeout", "dropped", "html_page",
                    // "size_mismatch", "insecure_redirect", "disk_full", "permission_denied", "write_failed", …
    QString detail; // untranslated: curl's words, the HTTP status, errno text
    int httpStatus = 0;
    QByteArray digest; // lower-case hex of the whole file when Complete
    qint64 totalSize = -1;
    qint64 networkBytes = 0;
    qint64 keptBytes = 0; // bytes of the file in the part file when the attempt ended
};

// Fetches `url` into `partPath` with `segments` parallel ranges, hashing while bytes arrive.
// Below options' speed floor (all connections together, over its window) the attempt ends as
// MirrorFailed "too_slow", its bytes kept for the next mirror to continue from.
// Progress persists in `partPath + ".state"`, so a later call (after a cancel, a dropped
// connection or a restart of the program) resumes where the bytes stopped. The file is hashed
// once, in order, on a thread of its own that follows the writes (bytes already in the part file
// first), so hashing overlaps the transfer instead of delaying it.
// Blocking: run it on a worker thread. progress(received, total) is called from that thread.
TransferAttemptResult runTransferAttempt(const QUrl &url, const QString &partPath, qint64 expectedSize, int segments,
                                         Checksum::Algorithm algorithm, const TransferOptions &options,
                                         const std::atomic<bool> &cancel,
                                         const std::function<void(qint64, qint64)> &progress);

// Asks every mirror for the file's headers at once (HEAD, a few seconds at most) and returns them
// fastest first; mirrors that failed or lack the file go last, in their original order.
QList<QUrl> orderMirrorsByLatency(const QList<QUrl> &urls, const TransferOptions &options,
                                  std::chrono::milliseconds budget);

// The proxy curl should use for url: options.proxy, else the environment's (curl reads it
// itself), else the system's (Windows Internet settings, via Qt). Empty: connect directly.
QString proxyFor(const QUrl &url, const TransferOptions &options);

struct HttpRequest;
struct HttpResponse;

// One document request (HttpClient's work): blocking. On failure the Error has the cause's code
// and detail but no message (HttpClient words it); *code and *status tell the cause too.
Result<HttpResponse> runHttpRequest(const HttpRequest &request, const TransferOptions &options,
                                    const std::atomic<bool> *cancel, QString *code, int *status);

// Forgets a part file and its state (after a checksum mismatch or a server that changed the file).
void discardPartial(const QString &partPath);

} // namespace tfsetup::core
