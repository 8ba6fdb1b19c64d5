// Extraction: NVIDIA's archive shapes come out exactly, hostile entries are refused before
// anything lands outside the destination.

#include "install/archive.h"
#include "support/treesnapshot.h"
#include "support/installarchives.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace tfsetup::test;
using core::ArchiveReader;
using core::ArchiveWriter;
using core::ExtractedEntry;

Q_DECLARE_METATYPE(QList<tfsetup::core::ArchiveWriter::Entry>)

class TestExtract : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nvidiaShapes_data();
    void nvidiaShapes();
    void refusesHostileEntries_data();
    void refusesHostileEntries();
    void keepsLinksInside();
    void acceptsInternalHardLinks_data();
    void acceptsInternalHardLinks();
    void acceptsGnuTarHardLinks();
    void cancelStops();
    void damagedArchive();

private:
    QString writeArchive(const QTemporaryDir &dir, ArchiveWriter::Format format, const QList<Entry> &entries)
    {
        const QString path = dir.filePath(format == ArchiveWriter::Zip ? QStringLiteral("a.zip")
                                                                       : QStringLiteral("a.tar.xz"));
        const auto written = ArchiveWriter::write(path, format, entries);
        if (!written)
            qWarning() << written.error().detail;
        return written ? path : QString();
    }
};

void TestExtract::nvidiaShapes_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<QList<Entry>>("entries");
    QTest::newRow("cudart 11.8.89 windows zip")
        << int(ArchiveWriter::Zip)
        << cudartArchive(true, QStringLiteral("11.8.89"), QStringLiteral("11.0"), QStringLiteral("cudart64_110.dll"));
    QTest::newRow("cudart 11.8.89 linux tar.xz with soname links")
        << int(ArchiveWriter::TarXz) << cudartArchive(false, QStringLiteral("11.8.89"), QStringLiteral("11.0"), {});
    QTest::newRow("cudnn 7.6.5 linux tgz, cuda/ top folder")
        << int(ArchiveWriter::TarGz) << cudnnArchive(false, QStringLiteral("7.6.5.32"), true);
    QTest::newRow("cudnn 8.1.0 windows zip, cuda/ top folder")
        << int(ArchiveWriter::Zip) << cudnnArchive(true, QStringLiteral("8.1.0.77"), true);
    QTest::newRow("cudnn 8.9.7 windows zip")
        << int(ArchiveWriter::Zip) << cudnnArchive(true, QStringLiteral("8.9.7.29"), false);
    QTest::newRow("cudnn 9.8.0 linux tar.xz")
        << int(ArchiveWriter::TarXz) << cudnnArchive(false, QStringLiteral("9.8.0.87"), false);
}

void TestExtract::nvidiaShapes()
{
    QFETCH(int, format);
    QFETCH(QList<Entry>, entries);
    QTemporaryDir dir;
    const QString archive = writeArchive(dir, ArchiveWriter::Format(format), entries);
    QVERIFY(!archive.isEmpty());
    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY2(extracted, qPrintable(extracted ? QString() : extracted.error().detail));

    int files = 0;
    int links = 0;
    for (const Entry &e : entries) {
        const QString path = dest + u'/' + e.path;
        const QFileInfo info(path);
        if (e.kind == Entry::Symlink) {
            ++links;
            QVERIFY2(info.isSymLink(), qPrintable(e.path));
            QCOMPARE(QFile::symLinkTarget(path),
                     QFileInfo(info.absolutePath() + u'/' + e.linkTarget).absoluteFilePath());
            continue;
        }
        ++files;
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(e.path));
        QCOMPARE(f.readAll(), e.contents);
        // The digest reported is the digest of what was written.
        const auto it = std::find_if(extracted->begin(), extracted->end(),
                                     [&](const ExtractedEntry &x) { return x.path == e.path; });
        QVERIFY(it != extracted->end());
        QCOMPARE(it->sha256, QCryptographicHash::hash(e.contents, QCryptographicHash::Sha256).toHex());
    }
    QCOMPARE(std::count_if(extracted->begin(), extracted->end(),
                           [](const ExtractedEntry &x) { return x.kind == ExtractedEntry::File; }),
             files);
    QCOMPARE(std::count_if(extracted->begin(), extracted->end(),
                           [](const ExtractedEntry &x) { return x.kind == ExtractedEntry::Link; }),
             links);
}

void TestExtract::refusesHostileEntries_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<QList<Entry>>("entries");
    const Entry ok = file(QStringLiteral("top/bin/ok.dll"));
    auto both = [&](const char *name, const QList<Entry> &e) {
        QTest::newRow(QByteArray(QByteArray(name) + " (zip)").constData()) << int(ArchiveWriter::Zip) << e;
        QTest::newRow(QByteArray(QByteArray(name) + " (tar.xz)").constData()) << int(ArchiveWriter::TarXz) << e;
    };
    both("absolute path", {ok, file(QStringLiteral("/tmp/tfsetup-zip-slip-absolute"))});
    both("dot-dot at the start", {ok, file(QStringLiteral("../zip-slip"))});
    both("dot-dot in the middle", {ok, file(QStringLiteral("top/../../zip-slip"))});
    both("backslash dot-dot (Windows zip)", {ok, file(QStringLiteral("top\\..\\..\\zip-slip"))});
    both("drive letter", {ok, file(QStringLiteral("C:/Windows/zip-slip.dll"))});
    both("link to an absolute path", {ok, link(QStringLiteral("top/lib/evil"), QStringLiteral("/etc"))});
    both("link climbing out", {ok, link(QStringLiteral("top/lib/evil"), QStringLiteral("../../.."))});
    both("link climbing out after a name", {ok, link(QStringLiteral("top/evil"), QStringLiteral("lib/../../.."))});
    both("write through a link",
         {ok, link(QStringLiteral("top/lnk"), QStringLiteral("bin")), file(QStringLiteral("top/lnk/through.dll"))});
    both("link replaced by a file",
         {ok, link(QStringLiteral("top/lnk"), QStringLiteral("bin/ok.dll")), file(QStringLiteral("top/lnk"))});
    QTest::newRow("hard link to outside (tar.xz)")
        << int(ArchiveWriter::TarXz)
        << QList<Entry>{ok,
                        Entry{Entry::Hardlink, QStringLiteral("top/h"), {}, QStringLiteral("../../etc/passwd"), 0644}};
    QTest::newRow("hard link to a name not extracted (tar.xz)")
        << int(ArchiveWriter::TarXz)
        << QList<Entry>{ok, Entry{Entry::Hardlink, QStringLiteral("top/h"), {}, QStringLiteral("etc/passwd"), 0644}};
    QTest::newRow("character device (tar.xz)")
        << int(ArchiveWriter::TarXz)
        << QList<Entry>{ok, Entry{Entry::CharacterDevice, QStringLiteral("top/null"), {}, {}, 0666}};
    QTest::newRow("fifo (tar.xz)") << int(ArchiveWriter::TarXz)
                                   << QList<Entry>{ok, Entry{Entry::Fifo, QStringLiteral("top/pipe"), {}, {}, 0666}};
}

void TestExtract::refusesHostileEntries()
{
    QFETCH(int, format);
    QFETCH(QList<Entry>, entries);
    QTemporaryDir outer;
    const QString archiveDir = outer.filePath(QStringLiteral("archives"));
    const QString dest = outer.filePath(QStringLiteral("a/b/c/out"));
    QVERIFY(QDir().mkpath(archiveDir) && QDir().mkpath(dest));
    QTemporaryDir archives(archiveDir + QStringLiteral("/XXXXXX"));
    const QString archive = writeArchive(archives, ArchiveWriter::Format(format), entries);
    QVERIFY(!archive.isEmpty());
    QFile::remove(QStringLiteral("/tmp/tfsetup-zip-slip-absolute"));
    const auto before = TreeSnapshot::take(outer.path());

    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY(!extracted);
    QCOMPARE(extracted.error().code, QStringLiteral("archive_unsafe"));
    QVERIFY(!extracted.error().message.isEmpty());
    // Nothing outside the destination changed, and nothing landed at an absolute path.
    const auto after = TreeSnapshot::take(outer.path());
    for (const QString &added : after.added(before))
        QVERIFY2(added.startsWith(QStringLiteral("a/b/c/out/")), qPrintable(added));
    QVERIFY(after.changed(before).isEmpty());
    QVERIFY(!QFileInfo::exists(QStringLiteral("/tmp/tfsetup-zip-slip-absolute")));
}

void TestExtract::keepsLinksInside()
{
    // Links NVIDIA uses (same folder) and a "../" link into a sibling folder are fine.
    QTemporaryDir dir;
    const QList<Entry> entries{file(QStringLiteral("top/lib/libx.so.1.2")),
                               link(QStringLiteral("top/lib/libx.so.1"), QStringLiteral("libx.so.1.2")),
                               link(QStringLiteral("top/lib64/libx.so.1"), QStringLiteral("../lib/libx.so.1"))};
    const QString archive = writeArchive(dir, ArchiveWriter::TarXz, entries);
    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY2(extracted, qPrintable(extracted ? QString() : extracted.error().detail));
    QFile resolved(dest + QStringLiteral("/top/lib64/libx.so.1"));
    QVERIFY(resolved.open(QIODevice::ReadOnly));
    QCOMPARE(resolved.readAll(), entries.first().contents);
}

void TestExtract::acceptsInternalHardLinks_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("tar.xz") << int(ArchiveWriter::TarXz);
    QTest::newRow("tar.gz") << int(ArchiveWriter::TarGz);
}

// A hard link to a file earlier in the same archive is legitimate (GNU tar writes one for every
// second name of a file): it arrives as a copy, not a refusal.
void TestExtract::acceptsInternalHardLinks()
{
    QFETCH(int, format);
    QTemporaryDir dir;
    const QList<Entry> entries{Entry{Entry::File, QStringLiteral("top/lib/libcudart.so.11.8.89"), "ELF", {}, 0755},
                               Entry{Entry::Hardlink,
                                     QStringLiteral("top/lib/libcudart.so.11.0"),
                                     {},
                                     QStringLiteral("top/lib/libcudart.so.11.8.89"),
                                     0755}};
    const QString archive = writeArchive(dir, ArchiveWriter::Format(format), entries);
    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY2(extracted, qPrintable(extracted ? QString() : extracted.error().detail));
    QFile copy(dest + QStringLiteral("/top/lib/libcudart.so.11.0"));
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QCOMPARE(copy.readAll(), QByteArray("ELF"));
    QVERIFY(!QFileInfo(copy.fileName()).isSymLink());
}

// The same from Debian's own GNU tar, as a mirror or a lab's repacked archive has it.
void TestExtract::acceptsGnuTarHardLinks()
{
    const QString tar = QStandardPaths::findExecutable(QStringLiteral("tar"));
    if (tar.isEmpty())
        QSKIP("tar is not installed");
    QTemporaryDir dir;
    const QString src = dir.filePath(QStringLiteral("src"));
    QVERIFY(QDir().mkpath(src + QStringLiteral("/cudnn/lib")));
    QFile lib(src + QStringLiteral("/cudnn/lib/libcudnn.so.8.9.7"));
    QVERIFY(lib.open(QIODevice::WriteOnly) && lib.write("ELF cudnn") == 9);
    lib.close();
    QVERIFY(QFile::link(QStringLiteral("libcudnn.so.8.9.7"), src + QStringLiteral("/cudnn/lib/libcudnn.so.8")));
    QCOMPARE(QProcess::execute(QStringLiteral("ln"),
                               {lib.fileName(), src + QStringLiteral("/cudnn/lib/libcudnn_copy.so.8.9.7")}),
             0);
    const QString archive = dir.filePath(QStringLiteral("gnu.tar.xz"));
    QProcess p;
    p.setWorkingDirectory(src);
    p.start(tar, {QStringLiteral("--format=gnu"), QStringLiteral("-cJf"), archive, QStringLiteral("./cudnn")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QProcess list;
    list.start(tar, {QStringLiteral("-tvf"), archive});
    QVERIFY(list.waitForFinished(30000));
    QVERIFY2(list.readAllStandardOutput().contains(" link to "), "GNU tar wrote a hard link entry");

    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY2(extracted, qPrintable(extracted ? QString() : extracted.error().detail));
    for (const char *name : {"libcudnn.so.8.9.7", "libcudnn_copy.so.8.9.7"}) {
        QFile f(dest + QStringLiteral("/cudnn/lib/") + QLatin1String(name));
        QVERIFY2(f.open(QIODevice::ReadOnly), name);
        QCOMPARE(f.readAll(), QByteArray("ELF cudnn"));
    }
    QVERIFY(QFileInfo(dest + QStringLiteral("/cudnn/lib/libcudnn.so.8")).isSymLink());
}

void TestExtract::cancelStops()
{
    QTemporaryDir dir;
    const QString archive = writeArchive(dir, ArchiveWriter::Zip,
                                         cudnnArchive(true, QStringLiteral("8.9.7.29"), false));
    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    std::atomic<bool> cancel{true};
    core::ExtractOptions options;
    options.cancel = &cancel;
    const auto extracted = ArchiveReader::extract(archive, dest, options);
    QVERIFY(!extracted);
    QCOMPARE(extracted.error().code, QStringLiteral("cancelled"));
}

void TestExtract::damagedArchive()
{
    QTemporaryDir dir;
    const QString archive = writeArchive(dir, ArchiveWriter::TarXz,
                                         cudartArchive(false, QStringLiteral("11.8.89"), QStringLiteral("11.0"), {}));
    QFile f(archive);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.resize(f.size() / 2));
    f.close();
    const QString dest = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(dest));
    const auto extracted = ArchiveReader::extract(archive, dest);
    QVERIFY(!extracted);
    QVERIFY2(extracted.error().code == u"archive_corrupt" || extracted.error().code == u"archive_unreadable",
             qPrintable(extracted.error().code));
}

QTEST_GUILESS_MAIN(TestExtract)
#include "test_extract.moc"
