// `tfsetup install --profile FILE --yes`: unattended, progress on stdout, non-zero exit with a
// clear message on failure, a second run that changes nothing.

#include "support/loopbackserver.h"
#include "support/processes.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestInstallCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void installsThenChangesNothing();
    void withoutYesOnlyTells();
    void missingProfileFails();
    void toolkitRouteFetchesFromTheLabMirror();
    void kernelNotRegistered_isNotGreen();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
    };
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        return env;
    }
    Run tfsetup(const QStringList &arguments)
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), QStringList{QStringLiteral("install")} + arguments);
        p.waitForFinished(60000);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    QString writeProfile()
    {
        const QString path = m_home.filePath(QStringLiteral("lab.json"));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        // Libraries and launchers only: the venv and pip are covered by core_venv.
        f.write(R"({"schema": 1, "title": "CLI test", "environment": "tf-cli", "installFolder": "${HOME}/envs",
                    "interpreter": "none", "plan": {"route": "linux-pip", "tensorflow": "2.15.1"},
                    "kernel": {"name": "tf-cli", "displayName": "TF CLI"}})");
        return path;
    }
    QTemporaryDir m_home;
};

void TestInstallCli::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY"))
        QSKIP("TFSETUP_BINARY is not set (run through ctest)");
}

void TestInstallCli::installsThenChangesNothing()
{
    const QString profile = writeProfile();
    const Run first = tfsetup({QStringLiteral("--profile"), profile, QStringLiteral("--yes")});
    QVERIFY2(first.exitCode == 0, qPrintable(first.out + first.err));
    QVERIFY(first.out.contains(QStringLiteral("[1/10]")));
    QVERIFY(QFile::exists(m_home.filePath(QStringLiteral("envs/tf-cli/start-python"))));
    QVERIFY(QFile::exists(m_home.filePath(QStringLiteral("envs/tf-cli/environment.json"))));
    QVERIFY(QFile::exists(m_home.filePath(QStringLiteral("data/jupyter/kernels/tf-cli/kernel.json"))));

    const Run second = tfsetup(
        {QStringLiteral("--profile"), profile, QStringLiteral("--yes"), QStringLiteral("--json")});
    QCOMPARE(second.exitCode, 0);
    const QJsonObject result = QJsonDocument::fromJson(second.out.toUtf8()).object();
    QCOMPARE(result.value(QStringLiteral("ok")).toBool(), true);
    QCOMPARE(result.value(QStringLiteral("unchanged")).toBool(), true);
}

void TestInstallCli::withoutYesOnlyTells()
{
    const Run run = tfsetup({QStringLiteral("--profile"), writeProfile(), QStringLiteral("--prefix"),
                             m_home.filePath(QStringLiteral("other"))});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.contains(QStringLiteral("--yes")));
    QVERIFY(!QFile::exists(m_home.filePath(QStringLiteral("other"))));
}

void TestInstallCli::missingProfileFails()
{
    const Run run = tfsetup({QStringLiteral("--profile"), m_home.filePath(QStringLiteral("nope.json")),
                             QStringLiteral("--yes"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains(QStringLiteral("error:")));
    QCOMPARE(QJsonDocument::fromJson(run.out.toUtf8())
                 .object()
                 .value(QStringLiteral("error"))
                 .toObject()
                 .value(QStringLiteral("code"))
                 .toString(),
             QStringLiteral("profile_unreadable"));
}

// The profile asks for a Jupyter kernel; the user's kernels folder is a link to elsewhere, so
// tfsetup does not write there. The environment is installed, but the run is not reported green:
// a roll-out must see that notebooks will not find the kernel. Once the link is gone, the same
// install registers it and succeeds.
void TestInstallCli::kernelNotRegistered_isNotGreen()
{
    QTemporaryDir elsewhere;
    QVERIFY(elsewhere.isValid());
    const QString kernels = m_home.filePath(QStringLiteral("data/jupyter/kernels"));
    QDir(kernels).removeRecursively();
    QVERIFY(QDir().mkpath(m_home.filePath(QStringLiteral("data/jupyter"))));
    QVERIFY(QFile::link(elsewhere.path(), kernels));
    const QString profile = m_home.filePath(QStringLiteral("kernel.json"));
    QFile f(profile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": 1, "title": "Kernel test", "environment": "tf-kernel", "installFolder": "${HOME}/envs",
                "interpreter": "none", "plan": {"route": "linux-pip", "tensorflow": "2.15.1"},
                "kernel": {"name": "tf-kernel", "displayName": "TF kernel"}})");
    f.close();
    const Run run = tfsetup({QStringLiteral("--profile"), profile, QStringLiteral("--yes"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(result.value(QStringLiteral("ok")).toBool(true), false);
    QCOMPARE(result.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
             QStringLiteral("kernel_not_registered"));
    QVERIFY(QFile::exists(m_home.filePath(QStringLiteral("envs/tf-kernel/environment.json"))));
    QVERIFY(QDir(elsewhere.path()).isEmpty()); // nothing written through the link

    QVERIFY(QFile::remove(kernels));
    const Run again = tfsetup({QStringLiteral("--profile"), profile, QStringLiteral("--yes")});
    QVERIFY2(again.exitCode == 0, qPrintable(again.out + again.err));
    QVERIFY(QFile::exists(kernels + QStringLiteral("/tf-kernel/kernel.json")));
}

void TestInstallCli::toolkitRouteFetchesFromTheLabMirror()
{
    // NVIDIA's real (pinned) manifests, re-hosted by the lab; the archives themselves are not there.
    using tfsetup::test::LoopbackServer;
    using tfsetup::test::Response;
    LoopbackServer lab;
    QVERIFY(lab.start());
    const QString manifests = qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/manifests/");
    for (const auto &[path, file] :
         {std::pair{"/compute/cuda/redist/redistrib_12.5.1.json", "cuda/redistrib_12.5.1.json"},
          std::pair{"/compute/cudnn/redist/redistrib_8.9.7.json", "cudnn/redistrib_8.9.7.json"}}) {
        QFile f(manifests + QLatin1String(file));
        QVERIFY(f.open(QIODevice::ReadOnly));
        lab.route(path, Response::bytes(f.readAll(), "application/json"));
    }
    const QString path = m_home.filePath(QStringLiteral("toolkit.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": 1, "title": "Toolkit lab", "environment": "tf-toolkit", "installFolder": "${HOME}/disk/envs",
                "interpreter": "none", "plan": {"route": "linux-toolkit", "tensorflow": "2.18.0", "cuda": "12.5",
                "cudnn": "8.9"}, "kernel": {"register": false}, "desktopEntry": false})");
    f.close();

    // NVIDIA's archives for this plan want about 9 GB before the first byte is fetched: the run
    // gets a disk of its own, large enough, so the host's free space cannot decide what it says.
    const QString disk = m_home.filePath(QStringLiteral("disk"));
    const auto run = tfsetup::test::runOnDisk(disk, QStringLiteral("64g"), qEnvironmentVariable("TFSETUP_BINARY"),
                                              {QStringLiteral("install"), QStringLiteral("--profile"), path,
                                               QStringLiteral("--yes"), QStringLiteral("--cache"),
                                               disk + QStringLiteral("/shared-cache"), QStringLiteral("--origin"),
                                               QStringLiteral("nvidia=") + lab.url(QStringLiteral("/")).toString()},
                                              60000, environment());
    const QString out = QString::fromUtf8(run.ran.out);
    const QString err = QString::fromUtf8(run.ran.err);
    QCOMPARE(run.ran.exitCode, 1);
    // The manifests were read from the lab, then the first archive was asked for there and named.
    QCOMPARE(lab.hits("/compute/cuda/redist/redistrib_12.5.1.json"), 1);
    QVERIFY2(out.contains(QStringLiteral("Fetching cuda_cudart")), qPrintable(out + err));
    QVERIFY2(err.contains(QStringLiteral("cuda_cudart")), qPrintable(err));
    QVERIFY2(!run.left.contains(QStringLiteral("envs/tf-toolkit")), qPrintable(run.left.join(u' ')));
    QVERIFY2(run.left.contains(QStringLiteral("shared-cache")), qPrintable(run.left.join(u' ')));
}

QTEST_GUILESS_MAIN(TestInstallCli)
#include "test_install_cli.moc"
