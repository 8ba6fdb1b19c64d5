#pragma once

#include "fetch/downloadtypes.h"
#include "install/installer.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "ui/wizardstate.h"

#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QPointer>
#include <QWizardPage>

#include <functional>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace tfsetup::ui {

// Journey 2: a lab hands every student the same profile (resources/profiles/example-lab.json).
// The page opens it from a file or from the lab mirror (http/https), shows what it will do —
// plan, folder, mirrors, kernel — and then either goes through the usual Detect, Options,
// Download, Install and Verify pages with the profile's choices filled in, or installs at once
// without further questions (what `tfsetup install --profile FILE --yes` does) and goes to
// Verify. For the lab's administrator it writes a profile from the wizard's current choices, and
// an offline bundle of the resolved files.
class LabProfilePage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LabProfilePage)
public:
    using FilePicker = std::function<QString(bool save)>; // an existing file (false) or where to save (true)
    using FolderPicker = std::function<QString()>;

    explicit LabProfilePage(WizardState &state, QWidget *parent = nullptr);
    ~LabProfilePage() override;

    void setFilePicker(FilePicker picker) { m_pickFile = std::move(picker); }
    void setFolderPicker(FolderPicker picker) { m_pickFolder = std::move(picker); }
    // The installer the unattended path drives; tests set checkpoints on it. Owned by the page.
    core::LabSetup *setup() const { return m_setup; }

    const std::optional<core::LabProfile> &profile() const { return m_profile; }
    bool unattended() const;

    void initializePage() override;
    bool isComplete() const override;
    bool validatePage() override;

    // The profile the current plan and options describe (the admin's "prepare a profile").
    static QJsonObject profileJson(const core::Plan &plan, const core::SetupOptions &options, const QString &title);

public Q_SLOTS:
    void openProfile();
    void browse();
    void prepareProfile();
    void prepareBundle();

Q_SIGNALS:
    void profileOpened(bool ok);
    // The options the profile asks for: the Options page starts from them.
    void optionsSuggested(const tfsetup::core::SetupOptions &options);
    void installFinished(bool ok);
    void bundleFinished(bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runDownload(QPointer<LabProfilePage> page, QUrl url, core::TransferOptions transfer,
                                     quint64 generation);
    static QCoro::Task<> runInstall(QPointer<LabProfilePage> page, core::LabProfile profile, QString cacheDir);
    static QCoro::Task<> runBundle(QPointer<LabProfilePage> page, core::ArtifactList list, QString folder);
    void acceptProfile(const QString &path, core::Result<core::LabProfile> profile);
    void showProfile();
    void retranslate();
    void updateAdmin();
    void setBusy(bool busy);
    // The install's bar: the running step's share of all steps, fraction of the way through it.
    void showStepProgress(double fraction);

    WizardState &m_state;
    QLabel *m_intro;
    QLineEdit *m_sourceEdit;
    QPushButton *m_browseButton;
    QPushButton *m_openButton;
    QLabel *m_summary;
    QCheckBox *m_unattendedCheck;
    QProgressBar *m_progress;
    QLabel *m_statusLabel;
    QPlainTextEdit *m_log;
    QLabel *m_adminLabel;
    QPushButton *m_prepareButton;
    QPushButton *m_bundleButton;
    core::LabSetup *m_setup;

    FilePicker m_pickFile;
    FolderPicker m_pickFolder;
    std::optional<core::LabProfile> m_profile;
    std::optional<core::InstallOutcome> m_outcome;
    quint64 m_generation = 0;
    int m_step = -1; // the running install step (allInstallSteps order), -1 before the first
    bool m_busy = false;
    bool m_installing = false;
};

} // namespace tfsetup::ui
