#include "ui/welcomepage.h"

#include "ui/wizardstate.h"
#include "util/i18n.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QStyle>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

QLabel *hintLabel(const QString &objectName, QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    // Indented under its radio button so the pair reads as one choice.
    const int indent = parent->style()->pixelMetric(QStyle::PM_ExclusiveIndicatorWidth)
                       + parent->style()->pixelMetric(QStyle::PM_RadioButtonLabelSpacing);
    label->setContentsMargins(indent, 0, 0, 0);
    return label;
}

// Not a WizardState::Mode: continuing is a new environment whose first steps are done.
constexpr int continueId = 100;

} // namespace

WelcomePage::WelcomePage(WizardState &state, core::Translations *translations, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_translations(translations)
    , m_intro(new QLabel(this))
    , m_modes(new QButtonGroup(this))
    , m_continueRadio(new QRadioButton(this))
    , m_continueHint(hintLabel(QStringLiteral("continueHint"), this))
    , m_startOverButton(new QPushButton(this))
    , m_newRadio(new QRadioButton(this))
    , m_repairRadio(new QRadioButton(this))
    , m_labRadio(new QRadioButton(this))
    , m_newHint(hintLabel(QStringLiteral("newHint"), this))
    , m_repairHint(hintLabel(QStringLiteral("repairHint"), this))
    , m_labHint(hintLabel(QStringLiteral("labHint"), this))
    , m_languageLabel(new QLabel(this))
    , m_languageCombo(new QComboBox(this))
{
    setObjectName(QStringLiteral("welcomePage"));
    // The long explanation lives in the page, not the header: the wizard's header does not grow,
    // and a three-line subtitle (as in Chinese) would be cut off.
    m_intro->setObjectName(QStringLiteral("welcomeIntro"));
    m_intro->setWordWrap(true);
    m_continueRadio->setObjectName(QStringLiteral("modeContinueRadio"));
    m_startOverButton->setObjectName(QStringLiteral("startOverButton"));
    m_newRadio->setObjectName(QStringLiteral("modeNewRadio"));
    m_repairRadio->setObjectName(QStringLiteral("modeRepairRadio"));
    m_labRadio->setObjectName(QStringLiteral("modeLabRadio"));
    m_languageCombo->setObjectName(QStringLiteral("languageCombo"));
    m_languageLabel->setObjectName(QStringLiteral("languageLabel"));
    m_languageLabel->setBuddy(m_languageCombo);

    m_modes->addButton(m_continueRadio, continueId);
    m_modes->addButton(m_newRadio, int(WizardState::Mode::NewEnvironment));
    m_modes->addButton(m_repairRadio, int(WizardState::Mode::Repair));
    m_modes->addButton(m_labRadio, int(WizardState::Mode::LabProfile));
    connect(m_modes, &QButtonGroup::idToggled, this, &WelcomePage::completeChanged);
    connect(m_modes, &QButtonGroup::idClicked, this, [this](int id) { m_preferContinue = id == continueId; });
    connect(m_startOverButton, &QPushButton::clicked, this, &WelcomePage::startOver);

    // The combo lists each language in its own script, so it stays readable whatever is shown.
    if (m_translations) {
        for (const QString &language : core::Translations::available())
            m_languageCombo->addItem(core::Translations::nativeName(language), language);
    }
    connect(m_languageCombo, &QComboBox::currentIndexChanged, this, &WelcomePage::selectLanguage);

    auto *languageRow = new QHBoxLayout;
    languageRow->addStretch(1);
    languageRow->addWidget(m_languageLabel);
    languageRow->addWidget(m_languageCombo);
    const bool canSwitch = m_translations && m_languageCombo->count() > 1;
    m_languageLabel->setVisible(canSwitch);
    m_languageCombo->setVisible(canSwitch);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(languageRow);
    layout->addWidget(m_intro);
    layout->addSpacing(12);
    auto *continueRow = new QHBoxLayout;
    continueRow->addWidget(m_continueRadio, 1);
    continueRow->addWidget(m_startOverButton);
    layout->addLayout(continueRow);
    layout->addWidget(m_continueHint);
    layout->addSpacing(8);
    layout->addWidget(m_newRadio);
    layout->addWidget(m_newHint);
    layout->addSpacing(8);
    layout->addWidget(m_repairRadio);
    layout->addWidget(m_repairHint);
    layout->addSpacing(8);
    layout->addWidget(m_labRadio);
    layout->addWidget(m_labHint);
    layout->addStretch(1);

    setSavedSetup({}, 0, 0);
    syncLanguageCombo();
    retranslate();
}

void WelcomePage::setSavedSetup(const QString &environment, qint64 done, qint64 total)
{
    m_savedEnvironment = environment;
    m_savedDone = done;
    m_savedTotal = total;
    const bool offered = !environment.isEmpty();
    for (QWidget *w : std::initializer_list<QWidget *>{m_continueRadio, m_continueHint, m_startOverButton})
        w->setVisible(offered);
    if (offered && m_preferContinue) {
        m_continueRadio->setChecked(true);
    } else if (!offered && m_continueRadio->isChecked()) {
        m_newRadio->setChecked(true);
    }
    retranslate();
    Q_EMIT completeChanged();
}

void WelcomePage::startOver()
{
    m_preferContinue = false;
    setSavedSetup({}, 0, 0);
    m_newRadio->setChecked(true);
    m_newRadio->setFocus();
    Q_EMIT startOverRequested();
}

void WelcomePage::initializePage()
{
    QAbstractButton *button = hasSavedSetup() && m_preferContinue ? m_continueRadio : m_modes->button(int(m_state.mode()));
    if (button)
        button->setChecked(true);
    syncLanguageCombo();
}

bool WelcomePage::validatePage()
{
    const int id = m_modes->checkedId();
    if (id < 0)
        return false;
    m_continueChosen = id == continueId;
    m_state.setMode(m_continueChosen ? WizardState::Mode::NewEnvironment : WizardState::Mode(id));
    return true;
}

bool WelcomePage::isComplete() const
{
    return m_modes->checkedId() >= 0;
}

void WelcomePage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWizardPage::changeEvent(event);
}

void WelcomePage::retranslate()
{
    setTitle(tr("Welcome"));
    setSubTitle(tr("TensorFlow with GPU support, set up for you."));
    m_intro->setText(tr("This wizard sets up TensorFlow with GPU support on this computer. "
                        "It checks your hardware, picks versions that work together, downloads "
                        "them from the official sites and tests the result."));
    m_newRadio->setText(tr("&Set up a new TensorFlow environment"));
    m_newHint->setText(tr("Choose this if you have not installed TensorFlow with tfsetup yet."));
    m_repairRadio->setText(tr("&Repair an existing environment"));
    m_repairHint->setText(tr("Choose this if TensorFlow is installed but does not find the GPU "
                             "or fails to start."));
    m_labRadio->setText(tr("Use a lab &profile"));
    m_labHint->setText(tr("Choose this if your course or lab gave you a profile file that fixes "
                          "the versions to install."));
    m_languageLabel->setText(tr("&Language:"));
    if (m_savedTotal > 0) {
        const QLocale locale;
        m_continueRadio->setText(tr("&Continue the setup of %1 (downloaded %2 of %3)")
                                     .arg(m_savedEnvironment,
                                          locale.formattedDataSize(m_savedDone, 1, QLocale::DataSizeTraditionalFormat),
                                          locale.formattedDataSize(m_savedTotal, 1, QLocale::DataSizeTraditionalFormat)));
    } else {
        m_continueRadio->setText(tr("&Continue the setup of %1").arg(m_savedEnvironment));
    }
    m_continueHint->setText(tr("tfsetup was closed before this setup finished. It continues where it stopped; "
                               "files already downloaded are not downloaded again."));
    m_startOverButton->setText(tr("Start &over"));
    m_startOverButton->setToolTip(tr("Forget the unfinished setup and start a new one. Downloaded files are kept."));
    m_startOverButton->setAccessibleName(tr("Start over"));
    m_startOverButton->setAccessibleDescription(m_startOverButton->toolTip());
    m_continueRadio->setAccessibleName(m_continueRadio->text().remove(u'&'));
    m_continueRadio->setAccessibleDescription(m_continueHint->text());

    m_newRadio->setAccessibleName(m_newRadio->text().remove(u'&'));
    m_newRadio->setAccessibleDescription(m_newHint->text());
    m_repairRadio->setAccessibleName(m_repairRadio->text().remove(u'&'));
    m_repairRadio->setAccessibleDescription(m_repairHint->text());
    m_labRadio->setAccessibleName(m_labRadio->text().remove(u'&'));
    m_labRadio->setAccessibleDescription(m_labHint->text());
    m_languageCombo->setAccessibleName(tr("Language"));
}

void WelcomePage::selectLanguage(int index)
{
    if (!m_translations || index < 0)
        return;
    const QString language = m_languageCombo->itemData(index).toString();
    if (language == m_translations->language())
        return;
    if (!m_translations->setLanguage(language))
        qWarning("No translation could be loaded for %s", qUtf8Printable(language));
    // Shows the language actually in use when loading failed (setLanguage falls back to English).
    syncLanguageCombo();
}

void WelcomePage::syncLanguageCombo()
{
    if (!m_translations)
        return;
    const QSignalBlocker blocker(m_languageCombo);
    const int index = m_languageCombo->findData(m_translations->language());
    if (index >= 0)
        m_languageCombo->setCurrentIndex(index);
}

} // namespace tfsetup::ui
