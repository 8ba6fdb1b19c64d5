#pragma once

#include "ui/wizardstate.h"

#include <QWizard>

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class ChoosePage;
class DetectPage;
class DownloadPage;
class FinishPage;
class InstallPage;
class OptionsPage;
class VerifyPage;
class WelcomePage;

class SetupWizard final : public QWizard {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupWizard)
public:
    // The order of the steps. Later pages slot in here; ids stay stable for tests and nextId().
    enum PageId {
        WelcomePageId,
        DetectPageId,
        ChoosePageId,
        OptionsPageId,
        DownloadPageId,
        InstallPageId,
        VerifyPageId,
        FinishPageId,
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

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void applyTransferOptions();

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
    QString m_proxy; // the proxy the Download page's downloader was made with
};

} // namespace tfsetup::ui
