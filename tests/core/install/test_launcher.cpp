// Launchers: quoting for every consumer with odd folder names, the Windows texts checked line by
// line, the sh launchers run for real (a decoy library on the inherited LD_LIBRARY_PATH loses).

#include "install/launchers.h"
#include "support/generatedfiles.h"
#include "system/rootedsystem.h"
#include "util/names.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::GeneratedFile;
using core::JupyterSettings;
using core::LauncherContext;
using core::LauncherSettings;
using core::LauncherWriter;
using core::OsFamily;
namespace quoting = core::quoting;

namespace {

// Folder names that break naive quoting in one shell or another.
void addOddPaths()
{
    QTest::addColumn<QString>("value");
    QTest::newRow("spaces") << QStringLiteral("C:/Users/Ada Lovelace/tf envs");
    QTest::newRow("ampersand") << QStringLiteral("C:/Labs/R&D/tf");
    QTest::newRow("percent") << QStringLiteral("C:/100% sure/%PATH%/tf");
    QTest::newRow("exclamation") << QStringLiteral("C:/wow!/tf!x!");
    QTest::newRow("caret") << QStringLiteral("C:/a^b/^^");
    QTest::newRow("parentheses") << QStringLiteral("C:/Program Files (x86)/tf (test)");
    QTest::newRow("chinese") << QStringLiteral("C:/Users/张伟/深度学习/环境");
    QTest::newRow("single quote and dollar") << QStringLiteral("/home/o'brien/$HOME/`x`");
    QTest::newRow("everything") << QStringLiteral("D:/a b&c%d!e^f(g)h/张 'i'");
}

} // namespace

class TestLauncher : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void shellQuoteRoundTrips_data() { addOddPaths(); }
    void shellQuoteRoundTrips();
    void batchSet_data();
    void batchSet();
    void batchSetRefusesQuotes();
    void environmentPathsTheLaunchersCanCarry_data() { addOddPaths(); }
    void environmentPathsTheLaunchersCanCarry();
    void environmentPathsTheLaunchersCannotCarry();
    void powershellQuote_data();
    void powershellQuote();
    void desktopExec_data();
    void desktopExec();
    void windowsLaunchers_data() { addOddPaths(); }
    void windowsLaunchers();
    void kernelSpecCarriesTheLauncherVariables_data() { addOddPaths(); }
    void kernelSpecCarriesTheLauncherVariables();
    void userKernelFolder();
    void kernelNameIsNeverAnotherEnvironments();
    void shLaunchersRunForReal_data();
    void shLaunchersRunForReal();
    void gpuSelectionInEveryShell_data();
    void gpuSelectionInEveryShell();
    void kernelSpecPinsTheSelection();
    void shLauncherPinsGpusForReal_data();
    void shLauncherPinsGpusForReal();
    void placeholdersInValuesStayAsTheyAre();

private:
    LauncherSettings m_settings;
};

void TestLauncher::initTestCase()
{
    auto s = LauncherSettings::load();
    QVERIFY2(s, qPrintable(s ? QString() : s.error().detail));
    m_settings = *s;
    QCOMPARE(m_settings.launchers.size(), 3);
}

void TestLauncher::shellQuoteRoundTrips()
{
    QFETCH(QString, value);
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s' ") + quoting::shell(value)});
    QVERIFY(sh.waitForFinished(10000));
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), value);
}

void TestLauncher::batchSet_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("line");
    QTest::newRow("plain") << QStringLiteral("1") << QStringLiteral("set \"X=1\"");
    QTest::newRow("spaces and parentheses stay inside the quotes")
        << QStringLiteral("C:\\Program Files (x86)\\a b") << QStringLiteral("set \"X=C:\\Program Files (x86)\\a b\"");
    QTest::newRow("ampersand, caret and exclamation are literal inside quotes")
        << QStringLiteral("R&D^!x!") << QStringLiteral("set \"X=R&D^!x!\"");
    QTest::newRow("percent doubled") << QStringLiteral("100%PATH%") << QStringLiteral("set \"X=100%%PATH%%\"");
    QTest::newRow("chinese unchanged") << QStringLiteral("C:\\张伟") << QStringLiteral("set \"X=C:\\张伟\"");
}

void TestLauncher::batchSet()
{
    QFETCH(QString, value);
    QFETCH(QString, line);
    const auto got = quoting::batchSet(QStringLiteral("X"), value);
    QVERIFY(got);
    QCOMPARE(*got, line);
}

// Every odd path the quoting tests carry is a folder an environment may live in, on both systems
// (spaces, & % ! ^ ( ) ' $ ` and Chinese).
void TestLauncher::environmentPathsTheLaunchersCanCarry()
{
    QFETCH(QString, value);
    const QString onLinux = value.startsWith(u"C:"_s) || value.startsWith(u"D:"_s) ? value.mid(2) : value;
    QVERIFY(LauncherWriter::checkEnvironmentPath(OsFamily::Linux, onLinux));
    if (!value.contains(u'"'))
        QVERIFY(LauncherWriter::checkEnvironmentPath(OsFamily::Windows, value));
}

// PATH and LD_LIBRARY_PATH split at ':' (Linux, WSL2) and ';' (Windows): a folder with one would be
// two folders to every launcher and to the kernel. Refused, naming the character.
void TestLauncher::environmentPathsTheLaunchersCannotCarry()
{
    const auto onLinux = LauncherWriter::checkEnvironmentPath(OsFamily::Linux, u"/home/u/lab:2026/tf"_s);
    QVERIFY(!onLinux);
    QCOMPARE(onLinux.error().code, u"environment_path_unusable"_s);
    QVERIFY(onLinux.error().message.contains(u"\":\""_s));
    QVERIFY(onLinux.error().message.contains(u"LD_LIBRARY_PATH"_s));
    const auto onWindows = LauncherWriter::checkEnvironmentPath(OsFamily::Windows, u"C:/Users/u/a;b/tf"_s);
    QVERIFY(!onWindows);
    QVERIFY(onWindows.error().message.contains(u"\";\""_s));
    QVERIFY(!LauncherWriter::checkEnvironmentPath(OsFamily::Windows, u"C:/Users/u/say \"hi\"/tf"_s));
    QVERIFY(!LauncherWriter::checkEnvironmentPath(OsFamily::Linux, u"/home/u/line\nbreak"_s));
    // A drive letter's ':' is no separator on Windows.
    QVERIFY(LauncherWriter::checkEnvironmentPath(OsFamily::Windows, u"D:/envs/tf"_s));
}

void TestLauncher::batchSetRefusesQuotes()
{
    const auto got = quoting::batchSet(QStringLiteral("X"), QStringLiteral("a\"b"));
    QVERIFY(!got);
    QCOMPARE(got.error().code, QStringLiteral("launcher_unquotable"));
}

void TestLauncher::powershellQuote_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("quoted");
    QTest::newRow("dollar and backtick are literal in single quotes")
        << QStringLiteral("$env:X`n") << QStringLiteral("'$env:X`n'");
    QTest::newRow("single quote doubled") << QStringLiteral("o'brien") << QStringLiteral("'o''brien'");
    QTest::newRow("typographic quote doubled")
        << QStringLiteral("o\u2019brien") << QStringLiteral("'o\u2019\u2019brien'");
}

void TestLauncher::powershellQuote()
{
    QFETCH(QString, value);
    QFETCH(QString, quoted);
    QCOMPARE(quoting::powershell(value), quoted);
}

void TestLauncher::desktopExec_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("exec");
    QTest::newRow("spaces") << QStringLiteral("/home/a b/shell") << QStringLiteral("\"/home/a b/shell\"");
    QTest::newRow("dollar and quote escaped, backslash twice over")
        << QStringLiteral("/x/$y\"z\\w") << QStringLiteral("\"/x/\\\\$y\\\\\"z\\\\\\\\w\"");
    QTest::newRow("percent is not a field code") << QStringLiteral("/100%/shell") << QStringLiteral("\"/100%%/shell\"");
}

void TestLauncher::desktopExec()
{
    QFETCH(QString, value);
    QFETCH(QString, exec);
    QCOMPARE(quoting::desktopExecArgument(value), exec);
}

void TestLauncher::windowsLaunchers()
{
    QFETCH(QString, value);
    LauncherContext context;
    context.os = OsFamily::Windows;
    context.environmentPath = value;
    context.displayName = QStringLiteral("TensorFlow 2.10");
    const auto files = LauncherWriter::launchers(m_settings, context);
    QVERIFY(files);
    QStringList names;
    for (const GeneratedFile &f : *files)
        names.append(f.path);
    names.sort();
    QCOMPARE(names,
             (QStringList{QStringLiteral("shell.bat"), QStringLiteral("shell.ps1"), QStringLiteral("start-jupyter.bat"),
                          QStringLiteral("start-jupyter.ps1"), QStringLiteral("start-python.bat"),
                          QStringLiteral("start-python.ps1")}));
    const GeneratedFile *bat = test::findGenerated(*files, QStringLiteral("start-python.bat"));
    QVERIFY(bat);
    const QString text = QString::fromUtf8(bat->contents);
    // The folder is found at run time (%~dp0), so no odd name is ever parsed by cmd.
    QVERIFY(!text.contains(value) && !text.contains(QString(value).replace(u'/', u'\\')));
    QVERIFY(text.contains(QStringLiteral("set \"TFSETUP_ENV=%~dp0\"")));
    // Delayed expansion off before anything else, so '!' in PATH entries stays literal.
    QVERIFY(text.indexOf(QStringLiteral("setlocal DisableDelayedExpansion"))
            < text.indexOf(QStringLiteral("TFSETUP_ENV")));
    // Every line ends in CRLF; a launcher made only of ASCII needs no code page switch.
    QCOMPARE(text.count(QStringLiteral("\r\n")), text.count(u'\n'));
    QVERIFY(!text.contains(QStringLiteral("chcp")));
    // This environment first, then what survived the shadow filter.
    QVERIFY(text.contains(
        QStringLiteral("set \"PATH=%TFSETUP_ENV%\\cuda\\bin;%TFSETUP_ENV%\\venv\\Scripts%TFSETUP_KEPT%\"")));
    QVERIFY(text.contains(QStringLiteral("set \"CUDA_PATH=%TFSETUP_ENV%\\cuda\"")));
    for (const QString &pattern : {QStringLiteral("cudart64_*.dll"), QStringLiteral("cudnn64_*.dll"),
                                   QStringLiteral("..\\..\\conda-meta\\history")})
        QVERIFY2(text.contains(QStringLiteral("if exist \"%TFSETUP_ENTRY%\\") + pattern + u'"'), qPrintable(pattern));
    for (const auto &[name, v] : m_settings.variables)
        QVERIFY2(text.contains(*quoting::batchSet(name, v)), qPrintable(name));
    QVERIFY(text.contains(QStringLiteral("\"%TFSETUP_ENV%\\venv\\Scripts\\python.exe\" %*")));
    // start-jupyter runs the first front end whose module imports, in the data's order.
    const QString jupyterBat = QString::fromUtf8(
        test::findGenerated(*files, QStringLiteral("start-jupyter.bat"))->contents);
    QStringList checks;
    for (const JupyterSettings::FrontEnd &f : m_settings.jupyter.frontEnds) {
        const QString check = QStringLiteral("python.exe\" -c \"import %1\" >nul 2>&1").arg(f.module);
        QVERIFY2(jupyterBat.contains(check), qPrintable(f.name));
        checks.append(check);
    }
    QVERIFY(jupyterBat.indexOf(checks.first()) < jupyterBat.indexOf(checks.last()));
    QVERIFY(jupyterBat.contains(QStringLiteral("python.exe\" \"-m\" \"jupyterlab\" %*")));
    QVERIFY(jupyterBat.contains(QStringLiteral("exit /b 1")));
    const QString jupyterPs = QString::fromUtf8(
        test::findGenerated(*files, QStringLiteral("start-jupyter.ps1"))->contents);
    QVERIFY(jupyterPs.contains(QStringLiteral("$TfsetupFronts += ,@('jupyterlab', '-m', 'jupyterlab')")));
    QVERIFY(jupyterPs.contains(QStringLiteral("@TfsetupArgs @args")));
    QVERIFY(jupyterPs.indexOf(QStringLiteral("'jupyterlab', '-m'"))
            < jupyterPs.indexOf(QStringLiteral("'notebook', '-m'")));
    // The environment's chosen front end is tried first.
    LauncherContext notebook = context;
    notebook.jupyterFrontEnd = QStringLiteral("notebook");
    const auto chosen = LauncherWriter::launchers(m_settings, notebook);
    QVERIFY(chosen);
    const QString chosenBat = QString::fromUtf8(
        test::findGenerated(*chosen, QStringLiteral("start-jupyter.bat"))->contents);
    QVERIFY(chosenBat.indexOf(QStringLiteral("\"import notebook\""))
            < chosenBat.indexOf(QStringLiteral("\"import jupyterlab\"")));
    QVERIFY(QString::fromUtf8(test::findGenerated(*files, QStringLiteral("shell.bat"))->contents)
                .contains(QStringLiteral("cmd /k")));

    const GeneratedFile *ps1 = test::findGenerated(*files, QStringLiteral("start-python.ps1"));
    QVERIFY(ps1);
    QVERIFY(ps1->contents.startsWith("\xEF\xBB\xBF"));
    const QString ps = QString::fromUtf8(ps1->contents);
    QVERIFY(ps.contains(QStringLiteral("$TfsetupEnv = $PSScriptRoot")));
    QVERIFY(ps.contains(QStringLiteral("$env:TF_FORCE_GPU_ALLOW_GROWTH = 'true'")));
    QVERIFY(!ps.contains(value));
}

void TestLauncher::kernelSpecCarriesTheLauncherVariables()
{
    QFETCH(QString, value);
    for (OsFamily os : {OsFamily::Windows, OsFamily::Linux}) {
        LauncherContext context;
        context.os = os;
        context.environmentPath = value;
        context.libraryFolder = QStringLiteral("cuda/lib");
        context.xlaDataDir = true;
        context.displayName = QStringLiteral("TF ") + value;
        context.inheritedSearchPath = {QStringLiteral("/keep/me")};
        context.inheritedPath = {QStringLiteral("/usr/bin"), value + QStringLiteral("/venv/bin")};
        const QByteArray json = QJsonDocument(LauncherWriter::kernelSpec(m_settings, context)).toJson();
        const QJsonObject spec = QJsonDocument::fromJson(json).object();
        QCOMPARE(spec.value(QStringLiteral("argv")).toArray().at(0).toString(), LauncherWriter::venvPython(os, value));
        QCOMPARE(spec.value(QStringLiteral("argv")).toArray().at(2).toString(), m_settings.jupyter.kernelModule);
        QCOMPARE(spec.value(QStringLiteral("display_name")).toString(), context.displayName);
        const QJsonObject env = spec.value(QStringLiteral("env")).toObject();
        for (const auto &[name, v] : m_settings.variables)
            QCOMPARE(env.value(name).toString(), v);
        if (os == OsFamily::Windows) {
            QVERIFY(env.value(QStringLiteral("PATH"))
                        .toString()
                        .startsWith(QString(value).replace(u'/', u'\\') + QStringLiteral("\\cuda\\bin;")));
            QVERIFY(env.value(QStringLiteral("PATH")).toString().endsWith(QStringLiteral(";/keep/me")));
        } else {
            QCOMPARE(env.value(QStringLiteral("LD_LIBRARY_PATH")).toString(),
                     value + QStringLiteral("/cuda/lib:/keep/me"));
            QCOMPARE(env.value(QStringLiteral("XLA_FLAGS")).toString(),
                     QStringLiteral("--xla_gpu_cuda_data_dir=") + value + QStringLiteral("/cuda"));
            // The venv's programs first (once), then the PATH the install saw.
            QCOMPARE(env.value(QStringLiteral("PATH")).toString(), value + QStringLiteral("/venv/bin:/usr/bin"));
        }
    }
}

void TestLauncher::userKernelFolder()
{
    QTemporaryDir dir;
    QFile env(dir.filePath(QStringLiteral("env")));
    QVERIFY(env.open(QIODevice::WriteOnly));
    env.write("HOME=/home/student\nUSERPROFILE=C:\\Users\\student\nAPPDATA=C:\\Users\\student\\AppData\\Roaming\n");
    env.close();
    auto linux = core::RootedSystem::open(dir.path(), OsFamily::Linux, env.fileName());
    QVERIFY(linux);
    QCOMPARE(LauncherWriter::userKernelFolder(**linux, QStringLiteral("tf")),
             QStringLiteral("/home/student/.local/share/jupyter/kernels/tf"));
    QCOMPARE(LauncherWriter::desktopEntryPath(**linux, QStringLiteral("tf")),
             QStringLiteral("/home/student/.local/share/applications/tfsetup-tf.desktop"));
    auto windows = core::RootedSystem::open(dir.path(), OsFamily::Windows, env.fileName());
    QVERIFY(windows);
    QCOMPARE(LauncherWriter::userKernelFolder(**windows, QStringLiteral("tf")),
             QStringLiteral("C:/Users/student/AppData/Roaming/jupyter/kernels/tf"));
}

void TestLauncher::kernelNameIsNeverAnotherEnvironments()
{
    QTemporaryDir dir;
    QFile env(dir.filePath(QStringLiteral("env")));
    QVERIFY(env.open(QIODevice::WriteOnly));
    env.write("HOME=/home/student\n");
    env.close();
    auto opened = core::RootedSystem::open(dir.path(), OsFamily::Linux, env.fileName());
    QVERIFY(opened);
    const core::SystemView &system = **opened;
    auto put = [&](const QString &path, const QByteArray &bytes) {
        QDir().mkpath(QFileInfo(system.hostPath(path)).absolutePath());
        QFile f(system.hostPath(path));
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    auto kernelOf = [](const QString &environment) {
        return QJsonDocument(
                   QJsonObject{
                       {QStringLiteral("argv"), QJsonArray{QString(environment + QStringLiteral("/venv/bin/python"))}},
                       {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("tfsetup_environment"), environment}}}})
            .toJson();
    };
    const QString a = QStringLiteral("/home/student/envs/a");
    const QString b = QStringLiteral("/home/student/envs/b");
    const QString kernels = QStringLiteral("/home/student/.local/share/jupyter/kernels/");

    // Nothing registered, or this environment's own kernel: the name wanted.
    QCOMPARE(LauncherWriter::ownKernelName(system, QStringLiteral("tf"), a), QStringLiteral("tf"));
    QVERIFY(put(kernels + QStringLiteral("tf/kernel.json"), kernelOf(a)));
    QVERIFY(put(a + QStringLiteral("/environment.json"), "{}"));
    QString why;
    QCOMPARE(LauncherWriter::ownKernelName(system, QStringLiteral("tf"), a, &why), QStringLiteral("tf"));
    QVERIFY(why.isEmpty());

    // Another environment's (a copy of a carries a's kernel): a name made for b, the same each time.
    const QString made = LauncherWriter::ownKernelName(system, QStringLiteral("tf"), b, &why);
    QVERIFY2(made.startsWith(QStringLiteral("tf-")) && made.size() == 11, qPrintable(made));
    QVERIFY(core::isJupyterKernelName(made));
    QCOMPARE(LauncherWriter::ownKernelName(system, QStringLiteral("tf"), b), made);
    QVERIFY2(why.contains(a) && why.contains(made), qPrintable(why));

    // A long wanted name still gives a name Jupyter takes.
    const QString longName(60, u'k');
    QVERIFY(put(kernels + longName + QStringLiteral("/kernel.json"), kernelOf(a)));
    const QString madeLong = LauncherWriter::ownKernelName(system, longName, b);
    QCOMPARE(madeLong.size(), 60);
    QVERIFY(core::isJupyterKernelName(madeLong));

    // A kernel tfsetup did not make (no metadata) is the user's: the installer keeps it beside its own.
    QVERIFY(put(kernels + QStringLiteral("mine/kernel.json"), "{\"argv\": [\"python3\"]}"));
    QCOMPARE(LauncherWriter::ownKernelName(system, QStringLiteral("mine"), b), QStringLiteral("mine"));

    // Both names held: none.
    QVERIFY(put(kernels + made + QStringLiteral("/kernel.json"), kernelOf(QStringLiteral("/home/student/envs/c"))));
    QVERIFY(put(QStringLiteral("/home/student/envs/c/environment.json"), "{}"));
    QVERIFY(LauncherWriter::ownKernelName(system, QStringLiteral("tf"), b, &why).isEmpty());
    QVERIFY2(why.contains(QStringLiteral("not registered")), qPrintable(why));

    // The environment that held the name is gone (moved, or removed by hand): the name is free.
    QVERIFY(QFile::remove(system.hostPath(a + QStringLiteral("/environment.json"))));
    QCOMPARE(LauncherWriter::ownKernelName(system, QStringLiteral("tf"), b), QStringLiteral("tf"));
}

void TestLauncher::shLaunchersRunForReal_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("plain") << QStringLiteral("env");
    QTest::newRow("odd characters") << QStringLiteral("tf env & 100% !^ (测试) 'q' $HOME");
}

void TestLauncher::shLaunchersRunForReal()
{
    QFETCH(QString, folder);
    QProcess which;
    which.start(QStringLiteral("python3"), {QStringLiteral("-c"), QStringLiteral("import sys; print(sys.executable)")});
    if (!which.waitForFinished(20000) || which.exitCode() != 0)
        QSKIP("python3 is needed to run the launchers");
    const QString python = QString::fromUtf8(which.readAllStandardOutput()).trimmed();
    QString realLibrary;
    for (const QString &candidate :
         {QStringLiteral("/lib/x86_64-linux-gnu/libz.so.1"), QStringLiteral("/usr/lib/x86_64-linux-gnu/libz.so.1"),
          QStringLiteral("/usr/lib64/libz.so.1"), QStringLiteral("/lib64/libz.so.1"),
          QStringLiteral("/usr/lib/libz.so.1")}) {
        if (QFile::exists(candidate)) {
            realLibrary = candidate;
            break;
        }
    }
    if (realLibrary.isEmpty())
        QSKIP("a loadable stand-in library (libz.so.1) is needed");

    QTemporaryDir dir;
    const QString env = dir.filePath(folder);
    const QString decoy = dir.filePath(QStringLiteral("decoy lib"));
    const QString harmless = dir.filePath(QStringLiteral("harmless"));
    for (const QString &d : QStringList{env + QStringLiteral("/venv/bin"), env + QStringLiteral("/cuda/lib"),
                                        env + QStringLiteral("/cuda/nvvm/libdevice"), decoy, harmless})
        QVERIFY(QDir().mkpath(d));
    QVERIFY(QFile::link(python, env + QStringLiteral("/venv/bin/python")));
    // The same stand-in under TensorFlow's soname, in the environment and as a decoy.
    QVERIFY(QFile::copy(realLibrary, env + QStringLiteral("/cuda/lib/libcudart.so.11.0")));
    QVERIFY(QFile::copy(realLibrary, decoy + QStringLiteral("/libcudart.so.11.0")));

    LauncherContext context;
    context.os = OsFamily::Linux;
    context.environmentPath = env;
    context.libraryFolder = QStringLiteral("cuda/lib");
    context.xlaDataDir = true;
    const auto files = LauncherWriter::launchers(m_settings, context);
    QVERIFY(files);
    for (const GeneratedFile &f : *files) {
        QFile out(env + u'/' + f.path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(f.contents);
        out.close();
        QVERIFY(out.setPermissions(out.permissions() | QFile::ExeOwner));
    }

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LD_LIBRARY_PATH"), decoy + u':' + harmless);
    environment.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("3"));
    environment.insert(QStringLiteral("XLA_FLAGS"), QStringLiteral("--xla_dump_to=/tmp/x"));
    environment.insert(QStringLiteral("SHELL"), QStringLiteral("/bin/sh"));
    QProcess run;
    run.setProcessEnvironment(environment);
    run.setWorkingDirectory(dir.path());
    const QString script = QStringLiteral(
        "import ctypes, json, os\n"
        "ctypes.CDLL('libcudart.so.11.0')\n"
        "maps = sorted({l.split(None, 5)[5].strip() for l in open('/proc/self/maps') if 'libcudart' in l})\n"
        "print(json.dumps({'maps': maps, 'env': dict(os.environ)}))\n");
    run.start(env + QStringLiteral("/start-python"), {QStringLiteral("-c"), script});
    QVERIFY(run.waitForFinished(30000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const QJsonObject out = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
    const QJsonArray maps = out.value(QStringLiteral("maps")).toArray();
    QCOMPARE(maps.size(), 1);
    QCOMPARE(QFileInfo(maps.at(0).toString()).canonicalFilePath(),
             QFileInfo(env + QStringLiteral("/cuda/lib/libcudart.so.11.0")).canonicalFilePath());
    const QJsonObject seen = out.value(QStringLiteral("env")).toObject();
    const QStringList ld = seen.value(QStringLiteral("LD_LIBRARY_PATH")).toString().split(u':');
    QCOMPARE(QFileInfo(ld.value(0)).canonicalFilePath(),
             QFileInfo(env + QStringLiteral("/cuda/lib")).canonicalFilePath());
    QVERIFY2(!ld.contains(decoy), "the folder holding another libcudart must be dropped");
    QVERIFY(ld.contains(harmless));
    QCOMPARE(seen.value(QStringLiteral("CUDA_VISIBLE_DEVICES")).toString(), QStringLiteral("3"));
    QCOMPARE(seen.value(QStringLiteral("TF_FORCE_GPU_ALLOW_GROWTH")).toString(), QStringLiteral("true"));
    QVERIFY(seen.value(QStringLiteral("XLA_FLAGS")).toString().startsWith(QStringLiteral("--xla_gpu_cuda_data_dir=")));
    QVERIFY(seen.value(QStringLiteral("XLA_FLAGS")).toString().endsWith(QStringLiteral("/cuda --xla_dump_to=/tmp/x")));

    // start-jupyter runs the first front end that imports, with the extra arguments; stand-in
    // modules on PYTHONPATH play the front ends.
    const QString fronts = dir.filePath(QStringLiteral("fronts"));
    for (const QString &module : {QStringLiteral("jupyterlab"), QStringLiteral("notebook")}) {
        QVERIFY(QDir().mkpath(fronts + u'/' + module));
        QFile init(fronts + u'/' + module + QStringLiteral("/__init__.py"));
        QVERIFY(init.open(QIODevice::WriteOnly));
        init.close();
        QFile main(fronts + u'/' + module + QStringLiteral("/__main__.py"));
        QVERIFY(main.open(QIODevice::WriteOnly));
        main.write("import json, sys\nprint(json.dumps({'front': '" + module.toUtf8() + "', 'argv': sys.argv[1:]}))\n");
        main.close();
    }
    QProcessEnvironment withFronts = environment;
    withFronts.insert(QStringLiteral("PYTHONPATH"), fronts);
    QProcess jupyter;
    jupyter.setProcessEnvironment(withFronts);
    jupyter.start(env + QStringLiteral("/start-jupyter"), {QStringLiteral("--no-browser"), QStringLiteral("a b")});
    QVERIFY(jupyter.waitForFinished(30000));
    QVERIFY2(jupyter.exitCode() == 0, jupyter.readAllStandardError().constData());
    const QJsonObject ran = QJsonDocument::fromJson(jupyter.readAllStandardOutput()).object();
    QCOMPARE(ran.value(QStringLiteral("front")).toString(), QStringLiteral("jupyterlab"));
    QCOMPARE(ran.value(QStringLiteral("argv")).toArray(),
             (QJsonArray{QStringLiteral("--no-browser"), QStringLiteral("a b")}));
    // With no front end importable: a message and a failure, not a Python traceback.
    QProcess probe;
    probe.start(python,
                {QStringLiteral("-c"),
                 QStringLiteral("import importlib.util as u, sys; "
                                "sys.exit(any(u.find_spec(m) for m in "
                                "('jupyterlab', 'notebook', 'jupyter_server')))")});
    QVERIFY(probe.waitForFinished(30000));
    if (probe.exitCode() == 0) {
        QProcess none;
        none.setProcessEnvironment(environment);
        none.start(env + QStringLiteral("/start-jupyter"), {});
        QVERIFY(none.waitForFinished(30000));
        QCOMPARE(none.exitCode(), 1);
        QVERIFY(QString::fromUtf8(none.readAllStandardError()).contains(QStringLiteral("JupyterLab")));
    }

    QProcess shell;
    shell.setProcessEnvironment(environment);
    shell.start(env + QStringLiteral("/shell"), {QStringLiteral("-c"), QStringLiteral("printf '%s' \"$VIRTUAL_ENV\"")});
    QVERIFY(shell.waitForFinished(10000));
    QCOMPARE(QFileInfo(QString::fromUtf8(shell.readAllStandardOutput())).canonicalFilePath(),
             QFileInfo(env + QStringLiteral("/venv")).canonicalFilePath());
}

void TestLauncher::gpuSelectionInEveryShell_data()
{
    QTest::addColumn<QList<int>>("gpus");
    QTest::addColumn<QString>("visible");
    QTest::newRow("no selection") << QList<int>{} << QString();
    QTest::newRow("one of two") << QList<int>{0} << QStringLiteral("0");
    QTest::newRow("two of three") << QList<int>{0, 2} << QStringLiteral("0,2");
    QTest::newRow("in the chosen order") << QList<int>{2, 1} << QStringLiteral("2,1");
}

void TestLauncher::gpuSelectionInEveryShell()
{
    QFETCH(QList<int>, gpus);
    QFETCH(QString, visible);
    for (OsFamily os : {OsFamily::Windows, OsFamily::Linux}) {
        LauncherContext context;
        context.os = os;
        context.environmentPath = QStringLiteral("C:/Labs/R&D/100% tf");
        context.visibleGpus = gpus;
        const auto files = LauncherWriter::launchers(m_settings, context);
        QVERIFY(files);
        QCOMPARE(files->size(), os == OsFamily::Windows ? 6 : 3);
        for (const GeneratedFile &f : *files) {
            const QString text = QString::fromUtf8(f.contents);
            if (visible.isEmpty()) {
                // No selection: nothing of the kind is set, so a caller's choice stays.
                QVERIFY2(!text.contains(QStringLiteral("CUDA_VISIBLE_DEVICES")), qPrintable(f.path));
                QVERIFY2(!text.contains(QStringLiteral("CUDA_DEVICE_ORDER")), qPrintable(f.path));
                continue;
            }
            if (f.path.endsWith(QStringLiteral(".bat"))) {
                QVERIFY2(text.contains(QStringLiteral("set \"CUDA_DEVICE_ORDER=PCI_BUS_ID\"\r\n")), qPrintable(f.path));
                QVERIFY2(
                    text.contains(QStringLiteral("set \"CUDA_VISIBLE_DEVICES=") + visible + QStringLiteral("\"\r\n")),
                    qPrintable(f.path));
                // Set with the other variables, inside setlocal (the calling console keeps its own), before the run.
                QVERIFY(text.indexOf(QStringLiteral("setlocal"))
                        < text.indexOf(QStringLiteral("CUDA_VISIBLE_DEVICES")));
                QVERIFY(text.indexOf(QStringLiteral("CUDA_VISIBLE_DEVICES"))
                        < text.lastIndexOf(QStringLiteral("exit /b %ERRORLEVEL%")));
            } else if (f.path.endsWith(QStringLiteral(".ps1"))) {
                QVERIFY2(text.contains(QStringLiteral("$env:CUDA_DEVICE_ORDER = 'PCI_BUS_ID'")), qPrintable(f.path));
                QVERIFY2(text.contains(QStringLiteral("$env:CUDA_VISIBLE_DEVICES = '") + visible + u'\''),
                         qPrintable(f.path));
                // The session's own values are put back afterwards, as for every other variable.
                const QString saved =
                    text.section(QStringLiteral("foreach ($TfsetupName in @("), 1).section(u')', 0, 0);
                QVERIFY2(saved.contains(QStringLiteral("'CUDA_VISIBLE_DEVICES'")), qPrintable(saved));
                QVERIFY2(saved.contains(QStringLiteral("'CUDA_DEVICE_ORDER'")), qPrintable(saved));
            } else {
                QVERIFY2(text.contains(QStringLiteral("CUDA_DEVICE_ORDER='PCI_BUS_ID'\nexport CUDA_DEVICE_ORDER\n")),
                         qPrintable(f.path));
                QVERIFY2(text.contains(QStringLiteral("CUDA_VISIBLE_DEVICES='") + visible
                                       + QStringLiteral("'\nexport CUDA_VISIBLE_DEVICES\n")),
                         qPrintable(f.path));
            }
        }
    }
}

void TestLauncher::kernelSpecPinsTheSelection()
{
    for (OsFamily os : {OsFamily::Windows, OsFamily::Linux}) {
        LauncherContext context;
        context.os = os;
        context.environmentPath = QStringLiteral("/envs/tf");
        context.libraryFolder = QStringLiteral("cuda/lib");
        const QJsonObject unpinned =
            LauncherWriter::kernelSpec(m_settings, context).value(QStringLiteral("env")).toObject();
        QVERIFY(!unpinned.contains(QStringLiteral("CUDA_VISIBLE_DEVICES")));
        QVERIFY(!unpinned.contains(QStringLiteral("CUDA_DEVICE_ORDER")));
        context.visibleGpus = {1, 3};
        // Through JSON text, as Jupyter reads the file.
        const QJsonObject pinned = QJsonDocument::fromJson(
                                       QJsonDocument(LauncherWriter::kernelSpec(m_settings, context)).toJson())
                                       .object()
                                       .value(QStringLiteral("env"))
                                       .toObject();
        QCOMPARE(pinned.value(QStringLiteral("CUDA_DEVICE_ORDER")).toString(), QStringLiteral("PCI_BUS_ID"));
        QCOMPARE(pinned.value(QStringLiteral("CUDA_VISIBLE_DEVICES")).toString(), QStringLiteral("1,3"));
        // Everything else is as without a selection.
        for (auto it = unpinned.begin(); it != unpinned.end(); ++it)
            QCOMPARE(pinned.value(it.key()), it.value());
    }
}

void TestLauncher::shLauncherPinsGpusForReal_data()
{
    QTest::addColumn<QList<int>>("gpus");
    QTest::addColumn<QString>("expected");
    // The caller's values: a different order and device, as a lab's login script might set them.
    QTest::newRow("no selection keeps the caller's") << QList<int>{} << QStringLiteral("FASTEST_FIRST|3");
    QTest::newRow("one pinned") << QList<int>{0} << QStringLiteral("PCI_BUS_ID|0");
    QTest::newRow("two pinned in order") << QList<int>{2, 0} << QStringLiteral("PCI_BUS_ID|2,0");
}

void TestLauncher::shLauncherPinsGpusForReal()
{
    QFETCH(QList<int>, gpus);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString env = dir.filePath(QStringLiteral("tf env & 100% (测试) 'q'"));
    QVERIFY(QDir().mkpath(env));
    LauncherContext context;
    context.os = OsFamily::Linux;
    context.environmentPath = env;
    context.visibleGpus = gpus;
    const auto files = LauncherWriter::launchers(m_settings, context);
    QVERIFY(files);
    for (const GeneratedFile &f : *files) {
        QFile out(env + u'/' + f.path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(f.contents);
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("FASTEST_FIRST"));
    environment.insert(QStringLiteral("CUDA_VISIBLE_DEVICES"), QStringLiteral("3"));
    environment.insert(QStringLiteral("SHELL"), QStringLiteral("/bin/sh"));
    // The shell launcher runs the user's shell with the environment's variables: it prints them.
    QProcess sh;
    sh.setProcessEnvironment(environment);
    sh.start(QStringLiteral("/bin/sh"),
             {env + QStringLiteral("/shell"), QStringLiteral("-c"),
              QStringLiteral("printf '%s|%s' \"$CUDA_DEVICE_ORDER\" \"$CUDA_VISIBLE_DEVICES\"")});
    QVERIFY(sh.waitForFinished(10000));
    QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), expected);
}

// A variable's value that looks like a template placeholder is written as it is: the template is
// filled in one pass, values are never searched again.
void TestLauncher::placeholdersInValuesStayAsTheyAre()
{
    const QString value = QStringLiteral("@RUN@ @CODEPAGE@ @XLA@ @SHADOW@ @VARIABLES@@LIBRARY_DIRS@ user@example");
    LauncherSettings settings = m_settings;
    settings.variables.append({QStringLiteral("TFSETUP_TEST_VALUE"), value});

    LauncherContext windows;
    windows.os = OsFamily::Windows;
    windows.environmentPath = QStringLiteral("C:/envs/tf");
    const auto windowsFiles = LauncherWriter::launchers(settings, windows);
    QVERIFY(windowsFiles);
    const auto setLine = quoting::batchSet(QStringLiteral("TFSETUP_TEST_VALUE"), value);
    QVERIFY(setLine);
    for (const GeneratedFile &f : *windowsFiles) {
        const QString text = QString::fromUtf8(f.contents);
        if (f.path.endsWith(QStringLiteral(".bat"))) {
            QVERIFY2(text.contains(*setLine + QStringLiteral("\r\n")), qPrintable(f.path));
            // The value is ASCII, so is the launcher: no code page switch.
            QVERIFY2(!text.contains(QStringLiteral("chcp")), qPrintable(f.path));
            QCOMPARE(text.count(QStringLiteral("@RUN@")), 1);
        } else if (f.path.endsWith(QStringLiteral(".ps1"))) {
            QVERIFY2(text.contains(QStringLiteral("$env:TFSETUP_TEST_VALUE = ") + quoting::powershell(value)
                                   + QStringLiteral("\r\n")),
                     qPrintable(f.path));
            QCOMPARE(text.count(QStringLiteral("@RUN@")), 1);
        }
    }

    QTemporaryDir dir;
    LauncherContext linux;
    linux.os = OsFamily::Linux;
    linux.environmentPath = dir.path();
    const auto linuxFiles = LauncherWriter::launchers(settings, linux);
    QVERIFY(linuxFiles);
    for (const GeneratedFile &f : *linuxFiles) {
        QFile out(dir.filePath(f.path));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(f.contents);
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SHELL"), QStringLiteral("/bin/sh"));
    QProcess sh;
    sh.setProcessEnvironment(environment);
    sh.start(QStringLiteral("/bin/sh"),
             {dir.filePath(QStringLiteral("shell")), QStringLiteral("-c"),
              QStringLiteral("printf '%s' \"$TFSETUP_TEST_VALUE\"")});
    QVERIFY(sh.waitForFinished(10000));
    QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), value);
}

QTEST_GUILESS_MAIN(TestLauncher)
#include "test_launcher.moc"
