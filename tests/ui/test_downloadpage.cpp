// The Download page against a loopback server: progress shows, pause then resume continues with
// a Range request, a corrupt file is rejected and keeps Next disabled, errors are plain and name
// the log, Back and Next leave the downloads alone. Driven by objectName.

#include "fetch/downloader.h"
#include "support/loopbackserver.h"
#include "system/rootedsystem.h"
#include "ui/choosepage.h"
#include "ui/downloadpage.h"
#include "ui/pagestatus.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "util/i18n.h"
#include "util/runlog.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <tuple>

using namespace tfsetup;
using test::LoopbackServer;
using test::Response;
using namespace std::chrono_literals;
using namespace Qt::StringLiterals;

namespace {

enum Column { NameColumn, ProgressColumn, RateColumn, EtaColumn, MirrorColumn, ChecksumColumn };

QByteArray randomBytes(qsizetype size, quint32 seed)
{
    QByteArray data(size, Qt::Uninitialized);
    QRandomGenerator generator(seed);
    for (qsizetype i = 0; i < size; ++i)
        data[i] = char(generator.generate());
    return data;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

template<typename T>
T *child(QWidget *parent, const char *name)
{
    auto *widget = parent->findChild<T *>(QLatin1String(name));
    if (!widget)
        qFatal("no child %s", name);
    return widget;
}

} // namespace

class TestDownloadPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void progress_showsAndCompletesWithoutBlocking();
    void pauseThenResume_continuesWithRange();
    void corruptFile_showsMismatchAndKeepsNextDisabled();
    void missingFile_showsPlainErrorWithLogPath();
    void backAndNext_keepsDownloadsAndNeverRefetches();
    void cancel_stopsAndResumeContinues();
    void nothingToDownload_letsThrough();
    void sourceWarnings_areShownBeforeDownloading();
    void summary_listsEverythingWithTotalAndTime();
    void summary_countsTheLockedWheelsAsFiles();
    void cudaStandIn_isSaidAndWhy();
    void closingWhileDownloading_asksFirst();
    void bundle_listsEveryFileWithItsSize();
    void pipAtInstall_listsThePackagesWithTheInstall();
    void running_showsSpeedTimeLeftAndSource();
    void screenshots_data();
    void screenshots();

private:
    core::DownloadRequest request(const QString &name, const QByteArray &path, const QByteArray &payload) const;
    // Goes Choose -> Download with these requests in the state.
    void openWith(const QList<core::DownloadRequest> &requests);
    QString cell(int row, int column) const { return m_table->item(row, column)->text(); }
    QProgressBar *rowBar(int row) const
    {
        return qobject_cast<QProgressBar *>(m_table->cellWidget(row, ProgressColumn));
    }
    // Next, or Finish while Download is the last page the wizard has.
    QAbstractButton *nextButton() const
    {
        QAbstractButton *next = m_wizard->button(QWizard::NextButton);
        return next->isVisible() ? next : m_wizard->button(QWizard::FinishButton);
    }

    // A bundle's record: an NVIDIA archive and two locked wheels, each with its size.
    void useBundle();
    // The wizard again, speaking this language.
    void rebuild(const QString &language);

    std::unique_ptr<core::Translations> m_translations;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::DownloadPage *m_page = nullptr;
    QTableWidget *m_table = nullptr;
};

void TestDownloadPage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<LoopbackServer>();
    QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    QDir(m_dir->path()).mkpath(QStringLiteral("root"));
    m_system = std::make_unique<core::RootedSystem>(m_dir->filePath(QStringLiteral("root")), core::OsFamily::Linux,
                                                    QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    // The Options page would resolve the plan's own downloads over the ones these tests inject;
    // without it Choose leads straight here (the journey test covers the page in between).
    m_wizard->removePage(ui::SetupWizard::OptionsPageId);
    m_page = m_wizard->downloadPage();
    QVERIFY(m_page);
    QCOMPARE(m_page->objectName(), QStringLiteral("downloadPage"));
    m_table = child<QTableWidget>(m_page, "downloadTable");

    // Short stall limits so a broken test fails fast; a cache of its own, empty, so every byte
    // comes from the server. The page's downloader is the setup pipeline's, made from these.
    core::SetupOptions options;
    options.cacheDir = m_dir->filePath(QStringLiteral("downloads"));
    options.network.transfer.connectTimeout = 5s;
    options.network.transfer.stallTimeout = 5s;
    options.network.transfer.retriesPerMirror = 1;
    m_wizard->state().setOptions(options);
}

void TestDownloadPage::cleanup()
{
    m_wizard.reset();
    m_translations.reset();
    m_system.reset();
    m_server.reset();
    m_dir.reset();
}

core::DownloadRequest TestDownloadPage::request(const QString &name, const QByteArray &path,
                                                const QByteArray &payload) const
{
    core::DownloadRequest r;
    r.name = name;
    r.urls = {m_server->url(QString::fromLatin1(path))};
    r.expectedSize = payload.size();
    r.checksum = {core::Checksum::Algorithm::Sha256,
                  QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()};
    r.destination = m_dir->filePath(QStringLiteral("downloads/") + QString::fromLatin1(path.mid(1)));
    return r;
}

void TestDownloadPage::openWith(const QList<core::DownloadRequest> &requests)
{
    // A machine without a GPU: the solver answers quickly and the Choose page lets Next through.
    m_wizard->state().setHardware(
        core::HardwareReport::fromJson(QJsonDocument::fromJson(R"j({"os": {"family": "linux", "arch": "x86_64"},
            "cpu": {"name": "Test CPU", "avx": true, "source": "cpuid"},
            "pythons": [{"path": "/usr/bin/python3", "version": "3.11.2", "kind": "system", "source": "path"}]})j")
                                           .object()));
    m_wizard->state().setDownloads(requests);
    m_wizard->setStartId(ui::SetupWizard::ChoosePageId);
    m_wizard->show();
    auto *choose = m_wizard->choosePage();
    QTRY_VERIFY_WITH_TIMEOUT(choose->isComplete(), 10'000);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(m_page->rowCount(), int(requests.size()));
}

void TestDownloadPage::progress_showsAndCompletesWithoutBlocking()
{
    const QByteArray payload = randomBytes(768 * 1024, 1);
    m_server->route("/tensorflow.whl", Response::bytes(payload).throttle(512 * 1024));
    const core::DownloadRequest req = request(QStringLiteral("TensorFlow wheel"), "/tensorflow.whl", payload);

    // A blocked GUI thread would not tick while the bytes arrive.
    int ticksWhileRunning = 0;
    QTimer ticker;
    ticker.setInterval(10ms);
    connect(&ticker, &QTimer::timeout, m_page, [this, &ticksWhileRunning] {
        if (m_page->rowCount() > 0 && m_page->rowState(0) == ui::DownloadPage::RowState::Running)
            ++ticksWhileRunning;
    });
    ticker.start();

    QSignalSpy done(m_page, &ui::DownloadPage::allVerified);
    openWith({req});
    QVERIFY(cell(0, NameColumn).startsWith(QLatin1String("TensorFlow wheel")));
    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("pending"));
    QVERIFY(!nextButton()->isEnabled());

    // Part of the file has arrived: the bar, the rate, the time left and the mirror show it.
    QTRY_VERIFY_WITH_TIMEOUT(rowBar(0)->value() > 0 && rowBar(0)->value() < rowBar(0)->maximum(), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(cell(0, RateColumn).endsWith(QLatin1String("/s")), 5'000);
    QVERIFY2(cell(0, EtaColumn).contains(QLatin1String("s")) || cell(0, EtaColumn).contains(QLatin1String("min")),
             qPrintable(cell(0, EtaColumn)));
    QCOMPARE(cell(0, MirrorColumn), QString::fromLatin1(m_server->hostAndPort()));
    QVERIFY(child<QProgressBar>(m_page, "overallProgress")->value() > 0);
    QVERIFY2(child<QLabel>(m_page, "overallLabel")->text().contains(QLatin1String(" of ")),
             qPrintable(child<QLabel>(m_page, "overallLabel")->text()));
    QVERIFY(child<QPushButton>(m_page, "pauseButton")->isEnabled());

    QVERIFY(done.count() == 1 || done.wait(10'000));
    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("verified"));
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Verified);
    QCOMPARE(readAll(req.destination), payload);
    QVERIFY(nextButton()->isEnabled());
    QVERIFY(!child<QPushButton>(m_page, "pauseButton")->isEnabled());
    QVERIFY(child<QLabel>(m_page, "overallLabel")->text().contains(QLatin1String("verified")));
    QVERIFY2(ticksWhileRunning >= 10, qPrintable(QString::number(ticksWhileRunning)));

    QVERIFY(m_page->validatePage());
    QCOMPARE(m_wizard->state().downloaded().size(), 1);
    QCOMPARE(m_wizard->state().downloaded().first().path, req.destination);
}

void TestDownloadPage::pauseThenResume_continuesWithRange()
{
    const QByteArray payload = randomBytes(1024 * 1024, 2);
    m_server->route("/cudnn.tar.xz", Response::bytes(payload).throttle(256 * 1024));
    const core::DownloadRequest req = request(QStringLiteral("cuDNN"), "/cudnn.tar.xz", payload);
    openWith({req});

    QTRY_VERIFY_WITH_TIMEOUT(rowBar(0)->value() >= 100, 10'000); // 10 % arrived
    QTest::mouseClick(child<QPushButton>(m_page, "pauseButton"), Qt::LeftButton);
    QVERIFY(m_page->isPaused());
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Paused);
    QVERIFY(rowBar(0)->format().startsWith(QLatin1String("Paused")));
    QVERIFY(child<QPushButton>(m_page, "resumeButton")->isEnabled());
    QVERIFY(!child<QPushButton>(m_page, "pauseButton")->isEnabled());
    QVERIFY(!nextButton()->isEnabled());
    QCOMPARE(m_server->hits("/cudnn.tar.xz"), 1);

    // Paused means paused: no further request until Resume.
    QTest::qWait(300);
    QCOMPARE(m_server->hits("/cudnn.tar.xz"), 1);
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Paused);

    QSignalSpy done(m_page, &ui::DownloadPage::allVerified);
    QTest::mouseClick(child<QPushButton>(m_page, "resumeButton"), Qt::LeftButton);
    QVERIFY(!m_page->isPaused());
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Running);
    QVERIFY(done.wait(15'000));

    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("verified"));
    QCOMPARE(readAll(req.destination), payload);
    QCOMPARE(m_server->hits("/cudnn.tar.xz"), 2);
    const QByteArray range = m_server->requests("/cudnn.tar.xz").last().header("range");
    QVERIFY2(range.startsWith("bytes=") && !range.startsWith("bytes=0-"), range.constData());
    QCOMPARE(m_page->fetchCount(), 2);
    QVERIFY(nextButton()->isEnabled());
}

void TestDownloadPage::corruptFile_showsMismatchAndKeepsNextDisabled()
{
    const QByteArray good = randomBytes(200 * 1024, 3);
    const QByteArray bad = randomBytes(300 * 1024, 4);
    m_server->route("/good.bin", Response::bytes(good));
    m_server->route("/bad.bin", Response::bytes(bad).corruptAt(1000));
    const core::DownloadRequest badRequest = request(QStringLiteral("CUDA runtime"), "/bad.bin", bad);
    openWith({request(QStringLiteral("good file"), "/good.bin", good), badRequest});

    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(1), ui::DownloadPage::RowState::Mismatch, 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(0), ui::DownloadPage::RowState::Verified, 10'000);
    QCOMPARE(cell(1, ChecksumColumn), QStringLiteral("mismatch"));
    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("verified"));
    QVERIFY(!QFile::exists(badRequest.destination));
    QVERIFY(!m_page->isComplete());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(!m_page->validatePage());

    // One status area: the cause, one button that does the fix.
    auto *error = child<QLabel>(m_page, "statusLabel");
    QVERIFY(error->isVisible());
    QCOMPARE(child<ui::PageStatus>(m_page, "statusArea")->kind(), ui::PageStatus::Kind::Error);
    QVERIFY2(error->text().contains(QLatin1String("CUDA runtime does not match its official SHA256 checksum")),
             qPrintable(error->text()));
    auto *action = child<QPushButton>(m_page, "statusActionButton");
    QVERIFY2(action->isVisible() && action->text().remove(u'&').contains(u"again"_s), qPrintable(action->text()));
    // Resume tries it again; the server still corrupts it, so it stays rejected.
    QVERIFY(child<QPushButton>(m_page, "resumeButton")->isEnabled());
}

void TestDownloadPage::missingFile_showsPlainErrorWithLogPath()
{
    QTemporaryDir logDir;
    QVERIFY(logDir.isValid());
    const QString log = core::RunLog::start(logDir.path());
    QVERIFY(!log.isEmpty());

    const QByteArray payload("not served");
    openWith({request(QStringLiteral("cuDNN archive"), "/missing.tar.xz", payload)});
    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(0), ui::DownloadPage::RowState::Failed, 10'000);

    auto *error = child<QLabel>(m_page, "statusLabel");
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(QLatin1String("cuDNN archive is not on the server (404 Not Found)")),
             qPrintable(error->text()));
    // The raw words and the log's place are folded under Details, closed.
    auto *status = child<ui::PageStatus>(m_page, "statusArea");
    QVERIFY2(status->details().contains(QDir::toNativeSeparators(log)), qPrintable(status->details()));
    QVERIFY(child<QWidget>(m_page, "statusDetails")->isHidden());
    QVERIFY(child<QWidget>(m_page, "statusDetailsToggle")->isVisible());
    // Another server may have it: the one button leads to the proxy and mirror settings.
    auto *action = child<QPushButton>(m_page, "statusActionButton");
    QVERIFY2(action->isVisible() && action->text().remove(u'&').contains(u"mirror"_s), qPrintable(action->text()));
    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("pending"));
    QVERIFY(!nextButton()->isEnabled());
    core::RunLog::stop();
}

void TestDownloadPage::backAndNext_keepsDownloadsAndNeverRefetches()
{
    const QByteArray small = randomBytes(64 * 1024, 5);
    const QByteArray large = randomBytes(1024 * 1024, 6);
    m_server->route("/small.bin", Response::bytes(small));
    m_server->route("/large.bin", Response::bytes(large).throttle(512 * 1024));
    const QList<core::DownloadRequest> requests{request(QStringLiteral("small"), "/small.bin", small),
                                                request(QStringLiteral("large"), "/large.bin", large)};
    openWith(requests);
    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(0), ui::DownloadPage::RowState::Verified, 10'000);
    QCOMPARE(m_page->rowState(1), ui::DownloadPage::RowState::Running);

    // Back: the large one keeps going while the student looks at the Choose page.
    m_wizard->back();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    const int before = rowBar(1)->value();
    QTRY_VERIFY_WITH_TIMEOUT(rowBar(1)->value() > before, 5'000);
    QCOMPARE(m_page->rowState(1), ui::DownloadPage::RowState::Running);

    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Verified);
    QCOMPARE(cell(0, ChecksumColumn), QStringLiteral("verified"));
    QCOMPARE(m_page->fetchCount(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(1), ui::DownloadPage::RowState::Verified, 10'000);
    QVERIFY(nextButton()->isEnabled());

    // Again, with everything finished: nothing is fetched twice.
    m_wizard->back();
    m_wizard->next();
    QCOMPARE(m_page->fetchCount(), 2);
    QCOMPARE(m_server->hits("/small.bin"), 1);
    QCOMPARE(m_server->hits("/large.bin"), 1);
    QVERIFY(nextButton()->isEnabled());

    // Another choice with one artifact in common: only the new one is fetched.
    const QByteArray other = randomBytes(32 * 1024, 7);
    m_server->route("/other.bin", Response::bytes(other));
    m_wizard->back();
    m_wizard->state().setDownloads({requests.at(1), request(QStringLiteral("other"), "/other.bin", other)});
    m_wizard->next();
    QCOMPARE(m_page->rowCount(), 2);
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Verified);
    QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(1), ui::DownloadPage::RowState::Verified, 10'000);
    QCOMPARE(m_page->fetchCount(), 3);
    QCOMPARE(m_server->hits("/large.bin"), 1);
}

void TestDownloadPage::cancel_stopsAndResumeContinues()
{
    const QByteArray payload = randomBytes(1024 * 1024, 8);
    m_server->route("/python.tar.gz", Response::bytes(payload).throttle(256 * 1024));
    const core::DownloadRequest req = request(QStringLiteral("Python"), "/python.tar.gz", payload);
    openWith({req});
    QTRY_VERIFY_WITH_TIMEOUT(rowBar(0)->value() >= 100, 10'000);

    QTest::mouseClick(child<QPushButton>(m_page, "cancelDownloadsButton"), Qt::LeftButton);
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Cancelled);
    QCOMPARE(rowBar(0)->format(), QStringLiteral("Stopped"));
    QVERIFY(child<QLabel>(m_page, "overallLabel")->text().contains(QLatin1String("stopped")));
    QVERIFY(!nextButton()->isEnabled());
    // What arrived is kept for Resume.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(core::Downloader::partPathFor(req.destination)), 5'000);

    QSignalSpy done(m_page, &ui::DownloadPage::allVerified);
    QTest::mouseClick(child<QPushButton>(m_page, "resumeButton"), Qt::LeftButton);
    QVERIFY(done.wait(15'000));
    QCOMPARE(readAll(req.destination), payload);
    QVERIFY(!m_server->requests("/python.tar.gz").last().header("range").isEmpty());
}

void TestDownloadPage::nothingToDownload_letsThrough()
{
    openWith({});
    QVERIFY(child<QLabel>(m_page, "emptyLabel")->isVisible());
    QVERIFY(!m_table->isVisible());
    QVERIFY(m_page->isComplete());
    QCOMPARE(m_page->fetchCount(), 0);
}

void TestDownloadPage::sourceWarnings_areShownBeforeDownloading()
{
    core::ArtifactList list;
    list.warnings.append(
        {QStringLiteral("no_wheel"), QStringLiteral("tensorflow 2.10.1 has no wheel for Python 3.12 on Windows.")});
    m_wizard->state().setArtifacts(list);
    openWith({});
    auto *notes = child<QLabel>(m_page, "notesLabel");
    QVERIFY(notes->isVisible());
    QVERIFY(notes->text().contains(QLatin1String("no wheel for Python 3.12")));
    QVERIFY(!notes->accessibleName().isEmpty());

    // Without warnings the box is not there.
    m_wizard->back();
    m_wizard->state().setArtifacts(core::ArtifactList());
    m_wizard->next();
    QVERIFY(!notes->isVisible());
}

void TestDownloadPage::summary_listsEverythingWithTotalAndTime()
{
    const QByteArray cudart = randomBytes(64 * 1024, 1);
    const QByteArray python = randomBytes(32 * 1024, 2);
    core::ArtifactList list;
    core::Artifact archive;
    archive.name = QStringLiteral("cuda_cudart");
    archive.kind = QStringLiteral("cuda-redist-archive");
    archive.source = QStringLiteral("nvidia-redist");
    archive.relativePath = QStringLiteral("compute/cuda/redist/cuda_cudart/cuda_cudart-archive.zip");
    core::Artifact interpreter;
    interpreter.name = QStringLiteral("python");
    interpreter.kind = QStringLiteral("python");
    interpreter.version = QStringLiteral("3.10.11");
    interpreter.relativePath = QStringLiteral("ftp/python/3.10.11/python-3.10.11-embed-amd64.zip");
    core::Artifact wheels;
    wheels.name = QStringLiteral("tensorflow");
    wheels.kind = QStringLiteral("wheelhouse");
    wheels.requirement = QStringLiteral("tensorflow==2.10.*");
    wheels.size = 455'900'000; // as PyPI lists the wheel (the wheel check's answer)
    list.artifacts = {archive, interpreter, wheels};
    m_wizard->state().setArtifacts(list);
    m_server->route("/cuda_cudart-archive.zip", Response::bytes(cudart));
    m_server->route("/python-3.10.11-embed-amd64.zip", Response::bytes(python));
    openWith({request(QStringLiteral("cuda_cudart"), "/cuda_cudart-archive.zip", cudart),
              request(QStringLiteral("python"), "/python-3.10.11-embed-amd64.zip", python)});

    auto *summary = child<QLabel>(m_page, "downloadSummaryLabel");
    QVERIFY(summary->isVisible());
    QVERIFY(summary->wordWrap());
    const QString text = summary->text();
    // NVIDIA's archives, Python and pip's wheels, each with its size; pip's is an estimate.
    QVERIFY2(text.contains(QLatin1String("NVIDIA's libraries: 1 archive")), qPrintable(text));
    QVERIFY2(text.contains(QLocale().formattedDataSize(cudart.size(), 1, QLocale::DataSizeTraditionalFormat)),
             qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("Python 3.10.11: ")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("pip fetches tensorflow==2.10.*")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("estimate")), qPrintable(text));
    QVERIFY2(text.contains(QLocale().formattedDataSize(wheels.size, 1, QLocale::DataSizeTraditionalFormat)),
             qPrintable(text));
    // The total, and how long it takes.
    const qint64 total = cudart.size() + python.size() + wheels.size;
    QVERIFY2(text.contains(QLatin1String("In all about ")
                           + QLocale().formattedDataSize(total, 1, QLocale::DataSizeTraditionalFormat)),
             qPrintable(text));
    QVERIFY2(text.contains(QLatin1String(" min ")) || text.contains(QLatin1String(" s ")), qPrintable(text));
    QVERIFY(!summary->accessibleName().isEmpty());

    // A wheel check that got no answer: pip's share is unknown, and the page says so.
    QSignalSpy done(m_page, &ui::DownloadPage::allVerified);
    QVERIFY(m_page->isComplete() || done.wait(15'000));
    m_wizard->back();
    list.artifacts[2].size = -1;
    m_wizard->state().setArtifacts(list);
    m_wizard->next();
    const QString unknown = summary->text();
    QVERIFY2(unknown.contains(QLatin1String("known only then")), qPrintable(unknown));
    QVERIFY2(unknown.contains(QLatin1String("plus pip's packages")), qPrintable(unknown));
}

void TestDownloadPage::summary_countsTheLockedWheelsAsFiles()
{
    // Once pip's resolver locked the wheels, they are downloads like the others: counted and sized
    // in the summary, with no estimate and no "pip fetches" left for the Install page.
    const QByteArray tensorflow = randomBytes(96 * 1024, 3);
    const QByteArray kernel = randomBytes(8 * 1024, 4);
    core::PyLock lock;
    for (const auto &[name, file, bytes] :
         {std::tuple{u"tensorflow"_s, u"tensorflow-2.10.1-py3-none-any.whl"_s, tensorflow},
          std::tuple{u"ipykernel"_s, u"ipykernel-6.29.5-py3-none-any.whl"_s, kernel}}) {
        core::LockedWheel w;
        w.name = name;
        w.version = file.section(u'-', 1, 1);
        w.file = file;
        w.url = m_server->url(u"/"_s + file).toString();
        w.size = bytes.size();
        w.sha256 = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        lock.packages.append(w);
        m_server->route("/" + file.toUtf8(), Response::bytes(bytes));
    }
    core::ArtifactList list;
    core::Artifact wheels;
    wheels.name = u"tensorflow"_s;
    wheels.kind = u"wheelhouse"_s;
    wheels.requirement = u"tensorflow==2.10.*"_s;
    wheels.size = 455'900'000;
    list.artifacts = {wheels};
    m_wizard->state().setArtifacts(list);
    m_wizard->state().setLock(lock);
    openWith({request(u"tensorflow-2.10.1-py3-none-any.whl"_s, "/tensorflow-2.10.1-py3-none-any.whl", tensorflow),
              request(u"ipykernel-6.29.5-py3-none-any.whl"_s, "/ipykernel-6.29.5-py3-none-any.whl", kernel)});
    auto *summary = child<QLabel>(m_page, "downloadSummaryLabel");
    const QString text = summary->text();
    QVERIFY2(text.contains(u"Python packages"_s) && text.contains(u"2 wheel(s)"_s), qPrintable(text));
    const QString size = QLocale().formattedDataSize(tensorflow.size() + kernel.size(), 1,
                                                     QLocale::DataSizeTraditionalFormat);
    QVERIFY2(text.contains(size), qPrintable(text));
    QVERIFY2(!text.contains(u"pip fetches"_s) && !text.contains(u"estimate"_s) && !text.contains(u"Other files"_s),
             qPrintable(text));
    QVERIFY2(text.contains(u"In all "_s + size), qPrintable(text));
}

void TestDownloadPage::cudaStandIn_isSaidAndWhy()
{
    core::ArtifactList list;
    core::Artifact archive;
    archive.name = QStringLiteral("cuda_cudart");
    archive.kind = QStringLiteral("cuda-redist-archive");
    archive.source = QStringLiteral("nvidia-redist");
    archive.version = QStringLiteral("11.8.89");
    archive.manifest = QStringLiteral("redistrib_11.8.0.json");
    archive.relativePath = QStringLiteral("compute/cuda/redist/cuda_cudart/cuda_cudart-archive.zip");
    list.artifacts = {archive};
    // The sources step's own warning (resolver.cpp, "cuda_fallback_untested").
    list.warnings.append({QStringLiteral("cuda_fallback_untested"),
                          QStringLiteral("NVIDIA has no redistributable archives for CUDA 11.2. tfsetup uses the CUDA "
                                         "11.8 archives instead.")});
    list.warnings.append({QStringLiteral("python_md5_only"), QStringLiteral("Only an MD5 is published.")});
    m_wizard->state().setArtifacts(list);
    openWith({});
    core::Plan plan;
    plan.route = QStringLiteral("windows-native");
    plan.tensorflow = QStringLiteral("2.10.1");
    plan.cuda = QStringLiteral("11.2");
    plan.cudnn = QStringLiteral("8.1");
    m_wizard->state().setPlan(plan);
    m_page->initializePage();

    auto *standIn = child<QLabel>(m_page, "substitutionLabel");
    QVERIFY(standIn->isVisible());
    const QString text = standIn->text();
    QVERIFY2(text.contains(QLatin1String("CUDA 11.8's, standing in for CUDA 11.2")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("TensorFlow 2.10 was tested with")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("Why: NVIDIA has no redistributable archives for CUDA 11.2")),
             qPrintable(text));
    // Said once: the other notes keep the rest.
    const QString notes = child<QLabel>(m_page, "notesLabel")->text();
    QVERIFY(!notes.contains(QLatin1String("redistributable archives")));
    QVERIFY(notes.contains(QLatin1String("Only an MD5")));

    // Without a stand-in there is no such box.
    list.warnings.removeFirst();
    m_wizard->state().setArtifacts(list);
    m_page->initializePage();
    QVERIFY(!standIn->isVisible());
}

void TestDownloadPage::closingWhileDownloading_asksFirst()
{
    const QByteArray payload = randomBytes(2 * 1024 * 1024, 9);
    m_server->route("/slow.bin", Response::bytes(payload).throttle(64 * 1024));
    const core::DownloadRequest req = request(QStringLiteral("slow"), "/slow.bin", payload);
    QStringList asked;
    bool answer = false;
    m_wizard->setCloseQuestion([&asked, &answer](const QString &title, const QString &text) {
        asked.append(title + u'\n' + text);
        return answer;
    });
    openWith({req});
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(core::Downloader::partPathFor(req.destination)), 5'000);
    QVERIFY(m_wizard->isWorking());

    // Cancel, the window's close button: asked first; "keep working" keeps everything going.
    QTest::mouseClick(m_wizard->button(QWizard::CancelButton), Qt::LeftButton);
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked.first().contains(QLatin1String("still downloading")), qPrintable(asked.first()));
    QVERIFY(m_wizard->isVisible());
    QCOMPARE(m_page->rowState(0), ui::DownloadPage::RowState::Running);
    QVERIFY(!m_wizard->close());
    QCOMPARE(asked.size(), 2);
    QVERIFY(m_wizard->isVisible());

    // Yes: it closes, and what arrived stays for the next start.
    answer = true;
    QVERIFY(m_wizard->close());
    QCOMPARE(asked.size(), 3);
    QVERIFY(!m_wizard->isVisible());
    QVERIFY(QFile::exists(core::Downloader::partPathFor(req.destination)));

    // Nothing running: it closes without asking.
    m_wizard->show();
    QVERIFY(!m_wizard->isWorking());
    QVERIFY(m_wizard->close());
    QCOMPARE(asked.size(), 3);
}

void TestDownloadPage::rebuild(const QString &language)
{
    m_wizard.reset();
    m_translations = std::make_unique<core::Translations>();
    QVERIFY(m_translations->setLanguage(language));
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, m_translations.get());
    m_wizard->removePage(ui::SetupWizard::OptionsPageId);
    m_page = m_wizard->downloadPage();
    m_table = child<QTableWidget>(m_page, "downloadTable");
    core::SetupOptions options;
    options.cacheDir = m_dir->filePath(QStringLiteral("downloads"));
    options.network.transfer.connectTimeout = 5s;
    options.network.transfer.stallTimeout = 5s;
    m_wizard->state().setOptions(options);
}

void TestDownloadPage::useBundle()
{
    core::SetupOptions options = m_wizard->state().options();
    options.network.bundleDir = m_dir->filePath(u"bundle"_s);
    m_wizard->state().setOptions(options);
    core::ArtifactList list;
    core::Artifact cudnn;
    cudnn.name = u"cudnn"_s;
    cudnn.kind = u"cudnn-archive"_s;
    cudnn.source = u"nvidia-cudnn-archive"_s;
    cudnn.relativePath = u"compute/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz"_s;
    cudnn.size = 865'000'000;
    core::Artifact wheels;
    wheels.name = u"tensorflow"_s;
    wheels.kind = u"wheelhouse"_s;
    wheels.requirement = u"tensorflow==2.16.*"_s;
    list.artifacts = {cudnn, wheels};
    m_wizard->state().setArtifacts(list);
    core::PyLock lock;
    for (const auto &[name, file, size] :
         {std::tuple{u"tensorflow"_s, u"tensorflow-2.16.1-cp311-cp311-manylinux_2_17_x86_64.whl"_s,
                     qint64(589'800'000)},
          std::tuple{u"numpy"_s, u"numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl"_s, qint64(18'300'000)}}) {
        core::LockedWheel w;
        w.name = name;
        w.file = file;
        w.size = size;
        w.sha256 = QByteArray(64, 'a');
        lock.packages.append(w);
    }
    m_wizard->state().setLock(lock);
}

void TestDownloadPage::bundle_listsEveryFileWithItsSize()
{
    // Offline, nothing comes down, and still every file is there with its size and where from.
    useBundle();
    openWith({});
    QCOMPARE(m_page->listedCount(), 3);
    QVERIFY(m_table->isVisible());
    QCOMPARE(m_table->rowCount(), 3);
    const QString size = QLocale().formattedDataSize(865'000'000, 1, QLocale::DataSizeTraditionalFormat);
    QVERIFY2(cell(0, NameColumn).startsWith(u"cudnn-linux"_s) && cell(0, NameColumn).contains(size),
             qPrintable(cell(0, NameColumn)));
    QVERIFY2(cell(1, NameColumn).startsWith(u"tensorflow-2.16.1"_s), qPrintable(cell(1, NameColumn)));
    QVERIFY2(
        cell(2, NameColumn).contains(QLocale().formattedDataSize(18'300'000, 1, QLocale::DataSizeTraditionalFormat)),
        qPrintable(cell(2, NameColumn)));
    for (int row = 0; row < 3; ++row) {
        QCOMPARE(cell(row, MirrorColumn), u"offline bundle"_s);
        QCOMPARE(cell(row, ProgressColumn), u"In the bundle"_s);
    }
    auto *empty = child<QLabel>(m_page, "emptyLabel");
    QVERIFY2(empty->isVisible() && empty->text().contains(u"offline bundle"_s), qPrintable(empty->text()));
    auto *summary = child<QLabel>(m_page, "downloadSummaryLabel");
    const QString total = QLocale().formattedDataSize(865'000'000 + 589'800'000 + 18'300'000, 1,
                                                      QLocale::DataSizeTraditionalFormat);
    QVERIFY2(summary->isVisible() && summary->text().contains(u"From the offline bundle: 3 file(s), "_s + total),
             qPrintable(summary->text()));
    QVERIFY2(!summary->text().contains(u"pip fetches"_s), qPrintable(summary->text()));
    QVERIFY(m_page->isComplete());
    QVERIFY(nextButton()->isEnabled());
    QCOMPARE(m_page->fetchCount(), 0);
}

void TestDownloadPage::pipAtInstall_listsThePackagesWithTheInstall()
{
    // No lock before the install (python.org's installer brings the Python): pip's share is listed
    // with its estimate and where it comes from, and said to come with the install.
    core::ArtifactList list;
    core::Artifact wheels;
    wheels.name = u"tensorflow"_s;
    wheels.kind = u"wheelhouse"_s;
    wheels.requirement = u"tensorflow==2.10.*"_s;
    wheels.indexUrl = u"https://pypi.tuna.tsinghua.edu.cn/simple"_s;
    wheels.size = 455'900'000;
    list.artifacts = {wheels};
    m_wizard->state().setArtifacts(list);
    openWith({});
    QCOMPARE(m_page->listedCount(), 1);
    QVERIFY(m_table->isVisible());
    QVERIFY2(cell(0, NameColumn).startsWith(u"tensorflow==2.10.* and the packages it needs (about "_s),
             qPrintable(cell(0, NameColumn)));
    QVERIFY(
        cell(0, NameColumn).contains(QLocale().formattedDataSize(455'900'000, 1, QLocale::DataSizeTraditionalFormat)));
    QCOMPARE(cell(0, ProgressColumn), u"With the install"_s);
    QCOMPARE(cell(0, MirrorColumn), u"pypi.tuna.tsinghua.edu.cn"_s);
    QVERIFY2(child<QLabel>(m_page, "emptyLabel")->text().contains(u"during the install"_s),
             qPrintable(child<QLabel>(m_page, "emptyLabel")->text()));
    QVERIFY(child<QLabel>(m_page, "downloadSummaryLabel")->text().contains(u"pypi.tuna.tsinghua.edu.cn"_s));
}

void TestDownloadPage::running_showsSpeedTimeLeftAndSource()
{
    const QByteArray payload = randomBytes(1024 * 1024, 9);
    m_server->route("/cudnn.tar.xz", Response::bytes(payload).throttle(256 * 1024));
    openWith({request(QStringLiteral("cuDNN"), "/cudnn.tar.xz", payload)});
    // Before a byte: the server it will come from.
    QCOMPARE(cell(0, MirrorColumn), QString::fromLatin1(m_server->hostAndPort()));
    auto *overall = child<QLabel>(m_page, "overallLabel");
    QTRY_VERIFY_WITH_TIMEOUT(overall->text().contains(u"/s, about "_s), 10'000);
    QVERIFY2(overall->text().contains(u" left)"_s), qPrintable(overall->text()));
    QVERIFY2(
        overall->text().contains(QLocale().formattedDataSize(payload.size(), 1, QLocale::DataSizeTraditionalFormat)),
        qPrintable(overall->text()));
    auto *summary = child<QLabel>(m_page, "downloadSummaryLabel");
    QVERIFY2(summary->text().contains(u"at the current "_s), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains(u"From: 127.0.0.1"_s), qPrintable(summary->text()));
    m_page->cancelDownloads();
}

void TestDownloadPage::screenshots_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("bundle");
    for (const QString &language : {u"en"_s, u"zh_CN"_s}) {
        for (const QSize &size : {QSize(720, 540), QSize(1366, 768)}) {
            for (const bool bundle : {false, true}) {
                const QString name = u"%1-%2x%3-%4"_s.arg(language)
                                         .arg(size.width())
                                         .arg(size.height())
                                         .arg(bundle ? u"bundle"_s : u"running"_s);
                QTest::newRow(qPrintable(name)) << language << size << bundle;
            }
        }
    }
}

void TestDownloadPage::screenshots()
{
    // Every state fits: nothing squashed below its size hint, no label cut; saved for a look when
    // TFSETUP_SCREENSHOT_DIR is set.
    QFETCH(QString, language);
    QFETCH(QSize, size);
    QFETCH(bool, bundle);
    rebuild(language);
    if (QTest::currentTestFailed())
        return;
    QList<core::DownloadRequest> requests;
    const QByteArray payload = randomBytes(2 * 1024 * 1024, 11);
    const QByteArray broken = randomBytes(64 * 1024, 12);
    if (bundle) {
        useBundle();
    } else {
        core::ArtifactList list;
        list.warnings.append(
            {QStringLiteral("no_wheel"), QStringLiteral("tensorflow 2.10.1 has no wheel for Python 3.12 on Windows.")});
        core::Artifact wheels;
        wheels.name = u"tensorflow"_s;
        wheels.kind = u"wheelhouse"_s;
        wheels.requirement = u"tensorflow==2.10.*"_s;
        wheels.size = 455'900'000;
        list.artifacts = {wheels};
        m_wizard->state().setArtifacts(list);
        m_server->route("/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz",
                        Response::bytes(payload).throttle(128 * 1024));
        requests = {request(u"cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz"_s,
                            "/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", payload),
                    request(u"cuda_cudart"_s, "/missing.zip", broken)};
    }
    m_wizard->resize(size);
    openWith(requests);
    if (!bundle) {
        QTRY_COMPARE_WITH_TIMEOUT(m_page->rowState(1), ui::DownloadPage::RowState::Failed, 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(rowBar(0)->value() > 0, 10'000);
    }
    QTest::qWait(100);
    QStringList problems;
    for (QWidget *w : m_page->findChildren<QWidget *>()) {
        if (!w->isVisibleTo(m_page) || qobject_cast<QProgressBar *>(w))
            continue;
        if (auto *label = qobject_cast<QLabel *>(w); label && label->wordWrap() && !label->text().isEmpty()
            && label->heightForWidth(label->width()) > label->height() + 2) {
            problems.append(label->objectName() + u" cut: "_s + label->text());
        }
        if (auto *button = qobject_cast<QAbstractButton *>(w);
            button && button->sizeHint().width() > button->width() + 2)
            problems.append(button->objectName() + u" squashed"_s);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    QVERIFY(m_table->height() >= m_table->minimumSizeHint().height());
    if (const QString dir = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(m_wizard->grab().save(dir
                                      + u"/download-%1-%2x%3-%4.png"_s.arg(language)
                                            .arg(size.width())
                                            .arg(size.height())
                                            .arg(bundle ? u"bundle"_s : u"running"_s)));
    }
    m_page->cancelDownloads();
}

QTEST_MAIN(TestDownloadPage)
#include "test_downloadpage.moc"
