#include "detect/detector.h"

#include "detect/scanners.h"

namespace tfsetup::core {

QCoro::Task<HardwareReport> detectHardware(SystemView &system, DetectOptions options)
{
    HardwareReport report;
    // GPU and Python scans wait on the driver and on external programs; run them side by side
    // with each other and with the file scans. QCoro tasks start eagerly: the GPU scan runs up to
    // its first wait (the NVML probe, on the pool) before the file scans start.
    HardwareReport gpuPart;
    HardwareReport pythonPart;
    auto gpuTask = scanGpus(system, gpuPart, options);
    scanOs(system, report);
    scanCpu(system, report);
    scanCudaToolkits(system, report);
    scanCudnn(system, report);
    if (system.os() == OsFamily::Windows)
        scanMsvcRuntime(system, report);
    if (options.scanPythons)
        co_await scanPythons(system, pythonPart, options);
    co_await gpuTask;
    report.gpus = gpuPart.gpus;
    report.driver = gpuPart.driver;
    report.pythons = pythonPart.pythons;
    report.problems += gpuPart.problems;
    report.problems += pythonPart.problems;
    co_return report;
}

} // namespace tfsetup::core
