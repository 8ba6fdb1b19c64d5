#pragma once

#include "install/installer.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWizardPage>

#include <optional>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace tfsetup::ui {

class WizardState;

// Builds the environment: the spec comes from the setup flow (plan, verified downloads,
// options), the Installer runs it with a step list, a live log and Cancel. A cancel or a failure
// leaves nothing behind (the installer works in a staging folder); Try again starts over. Next is
// enabled once the environment is built; the outcome is committed to WizardState::setInstalled().
class InstallPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InstallPage)
public:
    enum class StepState { Pending, Running, Done, Failed };
    Q_ENUM(StepState)

    explicit InstallPage(WizardState &state, QWidget *parent = nullptr);
    ~InstallPage() override;

    // The installer the page drives; tests set checkpoints on it. Owned by the page.
    core::Installer *installer() const { return m_installer; }
    bool isRunning() const { return m_running; }
    StepState stepState(core::InstallStep step) const;
    const std::optional<core::Error> &error() const { return m_error; }

    void initializePage() override;
    void cleanupPage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void startInstall();
    void cancelInstall();

Q_SIGNALS:
    void finished(bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runInstall(QPointer<InstallPage> page, core::Installer *installer, core::InstallSpec spec);
    void finishInstall(core::Result<core::InstallOutcome> result);
    void onStepStarted(core::InstallStep step);
    void onStepFinished(core::InstallStep step);
    void setStep(core::InstallStep step, StepState state);
    void appendLog(const QString &line);
    // Step-weighted: each step's share of the bar is its usual share of the time; within a step
    // the installer's own progress, or pip's output lines, move it on. Never moves back.
    void setFraction(double fraction);
    void updateProgress();
    void updateStatus();
    void retranslate();

    WizardState &m_state;
    core::Installer *m_installer;
    bool m_running = false;
    bool m_cancelled = false;
    std::optional<core::Error> m_error;
    std::optional<core::InstallOutcome> m_outcome;
    QList<StepState> m_steps;
    int m_current = -1;      // index of the running step
    double m_fraction = 0;   // how far the running step is, 0..1
    int m_pipLines = 0;      // pip's output lines in the running step
    int m_shown = 0;         // the bar's value, never lowered during one install

    QLabel *m_summaryLabel;
    QListWidget *m_stepList;
    QProgressBar *m_progress;
    QProgressBar *m_stepBusy; // moving while a step runs, whatever it reports
    QLabel *m_currentStep;
    QPlainTextEdit *m_log;
    QLabel *m_statusLabel;
    QPushButton *m_cancelButton;
    QPushButton *m_retryButton;
};

} // namespace tfsetup::ui
