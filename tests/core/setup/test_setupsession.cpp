// The saved setup: written atomically and read back whole; a corrupt, truncated or
// other-version file is ignored with a log line; the bytes already downloaded are counted from
// the finished files and the downloader's .part files; forgetting the setup keeps the downloads.
// Also the default download folder, which follows the system view (a fixture tree's own).

#include "fetch/downloader.h"
#include "setup/setupsession.h"
#include "system/rootedsystem.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace tfsetup;
using namespace tfsetup::core;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(tfsetup::core::OsFamily)

using Environment = QHash<QString, QString>;

namespace {

Plan toolkitPlan()
{
    Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s;
    p.driverMin = u"525.60.13"_s;
    p.libraries = {u"libcudart.so.12"_s};
    p.warnings = {{u"gpu_needs_ptx_jit"_s, u"JIT"_s}};
    return p;
}

Artifact archive(const QString &name, qint64 size, const QString &sha256)
{
    Artifact a;
    a.name = name;
    a.version = u"12.5.82"_s;
    a.platform = u"linux-x86_64"_s;
    a.kind = u"cuda-redist-archive"_s;
    a.source = u"nvidia-redist"_s;
    a.relativePath = u"compute/cuda/redist/%1/linux-x86_64/%1-linux-x86_64-12.5.82-archive.tar.xz"_s.arg(name);
    a.urls = {QUrl(u"http://127.0.0.1:9/"_s + a.relativePath)};
    a.sha256 = sha256;
    a.size = size;
    return a;
}

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestSetupSession final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();

    void saveThenLoad_keepsEverythingToContinue();
    void save_replacesTheFileAtomically();
    void load_ignoresBadFilesWithALogLine_data();
    void load_ignoresBadFilesWithALogLine();
    void load_withoutAFile_isQuiet();
    void specialFilesAndLinks_areNeitherReadNorWrittenThrough();
    void downloadedBytes_countsFinishedAndPartialFiles();
    void discard_keepsTheDownloads();
    void defaultPath_isInTheUsersDataFolder();
    void defaultCacheDir_followsTheSystemView_data();
    void defaultCacheDir_followsTheSystemView();

private:
    SetupSession session() const;
    QString path() const { return m_dir->filePath(u"data/tfsetup/setup-session.json"_s); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestSetupSession::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

SetupSession TestSetupSession::session() const
{
    SetupSession s;
    s.step = SetupSession::Step::Download;
    s.plan = toolkitPlan();
    // Two GPUs, one the release cannot use: the assessment and the pinned choice both come back.
    PlanGpu kepler;
    kepler.index = 0;
    kepler.name = u"Tesla K80"_s;
    kepler.computeCapability = u"3.7"_s;
    kepler.use = PlanGpu::Use::Unusable;
    kepler.reason = Finding{u"gpu_too_old"_s, u"too old"_s};
    PlanGpu ampere;
    ampere.index = 1;
    ampere.name = u"NVIDIA RTX A4000"_s;
    ampere.computeCapability = u"8.6"_s;
    ampere.use = PlanGpu::Use::Native;
    s.plan.gpus = {kepler, ampere};
    s.gpus = {1};
    s.hardware.os.family = u"linux"_s;
    s.hardware.pythons = {{u"/usr/bin/python3.11"_s, u"3.11.9"_s, u"system"_s, 64, u"path"_s}};
    s.options.prefix = u"/home/student/tfsetup-envs"_s;
    s.options.name = u"course-env"_s;
    s.options.network.pypiIndexes = QStringList{u"tuna"_s};
    s.options.network.transfer.proxy = u"http://proxy.campus.example:3128"_s;
    s.options.cacheDir = m_dir->filePath(u"downloads"_s);
    s.options.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://127.0.0.1:9/"_s)}};
    s.options.network.resolveTimeout = std::chrono::seconds(7);
    s.options.jupyter = false; // the default is on: off shows that the choice is saved
    ArtifactList list;
    list.route = u"linux-toolkit"_s;
    list.tensorflow = u"2.18.0"_s;
    list.os = u"linux"_s;
    list.artifacts = {archive(u"cuda_cudart"_s, 1000, QString(64, u'a')),
                      archive(u"libcublas"_s, 3000, QString(64, u'b'))};
    Artifact wheel;
    wheel.name = u"tensorflow"_s;
    wheel.kind = u"wheelhouse"_s;
    wheel.requirement = u"tensorflow==2.18.*"_s;
    wheel.indexUrl = u"https://pypi.tuna.tsinghua.edu.cn/simple"_s;
    wheel.trust = Artifact::Trust::IndexHash;
    list.artifacts.append(wheel);
    list.warnings = {{u"manifest_unpinned"_s, u"m"_s}};
    s.artifacts = list;
    return s;
}

void TestSetupSession::saveThenLoad_keepsEverythingToContinue()
{
    const SetupSession saved = session();
    const Status written = saved.save(path());
    QVERIFY2(written, qPrintable(written ? QString() : written.error().message));

    const auto loaded = SetupSession::load(path());
    QVERIFY(loaded);
    QCOMPARE(loaded->step, SetupSession::Step::Download);
    QCOMPARE(QJsonDocument(loaded->plan.toJson()).toJson(), QJsonDocument(saved.plan.toJson()).toJson());
    QCOMPARE(loaded->plan.gpus.size(), 2);
    QCOMPARE(loaded->plan.gpus.first().use, PlanGpu::Use::Unusable);
    QCOMPARE(loaded->plan.gpus.first().reason->code, u"gpu_too_old"_s);
    QCOMPARE(loaded->plan.defaultGpuSelection(), QList<int>{1});
    QCOMPARE(loaded->gpus, QList<int>{1});
    QCOMPARE(loaded->hardware.pythons.size(), 1);
    QCOMPARE(loaded->hardware.pythons.first().path, u"/usr/bin/python3.11"_s);
    QCOMPARE(loaded->options.prefix, saved.options.prefix);
    QCOMPARE(loaded->options.name, u"course-env"_s);
    QCOMPARE(loaded->options.network.firstPypiIndex(), u"tuna"_s);
    QCOMPARE(loaded->options.network.transfer.proxy, saved.options.network.transfer.proxy);
    QCOMPARE(loaded->options.cacheDir, saved.options.cacheDir);
    QCOMPARE(loaded->options.network.originOverrides.size(), 1);
    QCOMPARE(loaded->options.network.originOverrides.first().second, QUrl(u"http://127.0.0.1:9/"_s));
    QCOMPARE(loaded->options.network.resolveTimeout, std::chrono::milliseconds(7000));
    QVERIFY(!loaded->options.jupyter);
    QVERIFY(loaded->artifacts);
    QCOMPARE(QJsonDocument(loaded->artifacts->toJson()).toJson(), QJsonDocument(saved.artifacts->toJson()).toJson());
    QVERIFY(loaded->saved.isValid());
    QCOMPARE(loaded->environmentName(), u"course-env"_s);
    QCOMPARE(loaded->environmentPath(), u"/home/student/tfsetup-envs/course-env"_s);

    // The download requests are derived again, exactly as the Options page made them.
    const QList<DownloadRequest> requests = loaded->downloads();
    const QList<DownloadRequest> original = SetupFlow::downloadPlan(*saved.artifacts, {}, saved.options).requests;
    QCOMPARE(requests.size(), 2);
    QCOMPARE(requests.size(), original.size());
    for (int i = 0; i < requests.size(); ++i) {
        QCOMPARE(requests.at(i).destination, original.at(i).destination);
        QCOMPARE(requests.at(i).checksum.hex, original.at(i).checksum.hex);
        QCOMPARE(requests.at(i).urls, original.at(i).urls);
    }
}

void TestSetupSession::save_replacesTheFileAtomically()
{
    SetupSession s = session();
    QVERIFY(s.save(path()));
    s.step = SetupSession::Step::Install;
    QVERIFY(s.save(path()));
    // Written beside the file and renamed: no temporary is left behind.
    QCOMPARE(QDir(QFileInfo(path()).absolutePath()).entryList(QDir::Files), QStringList{u"setup-session.json"_s});
    QCOMPARE(SetupSession::load(path())->step, SetupSession::Step::Install);
}

void TestSetupSession::load_ignoresBadFilesWithALogLine_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("logged");
    QTest::newRow("not JSON") << QByteArray("{\"format\": 1, \"step\": ") << u"not JSON"_s;
    QTest::newRow("empty file") << QByteArray() << u"not JSON"_s;
    QTest::newRow("an array") << QByteArray("[1, 2]") << u"not JSON"_s;
    QTest::newRow("another version") << QByteArray("{\"format\": 99, \"step\": \"download\"}")
                                     << u"session_incompatible"_s;
    QTest::newRow("no version") << QByteArray("{\"step\": \"download\"}") << u"session_incompatible"_s;
    QTest::newRow("unknown step") << QByteArray(
        R"({"format": 2, "step": "later", "plan": {"route": "cpu", "tensorflow": "2.16.1"}})")
                                  << u"session_corrupt"_s;
    QTest::newRow("no plan") << QByteArray(R"({"format": 2, "step": "options"})") << u"session_corrupt"_s;
    QTest::newRow("download without artifacts")
        << QByteArray(R"({"format": 2, "step": "download", "plan": {"route": "cpu", "tensorflow": "2.16.1"}})")
        << u"session_corrupt"_s;
}

void TestSetupSession::load_ignoresBadFilesWithALogLine()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, logged);
    QVERIFY(writeBytes(path(), contents));
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(u"^Ignoring the saved setup .*"_s + QRegularExpression::escape(logged)));
    QVERIFY(!SetupSession::load(path()));
}

void TestSetupSession::load_withoutAFile_isQuiet()
{
    QTest::failOnWarning(QRegularExpression(u".*"_s));
    QVERIFY(!SetupSession::load(path()));
}

// A FIFO at the session's name would block the wizard's start; a link there would take the save
// elsewhere. The first is ignored with a log line, the second refused, its target untouched.
void TestSetupSession::specialFilesAndLinks_areNeitherReadNorWrittenThrough()
{
    QDir().mkpath(QFileInfo(path()).absolutePath());
    QFile::remove(path());
    QVERIFY(::mkfifo(QFile::encodeName(path()).constData(), 0600) == 0);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^Ignoring the saved setup .*input_not_file"_s));
    QVERIFY(!SetupSession::load(path()));
    QVERIFY(QFile::remove(path()));

    QTemporaryDir elsewhere;
    const QString target = elsewhere.filePath(u"notes.txt"_s);
    QVERIFY(writeBytes(target, "mine\n"));
    QVERIFY(QFile::link(target, path()));
    const Status saved = session().save(path());
    QVERIFY(!saved);
    QVERIFY(QFileInfo(path()).isSymLink());
    QFile kept(target);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("mine\n"));
}

void TestSetupSession::downloadedBytes_countsFinishedAndPartialFiles()
{
    const SetupSession s = session();
    const QList<DownloadRequest> requests = s.downloads();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(s.downloadedBytes().done, 0);
    QCOMPARE(s.downloadedBytes().total, 4000);

    // The first finished, the second half-way in one piece.
    QVERIFY(writeBytes(requests.at(0).destination, QByteArray(1000, 'x')));
    QVERIFY(writeBytes(Downloader::partPathFor(requests.at(1).destination), QByteArray(1500, 'y')));
    QCOMPARE(s.downloadedBytes().done, 2500);

    // Segmented: the .part is as large as the file, the .state says what was written.
    QVERIFY(writeBytes(Downloader::partPathFor(requests.at(1).destination), QByteArray(3000, '\0')));
    const QJsonObject state{{u"total"_s, 3000},
                            {u"algorithm"_s, u"sha256"_s},
                            {u"segments"_s, QJsonArray{QJsonArray{0, 1499, 700}, QJsonArray{1500, 2999, 300}}}};
    QVERIFY(
        writeBytes(Downloader::partPathFor(requests.at(1).destination) + u".state"_s, QJsonDocument(state).toJson()));
    QCOMPARE(s.downloadedBytes().done, 2000);
}

void TestSetupSession::discard_keepsTheDownloads()
{
    const SetupSession s = session();
    QVERIFY(s.save(path()));
    const QString finished = s.downloads().at(0).destination;
    const QString part = Downloader::partPathFor(s.downloads().at(1).destination);
    QVERIFY(writeBytes(finished, QByteArray(1000, 'x')));
    QVERIFY(writeBytes(part, QByteArray(10, 'y')));
    QVERIFY(SetupSession::discard(path()));
    QVERIFY(!QFile::exists(path()));
    QVERIFY(QFile::exists(finished));
    QVERIFY(QFile::exists(part));
    QVERIFY(SetupSession::discard(path())); // nothing left to forget is no failure
}

void TestSetupSession::defaultPath_isInTheUsersDataFolder()
{
    // The test runner gives each test its own XDG_DATA_HOME.
    const QString data = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    QCOMPARE(SetupSession::defaultPath(), data + u"/tfsetup/setup-session.json"_s);
}

void TestSetupSession::defaultCacheDir_followsTheSystemView_data()
{
    QTest::addColumn<OsFamily>("os");
    QTest::addColumn<Environment>("env");
    QTest::addColumn<QString>("expected"); // below the fixture root
    QTest::newRow("linux home") << OsFamily::Linux << QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}}
                                << u"/home/student/.cache/tfsetup/downloads"_s;
    QTest::newRow("linux XDG_CACHE_HOME")
        << OsFamily::Linux
        << QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}, {u"XDG_CACHE_HOME"_s, u"/scratch/cache"_s}}
        << u"/scratch/cache/tfsetup/downloads"_s;
    QTest::newRow("linux TFSETUP_CACHE_DIR")
        << OsFamily::Linux
        << QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}, {u"TFSETUP_CACHE_DIR"_s, u"/lab/downloads"_s}}
        << u"/lab/downloads"_s;
    QTest::newRow("windows LOCALAPPDATA")
        << OsFamily::Windows
        << QHash<QString, QString>{{u"USERPROFILE"_s, u"C:\\Users\\student"_s},
                                   {u"LOCALAPPDATA"_s, u"C:\\Users\\student\\AppData\\Local"_s}}
        << u"/C/Users/student/AppData/Local/cache/tfsetup/downloads"_s;
    QTest::newRow("windows profile only")
        << OsFamily::Windows << QHash<QString, QString>{{u"USERPROFILE"_s, u"C:\\Users\\student"_s}}
        << u"/C/Users/student/AppData/Local/cache/tfsetup/downloads"_s;
}

void TestSetupSession::defaultCacheDir_followsTheSystemView()
{
    QFETCH(OsFamily, os);
    QFETCH(Environment, env);
    QFETCH(QString, expected);
    const QString root = m_dir->filePath(u"machine"_s);
    QVERIFY(QDir().mkpath(root));
    RootedSystem system(root, os, env);
    QCOMPARE(SetupOptions::defaultCacheDir(system), root + expected);
}

QTEST_GUILESS_MAIN(TestSetupSession)
#include "test_setupsession.moc"
