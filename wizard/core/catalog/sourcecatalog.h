#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// resources/catalog/sources.json: where a plan's files come from and which checksums count.

struct ManifestPin {
    QString version;  // CUDA or cuDNN major.minor: "12.3"
    QString label;    // "12.3.2"
    QString sha256;   // of the JSON file; empty when no pin is known
    QString fallback; // CUDA only: the version whose manifest stands in when this one is absent
    QString source;
    bool verified = true;

    QString fileName() const { return QStringLiteral("redistrib_") + label + QStringLiteral(".json"); }
};

struct ComponentSet {
    QString cudaMin, cudaMax;
    QStringList components;
    QStringList optional;
    QString source;
};

// A cuDNN archive that has no manifest (7.x, 8.0–8.2, 8.7).
struct CudnnArchive {
    QString cudnn;   // "8.1"
    QString version; // "8.1.1.33"
    QString platform;
    QString cuda;
    QString url;
    QString sha256;         // empty: no checksum anywhere
    QString checksumOrigin; // "third-party" | "none"
    QString source;
    bool verified = true;
};

struct CudaInstaller {
    QString cuda, version;
    QString windowsUrl, linuxUrl, md5sumUrl;
    QString source;
    bool verified = true;
};

struct InstallerArguments {
    QString os;
    QStringList arguments; // "{cuda}" and "{prefix}" are replaced
    QString source;
    bool verified = true;
};

struct PythonRelease {
    QString minor, version, source;
    bool verified = true;
};

// python.org's downloads API, relative to the "python" origin: where a release's per-file
// checksums are read at resolve time. "{version}" and "{id}" are replaced.
struct PythonChecksumApi {
    QString releasePath;      // "api/v2/downloads/release/?name=Python%20{version}"
    QString releaseFilesPath; // "api/v2/downloads/release_file/?release={id}"
    QString source;
};

// A relocatable CPython build (python-build-standalone) for Linux, per Python minor.
struct StandalonePython {
    QString minor, version, tag, source;
    bool verified = true;
    // The archive's SHA-256 as the catalog pins it (lower-case hex; empty: no pin, the release's
    // SHA256SUMS alone decides), and where that value was read.
    QString sha256, sha256Source;
};

struct StandaloneLayout {
    QString origin;      // "python-build-standalone"
    QString platform;    // "linux-x86_64"
    QString file;        // "cpython-{version}+{tag}-…-install_only.tar.gz"
    QString path;        // "{tag}/{file}", below the origin
    QString checksums;   // "{tag}/SHA256SUMS", below the origin
    QString interpreter; // "python/bin/python3", inside the archive
    QString source;
};

struct PypiMirror {
    QString name, url, region, source;
    bool verified = true;
    // The institution's own name, shown when the wizard speaks Chinese ("label_zh",
    // "label_zh_TW"; Traditional falls back to Simplified). Empty: the preset's name.
    QString labelZh, labelZhTw;
    // Where the index keeps its files when that is not beside the index ("files"): the folder
    // below which its links point to "packages/…". Empty: the index URL without "simple".
    QString files;

    // What the student reads for this preset in a language ("zh_CN", "zh_TW", "en").
    QString displayName(const QString &language) const;
};

// A mirror the catalog itself names ("mirrors"): a lab that signs its own catalog lists its copy
// of NVIDIA's (or python.org's) download tree here, and every machine that installed that catalog
// asks it first, after the mirrors the options give. Checksums never come from a mirror.
struct CatalogMirror {
    QString origin; // "nvidia", "python", "python-build-standalone"
    QString url;    // http(s):// or file://
    QString note;
};

class SourceCatalog {
    Q_DECLARE_TR_FUNCTIONS(SourceCatalog)

public:
    static Result<SourceCatalog> load(const QString &path = QStringLiteral(":/resources/catalog/sources.json"));
    static Result<SourceCatalog> fromJson(const QByteArray &json);

    // Records without a source, unknown trust words, malformed pins; empty when sane.
    QStringList problems() const;

    QString originBase(const QString &origin) const; // "nvidia" → "https://developer.download.nvidia.com"

    std::optional<ManifestPin> cudaManifest(const QString &cudaMajorMinor) const;
    QList<ManifestPin> cudnnManifests(const QString &cudnnMajorMinor) const; // every known label, pinned first
    std::optional<ComponentSet> components(const QString &cuda) const;
    QList<CudnnArchive> cudnnArchives(const QString &cudnnMajorMinor, const QString &platform) const;
    std::optional<CudaInstaller> installer(const QString &cudaMajorMinor) const;
    std::optional<InstallerArguments> installerArguments(const QString &os) const;

    QString pythonWindowsUrl() const { return m_pythonWindowsUrl; }
    QStringList pythonWindowsArguments() const { return m_pythonWindowsArguments; }
    QString pythonChecksumNote() const { return m_pythonChecksumNote; }
    std::optional<PythonRelease> pythonRelease(const QString &minor) const;
    const PythonChecksumApi &pythonChecksumApi() const { return m_pythonChecksumApi; }
    std::optional<StandalonePython> standalonePython(const QString &minor) const;
    const StandaloneLayout &standaloneLayout() const { return m_standaloneLayout; }

    const QList<ManifestPin> &cudaManifests() const { return m_cudaManifests; }
    const QList<PythonRelease> &pythonReleases() const { return m_pythonReleases; }
    const QList<PypiMirror> &pypiMirrors() const { return m_pypiMirrors; }
    const QList<CatalogMirror> &mirrors() const { return m_mirrors; }
    std::optional<PypiMirror> pypiMirror(const QString &name) const;

    // cuDNN versions that need zlibwapi.dll on this OS.
    bool needsZlibwapi(const QString &cudnn, const QString &os) const;
    QString zlibwapiSource() const { return m_zlibSource; }

private:
    QList<std::pair<QString, QString>> m_origins;
    QList<ManifestPin> m_cudaManifests, m_cudnnManifests;
    QList<ComponentSet> m_components;
    QList<CudnnArchive> m_cudnnArchives;
    QList<CudaInstaller> m_installers;
    QList<InstallerArguments> m_installerArguments;
    QString m_pythonWindowsUrl, m_pythonChecksumNote;
    QStringList m_pythonWindowsArguments;
    QList<PythonRelease> m_pythonReleases;
    PythonChecksumApi m_pythonChecksumApi;
    StandaloneLayout m_standaloneLayout;
    QList<StandalonePython> m_standalonePythons;
    QList<PypiMirror> m_pypiMirrors;
    QList<CatalogMirror> m_mirrors;
    QString m_zlibMin, m_zlibMax, m_zlibOs, m_zlibSource;
    QStringList m_problems;
};

} // namespace tfsetup::core
