#pragma once

#include "detect/hardwarereport.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// What NVIDIA's management library (NVML) says about the driver and its GPUs.
struct NvmlProbe {
    QString driverVersion;      // "535.104.05"
    int cudaDriverVersion = 0;  // 12020 = CUDA 12.2; 0 when unknown
    QList<GpuInfo> gpus;        // source "nvml"
    std::optional<Error> error; // why the probe stopped; what was read before stays filled
};

// The name a program passes to the loader: libnvidia-ml.so.1 / nvml.dll.
QString nvmlLibraryName(OsFamily os);

// Initialises NVML from an already loaded library, reads every device and shuts NVML down
// again. Touches nothing but the library, so it may run on a worker thread.
NvmlProbe probeNvml(SharedLibrary &library);

} // namespace tfsetup::core
