#include "ui/upgradedialog.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace tfsetup::ui {

UpgradeDialog::UpgradeDialog(core::SystemView &system, core::UpgradeRequest request, QWidget *parent)
    : QDialog(parent)
    , m_request(std::move(request))
    , m_upgrader(new core::Upgrader(system, this))
    , m_summary(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
    , m_progress(new QProgressBar(this))
    , m_buttons(new QDialogButtonBox(this))
    , m_upgradeButton(m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole))
    , m_closeButton(m_buttons->addButton(QString(), QDialogButtonBox::RejectRole))
{
    setObjectName(QStringLiteral("upgradeDialog"));
    m_summary->setObjectName(QStringLiteral("upgradeSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setTextFormat(Qt::PlainText);
    m_log->setObjectName(QStringLiteral("upgradeLog"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->hide();
    m_progress->setObjectName(QStringLiteral("upgradeProgress"));
    m_progress->setRange(0, 0);
    m_progress->hide();
    m_upgradeButton->setObjectName(QStringLiteral("upgradeStart"));
    m_upgradeButton->setEnabled(false);
    m_closeButton->setObjectName(QStringLiteral("upgradeClose"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_progress);
    layout->addWidget(m_log, 1);
    layout->addWidget(m_buttons);

    // The accept role would close the dialog; the upgrade keeps it open.
    disconnect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_upgradeButton, &QPushButton::clicked, this, [this] { upgrade(); });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &UpgradeDialog::reject);
    connect(m_upgrader, &core::Upgrader::message, this, &UpgradeDialog::appendLine);
    connect(m_upgrader, &core::Upgrader::logLine, this, &UpgradeDialog::appendLine);
    connect(m_upgrader, &core::Upgrader::stepStarted, this,
            [this](core::InstallStep, const QString &title) { appendLine(title); });
    const auto showProgress = [this](qint64 done, qint64 total) {
        // Bytes can exceed an int: the bar shows per mille.
        if (total <= 0) {
            m_progress->setRange(0, 0);
            return;
        }
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(std::min<qint64>(1000, done * 1000 / total)));
    };
    connect(m_upgrader, &core::Upgrader::downloadProgress, this, showProgress);
    connect(m_upgrader, &core::Upgrader::progress, this, showProgress);
    retranslate();
    resize(640, 420);
}

UpgradeDialog::~UpgradeDialog() = default;

void UpgradeDialog::start()
{
    if (m_started)
        return;
    m_started = true;
    propose();
}

void UpgradeDialog::reject()
{
    if (m_running) {
        // The Upgrader stops at its next check; the environment stays as it was, and the
        // dialog closes when the running step has ended.
        m_closeWhenDone = true;
        m_closeButton->setEnabled(false);
        m_upgrader->cancel();
        appendLine(tr("Stopping…"));
        return;
    }
    QDialog::reject();
}

void UpgradeDialog::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QDialog::changeEvent(event);
}

void UpgradeDialog::retranslate()
{
    const QString name = QFileInfo(m_request.environmentPath).fileName();
    setWindowTitle(tr("Upgrade %1").arg(name));
    m_upgradeButton->setText(tr("&Upgrade"));
    m_closeButton->setText(m_running ? tr("&Cancel") : tr("&Close"));
    if (!m_started)
        m_summary->setText(tr("Looking for a newer TensorFlow for %1…").arg(name));
}

void UpgradeDialog::setRunning(bool running)
{
    m_running = running;
    m_progress->setVisible(running);
    m_closeButton->setEnabled(true);
    retranslate();
}

void UpgradeDialog::appendLine(const QString &line)
{
    if (line.trimmed().isEmpty())
        return;
    m_log->show();
    m_log->appendPlainText(line.trimmed());
}

QCoro::Task<> UpgradeDialog::propose()
{
    QPointer<UpgradeDialog> self(this);
    m_summary->setText(
        tr("Looking for a newer TensorFlow for %1…").arg(QFileInfo(m_request.environmentPath).fileName()));
    setRunning(true);
    auto proposal = co_await m_upgrader->propose(m_request);
    if (!self)
        co_return;
    setRunning(false);
    if (!proposal) {
        m_summary->setText(proposal.error().message);
        Q_EMIT stepDone(false);
    } else {
        m_proposal = std::move(*proposal);
        m_summary->setText(m_proposal->text().trimmed());
        m_upgradeButton->setEnabled(m_proposal->canUpgrade());
        m_upgradeButton->setVisible(m_proposal->canUpgrade());
        Q_EMIT stepDone(true);
    }
    if (m_closeWhenDone)
        QDialog::reject();
}

QCoro::Task<> UpgradeDialog::upgrade()
{
    if (m_running || !m_proposal || !m_proposal->canUpgrade())
        co_return;
    QPointer<UpgradeDialog> self(this);
    m_upgradeButton->setEnabled(false);
    m_log->clear();
    setRunning(true);
    auto outcome = co_await m_upgrader->upgrade(*m_proposal, m_request);
    if (!self)
        co_return;
    setRunning(false);
    m_upgradeButton->hide();
    if (!outcome) {
        m_summary->setText(outcome.error().message + u'\n' + tr("The environment is as it was before the upgrade."));
        Q_EMIT environmentChanged();
        Q_EMIT stepDone(false);
    } else {
        m_upgraded = true;
        m_summary->setText(outcome->text().trimmed());
        Q_EMIT environmentChanged();
        Q_EMIT stepDone(outcome->passed());
    }
    if (m_closeWhenDone)
        QDialog::reject();
}

} // namespace tfsetup::ui
