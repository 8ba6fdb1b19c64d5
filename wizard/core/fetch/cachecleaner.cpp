#include "fetch/cachecleaner.h"

#include "fetch/checksum.h"
#include "fetch/downloadcache.h"
#include "util/confined.h"
#include "util/confinedremove.h"
#include "util/runlog.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QLockFile>
#include <QRegularExpression>

#include <algorithm>
#include <chrono>
#include <limits>

namespace tfsetup::core {

namespace {

struct Entry {
    QString relative;  // below the cache folder
    QByteArray digest; // empty for a quarantined file
    Checksum::Algorithm algorithm = Checksum::Algorithm::Sha256;
    qint64 size = 0;
    QDateTime modified;
};

bool isHex(const QString &name, int length)
{
    return name.size() == length && std::all_of(name.begin(), name.end(), [](QChar c) {
               return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
           });
}

// Plain files only, links never followed nor counted (one planted in a shared cache is not ours).
QList<QFileInfo> plainFiles(const QString &folder)
{
    QList<QFileInfo> files;
    if (isLink(folder))
        return files;
    for (const QFileInfo &info :
         QDir(folder).entryInfoList(QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        if (!info.isSymLink() && !info.isJunction())
            files.append(info);
    }
    return files;
}

QList<Entry> cacheEntries(const QString &cacheDir)
{
    QList<Entry> entries;
    const QList<std::pair<QString, Checksum::Algorithm>> algorithms{
        {QStringLiteral("sha256"), Checksum::Algorithm::Sha256}, {QStringLiteral("md5"), Checksum::Algorithm::Md5}};
    const auto quarantined = [&](const QString &folderRelative) {
        const QString relative = folderRelative.isEmpty() ? QStringLiteral("quarantine")
                                                          : folderRelative + QStringLiteral("/quarantine");
        if (!reachesWithoutLinks(cacheDir, relative + QStringLiteral("/x")))
            return;
        for (const QFileInfo &info : plainFiles(cacheDir + u'/' + relative)) {
            if (info.fileName().endsWith(QStringLiteral(".bad")))
                entries.append({relative + u'/' + info.fileName(),
                                {},
                                Checksum::Algorithm::Sha256,
                                info.size(),
                                info.lastModified()});
        }
    };
    quarantined({});
    for (const auto &[name, algorithm] : algorithms) {
        const QString top = cacheDir + u'/' + name;
        if (isLink(top) || !QFileInfo(top).isDir())
            continue;
        const int length = algorithm == Checksum::Algorithm::Sha256 ? 64 : 32;
        for (const QString &shard : QDir(top).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (!isHex(shard, 2) || isLink(top + u'/' + shard))
                continue;
            const QString shardRelative = name + u'/' + shard;
            for (const QFileInfo &info : plainFiles(top + u'/' + shard)) {
                if (!isHex(info.fileName(), length) || !info.fileName().startsWith(shard))
                    continue; // .lock files, a temporary name of a placement under way
                entries.append({shardRelative + u'/' + info.fileName(), info.fileName().toLatin1(), algorithm,
                                info.size(), info.lastModified()});
            }
            quarantined(shardRelative);
        }
    }
    return entries;
}

} // namespace

std::optional<qint64> parseSize(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(i?b?)\\s*$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    bool ok = false;
    const double number = match.captured(1).toDouble(&ok);
    if (!ok)
        return std::nullopt;
    const QString unit = match.captured(2).toLower();
    // Both spellings mean powers of 1024, as the sizes tfsetup prints do.
    const int power = unit.isEmpty() ? 0 : unit == u"k" ? 1 : unit == u"m" ? 2 : unit == u"g" ? 3 : 4;
    if (unit.isEmpty() && !match.captured(3).isEmpty() && match.captured(3).toLower() != u"b")
        return std::nullopt;
    double bytes = number;
    for (int i = 0; i < power; ++i)
        bytes *= 1024.0;
    if (bytes > double(qint64(1) << 60))
        return std::nullopt;
    return qint64(bytes);
}

CleanReport cleanDownloads(const CleanOptions &options)
{
    CleanReport report;
    report.dryRun = options.dryRun;
    if (!options.cacheDir.isEmpty() && QFileInfo(options.cacheDir).isDir()) {
        const DownloadCache cache(options.cacheDir);
        QList<Entry> entries = cacheEntries(cache.dir());
        // Oldest first: the size pass removes from the front.
        std::sort(entries.begin(), entries.end(),
                  [](const Entry &a, const Entry &b) { return a.modified < b.modified; });
        qint64 total = 0;
        for (const Entry &e : std::as_const(entries))
            total += e.size;
        QSet<QByteArray> inUse;
        const auto removeEntry = [&](const Entry &e) -> bool {
            if (!e.digest.isEmpty() && options.keep.contains(e.digest)) {
                ++report.entriesKeptReferenced;
                return false;
            }
            if (!options.dryRun) {
                // Held while the entry goes: a fetch or take-out under way keeps its file.
                std::unique_ptr<QLockFile> lock;
                if (!e.digest.isEmpty()) {
                    lock = cache.lock(Checksum{e.algorithm, e.digest}, nullptr, std::chrono::milliseconds(0));
                    if (!lock) {
                        ++report.entriesInUse;
                        inUse.insert(e.digest);
                        return false;
                    }
                }
                if (!removeFileConfined(cache.dir(), e.relative))
                    return false;
            }
            ++report.entriesRemoved;
            report.cacheBytesFreed += e.size;
            report.removed.append(e.relative);
            total -= e.size;
            return true;
        };
        QList<Entry> left;
        for (const Entry &e : std::as_const(entries)) {
            const bool old = options.maxAgeDays && e.modified.daysTo(options.now) > *options.maxAgeDays;
            if (!old || !removeEntry(e))
                left.append(e);
        }
        if (options.maxBytes) {
            for (const Entry &e : std::as_const(left)) {
                if (total <= *options.maxBytes)
                    break;
                // Counted once, in the age pass, when they were old.
                const bool old = options.maxAgeDays && e.modified.daysTo(options.now) > *options.maxAgeDays;
                if (old && (options.keep.contains(e.digest) || inUse.contains(e.digest)))
                    continue;
                (void)removeEntry(e);
            }
        }
        report.cacheBytesLeft = total;
    }
    if (!options.logDir.isEmpty()) {
        // The run logs' one rule (util/runlog): only tfsetup's own, never through a link.
        LogRetention retention;
        retention.kept = options.logsKept;
        retention.maxBytes = std::numeric_limits<qint64>::max();
        retention.olderThanDays = options.logMaxAgeDays;
        for (const QFileInfo &log : RunLog::expired(options.logDir, retention, options.currentLog, options.now)) {
            if (!options.dryRun && !removeFileConfined(options.logDir, log.fileName()))
                continue;
            ++report.logsRemoved;
            report.logBytesFreed += log.size();
            report.removed.append(QStringLiteral("logs/") + log.fileName());
        }
    }
    return report;
}

QJsonObject CleanReport::toJson() const
{
    return QJsonObject{
        {QStringLiteral("ok"), true},
        {QStringLiteral("dry_run"), dryRun},
        {QStringLiteral("bytes_freed"), bytesFreed()},
        {QStringLiteral("cache"),
         QJsonObject{{QStringLiteral("entries_removed"), entriesRemoved},
                     {QStringLiteral("bytes_freed"), cacheBytesFreed},
                     {QStringLiteral("kept_referenced"), entriesKeptReferenced},
                     {QStringLiteral("in_use"), entriesInUse},
                     {QStringLiteral("bytes_left"), cacheBytesLeft}}},
        {QStringLiteral("logs"),
         QJsonObject{{QStringLiteral("removed"), logsRemoved}, {QStringLiteral("bytes_freed"), logBytesFreed}}}};
}

QString CleanReport::text() const
{
    const QLocale locale;
    const auto size = [&](qint64 bytes) {
        return locale.formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
    };
    QString t = dryRun ? tr("Would free %1: %n cached download(s)", "", entriesRemoved).arg(size(bytesFreed()))
                       : tr("Freed %1: %n cached download(s)", "", entriesRemoved).arg(size(bytesFreed()));
    t += u' ' + tr("and %n old log(s).", "", logsRemoved) + u'\n';
    // A dry run changed nothing: it says what a real run would do, never what "now" is.
    if (entriesKeptReferenced > 0) {
        t += (dryRun ? tr("Would keep %n old download(s) that an environment or an offline bundle still needs.", "",
                          entriesKeptReferenced)
                     : tr("Kept %n old download(s) that an environment or an offline bundle still needs.", "",
                          entriesKeptReferenced))
            + u'\n';
    }
    if (entriesInUse > 0)
        t += tr("Kept %n download(s) another tfsetup is using right now.", "", entriesInUse) + u'\n';
    t += (dryRun ? tr("The download cache would then hold %1 (nothing was removed: this was a dry run).")
                 : tr("The download cache now holds %1."))
             .arg(size(cacheBytesLeft))
        + u'\n';
    return t;
}

} // namespace tfsetup::core
