// The Welcome page's "Your environments": the wizard starts on a machine with two recorded
// environments, lists both, removes one after asking (the other, its kernel and its menu entry
// untouched), leaves Upgrade disabled with the reason, and sends Repair to the Repair page with
// the chosen environment selected.

#include "system/rootedsystem.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/welcomepage.h"
#include "fakeenvironment.h"
#include "uitest.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace tfsetup;

class TestWelcomeEnvironments final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void lists_bothEnvironments();
    void remove_asksThenLeavesTheOtherUntouched();
    void remove_notConfirmed_removesNothing();
    void upgrade_disabledWithTheReason();
    void repair_opensTheRepairPageWithItSelected();
    void verify_opensTheVerifyPageOnIt();

private:
    QTreeWidgetItem *itemNamed(const QString &name) const;

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::WelcomePage *m_page = nullptr;
    QTreeWidget *m_list = nullptr;
};

void TestWelcomeEnvironments::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    QVERIFY(test::makeEnvironment(m_root->path(), QStringLiteral("course")));
    QVERIFY(test::makeEnvironment(m_root->path(), QStringLiteral("thesis")));
    m_system = std::make_unique<core::RootedSystem>(
        m_root->path(), core::OsFamily::Linux,
        QHash<QString, QString>{{QStringLiteral("HOME"), QStringLiteral("/home/u")}});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_wizard->resize(900, 700);
    m_page = m_wizard->welcomePage();
    m_list = test::child<QTreeWidget>(m_page, QStringLiteral("environmentList"));
    QSignalSpy listed(m_page, &ui::WelcomePage::environmentsChanged);
    m_wizard->show();
    QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1 && m_list->topLevelItemCount() == 2, 20000);
}

void TestWelcomeEnvironments::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

QTreeWidgetItem *TestWelcomeEnvironments::itemNamed(const QString &name) const
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        if (m_list->topLevelItem(i)->text(0) == name)
            return m_list->topLevelItem(i);
    }
    return nullptr;
}

void TestWelcomeEnvironments::lists_bothEnvironments()
{
    QVERIFY(m_list->isVisible());
    QVERIFY(itemNamed(QStringLiteral("course")));
    QVERIFY(itemNamed(QStringLiteral("thesis")));
    QCOMPARE(itemNamed(QStringLiteral("course"))->text(1), QStringLiteral("2.15.1"));
    QVERIFY(itemNamed(QStringLiteral("course"))->text(2).startsWith(QStringLiteral("3.11.2")));
    QVERIFY(!itemNamed(QStringLiteral("course"))->text(3).isEmpty()); // size on disk
    QCOMPARE(itemNamed(QStringLiteral("course"))->text(4), QStringLiteral("not yet"));
    for (const char *name : {"environmentShellButton", "environmentJupyterButton", "environmentVerifyButton",
                             "environmentRepairButton", "environmentRemoveButton", "cleanUpButton"}) {
        auto *button = test::child<QPushButton>(m_page, QString::fromLatin1(name));
        QVERIFY2(button->isEnabled(), name);
        QVERIFY2(!button->accessibleName().isEmpty(), name);
    }
}

void TestWelcomeEnvironments::remove_asksThenLeavesTheOtherUntouched()
{
    QStringList asked;
    m_page->setConfirmFunction([&](const QString &title, const QString &text) {
        asked.append(title + u'\n' + text);
        return true;
    });
    m_list->setCurrentItem(itemNamed(QStringLiteral("course")));
    QSignalSpy finished(m_page, &ui::WelcomePage::workFinished);
    QSignalSpy listed(m_page, &ui::WelcomePage::environmentsChanged);
    QTest::mouseClick(test::child<QPushButton>(m_page, QStringLiteral("environmentRemoveButton")), Qt::LeftButton);
    QCOMPARE(asked.size(), 1);
    QVERIFY(asked.first().contains(QStringLiteral("course")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(finished.first().first().toBool(), true);
    QTRY_VERIFY_WITH_TIMEOUT(listed.count() >= 1, 20000);

    const QString envs = m_root->path() + QStringLiteral("/home/u/tfsetup-envs");
    const QString kernels = m_root->path() + QStringLiteral("/home/u/.local/share/jupyter/kernels");
    QVERIFY(!QFileInfo::exists(envs + QStringLiteral("/course")));
    QVERIFY(!QFileInfo::exists(kernels + QStringLiteral("/course")));
    // The other one is whole.
    for (const char *file : {"environment.json", "start-python", "shell", "kernel/kernel.json"})
        QVERIFY2(QFile::exists(envs + QStringLiteral("/thesis/") + QString::fromLatin1(file)), file);
    QVERIFY(QFile::exists(kernels + QStringLiteral("/thesis/kernel.json")));
    QCOMPARE(m_list->topLevelItemCount(), 1);
    QVERIFY(itemNamed(QStringLiteral("thesis")));
    QVERIFY(
        test::child<QLabel>(m_page, QStringLiteral("environmentStatus"))->text().contains(QStringLiteral("Removed")));
}

void TestWelcomeEnvironments::remove_notConfirmed_removesNothing()
{
    m_page->setConfirmFunction([](const QString &, const QString &) { return false; });
    m_list->setCurrentItem(itemNamed(QStringLiteral("course")));
    QTest::mouseClick(test::child<QPushButton>(m_page, QStringLiteral("environmentRemoveButton")), Qt::LeftButton);
    QTest::qWait(200);
    QVERIFY(QFile::exists(m_root->path() + QStringLiteral("/home/u/tfsetup-envs/course/environment.json")));
    QCOMPARE(m_list->topLevelItemCount(), 2);
}

void TestWelcomeEnvironments::upgrade_disabledWithTheReason()
{
    auto *upgrade = test::child<QPushButton>(m_page, QStringLiteral("environmentUpgradeButton"));
    QVERIFY(upgrade->isVisible());
    QVERIFY(!upgrade->isEnabled());
    // The wizard offers the upgrade (its dialog: ui_upgradedialog); these environments have no
    // newer TensorFlow for this machine, and the button says so.
    QVERIFY2(upgrade->toolTip().contains(QStringLiteral("No newer TensorFlow")), qPrintable(upgrade->toolTip()));
    QCOMPARE(upgrade->accessibleDescription(), upgrade->toolTip());
}

void TestWelcomeEnvironments::repair_opensTheRepairPageWithItSelected()
{
    m_list->setCurrentItem(itemNamed(QStringLiteral("thesis")));
    QTest::mouseClick(test::child<QPushButton>(m_page, QStringLiteral("environmentRepairButton")), Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::RepairPageId));
    QCOMPARE(m_wizard->repairPage()->selectedEnvironment(), QStringLiteral("/home/u/tfsetup-envs/thesis"));
}

void TestWelcomeEnvironments::verify_opensTheVerifyPageOnIt()
{
    m_list->setCurrentItem(itemNamed(QStringLiteral("thesis")));
    QTest::mouseClick(test::child<QPushButton>(m_page, QStringLiteral("environmentVerifyButton")), Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QVERIFY(m_wizard->state().installed());
    QCOMPARE(m_wizard->state().installed()->environmentPath, QStringLiteral("/home/u/tfsetup-envs/thesis"));
    QVERIFY(
        m_wizard->state().installed()->launchers.contains(QStringLiteral("/home/u/tfsetup-envs/thesis/start-python")));
}

QTEST_MAIN(TestWelcomeEnvironments)
#include "test_welcomeenvironments.moc"
