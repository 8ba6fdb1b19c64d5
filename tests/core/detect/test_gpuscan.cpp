#include "detect/cudadriver.h"
#include "detect/nvml.h"
#include "detect/pciscan.h"
#include "detect/scanners.h"
#include "system/realsystem.h"
#include "system/rootedsystem.h"
#include "support/shippedknowledge.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstddef>
#include <cstring>

using namespace tfsetup::core;

// Stand-ins for the NVIDIA driver's C entry points. They imitate the ABI nvml.h and cuda.h
// declare (int return codes, out-parameters, the same struct layouts), so the probes call
// them exactly as they would call the real driver.
namespace fake {

struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
struct NvmlPciInfo {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
};
struct NvmlDevice;

int nvmlInits = 0;
int nvmlShutdowns = 0;
int cuInitResult = 0;
int cuInits = 0;
// What the fake NVML leaves unanswered, as a driver without the field or a GPU that does not
// report it would (NVML_ERROR_NOT_SUPPORTED = 3).
bool nvmlNoName = false;
bool nvmlNoMemory = false;
bool nvmlNoCapability = false;
bool nvmlNoDriverVersion = false;
bool nvmlNoCudaVersion = false;
constexpr int nvmlNotSupported = 3;

int nvmlInit()
{
    ++nvmlInits;
    return 0;
}
int nvmlShutdown()
{
    ++nvmlShutdowns;
    return 0;
}
const char *nvmlErrorString(int)
{
    return "NVML_ERROR_TEST";
}
int nvmlDeviceGetCount(unsigned int *count)
{
    *count = 1;
    return 0;
}
int nvmlDeviceGetHandleByIndex(unsigned int index, NvmlDevice **device)
{
    *device = reinterpret_cast<NvmlDevice *>(std::uintptr_t(index + 1));
    return 0;
}
int nvmlDeviceGetName(NvmlDevice *, char *name, unsigned int length)
{
    if (nvmlNoName)
        return nvmlNotSupported;
    qstrncpy(name, "NVIDIA GeForce RTX 3060", length);
    return 0;
}
int nvmlDeviceGetUUID(NvmlDevice *, char *uuid, unsigned int length)
{
    qstrncpy(uuid, "GPU-11111111-2222-3333-4444-555555555555", length);
    return 0;
}
int nvmlDeviceGetMemoryInfo(NvmlDevice *, NvmlMemory *memory)
{
    if (nvmlNoMemory)
        return nvmlNotSupported;
    *memory = {12884901888ull, 12000000000ull, 884901888ull};
    return 0;
}
int nvmlDeviceGetPciInfo(NvmlDevice *, NvmlPciInfo *pci)
{
    std::memset(pci, 0, sizeof *pci);
    pci->bus = 1;
    pci->pciDeviceId = 0x250410de;
    qstrncpy(pci->busId, "00000000:01:00.0", sizeof pci->busId);
    return 0;
}
int nvmlDeviceGetCudaComputeCapability(NvmlDevice *, int *major, int *minor)
{
    if (nvmlNoCapability)
        return nvmlNotSupported;
    *major = 8;
    *minor = 6;
    return 0;
}
int nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    if (nvmlNoDriverVersion)
        return nvmlNotSupported;
    qstrncpy(version, "535.104.05", length);
    return 0;
}
int nvmlSystemGetCudaDriverVersion(int *version)
{
    if (nvmlNoCudaVersion)
        return nvmlNotSupported;
    *version = 12020;
    return 0;
}

int cuInit(unsigned int)
{
    ++cuInits;
    return cuInitResult;
}
int cuDriverGetVersion(int *version)
{
    *version = 12020;
    return 0;
}
int cuDeviceGetCount(int *count)
{
    *count = 1;
    return 0;
}
int cuDeviceGet(int *device, int ordinal)
{
    *device = ordinal;
    return 0;
}
int cuDeviceGetName(char *name, int length, int)
{
    qstrncpy(name, "NVIDIA GeForce RTX 3060", std::size_t(length));
    return 0;
}
int cuDeviceTotalMem(std::size_t *bytes, int)
{
    *bytes = 12884901888ull;
    return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int)
{
    *value = attribute == 75 ? 8 : attribute == 76 ? 6 : 0;
    return 0;
}
int cuDeviceGetPCIBusId(char *busId, int length, int)
{
    qstrncpy(busId, "0000:01:00.0", std::size_t(length));
    return 0;
}

using Symbols = QHash<QByteArray, void *>;

template<typename Fn>
void *address(Fn fn)
{
    return reinterpret_cast<void *>(fn);
}

Symbols nvml()
{
    return {{"nvmlInit_v2", address(&nvmlInit)},
            {"nvmlShutdown", address(&nvmlShutdown)},
            {"nvmlErrorString", address(&nvmlErrorString)},
            {"nvmlDeviceGetCount_v2", address(&nvmlDeviceGetCount)},
            {"nvmlDeviceGetHandleByIndex_v2", address(&nvmlDeviceGetHandleByIndex)},
            {"nvmlDeviceGetName", address(&nvmlDeviceGetName)},
            {"nvmlDeviceGetUUID", address(&nvmlDeviceGetUUID)},
            {"nvmlDeviceGetMemoryInfo", address(&nvmlDeviceGetMemoryInfo)},
            {"nvmlDeviceGetPciInfo_v3", address(&nvmlDeviceGetPciInfo)},
            {"nvmlDeviceGetCudaComputeCapability", address(&nvmlDeviceGetCudaComputeCapability)},
            {"nvmlSystemGetDriverVersion", address(&nvmlSystemGetDriverVersion)},
            {"nvmlSystemGetCudaDriverVersion_v2", address(&nvmlSystemGetCudaDriverVersion)}};
}

Symbols cuda()
{
    return {{"cuInit", address(&cuInit)},
            {"cuDriverGetVersion", address(&cuDriverGetVersion)},
            {"cuDeviceGetCount", address(&cuDeviceGetCount)},
            {"cuDeviceGet", address(&cuDeviceGet)},
            {"cuDeviceGetName", address(&cuDeviceGetName)},
            {"cuDeviceTotalMem_v2", address(&cuDeviceTotalMem)},
            {"cuDeviceGetAttribute", address(&cuDeviceGetAttribute)},
            {"cuDeviceGetPCIBusId", address(&cuDeviceGetPCIBusId)}};
}

class Library final : public SharedLibrary {
public:
    explicit Library(Symbols symbols)
        : m_symbols(std::move(symbols))
    {}
    void *resolve(const char *symbol) override { return m_symbols.value(QByteArray(symbol)); }
    QString path() const override { return QStringLiteral("fake"); }

private:
    Symbols m_symbols;
};

// A rooted system whose loader hands out the fake libraries registered by name.
class System final : public RootedSystem {
public:
    using RootedSystem::RootedSystem;
    QHash<QString, Symbols> libraries;
    QStringList loads; // every name asked for, in order

    LibraryLoad loadLibrary(const QString &name) override
    {
        loads.append(name);
        if (libraries.contains(name))
            return {std::make_unique<Library>(libraries.value(name)), {}};
        return RootedSystem::loadLibrary(name);
    }
};

} // namespace fake

namespace {

QString dataDir(const QString &name)
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + QLatin1String("/gpu/") + name;
}

HardwareReport scan(SystemView &system, KnowledgePtr knowledge = tfsetup::test::shippedKnowledge())
{
    HardwareReport report;
    DetectOptions options;
    options.processTimeout = std::chrono::seconds(2);
    options.knowledge = std::move(knowledge);
    QCoro::waitFor(scanGpus(system, report, options));
    return report;
}

QString problemFor(const HardwareReport &report, const QString &method)
{
    QStringList errors;
    for (const Problem &p : report.problems) {
        if (p.method == method)
            errors.append(p.error);
    }
    return errors.join(u'\n');
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

} // namespace

class TestGpuScan : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        fake::nvmlInits = 0;
        fake::nvmlShutdowns = 0;
        fake::cuInitResult = 0;
        fake::cuInits = 0;
        fake::nvmlNoName = false;
        fake::nvmlNoMemory = false;
        fake::nvmlNoCapability = false;
        fake::nvmlNoDriverVersion = false;
        fake::nvmlNoCudaVersion = false;
        // A fresh, empty root per test function: fixtures written by one never leak into another.
        m_tree = std::make_unique<QTemporaryDir>();
        QVERIFY(m_tree->isValid());
    }

    void nvmlProvidesEverything()
    {
        fake::System system(m_tree->path(), OsFamily::Linux, {});
        system.libraries.insert(QStringLiteral("libnvidia-ml.so.1"), fake::nvml());
        system.libraries.insert(QStringLiteral("libcuda.so.1"), fake::cuda());
        const HardwareReport report = scan(system);

        QCOMPARE(report.gpus.size(), 1);
        const GpuInfo &gpu = report.gpus.first();
        QCOMPARE(gpu.vendor, QStringLiteral("nvidia"));
        QCOMPARE(gpu.name, QStringLiteral("NVIDIA GeForce RTX 3060"));
        QCOMPARE(gpu.computeCapability, QStringLiteral("8.6"));
        QCOMPARE(gpu.memoryMiB, 12288);
        QCOMPARE(gpu.pciId, QStringLiteral("10de:2504"));
        QCOMPARE(gpu.pciBusId, QStringLiteral("00000000:01:00.0"));
        QCOMPARE(gpu.uuid, QStringLiteral("GPU-11111111-2222-3333-4444-555555555555"));
        QCOMPARE(gpu.source, QStringLiteral("nvml"));
        QVERIFY(report.driver.has_value());
        QCOMPARE(report.driver->version, QStringLiteral("535.104.05"));
        QCOMPARE(report.driver->cuda, QStringLiteral("12.2"));
        QCOMPARE(report.driver->source, QStringLiteral("nvml"));
        QVERIFY2(problemFor(report, QStringLiteral("nvml")).isEmpty(),
                 qPrintable(problemFor(report, QStringLiteral("nvml"))));
        QVERIFY(problemFor(report, QStringLiteral("cuda-driver")).isEmpty());
        // Nothing was left open, so nvidia-smi was not needed.
        QVERIFY(problemFor(report, QStringLiteral("nvidia-smi")).isEmpty());
        QCOMPARE(fake::nvmlInits, 1);
        QCOMPARE(fake::nvmlShutdowns, 1);
        // NVML answered every question: the CUDA driver library is not even opened.
        QCOMPARE(fake::cuInits, 0);
        QVERIFY2(!system.loads.contains(QStringLiteral("libcuda.so.1")), qPrintable(system.loads.join(u' ')));
    }

    // Each thing NVML may leave unanswered sends detection to the CUDA driver API, and only then.
    void cudaDriverAskedOnlyForWhatNvmlLeftOpen_data()
    {
        QTest::addColumn<QString>("gap");
        QTest::addColumn<bool>("asked");
        QTest::newRow("nvml answers all") << "" << false;
        QTest::newRow("no compute capability") << "capability" << true;
        QTest::newRow("no memory") << "memory" << true;
        QTest::newRow("no name") << "name" << true;
        QTest::newRow("no cuda version") << "cuda" << true;
        QTest::newRow("no driver version") << "driver" << true;
        QTest::newRow("nvml init fails") << "init" << true;
        QTest::newRow("nvml missing") << "library" << true;
    }

    void cudaDriverAskedOnlyForWhatNvmlLeftOpen()
    {
        QFETCH(QString, gap);
        QFETCH(bool, asked);
        fake::nvmlNoCapability = gap == u"capability";
        fake::nvmlNoMemory = gap == u"memory";
        fake::nvmlNoName = gap == u"name";
        fake::nvmlNoCudaVersion = gap == u"cuda";
        fake::nvmlNoDriverVersion = gap == u"driver";
        fake::Symbols nvml = fake::nvml();
        if (gap == u"init")
            nvml.insert("nvmlInit_v2", fake::address(+[]() { return 999; })); // NVML_ERROR_UNKNOWN
        fake::System system(m_tree->path(), OsFamily::Linux, {});
        if (gap != u"library")
            system.libraries.insert(QStringLiteral("libnvidia-ml.so.1"), nvml);
        system.libraries.insert(QStringLiteral("libcuda.so.1"), fake::cuda());
        const HardwareReport report = scan(system);

        QCOMPARE(fake::cuInits, asked ? 1 : 0);
        QCOMPARE(system.loads.contains(QStringLiteral("libcuda.so.1")), asked);
        // Not asked: not listed among the problems either; asked and answered: no problem.
        QVERIFY(problemFor(report, QStringLiteral("cuda-driver")).isEmpty());
        QCOMPARE(report.gpus.size(), 1);
        const GpuInfo &gpu = report.gpus.first();
        QCOMPARE(gpu.name, QStringLiteral("NVIDIA GeForce RTX 3060"));
        QCOMPARE(gpu.computeCapability, QStringLiteral("8.6"));
        QCOMPARE(gpu.memoryMiB, 12288);
        QVERIFY(report.driver.has_value());
        QCOMPARE(report.driver->cuda, QStringLiteral("12.2"));
        QCOMPARE(report.driver->source,
                 gap == u"init" || gap == u"library" ? QStringLiteral("cuda-driver") : QStringLiteral("nvml"));
    }

    void cudaNoDeviceIsRecordedByName()
    {
        fake::cuInitResult = 100;
        fake::System system(m_tree->path(), OsFamily::Linux, {});
        system.libraries.insert(QStringLiteral("libcuda.so.1"), fake::cuda());
        const HardwareReport report = scan(system);

        QVERIFY(report.gpus.isEmpty());
        QVERIFY(problemFor(report, QStringLiteral("nvml")).contains(QLatin1String("nvml_library_missing")));
        const QString cudaProblem = problemFor(report, QStringLiteral("cuda-driver"));
        QVERIFY2(cudaProblem.contains(QLatin1String("CUDA_ERROR_NO_DEVICE (100)")), qPrintable(cudaProblem));
        QVERIFY(cudaProblem.contains(QLatin1String("cuda_init_failed")));
        // cuDriverGetVersion answers before cuInit: the supported CUDA version is still known.
        QVERIFY(report.driver.has_value());
        QCOMPARE(report.driver->cuda, QStringLiteral("12.2"));
        QCOMPARE(report.driver->source, QStringLiteral("cuda-driver"));
        QVERIFY(!problemFor(report, QStringLiteral("nvidia-smi")).isEmpty());
    }

    void missingNvmlSymbolFallsBackToCuda()
    {
        fake::Symbols oldNvml = fake::nvml();
        oldNvml.remove("nvmlDeviceGetCudaComputeCapability");
        fake::System system(m_tree->path(), OsFamily::Linux, {});
        system.libraries.insert(QStringLiteral("libnvidia-ml.so.1"), oldNvml);
        system.libraries.insert(QStringLiteral("libcuda.so.1"), fake::cuda());
        const HardwareReport report = scan(system);

        const QString nvmlProblem = problemFor(report, QStringLiteral("nvml"));
        QVERIFY2(nvmlProblem.contains(QLatin1String("nvml_symbol_missing: symbol nvmlDeviceGetCudaComputeCapability")),
                 qPrintable(nvmlProblem));
        QCOMPARE(fake::nvmlInits, 0); // never initialised without its full set of entry points
        QCOMPARE(report.gpus.size(), 1);
        QCOMPARE(report.gpus.first().source, QStringLiteral("cuda-driver"));
        QCOMPARE(report.gpus.first().computeCapability, QStringLiteral("8.6"));
        QCOMPARE(report.gpus.first().pciBusId, QStringLiteral("0000:01:00.0"));
        QCOMPARE(report.driver->cuda, QStringLiteral("12.2"));
    }

    void probesReportMissingSymbolsDirectly()
    {
        fake::Symbols noBusId = fake::cuda();
        noBusId.remove("cuDeviceGetPCIBusId");
        fake::Library cuda(noBusId);
        const CudaDriverProbe probe = probeCudaDriver(cuda);
        QVERIFY(probe.error.has_value());
        QCOMPARE(probe.error->code, QStringLiteral("cuda_symbol_missing"));
        QVERIFY(probe.error->detail.contains(QLatin1String("cuDeviceGetPCIBusId")));
        QVERIFY(!probe.error->message.isEmpty());

        fake::Library empty({});
        const NvmlProbe nvml = probeNvml(empty);
        QVERIFY(nvml.error.has_value());
        QCOMPARE(nvml.error->code, QStringLiteral("nvml_symbol_missing"));
    }

    void cudaVersionAndErrorNames_data()
    {
        QTest::addColumn<int>("version");
        QTest::addColumn<QString>("text");
        QTest::newRow("12.2") << 12020 << "12.2";
        QTest::newRow("11.8") << 11080 << "11.8";
        QTest::newRow("13.0") << 13000 << "13.0";
        QTest::newRow("unknown") << 0 << "";
    }

    void cudaVersionAndErrorNames()
    {
        QFETCH(int, version);
        QTEST(cudaVersionString(version), "text");
        QCOMPARE(cudaErrorName(100), QStringLiteral("CUDA_ERROR_NO_DEVICE"));
        QCOMPARE(cudaErrorName(35), QStringLiteral("CUDA_ERROR_INSUFFICIENT_DRIVER"));
        QCOMPARE(cudaErrorName(4242), QStringLiteral("CUDA error 4242"));
    }

    void oldDriverSmiRetriesWithoutComputeCapability()
    {
        auto system = RootedSystem::open(dataDir(QStringLiteral("linux-old-driver")), OsFamily::Linux,
                                         dataDir(QStringLiteral("linux-old-driver/env")));
        QVERIFY(system.ok());
        const HardwareReport report = scan(*system.value());

        QCOMPARE(report.gpus.size(), 1);
        const GpuInfo &gpu = report.gpus.first();
        QCOMPARE(gpu.source, QStringLiteral("nvidia-smi"));
        QCOMPARE(gpu.name, QStringLiteral("NVIDIA GeForce RTX 3060"));
        QCOMPARE(gpu.pciId, QStringLiteral("10de:2504"));
        QCOMPARE(gpu.memoryMiB, 12288);
        // The old driver could not say; the GPU table could.
        QCOMPARE(gpu.computeCapability, QStringLiteral("8.6"));
        QVERIFY(report.driver.has_value());
        QCOMPARE(report.driver->version, QStringLiteral("470.182.03"));
        QCOMPARE(report.driver->cuda, QStringLiteral("11.4"));
        QCOMPARE(report.driver->source, QStringLiteral("nvidia-smi"));
        QVERIFY(problemFor(report, QStringLiteral("nvidia-smi")).isEmpty());
    }

    void smiFailures_data()
    {
        QTest::addColumn<QString>("sample"); // under tests/data/gpu/smi; empty for a hang
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("expected");
        QTest::newRow("driver unreachable") << "no_driver.txt" << 9 << "nvidia_smi_no_driver";
        QTest::newRow("garbage") << "garbage.bin" << 0 << "nvidia_smi_malformed";
        QTest::newRow("empty") << "empty.txt" << 0 << "nvidia_smi_no_gpus";
        QTest::newRow("hangs") << "" << 0 << "timed out";
    }

    void smiFailures()
    {
        QFETCH(QString, sample);
        QFETCH(int, exitCode);
        QJsonObject command{{QStringLiteral("program"), QStringLiteral("nvidia-smi")}};
        if (sample.isEmpty()) {
            command.insert(QStringLiteral("timeout"), true);
        } else {
            QFile in(dataDir(QStringLiteral("smi/")) + sample);
            QVERIFY(in.open(QIODevice::ReadOnly));
            QVERIFY(writeFile(m_tree->filePath(QStringLiteral(".fixture/reply")), in.readAll()));
            command.insert(QStringLiteral("stdout_file"), QStringLiteral("reply"));
            command.insert(QStringLiteral("exit"), exitCode);
        }
        const QJsonObject description{{QStringLiteral("commands"), QJsonArray{command}}};
        QVERIFY(
            writeFile(m_tree->filePath(QStringLiteral(".fixture/system.json")), QJsonDocument(description).toJson()));
        QVERIFY(writeFile(m_tree->filePath(QStringLiteral("usr/bin/nvidia-smi")), {}));
        RootedSystem system(m_tree->path(), OsFamily::Linux, {{QStringLiteral("PATH"), QStringLiteral("/usr/bin")}});
        const HardwareReport report = scan(system);
        QVERIFY(report.gpus.isEmpty());
        QFETCH(QString, expected);
        const QString problem = problemFor(report, QStringLiteral("nvidia-smi"));
        QVERIFY2(problem.contains(expected), qPrintable(problem));
    }

    void linuxSysfsWithoutDriverTools()
    {
        const auto device = [this](const QString &bus, const char *vendor, const char *dev, const char *cls) {
            const QString dir = m_tree->filePath(QStringLiteral("sys/bus/pci/devices/") + bus);
            return writeFile(dir + QLatin1String("/vendor"), QByteArray(vendor) + '\n')
                && writeFile(dir + QLatin1String("/device"), QByteArray(dev) + '\n')
                && writeFile(dir + QLatin1String("/class"), QByteArray(cls) + '\n');
        };
        QVERIFY(device(QStringLiteral("0000:01:00.0"), "0x10de", "0x2504", "0x030000"));
        QVERIFY(device(QStringLiteral("0000:01:00.1"), "0x10de", "0x228e", "0x040300")); // its HDMI audio
        QVERIFY(device(QStringLiteral("0000:00:02.0"), "0x8086", "0x9bc4", "0x030000"));
        QVERIFY(device(QStringLiteral("0000:00:1f.0"), "0x8086", "0x068d", "0x060100")); // ISA bridge
        QVERIFY(writeFile(m_tree->filePath(QStringLiteral("sys/module/nvidia/version")), "535.104.05\n"));

        RootedSystem system(m_tree->path(), OsFamily::Linux, {});
        const HardwareReport report = scan(system);
        QCOMPARE(report.gpus.size(), 2);
        const GpuInfo &nvidia = report.gpus.at(0);
        QCOMPARE(nvidia.vendor, QStringLiteral("nvidia"));
        QCOMPARE(nvidia.source, QStringLiteral("pci"));
        QCOMPARE(nvidia.pciId, QStringLiteral("10de:2504"));
        QCOMPARE(nvidia.pciBusId, QStringLiteral("0000:01:00.0"));
        QCOMPARE(nvidia.name, QStringLiteral("NVIDIA GeForce RTX 3060"));
        QCOMPARE(nvidia.computeCapability, QStringLiteral("8.6"));
        const GpuInfo &intel = report.gpus.at(1);
        QCOMPARE(intel.vendor, QStringLiteral("intel"));
        QCOMPARE(intel.pciId, QStringLiteral("8086:9bc4"));
        QVERIFY(intel.computeCapability.isEmpty());
        QCOMPARE(report.driver->version, QStringLiteral("535.104.05"));
        QCOMPARE(report.driver->source, QStringLiteral("kernel-module"));
        for (const char *method : {"nvml", "cuda-driver", "nvidia-smi"})
            QVERIFY2(!problemFor(report, QString::fromLatin1(method)).isEmpty(), method);
    }

    void windowsRegistryOnly()
    {
        auto system = RootedSystem::open(dataDir(QStringLiteral("windows-registry")), OsFamily::Windows,
                                         dataDir(QStringLiteral("windows-registry/env")));
        QVERIFY(system.ok());
        const HardwareReport report = scan(*system.value());

        QVERIFY(problemFor(report, QStringLiteral("nvml")).contains(QLatin1String("nvml.dll")));
        QVERIFY(problemFor(report, QStringLiteral("cuda-driver")).contains(QLatin1String("nvcuda.dll")));
        QCOMPARE(report.gpus.size(), 2);
        const GpuInfo &nvidia = report.gpus.at(0);
        QCOMPARE(nvidia.source, QStringLiteral("registry"));
        QCOMPARE(nvidia.name, QStringLiteral("NVIDIA GeForce RTX 3060"));
        QCOMPARE(nvidia.pciId, QStringLiteral("10de:2504"));
        QCOMPARE(nvidia.computeCapability, QStringLiteral("8.6"));
        QCOMPARE(report.gpus.at(1).vendor, QStringLiteral("intel"));
        QCOMPARE(report.gpus.at(1).name, QStringLiteral("Intel(R) UHD Graphics 630"));
        QVERIFY(report.driver.has_value());
        QCOMPARE(report.driver->version, QStringLiteral("531.14"));
        QCOMPARE(report.driver->source, QStringLiteral("registry"));
    }

    void withoutKnowledge_gpusStayUnnamed_andTheReportSaysWhy()
    {
        // The registry gives the PCI id only; naming it takes the GPU table, which its driver
        // did not hand in. Detection still ends, with what it found and why the name is missing.
        auto system = RootedSystem::open(dataDir(QStringLiteral("windows-registry")), OsFamily::Windows,
                                         dataDir(QStringLiteral("windows-registry/env")));
        QVERIFY(system.ok());
        const HardwareReport report = scan(*system.value(), nullptr);
        QCOMPARE(report.gpus.size(), 2);
        QCOMPARE(report.gpus.at(0).pciId, QStringLiteral("10de:2504"));
        QVERIFY(report.gpus.at(0).computeCapability.isEmpty());
        QVERIFY2(problemFor(report, QStringLiteral("gpu-table")).contains(QLatin1String("catalog_not_given")),
                 qPrintable(problemFor(report, QStringLiteral("gpu-table"))));
    }

    void registryHelpers_data()
    {
        QTest::addColumn<QString>("windows");
        QTest::addColumn<QString>("nvidia");
        QTest::newRow("531.14") << "31.0.15.3114"
                                << "531.14";
        QTest::newRow("471.41") << "30.0.14.7141"
                                << "471.41";
        QTest::newRow("552.22") << "31.0.15.5222"
                                << "552.22";
        QTest::newRow("too short") << "1.2"
                                   << "";
        QTest::newRow("empty") << ""
                               << "";
    }

    void registryHelpers()
    {
        QFETCH(QString, windows);
        QTEST(nvidiaVersionFromWindows(windows), "nvidia");
        const auto ids = parseMatchingDeviceId(QStringLiteral("PCI\\VEN_10DE&DEV_2504&SUBSYS_397D1462"));
        QVERIFY(ids.has_value());
        QCOMPARE(ids->first, QStringLiteral("10de"));
        QCOMPARE(ids->second, QStringLiteral("2504"));
        QVERIFY(!parseMatchingDeviceId(QStringLiteral("ROOT\\BasicRender")).has_value());
    }

    void realSystemWithoutGpuIsQuick()
    {
        RealSystem system;
        QElapsedTimer timer;
        timer.start();
        const HardwareReport report = scan(system);
        const qint64 elapsed = timer.elapsed();
        QVERIFY2(elapsed < 1000, qPrintable(QStringLiteral("%1 ms").arg(elapsed)));
        const bool hasNvidia = !report.nvidiaGpus().isEmpty();
        if (hasNvidia)
            QSKIP("this machine has an NVIDIA GPU; the no-driver expectations do not apply");
        QVERIFY(!problemFor(report, QStringLiteral("nvml")).isEmpty());
        QVERIFY(!problemFor(report, QStringLiteral("cuda-driver")).isEmpty());
    }

private:
    std::unique_ptr<QTemporaryDir> m_tree;
};

QTEST_GUILESS_MAIN(TestGpuScan)
#include "test_gpuscan.moc"
