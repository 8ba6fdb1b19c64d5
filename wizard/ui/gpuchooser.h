#pragma once

#include <QFrame>
#include <QList>
#include <QString>

class QCheckBox;
class QLabel;
class QVBoxLayout;

namespace tfsetup::core {
struct Plan;
}

namespace tfsetup::ui {

// The Choose page's GPU choice: one check box a GPU when the plan knows several, its default
// ticked, the ones its TensorFlow cannot use disabled, each with why (and a slow first start
// said where the driver compiles the code). Hidden for a plan with fewer than two GPUs. What the
// student ticked is kept while the plan stays the same one (route, release, Python), across a
// new solve and a language switch.
class GpuChooser final : public QFrame {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GpuChooser)
public:
    explicit GpuChooser(QWidget *parent = nullptr);

    // Rebuilt for every plan: its TensorFlow decides which GPUs it can use and how. Null: hidden.
    void showPlan(const core::Plan *plan);
    // There is a choice to make (the plan has several GPUs).
    bool isOffered() const { return !m_checks.isEmpty(); }
    // The ticked GPUs' indexes, in order; empty when none is ticked or none is offered.
    QList<int> chosen() const;

Q_SIGNALS:
    void changed();

protected:
    void changeEvent(QEvent *event) override;

private:
    void toggled();
    void retranslate();

    QLabel *m_title;
    QVBoxLayout *m_list;
    QLabel *m_hint;              // when no GPU is ticked
    QList<QCheckBox *> m_checks; // the plan's GPUs, in index order
    QList<int> m_indexes;        // their indexes
    QList<int> m_selection;      // ticked, for the plan of this key
    QString m_selectionFor;
};

} // namespace tfsetup::ui
