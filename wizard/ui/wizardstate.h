#pragma once

#include "catalog/knowledge.h"
#include "detect/hardwarereport.h"
#include "fetch/downloadcache.h"
#include "fetch/downloadtypes.h"
#include "install/installer.h"
#include "setup/pipeline.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "solver/solver.h"
#include "system/systemview.h"
#include "verify/verifier.h"

#include <QList>
#include <QObject>

#include <optional>

namespace tfsetup::ui {

// The one state object the wizard owns. Pages read it in initializePage() and commit to it in
// validatePage(); nothing else is shared between pages.
class WizardState final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WizardState)
public:
    enum class Mode { NewEnvironment, Repair, LabProfile };
    Q_ENUM(Mode)

    explicit WizardState(core::SystemView &system, QObject *parent = nullptr)
        : QObject(parent)
        , m_system(system)
        , m_knowledge(core::Knowledge::shared())
        , m_pipeline(system)
    {}

    core::SystemView &system() const { return m_system; }

    // The one setup pipeline every page works through (and its downloader, made from the Options
    // page's network settings).
    core::SetupPipeline &pipeline() { return m_pipeline; }
    // The downloader of the current options' network settings and download folder.
    core::Downloader &downloader()
    {
        return m_pipeline.downloader(
            m_options.network, m_options.cacheDir.isEmpty() ? core::DownloadCache::defaultDir() : m_options.cacheDir);
    }

    // The knowledge catalog every page reads: loaded once, replaced after a catalog update is
    // installed. Holds why it could not be loaded instead, for the pages to show.
    const core::Result<core::KnowledgePtr> &knowledge() const { return m_knowledge; }
    // The bundle, or null when it could not be loaded.
    core::KnowledgePtr knowledgeOrNull() const { return m_knowledge ? *m_knowledge : nullptr; }
    void setKnowledge(core::Result<core::KnowledgePtr> knowledge)
    {
        m_knowledge = std::move(knowledge);
        Q_EMIT knowledgeChanged();
    }

    Mode mode() const { return m_mode; }
    void setMode(Mode mode) { m_mode = mode; }

    const std::optional<core::HardwareReport> &hardware() const { return m_hardware; }
    void setHardware(core::HardwareReport report)
    {
        m_hardware = std::move(report);
        Q_EMIT hardwareChanged();
    }

    // The combination the student chose on the Choose page, and the pins it was solved under.
    const std::optional<core::Plan> &plan() const { return m_plan; }
    const core::SolverConstraints &constraints() const { return m_constraints; }
    void setPlan(core::Plan plan, core::SolverConstraints constraints = {})
    {
        m_plan = std::move(plan);
        m_constraints = std::move(constraints);
        Q_EMIT planChanged();
    }

    // The NVIDIA GPUs the environment pins (core::InstallSpec::gpus), chosen with the plan on the
    // Choose page; empty: nothing pinned.
    const QList<int> &gpus() const { return m_gpus; }
    void setGpus(QList<int> gpus) { m_gpus = std::move(gpus); }

    // What the Download page fetches for the chosen plan, and what it verified. Requests keep
    // their identity (name, checksum, destination) across calls, so the page can tell an
    // unchanged artifact from a new one and never fetches a finished one again.
    const QList<core::DownloadRequest> &downloads() const { return m_downloads; }
    void setDownloads(QList<core::DownloadRequest> requests)
    {
        m_downloads = std::move(requests);
        Q_EMIT downloadsChanged();
    }
    const QList<core::DownloadResult> &downloaded() const { return m_downloaded; }
    void setDownloaded(QList<core::DownloadResult> results) { m_downloaded = std::move(results); }

    // The Options page's choices (folders, mirrors, proxy) and the artifacts they resolved to.
    const core::SetupOptions &options() const { return m_options; }
    void setOptions(core::SetupOptions options)
    {
        m_options = std::move(options);
        Q_EMIT optionsChanged();
    }
    const std::optional<core::ArtifactList> &artifacts() const { return m_artifacts; }
    void setArtifacts(core::ArtifactList artifacts) { m_artifacts = std::move(artifacts); }
    // The wheels pip's resolver locked for the environment (empty without Python packages).
    const core::PyLock &lock() const { return m_lock; }
    void setLock(core::PyLock lock) { m_lock = std::move(lock); }

    // What the Install page built and what the Verify page found; the Finish page reads both.
    const std::optional<core::InstallOutcome> &installed() const { return m_installed; }
    void setInstalled(std::optional<core::InstallOutcome> outcome) { m_installed = std::move(outcome); }
    const std::optional<core::VerifyReport> &verified() const { return m_verified; }
    void setVerified(std::optional<core::VerifyReport> report)
    {
        m_verified = std::move(report);
        Q_EMIT verifiedChanged();
    }

Q_SIGNALS:
    void knowledgeChanged();
    void hardwareChanged();
    void planChanged();
    void downloadsChanged();
    void optionsChanged();
    // A verify verdict arrived (or was cleared).
    void verifiedChanged();

private:
    core::SystemView &m_system;
    core::Result<core::KnowledgePtr> m_knowledge;
    Mode m_mode = Mode::NewEnvironment;
    std::optional<core::HardwareReport> m_hardware;
    std::optional<core::Plan> m_plan;
    core::SolverConstraints m_constraints;
    QList<int> m_gpus;
    QList<core::DownloadRequest> m_downloads;
    QList<core::DownloadResult> m_downloaded;
    core::SetupOptions m_options;
    std::optional<core::ArtifactList> m_artifacts;
    core::PyLock m_lock;
    std::optional<core::InstallOutcome> m_installed;
    std::optional<core::VerifyReport> m_verified;
    core::SetupPipeline m_pipeline; // last: its downloader stops first when the state goes
};

} // namespace tfsetup::ui
