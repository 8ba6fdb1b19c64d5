#include "setup/environments.h"

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/version.h"
#include "detect/hardwarereport.h"
#include "install/installspec.h"
#include "install/launchers.h"
#include "install/worklock.h"
#include "setup/setupflow.h"
#include "solver/solver.h"
#include "util/confined.h"
#include "util/confinedremove.h"
#include "util/inputfile.h"
#include "util/names.h"
#include "verify/verifier.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QLockFile>
#include <QRegularExpression>
#include <QSet>
#include <QUuid>

#include <algorithm>

namespace tfsetup::core {

namespace {

const QString indexName = QStringLiteral("environments.json");
const QString lastVerifyName = QStringLiteral("logs/last-verify.json");
const QString tombstoneSuffix = QStringLiteral(".tfsetup-removing");

// Files tfsetup writes beside the record without listing them in it.
const QStringList &companions = EnvironmentRecord::companionFiles();

Qt::CaseSensitivity pathCase(const SystemView &system)
{
    return system.os() == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
}

const QString removalMarkerName = QStringLiteral(".tfsetup-removal");

// The entries a damaged index still shows: every "path": "…" it holds, in order. One stray byte
// must not make the other environments vanish from `list` (and their downloads unprotected
// from `clean`).
QList<QJsonObject> salvageIndex(const QByteArray &bytes)
{
    QList<QJsonObject> entries;
    static const QRegularExpression path(QStringLiteral(R"re("path"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.)*"))re"));
    for (auto it = path.globalMatch(QString::fromUtf8(bytes)); it.hasNext();) {
        const QString literal = it.next().captured(1);
        const QString value = QJsonDocument::fromJson((u'[' + literal + u']').toUtf8()).array().at(0).toString();
        if (!value.isEmpty())
            entries.append(QJsonObject{{QStringLiteral("path"), value}});
    }
    return entries;
}

struct IndexRead {
    QList<QJsonObject> entries;
    bool damaged = false;
};

IndexRead readIndex(const QString &hostIndex)
{
    IndexRead read;
    if (!QFileInfo::exists(hostIndex) && !isLink(hostIndex))
        return read;
    const auto json = readJsonObjectFile(hostIndex, EnvironmentIndex::tr("The list of environments"));
    if (!json) {
        qWarning().noquote() << "environment index unreadable:" << json.error().message << json.error().detail;
        read.damaged = true;
        // Bounded and plain files only, as every input; what it still shows is used.
        if (const auto bytes = readInputFile(hostIndex, EnvironmentIndex::tr("The list of environments")))
            read.entries = salvageIndex(*bytes);
        return read;
    }
    for (const QJsonValue &v : json->value(QStringLiteral("environments")).toArray()) {
        const QJsonObject o = v.toObject();
        if (!o.value(QStringLiteral("path")).toString().isEmpty())
            read.entries.append(o);
    }
    return read;
}

// Reads, changes and writes the index under its lock.
Status changeIndex(const SystemView &system, const std::function<void(QList<QJsonObject> &)> &change)
{
    const QString host = system.hostPath(EnvironmentIndex::dataFolder(system));
    if (host.isEmpty() || !QDir().mkpath(host)) {
        return Error{QStringLiteral("index_unwritable"),
                     EnvironmentIndex::tr("The list of environments in %1 cannot be written. Check that the folder "
                                          "is yours and not full.")
                         .arg(QDir::toNativeSeparators(EnvironmentIndex::dataFolder(system))),
                     host};
    }
    QLockFile lock(host + QStringLiteral("/environments.json.lock"));
    lock.setStaleLockTime(30000);
    if (!lock.tryLock(10000)) {
        return Error{QStringLiteral("index_busy"),
                     EnvironmentIndex::tr("Another tfsetup is changing the list of environments. Try again in a "
                                          "moment."),
                     lock.fileName()};
    }
    IndexRead read = readIndex(host + u'/' + indexName);
    if (read.damaged) {
        // Kept aside, never overwritten: the user (or support) can still read what it held.
        const QString aside = indexName + QStringLiteral(".damaged-")
            + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
        if (const Status kept = renameConfined(host, indexName, host, aside); !kept)
            return kept;
        qWarning().noquote() << "environment index was damaged; kept as" << aside << "with" << read.entries.size()
                             << "entries recovered";
    }
    QList<QJsonObject> entries = std::move(read.entries);
    change(entries);
    QJsonArray list;
    for (const QJsonObject &o : std::as_const(entries))
        list.append(o);
    const QByteArray bytes =
        QJsonDocument(QJsonObject{{QStringLiteral("schema"), 1}, {QStringLiteral("environments"), list}}).toJson();
    return writeConfined(host, indexName, bytes);
}

} // namespace

// --- EnvironmentIndex ---

QString EnvironmentIndex::dataFolder(const SystemView &system)
{
    QString base;
    if (system.os() == OsFamily::Windows) {
        base = system.env(QStringLiteral("APPDATA"));
        if (base.isEmpty())
            base = SystemView::join(system.homeDir(), QStringLiteral("AppData/Roaming"));
    } else if (system.os() == OsFamily::MacOS) {
        base = SystemView::join(system.homeDir(), QStringLiteral("Library/Application Support"));
    } else {
        base = system.env(QStringLiteral("XDG_DATA_HOME"));
        if (base.isEmpty())
            base = SystemView::join(system.homeDir(), QStringLiteral(".local/share"));
    }
    return SystemView::join(system.normalize(base), QStringLiteral("tfsetup"));
}

QString EnvironmentIndex::indexPath(const SystemView &system)
{
    return SystemView::join(dataFolder(system), indexName);
}

QStringList EnvironmentIndex::folders(const SystemView &system)
{
    QStringList list;
    const QString host = system.hostPath(indexPath(system));
    if (host.isEmpty())
        return list;
    for (const QJsonObject &o : readIndex(host).entries)
        list.append(system.normalize(o.value(QStringLiteral("path")).toString()));
    list.removeDuplicates();
    return list;
}

Status EnvironmentIndex::markRemoving(const SystemView &system, const QString &environmentPath, const QString &id)
{
    const QString path = system.normalize(environmentPath);
    const Qt::CaseSensitivity cs = pathCase(system);
    return changeIndex(system, [&](QList<QJsonObject> &entries) {
        for (QJsonObject &o : entries) {
            if (system.normalize(o.value(QStringLiteral("path")).toString()).compare(path, cs) == 0) {
                o.insert(QStringLiteral("removing"), id);
                return;
            }
        }
        entries.append(QJsonObject{{QStringLiteral("path"), path}, {QStringLiteral("removing"), id}});
    });
}

QString EnvironmentIndex::removingId(const SystemView &system, const QString &environmentPath)
{
    const QString host = system.hostPath(indexPath(system));
    if (host.isEmpty())
        return {};
    const QString path = system.normalize(environmentPath);
    for (const QJsonObject &o : readIndex(host).entries) {
        if (system.normalize(o.value(QStringLiteral("path")).toString()).compare(path, pathCase(system)) == 0)
            return o.value(QStringLiteral("removing")).toString();
    }
    return {};
}

Status EnvironmentIndex::add(const SystemView &system, const QString &environmentPath)
{
    const QString path = system.normalize(environmentPath);
    const Qt::CaseSensitivity cs = pathCase(system);
    return changeIndex(system, [&](QList<QJsonObject> &entries) {
        for (const QJsonObject &o : std::as_const(entries)) {
            if (system.normalize(o.value(QStringLiteral("path")).toString()).compare(path, cs) == 0)
                return;
        }
        entries.append(QJsonObject{{QStringLiteral("path"), path},
                                   {QStringLiteral("added"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}});
    });
}

Status EnvironmentIndex::remove(const SystemView &system, const QString &environmentPath)
{
    const QString path = system.normalize(environmentPath);
    const Qt::CaseSensitivity cs = pathCase(system);
    return changeIndex(system, [&](QList<QJsonObject> &entries) {
        entries.removeIf([&](const QJsonObject &o) {
            return system.normalize(o.value(QStringLiteral("path")).toString()).compare(path, cs) == 0;
        });
    });
}

// --- The last verify ---

QJsonObject LastVerify::toJson() const
{
    if (!present)
        return {};
    return QJsonObject{{QStringLiteral("passed"), passed},
                       {QStringLiteral("date"), date},
                       {QStringLiteral("failed_layer"), failedLayer},
                       {QStringLiteral("message"), message}};
}

Status recordVerifyResult(const QString &hostEnvironment, const VerifyReport &report)
{
    QJsonObject o{{QStringLiteral("schema"), 1},
                  {QStringLiteral("passed"), report.passed()},
                  {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                  {QStringLiteral("tensorflow"), report.tensorflow}};
    if (const VerifyLayer *failed = report.firstFailure()) {
        o.insert(QStringLiteral("failed_layer"), failed->id);
        o.insert(QStringLiteral("message"), failed->summary);
    }
    // Beside the record, never through a link planted in the environment.
    return writeConfined(hostEnvironment, lastVerifyName, QJsonDocument(o).toJson());
}

LastVerify readLastVerify(const QString &hostEnvironment)
{
    LastVerify last;
    QFile file;
    if (!openConfined(file, hostEnvironment, lastVerifyName, ConfinedOpen::ReadOnly))
        return last;
    const QJsonObject o = QJsonDocument::fromJson(file.read(64 * 1024)).object();
    if (!o.value(QStringLiteral("passed")).isBool())
        return last;
    last.present = true;
    last.passed = o.value(QStringLiteral("passed")).toBool();
    last.date = o.value(QStringLiteral("date")).toString().left(100);
    last.failedLayer = o.value(QStringLiteral("failed_layer")).toString().left(100);
    last.message = o.value(QStringLiteral("message")).toString().left(2000);
    return last;
}

// --- Listing ---

QJsonObject EnvironmentListing::toJson() const
{
    auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    return QJsonObject{
        {QStringLiteral("path"), path},
        {QStringLiteral("name"), name},
        {QStringLiteral("state"), state},
        {QStringLiteral("problem"), orNull(problem)},
        {QStringLiteral("route"), orNull(route)},
        {QStringLiteral("tensorflow"), orNull(tensorflow)},
        {QStringLiteral("python"), orNull(python)},
        {QStringLiteral("cuda"), orNull(cuda)},
        {QStringLiteral("cudnn"), orNull(cudnn)},
        {QStringLiteral("cuda_from"), orNull(cudaFrom)},
        {QStringLiteral("created"), orNull(created)},
        {QStringLiteral("bytes"), bytes >= 0 ? QJsonValue(bytes) : QJsonValue()},
        {QStringLiteral("files_changed"), filesChanged},
        {QStringLiteral("last_verify"), lastVerify.present ? QJsonValue(lastVerify.toJson()) : QJsonValue()},
        {QStringLiteral("newer_tensorflow"), orNull(newerTensorflow)},
        {QStringLiteral("launchers"), QJsonArray::fromStringList(launchers)}};
}

QString removalTombstone(const QString &hostEnvironment)
{
    const QFileInfo info(hostEnvironment);
    return info.absolutePath() + QStringLiteral("/.") + info.fileName() + tombstoneSuffix;
}

namespace {

// The id in a removal marker: what removeEnvironment() wrote, a UUID, nothing else.
QString markerId(const QString &hostFolder)
{
    QFile file;
    if (!openConfined(file, hostFolder, removalMarkerName, ConfinedOpen::ReadOnly))
        return {};
    const QString id = QString::fromLatin1(file.read(64)).trimmed();
    static const QRegularExpression uuid(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
    return uuid.match(id).hasMatch() ? id : QString();
}

} // namespace

bool isRemovalInProgress(const SystemView &system, const QString &environmentPath)
{
    const QString host = system.hostPath(system.normalize(environmentPath));
    if (host.isEmpty())
        return false;
    const QString tombstone = removalTombstone(host);
    if (isLink(tombstone) || !QFileInfo(tombstone).isDir())
        return false;
    const QString id = markerId(tombstone);
    return !id.isEmpty() && id == EnvironmentIndex::removingId(system, environmentPath);
}

namespace {

EnvironmentListing describe(const SystemView &system, const QString &path, bool measure)
{
    EnvironmentListing l;
    l.path = path;
    l.name = path.section(u'/', -1);
    const QString host = system.hostPath(path);
    if (host.isEmpty() || (!QFileInfo::exists(host) && !isLink(host))) {
        if (!host.isEmpty() && isRemovalInProgress(system, path)) {
            l.state = QStringLiteral("removal_interrupted");
            l.problem = EnvironmentListing::tr("Its removal was stopped midway. Remove it again to finish.");
        } else {
            l.state = QStringLiteral("missing");
            l.problem = EnvironmentListing::tr("The folder is gone (moved or deleted by hand).");
        }
        return l;
    }
    if (isLink(host)) {
        l.state = QStringLiteral("record_damaged");
        l.problem = EnvironmentListing::tr("The folder is now a link to another place; tfsetup does not follow it.");
        return l;
    }
    const auto record = EnvironmentRecord::read(host);
    if (!record) {
        l.state = record.error().code == u"record_missing" ? QStringLiteral("record_missing")
                                                           : QStringLiteral("record_damaged");
        l.problem = record.error().message;
        // Not measured: a folder without tfsetup's record may be anything (an index entry "/"
        // would make this walk the whole file system).
        return l;
    }
    if (!record->name.isEmpty())
        l.name = record->name;
    const InstallSpec asked = record->plan();
    l.route = asked.route;
    l.tensorflow = record->tensorflowVersion();
    l.python = record->pythonVersion.isEmpty() ? asked.python : record->pythonVersion;
    const EnvironmentRecord::CudaInUse libraries = record->cudaInUse();
    l.cuda = libraries.cuda;
    l.cudnn = libraries.cudnn;
    if (libraries.fromPipWheels)
        l.cudaFrom = QStringLiteral("pip");
    l.created = record->created;
    for (const QString &launcher : record->launchers)
        l.launchers.append(SystemView::join(path, launcher));
    // A quick look (no hashing: an environment holds gigabytes): every file there with its size.
    for (const RecordedFile &f : record->files) {
        const QFileInfo info(host + u'/' + f.path);
        const bool fine = f.linkTarget.isEmpty() ? (info.isFile() && !info.isSymLink() && info.size() == f.size)
                                                 : info.isSymLink();
        if (!fine)
            ++l.filesChanged;
    }
    if (l.filesChanged > 0) {
        l.state = QStringLiteral("files_changed");
        l.problem = EnvironmentListing::tr("%n recorded file(s) are missing or changed. Repair restores them.", "",
                                           l.filesChanged);
    } else {
        l.state = QStringLiteral("ok");
    }
    if (measure)
        l.bytes = bytesBelow(host);
    l.lastVerify = readLastVerify(host);
    return l;
}

} // namespace

QList<EnvironmentListing> listEnvironments(const SystemView &system, const ListOptions &options)
{
    QStringList paths = EnvironmentIndex::folders(system);
    // Environments made before the index existed, and folders the caller names.
    QStringList searched{SetupOptions::defaultPrefix(system)};
    searched += options.folders;
    const auto hasRecord = [&](const QString &folder) {
        const QString host = system.hostPath(folder);
        return !host.isEmpty() && QFileInfo::exists(host + QStringLiteral("/environment.json"));
    };
    for (const QString &folder : std::as_const(searched)) {
        const QString normal = system.normalize(folder);
        if (normal.isEmpty())
            continue;
        if (hasRecord(normal)) {
            paths.append(normal);
            continue;
        }
        const QString host = system.hostPath(normal);
        if (host.isEmpty())
            continue;
        // Hidden folders are staging folders, replaced copies and tombstones, never environments.
        for (const QString &name : QDir(host).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            if (hasRecord(SystemView::join(normal, name)))
                paths.append(SystemView::join(normal, name));
        }
    }
    QList<EnvironmentListing> listings;
    QSet<QString> seen; // linear in the number of entries, however many the index holds
    const bool folded = pathCase(system) == Qt::CaseInsensitive;
    for (const QString &path : std::as_const(paths)) {
        const QString key = folded ? path.toCaseFolded() : path;
        if (seen.contains(key))
            continue;
        seen.insert(key);
        listings.append(describe(system, path, options.measure));
    }
    return listings;
}

void findNewerTensorflow(QList<EnvironmentListing> &listings, const Catalog &catalog, const GpuTable *gpus,
                         const HardwareReport &report)
{
    const Solver solver(catalog, gpus);
    for (EnvironmentListing &l : listings) {
        l.newerTensorflow.clear();
        if (!l.isEnvironment() || l.route.isEmpty() || l.tensorflow.isEmpty())
            continue;
        SolverConstraints constraints;
        constraints.route = l.route;
        const Solution solution = solver.solve(report, constraints);
        QList<Plan> fitting = solution.alternatives;
        if (solution.recommended)
            fitting.prepend(*solution.recommended);
        for (const Plan &plan : std::as_const(fitting)) {
            if (plan.route != l.route || !version::less(l.tensorflow, plan.tensorflow))
                continue;
            if (l.newerTensorflow.isEmpty() || version::less(l.newerTensorflow, plan.tensorflow))
                l.newerTensorflow = plan.tensorflow;
        }
    }
}

QString listText(const QList<EnvironmentListing> &listings)
{
    if (listings.isEmpty())
        return EnvironmentListing::tr("No environment made by tfsetup was found.") + u'\n';
    const QLocale locale;
    QString text;
    for (const EnvironmentListing &l : listings) {
        text += QStringLiteral("%1  %2\n").arg(l.name, QDir::toNativeSeparators(l.path));
        if (l.isEnvironment()) {
            const QString none = EnvironmentListing::tr("none");
            if (l.cudaFrom == u"pip") {
                const QString unknown = EnvironmentListing::tr("unknown");
                text += u"  "
                    + EnvironmentListing::tr(
                          "TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5 (from pip's nvidia-* wheels)")
                          .arg(l.tensorflow, l.route, l.python, l.cuda.isEmpty() ? unknown : l.cuda,
                               l.cudnn.isEmpty() ? unknown : l.cudnn)
                    + u'\n';
            } else {
                text += u"  "
                    + EnvironmentListing::tr("TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5")
                          .arg(l.tensorflow, l.route, l.python, l.cuda.isEmpty() ? none : l.cuda,
                               l.cudnn.isEmpty() ? none : l.cudnn)
                    + u'\n';
            }
        }
        if (l.bytes >= 0)
            text += u"  "
                + EnvironmentListing::tr("Size on disk: %1")
                      .arg(locale.formattedDataSize(l.bytes, 1, QLocale::DataSizeTraditionalFormat))
                + u'\n';
        if (l.lastVerify.present) {
            text += u"  "
                + (l.lastVerify.passed ? EnvironmentListing::tr("Last verified %1: passed").arg(l.lastVerify.date)
                                       : EnvironmentListing::tr("Last verified %1: failed (%2)")
                                             .arg(l.lastVerify.date, l.lastVerify.message))
                + u'\n';
        } else if (l.isEnvironment()) {
            text += u"  " + EnvironmentListing::tr("Not verified since it was installed.") + u'\n';
        }
        if (!l.newerTensorflow.isEmpty())
            text += u"  "
                + EnvironmentListing::tr("TensorFlow %1 fits this machine on the same route.").arg(l.newerTensorflow)
                + u'\n';
        if (!l.problem.isEmpty())
            text += u"  " + l.problem + u'\n';
    }
    return text;
}

QSet<QByteArray> referencedChecksums(const SystemView &system, const QList<EnvironmentListing> &listings)
{
    QSet<QByteArray> digests;
    for (const EnvironmentListing &l : listings) {
        const QString host = system.hostPath(l.path);
        if (host.isEmpty())
            continue;
        const auto record = EnvironmentRecord::read(host);
        if (!record)
            continue;
        for (const InstallArtifact &artifact : record->plan().artifacts) {
            if (!artifact.sha256.isEmpty())
                digests.insert(artifact.sha256);
            if (!artifact.md5.isEmpty())
                digests.insert(artifact.md5);
        }
    }
    return digests;
}

// --- Removal ---

QJsonObject RemoveReport::toJson() const
{
    return QJsonObject{
        {QStringLiteral("ok"), true},
        {QStringLiteral("environment"), environmentPath},
        {QStringLiteral("dry_run"), dryRun},
        {QStringLiteral("files_removed"), filesRemoved},
        {QStringLiteral("bytes_freed"), bytesFreed},
        {QStringLiteral("outside_removed"), QJsonArray::fromStringList(outsideRemoved)},
        {QStringLiteral("outside_kept"), QJsonArray::fromStringList(outsideKept)},
        {QStringLiteral("outside_owned_by_python"), outsideOwned.isEmpty() ? QJsonValue() : QJsonValue(outsideOwned)},
        {QStringLiteral("kept"), QJsonArray::fromStringList(kept)},
        {QStringLiteral("folder_kept"), folderKept}};
}

QString RemoveReport::text() const
{
    const QLocale locale;
    const QString size = locale.formattedDataSize(bytesFreed, 1, QLocale::DataSizeTraditionalFormat);
    QString t = dryRun ? tr("Would remove %n file(s) of %1 (%2).", "", filesRemoved)
                             .arg(QDir::toNativeSeparators(environmentPath), size)
                       : tr("Removed %n file(s) of %1 (%2 freed).", "", filesRemoved)
                             .arg(QDir::toNativeSeparators(environmentPath), size);
    t += u'\n';
    for (const QString &p : outsideRemoved)
        t += (dryRun ? tr("Would remove %1") : tr("Removed %1")).arg(QDir::toNativeSeparators(p)) + u'\n';
    for (const QString &p : outsideKept)
        t += tr("Kept %1: it was changed after tfsetup wrote it.").arg(QDir::toNativeSeparators(p)) + u'\n';
    if (!outsideOwned.isEmpty()) {
        t += tr("The Jupyter kernel and menu entry stay: they start %1, so they belong to the environment this "
                "folder was copied from.")
                 .arg(QDir::toNativeSeparators(outsideOwned))
            + u'\n';
    }
    if (!kept.isEmpty()) {
        t += tr("Kept %n file(s) tfsetup did not make (or that changed since), so the folder stays:", "",
                int(kept.size()))
            + u'\n';
        for (const QString &k : kept)
            t += QStringLiteral("  %1\n").arg(QDir::toNativeSeparators(k));
    }
    return t;
}

namespace {

Error notEnvironment(const QString &shown, const QString &detail)
{
    return Error{QStringLiteral("not_environment"),
                 RemoveReport::tr("%1 is not an environment made by tfsetup (it has no valid environment.json), so "
                                  "tfsetup removes nothing from it. Delete it yourself if you are sure.")
                     .arg(QDir::toNativeSeparators(shown)),
                 detail};
}

struct Removal {
    SystemView &system;
    RemoveReport report;
    bool dryRun = false;
    QString shown; // the environment in the view's spelling
    QString root;  // host folder worked in: the tombstone (or the environment, for a dry run)
    const RemoveDrill &drill;

    bool stop(const QString &point) const { return !dryRun && drill && drill(point); }

    // The Python the environment's own kernel/kernel.json starts (argv[0], view spelling), read
    // without following a link and never more than a kernelspec holds; empty when it names none.
    QString kernelPython() const
    {
        QFile file;
        if (!openConfined(file, root, QStringLiteral("kernel/kernel.json"), ConfinedOpen::ReadOnly))
            return {};
        const QJsonArray argv =
            QJsonDocument::fromJson(file.read(256 * 1024)).object().value(QStringLiteral("argv")).toArray();
        const QString python = argv.isEmpty() ? QString() : argv.first().toString();
        return python.isEmpty() ? QString() : system.normalize(python);
    }

    // A file outside the environment: removed when its bytes are still the ones the record lists
    // for `recorded` inside it.
    void removeOutside(const QString &viewPath, int below, const QByteArray &sha256)
    {
        const QString host = system.hostPath(viewPath);
        if (host.isEmpty() || sha256.isEmpty())
            return;
        const QString top = host.section(u'/', 0, -1 - below);
        const QString relative = host.section(u'/', -below);
        if (!QFileInfo::exists(host) && !isLink(host))
            return;
        const auto digest = sha256Confined(top, relative);
        if (!digest || *digest != sha256) {
            report.outsideKept.append(viewPath);
            report.log.append(QStringLiteral("kept %1 (changed or behind a link)").arg(host));
            return;
        }
        if (!dryRun) {
            if (const Status removed = removeFileConfined(top, relative); !removed) {
                report.outsideKept.append(viewPath);
                report.log.append(QStringLiteral("could not remove %1: %2").arg(host, removed.error().detail));
                return;
            }
            // kernels/<name>: the folder goes when it is left empty.
            if (below > 1)
                (void)removeEmptyFolderConfined(top, relative.section(u'/', 0, -2));
        }
        report.outsideRemoved.append(viewPath);
        report.log.append(QStringLiteral("removed %1").arg(host));
    }

    Status run(const EnvironmentRecord &record)
    {
        QHash<QString, QByteArray> digests;
        for (const RecordedFile &f : record.files)
            digests.insert(f.path, f.sha256);

        // 1. What tfsetup registered outside: the kernelspec (a copy of kernel/kernel.json) and
        // the menu entry (a copy of kernel/tfsetup-<kernel>.desktop), each only while unchanged,
        // and only when they are this folder's: a copy of an environment (cp -a env backup)
        // carries the original's record and kernel, whose Python is the original's. While that
        // Python is there, the kernel and menu entry are the original's, and stay; once it is gone
        // (the environment was moved here), they are this one's.
        if (const QString python = kernelPython(); !python.isEmpty()) {
            const QString folder = shown.endsWith(u'/') ? shown : shown + u'/';
            const QString host = system.hostPath(python);
            if (!python.startsWith(folder, pathCase(system)) && !host.isEmpty()
                && (QFileInfo::exists(host) || isLink(host))) {
                report.outsideOwned = python;
                report.log.append(
                    QStringLiteral("the kernel starts %1, not this folder's Python: it stays").arg(python));
                return removeInside(record);
            }
        }
        const QString kernelName = record.kernelName();
        if (!record.kernelFolder.isEmpty() && isSafePathName(kernelName)
            && system.normalize(record.kernelFolder)
                    .compare(LauncherWriter::userKernelFolder(system, kernelName), pathCase(system))
                == 0) {
            removeOutside(
                SystemView::join(LauncherWriter::userKernelFolder(system, kernelName), QStringLiteral("kernel.json")),
                3, digests.value(QStringLiteral("kernel/kernel.json")));
        }
        for (const RecordedFile &f : record.files) {
            if (!f.path.startsWith(QStringLiteral("kernel/tfsetup-")) || !f.path.endsWith(QStringLiteral(".desktop")))
                continue;
            const QString entryKernel = f.path.mid(15).chopped(8);
            if (!isSafePathName(entryKernel))
                continue;
            const QString entry = LauncherWriter::desktopEntryPath(system, entryKernel);
            if (!entry.isEmpty())
                removeOutside(entry, 1, f.sha256);
        }
        return removeInside(record);
    }

    Status removeInside(const EnvironmentRecord &record)
    {
        QHash<QString, QByteArray> digests;
        for (const RecordedFile &f : record.files)
            digests.insert(f.path, f.sha256);

        // 2. The files the record proves, then the venv and the record's companions.
        QStringList folders;
        int done = 0;
        for (const RecordedFile &f : record.files) {
            const QString at = root + u'/' + f.path;
            const bool there = QFileInfo::exists(at) || isLink(at);
            if (!there)
                continue;
            bool ours = false;
            qint64 size = 0;
            if (!f.linkTarget.isEmpty()) {
                ours = isLink(at);
            } else if (!isLink(at) && QFileInfo(at).isFile()) {
                const auto digest = sha256Confined(root, f.path);
                ours = digest && *digest == f.sha256;
                size = QFileInfo(at).size();
            }
            if (!ours)
                continue; // reported with the other leftovers below
            if (!dryRun) {
                if (const Status removed = removeFileConfined(root, f.path); !removed)
                    return removed;
            }
            ++report.filesRemoved;
            report.bytesFreed += size;
            if (++done == record.files.size() / 2 && stop(QStringLiteral("halfway")))
                return Error{QStringLiteral("drill"), QStringLiteral("stopped at halfway"), {}};
        }
        const QString venv = QStringLiteral("venv");
        if (QFileInfo(root + u'/' + venv).isDir() && !isLink(root + u'/' + venv)) {
            if (dryRun) {
                report.bytesFreed += bytesBelow(root + u'/' + venv);
            } else {
                const auto removed = removeTreeConfined(root, venv);
                if (!removed)
                    return removed.error();
                report.bytesFreed += *removed;
            }
            report.log.append(QStringLiteral("removed the venv"));
        }
        for (const QString &c : companions) {
            const QString at = root + u'/' + c;
            if (isLink(at) || QFileInfo(at).isFile()) {
                report.bytesFreed += isLink(at) ? 0 : QFileInfo(at).size();
                if (!dryRun) {
                    if (const Status removed = removeFileConfined(root, c); !removed)
                        return removed;
                }
            }
        }

        // 3. What is left is not provably tfsetup's: kept, with the folders holding it.
        QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const QString relative = QDir(root).relativeFilePath(path);
            const QFileInfo info = it.fileInfo();
            if (relative == u"environment.json" || relative == removalMarkerName)
                continue;
            if (info.isDir() && !info.isSymLink()) {
                folders.append(relative);
                continue;
            }
            if (dryRun
                && (digests.contains(relative) || companions.contains(relative)
                    || relative.startsWith(QStringLiteral("venv/")))) {
                // Counted above as removable when its digest matched; a changed one is kept.
                if (!digests.contains(relative))
                    continue;
                const auto digest = info.isSymLink() ? Result<QByteArray>(QByteArray())
                                                     : sha256Confined(root, relative);
                if (info.isSymLink() || (digest && *digest == digests.value(relative)))
                    continue;
            }
            report.kept.append(relative);
        }
        report.kept.sort();
        if (!dryRun) {
            // Deepest first: a folder emptied above goes, one still holding a kept file stays.
            std::sort(folders.begin(), folders.end(), [](const QString &a, const QString &b) {
                return a.count(u'/') > b.count(u'/') || (a.count(u'/') == b.count(u'/') && a > b);
            });
            for (const QString &f : std::as_const(folders))
                (void)removeEmptyFolderConfined(root, f);
        }
        return Ok{};
    }
};

// Puts the tombstone's leftovers back under the environment's name (or removes the empty
// tombstone); the last step of a removal, and what finishing an interrupted one ends with.
Status closeTombstone(const QString &tombstone, const QString &hostEnvironment, RemoveReport &report)
{
    const QString prefix = QFileInfo(tombstone).absolutePath();
    // The marker goes last but one: until the tombstone is gone, it proves the folder is ours.
    if (QFileInfo::exists(tombstone + u'/' + removalMarkerName) || isLink(tombstone + u'/' + removalMarkerName)) {
        if (const Status removed = removeFileConfined(tombstone, removalMarkerName); !removed)
            return removed;
    }
    if (QDir(tombstone).isEmpty(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot))
        return removeEmptyFolderConfined(prefix, QFileInfo(tombstone).fileName());
    report.folderKept = true;
    if (QFileInfo::exists(hostEnvironment) || isLink(hostEnvironment)) {
        report.log.append(QStringLiteral("%1 exists again; the files kept stay in %2").arg(hostEnvironment, tombstone));
        return Ok{};
    }
    return renameConfined(prefix, QFileInfo(tombstone).fileName(), prefix, QFileInfo(hostEnvironment).fileName());
}

} // namespace

Result<RemoveReport> removeEnvironment(SystemView &system, const QString &environmentPath, bool dryRun,
                                       const RemoveDrill &drill)
{
    const QString shown = system.normalize(environmentPath);
    const QString host = system.hostPath(shown);
    if (host.isEmpty() || shown.isEmpty())
        return notEnvironment(environmentPath, host);
    const QFileInfo info(host);
    const QString prefix = info.absolutePath();
    const QString name = info.fileName();
    const QString tombstone = removalTombstone(host);
    if (isLink(host)) {
        return Error{QStringLiteral("target_is_link"),
                     RemoveReport::tr("%1 is a link to another folder. tfsetup removes nothing through links; "
                                      "remove the link yourself, or give the real folder.")
                         .arg(QDir::toNativeSeparators(shown)),
                     info.symLinkTarget()};
    }
    const bool interrupted = !info.exists() && isRemovalInProgress(system, shown);
    if (!info.exists() && !interrupted) {
        // Gone already (deleted by hand): only the index still names it.
        if (!EnvironmentIndex::folders(system).contains(shown, pathCase(system)))
            return notEnvironment(shown, host);
        if (!dryRun)
            (void)EnvironmentIndex::remove(system, shown);
        RemoveReport report;
        report.environmentPath = shown;
        report.dryRun = dryRun;
        report.log.append(QStringLiteral("%1 does not exist; its entry in the list is gone").arg(host));
        return report;
    }
    const QString worked = interrupted ? tombstone : host;
    const auto record = EnvironmentRecord::read(worked);
    const bool recordMissing = !record && !QFileInfo::exists(worked + QStringLiteral("/environment.json"));
    if (!record && !(interrupted && recordMissing))
        return notEnvironment(shown, record.error().message + u' ' + record.error().detail);

    Removal removal{system, {}, dryRun, shown, worked, drill};
    removal.report.environmentPath = shown;
    removal.report.dryRun = dryRun;
    if (dryRun) {
        if (const Status planned = removal.run(*record); !planned)
            return planned.error();
        removal.report.folderKept = !removal.report.kept.isEmpty();
        return removal.report;
    }

    // One install, repair or removal per environment at a time; what a killed install left is
    // finished first, so the folder removed is the environment as it stands.
    auto lock = WorkLock::acquire(prefix, name, shown);
    if (!lock)
        return lock.error();
    for (const QString &line : (*lock)->recover())
        removal.report.log.append(line);
    if (!interrupted) {
        if (QFileInfo::exists(tombstone) || isLink(tombstone)) {
            // Not ours (no marker with the index's id): a folder of the user's by that name.
            return Error{QStringLiteral("tombstone_taken"),
                         RemoveReport::tr("%1 cannot be removed while %2 exists: tfsetup needs that name for the "
                                          "removal and does not touch a folder it did not make. Rename or move "
                                          "that folder, then try again.")
                             .arg(QDir::toNativeSeparators(shown), QDir::toNativeSeparators(tombstone)),
                         tombstone};
        }
        // The removal's id, first in the index and then in the environment: only a tombstone that
        // carries it is ever finished by a later removal.
        const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        if (const Status marked = EnvironmentIndex::markRemoving(system, shown, id); !marked)
            return marked.error();
        if (const Status written = writeConfined(host, removalMarkerName, id.toLatin1()); !written)
            return written.error();
        if (const Status renamed = renameConfined(prefix, name, prefix, QFileInfo(tombstone).fileName()); !renamed) {
            (void)removeFileConfined(host, removalMarkerName);
            return Error{QStringLiteral("environment_in_use"),
                         RemoveReport::tr("%1 could not be removed: it is in use. Close every program started from "
                                          "it (Python, Jupyter, shells) and try again.")
                             .arg(QDir::toNativeSeparators(shown)),
                         renamed.error().message};
        }
        removal.report.log.append(QStringLiteral("renamed %1 to %2").arg(host, tombstone));
        if (removal.stop(QStringLiteral("tombstoned")))
            return Error{QStringLiteral("drill"), QStringLiteral("stopped at tombstoned"), {}};
    } else {
        removal.report.log.append(QStringLiteral("finishing the interrupted removal in %1").arg(tombstone));
    }
    removal.root = tombstone;
    if (record) {
        if (const Status removed = removal.run(*record); !removed)
            return removed.error();
        // The record goes last: until here a kill leaves it to prove what else is tfsetup's.
        if (const Status removed = removeFileConfined(tombstone, QStringLiteral("environment.json")); !removed)
            return removed.error();
    } else {
        // Killed after the record went: only kept files are left.
        QDirIterator it(tombstone, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            removal.report.kept.append(QDir(tombstone).relativeFilePath(it.next()));
    }
    if (const Status closed = closeTombstone(tombstone, host, removal.report); !closed)
        return closed.error();
    (void)EnvironmentIndex::remove(system, shown);
    for (const QString &line : std::as_const(removal.report.log))
        qInfo().noquote() << "remove:" << line;
    return removal.report;
}

} // namespace tfsetup::core
