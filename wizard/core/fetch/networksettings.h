#pragma once

#include "fetch/downloadtypes.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <chrono>
#include <memory>
#include <utility>

namespace tfsetup::core {

class Downloader;

// How tfsetup reaches the network: made once (from the command line, a lab profile or the
// Options page) and handed down to everything that fetches, so every request, pip's included,
// goes through the same proxy, CA bundle, mirrors and limits. The proxy and the CA bundle live in
// `transfer` and nowhere else.
struct NetworkSettings {
    TransferOptions transfer; // proxy, CA bundle, connect and speed limits
    // NVIDIA's download tree elsewhere (a lab mirror's URL or a folder); empty: NVIDIA only.
    QString nvidiaMirror;
    // Python package indexes, each a preset name of the sources catalog ("tuna") or an index URL,
    // asked in this order: the first that serves a project's page is used for it, and the others
    // serve the same wheel files as fallbacks. Empty: PyPI.
    QStringList pypiIndexes;
    // Other origins' files from elsewhere, as "ORIGIN=URL|DIR" ("python=…",
    // "python-build-standalone=…"); their checksums still come from the publishers.
    QStringList fileMirrors;
    // An offline bundle (tfsetup bundle): NVIDIA's archives, Python and the locked wheels come
    // from it; empty: none.
    QString bundleDir;
    // Nothing from the network: only the bundle and what the download cache holds already.
    bool offline = false;
    // Serve an origin from elsewhere as if it were the official one (labs, tests): "nvidia",
    // "pypi", "pypi:<preset>", "python", "python-build-standalone", "pypi-json".
    QList<std::pair<QString, QUrl>> originOverrides;
    // How long one document request of the resolve (a manifest, a checksum list) may take.
    std::chrono::milliseconds resolveTimeout{30000};

    // The index the first entry names, as typed: a preset's name or a URL; empty: PyPI.
    QString firstPypiIndex() const { return pypiIndexes.isEmpty() ? QString() : pypiIndexes.constFirst(); }

    // The one place a downloader is made: these transfer settings, the content cache in cacheDir
    // (empty: none).
    std::unique_ptr<Downloader> makeDownloader(const QString &cacheDir) const;

    // For a saved setup (the student's own file in the user's data folder). Unknown fields are
    // ignored, missing ones keep their defaults.
    QJsonObject toJson() const;
    static NetworkSettings fromJson(const QJsonObject &json);
};

} // namespace tfsetup::core
