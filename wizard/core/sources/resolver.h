#pragma once

#include "catalog/sourcecatalog.h"
#include "fetch/httpclient.h"
#include "sources/artifact.h"
#include "sources/mirrors.h"
#include "sources/redistmanifest.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QCoreApplication>
#include <QJsonObject>

#include <chrono>
#include <memory>

namespace tfsetup::core {

// What the resolver needs from a plan (the PLAN object of `tfsetup plan --json`, see
// solver/README.md), plus how CUDA is to be obtained.
struct ResolveRequest {
    QString route;      // "windows-native", "linux-toolkit", "linux-pip", …
    QString tensorflow; // "2.10.0"
    QString os;         // "windows" | "linux"
    QString python;     // "3.10"
    bool pythonInstalled = true;
    QString cuda;                                // "11.2"; empty on routes without CUDA archives
    QString cudnn;                               // "8.1"
    QString requirement;                         // "tensorflow==2.10.*"
    QString cudaFrom = QStringLiteral("redist"); // "redist" (portable, default) | "installer"
    bool includeOptional = false;                // CUPTI and other profiler-only parts

    // Accepts a whole `tfsetup plan --json` document (takes "recommended") or one PLAN object.
    static Result<ResolveRequest> fromPlanJson(const QJsonObject &json);
};

// Turns a plan into the exact list of official files, each with the checksum that will be
// accepted. Manifests come from the mirrors first, then NVIDIA; a pinned manifest is accepted
// only when its SHA-256 equals the pin, whoever served it; a manifest without a pin is accepted
// only from the official origin itself (over verified TLS), never from a mirror. Python's checksums
// likewise come from python.org's downloads API or python-build-standalone's SHA256SUMS, over https
// from the official origin only; a relocatable Python the catalog pins needs no request at all, and
// its release's SHA256SUMS, when it answers, must agree with the pin.
class ArtifactResolver {
    Q_DECLARE_TR_FUNCTIONS(ArtifactResolver)

public:
    ArtifactResolver(SourceCatalog catalog, MirrorSet mirrors);
    ~ArtifactResolver();
    ArtifactResolver(const ArtifactResolver &) = delete;
    ArtifactResolver &operator=(const ArtifactResolver &) = delete;

    // Tests and labs: serve an origin from elsewhere as if it were the official one.
    void setOriginBase(const QString &origin, const QUrl &base);
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // How long a release's SHA256SUMS may hold a resolve up when the catalog pins the archive's
    // SHA-256 anyway: it only cross-checks the pin (GitHub may be slow or blocked).
    static constexpr std::chrono::milliseconds pinCrossCheckTimeout{8000};
    // Proxy, CA bundle and limits of every request (the one HttpClient, as downloads use).
    void setTransferOptions(TransferOptions options) { m_transfer = std::move(options); }
    const TransferOptions &transferOptions() const { return m_transfer; }
    // The index pip uses for the wheelhouse ("https://pypi.org/simple" unless a pypi mirror is set).
    QString indexUrl() const;

    QCoro::Task<Result<ArtifactList>> resolve(ResolveRequest request);

    // A manifest by product ("cuda" | "cudnn") and pin, verified as described above.
    struct FetchedManifest {
        RedistManifest manifest;
        QByteArray bytes;
        QUrl from;
        bool pinned = false;
    };
    QCoro::Task<Result<FetchedManifest>> fetchManifest(QString product, ManifestPin pin);

private:
    // timeout zero: the resolver's own (setTimeout).
    QCoro::Task<Result<QByteArray>> get(QUrl url, std::chrono::milliseconds timeout = {});
    QCoro::Task<Result<QByteArray>> getChecksumSource(QUrl url, std::chrono::milliseconds timeout = {});
    QUrl officialUrl(const QString &origin, const QString &relativePath) const;
    QList<QUrl> urlsFor(const QString &origin, const QString &relativePath) const;

    QCoro::Task<Status> addCudaArchives(ResolveRequest request, ArtifactList *list);
    static void keepManifest(const QString &product, const FetchedManifest &fetched, ArtifactList *list);
    QCoro::Task<Status> addCudaInstaller(ResolveRequest request, ArtifactList *list);
    QCoro::Task<Status> addCudnn(ResolveRequest request, ArtifactList *list);
    QCoro::Task<Status> addPython(ResolveRequest request, ArtifactList *list);
    QCoro::Task<Status> addPythonInstaller(ResolveRequest request, ArtifactList *list);
    QCoro::Task<Status> addStandalonePython(ResolveRequest request, ArtifactList *list);
    void addWheelhouse(const ResolveRequest &request, ArtifactList *list) const;

    SourceCatalog m_catalog;
    MirrorSet m_mirrors;
    QList<std::pair<QString, QUrl>> m_originOverrides;
    std::chrono::milliseconds m_timeout{30000};
    TransferOptions m_transfer;
    // The cause of the last failed request (NetworkError code and message), for the error that
    // ends a resolve: "no manifest" alone does not tell a student what to fix.
    Error m_lastNetworkError;
};

// "linux" → "linux-x86_64", "windows" → "windows-x86_64" (NVIDIA's platform keys).
QString redistPlatform(const QString &os);

} // namespace tfsetup::core
