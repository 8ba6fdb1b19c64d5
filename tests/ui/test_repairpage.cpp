// The Repair page over a Linux fixture home with one environment made by the installer
// (libraries-only: launchers, kernel, record): found automatically, checked with a pasted log
// (the doctor answers through its seam), its damaged launcher listed, fixed with progress, and
// committed to the state for the Verify page. A folder picked by hand is searched too.

#include "uitest.h"
#include "install/installer.h"
#include "system/rootedsystem.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/wizardstate.h"
#include "support/coroutinetest.h"

#include <QCheckBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

const QString prefix = u"/home/student/tfsetup-envs"_s;

using tfsetup::test::child;

QByteArray digest(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex()
                                       : QByteArray();
}

QCoro::Task<QList<core::DoctorFinding>> cannedDoctor(QString environment, QString log)
{
    core::DoctorFinding finding;
    finding.id = u"kernel_missing:tf-cpu"_s;
    finding.cause = u"kernel_missing"_s;
    finding.severity = core::Severity::Warning;
    finding.summary = {u"Jupyter does not list the environment's kernel"_s, u"Jupyter does not list the environment's kernel"_s};
    finding.fix = {u"Register the kernel again"_s, u"Register the kernel again"_s};
    finding.evidence = {environment, log.trimmed()};
    finding.actions.append({u"rewrite_kernelspec"_s, {{u"kernel"_s, u"tf-cpu"_s}}});
    co_return QList<core::DoctorFinding>{finding};
}

} // namespace

class TestRepairPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void findsCheckesAndFixes();
    void cleanEnvironmentGoesStraightOn();
    void pickedFolderIsSearched();
    void pastedLogWithoutEnvironment_isReadOnThePage();
    void foreignEnvironment_isExaminedNotRepaired_data();
    void foreignEnvironment_isExaminedNotRepaired();

private:
    void install(const QString &name, const QString &into = prefix)
    {
        core::InstallSpec spec;
        spec.name = name;
        spec.prefix = into;
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.15.1"_s;
        spec.python = u"3.11"_s;
        core::Installer installer(*m_system);
        const auto outcome = test::awaitTask(installer.install(spec), std::chrono::seconds(60));
        QVERIFY(outcome && *outcome);
    }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<core::RootedSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
    ui::RepairPage *m_page = nullptr;
};

void TestRepairPage::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    QVERIFY(QDir().mkpath(m_root->filePath(u"home/student"_s)));
    m_system = std::make_unique<core::RootedSystem>(m_root->path(), core::OsFamily::Linux,
                                                    QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s},
                                                                            {u"PATH"_s, u"/usr/bin"_s}});
    install(u"tf-cpu"_s);
    m_wizard = std::make_unique<ui::SetupWizard>(*m_system, nullptr);
    m_page = m_wizard->repairPage();
    QCOMPARE(m_page->objectName(), u"repairPage"_s);
    m_page->setDoctorFunction(&cannedDoctor);
    core::SetupOptions options;
    options.cacheDir = m_root->filePath(u"downloads"_s);
    m_wizard->state().setOptions(options);
    m_wizard->state().setMode(ui::WizardState::Mode::Repair);
    m_wizard->show();
    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::RepairPageId));
}

void TestRepairPage::cleanup()
{
    m_wizard.reset();
    m_system.reset();
    m_root.reset();
}

void TestRepairPage::findsCheckesAndFixes()
{
    auto *list = child<QListWidget>(m_page, u"repairEnvironmentList"_s);
    QCOMPARE(list->count(), 1);
    QCOMPARE(m_page->selectedEnvironment(), prefix + u"/tf-cpu"_s);
    QVERIFY(list->item(0)->text().contains(u"2.15.1"_s));

    const QString host = m_system->hostPath(prefix + u"/tf-cpu"_s);
    const QByteArray installed = digest(host + u"/start-python"_s);
    QVERIFY(QFile::remove(host + u"/start-python"_s));

    auto *fix = child<QPushButton>(m_page, u"repairFixButton"_s);
    QVERIFY(!fix->isEnabled());
    QVERIFY(!m_page->isComplete());
    child<QCheckBox>(m_page, u"repairBrokenCheck"_s)->setChecked(true);
    child<QPlainTextEdit>(m_page, u"repairLogEdit"_s)->setPlainText(u"ModuleNotFoundError: No module named 'tensorflow'"_s);
    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(checked.first().first().toBool(), true);

    // The damaged launcher and the doctor's finding with its evidence.
    auto *tree = child<QTreeWidget>(m_page, u"repairProblemTree"_s);
    QCOMPARE(tree->topLevelItemCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(0), u"start-python"_s);
    QTreeWidgetItem *finding = tree->topLevelItem(1)->child(0);
    QCOMPARE(finding->text(0), u"Jupyter does not list the environment's kernel"_s);
    QCOMPARE(finding->childCount(), 2);
    QVERIFY(finding->child(1)->text(1).contains(u"ModuleNotFoundError"_s));
    QVERIFY(!QFile::exists(host + u"/start-python"_s)); // checking changes nothing
    QVERIFY(fix->isEnabled());
    QVERIFY(!m_page->isComplete());

    QSignalSpy repaired(m_page, &ui::RepairPage::repaired);
    QTest::mouseClick(fix, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(repaired.count(), 1, 20000);
    QCOMPARE(repaired.first().first().toBool(), true);
    QCOMPARE(digest(host + u"/start-python"_s), installed);
    QVERIFY(!child<QPlainTextEdit>(m_page, u"repairLogView"_s)->toPlainText().isEmpty());
    QVERIFY(m_page->report() && m_page->report()->after.isEmpty());
    QVERIFY(m_page->isComplete());
    QVERIFY(m_wizard->button(QWizard::NextButton)->isEnabled());

    m_wizard->next();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QVERIFY(m_wizard->state().installed());
    QCOMPARE(m_wizard->state().installed()->environmentPath, prefix + u"/tf-cpu"_s);
}

void TestRepairPage::cleanEnvironmentGoesStraightOn()
{
    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(checked.first().first().toBool(), false);
    QVERIFY(!child<QPushButton>(m_page, u"repairFixButton"_s)->isEnabled());
    QVERIFY(m_page->isComplete());
}

void TestRepairPage::pickedFolderIsSearched()
{
    install(u"tf-elsewhere"_s, u"/data/envs"_s);
    m_page->setFolderPicker([] { return u"/data/envs"_s; });
    QTest::mouseClick(child<QPushButton>(m_page, u"repairBrowseButton"_s), Qt::LeftButton);
    QCOMPARE(child<QListWidget>(m_page, u"repairEnvironmentList"_s)->count(), 2);
    QCOMPARE(m_page->selectedEnvironment(), u"/data/envs/tf-elsewhere"_s);
}

void TestRepairPage::pastedLogWithoutEnvironment_isReadOnThePage()
{
    auto *list = child<QListWidget>(m_page, u"repairEnvironmentList"_s);
    list->setCurrentRow(-1);
    QVERIFY(m_page->selectedEnvironment().isEmpty());
    QStringList asked;
    m_page->setDoctorFunction([&asked](QString environment, QString log) {
        asked = {environment, log};
        return cannedDoctor(std::move(environment), std::move(log));
    });
    child<QCheckBox>(m_page, u"repairBrokenCheck"_s)->setChecked(true);
    child<QPlainTextEdit>(m_page, u"repairLogEdit"_s)
        ->setPlainText(u"Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open"_s);
    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(checked.first().first().toBool(), true);
    QCOMPARE(asked.value(0), QString());
    QVERIFY(asked.value(1).contains(u"libcudnn.so.8"_s));

    // The findings are on the page, with their evidence, in words without "doctor".
    auto *tree = child<QTreeWidget>(m_page, u"repairProblemTree"_s);
    QCOMPARE(tree->topLevelItemCount(), 1);
    QTreeWidgetItem *group = tree->topLevelItem(0);
    QVERIFY2(!group->text(0).contains(u"doctor"_s, Qt::CaseInsensitive), qPrintable(group->text(0)));
    QCOMPARE(group->child(0)->text(0), u"Jupyter does not list the environment's kernel"_s);
    QCOMPARE(group->child(0)->text(1), u"Register the kernel again"_s);
    QVERIFY(group->child(0)->child(1)->text(1).contains(u"libcudnn.so.8"_s));
    const QString status = child<QLabel>(m_page, u"repairStatusLabel"_s)->text();
    QVERIFY2(status.contains(u"error you pasted"_s), qPrintable(status));
    QVERIFY(!child<QPushButton>(m_page, u"repairFixButton"_s)->isEnabled());
    QVERIFY(!m_page->isComplete());

    // Without an environment and without an error there is nothing to read.
    child<QPlainTextEdit>(m_page, u"repairLogEdit"_s)->clear();
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QCOMPARE(checked.count(), 1);
}

void TestRepairPage::foreignEnvironment_isExaminedNotRepaired_data()
{
    QTest::addColumn<QString>("marker"); // what makes the folder a Python environment
    QTest::newRow("conda") << u"conda-meta/history"_s;
    QTest::newRow("venv") << u"pyvenv.cfg"_s;
}

void TestRepairPage::foreignEnvironment_isExaminedNotRepaired()
{
    QFETCH(QString, marker);
    const QString folder = u"/home/student/miniconda3/envs/tf"_s;
    const QString file = m_system->hostPath(folder + u'/' + marker);
    QVERIFY(QDir().mkpath(QFileInfo(file).path()));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("home = /usr/bin\n");
    f.close();
    QStringList asked;
    m_page->setDoctorFunction([&asked](QString environment, QString log) {
        asked = {environment, log};
        return cannedDoctor(std::move(environment), std::move(log));
    });
    m_page->setFolderPicker([folder] { return folder; });
    QTest::mouseClick(child<QPushButton>(m_page, u"repairBrowseButton"_s), Qt::LeftButton);
    auto *list = child<QListWidget>(m_page, u"repairEnvironmentList"_s);
    QCOMPARE(list->count(), 2);
    QCOMPARE(m_page->selectedEnvironment(), folder);
    QVERIFY(m_page->selectedIsForeign());
    QVERIFY2(list->currentItem()->text().contains(u"not made by tfsetup"_s), qPrintable(list->currentItem()->text()));

    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(asked.value(0), folder);
    auto *tree = child<QTreeWidget>(m_page, u"repairProblemTree"_s);
    QCOMPARE(tree->topLevelItemCount(), 1);
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(0), u"Jupyter does not list the environment's kernel"_s);
    // The page says why it will not repair it; nothing offers to.
    const QString status = child<QLabel>(m_page, u"repairStatusLabel"_s)->text();
    QVERIFY2(status.contains(u"only examines it"_s), qPrintable(status));
    QVERIFY2(status.contains(u"environment.json"_s), qPrintable(status));
    QVERIFY(!child<QPushButton>(m_page, u"repairFixButton"_s)->isEnabled());
    QVERIFY(!m_page->isComplete());
    QVERIFY(!m_page->report());

    // Back on tfsetup's own environment, Check checks its files again.
    list->setCurrentRow(0);
    QVERIFY(!m_page->selectedIsForeign());
    QSignalSpy checkedAgain(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checkedAgain.count(), 1, 20000);
    QVERIFY(m_page->report());
    QVERIFY(m_page->isComplete());
}

QTEST_MAIN(TestRepairPage)
#include "test_repairpage.moc"
