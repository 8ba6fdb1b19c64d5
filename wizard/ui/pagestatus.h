#pragma once

#include <QFrame>
#include <QString>

#include <functional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace tfsetup::ui {

// A page's one status area: an icon, one message that replaces the last, at most one button that
// does the fix, and the raw detail folded under a collapsed "Details" toggle. Hidden while it has
// nothing to say. Children: statusIcon, statusLabel, statusActionButton, statusDetailsToggle,
// statusDetails.
class PageStatus final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PageStatus)
public:
    enum class Kind { None, Busy, Info, Ok, Warning, Error };
    Q_ENUM(Kind)

    explicit PageStatus(QWidget *parent = nullptr);
    ~PageStatus() override;

    // Replaces whatever was shown: message, details and action. Details fold up again.
    void showMessage(Kind kind, const QString &message, const QString &details = QString());
    // The one button; its text carries its own mnemonic. A later showMessage() or clear() removes it.
    void setAction(const QString &text, std::function<void()> action);
    void clearAction();
    void clear();

    Kind kind() const { return m_kind; }
    QString message() const;
    QString details() const;
    bool hasAction() const;
    QString actionText() const;
    // What the caller tagged the message with ("connection", "resolve"), so it can clear only its own.
    void setTag(const QString &tag) { m_tag = tag; }
    QString tag() const { return m_tag; }

Q_SIGNALS:
    void actionTriggered();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslate();
    void updateIcon();

    Kind m_kind = Kind::None;
    QString m_tag;
    std::function<void()> m_action;
    QLabel *m_icon;
    QLabel *m_message;
    QPushButton *m_button;
    QToolButton *m_toggle;
    QPlainTextEdit *m_details;
};

} // namespace tfsetup::ui
