#include "setup/labsetup.h"

#include "catalog/knowledge.h"
#include "catalog/sourcecatalog.h"
#include "fetch/downloadcache.h"
#include "setup/setupflow.h"

#include <QPointer>

namespace tfsetup::core {

LabSetup::LabSetup(SystemView &system, QObject *parent)
    : QObject(parent)
    , m_system(system)
    , m_pipeline(system)
{
    connect(&m_pipeline, &SetupPipeline::message, this, &LabSetup::message);
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
    m_pipeline.cancel();
}

Result<LabSetup::Inputs> LabSetup::inputs(const LabProfile &profile, const LabSetupOptions &options) const
{
    auto spec = profile.toSpec(m_system, options.prefixOverride);
    if (!spec)
        return spec.error();
    Inputs in;
    in.plan = planOf(profile);
    in.spec = *spec;
    SetupOptions &setup = in.options;
    setup.prefix = spec->prefix;
    setup.name = spec->name;
    setup.jupyter = !spec->jupyter.isEmpty();
    setup.sourcesCatalog = options.sourcesCatalog;
    setup.knowledge = options.knowledge;
    // The profile's network settings, the command line's on top: its proxy and CA bundle win, its
    // mirrors are asked first.
    setup.network = profile.networkSettings(m_system);
    const NetworkSettings &given = options.network;
    setup.network.transfer.lowSpeedBytesPerSecond = given.transfer.lowSpeedBytesPerSecond;
    setup.network.transfer.lowSpeedTime = given.transfer.lowSpeedTime;
    if (!given.transfer.proxy.isEmpty())
        setup.network.transfer.proxy = given.transfer.proxy;
    if (!given.transfer.caBundle.isEmpty())
        setup.network.transfer.caBundle = given.transfer.caBundle;
    if (!given.nvidiaMirror.isEmpty())
        setup.network.nvidiaMirror = given.nvidiaMirror;
    for (qsizetype i = given.pypiIndexes.size() - 1; i >= 0; --i) {
        setup.network.pypiIndexes.removeAll(given.pypiIndexes.at(i));
        setup.network.pypiIndexes.prepend(given.pypiIndexes.at(i));
    }
    setup.network.bundleDir = given.bundleDir;
    setup.network.offline = given.offline;
    setup.network.originOverrides = given.originOverrides;
    setup.network.resolveTimeout = given.resolveTimeout;
    setup.cacheDir = options.cacheDir;
    if (setup.cacheDir.isEmpty() && !profile.cacheFolder.isEmpty()) {
        // The same rule as installFolder: an unset variable or a relative folder would put the
        // shared cache at the file-system root or wherever the command happened to start.
        const auto folder = LabProfile::expandFolder(m_system, profile.cacheFolder, QStringLiteral("cache"));
        if (!folder)
            return folder.error();
        setup.cacheDir = m_system.hostPath(*folder);
        if (setup.cacheDir.isEmpty()) {
            return Error{QStringLiteral("profile_cache_unusable"),
                         tr("The lab profile's cache folder %1 is not on this computer. Fix \"cache\" in the profile.")
                             .arg(profile.cacheFolder),
                         {}};
        }
    }
    if (setup.cacheDir.isEmpty())
        setup.cacheDir = DownloadCache::defaultDir();
    return in;
}

QCoro::Task<Result<InstallOutcome>> LabSetup::install(LabProfile profile, LabSetupOptions options, QList<int> gpus)
{
    QPointer<LabSetup> self(this);
    const auto cancelled = [] { return Error{QStringLiteral("cancelled"), tr("The installation was cancelled."), {}}; };
    if (!options.knowledge)
        co_return Knowledge::notGiven();
    const Route *route = options.knowledge->catalog.route(profile.route);
    if (!route) {
        co_return Error{QStringLiteral("profile_route_unknown"),
                        tr("The lab profile asks for the route \"%1\", which this tfsetup does not know. Update "
                           "tfsetup or ask the lab administrator.")
                            .arg(profile.route),
                        {}};
    }
    auto in = inputs(profile, options);
    if (!in)
        co_return in.error();
    in->spec.gpus = gpus;
    // What the plan promises is checked before anything is fetched: first the plan alone, then
    // against the files found, before the disk is measured or pip's resolver runs (a plan that
    // cannot be kept is what the administrator must hear, not "free 6 GB first").
    if (const Status named = checkPromise(profile, *route, {}, QStringLiteral("-"), options.knowledge.get()); !named)
        co_return named.error();
    const auto keepsThePromise = [this, &profile, route, &options](const ArtifactList &files) {
        InstallSpec found;
        for (const Artifact &a : files.artifacts) {
            InstallArtifact archive;
            archive.kind = a.kind;
            archive.component = a.name;
            found.artifacts.append(archive);
        }
        Status kept = checkPromise(profile, *route, found, options.sourcesCatalog, options.knowledge.get());
        if (!kept) {
            // Why a file is missing (a cuDNN built for another CUDA, …) is in the resolver's notes.
            for (const Finding &w : files.warnings)
                Q_EMIT message(tr("note: %1").arg(w.message));
        }
        return kept;
    };
    // Then the one pipeline: prepare, fetch, install (its notes pass through message()).
    auto installed = co_await m_pipeline.run(in->plan, in->spec, in->options, keepsThePromise);
    if (!self)
        co_return cancelled();
    co_return installed;
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
    if (!knowledge)
        return Knowledge::notGiven();
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
