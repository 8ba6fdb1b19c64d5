#include "detect/versionparsers.h"

#include <QFile>
#include <QTest>

using namespace tfsetup::core;
using namespace tfsetup::core::parsers;

namespace {

QByteArray sample(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QLatin1String("/parsers/") + relative);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing parser sample %s", qPrintable(relative));
    return f.readAll();
}

// Rows give the expected value, or an empty string where the parser must report an error.
template<typename T, typename F>
void checkVersion(const Result<T> &result, const QString &expected, F value)
{
    if (expected.isEmpty()) {
        QVERIFY2(!result.ok(), "garbage was accepted");
        QVERIFY(!result.error().code.isEmpty());
        QVERIFY(!result.error().message.isEmpty());
        return;
    }
    QVERIFY2(result.ok(), qPrintable(result.ok() ? QString() : result.error().code + u' ' + result.error().detail));
    QCOMPARE(value(result.value()), expected);
}

} // namespace

class TestVersionParsers : public QObject {
    Q_OBJECT

private slots:
    void osRelease_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("prettyName");
        QTest::addColumn<QString>("id");
        QTest::newRow("ubuntu 22.04.3") << "os-release/ubuntu-22.04.3.txt"
                                        << "Ubuntu 22.04.3 LTS"
                                        << "ubuntu";
        QTest::newRow("debian 12") << "os-release/debian-12.txt"
                                   << "Debian GNU/Linux 12 (bookworm)"
                                   << "debian";
        QTest::newRow("binary garbage") << "os-release/garbage.txt"
                                        << ""
                                        << "";
    }
    void osRelease()
    {
        QFETCH(QString, file);
        QFETCH(QString, prettyName);
        QFETCH(QString, id);
        const auto r = parseOsRelease(sample(file));
        checkVersion(r, prettyName, [](const OsRelease &o) { return o.prettyName; });
        if (r)
            QCOMPARE(r->id, id);
    }

    void osReleaseWithoutPrettyName()
    {
        const auto r = parseOsRelease("NAME=\"Fedora Linux\"\nVERSION=\"39 (Workstation Edition)\"\n");
        QVERIFY(r);
        QCOMPARE(r->prettyName, QStringLiteral("Fedora Linux 39 (Workstation Edition)"));
    }

    void kernel_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("release");
        QTest::addColumn<int>("wsl");
        QTest::newRow("wsl2 /proc/version") << "proc-version/wsl2-5.10.60.1.txt"
                                            << "5.10.60.1-microsoft-standard-WSL2" << 2;
        QTest::newRow("wsl1 /proc/version") << "proc-version/wsl1-4.4.0-19041.txt"
                                            << "4.4.0-19041-Microsoft" << 1;
        QTest::newRow("centos 7 is not wsl") << "proc-version/centos7-3.10.0.txt"
                                             << "3.10.0-514.26.2.el7.x86_64" << 0;
        QTest::newRow("wsl2 osrelease") << "proc-version/osrelease-wsl2.txt"
                                        << "5.15.90.1-microsoft-standard-WSL2" << 2;
        QTest::newRow("error text instead of a version") << "proc-version/garbage.txt"
                                                         << "" << 0;
    }
    void kernel()
    {
        QFETCH(QString, file);
        QFETCH(QString, release);
        QFETCH(int, wsl);
        const auto r = parseKernelVersion(sample(file));
        checkVersion(r, release, [](const KernelInfo &k) { return k.release; });
        if (r)
            QCOMPARE(r->wsl, wsl);
    }

    void earlyWsl2KernelWithoutWsl2Suffix()
    {
        // The first WSL2 kernels (4.19 series) were named "-microsoft-standard" only.
        const auto r = parseKernelVersion("4.19.128-microsoft-standard\n");
        QVERIFY(r);
        QCOMPARE(r->wsl, 2);
    }

    void cpuinfo_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("avx");
        QTest::addColumn<bool>("avx2");
        QTest::addColumn<bool>("fma");
        QTest::addColumn<bool>("avx512f");
        QTest::newRow("ryzen 7 2700x: avx2 and fma")
            << "cpuinfo/amd-ryzen7-2700x.txt"
            << "AMD Ryzen 7 2700X Eight-Core Processor" << true << true << true << false;
        QTest::newRow("pentium g640: no avx at all")
            << "cpuinfo/intel-pentium-g640-noavx.txt"
            << "Intel(R) Pentium(R) CPU G640 @ 2.80GHz" << false << false << false << false;
        QTest::newRow("epyc: avx-512") << "cpuinfo/amd-epyc-avx512.txt"
                                       << "AMD EPYC" << true << true << true << true;
        QTest::newRow("meminfo is not cpuinfo") << "cpuinfo/garbage.txt"
                                                << "" << false << false << false << false;
    }
    void cpuinfo()
    {
        QFETCH(QString, file);
        QFETCH(QString, model);
        QFETCH(bool, avx);
        QFETCH(bool, avx2);
        QFETCH(bool, fma);
        QFETCH(bool, avx512f);
        const auto r = parseProcCpuInfo(sample(file));
        checkVersion(r, model, [](const ProcCpuInfo &c) { return c.modelName; });
        if (!r)
            return;
        QVERIFY(r->hasFlags);
        QCOMPARE(r->avx, avx);
        QCOMPARE(r->avx2, avx2);
        QCOMPARE(r->fma, fma);
        QCOMPARE(r->avx512f, avx512f);
    }

    void windowsVersion_data()
    {
        QTest::addColumn<QString>("product");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QString>("build");
        QTest::addColumn<QString>("expected");
        QTest::newRow("windows 10 22h2") << "Windows 10 Pro"
                                         << "22H2"
                                         << "19045"
                                         << "Windows 10 Pro 22H2 (build 19045)";
        QTest::newRow("windows 11 still says 10") << "Windows 10 Home"
                                                  << "23H2"
                                                  << "22631"
                                                  << "Windows 11 Home 23H2 (build 22631)";
        QTest::newRow("first windows 11 build") << "Windows 10 Pro"
                                                << "21H2"
                                                << "22000"
                                                << "Windows 11 Pro 21H2 (build 22000)";
        QTest::newRow("no product name") << ""
                                         << "22H2"
                                         << "19045"
                                         << "";
    }
    void windowsVersion()
    {
        QFETCH(QString, product);
        QFETCH(QString, display);
        QFETCH(QString, build);
        QFETCH(QString, expected);
        checkVersion(windowsVersionText(product, display, build), expected, [](const QString &s) { return s; });
    }

    void windowsBuild_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("as detection writes it") << "Windows 10 Pro 22H2 (build 19045)"
                                                << "19045";
        QTest::newRow("NT version") << "10.0.19045"
                                    << "19045";
        QTest::newRow("NT version with revision") << "10.0.22631.4460"
                                                  << "22631";
        QTest::newRow("ver output") << "Microsoft Windows [Version 10.0.19044.1288]"
                                    << "19044";
        QTest::newRow("Windows 8.1 NT version") << "6.3.9600"
                                                << "9600";
        QTest::newRow("Build word") << "Windows 11 Home, Build 22000"
                                    << "22000";
        QTest::newRow("no build") << "Windows 10 Pro"
                                  << "";
        QTest::newRow("a driver version is not a build") << "546.33"
                                                         << "";
        QTest::newRow("a longer dotted number is not an NT version") << "110.0.19045"
                                                                     << "";
        QTest::newRow("empty") << ""
                               << "";
    }
    void windowsBuild()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        checkVersion(windowsBuildNumber(text), expected, [](int build) { return QString::number(build); });
    }

    void cudaToolkitFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("version.json 11.8.0") << "version-json/cuda-11.8.0.json"
                                             << "11.8.0";
        QTest::newRow("version.json 11.5.2") << "version-json/cuda-11.5.2.json"
                                             << "11.5.2";
        QTest::newRow("version.json date stamp") << "version-json/cuda-12.6-datestamped.json"
                                                 << "12.6";
        QTest::newRow("version.json cudart only") << "version-json/cudart-only.json"
                                                  << "13.2.86";
        QTest::newRow("version.json truncated") << "version-json/truncated.json"
                                                << "";
        QTest::newRow("version.txt 10.1.243") << "version-txt/cuda-10.1.243.txt"
                                              << "10.1.243";
        QTest::newRow("version.txt is html") << "version-txt/garbage.txt"
                                             << "";
        QTest::newRow("cuda.h 13.0") << "cuda-h/cuda-13.0.h"
                                     << "13.0";
        QTest::newRow("cuda.h without CUDA_VERSION") << "cuda-h/garbage.h"
                                                     << "";
    }
    void cudaToolkitFiles()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const QByteArray bytes = sample(file);
        const auto r = file.startsWith(QLatin1String("version-json")) ? parseCudaVersionJson(bytes)
            : file.startsWith(QLatin1String("version-txt"))           ? parseCudaVersionTxt(bytes)
                                                                      : parseCudaHeaderVersion(bytes);
        checkVersion(r, expected, [](const QString &s) { return s; });
    }

    void cudaNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("windows folder v11.2") << "v11.2"
                                              << "11.2";
        QTest::newRow("linux folder cuda-11.8") << "cuda-11.8"
                                                << "11.8";
        QTest::newRow("unversioned symlink") << "cuda"
                                             << "";
        QTest::newRow("env CUDA_PATH_V10_1") << "CUDA_PATH_V10_1"
                                             << "10.1";
        QTest::newRow("env CUDA_PATH") << "CUDA_PATH"
                                       << "";
    }
    void cudaNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        const auto r = name.startsWith(QLatin1String("CUDA_PATH")) ? cudaVersionFromEnvName(name)
                                                                   : cudaVersionFromFolderName(name);
        checkVersion(r, expected, [](const QString &s) { return s; });
    }

    void cudnnHeader_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("cudnn_version.h 8.1.1") << "cudnn/cudnn_version-8.1.1.h"
                                               << "8.1.1";
        QTest::newRow("cudnn_version.h 8.6.0") << "cudnn/cudnn_version-8.6.0.h"
                                               << "8.6.0";
        QTest::newRow("cudnn.h 7.6.5") << "cudnn/cudnn-7.6.5.h"
                                       << "7.6.5";
        QTest::newRow("cudnn.h 7.0.1 aligned defines") << "cudnn/cudnn-7.0.1-aligned.h"
                                                       << "7.0.1";
        QTest::newRow("cudnn.h of 8+ has no numbers") << "cudnn/cudnn-8-no-defines.h"
                                                      << "";
    }
    void cudnnHeader()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        checkVersion(parseCudnnHeader(sample(file)), expected, [](const QString &s) { return s; });
    }

    void cudnnLibraryName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("linux full soname") << "libcudnn.so.8.6.0"
                                           << "8.6.0";
        QTest::newRow("linux major soname") << "libcudnn.so.9"
                                            << "9";
        QTest::newRow("windows dll") << "cudnn64_8.dll"
                                     << "8";
        QTest::newRow("windows dll upper case") << "CUDNN64_8.DLL"
                                                << "8";
        QTest::newRow("sub-library is not the copy") << "libcudnn_ops_infer.so.8"
                                                     << "";
        QTest::newRow("unversioned dev link") << "libcudnn.so"
                                              << "";
    }
    void cudnnLibraryName()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        checkVersion(cudnnVersionFromLibraryName(name), expected, [](const QString &s) { return s; });
    }

    void pyLauncherOldFormat()
    {
        const auto r = parsePyLauncherList(sample(QStringLiteral("py-launcher/old-format.txt")));
        QVERIFY(r);
        QCOMPARE(r->size(), 3);
        QCOMPARE(r->at(0).version, QStringLiteral("3.9"));
        QCOMPARE(r->at(0).bits, 64);
        QVERIFY(r->at(0).isDefault);
        QCOMPARE(r->at(0).path,
                 QStringLiteral("C:\\Users\\14766\\AppData\\Local\\Programs\\Python\\Python39\\python.exe"));
        QVERIFY(!r->at(1).isDefault);
        QCOMPARE(r->at(2).version, QStringLiteral("3.10"));
        QCOMPARE(r->at(2).path, QStringLiteral("D:\\0python_work\\Anaconda\\python.exe"));
    }

    void pyLauncherNewFormat()
    {
        const auto r = parsePyLauncherList(sample(QStringLiteral("py-launcher/new-format.txt")));
        QVERIFY(r);
        QCOMPARE(r->size(), 3);
        QCOMPARE(r->at(0).tag, QStringLiteral("3.12"));
        QCOMPARE(r->at(0).version, QStringLiteral("3.12"));
        QCOMPARE(r->at(0).bits, 0); // the new launcher drops "-64" for 64-bit installs
        QVERIFY(r->at(0).isDefault);
        QCOMPARE(r->at(0).path, QStringLiteral("C:\\Software\\Python\\Python_3_12\\python.exe"));
        QVERIFY(!r->at(2).isDefault);
    }

    void pyLauncherCompanyTag()
    {
        const auto r = parsePyLauncherList(" -V:ContinuumAnalytics/Anaconda39-64 C:\\Anaconda3\\python.exe\r\n");
        QVERIFY(r);
        QCOMPARE(r->size(), 1);
        QCOMPARE(r->at(0).tag, QStringLiteral("ContinuumAnalytics/Anaconda39-64"));
        QVERIFY(r->at(0).version.isEmpty());
        QCOMPARE(r->at(0).bits, 64);
        QCOMPARE(r->at(0).path, QStringLiteral("C:\\Anaconda3\\python.exe"));
    }

    void pyLauncherWithoutPaths_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("py -0 lists no paths") << "py-launcher/list-without-paths.txt";
        QTest::newRow("nothing registered") << "py-launcher/none-found.txt";
    }
    void pyLauncherWithoutPaths()
    {
        QFETCH(QString, file);
        const auto r = parsePyLauncherList(sample(file));
        QVERIFY(!r);
        QCOMPARE(r.error().code, QStringLiteral("py_launcher_unreadable"));
    }

    void pythonFiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("venv pyvenv.cfg") << "pyvenv"
                                         << "pyvenv/venv-3.10.11.cfg"
                                         << "3.10.11";
        QTest::newRow("virtualenv pyvenv.cfg") << "pyvenv"
                                               << "pyvenv/virtualenv-3.12.1.cfg"
                                               << "3.12.1";
        QTest::newRow("desktop file is no pyvenv.cfg") << "pyvenv"
                                                       << "pyvenv/garbage.cfg"
                                                       << "";
        QTest::newRow("conda-meta record") << "conda-meta"
                                           << "python-3.10.11-h966fe2a_2.json"
                                           << "3.10.11";
        QTest::newRow("conda-meta of another package") << "conda-meta"
                                                       << "python_abi-3.10-2_cp310.json"
                                                       << "";
        QTest::newRow("python310.dll") << "dll"
                                       << "python310.dll"
                                       << "3.10";
        QTest::newRow("python3.dll forwarder") << "dll"
                                               << "python3.dll"
                                               << "";
        QTest::newRow("python3.10 name") << "name"
                                         << "python3.10"
                                         << "3.10";
        QTest::newRow("python3 name") << "name"
                                      << "python3"
                                      << "";
    }
    void pythonFiles()
    {
        QFETCH(QString, kind);
        QFETCH(QString, input);
        QFETCH(QString, expected);
        const auto r = kind == u"pyvenv" ? parsePyvenvCfgVersion(sample(input))
            : kind == u"conda-meta"      ? pythonVersionFromCondaMetaName(input)
            : kind == u"dll"             ? pythonVersionFromDllName(input)
                                         : pythonVersionFromName(input);
        checkVersion(r, expected, [](const QString &s) { return s; });
    }

    void patchlevel()
    {
        // The line as CPython's Include/patchlevel.h spells it.
        const auto r = parsePythonPatchlevel("#define PY_MINOR_VERSION        10\n"
                                             "/* Version as a string */\n"
                                             "#define PY_VERSION              \"3.10.12\"\n");
        QVERIFY(r);
        QCOMPARE(*r, QStringLiteral("3.10.12"));
        QVERIFY(!parsePythonPatchlevel("#define PY_VERSION broken\n"));
    }

    void pyvenvVersionInfoTakesDigitsOnly()
    {
        // virtualenv's version_info keeps its numeric prefix; a part with a space or a sign
        // ends it, as a part with letters does ("3.12.1.final.0" -> "3.12.1").
        const auto signedPart = parsePyvenvCfgVersion("version_info = +3.12\n");
        QVERIFY(!signedPart);
        QCOMPARE(signedPart.error().code, QStringLiteral("pyvenv_cfg_unreadable"));
        const auto spaced = parsePyvenvCfgVersion("version_info = 3.11. 4\n");
        QVERIFY(spaced);
        QCOMPARE(*spaced, QStringLiteral("3.11"));
    }

    void probe_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("bits");
        QTest::newRow("64-bit linux") << QByteArray("3.10.12 64\n") << "3.10.12" << 64;
        QTest::newRow("32-bit windows crlf") << QByteArray("3.8.10 32\r\n") << "3.8.10" << 32;
        QTest::newRow("release candidate") << QByteArray("3.13.0rc2 64\n") << "3.13.0" << 64;
        QTest::newRow("store alias message") << QByteArray("Python was not found; run without arguments to install "
                                                           "from the Microsoft Store")
                                             << "" << 0;
        QTest::newRow("empty") << QByteArray() << "" << 0;
    }
    void probe()
    {
        QFETCH(QByteArray, output);
        QFETCH(QString, version);
        QFETCH(int, bits);
        const auto r = parsePythonProbe(output);
        checkVersion(r, version, [](const PythonProbe &p) { return p.version; });
        if (r)
            QCOMPARE(r->bits, bits);
    }

    void randomBytesNeverCrash()
    {
        // Every parser on bytes that mean nothing: each must answer, none may crash.
        QByteArray noise;
        quint32 state = 12345;
        for (int i = 0; i < 4096; ++i) {
            state = state * 1103515245u + 12345u;
            noise.append(char(state >> 24));
        }
        QVERIFY(!parseCudnnHeader(noise));
        QVERIFY(!parseCudaVersionJson(noise));
        QVERIFY(!parseCudaVersionTxt(noise));
        QVERIFY(!parseCudaHeaderVersion(noise));
        QVERIFY(!parsePythonProbe(noise));
        QVERIFY(!parsePyvenvCfgVersion(noise));
        // These may or may not find something in noise; they only must not crash.
        (void)parseOsRelease(noise);
        (void)parseProcCpuInfo(noise);
        (void)parseKernelVersion(noise);
        (void)parsePyLauncherList(noise);
    }
};

QTEST_APPLESS_MAIN(TestVersionParsers)
#include "test_versionparsers.moc"
