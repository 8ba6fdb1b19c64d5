#include "doctor/tflogreader.h"

#include "catalog/version.h"
#include "util/text.h"

#include <QHash>

namespace tfsetup::core {

namespace {

using namespace Qt::Literals::StringLiterals;

constexpr qsizetype maxEvidenceLines = 5;

QString lineEvidence(qsizetype index, const QString &line)
{
    // The log's own words, but never an escape sequence or a carriage return that could rewrite
    // what a terminal or a report shows.
    return u"line %1: %2"_s.arg(index + 1).arg(visibleText(line.trimmed().left(400)));
}

// The named groups a rule's pattern captured, as the cause's parameters.
CauseParams capturedParams(const QRegularExpression &pattern, const QRegularExpressionMatch &m)
{
    CauseParams params;
    for (const QString &name : pattern.namedCaptureGroups()) {
        if (!name.isEmpty() && !m.captured(name).isEmpty())
            params.insert(name, visibleText(m.captured(name).trimmed()));
    }
    return params;
}

bool isCudaRuntimeVersionLibrary(const QString &library)
{
    static const QRegularExpression re(
        uR"(^(?:lib)?(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse)(?:64_\d+\.dll|\.so\.\d+(?:\.\d+)*)$)"_s,
        QRegularExpression::CaseInsensitiveOption);
    return re.match(library).hasMatch();
}

// True when one of the installed CUDA versions provides the runtime a library name asks for:
// from CUDA 11 on, one soname serves a whole major version; before, each minor had its own.
bool installedProvides(const QStringList &installed, const QString &wanted)
{
    return std::any_of(installed.cbegin(), installed.cend(), [&](const QString &v) {
        if (wanted.count(u'.') == 0 || version::compare(version::major(wanted), u"11") >= 0)
            return version::major(v) == version::major(wanted);
        return version::majorMinor(v) == version::majorMinor(wanted);
    });
}

// cuDNN before 7.1 printed its version as one number, MAJOR * 1000 + MINOR * 100 + PATCH
// (cudnn.h's CUDNN_VERSION): 5110 is 5.1.10, 7003 is 7.0.3.
QString cudnnVersionText(const QString &printed)
{
    if (printed.contains(u'.') || printed.size() != 4)
        return printed;
    const int n = printed.toInt();
    return u"%1.%2.%3"_s.arg(n / 1000).arg(n % 1000 / 100).arg(n % 100);
}

} // namespace

QString cudaVersionOfLibrary(const QString &library)
{
    if (!isCudaRuntimeVersionLibrary(library))
        return {};
    static const QRegularExpression windows(uR"(64_(\d+)\.dll$)"_s, QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression linux(uR"(\.so\.(\d+(?:\.\d+)?))"_s);
    if (const auto m = windows.match(library); m.hasMatch()) {
        const QString digits = m.captured(1);
        // cudart64_110.dll, cudart64_101.dll, cudart64_92.dll carry major and minor; cublas64_11.dll,
        // cudart64_12.dll only the major (from CUDA 11 on, one name per major version).
        if (digits.size() == 3)
            return digits.left(2) + u'.' + digits.right(1);
        if (digits.size() == 2 && digits.front() < u'2')
            return digits;
        if (digits.size() == 2)
            return digits.left(1) + u'.' + digits.right(1);
        return digits;
    }
    if (const auto m = linux.match(library); m.hasMatch())
        return m.captured(1);
    return {};
}

QString LogMachine::describe() const
{
    QStringList parts;
    if (!platform.isEmpty())
        parts.append(platform == u"windows" ? u"Windows"_s : wsl ? u"Linux (WSL2)"_s : u"Linux"_s);
    if (!tensorflow.isEmpty())
        parts.append(u"TensorFlow "_s + tensorflow);
    if (!cudaWanted.isEmpty())
        parts.append(u"asks for CUDA "_s + cudaWanted.join(u", "_s));
    if (!cudaInstalled.isEmpty())
        parts.append(u"CUDA folders "_s + cudaInstalled.join(u", "_s));
    parts.append(gpus);
    if (!driver.isEmpty())
        parts.append(u"driver "_s + driver);
    return parts.join(u", "_s);
}

LogMachine inspectLog(const QString &text)
{
    LogMachine m;
    // Windows: drive paths in either slash, DLL names, and what only Windows installs print
    // (tensorflow-intel is the Windows wheel's dependency from 2.11 on, win_amd64 its wheel tag).
    static const QRegularExpression windowsPath(
        uR"((?:^|[\s'"(=])[A-Za-z]:[\\/](?!/)|\\site-packages\\|\b\w+64_\d+\.dll\b|\bnvcuda\.dll\b|\btensorflow[-_]intel\b|\bwin_amd64\b|\bpython\.exe\b|\bWindows-1[01]-)"_s,
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression linuxPath(
        uR"((?:^|[\s'"(=])/(?:usr|home|opt|root|content)/|/site-packages/|\blib\w+\.so(?:\.\d+)+\b)"_s);
    static const QRegularExpression wsl(uR"(/usr/lib/wsl/lib|microsoft-standard-WSL|\bWSL ?2\b)"_s);
    static const QRegularExpression macos(
        uR"((?:^|[\s'"(=])/Users/[^/\s]+/|/opt/homebrew/|\btensorflow[-_](?:macos|metal)\b|\bdarwin\b|\.dylib\b|\bmacOS\b)"_s);
    static const QRegularExpression tfVersion(
        uR"((?:tensorflow(?:[-_](?:gpu|cpu|intel))?(?:[-_]|==)|Tensor ?Flow version:?\s*|tf\.__version__\W*|^\s*tensorflow(?:-gpu|-intel)?\s+)(\d+\.\d+(?:\.\d+)?)\b)"_s,
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression library(
        uR"((?:Could not load dynamic library|Successfully opened dynamic library|Could not find) '?([\w.]+\.(?:dll|so(?:\.\d+)*))'?)"_s);
    static const QRegularExpression cudnn(
        uR"(Loaded runtime CuDNN library: (\d+(?:\.\d+)*) but source was compiled with: (\d+(?:\.\d+)*))"_s);
    static const QRegularExpression created(
        uR"((?:Created (?:TensorFlow )?device|Ignoring visible gpu device).*?name: ([^,]+), pci bus id: [^,]+, compute capability: (\d+\.\d+))"_s);
    static const QRegularExpression foundName(
        uR"(^\s*(?:name: (.+?) major: (\d+) minor: (\d+)|pciBusID: \S+ name: (.+?) computeCapability: (\d+\.\d+)))"_s);
    static const QRegularExpression gpuSeen(
        uR"(Found device \d+ with properties|Adding visible gpu devices|Cannot dlopen some GPU libraries|PhysicalDevice\(name='/physical_device:GPU|NVIDIA-SMI \d|Created (?:TensorFlow )?device .*GPU)"_s);
    // The driver's library loading shows a driver is installed, not that a GPU is there (a
    // container or a laptop without its GPU): it counts only when nothing says "no device".
    static const QRegularExpression driverLibrary(
        uR"(Successfully opened dynamic library (?:libcuda\.so|nvcuda\.dll))"_s);
    static const QRegularExpression deviceCreated(
        uR"(Created (?:TensorFlow )?device .*GPU:\d|PhysicalDevice\(name='/physical_device:GPU)"_s);
    static const QRegularExpression noGpu(
        uR"(CUDA_ERROR_NO_DEVICE|no CUDA-capable device is detected)"_s); // or any noDriver line
    static const QRegularExpression noDriver(
        uR"(kernel driver does not appear to be running|/proc/driver/nvidia/version does not exist|Could not find cuda drivers on your machine|failed call to cuInit: UNKNOWN ERROR \(303\)|Could not load dynamic library 'libcuda\.so|libcuda\.so\.1: cannot open shared object file|Could not load dynamic library 'nvcuda\.dll')"_s);
    static const QRegularExpression cudaFolder(
        uR"((?:cuda-|CUDA[\\/]v|cuda[\\/]v?|cuda_)(\d+\.\d+)(?=[\\/:;\s'"]|$))"_s,
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression driver(
        uR"((?:kernel reported version is|libcuda reported version is|Driver Version|DRIVER_VERSION|driver version)[:\s]+(\d{3}\.\d+(?:\.\d+)?))"_s,
        QRegularExpression::CaseInsensitiveOption);
    // TensorFlow's own answer that it sees no GPU, in the forms people paste: the count, an empty
    // list after the query (on its line or the next), a device list holding only the CPU.
    static const QRegularExpression gpuCountZero(
        uR"(Num(?:ber of)? GPUs?(?: Available)?\W*0\b|\bGPU[\w ]{0,20}?(?:[Aa]vailable|可用)\W{0,4}False\b|\bGPUs? [Aa]vailable:?\s+0\b|\b0 GPUs? (?:[Aa]vailable|found)|Default GPU Device:\s*$|GPU is NOT AVAILABLE|\bGPUs?\b[^\[\]\n]{0,60}?[:=#>]\s*\[\](?![\w\]])|^\s*\[PhysicalDevice\(name='/physical_device:CPU:0', device_type='CPU'\)\]\s*$|is_gpu_available\(\)\)?\W*False\b)"_s,
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression gpuQuery(
        uR"(list_physical_devices\(\s*['"]GPU['"]|get_visible_devices\(\s*['"]GPU['"]|is_gpu_available \(from|is_gpu_available\(|gpu_device_name\()"_s);
    static const QRegularExpression versionQuery(uR"(tf\.__version__|tf\.version\.VERSION|tensorflow\.__version__)"_s);
    static const QRegularExpression bareVersion(
        uR"(^\s*(?:>>>\s*|Out\[\d+\]:\s*)?'?(\d+\.\d+\.\d+)(?:-?rc\d+)?'?\s*$)"_s);
    static const QRegularExpression buildQuery(uR"(is_buil[dt]_with_(?:cuda|gpu_support)\(\))"_s);
    static const QRegularExpression falseOrEmpty(uR"(^\s*(?:>>>\s*|Out\[\d+\]:\s*)?(?:\[\]|False|''|"")\s*$)"_s);
    static const QRegularExpression builtWithoutCuda(
        uR"(is_buil[dt]_with_(?:cuda|gpu_support)\(\)\)?\W*(?:False|false)\b)"_s);
    static const QRegularExpression cpuDeviceListed(uR"(name: "/device:CPU:0")"_s);
    static const QRegularExpression gpuDeviceListed(uR"(/device:GPU:\d|/physical_device:GPU:\d|device_type: "GPU")"_s);
    static const QRegularExpression gpuBuild(uR"(\btensorflow[-_]gpu\b|tensorflow\[and-cuda\])"_s,
                                             QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression cudaMessage(
        uR"(dso_loader|cudart|libcuda\b|nvcuda|cuInit|cuda_diagnostics|cuda_driver|Could not find cuda drivers|Cannot dlopen some GPU|cudnn|cublas|CUDA_ERROR|cuda_gpu_executor|gpu_device\.cc|gpu_init\.cc)"_s,
        QRegularExpression::CaseInsensitiveOption);

    const QStringList lines = text.split(u'\n');
    int windowsVotes = 0, linuxVotes = 0;
    QString driverLibraryLine;
    QString windowsLine, linuxLine;
    qsizetype gpuQueryAt = -10, buildQueryAt = -10, versionQueryAt = -10;
    bool cpuDeviceOnly = false, gpuDeviceInList = false;
    QString cpuDeviceLine;
    auto noGpuListed = [&](qsizetype n, const QString &line) {
        if (!m.gpuListEmpty) {
            m.gpuListEmpty = true;
            m.evidence.append(lineEvidence(n, line));
        }
    };
    for (qsizetype n = 0; n < lines.size(); ++n) {
        QString line = lines[n];
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (line.size() > 4000)
            line.truncate(4000);
        if (windowsPath.match(line).hasMatch()) {
            if (windowsVotes++ == 0)
                windowsLine = lineEvidence(n, line);
        }
        if (linuxPath.match(line).hasMatch()) {
            if (linuxVotes++ == 0)
                linuxLine = lineEvidence(n, line);
        }
        if (!m.wsl && wsl.match(line).hasMatch())
            m.wsl = true;
        if (!m.macos && macos.match(line).hasMatch())
            m.macos = true;
        if (m.tensorflow.isEmpty()) {
            if (const auto t = tfVersion.match(line); t.hasMatch()) {
                m.tensorflow = t.captured(1);
                m.evidence.append(lineEvidence(n, line));
            } else if (const auto b = bareVersion.match(line); b.hasMatch() && n - versionQueryAt <= 2) {
                // print(tf.__version__) answered on the next line
                m.tensorflow = b.captured(1);
                m.evidence.append(lineEvidence(n, line));
            }
        }
        if (versionQuery.match(line).hasMatch())
            versionQueryAt = n;
        if (const auto l = library.match(line); l.hasMatch()) {
            const QString cuda = cudaVersionOfLibrary(l.captured(1));
            if (!cuda.isEmpty() && !m.cudaWanted.contains(cuda))
                m.cudaWanted.append(cuda);
        }
        for (auto it = cudaFolder.globalMatch(line); it.hasNext();) {
            const QString v = it.next().captured(1);
            if (!m.cudaInstalled.contains(v))
                m.cudaInstalled.append(v);
        }
        if (const auto c = cudnn.match(line); c.hasMatch()) {
            m.cudnnLoaded = c.captured(1);
            m.cudnnCompiled = c.captured(2);
        }
        QString gpu;
        if (const auto g = created.match(line); g.hasMatch())
            gpu = u"%1 (%2)"_s.arg(g.captured(1).trimmed(), g.captured(2));
        else if (const auto f = foundName.match(line); f.hasMatch())
            gpu = !f.captured(1).isEmpty() ? u"%1 (%2.%3)"_s.arg(f.captured(1).trimmed(), f.captured(2), f.captured(3))
                                           : u"%1 (%2)"_s.arg(f.captured(4).trimmed(), f.captured(5));
        if (!gpu.isEmpty() && !m.gpus.contains(gpu)) {
            m.gpus.append(gpu);
            m.evidence.append(lineEvidence(n, line));
        }
        if (!m.gpuSeen && (gpuSeen.match(line).hasMatch() || !gpu.isEmpty())) {
            m.gpuSeen = true;
            if (gpu.isEmpty())
                m.evidence.append(lineEvidence(n, line));
        }
        if (driverLibraryLine.isEmpty() && driverLibrary.match(line).hasMatch())
            driverLibraryLine = lineEvidence(n, line);
        if (!m.gpuDeviceCreated && deviceCreated.match(line).hasMatch())
            m.gpuDeviceCreated = true;
        if (!m.noDriverSeen && noDriver.match(line).hasMatch()) {
            m.noDriverSeen = true;
            if (!m.noGpuSeen) {
                m.noGpuSeen = true;
                m.evidence.append(lineEvidence(n, line));
            }
        }
        if (!m.noGpuSeen && noGpu.match(line).hasMatch()) {
            m.noGpuSeen = true;
            m.evidence.append(lineEvidence(n, line));
        }
        if (gpuCountZero.match(line).hasMatch())
            noGpuListed(n, line);
        if (gpuQuery.match(line).hasMatch())
            gpuQueryAt = n;
        if (buildQuery.match(line).hasMatch())
            buildQueryAt = n;
        // The answer printed under the query: `[]` or `False` on its own line, a line or two below.
        if (falseOrEmpty.match(line).hasMatch()) {
            if (n - gpuQueryAt <= 2)
                noGpuListed(n, line);
            else if (n - buildQueryAt <= 2 && !m.builtWithoutCuda) {
                m.builtWithoutCuda = true;
                m.evidence.append(lineEvidence(n, line));
            }
        }
        if (!m.builtWithoutCuda && builtWithoutCuda.match(line).hasMatch()) {
            m.builtWithoutCuda = true;
            m.evidence.append(lineEvidence(n, line));
        }
        if (cpuDeviceListed.match(line).hasMatch() && cpuDeviceLine.isEmpty()) {
            cpuDeviceOnly = true;
            cpuDeviceLine = lineEvidence(n, line);
        }
        gpuDeviceInList = gpuDeviceInList || gpuDeviceListed.match(line).hasMatch();
        m.gpuBuild = m.gpuBuild || gpuBuild.match(line).hasMatch();
        m.cudaMessages = m.cudaMessages || cudaMessage.match(line).hasMatch();
        if (m.driver.isEmpty()) {
            if (const auto d = driver.match(line); d.hasMatch()) {
                m.driver = d.captured(1);
                m.gpuSeen = true;
                m.evidence.append(lineEvidence(n, line));
            }
        }
    }
    // device_lib.list_local_devices() that lists only the CPU.
    if (cpuDeviceOnly && !gpuDeviceInList && !m.gpuListEmpty) {
        m.gpuListEmpty = true;
        m.evidence.append(cpuDeviceLine);
    }
    if (gpuDeviceInList || m.gpuDeviceCreated)
        m.gpuListEmpty = false;
    if (!m.gpuSeen && !m.noGpuSeen && !driverLibraryLine.isEmpty()) {
        m.gpuSeen = true;
        m.evidence.append(driverLibraryLine);
    }
    // A log can quote both kinds of path (a WSL2 log mentions C:\); the kind most lines use wins.
    if (windowsVotes > linuxVotes) {
        m.platform = u"windows"_s;
        m.evidence.prepend(windowsLine);
    } else if (linuxVotes > windowsVotes) {
        m.platform = u"linux"_s;
        m.evidence.prepend(linuxLine);
    }
    return m;
}

TfLogReader::TfLogReader(TfLogRules rules, CauseRegistry causes)
    : m_rules(std::move(rules))
    , m_causes(std::move(causes))
{}

QList<DoctorFinding> TfLogReader::read(const QString &text, const TfLogContext &context) const
{
    QList<DoctorFinding> findings;
    QHash<QString, qsizetype> byId;
    const LogMachine machine = context.machine ? *context.machine : inspectLog(text);
    // The log's machine shows an NVIDIA GPU or driver, or its detection found one.
    const bool gpuThere = context.gpuPresent == true || machine.gpuSeen || !machine.gpus.isEmpty()
        || !machine.driver.isEmpty();
    // The log itself shows a machine without an NVIDIA driver or GPU (no CUDA device, the kernel
    // driver not running) and nothing of a GPU: every CUDA message there is expected, as on a
    // machine meant for the CPU.
    const bool cpuOnlyMachine = !gpuThere && machine.noGpuSeen;
    const QString platform = machine.platform.isEmpty() ? context.platform : machine.platform;
    const QString tensorflow = machine.tensorflow.isEmpty() ? context.tensorflow : machine.tensorflow;
    const bool pastNativeGpu = !tensorflow.isEmpty() && !context.windowsNativeLastGpu.isEmpty()
        && version::less(version::majorMinor(context.windowsNativeLastGpu), version::majorMinor(tensorflow));
    // A build that links CUDA on Windows: tensorflow-gpu, or a TensorFlow up to the last native GPU
    // release (one package for CPU and GPU in its later releases).
    const bool gpuBuild = machine.gpuBuild
        || (!tensorflow.isEmpty() && !pastNativeGpu && !context.windowsNativeLastGpu.isEmpty());
    QList<std::pair<qsizetype, const TfLogRule *>> dependent; // summary lines and consequences
    const QStringList lines = text.split(u'\n');
    QHash<const TfLogRule *, bool> conditionHolds;
    auto applies = [&](const TfLogRule &r) {
        if (r.needsInLog.pattern().isEmpty())
            return true;
        const auto it = conditionHolds.constFind(&r);
        if (it != conditionHolds.cend())
            return *it;
        const bool holds = r.needsInLog.match(text).hasMatch();
        conditionHolds.insert(&r, holds);
        return holds;
    };

    for (qsizetype n = 0; n < lines.size(); ++n) {
        QString line = lines[n];
        if (line.endsWith(u'\r'))
            line.chop(1);
        if (line.size() > 4000)
            line.truncate(4000); // a line that long is data, not a message; its start still reads
        const TfLogRule *rule = nullptr;
        QRegularExpressionMatch m;
        for (const TfLogRule &r : m_rules.rules()) {
            m = r.pattern.match(line);
            if (m.hasMatch() && applies(r)) {
                rule = &r;
                break;
            }
        }
        if (!rule)
            continue;

        CauseParams params = capturedParams(rule->pattern, m);
        const QString library = params.value(u"library"_s);
        QString cause = rule->cause;
        QString variant = rule->variant;
        for (const auto &[re, libraryCause] : rule->libraryCauses) {
            if (!library.isEmpty() && re.match(library).hasMatch()) {
                cause = libraryCause;
                break;
            }
        }
        Severity severity = cause == rule->cause ? rule->severity : m_causes.severity(cause);
        QString explain = rule->explain;
        if ((context.cpuOnly || cpuOnlyMachine) && !rule->cpuOnlyCause.isEmpty()) {
            cause = rule->cpuOnlyCause;
            explain = context.cpuOnly ? u"cpu_only"_s : u"no_gpu"_s;
        }
        // "No CUDA device" from a machine that shows no NVIDIA GPU anywhere: a CPU-only node.
        else if (rule->harmlessWithoutGpu && !gpuThere) {
            cause = u"harmless"_s;
            explain = u"no_gpu"_s;
        }

        // A CUDA runtime of one version asked for while another CUDA is installed: the fix is a
        // matching TensorFlow or that CUDA, not a copied DLL.
        // Nothing known of the CUDA installed there: the library still names the one TensorFlow
        // needs, and that is what to install (or to choose another TensorFlow for).
        if (cause == u"missing_cuda_runtime" && context.installedCuda.isEmpty() && !rule->missingWhenUnknown) {
            const QString wanted = cudaVersionOfLibrary(library);
            // Before CUDA 11 every minor release had its own library names, so a missing one
            // most often means another CUDA is installed; from 11 on it is rather not found.
            if (!wanted.isEmpty() && version::compare(version::major(wanted), u"11") < 0) {
                cause = u"cuda_version_mismatch"_s;
                severity = m_causes.severity(cause);
                params.insert(u"wanted"_s, wanted);
                variant = u"log_wants"_s;
            }
        }
        if (cause == u"missing_cuda_runtime" && !context.installedCuda.isEmpty()) {
            const QString wanted = cudaVersionOfLibrary(library);
            if (!wanted.isEmpty() && !installedProvides(context.installedCuda, wanted)) {
                cause = u"cuda_version_mismatch"_s;
                severity = m_causes.severity(cause);
                const QString installed = context.installedCuda.join(u", "_s);
                QStringList matching;
                for (const QString &v : context.installedCuda) {
                    const QString tf = context.tensorflowForCuda.value(version::majorMinor(v));
                    if (!tf.isEmpty())
                        matching.append(u"CUDA %1: TensorFlow %2"_s.arg(version::majorMinor(v), tf));
                }
                params.insert(u"wanted"_s, wanted);
                params.insert(u"installed"_s, installed);
                params.insert(u"matching"_s, matching.join(u"; "_s));
                variant = matching.isEmpty() ? u"log_other_cuda_no_match"_s : u"log_other_cuda"_s;
            }
        }
        // "DLL load failed" on the machine checked, whose Visual C++ runtime was found: not the
        // runtime, but the CPU (without AVX) or, for a build that links CUDA, a CUDA / cuDNN DLL.
        // Any other build links neither, so what failed is unknown and `tfsetup verify` finds it.
        if (cause == u"msvc_runtime_missing" && variant == u"dll_load" && context.msvcRuntimePresent == true) {
            if (context.cpuHasAvx == false) {
                cause = u"cpu_lacks_avx"_s;
                variant = u"dll_init"_s;
            } else if (gpuBuild || (context.cpuHasAvx == true && !pastNativeGpu)) {
                cause = u"missing_cuda_runtime"_s;
            } else {
                cause = u"dll_load_failed"_s;
                variant.clear();
            }
            severity = m_causes.severity(cause);
        }
        if (cause == u"harmless") {
            severity = Severity::Info;
            variant = explain;
        } else if (variant.isEmpty()) {
            if (cause == u"missing_cuda_runtime" && !library.isEmpty())
                variant = u"library"_s;
            else if (cause == u"missing_cudnn" && library.isEmpty())
                variant = u"no_library"_s;
            else if (cause == u"cudnn_version_mismatch" && params.contains(u"loaded"_s))
                variant = u"versions"_s;
        }

        if (cause == u"cudnn_version_mismatch") {
            for (const QString &key : {u"loaded"_s, u"compiled"_s})
                params.insert(key, cudnnVersionText(params.value(key)));
        }
        QString subject = library;
        if (cause == u"cudnn_version_mismatch")
            subject = params.value(u"loaded"_s);
        else if (cause == u"compute_capability_jit" || cause == u"compute_capability_unsupported")
            subject = params.value(u"cc"_s);
        const QString id = cause == u"harmless" ? QString(u"harmless:"_s + explain)
                                                : (subject.isEmpty() ? cause : QString(cause + u':' + subject));
        const QString evidence = lineEvidence(n, line);
        if (const auto it = byId.constFind(id); it != byId.cend()) {
            DoctorFinding &f = findings[*it];
            if (f.evidence.size() < maxEvidenceLines)
                f.evidence.append(evidence);
            continue;
        }
        DoctorFinding f = m_causes.finding(cause, variant, params);
        f.id = id;
        f.severity = severity;
        f.evidence = {evidence};
        if (cause == u"harmless")
            f.actions.clear();
        else if (f.actions.isEmpty() && severity == Severity::Error)
            f.actions = {DoctorAction{u"verify"_s, {}}};
        byId.insert(id, findings.size());
        if ((rule->summaryOnly || !rule->foldsInto.isEmpty()) && cause != u"harmless")
            dependent.append({findings.size(), rule});
        findings.append(std::move(f));

        // The runtime TensorFlow names is missing; whether another CUDA stands there instead only
        // that machine can say, so with nothing known of it the second reading is a warning.
        if (cause == u"missing_cuda_runtime" && rule->missingWhenUnknown && context.installedCuda.isEmpty()) {
            const QString wanted = cudaVersionOfLibrary(library);
            const QString otherId = u"cuda_version_mismatch:"_s + library;
            if (!wanted.isEmpty() && !byId.contains(otherId)) {
                DoctorFinding other = m_causes.finding(u"cuda_version_mismatch"_s, u"log_wants"_s,
                                                       {{u"wanted"_s, wanted}, {u"library"_s, library}});
                other.id = otherId;
                other.severity = Severity::Warning;
                other.evidence = {evidence};
                byId.insert(otherId, findings.size());
                findings.append(std::move(other));
            }
        }
    }

    // "Cannot dlopen some GPU libraries" only repeats what the lines above it said, and "Could not
    // create cudnn handle" follows from a cuDNN of the wrong version: fold such lines into the
    // finding they follow from, and keep them alone only when the log lost those lines.
    static const QStringList summaryTargets{u"missing_cuda_runtime"_s, u"missing_cudnn"_s, u"no_gpu_or_driver"_s,
                                            u"cuda_version_mismatch"_s};
    for (auto it = dependent.crbegin(); it != dependent.crend(); ++it) {
        const qsizetype at = it->first;
        const QStringList &targets = it->second->summaryOnly ? summaryTargets : it->second->foldsInto;
        for (qsizetype i = 0; i < findings.size(); ++i) {
            if (i == at || findings[i].severity != Severity::Error || !targets.contains(findings[i].cause))
                continue;
            findings[i].evidence.append(findings[at].evidence);
            findings.removeAt(at);
            break;
        }
    }

    // Native Windows after its last GPU release: TensorFlow says nothing about CUDA, it just lists
    // no GPU. Named only when the log shows TensorFlow without a GPU (an empty GPU list, a build
    // without CUDA), never for any Windows log of a new TensorFlow: a log about something else,
    // or a harmless one, is not a GPU problem.
    const bool noGpuAnswer = (machine.gpuListEmpty || machine.builtWithoutCuda) && !machine.gpuDeviceCreated;
    const bool alreadyNamed = std::any_of(findings.cbegin(), findings.cend(), [](const DoctorFinding &f) {
        return f.cause == u"windows_native_gpu_unsupported";
    });
    if (noGpuAnswer && !context.cpuOnly && !alreadyNamed && !context.windowsNativeLastGpu.isEmpty()) {
        DoctorFinding f;
        if (platform == u"windows" && pastNativeGpu) {
            f = m_causes.finding(u"windows_native_gpu_unsupported"_s, {},
                                 {{u"tensorflow"_s, tensorflow}, {u"last"_s, context.windowsNativeLastGpu}});
            f.id = u"windows_native_gpu_unsupported:"_s + tensorflow;
        } else if (machine.platform != u"linux" && !machine.wsl && !machine.macos && !machine.cudaMessages
                   && !machine.gpuSeen && (tensorflow.isEmpty() || pastNativeGpu)
                   && (platform != u"linux" || machine.builtWithoutCuda
                       || (machine.platform.isEmpty() && !context.platformConfirmed))) {
            // Silence about CUDA is the mark: TensorFlow on Linux (or up to the last native GPU
            // release on Windows) prints why it found no GPU; later ones on native Windows do not.
            f = m_causes.finding(u"windows_native_gpu_unsupported"_s, u"likely"_s,
                                 {{u"last"_s, context.windowsNativeLastGpu}});
            f.id = u"windows_native_gpu_unsupported"_s;
            f.severity = Severity::Warning;
        }
        if (!f.cause.isEmpty()) {
            f.evidence = machine.evidence;
            if (machine.tensorflow.isEmpty() && !tensorflow.isEmpty())
                f.evidence.append(u"tensorflow %1 (the environment)"_s.arg(tensorflow));
            findings.append(std::move(f));
        }
    }
    sortFindings(findings);
    return findings;
}

} // namespace tfsetup::core
