// No Python of the plan's version on a Windows machine: the installer runs python.org's installer
// (verified first, by SHA-256 or, where python.org publishes nothing stronger, MD5), silently and
// per user, into <prefix>\.python-<version>, and makes the venv from it. A second environment of
// the same Python reuses it; a changed installer file never runs; a failed installer is named.
// The Windows programs are played by a scripted system view over a fixture drive.

#include "install/installer.h"
#include "support/coroutinetest.h"
#include "support/fixturetree.h"
#include "support/shippedknowledge.h"
#include "support/wheellock.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTest>

using namespace tfsetup;
using namespace tfsetup::test;
using core::InstallArtifact;
using core::Installer;
using core::InstallSpec;
using core::OsFamily;
using core::ProcessRequest;
using core::ProcessResult;

namespace {

const QString prefix = QStringLiteral("C:/Users/student/tfsetup-envs");

// Forwards to a fixture view; plays python.org's installer (writes python.exe into TargetDir),
// `python -m venv DIR` (writes DIR\Scripts\python.exe and pyvenv.cfg) and pip (succeeds), and
// writes down every program it was asked to run.
class ScriptedWindows final : public core::SystemView {
public:
    explicit ScriptedWindows(core::SystemView &inner)
        : m_inner(inner)
    {}

    QStringList runs;
    int installerExitCode = 0;

    OsFamily os() const override { return m_inner.os(); }
    QString arch() const override { return m_inner.arch(); }
    QString hostPath(const QString &path) const override { return m_inner.hostPath(path); }
    QString env(const QString &name) const override { return m_inner.env(name); }
    QStringList envNames() const override { return m_inner.envNames(); }
    QCoro::Task<ProcessResult> run(QString program, QStringList arguments, std::chrono::milliseconds) override
    {
        runs.append(QFileInfo(program).fileName() + u' ' + arguments.join(u' '));
        ProcessResult r;
        r.started = true;
        r.exitCode = 0;
        if (program.endsWith(QStringLiteral("-amd64.exe"))) {
            r.exitCode = installerExitCode;
            for (const QString &a : std::as_const(arguments)) {
                if (a.startsWith(QStringLiteral("TargetDir=")) && installerExitCode == 0)
                    write(m_inner.hostPath(a.mid(10)) + QStringLiteral("/python.exe"), "MZ python");
            }
        } else if (arguments.size() == 3 && arguments.at(0) == u"-m" && arguments.at(1) == u"venv") {
            write(arguments.at(2) + QStringLiteral("/Scripts/python.exe"), "MZ venv python");
            write(arguments.at(2) + QStringLiteral("/pyvenv.cfg"), "home = x\nversion = 3.10.11\n");
        }
        co_return r;
    }
    QCoro::Task<ProcessResult> runWatched(ProcessRequest request) override
    {
        return run(request.program, request.arguments, request.timeout);
    }
    core::LibraryLoad loadLibrary(const QString &name) override { return m_inner.loadLibrary(name); }
    std::optional<QVariant> registryValue(const QString &key, const QString &name) const override
    {
        return m_inner.registryValue(key, name);
    }
    QStringList registrySubkeys(const QString &key) const override { return m_inner.registrySubkeys(key); }
    std::optional<core::CpuIdFeatures> cpuid() const override { return m_inner.cpuid(); }

private:
    static void write(const QString &path, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(bytes);
    }
    core::SystemView &m_inner;
};

QByteArray digest(const QString &path, QCryptographicHash::Algorithm algorithm)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), algorithm).toHex();
}

} // namespace

class TestInstallPythonOrg : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_lockedWith.clear();
        m_tree = std::make_unique<FixtureTree>();
        QVERIFY(m_tree->write({{QStringLiteral("C/Users/student/"), {}}}));
        QVERIFY(m_tree->writeEnv({{QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")},
                                  {QStringLiteral("APPDATA"), QStringLiteral("C:\\Users\\student\\AppData\\Roaming")},
                                  {QStringLiteral("PATH"), QStringLiteral("C:\\Windows\\System32")}}));
        m_view = m_tree->open(OsFamily::Windows);
        QVERIFY(m_view);
        m_windows = std::make_unique<ScriptedWindows>(*m_view);
        m_setup = m_tree->filePath(QStringLiteral("downloads/python-3.10.11-amd64.exe"));
        QDir().mkpath(QFileInfo(m_setup).absolutePath());
        QFile f(m_setup);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("MZ stand-in for python.org's installer");
    }

    void cleanup()
    {
        m_windows.reset();
        m_view.reset();
        m_tree.reset();
    }

    void runsPythonOrgsInstallerPerUser_data()
    {
        QTest::addColumn<bool>("md5Only");
        QTest::newRow("sha-256 published") << false;
        QTest::newRow("md5 only (older releases)") << true;
    }

    void runsPythonOrgsInstallerPerUser()
    {
        QFETCH(bool, md5Only);
        const auto outcome = install(spec(QStringLiteral("tf-a"), md5Only));
        QVERIFY2(outcome.ok(), outcome.ok() ? "" : qPrintable(outcome.error().message + u' ' + outcome.error().detail));
        QCOMPARE(m_windows->runs.size(), 4); // installer, venv, pip install, pip freeze
        const QString installer = m_windows->runs.at(0);
        QVERIFY2(installer.startsWith(
                     QStringLiteral("python-3.10.11-amd64.exe /quiet InstallAllUsers=0 "
                                    "TargetDir=C:\\Users\\student\\tfsetup-envs\\.python-3.10.11 PrependPath=0")),
                 qPrintable(installer));
        QVERIFY(installer.contains(QStringLiteral("Include_launcher=0")));
        QVERIFY(m_windows->runs.at(1).startsWith(QStringLiteral("python.exe -m venv ")));
        QVERIFY(m_windows->runs.at(2).startsWith(QStringLiteral("python.exe -m pip install ")));
        QVERIFY2(m_windows->runs.at(2).contains(QStringLiteral("--no-index")), qPrintable(m_windows->runs.at(2)));
        // The lock was made with the new environment's own Python.
        QCOMPARE(m_lockedWith.size(), 1);
        QVERIFY2(m_lockedWith.first().endsWith(QStringLiteral("/venv/Scripts/python.exe")),
                 qPrintable(m_lockedWith.first()));
        QVERIFY(QFile::exists(m_view->hostPath(prefix + QStringLiteral("/.python-3.10.11/python.exe"))));
        QVERIFY(QFile::exists(m_view->hostPath(prefix + QStringLiteral("/tf-a/venv/Scripts/python.exe"))));
    }

    void aSecondEnvironmentReusesIt()
    {
        QVERIFY(install(spec(QStringLiteral("tf-a"))).ok());
        m_windows->runs.clear();
        QVERIFY(install(spec(QStringLiteral("tf-b"))).ok());
        for (const QString &r : std::as_const(m_windows->runs))
            QVERIFY2(!r.contains(QStringLiteral("-amd64.exe")), qPrintable(r));
        QVERIFY(QFile::exists(m_view->hostPath(prefix + QStringLiteral("/tf-b/venv/Scripts/python.exe"))));
    }

    void aChangedInstallerNeverRuns()
    {
        InstallSpec s = spec(QStringLiteral("tf-a"));
        QFile f(m_setup);
        QVERIFY(f.open(QIODevice::Append));
        f.write("tampered");
        f.close();
        const auto outcome = install(s);
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.error().code, QStringLiteral("artifact_changed"));
        QVERIFY(outcome.error().message.contains(QStringLiteral("python-3.10.11-amd64.exe")));
        QVERIFY(m_windows->runs.isEmpty());
        QVERIFY(!QFileInfo::exists(m_view->hostPath(prefix + QStringLiteral("/tf-a"))));
    }

    void aFailedInstallerIsNamedAndLeavesNoEnvironment()
    {
        m_windows->installerExitCode = 1603; // Windows Installer's "fatal error during installation"
        const auto outcome = install(spec(QStringLiteral("tf-a")));
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.error().code, QStringLiteral("python_install_failed"));
        QVERIFY(outcome.error().message.contains(QStringLiteral("1603")));
        QVERIFY(outcome.error().message.contains(QStringLiteral("python-3.10.11-amd64.exe")));
        QVERIFY(!QFileInfo::exists(m_view->hostPath(prefix + QStringLiteral("/tf-a"))));
    }

private:
    InstallSpec spec(const QString &name, bool md5Only = false) const
    {
        InstallSpec s;
        s.name = name;
        s.prefix = prefix;
        s.route = QStringLiteral("cpu");
        s.tensorflow = QStringLiteral("2.10.0");
        s.package = QStringLiteral("tensorflow");
        s.python = QStringLiteral("3.10");
        s.requirements = {QStringLiteral("tensorflow==2.10.*")};
        s.registerKernel = false;
        s.desktopEntry = false;
        InstallArtifact setup{QStringLiteral("python-installer"),
                              QStringLiteral("python"),
                              QStringLiteral("3.10.11"),
                              QStringLiteral("windows-x86_64"),
                              {},
                              m_setup,
                              QStringLiteral("https://www.python.org/ftp/python/3.10.11/python-3.10.11-amd64.exe"),
                              {QStringLiteral("/quiet"), QStringLiteral("InstallAllUsers=0"),
                               QStringLiteral("TargetDir={prefix}"), QStringLiteral("PrependPath=0"),
                               QStringLiteral("Include_launcher=0")},
                              {}};
        if (md5Only)
            setup.md5 = digest(m_setup, QCryptographicHash::Md5);
        else
            setup.sha256 = digest(m_setup, QCryptographicHash::Sha256);
        s.artifacts.append(setup);
        return s;
    }
    core::Result<core::InstallOutcome> install(const InstallSpec &s)
    {
        Installer installer(*m_windows, test::shippedKnowledge());
        // No Python before the install, so no lock before it: the installer asks for one with the
        // new environment's interpreter (SetupPipeline::lateLocker in the application).
        const QString wheel = m_tree->filePath(QStringLiteral("downloads/tensorflow-2.10.0-cp310-cp310-win_amd64.whl"));
        QFile file(wheel);
        if (!file.exists() && file.open(QIODevice::WriteOnly))
            file.write("PK stand-in wheel");
        file.close();
        QStringList *askedWith = &m_lockedWith;
        installer.setPackageLocker(
            [wheel, askedWith](QString python) -> QCoro::Task<core::Result<Installer::LockedPackages>> {
                askedWith->append(python);
                const LockedFiles locked = lockWheels({wheel});
                co_return Installer::LockedPackages{locked.lock, locked.artifacts};
            });
        auto result = awaitTask(installer.install(s), std::chrono::seconds(60));
        return result ? *result : core::Result<core::InstallOutcome>(core::Error{QStringLiteral("timeout"), {}, {}});
    }

    std::unique_ptr<FixtureTree> m_tree;
    std::unique_ptr<core::RootedSystem> m_view;
    std::unique_ptr<ScriptedWindows> m_windows;
    QString m_setup;
    QStringList m_lockedWith; // the interpreters the installer locked with
};

QTEST_GUILESS_MAIN(TestInstallPythonOrg)
#include "test_install_pythonorg.moc"
