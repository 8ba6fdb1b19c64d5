// The pages that end a setup or a repair, in the states a student meets them — the check passed,
// the check failed (with its evidence folded, then opened), Finish after each, Repair with its
// findings — in English and Simplified Chinese at 720×540 and 1366×768: nothing cut, nothing
// squeezed, no mnemonic twice, the raw words only under Details. With TFSETUP_SCREENSHOT_DIR set,
// each state is saved there as result-<language>-<size>-<state>.png.

#include "install/installer.h"
#include "layoutcheck.h"
#include "support/coroutinetest.h"
#include "support/shippedknowledge.h"
#include "system/rootedsystem.h"
#include "ui/finishpage.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/statuslist.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"
#include "uitest.h"
#include "util/i18n.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

const QString prefix = u"/home/student/tfsetup-envs"_s;
const QString environment = prefix + u"/tf-cpu"_s;

core::VerifyReport cannedReport(const QString &smokeFile)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify/smoke/"_s + smokeFile + u".json"_s);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    core::ProcessResult process;
    process.started = true;
    process.standardOutput = QJsonDocument::fromJson(f.readAll()).toJson(QJsonDocument::Compact) + '\n';
    core::VerifyReport report;
    report.smoke = core::SmokeResult::parse(process, true);
    const bool failing = smokeFile != u"success";
    core::VerifyLayer libraries = core::librariesLayer(
        core::Error{u"probe_crashed"_s, u"The library check stopped before it finished."_s,
                    failing ? u"libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n"
                              u"dlopen(/home/student/tfsetup-envs/tf-cpu/venv/lib/python3.11/site-packages/nvidia/"
                              u"cudnn/lib/libcudnn_cnn_infer.so.8) failed with errno 2"_s
                            : QString()},
        !failing);
    if (!failing) {
        libraries.status = core::VerifyLayer::Status::Passed;
        libraries.summary = u"7 of 7 libraries loaded (cudart 11.2, cudnn 8.1)"_s;
        libraries.explanation.clear();
        libraries.details = {u"libcudart.so.11.0 -> /home/student/tfsetup-envs/tf-cpu/cuda/lib/libcudart.so.11.0"_s};
    }
    report.layers = QList<core::VerifyLayer>{libraries} + report.smoke.layers;
    return report;
}

QCoro::Task<core::VerifyReport> answer(QString smokeFile)
{
    co_return cannedReport(smokeFile);
}

QCoro::Task<QList<core::DoctorFinding>> cannedDoctor(QString environmentPath, QString log)
{
    core::DoctorFinding kernel;
    kernel.id = u"kernel_missing:tf-cpu"_s;
    kernel.cause = u"kernel_missing"_s;
    kernel.severity = core::Severity::Warning;
    kernel.summary = core::doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                        "Jupyter kernels exist, but none runs the environment %1: "
                                                        "notebooks will not see its TensorFlow."),
                                      {environmentPath});
    kernel.fix = core::doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                    "Let tfsetup write a kernel for this environment, or run \"python "
                                                    "-m ipykernel install --user\" with the environment's Python."));
    kernel.evidence = {environmentPath + u"/venv/bin/python"_s, log.trimmed()};
    kernel.actions.append({u"rewrite_kernelspec"_s, {{u"kernel"_s, u"tf-cpu"_s}}});
    core::DoctorFinding cudnn;
    cudnn.id = u"cudnn_incomplete:libcudnn_cnn_infer.so.8"_s;
    cudnn.cause = u"cudnn_incomplete"_s;
    cudnn.severity = core::Severity::Error;
    cudnn.summary = core::doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                       "cuDNN loaded, but its part %1 could not be loaded (%2), so the "
                                                       "first convolution fails."),
                                     {u"libcudnn_cnn_infer.so.8"_s, u"cannot open shared object file"_s});
    cudnn.fix = core::doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                   "Copy every file of the cuDNN archive's bin (Windows) or lib "
                                                   "(Linux) folder next to the cuDNN that loads, not only the main "
                                                   "file, or let tfsetup repair the environment. On Windows, error 126 "
                                                   "also means a DLL that part needs (zlibwapi.dll, the Visual C++ "
                                                   "runtime) is missing."));
    for (int i = 0; i < 30; ++i)
        cudnn.evidence.append(u"2026-12-06 01:2%1:00.000000: W tensorflow/stream_executor/platform/default/"
                              u"dso_loader.cc:64] Could not load dynamic library 'libcudnn_cnn_infer.so.8'; "
                              u"dlerror: libcudnn_cnn_infer.so.8: cannot open shared object file"_s.arg(i % 10));
    co_return QList<core::DoctorFinding>{cudnn, kernel};
}

using tfsetup::test::child;

} // namespace

class TestResultPages final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyStateHolds_data();
    void everyStateHolds();

private:
    std::unique_ptr<ui::SetupWizard> makeWizard(core::Translations &translations, QSize size);
    void check(ui::SetupWizard &wizard, const QString &language, QSize size, const QString &state);

    QTemporaryDir m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    QStringList m_problems;
};

void TestResultPages::initTestCase()
{
    QVERIFY(m_root.isValid());
    QVERIFY(QDir().mkpath(m_root.filePath(u"home/student"_s)));
    m_system = std::make_unique<core::RootedSystem>(
        m_root.path(), core::OsFamily::Linux,
        QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
    core::InstallSpec spec;
    spec.name = u"tf-cpu"_s;
    spec.prefix = prefix;
    spec.route = u"linux-pip"_s;
    spec.tensorflow = u"2.15.1"_s;
    spec.python = u"3.11"_s;
    core::Installer installer(*m_system, test::shippedKnowledge());
    const auto outcome = test::awaitTask(installer.install(spec), std::chrono::seconds(60));
    QVERIFY(outcome && *outcome);
}

void TestResultPages::everyStateHolds_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("size");
    for (const QString &language : {u"en"_s, u"zh_CN"_s}) {
        for (const QSize size : {QSize(720, 540), QSize(1366, 768)})
            QTest::newRow(qPrintable(u"%1 %2x%3"_s.arg(language).arg(size.width()).arg(size.height())))
                << language << size;
    }
}

std::unique_ptr<ui::SetupWizard> TestResultPages::makeWizard(core::Translations &translations, QSize size)
{
    auto wizard = std::make_unique<ui::SetupWizard>(*m_system, &translations);
    core::InstallOutcome outcome;
    outcome.environmentPath = environment;
    for (const QString &name : {u"start-python"_s, u"start-jupyter"_s, u"shell"_s})
        outcome.launchers.append(environment + u'/' + name);
    outcome.summary = u"# tf-cpu\n"_s;
    wizard->state().setInstalled(outcome);
    wizard->resize(size);
    return wizard;
}

void TestResultPages::check(ui::SetupWizard &wizard, const QString &language, QSize size, const QString &state)
{
    QTest::qWait(100);
    const QString where = u"%1 %2x%3 %4"_s.arg(language).arg(size.width()).arg(size.height()).arg(state);
    m_problems += test::layoutProblems(&wizard, where);
    const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        QDir().mkpath(shots);
        wizard.grab().save(
            shots + u"/result-%1-%2x%3-%4.png"_s.arg(language).arg(size.width()).arg(size.height()).arg(state));
    }
}

void TestResultPages::everyStateHolds()
{
    QFETCH(QString, language);
    QFETCH(QSize, size);
    core::Translations translations;
    QVERIFY(translations.setLanguage(language));
    m_problems.clear();

    for (const QString &smoke : {u"success"_s, u"import_error"_s}) {
        auto wizard = makeWizard(translations, size);
        ui::VerifyPage *verify = wizard->verifyPage();
        verify->setVerifyFunction(
            [smoke](core::SystemView &, core::VerifyRequest, core::Catalog) { return answer(smoke); });
        QSignalSpy finished(verify, &ui::VerifyPage::finished);
        wizard->setStartId(ui::SetupWizard::VerifyPageId);
        wizard->show();
        QVERIFY(QTest::qWaitForWindowExposed(wizard.get()));
        QVERIFY(finished.count() > 0 || finished.wait(10'000));
        const bool passed = smoke == u"success";
        QCOMPARE(finished.first().first().toBool(), passed);
        check(*wizard, language, size, passed ? u"verify-passed"_s : u"verify-failed"_s);
        auto *list = child<ui::StatusList>(verify, u"layerList"_s);
        QVERIFY(list->count() >= 4);
        if (!passed) {
            // Folded first; opened, the evidence is a scrollable read-only view, still nothing cut.
            auto *toggle = child<QToolButton>(verify, u"layerDetails_libraries"_s);
            auto *view = child<QPlainTextEdit>(verify, u"layerDetailsView_libraries"_s);
            QVERIFY(!view->isVisible());
            toggle->click();
            QVERIFY(view->isVisible());
            QVERIFY(view->isReadOnly());
            QVERIFY(view->toPlainText().contains(u"cannot open shared object file"_s));
            for (QLabel *label : list->findChildren<QLabel *>()) {
                QVERIFY2(!label->text().contains(u"cannot open shared object file"_s), qPrintable(label->text()));
                QVERIFY2(!label->text().contains(u"…"_s), qPrintable(label->text()));
            }
            check(*wizard, language, size, u"verify-failed-details"_s);
        }

        wizard->next();
        QCOMPARE(wizard->currentId(), int(ui::SetupWizard::FinishPageId));
        ui::FinishPage *finish = wizard->finishPage();
        auto *repair = child<QPushButton>(finish, u"repairNowButton"_s);
        QCOMPARE(repair->isVisible(), !passed);
        check(*wizard, language, size, passed ? u"finish-passed"_s : u"finish-failed"_s);
        if (!passed) {
            // Repair now opens the Repair page on the environment that failed.
            QSignalSpy requested(finish, &ui::FinishPage::repairRequested);
            repair->click();
            QCOMPARE(requested.size(), 1);
            QCOMPARE(requested.first().first().toString(), environment);
            QTRY_COMPARE(wizard->currentId(), int(ui::SetupWizard::RepairPageId));
            QCOMPARE(wizard->repairPage()->selectedEnvironment(), environment);
            check(*wizard, language, size, u"finish-repairnow"_s);
        }
    }

    {
        const QString host = m_system->hostPath(environment);
        QFile launcher(host + u"/start-python"_s);
        const QByteArray kept = launcher.open(QIODevice::ReadOnly) ? launcher.readAll() : QByteArray();
        launcher.close();
        QVERIFY(!kept.isEmpty());
        QVERIFY(QFile::remove(host + u"/start-python"_s));
        auto wizard = makeWizard(translations, size);
        wizard->state().setMode(ui::WizardState::Mode::Repair);
        ui::RepairPage *page = wizard->repairPage();
        page->setDoctorFunction(&cannedDoctor);
        wizard->setStartId(ui::SetupWizard::RepairPageId);
        wizard->show();
        QVERIFY(QTest::qWaitForWindowExposed(wizard.get()));
        QCOMPARE(page->selectedEnvironment(), environment);
        child<QCheckBox>(page, u"repairBrokenCheck"_s)->setChecked(true);
        child<QPlainTextEdit>(page, u"repairLogEdit"_s)
            ->setPlainText(u"Could not load dynamic library 'libcudnn_cnn_infer.so.8'"_s);
        QSignalSpy checked(page, &ui::RepairPage::checked);
        child<QPushButton>(page, u"repairCheckButton"_s)->click();
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20'000);
        auto *list = child<ui::StatusList>(page, u"findingList"_s);
        QCOMPARE(list->count(), 3);
        // The findings take the page's height: more than a row and a half of it.
        QVERIFY2(list->height() >= 3 * list->fontMetrics().lineSpacing() * 2,
                 qPrintable(QString::number(list->height())));
        check(*wizard, language, size, u"repair-findings"_s);
        child<QToolButton>(page, u"findingDetails_cudnn_incomplete:libcudnn_cnn_infer.so.8"_s)->click();
        check(*wizard, language, size, u"repair-findings-details"_s);
        QFile restore(host + u"/start-python"_s);
        QVERIFY(restore.open(QIODevice::WriteOnly));
        restore.write(kept);
        restore.close();
        QFile::setPermissions(host + u"/start-python"_s, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }

    m_problems.removeDuplicates();
    for (const QString &p : std::as_const(m_problems))
        qWarning().noquote() << "layout:" << p;
    QVERIFY2(m_problems.isEmpty(), qPrintable(u"%1 layout problems (listed above)"_s.arg(m_problems.size())));
}

QTEST_MAIN(TestResultPages)
#include "test_resultpages.moc"
