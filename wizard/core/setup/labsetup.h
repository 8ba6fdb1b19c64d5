#pragma once

#include "fetch/networksettings.h"
#include "install/installspec.h"
#include "install/labprofile.h"
#include "catalog/catalog.h"
#include "setup/pipeline.h"
#include "solver/plan.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QObject>
#include <QUrl>

#include <chrono>
#include <utility>

namespace tfsetup::core {

struct Knowledge;

struct LabSetupOptions {
    QString prefixOverride; // replaces the profile's install folder
    QString cacheDir;       // downloads and the content cache; empty: the profile's "cache", else the user's cache
    // The command line's network settings, on top of the profile's: its proxy, CA bundle, mirrors
    // (in front of the profile's), limits, offline bundle and origin overrides.
    NetworkSettings network;
    QString sourcesCatalog; // drills: another sources.json (SetupOptions::sourcesCatalog); empty: the knowledge's
    std::shared_ptr<const Knowledge> knowledge; // required: null fails with catalog_not_given
};

// An unattended install of a lab profile, through the one setup pipeline: the profile's plan,
// requirements and Jupyter choice, its mirrors and proxy with the command line's on top, its
// shared download cache (many machines or processes may share one: each file is fetched once per
// cache), then resolve → lock → fetch → install. `tfsetup install --profile` and the wizard's
// unattended path both go through it.
class LabSetup final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LabSetup)
public:
    explicit LabSetup(SystemView &system, QObject *parent = nullptr);
    ~LabSetup() override;

    // What the profile installs here, before any file is known: the spec (gpus: the machine's
    // choice, GpuChoice::Resolved::pins) and the setup options the pipeline takes.
    struct Inputs {
        Plan plan;
        InstallSpec spec;
        SetupOptions options;
    };
    Result<Inputs> inputs(const LabProfile &profile, const LabSetupOptions &options) const;

    // The whole install. The GPUs are pinned as given (empty: none).
    QCoro::Task<Result<InstallOutcome>> install(LabProfile profile, LabSetupOptions options, QList<int> gpus = {});

    // Whether spec's archives give what the profile's plan promises: on a route that brings
    // NVIDIA's libraries, a CUDA version the sources catalog knows, every CUDA component it
    // names for that version, and cuDNN when the plan names it. Error "plan_unfulfilled" names
    // what is missing; an unattended install then stops before anything changes.
    // sourcesCatalog "-": only the plan is checked, not the archives (knowledge may then be null);
    // otherwise the archives are checked against `knowledge`'s sources, or sourcesCatalog's.
    static Status checkPromise(const LabProfile &profile, const Route &route, const InstallSpec &spec,
                               const QString &sourcesCatalog, const Knowledge *knowledge);
    void cancel();

    // The plan a profile pins, as the solver would have written it.
    static Plan planOf(const LabProfile &profile);

    SetupPipeline &pipeline() { return m_pipeline; }

Q_SIGNALS:
    // One line per step and per file ("Fetching cudnn-…: 12 of 800 MB"), translated.
    void message(const QString &line);

private:
    SystemView &m_system;
    SetupPipeline m_pipeline;
};

} // namespace tfsetup::core
