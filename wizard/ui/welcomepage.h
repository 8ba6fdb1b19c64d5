#pragma once

#include <QWizardPage>

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
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

    // An unfinished setup to offer first: "Continue the setup of <environment> (downloaded
    // done of total)"; total <= 0 leaves the sizes out. An empty environment hides the offer.
    void setSavedSetup(const QString &environment, qint64 done, qint64 total);
    bool hasSavedSetup() const { return !m_savedEnvironment.isEmpty(); }
    // The student chose to continue the saved setup (valid after validatePage()).
    bool continueChosen() const { return m_continueChosen; }

Q_SIGNALS:
    // "Start over": forget the saved setup (the downloaded files stay).
    void startOverRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void selectLanguage(int index);
    void syncLanguageCombo();
    void startOver();

    WizardState &m_state;
    core::Translations *m_translations;
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
};

} // namespace tfsetup::ui
