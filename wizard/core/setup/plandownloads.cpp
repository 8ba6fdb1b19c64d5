#include "setup/plandownloads.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "sources/bundle.h"

#include <QCoreApplication>
#include <QCoro/QCoroFuture>
#include <QtConcurrent/QtConcurrentRun>
#include <QRegularExpression>

#include <algorithm>

namespace tfsetup::core {

namespace {

// "redistrib_11.8.0.json" → "11.8": the release whose archives a manifest lists.
QString releaseOfManifest(const QString &manifest)
{
    static const QRegularExpression release(QStringLiteral("^redistrib_(\\d+\\.\\d+)(?:\\.\\d+)*\\.json$"));
    const auto match = release.match(manifest);
    return match.hasMatch() ? match.captured(1) : QString();
}

bool resolvedFor(const ArtifactList &list, const Plan &plan)
{
    return list.route == plan.route && list.tensorflow == plan.tensorflow;
}

} // namespace

PlanDownloads PlanDownloads::of(const Plan &plan, const SourceCatalog &sources, const ArtifactList *resolved,
                                const PyLock *lock)
{
    PlanDownloads out;
    if (resolved && !resolvedFor(*resolved, plan))
        resolved = nullptr;

    // Toolkit routes, and only they, list the libraries tfsetup places (Plan::libraries); the
    // resolver fetches their archives whether or not the machine has a toolkit of its own.
    out.nvidiaArchives = !plan.cuda.isEmpty() && !plan.libraries.isEmpty();
    if (out.nvidiaArchives) {
        if (resolved) {
            for (const Artifact &a : resolved->artifacts) {
                if (a.kind == u"cuda-redist-archive") {
                    out.cudaArchives = releaseOfManifest(a.manifest);
                    break;
                }
                if (a.kind == u"cuda-installer") {
                    out.cudaArchives = version::majorMinor(plan.cuda);
                    break;
                }
            }
        } else if (const auto pin = sources.cudaManifest(plan.cuda)) {
            // The resolver's order (ArtifactResolver::addCudaArchives): the plan's own manifest,
            // then the fallback when NVIDIA has none. A pinned manifest is always there; one
            // without a pin is the catalog saying NVIDIA likely publishes none.
            out.cudaArchives = version::majorMinor(pin->version);
            if (pin->sha256.isEmpty() && !pin->fallback.isEmpty() && sources.cudaManifest(pin->fallback)) {
                out.cudaArchives = version::majorMinor(pin->fallback);
                out.cudaCertain = false;
            }
        }
        out.cudaStandIn = !out.cudaArchives.isEmpty() && out.cudaArchives != version::majorMinor(plan.cuda);
    }

    if (resolved) {
        out.sizesResolved = true;
        for (const Artifact &a : resolved->artifacts) {
            if (a.kind == u"wheelhouse" || a.optional)
                continue;
            if (a.size >= 0) {
                out.knownBytes += a.size;
                ++out.filesKnown;
            } else {
                ++out.filesUnknown;
            }
        }
        // Without a lock the wheels are unknown files, however many there will be.
        if (lock && !lock->packages.isEmpty()) {
            for (const LockedWheel &w : lock->packages) {
                if (w.size >= 0) {
                    out.knownBytes += w.size;
                    ++out.filesKnown;
                } else {
                    ++out.filesUnknown;
                }
            }
        } else {
            ++out.filesUnknown;
            out.wheelsUnsized = true;
        }
    }
    return out;
}

QCoro::Task<Result<ArtifactList>> PlanDownloads::lookUp(Plan plan, QString os, SetupOptions options)
{
    if (const QString bundleDir = options.network.bundleDir.trimmed(); !bundleDir.isEmpty()) {
        // bundle.json is read off the GUI thread: the page that asks is waiting for the student.
        auto bundle = co_await QtConcurrent::run([](const QString &dir) { return Bundle::open(dir); }, bundleDir);
        if (!bundle)
            co_return bundle.error();
        if (const Status serves = bundle->servesPlan(plan.route, plan.tensorflow, os, plan.python); !serves)
            co_return serves.error();
        co_return bundle->artifacts();
    }
    if (options.network.offline)
        co_return Error{QStringLiteral("offline"),
                        QCoreApplication::translate("PlanDownloads", "Nothing is looked up without the network."),
                        {}};
    options.network.resolveTimeout = std::min(options.network.resolveTimeout, lookupTimeout);
    co_return co_await SetupFlow::resolveArtifacts(std::move(plan), std::move(os), std::move(options));
}

} // namespace tfsetup::core
