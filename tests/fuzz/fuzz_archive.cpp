// Archives from the network (zip, tar.xz, tgz, and whatever libarchive recognises). Extraction
// either fails or writes only inside the destination: no entry escapes by its name, by a link or
// through a link, and nothing beside the destination changes.

#include "fuzzsupport.h"
#include "install/archive.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

using namespace tfsetup::core;

namespace {

bool isInside(const QString &path, const QString &root)
{
    return path == root || path.startsWith(root + u'/');
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir sandbox;
    TFSETUP_FUZZ_CHECK(sandbox.isValid());
    const QString archivePath = sandbox.filePath(QStringLiteral("input.archive"));
    const QString sentinel = sandbox.filePath(QStringLiteral("sentinel"));
    const QString destination = sandbox.filePath(QStringLiteral("out"));
    {
        QFile f(archivePath);
        TFSETUP_FUZZ_CHECK(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        TFSETUP_FUZZ_CHECK(f.write(tfsetup::fuzz::bytes(data, size)) == qint64(size));
        QFile s(sentinel);
        TFSETUP_FUZZ_CHECK(s.open(QIODevice::WriteOnly | QIODevice::Truncate));
        s.write("untouched");
    }
    QDir(destination).removeRecursively();
    TFSETUP_FUZZ_CHECK(QDir().mkpath(destination));

    const auto entries = ArchiveReader::extract(archivePath, destination);
    tfsetup::fuzz::checkResult(entries);
    if (entries.ok()) {
        for (const ExtractedEntry &entry : *entries) {
            TFSETUP_FUZZ_CHECK(!entry.path.isEmpty() && !entry.path.startsWith(u'/'));
            TFSETUP_FUZZ_CHECK(!entry.path.split(u'/').contains(QLatin1String("..")));
        }
    }
    // Whatever happened, success or refusal: every link in the destination resolves inside it.
    const QString root = QFileInfo(destination).canonicalFilePath();
    QDirIterator it(destination, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        if (info.isSymLink() && info.exists())
            TFSETUP_FUZZ_CHECK(isInside(info.canonicalFilePath(), root));
    }
    const QStringList beside =
        QDir(sandbox.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
    TFSETUP_FUZZ_CHECK(
        beside == (QStringList{QStringLiteral("input.archive"), QStringLiteral("out"), QStringLiteral("sentinel")}));
    QFile s(sentinel);
    TFSETUP_FUZZ_CHECK(s.open(QIODevice::ReadOnly) && s.readAll() == "untouched");
    QDir(destination).removeRecursively();
    return 0;
}
