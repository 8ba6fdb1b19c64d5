#pragma once

#include "fetch/downloadtypes.h"
#include "solver/plan.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace tfsetup::core {

// One file a plan needs, with everything the installer must know to fetch, verify and place it.
// Values, never behaviour: the resolver fills them from the sources catalog and NVIDIA's
// manifests, the bundle writer and the installer read them. See sources/README.md.
struct Artifact {
    // How far the accepted checksum can be trusted, strongest first.
    enum class Trust {
        Official,    // SHA-256 from the publisher (NVIDIA manifest verified against its pin, python.org's
                     // API, python-build-standalone's SHA256SUMS)
        OfficialMd5, // MD5 only, from the publisher's list (NVIDIA md5sum.txt, python.org's API for older files)
        ThirdParty,  // SHA-256 pinned in the catalog from an independent source (nixpkgs)
        IndexHash,   // pip checks the index's hashes (wheels)
        None,        // nothing published anywhere: needs an explicit trust-on-first-use choice
    };

    QString name;          // component: "cuda_cudart", "libcublas", "cudnn", "python", "tensorflow"
    QString version;       // "12.3.101"
    QString platform;      // "linux-x86_64", "windows-x86_64"
    QString kind;          // what the installer does with it, see kinds below
    QString source;        // "nvidia-redist", "nvidia-cudnn-archive", "nvidia-installer", "python.org",
                           // "python-build-standalone", "pypi"
    QString manifest;      // "redistrib_12.3.2.json" where the checksum came from a manifest
    QString archiveFormat; // "tar.xz", "tar.gz", "zip", "tgz", "exe", "run", "wheel"
    QString relativePath;  // path below the origin ("compute/cuda/redist/cuda_cudart/…"); bundle layout too
    QList<QUrl> urls;      // official URL last, mirrors first, in the order they are tried
    QString sha256;        // lower-case hex; empty when none is known
    QString md5;           // lower-case hex; empty when none is known
    qint64 size = -1;
    Trust trust = Trust::Official;
    bool optional = false;        // the plan works without it (CUPTI: profiler only)
    bool needsAdmin = false;      // full installers write system-wide
    QStringList installArguments; // silent install (installers); "{prefix}" is the target folder
    QString requirement;          // wheelhouse: the pip requirement ("tensorflow[and-cuda]==2.17.*")
    QString indexUrl;             // wheelhouse: the index pip uses
    QString checksumUrl;          // where the publisher lists the checksum (md5sum.txt, SHA256SUMS, python.org's API)
    QString note;                 // why the artifact is what it is, for the details view

    // Kinds: "cuda-redist-archive", "cudnn-archive", "cuda-installer", "python-installer",
    // "python-archive" (a relocatable CPython unpacked into the environment), "wheelhouse".
    static QString trustName(Trust trust);
    static Trust trustFromName(const QString &name, bool *ok = nullptr);

    QString fileName() const; // last segment of relativePath
    bool needsTrustOnFirstUse() const { return trust == Trust::None || (sha256.isEmpty() && md5.isEmpty()); }

    // A request for the Downloader: http(s) URLs in order, the strongest checksum known.
    // Invalid (no urls) for wheelhouses and for artifacts without a checksum.
    DownloadRequest toDownloadRequest(const QString &destination) const;

    QJsonObject toJson() const;
    static Artifact fromJson(const QJsonObject &object);
};

struct ArtifactList {
    QString route;
    QString tensorflow;
    QString os; // "windows" | "linux"
    QList<Artifact> artifacts;
    QList<Finding> warnings;
    // The verified manifests, by path below the NVIDIA origin ("compute/cuda/redist/redistrib_12.5.1.json"),
    // so a bundle can serve as a mirror. Not part of the JSON.
    QList<std::pair<QString, QByteArray>> manifestFiles;

    const Artifact *find(const QString &name) const;
    bool hasWarning(const QString &code) const;
    QJsonObject toJson() const; // {"artifacts": [...], "warnings": [...]}
    QString text() const;       // for the terminal
};

} // namespace tfsetup::core
