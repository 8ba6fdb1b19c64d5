#include "support/treesnapshot.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

namespace tfsetup::test {

namespace {

QByteArray sha256Of(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        qWarning("Cannot read %s for a snapshot: %s", qPrintable(QDir::toNativeSeparators(path)),
                 qPrintable(f.errorString()));
        return {};
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&f);
    return hash.result().toHex();
}

QString kindName(SnapshotEntry::Kind kind)
{
    switch (kind) {
    case SnapshotEntry::File: return QStringLiteral("file");
    case SnapshotEntry::Folder: return QStringLiteral("folder");
    case SnapshotEntry::Link: return QStringLiteral("link");
    }
    return {};
}

QString describeChange(const SnapshotEntry &before, const SnapshotEntry &after)
{
    QStringList what;
    if (before.kind != after.kind)
        return kindName(before.kind) + QStringLiteral(" -> ") + kindName(after.kind);
    if (before.size != after.size)
        what << QStringLiteral("size %1 -> %2").arg(before.size).arg(after.size);
    else if (before.sha256 != after.sha256)
        what << QStringLiteral("content");
    if (before.executable != after.executable)
        what << (after.executable ? QStringLiteral("became executable") : QStringLiteral("lost executable bit"));
    if (before.linkTarget != after.linkTarget)
        what << QStringLiteral("target %1 -> %2").arg(before.linkTarget, after.linkTarget);
    return what.join(QStringLiteral(", "));
}

} // namespace

TreeSnapshot TreeSnapshot::take(const QString &root)
{
    TreeSnapshot snapshot;
    const QDir base(root);
    QDirIterator it(root, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        SnapshotEntry entry;
        if (info.isSymLink()) {
            entry.kind = SnapshotEntry::Link;
            entry.linkTarget = info.symLinkTarget();
        } else if (info.isDir()) {
            entry.kind = SnapshotEntry::Folder;
        } else {
            entry.kind = SnapshotEntry::File;
            entry.size = info.size();
            entry.sha256 = sha256Of(info.filePath());
            entry.executable = info.isExecutable();
        }
        snapshot.m_entries.insert(base.relativeFilePath(info.filePath()), entry);
    }
    return snapshot;
}

QStringList TreeSnapshot::added(const TreeSnapshot &before) const
{
    QStringList paths;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        if (!before.m_entries.contains(it.key()))
            paths << it.key();
    }
    return paths;
}

QStringList TreeSnapshot::removed(const TreeSnapshot &before) const
{
    return before.added(*this);
}

QStringList TreeSnapshot::changed(const TreeSnapshot &before) const
{
    QStringList paths;
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        const auto previous = before.m_entries.constFind(it.key());
        if (previous != before.m_entries.cend() && !(*previous == it.value()))
            paths << it.key();
    }
    return paths;
}

QString TreeSnapshot::differenceFrom(const TreeSnapshot &before) const
{
    QStringList lines;
    for (const QString &path : added(before))
        lines << QStringLiteral("+ ") + path;
    for (const QString &path : removed(before))
        lines << QStringLiteral("- ") + path;
    for (const QString &path : changed(before)) {
        lines << QStringLiteral("~ %1 (%2)")
                     .arg(path, describeChange(before.m_entries.value(path), m_entries.value(path)));
    }
    return lines.join(u'\n');
}

} // namespace tfsetup::test
