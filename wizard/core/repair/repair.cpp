#include "repair/repair.h"

#include "catalog/catalog.h"
#include "catalog/knowledge.h"
#include "detect/hardwarereport.h"
#include "fetch/checksum.h"
#include "fetch/downloadcache.h"
#include "fetch/downloader.h"
#include "install/archive.h"
#include "install/installer.h"
#include "install/installspec.h"
#include "install/launchers.h"
#include "install/placement.h"
#include "install/transaction.h"
#include "install/worklock.h"
#include "setup/indexbridge.h"
#include "setup/locker.h"
#include "setup/setupflow.h"
#include "sources/bundle.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/names.h"

#include <QCoro/QCoroFuture>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

using CancelFlag = std::shared_ptr<std::atomic<bool>>;

constexpr auto pipTimeout = std::chrono::minutes(60);

Error cancelledError()
{
    return Error{QStringLiteral("cancelled"),
                 QCoreApplication::translate("Repairer", "The repair was cancelled. Nothing was changed."),
                 {}};
}

Error writeError(const QString &path, const QString &detail = {})
{
    return Error{QStringLiteral("write_failed"),
                 QCoreApplication::translate("Repairer",
                                             "Cannot write %1. Check the free space and that the "
                                             "environment folder is yours, then repair again.")
                     .arg(path),
                 detail};
}

// A confined write into the staging folder that failed: a link on the way in its own words,
// anything else as a write to `shown` that failed.
Error stagingWriteError(const Status &written, const QString &shown)
{
    if (written.error().code == u"path_through_link")
        return written.error();
    return writeError(shown, written.error().detail);
}

QByteArray sha256Of(const QByteArray &bytes)
{
    Hasher h(Checksum::Algorithm::Sha256);
    h.addData(bytes);
    return h.finalHex();
}

QString keyFor(const QString &path, bool windows)
{
    return windows ? path.toLower() : path;
}

// Blocking work for the thread pool. Plain functions, not lambdas: g++ 12 miscompiles lambdas
// with init-captures inside coroutines.

struct ScanResult {
    QList<RepairItem> items;
    bool cancelled = false;
};

ScanResult scanFilesUpTo(const QString &hostEnv, const QList<RecordedFile> &files, bool windows,
                         const std::atomic<bool> *cancel, qint64 hashLimit)
{
    ScanResult out;
    QSet<QString> recorded;
    for (const RecordedFile &f : files)
        recorded.insert(keyFor(f.path, windows));
    QList<int> missing;
    for (const RecordedFile &f : files) {
        if (cancel && cancel->load()) {
            out.cancelled = true;
            return out;
        }
        const QString path = hostEnv + u'/' + f.path;
        RepairItem item;
        item.path = f.path;
        item.origin = f.origin;
        if (!f.linkTarget.isEmpty()) {
            const QFileInfo info(path);
            if (!info.isSymLink()) {
                item.problem = info.exists() ? RepairItem::Problem::Altered : RepairItem::Problem::Missing;
                item.fix = RepairItem::Fix::Relink;
                out.items.append(item);
            }
            continue;
        }
        if (!QFileInfo::exists(path) || QFileInfo(path).isDir()) {
            item.problem = RepairItem::Problem::Missing;
            missing.append(out.items.size());
            out.items.append(item);
            continue;
        }
        // Another size is another file whatever its digest; an old record without sizes says 0.
        const qint64 size = QFileInfo(path).size();
        if (f.size > 0 && size != f.size) {
            item.problem = RepairItem::Problem::Altered;
            out.items.append(item);
            continue;
        }
        if (hashLimit >= 0 && size > hashLimit)
            continue;
        const auto digest = hashFile(Checksum::Algorithm::Sha256, path, cancel);
        if (!digest || *digest != f.sha256) {
            item.problem = RepairItem::Problem::Altered;
            out.items.append(item);
        }
    }
    if (missing.isEmpty())
        return out;

    // A missing file may only have been moved (a student dragging a DLL "where it belongs"):
    // an unrecorded file of the same name with the recorded digest is it. The venv is pip's.
    QHash<QString, QStringList> strays; // file name → relative paths
    QDirIterator it(hostEnv, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QString rel = QDir(hostEnv).relativeFilePath(it.filePath());
        if (rel.startsWith(QStringLiteral("venv/")) || recorded.contains(keyFor(rel, windows)))
            continue;
        strays[keyFor(it.fileName(), windows)].append(rel);
    }
    QHash<QString, QByteArray> recordedDigest;
    for (const RecordedFile &f : files)
        recordedDigest.insert(f.path, f.sha256);
    QSet<QString> claimed;
    for (int index : missing) {
        RepairItem &item = out.items[index];
        const QString name = keyFor(item.path.section(u'/', -1), windows);
        for (const QString &candidate : strays.value(name)) {
            if (claimed.contains(candidate))
                continue;
            const auto digest = hashFile(Checksum::Algorithm::Sha256, hostEnv + u'/' + candidate, cancel);
            if (digest && *digest == recordedDigest.value(item.path)) {
                item.problem = RepairItem::Problem::Misplaced;
                item.fix = RepairItem::Fix::MoveBack;
                item.foundAt = candidate;
                item.source = candidate;
                claimed.insert(candidate);
                break;
            }
        }
    }
    return out;
}

ScanResult scanFiles(const QString &hostEnv, const QList<RecordedFile> &files, bool windows, const CancelFlag &cancel)
{
    return scanFilesUpTo(hostEnv, files, windows, cancel.get(), -1);
}

PipRecordScan scanPipRecords(const QString &hostEnv, const CancelFlag &cancel)
{
    return checkPipRecords(hostEnv, cancel.get());
}

Result<VerifiedWheel> verifyOneWheel(const QString &wheel, const QString &hostEnv, const PipDistributionDamage &damage,
                                     const QString &unpack, const CancelFlag &cancel)
{
    return verifyWheel(wheel, hostEnv, damage, unpack, cancel.get());
}

// pip (or any Python) of the environment, its output logged line by line; killed on cancel.
QCoro::Task<ProcessResult> runPython(SystemView &system, Transaction &tx, QString program, QStringList arguments,
                                     std::chrono::milliseconds timeout)
{
    ProcessRequest request;
    request.program = program;
    request.arguments = arguments;
    request.timeout = timeout;
    request.cancel = tx.cancelFlag();
    request.environment = {{QStringLiteral("PYTHONNOUSERSITE"), QStringLiteral("1")},
                           {QStringLiteral("PYTHONHOME"), QString()},
                           {QStringLiteral("PIP_NO_INPUT"), QStringLiteral("1")}};
    // pip installs the verified wheel alone: no pip.conf may add an index or a wheel folder.
    request.environment.append(
        {QStringLiteral("PIP_CONFIG_FILE"),
         system.os() == OsFamily::Windows ? QStringLiteral("nul") : QStringLiteral("/dev/null")});
    for (const char *name : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"})
        request.environment.append({QString::fromLatin1(name), QString()});
    Transaction *log = &tx; // lives in the caller's frame for as long as the process runs
    request.onOutputLine = [log](const QString &line) {
        if (!line.isEmpty())
            log->log(line);
    };
    tx.log(QStringLiteral("$ %1 %2").arg(program, arguments.join(u' ')));
    ProcessResult result = co_await system.runWatched(std::move(request));
    co_return result;
}

Result<QByteArray> hashOne(const QString &path, const CancelFlag &cancel)
{
    return hashFile(Checksum::Algorithm::Sha256, path, cancel.get());
}

Result<QList<ExtractedEntry>> extractArchive(const QString &path, const QString &dest, const CancelFlag &cancel)
{
    ExtractOptions options;
    options.cancel = cancel.get();
    return ArchiveReader::extract(path, dest, options);
}

// A file below folder with the digest (an offline bundle's archive), empty when none.
QString findByDigest(const QString &folder, const QByteArray &sha256, const CancelFlag &cancel)
{
    static const QStringList archives{QStringLiteral("*.zip"), QStringLiteral("*.tar.xz"), QStringLiteral("*.tgz"),
                                      QStringLiteral("*.tar.gz"), QStringLiteral("*.tar")};
    QDirIterator it(folder, archives, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const auto digest = hashFile(Checksum::Algorithm::Sha256, path, cancel.get());
        if (digest && *digest == sha256)
            return path;
    }
    return {};
}

struct StagedFile {
    QString path;      // relative to the environment
    QString staged;    // host path in the staging folder
    QByteArray sha256; // what it must hash to
    bool executable = false;
    bool keepOld = false; // an edited launcher is kept beside as <file>.user-backup
};

// Empty when every staged file hashes as expected; else the first that does not.
QString checkStaged(const QList<StagedFile> &files, const CancelFlag &cancel)
{
    for (const StagedFile &f : files) {
        if (cancel->load())
            return QStringLiteral("cancelled");
        const auto digest = hashFile(Checksum::Algorithm::Sha256, f.staged);
        if (!digest || *digest != f.sha256)
            return f.path;
    }
    return {};
}

// "cudnn 8.1.0.77 (windows-x86_64): cuda/bin/x.dll" → component and version.
std::pair<QString, QString> originComponent(const QString &origin)
{
    const QString head = origin.section(QStringLiteral(" ("), 0, 0);
    return {head.section(u' ', 0, 0), head.section(u' ', 1, 1)};
}

QString archiveFileName(const InstallArtifact &artifact)
{
    const QUrl url(artifact.origin);
    const QString name = url.isValid() && !url.scheme().isEmpty() && url.scheme().size() > 1 ? url.fileName()
                                                                                             : QString();
    return name.isEmpty() ? artifact.component + u'-' + artifact.version : name;
}

// The lock's wheel of exactly the damaged distribution's version, with its hash; null when the
// environment has no such entry (made before tfsetup kept locks, or the version differs).
const LockedWheel *lockedWheel(const EnvironmentRecord &record, const PipDistributionDamage &damage)
{
    const LockedWheel *locked = record.lock.find(damage.name);
    return locked && locked->version == damage.version && locked->sha256.size() == 64 ? locked : nullptr;
}

// The only folder repair registers an environment's kernel in: Jupyter's kernels/<kernel name>
// for this user, derived as the installer derives it (LauncherWriter::userKernelFolder), never
// the folder the record names. A damaged or foreign record (another folder, a name with "..")
// or a kernel folder that is a link is refused before anything is written. Empty: the
// environment's kernel was not registered.
Result<QString> registeredKernelFolder(const SystemView &system, const EnvironmentRecord &record)
{
    if (record.kernelFolder.isEmpty())
        return QString();
    const QString kernelName = record.kernelName();
    if (!isSafePathName(kernelName)) {
        return Error{QStringLiteral("kernel_folder_foreign"),
                     QCoreApplication::translate("Repairer",
                                                 "The environment record names the Jupyter kernel "
                                                 "\"%1\", which is not a name tfsetup gives a kernel. "
                                                 "The record is damaged or was not written by tfsetup, "
                                                 "so repair changes nothing. Install the environment "
                                                 "again.")
                         .arg(kernelName),
                     record.kernelFolder};
    }
    const QString expected = LauncherWriter::userKernelFolder(system, kernelName);
    const Qt::CaseSensitivity sensitivity = system.os() == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
    if (system.normalize(record.kernelFolder).compare(expected, sensitivity) != 0) {
        return Error{QStringLiteral("kernel_folder_foreign"),
                     QCoreApplication::translate("Repairer",
                                                 "The environment record names %1 as the folder of its "
                                                 "Jupyter kernel, but tfsetup registers this "
                                                 "environment's kernel only in %2. The record is damaged "
                                                 "or belongs to another environment, so repair changes "
                                                 "nothing. Install the environment again.")
                         .arg(record.kernelFolder, expected),
                     record.kernelFolder};
    }
    // userKernelFolder ends in "kernels/<name>": neither may be a link, or the write goes elsewhere.
    const QString hostData = system.hostPath(expected.section(u'/', 0, -3));
    if (hostData.isEmpty()
        || !reachesWithoutLinks(hostData, QStringLiteral("kernels/") + kernelName + QStringLiteral("/kernel.json"))) {
        return Error{QStringLiteral("kernel_folder_link"),
                     QCoreApplication::translate("Repairer",
                                                 "Your Jupyter kernel folder %1 is a link to another "
                                                 "folder, so repair does not write there and changes "
                                                 "nothing. Remove the link and repair again, or install "
                                                 "the environment again.")
                         .arg(expected),
                     hostData};
    }
    return expected;
}

} // namespace

QList<RepairItem> checkRecordedFiles(const QString &hostEnv, const QList<RecordedFile> &files, bool windows,
                                     qint64 hashLimit, const std::atomic<bool> *cancel)
{
    return scanFilesUpTo(hostEnv, files, windows, cancel, hashLimit).items;
}

QString RepairItem::problemName(Problem problem)
{
    switch (problem) {
    case Problem::Missing: return QStringLiteral("missing");
    case Problem::Altered: return QStringLiteral("altered");
    case Problem::Misplaced: return QStringLiteral("misplaced");
    }
    return {};
}

QString RepairItem::fixName(Fix fix)
{
    switch (fix) {
    case Fix::MoveBack: return QStringLiteral("move_back");
    case Fix::FromArchive: return QStringLiteral("from_archive");
    case Fix::Regenerate: return QStringLiteral("regenerate");
    case Fix::Relink: return QStringLiteral("relink");
    case Fix::None: return QStringLiteral("none");
    }
    return {};
}

QJsonObject RepairItem::toJson() const
{
    QJsonObject o{{QStringLiteral("path"), path},
                  {QStringLiteral("problem"), problemName(problem)},
                  {QStringLiteral("fix"), fixName(fix)},
                  {QStringLiteral("origin"), origin}};
    if (!foundAt.isEmpty())
        o.insert(QStringLiteral("found_at"), foundAt);
    if (!source.isEmpty())
        o.insert(QStringLiteral("source"), source);
    if (!note.isEmpty())
        o.insert(QStringLiteral("note"), note);
    return o;
}

QJsonObject RepairFindingOutcome::toJson() const
{
    return QJsonObject{{QStringLiteral("id"), id},
                       {QStringLiteral("cause"), cause},
                       {QStringLiteral("handled"), handled},
                       {QStringLiteral("note"), note}};
}

bool RepairReport::changed() const
{
    for (const RepairItem &i : before) {
        if (i.fix != RepairItem::Fix::None)
            return true;
    }
    for (const PipDistributionDamage &p : packages) {
        if (!p.source.isEmpty())
            return true;
    }
    return !outside.isEmpty();
}

bool RepairReport::healthy() const
{
    if (!after.isEmpty() || (dryRun && (!before.isEmpty() || !packages.isEmpty())))
        return false;
    return !verify || verify->passed();
}

QJsonObject RepairReport::toJson() const
{
    QJsonArray items;
    for (const RepairItem &i : before)
        items.append(i.toJson());
    QJsonArray outcomes;
    for (const RepairFindingOutcome &f : findings)
        outcomes.append(f.toJson());
    QJsonArray distributions;
    for (const PipDistributionDamage &p : packages)
        distributions.append(p.toJson());
    QJsonObject o{{QStringLiteral("schema"), 1},
                  {QStringLiteral("environment"), environmentPath},
                  {QStringLiteral("dry_run"), dryRun},
                  {QStringLiteral("before"), items},
                  {QStringLiteral("fetched"), QJsonArray::fromStringList(fetched)},
                  {QStringLiteral("from_cache"), QJsonArray::fromStringList(fromCache)},
                  {QStringLiteral("outside"), QJsonArray::fromStringList(outside)},
                  {QStringLiteral("findings"), outcomes},
                  {QStringLiteral("after"), QJsonArray::fromStringList(after)},
                  {QStringLiteral("packages"), distributions},
                  {QStringLiteral("changed"), changed()},
                  {QStringLiteral("healthy"), healthy()}};
    if (verify)
        o.insert(QStringLiteral("verify"), verify->toJson());
    return o;
}

QString RepairReport::text() const
{
    QStringList lines;
    if (before.isEmpty())
        lines.append(tr("Every recorded file of %1 is in place and unchanged.").arg(environmentPath));
    else
        lines.append(
            tr("%n recorded file(s) of %1 were not as installed:", nullptr, int(before.size())).arg(environmentPath));
    for (const RepairItem &i : before) {
        QString problem;
        switch (i.problem) {
        case RepairItem::Problem::Missing: problem = tr("missing"); break;
        case RepairItem::Problem::Altered: problem = tr("changed"); break;
        case RepairItem::Problem::Misplaced: problem = tr("moved to %1").arg(i.foundAt); break;
        }
        QString fix;
        switch (i.fix) {
        case RepairItem::Fix::MoveBack: fix = dryRun ? tr("would move it back") : tr("moved back"); break;
        case RepairItem::Fix::FromArchive:
            fix = dryRun ? tr("would take it again from %1").arg(i.source) : tr("taken again from %1").arg(i.source);
            break;
        case RepairItem::Fix::Regenerate: fix = dryRun ? tr("would write it again") : tr("written again"); break;
        case RepairItem::Fix::Relink: fix = dryRun ? tr("would link it again") : tr("linked again"); break;
        case RepairItem::Fix::None: fix = i.note; break;
        }
        lines.append(QStringLiteral("  %1: %2 — %3").arg(i.path, problem, fix));
    }
    for (const PipDistributionDamage &p : packages) {
        lines.append(tr("The Python package %1 %2 is not as pip installed it:").arg(p.name, p.version));
        for (const QString &file : p.altered)
            lines.append(QStringLiteral("  %1: %2").arg(file, tr("changed")));
        for (const QString &file : p.missing)
            lines.append(QStringLiteral("  %1: %2").arg(file, tr("missing")));
        for (const QString &file : p.escaping)
            lines.append(QStringLiteral("  %1: %2")
                             .arg(file, tr("its record names a place outside the environment (not read)")));
        if (p.source.isEmpty())
            lines.append(QStringLiteral("  ") + p.note);
        else if (p.source == u"index")
            lines.append(QStringLiteral("  ")
                         + (dryRun ? tr("would reinstall it from the package index")
                                   : tr("reinstalled from the package index")));
        else
            lines.append(
                QStringLiteral("  ")
                + (dryRun ? tr("would reinstall it from %1").arg(p.source) : tr("reinstalled from %1").arg(p.source)));
    }
    for (const QString &url : fetched)
        lines.append((dryRun ? tr("Would download again: %1") : tr("Downloaded again: %1")).arg(url));
    for (const QString &o : outside)
        lines.append(o);
    for (const RepairFindingOutcome &f : findings)
        lines.append(
            QStringLiteral("%1 %2: %3").arg(f.handled ? QStringLiteral("✓") : QStringLiteral("•"), f.cause, f.note));
    if (!dryRun && !after.isEmpty())
        lines.append(tr("Still not as recorded: %1").arg(after.join(QStringLiteral(", "))));
    if (verify)
        lines.append(verify->text());
    if (dryRun)
        lines.append(tr("Nothing was changed (--dry-run)."));
    else if (healthy())
        lines.append(tr("The environment is repaired."));
    return lines.join(u'\n') + u'\n';
}

QString repairStepId(RepairStep step)
{
    switch (step) {
    case RepairStep::Check: return QStringLiteral("check");
    case RepairStep::Fetch: return QStringLiteral("fetch");
    case RepairStep::Stage: return QStringLiteral("stage");
    case RepairStep::Commit: return QStringLiteral("commit");
    case RepairStep::Packages: return QStringLiteral("packages");
    case RepairStep::Register: return QStringLiteral("register");
    case RepairStep::Verify: return QStringLiteral("verify");
    }
    return {};
}

struct Repairer::Run {
    RepairOptions options;
    RepairReport report;
    QString hostEnv;
    QString hostStaging;
    OsFamily os = OsFamily::Linux;
    bool windows = false;
    EnvironmentRecord record;
    QList<InstallArtifact> artifacts;
    QString layout;
    int cudnnMajor = 0;
    QList<StagedFile> staged;
    QHash<QString, QByteArray> newDigests;     // regenerated files whose bytes differ from the record
    QString kernelFolder;                      // registeredKernelFolder(): where the kernel is registered, or empty
    QByteArray installedKernel;                // the record's digest of kernel/kernel.json, as read
    QStringList wheelFolders;                  // host folders that may hold the wheels pip installed from
    std::unique_ptr<Downloader> ownDownloader; // made from the options when none was given
    // The log, the lock (held for the whole repair, not for a dry run) and the staging folder, in
    // the coroutine's frame: a Repairer deleted mid-repair (its page closed) ends the run as
    // cancelled, the staging folder removed, the environment as it was.
    Transaction tx;

    Run(Repairer *owner, const CancelFlag &cancel)
        : tx(owner, QStringLiteral("repair"), cancel, cancelledError())
    {
        QPointer<Repairer> self(owner);
        tx.setLogSink([self](const QString &line) {
            if (self)
                Q_EMIT self->logLine(line);
        });
    }
};

Repairer::Repairer(SystemView &system, std::shared_ptr<const Knowledge> knowledge, Downloader *downloader,
                   QObject *parent)
    : QObject(parent)
    , m_system(system)
    , m_knowledge(std::move(knowledge))
    , m_downloader(downloader)
    , m_cancel(std::make_shared<std::atomic<bool>>(false))
{}

Repairer::~Repairer()
{
    // A repair still waiting ends as cancelled (Transaction::stopped()); its downloads stop too.
    cancel();
}

void Repairer::cancel()
{
    m_cancel->store(true);
    if (m_downloader)
        m_downloader->cancelAll();
    if (m_fetching)
        m_fetching->cancelAll();
}

void Repairer::setCheckpoint(std::function<Status(RepairStep)> checkpoint)
{
    m_checkpoint = std::move(checkpoint);
}

void Repairer::setDrillPoint(std::function<void(const QString &point)> drill)
{
    m_drill = std::move(drill);
}

QString Repairer::stepTitle(RepairStep step) const
{
    switch (step) {
    case RepairStep::Check: return tr("Checking every installed file");
    case RepairStep::Fetch: return tr("Getting the damaged files' archives");
    case RepairStep::Stage: return tr("Preparing the replacements");
    case RepairStep::Commit: return tr("Putting the repaired files in place");
    case RepairStep::Packages: return tr("Reinstalling the damaged Python packages");
    case RepairStep::Register: return tr("Checking the Jupyter kernel");
    case RepairStep::Verify: return tr("Verifying the environment");
    }
    return {};
}

void Repairer::log(Run &run, const QString &line)
{
    run.tx.log(line);
}

Status Repairer::enter(Run &run, RepairStep step)
{
    std::function<Status()> checkpoint;
    if (m_checkpoint)
        checkpoint = [this, step] { return m_checkpoint(step); };
    return run.tx.enter(
        repairStepId(step), [this, step] { Q_EMIT stepStarted(step, stepTitle(step)); }, checkpoint);
}

QStringList Repairer::discover(const SystemView &system, const QStringList &folders)
{
    QStringList found;
    auto isEnvironment = [&](const QString &folder) {
        const QString host = system.hostPath(folder);
        return !host.isEmpty() && QFileInfo::exists(host + QStringLiteral("/environment.json"));
    };
    for (const QString &folder : folders) {
        if (folder.isEmpty())
            continue;
        if (isEnvironment(folder)) {
            found.append(folder);
            continue;
        }
        const QString host = system.hostPath(folder);
        if (host.isEmpty())
            continue;
        // Hidden folders are the installer's staging and replaced copies, never environments.
        for (const QString &name : QDir(host).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QString child = SystemView::join(folder, name);
            if (isEnvironment(child))
                found.append(child);
        }
    }
    found.removeDuplicates();
    found.sort();
    return found;
}

QCoro::Task<Result<RepairReport>> Repairer::repair(RepairOptions options)
{
    m_cancel->store(false);
    if (!m_knowledge)
        co_return Knowledge::notGiven();
    Run run(this, m_cancel);
    run.options = options;
    run.report.environmentPath = options.environmentPath;
    run.report.dryRun = options.dryRun;
    run.hostEnv = m_system.hostPath(options.environmentPath);
    const QString prefix = QFileInfo(run.hostEnv).absolutePath();
    const QString name = QFileInfo(run.hostEnv).fileName();
    // One install or repair per environment; what a killed one left (an environment set aside
    // by an install, a repair's renames) is finished or undone before the environment is read.
    if (!run.hostEnv.isEmpty() && !options.dryRun && QFileInfo(prefix).isDir()) {
        if (const Status locked = run.tx.lock(prefix, name, options.environmentPath); !locked)
            co_return locked.error();
    }
    if (run.hostEnv.isEmpty() || !QFileInfo::exists(run.hostEnv + QStringLiteral("/environment.json"))) {
        co_return Error{QStringLiteral("not_environment"),
                        tr("%1 is not an environment made by tfsetup (it has no environment.json). Choose the "
                           "environment's folder, or install a new one.")
                            .arg(options.environmentPath),
                        run.hostEnv};
    }
    auto record = EnvironmentRecord::read(run.hostEnv);
    if (!record)
        co_return record.error();
    run.record = *record;
    run.os = run.record.os == u"windows" ? OsFamily::Windows
        : run.record.os == u"linux"      ? OsFamily::Linux
                                         : m_system.os();
    run.windows = run.os == OsFamily::Windows;
    auto kernelFolder = registeredKernelFolder(m_system, run.record);
    if (!kernelFolder) {
        log(run, QStringLiteral("refused: %1 (%2)").arg(kernelFolder.error().message, kernelFolder.error().detail));
        co_return kernelFolder.error();
    }
    run.kernelFolder = *kernelFolder;
    for (const RecordedFile &f : run.record.files) {
        if (f.path == u"kernel/kernel.json")
            run.installedKernel = f.sha256;
    }
    const InstallSpec asked = run.record.plan();
    run.artifacts = asked.artifacts;
    run.layout = asked.layout;
    run.cudnnMajor = asked.cudnnMajor();

    // --- Check ---
    if (auto s = enter(run, RepairStep::Check); !s)
        co_return s.error();
    const ScanResult scan = co_await QtConcurrent::run(&scanFiles, run.hostEnv, run.record.files, run.windows,
                                                       m_cancel);
    if (scan.cancelled || run.tx.stopped())
        co_return run.tx.cancelledError();
    run.report.before = scan.items;
    for (RepairItem &item : run.report.before) {
        if (item.fix != RepairItem::Fix::None)
            continue;
        if (item.origin == u"tfsetup") {
            item.fix = RepairItem::Fix::Regenerate;
            continue;
        }
        const auto [component, version] = originComponent(item.origin);
        bool found = false;
        for (const InstallArtifact &a : run.artifacts) {
            if (a.isArchive() && a.component == component && a.version == version) {
                item.fix = RepairItem::Fix::FromArchive;
                item.source = archiveFileName(a);
                found = true;
                break;
            }
        }
        if (!found) {
            item.note = item.origin == u"profile"
                ? tr("it came from the lab profile: install the profile again")
                : tr("tfsetup does not know where it came from: install the environment again");
        }
    }
    for (const RepairItem &item : run.report.before) {
        log(run,
            QStringLiteral("%1: %2 -> %3%4")
                .arg(item.path, RepairItem::problemName(item.problem), RepairItem::fixName(item.fix),
                     item.foundAt.isEmpty() ? QString() : QStringLiteral(" (found at %1)").arg(item.foundAt)));
    }
    if (run.report.before.isEmpty())
        log(run, QStringLiteral("every recorded file is in place and unchanged"));

    // What pip installed, against each distribution's RECORD (also on the pool).
    {
        const QString env = run.hostEnv;
        const CancelFlag cancel = m_cancel;
        const PipRecordScan pip = co_await QtConcurrent::run(&scanPipRecords, env, cancel);
        if (pip.cancelled || run.tx.stopped())
            co_return run.tx.cancelledError();
        run.report.packages = pip.damaged;
        log(run,
            QStringLiteral("%1 Python distributions checked against their RECORD, %2 damaged")
                .arg(pip.distributions)
                .arg(pip.damaged.size()));
    }
    run.wheelFolders = {options.cacheDir};
    if (const QString bundleDir = options.network.bundleDir.trimmed(); !bundleDir.isEmpty()) {
        if (const auto bundle = Bundle::open(bundleDir); bundle && !bundle->wheelFolder().isEmpty())
            run.wheelFolders.append(bundle->wheelFolder());
    }
    for (PipDistributionDamage &p : run.report.packages) {
        const LockedWheel *locked = lockedWheel(run.record, p);
        const QStringList wheels = locked ? wheelCandidates(run.wheelFolders, p.name, p.version) : QStringList{};
        p.source = !wheels.isEmpty() ? QFileInfo(wheels.first()).fileName()
            : locked                 ? locked->url
                                     : QStringLiteral("index");
        log(run,
            QStringLiteral("%1 %2 (%3): %4 altered, %5 missing, %6 outside the environment -> reinstall from %7")
                .arg(p.name, p.version, p.distInfo)
                .arg(p.altered.size())
                .arg(p.missing.size())
                .arg(p.escaping.size())
                .arg(p.source));
    }

    QDir().mkpath(run.hostEnv); // exists; keeps the staging folder beside it on the same volume
    if (!options.dryRun) {
        const auto staging = run.tx.workLock() ? run.tx.makeStaging(QStringLiteral("staging-repair"))
                                               : Result<QString>(Error{QStringLiteral("write_failed"), {}, prefix});
        if (!staging)
            co_return writeError(options.environmentPath, staging.error().detail);
        run.hostStaging = *staging;
    }
    // The staging folder goes with the run (Transaction) whatever happens below; the environment
    // is only touched in commit().

    Status built = co_await stageArchives(run);
    if (built && !options.dryRun)
        built = stageGenerated(run);
    if (built && !options.dryRun)
        built = co_await verifyStaged(run);
    if (built && !options.dryRun)
        built = commit(run);
    if (built && !options.dryRun && !run.report.packages.isEmpty())
        built = co_await reinstallPackages(run);
    if (!built)
        co_return run.tx.fail(built.error());

    if (auto s = enter(run, RepairStep::Register); !s)
        co_return s.error();
    registerKernel(run);
    judgeFindings(run);

    if (!options.dryRun) {
        const ScanResult after = co_await QtConcurrent::run(&scanFiles, run.hostEnv, run.record.files, run.windows,
                                                            m_cancel);
        if (!run.tx.alive())
            co_return run.tx.cancelledError();
        for (const RepairItem &i : after.items)
            run.report.after.append(i.path);
        if (!run.report.packages.isEmpty()) {
            const QString env = run.hostEnv;
            const CancelFlag cancel = m_cancel;
            const PipRecordScan pip = co_await QtConcurrent::run(&scanPipRecords, env, cancel);
            if (!run.tx.alive())
                co_return run.tx.cancelledError();
            for (const PipDistributionDamage &p : pip.damaged)
                run.report.after += p.files() + p.escaping;
        }
        const QString logText = run.tx.logText();
        // From the environment's own handle: a "logs" folder swapped for a link is refused, not
        // written through (the log is worth less than what lies where the link leads).
        (void)writeConfined(run.hostEnv, QStringLiteral("logs/repair.log"), logText.toUtf8());
    }

    if (options.catalog && !options.dryRun) {
        if (auto s = enter(run, RepairStep::Verify); !s)
            co_return s.error();
        const auto info = EnvironmentInfo::read(m_system, options.environmentPath);
        if (info) {
            VerifyRequest request = VerifyRequest::forEnvironment(*info, *options.catalog);
            request.probe = options.probe;
            run.report.verify = co_await verifyEnvironment(m_system, request, *options.catalog);
            if (!run.tx.alive())
                co_return run.tx.cancelledError();
        } else {
            log(run, QStringLiteral("verify skipped: %1").arg(info.error().message));
        }
    }
    co_return run.report;
}

QCoro::Task<Status> Repairer::stageArchives(Run &run)
{
    // The archives the damaged files come from, each once.
    QList<InstallArtifact> needed;
    for (const RepairItem &item : run.report.before) {
        if (item.fix != RepairItem::Fix::FromArchive)
            continue;
        const auto [component, version] = originComponent(item.origin);
        bool have = false;
        for (const InstallArtifact &a : needed)
            have = have || (a.component == component && a.version == version);
        for (const InstallArtifact &a : run.artifacts) {
            if (!have && a.isArchive() && a.component == component && a.version == version) {
                needed.append(a);
                have = true;
            }
        }
    }
    if (needed.isEmpty())
        co_return Ok{};
    if (auto s = enter(run, RepairStep::Fetch); !s)
        co_return s;

    Downloader *downloader = m_downloader;
    QList<std::pair<InstallArtifact, QString>> archives; // artifact, host path of the verified archive
    int index = 0;
    for (const InstallArtifact &artifact : needed) {
        const QString fileName = archiveFileName(artifact);
        const CancelFlag cancel = m_cancel;
        QString path;
        // An earlier download, checked against the record (a cache can be tampered with).
        if (!run.options.cacheDir.isEmpty()) {
            const QString candidate = run.options.cacheDir + u'/' + fileName;
            if (QFileInfo::exists(candidate)) {
                const Result<QByteArray> digest = co_await QtConcurrent::run(&hashOne, candidate, cancel);
                if (run.tx.stopped())
                    co_return run.tx.cancelledError();
                if (digest && *digest == artifact.sha256)
                    path = candidate;
                else
                    log(run,
                        QStringLiteral("%1 in the download folder does not match the record; not used").arg(fileName));
            }
        }
        const QUrl url(artifact.origin);
        const bool remote = url.scheme() == u"https" || url.scheme() == u"http";
        if (path.isEmpty() && !remote && QFileInfo(artifact.origin).isDir()) {
            // Installed from an offline bundle: its archives are named by digest in bundle.json.
            const QString origin = artifact.origin;
            const QByteArray sha = artifact.sha256;
            path = co_await QtConcurrent::run(&findByDigest, origin, sha, cancel);
        }
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!path.isEmpty()) {
            run.report.fromCache.append(fileName);
            log(run, QStringLiteral("using %1 from earlier downloads").arg(path));
        } else if (!remote) {
            co_return Error{QStringLiteral("archive_unavailable"),
                            tr("%1 is needed to repair the environment, but it is not among the earlier downloads "
                               "and tfsetup does not know where to download it. Put the file in the download "
                               "folder, or install the environment again.")
                                .arg(fileName),
                            artifact.origin};
        } else if (run.options.dryRun) {
            run.report.fetched.append(artifact.origin);
            continue;
        } else {
            if (!downloader)
                downloader = &downloaderFor(run);
            DownloadRequest request;
            request.name = QStringLiteral("%1 %2 (%3)").arg(artifact.component, artifact.version, artifact.platform);
            request.urls = {url};
            request.checksum = Checksum{Checksum::Algorithm::Sha256, artifact.sha256};
            request.destination = run.options.cacheDir.isEmpty()
                ? QString(run.hostStaging + QStringLiteral("/.archives/") + fileName)
                : QString(run.options.cacheDir + u'/' + fileName);
            QDir().mkpath(QFileInfo(request.destination).absolutePath());
            log(run, QStringLiteral("downloading %1").arg(artifact.origin));
            const Result<DownloadResult> fetched = co_await downloader->fetch(request);
            if (run.tx.stopped())
                co_return run.tx.cancelledError();
            if (!fetched)
                co_return fetched.error();
            path = fetched->path;
            if (fetched->fromCache)
                run.report.fromCache.append(fileName);
            else
                run.report.fetched.append(artifact.origin);
        }
        archives.append({artifact, path});
        Q_EMIT progress(++index, needed.size());
    }
    if (run.options.dryRun)
        co_return Ok{};

    // --- Stage: unpack, place by the rules, keep the damaged files' entries ---
    if (auto s = enter(run, RepairStep::Stage); !s)
        co_return s;
    const PlacementRules *placement = &m_knowledge->placement;
    index = 0;
    for (const auto &[artifact, archive] : archives) {
        const QString unpack = run.hostStaging + QStringLiteral("/.unpack/") + QString::number(index++);
        QDir().mkpath(unpack);
        const CancelFlag cancel = m_cancel;
        const QString archivePath = archive;
        const Result<QList<ExtractedEntry>> entries = co_await QtConcurrent::run(&extractArchive, archivePath, unpack,
                                                                                 cancel);
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!entries)
            co_return entries.error();
        auto placements = placeEntries(*placement, run.os, run.layout,
                                       artifact.kind == u"cudnn-archive" ? run.cudnnMajor : 0, artifact.component,
                                       *entries);
        if (!placements)
            co_return placements.error();
        QHash<QString, const Placement *> byTarget;
        for (const Placement &p : *placements)
            byTarget.insert(keyFor(p.to, run.windows), &p);
        for (const RepairItem &item : run.report.before) {
            const auto [component, version] = originComponent(item.origin);
            if (item.fix != RepairItem::Fix::FromArchive || component != artifact.component
                || version != artifact.version)
                continue;
            const Placement *p = byTarget.value(keyFor(item.path, run.windows));
            QByteArray recorded;
            for (const RecordedFile &f : run.record.files) {
                if (f.path == item.path)
                    recorded = f.sha256;
            }
            if (!p || p->entry.kind != ExtractedEntry::File || p->entry.sha256 != recorded) {
                co_return Error{QStringLiteral("archive_mismatch"),
                                tr("The archive %1 does not hold the file %2 as it was installed. The environment "
                                   "was made from other files; install it again.")
                                    .arg(item.source, item.path),
                                p ? QStringLiteral("archive %1, record %2")
                                        .arg(QString::fromLatin1(p->entry.sha256), QString::fromLatin1(recorded))
                                  : QStringLiteral("no entry is placed at %1").arg(item.path)};
            }
            const QString staged = run.hostStaging + QStringLiteral("/files/") + item.path;
            if (const Status moved = renameConfined(unpack, p->from, run.hostStaging,
                                                    QStringLiteral("files/") + item.path);
                !moved)
                co_return stagingWriteError(moved, staged);
            run.staged.append({item.path, staged, recorded, p->entry.executable, false});
            log(run, QStringLiteral("staged %1 from %2").arg(item.path, item.source));
        }
        QDir(unpack).removeRecursively();
    }
    co_return Ok{};
}

Status Repairer::stageGenerated(Run &run)
{
    QList<const RepairItem *> wanted;
    for (const RepairItem &item : run.report.before) {
        if (item.fix == RepairItem::Fix::Regenerate)
            wanted.append(&item);
    }
    if (wanted.isEmpty())
        return Ok{};
    if (auto s = enter(run, RepairStep::Stage); !s)
        return s;
    auto settings = LauncherSettings::load();
    if (!settings)
        return settings.error();

    // The launchers' inputs, as the installer derived them: from the placed files and the spec.
    LauncherContext context;
    context.os = run.os;
    context.environmentPath = run.options.environmentPath;
    bool desktop = false;
    for (const RecordedFile &f : run.record.files) {
        if (f.path.startsWith(QStringLiteral("cuda/lib64/")))
            context.libraryFolder = QStringLiteral("cuda/lib64");
        else if (f.path.startsWith(QStringLiteral("cuda/lib/")) && context.libraryFolder.isEmpty() && !run.windows)
            context.libraryFolder = QStringLiteral("cuda/lib");
        if (f.path.startsWith(QStringLiteral("cuda/nvvm/libdevice/")))
            context.xlaDataDir = true;
        if (f.path.startsWith(QStringLiteral("kernel/")) && f.path.endsWith(QStringLiteral(".desktop")))
            desktop = true;
    }
    const InstallSpec asked = run.record.plan();
    context.kernelName = run.record.kernelName();
    context.jupyterFrontEnd = asked.jupyter;
    // The GPU selection the install made (none recorded: none made); only indices a machine can have.
    for (const int i : asked.gpus) {
        if (i < HardwareReport::maxGpus)
            context.visibleGpus.append(i);
    }
    if (!run.windows)
        context.inheritedPath = m_system.pathList(QStringLiteral("PATH"));
    // The display name is not in the record: take it from a kernel.json that is still intact.
    QStringList kernelFiles{run.hostEnv + QStringLiteral("/kernel/kernel.json")};
    if (!run.kernelFolder.isEmpty())
        kernelFiles.append(m_system.hostPath(SystemView::join(run.kernelFolder, QStringLiteral("kernel.json"))));
    for (const QString &file : kernelFiles) {
        if (!context.displayName.isEmpty() || isLink(file))
            continue;
        if (const auto bytes = readInputFile(file, tr("The Jupyter kernel")))
            context.displayName =
                QJsonDocument::fromJson(*bytes).object().value(QStringLiteral("display_name")).toString();
    }
    if (context.displayName.isEmpty()) {
        context.displayName =
            QCoreApplication::translate("Installer", "TensorFlow %1 (%2)").arg(asked.tensorflow, run.record.name);
    }
    // The kernelspec filters the inherited search path now, as the installer did.
    const QStringList patterns = run.windows ? settings->windowsShadow : settings->linuxShadow;
    for (const QString &entry :
         m_system.pathList(run.windows ? QStringLiteral("PATH") : QStringLiteral("LD_LIBRARY_PATH"))) {
        bool shadows = false;
        for (const QString &p : patterns) {
            QString pattern = p;
            pattern.replace(u'\\', u'/');
            const QString fileName = pattern.section(u'/', -1);
            if (pattern.contains(u'/') ? m_system.exists(SystemView::join(entry, pattern))
                                       : !m_system.entries(entry, {fileName}, QDir::Files | QDir::System).isEmpty())
                shadows = true;
        }
        if (!shadows)
            context.inheritedSearchPath.append(run.windows ? QString(entry).replace(u'/', u'\\') : entry);
    }
    QDirIterator pipLibs(run.hostEnv + QStringLiteral("/venv/lib"), {QStringLiteral("lib")}, QDir::Dirs,
                         QDirIterator::Subdirectories);
    while (pipLibs.hasNext()) {
        const QString dir = pipLibs.next();
        if (dir.contains(QStringLiteral("/site-packages/nvidia/")))
            context.pipLibraryFolders.append(QDir(run.hostEnv).relativeFilePath(dir));
    }
    context.pipLibraryFolders.sort();

    auto files = LauncherWriter::launchers(*settings, context);
    if (!files)
        return files.error();
    files->append({QStringLiteral("kernel/kernel.json"),
                   QJsonDocument(LauncherWriter::kernelSpec(*settings, context)).toJson(), false});
    if (desktop && !run.windows) {
        files->append({QStringLiteral("kernel/tfsetup-") + context.kernelName + QStringLiteral(".desktop"),
                       LauncherWriter::desktopEntry(context), true});
    }
    files->append({QStringLiteral("ENVIRONMENT.md"), run.record.summary().toUtf8(), false});

    QHash<QString, QByteArray> recorded;
    for (const RecordedFile &f : run.record.files)
        recorded.insert(f.path, f.sha256);
    for (const RepairItem *item : wanted) {
        const GeneratedFile *generated = nullptr;
        for (const GeneratedFile &g : *files) {
            if (g.path == item->path)
                generated = &g;
        }
        if (!generated) {
            return Error{QStringLiteral("cannot_regenerate"),
                         tr("tfsetup cannot write %1 again for this environment. Install the environment again.")
                             .arg(item->path),
                         item->origin};
        }
        const QByteArray digest = sha256Of(generated->contents);
        // A different text (PATH changed since the install) is the right one now: the record follows.
        if (digest != recorded.value(item->path))
            run.newDigests.insert(item->path, digest);
        const QString staged = run.hostStaging + QStringLiteral("/files/") + item->path;
        if (const Status written = writeConfined(run.hostStaging, QStringLiteral("files/") + item->path,
                                                 generated->contents, generated->executable);
            !written)
            return stagingWriteError(written, staged);
        run.staged.append({item->path, staged, digest, generated->executable,
                           item->problem == RepairItem::Problem::Altered && run.record.launchers.contains(item->path)});
        log(run, QStringLiteral("staged %1 (written again)").arg(item->path));
    }
    if (!run.newDigests.isEmpty()) {
        for (RecordedFile &f : run.record.files) {
            if (run.newDigests.contains(f.path)) {
                f.sha256 = run.newDigests.value(f.path);
                for (const GeneratedFile &g : *files) {
                    if (g.path == f.path)
                        f.size = g.contents.size();
                }
            }
        }
        const QByteArray json = QJsonDocument(run.record.toJson()).toJson();
        const QString staged = run.hostStaging + QStringLiteral("/files/environment.json");
        if (const Status written = writeConfined(run.hostStaging, QStringLiteral("files/environment.json"), json);
            !written)
            return stagingWriteError(written, staged);
        run.staged.append({QStringLiteral("environment.json"), staged, sha256Of(json), false, false});
    }
    return Ok{};
}

QCoro::Task<Status> Repairer::verifyStaged(Run &run)
{
    if (run.staged.isEmpty())
        co_return Ok{};
    const QList<StagedFile> staged = run.staged;
    const CancelFlag cancel = m_cancel;
    const QString problem = co_await QtConcurrent::run(&checkStaged, staged, cancel);
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    if (!problem.isEmpty()) {
        co_return Error{QStringLiteral("verify_failed"),
                        tr("A replacement changed between unpacking and checking. The disk may be failing or "
                           "another program (an antivirus) altered it; repair again."),
                        problem};
    }
    co_return Ok{};
}

QCoro::Task<Status> Repairer::reinstallPackages(Run &run)
{
    if (auto s = enter(run, RepairStep::Packages); !s)
        co_return s;
    const QString python = run.hostEnv
        + (run.windows ? QStringLiteral("/venv/Scripts/python.exe") : QStringLiteral("/venv/bin/python"));
    const QString env = run.hostEnv;
    const CancelFlag cancel = m_cancel;
    SystemView &system = m_system;
    int index = 0;
    for (PipDistributionDamage &damage : run.report.packages) {
        const QString work = QStringLiteral("pip/") + QString::number(index++);
        const QString hostWork = run.hostStaging + u'/' + work;
        int tried = 0;
        std::optional<VerifiedWheel> wheel;
        // A wheel is the one to install only by its hash: the lock's. A file in the download
        // folder or a bundle is a candidate only for a locked distribution and is used only when
        // its SHA-256 is the locked one (a planted wheel with the right files and an extra .pth
        // is not). Without a lock, the wheel comes from the index, checked against its hash.
        const LockedWheel *locked = lockedWheel(run.record, damage);
        QStringList candidates = locked ? wheelCandidates(run.wheelFolders, damage.name, damage.version)
                                        : QStringList{};
        bool downloaded = false;
        while (!wheel) {
            if (candidates.isEmpty() && !downloaded) {
                // None at hand: the exact wheel the lock names (or, for an environment without a
                // lock, the one pip's resolver picks for this version), through the downloader,
                // checked below against the installed RECORD before anything is installed from it.
                downloaded = true;
                auto fetched = co_await fetchWheel(run, damage, python, hostWork);
                if (run.tx.stopped())
                    co_return run.tx.cancelledError();
                if (fetched)
                    candidates = {*fetched};
                else
                    log(run,
                        QStringLiteral("%1 %2 could not be fetched: %3 (%4)")
                            .arg(damage.name, damage.version, fetched.error().message, fetched.error().detail));
                if (candidates.isEmpty())
                    break;
            }
            if (candidates.isEmpty())
                break;
            const QString candidate = candidates.takeFirst();
            const QString unpack = hostWork + QStringLiteral("/unpack-") + QString::number(tried++);
            QDir().mkpath(unpack);
            const PipDistributionDamage checked = damage;
            const Result<VerifiedWheel> verified = co_await QtConcurrent::run(&verifyOneWheel, candidate, env, checked,
                                                                              unpack, cancel);
            if (run.tx.stopped())
                co_return run.tx.cancelledError();
            QDir(unpack).removeRecursively();
            if (verified && locked && verified->sha256 != locked->sha256)
                log(run,
                    QStringLiteral("%1 not used: its SHA-256 %2 is not the locked %3")
                        .arg(candidate, QString::fromLatin1(verified->sha256), QString::fromLatin1(locked->sha256)));
            else if (verified)
                wheel = *verified;
            else
                log(run, QStringLiteral("%1 not used: %2").arg(candidate, verified.error().detail));
        }
        if (!wheel) {
            damage.note = tr("No wheel of %1 %2 that matches what pip installed was found in the download folder, "
                             "the offline bundle or the package index. Install the environment again.")
                              .arg(damage.name, damage.version);
            damage.source.clear();
            continue;
        }
        damage.source = downloaded ? damage.source : QFileInfo(wheel->path).fileName();
        // Hash-checking mode: pip installs that one file or nothing (the hash is the wheel's as checked).
        const QByteArray requirement = damage.name.toUtf8() + "==" + damage.version.toUtf8()
            + " --hash=sha256:" + wheel->sha256 + '\n';
        const QString requirements = work + QStringLiteral("/reinstall.txt");
        if (const Status written = writeConfined(run.hostStaging, requirements, requirement); !written)
            co_return stagingWriteError(written, run.hostStaging + u'/' + requirements);
        // pip installs into a folder of tfsetup's own staging folder, never into the environment
        // (where a link planted in site-packages would take its writes elsewhere); the damaged
        // files are then moved in one by one, each checked against the installed RECORD.
        const QString target = run.hostStaging + u'/' + work + QStringLiteral("/target");
        const QStringList arguments{QStringLiteral("-m"),
                                    QStringLiteral("pip"),
                                    QStringLiteral("install"),
                                    QStringLiteral("--no-input"),
                                    QStringLiteral("--disable-pip-version-check"),
                                    QStringLiteral("--no-cache-dir"),
                                    QStringLiteral("--no-deps"),
                                    QStringLiteral("--no-compile"),
                                    QStringLiteral("--no-index"),
                                    QStringLiteral("--find-links"),
                                    QFileInfo(wheel->path).absolutePath(),
                                    QStringLiteral("--require-hashes"),
                                    QStringLiteral("--target"),
                                    target,
                                    QStringLiteral("-r"),
                                    run.hostStaging + u'/' + requirements};
        const ProcessResult r = co_await runPython(system, run.tx, python, arguments, pipTimeout);
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!r.succeeded()) {
            damage.note = tr("pip could not reinstall %1 %2 (its own words are in the log). Install the environment "
                             "again.")
                              .arg(damage.name, damage.version);
            log(run, QStringLiteral("reinstalling %1 %2 failed: %3").arg(damage.name, damage.version, r.error));
            continue;
        }
        const PipDistributionDamage restoring = damage;
        const QString hostEnv = run.hostEnv;
        const QStringList failed = co_await QtConcurrent::run(&restoreFromStaged, hostEnv, restoring, target);
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!failed.isEmpty()) {
            damage.note = tr("%1 %2 could not be put back whole (the log says which files and why). Install the "
                             "environment again.")
                              .arg(damage.name, damage.version);
            for (const QString &line : failed)
                log(run, QStringLiteral("not put back: %1").arg(line));
            continue;
        }
        log(run, QStringLiteral("reinstalled %1 %2 from %3").arg(damage.name, damage.version, wheel->path));
    }
    co_return Ok{};
}

Downloader &Repairer::downloaderFor(Run &run)
{
    if (m_downloader)
        return *m_downloader;
    if (!run.ownDownloader) {
        // The wizard keeps its content cache in the download folder too (DownloadCache::defaultDir()).
        run.ownDownloader = run.options.network.makeDownloader(run.options.cacheDir);
        m_fetching = run.ownDownloader.get(); // cancel() reaches it
    }
    return *run.ownDownloader;
}

QCoro::Task<Result<QString>> Repairer::fetchWheel(Run &run, PipDistributionDamage &damage, QString python, QString work)
{
    const SourceCatalog &catalog = m_knowledge->sources;
    const QList<QUrl> indexes = SetupFlow::pypiIndexes(run.options.network, catalog).valueOr({});
    Downloader &downloader = downloaderFor(run);
    LockedWheel wheel;
    if (const LockedWheel *locked = run.record.lock.find(damage.name); locked && locked->version == damage.version) {
        wheel = *locked;
    } else {
        // No lock (an environment made before tfsetup kept one): pip's resolver picks the wheel of
        // exactly this version through the bridge, as an install does.
        IndexBridge::Options bridgeOptions;
        bridgeOptions.indexes = indexes;
        bridgeOptions.transfer = run.options.network.transfer;
        bridgeOptions.downloader = &downloader;
        bridgeOptions.cacheDir = run.options.cacheDir.isEmpty() ? work : run.options.cacheDir;
        IndexBridge bridge(bridgeOptions);
        if (const Status started = bridge.start(); !started)
            co_return started.error();
        LockRequest request;
        request.python = python;
        request.requirements = {damage.name + QStringLiteral("==") + damage.version};
        request.noDeps = true;
        request.workDir = work;
        request.cancel = m_cancel;
        Locker locker(m_system);
        Transaction *tx = &run.tx;
        connect(&locker, &Locker::logLine, this, [tx](const QString &line) { tx->log(line); });
        auto resolved = co_await locker.lock(request, &bridge);
        if (run.tx.stopped())
            co_return run.tx.cancelledError();
        if (!resolved)
            co_return resolved.error();
        if (resolved->packages.isEmpty())
            co_return Error{QStringLiteral("no_matching_distribution"), {}, damage.name};
        wheel = resolved->packages.constFirst();
    }
    damage.source = wheel.url;
    DownloadRequest request;
    request.name = wheel.file;
    request.urls = SetupFlow::wheelUrls(wheel, indexes, catalog);
    request.expectedSize = wheel.size;
    request.checksum = Checksum{Checksum::Algorithm::Sha256, wheel.sha256};
    request.destination = (run.options.cacheDir.isEmpty() ? work : run.options.cacheDir) + u'/' + wheel.file;
    request.segments = 4;
    QDir().mkpath(QFileInfo(request.destination).absolutePath());
    log(run, QStringLiteral("fetching %1 (%2)").arg(wheel.file, wheel.url));
    auto fetched = co_await downloader.fetch(std::move(request));
    if (run.tx.stopped())
        co_return run.tx.cancelledError();
    if (!fetched)
        co_return fetched.error();
    co_return fetched->path;
}

Status Repairer::commit(Run &run)
{
    bool anything = !run.staged.isEmpty();
    for (const RepairItem &item : run.report.before)
        anything = anything || item.fix == RepairItem::Fix::MoveBack || item.fix == RepairItem::Fix::Relink;
    if (!anything)
        return Ok{};
    if (auto s = enter(run, RepairStep::Commit); !s)
        return s;

    // Every change is a rename (or a new link) with its inverse, undone in reverse on failure.
    struct Undo {
        enum Kind { Rename, RemoveLink, RemoveDir } kind;
        QString a; // Rename: current place; RemoveLink / RemoveDir: the path
        QString b; // Rename: where it goes back to
    };
    QList<Undo> undo;
    auto rollback = [&] {
        for (auto it = undo.crbegin(); it != undo.crend(); ++it) {
            if (it->kind == Undo::Rename)
                QFile::rename(it->a, it->b);
            else if (it->kind == Undo::RemoveLink)
                QFile::remove(it->a);
            else
                QDir().rmdir(it->a);
        }
    };
    auto makeParent = [&](const QString &file) {
        QStringList made;
        for (QString dir = QFileInfo(file).absolutePath(); !QFileInfo::exists(dir); dir = QFileInfo(dir).absolutePath())
            made.prepend(dir);
        for (const QString &dir : made) {
            if (!QDir().mkdir(dir))
                return false;
            undo.append({Undo::RemoveDir, dir, {}});
        }
        return true;
    };
    const QString oldFolder = run.hostStaging + QStringLiteral("/old/");
    // What the renames below are about to do, so a repair killed among them is finished or undone
    // by the next run (WorkLock::recover) instead of losing what sits in old/.
    {
        QList<WorkLock::JournalEntry> journal;
        for (const StagedFile &f : run.staged)
            journal.append({f.path, QDir(run.hostStaging).relativeFilePath(f.staged), f.keepOld});
        for (const RepairItem &item : run.report.before) {
            if (item.fix == RepairItem::Fix::Relink)
                journal.append({item.path, {}, false});
        }
        if (!WorkLock::writeJournal(run.hostStaging, journal))
            return writeError(QFileInfo(run.hostStaging).fileName(), run.hostStaging);
    }
    // A folder inside the environment replaced by a link would carry the renames below out of it.
    auto throughLink = [&](const QString &relative) {
        rollback();
        return Error{QStringLiteral("path_through_link"),
                     tr("%1 in the environment lies behind a link to another folder, so repair does not write there. "
                        "Remove the link (or install the environment again).")
                         .arg(relative),
                     run.hostEnv + u'/' + relative};
    };
    // The renames and links themselves refuse a link on the way (renameConfined, linkConfined),
    // however late it appeared after the checks here.
    auto refused = [&](const Status &done, const QString &relative, const Error &otherwise) {
        if (done.error().code == u"path_through_link")
            return throughLink(relative);
        rollback();
        return otherwise;
    };
    const QString old = QStringLiteral("old/");
    bool firstRenamed = false;
    for (const StagedFile &f : run.staged) {
        const QString target = run.hostEnv + u'/' + f.path;
        if (!reachesWithoutLinks(run.hostEnv, f.path))
            return throughLink(f.path);
        if (QFileInfo::exists(target) || QFileInfo(target).isSymLink()) {
            if (const Status moved = renameConfined(run.hostEnv, f.path, run.hostStaging, old + f.path); !moved) {
                return refused(moved, f.path,
                               Error{QStringLiteral("commit_failed"),
                                     tr("%1 is in use. Close every program started from the environment (Python, "
                                        "Jupyter, shells) and repair again.")
                                         .arg(f.path),
                                     target});
            }
            undo.append({Undo::Rename, oldFolder + f.path, target});
        }
        if (!makeParent(target)) {
            rollback();
            return writeError(f.path, target);
        }
        if (const Status moved = renameConfined(run.hostStaging, QDir(run.hostStaging).relativeFilePath(f.staged),
                                                run.hostEnv, f.path);
            !moved)
            return refused(moved, f.path, writeError(f.path, target));
        undo.append({Undo::Rename, target, f.staged});
        if (m_drill && !firstRenamed)
            m_drill(QStringLiteral("repair-first-rename"));
        firstRenamed = true;
    }
    for (const RepairItem &item : run.report.before) {
        const QString target = run.hostEnv + u'/' + item.path;
        if (!reachesWithoutLinks(run.hostEnv, item.path)
            || (item.fix == RepairItem::Fix::MoveBack && !reachesWithoutLinks(run.hostEnv, item.foundAt)))
            return throughLink(item.path);
        if (item.fix == RepairItem::Fix::MoveBack) {
            const QString from = run.hostEnv + u'/' + item.foundAt;
            if (!makeParent(target)) {
                rollback();
                return writeError(item.path, from);
            }
            if (const Status moved = renameConfined(run.hostEnv, item.foundAt, run.hostEnv, item.path); !moved)
                return refused(moved, item.path, writeError(item.path, from));
            undo.append({Undo::Rename, target, from});
        } else if (item.fix == RepairItem::Fix::Relink) {
            QString linkTarget;
            for (const RecordedFile &f : run.record.files) {
                if (f.path == item.path)
                    linkTarget = f.linkTarget;
            }
            if (QFileInfo::exists(target)) {
                if (const Status moved = renameConfined(run.hostEnv, item.path, run.hostStaging, old + item.path);
                    !moved)
                    return refused(moved, item.path, writeError(item.path, target));
                undo.append({Undo::Rename, oldFolder + item.path, target});
            }
            if (linkTarget.contains(u'/') || !makeParent(target)) {
                rollback();
                return writeError(item.path, QStringLiteral("link -> %1").arg(linkTarget));
            }
            if (const Status linked = linkConfined(run.hostEnv, item.path, linkTarget); !linked)
                return refused(linked, item.path, writeError(item.path, QStringLiteral("link -> %1").arg(linkTarget)));
            undo.append({Undo::RemoveLink, target, {}});
        }
    }
    if (m_drill)
        m_drill(QStringLiteral("repair-renamed"));
    // Committed. A launcher someone edited is kept beside the new one, as the installer does.
    for (const StagedFile &f : run.staged) {
        if (!f.keepOld)
            continue;
        QString backup = f.path + QStringLiteral(".user-backup");
        for (int n = 2; QFileInfo::exists(run.hostEnv + u'/' + backup); ++n)
            backup = f.path + QStringLiteral(".user-backup-%1").arg(n);
        if (renameConfined(run.hostStaging, old + f.path, run.hostEnv, backup))
            log(run, QStringLiteral("kept your edited %1 as %2").arg(f.path, backup));
    }
    log(run, QStringLiteral("repaired %1 files").arg(run.report.before.size()));
    return Ok{};
}

void Repairer::registerKernel(Run &run)
{
    // The user's own Jupyter folder, not a system one: the only thing outside the environment
    // repair touches, and the report says so. run.kernelFolder is the folder tfsetup derives for
    // this environment (checked when the record was read), never one the record chose.
    if (run.kernelFolder.isEmpty())
        return;
    const QString target = SystemView::join(run.kernelFolder, QStringLiteral("kernel.json"));
    const QString host = m_system.hostPath(target);
    if (host.isEmpty())
        return;
    const auto ours = readInputFile(run.hostEnv + QStringLiteral("/kernel/kernel.json"), tr("The Jupyter kernel"));
    if (!ours)
        return;
    const QByteArray &bytes = *ours;
    auto failed = [&] {
        run.report.outside.append(tr("The Jupyter kernel could not be registered in %1. Start Jupyter with "
                                     "start-jupyter instead.")
                                      .arg(run.kernelFolder));
    };
    // Checked again now: a link planted in the folder since the record was read must not carry
    // the write elsewhere.
    const QString hostData = m_system.hostPath(run.kernelFolder.section(u'/', 0, -3));
    if (hostData.isEmpty()
        || !reachesWithoutLinks(hostData, run.kernelFolder.section(u'/', -2) + QStringLiteral("/kernel.json"))) {
        log(run, QStringLiteral("kernelspec not written: %1 lies behind a link").arg(run.kernelFolder));
        failed();
        return;
    }
    // Another environment's kernel under this name (this folder is a copy of it, or it took the
    // name since) is theirs: never replaced. One the user made is kept beside ours, below.
    {
        const QString kernelName = run.kernelFolder.section(u'/', -1);
        QString why;
        if (LauncherWriter::ownKernelName(m_system, kernelName, run.options.environmentPath, &why) != kernelName) {
            log(run, QStringLiteral("kernelspec not written: %1 is not this environment's").arg(run.kernelFolder));
            run.report.outside.append(
                tr("The Jupyter kernel in %1 is not this environment's, so repair leaves it as it is. Start Jupyter "
                   "with start-jupyter, or install the environment again to register a kernel of its own.")
                    .arg(run.kernelFolder));
            return;
        }
    }
    // What is there now: tfsetup's own text (this environment's kernel as installed) is replaced;
    // anything else (an edited kernel, a link, another program's file) is kept beside it first,
    // as an edited launcher is.
    const QFileInfo existing(host);
    const bool present = existing.exists() || existing.isSymLink();
    bool keep = false;
    if (present) {
        if (isLink(host) || !existing.isFile()) {
            keep = true;
        } else {
            const auto old = readInputFile(host, tr("The Jupyter kernel"));
            if (old && *old == bytes)
                return;
            keep = !old || sha256Of(*old) != run.installedKernel;
        }
    }
    QString backup;
    if (keep) {
        backup = host + QStringLiteral(".user-backup");
        for (int n = 2; QFileInfo::exists(backup) || QFileInfo(backup).isSymLink(); ++n)
            backup = host + QStringLiteral(".user-backup-%1").arg(n);
    }
    const QString shownBackup = QFileInfo(backup).fileName();
    if (run.options.dryRun) {
        run.report.outside.append(
            keep ? tr("Would register the Jupyter kernel again in %1 (your user's Jupyter folder), keeping the "
                      "kernel.json there as %2.")
                       .arg(run.kernelFolder, shownBackup)
                 : tr("Would register the Jupyter kernel again in %1 (your user's Jupyter folder).")
                       .arg(run.kernelFolder));
        return;
    }
    // Every step from the Jupyter data folder down (kernels/, kernels/<name>/) is reached without
    // following a link: one planted after the check above makes the write fail, not land elsewhere.
    const QString relative = run.kernelFolder.section(u'/', -2) + QStringLiteral("/kernel.json");
    const QString relativeBackup = relative.section(u'/', 0, -2) + u'/' + shownBackup;
    // Moved aside, not copied: a link is moved itself, and what it points to is never read or written.
    if (keep && !renameConfined(hostData, relative, hostData, relativeBackup)) {
        log(run, QStringLiteral("kernelspec not written: %1 could not be kept as %2").arg(target, shownBackup));
        failed();
        return;
    }
    if (const Status written = writeConfined(hostData, relative, bytes); !written) {
        if (keep)
            (void)renameConfined(hostData, relativeBackup, hostData, relative);
        log(run, QStringLiteral("kernelspec not written: %1").arg(written.error().detail));
        failed();
        return;
    }
    if (keep) {
        run.report.outside.append(tr("Registered the Jupyter kernel again in %1 (your user's Jupyter folder); the "
                                     "kernel.json that was there is kept as %2.")
                                      .arg(run.kernelFolder, shownBackup));
        log(run, QStringLiteral("kernelspec written to %1, the one there kept as %2").arg(target, shownBackup));
    } else {
        run.report.outside.append(
            tr("Registered the Jupyter kernel again in %1 (your user's Jupyter folder).").arg(run.kernelFolder));
        log(run, QStringLiteral("kernelspec written to %1").arg(target));
    }
}

void Repairer::judgeFindings(Run &run)
{
    QSet<QString> repairedNames;
    QSet<QString> recordedNames;
    for (const RepairItem &i : run.report.before) {
        if (i.fix != RepairItem::Fix::None)
            repairedNames.insert(i.path.section(u'/', -1).toLower());
    }
    for (const RecordedFile &f : run.record.files)
        recordedNames.insert(f.path.section(u'/', -1).toLower());

    for (const DoctorFinding &finding : run.options.findings) {
        RepairFindingOutcome outcome;
        outcome.id = finding.id;
        outcome.cause = finding.cause;
        outcome.note = finding.fix.translated;
        for (const DoctorAction &action : finding.actions) {
            const QString library = action.params.value(QStringLiteral("library")).toString().toLower();
            if (action.type == u"rewrite_kernelspec" && !run.kernelFolder.isEmpty()) {
                outcome.handled = true;
                outcome.note = tr("The environment's Jupyter kernel is registered as installed.");
            } else if (action.type == u"prepend_path" && !run.record.launchers.isEmpty()) {
                outcome.handled = true;
                outcome.note = tr("The environment's launchers put its own libraries first. Start Python and "
                                  "Jupyter with start-python and start-jupyter.");
            } else if ((action.type == u"place_file" || action.type == u"fetch_library") && !library.isEmpty()
                       && recordedNames.contains(library)) {
                outcome.handled = true;
                outcome.note = repairedNames.contains(library)
                    ? tr("%1 was restored from NVIDIA's archive.").arg(library)
                    : tr("The environment's own %1 is in place and unchanged.").arg(library);
            } else if (action.type == u"remove_copy") {
                outcome.note = tr("%1 is outside the environment; tfsetup does not change system folders. %2")
                                   .arg(action.params.value(QStringLiteral("path")).toString(), finding.fix.translated);
            } else if (action.type == u"verify" && run.options.catalog) {
                outcome.handled = true;
                outcome.note = tr("Verified after the repair.");
            }
            if (outcome.handled)
                break;
        }
        run.report.findings.append(outcome);
    }
}

} // namespace tfsetup::core
