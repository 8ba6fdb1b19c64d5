#include "detect/scanners.h"
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

bool hasProblem(const HardwareReport &report, const QString &method)
{
    return std::any_of(report.problems.cbegin(), report.problems.cend(),
                       [&](const Problem &p) { return p.method == method; });
}

const QString currentVersionKey = u"HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"_s;

} // namespace

class TestPlatformScan : public QObject {
    Q_OBJECT

private slots:
    void linuxOs_data()
    {
        QTest::addColumn<TreeEntries>("files");
        QTest::addColumn<EnvEntries>("env");
        QTest::addColumn<int>("wsl");
        QTest::addColumn<bool>("wslCuda");
        QTest::addColumn<bool>("docker");

        const QByteArray ubuntu = sample(u"os-release/ubuntu-22.04.3.txt"_s);
        QTest::newRow("plain ubuntu") << TreeEntries{{u"etc/os-release"_s, ubuntu}} << EnvEntries{} << 0 << false
                                      << false;
        QTest::newRow("wsl1 from /proc/version")
            << TreeEntries{{u"etc/os-release"_s, ubuntu},
                           {u"proc/version"_s, sample(u"proc-version/wsl1-4.4.0-19041.txt"_s)}}
            << EnvEntries{{u"WSL_DISTRO_NAME"_s, u"Ubuntu"_s}} << 1 << false << false;
        QTest::newRow("wsl2 with libcuda")
            << TreeEntries{{u"etc/os-release"_s, ubuntu},
                           {u"proc/version"_s, sample(u"proc-version/wsl2-5.10.60.1.txt"_s)},
                           {u"usr/lib/wsl/lib/libcuda.so.1"_s, {}}}
            << EnvEntries{} << 2 << true << false;
        QTest::newRow("wsl2 from osrelease only")
            << TreeEntries{{u"etc/os-release"_s, ubuntu},
                           {u"proc/sys/kernel/osrelease"_s, sample(u"proc-version/osrelease-wsl2.txt"_s)}}
            << EnvEntries{} << 2 << false << false;
        QTest::newRow("docker by /.dockerenv")
            << TreeEntries{{u"etc/os-release"_s, ubuntu}, {u".dockerenv"_s, {}}} << EnvEntries{} << 0 << false << true;
        QTest::newRow("docker by cgroup")
            << TreeEntries{{u"etc/os-release"_s, ubuntu},
                           {u"proc/1/cgroup"_s,
                            "12:pids:/docker/3601745b3bd54d9780436faa5f0e4f72bb46231663bb99a6bb892764917832c2\n"}}
            << EnvEntries{} << 0 << false << true;
        QTest::newRow("native cgroup v2 is no docker")
            << TreeEntries{{u"etc/os-release"_s, ubuntu}, {u"proc/1/cgroup"_s, "0::/init.scope\n"}} << EnvEntries{} << 0
            << false << false;
    }
    void linuxOs()
    {
        QFETCH(TreeEntries, files);
        QFETCH(EnvEntries, env);
        QFETCH(int, wsl);
        QFETCH(bool, wslCuda);
        QFETCH(bool, docker);
        FixtureTree tree;
        QVERIFY(tree.write(files));
        QVERIFY(tree.writeEnv(env));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanOs(*view, report);
        QCOMPARE(report.os.family, u"linux"_s);
        QCOMPARE(report.os.version, u"Ubuntu 22.04.3 LTS"_s);
        QCOMPARE(report.os.wsl, wsl);
        QCOMPARE(report.os.wslCudaLibrary, wslCuda);
        QCOMPARE(report.os.docker, docker);
        QVERIFY(report.problems.isEmpty());
    }

    void unreadableKernelIsAProblemNotACrash()
    {
        FixtureTree tree;
        QVERIFY(tree.write({{u"proc/version"_s,
                             "\x7f"
                             "ELF\x02\x01 garbage"}}));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanOs(*view, report);
        QCOMPARE(report.os.wsl, 0);
        QVERIFY(hasProblem(report, u"proc-version"_s));
        QVERIFY(hasProblem(report, u"os-release"_s)); // no /etc/os-release at all
    }

    void windowsVersion_data()
    {
        QTest::addColumn<QString>("product");
        QTest::addColumn<QString>("display");
        QTest::addColumn<QString>("build");
        QTest::addColumn<QString>("expected");
        QTest::newRow("windows 10 22h2") << u"Windows 10 Pro"_s << u"22H2"_s << u"19045"_s
                                         << u"Windows 10 Pro 22H2 (build 19045)"_s;
        QTest::newRow("windows 11 reported as 10")
            << u"Windows 10 Home"_s << u"23H2"_s << u"22631"_s << u"Windows 11 Home 23H2 (build 22631)"_s;
    }
    void windowsVersion()
    {
        QFETCH(QString, product);
        QFETCH(QString, display);
        QFETCH(QString, build);
        QFETCH(QString, expected);
        FixtureTree tree;
        QVERIFY(tree.writeSystem(SystemDescription()
                                     .registry(currentVersionKey, u"ProductName"_s, product)
                                     .registry(currentVersionKey, u"DisplayVersion"_s, display)
                                     .registry(currentVersionKey, u"CurrentBuild"_s, build)));
        auto view = tree.open(OsFamily::Windows);
        HardwareReport report;
        scanOs(*view, report);
        QCOMPARE(report.os.family, u"windows"_s);
        QCOMPARE(report.os.version, expected);
        QCOMPARE(report.os.wsl, 0);
    }

    void windowsWithoutRegistryIsAProblem()
    {
        FixtureTree tree;
        auto view = tree.open(OsFamily::Windows);
        HardwareReport report;
        scanOs(*view, report);
        QVERIFY(report.os.version.isEmpty());
        QVERIFY(hasProblem(report, u"registry"_s));
    }

    void cpuFromProcCpuinfo()
    {
        FixtureTree tree;
        QVERIFY(tree.write(u"proc/cpuinfo"_s, sample(u"cpuinfo/intel-pentium-g640-noavx.txt"_s)));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCpu(*view, report);
        QCOMPARE(report.cpu.source, u"proc-cpuinfo"_s);
        QCOMPARE(report.cpu.name, u"Intel(R) Pentium(R) CPU G640 @ 2.80GHz"_s);
        QCOMPARE(report.cpu.avx, std::optional<bool>(false));
        QCOMPARE(report.cpu.avx2, std::optional<bool>(false));
    }

    void cpuidWinsOverFiles()
    {
        CpuIdFeatures id;
        id.vendor = u"GenuineIntel"_s;
        id.brand = u"  Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s; // cpuid pads the brand string
        id.avx = id.avx2 = id.fma = true;
        FixtureTree tree;
        QVERIFY(tree.write(u"proc/cpuinfo"_s, sample(u"cpuinfo/intel-pentium-g640-noavx.txt"_s)));
        QVERIFY(tree.writeSystem(SystemDescription().cpuid(id)));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCpu(*view, report);
        QCOMPARE(report.cpu.source, u"cpuid"_s);
        QCOMPARE(report.cpu.name, u"Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s);
        QCOMPARE(report.cpu.avx2, std::optional<bool>(true));
        QCOMPARE(report.cpu.avx512f, std::optional<bool>(false));
    }

    void cpuidWithoutBrandTakesTheNameFromCpuinfo()
    {
        CpuIdFeatures id;
        id.avx = true;
        FixtureTree tree;
        QVERIFY(tree.write(u"proc/cpuinfo"_s, sample(u"cpuinfo/amd-ryzen7-2700x.txt"_s)));
        QVERIFY(tree.writeSystem(SystemDescription().cpuid(id)));
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCpu(*view, report);
        QCOMPARE(report.cpu.source, u"cpuid"_s);
        QCOMPARE(report.cpu.name, u"AMD Ryzen 7 2700X Eight-Core Processor"_s);
        QCOMPARE(report.cpu.avx2, std::optional<bool>(false)); // cpuid's answer, not the file's
    }

    void windowsCpuFromRegistryHasUnknownFeatures()
    {
        FixtureTree tree;
        QVERIFY(tree.writeSystem(
            SystemDescription().registry(u"HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0"_s,
                                         u"ProcessorNameString"_s, u"Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s)));
        auto view = tree.open(OsFamily::Windows);
        HardwareReport report;
        scanCpu(*view, report);
        QCOMPARE(report.cpu.source, u"registry"_s);
        QCOMPARE(report.cpu.name, u"Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s);
        QVERIFY(!report.cpu.avx.has_value());
        QVERIFY(!report.cpu.avx2.has_value());
    }

    void missingCpuinfoIsAProblem()
    {
        FixtureTree tree;
        auto view = tree.open(OsFamily::Linux);
        HardwareReport report;
        scanCpu(*view, report);
        QVERIFY(report.cpu.name.isEmpty());
        QVERIFY(hasProblem(report, u"cpuinfo"_s));
    }
};

QTEST_APPLESS_MAIN(TestPlatformScan)
#include "test_platformscan.moc"
