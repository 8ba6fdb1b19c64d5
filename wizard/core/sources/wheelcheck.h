#pragma once

#include "fetch/downloadtypes.h"
#include "sources/artifact.h"
#include "sources/mirrors.h"

#include <QCoro/QCoroTask>
#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>

#include <chrono>
#include <optional>
#include <utility>

namespace tfsetup::core {

struct ResolveRequest;

// What pip will be asked for, read from a requirement line: "tensorflow[and-cuda]==2.17.*" →
// project "tensorflow", prefix "2.17"; "tensorflow-gpu==2.10.0" → version "2.10.0".
struct WheelQuery {
    QString project; // normalized (PEP 503): lower case, runs of "-_." as one "-"
    QString version; // an exact pin, or empty
    QString prefix;  // "2.17" for "==2.17.*", or empty

    // nullopt for anything else (other operators, several specifiers, a URL).
    static std::optional<WheelQuery> fromRequirement(const QString &requirement);
};

struct WheelCheckOptions {
    QUrl pypiOrigin; // the index asked: pypi.org's ("https://pypi.org/simple"), its override, or a lab's own index
    QList<std::pair<QString, QUrl>> originOverrides; // "pypi-json": the JSON API base itself (labs, tests)
    MirrorSet mirrors;                       // local-folder mirrors mean an offline bundle: nothing is asked then
    std::chrono::milliseconds timeout{8000}; // capped at maxTimeout
    TransferOptions transfer;                // the network settings' proxy, CA bundle and limits

    static constexpr std::chrono::milliseconds maxTimeout{8000};
};

// Early warning that pip will find no TensorFlow wheel for the plan's Python and OS, read from
// PyPI's JSON API (pypi/warehouse docs/user/api/json.md): GET <base>/pypi/<project>/<version>/json
// for an exact pin, GET <base>/pypi/<project>/json (its "releases") for "==X.Y.*", where <base>/pypi
// is the PyPI origin without its "/simple", or the "pypi-json" origin override when one is set.
// Mirrors are not asked: none of the catalog's presets is known to serve the release documents, and
// a lab index need not either.
//
// Adds a "no_wheel" warning to list when the release has no wheel for the Python and OS (naming
// the Pythons it has wheels for). Never fails: when the answer is missing (no network, timeout,
// 404, not JSON) or the requirement cannot be read, the tensorflow wheelhouse artifact gets a
// note saying the check was not made, and nothing else changes.
class WheelCheck {
    Q_DECLARE_TR_FUNCTIONS(WheelCheck)

public:
    static QCoro::Task<> run(ResolveRequest request, WheelCheckOptions options, ArtifactList *list);

    // "https://pypi.org/simple/" → "https://pypi.org/pypi".
    static QUrl jsonBase(const QUrl &pypiOrigin);
    // The largest document read; a project document lists every release's files.
    static constexpr qint64 maxDocumentBytes = 64 * 1024 * 1024;
};

} // namespace tfsetup::core
