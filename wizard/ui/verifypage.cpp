#include "ui/verifypage.h"

#include "setup/environments.h"
#include "ui/statuslist.h"
#include "ui/wizardstate.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

StatusRow::Kind rowKind(core::VerifyLayer::Status status)
{
    using S = core::VerifyLayer::Status;
    switch (status) {
    case S::Passed: return StatusRow::Kind::Passed;
    case S::Warning: return StatusRow::Kind::Warning;
    case S::Failed: return StatusRow::Kind::Failed;
    case S::Skipped: return StatusRow::Kind::Skipped;
    }
    return StatusRow::Kind::Info;
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
    , m_layers(new StatusList(QStringLiteral("layer"), this))
    , m_againButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("verifyPage"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_busy->setObjectName(QStringLiteral("verifyProgress"));
    m_againButton->setObjectName(QStringLiteral("verifyAgainButton"));

    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_busy->setRange(0, 0);
    m_busy->hide();

    connect(m_againButton, &QPushButton::clicked, this, &VerifyPage::startVerify);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_busy, 1);
    buttons->addStretch();
    buttons->addWidget(m_againButton);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_layers, 1);
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
    request.probe = m_probe.isEmpty()
        ? QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"), {QCoreApplication::applicationDirPath()})
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

QString VerifyPage::plainFailure(const core::VerifyLayer &layer, bool expectGpu)
{
    const QString &cause = layer.cause;
    if (cause == u"tensorflow_not_installed")
        return tr("TensorFlow is not installed in this environment.");
    if (cause == u"timed_out")
        return tr("The check did not finish in time. The first start on a new graphics card can take many "
                  "minutes: press Check again.");
    if (cause == u"cpu_lacks_avx")
        return tr("This processor lacks an instruction set (AVX) that TensorFlow needs.");
    if (cause == u"numpy_incompatible")
        return tr("The NumPy in this environment does not fit this TensorFlow.");
    if (cause == u"import_dll_failed")
        return tr("Windows could not load a library TensorFlow needs; the Microsoft Visual C++ Redistributable "
                  "(x64) is probably missing.");
    if (cause == u"missing_cudnn")
        return tr("cuDNN, which TensorFlow needs for the graphics card, is missing.");
    if (cause == u"missing_cuda_runtime")
        return tr("A CUDA library TensorFlow needs for the graphics card is missing.");
    if (cause == u"no_gpu_or_driver")
        return tr("TensorFlow finds no graphics card: the NVIDIA driver is missing or not working.");
    const QString &id = layer.id;
    if (id == u"libraries")
        return tr("A library TensorFlow needs for the graphics card does not load.");
    if (id == u"import")
        return tr("TensorFlow could not be imported.");
    if (id == u"devices")
        return expectGpu ? tr("TensorFlow does not see the graphics card.")
                         : tr("TensorFlow could not list its devices.");
    if (id == u"cudnn")
        return tr("cuDNN does not work: a test convolution failed.");
    if (id == u"compute")
        return tr("A test computation failed.");
    return tr("This check failed.");
}

void VerifyPage::showReport()
{
    QString status;
    QList<StatusRow> rows;
    if (m_running) {
        status = m_expectGpu.value_or(true)
            ? tr("Checking the environment: loading the libraries, importing TensorFlow and computing with "
                 "it. The first start on a new graphics card can take several minutes.")
            : tr("Checking the environment: importing TensorFlow and computing with it on the processor.");
    } else if (!m_failure.isEmpty()) {
        status = m_failure;
    } else if (m_report) {
        const bool expectGpu = m_expectGpu.value_or(true);
        bool warned = false;
        for (const core::VerifyLayer &layer : std::as_const(m_report->layers)) {
            StatusRow row;
            row.id = layer.id;
            row.kind = rowKind(layer.status);
            row.title = layer.title;
            QStringList evidence;
            switch (layer.status) {
            case core::VerifyLayer::Status::Passed:
                row.text = layer.summary.isEmpty() ? tr("Passed.") : layer.summary;
                break;
            case core::VerifyLayer::Status::Warning:
                warned = true;
                row.text = layer.summary.isEmpty() ? tr("Not everything could be checked; the details say why.")
                                                   : layer.summary;
                // The core's explanation quotes the loader's own words: folded with the evidence.
                evidence.append(layer.explanation);
                break;
            case core::VerifyLayer::Status::Failed:
                row.text = plainFailure(layer, expectGpu);
                evidence.append(layer.explanation);
                break;
            case core::VerifyLayer::Status::Skipped:
                row.text = layer.summary.isEmpty() ? tr("Not checked, because an earlier check failed.")
                                                   : layer.summary;
                break;
            }
            for (const QString &line : layer.details)
                evidence.append(line.trimmed());
            evidence.removeAll(QString());
            row.details = evidence.join(u'\n');
            rows.append(row);
        }
        if (m_report->passed()) {
            status = warned ? tr("TensorFlow works in the new environment. Read the rows marked with a warning.")
                            : tr("TensorFlow works in the new environment.");
        } else if (const core::VerifyLayer *first = m_report->firstFailure()) {
            status = tr("The environment does not work yet: %1 Press Next; the last page offers to repair it.")
                         .arg(plainFailure(*first, expectGpu));
        } else {
            status = tr("The environment does not work yet. Press Next; the last page offers to repair it.");
        }
    }
    m_layers->setRows(rows);
    m_statusLabel->setText(status);
    m_statusLabel->setVisible(!status.isEmpty());
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
    m_layers->setAccessibleName(tr("Check results"));
    m_againButton->setText(tr("Check &again"));
}

} // namespace tfsetup::ui
