// The Choose page's GPU choice on a machine with a Kepler (index 0) beside an Ampere (index 1):
// one check box a GPU, the plan's default ticked, the Kepler disabled with the reason this
// TensorFlow cannot use it, a PTX-JIT GPU unticked with its slow first start explained; the choice
// is committed to the wizard's state as the GPUs the launchers pin.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "solver/solver.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "uitest.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QFrame>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using test::child;

namespace {

core::HardwareReport report(const QString &path)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u'/' + path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return core::HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
}

} // namespace

class TestChooseGpus final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void keplerBesideAmpere_defaultIsTheAmpere();
    void noGpuTicked_keepsNextDisabled();
    void ptxJitGpu_isUntickedWithItsSlowStart();
    void oneGpu_showsNoChoice();

private:
    void openFor(const core::HardwareReport &hardware);
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::ChoosePage *m_page = nullptr;
};

void TestChooseGpus::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux, QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->choosePage();
    QVERIFY(m_page);
}

void TestChooseGpus::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestChooseGpus::openFor(const core::HardwareReport &hardware)
{
    m_wizard->state().setHardware(hardware);
    m_wizard->setStartId(ui::SetupWizard::ChoosePageId);
    QSignalSpy solved(m_page, &ui::ChoosePage::solved);
    m_wizard->show();
    QVERIFY(solved.count() > 0 || solved.wait(10'000));
    QVERIFY(m_page->chosenPlan());
}

void TestChooseGpus::keplerBesideAmpere_defaultIsTheAmpere()
{
    openFor(report(QStringLiteral("gpuchoice/linux_kepler_ampere.json")));
    const core::Plan plan = *m_page->chosenPlan();
    QCOMPARE(plan.gpus.size(), 2);
    QCOMPARE(plan.gpus.at(0).use, core::PlanGpu::Use::Unusable);
    QVERIFY(plan.gpus.at(0).reason);

    auto *box = child<QFrame>(m_page, QStringLiteral("gpuBox"));
    QVERIFY(box->isVisible());
    auto *kepler = child<QCheckBox>(box, QStringLiteral("gpuCheck0"));
    auto *ampere = child<QCheckBox>(box, QStringLiteral("gpuCheck1"));
    QCOMPARE(kepler->text(), QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7)"));
    QCOMPARE(ampere->text(), QStringLiteral("GPU 1, NVIDIA GeForce RTX 3060 (compute capability 8.6)"));
    // The Kepler cannot be chosen, and the page says why, in words and on the box's tooltip.
    QVERIFY(!kepler->isEnabled());
    QVERIFY(!kepler->isChecked());
    const QString note = child<QLabel>(box, QStringLiteral("gpuNote0"))->text();
    QCOMPARE(
        note,
        QStringLiteral("TensorFlow %1 cannot use this GPU: %2").arg(plan.tensorflow, plan.gpus.at(0).reason->message));
    QVERIFY2(note.contains(QStringLiteral("3.7")), qPrintable(note));
    QCOMPARE(kepler->toolTip(), note);
    QVERIFY(ampere->isEnabled());
    QVERIFY(ampere->isChecked());
    QVERIFY(!box->findChild<QLabel *>(QStringLiteral("gpuNote1")));
    QVERIFY(!child<QLabel>(box, QStringLiteral("gpuHint"))->isVisible());
    QCOMPARE(m_page->chosenGpus(), QList<int>{1});
    // The recommendation names the GPU TensorFlow will run on, not the machine's first one.
    const QString sentence = child<QLabel>(m_page, QStringLiteral("recommendationLabel"))->text();
    QVERIFY2(sentence.contains(QStringLiteral("RTX 3060")) && !sentence.contains(QStringLiteral("K80")),
             qPrintable(sentence));

    QVERIFY(nextButton()->isEnabled());
    nextButton()->click();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    // The launchers pin the Ampere: TensorFlow's /GPU:0 is nvidia-smi's GPU 1.
    QCOMPARE(m_wizard->state().gpus(), QList<int>{1});
}

void TestChooseGpus::noGpuTicked_keepsNextDisabled()
{
    openFor(report(QStringLiteral("gpuchoice/linux_kepler_ampere.json")));
    auto *ampere = child<QCheckBox>(m_page, QStringLiteral("gpuCheck1"));
    QSignalSpy complete(m_page, &QWizardPage::completeChanged);
    ampere->click();
    QVERIFY(complete.count() > 0);
    QVERIFY(!m_page->isComplete());
    QVERIFY(!nextButton()->isEnabled());
    auto *hint = child<QLabel>(m_page, QStringLiteral("gpuHint"));
    QVERIFY(hint->isVisible());
    QVERIFY2(hint->text().contains(QStringLiteral("processor only")), qPrintable(hint->text()));
    ampere->click();
    QVERIFY(m_page->isComplete());
    QVERIFY(nextButton()->isEnabled());
    QVERIFY(!hint->isVisible());
}

void TestChooseGpus::ptxJitGpu_isUntickedWithItsSlowStart()
{
    openFor(report(QStringLiteral("gpuchoice/linux_kepler_ampere.json")));
    // An old release on the toolkit route: its CUDA runs the Kepler natively and the Ampere only
    // through PTX JIT.
    child<QCheckBox>(m_page, QStringLiteral("showAllCheck"))->setChecked(true);
    auto *table = child<QTableWidget>(m_page, QStringLiteral("alternativesTable"));
    bool found = false;
    for (int row = 0; row < table->rowCount() && !found; ++row) {
        if (table->isRowHidden(row))
            continue;
        table->setCurrentCell(row, 0);
        const core::Plan &plan = *m_page->chosenPlan();
        found = plan.gpus.size() == 2 && plan.gpus.at(0).use == core::PlanGpu::Use::Native
            && plan.gpus.at(1).use == core::PlanGpu::Use::PtxJit;
    }
    QVERIFY2(found, "the solver offers a plan that runs the Ampere through PTX JIT only");
    const core::Plan plan = *m_page->chosenPlan();

    auto *kepler = child<QCheckBox>(m_page, QStringLiteral("gpuCheck0"));
    auto *ampere = child<QCheckBox>(m_page, QStringLiteral("gpuCheck1"));
    QVERIFY(kepler->isEnabled());
    QVERIFY(kepler->isChecked());
    // Usable, but not by default: the first start would take minutes.
    QVERIFY(ampere->isEnabled());
    QVERIFY(!ampere->isChecked());
    const QString note = child<QLabel>(m_page, QStringLiteral("gpuNote1"))->text();
    QVERIFY2(note.startsWith(QStringLiteral("Slow first start: TensorFlow ") + plan.tensorflow), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("several minutes")), qPrintable(note));
    QCOMPARE(ampere->toolTip(), note);
    QCOMPARE(m_page->chosenGpus(), QList<int>{0});

    // Ticked anyway: both GPUs in nvidia-smi's order, so nothing needs pinning.
    ampere->click();
    QCOMPARE(m_page->chosenGpus(), (QList<int>{0, 1}));
    nextButton()->click();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QVERIFY(m_wizard->state().gpus().isEmpty());
}

void TestChooseGpus::oneGpu_showsNoChoice()
{
    openFor(report(QStringLiteral("solver/linux_rtx3060_driver535.json")));
    QVERIFY(!child<QFrame>(m_page, QStringLiteral("gpuBox"))->isVisible());
    QVERIFY(!m_page->findChild<QCheckBox *>(QStringLiteral("gpuCheck0")));
    m_wizard->state().setGpus({3}); // what an earlier visit committed
    nextButton()->click();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QVERIFY(m_wizard->state().gpus().isEmpty());
}

QTEST_MAIN(TestChooseGpus)
#include "test_choosegpus.moc"
