#pragma once

#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <QByteArray>
#include <QCoro/QCoroTask>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <memory>

class QThreadPool;

namespace tfsetup::core {

// One request for a document: a manifest, a JSON answer, a checksum list, a lab profile. The
// body is kept in memory, at most maxBytes.
struct HttpRequest {
    QUrl url;
    QByteArray accept;                               // "application/json"; empty: any
    qint64 maxBytes = 16 * 1024 * 1024;              // a longer body is error "too_large"
    std::chrono::milliseconds timeout{30000};        // the whole request, connecting included
    std::shared_ptr<const std::atomic<bool>> cancel; // set from elsewhere to stop ("cancelled")
    bool headOnly = false;                           // HEAD: the headers alone (a file's size), no body
};

struct HttpResponse {
    int status = 0;         // 2xx: anything else is an error
    QByteArray contentType; // "application/json; charset=utf-8"
    QByteArray body;
    QUrl finalUrl; // after redirects
    bool viaProxy = false;
    qint64 contentLength = -1; // as the server announced it; -1 when it did not
};

// The one HTTP client of the program: the same libcurl transfer as the Downloader, configured
// from the same TransferOptions (proxy explicit / environment / system, CA bundle, connect and
// low-speed limits, redirects never from https to http). Requests run on the client's own
// worker threads; awaiting get() never blocks the calling thread. Copies share the workers.
//
// Errors: Error::code is a cause (networkerror.h: "dns", "connect", "timeout", "too_slow", "tls",
// "proxy_auth", "proxy_error", "http_error", "too_large", "cancelled", …), Error::message a
// translated sentence naming the cause and the next step, Error::detail "URL: curl's words".
class HttpClient {
public:
    explicit HttpClient(TransferOptions options = {});
    ~HttpClient();
    HttpClient(const HttpClient &);
    HttpClient &operator=(const HttpClient &);

    const TransferOptions &options() const { return m_options; }
    void setOptions(TransferOptions options) { m_options = std::move(options); }

    QCoro::Task<Result<HttpResponse>> get(HttpRequest request) const;

    // The same, blocking: for code already on a worker thread.
    Result<HttpResponse> getBlocking(const HttpRequest &request) const;

private:
    TransferOptions m_options;
    std::shared_ptr<QThreadPool> m_pool;
};

} // namespace tfsetup::core
