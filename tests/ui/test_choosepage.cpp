// The Choose page: solves for the detected machine off the GUI thread, says what it recommends in
// plain words, offers alternatives, greys what does not fit with the reasons, re-solves on pins and
// commits the chosen plan. Driven by objectName over canned hardware reports.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/version.h"
#include "solver/solver.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFrame>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace tfsetup;

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

private:
    // Opens the wizard on the Choose page for a report and waits for the first solution.
    void openFor(const core::HardwareReport &report);
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
    QVERIFY2(downloads.contains(QLatin1String("Download sizes are shown on the next page.")), qPrintable(downloads));
    if (expected.recommended->hasAction(QStringLiteral("install_cuda")))
        QVERIFY(downloads.contains(QLatin1String("CUDA ") + expected.recommended->cuda));

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
    // The tab says how many of how many.
    auto *tabs = child<QTabWidget>(m_page, "choiceTabs");
    QVERIFY2(tabs->tabText(0).contains(QStringLiteral("%1 of %2").arg(shown).arg(allRows)), qPrintable(tabs->tabText(0)));

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

QTEST_MAIN(TestChoosePage)
#include "test_choosepage.moc"
