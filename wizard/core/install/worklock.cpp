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
#include <QSaveFile>

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

bool writeSmall(const QString &path, const QByteArray &bytes)
{
    // QSaveFile renames over the name: a link planted there is replaced, never written through.
    QSaveFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.commit();
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
        if (lock->m_lock->error() == QLockFile::LockFailedError) {
            return Error{QStringLiteral("environment_busy"),
                         QCoreApplication::translate("WorkLock", "Another install or repair of %1 is running. Wait "
                                                                 "until it has finished, then try again.")
                             .arg(shownPath),
                         base + QStringLiteral(".tfsetup-lock")};
        }
        return Error{QStringLiteral("write_failed"),
                     QCoreApplication::translate("WorkLock", "Cannot write %1. Check the free space and that the "
                                                             "install folder is yours.")
                         .arg(shownPath),
                     base + QStringLiteral(".tfsetup-lock")};
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
        folders.append(QJsonObject{{QStringLiteral("name"), r.name}, {QStringLiteral("id"), r.id},
                                   {QStringLiteral("role"), r.role}});
    }
    return writeSmall(path, QJsonDocument(QJsonObject{{QStringLiteral("folders"), folders}}).toJson());
}

bool WorkLock::ownedBy(const QString &hostFolder, const QString &id) const
{
    if (isLink(hostFolder) || !QFileInfo(hostFolder).isDir())
        return false;
    return readSmall(hostFolder + u'/' + markerName, 64).trimmed() == id.toLatin1();
}

Result<QString> WorkLock::makeStaging(const QString &tag)
{
    const QString name = u'.' + m_name + u'.' + tag + u'-' + randomSuffix();
    const QString path = m_prefix + u'/' + name;
    const Record record{name, randomId(), QStringLiteral("staging")};
    // Recorded first: a crash right after mkdir still leaves a folder recovery may remove.
    m_records.append(record);
    const bool made = save() && QDir().mkdir(path);
    if (!made || !writeSmall(path + u'/' + markerName, record.id.toLatin1())) {
        if (made)
            QDir(path).removeRecursively();
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
    if (!save() || !writeSmall(m_prefix + u'/' + m_name + u'/' + markerName, record.id.toLatin1())) {
        m_records.removeLast();
        save();
        return Error{QStringLiteral("write_failed"), {}, m_prefix + u'/' + m_name};
    }
    return QString(m_prefix + u'/' + name);
}

void WorkLock::forget(const QString &hostPath)
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
    save();
}

bool WorkLock::writeJournal(const QString &hostStaging, const QList<JournalEntry> &entries)
{
    QJsonArray list;
    for (const JournalEntry &e : entries) {
        list.append(QJsonObject{{QStringLiteral("path"), e.path}, {QStringLiteral("staged"), e.staged},
                                {QStringLiteral("keepOld"), e.keepOld}});
    }
    return writeSmall(hostStaging + u'/' + journalName, QJsonDocument(QJsonObject{{QStringLiteral("renames"), list}}).toJson());
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
        if (!isSafeRelativeName(path) || (!staged.isEmpty() && !isSafeRelativeName(staged))
            || !reachesWithoutLinks(env, path) || !reachesWithoutLinks(hostStaging, QStringLiteral("old/") + path))
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
            forget(path); // removed already, or renamed into place (its marker goes with forget)
            continue;
        }
        if (!ownedBy(path, r.id)) {
            done.append(QStringLiteral("left %1 alone: it does not carry the mark tfsetup gave it").arg(r.name));
            forget(path);
            continue;
        }
        if (r.role == u"staging") {
            done += replayJournal(path);
            if (QDir(path).removeRecursively()) {
                done.append(QStringLiteral("removed unfinished staging folder %1").arg(r.name));
                forget(path);
            }
        } else if (existsOrLink(env)) {
            // The switch had happened: the replacement is in place.
            if (QDir(path).removeRecursively()) {
                done.append(QStringLiteral("removed the replaced environment %1").arg(r.name));
                forget(path);
            }
        } else if (QDir().rename(path, env)) {
            done.append(QStringLiteral("restored %1 after an interrupted switch").arg(m_name));
            forget(path);
        }
    }
    return done;
}

} // namespace tfsetup::core
