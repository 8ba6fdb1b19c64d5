// The Choose page: solves for the detected machine off the GUI thread, says what it recommends in
// plain words, offers alternatives, greys what does not fit with the reasons, re-solves on pins and
// commits the chosen plan. Driven by objectName over canned hardware reports.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "setup/plandownloads.h"
#include "solver/routenames.h"
#include "solver/solver.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/compatview.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "layoutcheck.h"
#include "uitest.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoro/QCoroTask>
#include <QDir>
#include <QFile>
#include <QFrame>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "util/i18n.h"

using namespace tfsetup;
using test::LoopbackServer;
using test::Response;

namespace {

core::HardwareReport cannedReport(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/") + name + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read canned report %s", qPrintable(f.fileName()));
    return core::HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
}

// What the solver says on its own for the same report: the page must show the same plan.
core::Solution solveDirectly(const core::HardwareReport &report, const core::SolverConstraints &constraints = {})
{
    static const auto catalog = core::Catalog::load();
    static const auto gpus = core::GpuTable::load();
    return core::Solver(*catalog, gpus ? &*gpus : nullptr).solve(report, constraints);
}

template<typename T>
T *child(QWidget *parent, const char *name)
{
    auto *widget = parent->findChild<T *>(QLatin1String(name));
    if (!widget)
        qFatal("no child %s", name);
    return widget;
}

QString planKey(const core::Plan &plan)
{
    return plan.route + u'|' + plan.tensorflow + u'|' + plan.python;
}

} // namespace

class TestChoosePage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void cannedReport_showsRecommendation_data();
    void cannedReport_showsRecommendation();
    void rejections_areGreyedWithReasons();
    void pinTensorflow_solvesAgain();
    void pinPython_solvesAgain();
    void cpuOnly_isAValidChoice();
    void alternative_isCommittedToState();
    void nothingFits_keepsNextDisabledAndSaysWhatToDo();
    void backAndNext_keepsChoiceWithoutSolvingAgain();
    void newScan_solvesAgain();
    void cpuAlternative_isTheFallbackBesideAGpuPlan();
    void list_showsWhatMattersAndTheRestBehindShowAll();
    void rejectionReasons_areWholeForTheKeyboard();
    void totalSize_isShownAndHonest();
    void shownCuda_isTheCudaFetched();
    void totalSize_isLookedUpInTheBackground();
    void totalSize_saysWhyWhenNothingAnswers();
    void totalSize_screenshots();
    void compatGrid_showsWhyEachCombinationFits();
    void routeNames_areWordsNotIds();
    void tabLabels_stayWhenShowAllToggles();
    void mnemonics_areUniqueOnEveryTab();

private:
    // Opens the wizard on the Choose page for a report and waits for the first solution.
    void openFor(const core::HardwareReport &report);
    // A row of the RTX 3060's combinations whose NVIDIA manifests are in tests/data/manifests and
    // whose Python is installed: its files can be looked up from a loopback server alone.
    int servableRow(core::Plan *plan) const;
    QString testSources() const;
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::ChoosePage *m_page = nullptr;
};

void TestChoosePage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux, QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->choosePage();
    QVERIFY(m_page);
    QCOMPARE(m_page->objectName(), QStringLiteral("choosePage"));
}

void TestChoosePage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestChoosePage::openFor(const core::HardwareReport &report)
{
    m_wizard->state().setHardware(report);
    m_wizard->setStartId(ui::SetupWizard::ChoosePageId);
    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    QVERIFY(solved.count() > 0 || solved.wait(10'000));
}

void TestChoosePage::cannedReport_showsRecommendation_data()
{
    QTest::addColumn<QString>("report");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("gpuInSentence");
    QTest::addColumn<QString>("userAction");    // shown in the actions box; empty: none
    QTest::addColumn<QString>("rejectedRoute"); // a rejection listed greyed
    QTest::addColumn<QString>("rejectedCode");

    QTest::newRow("rtx 3060 on linux") << QStringLiteral("linux_rtx3060_driver535") << QStringLiteral("linux-pip")
                                       << QStringLiteral("NVIDIA GeForce RTX 3060") << QString()
                                       << QStringLiteral("windows-native") << QStringLiteral("os_unsupported");
    QTest::newRow("gtx 1060 on windows, old driver")
        << QStringLiteral("windows_gtx1060_old_driver") << QStringLiteral("windows-native")
        << QStringLiteral("NVIDIA GeForce GTX 1060 6GB") << QStringLiteral("update_driver")
        << QStringLiteral("windows-native") << QStringLiteral("windows_native_gpu_unsupported");
    QTest::newRow("no gpu") << QStringLiteral("linux_no_gpu") << QStringLiteral("cpu") << QString() << QString()
                            << QStringLiteral("linux-pip") << QStringLiteral("no_nvidia_gpu");
}

void TestChoosePage::cannedReport_showsRecommendation()
{
    QFETCH(QString, report);
    QFETCH(QString, route);
    QFETCH(QString, gpuInSentence);
    QFETCH(QString, userAction);
    QFETCH(QString, rejectedRoute);
    QFETCH(QString, rejectedCode);

    const core::HardwareReport hardware = cannedReport(report);
    const core::Solution expected = solveDirectly(hardware);
    QVERIFY(expected.recommended);
    QCOMPARE(expected.recommended->route, route);

    openFor(hardware);
    QVERIFY(m_page->isComplete());
    QVERIFY(nextButton()->isEnabled());
    QVERIFY(m_page->chosenPlan());
    QCOMPARE(planKey(*m_page->chosenPlan()), planKey(*expected.recommended));

    // One plain sentence: the release, the GPU (or the processor) and the Python.
    const QString sentence = child<QLabel>(m_page, "recommendationLabel")->text();
    QVERIFY2(sentence.startsWith(QLatin1String("Recommended: TensorFlow ")
                                 + core::version::majorMinor(expected.recommended->tensorflow)),
             qPrintable(sentence));
    QVERIFY2(sentence.contains(QLatin1String("Python ") + expected.recommended->python), qPrintable(sentence));
    if (gpuInSentence.isEmpty())
        QVERIFY2(sentence.contains(QLatin1String("processor only")), qPrintable(sentence));
    else
        QVERIFY2(sentence.contains(gpuInSentence), qPrintable(sentence));
    QCOMPARE(child<QLabel>(m_page, "whyLabel")->text(), expected.recommended->why);

    // What the student must do is shown with its plain explanation; what tfsetup does is not.
    auto *actions = child<QFrame>(m_page, "actionsBox");
    QCOMPARE(actions->isVisible(), !userAction.isEmpty());
    if (!userAction.isEmpty()) {
        auto *label = actions->findChild<QLabel *>(QStringLiteral("action_") + userAction);
        QVERIFY(label);
        QVERIFY(label->text().contains(QLatin1String("driver download page")));
        QVERIFY(!actions->findChild<QLabel *>(QStringLiteral("action_install_cuda")));
    }

    const QString downloads = child<QLabel>(m_page, "downloadsLabel")->text();
    QVERIFY2(downloads.contains(expected.recommended->requirement()), qPrintable(downloads));
    QVERIFY2(downloads.contains(QLatin1String("Total download:")), qPrintable(downloads));
    // A toolkit route brings NVIDIA's libraries whatever the machine has installed.
    if (!expected.recommended->libraries.isEmpty())
        QVERIFY2(downloads.contains(QLatin1String("cuDNN ") + expected.recommended->cudnn), qPrintable(downloads));

    // Every plan the solver offers is a row, the recommended one first and selected.
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    QCOMPARE(table->rowCount(), int(expected.alternatives.size()) + 1);
    QCOMPARE(table->currentRow(), 0);
    QVERIFY(table->item(0, 0)->text().contains(QLatin1String("recommended")));

    auto *tree = child<QTreeWidget>(m_page, "rejectedTree");
    QCOMPARE(tree->topLevelItemCount(), int(expected.rejected.size()));
    const core::Rejection *rejection = expected.rejection(rejectedRoute);
    if (!rejection) {
        for (const core::Rejection &r : expected.rejected) {
            if (r.route == rejectedRoute && r.has(rejectedCode)) {
                rejection = &r;
                break;
            }
        }
    }
    QVERIFY(rejection);
    QVERIFY(rejection->has(rejectedCode));
    bool shown = false;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        if (tree->topLevelItem(i)->toolTip(0).contains(rejection->reasons.first().message))
            shown = true;
    }
    QVERIFY(shown);
}

void TestChoosePage::rejections_areGreyedWithReasons()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    const core::Solution expected = solveDirectly(hardware);
    openFor(hardware);

    auto *tabs = m_page->findChild<QTabWidget *>(QStringLiteral("choiceTabs"));
    QVERIFY(tabs);
    auto *tree = child<QTreeWidget>(m_page, "rejectedTree");
    tabs->setCurrentWidget(tree);
    QVERIFY(tree->isVisible());
    QVERIFY(tabs->tabText(tabs->indexOf(tree)).contains(QString::number(expected.rejected.size())));

    const QColor grey = tree->palette().color(QPalette::Disabled, QPalette::Text);
    QCOMPARE(tree->topLevelItemCount(), int(expected.rejected.size()));
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = tree->topLevelItem(i);
        const core::Rejection &rejection = expected.rejected.at(i);
        QVERIFY2(!(item->flags() & Qt::ItemIsSelectable), qPrintable(item->text(1)));
        QCOMPARE(item->foreground(0).color(), grey);
        // Each reason is a child row (expandable details) and part of the tooltip.
        QCOMPARE(item->childCount(), int(rejection.reasons.size()));
        for (int r = 0; r < rejection.reasons.size(); ++r) {
            QCOMPARE(item->child(r)->text(2), rejection.reasons.at(r).message);
            QVERIFY(item->toolTip(0).contains(rejection.reasons.at(r).message));
        }
        QCOMPARE(item->text(2), rejection.reasons.first().message);
    }
    // A release rejected for native Windows names that release.
    const auto items = tree->findItems(QStringLiteral("2.11"), Qt::MatchExactly, 0);
    QCOMPARE(items.size(), 1);
    QVERIFY(items.first()->toolTip(0).contains(QLatin1String("WSL2")));
}

void TestChoosePage::pinTensorflow_solvesAgain()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("linux_rtx3060_driver535"));
    openFor(hardware);
    const QString recommended = core::version::majorMinor(m_page->chosenPlan()->tensorflow);

    // Pin the newest release that is neither the recommendation nor a 1.x one.
    auto *combo = child<QComboBox>(m_page, "tfVersionCombo");
    QVERIFY(combo->count() > 2);
    QCOMPARE(combo->currentIndex(), 0); // "Best for this computer"
    int pinned = -1;
    for (int i = 1; i < combo->count() && pinned < 0; ++i) {
        const QString v = combo->itemData(i).toString();
        if (v != recommended && v.startsWith(QLatin1String("2.")) && core::version::less(v, recommended))
            pinned = i;
    }
    QVERIFY(pinned > 0);
    const QString version = combo->itemData(pinned).toString();
    QVERIFY(combo->itemText(pinned).contains(version));

    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    combo->setCurrentIndex(pinned);
    // A solve with the catalog already loaded may answer before control returns here.
    QVERIFY(solved.count() == 1 || solved.wait(10'000));

    QCOMPARE(m_page->constraints().tensorflow, version);
    QVERIFY(m_page->chosenPlan());
    QCOMPARE(core::version::majorMinor(m_page->chosenPlan()->tensorflow), version);
    QVERIFY(child<QLabel>(m_page, "recommendationLabel")->text().contains(QLatin1String("TensorFlow ") + version));
    const core::Solution expected = solveDirectly(hardware, m_page->constraints());
    QCOMPARE(planKey(*m_page->chosenPlan()), planKey(*expected.recommended));
    QVERIFY(nextButton()->isEnabled());

    // Back to the solver's own choice.
    combo->setCurrentIndex(0);
    QVERIFY(solved.count() == 2 || solved.wait(10'000));
    QCOMPARE(core::version::majorMinor(m_page->chosenPlan()->tensorflow), recommended);
}

void TestChoosePage::pinPython_solvesAgain()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("linux_rtx3060_driver535"));
    openFor(hardware);
    const QString installed = m_page->chosenPlan()->python;

    auto *combo = child<QComboBox>(m_page, "pythonVersionCombo");
    int pinned = -1;
    for (int i = 1; i < combo->count() && pinned < 0; ++i) {
        const QString v = combo->itemData(i).toString();
        core::SolverConstraints c;
        c.python = v;
        const core::Solution s = solveDirectly(hardware, c);
        if (v != installed && s.recommended && s.recommended->route != u"cpu")
            pinned = i;
    }
    QVERIFY(pinned > 0);
    const QString python = combo->itemData(pinned).toString();

    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    combo->setCurrentIndex(pinned);
    QVERIFY(solved.count() == 1 || solved.wait(10'000));
    QCOMPARE(m_page->chosenPlan()->python, python);
    QVERIFY(!m_page->chosenPlan()->pythonInstalled);
    // A Python that is not installed is something tfsetup brings, so it is listed as a download.
    QVERIFY(child<QLabel>(m_page, "downloadsLabel")->text().contains(QLatin1String("Python ") + python));
}

void TestChoosePage::cpuOnly_isAValidChoice()
{
    openFor(cannedReport(QStringLiteral("linux_rtx3060_driver535")));
    QVERIFY(m_page->chosenPlan()->route != u"cpu");

    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    child<QCheckBox>(m_page, "cpuOnlyCheck")->setChecked(true);
    QVERIFY(solved.count() == 1 || solved.wait(10'000));
    QCOMPARE(m_page->chosenPlan()->route, QStringLiteral("cpu"));
    QVERIFY(child<QLabel>(m_page, "recommendationLabel")->text().contains(QLatin1String("processor only")));
    QVERIFY(nextButton()->isEnabled());

    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId)); // the page after Choose
    QVERIFY(m_wizard->state().plan());
    QCOMPARE(m_wizard->state().plan()->route, QStringLiteral("cpu"));
    QVERIFY(m_wizard->state().constraints().cpuOnly);
}

void TestChoosePage::alternative_isCommittedToState()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    const core::Solution expected = solveDirectly(hardware);
    QVERIFY(expected.alternatives.size() > 3);
    openFor(hardware);

    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    // Row 0 is the recommendation; row 3 is the solver's third alternative.
    table->setCurrentCell(3, 0);
    QCOMPARE(planKey(*m_page->chosenPlan()), planKey(expected.alternatives.at(2)));
    const QString sentence = child<QLabel>(m_page, "recommendationLabel")->text();
    QVERIFY2(sentence.startsWith(QLatin1String("Your choice: TensorFlow ")), qPrintable(sentence));
    QCOMPARE(child<QLabel>(m_page, "whyLabel")->text(), expected.alternatives.at(2).why);
    QVERIFY(table->item(3, 0)->toolTip().contains(expected.alternatives.at(2).why));

    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId)); // the page after Choose
    QVERIFY(m_wizard->state().plan());
    QCOMPARE(planKey(*m_wizard->state().plan()), planKey(expected.alternatives.at(2)));
}

void TestChoosePage::nothingFits_keepsNextDisabledAndSaysWhatToDo()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("linux_cpu_without_avx"));
    const core::Solution expected = solveDirectly(hardware);
    QVERIFY(!expected.recommended);
    QVERIFY(expected.alternatives.isEmpty());
    openFor(hardware);

    QVERIFY(!m_page->chosenPlan());
    QVERIFY(!m_page->isComplete());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(!m_page->validatePage());
    QVERIFY(child<QLabel>(m_page, "recommendationLabel")->text().contains(QLatin1String("No TensorFlow combination")));
    auto *actions = child<QFrame>(m_page, "actionsBox");
    QVERIFY(actions->isVisible());
    QVERIFY(actions->findChild<QLabel *>(QStringLiteral("action_use_another_machine")));
    QVERIFY(!child<QLabel>(m_page, "downloadsLabel")->isVisible());
    QCOMPARE(child<QTreeWidget>(m_page, "rejectedTree")->topLevelItemCount(), int(expected.rejected.size()));
}

void TestChoosePage::backAndNext_keepsChoiceWithoutSolvingAgain()
{
    openFor(cannedReport(QStringLiteral("windows_gtx1060_old_driver")));
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    table->setCurrentCell(2, 0);
    const QString chosen = planKey(*m_page->chosenPlan());

    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId)); // the page after Choose
    m_wizard->back();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    QVERIFY(!m_page->isSolving());
    QCOMPARE(solved.count(), 0);
    QCOMPARE(table->currentRow(), 2);
    QCOMPARE(planKey(*m_page->chosenPlan()), chosen);
    QVERIFY(nextButton()->isEnabled());
}

void TestChoosePage::newScan_solvesAgain()
{
    openFor(cannedReport(QStringLiteral("linux_no_gpu")));
    QCOMPARE(m_page->chosenPlan()->route, QStringLiteral("cpu"));

    // As after "Scan again" on the Detect page: another report, the page solves for it.
    m_wizard->state().setHardware(cannedReport(QStringLiteral("linux_rtx3060_driver535")));
    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    m_page->initializePage();
    QVERIFY(solved.count() == 1 || solved.wait(10'000));
    QCOMPARE(m_page->chosenPlan()->route, QStringLiteral("linux-pip"));
}

void TestChoosePage::cpuAlternative_isTheFallbackBesideAGpuPlan()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("linux_rtx3060_driver535"));
    const core::Solution expected = solveDirectly(hardware);
    QVERIFY(expected.recommended && expected.recommended->route != u"cpu");
    openFor(hardware);

    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    int cpuRow = -1;
    for (int row = 1; row < table->rowCount() && cpuRow < 0; ++row) {
        if (expected.alternatives.at(row - 1).route == u"cpu")
            cpuRow = row;
    }
    QVERIFY(cpuRow > 0);
    // The best CPU plan is one of the rows shown without "Show all".
    QVERIFY(!table->isRowHidden(cpuRow));
    table->setCurrentCell(cpuRow, 0);
    QCOMPARE(m_page->chosenPlan()->route, QStringLiteral("cpu"));
    const QString why = child<QLabel>(m_page, "whyLabel")->text();
    // A GPU plan fits this machine: the CPU plan must not claim that none does.
    QVERIFY2(!why.contains(QLatin1String("No GPU route fits")), qPrintable(why));
    QVERIFY2(why.contains(QLatin1String("fallback")), qPrintable(why));
    QVERIFY(!table->item(cpuRow, 0)->toolTip().contains(QLatin1String("No GPU route fits")));

    // Without any GPU the old sentence is still the true one.
    const core::Solution cpuOnly = solveDirectly(cannedReport(QStringLiteral("linux_no_gpu")));
    QVERIFY(cpuOnly.recommended);
    QVERIFY(!cpuOnly.recommended->why.contains(QLatin1String("fallback")));
}

void TestChoosePage::list_showsWhatMattersAndTheRestBehindShowAll()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    const core::Solution expected = solveDirectly(hardware);
    openFor(hardware);
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    auto *tree = child<QTreeWidget>(m_page, "rejectedTree");
    auto *showAll = child<QCheckBox>(m_page, "showAllCheck");
    const auto visibleRows = [table] {
        int n = 0;
        for (int row = 0; row < table->rowCount(); ++row)
            n += table->isRowHidden(row) ? 0 : 1;
        return n;
    };
    const auto visibleRejections = [tree] {
        int n = 0;
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            n += tree->topLevelItem(i)->isHidden() ? 0 : 1;
        return n;
    };
    const int allRows = int(expected.alternatives.size()) + 1;
    QCOMPARE(table->rowCount(), allRows);
    QVERIFY(showAll->isVisible());
    QVERIFY(!showAll->isChecked());

    // A few rows: the recommendation first, nothing of TensorFlow 1.x or Python 3.6.
    const int shown = visibleRows();
    QVERIFY2(shown > 1 && shown < allRows, qPrintable(QString::number(shown)));
    QVERIFY(!table->isRowHidden(0));
    for (int row = 0; row < table->rowCount(); ++row) {
        if (table->isRowHidden(row))
            continue;
        QVERIFY2(!table->item(row, 0)->text().startsWith(QLatin1String("1.")), qPrintable(table->item(row, 0)->text()));
        QVERIFY2(table->item(row, 2)->text() != u"3.6", qPrintable(table->item(row, 0)->text()));
    }
    const int shownRejected = visibleRejections();
    QVERIFY(shownRejected > 0 && shownRejected < tree->topLevelItemCount());
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        if (!tree->topLevelItem(i)->isHidden())
            QVERIFY2(!tree->topLevelItem(i)->text(0).startsWith(QLatin1String("1.")),
                     qPrintable(tree->topLevelItem(i)->text(0)));
    }
    // "Show all" says how many of how many are shown; the tab keeps its label.
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    QVERIFY2(showAll->toolTip().contains(QStringLiteral("%1 of %2").arg(shown).arg(allRows)),
             qPrintable(showAll->toolTip()));

    // "Show all" (reachable by keyboard: a check box with a mnemonic) lists every row.
    QVERIFY(showAll->focusPolicy() & Qt::TabFocus);
    QVERIFY(showAll->text().contains(u'&'));
    showAll->click();
    QCOMPARE(visibleRows(), allRows);
    QCOMPARE(visibleRejections(), tree->topLevelItemCount());
    QVERIFY(tabs->tabText(0).contains(QString::number(allRows)));
    showAll->click();
    QCOMPARE(visibleRows(), shown);

    // A row chosen from the full list stays in sight when the list is short again.
    showAll->click();
    int oldRow = -1;
    for (int row = 1; row < table->rowCount() && oldRow < 0; ++row) {
        if (table->item(row, 0)->text().startsWith(QLatin1String("1.")) || table->item(row, 2)->text() == u"3.6")
            oldRow = row;
    }
    if (oldRow > 0) {
        table->setCurrentCell(oldRow, 0);
        showAll->click();
        QVERIFY(!table->isRowHidden(oldRow));
        QCOMPARE(table->currentRow(), oldRow);
    }
}

void TestChoosePage::rejectionReasons_areWholeForTheKeyboard()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    openFor(hardware);
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    auto *tree = child<QTreeWidget>(m_page, "rejectedTree");
    auto *details = child<QLabel>(m_page, "rejectionDetails");
    QVERIFY(!details->isVisible());
    tabs->setCurrentWidget(tree);
    // The first row shown is explained at once, whole and wrapped.
    QVERIFY(details->isVisible());
    QVERIFY(details->wordWrap());

    // Down and Up move through the rows; each one's every reason is there in full, no "…".
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Home);
    for (int step = 0; step < 3; ++step) {
        QTreeWidgetItem *item = tree->currentItem();
        QVERIFY(item);
        if (item->parent())
            item = item->parent();
        const QString text = details->text();
        for (int r = 0; r < item->childCount(); ++r)
            QVERIFY2(text.contains(item->child(r)->text(2)), qPrintable(text));
        QVERIFY(!text.contains(u'…'));
        QTest::keyClick(tree, Qt::Key_Down);
    }
    // Back on the combinations tab the details go away.
    tabs->setCurrentIndex(0);
    QVERIFY(!details->isVisible());
}

namespace {

// Selects another row and back, as a student would, so the summary is written again.
void reselect(QTableWidget *table, int row)
{
    table->setCurrentCell(row == 0 ? 1 : 0, 0);
    table->setCurrentCell(row, 0);
}

core::LockedWheel wheel(const QString &name, qint64 size)
{
    core::LockedWheel w;
    w.name = name;
    w.version = QStringLiteral("1.0");
    w.file = name + QStringLiteral("-1.0-py3-none-any.whl");
    w.size = size;
    w.sha256 = QByteArray(64, 'a');
    return w;
}

} // namespace

void TestChoosePage::totalSize_isShownAndHonest()
{
    openFor(cannedReport(QStringLiteral("linux_rtx3060_driver535")));
    auto *downloads = child<QLabel>(m_page, "downloadsLabel");
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    // Before the files are looked up nothing has a size: the page says so instead of a number.
    QVERIFY2(downloads->text().contains(QLatin1String("Total download: not known yet")), qPrintable(downloads->text()));
    // Without network settings given to the wizard (the Options page's) nothing is looked up.
    QVERIFY(!m_page->isLookingUpSizes());
    QVERIFY2(downloads->text().contains(QLatin1String("Total download: not known yet. tfsetup")),
             qPrintable(downloads->text()));

    // Back from Options: the resolver's list and pip's lock for this very plan give the total.
    const core::Plan plan = *m_page->chosenPlan();
    m_wizard->state().setPlan(plan);
    core::ArtifactList list;
    list.route = plan.route;
    list.tensorflow = plan.tensorflow;
    core::Artifact python;
    python.name = QStringLiteral("python");
    python.kind = QStringLiteral("python-archive");
    python.size = 30'000'000;
    core::Artifact wheelhouse; // pip's part: its wheels are counted from the lock
    wheelhouse.name = QStringLiteral("tensorflow");
    wheelhouse.kind = QStringLiteral("wheelhouse");
    list.artifacts = {python, wheelhouse};
    m_wizard->state().setArtifacts(list);
    core::PyLock lock;
    lock.packages = {wheel(QStringLiteral("tensorflow"), 600'000'000), wheel(QStringLiteral("numpy"), 18'000'000)};
    m_wizard->state().setLock(lock);
    reselect(table, 0);
    const QString total = QLocale().formattedDataSize(648'000'000, 1, QLocale::DataSizeTraditionalFormat);
    QVERIFY2(downloads->text().contains(QStringLiteral("Total download: %1.").arg(total)),
             qPrintable(downloads->text()));

    // One size unknown: a floor, said as one.
    lock.packages.append(wheel(QStringLiteral("keras"), -1));
    m_wizard->state().setLock(lock);
    reselect(table, 0);
    QVERIFY2(downloads->text().contains(QStringLiteral("Total download: at least %1; 1 more file").arg(total)),
             qPrintable(downloads->text()));

    // Another plan's list says nothing about this one.
    core::Plan other = plan;
    other.tensorflow = QStringLiteral("0.0.1");
    m_wizard->state().setPlan(other);
    reselect(table, 0);
    QVERIFY2(downloads->text().contains(QLatin1String("not known yet")), qPrintable(downloads->text()));
}

void TestChoosePage::shownCuda_isTheCudaFetched()
{
    // Native Windows, TensorFlow 2.10: tested with CUDA 11.2, whose manifest the sources catalog
    // does not pin and for which it names 11.8's as the stand-in the resolver falls back to.
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    const auto knowledge = core::Knowledge::shared();
    QVERIFY(knowledge);
    const core::SourceCatalog &sources = (*knowledge)->sources;
    const core::Solution expected = solveDirectly(hardware);
    QList<core::Plan> plans{*expected.recommended};
    plans += expected.alternatives;
    int row = -1;
    for (int i = 0; i < plans.size() && row < 0; ++i) {
        const auto pin = sources.cudaManifest(plans.at(i).cuda);
        if (!plans.at(i).libraries.isEmpty() && pin && pin->sha256.isEmpty() && !pin->fallback.isEmpty())
            row = i;
    }
    QVERIFY(row >= 0);
    const core::Plan plan = plans.at(row);
    const QString fallback = core::version::majorMinor(sources.cudaManifest(plan.cuda)->fallback);
    QVERIFY(fallback != core::version::majorMinor(plan.cuda));

    openFor(hardware);
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    auto *downloads = child<QLabel>(m_page, "downloadsLabel");
    child<QCheckBox>(m_page, "showAllCheck")->setChecked(true);
    table->setCurrentCell(row, 0);
    QCOMPARE(planKey(*m_page->chosenPlan()), planKey(plan));
    // Before the lookup: the stand-in by name, not the tested release alone.
    QVERIFY2(downloads->text().contains(
                 QStringLiteral("CUDA %1 libraries from NVIDIA, standing in for CUDA %2").arg(fallback, plan.cuda)),
             qPrintable(downloads->text()));
    // The table's CUDA column says it too.
    QCOMPARE(table->item(row, 3)->text(), QStringLiteral("%1 (%2's files)").arg(plan.cuda, fallback));

    // The resolver's answer for the committed plan is what the page shows from then on: the
    // archives' manifest names the release that comes down.
    const auto resolvedWith = [&](const QString &manifest) {
        core::ArtifactList list;
        list.route = plan.route;
        list.tensorflow = plan.tensorflow;
        core::Artifact cudart;
        cudart.name = QStringLiteral("cuda_cudart");
        cudart.kind = QStringLiteral("cuda-redist-archive");
        cudart.manifest = manifest;
        cudart.size = 3'000'000;
        list.artifacts = {cudart};
        return list;
    };
    m_wizard->state().setPlan(plan);
    m_wizard->state().setArtifacts(resolvedWith(sources.cudaManifest(fallback)->fileName()));
    reselect(table, row);
    QVERIFY2(downloads->text().contains(QStringLiteral("CUDA %1 libraries from NVIDIA, standing in for CUDA %2 (NVIDIA "
                                                       "publishes no portable archives")
                                            .arg(fallback, plan.cuda)),
             qPrintable(downloads->text()));
    const core::PlanDownloads fetched = core::PlanDownloads::of(plan, sources, &*m_wizard->state().artifacts());
    QCOMPARE(fetched.cudaArchives, fallback);
    QVERIFY(fetched.cudaStandIn && fetched.cudaCertain);

    // Had NVIDIA served the plan's own manifest, the plan's release is what is shown.
    m_wizard->state().setArtifacts(resolvedWith(sources.cudaManifest(plan.cuda)->fileName()));
    reselect(table, row);
    QVERIFY2(downloads->text().contains(QStringLiteral("CUDA %1 libraries from NVIDIA\n").arg(plan.cuda)),
             qPrintable(downloads->text()));
    QVERIFY(!downloads->text().contains(QLatin1String("standing in")));

    // Next commits exactly the plan shown.
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QCOMPARE(planKey(*m_wizard->state().plan()), planKey(plan));
    QCOMPARE(m_wizard->state().plan()->cuda, plan.cuda);
}

void TestChoosePage::compatGrid_showsWhyEachCombinationFits()
{
    const core::HardwareReport hardware = cannedReport(QStringLiteral("windows_gtx1060_old_driver"));
    const core::Solution expected = solveDirectly(hardware);
    openFor(hardware);
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    auto *view = child<ui::CompatView>(m_page, "compatView");
    auto *grid = child<QTableWidget>(m_page, "compatGrid");
    auto *explanation = child<QLabel>(m_page, "compatExplanation");
    tabs->setCurrentWidget(view);
    QVERIFY(grid->isVisible());
    QVERIFY(grid->rowCount() > 3);
    QVERIFY(grid->columnCount() >= 2);

    // The recommendation is marked, selected and explained.
    const int recRow = view->rowOf(expected.recommended->tensorflow);
    const int recColumn = view->columnOf(expected.recommended->route);
    QVERIFY(recRow >= 0 && recColumn >= 0);
    QVERIFY(view->isRecommended(recRow, recColumn));
    QCOMPARE(grid->currentRow(), recRow);
    QCOMPARE(grid->currentColumn(), recColumn);
    QVERIFY2(explanation->text().startsWith(QLatin1String("Recommended.")), qPrintable(explanation->text()));

    // This machine's picture: an old driver (a step), WSL2 for newer releases (a step), native
    // Windows ending at 2.10 (not possible), the processor (works).
    QMap<ui::CompatView::Fit, int> seen;
    for (int row = 0; row < grid->rowCount(); ++row) {
        for (int column = 0; column < grid->columnCount(); ++column) {
            ++seen[view->fitAt(row, column)];
            QVERIFY(!grid->item(row, column)->toolTip().isEmpty());
            QVERIFY(!grid->item(row, column)->text().isEmpty());
        }
    }
    QVERIFY(seen.value(ui::CompatView::Fit::Works) > 0);
    QVERIFY(seen.value(ui::CompatView::Fit::Needs) > 0);
    QVERIFY(seen.value(ui::CompatView::Fit::Impossible) > 0);

    // Each cell agrees with the solver: a rejected release carries its reason, a plan that needs
    // a step carries that step.
    const core::Rejection *rejected = expected.rejection(QStringLiteral("windows-native"), QStringLiteral("2.11"));
    QVERIFY(rejected);
    const int rejectedRow = view->rowOf(QStringLiteral("2.11"));
    const int nativeColumn = view->columnOf(QStringLiteral("windows-native"));
    QCOMPARE(view->fitAt(rejectedRow, nativeColumn), ui::CompatView::Fit::Impossible);
    QVERIFY(grid->item(rejectedRow, nativeColumn)->toolTip().contains(rejected->reasons.first().message));
    QVERIFY(expected.recommended->hasAction(QStringLiteral("update_driver")));
    QCOMPARE(view->fitAt(recRow, recColumn), ui::CompatView::Fit::Needs);
    for (const core::Finding &action : expected.recommended->actions) {
        if (action.code == u"update_driver")
            QVERIFY(grid->item(recRow, recColumn)->toolTip().contains(action.message));
    }
    // The route's name is in the header's tooltip; the header itself is short.
    const QString title = grid->horizontalHeaderItem(nativeColumn)->toolTip();
    QVERIFY(!title.isEmpty());
    QVERIFY(grid->horizontalHeaderItem(nativeColumn)->text().size() <= title.size());

    // The keyboard reaches every cell's why: moving there explains it under the grid.
    grid->setFocus();
    grid->setCurrentCell(rejectedRow, nativeColumn);
    QCOMPARE(explanation->text(), grid->item(rejectedRow, nativeColumn)->toolTip());
    QTest::keyClick(grid, Qt::Key_Down);
    QCOMPARE(explanation->text(), grid->currentItem()->toolTip());
    QVERIFY(explanation->wordWrap());
}

void TestChoosePage::routeNames_areWordsNotIds()
{
    const auto catalog = core::Catalog::load();
    QVERIFY(catalog);
    // An id in a sentence: "linux-pip", or any id followed by "route" ("wsl2 route").
    QStringList patterns;
    for (const QString &id : catalog->routeNames())
        patterns.append(QRegularExpression::escape(id) + (id.contains(u'-') ? QString() : QStringLiteral(" route")));
    const QRegularExpression anyId(QStringLiteral("\\b(") + patterns.join(u'|') + QStringLiteral(")\\b"));
    const auto checkText = [&anyId](const QString &text) { QVERIFY2(!anyId.match(text).hasMatch(), qPrintable(text)); };

    for (const char *report : {"linux_rtx3060_driver535", "windows_gtx1060_old_driver"}) {
        cleanup();
        init();
        openFor(cannedReport(QLatin1String(report)));
        child<QCheckBox>(m_page, "showAllCheck")->setChecked(true);
        auto *table = child<QTableWidget>(m_page, "alternativesTable");
        QCOMPARE(table->textElideMode(), Qt::ElideNone);
        QVERIFY(table->wordWrap());
        for (int row = 0; row < table->rowCount(); ++row) {
            checkText(table->item(row, 1)->text());
            checkText(table->item(row, 1)->toolTip());
        }
        auto *tree = child<QTreeWidget>(m_page, "rejectedTree");
        for (int i = 0; i < tree->topLevelItemCount(); ++i) {
            checkText(tree->topLevelItem(i)->text(1));
            checkText(tree->topLevelItem(i)->toolTip(0));
        }
        auto *grid = child<QTableWidget>(m_page, "compatGrid");
        for (int column = 0; column < grid->columnCount(); ++column)
            checkText(grid->horizontalHeaderItem(column)->text());
        checkText(child<QLabel>(m_page, "recommendationLabel")->text());
        checkText(child<QLabel>(m_page, "whyLabel")->text());
    }
    // The two Linux GPU routes read differently, in full and in short.
    const core::Route *pip = catalog->route(QStringLiteral("linux-pip"));
    const core::Route *toolkit = catalog->route(QStringLiteral("linux-toolkit"));
    QVERIFY(pip && toolkit);
    QVERIFY(core::RouteNames::title(*pip) != core::RouteNames::title(*toolkit));
    QVERIFY(core::RouteNames::shortName(*pip) != core::RouteNames::shortName(*toolkit));
    QStringList shortNames;
    for (const core::Route &route : catalog->routes()) {
        QVERIFY2(!shortNames.contains(core::RouteNames::shortName(route)), qPrintable(route.name));
        shortNames.append(core::RouteNames::shortName(route));
    }
}

void TestChoosePage::tabLabels_stayWhenShowAllToggles()
{
    openFor(cannedReport(QStringLiteral("windows_gtx1060_old_driver")));
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    auto *showAll = child<QCheckBox>(m_page, "showAllCheck");
    QStringList before;
    for (int i = 0; i < tabs->count(); ++i)
        before.append(tabs->tabText(i));
    QVERIFY(showAll->isVisible());
    showAll->click();
    for (int i = 0; i < tabs->count(); ++i)
        QCOMPARE(tabs->tabText(i), before.at(i));
    showAll->click();
    for (int i = 0; i < tabs->count(); ++i)
        QCOMPARE(tabs->tabText(i), before.at(i));
    QCOMPARE(tabs->count(), 4);
}

void TestChoosePage::mnemonics_areUniqueOnEveryTab()
{
    openFor(cannedReport(QStringLiteral("windows_gtx1060_old_driver")));
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    // The wizard's own buttons: &Back, &Next, &Install, &Finish, &Help.
    const QString taken = QStringLiteral("bnifh");
    for (int tab = 0; tab < tabs->count(); ++tab) {
        tabs->setCurrentIndex(tab);
        QHash<QChar, QString> owners;
        const auto claim = [&](const QString &text) {
            const QChar letter = test::mnemonic(text);
            if (letter.isNull())
                return;
            QVERIFY2(!taken.contains(letter), qPrintable(text));
            QVERIFY2(!owners.contains(letter), qPrintable(owners.value(letter) + QStringLiteral(" / ") + text));
            owners.insert(letter, text);
        };
        for (QAbstractButton *button : m_page->findChildren<QAbstractButton *>()) {
            if (button->isVisible())
                claim(button->text());
        }
        for (QLabel *label : m_page->findChildren<QLabel *>()) {
            if (label->isVisible() && label->buddy())
                claim(label->text());
        }
        for (int i = 0; i < tabs->count(); ++i)
            claim(tabs->tabText(i));
        if (tabs->widget(tab)->objectName() == u"advancedTab") {
            QVERIFY(owners.contains(u'p')); // the Python version keeps its P
            QVERIFY(owners.contains(u'o')); // the processor-only check box moved to O
        }
    }
}

namespace {

QString manifestsDir()
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/manifests");
}

// Every origin the lookup could ask, on a closed loopback port; nvidia, when given, on a server.
core::SetupOptions closedWorld(const QUrl &nvidia = {})
{
    core::SetupOptions options;
    const QUrl closed(QStringLiteral("http://127.0.0.1:%1/").arg(test::closedLoopbackPort()));
    options.network.originOverrides = test::presetsOnClosedPort();
    for (const char *origin : {"pypi", "pypi-json", "python", "python-build-standalone"})
        options.network.originOverrides.append({QString::fromLatin1(origin), closed});
    options.network.originOverrides.append({QStringLiteral("nvidia"), nvidia.isEmpty() ? closed : nvidia});
    return options;
}

// The RTX 3060 with Python 3.10 installed: nothing but NVIDIA's manifests is looked up for its
// toolkit combinations.
core::HardwareReport rtxWithPython()
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/linux_rtx3060_driver535.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    QJsonObject machine = QJsonDocument::fromJson(f.readAll()).object();
    machine[QStringLiteral("pythons")] = QJsonArray{
        QJsonObject{{QStringLiteral("path"), QStringLiteral("/usr/bin/python3.10")},
                    {QStringLiteral("version"), QStringLiteral("3.10.12")},
                    {QStringLiteral("kind"), QStringLiteral("system")},
                    {QStringLiteral("bits"), 64},
                    {QStringLiteral("source"), QStringLiteral("path")}}};
    return core::HardwareReport::fromJson(machine);
}

// NVIDIA's manifests of the test data, where NVIDIA keeps them.
void serveManifests(LoopbackServer &server, std::chrono::milliseconds delay = {})
{
    for (const char *kind : {"cuda", "cudnn"}) {
        const QDir dir(manifestsDir() + u'/' + QString::fromLatin1(kind));
        for (const QString &name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::ReadOnly))
                qFatal("cannot read %s", qPrintable(f.fileName()));
            Response response = Response::bytes(f.readAll(), "application/json");
            if (delay.count() > 0)
                response.delayHeaders(delay);
            server.route(QStringLiteral("/compute/%1/redist/%2").arg(QString::fromLatin1(kind), name).toUtf8(),
                         std::move(response));
        }
    }
}

} // namespace

int TestChoosePage::servableRow(core::Plan *plan) const
{
    // CUDA 12.5.1's manifest is in the test data as NVIDIA serves it; cuDNN 9.3's stands in by
    // testSources().
    const core::Solution solution = solveDirectly(rtxWithPython());
    QList<core::Plan> plans;
    if (solution.recommended)
        plans.append(*solution.recommended);
    plans += solution.alternatives;
    for (int i = 0; i < plans.size(); ++i) {
        const core::Plan &p = plans.at(i);
        if (!p.libraries.isEmpty() && p.pythonInstalled && p.cuda == u"12.5" && p.cudnn == u"9.3") {
            *plan = p;
            return i;
        }
    }
    return -1;
}

QString TestChoosePage::testSources() const
{
    // The built-in sources catalog with cuDNN 9.8.0's manifest (in the test data) pinned for 9.3.
    QFile f(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + QStringLiteral("/resources/catalog/sources.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QJsonObject catalog = QJsonDocument::fromJson(f.readAll()).object();
    QJsonArray cudnn = catalog.value(QStringLiteral("cudnn_manifests")).toArray();
    QJsonObject nine8;
    for (const QJsonValue &v : std::as_const(cudnn)) {
        if (v.toObject().value(QStringLiteral("cudnn")).toString() == u"9.8")
            nine8 = v.toObject();
    }
    for (qsizetype i = 0; i < cudnn.size(); ++i) {
        QJsonObject pin = cudnn.at(i).toObject();
        if (pin.value(QStringLiteral("cudnn")).toString() != u"9.3")
            continue;
        pin[QStringLiteral("label")] = nine8.value(QStringLiteral("label"));
        pin[QStringLiteral("sha256")] = nine8.value(QStringLiteral("sha256"));
        cudnn[i] = pin;
    }
    catalog[QStringLiteral("cudnn_manifests")] = cudnn;
    const QString path = m_root->filePath(QStringLiteral("sources.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(catalog).toJson()) < 0)
        return {};
    return path;
}

void TestChoosePage::totalSize_isLookedUpInTheBackground()
{
    core::Plan plan;
    const int row = servableRow(&plan);
    if (row < 0)
        QFAIL("the RTX 3060 has no toolkit combination with CUDA 12.5 and cuDNN 9.3 any more");
    LoopbackServer nvidia;
    QVERIFY2(nvidia.start(), qPrintable(nvidia.errorString()));
    // Slow enough to see the page say it is looking, and stay usable meanwhile.
    serveManifests(nvidia, std::chrono::milliseconds(600));
    core::SetupOptions options = closedWorld(nvidia.url(QStringLiteral("/")));
    options.sourcesCatalog = testSources();
    QVERIFY(!options.sourcesCatalog.isEmpty());
    m_wizard->state().setOptions(options);

    openFor(rtxWithPython());
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    auto *downloads = child<QLabel>(m_page, "downloadsLabel");
    child<QCheckBox>(m_page, "showAllCheck")->setChecked(true);
    table->setCurrentCell(row, 0);
    QCOMPARE(planKey(*m_page->chosenPlan()), planKey(plan));
    QVERIFY(m_page->isLookingUpSizes());
    QVERIFY2(downloads->text().contains(QLatin1String("Total download: looking up the size of each file")),
             qPrintable(downloads->text()));
    QVERIFY(nextButton()->isEnabled()); // the lookup never holds the student back

    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLookingUpSizes(), 15'000);
    const QByteArray cudaManifest = QString(QStringLiteral("/compute/cuda/redist/")
                                            + (*core::Knowledge::shared())->sources.cudaManifest(plan.cuda)->fileName())
                                        .toUtf8();
    QVERIFY(nvidia.hits(cudaManifest) > 0);
    // The same answer the lookup gives on its own, as the page's one total.
    core::SetupOptions direct = options;
    direct.knowledge = test::shippedKnowledge();
    auto lookup = core::PlanDownloads::lookUp(plan, QStringLiteral("linux"), direct);
    auto list = QCoro::waitFor(lookup);
    QVERIFY2(list, qPrintable(list ? QString() : list.error().message));
    const core::PlanDownloads files = core::PlanDownloads::of(plan, (*core::Knowledge::shared())->sources, &*list);
    QVERIFY(files.knownBytes > 0);
    QVERIFY(files.wheelsUnsized);
    const QString total = QLocale().formattedDataSize(files.knownBytes, 1, QLocale::DataSizeTraditionalFormat);
    const QString expected = files.otherFilesUnknown() > 0
        ? QStringLiteral("Total download: at least %1;").arg(total)
        : QStringLiteral("Total download: %1, plus the TensorFlow wheels, sized on the next page.").arg(total);
    QVERIFY2(downloads->text().contains(expected), qPrintable(downloads->text()));
    QVERIFY(!downloads->text().contains(QLatin1String("not known yet")));

    // Another choice and back: the answer is kept, not asked again.
    const int hits = nvidia.hits(cudaManifest);
    table->setCurrentCell(row == 0 ? 1 : 0, 0);
    table->setCurrentCell(row, 0);
    QVERIFY2(downloads->text().contains(expected), qPrintable(downloads->text()));
    QTest::qWait(50);
    QCOMPARE(nvidia.hits(cudaManifest), hits);
}

void TestChoosePage::totalSize_saysWhyWhenNothingAnswers()
{
    core::Plan plan;
    const int row = servableRow(&plan);
    if (row < 0)
        QFAIL("the RTX 3060 has no toolkit combination with CUDA 12.5 and cuDNN 9.3 any more");
    m_wizard->state().setOptions(closedWorld());
    openFor(rtxWithPython());
    auto *table = child<QTableWidget>(m_page, "alternativesTable");
    auto *downloads = child<QLabel>(m_page, "downloadsLabel");
    child<QCheckBox>(m_page, "showAllCheck")->setChecked(true);
    table->setCurrentCell(row, 0);
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLookingUpSizes(), 15'000);
    // The honest sentence with its cause in one clause, not the resolver's report.
    QVERIFY2(downloads->text().contains(QLatin1String("Total download: not known yet (NVIDIA could not be reached")),
             qPrintable(downloads->text()));
    QVERIFY2(!downloads->text().contains(QLatin1String("127.0.0.1")), qPrintable(downloads->text()));
    QVERIFY(nextButton()->isEnabled());
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
}

void TestChoosePage::totalSize_screenshots()
{
    // The total's sentence in both languages, answered and not, holds the page's layout at both
    // sizes; with TFSETUP_SCREENSHOT_DIR set each is saved there too.
    const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
    core::Plan plan;
    const int row = servableRow(&plan);
    if (row < 0)
        QFAIL("the RTX 3060 has no toolkit combination with CUDA 12.5 and cuDNN 9.3 any more");
    if (!shots.isEmpty())
        QVERIFY(QDir().mkpath(shots));
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    serveManifests(nvidia);
    m_wizard.reset();
    for (const QString &shot : {QStringLiteral("en"), QStringLiteral("zh_CN"), QStringLiteral("en-unanswered"),
                                QStringLiteral("zh_CN-unanswered")}) {
        const QString language = shot.section(u'-', 0, 0);
        core::Translations translations;
        QVERIFY(translations.setLanguage(language));
        ui::SetupWizard wizard(*m_system, &translations);
        core::SetupOptions options = shot.endsWith(QLatin1String("unanswered"))
            ? closedWorld()
            : closedWorld(nvidia.url(QStringLiteral("/")));
        options.sourcesCatalog = testSources();
        wizard.state().setOptions(options);
        wizard.state().setHardware(rtxWithPython());
        wizard.setStartId(ui::SetupWizard::ChoosePageId);
        auto *page = wizard.choosePage();
        QSignalSpy solved(page, &ui::ChoosePage::solved);
        wizard.show();
        QVERIFY(solved.count() > 0 || solved.wait(10'000));
        child<QCheckBox>(page, "showAllCheck")->setChecked(true);
        child<QTableWidget>(page, "alternativesTable")->setCurrentCell(row, 0);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isLookingUpSizes(), 15'000);
        for (const QSize size : {QSize(720, 540), QSize(1366, 768)}) {
            wizard.resize(size);
            QTest::qWait(100);
            const QStringList problems = test::layoutProblems(&wizard, shot);
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
            if (!shots.isEmpty()) {
                QVERIFY(wizard.grab().save(QDir(shots).filePath(
                    QStringLiteral("choose-size-%1-%2x%3.png").arg(shot).arg(size.width()).arg(size.height()))));
            }
        }
    }
    QLocale::setDefault(QLocale::c());
}

QTEST_MAIN(TestChoosePage)
#include "test_choosepage.moc"
