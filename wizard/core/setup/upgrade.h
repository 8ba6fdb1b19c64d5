#pragma once

#include "detect/hardwarereport.h"
#include "install/installer.h"
#include "setup/pipeline.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "system/systemview.h"
#include "util/result.h"
#include "verify/verifier.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace tfsetup::core {

struct Knowledge;

// What `tfsetup upgrade` (and the Welcome page's Upgrade button) asks for.
struct UpgradeRequest {
    QString environmentPath; // the environment folder, in the view's spelling
    QString tensorflow;      // a release prefix ("2.16"); empty: the newest that fits this machine
    // The machine to plan for (tfsetup detect --json, as plan --hardware reads it); none: the
    // view is detected.
    std::optional<HardwareReport> hardware;
    // The network settings (proxy, CA bundle, mirrors, limits, offline bundle), the cache: as for
    // an install. prefix, name and jupyter are the environment's own and are set from it.
    SetupOptions setup;
    // The catalog the plan and the install are made from; required (null: catalog_not_given).
    std::shared_ptr<const Knowledge> knowledge;
    // After the install: load the libraries and run TensorFlow on the GPU (tfsetup verify).
    bool verify = true;
    QString probe; // the tfsetup-probe helper for the verify step
};

// The solver's answer for one environment, before anything changes.
struct UpgradeProposal {
    Q_DECLARE_TR_FUNCTIONS(UpgradeProposal)

public:
    // "upgrade": plan holds the release to install. "current": the environment has the release the
    // solver chooses (none newer is known, or the newer ones rank below it). "blocked": newer
    // releases exist, and `blocked` says why this machine runs none of them.
    QString status;
    QString message; // translated: the answer in one sentence

    QString environmentPath; // view spelling
    QString name;            // the environment folder's name
    QByteArray fingerprint;  // of the record read; upgrade() refuses an environment changed since
    QString route;
    QString fromTensorflow; // as pip installed it ("2.15.1")
    QString fromPython;     // "3.11"
    QString fromCuda;
    QString fromCudnn;

    std::optional<Plan> plan;   // status "upgrade"
    bool pythonChanged = false; // the new release does not support the environment's Python
    QList<Rejection> blocked;   // newer releases on the route, each with the solver's reasons
    QList<Finding> notes;       // translated remarks: the Python change, the resolver's warnings
    HardwareReport hardware;

    // The files it takes and the packages pip's resolver locked, when they could be resolved
    // (empty with resolveError set otherwise).
    std::optional<PreparedSetup> prepared;
    Error resolveError;
    qint64 downloadBytes = 0; // every checksummed download of known size (NVIDIA, Python, wheels), cached or not
    int downloadFiles = 0;
    QStringList pipPackages; // the locked wheels, "name==version"

    bool canUpgrade() const { return status == u"upgrade" && plan.has_value(); }
    QJsonObject toJson() const;
    QString text() const; // for the terminal
};

struct UpgradeOutcome {
    Q_DECLARE_TR_FUNCTIONS(UpgradeOutcome)

public:
    UpgradeProposal proposal;
    InstallOutcome install;
    std::optional<VerifyReport> verify; // none when verification was not asked for, or could not start
    QString verifyProblem;              // translated: why verification could not start

    // Installed, and verified when that was asked for.
    bool passed() const { return verifyProblem.isEmpty() && (!verify || verify->passed()); }
    QJsonObject toJson() const;
    QString text() const;
};

// Upgrades an environment tfsetup made to a newer TensorFlow on the same route: reads its
// record, plans for this machine with the solver (the route pinned, the driver as it is, the
// environment's Python kept where the new release supports it), then fetches with checksums and
// installs through the Installer into the same folder. The Installer builds the new version in
// a staging folder and swaps it in with the user's files carried over, so a failure, a cancel
// or a kill before the swap leaves the previous environment exactly as it was. The launchers
// and the Jupyter kernel are written again; then the environment is verified.
//
// A page: co_await propose(), show it, co_await upgrade(proposal, request); connect the signals
// as for the Installer; cancel() from a button.
class Upgrader final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Upgrader)
public:
    explicit Upgrader(SystemView &system, QObject *parent = nullptr);
    ~Upgrader() override;

    // Changes nothing: reads the record, detects (unless the request carries a report), solves,
    // and resolves the files the new release needs (network reads only; a failure there is
    // resolveError, not an error). Errors: the folder is not an environment tfsetup made
    // (not_environment), its route is unknown, it was made for another system, it was installed
    // from a hash lock, or --tf names a release that is not newer or not known.
    QCoro::Task<Result<UpgradeProposal>> propose(UpgradeRequest request);

    // Installs the proposal's plan. Refused when the proposal is not an upgrade or the
    // environment changed since it was made.
    QCoro::Task<Result<UpgradeOutcome>> upgrade(UpgradeProposal proposal, UpgradeRequest request);

    void cancel();

    // For tests and fault drills: the Installer's checkpoint (an error fails that step).
    void setInstallCheckpoint(std::function<Status(InstallStep)> checkpoint);

Q_SIGNALS:
    // One line per phase and per file, translated ("Fetching cudnn …", "Verifying …").
    void message(const QString &line);
    void downloadProgress(qint64 done, qint64 total);
    void fileProgress(const tfsetup::core::DownloadProgress &progress);
    // The Installer's, passed on.
    void stepStarted(tfsetup::core::InstallStep step, const QString &title);
    void stepFinished(tfsetup::core::InstallStep step);
    void progress(qint64 done, qint64 total);
    void logLine(const QString &line);

private:
    Error cancelledError() const;

    SystemView &m_system;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    SetupPipeline m_pipeline;
};

} // namespace tfsetup::core
