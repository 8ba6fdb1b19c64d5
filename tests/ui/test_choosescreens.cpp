// The Choose page holds its layout in every tab, in English and Chinese, at the smallest window
// the wizard supports and at a common laptop size: no text cut, no field squeezed, no mnemonic
// twice, and the summary takes only the room its text needs, the tabs under it the rest. With
// TFSETUP_SCREENSHOT_DIR set, each state is also saved as a PNG to look at. The two-GPU machine
// (a K40c and a V100) shows the GPU choice, with the GPU the plan cannot use disabled and why.

#include "layoutcheck.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/setupwizard.h"
#include "util/i18n.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;

namespace {

core::HardwareReport cannedReport(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/") + name + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read canned report %s", qPrintable(f.fileName()));
    return core::HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
}

} // namespace

class TestChooseScreens final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyTab_fits_data();
    void everyTab_fits();
};

void TestChooseScreens::everyTab_fits_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("report");
    QTest::addColumn<QSize>("size");
    for (const char *language : {"en", "zh_CN"}) {
        for (const char *report :
             {"windows_gtx1060_old_driver", "linux_rtx3060_driver535", "linux_k40c_v100_driver470"}) {
            for (const QSize size : {QSize(720, 540), QSize(1366, 768)}) {
                QTest::addRow("%s %s %dx%d", language, report, size.width(), size.height())
                    << QString::fromLatin1(language) << QString::fromLatin1(report) << size;
            }
        }
    }
}

void TestChooseScreens::everyTab_fits()
{
    QFETCH(QString, language);
    QFETCH(QString, report);
    QFETCH(QSize, size);

    QTemporaryDir root;
    QVERIFY(root.isValid());
    core::RootedSystem system(root.path(), core::OsFamily::Linux, QHash<QString, QString>{});
    core::Translations translations;
    QVERIFY(translations.setLanguage(language));
    ui::SetupWizard wizard(system, &translations);
    wizard.state().setHardware(cannedReport(report));
    wizard.setStartId(ui::SetupWizard::ChoosePageId);
    ui::ChoosePage *page = wizard.choosePage();
    QSignalSpy solved(page, &ui::ChoosePage::solved);
    wizard.resize(size);
    wizard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wizard));
    QVERIFY(solved.count() > 0 || solved.wait(10'000));
    QTest::qWait(50);

    auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("choiceTabs"));
    auto *summary = page->findChild<QScrollArea *>(QStringLiteral("summaryArea"));
    QVERIFY(tabs && summary);
    // The summary is no taller than its text: the room below it goes to the tabs.
    // (Wrapped text changes height with width: the layout settles after a pass or two.)
    QWidget *content = summary->widget();
    const auto needed = [summary, content] {
        return content->heightForWidth(summary->viewport()->width()) + 2 * summary->frameWidth();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(
        summary->height() <= std::max(needed(), 0) + 8,
        qPrintable(QStringLiteral("summary %1 px, its text %2 px").arg(summary->height()).arg(needed())), 2000);
    QVERIFY2(tabs->height() >= tabs->minimumHeight(), qPrintable(QString::number(tabs->height())));
    if (report == u"linux_k40c_v100_driver470") {
        auto *gpus = page->findChild<QWidget *>(QStringLiteral("gpuBox"));
        QVERIFY(gpus && gpus->isVisible());
        QCOMPARE(page->findChildren<QCheckBox *>(QRegularExpression(QStringLiteral("^gpuCheck\\d+$"))).size(), 2);
    }

    const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
    QStringList problems;
    for (int tab = 0; tab < tabs->count(); ++tab) {
        tabs->setCurrentIndex(tab);
        QTest::qWait(20);
        const QString where =
            QStringLiteral("%1 %2 %3x%4 tab %5").arg(language, report).arg(size.width()).arg(size.height()).arg(tab);
        problems += test::layoutProblems(&wizard, where);
        if (!shots.isEmpty()) {
            QDir().mkpath(shots);
            wizard.grab().save(shots
                               + QStringLiteral("/choose-%1-%2-%3x%4-tab%5.png")
                                     .arg(language, report)
                                     .arg(size.width())
                                     .arg(size.height())
                                     .arg(tab));
        }
    }
    // No column of the combinations is narrower than its longest word or its header: a sliver of a
    // column breaks words ("NVI/DIA") and cuts its title.
    tabs->setCurrentIndex(0);
    QTest::qWait(20);
    auto *table = page->findChild<QTableWidget *>(QStringLiteral("alternativesTable"));
    QVERIFY(table && table->rowCount() > 0);
    const QFontMetrics metrics(table->font());
    const QFontMetrics headerMetrics(table->horizontalHeader()->font());
    for (int column = 0; column < table->columnCount(); ++column) {
        const int width = table->columnWidth(column);
        const QString title = table->horizontalHeaderItem(column)->text();
        if (headerMetrics.horizontalAdvance(title) + 6 > width)
            problems.append(QStringLiteral("%1 %2 %3x%4: column \"%5\" is %6 px, narrower than its title")
                                .arg(language, report)
                                .arg(size.width())
                                .arg(size.height())
                                .arg(title)
                                .arg(width));
        for (int row = 0; row < table->rowCount(); ++row) {
            if (table->isRowHidden(row))
                continue; // "Show all" unticked: its columns are sized to the rows shown
            const QTableWidgetItem *item = table->item(row, column);
            for (const QString &word : (item ? item->text() : QString()).split(u' ', Qt::SkipEmptyParts)) {
                // Chinese wraps between any two characters: only words of Latin letters stay whole.
                const bool latin = std::all_of(word.cbegin(), word.cend(), [](QChar c) { return c.unicode() < 0x250; });
                if (latin && metrics.horizontalAdvance(word) + 6 > width) {
                    problems.append(QStringLiteral("%1 %2 %3x%4: \"%5\" does not fit column \"%6\" (%7 px)")
                                        .arg(language, report)
                                        .arg(size.width())
                                        .arg(size.height())
                                        .arg(word, title)
                                        .arg(width));
                    break;
                }
            }
        }
    }
    for (const QString &p : std::as_const(problems))
        qWarning().noquote() << p;
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 layout problems (listed above)").arg(problems.size())));
}

QTEST_MAIN(TestChooseScreens)
#include "test_choosescreens.moc"
