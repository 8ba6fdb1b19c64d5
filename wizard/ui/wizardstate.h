#pragma once

#include "detect/hardwarereport.h"
#include "system/systemview.h"

#include <QObject>

#include <optional>

namespace tfsetup::ui {

// The one state object the wizard owns. Pages read it in initializePage() and commit to it in
// validatePage(); nothing else is shared between pages.
class WizardState final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WizardState)
public:
    enum class Mode { NewEnvironment, Repair, LabProfile };
    Q_ENUM(Mode)

    explicit WizardState(core::SystemView &system, QObject *parent = nullptr)
        : QObject(parent)
        , m_system(system)
    {
    }

    core::SystemView &system() const { return m_system; }

    Mode mode() const { return m_mode; }
    void setMode(Mode mode) { m_mode = mode; }

    const std::optional<core::HardwareReport> &hardware() const { return m_hardware; }
    void setHardware(core::HardwareReport report)
    {
        m_hardware = std::move(report);
        Q_EMIT hardwareChanged();
    }

Q_SIGNALS:
    void hardwareChanged();

private:
    core::SystemView &m_system;
    Mode m_mode = Mode::NewEnvironment;
    std::optional<core::HardwareReport> m_hardware;
};

} // namespace tfsetup::ui
