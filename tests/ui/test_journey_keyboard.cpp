// The first-time journey with the keyboard alone (QTest::keyClick: Alt+letter, Tab, Space,
// Enter; no mouse), under the offscreen platform: Welcome → Detect (a canned machine without an
// NVIDIA GPU, with this host's real Python) → Choose → Options (the PyPI index typed in, a "What
// is this?" opened, Tab along a row) → Download → Install (a real venv, pip from a loopback
// index with a stand-in TensorFlow wheel) → Verify → Finish (the summary copied, Finish pressed).

#include "uitest.h"
#include "journeyhost.h"
#include "support/files.h"
#include "system/realsystem.h"
#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"
#include "support/loopbackserver.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

using tfsetup::test::child;

using tfsetup::test::readFile;

using tfsetup::test::buildWheel;

} // namespace

class TestJourneyKeyboard final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void firstTimeStudent_withTheKeyboardOnly();

private:
    // Alt+letter on whatever has the focus, as a student would press it.
    void alt(Qt::Key key) { QTest::keyClick(focused(), key, Qt::AltModifier); }
    void key(Qt::Key key) { QTest::keyClick(focused(), key); }
    QWidget *focused() const
    {
        QWidget *w = QApplication::focusWidget();
        return w ? w : m_wizard.get();
    }
    // Tab until a widget of that name has the focus; false after a full round without it.
    bool tabTo(const QString &name)
    {
        for (int i = 0; i < 60; ++i) {
            if (QApplication::focusWidget() && QApplication::focusWidget()->objectName() == name)
                return true;
            key(Qt::Key_Tab);
        }
        return false;
    }
    QString focusName() const
    {
        return QApplication::focusWidget() ? QApplication::focusWidget()->objectName() : QString();
    }
    bool nextEnabled() const { return m_wizard->button(QWizard::NextButton)->isEnabled(); }

    QTemporaryDir m_dir;
    tfsetup::test::JourneyHost m_host;
    std::unique_ptr<core::RealSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyKeyboard::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (const QString why = m_host.prepare(m_dir); !why.isEmpty())
        QSKIP(qPrintable(why));
    QVERIFY(!m_host.python.isEmpty());
    QVERIFY(!m_host.pythonVersion.isEmpty());
}

void TestJourneyKeyboard::firstTimeStudent_withTheKeyboardOnly()
{
    LoopbackServer index;
    QVERIFY(index.start());

    m_system = std::make_unique<core::RealSystem>();
    QList<QStringList> launched;
    m_wizard = m_host.wizard(*m_system, m_dir, &launched);
    QSignalSpy finished(m_wizard.get(), &QDialog::finished);
    m_wizard->show();
    QApplication::setActiveWindow(m_wizard.get());
    QVERIFY(QTest::qWaitForWindowActive(m_wizard.get()));

    // Welcome: the arrows move between the journeys, Enter goes on with the default (Next).
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
    QVERIFY(tabTo(u"modeNewRadio"_s));
    key(Qt::Key_Down);
    QCOMPARE(focusName(), u"modeRepairRadio"_s);
    key(Qt::Key_Up);
    QVERIFY(child<QAbstractButton>(m_wizard.get(), u"modeNewRadio"_s)->isChecked());
    key(Qt::Key_Return);

    // Detect: Next waits for the scan; Alt+N then.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 10'000);
    alt(Qt::Key_N);

    // Choose: the solver's plan; Enter accepts it.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->choosePage()->chosenPlan().has_value(), 20'000);
    QTRY_VERIFY(nextEnabled());
    const core::Plan plan = *m_wizard->choosePage()->chosenPlan();
    key(Qt::Key_Return);

    QString distribution = plan.package.section(u'[', 0, 0);
    const QString normalized = QString(distribution).replace(u'_', u'-').toLower();
    QByteArray module = readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                 + u"/verify/fake_tensorflow/tensorflow/__init__.py"_s);
    module.replace(QByteArray("__version__ = \"2.99.0\""),
                   QByteArray("__version__ = \"" + plan.tensorflow.toUtf8() + '"'));
    const QString wheelName = QString(distribution).replace(u'-', u'_') + u'-' + plan.tensorflow
        + u"-py3-none-any.whl"_s;
    const QString wheel = m_dir.filePath(wheelName);
    QVERIFY(buildWheel(m_host.python, wheel, distribution, plan.tensorflow, module));
    const QByteArray wheelBytes = readFile(wheel);
    const QByteArray digest = QCryptographicHash::hash(wheelBytes, QCryptographicHash::Sha256).toHex();
    index.route("/simple/" + normalized.toUtf8() + "/",
                Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                    + "#sha256=" + digest + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                "text/html"));
    index.route("/files/" + wheelName.toUtf8(), Response::bytes(wheelBytes));
    QVERIFY(m_host.serveJupyterStandIns(index, m_dir));

    // Options: Alt+O reaches the folder (F is Finish's); Tab goes along its row (Browse, What is
    // this?) and on to the name; Space opens the help; Alt+P reaches the mirror, typed in.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    alt(Qt::Key_O);
    QCOMPARE(focusName(), u"folderEdit"_s);
    key(Qt::Key_Tab);
    QCOMPARE(focusName(), u"folderBrowseButton"_s);
    key(Qt::Key_Tab);
    QCOMPARE(focusName(), u"folderHelp"_s);
    key(Qt::Key_Space);
    QVERIFY(child<QLabel>(m_wizard->optionsPage(), u"helpLabel"_s)->isVisible());
    key(Qt::Key_Tab);
    QCOMPARE(focusName(), u"nameEdit"_s);
    alt(Qt::Key_P);
    QCOMPARE(focusName(), u"pypiMirrorCombo"_s);
    QTest::keyClick(focused(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(focused(), index.url(u"/simple"_s).toString());
    QCOMPARE(m_wizard->optionsPage()->options().network.firstPypiIndex(), index.url(u"/simple"_s).toString());
    QVERIFY(nextEnabled());
    QSignalSpy resolved(m_wizard->optionsPage(), &ui::OptionsPage::resolved);
    alt(Qt::Key_N);
    QVERIFY(resolved.count() > 0 || resolved.wait(10'000));
    QCOMPARE(resolved.first().first().toBool(), true);

    // Download: the locked wheels, each fetched and verified.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QVERIFY(m_wizard->downloadPage()->rowCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 60'000);
    alt(Qt::Key_N);

    // Install: a real venv and pip from the loopback index.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId));
    ui::InstallPage *install = m_wizard->installPage();
    QTRY_VERIFY_WITH_TIMEOUT(install->isComplete() || install->error(), 240'000);
    QVERIFY2(!install->error(),
             qPrintable(install->error() ? install->error()->message + u'\n' + install->error()->detail : QString()));
    QTRY_VERIFY(nextEnabled());
    key(Qt::Key_Return);

    // Verify: the smoke test through the environment's launcher.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 120'000);
    alt(Qt::Key_N);

    // Finish: Tab to "Copy summary", Space; then Alt+F finishes.
    QTRY_COMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    QVERIFY(tabTo(u"copySummaryButton"_s));
    key(Qt::Key_Space);
    QVERIFY(child<QLabel>(m_wizard->finishPage(), u"messageLabel"_s)->isVisible());
    QVERIFY(m_wizard->button(QWizard::FinishButton)->isVisible());
    alt(Qt::Key_F);
    QTRY_COMPARE(finished.count(), 1); // a mnemonic clicks after a short animation
    QCOMPARE(finished.first().first().toInt(), int(QDialog::Accepted));
}

QTEST_MAIN(TestJourneyKeyboard)
#include "test_journey_keyboard.moc"
