// The Options page's "Test connection" and its Chinese default. The real button is clicked with
// the page's origins, proxy and PyPI presets pointed at loopback servers (SetupOptions'
// origin overrides, "pypi:<preset>" for a preset): each origin's row says reachable / how fast /
// why not, and the fix is offered in place (proxy field, fastest mirror, bundle field). In
// Chinese, with no mirror chosen, the presets are measured in the background and the fastest is
// preselected under its Chinese name; a remembered or typed choice is never overridden.

#include "uitest.h"
#include "support/loopbackproxy.h"
#include "support/hostprograms.h"
#include "support/loopbackserver.h"
#include "support/testindex.h"
#include "ui/optionspage.h"
#include "ui/pagestatus.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "util/i18n.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::child;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

core::Plan toolkitPlan()
{
    core::Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s;
    return p;
}

core::Plan cpuPlan()
{
    core::Plan p = toolkitPlan();
    p.route = u"cpu"_s;
    p.tensorflow = u"2.16.1"_s;
    p.cuda.clear();
    p.cudnn.clear();
    return p;
}

QByteArray pipPage(qsizetype size)
{
    QByteArray page = "<!DOCTYPE html><html><body><h1>Links for pip</h1>\n";
    for (int i = 0; page.size() < size; ++i) {
        const QByteArray file = "pip-0." + QByteArray::number(i) + ".tar.gz";
        page += "<a href=\"../../packages/" + file + "\">" + file + "</a><br/>\n";
    }
    return page + "</body></html>\n";
}

QByteArray manifest()
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/cuda/redistrib_12.5.1.json"_s);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Why a visible label or button of the page does not show its whole text, or a field is squashed
// below its size hint; empty when all fit. What lies in the page's scroll area may be scrolled to.
QString cutOff(QWidget *page)
{
    // As the student sees it: after the layouts the last change asked for have run.
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
    QStringList problems;
    auto *scroll = page->findChild<QScrollArea *>(u"optionsScrollArea"_s);
    for (QWidget *w : page->findChildren<QWidget *>()) {
        if (!w->isVisibleTo(page) || w->width() <= 0)
            continue;
        const bool scrolled = scroll && scroll->widget() && scroll->widget()->isAncestorOf(w);
        // A combo box's own line edit is drawn inside the combo, by the combo's rules.
        if ((qobject_cast<QLineEdit *>(w) && !qobject_cast<QComboBox *>(w->parentWidget()))
            || qobject_cast<QComboBox *>(w)) {
            if (w->height() < w->minimumSizeHint().height())
                problems.append(w->objectName() + u" squashed to %1 px"_s.arg(w->height()));
        }
        if (auto *label = qobject_cast<QLabel *>(w); label && label->wordWrap() && !label->text().isEmpty()) {
            if (label->heightForWidth(label->width()) > label->height() + 2)
                problems.append(label->objectName() + u": "_s + label->text());
        } else if (auto *button = qobject_cast<QAbstractButton *>(w); button && !button->text().isEmpty()) {
            if (button->sizeHint().width() > button->width() + 2)
                problems.append(button->objectName() + u": "_s + button->text());
        }
        // Nothing lies beyond the page's bottom edge, unless it can be scrolled to.
        if (!scrolled && w->mapTo(page, QPoint(0, w->height())).y() > page->height() + 2)
            problems.append(w->objectName() + u" below the page"_s);
    }
    return problems.join(u'\n');
}

} // namespace

class TestOptionsConnection final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void testConnection_showsEachOriginWithTheFix();
    void testConnection_pypiDown_preselectsTheFastestMirror();
    void testConnection_rememberedChoice_isOfferedNotTaken();
    void testConnection_proxyAsksForAPassword_offersTheProxyField();
    void testConnection_languageSwitch_rewritesTheTableAndTheAdvice();
    void chinese_preselectsTheFastestPresetByItsChineseName();
    void chinese_rememberedChoice_isNotOverridden();
    void chinese_typedChoice_winsOverARankingInFlight();
    void chinese_testConnection_takesOverFromTheRanking();
    void changedSetting_clearsTheResults();
    void chinese_noMirrorAnswered_offersTheProxyUntilItChanges();
    void nextAfterAFailedTest_stopsOnceWithTheFix();
    void nextAfterAFailedTest_goesOnOnceTheSettingsChange();
    void smallWindow_fieldsKeepTheirSizeAndThePageScrolls_data();
    void smallWindow_fieldsKeepTheirSizeAndThePageScrolls();

private:
    // Opens the wizard at the Options page; base options (overrides) are in place before the
    // page first initialises, as SetupWizard's owner sets them.
    void open(const core::Plan &plan, const core::SetupOptions &base, const QString &language = u"en"_s);
    core::SetupOptions presetsAt(const QUrl &pypi, const QUrl &tuna, const QUrl &aliyun, const QUrl &ustc) const;
    ui::PageStatus *status() const { return child<ui::PageStatus>(m_page, u"statusArea"_s); }
    QPushButton *action() const { return child<QPushButton>(m_page, u"statusActionButton"_s); }
    // NVIDIA refused, PyPI and python.org answering: a toolkit plan's test fails on NVIDIA.
    void openWithNvidiaRefused(LoopbackServer &server, const QString &language = u"en"_s);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<test::HostProgramSystem> m_system;
    std::unique_ptr<core::Translations> m_translations;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::OptionsPage *m_page = nullptr;
    QString m_ini;
};

void TestOptionsConnection::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_ini = m_root->filePath(u"settings.ini"_s);
}

void TestOptionsConnection::cleanup()
{
    m_wizard.reset();
    m_translations.reset(); // back to English for the next test
    m_system.reset();
    m_root.reset();
}

core::SetupOptions TestOptionsConnection::presetsAt(const QUrl &pypi, const QUrl &tuna, const QUrl &aliyun,
                                                    const QUrl &ustc) const
{
    core::SetupOptions base;
    base.network.originOverrides = {
        {u"pypi"_s, pypi}, {u"pypi:tuna"_s, tuna}, {u"pypi:aliyun"_s, aliyun}, {u"pypi:ustc"_s, ustc}};
    return base;
}

void TestOptionsConnection::open(const core::Plan &plan, const core::SetupOptions &base, const QString &language)
{
    m_wizard.reset();
    m_translations = std::make_unique<core::Translations>();
    QVERIFY(m_translations->setLanguage(language));
    m_system = std::make_unique<test::HostProgramSystem>(m_root->filePath(u"machine"_s), core::OsFamily::Linux,
                                                         QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}});
    // The imitated machine's Python is this one's, for pip's resolver to lock with.
    m_system->mapProgram(u"/usr/bin/python3.11"_s, QStandardPaths::findExecutable(u"python3"_s));
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, m_translations.get());
    m_page = m_wizard->optionsPage();
    const QString ini = m_ini;
    m_page->setSettingsFactory([ini] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); });
    m_page->setBaseOptions(base);
    core::HardwareReport report;
    report.os.family = u"linux"_s;
    report.pythons = {{u"/usr/bin/python3.11"_s, u"3.11.4"_s, u"system"_s, 64, u"path"_s}};
    m_wizard->state().setHardware(report);
    m_wizard->state().setPlan(plan);
    m_wizard->setStartId(ui::SetupWizard::OptionsPageId);
    m_wizard->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_wizard.get()));
    QApplication::setActiveWindow(m_wizard.get());
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
}

void TestOptionsConnection::testConnection_showsEachOriginWithTheFix()
{
    // PyPI fast, NVIDIA refusing, python.org answering slowly enough to measure but in time.
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/simple/pip/", Response::bytes(pipPage(128 * 1024), "text/html"));
    const QUrl refused(u"http://127.0.0.1:%1"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(server.url(u"/simple"_s), refused, refused, refused);
    base.network.originOverrides.append({u"nvidia"_s, refused});
    base.network.originOverrides.append({u"python"_s, server.url(u"/"_s)});
    server.route("/api/v2/downloads/release/", Response::bytes("[]", "application/json"));
    {
        // A remembered PyPI: nothing is preselected, only offered.
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue(u"options/pypiMirror"_s, u"pypi"_s);
    }
    open(toolkitPlan(), base);
    auto *button = child<QPushButton>(m_page, u"testConnectionButton"_s);
    auto *table = child<QTableWidget>(m_page, u"connectionTable"_s);
    QVERIFY(button->isVisible() && button->isEnabled());
    QVERIFY(table->isHidden());

    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(button, Qt::LeftButton);
    // Awaited, not blocking: the button waits for the answer.
    QVERIFY(m_page->isTestingConnection());
    QVERIFY(!button->isEnabled());
    QVERIFY(tested.wait(15'000));
    QCOMPARE(tested.first().first().toBool(), false); // the toolkit plan needs NVIDIA
    QVERIFY(button->isEnabled());
    QVERIFY(table->isVisible());
    QCOMPARE(table->rowCount(), 3);
    const auto cell = [&](int row, int column) { return table->item(row, column)->text(); };
    QCOMPARE(cell(0, 0), u"PyPI"_s);
    QCOMPARE(cell(0, 1), u"127.0.0.1"_s);
    QCOMPARE(cell(0, 2), u"yes"_s);
    QVERIFY2(cell(0, 3).endsWith(u" ms"_s), qPrintable(cell(0, 3)));
    QVERIFY2(cell(0, 4).endsWith(u"/s"_s), qPrintable(cell(0, 4)));
    QVERIFY(cell(0, 5).isEmpty());
    QCOMPARE(cell(1, 0), u"NVIDIA"_s);
    QCOMPARE(cell(1, 2), u"no"_s);
    QCOMPARE(cell(1, 5), u"connection refused"_s);
    QVERIFY2(table->item(1, 5)->toolTip().contains(u"refused the connection"_s),
             qPrintable(table->item(1, 5)->toolTip()));
    QCOMPARE(cell(2, 0), u"python.org"_s);
    QCOMPARE(cell(2, 2), u"yes"_s);
    QCOMPARE(cell(2, 5), u"not needed for this plan"_s); // an installed Python
    // One status area: the cause in plain words, the raw words folded under Details.
    auto *advice = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY2(status()->isVisible() && advice->text().contains(u"NVIDIA"_s), qPrintable(advice->text()));
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Error);
    auto *details = child<QWidget>(m_page, u"statusDetails"_s);
    auto *toggle = child<QToolButton>(m_page, u"statusDetailsToggle"_s);
    QVERIFY(toggle->isVisible() && !toggle->isChecked() && details->isHidden());
    QVERIFY2(status()->details().contains(u"connect"_s), qPrintable(status()->details()));
    QTest::mouseClick(toggle, Qt::LeftButton);
    QVERIFY(details->isVisible());

    // NVIDIA's files can come from an offline bundle: the one button, and it takes the student there.
    QVERIFY(action()->isVisible());
    QVERIFY2(action()->text().remove(u'&').contains(u"bundle"_s), qPrintable(action()->text()));
    QCOMPARE(m_page->findChildren<QPushButton *>(u"statusActionButton"_s).size(), 1);
    QTest::mouseClick(action(), Qt::LeftButton);
    QTRY_VERIFY(child<QLineEdit>(m_page, u"bundleEdit"_s)->hasFocus());
    QVERIFY(child<QLabel>(m_page, u"helpLabel"_s)->text().contains(u"tfsetup bundle"_s));
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"pypi"_s);
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    // Every request of the test went to the origins the page was pointed at.
    QCOMPARE(server.hits("/simple/pip/"), 2); // PyPI as the index, and as a preset
}

void TestOptionsConnection::testConnection_pypiDown_preselectsTheFastestMirror()
{
    // No mirror chosen yet and PyPI refusing: the fastest preset measured in the same round is
    // taken, and the line under the combo says which and why.
    LoopbackServer fast, slow, nvidia;
    QVERIFY(fast.start() && slow.start() && nvidia.start());
    fast.route("/simple/pip/", Response::bytes(pipPage(128 * 1024), "text/html"));
    slow.route("/simple/pip/", Response::bytes(pipPage(40 * 1024), "text/html").throttle(40 * 1024));
    nvidia.route("/compute/cuda/redist/redistrib_12.5.1.json", Response::bytes(manifest(), "application/json"));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(refused, slow.url(u"/simple"_s), fast.url(u"/simple"_s), refused);
    base.network.originOverrides.append({u"nvidia"_s, nvidia.url(u"/"_s)});
    base.network.originOverrides.append({u"python"_s, QUrl(u"http://127.0.0.1:%1/"_s.arg(test::closedLoopbackPort()))});
    open(toolkitPlan(), base);
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    QCOMPARE(combo->currentData().toString(), u"pypi"_s);

    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    auto *table = child<QTableWidget>(m_page, u"connectionTable"_s);
    QCOMPARE(table->item(0, 2)->text(), u"no"_s);
    QCOMPARE(table->item(1, 2)->text(), u"yes"_s);
    QCOMPARE(combo->currentData().toString(), u"aliyun"_s);
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"aliyun"_s);
    auto *choice = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY(status()->isVisible());
    QVERIFY2(choice->text().contains(u"aliyun"_s) && choice->text().contains(u"PyPI did not answer"_s),
             qPrintable(choice->text()));
    QVERIFY2(choice->text().contains(u"/s"_s), qPrintable(choice->text())); // the measured speeds
    // Already on the fastest, and everything else answered: nothing more to offer.
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Ok);
    QVERIFY(action()->isHidden());
    QVERIFY(table->isVisible()); // the page's own choice keeps the round's rows
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void TestOptionsConnection::testConnection_rememberedChoice_isOfferedNotTaken()
{
    LoopbackServer fast;
    QVERIFY(fast.start());
    fast.route("/tuna/simple/pip/", Response::bytes(pipPage(64 * 1024), "text/html"));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(refused, fast.url(u"/tuna/simple"_s), refused, refused);
    base.network.originOverrides.append({u"nvidia"_s, refused});
    base.network.originOverrides.append({u"python"_s, refused});
    {
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue(u"options/pypiMirror"_s, u"pypi"_s);
    }
    open(cpuPlan(), base);
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    QCOMPARE(tested.first().first().toBool(), false);
    QCOMPARE(combo->currentData().toString(), u"pypi"_s); // remembered: left alone
    auto *fixMirror = action();
    QVERIFY(fixMirror->isVisible());
    // A CPU plan needs neither NVIDIA nor python.org: the mirror is the fix, not a bundle.
    QVERIFY2(fixMirror->text().contains(u"tuna"_s), qPrintable(fixMirror->text()));
    QCOMPARE(child<QTableWidget>(m_page, u"connectionTable"_s)->item(1, 5)->text(),
             u"connection refused (not needed for this plan)"_s);
    QTest::mouseClick(fixMirror, Qt::LeftButton);
    QCOMPARE(combo->currentData().toString(), u"tuna"_s);
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"tuna"_s);
    QVERIFY(fixMirror->isHidden());
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Ok); // the mirror answered in the same round
}

void TestOptionsConnection::testConnection_proxyAsksForAPassword_offersTheProxyField()
{
    // Every origin only through the proxy typed on the page (.invalid names), which wants a password.
    LoopbackServer origin;
    QVERIFY(origin.start());
    origin.route("/simple/pip/", Response::bytes(pipPage(32 * 1024), "text/html"));
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"pypi.invalid"_s, origin.url().port());
    proxy.requireBasicAuth("student", "s3cret");
    const QUrl pypi(u"http://pypi.invalid/simple"_s);
    core::SetupOptions base = presetsAt(pypi, pypi, pypi, pypi);
    base.network.originOverrides.append({u"nvidia"_s, QUrl(u"http://pypi.invalid/nvidia"_s)});
    base.network.originOverrides.append({u"python"_s, QUrl(u"http://pypi.invalid/python"_s)});
    open(toolkitPlan(), base);
    auto *proxyEdit = child<QLineEdit>(m_page, u"proxyEdit"_s);
    proxyEdit->setText(QString::fromLatin1(proxy.proxyUrl()));
    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    auto *table = child<QTableWidget>(m_page, u"connectionTable"_s);
    for (int row = 0; row < 3; ++row)
        QVERIFY2(table->item(row, 5)->text().startsWith(u"proxy asks for a password"_s),
                 qPrintable(table->item(row, 5)->text()));
    // One sentence for the one cause, naming the other origins it hit.
    auto *advice = child<QLabel>(m_page, u"statusLabel"_s);
    QCOMPARE(advice->text().count(u"user name and password"_s), 1);
    QVERIFY2(advice->text().contains(u"The same for NVIDIA."_s), qPrintable(advice->text()));
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    QVERIFY(origin.requests().isEmpty());  // the proxy let nothing through
    QVERIFY(proxy.requests().size() >= 7); // three origins and four presets, all through it
    auto *fixProxy = action();
    QVERIFY(fixProxy->isVisible());
    QVERIFY2(fixProxy->text().remove(u'&').contains(u"proxy"_s), qPrintable(fixProxy->text()));
    QTest::mouseClick(fixProxy, Qt::LeftButton);
    QTRY_VERIFY(proxyEdit->hasFocus());
    QVERIFY(child<QLabel>(m_page, u"helpLabel"_s)->text().contains(u"proxy"_s));

    // With the password in the address, the same button finds PyPI.
    QUrl withPassword(QString::fromLatin1(proxy.proxyUrl()));
    withPassword.setUserName(u"student"_s);
    withPassword.setPassword(u"s3cret"_s);
    proxyEdit->setText(withPassword.toString());
    // The old rows were for the old proxy: gone with it.
    QVERIFY(table->isHidden());
    QVERIFY(status()->isHidden());
    tested.clear();
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    QCOMPARE(table->item(0, 2)->text(), u"yes"_s);
    // What is left (NVIDIA's folder is not on that server) needs another fix than the proxy.
    QVERIFY(fixProxy->isHidden() || !fixProxy->text().remove(u'&').contains(u"proxy"_s));
}

void TestOptionsConnection::testConnection_languageSwitch_rewritesTheTableAndTheAdvice()
{
    // The table and the status line were written in English; the student switches to Chinese with
    // the results on screen: both are said again in Chinese from what was measured, with no new test.
    LoopbackServer server;
    openWithNvidiaRefused(server);
    auto *table = child<QTableWidget>(m_page, u"connectionTable"_s);
    QCOMPARE(table->horizontalHeaderItem(0)->text(), u"Origin"_s);
    QCOMPARE(table->item(1, 5)->text(), u"connection refused"_s);
    const int hits = server.hits("/simple/pip/");

    QVERIFY(m_translations->setLanguage(u"zh_CN"_s));
    // QApplication posts LanguageChange to each window; it arrives on the next event-loop turn.
    QTRY_COMPARE(table->horizontalHeaderItem(0)->text(), u"来源"_s);
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(1, 0)->text(), u"NVIDIA"_s);
    QCOMPARE(table->item(1, 2)->text(), u"否"_s);
    QCOMPARE(table->item(1, 5)->text(), u"连接被拒绝"_s);
    QCOMPARE(child<QPushButton>(m_page, u"testConnectionButton"_s)->text(), u"测试连接(&C)"_s);
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Error);
    QVERIFY2(action()->isVisible() && action()->text().contains(u"离线包"_s), qPrintable(action()->text()));
    QCOMPARE(server.hits("/simple/pip/"), hits); // said again, not measured again
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void TestOptionsConnection::chinese_preselectsTheFastestPresetByItsChineseName()
{
    LoopbackServer fast, slow, portal;
    QVERIFY(fast.start() && slow.start() && portal.start());
    fast.route("/simple/pip/", Response::bytes(pipPage(128 * 1024), "text/html"));
    slow.route("/simple/pip/", Response::bytes(pipPage(40 * 1024), "text/html").throttle(40 * 1024));
    portal.route("/simple/pip/", Response::htmlErrorPage("校园网登录"));
    // The fastest preset is a real index: Next locks the plan's packages from it.
    test::TestIndex ustc(fast);
    qputenv("PIP_CONFIG_FILE", "/dev/null");
    QVERIFY(test::addStandIns(ustc, QStandardPaths::findExecutable(u"python3"_s), m_root->path(), {u"2.16.1"_s}));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(portal.url(u"/simple"_s), slow.url(u"/simple"_s), refused,
                                        fast.url(u"/simple"_s));
    base.network.originOverrides.append(
        {u"pypi-json"_s, QUrl(u"http://127.0.0.1:%1/pypi"_s.arg(test::closedLoopbackPort()))});
    base.network.resolveTimeout = std::chrono::seconds(5);
    open(cpuPlan(), base, u"zh_CN"_s);
    QCOMPARE(m_page->language(), u"zh_CN"_s);
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    // The presets under their institutions' names.
    QVERIFY2(combo->itemText(combo->findData(u"tuna"_s)).contains(u"清华大学 TUNA 镜像"_s),
             qPrintable(combo->itemText(combo->findData(u"tuna"_s))));
    QVERIFY(combo->itemText(combo->findData(u"aliyun"_s)).contains(u"阿里云"_s));
    QVERIFY(combo->itemText(combo->findData(u"ustc"_s)).contains(u"中国科学技术大学"_s));

    // Opening the page started the ranking in the background; the page answers meanwhile.
    QVERIFY(m_page->isRankingMirrors());
    QVERIFY(m_wizard->button(QWizard::NextButton)->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isRankingMirrors(), 15'000);
    QCOMPARE(combo->currentData().toString(), u"ustc"_s);
    QVERIFY(combo->currentText().contains(u"中国科学技术大学"_s));
    auto *choice = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY(status()->isVisible());
    QVERIFY2(choice->text().contains(u"中国科学技术大学"_s) && choice->text().contains(u"清华大学 TUNA 镜像"_s),
             qPrintable(choice->text()));
    QVERIFY2(choice->text().contains(u"/s"_s), qPrintable(choice->text()));
    QCOMPARE(fast.hits("/simple/pip/"), 1);
    QCOMPARE(slow.hits("/simple/pip/"), 1);
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));

    // Next takes it, and it is remembered as this student's mirror from then on.
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(m_wizard->button(QWizard::NextButton), Qt::LeftButton);
    QVERIFY(resolved.count() > 0 || resolved.wait(60'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(child<QLabel>(m_page, u"statusLabel"_s)->text()));
    QCOMPARE(m_wizard->state().options().network.firstPypiIndex(), u"ustc"_s);
    QVERIFY(m_wizard->state().lock().find(u"tensorflow"_s));
    QCOMPARE(m_wizard->state().lock().find(u"tensorflow"_s)->index, fast.url(u"/simple"_s).toString());
    QCOMPARE(QSettings(m_ini, QSettings::IniFormat).value(u"options/pypiMirror"_s).toString(), u"ustc"_s);
}

void TestOptionsConnection::chinese_rememberedChoice_isNotOverridden()
{
    LoopbackServer fast;
    QVERIFY(fast.start());
    fast.route("/simple/pip/", Response::bytes(pipPage(64 * 1024), "text/html"));
    {
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue(u"options/pypiMirror"_s, u"tuna"_s);
    }
    const QUrl url = fast.url(u"/simple"_s);
    open(cpuPlan(), presetsAt(url, url, url, url), u"zh_CN"_s);
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    QCOMPARE(combo->currentData().toString(), u"tuna"_s);
    QVERIFY(!m_page->isRankingMirrors());
    QTest::qWait(300);
    QCOMPARE(fast.hits("/simple/pip/"), 0); // nothing was even measured
    QCOMPARE(combo->currentData().toString(), u"tuna"_s);
    QVERIFY(status()->isHidden());
}

void TestOptionsConnection::chinese_typedChoice_winsOverARankingInFlight()
{
    LoopbackServer late;
    QVERIFY(late.start());
    late.route("/simple/pip/",
               Response::bytes(pipPage(64 * 1024), "text/html").delayHeaders(std::chrono::milliseconds(1500)));
    const QUrl url = late.url(u"/simple"_s);
    open(cpuPlan(), presetsAt(url, url, url, url), u"zh_CN"_s);
    QVERIFY(m_page->isRankingMirrors());
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    // Every preset has been asked (its answer is held back 1.5 s): the ranking is in flight.
    QTRY_COMPARE_WITH_TIMEOUT(late.hits("/simple/pip/"), 4, 10'000);
    // The student types the lab's index while the presets are still being measured.
    combo->lineEdit()->clear();
    QTest::keyClicks(combo->lineEdit(), u"http://pypi.lab.example/simple"_s);
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"http://pypi.lab.example/simple"_s);
    QTest::qWait(2500); // the answers have arrived by now
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"http://pypi.lab.example/simple"_s);
    QVERIFY(status()->isHidden());
    QVERIFY(!m_page->isRankingMirrors());
}

void TestOptionsConnection::chinese_testConnection_takesOverFromTheRanking()
{
    // Test connection pressed while the page's own ranking still waits: the test measures the
    // presets itself and preselects from its round; the stopped ranking leaves no trace.
    LoopbackServer late;
    QVERIFY(late.start());
    late.route("/tuna/simple/pip/",
               Response::bytes(pipPage(64 * 1024), "text/html").delayHeaders(std::chrono::milliseconds(600)));
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(refused, late.url(u"/tuna/simple"_s), refused, refused);
    base.network.originOverrides.append({u"nvidia"_s, refused});
    base.network.originOverrides.append({u"python"_s, refused});
    open(cpuPlan(), base, u"zh_CN"_s);
    QVERIFY(m_page->isRankingMirrors());
    QSignalSpy ranked(m_page, &ui::OptionsPage::mirrorRanked);
    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(!m_page->isRankingMirrors());
    QVERIFY(tested.wait(15'000));
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"tuna"_s);
    auto *choice = child<QLabel>(m_page, u"statusLabel"_s);
    QVERIFY2(status()->isVisible() && choice->text().contains(u"清华大学 TUNA 镜像"_s), qPrintable(choice->text()));
    QTest::qWait(1000); // the stopped ranking's answers have come back by now
    QCOMPARE(ranked.count(), 0);
    QCOMPARE(m_page->options().network.firstPypiIndex(), u"tuna"_s);
    QVERIFY2(!choice->text().contains(u"No PyPI mirror"_s), qPrintable(choice->text()));
}

void TestOptionsConnection::openWithNvidiaRefused(LoopbackServer &server, const QString &language)
{
    QVERIFY(server.start());
    server.route("/simple/pip/", Response::bytes(pipPage(64 * 1024), "text/html"));
    server.route("/api/v2/downloads/release/", Response::bytes("[]", "application/json"));
    const QUrl refused(u"http://127.0.0.1:%1"_s.arg(test::closedLoopbackPort()));
    core::SetupOptions base = presetsAt(server.url(u"/simple"_s), refused, refused, refused);
    base.network.originOverrides.append({u"nvidia"_s, refused});
    base.network.originOverrides.append({u"python"_s, server.url(u"/"_s)});
    {
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue(u"options/pypiMirror"_s, u"pypi"_s);
    }
    open(toolkitPlan(), base, language);
    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    QCOMPARE(tested.first().first().toBool(), false);
    QVERIFY(child<QTableWidget>(m_page, u"connectionTable"_s)->isVisible());
    QVERIFY(status()->isVisible());
}

void TestOptionsConnection::changedSetting_clearsTheResults()
{
    LoopbackServer server;
    openWithNvidiaRefused(server);
    if (QTest::currentTestFailed())
        return;
    auto *table = child<QTableWidget>(m_page, u"connectionTable"_s);
    // Folder and name are not network settings: the results still hold.
    child<QLineEdit>(m_page, u"nameEdit"_s)->setText(u"course"_s);
    QVERIFY(table->isVisible() && status()->isVisible());

    // Each network setting: the rows and the message about them go, nothing stale stays.
    const QList<QLineEdit *> edits{child<QLineEdit>(m_page, u"proxyEdit"_s),
                                   child<QLineEdit>(m_page, u"nvidiaMirrorEdit"_s),
                                   child<QLineEdit>(m_page, u"bundleEdit"_s)};
    for (QLineEdit *edit : edits) {
        QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
        QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
        QVERIFY(tested.wait(15'000));
        QVERIFY(table->isVisible() && status()->isVisible());
        edit->setText(u"http://127.0.0.1:9/"_s);
        QVERIFY2(table->isHidden(), qPrintable(edit->objectName()));
        QCOMPARE(table->rowCount(), 0);
        QVERIFY2(status()->isHidden(), qPrintable(status()->message()));
        edit->clear();
    }
    // The PyPI mirror chosen by the student, too.
    QSignalSpy tested(m_page, &ui::OptionsPage::connectionTested);
    QTest::mouseClick(child<QPushButton>(m_page, u"testConnectionButton"_s), Qt::LeftButton);
    QVERIFY(tested.wait(15'000));
    auto *combo = child<QComboBox>(m_page, u"pypiMirrorCombo"_s);
    combo->setCurrentIndex(combo->findData(u"aliyun"_s));
    QVERIFY(table->isHidden());
    QVERIFY(status()->isHidden());
}

void TestOptionsConnection::chinese_noMirrorAnswered_offersTheProxyUntilItChanges()
{
    const QUrl refused(u"http://127.0.0.1:%1/simple"_s.arg(test::closedLoopbackPort()));
    open(cpuPlan(), presetsAt(refused, refused, refused, refused), u"zh_CN"_s);
    // The ranking may end before a spy could be made: wait for what it leaves on the page.
    QTRY_COMPARE_WITH_TIMEOUT(status()->kind(), ui::PageStatus::Kind::Warning, 15'000);
    QCOMPARE(child<QComboBox>(m_page, u"pypiMirrorCombo"_s)->currentData().toString(), u"pypi"_s);
    // In Chinese, naming each mirror by its Chinese name, with the proxy as the one fix.
    const QString said = QCoreApplication::translate("tfsetup::ui::OptionsPage",
                                                     "No PyPI mirror answered from here (%1). Test the connection to "
                                                     "see why, or set a proxy.");
    QVERIFY(said.contains(u"%1"_s) && !said.startsWith(u"No PyPI"_s));
    QVERIFY2(status()->message().startsWith(said.section(u"%1"_s, 0, 0)), qPrintable(status()->message()));
    QVERIFY2(status()->message().contains(u"阿里云"_s), qPrintable(status()->message()));
    QVERIFY2(action()->isVisible()
                 && action()->text() == QCoreApplication::translate("tfsetup::ui::OptionsPage", "Set a p&roxy…"),
             qPrintable(action()->text()));
    QTest::mouseClick(action(), Qt::LeftButton);
    auto *proxy = child<QLineEdit>(m_page, u"proxyEdit"_s);
    QTRY_VERIFY(proxy->hasFocus());
    // Measured without this proxy: said no more once it is typed.
    QTest::keyClicks(proxy, u"http://proxy.example.edu:3128"_s);
    QVERIFY2(status()->isHidden(), qPrintable(status()->message()));
}

void TestOptionsConnection::nextAfterAFailedTest_stopsOnceWithTheFix()
{
    LoopbackServer server;
    openWithNvidiaRefused(server);
    if (QTest::currentTestFailed())
        return;
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    auto *next = m_wizard->button(QWizard::NextButton);
    QVERIFY(next->isEnabled()); // never greyed without a word
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    QVERIFY(!m_page->isResolving());
    QCOMPARE(resolved.count(), 0);
    // Why, and the fix: NVIDIA's files from an offline bundle.
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Error);
    QVERIFY2(status()->message().contains(u"NVIDIA"_s) && status()->message().contains(u"Next once more"_s),
             qPrintable(status()->message()));
    QVERIFY2(action()->isVisible() && action()->text().remove(u'&').contains(u"bundle"_s),
             qPrintable(action()->text()));

    // Pressed again, it goes on: the files are looked up (and here fail on NVIDIA, as the test said).
    QTest::mouseClick(next, Qt::LeftButton);
    QVERIFY(m_page->isResolving() || resolved.count() > 0);
    QVERIFY(resolved.count() > 0 || resolved.wait(30'000));
    QCOMPARE(resolved.first().first().toBool(), false);
    QVERIFY2(!status()->message().contains(u"Next once more"_s), qPrintable(status()->message()));
    QCOMPARE(status()->kind(), ui::PageStatus::Kind::Error);
}

void TestOptionsConnection::nextAfterAFailedTest_goesOnOnceTheSettingsChange()
{
    LoopbackServer server;
    openWithNvidiaRefused(server);
    if (QTest::currentTestFailed())
        return;
    // The student picks an offline bundle: the test's verdict no longer applies, Next goes on at once.
    child<QLineEdit>(m_page, u"bundleEdit"_s)->setText(m_root->filePath(u"no-such-bundle"_s));
    QSignalSpy resolved(m_page, &ui::OptionsPage::resolved);
    QTest::mouseClick(m_wizard->button(QWizard::NextButton), Qt::LeftButton);
    QVERIFY(m_page->isResolving() || resolved.count() > 0);
    QVERIFY(resolved.count() > 0 || resolved.wait(30'000));
    QCOMPARE(resolved.first().first().toBool(), false); // no such folder
    QVERIFY2(!status()->message().contains(u"Next once more"_s), qPrintable(status()->message()));
    // Its cause, with the one button that goes to the bundle field.
    QVERIFY2(action()->isVisible() && action()->text().remove(u'&').contains(u"bundle"_s),
             qPrintable(action()->text()));
}

void TestOptionsConnection::smallWindow_fieldsKeepTheirSizeAndThePageScrolls_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QSize>("size");
    QTest::newRow("en-720x540") << u"en"_s << QSize(720, 540);
    QTest::newRow("zh_CN-720x540") << u"zh_CN"_s << QSize(720, 540);
    QTest::newRow("en-1366x768") << u"en"_s << QSize(1366, 768);
    QTest::newRow("zh_CN-1366x768") << u"zh_CN"_s << QSize(1366, 768);
}

void TestOptionsConnection::smallWindow_fieldsKeepTheirSizeAndThePageScrolls()
{
    QFETCH(QString, language);
    QFETCH(QSize, size);
    LoopbackServer server;
    openWithNvidiaRefused(server, language);
    if (QTest::currentTestFailed())
        return;
    m_wizard->resize(size);
    // The state students met: test failed, help open, Next pressed once.
    QTest::mouseClick(child<QPushButton>(m_page, u"proxyHelp"_s), Qt::LeftButton);
    QTest::mouseClick(m_wizard->button(QWizard::NextButton), Qt::LeftButton);
    QCOMPARE(status()->tag(), u"next"_s);
    QTest::qWait(50);
    const QString problems = cutOff(m_page);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    for (const char *name :
         {"folderEdit", "nameEdit", "pypiMirrorCombo", "nvidiaMirrorEdit", "proxyEdit", "cacheEdit", "bundleEdit"}) {
        auto *field = child<QWidget>(m_page, QString::fromLatin1(name));
        QVERIFY2(field->height() >= field->sizeHint().height(), name);
    }
    // One status area, one button in it; the test's rows stay reachable by scrolling.
    QCOMPARE(m_page->findChildren<ui::PageStatus *>().size(), 1);
    auto *scroll = child<QScrollArea>(m_page, u"optionsScrollArea"_s);
    QVERIFY(scroll->widgetResizable());
    if (size.height() <= 540)
        QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
    if (const QString dir = qEnvironmentVariable("TFSETUP_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(m_wizard->grab().save(
            dir + u"/options-failed-%1-%2x%3.png"_s.arg(language).arg(size.width()).arg(size.height())));
        child<QToolButton>(m_page, u"statusDetailsToggle"_s)->click();
        QTest::qWait(50);
        QVERIFY(m_wizard->grab().save(
            dir + u"/options-details-%1-%2x%3.png"_s.arg(language).arg(size.width()).arg(size.height())));
    }
}

QTEST_MAIN(TestOptionsConnection)
#include "test_optionsconnection.moc"
