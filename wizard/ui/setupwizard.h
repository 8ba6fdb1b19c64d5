#pragma once

#include "ui/wizardstate.h"

#include <QWizard>

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class SetupWizard final : public QWizard {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupWizard)
public:
    enum PageId { WelcomePageId, DetectPageId };

    // translations may be null (no language switch then).
    SetupWizard(core::SystemView &system, core::Translations *translations, QWidget *parent = nullptr);

    WizardState &state() { return m_state; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();

    WizardState m_state;
    core::Translations *m_translations;
};

} // namespace tfsetup::ui
