#pragma once

#include <QWizardPage>

class QButtonGroup;
class QComboBox;
class QLabel;
class QRadioButton;

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class WizardState;

// First page: what the student wants to do (new environment, repair, lab profile) and the
// interface language. The language switches at once; every page retranslates itself.
class WelcomePage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WelcomePage)
public:
    // translations may be null: the language switch is hidden then.
    WelcomePage(WizardState &state, core::Translations *translations, QWidget *parent = nullptr);

    void initializePage() override;
    bool validatePage() override;
    bool isComplete() const override;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void selectLanguage(int index);
    void syncLanguageCombo();

    WizardState &m_state;
    core::Translations *m_translations;
    QLabel *m_intro;
    QButtonGroup *m_modes;
    QRadioButton *m_newRadio;
    QRadioButton *m_repairRadio;
    QRadioButton *m_labRadio;
    QLabel *m_newHint;
    QLabel *m_repairHint;
    QLabel *m_labHint;
    QLabel *m_languageLabel;
    QComboBox *m_languageCombo;
};

} // namespace tfsetup::ui
