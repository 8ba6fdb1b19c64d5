// A failed upgrade leaves the old environment byte-identical, with its kernel: pip refuses a wheel
// whose hash does not match, or the Installer's commit step (everything built, only the switch
// left) is made to fail. Every step failing in turn is tests/core/install/test_install.cpp's. The
// fixture is test_upgrade.cpp's (upgradefixture.h).

#include "support/upgradefixture.h"

#include "install/environmentrecord.h"
#include "support/treesnapshot.h"

using namespace tfsetup;
using namespace tfsetup::test;
using namespace Qt::StringLiterals;
using core::InstallStep;
using core::Upgrader;
using core::UpgradeRequest;

class TestUpgradeFailures final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_fixture.start()); }
    void failedUpgrade_leavesTheOldEnvironment_data();
    void failedUpgrade_leavesTheOldEnvironment();

private:
    upgrade::Fixture m_fixture;
};

void TestUpgradeFailures::failedUpgrade_leavesTheOldEnvironment_data()
{
    QTest::addColumn<QString>("index");
    QTest::addColumn<int>("failAt"); // an InstallStep, or -1
    QTest::addColumn<QString>("code");

    // The downloader refuses the wheel (and quarantines it) before pip or the installer sees it.
    QTest::newRow("wheel whose hash does not match") << u"/bad/"_s << -1 << u"checksum_mismatch"_s;
    QTest::newRow("commit step fails") << QString() << int(InstallStep::Commit) << u"drill"_s;
}

void TestUpgradeFailures::failedUpgrade_leavesTheOldEnvironment()
{
    QFETCH(QString, index);
    QFETCH(int, failAt);
    QFETCH(QString, code);

    QTemporaryDir prefix;
    const QString env = m_fixture.makeEnvironment(prefix.path());
    QVERIFY(!env.isEmpty());
    QFile mine(env + u"/my-notes.txt"_s);
    QVERIFY(mine.open(QIODevice::WriteOnly));
    mine.write("keep me\n");
    mine.close();
    const TreeSnapshot before = TreeSnapshot::take(prefix.path());
    const TreeSnapshot kernelsBefore = TreeSnapshot::take(upgrade::Fixture::kernelsFolder());

    Upgrader upgrader(m_fixture.m_system);
    UpgradeRequest r = m_fixture.request(env, m_fixture.m_knowledge);
    if (!index.isEmpty())
        r.setup.network.pypiIndexes = QStringList{m_fixture.m_server.url(index).toString()};
    if (failAt >= 0) {
        upgrader.setInstallCheckpoint([failAt](InstallStep step) -> core::Status {
            if (int(step) == failAt)
                return core::Error{u"drill"_s, u"step failed on purpose"_s, {}};
            return core::Ok{};
        });
    }
    const auto proposal = m_fixture.propose(upgrader, r);
    QVERIFY(proposal && proposal->canUpgrade());
    const auto outcome = m_fixture.upgrade(upgrader, *proposal, r);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, code);

    const QString diff = TreeSnapshot::take(prefix.path()).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    const QString kernels = TreeSnapshot::take(upgrade::Fixture::kernelsFolder()).differenceFrom(kernelsBefore);
    QVERIFY2(kernels.isEmpty(), qPrintable(kernels));
    QCOMPARE(core::EnvironmentRecord::read(env)->packageVersion(u"tensorflow"_s), u"2.15.0"_s);
}

QTEST_GUILESS_MAIN(TestUpgradeFailures)
#include "test_upgrade_failures.moc"
