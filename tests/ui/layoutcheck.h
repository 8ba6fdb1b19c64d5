#pragma once

// The layout rules every page is held to, shared by the page tests: a label's or a button's text
// drawn whole, no visible widget squeezed below its minimum size hint, no mnemonic letter used
// twice on one page.

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QStringList>
#include <QTabBar>
#include <QTextDocument>
#include <QTextEdit>
#include <QWizard>

namespace tfsetup::test {

// The text as drawn: a single '&' marks the mnemonic and is not drawn; "&&" draws one '&'.
inline QString drawnText(QString text)
{
    return text.replace(QLatin1String("&&"), QStringLiteral("\x01")).remove(u'&').replace(u'\x01', u'&');
}

// Why a widget's text does not fit, or empty when it does.
inline QString clipped(QWidget *widget)
{
    if (auto *label = qobject_cast<QLabel *>(widget)) {
        const QString text = label->text();
        if (text.isEmpty() || !label->pixmap().isNull())
            return {};
        const QRect room = label->contentsRect();
        if (label->wordWrap() || Qt::mightBeRichText(text)) {
            const int need = label->heightForWidth(label->width());
            if (need > label->height() + 2)
                return QStringLiteral("needs %1 px of height, has %2").arg(need).arg(label->height());
            return {};
        }
        const QStringList lines = text.split(u'\n');
        int widest = 0;
        for (const QString &line : lines)
            widest = std::max(widest, label->fontMetrics().horizontalAdvance(drawnText(line)));
        if (widest > room.width() + 2)
            return QStringLiteral("needs %1 px of width, has %2").arg(widest).arg(room.width());
        const int tall = int(lines.size()) * label->fontMetrics().lineSpacing();
        if (tall > room.height() + 4)
            return QStringLiteral("needs %1 px of height, has %2").arg(tall).arg(room.height());
        return {};
    }
    if (auto *button = qobject_cast<QAbstractButton *>(widget)) {
        if (button->text().isEmpty())
            return {};
        const int need = button->sizeHint().width();
        if (need > button->width() + 2)
            return QStringLiteral("needs %1 px of width, has %2").arg(need).arg(button->width());
    }
    return {};
}

// Widgets that are squeezed: smaller than their minimum size hint in either direction. Only the
// kinds a person reads or types into; Qt's own internals (scroll bars, headers, viewports) and
// word-wrapped labels (their height follows their width) are left to the other checks.
inline QString squeezed(QWidget *widget)
{
    const bool kind = qobject_cast<QLineEdit *>(widget) || qobject_cast<QComboBox *>(widget)
        || qobject_cast<QAbstractButton *>(widget) || qobject_cast<QAbstractSpinBox *>(widget)
        || qobject_cast<QProgressBar *>(widget) || qobject_cast<QPlainTextEdit *>(widget)
        || qobject_cast<QTextEdit *>(widget) || qobject_cast<QAbstractItemView *>(widget)
        || (qobject_cast<QLabel *>(widget) && !qobject_cast<QLabel *>(widget)->wordWrap());
    if (!kind)
        return {};
    // A line edit inside a combo box or a spin box is sized by its owner.
    if (qobject_cast<QLineEdit *>(widget)
        && (qobject_cast<QComboBox *>(widget->parentWidget())
            || qobject_cast<QAbstractSpinBox *>(widget->parentWidget())))
        return {};
    if (qobject_cast<QTabBar *>(widget->parentWidget()) || qobject_cast<QScrollBar *>(widget)
        || qobject_cast<QHeaderView *>(widget))
        return {};
    const QSize hint = widget->minimumSizeHint().expandedTo(widget->minimumSize());
    if (!hint.isValid())
        return {};
    const QSize size = widget->size();
    if (size.width() + 1 < hint.width() || size.height() + 1 < hint.height())
        return QStringLiteral("is %1×%2, needs at least %3×%4")
            .arg(size.width())
            .arg(size.height())
            .arg(hint.width())
            .arg(hint.height());
    return {};
}

// The mnemonic letter of a text ("&Next" → 'n'), or a null character.
inline QChar mnemonic(const QString &text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text.at(i) != u'&')
            continue;
        if (text.at(i + 1) == u'&') {
            ++i;
            continue;
        }
        return text.at(i + 1).toLower();
    }
    return {};
}

// The letters used twice among the visible buttons, buddied labels, group boxes and tabs of a
// wizard's current page and its own buttons, each with the texts that share it.
inline QStringList sharedMnemonics(QWizard *wizard)
{
    QHash<QChar, QStringList> users;
    auto note = [&users](const QString &text) {
        if (const QChar c = mnemonic(text); !c.isNull())
            users[c].append(drawnText(text));
    };
    for (const auto which : {QWizard::BackButton, QWizard::NextButton, QWizard::CommitButton, QWizard::FinishButton,
                             QWizard::CancelButton, QWizard::HelpButton}) {
        if (QAbstractButton *b = wizard->button(which); b && b->isVisibleTo(wizard))
            note(b->text());
    }
    QWidget *page = wizard->currentPage();
    if (!page)
        return {};
    for (QWidget *w : page->findChildren<QWidget *>()) {
        if (!w->isVisibleTo(wizard))
            continue;
        if (auto *b = qobject_cast<QAbstractButton *>(w))
            note(b->text());
        else if (auto *l = qobject_cast<QLabel *>(w); l && l->buddy())
            note(l->text());
        else if (auto *g = qobject_cast<QGroupBox *>(w))
            note(g->title());
        else if (auto *t = qobject_cast<QTabBar *>(w)) {
            for (int i = 0; i < t->count(); ++i) {
                if (t->isTabVisible(i))
                    note(t->tabText(i));
            }
        }
    }
    QStringList out;
    for (auto it = users.cbegin(); it != users.cend(); ++it) {
        if (it.value().size() > 1)
            out.append(QStringLiteral("'%1' in %2").arg(it.key(), it.value().join(QLatin1String(", "))));
    }
    out.sort();
    return out;
}

// Every layout problem of the wizard's current state: clipped text, squeezed widgets, shared
// mnemonics, each line naming the widget.
inline QStringList layoutProblems(QWizard *wizard, const QString &where)
{
    QStringList problems;
    for (QWidget *w : wizard->findChildren<QWidget *>()) {
        if (!w->isVisibleTo(wizard) || w->width() <= 0)
            continue;
        QString why = clipped(w);
        if (why.isEmpty())
            why = squeezed(w);
        if (why.isEmpty())
            continue;
        QString text;
        if (auto *l = qobject_cast<QLabel *>(w))
            text = l->text();
        else if (auto *b = qobject_cast<QAbstractButton *>(w))
            text = b->text();
        problems.append(
            QStringLiteral("%1 / %2 (%3) \"%4\": %5")
                .arg(where, w->objectName(), QString::fromLatin1(w->metaObject()->className()), text.left(50), why));
    }
    for (const QString &shared : sharedMnemonics(wizard))
        problems.append(QStringLiteral("%1: mnemonic %2").arg(where, shared));
    return problems;
}

} // namespace tfsetup::test
