#include "solver/solver.h"

#include "catalog/version.h"

#include <QRegularExpression>

#include <algorithm>

namespace tfsetup::core {

namespace {

struct Gpu {
    QString name;
    QString vendor; // "nvidia" | "amd" | "intel" | "apple" | ""
    QString cc;     // empty when unknown
};

// The facts about the machine the solver uses, read once from the report.
struct Machine {
    QString os;
    bool osAssumed = false;
    QString arch;
    int wsl = 0;
    int windowsBuild = 0; // 0 = unknown
    QList<Gpu> nvidia;
    QList<Gpu> others;
    bool appleGpu = false;
    std::optional<bool> avx;
    QString cpuName;
    QStringList pythons; // installed, major.minor, newest first; 32-bit ones left out
    QString driverVersion;
    QString driverCuda;
    QStringList toolkits; // major.minor
    QStringList cudnn;    // full versions
    std::optional<bool> msvcPresent;
};

enum class Fit { Native, Jit, TooOld, Unsupported, Unknown };

struct GpuFit {
    Fit fit = Fit::Unknown;
    Finding finding;
};

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

} // namespace

Solver::Solver(const Catalog &catalog, const GpuTable *gpus)
    : m_catalog(catalog)
    , m_gpus(gpus)
{
}

Solution Solver::solve(const HardwareReport &report, const SolverConstraints &constraints) const
{
    // ---- the machine ----------------------------------------------------------------------
    Machine m;
    m.os = constraints.os.isEmpty() ? report.os.family.toLower() : constraints.os.toLower();
    if (m.os.isEmpty()) {
        m.os = QStringLiteral("linux");
        m.osAssumed = true;
    }
    m.arch = report.os.arch.toLower();
    if (m.arch == u"amd64" || m.arch.isEmpty())
        m.arch = QStringLiteral("x86_64");
    if (m.arch == u"aarch64")
        m.arch = QStringLiteral("arm64");
    // WSL only describes the report's own system, not a different target OS.
    if (m.os == report.os.family.toLower() && m.os == u"linux")
        m.wsl = report.os.wsl;
    if (m.os == u"windows") {
        static const QRegularExpression build(QStringLiteral("build (\\d+)"));
        const auto match = build.match(report.os.version);
        if (match.hasMatch())
            m.windowsBuild = match.captured(1).toInt();
    }
    for (const GpuInfo &g : report.gpus) {
        Gpu gpu{g.name, vendorOf(g), g.computeCapability.trimmed()};
        if (gpu.vendor == u"nvidia" && gpu.cc.isEmpty() && m_gpus) {
            std::optional<GpuRecord> rec;
            if (!g.pciId.isEmpty())
                rec = m_gpus->byPciId(g.pciId);
            if (!rec && !g.name.isEmpty())
                rec = m_gpus->byName(g.name);
            if (rec) {
                gpu.cc = rec->computeCapability;
                if (gpu.name.isEmpty())
                    gpu.name = rec->name;
            }
        }
        if (gpu.name.isEmpty())
            gpu.name = g.pciId.isEmpty() ? tr("an unnamed GPU") : g.pciId;
        if (gpu.vendor == u"nvidia")
            m.nvidia.append(gpu);
        else
            m.others.append(gpu);
        if (gpu.vendor == u"apple")
            m.appleGpu = true;
    }
    // Every Apple-silicon Mac has an Apple GPU, whether or not the report lists it.
    if (m.os == u"macos" && m.arch == u"arm64")
        m.appleGpu = true;
    m.avx = report.cpu.avx;
    m.cpuName = report.cpu.name;
    for (const PythonInfo &p : report.pythons) {
        if (p.bits == 32 || p.version.isEmpty())
            continue;
        const QString mm = version::majorMinor(p.version);
        if (!m.pythons.contains(mm))
            m.pythons.append(mm);
    }
    std::sort(m.pythons.begin(), m.pythons.end(), [](const QString &a, const QString &b) { return version::less(b, a); });
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

    // The last native-Windows GPU release, for the messages that send Windows users to WSL2.
    QString lastWindowsNative;
    for (const Route &r : m_catalog.routes()) {
        if (r.accelerator == u"nvidia" && r.os.contains(QStringLiteral("windows")) && r.wsl == u"never")
            lastWindowsNative = r.tfMax;
    }

    // ---- helpers --------------------------------------------------------------------------
    auto classify = [&](const Gpu &gpu, const TfRelease &rel, const std::optional<GpuBuild> &build,
                        const std::optional<CudaToolkit> &toolkit) -> GpuFit {
        const QString tf = rel.minor();
        if (gpu.cc.isEmpty()) {
            return {Fit::Unknown,
                    {QStringLiteral("gpu_capability_unknown"),
                     tr("The compute capability of the %1 is unknown, so tfsetup cannot check it against TensorFlow "
                        "%2; run tfsetup detect on the machine itself.")
                         .arg(gpu.name, tf)}};
        }
        if (!build || !toolkit) {
            return {Fit::Unknown,
                    {QStringLiteral("gpu_capability_unknown"),
                     tr("The catalog does not say which GPUs TensorFlow %1 supports.").arg(tf)}};
        }
        const QString floor = version::less(build->lowest(), toolkit->ccMin) ? toolkit->ccMin : build->lowest();
        if (version::less(gpu.cc, floor)) {
            return {Fit::TooOld,
                    {QStringLiteral("gpu_too_old"),
                     tr("TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.")
                         .arg(tf, rel.cuda, floor, gpu.name, gpu.cc)}};
        }
        if (version::major(gpu.cc).toInt() > version::major(toolkit->ccMax).toInt()) {
            const auto needed = m_catalog.firstToolkitTargeting(gpu.cc);
            return {Fit::Unsupported,
                    {QStringLiteral("gpu_arch_unsupported"),
                     needed ? tr("TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the "
                                 "%4 (%5) needs CUDA %6 or newer.")
                                  .arg(tf, rel.cuda, toolkit->ccMax, gpu.name, gpu.cc, needed->version)
                            : tr("TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the "
                                 "%4 (%5) is newer than any CUDA the catalog knows.")
                                  .arg(tf, rel.cuda, toolkit->ccMax, gpu.name, gpu.cc)}};
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
            return {Fit::Unsupported,
                    {QStringLiteral("gpu_arch_unsupported"),
                     tr("TensorFlow %1 has GPU code for compute capability %2 only; none of it runs on the %3 (%4).")
                         .arg(tf, (build->sass + build->ptx).join(QStringLiteral(", ")), gpu.name, gpu.cc)}};
        }
        if (!sass) {
            return {Fit::Jit,
                    {QStringLiteral("gpu_needs_ptx_jit"),
                     tr("TensorFlow %1 has no machine code for the %2 (compute capability %3): the driver compiles "
                        "its PTX for %4 when TensorFlow starts, which takes minutes the first time.")
                         .arg(tf, gpu.name, gpu.cc, ptx)}};
        }
        if (version::less(toolkit->ccMax, gpu.cc)) {
            return {Fit::Jit,
                    {QStringLiteral("gpu_needs_ptx_jit"),
                     tr("TensorFlow %1 is built with CUDA %2, which predates the %3 (compute capability %4; CUDA %2 "
                        "targets up to %5): code compiled while TensorFlow runs goes through the driver's PTX JIT, "
                        "so the first start is slow and some operations are reported to fail.")
                         .arg(tf, rel.cuda, gpu.name, gpu.cc, toolkit->ccMax)}};
        }
        return {Fit::Native, {}};
    };

    auto unverifiedNote = [&](const QString &what) {
        return Finding{QStringLiteral("record_unverified"),
                       tr("tfsetup could not confirm %1 from a primary source; the plan assumes it.").arg(what)};
    };

    QList<Plan> plans;
    Solution solution;
    bool anyCandidate = false;

    for (const Route &route : m_catalog.routes()) {
        if (!constraints.route.isEmpty() && route.name != constraints.route)
            continue;
        if (constraints.cpuOnly && route.isAccelerated())
            continue;

        // ---- route-level fit --------------------------------------------------------------
        QList<Finding> routeReasons;
        const RoutePlatform *platform = nullptr;
        if (!route.os.contains(m.os)) {
            routeReasons.append({QStringLiteral("os_unsupported"),
                                 tr("The %1 route runs on %2; this machine runs %3.")
                                     .arg(route.name,
                                          [&] {
                                              QStringList names;
                                              for (const QString &o : route.os)
                                                  names.append(osName(o));
                                              return names.join(QStringLiteral(", "));
                                          }(),
                                          osName(m.os))});
        } else if (route.isAccelerated() && m.wsl == 1) {
            routeReasons.append({QStringLiteral("os_unsupported"),
                                 tr("WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version "
                                    "<distribution> 2).")});
        } else if (route.wsl == u"never" && m.wsl == 2 && route.isAccelerated()) {
            routeReasons.append({QStringLiteral("os_unsupported"),
                                 tr("This is WSL2, where the GPU driver is the Windows one: use the wsl2 route.")});
        } else if (route.wsl == u"required" && m.os == u"linux" && m.wsl != 2) {
            routeReasons.append({QStringLiteral("os_unsupported"),
                                 tr("The wsl2 route is for Windows machines and for WSL2 itself; this is plain Linux.")});
        } else if (route.wsl == u"required" && m.os == u"windows" && m.windowsBuild > 0
                   && m.windowsBuild < route.windowsBuildMin) {
            routeReasons.append({QStringLiteral("os_unsupported"),
                                 tr("GPU support in WSL2 needs Windows 10 build %1 or newer; this Windows is build %2. "
                                    "Update Windows.")
                                     .arg(route.windowsBuildMin)
                                     .arg(m.windowsBuild)});
        }
        if (routeReasons.isEmpty()) {
            if (!route.platforms.isEmpty()) {
                for (const RoutePlatform &p : route.platforms) {
                    if (p.os == m.os && p.arch == m.arch) {
                        platform = &p;
                        break;
                    }
                }
                if (!platform) {
                    routeReasons.append({QStringLiteral("arch_unsupported"),
                                         tr("There is no official TensorFlow package for %1 on %2.")
                                             .arg(osName(m.os), m.arch)});
                }
            } else if (!route.arch.contains(m.arch)) {
                routeReasons.append({QStringLiteral("arch_unsupported"),
                                     tr("The %1 route needs a %2 processor; this machine is %3.")
                                         .arg(route.name, route.arch.join(tr(" or ", "joins processor architectures: x86_64 or arm64")), m.arch)});
            }
        }
        if (route.accelerator == u"nvidia" && m.nvidia.isEmpty()) {
            routeReasons.append({QStringLiteral("no_nvidia_gpu"),
                                 m.others.isEmpty()
                                     ? tr("No NVIDIA GPU was found; the %1 route needs one.").arg(route.name)
                                     : tr("The %1 route needs an NVIDIA GPU; this machine has %2.")
                                           .arg(route.name, m.others.first().name)});
        } else if (route.accelerator == u"amd"
                   && std::none_of(m.others.cbegin(), m.others.cend(), [](const Gpu &g) { return g.vendor == u"amd"; })) {
            routeReasons.append({QStringLiteral("no_supported_gpu"),
                                 tr("The %1 route needs an AMD GPU; none was found.").arg(route.name)});
        } else if (route.accelerator == u"apple" && !m.appleGpu) {
            routeReasons.append({QStringLiteral("no_supported_gpu"),
                                 tr("The %1 route needs a Mac with Apple silicon.").arg(route.name)});
        } else if (route.accelerator == u"directx12" && m.nvidia.isEmpty() && m.others.isEmpty()) {
            routeReasons.append({QStringLiteral("no_supported_gpu"),
                                 tr("The %1 route needs a DirectX 12 GPU; none was found.").arg(route.name)});
        }
        if (m.arch == u"x86_64" && m.avx == false) {
            const auto avx = m_catalog.cpuRequirement(QStringLiteral("avx"));
            if (avx) {
                routeReasons.append(
                    {QStringLiteral("cpu_lacks_avx"),
                     tr("Official TensorFlow packages use AVX instructions since TensorFlow %1; this processor (%2) "
                        "has no AVX.")
                         .arg(avx->tfMin, m.cpuName.isEmpty() ? tr("name unknown") : m.cpuName)});
            }
        }
        if (!routeReasons.isEmpty()) {
            solution.rejected.append({QString(), route.name, routeReasons});
            continue;
        }

        // ---- the releases this route offers ------------------------------------------------
        QList<TfRelease> releases;
        if (!route.versions.isEmpty()) {
            for (const QString &v : route.versions) {
                if (const auto r = m_catalog.release(route.releases, v))
                    releases.append(*r);
            }
            std::sort(releases.begin(), releases.end(),
                      [](const TfRelease &a, const TfRelease &b) { return version::less(b.version, a.version); });
        } else {
            releases = m_catalog.releasesFor(route.releases);
        }
        if (!route.beyondMaxReason.isEmpty() && !route.tfMax.isEmpty()) {
            // Releases past the route's end are rejected by name: that is the answer users look for
            // ("why no TF 2.15 on native Windows?").
            QStringList minors;
            for (const TfRelease &r : m_catalog.releases()) {
                if (!version::less(route.tfMax, r.minor()) || minors.contains(r.minor()))
                    continue;
                if (!version::matchesPrefix(constraints.tensorflow, r.version))
                    continue;
                minors.append(r.minor());
                anyCandidate = true;
                solution.rejected.append(
                    {r.version, route.name,
                     {{route.beyondMaxReason,
                       tr("TensorFlow %1 has no GPU support on native Windows: the last release with it is %2. Use "
                          "WSL2 for newer releases, or TensorFlow %2 here.")
                           .arg(r.minor(), route.tfMax)}}});
            }
        }

        for (const TfRelease &rel : releases) {
            const QString tf = rel.minor();
            if (!version::inRange(tf, route.tfMin, route.tfMax))
                continue;
            if (platform && !version::inRange(tf, platform->tfMin, platform->tfMax))
                continue;
            if (route.requiresPipCuda && rel.pipCudaExtra.isEmpty())
                continue;
            if (!version::matchesPrefix(constraints.tensorflow, rel.version))
                continue;
            anyCandidate = true;

            Plan p;
            QList<Finding> reasons;
            p.route = route.name;
            p.tensorflow = rel.version;
            p.package = route.package.isEmpty() ? rel.package : route.package;
            if (route.cudaLibraries == u"pip")
                p.package += u'[' + rel.pipCudaExtra + u']';
            p.plugins = route.plugins;
            if (!route.verified) {
                p.unverified = true;
                p.warnings.append(unverifiedNote(tr("every detail of the %1 route").arg(route.name)));
            }
            if (platform && !platform->verified) {
                p.unverified = true;
                p.warnings.append(unverifiedNote(tr("that TensorFlow %1 is published for %2 on %3")
                                                     .arg(tf, osName(m.os), m.arch)));
            }
            if (!rel.verified || !rel.packageVerified) {
                p.unverified = true;
                p.warnings.append(unverifiedNote(tr("the package name %1 for TensorFlow %2").arg(p.package, tf)));
            }

            // Python
            QStringList pythons = rel.pythonVersions();
            if (!route.pythonMin.isEmpty()) {
                pythons.erase(std::remove_if(pythons.begin(), pythons.end(),
                                             [&](const QString &v) { return version::less(v, route.pythonMin); }),
                              pythons.end());
            }
            // TensorFlow's Python 2.7 wheels are history; offer Python 3 whenever the release has it.
            std::stable_partition(pythons.begin(), pythons.end(), [](const QString &v) { return version::major(v) == u"3"; });
            const QString supported = rel.pythonText();
            if (!constraints.python.isEmpty()) {
                const QString wanted = version::majorMinor(constraints.python);
                if (!pythons.contains(wanted)) {
                    reasons.append({QStringLiteral("python_unsupported"),
                                    tr("TensorFlow %1 supports Python %2; you asked for Python %3.")
                                        .arg(tf, supported, wanted)});
                } else {
                    p.python = wanted;
                }
            } else {
                // Pythons found on a Windows host do not exist inside the WSL2 distribution.
                const QStringList installed = route.wsl == u"required" && m.os == u"windows" ? QStringList() : m.pythons;
                for (const QString &have : installed) {
                    if (pythons.contains(have)) {
                        p.python = have;
                        break;
                    }
                }
                if (p.python.isEmpty() && !pythons.isEmpty())
                    p.python = pythons.first();
                if (pythons.isEmpty()) {
                    reasons.append({QStringLiteral("python_unsupported"),
                                    tr("TensorFlow %1 on the %2 route needs Python %3 or newer, which it does not "
                                       "support (%4).")
                                        .arg(tf, route.name, route.pythonMin, supported)});
                }
            }
            if (!p.python.isEmpty()) {
                p.pythonInstalled = m.pythons.contains(p.python) && !(route.wsl == u"required" && m.os == u"windows");
                if (!p.pythonInstalled) {
                    p.actions.append(
                        {QStringLiteral("install_python"),
                         m.pythons.isEmpty()
                             ? tr("Install Python %1 (TensorFlow %2 supports Python %3).").arg(p.python, tf, supported)
                             : tr("Install Python %1: TensorFlow %2 supports Python %3, and this machine has %4.")
                                   .arg(p.python, tf, supported, m.pythons.join(QStringLiteral(", ")))});
                }
            }

            // NVIDIA GPU, CUDA and driver
            bool jit = false;
            QStringList usedGpus;
            if (route.accelerator == u"nvidia") {
                const auto build = m_catalog.gpuBuild(rel.version, rel.os);
                const auto toolkit = m_catalog.toolkit(rel.cuda);
                if (build && !build->verified) {
                    p.unverified = true;
                    p.warnings.append(unverifiedNote(tr("which GPU architectures TensorFlow %1's packages contain").arg(tf)));
                }
                QList<GpuFit> fits;
                bool anyNative = false;
                bool anyUsable = false;
                for (const Gpu &gpu : m.nvidia) {
                    const GpuFit f = classify(gpu, rel, build, toolkit);
                    fits.append(f);
                    if (f.fit == Fit::Native || f.fit == Fit::Jit || f.fit == Fit::Unknown) {
                        anyUsable = true;
                        usedGpus.append(gpu.cc.isEmpty() ? gpu.name
                                                         : tr("%1 (compute capability %2)").arg(gpu.name, gpu.cc));
                    }
                    anyNative = anyNative || f.fit == Fit::Native;
                }
                for (qsizetype i = 0; i < fits.size(); ++i) {
                    const GpuFit &f = fits.at(i);
                    if (f.fit == Fit::Native)
                        continue;
                    if (!anyUsable) {
                        reasons.append(f.finding);
                    } else if (f.fit == Fit::TooOld || f.fit == Fit::Unsupported) {
                        p.warnings.append({f.finding.code,
                                           f.finding.message + u' '
                                               + tr("TensorFlow will not use the %1.").arg(m.nvidia.at(i).name)});
                    } else {
                        p.warnings.append(f.finding);
                    }
                }
                jit = anyUsable && !anyNative
                    && std::any_of(fits.cbegin(), fits.cend(), [](const GpuFit &f) { return f.fit == Fit::Jit; });

                p.cuda = rel.cuda;
                p.cudnn = rel.cudnn;
                if (toolkit) {
                    const QString os = route.driverOs;
                    const auto compat = m_catalog.minorCompatibility(rel.cuda);
                    // Minor-version compatibility lets an older driver of the family run the
                    // libraries, but PTX JIT needs the driver that shipped with the toolkit.
                    const QString required = jit || !compat ? toolkit->driverMin.forOs(os)
                                                            : lower(toolkit->driverMin.forOs(os), compat->driverMin.forOs(os));
                    p.driverMin = required;
                    QString problem;
                    if (!m.driverVersion.isEmpty()) {
                        if (version::less(m.driverVersion, required)) {
                            problem = jit ? tr("TensorFlow %1 needs CUDA %2, and PTX JIT needs the driver CUDA %2 "
                                               "shipped with, %3 or newer on %4; yours is %5.")
                                                .arg(tf, rel.cuda, required, osName(os), m.driverVersion)
                                          : tr("TensorFlow %1 needs CUDA %2, which needs driver %3 or newer on %4; "
                                               "yours is %5.")
                                                .arg(tf, rel.cuda, required, osName(os), m.driverVersion);
                        }
                    } else if (!m.driverCuda.isEmpty()) {
                        const QString neededCuda = jit || !compat ? rel.cuda : compat->cudaMin;
                        if (version::less(m.driverCuda, neededCuda)) {
                            problem = tr("TensorFlow %1 needs CUDA %2; your driver supports CUDA up to %3. It needs "
                                         "driver %4 or newer on %5.")
                                          .arg(tf, rel.cuda, m.driverCuda, required, osName(os));
                        }
                    } else {
                        p.actions.append({QStringLiteral("install_driver"),
                                          tr("Install the NVIDIA driver, %1 or newer (TensorFlow %2 needs CUDA %3).")
                                              .arg(required, tf, rel.cuda)});
                    }
                    if (!problem.isEmpty()) {
                        if (constraints.keepDriver) {
                            reasons.append({QStringLiteral("driver_too_old"), problem});
                        } else {
                            p.actions.append({QStringLiteral("update_driver"),
                                              problem + u' ' + tr("Update the NVIDIA driver to %1 or newer.").arg(required)});
                        }
                    }
                }
                if (route.cudaLibraries == u"toolkit") {
                    p.libraries = m_catalog.cudaLibraries(rel.cuda, rel.os) + m_catalog.cudnnLibraries(rel.cudnn, rel.os);
                    if (!m.toolkits.contains(version::majorMinor(rel.cuda))) {
                        p.actions.append({QStringLiteral("install_cuda"),
                                          tr("Install CUDA %1 (TensorFlow %2 opens %3).")
                                              .arg(rel.cuda, tf, m_catalog.cudaLibraries(rel.cuda, rel.os).value(0))});
                    }
                    const bool cudnnOk = std::any_of(m.cudnn.cbegin(), m.cudnn.cend(), [&](const QString &c) {
                        return version::major(c) == version::major(rel.cudnn) && !version::less(c, rel.cudnn);
                    });
                    if (!cudnnOk) {
                        p.actions.append({QStringLiteral("install_cudnn"),
                                          tr("Install cuDNN %1 (TensorFlow %2 opens %3).")
                                              .arg(rel.cudnn, tf, m_catalog.cudnnLibraries(rel.cudnn, rel.os).value(0))});
                    }
                }
            }
            if (m.os == u"windows" && route.wsl != u"required" && m.msvcPresent == false) {
                p.actions.append({QStringLiteral("install_msvc_runtime"),
                                  tr("Install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 "
                                     "(x64); TensorFlow needs msvcp140.dll.")});
            }
            if (route.wsl == u"required" && m.os == u"windows") {
                p.actions.prepend({QStringLiteral("use_wsl2"),
                                   tr("Install WSL2 with a Linux distribution (wsl --install) and run tfsetup inside "
                                      "it: TensorFlow %1 uses the GPU there, while native Windows GPU support ended "
                                      "with TensorFlow %2.")
                                       .arg(tf, lastWindowsNative)});
            }
            for (const QString &a : route.actions) {
                if (a == u"install_rocm") {
                    p.actions.append({a, tr("Install AMD ROCm for your GPU first; AMD lists which Radeon and "
                                            "Instinct GPUs each ROCm release supports.")});
                } else {
                    p.actions.append({a, tr("Prepare the %1 route (%2).").arg(route.name, a)});
                }
            }
            if (route.experimental) {
                p.warnings.append({QStringLiteral("route_experimental"),
                                   tr("The %1 route is offered as an experiment: tfsetup cannot confirm that it "
                                      "supports your GPU.")
                                       .arg(route.name)});
            }

            if (!reasons.isEmpty()) {
                solution.rejected.append({rel.version, route.name, reasons});
                continue;
            }

            if (!route.isAccelerated())
                p.tier = 3;
            else if (route.experimental)
                p.tier = 4;
            else if (jit)
                p.tier = 2;
            else if (p.hasAction(QStringLiteral("use_wsl2")))
                p.tier = 1;
            else
                p.tier = 0;

            // Why, in a few plain sentences.
            QStringList why;
            const QString gpus = usedGpus.join(QStringLiteral(", "));
            switch (p.tier) {
            case 0:
                why.append(route.accelerator == u"nvidia"
                               ? tr("TensorFlow %1's tested configuration runs natively on your %2.").arg(tf, gpus)
                               : tr("TensorFlow %1 uses your GPU through the %2 route.").arg(tf, route.name));
                break;
            case 1:
                why.append(tr("TensorFlow %1 runs on your %2 inside WSL2; native Windows GPU support ended with "
                              "TensorFlow %3.")
                               .arg(tf, gpus, lastWindowsNative));
                break;
            case 2:
                why.append(tr("TensorFlow %1 can use your %2 only through PTX JIT: slow first start.").arg(tf, gpus));
                break;
            case 3:
                // With a GPU present, the first sentence depends on whether any GPU plan fits:
                // it is added after the loop, once every route was tried.
                if (constraints.cpuOnly || (m.nvidia.isEmpty() && m.others.isEmpty()))
                    why.append(tr("TensorFlow %1 runs on the CPU.").arg(tf));
                break;
            default:
                why.append(tr("TensorFlow %1 on the experimental %2 route.").arg(tf, route.name));
                break;
            }
            if (route.cudaLibraries == u"pip") {
                why.append(tr("CUDA %1 and cuDNN %2 come as pip packages, so only the NVIDIA driver (%3 or newer) "
                              "must be installed.")
                               .arg(p.cuda, p.cudnn, p.driverMin));
            } else if (route.cudaLibraries == u"toolkit") {
                why.append(tr("It needs CUDA %1, cuDNN %2 and driver %3 or newer.").arg(p.cuda, p.cudnn, p.driverMin));
            }
            if (!p.python.isEmpty()) {
                why.append(p.pythonInstalled ? tr("It uses the installed Python %1.").arg(p.python)
                                             : tr("It needs Python %1, which tfsetup installs.").arg(p.python));
            }
            p.why = why.join(u' ');
            plans.append(p);
        }
    }

    // ---- ranking --------------------------------------------------------------------------
    const QStringList routeOrder = m_catalog.routeNames();
    std::stable_sort(plans.begin(), plans.end(), [&](const Plan &a, const Plan &b) {
        if (a.tier != b.tier)
            return a.tier < b.tier;
        if (a.unverified != b.unverified)
            return !a.unverified;
        if (const int c = version::compare(a.tensorflow, b.tensorflow); c != 0)
            return c > 0;
        if (a.actions.size() != b.actions.size())
            return a.actions.size() < b.actions.size();
        return routeOrder.indexOf(a.route) < routeOrder.indexOf(b.route);
    });

    // A CPU plan on a machine with a GPU: the fallback beside a GPU plan, else the only way.
    if (!constraints.cpuOnly && !(m.nvidia.isEmpty() && m.others.isEmpty())) {
        const bool gpuPlanFits = std::any_of(plans.cbegin(), plans.cend(), [](const Plan &p) { return p.tier != 3; });
        for (Plan &p : plans) {
            if (p.tier != 3)
                continue;
            const QString tf = version::majorMinor(p.tensorflow);
            const QString first = gpuPlanFits
                                      ? tr("TensorFlow %1 on the processor only: the fallback that works without the "
                                           "GPU, slower but with nothing to install for the graphics card.")
                                            .arg(tf)
                                      : tr("No GPU route fits this machine, so TensorFlow %1 runs on the CPU.").arg(tf);
            p.why = p.why.isEmpty() ? first : first + u' ' + p.why;
        }
    }

    qsizetype chosen = -1;
    if (!plans.isEmpty() && plans.first().tier < 4)
        chosen = 0;
    if (chosen >= 0) {
        Plan best = plans.at(chosen);
        // Say so when a newer release on the same route lost only because its facts are unconfirmed.
        for (const Plan &other : plans) {
            if (other.route == best.route && other.tier == best.tier && other.unverified
                && version::less(best.tensorflow, other.tensorflow)) {
                best.why += u' '
                    + tr("TensorFlow %1 is newer and listed as an alternative, but the catalog could not confirm "
                         "all of its facts.")
                          .arg(version::majorMinor(other.tensorflow));
                break;
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

    // ---- global findings ------------------------------------------------------------------
    if (m.osAssumed) {
        solution.warnings.prepend({QStringLiteral("os_unknown"),
                                   tr("The hardware report does not name the operating system; the plan assumes "
                                      "Linux. Give --os to choose.")});
    }
    if (!constraints.tensorflow.isEmpty() && !anyCandidate) {
        solution.warnings.append({QStringLiteral("no_such_release"),
                                  tr("The catalog has no TensorFlow release %1 for this machine's routes.")
                                      .arg(constraints.tensorflow)});
    }
    if (!m.nvidia.isEmpty() && !constraints.cpuOnly
        && (!solution.recommended || solution.recommended->route.isEmpty() || solution.recommended->tier >= 3)) {
        QStringList names;
        for (const Gpu &g : m.nvidia)
            names.append(g.cc.isEmpty() ? g.name : tr("%1 (compute capability %2)").arg(g.name, g.cc));
        solution.warnings.append({QStringLiteral("gpu_unused"),
                                  tr("No TensorFlow release in the catalog can use your %1 here; the rejected "
                                     "combinations say why.")
                                      .arg(names.join(QStringLiteral(", ")))});
    }
    if (!solution.recommended && m.arch == u"x86_64" && m.avx == false) {
        solution.actions.append({QStringLiteral("use_another_machine"),
                                 tr("Official TensorFlow packages need a processor with AVX. Use a newer computer or "
                                    "a hosted notebook service.")});
    }
    return solution;
}

} // namespace tfsetup::core
