#pragma once

#include "catalog/catalog.h"
#include "solver/plan.h"

#include <QWidget>

class QLabel;
class QScrollArea;
class QTableWidget;

namespace tfsetup::ui {

// The solver's answer as a picture: TensorFlow releases (rows) against the routes this computer
// can take (columns), each cell marked as working as it is, working after a step (a driver
// update, WSL2, a Python tfsetup installs), or not possible, with why in its tooltip and, for the
// cell the keyboard or mouse is on, whole in the label under the grid. The recommended cell is
// marked. Built from the Solution alone: it shows the solver's reasons, it has none of its own.
class CompatView final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CompatView)
public:
    enum class Fit { Works, Needs, Impossible, NotOffered };
    Q_ENUM(Fit)

    explicit CompatView(QWidget *parent = nullptr);
    ~CompatView() override;

    // catalog names the routes; both may be null (nothing to show). The solution must outlive
    // the next call.
    void setSolution(const core::Solution *solution, const core::Catalog *catalog);

    // For tests and accessibility: the grid's cell by release ("2.10") and route id.
    int rowOf(const QString &tensorflowMinor) const;
    int columnOf(const QString &route) const;
    Fit fitAt(int row, int column) const;
    bool isRecommended(int row, int column) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void explainCurrent();
    void retranslate();

    const core::Solution *m_solution = nullptr;
    const core::Catalog *m_catalog = nullptr;
    QStringList m_routes;   // columns, route ids
    QStringList m_releases; // rows, TensorFlow major.minor, newest first
    QTableWidget *m_grid;
    QScrollArea *m_explanationArea;
    QLabel *m_explanation;
};

} // namespace tfsetup::ui
