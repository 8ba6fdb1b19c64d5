#include "ui/steprail.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace tfsetup::ui {

StepRail::StepRail(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("stepRail"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    setFocusPolicy(Qt::NoFocus);
}

void StepRail::setSteps(const QStringList &names, int current)
{
    if (names == m_names && current == m_current)
        return;
    const bool resized = names.size() != m_names.size() || names != m_names;
    m_names = names;
    m_current = current;
    describe();
    if (resized)
        updateGeometry();
    update();
}

void StepRail::setShowNames(bool show)
{
    if (show == m_showNames)
        return;
    m_showNames = show;
    updateGeometry();
    update();
}

int StepRail::circleSize() const
{
    return fontMetrics().height() + 8;
}

int StepRail::rowHeight() const
{
    return circleSize() + fontMetrics().height();
}

QSize StepRail::sizeHint() const
{
    const int margin = fontMetrics().height();
    int width = circleSize() + 2 * margin;
    if (m_showNames) {
        QFont bold = font();
        bold.setBold(true);
        const QFontMetrics metrics(bold);
        int widest = 0;
        for (const QString &name : m_names)
            widest = std::max(widest, metrics.horizontalAdvance(name));
        width += widest + margin / 2;
    }
    return {width, margin + int(m_names.size()) * rowHeight()};
}

QSize StepRail::minimumSizeHint() const
{
    return sizeHint();
}

void StepRail::describe()
{
    // Screen readers and tooltips get the whole rail in words: "Step 3 of 8: Choose".
    QStringList lines;
    for (qsizetype i = 0; i < m_names.size(); ++i) {
        const QString line = tr("Step %1 of %2: %3").arg(i + 1).arg(m_names.size()).arg(m_names.at(i));
        lines.append(i == m_current ? tr("%1 (you are here)").arg(line) : line);
    }
    setAccessibleName(tr("Setup steps"));
    setAccessibleDescription(lines.join(u'\n'));
}

bool StepRail::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int margin = fontMetrics().height();
        const int row = (help->pos().y() - margin / 2) / rowHeight();
        if (row >= 0 && row < m_names.size()) {
            QToolTip::showText(help->globalPos(),
                               tr("Step %1 of %2: %3").arg(row + 1).arg(m_names.size()).arg(m_names.at(row)), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    if (event->type() == QEvent::FontChange || event->type() == QEvent::LanguageChange)
        updateGeometry();
    return QWidget::event(event);
}

void StepRail::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const int margin = fontMetrics().height();
    const int circle = circleSize();
    const int x = margin;
    const int step = rowHeight();
    // The line joining the circles, behind them.
    if (m_names.size() > 1) {
        const int top = margin / 2 + circle / 2;
        const int bottom = top + int(m_names.size() - 1) * step;
        painter.setPen(QPen(pal.color(QPalette::Mid), 2));
        painter.drawLine(x + circle / 2, top, x + circle / 2, bottom);
    }
    QFont normal = font();
    QFont bold = font();
    bold.setBold(true);
    for (qsizetype i = 0; i < m_names.size(); ++i) {
        const QRect disc(x, margin / 2 + int(i) * step, circle, circle);
        const bool done = m_current >= 0 && i < m_current;
        const bool here = i == m_current;
        QColor fill = here ? pal.color(QPalette::Highlight)
            : done         ? pal.color(QPalette::Highlight).lighter(130)
                           : pal.color(QPalette::Base);
        if (done && pal.color(QPalette::Window).lightness() < 128)
            fill = pal.color(QPalette::Highlight).darker(130); // dark desktops: a quieter done
        painter.setPen(QPen(here || done ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid), 2));
        painter.setBrush(fill);
        painter.drawEllipse(disc.adjusted(1, 1, -1, -1));
        painter.setFont(here ? bold : normal);
        const QColor mark = here || done ? pal.color(QPalette::HighlightedText) : pal.color(QPalette::Text);
        if (done) {
            // A tick, drawn: no font has to carry it.
            QPainterPath tick;
            tick.moveTo(disc.left() + circle * 0.28, disc.top() + circle * 0.52);
            tick.lineTo(disc.left() + circle * 0.44, disc.top() + circle * 0.68);
            tick.lineTo(disc.left() + circle * 0.72, disc.top() + circle * 0.34);
            painter.setPen(QPen(mark, 2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(tick);
        } else {
            painter.setPen(mark);
            painter.drawText(disc, Qt::AlignCenter, QLocale().toString(int(i) + 1));
        }
        if (m_showNames) {
            const QRect text(disc.right() + margin / 2, disc.top(), width() - disc.right() - margin / 2, circle);
            QColor colour = pal.color(QPalette::WindowText);
            if (!here && !done)
                colour = pal.color(QPalette::PlaceholderText);
            painter.setPen(colour);
            painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft, m_names.at(i));
        }
    }
}

} // namespace tfsetup::ui
