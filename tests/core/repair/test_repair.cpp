// Repair of an installed environment: a Windows-shaped environment built by the installer over a
// fixture drive, its archives served on loopback, then a deleted, a corrupted and a misplaced
// file. Repair restores exactly those, downloads only the archive it lacks, and the environment
// checks clean afterwards; a dry run and a failed repair change nothing.

#include "install/installer.h"
#include "repair/repair.h"
#include "support/coroutinetest.h"
#include "support/poolgate.h"
#include "support/fixturetree.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "support/treesnapshot.h"
#include "util/confined.h"
#include "support/installarchives.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QTest>
#include <QTimer>

#include <functional>

using namespace tfsetup;
using namespace tfsetup::test;
using core::InstallArtifact;
using core::Installer;
using core::InstallSpec;
using core::OsFamily;
using core::Repairer;
using core::RepairItem;
using core::RepairOptions;
using core::RepairReport;

Q_DECLARE_METATYPE(tfsetup::core::RepairStep)

namespace {

const QString prefix = QStringLiteral("C:/Users/student/tf envs");
const QString envPath = prefix + QStringLiteral("/tf2.10-cuda11.2");
const QString cudartZip = QStringLiteral("cuda_cudart-windows-x86_64-11.8.89-archive.zip");
const QString cudnnZip = QStringLiteral("cudnn-11.2-windows-x64-v8.1.0.77.zip");
// Where the installer registers the kernel in this fixture (APPDATA\jupyter\kernels\<name>).
const QString jupyterData = QStringLiteral("C:/Users/student/AppData/Roaming/jupyter");
const QString kernelFolder = jupyterData + QStringLiteral("/kernels/tf2.10-cuda11.2");

QByteArray sha256(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

// The environment's tree without the repair's own log.
TreeSnapshot snapshot(const QString &root)
{
    return TreeSnapshot::take(root);
}

QString differences(const TreeSnapshot &now, const TreeSnapshot &before)
{
    QStringList out;
    for (const QString &line : now.differenceFrom(before).split(u'\n', Qt::SkipEmptyParts)) {
        if (!line.contains(QStringLiteral("logs/repair.log")) && line != QStringLiteral("+ logs"))
            out.append(line);
    }
    return out.join(u'\n');
}

} // namespace

class TestRepair : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void intactEnvironmentNeedsNothing();
    void restoresExactlyTheDamagedFiles();
    void dryRunChangesNothing();
    void failureLeavesTheEnvironmentAsItWas_data();
    void failureLeavesTheEnvironmentAsItWas();
    void noKnowledgeChangesNothing();
    void deletedRepairerEndsTheRepairCleanly_data();
    void deletedRepairerEndsTheRepairCleanly();
    void archiveWithOtherContentIsRefused();
    void launcherIsWrittenAgainAndKernelRegistered();
    void kernelFolderIsOnlyTfsetupsOwn_data();
    void kernelFolderIsOnlyTfsetupsOwn();
    void registeredKernelIsKeptBeforeReplacement();
    void registeredKernelOfAnEarlierRepairIsReplaced();
    void kernelsFolderLinkPlantedBeforeTheWriteIsRefused();
    void findingsAreJudged();
    void discoversEnvironments();

private:
    InstallArtifact archive(const QString &name, const QString &kind, const QString &component, const QString &version,
                            const QList<Entry> &entries)
    {
        const QString path = m_tree->filePath(QStringLiteral("downloads/") + name);
        QDir().mkpath(QFileInfo(path).absolutePath());
        const auto written = core::ArchiveWriter::write(path, core::ArchiveWriter::Zip, entries);
        if (!written)
            qWarning() << written.error().detail;
        // The server keeps its own copy: the download folder is what repair may find damaged.
        QFile in(path);
        in.open(QIODevice::ReadOnly);
        m_server->route(QByteArray("/" + name.toUtf8()), Response::bytes(in.readAll()));
        return InstallArtifact{kind,
                               component,
                               version,
                               QStringLiteral("windows-x86_64"),
                               sha256(path),
                               path,
                               m_server->url(u'/' + name).toString()};
    }
    InstallSpec spec()
    {
        InstallSpec s;
        s.name = QStringLiteral("tf2.10-cuda11.2");
        s.prefix = prefix;
        s.route = QStringLiteral("windows-native");
        s.tensorflow = QStringLiteral("2.10.0");
        s.python = QStringLiteral("3.10");
        s.cuda = QStringLiteral("11.2");
        s.cudnn = QStringLiteral("8.1");
        s.driver = QStringLiteral("537.13");
        s.artifacts.append(archive(
            cudartZip, QStringLiteral("cuda-redist-archive"), QStringLiteral("cuda_cudart"), QStringLiteral("11.8.89"),
            cudartArchive(true, QStringLiteral("11.8.89"), {}, QStringLiteral("cudart64_110.dll"))));
        s.artifacts.append(archive(cudnnZip, QStringLiteral("cudnn-archive"), QStringLiteral("cudnn"),
                                   QStringLiteral("8.1.0.77"), cudnnArchive(true, QStringLiteral("8.1.0.77"), true)));
        return s;
    }
    RepairOptions options(bool dryRun = false) const
    {
        RepairOptions o;
        o.environmentPath = envPath;
        o.dryRun = dryRun;
        o.cacheDir = m_tree->filePath(QStringLiteral("downloads"));
        o.network.transfer.probeMirrors = false;
        return o;
    }
    core::Result<RepairReport> repair(const RepairOptions &o, Repairer *repairer = nullptr)
    {
        Repairer own(*m_view, test::shippedKnowledge());
        Repairer &r = repairer ? *repairer : own;
        auto result = awaitTask(r.repair(o), std::chrono::seconds(60));
        return result ? *result : core::Result<RepairReport>(core::Error{QStringLiteral("timeout"), {}, {}});
    }
    // Deletes cudart64_110.dll, corrupts cudnn64_8.dll, moves cudnn_ops_infer64_8.dll to the
    // environment's top folder, and deletes the cuDNN download so it must be fetched again.
    void damage()
    {
        QVERIFY(QFile::remove(m_env + QStringLiteral("/cuda/bin/cudart64_110.dll")));
        QFile f(m_env + QStringLiteral("/cuda/bin/cudnn64_8.dll"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
        f.write("flipped by a failing disk");
        f.close();
        QVERIFY(QFile::rename(m_env + QStringLiteral("/cuda/bin/cudnn_ops_infer64_8.dll"),
                              m_env + QStringLiteral("/cudnn_ops_infer64_8.dll")));
        QVERIFY(QFile::remove(m_tree->filePath(QStringLiteral("downloads/") + cudnnZip)));
    }
    // environment.json changed as a damaged or foreign record would be.
    void editRecord(const std::function<void(QJsonObject &)> &edit)
    {
        QFile in(m_env + QStringLiteral("/environment.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject record = QJsonDocument::fromJson(in.readAll()).object();
        in.close();
        edit(record);
        QFile out(m_env + QStringLiteral("/environment.json"));
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(record).toJson());
    }
    void writeFile(const QString &hostPath, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(hostPath).absolutePath());
        QFile f(hostPath);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(bytes), bytes.size());
    }
    QByteArray readFile(const QString &hostPath)
    {
        QFile f(hostPath);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    const RepairItem *item(const RepairReport &report, const QString &path) const
    {
        for (const RepairItem &i : report.before) {
            if (i.path == path)
                return &i;
        }
        return nullptr;
    }

    std::unique_ptr<FixtureTree> m_tree;
    std::unique_ptr<core::RootedSystem> m_view;
    std::unique_ptr<LoopbackServer> m_server;
    QString m_env;
    TreeSnapshot m_installed;
};

void TestRepair::init()
{
    m_tree = std::make_unique<FixtureTree>();
    QVERIFY(m_tree->write({{QStringLiteral("C/Users/student/"), {}}}));
    QVERIFY(m_tree->writeEnv({{QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")},
                              {QStringLiteral("APPDATA"), QStringLiteral("C:\\Users\\student\\AppData\\Roaming")},
                              {QStringLiteral("PATH"), QStringLiteral("C:\\Windows\\System32")}}));
    m_view = m_tree->open(OsFamily::Windows);
    QVERIFY(m_view);
    m_server = std::make_unique<LoopbackServer>();
    QVERIFY(m_server->start());
    Installer installer(*m_view, test::shippedKnowledge());
    const auto outcome = awaitTask(installer.install(spec()), std::chrono::seconds(60));
    QVERIFY(outcome);
    QVERIFY2(*outcome,
             qPrintable(*outcome ? QString() : (*outcome).error().message + u' ' + (*outcome).error().detail));
    m_env = m_view->hostPath(envPath);
    m_installed = snapshot(m_env);
    QVERIFY(m_installed.contains(QStringLiteral("cuda/bin/cudnn64_8.dll")));
    QVERIFY(m_server->requests().isEmpty());
}

void TestRepair::cleanup()
{
    m_server.reset();
    m_view.reset();
    m_tree.reset();
}

void TestRepair::intactEnvironmentNeedsNothing()
{
    const auto report = repair(options());
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QVERIFY(report->before.isEmpty());
    QVERIFY(!report->changed());
    QVERIFY(report->healthy());
    QVERIFY(report->fetched.isEmpty());
    QVERIFY(m_server->requests().isEmpty());
    const QString diff = differences(snapshot(m_env), m_installed);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestRepair::restoresExactlyTheDamagedFiles()
{
    damage();
    Repairer repairer(*m_view, test::shippedKnowledge());
    QList<core::RepairStep> steps;
    connect(&repairer, &Repairer::stepStarted, this, [&](core::RepairStep step, const QString &title) {
        steps.append(step);
        QVERIFY(!title.isEmpty());
    });
    const auto report = repair(options(), &repairer);
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));

    QCOMPARE(report->before.size(), 3);
    const RepairItem *missing = item(*report, QStringLiteral("cuda/bin/cudart64_110.dll"));
    QVERIFY(missing);
    QCOMPARE(missing->problem, RepairItem::Problem::Missing);
    QCOMPARE(missing->fix, RepairItem::Fix::FromArchive);
    const RepairItem *altered = item(*report, QStringLiteral("cuda/bin/cudnn64_8.dll"));
    QVERIFY(altered);
    QCOMPARE(altered->problem, RepairItem::Problem::Altered);
    QCOMPARE(altered->fix, RepairItem::Fix::FromArchive);
    QCOMPARE(altered->source, cudnnZip);
    const RepairItem *moved = item(*report, QStringLiteral("cuda/bin/cudnn_ops_infer64_8.dll"));
    QVERIFY(moved);
    QCOMPARE(moved->problem, RepairItem::Problem::Misplaced);
    QCOMPARE(moved->foundAt, QStringLiteral("cudnn_ops_infer64_8.dll"));

    // The cuDNN archive came from its recorded URL; the CUDA one from the download folder.
    QCOMPARE(report->fetched, QStringList{m_server->url(u'/' + cudnnZip).toString()});
    QCOMPARE(report->fromCache, QStringList{cudartZip});
    QCOMPARE(m_server->requests(QByteArray("/" + cudartZip.toUtf8())).size(), 0);
    QVERIFY(!m_server->requests(QByteArray("/" + cudnnZip.toUtf8())).isEmpty());
    QCOMPARE(steps.first(), core::RepairStep::Check);
    QVERIFY(steps.contains(core::RepairStep::Commit));

    QVERIFY2(report->after.isEmpty(), qPrintable(report->after.join(u',')));
    QVERIFY(report->healthy());
    const QString diff = differences(snapshot(m_env), m_installed);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QVERIFY(QFile::exists(m_env + QStringLiteral("/logs/repair.log")));
    // Nothing is left beside the environment.
    QCOMPARE(QDir(m_view->hostPath(prefix)).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("tf2.10-cuda11.2")});
    QVERIFY(report->text().contains(QStringLiteral("cudnn64_8.dll")));
    QCOMPARE(report->toJson().value(QStringLiteral("before")).toArray().size(), 3);
}

void TestRepair::dryRunChangesNothing()
{
    damage();
    const TreeSnapshot damaged = snapshot(m_view->hostPath(QStringLiteral("C:/")));
    const TreeSnapshot downloads = snapshot(m_tree->filePath(QStringLiteral("downloads")));
    const auto report = repair(options(true));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QVERIFY(report->dryRun);
    QCOMPARE(report->before.size(), 3);
    QVERIFY(report->changed());
    QVERIFY(!report->healthy());
    QCOMPARE(report->fetched, QStringList{m_server->url(u'/' + cudnnZip).toString()});
    QVERIFY(m_server->requests().isEmpty());
    const QString diff = snapshot(m_view->hostPath(QStringLiteral("C:/"))).differenceFrom(damaged);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QVERIFY(snapshot(m_tree->filePath(QStringLiteral("downloads"))) == downloads);
}

void TestRepair::failureLeavesTheEnvironmentAsItWas_data()
{
    QTest::addColumn<core::RepairStep>("step");
    QTest::newRow("check") << core::RepairStep::Check;
    QTest::newRow("fetch") << core::RepairStep::Fetch;
    QTest::newRow("stage") << core::RepairStep::Stage;
    QTest::newRow("commit") << core::RepairStep::Commit;
}

void TestRepair::failureLeavesTheEnvironmentAsItWas()
{
    QFETCH(core::RepairStep, step);
    damage();
    const TreeSnapshot damaged = snapshot(m_view->hostPath(prefix));
    Repairer repairer(*m_view, test::shippedKnowledge());
    repairer.setCheckpoint([step](core::RepairStep at) -> core::Status {
        if (at == step)
            return core::Error{QStringLiteral("drill"), QStringLiteral("failed on purpose"), {}};
        return core::Ok{};
    });
    const auto report = repair(options(), &repairer);
    QVERIFY(!report);
    QCOMPARE(report.error().code, QStringLiteral("drill"));
    const QString diff = snapshot(m_view->hostPath(prefix)).differenceFrom(damaged);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestRepair::noKnowledgeChangesNothing()
{
    // A driver that did not load the catalog gets an error, not the catalog of its own choosing.
    damage();
    const TreeSnapshot damaged = snapshot(m_view->hostPath(prefix));
    Repairer repairer(*m_view, nullptr);
    const auto report = repair(options(), &repairer);
    QVERIFY(!report);
    QCOMPARE(report.error().code, QStringLiteral("catalog_not_given"));
    QVERIFY(m_server->requests().isEmpty());
    const QString diff = snapshot(m_view->hostPath(prefix)).differenceFrom(damaged);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestRepair::deletedRepairerEndsTheRepairCleanly_data()
{
    QTest::addColumn<core::RepairStep>("step");
    QTest::newRow("check") << core::RepairStep::Check;
    QTest::newRow("fetch") << core::RepairStep::Fetch;
    QTest::newRow("stage") << core::RepairStep::Stage;
}

void TestRepair::deletedRepairerEndsTheRepairCleanly()
{
    // The Repairer is deleted (as its page is, when closed) while the repair waits for work on
    // the thread pool: the repair ends as cancelled without touching the deleted
    // object (the suite runs under AddressSanitizer), and the environment and the folder around it
    // are exactly as before, no staging folder or lock left.
    QFETCH(core::RepairStep, step);
    damage();
    const TreeSnapshot damaged = snapshot(m_view->hostPath(prefix));
    auto *repairer = new Repairer(*m_view, test::shippedKnowledge());
    QPointer<Repairer> alive(repairer);
    connect(repairer, &Repairer::stepStarted, this, [this, step, alive](core::RepairStep at, const QString &) {
        if (at != step)
            return;
        // The step's work on the pool waits until the owner is gone: deleted while suspended.
        auto gate = std::make_shared<PoolGate>();
        QTimer::singleShot(0, this, [alive, gate] {
            delete alive.data();
            gate->release();
        });
    });
    const auto report = awaitTask(repairer->repair(options()), std::chrono::seconds(60));
    QVERIFY(report);
    QVERIFY(alive.isNull());
    QVERIFY(!*report);
    QCOMPARE((*report).error().code, QStringLiteral("cancelled"));
    const QString diff = snapshot(m_view->hostPath(prefix)).differenceFrom(damaged);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestRepair::archiveWithOtherContentIsRefused()
{
    // The server now serves a cuDNN archive of the same name with other bytes: the download's
    // checksum (from the record) refuses it, and the environment stays as it was.
    damage();
    m_server->route(QByteArray("/" + cudnnZip.toUtf8()), Response::bytes("not the archive that was installed"));
    const TreeSnapshot damaged = snapshot(m_view->hostPath(prefix));
    const auto report = repair(options());
    QVERIFY(!report);
    QVERIFY(!report.error().message.isEmpty());
    const QString diff = snapshot(m_view->hostPath(prefix)).differenceFrom(damaged);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestRepair::launcherIsWrittenAgainAndKernelRegistered()
{
    const QString launcher = m_env + QStringLiteral("/start-python.bat");
    QVERIFY(QFile::exists(launcher));
    QFile f(launcher);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("@echo my own edit\r\n");
    f.close();
    QVERIFY(QFile::remove(m_env + QStringLiteral("/kernel/kernel.json")));
    const auto record = core::EnvironmentRecord::read(m_env);
    QVERIFY(record);
    QVERIFY(!record->kernelFolder.isEmpty());
    const QString registered = m_view->hostPath(record->kernelFolder + QStringLiteral("/kernel.json"));
    QVERIFY(QFile::remove(registered));

    const auto report = repair(options());
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));
    QCOMPARE(report->before.size(), 2);
    QCOMPARE(item(*report, QStringLiteral("start-python.bat"))->fix, RepairItem::Fix::Regenerate);
    QCOMPARE(report->outside.size(), 1);
    QVERIFY(report->fetched.isEmpty());
    QVERIFY(m_server->requests().isEmpty());
    QVERIFY(report->healthy());
    // The launcher and kernel are as installed; the edit is kept beside them.
    const TreeSnapshot now = snapshot(m_env);
    QCOMPARE(now.added(m_installed).filter(QStringLiteral("user-backup")),
             QStringList{QStringLiteral("start-python.bat.user-backup")});
    QVERIFY(now.changed(m_installed).isEmpty());
    QCOMPARE(sha256(registered), sha256(m_env + QStringLiteral("/kernel/kernel.json")));
}

void TestRepair::kernelFolderIsOnlyTfsetupsOwn_data()
{
    // What the record says (empty: as installed), which part of Jupyter's folder is a link to
    // another place, and the error (empty: the repair goes ahead and registers the kernel).
    QTest::addColumn<QString>("recordedFolder");
    QTest::addColumn<QString>("recordedName");
    QTest::addColumn<QString>("link");
    QTest::addColumn<QString>("code");
    QTest::newRow("another folder") << QStringLiteral("C:/Users/student/Documents/kernels/tf2.10-cuda11.2") << QString()
                                    << QString() << QStringLiteral("kernel_folder_foreign");
    QTest::newRow("another environment's kernel") << jupyterData + QStringLiteral("/kernels/tf2.15-lab") << QString()
                                                  << QString() << QStringLiteral("kernel_folder_foreign");
    QTest::newRow("folder with ..") << jupyterData
            + QStringLiteral("/kernels/../../../../Documents/kernels/tf2.10-cuda11.2")
                                    << QString() << QString() << QStringLiteral("record_malformed");
    QTest::newRow("kernel name with ..") << jupyterData + QStringLiteral("/kernels/Documents")
                                         << QStringLiteral("../../../../Documents") << QString()
                                         << QStringLiteral("kernel_folder_foreign");
    QTest::newRow("kernel folder is a link")
        << QString() << QString() << QStringLiteral("kernels/tf2.10-cuda11.2") << QStringLiteral("kernel_folder_link");
    QTest::newRow("kernels folder is a link")
        << QString() << QString() << QStringLiteral("kernels") << QStringLiteral("kernel_folder_link");
    QTest::newRow("the same folder in Windows spelling")
        << QStringLiteral("c:\\users\\student\\AppData\\Roaming\\Jupyter\\kernels\\tf2.10-cuda11.2") << QString()
        << QString() << QString();
}

void TestRepair::kernelFolderIsOnlyTfsetupsOwn()
{
    QFETCH(QString, recordedFolder);
    QFETCH(QString, recordedName);
    QFETCH(QString, link);
    QFETCH(QString, code);
    editRecord([&](QJsonObject &record) {
        if (!recordedFolder.isEmpty())
            record.insert(QStringLiteral("kernel_folder"), recordedFolder);
        if (!recordedName.isEmpty()) {
            QJsonObject plan = record.value(QStringLiteral("plan")).toObject();
            plan.insert(QStringLiteral("kernel_name"), recordedName);
            record.insert(QStringLiteral("plan"), plan);
        }
    });
    // Damage that repair would otherwise put right: an edited launcher, no registered kernel.
    writeFile(m_env + QStringLiteral("/start-python.bat"), "@echo my own edit\r\n");
    const QString registered = m_view->hostPath(kernelFolder + QStringLiteral("/kernel.json"));
    QVERIFY(QFile::remove(registered));
    // Another folder of the student's, with a kernel.json of its own, where a link leads.
    const QString victim = m_tree->filePath(QStringLiteral("victim"));
    writeFile(victim + QStringLiteral("/kernels/tf2.10-cuda11.2/kernel.json"), "{\"display_name\": \"mine\"}");
    if (!link.isEmpty()) {
        const QString at = m_view->hostPath(jupyterData) + u'/' + link;
        QVERIFY(QDir(at).removeRecursively());
        QVERIFY(QFile::link(victim + u'/' + link, at));
    }
    const TreeSnapshot before = snapshot(m_tree->path());

    for (const bool dryRun : {true, false}) {
        const auto report = repair(options(dryRun));
        if (code.isEmpty()) {
            QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
            continue;
        }
        QVERIFY(!report);
        QCOMPARE(report.error().code, code);
        const QString message = report.error().message;
        if (code == u"kernel_folder_foreign")
            QVERIFY2(message.contains(QStringLiteral("Install the environment again")), qPrintable(message));
        else if (code == u"kernel_folder_link")
            QVERIFY2(message.contains(kernelFolder) && message.contains(QStringLiteral("link")), qPrintable(message));
        else
            QVERIFY2(message.contains(QStringLiteral("\"kernel_folder\"")), qPrintable(message));
        // Nothing was written anywhere: not the environment, not Jupyter's folder, not the folder
        // a link leads to, not the folder the record named.
        const QString diff = snapshot(m_tree->path()).differenceFrom(before);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    if (code.isEmpty()) {
        QCOMPARE(readFile(registered), readFile(m_env + QStringLiteral("/kernel/kernel.json")));
        QCOMPARE(readFile(m_env + QStringLiteral("/start-python.bat.user-backup")),
                 QByteArray("@echo my own edit\r\n"));
    }
}

void TestRepair::registeredKernelIsKeptBeforeReplacement()
{
    // The student edited the registered kernel (another display name, an extra variable).
    const QString registered = m_view->hostPath(kernelFolder + QStringLiteral("/kernel.json"));
    const QByteArray edited = "{\"display_name\": \"my TensorFlow\", \"argv\": [\"python\"]}\n";
    writeFile(registered, edited);

    const auto dry = repair(options(true));
    QVERIFY2(dry, qPrintable(dry ? QString() : dry.error().message));
    QCOMPARE(dry->outside.size(), 1);
    QVERIFY2(dry->outside.first().contains(QStringLiteral("kernel.json.user-backup")),
             qPrintable(dry->outside.first()));
    QCOMPARE(readFile(registered), edited);
    QVERIFY(!QFile::exists(registered + QStringLiteral(".user-backup")));

    const auto report = repair(options());
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QCOMPARE(report->outside.size(), 1);
    QVERIFY2(report->outside.first().contains(QStringLiteral("kernel.json.user-backup")),
             qPrintable(report->outside.first()));
    QCOMPARE(readFile(registered), readFile(m_env + QStringLiteral("/kernel/kernel.json")));
    QCOMPARE(readFile(registered + QStringLiteral(".user-backup")), edited);

    // Again: nothing left to do, and no second copy.
    const auto again = repair(options());
    QVERIFY(again);
    QVERIFY(again->outside.isEmpty());
    QCOMPARE(QDir(m_view->hostPath(kernelFolder)).entryList(QDir::Files | QDir::Hidden),
             (QStringList{QStringLiteral("kernel.json"), QStringLiteral("kernel.json.user-backup")}));

    // A registered kernel.json that is a link to another file: the link is moved aside, the file it
    // leads to is neither written nor read into the kernel folder.
    const QString elsewhere = m_tree->filePath(QStringLiteral("victim/notes.json"));
    writeFile(elsewhere, "the student's notes");
    QVERIFY(QFile::remove(registered));
    QVERIFY(QFile::link(elsewhere, registered));
    const auto linked = repair(options());
    QVERIFY2(linked, qPrintable(linked ? QString() : linked.error().message));
    QCOMPARE(readFile(elsewhere), QByteArray("the student's notes"));
    QVERIFY(!QFileInfo(registered).isSymLink());
    QCOMPARE(readFile(registered), readFile(m_env + QStringLiteral("/kernel/kernel.json")));
    QCOMPARE(QFileInfo(registered + QStringLiteral(".user-backup-2")).symLinkTarget(), elsewhere);
}

void TestRepair::registeredKernelOfAnEarlierRepairIsReplaced()
{
    // PATH changed since the install, and the environment's kernel.json is gone: repair writes it
    // with today's PATH. The registered one is tfsetup's own text as installed, so it is replaced
    // without a backup.
    const QString registered = m_view->hostPath(kernelFolder + QStringLiteral("/kernel.json"));
    const QByteArray installed = readFile(registered);
    QVERIFY(!installed.isEmpty());
    QVERIFY(m_tree->writeEnv({{QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")},
                              {QStringLiteral("APPDATA"), QStringLiteral("C:\\Users\\student\\AppData\\Roaming")},
                              {QStringLiteral("PATH"), QStringLiteral("C:\\Windows\\System32;C:\\Tools")}}));
    m_view = m_tree->open(OsFamily::Windows);
    QVERIFY(m_view);
    QVERIFY(QFile::remove(m_env + QStringLiteral("/kernel/kernel.json")));

    const auto report = repair(options());
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QCOMPARE(report->outside.size(), 1);
    QVERIFY(!report->outside.first().contains(QStringLiteral("user-backup")));
    const QByteArray now = readFile(registered);
    QVERIFY(now != installed);
    QVERIFY(now.contains("Tools"));
    QCOMPARE(now, readFile(m_env + QStringLiteral("/kernel/kernel.json")));
    QCOMPARE(QDir(m_view->hostPath(kernelFolder)).entryList(QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("kernel.json")});
}

// The kernel is written from the Jupyter data folder down, every folder on the way reached
// without following a link: Jupyter's kernels folder swapped for a link to another folder of the
// student's just before the write receives nothing; the report says the kernel was not registered.
void TestRepair::kernelsFolderLinkPlantedBeforeTheWriteIsRefused()
{
    const QString data = m_view->hostPath(jupyterData);
    const QString registered = m_view->hostPath(kernelFolder + QStringLiteral("/kernel.json"));
    QVERIFY(QFile::remove(registered));
    const QString victim = m_tree->filePath(QStringLiteral("victim"));
    writeFile(victim + QStringLiteral("/kernels/tf2.10-cuda11.2/kernel.json"), "{\"display_name\": \"mine\"}");
    bool fired = false;
    core::setConfinedWalkHook([&](const QString &path) {
        if (fired || !path.endsWith(QStringLiteral("/jupyter/kernels/tf2.10-cuda11.2/kernel.json")))
            return;
        fired = QDir(data + QStringLiteral("/kernels")).removeRecursively()
            && QFile::link(victim + QStringLiteral("/kernels"), data + QStringLiteral("/kernels"));
    });
    const auto report = repair(options());
    core::setConfinedWalkHook({});
    QVERIFY(fired);
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QCOMPARE(report->outside.size(), 1);
    QVERIFY2(report->outside.first().contains(QStringLiteral("could not be registered"))
                 && report->outside.first().contains(QStringLiteral("start-jupyter")),
             qPrintable(report->outside.first()));
    QCOMPARE(readFile(victim + QStringLiteral("/kernels/tf2.10-cuda11.2/kernel.json")),
             QByteArray("{\"display_name\": \"mine\"}"));
    QCOMPARE(QDir(victim + QStringLiteral("/kernels/tf2.10-cuda11.2"))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("kernel.json")});
}

void TestRepair::findingsAreJudged()
{
    auto finding = [](const QString &cause, const QString &type, const QJsonObject &params) {
        core::DoctorFinding f;
        f.id = cause + QStringLiteral(":x");
        f.cause = cause;
        f.fix = core::DoctorText{QStringLiteral("do this"), QStringLiteral("do this")};
        f.actions.append(core::DoctorAction{type, params});
        return f;
    };
    RepairOptions o = options();
    o.findings = {finding(QStringLiteral("path_shadowing"), QStringLiteral("prepend_path"),
                          {{QStringLiteral("variable"), QStringLiteral("PATH")}}),
                  finding(QStringLiteral("cudnn_part_missing"), QStringLiteral("place_file"),
                          {{QStringLiteral("library"), QStringLiteral("cudnn_cnn_infer64_8.dll")}}),
                  finding(QStringLiteral("system32_copy"), QStringLiteral("remove_copy"),
                          {{QStringLiteral("path"), QStringLiteral("C:/Windows/System32/cudnn64_8.dll")}}),
                  finding(QStringLiteral("driver_too_old"), QStringLiteral("install_driver"), {})};
    const auto report = repair(o);
    QVERIFY(report);
    QCOMPARE(report->findings.size(), 4);
    QVERIFY(report->findings[0].handled);
    QVERIFY(report->findings[1].handled);
    QVERIFY(!report->findings[2].handled); // a system folder: said, not done
    QVERIFY(report->findings[2].note.contains(QStringLiteral("System32")));
    QVERIFY(!report->findings[3].handled);
    QCOMPARE(report->findings[3].note, QStringLiteral("do this"));
}

void TestRepair::discoversEnvironments()
{
    QVERIFY(m_tree->write({{QStringLiteral("C/Users/student/tf envs/notes/readme.txt"), "not an environment"},
                           {QStringLiteral("D/lab/tf-lab/environment.json"), "{}"}}));
    const QStringList found = Repairer::discover(
        *m_view, {prefix, QStringLiteral("D:/lab/tf-lab"), QStringLiteral("C:/Users/student/nowhere"), prefix});
    QCOMPARE(found, (QStringList{envPath, QStringLiteral("D:/lab/tf-lab")}));
}

QTEST_GUILESS_MAIN(TestRepair)
#include "test_repair.moc"
