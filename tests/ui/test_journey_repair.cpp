// Journey 3, driven by objectName under the offscreen platform: a student whose environment
// broke (a cuDNN-era launcher deleted, the kernel's file damaged) starts the wizard, chooses
// "repair", finds the environment listed, checks it, presses Fix, and the Verify page (a canned
// passing report) confirms it before Finish. The environment ends byte-identical to the install.

#include "uitest.h"
#include "install/installer.h"
#include "system/rootedsystem.h"
#include "ui/finishpage.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"
#include "support/coroutinetest.h"
#include "support/shippedknowledge.h"
#include "support/treesnapshot.h"

#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

const QString environment = u"/home/student/tfsetup-envs/tf2.15-cpu"_s;

using tfsetup::test::child;

QCoro::Task<core::VerifyReport> cannedVerify(core::SystemView &, core::VerifyRequest, core::Catalog)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify/smoke/cpu_route.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    core::ProcessResult process;
    process.started = true;
    process.exitCode = 0;
    process.standardOutput = QJsonDocument::fromJson(f.readAll()).toJson(QJsonDocument::Compact) + '\n';
    core::VerifyReport report;
    report.smoke = core::SmokeResult::parse(process, false);
    report.layers = report.smoke.layers;
    report.tensorflow = report.smoke.tensorflowVersion;
    co_return report;
}

} // namespace

class TestJourneyRepair final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void brokenEnvironment_fromWelcomeToFinish();
};

void TestJourneyRepair::brokenEnvironment_fromWelcomeToFinish()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(QDir().mkpath(root.filePath(u"home/student"_s)));
    core::RootedSystem system(root.path(), core::OsFamily::Linux,
                              {{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
    core::InstallSpec spec;
    spec.name = u"tf2.15-cpu"_s;
    spec.prefix = u"/home/student/tfsetup-envs"_s;
    spec.route = u"linux-pip"_s;
    spec.tensorflow = u"2.15.1"_s;
    spec.python = u"3.11"_s;
    {
        core::Installer installer(system, test::shippedKnowledge());
        const auto outcome = test::awaitTask(installer.install(spec), std::chrono::seconds(60));
        QVERIFY(outcome && *outcome);
    }
    const QString host = system.hostPath(environment);
    const test::TreeSnapshot installed = test::TreeSnapshot::take(host);
    QVERIFY(QFile::remove(host + u"/start-jupyter"_s));
    QFile kernel(host + u"/kernel/kernel.json"_s);
    QVERIFY(kernel.open(QIODevice::WriteOnly));
    kernel.write("{ damaged");
    kernel.close();

    ui::SetupWizard wizard(system, nullptr);
    wizard.verifyPage()->setVerifyFunction(&cannedVerify);
    wizard.show();
    auto next = [&] { QTest::mouseClick(wizard.button(QWizard::NextButton), Qt::LeftButton); };

    // Welcome: "repair" leads to the Repair page, not to Detect.
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::WelcomePageId));
    child<QRadioButton>(&wizard, u"modeRepairRadio"_s)->click();
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::RepairPageId));
    ui::RepairPage *page = wizard.repairPage();

    // Found without asking; Next waits for a check.
    QCOMPARE(child<QListWidget>(page, u"repairEnvironmentList"_s)->count(), 1);
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());
    QSignalSpy checked(page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(page->report()->before.size(), 2);
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());

    QSignalSpy repaired(page, &ui::RepairPage::repaired);
    QTest::mouseClick(child<QPushButton>(page, u"repairFixButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(repaired.count(), 1, 20000);
    QVERIFY(repaired.first().first().toBool());
    QTRY_VERIFY(wizard.button(QWizard::NextButton)->isEnabled());
    QStringList diff;
    for (const QString &line :
         test::TreeSnapshot::take(host).differenceFrom(installed).split(u'\n', Qt::SkipEmptyParts)) {
        if (!line.contains(u"logs/repair.log"_s))
            diff.append(line);
    }
    QVERIFY2(diff.isEmpty(), qPrintable(diff.join(u'\n')));

    // Verify, then Finish with the repaired environment.
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::VerifyPageId));
    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), 20000);
    QVERIFY(wizard.state().verified() && wizard.state().verified()->passed());
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::FinishPageId));
    QCOMPARE(wizard.state().installed()->environmentPath, environment);
    QVERIFY(wizard.button(QWizard::FinishButton)->isVisible());
}

QTEST_MAIN(TestJourneyRepair)
#include "test_journey_repair.moc"
