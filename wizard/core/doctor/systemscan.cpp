#include "doctor/systemscan.h"

#include "install/environmentrecord.h"
#include "install/launchers.h"
#include "repair/piprecord.h"
#include "repair/repair.h"
#include "setup/environments.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "detect/versionparsers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace tfsetup::core {

namespace {

using namespace Qt::Literals::StringLiterals;

// Windows' classic MAX_PATH (260 characters, Microsoft's "Maximum Path Length Limitation").
constexpr int windowsMaxPath = 260;
// How many characters the deepest files of a TensorFlow installation add below the environment
// folder. An estimate with room to spare, not a measured figure: the warning says "may".
constexpr int deepestInstalledFile = 150;

QString osName(const SystemView &system)
{
    return system.os() == OsFamily::Windows ? u"windows"_s : u"linux"_s;
}

bool isAscii(const QString &text)
{
    return std::all_of(text.cbegin(), text.cend(), [](QChar c) { return c.unicode() < 0x80; });
}

QString parentDir(const QString &path)
{
    return path.section(u'/', 0, -2);
}

DoctorAction action(const char *type, QJsonObject params = {})
{
    return {QString::fromLatin1(type), std::move(params)};
}

// The CUDA and cuDNN files worth listing wherever they turn up on the search path, whatever
// TensorFlow version is installed: a stray copy of any of them can be the one that loads first.
const QStringList &watchedPatterns(OsFamily os)
{
    static const QStringList windows{u"cudart64_*.dll"_s,   u"cublas64_*.dll"_s, u"cublasLt64_*.dll"_s,
                                     u"cufft64_*.dll"_s,    u"curand64_*.dll"_s, u"cusolver64_*.dll"_s,
                                     u"cusparse64_*.dll"_s, u"cudnn*64_*.dll"_s, u"nvcuda.dll"_s};
    static const QStringList linux{u"libcudart.so.*"_s,   u"libcublas.so.*"_s, u"libcublasLt.so.*"_s,
                                   u"libcufft.so.*"_s,    u"libcurand.so.*"_s, u"libcusolver.so.*"_s,
                                   u"libcusparse.so.*"_s, u"libcudnn*.so.*"_s, u"libcuda.so.1"_s};
    return os == OsFamily::Windows ? windows : linux;
}

struct Copy {
    QString path;
    QString origin;
};

class Scan {
public:
    Scan(const SystemView &system, const HardwareReport &hardware, const Knowledge &knowledge,
         const DoctorTarget &target, bool hardwareOnly = false)
        : m_system(system)
        , m_hw(hardware)
        , m_knowledge(knowledge)
        , m_catalog(knowledge.catalog)
        , m_target(target)
        , m_hardwareOnly(hardwareOnly)
        , m_search(hardwareOnly ? QList<LibrarySearchDir>() : librarySearchOrder(system, target))
    {
        m_os = !hardwareOnly ? osName(system) : hardware.os.family == u"windows" ? u"windows"_s : u"linux"_s;
        if (!target.tensorflow.isEmpty())
            m_release = m_catalog.release(m_os, version::majorMinor(target.tensorflow));
        // A tfsetup environment's plan names the CUDA and cuDNN its files are for.
        if (m_release && target.record && !target.cuda.isEmpty()) {
            m_release->cuda = target.cuda;
            if (!target.cudnn.isEmpty())
                m_release->cudnn = target.cudnn;
        }
        m_cpuOnly = target.cpuOnly || hardware.nvidiaGpus().isEmpty();
        // The libraries a GPU environment tfsetup made are its own files: missing ones are worth
        // saying even where no GPU is seen now (a driver that broke since).
        m_checkLibraries = !m_cpuOnly || (target.record && !target.route.isEmpty() && !target.cpuOnly);
    }

    QList<DoctorFinding> run()
    {
        if (m_hardwareOnly) {
            // Another machine, known by its detect --json: what its report tells, not this disk.
            checkGpuAndDriver();
            checkCpu();
            checkMsvc();
            checkWindowsNativeLimit();
            checkPython();
            checkComputeCapability();
            sortFindings(m_findings);
            return m_findings;
        }
        checkGpuAndDriver();
        checkPinnedGpus();
        checkCpu();
        checkMsvc();
        checkWindowsNativeLimit();
        checkPython();
        checkComputeCapability();
        checkRecord();
        checkToolkits();
        if (m_release && m_checkLibraries && !m_windowsTooNew)
            checkRequiredLibraries();
        checkZlibwapi();
        checkShadowing();
        checkPaths();
        checkJupyterKernels();
        sortFindings(m_findings);
        return m_findings;
    }

private:
    void add(DoctorFinding f) { m_findings.append(std::move(f)); }

    Severity gpuSeverity(Severity severity) const { return m_cpuOnly ? Severity::Info : severity; }

    QString toolkitOf(const QString &path) const
    {
        const QString key = m_system.identity(path);
        for (const CudaToolkitInfo &t : m_hw.cudaToolkits) {
            QStringList roots = t.aliases;
            roots.prepend(t.path);
            for (const QString &root : roots) {
                const QString rootKey = m_system.identity(root);
                if (!rootKey.isEmpty() && (key.startsWith(rootKey + u'/') || path.startsWith(root + u'/')))
                    return t.version;
            }
        }
        return {};
    }

    QString describe(const Copy &copy) const
    {
        QString text = copy.path + u" (" + copy.origin;
        const QString toolkit = toolkitOf(copy.path);
        if (!toolkit.isEmpty())
            text += u", CUDA " + toolkit;
        return text + u')';
    }

    // Copies of name on the search path, first (the one that loads) first; one per real file.
    QList<Copy> copiesOnSearchPath(const QString &name) const
    {
        QList<Copy> out;
        QSet<QString> seen;
        for (const LibrarySearchDir &d : m_search) {
            const QString path = SystemView::join(d.dir, name);
            if (!m_system.isFile(path))
                continue;
            const QString key = m_system.identity(path);
            if (seen.contains(key))
                continue;
            seen.insert(key);
            out.append({path, d.origin});
        }
        return out;
    }

    // Folders off the search path where CUDA or cuDNN files are known to sit: each toolkit's
    // library folder and wherever the cuDNN scan found a copy.
    QStringList offPathDirs() const
    {
        QStringList dirs;
        auto addDir = [&](const QString &dir) {
            if (dir.isEmpty() || !m_system.isDir(dir))
                return;
            const QString key = m_system.identity(dir);
            for (const LibrarySearchDir &d : m_search) {
                if (m_system.identity(d.dir) == key)
                    return;
            }
            for (const QString &known : dirs) {
                if (m_system.identity(known) == key)
                    return;
            }
            dirs.append(dir);
        };
        for (const CudaToolkitInfo &t : m_hw.cudaToolkits) {
            if (m_system.os() == OsFamily::Windows) {
                addDir(SystemView::join(t.path, u"bin"_s));
                addDir(SystemView::join(t.path, u"bin/x64"_s)); // CUDA 13 moved the DLLs here
            } else {
                addDir(SystemView::join(t.path, u"lib64"_s));
            }
        }
        for (const CudnnInfo &c : m_hw.cudnn) {
            const QString dir = parentDir(c.path);
            if (c.source == u"header") {
                const QString prefix = parentDir(dir);
                addDir(SystemView::join(prefix, m_system.os() == OsFamily::Windows ? u"bin"_s : u"lib64"_s));
            } else {
                addDir(dir);
            }
        }
        return dirs;
    }

    QStringList copiesElsewhere(const QString &name) const
    {
        QStringList out;
        for (const QString &dir : offPathDirs()) {
            const QString path = SystemView::join(dir, name);
            if (m_system.isFile(path))
                out.append(path);
        }
        return out;
    }

    // Every file on the search path matching one of patterns, by name, in search order.
    QStringList namesOnSearchPath(const QStringList &patterns) const
    {
        QStringList names;
        for (const LibrarySearchDir &d : m_search) {
            for (const QString &name :
                 m_system.entries(d.dir, patterns, QDir::Files | QDir::System | QDir::NoDotAndDotDot)) {
                const QString lower = m_system.os() == OsFamily::Windows ? name.toLower() : name;
                bool known = false;
                for (const QString &n : names) {
                    if ((m_system.os() == OsFamily::Windows ? n.toLower() : n) == lower)
                        known = true;
                }
                if (!known)
                    names.append(name);
            }
        }
        return names;
    }

    // libcudart.so.11.0 and libcudart.so.11.8.89 are one runtime (the soname and its file);
    // Windows names carry the whole version, so only the same name is the same runtime.
    bool sameRuntime(const QString &name, const QString &runtime) const
    {
        if (m_system.os() == OsFamily::Windows)
            return name.compare(runtime, Qt::CaseInsensitive) == 0;
        const QString a = name.section(u".so."_s, 1), b = runtime.section(u".so."_s, 1);
        return version::major(a) == version::major(b);
    }

    QString pathVariable() const { return m_system.os() == OsFamily::Windows ? u"PATH"_s : u"LD_LIBRARY_PATH"_s; }

    void checkGpuAndDriver()
    {
        const QList<GpuInfo> nvidia = m_hw.nvidiaGpus();
        if (nvidia.isEmpty()) {
            DoctorFinding f;
            f.id = u"no_gpu_or_driver:gpu"_s;
            f.cause = u"no_gpu_or_driver"_s;
            f.severity = m_target.cpuOnly ? Severity::Info : Severity::Warning;
            f.summary = causes().summary(u"no_gpu_or_driver"_s, u"scan_no_gpu"_s);
            f.fix = causes().fix(u"no_gpu_or_driver"_s, u"scan_no_gpu"_s);
            for (const GpuInfo &g : m_hw.gpus)
                f.evidence.append(u"gpu: %1 (%2)"_s.arg(g.name, g.vendor));
            for (const Problem &p : m_hw.problems) {
                if (p.method == u"nvml" || p.method == u"nvidia-smi" || p.method == u"cuda-driver")
                    f.evidence.append(p.method + u": " + p.error);
            }
            add(std::move(f));
            return;
        }
        if (!m_hw.driver || m_hw.driver->version.isEmpty()) {
            DoctorFinding f;
            f.id = u"no_gpu_or_driver:driver"_s;
            f.cause = u"no_gpu_or_driver"_s;
            f.severity = gpuSeverity(Severity::Error);
            f.summary = causes().summary(u"no_gpu_or_driver"_s, u"scan_no_driver"_s, {{u"gpu"_s, nvidia.first().name}});
            f.fix = causes().fix(u"no_gpu_or_driver"_s);
            for (const GpuInfo &g : nvidia)
                f.evidence.append(u"gpu: %1 [%2] via %3"_s.arg(g.name, g.pciId, g.source));
            for (const Problem &p : m_hw.problems) {
                if (p.method == u"nvml" || p.method == u"nvidia-smi" || p.method == u"cuda-driver")
                    f.evidence.append(p.method + u": " + p.error);
            }
            f.actions = {action("install_driver")};
            add(std::move(f));
            return;
        }
        if (!m_release)
            return;
        const QString driverOs = m_hw.os.wsl == 2 ? u"windows"_s : m_os;
        QString floor;
        QString source;
        if (const auto minor = m_catalog.minorCompatibility(m_release->cuda)) {
            floor = minor->driverMin.forOs(driverOs);
            source = minor->source;
        }
        if (floor.isEmpty()) {
            if (const auto toolkit = m_catalog.toolkit(m_release->cuda)) {
                floor = toolkit->driverMin.forOs(driverOs);
                source = toolkit->source;
            }
        }
        if (floor.isEmpty() || !version::less(m_hw.driver->version, floor))
            return;
        DoctorFinding f;
        f.id = u"driver_too_old:"_s + m_hw.driver->version;
        f.cause = u"driver_too_old"_s;
        f.severity = gpuSeverity(Severity::Error);
        f.summary = causes().summary(u"driver_too_old"_s, u"scan_floor"_s,
                                     {{u"driver"_s, m_hw.driver->version},
                                      {u"floor"_s, floor},
                                      {u"cuda"_s, m_release->cuda},
                                      {u"tensorflow"_s, m_target.tensorflow}});
        f.fix = causes().fix(u"driver_too_old"_s);
        f.evidence = {u"driver %1 (%2)"_s.arg(m_hw.driver->version, m_hw.driver->source),
                      u"needed: %1 or newer (%2)"_s.arg(floor, source)};
        f.actions = {action("install_driver", {{u"min_version"_s, floor}})};
        add(std::move(f));
    }

    // The GPUs a tfsetup environment's launchers make visible (CUDA_VISIBLE_DEVICES, by the
    // detection report's numbering): one this machine lacks leaves TensorFlow without it.
    void checkPinnedGpus()
    {
        const qsizetype count = m_hw.nvidiaGpus().size();
        if (m_target.gpus.isEmpty() || count == 0 || m_target.cpuOnly)
            return;
        QStringList absent;
        for (int gpu : m_target.gpus) {
            if (gpu < 0 || gpu >= count)
                absent.append(QString::number(gpu));
        }
        if (absent.isEmpty())
            return;
        DoctorFinding f;
        f.id = u"no_gpu_or_driver:pinned"_s;
        f.cause = u"no_gpu_or_driver"_s;
        f.severity = absent.size() == m_target.gpus.size() ? Severity::Error : Severity::Warning;
        f.summary = causes().summary(f.cause, u"pinned_missing"_s,
                                     {{u"gpus"_s, absent.join(u", "_s)}, {u"count"_s, QString::number(count)}});
        f.fix = causes().fix(f.cause, u"pinned_missing"_s, {{u"env"_s, m_target.envDir}});
        QStringList pinned;
        for (int gpu : m_target.gpus)
            pinned.append(QString::number(gpu));
        f.evidence.append(u"%1: gpus %2"_s.arg(m_target.recordPath, pinned.join(u","_s)));
        const QList<GpuInfo> gpus = m_hw.nvidiaGpus();
        for (qsizetype i = 0; i < gpus.size(); ++i)
            f.evidence.append(u"gpu %1: %2 (%3)"_s.arg(i).arg(gpus[i].name, gpus[i].source));
        add(std::move(f));
    }

    void checkCpu()
    {
        if (!m_hw.cpu.avx.has_value() || *m_hw.cpu.avx)
            return;
        const auto requirement = m_catalog.cpuRequirement(u"avx"_s);
        if (!m_target.tensorflow.isEmpty() && requirement && version::less(m_target.tensorflow, requirement->tfMin))
            return;
        DoctorFinding f;
        f.id = u"cpu_lacks_avx"_s;
        f.cause = u"cpu_lacks_avx"_s;
        f.severity = Severity::Error;
        f.summary = causes().summary(u"cpu_lacks_avx"_s, {}, {{u"instructions"_s, u"AVX"_s}});
        f.fix = causes().fix(u"cpu_lacks_avx"_s);
        f.evidence = {u"cpu: %1 (avx: no, via %2)"_s.arg(m_hw.cpu.name, m_hw.cpu.source)};
        if (requirement)
            f.evidence.append(u"TensorFlow %1 and newer need AVX (%2)"_s.arg(requirement->tfMin, requirement->source));
        f.actions = {action("replan", {{u"reason"_s, u"cpu_lacks_avx"_s}})};
        add(std::move(f));
    }

    void checkMsvc()
    {
        if (m_os != u"windows" || !m_hw.msvcRuntime || m_hw.msvcRuntime->present)
            return;
        DoctorFinding f;
        f.id = u"msvc_runtime_missing"_s;
        f.cause = u"msvc_runtime_missing"_s;
        f.severity = Severity::Error;
        f.summary = causes().summary(f.cause, {}, {{u"library"_s, m_hw.msvcRuntime->missing.join(u", "_s)}});
        f.fix = causes().fix(f.cause);
        QString systemRoot = m_system.env(u"SystemRoot"_s);
        if (systemRoot.isEmpty())
            systemRoot = u"C:/Windows"_s;
        for (const QString &dll : m_hw.msvcRuntime->missing)
            f.evidence.append(u"missing: "_s + SystemView::join(m_system.normalize(systemRoot) + u"/System32"_s, dll));
        f.actions = {action("install_msvc_runtime")};
        add(std::move(f));
    }

    void checkWindowsNativeLimit()
    {
        if (m_os != u"windows" || m_target.tensorflow.isEmpty() || m_target.cpuOnly)
            return;
        const Route *native = m_catalog.route(u"windows-native"_s);
        if (!native || native->tfMax.isEmpty()
            || !version::less(version::majorMinor(native->tfMax), version::majorMinor(m_target.tensorflow)))
            return;
        m_windowsTooNew = true;
        DoctorFinding f;
        f.id = u"windows_native_gpu_unsupported:"_s + m_target.tensorflow;
        f.cause = u"windows_native_gpu_unsupported"_s;
        f.severity = m_cpuOnly ? Severity::Info : Severity::Error;
        f.summary = causes().summary(u"windows_native_gpu_unsupported"_s, {},
                                     {{u"tensorflow"_s, m_target.tensorflow}, {u"last"_s, native->tfMax}});
        f.fix = causes().fix(u"windows_native_gpu_unsupported"_s, {}, {{u"last"_s, native->tfMax}});
        f.evidence = {u"tensorflow %1 (%2)"_s.arg(m_target.tensorflow, m_target.tensorflowEvidence),
                      u"last native-Windows GPU release: %1 (%2)"_s.arg(native->tfMax, native->source)};
        f.actions = {action("replan", {{u"reason"_s, f.cause}, {u"route"_s, u"wsl2"_s}}),
                     action("pin_tensorflow", {{u"version"_s, native->tfMax}})};
        add(std::move(f));
    }

    void checkPython()
    {
        if (m_target.pythonVersion.isEmpty() || m_target.tensorflow.isEmpty())
            return;
        // The tested table names the Python range; on native Windows after the GPU limit the
        // Linux table is the closest record of the range the CPU wheels support.
        std::optional<TfRelease> release = m_release;
        if (!release)
            release = m_catalog.release(u"linux"_s, version::majorMinor(m_target.tensorflow));
        if (!release)
            return;
        const QString mm = version::majorMinor(m_target.pythonVersion);
        if (release->supportsPython(mm))
            return;
        DoctorFinding f;
        f.id = u"python_version_unsupported:"_s + mm;
        f.cause = u"python_version_unsupported"_s;
        f.severity = Severity::Error;
        f.summary = causes().summary(u"python_version_unsupported"_s, u"scan"_s,
                                     {{u"python"_s, m_target.pythonVersion},
                                      {u"tensorflow"_s, m_target.tensorflow},
                                      {u"range"_s, release->pythonText()}});
        f.fix = causes().fix(f.cause);
        f.evidence = {
            u"python %1 (%2)"_s.arg(m_target.pythonVersion, m_target.python),
            u"tensorflow %1 supports Python %2 (%3)"_s.arg(release->version, release->pythonText(), release->source)};
        f.actions = {action("recreate_env", {{u"python"_s, release->pythonVersions().value(0)}})};
        add(std::move(f));
    }

    void checkComputeCapability()
    {
        if (m_target.tensorflow.isEmpty() || m_cpuOnly || m_windowsTooNew)
            return;
        const auto build = m_catalog.gpuBuild(m_target.tensorflow, m_os);
        if (!build)
            return;
        for (const GpuInfo &gpu : m_hw.nvidiaGpus()) {
            if (gpu.computeCapability.isEmpty())
                continue;
            const QString cc = gpu.computeCapability;
            const bool sass = std::any_of(build->sass.cbegin(), build->sass.cend(), [&](const QString &s) {
                return version::major(s) == version::major(cc) && !version::less(cc, s);
            });
            if (sass)
                continue;
            QString ptx;
            for (const QString &p : build->ptx) {
                if (!version::less(cc, p) && (ptx.isEmpty() || version::less(ptx, p)))
                    ptx = p;
            }
            DoctorFinding f;
            f.evidence = {u"gpu: %1, compute capability %2"_s.arg(gpu.name, cc),
                          u"tensorflow %1 carries code for %2, PTX %3 (%4)"_s.arg(
                              m_target.tensorflow, build->sass.join(u", "_s), build->ptx.join(u", "_s), build->source)};
            if (!ptx.isEmpty()) {
                f.id = u"compute_capability_jit:"_s + cc;
                f.cause = u"compute_capability_jit"_s;
                f.severity = Severity::Warning;
                f.summary = causes().summary(f.cause, {}, {{u"cc"_s, cc}});
                f.fix = causes().fix(f.cause);
                f.actions = {action("replan", {{u"reason"_s, f.cause}})};
            } else {
                f.id = u"compute_capability_unsupported:"_s + cc;
                f.cause = u"compute_capability_unsupported"_s;
                f.severity = Severity::Error;
                f.summary = causes().summary(f.cause, {}, {{u"cc"_s, cc}, {u"minimum"_s, build->lowest()}});
                f.fix = causes().fix(f.cause);
                f.actions = {action("replan", {{u"reason"_s, f.cause}})};
            }
            add(std::move(f));
        }
    }

    // A folder with an environment.json that does not read as tfsetup's record: what it says was
    // not used, and repair (which works from the record) cannot help.
    void checkRecord()
    {
        if (m_target.recordError.isEmpty())
            return;
        DoctorFinding f;
        f.id = u"environment_damaged:record"_s;
        f.cause = u"environment_damaged"_s;
        f.severity = Severity::Error;
        f.summary = causes().summary(f.cause, u"record_unreadable"_s, {{u"record"_s, m_target.recordPath}});
        f.fix = causes().fix(f.cause, u"record_unreadable"_s, {{u"env"_s, m_target.envDir}});
        f.evidence = {m_target.recordPath + u": " + m_target.recordError};
        add(std::move(f));
    }

    void checkToolkits()
    {
        if (m_hw.cudaToolkits.size() < 2 && (m_hw.cudaToolkits.isEmpty() || !m_release))
            return;
        DoctorFinding f;
        f.id = u"multiple_toolkits"_s;
        f.cause = u"multiple_toolkits"_s;
        f.severity = Severity::Info;
        QStringList versions;
        for (const CudaToolkitInfo &t : m_hw.cudaToolkits) {
            versions.append(t.version);
            f.evidence.append(u"CUDA %1 at %2 (%3)"_s.arg(t.version, t.path, t.source));
        }
        const QString cudaPath = m_system.normalize(m_system.env(u"CUDA_PATH"_s));
        if (!cudaPath.isEmpty())
            f.evidence.append(u"CUDA_PATH=%1"_s.arg(cudaPath));
        const bool matching = m_release
            && std::any_of(m_hw.cudaToolkits.cbegin(), m_hw.cudaToolkits.cend(), [&](const CudaToolkitInfo &t) {
                                  return version::majorMinor(t.version) == version::majorMinor(m_release->cuda);
                              });
        // pip's CUDA wheels, or a tfsetup environment's own cuda/ folder, need no toolkit.
        const bool usesOwnCuda = !m_target.pipLibraryDirs.isEmpty() || !m_target.launcherLibraryDirs.isEmpty();
        if (m_release && !matching && !usesOwnCuda && !m_cpuOnly && !m_windowsTooNew) {
            f.id = u"cuda_version_mismatch:toolkit"_s;
            f.cause = u"cuda_version_mismatch"_s;
            f.severity = Severity::Warning;
            f.summary = causes().summary(u"cuda_version_mismatch"_s, u"scan_toolkit"_s,
                                         {{u"tensorflow"_s, m_target.tensorflow},
                                          {u"cuda"_s, m_release->cuda},
                                          {u"toolkits"_s, versions.join(u", "_s)}});
            f.fix = causes().fix(f.cause);
            f.actions = {action("install_cuda", {{u"version"_s, m_release->cuda}})};
        } else if (m_hw.cudaToolkits.size() >= 2) {
            f.summary = causes().summary(
                u"multiple_toolkits"_s, {},
                {{u"count"_s, QString::number(m_hw.cudaToolkits.size())}, {u"toolkits"_s, versions.join(u", "_s)}});
            f.fix = causes().fix(u"multiple_toolkits"_s);
        } else {
            return;
        }
        add(std::move(f));
    }

    void checkRequiredLibraries()
    {
        const QStringList cuda = m_catalog.cudaLibraries(m_release->cuda, m_os);
        const QStringList cudnn = m_catalog.cudnnLibraries(m_release->cudnn, m_os);

        // CUDA libraries: missing from the search path, or only another version's present.
        QStringList missing;
        QStringList evidence;
        QList<DoctorAction> actions;
        for (const QString &name : cuda) {
            if (!copiesOnSearchPath(name).isEmpty())
                continue;
            missing.append(name);
            const QStringList elsewhere = copiesElsewhere(name);
            if (elsewhere.isEmpty()) {
                evidence.append(u"%1: not found on %2 nor in any CUDA toolkit"_s.arg(name, pathVariable()));
                continue;
            }
            evidence.append(u"%1: not on %2; a copy is at %3"_s.arg(name, pathVariable(), elsewhere.first()));
            const QString dir = parentDir(elsewhere.first());
            const bool known = std::any_of(actions.cbegin(), actions.cend(), [&](const DoctorAction &a) {
                return a.params.value(u"dir"_s).toString() == dir;
            });
            if (!known)
                actions.append(action("prepend_path", {{u"variable"_s, pathVariable()}, {u"dir"_s, dir}}));
        }
        if (!missing.isEmpty()) {
            const QString runtime = cuda.value(0);
            // Another CUDA's runtime present means the toolkit is the wrong version, not absent.
            QStringList otherRuntimes;
            const QString pattern = m_system.os() == OsFamily::Windows ? u"cudart64_*.dll"_s : u"libcudart.so.*"_s;
            for (const QString &name : namesOnSearchPath({pattern})) {
                if (!sameRuntime(name, runtime))
                    otherRuntimes.append(name);
            }
            DoctorFinding f;
            f.severity = Severity::Error;
            f.evidence = evidence;
            if (missing.contains(runtime) && !otherRuntimes.isEmpty() && actions.isEmpty()) {
                f.id = u"cuda_version_mismatch:"_s + runtime;
                f.cause = u"cuda_version_mismatch"_s;
                f.summary = causes().summary(u"cuda_version_mismatch"_s, u"scan_runtime"_s,
                                             {{u"tensorflow"_s, m_target.tensorflow},
                                              {u"cuda"_s, m_release->cuda},
                                              {u"runtime"_s, runtime},
                                              {u"others"_s, otherRuntimes.join(u", "_s)}});
                for (const QString &name : otherRuntimes) {
                    for (const Copy &c : copiesOnSearchPath(name))
                        f.evidence.append(u"found instead: "_s + describe(c));
                }
            } else {
                f.id = u"missing_cuda_runtime:"_s + missing.first();
                f.cause = u"missing_cuda_runtime"_s;
                f.summary = causes().summary(u"missing_cuda_runtime"_s, u"scan_missing"_s,
                                             {{u"tensorflow"_s, m_target.tensorflow},
                                              {u"count"_s, QString::number(missing.size())},
                                              {u"cuda"_s, m_release->cuda},
                                              {u"libraries"_s, missing.join(u", "_s)}});
            }
            f.fix = actions.isEmpty()
                ? causes().fix(u"missing_cuda_runtime"_s, u"scan_missing"_s, {{u"cuda"_s, m_release->cuda}})
                : causes().fix(u"missing_cuda_runtime"_s, u"scan_not_searched"_s, {{u"variable"_s, pathVariable()}});
            if (actions.isEmpty())
                actions.append(action("install_cuda", {{u"version"_s, m_release->cuda}}));
            f.actions = actions;
            add(std::move(f));
        }

        if (cudnn.isEmpty())
            return;
        const QString main = cudnn.first();
        const QList<Copy> mainCopies = copiesOnSearchPath(main);
        if (mainCopies.isEmpty()) {
            DoctorFinding f;
            f.severity = Severity::Error;
            const QString pattern = m_system.os() == OsFamily::Windows ? u"cudnn64_*.dll"_s : u"libcudnn.so.*"_s;
            QStringList others = namesOnSearchPath({pattern});
            const QStringList elsewhere = copiesElsewhere(main);
            if (!elsewhere.isEmpty()) {
                f.id = u"missing_cudnn:"_s + main;
                f.cause = u"missing_cudnn"_s;
                f.summary = causes().summary(u"missing_cudnn"_s, u"scan_not_searched"_s,
                                             {{u"library"_s, main}, {u"dir"_s, parentDir(elsewhere.first())}});
                f.fix = causes().fix(u"missing_cudnn"_s, u"scan_not_searched"_s,
                                     {{u"dir"_s, parentDir(elsewhere.first())}, {u"variable"_s, pathVariable()}});
                f.evidence = {u"%1: not on %2; a copy is at %3"_s.arg(main, pathVariable(), elsewhere.first())};
                f.actions = {action("prepend_path",
                                    {{u"variable"_s, pathVariable()}, {u"dir"_s, parentDir(elsewhere.first())}})};
            } else if (!others.isEmpty()) {
                f.id = u"cudnn_version_mismatch:"_s + main;
                f.cause = u"cudnn_version_mismatch"_s;
                f.summary = causes().summary(u"cudnn_version_mismatch"_s, u"scan_other_major"_s,
                                             {{u"tensorflow"_s, m_target.tensorflow},
                                              {u"cudnn"_s, m_release->cudnn},
                                              {u"library"_s, main},
                                              {u"others"_s, others.join(u", "_s)}});
                f.fix = causes().fix(f.cause);
                for (const QString &name : others) {
                    for (const Copy &c : copiesOnSearchPath(name))
                        f.evidence.append(u"found instead: "_s + describe(c));
                }
                f.actions = {action("install_cudnn", {{u"version"_s, m_release->cudnn}})};
            } else {
                f.id = u"missing_cudnn:"_s + main;
                f.cause = u"missing_cudnn"_s;
                f.summary = causes().summary(
                    u"missing_cudnn"_s, u"scan_not_installed"_s,
                    {{u"cudnn"_s, m_release->cudnn}, {u"library"_s, main}, {u"tensorflow"_s, m_target.tensorflow}});
                f.fix = causes().fix(u"missing_cudnn"_s, u"scan_not_installed"_s,
                                     {{u"cudnn"_s, m_release->cudnn}, {u"cuda"_s, m_release->cuda}});
                f.evidence = {u"%1: not found on %2 nor in any CUDA toolkit"_s.arg(main, pathVariable())};
                f.actions = {action("install_cudnn", {{u"version"_s, m_release->cudnn}})};
            }
            add(std::move(f));
            return;
        }

        // The copy that loads must bring its sub-libraries (cuDNN 8 and 9 are split into several).
        QStringList missingParts;
        for (const QString &part : cudnn.mid(1)) {
            if (copiesOnSearchPath(part).isEmpty())
                missingParts.append(part);
        }
        if (!missingParts.isEmpty()) {
            DoctorFinding f;
            f.id = u"missing_cudnn:incomplete"_s;
            f.cause = u"missing_cudnn"_s;
            f.severity = Severity::Error;
            f.summary = causes().summary(u"missing_cudnn"_s, u"scan_incomplete"_s,
                                         {{u"dir"_s, parentDir(mainCopies.first().path)},
                                          {u"count"_s, QString::number(missingParts.size())},
                                          {u"parts"_s, missingParts.join(u", "_s)}});
            f.fix = causes().fix(u"missing_cudnn"_s, u"scan_incomplete"_s,
                                 {{u"folder"_s, m_system.os() == OsFamily::Windows ? u"bin"_s : u"lib"_s},
                                  {u"library"_s, main},
                                  {u"library"_s, main}});
            f.evidence.append(u"loads: "_s + describe(mainCopies.first()));
            for (const QString &part : missingParts) {
                f.evidence.append(u"missing: "_s + SystemView::join(parentDir(mainCopies.first().path), part));
                f.actions.append(
                    action("place_file", {{u"library"_s, part}, {u"dir"_s, parentDir(mainCopies.first().path)}}));
            }
            add(std::move(f));
        }

        // The version of the copy that loads: a header next to it, or a fully versioned file name.
        const QString loadsFrom = m_system.identity(parentDir(mainCopies.first().path));
        for (const CudnnInfo &c : m_hw.cudnn) {
            QString libraryDir = parentDir(c.path);
            if (c.source == u"header")
                libraryDir = SystemView::join(parentDir(libraryDir),
                                              m_system.os() == OsFamily::Windows ? u"bin"_s : u"lib64"_s);
            // A bare "8" from a file name says nothing about the minor version TensorFlow checks.
            if (m_system.identity(libraryDir) != loadsFrom || !c.version.contains(u'.'))
                continue;
            if (version::major(c.version) == version::major(m_release->cudnn)
                && !version::less(version::majorMinor(c.version), version::majorMinor(m_release->cudnn)))
                break;
            DoctorFinding f;
            f.id = u"cudnn_version_mismatch:"_s + c.version;
            f.cause = u"cudnn_version_mismatch"_s;
            f.severity = Severity::Error;
            f.summary = causes().summary(f.cause, u"versions"_s,
                                         {{u"loaded"_s, c.version}, {u"compiled"_s, m_release->cudnn}});
            f.fix = causes().fix(f.cause);
            f.evidence = {u"loads: "_s + describe(mainCopies.first()),
                          u"cuDNN %1 according to %2"_s.arg(c.version, c.path),
                          u"tensorflow %1 is built with cuDNN %2 (%3)"_s.arg(m_release->version, m_release->cudnn,
                                                                             m_release->source)};
            f.actions = {action("install_cudnn", {{u"version"_s, m_release->cudnn}})};
            add(std::move(f));
            break;
        }
    }

    // The folder a tfsetup environment's launchers put first on PATH (resources/templates/launcher.*.in:
    // "<env>\cuda\bin"), when the target is such an environment (its root holds environment.json)
    // or its venv.
    QString launcherDir() const
    {
        if (m_target.envDir.isEmpty())
            return {};
        for (const QString &root : {m_target.envDir, parentDir(m_target.envDir)}) {
            const QString bin = SystemView::join(root, u"cuda/bin"_s);
            if (m_system.isFile(SystemView::join(root, u"environment.json"_s)) && m_system.isDir(bin))
                return bin;
        }
        return {};
    }

    // The version of the cuDNN whose library folder is dir: the cuDNN scan's header or versioned
    // name for that folder, else a cudnn_version.h in the include folder beside it.
    std::pair<QString, QString> cudnnVersionIn(const QString &dir) const
    {
        const QString key = m_system.identity(dir);
        for (const CudnnInfo &c : m_hw.cudnn) {
            QString libraryDir = parentDir(c.path);
            if (c.source == u"header")
                libraryDir = SystemView::join(parentDir(libraryDir), u"bin"_s);
            if (m_system.identity(libraryDir) == key && c.version.contains(u'.'))
                return {c.version, c.path};
        }
        const QString header = SystemView::join(parentDir(dir), u"include/cudnn_version.h"_s);
        if (const auto bytes = m_system.readFile(header, 256 * 1024)) {
            if (const auto v = parsers::parseCudnnHeader(*bytes))
                return {*v, header};
        }
        return {};
    }

    // cuDNN 8.3 and newer on Windows load zlibwapi.dll, which NVIDIA does not ship with them
    // (resources/catalog/sources.json "zlibwapi"). Windows looks for it like for any DLL: the folders
    // of the search order, with the launcher's folder first for a tfsetup environment.
    void checkZlibwapi()
    {
        if (m_system.os() != OsFamily::Windows || m_windowsTooNew)
            return;
        const SourceCatalog *sources = &m_knowledge.sources;
        QList<LibrarySearchDir> search;
        const QString launcher = launcherDir();
        if (!launcher.isEmpty())
            search.append({m_system.normalize(launcher), u"launcher"_s});
        for (const LibrarySearchDir &d : m_search) {
            if (launcher.isEmpty() || m_system.identity(d.dir) != m_system.identity(launcher))
                search.append(d);
        }
        // The cuDNN TensorFlow opens when the release is known, else every cuDNN on the path.
        QStringList names;
        const QStringList tfCudnn = m_release ? m_catalog.cudnnLibraries(m_release->cudnn, m_os) : QStringList();
        if (!tfCudnn.isEmpty()) {
            names = {tfCudnn.first()};
        } else {
            for (const LibrarySearchDir &d : search) {
                for (const QString &name :
                     m_system.entries(d.dir, {u"cudnn64_*.dll"_s}, QDir::Files | QDir::NoDotAndDotDot)) {
                    if (!names.contains(name, Qt::CaseInsensitive))
                        names.append(name);
                }
            }
        }
        for (const QString &name : names) {
            QString loads, origin;
            for (const LibrarySearchDir &d : search) {
                if (m_system.isFile(SystemView::join(d.dir, name))) {
                    loads = SystemView::join(d.dir, name);
                    origin = d.origin;
                    break;
                }
            }
            if (loads.isEmpty())
                continue;
            const auto [cudnn, told] = cudnnVersionIn(parentDir(loads));
            if (cudnn.isEmpty() || !sources->needsZlibwapi(cudnn, m_os))
                continue;
            const QString zlib = u"zlibwapi.dll"_s;
            QStringList searched;
            for (const LibrarySearchDir &d : search) {
                if (m_system.isFile(SystemView::join(d.dir, zlib)))
                    return;
                searched.append(u"%1 (%2)"_s.arg(d.dir, d.origin));
            }
            DoctorFinding f;
            f.id = u"zlibwapi_missing:"_s + name;
            f.cause = u"zlibwapi_missing"_s;
            f.severity = gpuSeverity(Severity::Error);
            f.summary = causes().summary(u"zlibwapi_missing"_s, u"scan"_s, {{u"path"_s, loads}, {u"version"_s, cudnn}});
            const QString tested = m_release ? m_release->cudnn : QString();
            f.fix = tested.isEmpty() || sources->needsZlibwapi(tested, m_os)
                ? causes().fix(u"zlibwapi_missing"_s, u"scan"_s, {{u"path"_s, loads}})
                : causes().fix(u"zlibwapi_missing"_s, u"scan_tested"_s,
                               {{u"tested"_s, tested}, {u"tensorflow"_s, m_target.tensorflow}, {u"path"_s, loads}});
            f.evidence = {u"loads: %1 (%2)"_s.arg(loads, origin), u"cuDNN %1 according to %2"_s.arg(cudnn, told),
                          u"%1: not found in %2"_s.arg(zlib, searched.join(u"; "_s)),
                          u"cuDNN %1 on Windows needs %2: %3"_s.arg(cudnn, zlib, sources->zlibwapiSource())};
            // Repair restores a recorded cuDNN file of a tfsetup environment; install_cudnn for others.
            f.actions = {action("fetch_library", {{u"library"_s, name}})};
            if (!tested.isEmpty() && !sources->needsZlibwapi(tested, m_os))
                f.actions.append(action("install_cudnn", {{u"version"_s, tested}}));
            add(std::move(f));
            return;
        }
    }

    void checkShadowing()
    {
        QStringList names = namesOnSearchPath(watchedPatterns(m_system.os()));
        for (const QString &name : names) {
            const QList<Copy> copies = copiesOnSearchPath(name);
            if (copies.size() < 2)
                continue;
            DoctorFinding f;
            f.id = u"path_shadowing:"_s + name;
            f.cause = u"path_shadowing"_s;
            f.severity = m_cpuOnly ? Severity::Info : Severity::Warning;
            f.summary = causes().summary(u"path_shadowing"_s, {},
                                         {{u"count"_s, QString::number(copies.size())},
                                          {u"library"_s, name},
                                          {u"first"_s, copies.first().path}});
            f.fix = causes().fix(u"path_shadowing"_s, {}, {{u"variable"_s, pathVariable()}});
            for (qsizetype i = 0; i < copies.size(); ++i)
                f.evidence.append(
                    u"%1. %2%3"_s.arg(i + 1).arg(describe(copies[i]), i == 0 ? u" <- loaded"_s : QString()));
            // Prefer the copy from the toolkit TensorFlow was built with, when one is on the path.
            if (m_release) {
                // A loose copy (System32, a project folder) may be the right file; a copy inside
                // another CUDA toolkit is that toolkit's version, which is the wrong one.
                const QString firstToolkit = toolkitOf(copies.first().path);
                for (const Copy &c : copies.mid(1)) {
                    const QString toolkit = toolkitOf(c.path);
                    if (!toolkit.isEmpty() && !firstToolkit.isEmpty()
                        && version::majorMinor(toolkit) == version::majorMinor(m_release->cuda)
                        && version::majorMinor(firstToolkit) != version::majorMinor(toolkit)) {
                        f.severity = m_cpuOnly ? Severity::Info : Severity::Error;
                        f.actions = {
                            action("prepend_path", {{u"variable"_s, pathVariable()}, {u"dir"_s, parentDir(c.path)}})};
                        break;
                    }
                }
            }
            if (copies.first().origin == u"System32" || copies.first().origin == u"Windows")
                f.actions.append(action("remove_copy", {{u"path"_s, copies.first().path}}));
            add(std::move(f));
        }
    }

    void checkPaths()
    {
        auto nonAscii = [&](const QString &path, const QString &what, Severity severity) {
            if (path.isEmpty() || isAscii(path))
                return;
            DoctorFinding f;
            f.id = u"path_non_ascii:"_s + what;
            f.cause = u"path_non_ascii"_s;
            f.severity = severity;
            f.summary = causes().summary(u"path_non_ascii"_s, u"scan"_s, {{u"path"_s, path}});
            f.fix = causes().fix(u"path_non_ascii"_s);
            f.evidence = {what + u": " + path};
            f.actions = {action("move_env", {{u"reason"_s, f.cause}})};
            m_findings.append(std::move(f));
        };
        nonAscii(m_target.envDir, u"environment"_s, Severity::Warning);
        nonAscii(m_system.homeDir(), u"home"_s, Severity::Info);

        if (m_system.os() != OsFamily::Windows || m_target.envDir.isEmpty())
            return;
        const auto longPaths = m_system.registryValue(u"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem"_s,
                                                      u"LongPathsEnabled"_s);
        const bool enabled = longPaths && longPaths->toInt() == 1;
        if (enabled || m_target.envDir.size() + deepestInstalledFile <= windowsMaxPath)
            return;
        DoctorFinding f;
        f.id = u"path_too_long"_s;
        f.cause = u"path_too_long"_s;
        f.severity = Severity::Warning;
        f.summary = causes().summary(
            u"path_too_long"_s, u"scan"_s,
            {{u"length"_s, QString::number(m_target.envDir.size())}, {u"limit"_s, QString::number(windowsMaxPath)}});
        f.fix = causes().fix(u"path_too_long"_s);
        f.evidence = {u"environment: "_s + m_target.envDir,
                      u"HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem LongPathsEnabled = %1"_s.arg(
                          longPaths ? longPaths->toString() : u"(not set)"_s)};
        f.actions = {action("move_env", {{u"reason"_s, f.cause}})};
        add(std::move(f));
    }

    QStringList kernelDirs() const
    {
        QStringList dirs;
        if (m_system.os() == OsFamily::Windows) {
            for (const char *var : {"APPDATA", "PROGRAMDATA"}) {
                const QString base = m_system.env(QString::fromLatin1(var));
                if (!base.isEmpty())
                    dirs.append(SystemView::join(m_system.normalize(base), u"jupyter/kernels"_s));
            }
        } else {
            const QString home = m_system.homeDir();
            if (!home.isEmpty())
                dirs.append(SystemView::join(home, u".local/share/jupyter/kernels"_s));
            dirs.append(u"/usr/local/share/jupyter/kernels"_s);
            dirs.append(u"/usr/share/jupyter/kernels"_s);
        }
        if (!m_target.envDir.isEmpty())
            dirs.append(SystemView::join(m_target.envDir, u"share/jupyter/kernels"_s));
        // Jupyter also looks in {sys.prefix}/share/jupyter/kernels: a tfsetup environment's venv.
        if (m_target.record)
            dirs.append(SystemView::join(m_target.envDir, u"venv/share/jupyter/kernels"_s));
        return dirs;
    }

    // The kernel folders tfsetup registered, read from the records of the environments it made
    // (its index, and the environment examined): identities, as SystemView::identity gives them.
    QSet<QString> ownKernelFolders() const
    {
        QStringList environments = EnvironmentIndex::folders(m_system);
        if (!m_target.envDir.isEmpty())
            environments.append(m_target.envDir);
        QSet<QString> own;
        if (!m_target.kernelFolder.isEmpty())
            own.insert(m_system.identity(m_target.kernelFolder));
        for (const QString &environment : std::as_const(environments)) {
            const QString host = m_system.hostPath(environment);
            if (host.isEmpty())
                continue;
            const auto record = EnvironmentRecord::read(host);
            if (record && !record->kernelFolder.isEmpty())
                own.insert(m_system.identity(m_system.normalize(record->kernelFolder)));
        }
        return own;
    }

    // Whether a kernel's interpreter is the examined environment's: its path lies in the
    // environment's folder (a venv's bin/python is a link out of it, so the spelling counts, not
    // only the resolved file), or both resolve to the same file.
    bool runsTargetEnvironment(const QString &python) const
    {
        if (m_target.envDir.isEmpty())
            return false;
        const QString env = m_system.normalize(m_target.envDir);
        const Qt::CaseSensitivity cs = m_system.os() == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
        if (python.startsWith(env + u'/', cs)
            || m_system.identity(python).startsWith(m_system.identity(m_target.envDir) + u'/'))
            return true;
        return !m_target.python.isEmpty() && sameInterpreter(python, m_target.python);
    }

    // Two spellings of one interpreter: the same file once links are resolved, or the names a
    // venv gives its interpreter in one bin folder (python, python3, python3.X; on Windows
    // python.exe and pythonw.exe in Scripts), which all start that venv.
    bool sameInterpreter(const QString &a, const QString &b) const
    {
        const QString ka = m_system.identity(a), kb = m_system.identity(b);
        if (!ka.isEmpty() && ka == kb)
            return true;
        const bool windows = m_system.os() == OsFamily::Windows;
        static const QRegularExpression posixName(u"^python(3(\\.\\d+)?)?$"_s);
        static const QRegularExpression windowsName(u"^pythonw?(\\.exe)?$"_s,
                                                    QRegularExpression::CaseInsensitiveOption);
        const QRegularExpression &name = windows ? windowsName : posixName;
        const QString da = parentDir(m_system.normalize(a)), db = parentDir(m_system.normalize(b));
        if (!name.match(a.section(u'/', -1)).hasMatch() || !name.match(b.section(u'/', -1)).hasMatch())
            return false;
        const QString ida = m_system.identity(da), idb = m_system.identity(db);
        if (!ida.isEmpty() && ida == idb)
            return true;
        return da.compare(db, windows ? Qt::CaseInsensitive : Qt::CaseSensitive) == 0;
    }

    void checkJupyterKernels()
    {
        const QString terminalPython = m_system.findExecutable(m_system.os() == OsFamily::Windows ? u"python"_s
                                                                                                  : u"python3"_s);
        const QSet<QString> ownKernels = ownKernelFolders();
        bool envHasKernel = false;
        bool anyKernel = false;
        for (const QString &dir : kernelDirs()) {
            for (const QString &name : m_system.entries(dir, {}, QDir::Dirs | QDir::NoDotAndDotDot)) {
                const QString kernelFolder = SystemView::join(dir, name);
                const QString specPath = SystemView::join(kernelFolder, u"kernel.json"_s);
                const auto bytes = m_system.readFile(specPath, 1024 * 1024);
                if (!bytes)
                    continue;
                const QJsonObject spec = QJsonDocument::fromJson(*bytes).object();
                const QString argv0 = spec.value(u"argv"_s).toArray().at(0).toString();
                if (argv0.isEmpty())
                    continue;
                anyKernel = true;
                const QString python = m_system.normalize(argv0);
                const bool bare = !python.contains(u'/');
                const bool target = !bare && runsTargetEnvironment(python);
                if (target)
                    envHasKernel = true;
                // tfsetup's own kernel runs its environment's Python with that environment's
                // library path on purpose; the terminal's python3 is not what it is meant to match.
                const bool own = target || ownKernels.contains(m_system.identity(kernelFolder));
                const QString display = spec.value(u"display_name"_s).toString(name);
                if (!bare && !m_system.isFile(python)) {
                    DoctorFinding f;
                    f.id = u"jupyter_kernel_mismatch:"_s + name;
                    f.cause = u"jupyter_kernel_mismatch"_s;
                    f.severity = Severity::Warning;
                    f.summary = causes().summary(u"jupyter_kernel_mismatch"_s, u"python_gone"_s,
                                                 {{u"kernel"_s, display}, {u"python"_s, python}});
                    f.fix = causes().fix(u"jupyter_kernel_mismatch"_s, u"python_gone"_s, {{u"name"_s, name}});
                    f.evidence = {specPath + u": argv[0] = " + argv0};
                    f.actions = {action("rewrite_kernelspec", {{u"kernel"_s, name}, {u"spec"_s, specPath}})};
                    add(std::move(f));
                    continue;
                }
                if (own)
                    continue;
                const QString resolved = bare ? terminalPython : python;
                const QJsonObject kernelEnv = spec.value(u"env"_s).toObject();
                const bool overridesPath = kernelEnv.contains(u"PATH"_s) || kernelEnv.contains(u"LD_LIBRARY_PATH"_s);
                if (m_system.identity(resolved) == m_system.identity(terminalPython) && !overridesPath)
                    continue;
                DoctorFinding f;
                f.id = u"jupyter_kernel_mismatch:"_s + name;
                f.cause = u"jupyter_kernel_mismatch"_s;
                f.severity = Severity::Info;
                f.summary = causes().summary(u"jupyter_kernel_mismatch"_s, {}, {{u"kernel"_s, display}});
                f.fix = causes().fix(u"jupyter_kernel_mismatch"_s);
                f.evidence = {specPath + u": argv[0] = " + argv0,
                              u"terminal python: "_s
                                  + (terminalPython.isEmpty() ? u"(none on PATH)"_s : terminalPython)};
                for (auto it = kernelEnv.constBegin(); it != kernelEnv.constEnd(); ++it) {
                    if (it.key() == u"PATH" || it.key() == u"LD_LIBRARY_PATH")
                        f.evidence.append(u"%1: env %2=%3"_s.arg(specPath, it.key(), it.value().toString()));
                }
                add(std::move(f));
            }
        }
        // A tfsetup environment whose own kernel is still registered has a kernel, whatever
        // spelling of its Python that kernel names.
        if (!m_target.kernelFolder.isEmpty()
            && m_system.isFile(SystemView::join(m_target.kernelFolder, u"kernel.json"_s)))
            envHasKernel = true;
        if (m_target.envDir.isEmpty() || envHasKernel || !anyKernel)
            return;
        DoctorFinding f;
        f.id = u"jupyter_kernel_mismatch:env"_s;
        f.cause = u"jupyter_kernel_mismatch"_s;
        f.severity = Severity::Warning;
        f.summary = causes().summary(u"jupyter_kernel_mismatch"_s, u"env_missing"_s, {{u"env"_s, m_target.envDir}});
        f.fix = causes().fix(u"jupyter_kernel_mismatch"_s, u"env_missing"_s);
        f.evidence = {u"environment python: "_s + m_target.python};
        f.actions = {action("rewrite_kernelspec", {{u"python"_s, m_target.python}})};
        add(std::move(f));
    }

    const CauseRegistry &causes() const { return m_knowledge.causes; }

    const SystemView &m_system;
    const HardwareReport &m_hw;
    const Knowledge &m_knowledge;
    const Catalog &m_catalog;
    const DoctorTarget &m_target;
    bool m_hardwareOnly = false;
    QList<LibrarySearchDir> m_search;
    QString m_os;
    std::optional<TfRelease> m_release;
    bool m_cpuOnly = false;
    bool m_checkLibraries = false;
    bool m_windowsTooNew = false;
    QList<DoctorFinding> m_findings;
};

} // namespace

QJsonObject DoctorTarget::toJson() const
{
    QJsonArray pinned;
    for (int gpu : gpus)
        pinned.append(gpu);
    return {{u"env"_s, envDir},
            {u"kind"_s, envKind},
            {u"python"_s, python},
            {u"python_version"_s, pythonVersion},
            {u"tensorflow"_s, tensorflow},
            {u"tensorflow_package"_s, tensorflowPackage},
            {u"tensorflow_evidence"_s, tensorflowEvidence},
            {u"pip_library_dirs"_s, QJsonArray::fromStringList(pipLibraryDirs)},
            {u"cpu_only"_s, cpuOnly},
            {u"record"_s, record},
            {u"record_path"_s, recordPath},
            {u"record_error"_s, recordError},
            {u"route"_s, route},
            {u"cuda"_s, cuda},
            {u"cudnn"_s, cudnn},
            {u"gpus"_s, pinned},
            {u"python_launcher"_s, pythonLauncher},
            {u"launcher_library_dirs"_s, QJsonArray::fromStringList(launcherLibraryDirs)},
            {u"kernel_name"_s, kernelName},
            {u"kernel_folder"_s, kernelFolder},
            {u"recorded_files"_s, recordedFiles.size()}};
}

namespace {

// The folder read as a venv or conda environment, without a record.
DoctorTarget inspectFolder(const SystemView &system, const QString &envDir);

// What the launchers put first on the library path (resources/templates/launcher.sh.in:
// "$TFSETUP_ENV/cuda/lib" or lib64, the installer's placement; launcher.bat.in: "%TFSETUP_ENV%\cuda\bin").
QStringList launcherLibraryDirs(const SystemView &system, const QString &root)
{
    QStringList dirs;
    const QStringList candidates = system.os() == OsFamily::Windows ? QStringList{u"cuda/bin"_s}
                                                                    : QStringList{u"cuda/lib"_s, u"cuda/lib64"_s};
    for (const QString &sub : candidates) {
        if (system.isDir(SystemView::join(root, sub)))
            dirs.append(SystemView::join(root, sub));
    }
    return dirs;
}

DoctorTarget inspectRecord(const SystemView &system, const QString &root, const EnvironmentRecord &record)
{
    const QString venv = SystemView::join(root, u"venv"_s);
    // The installer's venv/; a record beside a venv made at the folder's root is read there.
    DoctorTarget target = inspectFolder(system, system.isDir(venv) ? venv : root);
    target.envDir = root;
    target.record = true;
    target.recordPath = SystemView::join(root, u"environment.json"_s);
    if (!record.pythonVersion.isEmpty())
        target.pythonVersion = record.pythonVersion;
    // What pip installed now (its dist-info) wins over the record: a later pip install changes
    // what imports, not the record.
    const QString recorded = record.tensorflowVersion();
    if (target.tensorflow.isEmpty() && !recorded.isEmpty()) {
        target.tensorflow = recorded;
        target.tensorflowEvidence = target.recordPath;
    }
    const InstallSpec plan = record.plan();
    if (target.tensorflowPackage.isEmpty() && !target.tensorflow.isEmpty())
        target.tensorflowPackage = requirementProject(plan.package.isEmpty() ? u"tensorflow"_s : plan.package);
    target.route = plan.route;
    target.cuda = plan.cuda;
    target.cudnn = plan.cudnn;
    target.gpus = plan.gpus;
    // A plan without CUDA is one for the processor (the cpu route, or a non-NVIDIA accelerator).
    target.cpuOnly = target.tensorflowPackage == u"tensorflow-cpu"
        || (!plan.route.isEmpty() && plan.cuda.isEmpty() && plan.cudnn.isEmpty());
    target.launcherLibraryDirs = launcherLibraryDirs(system, root);
    const QString suffix = system.os() == OsFamily::Windows ? u".bat"_s : u".sh"_s;
    for (const QString &launcher : record.launchers) {
        const QString name = launcher.section(u'/', -1);
        if (name.startsWith(u"start-python"_s, Qt::CaseInsensitive) && name.endsWith(suffix, Qt::CaseInsensitive)) {
            target.pythonLauncher = SystemView::join(root, launcher);
            break;
        }
    }
    if (target.pythonLauncher.isEmpty() && system.isFile(SystemView::join(root, u"start-python"_s + suffix)))
        target.pythonLauncher = SystemView::join(root, u"start-python"_s + suffix);
    target.kernelName = record.kernelName();
    if (!record.kernelFolder.isEmpty())
        target.kernelFolder = system.normalize(record.kernelFolder);
    target.recordedFiles = record.files;
    return target;
}

} // namespace

DoctorTarget inspectEnvironment(const SystemView &system, const QString &envDir)
{
    if (envDir.isEmpty())
        return {};
    QString root = system.normalize(envDir);
    const auto recordIn = [&](const QString &dir) { return SystemView::join(dir, u"environment.json"_s); };
    // --env DIR/venv of a tfsetup environment: the record is one level up.
    if (!system.isFile(recordIn(root)) && root.section(u'/', -1).compare(u"venv"_s, Qt::CaseInsensitive) == 0
        && system.isFile(recordIn(parentDir(root))))
        root = parentDir(root);
    if (!system.isFile(recordIn(root)))
        return inspectFolder(system, root);

    const QString host = system.hostPath(root);
    const Result<EnvironmentRecord> record = host.isEmpty()
        ? Result<EnvironmentRecord>(Error{u"record_unreadable"_s, {}, {}})
        : EnvironmentRecord::read(host);
    if (record)
        return inspectRecord(system, root, *record);
    // The folder as it is, without what the record would have said.
    const QString venv = SystemView::join(root, u"venv"_s);
    DoctorTarget target = inspectFolder(system, system.isDir(venv) ? venv : root);
    target.envDir = root;
    target.recordPath = recordIn(root);
    target.recordError = record.error().message.isEmpty() ? record.error().code : record.error().message;
    if (!record.error().detail.isEmpty())
        target.recordError += u" ("_s + record.error().detail + u')';
    return target;
}

namespace {

DoctorTarget inspectFolder(const SystemView &system, const QString &envDir)
{
    DoctorTarget target;
    const bool windows = system.os() == OsFamily::Windows;
    target.envDir = system.normalize(envDir);
    const QString &env = target.envDir;
    if (system.isDir(SystemView::join(env, u"conda-meta"_s)))
        target.envKind = u"conda"_s;
    else if (system.isFile(SystemView::join(env, u"pyvenv.cfg"_s)))
        target.envKind = u"venv"_s;

    const QStringList pythons = windows ? QStringList{u"python.exe"_s, u"Scripts/python.exe"_s}
                                        : QStringList{u"bin/python3"_s, u"bin/python"_s};
    for (const QString &p : pythons) {
        if (system.isFile(SystemView::join(env, p))) {
            target.python = SystemView::join(env, p);
            break;
        }
    }

    if (const auto cfg = system.readFile(SystemView::join(env, u"pyvenv.cfg"_s), 64 * 1024)) {
        if (const auto v = parsers::parsePyvenvCfgVersion(*cfg))
            target.pythonVersion = *v;
    }
    if (target.pythonVersion.isEmpty()) {
        for (const QString &name : system.entries(SystemView::join(env, u"conda-meta"_s), {u"python-*.json"_s})) {
            if (const auto v = parsers::pythonVersionFromCondaMetaName(name)) {
                target.pythonVersion = *v;
                break;
            }
        }
    }

    QStringList sitePackages;
    if (windows) {
        sitePackages.append(SystemView::join(env, u"Lib/site-packages"_s));
    } else {
        for (const QString &name :
             system.entries(SystemView::join(env, u"lib"_s), {u"python3*"_s}, QDir::Dirs | QDir::NoDotAndDotDot)) {
            sitePackages.append(SystemView::join(env, u"lib/"_s + name + u"/site-packages"_s));
            if (target.pythonVersion.isEmpty()) {
                if (const auto v = parsers::pythonVersionFromName(name))
                    target.pythonVersion = *v;
            }
        }
    }
    // The distribution names pip writes ("tensorflow_gpu-2.10.0.dist-info"); tensorflow-intel is
    // what "tensorflow" pulls in on Windows from 2.11.
    static const QRegularExpression dist(
        uR"(^(tensorflow(?:[_-](?:gpu|cpu|intel))?)-(\d+\.\d+(?:\.\d+)?)[^/]*\.dist-info$)"_s,
        QRegularExpression::CaseInsensitiveOption);
    for (const QString &site : sitePackages) {
        for (const QString &name :
             system.entries(site, {u"tensorflow*.dist-info"_s}, QDir::Dirs | QDir::NoDotAndDotDot)) {
            const auto m = dist.match(name);
            if (!m.hasMatch())
                continue;
            const QString package = m.captured(1).toLower().replace(u'_', u'-');
            // "tensorflow" itself wins over its Windows helper package when both are present.
            if (target.tensorflow.isEmpty() || package == u"tensorflow") {
                target.tensorflow = m.captured(2);
                target.tensorflowPackage = package;
                target.tensorflowEvidence = SystemView::join(site, name);
            }
        }
        for (const QString &name :
             system.entries(SystemView::join(site, u"nvidia"_s), {}, QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString lib = SystemView::join(SystemView::join(SystemView::join(site, u"nvidia"_s), name),
                                                 windows ? u"bin"_s : u"lib"_s);
            if (system.isDir(lib))
                target.pipLibraryDirs.append(lib);
        }
    }
    target.cpuOnly = target.tensorflowPackage == u"tensorflow-cpu";
    return target;
}

} // namespace

QList<LibrarySearchDir> librarySearchOrder(const SystemView &system, const DoctorTarget &target)
{
    QList<LibrarySearchDir> out;
    QSet<QString> seen;
    auto add = [&](const QString &dir, const QString &origin) {
        if (dir.isEmpty())
            return;
        const QString normalized = system.normalize(dir);
        const QString key = system.identity(normalized);
        if (seen.contains(key) || !system.isDir(normalized))
            return;
        seen.insert(key);
        out.append({normalized, origin});
    };
    if (system.os() == OsFamily::Windows) {
        if (!target.envDir.isEmpty()) {
            // The program's own folder: a conda environment's python.exe sits at its root; a venv's
            // Scripts\python.exe only relays to the base interpreter named in pyvenv.cfg "home".
            QString appDir = target.envKind == u"conda" ? target.envDir : QString();
            if (target.envKind == u"venv") {
                if (const auto cfg = system.readFile(SystemView::join(target.envDir, u"pyvenv.cfg"_s), 64 * 1024)) {
                    for (const QByteArray &line : cfg->split('\n')) {
                        const QByteArray t = line.trimmed();
                        if (t.startsWith("home") && t.contains('='))
                            appDir = QString::fromUtf8(t.mid(t.indexOf('=') + 1).trimmed());
                    }
                }
            }
            add(appDir, u"app"_s);
            if (target.envKind == u"conda")
                add(SystemView::join(target.envDir, u"Library/bin"_s), u"conda"_s);
        }
        QString systemRoot = system.env(u"SystemRoot"_s);
        if (systemRoot.isEmpty())
            systemRoot = u"C:/Windows"_s;
        systemRoot = system.normalize(systemRoot);
        add(SystemView::join(systemRoot, u"System32"_s), u"System32"_s);
        add(systemRoot, u"Windows"_s);
        // A tfsetup environment runs through its launcher, which puts <env>\cuda\bin first on PATH.
        for (const QString &dir : target.launcherLibraryDirs)
            add(dir, u"launcher"_s);
        for (const QString &dir : system.pathList())
            add(dir, u"PATH"_s);
        return out;
    }
    // A tfsetup environment's launcher sets LD_LIBRARY_PATH to its own folders (cuda/lib, then
    // pip's nvidia/*/lib) ahead of what it inherits.
    for (const QString &dir : target.launcherLibraryDirs)
        add(dir, u"launcher"_s);
    if (target.record) {
        for (const QString &dir : target.pipLibraryDirs)
            add(dir, u"launcher"_s);
    }
    for (const QString &dir : system.pathList(u"LD_LIBRARY_PATH"_s))
        add(dir, u"LD_LIBRARY_PATH"_s);
    for (const QString &dir : target.pipLibraryDirs)
        add(dir, u"pip"_s);
    for (const QString &conf : system.entries(u"/etc/ld.so.conf.d"_s, {u"*.conf"_s}, QDir::Files)) {
        const auto bytes = system.readFile(SystemView::join(u"/etc/ld.so.conf.d"_s, conf), 64 * 1024);
        if (!bytes)
            continue;
        for (const QByteArray &line : bytes->split('\n')) {
            const QString t = QString::fromUtf8(line).trimmed();
            if (t.startsWith(u'/'))
                add(t, u"ld.so.conf"_s);
        }
    }
    for (const char *dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                            "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
        add(QString::fromLatin1(dir), u"default"_s);
    return out;
}

QList<DoctorFinding> scanSystem(const SystemView &system, const HardwareReport &hardware, const Knowledge &knowledge,
                                const DoctorTarget &target)
{
    return Scan(system, hardware, knowledge, target).run();
}

QList<DoctorFinding> scanHardware(const SystemView &system, const HardwareReport &hardware, const Knowledge &knowledge,
                                  const DoctorTarget &target)
{
    return Scan(system, hardware, knowledge, target, true).run();
}

namespace {

QString fileNames(const QStringList &paths)
{
    QStringList names;
    for (const QString &p : paths) {
        const QString name = p.section(u'/', -1);
        if (!names.contains(name))
            names.append(name);
    }
    constexpr qsizetype shown = 8;
    return names.size() > shown ? names.mid(0, shown).join(u", "_s) + u", …"_s : names.join(u", "_s);
}

Severity probeSeverity(const QString &severity)
{
    return severity == u"error" ? Severity::Error : severity == u"warning" ? Severity::Warning : Severity::Info;
}

} // namespace

QList<DoctorFinding> checkEnvironmentFiles(const SystemView &system, const Knowledge &knowledge,
                                           const DoctorTarget &target)
{
    QList<DoctorFinding> out;
    if (!target.record)
        return out;
    const QString host = system.hostPath(target.envDir);
    if (host.isEmpty())
        return out;
    const bool windows = system.os() == OsFamily::Windows;
    const CauseRegistry &causes = knowledge.causes;

    // Sizes for every file, SHA-256 for the small ones (launchers, kernel.json, the smaller
    // libraries): a partial download, a truncated copy or another version's file has another size,
    // and hashing gigabytes of cuDNN and cuBLAS would make the doctor take minutes. repair hashes
    // everything before it changes anything.
    const QList<RepairItem> items = checkRecordedFiles(host, target.recordedFiles, windows, recordedHashLimit);
    if (!items.isEmpty()) {
        DoctorFinding f;
        f.id = u"environment_damaged:files"_s;
        f.cause = u"environment_damaged"_s;
        f.severity = Severity::Error;
        QStringList paths;
        QStringList libraries;
        for (const RepairItem &item : items) {
            paths.append(item.path);
            const QString where = SystemView::join(target.envDir, item.path);
            const QString origin = item.origin.isEmpty() ? QString() : u" ("_s + item.origin + u')';
            if (item.problem == RepairItem::Problem::Misplaced)
                f.evidence.append(
                    u"moved: %1 is at %2%3"_s.arg(where, SystemView::join(target.envDir, item.foundAt), origin));
            else
                f.evidence.append(RepairItem::problemName(item.problem) + u": " + where + origin);
            // A file from NVIDIA's archives is what fetch_library puts back; tfsetup's own files
            // (launchers, kernel.json) repair writes again anyway.
            const QString name = item.path.section(u'/', -1);
            if (item.origin != u"tfsetup" && !item.origin.isEmpty() && !libraries.contains(name, Qt::CaseInsensitive))
                libraries.append(name);
        }
        f.summary = causes.summary(
            f.cause, {},
            {{u"count"_s, QString::number(items.size())}, {u"env"_s, target.envDir}, {u"files"_s, fileNames(paths)}});
        f.fix = causes.fix(f.cause, {}, {{u"env"_s, target.envDir}});
        for (const QString &library : std::as_const(libraries))
            f.actions.append(action("fetch_library", {{u"library"_s, library}}));
        out.append(std::move(f));
    }

    // pip's RECORD of the NVIDIA wheels, read as repair reads it (never through a link), with the
    // same quick look: these wheels are gigabytes, so their large files are compared by size.
    PipRecordCheck nvidiaWheels;
    nvidiaWheels.distInfos = {u"nvidia_*.dist-info"_s, u"nvidia-*.dist-info"_s};
    nvidiaWheels.hashLimit = recordedHashLimit;
    const PipRecordScan wheels = checkPipRecords(host, nullptr, nvidiaWheels);
    if (!wheels.damaged.isEmpty()) {
        DoctorFinding f;
        f.id = u"environment_damaged:packages"_s;
        f.cause = u"environment_damaged"_s;
        f.severity = target.cpuOnly ? Severity::Warning : Severity::Error;
        QStringList packages;
        QStringList paths;
        for (const PipDistributionDamage &damage : wheels.damaged) {
            const QString name = QString(damage.name).replace(u'_', u'-');
            packages.append(name + u' ' + damage.version);
            const QString distInfo = damage.distInfo.section(u'/', -1);
            for (const auto &[state, files] :
                 {std::pair{u"altered"_s, damage.altered}, std::pair{u"missing"_s, damage.missing}}) {
                for (const QString &file : files) {
                    paths.append(file);
                    f.evidence.append(u"%1: %2 (%3)"_s.arg(state, SystemView::join(target.envDir, file), distInfo));
                }
            }
            f.actions.append(action("pip_install", {{u"requirement"_s, QString(name + u"==" + damage.version)}}));
        }
        f.summary = causes.summary(
            f.cause, u"packages"_s,
            {{u"env"_s, target.envDir}, {u"packages"_s, packages.join(u", "_s)}, {u"files"_s, fileNames(paths)}});
        f.fix = causes.fix(f.cause, u"packages"_s, {{u"env"_s, target.envDir}});
        out.append(std::move(f));
    }
    return out;
}

QList<DoctorFinding> probeFindings(const ProbeReport &report, const HardwareReport &hardware,
                                   const Knowledge &knowledge, const DoctorTarget &target)
{
    QList<DoctorFinding> out;
    const CauseRegistry &causes = knowledge.causes;
    const bool noGpu = hardware.nvidiaGpus().isEmpty();
    const QString variable = report.os == u"windows" ? u"PATH"_s : u"LD_LIBRARY_PATH"_s;
    for (const ProbeFinding &p : report.findings) {
        const Severity severity = probeSeverity(p.severity);
        if (severity == Severity::Info)
            continue;
        const ProbedLibrary *probed = report.library(p.library);
        const QString group = probed ? probed->library.group : QString();
        const bool driver = p.code.startsWith(u"driver_"_s) || group == u"driver";
        // Without an NVIDIA GPU the scan's no_gpu_or_driver already says what the driver's absence means.
        if (driver && noGpu)
            continue;
        DoctorFinding f;
        f.id = u"probe."_s + p.code + (p.library.isEmpty() ? QString() : u':' + p.library);
        f.severity = target.cpuOnly ? Severity::Info : severity;
        f.evidence.append(u"tfsetup-probe: %1 %2"_s.arg(p.code, p.library).trimmed());
        if (!p.path.isEmpty())
            f.evidence.append(u"file: "_s + p.path);
        if (!p.other.isEmpty())
            f.evidence.append(u"detail: "_s + p.other);
        if (!p.version.isEmpty() || !p.expected.isEmpty())
            f.evidence.append(u"version: %1, expected: %2"_s.arg(p.version.isEmpty() ? u"-"_s : p.version,
                                                                 p.expected.isEmpty() ? u"-"_s : p.expected));
        if (!report.searchPath.isEmpty())
            f.evidence.append(u"%1 as the launcher set it: %2"_s.arg(
                variable, report.searchPath.join(report.os == u"windows" ? u';' : u':')));
        if (p.code == u"library_missing" && !driver) {
            f.cause = group == u"cudnn" ? u"missing_cudnn"_s : u"missing_cuda_runtime"_s;
            const QString variant = group == u"cudnn" ? QString() : u"library"_s;
            f.summary = causes.summary(f.cause, variant, {{u"library"_s, p.library}});
            f.fix = causes.fix(f.cause, variant, {{u"library"_s, p.library}});
            f.actions = {action("fetch_library", {{u"library"_s, p.library}})};
        } else if (p.code == u"sublibrary_missing") {
            f.cause = u"missing_cudnn"_s;
            f.summary = causes.summary(f.cause, u"part_missing"_s, {{u"library"_s, p.library}, {u"detail"_s, p.other}});
            f.fix = causes.fix(f.cause, u"part_missing"_s);
            f.actions = {action("fetch_library", {{u"library"_s, p.library}})};
        } else if (p.code == u"shadowed") {
            f.cause = u"path_shadowing"_s;
            f.summary = causes.summary(f.cause, {},
                                       {{u"count"_s, u"2"_s}, {u"library"_s, p.library}, {u"first"_s, p.path}});
            f.fix = causes.fix(f.cause, {}, {{u"variable"_s, variable}});
            if (!p.other.isEmpty())
                f.actions = {action("prepend_path", {{u"variable"_s, variable}, {u"dir"_s, parentDir(p.other)}})};
        } else if (p.code == u"driver_missing") {
            f.cause = u"no_gpu_or_driver"_s;
            f.summary = causes.summary(f.cause, u"scan_no_driver"_s, {{u"gpu"_s, hardware.nvidiaGpus().first().name}});
            f.fix = causes.fix(f.cause);
            f.actions = {action("install_driver")};
        } else {
            // Any other code, today's and those the probe learns later: its own words.
            f.cause = u"library_probe"_s;
            f.summary = causes.summary(f.cause, {}, {{u"detail"_s, p.message()}});
            f.fix = causes.fix(f.cause, {}, {{u"env"_s, target.envDir}});
            f.actions = {action("verify")};
        }
        // Several libraries missing in the same way are one finding (as the scan says them),
        // not one error each.
        const bool groups = f.cause == u"missing_cuda_runtime" || (f.cause == u"missing_cudnn" && !driver);
        if (groups) {
            const QString key = u"probe."_s + p.code + u':';
            auto same = std::find_if(out.begin(), out.end(), [&](const DoctorFinding &o) {
                return o.id.startsWith(key) && o.cause == f.cause;
            });
            if (same != out.end()) {
                QStringList libraries;
                for (const DoctorAction &a : std::as_const(same->actions))
                    libraries.append(a.params.value(u"library"_s).toString());
                libraries.append(p.library);
                for (const QString &e : std::as_const(f.evidence)) {
                    if (!same->evidence.contains(e))
                        same->evidence.append(e);
                }
                same->actions += f.actions;
                same->severity = std::max(same->severity, f.severity);
                const QString list = libraries.join(u", "_s);
                if (f.cause == u"missing_cuda_runtime") {
                    same->summary = causes.summary(f.cause, u"scan_missing"_s,
                                                   {{u"tensorflow"_s, target.tensorflow},
                                                    {u"count"_s, QString::number(libraries.size())},
                                                    {u"cuda"_s, target.cuda},
                                                    {u"libraries"_s, list}});
                    same->fix = causes.fix(f.cause, u"library"_s, {{u"library"_s, list}});
                } else if (p.code == u"sublibrary_missing") {
                    same->summary = causes.summary(f.cause, u"part_missing"_s,
                                                   {{u"library"_s, list}, {u"detail"_s, p.other}});
                } else {
                    same->summary = causes.summary(f.cause, {}, {{u"library"_s, list}});
                    same->fix = causes.fix(f.cause, {}, {{u"library"_s, list}});
                }
                continue;
            }
        }
        out.append(std::move(f));
    }
    return out;
}

DoctorFinding probeNotRunFinding(const Error &why, const Knowledge &knowledge, const DoctorTarget &target)
{
    DoctorFinding f;
    f.id = u"library_probe:not_run"_s;
    f.cause = u"library_probe"_s;
    f.severity = Severity::Info;
    f.summary = knowledge.causes.summary(f.cause, u"not_run"_s,
                                         {{u"reason"_s, why.message.isEmpty() ? why.code : why.message}});
    f.fix = knowledge.causes.fix(f.cause, u"not_run"_s, {{u"env"_s, target.envDir}});
    f.evidence.append(why.code);
    if (!why.detail.trimmed().isEmpty())
        f.evidence.append(why.detail.trimmed().left(2000));
    f.actions = {action("verify")};
    return f;
}

} // namespace tfsetup::core
