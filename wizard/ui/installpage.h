#pragma once

#include "install/installer.h"
#include "install/pipfailure.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QHash>
#include <QPointer>
#include <QWizardPage>

#include <functional>
#include <optional>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace tfsetup::ui {

class WizardState;

// Builds the environment: the spec comes from the setup flow (plan, verified downloads,
// options), the Installer runs it with a step list, progress by bytes, Cancel, and the live log
// folded under "Details". A cancel or a failure leaves nothing behind (the installer works in a
// staging folder); Try again starts over. A failure shows its cause in plain words
// (core::PipFailureReader) and one button for its fix. Next is enabled once the environment is
// built; the outcome is committed to WizardState::setInstalled().
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
    // The failure's cause and fix as the page shows them; empty while running or after success.
    const std::optional<core::PipFailure> &failure() const { return m_failure; }
    // Opens the run log (QDesktopServices by default); tests put a recorder here.
    void setLogOpener(std::function<void(const QString &path)> opener) { m_openLog = std::move(opener); }

    void initializePage() override;
    void cleanupPage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void startInstall();
    void cancelInstall();

    // The shown failure's fix, as its button does it: Set a proxy, Choose a mirror, Use an offline
    // bundle and Choose another folder go back to the Options page with that field focused;
    // Choose another version goes back to the Choose page; Try again starts over; Open the log
    // opens it.
    void applyFix();

Q_SIGNALS:
    void finished(bool ok);
    // Emitted as the fix button is pressed, before the page does it (the wizard may do more).
    void fixRequested(tfsetup::core::PipFix fix);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runInstall(QPointer<InstallPage> page, core::Installer *installer, core::InstallSpec spec);
    void finishInstall(core::Result<core::InstallOutcome> result);
    void onStepStarted(core::InstallStep step);
    void onStepFinished(core::InstallStep step);
    void setStep(core::InstallStep step, StepState state);
    void appendLog(const QString &line);
    // Byte-weighted: each step's share of the bar is the bytes it handles (archives hashed and
    // unpacked, the Python, the wheels pip installs), steps without bytes a small fixed share;
    // within a step the installer's progress (bytes), or pip's output lines, move it on. Never
    // moves back.
    void setFraction(double fraction);
    void updateProgress();
    void updateStatus();
    void retranslate();
    void setDetailsOpen(bool open);
    // What the failed install's error says, read for pip's cause; the fix a button can do here.
    void readFailure();
    bool goBackTo(const QString &pageName, const QString &field);
    QString platformText() const;

    WizardState &m_state;
    core::Installer *m_installer;
    bool m_running = false;
    bool m_cancelled = false;
    std::optional<core::Error> m_error;
    std::optional<core::InstallOutcome> m_outcome;
    QList<StepState> m_steps;
    int m_current = -1;                  // index of the running step
    double m_fraction = 0;               // how far the running step is, 0..1
    int m_pipLines = 0;                  // pip's output lines in the running step
    int m_shown = 0;                     // the bar's value, never lowered during one install
    QList<qint64> m_stepBytes;           // per step (allInstallSteps order): its weight on the bar, in bytes
    QList<qint64> m_stepPayload;         // per step: the bytes it unpacks or installs (Extract, Python, Packages)
    QHash<QString, qint64> m_wheelBytes; // wheel file name → bytes, for pip's "Processing" lines
    qint64 m_pipBytes = 0;               // wheel bytes pip has processed in the running Packages step
    qint64 m_payloadBytes = 0;           // what the install unpacks and installs (the "of y")
    std::optional<core::PipFailure> m_failure;
    std::function<void(const QString &)> m_openLog;

    QLabel *m_summaryLabel;
    QListWidget *m_stepList;
    QProgressBar *m_progress;
    QProgressBar *m_stepBusy; // moving while a step runs, whatever it reports
    QLabel *m_currentStep;
    QPlainTextEdit *m_log;
    QLabel *m_statusIcon;
    QLabel *m_statusLabel;
    QPushButton *m_fixButton;
    QToolButton *m_detailsButton;
    QPushButton *m_cancelButton;
    QPushButton *m_retryButton;
};

} // namespace tfsetup::ui
