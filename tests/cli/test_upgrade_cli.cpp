// `tfsetup upgrade --env DIR`: an environment installed by `tfsetup install --profile` with a
// stand-in TensorFlow 2.15.0 from a loopback index, upgraded to the release the solver chooses for
// a fixture machine on the same route (whatever `tfsetup plan` recommends there with the built-in
// catalog; a stand-in wheel of that version is served too). --dry-run and a run without --yes
// change nothing; a run killed while pip downloads leaves the old environment byte-identical once
// the next run has cleaned up; --yes upgrades, keeps the user's files and verifies.

#include "install/environmentrecord.h"
#include "install/installer.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "support/treesnapshot.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace tfsetup::test;
using namespace Qt::StringLiterals;

class TestUpgradeCli final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dryRun_changesNothing();
    void withoutYes_onlyTells();
    void killedUpgrade_leavesTheOldEnvironment();
    void upgrades_keepsTheUsersFiles_andVerifies();
    void notAnEnvironment_isRefused();
    void usage();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
        QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
    };
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"HOME"_s, m_home.path());
        env.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"data"_s));
        env.insert(u"XDG_CACHE_HOME"_s, m_home.filePath(u"cache"_s));
        return env;
    }
    Run tfsetup(const QStringList &arguments)
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
        p.waitForFinished(240000);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    QStringList upgradeArguments(const QStringList &more) const
    {
        return QStringList{u"upgrade"_s, u"--env"_s, m_env, u"--hardware"_s, m_hardware} + more;
    }
    // What an upgrade must leave alone when it does not happen: the install folder and the kernels.
    QString changedSince(const TreeSnapshot &envs, const TreeSnapshot &kernels) const
    {
        return TreeSnapshot::take(m_home.filePath(u"envs"_s)).differenceFrom(envs)
            + TreeSnapshot::take(m_home.filePath(u"data/jupyter/kernels"_s)).differenceFrom(kernels);
    }

    QTemporaryDir m_home;
    LoopbackServer m_server;
    QString m_python;
    QString m_hardware; // tfsetup detect --json of the fixture machine
    QString m_target;   // the release the solver chooses for it on linux-pip
    QString m_env;
};

void TestUpgradeCli::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "TFSETUP_BINARY is not set (run through ctest)");
    m_python = QStandardPaths::findExecutable(u"python3"_s);
    QVERIFY2(!m_python.isEmpty(), "python3 is needed (the .ci/packages list has it)");
    QProcess version;
    version.start(m_python, {u"-c"_s, u"import platform; print(platform.python_version())"_s});
    QVERIFY(version.waitForFinished(30000));
    const QString pythonVersion = QString::fromUtf8(version.readAllStandardOutput()).trimmed();
    const QString minor = pythonVersion.section(u'.', 0, 1);

    // An RTX 3060 with a current driver, and this machine's Python.
    m_hardware = m_home.filePath(u"machine.json"_s);
    QFile machine(m_hardware);
    QVERIFY(machine.open(QIODevice::WriteOnly));
    machine.write(
        QJsonDocument(
            QJsonObject{
                {u"os"_s,
                 QJsonObject{{u"family"_s, u"linux"_s},
                             {u"version"_s, u"Debian 12"_s},
                             {u"arch"_s, u"x86_64"_s},
                             {u"wsl"_s, 0}}},
                {u"cpu"_s,
                 QJsonObject{{u"name"_s, u"Fixture CPU"_s}, {u"avx"_s, true}, {u"avx2"_s, true}, {u"fma"_s, true}}},
                {u"gpus"_s,
                 QJsonArray{QJsonObject{{u"vendor"_s, u"nvidia"_s},
                                        {u"name"_s, u"NVIDIA GeForce RTX 3060"_s},
                                        {u"compute_capability"_s, u"8.6"_s},
                                        {u"source"_s, u"nvml"_s}}}},
                {u"driver"_s,
                 QJsonObject{{u"version"_s, u"580.65.06"_s}, {u"cuda"_s, u"13.0"_s}, {u"source"_s, u"nvml"_s}}},
                {u"pythons"_s,
                 QJsonArray{QJsonObject{{u"path"_s, m_python},
                                        {u"version"_s, pythonVersion},
                                        {u"kind"_s, u"system"_s},
                                        {u"bits"_s, 64},
                                        {u"source"_s, u"path"_s}}}}})
            .toJson());
    machine.close();

    // The solver's own answer for that machine on the route, with the driver and Python as they are.
    const Run plan = tfsetup({u"plan"_s, u"--hardware"_s, m_hardware, u"--route"_s, u"linux-pip"_s, u"--keep-driver"_s,
                              u"--python"_s, minor, u"--json"_s});
    QVERIFY2(plan.exitCode == 0, qPrintable(plan.out + plan.err));
    m_target = plan.json().value(u"recommended"_s).toObject().value(u"tensorflow"_s).toString();
    QVERIFY(!m_target.isEmpty());
    QVERIFY2(m_target.section(u'.', 0, 1) != u"2.15"_s, qPrintable(m_target));

    QVERIFY(m_server.start());
    QByteArray tensorflowLinks;
    QByteArray slowLinks;
    for (const QString &v : {u"2.15.0"_s, m_target}) {
        const QString file = u"tensorflow-"_s + v + u"-py3-none-any.whl"_s;
        QVERIFY(
            buildWheel(m_python, m_home.filePath(file), u"tensorflow"_s, v, "__version__ = \"" + v.toUtf8() + "\"\n"));
        const QByteArray bytes = readFile(m_home.filePath(file));
        const QByteArray sha = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        m_server.route("/files/" + file.toUtf8(), Response::bytes(bytes));
        // The same file, so slow to come that the run is killed while tfsetup fetches it; the index serves
        // its metadata (PEP 658), so pip's resolver locks it without the wheel and the wait is in the fetch.
        m_server.route("/slowfiles/" + file.toUtf8(), Response::bytes(bytes).delayHeaders(std::chrono::seconds(120)));
        const QByteArray metadata = wheelMetadata(m_home.filePath(file));
        m_server.route("/slowfiles/" + file.toUtf8() + ".metadata", Response::bytes(metadata));
        tensorflowLinks += "<a href=\"/files/" + file.toUtf8() + "#sha256=" + sha + "\">" + file.toUtf8() + "</a>";
        slowLinks += "<a href=\"/slowfiles/" + file.toUtf8() + "#sha256=" + sha + "\" data-dist-info-metadata=\"sha256="
            + QCryptographicHash::hash(metadata, QCryptographicHash::Sha256).toHex() + "\">" + file.toUtf8() + "</a>";
    }
    const QString kernelFile = u"ipykernel-6.0.0-py3-none-any.whl"_s;
    QVERIFY(buildWheel(m_python, m_home.filePath(kernelFile), u"ipykernel"_s, u"6.0.0"_s, "\n", u"ipykernel"_s));
    const QByteArray kernel = readFile(m_home.filePath(kernelFile));
    m_server.route("/files/" + kernelFile.toUtf8(), Response::bytes(kernel));
    const QByteArray kernelLink = "<a href=\"/files/" + kernelFile.toUtf8() + "#sha256="
        + QCryptographicHash::hash(kernel, QCryptographicHash::Sha256).toHex() + "\">" + kernelFile.toUtf8() + "</a>";
    // The lab's extra package, which an upgrade keeps.
    const QString extraFile = u"labextra-1.0-py3-none-any.whl"_s;
    QVERIFY(buildWheel(m_python, m_home.filePath(extraFile), u"labextra"_s, u"1.0"_s, "__version__ = \"1.0\"\n",
                       u"labextra"_s));
    const QByteArray extra = readFile(m_home.filePath(extraFile));
    m_server.route("/files/" + extraFile.toUtf8(), Response::bytes(extra));
    const QByteArray extraLink = "<a href=\"/files/" + extraFile.toUtf8() + "#sha256="
        + QCryptographicHash::hash(extra, QCryptographicHash::Sha256).toHex() + "\">" + extraFile.toUtf8() + "</a>";
    for (const QByteArray index : {"/simple/", "/slow/"}) {
        m_server.route(
            index + "tensorflow/",
            Response::bytes("<html><body>" + (index == "/slow/" ? slowLinks : tensorflowLinks) + "</body></html>",
                            "text/html"));
        m_server.route(index + "ipykernel/",
                       Response::bytes("<html><body>" + kernelLink + "</body></html>", "text/html"));
        m_server.route(index + "labextra/",
                       Response::bytes("<html><body>" + extraLink + "</body></html>", "text/html"));
    }

    // The environment, as a lab installs it.
    const QString profile = m_home.filePath(u"lab.json"_s);
    QFile f(profile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(
                QJsonObject{
                    {u"schema"_s, 1},
                    {u"title"_s, u"Upgrade test"_s},
                    {u"environment"_s, u"tf-lab"_s},
                    {u"installFolder"_s, u"${HOME}/envs"_s},
                    {u"interpreter"_s, m_python},
                    {u"jupyter"_s, false},
                    {u"plan"_s,
                     QJsonObject{{u"route"_s, u"linux-pip"_s},
                                 {u"tensorflow"_s, u"2.15.0"_s},
                                 {u"package"_s, u"tensorflow[and-cuda]"_s},
                                 {u"python"_s, minor},
                                 {u"requirements"_s, QJsonArray{u"tensorflow[and-cuda]==2.15.*"_s, u"labextra"_s}}}},
                    {u"mirrors"_s, QJsonObject{{u"pypi"_s, QJsonArray{m_server.url(u"/simple/"_s).toString()}}}},
                    {u"kernel"_s, QJsonObject{{u"name"_s, u"tf-lab"_s}, {u"register"_s, true}}},
                    {u"desktopEntry"_s, false}})
                .toJson());
    f.close();
    const Run install = tfsetup({u"install"_s, u"--profile"_s, profile, u"--yes"_s});
    QVERIFY2(install.exitCode == 0, qPrintable(install.out + install.err));
    m_env = m_home.filePath(u"envs/tf-lab"_s);
    QCOMPARE(tfsetup::core::EnvironmentRecord::read(m_env)->packageVersion(u"tensorflow"_s), u"2.15.0"_s);
}

void TestUpgradeCli::dryRun_changesNothing()
{
    const TreeSnapshot envs = TreeSnapshot::take(m_home.filePath(u"envs"_s));
    const TreeSnapshot kernels = TreeSnapshot::take(m_home.filePath(u"data/jupyter/kernels"_s));
    const Run run = tfsetup(upgradeArguments({u"--dry-run"_s, u"--json"_s}));
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    const QJsonObject out = run.json();
    QCOMPARE(out.value(u"ok"_s).toBool(), true);
    QCOMPARE(out.value(u"dry_run"_s).toBool(), true);
    QCOMPARE(out.value(u"status"_s).toString(), u"upgrade"_s);
    QCOMPARE(out.value(u"from"_s).toObject().value(u"tensorflow"_s).toString(), u"2.15.0"_s);
    QCOMPARE(out.value(u"to"_s).toObject().value(u"tensorflow"_s).toString(), m_target);
    QCOMPARE(out.value(u"to"_s).toObject().value(u"route"_s).toString(), u"linux-pip"_s);
    // pip's resolver locked the new release's wheel; every file of the lock is a download.
    const QJsonObject download = out.value(u"download"_s).toObject();
    QVERIFY2(download.value(u"pip"_s).toArray().contains(QString(u"tensorflow=="_s + m_target)), qPrintable(run.out));
    QCOMPARE(download.value(u"files"_s).toInt(), download.value(u"pip"_s).toArray().size());
    const QString diff = changedSince(envs, kernels);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    const Run text = tfsetup(upgradeArguments({u"--dry-run"_s}));
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(u"2.15.0 → "_s + m_target), qPrintable(text.out));
}

void TestUpgradeCli::withoutYes_onlyTells()
{
    const TreeSnapshot envs = TreeSnapshot::take(m_home.filePath(u"envs"_s));
    const TreeSnapshot kernels = TreeSnapshot::take(m_home.filePath(u"data/jupyter/kernels"_s));
    const Run run = tfsetup(upgradeArguments({}));
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.contains(u"--yes"_s));
    const QString diff = changedSince(envs, kernels);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestUpgradeCli::killedUpgrade_leavesTheOldEnvironment()
{
    const TreeSnapshot envs = TreeSnapshot::take(m_home.filePath(u"envs"_s));
    const TreeSnapshot kernels = TreeSnapshot::take(m_home.filePath(u"data/jupyter/kernels"_s));
    const auto expectOldEnvironment = [&] {
        // What the next run does first: the staging folder goes, the old environment stays.
        const auto recovered = tfsetup::core::Installer::recoverLeftovers(m_home.filePath(u"envs"_s), u"tf-lab"_s);
        QVERIFY2(recovered, qPrintable(recovered ? QString() : recovered.error().message));
        const QString diff = changedSince(envs, kernels);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QProcess python;
        python.start(m_env + u"/start-python"_s, {u"-c"_s, u"import tensorflow; print(tensorflow.__version__)"_s});
        QVERIFY(python.waitForFinished(30000));
        QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()).trimmed(), u"2.15.0"_s);
    };
    const auto kill = [](QProcess &p) {
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    };

    // Killed while the new wheel downloads (a download folder of its own, so nothing is there yet).
    {
        const QByteArray wheel = "/slowfiles/tensorflow-" + m_target.toUtf8() + "-py3-none-any.whl";
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                upgradeArguments({u"--yes"_s, u"--no-verify"_s, u"--cache"_s, m_home.filePath(u"cache-slow"_s),
                                  u"--mirror"_s, u"pypi="_s + m_server.url(u"/slow/"_s).toString()}));
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(m_server.hits(wheel) >= 1 || p.state() == QProcess::NotRunning, 180000);
        QVERIFY2(p.state() == QProcess::Running,
                 qPrintable(QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())));
        kill(p);
        expectOldEnvironment();
    }
    if (QTest::currentTestFailed())
        return;

    // Killed while the new version is built beside the old one: the staging folder holds a venv.
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                upgradeArguments({u"--yes"_s, u"--no-verify"_s, u"--cache"_s, m_home.filePath(u"cache-staging"_s)}));
        QVERIFY(p.waitForStarted());
        const auto stagingVenv = [this] {
            const QStringList leftovers = QDir(m_home.filePath(u"envs"_s))
                                              .entryList({u".tf-lab.*"_s},
                                                         QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
            for (const QString &name : leftovers) {
                if (QFileInfo::exists(m_home.filePath(u"envs/"_s + name + u"/venv"_s)))
                    return true;
            }
            return false;
        };
        QElapsedTimer waited;
        waited.start();
        while (!stagingVenv() && p.state() != QProcess::NotRunning && waited.elapsed() < 180000)
            p.waitForFinished(5);
        QVERIFY2(p.state() == QProcess::Running,
                 qPrintable(QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())));
        kill(p);
        expectOldEnvironment();
    }
}

void TestUpgradeCli::upgrades_keepsTheUsersFiles_andVerifies()
{
    QFile mine(m_env + u"/notes.md"_s);
    QVERIFY(mine.open(QIODevice::WriteOnly));
    mine.write("# my notes\n");
    mine.close();
    const Run run = tfsetup(upgradeArguments({u"--yes"_s, u"--json"_s}));
    const QJsonObject out = run.json();
    QVERIFY2(!out.isEmpty(), qPrintable(run.out + run.err));
    QVERIFY2(out.value(u"error"_s).isUndefined(), qPrintable(run.out + run.err));
    // Verified: the load probe and TensorFlow ran; on a machine without NVIDIA's libraries the stand-in
    // fails there, and the exit status says which.
    const QJsonObject verify = out.value(u"verify"_s).toObject();
    QVERIFY2(!verify.value(u"layers"_s).toArray().isEmpty(), qPrintable(run.out));
    QCOMPARE(out.value(u"ok"_s).toBool(), verify.value(u"passed"_s).toBool());
    QCOMPARE(run.exitCode, verify.value(u"passed"_s).toBool() ? 0 : 1);
    QCOMPARE(out.value(u"dry_run"_s).toBool(true), false);

    const auto record = tfsetup::core::EnvironmentRecord::read(m_env);
    QVERIFY(record);
    QCOMPARE(record->packageVersion(u"tensorflow"_s), m_target);
    QCOMPARE(readFile(m_env + u"/notes.md"_s), QByteArray("# my notes\n"));
    // The profile's extra package came along: asked for, locked and installed.
    QVERIFY2(record->plan().extraRequirements().contains(u"labextra"_s),
             qPrintable(record->plan().extraRequirements().join(u' ')));
    QVERIFY(record->lock.find(u"labextra"_s));
    QCOMPARE(record->packageVersion(u"labextra"_s), u"1.0"_s);
    const QJsonObject kernel =
        QJsonDocument::fromJson(readFile(m_home.filePath(u"data/jupyter/kernels/tf-lab/kernel.json"_s))).object();
    QVERIFY2(kernel.value(u"display_name"_s).toString().contains(m_target),
             qPrintable(kernel.value(u"display_name"_s).toString()));

    // Nothing newer is left to propose.
    const Run again = tfsetup(upgradeArguments({u"--dry-run"_s, u"--json"_s}));
    QCOMPARE(again.json().value(u"status"_s).toString(), u"current"_s);
    QCOMPARE(again.exitCode, 0);
}

void TestUpgradeCli::notAnEnvironment_isRefused()
{
    const QString folder = m_home.filePath(u"project"_s);
    QVERIFY(QDir().mkpath(folder));
    QFile f(folder + u"/train.py"_s);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("print(1)\n");
    f.close();
    const TreeSnapshot before = TreeSnapshot::take(folder);
    const Run run = tfsetup({u"upgrade"_s, u"--env"_s, folder, u"--hardware"_s, m_hardware, u"--yes"_s, u"--json"_s});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.json().value(u"error"_s).toObject().value(u"code"_s).toString(), u"not_environment"_s);
    QVERIFY(run.err.contains(u"error:"_s));
    QCOMPARE(TreeSnapshot::take(folder), before);
}

void TestUpgradeCli::usage()
{
    QCOMPARE(tfsetup({u"upgrade"_s}).exitCode, 2);
    QCOMPARE(tfsetup({u"upgrade"_s, u"--env"_s, m_env, u"--offline"_s}).exitCode, 2);
    const Run help = tfsetup({u"upgrade"_s, u"--help"_s});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(u"--dry-run"_s));
    QVERIFY(help.out.contains(u"--tf"_s));
}

QTEST_GUILESS_MAIN(TestUpgradeCli)
#include "test_upgrade_cli.moc"
