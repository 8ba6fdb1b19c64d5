#include "ui/setupwizard.h"

#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/welcomepage.h"
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
    , m_downloadPage(new DownloadPage(m_state, this))
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
    setPage(DownloadPageId, m_downloadPage);
    setStartId(WelcomePageId);
    retranslate();
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
