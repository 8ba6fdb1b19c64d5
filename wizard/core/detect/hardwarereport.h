#pragma once

#include "util/jsonshape.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// The `detect --json` document. Field names are a public contract (README, lab scripts,
// `plan --hardware FILE`): add fields, never rename. Every field may be missing when read back.

struct OsInfo {
    QString family;              // "windows" | "linux" | "macos"
    QString version;             // "Windows 11 23H2 (build 22631)", "Debian GNU/Linux 12 (bookworm)"
    QString arch;                // "x86_64" | "arm64"
    int wsl = 0;                 // 0 = not WSL, 1 = WSL1, 2 = WSL2
    bool wslCudaLibrary = false; // /usr/lib/wsl/lib/libcuda.so.1 present (WSL2 GPU paravirtualisation)
    bool docker = false;
};

struct CpuInfo {
    QString name;
    std::optional<bool> avx;
    std::optional<bool> avx2;
    std::optional<bool> fma;
    std::optional<bool> avx512f;
    QString source; // "cpuid" | "proc-cpuinfo" | "registry"
};

struct GpuInfo {
    QString vendor; // "nvidia" | "amd" | "intel" | "apple"
    QString name;
    QString computeCapability; // "8.6"; empty when unknown
    qint64 memoryMiB = -1;
    QString pciId;    // "10de:2504" (vendor:device, lower-case hex)
    QString pciBusId; // "00000000:01:00.0"
    QString uuid;
    QString source; // "nvml" | "cuda-driver" | "nvidia-smi" | "pci" | "registry" | "pci-table"
};

struct DriverInfo {
    QString version; // "531.14" / "535.104.05"
    QString cuda;    // highest CUDA version it supports, "12.1"
    QString source;
};

struct PythonInfo {
    QString path;
    QString version; // "3.10.11"
    QString kind;    // "system" | "venv" | "conda" | "pyenv" | "store"
    int bits = 0;    // 64 / 32; 0 when unknown
    QString source;  // "path" | "py-launcher" | "registry" | "conda" | "pyenv" | "folder"
};

struct CudaToolkitInfo {
    QString path;
    QString version;     // "11.2.2"
    QString source;      // "CUDA_PATH" | "folder" | …
    QStringList aliases; // other paths to the same toolkit (the /usr/local/cuda symlink, …)
};

struct CudnnInfo {
    QString path;    // the header or library file that told us
    QString version; // "8.1.1"
    QString source;  // "header" | "library-name"
};

struct MsvcRuntimeInfo {
    bool present = false;
    QString version;
    QStringList missing; // DLL names not found
};

struct Problem {
    QString method; // "nvml", "cuda-driver", "nvidia-smi", "pci", "python", …
    QString error;  // what went wrong, untranslated detail
};

struct HardwareReport {
    Q_DECLARE_TR_FUNCTIONS(HardwareReport)
public:
    OsInfo os;
    CpuInfo cpu;
    QList<GpuInfo> gpus;
    std::optional<DriverInfo> driver;
    QList<PythonInfo> pythons;
    QList<CudaToolkitInfo> cudaToolkits;
    QList<CudnnInfo> cudnn;
    std::optional<MsvcRuntimeInfo> msvcRuntime; // Windows only
    QList<Problem> problems;

    QJsonObject toJson() const;
    // Lenient: anything missing stays empty; wrong types are ignored.
    static HardwareReport fromJson(const QJsonObject &json);
    // A report read as input (plan --hardware FILE): checked against shape() first, with sizes
    // (no machine has more than maxGpus GPUs); the error names the field. document: "The
    // hardware file …", for the message.
    static Result<HardwareReport> parse(const QJsonObject &json, const QString &document);
    static const JsonShape &shape();
    static constexpr qsizetype maxGpus = 64;
    static constexpr qsizetype maxListed = 1000;

    QList<GpuInfo> nvidiaGpus() const;
};

} // namespace tfsetup::core
