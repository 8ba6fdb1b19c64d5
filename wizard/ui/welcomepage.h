#pragma once

#include "setup/environments.h"

#include <QFuture>
#include <QList>
#include <QWizardPage>

#include <functional>

class QButtonGroup;
class QComboBox;
class QLabel;
class QScrollArea;
class QPushButton;
class QRadioButton;
class QTreeWidget;

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class WizardState;

// First page: what the student wants to do (new environment, repair, lab profile) and the
// interface language. The language switches at once; every page retranslates itself.
// "Your environments" lists what tfsetup made (core::listEnvironments, read on a worker thread)
// with Open shell, Open Jupyter, Verify, Repair, Upgrade and Remove for the selected one, and
// "Free disk space" (the download cache and old logs, as `tfsetup clean`).
class WelcomePage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WelcomePage)
public:
    // translations may be null: the language switch is hidden then.
    WelcomePage(WizardState &state, core::Translations *translations, QWidget *parent = nullptr);
    // Waits for a listing, removal or cleanup under way: they work on the wizard's system view.
    ~WelcomePage() override;

    void initializePage() override;
    bool validatePage() override;
    bool isComplete() const override;

    // An unfinished setup to offer first: "Continue the setup of <environment> (downloaded
    // done of total)"; total <= 0 leaves the sizes out. An empty environment hides the offer.
    void setSavedSetup(const QString &environment, qint64 done, qint64 total);
    bool hasSavedSetup() const { return !m_savedEnvironment.isEmpty(); }
    // The student chose to continue the saved setup (valid after validatePage()).
    bool continueChosen() const { return m_continueChosen; }
    // The student pressed Verify on a listed environment: Next goes to the Verify page, which
    // checks it (WizardState::installed() names it).
    bool verifyChosen() const { return m_verifyChosen; }

    // Seams for tests: the question before a removal or a cleanup (default: a message box), how
    // a terminal is started (default: QProcess::startDetached) and found.
    using Confirm = std::function<bool(const QString &title, const QString &text)>;
    using LaunchFunction =
        std::function<bool(const QString &program, const QStringList &arguments, const QString &workingDirectory)>;
    using FindProgram = std::function<QString(const QString &name)>;
    void setConfirmFunction(Confirm confirm) { m_confirm = std::move(confirm); }
    void setLaunchFunction(LaunchFunction launch) { m_launch = std::move(launch); }
    void setFindProgram(FindProgram find) { m_find = std::move(find); }
    // Upgrading an environment in place: set when the upgrade exists; until then the button is
    // disabled and says why.
    using UpgradeFunction = std::function<void(const QString &environment)>;
    void setUpgradeFunction(UpgradeFunction upgrade);

    // What the list shows (after refreshEnvironments() finished).
    const QList<core::EnvironmentListing> &environments() const { return m_environments; }
    bool isBusy() const { return m_busy; }

public Q_SLOTS:
    // Reads the environments again, on a worker thread; environmentsChanged() when done.
    void refreshEnvironments();
    // Goes on into the Repair journey for this environment, as its Repair button does (the
    // Finish page's "Repair now").
    void startRepair(const QString &environment);
    void openShell();
    void openJupyter();
    void verifySelected();
    void repairSelected();
    void upgradeSelected();
    void removeSelected();
    void cleanUp();

Q_SIGNALS:
    // "Start over": forget the saved setup (the downloaded files stay).
    void startOverRequested();
    // Repair pressed on a listed environment; the wizard goes on in repair mode with it chosen.
    void repairRequested(const QString &environment);
    void environmentsChanged();
    // A removal or cleanup finished (its message is on the page).
    void workFinished(bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void selectLanguage(int index);
    void syncLanguageCombo();
    void startOver();
    void showEnvironments();
    void updateEnvironmentButtons();
    const core::EnvironmentListing *selected() const;
    void open(const QString &kind);
    void setBusy(bool busy);
    bool confirm(const QString &title, const QString &text);

    WizardState &m_state;
    core::Translations *m_translations;
    QScrollArea *m_scroll = nullptr;
    QLabel *m_intro;
    QButtonGroup *m_modes;
    QRadioButton *m_continueRadio;
    QLabel *m_continueHint;
    QPushButton *m_startOverButton;
    QString m_savedEnvironment;
    qint64 m_savedDone = 0;
    qint64 m_savedTotal = 0;
    bool m_continueChosen = false;
    bool m_preferContinue = true; // until the student picks something else
    QRadioButton *m_newRadio;
    QRadioButton *m_repairRadio;
    QRadioButton *m_labRadio;
    QLabel *m_newHint;
    QLabel *m_repairHint;
    QLabel *m_labHint;
    QLabel *m_languageLabel;
    QComboBox *m_languageCombo;

    QLabel *m_environmentsTitle;
    QTreeWidget *m_environmentList;
    QPushButton *m_shellButton;
    QPushButton *m_jupyterButton;
    QPushButton *m_verifyButton;
    QPushButton *m_repairButton;
    QPushButton *m_upgradeButton;
    QPushButton *m_removeButton;
    QPushButton *m_cleanButton;
    QLabel *m_environmentStatus;
    QList<core::EnvironmentListing> m_environments;
    QList<QFuture<void>> m_running;
    quint64 m_generation = 0; // of the listing under way; an older one's answer is dropped
    bool m_busy = false;
    bool m_verifyChosen = false;
    Confirm m_confirm;
    LaunchFunction m_launch;
    FindProgram m_find;
    UpgradeFunction m_upgrade;
};

} // namespace tfsetup::ui
