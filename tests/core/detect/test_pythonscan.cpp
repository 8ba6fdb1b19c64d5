#include "detect/scanners.h"
#include "support/coroutinetest.h"
#include "support/fixturetree.h"

#include <QFile>
#include <QTest>

using namespace tfsetup::core;
using namespace tfsetup::test;
using namespace Qt::Literals::StringLiterals;

namespace {

QByteArray sample(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/parsers/"_L1 + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

HardwareReport scan(SystemView &view)
{
    HardwareReport report;
    DetectOptions options;
    options.processTimeout = std::chrono::milliseconds(2000);
    const auto done = awaitTask(scanPythons(view, report, options));
    if (!done)
        qWarning("scanPythons did not finish");
    return report;
}

const PythonInfo *find(const HardwareReport &report, const QString &path)
{
    for (const PythonInfo &p : report.pythons) {
        if (p.path == path)
            return &p;
    }
    return nullptr;
}

} // namespace

class TestPythonScan : public QObject {
    Q_OBJECT

private slots:
    void windowsFixture()
    {
        const QString dir = qEnvironmentVariable("TFSETUP_TEST_DATA") + "/fixtures/windows-two-toolkits"_L1;
        auto view = RootedSystem::open(dir + "/root"_L1, OsFamily::Windows, dir + "/env"_L1);
        QVERIFY(view);
        const HardwareReport report = scan(**view);
        // python.org 3.10 (PATH, py launcher and registry all name it) and the conda base; the
        // zero-byte WindowsApps aliases are not interpreters.
        QCOMPARE(report.pythons.size(), 2);
        const PythonInfo *org = find(report, u"C:/Users/student/AppData/Local/Programs/Python/Python310/python.exe"_s);
        QVERIFY(org);
        QCOMPARE(org->version, u"3.10.11"_s);
        QCOMPARE(org->kind, u"system"_s);
        QCOMPARE(org->source, u"path"_s);
        QCOMPARE(org->bits, 64); // from the registry's SysArchitecture
        const PythonInfo *conda = find(report, u"C:/Users/student/miniconda3/python.exe"_s);
        QVERIFY(conda);
        QCOMPARE(conda->kind, u"conda"_s);
        QCOMPARE(conda->version, u"3.10.13"_s);
        QCOMPARE(conda->bits, 64);
        QVERIFY(report.problems.isEmpty());
    }

    void storePythonIsReportedAndStubsAreNot()
    {
        const QString apps = u"C/Users/student/AppData/Local/Microsoft/WindowsApps"_s;
        FixtureTree tree;
        QVERIFY(tree.write({{apps + "/python.exe"_L1, {}},
                            {apps + "/python3.exe"_L1, {}},
                            {apps + "/PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0/python.exe"_L1, {}}}));
        QVERIFY(tree.writeEnv(
            {{u"PATH"_s, u"C:\\Windows\\system32;C:\\Users\\student\\AppData\\Local\\Microsoft\\WindowsApps"_s}}));
        QVERIFY(tree.writeSystem(SystemDescription().command(u"python"_s, {u"-c"_s, u"*"_s}, "3.12.8 64\r\n")));
        auto view = tree.open(OsFamily::Windows);
        const HardwareReport report = scan(*view);
        QCOMPARE(report.pythons.size(), 1);
        QCOMPARE(report.pythons[0].kind, u"store"_s);
        QCOMPARE(report.pythons[0].version, u"3.12.8"_s); // the folder said 3.12; the probe said more
        QCOMPARE(report.pythons[0].bits, 64);
    }

    void onlyStoreStubsMeansNoPython()
    {
        FixtureTree tree;
        QVERIFY(tree.write(u"C/Users/student/AppData/Local/Microsoft/WindowsApps/python.exe"_s, {}));
        QVERIFY(tree.writeEnv({{u"PATH"_s, u"C:\\Users\\student\\AppData\\Local\\Microsoft\\WindowsApps"_s}}));
        auto view = tree.open(OsFamily::Windows);
        QVERIFY(scan(*view).pythons.isEmpty());
    }

    void pyLauncherFindsWhatPathDoesNot()
    {
        FixtureTree tree;
        QVERIFY(tree.write(
            {{u"C/Windows/py.exe"_s, "MZ"}, {u"C/Python39/python.exe"_s, "MZ"}, {u"C/Python39/python39.dll"_s, {}}}));
        QVERIFY(tree.writeEnv({{u"PATH"_s, u"C:\\Windows"_s}}));
        QVERIFY(tree.writeSystem(SystemDescription().command(
            u"py"_s, {u"-0p"_s},
            "Installed Pythons found by py Launcher for Windows\r\n -3.9-64        C:\\Python39\\python.exe *\r\n")));
        auto view = tree.open(OsFamily::Windows);
        const HardwareReport report = scan(*view);
        QCOMPARE(report.pythons.size(), 1);
        QCOMPARE(report.pythons[0].path, u"C:/Python39/python.exe"_s);
        QCOMPARE(report.pythons[0].source, u"py-launcher"_s);
        QCOMPARE(report.pythons[0].bits, 64);
        // The DLL said 3.9 and nothing answered the probe: the partial version stays, quietly.
        QCOMPARE(report.pythons[0].version, u"3.9"_s);
        QVERIFY(report.problems.isEmpty());
    }

    void pyLauncherFailureIsAProblem()
    {
        FixtureTree tree;
        QVERIFY(tree.write(u"C/Windows/py.exe"_s, "MZ"));
        QVERIFY(tree.writeSystem(SystemDescription().commandTimesOut(u"py"_s)));
        auto view = tree.open(OsFamily::Windows);
        const HardwareReport report = scan(*view);
        QVERIFY(report.pythons.isEmpty());
        QCOMPARE(report.problems.size(), 1);
        QCOMPARE(report.problems[0].method, u"py-launcher"_s);
    }

    void linuxKinds()
    {
        const QString home = u"home/student"_s;
        FixtureTree tree;
        QVERIFY(tree.write({
            {home + "/proj/.venv/bin/python"_L1, "#!"},
            {home + "/proj/.venv/pyvenv.cfg"_L1, sample(u"pyvenv/venv-3.10.11.cfg"_s)},
            {home + "/miniconda3/bin/python"_L1, "ELF"},
            {home + "/miniconda3/conda-meta/python-3.11.5-h955ad1f_0.json"_L1, R"({"subdir": "linux-64"})"},
            {home + "/miniconda3/envs/tf/bin/python"_L1, "ELF"},
            {home + "/miniconda3/envs/tf/conda-meta/python-3.9.18-h955ad1f_0.json"_L1, R"({"subdir": "linux-64"})"},
            {home + "/.pyenv/versions/3.8.18/bin/python"_L1, "ELF"},
            {home + "/.pyenv/shims/python"_L1, "#!/usr/bin/env bash"},
        }));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s},
                               {u"PATH"_s, u"/home/student/proj/.venv/bin:/home/student/.pyenv/shims:/usr/bin"_s}}));
        auto view = tree.open(OsFamily::Linux);
        const HardwareReport report = scan(*view);
        QCOMPARE(report.pythons.size(), 4); // the pyenv shim is not an interpreter

        const PythonInfo *venv = find(report, u"/home/student/proj/.venv/bin/python"_s);
        QVERIFY(venv);
        QCOMPARE(venv->kind, u"venv"_s);
        QCOMPARE(venv->version, u"3.10.11"_s);
        QCOMPARE(venv->source, u"path"_s);
        const PythonInfo *base = find(report, u"/home/student/miniconda3/bin/python"_s);
        QVERIFY(base);
        QCOMPARE(base->kind, u"conda"_s);
        QCOMPARE(base->version, u"3.11.5"_s);
        QCOMPARE(base->bits, 64);
        const PythonInfo *env = find(report, u"/home/student/miniconda3/envs/tf/bin/python"_s);
        QVERIFY(env);
        QCOMPARE(env->kind, u"conda"_s);
        QCOMPARE(env->version, u"3.9.18"_s);
        const PythonInfo *pyenv = find(report, u"/home/student/.pyenv/versions/3.8.18/bin/python"_s);
        QVERIFY(pyenv);
        QCOMPARE(pyenv->kind, u"pyenv"_s);
        QCOMPARE(pyenv->version, u"3.8.18"_s);
    }

    void symlinkedInterpreterCountsOnce()
    {
        const QString dir = qEnvironmentVariable("TFSETUP_TEST_DATA") + "/fixtures/linux-cuda118"_L1;
        auto view = RootedSystem::open(dir + "/root"_L1, OsFamily::Linux, dir + "/env"_L1);
        QVERIFY(view);
        const HardwareReport report = scan(**view);
        // /usr/bin/python3 -> python3.10, both on PATH and in /usr/bin: one interpreter.
        QCOMPARE(report.pythons.size(), 1);
        QCOMPARE(report.pythons[0].path, u"/usr/bin/python3"_s);
        QCOMPARE(report.pythons[0].version, u"3.10.12"_s); // lib/python3.10 said 3.10, the probe the rest
        QCOMPARE(report.pythons[0].bits, 64);
    }

    void probeFailureWithoutAnyVersionIsAProblem()
    {
        FixtureTree tree;
        QVERIFY(tree.write(u"opt/tools/bin/python3"_s, "ELF"));
        QVERIFY(tree.writeEnv({{u"PATH"_s, u"/opt/tools/bin"_s}}));
        QVERIFY(tree.writeSystem(SystemDescription().commandTimesOut(u"python3"_s)));
        auto view = tree.open(OsFamily::Linux);
        const HardwareReport report = scan(*view);
        QCOMPARE(report.pythons.size(), 1);
        QVERIFY(report.pythons[0].version.isEmpty());
        QCOMPARE(report.problems.size(), 1);
        QCOMPARE(report.problems[0].method, u"python"_s);
    }
};

QTEST_GUILESS_MAIN(TestPythonScan)
#include "test_pythonscan.moc"
