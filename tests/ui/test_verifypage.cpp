// The Verify page: runs the check on the installed environment without blocking, shows one row per
// layer with a status icon and a plain sentence, the evidence folded under a collapsed Details,
// says the first failure in the one status line, lets Next through either way and commits the
// report. Reports are the smoke test's canned documents from tests/data/verify/smoke.

#include "uitest.h"
#include "system/rootedsystem.h"
#include "ui/setupwizard.h"
#include "ui/statuslist.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QCoro/QCoroTimer>
#include <QPlainTextEdit>
#include <QToolButton>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

const QString environment = u"/home/student/tfsetup-envs/tf2.10-cuda11.2"_s;

core::VerifyReport cannedReport(const QString &smokeFile)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify/smoke/"_s + smokeFile + u".json"_s);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    core::ProcessResult process;
    process.started = true;
    process.exitCode = 0;
    process.standardOutput = QJsonDocument::fromJson(f.readAll()).toJson(QJsonDocument::Compact) + '\n';
    core::VerifyReport report;
    report.smoke = core::SmokeResult::parse(process, true);
    core::VerifyLayer libraries;
    libraries.id = u"libraries"_s;
    libraries.status = core::VerifyLayer::Status::Passed;
    libraries.title = u"Load the GPU libraries"_s;
    libraries.summary = u"7 libraries loaded"_s;
    libraries.details = {u"/home/student/tfsetup-envs/tf2.10-cuda11.2/cuda/lib/libcudart.so.11.0"_s};
    report.layers = QList<core::VerifyLayer>{libraries} + report.smoke.layers;
    report.tensorflow = report.smoke.tensorflowVersion;
    return report;
}

// Answers after a short delay, like a real check; inputs are parameters, not captures.
QCoro::Task<core::VerifyReport> delayedReport(QString smokeFile)
{
    QTimer timer;
    timer.setSingleShot(true);
    timer.start(50);
    co_await timer;
    co_return cannedReport(smokeFile);
}

using tfsetup::test::child;

} // namespace

class TestVerifyPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void report_showsEveryLayer_data();
    void report_showsEveryLayer();
    void checkAgain_runsAnotherCheck();
    void missingEnvironment_saysSo();
    void devices_areNamedForAStudent();
    void cpuRoute_promisesNoGpu();

private:
    // Opens the page with a verify function that answers after a short delay, like a real check.
    void open(const QString &smokeFile, bool installed = true);
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::VerifyPage *m_page = nullptr;
    int m_calls = 0;
    core::VerifyRequest m_request;
};

void TestVerifyPage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    const QString host = m_root->filePath(environment.mid(1));
    QVERIFY(QDir().mkpath(host));
    QFile record(host + u"/environment.json"_s);
    QVERIFY(record.open(QIODevice::WriteOnly));
    record.write(R"({"schema": 1, "name": "tf2.10-cuda11.2", "os": "linux",
                     "plan": {"route": "linux-toolkit", "tensorflow": "2.10.1", "cuda": "11.2", "cudnn": "8.1"},
                     "launchers": ["start-python.sh", "shell.sh"]})");
    record.close();
    QFile launcher(host + u"/start-python.sh"_s);
    QVERIFY(launcher.open(QIODevice::WriteOnly));
    launcher.write("#!/bin/sh\n");
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux,
                                                    QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}});
    m_calls = 0;
}

void TestVerifyPage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestVerifyPage::open(const QString &smokeFile, bool installed)
{
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->verifyPage();
    QCOMPARE(m_page->objectName(), u"verifyPage"_s);
    m_page->setProbePath(u"/opt/tfsetup/tfsetup-probe"_s);
    m_page->setVerifyFunction([this, smokeFile](core::SystemView &, core::VerifyRequest request, core::Catalog) {
        ++m_calls;
        m_request = request;
        return delayedReport(smokeFile);
    });
    if (installed) {
        core::InstallOutcome outcome;
        outcome.environmentPath = environment;
        outcome.launchers = {environment + u"/start-python.sh"_s};
        m_wizard->state().setInstalled(outcome);
    }
    m_wizard->setStartId(ui::SetupWizard::VerifyPageId);
}

void TestVerifyPage::report_showsEveryLayer_data()
{
    QTest::addColumn<QString>("smoke");
    QTest::addColumn<bool>("passed");
    QTest::addColumn<QString>("failedLayer"); // empty: none
    QTest::newRow("gpu works") << u"success"_s << true << QString();
    QTest::newRow("cudnn fails") << u"cudnn_failure"_s << false << u"cudnn"_s;
    QTest::newRow("import fails") << u"import_error"_s << false << u"import"_s;
}

void TestVerifyPage::report_showsEveryLayer()
{
    QFETCH(QString, smoke);
    QFETCH(bool, passed);
    QFETCH(QString, failedLayer);
    open(smoke);
    QSignalSpy finished(m_page, &ui::VerifyPage::finished);
    m_wizard->show();
    QVERIFY(m_page->isRunning());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(child<QWidget>(m_page, u"verifyProgress"_s)->isVisible());
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.first().first().toBool(), passed);
    QCOMPARE(m_calls, 1);
    // The request comes from the environment's record.
    QCOMPARE(m_request.tensorflow, u"2.10.1"_s);
    QCOMPARE(m_request.probe, u"/opt/tfsetup/tfsetup-probe"_s);

    auto *list = child<ui::StatusList>(m_page, u"layerList"_s);
    QVERIFY(list->isVisible());
    QCOMPARE(list->count(), 5);
    QStringList ids;
    for (int i = 0; i < list->count(); ++i) {
        const ui::StatusRow &row = list->rows().at(i);
        ids.append(row.id);
        auto *widget = child<QWidget>(m_page, u"layerRow_"_s + row.id);
        QVERIFY(widget->isVisible());
        QVERIFY(!child<QLabel>(m_page, u"layerIcon_"_s + row.id)->pixmap().isNull());
        const QString status = widget->property("status").toString();
        if (row.id == failedLayer)
            QCOMPARE(status, u"failed"_s);
        else if (passed || i == 0)
            QCOMPARE(status, u"passed"_s);
        // Every sentence on show is whole: wrapped, never cut with an ellipsis.
        const QString text = child<QLabel>(m_page, u"layerText_"_s + row.id)->text();
        QVERIFY2(!text.isEmpty() && !text.contains(u"…"_s), qPrintable(text));
        QVERIFY(child<QLabel>(m_page, u"layerText_"_s + row.id)->wordWrap());
    }
    QCOMPARE(ids, (QStringList{u"libraries"_s, u"import"_s, u"devices"_s, u"cudnn"_s, u"compute"_s}));
    // The evidence is folded: a collapsed Details toggle over a read-only view.
    auto *toggle = child<QToolButton>(m_page, u"layerDetails_libraries"_s);
    auto *evidence = child<QPlainTextEdit>(m_page, u"layerDetailsView_libraries"_s);
    QVERIFY(toggle->isVisible());
    QVERIFY(!toggle->isChecked());
    QVERIFY(!evidence->isVisible());
    QVERIFY(evidence->isReadOnly());
    QVERIFY(evidence->toPlainText().contains(u"libcudart.so.11.0"_s));
    toggle->click();
    QVERIFY(evidence->isVisible());

    const QString status = child<QLabel>(m_page, u"statusLabel"_s)->text();
    if (!passed) {
        const core::VerifyLayer *first = m_wizard->state().verified()->firstFailure();
        QVERIFY(first);
        QCOMPARE(first->id, failedLayer);
        // The one status line names the failure in plain words and points at the repair.
        QVERIFY2(status.contains(ui::VerifyPage::plainFailure(*first, true)), qPrintable(status));
        QVERIFY2(status.contains(u"repair"_s), qPrintable(status));
        // The machine's words (the layer's explanation with its loader error) are under Details only.
        const QString rowText = child<QLabel>(m_page, u"layerText_"_s + failedLayer)->text();
        QCOMPARE(rowText, ui::VerifyPage::plainFailure(*first, true));
        QVERIFY2(!rowText.contains(u"tfsetup"_s), qPrintable(rowText));
        auto *failedToggle = child<QToolButton>(m_page, u"layerDetails_"_s + failedLayer);
        QVERIFY(!failedToggle->isChecked());
        QVERIFY(!child<QPlainTextEdit>(m_page, u"layerDetailsView_"_s + failedLayer)->isVisible());
        QVERIFY(child<QPlainTextEdit>(m_page, u"layerDetailsView_"_s + failedLayer)
                    ->toPlainText()
                    .contains(first->explanation));
    } else {
        QCOMPARE(status, u"TensorFlow works in the new environment."_s);
    }
    QVERIFY(nextButton()->isEnabled()); // the Finish page says what to do either way
    QVERIFY(m_wizard->state().verified());
    QCOMPARE(m_wizard->state().verified()->passed(), passed);
}

void TestVerifyPage::checkAgain_runsAnotherCheck()
{
    open(u"success"_s);
    QSignalSpy finished(m_page, &ui::VerifyPage::finished);
    m_wizard->show();
    QVERIFY(finished.wait(10'000));
    QTest::mouseClick(child<QPushButton>(m_page, u"verifyAgainButton"_s), Qt::LeftButton);
    QVERIFY(m_page->isRunning());
    QVERIFY(!m_wizard->state().verified());
    QVERIFY(finished.wait(10'000));
    QCOMPARE(m_calls, 2);
    QVERIFY(m_wizard->state().verified());
}

void TestVerifyPage::missingEnvironment_saysSo()
{
    open(u"success"_s, false);
    QSignalSpy finished(m_page, &ui::VerifyPage::finished);
    m_wizard->show();
    QVERIFY(finished.count() > 0 || finished.wait(5'000));
    QCOMPARE(finished.first().first().toBool(), false);
    QCOMPARE(m_calls, 0);
    QVERIFY(child<QLabel>(m_page, u"statusLabel"_s)->text().contains(u"install step"_s));
}

void TestVerifyPage::devices_areNamedForAStudent()
{
    open(u"success"_s);
    QSignalSpy finished(m_page, &ui::VerifyPage::finished);
    m_wizard->show();
    QVERIFY(finished.wait(10'000));
    QVERIFY2(m_page->subTitle().contains(u"graphics card"_s), qPrintable(m_page->subTitle()));
    auto *list = child<ui::StatusList>(m_page, u"layerList"_s);
    QStringList summaries;
    for (const ui::StatusRow &row : list->rows())
        summaries.append(row.text);
    const QString all = summaries.join(u'\n');
    QVERIFY2(all.contains(u"TensorFlow sees GPU 0: NVIDIA GeForce RTX 3060"_s), qPrintable(all));
    QVERIFY2(all.contains(u"on GPU 0: NVIDIA GeForce RTX 3060"_s), qPrintable(all));
    QVERIFY2(!all.contains(u"/job:localhost"_s), qPrintable(all));

    // An older TensorFlow without device details: the name comes from its own log line, and the
    // script's device descriptions when it printed them.
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify/smoke/success.json"_s);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    QJsonObject devices = doc.value(u"devices"_s).toObject();
    devices.insert(u"gpus"_s, QJsonArray{QJsonObject{{u"name"_s, u"/physical_device:GPU:0"_s}}});
    doc.insert(u"devices"_s, devices);
    const auto parsed = [](const QJsonObject &document) {
        core::ProcessResult process;
        process.started = true;
        process.standardOutput = QJsonDocument(document).toJson(QJsonDocument::Compact) + '\n';
        return core::SmokeResult::parse(process, true);
    };
    core::SmokeResult old = parsed(doc);
    QCOMPARE(old.gpus, QStringList{u"NVIDIA GeForce RTX 3060"_s});
    QCOMPARE(old.deviceTitle(u"/job:localhost/replica:0/task:0/device:GPU:0"_s), u"GPU 0: NVIDIA GeForce RTX 3060"_s);
    QCOMPARE(old.deviceTitle(u"/job:localhost/replica:0/task:0/device:CPU:0"_s), u"the processor"_s);
    doc.insert(u"log"_s, QJsonArray{});
    doc.insert(u"device_descriptions"_s,
               QJsonArray{QJsonObject{{u"name"_s, u"/device:GPU:0"_s},
                                      {u"description"_s,
                                       u"device: 0, name: NVIDIA GeForce GTX 1060 6GB, pci bus id: "
                                       u"0000:01:00.0, compute capability: 6.1"_s}}});
    QCOMPARE(parsed(doc).gpus, QStringList{u"NVIDIA GeForce GTX 1060 6GB"_s});
    // Nothing to go by: a number, still not a device path.
    doc.remove(u"device_descriptions"_s);
    const core::SmokeResult bare = parsed(doc);
    QCOMPARE(bare.deviceTitle(u"/job:localhost/replica:0/task:0/device:GPU:0"_s), u"GPU 0"_s);
    QVERIFY(!bare.layer(u"devices"_s)->summary.contains(u"/physical_device"_s));
}

void TestVerifyPage::cpuRoute_promisesNoGpu()
{
    // An environment planned for the processor.
    QFile record(m_root->filePath(environment.mid(1)) + u"/environment.json"_s);
    QVERIFY(record.open(QIODevice::WriteOnly | QIODevice::Truncate));
    record.write(R"({"schema": 1, "name": "tf2.15-cpu", "os": "linux",
                     "plan": {"route": "cpu", "tensorflow": "2.15.0"},
                     "launchers": ["start-python.sh", "shell.sh"]})");
    record.close();
    open(u"cpu_route"_s);
    m_page->setVerifyFunction([this](core::SystemView &, core::VerifyRequest request, core::Catalog) {
        ++m_calls;
        m_request = request;
        return delayedReport(u"cpu_route"_s);
    });
    QSignalSpy finished(m_page, &ui::VerifyPage::finished);
    m_wizard->show();
    QVERIFY(m_page->isRunning());
    QVERIFY(!m_request.expectGpu);
    for (const QString &text : {m_page->subTitle(), child<QLabel>(m_page, u"statusLabel"_s)->text()}) {
        QVERIFY2(!text.contains(u"graphics card"_s), qPrintable(text));
        QVERIFY2(!text.contains(u"GPU"_s), qPrintable(text));
    }
    QVERIFY2(m_page->subTitle().contains(u"processor"_s), qPrintable(m_page->subTitle()));
    QVERIFY(finished.wait(10'000));
    QVERIFY(!m_page->subTitle().contains(u"graphics card"_s));
}

QTEST_MAIN(TestVerifyPage)
#include "test_verifypage.moc"
