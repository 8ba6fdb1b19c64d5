#pragma once

#include "catalog/knowledge.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "sources/pylock.h"

#include <QCoro/QCoroTask>
#include <QHash>
#include <QLabel>
#include <QPointer>

#include <optional>

namespace tfsetup::ui {

class WizardState;

// The Choose page's "What will be downloaded" for the chosen plan: each group of files the
// resolver will fetch (TensorFlow and its packages, NVIDIA's libraries, a stand-in CUDA where
// NVIDIA publishes none of the tested one, Python) and the total size. The sizes come from the
// Options page's lookup once it has looked this very plan up (Back from there), else from a
// lookup of its own in the background (core::PlanDownloads), and only through network settings
// the wizard was given: before them nothing says whether this computer may reach NVIDIA at all.
// What is not known is said, not guessed. Other network settings forget what was looked up.
class DownloadPreview final : public QLabel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DownloadPreview)
public:
    explicit DownloadPreview(WizardState &state, QWidget *parent = nullptr);

    // The knowledge of the page's last solve: the sources catalog names the files.
    void setKnowledge(core::KnowledgePtr knowledge);
    // Says what the plan downloads (null: nothing), and looks its sizes up when it may. Called
    // again after a language switch.
    void showPlan(const core::Plan *plan);
    bool isLookingUp() const { return m_lookup == Lookup::Running; }
    // The CUDA a plan is tested with, and the release whose files come where they differ
    // ("11.2 (11.8's files)"), for the page's table.
    QString cudaText(const core::Plan &plan) const;

Q_SIGNALS:
    // A lookup answered: the text changed its length.
    void sizesChanged();

private:
    // The resolver's list and pip's lock when the Options page has looked up this plan's files.
    const core::ArtifactList *resolvedFor(const core::Plan &plan) const;
    const core::PyLock *lockFor(const core::Plan &plan) const;
    bool maySizeLookUp() const;
    void forgetSizes();
    void lookUpSizes(const core::Plan &plan);
    static QCoro::Task<> runSizeLookup(QPointer<DownloadPreview> self, core::Plan plan, QString os,
                                       core::SetupOptions options, quint64 generation);
    QStringList downloadItems(const core::Plan &plan) const;
    QString totalSizeText(const core::Plan &plan) const;
    QString downloadsText(const core::Plan &plan) const;

    WizardState &m_state;
    core::KnowledgePtr m_knowledge;
    std::optional<core::Plan> m_plan; // the one shown
    enum class Lookup { None, Running, Done, Failed };
    Lookup m_lookup = Lookup::None;
    QString m_sizedPlan; // planKey of the plan looked up
    quint64 m_sizeGeneration = 0;
    QHash<QString, core::ArtifactList> m_sized; // by planKey, for these network settings
    QString m_sizeFailure;                      // the error's code
    bool m_networkGiven = false;                // WizardState::setOptions() was called
};

} // namespace tfsetup::ui
