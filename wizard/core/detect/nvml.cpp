#include "detect/nvml.h"

#include <QCoreApplication>

namespace tfsetup::core {

namespace {

// The few NVML types and entry points tfsetup uses, declared from NVIDIA's public nvml.h so
// that no NVIDIA header is needed to build. Layouts must match it exactly.
using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st *;

struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct nvmlPciInfo_t {
    char busIdLegacy[16]; // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; // device id in the high 16 bits, vendor id in the low 16
    unsigned int pciSubSystemId;
    char busId[32]; // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
};

constexpr nvmlReturn_t NVML_SUCCESS = 0;
// Larger than NVML's own buffer sizes (name 96, UUID 96, driver version 80): NVML fails with
// NVML_ERROR_INSUFFICIENT_SIZE on buffers that are too small, never on ones that are too big.
constexpr unsigned int textBufferSize = 256;

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char *(*)(nvmlReturn_t);
using CountFn = nvmlReturn_t (*)(unsigned int *);
using HandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t *);
using TextFn = nvmlReturn_t (*)(nvmlDevice_t, char *, unsigned int);
using MemoryFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t *);
using PciFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t *);
using CapabilityFn = nvmlReturn_t (*)(nvmlDevice_t, int *, int *);
using DriverVersionFn = nvmlReturn_t (*)(char *, unsigned int);
using CudaVersionFn = nvmlReturn_t (*)(int *);

struct Api {
    InitFn init = nullptr;
    ShutdownFn shutdown = nullptr;
    ErrorStringFn errorString = nullptr; // optional
    CountFn deviceCount = nullptr;
    HandleFn handleByIndex = nullptr;
    TextFn name = nullptr;
    MemoryFn memory = nullptr;
    PciFn pciInfo = nullptr;
    TextFn uuid = nullptr;
    CapabilityFn capability = nullptr;
    DriverVersionFn driverVersion = nullptr;
    CudaVersionFn cudaVersion = nullptr;
};

template<typename Fn>
Fn symbol(SharedLibrary &library, const char *name)
{
    return reinterpret_cast<Fn>(library.resolve(name));
}

// nvmlShutdown pairs with a successful nvmlInit_v2, whatever path leaves the probe.
class Session {
public:
    explicit Session(const Api &api)
        : m_api(api)
    {}
    ~Session()
    {
        if (m_initialized)
            m_api.shutdown();
    }
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    nvmlReturn_t init()
    {
        const nvmlReturn_t rc = m_api.init();
        m_initialized = rc == NVML_SUCCESS;
        return rc;
    }

private:
    const Api &m_api;
    bool m_initialized = false;
};

QString text(const char *buffer)
{
    return QString::fromUtf8(buffer, qstrnlen(buffer, textBufferSize)).trimmed();
}

QString returnName(const Api &api, nvmlReturn_t rc)
{
    const char *s = api.errorString ? api.errorString(rc) : nullptr;
    return s ? QStringLiteral("%1 (%2)").arg(QString::fromUtf8(s)).arg(rc) : QStringLiteral("NVML error %1").arg(rc);
}

Error missingSymbol(const QString &name)
{
    return Error{QStringLiteral("nvml_symbol_missing"),
                 QCoreApplication::translate("Nvml",
                                             "The NVIDIA management library is too old or damaged. Update or "
                                             "reinstall the NVIDIA driver."),
                 QStringLiteral("symbol %1 not found").arg(name)};
}

} // namespace

QString nvmlLibraryName(OsFamily os)
{
    return os == OsFamily::Windows ? QStringLiteral("nvml.dll") : QStringLiteral("libnvidia-ml.so.1");
}

NvmlProbe probeNvml(SharedLibrary &library)
{
    NvmlProbe probe;
    Api api;
    api.init = symbol<InitFn>(library, "nvmlInit_v2");
    api.shutdown = symbol<ShutdownFn>(library, "nvmlShutdown");
    api.errorString = symbol<ErrorStringFn>(library, "nvmlErrorString");
    api.deviceCount = symbol<CountFn>(library, "nvmlDeviceGetCount_v2");
    api.handleByIndex = symbol<HandleFn>(library, "nvmlDeviceGetHandleByIndex_v2");
    api.name = symbol<TextFn>(library, "nvmlDeviceGetName");
    api.memory = symbol<MemoryFn>(library, "nvmlDeviceGetMemoryInfo");
    api.pciInfo = symbol<PciFn>(library, "nvmlDeviceGetPciInfo_v3");
    if (!api.pciInfo) // drivers before the _v3 entry point
        api.pciInfo = symbol<PciFn>(library, "nvmlDeviceGetPciInfo_v2");
    api.uuid = symbol<TextFn>(library, "nvmlDeviceGetUUID");
    api.capability = symbol<CapabilityFn>(library, "nvmlDeviceGetCudaComputeCapability");
    api.driverVersion = symbol<DriverVersionFn>(library, "nvmlSystemGetDriverVersion");
    api.cudaVersion = symbol<CudaVersionFn>(library, "nvmlSystemGetCudaDriverVersion_v2");

    const std::pair<const void *, const char *> required[] = {
        {reinterpret_cast<const void *>(api.init), "nvmlInit_v2"},
        {reinterpret_cast<const void *>(api.shutdown), "nvmlShutdown"},
        {reinterpret_cast<const void *>(api.deviceCount), "nvmlDeviceGetCount_v2"},
        {reinterpret_cast<const void *>(api.handleByIndex), "nvmlDeviceGetHandleByIndex_v2"},
        {reinterpret_cast<const void *>(api.name), "nvmlDeviceGetName"},
        {reinterpret_cast<const void *>(api.memory), "nvmlDeviceGetMemoryInfo"},
        {reinterpret_cast<const void *>(api.pciInfo), "nvmlDeviceGetPciInfo_v3"},
        {reinterpret_cast<const void *>(api.uuid), "nvmlDeviceGetUUID"},
        {reinterpret_cast<const void *>(api.capability), "nvmlDeviceGetCudaComputeCapability"},
        {reinterpret_cast<const void *>(api.driverVersion), "nvmlSystemGetDriverVersion"},
        {reinterpret_cast<const void *>(api.cudaVersion), "nvmlSystemGetCudaDriverVersion_v2"},
    };
    for (const auto &[address, name] : required) {
        if (!address) {
            probe.error = missingSymbol(QString::fromLatin1(name));
            return probe;
        }
    }

    Session session(api);
    if (const nvmlReturn_t rc = session.init(); rc != NVML_SUCCESS) {
        probe.error = Error{QStringLiteral("nvml_init_failed"),
                            QCoreApplication::translate("Nvml",
                                                        "The NVIDIA driver did not answer. Install or "
                                                        "reinstall the NVIDIA driver and restart the computer."),
                            QStringLiteral("nvmlInit_v2 returned %1").arg(returnName(api, rc))};
        return probe;
    }

    char buffer[textBufferSize] = {};
    if (api.driverVersion(buffer, textBufferSize) == NVML_SUCCESS)
        probe.driverVersion = text(buffer);
    int cudaVersion = 0;
    if (api.cudaVersion(&cudaVersion) == NVML_SUCCESS && cudaVersion > 0)
        probe.cudaDriverVersion = cudaVersion;

    unsigned int count = 0;
    if (const nvmlReturn_t rc = api.deviceCount(&count); rc != NVML_SUCCESS) {
        probe.error = Error{QStringLiteral("nvml_query_failed"),
                            QCoreApplication::translate("Nvml",
                                                        "The NVIDIA driver could not list the GPUs. Restart "
                                                        "the computer; if that does not help, reinstall the "
                                                        "NVIDIA driver."),
                            QStringLiteral("nvmlDeviceGetCount_v2 returned %1").arg(returnName(api, rc))};
        return probe;
    }
    for (unsigned int i = 0; i < count; ++i) {
        nvmlDevice_t device = nullptr;
        if (api.handleByIndex(i, &device) != NVML_SUCCESS)
            continue; // a device NVML may not open (no permission, fallen off the bus)
        GpuInfo gpu;
        gpu.vendor = QStringLiteral("nvidia");
        gpu.source = QStringLiteral("nvml");
        char text1[textBufferSize] = {};
        if (api.name(device, text1, textBufferSize) == NVML_SUCCESS)
            gpu.name = text(text1);
        char text2[textBufferSize] = {};
        if (api.uuid(device, text2, textBufferSize) == NVML_SUCCESS)
            gpu.uuid = text(text2);
        nvmlMemory_t memory{};
        if (api.memory(device, &memory) == NVML_SUCCESS)
            gpu.memoryMiB = qint64(memory.total / (1024ull * 1024ull));
        nvmlPciInfo_t pci{};
        if (api.pciInfo(device, &pci) == NVML_SUCCESS) {
            gpu.pciBusId = text(pci.busId);
            gpu.pciId = QStringLiteral("%1:%2")
                            .arg(pci.pciDeviceId & 0xffffu, 4, 16, QLatin1Char('0'))
                            .arg(pci.pciDeviceId >> 16, 4, 16, QLatin1Char('0'));
        }
        int major = 0;
        int minor = 0;
        if (api.capability(device, &major, &minor) == NVML_SUCCESS && major > 0)
            gpu.computeCapability = QStringLiteral("%1.%2").arg(major).arg(minor);
        probe.gpus.append(gpu);
    }
    return probe;
}

} // namespace tfsetup::core
