#include "setup/indexbridge.h"

#include "fetch/checksum.h"
#include "fetch/downloader.h"
#include "fetch/httpclient.h"
#include "fetch/networkerror.h"
#include "install/archive.h"
#include "sources/firstuse.h"
#include "sources/simpleindex.h"

#include <QCoro/QCoroFuture>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

// A request head larger than this is no pip request.
constexpr qsizetype maxRequestHead = 64 * 1024;
// Core metadata files are a few kilobytes; the largest on PyPI are well below a megabyte.
constexpr qint64 maxMetadataBytes = 16 * 1024 * 1024;

const QRegularExpression &metadataMember()
{
    static const QRegularExpression re(QStringLiteral("^[^/]+\\.dist-info/METADATA$"));
    return re;
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    default: return "Error";
    }
}

} // namespace

IndexBridge::IndexBridge(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    quint32 words[4];
    QRandomGenerator::global()->fillRange(words);
    m_token = QByteArray(reinterpret_cast<const char *>(words), sizeof words).toHex();
}

IndexBridge::~IndexBridge() = default;

Status IndexBridge::start()
{
    if (m_server)
        return Ok{};
    m_server = new QTcpServer(this);
    if (!m_server->listen(QHostAddress::LocalHost, 0)) {
        const QString why = m_server->errorString();
        delete m_server;
        m_server = nullptr;
        return Error{QStringLiteral("bridge_unavailable"),
                     tr("tfsetup could not open a local port for pip (%1). A firewall or security program may block "
                        "programs from listening on 127.0.0.1; allow tfsetup, then try again.")
                         .arg(why),
                     why};
    }
    connect(m_server, &QTcpServer::newConnection, this, &IndexBridge::onConnection);
    return Ok{};
}

QUrl IndexBridge::indexUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_server ? m_server->serverPort() : 0);
    url.setPath(u'/' + QString::fromLatin1(m_token) + QStringLiteral("/simple/"));
    return url;
}

int IndexBridge::idOf(const QUrl &bridgeUrl) const
{
    if (!m_server || bridgeUrl.port() != m_server->serverPort())
        return -1;
    const QString prefix = u'/' + QString::fromLatin1(m_token) + QStringLiteral("/files/");
    const QString path = bridgeUrl.path();
    if (!path.startsWith(prefix))
        return -1;
    bool ok = false;
    const int id = path.mid(prefix.size()).section(u'/', 0, 0).toInt(&ok);
    return ok && id >= 0 && id < m_files.size() ? id : -1;
}

QUrl IndexBridge::urlOf(qsizetype id) const
{
    QUrl url = indexUrl();
    url.setPath(u'/' + QString::fromLatin1(m_token) + QStringLiteral("/files/") + QString::number(id) + u'/'
                + m_files.at(id).filename);
    return url;
}

std::optional<BridgedFile> IndexBridge::fileFor(const QUrl &bridgeUrl) const
{
    const int id = idOf(bridgeUrl);
    if (id < 0)
        return std::nullopt;
    return m_files.at(id);
}

QCoro::Task<Result<QList<QUrl>>> IndexBridge::projectFiles(QString project)
{
    QPointer<IndexBridge> self(this);
    auto page = co_await projectPage(project);
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!page)
        co_return page.error();
    const QString name = SimpleIndex::normalize(project);
    QList<QUrl> urls;
    for (qsizetype id = 0; id < m_files.size(); ++id) {
        if (m_files.at(id).project == name)
            urls.append(urlOf(id));
    }
    co_return urls;
}

QCoro::Task<Result<BridgedFile>> IndexBridge::download(QUrl bridgeUrl)
{
    const int id = idOf(bridgeUrl);
    if (id < 0)
        co_return Error{QStringLiteral("bad_request"), {}, bridgeUrl.toString()};
    QPointer<IndexBridge> self(this);
    auto path = co_await wheel(id);
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!path)
        co_return path.error();
    co_return m_files.at(id);
}

void IndexBridge::fail(const Error &error)
{
    m_lastFailure = error;
    qInfo().noquote() << "package index:" << error.code << error.detail;
}

void IndexBridge::onConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadable(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_buffers.remove(socket);
            m_busy.remove(socket);
            socket->deleteLater();
        });
    }
}

void IndexBridge::onReadable(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    if (buffer.size() > 4 * maxRequestHead) { // nothing pip sends: a client that only fills memory
        socket->abort();
        return;
    }
    if (m_busy.value(socket))
        return; // one request at a time per connection; the next waits in the buffer
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0) {
        if (buffer.size() > maxRequestHead) {
            respond(socket, 431, "text/plain", {});
            socket->disconnectFromHost();
        }
        return;
    }
    const QByteArray head = buffer.left(end);
    buffer.remove(0, end + 4);
    const QList<QByteArray> requestLine =
        head.left(head.indexOf("\r\n") < 0 ? head.size() : head.indexOf("\r\n")).split(' ');
    if (requestLine.size() != 3 || requestLine.at(0) != "GET") {
        respond(socket, 405, "text/plain", {});
        return;
    }
    m_busy[socket] = true;
    ++m_requests;
    serve(this, socket, QUrl::fromEncoded(requestLine.at(1)).path().toUtf8());
}

QCoro::Task<> IndexBridge::serve(QPointer<IndexBridge> self, QPointer<QTcpSocket> socket, QByteArray path)
{
    const QByteArray prefix = '/' + self->m_token + '/';
    int status = 404;
    QByteArray type = "text/plain";
    QByteArray body;
    if (path.startsWith(prefix)) {
        const QString rest = QString::fromUtf8(path.mid(prefix.size()));
        const QStringList parts = rest.split(u'/');
        if (rest == u"simple/" || rest == u"simple") {
            status = 200;
            type = "text/html";
            body = "<!DOCTYPE html><html><body></body></html>\n";
        } else if (parts.size() >= 2 && parts.at(0) == u"simple" && !parts.at(1).isEmpty()) {
            auto page = co_await self->projectPage(parts.at(1));
            if (!self || !socket)
                co_return;
            if (page) {
                status = 200;
                type = "text/html";
                body = *page;
            } else {
                status = page.error().code == u"project_missing" ? 404 : 502;
                body = page.error().message.toUtf8();
            }
        } else if (parts.size() == 3 && parts.at(0) == u"files") {
            bool ok = false;
            const int id = parts.at(1).toInt(&ok);
            if (ok && id >= 0 && id < self->m_files.size()) {
                // (co_await kept out of ?: — g++ 12 cannot compile it there.)
                Result<QByteArray> answer;
                if (parts.at(2).endsWith(QStringLiteral(".metadata")))
                    answer = co_await self->metadata(id);
                else
                    answer = co_await self->standIn(id);
                if (!self || !socket)
                    co_return;
                status = answer ? 200 : 502;
                body = answer ? *answer : answer.error().message.toUtf8();
                type = answer ? QByteArray("application/octet-stream") : QByteArray("text/plain");
            }
        }
    }
    if (!self || !socket)
        co_return;
    respond(socket, status, type, body);
    self->m_busy[socket.data()] = false;
    if (!self->m_buffers.value(socket.data()).isEmpty()) {
        QTcpSocket *next = socket.data();
        QTimer::singleShot(0, self.data(), [self, next] {
            if (self && self->m_buffers.contains(next))
                self->onReadable(next);
        });
    }
}

void IndexBridge::respond(QTcpSocket *socket, int status, const QByteArray &contentType, const QByteArray &body)
{
    socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
                  + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + QByteArray::number(body.size())
                  + "\r\nCache-Control: no-store\r\n\r\n" + body);
}

QCoro::Task<Result<QByteArray>> IndexBridge::projectPage(QString project)
{
    const QString name = SimpleIndex::normalize(project);
    if (m_pages.contains(name))
        co_return m_pages.value(name);
    QPointer<IndexBridge> self(this);
    const HttpClient client(m_options.transfer);
    bool anyMissing = false;
    std::optional<Error> failure;
    for (const QUrl &index : m_options.indexes) {
        QUrl url = index;
        QString path = url.path();
        if (!path.endsWith(u'/'))
            path += u'/';
        url.setPath(path + name + u'/');
        HttpRequest request;
        request.url = url;
        request.accept = SimpleIndex::acceptHeader();
        request.maxBytes = SimpleIndex::maxPageBytes;
        request.timeout = m_options.pageTimeout;
        auto response = co_await client.get(std::move(request));
        if (!self)
            co_return Error{QStringLiteral("cancelled"), {}, {}};
        if (!response) {
            if (response.error().httpStatus == 404) {
                anyMissing = true;
                continue; // this index does not have the project; the next may
            }
            failure = response.error();
            fail(response.error());
            continue;
        }
        auto page = SimpleIndex::parse(response->body, response->contentType, response->finalUrl);
        if (!page) {
            failure = Error{page.error().code, page.error().message, url.toString(QUrl::RemoveUserInfo)};
            fail(*failure);
            continue;
        }
        QList<IndexFile> listed;
        const QString indexText = index.toString(QUrl::RemoveUserInfo);
        for (const IndexFile &f : std::as_const(page->files)) {
            if (!f.isWheel() || f.filename.contains(u'/') || f.filename.contains(u'\\'))
                continue;
            const auto known = std::find_if(m_files.cbegin(), m_files.cend(),
                                            [&f](const BridgedFile &b) { return b.upstream == f.url; });
            qsizetype id = known - m_files.cbegin();
            if (known == m_files.cend()) {
                BridgedFile b;
                b.project = name;
                b.filename = f.filename;
                b.upstream = f.url;
                b.index = indexText;
                b.sha256 = f.sha256;
                b.size = f.size;
                b.requiresPython = f.requiresPython;
                b.upstreamMetadata = f.hasMetadata;
                b.metadataSha256 = f.metadataSha256;
                m_files.append(b);
                id = m_files.size() - 1;
            }
            // pip gets the stand-in (see the class comment): no hash of the real file, no metadata
            // link; what the lock pins comes from this record.
            IndexFile shown = f;
            shown.url = urlOf(id);
            shown.sha256.clear();
            shown.hasMetadata = false;
            shown.metadataSha256.clear();
            shown.size = -1;
            listed.append(shown);
        }
        const QByteArray html = SimpleIndex::htmlPage(name, listed);
        m_pages.insert(name, html);
        co_return html;
    }
    if (failure)
        co_return *failure;
    Q_UNUSED(anyMissing);
    co_return Error{QStringLiteral("project_missing"), tr("No package index lists %1.").arg(name), {}};
}

QCoro::Task<Result<QByteArray>> IndexBridge::metadata(int id)
{
    QPointer<IndexBridge> self(this);
    const BridgedFile file = m_files.at(id);
    if (file.upstreamMetadata) {
        QUrl url = file.upstream;
        url.setPath(url.path() + QStringLiteral(".metadata"));
        const HttpClient client(m_options.transfer);
        HttpRequest request;
        request.url = url;
        request.maxBytes = maxMetadataBytes;
        request.timeout = m_options.pageTimeout;
        auto response = co_await client.get(std::move(request));
        if (!self)
            co_return Error{QStringLiteral("cancelled"), {}, {}};
        if (response) {
            if (!file.metadataSha256.isEmpty()) {
                Hasher hasher(Checksum::Algorithm::Sha256);
                hasher.addData(response->body);
                if (hasher.finalHex() != file.metadataSha256) {
                    const Error e{QStringLiteral("index_metadata_mismatch"),
                                  tr("The package index served metadata for %1 that does not match the checksum it "
                                     "lists. The index or a proxy on the way changes files; try another mirror.")
                                      .arg(file.filename),
                                  url.toString(QUrl::RemoveUserInfo)};
                    fail(e);
                    co_return e;
                }
            }
            co_return response->body;
        }
        fail(response.error());
        // An index that announces metadata but does not serve it: the wheel itself tells.
        if (response.error().code != u"http_error")
            co_return response.error();
    }
    Q_EMIT message(tr("The package index gives no dependency list for %1, so tfsetup reads it from the wheel itself "
                      "(fetched once and kept in the download folder).")
                       .arg(file.filename));
    auto path = co_await wheel(id);
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!path)
        co_return path.error();
    const QString wheelPath = *path;
    QFuture<Result<QByteArray>> reading = QtConcurrent::run([wheelPath] {
        return ArchiveReader::readMember(
            wheelPath, [](const QString &name) { return metadataMember().match(name).hasMatch(); }, maxMetadataBytes);
    });
    const Result<QByteArray> text = co_await reading;
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    co_return text;
}

QCoro::Task<Result<QByteArray>> IndexBridge::standIn(int id)
{
    if (m_standIns.contains(id))
        co_return m_standIns.value(id); // pip asks twice
    QPointer<IndexBridge> self(this);
    auto text = co_await metadata(id);
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!text)
        co_return text.error();
    const BridgedFile file = m_files.at(id);
    // PEP 427: {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl; the .dist-info
    // folder is named by the first two.
    const QStringList parts = file.filename.chopped(4).split(u'-');
    if (parts.size() < 5)
        co_return Error{QStringLiteral("index_file_invalid"), {}, file.filename};
    const QString info = parts.at(0) + u'-' + parts.at(1) + QStringLiteral(".dist-info/");
    QByteArray wheelFile = "Wheel-Version: 1.0\nGenerator: tfsetup\nRoot-Is-Purelib: true\n";
    for (const QString &python : parts.at(parts.size() - 3).split(u'.')) {
        for (const QString &abi : parts.at(parts.size() - 2).split(u'.')) {
            for (const QString &platform : parts.at(parts.size() - 1).split(u'.'))
                wheelFile += "Tag: " + QStringList{python, abi, platform}.join(u'-').toUtf8() + '\n';
        }
    }
    QTemporaryDir folder;
    if (!folder.isValid())
        co_return Error{QStringLiteral("write_failed"), {}, folder.errorString()};
    const QString path = folder.filePath(file.filename);
    const Status written = ArchiveWriter::write(
        path, ArchiveWriter::Zip,
        {{ArchiveWriter::Entry::File, info + QStringLiteral("METADATA"), *text},
         {ArchiveWriter::Entry::File, info + QStringLiteral("WHEEL"), wheelFile},
         {ArchiveWriter::Entry::File, info + QStringLiteral("RECORD"), {}}});
    if (!written)
        co_return written.error();
    QFile zip(path);
    if (!zip.open(QIODevice::ReadOnly))
        co_return Error{QStringLiteral("write_failed"), {}, zip.errorString()};
    const QByteArray bytes = zip.readAll();
    m_standIns.insert(id, bytes);
    co_return bytes;
}

QCoro::Task<Result<QString>> IndexBridge::wheel(int id)
{
    QPointer<IndexBridge> self(this);
    const BridgedFile file = m_files.at(id);
    if (!file.localPath.isEmpty() && QFileInfo(file.localPath).isFile())
        co_return file.localPath;
    const QString destination = QDir(m_options.cacheDir).filePath(file.filename);
    if (!file.sha256.isEmpty()) {
        if (!m_options.downloader)
            co_return Error{QStringLiteral("bad_request"), {}, {}};
        DownloadRequest request;
        request.name = file.filename;
        request.urls = {file.upstream};
        request.expectedSize = file.size;
        request.checksum = Checksum{Checksum::Algorithm::Sha256, file.sha256};
        request.destination = destination;
        request.segments = 4;
        auto fetched = co_await m_options.downloader->fetch(std::move(request));
        if (!self)
            co_return Error{QStringLiteral("cancelled"), {}, {}};
        if (!fetched) {
            fail(fetched.error());
            co_return fetched.error();
        }
        m_files[id].localPath = fetched->path;
        m_files[id].size = fetched->bytes;
        co_return fetched->path;
    }
    // No hash published anywhere: the first download is hashed and that hash is what the lock
    // pins from now on (marked so in the lock).
    Artifact artifact;
    artifact.name = file.filename;
    artifact.relativePath = file.filename;
    artifact.urls = {file.upstream};
    artifact.trust = Artifact::Trust::None;
    FirstUseOptions options;
    options.transfer = m_options.transfer;
    auto fetched = co_await FirstUse::fetch(artifact, destination, std::move(options));
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!fetched) {
        fail(fetched.error());
        co_return fetched.error();
    }
    m_files[id].sha256 = fetched->sha256.toLatin1();
    m_files[id].hashFromDownload = true;
    m_files[id].localPath = fetched->path;
    m_files[id].size = fetched->size;
    co_return fetched->path;
}

} // namespace tfsetup::core
