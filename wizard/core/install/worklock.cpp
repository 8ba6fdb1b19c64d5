#include "install/worklock.h"

#include "util/confined.h"
#include "util/names.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QRandomGenerator>
#include <QStorageInfo>
#include <QSysInfo>

namespace tfsetup::core {

const QString WorkLock::markerName = QStringLiteral(".tfsetup-owner");
const QString WorkLock::journalName = QStringLiteral("commit-journal.json");

namespace {

constexpr qint64 maxRecordBytes = 1024 * 1024;

QString randomId()
{
    auto *random = QRandomGenerator::global();
    return QString::number(random->generate64(), 16).rightJustified(16, u'0')
        + QString::number(random->generate64(), 16).rightJustified(16, u'0');
}

QString randomSuffix()
{
    return QString::number(QRandomGenerator::global()->generate64() & 0xffffffffffffULL, 36);
}

bool existsOrLink(const QString &path)
{
    return QFileInfo::exists(path) || QFileInfo(path).isSymLink();
}

QByteArray readSmall(const QString &path, qint64 limit)
{
    if (isLink(path) || !QFileInfo(path).isFile())
        return {};
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.read(limit + 1);
}

// Written below `root` one folder at a time without following a link (util/confined), then
// renamed over the name: a link planted at the name is replaced, one planted on the way refused.
bool writeSmall(const QString &root, const QString &relative, const QByteArray &bytes)
{
    return bool(writeConfined(root, relative, bytes));
}

// A folder tfsetup recorded is removed only when it is still a real folder: a link that took its
// place is removed as a link, never followed (removeRecursively would empty its target).
bool removeRecordedFolder(const QString &path)
{
    if (isLink(path))
        return QFile::remove(path);
    return QDir(path).removeRecursively();
}

} // namespace

WorkLock::~WorkLock()
{
    // Only a holder writes the records: one that did not get the lock never touches them.
    if (m_lock && m_lock->isLocked()) {
        save();
        m_lock->unlock();
    }
}

Result<std::unique_ptr<WorkLock>> WorkLock::acquire(const QString &hostPrefix, const QString &name,
                                                    const QString &shownPath)
{
    std::unique_ptr<WorkLock> lock(new WorkLock);
    lock->m_prefix = hostPrefix;
    lock->m_name = name;
    const QString base = hostPrefix + u"/." + name;
    lock->m_lock = std::make_unique<QLockFile>(base + QStringLiteral(".tfsetup-lock"));
    // An install may hold it for an hour: never stale by age, only when its process is gone.
    lock->m_lock->setStaleLockTime(0);
    if (!lock->m_lock->tryLock(500)) {
        const QString lockPath = base + QStringLiteral(".tfsetup-lock");
        if (lock->m_lock->error() == QLockFile::LockFailedError) {
            qint64 pid = 0;
            QString host, application;
            // A holder on another computer (a prefix on a shared disk) cannot be seen from here:
            // its lock is never taken over, so the message says whose it is and how to free it.
            const bool readable = lock->m_lock->getLockInfo(&pid, &host, &application);
            // A lock that names no process (damaged, or a link to some other file) is no run's:
            // waiting would never end, so the message says how to free it.
            if (!readable || isLink(lockPath)) {
                return Error{QStringLiteral("environment_busy"),
                             QCoreApplication::translate("WorkLock",
                                                         "%1 is locked by %2, which names no running install or "
                                                         "repair (it is damaged or a link to another file). If "
                                                         "none is running, delete %2, then try again.")
                                 .arg(shownPath, QDir::toNativeSeparators(lockPath)),
                             lockPath};
            }
            if (!host.isEmpty() && host != QSysInfo::machineHostName()) {
                return Error{QStringLiteral("environment_busy"),
                             QCoreApplication::translate("WorkLock",
                                                         "Another install or repair of %1 runs on the computer %3 "
                                                         "(process %2), or was stopped there. Wait until it has "
                                                         "finished. If nothing runs there any more, delete %4, then "
                                                         "try again.")
                                 .arg(shownPath)
                                 .arg(pid)
                                 .arg(host, QDir::toNativeSeparators(lockPath)),
                             lockPath};
            }
            return Error{QStringLiteral("environment_busy"),
                         QCoreApplication::translate("WorkLock",
                                                     "Another install or repair of %1 is running. Wait "
                                                     "until it has finished, then try again.")
                             .arg(shownPath),
                         lockPath};
        }
        // Say which of the causes it is: each has its own remedy.
        const QStorageInfo disk(hostPrefix);
        if (disk.isValid() && disk.isReadOnly()) {
            return Error{QStringLiteral("write_failed"),
                         QCoreApplication::translate("WorkLock",
                                                     "Cannot write %1: the install folder is on a disk "
                                                     "that is read-only here. Choose another folder "
                                                     "(--prefix), or mount that disk writable.")
                             .arg(shownPath),
                         lockPath};
        }
        if (disk.isValid() && disk.bytesAvailable() < 64 * 1024) {
            return Error{QStringLiteral("disk_full"),
                         QCoreApplication::translate("WorkLock",
                                                     "Cannot write %1: the disk of the install folder is "
                                                     "full. Free some space there or choose a folder on "
                                                     "another disk, then try again.")
                             .arg(shownPath),
                         lockPath};
        }
        return Error{QStringLiteral("write_failed"),
                     QCoreApplication::translate("WorkLock",
                                                 "Cannot write %1. Check the free space and that the "
                                                 "install folder is yours.")
                         .arg(shownPath),
                     lockPath};
    }
    const QByteArray bytes = readSmall(base + QStringLiteral(".tfsetup-work.json"), maxRecordBytes);
    const QJsonArray folders = QJsonDocument::fromJson(bytes).object().value(QStringLiteral("folders")).toArray();
    for (const QJsonValue &v : folders) {
        const QJsonObject o = v.toObject();
        Record r{o.value(QStringLiteral("name")).toString(), o.value(QStringLiteral("id")).toString(),
                 o.value(QStringLiteral("role")).toString()};
        // Only names this class makes: one component beside the environment, never a path.
        if (r.id.size() == 32 && r.name.startsWith(u'.' + name + u'.') && !r.name.contains(u'/')
            && !r.name.contains(u'\\') && r.name != u".." && (r.role == u"staging" || r.role == u"previous"))
            lock->m_records.append(r);
    }
    return lock;
}

bool WorkLock::save() const
{
    const QString path = m_prefix + u"/." + m_name + QStringLiteral(".tfsetup-work.json");
    if (m_records.isEmpty())
        return !existsOrLink(path) || QFile::remove(path);
    QJsonArray folders;
    for (const Record &r : m_records) {
        folders.append(QJsonObject{
            {QStringLiteral("name"), r.name}, {QStringLiteral("id"), r.id}, {QStringLiteral("role"), r.role}});
    }
    return writeSmall(m_prefix, u'.' + m_name + QStringLiteral(".tfsetup-work.json"),
                      QJsonDocument(QJsonObject{{QStringLiteral("folders"), folders}}).toJson());
}

bool WorkLock::ownedBy(const QString &hostFolder, const QString &id) const
{
    if (isLink(hostFolder) || !QFileInfo(hostFolder).isDir())
        return false;
    // readSmall returns one byte past the limit: a longer marker is not this id followed by more.
    const QByteArray marker = readSmall(hostFolder + u'/' + markerName, 64);
    return marker.size() <= 64 && marker.trimmed() == id.toLatin1();
}

Result<QString> WorkLock::makeStaging(const QString &tag)
{
    const QString name = u'.' + m_name + u'.' + tag + u'-' + randomSuffix();
    const QString path = m_prefix + u'/' + name;
    const Record record{name, randomId(), QStringLiteral("staging")};
    // Recorded first: a crash right after mkdir still leaves a folder recovery may remove.
    m_records.append(record);
    const bool made = save() && QDir().mkdir(path);
    if (!made || !writeSmall(m_prefix, name + u'/' + markerName, record.id.toLatin1())) {
        if (made)
            removeRecordedFolder(path);
        m_records.removeLast();
        save();
        return Error{QStringLiteral("write_failed"), {}, path};
    }
    return path;
}

Result<QString> WorkLock::prepareSetAside()
{
    const QString name = u'.' + m_name + QStringLiteral(".previous-") + randomSuffix();
    const Record record{name, randomId(), QStringLiteral("previous")};
    m_records.append(record);
    if (!save() || !writeSmall(m_prefix, m_name + u'/' + markerName, record.id.toLatin1())) {
        m_records.removeLast();
        save();
        return Error{QStringLiteral("write_failed"), {}, m_prefix + u'/' + m_name};
    }
    return QString(m_prefix + u'/' + name);
}

void WorkLock::forget(const QString &hostPath)
{
    drop(hostPath);
    save();
}

void WorkLock::drop(const QString &hostPath)
{
    const QString name = QFileInfo(hostPath).fileName();
    for (qsizetype i = 0; i < m_records.size(); ++i) {
        if (m_records.at(i).name == name) {
            // The environment may now carry the folder's marker (a staging folder renamed into place).
            const QString envMarker = m_prefix + u'/' + m_name + u'/' + markerName;
            if (readSmall(envMarker, 64).trimmed() == m_records.at(i).id.toLatin1())
                QFile::remove(envMarker);
            m_records.removeAt(i);
            break;
        }
    }
}

bool WorkLock::writeJournal(const QString &hostStaging, const QList<JournalEntry> &entries)
{
    QJsonArray list;
    for (const JournalEntry &e : entries) {
        list.append(QJsonObject{{QStringLiteral("path"), e.path},
                                {QStringLiteral("staged"), e.staged},
                                {QStringLiteral("keepOld"), e.keepOld}});
    }
    // The staging folder is the root: its journal is written inside it, never through a link.
    if (isLink(hostStaging))
        return false;
    return writeSmall(hostStaging, journalName, QJsonDocument(QJsonObject{{QStringLiteral("renames"), list}}).toJson());
}

QStringList WorkLock::replayJournal(const QString &hostStaging)
{
    QStringList done;
    const QByteArray bytes = readSmall(hostStaging + u'/' + journalName, maxRecordBytes);
    if (bytes.isEmpty())
        return done;
    const QString env = m_prefix + u'/' + m_name;
    const QJsonArray renames = QJsonDocument::fromJson(bytes).object().value(QStringLiteral("renames")).toArray();
    for (const QJsonValue &v : renames) {
        const QJsonObject o = v.toObject();
        const QString path = o.value(QStringLiteral("path")).toString();
        const QString staged = o.value(QStringLiteral("staged")).toString();
        // Every side of each rename stays where it belongs: a link planted in the environment or
        // in the staging folder (".../lnk/secret.txt") would move a file from elsewhere.
        if (!isSafeRelativeName(path) || (!staged.isEmpty() && !isSafeRelativeName(staged))
            || !reachesWithoutLinks(env, path) || !reachesWithoutLinks(hostStaging, QStringLiteral("old/") + path)
            || (!staged.isEmpty() && !reachesWithoutLinks(hostStaging, staged)))
            continue;
        const QString target = env + u'/' + path;
        const QString old = hostStaging + QStringLiteral("/old/") + path;
        if (!existsOrLink(old))
            continue; // not begun, or finished
        if (!existsOrLink(target)) {
            const QString from = hostStaging + u'/' + staged;
            QDir().mkpath(QFileInfo(target).absolutePath());
            if (!staged.isEmpty() && existsOrLink(from) && QFile::rename(from, target)) {
                done.append(QStringLiteral("finished the interrupted repair of %1").arg(path));
            } else {
                if (QFile::rename(old, target))
                    done.append(QStringLiteral("put back %1 after an interrupted repair").arg(path));
                continue;
            }
        }
        if (o.value(QStringLiteral("keepOld")).toBool()) {
            QString backup = target + QStringLiteral(".user-backup");
            for (int n = 2; existsOrLink(backup); ++n)
                backup = target + QStringLiteral(".user-backup-%1").arg(n);
            if (QFile::rename(old, backup))
                done.append(QStringLiteral("kept your edited %1 as %2").arg(path, QDir(env).relativeFilePath(backup)));
        }
    }
    return done;
}

QStringList WorkLock::recover()
{
    QStringList done;
    const QString env = m_prefix + u'/' + m_name;
    const QList<Record> records = m_records;
    for (const Record &r : records) {
        const QString path = m_prefix + u'/' + r.name;
        if (!existsOrLink(path)) {
            drop(path); // removed already, or renamed into place (its marker goes with drop)
            continue;
        }
        if (!ownedBy(path, r.id)) {
            done.append(QStringLiteral("left %1 alone: it does not carry the mark tfsetup gave it").arg(r.name));
            drop(path);
            continue;
        }
        if (r.role == u"staging") {
            done += replayJournal(path);
            if (removeRecordedFolder(path)) {
                done.append(QStringLiteral("removed unfinished staging folder %1").arg(r.name));
                drop(path);
            }
        } else if (existsOrLink(env)) {
            // The switch had happened: the replacement is in place.
            if (removeRecordedFolder(path)) {
                done.append(QStringLiteral("removed the replaced environment %1").arg(r.name));
                drop(path);
            }
        } else if (QDir().rename(path, env)) {
            done.append(QStringLiteral("restored %1 after an interrupted switch").arg(m_name));
            drop(path);
        }
    }
    // Saved once: saving after each folder made a work record of many entries (a damaged or
    // planted one) quadratic to recover. A crash before this save leaves records whose folders
    // are gone or not tfsetup's, which the next recovery drops again.
    save();
    return done;
}

} // namespace tfsetup::core
