#include "catalog/catalog.h"
#include "catalog/version.h"
#include "detect/hardwarereport.h"
#include "solver/solver.h"
#include "solver/stages.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

// Each stage of the solver over the small fixture catalog in tests/data/solver/catalog (a frozen
// excerpt of the shipped one), so that refreshing resources/catalog does not move these rows.
//
// Machines are written as words: "linux rtx3060 driver:535.104.05 python:3.10". Pins likewise:
// "tf:2.20 python:3.8 route:linux-pip cpu-only keep-driver os:windows". Expected codes are
// comma-separated, in order; empty means none.
namespace {

GpuInfo nvidia(const QString &name, const QString &cc, const QString &busId)
{
    GpuInfo g;
    g.vendor = u"nvidia"_s;
    g.name = name;
    g.computeCapability = cc;
    g.pciBusId = busId;
    g.source = u"nvml"_s;
    return g;
}

HardwareReport machine(const QString &words)
{
    HardwareReport r;
    r.os.family = u"linux"_s;
    r.os.version = u"Debian GNU/Linux 12 (bookworm)"_s;
    r.os.arch = u"x86_64"_s;
    r.cpu.name = u"Test processor"_s;
    r.cpu.avx = true;
    for (const QString &word : words.split(u' ', Qt::SkipEmptyParts)) {
        const QString key = word.section(u':', 0, 0);
        const QString value = word.section(u':', 1);
        // A GPU word may end in "@bus": "rtx3060@0000:02:00.0".
        const QString gpuName = word.section(u'@', 0, 0);
        const QString bus = word.contains(u'@') ? word.section(u'@', 1) : QString();
        if (word == u"linux") {
            // the default
        } else if (word == u"windows") {
            r.os.family = u"windows"_s;
            r.os.version = u"Windows 11 23H2 (build 22631)"_s;
            r.msvcRuntime = MsvcRuntimeInfo{true, u"14.38"_s, {}};
        } else if (word == u"windows-build-unknown") {
            r.os.family = u"windows"_s;
            r.os.version = u"Windows"_s;
        } else if (key == u"build") {
            r.os.version = u"Windows 10 (build "_s + value + u')';
        } else if (word == u"macos") {
            r.os.family = u"macos"_s;
            r.os.version = u"macOS 13.6"_s;
        } else if (word == u"no-os") {
            r.os.family.clear();
            r.os.version.clear();
        } else if (word == u"wsl1" || word == u"wsl2") {
            r.os.wsl = word.back().digitValue();
        } else if (word == u"arm64") {
            r.os.arch = u"arm64"_s;
            r.cpu.avx.reset();
        } else if (word == u"no-avx") {
            r.cpu.avx = false;
        } else if (key == u"msvc") {
            r.msvcRuntime = MsvcRuntimeInfo{value == u"yes", {}, {}};
        } else if (gpuName == u"gtx770") {
            r.gpus.append(nvidia(u"NVIDIA GeForce GTX 770"_s, u"3.0"_s, bus));
        } else if (gpuName == u"gtx970") {
            r.gpus.append(nvidia(u"NVIDIA GeForce GTX 970"_s, u"5.2"_s, bus));
        } else if (gpuName == u"rtx3060") {
            r.gpus.append(nvidia(u"NVIDIA GeForce RTX 3060"_s, u"8.6"_s, bus));
        } else if (gpuName == u"rtx4090") {
            r.gpus.append(nvidia(u"NVIDIA GeForce RTX 4090"_s, u"8.9"_s, bus));
        } else if (gpuName == u"h100") {
            r.gpus.append(nvidia(u"NVIDIA H100 PCIe"_s, u"9.0"_s, bus));
        } else if (gpuName == u"rtx5090") {
            r.gpus.append(nvidia(u"NVIDIA GeForce RTX 5090"_s, u"12.0"_s, bus));
        } else if (gpuName == u"nvidia-unknown") {
            r.gpus.append(nvidia(u"NVIDIA Graphics Device"_s, QString(), bus));
        } else if (word == u"radeon") {
            GpuInfo g;
            g.vendor = u"amd"_s;
            g.name = u"AMD Radeon RX 7900 XTX"_s;
            r.gpus.append(g);
        } else if (key == u"driver") {
            r.driver = DriverInfo{value, {}, u"nvml"_s};
        } else if (key == u"driver-cuda") {
            r.driver = DriverInfo{{}, value, u"nvidia-smi"_s};
        } else if (key == u"python") {
            r.pythons.append(PythonInfo{u"/usr/bin/python"_s + value, value + u".1"_s, u"system"_s, 64, u"path"_s});
        } else if (key == u"toolkit") {
            r.cudaToolkits.append(CudaToolkitInfo{u"/usr/local/cuda-"_s + value, value, u"folder"_s, {}});
        } else if (key == u"cudnn") {
            r.cudnn.append(CudnnInfo{u"/usr/include/cudnn_version.h"_s, value, u"header"_s});
        } else {
            qFatal("unknown machine word %s", qPrintable(word));
        }
    }
    return r;
}

SolverConstraints pins(const QString &words)
{
    SolverConstraints c;
    for (const QString &word : words.split(u' ', Qt::SkipEmptyParts)) {
        const QString key = word.section(u':', 0, 0);
        const QString value = word.section(u':', 1);
        if (key == u"tf")
            c.tensorflow = value;
        else if (key == u"python")
            c.python = value;
        else if (key == u"route")
            c.route = value;
        else if (key == u"os")
            c.os = value;
        else if (word == u"cpu-only")
            c.cpuOnly = true;
        else if (word == u"keep-driver")
            c.keepDriver = true;
        else
            qFatal("unknown pin %s", qPrintable(word));
    }
    return c;
}

bool listed(const QList<stages::Filter> &filters, const stages::Filter *filter)
{
    return std::any_of(filters.cbegin(), filters.cend(), [&](const stages::Filter &f) { return &f == filter; });
}

QString codes(const QList<Finding> &findings)
{
    QStringList out;
    for (const Finding &f : findings)
        out.append(f.code);
    return out.join(u',');
}

} // namespace

class TestSolverStages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void machine_gpuIndicesFollowBusOrder_data();
    void machine_gpuIndicesFollowBusOrder();

    void candidates_routes_data();
    void candidates_routes();
    void candidates_releases_data();
    void candidates_releases();
    void candidates_python_data();
    void candidates_python();
    void candidates_gpuAssessment_data();
    void candidates_gpuAssessment();

    void filters_route_data();
    void filters_route();
    void filters_release_data();
    void filters_release();
    void filters_decisiveRejectionStands();

    void ranking_order_data();
    void ranking_order();
    void ranking_tiers_data();
    void ranking_tiers();

    void explanation_solution_data();
    void explanation_solution();
    void explanation_cpuFallbackAndExperimental();

    void planGpus_useAndDefaultSelection_data();
    void planGpus_useAndDefaultSelection();
    void planGpus_json();

private:
    stages::Context context(const QString &machineWords, const QString &pinWords = {}) const;
    std::optional<stages::Candidate> releaseCandidate(const stages::Context &c, const QString &route,
                                                      const QString &tf) const;

    std::optional<Catalog> m_catalog;
};

void TestSolverStages::initTestCase()
{
    auto catalog = Catalog::load(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/solver/catalog"_s);
    QVERIFY2(catalog.ok(), qPrintable(catalog.ok() ? QString() : catalog.error().message));
    m_catalog = *catalog;
    // The fixture holds to the catalog's own invariants, so the rows below test sane knowledge.
    QCOMPARE(m_catalog->problems().join(u"; "), QString());
    QCOMPARE(m_catalog->routeNames(),
             QStringList({u"windows-native"_s, u"linux-pip"_s, u"linux-toolkit"_s, u"wsl2"_s, u"cpu"_s, u"rocm"_s}));
}

stages::Context TestSolverStages::context(const QString &machineWords, const QString &pinWords) const
{
    return stages::makeContext(*m_catalog, nullptr, machine(machineWords), pins(pinWords));
}

std::optional<stages::Candidate> TestSolverStages::releaseCandidate(const stages::Context &c, const QString &route,
                                                                    const QString &tf) const
{
    const Route *r = m_catalog->route(route);
    if (!r)
        return std::nullopt;
    for (const stages::Candidate &candidate : stages::releaseCandidates(c, *r)) {
        if (version::matchesPrefix(tf, candidate.release->version))
            return candidate;
    }
    return std::nullopt;
}

// ---- 0. machine ----------------------------------------------------------------------------

void TestSolverStages::machine_gpuIndicesFollowBusOrder_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QList<int>>("indices"); // per NVIDIA GPU, in the report's order

    QTest::newRow("one GPU") << u"rtx3060@00000000:01:00.0"_s << QList<int>{0};
    QTest::newRow("report in bus order") << u"rtx3060@0000:01:00.0 gtx970@0000:02:00.0"_s << QList<int>{0, 1};
    QTest::newRow("report fastest first, bus order differs")
        << u"rtx4090@00000000:41:00.0 gtx970@00000000:0A:00.0 rtx3060@00000000:21:00.0"_s << QList<int>{2, 0, 1};
    QTest::newRow("bus ids in two spellings") << u"rtx4090@0000:02:00.0 gtx970@00000000:01:00.0"_s << QList<int>{1, 0};
    QTest::newRow("domain counts first") << u"rtx4090@0001:01:00.0 gtx970@0000:81:00.0"_s << QList<int>{1, 0};
    QTest::newRow("a bus id missing: report order") << u"rtx4090@0000:02:00.0 gtx970"_s << QList<int>{0, 1};
    QTest::newRow("a bus id unreadable: report order") << u"rtx4090@0000:02:00.0 gtx970@slot-1"_s << QList<int>{0, 1};
    QTest::newRow("other vendors are not numbered") << u"radeon rtx3060@0000:03:00.0"_s << QList<int>{0};
}

void TestSolverStages::machine_gpuIndicesFollowBusOrder()
{
    QFETCH(QString, machine);
    QFETCH(QList<int>, indices);
    const stages::Machine m = stages::readMachine(::machine(machine), {}, nullptr);
    QList<int> got;
    for (const stages::MachineGpu &g : m.nvidia)
        got.append(g.index);
    QCOMPARE(got, indices);
    for (const stages::MachineGpu &g : m.others)
        QCOMPARE(g.index, -1);
}

// ---- 1. candidates -------------------------------------------------------------------------

void TestSolverStages::candidates_routes_data()
{
    QTest::addColumn<QString>("pins");
    QTest::addColumn<QString>("routes");

    QTest::newRow("every route") << QString() << u"windows-native,linux-pip,linux-toolkit,wsl2,cpu,rocm"_s;
    QTest::newRow("pinned route") << u"route:linux-toolkit"_s << u"linux-toolkit"_s;
    QTest::newRow("cpu only") << u"cpu-only"_s << u"cpu"_s;
    QTest::newRow("cpu only and an accelerated route") << u"cpu-only route:linux-pip"_s << QString();
    QTest::newRow("unknown route") << u"route:cuda-everywhere"_s << QString();
}

void TestSolverStages::candidates_routes()
{
    QFETCH(QString, pins);
    QFETCH(QString, routes);
    QStringList got;
    for (const stages::Candidate &c : stages::routeCandidates(context(u"linux rtx3060"_s, pins))) {
        QVERIFY(c.isRoute());
        got.append(c.route->name);
    }
    QCOMPARE(got.join(u','), routes);
}

void TestSolverStages::candidates_releases_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("pins");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("releases"); // newest first, as the rejections list them

    QTest::newRow("windows-native: the releases past its end by name, then its own")
        << u"windows rtx3060"_s << QString() << u"windows-native"_s << u"2.21.0,2.20.0,2.15.0,2.13.0,2.10.0,2.9.0"_s;
    QTest::newRow("windows-native, pinned past its end")
        << u"windows rtx3060"_s << u"tf:2.15"_s << u"windows-native"_s << u"2.15.0"_s;
    QTest::newRow("linux-pip: only releases with pip CUDA")
        << u"linux rtx3060"_s << QString() << u"linux-pip"_s << u"2.21.0,2.20.0,2.15.0"_s;
    QTest::newRow("linux-toolkit: every Linux release")
        << u"linux rtx3060"_s << QString() << u"linux-toolkit"_s << u"2.21.0,2.20.0,2.15.0,2.13.0,2.10.0"_s;
    QTest::newRow("pinned release") << u"linux rtx3060"_s << u"tf:2.15"_s << u"linux-toolkit"_s << u"2.15.0"_s;
    QTest::newRow("pinned release the route lacks")
        << u"linux rtx3060"_s << u"tf:2.13"_s << u"linux-pip"_s << QString();
    QTest::newRow("cpu on Intel macOS: past the last release there by name")
        << u"macos"_s << QString() << u"cpu"_s << u"2.21.0,2.20.0,2.15.0,2.13.0,2.10.0"_s;
    QTest::newRow("cpu on Linux arm64: from the first release there")
        << u"linux arm64"_s << QString() << u"cpu"_s << u"2.21.0,2.20.0,2.15.0,2.13.0,2.10.0"_s;
    QTest::newRow("rocm: its own list") << u"linux radeon"_s << QString() << u"rocm"_s << u"2.15.0,2.13.0"_s;
}

void TestSolverStages::candidates_releases()
{
    QFETCH(QString, machine);
    QFETCH(QString, pins);
    QFETCH(QString, route);
    QFETCH(QString, releases);
    const stages::Context c = context(machine, pins);
    QStringList got;
    for (const stages::Candidate &candidate : stages::releaseCandidates(c, *m_catalog->route(route))) {
        QVERIFY(!candidate.isRoute());
        QCOMPARE(candidate.route->name, route);
        got.append(candidate.release->version);
    }
    QCOMPARE(got.join(u','), releases);
}

void TestSolverStages::candidates_python_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("pins");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("tf");
    QTest::addColumn<QString>("python");
    QTest::addColumn<bool>("installed");

    QTest::newRow("installed and supported")
        << u"linux rtx3060 python:3.10"_s << QString() << u"linux-pip"_s << u"2.20"_s << u"3.10"_s << true;
    QTest::newRow("the newest installed that fits") << u"linux rtx3060 python:3.9 python:3.12 python:3.13"_s
                                                    << QString() << u"linux-pip"_s << u"2.15"_s << u"3.9"_s << true;
    QTest::newRow("none installed fits: the newest supported")
        << u"linux rtx3060 python:3.12"_s << QString() << u"linux-pip"_s << u"2.15"_s << u"3.11"_s << false;
    QTest::newRow("pinned and supported")
        << u"linux rtx3060 python:3.12"_s << u"python:3.10"_s << u"linux-pip"_s << u"2.20"_s << u"3.10"_s << false;
    QTest::newRow("pinned and unsupported: none")
        << u"linux rtx3060 python:3.10"_s << u"python:3.8"_s << u"linux-pip"_s << u"2.20"_s << QString() << false;
    QTest::newRow("from Windows into WSL2: the host's Pythons do not count")
        << u"windows rtx3060 python:3.10"_s << QString() << u"wsl2"_s << u"2.20"_s << u"3.13"_s << false;
}

void TestSolverStages::candidates_python()
{
    QFETCH(QString, machine);
    QFETCH(QString, pins);
    QFETCH(QString, route);
    QFETCH(QString, tf);
    QFETCH(QString, python);
    QFETCH(bool, installed);
    const auto candidate = releaseCandidate(context(machine, pins), route, tf);
    QVERIFY(candidate);
    QCOMPARE(candidate->python, python);
    QCOMPARE(candidate->pythonInstalled, installed);
}

void TestSolverStages::candidates_gpuAssessment_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("os");
    QTest::addColumn<QString>("tf");
    QTest::addColumn<int>("fit");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("messageHas");

    using F = stages::GpuFit;
    QTest::newRow("RTX 3060 on 2.10: SASS 8.0, CUDA 11.2 targets 8.6")
        << u"rtx3060"_s << u"linux"_s << u"2.10.0"_s << int(F::Native) << QString() << QString();
    QTest::newRow("GTX 970 on 2.15: SASS 5.0")
        << u"gtx970"_s << u"linux"_s << u"2.15.0"_s << int(F::Native) << QString() << QString();
    QTest::newRow("RTX 4090 on 2.10: newer than CUDA 11.2's targets")
        << u"rtx4090"_s << u"windows"_s << u"2.10.0"_s << int(F::Jit) << u"gpu_needs_ptx_jit"_s
        << u"targets up to 8.6"_s;
    QTest::newRow("GTX 770 on 2.20: below the lowest code")
        << u"gtx770"_s << u"linux"_s << u"2.20.0"_s << int(F::TooOld) << u"gpu_too_old"_s
        << u"compute capability 6.0 and newer"_s;
    QTest::newRow("GTX 970 on 2.20: below the lowest code")
        << u"gtx970"_s << u"linux"_s << u"2.20.0"_s << int(F::TooOld) << u"gpu_too_old"_s << u"has 5.2"_s;
    QTest::newRow("H100 on 2.10: a major CUDA 11.2 cannot target")
        << u"h100"_s << u"linux"_s << u"2.10.0"_s << int(F::Unsupported) << u"gpu_arch_unsupported"_s
        << u"built with CUDA 11.8 or newer"_s;
    QTest::newRow("RTX 5090 on 2.21: a major CUDA 12.5 cannot target")
        << u"rtx5090"_s << u"linux"_s << u"2.21.0"_s << int(F::Unsupported) << u"gpu_arch_unsupported"_s
        << u"built with CUDA 12.8 or newer"_s;
    QTest::newRow("capability unknown") << u"nvidia-unknown"_s << u"linux"_s << u"2.20.0"_s << int(F::Unknown)
                                        << u"gpu_capability_unknown"_s << u"run tfsetup detect"_s;
}

void TestSolverStages::candidates_gpuAssessment()
{
    QFETCH(QString, gpu);
    QFETCH(QString, os);
    QFETCH(QString, tf);
    QFETCH(int, fit);
    QFETCH(QString, code);
    QFETCH(QString, messageHas);
    const stages::Context c = context(u"linux "_s + gpu);
    QCOMPARE(c.machine.nvidia.size(), 1);
    const auto release = m_catalog->release(os, tf);
    QVERIFY(release);
    const stages::AssessedGpu a = stages::assessGpu(c, c.machine.nvidia.first(), *release);
    QCOMPARE(int(a.fit), fit);
    QCOMPARE(a.finding.code, code);
    QVERIFY2(a.finding.message.contains(messageHas), qPrintable(a.finding.message));
    if (!code.isEmpty())
        QVERIFY2(a.finding.message.contains(c.machine.nvidia.first().name), qPrintable(a.finding.message));
}

// ---- 2. filters ----------------------------------------------------------------------------

void TestSolverStages::filters_route_data()
{
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("reasons");

    QTest::newRow("platform: Linux on a Linux route")
        << u"platform"_s << u"linux rtx3060"_s << u"linux-pip"_s << QString();
    QTest::newRow("platform: Windows route on Linux")
        << u"platform"_s << u"linux rtx3060"_s << u"windows-native"_s << u"os_unsupported"_s;
    QTest::newRow("platform: WSL1 has no GPU")
        << u"platform"_s << u"linux wsl1 rtx3060"_s << u"linux-pip"_s << u"os_unsupported"_s;
    QTest::newRow("platform: WSL1 for the CPU") << u"platform"_s << u"linux wsl1 rtx3060"_s << u"cpu"_s << QString();
    QTest::newRow("platform: inside WSL2, not a native Linux route")
        << u"platform"_s << u"linux wsl2 rtx3060"_s << u"linux-pip"_s << u"os_unsupported"_s;
    QTest::newRow("platform: inside WSL2, the wsl2 route")
        << u"platform"_s << u"linux wsl2 rtx3060"_s << u"wsl2"_s << QString();
    QTest::newRow("platform: the wsl2 route on plain Linux")
        << u"platform"_s << u"linux rtx3060"_s << u"wsl2"_s << u"os_unsupported"_s;
    QTest::newRow("platform: Windows below the WSL2 build")
        << u"platform"_s << u"windows build:17763 rtx3060"_s << u"wsl2"_s << u"os_unsupported"_s;
    QTest::newRow("platform: Windows at the WSL2 build")
        << u"platform"_s << u"windows build:19044 rtx3060"_s << u"wsl2"_s << QString();
    QTest::newRow("platform: Windows build unknown is not rejected")
        << u"platform"_s << u"windows-build-unknown rtx3060"_s << u"wsl2"_s << QString();
    QTest::newRow("platform: arm64 on an x86_64 route")
        << u"platform"_s << u"linux arm64 rtx3060"_s << u"linux-pip"_s << u"arch_unsupported"_s;
    QTest::newRow("platform: arm64 Linux has CPU packages")
        << u"platform"_s << u"linux arm64"_s << u"cpu"_s << QString();
    QTest::newRow("platform: arm64 Windows has none")
        << u"platform"_s << u"windows arm64"_s << u"cpu"_s << u"arch_unsupported"_s;

    QTest::newRow("accelerator: NVIDIA route with an NVIDIA GPU")
        << u"accelerator"_s << u"linux rtx3060"_s << u"linux-pip"_s << QString();
    QTest::newRow("accelerator: no GPU") << u"accelerator"_s << u"linux"_s << u"linux-pip"_s << u"no_nvidia_gpu"_s;
    QTest::newRow("accelerator: an AMD GPU on an NVIDIA route")
        << u"accelerator"_s << u"linux radeon"_s << u"linux-toolkit"_s << u"no_nvidia_gpu"_s;
    QTest::newRow("accelerator: ROCm without AMD")
        << u"accelerator"_s << u"linux rtx3060"_s << u"rocm"_s << u"no_supported_gpu"_s;
    QTest::newRow("accelerator: ROCm with AMD") << u"accelerator"_s << u"linux radeon"_s << u"rocm"_s << QString();
    QTest::newRow("accelerator: CPU needs none") << u"accelerator"_s << u"linux"_s << u"cpu"_s << QString();

    QTest::newRow("cpu: AVX present") << u"cpu"_s << u"linux rtx3060"_s << u"linux-pip"_s << QString();
    QTest::newRow("cpu: no AVX") << u"cpu"_s << u"linux no-avx rtx3060"_s << u"linux-pip"_s << u"cpu_lacks_avx"_s;
    QTest::newRow("cpu: no AVX, CPU route too") << u"cpu"_s << u"linux no-avx"_s << u"cpu"_s << u"cpu_lacks_avx"_s;
    QTest::newRow("cpu: AVX unknown") << u"cpu"_s << u"linux arm64"_s << u"cpu"_s << QString();
}

void TestSolverStages::filters_route()
{
    QFETCH(QString, filter);
    QFETCH(QString, machine);
    QFETCH(QString, route);
    QFETCH(QString, reasons);
    const stages::Filter *f = stages::filterNamed(filter);
    QVERIFY(f);
    QVERIFY(listed(stages::routeFilters(), f));
    stages::Candidate candidate;
    candidate.route = m_catalog->route(route);
    QVERIFY(candidate.route);
    const stages::Verdict v = f->check(context(machine), candidate);
    QCOMPARE(codes(v.reasons), reasons);
    QCOMPARE(v.rejected(), !reasons.isEmpty());
    for (const Finding &r : v.reasons)
        QVERIFY(!r.message.isEmpty());
}

void TestSolverStages::filters_release_data()
{
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("pins");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("tf");
    QTest::addColumn<QString>("reasons");
    QTest::addColumn<QString>("warnings");
    QTest::addColumn<QString>("actions");

    const QString l3060 = u"linux rtx3060 driver:535.104.05 python:3.10"_s;
    QTest::newRow("release_window: within the route")
        << u"release_window"_s << u"windows rtx3060"_s << QString() << u"windows-native"_s << u"2.10"_s << QString()
        << QString() << QString();
    QTest::newRow("release_window: past native Windows' end")
        << u"release_window"_s << u"windows rtx3060"_s << QString() << u"windows-native"_s << u"2.15"_s
        << u"windows_native_gpu_unsupported"_s << QString() << QString();

    QTest::newRow("platform_release: published for Intel macOS")
        << u"platform_release"_s << u"macos"_s << QString() << u"cpu"_s << u"2.15"_s << QString() << QString()
        << QString();
    QTest::newRow("platform_release: past Intel macOS' last")
        << u"platform_release"_s << u"macos"_s << QString() << u"cpu"_s << u"2.20"_s << u"arch_unsupported"_s
        << QString() << QString();

    QTest::newRow("python: installed") << u"python"_s << l3060 << QString() << u"linux-pip"_s << u"2.20"_s << QString()
                                       << QString() << QString();
    QTest::newRow("python: to install") << u"python"_s << u"linux rtx3060 python:3.8"_s << QString() << u"linux-pip"_s
                                        << u"2.20"_s << QString() << QString() << u"install_python"_s;
    QTest::newRow("python: none installed") << u"python"_s << u"linux rtx3060"_s << QString() << u"linux-pip"_s
                                            << u"2.20"_s << QString() << QString() << u"install_python"_s;
    QTest::newRow("python: pinned, unsupported") << u"python"_s << l3060 << u"python:3.8"_s << u"linux-pip"_s
                                                 << u"2.20"_s << u"python_unsupported"_s << QString() << QString();

    QTest::newRow("gpu: native") << u"gpu"_s << l3060 << QString() << u"linux-pip"_s << u"2.20"_s << QString()
                                 << QString() << QString();
    QTest::newRow("gpu: the only GPU too old") << u"gpu"_s << u"linux gtx770"_s << QString() << u"linux-pip"_s
                                               << u"2.20"_s << u"gpu_too_old"_s << QString() << QString();
    QTest::newRow("gpu: a second GPU too old is a warning")
        << u"gpu"_s << u"linux gtx770 rtx3060"_s << QString() << u"linux-pip"_s << u"2.20"_s << QString()
        << u"gpu_too_old"_s << QString();
    QTest::newRow("gpu: architecture unsupported") << u"gpu"_s << u"linux h100"_s << QString() << u"linux-toolkit"_s
                                                   << u"2.10"_s << u"gpu_arch_unsupported"_s << QString() << QString();
    QTest::newRow("gpu: PTX JIT is a warning") << u"gpu"_s << u"windows rtx4090"_s << QString() << u"windows-native"_s
                                               << u"2.10"_s << QString() << u"gpu_needs_ptx_jit"_s << QString();
    QTest::newRow("gpu: capability unknown is a warning")
        << u"gpu"_s << u"linux nvidia-unknown"_s << QString() << u"linux-pip"_s << u"2.20"_s << QString()
        << u"gpu_capability_unknown"_s << QString();
    QTest::newRow("gpu: not asked on the CPU route")
        << u"gpu"_s << u"linux gtx770"_s << QString() << u"cpu"_s << u"2.20"_s << QString() << QString() << QString();

    QTest::newRow("driver: new enough") << u"driver"_s << l3060 << QString() << u"linux-pip"_s << u"2.20"_s << QString()
                                        << QString() << QString();
    QTest::newRow("driver: too old, to update")
        << u"driver"_s << u"linux rtx3060 driver:470.82.01"_s << QString() << u"linux-pip"_s << u"2.20"_s << QString()
        << QString() << u"update_driver"_s;
    QTest::newRow("driver: too old, kept")
        << u"driver"_s << u"linux rtx3060 driver:470.82.01"_s << u"keep-driver"_s << u"linux-pip"_s << u"2.20"_s
        << u"driver_too_old"_s << QString() << QString();
    QTest::newRow("driver: only its CUDA known, too old")
        << u"driver"_s << u"linux rtx3060 driver-cuda:11.4"_s << QString() << u"linux-pip"_s << u"2.20"_s << QString()
        << QString() << u"update_driver"_s;
    QTest::newRow("driver: only its CUDA known, enough")
        << u"driver"_s << u"linux rtx3060 driver-cuda:12.2"_s << QString() << u"linux-pip"_s << u"2.20"_s << QString()
        << QString() << QString();
    QTest::newRow("driver: none") << u"driver"_s << u"linux rtx3060"_s << QString() << u"linux-pip"_s << u"2.20"_s
                                  << QString() << QString() << u"install_driver"_s;
    QTest::newRow("driver: minor compatibility floor without JIT")
        << u"driver"_s << u"windows rtx3060 driver:452.39"_s << QString() << u"windows-native"_s << u"2.10"_s
        << QString() << QString() << QString();
    QTest::newRow("driver: PTX JIT needs the toolkit's driver")
        << u"driver"_s << u"windows rtx4090 driver:452.39"_s << QString() << u"windows-native"_s << u"2.10"_s
        << QString() << QString() << u"update_driver"_s;

    QTest::newRow("cuda_libraries: none installed")
        << u"cuda_libraries"_s << l3060 << QString() << u"linux-toolkit"_s << u"2.10"_s << QString() << QString()
        << u"install_cuda,install_cudnn"_s;
    QTest::newRow("cuda_libraries: both installed")
        << u"cuda_libraries"_s << (l3060 + u" toolkit:11.2.2 cudnn:8.1.1"_s) << QString() << u"linux-toolkit"_s
        << u"2.10"_s << QString() << QString() << QString();
    QTest::newRow("cuda_libraries: cuDNN of another major")
        << u"cuda_libraries"_s << (l3060 + u" toolkit:11.2.2 cudnn:7.6.5"_s) << QString() << u"linux-toolkit"_s
        << u"2.10"_s << QString() << QString() << u"install_cudnn"_s;
    QTest::newRow("cuda_libraries: pip brings them") << u"cuda_libraries"_s << l3060 << QString() << u"linux-pip"_s
                                                     << u"2.20"_s << QString() << QString() << QString();

    QTest::newRow("msvc_runtime: present") << u"msvc_runtime"_s << u"windows rtx3060 msvc:yes"_s << QString()
                                           << u"windows-native"_s << u"2.10"_s << QString() << QString() << QString();
    QTest::newRow("msvc_runtime: missing")
        << u"msvc_runtime"_s << u"windows rtx3060 msvc:no"_s << QString() << u"windows-native"_s << u"2.10"_s
        << QString() << QString() << u"install_msvc_runtime"_s;
    QTest::newRow("msvc_runtime: not inside WSL2") << u"msvc_runtime"_s << u"windows rtx3060 msvc:no"_s << QString()
                                                   << u"wsl2"_s << u"2.20"_s << QString() << QString() << QString();

    QTest::newRow("windows_build: known") << u"windows_build"_s << u"windows rtx3060"_s << QString() << u"wsl2"_s
                                          << u"2.20"_s << QString() << QString() << QString();
    QTest::newRow("windows_build: unknown")
        << u"windows_build"_s << u"windows-build-unknown rtx3060"_s << QString() << u"wsl2"_s << u"2.20"_s << QString()
        << u"windows_build_unknown"_s << QString();
}

void TestSolverStages::filters_release()
{
    QFETCH(QString, filter);
    QFETCH(QString, machine);
    QFETCH(QString, pins);
    QFETCH(QString, route);
    QFETCH(QString, tf);
    QFETCH(QString, reasons);
    QFETCH(QString, warnings);
    QFETCH(QString, actions);
    const stages::Filter *f = stages::filterNamed(filter);
    QVERIFY(f);
    QVERIFY(listed(stages::releaseFilters(), f));
    const stages::Context c = context(machine, pins);
    const auto candidate = releaseCandidate(c, route, tf);
    QVERIFY(candidate);
    const stages::Verdict v = f->check(c, *candidate);
    QCOMPARE(codes(v.reasons), reasons);
    QCOMPARE(codes(v.warnings), warnings);
    QCOMPARE(codes(v.actions), actions);
    for (const QList<Finding> *list : {&v.reasons, &v.warnings, &v.actions}) {
        for (const Finding &finding : *list)
            QVERIFY(!finding.message.isEmpty());
    }
}

void TestSolverStages::filters_decisiveRejectionStands()
{
    // TensorFlow 2.15 past native Windows' end is rejected for that alone, not also for a Python
    // the user pinned that it lacks.
    const stages::Context c = context(u"windows rtx3060"_s, u"python:3.8"_s);
    const auto past = releaseCandidate(c, u"windows-native"_s, u"2.15"_s);
    QVERIFY(past);
    QCOMPARE(codes(stages::screen(stages::releaseFilters(), c, *past).reasons), u"windows_native_gpu_unsupported"_s);
    // Without a decisive rejection every filter speaks, in order.
    const stages::Context old = context(u"linux gtx770 driver:470.82.01"_s, u"python:3.8 keep-driver"_s);
    const auto within = releaseCandidate(old, u"linux-pip"_s, u"2.20"_s);
    QVERIFY(within);
    QCOMPARE(codes(stages::screen(stages::releaseFilters(), old, *within).reasons),
             u"python_unsupported,gpu_too_old,driver_too_old"_s);
}

// ---- 3. ranking ----------------------------------------------------------------------------

void TestSolverStages::ranking_order_data()
{
    QTest::addColumn<QString>("first"); // "tier route tf actions [unverified]"
    QTest::addColumn<QString>("second");

    QTest::newRow("a better tier beats a newer release") << u"0 linux-toolkit 2.10.0 0"_s << u"2 linux-pip 2.21.0 0"_s;
    QTest::newRow("native before WSL2") << u"0 windows-native 2.10.0 2"_s << u"1 wsl2 2.20.0 1"_s;
    QTest::newRow("JIT before CPU") << u"2 windows-native 2.10.0 0"_s << u"3 cpu 2.21.0 0"_s;
    QTest::newRow("CPU before experimental") << u"3 cpu 2.13.0 0"_s << u"4 rocm 2.15.0 0"_s;
    QTest::newRow("verified before a newer unverified")
        << u"0 linux-pip 2.20.0 0"_s << u"0 linux-pip 2.21.0 0 unverified"_s;
    QTest::newRow("newest release") << u"0 linux-toolkit 2.15.0 3"_s << u"0 linux-pip 2.10.0 0"_s;
    QTest::newRow("patch releases count") << u"0 linux-pip 2.16.2 0"_s << u"0 linux-pip 2.16.1 0"_s;
    QTest::newRow("fewest actions") << u"0 linux-toolkit 2.15.0 1"_s << u"0 linux-pip 2.15.0 2"_s;
    QTest::newRow("then the route order") << u"0 linux-pip 2.15.0 1"_s << u"0 linux-toolkit 2.15.0 1"_s;
}

void TestSolverStages::ranking_order()
{
    QFETCH(QString, first);
    QFETCH(QString, second);
    auto plan = [](const QString &text) {
        const QStringList w = text.split(u' ');
        Plan p;
        p.tier = w.at(0).toInt();
        p.route = w.at(1);
        p.tensorflow = w.at(2);
        for (int i = 0; i < w.at(3).toInt(); ++i)
            p.actions.append({u"install_python"_s, u"…"_s});
        p.unverified = w.size() > 4;
        return p;
    };
    const QStringList order = m_catalog->routeNames();
    const Plan a = plan(first);
    const Plan b = plan(second);
    QVERIFY(stages::rankedBefore(a, b, order));
    QVERIFY(!stages::rankedBefore(b, a, order));
    QList<Plan> plans{b, a};
    stages::rank(plans, order);
    QCOMPARE(plans.first().route + plans.first().tensorflow, a.route + a.tensorflow);
}

void TestSolverStages::ranking_tiers_data()
{
    QTest::addColumn<QString>("route");
    QTest::addColumn<bool>("jit");
    QTest::addColumn<bool>("wsl2");
    QTest::addColumn<int>("tier");

    QTest::newRow("native") << u"linux-pip"_s << false << false << 0;
    QTest::newRow("after switching to WSL2") << u"wsl2"_s << false << true << 1;
    QTest::newRow("PTX JIT") << u"windows-native"_s << true << false << 2;
    QTest::newRow("PTX JIT inside WSL2") << u"wsl2"_s << true << true << 2;
    QTest::newRow("CPU") << u"cpu"_s << false << false << 3;
    QTest::newRow("experimental") << u"rocm"_s << false << false << 4;
}

void TestSolverStages::ranking_tiers()
{
    QFETCH(QString, route);
    QFETCH(bool, jit);
    QFETCH(bool, wsl2);
    QFETCH(int, tier);
    QCOMPARE(stages::tierOf(*m_catalog->route(route), jit, wsl2), tier);
}

// ---- 4. explanation ------------------------------------------------------------------------

void TestSolverStages::explanation_solution_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("pins");
    QTest::addColumn<QString>("recommended"); // "route tf", empty for none
    QTest::addColumn<QString>("whyHas");
    QTest::addColumn<QString>("actions");
    QTest::addColumn<QString>("warnings");
    QTest::addColumn<QString>("rejected"); // one "route@tf:code" ("route:code") that must be there

    QTest::newRow("Linux RTX 3060: the newest verified pip release")
        << u"linux rtx3060 driver:535.104.05 python:3.10"_s << QString() << u"linux-pip 2.20.0"_s
        << u"TensorFlow 2.21 is newer and listed as an alternative"_s << QString() << QString()
        << u"windows-native:os_unsupported"_s;
    QTest::newRow("Windows RTX 4090: WSL2 natively before native Windows with JIT")
        << u"windows rtx4090 driver:560.94"_s << QString() << u"wsl2 2.20.0"_s << u"inside WSL2"_s
        << u"use_wsl2,install_python"_s << QString() << u"windows-native@2.15:windows_native_gpu_unsupported"_s;
    QTest::newRow("Windows RTX 3060 pinned to native Windows")
        << u"windows rtx3060 driver:560.94 python:3.10"_s << u"route:windows-native"_s << u"windows-native 2.10.0"_s
        << u"runs natively on your NVIDIA GeForce RTX 3060 (compute capability 8.6)"_s
        << u"install_cuda,install_cudnn"_s << QString() << u"windows-native@2.20:windows_native_gpu_unsupported"_s;
    QTest::newRow("no GPU: the CPU") << u"linux python:3.12"_s << QString() << u"cpu 2.21.0"_s
                                     << u"TensorFlow 2.21 runs on the CPU."_s << QString() << QString()
                                     << u"linux-pip:no_nvidia_gpu"_s;
    QTest::newRow("a GPU too old: the CPU, and why")
        << u"linux gtx770 driver:470.82.01 python:3.12"_s << QString() << u"cpu 2.21.0"_s
        << u"No GPU route fits this machine"_s << QString() << u"gpu_unused"_s << u"linux-pip@2.20:gpu_too_old"_s;
    QTest::newRow("no AVX: nothing, and another machine")
        << u"linux no-avx rtx3060"_s << QString() << QString() << QString() << u"use_another_machine"_s
        << u"gpu_unused"_s << u"cpu:cpu_lacks_avx"_s;
    QTest::newRow("a release the catalog lacks")
        << u"linux rtx3060 driver:535.104.05"_s << u"tf:2.99"_s << QString() << QString() << QString()
        << u"no_such_release,gpu_unused"_s << QString();
    QTest::newRow("OS unknown: Linux assumed") << u"no-os python:3.12"_s << QString() << u"cpu 2.21.0"_s
                                               << u"runs on the CPU"_s << QString() << u"os_unknown"_s << QString();
}

void TestSolverStages::explanation_solution()
{
    QFETCH(QString, machine);
    QFETCH(QString, pins);
    QFETCH(QString, recommended);
    QFETCH(QString, whyHas);
    QFETCH(QString, actions);
    QFETCH(QString, warnings);
    QFETCH(QString, rejected);
    const Solution s = Solver(*m_catalog, nullptr).solve(::machine(machine), ::pins(pins));
    QCOMPARE(s.recommended ? s.recommended->route + u' ' + s.recommended->tensorflow : QString(), recommended);
    if (s.recommended) {
        QVERIFY2(s.recommended->why.contains(whyHas), qPrintable(s.recommended->why));
        // The recommendation's own findings are the solution's, global ones added.
        QCOMPARE(codes(s.recommended->actions), actions);
    }
    QCOMPARE(codes(s.actions), actions);
    QCOMPARE(codes(s.warnings), warnings);
    if (!rejected.isEmpty()) {
        const QString where = rejected.section(u':', 0, 0);
        const Rejection *r = s.rejection(where.section(u'@', 0, 0), where.section(u'@', 1));
        QVERIFY2(r, qPrintable(where));
        QVERIFY2(r->has(rejected.section(u':', 1)), qPrintable(codes(r->reasons)));
    }
    // Alternatives come in ranking order and never repeat the recommendation.
    const QStringList order = m_catalog->routeNames();
    for (qsizetype i = 1; i < s.alternatives.size(); ++i)
        QVERIFY(!stages::rankedBefore(s.alternatives.at(i), s.alternatives.at(i - 1), order));
    for (const Plan &p : s.alternatives)
        QVERIFY(!s.recommended || p.route != s.recommended->route || p.tensorflow != s.recommended->tensorflow);
}

void TestSolverStages::explanation_cpuFallbackAndExperimental()
{
    const stages::Context c = context(u"linux radeon python:3.12"_s);
    const auto rocm = releaseCandidate(c, u"rocm"_s, u"2.15"_s);
    const auto cpu = releaseCandidate(c, u"cpu"_s, u"2.21"_s);
    QVERIFY(rocm && cpu);
    const Plan experimental = stages::planFor(c, *rocm, stages::screen(stages::releaseFilters(), c, *rocm));
    QCOMPARE(experimental.tier, 4);
    QVERIFY(experimental.hasWarning(u"route_experimental"_s));
    QVERIFY(experimental.hasWarning(u"record_unverified"_s));
    QCOMPARE(codes(experimental.actions), u"install_python,install_rocm"_s);
    QVERIFY(experimental.gpus.isEmpty());
    const Plan fallback = stages::planFor(c, *cpu, stages::screen(stages::releaseFilters(), c, *cpu));
    QCOMPARE(fallback.tier, 3);

    // An experimental plan alone is offered, never recommended.
    const Solution only = stages::explain(c, {experimental}, {}, true);
    QVERIFY(!only.recommended);
    QCOMPARE(only.alternatives.size(), 1);

    // Beside a GPU plan the CPU plan is the fallback; the why says which.
    QList<Plan> plans{fallback, experimental};
    stages::rank(plans, m_catalog->routeNames());
    const Solution both = stages::explain(c, plans, {}, true);
    QVERIFY(both.recommended);
    QCOMPARE(both.recommended->route, u"cpu"_s);
    QVERIFY2(both.recommended->why.startsWith(u"TensorFlow 2.21 on the processor only"_s),
             qPrintable(both.recommended->why));
    QCOMPARE(both.alternatives.size(), 1);
    QCOMPARE(both.alternatives.first().route, u"rocm"_s);

    // Rejections pass through in the order they were made.
    const QList<Rejection> rejected{{QString(), u"linux-pip"_s, {{u"no_nvidia_gpu"_s, u"…"_s}}},
                                    {u"2.20.0"_s, u"cpu"_s, {{u"python_unsupported"_s, u"…"_s}}}};
    const Solution withRejections = stages::explain(c, plans, rejected, true);
    QCOMPARE(withRejections.rejected.size(), 2);
    QCOMPARE(withRejections.rejected.at(1).route, u"cpu"_s);
}

void TestSolverStages::planGpus_useAndDefaultSelection_data()
{
    QTest::addColumn<QString>("machine");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("tf");
    QTest::addColumn<QString>("gpus"); // per index: "use" or "use:reason"
    QTest::addColumn<QList<int>>("selected");

    QTest::newRow("one GPU, native") << u"linux rtx3060"_s << u"linux-pip"_s << u"2.20"_s << u"native"_s
                                     << QList<int>{0};
    QTest::newRow("a GPU too old beside a native one, by bus order")
        << u"linux rtx3060@0000:02:00.0 gtx770@0000:01:00.0"_s << u"linux-pip"_s << u"2.20"_s
        << u"unusable:gpu_too_old native"_s << QList<int>{1};
    QTest::newRow("JIT only: the JIT GPU")
        << u"windows rtx4090"_s << u"windows-native"_s << u"2.10"_s << u"ptx_jit:gpu_needs_ptx_jit"_s << QList<int>{0};
    QTest::newRow("native and JIT: the native one")
        << u"windows rtx4090@0000:01:00.0 rtx3060@0000:02:00.0"_s << u"windows-native"_s << u"2.10"_s
        << u"ptx_jit:gpu_needs_ptx_jit native"_s << QList<int>{1};
    QTest::newRow("two native") << u"linux rtx3060@0000:01:00.0 rtx4090@0000:02:00.0"_s << u"linux-pip"_s << u"2.20"_s
                                << u"native native"_s << QList<int>{0, 1};
    QTest::newRow("unsupported architecture beside JIT")
        << u"windows h100@0000:01:00.0 rtx4090@0000:02:00.0"_s << u"windows-native"_s << u"2.10"_s
        << u"unusable:gpu_arch_unsupported ptx_jit:gpu_needs_ptx_jit"_s << QList<int>{1};
    QTest::newRow("capability unknown: nothing selected") << u"linux nvidia-unknown"_s << u"linux-pip"_s << u"2.20"_s
                                                          << u"unusable:gpu_capability_unknown"_s << QList<int>{};
    QTest::newRow("CPU route: no GPU list") << u"linux rtx3060"_s << u"cpu"_s << u"2.20"_s << QString() << QList<int>{};
}

void TestSolverStages::planGpus_useAndDefaultSelection()
{
    QFETCH(QString, machine);
    QFETCH(QString, route);
    QFETCH(QString, tf);
    QFETCH(QString, gpus);
    QFETCH(QList<int>, selected);
    const stages::Context c = context(machine);
    const auto candidate = releaseCandidate(c, route, tf);
    QVERIFY(candidate);
    const Plan p = stages::planFor(c, *candidate, stages::screen(stages::releaseFilters(), c, *candidate));
    QStringList got;
    for (qsizetype i = 0; i < p.gpus.size(); ++i) {
        const PlanGpu &g = p.gpus.at(i);
        QCOMPARE(g.index, int(i));
        QVERIFY(!g.name.isEmpty());
        QCOMPARE(g.reason.has_value(), g.use != PlanGpu::Use::Native);
        got.append(PlanGpu::useName(g.use) + (g.reason ? u':' + g.reason->code : QString()));
    }
    QCOMPARE(got.join(u' '), gpus);
    QCOMPARE(p.defaultGpuSelection(), selected);
}

void TestSolverStages::planGpus_json()
{
    const stages::Context c = context(u"linux rtx3060@0000:02:00.0 gtx770@0000:01:00.0"_s);
    const auto candidate = releaseCandidate(c, u"linux-pip"_s, u"2.20"_s);
    QVERIFY(candidate);
    const QJsonObject plan =
        stages::planFor(c, *candidate, stages::screen(stages::releaseFilters(), c, *candidate)).toJson();
    const QJsonArray gpus = plan.value(u"gpus"_s).toArray();
    QCOMPARE(gpus.size(), 2);
    const QJsonObject first = gpus.at(0).toObject();
    QCOMPARE(first.value(u"index"_s).toInt(-1), 0);
    QCOMPARE(first.value(u"name"_s).toString(), u"NVIDIA GeForce GTX 770"_s);
    QCOMPARE(first.value(u"compute_capability"_s).toString(), u"3.0"_s);
    QCOMPARE(first.value(u"use"_s).toString(), u"unusable"_s);
    QCOMPARE(first.value(u"reason"_s).toObject().value(u"code"_s).toString(), u"gpu_too_old"_s);
    QVERIFY(!first.value(u"reason"_s).toObject().value(u"message"_s).toString().isEmpty());
    QCOMPARE(first.value(u"selected_by_default"_s), QJsonValue(false));
    const QJsonObject second = gpus.at(1).toObject();
    QCOMPARE(second.value(u"index"_s).toInt(-1), 1);
    QCOMPARE(second.value(u"compute_capability"_s).toString(), u"8.6"_s);
    QCOMPARE(second.value(u"use"_s).toString(), u"native"_s);
    QVERIFY(second.value(u"reason"_s).isNull());
    QCOMPARE(second.value(u"selected_by_default"_s), QJsonValue(true));

    const stages::Context unknown = context(u"linux nvidia-unknown"_s);
    const auto u = releaseCandidate(unknown, u"linux-pip"_s, u"2.20"_s);
    QVERIFY(u);
    const QJsonObject g = stages::planFor(unknown, *u, stages::screen(stages::releaseFilters(), unknown, *u))
                              .toJson()
                              .value(u"gpus"_s)
                              .toArray()
                              .first()
                              .toObject();
    QVERIFY(g.value(u"compute_capability"_s).isNull());
    QCOMPARE(g.value(u"use"_s).toString(), u"unusable"_s);
}

QTEST_APPLESS_MAIN(TestSolverStages)
#include "test_solver_stages.moc"
