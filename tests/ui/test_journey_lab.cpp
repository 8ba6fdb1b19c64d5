// Journey 2, driven by objectName under the offscreen platform: a lab student opens the lab's
// profile, reads what it will do, ticks "install now without further questions", presses Next
// once; the environment is installed exactly as the profile says (libraries and launchers only:
// the profile's interpreter is "none"), the Verify page (a canned passing report) confirms it and
// Finish shows it. Opening the same profile again changes nothing.

#include "uitest.h"
#include "install/environmentrecord.h"
#include "setup/setupflow.h"
#include "system/rootedsystem.h"
#include "ui/labprofilepage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

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

class TestJourneyLab final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void labStudent_unattendedFromWelcomeToFinish();
    void labStudent_notebookProfile_installsTheNotebook_data();
    void labStudent_notebookProfile_installsTheNotebook();
};

void TestJourneyLab::labStudent_unattendedFromWelcomeToFinish()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(QDir().mkpath(root.filePath(u"home/student"_s)));
    core::RootedSystem system(root.path(), core::OsFamily::Linux,
                              {{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
    ui::SetupWizard wizard(system, nullptr);
    wizard.verifyPage()->setVerifyFunction(&cannedVerify);
    wizard.show();
    auto next = [&] { QTest::mouseClick(wizard.button(QWizard::NextButton), Qt::LeftButton); };

    child<QRadioButton>(&wizard, u"modeLabRadio"_s)->click();
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::LabProfilePageId));
    ui::LabProfilePage *page = wizard.labProfilePage();
    QVERIFY(!wizard.button(QWizard::NextButton)->isEnabled());

    child<QLineEdit>(page, u"labProfileSourceEdit"_s)
        ->setText(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/labprofile/lab.json"_s);
    QTest::mouseClick(child<QPushButton>(page, u"labProfileOpenButton"_s), Qt::LeftButton);
    QVERIFY(page->profile());
    child<QCheckBox>(page, u"labProfileUnattendedCheck"_s)->setChecked(true);

    // One Next: install, then straight on to Verify.
    QSignalSpy installed(page, &ui::LabProfilePage::installFinished);
    next();
    QTRY_COMPARE_WITH_TIMEOUT(installed.count(), 1, 30000);
    QVERIFY(installed.first().first().toBool());
    QTRY_COMPARE_WITH_TIMEOUT(wizard.currentId(), int(ui::SetupWizard::VerifyPageId), 5000);

    const QString environment = u"/home/student/tf-envs/tf2.15-lab"_s;
    const QString host = system.hostPath(environment);
    const auto record = core::EnvironmentRecord::read(host);
    QVERIFY(record);
    QCOMPARE(record->spec.value(u"kernel_name"_s).toString(), u"tf2.15-lab"_s);
    QVERIFY(QFile::exists(host + u"/start-python"_s));
    const QJsonObject kernel = QJsonDocument::fromJson([&] {
                                   QFile f(host + u"/kernel/kernel.json"_s);
                                   return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
                               }())
                                   .object();
    QCOMPARE(kernel.value(u"display_name"_s).toString(), u"TensorFlow 2.15 (lab)"_s);

    QTRY_VERIFY_WITH_TIMEOUT(wizard.button(QWizard::NextButton)->isEnabled(), 20000);
    QVERIFY(wizard.state().verified() && wizard.state().verified()->passed());
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::FinishPageId));
    QCOMPARE(wizard.state().installed()->environmentPath, environment);

    // The same profile again: the environment is complete, nothing is rebuilt.
    wizard.back();
    wizard.back();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::LabProfilePageId));
    QTest::mouseClick(child<QPushButton>(page, u"labProfileOpenButton"_s), Qt::LeftButton);
    QSignalSpy again(page, &ui::LabProfilePage::installFinished);
    next();
    QTRY_COMPARE_WITH_TIMEOUT(again.count(), 1, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(wizard.currentId(), int(ui::SetupWizard::VerifyPageId), 5000);
    QVERIFY(child<QLabel>(page, u"labProfileStatusLabel"_s)->text().contains(u"already"_s));
}

void TestJourneyLab::labStudent_notebookProfile_installsTheNotebook_data()
{
    QTest::addColumn<bool>("unattended");
    QTest::newRow("install now") << true;
    QTest::newRow("through the usual pages") << false;
}

void TestJourneyLab::labStudent_notebookProfile_installsTheNotebook()
{
    // The lab's profile asks for the classic notebook. Unattended, the wizard installs it as
    // `tfsetup install --profile` does; through the usual pages, the Install page builds the
    // same spec (the profile's front end, kernel and interpreter), not JupyterLab.
    QFETCH(bool, unattended);
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(QDir().mkpath(root.filePath(u"home/student"_s)));
    QJsonObject json = [] {
        QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/labprofile/lab.json"_s);
        return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
    }();
    QVERIFY(!json.isEmpty());
    json[u"jupyter"_s] = u"notebook"_s;
    const QString profile = root.filePath(u"notebook-lab.json"_s);
    {
        QFile f(profile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(json).toJson());
    }
    core::RootedSystem system(root.path(), core::OsFamily::Linux,
                              {{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
    ui::SetupWizard wizard(system, nullptr);
    wizard.verifyPage()->setVerifyFunction(&cannedVerify);
    wizard.show();
    auto next = [&] { QTest::mouseClick(wizard.button(QWizard::NextButton), Qt::LeftButton); };
    child<QRadioButton>(&wizard, u"modeLabRadio"_s)->click();
    next();
    ui::LabProfilePage *page = wizard.labProfilePage();
    child<QLineEdit>(page, u"labProfileSourceEdit"_s)->setText(profile);
    QTest::mouseClick(child<QPushButton>(page, u"labProfileOpenButton"_s), Qt::LeftButton);
    QVERIFY(page->profile());
    QCOMPARE(page->profile()->jupyter, u"notebook"_s);
    child<QCheckBox>(page, u"labProfileUnattendedCheck"_s)->setChecked(unattended);
    const QString environment = u"/home/student/tf-envs/tf2.15-lab"_s;
    if (unattended) {
        QSignalSpy installed(page, &ui::LabProfilePage::installFinished);
        next();
        QTRY_COMPARE_WITH_TIMEOUT(installed.count(), 1, 30000);
        QVERIFY2(installed.first().first().toBool(),
                 qPrintable(child<QLabel>(page, u"labProfileStatusLabel"_s)->text()));
        QTRY_COMPARE_WITH_TIMEOUT(wizard.currentId(), int(ui::SetupWizard::VerifyPageId), 5000);
        const auto record = core::EnvironmentRecord::read(system.hostPath(environment));
        QVERIFY(record);
        QCOMPARE(record->spec.value(u"jupyter"_s).toString(), u"notebook"_s);
        // The page's bar ended full, not where the first step left it.
        auto *bar = child<QProgressBar>(page, u"labProfileProgress"_s);
        QCOMPARE(bar->value(), bar->maximum());
        return;
    }
    next();
    QCOMPARE(wizard.currentId(), int(ui::SetupWizard::DetectPageId));
    // What the Install page will build from the state: the profile's spec.
    const ui::WizardState &state = wizard.state();
    const auto spec = core::SetupFlow::baseSpec(*state.plan(), state.options(), core::HardwareReport{});
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->jupyter, u"notebook"_s);
    QCOMPARE(spec->environmentPath(), environment);
    QCOMPARE(spec->kernelName, u"tf2.15-lab"_s);
    QCOMPARE(spec->desktopEntry, false);
}

QTEST_MAIN(TestJourneyLab)
#include "test_journey_lab.moc"
