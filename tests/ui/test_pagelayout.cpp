// Every page of the wizard in the states a student meets it in — as it opens, after Test
// connection failed, with an offline bundle, after an error, with a verify that failed, with the
// Repair page's findings — in English and Simplified Chinese, at the wizard's own size (720×540)
// and at a laptop's 1366×768. Each fails when a visible widget is squeezed below its minimum size
// hint, when a label's or a button's text is cut, or when two controls on one page share a
// mnemonic letter (tests/ui/layoutcheck.h). With TFSETUP_SCREENSHOT_DIR set every state is saved
// there as layout-<language>-<width>x<height>-<page>[-<state>].png, to be looked at.

#include "detect/detector.h"
#include "fakeenvironment.h"
#include "layoutcheck.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/steprail.h"
#include "ui/welcomepage.h"
#include "uitest.h"
#include "util/i18n.h"

#include <QApplication>
#include <QCoro/QCoroTask>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <functional>

using namespace tfsetup;

namespace {

// One state of one page: how to reach it from the page as it opens.
struct PageState {
    QString name;
    int page;
    std::function<void(ui::SetupWizard &)> prepare;
    bool withEnvironments = false; // on the machine with two recorded environments
};

QList<PageState> states()
{
    using W = ui::SetupWizard;
    QList<PageState> out;
    for (const int id : {W::WelcomePageId, W::DetectPageId, W::ChoosePageId, W::OptionsPageId, W::DownloadPageId,
                         W::InstallPageId, W::VerifyPageId, W::FinishPageId, W::RepairPageId, W::LabProfilePageId})
        out.append({QString(), id, {}});
    out.append({QStringLiteral("continue"), W::WelcomePageId, [](W &wizard) {
                    wizard.welcomePage()->setSavedSetup(QStringLiteral("tf2.10-cuda11.2"), 1'288'490'188,
                                                        2'791'728'742);
                }});
    out.append({QStringLiteral("environments"), W::WelcomePageId,
                [](W &wizard) {
                    wizard.welcomePage()->setSavedSetup(QStringLiteral("tf2.15-gpu"), 288'490'188, 791'728'742);
                    QTRY_COMPARE_WITH_TIMEOUT(wizard.welcomePage()->environments().size(), 2, 20'000);
                },
                true});
    out.append({QStringLiteral("environments"), W::RepairPageId, {}, true});
    out.append({QStringLiteral("tested"), W::OptionsPageId, [](W &wizard) {
                    // Every address points at a closed port: the test fails, as on a blocked network.
                    auto *button = test::child<QPushButton>(wizard.optionsPage(),
                                                            QStringLiteral("testConnectionButton"));
                    button->click();
                    QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 20'000);
                    QTest::qWait(200);
                }});
    out.append({QStringLiteral("proxy"), W::OptionsPageId, [](W &wizard) {
                    auto *proxy = test::child<QLineEdit>(wizard.optionsPage(), QStringLiteral("proxyEdit"));
                    proxy->setText(QStringLiteral("http://127.0.0.1:1"));
                    auto *button = test::child<QPushButton>(wizard.optionsPage(),
                                                            QStringLiteral("testConnectionButton"));
                    button->click();
                    QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 20'000);
                    QTest::qWait(200);
                }});
    out.append({QStringLiteral("bundle"), W::OptionsPageId, [](W &wizard) {
                    // A folder that is no bundle: the page says so where its messages go.
                    test::child<QLineEdit>(wizard.optionsPage(), QStringLiteral("bundleEdit"))
                        ->setText(QDir::tempPath() + QStringLiteral("/no bundle here"));
                    QTest::qWait(300);
                }});
    out.append({QStringLiteral("next"), W::OptionsPageId, [](W &wizard) {
                    wizard.next(); // resolves against closed ports: the page shows why it stays
                    QTest::qWait(1500);
                }});
    out.append({QStringLiteral("advanced"), W::ChoosePageId, [](W &wizard) {
                    auto *tabs = test::child<QTabWidget>(wizard.choosePage(), QStringLiteral("choiceTabs"));
                    tabs->setCurrentIndex(tabs->count() - 1);
                    QTest::qWait(100);
                }});
    out.append({QStringLiteral("glance"), W::ChoosePageId, [](W &wizard) {
                    auto *tabs = test::child<QTabWidget>(wizard.choosePage(), QStringLiteral("choiceTabs"));
                    tabs->setCurrentWidget(test::child<QWidget>(wizard.choosePage(), QStringLiteral("compatView")));
                    QTest::qWait(100);
                }});
    out.append({QStringLiteral("alternatives"), W::ChoosePageId, [](W &wizard) {
                    auto *tabs = test::child<QTabWidget>(wizard.choosePage(), QStringLiteral("choiceTabs"));
                    tabs->setCurrentIndex(std::min(1, tabs->count() - 1));
                    QTest::qWait(100);
                }});
    return out;
}

} // namespace

class TestPageLayout : public QObject {
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

        // A second machine, Linux, with two environments tfsetup made: one verified, one whose
        // verify failed, one with a long Chinese name.
        QVERIFY(m_envRoot.isValid());
        QVERIFY(test::makeEnvironment(m_envRoot.path(), QStringLiteral("course")));
        QVERIFY(test::makeEnvironment(m_envRoot.path(), QStringLiteral("毕业论文 thesis experiments")));
        const QString envs = m_envRoot.path() + QStringLiteral("/home/u/tfsetup-envs/");
        QVERIFY(test::writeFile(envs + QStringLiteral("course/logs/last-verify.json"),
                                R"({"schema": 1, "passed": true, "date": "2026-12-04T10:00:00Z"})"));
        QVERIFY(test::writeFile(envs + QStringLiteral("毕业论文 thesis experiments/logs/last-verify.json"),
                                R"({"schema": 1, "passed": false, "date": "2026-12-04T10:00:00Z",
                                    "failed_layer": "libraries", "message": "libcudnn.so.8 could not be loaded"})"));
        m_envSystem = std::make_unique<core::RootedSystem>(
            m_envRoot.path(), core::OsFamily::Linux,
            QHash<QString, QString>{{QStringLiteral("HOME"), QStringLiteral("/home/u")}});
    }

    void everyStateHolds_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QSize>("size");
        for (const QString &language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            for (const QSize size : {QSize(720, 540), QSize(1366, 768)}) {
                QTest::newRow(qPrintable(QStringLiteral("%1 %2x%3").arg(language).arg(size.width()).arg(size.height())))
                    << language << size;
            }
        }
    }

    void everyStateHolds()
    {
        QFETCH(QString, language);
        QFETCH(QSize, size);
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            QDir().mkpath(shots);
        QStringList problems;
        int walked = 0;
        for (const PageState &state : states()) {
            ui::SetupWizard wizard(state.withEnvironments ? *m_envSystem : *m_system, &translations);
            wizard.state().setHardware(m_report);
            if (state.page == ui::SetupWizard::RepairPageId)
                wizard.state().setMode(ui::WizardState::Mode::Repair);
            core::SetupOptions offline;
            offline.network.originOverrides = test::presetsOnClosedPort();
            wizard.optionsPage()->suggestOptions(offline);
            wizard.resize(size);
            wizard.show();
            QVERIFY(QTest::qWaitForWindowExposed(&wizard));
            QCOMPARE(wizard.size(), size.expandedTo(wizard.minimumSize()));
            wizard.setStartId(state.page);
            wizard.restart();
            QTest::qWait(400); // pages that solve or scan in the background settle
            if (state.prepare)
                state.prepare(wizard);
            if (QTest::currentTestFailed())
                return;
            QVERIFY(wizard.currentPage());
            const QString name = wizard.currentPage()->objectName()
                + (state.name.isEmpty() ? QString() : QStringLiteral("-") + state.name);
            if (state.page == ui::SetupWizard::WelcomePageId && state.withEnvironments && language == u"zh_CN") {
                // Dates in the language shown, not "4 Dec 2026" inside Chinese.
                const auto *list = test::child<QTreeWidget>(wizard.welcomePage(), QStringLiteral("environmentList"));
                const QString lastVerify = list->topLevelItem(0)->text(4) + list->topLevelItem(1)->text(4);
                QVERIFY2(
                    lastVerify.contains(
                        QLocale(QLocale::Chinese, QLocale::China).toString(QDate(2026, 12, 4), QLocale::ShortFormat)),
                    qPrintable(lastVerify));
                QVERIFY2(!lastVerify.contains(QLatin1String("Dec")), qPrintable(lastVerify));
            }
            problems += test::layoutProblems(&wizard, name);
            // The step rail marks where the student is.
            QVERIFY(wizard.stepRail()->isVisible());
            ++walked;
            if (!shots.isEmpty()) {
                wizard.grab().save(shots
                                   + QStringLiteral("/layout-%1-%2x%3-%4.png")
                                         .arg(language)
                                         .arg(size.width())
                                         .arg(size.height())
                                         .arg(name));
            }
        }
        problems.removeDuplicates();
        for (const QString &p : std::as_const(problems))
            qWarning().noquote() << "layout:" << p;
        QVERIFY(walked >= 15);
        QVERIFY2(problems.isEmpty(),
                 qPrintable(QStringLiteral("%1 layout problems (listed above)").arg(problems.size())));
    }

    // A dark desktop gets a dark wizard: the pages and the step rail draw with the palette they
    // are given, with no light colour of their own over large areas.
    void darkPaletteFollowed()
    {
        const QPalette normal = QApplication::palette();
        const auto restore = qScopeGuard([normal] { QApplication::setPalette(normal); });
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(45, 45, 48));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::AlternateBase, QColor(55, 55, 60));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        dark.setColor(QPalette::Button, QColor(60, 60, 64));
        dark.setColor(QPalette::ButtonText, QColor(230, 230, 230));
        dark.setColor(QPalette::Highlight, QColor(42, 130, 218));
        dark.setColor(QPalette::HighlightedText, QColor(255, 255, 255));
        dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
        QApplication::setPalette(dark);
        const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
        for (const int id : {ui::SetupWizard::WelcomePageId, ui::SetupWizard::DetectPageId,
                             ui::SetupWizard::ChoosePageId, ui::SetupWizard::OptionsPageId}) {
            ui::SetupWizard wizard(*m_system, nullptr);
            wizard.state().setHardware(m_report);
            core::SetupOptions offline;
            offline.network.originOverrides = test::presetsOnClosedPort();
            wizard.optionsPage()->suggestOptions(offline);
            wizard.resize(1366, 768);
            wizard.show();
            QVERIFY(QTest::qWaitForWindowExposed(&wizard));
            wizard.setStartId(id);
            wizard.restart();
            QTest::qWait(400);
            if (id == ui::SetupWizard::ChoosePageId) {
                // The compatibility grid, whose cells are tinted.
                auto *tabs = test::child<QTabWidget>(wizard.choosePage(), QStringLiteral("choiceTabs"));
                tabs->setCurrentWidget(test::child<QWidget>(wizard.choosePage(), QStringLiteral("compatView")));
                QTest::qWait(100);
            }
            const QImage image = wizard.currentPage()->grab().toImage();
            qint64 light = 0;
            qint64 all = 0;
            for (int y = 0; y < image.height(); y += 4) {
                for (int x = 0; x < image.width(); x += 4) {
                    ++all;
                    if (QColor(image.pixel(x, y)).lightness() > 200)
                        ++light;
                }
            }
            QVERIFY2(light * 10 < all,
                     qPrintable(QStringLiteral("%1: %2 of %3 sampled pixels are light")
                                    .arg(wizard.currentPage()->objectName())
                                    .arg(light)
                                    .arg(all)));
            if (!shots.isEmpty())
                wizard.grab().save(shots
                                   + QStringLiteral("/layout-dark-%1.png").arg(wizard.currentPage()->objectName()));
        }
    }

    // The rules themselves: a checker that never fires proves nothing.
    void checksCatchWhatTheyShould()
    {
        QWidget page;
        auto *edit = new QLineEdit(&page);
        edit->setGeometry(0, 0, 200, 4);
        auto *label = new QLabel(QStringLiteral("A long sentence that cannot fit in thirty pixels"), &page);
        label->setGeometry(0, 10, 30, 20);
        page.show();
        QVERIFY(!test::squeezed(edit).isEmpty());
        QVERIFY(!test::clipped(label).isEmpty());
        QCOMPARE(test::mnemonic(QStringLiteral("Use a &proxy")), QChar(u'p'));
        QCOMPARE(test::mnemonic(QStringLiteral("Tom && &Jerry")), QChar(u'j'));
        QVERIFY(test::mnemonic(QStringLiteral("R&&D")).isNull());

        QWizard wizard;
        auto *wizardPage = new QWizardPage;
        auto *one = new QPushButton(QStringLiteral("&Proxy"), wizardPage);
        auto *two = new QPushButton(QStringLiteral("&Python"), wizardPage);
        two->move(0, 40);
        Q_UNUSED(one);
        wizard.addPage(wizardPage);
        wizard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&wizard));
        QCOMPARE(test::sharedMnemonics(&wizard).size(), 1);
        QVERIFY(test::sharedMnemonics(&wizard).constFirst().contains(QLatin1String("Python")));
    }

private:
    QTemporaryDir m_home;
    std::unique_ptr<core::RootedSystem> m_system;
    core::HardwareReport m_report;
    QTemporaryDir m_envRoot;
    std::unique_ptr<core::RootedSystem> m_envSystem;
};

QTEST_MAIN(TestPageLayout)
#include "test_pagelayout.moc"
