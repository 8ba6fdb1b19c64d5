// Upgrading an environment to a newer TensorFlow on its route: the solver's proposal for a fixture
// machine and catalog (TensorFlow 2.15.0 installed; 2.16.1 fits; 2.17.0's wheels carry no code for
// the machine's GPU), then the install into the same folder on a real venv and a real pip from a
// loopback index of stand-in wheels (upgradefixture.h). A folder tfsetup did not make is refused.
// Failed upgrades: test_upgrade_failures.cpp.

#include "support/upgradefixture.h"

#include "install/environmentrecord.h"
#include "support/treesnapshot.h"

using namespace tfsetup;
using namespace tfsetup::test;
using namespace Qt::StringLiterals;
using core::InstallStep;
using core::UpgradeProposal;
using core::Upgrader;
using core::UpgradeRequest;

class TestUpgrade final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_fixture.start()); }
    void proposesTheNewestReleaseThatFits();
    void proposalChangesNothing();
    void upgradeInstallsItAndKeepsTheUsersFiles();
    void upgradeKeepsTheGpuChoice();
    void tfTheMachineCannotRun_isRefusedWithTheSolversReason();
    void alreadyCurrent();
    void tfNotNewer_isRefused();
    void folderWithoutRecord_isRefused();

private:
    QString makeEnvironment(const QString &prefix) { return m_fixture.makeEnvironment(prefix); }
    UpgradeRequest request(const QString &environment, const std::shared_ptr<const core::Knowledge> &knowledge) const
    {
        return m_fixture.request(environment, knowledge);
    }
    core::Result<UpgradeProposal> propose(Upgrader &upgrader, const UpgradeRequest &r)
    {
        return m_fixture.propose(upgrader, r);
    }
    core::Result<core::UpgradeOutcome> upgrade(Upgrader &upgrader, const UpgradeProposal &p, const UpgradeRequest &r)
    {
        return m_fixture.upgrade(upgrader, p, r);
    }
    static QString kernelsFolder() { return upgrade::Fixture::kernelsFolder(); }

    upgrade::Fixture m_fixture;
    core::RealSystem &m_system = m_fixture.m_system;
    QString &m_pythonMinor = m_fixture.m_pythonMinor;
    std::shared_ptr<const core::Knowledge> &m_knowledge = m_fixture.m_knowledge;
    std::shared_ptr<const core::Knowledge> &m_oldestKnowledge = m_fixture.m_oldestKnowledge;
    LoopbackServer &m_server = m_fixture.m_server;
};

void TestUpgrade::proposesTheNewestReleaseThatFits()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    Upgrader upgrader(m_system);
    const auto proposal = propose(upgrader, request(env, m_knowledge));
    QVERIFY2(proposal, qPrintable(proposal ? QString() : proposal.error().message));
    QCOMPARE(proposal->status, u"upgrade"_s);
    QVERIFY(proposal->canUpgrade());
    QCOMPARE(proposal->fromTensorflow, u"2.15.0"_s);
    QCOMPARE(proposal->plan->tensorflow, u"2.16.1"_s); // 2.17.0 has no code for this GPU
    QCOMPARE(proposal->plan->route, u"linux-pip"_s);
    QCOMPARE(proposal->plan->python, m_pythonMinor);
    QVERIFY(!proposal->pythonChanged);
    QCOMPARE(proposal->fromCuda, u"12.2"_s);
    QCOMPARE(proposal->plan->cuda, u"12.3"_s);
    QVERIFY2(proposal->resolveError.code.isEmpty(), qPrintable(proposal->resolveError.message));
    // pip's resolver locked the release's wheel (and the kernel's) for tensorflow[and-cuda]==2.16.*.
    QVERIFY2(proposal->pipPackages.contains(u"tensorflow==2.16.1"_s), qPrintable(proposal->pipPackages.join(u' ')));
    // Every download is a wheel of that lock, sized: pip brings CUDA on this route.
    QCOMPARE(proposal->downloadFiles, proposal->pipPackages.size());
    QVERIFY(proposal->downloadBytes > 0);
    const QJsonObject json = proposal->toJson();
    QCOMPARE(json.value(u"from"_s).toObject().value(u"tensorflow"_s).toString(), u"2.15.0"_s);
    QCOMPARE(json.value(u"to"_s).toObject().value(u"tensorflow"_s).toString(), u"2.16.1"_s);
    QVERIFY(proposal->text().contains(u"2.15.0 → 2.16.1"_s));
}

void TestUpgrade::proposalChangesNothing()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    const TreeSnapshot before = TreeSnapshot::take(prefix.path());
    const TreeSnapshot kernelsBefore = TreeSnapshot::take(kernelsFolder());
    Upgrader upgrader(m_system);
    const auto proposal = propose(upgrader, request(env, m_knowledge));
    QVERIFY(proposal);
    QVERIFY(proposal->canUpgrade());
    const QString diff = TreeSnapshot::take(prefix.path()).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    const QString kernels = TreeSnapshot::take(kernelsFolder()).differenceFrom(kernelsBefore);
    QVERIFY2(kernels.isEmpty(), qPrintable(kernels));
}

void TestUpgrade::upgradeInstallsItAndKeepsTheUsersFiles()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    QVERIFY(QDir().mkpath(env + u"/notebooks"_s));
    QFile mine(env + u"/notebooks/experiment.ipynb"_s);
    QVERIFY(mine.open(QIODevice::WriteOnly));
    mine.write("{\"cells\": [\"my work\"]}\n");
    mine.close();

    Upgrader upgrader(m_system);
    QList<InstallStep> steps;
    connect(&upgrader, &Upgrader::stepStarted, this, [&](InstallStep step, const QString &) { steps.append(step); });
    const UpgradeRequest r = request(env, m_knowledge);
    const auto proposal = propose(upgrader, r);
    QVERIFY(proposal && proposal->canUpgrade());
    const auto outcome = upgrade(upgrader, *proposal, r);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().message + u'\n' + outcome.error().detail));
    QVERIFY(!outcome->install.unchanged);
    QVERIFY(outcome->passed());
    QCOMPARE(steps, core::allInstallSteps());

    const auto record = core::EnvironmentRecord::read(env);
    QVERIFY(record);
    QCOMPARE(record->packageVersion(u"tensorflow"_s), u"2.16.1"_s);
    QCOMPARE(record->spec.value(u"tensorflow"_s).toString(), u"2.16.1"_s);
    QCOMPARE(readFile(env + u"/notebooks/experiment.ipynb"_s), QByteArray("{\"cells\": [\"my work\"]}\n"));
    // The launcher runs the new release from the same folder.
    QProcess python;
    python.start(env + u"/start-python"_s, {u"-c"_s, u"import tensorflow; print(tensorflow.__version__)"_s});
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()).trimmed(), u"2.16.1"_s);
    // The kernel was written again, under the same name, for the new release.
    QVERIFY(!outcome->install.kernelFolder.isEmpty());
    const QJsonObject kernel =
        QJsonDocument::fromJson(readFile(outcome->install.kernelFolder + u"/kernel.json"_s)).object();
    QVERIFY2(kernel.value(u"display_name"_s).toString().contains(u"2.16.1"_s),
             qPrintable(kernel.value(u"display_name"_s).toString()));
    QCOMPARE(QFileInfo(outcome->install.kernelFolder).fileName(), record->spec.value(u"kernel_name"_s).toString());

    // Nothing newer fits now.
    const auto again = propose(upgrader, request(env, m_knowledge));
    QVERIFY(again);
    QCOMPARE(again->status, u"blocked"_s);
}

void TestUpgrade::upgradeKeepsTheGpuChoice()
{
    // The environment was made for the second GPU alone (a lab profile's "gpus", --gpus 1): the
    // new version keeps that choice, in its record and in its launchers.
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    QFile file(env + u"/environment.json"_s);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    file.close();
    QJsonObject spec = json.value(u"plan"_s).toObject();
    spec.insert(u"gpus"_s, QJsonArray{1});
    json.insert(u"plan"_s, spec);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QJsonDocument(json).toJson());
    file.close();
    QCOMPARE(core::EnvironmentRecord::read(env)->plan().gpus, QList<int>{1});

    Upgrader upgrader(m_system);
    const UpgradeRequest r = request(env, m_knowledge);
    const auto proposal = propose(upgrader, r);
    QVERIFY(proposal && proposal->canUpgrade());
    const auto outcome = upgrade(upgrader, *proposal, r);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().message + u'\n' + outcome.error().detail));
    const auto record = core::EnvironmentRecord::read(env);
    QVERIFY(record);
    QCOMPARE(record->packageVersion(u"tensorflow"_s), u"2.16.1"_s);
    QCOMPARE(record->plan().gpus, QList<int>{1});
    const QByteArray launcher = readFile(env + u"/start-python"_s);
    QVERIFY2(launcher.contains("CUDA_VISIBLE_DEVICES='1'\nexport CUDA_VISIBLE_DEVICES"), launcher.constData());
}

void TestUpgrade::tfTheMachineCannotRun_isRefusedWithTheSolversReason()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    const TreeSnapshot before = TreeSnapshot::take(prefix.path());
    Upgrader upgrader(m_system);
    UpgradeRequest r = request(env, m_knowledge);
    r.tensorflow = u"2.17"_s;
    const auto proposal = propose(upgrader, r);
    QVERIFY2(proposal, qPrintable(proposal ? QString() : proposal.error().message));
    QCOMPARE(proposal->status, u"blocked"_s);
    QVERIFY(!proposal->canUpgrade());
    QCOMPARE(proposal->blocked.size(), 1);
    const core::Rejection &why = proposal->blocked.constFirst();
    QCOMPARE(why.tensorflow, u"2.17.0"_s);
    QCOMPARE(why.route, u"linux-pip"_s);
    QVERIFY2(why.has(u"gpu_too_old"_s), QJsonDocument(why.toJson()).toJson().constData());
    QVERIFY(proposal->text().contains(why.reasons.constFirst().message));

    const auto outcome = upgrade(upgrader, *proposal, r);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, u"no_upgrade"_s);
    const QString diff = TreeSnapshot::take(prefix.path()).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestUpgrade::alreadyCurrent()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    Upgrader upgrader(m_system);
    const auto proposal = propose(upgrader, request(env, m_oldestKnowledge));
    QVERIFY(proposal);
    QCOMPARE(proposal->status, u"current"_s);
    QVERIFY(proposal->blocked.isEmpty());
    QVERIFY(!proposal->plan);
}

void TestUpgrade::tfNotNewer_isRefused()
{
    QTemporaryDir prefix;
    const QString env = makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    Upgrader upgrader(m_system);
    UpgradeRequest r = request(env, m_knowledge);
    r.tensorflow = u"2.15"_s;
    auto proposal = propose(upgrader, r);
    QVERIFY(!proposal);
    QCOMPARE(proposal.error().code, u"not_newer"_s);
    r.tensorflow = u"2.99"_s;
    proposal = propose(upgrader, r);
    QVERIFY(!proposal);
    QCOMPARE(proposal.error().code, u"no_such_release"_s);
}

void TestUpgrade::folderWithoutRecord_isRefused()
{
    QTemporaryDir prefix;
    const QString folder = prefix.filePath(u"my-project"_s);
    QVERIFY(QDir().mkpath(folder));
    QFile f(folder + u"/train.py"_s);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("print('mine')\n");
    f.close();
    const TreeSnapshot before = TreeSnapshot::take(prefix.path());
    Upgrader upgrader(m_system);
    auto proposal = propose(upgrader, request(folder, m_knowledge));
    QVERIFY(!proposal);
    QCOMPARE(proposal.error().code, u"not_environment"_s);
    QVERIFY(proposal.error().message.contains(folder));
    QCOMPARE(TreeSnapshot::take(prefix.path()), before);

    proposal = propose(upgrader, request(prefix.filePath(u"nothing-here"_s), m_knowledge));
    QVERIFY(!proposal);
    QCOMPARE(proposal.error().code, u"environment_missing"_s);
}

QTEST_GUILESS_MAIN(TestUpgrade)
#include "test_upgrade.moc"
