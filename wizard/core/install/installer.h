#pragma once

#include "install/environmentrecord.h"
#include "install/installspec.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace tfsetup::core {

struct Knowledge;

// The steps of one install, in order. A page shows them as a list; tests fail each in turn.
enum class InstallStep { Prepare, Extract, Place, Python, Packages, Launchers, Record, Verify, Commit, Register };

QString installStepId(InstallStep step); // "prepare", "extract", …
QList<InstallStep> allInstallSteps();

struct InstallOutcome {
    QString environmentPath; // target path
    bool unchanged = false;  // the environment was already complete: nothing was written
    QStringList launchers;   // target paths
    QString kernelFolder;    // where the kernelspec went, empty when not registered
    QString summary;         // ENVIRONMENT.md
    QStringList warnings;    // translated; the environment works, something around it did not
};

// Builds an environment from verified artifacts, transactionally: everything is made in a
// staging folder beside the target, verified, then swapped in by renames. A failure, a cancel or
// a crash at any point leaves an existing environment as it was; the next run removes what a
// crash left behind. Files a user put into an existing environment are carried over; one that
// would be overwritten is kept as "<name>.user-backup".
//
// Drive it from a page: connect the signals, co_await install(), call cancel() from a button.
class Installer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Installer)
public:
    // knowledge: the catalog the install places its files by, as the caller loaded it (the wizard's
    // state, the command line's dispatch); an install without one fails and changes nothing.
    Installer(SystemView &system, std::shared_ptr<const Knowledge> knowledge, QObject *parent = nullptr);
    ~Installer() override;

    QCoro::Task<Result<InstallOutcome>> install(InstallSpec spec);
    void cancel();

    // The wheels of an environment whose Python exists only once the install made it (python.org's
    // installer on Windows): when the spec comes without a lock, this is called with the new venv's
    // interpreter (a host path) at the Packages step and gives the lock with its verified files
    // ("wheel" artifacts). SetupPipeline::lateLocker makes it.
    struct LockedPackages {
        PyLock lock;
        QList<InstallArtifact> wheels;
    };
    using PackageLocker = std::function<QCoro::Task<Result<LockedPackages>>(QString python)>;
    void setPackageLocker(PackageLocker locker);

    // For tests and fault drills: called as each step starts; an error fails that step.
    void setCheckpoint(std::function<Status(InstallStep)> checkpoint);
    // For kill drills: called at the points inside a step where a crash is most harmful
    // ("commit-set-aside": the old environment renamed away, the new one not yet in place;
    // "commit-swapped": the new one in place, the old one not yet removed).
    void setDrillPoint(std::function<void(const QString &point)> drill);

    // What a killed install or repair of the environment <hostPrefix>/<name> left: its staging
    // folders removed, an interrupted swap finished or undone (WorkLock::recover), under the
    // environment's lock. Returns what it did, one line each (for the log).
    static Result<QStringList> recoverLeftovers(const QString &hostPrefix, const QString &name);

    // After the environment moved from staging to its folder: pyvenv.cfg and the venv's links that
    // named the staging folder name the final one. Returns what changed, one line each.
    static QStringList relocateVenv(const QString &hostVenv, const QString &from, const QString &to);

    // pip's arguments after "python -m pip": install the verified wheels in wheelFolder pinned by
    // requirementsFile (the lock's hash-checking form), and nothing else (pure; tested on its own).
    static QStringList pipInstallArguments(const QString &wheelFolder, const QString &requirementsFile);

Q_SIGNALS:
    void stepStarted(tfsetup::core::InstallStep step, const QString &title);
    void stepFinished(tfsetup::core::InstallStep step);
    void progress(qint64 done, qint64 total);
    void logLine(const QString &line);

private:
    struct Run;
    QString stepTitle(InstallStep step) const;
    Status enter(Run &run, InstallStep step);
    QCoro::Task<Status> extractAndPlace(Run &run);
    static const InstallArtifact *pythonArchiveOf(const InstallSpec &spec);
    QCoro::Task<Result<QString>> unpackPython(Run &run, InstallArtifact archive);
    QCoro::Task<Result<QString>> runPythonInstaller(Run &run, InstallArtifact setup);
    QCoro::Task<Status> createPython(Run &run);
    QCoro::Task<Status> installPackages(Run &run);
    Status writeLaunchers(Run &run);
    Status writeRecord(Run &run);
    QCoro::Task<Status> verifyStaging(Run &run);
    Status commit(Run &run);
    void registerOutside(Run &run, InstallOutcome &outcome);
    QCoro::Task<bool> isComplete(const InstallSpec &spec, const QString &hostTarget);
    QCoro::Task<ProcessResult> watched(Run &run, QString program, QStringList arguments,
                                       std::chrono::milliseconds timeout);
    void log(Run &run, const QString &line);

    SystemView &m_system;
    std::shared_ptr<const Knowledge> m_knowledge; // null until install() when none was given
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::function<Status(InstallStep)> m_checkpoint;
    std::function<void(const QString &)> m_drill;
    PackageLocker m_packageLocker;
};

} // namespace tfsetup::core
