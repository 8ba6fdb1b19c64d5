#pragma once

#include "catalog/catalog.h"
#include "system/systemview.h"
#include "verify/verifier.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWizardPage>

#include <functional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace tfsetup::ui {

class StatusList;
class WizardState;

// Proves the new environment works: loads every library TensorFlow will load, imports
// TensorFlow and computes on the GPU, through the environment's own launcher. One row per layer
// with its status icon and a plain sentence; the evidence (loader errors, raw output) is folded
// under each row's Details. Next is enabled once the check finished, passed or not (the Finish
// page says which and offers the repair); the report goes to WizardState::setVerified().
class VerifyPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(VerifyPage)
public:
    using VerifyFunction =
        std::function<QCoro::Task<core::VerifyReport>(core::SystemView &, core::VerifyRequest, core::Catalog)>;

    explicit VerifyPage(WizardState &state, QWidget *parent = nullptr);
    ~VerifyPage() override;

    // Tests answer with canned reports; the default runs core::verifyEnvironment.
    void setVerifyFunction(VerifyFunction verify) { m_verify = std::move(verify); }
    // The tfsetup-probe helper; default: beside the running program.
    void setProbePath(const QString &path) { m_probe = path; }

    bool isRunning() const { return m_running; }

    // A failed layer in a student's words, without the machine's (those go under Details).
    static QString plainFailure(const core::VerifyLayer &layer, bool expectGpu);

    void initializePage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void startVerify();

Q_SIGNALS:
    void finished(bool passed);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runVerify(QPointer<VerifyPage> page, VerifyFunction verify, core::SystemView *system,
                                   core::VerifyRequest request, core::Catalog catalog, quint64 generation);
    void finishVerify(quint64 generation, core::VerifyReport report);
    void fail(const QString &message);
    void showReport();
    void retranslate();

    WizardState &m_state;
    VerifyFunction m_verify;
    QString m_probe;
    bool m_running = false;
    quint64 m_generation = 0;
    std::optional<core::VerifyReport> m_report;
    QString m_failure;
    // Whether this environment's route computes on a GPU (the check asks for one) or on the
    // processor; unknown until the environment was read. The header promises only what is checked.
    std::optional<bool> m_expectGpu;

    QLabel *m_statusLabel;
    QProgressBar *m_busy;
    StatusList *m_layers;
    QPushButton *m_againButton;
};

} // namespace tfsetup::ui
