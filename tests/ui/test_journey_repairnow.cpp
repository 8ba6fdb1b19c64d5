// A check that failed ends in a next step, not a command to type: the Finish page after a failed
// verify offers "Repair now", which takes the student into the Repair journey with that
// environment chosen — the step rail showing Welcome, Repair, Verify, Finish — and the Welcome
// page's "last verify" follows a new verdict without a restart.

#include "fakeenvironment.h"
#include "system/rootedsystem.h"
#include "ui/finishpage.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/steprail.h"
#include "ui/welcomepage.h"
#include "uitest.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;

class TestJourneyRepairNow final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_root = std::make_unique<QTemporaryDir>();
        QVERIFY(m_root->isValid());
        QVERIFY(test::makeEnvironment(m_root->path(), QStringLiteral("course")));
        m_system = std::make_unique<core::RootedSystem>(
            m_root->path(), core::OsFamily::Linux,
            QHash<QString, QString>{{QStringLiteral("HOME"), QStringLiteral("/home/u")}});
        m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
        m_wizard->resize(900, 700);
        m_wizard->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_wizard.get()));
    }

    void cleanup()
    {
        m_wizard.reset();
        m_system.reset();
        m_root.reset();
    }

    void failedCheck_repairNow_opensRepairOnIt()
    {
        const QString environment = QStringLiteral("/home/u/tfsetup-envs/course");
        core::InstallOutcome outcome;
        outcome.environmentPath = environment;
        m_wizard->state().setInstalled(outcome);
        core::VerifyReport failed;
        core::VerifyLayer libraries;
        libraries.id = QStringLiteral("libraries");
        libraries.status = core::VerifyLayer::Status::Failed;
        libraries.summary = QStringLiteral("libcudnn.so.8 could not be loaded");
        failed.layers.append(libraries);
        QVERIFY(!failed.passed());
        m_wizard->state().setVerified(failed);
        m_wizard->setStartId(ui::SetupWizard::FinishPageId);
        m_wizard->restart();

        auto *repairNow = test::child<QPushButton>(m_wizard->finishPage(), QStringLiteral("repairNowButton"));
        QVERIFY(repairNow->isVisible());
        repairNow->click();
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::RepairPageId));
        QCOMPARE(m_wizard->state().mode(), ui::WizardState::Mode::Repair);
        QTRY_COMPARE_WITH_TIMEOUT(m_wizard->repairPage()->selectedEnvironment(), environment, 20'000);
        // Back leads to the start of this journey, and the rail shows its four steps.
        QCOMPARE(m_wizard->visitedIds().constFirst(), int(ui::SetupWizard::WelcomePageId));
        QCOMPARE(m_wizard->stepRail()->steps().size(), 4);
        QCOMPARE(m_wizard->stepRail()->current(), 1);
    }

    void railFollowsTheJourney()
    {
        ui::StepRail *rail = m_wizard->stepRail();
        QCOMPARE(rail->steps().size(), 8); // a new environment: Welcome … Finish
        QCOMPARE(rail->current(), 0);
        QVERIFY(rail->accessibleDescription().contains(QLatin1String("Step 1 of 8")));
        m_wizard->next();
        QCOMPARE(rail->current(), 1);
        // A narrow window shows the numbers only; a wide one the names too.
        m_wizard->resize(720, 540);
        QTRY_VERIFY(!rail->showsNames());
        const int narrow = rail->sizeHint().width();
        m_wizard->resize(1366, 768);
        QTRY_VERIFY(rail->showsNames());
        QVERIFY(rail->sizeHint().width() > narrow);
    }

    void newVerdict_refreshesWelcomeList()
    {
        auto *welcome = m_wizard->welcomePage();
        QTRY_COMPARE_WITH_TIMEOUT(welcome->environments().size(), 1, 20'000);
        QVERIFY(!welcome->environments().constFirst().lastVerify.present);
        // What verify records beside the environment, then the verdict reaching the wizard.
        QVERIFY(test::writeFile(m_root->path() + QStringLiteral("/home/u/tfsetup-envs/course/logs/last-verify.json"),
                                R"({"schema": 1, "passed": true, "date": "2026-12-04T10:00:00Z"})"));
        QSignalSpy listed(welcome, &ui::WelcomePage::environmentsChanged);
        m_wizard->state().setVerified(core::VerifyReport{});
        QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1, 20'000);
        QVERIFY(welcome->environments().constFirst().lastVerify.present);
    }

private:
    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

QTEST_MAIN(TestJourneyRepairNow)
#include "test_journey_repairnow.moc"
