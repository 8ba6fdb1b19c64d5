// A first-year student's whole journey, driven by objectName under the offscreen platform:
// Welcome → Detect (a canned machine without an NVIDIA GPU, with this host's real Python) →
// Choose (the solver's CPU plan) → Options (a PyPI-style index on loopback) → Download (nothing
// for a CPU plan) → Install (a real venv, pip from the loopback index with a stand-in TensorFlow
// wheel; stopped once, which must leave nothing behind, then done) → Verify (the real smoke test
// through the environment's launcher) → Finish. Next is checked at every step.

#include "uitest.h"
#include "journeyhost.h"
#include "support/files.h"
#include "system/realsystem.h"
#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/statuslist.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"
#include "support/loopbackserver.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::child;
using tfsetup::test::LoopbackServer;

class TestJourneyStudent final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void firstTimeStudent_fromWelcomeToFinish();

private:
    QAbstractButton *button(QWizard::WizardButton which) const { return m_wizard->button(which); }
    bool nextEnabled() const { return button(QWizard::NextButton)->isEnabled(); }
    void clickNext() { QTest::mouseClick(button(QWizard::NextButton), Qt::LeftButton); }

    QTemporaryDir m_dir;
    tfsetup::test::JourneyHost m_host;
    std::unique_ptr<core::RealSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyStudent::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (const QString why = m_host.prepare(m_dir); !why.isEmpty())
        QSKIP(qPrintable(why));
    QVERIFY(!m_host.python.isEmpty());
    QVERIFY(!m_host.pythonVersion.isEmpty());
}

void TestJourneyStudent::firstTimeStudent_fromWelcomeToFinish()
{
    LoopbackServer index;
    QVERIFY(index.start());

    m_system = std::make_unique<core::RealSystem>();
    QList<QStringList> launched;
    m_wizard = m_host.wizard(*m_system, m_dir, &launched);
    m_wizard->show();

    // Welcome.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
    QVERIFY(nextEnabled());
    clickNext();

    // Detect: Next waits for the scan.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 10'000);
    clickNext();

    // Choose: the solver's plan for a machine without an NVIDIA GPU.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->choosePage()->chosenPlan().has_value(), 20'000);
    QVERIFY(nextEnabled());
    const core::Plan plan = *m_wizard->choosePage()->chosenPlan();
    QVERIFY2(plan.cuda.isEmpty(), qPrintable(plan.route));
    clickNext();

    // The index serves a stand-in TensorFlow under the name and version the plan asks for.
    const QString wheelName = m_host.serveTensorFlowStandIn(index, m_dir, plan);
    QVERIFY(!wheelName.isEmpty());
    QVERIFY(m_host.serveJupyterStandIns(index, m_dir));

    // Options: defaults under the home folder, the lab's index typed in.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    auto *options = m_wizard->optionsPage();
    const QString prefix = m_dir.filePath(u"home/tfsetup-envs"_s);
    QCOMPARE(child<QLineEdit>(options, u"folderEdit"_s)->text(), prefix);
    QCOMPARE(child<QLineEdit>(options, u"nameEdit"_s)->text(), core::InstallSpec::defaultName(plan));
    child<QComboBox>(options, u"pypiMirrorCombo"_s)->setEditText(index.url(u"/simple"_s).toString());
    child<QLineEdit>(options, u"nameEdit"_s)->clear();
    QVERIFY(!nextEnabled());
    child<QLineEdit>(options, u"nameEdit"_s)->setText(u"first-env"_s);
    QVERIFY(nextEnabled());
    QSignalSpy resolved(options, &ui::OptionsPage::resolved);
    clickNext();
    QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
    QCOMPARE(resolved.first().first().toBool(), true);

    // Download: every wheel pip's resolver locked is a row of its own, fetched and verified here.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(m_wizard->downloadPage()->rowCount(), int(m_wizard->state().lock().packages.size()));
    QVERIFY(m_wizard->state().lock().find(u"tensorflow"_s));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->downloadPage()->isComplete(), 60'000);
    QVERIFY(nextEnabled());

    // Install, first try: stopped when pip is about to run. Nothing is left behind.
    auto *install = m_wizard->installPage();
    auto *stop = child<QPushButton>(install, u"cancelInstallButton"_s);
    install->installer()->setCheckpoint([stop](core::InstallStep step) -> core::Status {
        if (step == core::InstallStep::Packages)
            QTest::mouseClick(stop, Qt::LeftButton);
        return core::Ok{};
    });
    QSignalSpy installed(install, &ui::InstallPage::finished);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId));
    QVERIFY(!nextEnabled());
    QVERIFY(installed.wait(120'000));
    QCOMPARE(installed.first().first().toBool(), false);
    QCOMPARE(install->error()->code, u"cancelled"_s);
    QCOMPARE(QDir(prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    QVERIFY(!nextEnabled());

    // Try again: a real venv, pip from the loopback index.
    install->installer()->setCheckpoint({});
    installed.clear();
    QTest::mouseClick(child<QPushButton>(install, u"retryButton"_s), Qt::LeftButton);
    QVERIFY(installed.wait(240'000));
    QVERIFY2(installed.first().first().toBool(),
             qPrintable(install->error() ? install->error()->message + u'\n' + install->error()->detail : QString()));
    QVERIFY(index.hits("/files/" + wheelName.toUtf8()) >= 1);
    QVERIFY(QFileInfo::exists(prefix + u"/first-env/environment.json"_s));
    QVERIFY(nextEnabled());
    clickNext();

    // Verify: the smoke test through the environment's own launcher.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    auto *verify = m_wizard->verifyPage();
    QSignalSpy verified(verify, &ui::VerifyPage::finished);
    QVERIFY(verified.count() > 0 || verified.wait(120'000));
    const auto &verdict = m_wizard->state().verified();
    QVERIFY(verdict);
    const core::VerifyLayer *import = verdict->layer(u"import"_s);
    QVERIFY(import);
    QVERIFY2(import->status == core::VerifyLayer::Status::Passed,
             qPrintable(import->summary + u'\n' + import->details.join(u'\n')));
    QCOMPARE(verdict->tensorflow, plan.tensorflow);
    QVERIFY(child<ui::StatusList>(verify, u"layerList"_s)->count() >= 4);
    QVERIFY(nextEnabled());
    clickNext();

    // Finish: start a terminal through the launcher, copy the summary.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    auto *finish = m_wizard->finishPage();
    QTest::mouseClick(child<QPushButton>(finish, u"openShellButton"_s), Qt::LeftButton);
    QCOMPARE(launched.size(), 1);
    QCOMPARE(launched.first().value(0), u"/usr/bin/xterm"_s);
    const QString shell = ui::FinishPage::launcherFor(m_wizard->state().installed()->launchers, u"shell"_s,
                                                      core::OsFamily::Linux);
    QVERIFY(shell.startsWith(prefix + u"/first-env/shell"_s));
    QCOMPARE(launched.first().value(2), shell);
    QVERIFY(QFileInfo(shell).isExecutable());
    QTest::mouseClick(child<QPushButton>(finish, u"copySummaryButton"_s), Qt::LeftButton);
    QVERIFY(child<QLabel>(finish, u"messageLabel"_s)->isVisible());
    QVERIFY(button(QWizard::FinishButton)->isVisible());
    QVERIFY(button(QWizard::FinishButton)->isEnabled());
}

QTEST_MAIN(TestJourneyStudent)
#include "test_journey_student.moc"
