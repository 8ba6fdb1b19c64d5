// The kill drill: an environment is installed; an install that changes it (another cuDNN) runs as
// a separate process and is killed with SIGKILL at every install step and at the two moments
// inside the commit where a crash hurts most. After each kill, the leftovers are recovered as the
// next run does first, and then the environment is byte-identical to the one before (or, once
// the swap happened, the new one, complete); nothing else is left in the install folder; and a
// rerun completes. A repair that puts back two edited launchers is killed the same way, at each
// repair step and among its renames: the user's edited texts survive (in place or kept beside as
// .user-backup) and a rerun repairs. And a repair run right after an install died between its two
// renames finds the environment. And an install killed while Python makes the venv (its ensurepip
// child writing into the staging folder) leaves no process behind that could make the staging
// folder again after the cleanup; a command cancelled, timed out or finished takes what it
// started with it. The user's own files in the environment (TensorBoard runs under logs/, a link
// to a data folder) survive every kill of a re-install and are there after the rerun. A removal
// killed after its rename and halfway through the files is finished by the next removal, which
// keeps the user's files and takes the Jupyter kernel.

#include "support/labmirror.h"

#include "fetch/checksum.h"
#include "install/environmentrecord.h"
#include "install/installer.h"
#include "repair/repair.h"
#include "system/realsystem.h"

#include "support/files.h"
#include "support/processes.h"
#include "support/testindex.h"
#include "support/treesnapshot.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

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

        // The environment as the student has it, with their TensorBoard runs and data link.
        QVERIFY(run(m_before).value(QStringLiteral("ok")).toBool());
        QCOMPARE(cudnnOf(env), QStringLiteral("8.6"));
        QVERIFY(addUserFiles(env));
        const TreeSnapshot installed = TreeSnapshot::take(env);

        // The changing install dies at `point`.
        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     arguments(m_after) << QStringLiteral("--kill-at") << point);
        QVERIFY(killed.waitForFinished(120000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);

        // What the next run does first.
        QVERIFY(core::Installer::recoverLeftovers(m_prefix, QStringLiteral("tf-lab")));
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
        expectUserFiles(env);
        // The next row starts from a fresh install.
        QVERIFY(QDir(env).removeRecursively());
    }

    void removeKilledAt_data()
    {
        QTest::addColumn<QString>("point");
        QTest::newRow("tombstoned") << QStringLiteral("tombstoned");
        QTest::newRow("halfway") << QStringLiteral("halfway");
    }

    void removeKilledAt()
    {
        QFETCH(QString, point);
        const QString env = m_prefix + QStringLiteral("/tf-lab");
        QVERIFY(run(m_before).value(QStringLiteral("ok")).toBool());
        QVERIFY(addUserFiles(env));
        const QString kernel = qEnvironmentVariable("XDG_DATA_HOME") + QStringLiteral("/jupyter/kernels/tf-lab");

        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     QStringList{QStringLiteral("--remove"), env, QStringLiteral("--kill-at"), point});
        QVERIFY(killed.waitForFinished(120000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);
        QVERIFY(!QFileInfo::exists(env)); // never half-removed under its name

        QProcess again;
        again.start(qEnvironmentVariable("TFSETUP_LABMACHINE"), QStringList{QStringLiteral("--remove"), env});
        QVERIFY(again.waitForFinished(120000));
        const QByteArray out = again.readAllStandardOutput().trimmed();
        const QJsonObject result = QJsonDocument::fromJson(out.split('\n').constLast()).object();
        QVERIFY2(result.value(QStringLiteral("ok")).toBool(), out.constData());
        QVERIFY(result.value(QStringLiteral("folder_kept")).toBool());
        // Only the user's files are left, under the environment's name; nothing beside it.
        expectUserFiles(env);
        QVERIFY(!QFileInfo::exists(env + QStringLiteral("/environment.json")));
        QVERIFY(!QFileInfo::exists(env + QStringLiteral("/venv")));
        QVERIFY(!QFileInfo::exists(kernel + QStringLiteral("/kernel.json")));
        QCOMPARE(QDir(m_prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("tf-lab")});
        QVERIFY(QDir(env).removeRecursively());
    }

    void repairAfterInterruptedSwitch()
    {
        const QString env = m_prefix + QStringLiteral("/tf-lab");
        QVERIFY(run(m_before).value(QStringLiteral("ok")).toBool());
        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     arguments(m_after) << QStringLiteral("--kill-at") << QStringLiteral("commit-set-aside"));
        QVERIFY(killed.waitForFinished(120000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);
        QVERIFY(!QFileInfo::exists(env)); // it sits in .tf-lab.previous-*

        const QJsonObject repaired = repair(env);
        QVERIFY2(repaired.value(QStringLiteral("ok")).toBool(), QJsonDocument(repaired).toJson().constData());
        QVERIFY(repaired.value(QStringLiteral("healthy")).toBool());
        QCOMPARE(cudnnOf(env), QStringLiteral("8.6"));
        verifyRecordedFiles(env);
        QCOMPARE(QDir(m_prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("tf-lab")});
    }

    void repairKilledAt_data()
    {
        QTest::addColumn<QString>("point");
        for (core::RepairStep step :
             {core::RepairStep::Check, core::RepairStep::Stage, core::RepairStep::Commit, core::RepairStep::Register}) {
            const QString id = core::repairStepId(step);
            QTest::newRow(qPrintable(id)) << id;
        }
        QTest::newRow("repair-first-rename") << QStringLiteral("repair-first-rename");
        QTest::newRow("repair-renamed") << QStringLiteral("repair-renamed");
    }

    void repairKilledAt()
    {
        QFETCH(QString, point);
        const QString env = m_prefix + QStringLiteral("/tf-lab");
        QVERIFY(run(m_before).value(QStringLiteral("ok")).toBool());
        const QStringList edited{QStringLiteral("start-python"), QStringLiteral("start-jupyter")};
        for (const QString &name : edited) {
            QFile f(env + u'/' + name);
            QVERIFY(f.open(QIODevice::Append));
            f.write("# my edit to " + name.toUtf8() + '\n');
        }
        const QHash<QString, QByteArray> texts = contents(env, edited);

        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     QStringList{QStringLiteral("--repair"), env, QStringLiteral("--cache"), m_cache,
                                 QStringLiteral("--kill-at"), point});
        QVERIFY(killed.waitForFinished(120000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);

        // What the next run does first: nothing the user wrote is lost.
        QVERIFY(core::Installer::recoverLeftovers(m_prefix, QStringLiteral("tf-lab")));
        QCOMPARE(QDir(m_prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("tf-lab")});
        expectKept(env, texts);

        // And the rerun repairs, still keeping them.
        const QJsonObject rerun = repair(env);
        QVERIFY2(rerun.value(QStringLiteral("ok")).toBool(), QJsonDocument(rerun).toJson().constData());
        QVERIFY(rerun.value(QStringLiteral("healthy")).toBool());
        verifyRecordedFiles(env);
        expectKept(env, texts);
        QCOMPARE(QDir(m_prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("tf-lab")});
        // The next row starts from a fresh install.
        QVERIFY(QDir(env).removeRecursively());
    }

    void killDuringVenv_leavesNoChildBehind()
    {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        QVERIFY2(!python.isEmpty(), "python3 is not on PATH (install the python3-venv package)");
        // The lab profile with a real interpreter: the venv is made after NVIDIA's files are placed.
        QFile base(m_before);
        QVERIFY(base.open(QIODevice::ReadOnly));
        QJsonObject profile = QJsonDocument::fromJson(base.readAll()).object();
        profile.insert(QStringLiteral("interpreter"), python);
        QJsonObject plan = profile.value(QStringLiteral("plan")).toObject();
        plan.insert(QStringLiteral("requirements"), QJsonArray{QStringLiteral("tensorflow==2.13.1")});
        profile.insert(QStringLiteral("plan"), plan);
        profile.insert(QStringLiteral("jupyter"), false);
        // The packages are locked before anything is made: a stand-in TensorFlow and the kernel's
        // package on the lab's index.
        test::TestIndex index(m_server, "/pypi-lab/");
        for (const auto &[project, version] : {std::pair{QStringLiteral("tensorflow"), QStringLiteral("2.13.1")},
                                               std::pair{QStringLiteral("ipykernel"), QStringLiteral("6.0.0")}}) {
            const QString wheel = m_dir.filePath(project + u'-' + version + QStringLiteral("-py3-none-any.whl"));
            QVERIFY(test::buildWheel(python, wheel, project, version, QByteArray(), project));
            QVERIFY(index.addWheel(wheel));
        }
        profile.insert(QStringLiteral("mirrors"),
                       QJsonObject{{QStringLiteral("pypi"), QJsonArray{index.url().toString()}}});
        const QString withPython = QFileInfo(m_before).absolutePath() + QStringLiteral("/with-python.json");
        QFile out(withPython);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(profile).toJson());
        out.close();
        const QString prefix = m_dir.filePath(QStringLiteral("envs-venv"));
        const QString staging = prefix + QStringLiteral("/.tf-lab.staging-");

        // Killed while venv's ensurepip child installs pip into the staging folder.
        QProcess killed;
        killed.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     m_mirror.machineArguments(withPython, prefix, m_cache, m_server));
        QVERIFY(killed.waitForStarted());
        QElapsedTimer waited;
        waited.start();
        bool inEnsurepip = false;
        while (!inEnsurepip && killed.state() == QProcess::Running && waited.elapsed() < 120000) {
            for (const QString &p : test::processesUsing(staging))
                inEnsurepip = inEnsurepip || p.contains(QStringLiteral("ensurepip"));
            if (!inEnsurepip)
                QTest::qWait(20);
        }
        QVERIFY2(inEnsurepip, killed.readAllStandardOutput().constData());
        killed.kill();
        QVERIFY(killed.waitForFinished(10000));
        QCOMPARE(killed.exitStatus(), QProcess::CrashExit);

        // Nothing it started outlives it (the kill of the group takes a moment to be delivered):
        // no process names the install folder, the staging folder in it included.
        QStringList left;
        for (waited.restart(); waited.elapsed() < 5000; QTest::qWait(50)) {
            left = test::processesUsing(prefix);
            if (left.isEmpty())
                break;
        }
        QVERIFY2(left.isEmpty(), qPrintable(left.join(u'\n')));

        // The next run's cleanup, and nothing makes the staging folder again afterwards.
        QVERIFY(core::Installer::recoverLeftovers(prefix, QStringLiteral("tf-lab")));
        QCOMPARE(QDir(prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
        QTest::qWait(3000);
        QCOMPARE(QDir(prefix).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
        QCOMPARE(test::processesUsing(prefix), QStringList());
    }

    // A program that starts another and then waits (or leaves at once): everything it started
    // ends with it, whether it is cancelled, times out, or finishes.
    void commandEnds_withWhatItStarted_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("cancelled") << QStringLiteral("cancelled");
        QTest::newRow("timed out") << QStringLiteral("timed out");
        QTest::newRow("finished, a child left running") << QStringLiteral("finished");
        QTest::newRow("run(), timed out") << QStringLiteral("run timed out");
    }
    void commandEnds_withWhatItStarted()
    {
        QFETCH(QString, how);
        const QString dir = m_dir.filePath(QStringLiteral("tree-") + QString(how).replace(u' ', u'-').remove(u','));
        QVERIFY(QDir().mkpath(dir));
        const bool leaves = how == u"finished";
        QVERIFY(writeScript(dir + QStringLiteral("/child.sh"), "sleep 300\n"));
        QVERIFY(writeScript(dir + QStringLiteral("/parent.sh"),
                            leaves ? "\"$(dirname \"$0\")/child.sh\" &\nsleep 1\nexit 0\n"
                                   : "\"$(dirname \"$0\")/child.sh\" &\nsleep 300\n"));
        core::RealSystem system;
        core::ProcessResult result;
        if (how == u"run timed out") {
            result = QCoro::waitFor(system.run(dir + QStringLiteral("/parent.sh"), {}, std::chrono::seconds(2)));
        } else {
            core::ProcessRequest request;
            request.program = dir + QStringLiteral("/parent.sh");
            request.timeout = how == u"timed out" ? std::chrono::seconds(2) : std::chrono::seconds(60);
            auto cancel = std::make_shared<std::atomic<bool>>(false);
            request.cancel = cancel;
            if (how == u"cancelled")
                QTimer::singleShot(1500, [cancel] { cancel->store(true); });
            result = QCoro::waitFor(system.runWatched(std::move(request)));
        }
        QVERIFY(result.started);
        if (leaves)
            QVERIFY2(result.succeeded(), qPrintable(result.error));
        else
            QVERIFY(!result.succeeded());
        QStringList left;
        QElapsedTimer waited;
        for (waited.start(); waited.elapsed() < 5000; QTest::qWait(50)) {
            left = test::processesUsing(dir);
            if (left.isEmpty())
                break;
        }
        QVERIFY2(left.isEmpty(), qPrintable(left.join(u'\n')));
    }

private:
    static QHash<QString, QByteArray> contents(const QString &env, const QStringList &names)
    {
        QHash<QString, QByteArray> out;
        for (const QString &name : names) {
            QFile f(env + u'/' + name);
            if (f.open(QIODevice::ReadOnly))
                out.insert(name, f.readAll());
        }
        return out;
    }

    // What a student adds to an environment: TensorBoard's runs and a link to the course's data.
    bool addUserFiles(const QString &env) const
    {
        QDir().mkpath(m_dir.filePath(QStringLiteral("course-data")));
        QFile::remove(env + QStringLiteral("/datasets"));
        QFile events(env + QStringLiteral("/logs/fit/run1/events.out.tfevents.1"));
        return QDir().mkpath(env + QStringLiteral("/logs/fit/run1")) && events.open(QIODevice::WriteOnly)
            && events.write("runs") == 4 && events.flush()
            && QFile::link(m_dir.filePath(QStringLiteral("course-data")), env + QStringLiteral("/datasets"));
    }

    void expectUserFiles(const QString &env) const
    {
        QFile events(env + QStringLiteral("/logs/fit/run1/events.out.tfevents.1"));
        QVERIFY2(events.open(QIODevice::ReadOnly), qPrintable(env));
        QCOMPARE(events.readAll(), QByteArray("runs"));
        QCOMPARE(QFileInfo(env + QStringLiteral("/datasets")).symLinkTarget(),
                 m_dir.filePath(QStringLiteral("course-data")));
    }

    // Each edited text is somewhere in the environment: in its place or kept beside it.
    static void expectKept(const QString &env, const QHash<QString, QByteArray> &texts)
    {
        for (auto it = texts.cbegin(); it != texts.cend(); ++it) {
            bool found = false;
            for (const QString &candidate : QDir(env).entryList({it.key() + u'*'}, QDir::Files | QDir::Hidden)) {
                QFile f(env + u'/' + candidate);
                found = found || (f.open(QIODevice::ReadOnly) && f.readAll() == it.value());
            }
            QVERIFY2(found, qPrintable(it.key()));
        }
    }

    static bool writeScript(const QString &path, const QByteArray &body)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write("#!/bin/sh\n" + body) > 0
            && f.setPermissions(f.permissions() | QFile::ExeOwner);
    }

    QJsonObject repair(const QString &env) const
    {
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                QStringList{QStringLiteral("--repair"), env, QStringLiteral("--cache"), m_cache});
        if (!p.waitForFinished(120000))
            return {};
        const QByteArray out = p.readAllStandardOutput().trimmed();
        QJsonObject result = QJsonDocument::fromJson(out.split('\n').constLast()).object();
        if (!result.value(QStringLiteral("ok")).toBool())
            qWarning("%s\n%s", out.constData(), p.readAllStandardError().constData());
        return result;
    }

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
