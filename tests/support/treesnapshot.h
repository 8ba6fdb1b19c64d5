#pragma once

// Snapshots of a folder tree, for assertions like "the install folder is byte-identical after a
// failed install" or "repair touched only these files".
//
//     const auto before = tfsetup::test::TreeSnapshot::take(dir);
//     … run the operation that must not change anything …
//     const QString diff = tfsetup::test::TreeSnapshot::take(dir).differenceFrom(before);
//     QVERIFY2(diff.isEmpty(), qPrintable(diff));
//
// Every entry below the root is recorded, hidden ones included: files by SHA-256, size and
// executable bit; folders (so an empty folder left behind shows); symbolic links by target,
// not followed. Timestamps are not recorded: rewriting identical bytes is not a change here.

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

namespace tfsetup::test {

struct SnapshotEntry {
    enum Kind { File, Folder, Link };
    Kind kind = File;
    qint64 size = 0;
    QByteArray sha256; // hex; files only
    bool executable = false;
    QString linkTarget; // links only

    bool operator==(const SnapshotEntry &other) const = default;
};

class TreeSnapshot {
public:
    // Walks root. An unreadable file is recorded with an empty digest and a warning.
    static TreeSnapshot take(const QString &root);

    // Relative '/'-separated path → entry, sorted by path.
    const QMap<QString, SnapshotEntry> &entries() const { return m_entries; }
    bool contains(const QString &relative) const { return m_entries.contains(relative); }

    bool operator==(const TreeSnapshot &other) const { return m_entries == other.m_entries; }

    // Paths present here but not in before, absent here but present in before, and present in
    // both with a different entry.
    QStringList added(const TreeSnapshot &before) const;
    QStringList removed(const TreeSnapshot &before) const;
    QStringList changed(const TreeSnapshot &before) const;
    // Human-readable list of all differences ("+ a", "- b", "~ c (size 3 -> 4)"); empty if equal.
    QString differenceFrom(const TreeSnapshot &before) const;

private:
    QMap<QString, SnapshotEntry> m_entries;
};

} // namespace tfsetup::test
