// Tests of the fixture-tree builder (read back through RootedSystem, the consumer it serves)
// and of tree snapshots.

#include "support/coroutinetest.h"
#include "support/fixturetree.h"
#include "support/treesnapshot.h"

#include <QFile>
#include <QtTest>

using namespace Qt::Literals::StringLiterals;
using namespace std::chrono_literals;
using tfsetup::core::OsFamily;
using tfsetup::test::FixtureTree;
using tfsetup::test::SystemDescription;
using tfsetup::test::TreeSnapshot;

class TestSupportFixture final : public QObject {
    Q_OBJECT

private slots:
    void write_filesAndEmptyFolders_areCreated();
    void write_escapingPath_isRefused_data();
    void write_escapingPath_isRefused();
    void writeEnv_isReadByRootedSystem();
    void writeSystem_registryCpuidAndCommands_areSeenByRootedSystem();
    void open_linuxTree_mapsTargetPaths();

    void snapshot_sameTree_isEqual();
    void snapshot_difference_data();
    void snapshot_difference();
};

void TestSupportFixture::write_filesAndEmptyFolders_areCreated()
{
    FixtureTree tree;
    QVERIFY(tree.isValid());
    QVERIFY(tree.write({
        {u"C/Windows/System32/nvcuda.dll"_s, "MZ\x90"},
        {u"C/Program Files/NVIDIA Corporation/"_s, {}},
        {u".hidden/file"_s, "h"},
    }));
    QVERIFY(tree.mkdir(u"usr/local"_s));
    QFile dll(tree.filePath(u"C/Windows/System32/nvcuda.dll"_s));
    QVERIFY(dll.open(QIODevice::ReadOnly));
    QCOMPARE(dll.readAll(), QByteArray("MZ\x90"));
    QVERIFY(QFileInfo(tree.filePath(u"C/Program Files/NVIDIA Corporation"_s)).isDir());
    QVERIFY(QFileInfo(tree.filePath(u"usr/local"_s)).isDir());
    QVERIFY(QFileInfo(tree.filePath(u".hidden/file"_s)).isFile());
}

void TestSupportFixture::write_escapingPath_isRefused_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("parent folder") << u"../outside"_s;
    QTest::newRow("parent inside path") << u"a/../../outside"_s;
    QTest::newRow("absolute") << u"/tmp/outside"_s;
}

void TestSupportFixture::write_escapingPath_isRefused()
{
    QFETCH(QString, path);
    FixtureTree tree;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^Refusing fixture path"_s));
    QVERIFY(!tree.write(path, "x"));
    QVERIFY(TreeSnapshot::take(tree.path()).entries().isEmpty());
}

void TestSupportFixture::writeEnv_isReadByRootedSystem()
{
    FixtureTree tree;
    QVERIFY(tree.writeEnv({{u"PATH"_s, u"C:\\Windows\\System32;C:\\Tools"_s}, {u"CUDA_PATH"_s, u"C:\\CUDA"_s}}));
    const auto env = tfsetup::core::RootedSystem::readEnvFile(tree.filePath(u"env"_s));
    QVERIFY(env.ok());
    QCOMPARE(env->value(u"CUDA_PATH"_s), u"C:\\CUDA"_s);

    const auto view = tree.open(OsFamily::Windows);
    QVERIFY(view);
    QCOMPARE(view->env(u"cuda_path"_s), u"C:\\CUDA"_s); // Windows: names case-insensitive
    // The view normalises separators in path lists.
    QCOMPARE(view->pathList(), (QStringList{u"C:/Windows/System32"_s, u"C:/Tools"_s}));
}

void TestSupportFixture::writeSystem_registryCpuidAndCommands_areSeenByRootedSystem()
{
    FixtureTree tree;
    tfsetup::core::CpuIdFeatures cpu;
    cpu.vendor = u"GenuineIntel"_s;
    cpu.brand = u"Test CPU"_s;
    cpu.avx = true;
    cpu.avx2 = true;
    QVERIFY(tree.write(u".fixture/smi.txt"_s, "from file\n"));
    QVERIFY(tree.writeSystem(SystemDescription()
                                 .arch(u"arm64"_s)
                                 .registry(u"HKLM\\SOFTWARE\\Vendor\\Product"_s, u"Version"_s, u"1.2"_s)
                                 .registry(u"HKLM\\SOFTWARE\\Vendor\\Product"_s, u"Count"_s, qint64(3))
                                 .registry(u"HKLM\\SOFTWARE\\Vendor\\Other"_s, u"List"_s, QStringList{u"a"_s, u"b"_s})
                                 .cpuid(cpu)
                                 .command(u"tool"_s, {u"--version"_s}, "tool 1.0\n")
                                 .command(u"tool"_s, {u"--fail"_s, u"*"_s}, {}, 3, "bad\n")
                                 .commandFromFile(u"smi"_s, {}, u"smi.txt"_s)
                                 .commandTimesOut(u"hang"_s)));
    const auto view = tree.open(OsFamily::Windows);
    QVERIFY(view);
    QCOMPARE(view->arch(), u"arm64"_s);
    QCOMPARE(view->registryValue(u"HKLM\\SOFTWARE\\Vendor\\Product"_s, u"Version"_s), QVariant(u"1.2"_s));
    QCOMPARE(view->registryValue(u"HKLM\\SOFTWARE\\Vendor\\Product"_s, u"Count"_s)->toInt(), 3);
    QCOMPARE(view->registryValue(u"HKLM\\SOFTWARE\\Vendor\\Other"_s, u"List"_s)->toStringList(),
             (QStringList{u"a"_s, u"b"_s}));
    QCOMPARE(view->registrySubkeys(u"HKLM\\SOFTWARE\\Vendor"_s), (QStringList{u"Other"_s, u"Product"_s}));
    QVERIFY(view->cpuid());
    QCOMPARE(view->cpuid()->vendor, u"GenuineIntel"_s);
    QVERIFY(view->cpuid()->avx2);
    QVERIFY(!view->cpuid()->avx512f);

    const auto version = tfsetup::test::awaitTask(view->run(u"tool.exe"_s, {u"--version"_s}, 1s));
    QVERIFY(version);
    QVERIFY(version->succeeded());
    QCOMPARE(version->standardOutput, QByteArray("tool 1.0\n"));
    const auto failing = tfsetup::test::awaitTask(view->run(u"tool"_s, {u"--fail"_s, u"x"_s, u"y"_s}, 1s));
    QVERIFY(failing);
    QCOMPARE(failing->exitCode, 3);
    QCOMPARE(failing->standardError, QByteArray("bad\n"));
    const auto fromFile = tfsetup::test::awaitTask(view->run(u"smi"_s, {u"-L"_s}, 1s));
    QVERIFY(fromFile);
    QCOMPARE(fromFile->standardOutput, QByteArray("from file\n"));
    const auto hang = tfsetup::test::awaitTask(view->run(u"hang"_s, {}, 1s));
    QVERIFY(hang);
    QVERIFY(hang->timedOut);
}

void TestSupportFixture::open_linuxTree_mapsTargetPaths()
{
    FixtureTree tree;
    QVERIFY(tree.write(u"usr/local/cuda/version.json"_s, "{}"));
    QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}}));
    const auto view = tree.open(OsFamily::Linux);
    QVERIFY(view);
    QVERIFY(view->isFile(u"/usr/local/cuda/version.json"_s));
    QCOMPARE(view->readFile(u"/usr/local/cuda/version.json"_s), std::optional<QByteArray>("{}"));
    QCOMPARE(view->homeDir(), u"/home/student"_s);
    QCOMPARE(view->registryValue(u"HKLM\\SOFTWARE"_s, u"x"_s), std::nullopt);
}

void TestSupportFixture::snapshot_sameTree_isEqual()
{
    FixtureTree tree;
    QVERIFY(tree.write({{u"a/b.txt"_s, "one"}, {u"a/empty/"_s, {}}, {u".dot"_s, "x"}}));
    const TreeSnapshot first = TreeSnapshot::take(tree.path());
    // Rewriting the same bytes is not a change.
    QVERIFY(tree.write(u"a/b.txt"_s, "one"));
    const TreeSnapshot second = TreeSnapshot::take(tree.path());
    QVERIFY(first == second);
    QCOMPARE(second.differenceFrom(first), QString());
    QCOMPARE(first.entries().keys(), (QStringList{u".dot"_s, u"a"_s, u"a/b.txt"_s, u"a/empty"_s}));
    const auto b = first.entries().value(u"a/b.txt"_s);
    QCOMPARE(b.size, 3);
    // SHA-256 of "one".
    QCOMPARE(b.sha256, QByteArray("7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"));
    QCOMPARE(first.entries().value(u"a/empty"_s).kind, tfsetup::test::SnapshotEntry::Folder);
}

void TestSupportFixture::snapshot_difference_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<QStringList>("added");
    QTest::addColumn<QStringList>("removed");
    QTest::addColumn<QStringList>("changed");
    QTest::addColumn<QString>("described");

    QTest::newRow("same size, different bytes")
        << u"content"_s << QStringList{} << QStringList{} << QStringList{u"lib/a.so"_s} << u"~ lib/a.so (content)"_s;
    QTest::newRow("grown file") << u"grow"_s << QStringList{} << QStringList{} << QStringList{u"lib/a.so"_s}
                                << u"~ lib/a.so (size 4 -> 5)"_s;
    QTest::newRow("file added") << u"add"_s << QStringList{u"lib/new.so"_s} << QStringList{} << QStringList{}
                                << u"+ lib/new.so"_s;
    QTest::newRow("empty folder left behind")
        << u"folder"_s << QStringList{u"tmp"_s} << QStringList{} << QStringList{} << u"+ tmp"_s;
    QTest::newRow("file removed") << u"remove"_s << QStringList{} << QStringList{u"lib/a.so"_s} << QStringList{}
                                  << u"- lib/a.so"_s;
    QTest::newRow("became executable") << u"chmod"_s << QStringList{} << QStringList{} << QStringList{u"lib/a.so"_s}
                                       << u"~ lib/a.so (became executable)"_s;
}

void TestSupportFixture::snapshot_difference()
{
    QFETCH(QString, change);
    QFETCH(QStringList, added);
    QFETCH(QStringList, removed);
    QFETCH(QStringList, changed);
    QFETCH(QString, described);

    FixtureTree tree;
    QVERIFY(tree.write({{u"lib/a.so"_s, "ELF1"}, {u"lib/b.so"_s, "ELF2"}}));
    const TreeSnapshot before = TreeSnapshot::take(tree.path());

    if (change == u"content") {
        QVERIFY(tree.write(u"lib/a.so"_s, "ELF9"));
    } else if (change == u"grow") {
        QVERIFY(tree.write(u"lib/a.so"_s, "ELF1+"));
    } else if (change == u"add") {
        QVERIFY(tree.write(u"lib/new.so"_s, "x"));
    } else if (change == u"folder") {
        QVERIFY(tree.mkdir(u"tmp"_s));
    } else if (change == u"remove") {
        QVERIFY(QFile::remove(tree.filePath(u"lib/a.so"_s)));
    } else if (change == u"chmod") {
#ifdef Q_OS_WIN
        QSKIP("no executable bit on Windows");
#endif
        QFile f(tree.filePath(u"lib/a.so"_s));
        QVERIFY(f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser));
    }

    const TreeSnapshot after = TreeSnapshot::take(tree.path());
    QVERIFY(!(after == before));
    QCOMPARE(after.added(before), added);
    QCOMPARE(after.removed(before), removed);
    QCOMPARE(after.changed(before), changed);
    QCOMPARE(after.differenceFrom(before), described);
}

QTEST_GUILESS_MAIN(TestSupportFixture)
#include "test_fixture.moc"
