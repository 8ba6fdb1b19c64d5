#pragma once

#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <chrono>
#include <memory>
#include <optional>

class QTcpServer;
class QTcpSocket;

namespace tfsetup::core {

class Downloader;

// A file a project page listed, as the bridge knows it.
struct BridgedFile {
    QString project; // normalized
    QString filename;
    QUrl upstream;     // where the index said it is
    QString index;     // the index that listed it
    QByteArray sha256; // the index's hash, or what the first download hashed (hashFromDownload)
    qint64 size = -1;
    QString requiresPython;
    bool upstreamMetadata = false; // the index serves <upstream>.metadata (PEP 658)
    QByteArray metadataSha256;
    bool hashFromDownload = false;
    QString localPath; // set once the bridge had to download the wheel itself (verified)
};

// A package index on 127.0.0.1 that pip resolves through, so that pip never reaches the network
// itself: every page pip asks for is fetched by tfsetup's one HTTP client with the network
// settings' proxy, CA bundle and limits, from the indexes in order (the first index that serves a
// project's page is used for that project).
//
// pip resolves from wheels; what the bridge hands it for each one is a stand-in a few kilobytes
// long: the same file name, holding only the wheel's METADATA (and WHEEL), which is all a resolve
// reads. The METADATA comes from the index's PEP 658 metadata file, or, where an index serves
// none, from the real wheel, downloaded through the downloader (verified against the index's
// hash, or hashed on this first download when the index gives none), so that wheel is never
// fetched twice. This way no pip version downloads a real wheel to resolve (pip before 25.1
// fetched every wheel of a dry run, metadata or not), and pip's name checks see a wheel, which
// every version reads right (pip 22.3–23.1 refuse PEP 658 metadata whose Name is spelled
// differently from the requirement). The hashes and URLs of the lock come from the bridge's own
// record of the index, never from what pip saw.
//
// Paths carry a random token: another local user who finds the port gets nothing. Pages list
// wheels only (tfsetup installs no source distributions).
class IndexBridge final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IndexBridge)
public:
    struct Options {
        QList<QUrl> indexes;              // upstream simple indexes, in order
        TransferOptions transfer;         // for pages and metadata
        Downloader *downloader = nullptr; // wheels an index serves no metadata for; must outlive the bridge
        QString cacheDir;                 // where such wheels are downloaded to (cacheDir/<file name>)
        std::chrono::milliseconds pageTimeout{60000};
    };

    explicit IndexBridge(Options options, QObject *parent = nullptr);
    ~IndexBridge() override;

    const TransferOptions &transferOptions() const { return m_options.transfer; }

    // Listens on 127.0.0.1 (a free port).
    Status start();
    // What pip takes as --index-url: http://127.0.0.1:PORT/<token>/simple/
    QUrl indexUrl() const;

    // The file behind a URL pip reported (one of this bridge's), or nothing.
    std::optional<BridgedFile> fileFor(const QUrl &bridgeUrl) const;
    // The wheels a project's page lists (its page fetched as pip would), as bridge URLs.
    QCoro::Task<Result<QList<QUrl>>> projectFiles(QString project);
    // Downloads a listed wheel through the downloader (verified; hashed on this first download
    // when the index publishes no hash) and returns it with its local path, hash and size.
    QCoro::Task<Result<BridgedFile>> download(QUrl bridgeUrl);
    // The last failure reaching an index (a network cause, an index answering with something that
    // is not a package list): what to say when pip found nothing.
    std::optional<Error> lastFailure() const { return m_lastFailure; }
    // Requests pip made, for the log and the tests: "GET /…".
    int requestCount() const { return m_requests; }

Q_SIGNALS:
    // Translated lines worth showing ("Reading the dependencies of X from its wheel…").
    void message(const QString &line);

private:
    struct Page;
    void onConnection();
    void onReadable(QTcpSocket *socket);
    static QCoro::Task<> serve(QPointer<IndexBridge> self, QPointer<QTcpSocket> socket, QByteArray path);
    QCoro::Task<Result<QByteArray>> projectPage(QString project);
    int idOf(const QUrl &bridgeUrl) const;
    QUrl urlOf(qsizetype id) const;
    QCoro::Task<Result<QByteArray>> metadata(int id);
    QCoro::Task<Result<QByteArray>> standIn(int id);
    QCoro::Task<Result<QString>> wheel(int id);
    static void respond(QTcpSocket *socket, int status, const QByteArray &contentType, const QByteArray &body);
    void fail(const Error &error);

    Options m_options;
    QTcpServer *m_server = nullptr;
    QByteArray m_token;
    QList<BridgedFile> m_files;
    QHash<QString, QByteArray> m_pages; // project → the page served to pip
    QHash<int, QByteArray> m_standIns;  // file id → the stand-in wheel pip was given
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QHash<QTcpSocket *, bool> m_busy;
    std::optional<Error> m_lastFailure;
    int m_requests = 0;
};

} // namespace tfsetup::core
