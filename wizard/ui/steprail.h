#pragma once

#include <QList>
#include <QString>
#include <QWidget>

namespace tfsetup::ui {

// The wizard's step rail: the steps of the current journey down the side, the ones behind
// ticked, the current one marked. Wide windows show each step's name beside its number; a
// narrow one (the wizard's own 720 px) shows the numbers alone, the names in the tooltips and
// in the accessible description, so the pages keep their width. Colours come from the palette:
// a dark desktop gets a dark rail.
class StepRail final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StepRail)
public:
    explicit StepRail(QWidget *parent = nullptr);

    // The journey's steps, in order, and which of them is current (an index into names).
    void setSteps(const QStringList &names, int current);
    QStringList steps() const { return m_names; }
    int current() const { return m_current; }
    // Whether the names are drawn (a wide window) or only the numbers.
    bool showsNames() const { return m_showNames; }
    void setShowNames(bool show);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    void describe();
    int rowHeight() const;
    int circleSize() const;

    QStringList m_names;
    int m_current = -1;
    bool m_showNames = true;
};

} // namespace tfsetup::ui
