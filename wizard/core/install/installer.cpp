#include "install/installer.h"

#include "catalog/knowledge.h"
#include "fetch/checksum.h"
#include "install/archive.h"
#include "install/launchers.h"
#include "install/placement.h"
#include "install/transaction.h"
#include "install/worklock.h"
#include "system/diskspace.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/names.h"

#include <QCoro/QCoroFuture>
#include <QCoro/QCoroTimer>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSet>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

constexpr auto venvTimeout = std::chrono::minutes(5);
constexpr auto pythonInstallerTimeout = std::chrono::minutes(20);
constexpr auto pipTimeout = std::chrono::minutes(60);
constexpr auto quickTimeout = std::chrono::minutes(2);

Error cancelledError()
{
    return Error{QStringLiteral("cancelled"),
                 QCoreApplication::translate("Installer", "The install was cancelled. Nothing was changed."),
                 {}};
}

Error writeError(const QString &path, const QString &detail = {})
{
    return Error{QStringLiteral("write_failed"),
                 QCoreApplication::translate("Installer",
                                             "Cannot write %1. Check the free space and that the "
                                             "install folder is yours.")
                     .arg(path),
                 detail};
}

// A confined write that failed, as the install reports it: a link on the way or a full disk in
// their own words, anything else as a write to `shown` that failed.
Error writeFailure(const Status &written, const QString &shown)
{
    const QString code = written.error().code;
    if (code == u"path_through_link" || code == u"disk_full")
        return written.error();
    return writeError(shown, written.error().detail);
}

QByteArray sha256Of(const QByteArray &bytes)
{
    Hasher h(Checksum::Algorithm::Sha256);
    h.addData(bytes);
    return h.finalHex();
}

// The files and links below root, relative to it: a link (to a file, to a folder of data, or
// dangling) is listed as itself and never descended into.
QStringList walkFilesAndLinks(const QString &root)
{
    QStringList out;
    QDirIterator it(root, QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        if (info.isSymLink() || info.isJunction() || !info.isDir())
            out.append(QDir(root).relativeFilePath(it.filePath()));
    }
    return out;
}

QString pyvenvVersion(const QString &hostVenv)
{
    QFile f(hostVenv + QStringLiteral("/pyvenv.cfg"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QString fallback;
    for (const QByteArray &raw : f.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw);
        const QString key = line.section(u'=', 0, 0).trimmed();
        const QString value = line.section(u'=', 1).trimmed();
        if (key == u"version_info" || key == u"version")
            fallback = value;
    }
    return fallback;
}

// Blocking work for the thread pool. Plain functions, not lambdas: g++ 12 miscompiles lambdas
// with init-captures inside coroutines.
using CancelFlag = std::shared_ptr<std::atomic<bool>>;

// The venv's interpreter below a host folder, in the host's spelling (LauncherWriter::venvPython
// spells a Windows target's path the Windows way, which a fixture drive on Linux cannot open).
QString hostVenvPython(OsFamily os, const QString &hostEnvironment)
{
    return hostEnvironment
        + (os == OsFamily::Windows ? QStringLiteral("/venv/Scripts/python.exe") : QStringLiteral("/venv/bin/python"));
}

// Python or pip that stopped because the disk (or the user's quota) is full: by its own words
// when they reach the output, else by the space left where the environment is made (venv says
// only that its ensurepip child failed, and a full disk is the usual reason on a working Python).
// Debian's "ensurepip is not available" is a missing package whatever the space.
std::optional<Error> diskFullError(const SystemView &system, const QString &folder, const QString &output,
                                   const QString &purpose, const QString &detail)
{
    if (output.simplified().contains(QStringLiteral("ensurepip is not available")))
        return std::nullopt;
    for (const char *words :
         {"No space left on device", "[Errno 28]", "ENOSPC", "Disk quota exceeded", "[Errno 122]"}) {
        if (output.contains(QLatin1String(words))) {
            return Error{QStringLiteral("disk_full"),
                         Installer::tr("The disk holding %1 is full (or your disk quota is used up), so %2 could not "
                                       "be written. Free some space or choose a folder on another disk, then install "
                                       "again.")
                             .arg(folder, purpose),
                         detail};
        }
    }
    constexpr qint64 venvBytes = 64LL * 1024 * 1024;
    if (const Status space = DiskSpaceCheck::check(system, {{folder, venvBytes, purpose}}); !space)
        return Error{space.error().code, space.error().message, detail};
    return std::nullopt;
}

// By SHA-256; by MD5 only where the publisher gives nothing stronger (python.org's older installers).
Result<QByteArray> hashArtifact(const InstallArtifact &artifact, const CancelFlag &cancel)
{
    const auto algorithm = artifact.sha256.isEmpty() ? Checksum::Algorithm::Md5 : Checksum::Algorithm::Sha256;
    return hashFile(algorithm, artifact.path, cancel.get());
}

Result<QList<ExtractedEntry>> extractArchive(const QString &path, const QString &dest, const CancelFlag &cancel)
{
    ExtractOptions options;
    options.cancel = cancel.get();
    return ArchiveReader::extract(path, dest, options);
}

// Empty when every recorded file is there with its recorded digest; else the first problem.
QString checkFiles(const QString &root, const QList<RecordedFile> &files, const CancelFlag &cancel)
{
    for (const RecordedFile &f : files) {
        if (cancel && cancel->load())
            return QStringLiteral("cancelled");
        const QString path = root + u'/' + f.path;
        if (!f.linkTarget.isEmpty()) {
            if (QFileInfo(path).symLinkTarget().isEmpty())
                return f.path + QStringLiteral(": link missing");
            continue;
        }
        const auto digest = hashFile(Checksum::Algorithm::Sha256, path);
        if (!digest || *digest != f.sha256)
            return f.path + QStringLiteral(": content differs from what was recorded");
    }
    return {};
}

} // namespace

QString installStepId(InstallStep step)
{
    switch (step) {
    case InstallStep::Prepare: return QStringLiteral("prepare");
    case InstallStep::Extract: return QStringLiteral("extract");
    case InstallStep::Place: return QStringLiteral("place");
    case InstallStep::Python: return QStringLiteral("python");
    case InstallStep::Packages: return QStringLiteral("packages");
    case InstallStep::Launchers: return QStringLiteral("launchers");
    case InstallStep::Record: return QStringLiteral("record");
    case InstallStep::Verify: return QStringLiteral("verify");
    case InstallStep::Commit: return QStringLiteral("commit");
    case InstallStep::Register: return QStringLiteral("register");
    }
    return {};
}

QList<InstallStep> allInstallSteps()
{
    return {InstallStep::Prepare,  InstallStep::Extract,   InstallStep::Place,  InstallStep::Python,
            InstallStep::Packages, InstallStep::Launchers, InstallStep::Record, InstallStep::Verify,
            InstallStep::Commit,   InstallStep::Register};
}

struct Installer::Run {
    InstallSpec spec;
    QString hostPrefix;
    QString hostTarget;
    QString hostStaging;
    QString hostUnpack;
    EnvironmentRecord record;
    PlacementRules placement;
    LauncherSettings launchers;
    QString libraryFolder;
    bool hasNvvm = false;
    QString kernelFolder; // target path
    QString interpreter;  // host path of the interpreter the venv was made from; empty without a venv
    QStringList warnings; // for the outcome
    // The log, the lock (held from Prepare to the end) and the staging folder; in the coroutine's
    // frame, so a deleted Installer ends the run as cancelled instead of being used after an await.
    Transaction tx;
    WorkLock *lock() const { return tx.workLock(); }

    Run(Installer *owner, const std::shared_ptr<std::atomic<bool>> &cancel)
        : tx(owner, QStringLiteral("install"), cancel, cancelledError())
    {
        QPointer<Installer> self(owner);
        tx.setLogSink([self](const QString &line) {
            if (self)
                Q_EMIT self->logLine(line);
        });
    }
};

Installer::Installer(SystemView &system, std::shared_ptr<const Knowledge> knowledge, QObject *parent)
    : QObject(parent)
    , m_system(system)
    , m_knowledge(std::move(knowledge))
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{}

Installer::~Installer()
{
    // A run still waiting ends as cancelled (Transaction::stopped()), its workers and processes too.
    m_cancel->store(true);
}

void Installer::cancel()
{
    m_cancel->store(true);
}

void Installer::setPackageLocker(PackageLocker locker)
{
    m_packageLocker = std::move(locker);
}

void Installer::setCheckpoint(std::function<Status(InstallStep)> checkpoint)
{
    m_checkpoint = std::move(checkpoint);
}

void Installer::setDrillPoint(std::function<void(const QString &)> drill)
{
    m_drill = std::move(drill);
}

QString Installer::stepTitle(InstallStep step) const
{
    switch (step) {
    case InstallStep::Prepare: return tr("Checking the downloaded files");
    case InstallStep::Extract: return tr("Unpacking CUDA and cuDNN");
    case InstallStep::Place: return tr("Putting the libraries in place");
    case InstallStep::Python: return tr("Creating the Python environment");
    case InstallStep::Packages: return tr("Installing TensorFlow with pip");
    case InstallStep::Launchers: return tr("Writing the launchers");
    case InstallStep::Record: return tr("Writing the environment record");
    case InstallStep::Verify: return tr("Verifying every file");
    case InstallStep::Commit: return tr("Switching to the new environment");
    case InstallStep::Register: return tr("Registering the Jupyter kernel and shortcut");
    }
    return {};
}

void Installer::log(Run &run, const QString &line)
{
    run.tx.log(line);
}

Status Installer::enter(Run &run, InstallStep step)
{
    std::function<Status()> checkpoint;
    if (m_checkpoint)
        checkpoint = [this, step] { return m_checkpoint(step); };
    return run.tx.enter(
        installStepId(step), [this, step] { Q_EMIT stepStarted(step, stepTitle(step)); }, checkpoint);
}

Result<QStringList> Installer::recoverLeftovers(const QString &hostPrefix, const QString &name)
{
    auto lock = WorkLock::acquire(hostPrefix, name, hostPrefix + u'/' + name);
    if (!lock)
        return lock.error();
    return (*lock)->recover();
}

QStringList Installer::pipInstallArguments(const QString &wheelFolder, const QString &requirementsFile)
{
    // Only the verified wheels, each pinned by its hash: nothing is fetched, nothing else installs.
    return {QStringLiteral("install"),
            QStringLiteral("--no-input"),
            QStringLiteral("--no-cache-dir"),
            QStringLiteral("--disable-pip-version-check"),
            QStringLiteral("--no-index"),
            QStringLiteral("--find-links"),
            wheelFolder,
            QStringLiteral("--require-hashes"),
            QStringLiteral("--only-binary=:all:"),
            QStringLiteral("-r"),
            requirementsFile};
}

QCoro::Task<ProcessResult> Installer::watched(Run &run, QString program, QStringList arguments,
                                              std::chrono::milliseconds timeout)
{
    ProcessRequest request;
    request.program = program;
    request.arguments = arguments;
    request.timeout = timeout;
    request.cancel = m_cancel;
    request.environment = {{QStringLiteral("PYTHONNOUSERSITE"), QStringLiteral("1")},
                           {QStringLiteral("PYTHONHOME"), QString()},
                           {QStringLiteral("PIP_NO_INPUT"), QStringLiteral("1")}};
    // pip installs the verified wheels alone: no pip.conf may add an index or a wheel folder.
    request.environment.append(
        {QStringLiteral("PIP_CONFIG_FILE"),
         m_system.os() == OsFamily::Windows ? QStringLiteral("nul") : QStringLiteral("/dev/null")});
    for (const char *name : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"})
        request.environment.append({QString::fromLatin1(name), QString()});
    QPointer<Installer> self(this);
    Run *runPtr = &run;
    request.onOutputLine = [self, runPtr](const QString &line) {
        if (self && !line.isEmpty())
            self->log(*runPtr, line);
    };
    log(run, QStringLiteral("$ %1 %2").arg(program, arguments.join(u' ')));
    ProcessResult result = co_await m_system.runWatched(std::move(request));
    // Recorded with the final folder, which is where the environment lives once committed.
    QStringList recorded;
    for (const QString &a : arguments)
        recorded.append(QString(a).replace(run.hostStaging, run.hostTarget));
    run.record.commands.append({QString(program).replace(run.hostStaging, run.hostTarget), recorded, result.exitCode});
    co_return result;
}

QCoro::Task<Result<InstallOutcome>> Installer::install(InstallSpec spec)
{
    m_cancel->store(false);
    if (!m_knowledge)
        co_return Knowledge::notGiven();
    Run run(this, m_cancel);
    run.spec = spec;
    if (!isSafePathName(spec.name) || spec.prefix.isEmpty()
        || (!spec.kernelName.isEmpty() && !isSafePathName(spec.kernelName))) {
        co_return Error{QStringLiteral("bad_name"),
                        tr("Choose a folder and an environment name without slashes, not starting with a dot."),
                        spec.prefix + u'|' + spec.name};
    }
    if (const Status carried = LauncherWriter::checkEnvironmentPath(m_system.os(), spec.environmentPath()); !carried)
        co_return carried.error();
    if (!spec.kernelName.isEmpty() && !isJupyterKernelName(spec.kernelName)) {
        co_return Error{QStringLiteral("bad_kernel_name"),
                        tr("The Jupyter kernel name \"%1\" is not one Jupyter lists as it is: use lower-case letters "
                           "a-z, digits, . _ and - only.")
                            .arg(spec.kernelName),
                        spec.kernelName};
    }
    run.hostPrefix = m_system.hostPath(spec.prefix);
    if (run.hostPrefix.isEmpty()) {
        co_return Error{QStringLiteral("bad_prefix"), tr("The install folder %1 cannot be used.").arg(spec.prefix), {}};
    }
    run.hostTarget = run.hostPrefix + u'/' + spec.name;
    // A name Jupyter lists: the environment's own when it is one, else one made from it.
    if (spec.kernelName.isEmpty())
        run.spec.kernelName = isJupyterKernelName(spec.name) ? spec.name : jupyterKernelName(spec.name);
    if (spec.kernelDisplayName.isEmpty())
        run.spec.kernelDisplayName = tr("TensorFlow %1 (%2)").arg(spec.tensorflow, spec.name);
    // Never another environment's kernel, nor the user's own: a name held elsewhere gives way to
    // one made for this environment, and the menu entry (same name) follows it.
    if (run.spec.registerKernel || run.spec.desktopEntry) {
        QString why;
        const QString own = LauncherWriter::ownKernelName(m_system, run.spec.kernelName, spec.environmentPath(), &why);
        if (own.isEmpty()) {
            run.spec.registerKernel = false;
            run.spec.desktopEntry = false;
        } else {
            run.spec.kernelName = own;
        }
        if (!why.isEmpty())
            run.warnings.append(why);
    }

    // A hash lock is all pip installs: without the kernel's packages the registered kernel could
    // never start, so such an environment is refused before anything changes.
    if (const QStringList missing = spec.missingFromLock(); !missing.isEmpty()) {
        co_return Error{QStringLiteral("lock_lacks_jupyter"),
                        tr("The hash-locked requirements file does not pin %1, which the environment's Jupyter "
                           "kernel needs. Add %1 with its hashes to the lock file (or make the offline bundle "
                           "again), then install again.")
                            .arg(missing.join(QStringLiteral(", "))),
                        spec.requirementsLock.left(3000)};
    }

    // The steps run from the event loop, never inside the caller: a wizard page that starts the
    // install while it is being shown is on screen (and can be closed) before the first step,
    // however fast the thread pool answers the awaits after it.
    QTimer turn;
    turn.setSingleShot(true);
    turn.start(0);
    co_await turn;
    if (run.tx.stopped())
        co_return run.tx.cancelledError();

    // --- Prepare ---
    if (auto s = enter(run, InstallStep::Prepare); !s)
        co_return s.error();
    // A prefix made for this run goes again if the run fails: a failed install leaves nothing.
    struct PrefixGuard {
        QString path;
        bool created = false;
        bool keep = false;
        std::unique_ptr<WorkLock> &lock; // released first: its files are in the prefix
        ~PrefixGuard()
        {
            if (created && !keep) {
                lock.reset();
                QDir().rmdir(path);
            }
        }
    } prefixGuard{run.hostPrefix, !QFileInfo::exists(run.hostPrefix), false, run.tx.lockHandle()};
    if (!QDir().mkpath(run.hostPrefix))
        co_return writeError(spec.prefix);
    // One install or repair per environment; what a killed one left is finished or undone first.
    if (const Status locked = run.tx.lock(run.hostPrefix, spec.name, spec.environmentPath()); !locked)
        co_return locked.error();
    run.placement = m_knowledge->placement;
    auto launchers = LauncherSettings::load();
    if (!launchers)
        co_return launchers.error();
    run.launchers = *launchers;

    // An environment folder that is a link: replacing "it" would empty what it points to.
    if (isLink(run.hostTarget)) {
        co_return Error{QStringLiteral("target_is_link"),
                        tr("%1 is a link to another folder. tfsetup does not install through links, so that "
                           "folder's files are not touched. Remove the link, or give the real folder with --prefix.")
                            .arg(spec.environmentPath()),
                        QFileInfo(run.hostTarget).symLinkTarget()};
    }
    // (co_await kept out of the condition: g++ 12 miscompiles it inside && and ?:.)
    bool complete = false;
    if (QFileInfo::exists(run.hostTarget))
        complete = co_await isComplete(spec, run.hostTarget);
    if (!run.tx.alive())
        co_return run.tx.cancelledError();
    if (complete) {
        log(run, QStringLiteral("%1 is complete and matches the plan; nothing to change").arg(spec.name));
        InstallOutcome outcome;
        outcome.environmentPath = spec.environmentPath();
        outcome.unchanged = true;
        outcome.warnings = run.warnings;
        const auto record = EnvironmentRecord::read(run.hostTarget);
        if (record) {
            for (const QString &l : record->launchers)
                outcome.launchers.append(SystemView::join(outcome.environmentPath, l));
            outcome.summary = record->summary();
            run.record = *record;
            // Derived as on a fresh install, never taken from the record: a damaged or foreign
            // record must not choose where the kernel is written.
            run.kernelFolder = LauncherWriter::userKernelFolder(m_system, run.spec.kernelName);
        }
        if (auto s = enter(run, InstallStep::Register); !s)
            co_return s.error();
        registerOutside(run, outcome);
        Q_EMIT stepFinished(InstallStep::Register);
        prefixGuard.keep = true;
        co_return outcome;
    }
    if (QFileInfo::exists(run.hostTarget) && !QFileInfo::exists(run.hostTarget + QStringLiteral("/environment.json"))
        && !QDir(run.hostTarget).isEmpty()) {
        co_return Error{QStringLiteral("target_not_environment"),
                        tr("The folder %1 already exists and was not made by tfsetup. Choose another environment "
                           "name, or move that folder away.")
                            .arg(spec.environmentPath()),
                        {}};
    }
    qint64 hashTotal = 0;
    for (const InstallArtifact &a : run.spec.artifacts)
        hashTotal += a.kind == u"python" ? 0 : QFileInfo(a.path).size();
    qint64 hashed = 0;
    for (const InstallArtifact &a : run.spec.artifacts) {
        if (a.kind == u"python")
            continue;
        // Named futures: g++ 12 destroys temporaries of a co_await expression twice.
        QFuture<Result<QByteArray>> hashing = QtConcurrent::run(&hashArtifact, a, m_cancel);
        const Result<QByteArray> digest = co_await hashing;
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        const QByteArray expected = a.sha256.isEmpty() ? a.md5 : a.sha256;
        if (!digest || expected.isEmpty() || *digest != expected) {
            co_return Error{QStringLiteral("artifact_changed"),
                            tr("The downloaded file %1 is missing or no longer matches its checksum. Download it "
                               "again.")
                                .arg(QFileInfo(a.path).fileName()),
                            digest ? QStringLiteral("expected %1, found %2")
                                         .arg(QString::fromLatin1(expected), QString::fromLatin1(*digest))
                                   : digest.error().detail};
        }
        // progress() is in bytes of the running step's files, so a page can weigh steps by bytes.
        hashed += QFileInfo(a.path).size();
        Q_EMIT progress(hashed, hashTotal);
    }
    const auto staging = run.tx.makeStaging();
    if (!staging)
        co_return writeError(spec.prefix, staging.error().detail);
    run.hostStaging = *staging;
    run.hostUnpack = run.hostStaging + QStringLiteral("/.unpack");
    if (!QDir().mkpath(run.hostUnpack)) {
        run.tx.removeStaging();
        co_return writeError(spec.prefix);
    }
    Q_EMIT stepFinished(InstallStep::Prepare);

    run.record.name = spec.name;
    run.record.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    run.record.tfsetupVersion = QCoreApplication::applicationVersion();
    run.record.os = osFamilyName(m_system.os());
    run.record.arch = m_system.arch();
    run.record.fingerprint = spec.fingerprint(); // of the request as given, defaults not filled in
    run.record.spec = run.spec.toJson();
    run.record.driver = spec.driver;

    Status built = co_await extractAndPlace(run);
    if (built)
        built = co_await createPython(run);
    if (built)
        built = co_await installPackages(run);
    if (built)
        built = writeLaunchers(run);
    if (built)
        built = writeRecord(run);
    if (built)
        built = co_await verifyStaging(run);
    if (built)
        built = commit(run);
    if (!built) {
        run.tx.fail(built.error());
        run.tx.removeStaging();
        co_return built.error();
    }

    prefixGuard.keep = true;
    InstallOutcome outcome;
    outcome.environmentPath = spec.environmentPath();
    outcome.warnings = run.warnings;
    for (const QString &l : run.record.launchers)
        outcome.launchers.append(SystemView::join(outcome.environmentPath, l));
    outcome.summary = run.record.summary();
    if (auto s = enter(run, InstallStep::Register); s) {
        registerOutside(run, outcome);
        Q_EMIT stepFinished(InstallStep::Register);
    } else {
        outcome.warnings.append(s.error().message);
    }
    co_return outcome;
}

QCoro::Task<Status> Installer::extractAndPlace(Run &run)
{
    if (auto s = enter(run, InstallStep::Extract); !s)
        co_return s;
    QList<std::pair<InstallArtifact, QList<ExtractedEntry>>> unpacked;
    qint64 total = 0;
    for (const InstallArtifact &a : run.spec.artifacts)
        total += a.isArchive() ? QFileInfo(a.path).size() : 0;
    // A full disk is said before anything unpacks, not by a write that fails half-way.
    if (const Status space = DiskSpaceCheck::check(
            m_system, {{run.spec.prefix, total * DiskSpaceCheck::unpackFactor, tr("the unpacked libraries")}});
        !space)
        co_return space.error();
    int index = 0;
    qint64 unpackedBytes = 0;
    for (const InstallArtifact &a : run.spec.artifacts) {
        if (!a.isArchive())
            continue;
        const QString dest = run.hostUnpack + u'/' + QString::number(index++);
        QDir().mkpath(dest);
        log(run, QStringLiteral("unpacking %1").arg(QFileInfo(a.path).fileName()));
        QFuture<Result<QList<ExtractedEntry>>> extracting = QtConcurrent::run(&extractArchive, a.path, dest, m_cancel);
        const Result<QList<ExtractedEntry>> entries = co_await extracting;
        if (!run.tx.alive())
            co_return run.tx.cancelledError();
        if (!entries)
            co_return entries.error();
        unpacked.append({a, *entries});
        unpackedBytes += QFileInfo(a.path).size();
        Q_EMIT progress(unpackedBytes, total);
    }
    Q_EMIT stepFinished(InstallStep::Extract);

    if (auto s = enter(run, InstallStep::Place); !s)
        co_return s;
    const int cudnnMajor = run.spec.cudnnMajor();
    QHash<QString, QString> placedBy; // destination → origin, across archives
    index = 0;
    for (const auto &[artifact, entries] : unpacked) {
        const QString source = run.hostUnpack + u'/' + QString::number(index++);
        auto placements = placeEntries(run.placement, m_system.os(), run.spec.layout,
                                       artifact.kind == u"cudnn-archive" ? cudnnMajor : 0, artifact.component, entries);
        if (!placements)
            co_return placements.error();
        QStringList placedNames;
        for (const Placement &p : *placements) {
            const QString key = m_system.os() == OsFamily::Windows ? p.to.toLower() : p.to;
            const QString origin =
                QStringLiteral("%1 %2 (%3): %4").arg(artifact.component, artifact.version, artifact.platform, p.from);
            if (placedBy.contains(key)) {
                co_return Error{QStringLiteral("placement_conflict"),
                                tr("Two of NVIDIA's archives contain %1. The downloaded archives do not belong "
                                   "together; plan again.")
                                    .arg(p.to),
                                placedBy.value(key) + QStringLiteral(" / ") + origin};
            }
            placedBy.insert(key, origin);
            // Moved and linked below the staging folder without following a link on the way.
            if (p.entry.kind == ExtractedEntry::Link) {
                if (const Status linked = linkConfined(run.hostStaging, p.to, p.entry.linkTarget); !linked)
                    co_return writeFailure(linked, p.to);
                run.record.files.append({p.to, {}, 0, origin, p.entry.linkTarget});
            } else {
                if (const Status moved = renameConfined(source, p.from, run.hostStaging, p.to); !moved)
                    co_return writeFailure(moved, p.to);
                run.record.files.append({p.to, p.entry.sha256, p.entry.size, origin, {}});
            }
            placedNames.append(QFileInfo(p.to).fileName());
            if (p.to.startsWith(QStringLiteral("cuda/lib64/")))
                run.libraryFolder = QStringLiteral("cuda/lib64");
            else if (p.to.startsWith(QStringLiteral("cuda/lib/")) && run.libraryFolder.isEmpty()
                     && m_system.os() != OsFamily::Windows)
                run.libraryFolder = QStringLiteral("cuda/lib");
            if (p.to.startsWith(QStringLiteral("cuda/nvvm/libdevice/")))
                run.hasNvvm = true;
        }
        if (artifact.kind == u"cudnn-archive") {
            const QStringList missing = run.placement.missingFromSet(m_system.os(), cudnnMajor, placedNames);
            if (!missing.isEmpty()) {
                co_return Error{QStringLiteral("cudnn_incomplete"),
                                tr("The cuDNN archive %1 lacks files that must be installed together (%2). Download "
                                   "the complete archive from NVIDIA again.")
                                    .arg(QFileInfo(artifact.path).fileName(), missing.join(QStringLiteral(", "))),
                                {}};
            }
        }
        log(run,
            QStringLiteral("placed %1 files from %2 %3")
                .arg(placements->size())
                .arg(artifact.component, artifact.version));
    }
    QDir(run.hostUnpack).removeRecursively();
    Q_EMIT stepFinished(InstallStep::Place);
    co_return Ok{};
}

const InstallArtifact *Installer::pythonArchiveOf(const InstallSpec &spec)
{
    for (const InstallArtifact &a : spec.artifacts) {
        if (a.kind == u"python-archive")
            return &a;
    }
    return nullptr;
}

QCoro::Task<Result<QString>> Installer::unpackPython(Run &run, InstallArtifact archive)
{
    // Unpacked beside the environment's files first, so a malformed archive leaves nothing in it.
    const QString unpack = run.hostStaging + QStringLiteral("/.unpack-python");
    if (!QDir().mkpath(unpack))
        co_return writeError(run.spec.environmentPath());
    log(run, QStringLiteral("unpacking %1").arg(QFileInfo(archive.path).fileName()));
    QFuture<Result<QList<ExtractedEntry>>> extracting = QtConcurrent::run(&extractArchive, archive.path, unpack,
                                                                          m_cancel);
    const Result<QList<ExtractedEntry>> entries = co_await extracting;
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    if (!entries)
        co_return entries.error();
    // python-build-standalone's install_only layout: everything below one top folder "python/".
    const QString top = QStringLiteral("python");
    const QString interpreter = m_system.os() == OsFamily::Windows ? QStringLiteral("python/python.exe")
                                                                   : QStringLiteral("python/bin/python3");
    bool hasInterpreter = false;
    for (const ExtractedEntry &e : *entries) {
        if (e.path != top && !e.path.startsWith(top + u'/')) {
            co_return Error{QStringLiteral("python_archive_layout"),
                            tr("The Python archive %1 is not laid out as a relocatable Python (everything in one "
                               "folder named python). Download it again from the official release.")
                                .arg(QFileInfo(archive.path).fileName()),
                            e.path};
        }
        hasInterpreter = hasInterpreter || e.path == interpreter;
    }
    if (!hasInterpreter) {
        co_return Error{QStringLiteral("python_archive_layout"),
                        tr("The Python archive %1 has no %2. Download it again from the official release.")
                            .arg(QFileInfo(archive.path).fileName(), interpreter),
                        {}};
    }
    if (const Status moved = renameConfined(unpack, top, run.hostStaging, top); !moved)
        co_return writeFailure(moved, run.spec.environmentPath() + u'/' + top);
    QDir(unpack).removeRecursively();
    const QString origin = QStringLiteral("python %1 (%2)").arg(archive.version, archive.platform);
    for (const ExtractedEntry &e : *entries) {
        if (e.kind == ExtractedEntry::File)
            run.record.files.append({e.path, e.sha256, e.size, origin, {}});
        else if (e.kind == ExtractedEntry::Link)
            run.record.files.append({e.path, {}, 0, origin, e.linkTarget});
    }
    log(run, QStringLiteral("unpacked Python %1 into %2").arg(archive.version, top));
    co_return QString(run.hostStaging + u'/' + interpreter);
}

QCoro::Task<Result<QString>> Installer::runPythonInstaller(Run &run, InstallArtifact setup)
{
    // python.org's installer registers where it put Python (for the py launcher and "Apps"), so it
    // installs straight into its final folder, per user, beside the environments: no PATH change,
    // nothing for all users. Environments of the same Python version share it.
    const QString target = SystemView::join(run.spec.prefix, QStringLiteral(".python-") + setup.version);
    const QString hostTarget = m_system.hostPath(target);
    const QString interpreter = hostTarget + QStringLiteral("/python.exe");
    if (QFileInfo::exists(interpreter)) {
        log(run, QStringLiteral("Python %1 is already installed in %2").arg(setup.version, target));
        co_return interpreter;
    }
    const QString nativeTarget = m_system.os() == OsFamily::Windows ? QString(target).replace(u'/', u'\\') : target;
    QStringList arguments;
    for (QString a : std::as_const(setup.arguments))
        arguments.append(a.replace(QStringLiteral("{prefix}"), nativeTarget));
    // The installer file was verified against its published checksum in the Prepare step.
    const ProcessResult r = co_await watched(run, setup.path, arguments, pythonInstallerTimeout);
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    if (!r.succeeded() || !QFileInfo::exists(interpreter)) {
        co_return Error{QStringLiteral("python_install_failed"),
                        tr("The Python %1 installer did not finish (%2). Start %3 yourself to see why, or install "
                           "Python %1 from python.org, then scan this computer again.")
                            .arg(setup.version, r.error.isEmpty() ? tr("exit code %1").arg(r.exitCode) : r.error,
                                 QDir::toNativeSeparators(setup.path)),
                        QString::fromUtf8(r.standardOutput + r.standardError).right(2000)};
    }
    log(run, QStringLiteral("installed Python %1 into %2").arg(setup.version, target));
    co_return interpreter;
}

QCoro::Task<Status> Installer::createPython(Run &run)
{
    if (auto s = enter(run, InstallStep::Python); !s)
        co_return s;
    QString interpreter = run.spec.pythonInterpreter;
    if (const InstallArtifact *archive = pythonArchiveOf(run.spec)) {
        const Result<QString> unpacked = co_await unpackPython(run, *archive);
        if (!run.tx.alive())
            co_return run.tx.cancelledError();
        if (!unpacked)
            co_return unpacked.error();
        interpreter = *unpacked;
    }
    if (interpreter.isEmpty()) {
        const auto setup = std::find_if(run.spec.artifacts.cbegin(), run.spec.artifacts.cend(),
                                        [](const InstallArtifact &a) { return a.kind == u"python-installer"; });
        if (setup != run.spec.artifacts.cend()) {
            const Result<QString> installed = co_await runPythonInstaller(run, *setup);
            if (!run.tx.alive())
                co_return run.tx.cancelledError();
            if (!installed)
                co_return installed.error();
            interpreter = *installed;
        }
    }
    if (interpreter.isEmpty()) {
        log(run, QStringLiteral("no interpreter chosen: libraries only"));
        Q_EMIT stepFinished(InstallStep::Python);
        co_return Ok{};
    }
    const QString venv = run.hostStaging + QStringLiteral("/venv");
    QStringList venvArguments{QStringLiteral("-m"), QStringLiteral("venv"), venv};
    const ProcessResult r = co_await watched(run, interpreter, venvArguments, venvTimeout);
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    const QString python = hostVenvPython(m_system.os(), run.hostStaging);
    if (!r.started && !r.timedOut) {
        // Not venv's failure: the program itself is not there or cannot be run.
        co_return Error{QStringLiteral("python_unstartable"),
                        tr("The Python %1 could not be started (%2), so no environment was made. Choose a Python "
                           "that is installed (in a lab profile: \"interpreter\"), or install it, then try again.")
                            .arg(QDir::toNativeSeparators(interpreter), r.error),
                        r.error};
    }
    if (!r.succeeded() || !QFileInfo::exists(python)) {
        const QString output = QString::fromUtf8(r.standardOutput + r.standardError);
        if (auto full = diskFullError(m_system, run.spec.prefix, output, tr("the Python environment"),
                                      r.error + output.right(2000)))
            co_return *full;
        co_return Error{QStringLiteral("venv_failed"),
                        tr("Python could not create the environment. On Debian and Ubuntu install the package "
                           "python3-venv; on Windows repair the Python installation."),
                        r.error + QString::fromUtf8(r.standardOutput + r.standardError).right(2000)};
    }
    run.interpreter = interpreter;
    run.record.pythonVersion = pyvenvVersion(venv);
    Q_EMIT stepFinished(InstallStep::Python);
    co_return Ok{};
}

QStringList Installer::relocateVenv(const QString &hostVenv, const QString &from, const QString &to)
{
    QStringList done;
    if (from.isEmpty() || from == to)
        return done;
    // The venv's own links are re-pointed from the venv's handle (relinkConfined): a folder on
    // the way swapped for a link is refused, and only a link is ever replaced.
    QFile cfg(hostVenv + QStringLiteral("/pyvenv.cfg"));
    if (cfg.open(QIODevice::ReadOnly)) {
        const QByteArray old = cfg.readAll();
        cfg.close();
        QByteArray moved = old;
        moved.replace(from.toUtf8(), to.toUtf8());
        if (moved != old && writeConfined(hostVenv, QStringLiteral("pyvenv.cfg"), moved))
            done.append(QStringLiteral("pyvenv.cfg now names %1").arg(to));
    }
    for (const QString &folder : {QStringLiteral("/bin"), QStringLiteral("/Scripts")}) {
        QDirIterator it(hostVenv + folder, QDir::Files | QDir::System | QDir::NoDotAndDotDot);
        while (it.hasNext()) {
            const QString link = it.next();
            const QString target = QFileInfo(link).symLinkTarget();
            if (!QFileInfo(link).isSymLink() || !target.startsWith(from + u'/'))
                continue;
            const QString moved = to + target.mid(from.size());
            if (relinkConfined(hostVenv, QDir(hostVenv).relativeFilePath(link), moved))
                done.append(QStringLiteral("%1 now points to %2").arg(QFileInfo(link).fileName(), moved));
        }
    }
    return done;
}

QCoro::Task<Status> Installer::installPackages(Run &run)
{
    if (auto s = enter(run, InstallStep::Packages); !s)
        co_return s;
    if (run.interpreter.isEmpty()
        || (run.spec.effectiveRequirements().isEmpty() && run.spec.requirementsLock.isEmpty())) {
        Q_EMIT stepFinished(InstallStep::Packages);
        co_return Ok{};
    }
    const QString python = hostVenvPython(m_system.os(), run.hostStaging);
    if (run.spec.lock.packages.isEmpty() && m_packageLocker) {
        // Only now is there a Python of the plan's version to choose the packages with.
        log(run, QStringLiteral("choosing the packages with the new environment's pip"));
        auto locking = m_packageLocker(python);
        auto locked = co_await locking;
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!locked)
            co_return locked.error();
        run.spec.lock = locked->lock;
        run.spec.artifacts += locked->wheels;
        run.record.spec = run.spec.toJson();
    }
    if (run.spec.lock.packages.isEmpty()) {
        co_return Error{QStringLiteral("lock_missing"),
                        tr("No package list was made for this environment, so pip has nothing verified to install. "
                           "Start the setup again from the Options page (tfsetup install: run it again)."),
                        run.spec.effectiveRequirements().join(u' ')};
    }
    if (!run.spec.requirementsLock.isEmpty()) {
        const QByteArray bytes = run.spec.requirementsLock.toUtf8();
        if (const Status written = writeConfined(run.hostStaging, QStringLiteral("requirements.lock.txt"), bytes);
            !written)
            co_return writeFailure(written, QStringLiteral("requirements.lock.txt"));
        run.record.files.append(
            {QStringLiteral("requirements.lock.txt"), sha256Of(bytes), bytes.size(), QStringLiteral("profile"), {}});
    }
    // The verified wheels, linked (or copied) into a folder of the staging area that holds them
    // alone: pip sees nothing else, and each wheel was hashed again in Prepare.
    const QString wheels = QStringLiteral(".wheels");
    const QString hostWheels = run.hostStaging + u'/' + wheels;
    QHash<QString, const InstallArtifact *> byFile;
    for (const InstallArtifact &a : run.spec.artifacts) {
        if (a.kind == u"wheel")
            byFile.insert(QFileInfo(a.path).fileName(), &a);
    }
    for (const LockedWheel &w : run.spec.lock.packages) {
        const InstallArtifact *a = byFile.value(w.file);
        if (!a || a->sha256 != w.sha256) {
            co_return Error{QStringLiteral("artifact_not_downloaded"),
                            tr("%1 has not been downloaded yet. Go back to the download step.").arg(w.file), w.file};
        }
        if (const Status placed = placeConfined(a->path, run.hostStaging, wheels + u'/' + w.file, PlaceHow::LinkOrCopy);
            !placed)
            co_return writeFailure(placed, wheels + u'/' + w.file);
    }
    const QByteArray requirements = run.spec.lock.requirementsText();
    if (const Status written = writeConfined(run.hostStaging, wheels + QStringLiteral("/requirements.txt"),
                                             requirements);
        !written)
        co_return writeFailure(written, wheels + QStringLiteral("/requirements.txt"));
    QStringList pipArguments{QStringLiteral("-m"), QStringLiteral("pip")};
    pipArguments += pipInstallArguments(hostWheels, hostWheels + QStringLiteral("/requirements.txt"));
    const ProcessResult r = co_await watched(run, python, pipArguments, pipTimeout);
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    QDir(hostWheels).removeRecursively();
    if (!r.succeeded()) {
        const QString output = QString::fromUtf8(r.standardOutput + r.standardError);
        const bool hashes = output.contains(QStringLiteral("THESE PACKAGES DO NOT MATCH THE HASHES"));
        if (!hashes) {
            if (auto full = diskFullError(m_system, run.spec.prefix, output, tr("the Python packages"),
                                          r.error + output.right(3000)))
                co_return *full;
        }
        co_return Error{hashes ? QStringLiteral("pip_hash_mismatch") : QStringLiteral("pip_failed"),
                        hashes ? tr("A downloaded package no longer matches the hash it was verified with. The disk "
                                    "or another program changed it; run the install again.")
                               : tr("pip could not install the verified packages. The log shows pip's own words."),
                        r.error + output.right(3000)};
    }
    const QByteArray lockText = run.spec.lock.toToml();
    if (const Status written = writeConfined(run.hostStaging, QStringLiteral("pylock.toml"), lockText); !written)
        co_return writeFailure(written, QStringLiteral("pylock.toml"));
    run.record.files.append(
        {QStringLiteral("pylock.toml"), sha256Of(lockText), lockText.size(), QStringLiteral("tfsetup"), {}});
    QStringList freezeArguments{QStringLiteral("-m"), QStringLiteral("pip"), QStringLiteral("freeze"),
                                QStringLiteral("--disable-pip-version-check")};
    const ProcessResult freeze = co_await watched(run, python, freezeArguments, quickTimeout);
    if (!run.tx.alive())
        co_return run.tx.cancelledError();
    if (freeze.succeeded()) {
        for (const QByteArray &line : freeze.standardOutput.split('\n')) {
            if (!line.trimmed().isEmpty())
                run.record.packages.append(QString::fromUtf8(line.trimmed()));
        }
    }
    Q_EMIT stepFinished(InstallStep::Packages);
    co_return Ok{};
}

Status Installer::writeLaunchers(Run &run)
{
    if (auto s = enter(run, InstallStep::Launchers); !s)
        return s;
    LauncherContext context;
    context.os = m_system.os();
    context.environmentPath = run.spec.environmentPath();
    context.libraryFolder = run.libraryFolder;
    context.xlaDataDir = run.hasNvvm;
    context.displayName = run.spec.kernelDisplayName;
    context.kernelName = run.spec.kernelName;
    context.jupyterFrontEnd = run.spec.jupyter;
    context.visibleGpus = run.spec.gpus;
    if (m_system.os() != OsFamily::Windows)
        context.inheritedPath = m_system.pathList(QStringLiteral("PATH"));
    // The kernelspec cannot filter at start-up, so the filtering happens now.
    const bool windows = m_system.os() == OsFamily::Windows;
    const QStringList patterns = windows ? run.launchers.windowsShadow : run.launchers.linuxShadow;
    for (const QString &entry :
         m_system.pathList(windows ? QStringLiteral("PATH") : QStringLiteral("LD_LIBRARY_PATH"))) {
        bool shadows = false;
        for (const QString &p : patterns) {
            QString pattern = p;
            pattern.replace(u'\\', u'/');
            const QString dir = SystemView::join(entry, pattern.section(u'/', 0, -2));
            const QString name = pattern.section(u'/', -1);
            if (pattern.contains(u'/') ? m_system.exists(SystemView::join(entry, pattern))
                                       : !m_system.entries(entry, {name}, QDir::Files | QDir::System).isEmpty()) {
                shadows = true;
            }
            Q_UNUSED(dir);
        }
        if (!shadows)
            context.inheritedSearchPath.append(windows ? QString(entry).replace(u'/', u'\\') : entry);
    }
    QDirIterator pipLibs(run.hostStaging + QStringLiteral("/venv/lib"), {QStringLiteral("lib")}, QDir::Dirs,
                         QDirIterator::Subdirectories);
    while (pipLibs.hasNext()) {
        const QString dir = pipLibs.next();
        if (dir.contains(QStringLiteral("/site-packages/nvidia/")))
            context.pipLibraryFolders.append(QDir(run.hostStaging).relativeFilePath(dir));
    }
    context.pipLibraryFolders.sort();

    auto files = LauncherWriter::launchers(run.launchers, context);
    if (!files)
        return files.error();
    GeneratedFile kernel{QStringLiteral("kernel/kernel.json"),
                         QJsonDocument(LauncherWriter::kernelSpec(run.launchers, context)).toJson(), false};
    files->append(kernel);
    if (m_system.os() == OsFamily::Linux) {
        files->append({QStringLiteral("kernel/tfsetup-") + run.spec.kernelName + QStringLiteral(".desktop"),
                       LauncherWriter::desktopEntry(context), true});
    }
    for (const GeneratedFile &f : *files) {
        if (const Status written = writeConfined(run.hostStaging, f.path, f.contents, f.executable); !written)
            return writeFailure(written, f.path);
        run.record.files.append({f.path, sha256Of(f.contents), f.contents.size(), QStringLiteral("tfsetup"), {}});
        if (!f.path.startsWith(QStringLiteral("kernel/")))
            run.record.launchers.append(f.path);
    }
    if (run.spec.registerKernel)
        run.kernelFolder = LauncherWriter::userKernelFolder(m_system, run.spec.kernelName);
    run.record.kernelFolder = run.kernelFolder;
    Q_EMIT stepFinished(InstallStep::Launchers);
    return Ok{};
}

Status Installer::writeRecord(Run &run)
{
    if (auto s = enter(run, InstallStep::Record); !s)
        return s;
    const QByteArray summary = run.record.summary().toUtf8();
    if (const Status written = writeConfined(run.hostStaging, QStringLiteral("ENVIRONMENT.md"), summary); !written)
        return writeFailure(written, QStringLiteral("ENVIRONMENT.md"));
    run.record.files.append(
        {QStringLiteral("ENVIRONMENT.md"), sha256Of(summary), summary.size(), QStringLiteral("tfsetup"), {}});
    const QByteArray json = QJsonDocument(run.record.toJson()).toJson();
    if (const Status written = writeConfined(run.hostStaging, QStringLiteral("environment.json"), json); !written)
        return writeFailure(written, QStringLiteral("environment.json"));
    const QString logText = run.tx.logText(run.hostStaging, run.hostTarget);
    (void)writeConfined(run.hostStaging, QStringLiteral("logs/install.log"), logText.toUtf8());
    Q_EMIT stepFinished(InstallStep::Record);
    return Ok{};
}

QCoro::Task<Status> Installer::verifyStaging(Run &run)
{
    if (auto s = enter(run, InstallStep::Verify); !s)
        co_return s;
    QFuture<QString> checking = QtConcurrent::run(&checkFiles, run.hostStaging, run.record.files, m_cancel);
    const QString problem = co_await checking;
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    if (!problem.isEmpty()) {
        co_return Error{QStringLiteral("verify_failed"),
                        tr("A file changed between unpacking and checking. The disk may be failing or another "
                           "program (an antivirus) altered it; try again."),
                        problem};
    }
    Q_EMIT stepFinished(InstallStep::Verify);
    co_return Ok{};
}

Status Installer::commit(Run &run)
{
    if (auto s = enter(run, InstallStep::Commit); !s)
        return s;
    const bool replacing = QFileInfo::exists(run.hostTarget);
    if (replacing) {
        // Carry over what the user put into the old environment; never lose a changed file.
        QHash<QString, QByteArray> managed;
        if (const auto old = EnvironmentRecord::read(run.hostTarget); old) {
            for (const RecordedFile &f : old->files)
                managed.insert(f.path, f.sha256);
        }
        // Everything but the record, its companions and the venv pip fills: the user's notebooks,
        // their TensorBoard runs under logs/, their links to data folders (kept as links).
        for (const QString &rel : walkFilesAndLinks(run.hostTarget)) {
            if (rel == u"environment.json" || rel == u"venv" || rel.startsWith(QStringLiteral("venv/"))
                || EnvironmentRecord::companionFiles().contains(rel))
                continue;
            const QString from = run.hostTarget + u'/' + rel;
            if (managed.contains(rel)) {
                const auto digest = hashFile(Checksum::Algorithm::Sha256, from);
                if (QFileInfo(from).isSymLink() || (digest && *digest == managed.value(rel)))
                    continue; // ours and unchanged
            }
            QString to = rel;
            const auto taken = [&](const QString &name) {
                const QString at = run.hostStaging + u'/' + name;
                return QFileInfo::exists(at) || QFileInfo(at).isSymLink();
            };
            if (taken(to))
                to += QStringLiteral(".user-backup");
            for (int n = 2; taken(to); ++n)
                to = rel + QStringLiteral(".user-backup-%1").arg(n);
            // From the old environment into staging, each reached from its own folder without
            // following a link on the way; a link of yours is kept as a link, never read through.
            if (const Status copied = copyConfined(run.hostTarget, rel, run.hostStaging, to); !copied) {
                if (copied.error().code == u"path_through_link")
                    return copied.error();
                return writeError(run.hostStaging + u'/' + to, from);
            }
            log(run, QStringLiteral("kept your file %1 as %2").arg(rel, to));
        }
    }
    QString previous;
    if (replacing) {
        const auto aside = run.lock()->prepareSetAside();
        if (!aside)
            return writeError(run.spec.environmentPath(), aside.error().detail);
        previous = *aside;
    }
    // The swap happens in the prefix folder (the environment, its staging folder and the one set
    // aside are all names in it): each rename reaches its names from the prefix's own handle.
    const auto swap = [&run](const QString &from, const QString &to) {
        return bool(
            renameConfined(run.hostPrefix, QFileInfo(from).fileName(), run.hostPrefix, QFileInfo(to).fileName()));
    };
    if (replacing && !swap(run.hostTarget, previous)) {
        run.lock()->forget(previous);
        return Error{QStringLiteral("commit_failed"),
                     tr("The environment %1 is in use. Close every program started from it (Python, Jupyter, "
                        "shells) and install again.")
                         .arg(run.spec.environmentPath()),
                     run.hostTarget};
    }
    if (replacing && m_drill)
        m_drill(QStringLiteral("commit-set-aside"));
    if (!swap(run.hostStaging, run.hostTarget)) {
        if (replacing && swap(previous, run.hostTarget))
            run.lock()->forget(previous);
        return writeError(run.spec.environmentPath(), run.hostStaging);
    }
    run.tx.released();
    if (replacing && m_drill)
        m_drill(QStringLiteral("commit-swapped"));
    // What was set aside is removed as what it is: a link that took the environment's place was
    // moved aside as the link, and only the link goes (removeRecursively would empty its target).
    const auto removeAside = [](const QString &path) {
        return isLink(path) ? QFile::remove(path) : QDir(path).removeRecursively();
    };
    if (replacing && !removeAside(previous))
        log(run, QStringLiteral("could not remove %1 yet; the next run will").arg(previous));
    else if (replacing)
        run.lock()->forget(previous);
    // A venv made from the environment's own Python names it by the staging path until now.
    if (run.interpreter.startsWith(run.hostStaging + u'/')) {
        for (const QString &line :
             relocateVenv(run.hostTarget + QStringLiteral("/venv"), run.hostStaging, run.hostTarget))
            log(run, line);
    }
    Q_EMIT stepFinished(InstallStep::Commit);
    return Ok{};
}

void Installer::registerOutside(Run &run, InstallOutcome &outcome)
{
    // `below`: how many of the target's last components are tfsetup's (kernels/<name>/kernel.json,
    // or the .desktop file): reached from the user's folder above them without following a link,
    // so one planted there carries neither the write nor the backup elsewhere.
    auto place = [&](const QString &target, int below, const QString &sourceRelative) -> bool {
        const QString host = m_system.hostPath(target);
        if (host.isEmpty())
            return false;
        const QString root = host.section(u'/', 0, -1 - below);
        const QString relative = host.section(u'/', -below);
        if (root.isEmpty() || !reachesWithoutLinks(root, relative)) {
            log(run, QStringLiteral("not written: %1 lies behind a link").arg(host));
            return false;
        }
        // Read as every input is: plain files only, bounded. A FIFO or a device planted at the
        // kernelspec's or menu entry's name is neither read (it could block or never end) nor
        // replaced: it is not tfsetup's.
        constexpr qint64 registrationBytes = 1024 * 1024;
        const auto source = readInputFile(run.hostTarget + u'/' + sourceRelative, sourceRelative, registrationBytes);
        if (!source)
            return false;
        const QByteArray bytes = *source;
        if (QFileInfo::exists(host) && !QFileInfo(host).isFile()) {
            log(run, QStringLiteral("not written: %1 is not a plain file").arg(host));
            return false;
        }
        if (const auto existing = readInputFile(host, host, registrationBytes); existing || QFileInfo::exists(host)) {
            if (!existing) {
                log(run, QStringLiteral("not written: %1 cannot be read (%2)").arg(host, existing.error().detail));
                return false;
            }
            const QByteArray old = *existing;
            if (old == bytes)
                return true;
            // Someone else's file (or an edited one): keep it before writing ours.
            if (!old.contains(run.spec.environmentPath().toUtf8())
                && !QFile::exists(host + QStringLiteral(".user-backup")))
                QFile::copy(host, host + QStringLiteral(".user-backup"));
        }
        // A kernel or menu entry put back is a change: "unchanged" promises that nothing was
        // written, and a roll-out reads it as such (Ansible's changed_when).
        outcome.unchanged = false;
        // Into the user's own folder (Jupyter's kernels/<name>, the menu's applications): the name
        // itself is replaced, never written through.
        return QDir().mkpath(root)
            && writeConfined(root, relative, bytes, sourceRelative.endsWith(QStringLiteral(".desktop")));
    };
    if (run.spec.registerKernel && !run.kernelFolder.isEmpty()) {
        if (place(SystemView::join(run.kernelFolder, QStringLiteral("kernel.json")), 3,
                  QStringLiteral("kernel/kernel.json")))
            outcome.kernelFolder = run.kernelFolder;
        else
            outcome.warnings.append(tr("The Jupyter kernel could not be registered in %1. Start Jupyter with "
                                       "start-jupyter instead.")
                                        .arg(run.kernelFolder));
    }
    if (run.spec.desktopEntry && m_system.os() == OsFamily::Linux) {
        const QString name = QStringLiteral("kernel/tfsetup-") + run.spec.kernelName + QStringLiteral(".desktop");
        const QString entry = LauncherWriter::desktopEntryPath(m_system, run.spec.kernelName);
        if (!entry.isEmpty() && !place(entry, 1, name))
            outcome.warnings.append(tr("The menu entry could not be written to %1.").arg(entry));
    }
}

QCoro::Task<bool> Installer::isComplete(const InstallSpec &spec, const QString &hostTarget)
{
    const auto record = EnvironmentRecord::read(hostTarget);
    if (!record || record->fingerprint != spec.fingerprint())
        co_return false;
    QFuture<QString> checking = QtConcurrent::run(&checkFiles, hostTarget, record->files, CancelFlag());
    const QString problem = co_await checking;
    if (!problem.isEmpty())
        co_return false;
    const bool bringsPython = std::any_of(spec.artifacts.cbegin(), spec.artifacts.cend(), [](const InstallArtifact &a) {
        return a.kind == u"python-archive" || a.kind == u"python-installer";
    });
    if ((!spec.pythonInterpreter.isEmpty() || bringsPython)
        && !QFileInfo::exists(hostVenvPython(OsFamily::Linux, hostTarget))
        && !QFileInfo::exists(hostVenvPython(OsFamily::Windows, hostTarget)))
        co_return false;
    co_return true;
}

} // namespace tfsetup::core
