#include "ui/installpage.h"

#include "install/environments.h"
#include "setup/setupflow.h"
#include "ui/wizardstate.h"
#include "util/runlog.h"

#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

// Keeps a runaway pip from growing the log view without end; the run log has every line.
constexpr int maxLogBlocks = 5000;
constexpr int progressScale = 1000;

// Each step's usual share of an install's time (pip and unpacking dominate); the bar is only an
// indication, so these are rough weights, not measurements.
int stepWeight(core::InstallStep step)
{
    using S = core::InstallStep;
    switch (step) {
    case S::Packages: return 50;
    case S::Extract: return 15;
    case S::Python: return 10;
    case S::Verify: return 8;
    case S::Place: return 5;
    case S::Register: return 3;
    default: return 2;
    }
}

// pip prints a few lines per package; its share of the bar fills as they come without knowing
// how many packages there are: halfway after this many lines, never quite full.
constexpr double pipHalfwayLines = 40;

QString stepText(core::InstallStep step)
{
    using S = core::InstallStep;
    switch (step) {
    case S::Prepare: return InstallPage::tr("Check the downloaded files");
    case S::Extract: return InstallPage::tr("Unpack the archives");
    case S::Place: return InstallPage::tr("Put each library where TensorFlow looks for it");
    case S::Python: return InstallPage::tr("Create the Python environment");
    case S::Packages: return InstallPage::tr("Install TensorFlow with pip");
    case S::Launchers: return InstallPage::tr("Write the launchers");
    case S::Record: return InstallPage::tr("Record what was installed");
    case S::Verify: return InstallPage::tr("Check the new environment");
    case S::Commit: return InstallPage::tr("Move the environment into place");
    case S::Register: return InstallPage::tr("Register the Jupyter kernel");
    }
    return {};
}

QString marker(InstallPage::StepState state)
{
    switch (state) {
    case InstallPage::StepState::Pending: return QStringLiteral("○");
    case InstallPage::StepState::Running: return QStringLiteral("▶");
    case InstallPage::StepState::Done: return QStringLiteral("✓");
    case InstallPage::StepState::Failed: return QStringLiteral("✗");
    }
    return {};
}

} // namespace

InstallPage::InstallPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_installer(new core::Installer(state.system(), state.knowledgeOrNull()))
    , m_summaryLabel(new QLabel(this))
    , m_stepList(new QListWidget(this))
    , m_progress(new QProgressBar(this))
    , m_stepBusy(new QProgressBar(this))
    , m_currentStep(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
    , m_statusLabel(new QLabel(this))
    , m_cancelButton(new QPushButton(this))
    , m_retryButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("installPage"));
    m_summaryLabel->setObjectName(QStringLiteral("summaryLabel"));
    m_stepList->setObjectName(QStringLiteral("stepList"));
    m_progress->setObjectName(QStringLiteral("installProgress"));
    m_stepBusy->setObjectName(QStringLiteral("stepBusyIndicator"));
    m_currentStep->setObjectName(QStringLiteral("currentStepLabel"));
    m_log->setObjectName(QStringLiteral("installLog"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_cancelButton->setObjectName(QStringLiteral("cancelInstallButton"));
    m_retryButton->setObjectName(QStringLiteral("retryButton"));

    for (QLabel *label : {m_summaryLabel, m_statusLabel, m_currentStep}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_stepList->setSelectionMode(QAbstractItemView::NoSelection);
    m_stepList->setFocusPolicy(Qt::NoFocus);
    // Step names wrap rather than hide behind a scroll bar (they were cut off at 720 px).
    m_stepList->setWordWrap(true);
    m_stepList->setTextElideMode(Qt::ElideNone);
    m_stepList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(maxLogBlocks);
    // pip's long lines wrap: a student reads them without scrolling sideways.
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_progress->setRange(0, progressScale);
    m_stepBusy->setRange(0, 0);
    m_stepBusy->setTextVisible(false);
    m_stepBusy->setMaximumWidth(80);
    m_stepBusy->hide();
    m_currentStep->hide();
    m_retryButton->hide();

    for (core::InstallStep step : core::allInstallSteps()) {
        Q_UNUSED(step)
        m_steps.append(StepState::Pending);
        m_stepList->addItem(QString());
    }

    connect(m_installer, &core::Installer::stepStarted, this,
            [this](core::InstallStep step, const QString &) { onStepStarted(step); });
    connect(m_installer, &core::Installer::stepFinished, this, &InstallPage::onStepFinished);
    connect(m_installer, &core::Installer::logLine, this, &InstallPage::appendLog);
    connect(m_installer, &core::Installer::progress, this, [this](qint64 done, qint64 total) {
        if (total > 0)
            setFraction(double(std::min(done, total)) / double(total));
    });
    connect(m_cancelButton, &QPushButton::clicked, this, &InstallPage::cancelInstall);
    connect(m_retryButton, &QPushButton::clicked, this, &InstallPage::startInstall);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_stepList);
    splitter->addWidget(m_log);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_stepBusy);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_retryButton);
    buttons->addWidget(m_cancelButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summaryLabel);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_currentStep);
    layout->addLayout(buttons);
    layout->addWidget(m_statusLabel);

    retranslate();
    updateStatus();
}

InstallPage::~InstallPage()
{
    // A running install still uses the installer: cancel it and let the install's coroutine
    // delete it when it has unwound (it finds the page gone).
    if (m_running)
        m_installer->cancel();
    else
        delete m_installer;
}

InstallPage::StepState InstallPage::stepState(core::InstallStep step) const
{
    const int index = int(core::allInstallSteps().indexOf(step));
    return index >= 0 && index < m_steps.size() ? m_steps.at(index) : StepState::Pending;
}

void InstallPage::initializePage()
{
    if (m_running)
        return;
    // The same spec is not built twice: coming back after a finished install keeps it.
    if (m_outcome && m_state.installed())
        return;
    startInstall();
}

void InstallPage::cleanupPage()
{
    // Back during an install stops it; the previous environment (if any) stays as it was.
    if (m_running)
        cancelInstall();
}

bool InstallPage::isComplete() const
{
    return !m_running && m_outcome.has_value();
}

void InstallPage::startInstall()
{
    if (m_running)
        return;
    m_error.reset();
    m_outcome.reset();
    m_cancelled = false;
    m_state.setInstalled(std::nullopt);
    m_state.setVerified(std::nullopt);
    for (int i = 0; i < m_steps.size(); ++i)
        setStep(core::allInstallSteps().at(i), StepState::Pending);
    m_current = -1;
    m_fraction = 0;
    m_pipLines = 0;
    m_shown = 0;
    m_progress->setValue(0);
    m_log->clear();

    if (!m_state.plan() || !m_state.artifacts() || !m_state.hardware()) {
        m_error = core::Error{QStringLiteral("not_ready"),
                              tr("Choose a plan and its options first: go back to those steps."), {}};
        updateStatus();
        Q_EMIT finished(false);
        return;
    }
    auto base = core::SetupFlow::baseSpec(*m_state.plan(), m_state.options(), *m_state.hardware(), &*m_state.artifacts());
    auto spec = base ? core::SetupFlow::completeSpec(*base, *m_state.artifacts(), m_state.lock(), m_state.downloaded(),
                                                     m_state.options())
                     : base;
    if (!spec) {
        m_error = spec.error();
        updateStatus();
        Q_EMIT finished(false);
        return;
    }
    spec->gpus = m_state.gpus();
    // Without a lock (python.org's installer brings the Python), the install locks with it.
    core::SetupOptions options = m_state.options();
    options.knowledge = m_state.knowledgeOrNull();
    m_installer->setPackageLocker(spec->lock.packages.isEmpty() ? m_state.pipeline().lateLocker(options, *spec)
                                                                : core::Installer::PackageLocker());
    m_summaryLabel->setText(tr("Creating %1 with TensorFlow %2.")
                                .arg(QDir::toNativeSeparators(spec->environmentPath()), spec->tensorflow));
    m_running = true;
    updateStatus();
    Q_EMIT completeChanged();
    runInstall(this, m_installer, std::move(*spec));
}

void InstallPage::cancelInstall()
{
    if (!m_running)
        return;
    m_cancelled = true;
    m_installer->cancel();
    m_cancelButton->setEnabled(false);
    m_statusLabel->setText(tr("Stopping… the install undoes what it did so far."));
    m_statusLabel->show();
}

QCoro::Task<> InstallPage::runInstall(QPointer<InstallPage> page, core::Installer *installer, core::InstallSpec spec)
{
    auto result = co_await installer->install(std::move(spec));
    if (!page) {
        delete installer;
        co_return;
    }
    page->finishInstall(std::move(result));
}

void InstallPage::finishInstall(core::Result<core::InstallOutcome> result)
{
    m_running = false;
    if (result) {
        m_outcome = *result;
        m_state.setInstalled(*result);
        // Listed on the Welcome page and by `tfsetup list`, wherever it was installed.
        (void)core::EnvironmentIndex::add(m_state.system(), result->environmentPath);
        for (int i = 0; i < m_steps.size(); ++i) {
            if (m_steps.at(i) == StepState::Running)
                setStep(core::allInstallSteps().at(i), StepState::Done);
        }
        m_shown = progressScale;
        m_progress->setValue(progressScale);
    } else {
        m_error = result.error();
        for (int i = 0; i < m_steps.size(); ++i) {
            if (m_steps.at(i) == StepState::Running)
                setStep(core::allInstallSteps().at(i), StepState::Failed);
        }
        qWarning().noquote() << "Install failed:" << result.error().code << result.error().message
                             << result.error().detail;
    }
    updateStatus();
    Q_EMIT completeChanged();
    Q_EMIT finished(result.ok());
}

void InstallPage::onStepStarted(core::InstallStep step)
{
    setStep(step, StepState::Running);
    m_current = int(core::allInstallSteps().indexOf(step));
    m_fraction = 0;
    m_pipLines = 0;
    updateProgress();
}

void InstallPage::onStepFinished(core::InstallStep step)
{
    setStep(step, StepState::Done);
    if (int(core::allInstallSteps().indexOf(step)) == m_current)
        m_fraction = 1;
    updateProgress();
}

void InstallPage::setFraction(double fraction)
{
    m_fraction = std::clamp(fraction, 0.0, 1.0);
    updateProgress();
}

void InstallPage::updateProgress()
{
    // Steps before the running one count as done, whether they ran or were not needed.
    const auto steps = core::allInstallSteps();
    int total = 0;
    double done = 0;
    for (int i = 0; i < steps.size(); ++i) {
        const int weight = stepWeight(steps.at(i));
        total += weight;
        if (i < m_current || (i < m_steps.size() && m_steps.at(i) == StepState::Done))
            done += weight;
        else if (i == m_current)
            done += weight * m_fraction;
    }
    const int value = total > 0 ? int(done * progressScale / total) : 0;
    // Within one install the bar only moves forward, even when a step's own count starts over.
    m_shown = std::max(m_shown, std::min(value, progressScale));
    m_progress->setValue(m_shown);
    m_progress->setAccessibleDescription(tr("%1 % done").arg(m_shown * 100 / progressScale));
    const bool running = m_running && m_current >= 0 && m_current < steps.size();
    m_stepBusy->setVisible(running);
    m_currentStep->setVisible(running);
    if (running)
        m_currentStep->setText(tr("Now: %1…").arg(stepText(steps.at(m_current))));
}

void InstallPage::setStep(core::InstallStep step, StepState state)
{
    const int index = int(core::allInstallSteps().indexOf(step));
    if (index < 0 || index >= m_steps.size())
        return;
    m_steps[index] = state;
    if (QListWidgetItem *item = m_stepList->item(index)) {
        item->setText(marker(state) + u' ' + stepText(step));
        QFont font = item->font();
        font.setBold(state == StepState::Running);
        item->setFont(font);
        item->setForeground(state == StepState::Pending ? palette().color(QPalette::Disabled, QPalette::Text)
                                                        : palette().color(QPalette::Text));
    }
}

void InstallPage::appendLog(const QString &rawLine)
{
    // The installer marks each step with its id ("== packages"); the student reads its name.
    QString line = rawLine;
    if (line.startsWith(QLatin1String("== "))) {
        for (core::InstallStep step : core::allInstallSteps()) {
            if (line.mid(3) == core::installStepId(step))
                line = QStringLiteral("== ") + stepText(step);
        }
    }
    if (m_running && m_current >= 0 && core::allInstallSteps().value(m_current) == core::InstallStep::Packages) {
        ++m_pipLines;
        setFraction(0.95 * m_pipLines / (m_pipLines + pipHalfwayLines));
    }
    QScrollBar *bar = m_log->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_log->appendPlainText(line);
    // Follow the output unless the student scrolled up to read.
    if (atEnd)
        bar->setValue(bar->maximum());
}

void InstallPage::updateStatus()
{
    m_cancelButton->setEnabled(m_running && !m_cancelled);
    m_cancelButton->setVisible(m_running || !m_error);
    m_retryButton->setVisible(!m_running && m_error && m_error->code != u"not_ready");
    if (!m_running) {
        m_stepBusy->hide();
        m_currentStep->hide();
    }
    QString text;
    if (m_running) {
        text = tr("Installing. This takes a few minutes; pip's output is shown on the right.");
    } else if (m_outcome) {
        text = m_outcome->unchanged ? tr("This environment was already complete; nothing needed to change.")
                                    : tr("The environment is ready. Next checks that TensorFlow works in it.");
        for (const QString &w : std::as_const(m_outcome->warnings))
            text += u'\n' + w;
    } else if (m_error) {
        if (m_error->code == u"cancelled") {
            text = tr("The install was stopped. Nothing was left behind; an environment that was there before is "
                      "unchanged. Try again starts over.");
        } else {
            text = m_error->message;
            const QString log = core::RunLog::path();
            if (!log.isEmpty())
                text += u'\n' + tr("The log file has the details: %1").arg(QDir::toNativeSeparators(log));
        }
    }
    m_statusLabel->setText(text);
    m_statusLabel->setVisible(!text.isEmpty());
}

void InstallPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        updateStatus();
    }
    QWizardPage::changeEvent(event);
}

void InstallPage::retranslate()
{
    setTitle(tr("Installing"));
    setSubTitle(tr("tfsetup builds the environment in a separate folder and moves it into place only when "
                   "everything worked."));
    m_log->setAccessibleName(tr("Install log"));
    m_stepList->setAccessibleName(tr("Install steps"));
    m_progress->setAccessibleName(tr("Install progress"));
    const auto steps = core::allInstallSteps();
    for (int i = 0; i < steps.size() && i < m_steps.size(); ++i)
        setStep(steps.at(i), m_steps.at(i));
    m_stepList->setAccessibleName(tr("Install steps"));
    m_log->setAccessibleName(tr("Install log"));
    m_cancelButton->setText(tr("&Stop install"));
    m_cancelButton->setToolTip(tr("Stops the install and removes what it made so far."));
    m_retryButton->setText(tr("&Try again"));
}

} // namespace tfsetup::ui
