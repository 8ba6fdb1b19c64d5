#include "ui/installpage.h"

#include "setup/environments.h"
#include "setup/setupflow.h"
#include "ui/pagehelpers.h"
#include "ui/wizardstate.h"
#include "util/runlog.h"
#include "util/units.h"

#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>
#include <QWizard>

namespace tfsetup::ui {

namespace {

// Keeps a runaway pip from growing the log view without end; the run log has every line.
constexpr int maxLogBlocks = 5000;

// Hashing a file is several times faster than unpacking or installing it: the Prepare step's
// bytes count for this much of theirs on the bar.
constexpr double hashShare = 0.2;
// A step that handles no bytes of its own (launchers, the record, the kernel) still takes a
// moment: this share of the install's bytes, and at least this many bytes' worth.
constexpr double smallStepShare = 0.01;
constexpr qint64 smallStepMinimum = 1024 * 1024;
// pip's "Processing" lines cover reading the wheels; unpacking them into the environment (after
// "Installing collected packages") is the rest of the Packages step.
constexpr double pipProcessingShare = 0.5;

qint64 fileBytes(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() ? info.size() : 0;
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
    , m_statusIcon(new QLabel(this))
    , m_statusLabel(new QLabel(this))
    , m_fixButton(new QPushButton(this))
    , m_detailsButton(new QToolButton(this))
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
    m_statusIcon->setObjectName(QStringLiteral("statusIcon"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_fixButton->setObjectName(QStringLiteral("fixButton"));
    m_detailsButton->setObjectName(QStringLiteral("detailsButton"));
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
    m_fixButton->hide();
    m_statusIcon->hide();
    m_log->setMinimumHeight(m_log->fontMetrics().lineSpacing() * 8);
    m_log->hide();
    m_detailsButton->setCheckable(true);
    m_detailsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detailsButton->setArrowType(Qt::RightArrow);
    m_detailsButton->setAutoRaise(true);

    for (core::InstallStep step : core::allInstallSteps()) {
        Q_UNUSED(step)
        m_steps.append(StepState::Pending);
        m_stepBytes.append(0);
        m_stepPayload.append(0);
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
    connect(m_fixButton, &QPushButton::clicked, this, &InstallPage::applyFix);
    connect(m_detailsButton, &QToolButton::toggled, this, &InstallPage::setDetailsOpen);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_stepBusy);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_retryButton);
    buttons->addWidget(m_cancelButton);

    // The one status area: an icon, the message (it replaces the last), the one fix.
    auto *status = new QHBoxLayout;
    status->addWidget(m_statusIcon, 0, Qt::AlignTop);
    status->addWidget(m_statusLabel, 1);
    auto *fixRow = new QHBoxLayout;
    fixRow->addWidget(m_fixButton);
    fixRow->addStretch(1);

    // Everything scrolls together: at 720×540, a long failure message and the opened details
    // never squash the step list or each other.
    auto *content = new QWidget;
    content->setObjectName(QStringLiteral("installContent"));
    auto *inner = new QVBoxLayout(content);
    inner->setContentsMargins(0, 0, 0, 0);
    inner->addWidget(m_summaryLabel);
    inner->addWidget(m_stepList, 2);
    inner->addWidget(m_currentStep);
    inner->addLayout(buttons);
    inner->addLayout(status);
    inner->addLayout(fixRow);
    inner->addWidget(m_detailsButton, 0, Qt::AlignLeft);
    inner->addWidget(m_log, 3);
    auto *scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("installScrollArea"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    m_openLog = [](const QString &path) { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); };
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
    m_pipBytes = 0;
    m_shown = 0;
    m_failure.reset();
    m_stepBytes.fill(0);
    m_stepPayload.fill(0);
    m_wheelBytes.clear();
    m_payloadBytes = 0;
    m_progress->setValue(0);
    m_progress->resetFormat();
    m_log->clear();

    if (!m_state.plan() || !m_state.artifacts() || !m_state.hardware()) {
        m_error = core::Error{
            QStringLiteral("not_ready"), tr("Choose a plan and its options first: go back to those steps."), {}};
        updateStatus();
        Q_EMIT finished(false);
        return;
    }
    auto base = core::SetupFlow::baseSpec(*m_state.plan(), m_state.options(), *m_state.hardware(),
                                          &*m_state.artifacts());
    auto spec = base ? core::SetupFlow::completeSpec(*base, *m_state.artifacts(), m_state.lock(), m_state.downloaded(),
                                                     m_state.options())
                     : base;
    if (!spec) {
        m_error = spec.error();
        readFailure();
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
    m_summaryLabel->setText(
        tr("Creating %1 with TensorFlow %2.").arg(QDir::toNativeSeparators(spec->environmentPath()), spec->tensorflow));
    // The bytes each step handles, from the verified files (a stat each, no reading). Wheels the
    // late locker chooses are not known yet: the lock's sizes stand in where it has them.
    {
        using S = core::InstallStep;
        const auto steps = core::allInstallSteps();
        const auto at = [&steps](S step) { return int(steps.indexOf(step)); };
        qint64 archives = 0, python = 0, wheels = 0;
        for (const core::InstallArtifact &a : std::as_const(spec->artifacts)) {
            const qint64 bytes = fileBytes(a.path);
            if (a.isArchive())
                archives += bytes;
            else if (a.kind == u"python-archive" || a.kind == u"python-installer")
                python += bytes;
            else if (a.kind == u"wheel") {
                wheels += bytes;
                m_wheelBytes.insert(QFileInfo(a.path).fileName(), bytes);
            }
        }
        if (wheels == 0) {
            for (const core::LockedWheel &w : std::as_const(spec->lock.packages)) {
                if (w.size > 0) {
                    wheels += w.size;
                    m_wheelBytes.insert(w.file, w.size);
                }
            }
        }
        m_payloadBytes = archives + python + wheels;
        m_stepPayload.fill(0);
        m_stepPayload[at(S::Extract)] = archives;
        m_stepPayload[at(S::Python)] = python;
        m_stepPayload[at(S::Packages)] = wheels;
        m_stepBytes[at(S::Prepare)] = qint64(double(archives + python + wheels) * hashShare);
        m_stepBytes[at(S::Extract)] = archives;
        m_stepBytes[at(S::Python)] = python;
        m_stepBytes[at(S::Packages)] = wheels;
        const qint64 small = std::max(smallStepMinimum, qint64(double(m_payloadBytes) * smallStepShare));
        for (qint64 &bytes : m_stepBytes)
            bytes = std::max(bytes, small);
    }
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
        readFailure();
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
    double total = 0;
    double done = 0;
    for (int i = 0; i < steps.size() && i < m_stepBytes.size(); ++i) {
        const double bytes = double(m_stepBytes.at(i));
        total += bytes;
        if (i < m_current || (i < m_steps.size() && m_steps.at(i) == StepState::Done))
            done += bytes;
        else if (i == m_current)
            done += bytes * m_fraction;
    }
    const int value = total > 0 ? int(done * progressScale / total) : 0;
    // Within one install the bar only moves forward, even when a step's own count starts over.
    m_shown = std::max(m_shown, std::min(value, progressScale));
    m_progress->setValue(m_shown);
    const QLocale locale;
    // What has been unpacked and installed of what the install brings: the student's "x of y".
    qint64 payloadDone = 0;
    for (core::InstallStep s : {core::InstallStep::Extract, core::InstallStep::Python, core::InstallStep::Packages}) {
        const int i = int(steps.indexOf(s));
        const qint64 payload = m_stepPayload.value(i);
        if (i < m_current || m_steps.at(i) == StepState::Done)
            payloadDone += payload;
        else if (i == m_current)
            payloadDone += s == core::InstallStep::Packages ? std::min(m_pipBytes, payload)
                                                            : qint64(double(payload) * m_fraction);
    }
    payloadDone = std::min(payloadDone, m_payloadBytes);
    const QString bytesText = m_payloadBytes > 0
        ? tr("%1 of %2").arg(core::Units::dataSize(payloadDone), core::Units::dataSize(m_payloadBytes))
        : QString();
    const QString percent = tr("%1 %").arg(locale.toString(m_shown * 100 / progressScale));
    // '%' in the bar's format is QProgressBar's own placeholder.
    m_progress->setFormat(bytesText.isEmpty() ? QString(percent).replace(u'%', QStringLiteral("%%"))
                                              : QString(bytesText).replace(u'%', QStringLiteral("%%")));
    m_progress->setAccessibleDescription(bytesText.isEmpty() ? tr("%1 done").arg(percent)
                                                             : tr("%1 done, %2").arg(percent, bytesText));
    const bool running = m_running && m_current >= 0 && m_current < steps.size();
    m_stepBusy->setVisible(running);
    m_currentStep->setVisible(running);
    if (running) {
        const QString now = tr("Now: %1…").arg(stepText(steps.at(m_current)));
        m_currentStep->setText(bytesText.isEmpty() ? now : tr("%1 (%2 done)").arg(now, bytesText));
    }
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
        // "Processing ./.wheels/tensorflow-2.15.1-….whl": that wheel's bytes are read.
        static const QRegularExpression processing(QStringLiteral("^\\s*Processing \\S*?([^/\\\\\\s]+\\.whl)"));
        const qint64 wheels = m_stepPayload.value(m_current);
        if (const auto m = processing.match(line); m.hasMatch() && wheels > 0)
            m_pipBytes = std::min(wheels, m_pipBytes + m_wheelBytes.value(m.captured(1)));
        double fraction = wheels > 0 ? pipProcessingShare * double(m_pipBytes) / double(wheels) : 0;
        if (line.startsWith(QLatin1String("Installing collected packages")))
            fraction = pipProcessingShare;
        // Without sizes (or while pip unpacks), its lines move the bar on, never quite to the end.
        fraction = std::max(fraction, 0.95 * m_pipLines / (m_pipLines + pipHalfwayLines));
        setFraction(std::max(fraction, m_fraction));
    }
    QScrollBar *bar = m_log->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_log->appendPlainText(line);
    // Follow the output unless the student scrolled up to read.
    if (atEnd)
        bar->setValue(bar->maximum());
}

QString InstallPage::platformText() const
{
    const core::SystemView &system = m_state.system();
    const QString os = system.os() == core::OsFamily::Windows ? tr("Windows") : tr("Linux");
    QString arch = system.arch();
    arch.replace(u'_', u'-');
    return arch.isEmpty() ? os : tr("%1 %2", "operating system, processor").arg(os, arch);
}

void InstallPage::readFailure()
{
    m_failure.reset();
    if (!m_error || m_error->code == u"cancelled" || m_error->code == u"not_ready")
        return;
    core::PipFailureContext context;
    context.python = m_state.plan() ? m_state.plan()->python : QString();
    context.platform = platformText();
    core::PipFailure failure = core::PipFailureReader::builtin().read(*m_error, context);
    if (failure.cause == core::PipCause::Unknown) {
        // Not one of pip's causes: the step's own words stand, and the log is the way on.
        failure.message = m_error->message;
    } else if (failure.rule.isEmpty() && !m_error->message.isEmpty()) {
        // tfsetup classified it itself (the network, the disk) and said so precisely.
        failure.message = m_error->message;
    }
    // A lab profile pins the plan: the lab's mirror is what can change.
    if (failure.fix == core::PipFix::ChoosePlan && m_state.mode() == WizardState::Mode::LabProfile)
        failure.fix = core::PipFix::ChooseMirror;
    m_failure = std::move(failure);
    // pip's own words, for the Details: the step's log has them as they came; a failure found
    // outside the steps (choosing the packages) brings them in its detail.
    const QString detail = m_error->detail.trimmed();
    if (!detail.isEmpty() && !m_log->toPlainText().contains(detail.section(u'\n', -1).trimmed())) {
        m_log->appendPlainText(QStringLiteral("== ") + tr("What failed"));
        m_log->appendPlainText(detail);
    }
    const QString log = core::RunLog::path();
    if (!log.isEmpty())
        m_log->appendPlainText(tr("The log file: %1").arg(QDir::toNativeSeparators(log)));
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
    QStyle::StandardPixmap icon = QStyle::SP_CustomBase;
    std::optional<core::PipFix> fix;
    if (m_running) {
        text = tr("Installing. This takes a few minutes; Details shows pip's output as it comes.");
    } else if (m_outcome) {
        text = m_outcome->unchanged ? tr("This environment was already complete; nothing needed to change.")
                                    : tr("The environment is ready. Next checks that TensorFlow works in it.");
        for (const QString &w : std::as_const(m_outcome->warnings))
            text += u'\n' + w;
        icon = m_outcome->warnings.isEmpty() ? QStyle::SP_DialogApplyButton : QStyle::SP_MessageBoxWarning;
    } else if (m_error) {
        if (m_error->code == u"cancelled") {
            text = tr("The install was stopped. Nothing was left behind; an environment that was there before is "
                      "unchanged. Try again starts over.");
            icon = QStyle::SP_MessageBoxWarning;
        } else if (m_failure) {
            text = m_failure->message;
            icon = QStyle::SP_MessageBoxCritical;
            // Try again is the page's own retry button: not a second one.
            if (m_failure->fix != core::PipFix::TryAgain
                && (m_failure->fix != core::PipFix::OpenLog || !core::RunLog::path().isEmpty()))
                fix = m_failure->fix;
        } else {
            text = m_error->message;
            icon = QStyle::SP_MessageBoxCritical;
        }
    }
    m_statusLabel->setText(text);
    m_statusLabel->setVisible(!text.isEmpty());
    m_statusIcon->setVisible(icon != QStyle::SP_CustomBase);
    if (icon != QStyle::SP_CustomBase) {
        const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
        m_statusIcon->setPixmap(style()->standardIcon(icon, nullptr, this).pixmap(size, size));
    }
    m_fixButton->setVisible(fix.has_value());
    if (fix)
        m_fixButton->setText(core::PipFailureReader::fixLabel(*fix));
}

void InstallPage::setDetailsOpen(bool open)
{
    m_detailsButton->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    m_log->setVisible(open);
    if (open) {
        QScrollBar *bar = m_log->verticalScrollBar();
        bar->setValue(bar->maximum());
    }
}

bool InstallPage::goBackTo(const QString &pageName, const QString &field)
{
    QWizard *w = wizard();
    if (!w)
        return false;
    // Back through the pages the student came by, as the Back button would, until that page.
    while (w->currentPage() && w->currentPage()->objectName() != pageName) {
        const int before = w->currentId();
        w->back();
        if (w->currentId() == before)
            return false;
    }
    if (!w->currentPage())
        return false;
    if (QWidget *f = w->currentPage()->findChild<QWidget *>(field); f && !field.isEmpty())
        f->setFocus(Qt::OtherFocusReason);
    return true;
}

void InstallPage::applyFix()
{
    if (!m_failure || m_running)
        return;
    const core::PipFix fix = m_failure->fix;
    Q_EMIT fixRequested(fix);
    switch (fix) {
    case core::PipFix::SetProxy: goBackTo(QStringLiteral("optionsPage"), QStringLiteral("proxyEdit")); break;
    case core::PipFix::ChooseMirror: goBackTo(QStringLiteral("optionsPage"), QStringLiteral("pypiMirrorCombo")); break;
    case core::PipFix::UseBundle: goBackTo(QStringLiteral("optionsPage"), QStringLiteral("bundleEdit")); break;
    case core::PipFix::ChooseFolder: goBackTo(QStringLiteral("optionsPage"), QStringLiteral("folderEdit")); break;
    case core::PipFix::ChoosePlan: goBackTo(QStringLiteral("choosePage"), {}); break;
    case core::PipFix::TryAgain: startInstall(); break;
    case core::PipFix::OpenLog:
        if (const QString log = core::RunLog::path(); !log.isEmpty() && m_openLog)
            m_openLog(log);
        break;
    }
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
    m_detailsButton->setText(tr("&Details"));
    m_detailsButton->setToolTip(tr("Shows what the install and pip printed."));
    m_statusIcon->setAccessibleName(tr("Status"));
    if (auto *scroll = findChild<QScrollArea *>(QStringLiteral("installScrollArea")))
        scroll->setAccessibleName(tr("Install"));
}

} // namespace tfsetup::ui
