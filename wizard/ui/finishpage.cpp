#include "ui/finishpage.h"

#include "ui/verifypage.h"
#include "ui/wizardstate.h"

#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QStandardPaths>
#include <QStyle>
#include <QVBoxLayout>

namespace tfsetup::ui {

FinishPage::FinishPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_launch([](const QString &program, const QStringList &arguments, const QString &workingDirectory) {
        return QProcess::startDetached(program, arguments, workingDirectory);
    })
    , m_find([](const QString &name) { return QStandardPaths::findExecutable(name); })
    , m_statusIcon(new QLabel(this))
    , m_statusLabel(new QLabel(this))
    , m_scroll(new QScrollArea(this))
    , m_pathLabel(new QLabel(this))
    , m_howLabel(new QLabel(this))
    , m_launchersLabel(new QLabel(this))
    , m_messageLabel(new QLabel(this))
    , m_shellButton(new QPushButton(this))
    , m_jupyterButton(new QPushButton(this))
    , m_copyButton(new QPushButton(this))
    , m_repairButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("finishPage"));
    m_statusIcon->setObjectName(QStringLiteral("statusIcon"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_pathLabel->setObjectName(QStringLiteral("environmentPathLabel"));
    m_howLabel->setObjectName(QStringLiteral("howLabel"));
    m_launchersLabel->setObjectName(QStringLiteral("launchersLabel"));
    m_messageLabel->setObjectName(QStringLiteral("messageLabel"));
    m_shellButton->setObjectName(QStringLiteral("openShellButton"));
    m_jupyterButton->setObjectName(QStringLiteral("openJupyterButton"));
    m_copyButton->setObjectName(QStringLiteral("copySummaryButton"));
    m_repairButton->setObjectName(QStringLiteral("repairNowButton"));
    m_scroll->setObjectName(QStringLiteral("finishScroll"));

    for (QLabel *label : {m_statusLabel, m_pathLabel, m_howLabel, m_launchersLabel, m_messageLabel}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    QFont bold = m_statusLabel->font();
    bold.setBold(true);
    m_statusLabel->setFont(bold);
    m_messageLabel->hide();

    connect(m_shellButton, &QPushButton::clicked, this, &FinishPage::openShell);
    connect(m_jupyterButton, &QPushButton::clicked, this, &FinishPage::openJupyter);
    connect(m_copyButton, &QPushButton::clicked, this, &FinishPage::copySummary);
    connect(m_repairButton, &QPushButton::clicked, this, &FinishPage::requestRepair);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_shellButton);
    buttons->addWidget(m_jupyterButton);
    buttons->addWidget(m_copyButton);
    buttons->addStretch(1);

    auto *repairRow = new QHBoxLayout;
    repairRow->addWidget(m_repairButton);
    repairRow->addStretch(1);

    // Folders and launchers are long on Windows and in large fonts: they scroll, the buttons stay.
    auto *details = new QWidget;
    details->setObjectName(QStringLiteral("finishDetails"));
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_pathLabel);
    detailsLayout->addWidget(m_howLabel);
    detailsLayout->addWidget(m_launchersLabel);
    detailsLayout->addStretch(1);
    m_pathLabel->setParent(details);
    m_howLabel->setParent(details);
    m_launchersLabel->setParent(details);
    m_scroll->setWidget(details);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto *statusRow = new QHBoxLayout;
    statusRow->addWidget(m_statusIcon, 0, Qt::AlignTop);
    statusRow->addWidget(m_statusLabel, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(statusRow);
    layout->addLayout(repairRow);
    layout->addWidget(m_scroll, 1);
    layout->addLayout(buttons);
    layout->addWidget(m_messageLabel);

    retranslate();
    showState();
}

FinishPage::~FinishPage() = default;

QString FinishPage::launcherFor(const QStringList &launchers, const QString &kind, core::OsFamily os)
{
    // .bat before .ps1: PowerShell's execution policy blocks scripts on many student machines.
    const QStringList suffixes = os == core::OsFamily::Windows
        ? QStringList{QStringLiteral(".bat"), QStringLiteral(".ps1")}
        : QStringList{QStringLiteral(".sh"), QString()};
    for (const QString &suffix : suffixes) {
        for (const QString &path : launchers) {
            if (QFileInfo(path).fileName().compare(kind + suffix, Qt::CaseInsensitive) == 0)
                return path;
        }
    }
    return {};
}

std::optional<FinishPage::Command> FinishPage::terminalCommand(core::OsFamily os, const QString &hostLauncher,
                                                               const FindProgram &find)
{
    if (os == core::OsFamily::Windows) {
        // A detached console program gets its own console window; /k keeps it open afterwards.
        return Command{QStringLiteral("cmd.exe"), {QStringLiteral("/k"), QDir::toNativeSeparators(hostLauncher)}};
    }
    if (os == core::OsFamily::MacOS)
        return Command{QStringLiteral("open"), {QStringLiteral("-a"), QStringLiteral("Terminal"), hostLauncher}};
    // Debian's alternatives entry first (the desktop's chosen terminal), then common terminals
    // with their own way of saying "run this".
    const QList<std::pair<QString, QString>> terminals{
        {QStringLiteral("x-terminal-emulator"), QStringLiteral("-e")},
        {QStringLiteral("gnome-terminal"), QStringLiteral("--")},
        {QStringLiteral("konsole"), QStringLiteral("-e")},
        {QStringLiteral("xfce4-terminal"), QStringLiteral("-x")},
        {QStringLiteral("xterm"), QStringLiteral("-e")},
    };
    for (const auto &[name, flag] : terminals) {
        const QString program = find(name);
        if (!program.isEmpty())
            return Command{program, {flag, hostLauncher}};
    }
    return std::nullopt;
}

void FinishPage::initializePage()
{
    m_message.clear();
    showState();
}

void FinishPage::openShell()
{
    open(QStringLiteral("shell"));
}

void FinishPage::openJupyter()
{
    open(QStringLiteral("start-jupyter"));
}

void FinishPage::open(const QString &kind)
{
    const auto &installed = m_state.installed();
    if (!installed)
        return;
    core::SystemView &system = m_state.system();
    const QString launcher = launcherFor(installed->launchers, kind, system.os());
    if (launcher.isEmpty()) {
        m_message = tr("This environment has no such launcher. Run tfsetup again to repair it.");
    } else {
        const QString host = system.hostPath(launcher);
        const auto command = terminalCommand(system.os(), host, m_find);
        if (!command) {
            m_message = tr("No terminal program was found. Open a terminal yourself and run:\n%1")
                            .arg(QDir::toNativeSeparators(host));
        } else if (!m_launch(command->program, command->arguments, system.hostPath(installed->environmentPath))) {
            m_message = tr("%1 could not be started. Open a terminal yourself and run:\n%2")
                            .arg(command->program, QDir::toNativeSeparators(host));
        } else {
            m_message.clear();
            qInfo().noquote() << "Started" << command->program << command->arguments.join(u' ');
        }
    }
    showState();
}

void FinishPage::copySummary()
{
    const auto &installed = m_state.installed();
    if (!installed)
        return;
    QGuiApplication::clipboard()->setText(installed->summary);
    m_message = tr("The environment summary is on the clipboard. Paste it into a help request or a lab report.");
    showState();
}

void FinishPage::requestRepair()
{
    if (const auto &installed = m_state.installed())
        Q_EMIT repairRequested(installed->environmentPath);
}

void FinishPage::showState()
{
    const auto &installed = m_state.installed();
    const auto &verified = m_state.verified();
    QString status;
    const bool failed = installed && verified && !verified->passed();
    if (!installed) {
        status = tr("No environment was made.");
    } else if (verified && verified->passed()) {
        status = tr("Done: TensorFlow works in your new environment.");
    } else if (failed) {
        const core::VerifyLayer *first = verified->firstFailure();
        // Only a GPU route probes the GPU libraries.
        const bool expectGpu = verified->layer(QStringLiteral("libraries")) != nullptr;
        status = first ? tr("The environment is installed, but the check failed: %1 Repair now finds the cause and "
                            "puts back what it can.")
                             .arg(VerifyPage::plainFailure(*first, expectGpu))
                       : tr("The environment is installed, but the check failed. Repair now finds the cause and "
                            "puts back what it can.");
    } else {
        status = tr("The environment is installed. It was not checked.");
    }
    m_statusLabel->setText(status);
    const QStyle::StandardPixmap icon = !installed ? QStyle::SP_MessageBoxWarning
        : failed                                   ? QStyle::SP_MessageBoxCritical
        : verified                                 ? QStyle::SP_DialogApplyButton
                                                   : QStyle::SP_MessageBoxInformation;
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_statusIcon->setPixmap(style()->standardIcon(icon).pixmap(size, size));
    m_repairButton->setVisible(failed);
    retranslate();

    const bool have = installed.has_value();
    if (have) {
        const core::OsFamily os = m_state.system().os();
        m_pathLabel->setText(tr("Folder: %1").arg(QDir::toNativeSeparators(installed->environmentPath)));
        QStringList lines;
        for (const QString &l : installed->launchers)
            lines.append(QDir::toNativeSeparators(l));
        m_launchersLabel->setText(tr("Launchers:") + u'\n' + lines.join(u'\n'));
        const QString python = launcherFor(installed->launchers, QStringLiteral("start-python"), os);
        m_howLabel->setText(
            tr("To use it, start Python with %1, open a terminal with the environment below, or pick \"%2\" as the "
               "kernel in Jupyter.")
                .arg(QFileInfo(python).fileName(), installed->environmentPath.section(u'/', -1)));
        m_shellButton->setEnabled(!launcherFor(installed->launchers, QStringLiteral("shell"), os).isEmpty());
        // Without a front end start-jupyter could only say that none is installed.
        const bool jupyter = m_state.mode() != WizardState::Mode::NewEnvironment || m_state.options().jupyter;
        m_jupyterButton->setEnabled(
            jupyter && !launcherFor(installed->launchers, QStringLiteral("start-jupyter"), os).isEmpty());
        m_jupyterButton->setToolTip(jupyter ? tr("Starts JupyterLab (or the Jupyter Notebook the environment has) "
                                                 "in a terminal window; close that window to stop it.")
                                            : tr("Jupyter was not chosen on the Options page. The environment's "
                                                 "kernel still works in a Jupyter started elsewhere."));
        m_copyButton->setEnabled(!installed->summary.isEmpty());
    }
    // The scroll area stays: it holds the page's height, so the status line stays at the top.
    for (QWidget *w : std::initializer_list<QWidget *>{m_pathLabel, m_howLabel, m_launchersLabel, m_shellButton,
                                                       m_jupyterButton, m_copyButton})
        w->setVisible(have);
    m_messageLabel->setText(m_message);
    m_messageLabel->setVisible(!m_message.isEmpty());
}

void FinishPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        showState();
    }
    QWizardPage::changeEvent(event);
}

void FinishPage::retranslate()
{
    const auto &installed = m_state.installed();
    const auto &verified = m_state.verified();
    if (!installed) {
        setTitle(tr("Nothing was installed"));
        setSubTitle(tr("Go back to choose what to install, or close the wizard."));
    } else if (verified && verified->passed()) {
        setTitle(tr("Ready"));
        setSubTitle(tr("TensorFlow works. How to start working with it:"));
    } else if (verified) {
        setTitle(tr("Installed, but the check failed"));
        setSubTitle(tr("TensorFlow does not work in the new environment yet. Repair it now, or start it anyway to "
                       "see for yourself."));
    } else {
        setTitle(tr("Installed"));
        setSubTitle(tr("How to start working with TensorFlow."));
    }
    m_shellButton->setText(tr("Open a &terminal"));
    m_shellButton->setToolTip(tr("A terminal window where python and pip are the environment's own."));
    m_jupyterButton->setText(tr("Start &Jupyter"));
    m_copyButton->setText(tr("&Copy summary"));
    m_copyButton->setToolTip(tr("Copies ENVIRONMENT.md: versions, folders and launchers, for help requests."));
    m_scroll->setAccessibleName(tr("The environment's folder and launchers"));
    m_repairButton->setText(tr("&Repair now"));
    m_repairButton->setIcon(style()->standardIcon(QStyle::SP_MessageBoxCritical));
    m_repairButton->setToolTip(tr("Opens the Repair page on this environment: it finds the cause and puts back "
                                  "what it can."));
}

} // namespace tfsetup::ui
