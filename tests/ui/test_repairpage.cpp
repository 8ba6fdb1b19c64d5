// The Repair page over a Linux fixture home with one environment made by the installer
// (libraries-only: launchers, kernel, record): found automatically, checked with a pasted log
// (the doctor answers through its seam), its damaged launcher listed, fixed with progress, and
// committed to the state for the Verify page. A folder picked by hand is searched too, and every
// environment tfsetup's index knows, wherever it lives. What was found is one readable row each:
// icon, cause, what to do (a button where Repair does it), evidence folded under Details.

#include "install/installer.h"
#include "setup/environments.h"
#include "support/coroutinetest.h"
#include "support/poolgate.h"
#include "support/shippedknowledge.h"
#include "support/treesnapshot.h"
#include "system/rootedsystem.h"
#include "ui/repairpage.h"
#include "ui/setupwizard.h"
#include "ui/statuslist.h"
#include "ui/wizardstate.h"
#include "uitest.h"

#include <QCheckBox>
#include <QComboBox>
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
#include <QPointer>
#include <QTest>
#include <QToolButton>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

const QString prefix = u"/home/student/tfsetup-envs"_s;

using tfsetup::test::child;

const ui::StatusRow *row(QWidget *page, const QString &id)
{
    for (const ui::StatusRow &r : child<ui::StatusList>(page, u"findingList"_s)->rows()) {
        if (r.id == id)
            return &r;
    }
    return nullptr;
}

QStringList rowIds(QWidget *page)
{
    QStringList ids;
    for (const ui::StatusRow &r : child<ui::StatusList>(page, u"findingList"_s)->rows())
        ids.append(r.id);
    return ids;
}

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
    finding.summary = {u"Jupyter does not list the environment's kernel"_s,
                       u"Jupyter does not list the environment's kernel"_s};
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
    void closingThePageMidRepair_cancelsCleanly();
    void damagedPythonPackage_isShownWithEvidence();
    void pickedFolderIsSearched();
    void indexedEnvironmentOutsideTheDefaultFolder_isListedAndPreselected();
    void pastedLogWithoutEnvironment_isReadOnThePage();
    void pastedLogFromAnotherComputer_data();
    void pastedLogFromAnotherComputer();
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
        core::Installer installer(*m_system, test::shippedKnowledge());
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
    m_system = std::make_unique<core::RootedSystem>(
        m_root->path(), core::OsFamily::Linux,
        QHash<QString, QString>{{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}});
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
    child<QPlainTextEdit>(m_page, u"repairLogEdit"_s)
        ->setPlainText(u"ModuleNotFoundError: No module named 'tensorflow'"_s);
    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(checked.first().first().toBool(), true);

    // The damaged launcher and the doctor's finding with its evidence, one row each.
    QCOMPARE(rowIds(m_page), (QStringList{u"files"_s, u"kernel_missing:tf-cpu"_s}));
    QVERIFY(row(m_page, u"files"_s)->details.startsWith(u"start-python: "_s));
    const ui::StatusRow *finding = row(m_page, u"kernel_missing:tf-cpu"_s);
    QCOMPARE(finding->title, u"Jupyter does not list the environment's kernel"_s);
    QCOMPARE(finding->kind, ui::StatusRow::Kind::Warning);
    QVERIFY(finding->details.contains(u"ModuleNotFoundError"_s));
    // Repair does the fix: a button on the row, not a command to type.
    QVERIFY2(finding->fix.startsWith(u"Repair does this"_s), qPrintable(finding->fix));
    QVERIFY(child<QPushButton>(m_page, u"findingAction_kernel_missing:tf-cpu"_s)->isVisible());
    auto *details = child<QToolButton>(m_page, u"findingDetails_kernel_missing:tf-cpu"_s);
    QVERIFY(!details->isChecked());
    QVERIFY(!child<QPlainTextEdit>(m_page, u"findingDetailsView_kernel_missing:tf-cpu"_s)->isVisible());
    QVERIFY(!QFile::exists(host + u"/start-python"_s)); // checking changes nothing
    QVERIFY(fix->isEnabled());
    QVERIFY(!m_page->isComplete());

    QSignalSpy repaired(m_page, &ui::RepairPage::repaired);
    // The row's button is the same repair as the page's.
    QTest::mouseClick(child<QPushButton>(m_page, u"findingAction_files"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(repaired.count(), 1, 20000);
    QCOMPARE(repaired.first().first().toBool(), true);
    QCOMPARE(digest(host + u"/start-python"_s), installed);
    // The repair's own log is folded under a collapsed toggle.
    QVERIFY(!child<QPlainTextEdit>(m_page, u"repairLogView"_s)->toPlainText().isEmpty());
    QVERIFY(!child<QPlainTextEdit>(m_page, u"repairLogView"_s)->isVisible());
    QVERIFY(child<QToolButton>(m_page, u"repairLogToggle"_s)->isVisible());
    // The same rows now say what was done.
    QCOMPARE(::row(m_page, u"files"_s)->kind, ui::StatusRow::Kind::Passed);
    QCOMPARE(::row(m_page, u"kernel_missing:tf-cpu"_s)->kind, ui::StatusRow::Kind::Passed);
    QVERIFY(::row(m_page, u"files"_s)->actionText.isEmpty());
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

void TestRepairPage::closingThePageMidRepair_cancelsCleanly()
{
    // The window (and with it the page and its Repairer) is closed while the repair waits for its
    // check on the thread pool: nothing uses the deleted objects (the suite runs under
    // AddressSanitizer), the repair ends as cancelled, and the environment stays exactly as it
    // was, its lock released.
    const QString host = m_system->hostPath(prefix + u"/tf-cpu"_s);
    QVERIFY(QFile::remove(host + u"/start-python"_s));
    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    auto *fix = child<QPushButton>(m_page, u"repairFixButton"_s);
    QVERIFY(fix->isEnabled());

    const QString hostPrefix = m_system->hostPath(prefix);
    const test::TreeSnapshot before = test::TreeSnapshot::take(hostPrefix);
    test::PoolGate gate; // the repair's check waits for a pool thread
    QTest::mouseClick(fix, Qt::LeftButton);
    const QString lock = hostPrefix + u"/.tf-cpu.tfsetup-lock"_s;
    QVERIFY2(QFile::exists(lock), "the repair holds the environment's lock while it checks");
    QPointer<core::Repairer> repairer = m_page->findChild<core::Repairer *>();
    QVERIFY(repairer);

    m_wizard.reset();
    m_page = nullptr;
    QVERIFY(repairer.isNull());
    gate.release();
    // The lock goes with the repair's frame, after the check it waited for has returned.
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(lock), 20000);
    const QString diff = test::TreeSnapshot::take(hostPrefix).differenceFrom(before);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QVERIFY(!QFile::exists(host + u"/start-python"_s));
}

void TestRepairPage::damagedPythonPackage_isShownWithEvidence()
{
    // A distribution in the environment's site-packages whose RECORD no longer matches: one file
    // changed, one gone. (The check reads the files only; tests/core/repair/test_repair_pip.cpp runs pip.)
    const QString host = m_system->hostPath(prefix + u"/tf-cpu"_s);
    const QString site = host + u"/venv/lib/python3.11/site-packages"_s;
    auto write = [](const QString &path, const QByteArray &bytes) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    auto row = [](const QByteArray &path, const QByteArray &bytes) -> QByteArray {
        return path + ",sha256="
            + QCryptographicHash::hash(bytes, QCryptographicHash::Sha256)
                  .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
            + ',' + QByteArray::number(bytes.size()) + '\n';
    };
    QVERIFY(write(site + u"/tinypkg-0.1.dist-info/METADATA"_s, "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n"));
    const QByteArray record = row("tinypkg/__init__.py", "VALUE = 42\n") + row("tinypkg/data.py", "TABLE = []\n")
        + "tinypkg-0.1.dist-info/RECORD,,\n";
    QVERIFY(write(site + u"/tinypkg-0.1.dist-info/RECORD"_s, record));
    QVERIFY(write(site + u"/tinypkg/__init__.py"_s, "VALUE = 0\n"));

    QSignalSpy checked(m_page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 20000);
    QCOMPARE(checked.first().first().toBool(), true);
    QVERIFY(m_page->report() && m_page->report()->packages.size() == 1);

    const ui::StatusRow *packages = ::row(m_page, u"packages"_s);
    QVERIFY(packages);
    QCOMPARE(packages->title, u"Damaged Python packages: 1"_s);
    QVERIFY2(packages->text.startsWith(u"tinypkg 0.1."_s), qPrintable(packages->text));
    const QStringList evidence = packages->details.split(u'\n');
    QCOMPARE(evidence.size(), 3);
    QVERIFY2(evidence.at(0).contains(u"package index"_s), qPrintable(evidence.at(0)));
    QVERIFY(evidence.at(1).contains(u"site-packages/tinypkg/__init__.py"_s));
    QVERIFY(evidence.at(2).contains(u"site-packages/tinypkg/data.py"_s));
    QVERIFY(child<QPushButton>(m_page, u"repairFixButton"_s)->isEnabled());
    QVERIFY(!m_page->isComplete());
}

void TestRepairPage::pickedFolderIsSearched()
{
    install(u"tf-elsewhere"_s, u"/data/envs"_s);
    m_page->setFolderPicker([] { return u"/data/envs"_s; });
    QTest::mouseClick(child<QPushButton>(m_page, u"repairBrowseButton"_s), Qt::LeftButton);
    QCOMPARE(child<QListWidget>(m_page, u"repairEnvironmentList"_s)->count(), 2);
    QCOMPARE(m_page->selectedEnvironment(), u"/data/envs/tf-elsewhere"_s);
}

void TestRepairPage::indexedEnvironmentOutsideTheDefaultFolder_isListedAndPreselected()
{
    // Installed elsewhere and listed in tfsetup's index (as the Install page and `tfsetup install`
    // list it), which the Welcome page shows.
    install(u"tf-course"_s, u"/data/courses"_s);
    QVERIFY(core::EnvironmentIndex::add(*m_system, u"/data/courses/tf-course"_s));
    m_page->refreshEnvironments();
    auto *list = child<QListWidget>(m_page, u"repairEnvironmentList"_s);
    QCOMPARE(list->count(), 2);
    // Repair pressed on it (Welcome's list, Finish's Repair now): it is the one selected.
    m_page->preselect(u"/data/courses/tf-course"_s);
    m_page->refreshEnvironments();
    QCOMPARE(m_page->selectedEnvironment(), u"/data/courses/tf-course"_s);
    // Preselected though the index no longer names it: still listed.
    QVERIFY(core::EnvironmentIndex::remove(*m_system, u"/data/courses/tf-course"_s));
    m_page->preselect(u"/data/courses/tf-course"_s);
    m_page->refreshEnvironments();
    QCOMPARE(list->count(), 2);
    QCOMPARE(m_page->selectedEnvironment(), u"/data/courses/tf-course"_s);
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
    QCOMPARE(rowIds(m_page), QStringList{u"kernel_missing:tf-cpu"_s});
    const ui::StatusRow *finding = row(m_page, u"kernel_missing:tf-cpu"_s);
    QCOMPARE(finding->title, u"Jupyter does not list the environment's kernel"_s);
    QCOMPARE(finding->fix, u"What to do: Register the kernel again"_s);
    QVERIFY(finding->actionText.isEmpty()); // nothing of tfsetup's to repair here
    QVERIFY(finding->details.contains(u"libcudnn.so.8"_s));
    const QString status = child<QLabel>(m_page, u"repairStatusLabel"_s)->text();
    QVERIFY2(status.contains(u"error you pasted"_s), qPrintable(status));
    QVERIFY(!child<QPushButton>(m_page, u"repairFixButton"_s)->isEnabled());
    QVERIFY(!m_page->isComplete());

    // Without an environment and without an error there is nothing to read.
    child<QPlainTextEdit>(m_page, u"repairLogEdit"_s)->clear();
    QTest::mouseClick(child<QPushButton>(m_page, u"repairCheckButton"_s), Qt::LeftButton);
    QCOMPARE(checked.count(), 1);
}

void TestRepairPage::pastedLogFromAnotherComputer_data()
{
    QTest::addColumn<int>("answer");       // the row of "The error comes from"
    QTest::addColumn<QString>("expected"); // the start of the finding the answer leads to
    QTest::newRow("not sure: the Windows log tells") << 0 << u"This log comes from another machine"_s;
    QTest::newRow("another computer") << 2 << u"This log comes from another machine"_s;
    QTest::newRow("this computer: the conflict is shown") << 1 << u"The log was said to come from this computer"_s;
}

// A student's Windows log read on this Linux machine, by the page's own doctor: the answer to
// "The error comes from" decides how it is read, and a contradiction is shown, never hidden.
void TestRepairPage::pastedLogFromAnotherComputer()
{
    QFETCH(int, answer);
    QFETCH(QString, expected);
    ui::SetupWizard wizard(*m_system, nullptr);
    wizard.state().setMode(ui::WizardState::Mode::Repair);
    wizard.show();
    wizard.next();
    ui::RepairPage *page = wizard.repairPage();
    QCOMPARE(wizard.currentPage(), page);
    child<QListWidget>(page, u"repairEnvironmentList"_s)->setCurrentRow(-1);
    auto *origin = child<QComboBox>(page, u"repairLogOriginCombo"_s);
    QVERIFY(!origin->isEnabled()); // only with an error to read
    child<QCheckBox>(page, u"repairBrokenCheck"_s)->setChecked(true);
    QVERIFY(origin->isEnabled());
    QCOMPARE(origin->count(), 3);
    origin->setCurrentIndex(answer);
    QFile log(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/doctor/logs/windows_tf29_cudart_missing.txt"_s);
    QVERIFY(log.open(QIODevice::ReadOnly));
    child<QPlainTextEdit>(page, u"repairLogEdit"_s)->setPlainText(QString::fromUtf8(log.readAll()));
    QSignalSpy checked(page, &ui::RepairPage::checked);
    QTest::mouseClick(child<QPushButton>(page, u"repairCheckButton"_s), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 30000);
    QStringList shown;
    for (const ui::StatusRow &r : child<ui::StatusList>(page, u"findingList"_s)->rows())
        shown.append(r.title);
    const bool found = std::any_of(shown.cbegin(), shown.cend(),
                                   [&](const QString &t) { return t.startsWith(expected); });
    QVERIFY2(found, qPrintable(shown.join(u" | "_s)));
    // Whatever the answer, the log's own cause is named: TensorFlow could not load cudart64_110.dll.
    const bool cause = std::any_of(shown.cbegin(), shown.cend(),
                                   [](const QString &t) { return t.contains(u"cudart64_110.dll"_s); });
    QVERIFY2(cause, qPrintable(shown.join(u" | "_s)));
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
    QCOMPARE(rowIds(m_page), QStringList{u"kernel_missing:tf-cpu"_s});
    QCOMPARE(row(m_page, u"kernel_missing:tf-cpu"_s)->title, u"Jupyter does not list the environment's kernel"_s);
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
