#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// One archive of an NVIDIA redistributable manifest.
struct RedistFile {
    QString platform;     // "linux-x86_64", "windows-x86_64", …
    QString variant;      // cuDNN: "cuda11", "cuda12"; empty for CUDA components
    QString relativePath; // below the product's redist folder, validated: relative, no "..", no "\"
    QString sha256;       // lower-case hex, 64 digits
    QString md5;          // lower-case hex, 32 digits, or empty
    qint64 size = 0;
};

struct RedistComponent {
    QString key;     // "cuda_cudart", "libcublas", "cudnn"
    QString name;    // "CUDA Runtime (cudart)"
    QString version; // "12.3.101"
    QList<RedistFile> files;

    const RedistFile *file(const QString &platform, const QString &variant = {}) const;
};

// NVIDIA's redistrib_<label>.json (CUDA and cuDNN, format in facts §6.1): top-level strings
// (release_date, release_label, release_product) and one object per component; each component
// has per-platform objects that either hold one file (CUDA) or one file per CUDA variant
// (cuDNN "cuda11"/"cuda12"). `size` is a string in the real files; a number is accepted too.
// Parsing is strict where a wrong value could make tfsetup write outside its folder or accept a
// file it should not: paths, hashes and sizes are checked and a bad one rejects the manifest.
class RedistManifest {
    Q_DECLARE_TR_FUNCTIONS(RedistManifest)

public:
    // Larger than any real manifest (≈60 kB) by far, small enough to refuse a hostile download.
    static constexpr qint64 maxManifestBytes = 4 * 1024 * 1024;
    // Larger than any redistributable archive (the biggest, cuDNN, is under 1 GiB).
    static constexpr qint64 maxArchiveBytes = qint64(16) * 1024 * 1024 * 1024;

    static Result<RedistManifest> parse(const QByteArray &json, const QString &fileName);

    QString fileName() const { return m_fileName; } // "redistrib_12.5.1.json"
    QString releaseDate() const { return m_releaseDate; }
    QString releaseLabel() const { return m_releaseLabel; }
    QString releaseProduct() const { return m_releaseProduct; }
    const QList<RedistComponent> &components() const { return m_components; }
    const RedistComponent *component(const QString &key) const;

private:
    QString m_fileName;
    QString m_releaseDate, m_releaseLabel, m_releaseProduct;
    QList<RedistComponent> m_components;
};

// A relative path that is safe to join below a folder: not empty, not absolute, no drive letter,
// no backslash, no "." or ".." segment, no empty segment, printable ASCII.
bool isSafeRelativePath(const QString &path);

} // namespace tfsetup::core
