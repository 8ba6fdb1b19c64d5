#include "ui/choosepage.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "install/gpuchoice.h"
#include "install/installspec.h"
#include "solver/routenames.h"
#include "ui/compatview.h"
#include "ui/downloadpreview.h"
#include "ui/gpuchooser.h"
#include "ui/pagehelpers.h"
#include "ui/wizardstate.h"
#include "util/runlog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoro/QCoroFuture>
#include <QDir>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSet>
#include <QSignalBlocker>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTimer>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace tfsetup::ui {

struct ChoosePage::Outcome {
    std::shared_ptr<const core::Knowledge> knowledge;
    std::optional<core::Solution> solution;
    std::optional<core::Error> error;
};

namespace {

// Actions tfsetup carries out itself in the next steps; everything else the student must do.
bool tfsetupDoesIt(const QString &code)
{
    return code == u"install_python" || code == u"install_cuda" || code == u"install_cudnn";
}

// A scroll area as tall as its word-wrapped contents at its current width (up to half of the
// page), so the summary takes the room it needs and the tabs under it the rest: no stretch
// eats the top of the page, and a long summary scrolls instead of squashing the list.
class FitScrollArea final : public QScrollArea {
public:
    using QScrollArea::QScrollArea;

    QSize sizeHint() const override
    {
        QSize hint = QScrollArea::sizeHint();
        const QWidget *content = widget();
        if (!content)
            return hint;
        const int width = viewport()->width() > 0 ? viewport()->width() : content->sizeHint().width();
        int height = content->hasHeightForWidth() ? content->heightForWidth(width) : content->sizeHint().height();
        // A few pixels of slack: rounding in wrapped text must not bring up a scroll bar.
        height += 2 * frameWidth() + 4;
        if (const QWidget *page = parentWidget(); page && page->height() > 0)
            height = std::min(height, page->height() / 2);
        hint.setHeight(height);
        return hint;
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QScrollArea::resizeEvent(event);
        // Wrapped text is taller when narrower: ask the layout again.
        if (event->oldSize().width() != event->size().width())
            updateGeometry();
    }
};

enum AlternativeColumn {
    TfColumn,
    RouteColumn,
    PythonColumn,
    CudaColumn,
    CudnnColumn,
    NeedsColumn,
    AlternativeColumnCount
};

// Wrapped cells asked for one line more than the style measures: the style wraps its size hint
// at a slightly other width than it paints at, and Chinese glyphs drawn from a fallback font
// stand taller than the primary font says, so the last line was cut with "…".
class WrappedCellDelegate final : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        if (size.height() > 2 * option.fontMetrics.lineSpacing())
            size.rheight() += option.fontMetrics.lineSpacing();
        return size;
    }
};

} // namespace

ChoosePage::ChoosePage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_busyIndicator(new QProgressBar(this))
    , m_busyLabel(new QLabel(this))
    , m_summaryArea(new FitScrollArea(this))
    , m_recommendationLabel(new QLabel)
    , m_whyLabel(new QLabel)
    , m_actionsBox(new QFrame)
    , m_actionsTitle(new QLabel)
    , m_actionsLayout(new QVBoxLayout)
    , m_gpus(new GpuChooser)
    , m_warningsLabel(new QLabel)
    , m_downloads(new DownloadPreview(state))
    , m_errorLabel(new QLabel)
    , m_tabs(new QTabWidget(this))
    , m_alternativesTable(new QTableWidget)
    , m_rejectedTree(new QTreeWidget)
    , m_compatView(new CompatView)
    , m_showAllCheck(new QCheckBox(this))
    , m_detailsArea(new QScrollArea(this))
    , m_rejectionDetails(new QLabel)
    , m_advancedTab(new QWidget)
    , m_tfLabel(new QLabel)
    , m_tfCombo(new QComboBox)
    , m_pythonLabel(new QLabel)
    , m_pythonCombo(new QComboBox)
    , m_cpuOnlyCheck(new QCheckBox)
    , m_keepDriverCheck(new QCheckBox)
    , m_pinHint(new QLabel)
{
    setObjectName(QStringLiteral("choosePage"));
    m_busyIndicator->setObjectName(QStringLiteral("busyIndicator"));
    m_busyLabel->setObjectName(QStringLiteral("busyLabel"));
    m_summaryArea->setObjectName(QStringLiteral("summaryArea"));
    m_recommendationLabel->setObjectName(QStringLiteral("recommendationLabel"));
    m_whyLabel->setObjectName(QStringLiteral("whyLabel"));
    m_actionsBox->setObjectName(QStringLiteral("actionsBox"));
    m_actionsTitle->setObjectName(QStringLiteral("actionsTitle"));
    m_warningsLabel->setObjectName(QStringLiteral("warningsLabel"));
    m_errorLabel->setObjectName(QStringLiteral("errorLabel"));
    m_tabs->setObjectName(QStringLiteral("choiceTabs"));
    m_alternativesTable->setObjectName(QStringLiteral("alternativesTable"));
    m_rejectedTree->setObjectName(QStringLiteral("rejectedTree"));
    m_showAllCheck->setObjectName(QStringLiteral("showAllCheck"));
    m_detailsArea->setObjectName(QStringLiteral("rejectionDetailsArea"));
    m_rejectionDetails->setObjectName(QStringLiteral("rejectionDetails"));
    m_advancedTab->setObjectName(QStringLiteral("advancedTab"));
    m_tfCombo->setObjectName(QStringLiteral("tfVersionCombo"));
    m_pythonCombo->setObjectName(QStringLiteral("pythonVersionCombo"));
    m_cpuOnlyCheck->setObjectName(QStringLiteral("cpuOnlyCheck"));
    m_keepDriverCheck->setObjectName(QStringLiteral("keepDriverCheck"));
    m_pinHint->setObjectName(QStringLiteral("pinHint"));

    m_busyIndicator->setRange(0, 0);
    m_busyIndicator->setTextVisible(false);
    m_busyIndicator->setMaximumWidth(160);

    for (QLabel *label : {m_recommendationLabel, m_whyLabel, m_warningsLabel, m_errorLabel, m_actionsTitle, m_pinHint,
                          m_rejectionDetails}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    // The one sentence a student must read stands out from the explanation under it.
    QFont headline = m_recommendationLabel->font();
    headline.setBold(true);
    headline.setPointSizeF(headline.pointSizeF() * 1.15);
    m_recommendationLabel->setFont(headline);
    QFont bold = m_actionsTitle->font();
    bold.setBold(true);
    m_actionsTitle->setFont(bold);

    // What the student has to do is set apart: nothing installs until it is done.
    m_actionsBox->setFrameShape(QFrame::StyledPanel);
    m_actionsBox->setAutoFillBackground(true);
    QPalette actionsPalette = m_actionsBox->palette();
    actionsPalette.setColor(QPalette::Window, actionsPalette.color(QPalette::AlternateBase));
    m_actionsBox->setPalette(actionsPalette);
    auto *actionsOuter = new QVBoxLayout(m_actionsBox);
    actionsOuter->addWidget(m_actionsTitle);
    actionsOuter->addLayout(m_actionsLayout);
    m_errorLabel->setFrameShape(QFrame::StyledPanel);
    m_errorLabel->setMargin(6);
    connect(m_gpus, &GpuChooser::changed, this, &ChoosePage::completeChanged);

    auto *summary = new QWidget;
    auto *summaryLayout = new QVBoxLayout(summary);
    summaryLayout->setContentsMargins(0, 0, 0, 0);
    summaryLayout->addWidget(m_recommendationLabel);
    summaryLayout->addWidget(m_whyLabel);
    summaryLayout->addWidget(m_actionsBox);
    summaryLayout->addWidget(m_gpus);
    summaryLayout->addWidget(m_warningsLabel);
    summaryLayout->addWidget(m_downloads);
    summaryLayout->addWidget(m_errorLabel);
    summaryLayout->addStretch(1);
    m_summaryArea->setWidget(summary);
    m_summaryArea->setWidgetResizable(true);
    m_summaryArea->setFrameShape(QFrame::NoFrame);
    m_summaryArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    m_alternativesTable->setColumnCount(AlternativeColumnCount);
    m_alternativesTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_alternativesTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_alternativesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_alternativesTable->setAlternatingRowColors(true);
    // Routes are told apart by their whole names: wrapped, never elided ("…" hid the difference
    // between the two Linux GPU routes). The full explanation is in each row's tooltip.
    m_alternativesTable->setWordWrap(true);
    m_alternativesTable->setTextElideMode(Qt::ElideNone);
    m_alternativesTable->verticalHeader()->setVisible(false);
    m_alternativesTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    QHeaderView *header = m_alternativesTable->horizontalHeader();
    for (int column = 0; column < AlternativeColumnCount; ++column)
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    // The route and what it needs first carry the words and share the room, wrapped; the versions
    // are short. (What a plan needs first can be long too, "driver update, CUDA 11.2, cuDNN 8.1":
    // sized to its contents it squeezed the route to a sliver of broken words.)
    for (const int column : {RouteColumn, NeedsColumn}) {
        header->setSectionResizeMode(column, QHeaderView::Stretch);
        m_alternativesTable->setItemDelegateForColumn(column, new WrappedCellDelegate(m_alternativesTable));
    }
    // Wrapped words need their rows made taller again whenever a stretched column narrows;
    // otherwise the last line of a long route is cut with "…".
    connect(header, &QHeaderView::sectionResized, this,
            [this] { QTimer::singleShot(0, m_alternativesTable, &QTableWidget::resizeRowsToContents); });
    connect(m_alternativesTable, &QTableWidget::currentCellChanged, this,
            [this](int row, int, int, int) { choosePlan(row); });

    m_rejectedTree->setColumnCount(3);
    m_rejectedTree->setRootIsDecorated(true);
    m_rejectedTree->setSelectionMode(QAbstractItemView::NoSelection);
    m_rejectedTree->header()->setStretchLastSection(true);
    m_rejectedTree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_rejectedTree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    // A reason longer than its column is elided there; the row the keyboard or mouse is on has
    // its reasons in full, wrapped, under the list.
    connect(m_rejectedTree, &QTreeWidget::currentItemChanged, this, &ChoosePage::showRejectionDetails);
    m_detailsArea->setWidget(m_rejectionDetails);
    m_detailsArea->setWidgetResizable(true);
    m_detailsArea->setFrameShape(QFrame::StyledPanel);
    m_detailsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_detailsArea->setMaximumHeight(m_rejectionDetails->fontMetrics().lineSpacing() * 4 + 12);
    m_rejectionDetails->setMargin(4);
    m_detailsArea->hide();
    connect(m_showAllCheck, &QCheckBox::toggled, this, &ChoosePage::applyFilter);
    // A lookup that answers changes the summary's height (FitScrollArea).
    connect(m_downloads, &DownloadPreview::sizesChanged, m_summaryArea, &QWidget::updateGeometry);

    auto *pins = new QFormLayout;
    pins->addRow(m_tfLabel, m_tfCombo);
    pins->addRow(m_pythonLabel, m_pythonCombo);
    pins->addRow(m_cpuOnlyCheck);
    pins->addRow(m_keepDriverCheck);
    m_tfLabel->setBuddy(m_tfCombo);
    m_pythonLabel->setBuddy(m_pythonCombo);
    auto *advancedLayout = new QVBoxLayout(m_advancedTab);
    advancedLayout->addLayout(pins);
    advancedLayout->addWidget(m_pinHint);
    advancedLayout->addStretch(1);
    m_tfCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_pythonCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_tfCombo, &QComboBox::currentIndexChanged, this, &ChoosePage::solve);
    connect(m_pythonCombo, &QComboBox::currentIndexChanged, this, &ChoosePage::solve);
    connect(m_cpuOnlyCheck, &QCheckBox::toggled, this, &ChoosePage::solve);
    connect(m_keepDriverCheck, &QCheckBox::toggled, this, &ChoosePage::solve);

    m_tabs->addTab(m_alternativesTable, QString());
    m_tabs->addTab(m_rejectedTree, QString());
    m_tabs->addTab(m_compatView, QString());
    m_tabs->addTab(m_advancedTab, QString());
    m_tabs->setMinimumHeight(200);
    m_tabs->setCornerWidget(m_showAllCheck, Qt::TopRightCorner);
    connect(m_tabs, &QTabWidget::currentChanged, this, &ChoosePage::showRejectionDetails);

    auto *busyRow = new QHBoxLayout;
    busyRow->addWidget(m_busyIndicator);
    busyRow->addWidget(m_busyLabel, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(busyRow);
    layout->addWidget(m_summaryArea);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_detailsArea);

    retranslate();
    showState();
}

ChoosePage::~ChoosePage() = default;

bool ChoosePage::isLookingUpSizes() const
{
    return m_downloads->isLookingUp();
}

core::SolverConstraints ChoosePage::constraints() const
{
    core::SolverConstraints c;
    c.tensorflow = m_tfCombo->currentData().toString();
    c.python = m_pythonCombo->currentData().toString();
    c.cpuOnly = m_cpuOnlyCheck->isChecked();
    c.keepDriver = m_keepDriverCheck->isChecked();
    return c;
}

void ChoosePage::initializePage()
{
    // Back and Next keep the choice; a new scan on the Detect page solves again.
    const auto &hardware = m_state.hardware();
    if (hardware && hardware->toJson() == m_solvedFor && (m_solution || m_solving))
        return;
    solve();
}

bool ChoosePage::validatePage()
{
    if (m_solving || !m_chosen || (m_gpus->isOffered() && m_gpus->chosen().isEmpty()))
        return false;
    m_state.setPlan(*m_chosen, constraints());
    // Without the check boxes (one GPU, or none the plan knows) the plan's default stands.
    const QList<int> gpus = m_gpus->isOffered() ? m_gpus->chosen() : m_chosen->defaultGpuSelection();
    m_state.setGpus(core::InstallSpec::pinnedGpus(gpus, m_chosen->gpus.size()));
    return true;
}

bool ChoosePage::isComplete() const
{
    // Ticking none would hide every GPU; the processor-only plan is the way to that.
    return !m_solving && m_chosen.has_value() && (!m_gpus->isOffered() || !m_gpus->chosen().isEmpty());
}

QList<int> ChoosePage::chosenGpus() const
{
    return m_chosen ? m_gpus->chosen() : QList<int>();
}

void ChoosePage::solve()
{
    ++m_generation;
    m_error.reset();
    const auto &hardware = m_state.hardware();
    const auto &knowledge = m_state.knowledge();
    if (!hardware || !knowledge) {
        m_solving = false;
        m_solution.reset();
        m_chosen.reset();
        m_error = hardware ? knowledge.error()
                           : core::Error{QStringLiteral("no_hardware_report"),
                                         tr("tfsetup has not looked at your computer yet. Go back one page and let it "
                                            "scan."),
                                         {}};
        fillAlternatives();
        fillRejected();
        applyFilter();
        showChosen();
        showState();
        Q_EMIT completeChanged();
        return;
    }
    m_solvedFor = hardware->toJson();
    m_solving = true;
    showState();
    Q_EMIT completeChanged();
    // Started eagerly; the task runs on after this returns and its handle is dropped.
    runSolver(this, *knowledge, *hardware, constraints(), m_generation);
}

QCoro::Task<> ChoosePage::runSolver(QPointer<ChoosePage> page, std::shared_ptr<const core::Knowledge> knowledge,
                                    core::HardwareReport report, core::SolverConstraints constraints,
                                    quint64 generation)
{
    // Solving walks every release on every route: it runs on a worker so the page keeps painting.
    // The future is a named local (g++ 12 destroys temporaries inside a co_await expression twice).
    QFuture<Outcome> job = QtConcurrent::run([knowledge, report, constraints]() -> Outcome {
        Outcome outcome;
        outcome.knowledge = knowledge;
        const core::Solver solver(outcome.knowledge->catalog, &outcome.knowledge->gpus);
        outcome.solution = solver.solve(report, constraints);
        return outcome;
    });
    Outcome outcome = co_await job;
    if (!page || page->m_generation != generation)
        co_return;
    page->finishSolving(std::move(outcome));
}

void ChoosePage::finishSolving(Outcome outcome)
{
    // The pins list the catalog's releases: filled again when the catalog is another one.
    const bool firstLoad = outcome.knowledge && m_knowledge != outcome.knowledge;
    if (outcome.knowledge)
        m_knowledge = std::move(outcome.knowledge);
    m_downloads->setKnowledge(m_knowledge);
    m_solving = false;
    m_error = std::move(outcome.error);
    m_solution = std::move(outcome.solution);
    if (m_error)
        qWarning().noquote() << "Choose page:" << m_error->message << m_error->detail;
    if (m_solution) {
        qInfo().noquote() << "Solved:"
                          << (m_solution->recommended ? planKey(*m_solution->recommended) : QStringLiteral("none"))
                          << m_solution->alternatives.size() << "alternatives" << m_solution->rejected.size()
                          << "rejected";
    }
    if (firstLoad)
        fillPins();
    fillAlternatives();
    fillRejected();
    applyFilter();
    showState();
    Q_EMIT completeChanged();
    Q_EMIT solved();
}

QStringList ChoosePage::recentReleases() const
{
    // The few newest releases in the catalog, the one recommended and the one pinned: what a
    // student compares. Older ones (TensorFlow 1.x, Python 3.6) stay behind "Show all".
    constexpr int newest = 3;
    QStringList minors;
    if (m_knowledge) {
        for (const core::TfRelease &release : m_knowledge->catalog.releases()) {
            if (!minors.contains(release.minor()))
                minors.append(release.minor());
        }
    }
    std::sort(minors.begin(), minors.end(),
              [](const QString &a, const QString &b) { return core::version::less(b, a); });
    QStringList recent = minors.mid(0, newest);
    if (m_solution && m_solution->recommended)
        recent.append(core::version::majorMinor(m_solution->recommended->tensorflow));
    if (const QString pinned = m_tfCombo->currentData().toString(); !pinned.isEmpty())
        recent.append(core::version::majorMinor(pinned));
    return recent;
}

void ChoosePage::applyFilter()
{
    const bool all = m_showAllCheck->isChecked();
    const QStringList recent = recentReleases();
    m_shownAlternatives = 0;
    m_shownRejected = 0;
    int hidden = 0;
    // Alternatives: the recommendation, the best plan of each route, and the best plan of each
    // recent release on each route (another Python of the same plan is a detail).
    QSet<QString> routesSeen;
    QSet<QString> releasesSeen;
    const int current = m_alternativesTable->currentRow();
    for (int row = 0; row < m_alternativesTable->rowCount(); ++row) {
        const core::Plan *plan = planAt(row);
        if (!plan)
            continue;
        const QString minor = core::version::majorMinor(plan->tensorflow);
        const QString release = plan->route + u'|' + minor;
        const bool firstOfRoute = !routesSeen.contains(plan->route);
        const bool firstOfRelease = !releasesSeen.contains(release);
        routesSeen.insert(plan->route);
        releasesSeen.insert(release);
        const bool recommended = m_solution && m_solution->recommended && row == 0;
        const bool matters = recommended || firstOfRoute || (firstOfRelease && recent.contains(minor));
        const bool show = all || matters || row == current;
        m_alternativesTable->setRowHidden(row, !show);
        m_shownAlternatives += show ? 1 : 0;
        hidden += show ? 0 : 1;
    }
    // Rejections: a whole route that does not fit, and recent releases.
    for (int i = 0; i < m_rejectedTree->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_rejectedTree->topLevelItem(i);
        const QString tensorflow = item->data(0, Qt::UserRole).toString();
        const bool matters = tensorflow.isEmpty() || recent.contains(core::version::majorMinor(tensorflow));
        const bool show = all || matters || item == m_rejectedTree->currentItem();
        item->setHidden(!show);
        m_shownRejected += show ? 1 : 0;
        hidden += show ? 0 : 1;
    }
    // Nothing to show or hide: no toggle.
    m_showAllCheck->setVisible(all || hidden > 0);
    retranslate();
}

void ChoosePage::showRejectionDetails()
{
    const bool onRejected = m_tabs->currentWidget() == m_rejectedTree;
    QTreeWidgetItem *item = m_rejectedTree->currentItem();
    if (item && item->parent())
        item = item->parent();
    if (!item && onRejected) {
        for (int i = 0; i < m_rejectedTree->topLevelItemCount() && !item; ++i) {
            if (!m_rejectedTree->topLevelItem(i)->isHidden())
                item = m_rejectedTree->topLevelItem(i);
        }
    }
    if (!onRejected || !item) {
        m_detailsArea->hide();
        m_rejectionDetails->clear();
        return;
    }
    const QString heading = item->data(0, Qt::UserRole).toString().isEmpty()
        ? tr("Every TensorFlow release on %1:").arg(item->text(1))
        : tr("TensorFlow %1 on %2:").arg(item->text(0), item->text(1));
    m_rejectionDetails->setText(heading + u'\n' + item->toolTip(0));
    m_detailsArea->show();
}

void ChoosePage::fillPins()
{
    // Filled from the catalog once; the first entry leaves the choice to the solver.
    const QSignalBlocker tfBlocker(m_tfCombo);
    const QSignalBlocker pythonBlocker(m_pythonCombo);
    QStringList tf;
    QStringList python;
    for (const core::TfRelease &release : m_knowledge->catalog.releases()) {
        const QString minor = release.minor();
        if (!tf.contains(minor))
            tf.append(minor);
        for (const QString &p : release.pythonVersions()) {
            if (!python.contains(p))
                python.append(p);
        }
    }
    const auto newestFirst = [](const QString &a, const QString &b) { return core::version::less(b, a); };
    std::sort(tf.begin(), tf.end(), newestFirst);
    std::sort(python.begin(), python.end(), newestFirst);
    while (m_tfCombo->count() > 1)
        m_tfCombo->removeItem(1);
    while (m_pythonCombo->count() > 1)
        m_pythonCombo->removeItem(1);
    for (const QString &v : tf)
        m_tfCombo->addItem(tr("TensorFlow %1").arg(v), v);
    for (const QString &v : python)
        m_pythonCombo->addItem(tr("Python %1").arg(v), v);
}

const core::Plan *ChoosePage::planAt(int row) const
{
    if (!m_solution || row < 0)
        return nullptr;
    if (m_solution->recommended) {
        if (row == 0)
            return &*m_solution->recommended;
        --row;
    }
    return row < m_solution->alternatives.size() ? &m_solution->alternatives.at(row) : nullptr;
}

void ChoosePage::fillAlternatives()
{
    const QSignalBlocker blocker(m_alternativesTable);
    m_alternativesTable->clearContents();
    m_alternativesTable->setRowCount(0);
    const QString keep = m_keepChoice;
    m_keepChoice.clear();
    m_chosen.reset();
    if (!m_solution) {
        fillCompatibility();
        showChosen();
        return;
    }
    fillCompatibility();
    const int rows = int(m_solution->alternatives.size()) + (m_solution->recommended ? 1 : 0);
    m_alternativesTable->setRowCount(rows);
    int chosenRow = m_solution->recommended ? 0 : -1;
    for (int row = 0; row < rows; ++row) {
        const core::Plan &plan = *planAt(row);
        const bool recommended = m_solution->recommended && row == 0;
        QStringList needs;
        QStringList actionLines;
        for (const core::Finding &action : plan.actions) {
            if (action.code == u"update_driver")
                needs.append(tr("driver update"));
            else if (action.code == u"install_driver")
                needs.append(tr("NVIDIA driver"));
            else if (action.code == u"use_wsl2")
                needs.append(tr("WSL2"));
            else if (action.code == u"install_python")
                needs.append(tr("Python %1").arg(plan.python));
            else if (action.code == u"install_cuda")
                needs.append(tr("CUDA %1").arg(plan.cuda));
            else if (action.code == u"install_cudnn")
                needs.append(tr("cuDNN %1").arg(plan.cudnn));
            else if (action.code == u"install_msvc_runtime")
                needs.append(tr("Visual C++ runtime"));
            else
                needs.append(action.code);
            actionLines.append(action.message);
        }
        const QString tfText = recommended ? tr("%1 (recommended)").arg(core::version::majorMinor(plan.tensorflow))
                                           : core::version::majorMinor(plan.tensorflow);
        const QStringList cells{tfText,
                                routeTitle(plan.route),
                                plan.python,
                                m_downloads->cudaText(plan),
                                plan.cudnn.isEmpty() ? tr("none") : plan.cudnn,
                                needs.isEmpty() ? tr("nothing") : needs.join(QStringLiteral(", "))};
        QString tip = plan.why;
        if (!actionLines.isEmpty())
            tip += u'\n' + bulletList(actionLines);
        for (int column = 0; column < AlternativeColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setToolTip(tip);
            m_alternativesTable->setItem(row, column, item);
        }
        if (!keep.isEmpty() && planKey(plan) == keep)
            chosenRow = row;
    }
    if (chosenRow >= 0) {
        m_alternativesTable->setCurrentCell(chosenRow, 0);
        m_chosen = *planAt(chosenRow);
    }
    showChosen();
}

void ChoosePage::fillCompatibility()
{
    m_compatView->setSolution(m_solution ? &*m_solution : nullptr, m_knowledge ? &m_knowledge->catalog : nullptr);
}

void ChoosePage::fillRejected()
{
    m_rejectedTree->clear();
    if (!m_solution)
        return;
    // Greyed and not selectable: these are explanations, not choices.
    const QBrush grey = palette().brush(QPalette::Disabled, QPalette::Text);
    for (const core::Rejection &rejection : m_solution->rejected) {
        auto *item = new QTreeWidgetItem(m_rejectedTree);
        item->setFlags(Qt::ItemIsEnabled);
        item->setText(0, rejection.tensorflow.isEmpty() ? tr("any") : core::version::majorMinor(rejection.tensorflow));
        item->setText(1, routeTitle(rejection.route));
        item->setData(0, Qt::UserRole, rejection.tensorflow);
        item->setText(2, rejection.reasons.isEmpty() ? QString() : rejection.reasons.first().message);
        QStringList reasons;
        for (const core::Finding &reason : rejection.reasons)
            reasons.append(reason.message);
        item->setToolTip(0, bulletList(reasons));
        item->setToolTip(1, item->toolTip(0));
        item->setToolTip(2, item->toolTip(0));
        for (int column = 0; column < 3; ++column)
            item->setForeground(column, grey);
        for (const core::Finding &reason : rejection.reasons) {
            auto *child = new QTreeWidgetItem(item);
            child->setFlags(Qt::ItemIsEnabled);
            // Under "Why not"; a sentence longer than the column is whole in the tooltip.
            child->setText(2, reason.message);
            child->setToolTip(2, reason.message);
            child->setForeground(2, grey);
        }
    }
}

void ChoosePage::choosePlan(int row)
{
    const core::Plan *plan = planAt(row);
    if (!plan)
        return;
    m_chosen = *plan;
    if (m_alternativesTable->isRowHidden(row))
        applyFilter();
    showChosen();
    Q_EMIT completeChanged();
}

QString ChoosePage::routeTitle(const QString &route) const
{
    // Named by what the route is, never by its id (the id is for files and the command line).
    return m_knowledge ? core::RouteNames::title(m_knowledge->catalog, route) : route;
}

QString ChoosePage::planSentence(const core::Plan &plan, bool recommended) const
{
    const QString tf = core::version::majorMinor(plan.tensorflow);
    const core::Route *route = m_knowledge ? m_knowledge->catalog.route(plan.route) : nullptr;
    QString body;
    if (route && route->isAccelerated()) {
        // The GPUs the plan uses by default, not merely the machine's first: a Kepler beside an
        // Ampere is GPU 0, and TensorFlow runs on the Ampere.
        QStringList used;
        const QList<int> selection = plan.defaultGpuSelection();
        for (const core::PlanGpu &g : plan.gpus) {
            if (selection.contains(g.index) && !g.name.isEmpty())
                used.append(g.name);
        }
        QString gpu = QLocale().createSeparatedList(used);
        if (const auto &hardware = m_state.hardware(); gpu.isEmpty() && hardware) {
            for (const core::GpuInfo &info : hardware->gpus) {
                if (info.vendor == route->accelerator || route->accelerator == u"directx12") {
                    gpu = info.name;
                    break;
                }
            }
        }
        if (gpu.isEmpty())
            gpu = tr("graphics card");
        body = route->wsl == u"required"
            ? tr("TensorFlow %1 inside WSL2, using your %2, with Python %3.").arg(tf, gpu, plan.python)
            : tr("TensorFlow %1 using your %2, with Python %3.").arg(tf, gpu, plan.python);
    } else {
        body = tr("TensorFlow %1 on the processor only (no GPU), with Python %2.").arg(tf, plan.python);
    }
    return recommended ? tr("Recommended: %1").arg(body) : tr("Your choice: %1").arg(body);
}

void ChoosePage::showActions(const core::Plan *plan)
{
    while (QLayoutItem *item = m_actionsLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    QList<core::Finding> actions = plan ? plan->actions : QList<core::Finding>();
    // Without a plan, the solution's own actions say what would make one possible.
    if (!plan && m_solution)
        actions = m_solution->actions;
    int shown = 0;
    for (const core::Finding &action : std::as_const(actions)) {
        if (tfsetupDoesIt(action.code))
            continue;
        QString explanation;
        if (action.code == u"update_driver" || action.code == u"install_driver")
            explanation = tr("The driver lets programs use your graphics card. Get it for your card from NVIDIA's "
                             "driver download page (on Linux, from your distribution's driver tool), restart the "
                             "computer, then run tfsetup again. Your files and programs stay as they are.");
        else if (action.code == u"use_wsl2")
            explanation = tr("WSL2 runs Linux inside Windows; newer TensorFlow releases use the GPU only there. Open "
                             "PowerShell as administrator, run \"wsl --install\", restart, then run tfsetup inside "
                             "the Linux window.");
        else if (action.code == u"install_msvc_runtime")
            explanation = tr("These are Microsoft system files that many Windows programs share; installing them "
                             "changes nothing else.");
        else if (action.code == u"use_another_machine")
            explanation = tr("A lab computer or a hosted notebook service with a GPU works without installing "
                             "anything here.");
        auto *label = new QLabel(m_actionsBox);
        label->setObjectName(QStringLiteral("action_") + action.code);
        label->setWordWrap(true);
        label->setTextFormat(Qt::RichText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        QString html = QStringLiteral("<b>%1</b>").arg(action.message.toHtmlEscaped());
        if (!explanation.isEmpty())
            html += QStringLiteral("<br>") + explanation.toHtmlEscaped();
        label->setText(html);
        label->setAccessibleName(action.message);
        label->setAccessibleDescription(explanation);
        m_actionsLayout->addWidget(label);
        ++shown;
    }
    m_actionsBox->setVisible(shown > 0);
}

void ChoosePage::showChosen()
{
    const core::Plan *plan = m_chosen ? &*m_chosen : nullptr;
    const bool isRecommended = plan && m_solution && m_solution->recommended
        && planKey(*plan) == planKey(*m_solution->recommended);
    if (plan) {
        m_recommendationLabel->setText(planSentence(*plan, isRecommended));
        m_whyLabel->setText(plan->why);
        m_downloads->showPlan(plan);
    } else if (m_solution) {
        m_recommendationLabel->setText(tr("No TensorFlow combination fits this computer as it is."));
        m_whyLabel->setText(tr("\"Not possible here\" below says why for each one."));
        m_downloads->showPlan(nullptr);
    } else {
        m_recommendationLabel->clear();
        m_whyLabel->clear();
        m_downloads->showPlan(nullptr);
    }
    showActions(plan);
    m_gpus->showPlan(plan);

    QStringList warnings;
    if (m_solution) {
        for (const core::Finding &w : m_solution->warnings)
            warnings.append(w.message);
    }
    if (plan) {
        for (const core::Finding &w : plan->warnings) {
            if (!warnings.contains(w.message))
                warnings.append(w.message);
        }
    }
    m_warningsLabel->setText(warnings.isEmpty() ? QString() : tr("Good to know:") + u'\n' + bulletList(warnings));

    if (m_error) {
        const QString log = core::RunLog::path();
        m_errorLabel->setText(log.isEmpty() ? m_error->message
                                            : m_error->message + u'\n'
                                      + tr("The log file has the details: %1").arg(QDir::toNativeSeparators(log)));
    } else {
        m_errorLabel->clear();
    }
    showState();
    // The summary's height follows its text (FitScrollArea).
    m_summaryArea->updateGeometry();
}

void ChoosePage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        // The solver's messages are translated when it runs: solve again, keeping the choice.
        if ((m_solution || m_error) && !m_solving) {
            m_keepChoice = m_chosen ? planKey(*m_chosen) : QString();
            solve();
        }
    }
    QWizardPage::changeEvent(event);
}

void ChoosePage::retranslate()
{
    setTitle(tr("Your TensorFlow setup"));
    setSubTitle(tr("tfsetup chose the combination that fits your computer best. You can pick another one below."));
    m_busyLabel->setText(tr("Working out what fits your computer…"));
    m_actionsTitle->setText(tr("Do this first:"));
    const int alternatives = m_solution ? int(m_solution->alternatives.size()) + (m_solution->recommended ? 1 : 0) : 0;
    const int rejected = m_solution ? int(m_solution->rejected.size()) : 0;
    // The tabs keep their labels while "Show all" is toggled (a tab that changes its name under
    // the pointer reads as another tab); how many of them are shown is on the check box's tooltip.
    const QLocale locale;
    m_tabs->setTabText(0, tr("Possible combinations (%1)").arg(locale.toString(alternatives)));
    m_tabs->setTabText(1, tr("Not possible here (%1)").arg(locale.toString(rejected)));
    m_showAllCheck->setText(tr("Show &all"));
    QString showAllTip = tr("Also lists older TensorFlow releases and every Python version of each combination.");
    if (m_shownAlternatives < alternatives || m_shownRejected < rejected)
        showAllTip += u'\n'
            + tr("Shown now: %1 of %2 possible combinations, %3 of %4 that are not possible.")
                  .arg(locale.toString(m_shownAlternatives), locale.toString(alternatives),
                       locale.toString(m_shownRejected), locale.toString(rejected));
    m_showAllCheck->setToolTip(showAllTip);
    m_showAllCheck->setAccessibleDescription(showAllTip);
    m_tabs->setTabText(m_tabs->indexOf(m_compatView), tr("At a glance"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_compatView),
                          tr("Every TensorFlow release against every way to install it on this computer."));
    m_detailsArea->setAccessibleName(tr("Why this combination does not fit"));
    m_tabs->setTabText(m_tabs->indexOf(m_advancedTab), tr("Advanced"));
    m_alternativesTable->setHorizontalHeaderLabels(
        {tr("TensorFlow"), tr("Runs on"), tr("Python"), tr("CUDA"), tr("cuDNN"), tr("Needs first")});
    m_alternativesTable->setAccessibleName(tr("Possible combinations"));
    m_rejectedTree->setHeaderLabels({tr("TensorFlow"), tr("Runs on"), tr("Why not")});
    m_rejectedTree->setAccessibleName(tr("Combinations that do not fit this computer"));
    m_tabs->setAccessibleName(tr("Other combinations"));
    m_summaryArea->setAccessibleName(tr("The chosen combination"));
    m_tfLabel->setText(tr("&TensorFlow version:"));
    m_pythonLabel->setText(tr("&Python version:"));
    m_tfCombo->setAccessibleName(tr("TensorFlow version"));
    m_pythonCombo->setAccessibleName(tr("Python version"));
    {
        // Adding the first entry selects it; that is not the student pinning anything.
        const QSignalBlocker tfBlocker(m_tfCombo);
        const QSignalBlocker pythonBlocker(m_pythonCombo);
        if (m_tfCombo->count() == 0)
            m_tfCombo->addItem(QString(), QString());
        if (m_pythonCombo->count() == 0)
            m_pythonCombo->addItem(QString(), QString());
    }
    m_tfCombo->setItemText(0, tr("Best for this computer"));
    m_pythonCombo->setItemText(0, tr("Best for this computer"));
    for (int i = 1; i < m_tfCombo->count(); ++i)
        m_tfCombo->setItemText(i, tr("TensorFlow %1").arg(m_tfCombo->itemData(i).toString()));
    for (int i = 1; i < m_pythonCombo->count(); ++i)
        m_pythonCombo->setItemText(i, tr("Python %1").arg(m_pythonCombo->itemData(i).toString()));
    // &P is the Python version's; B, N, I, F and H are the wizard's buttons.
    m_cpuOnlyCheck->setText(tr("Use the processor &only, not the GPU"));
    m_keepDriverCheck->setText(tr("&Keep the NVIDIA driver as it is (for computers where you cannot install drivers)"));
    m_pinHint->setText(tr("A course may ask for a particular version. Combinations that do not fit it are listed "
                          "under \"Not possible here\" with the reason."));
}

void ChoosePage::showState()
{
    m_busyIndicator->setVisible(m_solving);
    m_busyLabel->setVisible(m_solving);
    m_summaryArea->setEnabled(!m_solving);
    m_tabs->setEnabled(!m_solving || m_knowledge != nullptr);
    m_alternativesTable->setEnabled(!m_solving);
    m_errorLabel->setVisible(m_error.has_value());
    m_warningsLabel->setVisible(!m_warningsLabel->text().isEmpty());
    m_downloads->setVisible(!m_downloads->text().isEmpty());
    m_whyLabel->setVisible(!m_whyLabel->text().isEmpty());
    m_recommendationLabel->setVisible(!m_recommendationLabel->text().isEmpty());
    retranslate();
}

} // namespace tfsetup::ui
