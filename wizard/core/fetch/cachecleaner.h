#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// What `tfsetup clean` (and the Options page's "Clean up") prunes: the download cache
// (DownloadCache's DIR/<algorithm>/<xx>/<digest> entries and their quarantine/ folders) by age,
// then by size, oldest first, and the run logs. An entry whose checksum is in `keep` (an
// environment's record or an offline bundle still refers to it) is never removed, nor one whose
// lock another tfsetup holds (it is being fetched or taken out). Deletions never follow a link
// (util/confinedremove).
struct CleanOptions {
    QString cacheDir;                      // host path; empty: no cache to clean
    std::optional<qint64> maxAgeDays = 90; // entries not changed for longer go; nullopt: any age
    std::optional<qint64> maxBytes;        // then the oldest go until the cache is this small
    QSet<QByteArray> keep;                 // lower-case hex digests
    QString logDir;                        // host path; empty: no logs to rotate
    qint64 logMaxAgeDays = 30;
    int logsKept = 10;  // the newest ones always stay (util/runlog's LogRetention: one rule)
    QString currentLog; // this run's log, never removed
    bool dryRun = false;
    QDateTime now = QDateTime::currentDateTimeUtc();
};

struct CleanReport {
    Q_DECLARE_TR_FUNCTIONS(CleanReport)
public:
    bool dryRun = false;
    int entriesRemoved = 0;
    qint64 cacheBytesFreed = 0;
    int entriesKeptReferenced = 0; // would have gone, but a record or bundle refers to them
    int entriesInUse = 0;          // their lock was held
    qint64 cacheBytesLeft = 0;
    int logsRemoved = 0;
    qint64 logBytesFreed = 0;
    QStringList removed; // relative to the cache or log folder, for the log

    qint64 bytesFreed() const { return cacheBytesFreed + logBytesFreed; }
    QJsonObject toJson() const;
    QString text() const;
};

// Blocking (walks folders, takes lock files): call it off the GUI thread.
CleanReport cleanDownloads(const CleanOptions &options);

// "500M", "2G", "1.5GB", "700MiB", "123" (bytes); nullopt when not a size.
std::optional<qint64> parseSize(const QString &text);

} // namespace tfsetup::core
