#pragma once

#include "system/systemview.h"

#include <QStringList>
#include <QWizardPage>

#include <functional>
#include <optional>

class QLabel;
class QPushButton;
class QScrollArea;

namespace tfsetup::ui {

class WizardState;

// What happened and how to start: the title and subtitle follow the outcome (ready, installed but
// the check failed, …); the environment's folder and launchers, buttons that open a terminal with
// the environment (or Jupyter through its launcher), and "Copy summary" for ENVIRONMENT.md, the
// text a student pastes into a help request. When the check failed, "Repair now" asks the wizard
// to open the Repair page on this environment (repairRequested).
class FinishPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FinishPage)
public:
    // Starts a program detached from the wizard; tests record the call instead of opening terminals.
    using LaunchFunction =
        std::function<bool(const QString &program, const QStringList &arguments, const QString &workingDirectory)>;
    // Finds a program on the host (a terminal emulator); tests answer from a list.
    using FindProgram = std::function<QString(const QString &name)>;

    struct Command {
        QString program;
        QStringList arguments;
    };

    explicit FinishPage(WizardState &state, QWidget *parent = nullptr);
    ~FinishPage() override;

    void setLaunchFunction(LaunchFunction launch) { m_launch = std::move(launch); }
    void setFindProgram(FindProgram find) { m_find = std::move(find); }

    // The launcher of a kind ("start-python", "start-jupyter", "shell") in a list of launcher
    // paths, preferring the OS's own script type; empty when there is none.
    static QString launcherFor(const QStringList &launchers, const QString &kind, core::OsFamily os);
    // How to run a launcher script in a new terminal window on the host, nullopt when no terminal
    // program is found.
    static std::optional<Command> terminalCommand(core::OsFamily os, const QString &hostLauncher,
                                                  const FindProgram &find);

    void initializePage() override;

public Q_SLOTS:
    void openShell();
    void openJupyter();
    void copySummary();
    void requestRepair();

Q_SIGNALS:
    // The student pressed "Repair now" on an environment whose check failed; the wizard owner
    // opens the Repair page with that environment preselected (view spelling).
    void repairRequested(const QString &environmentPath);

protected:
    void changeEvent(QEvent *event) override;

private:
    void open(const QString &kind);
    void showState();
    void retranslate();

    WizardState &m_state;
    LaunchFunction m_launch;
    FindProgram m_find;
    QString m_message;

    QLabel *m_statusIcon;
    QLabel *m_statusLabel;
    QScrollArea *m_scroll;
    QLabel *m_pathLabel;
    QLabel *m_howLabel;
    QLabel *m_launchersLabel;
    QLabel *m_messageLabel;
    QPushButton *m_shellButton;
    QPushButton *m_jupyterButton;
    QPushButton *m_copyButton;
    QPushButton *m_repairButton;
};

} // namespace tfsetup::ui
