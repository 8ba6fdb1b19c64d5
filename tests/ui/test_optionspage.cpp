// The Options page: defaults from the plan and the home folder, a "What is this?" for every term,
// Next gated on a usable folder and name, Windows folder advice, resolution on Next (awaited,
// against NVIDIA's layout on loopback) that commits artifacts and download requests, and choices
// remembered in a settings file. Files without any published checksum need the explicit
// trust-on-first-use choice, made each time. The fixture machine's Python is this machine's
// python3, so pip's resolver locks the packages for real against a loopback index of stand-ins.

#include "uitest.h"
#include "install/launchers.h"
#include "support/hostprograms.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "support/testindex.h"
#include "ui/downloadpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::HostProgramSystem;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;
using tfsetup::test::TestIndex;

namespace {

core::Plan cpuPlan()
{
    core::Plan p;
    p.route = u"cpu"_s;
    p.tensorflow = u"2.16.1"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    return p;
}

core::Plan toolkitPlan()
{
    core::Plan p = cpuPlan();
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s; // the real 8.9.7 manifest is in the test data
    return p;
}

// TensorFlow 2.10 on native Windows: CUDA 11.2 (served from the 11.8 manifest) and cuDNN 8.1,
// whose Windows archive has no published checksum anywhere.
core::Plan windowsPlan()
{
    core::Plan p = cpuPlan();
    p.route = u"windows-native"_s;
    p.tensorflow = u"2.10.1"_s;
    p.python = u"3.10"_s;
    p.cuda = u"11.2"_s;
    p.cudnn = u"8.1"_s;
    return p;
}

QByteArray readManifest(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

using tfsetup::test::child;

namespace {

// A machine whose disks are all but full.
class FullDiskSystem final : public HostProgramSystem {
public:
    using HostProgramSystem::HostProgramSystem;
    std::optional<core::DiskSpace> diskSpace(const QString &) const override
    {
        return core::DiskSpace{50 * 1024 * 1024, u"disk"_s};
    }
};

} // namespace

} // namespace

class TestOptionsPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void defaults_followThePlanAndHome();
    void everyTerm_hasAnExplanation_data();
    void everyTerm_hasAnExplanation();
    void next_isGatedOnFolderAndName_data();
    void next_isGatedOnFolderAndName();
    void windowsFolder_withChineseName_isAdvisedNotBlocked();
    void next_resolvesAndCommitsDownloads();
    void resolveFailure_staysWithTheReason();
    void resolveFailure_namesTheCause();
    void fullDisk_isSaidBeforeAnythingDownloads();
    void choices_areRemembered();
    void suggestion_carriesTheJupyterChoice_data();
    void suggestion_carriesTheJupyterChoice();
    void noChecksumAnywhere_needsTheExplicitChoice();

private:
    void open(core::OsFamily os, const core::Plan &plan, const QHash<QString, QString> &env,
              std::unique_ptr<HostProgramSystem> system = nullptr);
    QAbstractButton *nextButton() const { return m_wizard->button(QWizard::NextButton); }
    // The index for PyPI and every preset: the options a test hands the page start from these.
    core::SetupOptions indexed(core::SetupOptions base = {}) const;

    QTemporaryDir m_cache;
    LoopbackServer m_server;
    std::unique_ptr<TestIndex> m_index;
    QString m_python;
    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<HostProgramSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::OptionsPage *m_page = nullptr;
    QString m_ini;
};

void TestOptionsPage::initTestCase()
{
    // The Download page's default downloader caches here, not in the user's cache.
    qputenv("TFSETUP_CACHE_DIR", m_cache.filePath(u"cache"_s).toLocal8Bit());
    qputenv("PIP_CONFIG_FILE", "/dev/null");
    m_python = QStandardPaths::findExecutable(u"python3"_s);
    QVERIFY2(!m_python.isEmpty(), "python3 is needed (the .ci/packages list has it)");

    // Stand-ins for every release the plans below name and for the Jupyter packages.
    QVERIFY(m_server.start());
    m_index = std::make_unique<TestIndex>(m_server);
    QVERIFY(test::addStandIns(*m_index, m_python, m_cache.path(), {u"2.10.1"_s, u"2.16.1"_s, u"2.18.0"_s}));
}

core::SetupOptions TestOptionsPage::indexed(core::SetupOptions base) const
{
    const QUrl index = m_index->url();
    for (const QString &origin : {u"pypi"_s, u"pypi:tuna"_s, u"pypi:aliyun"_s, u"pypi:ustc"_s})
        base.network.originOverrides.append({origin, index});
    return base;
}

void TestOptionsPage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_ini = m_root->filePath(u"settings.ini"_s);
}

void TestOptionsPage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestOptionsPage::open(core::OsFamily os, const core::Plan &plan, const QHash<QString, QString> &env,
                           std::unique_ptr<HostProgramSystem> system)
{
    m_wizard.reset();
    m_system = system ? std::move(system)
                      : std::make_unique<HostProgramSystem>(m_root->filePath(u"machine"_s), os, env);
    // The imitated machine's Python is this one's.
    const core::PythonInfo python = os == core::OsFamily::Windows
        ? core::PythonInfo{u"C:/Python310/python.exe"_s, u"3.10.11"_s, u"system"_s, 64, u"registry"_s}
        : core::PythonInfo{u"/usr/bin/python3.11"_s, u"3.11.4"_s, u"system"_s, 64, u"path"_s};
    m_system->mapProgram(python.path, m_python);
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->optionsPage();
    QVERIFY(m_page);
    QCOMPARE(m_page->objectName(), u"optionsPage"_s);
    const QString ini = m_ini;
    m_page->setSettingsFactory([ini] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); });
    core::HardwareReport report;
    report.os.family = core::osFamilyName(os);
    report.pythons = {python};
    m_wizard->state().setHardware(report);
    m_wizard->state().setPlan(plan);
    m_page->setBaseOptions(indexed());
    m_wizard->setStartId(ui::SetupWizard::OptionsPageId);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
}

void TestOptionsPage::defaults_followThePlanAndHome()
{
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    QCOMPARE(child<QLineEdit>(m_page, u"folderEdit"_s)->text(), u"/home/student/tfsetup-envs"_s);
    QCOMPARE(child<QLineEdit>(m_page, u"nameEdit"_s)->text(), u"tf2.16-cpu"_s);
    auto *pypi = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    QCOMPARE(pypi->currentData().toString(), u"pypi"_s);
    for (const QString &preset : {u"tuna"_s, u"aliyun"_s, u"ustc"_s})
        QVERIFY2(pypi->findData(preset) >= 0, qPrintable(preset));
    // The machine's own download folder (here the fixture tree's), not this host's.
    QCOMPARE(child<QLineEdit>(m_page, u"cacheEdit"_s)->text(),
             m_root->filePath(u"machine/home/student/.cache/tfsetup/downloads"_s));
    QVERIFY(nextButton()->isEnabled());
    QVERIFY(child<QLabel>(m_page, u"folderAdviceLabel"_s)->isHidden());
    // Jupyter (JupyterLab beside the kernel) is on unless the student says otherwise.
    auto *jupyter = child<QCheckBox>(m_page, u"jupyterCheck"_s);
    QVERIFY(jupyter->isChecked() && jupyter->isVisible());
    QVERIFY(!jupyter->accessibleName().isEmpty());
    QVERIFY(m_page->options().jupyter);
}

void TestOptionsPage::everyTerm_hasAnExplanation_data()
{
    QTest::addColumn<QString>("topic");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("folder") << u"folder"_s << u"folder"_s;
    QTest::newRow("name") << u"name"_s << u"Jupyter"_s;
    QTest::newRow("pypi mirror") << u"pypi"_s << u"tuna"_s;
    QTest::newRow("nvidia mirror") << u"nvidia"_s << u"checksum"_s;
    QTest::newRow("proxy") << u"proxy"_s << u"proxy"_s;
    QTest::newRow("download folder") << u"cache"_s << u"download"_s;
    QTest::newRow("offline bundle") << u"bundle"_s << u"tfsetup bundle"_s;
}

void TestOptionsPage::everyTerm_hasAnExplanation()
{
    QFETCH(QString, topic);
    QFETCH(QString, mentions);
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    auto *link = child<QAbstractButton>(m_page, topic + u"Help"_s);
    QVERIFY(link->isVisible());
    QCOMPARE(link->text(), u"What is this?"_s);
    auto *help = child<QLabel>(m_page, u"helpLabel"_s);
    QVERIFY(help->isHidden());
    QTest::mouseClick(link, Qt::LeftButton);
    QVERIFY(help->isVisible());
    QVERIFY2(help->text().contains(mentions, Qt::CaseInsensitive), qPrintable(help->text()));
}

void TestOptionsPage::next_isGatedOnFolderAndName_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("enabled");
    QTest::newRow("defaults") << u"/home/student/tfsetup-envs"_s << u"tf2.16-cpu"_s << true;
    QTest::newRow("empty name") << u"/home/student/tfsetup-envs"_s << QString() << false;
    QTest::newRow("name with a slash") << u"/home/student/tfsetup-envs"_s << u"a/b"_s << false;
    QTest::newRow("hidden name") << u"/home/student/tfsetup-envs"_s << u".env"_s << false;
    // The installer's rule, so Install never refuses a name this page took.
    QTest::newRow("Windows device name") << u"/home/student/tfsetup-envs"_s << u"CON"_s << false;
    QTest::newRow("slash look-alike") << u"/home/student/tfsetup-envs"_s << u"a\u2215b"_s << false;
    QTest::newRow("home sign") << u"/home/student/tfsetup-envs"_s << u"~"_s << false;
    QTest::newRow("Chinese name") << u"/home/student/tfsetup-envs"_s << u"\u5B9E\u9A8C"_s << true;
    QTest::newRow("relative folder") << u"envs"_s << u"tf2.16-cpu"_s << false;
    QTest::newRow("empty folder") << QString() << u"tf2.16-cpu"_s << false;
}

void TestOptionsPage::next_isGatedOnFolderAndName()
{
    QFETCH(QString, folder);
    QFETCH(QString, name);
    QFETCH(bool, enabled);
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    child<QLineEdit>(m_page, u"folderEdit"_s)->setText(folder);
    child<QLineEdit>(m_page, u"nameEdit"_s)->setText(name);
    QCOMPARE(nextButton()->isEnabled(), enabled);
    QCOMPARE(m_page->isComplete(), enabled);
}

void TestOptionsPage::windowsFolder_withChineseName_isAdvisedNotBlocked()
{
    open(core::OsFamily::Windows, cpuPlan(), {{u"USERPROFILE"_s, u"C:\\Users\\张三"_s}});
    auto *folder = child<QLineEdit>(m_page, u"folderEdit"_s);
    QCOMPARE(folder->text(), u"C:/Users/张三/tfsetup-envs"_s);
    auto *advice = child<QLabel>(m_page, u"folderAdviceLabel"_s);
    QVERIFY(advice->isVisible());
    QVERIFY(advice->text().contains(u"C:\\tfsetup-envs"_s));
    QVERIFY(nextButton()->isEnabled()); // a warning, not a wall
    folder->setText(u"C:\\tfsetup-envs"_s);
    QVERIFY(advice->isHidden());
}

void TestOptionsPage::next_resolvesAndCommitsDownloads()
{
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    nvidia.route("/compute/cuda/redist/redistrib_12.5.1.json",
                 Response::bytes(readManifest(u"cuda/redistrib_12.5.1.json"_s), "application/json")
                     .delayHeaders(std::chrono::milliseconds(300)));
    nvidia.route("/compute/cudnn/redist/redistrib_8.9.7.json",
                 Response::bytes(readManifest(u"cudnn/redistrib_8.9.7.json"_s), "application/json"));
    open(core::OsFamily::Linux, toolkitPlan(), {{u"HOME"_s, u"/home/student"_s}});
    core::SetupOptions base;
    base.network.originOverrides = {{u"nvidia"_s, nvidia.url(u"/"_s)}, {u"pypi-json"_s, nvidia.url(u"/pypi"_s)}};
    base.network.resolveTimeout = std::chrono::seconds(5);
    m_page->setBaseOptions(indexed(base));
    const QString cache = m_root->filePath(u"downloads"_s);
    child<QLineEdit>(m_page, u"cacheEdit"_s)->setText(cache);
    auto *pypi = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    pypi->setCurrentIndex(pypi->findData(u"tuna"_s));

    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QSignalSpy downloads(&m_wizard->state(), &ui::WizardState::downloadsChanged);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    // Awaited, not blocking: the page is still there, busy, with Next off.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QVERIFY(m_page->isResolving());
    QVERIFY(!nextButton()->isEnabled());
    QVERIFY(child<QWidget>(m_page, u"resolveProgress"_s)->isVisible());
    QVERIFY(resolved.wait(60'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(child<QLabel>(m_page, u"statusLabel"_s)->text()));
    QCOMPARE(downloads.count(), 1);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));

    const ui::WizardState &state = m_wizard->state();
    QVERIFY(state.artifacts());
    QVERIFY(state.artifacts()->find(u"cuda_cudart"_s));
    QCOMPARE(state.artifacts()->find(u"tensorflow"_s)->indexUrl, u"https://pypi.tuna.tsinghua.edu.cn/simple"_s);
    QVERIFY(!state.downloads().isEmpty());
    for (const core::DownloadRequest &r : state.downloads())
        QVERIFY2(r.destination.startsWith(cache + u'/'), qPrintable(r.destination));
    QCOMPARE(state.options().network.firstPypiIndex(), u"tuna"_s);
    QCOMPARE(state.options().prefix, u"/home/student/tfsetup-envs"_s);
    QCOMPARE(state.options().name, u"tf2.18-cuda12.5"_s);
    m_wizard->downloadPage()->cancelDownloads();
}

void TestOptionsPage::resolveFailure_staysWithTheReason()
{
    open(core::OsFamily::Linux, toolkitPlan(), {{u"HOME"_s, u"/home/student"_s}});
    child<QLineEdit>(m_page, u"nvidiaMirrorEdit"_s)->setText(m_root->filePath(u"no-such-mirror"_s));
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
    QCOMPARE(resolved.first().first().toBool(), false);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    auto *status = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY(status->isVisible());
    QVERIFY2(status->text().contains(u"no-such-mirror"_s), qPrintable(status->text()));
    QVERIFY(nextButton()->isEnabled()); // fix the field and try again
    QVERIFY(m_wizard->state().downloads().isEmpty());
}

void TestOptionsPage::resolveFailure_namesTheCause()
{
    // The proxy typed on this page is the way out for the resolve too: a proxy that is not there
    // is named as such, not as "check the network connection or mirror settings".
    quint16 closed = 0;
    {
        LoopbackServer gone;
        QVERIFY(gone.start());
        closed = gone.url().port();
    }
    open(core::OsFamily::Linux, toolkitPlan(), {{u"HOME"_s, u"/home/student"_s}});
    core::SetupOptions base;
    base.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)},
                                    {u"pypi-json"_s, QUrl(u"http://pypi.invalid/pypi"_s)}};
    base.network.resolveTimeout = std::chrono::seconds(5);
    m_page->setBaseOptions(indexed(base));
    child<QLineEdit>(m_page, u"proxyEdit"_s)->setText(u"http://127.0.0.1:%1"_s.arg(closed));
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
    QCOMPARE(resolved.first().first().toBool(), false);
    auto *status = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY2(status->text().contains(u"The proxy could not be reached"_s), qPrintable(status->text()));
    QVERIFY(nextButton()->isEnabled());
}

void TestOptionsPage::fullDisk_isSaidBeforeAnythingDownloads()
{
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    nvidia.route("/compute/cuda/redist/redistrib_12.5.1.json",
                 Response::bytes(readManifest(u"cuda/redistrib_12.5.1.json"_s), "application/json"));
    nvidia.route("/compute/cudnn/redist/redistrib_8.9.7.json",
                 Response::bytes(readManifest(u"cudnn/redistrib_8.9.7.json"_s), "application/json"));
    const QHash<QString, QString> env{{u"HOME"_s, u"/home/student"_s}};
    open(core::OsFamily::Linux, toolkitPlan(), env,
         std::make_unique<FullDiskSystem>(m_root->filePath(u"machine"_s), core::OsFamily::Linux, env));
    core::SetupOptions base;
    base.network.originOverrides = {{u"nvidia"_s, nvidia.url(u"/"_s)}, {u"pypi-json"_s, nvidia.url(u"/pypi"_s)}};
    base.network.resolveTimeout = std::chrono::seconds(5);
    m_page->setBaseOptions(indexed(base));
    child<QLineEdit>(m_page, u"cacheEdit"_s)->setText(m_root->filePath(u"downloads"_s));
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
    QCOMPARE(resolved.first().first().toBool(), false);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    auto *status = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY2(status->text().contains(u"Not enough free disk space"_s), qPrintable(status->text()));
    QVERIFY(m_wizard->state().downloads().isEmpty());
}

void TestOptionsPage::choices_areRemembered()
{
    // The lab's proxy and index typed in: pip's resolver reaches the index through that proxy.
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    const QString proxyUrl = QString::fromLatin1(proxy.proxyUrl());
    const QString index = m_index->url().toString();
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    child<QLineEdit>(m_page, u"folderEdit"_s)->setText(u"/data/envs"_s);
    child<QLineEdit>(m_page, u"proxyEdit"_s)->setText(proxyUrl);
    auto *pypi = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    pypi->setEditText(index);
    child<QCheckBox>(m_page, u"jupyterCheck"_s)->setChecked(false);
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(60'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(child<QLabel>(m_page, u"statusLabel"_s)->text()));
    QCOMPARE(m_wizard->state().options().network.firstPypiIndex(), index);
    QVERIFY(!m_wizard->state().options().jupyter);
    QVERIFY(proxy.forwardCount() > 0);
    // A CPU plan downloads the wheels pip's resolver locked (TensorFlow and the kernel's packages,
    // without JupyterLab here), and nothing else.
    const core::PyLock &lock = m_wizard->state().lock();
    QVERIFY(lock.find(u"tensorflow"_s));
    QCOMPARE(lock.find(u"tensorflow"_s)->version, u"2.16.1"_s);
    const core::JupyterSettings &jupyter = core::JupyterSettings::builtIn();
    for (const QString &r : jupyter.kernelRequirements)
        QVERIFY2(lock.find(core::requirementProject(r)), qPrintable(r));
    QCOMPARE(lock.packages.size(), 1 + jupyter.kernelRequirements.size());
    QCOMPARE(m_wizard->state().downloads().size(), lock.packages.size());
    for (const core::DownloadRequest &r : m_wizard->state().downloads())
        QVERIFY2(r.destination.endsWith(u".whl"_s), qPrintable(r.destination));
    m_wizard->downloadPage()->cancelDownloads();

    // A new wizard, as on the next start, reads them back.
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    QCOMPARE(child<QLineEdit>(m_page, u"folderEdit"_s)->text(), u"/data/envs"_s);
    QCOMPARE(child<QLineEdit>(m_page, u"proxyEdit"_s)->text(), proxyUrl);
    QCOMPARE(m_page->options().network.firstPypiIndex(), index);
    QVERIFY(!child<QCheckBox>(m_page, u"jupyterCheck"_s)->isChecked());
    QSettings settings(m_ini, QSettings::IniFormat);
    QCOMPARE(settings.value(u"options/prefix"_s).toString(), u"/data/envs"_s);
}

void TestOptionsPage::suggestion_carriesTheJupyterChoice_data()
{
    QTest::addColumn<bool>("chosen");
    QTest::newRow("chosen on, remembered off") << true;
    QTest::newRow("chosen off, remembered on") << false;
}

void TestOptionsPage::suggestion_carriesTheJupyterChoice()
{
    // A continued setup or a lab profile brings the Jupyter choice made for it; the remembered
    // choice of an earlier setup must not turn it around.
    QFETCH(bool, chosen);
    {
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue(u"options/jupyter"_s, !chosen);
    }
    open(core::OsFamily::Linux, cpuPlan(), {{u"HOME"_s, u"/home/student"_s}});
    auto *jupyter = child<QCheckBox>(m_page, u"jupyterCheck"_s);
    QCOMPARE(jupyter->isChecked(), !chosen);

    core::SetupOptions suggested;
    suggested.prefix = u"/home/student/course"_s;
    suggested.network.pypiIndexes = QStringList{m_index->url().toString()};
    suggested.jupyter = chosen;
    m_page->suggestOptions(suggested);
    m_wizard->restart(); // the page opens again
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QCOMPARE(child<QLineEdit>(m_page, u"folderEdit"_s)->text(), u"/home/student/course"_s);
    QCOMPARE(jupyter->isChecked(), chosen);
    QCOMPARE(m_page->options().jupyter, chosen);

    // Next commits it, and pip's resolver locked the Jupyter packages exactly when chosen.
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(60'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(child<QLabel>(m_page, u"statusLabel"_s)->text()));
    QCOMPARE(m_wizard->state().options().jupyter, chosen);
    const core::JupyterSettings &settings = core::JupyterSettings::builtIn();
    const core::JupyterSettings::FrontEnd *lab = settings.frontEnd(settings.defaultFrontEnd);
    QVERIFY(lab && !lab->requirements.isEmpty());
    QCOMPARE(m_wizard->state().lock().find(core::requirementProject(lab->requirements.first())) != nullptr, chosen);
    m_wizard->downloadPage()->cancelDownloads();
}

void TestOptionsPage::noChecksumAnywhere_needsTheExplicitChoice()
{
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    nvidia.route("/compute/cuda/redist/redistrib_11.2.2.json",
                 Response::bytes(readManifest(u"cuda/redistrib_11.8.0.json"_s), "application/json"));
    QByteArray payload;
    for (int i = 0; i < 100'000; ++i)
        payload.append(char(i * 13 % 251));
    const QByteArray cudnnPath = "/compute/redist/cudnn/v8.1.0/cudnn-11.2-windows-x64-v8.1.0.77.zip";
    nvidia.route(cudnnPath, Response::bytes(payload));
    open(core::OsFamily::Windows, windowsPlan(), {{u"USERPROFILE"_s, u"C:\\Users\\student"_s}});
    core::SetupOptions base;
    // Nothing reaches the internet: NVIDIA and python.org are the loopback server, PyPI's JSON is nowhere.
    base.network.originOverrides = {{u"nvidia"_s, nvidia.url(u"/"_s)},
                                    {u"python"_s, nvidia.url(u"/"_s)},
                                    {u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)}};
    base.network.resolveTimeout = std::chrono::seconds(5);
    m_page->setBaseOptions(indexed(base));
    const QString cache = m_root->filePath(u"downloads"_s);
    child<QLineEdit>(m_page, u"cacheEdit"_s)->setText(cache);
    auto *trust = child<QCheckBox>(m_page, u"trustOnFirstUseCheck"_s);
    auto *status = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY(trust->isHidden());
    QVERIFY(!trust->isChecked());
    QVERIFY(!trust->accessibleName().isEmpty());

    // Without the choice Next stays here, names the file and offers the choice, unchecked.
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    for (int attempt = 0; attempt < 2; ++attempt) {
        resolved.clear();
        QTest::mouseClick(nextButton(), Qt::LeftButton);
        QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
        QCOMPARE(resolved.first().first().toBool(), false);
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
        QVERIFY2(status->text().contains(u"cudnn-11.2-windows-x64-v8.1.0.77.zip"_s), qPrintable(status->text()));
        QVERIFY(trust->isVisible());
        QVERIFY(!trust->isChecked());
        QVERIFY(child<QLabel>(m_page, u"trustOnFirstUseRiskLabel"_s)->isVisible());
    }
    QCOMPARE(nvidia.hits(cudnnPath), 0);
    QVERIFY(m_wizard->state().downloads().isEmpty());

    // With it, Next fetches the file, records what was seen and goes on.
    trust->setChecked(true);
    resolved.clear();
    QTest::mouseClick(nextButton(), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(60'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(status->text()));
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(nvidia.hits(cudnnPath), 1);
    const ui::WizardState &state = m_wizard->state();
    QVERIFY(state.artifacts());
    const core::Artifact *cudnn = state.artifacts()->find(u"cudnn"_s);
    QVERIFY(cudnn);
    const QString seen = QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex());
    QCOMPARE(cudnn->sha256, seen);
    QCOMPARE(cudnn->trust, core::Artifact::Trust::None);
    QVERIFY2(cudnn->note.contains(u"first use"_s), qPrintable(cudnn->note));
    const QString destination = core::SetupFlow::destinationFor(*cudnn, cache);
    QVERIFY(QFileInfo(destination).isFile());
    const auto &requests = state.downloads();
    const auto request = std::find_if(requests.cbegin(), requests.cend(),
                                      [&](const core::DownloadRequest &r) { return r.destination == destination; });
    QVERIFY(request != requests.cend());
    QCOMPARE(QString::fromLatin1(request->checksum.hex), seen);
    m_wizard->downloadPage()->cancelDownloads();
    // Nothing about the choice is remembered for the next run.
    QSettings settings(m_ini, QSettings::IniFormat);
    for (const QString &key : settings.allKeys())
        QVERIFY2(!key.contains(u"trust"_s, Qt::CaseInsensitive), qPrintable(key));
}

QTEST_MAIN(TestOptionsPage)
#include "test_optionspage.moc"
