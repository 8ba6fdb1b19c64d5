// The Options page's catalog notice: "Check for catalog updates" runs the signed update through
// the page's proxy field without blocking the window (a loopback server behind a loopback
// proxy), and the notice says when an update is in use or an installed one was refused.

#include "uitest.h"
#include "catalog/catalogupdate.h"
#include "support/catalogsigning.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "system/rootedsystem.h"
#include "ui/catalognotice.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::child;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

class TestCatalogNotice final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void checkForUpdates_goesThroughThePageProxy();
    void refusedUpdate_isShown();
    void noUpdate_showsNoNotice();
    void nothingPublished_saysSo();

private:
    void open();
    core::CatalogUpdateTrust trust() const
    {
        core::CatalogUpdateTrust t;
        t.folder = m_root->filePath(u"data/catalog"_s);
        t.publicKey = m_key.publicKey();
        t.builtInVersion = 1;
        t.builtInDate = u"2026-12-01"_s;
        return t;
    }
    QByteArray document(qint64 version) const
    {
        return QJsonDocument(test::signedCatalogUpdate(m_key, version, test::builtInCatalogFiles())).toJson();
    }

    test::TestSigningKey m_key;
    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::OptionsPage *m_page = nullptr;
};

void TestCatalogNotice::init()
{
    QVERIFY(m_key.isValid());
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    core::CatalogUpdates::setTrustForTesting(trust());
}

void TestCatalogNotice::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    core::CatalogUpdates::setTrustForTesting(std::nullopt);
    m_root.reset();
}

void TestCatalogNotice::open()
{
    m_system = std::make_unique<core::RootedSystem>(m_root->filePath(u"machine"_s), core::OsFamily::Linux,
                                                    QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->optionsPage();
    const QString ini = m_root->filePath(u"settings.ini"_s);
    m_page->setSettingsFactory([ini] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); });
    core::HardwareReport report;
    report.os.family = u"linux"_s;
    m_wizard->state().setHardware(report);
    core::Plan plan;
    plan.route = u"cpu"_s;
    plan.tensorflow = u"2.16.1"_s;
    plan.package = u"tensorflow"_s;
    plan.python = u"3.11"_s;
    m_wizard->state().setPlan(plan);
    m_wizard->setStartId(ui::SetupWizard::OptionsPageId);
    m_wizard->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_wizard.get()));
}

void TestCatalogNotice::checkForUpdates_goesThroughThePageProxy()
{
    LoopbackServer server;
    QVERIFY(server.start());
    // Answered late, so the window is seen to stay responsive while the check runs.
    server.route("/lab/catalog-update.json",
                 Response::bytes(document(5), "application/json").delayHeaders(std::chrono::milliseconds(300)));
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    open();
    auto *notice = child<ui::CatalogNotice>(m_page, u"catalogNotice"_s);
    notice->setSource(server.url(u"/lab/catalog-update.json"_s).toString());
    child<QLineEdit>(m_page, u"proxyEdit"_s)->setText(QString::fromLatin1(proxy.proxyUrl()));
    auto *button = child<QPushButton>(m_page, u"catalogUpdateButton"_s);
    QVERIFY(button->isVisible());

    QSignalSpy checked(notice, &ui::CatalogNotice::checked);
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(notice->isChecking());
    QVERIFY(!button->isEnabled());
    QVERIFY(checked.wait(30000));
    QCOMPARE(checked.first().first().toBool(), true);
    QVERIFY(button->isEnabled());
    QCOMPARE(proxy.forwardCount(), 1);
    auto *text = child<QLabel>(m_page, u"catalogNoticeText"_s);
    QVERIFY(text->isVisible());
    QVERIFY2(text->text().contains(u"5"_s), qPrintable(text->text()));
    QVERIFY(core::CatalogUpdates::status(trust()).inUse());

    // The same again: nothing new, said so.
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(checked.wait(30000));
    QVERIFY2(text->text().contains(u"up to date"_s), qPrintable(text->text()));
}

// The default address answers 404 until a release carries an update: the page says that nothing is
// published and which catalog stays, not "up to date (version 0)".
void TestCatalogNotice::nothingPublished_saysSo()
{
    LoopbackServer server;
    QVERIFY(server.start());
    core::CatalogUpdateTrust t = trust();
    t.defaultUrl = server.url(u"/releases/latest/download/catalog-update.json"_s).toString();
    core::CatalogUpdates::setTrustForTesting(t);
    open();
    auto *notice = child<ui::CatalogNotice>(m_page, u"catalogNotice"_s);
    auto *button = child<QPushButton>(m_page, u"catalogUpdateButton"_s);
    QSignalSpy checked(notice, &ui::CatalogNotice::checked);
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(checked.wait(30000));
    QCOMPARE(checked.first().first().toBool(), true);
    auto *text = child<QLabel>(m_page, u"catalogNoticeText"_s);
    QVERIFY2(text->text().contains(u"not published"_s) && text->text().contains(u"version 1"_s),
             qPrintable(text->text()));
    QVERIFY(!core::CatalogUpdates::status(t).updatePresent);
}

void TestCatalogNotice::refusedUpdate_isShown()
{
    QVERIFY(core::CatalogUpdates::install(document(3), u"lab"_s, trust()));
    QFile stored(trust().storedPath());
    QVERIFY(stored.open(QIODevice::ReadWrite));
    QByteArray bytes = stored.readAll();
    bytes.replace("\"version\": 3", "\"version\": 4"); // a forged version: the signature no longer fits
    QVERIFY(stored.seek(0));
    QVERIFY(stored.resize(0));
    QVERIFY(stored.write(bytes) == bytes.size());
    stored.close();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"installed update is ignored"_s));
    open();
    auto *text = child<QLabel>(m_page, u"catalogNoticeText"_s);
    QVERIFY(text->isVisible());
    QVERIFY2(text->text().contains(u"refused"_s), qPrintable(text->text()));
    QVERIFY2(text->text().contains(u"built-in"_s), qPrintable(text->text()));
}

void TestCatalogNotice::noUpdate_showsNoNotice()
{
    open();
    QVERIFY(!child<QLabel>(m_page, u"catalogNoticeText"_s)->isVisible());
    QVERIFY(child<QPushButton>(m_page, u"catalogUpdateButton"_s)->isVisible());
}

QTEST_MAIN(TestCatalogNotice)
#include "test_catalognotice.moc"
