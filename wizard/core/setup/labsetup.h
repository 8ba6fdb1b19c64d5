#pragma once

#include "fetch/downloadtypes.h"
#include "install/installspec.h"
#include "install/labprofile.h"
#include "catalog/catalog.h"
#include "solver/plan.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QObject>
#include <QUrl>

#include <chrono>
#include <utility>

namespace tfsetup::core {

class Downloader;
struct Knowledge;

struct LabSetupOptions {
    QString prefixOverride; // replaces the profile's install folder
    QString bundleFolder;   // offline: the bundle supplies every file, nothing is fetched
    QString cacheDir;       // downloads and the content cache; empty: the profile's "cache", else the user's cache
    QString nvidiaMirror;   // in front of the profile's NVIDIA mirror
    QString caBundle;
    QList<std::pair<QString, QUrl>> originOverrides; // serve an origin from elsewhere (labs, tests)
    std::chrono::milliseconds resolveTimeout{30000};
    TransferOptions transfer;
    QString sourcesCatalog; // drills: another sources.json (SetupOptions::sourcesCatalog); empty: the knowledge's
    std::shared_ptr<const Knowledge> knowledge; // null: Knowledge::shared()
};

// The files a lab profile needs, fetched: the NVIDIA archives of a toolkit route, resolved from
// the official manifests (through the profile's lab mirror when it names one) and downloaded
// through the download cache, which many machines or processes may share: each file is fetched
// from the mirror once per cache. Routes whose CUDA libraries come from pip need nothing here.
// `tfsetup install --profile` and the wizard's unattended path both go through it.
class LabSetup final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LabSetup)
public:
    explicit LabSetup(SystemView &system, QObject *parent = nullptr);
    ~LabSetup() override;

    // The install spec of the profile, with its artifacts downloaded and verified.
    QCoro::Task<Result<InstallSpec>> prepare(LabProfile profile, LabSetupOptions options);

    // Whether spec's archives give what the profile's plan promises: on a route that brings
    // NVIDIA's libraries, a CUDA version the sources catalog knows, every CUDA component it
    // names for that version, and cuDNN when the plan names it. Error "plan_unfulfilled" names
    // what is missing; an unattended install then stops before anything changes.
    // sourcesCatalog "-": only the plan is checked, not the archives.
    // knowledge: null means Knowledge::shared().
    static Status checkPromise(const LabProfile &profile, const Route &route, const InstallSpec &spec,
                               const QString &sourcesCatalog = {}, const Knowledge *knowledge = nullptr);
    void cancel();

    // The plan a profile pins, as the solver would have written it.
    static Plan planOf(const LabProfile &profile);

Q_SIGNALS:
    // One line per step and per file ("Fetching cudnn-…: 12 of 800 MB"), translated.
    void message(const QString &line);
    void progress(qint64 done, qint64 total);

private:
    SystemView &m_system;
    Downloader *m_downloader = nullptr; // while prepare() runs
    bool m_cancelled = false;
};

} // namespace tfsetup::core
