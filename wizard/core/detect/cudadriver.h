#pragma once

#include "detect/hardwarereport.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// What the CUDA driver API (libcuda / nvcuda.dll) says: the CUDA version the driver supports
// and the devices CUDA programs, TensorFlow among them, will see.
struct CudaDriverProbe {
    int driverVersion = 0;      // cuDriverGetVersion: 12020 = CUDA 12.2; 0 when unknown
    QList<GpuInfo> gpus;        // source "cuda-driver"
    std::optional<Error> error; // why the probe stopped; what was read before stays filled
};

// The name a program passes to the loader: libcuda.so.1 / nvcuda.dll.
QString cudaDriverLibraryName(OsFamily os);

// Calls cuInit and reads every device. Touches nothing but the library, so it may run on a
// worker thread.
CudaDriverProbe probeCudaDriver(SharedLibrary &library);

// "CUDA_ERROR_NO_DEVICE" for 100; "CUDA error 12345" for codes not in the table.
QString cudaErrorName(int code);

// 12020 → "12.2", 11080 → "11.8" (major * 1000 + minor * 10); empty for 0 or less.
QString cudaVersionString(int version);

} // namespace tfsetup::core
