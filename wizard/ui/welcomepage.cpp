#include "ui/welcomepage.h"

#include "catalog/knowledge.h"
#include "fetch/cachecleaner.h"
#include "fetch/downloadcache.h"
#include "ui/finishpage.h"
#include "ui/wizardstate.h"
#include "util/i18n.h"
#include "util/runlog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

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

// Runs work on a worker thread and hands its result to done() on the page's thread, unless the
// page is gone by then.
template<typename T, typename Work, typename Done>
QFuture<void> onWorker(QObject *page, Work work, Done done)
{
    auto *watcher = new QFutureWatcher<T>(page);
    QObject::connect(watcher, &QFutureWatcher<T>::finished, page, [watcher, done] {
        done(watcher->result());
        watcher->deleteLater();
    });
    QFuture<T> future = QtConcurrent::run(std::move(work));
    watcher->setFuture(future);
    return QFuture<void>(future);
}

QList<core::EnvironmentListing> readEnvironments(const core::SystemView *system, core::ListOptions options,
                                                 std::optional<core::HardwareReport> hardware,
                                                 core::KnowledgePtr knowledge)
{
    QList<core::EnvironmentListing> listings = core::listEnvironments(*system, options);
    if (hardware && knowledge)
        core::findNewerTensorflow(listings, knowledge->catalog, &knowledge->gpus, *hardware);
    return listings;
}

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
    , m_environmentsTitle(new QLabel(this))
    , m_environmentList(new QTreeWidget(this))
    , m_shellButton(new QPushButton(this))
    , m_jupyterButton(new QPushButton(this))
    , m_verifyButton(new QPushButton(this))
    , m_repairButton(new QPushButton(this))
    , m_upgradeButton(new QPushButton(this))
    , m_removeButton(new QPushButton(this))
    , m_cleanButton(new QPushButton(this))
    , m_environmentStatus(new QLabel(this))
    , m_confirm([this](const QString &title, const QString &text) {
        return QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
            == QMessageBox::Yes;
    })
    , m_launch([](const QString &program, const QStringList &arguments, const QString &workingDirectory) {
        return QProcess::startDetached(program, arguments, workingDirectory);
    })
    , m_find([](const QString &name) { return QStandardPaths::findExecutable(name); })
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

    // The page scrolls rather than squeezing: with a saved setup, a list of environments and
    // Chinese text the content is taller than the wizard's 540 pixels.
    auto *content = new QWidget;
    content->setObjectName(QStringLiteral("welcomeContent"));
    auto *scroll = new QScrollArea(this);
    m_scroll = scroll;
    scroll->setObjectName(QStringLiteral("welcomeScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *pageLayout = new QVBoxLayout(this);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->addWidget(scroll);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
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

    m_environmentsTitle->setObjectName(QStringLiteral("environmentsTitle"));
    m_environmentList->setObjectName(QStringLiteral("environmentList"));
    m_environmentList->setRootIsDecorated(false);
    m_environmentList->setUniformRowHeights(true);
    m_environmentList->setColumnCount(5);
    m_environmentList->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_environmentList->setMinimumHeight(90);
    m_environmentsTitle->setBuddy(m_environmentList);
    m_shellButton->setObjectName(QStringLiteral("environmentShellButton"));
    m_jupyterButton->setObjectName(QStringLiteral("environmentJupyterButton"));
    m_verifyButton->setObjectName(QStringLiteral("environmentVerifyButton"));
    m_repairButton->setObjectName(QStringLiteral("environmentRepairButton"));
    m_upgradeButton->setObjectName(QStringLiteral("environmentUpgradeButton"));
    m_removeButton->setObjectName(QStringLiteral("environmentRemoveButton"));
    m_cleanButton->setObjectName(QStringLiteral("cleanUpButton"));
    m_environmentStatus->setObjectName(QStringLiteral("environmentStatus"));
    m_environmentStatus->setWordWrap(true);
    m_environmentStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_environmentList, &QTreeWidget::currentItemChanged, this, &WelcomePage::updateEnvironmentButtons);
    connect(m_shellButton, &QPushButton::clicked, this, &WelcomePage::openShell);
    connect(m_jupyterButton, &QPushButton::clicked, this, &WelcomePage::openJupyter);
    connect(m_verifyButton, &QPushButton::clicked, this, &WelcomePage::verifySelected);
    connect(m_repairButton, &QPushButton::clicked, this, &WelcomePage::repairSelected);
    connect(m_upgradeButton, &QPushButton::clicked, this, &WelcomePage::upgradeSelected);
    connect(m_removeButton, &QPushButton::clicked, this, &WelcomePage::removeSelected);
    connect(m_cleanButton, &QPushButton::clicked, this, &WelcomePage::cleanUp);
    layout->addSpacing(12);
    layout->addWidget(m_environmentsTitle);
    layout->addWidget(m_environmentList, 1);
    // Two rows of actions: seven buttons in one row do not fit 720 pixels in every language.
    auto *actions = new QGridLayout;
    const QList<QPushButton *> actionButtons = {m_shellButton,   m_jupyterButton, m_verifyButton, m_repairButton,
                                                m_upgradeButton, m_removeButton,  m_cleanButton};
    for (qsizetype i = 0; i < actionButtons.size(); ++i)
        actions->addWidget(actionButtons.at(i), int(i / 4), int(i % 4));
    actions->setColumnStretch(4, 1);
    layout->addLayout(actions);
    layout->addWidget(m_environmentStatus);
    layout->addStretch(1);
    scroll->setWidget(content);

    setSavedSetup({}, 0, 0);
    syncLanguageCombo();
    showEnvironments();
    retranslate();
}

WelcomePage::~WelcomePage()
{
    for (QFuture<void> &f : m_running)
        f.waitForFinished();
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
    QAbstractButton *button = hasSavedSetup() && m_preferContinue ? m_continueRadio
                                                                  : m_modes->button(int(m_state.mode()));
    if (button)
        button->setChecked(true);
    m_verifyChosen = false;
    syncLanguageCombo();
    refreshEnvironments();
}

bool WelcomePage::validatePage()
{
    const int id = m_modes->checkedId();
    if (id < 0)
        return false;
    m_continueChosen = id == continueId && !m_verifyChosen;
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
    m_scroll->setAccessibleName(tr("Welcome"));
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
        m_continueRadio->setText(
            tr("&Continue the setup of %1 (downloaded %2 of %3)")
                .arg(m_savedEnvironment, locale.formattedDataSize(m_savedDone, 1, QLocale::DataSizeTraditionalFormat),
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

    m_environmentsTitle->setText(tr("Your &environments"));
    m_environmentList->setHeaderLabels(
        {tr("Environment"), tr("TensorFlow"), tr("Python / CUDA / cuDNN"), tr("Size on disk"), tr("Last verify")});
    m_environmentList->setAccessibleName(tr("Your environments"));
    m_shellButton->setText(tr("Open s&hell"));
    m_shellButton->setToolTip(tr("Open a terminal with this environment's Python and libraries first on the path."));
    m_jupyterButton->setText(tr("Open &Jupyter"));
    m_jupyterButton->setToolTip(tr("Start Jupyter in this environment."));
    m_verifyButton->setText(tr("&Verify"));
    m_verifyButton->setToolTip(
        tr("Check again that TensorFlow in this environment loads its libraries and uses the GPU."));
    m_repairButton->setText(tr("Rep&air"));
    m_repairButton->setToolTip(tr("Find what is wrong with this environment and restore what is missing or altered."));
    m_upgradeButton->setText(tr("&Upgrade"));
    m_removeButton->setText(tr("Re&move"));
    m_removeButton->setToolTip(tr("Remove this environment, its launchers, Jupyter kernel and menu entry. Files of "
                                  "yours in its folder are kept."));
    m_cleanButton->setText(tr("Free &disk space"));
    m_cleanButton->setToolTip(tr("Remove downloads no environment needs any more (unused for 90 days) and old logs."));
    for (QPushButton *b : {m_shellButton, m_jupyterButton, m_verifyButton, m_repairButton, m_upgradeButton,
                           m_removeButton, m_cleanButton}) {
        b->setAccessibleName(b->text().remove(u'&'));
        b->setAccessibleDescription(b->toolTip());
    }
    showEnvironments();
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

void WelcomePage::setUpgradeFunction(UpgradeFunction upgrade)
{
    m_upgrade = std::move(upgrade);
    updateEnvironmentButtons();
}

void WelcomePage::refreshEnvironments()
{
    core::ListOptions options;
    if (!m_state.options().prefix.isEmpty())
        options.folders.append(m_state.options().prefix);
    const quint64 generation = ++m_generation;
    const core::SystemView *system = &m_state.system();
    m_running.removeIf([](const QFuture<void> &f) { return f.isFinished(); });
    m_running.append(onWorker<QList<core::EnvironmentListing>>(
        this,
        [system, options, hardware = m_state.hardware(), knowledge = m_state.knowledgeOrNull()] {
            return readEnvironments(system, options, hardware, knowledge);
        },
        [this, generation](const QList<core::EnvironmentListing> &listings) {
            if (generation != m_generation)
                return;
            m_environments = listings;
            showEnvironments();
            Q_EMIT environmentsChanged();
        }));
}

void WelcomePage::showEnvironments()
{
    const QString previous = selected() ? selected()->path : QString();
    const QLocale locale;
    {
        const QSignalBlocker blocker(m_environmentList);
        m_environmentList->clear();
        for (const core::EnvironmentListing &l : std::as_const(m_environments)) {
            auto *item = new QTreeWidgetItem(m_environmentList);
            item->setData(0, Qt::UserRole, l.path);
            item->setText(0, l.name);
            item->setToolTip(0, QDir::toNativeSeparators(l.path));
            if (l.isEnvironment()) {
                item->setText(1,
                              l.newerTensorflow.isEmpty() ? l.tensorflow
                                                          : tr("%1 (%2 fits)").arg(l.tensorflow, l.newerTensorflow));
                const QString none = tr("none");
                item->setText(2,
                              QStringLiteral("%1 / %2 / %3")
                                  .arg(l.python.isEmpty() ? none : l.python, l.cuda.isEmpty() ? none : l.cuda,
                                       l.cudnn.isEmpty() ? none : l.cudnn));
            } else {
                item->setText(1, l.problem);
                item->setFirstColumnSpanned(false);
            }
            if (l.bytes >= 0)
                item->setText(3, locale.formattedDataSize(l.bytes, 1, QLocale::DataSizeTraditionalFormat));
            if (l.lastVerify.present) {
                const QDateTime when = QDateTime::fromString(l.lastVerify.date, Qt::ISODate).toLocalTime();
                const QString date = locale.toString(when.date(), QLocale::ShortFormat);
                item->setText(4, l.lastVerify.passed ? tr("passed, %1").arg(date) : tr("failed, %1").arg(date));
                item->setIcon(4,
                              style()->standardIcon(l.lastVerify.passed ? QStyle::SP_DialogApplyButton
                                                                        : QStyle::SP_MessageBoxWarning));
                if (!l.lastVerify.passed)
                    item->setToolTip(4, l.lastVerify.message);
            } else if (l.isEnvironment()) {
                item->setText(4, tr("not yet"));
            }
            if (!l.problem.isEmpty())
                item->setToolTip(1, l.problem);
            if (l.path == previous)
                m_environmentList->setCurrentItem(item);
        }
        if (!m_environmentList->currentItem() && m_environmentList->topLevelItemCount() > 0)
            m_environmentList->setCurrentItem(m_environmentList->topLevelItem(0));
    }
    const bool any = !m_environments.isEmpty();
    for (QWidget *w : std::initializer_list<QWidget *>{m_environmentsTitle, m_environmentList, m_shellButton,
                                                       m_jupyterButton, m_verifyButton, m_repairButton, m_upgradeButton,
                                                       m_removeButton, m_cleanButton}) {
        w->setVisible(any);
    }
    m_environmentStatus->setVisible(any && !m_environmentStatus->text().isEmpty());
    updateEnvironmentButtons();
}

const core::EnvironmentListing *WelcomePage::selected() const
{
    const QTreeWidgetItem *item = m_environmentList->currentItem();
    if (!item)
        return nullptr;
    const QString path = item->data(0, Qt::UserRole).toString();
    for (const core::EnvironmentListing &l : m_environments) {
        if (l.path == path)
            return &l;
    }
    return nullptr;
}

void WelcomePage::updateEnvironmentButtons()
{
    const core::EnvironmentListing *l = selected();
    const bool usable = l && l->isEnvironment() && !m_busy;
    m_shellButton->setEnabled(usable);
    m_jupyterButton->setEnabled(usable);
    m_verifyButton->setEnabled(usable);
    m_repairButton->setEnabled(usable);
    // A removal stopped midway is finished by Remove; a folder without a record is not tfsetup's.
    m_removeButton->setEnabled(l && !m_busy
                               && (l->isEnvironment() || l->state == u"removal_interrupted" || l->state == u"missing"));
    m_cleanButton->setEnabled(!m_busy);
    m_upgradeButton->setEnabled(usable && m_upgrade && !l->newerTensorflow.isEmpty());
    if (!m_upgrade) {
        m_upgradeButton->setToolTip(tr("Upgrading in place is not available yet. To move to a newer TensorFlow, set up "
                                       "a new environment, then remove this one."));
    } else if (l && l->newerTensorflow.isEmpty()) {
        m_upgradeButton->setToolTip(tr("No newer TensorFlow fits this computer on this environment's route."));
    } else {
        m_upgradeButton->setToolTip(l ? tr("Upgrade to TensorFlow %1.").arg(l->newerTensorflow)
                                      : tr("Upgrade the chosen environment to the newest TensorFlow that fits this "
                                           "computer."));
    }
    m_upgradeButton->setAccessibleDescription(m_upgradeButton->toolTip());
}

void WelcomePage::setBusy(bool busy)
{
    m_busy = busy;
    updateEnvironmentButtons();
}

bool WelcomePage::confirm(const QString &title, const QString &text)
{
    return m_confirm && m_confirm(title, text);
}

void WelcomePage::openShell()
{
    open(QStringLiteral("shell"));
}

void WelcomePage::openJupyter()
{
    open(QStringLiteral("start-jupyter"));
}

void WelcomePage::open(const QString &kind)
{
    const core::EnvironmentListing *l = selected();
    if (!l)
        return;
    core::SystemView &system = m_state.system();
    const QString launcher = FinishPage::launcherFor(l->launchers, kind, system.os());
    QString message;
    if (launcher.isEmpty()) {
        message = tr("This environment has no such launcher. Repair it to write its launchers again.");
    } else {
        const QString host = system.hostPath(launcher);
        const auto command = FinishPage::terminalCommand(system.os(), host, m_find);
        if (!command)
            message = tr("No terminal program was found. Open a terminal yourself and run:\n%1")
                          .arg(QDir::toNativeSeparators(host));
        else if (!m_launch(command->program, command->arguments, system.hostPath(l->path)))
            message = tr("%1 could not be started. Open a terminal yourself and run:\n%2")
                          .arg(command->program, QDir::toNativeSeparators(host));
    }
    m_environmentStatus->setText(message);
    m_environmentStatus->setVisible(!message.isEmpty());
}

void WelcomePage::verifySelected()
{
    const core::EnvironmentListing *l = selected();
    if (!l || !wizard())
        return;
    core::InstallOutcome outcome;
    outcome.environmentPath = l->path;
    outcome.launchers = l->launchers;
    if (const auto record = core::EnvironmentRecord::read(m_state.system().hostPath(l->path)); record)
        outcome.summary = record->summary();
    m_state.setInstalled(outcome);
    m_state.setVerified(std::nullopt);
    m_newRadio->setChecked(true);
    m_verifyChosen = true;
    wizard()->next();
}

void WelcomePage::repairSelected()
{
    const core::EnvironmentListing *l = selected();
    if (!l || !wizard())
        return;
    startRepair(l->path);
}

void WelcomePage::startRepair(const QString &environment)
{
    if (!wizard())
        return;
    m_repairRadio->setChecked(true);
    m_verifyChosen = false;
    Q_EMIT repairRequested(environment);
    wizard()->next();
}

void WelcomePage::upgradeSelected()
{
    if (const core::EnvironmentListing *l = selected(); l && m_upgrade)
        m_upgrade(l->path);
}

void WelcomePage::removeSelected()
{
    const core::EnvironmentListing *l = selected();
    if (!l || m_busy)
        return;
    const QString path = l->path;
    if (!confirm(tr("Remove %1?").arg(l->name),
                 tr("This removes the environment %1 with its launchers, its Jupyter kernel and its menu entry. "
                    "Files of yours in that folder are kept. Other environments and downloaded files are not "
                    "touched.")
                     .arg(QDir::toNativeSeparators(path))))
        return;
    setBusy(true);
    m_environmentStatus->setText(tr("Removing %1…").arg(l->name));
    m_environmentStatus->show();
    core::SystemView *system = &m_state.system();
    m_running.append(onWorker<core::Result<core::RemoveReport>>(
        this, [system, path] { return core::removeEnvironment(*system, path); },
        [this](const core::Result<core::RemoveReport> &report) {
            setBusy(false);
            m_environmentStatus->setText(report ? report->text().trimmed() : report.error().message);
            m_environmentStatus->show();
            refreshEnvironments();
            Q_EMIT workFinished(report.ok());
        }));
}

void WelcomePage::cleanUp()
{
    if (m_busy)
        return;
    core::CleanOptions options;
    // The cache the Download page fetches through (the download folder itself is the setup's).
    options.cacheDir = core::DownloadCache::defaultDir();
    options.logDir = core::RunLog::defaultFolder();
    options.currentLog = core::RunLog::path();
    if (!confirm(tr("Free disk space?"),
                 tr("This removes downloaded files not used for 90 days that no environment needs, and old logs. "
                    "They are downloaded again when a setup needs them.")))
        return;
    setBusy(true);
    const core::SystemView *system = &m_state.system();
    m_running.append(onWorker<core::CleanReport>(
        this,
        [system, options]() mutable {
            options.keep = core::referencedChecksums(*system, core::listEnvironments(*system, {{}, false}));
            return core::cleanDownloads(options);
        },
        [this](const core::CleanReport &report) {
            setBusy(false);
            m_environmentStatus->setText(report.text().trimmed());
            m_environmentStatus->show();
            Q_EMIT workFinished(true);
        }));
}

} // namespace tfsetup::ui
