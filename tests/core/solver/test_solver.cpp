#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/version.h"
#include "detect/hardwarereport.h"
#include "solver/solver.h"
#include "support/frozencatalog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

// Expected rejections are written "route@tf:code" ("route:code" for a route-level rejection).
class TestSolver : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void recommends_data();
    void recommends();
    void messages_nameTheNumbers();
    void alternatives_windowsRtx4090KeepsNativeWithJit();
    void gpuNameOnly_capabilityFromGpuTable();
    void platformPlans_restOnVerifiedRecords_data();
    void platformPlans_restOnVerifiedRecords();
    void directml_onlyOnWindowsAndWsl2_data();
    void directml_onlyOnWindowsAndWsl2();
    void windowsBuild_gatesWsl2_data();
    void windowsBuild_gatesWsl2();
    void json_hasTheDocumentedShape();

private:
    HardwareReport profile(const QString &name) const;
    Solution solve(const QString &profileName, const SolverConstraints &constraints = {}) const;

    std::optional<Catalog> m_catalog;
    std::optional<GpuTable> m_gpus;
};

void TestSolver::initTestCase()
{
    auto catalog = Catalog::load(tfsetup::test::frozenCatalog());
    QVERIFY2(catalog.ok(), qPrintable(catalog.ok() ? QString() : catalog.error().message));
    m_catalog = *catalog;
    // A small inline table: the solver must not depend on the full GPU catalog's contents.
    const QByteArray table = R"({"schema":1,"records":[
        {"vendor":"nvidia","name":"A100-SXM4-40GB","aliases":["A100"],"pci_ids":["10de:20b0"],
         "compute_capability":"8.0","architecture":"Ampere","source":"https://developer.nvidia.com/cuda-gpus"},
        {"vendor":"nvidia","name":"GeForce RTX 3060","aliases":["RTX 3060"],"pci_ids":["10de:2504"],
         "compute_capability":"8.6","architecture":"Ampere","source":"https://developer.nvidia.com/cuda-gpus"}]})";
    auto gpus = GpuTable::fromJson(table, QStringLiteral("inline"));
    QVERIFY2(gpus.ok(), qPrintable(gpus.ok() ? QString() : gpus.error().message));
    m_gpus = *gpus;
}

HardwareReport TestSolver::profile(const QString &name) const
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/") + name + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing profile %s", qPrintable(f.fileName()));
    return HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
}

Solution TestSolver::solve(const QString &profileName, const SolverConstraints &constraints) const
{
    const Solver solver(*m_catalog, &*m_gpus);
    return solver.solve(profile(profileName), constraints);
}

void TestSolver::recommends_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("tf");
    QTest::addColumn<QString>("python");
    QTest::addColumn<bool>("cpuOnly");
    QTest::addColumn<bool>("keepDriver");
    // expected recommendation; route empty = none
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("tensorflow");
    QTest::addColumn<QString>("pythonVersion");
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("cudnn");
    QTest::addColumn<QStringList>("actions");
    QTest::addColumn<QStringList>("warnings");
    QTest::addColumn<QStringList>("rejections");

    QTest::newRow("windows GTX 1060, old driver: native 2.10 after a driver update")
        << u"windows_gtx1060_old_driver"_s << u""_s << u""_s << false << false << u"windows-native"_s << u"2.10"_s
        << u"3.8"_s << u"11.2"_s << u"8.1"_s << QStringList{u"update_driver"_s, u"install_cuda"_s, u"install_cudnn"_s}
        << QStringList{}
        << QStringList{u"windows-native@2.11:windows_native_gpu_unsupported"_s, u"linux-pip:os_unsupported"_s,
                       u"rocm:os_unsupported"_s};
    QTest::newRow("windows GTX 1060, driver must stay: newest release the driver can run")
        << u"windows_gtx1060_old_driver"_s << u""_s << u""_s << false << true << u"windows-native"_s << u"2.3"_s
        << u"3.8"_s << u"10.1"_s << u"7.6"_s << QStringList{u"install_cuda"_s, u"install_cudnn"_s} << QStringList{}
        << QStringList{u"windows-native@2.10:driver_too_old"_s, u"windows-native@2.4:driver_too_old"_s};
    QTest::newRow("windows RTX 4090: native 2.10 needs PTX JIT, WSL2 suggested")
        << u"windows_rtx4090"_s << u""_s << u""_s << false << false << u"wsl2"_s << u"2.20"_s << u"3.13"_s << u"12.5"_s
        << u"9.3"_s << QStringList{u"use_wsl2"_s, u"install_python"_s} << QStringList{}
        << QStringList{u"windows-native@2.15:windows_native_gpu_unsupported"_s};
    QTest::newRow("linux RTX 3060, driver 535: CUDA from pip, no change")
        << u"linux_rtx3060_driver535"_s << u""_s << u""_s << false << false << u"linux-pip"_s << u"2.20"_s << u"3.10"_s
        << u"12.5"_s << u"9.3"_s << QStringList{} << QStringList{}
        << QStringList{u"windows-native:os_unsupported"_s, u"wsl2:os_unsupported"_s, u"metal:os_unsupported"_s};
    QTest::newRow("linux A100 known by name only")
        << u"linux_a100_name_only"_s << u""_s << u""_s << false << false << u"linux-pip"_s << u"2.20"_s << u"3.11"_s
        << u"12.5"_s << u"9.3"_s << QStringList{} << QStringList{} << QStringList{u"rocm:no_supported_gpu"_s};
    QTest::newRow("linux H100") << u"linux_h100"_s << u""_s << u""_s << false << false << u"linux-pip"_s << u"2.20"_s
                                << u"3.12"_s << u"12.5"_s << u"9.3"_s << QStringList{} << QStringList{}
                                << QStringList{u"linux-toolkit@2.4:gpu_arch_unsupported"_s};
    QTest::newRow("linux H200") << u"linux_h200"_s << u""_s << u""_s << false << false << u"linux-pip"_s << u"2.20"_s
                                << u"3.12"_s << u"12.5"_s << u"9.3"_s << QStringList{} << QStringList{}
                                << QStringList{u"linux-toolkit@2.11:gpu_arch_unsupported"_s};
    QTest::newRow("linux Kepler GTX 770: too old for every release, CPU")
        << u"linux_kepler_gtx770"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.10"_s << u""_s
        << u""_s << QStringList{} << QStringList{u"gpu_unused"_s}
        << QStringList{u"linux-pip@2.20:gpu_too_old"_s, u"linux-toolkit@2.11:gpu_too_old"_s,
                       u"linux-toolkit@1.12:gpu_too_old"_s};
    QTest::newRow("linux RTX 5090: no tested CUDA targets Blackwell, CPU")
        << u"linux_rtx5090"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.12"_s << u""_s
        << u""_s << QStringList{} << QStringList{u"gpu_unused"_s}
        << QStringList{u"linux-pip@2.21:gpu_arch_unsupported"_s, u"linux-pip@2.20:gpu_arch_unsupported"_s};
    QTest::newRow("linux without GPU: CPU")
        << u"linux_no_gpu"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.12"_s << u""_s << u""_s
        << QStringList{} << QStringList{} << QStringList{u"linux-pip:no_nvidia_gpu"_s, u"rocm:no_supported_gpu"_s};
    QTest::newRow("linux AMD GPU: CPU recommended, ROCm only offered")
        << u"linux_amd_gpu"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.12"_s << u""_s
        << u""_s << QStringList{} << QStringList{}
        << QStringList{u"linux-pip:no_nvidia_gpu"_s, u"linux-toolkit:no_nvidia_gpu"_s};
    QTest::newRow("linux CPU without AVX: nothing")
        << u"linux_cpu_without_avx"_s << u""_s << u""_s << false << false << u""_s << u""_s << u""_s << u""_s << u""_s
        << QStringList{u"use_another_machine"_s} << QStringList{} << QStringList{u"cpu:cpu_lacks_avx"_s};
    QTest::newRow("linux Python 3.12 only, pinned TF 2.13: toolkit route with Python 3.11")
        << u"linux_python312_only"_s << u"2.13"_s << u""_s << false << false << u"linux-toolkit"_s << u"2.13"_s
        << u"3.11"_s << u"11.8"_s << u"8.6"_s << QStringList{u"install_python"_s, u"install_cuda"_s, u"install_cudnn"_s}
        << QStringList{} << QStringList{};
    QTest::newRow("linux Python 3.12 pinned with TF 2.13: impossible")
        << u"linux_python312_only"_s << u"2.13"_s << u"3.12"_s << false << false << u""_s << u""_s << u""_s << u""_s
        << u""_s << QStringList{} << QStringList{}
        << QStringList{u"linux-toolkit@2.13:python_unsupported"_s, u"cpu@2.13:python_unsupported"_s};
    QTest::newRow("linux GTX 970 + RTX 3060: newest release, old GPU left out")
        << u"linux_two_gpus"_s << u""_s << u""_s << false << false << u"linux-pip"_s << u"2.20"_s << u"3.10"_s
        << u"12.5"_s << u"9.3"_s << QStringList{} << QStringList{u"gpu_too_old"_s} << QStringList{};
    // tensorflow-metal 1.2.0, its last release, fails to load with TensorFlow 2.20 (routes.json "plugins").
    QTest::newRow("macOS Apple silicon: Metal plug-in, up to its last working TensorFlow")
        << u"macos_apple_silicon"_s << u""_s << u""_s << false << false << u"metal"_s << u"2.19"_s << u"3.12"_s << u""_s
        << u""_s << QStringList{} << QStringList{}
        << QStringList{u"windows-native:os_unsupported"_s, u"linux-pip:os_unsupported"_s,
                       u"wsl2:os_unsupported"_s,           u"rocm:os_unsupported"_s,
                       u"metal@2.20:plugin_unsupported"_s, u"metal@2.21:plugin_unsupported"_s};
    QTest::newRow("inside WSL2 with RTX 3060")
        << u"wsl2_rtx3060"_s << u""_s << u""_s << false << false << u"wsl2"_s << u"2.20"_s << u"3.10"_s << u"12.5"_s
        << u"9.3"_s << QStringList{} << QStringList{}
        << QStringList{u"linux-pip:os_unsupported"_s, u"linux-toolkit:os_unsupported"_s};
    // pip.md: from TF 2.10 `pip install tensorflow` on Linux Arm64 installs a CPU build; NVIDIA's JetPack
    // wheels are not offered (routes.json "not_offered"), so a Jetson gets the CPU and the reason for no GPU.
    QTest::newRow("linux arm64 Jetson: CPU, the GPU routes need x86_64")
        << u"linux_jetson_orin"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.10"_s << u""_s
        << u""_s << QStringList{} << QStringList{u"gpu_unused"_s}
        << QStringList{u"linux-pip:arch_unsupported"_s, u"linux-toolkit:arch_unsupported"_s, u"wsl2:os_unsupported"_s,
                       u"directml:os_unsupported"_s};
    QTest::newRow("linux arm64 server: CPU 2.21 with the installed Python")
        << u"linux_arm64_server"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.21"_s << u"3.12"_s << u""_s
        << u""_s << QStringList{} << QStringList{}
        << QStringList{u"linux-pip:arch_unsupported"_s, u"rocm:arch_unsupported"_s};
    QTest::newRow("linux arm64 server, TF 2.9 pinned: no ARM build before 2.10")
        << u"linux_arm64_server"_s << u"2.9"_s << u""_s << false << false << u""_s << u""_s << u""_s << u""_s << u""_s
        << QStringList{} << QStringList{u"no_such_release"_s} << QStringList{};
    // pip.md: "TensorFlow 2.16 was the last TensorFlow release that supported macOS x86".
    QTest::newRow("macOS Intel: CPU capped at 2.16")
        << u"macos_intel"_s << u""_s << u""_s << false << false << u"cpu"_s << u"2.16"_s << u"3.12"_s << u""_s << u""_s
        << QStringList{} << QStringList{}
        << QStringList{u"cpu@2.17:arch_unsupported"_s, u"cpu@2.21:arch_unsupported"_s, u"metal:arch_unsupported"_s,
                       u"directml:os_unsupported"_s};
    QTest::newRow("macOS Intel, TF 2.17 pinned: rejected by name")
        << u"macos_intel"_s << u"2.17"_s << u""_s << false << false << u""_s << u""_s << u""_s << u""_s << u""_s
        << QStringList{} << QStringList{} << QStringList{u"cpu@2.17:arch_unsupported"_s};
    // pip.md: "supported for WSL2 on Windows 10 19044 or higher"; the report gives the NT version only.
    QTest::newRow("windows 10.0.19041 RTX 3060: WSL2 refused, native 2.10")
        << u"windows_build_19041_nt_version"_s << u""_s << u""_s << false << false << u"windows-native"_s << u"2.10"_s
        << u"3.10"_s << u"11.2"_s << u"8.1"_s << QStringList{u"install_cuda"_s, u"install_cudnn"_s} << QStringList{}
        << QStringList{u"wsl2:os_unsupported"_s, u"windows-native@2.11:windows_native_gpu_unsupported"_s};
    // RELEASE.md 2.3.0: 2.3 has PTX for 7.0 only, earlier releases for a variety of older capabilities.
    QTest::newRow("linux GTX 750 Ti (5.0), TF 2.2: runs through PTX JIT")
        << u"linux_gtx750ti"_s << u"2.2"_s << u""_s << false << false << u"linux-toolkit"_s << u"2.2"_s << u"3.8"_s
        << u"10.1"_s << u"7.6"_s << QStringList{u"install_cuda"_s, u"install_cudnn"_s}
        << QStringList{u"gpu_needs_ptx_jit"_s, u"record_unverified"_s} << QStringList{};
    QTest::newRow("linux GTX 750 Ti (5.0), TF 2.3: no code for it, CPU")
        << u"linux_gtx750ti"_s << u"2.3"_s << u""_s << false << false << u"cpu"_s << u"2.3"_s << u"3.8"_s << u""_s
        << u""_s << QStringList{} << QStringList{u"gpu_unused"_s}
        << QStringList{u"linux-toolkit@2.3:gpu_arch_unsupported"_s};
    QTest::newRow("cpu only asked on RTX 3060")
        << u"linux_rtx3060_driver535"_s << u""_s << u""_s << true << false << u"cpu"_s << u"2.21"_s << u"3.10"_s
        << u""_s << u""_s << QStringList{} << QStringList{} << QStringList{};
}

void TestSolver::recommends()
{
    QFETCH(QString, profile);
    QFETCH(QString, tf);
    QFETCH(QString, python);
    QFETCH(bool, cpuOnly);
    QFETCH(bool, keepDriver);
    QFETCH(QString, route);
    QFETCH(QString, tensorflow);
    QFETCH(QString, pythonVersion);
    QFETCH(QString, cuda);
    QFETCH(QString, cudnn);
    QFETCH(QStringList, actions);
    QFETCH(QStringList, warnings);
    QFETCH(QStringList, rejections);

    SolverConstraints c;
    c.tensorflow = tf;
    c.python = python;
    c.cpuOnly = cpuOnly;
    c.keepDriver = keepDriver;
    const Solution s = solve(profile, c);
    const QString dump = QString::fromUtf8(QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact)).left(4000);

    if (route.isEmpty()) {
        QVERIFY2(!s.recommended, qPrintable(dump));
    } else {
        QVERIFY2(s.recommended, qPrintable(dump));
        QCOMPARE(s.recommended->route, route);
        QVERIFY2(s.recommended->tensorflow.startsWith(tensorflow + u'.'), qPrintable(s.recommended->tensorflow));
        QCOMPARE(s.recommended->python, pythonVersion);
        QCOMPARE(s.recommended->cuda, cuda);
        QCOMPARE(s.recommended->cudnn, cudnn);
        QCOMPARE(s.recommended->driverMin.isEmpty(), cuda.isEmpty());
        QVERIFY(!s.recommended->why.isEmpty());
        QStringList got;
        for (const Finding &a : s.recommended->actions)
            got.append(a.code);
        got.sort();
        actions.sort();
        QCOMPARE(got, actions);
    }
    for (const QString &a : actions)
        QVERIFY2(s.hasAction(a), qPrintable(a));
    for (const QString &w : warnings)
        QVERIFY2(s.hasWarning(w), qPrintable(w + u' ' + dump));
    for (const QString &r : rejections) {
        const QString where = r.section(u':', 0, 0);
        const QString code = r.section(u':', 1);
        const Rejection *rej = s.rejection(where.section(u'@', 0, 0), where.section(u'@', 1));
        QVERIFY2(rej, qPrintable(QStringLiteral("no rejection ") + r));
        QVERIFY2(rej->has(code), qPrintable(r + u' ' + QString::fromUtf8(QJsonDocument(rej->toJson()).toJson())));
        for (const Finding &f : rej->reasons)
            QVERIFY2(!f.message.isEmpty(), qPrintable(r));
    }
}

void TestSolver::messages_nameTheNumbers()
{
    SolverConstraints c;
    c.keepDriver = true;
    const Solution s = solve(QStringLiteral("windows_gtx1060_old_driver"), c);
    const Rejection *rej = s.rejection(QStringLiteral("windows-native"), QStringLiteral("2.10"));
    QVERIFY(rej);
    const QString message = rej->reasons.first().message;
    for (const char *number : {"2.10", "11.2", "452.39", "431.60"})
        QVERIFY2(message.contains(QLatin1String(number)), qPrintable(message));

    const Solution normal = solve(QStringLiteral("windows_gtx1060_old_driver"));
    QVERIFY(normal.recommended);
    QCOMPARE(normal.recommended->driverMin, QStringLiteral("452.39"));
    // The famous wrong name must not appear: TF 2.10 on Windows opens cudart64_110.dll.
    QVERIFY(normal.recommended->libraries.contains(QStringLiteral("cudart64_110.dll")));
    QVERIFY(!normal.recommended->libraries.contains(QStringLiteral("cudart64_112.dll")));
}

void TestSolver::alternatives_windowsRtx4090KeepsNativeWithJit()
{
    const Solution s = solve(QStringLiteral("windows_rtx4090"));
    const auto native = std::find_if(s.alternatives.cbegin(), s.alternatives.cend(), [](const Plan &p) {
        return p.route == u"windows-native" && p.tensorflow.startsWith(u"2.10.");
    });
    QVERIFY(native != s.alternatives.cend());
    QVERIFY(native->hasWarning(QStringLiteral("gpu_needs_ptx_jit")));
    // PTX JIT needs the driver that shipped with CUDA 11.2, not the minor-compatibility floor.
    QCOMPARE(native->driverMin, QStringLiteral("460.82"));
    QVERIFY(native->tier > s.recommended->tier);
}

void TestSolver::gpuNameOnly_capabilityFromGpuTable()
{
    const Solution withTable = solve(QStringLiteral("gpu_name_only"));
    QVERIFY(withTable.hasWarning(QStringLiteral("os_unknown")));
    QVERIFY(withTable.recommended);
    QCOMPARE(withTable.recommended->route, QStringLiteral("linux-pip"));
    QVERIFY(!withTable.recommended->hasWarning(QStringLiteral("gpu_capability_unknown")));

    const Solver noTable(*m_catalog, nullptr);
    const Solution without = noTable.solve(profile(QStringLiteral("gpu_name_only")));
    QVERIFY(without.recommended);
    QVERIFY(without.recommended->hasWarning(QStringLiteral("gpu_capability_unknown")));
}

void TestSolver::platformPlans_restOnVerifiedRecords_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<bool>("cpuOnly");
    QTest::addColumn<QString>("tensorflow");
    // pip.md's wheel table (Linux Arm64, Windows, macOS x86) and source_windows.md's CPU table.
    QTest::newRow("linux arm64 server") << u"linux_arm64_server"_s << false << u"2.21"_s;
    QTest::newRow("Jetson, processor only") << u"linux_jetson_orin"_s << true << u"2.21"_s;
    QTest::newRow("windows, processor only: 2.21") << u"windows_rtx4090"_s << true << u"2.21"_s;
    QTest::newRow("macOS Intel: 2.16") << u"macos_intel"_s << false << u"2.16"_s;
}

void TestSolver::platformPlans_restOnVerifiedRecords()
{
    QFETCH(QString, profile);
    QFETCH(bool, cpuOnly);
    QFETCH(QString, tensorflow);
    SolverConstraints c;
    c.cpuOnly = cpuOnly;
    const Solution s = solve(profile, c);
    QVERIFY(s.recommended);
    QCOMPARE(s.recommended->route, u"cpu"_s);
    QCOMPARE(version::majorMinor(s.recommended->tensorflow), tensorflow);
    QVERIFY2(!s.recommended->unverified && !s.recommended->hasWarning(u"record_unverified"_s),
             qPrintable(QString::fromUtf8(QJsonDocument(s.recommended->toJson()).toJson())));
}

void TestSolver::directml_onlyOnWindowsAndWsl2_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<bool>("offered");
    // microsoft/tensorflow-directml-plugin README: "Windows 10 and the Windows Subsystem for Linux".
    QTest::newRow("plain linux, AMD GPU") << u"linux_amd_gpu"_s << false;
    QTest::newRow("plain linux, RTX 3060") << u"linux_rtx3060_driver535"_s << false;
    QTest::newRow("plain linux arm64") << u"linux_jetson_orin"_s << false;
    QTest::newRow("inside WSL2") << u"wsl2_rtx3060"_s << true;
    QTest::newRow("windows") << u"windows_rtx4090"_s << true;
}

void TestSolver::directml_onlyOnWindowsAndWsl2()
{
    QFETCH(QString, profile);
    QFETCH(bool, offered);
    const Solution s = solve(profile);
    const auto plan = std::find_if(s.alternatives.cbegin(), s.alternatives.cend(),
                                   [](const Plan &p) { return p.route == u"directml"; });
    QCOMPARE(plan != s.alternatives.cend(), offered);
    if (offered) {
        // The README lists Python 3.7 to 3.10; the plugin takes tensorflow-cpu, never tensorflow.
        QVERIFY2(version::inRange(plan->python, u"3.7"_s, u"3.10"_s), qPrintable(plan->python));
        QCOMPARE(plan->package, u"tensorflow-cpu"_s);
        QVERIFY(plan->tier == 4);
        QVERIFY(s.recommended && s.recommended->route != u"directml");
    } else {
        const Rejection *rej = s.rejection(u"directml"_s, QString());
        QVERIFY(rej);
        QVERIFY2(rej->has(u"os_unsupported"_s), qPrintable(QString::fromUtf8(QJsonDocument(rej->toJson()).toJson())));
    }
}

void TestSolver::windowsBuild_gatesWsl2_data()
{
    QTest::addColumn<QString>("osVersion");
    QTest::addColumn<bool>("wsl2");
    QTest::addColumn<bool>("buildUnknown");
    // pip.md: WSL2 GPU needs Windows 10 19044 or higher.
    QTest::newRow("detected form, build 22631") << u"Windows 11 23H2 (build 22631)"_s << true << false;
    QTest::newRow("NT version 10.0.19045") << u"10.0.19045"_s << true << false;
    QTest::newRow("NT version 10.0.19044, the first that fits") << u"10.0.19044"_s << true << false;
    QTest::newRow("NT version 10.0.19041") << u"10.0.19041"_s << false << false;
    QTest::newRow("ver output, 19043") << u"Microsoft Windows [Version 10.0.19043.2364]"_s << false << false;
    QTest::newRow("detected form, build 19042") << u"Windows 10 Pro 20H2 (build 19042)"_s << false << false;
    QTest::newRow("no build at all: offered, and said") << u"Windows 10 Pro"_s << true << true;
}

void TestSolver::windowsBuild_gatesWsl2()
{
    QFETCH(QString, osVersion);
    QFETCH(bool, wsl2);
    QFETCH(bool, buildUnknown);
    HardwareReport report = profile(u"windows_rtx4090"_s);
    report.os.version = osVersion;
    const Solver solver(*m_catalog, &*m_gpus);
    const Solution s = solver.solve(report, {});
    QVERIFY(s.recommended);
    QCOMPARE(s.recommended->route, wsl2 ? u"wsl2"_s : u"windows-native"_s);
    QCOMPARE(s.recommended->hasWarning(u"windows_build_unknown"_s), buildUnknown);
    const Rejection *rej = s.rejection(u"wsl2"_s, QString());
    QCOMPARE(rej != nullptr, !wsl2);
    if (rej) {
        QVERIFY(rej->has(u"os_unsupported"_s));
        QVERIFY2(rej->reasons.first().message.contains(u"19044"_s), qPrintable(rej->reasons.first().message));
    }
}

void TestSolver::json_hasTheDocumentedShape()
{
    const QJsonObject o = solve(QStringLiteral("windows_rtx4090")).toJson();
    for (const char *key : {"recommended", "alternatives", "rejected", "actions", "warnings"})
        QVERIFY2(o.contains(QLatin1String(key)), key);
    const QJsonObject plan = o.value(QStringLiteral("recommended")).toObject();
    for (const char *key :
         {"route", "tensorflow", "package", "python", "cuda", "cudnn", "driver_min", "warnings", "why"})
        QVERIFY2(plan.contains(QLatin1String(key)), key);
    QCOMPARE(plan.value(QStringLiteral("package")).toString(), QStringLiteral("tensorflow[and-cuda]"));
    const QJsonArray gpus = plan.value(QStringLiteral("gpus")).toArray();
    QCOMPARE(gpus.size(), 1);
    const QJsonObject gpu = gpus.first().toObject();
    QCOMPARE(gpu.value(QStringLiteral("index")).toInt(-1), 0);
    QCOMPARE(gpu.value(QStringLiteral("compute_capability")).toString(), QStringLiteral("8.9"));
    QCOMPARE(gpu.value(QStringLiteral("use")).toString(), QStringLiteral("native"));
    QVERIFY(gpu.value(QStringLiteral("reason")).isNull());
    QCOMPARE(gpu.value(QStringLiteral("selected_by_default")), QJsonValue(true));
    const QJsonObject rejected = o.value(QStringLiteral("rejected")).toArray().first().toObject();
    QVERIFY(rejected.value(QStringLiteral("reasons")).toArray().first().toObject().contains(QStringLiteral("code")));

    const QJsonObject cpu =
        solve(QStringLiteral("linux_no_gpu")).toJson().value(QStringLiteral("recommended")).toObject();
    QVERIFY(cpu.value(QStringLiteral("cuda")).isNull());
    QVERIFY(cpu.value(QStringLiteral("driver_min")).isNull());
    QCOMPARE(cpu.value(QStringLiteral("gpus")), QJsonValue(QJsonArray()));
}

QTEST_GUILESS_MAIN(TestSolver)
#include "test_solver.moc"
