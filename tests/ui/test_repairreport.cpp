// The Repair page's one-click diagnostic report: the doctor's findings about this machine and the
// pasted error, written to a file with the user's name and home folder masked.

#include "system/rootedsystem.h"
#include "ui/repairpage.h"
#include "ui/wizardstate.h"

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;

class TestRepairReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        const QString fixture = qEnvironmentVariable("TFSETUP_TEST_DATA")
            + QStringLiteral("/fixtures/windows-two-toolkits");
        auto system = core::RootedSystem::open(fixture + QStringLiteral("/root"), core::OsFamily::Windows,
                                               fixture + QStringLiteral("/env"));
        QVERIFY(system.ok());
        m_system = std::move(system.value());
        QVERIFY(!m_system->homeDir().isEmpty());
    }

    void report_isWrittenRedactedWithThePastedError()
    {
        ui::WizardState state(*m_system);
        ui::RepairPage page(state);
        const QString path = m_dir.filePath(QStringLiteral("report.txt"));
        page.setSavePathPicker([path] { return path; });
        page.show();

        page.findChild<QCheckBox *>(QStringLiteral("repairBrokenCheck"))->setChecked(true);
        page.findChild<QPlainTextEdit *>(QStringLiteral("repairLogEdit"))
            ->setPlainText(QStringLiteral("2022-10-01 12:00:00.000000: W tensorflow/stream_executor/platform/default/"
                                          "dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; "
                                          "dlerror: cudart64_110.dll not found"));
        QSignalSpy saved(&page, &ui::RepairPage::reportSaved);
        auto *button = page.findChild<QPushButton *>(QStringLiteral("repairReportButton"));
        QVERIFY(button);
        QVERIFY(!button->text().isEmpty());
        QTest::mouseClick(button, Qt::LeftButton);
        // The fixture machine answers without waiting, so the report may be done before the click returns.
        QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 1, 20000);
        QCOMPARE(saved.first().first().toString(), path);

        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(text.contains(QStringLiteral("cudart64_110.dll")));
        QVERIFY(text.contains(QStringLiteral("RTX 3060")));
        // The home folder's last part is the user name: it appears nowhere.
        const QString user = m_system->homeDir().section(u'/', -1);
        QVERIFY2(!text.contains(user, Qt::CaseInsensitive), qPrintable(user));
        QVERIFY(page.findChild<QLabel *>(QStringLiteral("repairStatusLabel"))
                    ->text()
                    .contains(QStringLiteral("report.txt")));
    }

    void report_failureIsSaidAndWritesNothing()
    {
        ui::WizardState state(*m_system);
        ui::RepairPage page(state);
        const QString path = m_dir.filePath(QStringLiteral("never.txt"));
        page.setSavePathPicker([path] { return path; });
        page.setReportFunction([](QString, QString) -> QCoro::Task<QString> { co_return QString(); });
        page.findChild<QPushButton *>(QStringLiteral("repairReportButton"))->click();
        QTRY_VERIFY(!page.findChild<QLabel *>(QStringLiteral("repairStatusLabel"))->text().isEmpty()
                    && page.findChild<QPushButton *>(QStringLiteral("repairReportButton"))->isEnabled());
        QVERIFY(!QFile::exists(path));

        // Cancelling the file dialog does nothing at all.
        page.setSavePathPicker([] { return QString(); });
        page.findChild<QPushButton *>(QStringLiteral("repairReportButton"))->click();
        QVERIFY(!QFile::exists(path));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<core::RootedSystem> m_system;
};

QTEST_MAIN(TestRepairReport)
#include "test_repairreport.moc"
