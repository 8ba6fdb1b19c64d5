#pragma once

#include "setup/setupsession.h"
#include "ui/wizardstate.h"

#include <QWizard>

#include <functional>
#include <optional>

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class ChoosePage;
class DetectPage;
class DownloadPage;
class FinishPage;
class InstallPage;
class LabProfilePage;
class OptionsPage;
class RepairPage;
class StepRail;
class UpgradeDialog;
class VerifyPage;
class WelcomePage;

class SetupWizard final : public QWizard {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupWizard)
public:
    // The order of the steps. Later pages slot in here; ids stay stable for tests and nextId().
    // Names, not positions: a new page takes the next free value at the end, and its place in
    // the wizard is its place in pageOrder(). Nothing compares these values as numbers.
    enum PageId {
        WelcomePageId,
        DetectPageId,
        ChoosePageId,
        OptionsPageId,
        DownloadPageId,
        InstallPageId,
        VerifyPageId,
        FinishPageId,
        // Journeys 3 and 2: after Welcome in their mode (nextId() routes by WizardState::Mode).
        RepairPageId,
        LabProfilePageId,
    };

    // translations may be null (no language switch then).
    SetupWizard(core::SystemView &system, core::Translations *translations, QWidget *parent = nullptr);

    WizardState &state() { return m_state; }
    WelcomePage *welcomePage() const { return m_welcomePage; }
    DetectPage *detectPage() const { return m_detectPage; }
    ChoosePage *choosePage() const { return m_choosePage; }
    OptionsPage *optionsPage() const { return m_optionsPage; }
    DownloadPage *downloadPage() const { return m_downloadPage; }
    InstallPage *installPage() const { return m_installPage; }
    VerifyPage *verifyPage() const { return m_verifyPage; }
    FinishPage *finishPage() const { return m_finishPage; }
    RepairPage *repairPage() const { return m_repairPage; }
    LabProfilePage *labProfilePage() const { return m_labProfilePage; }
    StepRail *stepRail() const { return m_rail; }

    // A page by its short name (welcome, detect, choose, options, download, install, verify,
    // finish, repair, lab), or -1: `tfsetup wizard --root … --page NAME` opens a fixture machine
    // on that page (demonstrations, screenshots).
    static int pageIdFor(const QString &name);
    static QStringList pageNames();
    // Every page in the order a journey meets them: Next goes to the next page of this list that
    // nextId() does not route elsewhere; the journeys' own pages (Repair, Lab profile) come last.
    static QList<int> pageOrder();

    // The pages of the journey the student is on, in order (the step rail shows them).
    QList<int> journey() const;
    // Finish's "Repair now": back to the start, into the Repair journey for this environment.
    void repairEnvironment(const QString &environment);

    // The Welcome page's Upgrade: a window-modal dialog with the proposal for the environment
    // (made with the wizard's knowledge, hardware report and Options), deleted when closed.
    UpgradeDialog *openUpgrade(const QString &environment);

    // New environment: Welcome, Detect, Choose, Options, Download, Install, Verify, Finish.
    // Repair: Welcome, Repair, Verify, Finish. Lab profile: Welcome, Lab profile, then either
    // Detect, Options, Download, Install (the profile's plan replaces Choose) or, unattended,
    // straight to Verify; then Finish.
    int nextId() const override;
    bool validateCurrentPage() override;

    // Keeps the setup's progress in this file (core::SetupSession) from the Options page on, so
    // it can be continued after a restart, and offers to continue one found there. Empty (the
    // default, and for fixture trees) keeps nothing.
    void setSessionFile(const QString &path);
    QString sessionFile() const { return m_sessionPath; }
    // The unfinished setup the Welcome page offers, if any.
    const std::optional<core::SetupSession> &savedSession() const { return m_saved; }

    // Asked before the wizard closes (Cancel, the window's close button, Escape) while files
    // download or the environment is being built; true closes. The default asks with a message
    // box; tests answer through this seam.
    using CloseQuestion = std::function<bool(const QString &title, const QString &text)>;
    void setCloseQuestion(CloseQuestion ask) { m_askClose = std::move(ask); }
    // Downloads running or an install in progress: closing now would stop them.
    bool isWorking() const;

public Q_SLOTS:
    void reject() override;
    // What the Back button does: back(), except that a continued setup returns to the Options page.
    void goBack();

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    // Whether id comes after first (or is first, with fromFirst) and before last in pageOrder();
    // false when one of them is no page.
    static bool isBetween(int id, int first, int last, bool fromFirst = false);
    void retranslate();
    void updateRail();
    QString stepName(int id) const;
    void updateMinimumSize();
    void offerSavedSession();
    void restoreSession(core::SetupSession session);
    void saveSession();
    void continueTowardsGoal();

    WizardState m_state;
    core::Translations *m_translations;
    WelcomePage *m_welcomePage;
    DetectPage *m_detectPage;
    ChoosePage *m_choosePage;
    OptionsPage *m_optionsPage;
    DownloadPage *m_downloadPage;
    InstallPage *m_installPage;
    VerifyPage *m_verifyPage;
    FinishPage *m_finishPage;
    RepairPage *m_repairPage;
    LabProfilePage *m_labProfilePage;
    StepRail *m_rail;
    QString m_sessionPath;
    std::optional<core::SetupSession> m_saved;
    int m_resumeJump = -1;        // where Next on Welcome leads when continuing
    int m_resumeGoal = -1;        // the page the saved setup had reached; earlier pages go on by themselves
    bool m_backToOptions = false; // goBack() is on its way from Welcome to the Options page
    CloseQuestion m_askClose;
};

} // namespace tfsetup::ui
