#pragma once

#include "detect/hardwarereport.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWizardPage>

#include <functional>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace tfsetup::core {
class SystemView;
}

namespace tfsetup::ui {

class WizardState;

// Looks at the machine (GPU, driver, CPU, Pythons, CUDA, cuDNN) without blocking the GUI, then
// says what it found in plain words. Next is enabled once a scan finished; the report is
// committed to WizardState::setHardware().
class DetectPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DetectPage)
public:
    // The scan itself: core::detectHardware by default. A seam so tests can stand in a scan that
    // waits on a slow program or answers with a canned report.
    using DetectFunction = std::function<QCoro::Task<core::HardwareReport>(core::SystemView &)>;

    explicit DetectPage(WizardState &state, QWidget *parent = nullptr);

    void setDetectFunction(DetectFunction detect);

    bool isRunning() const { return m_running; }
    const std::optional<core::HardwareReport> &report() const { return m_report; }

    void initializePage() override;
    bool validatePage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void startDetection();
    void copyReport();

Q_SIGNALS:
    void detectionFinished();

protected:
    void changeEvent(QEvent *event) override;

private:
    // Inputs are parameters (not captures) and the page is guarded: it may be gone, or a newer
    // scan may have started, by the time the scan answers.
    static QCoro::Task<> runDetection(QPointer<DetectPage> page, DetectFunction detect, core::SystemView &system,
                                      quint64 generation);
    void finishDetection(core::HardwareReport report);
    void retranslate();
    void showState();
    void fillDetails();
    void addDetail(QTreeWidgetItem *parent, const QString &key, const QJsonValue &value, const QString &source);

    WizardState &m_state;
    DetectFunction m_detect;
    std::optional<core::HardwareReport> m_report;
    bool m_running = false;
    quint64 m_generation = 0;

    QProgressBar *m_busyIndicator;
    QLabel *m_busyLabel;
    QLabel *m_findingsLabel;
    QLabel *m_notesLabel;
    QLabel *m_logLabel;
    QPushButton *m_scanAgainButton;
    QPushButton *m_copyButton;
    QToolButton *m_detailsToggle;
    QTreeWidget *m_detailsTree;
};

} // namespace tfsetup::ui
