#pragma once

#include "setup/upgrade.h"

#include <QCoro/QCoroTask>
#include <QDialog>

#include <optional>

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace tfsetup::core {
class SystemView;
}

namespace tfsetup::ui {

// The Welcome page's Upgrade: asks the core Upgrader for its proposal (from → to, Python,
// CUDA/cuDNN, what it downloads, or why nothing newer fits), shows it, and on "Upgrade" runs the
// upgrade with its log and progress. Everything is awaited; the window never blocks. While a
// proposal or an upgrade runs the dialog does not close: Cancel asks the Upgrader to stop (the
// environment stays as it was) and the dialog closes once it has.
class UpgradeDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UpgradeDialog)
public:
    UpgradeDialog(core::SystemView &system, core::UpgradeRequest request, QWidget *parent = nullptr);
    ~UpgradeDialog() override;

    // Starts the proposal; the dialog shows "Looking for a newer TensorFlow…" until it is known.
    void start();

    bool isRunning() const { return m_running; }
    const std::optional<core::UpgradeProposal> &proposal() const { return m_proposal; }
    // The upgrade ran and the environment now has the new release (verified when asked for).
    bool upgraded() const { return m_upgraded; }
    QLabel *summary() const { return m_summary; }
    QPlainTextEdit *log() const { return m_log; }
    QPushButton *upgradeButton() const { return m_upgradeButton; }
    QPushButton *closeButton() const { return m_closeButton; }
    core::Upgrader &upgrader() const { return *m_upgrader; }

Q_SIGNALS:
    // The environment folder changed (upgraded, or an upgrade failed and was rolled back):
    // the list should be read again.
    void environmentChanged();
    // The proposal or the upgrade finished (ok: no error).
    void stepDone(bool ok);

public Q_SLOTS:
    void reject() override;

protected:
    void changeEvent(QEvent *event) override;

private:
    QCoro::Task<> propose();
    QCoro::Task<> upgrade();
    void retranslate();
    void setRunning(bool running);
    void appendLine(const QString &line);

    core::UpgradeRequest m_request;
    core::Upgrader *m_upgrader;
    QLabel *m_summary;
    QPlainTextEdit *m_log;
    QProgressBar *m_progress;
    QDialogButtonBox *m_buttons;
    QPushButton *m_upgradeButton;
    QPushButton *m_closeButton;
    std::optional<core::UpgradeProposal> m_proposal;
    bool m_running = false;
    bool m_closeWhenDone = false;
    bool m_upgraded = false;
    bool m_started = false;
};

} // namespace tfsetup::ui
