#include "ui/verifypage.h"

#include "install/environments.h"
#include "ui/wizardstate.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

QString mark(core::VerifyLayer::Status status)
{
    using S = core::VerifyLayer::Status;
    switch (status) {
    case S::Passed: return QStringLiteral("✓");
    case S::Warning: return QStringLiteral("!");
    case S::Failed: return QStringLiteral("✗");
    case S::Skipped: return QStringLiteral("–");
    }
    return {};
}

} // namespace

VerifyPage::VerifyPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_verify([](core::SystemView &system, core::VerifyRequest request, core::Catalog catalog) {
        return core::verifyEnvironment(system, std::move(request), std::move(catalog));
    })
    , m_statusLabel(new QLabel(this))
    , m_busy(new QProgressBar(this))
    , m_layers(new QTreeWidget(this))
    , m_explanationLabel(new QLabel(this))
    , m_againButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("verifyPage"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_busy->setObjectName(QStringLiteral("verifyProgress"));
    m_layers->setObjectName(QStringLiteral("layerTree"));
    m_explanationLabel->setObjectName(QStringLiteral("explanationLabel"));
    m_againButton->setObjectName(QStringLiteral("verifyAgainButton"));

    for (QLabel *label : {m_statusLabel, m_explanationLabel}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_explanationLabel->setFrameShape(QFrame::StyledPanel);
    m_explanationLabel->setMargin(6);
    m_explanationLabel->hide();
    m_busy->setRange(0, 0);
    m_busy->hide();
    m_layers->setColumnCount(2);
    m_layers->setRootIsDecorated(true);
    m_layers->setSelectionMode(QAbstractItemView::NoSelection);
    m_layers->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_layers->header()->setStretchLastSection(true);
    m_layers->setWordWrap(true);

    connect(m_againButton, &QPushButton::clicked, this, &VerifyPage::startVerify);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_busy, 1);
    buttons->addStretch();
    buttons->addWidget(m_againButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_layers, 1);
    layout->addWidget(m_explanationLabel);
    layout->addLayout(buttons);

    retranslate();
}

VerifyPage::~VerifyPage() = default;

void VerifyPage::initializePage()
{
    if (!m_running && !(m_report && m_state.verified()))
        startVerify();
}

bool VerifyPage::isComplete() const
{
    return !m_running && (m_report.has_value() || !m_failure.isEmpty());
}

void VerifyPage::startVerify()
{
    if (m_running)
        return;
    m_report.reset();
    m_failure.clear();
    m_state.setVerified(std::nullopt);
    if (!m_state.installed()) {
        fail(tr("There is no environment to check yet: go back to the install step."));
        return;
    }
    core::SystemView &system = m_state.system();
    auto environment = core::EnvironmentInfo::read(system, m_state.installed()->environmentPath);
    if (!environment) {
        fail(environment.error().message);
        return;
    }
    const auto &knowledge = m_state.knowledge();
    if (!knowledge) {
        fail(knowledge.error().message);
        return;
    }
    const core::Catalog &catalog = (*knowledge)->catalog;
    core::VerifyRequest request = core::VerifyRequest::forEnvironment(*environment, catalog);
    m_expectGpu = request.expectGpu;
    retranslate();
    request.probe = m_probe.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"),
                                                                       {QCoreApplication::applicationDirPath()})
                                      : m_probe;
    m_running = true;
    const quint64 generation = ++m_generation;
    m_busy->show();
    m_againButton->setEnabled(false);
    showReport();
    Q_EMIT completeChanged();
    runVerify(this, m_verify, &system, std::move(request), catalog, generation);
}

QCoro::Task<> VerifyPage::runVerify(QPointer<VerifyPage> page, VerifyFunction verify, core::SystemView *system,
                                    core::VerifyRequest request, core::Catalog catalog, quint64 generation)
{
    core::VerifyReport report = co_await verify(*system, std::move(request), std::move(catalog));
    if (!page)
        co_return;
    page->finishVerify(generation, std::move(report));
}

void VerifyPage::finishVerify(quint64 generation, core::VerifyReport report)
{
    if (generation != m_generation)
        return;
    m_running = false;
    m_busy->hide();
    m_againButton->setEnabled(true);
    m_report = std::move(report);
    m_state.setVerified(*m_report);
    qInfo().noquote() << "Verify:" << m_report->text();
    // Kept beside the record for the Welcome page's list and `tfsetup list`.
    if (m_state.installed()) {
        const QString host = m_state.system().hostPath(m_state.installed()->environmentPath);
        if (const auto kept = core::recordVerifyResult(host, *m_report); !kept)
            qWarning().noquote() << "the verify result was not kept:" << kept.error().message;
    }
    showReport();
    Q_EMIT completeChanged();
    Q_EMIT finished(m_report->passed());
}

void VerifyPage::fail(const QString &message)
{
    m_failure = message;
    m_running = false;
    m_busy->hide();
    m_againButton->setEnabled(true);
    showReport();
    Q_EMIT completeChanged();
    Q_EMIT finished(false);
}

void VerifyPage::showReport()
{
    m_layers->clear();
    QString status;
    QString explanation;
    if (m_running) {
        status = m_expectGpu.value_or(true)
                     ? tr("Checking the environment: loading the libraries, importing TensorFlow and computing with "
                          "it. The first start on a new graphics card can take several minutes.")
                     : tr("Checking the environment: importing TensorFlow and computing with it on the processor.");
    } else if (!m_failure.isEmpty()) {
        status = m_failure;
    } else if (m_report) {
        for (const core::VerifyLayer &layer : std::as_const(m_report->layers)) {
            auto *item = new QTreeWidgetItem(m_layers);
            item->setText(0, mark(layer.status) + u' ' + layer.title);
            item->setText(1, layer.summary);
            item->setData(0, Qt::UserRole, layer.id);
            item->setData(0, Qt::AccessibleTextRole, QString(core::VerifyLayer::statusName(layer.status) + u' ' + layer.title));
            if (layer.failed())
                item->setForeground(0, QBrush(Qt::red));
            for (const QString &detail : layer.details) {
                auto *child = new QTreeWidgetItem(item);
                child->setText(1, detail);
                child->setToolTip(1, detail);
            }
            if (layer.failed())
                item->setExpanded(true);
        }
        if (m_report->passed()) {
            status = tr("TensorFlow works in the new environment.");
        } else {
            status = tr("The environment does not work yet.");
            if (const core::VerifyLayer *first = m_report->firstFailure())
                explanation = first->explanation;
            explanation += (explanation.isEmpty() ? QString() : QStringLiteral("\n"))
                         + tr("You can still finish; \"tfsetup doctor\" looks for the cause in more detail.");
        }
        for (const core::VerifyLayer &layer : std::as_const(m_report->layers)) {
            if (layer.status == core::VerifyLayer::Status::Warning && !layer.explanation.isEmpty())
                explanation += (explanation.isEmpty() ? QString() : QStringLiteral("\n")) + layer.explanation;
        }
    }
    m_statusLabel->setText(status);
    m_statusLabel->setVisible(!status.isEmpty());
    m_explanationLabel->setText(explanation);
    m_explanationLabel->setVisible(!explanation.isEmpty());
    m_layers->setVisible(m_report.has_value());
}

void VerifyPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        showReport();
    }
    QWizardPage::changeEvent(event);
}

void VerifyPage::retranslate()
{
    setTitle(tr("Checking"));
    if (!m_expectGpu)
        setSubTitle(tr("tfsetup starts the environment the way you will and checks each layer, up to a real "
                       "computation."));
    else if (*m_expectGpu)
        setSubTitle(tr("tfsetup starts the new environment the way you will and checks each layer, from the libraries "
                       "to a computation on the graphics card."));
    else
        setSubTitle(tr("tfsetup starts the new environment the way you will and checks that TensorFlow imports and "
                       "computes on the processor, as this plan intends."));
    m_layers->setHeaderLabels({tr("Check"), tr("Result")});
    m_layers->setAccessibleName(tr("Check results"));
    m_againButton->setText(tr("Check &again"));
}

} // namespace tfsetup::ui
