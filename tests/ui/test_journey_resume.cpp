// Resuming a setup after the program stopped, driven by objectName under the offscreen platform.
// A setup reaches the Download page and fetches a stand-in CUDA runtime archive from a loopback
// mirror that sends it slowly; the wizard is destroyed half-way (as when the program or the
// machine stops). A new wizard offers "Continue the setup of …" with the bytes already there;
// continuing resumes the download with a Range request for the rest only, installs, verifies
// and finishes, and the saved setup is gone. Also: continuing a setup that had reached Install
// goes on by itself through a Download page with nothing left to fetch; "Start over" forgets the
// setup and keeps the downloaded files; a corrupt saved file is ignored with a log line.

#include "uitest.h"
#include "install/worklock.h"
#include "fetch/downloader.h"
#include "install/archive.h"
#include "setup/setupsession.h"
#include "support/loopbackserver.h"
#include "system/rootedsystem.h"
#include "ui/downloadpage.h"
#include "ui/installpage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/welcomepage.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

using tfsetup::test::child;

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QCoro::Task<core::VerifyReport> cannedVerify(core::SystemView &, core::VerifyRequest, core::Catalog)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify/smoke/cpu_route.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    core::ProcessResult process;
    process.started = true;
    process.exitCode = 0;
    process.standardOutput = QJsonDocument::fromJson(f.readAll()).toJson(QJsonDocument::Compact) + '\n';
    core::VerifyReport report;
    report.smoke = core::SmokeResult::parse(process, false);
    report.layers = report.smoke.layers;
    report.tensorflow = report.smoke.tensorflowVersion;
    co_return report;
}

const QString archiveName = u"cuda_cudart-linux-x86_64-12.5.82-archive.tar.xz"_s;
const QByteArray archivePath =
    "/compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.5.82-archive.tar.xz";

// NVIDIA's redist shape (one top folder named like the archive, lib/ with the library and its
// soname links) with incompressible padding, so the transfer takes long enough to interrupt.
QByteArray buildArchive(const QString &path)
{
    const QString top = u"cuda_cudart-linux-x86_64-12.5.82-archive/"_s;
    QByteArray padding(768 * 1024, Qt::Uninitialized);
    QRandomGenerator random(42);
    for (char &c : padding)
        c = char(random.generate());
    using Entry = core::ArchiveWriter::Entry;
    const QList<Entry> entries{
        {Entry::File, top + u"LICENSE"_s, "stand-in license", {}, 0644},
        {Entry::File, top + u"include/cuda_runtime_api.h"_s, "/* stand-in */", {}, 0644},
        {Entry::File, top + u"lib/libcudart.so.12.5.82"_s, padding, {}, 0755},
        {Entry::Symlink, top + u"lib/libcudart.so.12"_s, {}, u"libcudart.so.12.5.82"_s, 0777},
        {Entry::Symlink, top + u"lib/libcudart.so"_s, {}, u"libcudart.so.12"_s, 0777},
    };
    if (!core::ArchiveWriter::write(path, core::ArchiveWriter::TarXz, entries))
        return {};
    return readAll(path);
}

} // namespace

class TestJourneyResume final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void interruptedDownload_continuesWhereItStopped();
    void reachedInstall_goesOnByItself();
    void startOver_forgetsTheSetupButKeepsTheFiles();
    void corruptSavedSetup_isIgnored();
    void repairFinishing_keepsTheSavedSetup();
    void backAfterContinuing_returnsToOptions();

private:
    // A wizard over the fixture machine that keeps its progress in the default session file.
    std::unique_ptr<ui::SetupWizard> newWizard();
    // What the Options page commits for the plan: options, artifacts, download requests.
    void commitOptions(ui::SetupWizard &wizard);
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }
    void clickNext() { QTest::mouseClick(nextButton(), Qt::LeftButton); }
    QString downloadPath() const { return m_dir->filePath(u"downloads/"_s + archiveName); }
    // Continue from Welcome through Install, Verify and Finish.
    void finishFromInstall();

    QTemporaryDir m_archives;
    QByteArray m_archive;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyResume::initTestCase()
{
    QVERIFY(m_archives.isValid());
    m_archive = buildArchive(m_archives.filePath(archiveName));
    QVERIFY(m_archive.size() > 512 * 1024);
}

void TestJourneyResume::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    // The saved setup lives in the user's data folder; the downloader's content cache beside it.
    qputenv("XDG_DATA_HOME", m_dir->filePath(u"data"_s).toLocal8Bit());
    qputenv("TFSETUP_CACHE_DIR", m_dir->filePath(u"content-cache"_s).toLocal8Bit());
    QVERIFY(QDir().mkpath(m_dir->filePath(u"machine/home/student"_s)));
    m_system = std::make_unique<core::RootedSystem>(
        m_dir->filePath(u"machine"_s), core::OsFamily::Linux,
        QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
    m_server = std::make_unique<LoopbackServer>();
    QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
}

void TestJourneyResume::cleanup()
{
    m_wizard.reset();
    m_server.reset();
    m_system.reset();
    m_dir.reset();
}

std::unique_ptr<ui::SetupWizard> TestJourneyResume::newWizard()
{
    auto wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    wizard->resize(900, 700);
    wizard->verifyPage()->setVerifyFunction(&cannedVerify);
    wizard->setSessionFile(core::SetupSession::defaultPath());
    return wizard;
}

void TestJourneyResume::commitOptions(ui::SetupWizard &wizard)
{
    core::HardwareReport machine;
    machine.os.family = u"linux"_s;
    core::Plan plan;
    plan.route = u"linux-toolkit"_s;
    plan.tensorflow = u"2.18.0"_s;
    plan.package = u"tensorflow"_s;
    plan.cuda = u"12.5"_s; // no Python: libraries and launchers only, as in a lab's prepared tree
    core::SetupOptions options;
    options.prefix = u"/home/student/tfsetup-envs"_s;
    options.cacheDir = m_dir->filePath(u"downloads"_s);

    core::Artifact cudart;
    cudart.name = u"cuda_cudart"_s;
    cudart.version = u"12.5.82"_s;
    cudart.platform = u"linux-x86_64"_s;
    cudart.kind = u"cuda-redist-archive"_s;
    cudart.source = u"nvidia-redist"_s;
    cudart.archiveFormat = u"tar.xz"_s;
    cudart.relativePath = QString::fromLatin1(archivePath.mid(1));
    cudart.urls = {m_server->url(QString::fromLatin1(archivePath))};
    cudart.sha256 = QString::fromLatin1(QCryptographicHash::hash(m_archive, QCryptographicHash::Sha256).toHex());
    cudart.size = m_archive.size();
    core::ArtifactList artifacts;
    artifacts.route = plan.route;
    artifacts.tensorflow = plan.tensorflow;
    artifacts.os = u"linux"_s;
    artifacts.artifacts = {cudart};

    ui::WizardState &state = wizard.state();
    state.setHardware(machine);
    state.setPlan(plan);
    state.setOptions(options);
    state.setArtifacts(artifacts);
    state.setDownloads(core::SetupFlow::downloadPlan(artifacts, {}, options).requests);
}

void TestJourneyResume::finishFromInstall()
{
    QTRY_COMPARE_WITH_TIMEOUT(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId), 20'000);
    // It may have finished already: the page, not a signal, says so.
    ui::InstallPage *install = m_wizard->installPage();
    QTRY_VERIFY_WITH_TIMEOUT(install->isComplete() || install->error(), 60'000);
    const auto error = install->error();
    QVERIFY2(!error, qPrintable(error ? error->message + u'\n' + error->detail : QString()));
    const QString environment = m_system->hostPath(u"/home/student/tfsetup-envs/tf2.18-cuda12.5"_s);
    QVERIFY(QFileInfo::exists(environment + u"/environment.json"_s));
    QTRY_VERIFY_WITH_TIMEOUT(nextButton()->isEnabled(), 5'000);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QTRY_VERIFY_WITH_TIMEOUT(nextButton()->isEnabled(), 20'000);
    QVERIFY(QFile::exists(core::SetupSession::defaultPath())); // not finished until Finish
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    // Finished: nothing left to continue; the download stays for the next environment.
    QVERIFY(!QFile::exists(core::SetupSession::defaultPath()));
    QVERIFY(QFile::exists(downloadPath()));
}

void TestJourneyResume::interruptedDownload_continuesWhereItStopped()
{
    // The first transfer crawls, so the wizard can be stopped half-way; later ones run freely.
    const qint64 size = m_archive.size();
    const QByteArray archive = m_archive;
    m_server->handle(archivePath, [archive](const test::RecordedRequest &, int hit) {
        Response response = Response::bytes(archive);
        if (hit == 1)
            response.throttle(128 * 1024);
        return response;
    });

    m_wizard = newWizard();
    QVERIFY(!child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s)->isVisibleTo(m_wizard.get()));
    commitOptions(*m_wizard);
    m_wizard->setStartId(ui::SetupWizard::DownloadPageId);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));

    // Saved as soon as the Download page is reached.
    const QString part = core::Downloader::partPathFor(downloadPath());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() >= 128 * 1024, 15'000);
    auto saved = core::SetupSession::load(core::SetupSession::defaultPath());
    QVERIFY(saved);
    QCOMPARE(saved->step, core::SetupSession::Step::Download);
    QCOMPARE(saved->environmentName(), u"tf2.18-cuda12.5"_s);

    // The program stops.
    m_wizard.reset();
    const qint64 kept = QFileInfo(part).size();
    QVERIFY2(kept > 0 && kept < size, qPrintable(QString::number(kept)));
    QVERIFY(!QFile::exists(downloadPath()));
    QCOMPARE(m_server->hits(archivePath), 1);

    // The next start offers to continue, with what is already there.
    m_wizard = newWizard();
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
    auto *resume = child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s);
    QVERIFY(resume->isVisible());
    QVERIFY(resume->isChecked());
    QVERIFY2(resume->text().contains(u"tf2.18-cuda12.5"_s), qPrintable(resume->text()));
    QVERIFY2(resume->text().contains(u"downloaded"_s), qPrintable(resume->text()));
    QVERIFY(child<QPushButton>(m_wizard.get(), u"startOverButton"_s)->isVisible());
    QVERIFY(nextButton()->isEnabled());

    // Continue: straight to the Download page, which asks only for the missing bytes.
    QSignalSpy verified(m_wizard->downloadPage(), &ui::DownloadPage::allVerified);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(m_wizard->state().plan()->route, u"linux-toolkit"_s);
    QVERIFY(verified.count() > 0 || verified.wait(20'000));
    QCOMPARE(readAll(downloadPath()), m_archive);
    const QList<test::RecordedRequest> requests = m_server->requests(archivePath);
    QCOMPARE(requests.size(), 2);
    QVERIFY(requests.first().header("range").isEmpty());
    // Resumed from the kept bytes (the downloader may step back to a chunk it had not synced).
    const QByteArray range = requests.last().header("range");
    QVERIFY2(range.startsWith("bytes="), range.constData());
    const QList<QByteArray> bounds = range.mid(6).split('-');
    QCOMPARE(bounds.size(), 2);
    const qint64 from = bounds.first().toLongLong();
    QVERIFY(bounds.last().isEmpty() || bounds.last().toLongLong() == size - 1);
    QVERIFY2(from > 0 && from <= kept, range.constData());
    QVERIFY(nextButton()->isEnabled());
    clickNext();
    finishFromInstall();
}

void TestJourneyResume::reachedInstall_goesOnByItself()
{
    m_server->route(archivePath, Response::bytes(m_archive));
    // A setup that downloaded everything and was stopped on the Install page.
    m_wizard = newWizard();
    commitOptions(*m_wizard);
    m_wizard->setStartId(ui::SetupWizard::DownloadPageId);
    m_wizard->show();
    QSignalSpy verified(m_wizard->downloadPage(), &ui::DownloadPage::allVerified);
    QVERIFY(verified.count() > 0 || verified.wait(20'000));
    m_wizard->installPage()->installer()->setCheckpoint([](core::InstallStep step) -> core::Status {
        if (step == core::InstallStep::Launchers)
            return core::Error{u"stopped"_s, u"stopped for the test"_s, {}};
        return core::Ok{};
    });
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId));
    QSignalSpy installed(m_wizard->installPage(), &ui::InstallPage::finished);
    QVERIFY(installed.count() > 0 || installed.wait(60'000));
    QCOMPARE(installed.first().first().toBool(), false);
    QCOMPARE(core::SetupSession::load(core::SetupSession::defaultPath())->step, core::SetupSession::Step::Install);
    m_wizard.reset();
    // What a crash in the middle of an install leaves: a staging folder beside the target, made
    // and recorded under the environment's lock as the installer makes it (the lock is let go
    // as a dead process lets it go). Beside it a folder of the student's that only looks like one.
    const QString prefix = m_system->hostPath(u"/home/student/tfsetup-envs"_s);
    QString staging;
    QVERIFY(QDir().mkpath(prefix));
    {
        auto lock = core::WorkLock::acquire(prefix, u"tf2.18-cuda12.5"_s,
                                            u"/home/student/tfsetup-envs/tf2.18-cuda12.5"_s);
        QVERIFY2(lock, qPrintable(lock ? QString() : lock.error().message));
        auto made = (*lock)->makeStaging();
        QVERIFY(made);
        staging = *made;
        QVERIFY(QDir().mkpath(staging + u"/cuda/lib"_s));
    }
    const QString lookAlike = prefix + u"/.tf2.18-cuda12.5.staging-notes"_s;
    QVERIFY(QDir().mkpath(lookAlike));

    // Continue: the Download page finds the file there, and the wizard goes on to Install.
    m_wizard = newWizard();
    m_wizard->show();
    QVERIFY(child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s)->isChecked());
    clickNext();
    finishFromInstall();
    QCOMPARE(m_server->hits(archivePath), 1); // fetched once, in the first run
    QVERIFY(!QFileInfo::exists(staging));
    QVERIFY(QFileInfo::exists(lookAlike)); // not provably tfsetup's: it stays
}

void TestJourneyResume::startOver_forgetsTheSetupButKeepsTheFiles()
{
    m_wizard = newWizard();
    commitOptions(*m_wizard);
    m_wizard->setStartId(ui::SetupWizard::OptionsPageId);
    m_wizard->show();
    QTRY_VERIFY(QFile::exists(core::SetupSession::defaultPath()));
    QCOMPARE(core::SetupSession::load(core::SetupSession::defaultPath())->step, core::SetupSession::Step::Options);
    m_wizard.reset();
    const QString part = core::Downloader::partPathFor(downloadPath());
    QVERIFY(QDir().mkpath(QFileInfo(part).absolutePath()));
    QFile partial(part);
    QVERIFY(partial.open(QIODevice::WriteOnly));
    partial.write(m_archive.left(1000));
    partial.close();

    m_wizard = newWizard();
    m_wizard->show();
    auto *resume = child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s);
    QVERIFY(resume->isVisible());
    QTest::mouseClick(child<QPushButton>(m_wizard.get(), u"startOverButton"_s), Qt::LeftButton);
    QVERIFY(!resume->isVisible());
    QVERIFY(child<QRadioButton>(m_wizard.get(), u"modeNewRadio"_s)->isChecked());
    QVERIFY(!QFile::exists(core::SetupSession::defaultPath()));
    QVERIFY(QFile::exists(part));
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
}

void TestJourneyResume::corruptSavedSetup_isIgnored()
{
    const QString path = core::SetupSession::defaultPath();
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": 1, \"step\": \"downl");
    f.close();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^Ignoring the saved setup .*not JSON"_s));
    m_wizard = newWizard();
    m_wizard->show();
    QVERIFY(!child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s)->isVisible());
    QVERIFY(child<QRadioButton>(m_wizard.get(), u"modeNewRadio"_s)->isChecked());
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
}

void TestJourneyResume::repairFinishing_keepsTheSavedSetup()
{
    m_wizard = newWizard();
    commitOptions(*m_wizard);
    m_wizard->setStartId(ui::SetupWizard::OptionsPageId);
    m_wizard->show();
    QTRY_VERIFY(QFile::exists(core::SetupSession::defaultPath()));
    m_wizard.reset();

    // Another day: a repair, start to Finish. The unfinished setup is still there afterwards.
    m_wizard = newWizard();
    m_wizard->state().setMode(ui::WizardState::Mode::Repair);
    m_wizard->setStartId(ui::SetupWizard::FinishPageId);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    QVERIFY(QFile::exists(core::SetupSession::defaultPath()));
}

void TestJourneyResume::backAfterContinuing_returnsToOptions()
{
    m_server->route(archivePath, Response::bytes(m_archive));
    m_wizard = newWizard();
    commitOptions(*m_wizard);
    core::SetupOptions options = m_wizard->state().options();
    options.jupyter = false; // turned off on the Options page (the default, and the remembered choice, is on)
    m_wizard->state().setOptions(options);
    m_wizard->setStartId(ui::SetupWizard::DownloadPageId);
    QSignalSpy verified(m_wizard->downloadPage(), &ui::DownloadPage::allVerified);
    m_wizard->show();
    QVERIFY(verified.count() > 0 || verified.wait(20'000));
    m_wizard.reset(); // stopped on the Download page

    m_wizard = newWizard();
    m_wizard->show();
    QVERIFY(child<QRadioButton>(m_wizard.get(), u"modeContinueRadio"_s)->isChecked());
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->downloadPage()->isComplete(), 20'000);
    const int fetched = m_server->hits(archivePath);

    // Back leads to the Options page with the saved choices, not to Welcome.
    QAbstractButton *back = m_wizard->button(QWizard::BackButton);
    QVERIFY(back->isVisible() && back->isEnabled());
    QTest::mouseClick(back, Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QCOMPARE(child<QLineEdit>(m_wizard.get(), u"folderEdit"_s)->text(), u"/home/student/tfsetup-envs"_s);
    QCOMPARE(child<QLineEdit>(m_wizard.get(), u"nameEdit"_s)->text(), u"tf2.18-cuda12.5"_s);
    QCOMPARE(child<QLineEdit>(m_wizard.get(), u"cacheEdit"_s)->text(), m_dir->filePath(u"downloads"_s));
    QVERIFY(!child<QCheckBox>(m_wizard.get(), u"jupyterCheck"_s)->isChecked());

    // Next keeps what was resolved and downloaded: straight on, nothing fetched again.
    QVERIFY(nextButton()->isEnabled());
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QVERIFY(m_wizard->downloadPage()->isComplete());
    QCOMPARE(m_server->hits(archivePath), fetched);

    // From here Back is the usual Back: Options, then Welcome.
    QTest::mouseClick(back, Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QTest::mouseClick(back, Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
}

QTEST_MAIN(TestJourneyResume)
#include "test_journey_resume.moc"
