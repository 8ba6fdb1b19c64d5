// A student behind a campus proxy: the whole wizard journey (Welcome → Detect → Choose → Options →
// Download → Install → Verify → Finish) in a world whose origins exist only behind the proxy: the
// lab's package index is "pypi.invalid", NVIDIA's and python.org's servers "nvidia.invalid" and
// "python.invalid", names that resolve nowhere and are mapped by the test proxy alone. The proxy
// is typed on the Options page, as the student does. Every request the index saw must have come
// through the proxy, and the proxy must have seen no other name: nothing bypassed it, not the
// resolve on Options, not pip inside the new environment.

#include "uitest.h"
#include "journeyhost.h"
#include "support/files.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "system/realsystem.h"
#include "ui/choosepage.h"
#include "ui/downloadpage.h"
#include "ui/installpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::child;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;

class TestJourneyProxy final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void behindTheCampusProxy_everyRequestGoesThroughIt();

private:
    QAbstractButton *button(QWizard::WizardButton which) const { return m_wizard->button(which); }
    bool nextEnabled() const { return button(QWizard::NextButton)->isEnabled(); }
    void clickNext() { QTest::mouseClick(button(QWizard::NextButton), Qt::LeftButton); }

    QTemporaryDir m_dir;
    test::JourneyHost m_host;
    std::unique_ptr<core::RealSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyProxy::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString why = m_host.prepare(m_dir);
    if (!why.isEmpty())
        QSKIP(qPrintable(why));
}

void TestJourneyProxy::behindTheCampusProxy_everyRequestGoesThroughIt()
{
    LoopbackServer index;
    QVERIFY(index.start());
    LoopbackServer elsewhere; // NVIDIA's and python.org's stand-in: a CPU plan should not need it
    QVERIFY(elsewhere.start());
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"pypi.invalid"_s, index.url().port());
    proxy.mapHost(u"nvidia.invalid"_s, elsewhere.url().port());
    proxy.mapHost(u"python.invalid"_s, elsewhere.url().port());

    m_system = std::make_unique<core::RealSystem>();
    QList<QStringList> launched;
    m_wizard = m_host.wizard(*m_system, m_dir, &launched);
    core::SetupOptions world;
    world.network.originOverrides = test::presetsOnClosedPort();
    world.network.originOverrides.append({u"nvidia"_s, QUrl(u"http://nvidia.invalid/"_s)});
    world.network.originOverrides.append({u"python"_s, QUrl(u"http://python.invalid/"_s)});
    m_wizard->optionsPage()->suggestOptions(world);
    m_wizard->show();

    clickNext(); // Welcome
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 10'000);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->choosePage()->chosenPlan().has_value(), 20'000);
    const core::Plan plan = *m_wizard->choosePage()->chosenPlan();
    QVERIFY2(plan.cuda.isEmpty(), qPrintable(plan.route));
    clickNext();

    // The lab's index (reachable only through the proxy) serves a stand-in TensorFlow.
    const QString wheelName = m_host.serveTensorFlowStandIn(index, m_dir, plan);
    QVERIFY(!wheelName.isEmpty());
    QVERIFY(m_host.serveJupyterStandIns(index, m_dir));

    // Options: the student types the lab's index and the campus proxy.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    auto *options = m_wizard->optionsPage();
    child<QComboBox>(options, u"pypiMirrorCombo"_s)->setEditText(u"http://pypi.invalid/simple"_s);
    child<QLineEdit>(options, u"proxyEdit"_s)->setText(QString::fromLatin1(proxy.proxyUrl()));
    QSignalSpy resolved(options, &ui::OptionsPage::resolved);
    clickNext();
    QVERIFY(resolved.count() > 0 || resolved.wait(20'000));
    QCOMPARE(resolved.first().first().toBool(), true);

    // Download: the locked wheels, through the proxy too.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QVERIFY(m_wizard->downloadPage()->rowCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 60'000);
    auto *install = m_wizard->installPage();
    QSignalSpy installed(install, &ui::InstallPage::finished);
    clickNext();
    QVERIFY(installed.wait(240'000));
    QVERIFY2(installed.first().first().toBool(),
             qPrintable(install->error() ? install->error()->message + u'\n' + install->error()->detail : QString()));
    QVERIFY(index.hits("/files/" + wheelName.toUtf8()) >= 1);
    clickNext();

    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QSignalSpy verified(m_wizard->verifyPage(), &ui::VerifyPage::finished);
    QVERIFY(verified.count() > 0 || verified.wait(120'000));
    QVERIFY(m_wizard->state().verified());
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));

    // Nothing bypassed the proxy: every request the index saw was forwarded by it, and the
    // proxy was asked for no name but the origins'.
    const QList<test::RecordedRequest> seen = index.requests();
    QVERIFY(!seen.isEmpty());
    QCOMPARE(proxy.forwardCount(), int(seen.size() + elsewhere.requests().size()));
    for (const auto &r : proxy.requests()) {
        const QString target = QString::fromLatin1(r.target);
        const QString host = r.method == "CONNECT" ? target.section(u':', 0, 0) : QUrl(target).host();
        QVERIFY2(host.endsWith(u".invalid"_s), r.target.constData());
    }
}

QTEST_MAIN(TestJourneyProxy)
#include "test_journey_proxy.moc"
