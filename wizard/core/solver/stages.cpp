#include "solver/stages.h"

#include "catalog/version.h"
#include "detect/versionparsers.h"
#include "solver/routenames.h"

#include <algorithm>
#include <numeric>

namespace tfsetup::core::stages {

namespace {

QString vendorOf(const GpuInfo &g)
{
    const QString v = g.vendor.trimmed().toLower();
    if (!v.isEmpty())
        return v;
    const QString pci = g.pciId.toLower();
    if (pci.startsWith(u"10de:"))
        return QStringLiteral("nvidia");
    if (pci.startsWith(u"1002:"))
        return QStringLiteral("amd");
    if (pci.startsWith(u"8086:"))
        return QStringLiteral("intel");
    const QString n = g.name.toLower();
    for (const char *hint : {"nvidia", "geforce", "quadro", "tesla", "titan", "rtx"}) {
        if (n.contains(QLatin1String(hint)))
            return QStringLiteral("nvidia");
    }
    if (n.contains(u"radeon") || n.contains(u"amd") || n.contains(u"instinct"))
        return QStringLiteral("amd");
    if (n.contains(u"intel"))
        return QStringLiteral("intel");
    if (n.contains(u"apple"))
        return QStringLiteral("apple");
    return {};
}

// "00000000:01:00.0" (NVML, nvidia-smi), "0000:01:00.0" (CUDA, sysfs) or "01:00.0", as one
// number that sorts like the address; nullopt when the text is not a bus address.
std::optional<quint64> busOrder(const QString &busId)
{
    QStringList parts = busId.trimmed().toLower().split(u':');
    if (parts.size() == 2)
        parts.prepend(QStringLiteral("0"));
    if (parts.size() != 3)
        return std::nullopt;
    const QStringList deviceFunction = parts.at(2).split(u'.');
    if (deviceFunction.size() != 2)
        return std::nullopt;
    bool ok[4] = {};
    const quint64 domain = parts.at(0).toULongLong(&ok[0], 16);
    const quint64 bus = parts.at(1).toULongLong(&ok[1], 16);
    const quint64 device = deviceFunction.at(0).toULongLong(&ok[2], 16);
    const quint64 function = deviceFunction.at(1).toULongLong(&ok[3], 16);
    if (!ok[0] || !ok[1] || !ok[2] || !ok[3] || domain > 0xffffffffu || bus > 0xff || device > 0x1f || function > 7)
        return std::nullopt;
    return domain << 16 | bus << 8 | device << 3 | function;
}

QString lower(const QString &a, const QString &b)
{
    if (a.isEmpty())
        return b;
    if (b.isEmpty())
        return a;
    return version::less(a, b) ? a : b;
}

QString osName(const QString &os)
{
    if (os == u"windows")
        return QStringLiteral("Windows");
    if (os == u"macos")
        return QStringLiteral("macOS");
    if (os == u"linux")
        return QStringLiteral("Linux");
    return os;
}

Finding unverifiedNote(const QString &what)
{
    return Finding{QStringLiteral("record_unverified"),
                   Solver::tr("tfsetup could not confirm %1 from a primary source; the plan assumes it.").arg(what)};
}

QString gpuLabel(const MachineGpu &gpu)
{
    return gpu.cc.isEmpty() ? gpu.name : Solver::tr("%1 (compute capability %2)").arg(gpu.name, gpu.cc);
}

bool isNvidia(const Route &route)
{
    return route.accelerator == u"nvidia";
}

// The plug-in records of a route, in its order; plug-ins without a record put no bound on it.
QList<PluginRecord> pluginsOf(const Context &context, const Route &route)
{
    QList<PluginRecord> out;
    for (const QString &name : route.plugins) {
        if (const auto p = context.catalog.plugin(name))
            out.append(*p);
    }
    return out;
}

// The plug-in whose last release does not reach TensorFlow `tf`, if any.
std::optional<PluginRecord> pluginEndingBefore(const Context &context, const Route &route, const QString &tf)
{
    for (const PluginRecord &p : pluginsOf(context, route)) {
        if (!p.tfMax.isEmpty() && version::less(p.tfMax, tf))
            return p;
    }
    return std::nullopt;
}

// The plug-in that has no package for Python `python`, if any.
std::optional<PluginRecord> pluginWithoutPython(const Context &context, const Route &route, const QString &python)
{
    for (const PluginRecord &p : pluginsOf(context, route)) {
        if (!version::inRange(python, p.pythonMin, p.pythonMax))
            return p;
    }
    return std::nullopt;
}

QString pythonRangeText(const QString &min, const QString &max)
{
    if (max.isEmpty())
        return Solver::tr("%1 or newer", "a Python range open at the top").arg(min);
    if (min.isEmpty())
        return Solver::tr("%1 or older", "a Python range open at the bottom").arg(max);
    return min + u'-' + max;
}

// "tensorflow-metal 1.2.0, its last release (2025-01-30), has packages for Python 3.9-3.12 only."
QString pluginPythonText(const PluginRecord &p)
{
    return Solver::tr("%1 %2, the plug-in's last release (%3), has packages for Python %4 only.")
        .arg(p.name, p.lastRelease, p.released, pythonRangeText(p.pythonMin, p.pythonMax));
}

// A driver's branch: NVIDIA names a branch by its first release and counts its later releases up
// a few (R470 on Windows ships 472.12 and 474.xx), so the branch is the major rounded down to five.
int driverBranch(const QString &driverVersion)
{
    const int major = version::major(driverVersion).toInt();
    return major - major % 5;
}

// Pythons found on a Windows host do not exist inside the WSL2 distribution.
bool throughWsl2FromWindows(const Context &context, const Route &route)
{
    return route.wsl == u"required" && context.machine.os == u"windows";
}

} // namespace

// ---- 0. machine ----------------------------------------------------------------------------

Machine readMachine(const HardwareReport &report, const SolverConstraints &constraints, const GpuTable *gpus)
{
    Machine m;
    m.os = constraints.os.isEmpty() ? report.os.family.toLower() : constraints.os.toLower();
    if (m.os.isEmpty()) {
        m.os = QStringLiteral("linux");
        m.osAssumed = true;
    }
    const QString reportOs = report.os.family.toLower();
    if (!reportOs.isEmpty() && reportOs != m.os)
        m.otherReportOs = reportOs;
    const bool softwareApplies = m.otherReportOs.isEmpty();
    m.arch = report.os.arch.toLower();
    if (m.arch == u"amd64" || m.arch.isEmpty())
        m.arch = QStringLiteral("x86_64");
    if (m.arch == u"aarch64")
        m.arch = QStringLiteral("arm64");
    // WSL only describes the report's own system, not a different target OS.
    if (m.os == report.os.family.toLower() && m.os == u"linux")
        m.wsl = report.os.wsl;
    if (m.os == u"windows" && m.os == report.os.family.toLower()) {
        // Detection writes "(build N)"; a hand-written report or a log may give the NT version "10.0.N".
        if (const auto build = parsers::windowsBuildNumber(report.os.version))
            m.windowsBuild = *build;
    }
    QList<std::optional<quint64>> nvidiaBus;
    for (const GpuInfo &g : report.gpus) {
        MachineGpu gpu{g.name, vendorOf(g), g.computeCapability.trimmed(), -1};
        if (gpu.vendor == u"nvidia" && gpu.cc.isEmpty() && gpus) {
            std::optional<GpuRecord> rec;
            if (!g.pciId.isEmpty())
                rec = gpus->byPciId(g.pciId);
            if (!rec && !g.name.isEmpty())
                rec = gpus->byName(g.name);
            if (rec) {
                gpu.cc = rec->computeCapability;
                if (gpu.name.isEmpty())
                    gpu.name = rec->name;
            }
        }
        if (gpu.name.isEmpty())
            gpu.name = g.pciId.isEmpty() ? Solver::tr("an unnamed GPU") : g.pciId;
        if (gpu.vendor == u"nvidia") {
            m.nvidia.append(gpu);
            nvidiaBus.append(busOrder(g.pciBusId));
        } else {
            m.others.append(gpu);
        }
        if (gpu.vendor == u"apple")
            m.appleGpu = true;
    }
    // CUDA numbers devices fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, which the launchers
    // set; then its order is the bus order nvidia-smi shows.
    QList<qsizetype> order(m.nvidia.size());
    std::iota(order.begin(), order.end(), 0);
    if (std::all_of(nvidiaBus.cbegin(), nvidiaBus.cend(), [](const auto &b) { return b.has_value(); })) {
        std::stable_sort(order.begin(), order.end(),
                         [&](qsizetype a, qsizetype b) { return *nvidiaBus.at(a) < *nvidiaBus.at(b); });
    }
    for (qsizetype i = 0; i < order.size(); ++i)
        m.nvidia[order.at(i)].index = int(i);
    // Every Apple-silicon Mac has an Apple GPU, whether or not the report lists it.
    if (m.os == u"macos" && m.arch == u"arm64")
        m.appleGpu = true;
    m.avx = report.cpu.avx;
    m.cpuName = report.cpu.name;
    for (const PythonInfo &p : softwareApplies ? report.pythons : QList<PythonInfo>()) {
        if (p.bits == 32 || p.version.isEmpty())
            continue;
        const QString mm = version::majorMinor(p.version);
        if (!m.pythons.contains(mm))
            m.pythons.append(mm);
    }
    std::sort(m.pythons.begin(), m.pythons.end(),
              [](const QString &a, const QString &b) { return version::less(b, a); });
    if (!softwareApplies)
        return m;
    if (report.driver) {
        m.driverVersion = report.driver->version;
        m.driverCuda = report.driver->cuda;
    }
    for (const CudaToolkitInfo &t : report.cudaToolkits)
        m.toolkits.append(version::majorMinor(t.version));
    for (const CudnnInfo &c : report.cudnn)
        m.cudnn.append(c.version);
    if (report.msvcRuntime)
        m.msvcPresent = report.msvcRuntime->present;
    return m;
}

Context makeContext(const Catalog &catalog, const GpuTable *gpus, const HardwareReport &report,
                    const SolverConstraints &constraints)
{
    QString lastWindowsNative;
    for (const Route &r : catalog.routes()) {
        if (r.accelerator == u"nvidia" && r.os.contains(QStringLiteral("windows")) && r.wsl == u"never")
            lastWindowsNative = r.tfMax;
    }
    return Context{catalog, readMachine(report, constraints, gpus), constraints, lastWindowsNative};
}

// ---- 1. candidates -------------------------------------------------------------------------

AssessedGpu assessGpu(const Context &context, const MachineGpu &gpu, const TfRelease &rel)
{
    const Catalog &catalog = context.catalog;
    const std::optional<GpuBuild> build = catalog.gpuBuild(rel.version, rel.os);
    const std::optional<CudaToolkit> toolkit = catalog.toolkit(rel.cuda);
    const QString tf = rel.minor();
    auto result = [&](GpuFit fit, const QString &code, const QString &message) {
        return AssessedGpu{gpu, fit, {code, message}};
    };
    if (gpu.cc.isEmpty()) {
        return result(GpuFit::Unknown, QStringLiteral("gpu_capability_unknown"),
                      Solver::tr("The compute capability of the %1 is unknown, so tfsetup cannot check it against "
                                 "TensorFlow %2; run tfsetup detect on the machine itself.")
                          .arg(gpu.name, tf));
    }
    if (!build || !toolkit) {
        return result(GpuFit::Unknown, QStringLiteral("gpu_capability_unknown"),
                      Solver::tr("The catalog does not say which GPUs TensorFlow %1 supports.").arg(tf));
    }
    const QString floor = version::less(build->lowest(), toolkit->ccMin) ? toolkit->ccMin : build->lowest();
    if (version::less(gpu.cc, floor)) {
        return result(GpuFit::TooOld, QStringLiteral("gpu_too_old"),
                      Solver::tr("TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.")
                          .arg(tf, rel.cuda, floor, gpu.name, gpu.cc));
    }
    if (version::major(gpu.cc).toInt() > version::major(toolkit->ccMax).toInt()) {
        const auto needed = catalog.firstToolkitTargeting(gpu.cc);
        return result(GpuFit::Unsupported, QStringLiteral("gpu_arch_unsupported"),
                      // Not "needs CUDA 12.8": that reads as "install CUDA 12.8", which changes nothing.
                      needed ? Solver::tr("The %4 (compute capability %5) is newer than TensorFlow %1's GPU code: its "
                                          "packages are built with CUDA %2, which targets compute capability up to "
                                          "%3, and code for the %4 must be built with CUDA %6 or newer. Installing "
                                          "a newer CUDA yourself does not change TensorFlow's packages.")
                                   .arg(tf, rel.cuda, toolkit->ccMax, gpu.name, gpu.cc, needed->version)
                             : Solver::tr("TensorFlow %1 is built with CUDA %2, which targets compute capability up "
                                          "to %3; the %4 (%5) is newer than any CUDA the catalog knows.")
                                   .arg(tf, rel.cuda, toolkit->ccMax, gpu.name, gpu.cc));
    }
    const bool sass = std::any_of(build->sass.cbegin(), build->sass.cend(), [&](const QString &s) {
        return version::major(s) == version::major(gpu.cc) && !version::less(gpu.cc, s);
    });
    QString ptx;
    for (const QString &p : build->ptx) {
        if (!version::less(gpu.cc, p) && (ptx.isEmpty() || version::less(ptx, p)))
            ptx = p;
    }
    if (!sass && ptx.isEmpty()) {
        return result(GpuFit::Unsupported, QStringLiteral("gpu_arch_unsupported"),
                      Solver::tr("TensorFlow %1 has GPU code for compute capability %2 only; none of it runs on the "
                                 "%3 (%4).")
                          .arg(tf, (build->sass + build->ptx).join(QStringLiteral(", ")), gpu.name, gpu.cc));
    }
    if (!sass) {
        return result(GpuFit::Jit, QStringLiteral("gpu_needs_ptx_jit"),
                      Solver::tr("TensorFlow %1 has no machine code for the %2 (compute capability %3): the driver "
                                 "compiles its PTX for %4 when TensorFlow starts, which takes minutes the first time.")
                          .arg(tf, gpu.name, gpu.cc, ptx));
    }
    if (version::less(toolkit->ccMax, gpu.cc)) {
        return result(GpuFit::Jit, QStringLiteral("gpu_needs_ptx_jit"),
                      Solver::tr("TensorFlow %1 is built with CUDA %2, which predates the %3 (compute capability %4; "
                                 "CUDA %2 targets up to %5): code compiled while TensorFlow runs goes through the "
                                 "driver's PTX JIT, so the first start is slow and some operations are reported to "
                                 "fail.")
                          .arg(tf, rel.cuda, gpu.name, gpu.cc, toolkit->ccMax));
    }
    return AssessedGpu{gpu, GpuFit::Native, {}};
}

bool Candidate::anyUsableGpu() const
{
    return std::any_of(gpus.cbegin(), gpus.cend(), [](const AssessedGpu &g) {
        return g.fit == GpuFit::Native || g.fit == GpuFit::Jit || g.fit == GpuFit::Unknown;
    });
}

bool Candidate::needsJit() const
{
    const bool anyNative = std::any_of(gpus.cbegin(), gpus.cend(),
                                       [](const AssessedGpu &g) { return g.fit == GpuFit::Native; });
    const bool anyJit = std::any_of(gpus.cbegin(), gpus.cend(),
                                    [](const AssessedGpu &g) { return g.fit == GpuFit::Jit; });
    return anyUsableGpu() && !anyNative && anyJit;
}

QList<Candidate> routeCandidates(const Context &context)
{
    QList<Candidate> list;
    for (const Route &route : context.catalog.routes()) {
        if (!context.constraints.route.isEmpty() && route.name != context.constraints.route)
            continue;
        if (context.constraints.cpuOnly && route.isAccelerated())
            continue;
        Candidate c;
        c.route = &route;
        list.append(c);
    }
    return list;
}

namespace {

Candidate releaseCandidate(const Context &context, const Route &route, const TfRelease &rel)
{
    const Machine &m = context.machine;
    Candidate c;
    c.route = &route;
    c.release = rel;
    QStringList pythons = rel.pythonVersions();
    if (!route.pythonMin.isEmpty() || !route.pythonMax.isEmpty()) {
        pythons.erase(
            std::remove_if(pythons.begin(), pythons.end(),
                           [&](const QString &v) { return !version::inRange(v, route.pythonMin, route.pythonMax); }),
            pythons.end());
    }
    for (const PluginRecord &plugin : pluginsOf(context, route)) {
        pythons.erase(
            std::remove_if(pythons.begin(), pythons.end(),
                           [&](const QString &v) { return !version::inRange(v, plugin.pythonMin, plugin.pythonMax); }),
            pythons.end());
    }
    // TensorFlow's Python 2.7 wheels are history; offer Python 3 whenever the release has it.
    std::stable_partition(pythons.begin(), pythons.end(), [](const QString &v) { return version::major(v) == u"3"; });
    c.pythons = pythons;
    if (!context.constraints.python.isEmpty()) {
        const QString wanted = version::majorMinor(context.constraints.python);
        if (pythons.contains(wanted))
            c.python = wanted;
    } else {
        const QStringList installed = throughWsl2FromWindows(context, route) ? QStringList() : m.pythons;
        for (const QString &have : installed) {
            if (pythons.contains(have)) {
                c.python = have;
                break;
            }
        }
        if (c.python.isEmpty() && !pythons.isEmpty())
            c.python = pythons.first();
    }
    c.pythonInstalled = !c.python.isEmpty() && m.pythons.contains(c.python) && !throughWsl2FromWindows(context, route);
    if (isNvidia(route)) {
        for (const MachineGpu &gpu : m.nvidia)
            c.gpus.append(assessGpu(context, gpu, rel));
    }
    return c;
}

} // namespace

QList<Candidate> releaseCandidates(const Context &context, const Route &route)
{
    const Machine &m = context.machine;
    const Catalog &catalog = context.catalog;
    const QString &pinned = context.constraints.tensorflow;
    QList<Candidate> list;

    if (!route.beyondMaxReason.isEmpty() && !route.tfMax.isEmpty()) {
        // Releases past the route's end are rejected by name: that is the answer users look for
        // ("why no TF 2.15 on native Windows?").
        QStringList minors;
        for (const TfRelease &r : catalog.releases()) {
            if (!version::less(route.tfMax, r.minor()) || minors.contains(r.minor()))
                continue;
            if (!version::matchesPrefix(pinned, r.version))
                continue;
            minors.append(r.minor());
            Candidate c;
            c.route = &route;
            c.release = r;
            list.append(c);
        }
    }

    QList<TfRelease> releases;
    if (!route.versions.isEmpty()) {
        for (const QString &v : route.versions) {
            if (const auto r = catalog.release(route.releases, v))
                releases.append(*r);
        }
        std::sort(releases.begin(), releases.end(),
                  [](const TfRelease &a, const TfRelease &b) { return version::less(b.version, a.version); });
    } else {
        releases = catalog.releasesFor(route.releases);
    }
    // Where platform records end (macOS x86_64 after its last release), newer releases are
    // rejected by name; releases older than the first record are simply not offered.
    const QString lastOnPlatform = route.platforms.isEmpty() ? QString() : route.lastOnPlatform(m.os, m.arch);
    for (const TfRelease &rel : std::as_const(releases)) {
        const QString tf = rel.minor();
        if (!version::inRange(tf, route.tfMin, route.tfMax))
            continue;
        if (route.requiresPipCuda && rel.pipCudaExtra.isEmpty())
            continue;
        if (!version::matchesPrefix(pinned, rel.version))
            continue;
        if (!route.platforms.isEmpty() && !route.platformFor(m.os, m.arch, tf)) {
            if (!lastOnPlatform.isEmpty() && version::less(lastOnPlatform, tf)) {
                Candidate c;
                c.route = &route;
                c.release = rel;
                list.append(c);
            }
            continue;
        }
        list.append(releaseCandidate(context, route, rel));
    }
    return list;
}

// ---- 2. filters ----------------------------------------------------------------------------

namespace {

Verdict rejectWith(const QString &code, const QString &message)
{
    Verdict v;
    v.reasons.append({code, message});
    return v;
}

// OS, processor and WSL: at most one reason, the first that applies.
Verdict platformFilter(const Context &context, const Candidate &candidate)
{
    const Machine &m = context.machine;
    const Route &route = *candidate.route;
    if (!route.os.contains(m.os)) {
        QStringList names;
        for (const QString &o : route.os)
            names.append(osName(o));
        return rejectWith(QStringLiteral("os_unsupported"),
                          Solver::tr("“%1” runs on %2; this machine runs %3.")
                              .arg(RouteNames::title(route), names.join(QStringLiteral(", ")), osName(m.os)));
    }
    if (route.isAccelerated() && m.wsl == 1) {
        return rejectWith(QStringLiteral("os_unsupported"),
                          Solver::tr("WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version "
                                     "<distribution> 2)."));
    }
    if (route.wsl == u"never" && m.wsl == 2 && route.isAccelerated()) {
        return rejectWith(
            QStringLiteral("os_unsupported"),
            Solver::tr("This is WSL2, where the GPU driver is the Windows one: “%1” does not work here; the GPU "
                       "inside WSL2 does.")
                .arg(RouteNames::title(route)));
    }
    if (route.wsl == u"required" && m.os == u"linux" && m.wsl != 2) {
        return rejectWith(QStringLiteral("os_unsupported"),
                          Solver::tr("“%1” is for Windows machines and for WSL2 itself; this is plain Linux.")
                              .arg(RouteNames::title(route)));
    }
    if (route.wsl == u"windows_or_wsl2" && m.os == u"linux" && m.wsl != 2) {
        return rejectWith(
            QStringLiteral("os_unsupported"),
            Solver::tr("“%1” runs on Windows and inside WSL2, not on plain Linux.").arg(RouteNames::title(route)));
    }
    if (route.wsl == u"required" && m.os == u"windows" && m.windowsBuild > 0
        && m.windowsBuild < route.windowsBuildMin) {
        return rejectWith(
            QStringLiteral("os_unsupported"),
            Solver::tr("GPU support in WSL2 needs Windows 10 build %1 or newer; this Windows is build %2. "
                       "Update Windows.")
                .arg(route.windowsBuildMin)
                .arg(m.windowsBuild));
    }
    if (!route.platforms.isEmpty()) {
        if (!route.hasPlatform(m.os, m.arch)) {
            return rejectWith(
                QStringLiteral("arch_unsupported"),
                Solver::tr("There is no official TensorFlow package for %1 on %2.").arg(osName(m.os), m.arch));
        }
    } else if (!route.arch.contains(m.arch)) {
        return rejectWith(
            QStringLiteral("arch_unsupported"),
            Solver::tr("“%1” needs a %2 processor; this machine is %3.")
                .arg(RouteNames::title(route),
                     route.arch.join(Solver::tr(" or ", "joins processor architectures: x86_64 or arm64")), m.arch));
    }
    return {};
}

Verdict acceleratorFilter(const Context &context, const Candidate &candidate)
{
    const Machine &m = context.machine;
    const Route &route = *candidate.route;
    if (route.accelerator == u"nvidia" && m.nvidia.isEmpty()) {
        return rejectWith(QStringLiteral("no_nvidia_gpu"),
                          m.others.isEmpty()
                              ? Solver::tr("No NVIDIA GPU was found; “%1” needs one.").arg(RouteNames::title(route))
                              : Solver::tr("“%1” needs an NVIDIA GPU; this machine has %2.")
                                    .arg(RouteNames::title(route), m.others.first().name));
    }
    if (route.accelerator == u"amd"
        && std::none_of(m.others.cbegin(), m.others.cend(), [](const MachineGpu &g) { return g.vendor == u"amd"; })) {
        return rejectWith(QStringLiteral("no_supported_gpu"),
                          Solver::tr("“%1” needs an AMD GPU; none was found.").arg(RouteNames::title(route)));
    }
    if (route.accelerator == u"apple" && !m.appleGpu) {
        return rejectWith(QStringLiteral("no_supported_gpu"),
                          Solver::tr("“%1” needs a Mac with Apple silicon.").arg(RouteNames::title(route)));
    }
    if (route.accelerator == u"directx12" && !m.hasGpu()) {
        return rejectWith(QStringLiteral("no_supported_gpu"),
                          Solver::tr("“%1” needs a DirectX 12 GPU; none was found.").arg(RouteNames::title(route)));
    }
    return {};
}

Verdict cpuFilter(const Context &context, const Candidate &)
{
    const Machine &m = context.machine;
    if (m.arch != u"x86_64" || m.avx != false)
        return {};
    const auto avx = context.catalog.cpuRequirement(QStringLiteral("avx"));
    if (!avx)
        return {};
    return rejectWith(
        QStringLiteral("cpu_lacks_avx"),
        Solver::tr("Official TensorFlow packages use AVX instructions since TensorFlow %1; this processor "
                   "(%2) has no AVX.")
            .arg(avx->tfMin, m.cpuName.isEmpty() ? Solver::tr("name unknown") : m.cpuName));
}

Verdict releaseWindowFilter(const Context &, const Candidate &candidate)
{
    const Route &route = *candidate.route;
    const QString tf = candidate.release->minor();
    if (route.beyondMaxReason.isEmpty() || route.tfMax.isEmpty() || !version::less(route.tfMax, tf))
        return {};
    return rejectWith(route.beyondMaxReason,
                      Solver::tr("TensorFlow %1 has no GPU support on native Windows: the last release with it is %2. "
                                 "Use WSL2 for newer releases, or TensorFlow %2 here.")
                          .arg(tf, route.tfMax));
}

// A release newer than what a route's plug-in works with is rejected for that alone.
Verdict pluginReleaseFilter(const Context &context, const Candidate &candidate)
{
    const QString tf = candidate.release->minor();
    const auto plugin = pluginEndingBefore(context, *candidate.route, tf);
    if (!plugin)
        return {};
    if (!plugin->brokenFrom.isEmpty() && !version::less(tf, version::majorMinor(plugin->brokenFrom))) {
        return rejectWith(QStringLiteral("plugin_unsupported"),
                          Solver::tr("%1 %2, the plug-in's last release (%3), does not work with TensorFlow %4: "
                                     "importing TensorFlow fails while it loads the plug-in. The newest TensorFlow it "
                                     "works with is %5.")
                              .arg(plugin->name, plugin->lastRelease, plugin->released, tf, plugin->tfMax));
    }
    return rejectWith(QStringLiteral("plugin_unsupported"),
                      Solver::tr("%1 %2, the plug-in's last release (%3), works with TensorFlow up to %5; TensorFlow "
                                 "%4 came later and is not known to work with it.")
                          .arg(plugin->name, plugin->lastRelease, plugin->released, tf, plugin->tfMax));
}

Verdict platformReleaseFilter(const Context &context, const Candidate &candidate)
{
    const Machine &m = context.machine;
    const Route &route = *candidate.route;
    const QString tf = candidate.release->minor();
    if (route.platforms.isEmpty() || route.platformFor(m.os, m.arch, tf))
        return {};
    return rejectWith(QStringLiteral("arch_unsupported"),
                      Solver::tr("TensorFlow %1 has no official package for %2 on %3: the last release for it is %4.")
                          .arg(tf, osName(m.os), m.arch, route.lastOnPlatform(m.os, m.arch)));
}

Verdict pythonFilter(const Context &context, const Candidate &candidate)
{
    const Machine &m = context.machine;
    const Route &route = *candidate.route;
    const TfRelease &rel = *candidate.release;
    const QString tf = rel.minor();
    const QString supported = rel.pythonText();
    Verdict v;
    if (!context.constraints.python.isEmpty()) {
        const QString wanted = version::majorMinor(context.constraints.python);
        if (!candidate.pythons.contains(wanted)) {
            // Name the plug-in whenever it rules the Python out too: a newer TensorFlow would not help.
            const auto plugin = pluginWithoutPython(context, route, wanted);
            QString message = rel.supportsPython(wanted) ? Solver::tr("You asked for Python %1.").arg(wanted)
                                                         : Solver::tr("TensorFlow %1 supports Python %2; you asked "
                                                                      "for Python %3.")
                                                               .arg(tf, supported, wanted);
            if (plugin)
                message = pluginPythonText(*plugin) + u' ' + message;
            v.reasons.append({QStringLiteral("python_unsupported"), message});
        }
    } else if (candidate.pythons.isEmpty()) {
        const auto plugins = pluginsOf(context, route);
        const auto limiting = std::find_if(plugins.cbegin(), plugins.cend(), [](const PluginRecord &p) {
            return !p.pythonMin.isEmpty() || !p.pythonMax.isEmpty();
        });
        v.reasons.append({QStringLiteral("python_unsupported"),
                          limiting != plugins.cend()
                              ? Solver::tr("TensorFlow %1 supports Python %2.").arg(tf, supported) + u' '
                                  + pluginPythonText(*limiting) + u' ' + Solver::tr("No Python fits both.")
                              : Solver::tr("TensorFlow %1 supports Python %4, and “%2” needs Python %3: no Python "
                                           "fits both.")
                                    .arg(tf, RouteNames::title(route),
                                         pythonRangeText(route.pythonMin, route.pythonMax), supported)});
    }
    if (!candidate.python.isEmpty() && !candidate.pythonInstalled) {
        QString message = m.pythons.isEmpty()
            ? Solver::tr("Install Python %1 (TensorFlow %2 supports Python %3).").arg(candidate.python, tf, supported)
            : Solver::tr("Install Python %1: TensorFlow %2 supports Python %3, and this machine has %4.")
                  .arg(candidate.python, tf, supported, m.pythons.join(QStringLiteral(", ")));
        // Say which plug-in rules out the Pythons the machine has: a newer TensorFlow would not help.
        for (const QString &have : m.pythons) {
            if (const auto plugin = pluginWithoutPython(context, route, have)) {
                message += u' ' + pluginPythonText(*plugin);
                break;
            }
        }
        v.actions.append({QStringLiteral("install_python"), message});
    }
    return v;
}

// Compute capability and PTX JIT: rejected when no GPU can be used; otherwise the GPUs that cannot,
// or only through JIT, are warnings.
Verdict gpuFilter(const Context &, const Candidate &candidate)
{
    Verdict v;
    if (!isNvidia(*candidate.route))
        return v;
    const bool anyUsable = candidate.anyUsableGpu();
    for (const AssessedGpu &g : candidate.gpus) {
        if (g.fit == GpuFit::Native)
            continue;
        if (!anyUsable) {
            v.reasons.append(g.finding);
        } else if (g.fit == GpuFit::TooOld || g.fit == GpuFit::Unsupported) {
            v.warnings.append(
                {g.finding.code,
                 g.finding.message + u' ' + Solver::tr("TensorFlow will not use the %1.").arg(g.gpu.name)});
        } else {
            v.warnings.append(g.finding);
        }
    }
    return v;
}

// What a driver of `required` or newer does to the machine's GPUs whose support NVIDIA ended:
// those it no longer runs at all, and the lowest branch that still runs the others.
struct DriverReach {
    QStringList dropped; // "Tesla K40c (Kepler; its last branch is R470)"
    int ceiling = 0;     // the last branch that runs every GPU the driver keeps; 0 = none
    QStringList ceilingGpus;
    QString ceilingArchitecture;
};

DriverReach driverReach(const Context &context, const QString &required)
{
    DriverReach reach;
    const int branch = driverBranch(required);
    for (const MachineGpu &gpu : context.machine.nvidia) {
        const auto end = context.catalog.driverBranchEnd(gpu.cc);
        if (!end)
            continue;
        if (branch > end->lastBranch) {
            reach.dropped.append(Solver::tr("%1 (%2; its last driver branch is R%3)")
                                     .arg(gpu.name, end->architecture)
                                     .arg(end->lastBranch));
        } else if (reach.ceiling == 0 || end->lastBranch < reach.ceiling) {
            reach.ceiling = end->lastBranch;
            reach.ceilingGpus = {gpu.name};
            reach.ceilingArchitecture = end->architecture;
        } else if (end->lastBranch == reach.ceiling) {
            reach.ceilingGpus.append(gpu.name);
        }
    }
    return reach;
}

// The sentence that bounds a driver update by the GPUs NVIDIA ends support for; empty when none.
QString driverCeilingText(const DriverReach &reach)
{
    if (reach.ceiling == 0)
        return {};
    return Solver::tr("Take a driver of the R%1 branch or older: NVIDIA's later drivers no longer support %2 GPUs "
                      "such as your %3.")
        .arg(reach.ceiling)
        .arg(reach.ceilingArchitecture, reach.ceilingGpus.join(QStringLiteral(", ")));
}

// The sentence naming the GPUs a driver of `required` or newer drops; empty when none.
QString driverDropsText(const DriverReach &reach, const QString &required, const QString &tf)
{
    if (reach.dropped.isEmpty())
        return {};
    return Solver::tr("Driver %1 or newer, which TensorFlow %2 needs, no longer supports your %3: it stops working "
                      "for every program on this machine, not only for TensorFlow.")
        .arg(required, tf, reach.dropped.join(QStringLiteral(", ")));
}

// The action's message with those sentences, and the warning that names the dropped GPUs.
void addDriverAction(Verdict &v, const Context &context, const QString &code, const QString &message,
                     const QString &required, const QString &tf)
{
    const DriverReach reach = driverReach(context, required);
    const QString drops = driverDropsText(reach, required, tf);
    QStringList text{message};
    for (const QString &sentence : {driverCeilingText(reach), drops}) {
        if (!sentence.isEmpty())
            text.append(sentence);
    }
    v.actions.append({code, text.join(u' ')});
    if (!drops.isEmpty())
        v.warnings.append({QStringLiteral("driver_drops_gpu"), drops});
}

Verdict driverFilter(const Context &context, const Candidate &candidate)
{
    Verdict v;
    const Route &route = *candidate.route;
    const TfRelease &rel = *candidate.release;
    if (!isNvidia(route) || !context.catalog.toolkit(rel.cuda))
        return v;
    const Machine &m = context.machine;
    const QString tf = rel.minor();
    const QString os = route.driverOs;
    const bool jit = candidate.needsJit();
    const auto compat = context.catalog.minorCompatibility(rel.cuda);
    const QString required = driverFloor(context, candidate);
    QString problem;
    if (!m.driverVersion.isEmpty()) {
        if (version::less(m.driverVersion, required)) {
            problem = jit
                ? Solver::tr("TensorFlow %1 needs CUDA %2, and PTX JIT needs the driver CUDA %2 shipped "
                             "with, %3 or newer on %4; yours is %5.")
                      .arg(tf, rel.cuda, required, osName(os), m.driverVersion)
                : Solver::tr("TensorFlow %1 needs CUDA %2, which needs driver %3 or newer on %4; yours is %5.")
                      .arg(tf, rel.cuda, required, osName(os), m.driverVersion);
        }
    } else if (!m.driverCuda.isEmpty()) {
        const QString neededCuda = jit || !compat ? rel.cuda : compat->cudaMin;
        if (version::less(m.driverCuda, neededCuda)) {
            problem = Solver::tr("TensorFlow %1 needs CUDA %2; your driver supports CUDA up to %3. It needs driver %4 "
                                 "or newer on %5.")
                          .arg(tf, rel.cuda, m.driverCuda, required, osName(os));
        }
    } else {
        addDriverAction(v, context, QStringLiteral("install_driver"),
                        Solver::tr("Install the NVIDIA driver, %1 or newer (TensorFlow %2 needs CUDA %3).")
                            .arg(required, tf, rel.cuda),
                        required, tf);
    }
    if (!problem.isEmpty()) {
        if (context.constraints.keepDriver) {
            v.reasons.append({QStringLiteral("driver_too_old"), problem});
        } else {
            addDriverAction(v, context, QStringLiteral("update_driver"),
                            problem + u' ' + Solver::tr("Update the NVIDIA driver to %1 or newer.").arg(required),
                            required, tf);
        }
    }
    return v;
}

Verdict cudaLibrariesFilter(const Context &context, const Candidate &candidate)
{
    Verdict v;
    const Route &route = *candidate.route;
    const TfRelease &rel = *candidate.release;
    if (!isNvidia(route) || route.cudaLibraries != u"toolkit")
        return v;
    const Machine &m = context.machine;
    const QString tf = rel.minor();
    if (!m.toolkits.contains(version::majorMinor(rel.cuda))) {
        QString message = Solver::tr("Install CUDA %1 (TensorFlow %2 opens %3).")
                              .arg(rel.cuda, tf, context.catalog.cudaLibraries(rel.cuda, rel.os).value(0));
        // A student with another CUDA fears losing it, or installs this one over it.
        if (!m.toolkits.isEmpty()) {
            QStringList others = m.toolkits;
            others.removeDuplicates();
            message += u' '
                + Solver::tr("It installs beside your CUDA %1, which stays as it is for other programs: this "
                             "environment's launcher puts CUDA %2 first, for this environment only.")
                      .arg(others.join(QStringLiteral(", ")), rel.cuda);
        }
        v.actions.append({QStringLiteral("install_cuda"), message});
    }
    const bool cudnnOk = std::any_of(m.cudnn.cbegin(), m.cudnn.cend(), [&](const QString &c) {
        return version::major(c) == version::major(rel.cudnn) && !version::less(c, rel.cudnn);
    });
    if (!cudnnOk) {
        v.actions.append({QStringLiteral("install_cudnn"),
                          Solver::tr("Install cuDNN %1 (TensorFlow %2 opens %3).")
                              .arg(rel.cudnn, tf, context.catalog.cudnnLibraries(rel.cudnn, rel.os).value(0))});
    }
    return v;
}

Verdict msvcRuntimeFilter(const Context &context, const Candidate &candidate)
{
    Verdict v;
    if (context.machine.os == u"windows" && candidate.route->wsl != u"required"
        && context.machine.msvcPresent == false) {
        v.actions.append({QStringLiteral("install_msvc_runtime"),
                          Solver::tr("Install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 "
                                     "(x64); TensorFlow needs msvcp140.dll.")});
    }
    return v;
}

Verdict windowsBuildFilter(const Context &context, const Candidate &candidate)
{
    Verdict v;
    const Route &route = *candidate.route;
    if (throughWsl2FromWindows(context, route) && route.windowsBuildMin > 0 && context.machine.windowsBuild == 0) {
        v.warnings.append({QStringLiteral("windows_build_unknown"),
                           Solver::tr("tfsetup could not read this Windows build number; GPU support in WSL2 needs "
                                      "Windows 10 build %1 or newer (winver shows the build).")
                               .arg(route.windowsBuildMin)});
    }
    return v;
}

} // namespace

const QList<Filter> &routeFilters()
{
    static const QList<Filter> filters = {
        {QStringLiteral("platform"), false, platformFilter},
        {QStringLiteral("accelerator"), false, acceleratorFilter},
        {QStringLiteral("cpu"), false, cpuFilter},
    };
    return filters;
}

const QList<Filter> &releaseFilters()
{
    static const QList<Filter> filters = {
        {QStringLiteral("release_window"), true, releaseWindowFilter},
        {QStringLiteral("platform_release"), true, platformReleaseFilter},
        {QStringLiteral("plugin_release"), true, pluginReleaseFilter},
        {QStringLiteral("python"), false, pythonFilter},
        {QStringLiteral("gpu"), false, gpuFilter},
        {QStringLiteral("driver"), false, driverFilter},
        {QStringLiteral("cuda_libraries"), false, cudaLibrariesFilter},
        {QStringLiteral("msvc_runtime"), false, msvcRuntimeFilter},
        {QStringLiteral("windows_build"), false, windowsBuildFilter},
    };
    return filters;
}

const Filter *filterNamed(const QString &name)
{
    for (const QList<Filter> *list : {&routeFilters(), &releaseFilters()}) {
        for (const Filter &f : *list) {
            if (f.name == name)
                return &f;
        }
    }
    return nullptr;
}

Verdict screen(const QList<Filter> &filters, const Context &context, const Candidate &candidate)
{
    Verdict all;
    for (const Filter &f : filters) {
        Verdict v = f.check(context, candidate);
        if (f.decisive && v.rejected())
            return Verdict{v.reasons, {}, {}};
        all.reasons += v.reasons;
        all.warnings += v.warnings;
        all.actions += v.actions;
    }
    return all;
}

QString driverFloor(const Context &context, const Candidate &candidate)
{
    const Route &route = *candidate.route;
    if (!isNvidia(route) || !candidate.release)
        return {};
    const TfRelease &rel = *candidate.release;
    const auto toolkit = context.catalog.toolkit(rel.cuda);
    if (!toolkit)
        return {};
    const QString &os = route.driverOs;
    const auto compat = context.catalog.minorCompatibility(rel.cuda);
    // Minor-version compatibility lets an older driver of the family run the libraries, but PTX
    // JIT needs the driver that shipped with the toolkit.
    return candidate.needsJit() || !compat ? toolkit->driverMin.forOs(os)
                                           : lower(toolkit->driverMin.forOs(os), compat->driverMin.forOs(os));
}

// ---- 3. ranking ----------------------------------------------------------------------------

int tierOf(const Route &route, bool needsJit, bool switchesToWsl2)
{
    if (!route.isAccelerated())
        return 3;
    if (route.experimental)
        return 4;
    if (needsJit)
        return 2;
    if (switchesToWsl2)
        return 1;
    return 0;
}

bool rankedBefore(const Plan &a, const Plan &b, const QStringList &routeOrder, bool preferPipCuda)
{
    if (a.tier != b.tier)
        return a.tier < b.tier;
    // A driver that must stay is usually a shared machine: CUDA from pip touches nothing outside
    // the environment, where a toolkit to install does.
    if (preferPipCuda && (a.cudaFrom == u"pip") != (b.cudaFrom == u"pip") && !a.cudaFrom.isEmpty()
        && !b.cudaFrom.isEmpty())
        return a.cudaFrom == u"pip";
    if (a.unverified != b.unverified)
        return !a.unverified;
    if (const int c = version::compare(a.tensorflow, b.tensorflow); c != 0)
        return c > 0;
    if (a.actions.size() != b.actions.size())
        return a.actions.size() < b.actions.size();
    return routeOrder.indexOf(a.route) < routeOrder.indexOf(b.route);
}

void rank(QList<Plan> &plans, const QStringList &routeOrder, bool preferPipCuda)
{
    std::stable_sort(plans.begin(), plans.end(),
                     [&](const Plan &a, const Plan &b) { return rankedBefore(a, b, routeOrder, preferPipCuda); });
}

// ---- 4. explanation ------------------------------------------------------------------------

QList<PlanGpu> planGpus(const Candidate &candidate)
{
    QList<PlanGpu> list;
    for (const AssessedGpu &g : candidate.gpus) {
        PlanGpu p;
        p.index = g.gpu.index;
        p.name = g.gpu.name;
        p.computeCapability = g.gpu.cc;
        switch (g.fit) {
        case GpuFit::Native: p.use = PlanGpu::Use::Native; break;
        case GpuFit::Jit:
            p.use = PlanGpu::Use::PtxJit;
            p.reason = g.finding;
            break;
        case GpuFit::TooOld:
        case GpuFit::Unsupported:
        case GpuFit::Unknown:
            p.use = PlanGpu::Use::Unusable;
            p.reason = g.finding;
            break;
        }
        list.append(p);
    }
    std::sort(list.begin(), list.end(), [](const PlanGpu &a, const PlanGpu &b) { return a.index < b.index; });
    return list;
}

Plan planFor(const Context &context, const Candidate &candidate, const Verdict &verdict)
{
    const Catalog &catalog = context.catalog;
    const Machine &m = context.machine;
    const Route &route = *candidate.route;
    const TfRelease &rel = *candidate.release;
    const QString tf = rel.minor();

    Plan p;
    p.route = route.name;
    p.tensorflow = rel.version;
    p.package = route.package.isEmpty() ? rel.package : route.package;
    if (route.cudaLibraries == u"pip")
        p.package += u'[' + rel.pipCudaExtra + u']';
    p.plugins = route.plugins;
    p.python = candidate.python;
    p.pythonInstalled = candidate.pythonInstalled;

    // What the plan rests on that no primary source confirmed, first among its warnings.
    if (!route.verified) {
        p.unverified = true;
        p.warnings.append(unverifiedNote(Solver::tr("every detail of “%1”").arg(RouteNames::title(route))));
    }
    const RoutePlatform *platform = route.platforms.isEmpty() ? nullptr : route.platformFor(m.os, m.arch, tf);
    if (platform && !platform->verified) {
        p.unverified = true;
        p.warnings.append(
            unverifiedNote(Solver::tr("that TensorFlow %1 is published for %2 on %3").arg(tf, osName(m.os), m.arch)));
    }
    if (!rel.verified || !rel.packageVerified) {
        p.unverified = true;
        p.warnings.append(unverifiedNote(Solver::tr("the package name %1 for TensorFlow %2").arg(p.package, tf)));
    }
    if (isNvidia(route)) {
        const auto build = catalog.gpuBuild(rel.version, rel.os);
        if (build && !build->verified) {
            p.unverified = true;
            p.warnings.append(
                unverifiedNote(Solver::tr("which GPU architectures TensorFlow %1's packages contain").arg(tf)));
        }
        p.cuda = rel.cuda;
        p.cudnn = rel.cudnn;
        p.driverMin = driverFloor(context, candidate);
        p.cudaFrom = route.cudaLibraries;
        if (route.cudaLibraries == u"toolkit")
            p.libraries = catalog.cudaLibraries(rel.cuda, rel.os) + catalog.cudnnLibraries(rel.cudnn, rel.os);
        p.gpus = planGpus(candidate);
    }
    p.warnings += verdict.warnings;
    p.actions = verdict.actions;

    const bool viaWsl2 = throughWsl2FromWindows(context, route);
    if (viaWsl2) {
        p.actions.prepend({QStringLiteral("use_wsl2"),
                           Solver::tr("Install WSL2 with a Linux distribution (wsl --install) and run tfsetup inside "
                                      "it: TensorFlow %1 uses the GPU there, while native Windows GPU support ended "
                                      "with TensorFlow %2.")
                               .arg(tf, context.lastWindowsNative)});
    }
    for (const QString &a : route.actions) {
        if (a == u"install_rocm") {
            p.actions.append({a,
                              Solver::tr("Install AMD ROCm for your GPU first; AMD lists which Radeon and "
                                         "Instinct GPUs each ROCm release supports.")});
        } else {
            p.actions.append({a, Solver::tr("Prepare “%1” (%2).").arg(RouteNames::title(route), a)});
        }
    }
    if (route.experimental) {
        p.warnings.append({QStringLiteral("route_experimental"),
                           Solver::tr("“%1” is offered as an experiment: tfsetup cannot confirm that it "
                                      "supports your GPU.")
                               .arg(RouteNames::title(route))});
    }

    const bool jit = isNvidia(route) && candidate.needsJit();
    p.tier = tierOf(route, jit, viaWsl2);

    // Why, in a few plain sentences.
    QStringList why;
    QStringList used;
    for (const AssessedGpu &g : candidate.gpus) {
        if (g.fit == GpuFit::Native || g.fit == GpuFit::Jit || g.fit == GpuFit::Unknown)
            used.append(gpuLabel(g.gpu));
    }
    const QString gpus = used.join(QStringLiteral(", "));
    switch (p.tier) {
    case 0:
        why.append(isNvidia(route)
                       ? Solver::tr("TensorFlow %1's tested configuration runs natively on your %2.").arg(tf, gpus)
                       : Solver::tr("TensorFlow %1 uses your GPU through “%2”.").arg(tf, RouteNames::title(route)));
        break;
    case 1:
        why.append(Solver::tr("TensorFlow %1 runs on your %2 inside WSL2; native Windows GPU support ended with "
                              "TensorFlow %3.")
                       .arg(tf, gpus, context.lastWindowsNative));
        break;
    case 2:
        why.append(Solver::tr("TensorFlow %1 can use your %2 only through PTX JIT: slow first start.").arg(tf, gpus));
        break;
    case 3:
        // With a GPU present, the first sentence depends on whether any GPU plan fits: explain()
        // adds it once every route was tried.
        if (context.constraints.cpuOnly || !m.hasGpu())
            why.append(Solver::tr("TensorFlow %1 runs on the CPU.").arg(tf));
        break;
    default:
        why.append(Solver::tr("TensorFlow %1 on “%2”, an experimental route.").arg(tf, RouteNames::title(route)));
        break;
    }
    if (route.cudaLibraries == u"pip") {
        why.append(Solver::tr("CUDA %1 and cuDNN %2 come as pip packages, so only the NVIDIA driver (%3 or newer) "
                              "must be installed.")
                       .arg(p.cuda, p.cudnn, p.driverMin));
    } else if (route.cudaLibraries == u"toolkit") {
        why.append(Solver::tr("It needs CUDA %1, cuDNN %2 and driver %3 or newer.").arg(p.cuda, p.cudnn, p.driverMin));
    }
    if (!p.python.isEmpty()) {
        why.append(p.pythonInstalled ? Solver::tr("It uses the installed Python %1.").arg(p.python)
                                     : Solver::tr("It needs Python %1, which tfsetup installs.").arg(p.python));
    }
    p.why = why.join(u' ');
    return p;
}

Solution explain(const Context &context, const QList<Plan> &rankedPlans, const QList<Rejection> &rejected,
                 bool anyRelease)
{
    const Machine &m = context.machine;
    const SolverConstraints &constraints = context.constraints;
    QList<Plan> plans = rankedPlans;
    Solution solution;
    solution.rejected = rejected;

    // A CPU plan on a machine with a GPU: the fallback beside a GPU plan, else the only way.
    if (!constraints.cpuOnly && m.hasGpu()) {
        const bool gpuPlanFits = std::any_of(plans.cbegin(), plans.cend(), [](const Plan &p) { return p.tier != 3; });
        for (Plan &p : plans) {
            if (p.tier != 3)
                continue;
            const QString tf = version::majorMinor(p.tensorflow);
            const QString first = gpuPlanFits
                ? Solver::tr("TensorFlow %1 on the processor only: the fallback that works "
                             "without the GPU, slower but with nothing to install for the "
                             "graphics card.")
                      .arg(tf)
                : Solver::tr("No GPU route fits this machine, so TensorFlow %1 runs on the CPU.").arg(tf);
            p.why = p.why.isEmpty() ? first : first + u' ' + p.why;
        }
    }

    // An experimental route is never chosen for the user, but it is when the user asked for it.
    qsizetype chosen = -1;
    if (!plans.isEmpty() && (plans.first().tier < 4 || plans.first().route == constraints.route))
        chosen = 0;
    // A driver update that drops a GPU is a choice for the machine's owner, not a detail: the
    // plan that keeps every GPU goes first among the alternatives and is named.
    std::optional<Plan> keepsEveryGpu;
    if (chosen == 0 && plans.first().hasWarning(QStringLiteral("driver_drops_gpu"))) {
        const auto keeper = std::find_if(plans.cbegin() + 1, plans.cend(), [](const Plan &p) {
            return p.tier < 3 && !p.hasWarning(QStringLiteral("driver_drops_gpu"));
        });
        if (keeper != plans.cend()) {
            keepsEveryGpu = *keeper;
            const Plan moved = *keeper;
            plans.erase(keeper);
            plans.insert(1, moved);
        }
    }
    if (chosen >= 0) {
        Plan best = plans.at(chosen);
        // Say so when a newer release on the same route lost only because its facts are unconfirmed.
        for (const Plan &other : std::as_const(plans)) {
            if (other.route == best.route && other.tier == best.tier && other.unverified
                && version::less(best.tensorflow, other.tensorflow)) {
                best.why += u' '
                    + Solver::tr("TensorFlow %1 is newer and listed as an alternative, but the catalog could not "
                                 "confirm all of its facts.")
                          .arg(version::majorMinor(other.tensorflow));
                break;
            }
        }
        if (keepsEveryGpu) {
            const bool driverAsItIs = !keepsEveryGpu->hasAction(QStringLiteral("update_driver"))
                && !keepsEveryGpu->hasAction(QStringLiteral("install_driver"));
            const QString title = RouteNames::title(context.catalog, keepsEveryGpu->route);
            const QString tf = version::majorMinor(keepsEveryGpu->tensorflow);
            const QString keep = driverAsItIs
                ? Solver::tr("To keep every GPU working, take the first alternative instead: "
                             "TensorFlow %1 (%2) runs with the driver you have.")
                      .arg(tf, title)
                : Solver::tr("To keep every GPU working, take the first alternative instead: "
                             "TensorFlow %1 (%2) needs no driver that drops one.")
                      .arg(tf, title);
            for (Finding &w : best.warnings) {
                if (w.code == u"driver_drops_gpu")
                    w.message += u' ' + keep;
            }
        }
        solution.recommended = best;
        solution.actions = best.actions;
        solution.warnings = best.warnings;
    }
    for (qsizetype i = 0; i < plans.size(); ++i) {
        if (i != chosen)
            solution.alternatives.append(plans.at(i));
    }

    if (!m.otherReportOs.isEmpty()) {
        solution.warnings.prepend({QStringLiteral("os_from_option"),
                                   Solver::tr("The hardware report describes a %1 machine; this plan is for %2, as "
                                              "--os asks. It plans for the report's processor and GPUs; the "
                                              "report's Pythons, NVIDIA driver, CUDA and cuDNN belong to %1, so "
                                              "the plan treats them as not installed on %2.")
                                       .arg(osName(m.otherReportOs), osName(m.os))});
    }
    if (m.osAssumed) {
        solution.warnings.prepend({QStringLiteral("os_unknown"),
                                   Solver::tr("The hardware report does not name the operating system; the plan "
                                              "assumes Linux. Give --os to choose.")});
    }
    if (!constraints.tensorflow.isEmpty() && !anyRelease) {
        solution.warnings.append({QStringLiteral("no_such_release"),
                                  Solver::tr("The catalog has no TensorFlow release %1 for this machine's routes.")
                                      .arg(constraints.tensorflow)});
    }
    // An experimental route (DirectML, ROCm) uses the GPU; only a CPU plan or none leaves it idle.
    if (!m.nvidia.isEmpty() && !constraints.cpuOnly && (!solution.recommended || solution.recommended->tier == 3)) {
        QStringList names;
        for (const MachineGpu &g : m.nvidia)
            names.append(gpuLabel(g));
        const QString gpus = names.join(QStringLiteral(", "));
        QString message;
        if (!rejected.isEmpty())
            message = Solver::tr("No TensorFlow release in the catalog can use your %1 here; the rejected combinations "
                                 "say why.")
                          .arg(gpus);
        else if (!constraints.route.isEmpty())
            message = Solver::tr("No TensorFlow release on “%2” can use your %1 here; plan without --route to see "
                                 "every way.")
                          .arg(gpus, RouteNames::title(context.catalog, constraints.route));
        else
            message = Solver::tr("No TensorFlow release in the catalog can use your %1 here.").arg(gpus);
        solution.warnings.append({QStringLiteral("gpu_unused"), message});
    }
    if (!solution.recommended && m.arch == u"x86_64" && m.avx == false) {
        solution.actions.append({QStringLiteral("use_another_machine"),
                                 Solver::tr("Official TensorFlow packages need a processor with AVX. Use a newer "
                                            "computer or a hosted notebook service.")});
    }
    return solution;
}

} // namespace tfsetup::core::stages
