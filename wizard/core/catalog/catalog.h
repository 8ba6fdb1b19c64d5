#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// The knowledge catalog: resources/catalog/{tensorflow,cuda,libraries,routes}.json (the GPU table
// is separate, see gputable.h). Every record carries a source; records that could not be checked
// against a primary source say "verified": false and the solver treats them conservatively.

// One row of TensorFlow's tested GPU build configurations.
struct TfRelease {
    QString version;      // "2.10.0"
    QString os;           // "linux" | "windows"
    QStringList python;   // as printed, split at commas: ["2.7", "3.3-3.7"]
    QString cuda;         // "11.2"
    QString cudnn;        // "8.1"
    QString package;      // "tensorflow" | "tensorflow-gpu"
    QString pipCudaExtra; // "and-cuda" where pip can bring the CUDA libraries
    QString source;
    QString note;
    bool verified = true;
    bool packageVerified = true;

    QString minor() const; // "2.10"
    bool supportsPython(const QString &majorMinor) const;
    // Every supported "3.x" (and "2.7") from newest to oldest.
    QStringList pythonVersions() const;
    QString pythonText() const; // "3.7-3.10" or "2.7, 3.3-3.7"
};

// Which compute capabilities the official wheels carry as machine code (SASS) and as PTX.
struct GpuBuild {
    QString tfMin, tfMax; // "2.5", "2.11" (inclusive, compared on major.minor)
    QStringList os;
    QStringList sass;
    QStringList ptx;
    QString source;
    bool verified = true;

    bool covers(const QString &tfVersion, const QString &osName) const;
    QString lowest() const; // lowest capability with any code
};

struct CpuRequirement {
    QString instructionSet; // "avx"
    QString tfMin;          // "1.6"
    QString source;
    bool verified = true;
};

struct DriverFloor {
    QString linux;
    QString windows;
    QString forOs(const QString &os) const { return os == u"windows" ? windows : linux; }
};

struct CudaToolkit {
    QString version;       // "11.2"
    DriverFloor driverMin; // the driver bundled with the toolkit (NVIDIA's Table 3)
    QString ccMin, ccMax;  // compute capabilities nvcc can target offline
    QString source;
    QString note;
    bool verified = true;
};

struct MinorCompatibility {
    QString major;   // "11"
    QString cudaMin; // "11.0"
    DriverFloor driverMin;
    QString source;
    QString note;
    bool verified = true;
};

struct LibrarySet {
    QString cudaMin, cudaMax; // CUDA sets; empty for cuDNN and driver sets
    QString major;            // cuDNN major
    QString os;
    QStringList files;
    QString source;
    bool verified = true;
};

// Where NVIDIA's drivers end for one GPU architecture: the last driver branch that supports it
// (R470 for Kepler). A newer driver does not run such a GPU at all, for any program.
struct DriverBranchEnd {
    QString architecture; // "Kepler"
    QString ccMin, ccMax; // the compute capabilities of that architecture
    int lastBranch = 0;   // 470
    QString source;
    bool verified = true;

    bool covers(const QString &computeCapability) const;
};

// A third-party plug-in a route installs beside TensorFlow, bounded by what its last release
// supports: the Pythons it publishes packages for and the TensorFlow releases it works with.
struct PluginRecord {
    QString name;                 // "tensorflow-metal"
    QString lastRelease;          // "1.2.0"
    QString released;             // "2025-01-..."
    QString pythonMin, pythonMax; // the CPython versions its packages exist for
    QString tfMin, tfMax;         // the TensorFlow releases it works with
    QString brokenFrom;           // the first TensorFlow release known to fail with it; empty: none known
    QString source;
    QString note;
    bool verified = true;
};

struct RoutePlatform {
    QString os, arch, tfMin, tfMax, source;
    bool verified = true;
};

struct Route {
    QString name;        // "windows-native", "linux-pip", …
    QStringList os;      // families the route runs on
    QStringList arch;    // "x86_64", "arm64"
    QString accelerator; // "nvidia" | "amd" | "apple" | "directx12" | "none"
    QString releases;    // which tested table: "linux" | "windows"
    QString tfMin, tfMax;
    QString beyondMaxReason; // reason code for releases newer than tfMax
    QString cudaLibraries;   // "pip" | "toolkit" | "none"
    QString driverOs;        // whose driver numbers apply: "linux" | "windows"
    // "never" (not inside WSL) | "required" (only through WSL2) | "any" |
    // "windows_or_wsl2" (natively on Windows or inside WSL2, never on plain Linux)
    QString wsl;
    int windowsBuildMin = 0;
    bool requiresPipCuda = false;
    bool experimental = false; // offered, never recommended
    QStringList versions;      // explicit TF minors ("2.12", …) when the route has its own list
    QStringList actions;       // actions every plan on this route needs ("install_rocm")
    QString package;           // overrides the release's package
    QStringList plugins;
    QString pythonMin, pythonMax; // what the route itself allows, on top of each release's range
    // Per OS/arch release ranges (the CPU route). Several records may cover one OS/arch, one range each.
    QList<RoutePlatform> platforms;
    QString source;
    QString note;
    bool verified = true;

    bool isAccelerated() const { return accelerator != u"none"; }
    // The platform record for this OS/arch that covers the TF release, or nullptr.
    const RoutePlatform *platformFor(const QString &os, const QString &arch, const QString &tfVersion) const;
    // Whether any platform record names this OS/arch, and the newest release the records cover there
    // (empty when one of them is open-ended).
    bool hasPlatform(const QString &os, const QString &arch) const;
    QString lastOnPlatform(const QString &os, const QString &arch) const;
};

class Catalog {
    Q_DECLARE_TR_FUNCTIONS(Catalog)

public:
    static Result<Catalog> load(const QString &directory = QStringLiteral(":/resources/catalog"));
    static Result<Catalog> fromJson(const QByteArray &tensorflow, const QByteArray &cuda, const QByteArray &libraries,
                                    const QByteArray &routes);

    // Invariant violations (missing sources, inverted ranges, contradictions); empty when sane.
    QStringList problems() const;

    const QList<TfRelease> &releases() const { return m_releases; }
    // The tested table for one OS, newest first.
    QList<TfRelease> releasesFor(const QString &os) const;
    std::optional<TfRelease> release(const QString &os, const QString &versionPrefix) const;
    std::optional<GpuBuild> gpuBuild(const QString &tfVersion, const QString &os) const;
    const QList<GpuBuild> &gpuBuilds() const { return m_gpuBuilds; }
    std::optional<CpuRequirement> cpuRequirement(const QString &instructionSet) const;

    std::optional<CudaToolkit> toolkit(const QString &cudaVersion) const; // on major.minor
    const QList<CudaToolkit> &toolkits() const { return m_toolkits; }
    // The oldest toolkit in the catalog that can target this compute capability.
    std::optional<CudaToolkit> firstToolkitTargeting(const QString &computeCapability) const;
    std::optional<MinorCompatibility> minorCompatibility(const QString &cudaVersion) const;
    // The last driver branch for a GPU of this compute capability, when NVIDIA has ended its support.
    std::optional<DriverBranchEnd> driverBranchEnd(const QString &computeCapability) const;
    const QList<DriverBranchEnd> &driverBranchEnds() const { return m_driverBranchEnds; }

    QStringList cudaLibraries(const QString &cudaVersion, const QString &os) const;
    QStringList cudnnLibraries(const QString &cudnnVersion, const QString &os) const;
    QStringList driverLibraries(const QString &os) const;

    const QList<Route> &routes() const { return m_routes; }
    const Route *route(const QString &name) const;
    QStringList routeNames() const;
    const QList<PluginRecord> &plugins() const { return m_plugins; }
    std::optional<PluginRecord> plugin(const QString &name) const;

private:
    QList<TfRelease> m_releases;
    QList<GpuBuild> m_gpuBuilds;
    QList<CpuRequirement> m_cpuRequirements;
    QList<CudaToolkit> m_toolkits;
    QList<MinorCompatibility> m_minorCompatibility;
    QList<DriverBranchEnd> m_driverBranchEnds;
    QList<LibrarySet> m_cudaLibraries;
    QList<LibrarySet> m_cudnnLibraries;
    QList<LibrarySet> m_driverLibraries;
    QList<Route> m_routes;
    QList<PluginRecord> m_plugins;
};

} // namespace tfsetup::core
