#pragma once

#include "detect/hardwarereport.h"
#include "system/systemview.h"

#include <QCoro/QCoroTask>

#include <chrono>
#include <memory>

namespace tfsetup::core {

struct Knowledge;

struct DetectOptions {
    // Each external program (nvidia-smi, python, py) gets at most this long.
    std::chrono::milliseconds processTimeout{std::chrono::seconds(4)};
    bool scanPythons = true;
    // The GPU table that names GPUs the methods could not. Null leaves them unnamed and says so
    // in the report's problems (catalog_not_given): the drivers hand theirs in.
    std::shared_ptr<const Knowledge> knowledge;
};

// Runs every scanner against the view and assembles one report. Never fails: whatever a
// scanner cannot find is recorded in report.problems.
QCoro::Task<HardwareReport> detectHardware(SystemView &system, DetectOptions options = {});

} // namespace tfsetup::core
