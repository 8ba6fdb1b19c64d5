#include "ui/setupwizard.h"

#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/labprofilepage.h"
#include "ui/optionspage.h"
#include "ui/repairpage.h"
#include "ui/verifypage.h"
#include "ui/welcomepage.h"
#include "fetch/downloadcache.h"
#include "util/i18n.h"

#include <QEvent>
#include <QIcon>

namespace tfsetup::ui {

SetupWizard::SetupWizard(core::SystemView &system, core::Translations *translations, QWidget *parent)
    : QWizard(parent)
    , m_state(system)
    , m_translations(translations)
    , m_welcomePage(new WelcomePage(m_state, translations, this))
    , m_detectPage(new DetectPage(m_state, this))
    , m_choosePage(new ChoosePage(m_state, this))
    , m_optionsPage(new OptionsPage(m_state, this))
    , m_downloadPage(new DownloadPage(m_state, this))
    , m_installPage(new InstallPage(m_state, this))
    , m_verifyPage(new VerifyPage(m_state, this))
    , m_finishPage(new FinishPage(m_state, this))
    , m_repairPage(new RepairPage(m_state, this))
    , m_labProfilePage(new LabProfilePage(m_state, this))
{
    setObjectName(QStringLiteral("setupWizard"));
    setWizardStyle(QWizard::ModernStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
    const QIcon icon(QStringLiteral(":/resources/icons/tfsetup.svg"));
    setWindowIcon(icon);
    setPixmap(QWizard::LogoPixmap, icon.pixmap(48, 48));
    // Long enough for a GPU name, a driver line and a path without wrapping every sentence.
    setMinimumSize(720, 540);
    setPage(WelcomePageId, m_welcomePage);
    setPage(DetectPageId, m_detectPage);
    setPage(ChoosePageId, m_choosePage);
    setPage(OptionsPageId, m_optionsPage);
    setPage(DownloadPageId, m_downloadPage);
    setPage(InstallPageId, m_installPage);
    setPage(VerifyPageId, m_verifyPage);
    setPage(FinishPageId, m_finishPage);
    setPage(RepairPageId, m_repairPage);
    setPage(LabProfilePageId, m_labProfilePage);
    connect(m_labProfilePage, &LabProfilePage::optionsSuggested, m_optionsPage, &OptionsPage::setBaseOptions);
    connect(&m_state, &WizardState::optionsChanged, this, &SetupWizard::applyTransferOptions);
    setStartId(WelcomePageId);
    retranslate();
}

int SetupWizard::nextId() const
{
    const WizardState::Mode mode = m_state.mode();
    switch (currentId()) {
    case WelcomePageId:
        if (mode == WizardState::Mode::Repair)
            return RepairPageId;
        if (mode == WizardState::Mode::LabProfile)
            return LabProfilePageId;
        return DetectPageId;
    case DetectPageId:
        // The profile pins the plan: nothing to choose.
        if (mode == WizardState::Mode::LabProfile && m_state.plan() && page(OptionsPageId))
            return OptionsPageId;
        break;
    case RepairPageId:
        return VerifyPageId;
    case LabProfilePageId:
        return m_labProfilePage->unattended() ? VerifyPageId : DetectPageId;
    case FinishPageId:
        return -1;
    default:
        break;
    }
    const int next = QWizard::nextId();
    // The journeys' own pages come after Finish in id order and are reached only through the above.
    return next == RepairPageId || next == LabProfilePageId ? -1 : next;
}

void SetupWizard::applyTransferOptions()
{
    // Only a changed proxy needs a new downloader; keeping the old one keeps downloads in flight
    // and any downloader a test or lab set up.
    const QString proxy = m_state.options().proxy;
    if (proxy == m_proxy)
        return;
    m_proxy = proxy;
    core::TransferOptions transfer;
    transfer.proxy = proxy;
    transfer.caBundle = m_state.options().caBundle;
    m_downloadPage->setDownloader(std::make_unique<core::Downloader>(
        transfer, core::DownloadCache(core::DownloadCache::defaultDir())));
}

void SetupWizard::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWizard::changeEvent(event);
}

void SetupWizard::retranslate()
{
    setWindowTitle(tr("TensorFlow GPU setup"));
    // Our own catalogue carries the button texts: Qt's translations are often not installed on
    // the machines students use, and the wizard would switch language everywhere but here.
    setButtonText(BackButton, tr("< &Back"));
    setButtonText(NextButton, tr("&Next >"));
    setButtonText(CommitButton, tr("&Install"));
    setButtonText(FinishButton, tr("&Finish"));
    setButtonText(CancelButton, tr("Cancel"));
    setButtonText(HelpButton, tr("&Help"));
}

} // namespace tfsetup::ui
