#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>

namespace tfsetup::core {

class SourceCatalog;

// A place serving the same paths as one origin: an http(s) base URL, a file:// URL or a local
// folder laid out like the origin's server (for NVIDIA: compute/cuda/redist/redistrib_<label>.json,
// compute/cudnn/redist/…). A mirror changes where bytes come from, never which checksum is
// accepted: checksums always come from pinned manifests or the catalog.
struct Mirror {
    QString origin; // "nvidia", "python", "python-build-standalone", "pypi"
    QUrl base;      // without a trailing slash

    bool isLocal() const { return base.isLocalFile(); }
    // base + "/" + relative path.
    QUrl urlFor(const QString &relativePath) const;
    QString localPathFor(const QString &relativePath) const; // empty unless isLocal()
};

class MirrorSet {
    Q_DECLARE_TR_FUNCTIONS(MirrorSet)

public:
    // "URL", "DIR", "file:///DIR" (NVIDIA), or "ORIGIN=…" for python, python-build-standalone and
    // pypi; for pypi a preset
    // name from the catalog ("pypi=tuna") stands for its URL.
    static Result<Mirror> parse(const QString &spec, const SourceCatalog *catalog = nullptr);

    void add(const Mirror &mirror) { m_mirrors.append(mirror); }
    QList<Mirror> forOrigin(const QString &origin) const;
    bool isEmpty() const { return m_mirrors.isEmpty(); }

private:
    QList<Mirror> m_mirrors;
};

} // namespace tfsetup::core
