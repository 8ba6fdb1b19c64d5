#pragma once

#include "install/environmentrecord.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>

namespace tfsetup::core {

class Catalog;
class GpuTable;
struct HardwareReport;
struct VerifyReport;

// The environments tfsetup made for this user, so `tfsetup list`, the Welcome page and `remove`
// find them wherever they were installed: an index of their folders, environments.json in the
// user's tfsetup data folder ($XDG_DATA_HOME/tfsetup, ~/.local/share/tfsetup, %APPDATA%\tfsetup).
// An install adds its folder when it succeeds, a removal takes it out. The index only says where
// to look: what a folder is, is always read from its own record.
class EnvironmentIndex {
    Q_DECLARE_TR_FUNCTIONS(EnvironmentIndex)
public:
    // Paths in the view's spelling.
    static QString dataFolder(const SystemView &system);
    static QString indexPath(const SystemView &system);
    // The folders listed, in the order they were added. A missing or damaged index lists none.
    static QStringList folders(const SystemView &system);
    // Idempotent; written in one step (util/confined) under a lock file beside it.
    static Status add(const SystemView &system, const QString &environmentPath);
    static Status remove(const SystemView &system, const QString &environmentPath);
    // A removal about to start names its id in the folder's entry (added when missing); the
    // removal marker inside the environment carries the same id. removingId: "" when none.
    static Status markRemoving(const SystemView &system, const QString &environmentPath, const QString &id);
    static QString removingId(const SystemView &system, const QString &environmentPath);
    // A damaged index (not JSON, a field of the wrong type) is never overwritten: the next change
    // renames it to environments.json.damaged-<time> and writes a new one with every entry the
    // damaged one still shows ("path": "…"); folders() reads those entries too.
};

// The last `tfsetup verify` (or the wizard's Verify page) of an environment, kept beside its
// record as logs/last-verify.json.
struct LastVerify {
    bool present = false;
    bool passed = false;
    QString date;        // ISO 8601 UTC
    QString failedLayer; // the first layer that failed ("libraries", "import", …), empty when passed
    QString message;     // that layer's message, translated when it was written
    QJsonObject toJson() const;
};
Status recordVerifyResult(const QString &hostEnvironment, const VerifyReport &report);
LastVerify readLastVerify(const QString &hostEnvironment);

// One environment as `tfsetup list` shows it.
struct EnvironmentListing {
    Q_DECLARE_TR_FUNCTIONS(EnvironmentListing)
public:
    // ok: the record reads and every recorded file is there with its size. files_changed: some
    // are missing or changed size (repair restores them). record_missing / record_damaged: the
    // folder has no readable record (not removable by tfsetup). missing: the folder is gone.
    // removal_interrupted: a removal was stopped midway; `tfsetup remove` finishes it.
    QString state;
    QString problem; // translated, empty when ok
    QString path;    // view spelling
    QString name;
    QString route;
    QString tensorflow;
    QString python;
    QString cuda;     // empty without CUDA
    QString cudnn;    // empty without cuDNN
    QString cudaFrom; // "pip" when CUDA comes from pip's nvidia-* wheels (EnvironmentRecord::cudaInUse), else empty
    QString created;
    qint64 bytes = -1; // size on disk, -1 when not measured
    int filesChanged = 0;
    LastVerify lastVerify;
    QString newerTensorflow; // a newer release the solver chooses for this machine on this route
    QStringList launchers;   // view paths

    bool isEnvironment() const { return state == u"ok" || state == u"files_changed"; }
    QJsonObject toJson() const;
};

struct ListOptions {
    QStringList folders; // searched besides the index and the default prefix (an environment or a folder of them)
    bool measure = true; // size on disk (walks every file: off the GUI thread)
};

// Blocking (reads records, walks folders): call it off the GUI thread.
QList<EnvironmentListing> listEnvironments(const SystemView &system, const ListOptions &options = {});
// Fills newerTensorflow from the solver: Solver(catalog, gpus).solve(report, {route = …}).
void findNewerTensorflow(QList<EnvironmentListing> &listings, const Catalog &catalog, const GpuTable *gpus,
                         const HardwareReport &report);
// For the terminal.
QString listText(const QList<EnvironmentListing> &listings);

// What `tfsetup remove` did, or would do (dry run).
struct RemoveReport {
    Q_DECLARE_TR_FUNCTIONS(RemoveReport)
public:
    QString environmentPath;
    bool dryRun = false;
    int filesRemoved = 0; // files and links proven tfsetup's (or that would be)
    qint64 bytesFreed = 0;
    QStringList outsideRemoved; // kernelspec, menu entry (view paths)
    QStringList outsideKept;    // found but changed: not tfsetup's any more (view paths)
    QString outsideOwned;    // the Python elsewhere the kernel starts (this folder is a copy): kernel, menu entry kept
    QStringList kept;        // relative to the environment: files the record does not prove
    bool folderKept = false; // the folder stays, holding `kept`
    QStringList log;         // one line per step, untranslated

    QJsonObject toJson() const;
    QString text() const;
};

// Removes the environment at environmentPath (view spelling) and what tfsetup registered for it
// outside (its Jupyter kernelspec, its menu entry) — nothing else: other environments, the
// download cache, a shared Python (<prefix>/.python-*) stay. Refused unless the folder holds a
// valid record (code not_environment), or when the folder is a link (target_is_link).
//
// Only what the record proves is removed: a recorded file whose SHA-256 still matches, a recorded
// link, the venv pip filled, the record's companions (ENVIRONMENT.md, logs/install.log,
// logs/last-verify.json). Every other file stays and is reported; its folder stays then.
//
// Safe against a kill at any point: the environment is first renamed to the tombstone
// <prefix>/.<name>.tfsetup-removing (one rename: its launchers stop working at once, and no
// half-removed environment is ever found under its name), its record stays inside until the
// end, and a later `remove` of the same folder (or a list) finds the tombstone and finishes.
// The environment's install lock is held throughout. Deletions go through util/confinedremove.
//
// drill: called at "tombstoned" and "halfway"; returning true stops there as a kill would.
using RemoveDrill = std::function<bool(const QString &point)>;
Result<RemoveReport> removeEnvironment(SystemView &system, const QString &environmentPath, bool dryRun = false,
                                       const RemoveDrill &drill = {});

// <prefix>/.<name>.tfsetup-removing for an environment folder (host paths).
QString removalTombstone(const QString &hostEnvironment);
// Whether a removal of the environment at environmentPath (view spelling) was stopped midway:
// its tombstone is a folder (not a link) holding tfsetup's removal marker (a plain file) whose
// id is the one the environment index names for that folder. A folder of the user's that only
// has the tombstone's name is not one, and is never renamed or deleted.
bool isRemovalInProgress(const SystemView &system, const QString &environmentPath);

// The download checksums (lower-case hex) the records of these environments still refer to
// (their artifacts), for `tfsetup clean`.
QSet<QByteArray> referencedChecksums(const SystemView &system, const QList<EnvironmentListing> &listings);

} // namespace tfsetup::core
