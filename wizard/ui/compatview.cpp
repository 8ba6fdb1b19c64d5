#include "ui/compatview.h"

#include "catalog/version.h"
#include "solver/routenames.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tfsetup::ui {

namespace {

constexpr int FitRole = Qt::UserRole;
constexpr int RecommendedRole = Qt::UserRole + 1;

// Steps that are part of the route itself (tfsetup places CUDA and cuDNN on a toolkit route):
// a cell that needs only these works as it is.
bool partOfRoute(const QString &code)
{
    return code == u"install_cuda" || code == u"install_cudnn";
}

QString bullets(const QStringList &lines)
{
    QStringList out;
    for (const QString &line : lines)
        out.append(QStringLiteral("• ") + line);
    return out.join(u'\n');
}

// Tinted backgrounds: light ones with dark text on a light desktop, deep ones with light text on
// a dark one; the icon and the word carry the meaning for anyone who cannot tell the colours apart.
QColor background(CompatView::Fit fit, bool dark)
{
    switch (fit) {
    case CompatView::Fit::Works: return dark ? QColor(0x1e, 0x46, 0x2a) : QColor(0xd4, 0xed, 0xda);
    case CompatView::Fit::Needs: return dark ? QColor(0x4d, 0x3d, 0x08) : QColor(0xff, 0xf3, 0xcd);
    case CompatView::Fit::Impossible: return dark ? QColor(0x5c, 0x1f, 0x24) : QColor(0xf8, 0xd7, 0xda);
    case CompatView::Fit::NotOffered: break;
    }
    return dark ? QColor(0x3a, 0x3d, 0x41) : QColor(0xe9, 0xec, 0xef);
}

} // namespace

CompatView::CompatView(QWidget *parent)
    : QWidget(parent)
    , m_grid(new QTableWidget(this))
    , m_explanationArea(new QScrollArea(this))
    , m_explanation(new QLabel)
{
    setObjectName(QStringLiteral("compatView"));
    m_grid->setObjectName(QStringLiteral("compatGrid"));
    m_explanationArea->setObjectName(QStringLiteral("compatExplanationArea"));
    m_explanation->setObjectName(QStringLiteral("compatExplanation"));

    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setSelectionMode(QAbstractItemView::SingleSelection);
    m_grid->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_grid->setWordWrap(false);
    m_grid->setTextElideMode(Qt::ElideNone);
    m_grid->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_grid->horizontalHeader()->setTextElideMode(Qt::ElideNone);
    m_grid->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_grid->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    connect(m_grid, &QTableWidget::currentCellChanged, this, &CompatView::explainCurrent);

    m_explanation->setWordWrap(true);
    m_explanation->setTextFormat(Qt::PlainText);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_explanation->setMargin(4);
    m_explanation->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_explanationArea->setWidget(m_explanation);
    m_explanationArea->setWidgetResizable(true);
    m_explanationArea->setFrameShape(QFrame::StyledPanel);
    m_explanationArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Three lines: one cell's reasons; longer ones scroll rather than push the grid away.
    m_explanationArea->setFixedHeight(m_explanation->fontMetrics().lineSpacing() * 3 + 14);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_grid, 1);
    layout->addWidget(m_explanationArea);
    retranslate();
}

CompatView::~CompatView() = default;

void CompatView::setSolution(const core::Solution *solution, const core::Catalog *catalog)
{
    m_solution = solution;
    m_catalog = catalog;
    rebuild();
}

int CompatView::rowOf(const QString &tensorflowMinor) const
{
    return int(m_releases.indexOf(core::version::majorMinor(tensorflowMinor)));
}

int CompatView::columnOf(const QString &route) const
{
    return int(m_routes.indexOf(route));
}

CompatView::Fit CompatView::fitAt(int row, int column) const
{
    const QTableWidgetItem *item = m_grid->item(row, column);
    return item ? Fit(item->data(FitRole).toInt()) : Fit::NotOffered;
}

bool CompatView::isRecommended(int row, int column) const
{
    const QTableWidgetItem *item = m_grid->item(row, column);
    return item && item->data(RecommendedRole).toBool();
}

void CompatView::rebuild()
{
    const QSignalBlocker blocker(m_grid);
    m_grid->clear();
    m_routes.clear();
    m_releases.clear();
    if (!m_solution || !m_catalog) {
        m_grid->setRowCount(0);
        m_grid->setColumnCount(0);
        explainCurrent();
        return;
    }
    // Plans in the solver's order, best first: a cell shows the best plan of its release and route.
    QList<const core::Plan *> plans;
    if (m_solution->recommended)
        plans.append(&*m_solution->recommended);
    for (const core::Plan &plan : m_solution->alternatives)
        plans.append(&plan);

    // Columns: every route this computer could take at all, in the catalog's order. A route
    // rejected as a whole (another OS, no such GPU) would be a column of one reason; it is listed
    // under "Not possible here" instead.
    QStringList wholeRouteRejected;
    for (const core::Rejection &r : m_solution->rejected) {
        if (r.tensorflow.isEmpty())
            wholeRouteRejected.append(r.route);
    }
    for (const core::Route &route : m_catalog->routes()) {
        if (wholeRouteRejected.contains(route.name))
            continue;
        const bool mentioned = std::any_of(plans.cbegin(), plans.cend(),
                                           [&](const core::Plan *p) { return p->route == route.name; })
            || std::any_of(m_solution->rejected.cbegin(), m_solution->rejected.cend(),
                           [&](const core::Rejection &r) { return r.route == route.name; });
        if (mentioned)
            m_routes.append(route.name);
    }
    for (const core::Plan *plan : std::as_const(plans)) {
        if (const QString minor = core::version::majorMinor(plan->tensorflow); !m_releases.contains(minor))
            m_releases.append(minor);
    }
    for (const core::Rejection &r : m_solution->rejected) {
        if (r.tensorflow.isEmpty() || !m_routes.contains(r.route))
            continue;
        if (const QString minor = core::version::majorMinor(r.tensorflow); !m_releases.contains(minor))
            m_releases.append(minor);
    }
    std::sort(m_releases.begin(), m_releases.end(),
              [](const QString &a, const QString &b) { return core::version::less(b, a); });

    m_grid->setColumnCount(int(m_routes.size()));
    m_grid->setRowCount(int(m_releases.size()));
    const QIcon worksIcon = style()->standardIcon(QStyle::SP_DialogApplyButton);
    const QIcon needsIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    const QIcon impossibleIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    int recommendedRow = -1, recommendedColumn = -1;
    for (int column = 0; column < m_routes.size(); ++column) {
        const QString &routeId = m_routes.at(column);
        auto *header = new QTableWidgetItem(core::RouteNames::shortName(*m_catalog, routeId));
        header->setToolTip(core::RouteNames::title(*m_catalog, routeId));
        m_grid->setHorizontalHeaderItem(column, header);
        for (int row = 0; row < m_releases.size(); ++row) {
            const QString &minor = m_releases.at(row);
            const QString where = tr("TensorFlow %1, %2").arg(minor, core::RouteNames::title(*m_catalog, routeId));
            auto *item = new QTableWidgetItem;
            const auto plan = std::find_if(plans.cbegin(), plans.cend(), [&](const core::Plan *p) {
                return p->route == routeId && core::version::majorMinor(p->tensorflow) == minor;
            });
            Fit fit = Fit::NotOffered;
            QString explanation;
            if (plan != plans.cend()) {
                QStringList steps;
                for (const core::Finding &action : (*plan)->actions) {
                    if (!partOfRoute(action.code))
                        steps.append(action.message);
                }
                // An experimental route is never "works": tfsetup cannot confirm it for this GPU.
                QStringList caveats;
                for (const core::Finding &warning : (*plan)->warnings) {
                    if (warning.code == u"route_experimental")
                        caveats.append(warning.message);
                }
                const bool recommended = m_solution->recommended && *plan == &*m_solution->recommended;
                fit = steps.isEmpty() && caveats.isEmpty() ? Fit::Works : Fit::Needs;
                item->setText(recommended             ? tr("Recommended")
                                  : fit == Fit::Works ? tr("Works")
                                  : !steps.isEmpty()  ? tr("After a step")
                                                      : tr("Experimental"));
                item->setIcon(fit == Fit::Works ? worksIcon : needsIcon);
                if (!steps.isEmpty())
                    explanation = tr("%1: works with Python %2 once this is done:").arg(where, (*plan)->python) + u'\n'
                        + bullets(steps);
                else
                    explanation = tr("%1: works on this computer, with Python %2.").arg(where, (*plan)->python);
                if (!caveats.isEmpty())
                    explanation += u'\n' + bullets(caveats);
                if (!(*plan)->why.isEmpty())
                    explanation += u'\n' + (*plan)->why;
                if (recommended) {
                    explanation = tr("Recommended.") + u' ' + explanation;
                    QFont bold = item->font();
                    bold.setBold(true);
                    item->setFont(bold);
                    item->setData(RecommendedRole, true);
                    recommendedRow = row;
                    recommendedColumn = column;
                }
            } else {
                const auto rejection = std::find_if(m_solution->rejected.cbegin(), m_solution->rejected.cend(),
                                                    [&](const core::Rejection &r) {
                                                        return r.route == routeId && !r.tensorflow.isEmpty()
                                                            && core::version::majorMinor(r.tensorflow) == minor;
                                                    });
                if (rejection != m_solution->rejected.cend()) {
                    fit = Fit::Impossible;
                    item->setText(tr("Not possible"));
                    item->setIcon(impossibleIcon);
                    QStringList reasons;
                    for (const core::Finding &reason : rejection->reasons)
                        reasons.append(reason.message);
                    explanation = tr("%1: not possible on this computer:").arg(where) + u'\n' + bullets(reasons);
                } else {
                    item->setText(QStringLiteral("—"));
                    explanation = tr("%1: tfsetup does not offer this combination.").arg(where);
                }
            }
            item->setData(FitRole, int(fit));
            const bool dark = palette().color(QPalette::Base).lightness() < 128;
            item->setBackground(background(fit, dark));
            item->setForeground(dark ? QColor(Qt::white) : QColor(Qt::black));
            item->setToolTip(explanation);
            item->setData(Qt::AccessibleDescriptionRole, explanation);
            m_grid->setItem(row, column, item);
        }
    }
    for (int row = 0; row < m_releases.size(); ++row)
        m_grid->setVerticalHeaderItem(row, new QTableWidgetItem(m_releases.at(row)));
    if (recommendedRow >= 0)
        m_grid->setCurrentCell(recommendedRow, recommendedColumn);
    explainCurrent();
}

void CompatView::explainCurrent()
{
    const QTableWidgetItem *item = m_grid->currentItem();
    if (item) {
        m_explanation->setText(item->toolTip());
    } else if (m_grid->rowCount() > 0) {
        m_explanation->setText(tr("Select a cell to see why."));
    } else {
        m_explanation->clear();
    }
}

void CompatView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::PaletteChange)
        rebuild(); // the cells' tints follow a switch between light and dark
    QWidget::changeEvent(event);
}

void CompatView::retranslate()
{
    m_grid->setAccessibleName(tr("Which TensorFlow releases work on this computer, on each route"));
    m_grid->setAccessibleDescription(tr("Rows are TensorFlow releases, columns are ways to install it. Each cell says "
                                        "whether it works as it is, after a step, or not at all."));
    m_explanationArea->setAccessibleName(tr("Why"));
    // The cells' words come from the solver's translated answer: the page solves again on a
    // language change and the grid is rebuilt from that.
}

} // namespace tfsetup::ui
