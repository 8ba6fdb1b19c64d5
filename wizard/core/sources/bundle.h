#pragma once

#include "fetch/downloader.h"
#include "sources/artifact.h"
#include "sources/pylock.h"
#include "system/systemview.h"
#include "util/jsonshape.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QCoreApplication>
#include <QList>
#include <QString>

#include <atomic>
#include <functional>
#include <optional>
#include <chrono>

namespace tfsetup::core {

// An offline bundle: a self-describing folder that `install --offline --from DIR` installs from
// and that any static web server can serve as a lab mirror.
//
//   DIR/bundle.json                      what is inside (format below, see sources/README.md)
//   DIR/nvidia/compute/cuda/redist/…     archives and the verified manifests, laid out like NVIDIA's server
//   DIR/nvidia/compute/cudnn/redist/…
//   DIR/python/ftp/python/…              python.org installers
//   DIR/wheelhouse/*.whl                 the wheels of the lock, downloaded and verified by tfsetup
//   DIR/wheelhouse/requirements.txt      every wheel pinned with --hash, for pip --require-hashes --no-index
//   DIR/pylock.toml                      the lock (PEP 751): each wheel's URL, size, SHA-256 and index
//
// Served over HTTP, "--mirror http://lab/DIR/nvidia" and "--mirror python=http://lab/DIR/python"
// resolve through it; the checksums stay those of the pinned manifests.

struct BundleFile {
    QString file;     // relative to the bundle folder: "nvidia/compute/…/x.tar.xz"
    QString artifact; // the artifact's name, or "wheelhouse"
    QString sha256;   // what the file must hash to
    QString md5;      // only when no SHA-256 is known (full installers)
    qint64 size = -1;
};

class Bundle {
    Q_DECLARE_TR_FUNCTIONS(Bundle)

public:
    static constexpr int schema = 1;
    static constexpr qint64 maxBundleFileBytes = qint64(1) << 40; // 1 TiB: no archive or wheel is near
    static constexpr qsizetype maxBundleEntries = 100000;

    // Reads DIR/bundle.json (bounded) and checks it against shape(): every field's type and size,
    // artifact names that are plain names, file paths inside the folder, and every artifact's
    // file listed with the same checksum. The error names the cause and the next step:
    // "bundle_folder_missing" (no such folder), "bundle_empty" (an empty folder),
    // "bundle_missing" (no bundle.json), "bundle_malformed" (the field named). The wizard and
    // `install --offline` both open bundles here.
    static Result<Bundle> open(const QString &directory);
    // The first of open()'s checks: DIR exists and is a folder ("bundle_folder_missing").
    static Status checkFolder(const QString &directory);
    static const JsonShape &shape();

    // Whether this bundle serves a plan: the same route and OS, the same TensorFlow release line
    // (major.minor: the wheelhouse holds the requirement "tensorflow==X.Y.*"), and the same Python
    // minor when both name one (the wheels were downloaded for it). Error "bundle_other_plan"
    // says which plan the bundle holds, which was chosen, and what to do.
    Status servesPlan(const QString &route, const QString &tensorflow, const QString &os, const QString &python) const;

    QString directory() const { return m_directory; }
    const ArtifactList &artifacts() const { return m_list; }
    QString python() const { return m_python; } // "3.11" the wheels were downloaded for; empty: not recorded
    const QList<BundleFile> &files() const { return m_files; }
    QString wheelhouse() const; // absolute path; empty when the bundle has none
    QString wheelFolder() const { return wheelhouse(); }
    QString requirementsFile() const; // absolute path of wheelhouse/requirements.txt
    // A wheel the bundle lists (by file name), as an absolute path; empty when it lists none.
    QString wheelPath(const QString &file) const;
    // The bundle's lock (pylock.toml); empty for a bundle written before locks, whose wheels pip
    // then chooses from alone.
    const PyLock &lock() const { return m_lock; }
    // The entry of "files" for a path relative to the bundle folder, or null.
    const BundleFile *fileAt(const QString &relative) const;
    // Absolute path of an artifact's file, or empty.
    QString pathOf(const QString &artifactName) const;
    // An artifact's entry in "files" (its checksum is the one every reader checks), or null.
    const BundleFile *fileOf(const QString &artifactName) const;

    // Hashes every file and compares with bundle.json. The error (code "bundle_corrupt" or
    // "bundle_incomplete") names each file that is missing or does not match.
    Status verify(const std::atomic<bool> *cancel = nullptr) const;
    // The same on a worker thread.
    QCoro::Task<Status> verifyAsync() const;

private:
    QString m_directory;
    QString m_python;
    ArtifactList m_list;
    QList<BundleFile> m_files;
    bool m_hasWheelhouse = false;
    PyLock m_lock;
};

struct BundleOptions {
    QString directory;
    bool trustOnFirstUse = false; // accept artifacts without any published checksum, recording what was seen
    bool includeWheelhouse = true;
    QString pythonVersion;    // the Python the wheels are for ("3.10"), recorded in bundle.json
    TransferOptions transfer; // the network settings' proxy, CA bundle and limits
    std::chrono::milliseconds stallTimeout{std::chrono::seconds(60)};
};

// Writes a bundle: every artifact and every wheel of the lock through the Downloader (or copied
// from a local mirror, verified the same way), the lock and its hash-checking requirements, then
// bundle.json last, so a folder without bundle.json is never mistaken for a complete bundle.
class BundleWriter {
    Q_DECLARE_TR_FUNCTIONS(BundleWriter)

public:
    explicit BundleWriter(Downloader &downloader)
        : m_downloader(downloader)
    {}

    // `lock`: the wheels to carry (SetupPipeline::prepare made it); empty with includeWheelhouse
    // false. `wheelUrls` gives each wheel's download addresses in the indexes' order.
    QCoro::Task<Result<Bundle>> write(ArtifactList list, PyLock lock, BundleOptions options,
                                      std::function<QList<QUrl>(const LockedWheel &)> wheelUrls = {});

    // Where an artifact goes inside the bundle: "<origin>/<relative path>".
    static QString bundlePathOf(const Artifact &artifact);

private:
    QCoro::Task<Result<BundleFile>> fetchArtifact(Artifact artifact, BundleOptions options);
    QCoro::Task<Result<QList<BundleFile>>> fetchWheels(PyLock lock, BundleOptions options,
                                                       std::function<QList<QUrl>(const LockedWheel &)> wheelUrls);

    Downloader &m_downloader;
};

} // namespace tfsetup::core
