#pragma once

#include "fetch/downloadcache.h"
#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QHash>
#include <QObject>
#include <QSemaphore>
#include <QThreadPool>

#include <atomic>
#include <memory>

namespace tfsetup::core {

// Fetches artifacts: mirrors in order, resumable, optionally segmented, hashed while bytes
// arrive, cached by checksum. Nothing reaches the destination before its checksum verified; a
// file that fails verification is quarantined and named in the error, never left where it
// could be used. Transfers run on worker threads (libcurl), so awaiting fetch() never blocks
// the thread it is called from.
class Downloader final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Downloader)
public:
    explicit Downloader(TransferOptions options = {}, DownloadCache cache = DownloadCache(), QObject *parent = nullptr);
    ~Downloader() override;

    // How many artifacts transfer at once, and how many connections they may open in total.
    void setMaxParallel(int downloads);
    void setMaxConnections(int connections);
    const TransferOptions &options() const { return m_options; }

    QCoro::Task<Result<DownloadResult>> fetch(DownloadRequest request);

    // Stops a transfer; what arrived stays in DESTINATION.part, and the next fetch() of the same
    // request resumes from there (also after the program restarted). Pause is the same.
    void cancel(const QString &name);
    void cancelAll();

    static QString partPathFor(const QString &destination);

    // The speed floor as a command line gives it (--min-speed): BYTES_PER_SECOND[:SECONDS], the
    // number optionally ending in k or M (KiB, MiB); 0 turns the floor off. Sets options' floor
    // (and window, when given); on a malformed value says what is expected and changes nothing.
    static Status parseSpeedFloor(const QString &text, TransferOptions *options);

Q_SIGNALS:
    void progress(const tfsetup::core::DownloadProgress &progress);

private:
    struct Outcome;
    Outcome runJob(const DownloadRequest &request, const std::atomic<bool> &cancel);
    void reportProgress(const DownloadProgress &progress);

    TransferOptions m_options;
    DownloadCache m_cache;
    QThreadPool m_pool;
    int m_maxConnections = 8; // before m_connections, which is initialised from it
    QSemaphore m_connections;
    QHash<QString, std::shared_ptr<std::atomic<bool>>> m_cancelFlags;
};

} // namespace tfsetup::core
