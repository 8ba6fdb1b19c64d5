// Every page of the wizard, in every language it ships, with nothing cut off: each visible
// label's text fits its width (or, when it wraps, its height), and each button's text fits. Also
// with a large application font (1.5 times the point size, as a student with poor eyesight sets
// it) and on a HiDPI screen (device pixel ratio 2: QT_SCALE_FACTOR=2, which the offscreen
// platform honours like any other; the check runs in a child process because the factor is
// read when the application starts). With TFSETUP_SCREENSHOT_DIR set, every page is also saved
// there as <language>-<page>.png (the README's pictures come from this), and as
// <language>-<page>-<variant>.png for the other rows.

#include "detect/detector.h"
#include "layoutcheck.h"
#include "system/rootedsystem.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "uitest.h"
#include "ui/welcomepage.h"
#include "util/i18n.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCoro/QCoroTask>
#include <QDir>
#include <QLabel>
#include <QProcess>
#include <QScopeGuard>
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

} // namespace

class TestPagesFit : public QObject {
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
        QVERIFY(!m_report.gpus.isEmpty());
    }

    void everyPageFits_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<double>("fontScale");
        // In the HiDPI child the plain rows are what is being checked.
        const bool child = qEnvironmentVariableIsSet("TFSETUP_PAGESFIT_DPR");
        for (const QString &language : core::Translations::available()) {
            QTest::newRow(qPrintable(language)) << language << 1.0;
            if (!child)
                QTest::newRow(qPrintable(language + QStringLiteral(" large font"))) << language << 1.5;
        }
    }

    void everyPageFits()
    {
        QFETCH(QString, language);
        QFETCH(double, fontScale);
        if (qEnvironmentVariableIsSet("TFSETUP_PAGESFIT_DPR"))
            QCOMPARE(qApp->devicePixelRatio(), qEnvironmentVariable("TFSETUP_PAGESFIT_DPR").toDouble());
        const QFont normalFont = QApplication::font();
        const auto restoreFont = qScopeGuard([normalFont] { QApplication::setFont(normalFont); });
        if (fontScale != 1.0) {
            QFont large = normalFont;
            large.setPointSizeF(normalFont.pointSizeF() * fontScale);
            QApplication::setFont(large);
        }
        QString variant = qEnvironmentVariableIsSet("TFSETUP_PAGESFIT_DPR")
            ? QStringLiteral("-dpr") + qEnvironmentVariable("TFSETUP_PAGESFIT_DPR")
            : QString();
        if (fontScale != 1.0)
            variant += QStringLiteral("-largefont");
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        ui::SetupWizard wizard(*m_system, &translations);
        wizard.state().setHardware(m_report);
        core::SetupOptions offline;
        offline.network.originOverrides = test::presetsOnClosedPort();
        wizard.optionsPage()->suggestOptions(offline);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));

        const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
        QStringList problems;
        int checked = 0;
        // Every page, then the Welcome page again offering to continue an unfinished setup.
        QList<int> ids = wizard.pageIds();
        ids.append(ui::SetupWizard::WelcomePageId);
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const int id = ids.at(i);
            const bool offer = i == ids.size() - 1;
            if (offer)
                wizard.welcomePage()->setSavedSetup(QStringLiteral("tf2.10-cuda11.2"), 1'288'490'188, 2'791'728'742);
            wizard.setStartId(id);
            wizard.restart();
            QTest::qWait(400); // pages that solve or scan in the background settle
            QWizardPage *page = wizard.currentPage();
            QVERIFY(page);
            const QString name = pageName(page, id) + (offer ? QStringLiteral("-continue") : QString());
            // The header (title, subtitle) belongs to the wizard, not the page: check both.
            const QList<QWidget *> widgets = wizard.findChildren<QWidget *>();
            for (QWidget *w : widgets) {
                if (!w->isVisibleTo(&wizard) || w->width() <= 0)
                    continue;
                if (!qobject_cast<QLabel *>(w) && !qobject_cast<QAbstractButton *>(w))
                    continue;
                ++checked;
                const QString why = test::clipped(w);
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
                wizard.grab().save(shots + QStringLiteral("/%1-%2%3.png").arg(language, name, variant));
            }
        }
        problems.removeDuplicates();
        for (const QString &p : std::as_const(problems))
            qWarning().noquote() << "clipped:" << p;
        QVERIFY(checked > 20);
        QVERIFY2(problems.isEmpty(),
                 qPrintable(QStringLiteral("%1 texts do not fit (listed above)").arg(problems.size())));
    }

    // The same check on a screen with device pixel ratio 2, in a child process started with
    // QT_SCALE_FACTOR=2 (the factor cannot change once the application runs).
    void everyPageFits_atDevicePixelRatio2()
    {
        if (qEnvironmentVariableIsSet("TFSETUP_PAGESFIT_DPR"))
            QSKIP("this is the child");
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_SCALE_FACTOR"), QStringLiteral("2"));
        env.insert(QStringLiteral("TFSETUP_PAGESFIT_DPR"), QStringLiteral("2"));
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("everyPageFits")});
        QVERIFY(child.waitForFinished(240'000));
        const QString output = QString::fromLocal8Bit(child.readAll());
        for (const QString &line : output.split(u'\n')) {
            if (line.startsWith(QLatin1String("FAIL")) || line.contains(QLatin1String("clipped:"))
                || line.startsWith(QLatin1String("Totals")))
                qInfo().noquote() << "dpr 2:" << line;
        }
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 qPrintable(QStringLiteral("at device pixel ratio 2 (output above)")));
        QVERIFY(output.contains(QLatin1String("PASS   : TestPagesFit::everyPageFits(en)")));
    }

private:
    QTemporaryDir m_home;
    std::unique_ptr<core::RootedSystem> m_system;
    core::HardwareReport m_report;
};

QTEST_MAIN(TestPagesFit)
#include "test_pagesfit.moc"
