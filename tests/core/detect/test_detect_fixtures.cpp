#include "detect/detector.h"
#include "detect/reportsummary.h"
#include "support/coroutinetest.h"
#include "system/rootedsystem.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

// Whole-machine detection over the fixture trees in tests/data/fixtures: each imitates one kind
// of student machine, and these tests pin what detectHardware (and `tfsetup detect --json`)
// must say about it.

using namespace tfsetup::core;
using namespace tfsetup::test;
using namespace Qt::Literals::StringLiterals;

Q_DECLARE_METATYPE(tfsetup::core::OsFamily)

namespace {

QString fixtureDir(const QString &name)
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + "/fixtures/"_L1 + name;
}

std::optional<HardwareReport> detect(const QString &name, OsFamily os)
{
    auto view = RootedSystem::open(fixtureDir(name) + "/root"_L1, os, fixtureDir(name) + "/env"_L1);
    if (!view)
        return std::nullopt;
    return awaitTask(detectHardware(**view));
}

void addFixtureColumns()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<OsFamily>("os");
}

void addFixtureRows()
{
    QTest::newRow("windows-two-toolkits") << u"windows-two-toolkits"_s << OsFamily::Windows;
    QTest::newRow("linux-cuda118") << u"linux-cuda118"_s << OsFamily::Linux;
    QTest::newRow("wsl2") << u"wsl2"_s << OsFamily::Linux;
    QTest::newRow("no-gpu") << u"no-gpu"_s << OsFamily::Linux;
}

} // namespace

class TestDetectFixtures : public QObject {
    Q_OBJECT

private slots:
    void windowsTwoToolkits()
    {
        const auto report = detect(u"windows-two-toolkits"_s, OsFamily::Windows);
        QVERIFY(report);
        QCOMPARE(report->os.family, u"windows"_s);
        QCOMPARE(report->os.version, u"Windows 10 Pro 22H2 (build 19045)"_s);
        QCOMPARE(report->os.arch, u"x86_64"_s);
        QCOMPARE(report->os.wsl, 0);
        QCOMPARE(report->cpu.name, u"Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s);
        // The brand from cpuid, as on any x86 Windows machine; the registry's name is the fallback.
        QCOMPARE(report->cpu.source, u"cpuid"_s);
        QCOMPARE(report->cpu.avx, std::optional<bool>(true));

        QCOMPARE(report->pythons.size(), 2);
        QCOMPARE(report->pythons[0].version, u"3.10.11"_s);
        QCOMPARE(report->pythons[0].kind, u"system"_s);
        QCOMPARE(report->pythons[1].kind, u"conda"_s);

        QCOMPARE(report->cudaToolkits.size(), 2);
        QCOMPARE(report->cudaToolkits[0].version, u"11.2.2"_s);
        QCOMPARE(report->cudaToolkits[0].source, u"CUDA_PATH"_s);
        QCOMPARE(report->cudaToolkits[1].version, u"10.1.243"_s);
        QCOMPARE(report->cudnn.size(), 1);
        QCOMPARE(report->cudnn[0].version, u"8.1.1"_s);
        QVERIFY(report->cudnn[0].path.endsWith("/v11.2/include/cudnn_version.h"_L1));
        QVERIFY(report->msvcRuntime);
        QVERIFY(report->msvcRuntime->present);
        QCOMPARE(report->msvcRuntime->version, u"14.36.32532.00"_s);
        // `tfsetup detect`'s text says it too, present or not.
        QVERIFY2(
            ReportSummary::text(*report).contains(u"Microsoft Visual C++ runtime: present, version 14.36.32532.00"_s),
            qPrintable(ReportSummary::text(*report)));
    }

    void reportSummary_saysTheMsvcRuntime()
    {
        HardwareReport report;
        report.os.family = u"windows"_s;
        MsvcRuntimeInfo msvc;
        msvc.missing = {u"msvcp140_1.dll"_s};
        report.msvcRuntime = msvc;
        QVERIFY(
            ReportSummary::lines(report).contains(u"The Microsoft Visual C++ runtime is missing (msvcp140_1.dll)."_s));
        report.msvcRuntime->version = u"14.29.30133"_s;
        QVERIFY(ReportSummary::lines(report).contains(
            u"The Microsoft Visual C++ runtime 14.29.30133 is registered, but msvcp140_1.dll is missing."_s));
        report.msvcRuntime->missing.clear();
        report.msvcRuntime->present = true;
        report.msvcRuntime->version.clear();
        QVERIFY(ReportSummary::lines(report).contains(
            u"Microsoft Visual C++ runtime: present (its version is not registered)"_s));
        // Not a Windows machine: no word about it.
        report.msvcRuntime.reset();
        QVERIFY(!ReportSummary::text(report).contains(u"Visual C++"_s));
    }

    void linuxCuda118()
    {
        const auto report = detect(u"linux-cuda118"_s, OsFamily::Linux);
        QVERIFY(report);
        QCOMPARE(report->os.version, u"Ubuntu 22.04.3 LTS"_s);
        QCOMPARE(report->os.wsl, 0);
        QVERIFY(!report->os.docker);
        QCOMPARE(report->cpu.source, u"proc-cpuinfo"_s);
        QCOMPARE(report->cpu.avx2, std::optional<bool>(true));
        QCOMPARE(report->cpu.avx512f, std::optional<bool>(false));
        QCOMPARE(report->pythons.size(), 1);
        QCOMPARE(report->pythons[0].version, u"3.10.12"_s);
        QCOMPARE(report->cudaToolkits.size(), 1);
        QCOMPARE(report->cudaToolkits[0].path, u"/usr/local/cuda-11.8"_s);
        QCOMPARE(report->cudaToolkits[0].version, u"11.8.0"_s);
        QCOMPARE(report->cudaToolkits[0].aliases, QStringList{u"/usr/local/cuda"_s});
        QCOMPARE(report->cudnn.size(), 1);
        QCOMPARE(report->cudnn[0].version, u"8.6.0"_s);
        QVERIFY(!report->msvcRuntime);
    }

    void wsl2()
    {
        const auto report = detect(u"wsl2"_s, OsFamily::Linux);
        QVERIFY(report);
        QCOMPARE(report->os.wsl, 2);
        QVERIFY(report->os.wslCudaLibrary);
        QCOMPARE(report->cpu.source, u"cpuid"_s);
        QCOMPARE(report->cpu.avx2, std::optional<bool>(true));
        QVERIFY(report->cudaToolkits.isEmpty());
        QVERIFY(report->cudnn.isEmpty());
        QCOMPARE(report->pythons.size(), 1);
    }

    void noGpu()
    {
        const auto report = detect(u"no-gpu"_s, OsFamily::Linux);
        QVERIFY(report);
        QCOMPARE(report->os.version, u"Debian GNU/Linux 12 (bookworm)"_s);
        QCOMPARE(report->cpu.name, u"Intel(R) Pentium(R) CPU G640 @ 2.80GHz"_s);
        QCOMPARE(report->cpu.avx, std::optional<bool>(false));
        QCOMPARE(report->pythons.size(), 1);
        QCOMPARE(report->pythons[0].version, u"3.11.2"_s); // from patchlevel.h, without running it
        QVERIFY(report->cudaToolkits.isEmpty());
        QVERIFY(report->cudnn.isEmpty());
    }

    // GPU and driver fields come from the GPU scanner (gpuscan.cpp); the fixtures carry the
    // nvidia-smi answers and the Windows display-class key it reads.
    void gpuFields_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<OsFamily>("os");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("driver");
        QTest::newRow("windows 531.14") << u"windows-two-toolkits"_s << OsFamily::Windows
                                        << u"NVIDIA GeForce RTX 3060"_s << u"531.14"_s;
        QTest::newRow("linux 535") << u"linux-cuda118"_s << OsFamily::Linux << u"NVIDIA GeForce RTX 3060"_s
                                   << u"535.104.05"_s;
        QTest::newRow("wsl2 reports the windows driver")
            << u"wsl2"_s << OsFamily::Linux << u"NVIDIA GeForce RTX 3060"_s << u"537.13"_s;
        QTest::newRow("no nvidia device") << u"no-gpu"_s << OsFamily::Linux << QString() << QString();
    }
    void gpuFields()
    {
        QFETCH(QString, fixture);
        QFETCH(OsFamily, os);
        QFETCH(QString, gpu);
        QFETCH(QString, driver);
        const auto report = detect(fixture, os);
        QVERIFY(report);
        if (gpu.isEmpty()) {
            QVERIFY(report->nvidiaGpus().isEmpty());
            QVERIFY(!report->driver);
            return;
        }
        QCOMPARE(report->nvidiaGpus().size(), 1);
        QCOMPARE(report->nvidiaGpus().first().name, gpu);
        QCOMPARE(report->nvidiaGpus().first().computeCapability, u"8.6"_s);
        QVERIFY(report->driver);
        QCOMPARE(report->driver->version, driver);
    }

    void cliJson_data()
    {
        addFixtureColumns();
        addFixtureRows();
    }
    void cliJson()
    {
        QFETCH(QString, fixture);
        QFETCH(OsFamily, os);
        const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
        if (binary.isEmpty())
            QSKIP("TFSETUP_BINARY is not set");
        QProcess process;
        process.start(binary,
                      {u"detect"_s, u"--json"_s, u"--root"_s, fixtureDir(fixture) + "/root"_L1, u"--env-file"_s,
                       fixtureDir(fixture) + "/env"_L1, u"--os"_s, osFamilyName(os)});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(process.readAllStandardOutput(), &error);
        QVERIFY2(doc.isObject(), qPrintable(error.errorString()));
        const QJsonObject root = doc.object();
        for (const char *key :
             {"os", "cpu", "gpus", "driver", "pythons", "cuda_toolkits", "cudnn", "msvc_runtime", "problems"})
            QVERIFY2(root.contains(QLatin1String(key)), key);
        QCOMPARE(root.value("os"_L1).toObject().value("family"_L1).toString(), osFamilyName(os));

        // The document says what detectHardware says.
        const auto report = detect(fixture, os);
        QVERIFY(report);
        const HardwareReport parsed = HardwareReport::fromJson(root);
        QCOMPARE(parsed.os.version, report->os.version);
        QCOMPARE(parsed.os.wsl, report->os.wsl);
        QCOMPARE(parsed.cpu.name, report->cpu.name);
        QCOMPARE(parsed.cpu.avx2, report->cpu.avx2);
        QCOMPARE(parsed.pythons.size(), report->pythons.size());
        for (qsizetype i = 0; i < parsed.pythons.size(); ++i) {
            QCOMPARE(parsed.pythons[i].path, report->pythons[i].path);
            QCOMPARE(parsed.pythons[i].version, report->pythons[i].version);
            QCOMPARE(parsed.pythons[i].kind, report->pythons[i].kind);
        }
        QCOMPARE(parsed.cudaToolkits.size(), report->cudaToolkits.size());
        for (qsizetype i = 0; i < parsed.cudaToolkits.size(); ++i) {
            QCOMPARE(parsed.cudaToolkits[i].version, report->cudaToolkits[i].version);
            QCOMPARE(parsed.cudaToolkits[i].aliases, report->cudaToolkits[i].aliases);
        }
        QCOMPARE(parsed.cudnn.size(), report->cudnn.size());
        QCOMPARE(parsed.msvcRuntime.has_value(), os == OsFamily::Windows);
    }
};

QTEST_GUILESS_MAIN(TestDetectFixtures)
#include "test_detect_fixtures.moc"
