#include "setup/labsetup.h"

#include "catalog/knowledge.h"
#include "fetch/downloadcache.h"
#include "fetch/downloader.h"
#include "setup/diskspace.h"
#include "setup/setupflow.h"
#include "sources/sourcecatalog.h"

#include <QPointer>

namespace tfsetup::core {

LabSetup::LabSetup(SystemView &system, QObject *parent)
    : QObject(parent)
    , m_system(system)
{
}

LabSetup::~LabSetup() = default;

Plan LabSetup::planOf(const LabProfile &profile)
{
    Plan plan;
    plan.route = profile.route;
    plan.tensorflow = profile.tensorflow;
    plan.package = profile.package;
    plan.python = profile.python;
    plan.pythonInstalled = true; // the profile names its interpreter, or finds it on PATH
    plan.cuda = profile.cuda;
    plan.cudnn = profile.cudnn;
    return plan;
}

void LabSetup::cancel()
{
    m_cancelled = true;
    if (m_downloader)
        m_downloader->cancelAll();
}

QCoro::Task<Result<InstallSpec>> LabSetup::prepare(LabProfile profile, LabSetupOptions options)
{
    m_cancelled = false;
    auto spec = profile.toSpec(m_system, options.prefixOverride, options.bundleFolder);
    if (!spec)
        co_return spec;

    if (!options.knowledge) {
        auto shared = Knowledge::shared();
        if (!shared)
            co_return shared.error();
        options.knowledge = *shared;
    }
    const Route *route = options.knowledge->catalog.route(profile.route);
    if (!route) {
        co_return Error{QStringLiteral("profile_route_unknown"),
                        tr("The lab profile asks for the route \"%1\", which this tfsetup does not know. Update "
                           "tfsetup or ask the lab administrator.")
                            .arg(profile.route),
                        {}};
    }
    if (!options.bundleFolder.isEmpty()) {
        // A bundle brought every file along; it must hold what the plan promises.
        if (const Status kept = checkPromise(profile, *route, *spec, options.sourcesCatalog, options.knowledge.get());
            !kept)
            co_return kept.error();
        co_return spec;
    }
    if (route->cudaLibraries != u"toolkit")
        co_return spec; // pip brings CUDA along, or there is none
    if (const Status named = checkPromise(profile, *route, {}, QStringLiteral("-"), options.knowledge.get()); !named)
        co_return named.error(); // before anything is fetched

    SetupOptions setup;
    setup.prefix = spec->prefix;
    setup.name = spec->name;
    setup.nvidiaMirror = options.nvidiaMirror.isEmpty() ? LabProfile::expand(m_system, profile.nvidiaMirror)
                                                        : options.nvidiaMirror;
    setup.proxy = options.transfer.proxy.isEmpty() ? profile.proxy : options.transfer.proxy;
    setup.caBundle = options.caBundle;
    setup.originOverrides = options.originOverrides;
    setup.resolveTimeout = options.resolveTimeout;
    setup.sourcesCatalog = options.sourcesCatalog;
    setup.knowledge = options.knowledge;
    setup.cacheDir = !options.cacheDir.isEmpty() ? options.cacheDir : DownloadCache::defaultDir();
    if (options.cacheDir.isEmpty() && !profile.cacheFolder.isEmpty()) {
        // The same rule as installFolder: an unset variable or a relative folder would put the
        // shared cache at the file-system root or wherever the command happened to start.
        const auto folder = LabProfile::expandFolder(m_system, profile.cacheFolder, QStringLiteral("cache"));
        if (!folder)
            co_return folder.error();
        setup.cacheDir = m_system.hostPath(*folder);
    }
    if (setup.cacheDir.isEmpty()) {
        co_return Error{QStringLiteral("profile_cache_unusable"),
                        tr("The lab profile's cache folder %1 is not on this computer. Fix \"cache\" in the profile.")
                            .arg(profile.cacheFolder),
                        {}};
    }

    const Plan plan = planOf(profile);
    const QString os = osFamilyName(m_system.os());
    Q_EMIT message(tr("Finding the NVIDIA files for CUDA %1 and cuDNN %2…").arg(profile.cuda, profile.cudnn));
    QPointer<LabSetup> self(this);
    auto resolving = SetupFlow::resolveArtifacts(plan, os, setup);
    auto list = co_await resolving;
    if (!self)
        co_return Error{QStringLiteral("cancelled"), tr("The installation was cancelled."), {}};
    if (!list)
        co_return list.error();
    for (const Finding &w : std::as_const(list->warnings))
        Q_EMIT message(tr("note: %1").arg(w.message));
    if (m_cancelled)
        co_return Error{QStringLiteral("cancelled"), tr("The installation was cancelled."), {}};
    {
        // What the files found can hold is known before the first byte: a cuDNN the manifests
        // lack stops the install here, not after gigabytes of CUDA archives.
        InstallSpec found;
        for (const Artifact &a : std::as_const(list->artifacts)) {
            InstallArtifact archive;
            archive.kind = a.kind;
            archive.component = a.name;
            found.artifacts.append(archive);
        }
        if (const Status kept = checkPromise(profile, *route, found, options.sourcesCatalog); !kept)
            co_return kept.error();
    }

    const DownloadPlan downloads = SetupFlow::downloadPlan(*list, setup);
    if (!downloads.problems.isEmpty())
        co_return Error{downloads.problems.constFirst().code, downloads.problems.constFirst().message, {}};
    // A full disk is said before the first byte (the cache) and before anything unpacks (the environment).
    if (const Status space = DiskSpaceCheck::check(m_system, DiskSpaceCheck::forSetup(plan, *list, downloads, setup)); !space)
        co_return space.error();

    TransferOptions transfer = options.transfer;
    if (transfer.proxy.isEmpty())
        transfer.proxy = profile.proxy;
    if (transfer.caBundle.isEmpty())
        transfer.caBundle = options.caBundle;
    Downloader downloader(transfer, DownloadCache(setup.cacheDir));
    m_downloader = &downloader;
    SetupFlow::FetchProgress told;
    told.message = [this](const QString &line) { Q_EMIT message(line); };
    told.progress = [this](qint64 done, qint64 total) { Q_EMIT progress(done, total); };
    told.stopped = [self] { return !self; };
    auto fetching = SetupFlow::fetchAll(downloader, downloads.requests, std::move(told));
    const auto fetched = co_await fetching;
    if (!self)
        co_return Error{QStringLiteral("cancelled"), tr("The installation was cancelled."), {}};
    m_downloader = nullptr;
    if (!fetched)
        co_return fetched.error();
    const QList<DownloadResult> &results = *fetched;

    // Only the archives are taken from the flow's spec; everything else is the profile's.
    HardwareReport none;
    Plan withoutPython = plan;
    withoutPython.python.clear();
    auto fromFlow = SetupFlow::installSpec(withoutPython, *list, results, setup, none);
    if (!fromFlow)
        co_return fromFlow.error();
    for (const InstallArtifact &a : std::as_const(fromFlow->artifacts)) {
        if (a.isArchive())
            spec->artifacts.append(a);
    }
    if (const Status kept = checkPromise(profile, *route, *spec, options.sourcesCatalog); !kept)
        co_return kept.error();
    co_return spec;
}

Status LabSetup::checkPromise(const LabProfile &profile, const Route &route, const InstallSpec &spec,
                              const QString &sourcesCatalog, const Knowledge *knowledge)
{
    if (route.cudaLibraries != u"toolkit")
        return Ok{};
    if (profile.cuda.isEmpty()) {
        return Error{QStringLiteral("plan_unfulfilled"),
                     tr("The lab profile's route \"%1\" puts NVIDIA's CUDA libraries into the environment, but "
                        "\"plan.cuda\" names no CUDA version. Add the CUDA version to the profile.")
                         .arg(profile.route),
                     {}};
    }
    if (profile.cudnn.isEmpty()) {
        // TensorFlow loads cuDNN for every GPU computation; without it the environment runs on the CPU.
        return Error{QStringLiteral("plan_unfulfilled"),
                     tr("The lab profile's route \"%1\" puts NVIDIA's CUDA libraries into the environment, but "
                        "\"plan.cudnn\" names no cuDNN version, without which TensorFlow cannot use the GPU. Add the "
                        "cuDNN version to the profile.")
                         .arg(profile.route),
                     {}};
    }
    if (sourcesCatalog == u"-")
        return Ok{}; // only the plan itself was asked about
    KnowledgePtr shared;
    if (!knowledge) {
        auto loaded = Knowledge::shared();
        if (!loaded)
            return loaded.error();
        shared = *loaded;
        knowledge = shared.get();
    }
    auto sources = knowledge->sourcesOr(sourcesCatalog);
    if (!sources)
        return sources.error();
    const auto needed = sources->components(profile.cuda);
    if (!needed) {
        return Error{QStringLiteral("plan_unfulfilled"),
                     tr("The lab profile asks for CUDA %1, which this tfsetup cannot install: it knows no NVIDIA "
                        "libraries for that version. Correct \"plan.cuda\" or update tfsetup.")
                         .arg(profile.cuda),
                     {}};
    }
    QStringList present;
    bool cudnn = false;
    for (const InstallArtifact &a : spec.artifacts) {
        if (a.kind == u"cuda-redist-archive")
            present.append(a.component);
        else if (a.kind == u"cudnn-archive")
            cudnn = true;
    }
    QStringList missing;
    for (const QString &c : needed->components) {
        if (!present.contains(c))
            missing.append(c);
    }
    if (!cudnn)
        missing.append(QStringLiteral("cudnn"));
    if (!missing.isEmpty()) {
        return Error{QStringLiteral("plan_unfulfilled"),
                     tr("The environment would lack %1, which CUDA %2 needs, so TensorFlow could not use the GPU. "
                        "Nothing was installed. Check the NVIDIA mirror or the offline bundle (it must hold NVIDIA's "
                        "archives for CUDA %2), or correct the profile's plan.")
                         .arg(missing.join(QStringLiteral(", ")), profile.cuda),
                     missing.join(u' ')};
    }
    return Ok{};
}

} // namespace tfsetup::core
