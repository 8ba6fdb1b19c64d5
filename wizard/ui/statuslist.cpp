#include "ui/statuslist.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

QLabel *wrappedLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return label;
}

} // namespace

StatusList::StatusList(const QString &prefix, QWidget *parent)
    : QScrollArea(parent)
    , m_prefix(prefix)
    , m_content(new QWidget)
    , m_layout(new QVBoxLayout(m_content))
{
    setObjectName(prefix + QStringLiteral("List"));
    m_content->setObjectName(prefix + QStringLiteral("Content"));
    setWidgetResizable(true);
    // Rows wrap to the width; only the height scrolls.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::StyledPanel);
    m_layout->setContentsMargins(6, 6, 6, 6);
    m_layout->addStretch(1);
    setWidget(m_content);
}

StatusList::~StatusList() = default;

QIcon StatusList::icon(StatusRow::Kind kind, const QStyle *style)
{
    switch (kind) {
    case StatusRow::Kind::Passed: return style->standardIcon(QStyle::SP_DialogApplyButton);
    case StatusRow::Kind::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case StatusRow::Kind::Failed: return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case StatusRow::Kind::Info: return style->standardIcon(QStyle::SP_MessageBoxInformation);
    case StatusRow::Kind::Skipped: return style->standardIcon(QStyle::SP_MediaSkipForward);
    }
    return {};
}

QString StatusList::kindName(StatusRow::Kind kind)
{
    switch (kind) {
    case StatusRow::Kind::Passed: return QStringLiteral("passed");
    case StatusRow::Kind::Warning: return QStringLiteral("warning");
    case StatusRow::Kind::Failed: return QStringLiteral("failed");
    case StatusRow::Kind::Info: return QStringLiteral("info");
    case StatusRow::Kind::Skipped: return QStringLiteral("skipped");
    }
    return {};
}

void StatusList::setRows(const QList<StatusRow> &rows)
{
    // Rows are rebuilt, not reused: a report is replaced as a whole.
    while (m_layout->count() > 1) {
        QLayoutItem *item = m_layout->takeAt(0);
        if (QWidget *w = item->widget())
            w->deleteLater();
        delete item;
    }
    m_toggles.clear();
    m_rows = rows;
    for (const StatusRow &row : rows) {
        QWidget *widget = makeRow(row);
        m_layout->insertWidget(m_layout->count() - 1, widget);
        // Shown now, not when the layout gets to it: fitContent() measures only visible rows.
        widget->show();
    }
    retranslate();
    fitContent();
}

void StatusList::fitContent()
{
    // A word-wrapped label's minimum size hint is the height it needs at a narrow width, so the
    // scroll area alone would make the rows far taller than their text: the content gets exactly
    // the height its layout needs at the viewport's width.
    const int width = viewport()->width();
    if (width <= 0)
        return;
    m_layout->activate();
    const int height = m_layout->hasHeightForWidth() ? m_layout->totalHeightForWidth(width)
                                                     : m_layout->totalSizeHint().height();
    m_content->setFixedHeight(height);
    // Text in a fallback font (Chinese) can make a row's buttons taller than the hints the height
    // was computed from: make room for what is squeezed, once the rows are laid out.
    m_layout->activate();
    int missing = 0;
    for (const QWidget *w : m_content->findChildren<QWidget *>()) {
        if (w->isVisibleTo(m_content) && !w->sizePolicy().hasHeightForWidth())
            missing = std::max(missing, w->minimumSizeHint().height() - w->height());
    }
    if (missing > 0)
        m_content->setFixedHeight(height + missing * int(m_toggles.size()));
}

bool StatusList::viewportEvent(QEvent *event)
{
    const bool handled = QScrollArea::viewportEvent(event);
    // The viewport narrows when the vertical scroll bar appears: the rows wrap again.
    if (event->type() == QEvent::Resize)
        fitContent();
    return handled;
}

QWidget *StatusList::makeRow(const StatusRow &row)
{
    auto *widget = new QWidget(m_content);
    widget->setObjectName(m_prefix + QStringLiteral("Row_") + row.id);
    widget->setProperty("status", kindName(row.kind));
    widget->setProperty("rowId", row.id);

    auto *iconLabel = new QLabel(widget);
    iconLabel->setObjectName(m_prefix + QStringLiteral("Icon_") + row.id);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    iconLabel->setPixmap(icon(row.kind, style()).pixmap(size, size));
    iconLabel->setAlignment(Qt::AlignTop | Qt::AlignHCenter);

    auto *texts = new QVBoxLayout;
    texts->setSpacing(2);
    if (!row.title.isEmpty()) {
        QLabel *title = wrappedLabel(row.title, widget);
        title->setObjectName(m_prefix + QStringLiteral("Title_") + row.id);
        QFont bold = title->font();
        bold.setBold(true);
        title->setFont(bold);
        texts->addWidget(title);
    }
    if (!row.text.isEmpty()) {
        QLabel *text = wrappedLabel(row.text, widget);
        text->setObjectName(m_prefix + QStringLiteral("Text_") + row.id);
        texts->addWidget(text);
    }
    if (!row.fix.isEmpty()) {
        QLabel *fix = wrappedLabel(row.fix, widget);
        fix->setObjectName(m_prefix + QStringLiteral("Fix_") + row.id);
        texts->addWidget(fix);
    }
    widget->setAccessibleName(QStringList{row.title, row.text}.join(u' ').trimmed());

    auto *buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    QPlainTextEdit *view = nullptr;
    if (!row.details.isEmpty()) {
        auto *toggle = new QToolButton(widget);
        toggle->setObjectName(m_prefix + QStringLiteral("Details_") + row.id);
        toggle->setCheckable(true);
        toggle->setChecked(false);
        toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        toggle->setArrowType(Qt::RightArrow);
        toggle->setAutoRaise(true);
        m_toggles.append(toggle);
        buttons->addWidget(toggle);

        view = new QPlainTextEdit(widget);
        view->setObjectName(m_prefix + QStringLiteral("DetailsView_") + row.id);
        view->setReadOnly(true);
        view->setPlainText(row.details);
        view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
        view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        // A few lines at a time: a long traceback scrolls inside its own view.
        const int lines = qBound(3, int(row.details.count(u'\n')) + 2, 10);
        view->setFixedHeight(qMax(view->fontMetrics().lineSpacing() * lines + 2 * view->frameWidth() + 8,
                                  view->minimumSizeHint().height()));
        view->hide();
        connect(toggle, &QToolButton::toggled, this, [this, toggle, view](bool open) {
            view->setVisible(open);
            toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
            fitContent();
        });
    }
    if (!row.actionText.isEmpty()) {
        auto *action = new QPushButton(row.actionText, widget);
        action->setObjectName(m_prefix + QStringLiteral("Action_") + row.id);
        const QString id = row.id;
        connect(action, &QPushButton::clicked, this, [this, id] { Q_EMIT actionTriggered(id); });
        buttons->addWidget(action);
    }
    buttons->addStretch(1);
    if (buttons->count() > 1)
        texts->addLayout(buttons);
    else
        delete buttons;
    if (view)
        texts->addWidget(view);

    auto *outer = new QHBoxLayout(widget);
    outer->setContentsMargins(0, 2, 0, 4);
    outer->addWidget(iconLabel, 0, Qt::AlignTop);
    outer->addLayout(texts, 1);
    return widget;
}

void StatusList::changeEvent(QEvent *event)
{
    QScrollArea::changeEvent(event);
    if (event->type() == QEvent::LanguageChange || event->type() == QEvent::FontChange
        || event->type() == QEvent::StyleChange) {
        retranslate();
        fitContent();
    }
}

void StatusList::retranslate()
{
    for (QToolButton *toggle : std::as_const(m_toggles)) {
        toggle->setText(tr("Details"));
        toggle->setToolTip(tr("What the computer reported, word for word: for a help request."));
    }
    for (QPlainTextEdit *view : m_content->findChildren<QPlainTextEdit *>())
        view->setAccessibleName(tr("Details"));
}

} // namespace tfsetup::ui
