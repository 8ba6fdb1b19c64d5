// The Finish page: the launcher of each kind per OS, a terminal command per OS and desktop, the
// buttons start the launchers through the launch seam (no terminal opens in tests), and "Copy
// summary" puts ENVIRONMENT.md on the clipboard. The title and subtitle follow the outcome, and a
// failed check offers "Repair now", which asks the wizard for the Repair page on the environment.

#include "uitest.h"
#include "system/rootedsystem.h"
#include "ui/finishpage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using ui::FinishPage;

Q_DECLARE_METATYPE(tfsetup::core::OsFamily)

namespace {

using tfsetup::test::child;

struct Launch {
    QString program;
    QStringList arguments;
    QString workingDirectory;
};

} // namespace

class TestFinishPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void launcherFor_picksTheOsScript_data();
    void launcherFor_picksTheOsScript();
    void terminalCommand_perOsAndDesktop_data();
    void terminalCommand_perOsAndDesktop();
    void buttons_startLaunchersThroughTheSeam();
    void noTerminal_saysWhatToRun();
    void copySummary_putsEnvironmentMdOnTheClipboard();
    void passedCheck_saysReady();
    void failedCheck_saysSoAndOffersRepairNow();

private:
    void open(const QStringList &terminals, std::optional<core::VerifyReport> verified = std::nullopt);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    FinishPage *m_page = nullptr;
    QList<Launch> m_launches;
};

void TestFinishPage::launcherFor_picksTheOsScript_data()
{
    QTest::addColumn<core::OsFamily>("os");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    const QString win = u"C:/envs/tf/"_s;
    QTest::newRow("windows shell is the bat") << core::OsFamily::Windows << u"shell"_s << win + u"shell.bat"_s;
    QTest::newRow("windows jupyter") << core::OsFamily::Windows << u"start-jupyter"_s << win + u"start-jupyter.bat"_s;
    QTest::newRow("linux python") << core::OsFamily::Linux << u"start-python"_s << u"/envs/tf/start-python.sh"_s;
    QTest::newRow("linux has no such kind") << core::OsFamily::Linux << u"start-notebook"_s << QString();
}

void TestFinishPage::launcherFor_picksTheOsScript()
{
    QFETCH(core::OsFamily, os);
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const QStringList launchers = os == core::OsFamily::Windows
        ? QStringList{u"C:/envs/tf/start-python.ps1"_s, u"C:/envs/tf/shell.ps1"_s, u"C:/envs/tf/shell.bat"_s,
                      u"C:/envs/tf/start-jupyter.bat"_s, u"C:/envs/tf/start-python.bat"_s}
        : QStringList{u"/envs/tf/start-python.sh"_s, u"/envs/tf/shell.sh"_s, u"/envs/tf/start-jupyter.sh"_s};
    QCOMPARE(FinishPage::launcherFor(launchers, kind, os), expected);
}

void TestFinishPage::terminalCommand_perOsAndDesktop_data()
{
    QTest::addColumn<core::OsFamily>("os");
    QTest::addColumn<QStringList>("installed"); // terminal programs on the host
    QTest::addColumn<QString>("program");       // empty: none found
    QTest::addColumn<QStringList>("arguments");

    QTest::newRow("windows console") << core::OsFamily::Windows << QStringList() << u"cmd.exe"_s
                                     << QStringList{u"/k"_s, u"LAUNCHER"_s};
    QTest::newRow("debian alternative first")
        << core::OsFamily::Linux << QStringList{u"xterm"_s, u"x-terminal-emulator"_s}
        << u"/usr/bin/x-terminal-emulator"_s << QStringList{u"-e"_s, u"LAUNCHER"_s};
    QTest::newRow("gnome terminal takes --") << core::OsFamily::Linux << QStringList{u"gnome-terminal"_s}
                                             << u"/usr/bin/gnome-terminal"_s << QStringList{u"--"_s, u"LAUNCHER"_s};
    QTest::newRow("xfce terminal takes -x") << core::OsFamily::Linux << QStringList{u"xfce4-terminal"_s}
                                            << u"/usr/bin/xfce4-terminal"_s << QStringList{u"-x"_s, u"LAUNCHER"_s};
    QTest::newRow("no terminal at all") << core::OsFamily::Linux << QStringList() << QString() << QStringList();
    QTest::newRow("macos terminal app") << core::OsFamily::MacOS << QStringList() << u"open"_s
                                        << QStringList{u"-a"_s, u"Terminal"_s, u"LAUNCHER"_s};
}

void TestFinishPage::terminalCommand_perOsAndDesktop()
{
    QFETCH(core::OsFamily, os);
    QFETCH(QStringList, installed);
    QFETCH(QString, program);
    QFETCH(QStringList, arguments);
    const auto find = [installed](const QString &name) {
        return installed.contains(name) ? u"/usr/bin/"_s + name : QString();
    };
    const auto command = FinishPage::terminalCommand(os, u"LAUNCHER"_s, find);
    QCOMPARE(command.has_value(), !program.isEmpty());
    if (command) {
        QCOMPARE(command->program, program);
        QCOMPARE(command->arguments, arguments);
    }
}

void TestFinishPage::open(const QStringList &terminals, std::optional<core::VerifyReport> verified)
{
    m_root = std::make_unique<QTemporaryDir>();
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux, QHash<QString, QString>{});
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->finishPage();
    QCOMPARE(m_page->objectName(), u"finishPage"_s);
    m_launches.clear();
    m_page->setLaunchFunction([this](const QString &program, const QStringList &arguments, const QString &dir) {
        m_launches.append({program, arguments, dir});
        return true;
    });
    m_page->setFindProgram(
        [terminals](const QString &name) { return terminals.contains(name) ? u"/usr/bin/"_s + name : QString(); });
    core::InstallOutcome outcome;
    outcome.environmentPath = u"/home/student/tfsetup-envs/tf2.16-cpu"_s;
    for (const QString &name : {u"start-python.sh"_s, u"start-jupyter.sh"_s, u"shell.sh"_s})
        outcome.launchers.append(outcome.environmentPath + u'/' + name);
    outcome.summary = u"# tf2.16-cpu\n\nTensorFlow 2.16.1, Python 3.11.4\n"_s;
    m_wizard->state().setInstalled(outcome);
    m_wizard->state().setVerified(std::move(verified));
    m_wizard->setStartId(ui::SetupWizard::FinishPageId);
    m_wizard->show();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
}

void TestFinishPage::buttons_startLaunchersThroughTheSeam()
{
    open({u"x-terminal-emulator"_s});
    QVERIFY(child<QLabel>(m_page, u"environmentPathLabel"_s)->text().contains(u"tfsetup-envs/tf2.16-cpu"_s));
    QVERIFY(child<QLabel>(m_page, u"launchersLabel"_s)->text().contains(u"start-jupyter.sh"_s));
    QVERIFY(child<QLabel>(m_page, u"howLabel"_s)->text().contains(u"start-python.sh"_s));
    QVERIFY(m_wizard->button(QWizard::FinishButton)->isVisible());

    QTest::mouseClick(child<QPushButton>(m_page, u"openShellButton"_s), Qt::LeftButton);
    QTest::mouseClick(child<QPushButton>(m_page, u"openJupyterButton"_s), Qt::LeftButton);
    QCOMPARE(m_launches.size(), 2);
    const QString host = m_system->hostPath(u"/home/student/tfsetup-envs/tf2.16-cpu"_s);
    QCOMPARE(m_launches.at(0).program, u"/usr/bin/x-terminal-emulator"_s);
    QCOMPARE(m_launches.at(0).arguments, (QStringList{u"-e"_s, host + u"/shell.sh"_s}));
    QCOMPARE(m_launches.at(0).workingDirectory, host);
    QCOMPARE(m_launches.at(1).arguments, (QStringList{u"-e"_s, host + u"/start-jupyter.sh"_s}));
    QVERIFY(child<QLabel>(m_page, u"messageLabel"_s)->isHidden());
}

void TestFinishPage::noTerminal_saysWhatToRun()
{
    open({});
    QTest::mouseClick(child<QPushButton>(m_page, u"openShellButton"_s), Qt::LeftButton);
    QVERIFY(m_launches.isEmpty());
    auto *message = child<QLabel>(m_page, u"messageLabel"_s);
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(u"shell.sh"_s), qPrintable(message->text()));
}

void TestFinishPage::copySummary_putsEnvironmentMdOnTheClipboard()
{
    open({});
    QGuiApplication::clipboard()->clear();
    QTest::mouseClick(child<QPushButton>(m_page, u"copySummaryButton"_s), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), u"# tf2.16-cpu\n\nTensorFlow 2.16.1, Python 3.11.4\n"_s);
    QVERIFY(child<QLabel>(m_page, u"messageLabel"_s)->text().contains(u"clipboard"_s));
}

namespace {

core::VerifyReport report(bool passed)
{
    core::VerifyReport r;
    core::VerifyLayer import;
    import.id = u"import"_s;
    import.title = u"Import TensorFlow"_s;
    import.status = core::VerifyLayer::Status::Passed;
    import.summary = u"TensorFlow 2.16.1 imported in 2.0 s"_s;
    core::VerifyLayer compute;
    compute.id = u"compute"_s;
    compute.title = u"Compute"_s;
    compute.status = passed ? core::VerifyLayer::Status::Passed : core::VerifyLayer::Status::Failed;
    compute.cause = passed ? QString() : u"compute_failed"_s;
    compute.explanation = passed ? QString() : u"The matrix product failed: INTERNAL: cuBLAS error"_s;
    r.layers = {import, compute};
    return r;
}

} // namespace

void TestFinishPage::passedCheck_saysReady()
{
    open({}, report(true));
    QCOMPARE(m_page->title(), u"Ready"_s);
    QVERIFY(child<QLabel>(m_page, u"statusLabel"_s)->text().startsWith(u"Done"_s));
    QVERIFY(child<QPushButton>(m_page, u"repairNowButton"_s)->isHidden());
}

void TestFinishPage::failedCheck_saysSoAndOffersRepairNow()
{
    open({}, report(false));
    // Never "Ready" over a failed check, and never a command as the only advice.
    QCOMPARE(m_page->title(), u"Installed, but the check failed"_s);
    QVERIFY2(m_page->subTitle().contains(u"does not work"_s), qPrintable(m_page->subTitle()));
    const QString status = child<QLabel>(m_page, u"statusLabel"_s)->text();
    QVERIFY2(status.contains(u"A test computation failed."_s), qPrintable(status));
    QVERIFY2(!status.contains(u"tfsetup doctor"_s) && !status.contains(u"cuBLAS"_s), qPrintable(status));
    QVERIFY(!child<QLabel>(m_page, u"statusIcon"_s)->pixmap().isNull());
    auto *repair = child<QPushButton>(m_page, u"repairNowButton"_s);
    QVERIFY(repair->isVisible());
    QVERIFY(repair->isEnabled());
    QSignalSpy requested(m_page, &FinishPage::repairRequested);
    QTest::mouseClick(repair, Qt::LeftButton);
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().first().toString(), u"/home/student/tfsetup-envs/tf2.16-cpu"_s);
}

QTEST_MAIN(TestFinishPage)
#include "test_finishpage.moc"
