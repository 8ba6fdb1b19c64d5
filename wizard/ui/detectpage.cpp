#include "ui/detectpage.h"

#include "detect/detector.h"
#include "detect/reportsummary.h"
#include "ui/pagehelpers.h"
#include "ui/wizardstate.h"
#include "util/runlog.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

// The details tree follows the order a student reads the summary in, not QJsonObject's
// alphabetical order; keys added to the report later are appended.
const QStringList &sectionOrder()
{
    static const QStringList order{
        QStringLiteral("os"),     QStringLiteral("cpu"),          QStringLiteral("gpus"),
        QStringLiteral("driver"), QStringLiteral("pythons"),      QStringLiteral("cuda_toolkits"),
        QStringLiteral("cudnn"),  QStringLiteral("msvc_runtime"), QStringLiteral("problems")};
    return order;
}

QStringList orderedKeys(const QJsonObject &object)
{
    QStringList keys;
    for (const QString &key : sectionOrder()) {
        if (object.contains(key))
            keys.append(key);
    }
    for (const QString &key : object.keys()) {
        if (!keys.contains(key))
            keys.append(key);
    }
    return keys;
}

// A short label for one entry of a list (a GPU's name, a Python's version) so the collapsed
// tree is still readable.
QString entryLabel(const QJsonObject &object)
{
    for (const char *key : {"name", "version", "method", "path"}) {
        const QJsonValue v = object.value(QLatin1String(key));
        if (v.isString() && !v.toString().isEmpty())
            return v.toString();
    }
    return {};
}

} // namespace

DetectPage::DetectPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_detect([&state](core::SystemView &system) {
        core::DetectOptions options;
        options.knowledge = state.knowledgeOrNull();
        return core::detectHardware(system, options);
    })
    , m_busyIndicator(new QProgressBar(this))
    , m_busyLabel(new QLabel(this))
    , m_findingsLabel(new QLabel(this))
    , m_notesLabel(new QLabel(this))
    , m_logLabel(new QLabel(this))
    , m_scanAgainButton(new QPushButton(this))
    , m_copyButton(new QPushButton(this))
    , m_detailsToggle(new QToolButton(this))
    , m_detailsTree(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("detectPage"));
    m_busyIndicator->setObjectName(QStringLiteral("busyIndicator"));
    m_busyLabel->setObjectName(QStringLiteral("busyLabel"));
    m_findingsLabel->setObjectName(QStringLiteral("findingsLabel"));
    m_notesLabel->setObjectName(QStringLiteral("notesLabel"));
    m_logLabel->setObjectName(QStringLiteral("logLabel"));
    m_scanAgainButton->setObjectName(QStringLiteral("scanAgainButton"));
    m_copyButton->setObjectName(QStringLiteral("copyReportButton"));
    m_detailsToggle->setObjectName(QStringLiteral("detailsToggle"));
    m_detailsTree->setObjectName(QStringLiteral("detailsTree"));

    // An indeterminate bar: the scan cannot tell how far along it is.
    m_busyIndicator->setRange(0, 0);
    m_busyIndicator->setTextVisible(false);
    m_busyIndicator->setMaximumWidth(160);

    for (QLabel *label : {m_findingsLabel, m_notesLabel, m_logLabel}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    // Notes are advice, not alarms: set apart but not red.
    m_notesLabel->setFrameShape(QFrame::StyledPanel);
    m_notesLabel->setMargin(6);

    m_detailsToggle->setCheckable(true);
    m_detailsToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detailsToggle->setArrowType(Qt::RightArrow);
    m_detailsToggle->setAutoRaise(true);
    m_detailsTree->setColumnCount(3);
    m_detailsTree->setAlternatingRowColors(true);
    // Values (paths, GPU names) get the room; field names and sources are short.
    m_detailsTree->header()->setStretchLastSection(false);
    m_detailsTree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_detailsTree->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_detailsTree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_detailsTree->setVisible(false);

    connect(m_scanAgainButton, &QPushButton::clicked, this, &DetectPage::startDetection);
    connect(m_copyButton, &QPushButton::clicked, this, &DetectPage::copyReport);
    connect(m_detailsToggle, &QToolButton::toggled, this, [this](bool shown) {
        m_detailsTree->setVisible(shown);
        m_detailsToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
        retranslate();
    });

    auto *busyRow = new QHBoxLayout;
    busyRow->addWidget(m_busyIndicator);
    busyRow->addWidget(m_busyLabel, 1);

    auto *buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_detailsToggle);
    buttonRow->addStretch(1);
    buttonRow->addWidget(m_copyButton);
    buttonRow->addWidget(m_scanAgainButton);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(busyRow);
    layout->addWidget(m_findingsLabel);
    layout->addWidget(m_notesLabel);
    layout->addWidget(m_logLabel);
    layout->addLayout(buttonRow);
    layout->addWidget(m_detailsTree, 1);
    layout->addStretch(0);

    retranslate();
    showState();
}

void DetectPage::setDetectFunction(DetectFunction detect)
{
    m_detect = std::move(detect);
}

void DetectPage::initializePage()
{
    // Coming back to the page keeps the last scan; "Scan again" is there for a fresh one.
    if (!m_report && !m_running)
        startDetection();
}

bool DetectPage::validatePage()
{
    if (!m_report || m_running)
        return false;
    m_state.setHardware(*m_report);
    return true;
}

bool DetectPage::isComplete() const
{
    return m_report.has_value() && !m_running;
}

void DetectPage::startDetection()
{
    ++m_generation;
    m_running = true;
    showState();
    Q_EMIT completeChanged();
    // Started eagerly; the task runs on after this returns and its handle is dropped.
    runDetection(this, m_detect, m_state.system(), m_generation);
}

QCoro::Task<> DetectPage::runDetection(QPointer<DetectPage> page, DetectFunction detect, core::SystemView &system,
                                       quint64 generation)
{
    core::HardwareReport report = co_await detect(system);
    if (!page || page->m_generation != generation)
        co_return;
    page->finishDetection(std::move(report));
}

void DetectPage::finishDetection(core::HardwareReport report)
{
    qInfo().noquote() << "Hardware report:"
                      << QString::fromUtf8(QJsonDocument(report.toJson()).toJson(QJsonDocument::Compact));
    m_report = std::move(report);
    m_running = false;
    retranslate();
    showState();
    Q_EMIT completeChanged();
    Q_EMIT detectionFinished();
}

void DetectPage::copyReport()
{
    if (!m_report)
        return;
    // Plain text first so a paste into a chat or a forum post reads well; the JSON after it is
    // what `tfsetup plan --hardware` and helpers can read back.
    const QByteArray json = QJsonDocument(m_report->toJson()).toJson(QJsonDocument::Indented);
    auto *mime = new QMimeData;
    mime->setText(core::ReportSummary::text(*m_report) + u'\n' + QString::fromUtf8(json));
    mime->setData(QStringLiteral("application/json"), json);
    QGuiApplication::clipboard()->setMimeData(mime);
}

void DetectPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWizardPage::changeEvent(event);
}

void DetectPage::retranslate()
{
    setTitle(tr("Your computer"));
    setSubTitle(tr("tfsetup looks at your graphics card, its driver, the processor and what is already "
                   "installed. Nothing is changed on your computer."));
    m_busyLabel->setText(tr("Looking at your computer… This takes a few seconds."));
    m_scanAgainButton->setText(tr("Scan a&gain"));
    m_scanAgainButton->setAccessibleName(tr("Scan again"));
    m_copyButton->setText(tr("&Copy report"));
    m_copyButton->setAccessibleName(tr("Copy report"));
    m_copyButton->setToolTip(tr("Copies what was found, as text and as JSON, for example to ask for help."));
    m_detailsToggle->setText(m_detailsToggle->isChecked() ? tr("Hide &details") : tr("Show &details"));
    m_detailsToggle->setAccessibleName(tr("Show details"));
    m_detailsTree->setHeaderLabels({tr("Field"), tr("Value"), tr("Found by")});
    m_detailsTree->setAccessibleName(tr("Full report"));

    if (!m_report)
        return;
    m_findingsLabel->setText(bulletList(core::ReportSummary::lines(*m_report)));
    const QStringList notes = core::ReportSummary::notes(*m_report);
    m_notesLabel->setText(notes.isEmpty() ? QString()
                                          : tr("Some checks did not work. That is often harmless when another check "
                                               "found the same thing; \"Show details\" tells why.")
                                  + u'\n' + bulletList(notes));
    const QString log = core::RunLog::path();
    m_logLabel->setText(log.isEmpty()
                            ? QString()
                            : tr("The log file has everything tfsetup tried: %1").arg(QDir::toNativeSeparators(log)));
    fillDetails();
}

void DetectPage::showState()
{
    const bool haveReport = m_report.has_value() && !m_running;
    const bool problems = haveReport && !m_report->problems.isEmpty();
    m_busyIndicator->setVisible(m_running);
    m_busyLabel->setVisible(m_running);
    m_findingsLabel->setVisible(haveReport);
    m_notesLabel->setVisible(problems);
    m_logLabel->setVisible(problems && !core::RunLog::path().isEmpty());
    m_scanAgainButton->setEnabled(!m_running);
    m_copyButton->setEnabled(haveReport);
    m_detailsToggle->setEnabled(haveReport);
    m_detailsTree->setVisible(haveReport && m_detailsToggle->isChecked());
}

void DetectPage::fillDetails()
{
    m_detailsTree->clear();
    if (!m_report)
        return;
    const QJsonObject json = m_report->toJson();
    for (const QString &key : orderedKeys(json))
        addDetail(nullptr, key, json.value(key), {});
    m_detailsTree->expandAll();
}

void DetectPage::addDetail(QTreeWidgetItem *parent, const QString &key, const QJsonValue &value, const QString &source)
{
    auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_detailsTree);
    item->setText(0, key);
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        // An entry's "source" names the method that found every field of it.
        const QString own = object.value(QLatin1String("source")).toString();
        const QString childSource = own.isEmpty() ? source : own;
        item->setText(1, entryLabel(object));
        item->setText(2, childSource);
        for (const QString &childKey : orderedKeys(object)) {
            if (childKey != u"source")
                addDetail(item, childKey, object.value(childKey), childSource);
        }
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        item->setText(1, array.isEmpty() ? tr("none found") : tr("%n found", nullptr, int(array.size())));
        for (qsizetype i = 0; i < array.size(); ++i)
            addDetail(item, QString::number(i + 1), array.at(i), source);
    } else {
        QString text;
        if (value.isNull() || value.isUndefined())
            text = tr("unknown");
        else if (value.isBool())
            text = value.toBool() ? tr("yes") : tr("no");
        else if (value.isDouble())
            text = QString::number(value.toDouble());
        else
            text = value.toString();
        item->setText(1, text);
        item->setText(2, source);
    }
}

} // namespace tfsetup::ui
