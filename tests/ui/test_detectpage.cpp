// The Detect page: runs detection without blocking the GUI, then shows plain sentences, friendly
// notes, a details tree with sources, and copies the report. Driven by objectName.

#include "detect/detector.h"
#include "detect/reportsummary.h"
#include "support/coroutinetest.h"
#include "system/rootedsystem.h"
#include "ui/detectpage.h"
#include "ui/setupwizard.h"
#include "util/runlog.h"

#include <QAbstractButton>
#include <QApplication>
#include <QClipboard>
#include <QCoro/QCoroTimer>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>

using namespace tfsetup;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(tfsetup::core::OsFamily)

namespace {

// A Linux machine with an os-release file and an nvidia-smi banner; whatever the scanners make
// of it, the page must say the same as ReportSummary does for a direct scan.
void writeFixture(const QString &root)
{
    QDir(root).mkpath(QStringLiteral("etc"));
    QDir(root).mkpath(QStringLiteral(".fixture"));
    QFile osRelease(root + QStringLiteral("/etc/os-release"));
    QVERIFY(osRelease.open(QIODevice::WriteOnly));
    osRelease.write("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
                    "VERSION_ID=\"12\"\nID=debian\n");
    QFile description(root + QStringLiteral("/.fixture/system.json"));
    QVERIFY(description.open(QIODevice::WriteOnly));
    description.write(R"j({ "arch": "x86_64",
        "cpuid": { "vendor": "GenuineIntel", "brand": "Intel(R) Core(TM) i5-10400 CPU @ 2.90GHz",
                   "sse42": true, "avx": true, "avx2": true, "fma": true, "avx512f": false },
        "commands": [ { "program": "nvidia-smi", "args": [], "exit": 0,
                        "stdout": "| NVIDIA-SMI 531.14   Driver Version: 531.14   CUDA Version: 12.1 |\n" } ] })j");
}

core::HardwareReport reportFromJson(const char *json)
{
    return core::HardwareReport::fromJson(QJsonDocument::fromJson(json).object());
}

// Answers with a fixed report on the next turn of the event loop (a real scan never answers
// synchronously); counts how often it was asked.
struct CannedDetect {
    core::HardwareReport report;
    std::shared_ptr<int> calls = std::make_shared<int>(0);

    ui::DetectPage::DetectFunction function() const
    {
        return [report = report, calls = calls](core::SystemView &) -> QCoro::Task<core::HardwareReport> {
            ++*calls;
            QTimer turn;
            turn.setSingleShot(true);
            turn.start(0);
            co_await turn;
            co_return report;
        };
    }
};

// Real detection, but every program takes a while to answer, as nvidia-smi does on a cold
// driver. RootedSystem cannot sleep, so the wait is a timer awaited before the canned answer.
class SlowSystem final : public core::RootedSystem {
public:
    SlowSystem(const QString &root, std::chrono::milliseconds delay)
        : RootedSystem(root, core::OsFamily::Linux, {})
        , m_delay(delay)
    {}

    QCoro::Task<core::ProcessResult> run(QString program, QStringList arguments,
                                         std::chrono::milliseconds timeout) override
    {
        ++runs;
        QTimer timer;
        timer.setSingleShot(true);
        timer.start(m_delay);
        co_await timer;
        co_return co_await RootedSystem::run(std::move(program), std::move(arguments), timeout);
    }

    int runs = 0;

private:
    std::chrono::milliseconds m_delay;
};

// Next or Finish, whichever the wizard shows on this page (Detect is last until more pages come).
QAbstractButton *forwardButton(QWizard &wizard)
{
    QAbstractButton *next = wizard.button(QWizard::NextButton);
    return next->isVisible() ? next : wizard.button(QWizard::FinishButton);
}

template<typename T>
T *child(QWidget *parent, const char *name)
{
    return parent->findChild<T *>(QLatin1String(name));
}

} // namespace

class TestDetectPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void rootedFixture_showsWhatDirectScanSays();
    void fixtureMachine_showsExpectedSentences_data();
    void fixtureMachine_showsExpectedSentences();
    void cannedReport_showsPlainSentences_data();
    void cannedReport_showsPlainSentences();
    void next_enabledOnlyAfterDetection();
    void detection_keepsGuiResponsive();
    void copyReport_putsTextAndJsonOnClipboard();
    void details_showEachFieldWithItsSource();
    void scanAgain_runsDetectionAgain();
    void problems_showLogPath();
    void validate_commitsReportToState();

private:
    void openDetectPage(const ui::DetectPage::DetectFunction &detect);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::DetectPage *m_page = nullptr;
};

void TestDetectPage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    writeFixture(m_root->path());
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux, QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->findChild<ui::DetectPage *>(QStringLiteral("detectPage"));
    QVERIFY(m_page);
}

void TestDetectPage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
    core::RunLog::stop();
}

void TestDetectPage::openDetectPage(const ui::DetectPage::DetectFunction &detect)
{
    if (detect)
        m_page->setDetectFunction(detect);
    m_wizard->show();
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
}

void TestDetectPage::rootedFixture_showsWhatDirectScanSays()
{
    const auto direct = test::awaitTask(core::detectHardware(*m_system));
    QVERIFY(direct);

    openDetectPage({});
    // A scan that never waits on a program finishes before next() returns.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->isComplete(), 10'000);

    auto *findings = child<QLabel>(m_page, "findingsLabel");
    QVERIFY(findings->isVisible());
    const QStringList sentences = core::ReportSummary::lines(*direct);
    QVERIFY(!sentences.isEmpty());
    for (const QString &sentence : sentences)
        QVERIFY2(findings->text().contains(sentence), qPrintable(sentence));
    QVERIFY(findings->text().contains(QLatin1String("System: Debian GNU/Linux 12 (bookworm), x86_64")));
    QVERIFY(!child<QProgressBar>(m_page, "busyIndicator")->isVisible());
}

void TestDetectPage::fixtureMachine_showsExpectedSentences_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<core::OsFamily>("os");
    QTest::addColumn<QStringList>("sentences");
    QTest::addColumn<QString>("note");

    // The machines described in tests/data/fixtures/README.md.
    QTest::newRow("windows with two toolkits")
        << QStringLiteral("windows-two-toolkits") << core::OsFamily::Windows
        << QStringList{QStringLiteral("System: Windows 10 Pro 22H2 (build 19045), x86_64"),
                       QStringLiteral("Your GPU: NVIDIA GeForce RTX 3060, compute capability 8.6, 12.0 GiB of memory"),
                       QStringLiteral("NVIDIA driver 531.14 supports CUDA up to 12.1"),
                       QStringLiteral(
                           "CUDA toolkit 11.2.2 in C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2")}
        << QStringLiteral("tfsetup could not ask the NVIDIA driver library (NVML) about your GPU.");
    QTest::newRow("linux with cuda 11.8")
        << QStringLiteral("linux-cuda118") << core::OsFamily::Linux
        << QStringList{QStringLiteral("System: Ubuntu 22.04.3 LTS, x86_64"),
                       QStringLiteral("NVIDIA driver 535.104.05 supports CUDA up to 12.2"),
                       QStringLiteral("Processor: AMD Ryzen 7 2700X Eight-Core Processor, with the AVX instructions "
                                      "TensorFlow needs"),
                       QStringLiteral("CUDA toolkit 11.8.0 in /usr/local/cuda-11.8")}
        << QStringLiteral("tfsetup could not ask the CUDA driver about your GPU.");
    QTest::newRow("wsl2") << QStringLiteral("wsl2") << core::OsFamily::Linux
                          << QStringList{QStringLiteral("System: Ubuntu 22.04.3 LTS under WSL2, x86_64"),
                                         QStringLiteral("NVIDIA driver 537.13 supports CUDA up to 12.2")}
                          << QString();
    QTest::newRow("no gpu, no avx")
        << QStringLiteral("no-gpu") << core::OsFamily::Linux
        << QStringList{QStringLiteral("No NVIDIA GPU was found. TensorFlow can still run on the CPU."),
                       QStringLiteral("Processor: Intel(R) Pentium(R) CPU G640 @ 2.80GHz. It lacks AVX, which official "
                                      "TensorFlow builds since 1.6 need.")}
        << QStringLiteral("nvidia-smi, the tool that comes with the NVIDIA driver, is not installed here.");
}

void TestDetectPage::fixtureMachine_showsExpectedSentences()
{
    QFETCH(QString, fixture);
    QFETCH(core::OsFamily, os);
    QFETCH(QStringList, sentences);
    QFETCH(QString, note);

    const QString dir = qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/fixtures/") + fixture;
    auto system = core::RootedSystem::open(dir + QStringLiteral("/root"), os, dir + QStringLiteral("/env"));
    QVERIFY2(system, qPrintable(system ? QString() : system.error().message));
    ui::SetupWizard wizard(**system, nullptr);
    auto *page = wizard.findChild<ui::DetectPage *>(QStringLiteral("detectPage"));
    wizard.show();
    wizard.next();
    QTRY_VERIFY_WITH_TIMEOUT(page->isComplete(), 10'000);

    const QString findings = child<QLabel>(page, "findingsLabel")->text();
    for (const QString &sentence : sentences)
        QVERIFY2(findings.contains(sentence), qPrintable(sentence + QStringLiteral("\n---\n") + findings));
    if (!note.isEmpty())
        QVERIFY2(child<QLabel>(page, "notesLabel")->text().contains(note), qPrintable(note));
}

void TestDetectPage::cannedReport_showsPlainSentences_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("sentences");
    QTest::addColumn<QString>("note");

    QTest::newRow("gpu with driver")
        << QByteArray(R"j({"os": {"family": "windows", "version": "Windows 11 23H2 (build 22631)", "arch": "x86_64"},
             "cpu": {"name": "AMD Ryzen 5 5600X", "avx": true, "avx2": true, "source": "cpuid"},
             "gpus": [{"vendor": "nvidia", "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6",
                       "memory_mib": 12288, "source": "nvml"}],
             "driver": {"version": "531.14", "cuda": "12.1", "source": "nvml"}})j")
        << QStringList{QStringLiteral("Your GPU: NVIDIA GeForce RTX 3060, compute capability 8.6, 12.0 GiB of memory"),
                       QStringLiteral("NVIDIA driver 531.14 supports CUDA up to 12.1"),
                       QStringLiteral("System: Windows 11 23H2 (build 22631), x86_64")}
        << QString();
    QTest::newRow("no nvidia gpu")
        << QByteArray(R"j({"os": {"family": "linux", "arch": "x86_64"},
             "gpus": [{"vendor": "intel", "name": "UHD Graphics 630", "source": "pci"}]})j")
        << QStringList{QStringLiteral("No NVIDIA GPU was found. TensorFlow can still run on the CPU."),
                       QStringLiteral(
                           "Other graphics: UHD Graphics 630 (intel); TensorFlow's CUDA build cannot use it.")}
        << QString();
    QTest::newRow("gpu without driver, nvidia-smi failed")
        << QByteArray(R"j({"os": {"family": "linux", "arch": "x86_64"},
             "gpus": [{"vendor": "nvidia", "name": "NVIDIA GeForce GTX 1650", "pci_id": "10de:1f82", "source": "pci"}],
             "problems": [{"method": "nvidia-smi", "error": "program not found"}]})j")
        << QStringList{QStringLiteral("Your GPU: NVIDIA GeForce GTX 1650 (compute capability unknown)"),
                       QStringLiteral(
                           "No working NVIDIA driver was found. Install the driver for your GPU from NVIDIA first.")}
        << QStringLiteral("nvidia-smi, the tool that comes with the NVIDIA driver, is not installed here.");
    QTest::newRow("processor without avx")
        << QByteArray(R"j({"os": {"family": "linux", "arch": "x86_64"},
             "cpu": {"name": "Intel(R) Pentium(R) CPU G640", "avx": false, "source": "proc-cpuinfo"}})j")
        << QStringList{QStringLiteral("Processor: Intel(R) Pentium(R) CPU G640. It lacks AVX, which official "
                                      "TensorFlow builds since 1.6 need.")}
        << QString();
}

void TestDetectPage::cannedReport_showsPlainSentences()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, sentences);
    QFETCH(QString, note);

    CannedDetect canned{reportFromJson(json.constData())};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(finished.wait(5'000));

    const QString findings = child<QLabel>(m_page, "findingsLabel")->text();
    for (const QString &sentence : sentences)
        QVERIFY2(findings.contains(sentence), qPrintable(sentence + QStringLiteral("\n---\n") + findings));

    auto *notes = child<QLabel>(m_page, "notesLabel");
    QCOMPARE(notes->isVisible(), !note.isEmpty());
    if (!note.isEmpty()) {
        QVERIFY2(notes->text().contains(note), qPrintable(notes->text()));
        // The raw error is for the details view and the log, not the note.
        QVERIFY(!notes->text().contains(QLatin1String("program not found")));
    }
}

void TestDetectPage::next_enabledOnlyAfterDetection()
{
    SlowSystem slow(m_root->path(), 200ms);
    ui::SetupWizard wizard(slow, nullptr);
    auto *page = wizard.findChild<ui::DetectPage *>(QStringLiteral("detectPage"));
    wizard.show();
    QVERIFY(forwardButton(wizard)->isEnabled()); // the welcome page has a default choice
    QSignalSpy finished(page, &ui::DetectPage::detectionFinished);
    page->setDetectFunction([](core::SystemView &system) -> QCoro::Task<core::HardwareReport> {
        co_await system.run(QStringLiteral("nvidia-smi"), {}, 4s);
        co_return co_await core::detectHardware(system);
    });
    wizard.next();

    QVERIFY(page->isRunning());
    QVERIFY(!page->isComplete());
    QVERIFY(!forwardButton(wizard)->isEnabled());
    QVERIFY(!child<QPushButton>(page, "scanAgainButton")->isEnabled());
    QVERIFY(!child<QPushButton>(page, "copyReportButton")->isEnabled());

    QVERIFY(finished.wait(10'000));
    QVERIFY(page->isComplete());
    QVERIFY(forwardButton(wizard)->isEnabled());
    QVERIFY(child<QPushButton>(page, "scanAgainButton")->isEnabled());
}

void TestDetectPage::detection_keepsGuiResponsive()
{
    SlowSystem slow(m_root->path(), 400ms);
    ui::SetupWizard wizard(slow, nullptr);
    auto *page = wizard.findChild<ui::DetectPage *>(QStringLiteral("detectPage"));
    // The scan waits on a slow program first, as the GPU scan waits on nvidia-smi.
    page->setDetectFunction([](core::SystemView &system) -> QCoro::Task<core::HardwareReport> {
        co_await system.run(QStringLiteral("nvidia-smi"), {}, 4s);
        co_return co_await core::detectHardware(system);
    });

    int ticksWhileRunning = 0;
    QTimer ticker;
    ticker.setInterval(10ms);
    connect(&ticker, &QTimer::timeout, page, [&ticksWhileRunning, page] {
        if (page->isRunning())
            ++ticksWhileRunning;
    });
    ticker.start();

    QSignalSpy finished(page, &ui::DetectPage::detectionFinished);
    wizard.show();
    wizard.next(); // returns at once: detection runs in the background
    QVERIFY(page->isRunning());
    QVERIFY(child<QProgressBar>(page, "busyIndicator")->isVisible());
    QVERIFY(finished.wait(10'000));

    QVERIFY(slow.runs >= 1);
    // 400 ms of waiting at 10 ms a tick: a blocked GUI thread would have ticked at most once.
    QVERIFY2(ticksWhileRunning >= 10, qPrintable(QString::number(ticksWhileRunning)));
}

void TestDetectPage::copyReport_putsTextAndJsonOnClipboard()
{
    CannedDetect canned{reportFromJson(R"j({"os": {"family": "linux", "arch": "x86_64"},
        "gpus": [{"vendor": "nvidia", "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "source": "nvidia-smi"}],
        "driver": {"version": "531.14", "cuda": "12.1", "source": "nvidia-smi"}})j")};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(finished.wait(5'000));

    QGuiApplication::clipboard()->clear();
    QTest::mouseClick(child<QPushButton>(m_page, "copyReportButton"), Qt::LeftButton);

    const QMimeData *mime = QGuiApplication::clipboard()->mimeData();
    QVERIFY(mime);
    const QString text = mime->text();
    QVERIFY2(text.contains(QLatin1String("Your GPU: NVIDIA GeForce RTX 3060, compute capability 8.6")),
             qPrintable(text));
    QVERIFY(text.contains(QLatin1String("\"compute_capability\": \"8.6\"")));
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(mime->data(QStringLiteral("application/json")), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.object().value(QLatin1String("driver")).toObject().value(QLatin1String("version")).toString(),
             QStringLiteral("531.14"));
}

void TestDetectPage::details_showEachFieldWithItsSource()
{
    CannedDetect canned{reportFromJson(R"j({"os": {"family": "linux", "arch": "x86_64"},
        "gpus": [{"vendor": "nvidia", "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "source": "nvml"}],
        "driver": {"version": "531.14", "cuda": "12.1", "source": "nvidia-smi"}})j")};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(finished.wait(5'000));

    auto *tree = child<QTreeWidget>(m_page, "detailsTree");
    auto *toggle = child<QToolButton>(m_page, "detailsToggle");
    QVERIFY(!tree->isVisible());
    toggle->click();
    QVERIFY(tree->isVisible());

    const auto ccItems = tree->findItems(QStringLiteral("compute_capability"), Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(ccItems.size(), 1);
    QCOMPARE(ccItems.first()->text(1), QStringLiteral("8.6"));
    QCOMPARE(ccItems.first()->text(2), QStringLiteral("nvml"));
    const auto cudaItems = tree->findItems(QStringLiteral("cuda"), Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(cudaItems.size(), 1);
    QCOMPARE(cudaItems.first()->text(2), QStringLiteral("nvidia-smi"));
    // Sections come in reading order, not alphabetically.
    QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("os"));

    toggle->click();
    QVERIFY(!tree->isVisible());
}

void TestDetectPage::scanAgain_runsDetectionAgain()
{
    CannedDetect canned{reportFromJson(R"j({"os": {"family": "linux", "arch": "x86_64"}})j")};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(finished.wait(5'000));
    QCOMPARE(*canned.calls, 1);

    // Going back and forward keeps the finished scan.
    m_wizard->back();
    m_wizard->next();
    QCOMPARE(*canned.calls, 1);

    QTest::mouseClick(child<QPushButton>(m_page, "scanAgainButton"), Qt::LeftButton);
    QVERIFY(finished.count() == 2 || finished.wait(5'000));
    QCOMPARE(*canned.calls, 2);
    QVERIFY(m_page->isComplete());
}

void TestDetectPage::problems_showLogPath()
{
    QTemporaryDir logDir;
    QVERIFY(logDir.isValid());
    const QString log = core::RunLog::start(logDir.path());
    QVERIFY(!log.isEmpty());

    CannedDetect canned{reportFromJson(R"j({"os": {"family": "linux", "arch": "x86_64"},
        "problems": [{"method": "nvml", "error": "libnvidia-ml.so.1: cannot open shared object file"}]})j")};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(finished.wait(5'000));

    auto *logLabel = child<QLabel>(m_page, "logLabel");
    QVERIFY(logLabel->isVisible());
    QVERIFY2(logLabel->text().contains(QDir::toNativeSeparators(log)), qPrintable(logLabel->text()));
}

void TestDetectPage::validate_commitsReportToState()
{
    CannedDetect canned{reportFromJson(R"j({"os": {"family": "linux", "arch": "x86_64"},
        "gpus": [{"vendor": "nvidia", "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "source": "nvml"}]})j")};
    QSignalSpy finished(m_page, &ui::DetectPage::detectionFinished);
    openDetectPage(canned.function());
    QVERIFY(!m_wizard->state().hardware());
    QVERIFY(!m_page->validatePage()); // still scanning
    QVERIFY(finished.wait(5'000));

    QVERIFY(m_page->validatePage());
    QVERIFY(m_wizard->state().hardware());
    QCOMPARE(m_wizard->state().hardware()->nvidiaGpus().value(0).name, QStringLiteral("NVIDIA GeForce RTX 3060"));
}

QTEST_MAIN(TestDetectPage)
#include "test_detectpage.moc"
