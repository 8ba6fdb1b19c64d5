#include "fetch/downloadcache.h"

#include "util/confined.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QUuid>

#include <cstdio>
#include <filesystem>

namespace tfsetup::core {

namespace {

class CacheText {
    Q_DECLARE_TR_FUNCTIONS(CacheText)
};

} // namespace

DownloadCache::DownloadCache(QString dir)
    : m_dir(std::move(dir))
{
}

QString DownloadCache::defaultDir()
{
    const QString overridden = qEnvironmentVariable("TFSETUP_CACHE_DIR");
    if (!overridden.isEmpty())
        return overridden;
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + QLatin1String("/tfsetup/downloads");
}

QString DownloadCache::pathFor(const Checksum &checksum) const
{
    const QString hex = QString::fromLatin1(checksum.hex);
    return m_dir + u'/' + checksum.algorithmName() + u'/' + hex.left(2) + u'/' + hex;
}

Result<bool> DownloadCache::takeOut(const Checksum &checksum, const QString &destination, const std::atomic<bool> *cancel) const
{
    if (!isEnabled() || !checksum.isValid())
        return false;
    const QString cached = pathFor(checksum);
    // The cache folder is shared: an entry (or a folder on the way) that is a link was planted,
    // and taking it out would make the download a link to some other file. The link goes.
    if (!reachesWithoutLinks(m_dir, QDir(m_dir).relativeFilePath(cached)))
        return false;
    if (isLink(cached)) {
        QFile::remove(cached);
        return false;
    }
    if (!QFileInfo(cached).isFile())
        return false;
    auto digest = hashFile(checksum.algorithm, cached, cancel);
    if (!digest)
        return digest.error();
    if (*digest != checksum.hex) {
        const QString moved = quarantineFile(cached);
        return Error{QStringLiteral("cache_corrupt"),
                     CacheText::tr("The cached copy %1 does not match its checksum and was set aside as %2. It will be "
                        "downloaded again.")
                         .arg(QDir::toNativeSeparators(cached), QDir::toNativeSeparators(moved)),
                     QStringLiteral("expected %1, got %2").arg(QString::fromLatin1(checksum.hex), QString::fromLatin1(*digest))};
    }
    const Status placed = placeFile(cached, destination, false);
    if (!placed)
        return placed.error();
    return true;
}

void DownloadCache::putIn(const Checksum &checksum, const QString &verifiedFile) const
{
    if (!isEnabled() || !checksum.isValid())
        return;
    const QString target = pathFor(checksum);
    // Never through a planted folder link into another place; a planted entry link is replaced
    // by the verified file (placeFile renames over the name, it does not write through it).
    if (!reachesWithoutLinks(m_dir, QDir(m_dir).relativeFilePath(target)))
        return;
    if (QFileInfo::exists(target) && !isLink(target))
        return;
    QDir().mkpath(QFileInfo(target).absolutePath());
    (void)placeFile(verifiedFile, target, false);
}

std::unique_ptr<QLockFile> DownloadCache::lock(const Checksum &checksum, const std::atomic<bool> *cancel,
                                               std::chrono::milliseconds patience) const
{
    if (!isEnabled() || !checksum.isValid())
        return nullptr;
    const QString path = pathFor(checksum) + QLatin1String(".lock");
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return nullptr;
    auto lockFile = std::make_unique<QLockFile>(path);
    // A fetch may hold the lock for many minutes: never call it stale by age. A holder that died
    // on this machine is recognised by its process id; one on another machine only by patience.
    lockFile->setStaleLockTime(0);
    QElapsedTimer waited;
    waited.start();
    while (!lockFile->tryLock(200)) {
        if (lockFile->error() == QLockFile::PermissionError || lockFile->error() == QLockFile::UnknownError)
            return nullptr;
        if ((cancel && cancel->load()) || waited.elapsed() > patience.count())
            return nullptr;
    }
    return lockFile;
}

QString quarantineFile(const QString &path)
{
    const QFileInfo info(path);
    const QString dir = info.absolutePath() + QLatin1String("/quarantine");
    QDir().mkpath(dir);
    const QString target = dir + u'/' + info.fileName() + u'.'
                           + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddTHHmmsszzz")) + QLatin1String(".bad");
    if (QFile::rename(path, target))
        return target;
    QFile::remove(path);
    return {};
}

Status placeFile(const QString &source, const QString &destination, bool move)
{
    const QFileInfo destInfo(destination);
    if (!QDir().mkpath(destInfo.absolutePath())) {
        return Error{QStringLiteral("permission_denied"),
                     CacheText::tr("Cannot create the folder %1. Choose a folder you may write to.").arg(QDir::toNativeSeparators(destInfo.absolutePath())),
                     {}};
    }
    // Replaced in one step (rename over it): a reader never finds the destination missing,
    // which matters when several processes place the same file in a shared folder.
    const auto replace = [&destination](const QString &from) {
        std::error_code error;
        std::filesystem::rename(QFile(from).filesystemFileName(), QFile(destination).filesystemFileName(), error);
        return !error;
    };
    if (move && replace(source))
        return Ok{};
    // Unique per writer: several processes may place the same file at once.
    const QString temp = destination + QLatin1String(".tfsetup-tmp-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    // A hard link where the file system allows it (the cache and the download folder are usually
    // on one disk: no second copy of a gigabyte archive), else a copy.
    std::error_code linkError;
    std::filesystem::create_hard_link(QFile(source).filesystemFileName(), QFile(temp).filesystemFileName(), linkError);
    if (linkError && !QFile::copy(source, temp)) {
        QFile::remove(temp);
        return Error{QStringLiteral("write_failed"),
                     CacheText::tr("Cannot write %1. Check that the disk has room and that you may write there.").arg(QDir::toNativeSeparators(destination)),
                     {}};
    }
    const bool replaced = replace(temp);
    // Renaming a hard link over another link to the same file does nothing (POSIX): the
    // destination already is that file, and the temporary name goes.
    QFile::remove(temp);
    if (!replaced)
        return Error{QStringLiteral("write_failed"), CacheText::tr("Cannot write %1.").arg(QDir::toNativeSeparators(destination)), {}};
    if (move)
        QFile::remove(source);
    return Ok{};
}

} // namespace tfsetup::core
