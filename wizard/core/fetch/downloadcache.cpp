#include "fetch/downloadcache.h"

#include "util/confined.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QMutex>
#include <QStandardPaths>
#include <QSysInfo>

#include <cstdio>
#include <vector>

namespace tfsetup::core {

namespace {

class CacheText {
    Q_DECLARE_TR_FUNCTIONS(CacheText)
};

} // namespace

DownloadCache::DownloadCache(QString dir)
    // Entries are placed relative to the folder's own handle: a relative folder ("--cache c")
    // would be joined to itself ("c/c/sha256/…") and its entries never found again.
    : m_dir(dir.isEmpty() ? dir : QDir(dir).absolutePath())
{}

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

Result<bool> DownloadCache::takeOut(const Checksum &checksum, const QString &destination,
                                    const std::atomic<bool> *cancel) const
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
        const QString moved = quarantineFile(m_dir, QDir(m_dir).relativeFilePath(cached));
        return Error{
            QStringLiteral("cache_corrupt"),
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
    const QString relative = QDir(m_dir).relativeFilePath(target);
    if (!reachesWithoutLinks(m_dir, relative))
        return;
    if (QFileInfo::exists(target) && !isLink(target))
        return;
    (void)placeConfined(verifiedFile, m_dir, relative, PlaceHow::LinkOrCopy);
}

namespace {

// A lock that must never be unlocked (its unlock removes by name, and the name now leads
// through a link) is kept until the process ends instead of being destroyed; the list is never
// freed, so no destructor runs at exit either, and the memory stays reachable rather than leaked.
void abandonLock(std::unique_ptr<QLockFile> lockFile)
{
    static QBasicMutex mutex;
    static auto *const abandoned = new std::vector<std::unique_ptr<QLockFile>>;
    const QMutexLocker locker(&mutex);
    abandoned->push_back(std::move(lockFile));
}

} // namespace

std::unique_ptr<QLockFile> DownloadCache::lock(const Checksum &checksum, const std::atomic<bool> *cancel,
                                               std::chrono::milliseconds patience) const
{
    if (!isEnabled() || !checksum.isValid())
        return nullptr;
    const QString path = pathFor(checksum) + QLatin1String(".lock");
    const QString relative = QDir(m_dir).relativeFilePath(path);
    const QString name = relative.section(u'/', -1);
    // QLockFile opens the lock by name. Its folder is reached without following a link planted
    // in a shared cache and held open; right before each try and right after the lock is taken,
    // the name must still lead into that folder (else: go ahead without the lock).
    auto folder = ConfinedFolder::open(m_dir, relative.section(u'/', 0, -2));
    if (!folder)
        return nullptr;
    auto lockFile = std::make_unique<QLockFile>(folder->path() + u'/' + name);
    // A fetch may hold the lock for many minutes: never call it stale by age. A holder that died
    // on this machine is recognised by its process id; one on another machine only by patience.
    lockFile->setStaleLockTime(0);
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        if (!folder->leadsHere(name))
            return nullptr;
        if (lockFile->tryLock(200))
            break;
        if (lockFile->error() == QLockFile::PermissionError || lockFile->error() == QLockFile::UnknownError)
            return nullptr;
        if ((cancel && cancel->load()) || waited.elapsed() > patience.count())
            return nullptr;
    }
    if (!folder->holdsPlainFile(name)) {
        // A link appeared on the way while the lock was taken. The file QLockFile made is removed
        // by the same name only when that name leads to it (it holds this process's id); else
        // the handle is let go without removing anything through the link.
        qint64 pid = 0;
        QString host;
        QString application;
        if (!lockFile->getLockInfo(&pid, &host, &application) || pid != QCoreApplication::applicationPid()
            || host != QSysInfo::machineHostName())
            abandonLock(std::move(lockFile));
        return nullptr;
    }
    return lockFile;
}

QString quarantineFile(const QString &path)
{
    // Only beside the file itself: a relative name would put the quarantine folder wherever the
    // process happens to run.
    const QFileInfo info(path);
    if (path.isEmpty() || info.isRelative())
        return {};
    return quarantineFile(info.absolutePath(), info.fileName());
}

QString quarantineFile(const QString &root, const QString &relative)
{
    const QString name = relative.section(u'/', -1);
    const QString folder = relative.section(u'/', 0, -2);
    const QString aside = (folder.isEmpty() ? QString() : folder + u'/') + QLatin1String("quarantine/") + name + u'.'
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddTHHmmsszzz")) + QLatin1String(".bad");
    // Moved from and into folders reached without following a link (a link at the name moves as
    // the link): a planted quarantine folder link receives nothing.
    if (renameConfined(root, relative, root, aside))
        return root + u'/' + aside;
    if (reachesWithoutLinks(root, relative))
        QFile::remove(root + u'/' + relative); // unlink: a link at the name goes, never its target
    return {};
}

Status placeFile(const QString &source, const QString &destination, bool move)
{
    const QFileInfo destInfo(destination);
    if (!QDir().mkpath(destInfo.absolutePath())) {
        return Error{QStringLiteral("permission_denied"),
                     CacheText::tr("Cannot create the folder %1. Choose a folder you may write to.")
                         .arg(QDir::toNativeSeparators(destInfo.absolutePath())),
                     {}};
    }
    // Replaced in one step (rename over it): a reader never finds the destination missing,
    // which matters when several processes place the same file in a shared folder. The folder is
    // held open on the way, so a link swapped in for it, or a source swapped for a link, is
    // refused (placeConfined).
    return placeConfined(source, destInfo.absolutePath(), destInfo.fileName(),
                         move ? PlaceHow::Move : PlaceHow::LinkOrCopy);
}

} // namespace tfsetup::core
