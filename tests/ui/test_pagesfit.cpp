// Every page of the wizard, in every language it ships, with nothing cut off: each visible
// label's text fits its width (or, when it wraps, its height), and each button's text fits.
// With TFSETUP_SCREENSHOT_DIR set, every page is also saved there as <language>-<page>.png (the
// README's pictures come from this).

#include "detect/detector.h"
#include "system/rootedsystem.h"
#include "ui/setupwizard.h"
#include "util/i18n.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCoro/QCoroTask>
#include <QDir>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

using namespace tfsetup;

namespace {

QString pageName(QWizardPage *page, int id)
{
    const QString name = page->objectName();
    return name.isEmpty() ? QString::number(id) : name;
}

// Why a widget's text does not fit, or empty when it does.
QString clipped(QWidget *widget)
{
    if (auto *label = qobject_cast<QLabel *>(widget)) {
        const QString text = label->text();
        if (text.isEmpty() || !label->pixmap().isNull())
            return {};
        const QRect room = label->contentsRect();
        if (label->wordWrap() || Qt::mightBeRichText(text)) {
            const int need = label->heightForWidth(label->width());
            if (need > label->height() + 2)
                return QStringLiteral("needs %1 px of height, has %2").arg(need).arg(label->height());
            return {};
        }
        // A single '&' marks the mnemonic and is not drawn; "&&" draws one '&'.
        QString shown = text.section(u'\n', 0, 0);
        shown.replace(QLatin1String("&&"), QStringLiteral("\x01")).remove(u'&').replace(u'\x01', u'&');
        const int need = label->fontMetrics().horizontalAdvance(shown);
        if (need > room.width() + 2)
            return QStringLiteral("needs %1 px of width, has %2").arg(need).arg(room.width());
        return {};
    }
    if (auto *button = qobject_cast<QAbstractButton *>(widget)) {
        if (button->text().isEmpty())
            return {};
        const int need = button->sizeHint().width();
        if (need > button->width() + 2)
            return QStringLiteral("needs %1 px of width, has %2").arg(need).arg(button->width());
    }
    return {};
}

} // namespace

class TestPagesFit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_home.isValid());
        qputenv("HOME", QFile::encodeName(m_home.path()));
        const QString fixture = qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/fixtures/windows-two-toolkits");
        auto system = core::RootedSystem::open(fixture + QStringLiteral("/root"), core::OsFamily::Windows,
                                               fixture + QStringLiteral("/env"));
        QVERIFY(system.ok());
        m_system = std::move(system.value());
        m_report = QCoro::waitFor(core::detectHardware(*m_system));
        QVERIFY(!m_report.gpus.isEmpty());
    }

    void everyPageFits_data()
    {
        QTest::addColumn<QString>("language");
        for (const QString &language : core::Translations::available())
            QTest::newRow(qPrintable(language)) << language;
    }

    void everyPageFits()
    {
        QFETCH(QString, language);
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        ui::SetupWizard wizard(*m_system, &translations);
        wizard.state().setHardware(m_report);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));

        const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
        QStringList problems;
        int checked = 0;
        for (const int id : wizard.pageIds()) {
            wizard.setStartId(id);
            wizard.restart();
            QTest::qWait(400); // pages that solve or scan in the background settle
            QWizardPage *page = wizard.currentPage();
            QVERIFY(page);
            const QString name = pageName(page, id);
            // The header (title, subtitle) belongs to the wizard, not the page: check both.
            const QList<QWidget *> widgets = wizard.findChildren<QWidget *>();
            for (QWidget *w : widgets) {
                if (!w->isVisibleTo(&wizard) || w->width() <= 0)
                    continue;
                if (!qobject_cast<QLabel *>(w) && !qobject_cast<QAbstractButton *>(w))
                    continue;
                ++checked;
                const QString why = clipped(w);
                if (!why.isEmpty()) {
                    const QString text = qobject_cast<QLabel *>(w) ? qobject_cast<QLabel *>(w)->text()
                                                                    : qobject_cast<QAbstractButton *>(w)->text();
                    problems.append(QStringLiteral("%1 / %2 (%3): \"%4\" %5")
                                        .arg(name, w->objectName(), QString::fromLatin1(w->metaObject()->className()),
                                             text.left(60), why));
                }
            }
            if (!shots.isEmpty()) {
                QDir().mkpath(shots);
                wizard.grab().save(shots + QStringLiteral("/%1-%2.png").arg(language, name));
            }
        }
        problems.removeDuplicates();
        for (const QString &p : std::as_const(problems))
            qWarning().noquote() << "clipped:" << p;
        QVERIFY(checked > 20);
        QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 texts do not fit (listed above)").arg(problems.size())));
    }

private:
    QTemporaryDir m_home;
    std::unique_ptr<core::RootedSystem> m_system;
    core::HardwareReport m_report;
};

QTEST_MAIN(TestPagesFit)
#include "test_pagesfit.moc"
