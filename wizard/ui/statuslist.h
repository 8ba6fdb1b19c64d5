#pragma once

#include <QList>
#include <QScrollArea>
#include <QString>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace tfsetup::ui {

// One line of a result a student reads: what was checked or found, in plain words, with what to
// do; the machine's own words (loader errors, raw output) stay folded under "Details".
struct StatusRow {
    enum class Kind { Passed, Warning, Failed, Info, Skipped };

    QString id; // stable, for tests and object names: "cudnn", "missing_cudnn:cudnn64_8.dll"
    Kind kind = Kind::Info;
    QString title;      // bold first line, may be empty
    QString text;       // the plain sentence
    QString fix;        // what to do, may be empty
    QString details;    // folded evidence, may be empty
    QString actionText; // a button on the row that does the fix; empty: none
};

// A list of StatusRows that takes the height it is given and scrolls, every text word-wrapped
// (nothing is ever cut with "…"). Each row: a status icon, its title and sentence, its fix, an
// optional action button and a collapsed "Details" toggle over a read-only, scrollable view.
// Object names: "<prefix>Row_<id>", "<prefix>Text_<id>", "<prefix>Details_<id>" (the toggle),
// "<prefix>DetailsView_<id>", "<prefix>Action_<id>".
class StatusList final : public QScrollArea {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StatusList)
public:
    explicit StatusList(const QString &prefix, QWidget *parent = nullptr);
    ~StatusList() override;

    void setRows(const QList<StatusRow> &rows);
    void clear() { setRows({}); }
    const QList<StatusRow> &rows() const { return m_rows; }
    int count() const { return int(m_rows.size()); }

    static QIcon icon(StatusRow::Kind kind, const QStyle *style);
    static QString kindName(StatusRow::Kind kind); // "passed" | "warning" | … (accessibility, tests)

Q_SIGNALS:
    void actionTriggered(const QString &id);

protected:
    void changeEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    QWidget *makeRow(const StatusRow &row);
    void fitContent();
    void retranslate();

    QString m_prefix;
    QList<StatusRow> m_rows;
    QWidget *m_content;
    QVBoxLayout *m_layout;
    QList<QToolButton *> m_toggles;
};

} // namespace tfsetup::ui
