#include "detect/scanners.h"

#include "catalog/knowledge.h"
#include "detect/cudadriver.h"
#include "detect/nvidiasmi.h"
#include "detect/nvml.h"
#include "detect/pciscan.h"

#include <QCoro/QCoroFuture>
#include <QCoro/QCoroSignal>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <functional>
#include <memory>

namespace tfsetup::core {

namespace {

const QString nvidiaVendor = QStringLiteral("nvidia");

void addProblem(HardwareReport &report, const QString &method, const QString &error)
{
    report.problems.append(Problem{method, error});
}

void addProblem(HardwareReport &report, const QString &method, const Error &error)
{
    addProblem(report, method, error.detail.isEmpty() ? error.code : error.code + QLatin1String(": ") + error.detail);
}

// Library probes call into the driver, which can stall (a GPU that fell off the bus, a driver
// being updated): run them on the pool and stop waiting after the timeout. The work owns what
// it touches, so abandoning it is safe.
template<typename T>
QCoro::Task<std::optional<T>> runOffThread(std::function<T()> work, std::chrono::milliseconds timeout)
{
    QFuture<T> future = QtConcurrent::run(std::move(work));
    QFutureWatcher<T> watcher;
    watcher.setFuture(future);
    if (!future.isFinished())
        co_await qCoro(&watcher, &QFutureWatcher<T>::finished, timeout);
    if (!future.isFinished())
        co_return std::nullopt;
    co_return future.result();
}

// "00000000:01:00.0" (NVML, nvidia-smi), "0000:01:00.0" (CUDA, sysfs) → "01:00.0".
QString busKey(const QString &busId)
{
    const QStringList parts = busId.trimmed().toLower().split(u':');
    if (parts.size() < 2)
        return {};
    return parts.at(parts.size() - 2).right(2).rightJustified(2, u'0') + u':' + parts.last();
}

void fillMissing(GpuInfo &gpu, const GpuInfo &more)
{
    if (gpu.name.isEmpty())
        gpu.name = more.name;
    if (gpu.computeCapability.isEmpty())
        gpu.computeCapability = more.computeCapability;
    if (gpu.memoryMiB < 0)
        gpu.memoryMiB = more.memoryMiB;
    if (gpu.pciId.isEmpty())
        gpu.pciId = more.pciId;
    if (gpu.pciBusId.isEmpty())
        gpu.pciBusId = more.pciBusId;
    if (gpu.uuid.isEmpty())
        gpu.uuid = more.uuid;
}

// The first method that lists GPUs provides them; later ones only fill fields still empty,
// matched by PCI bus id, then UUID, then position when both list the same number.
void mergeGpus(QList<GpuInfo> &gpus, const QList<GpuInfo> &more)
{
    if (gpus.isEmpty()) {
        gpus = more;
        return;
    }
    for (qsizetype i = 0; i < more.size(); ++i) {
        const GpuInfo &m = more.at(i);
        GpuInfo *target = nullptr;
        for (GpuInfo &g : gpus) {
            const QString key = busKey(g.pciBusId);
            if ((!key.isEmpty() && key == busKey(m.pciBusId)) || (!g.uuid.isEmpty() && g.uuid == m.uuid)) {
                target = &g;
                break;
            }
        }
        if (!target && gpus.size() == more.size())
            target = &gpus[i];
        if (target)
            fillMissing(*target, m);
    }
}

// "Answered": at least one GPU, every GPU with name, compute capability and memory, and the
// driver with its version and the CUDA version it supports. An empty list is never an answer: a
// GPU NVML cannot open may still be one CUDA sees.
bool needsMore(const QList<GpuInfo> &gpus, const DriverInfo &driver)
{
    if (gpus.isEmpty() || driver.version.isEmpty() || driver.cuda.isEmpty())
        return true;
    return std::any_of(gpus.cbegin(), gpus.cend(), [](const GpuInfo &g) {
        return g.computeCapability.isEmpty() || g.memoryMiB < 0 || g.name.isEmpty();
    });
}

void noteDriver(DriverInfo &driver, const QString &version, const QString &cuda, const QString &source)
{
    if (driver.version.isEmpty() && !version.isEmpty()) {
        driver.version = version;
        driver.source = source;
    }
    if (driver.cuda.isEmpty() && !cuda.isEmpty()) {
        driver.cuda = cuda;
        if (driver.source.isEmpty())
            driver.source = source;
    }
}

QString smiProgram(const SystemView &system)
{
    const QString found = system.findExecutable(QStringLiteral("nvidia-smi"));
    if (!found.isEmpty() || system.os() != OsFamily::Windows)
        return found;
    // The driver installs nvidia-smi into System32 (current drivers) or NVSMI (older ones),
    // neither of which needs to be on PATH.
    const QStringList candidates = {QStringLiteral("C:/Windows/System32/nvidia-smi.exe"),
                                    QStringLiteral("C:/Program Files/NVIDIA Corporation/NVSMI/nvidia-smi.exe")};
    for (const QString &c : candidates) {
        if (system.isFile(c))
            return c;
    }
    return {};
}

QString processFailure(const ProcessResult &r)
{
    if (!r.started || r.timedOut)
        return r.error;
    return QStringLiteral("exit code %1").arg(r.exitCode);
}

QCoro::Task<void> scanNvidiaSmi(SystemView &system, HardwareReport &report, QList<GpuInfo> &gpus, DriverInfo &driver,
                                std::chrono::milliseconds timeout)
{
    const QString method = QStringLiteral("nvidia-smi");
    const QString program = smiProgram(system);
    if (program.isEmpty()) {
        addProblem(report, method, QStringLiteral("nvidia-smi not found"));
        co_return;
    }
    bool withCapability = true;
    ProcessResult r = co_await system.run(program, nvidiasmi::queryArguments(true), timeout);
    if (r.started && !r.timedOut && nvidiasmi::isUnknownFieldError(r.standardOutput + r.standardError)) {
        // Drivers before compute_cap existed reject the whole query; ask again without it.
        withCapability = false;
        r = co_await system.run(program, nvidiasmi::queryArguments(false), timeout);
    }
    if (!r.started || r.timedOut) {
        addProblem(report, method, processFailure(r));
        co_return;
    }
    const QByteArray output = r.exitCode == 0 ? r.standardOutput : r.standardOutput + '\n' + r.standardError;
    const auto parsed = nvidiasmi::parseQueryCsv(output, nvidiasmi::queryFields(withCapability));
    if (!parsed) {
        addProblem(report, method, parsed.error());
    } else {
        QList<GpuInfo> found;
        for (const nvidiasmi::SmiGpu &s : parsed.value()) {
            GpuInfo g;
            g.vendor = nvidiaVendor;
            g.name = s.name;
            g.computeCapability = s.computeCapability;
            g.memoryMiB = s.memoryMiB;
            g.pciId = s.pciId;
            g.pciBusId = s.pciBusId;
            g.uuid = s.uuid;
            g.source = method;
            found.append(g);
            noteDriver(driver, s.driverVersion, {}, method);
        }
        mergeGpus(gpus, found);
    }
    if (!driver.cuda.isEmpty() || !parsed)
        co_return;
    // Only the banner of plain nvidia-smi tells the CUDA version the driver supports.
    const ProcessResult banner = co_await system.run(program, {}, timeout);
    if (!banner.started || banner.timedOut) {
        addProblem(report, method, processFailure(banner));
        co_return;
    }
    const auto header = nvidiasmi::parseHeader(banner.standardOutput + banner.standardError);
    if (!header) {
        addProblem(report, method, header.error());
        co_return;
    }
    noteDriver(driver, header->driverVersion, header->cudaVersion, method);
}

} // namespace

QCoro::Task<void> scanGpus(SystemView &system, HardwareReport &report, DetectOptions options)
{
    const OsFamily os = system.os();
    if (os == OsFamily::MacOS)
        co_return; // no NVIDIA driver for current macOS; Apple GPUs are not CUDA devices
    QList<GpuInfo> gpus;
    DriverInfo driver;

    // 1. NVML.
    {
        const QString method = QStringLiteral("nvml");
        LibraryLoad load = system.loadLibrary(nvmlLibraryName(os));
        if (!load.library) {
            addProblem(report, method, QStringLiteral("nvml_library_missing: ") + load.error);
        } else {
            std::shared_ptr<SharedLibrary> library = std::move(load.library);
            // Named, not a temporary: g++ 12 destroys temporaries of a co_await expression twice.
            std::function<NvmlProbe()> work1 = [library] { return probeNvml(*library); };
            const auto probe = co_await runOffThread<NvmlProbe>(std::move(work1), options.processTimeout);
            if (!probe) {
                addProblem(report, method, QStringLiteral("timed out after %1 ms").arg(options.processTimeout.count()));
            } else {
                mergeGpus(gpus, probe->gpus);
                noteDriver(driver, probe->driverVersion, cudaVersionString(probe->cudaDriverVersion), method);
                if (probe->error)
                    addProblem(report, method, *probe->error);
            }
        }
    }

    // 2. CUDA driver API, only for what NVML left open: cuInit alone costs a real driver far more
    // (185 ms on an H200, driver 580) than NVML's whole exchange (25 ms). Not asked, not listed.
    if (needsMore(gpus, driver)) {
        const QString method = QStringLiteral("cuda-driver");
        LibraryLoad load = system.loadLibrary(cudaDriverLibraryName(os));
        if (!load.library) {
            addProblem(report, method, QStringLiteral("cuda_library_missing: ") + load.error);
        } else {
            std::shared_ptr<SharedLibrary> library = std::move(load.library);
            std::function<CudaDriverProbe()> work2 = [library] { return probeCudaDriver(*library); };
            const auto probe = co_await runOffThread<CudaDriverProbe>(std::move(work2), options.processTimeout);
            if (!probe) {
                addProblem(report, method, QStringLiteral("timed out after %1 ms").arg(options.processTimeout.count()));
            } else {
                mergeGpus(gpus, probe->gpus);
                noteDriver(driver, {}, cudaVersionString(probe->driverVersion), method);
                if (probe->error)
                    addProblem(report, method, *probe->error);
            }
        }
    }

    // 3. nvidia-smi, when the libraries left something open.
    if (needsMore(gpus, driver))
        co_await scanNvidiaSmi(system, report, gpus, driver, options.processTimeout);

    // 4. PCI ids: every display adapter, with or without a driver.
    const QList<PciDisplayDevice> devices = scanDisplayDevices(system);
    const bool haveNvidia = !gpus.isEmpty();
    QList<GpuInfo> others;
    QList<GpuInfo> nvidiaFromBus;
    for (const PciDisplayDevice &d : devices) {
        GpuInfo g;
        g.vendor = gpuVendorName(d.vendorId);
        if (g.vendor.isEmpty())
            continue; // virtual adapters (VMware, Red Hat QXL, Microsoft Basic Display)
        g.name = d.name;
        g.pciId = d.pciId();
        g.pciBusId = d.busId;
        g.source = d.source;
        if (g.vendor != nvidiaVendor) {
            others.append(g);
            continue;
        }
        if (!d.driverVersion.isEmpty())
            noteDriver(driver, nvidiaVersionFromWindows(d.driverVersion), {}, d.source);
        nvidiaFromBus.append(g);
    }
    if (haveNvidia) {
        // The registry has no bus ids: match a lone adapter, or adapters by name.
        for (const GpuInfo &b : std::as_const(nvidiaFromBus)) {
            for (GpuInfo &g : gpus) {
                const bool sameBus = !b.pciBusId.isEmpty() && busKey(b.pciBusId) == busKey(g.pciBusId);
                const bool sameName = !b.name.isEmpty() && b.name.compare(g.name, Qt::CaseInsensitive) == 0;
                const bool lone = nvidiaFromBus.size() == 1 && gpus.size() == 1;
                if (sameBus || sameName || lone) {
                    if (g.pciId.isEmpty())
                        g.pciId = b.pciId;
                    break;
                }
            }
        }
    } else {
        gpus = nvidiaFromBus;
    }
    if (os == OsFamily::Linux && driver.version.isEmpty()) {
        // The loaded kernel module states its version even when user-space tools are missing.
        if (const auto v = system.readFile(QStringLiteral("/sys/module/nvidia/version"), 64))
            noteDriver(driver, QString::fromLatin1(*v).trimmed(), {}, QStringLiteral("kernel-module"));
    }

    // 5. The GPU table fills name and compute capability the methods could not read.
    const bool anyIncomplete = std::any_of(
        gpus.cbegin(), gpus.cend(), [](const GpuInfo &g) { return g.computeCapability.isEmpty() || g.name.isEmpty(); });
    if (anyIncomplete) {
        const std::shared_ptr<const Knowledge> knowledge = options.knowledge;
        if (!knowledge)
            addProblem(report, QStringLiteral("gpu-table"), Knowledge::notGiven());
        if (knowledge) {
            const GpuTable *table = &knowledge->gpus;
            for (GpuInfo &g : gpus) {
                std::optional<GpuRecord> record = g.pciId.isEmpty() ? std::nullopt : table->byPciId(g.pciId);
                if (!record && !g.name.isEmpty())
                    record = table->byName(g.name);
                if (!record)
                    continue;
                if (g.name.isEmpty())
                    g.name = QStringLiteral("NVIDIA ") + record->name;
                if (g.computeCapability.isEmpty())
                    g.computeCapability = record->computeCapability;
            }
        }
    }

    report.gpus = gpus + others;
    if (!driver.version.isEmpty() || !driver.cuda.isEmpty())
        report.driver = driver;
    co_return;
}

} // namespace tfsetup::core
