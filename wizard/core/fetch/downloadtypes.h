#pragma once

#include "fetch/checksum.h"

#include <QList>
#include <QString>
#include <QUrl>

#include <chrono>

namespace tfsetup::core {

// One artifact to fetch. Mirrors only change where bytes come from: the checksum, taken from
// the official manifest, alone decides what is accepted.
struct DownloadRequest {
    QString name;     // shown in progress and errors: "cudnn 8.9.7 (windows-x86_64)"
    QList<QUrl> urls; // in mirror order
    qint64 expectedSize = -1;
    Checksum checksum;
    QString destination; // written only once verified
    int segments = 1;    // parallel ranges, like `aria2c -x N`, for servers that throttle each connection
};

struct DownloadResult {
    QString path; // the verified file (== request.destination)
    qint64 bytes = 0;
    QUrl source; // the mirror it came from; empty when it came from the cache
    bool fromCache = false;
    bool weakChecksum = false; // verified by MD5 only
};

struct DownloadProgress {
    QString name;
    qint64 received = 0;
    qint64 total = -1;
    double bytesPerSecond = 0;
    QUrl mirror;
    enum class Stage { Waiting, Connecting, Downloading, Verifying, Done, Failed } stage = Stage::Waiting;
    // A translated line for the log and the progress display when something worth saying
    // happened (a mirror dropped as too slow, and where the download goes on); empty otherwise.
    QString note;
};

struct TransferOptions {
    QString proxy;    // explicit proxy ("http://host:3128", "socks5h://host:1080"); empty: environment / system
    QString caBundle; // an extra CA bundle (PEM) for lab or corporate TLS proxies; verification stays on
    std::chrono::seconds connectTimeout{20};
    std::chrono::seconds stallTimeout{30}; // no byte for this long: give up on this mirror
    // The speed floor: a download that averages below lowSpeedBytesPerSecond (all its
    // connections together) over lowSpeedTime is "too slow" there; the mirror is dropped and the
    // download continues from the next one, keeping its bytes. The last source left is not
    // dropped but resumed like a stalled one (retriesPerMirror), and only then reported too slow.
    // 0: off, only a stall (no byte for stallTimeout) ends a transfer.
    //
    // 10 KiB/s over 60 s: a slow campus or dormitory link, a 256 kbit/s share of a crowded one,
    // still brings 32 KB/s, three times the floor, and a minute's average rides out a dropped
    // Wi-Fi or a congested moment, so such a link is never dropped. Below 10 KiB/s a 1 GB cuDNN or
    // CUDA archive takes more than a day: a mirror that trickles like that is worth leaving for any
    // other source. Document requests (manifests, JSON answers) end by their own timeout, 30 s
    // unless a caller asks for more, before such a window fills, so the floor does not change them.
    qint64 lowSpeedBytesPerSecond = 10 * 1024;
    std::chrono::seconds lowSpeedTime{60};
    // Resumed retries after a dropped connection, in a row: an attempt that brought at least
    // progressBytes starts the count again, so a link that drops every few minutes, or a server
    // that cuts every response, still delivers a file of any size, each try going on from where
    // the last one stopped. Attempts that bring less (a trickle) use the count up.
    int retriesPerMirror = 3;
    qint64 progressBytes = 1024 * 1024;
    qint64 minSegmentBytes = 4 * 1024 * 1024;
    QString userAgent = QStringLiteral("tfsetup");
    // With several mirrors, ask them all first (HEAD) and start with the fastest that has the file.
    bool probeMirrors = true;
    std::chrono::milliseconds probeBudget{3000};
    // How long to wait for another process that is fetching the same file into the shared cache
    // before fetching it anyway.
    std::chrono::milliseconds cacheLockPatience{std::chrono::minutes(30)};

    friend bool operator==(const TransferOptions &, const TransferOptions &) = default;
};

} // namespace tfsetup::core
