// The Windows launchers and the kernelspec's Windows form, executed: the project's own writer
// makes them for an environment laid out as the installer lays out a Windows one, Wine's cmd runs
// the .bat files, and a small Windows program standing in for venv\Scripts\python.exe
// (tests/data/wine/probe.c, built here with MinGW-w64) writes down the arguments, PATH and
// variables it really got. Folders with spaces, & % ! ^ ( ) and Chinese characters, and a PATH
// that already holds another CUDA's bin, an old cuDNN and a conda environment's Library\bin.
//
// The .ps1 launchers are not run: Wine ships no PowerShell (its powershell.exe is a stub that
// prints nothing and runs nothing), so they stay checked line by line in test_launcher.cpp.
//
// Wine's cmd is not Windows' cmd. Each difference that shapes this test has its comment and its
// check in wineDifferencesStillHold (README.md, "Windows: what has been built and run", lists
// them); the rows leave out what Wine alone would get wrong.
// Cost: one Wine prefix per run (wineboot -i, about 10 s on two idle cores, some 700 MB on disk,
// removed at the end) and a persistent wineserver, so each later program starts in a fraction of
// a second; the whole test takes about 20 s on an idle machine.

#include "install/launchers.h"
#include "support/generatedfiles.h"
#include "support/processes.h"
#include "util/i18n.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using core::GeneratedFile;
using core::JupyterSettings;
using core::LauncherContext;
using core::LauncherSettings;
using core::LauncherWriter;
using core::OsFamily;
using test::Ran;

namespace {

constexpr int wineTimeoutMs = 120'000;

// Python's subprocess.list2cmdline, which jupyter_client's Popen uses on Windows to turn the
// kernelspec's argv into the command line CreateProcess gets (CPython Lib/subprocess.py).
QString list2cmdline(const QStringList &arguments)
{
    QString line;
    for (const QString &argument : arguments) {
        if (!line.isEmpty())
            line += u' ';
        const bool quote = argument.isEmpty() || argument.contains(u' ') || argument.contains(u'\t');
        if (quote)
            line += u'"';
        qsizetype backslashes = 0;
        for (const QChar c : argument) {
            if (c == u'\\') {
                ++backslashes;
                continue;
            }
            if (c == u'"') {
                line += QString(backslashes * 2 + 1, u'\\') + u'"';
            } else {
                line += QString(backslashes, u'\\') + c;
            }
            backslashes = 0;
        }
        line += QString(quote ? backslashes * 2 : backslashes, u'\\');
        if (quote)
            line += u'"';
    }
    return line;
}

// One folder that another program put on PATH, and what it holds.
struct PathEntry {
    QString windowsPath;
    QStringList files; // relative to the entry, '\' separated
    bool kept;         // the launcher keeps it (after the environment's own folders)
};

// A student's PATH: the CUDA toolkit installer puts its bin first, an old cuDNN was copied into a
// folder of its own, Anaconda added an environment's Library\bin, and some harmless folders with
// odd names (kept, in their order). One empty entry, as a careless edit leaves behind.
QList<PathEntry> studentPath()
{
    return {
        {QStringLiteral("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin"),
         {QStringLiteral("cudart64_110.dll"), QStringLiteral("nvcc.exe")},
         false},
        {QStringLiteral("C:\\windows\\system32"), {}, true},
        {QStringLiteral("C:\\windows"), {}, true},
        {QStringLiteral("C:\\tools\\cudnn-7.6 (old)\\bin"), {QStringLiteral("cudnn64_7.dll")}, false},
        {QString(), {}, false},
        {QStringLiteral("C:\\Program Files (x86)\\NVIDIA Corporation\\PhysX\\Common"),
         {QStringLiteral("PhysXDevice64.dll")},
         true},
        {QStringLiteral("C:\\Users\\张三\\miniconda3\\envs\\old tf\\Library\\bin"),
         {QStringLiteral("zlib.dll")},
         false},
        // No '%' in these names: Wine's cmd expands the text a variable expands to once more
        // (see wineDifferencesStillHold); Windows' cmd does not.
        {QStringLiteral("C:\\Users\\张三\\tools & more!^ (x86)\\bin"), {QStringLiteral("tool.exe")}, true},
        {QStringLiteral("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin"),
         {QStringLiteral("nvcc.exe")},
         false},
        {QStringLiteral("C:\\Users\\张三\\工具"), {QStringLiteral("python.exe")}, true},
        // Entries in double quotes, as some installers write them (cmd's own search strips them).
        {QStringLiteral("\"C:\\Program Files\\Quoted & Co\\bin\""), {QStringLiteral("quoted.exe")}, true},
        {QStringLiteral("\"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin\""),
         {QStringLiteral("cudart64_101.dll")},
         false},
    };
}

// The entries joined as PATH; `launcher`: as the launcher writes the kept ones back, without the
// double quotes (the kernelspec carries what the installer's filter kept, as it was).
QString joinedPath(const QList<PathEntry> &entries, bool keptOnly, bool launcher = false)
{
    QStringList parts;
    for (const PathEntry &e : entries) {
        if (!keptOnly || e.kept)
            parts.append(launcher ? QString(e.windowsPath).remove(u'"') : e.windowsPath);
    }
    return parts.join(u';');
}

QStringList argv(const QJsonObject &run)
{
    QStringList out;
    for (const QJsonValue &v : run.value(QStringLiteral("argv")).toArray())
        out.append(v.toString());
    return out;
}

} // namespace

class TestWineLaunchers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void startPython_data();
    void startPython();
    void startJupyterRunsTheFirstFrontEndThatImports_data();
    void startJupyterRunsTheFirstFrontEndThatImports();
    void startJupyterWithoutAServerSaysSo();
    void startJupyterInChineseStillRuns();
    void shellPutsTheEnvironmentFirst();
    void kernelSpec_data();
    void kernelSpec();
    void wineDifferencesStillHold();

private:
    // C:\… or Z:\… in the prefix to the Unix path Wine maps it to.
    QString unixPath(const QString &windowsPath) const;
    QString windowsPathOf(const QString &unixPath) const;
    bool writeFile(const QString &windowsPath, const QByteArray &contents) const;
    // The environment's folders and files as the installer leaves them on Windows, with the probe
    // as venv\Scripts\python.exe and the launchers and kernel.json from LauncherWriter.
    void makeEnvironment(const QString &windowsPath, const QString &frontEnd = {});
    // Runs spawn.exe with these lines (see spawn.c), after the common ones: the student's PATH and
    // stale variables that the launchers must replace.
    Ran spawn(const QStringList &lines) const;
    QList<QJsonObject> probeRuns() const;
    void checkLauncherEnvironment(const QJsonObject &run, const QString &environment) const;

    LauncherSettings m_settings;
    QTemporaryDir m_root;
    QProcessEnvironment m_wine;
    QString m_wineProgram;
    QString m_probe;
    QString m_spawn;
    QString m_probeOut; // Windows path of the probe's JSON lines
    QElapsedTimer m_clock;
};

QString TestWineLaunchers::unixPath(const QString &windowsPath) const
{
    QString rest = windowsPath.mid(2);
    rest.replace(u'\\', u'/');
    if (windowsPath.startsWith(u'Z', Qt::CaseInsensitive))
        return rest;
    return m_root.filePath(QStringLiteral("prefix/drive_c")) + rest;
}

QString TestWineLaunchers::windowsPathOf(const QString &path) const
{
    // Wine maps Z: to the Unix root (a new prefix links dosdevices/z: to /).
    return QStringLiteral("Z:") + QString(path).replace(u'/', u'\\');
}

bool TestWineLaunchers::writeFile(const QString &windowsPath, const QByteArray &contents) const
{
    const QString path = unixPath(windowsPath);
    if (!QDir().mkpath(QFileInfo(path).path()))
        return false;
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(contents) == contents.size();
}

void TestWineLaunchers::initTestCase()
{
    m_clock.start();
    auto settings = LauncherSettings::load();
    QVERIFY2(settings, qPrintable(settings ? QString() : settings.error().detail));
    m_settings = *settings;
    QVERIFY(m_root.isValid());

    m_wineProgram = QStandardPaths::findExecutable(QStringLiteral("wine"));
    const QString wineserver = QStandardPaths::findExecutable(QStringLiteral("wineserver"));
    const QString wineboot = QStandardPaths::findExecutable(QStringLiteral("wineboot"));
    const QString mingw = QStandardPaths::findExecutable(QStringLiteral("x86_64-w64-mingw32-gcc"));
    if (m_wineProgram.isEmpty() || wineserver.isEmpty() || wineboot.isEmpty())
        QSKIP("wine is not installed (packages wine, wine64)");
    if (mingw.isEmpty())
        QSKIP("x86_64-w64-mingw32-gcc is not installed (package g++-mingw-w64-x86-64)");

    // One prefix for the whole run; no display (cmd and console programs need none), no debug
    // output, and no Mono or Gecko installers asked for (mscoree, mshtml disabled).
    m_wine = QProcessEnvironment::systemEnvironment();
    m_wine.insert(QStringLiteral("WINEPREFIX"), m_root.filePath(QStringLiteral("prefix")));
    m_wine.insert(QStringLiteral("WINEDEBUG"), QStringLiteral("-all"));
    m_wine.insert(QStringLiteral("WINEDLLOVERRIDES"), QStringLiteral("mscoree=;mshtml="));
    m_wine.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8")); // Unix file names are UTF-8
    // wineserver's socket folder (wine-XXXXXX) goes where TMPDIR says: into this run's folder.
    m_wine.insert(QStringLiteral("TMPDIR"), m_root.path());
    m_wine.remove(QStringLiteral("DISPLAY"));
    m_wine.remove(QStringLiteral("WAYLAND_DISPLAY"));
    // A wineserver that stays 30 s after its last program, so that each program below starts
    // without a new one (and a test killed half-way leaves none behind for long); cleanupTestCase
    // stops it. Then the prefix, made once for the whole run.
    QVERIFY(QDir().mkpath(m_wine.value(QStringLiteral("WINEPREFIX"))));
    const Ran persistent = test::runProcess(wineserver, {QStringLiteral("-p30")}, 60'000, m_wine);
    QVERIFY2(persistent.finished && persistent.exitCode == 0, persistent.err.constData());
    const Ran boot = test::runProcess(wineboot, {QStringLiteral("-i")}, 300'000, m_wine);
    QVERIFY2(boot.finished && boot.exitCode == 0, boot.err.constData());
    qInfo("Wine prefix ready after %lld ms", static_cast<long long>(m_clock.elapsed()));

    const QString data = qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/wine");
    m_probe = m_root.filePath(QStringLiteral("python.exe"));
    m_spawn = m_root.filePath(QStringLiteral("spawn.exe"));
    for (const auto &[source, target] :
         {std::pair{QStringLiteral("probe.c"), m_probe}, std::pair{QStringLiteral("spawn.c"), m_spawn}}) {
        const Ran gcc = test::runProcess(mingw,
                                         {QStringLiteral("-municode"), QStringLiteral("-Wall"),
                                          QStringLiteral("-Wextra"), QStringLiteral("-Werror"), QStringLiteral("-O1"),
                                          QStringLiteral("-s"), data + u'/' + source, QStringLiteral("-o"), target},
                                         120'000);
        QVERIFY2(gcc.finished && gcc.exitCode == 0, QByteArray(gcc.out + gcc.err).constData());
    }
    m_probeOut = windowsPathOf(m_root.filePath(QStringLiteral("probe.jsonl")));

    for (const PathEntry &entry : studentPath()) {
        const QString folder = QString(entry.windowsPath).remove(u'"');
        if (folder.isEmpty() || folder.startsWith(QLatin1String("C:\\windows")))
            continue;
        QVERIFY(QDir().mkpath(unixPath(folder)));
        for (const QString &file : entry.files)
            QVERIFY(writeFile(folder + u'\\' + file, QByteArrayLiteral("MZ")));
    }
    // The conda environment is recognised by its conda-meta\history two levels above Library\bin.
    QVERIFY(writeFile(QStringLiteral("C:\\Users\\张三\\miniconda3\\envs\\old tf\\conda-meta\\history"),
                      "==> 2023-01-01 <==\n"));
    // A python.exe on the inherited PATH must lose against the environment's own (shell test).
    QVERIFY(QFile::remove(unixPath(QStringLiteral("C:\\Users\\张三\\工具\\python.exe"))));
    QVERIFY(QFile::copy(m_probe, unixPath(QStringLiteral("C:\\Users\\张三\\工具\\python.exe"))));
}

void TestWineLaunchers::cleanupTestCase()
{
    const QString wineserver = QStandardPaths::findExecutable(QStringLiteral("wineserver"));
    if (!wineserver.isEmpty() && !m_wine.isEmpty())
        test::runProcess(wineserver, {QStringLiteral("-k")}, 60'000, m_wine);
    qInfo("Wine launcher test took %lld ms", static_cast<long long>(m_clock.elapsed()));
}

void TestWineLaunchers::makeEnvironment(const QString &windowsPath, const QString &frontEnd)
{
    const QString root = unixPath(windowsPath);
    QVERIFY(QDir().mkpath(root + QStringLiteral("/venv/Scripts")));
    QFile::remove(root + QStringLiteral("/venv/Scripts/python.exe"));
    QVERIFY(QFile::copy(m_probe, root + QStringLiteral("/venv/Scripts/python.exe")));
    QVERIFY(writeFile(windowsPath + QStringLiteral("\\venv\\pyvenv.cfg"), "home = C:\\Python310\nversion = 3.10.11\n"));
    for (const QString &file :
         {QStringLiteral("cuda\\bin\\cudart64_110.dll"), QStringLiteral("cuda\\bin\\cudnn64_8.dll"),
          QStringLiteral("cuda\\bin\\cudnn_ops_infer64_8.dll"), QStringLiteral("cuda\\include\\cuda_runtime.h"),
          QStringLiteral("cuda\\lib\\x64\\cudart.lib")})
        QVERIFY(writeFile(windowsPath + u'\\' + file, QByteArrayLiteral("MZ")));

    LauncherContext context;
    context.os = OsFamily::Windows;
    context.environmentPath = windowsPath;
    context.displayName = QStringLiteral("TensorFlow 2.10 (GPU)");
    context.kernelName = QStringLiteral("tf2.10");
    context.jupyterFrontEnd = frontEnd;
    // What the installer's filter keeps of the PATH it saw (installer.cpp, writeLaunchers).
    context.inheritedSearchPath = joinedPath(studentPath(), true).split(u';');
    const auto files = LauncherWriter::launchers(m_settings, context);
    QVERIFY(files);
    for (const GeneratedFile &f : *files)
        QVERIFY(writeFile(windowsPath + u'\\' + f.path, f.contents));
    QVERIFY(test::findGenerated(*files, QStringLiteral("start-python.bat")));
    QVERIFY(writeFile(windowsPath + QStringLiteral("\\kernel\\kernel.json"),
                      QJsonDocument(LauncherWriter::kernelSpec(m_settings, context)).toJson()));
}

Ran TestWineLaunchers::spawn(const QStringList &lines) const
{
    QFile::remove(unixPath(m_probeOut));
    QStringList spec{
        QStringLiteral("set PATH=") + joinedPath(studentPath(), false),
        QStringLiteral("set CUDA_PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8"),
        QStringLiteral("set VIRTUAL_ENV=C:\\Users\\张三\\old-venv"),
        QStringLiteral("set PYTHONHOME=C:\\Python27"),
        QStringLiteral("set TF_CPP_MIN_LOG_LEVEL=3"),
        QStringLiteral("set CUDA_VISIBLE_DEVICES=1"),
        QStringLiteral("set TFSETUP_PROBE_OUT=") + m_probeOut,
        QStringLiteral("unset TFSETUP_PROBE_IMPORTS"),
        QStringLiteral("unset TFSETUP_PROBE_EXIT"),
    };
    spec += lines;
    QFile f(m_root.filePath(QStringLiteral("spawn.txt")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    f.write(spec.join(u'\n').toUtf8() + '\n');
    f.close();
    return test::runProcess(m_wineProgram, {m_spawn, windowsPathOf(f.fileName())}, wineTimeoutMs, m_wine);
}

QList<QJsonObject> TestWineLaunchers::probeRuns() const
{
    QList<QJsonObject> runs;
    QFile f(unixPath(m_probeOut));
    if (!f.open(QIODevice::ReadOnly))
        return runs;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (!line.isEmpty())
            runs.append(QJsonDocument::fromJson(line).object());
    }
    return runs;
}

// What every launcher promises (wizard/core/install/README.md, "Launchers"): the environment's
// CUDA/cuDNN bin, then its venv\Scripts, then the inherited entries that hold no other CUDA, cuDNN,
// nvcc or conda Library\bin, in their order; CUDA_PATH and VIRTUAL_ENV for this environment,
// PYTHONHOME cleared, launchers.json's variables set, the launcher's own helpers gone, and
// CUDA_VISIBLE_DEVICES as inherited unless the data sets it.
void TestWineLaunchers::checkLauncherEnvironment(const QJsonObject &run, const QString &environment) const
{
    const QJsonObject env = run.value(QStringLiteral("env")).toObject();
    QCOMPARE(env.value(QStringLiteral("PATH")).toString(),
             environment + QStringLiteral("\\cuda\\bin;") + environment + QStringLiteral("\\venv\\Scripts;")
                 + joinedPath(studentPath(), true, true));
    QCOMPARE(env.value(QStringLiteral("CUDA_PATH")).toString(), environment + QStringLiteral("\\cuda"));
    QCOMPARE(env.value(QStringLiteral("VIRTUAL_ENV")).toString(), environment + QStringLiteral("\\venv"));
    QVERIFY2(!env.contains(QStringLiteral("PYTHONHOME")),
             qPrintable(env.value(QStringLiteral("PYTHONHOME")).toString()));
    bool pinsDevices = false;
    for (const auto &[name, value] : m_settings.variables) {
        QCOMPARE(env.value(name).toString(), value);
        pinsDevices = pinsDevices || name == u"CUDA_VISIBLE_DEVICES";
    }
    if (!pinsDevices)
        QCOMPARE(env.value(QStringLiteral("CUDA_VISIBLE_DEVICES")).toString(), QStringLiteral("1"));
    for (const QString &helper : {QStringLiteral("TFSETUP_REST"), QStringLiteral("TFSETUP_KEPT"),
                                  QStringLiteral("TFSETUP_ENTRY"), QStringLiteral("TFSETUP_KEEP")})
        QVERIFY2(!env.contains(helper), qPrintable(helper));
}

// Where environments end up: the student's folder, and one folder per character cmd treats
// specially. No '%' here: see wineDifferencesStillHold, and kernelSpec for folders with one.
void TestWineLaunchers::startPython_data()
{
    QTest::addColumn<QString>("environment");
    QTest::newRow("the student's folder, its '%' left out")
        << QStringLiteral("C:\\Users\\张三\\My Envs & Co (100)!\\tf2.10");
    QTest::newRow("spaces") << QStringLiteral("C:\\Users\\Ada Lovelace\\tf envs\\tf2.10-cuda11.2");
    QTest::newRow("ampersand") << QStringLiteral("C:\\Labs\\R&D\\tf&co");
    QTest::newRow("exclamation") << QStringLiteral("C:\\Labs\\wow!\\tf!x!");
    QTest::newRow("caret") << QStringLiteral("C:\\Labs\\a^b\\^^");
    QTest::newRow("parentheses") << QStringLiteral("C:\\Program Files (x86)\\tf (test)");
    QTest::newRow("chinese") << QStringLiteral("C:\\Users\\张伟\\深度学习\\环境");
    QTest::newRow("everything but percent") << QStringLiteral("C:\\Labs\\a b&c!d^e(f)g\\张 'h' ^^ !!");
}

void TestWineLaunchers::startPython()
{
    QFETCH(QString, environment);
    makeEnvironment(environment);
    if (QTest::currentTestFailed())
        return;
    // As typed into a cmd window: the launcher quoted, then arguments a script might get, each in
    // double quotes where cmd would otherwise act on a character. cmd /s /c runs the text between
    // the first and the last quote as typed (cmd /?).
    const QStringList arguments{QStringLiteral("train.py"), QStringLiteral("R&D (final)!"),
                                QStringLiteral("a^b & c|d<e>f"), QStringLiteral("张三 李四"),
                                QStringLiteral("--epochs=3")};
    QString typed = u'"' + environment + QStringLiteral("\\start-python.bat\"");
    for (const QString &a : arguments)
        typed += a.contains(QRegularExpression(QStringLiteral("[ &|<>^()!]"))) ? QStringLiteral(" \"%1\"").arg(a)
                                                                               : u' ' + a;
    const Ran ran = spawn({QStringLiteral("set TFSETUP_PROBE_EXIT=7"),
                           QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"") + typed + u'"'});
    QVERIFY2(ran.finished, "Wine did not finish");
    const QList<QJsonObject> runs = probeRuns();
    QVERIFY2(runs.size() == 1, QByteArray(ran.out + ran.err).constData());
    // The program's own exit status comes back through exit /b %ERRORLEVEL% and cmd /c, and cmd
    // had nothing to complain about (a quoted PATH entry once made it print "Syntax error").
    QCOMPARE(ran.exitCode, 7);
    QVERIFY2(ran.err.isEmpty(), ran.err.constData());
    QCOMPARE(argv(runs.first()), QStringList{environment + QStringLiteral("\\venv\\Scripts\\python.exe")} + arguments);
    checkLauncherEnvironment(runs.first(), environment);
}

void TestWineLaunchers::startJupyterRunsTheFirstFrontEndThatImports_data()
{
    QTest::addColumn<QString>("chosen");
    QTest::addColumn<QString>("importable");
    QTest::newRow("no choice: the data's order, JupyterLab missing")
        << QString() << QStringLiteral("notebook,jupyter_server");
    QTest::newRow("Jupyter Server chosen") << QStringLiteral("server") << QStringLiteral("notebook,jupyter_server");
}

void TestWineLaunchers::startJupyterRunsTheFirstFrontEndThatImports()
{
    QFETCH(QString, chosen);
    QFETCH(QString, importable);
    const QString environment = QStringLiteral("C:\\Users\\张三\\My Envs & Co (100)!\\tf2.10 jupyter");
    makeEnvironment(environment, chosen);
    if (QTest::currentTestFailed())
        return;
    const QString folder = QStringLiteral("--notebook-dir=C:\\Users\\张三\\notebooks & data (2024)!");
    const Ran ran = spawn(
        {QStringLiteral("set TFSETUP_PROBE_IMPORTS=") + importable,
         QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"%1\\start-jupyter.bat\" --no-browser \"%2\"\"")
             .arg(environment, folder)});
    QVERIFY2(ran.finished, "Wine did not finish");
    QCOMPARE(ran.exitCode, 0);
    // One import check per front end, in the order start-jupyter tries them, until one imports;
    // then that front end with the launcher's arguments.
    QList<QStringList> expected;
    const QString python = environment + QStringLiteral("\\venv\\Scripts\\python.exe");
    for (const JupyterSettings::FrontEnd &f : m_settings.jupyter.preferring(chosen)) {
        expected.append({python, QStringLiteral("-c"), QStringLiteral("import ") + f.module});
        if (importable.split(u',').contains(f.module)) {
            expected.append(QStringList{python} + f.arguments + QStringList{QStringLiteral("--no-browser"), folder});
            break;
        }
    }
    const QList<QJsonObject> runs = probeRuns();
    QList<QStringList> got;
    for (const QJsonObject &run : runs)
        got.append(argv(run));
    QCOMPARE(got, expected);
    checkLauncherEnvironment(runs.last(), environment);
}

void TestWineLaunchers::startJupyterWithoutAServerSaysSo()
{
    const QString environment = QStringLiteral("C:\\Users\\张三\\My Envs & Co (100)!\\tf2.10 no server");
    makeEnvironment(environment);
    if (QTest::currentTestFailed())
        return;
    const Ran ran = spawn(
        {QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"%1\\start-jupyter.bat\"\"").arg(environment)});
    QVERIFY2(ran.finished, "Wine did not finish");
    QCOMPARE(ran.exitCode, 1);
    QCOMPARE(probeRuns().size(), m_settings.jupyter.frontEnds.size());
    QStringList titles;
    for (const JupyterSettings::FrontEnd &f : m_settings.jupyter.frontEnds)
        titles.append(f.title);
    // echo with the message's & ( ) escaped prints it as written (no translator here: English).
    QVERIFY2(ran.err.contains(QStringLiteral("no Jupyter server (%1). Run tfsetup again")
                                  .arg(titles.join(QStringLiteral(", ")))
                                  .toUtf8()),
             ran.err.constData());
}

// A student who runs tfsetup in Chinese gets launchers whose message is Chinese, so the .bat is
// UTF-8 and switches the console to code page 65001 first. Wine 8 reads batch lines in the OEM code
// page whatever chcp says (wineDifferencesStillHold, 2), so the message's text cannot be checked
// here; what is checked is that the chcp line and the UTF-8 text leave the launcher working.
void TestWineLaunchers::startJupyterInChineseStillRuns()
{
    const QString environment = QStringLiteral("C:\\Users\\张三\\My Envs & Co (100)!\\tf2.10 中文");
    {
        core::Translations translations;
        QVERIFY(translations.setLanguage(QStringLiteral("zh_CN")));
        makeEnvironment(environment);
        if (QTest::currentTestFailed())
            return;
    }
    QFile bat(unixPath(environment + QStringLiteral("\\start-jupyter.bat")));
    QVERIFY(bat.open(QIODevice::ReadOnly));
    const QByteArray text = bat.readAll();
    QVERIFY(text.contains("chcp 65001 >nul"));
    QVERIFY(text.contains(QStringLiteral("Jupyter 服务器").toUtf8()));
    const Ran ran = spawn(
        {QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"%1\\start-jupyter.bat\"\"").arg(environment)});
    QVERIFY2(ran.finished, "Wine did not finish");
    QCOMPARE(ran.exitCode, 1);
    const QList<QJsonObject> runs = probeRuns();
    QCOMPARE(runs.size(), m_settings.jupyter.frontEnds.size());
    for (qsizetype i = 0; i < runs.size(); ++i) {
        QCOMPARE(
            argv(runs.at(i)).mid(1),
            (QStringList{QStringLiteral("-c"), QStringLiteral("import ") + m_settings.jupyter.frontEnds.at(i).module}));
        checkLauncherEnvironment(runs.at(i), environment);
    }
}

void TestWineLaunchers::shellPutsTheEnvironmentFirst()
{
    const QString environment = QStringLiteral("C:\\Users\\张三\\My Envs & Co (100)!\\tf2.10 shell");
    makeEnvironment(environment);
    if (QTest::currentTestFailed())
        return;
    // The student types into the shell it opens: "python" is looked up on the launcher's PATH,
    // where the environment's venv\Scripts comes before the python.exe in C:\Users\张三\工具.
    QFile input(m_root.filePath(QStringLiteral("typed.txt")));
    QVERIFY(input.open(QIODevice::WriteOnly | QIODevice::Truncate));
    input.write("python \"from the shell & (more)!\"\r\nexit\r\n");
    input.close();
    const Ran ran = spawn(
        {QStringLiteral("stdin ") + windowsPathOf(input.fileName()),
         QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"%1\\shell.bat\"\"").arg(environment)});
    QVERIFY2(ran.finished, "Wine did not finish");
    const QList<QJsonObject> runs = probeRuns();
    QVERIFY2(runs.size() == 1, QByteArray(ran.out + ran.err).constData());
    QCOMPARE(runs.first().value(QStringLiteral("module")).toString(),
             environment + QStringLiteral("\\venv\\Scripts\\python.exe"));
    QCOMPARE(argv(runs.first()).mid(1), QStringList{QStringLiteral("from the shell & (more)!")});
    checkLauncherEnvironment(runs.first(), environment);
}

// A kernel is started without cmd: jupyter_client's Popen turns kernel.json's argv into a
// command line (list2cmdline) and CreateProcess runs it with os.environ updated by kernel.json's
// env. No cmd means no '%' expansion, so the student's folder is used as it is.
void TestWineLaunchers::kernelSpec_data()
{
    QTest::addColumn<QString>("environment");
    QTest::newRow("the student's folder") << QStringLiteral("C:\\Users\\张三\\My Envs & Co (100%)!\\tf2.10");
    QTest::newRow("everything") << QStringLiteral("C:\\Labs\\a b&c%d!e^f(g)h\\张 'i' %PATH% ^^");
}

void TestWineLaunchers::kernelSpec()
{
    QFETCH(QString, environment);
    makeEnvironment(environment);
    if (QTest::currentTestFailed())
        return;
    QFile f(unixPath(environment + QStringLiteral("\\kernel\\kernel.json")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject spec = QJsonDocument::fromJson(f.readAll()).object();
    const QString connection = QStringLiteral(
        "C:\\Users\\Ada Lovelace\\AppData\\Roaming\\jupyter\\runtime\\kernel-6f1c2e.json");
    QStringList command;
    for (const QJsonValue &v : spec.value(QStringLiteral("argv")).toArray())
        command.append(v.toString().replace(QStringLiteral("{connection_file}"), connection));
    QCOMPARE(command.first(), environment + QStringLiteral("\\venv\\Scripts\\python.exe"));
    QStringList lines;
    const QJsonObject env = spec.value(QStringLiteral("env")).toObject();
    for (auto it = env.begin(); it != env.end(); ++it) {
        // jupyter_client 7 and later pass each value through string.Template.safe_substitute with
        // os.environ; a value without '$' comes through unchanged, which is what is run here.
        QVERIFY2(!it.value().toString().contains(u'$'), qPrintable(it.key()));
        lines.append(QStringLiteral("set %1=%2").arg(it.key(), it.value().toString()));
    }
    lines.append(QStringLiteral("cmd ") + list2cmdline(command));
    const Ran ran = spawn(lines);
    QVERIFY2(ran.finished, "Wine did not finish");
    QCOMPARE(ran.exitCode, 0);
    const QList<QJsonObject> runs = probeRuns();
    QVERIFY2(runs.size() == 1, QByteArray(ran.out + ran.err).constData());
    QCOMPARE(argv(runs.first()), command);
    const QJsonObject seen = runs.first().value(QStringLiteral("env")).toObject();
    // The PATH filtered at install time, the environment's folders first; the same variables.
    QCOMPARE(seen.value(QStringLiteral("PATH")).toString(),
             environment + QStringLiteral("\\cuda\\bin;") + environment + QStringLiteral("\\venv\\Scripts;")
                 + joinedPath(studentPath(), true));
    QCOMPARE(seen.value(QStringLiteral("CUDA_PATH")).toString(), environment + QStringLiteral("\\cuda"));
    QCOMPARE(seen.value(QStringLiteral("VIRTUAL_ENV")).toString(), environment + QStringLiteral("\\venv"));
    for (const auto &[name, value] : m_settings.variables)
        QCOMPARE(seen.value(name).toString(), value);
}

// The differences between Wine's cmd and Windows' cmd that shape this test, each checked so that
// a Wine that behaves like Windows is noticed (and the rows left out because of it come back).
void TestWineLaunchers::wineDifferencesStillHold()
{
    // 1. Wine's cmd expands the text a %variable% expanded to once more (programs/cmd/wcmdmain.c,
    //    WCMD_expand_envvar returns the start of the substituted text and handleExpansion scans on
    //    from there; the same for %*). Windows' cmd expands each line once ("Native expands lines
    //    from batch programs as they are read in and not again", the comment above Wine's own
    //    handleExpansion). So a '%' in a folder name, a PATH entry or an argument is mangled by
    //    Wine alone, and the launcher rows above have none.
    QVERIFY(
        writeFile(QStringLiteral("C:\\Labs\\differences\\percent.bat"),
                  "@echo off\r\nset \"TFSETUP_V=x\"\r\nset \"TFSETUP_W=100%%TFSETUP_V%%\"\r\necho [%TFSETUP_W%]\r\n"));
    const Ran percent = spawn(
        {QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"C:\\Labs\\differences\\percent.bat\"\"")});
    QVERIFY2(percent.finished, "Wine did not finish");
    // Windows prints [100%TFSETUP_V%].
    QVERIFY2(percent.out.trimmed() == "[100x]",
             "Wine's cmd no longer expands twice: add folders and arguments with '%' to the launcher rows");

    // 2. Wine 8's cmd decodes every batch line in the OEM code page (programs/cmd/batch.c,
    //    WCMD_fgets: MultiByteToWideChar(GetOEMCP(), …)); Windows' cmd decodes each line in the
    //    console's code page when it reads it, so a UTF-8 batch file that runs chcp 65001 first
    //    reads its later lines as UTF-8 (later Wine releases changed WCMD_fgets to the console's
    //    code page, to match). The probe shows what cmd made of a UTF-8 line after chcp 65001.
    // 3. Wine started outside a terminal gives its programs no console at all, so chcp fails there;
    //    Windows gives every console program a console. Output to a pipe is in the ANSI code page.
    QVERIFY(QFile::copy(m_probe, unixPath(QStringLiteral("C:\\Labs\\differences\\python.exe"))));
    QVERIFY(writeFile(QStringLiteral("C:\\Labs\\differences\\utf8.bat"),
                      QStringLiteral("@echo off\r\nchcp 65001 >nul\r\nset \"TFSETUP_CHCP=%ERRORLEVEL%\"\r\n"
                                     "set \"TFSETUP_TEXT=环境\"\r\n"
                                     "\"C:\\Labs\\differences\\python.exe\"\r\n")
                          .toUtf8()));
    const Ran utf8 = spawn(
        {QStringLiteral("cmd C:\\windows\\system32\\cmd.exe /d /s /c \"\"C:\\Labs\\differences\\utf8.bat\"\"")});
    QVERIFY2(utf8.finished, "Wine did not finish");
    const QList<QJsonObject> runs = probeRuns();
    QCOMPARE(runs.size(), 1);
    const QJsonObject seen = runs.first().value(QStringLiteral("env")).toObject();
    QVERIFY2(seen.value(QStringLiteral("TFSETUP_CHCP")).toString() != u"0",
             "chcp now succeeds under Wine: Wine gives the test's programs a console");
    const QString read = seen.value(QStringLiteral("TFSETUP_TEXT")).toString();
    QVERIFY2(
        read != QStringLiteral("环境"),
        "Wine's cmd now reads a UTF-8 batch file after chcp 65001: check the Chinese launcher's message in startJupyterInChineseStillRuns");
}

QTEST_GUILESS_MAIN(TestWineLaunchers)
#include "test_wine_launchers.moc"
