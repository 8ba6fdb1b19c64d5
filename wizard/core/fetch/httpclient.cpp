#include "fetch/httpclient.h"

#include "fetch/curltransfer.h"
#include "fetch/networkerror.h"

#include <QCoro/QCoroFuture>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

std::shared_ptr<QThreadPool> makePool()
{
    auto pool = std::make_shared<QThreadPool>();
    // Documents are small and mostly waiting on the network: a few at once, never the global
    // pool, whose threads hashing and extraction need.
    pool->setMaxThreadCount(6);
    pool->setExpiryTimeout(5000);
    return pool;
}

Result<HttpResponse> request(const HttpRequest &r, const TransferOptions &options)
{
    QString code;
    int status = 0;
    Result<HttpResponse> response = runHttpRequest(r, options, r.cancel.get(), &code, &status);
    if (response)
        return response;
    Error e = response.error();
    e.httpStatus = status >= 300 ? status : 0; // a 200 cut short or too large is no refusal
    e.message = NetworkError::message(
        code, status, r.url.host().isEmpty() ? r.url.toString() : r.url.toString(QUrl::RemoveUserInfo), e.detail);
    return e;
}

} // namespace

HttpClient::HttpClient(TransferOptions options)
    : m_options(std::move(options))
    , m_pool(makePool())
{}
HttpClient::~HttpClient() = default;
HttpClient::HttpClient(const HttpClient &) = default;
HttpClient &HttpClient::operator=(const HttpClient &) = default;

Result<HttpResponse> HttpClient::getBlocking(const HttpRequest &r) const
{
    return request(r, m_options);
}

QCoro::Task<Result<HttpResponse>> HttpClient::get(HttpRequest r) const
{
    // The frame keeps the workers and the options: the client may go away while this waits.
    const std::shared_ptr<QThreadPool> pool = m_pool;
    const TransferOptions options = m_options;
    // Named future: GCC 12 mishandles temporaries (a lambda) inside a co_await expression.
    QFuture<Result<HttpResponse>> running = QtConcurrent::run(pool.get(), [r, options] { return request(r, options); });
    co_return co_await running;
}

} // namespace tfsetup::core
