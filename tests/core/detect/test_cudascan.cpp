#include "detect/scanners.h"
#include "detect/versionparsers.h"
#include "support/fixturetree.h"
#include "system/realsystem.h"

#include <QFile>
#include <QFileInfo>
#include <QTest>

using namespace tfsetup::core;
using namespace tfsetup::test;
using namespace Qt::Literals::StringLiterals;

Q_DECLARE_METATYPE(tfsetup::core::OsFamily)

namespace {

QByteArray sample(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/parsers/"_L1 + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::unique_ptr<RootedSystem> openFixture(const QString &name, OsFamily os)
{
    const QString dir = qEnvironmentVariable("TFSETUP_TEST_DATA") + "/fixtures/"_L1 + name;
    auto view = RootedSystem::open(dir + "/root"_L1, os, dir + "/env"_L1);
    return view ? std::move(view.value()) : nullptr;
}

bool hasProblem(const HardwareReport &report, const QString &method, const QString &text)
{
    return std::any_of(report.problems.cbegin(), report.problems.cend(),
                       [&](const Problem &p) { return p.method == method && p.error.contains(text); });
}

const QString toolkitBase = u"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA"_s;

} // namespace

class TestCudaScan : public QObject {
    Q_OBJECT

private slots:
    void windowsTwoToolkits()
    {
        auto view = openFixture(u"windows-two-toolkits"_s, OsFamily::Windows);
        QVERIFY(view);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        scanCudnn(*view, report);
        scanMsvcRuntime(*view, report);

        QCOMPARE(report.cudaToolkits.size(), 2);
        // CUDA_PATH first: it is the toolkit a build picks by default.
        QCOMPARE(report.cudaToolkits[0].path, toolkitBase + "/v11.2"_L1);
        QCOMPARE(report.cudaToolkits[0].source, u"CUDA_PATH"_s);
        QCOMPARE(report.cudaToolkits[0].version, u"11.2.2"_s);
        QCOMPARE(report.cudaToolkits[1].path, toolkitBase + "/v10.1"_L1);
        QCOMPARE(report.cudaToolkits[1].source, u"CUDA_PATH_V10_1"_s);
        QCOMPARE(report.cudaToolkits[1].version, u"10.1.243"_s);

        // One cuDNN copy: the header in v11.2; its DLLs (also on PATH) are not a second copy.
        QCOMPARE(report.cudnn.size(), 1);
        QCOMPARE(report.cudnn[0].path, toolkitBase + "/v11.2/include/cudnn_version.h"_L1);
        QCOMPARE(report.cudnn[0].version, u"8.1.1"_s);
        QCOMPARE(report.cudnn[0].source, u"header"_s);

        QVERIFY(report.msvcRuntime);
        QVERIFY(report.msvcRuntime->present);
        QVERIFY(report.msvcRuntime->missing.isEmpty());
        QCOMPARE(report.msvcRuntime->version, u"14.36.32532.00"_s);
        QVERIFY(report.problems.isEmpty());
    }

    void linuxSymlinkReportedOnce()
    {
        auto view = openFixture(u"linux-cuda118"_s, OsFamily::Linux);
        QVERIFY(view);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        scanCudnn(*view, report);
        QCOMPARE(report.cudaToolkits.size(), 1);
        QCOMPARE(report.cudaToolkits[0].path, u"/usr/local/cuda-11.8"_s);
        QCOMPARE(report.cudaToolkits[0].aliases, QStringList{u"/usr/local/cuda"_s});
        QCOMPARE(report.cudaToolkits[0].version, u"11.8.0"_s);
        QCOMPARE(report.cudnn.size(), 1);
        QCOMPARE(report.cudnn[0].path, u"/usr/local/cuda-11.8/include/cudnn_version.h"_s);
        QCOMPARE(report.cudnn[0].version, u"8.6.0"_s);
    }

    void versionSources_data()
    {
        QTest::addColumn<TreeEntries>("files");
        QTest::addColumn<QString>("version");
        QTest::newRow("version.json") << TreeEntries{{u"usr/local/cuda-11.5/version.json"_s,
                                                      sample(u"version-json/cuda-11.5.2.json"_s)}}
                                      << u"11.5.2"_s;
        QTest::newRow("version.txt") << TreeEntries{{u"usr/local/cuda-10.1/version.txt"_s, "CUDA Version 10.1.243\n"}}
                                     << u"10.1.243"_s;
        QTest::newRow("cuda.h when the version files are gone")
            << TreeEntries{{u"usr/local/cuda-13.0/include/cuda.h"_s, sample(u"cuda-h/cuda-13.0.h"_s)}} << u"13.0"_s;
        QTest::newRow("folder name only as a last resort")
            << TreeEntries{{u"usr/local/cuda-12.1/bin/nvcc"_s, {}}} << u"12.1"_s;
        QTest::newRow("broken version.json falls back to cuda.h")
            << TreeEntries{{u"usr/local/cuda-13.0/version.json"_s, sample(u"version-json/truncated.json"_s)},
                           {u"usr/local/cuda-13.0/include/cuda.h"_s, sample(u"cuda-h/cuda-13.0.h"_s)}}
            << u"13.0"_s;
    }
    void versionSources()
    {
        QFETCH(TreeEntries, files);
        QFETCH(QString, version);
        FixtureTree tree;
        QVERIFY(tree.write(files));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        QCOMPARE(report.cudaToolkits.size(), 1);
        QCOMPARE(report.cudaToolkits[0].version, version);
    }

    void unversionedToolkitIsAProblem()
    {
        FixtureTree tree;
        QVERIFY(tree.write(u"opt/cuda/version.txt"_s, "garbage\n"));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        QCOMPARE(report.cudaToolkits.size(), 1);
        QVERIFY(report.cudaToolkits[0].version.isEmpty());
        QVERIFY(hasProblem(report, u"cuda-toolkit"_s, u"/opt/cuda"_s));
    }

    void cudaPathToNowhereIsAProblem()
    {
        FixtureTree tree;
        QVERIFY(tree.writeEnv({{u"CUDA_PATH"_s, u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"_s}}));
        auto view = tree.open(OsFamily::Windows);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        QVERIFY(report.cudaToolkits.isEmpty());
        QVERIFY(hasProblem(report, u"cuda-toolkit"_s, u"CUDA_PATH="_s));
    }

    void cudnnFromLibraryNames_data()
    {
        QTest::addColumn<OsFamily>("os");
        QTest::addColumn<TreeEntries>("files");
        QTest::addColumn<EnvEntries>("env");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("version");
        QTest::newRow("linux lib64 without headers")
            << OsFamily::Linux
            << TreeEntries{{u"usr/local/cuda-11.8/version.json"_s, sample(u"version-json/cuda-11.8.0.json"_s)},
                           {u"usr/local/cuda-11.8/lib64/libcudnn.so.8"_s, {}},
                           {u"usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0"_s, {}}}
            << EnvEntries{} << u"/usr/local/cuda-11.8/lib64/libcudnn.so.8.6.0"_s << u"8.6.0"_s;
        QTest::newRow("windows dll on PATH outside any toolkit")
            << OsFamily::Windows << TreeEntries{{u"C/tools/cudnn/bin/cudnn64_8.dll"_s, {}}}
            << EnvEntries{{u"PATH"_s, u"C:\\Windows\\system32;C:\\tools\\cudnn\\bin"_s}}
            << u"C:/tools/cudnn/bin/cudnn64_8.dll"_s << u"8"_s;
        QTest::newRow("ubuntu package header in the multiarch folder")
            << OsFamily::Linux
            << TreeEntries{{u"usr/include/x86_64-linux-gnu/cudnn_version_v8.h"_s,
                            sample(u"cudnn/cudnn_version-8.6.0.h"_s)},
                           {u"usr/lib/x86_64-linux-gnu/libcudnn.so.8.6.0"_s, {}}}
            << EnvEntries{} << u"/usr/include/x86_64-linux-gnu/cudnn_version_v8.h"_s << u"8.6.0"_s;
        QTest::newRow("cudnn 7 keeps its numbers in cudnn.h")
            << OsFamily::Linux
            << TreeEntries{{u"usr/local/cuda-10.1/version.txt"_s, "CUDA Version 10.1.243\n"},
                           {u"usr/local/cuda-10.1/include/cudnn.h"_s, sample(u"cudnn/cudnn-7.6.5.h"_s)}}
            << EnvEntries{} << u"/usr/local/cuda-10.1/include/cudnn.h"_s << u"7.6.5"_s;
    }
    void cudnnFromLibraryNames()
    {
        QFETCH(OsFamily, os);
        QFETCH(TreeEntries, files);
        QFETCH(EnvEntries, env);
        QFETCH(QString, path);
        QFETCH(QString, version);
        FixtureTree tree;
        QVERIFY(tree.write(files));
        QVERIFY(tree.writeEnv(env));
        auto view = tree.open(os);
        HardwareReport report;
        scanCudaToolkits(*view, report);
        scanCudnn(*view, report);
        QCOMPARE(report.cudnn.size(), 1);
        QCOMPARE(report.cudnn[0].path, path);
        QCOMPARE(report.cudnn[0].version, version);
    }

    void msvcRuntimeMissing()
    {
        FixtureTree tree;
        QVERIFY(
            tree.write({{u"C/Windows/System32/vcruntime140.dll"_s, {}}, {u"C/Windows/System32/msvcp140.dll"_s, {}}}));
        QVERIFY(tree.writeSystem(
            SystemDescription()
                .registry(u"HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64"_s, u"Major"_s, qint64(14))
                .registry(u"HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64"_s, u"Minor"_s, qint64(16))
                .registry(u"HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64"_s, u"Bld"_s,
                          qint64(27012))));
        auto view = tree.open(OsFamily::Windows);
        HardwareReport report;
        scanMsvcRuntime(*view, report);
        QVERIFY(report.msvcRuntime);
        QVERIFY(!report.msvcRuntime->present);
        QCOMPARE(report.msvcRuntime->missing, (QStringList{u"vcruntime140_1.dll"_s, u"msvcp140_1.dll"_s}));
        QCOMPARE(report.msvcRuntime->version, u"14.16.27012"_s);
    }

    // The toolkit installed on this machine, read through the real system view. Expected
    // values come from the toolkit's own files at test time.
    void realToolkit()
    {
        const QString link = u"/usr/local/cuda"_s;
        if (!QFileInfo(link).isDir())
            QSKIP("no CUDA toolkit at /usr/local/cuda on this machine");
        const QString real = QFileInfo(link).canonicalFilePath();

        QString expected;
        QFile json(link + "/version.json"_L1);
        QFile txt(link + "/version.txt"_L1);
        QFile header(link + "/include/cuda.h"_L1);
        if (json.open(QIODevice::ReadOnly))
            expected = parsers::parseCudaVersionJson(json.readAll()).valueOr({});
        if (expected.isEmpty() && txt.open(QIODevice::ReadOnly))
            expected = parsers::parseCudaVersionTxt(txt.readAll()).valueOr({});
        if (expected.isEmpty() && header.open(QIODevice::ReadOnly))
            expected = parsers::parseCudaHeaderVersion(header.readAll()).valueOr({});
        QVERIFY2(!expected.isEmpty(), "the installed toolkit has no readable version file");

        RealSystem system;
        HardwareReport report;
        scanCudaToolkits(system, report);
        scanCudnn(system, report);
        const auto toolkit = std::find_if(
            report.cudaToolkits.cbegin(), report.cudaToolkits.cend(),
            [&](const CudaToolkitInfo &t) { return QFileInfo(t.path).canonicalFilePath() == real; });
        QVERIFY2(toolkit != report.cudaToolkits.cend(), qPrintable(real));
        QCOMPARE(toolkit->version, expected);
        // Reported once, under the versioned folder when /usr/local/cuda is a link to it.
        QCOMPARE(std::count_if(report.cudaToolkits.cbegin(), report.cudaToolkits.cend(),
                               [&](const CudaToolkitInfo &t) { return QFileInfo(t.path).canonicalFilePath() == real; }),
                 1);
        if (QFileInfo(link).isSymLink()) {
            QCOMPARE(toolkit->path, real);
            QVERIFY(toolkit->aliases.contains(link));
        }

        QString cudnnExpected;
        for (const char *name : {"cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"}) {
            QFile h(link + "/include/"_L1 + QLatin1String(name));
            if (h.open(QIODevice::ReadOnly)) {
                cudnnExpected = parsers::parseCudnnHeader(h.readAll()).valueOr({});
                if (!cudnnExpected.isEmpty())
                    break;
            }
        }
        if (cudnnExpected.isEmpty())
            QSKIP("the installed toolkit carries no cuDNN header");
        const auto copy = std::find_if(report.cudnn.cbegin(), report.cudnn.cend(), [&](const CudnnInfo &c) {
            return QFileInfo(c.path).canonicalPath() == real + "/include"_L1
                || QFileInfo(c.path).canonicalPath() == QFileInfo(real + "/include"_L1).canonicalFilePath();
        });
        QVERIFY(copy != report.cudnn.cend());
        QCOMPARE(copy->version, cudnnExpected);
        QCOMPARE(copy->source, u"header"_s);
    }
};

QTEST_APPLESS_MAIN(TestCudaScan)
#include "test_cudascan.moc"
