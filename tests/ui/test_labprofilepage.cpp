// The Lab profile page: a profile opened from a file and from the lab's server (loopback) shows
// its plan, folder, mirror and kernel; a broken or missing profile says why and keeps Next off;
// the admin's "prepare a profile" writes a file the installer's profile reader accepts.

#include "uitest.h"
#include "layoutcheck.h"
#include "util/i18n.h"
#include "support/files.h"
#include "install/labprofile.h"
#include "system/rootedsystem.h"
#include "ui/detectpage.h"
#include "setup/setupflow.h"
#include "ui/labprofilepage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

using tfsetup::test::child;

QString profilePath()
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/labprofile/lab.json"_s;
}

using tfsetup::test::readFile;

} // namespace

class TestLabProfilePage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void opensAFileAndShowsWhatItWillDo();
    void opensFromTheLabServer();
    void opensFromTheLabServerThroughTheProxy();
    void brokenProfileSaysWhy_data();
    void brokenProfileSaysWhy();
    void throughTheUsualPagesStartsFromTheProfile();
    void preparesAProfileFromTheCurrentChoices();
    void throughTheUsualPagesKeepsTheJupyterChoice();
    void throughTheUsualPagesKeepsTheFrontEnd();
    void openedProfile_fitsAndIsScreenshot_data();
    void openedProfile_fitsAndIsScreenshot();

private:
    void open(const QString &source)
    {
        child<QLineEdit>(m_page, u"labProfileSourceEdit"_s)->setText(source);
        QTest::mouseClick(child<QPushButton>(m_page, u"labProfileOpenButton"_s), Qt::LeftButton);
    }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::LabProfilePage *m_page = nullptr;
};

void TestLabProfilePage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux,
                                                    QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->labProfilePage();
    QCOMPARE(m_page->objectName(), u"labProfilePage"_s);
    m_wizard->state().setMode(ui::WizardState::Mode::LabProfile);
    m_wizard->show();
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::LabProfilePageId));
}

void TestLabProfilePage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestLabProfilePage::opensAFileAndShowsWhatItWillDo()
{
    QVERIFY(!m_wizard->button(QWizard::NextButton)->isEnabled());
    QVERIFY(!child<QCheckBox>(m_page, u"labProfileUnattendedCheck"_s)->isEnabled());
    m_page->setFilePicker([](bool save) { return save ? QString() : profilePath(); });
    QSignalSpy opened(m_page, &ui::LabProfilePage::profileOpened);
    QTest::mouseClick(child<QPushButton>(m_page, u"labProfileBrowseButton"_s), Qt::LeftButton);
    QCOMPARE(opened.count(), 1);
    QVERIFY(opened.first().first().toBool());

    const QString summary = child<QLabel>(m_page, u"labProfileSummary"_s)->text();
    QVERIFY2(summary.contains(u"Deep learning lab, test term"_s), qPrintable(summary));
    QVERIFY(summary.contains(u"2.15.1"_s));
    QVERIFY(summary.contains(u"/home/student/tf-envs/tf2.15-lab"_s));
    QVERIFY(summary.contains(u"https://pypi.lab.example.edu/simple/"_s));
    QVERIFY(summary.contains(u"TensorFlow 2.15 (lab)"_s));
    QVERIFY(child<QCheckBox>(m_page, u"labProfileUnattendedCheck"_s)->isEnabled());
    QVERIFY(m_wizard->button(QWizard::NextButton)->isEnabled());
}

void TestLabProfilePage::opensFromTheLabServer()
{
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/tfsetup/lab.json", Response::bytes(readFile(profilePath()), "application/json"));
    QSignalSpy opened(m_page, &ui::LabProfilePage::profileOpened);
    open(server.url(u"/tfsetup/lab.json"_s).toString());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
    QVERIFY(opened.first().first().toBool());
    QVERIFY(m_page->profile());
    QCOMPARE(m_page->profile()->environment, u"tf2.15-lab"_s);
    QCOMPARE(server.requests("/tfsetup/lab.json").size(), 1);

    // A page that is not a profile (a captive portal) is refused with advice.
    server.route("/portal", Response::htmlErrorPage());
    open(server.url(u"/portal"_s).toString());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 20000);
    QVERIFY(!opened.last().first().toBool());
    QVERIFY(!m_page->profile());
    QVERIFY(!child<QLabel>(m_page, u"labProfileStatusLabel"_s)->text().isEmpty());
    QVERIFY(!m_wizard->button(QWizard::NextButton)->isEnabled());
}

void TestLabProfilePage::opensFromTheLabServerThroughTheProxy()
{
    // The lab server is reachable only through the proxy (its name resolves nowhere): the
    // profile comes the way every other request goes.
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/tfsetup/lab.json", Response::bytes(readFile(profilePath()), "application/json"));
    tfsetup::test::LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"lab.invalid"_s, server.url().port());
    core::SetupOptions options = m_wizard->state().options();
    options.network.transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    m_wizard->state().setOptions(options);
    QSignalSpy opened(m_page, &ui::LabProfilePage::profileOpened);
    open(u"http://lab.invalid/tfsetup/lab.json"_s);
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
    QVERIFY2(opened.first().first().toBool(), qPrintable(child<QLabel>(m_page, u"labProfileStatusLabel"_s)->text()));
    QCOMPARE(m_page->profile()->environment, u"tf2.15-lab"_s);
    QCOMPARE(server.requests("/tfsetup/lab.json").size(), 1);
    QCOMPARE(proxy.forwardCount(), 1);
}

void TestLabProfilePage::brokenProfileSaysWhy_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::newRow("missing file") << QByteArray();
    QTest::newRow("other schema") << QByteArray(R"({"schema": 7})");
    QTest::newRow("no environment") << QByteArray(
        R"({"schema": 1, "installFolder": "~/x", "plan": {"route": "linux-pip"}})");
}

void TestLabProfilePage::brokenProfileSaysWhy()
{
    QFETCH(QByteArray, contents);
    const QString path = m_root->filePath(u"broken.json"_s);
    if (!contents.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(contents);
    }
    QSignalSpy opened(m_page, &ui::LabProfilePage::profileOpened);
    open(path);
    QCOMPARE(opened.count(), 1);
    QVERIFY(!opened.first().first().toBool());
    QVERIFY(!child<QLabel>(m_page, u"labProfileStatusLabel"_s)->text().isEmpty());
    QVERIFY(child<QLabel>(m_page, u"labProfileSummary"_s)->text().isEmpty());
    QVERIFY(!m_wizard->button(QWizard::NextButton)->isEnabled());
}

void TestLabProfilePage::throughTheUsualPagesStartsFromTheProfile()
{
    open(profilePath());
    QSignalSpy suggested(m_page, &ui::LabProfilePage::optionsSuggested);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QCOMPARE(suggested.count(), 1);
    const auto &state = m_wizard->state();
    QVERIFY(state.plan());
    QCOMPARE(state.plan()->route, u"linux-pip"_s);
    QCOMPARE(state.plan()->tensorflow, u"2.15.1"_s);
    QCOMPARE(state.options().prefix, u"/home/student/tf-envs"_s);
    QCOMPARE(state.options().name, u"tf2.15-lab"_s);
    QCOMPARE(state.options().network.firstPypiIndex(), u"https://pypi.lab.example.edu/simple/"_s);

    // The Options page keeps the profile's folder, name and mirror, over remembered settings
    // and defaults alike.
    const QString ini = m_root->filePath(u"remembered.ini"_s);
    {
        QSettings remembered(ini, QSettings::IniFormat);
        remembered.setValue(u"options/prefix"_s, u"/home/student/elsewhere"_s);
        remembered.setValue(u"options/pypiMirror"_s, u"tuna"_s);
    }
    m_wizard->optionsPage()->setSettingsFactory(
        [ini] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); });
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->detectPage()->isComplete(), 20'000); // the scan of this machine
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QCOMPARE(child<QLineEdit>(m_wizard.get(), u"folderEdit"_s)->text(), u"/home/student/tf-envs"_s);
    QCOMPARE(child<QLineEdit>(m_wizard.get(), u"nameEdit"_s)->text(), u"tf2.15-lab"_s);
    QCOMPARE(m_wizard->optionsPage()->options().network.firstPypiIndex(), u"https://pypi.lab.example.edu/simple/"_s);
    QCOMPARE(m_wizard->optionsPage()->options().prefix, u"/home/student/tf-envs"_s);
    QCOMPARE(m_wizard->optionsPage()->options().name, u"tf2.15-lab"_s);
    // Back and forth keeps them too.
    m_wizard->back();
    m_wizard->next();
    QCOMPARE(m_wizard->optionsPage()->options().name, u"tf2.15-lab"_s);
    QCOMPARE(m_wizard->optionsPage()->options().prefix, u"/home/student/tf-envs"_s);
}

void TestLabProfilePage::preparesAProfileFromTheCurrentChoices()
{
    auto *prepare = child<QPushButton>(m_page, u"labProfilePrepareButton"_s);
    QVERIFY(!prepare->isEnabled()); // nothing chosen yet
    QVERIFY(!child<QPushButton>(m_page, u"labProfileBundleButton"_s)->isEnabled());

    core::Plan plan;
    plan.route = u"linux-pip"_s;
    plan.tensorflow = u"2.15.1"_s;
    plan.package = u"tensorflow[and-cuda]"_s;
    plan.python = u"3.11"_s;
    core::SetupOptions options;
    options.prefix = u"/home/student/lab-envs"_s;
    options.network.pypiIndexes = QStringList{u"https://pypi.lab.example.edu/simple/"_s};
    m_wizard->state().setPlan(plan);
    m_wizard->state().setOptions(options);
    m_page->initializePage();
    QVERIFY(prepare->isEnabled());

    const QString saved = m_root->filePath(u"prepared.json"_s);
    m_page->setFilePicker([saved](bool save) { return save ? saved : QString(); });
    QTest::mouseClick(prepare, Qt::LeftButton);
    const auto profile = core::LabProfile::load(saved);
    QVERIFY2(profile, qPrintable(profile ? QString() : profile.error().message));
    QCOMPARE(profile->route, plan.route);
    QCOMPARE(profile->tensorflow, plan.tensorflow);
    QCOMPARE(profile->installFolder, options.prefix);
    QCOMPARE(profile->indexUrls, QStringList{options.network.firstPypiIndex()});
    QCOMPARE(profile->environment, core::InstallSpec::defaultName(plan));
    QVERIFY(!profile->requirements.isEmpty());
    QVERIFY(child<QLabel>(m_page, u"labProfileStatusLabel"_s)->text().contains(u"prepared.json"_s));
    QVERIFY(!profile->jupyter.isEmpty()); // Jupyter was chosen (the default)

    // Without Jupyter, the prepared profile says so.
    options.jupyter = false;
    m_wizard->state().setOptions(options);
    QTest::mouseClick(prepare, Qt::LeftButton);
    const auto withoutJupyter = core::LabProfile::load(saved);
    QVERIFY(withoutJupyter);
    QVERIFY(withoutJupyter->jupyter.isEmpty());

    // Saved over a link (to the lab's shared notes, say): refused with why, the notes untouched.
    const QString notes = m_root->filePath(u"notes.txt"_s);
    {
        QFile f(notes);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("mine\n");
    }
    const QString linked = m_root->filePath(u"linked.json"_s);
    QVERIFY(QFile::link(notes, linked));
    m_page->setFilePicker([linked](bool save) { return save ? linked : QString(); });
    QTest::mouseClick(prepare, Qt::LeftButton);
    QVERIFY(QFileInfo(linked).isSymLink());
    QFile kept(notes);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("mine\n"));
    const QString status = child<QLabel>(m_page, u"labProfileStatusLabel"_s)->text();
    QVERIFY2(status.contains(u"link"_s) && status.contains(u"linked.json"_s), qPrintable(status));
}

void TestLabProfilePage::throughTheUsualPagesKeepsTheJupyterChoice()
{
    // A profile without Jupyter, taken through the usual pages: the Options page starts with it off.
    QJsonObject profile = QJsonDocument::fromJson(readFile(profilePath())).object();
    profile[u"jupyter"_s] = false;
    const QString path = m_root->filePath(u"no-jupyter.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(profile).toJson());
    file.close();
    open(path);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QVERIFY(!m_wizard->state().options().jupyter);
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->detectPage()->isComplete(), 20'000);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QVERIFY(!child<QCheckBox>(m_wizard.get(), u"jupyterCheck"_s)->isChecked());
    QVERIFY(!m_wizard->optionsPage()->options().jupyter);
}

void TestLabProfilePage::throughTheUsualPagesKeepsTheFrontEnd()
{
    // "jupyter": "notebook" through the usual pages: the spec the Options and Install pages
    // build is the profile's, as `tfsetup install --profile` installs it, not JupyterLab.
    QJsonObject profile = QJsonDocument::fromJson(readFile(profilePath())).object();
    profile[u"jupyter"_s] = u"notebook"_s;
    const QString path = m_root->filePath(u"notebook.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(profile).toJson());
    file.close();
    open(path);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    const ui::WizardState &state = m_wizard->state();
    QVERIFY(state.options().jupyter);
    QVERIFY(state.options().profileSpec);
    QCOMPARE(state.options().profileSpec->jupyter, u"notebook"_s);
    const auto spec = core::SetupFlow::baseSpec(*state.plan(), state.options(), core::HardwareReport{});
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->jupyter, u"notebook"_s);
    QVERIFY(spec->jupyterRequirements().contains(u"notebook"_s));
    QVERIFY(!spec->jupyterRequirements().contains(u"jupyterlab"_s));
    // The rest of the profile too: its kernel, its requirements, its "interpreter": "none".
    QCOMPARE(spec->kernelDisplayName, u"TensorFlow 2.15 (lab)"_s);
    QCOMPARE(spec->requirements, QStringList{u"tensorflow[and-cuda]==2.15.1"_s});
    QCOMPARE(spec->pythonInterpreter, QString());
    QCOMPARE(spec->environmentPath(), u"/home/student/tf-envs/tf2.15-lab"_s);

    // The Options page passes it on, and a profile prepared from these choices names it.
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->detectPage()->isComplete(), 20'000);
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    const core::SetupOptions options = m_wizard->optionsPage()->options();
    QVERIFY(options.profileSpec);
    QCOMPARE(core::SetupFlow::baseSpec(*state.plan(), options, core::HardwareReport{})->jupyter, u"notebook"_s);
    const QJsonObject prepared = ui::LabProfilePage::profileJson(*state.plan(), options, u"lab"_s);
    QCOMPARE(prepared.value(u"jupyter"_s).toString(), u"notebook"_s);
}

void TestLabProfilePage::openedProfile_fitsAndIsScreenshot_data()
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

void TestLabProfilePage::openedProfile_fitsAndIsScreenshot()
{
    QFETCH(QString, language);
    QFETCH(QSize, size);
    core::Translations translations;
    QVERIFY(translations.setLanguage(language));
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, &translations);
    const auto closeWizard = qScopeGuard([this] { m_wizard.reset(); });
    m_page = m_wizard->labProfilePage();
    m_wizard->state().setMode(ui::WizardState::Mode::LabProfile);
    m_wizard->resize(size);
    m_wizard->show();
    m_wizard->next();
    QVERIFY(QTest::qWaitForWindowExposed(m_wizard.get()));
    // A long profile: mirrors and a proxy the summary shows in full.
    QJsonObject profile = QJsonDocument::fromJson(readFile(profilePath())).object();
    profile[u"jupyter"_s] = u"notebook"_s;
    profile[u"proxy"_s] = u"http://proxy.cs.lab.example.edu:3128"_s;
    const QJsonArray mirrors{u"https://pypi.lab.example.edu/simple/"_s,
                             u"https://mirrors.tuna.tsinghua.edu.cn/pypi/web/simple/"_s};
    profile[u"mirrors"_s] = QJsonObject{{u"pypi"_s, mirrors}};
    const QString path = m_root->filePath(u"long.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(profile).toJson());
    file.close();
    open(path);
    QVERIFY(m_page->profile());
    QTest::qWait(100);
    const QString name = u"%1-labprofile-%2x%3"_s.arg(language).arg(size.width()).arg(size.height());
    const QStringList problems = test::layoutProblems(m_wizard.get(), name);
    if (const QString shots = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR"); !shots.isEmpty()) {
        QDir().mkpath(shots);
        m_wizard->grab().save(shots + u'/' + name + u".png"_s);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
}

QTEST_MAIN(TestLabProfilePage)
#include "test_labprofilepage.moc"
