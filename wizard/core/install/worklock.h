#pragma once

#include "util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

class QLockFile;

namespace tfsetup::core {

// One install or repair per environment at a time, and the folders it works in provably its own.
//
// A run holds <prefix>/.<name>.tfsetup-lock (a QLockFile: a holder that died on this machine is
// recognised by its process id and taken over, as the shared download cache does) and lists in
// <prefix>/.<name>.tfsetup-work.json every staging or set-aside folder it makes, each with a
// random id that is also written into the folder as .tfsetup-owner. Cleanup and recovery touch
// only a folder whose id matches such a record: a user's folder that merely looks like one
// (".mydata.staging-keep", ".notes.previous-2023") or another environment's staging folder is
// never removed.
//
// A staging folder may hold a commit journal (journalName): the renames a repair is about to make
// into the environment. Recovery finishes or undoes each of them, so a repair killed halfway
// through its renames loses neither a file nor a user's edited launcher.
class WorkLock final {
public:
    struct JournalEntry {
        QString path;         // relative to the environment
        QString staged;       // relative to the staging folder; empty when nothing new goes in (a relink)
        bool keepOld = false; // the replaced file is the user's: kept as <path>.user-backup
    };

    ~WorkLock();
    WorkLock(const WorkLock &) = delete;
    WorkLock &operator=(const WorkLock &) = delete;

    // Takes the lock for the environment <hostPrefix>/<name> (the prefix must exist); shownPath
    // names the environment in the message. Error code environment_busy when another install or
    // repair holds it.
    static Result<std::unique_ptr<WorkLock>> acquire(const QString &hostPrefix, const QString &name,
                                                     const QString &shownPath);

    // Finishes or undoes what a killed run recorded: a set-aside environment is put back (or
    // removed once its replacement is in place), a staging folder's journal is replayed, staging
    // folders are removed. One line per change, for the log.
    QStringList recover();

    // A new, empty staging folder beside the environment (".<name>.<tag>-<random>"), marked and
    // recorded; its host path.
    Result<QString> makeStaging(const QString &tag = QStringLiteral("staging"));

    // Before the environment folder is renamed aside: marks it and records the name it is about to
    // get (".<name>.previous-<random>"); that host path.
    Result<QString> prepareSetAside();

    // The folder (a recorded one) is gone: removed, or renamed into the environment's place.
    void forget(const QString &hostPath);

    // Writes a staging folder's commit journal, before the first rename it lists.
    static bool writeJournal(const QString &hostStaging, const QList<JournalEntry> &entries);

    static const QString markerName;  // ".tfsetup-owner"
    static const QString journalName; // "commit-journal.json"

private:
    struct Record {
        QString name; // one component, ".<environment>.<tag>-<random>"
        QString id;
        QString role; // "staging" or "previous"
    };

    WorkLock() = default;
    bool save() const;
    bool ownedBy(const QString &hostFolder, const QString &id) const;
    void drop(const QString &hostPath); // forget() without saving the record
    QStringList replayJournal(const QString &hostStaging);

    std::unique_ptr<QLockFile> m_lock;
    QString m_prefix;
    QString m_name;
    QList<Record> m_records;
};

} // namespace tfsetup::core
