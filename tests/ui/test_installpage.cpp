// The Install page over a Windows fixture drive: the spec comes from the setup flow (plan,
// verified downloads, options), steps and log follow the installer, Next waits for a finished
// environment, Stop leaves nothing behind, a failed step says why and Try again starts over.

#include "uitest.h"
#include "layoutcheck.h"
#include "support/installarchives.h"
#include "install/installer.h"
#include "install/pipfailure.h"
#include "setup/setupflow.h"
#include "util/i18n.h"
#include "util/units.h"
#include "support/fixturetree.h"
#include "ui/installpage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QLocale>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

using namespace tfsetup;
using namespace tfsetup::test;
using namespace Qt::StringLiterals;
using core::InstallStep;
using StepState = ui::InstallPage::StepState;

Q_DECLARE_METATYPE(tfsetup::core::InstallStep)
Q_DECLARE_METATYPE(tfsetup::core::PipFix)

namespace {

const QString prefix = u"C:/Users/student/tfsetup-envs"_s;

QString sha256(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QString::fromLatin1(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex());
}

using tfsetup::test::child;

// pip's output as it prints it after its retries through a proxy that refuses.
const QString proxyRefused =
    u"Looking in indexes: https://pypi.org/simple\n"
    u"WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken "
    u"by 'ProxyError('Cannot connect to proxy.', NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection "
    u"object at 0x7f3a1c2b5d90>: Failed to establish a new connection: [Errno 111] Connection refused'))': "
    u"/simple/tensorflow/\n"
    u"ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.1 (from versions: none)\n"
    u"ERROR: No matching distribution found for tensorflow==2.10.1\n"_s;

} // namespace

class TestInstallPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void install_showsStepsAndLog_thenNext();
    void stop_leavesNothingBehind();
    void failedStep_saysWhy_andTryAgainWorks_data();
    void failedStep_saysWhy_andTryAgainWorks();
    void missingDownload_saysWhatToDo();
    void progress_movesThroughTheSteps();
    void log_wrapsAndFollowsUnlessScrolledUp();
    void closingWhileInstalling_asksFirst();
    void pipFailure_showsCauseOneFixAndFoldedDetails_data();
    void pipFailure_showsCauseOneFixAndFoldedDetails();
    void pipFailure_fitsAndIsScreenshot_data();
    void pipFailure_fitsAndIsScreenshot();
    void progress_movesWithTheBytes();

private:
    void failPipWith(const QString &output);
    core::Artifact artifact(const QString &name, const QString &kind, const QString &file, const QList<Entry> &entries);
    void open(core::Translations *translations = nullptr);
    bool finish(QSignalSpy &spy) { return spy.count() > 0 || spy.wait(30'000); }
    QStringList leftovers() const
    {
        return QDir(m_view->hostPath(prefix)).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    }
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }

    std::unique_ptr<FixtureTree> m_tree;
    std::unique_ptr<core::RootedSystem> m_view;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::InstallPage *m_page = nullptr;
    core::ArtifactList m_list;
    QString m_cache;
};

core::Artifact TestInstallPage::artifact(const QString &name, const QString &kind, const QString &file,
                                         const QList<Entry> &entries)
{
    core::Artifact a;
    a.name = name;
    a.version = name == u"cudnn" ? u"8.1.0.77"_s : u"11.8.89"_s;
    a.platform = u"windows-x86_64"_s;
    a.kind = kind;
    a.relativePath = u"compute/redist/"_s + file;
    a.urls = {QUrl(u"https://developer.download.nvidia.com/"_s + a.relativePath)};
    const QString path = core::SetupFlow::destinationFor(a, m_cache);
    const auto written = core::ArchiveWriter::write(path, core::ArchiveWriter::Zip, entries);
    if (!written)
        qWarning() << written.error().detail;
    a.sha256 = sha256(path);
    return a;
}

void TestInstallPage::init()
{
    m_tree = std::make_unique<FixtureTree>();
    QVERIFY(m_tree->write({{u"C/Users/student/"_s, {}}}));
    QVERIFY(m_tree->writeEnv({{u"USERPROFILE"_s, u"C:\\Users\\student"_s},
                              {u"APPDATA"_s, u"C:\\Users\\student\\AppData\\Roaming"_s},
                              {u"PATH"_s, u"C:\\Windows\\System32"_s}}));
    m_view = m_tree->open(core::OsFamily::Windows);
    QVERIFY(m_view);
    m_cache = m_tree->filePath(u"downloads"_s);
    QVERIFY(QDir().mkpath(m_cache));
    m_list = {};
    m_list.route = u"windows-native"_s;
    m_list.os = u"windows"_s;
    m_list.artifacts = {artifact(u"cuda_cudart"_s, u"cuda-redist-archive"_s,
                                 u"cuda_cudart-windows-x86_64-11.8.89-archive.zip"_s,
                                 cudartArchive(true, u"11.8.89"_s, {}, u"cudart64_110.dll"_s)),
                        artifact(u"cudnn"_s, u"cudnn-archive"_s, u"cudnn-11.2-windows-x64-v8.1.0.77.zip"_s,
                                 cudnnArchive(true, u"8.1.0.77"_s, true))};
}

void TestInstallPage::cleanup()
{
    m_wizard.reset();
    m_view.reset();
    m_tree.reset();
}

void TestInstallPage::open(core::Translations *translations)
{
    m_wizard = std::make_unique<ui::SetupWizard>(*m_view, translations);
    m_page = m_wizard->installPage();
    QCOMPARE(m_page->objectName(), u"installPage"_s);
    ui::WizardState &state = m_wizard->state();
    core::HardwareReport report;
    report.os.family = u"windows"_s;
    state.setHardware(report);
    core::Plan plan;
    plan.route = u"windows-native"_s;
    plan.tensorflow = u"2.10.1"_s;
    plan.package = u"tensorflow"_s;
    plan.cuda = u"11.2"_s;
    plan.cudnn = u"8.1"_s;
    // No Python here: a fixture drive cannot run one. The journey test makes a real venv.
    state.setPlan(plan);
    core::SetupOptions options;
    options.prefix = prefix;
    options.cacheDir = m_cache;
    state.setOptions(options);
    state.setArtifacts(m_list);
    QList<core::DownloadResult> results;
    for (const core::DownloadRequest &r : core::SetupFlow::downloadPlan(m_list, {}, options).requests)
        results.append(core::DownloadResult{r.destination, 1, r.urls.first(), false, false});
    state.setDownloaded(results);
    m_wizard->setStartId(ui::SetupWizard::InstallPageId);
}

void TestInstallPage::install_showsStepsAndLog_thenNext()
{
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    QSignalSpy started(m_page->installer(), &core::Installer::stepStarted);
    // No step runs inside show(): the student sees the page (and can close it) before any work,
    // however fast the thread pool answers.
    QStringList offScreen;
    ui::SetupWizard *wizard = m_wizard.get();
    m_page->installer()->setCheckpoint([wizard, &offScreen](InstallStep step) -> core::Status {
        if (!wizard->isVisible())
            offScreen.append(core::installStepId(step));
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(m_page->isRunning());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(child<QPushButton>(m_page, u"cancelInstallButton"_s)->isEnabled());
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(started.count() >= 8);
    QCOMPARE(offScreen, QStringList());

    const auto *steps = child<QListWidget>(m_page, u"stepList"_s);
    QCOMPARE(steps->count(), int(core::allInstallSteps().size()));
    for (InstallStep step : core::allInstallSteps())
        QCOMPARE(m_page->stepState(step), StepState::Done);
    QVERIFY(steps->item(0)->text().startsWith(u"✓"_s));
    QVERIFY(!child<QPlainTextEdit>(m_page, u"installLog"_s)->toPlainText().isEmpty());
    QVERIFY(nextButton()->isEnabled());

    const auto &installed = m_wizard->state().installed();
    QVERIFY(installed);
    QCOMPARE(installed->environmentPath, prefix + u"/tf2.10-cuda11.2"_s);
    QVERIFY(QFile::exists(m_view->hostPath(installed->environmentPath + u"/environment.json"_s)));
    QVERIFY(child<QLabel>(m_page, u"summaryLabel"_s)->text().contains(u"tf2.10-cuda11.2"_s));
}

void TestInstallPage::stop_leavesNothingBehind()
{
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    auto *stop = child<QPushButton>(m_page, u"cancelInstallButton"_s);
    // Stop is pressed while the libraries are being placed; the staging folder exists by then.
    m_page->installer()->setCheckpoint([stop](InstallStep step) -> core::Status {
        if (step == InstallStep::Launchers)
            QTest::mouseClick(stop, Qt::LeftButton);
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(m_page->error());
    QCOMPARE(m_page->error()->code, u"cancelled"_s);
    QCOMPARE(leftovers(), QStringList());
    QVERIFY(!m_wizard->state().installed());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(child<QLabel>(m_page, u"statusLabel"_s)->text().contains(u"Nothing was left behind"_s));
    QVERIFY(child<QPushButton>(m_page, u"retryButton"_s)->isVisible());
}

void TestInstallPage::failedStep_saysWhy_andTryAgainWorks_data()
{
    QTest::addColumn<InstallStep>("step");
    for (InstallStep step : {InstallStep::Extract, InstallStep::Place, InstallStep::Launchers, InstallStep::Commit})
        QTest::newRow(qPrintable(core::installStepId(step))) << step;
}

void TestInstallPage::failedStep_saysWhy_andTryAgainWorks()
{
    QFETCH(InstallStep, step);
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    m_page->installer()->setCheckpoint([step](InstallStep current) -> core::Status {
        if (current == step)
            return core::Error{u"drill"_s, u"The disk is full. Free some space and try again."_s, {}};
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), false);
    QCOMPARE(m_page->stepState(step), StepState::Failed);
    QVERIFY(child<QLabel>(m_page, u"statusLabel"_s)->text().contains(u"The disk is full"_s));
    QVERIFY(!nextButton()->isEnabled());
    QCOMPARE(leftovers(), QStringList());

    m_page->installer()->setCheckpoint({});
    finished.clear();
    QTest::mouseClick(child<QPushButton>(m_page, u"retryButton"_s), Qt::LeftButton);
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(m_page->stepState(step), StepState::Done);
    QVERIFY(nextButton()->isEnabled());
}

void TestInstallPage::missingDownload_saysWhatToDo()
{
    open();
    m_wizard->state().setDownloaded({});
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), false);
    QCOMPARE(m_page->error()->code, u"artifact_not_downloaded"_s);
    QVERIFY(child<QLabel>(m_page, u"statusLabel"_s)->text().contains(u"download step"_s));
    QVERIFY(!nextButton()->isEnabled());
    QCOMPARE(leftovers(), QStringList());
}

void TestInstallPage::progress_movesThroughTheSteps()
{
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    auto *bar = child<QProgressBar>(m_page, u"installProgress"_s);
    auto *busy = child<QProgressBar>(m_page, u"stepBusyIndicator"_s);
    auto *now = child<QLabel>(m_page, u"currentStepLabel"_s);
    core::Installer *installer = m_page->installer();
    QList<int> values;
    bool busyShown = true;
    bool sawPackages = false;
    bool pipMoved = false;
    QString packagesText;
    // Each checkpoint runs as its step starts: the bar is read there.
    installer->setCheckpoint([&](InstallStep step) -> core::Status {
        values.append(bar->value());
        // The first step may start before the window is on screen: shown, not necessarily visible.
        busyShown = busyShown && !busy->isHidden() && !now->isHidden();
        if (step == InstallStep::Packages) {
            sawPackages = true;
            packagesText = now->text();
            // pip's lines move the bar on within its (long) step.
            const int before = bar->value();
            for (int i = 0; i < 20; ++i)
                Q_EMIT installer->logLine(u"Collecting package-%1"_s.arg(i));
            pipMoved = bar->value() > before;
        }
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), true);

    QVERIFY(values.size() >= 8);
    for (qsizetype i = 1; i < values.size(); ++i)
        QVERIFY2(values.at(i) >= values.at(i - 1), qPrintable(QString::number(i)));
    // Not 0 % then 100 %: most steps start somewhere in between.
    const auto between = std::count_if(values.cbegin(), values.cend(),
                                       [bar](int v) { return v > 0 && v < bar->maximum(); });
    QVERIFY2(between >= values.size() - 2, qPrintable(QString::number(between)));
    QVERIFY(busyShown);
    QVERIFY(sawPackages);
    QVERIFY(pipMoved);
    QVERIFY2(packagesText.contains(u"pip"_s), qPrintable(packagesText));
    // The log names each step as the list does, translated, not by its id.
    const QString log = child<QPlainTextEdit>(m_page, u"installLog"_s)->toPlainText();
    QVERIFY2(log.contains(u"== Install TensorFlow with pip"_s), qPrintable(log.left(400)));
    QVERIFY(!log.contains(u"== packages"_s));
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY(!busy->isVisible());
    QVERIFY(!now->isVisible());
}

void TestInstallPage::log_wrapsAndFollowsUnlessScrolledUp()
{
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    m_wizard->show();
    QVERIFY(finish(finished));
    auto *log = child<QPlainTextEdit>(m_page, u"installLog"_s);
    QCOMPARE(log->lineWrapMode(), QPlainTextEdit::WidgetWidth);
    // Folded under Details until the student opens it.
    QVERIFY(!log->isVisibleTo(m_page));
    QTest::mouseClick(child<QToolButton>(m_page, u"detailsButton"_s), Qt::LeftButton);
    QVERIFY(log->isVisibleTo(m_page));
    core::Installer *installer = m_page->installer();
    const QString longLine = u"Downloading https://files.pythonhosted.org/packages/tensorflow-2.10.1-cp310-cp310-"
                             u"win_amd64.whl (455.9 MB) "_s.repeated(3);
    const auto emitLines = [installer, &longLine](int n) {
        for (int i = 0; i < n; ++i)
            Q_EMIT installer->logLine(u"%1 %2"_s.arg(i).arg(longLine));
        QCoreApplication::processEvents();
    };
    emitLines(200);
    QScrollBar *vertical = log->verticalScrollBar();
    QVERIFY(vertical->maximum() > 0);
    QCOMPARE(vertical->value(), vertical->maximum());   // follows the newest line
    QCOMPARE(log->horizontalScrollBar()->maximum(), 0); // long lines wrap instead

    // Scrolled up to read: new lines do not pull the view away.
    vertical->setValue(0);
    emitLines(50);
    QCOMPARE(vertical->value(), 0);
    // Back at the end: it follows again.
    vertical->setValue(vertical->maximum());
    emitLines(50);
    QCOMPARE(vertical->value(), vertical->maximum());
}

void TestInstallPage::closingWhileInstalling_asksFirst()
{
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    QStringList asked;
    bool answer = false;
    m_wizard->setCloseQuestion([&asked, &answer](const QString &, const QString &text) {
        asked.append(text);
        return answer;
    });
    ui::SetupWizard *wizard = m_wizard.get();
    // The student closes the window while the launchers are written: once "no", once "yes".
    m_page->installer()->setCheckpoint([wizard, &answer](InstallStep step) -> core::Status {
        if (step == InstallStep::Place)
            wizard->reject();
        if (step == InstallStep::Launchers) {
            answer = true;
            wizard->reject();
        }
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(asked.size(), 2);
    QVERIFY2(asked.first().contains(u"still being built"_s), qPrintable(asked.first()));
    // "Yes" stopped the install, which left nothing behind.
    QCOMPARE(finished.first().first().toBool(), false);
    QCOMPARE(m_page->error()->code, u"cancelled"_s);
    QCOMPARE(leftovers(), QStringList());
    QVERIFY(!m_wizard->isVisible());
}

void TestInstallPage::failPipWith(const QString &output)
{
    // pip's failure as the installer reports it: its general words, pip's output in the detail.
    m_page->installer()->setCheckpoint([output](InstallStep step) -> core::Status {
        if (step == InstallStep::Packages)
            return core::Error{u"pip_failed"_s,
                               u"pip could not install the verified packages. The log shows pip's own "
                               u"words."_s,
                               output};
        return core::Ok{};
    });
}

void TestInstallPage::pipFailure_showsCauseOneFixAndFoldedDetails_data()
{
    QTest::addColumn<QString>("output");
    QTest::addColumn<QString>("words");
    QTest::addColumn<QString>("button");
    QTest::addColumn<int>("fix");
    QTest::newRow("proxy refused") << proxyRefused << u"proxy"_s << u"Set a &proxy…"_s << int(core::PipFix::SetProxy);
    QTest::newRow("no wheel for this Python")
        << u"ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.1 (from versions: "
           u"2.16.1, 2.17.0)\nERROR: No matching distribution found for tensorflow==2.10.1\n"_s
        << u"no wheel of tensorflow==2.10.1"_s << u"Choose another &version…"_s << int(core::PipFix::ChoosePlan);
    QTest::newRow("disk full")
        << u"Installing collected packages: tensorflow\nERROR: Could not install packages due to an OSError: "
           u"[Errno 28] No space left on device\n"_s
        << u"disk is full"_s << u"Choose another f&older…"_s << int(core::PipFix::ChooseFolder);
    // Not one of pip's causes, and no log file in this test: the step's own words, no button.
    QTest::newRow("something else") << u"KeyError: 'dist-info'\n"_s << u"pip's own words"_s << QString() << -1;
}

void TestInstallPage::pipFailure_showsCauseOneFixAndFoldedDetails()
{
    QFETCH(QString, output);
    QFETCH(QString, words);
    QFETCH(QString, button);
    QFETCH(int, fix);
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    QSignalSpy fixes(m_page, &ui::InstallPage::fixRequested);
    failPipWith(output);
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), false);
    QCOMPARE(m_page->stepState(InstallStep::Packages), StepState::Failed);

    // The cause in plain words, with its icon: never pip's closing line, never its raw output.
    const QString status = child<QLabel>(m_page, u"statusLabel"_s)->text();
    QVERIFY2(status.contains(words), qPrintable(status));
    QVERIFY2(!status.contains(u"No matching distribution"_s) && !status.contains(u"Retrying"_s)
                 && !status.contains(u"ERROR:"_s),
             qPrintable(status));
    QVERIFY(child<QLabel>(m_page, u"statusIcon"_s)->isVisibleTo(m_page));
    QVERIFY(m_page->failure());

    // One button for the fix, beside the page's own Try again.
    auto *fixButton = child<QPushButton>(m_page, u"fixButton"_s);
    QCOMPARE(fixButton->isVisibleTo(m_page), !button.isEmpty());
    if (!button.isEmpty())
        QCOMPARE(fixButton->text(), button);
    QVERIFY(child<QPushButton>(m_page, u"retryButton"_s)->isVisibleTo(m_page));

    // pip's output is there, folded under Details until asked for.
    auto *details = child<QToolButton>(m_page, u"detailsButton"_s);
    auto *log = child<QPlainTextEdit>(m_page, u"installLog"_s);
    QVERIFY(details->isVisibleTo(m_page));
    QVERIFY(!details->isChecked());
    QVERIFY(!log->isVisibleTo(m_page));
    QTest::mouseClick(details, Qt::LeftButton);
    QVERIFY(details->isChecked());
    QVERIFY(log->isVisibleTo(m_page));
    const QString lastLine = output.trimmed().section(u'\n', -1);
    QVERIFY2(log->toPlainText().contains(lastLine), qPrintable(log->toPlainText().right(600)));
    QTest::mouseClick(details, Qt::LeftButton);
    QVERIFY(!log->isVisibleTo(m_page));

    if (fix >= 0) {
        QTest::mouseClick(fixButton, Qt::LeftButton);
        QCOMPARE(fixes.count(), 1);
        QCOMPARE(int(fixes.first().first().value<core::PipFix>()), fix);
    }
}

void TestInstallPage::pipFailure_fitsAndIsScreenshot_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("size");
    for (const QString &language : {u"en"_s, u"zh_CN"_s}) {
        for (const QSize size : {QSize(720, 540), QSize(1366, 768)}) {
            QTest::newRow(qPrintable(u"%1 %2x%3"_s.arg(language).arg(size.width()).arg(size.height())))
                << language << size;
        }
    }
}

void TestInstallPage::pipFailure_fitsAndIsScreenshot()
{
    QFETCH(QString, language);
    QFETCH(QSize, size);
    core::Translations translations;
    QVERIFY(translations.setLanguage(language));
    open(&translations);
    // The wizard goes before the translations it was given.
    const auto closeWizard = qScopeGuard([this] { m_wizard.reset(); });
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    failPipWith(proxyRefused);
    m_wizard->resize(size);
    m_wizard->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_wizard.get()));
    QVERIFY(finish(finished));
    QVERIFY(child<QPushButton>(m_page, u"fixButton"_s)->isVisibleTo(m_page));
    QTest::qWait(100);
    const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR");
    const QString name = u"%1-install-failure-%2x%3"_s.arg(language).arg(size.width()).arg(size.height());
    QStringList problems = test::layoutProblems(m_wizard.get(), name);
    if (!shots.isEmpty()) {
        QDir().mkpath(shots);
        m_wizard->grab().save(shots + u'/' + name + u".png"_s);
    }
    // And with the details open: the log scrolls, nothing else is squeezed.
    QTest::mouseClick(child<QToolButton>(m_page, u"detailsButton"_s), Qt::LeftButton);
    QTest::qWait(100);
    problems += test::layoutProblems(m_wizard.get(), name + u"-details"_s);
    if (!shots.isEmpty())
        m_wizard->grab().save(shots + u'/' + name + u"-details.png"_s);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
}

void TestInstallPage::progress_movesWithTheBytes()
{
    // cuDNN's archive is most of what this install handles: once it is unpacked, the bar is
    // near half way, not at its share of the step count.
    QByteArray weights(6 * 1024 * 1024, Qt::Uninitialized);
    QRandomGenerator generator(27);
    generator.fillRange(reinterpret_cast<quint32 *>(weights.data()), weights.size() / int(sizeof(quint32)));
    QList<Entry> cudnn = cudnnArchive(true, u"8.1.0.77"_s, true);
    cudnn.append(file(u"cuda/include/stand-in-weights.bin"_s, weights));
    m_list.artifacts[1] = artifact(u"cudnn"_s, u"cudnn-archive"_s, u"cudnn-11.2-windows-x64-v8.1.0.77.zip"_s, cudnn);
    qint64 archives = 0;
    for (const core::Artifact &a : std::as_const(m_list.artifacts))
        archives += QFileInfo(core::SetupFlow::destinationFor(a, m_cache)).size();
    QVERIFY(archives > 6 * 1024 * 1024);
    open();
    QSignalSpy finished(m_page, &ui::InstallPage::finished);
    auto *bar = child<QProgressBar>(m_page, u"installProgress"_s);
    auto *now = child<QLabel>(m_page, u"currentStepLabel"_s);
    int atPlace = -1;
    QString placeText;
    QString placeFormat;
    m_page->installer()->setCheckpoint([&](InstallStep step) -> core::Status {
        if (step == InstallStep::Place) {
            atPlace = bar->value();
            placeText = now->text();
            placeFormat = bar->format();
            if (const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR"); !shots.isEmpty()) {
                QDir().mkpath(shots);
                m_wizard->grab().save(shots + u"/en-install-running.png"_s);
            }
        }
        return core::Ok{};
    });
    m_wizard->show();
    QVERIFY(finish(finished));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY2(atPlace >= bar->maximum() * 4 / 10, qPrintable(QString::number(atPlace)));
    // "x of y" in the student's locale, both on the bar and beside it.
    const QString total = core::Units::dataSize(archives);
    const QString both = u"%1 of %2"_s.arg(total, total);
    QVERIFY2(placeText.contains(both), qPrintable(placeText + u" / "_s + both));
    QVERIFY2(placeFormat.contains(both), qPrintable(placeFormat));
    QCOMPARE(bar->value(), bar->maximum());
}

QTEST_MAIN(TestInstallPage)
#include "test_installpage.moc"
