// Disk space is checked before anything starts: per folder, through the system view (which a
// test turns into a nearly full disk), needs on one file system added up.

#include "fetch/downloader.h"
#include "install/installer.h"
#include "setup/setupflow.h"
#include "setup/setupspace.h"
#include "support/coroutinetest.h"
#include "support/installarchives.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"
#include "system/rootedsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::DiskSpace;
using core::DiskSpaceCheck;
using core::SpaceNeed;

namespace {

constexpr qint64 MB = 1024 * 1024;

// A machine whose folders lie on disks with the given free space: the first prefix that matches.
class SpaceSystem final : public core::RootedSystem {
public:
    SpaceSystem(QString root, QList<std::pair<QString, DiskSpace>> disks, core::OsFamily os = core::OsFamily::Linux,
                QHash<QString, QString> env = {{u"HOME"_s, u"/home/student"_s}})
        : RootedSystem(std::move(root), os, std::move(env))
        , m_disks(std::move(disks))
    {}
    std::optional<DiskSpace> diskSpace(const QString &path) const override
    {
        for (const auto &[prefix, space] : m_disks) {
            if (path.startsWith(prefix))
                return space;
        }
        return std::nullopt;
    }

private:
    QList<std::pair<QString, DiskSpace>> m_disks;
};

core::Plan gpuPlan()
{
    core::Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s;
    return p;
}

} // namespace

class TestDiskSpace final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void check_data();
    void check();
    void forSetup_countsWhatIsStillToCome();
    void realSystem_measuresAFolderNotMadeYet();
    void fixtureMachine_hasTheDisksItDeclares();
    void fetchCommand_refusesBeforeTheFirstByte();
    void installer_refusesBeforeUnpacking();
};

void TestDiskSpace::check_data()
{
    QTest::addColumn<qint64>("cacheFree");
    QTest::addColumn<bool>("sameDisk");
    QTest::addColumn<qint64>("envFree");
    QTest::addColumn<QString>("code"); // empty: passes
    QTest::addColumn<QString>("names");
    // Needs: 300 MB of downloads into the cache, 900 MB unpacked into the environment.
    QTest::newRow("plenty on both disks") << 10000 * MB << false << 10000 * MB << QString() << QString();
    QTest::newRow("cache disk short") << 100 * MB << false << 10000 * MB << u"disk_full"_s << u"/cache"_s;
    QTest::newRow("environment disk short") << 10000 * MB << false << 500 * MB << u"disk_full"_s << u"/envs"_s;
    QTest::newRow("one disk, enough for either but not both")
        << 1200 * MB << true << 1200 * MB << u"disk_full"_s << u"/envs"_s;
    QTest::newRow("one disk, enough for both") << 2000 * MB << true << 2000 * MB << QString() << QString();
}

void TestDiskSpace::check()
{
    QFETCH(qint64, cacheFree);
    QFETCH(bool, sameDisk);
    QFETCH(qint64, envFree);
    QFETCH(QString, code);
    QFETCH(QString, names);
    QTemporaryDir root;
    SpaceSystem system(
        root.path(),
        {{u"/cache"_s, DiskSpace{cacheFree, u"a"_s}}, {u"/envs"_s, DiskSpace{envFree, sameDisk ? u"a"_s : u"b"_s}}});
    const QList<SpaceNeed> needs{{u"/cache"_s, 300 * MB, u"the downloads"_s},
                                 {u"/envs/tf2.18-cuda12.5"_s, 900 * MB, u"the unpacked libraries"_s}};
    const core::Status s = DiskSpaceCheck::check(system, needs);
    if (code.isEmpty()) {
        QVERIFY2(s.ok(), qPrintable(s.ok() ? QString() : s.error().message));
        return;
    }
    QVERIFY(!s.ok());
    QCOMPARE(s.error().code, code);
    QVERIFY2(s.error().message.contains(names), qPrintable(s.error().message));
    QVERIFY2(s.error().message.contains(u"MB"_s), qPrintable(s.error().message));
}

void TestDiskSpace::forSetup_countsWhatIsStillToCome()
{
    QTemporaryDir cache;
    core::ArtifactList list;
    core::Artifact cudart;
    cudart.name = u"cuda_cudart"_s;
    cudart.kind = u"cuda-redist-archive"_s;
    cudart.size = 100 * MB;
    core::Artifact cudnn = cudart;
    cudnn.name = u"cudnn"_s;
    cudnn.kind = u"cudnn-archive"_s;
    cudnn.size = 50 * MB;
    list.artifacts = {cudart, cudnn};
    core::DownloadPlan downloads;
    core::DownloadRequest a;
    a.destination = cache.filePath(u"a.tar.xz"_s);
    a.expectedSize = 100 * MB;
    core::DownloadRequest b;
    b.destination = cache.filePath(u"b.tar.xz"_s);
    b.expectedSize = 50 * MB;
    downloads.requests = {a, b};
    // b is half there already (a part file a resumed download continues).
    QFile part(core::Downloader::partPathFor(b.destination));
    QVERIFY(part.open(QIODevice::WriteOnly));
    QVERIFY(part.resize(20 * MB));
    part.close();
    core::SetupOptions options;
    options.cacheDir = cache.path();
    options.prefix = u"/home/student/tfsetup-envs"_s;
    const QList<SpaceNeed> needs = setupSpaceNeeds(gpuPlan(), list, {}, downloads, options);
    QCOMPARE(needs.size(), 2);
    QCOMPARE(needs[0].folder, cache.path());
    QCOMPARE(needs[0].bytes, 130 * MB);
    QCOMPARE(needs[1].folder, options.environmentPath(gpuPlan()));
    QCOMPARE(needs[1].bytes, 150 * MB * DiskSpaceCheck::unpackFactor);

    // Already downloaded: nothing more for the cache.
    QVERIFY(QFile(a.destination).open(QIODevice::WriteOnly));
    QVERIFY(QFile::rename(part.fileName(), b.destination));
    const QList<SpaceNeed> later = setupSpaceNeeds(gpuPlan(), list, {}, downloads, options);
    QCOMPARE(later.size(), 1);
    QCOMPARE(later[0].folder, options.environmentPath(gpuPlan()));
}

void TestDiskSpace::realSystem_measuresAFolderNotMadeYet()
{
    QTemporaryDir dir;
    core::RealSystem system;
    const auto space = system.diskSpace(dir.filePath(u"not/made/yet"_s));
    QVERIFY(space);
    QVERIFY(space->available > 0);
    QCOMPARE(system.diskSpace(dir.path())->volume, space->volume);
}

void TestDiskSpace::fixtureMachine_hasTheDisksItDeclares()
{
    // A Windows fixture with a nearly full C: and a roomy D:\data; E: is declared nowhere.
    QTemporaryDir root;
    QVERIFY(QDir().mkpath(root.filePath(u".fixture"_s)));
    QFile description(root.filePath(u".fixture/system.json"_s));
    QVERIFY(description.open(QIODevice::WriteOnly));
    description.write(R"({"disks": [{"path": "C:/", "available": 52428800},
                                     {"path": "D:\\Data", "available": 500000000000},
                                     {"path": "D:/", "available": "plenty"},
                                     {"available": 1}]})");
    description.close();
    core::RootedSystem system(root.path(), core::OsFamily::Windows, {});
    const auto c = system.diskSpace(u"C:\\Users\\student\\tfsetup-envs\\not-made-yet"_s);
    QVERIFY(c);
    QCOMPARE(c->available, 50 * MB);
    const auto data = system.diskSpace(u"d:/data/cache"_s); // Windows paths ignore case
    QVERIFY(data);
    QCOMPARE(data->available, qint64(500000000000));
    QVERIFY(data->volume != c->volume);
    QCOMPARE(system.diskSpace(u"C:/Users"_s)->volume, c->volume);
    // Not a number, no path, nothing declared: not measured, never the host's own disk.
    QVERIFY(!system.diskSpace(u"D:/other"_s));
    QVERIFY(!system.diskSpace(u"E:/"_s));
    QVERIFY(!system.diskSpace(root.path()));
    QVERIFY(!core::RootedSystem(root.path(), core::OsFamily::Linux, {}).diskSpace(u"/home/student"_s));
    // The check skips what it cannot measure and refuses what does not fit.
    QVERIFY(DiskSpaceCheck::check(system, {{u"E:/envs"_s, 900 * MB, u"the unpacked libraries"_s}}, 0));
    const core::Status full = DiskSpaceCheck::check(system, {{u"C:/envs"_s, 900 * MB, u"the unpacked libraries"_s}}, 0);
    QVERIFY(!full);
    QCOMPARE(full.error().code, u"disk_full"_s);
}

void TestDiskSpace::fetchCommand_refusesBeforeTheFirstByte()
{
    // A real small disk: a 4 MB tmpfs in a user and mount namespace of its own.
    if (QProcess::execute(u"unshare"_s, {u"-Urm"_s, u"true"_s}) != 0)
        QSKIP("no user namespaces here (unshare -Urm)");
    const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
    QVERIFY(!binary.isEmpty());
    QTemporaryDir dir;
    const QString script =
        u"mount -t tmpfs -o size=4m tmpfs \"$1\" && exec \"$2\" fetch --no-cache --size 104857600 "
        "--sha256 0000000000000000000000000000000000000000000000000000000000000000 --out \"$1/big.bin\" "
        "http://127.0.0.1:9/big.bin"_s;
    QProcess p;
    p.start(u"unshare"_s, {u"-Urm"_s, u"sh"_s, u"-c"_s, script, u"sh"_s, dir.path(), binary});
    QVERIFY(p.waitForFinished(30000));
    const QByteArray out = p.readAllStandardOutput() + p.readAllStandardError();
    QVERIFY2(p.exitCode() != 0, out.constData());
    QVERIFY2(out.contains("Not enough free disk space"), out.constData());
    QVERIFY2(out.contains("disk_full") || out.contains("MB"), out.constData());
}

void TestDiskSpace::installer_refusesBeforeUnpacking()
{
    // Downloaded while there was room; by the time of the install the disk filled up.
    QTemporaryDir root;
    QVERIFY(QDir().mkpath(root.filePath(u"C/Users/student"_s)));
    SpaceSystem system(root.path(), {{u"C:/Users/student"_s, DiskSpace{20 * MB, u"c"_s}}}, core::OsFamily::Windows,
                       {{u"USERPROFILE"_s, u"C:\\Users\\student"_s}});
    const QString archivePath = root.filePath(u"downloads/cuda_cudart-windows-x86_64-11.8.89-archive.zip"_s);
    QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
    QVERIFY(core::ArchiveWriter::write(archivePath, core::ArchiveWriter::Zip,
                                       test::cudartArchive(true, u"11.8.89"_s, {}, u"cudart64_110.dll"_s)));
    QFile archive(archivePath);
    QVERIFY(archive.open(QIODevice::ReadOnly));
    core::InstallSpec spec;
    spec.name = u"tf2.10-cuda11.2"_s;
    spec.prefix = u"C:/Users/student/tfsetup-envs"_s;
    spec.route = u"windows-native"_s;
    spec.tensorflow = u"2.10.0"_s;
    spec.python = u"3.10"_s;
    spec.cuda = u"11.2"_s;
    spec.cudnn = u"8.1"_s;
    spec.driver = u"537.13"_s;
    spec.artifacts.append(
        core::InstallArtifact{u"cuda-redist-archive"_s, u"cuda_cudart"_s, u"11.8.89"_s, u"windows-x86_64"_s,
                              QCryptographicHash::hash(archive.readAll(), QCryptographicHash::Sha256).toHex(),
                              archivePath, u"https://developer.download.nvidia.com/compute/x.zip"_s});
    core::Installer installer(system, test::shippedKnowledge());
    const auto outcome = test::awaitTask(installer.install(spec), std::chrono::seconds(60));
    QVERIFY(outcome);
    QVERIFY(!outcome->ok());
    QCOMPARE(outcome->error().code, u"disk_full"_s);
    QVERIFY2(outcome->error().message.contains(u"Not enough free disk space"_s), qPrintable(outcome->error().message));
    QVERIFY(!QFileInfo::exists(system.hostPath(u"C:/Users/student/tfsetup-envs/tf2.10-cuda11.2"_s)));
}

QTEST_GUILESS_MAIN(TestDiskSpace)
#include "test_diskspace.moc"
