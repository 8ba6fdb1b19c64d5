#include "setup/upgrade.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "detect/detector.h"
#include "install/environmentrecord.h"
#include "install/launchers.h"
#include "solver/solver.h"
#include "util/jsonshape.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>

namespace tfsetup::core {

namespace {

QJsonArray findingsJson(const QList<Finding> &findings)
{
    QJsonArray out;
    for (const Finding &f : findings)
        out.append(f.toJson());
    return out;
}

// Releases are compared by minor version: a plan's requirement takes the minor's latest patch
// ("tensorflow==2.16.*"), so 2.16.2 installed is not older than the tested 2.16.1.
bool newerRelease(const QString &installed, const QString &candidate)
{
    return version::less(version::majorMinor(installed), version::majorMinor(candidate));
}

// An environment folder as the solver and the installer see it.
struct Environment {
    QString path;   // view spelling, normalised
    QString prefix; // its parent
    QString name;   // its folder name
    QString host;
    EnvironmentRecord record;
    InstallSpec asked; // the record's plan, typed
    QString route;
    QString tensorflow;
    QString python;
};

Result<Environment> readEnvironment(const SystemView &system, const QString &path)
{
    Environment env;
    env.path = system.normalize(path.trimmed());
    const qsizetype slash = env.path.lastIndexOf(u'/');
    if (env.path.isEmpty() || slash < 0 || slash == env.path.size() - 1) {
        return Error{QStringLiteral("usage"),
                     UpgradeProposal::tr("Give the environment folder to upgrade, for example %1.")
                         .arg(SystemView::join(SetupOptions::defaultPrefix(system), QStringLiteral("tf2.15-cuda12.2"))),
                     path};
    }
    env.prefix = slash == 0 ? QStringLiteral("/") : env.path.left(slash);
    if (env.prefix.endsWith(u':'))
        env.prefix += u'/';
    env.name = env.path.mid(slash + 1);
    env.host = system.hostPath(env.path);
    if (env.host.isEmpty() || !QFileInfo(env.host).isDir()) {
        return Error{QStringLiteral("environment_missing"),
                     UpgradeProposal::tr("There is no environment folder %1. Give the folder that holds "
                                         "environment.json (tfsetup list shows them).")
                         .arg(env.path),
                     env.host};
    }
    if (!QFileInfo::exists(env.host + QStringLiteral("/environment.json"))) {
        return Error{QStringLiteral("not_environment"),
                     UpgradeProposal::tr("%1 was not made by tfsetup (it holds no environment.json), so tfsetup "
                                         "does not upgrade it. Make a new environment with the wizard or tfsetup "
                                         "install instead.")
                         .arg(env.path),
                     env.host};
    }
    auto record = EnvironmentRecord::read(env.host);
    if (!record)
        return record.error();
    env.record = *record;
    env.asked = record->plan();
    env.route = env.asked.route;
    env.tensorflow = record->tensorflowVersion();
    env.python = version::majorMinor(record->pythonVersion);
    if (record->pythonVersion.isEmpty())
        env.python = env.asked.python;
    if (env.route.isEmpty() || !version::isValid(env.tensorflow)) {
        return Error{QStringLiteral("record_incomplete"),
                     UpgradeProposal::tr("The record of %1 does not say which route and TensorFlow it has, so "
                                         "tfsetup cannot tell what is newer. Run tfsetup repair --env %1 first.")
                         .arg(env.path),
                     env.route + u' ' + env.tensorflow};
    }
    return env;
}

// The display name the environment's kernel carries, unless it is the installer's default for
// the old release (the new one then gets the default for its own release).
QString customKernelDisplayName(const SystemView &system, const Environment &env)
{
    const auto bytes = system.readFile(SystemView::join(env.path, QStringLiteral("kernel/kernel.json")), 1024 * 1024);
    if (!bytes)
        return {};
    const QString shown = QJsonDocument::fromJson(*bytes).object().value(QStringLiteral("display_name")).toString();
    const QString recorded = env.asked.tensorflow;
    for (const QString &tf : {recorded, env.tensorflow}) {
        if (shown == QCoreApplication::translate("Installer", "TensorFlow %1 (%2)").arg(tf, env.name)
            || shown == QCoreApplication::translate("Installer", "TensorFlow %1 (%2)").arg(tf, env.record.name))
            return {};
    }
    return shown;
}

// The indexes the environment's packages came from, in the order the lock names them, when they
// were not the official one: a lab's or a mirror's, which the upgrade keeps unless told otherwise.
QStringList recordedIndexes(const EnvironmentRecord &record, const QString &officialBase)
{
    QStringList out;
    for (const LockedWheel &w : record.lock.packages) {
        if (w.index.isEmpty() || out.contains(w.index))
            continue;
        if (!officialBase.isEmpty() && QUrl(w.index).host() == QUrl(officialBase).host())
            continue;
        out.append(w.index);
    }
    return out;
}

// The options of the environment's own install, with what the request sets on top, and the
// knowledge the upgrade was planned with.
SetupOptions setupFor(const SystemView &system, const Environment &env, const UpgradeRequest &request,
                      const KnowledgePtr &knowledge)
{
    SetupOptions options = request.setup;
    options.knowledge = knowledge;
    options.prefix = env.prefix;
    options.name = env.name;
    options.jupyter = !env.asked.jupyter.isEmpty();
    if (options.cacheDir.isEmpty())
        options.cacheDir = SetupOptions::defaultCacheDir(system);
    if (options.network.pypiIndexes.isEmpty() && options.network.bundleDir.trimmed().isEmpty())
        options.network.pypiIndexes = recordedIndexes(env.record,
                                                      knowledge->sources.originBase(QStringLiteral("pypi")));
    return options;
}

// What the record says the environment was made with and registered, kept for the new version:
// the extra packages a lab profile added, the GPUs it pins, its Jupyter front end and kernel.
void keepRegistrations(const SystemView &system, const Environment &env, InstallSpec &spec)
{
    QStringList named;
    for (const QString &r : std::as_const(spec.requirements))
        named.append(requirementProject(r));
    for (const QString &extra : env.asked.extraRequirements()) {
        if (!named.contains(requirementProject(extra)))
            spec.requirements.append(extra);
    }
    spec.gpus = env.asked.gpus;
    spec.jupyter = env.asked.jupyter;
    spec.kernelName = env.asked.kernelName;
    spec.kernelDisplayName = customKernelDisplayName(system, env);
    spec.registerKernel = !env.record.kernelFolder.isEmpty();
    spec.desktopEntry = std::any_of(env.record.files.cbegin(), env.record.files.cend(), [](const RecordedFile &f) {
        return f.path.startsWith(QStringLiteral("kernel/")) && f.path.endsWith(QStringLiteral(".desktop"));
    });
}

// The new version's install: the new plan in the environment's folder, with what the record says
// the environment was made with kept (keepRegistrations), the interpreter for the new plan's
// Python from the machine's report.
Result<InstallSpec> specFor(const SystemView &system, const Environment &env, const Plan &plan,
                            const SetupOptions &options, const HardwareReport &hardware)
{
    auto spec = SetupFlow::baseSpec(plan, options, hardware);
    if (!spec)
        return spec;
    keepRegistrations(system, env, *spec);
    return spec;
}

// The plan the solution ranks first among those newer than the environment's release, unless
// the solver ranks the environment's own release above it (a newer one resting on an unverified
// record, or needing PTX JIT): then none, and the newer ones in `outranked`.
std::optional<Plan> firstNewer(const Solution &solution, const Environment &env, QList<Plan> *outranked = nullptr)
{
    QList<Plan> ranked;
    if (solution.recommended)
        ranked.append(*solution.recommended);
    ranked += solution.alternatives;
    bool ownFirst = false;
    for (const Plan &p : std::as_const(ranked)) {
        if (p.route != env.route)
            continue;
        if (version::majorMinor(p.tensorflow) == version::majorMinor(env.tensorflow)) {
            ownFirst = true;
        } else if (newerRelease(env.tensorflow, p.tensorflow)) {
            if (!ownFirst)
                return p;
            if (outranked)
                outranked->append(p);
        }
    }
    return std::nullopt;
}

QString megabytes(qint64 bytes)
{
    return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', bytes < 10 * 1024 * 1024 ? 1 : 0);
}

} // namespace

// --- UpgradeProposal ---

QJsonObject UpgradeProposal::toJson() const
{
    QJsonArray blockedJson;
    for (const Rejection &r : blocked)
        blockedJson.append(r.toJson());
    QJsonObject download{{QStringLiteral("bytes"), double(downloadBytes)},
                         {QStringLiteral("files"), downloadFiles},
                         {QStringLiteral("pip"), QJsonArray::fromStringList(pipPackages)},
                         {QStringLiteral("error"),
                          resolveError.code.isEmpty()
                              ? QJsonValue(QJsonValue::Null)
                              : QJsonValue(QJsonObject{{QStringLiteral("code"), resolveError.code},
                                                       {QStringLiteral("message"), resolveError.message},
                                                       {QStringLiteral("detail"), resolveError.detail}})}};
    return QJsonObject{
        {QStringLiteral("status"), status},
        {QStringLiteral("message"), message},
        {QStringLiteral("environment"), environmentPath},
        {QStringLiteral("route"), route},
        {QStringLiteral("from"),
         QJsonObject{{QStringLiteral("tensorflow"), fromTensorflow},
                     {QStringLiteral("python"), textOrNull(fromPython)},
                     {QStringLiteral("cuda"), textOrNull(fromCuda)},
                     {QStringLiteral("cudnn"), textOrNull(fromCudnn)}}},
        {QStringLiteral("to"), plan ? QJsonValue(plan->toJson()) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("python_changed"), pythonChanged},
        {QStringLiteral("blocked"), blockedJson},
        {QStringLiteral("notes"), findingsJson(notes)},
        {QStringLiteral("download"), plan ? QJsonValue(download) : QJsonValue(QJsonValue::Null)},
    };
}

QString UpgradeProposal::text() const
{
    QString out = message + u'\n';
    if (plan) {
        out += tr("  TensorFlow %1 → %2 (route %3)\n").arg(fromTensorflow, plan->tensorflow, route);
        out += pythonChanged ? tr("  Python %1 → %2\n").arg(fromPython, plan->python)
                             : tr("  Python %1 (kept)\n").arg(plan->python);
        if (!plan->cuda.isEmpty() || !fromCuda.isEmpty()) {
            out += tr("  CUDA %1 → %2, cuDNN %3 → %4\n")
                       .arg(fromCuda.isEmpty() ? tr("none") : fromCuda, plan->cuda.isEmpty() ? tr("none") : plan->cuda,
                            fromCudnn.isEmpty() ? tr("none") : fromCudnn,
                            plan->cudnn.isEmpty() ? tr("none") : plan->cudnn);
        }
        for (const Finding &a : plan->actions)
            out += tr("  First: %1\n").arg(a.message);
        for (const Finding &w : plan->warnings)
            out += tr("  Note: %1\n").arg(w.message);
        if (!resolveError.code.isEmpty()) {
            out += tr("  Download: not known yet (%1)\n").arg(resolveError.message);
        } else {
            if (downloadFiles > 0)
                out += tr("  Download: %n file(s), %1 MB, each checked against its checksum (files already in the "
                          "cache are not fetched again)\n",
                          nullptr, downloadFiles)
                           .arg(megabytes(downloadBytes));
            if (!pipPackages.isEmpty())
                out += tr("  Python packages: %1 (locked by pip's resolver; each wheel is checked against its hash)\n")
                           .arg(pipPackages.join(QStringLiteral(", ")));
        }
        out += tr("  Your own files in the environment are kept; the current version stays in use until the new "
                  "one is complete.\n");
    }
    for (const Rejection &r : blocked) {
        QStringList reasons;
        for (const Finding &f : r.reasons)
            reasons.append(f.message);
        out += r.tensorflow.isEmpty() ? tr("  The %1 route: %2\n").arg(r.route, reasons.join(u' '))
                                      : tr("  TensorFlow %1: %2\n").arg(r.tensorflow, reasons.join(u' '));
    }
    for (const Finding &n : notes)
        out += tr("  Note: %1\n").arg(n.message);
    return out;
}

// --- UpgradeOutcome ---

QJsonObject UpgradeOutcome::toJson() const
{
    QJsonObject out = proposal.toJson();
    out.insert(QStringLiteral("unchanged"), install.unchanged);
    out.insert(QStringLiteral("launchers"), QJsonArray::fromStringList(install.launchers));
    out.insert(QStringLiteral("kernel_folder"), install.kernelFolder);
    out.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(install.warnings));
    out.insert(QStringLiteral("verify"), verify ? QJsonValue(verify->toJson()) : QJsonValue(QJsonValue::Null));
    out.insert(QStringLiteral("verify_problem"), textOrNull(verifyProblem));
    return out;
}

QString UpgradeOutcome::text() const
{
    QString out = tr("Upgraded %1 to TensorFlow %2.\n")
                      .arg(install.environmentPath, proposal.plan ? proposal.plan->tensorflow : QString());
    if (verify)
        out += verify->text();
    if (!verifyProblem.isEmpty())
        out += verifyProblem + u'\n';
    return out;
}

// --- Upgrader ---

Upgrader::Upgrader(SystemView &system, QObject *parent)
    : QObject(parent)
    , m_system(system)
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
    , m_pipeline(system)
{
    connect(&m_pipeline, &SetupPipeline::message, this, &Upgrader::message);
    connect(&m_pipeline, &SetupPipeline::downloadProgress, this, &Upgrader::downloadProgress);
    connect(&m_pipeline, &SetupPipeline::fileProgress, this, &Upgrader::fileProgress);
    connect(&m_pipeline, &SetupPipeline::stepStarted, this, &Upgrader::stepStarted);
    connect(&m_pipeline, &SetupPipeline::stepFinished, this, &Upgrader::stepFinished);
    connect(&m_pipeline, &SetupPipeline::installProgress, this, &Upgrader::progress);
    connect(&m_pipeline, &SetupPipeline::logLine, this, &Upgrader::logLine);
}

Upgrader::~Upgrader() = default;

void Upgrader::cancel()
{
    m_cancel->store(true);
    m_pipeline.cancel();
}

void Upgrader::setInstallCheckpoint(std::function<Status(InstallStep)> checkpoint)
{
    m_pipeline.setInstallCheckpoint(std::move(checkpoint));
}

Error Upgrader::cancelledError() const
{
    return Error{QStringLiteral("cancelled"), tr("The upgrade was cancelled; the environment is as it was."), {}};
}

QCoro::Task<Result<UpgradeProposal>> Upgrader::propose(UpgradeRequest request)
{
    m_cancel->store(false);
    auto read = readEnvironment(m_system, request.environmentPath);
    if (!read)
        co_return read.error();
    const Environment env = *read;
    const KnowledgePtr knowledge = request.knowledge;
    if (!knowledge)
        co_return Knowledge::notGiven();
    if (!knowledge->catalog.route(env.route)) {
        co_return Error{QStringLiteral("route_unknown"),
                        tr("%1 was installed on the route \"%2\", which this tfsetup does not know. Update tfsetup.")
                            .arg(env.path, env.route),
                        {}};
    }
    if (!env.asked.requirementsLockSha256.isEmpty()) {
        co_return Error{QStringLiteral("environment_locked"),
                        tr("%1 was installed from a hash-locked requirements file (a lab profile), which pins its "
                           "TensorFlow. Upgrade it with the lab's new profile: tfsetup install --profile FILE --yes.")
                            .arg(env.path),
                        {}};
    }
    if (!request.tensorflow.isEmpty() && !newerRelease(env.tensorflow, request.tensorflow)) {
        co_return Error{QStringLiteral("not_newer"),
                        tr("TensorFlow %1 is not newer than the environment's %2. An upgrade only goes to a newer "
                           "release; for another one, make a new environment.")
                            .arg(request.tensorflow, env.tensorflow),
                        {}};
    }

    HardwareReport hardware;
    if (request.hardware) {
        hardware = *request.hardware;
    } else {
        QPointer<Upgrader> self(this);
        auto detecting = detectHardware(m_system);
        hardware = co_await detecting;
        if (!self || m_cancel->load())
            co_return cancelledError();
    }
    if (!hardware.os.family.isEmpty() && !env.record.os.isEmpty() && hardware.os.family != env.record.os) {
        co_return Error{QStringLiteral("environment_other_system"),
                        tr("%1 was made for %2, and this machine runs %3. Upgrade it on the system it was made for.")
                            .arg(env.path, env.record.os, hardware.os.family),
                        {}};
    }

    UpgradeProposal proposal;
    proposal.environmentPath = env.path;
    proposal.name = env.name;
    proposal.fingerprint = env.record.fingerprint;
    proposal.route = env.route;
    proposal.fromTensorflow = env.tensorflow;
    proposal.fromPython = env.python;
    proposal.fromCuda = env.asked.cuda;
    proposal.fromCudnn = env.asked.cudnn;
    proposal.hardware = hardware;

    // The driver stays as it is: a release that needs a newer one does not fit this machine now.
    const Solver solver(knowledge->catalog, &knowledge->gpus);
    SolverConstraints constraints;
    constraints.route = env.route;
    constraints.tensorflow = request.tensorflow;
    constraints.keepDriver = true;
    constraints.python = env.python;
    const Solution keepingPython = solver.solve(hardware, constraints);
    if (keepingPython.hasWarning(QStringLiteral("no_such_release"))) {
        for (const Finding &w : keepingPython.warnings) {
            if (w.code == u"no_such_release")
                co_return Error{w.code, w.message, request.tensorflow};
        }
    }
    QList<Plan> outranked;
    proposal.plan = firstNewer(keepingPython, env, &outranked);
    constraints.python.clear();
    const Solution anyPython = solver.solve(hardware, constraints);
    if (!proposal.plan && outranked.isEmpty()) {
        proposal.plan = firstNewer(anyPython, env, &outranked);
        if (proposal.plan) {
            proposal.pythonChanged = version::majorMinor(proposal.plan->python) != env.python;
            proposal.notes.append(
                {QStringLiteral("python_changed"),
                 tr("TensorFlow %1 does not support Python %2, which the environment has; the "
                    "upgraded environment gets Python %3.")
                     .arg(version::majorMinor(proposal.plan->tensorflow), env.python, proposal.plan->python)});
        }
    }
    if (!proposal.plan && !outranked.isEmpty()) {
        QStringList newer;
        for (const Plan &p : std::as_const(outranked))
            newer.append(p.tensorflow);
        proposal.status = QStringLiteral("current");
        proposal.message = tr("%1 has TensorFlow %2, which the solver ranks above the newer releases that would run "
                              "here (%3); give --tf to upgrade to one of them anyway.")
                               .arg(env.path, env.tensorflow, newer.join(QStringLiteral(", ")));
        for (const Plan &p : std::as_const(outranked)) {
            for (const Finding &w : p.warnings)
                proposal.notes.append({w.code, tr("TensorFlow %1: %2").arg(p.tensorflow, w.message)});
        }
        co_return proposal;
    }
    if (!proposal.plan) {
        for (const Rejection &r : anyPython.rejected) {
            if (r.route == env.route && (r.tensorflow.isEmpty() || newerRelease(env.tensorflow, r.tensorflow)))
                proposal.blocked.append(r);
        }
        if (proposal.blocked.isEmpty()) {
            proposal.status = QStringLiteral("current");
            proposal.message = tr("%1 has TensorFlow %2, the newest release tfsetup knows for the %3 route; there "
                                  "is nothing to upgrade.")
                                   .arg(env.path, env.tensorflow, env.route);
        } else {
            proposal.status = QStringLiteral("blocked");
            proposal.message = request.tensorflow.isEmpty()
                ? tr("No TensorFlow newer than %1 runs on this machine on the %2 route; %3 stays "
                     "as it is.")
                      .arg(env.tensorflow, env.route, env.path)
                : tr("TensorFlow %1 cannot run on this machine on the %2 route; %3 stays as it is.")
                      .arg(request.tensorflow, env.route, env.path);
        }
        co_return proposal;
    }
    proposal.status = QStringLiteral("upgrade");
    proposal.message =
        tr("%1 can be upgraded from TensorFlow %2 to %3.").arg(env.path, env.tensorflow, proposal.plan->tensorflow);

    // The files it takes, pip's resolver included: network reads only, nothing is installed.
    const SetupOptions options = setupFor(m_system, env, request, knowledge);
    auto spec = specFor(m_system, env, *proposal.plan, options, proposal.hardware);
    if (!spec) {
        proposal.resolveError = spec.error();
        co_return proposal;
    }
    QPointer<Upgrader> self(this);
    auto preparing = m_pipeline.prepare(*proposal.plan, *spec, options);
    auto prepared = co_await preparing;
    if (!self || m_cancel->load())
        co_return cancelledError();
    if (!prepared) {
        proposal.resolveError = prepared.error();
        co_return proposal;
    }
    proposal.notes += prepared->warnings;
    for (const DownloadRequest &r : std::as_const(prepared->downloads)) {
        proposal.downloadBytes += std::max<qint64>(0, r.expectedSize);
        ++proposal.downloadFiles;
    }
    for (const LockedWheel &w : std::as_const(prepared->lock.packages))
        proposal.pipPackages.append(w.name + QStringLiteral("==") + w.version);
    proposal.prepared = *prepared;
    co_return proposal;
}

QCoro::Task<Result<UpgradeOutcome>> Upgrader::upgrade(UpgradeProposal proposal, UpgradeRequest request)
{
    m_cancel->store(false);
    if (!proposal.canUpgrade()) {
        co_return Error{QStringLiteral("no_upgrade"),
                        proposal.message.isEmpty() ? tr("There is nothing to upgrade.") : proposal.message,
                        {}};
    }
    if (request.environmentPath.isEmpty())
        request.environmentPath = proposal.environmentPath;
    auto read = readEnvironment(m_system, request.environmentPath);
    if (!read)
        co_return read.error();
    const Environment env = *read;
    if (env.record.fingerprint != proposal.fingerprint || env.path != proposal.environmentPath) {
        co_return Error{QStringLiteral("environment_changed"),
                        tr("%1 changed since the upgrade was proposed. Ask for the proposal again.").arg(env.path),
                        {}};
    }
    const KnowledgePtr knowledge = request.knowledge;
    if (!knowledge)
        co_return Knowledge::notGiven();
    const Plan plan = *proposal.plan;
    const SetupOptions options = setupFor(m_system, env, request, knowledge);
    QPointer<Upgrader> self(this);
    auto spec = specFor(m_system, env, plan, options, proposal.hardware);
    if (!spec)
        co_return spec.error();

    PreparedSetup prepared;
    if (proposal.prepared) {
        prepared = *proposal.prepared;
    } else {
        Q_EMIT message(tr("Finding the files TensorFlow %1 needs…").arg(plan.tensorflow));
        auto preparing = m_pipeline.prepare(plan, *spec, options);
        auto ready = co_await preparing;
        if (!self || m_cancel->load())
            co_return cancelledError();
        if (!ready)
            co_return ready.error();
        prepared = *ready;
    }
    auto fetching = m_pipeline.fetch(prepared.downloads, options.network, options.cacheDir);
    const auto fetched = co_await fetching;
    if (!self || m_cancel->load())
        co_return cancelledError();
    if (!fetched)
        co_return fetched.error();
    auto complete = SetupFlow::completeSpec(*spec, prepared.artifacts, prepared.lock, *fetched, options);
    if (!complete)
        co_return complete.error();
    auto installing = m_pipeline.install(*complete, options);
    auto installed = co_await installing;
    if (!self)
        co_return cancelledError();
    if (!installed)
        co_return installed.error();

    UpgradeOutcome outcome;
    outcome.proposal = proposal;
    outcome.install = *installed;
    if (request.verify) {
        Q_EMIT message(tr("Verifying %1: loading its GPU libraries, then running TensorFlow…").arg(env.path));
        // The new version is in place by now: what keeps it from being verified is reported, not
        // an error (which would say the old environment is still there).
        auto info = EnvironmentInfo::read(m_system, env.path);
        if (!info) {
            outcome.verifyProblem = info.error().message;
            co_return outcome;
        }
        VerifyRequest verify = VerifyRequest::forEnvironment(*info, knowledge->catalog);
        verify.probe = request.probe;
        auto verifying = verifyEnvironment(m_system, verify, knowledge->catalog);
        outcome.verify = co_await verifying;
        if (!self)
            co_return cancelledError();
    }
    co_return outcome;
}

} // namespace tfsetup::core
