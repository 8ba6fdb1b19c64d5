#pragma once

#include "detect/hardwarereport.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "solver/solver.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QHash>
#include <QJsonObject>
#include <QPointer>
#include <QWizardPage>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QFrame;
class QLabel;
class QProgressBar;
class QScrollArea;
class QTableWidget;
class QTabWidget;
class QTreeWidget;
class QVBoxLayout;

namespace tfsetup::core {
struct Knowledge;
struct ArtifactList;
struct PyLock;
} // namespace tfsetup::core

namespace tfsetup::ui {

class CompatView;
class DownloadPreview;
class GpuChooser;
class WizardState;

// Runs the solver on the detected hardware and shows what it recommends in plain words: one
// sentence, why, what the student must do first, what will be downloaded. Other combinations
// are offered in a table; those that do not fit are greyed with their reasons. The Advanced tab
// pins a TensorFlow or Python version and solves again. Next is enabled once a plan is chosen
// (CPU-only plans included); the plan is committed to WizardState::setPlan(). Once the wizard has
// network settings (WizardState::setOptions) or an offline bundle, the chosen plan's files are
// looked up in the background for the total download size; Next never waits for it.
class ChoosePage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChoosePage)
public:
    explicit ChoosePage(WizardState &state, QWidget *parent = nullptr);
    ~ChoosePage() override;

    bool isSolving() const { return m_solving; }
    // The chosen plan's files are being looked up for the total download size.
    bool isLookingUpSizes() const;
    const std::optional<core::Solution> &solution() const { return m_solution; }
    const std::optional<core::Plan> &chosenPlan() const { return m_chosen; }
    // The ticked GPUs of the chosen plan, by index (shown on machines with several NVIDIA GPUs).
    QList<int> chosenGpus() const;
    // The pins the Advanced tab sets, as the solver gets them.
    core::SolverConstraints constraints() const;

    void initializePage() override;
    bool validatePage() override;
    bool isComplete() const override;

public Q_SLOTS:
    // Solves again with the current pins (off the GUI thread); solved() follows.
    void solve();

Q_SIGNALS:
    void solved();

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Outcome;

    static QCoro::Task<> runSolver(QPointer<ChoosePage> page, std::shared_ptr<const core::Knowledge> knowledge,
                                   core::HardwareReport report, core::SolverConstraints constraints,
                                   quint64 generation);
    void finishSolving(Outcome outcome);
    // Looks the plan's files up in the background (core::PlanDownloads::lookUp) when the wizard's
    // network settings allow it; the answer replaces the total on the downloads line.
    void fillPins();
    void fillAlternatives();
    void fillRejected();
    void fillCompatibility();
    // Hides what a student need not read (old releases, other Pythons of the same plan) unless
    // "Show all" is ticked; the chosen row is always shown.
    void applyFilter();
    QStringList recentReleases() const;
    void showRejectionDetails();
    const core::Plan *planAt(int row) const; // row of the alternatives table
    void choosePlan(int row);
    void showChosen();
    void showActions(const core::Plan *plan);
    QString routeTitle(const QString &route) const;
    QString planSentence(const core::Plan &plan, bool recommended) const;
    void retranslate();
    void showState();

    WizardState &m_state;
    std::shared_ptr<const core::Knowledge> m_knowledge; // the state's, as of the last solve
    std::optional<core::Solution> m_solution;
    std::optional<core::Plan> m_chosen;
    std::optional<core::Error> m_error;
    QJsonObject m_solvedFor; // the report the solution belongs to
    QString m_keepChoice;    // a plan to select again after the next solve (language switch)
    bool m_solving = false;
    quint64 m_generation = 0;

    QProgressBar *m_busyIndicator;
    QLabel *m_busyLabel;
    QScrollArea *m_summaryArea;
    QLabel *m_recommendationLabel;
    QLabel *m_whyLabel;
    QFrame *m_actionsBox;
    QLabel *m_actionsTitle;
    QVBoxLayout *m_actionsLayout;
    GpuChooser *m_gpus;
    QLabel *m_warningsLabel;
    DownloadPreview *m_downloads;
    QLabel *m_errorLabel;
    QTabWidget *m_tabs;
    QTableWidget *m_alternativesTable;
    QTreeWidget *m_rejectedTree;
    CompatView *m_compatView;
    QCheckBox *m_showAllCheck;
    QScrollArea *m_detailsArea;
    QLabel *m_rejectionDetails; // the current rejection's reasons in full, wrapped
    int m_shownAlternatives = 0;
    int m_shownRejected = 0;
    QWidget *m_advancedTab;
    QLabel *m_tfLabel;
    QComboBox *m_tfCombo;
    QLabel *m_pythonLabel;
    QComboBox *m_pythonCombo;
    QCheckBox *m_cpuOnlyCheck;
    QCheckBox *m_keepDriverCheck;
    QLabel *m_pinHint;
};

} // namespace tfsetup::ui
