// Environments have a life: the index and `list` (states, sizes, the last verify, a newer
// TensorFlow from the solver), `remove` (only what the record proves, nothing through a link,
// finished after a kill) and `clean` (the download cache by age and size, referenced entries and
// held locks kept, old logs rotated), on fixture trees.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/version.h"
#include "detect/hardwarereport.h"
#include "fetch/cachecleaner.h"
#include "fetch/checksum.h"
#include "fetch/downloadcache.h"
#include "setup/environments.h"
#include "system/rootedsystem.h"
#include "util/inputfile.h"
#include "verify/verifier.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLockFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>

#include <sys/time.h>

using namespace tfsetup;
using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

bool write(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

void age(const QString &path, int days)
{
    const QDateTime when = QDateTime::currentDateTimeUtc().addDays(-days);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.setFileTime(when, QFileDevice::FileModificationTime));
}

} // namespace

class TestEnvironments final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void index_addsOnceAndRemoves();
    void list_showsEveryEnvironmentAndItsState();
    void list_neverWalksAFolderWithoutARecord();
    void remove_neverTakesAUsersFolderForItsTombstone();
    void remove_ofACopyKeepsTheOriginalsKernelAndMenuEntry();
    void list_keepsTheLastVerify();
    void list_findsANewerTensorflowOnTheSameRoute();
    void summaryAndList_sayWhereCudaComesFrom_data();
    void summaryAndList_sayWhereCudaComesFrom();
    void remove_takesOnlyWhatTheRecordProves();
    void remove_refusesAFolderTfsetupDidNotMake();
    void remove_takesItsOwnLogsKeepsTheUsers();
    void remove_neverFollowsAPlantedLink();
    void remove_dryRunChangesNothing();
    void remove_killedMidway_isFinishedByTheNextRemove_data();
    void remove_killedMidway_isFinishedByTheNextRemove();
    void clean_prunesByAgeAndSizeKeepingWhatIsNeeded();
    void clean_dryRunRemovesNothing();
    void clean_rotatesOldLogs();
    void parseSize_data();
    void parseSize();

private:
    // An environment at the view path `path`, with a record of every file, its kernelspec and
    // menu entry registered, and a venv; returns the record's artifact digest.
    QByteArray makeEnvironment(const QString &path, const QString &tensorflow = QStringLiteral("2.12.0"));
    QString host(const QString &path) const { return m_root->path() + path; }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<RootedSystem> m_system;
    QTemporaryDir m_outside; // what a planted link points at
};

void TestEnvironments::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_system = std::make_unique<RootedSystem>(
        m_root->path(), OsFamily::Linux, QHash<QString, QString>{{QStringLiteral("HOME"), QStringLiteral("/home/u")}});
}

void TestEnvironments::cleanup()
{
    m_system.reset();
    m_root.reset();
}

QByteArray TestEnvironments::makeEnvironment(const QString &path, const QString &tensorflow)
{
    const QString name = path.section(u'/', -1);
    const QString dir = host(path);
    const QList<std::pair<QString, QByteArray>> files{
        {QStringLiteral("start-python"), "#!/bin/sh\nexec python \"$@\"\n"},
        {QStringLiteral("lib/libcudart.so.12"), QByteArray(4096, 'c')},
        {QStringLiteral("kernel/kernel.json"), "{\"display_name\": \"" + name.toUtf8() + "\"}\n"},
        {QStringLiteral("kernel/tfsetup-") + name + QStringLiteral(".desktop"),
         "[Desktop Entry]\nName=" + name.toUtf8() + "\n"},
        {QStringLiteral("ENVIRONMENT.md"), "# " + name.toUtf8() + "\n"},
    };
    QJsonArray recorded;
    for (const auto &[relative, bytes] : files) {
        if (!write(dir + u'/' + relative, bytes))
            return {};
        recorded.append(QJsonObject{{QStringLiteral("path"), relative},
                                    {QStringLiteral("sha256"), QString::fromLatin1(sha(bytes))},
                                    {QStringLiteral("size"), bytes.size()},
                                    {QStringLiteral("origin"), QStringLiteral("tfsetup")}});
    }
    QFile::link(QStringLiteral("libcudart.so.12"), dir + QStringLiteral("/lib/libcudart.so"));
    recorded.append(QJsonObject{{QStringLiteral("path"), QStringLiteral("lib/libcudart.so")},
                                {QStringLiteral("link"), QStringLiteral("libcudart.so.12")}});
    // What pip put into the venv is not listed file by file.
    write(dir + QStringLiteral("/venv/lib/python3.11/site-packages/tinypkg/__init__.py"), "VALUE = 42\n");
    write(dir + QStringLiteral("/venv/pyvenv.cfg"), "home = /usr/bin\n");
    write(dir + QStringLiteral("/logs/install.log"), "== prepare\n");
    const QByteArray artifact = sha("the cudart archive of " + name.toUtf8());
    const QString kernelFolder = QStringLiteral("/home/u/.local/share/jupyter/kernels/") + name;
    const QJsonObject record{
        {QStringLiteral("schema"), 1},
        {QStringLiteral("name"), name},
        {QStringLiteral("created"), QStringLiteral("2026-01-02T03:04:05Z")},
        {QStringLiteral("os"), QStringLiteral("linux")},
        {QStringLiteral("python_version"), QStringLiteral("3.11.2")},
        {QStringLiteral("packages"), QJsonArray{QString(QStringLiteral("tensorflow==") + tensorflow)}},
        {QStringLiteral("plan"),
         QJsonObject{{QStringLiteral("route"), QStringLiteral("linux-pip")},
                     {QStringLiteral("tensorflow"), tensorflow},
                     {QStringLiteral("cuda"), QStringLiteral("11.8")},
                     {QStringLiteral("cudnn"), QStringLiteral("8.6")},
                     {QStringLiteral("kernel_name"), name},
                     {QStringLiteral("artifacts"),
                      QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("cuda-redist-archive")},
                                             {QStringLiteral("sha256"), QString::fromLatin1(artifact)}}}}}},
        {QStringLiteral("files"), recorded},
        {QStringLiteral("launchers"), QJsonArray{QStringLiteral("start-python")}},
        {QStringLiteral("kernel_folder"), kernelFolder}};
    if (!write(dir + QStringLiteral("/environment.json"), QJsonDocument(record).toJson()))
        return {};
    // Registered outside, as the installer copies them.
    write(host(kernelFolder) + QStringLiteral("/kernel.json"), files.at(2).second);
    write(host(QStringLiteral("/home/u/.local/share/applications/tfsetup-") + name + QStringLiteral(".desktop")),
          files.at(3).second);
    return artifact;
}

void TestEnvironments::index_addsOnceAndRemoves()
{
    QCOMPARE(EnvironmentIndex::indexPath(*m_system), QStringLiteral("/home/u/.local/share/tfsetup/environments.json"));
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/a")).ok());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/b/")).ok());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/a")).ok());
    QCOMPARE(EnvironmentIndex::folders(*m_system),
             (QStringList{QStringLiteral("/data/envs/a"), QStringLiteral("/data/envs/b")}));
    QVERIFY(EnvironmentIndex::remove(*m_system, QStringLiteral("/data/envs/a")).ok());
    QCOMPARE(EnvironmentIndex::folders(*m_system), QStringList{QStringLiteral("/data/envs/b")});
    // A damaged index is never overwritten: kept aside, and every entry it still shows is kept.
    const QString index = host(EnvironmentIndex::indexPath(*m_system));
    QFile file(index);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray damaged = file.readAll();
    file.close();
    damaged.insert(damaged.lastIndexOf('}'), '\x07'); // one stray byte
    QVERIFY(write(index, damaged));
    QCOMPARE(EnvironmentIndex::folders(*m_system), QStringList{QStringLiteral("/data/envs/b")});
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/c")).ok());
    QCOMPARE(EnvironmentIndex::folders(*m_system),
             (QStringList{QStringLiteral("/data/envs/b"), QStringLiteral("/data/envs/c")}));
    const QStringList aside =
        QDir(QFileInfo(index).absolutePath()).entryList({QStringLiteral("environments.json.damaged-*")});
    QCOMPARE(aside.size(), 1);
    QFile kept(QFileInfo(index).absolutePath() + u'/' + aside.first());
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), damaged);
    // Nothing left to read: no entries, and the next change starts a new index.
    QVERIFY(write(index, "{not json"));
    QVERIFY(EnvironmentIndex::folders(*m_system).isEmpty());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/d")).ok());
    QCOMPARE(EnvironmentIndex::folders(*m_system), QStringList{QStringLiteral("/data/envs/d")});
    QCOMPARE(QDir(QFileInfo(index).absolutePath()).entryList({QStringLiteral("environments.json.damaged-*")}).size(),
             2);
}

void TestEnvironments::list_neverWalksAFolderWithoutARecord()
{
    // An index entry "/" (or any folder tfsetup did not make) is described, never measured.
    QVERIFY(write(host(QStringLiteral("/data/big/file")), QByteArray(1000, 'x')));
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/")).ok());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data")).ok());
    const QList<EnvironmentListing> list = listEnvironments(*m_system, {{}, true});
    QCOMPARE(list.size(), 2);
    for (const EnvironmentListing &l : list) {
        QCOMPARE(l.state, QStringLiteral("record_missing"));
        QCOMPARE(l.bytes, qint64(-1));
    }
}

void TestEnvironments::remove_neverTakesAUsersFolderForItsTombstone()
{
    // A folder of the user's with the tombstone's name, beside an environment that is gone.
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/home/u/tfsetup-envs/course")).ok());
    const QString lookalike = host(QStringLiteral("/home/u/tfsetup-envs/.course.tfsetup-removing"));
    QVERIFY(write(lookalike + QStringLiteral("/data.csv"), "1,2\n"));
    QVERIFY(write(lookalike + QStringLiteral("/.tfsetup-removal"), "not-an-id"));
    QCOMPARE(listEnvironments(*m_system, {{}, false}).first().state, QStringLiteral("missing"));
    const auto gone = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY(gone.ok());
    QVERIFY(QFile::exists(lookalike + QStringLiteral("/data.csv")));
    QVERIFY(!QFileInfo::exists(host(QStringLiteral("/home/u/tfsetup-envs/course"))));

    // Beside a real environment: its removal needs that name, and refuses rather than touch it.
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    const auto refused = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, QStringLiteral("tombstone_taken"));
    QVERIFY(QFile::exists(lookalike + QStringLiteral("/data.csv")));
    QVERIFY(QFile::exists(host(QStringLiteral("/home/u/tfsetup-envs/course/environment.json"))));
}

void TestEnvironments::remove_ofACopyKeepsTheOriginalsKernelAndMenuEntry()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    const QString env = host(QStringLiteral("/home/u/tfsetup-envs/course"));
    // The kernel starts the environment's own Python, as the installer writes it.
    const QByteArray kernel =
        "{\"argv\": [\"/home/u/tfsetup-envs/course/venv/bin/python\", \"-m\", \"ipykernel_launcher\"]}\n";
    QVERIFY(write(env + QStringLiteral("/kernel/kernel.json"), kernel));
    QVERIFY(write(env + QStringLiteral("/venv/bin/python"), "#!/bin/sh\n"));
    QFile recordFile(env + QStringLiteral("/environment.json"));
    QVERIFY(recordFile.open(QIODevice::ReadOnly));
    QJsonObject record = QJsonDocument::fromJson(recordFile.readAll()).object();
    recordFile.close();
    QJsonArray files = record.value(QStringLiteral("files")).toArray();
    for (qsizetype i = 0; i < files.size(); ++i) {
        QJsonObject f = files.at(i).toObject();
        if (f.value(QStringLiteral("path")).toString() == u"kernel/kernel.json") {
            f.insert(QStringLiteral("sha256"), QString::fromLatin1(sha(kernel)));
            f.insert(QStringLiteral("size"), kernel.size());
            files.replace(i, f);
        }
    }
    record.insert(QStringLiteral("files"), files);
    QVERIFY(write(env + QStringLiteral("/environment.json"), QJsonDocument(record).toJson()));
    const QString registered = host(QStringLiteral("/home/u/.local/share/jupyter/kernels/course/kernel.json"));
    const QString menu = host(QStringLiteral("/home/u/.local/share/applications/tfsetup-course.desktop"));
    QVERIFY(write(registered, kernel));

    // cp -a course course-backup, then remove the backup.
    QProcess cp;
    cp.start(QStringLiteral("cp"), {QStringLiteral("-a"), env, env + QStringLiteral("-backup")});
    QVERIFY(cp.waitForFinished());
    QCOMPARE(cp.exitCode(), 0);
    const auto copy = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course-backup"));
    QVERIFY2(copy.ok(), qPrintable(copy.ok() ? QString() : copy.error().message));
    QVERIFY(copy->outsideRemoved.isEmpty());
    QCOMPARE(copy->outsideOwned, QStringLiteral("/home/u/tfsetup-envs/course/venv/bin/python"));
    QVERIFY(copy->text().contains(QStringLiteral("/home/u/tfsetup-envs/course/venv/bin/python")));
    QVERIFY(QFile::exists(registered));
    QVERIFY(QFile::exists(menu));
    QVERIFY(!QFileInfo::exists(env + QStringLiteral("-backup")));

    // The original's own removal takes them.
    const auto original = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY(original.ok());
    QCOMPARE(original->outsideRemoved.size(), 2);
    QVERIFY(!QFileInfo::exists(registered));
    QVERIFY(!QFileInfo::exists(menu));
}

void TestEnvironments::list_showsEveryEnvironmentAndItsState()
{
    // One in the default folder (found without the index), one elsewhere (found through it).
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    QVERIFY(!makeEnvironment(QStringLiteral("/data/envs/lab")).isEmpty());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/lab")).ok());
    // A recorded folder whose record was damaged, and one deleted by hand.
    QVERIFY(write(host(QStringLiteral("/data/envs/broken/environment.json")), "{\"schema\": 1, \"files\": \"all\"}"));
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/broken")).ok());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/data/envs/gone")).ok());
    // A changed file in the lab environment.
    QVERIFY(write(host(QStringLiteral("/data/envs/lab/lib/libcudart.so.12")), "short"));

    const QList<EnvironmentListing> list = listEnvironments(*m_system);
    QCOMPARE(list.size(), 4);
    QHash<QString, EnvironmentListing> byName;
    for (const EnvironmentListing &l : list)
        byName.insert(l.path.section(u'/', -1), l);
    const EnvironmentListing course = byName.value(QStringLiteral("course"));
    QCOMPARE(course.state, QStringLiteral("ok"));
    QCOMPARE(course.route, QStringLiteral("linux-pip"));
    QCOMPARE(course.tensorflow, QStringLiteral("2.12.0"));
    QCOMPARE(course.python, QStringLiteral("3.11.2"));
    QCOMPARE(course.cuda, QStringLiteral("11.8"));
    QCOMPARE(course.cudnn, QStringLiteral("8.6"));
    QVERIFY2(course.bytes > 4096, qPrintable(QString::number(course.bytes)));
    QCOMPARE(course.launchers, QStringList{QStringLiteral("/home/u/tfsetup-envs/course/start-python")});
    QVERIFY(!course.lastVerify.present);

    QCOMPARE(byName.value(QStringLiteral("lab")).state, QStringLiteral("files_changed"));
    QCOMPARE(byName.value(QStringLiteral("lab")).filesChanged, 1);
    QCOMPARE(byName.value(QStringLiteral("broken")).state, QStringLiteral("record_damaged"));
    QVERIFY(!byName.value(QStringLiteral("broken")).problem.isEmpty());
    QCOMPARE(byName.value(QStringLiteral("gone")).state, QStringLiteral("missing"));

    const QJsonObject json = course.toJson();
    QCOMPARE(json.value(QStringLiteral("state")).toString(), QStringLiteral("ok"));
    QCOMPARE(json.value(QStringLiteral("bytes")).toInteger(), course.bytes);
    QVERIFY(json.value(QStringLiteral("last_verify")).isNull());
    QVERIFY(listText(list).contains(QStringLiteral("TensorFlow 2.12.0 on linux-pip")));
}

void TestEnvironments::summaryAndList_sayWhereCudaComesFrom_data()
{
    QTest::addColumn<QJsonObject>("plan");
    QTest::addColumn<QStringList>("packages");
    QTest::addColumn<QString>("cuda");   // ENVIRONMENT.md's CUDA line
    QTest::addColumn<QString>("cudnn");  // and its cuDNN line
    QTest::addColumn<QString>("listed"); // `tfsetup list`'s CUDA, empty for none
    QTest::addColumn<QString>("from");   // its "cuda_from"

    const QJsonObject andCuda{{u"route"_s, u"linux-pip"_s},
                              {u"tensorflow"_s, u"2.15.1"_s},
                              {u"package"_s, u"tensorflow[and-cuda]"_s},
                              {u"requirements"_s, QJsonArray{u"tensorflow[and-cuda]==2.15.1"_s}}};
    const QString pip = u" (from pip's nvidia-* wheels)"_s;
    QTest::newRow("pip route, versions from the wheels")
        << andCuda
        << QStringList{u"tensorflow==2.15.1"_s, u"nvidia-cuda-runtime-cu12==12.2.140"_s,
                       u"nvidia_cudnn_cu12==8.9.4.25"_s}
        << u"12.2"_s + pip << u"8.9"_s + pip << u"12.2"_s << u"pip"_s;
    QJsonObject planned = andCuda;
    planned.insert(u"cuda"_s, u"12.2"_s);
    planned.insert(u"cudnn"_s, u"8.9"_s);
    QTest::newRow("pip route, versions in the plan") << planned << QStringList{u"tensorflow==2.15.1"_s}
                                                     << u"12.2"_s + pip << u"8.9"_s + pip << u"12.2"_s << u"pip"_s;
    QTest::newRow("pip route, versions not recorded")
        << andCuda << QStringList{} << u"from pip's nvidia-* wheels (version not recorded)"_s
        << u"from pip's nvidia-* wheels (version not recorded)"_s << QString() << u"pip"_s;
    QTest::newRow("toolkit route") << QJsonObject{{u"route"_s, u"linux-toolkit"_s},
                                                  {u"tensorflow"_s, u"2.12.0"_s},
                                                  {u"package"_s, u"tensorflow"_s},
                                                  {u"cuda"_s, u"11.8"_s},
                                                  {u"cudnn"_s, u"8.6"_s}}
                                   << QStringList{u"tensorflow==2.12.0"_s} << u"11.8"_s << u"8.6"_s << u"11.8"_s
                                   << QString();
    QTest::newRow("really on the CPU") << QJsonObject{{u"route"_s, u"cpu"_s},
                                                      {u"tensorflow"_s, u"2.15.1"_s},
                                                      {u"package"_s, u"tensorflow-cpu"_s}}
                                       << QStringList{u"tensorflow-cpu==2.15.1"_s}
                                       << u"none (this environment runs on the CPU)"_s
                                       << u"none (this environment runs on the CPU)"_s << QString() << QString();
}

void TestEnvironments::summaryAndList_sayWhereCudaComesFrom()
{
    QFETCH(QJsonObject, plan);
    QFETCH(QStringList, packages);
    QFETCH(QString, cuda);
    QFETCH(QString, cudnn);
    QFETCH(QString, listed);
    QFETCH(QString, from);
    const QJsonObject json{{u"schema"_s, 1},
                           {u"name"_s, u"course"_s},
                           {u"created"_s, u"2026-01-02T03:04:05Z"_s},
                           {u"os"_s, u"linux"_s},
                           {u"python_version"_s, u"3.11.2"_s},
                           {u"packages"_s, QJsonArray::fromStringList(packages)},
                           {u"plan"_s, plan},
                           {u"files"_s, QJsonArray{}}};
    const auto record = EnvironmentRecord::fromJson(json);
    QVERIFY2(record, qPrintable(record ? QString() : record.error().message));
    const QString summary = record->summary();
    QVERIFY2(summary.contains(u"- CUDA: "_s + cuda + u'\n'), qPrintable(summary));
    QVERIFY2(summary.contains(u"- cuDNN: "_s + cudnn + u'\n'), qPrintable(summary));

    QVERIFY(write(host(u"/data/envs/course/environment.json"_s), QJsonDocument(json).toJson()));
    ListOptions options;
    options.folders = {u"/data/envs/course"_s};
    const QList<EnvironmentListing> list = listEnvironments(*m_system, options);
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.first().cuda, listed);
    QCOMPARE(list.first().toJson().value(u"cuda_from"_s).toString(), from);
    const QString text = listText(list);
    QVERIFY2(text.contains(u"from pip's nvidia-* wheels"_s) == (from == u"pip"), qPrintable(text));
}

void TestEnvironments::list_keepsTheLastVerify()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    VerifyReport report;
    VerifyLayer libraries;
    libraries.id = QStringLiteral("libraries");
    libraries.status = VerifyLayer::Status::Passed;
    VerifyLayer import;
    import.id = QStringLiteral("import");
    import.status = VerifyLayer::Status::Failed;
    import.summary = QStringLiteral("TensorFlow could not be imported");
    report.layers = {libraries, import};
    QVERIFY(recordVerifyResult(host(QStringLiteral("/home/u/tfsetup-envs/course")), report).ok());

    const QList<EnvironmentListing> list = listEnvironments(*m_system);
    QCOMPARE(list.size(), 1);
    QVERIFY(list.first().lastVerify.present);
    QCOMPARE(list.first().lastVerify.passed, false);
    QCOMPARE(list.first().lastVerify.failedLayer, QStringLiteral("import"));
    QCOMPARE(list.first().lastVerify.message, QStringLiteral("TensorFlow could not be imported"));
    QVERIFY(QDateTime::fromString(list.first().lastVerify.date, Qt::ISODate).isValid());
    // The result file is not a file of the user's: it does not make the environment "changed".
    QCOMPARE(list.first().state, QStringLiteral("ok"));
}

void TestEnvironments::list_findsANewerTensorflowOnTheSameRoute()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/old"), QStringLiteral("2.12.0")).isEmpty());
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/new"), QStringLiteral("99.0.0")).isEmpty());
    const auto catalog = Catalog::load();
    QVERIFY(catalog.ok());
    const auto gpus = GpuTable::load();
    const auto json = readJsonObjectFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                             + QStringLiteral("/solver/linux_h100.json"),
                                         QStringLiteral("hardware"));
    QVERIFY(json.ok());
    const auto report = HardwareReport::parse(*json, QStringLiteral("linux_h100.json"));
    QVERIFY(report.ok());
    QList<EnvironmentListing> list = listEnvironments(*m_system, {{}, false});
    findNewerTensorflow(list, *catalog, gpus ? &gpus.value() : nullptr, *report);
    QCOMPARE(list.size(), 2);
    for (const EnvironmentListing &l : list) {
        if (l.tensorflow == u"2.12.0") {
            QVERIFY2(!l.newerTensorflow.isEmpty(), "an H100 on linux-pip gets a TensorFlow newer than 2.12");
            QVERIFY(version::less(QStringLiteral("2.12.0"), l.newerTensorflow));
        } else {
            QVERIFY(l.newerTensorflow.isEmpty());
        }
    }
}

void TestEnvironments::remove_takesOnlyWhatTheRecordProves()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/other")).isEmpty());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/home/u/tfsetup-envs/course")).ok());
    const QString env = host(QStringLiteral("/home/u/tfsetup-envs/course"));
    // The student's notebook, and a launcher they edited: neither is tfsetup's any more.
    QVERIFY(write(env + QStringLiteral("/notebooks/thesis.ipynb"), "{}"));
    QVERIFY(write(env + QStringLiteral("/start-python"), "#!/bin/sh\n# mine\n"));
    const QString cache = host(QStringLiteral("/home/u/.cache/tfsetup/downloads/sha256/ab/abcd"));
    QVERIFY(write(cache, "cached"));

    const auto report = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY2(report.ok(), qPrintable(report.ok() ? QString() : report.error().message));
    QCOMPARE(report->kept, (QStringList{QStringLiteral("notebooks/thesis.ipynb"), QStringLiteral("start-python")}));
    QVERIFY(report->folderKept);
    QVERIFY(report->filesRemoved >= 5);
    QVERIFY(report->bytesFreed >= 4096);
    QCOMPARE(report->outsideRemoved.size(), 2);
    QVERIFY(report->text().contains(QStringLiteral("thesis.ipynb")));

    // The folder stays, holding only what is the student's.
    QVERIFY(QFile::exists(env + QStringLiteral("/notebooks/thesis.ipynb")));
    QVERIFY(QFile::exists(env + QStringLiteral("/start-python")));
    QVERIFY(!QFile::exists(env + QStringLiteral("/environment.json")));
    QVERIFY(!QFileInfo::exists(env + QStringLiteral("/venv")));
    QVERIFY(!QFileInfo::exists(env + QStringLiteral("/lib")));
    QVERIFY(!QFileInfo::exists(env + QStringLiteral("/kernel")));
    QVERIFY(!QFileInfo::exists(env + QStringLiteral("/logs")));
    QVERIFY(!QFileInfo::exists(removalTombstone(env)));
    QVERIFY(!QFileInfo::exists(host(QStringLiteral("/home/u/.local/share/jupyter/kernels/course"))));
    QVERIFY(!QFileInfo::exists(host(QStringLiteral("/home/u/.local/share/applications/tfsetup-course.desktop"))));
    // Nothing left beside it: no tombstone, lock or work record.
    QCOMPARE(QDir(host(QStringLiteral("/home/u/tfsetup-envs")))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             (QStringList{QStringLiteral("course"), QStringLiteral("other")}));
    QVERIFY(!EnvironmentIndex::folders(*m_system).contains(QStringLiteral("/home/u/tfsetup-envs/course")));

    // The other environment, its kernel and the cache are untouched.
    const QString other = host(QStringLiteral("/home/u/tfsetup-envs/other"));
    QVERIFY(QFile::exists(other + QStringLiteral("/environment.json")));
    QVERIFY(QFile::exists(other + QStringLiteral("/venv/lib/python3.11/site-packages/tinypkg/__init__.py")));
    QVERIFY(QFile::exists(host(QStringLiteral("/home/u/.local/share/jupyter/kernels/other/kernel.json"))));
    QVERIFY(QFile::exists(host(QStringLiteral("/home/u/.local/share/applications/tfsetup-other.desktop"))));
    QVERIFY(QFile::exists(cache));
    const QList<EnvironmentListing> list = listEnvironments(*m_system, {{}, false});
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.first().name, QStringLiteral("other"));
    QCOMPARE(list.first().state, QStringLiteral("ok"));

    // The folder that stayed is not an environment: a second remove refuses it.
    QCOMPARE(removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course")).error().code,
             QStringLiteral("not_environment"));
}

void TestEnvironments::remove_takesItsOwnLogsKeepsTheUsers()
{
    // Repaired and verified: every companion file tfsetup wrote under logs/ goes, and the folder.
    const QString repaired = u"/home/u/tfsetup-envs/repaired"_s;
    QVERIFY(!makeEnvironment(repaired).isEmpty());
    for (const QString &companion : EnvironmentRecord::companionFiles())
        QVERIFY(write(host(repaired) + u'/' + companion, "tfsetup's\n"));
    const auto gone = removeEnvironment(*m_system, repaired);
    QVERIFY2(gone, qPrintable(gone ? QString() : gone.error().message));
    QVERIFY(gone->kept.isEmpty());
    QVERIFY(!gone->folderKept);
    QVERIFY(!QFileInfo::exists(host(repaired)));

    // A TensorBoard run of the user's in logs/: it stays, with logs/ and the folder, and is named.
    const QString used = u"/home/u/tfsetup-envs/used"_s;
    QVERIFY(!makeEnvironment(used).isEmpty());
    QVERIFY(write(host(used) + u"/logs/repair.log"_s, "tfsetup's\n"));
    QVERIFY(write(host(used) + u"/logs/fit/events.out.tfevents.1"_s, "the user's\n"));
    const auto kept = removeEnvironment(*m_system, used);
    QVERIFY2(kept, qPrintable(kept ? QString() : kept.error().message));
    QCOMPARE(kept->kept, QStringList{u"logs/fit/events.out.tfevents.1"_s});
    QVERIFY(kept->folderKept);
    QVERIFY(QFile::exists(host(used) + u"/logs/fit/events.out.tfevents.1"_s));
    QVERIFY(!QFileInfo::exists(host(used) + u"/logs/repair.log"_s));
    QVERIFY(!QFileInfo::exists(host(used) + u"/logs/install.log"_s));
    QVERIFY2(kept->text().contains(u"logs/fit/events.out.tfevents.1"_s), qPrintable(kept->text()));
}

void TestEnvironments::remove_refusesAFolderTfsetupDidNotMake()
{
    const QString dir = host(QStringLiteral("/home/u/projects"));
    QVERIFY(write(dir + QStringLiteral("/main.py"), "print(1)\n"));
    QCOMPARE(removeEnvironment(*m_system, QStringLiteral("/home/u/projects")).error().code,
             QStringLiteral("not_environment"));
    QVERIFY(write(dir + QStringLiteral("/environment.json"), "{\"schema\": 1, \"files\": [{\"path\": \"../x\"}]}"));
    QCOMPARE(removeEnvironment(*m_system, QStringLiteral("/home/u/projects")).error().code,
             QStringLiteral("not_environment"));
    QVERIFY(QFile::exists(dir + QStringLiteral("/main.py")));
    QVERIFY(QFile::exists(dir + QStringLiteral("/environment.json")));
    // An environment folder that is a link: nothing is removed through it.
    QVERIFY(!makeEnvironment(QStringLiteral("/data/real")).isEmpty());
    QVERIFY(QDir().mkpath(host(QStringLiteral("/home/u/tfsetup-envs"))));
    QVERIFY(QFile::link(host(QStringLiteral("/data/real")), host(QStringLiteral("/home/u/tfsetup-envs/linked"))));
    QCOMPARE(removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/linked")).error().code,
             QStringLiteral("target_is_link"));
    QVERIFY(QFile::exists(host(QStringLiteral("/data/real/environment.json"))));
}

void TestEnvironments::remove_neverFollowsAPlantedLink()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    const QString env = host(QStringLiteral("/home/u/tfsetup-envs/course"));
    const QString precious = m_outside.filePath(QStringLiteral("precious"));
    QVERIFY(write(precious + QStringLiteral("/thesis.tex"), "\\documentclass{article}"));
    // Links planted in the venv (a folder and a file) and in place of a recorded folder.
    QVERIFY(QFile::link(precious, env + QStringLiteral("/venv/lib/python3.11/site-packages/escape")));
    QVERIFY(QFile::link(precious + QStringLiteral("/thesis.tex"), env + QStringLiteral("/venv/thesis.tex")));
    QVERIFY(QDir(env + QStringLiteral("/kernel")).removeRecursively());
    QVERIFY(QFile::link(precious, env + QStringLiteral("/kernel")));

    const auto report = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY2(report.ok(), qPrintable(report.ok() ? QString() : report.error().message));
    QVERIFY(QFile::exists(precious + QStringLiteral("/thesis.tex")));
    QCOMPARE(QDir(precious).entryList(QDir::Files), QStringList{QStringLiteral("thesis.tex")});
    // The link that took a folder's place is not tfsetup's: it is kept (as the link) and named.
    QVERIFY(report->kept.contains(QStringLiteral("kernel")));
    QVERIFY(QFileInfo(env + QStringLiteral("/kernel")).isSymLink());
}

void TestEnvironments::remove_dryRunChangesNothing()
{
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    const QString env = host(QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY(write(env + QStringLiteral("/notes.txt"), "mine"));
    const auto report = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"), true);
    QVERIFY(report.ok());
    QVERIFY(report->dryRun);
    QVERIFY(report->filesRemoved >= 5);
    QCOMPARE(report->kept, QStringList{QStringLiteral("notes.txt")});
    QCOMPARE(report->outsideRemoved.size(), 2);
    QVERIFY(QFile::exists(env + QStringLiteral("/environment.json")));
    QVERIFY(QFile::exists(env + QStringLiteral("/lib/libcudart.so.12")));
    QVERIFY(QFile::exists(host(QStringLiteral("/home/u/.local/share/jupyter/kernels/course/kernel.json"))));
}

void TestEnvironments::remove_killedMidway_isFinishedByTheNextRemove_data()
{
    QTest::addColumn<QString>("point");
    QTest::newRow("after the rename to the tombstone") << QStringLiteral("tombstoned");
    QTest::newRow("halfway through the files") << QStringLiteral("halfway");
}

void TestEnvironments::remove_killedMidway_isFinishedByTheNextRemove()
{
    QFETCH(QString, point);
    QVERIFY(!makeEnvironment(QStringLiteral("/home/u/tfsetup-envs/course")).isEmpty());
    QVERIFY(EnvironmentIndex::add(*m_system, QStringLiteral("/home/u/tfsetup-envs/course")).ok());
    const QString env = host(QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY(write(env + QStringLiteral("/notes.txt"), "mine"));
    const auto killed = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"), false,
                                          [&](const QString &at) { return at == point; });
    QVERIFY(!killed.ok());
    // No half-removed environment under its name; the list says what happened.
    QVERIFY(!QFileInfo::exists(env));
    QVERIFY(QFileInfo(removalTombstone(env)).isDir());
    const QList<EnvironmentListing> list = listEnvironments(*m_system, {{}, false});
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.first().state, QStringLiteral("removal_interrupted"));

    const auto finished = removeEnvironment(*m_system, QStringLiteral("/home/u/tfsetup-envs/course"));
    QVERIFY2(finished.ok(), qPrintable(finished.ok() ? QString() : finished.error().message));
    QVERIFY(!QFileInfo::exists(removalTombstone(env)));
    QCOMPARE(QDir(env).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("notes.txt")});
    QVERIFY(!QFileInfo::exists(host(QStringLiteral("/home/u/.local/share/jupyter/kernels/course"))));
    QVERIFY(listEnvironments(*m_system, {{}, false}).isEmpty());
}

void TestEnvironments::clean_prunesByAgeAndSizeKeepingWhatIsNeeded()
{
    QTemporaryDir cacheDir;
    QVERIFY(cacheDir.isValid());
    const auto entry = [&](const QByteArray &content, int days) {
        const QByteArray digest = sha(content);
        const QString path = cacheDir.filePath(QStringLiteral("sha256/") + QString::fromLatin1(digest.left(2)) + u'/'
                                               + QString::fromLatin1(digest));
        write(path, content);
        age(path, days);
        return std::pair{digest, path};
    };
    const auto [oldDigest, oldPath] = entry(QByteArray(1000, 'o'), 200);
    const auto [neededDigest, neededPath] = entry(QByteArray(1000, 'n'), 300);
    const auto [lockedDigest, lockedPath] = entry(QByteArray(1000, 'l'), 250);
    const auto [midDigest, midPath] = entry(QByteArray(3000, 'm'), 20);
    const auto [newDigest, newPath] = entry(QByteArray(2000, 'w'), 1);
    const QString bad = cacheDir.filePath(QStringLiteral("sha256/ab/quarantine/ab12.20250101T000000000.bad"));
    QVERIFY(write(bad, "bad"));
    age(bad, 120);
    // A link planted in the cache is neither followed nor removed through.
    const QString precious = m_outside.filePath(QStringLiteral("precious.bin"));
    QVERIFY(write(precious, "keep me"));
    QVERIFY(QDir().mkpath(cacheDir.filePath(QStringLiteral("sha256/") + QString::fromLatin1(sha("x").left(2)))));
    QVERIFY(QFile::link(precious,
                        cacheDir.filePath(QStringLiteral("sha256/") + QString::fromLatin1(sha("x").left(2)) + u'/'
                                          + QString::fromLatin1(sha("x")))));
    // Another tfsetup holds one entry's lock.
    const DownloadCache cache(cacheDir.path());
    const auto held = cache.lock(Checksum{Checksum::Algorithm::Sha256, lockedDigest}, nullptr, std::chrono::seconds(5));
    QVERIFY(held);

    CleanOptions options;
    options.cacheDir = cacheDir.path();
    options.maxAgeDays = 90;
    options.maxBytes = 4500;
    options.keep = {neededDigest};
    const CleanReport report = cleanDownloads(options);
    QVERIFY(!QFile::exists(oldPath));
    QVERIFY(!QFile::exists(bad));
    QVERIFY(QFile::exists(neededPath));
    QVERIFY(QFile::exists(lockedPath));
    // Over the size the oldest unreferenced entry goes next; the newest stays.
    QVERIFY(!QFile::exists(midPath));
    QVERIFY(QFile::exists(newPath));
    QVERIFY(QFile::exists(precious));
    QCOMPARE(report.entriesRemoved, 3);
    QCOMPARE(report.cacheBytesFreed, qint64(1000 + 3 + 3000));
    QVERIFY(report.entriesKeptReferenced >= 1);
    QVERIFY(report.entriesInUse >= 1);
    QCOMPARE(report.entriesKeptReferenced, 1);
    QCOMPARE(report.entriesInUse, 1);
    QCOMPARE(report.cacheBytesLeft, qint64(1000 + 1000 + 2000));
    QCOMPARE(report.toJson().value(QStringLiteral("bytes_freed")).toInteger(), qint64(4003));
    QVERIFY(report.text().contains(QStringLiteral("3 cached download(s)")));
}

void TestEnvironments::clean_dryRunRemovesNothing()
{
    QTemporaryDir cacheDir;
    const QByteArray digest = sha("old");
    const QString path = cacheDir.filePath(QStringLiteral("sha256/") + QString::fromLatin1(digest.left(2)) + u'/'
                                           + QString::fromLatin1(digest));
    QVERIFY(write(path, "old"));
    age(path, 400);
    CleanOptions options;
    options.cacheDir = cacheDir.path();
    options.dryRun = true;
    const CleanReport report = cleanDownloads(options);
    QCOMPARE(report.entriesRemoved, 1);
    QCOMPARE(report.cacheBytesFreed, qint64(3));
    QVERIFY(QFile::exists(path));
    QVERIFY(report.text().startsWith(QStringLiteral("Would free")));
    // Nothing claims to be done: what the cache would then hold, not what it "now" holds.
    QVERIFY2(report.text().contains(QStringLiteral("would then hold")), qPrintable(report.text()));
    QVERIFY2(!report.text().contains(QStringLiteral("now holds")), qPrintable(report.text()));
    CleanOptions real = options;
    real.dryRun = false;
    QVERIFY(cleanDownloads(real).text().contains(QStringLiteral("now holds")));
}

void TestEnvironments::clean_rotatesOldLogs()
{
    QTemporaryDir logs;
    QStringList names;
    for (int i = 0; i < 14; ++i) {
        const QString name = QStringLiteral("tfsetup-202601%1-000000-1.log").arg(i + 10);
        QVERIFY(write(logs.filePath(name), "line\n"));
        age(logs.filePath(name), 100 - i); // the first is the oldest
        names.append(name);
    }
    QVERIFY(write(logs.filePath(QStringLiteral("notes.txt")), "mine"));
    age(logs.filePath(QStringLiteral("notes.txt")), 300);
    CleanOptions options;
    options.logDir = logs.path();
    options.currentLog = logs.filePath(names.first()); // this run's log is never removed
    options.logsKept = 10;
    const CleanReport report = cleanDownloads(options);
    QCOMPARE(report.logsRemoved, 3);
    QVERIFY(QFile::exists(logs.filePath(names.at(0))));
    QVERIFY(!QFile::exists(logs.filePath(names.at(1))));
    QVERIFY(!QFile::exists(logs.filePath(names.at(3))));
    QVERIFY(QFile::exists(logs.filePath(names.at(4))));
    QVERIFY(QFile::exists(logs.filePath(QStringLiteral("notes.txt"))));
}

void TestEnvironments::parseSize_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("bytes") << QStringLiteral("123") << qint64(123);
    QTest::newRow("megabytes") << QStringLiteral("500M") << qint64(500) * 1024 * 1024;
    QTest::newRow("gigabytes with B") << QStringLiteral("2GB") << qint64(2) * 1024 * 1024 * 1024;
    QTest::newRow("fraction, lower case, iB") << QStringLiteral("1.5gib") << qint64(1536) * 1024 * 1024;
    QTest::newRow("not a size") << QStringLiteral("lots") << qint64(-1);
    QTest::newRow("negative") << QStringLiteral("-5G") << qint64(-1);
}

void TestEnvironments::parseSize()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    QCOMPARE(core::parseSize(text).value_or(-1), bytes);
}

QTEST_GUILESS_MAIN(TestEnvironments)
#include "test_environments.moc"
