#include "detect/cudadriver.h"

#include <QCoreApplication>

#include <cstddef>

// cuda.h declares every entry point CUDAAPI, which is __stdcall on 32-bit Windows and the
// default convention everywhere else.
#if defined(_WIN32) && !defined(_WIN64)
#define TFSETUP_CUDAAPI __stdcall
#else
#define TFSETUP_CUDAAPI
#endif

namespace tfsetup::core {

namespace {

// The few driver API declarations tfsetup uses, from NVIDIA's public cuda.h.
using CUresult = int;
using CUdevice = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int nameBufferSize = 256;
constexpr int busIdBufferSize = 64;

using InitFn = CUresult(TFSETUP_CUDAAPI *)(unsigned int);
using VersionFn = CUresult(TFSETUP_CUDAAPI *)(int *);
using CountFn = CUresult(TFSETUP_CUDAAPI *)(int *);
using GetFn = CUresult(TFSETUP_CUDAAPI *)(CUdevice *, int);
using NameFn = CUresult(TFSETUP_CUDAAPI *)(char *, int, CUdevice);
using TotalMemFn = CUresult(TFSETUP_CUDAAPI *)(std::size_t *, CUdevice);
using AttributeFn = CUresult(TFSETUP_CUDAAPI *)(int *, int, CUdevice);
using BusIdFn = CUresult(TFSETUP_CUDAAPI *)(char *, int, CUdevice);
using ErrorNameFn = CUresult(TFSETUP_CUDAAPI *)(CUresult, const char **);

template<typename Fn>
Fn symbol(SharedLibrary &library, const char *name)
{
    return reinterpret_cast<Fn>(library.resolve(name));
}

QString errorText(CUresult rc, ErrorNameFn errorName)
{
    // The driver's own name covers codes newer than tfsetup's table.
    const char *name = nullptr;
    if (errorName && errorName(rc, &name) == CUDA_SUCCESS && name)
        return QStringLiteral("%1 (%2)").arg(QString::fromLatin1(name)).arg(rc);
    return QStringLiteral("%1 (%2)").arg(cudaErrorName(rc)).arg(rc);
}

} // namespace

QString cudaDriverLibraryName(OsFamily os)
{
    return os == OsFamily::Windows ? QStringLiteral("nvcuda.dll") : QStringLiteral("libcuda.so.1");
}

QString cudaErrorName(int code)
{
    // CUresult values from cuda.h; the ones a probe of an installed driver can meet.
    switch (code) {
    case 0: return QStringLiteral("CUDA_SUCCESS");
    case 1: return QStringLiteral("CUDA_ERROR_INVALID_VALUE");
    case 2: return QStringLiteral("CUDA_ERROR_OUT_OF_MEMORY");
    case 3: return QStringLiteral("CUDA_ERROR_NOT_INITIALIZED");
    case 4: return QStringLiteral("CUDA_ERROR_DEINITIALIZED");
    case 34: return QStringLiteral("CUDA_ERROR_STUB_LIBRARY");
    case 35: return QStringLiteral("CUDA_ERROR_INSUFFICIENT_DRIVER");
    case 46: return QStringLiteral("CUDA_ERROR_DEVICE_UNAVAILABLE");
    case 100: return QStringLiteral("CUDA_ERROR_NO_DEVICE");
    case 101: return QStringLiteral("CUDA_ERROR_INVALID_DEVICE");
    case 102: return QStringLiteral("CUDA_ERROR_DEVICE_NOT_LICENSED");
    case 999: return QStringLiteral("CUDA_ERROR_UNKNOWN");
    default: return QStringLiteral("CUDA error %1").arg(code);
    }
}

QString cudaVersionString(int version)
{
    if (version <= 0)
        return {};
    return QStringLiteral("%1.%2").arg(version / 1000).arg((version % 1000) / 10);
}

CudaDriverProbe probeCudaDriver(SharedLibrary &library)
{
    CudaDriverProbe probe;
    const auto init = symbol<InitFn>(library, "cuInit");
    const auto driverVersion = symbol<VersionFn>(library, "cuDriverGetVersion");
    const auto deviceCount = symbol<CountFn>(library, "cuDeviceGetCount");
    const auto deviceGet = symbol<GetFn>(library, "cuDeviceGet");
    const auto deviceName = symbol<NameFn>(library, "cuDeviceGetName");
    const auto totalMem = symbol<TotalMemFn>(library, "cuDeviceTotalMem_v2");
    const auto attribute = symbol<AttributeFn>(library, "cuDeviceGetAttribute");
    const auto busId = symbol<BusIdFn>(library, "cuDeviceGetPCIBusId");
    const auto errorName = symbol<ErrorNameFn>(library, "cuGetErrorName"); // optional

    const std::pair<const void *, const char *> required[] = {
        {reinterpret_cast<const void *>(init), "cuInit"},
        {reinterpret_cast<const void *>(driverVersion), "cuDriverGetVersion"},
        {reinterpret_cast<const void *>(deviceCount), "cuDeviceGetCount"},
        {reinterpret_cast<const void *>(deviceGet), "cuDeviceGet"},
        {reinterpret_cast<const void *>(deviceName), "cuDeviceGetName"},
        {reinterpret_cast<const void *>(totalMem), "cuDeviceTotalMem_v2"},
        {reinterpret_cast<const void *>(attribute), "cuDeviceGetAttribute"},
        {reinterpret_cast<const void *>(busId), "cuDeviceGetPCIBusId"},
    };
    for (const auto &[address, name] : required) {
        if (!address) {
            probe.error = Error{QStringLiteral("cuda_symbol_missing"),
                                QCoreApplication::translate("CudaDriver",
                                                            "The NVIDIA driver's CUDA library is too old "
                                                            "or damaged. Update or reinstall the NVIDIA "
                                                            "driver."),
                                QStringLiteral("symbol %1 not found").arg(QString::fromLatin1(name))};
            return probe;
        }
    }

    // cuDriverGetVersion works before cuInit, so the supported CUDA version is known even when
    // initialisation then fails (no device, driver too old for the GPU).
    int version = 0;
    if (driverVersion(&version) == CUDA_SUCCESS && version > 0)
        probe.driverVersion = version;

    if (const CUresult rc = init(0); rc != CUDA_SUCCESS) {
        probe.error = Error{QStringLiteral("cuda_init_failed"),
                            QCoreApplication::translate("CudaDriver",
                                                        "CUDA cannot start on this computer. Make sure "
                                                        "an NVIDIA GPU is present and enabled, and "
                                                        "install or update its driver."),
                            QStringLiteral("cuInit returned %1").arg(errorText(rc, errorName))};
        return probe;
    }
    int count = 0;
    if (const CUresult rc = deviceCount(&count); rc != CUDA_SUCCESS) {
        probe.error = Error{QStringLiteral("cuda_query_failed"),
                            QCoreApplication::translate("CudaDriver",
                                                        "CUDA could not list the GPUs. Restart the "
                                                        "computer; if that does not help, reinstall "
                                                        "the NVIDIA driver."),
                            QStringLiteral("cuDeviceGetCount returned %1").arg(errorText(rc, errorName))};
        return probe;
    }
    for (int i = 0; i < count; ++i) {
        CUdevice device = 0;
        if (deviceGet(&device, i) != CUDA_SUCCESS)
            continue;
        GpuInfo gpu;
        gpu.vendor = QStringLiteral("nvidia");
        gpu.source = QStringLiteral("cuda-driver");
        char name[nameBufferSize] = {};
        if (deviceName(name, nameBufferSize, device) == CUDA_SUCCESS)
            gpu.name = QString::fromUtf8(name, qstrnlen(name, nameBufferSize)).trimmed();
        std::size_t bytes = 0;
        if (totalMem(&bytes, device) == CUDA_SUCCESS)
            gpu.memoryMiB = qint64(bytes / (1024u * 1024u));
        int major = 0;
        int minor = 0;
        if (attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS
            && attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS && major > 0)
            gpu.computeCapability = QStringLiteral("%1.%2").arg(major).arg(minor);
        char bus[busIdBufferSize] = {};
        if (busId(bus, busIdBufferSize, device) == CUDA_SUCCESS)
            gpu.pciBusId = QString::fromLatin1(bus, qstrnlen(bus, busIdBufferSize)).trimmed();
        probe.gpus.append(gpu);
    }
    return probe;
}

} // namespace tfsetup::core
