#include "system/realsystem.h"
#include "system/rootedsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace std::chrono_literals;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
}

} // namespace

class TestSystemView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void rooted_windowsDriveMapsToFolder()
    {
        writeFile(m_dir.filePath(QStringLiteral("C/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/version.txt")),
                  "CUDA Version 11.2.152\n");
        RootedSystem view(m_dir.path(), OsFamily::Windows, {});
        const QString path = QStringLiteral(
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\version.txt");
        QVERIFY(view.isFile(path));
        QCOMPARE(view.readFile(path).value_or(QByteArray()), QByteArray("CUDA Version 11.2.152\n"));
        // Windows names match whatever their case.
        QVERIFY(view.isFile(QStringLiteral("c:/program files/nvidia gpu computing toolkit/cuda/V11.2/VERSION.TXT")));
        QCOMPARE(view.entries(QStringLiteral("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA")),
                 QStringList{QStringLiteral("v11.2")});
        QVERIFY(!view.exists(QStringLiteral("D:/anything")));
        QVERIFY(view.hostPath(QStringLiteral("relative\\path")).isEmpty());
    }

    void rooted_linuxPathsStayInsideRoot()
    {
        writeFile(m_dir.filePath(QStringLiteral("usr/local/cuda-11.8/version.json")), "{}");
        RootedSystem view(m_dir.path(), OsFamily::Linux, {});
        QVERIFY(view.isDir(QStringLiteral("/usr/local/cuda-11.8")));
        QVERIFY(view.isFile(QStringLiteral("/usr/local/cuda-11.8/version.json")));
        // Case matters on Linux.
        QVERIFY(!view.exists(QStringLiteral("/USR/local/cuda-11.8")));
        // ".." cannot climb out of the root.
        QVERIFY(
            !view.hostPath(QStringLiteral("/../../etc/passwd")).startsWith(QDir::rootPath() + QStringLiteral("etc")));
        QVERIFY(view.hostPath(QStringLiteral("/../x")).isEmpty()
                || view.hostPath(QStringLiteral("/../x")).startsWith(m_dir.path()));
    }

    void rooted_envFileAndPathList_data()
    {
        QTest::addColumn<int>("os");
        QTest::addColumn<QByteArray>("envFile");
        QTest::addColumn<QStringList>("expectedPath");
        QTest::newRow("windows semicolons, quotes, backslashes")
            << int(OsFamily::Windows)
            << QByteArray("Path=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin;\"C:\\My Tools\";;"
                          "C:\\Users\\张三\\anaconda3\\Library\\bin\n")
            << QStringList{QStringLiteral("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin"),
                           QStringLiteral("C:/My Tools"), QStringLiteral("C:/Users/张三/anaconda3/Library/bin")};
        QTest::newRow("linux colons and comments")
            << int(OsFamily::Linux) << QByteArray("# a comment\nPATH=/usr/local/cuda/bin:/usr/bin::/bin/\n")
            << QStringList{QStringLiteral("/usr/local/cuda/bin"), QStringLiteral("/usr/bin"), QStringLiteral("/bin")};
    }

    void rooted_envFileAndPathList()
    {
        QFETCH(int, os);
        QFETCH(QByteArray, envFile);
        QFETCH(QStringList, expectedPath);
        const QString envPath = m_dir.filePath(QStringLiteral("env"));
        writeFile(envPath, envFile);
        auto view = RootedSystem::open(m_dir.path(), OsFamily(os), envPath);
        QVERIFY(view.ok());
        QCOMPARE((*view)->pathList(), expectedPath);
        if (OsFamily(os) == OsFamily::Windows)
            QVERIFY(!(*view)->env(QStringLiteral("PATH")).isEmpty()); // Windows names ignore case
    }

    void rooted_badEnvFileIsAClearError()
    {
        const QString envPath = m_dir.filePath(QStringLiteral("env"));
        writeFile(envPath, "PATH=/usr/bin\nthis line has no equals sign\n");
        auto view = RootedSystem::open(m_dir.path(), OsFamily::Linux, envPath);
        QVERIFY(!view.ok());
        QCOMPARE(view.error().code, QStringLiteral("env_file_malformed"));
        QVERIFY(view.error().message.contains(QStringLiteral("2")));

        auto missing = RootedSystem::open(m_dir.path(), OsFamily::Linux, m_dir.filePath(QStringLiteral("nope")));
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, QStringLiteral("env_file_unreadable"));

        auto noRoot = RootedSystem::open(m_dir.filePath(QStringLiteral("absent")), OsFamily::Linux, {});
        QVERIFY(!noRoot.ok());
        QCOMPARE(noRoot.error().code, QStringLiteral("root_missing"));
    }

    void rooted_cannedCommandsRegistryAndCpuid()
    {
        writeFile(m_dir.filePath(QStringLiteral(".fixture/smi.txt")), "Driver Version: 531.14\n");
        writeFile(m_dir.filePath(QStringLiteral(".fixture/system.json")), R"({
            "arch": "x86_64",
            "registry": {
                "HKLM\\SOFTWARE\\Python\\PythonCore\\3.10\\InstallPath": {"ExecutablePath": "C:\\Python310\\python.exe"},
                "HKLM\\SOFTWARE\\Python\\PythonCore\\3.9\\InstallPath": {"": "C:\\Python39\\"}
            },
            "cpuid": {"vendor": "GenuineIntel", "brand": "Intel(R) Core(TM) i7-9750H", "avx": true, "avx2": true},
            "commands": [
                {"program": "nvidia-smi", "args": ["--query-gpu=name", "*"], "stdout": "GeForce RTX 3060\n"},
                {"program": "nvidia-smi", "stdout_file": "smi.txt"},
                {"program": "py", "args": ["-0p"], "timeout": true}
            ]})");
        RootedSystem view(m_dir.path(), OsFamily::Windows, {});

        const ProcessResult query = QCoro::waitFor(
            view.run(QStringLiteral("nvidia-smi.exe"),
                     {QStringLiteral("--query-gpu=name"), QStringLiteral("--format=csv")}, 1s));
        QVERIFY(query.succeeded());
        QCOMPARE(query.standardOutput, QByteArray("GeForce RTX 3060\n"));

        const ProcessResult plain = QCoro::waitFor(
            view.run(QStringLiteral("C:\\Windows\\System32\\NVIDIA-SMI.EXE"), {}, 1s));
        QCOMPARE(plain.standardOutput, QByteArray("Driver Version: 531.14\n"));

        const ProcessResult slow = QCoro::waitFor(view.run(QStringLiteral("py"), {QStringLiteral("-0p")}, 1s));
        QVERIFY(slow.timedOut);
        QVERIFY(!slow.succeeded());

        const ProcessResult absent = QCoro::waitFor(view.run(QStringLiteral("nvcc"), {}, 1s));
        QVERIFY(!absent.started);
        QVERIFY(!absent.error.isEmpty());

        QCOMPARE(
            view.registryValue(QStringLiteral("HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.10\\InstallPath"),
                               QStringLiteral("executablepath"))
                .value_or(QVariant())
                .toString(),
            QStringLiteral("C:\\Python310\\python.exe"));
        QCOMPARE(view.registrySubkeys(QStringLiteral("HKLM\\SOFTWARE\\Python\\PythonCore")),
                 (QStringList{QStringLiteral("3.10"), QStringLiteral("3.9")}));
        QVERIFY(!view.registryValue(QStringLiteral("HKLM\\SOFTWARE\\Nothing"), QStringLiteral("x")).has_value());

        const auto cpu = view.cpuid();
        QVERIFY(cpu.has_value());
        QVERIFY(cpu->avx2);
        QVERIFY(!cpu->avx512f);

        const LibraryLoad lib = view.loadLibrary(QStringLiteral("nvml.dll"));
        QVERIFY(!lib.library);
        QVERIFY(lib.error.contains(QStringLiteral("nvml.dll")));
    }

    void rooted_findExecutableUsesViewPath()
    {
        writeFile(m_dir.filePath(QStringLiteral("C/Windows/System32/nvidia-smi.exe")), "");
        RootedSystem view(m_dir.path(), OsFamily::Windows,
                          {{QStringLiteral("Path"), QStringLiteral("C:\\Windows\\System32;C:\\Windows")}});
        QCOMPARE(view.findExecutable(QStringLiteral("nvidia-smi")),
                 QStringLiteral("C:/Windows/System32/nvidia-smi.exe"));
        QVERIFY(view.findExecutable(QStringLiteral("nvcc")).isEmpty());
    }

    void real_runCollectsOutputAndTimesOut()
    {
        RealSystem system;
        const ProcessResult echo = QCoro::waitFor(system.run(
            QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("echo hi; echo err >&2; exit 3")}, 5s));
        QVERIFY(echo.started);
        QCOMPARE(echo.exitCode, 3);
        QCOMPARE(echo.standardOutput, QByteArray("hi\n"));
        QCOMPARE(echo.standardError, QByteArray("err\n"));

        QElapsedTimer timer;
        timer.start();
        const ProcessResult slow = QCoro::waitFor(system.run(QStringLiteral("sleep"), {QStringLiteral("30")}, 300ms));
        QVERIFY(slow.timedOut);
        QVERIFY(timer.elapsed() < 10000);

        const ProcessResult missing = QCoro::waitFor(system.run(QStringLiteral("tfsetup-no-such-program"), {}, 1s));
        QVERIFY(!missing.started);
        QVERIFY(missing.error.contains(QStringLiteral("tfsetup-no-such-program")));
    }

    void real_loadLibraryReportsPathOrError()
    {
        RealSystem system;
        const LibraryLoad libc = system.loadLibrary(QStringLiteral("libc.so.6"));
        QVERIFY2(libc.library, qPrintable(libc.error));
        QVERIFY(libc.library->resolve("strlen") != nullptr);
        QVERIFY(libc.library->resolve("tfsetup_no_such_symbol") == nullptr);
        QVERIFY(libc.library->path().contains(QStringLiteral("libc")));

        const LibraryLoad missing = system.loadLibrary(QStringLiteral("libtfsetup-missing.so.1"));
        QVERIFY(!missing.library);
        QVERIFY(missing.error.contains(QStringLiteral("libtfsetup-missing.so.1")));
    }

    void real_cpuidAgreesWithProcCpuinfo()
    {
        RealSystem system;
        const auto cpu = system.cpuid();
        QFile info(QStringLiteral("/proc/cpuinfo"));
        if (!cpu || !info.open(QIODevice::ReadOnly))
            QSKIP("no cpuid or /proc/cpuinfo on this machine");
        const QByteArray text = info.readAll();
        const qsizetype flagsAt = text.indexOf("\nflags");
        QVERIFY(flagsAt >= 0);
        const QList<QByteArray> flags = text.mid(flagsAt, text.indexOf('\n', flagsAt + 1) - flagsAt).split(' ');
        QCOMPARE(cpu->avx, flags.contains("avx"));
        QCOMPARE(cpu->avx2, flags.contains("avx2"));
        QVERIFY(!cpu->vendor.isEmpty());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestSystemView)
#include "test_systemview.moc"
