// The kill drill: an environment is installed; an install that changes it (another cuDNN) runs as
// a separate process and is killed with SIGKILL at every install step and at the two moments
// inside the commit where a crash hurts most. After each kill, the leftovers are recovered as the
// next run does first, and then the environment is byte-identical to the one before (or, once
// the swap happened, the new one, complete); nothing else is left in the install folder; and a
// rerun completes.

#include "labmirror.h"

#include "fetch/checksum.h"
#include "install/environmentrecord.h"
#include "install/installer.h"

#include "support/treesnapshot.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using tfsetup::test::LabMirror;
using tfsetup::test::LoopbackServer;
using tfsetup::test::TreeSnapshot;

class TestKillDrill : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("TFSETUP_LABMACHINE"))
            QSKIP("TFSETUP_LABMACHINE is not set (run through ctest)");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        QVERIFY(m_mirror.create(m_dir.filePath(QStringLiteral("mirror")), m_server));
        m_before = m_mirror.writeProfile(QStringLiteral("before"), QStringLiteral("tf-lab"), QStringLiteral("8.6"));
        m_after = m_mirror.writeProfile(QStringLiteral("after"), QStringLiteral("tf-lab"), QStringLiteral("8.9"),
                                        QStringLiteral("TF lab (new)"));
        QVERIFY(!m_before.isEmpty() && !m_after.isEmpty());
        m_prefix = m_dir.filePath(QStringLiteral("envs"));
        m_cache = m_dir.filePath(QStringLiteral("cache"));
    }

    void killAt_data()
    {
        QTest::addColumn<QString>("point");
        QTest::addColumn<bool>("swapped"); // the new environment is in place once this point is reached
        for (core::InstallStep step : core::allInstallSteps()) {
            const QString id = core::installStepId(step);
            QTest::newRow(qPrintable(id)) << id << (step == core::InstallStep::Register);
        }
        QTest::newRow("commit-set-aside") << QStringLiteral("commit-set-aside") << false;
        QTest::newRow("commit-swapped") << QStringLiteral("commit-swapped") << true;
    }

    void killAt()
    {
        QFETCH(QString, point);
        QFETCH(bool, swapped);
        const QString env = m_prefix + QStringLiteral("/tf-lab");

        // The environment as the student has it.
        QVERIFY(run(m_before).value(QStringLiteral("ok")).toBool());
        QCOMPARE(cudnnOf(env), QStringLiteral("8.6"));
        const TreeSnapshot installed = TreeSnapshot::take(env);

        // The changing install dies at `point`.
        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"), arguments(m_after) << QStringLiteral("--kill-at") << point);
        QVERIFY(killed.waitForFinished(120000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);

        // What the next run does first.
        core::Installer::recoverLeftovers(m_prefix);
        QCOMPARE(QDir(m_prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("tf-lab")});
        if (swapped) {
            QCOMPARE(cudnnOf(env), QStringLiteral("8.9"));
            verifyRecordedFiles(env);
        } else {
            const QString diff = TreeSnapshot::take(env).differenceFrom(installed);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }

        // And the rerun completes.
        const QJsonObject rerun = run(m_after);
        QVERIFY2(rerun.value(QStringLiteral("ok")).toBool(), QJsonDocument(rerun).toJson().constData());
        QCOMPARE(cudnnOf(env), QStringLiteral("8.9"));
        verifyRecordedFiles(env);
    }

private:
    QStringList arguments(const QString &profile) const
    {
        return m_mirror.machineArguments(profile, m_prefix, m_cache, m_server);
    }

    QJsonObject run(const QString &profile) const
    {
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_LABMACHINE"), arguments(profile));
        if (!p.waitForFinished(120000))
            return {};
        const QByteArray out = p.readAllStandardOutput().trimmed();
        QJsonObject result = QJsonDocument::fromJson(out.split('\n').constLast()).object();
        if (!result.value(QStringLiteral("ok")).toBool())
            qWarning("%s\n%s", out.constData(), p.readAllStandardError().constData());
        return result;
    }

    static QString cudnnOf(const QString &env)
    {
        const auto record = core::EnvironmentRecord::read(env);
        return record ? record->spec.value(QStringLiteral("cudnn")).toString() : QString();
    }

    static void verifyRecordedFiles(const QString &env)
    {
        const auto record = core::EnvironmentRecord::read(env);
        QVERIFY2(record, qPrintable(env));
        QVERIFY(!record->files.isEmpty());
        for (const core::RecordedFile &f : record->files) {
            const QFileInfo info(env + u'/' + f.path);
            if (!f.linkTarget.isEmpty()) {
                QVERIFY2(info.isSymLink(), qPrintable(f.path));
                continue;
            }
            const auto digest = core::hashFile(core::Checksum::Algorithm::Sha256, info.filePath());
            QVERIFY2(digest && *digest == f.sha256, qPrintable(f.path));
        }
    }

    QTemporaryDir m_dir;
    LoopbackServer m_server;
    LabMirror m_mirror;
    QString m_before;
    QString m_after;
    QString m_prefix;
    QString m_cache;
};

QTEST_GUILESS_MAIN(TestKillDrill)
#include "test_killdrill.moc"
