// The installer's transaction: a Windows-shaped environment built over a fixture drive, a second
// run that changes nothing, and a failure or cancel at every step that leaves the previous
// environment byte-identical.

#include "install/installer.h"
#include "install/worklock.h"
#include "setup/environments.h"
#include "support/coroutinetest.h"
#include "support/fixturetree.h"
#include "support/installarchives.h"
#include "support/poolgate.h"
#include "support/shippedknowledge.h"
#include "support/treesnapshot.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QPointer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace tfsetup;
using namespace tfsetup::test;
using core::InstallArtifact;
using core::Installer;
using core::InstallSpec;
using core::InstallStep;
using core::OsFamily;

Q_DECLARE_METATYPE(tfsetup::core::InstallStep)

namespace {

const QString prefix = QStringLiteral("C:/Users/student/tf envs (lab)");

QByteArray sha256(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestInstall : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void buildsAWindowsEnvironment();
    void secondRunChangesNothing();
    void failureLeavesPreviousEnvironment_data();
    void failureLeavesPreviousEnvironment();
    void deletedInstallerLeavesPreviousEnvironment_data();
    void deletedInstallerLeavesPreviousEnvironment();
    void replacingKeepsTheUsersFiles();
    void crashLeftoversAreCleanedUp();
    void lookAlikeFoldersSurvive();
    void twoInstallsIntoOnePrefix();
    void anotherEnvironmentsKernelIsKept();
    void incompleteCudnnIsRefused();
    void changedArtifactIsRefused();
    void noKnowledgeChangesNothing();
    void hostileArchiveLeavesNothing();
    void foreignFolderIsNotReplaced();
    void pipArguments();

private:
    InstallArtifact archive(const QString &name, const QString &kind, const QString &component, const QString &version,
                            const QList<Entry> &entries)
    {
        const QString path = m_tree->filePath(QStringLiteral("downloads/") + name);
        QDir().mkpath(QFileInfo(path).absolutePath());
        const auto written = core::ArchiveWriter::write(path, core::ArchiveWriter::Zip, entries);
        if (!written)
            qWarning() << written.error().detail;
        return InstallArtifact{kind,
                               component,
                               version,
                               QStringLiteral("windows-x86_64"),
                               sha256(path),
                               path,
                               QStringLiteral("https://developer.download.nvidia.com/compute/") + name};
    }
    InstallSpec spec(bool withCudnn = true)
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
        s.artifacts.append(
            archive(QStringLiteral("cuda_cudart-windows-x86_64-11.8.89-archive.zip"),
                    QStringLiteral("cuda-redist-archive"), QStringLiteral("cuda_cudart"), QStringLiteral("11.8.89"),
                    cudartArchive(true, QStringLiteral("11.8.89"), {}, QStringLiteral("cudart64_110.dll"))));
        if (withCudnn) {
            s.artifacts.append(archive(QStringLiteral("cudnn-11.2-windows-x64-v8.1.0.77.zip"),
                                       QStringLiteral("cudnn-archive"), QStringLiteral("cudnn"),
                                       QStringLiteral("8.1.0.77"),
                                       cudnnArchive(true, QStringLiteral("8.1.0.77"), true)));
        }
        return s;
    }
    core::Result<core::InstallOutcome> run(const InstallSpec &s, Installer *installer = nullptr)
    {
        Installer own(*m_view, test::shippedKnowledge());
        Installer &i = installer ? *installer : own;
        auto result = awaitTask(i.install(s), std::chrono::seconds(60));
        return result ? *result : core::Result<core::InstallOutcome>(core::Error{QStringLiteral("timeout"), {}, {}});
    }
    QString host(const QString &target) const { return m_view->hostPath(target); }

    std::unique_ptr<FixtureTree> m_tree;
    std::unique_ptr<core::RootedSystem> m_view;
};

void TestInstall::init()
{
    m_tree = std::make_unique<FixtureTree>();
    QVERIFY(m_tree->write(
        {{QStringLiteral("C/Users/student/"), {}},
         {QStringLiteral("C/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.1/bin/cudart64_101.dll"), "MZ"}}));
    QVERIFY(m_tree->writeEnv(
        {{QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")},
         {QStringLiteral("APPDATA"), QStringLiteral("C:\\Users\\student\\AppData\\Roaming")},
         {QStringLiteral("PATH"),
          QStringLiteral("C:\\Windows\\System32;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin")}}));
    m_view = m_tree->open(OsFamily::Windows);
    QVERIFY(m_view);
}

void TestInstall::cleanup()
{
    m_view.reset();
    m_tree.reset();
}

void TestInstall::buildsAWindowsEnvironment()
{
    Installer installer(*m_view, test::shippedKnowledge());
    QList<InstallStep> started;
    QStringList lines;
    connect(&installer, &Installer::stepStarted, this, [&](InstallStep step, const QString &title) {
        started.append(step);
        QVERIFY(!title.isEmpty());
    });
    connect(&installer, &Installer::logLine, this, [&](const QString &line) { lines.append(line); });
    const auto outcome = run(spec(), &installer);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().message + u' ' + outcome.error().detail));
    QCOMPARE(started, core::allInstallSteps());
    QVERIFY(!lines.isEmpty());
    QVERIFY(!outcome->unchanged);

    const QString env = host(prefix + QStringLiteral("/tf2.10-cuda11.2"));
    for (const QString &dll : {QStringLiteral("cudart64_110.dll"), QStringLiteral("cudnn64_8.dll"),
                               QStringLiteral("cudnn_ops_infer64_8.dll"), QStringLiteral("cudnn_ops_train64_8.dll"),
                               QStringLiteral("cudnn_cnn_infer64_8.dll"), QStringLiteral("cudnn_cnn_train64_8.dll"),
                               QStringLiteral("cudnn_adv_infer64_8.dll"), QStringLiteral("cudnn_adv_train64_8.dll")})
        QVERIFY2(QFile::exists(env + QStringLiteral("/cuda/bin/") + dll), qPrintable(dll));
    QVERIFY(QFile::exists(env + QStringLiteral("/cuda/lib/x64/cudart.lib")));
    QVERIFY(QFile::exists(env + QStringLiteral("/cuda/include/cudnn_version.h")));
    QVERIFY(QFile::exists(env + QStringLiteral("/start-python.bat")));
    QVERIFY(QFile::exists(env + QStringLiteral("/shell.ps1")));
    QCOMPARE(outcome->launchers.size(), 6);

    // The record lists every placed file with its digest and origin.
    const auto record = core::EnvironmentRecord::read(env);
    QVERIFY(record);
    QCOMPARE(record->fingerprint, spec().fingerprint());
    bool sawCudnn = false;
    for (const auto &f : record->files) {
        if (f.linkTarget.isEmpty())
            QCOMPARE(f.sha256, sha256(env + u'/' + f.path));
        if (f.path == u"cuda/bin/cudnn_cnn_infer64_8.dll") {
            sawCudnn = true;
            QVERIFY(f.origin.startsWith(QStringLiteral("cudnn 8.1.0.77 (windows-x86_64): cuda/bin/")));
        }
    }
    QVERIFY(sawCudnn);
    QFile summary(env + QStringLiteral("/ENVIRONMENT.md"));
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(summary.readAll());
    QVERIFY(text.contains(QStringLiteral("11.2")) && text.contains(QStringLiteral("537.13"))
            && text.contains(QStringLiteral("windows")));

    // The kernel went to the user's Jupyter folder, and it skips the other toolkit's bin.
    QFile kernel(host(QStringLiteral("C:/Users/student/AppData/Roaming/jupyter/kernels/tf2.10-cuda11.2/kernel.json")));
    QVERIFY(kernel.open(QIODevice::ReadOnly));
    const QJsonObject spec = QJsonDocument::fromJson(kernel.readAll()).object();
    const QString path = spec.value(QStringLiteral("env")).toObject().value(QStringLiteral("PATH")).toString();
    QVERIFY(path.contains(QStringLiteral("C:\\Windows\\System32")));
    QVERIFY2(!path.contains(QStringLiteral("v10.1")), qPrintable(path));
    QVERIFY(path.startsWith(QStringLiteral("C:\\Users\\student\\tf envs (lab)\\tf2.10-cuda11.2\\cuda\\bin;")));
    // No staging folder is left beside the environment.
    QCOMPARE(QDir(host(prefix)).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("tf2.10-cuda11.2")});
}

void TestInstall::secondRunChangesNothing()
{
    const InstallSpec s = spec();
    QVERIFY(run(s));
    const auto before = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C")));
    const auto again = run(s);
    QVERIFY(again);
    QVERIFY(again->unchanged);
    QCOMPARE(again->launchers.size(), 6);
    const QString diff = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C"))).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInstall::failureLeavesPreviousEnvironment_data()
{
    QTest::addColumn<InstallStep>("step");
    QTest::addColumn<bool>("cancel");
    for (InstallStep step : core::allInstallSteps()) {
        if (step == InstallStep::Register)
            continue; // after the switch: only the kernel registration is at stake
        const QByteArray id = core::installStepId(step).toUtf8();
        QTest::newRow(QByteArray("fails at " + id).constData()) << step << false;
        QTest::newRow(QByteArray("cancelled at " + id).constData()) << step << true;
    }
}

void TestInstall::failureLeavesPreviousEnvironment()
{
    QFETCH(InstallStep, step);
    QFETCH(bool, cancel);
    QVERIFY(run(spec(false)));
    QVERIFY(m_tree->write(QStringLiteral("C/Users/student/tf envs (lab)/tf2.10-cuda11.2/notebooks/mnist.ipynb"), "{}"));
    const QString root = m_tree->filePath(QStringLiteral("C"));
    const auto before = TreeSnapshot::take(root);

    Installer installer(*m_view, test::shippedKnowledge());
    installer.setCheckpoint([&](InstallStep at) -> core::Status {
        if (at != step)
            return core::Ok{};
        if (cancel) {
            installer.cancel();
            return core::Ok{};
        }
        return core::Error{QStringLiteral("drill"), QStringLiteral("fault drill"), {}};
    });
    const auto outcome = run(spec(true), &installer);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, cancel ? QStringLiteral("cancelled") : QStringLiteral("drill"));
    const QString diff = TreeSnapshot::take(root).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInstall::deletedInstallerLeavesPreviousEnvironment_data()
{
    QTest::addColumn<InstallStep>("step");
    // The steps that wait for work on the thread pool (hashing, unpacking, checking).
    QTest::newRow("prepare") << InstallStep::Prepare;
    QTest::newRow("extract") << InstallStep::Extract;
    QTest::newRow("verify") << InstallStep::Verify;
}

void TestInstall::deletedInstallerLeavesPreviousEnvironment()
{
    // The Installer is deleted (its page closed) while the install waits: the install ends as
    // cancelled without using the deleted object, and the old environment is byte-identical.
    QFETCH(InstallStep, step);
    QVERIFY(run(spec(false)));
    const QString root = m_tree->filePath(QStringLiteral("C"));
    const auto before = TreeSnapshot::take(root);
    auto *installer = new Installer(*m_view, test::shippedKnowledge());
    QPointer<Installer> alive(installer);
    connect(installer, &Installer::stepStarted, this, [this, step, alive](InstallStep at, const QString &) {
        if (at != step)
            return;
        // The step's work on the pool waits until the owner is gone: deleted while suspended.
        auto gate = std::make_shared<PoolGate>();
        QTimer::singleShot(0, this, [alive, gate] {
            delete alive.data();
            gate->release();
        });
    });
    const auto outcome = awaitTask(installer->install(spec(true)), std::chrono::seconds(60));
    QVERIFY(outcome);
    QVERIFY(alive.isNull());
    QVERIFY(!*outcome);
    QCOMPARE((*outcome).error().code, QStringLiteral("cancelled"));
    const QString diff = TreeSnapshot::take(root).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInstall::replacingKeepsTheUsersFiles()
{
    QVERIFY(run(spec(false)));
    const QString env = QStringLiteral("C/Users/student/tf envs (lab)/tf2.10-cuda11.2/");
    QVERIFY(m_tree->write(env + QStringLiteral("notebooks/mnist.ipynb"), "{\"cells\": []}"));
    QVERIFY(m_tree->write(env + QStringLiteral("start-python.bat"), "@echo my own launcher\r\n"));
    // TensorBoard writes its runs under logs/; a student links the course's data folder in.
    QVERIFY(m_tree->write(env + QStringLiteral("logs/fit/20261201-101010/events.out.tfevents.1"), "runs"));
    QTemporaryDir data;
    QVERIFY(QFile::link(data.path(), m_tree->filePath(env + QStringLiteral("datasets"))));
    QVERIFY(QFile::link(QStringLiteral("gone-by-now"), m_tree->filePath(env + QStringLiteral("notebooks/old-link"))));
    const auto outcome = run(spec(true));
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().detail));
    QFile notebook(m_tree->filePath(env + QStringLiteral("notebooks/mnist.ipynb")));
    QVERIFY(notebook.open(QIODevice::ReadOnly));
    QCOMPARE(notebook.readAll(), QByteArray("{\"cells\": []}"));
    QFile backup(m_tree->filePath(env + QStringLiteral("start-python.bat.user-backup")));
    QVERIFY(backup.open(QIODevice::ReadOnly));
    QCOMPARE(backup.readAll(), QByteArray("@echo my own launcher\r\n"));
    QVERIFY(QFile::exists(m_tree->filePath(env + QStringLiteral("cuda/bin/cudnn64_8.dll"))));
    QFile run(m_tree->filePath(env + QStringLiteral("logs/fit/20261201-101010/events.out.tfevents.1")));
    QVERIFY(run.open(QIODevice::ReadOnly));
    QCOMPARE(run.readAll(), QByteArray("runs"));
    // The links stay links, to where they pointed.
    QCOMPARE(QFileInfo(m_tree->filePath(env + QStringLiteral("datasets"))).symLinkTarget(), data.path());
    QVERIFY(QFileInfo(m_tree->filePath(env + QStringLiteral("notebooks/old-link"))).isSymLink());
    // tfsetup's own log is the new install's, not a copy of the old one beside it.
    QVERIFY(QFile::exists(m_tree->filePath(env + QStringLiteral("logs/install.log"))));
    QVERIFY(!QFile::exists(m_tree->filePath(env + QStringLiteral("logs/install.log.user-backup"))));
}

void TestInstall::crashLeftoversAreCleanedUp()
{
    const QString p = host(prefix);
    const QString dir = QStringLiteral("C/Users/student/tf envs (lab)/");
    // Folders that merely look like tfsetup's (the user's own, or an older run's without a mark).
    QVERIFY(m_tree->write({{dir + QStringLiteral("tf-a/environment.json"), "{}"},
                           {dir + QStringLiteral("tf-b/environment.json"), "{}"},
                           {dir + QStringLiteral(".tf-a.previous-x1/environment.json"), "{}"},
                           {dir + QStringLiteral(".tf-a.staging-x2/cuda/bin/half.dll"), "M"},
                           {dir + QStringLiteral(".mydata.staging-keep/data.csv"), "1,2"},
                           {dir + QStringLiteral(".notes.previous-2023/notes.txt"), "mine"}}));
    const QStringList before = QDir(p).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    // A run killed between the two renames of its switch: tf-a sits aside, a staging folder beside it.
    {
        auto lock = core::WorkLock::acquire(p, QStringLiteral("tf-a"), QStringLiteral("tf-a"));
        QVERIFY(lock);
        const auto staging = (*lock)->makeStaging();
        QVERIFY(staging);
        QVERIFY(QDir().mkpath(*staging + QStringLiteral("/cuda/bin")));
        QFile half(*staging + QStringLiteral("/cuda/bin/x.dll"));
        QVERIFY(half.open(QIODevice::WriteOnly) && half.write("M") == 1);
        const auto aside = (*lock)->prepareSetAside();
        QVERIFY(aside);
        QVERIFY(QDir().rename(p + QStringLiteral("/tf-a"), *aside));
    }
    // tf-b is being installed at the same time: its staging folder is not tf-a's to remove.
    auto other = core::WorkLock::acquire(p, QStringLiteral("tf-b"), QStringLiteral("tf-b"));
    QVERIFY(other);
    const auto otherStaging = (*other)->makeStaging();
    QVERIFY(otherStaging);
    const auto busy = Installer::recoverLeftovers(p, QStringLiteral("tf-b"));
    QVERIFY(!busy);
    QCOMPARE(busy.error().code, QStringLiteral("environment_busy"));

    const auto done = Installer::recoverLeftovers(p, QStringLiteral("tf-a"));
    QVERIFY(done);
    QCOMPARE(done->size(), 2); // restored tf-a, removed its staging folder
    QStringList expected = before;
    expected << QFileInfo(*otherStaging).fileName() << QStringLiteral(".tf-b.tfsetup-lock")
             << QStringLiteral(".tf-b.tfsetup-work.json");
    expected.sort();
    QCOMPARE(QDir(p).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name).join(u' '),
             expected.join(u' '));
    QVERIFY(QFile::exists(p + QStringLiteral("/tf-a/environment.json")));
    QVERIFY(!QFile::exists(p + QStringLiteral("/tf-a/") + core::WorkLock::markerName));
    other->reset();
    QVERIFY(QFile::exists(*otherStaging)); // recorded: the next run of tf-b removes it
    QVERIFY(Installer::recoverLeftovers(p, QStringLiteral("tf-b")));
    QVERIFY(!QFile::exists(*otherStaging));
}

void TestInstall::lookAlikeFoldersSurvive()
{
    const QString dir = QStringLiteral("C/Users/student/tf envs (lab)/");
    QVERIFY(m_tree->write({{dir + QStringLiteral(".mydata.staging-keep/data.csv"), "1,2"},
                           {dir + QStringLiteral(".notes.previous-2023/notes.txt"), "mine"},
                           {dir + QStringLiteral(".tf2.10-cuda11.2.staging-mine/x.txt"), "mine"},
                           {dir + QStringLiteral(".tf2.10-cuda11.2.previous-mine/environment.json"), "{}"}}));
    QVERIFY(run(spec(false)));
    QVERIFY(run(spec(true))); // replaces the environment: a switch and its cleanup
    const QString p = host(prefix);
    QCOMPARE(QDir(p).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name),
             (QStringList{QStringLiteral(".mydata.staging-keep"), QStringLiteral(".notes.previous-2023"),
                          QStringLiteral(".tf2.10-cuda11.2.previous-mine"),
                          QStringLiteral(".tf2.10-cuda11.2.staging-mine"), QStringLiteral("tf2.10-cuda11.2")}));
    QVERIFY(!QFile::exists(p + QStringLiteral("/tf2.10-cuda11.2/") + core::WorkLock::markerName));
}

void TestInstall::twoInstallsIntoOnePrefix()
{
    const QString p = host(prefix);
    InstallSpec other = spec(false);
    other.name = QStringLiteral("tf-other");
    Installer first(*m_view, test::shippedKnowledge());
    bool checked = false;
    first.setCheckpoint([&](InstallStep at) -> core::Status {
        if (at != InstallStep::Launchers || checked)
            return core::Ok{};
        checked = true;
        const QStringList staging = QDir(p).entryList({QStringLiteral(".tf2.10-cuda11.2.staging-*")},
                                                      QDir::Dirs | QDir::Hidden);
        // Another environment into the same prefix, while this one is half built.
        const auto second = run(other);
        if (!second)
            return core::Error{QStringLiteral("second_failed"), second.error().message, second.error().detail};
        // The same environment again: refused, and this run's staging folder is left alone.
        const auto same = run(spec(false));
        if (same || same.error().code != u"environment_busy")
            return core::Error{QStringLiteral("not_busy"), same ? QString() : same.error().code, {}};
        if (staging.size() != 1 || !QFileInfo::exists(p + u'/' + staging.first() + u'/' + core::WorkLock::markerName))
            return core::Error{QStringLiteral("staging_lost"), staging.join(u','), {}};
        return core::Ok{};
    });
    const auto outcome = run(spec(true), &first);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().code + u' ' + outcome.error().message));
    QVERIFY(checked);
    QVERIFY(QFile::exists(p + QStringLiteral("/tf-other/environment.json")));
    QVERIFY(QFile::exists(p + QStringLiteral("/tf2.10-cuda11.2/environment.json")));
    QCOMPARE(QDir(p).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name),
             (QStringList{QStringLiteral("tf-other"), QStringLiteral("tf2.10-cuda11.2")}));
}

void TestInstall::anotherEnvironmentsKernelIsKept()
{
    auto bytesOf = [](const QString &path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const auto first = run(spec(false));
    QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
    QVERIFY(!first->kernelFolder.isEmpty());
    const QString registered = host(first->kernelFolder + QStringLiteral("/kernel.json"));
    const QByteArray firstKernel = bytesOf(registered);
    QVERIFY(firstKernel.contains("tf envs (lab)"));

    // The same environment name (so the same kernel name) in another folder: the first
    // environment's kernel is neither replaced nor moved aside; the second gets a name of its own.
    InstallSpec other = spec(false);
    other.prefix = QStringLiteral("C:/Users/student/other envs");
    const auto second = run(other);
    QVERIFY2(second, qPrintable(second ? QString() : second.error().message));
    QCOMPARE(bytesOf(registered), firstKernel);
    QVERIFY(!QFileInfo::exists(registered + QStringLiteral(".user-backup")));
    const QString secondName = QFileInfo(second->kernelFolder).fileName();
    QVERIFY2(secondName.startsWith(QStringLiteral("tf2.10-cuda11.2-")) && secondName.size() == 24,
             qPrintable(secondName));
    QVERIFY(bytesOf(host(second->kernelFolder + QStringLiteral("/kernel.json"))).contains("other envs"));
    QCOMPARE(second->warnings.size(), 1);
    QVERIFY2(second->warnings.first().contains(prefix) && second->warnings.first().contains(secondName),
             qPrintable(second->warnings.first()));
    const auto record = core::EnvironmentRecord::read(host(other.environmentPath()));
    QVERIFY(record);
    QCOMPARE(record->kernelName(), secondName);

    // Run again: the same name, nothing changed.
    const auto again = run(other);
    QVERIFY(again);
    QVERIFY(again->unchanged);
    QCOMPARE(again->kernelFolder, second->kernelFolder);

    // Removing the second takes its own kernel and leaves the first's.
    const auto removed = core::removeEnvironment(*m_view, other.environmentPath());
    QVERIFY2(removed.ok(), qPrintable(removed.ok() ? QString() : removed.error().message));
    QVERIFY(!QFileInfo::exists(host(second->kernelFolder + QStringLiteral("/kernel.json"))));
    QCOMPARE(bytesOf(registered), firstKernel);

    // With the first environment gone by hand (its folder moved away), its name is free again.
    QVERIFY(QDir(host(prefix)).rename(QStringLiteral("tf2.10-cuda11.2"), QStringLiteral("moved")));
    const auto third = run(other);
    QVERIFY(third);
    QCOMPARE(third->kernelFolder, first->kernelFolder);
    QVERIFY(third->warnings.isEmpty());
    QVERIFY(bytesOf(registered).contains("other envs"));
}

void TestInstall::incompleteCudnnIsRefused()
{
    InstallSpec s = spec(false);
    s.artifacts.append(
        archive(QStringLiteral("cudnn.zip"), QStringLiteral("cudnn-archive"), QStringLiteral("cudnn"),
                QStringLiteral("8.1.0.77"),
                cudnnArchive(true, QStringLiteral("8.1.0.77"), true, QStringLiteral("cudnn_adv_train64_8.dll"))));
    const auto outcome = run(s);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("cudnn_incomplete"));
    QVERIFY(outcome.error().message.contains(QStringLiteral("cudnn_adv_train64_8.dll")));
    QVERIFY(!QFile::exists(host(prefix + QStringLiteral("/tf2.10-cuda11.2"))));
}

void TestInstall::changedArtifactIsRefused()
{
    InstallSpec s = spec();
    s.artifacts[1].sha256 = QByteArray(64, 'a');
    const auto outcome = run(s);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("artifact_changed"));
}

void TestInstall::noKnowledgeChangesNothing()
{
    // A driver that did not load the catalog gets an error, not the catalog of its own choosing.
    Installer installer(*m_view, nullptr);
    const auto before = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C")));
    const auto outcome = run(spec(), &installer);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("catalog_not_given"));
    QVERIFY(!outcome.error().message.isEmpty());
    const QString diff = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C"))).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInstall::hostileArchiveLeavesNothing()
{
    InstallSpec s = spec(false);
    s.artifacts.append(
        archive(QStringLiteral("evil.zip"), QStringLiteral("cuda-redist-archive"), QStringLiteral("libcublas"),
                QStringLiteral("11.11.3.6"),
                {file(QStringLiteral("libcublas-windows-x86_64-11.11.3.6-archive/bin/cublas64_11.dll")),
                 file(QStringLiteral(
                     "libcublas-windows-x86_64-11.11.3.6-archive/../../../../../Windows/System32/cublas64_11.dll"))}));
    const auto before = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C")));
    const auto outcome = run(s);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("archive_unsafe"));
    const QString diff = TreeSnapshot::take(m_tree->filePath(QStringLiteral("C"))).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInstall::foreignFolderIsNotReplaced()
{
    QVERIFY(m_tree->write(QStringLiteral("C/Users/student/tf envs (lab)/tf2.10-cuda11.2/thesis.docx"), "mine"));
    const auto outcome = run(spec());
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("target_not_environment"));
    QVERIFY(QFile::exists(host(prefix + QStringLiteral("/tf2.10-cuda11.2/thesis.docx"))));
}

void TestInstall::pipArguments()
{
    // pip installs the verified wheels alone: no index, every file pinned by its hash.
    QCOMPARE(
        Installer::pipInstallArguments(QStringLiteral("/e/.wheels"), QStringLiteral("/e/.wheels/requirements.txt")),
        (QStringList{QStringLiteral("install"), QStringLiteral("--no-input"), QStringLiteral("--no-cache-dir"),
                     QStringLiteral("--disable-pip-version-check"), QStringLiteral("--no-index"),
                     QStringLiteral("--find-links"), QStringLiteral("/e/.wheels"), QStringLiteral("--require-hashes"),
                     QStringLiteral("--only-binary=:all:"), QStringLiteral("-r"),
                     QStringLiteral("/e/.wheels/requirements.txt")}));
    InstallSpec s;
    s.requirements = {QStringLiteral("tensorflow==2.10.*")};
    QCOMPARE(s.effectiveRequirements(),
             (QStringList{QStringLiteral("tensorflow==2.10.*"), QStringLiteral("ipykernel")}));
    // The chosen front end's packages follow the kernel's; a requirement naming one already (in
    // another spelling, with a version) is not repeated.
    s.jupyter = QStringLiteral("lab");
    s.requirements.append(QStringLiteral("IPyKernel>=6"));
    QCOMPARE(s.effectiveRequirements(),
             (QStringList{QStringLiteral("tensorflow==2.10.*"), QStringLiteral("IPyKernel>=6"),
                          QStringLiteral("jupyterlab")}));
    const QByteArray withLab = s.fingerprint();
    s.jupyter = QStringLiteral("notebook");
    QCOMPARE(s.effectiveRequirements().last(), QStringLiteral("notebook"));
    QVERIFY(s.fingerprint() != withLab);
    // A hash lock must pin the kernel and the chosen front end.
    s.requirementsLock = QStringLiteral("tensorflow==2.10.1 \\\n    --hash=sha256:00\n# ipykernel==6.17.0\n");
    QCOMPARE(s.missingFromLock(), (QStringList{QStringLiteral("ipykernel"), QStringLiteral("notebook")}));
    s.requirementsLock += QStringLiteral(
        "IPyKernel==6.17.0 --hash=sha256:11\nnotebook==6.4.12 \\\n    --hash=sha256:22\n");
    QCOMPARE(s.missingFromLock(), QStringList());
    const QByteArray locked = s.fingerprint();
    s.jupyter.clear();
    QVERIFY(s.fingerprint() != locked);
    // The extra packages a lab asked for, which an upgrade keeps: neither TensorFlow nor Jupyter's.
    s.requirementsLock.clear();
    s.package = QStringLiteral("tensorflow");
    s.requirements = {QStringLiteral("tensorflow==2.10.*"), QStringLiteral("ipykernel"), QStringLiteral("notebook"),
                      QStringLiteral("pandas>=2"), QStringLiteral("scikit-learn")};
    QCOMPARE(s.extraRequirements(), (QStringList{QStringLiteral("pandas>=2"), QStringLiteral("scikit-learn")}));
    QCOMPARE(InstallSpec::fromJson(s.toJson()).extraRequirements(), s.extraRequirements());
}

QTEST_GUILESS_MAIN(TestInstall)
#include "test_install.moc"
