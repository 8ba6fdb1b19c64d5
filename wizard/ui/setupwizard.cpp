#include "ui/setupwizard.h"

#include "util/i18n.h"

#include <QEvent>

namespace tfsetup::ui {

SetupWizard::SetupWizard(core::SystemView &system, core::Translations *translations, QWidget *parent)
    : QWizard(parent)
    , m_state(system)
    , m_translations(translations)
{
    setObjectName(QStringLiteral("setupWizard"));
    setWizardStyle(QWizard::ModernStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
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
}

} // namespace tfsetup::ui
