#pragma once

#include "catalog/sourcecatalog.h"
#include "fetch/downloadtypes.h"
#include "sources/resolver.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace tfsetup::core {

struct Knowledge;

// "Test connection": one small real request to each place a setup fetches from, through the one
// HTTP client with the options' proxy and CA bundle, all at once, each with a short timeout.
//
// What is asked, and why (the paths come from the sources catalog, never from here):
//  - "pypi": PyPI or the chosen mirror, the Simple API page of the project "pip"
//    (`<index>/pip/`, pypi/warehouse docs/user/api/index-api.md). pip is on every index and
//    every mirror, the page is a few hundred kilobytes, enough to measure a speed, and its file
//    links tell a real index from a login page.
//  - "nvidia": NVIDIA or the NVIDIA mirror, the plan's CUDA redistrib manifest (else the newest
//    pinned one): `compute/cuda/redist/redistrib_<label>.json`, the first file a toolkit route
//    fetches, tens of kilobytes of JSON.
//  - "python": python.org's downloads API for the plan's Python release (else the newest one in
//    the catalog), `checksum_api.release`: where the installer's checksum is read at resolve time.
//    Always the official origin: checksums are never read from a mirror.
//  - "pypi:<preset>" (ranking only): the same pip page from each pypi_mirrors preset.
struct OriginProbeRequest {
    TransferOptions transfer; // proxy, CA bundle
    QString pypiMirror;       // preset name or index URL; empty or "pypi": PyPI itself
    QString nvidiaMirror;     // URL or folder laid out like NVIDIA's server; empty: NVIDIA
    QString bundleDir;        // an offline bundle serves NVIDIA's and python.org's files
    // Serve an origin from elsewhere (labs, tests): "pypi" (the index), "nvidia", "python", and
    // "pypi:<preset>" for one preset's URL.
    QList<std::pair<QString, QUrl>> originOverrides;
    QString sourcesCatalog;                     // another sources.json; empty: the knowledge's
    std::shared_ptr<const Knowledge> knowledge; // required: null fails with catalog_not_given
    std::optional<ResolveRequest> plan;         // what the setup needs; without one every origin counts
    std::chrono::milliseconds timeout{8000};
    // A speed below this (bytes per second, over an answer of at least minSpeedSample bytes)
    // makes a reachable origin "too_slow": a mirror or a bundle will do better.
    qint64 slowBelowBytesPerSecond = 64 * 1024;
    qint64 minSpeedSample = 16 * 1024;
    QString language = QStringLiteral("en"); // for the presets' display names
    std::shared_ptr<const std::atomic<bool>> cancel;
};

struct OriginResult {
    QString origin;      // "pypi", "nvidia", "python", "pypi:tuna"
    QString name;        // the preset or mirror as the options spell it: "tuna", "pypi", a URL's host
    QString displayName; // what the student reads: "清华大学 TUNA 镜像", "PyPI", the host
    QUrl url;            // what was asked
    bool local = false;  // a folder: nothing to measure
    bool needed = true;  // the plan fetches from here
    bool reachable = false;
    bool slow = false;
    bool viaProxy = false;
    std::chrono::milliseconds latency{0}; // until the whole (small) answer had arrived
    qint64 bytes = 0;
    qint64 bytesPerSecond = 0; // 0: not measured (a folder, an answer too small to tell)
    // When not reachable or slow: the cause (networkerror.h codes), its translated message and
    // the fix to offer: "proxy" (set or correct the proxy), "mirror" (pick a PyPI mirror),
    // "bundle" (use an offline bundle), "ca" (add the proxy's certificate), "login" (a captive
    // portal: log in with a browser, or set the proxy).
    QString code, message, detail, fix;

    QString host() const { return url.host(); }
    QJsonObject toJson() const;
};

struct ConnectionReport {
    QList<OriginResult> origins; // pypi, nvidia, python
    QList<OriginResult> mirrors; // the PyPI presets, best first (when ranked)

    const OriginResult *origin(const QString &name) const;
    // Every origin the plan needs answered (slowly counts).
    bool neededReachable() const;
    // The fastest preset that answered, if any; an unhurried one only when none is fast.
    std::optional<OriginResult> bestMirror() const;
    QJsonObject toJson() const;
    QString text() const; // for the command line: one line per origin
};

class OriginProbe {
    Q_DECLARE_TR_FUNCTIONS(OriginProbe)

public:
    // The requests probe() makes, in its order, without making them (tests route these).
    static Result<QList<OriginResult>> targets(const OriginProbeRequest &request);
    static Result<QList<OriginResult>> presetTargets(const OriginProbeRequest &request);

    // Each origin of the request, measured concurrently. With rankMirrors, also every PyPI
    // preset (rankPypiMirrors), in the same round.
    static QCoro::Task<Result<ConnectionReport>> probe(OriginProbeRequest request, bool rankMirrors = true);
    // Every pypi_mirrors preset measured; reachable and fast first, by speed, then slow ones,
    // then those that did not answer.
    static QCoro::Task<Result<QList<OriginResult>>> rankPypiMirrors(OriginProbeRequest request);

    // The fix to offer for a cause at an origin.
    static QString fixFor(const QString &code, const QString &origin, const QString &detail, bool viaProxy);
    // Sorts measured presets best first (stable: the catalog's order among equals).
    static void rank(QList<OriginResult> &results);
};

} // namespace tfsetup::core
