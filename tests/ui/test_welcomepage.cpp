// The Welcome page: the three choices commit WizardState::Mode, work from the keyboard, and
// every interactive widget can be found by objectName and has an accessible name.

#include "system/rootedsystem.h"
#include "ui/setupwizard.h"
#include "ui/welcomepage.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QRadioButton>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;

class TestWelcomePage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void choice_commitsMode_data();
    void choice_commitsMode();
    void defaultChoice_isNewEnvironment();
    void initialize_showsModeFromState();
    void keyboard_mnemonicSelectsChoice();
    void widgets_haveObjectAndAccessibleNames();
    void languageSwitch_hiddenWithoutTranslations();
    void wizard_hasWindowIcon();

private:
    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::WelcomePage *m_page = nullptr;
};

void TestWelcomePage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux, QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->findChild<ui::WelcomePage *>(QStringLiteral("welcomePage"));
    QVERIFY(m_page);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
}

void TestWelcomePage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestWelcomePage::choice_commitsMode_data()
{
    QTest::addColumn<QString>("radio");
    QTest::addColumn<ui::WizardState::Mode>("mode");
    QTest::addColumn<int>("page"); // each journey's first page after Welcome
    QTest::newRow("new environment") << QStringLiteral("modeNewRadio") << ui::WizardState::Mode::NewEnvironment
                                     << int(ui::SetupWizard::DetectPageId);
    QTest::newRow("repair") << QStringLiteral("modeRepairRadio") << ui::WizardState::Mode::Repair
                            << int(ui::SetupWizard::RepairPageId);
    QTest::newRow("lab profile") << QStringLiteral("modeLabRadio") << ui::WizardState::Mode::LabProfile
                                 << int(ui::SetupWizard::LabProfilePageId);
}

void TestWelcomePage::choice_commitsMode()
{
    QFETCH(QString, radio);
    QFETCH(ui::WizardState::Mode, mode);
    QFETCH(int, page);

    // Start from a different mode so the commit is visible.
    m_wizard->state().setMode(mode == ui::WizardState::Mode::Repair ? ui::WizardState::Mode::LabProfile
                                                                    : ui::WizardState::Mode::Repair);
    auto *button = m_page->findChild<QRadioButton *>(radio);
    QVERIFY(button);
    // On the indicator: a radio button only reacts to clicks on its indicator and text.
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(6, button->height() / 2));
    QVERIFY(button->isChecked());
    QVERIFY(m_page->isComplete());
    // Choosing alone does not commit; Next does.
    QVERIFY(m_wizard->state().mode() != mode);

    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), page);
    QCOMPARE(m_wizard->state().mode(), mode);
}

void TestWelcomePage::defaultChoice_isNewEnvironment()
{
    QVERIFY(m_page->findChild<QRadioButton *>(QStringLiteral("modeNewRadio"))->isChecked());
    QVERIFY(m_wizard->button(QWizard::NextButton)->isEnabled());
}

void TestWelcomePage::initialize_showsModeFromState()
{
    m_wizard->state().setMode(ui::WizardState::Mode::LabProfile);
    m_wizard->restart();
    QVERIFY(m_page->findChild<QRadioButton *>(QStringLiteral("modeLabRadio"))->isChecked());
}

void TestWelcomePage::keyboard_mnemonicSelectsChoice()
{
    QVERIFY(QTest::qWaitForWindowActive(m_wizard.get()));
    auto *repair = m_page->findChild<QRadioButton *>(QStringLiteral("modeRepairRadio"));
    QTest::keyClick(m_wizard.get(), Qt::Key_R, Qt::AltModifier);
    // A mnemonic "animates" the click, so the check lands a moment later.
    QTRY_VERIFY(repair->isChecked());
    QVERIFY(repair->hasFocus());

    // Arrow keys move between the choices of one group, as users of radio buttons expect.
    QTest::keyClick(repair, Qt::Key_Down);
    QVERIFY(m_page->findChild<QRadioButton *>(QStringLiteral("modeLabRadio"))->isChecked());

    // Enter goes on (Next is the default button) and commits.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::LabProfilePageId));
    QCOMPARE(m_wizard->state().mode(), ui::WizardState::Mode::LabProfile);
}

void TestWelcomePage::widgets_haveObjectAndAccessibleNames()
{
    const auto buttons = m_page->findChildren<QAbstractButton *>();
    // The three journeys; "Continue the setup" and "Start over" show only with a saved setup, the
    // seven buttons of "Your environments" only when tfsetup made one.
    QCOMPARE(
        std::count_if(buttons.cbegin(), buttons.cend(), [this](QAbstractButton *b) { return b->isVisibleTo(m_page); }),
        3);
    QCOMPARE(buttons.size(), 12);
    for (QAbstractButton *button : buttons) {
        QVERIFY2(!button->objectName().isEmpty(), qPrintable(button->text()));
        QVERIFY2(!button->accessibleName().isEmpty(), qPrintable(button->objectName()));
        QVERIFY2(!button->accessibleName().contains(u'&'), qPrintable(button->accessibleName()));
        QVERIFY2(!button->accessibleDescription().isEmpty(), qPrintable(button->objectName()));
        // Tab reaches the group through its checked button; arrows move within it.
        QVERIFY(button->focusPolicy() & Qt::ClickFocus);
        if (button->isChecked())
            QVERIFY(button->focusPolicy() & Qt::TabFocus);
    }
    auto *combo = m_page->findChild<QComboBox *>(QStringLiteral("languageCombo"));
    QVERIFY(combo);
    QVERIFY(!combo->accessibleName().isEmpty());
}

void TestWelcomePage::languageSwitch_hiddenWithoutTranslations()
{
    // This wizard was built without a Translations object: nothing to switch.
    QVERIFY(!m_page->findChild<QComboBox *>(QStringLiteral("languageCombo"))->isVisible());
}

void TestWelcomePage::wizard_hasWindowIcon()
{
    const QIcon icon = m_wizard->windowIcon();
    QVERIFY(!icon.isNull());
    QVERIFY(!icon.pixmap(64, 64).isNull());
}

QTEST_MAIN(TestWelcomePage)
#include "test_welcomepage.moc"
