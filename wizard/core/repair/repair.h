#pragma once

#include "catalog/finding.h"
#include "fetch/downloadtypes.h"
#include "fetch/networksettings.h"
#include "install/environmentrecord.h"
#include "repair/piprecord.h"
#include "system/systemview.h"
#include "util/result.h"
#include "verify/verifier.h"

#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace tfsetup::core {

class Catalog;
struct Knowledge;
class Downloader;

// One recorded file that is not as environment.json says, and how repair puts it right.
struct RepairItem {
    enum class Problem { Missing, Altered, Misplaced };
    enum class Fix { MoveBack, FromArchive, Regenerate, Relink, None };

    QString path; // relative to the environment, as recorded
    Problem problem = Problem::Missing;
    Fix fix = Fix::None;
    QString foundAt; // Misplaced: where the file is now, relative to the environment
    QString origin;  // the record's origin ("cudnn 8.1.0.77 (windows-x86_64): cuda/bin/cudnn64_8.dll" | "tfsetup")
    QString source;  // FromArchive: the archive's file name; MoveBack: foundAt
    QString note;    // translated: why it cannot be fixed, when fix is None

    static QString problemName(Problem problem); // "missing" | "altered" | "misplaced"
    static QString fixName(Fix fix);             // "move_back" | "from_archive" | "regenerate" | "relink" | "none"
    QJsonObject toJson() const;
};

// What repair did (or, in a dry run, would do) about one doctor finding.
struct RepairFindingOutcome {
    QString id;
    QString cause;
    bool handled = false; // repair acted on it (or it is covered by the file repairs)
    QString note;         // translated: what was done, or what the user does (the finding's fix)
    QJsonObject toJson() const;
};

struct RepairOptions {
    QString environmentPath; // the folder holding environment.json, in the view's spelling
    bool dryRun = false;     // report what would be done; write, fetch and move nothing
    QString cacheDir;        // host folder with earlier downloads (<file name>) and the content cache
    // How files are fetched again: proxy, CA bundle, limits; the package indexes (tried after the
    // one the environment's lock names for each wheel); an offline bundle whose archives and
    // wheels are used first.
    NetworkSettings network;
    QList<DoctorFinding> findings; // from the doctor (a pasted log or a scan), acted on where they apply
    // When set, verify runs on the repaired environment (the native probe and the smoke test).
    const Catalog *catalog = nullptr;
    QString probe;
};

struct RepairReport {
    Q_DECLARE_TR_FUNCTIONS(RepairReport)
public:
    QString environmentPath;
    bool dryRun = false;
    QList<RepairItem> before; // every problem found, with its fix
    QStringList fetched;      // archives downloaded again (URLs)
    QStringList fromCache;    // archives taken from earlier downloads (file names)
    QStringList outside;      // translated: changes made outside the environment (the kernelspec)
    QList<RepairFindingOutcome> findings;
    QStringList after; // recorded files still not as recorded after the repair
    // Distributions pip installed whose files are not as their RECORD says, each with the wheel it
    // is (or would be) reinstalled from.
    QList<PipDistributionDamage> packages;
    std::optional<VerifyReport> verify;

    bool changed() const; // something was (or would be) written
    bool healthy() const; // no file problem left, and verify passed where it ran
    QJsonObject toJson() const;
    QString text() const; // for the terminal, in the user's language
};

// Blocking (a worker's job): each recorded file of the environment at hostEnv (a host path) that
// is missing, altered or misplaced, the check repair starts with. A file whose size differs from
// the record's is altered without being read; one larger than hashLimit bytes and of the recorded
// size is taken as it is (-1: every file is hashed, as repair does).
QList<RepairItem> checkRecordedFiles(const QString &hostEnv, const QList<RecordedFile> &files, bool windows,
                                     qint64 hashLimit = -1, const std::atomic<bool> *cancel = nullptr);

enum class RepairStep { Check, Fetch, Stage, Commit, Packages, Register, Verify };
QString repairStepId(RepairStep step); // "check", "fetch", …

// Repairs an installed environment against its environment.json: every recorded file is
// hashed (off the calling thread); a missing or altered NVIDIA file is taken again from its
// archive (an earlier download, else the recorded URL through the Downloader, checked against
// the recorded SHA-256, never against the damaged file); a recorded file found elsewhere in the
// environment with the recorded digest is moved back; launchers, kernel.json and ENVIRONMENT.md
// are written again. A distribution pip installed whose files differ from its RECORD is
// reinstalled (pip --no-deps --force-reinstall --require-hashes) from a wheel whose contents
// match that RECORD: an earlier download or the offline bundle, else the exact wheel the
// environment's lock (pylock.toml) names, downloaded from its recorded index (then the network
// settings' indexes) through the downloader and checked against the lock's SHA-256. An
// environment made before locks were kept has its wheel chosen by pip's resolver through the
// package index bridge, the same way an install chooses them.
//
// The same guarantee as the installer: replacements are made in a staging folder beside the
// environment and verified there; only then are they switched in by renames, each undone if a
// later one fails. A failure or cancel leaves the environment as it was.
class Repairer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Repairer)
public:
    // knowledge: the catalog archives are placed by, as the caller loaded it; a repair without one
    // fails and changes nothing. downloader: used for re-fetches; null: one is made from the options.
    Repairer(SystemView &system, std::shared_ptr<const Knowledge> knowledge, Downloader *downloader = nullptr,
             QObject *parent = nullptr);
    ~Repairer() override;

    QCoro::Task<Result<RepairReport>> repair(RepairOptions options);
    void cancel();

    // For tests and fault drills: called as each step starts; an error fails that step.
    void setCheckpoint(std::function<Status(RepairStep)> checkpoint);
    // For the kill drill: called at named moments of the commit ("repair-first-rename": one
    // damaged file replaced, the rest not; "repair-renamed": every file in place, an edited
    // launcher not yet kept beside).
    void setDrillPoint(std::function<void(const QString &point)> drill);

    // Environments (folders with environment.json) among folders: each folder itself, or its
    // direct subfolders. Paths in the view's spelling, sorted, without duplicates.
    static QStringList discover(const SystemView &system, const QStringList &folders);

Q_SIGNALS:
    void stepStarted(tfsetup::core::RepairStep step, const QString &title);
    void progress(qint64 done, qint64 total);
    void logLine(const QString &line);

private:
    struct Run;
    QString stepTitle(RepairStep step) const;
    Status enter(Run &run, RepairStep step);
    void log(Run &run, const QString &line);
    QCoro::Task<Status> stageArchives(Run &run);
    Status stageGenerated(Run &run);
    QCoro::Task<Status> verifyStaged(Run &run);
    QCoro::Task<Status> reinstallPackages(Run &run);
    Downloader &downloaderFor(Run &run);
    QCoro::Task<Result<QString>> fetchWheel(Run &run, PipDistributionDamage &damage, QString python, QString work);
    Status commit(Run &run);
    void registerKernel(Run &run);
    void judgeFindings(Run &run);

    SystemView &m_system;
    std::shared_ptr<const Knowledge> m_knowledge;
    Downloader *m_downloader = nullptr;
    QPointer<Downloader> m_fetching; // the repair's own downloader while it fetches
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::function<Status(RepairStep)> m_checkpoint;
    std::function<void(const QString &)> m_drill;
};

} // namespace tfsetup::core
