#include "ui/pagestatus.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace tfsetup::ui {

PageStatus::PageStatus(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_message(new QLabel(this))
    , m_button(new QPushButton(this))
    , m_toggle(new QToolButton(this))
    , m_details(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("statusArea"));
    m_icon->setObjectName(QStringLiteral("statusIcon"));
    m_message->setObjectName(QStringLiteral("statusLabel"));
    m_button->setObjectName(QStringLiteral("statusActionButton"));
    m_toggle->setObjectName(QStringLiteral("statusDetailsToggle"));
    m_details->setObjectName(QStringLiteral("statusDetails"));

    setFrameShape(QFrame::StyledPanel);
    m_icon->setAlignment(Qt::AlignTop | Qt::AlignHCenter);
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_message->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    m_toggle->setCheckable(true);
    m_toggle->setAutoRaise(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    m_details->setReadOnly(true);
    m_details->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    // Raw output is for whoever helps the student: a few lines, scrolled, never a wall.
    m_details->setMaximumHeight(m_details->fontMetrics().lineSpacing() * 4 + 12);
    m_details->hide();
    m_button->hide();
    m_toggle->hide();

    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) {
        m_toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_details->setVisible(open);
    });
    connect(m_button, &QPushButton::clicked, this, [this] {
        // The action may replace this very message; keep it alive while it runs.
        const std::function<void()> action = m_action;
        Q_EMIT actionTriggered();
        if (action)
            action();
    });

    auto *top = new QHBoxLayout;
    top->addWidget(m_icon, 0, Qt::AlignTop);
    top->addWidget(m_message, 1);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_toggle);
    actions->addStretch(1);
    actions->addWidget(m_button);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(top);
    layout->addLayout(actions);
    layout->addWidget(m_details);

    retranslate();
    hide();
}

PageStatus::~PageStatus() = default;

void PageStatus::showMessage(Kind kind, const QString &message, const QString &details)
{
    m_kind = message.isEmpty() ? Kind::None : kind;
    m_message->setText(message);
    m_details->setPlainText(details);
    m_toggle->setChecked(false);
    m_toggle->setVisible(!details.isEmpty());
    clearAction();
    updateIcon();
    setVisible(m_kind != Kind::None);
}

void PageStatus::setAction(const QString &text, std::function<void()> action)
{
    m_action = std::move(action);
    m_button->setText(text);
    m_button->setVisible(!text.isEmpty() && m_kind != Kind::None);
}

void PageStatus::clearAction()
{
    m_action = nullptr;
    m_button->setText(QString());
    m_button->hide();
}

void PageStatus::clear()
{
    m_tag.clear();
    showMessage(Kind::None, QString());
}

QString PageStatus::message() const
{
    return m_message->text();
}

QString PageStatus::details() const
{
    return m_details->toPlainText();
}

bool PageStatus::hasAction() const
{
    return !m_button->isHidden();
}

QString PageStatus::actionText() const
{
    return m_button->text();
}

void PageStatus::updateIcon()
{
    QStyle::StandardPixmap pixmap = QStyle::SP_MessageBoxInformation;
    switch (m_kind) {
    case Kind::None:
        m_icon->clear();
        m_icon->hide();
        return;
    case Kind::Busy: pixmap = QStyle::SP_BrowserReload; break;
    case Kind::Info: pixmap = QStyle::SP_MessageBoxInformation; break;
    case Kind::Ok: pixmap = QStyle::SP_DialogApplyButton; break;
    case Kind::Warning: pixmap = QStyle::SP_MessageBoxWarning; break;
    case Kind::Error: pixmap = QStyle::SP_MessageBoxCritical; break;
    }
    const int extent = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(pixmap, nullptr, this).pixmap(extent, extent));
    m_icon->setFixedWidth(extent + 4);
    m_icon->show();
}

void PageStatus::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    else if (event->type() == QEvent::StyleChange)
        updateIcon();
    QFrame::changeEvent(event);
}

void PageStatus::retranslate()
{
    // B, N, I, F and H are the wizard's own buttons; e is free on every page that uses this.
    m_toggle->setText(tr("D&etails"));
    m_toggle->setToolTip(tr("What the program reported, word for word, for whoever helps you."));
    m_details->setAccessibleName(tr("Details"));
    m_message->setAccessibleName(tr("Status"));
}

} // namespace tfsetup::ui
