// Every page of the wizard (the new-environment journey, the lab profile and the repair page) in
// every language: each control that keyboard focus can reach has a name that assistive
// technology reads (QAccessible's Name: an accessible name, a buddy label or the control's own
// text), icon-only buttons have a tooltip too, Next/Back/Cancel are reachable with Tab and a
// default button is set.

#include "detect/detector.h"
#include "layoutcheck.h"
#include "system/rootedsystem.h"
#include "ui/setupwizard.h"
#include "uitest.h"
#include "util/i18n.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QCoro/QCoroTask>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;

namespace {

// A control the Tab key can land on, as the student sees it.
bool focusable(QWidget *w, QWidget *window)
{
    if (!w->isVisibleTo(window) || !w->isEnabled() || !(w->focusPolicy() & Qt::TabFocus))
        return false;
    // An editable combo box's line edit is the combo box itself to assistive technology.
    if (qobject_cast<QComboBox *>(w->parentWidget()) || qobject_cast<QAbstractSpinBox *>(w->parentWidget()))
        return false;
    return true;
}

QString describe(QWidget *w)
{
    return QStringLiteral("%1 (%2)").arg(w->objectName().isEmpty() ? QStringLiteral("<no objectName>")
                                                                   : w->objectName(),
                                         QString::fromLatin1(w->metaObject()->className()));
}

} // namespace

class TestAccessibility : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_home.isValid());
        qputenv("HOME", QFile::encodeName(m_home.path()));
        m_system = test::windowsFixture();
        QVERIFY(m_system);
        m_report = QCoro::waitFor(core::detectHardware(*m_system));
    }

    void everyControl_hasAnAccessibleName_data()
    {
        QTest::addColumn<QString>("language");
        for (const QString &language : core::Translations::available())
            QTest::newRow(qPrintable(language)) << language;
    }

    void everyControl_hasAnAccessibleName()
    {
        QFETCH(QString, language);
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        ui::SetupWizard wizard(*m_system, &translations);
        wizard.state().setHardware(m_report);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));

        QStringList problems;
        int checked = 0;
        for (const int id : wizard.pageIds()) {
            wizard.setStartId(id);
            wizard.restart();
            QTest::qWait(300); // pages that solve or scan in the background settle
            QWizardPage *page = wizard.currentPage();
            QVERIFY(page);
            const QString where = page->objectName();
            bool navigation = false;
            for (QWidget *w : wizard.findChildren<QWidget *>()) {
                if (!focusable(w, &wizard))
                    continue;
                ++checked;
                QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(w);
                const QString name = iface ? iface->text(QAccessible::Name).trimmed() : QString();
                if (name.isEmpty())
                    problems.append(QStringLiteral("%1 / %2: no accessible name").arg(where, describe(w)));
                if (auto *button = qobject_cast<QAbstractButton *>(w);
                    button && button->text().isEmpty() && button->toolTip().isEmpty())
                    problems.append(
                        QStringLiteral("%1 / %2: icon-only button without a tooltip").arg(where, describe(w)));
            }
            // Next may be off until the page is complete; it must still be in the tab chain.
            for (const auto which : {QWizard::NextButton, QWizard::FinishButton}) {
                QAbstractButton *b = wizard.button(which);
                navigation = navigation || (b->isVisible() && (b->focusPolicy() & Qt::TabFocus));
            }
            if (!navigation)
                problems.append(QStringLiteral("%1: neither Next nor Finish can be reached with Tab").arg(where));
            if (!(wizard.button(QWizard::CancelButton)->focusPolicy() & Qt::TabFocus))
                problems.append(QStringLiteral("%1: Cancel cannot be reached with Tab").arg(where));
            // Enter presses Next (or Finish): QWizard makes it the default button.
            auto *next = qobject_cast<QPushButton *>(wizard.button(QWizard::NextButton));
            auto *finish = qobject_cast<QPushButton *>(wizard.button(QWizard::FinishButton));
            const bool canGoOn = (next && next->isVisible() && next->isEnabled())
                || (finish && finish->isVisible() && finish->isEnabled());
            if (canGoOn && !(next && next->isVisible() && next->isDefault())
                && !(finish && finish->isVisible() && finish->isDefault()))
                problems.append(QStringLiteral("%1: no default button (focus on %2)")
                                    .arg(where,
                                         QApplication::focusWidget() ? describe(QApplication::focusWidget())
                                                                     : QStringLiteral("nothing")));
        }
        problems.removeDuplicates();
        for (const QString &p : std::as_const(problems))
            qWarning().noquote() << "inaccessible:" << p;
        QVERIFY(checked > 30);
        QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 problems (listed above)").arg(problems.size())));
    }

    // Alt+letter does one thing on each page: two controls with the same letter only move the
    // focus between them, so Alt+N would no longer press Next.
    void mnemonics_areUniqueOnEveryPage_data() { everyControl_hasAnAccessibleName_data(); }
    void mnemonics_areUniqueOnEveryPage()
    {
        QFETCH(QString, language);
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        ui::SetupWizard wizard(*m_system, &translations);
        wizard.state().setHardware(m_report);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        QStringList problems;
        for (const int id : wizard.pageIds()) {
            wizard.setStartId(id);
            wizard.restart();
            QTest::qWait(300);
            QHash<QChar, QStringList> owners;
            // Reached through the journey, every page after Welcome shows Back.
            if (id != ui::SetupWizard::WelcomePageId && !wizard.button(QWizard::BackButton)->isVisible())
                owners[test::mnemonic(wizard.button(QWizard::BackButton)->text())].append(QStringLiteral("Back"));
            for (QWidget *w : wizard.findChildren<QWidget *>()) {
                if (!w->isVisibleTo(&wizard))
                    continue;
                QString text;
                if (auto *b = qobject_cast<QAbstractButton *>(w))
                    text = b->text();
                else if (auto *l = qobject_cast<QLabel *>(w); l && l->buddy())
                    text = l->text();
                const QChar key = test::mnemonic(text);
                if (!key.isNull())
                    owners[key].append(describe(w));
            }
            for (auto it = owners.cbegin(); it != owners.cend(); ++it) {
                if (it.value().size() > 1)
                    problems.append(QStringLiteral("%1: Alt+%2 is %3")
                                        .arg(wizard.currentPage()->objectName(), it.key(),
                                             it.value().join(QStringLiteral(" and "))));
            }
        }
        for (const QString &p : std::as_const(problems))
            qWarning().noquote() << "mnemonic:" << p;
        QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 clashes (listed above)").arg(problems.size())));
    }

private:
    QTemporaryDir m_home;
    std::unique_ptr<core::RootedSystem> m_system;
    core::HardwareReport m_report;
};

QTEST_MAIN(TestAccessibility)
#include "test_accessibility.moc"
