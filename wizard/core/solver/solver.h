#pragma once

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "detect/hardwarereport.h"
#include "solver/plan.h"

#include <QCoreApplication>

namespace tfsetup::core {

// What the user pins. Empty strings mean "no preference".
struct SolverConstraints {
    QString tensorflow; // "2.13" or "2.13.0": a release prefix
    QString python;     // "3.12"
    QString route;      // a route name from routes.json
    QString os;         // "windows" | "linux" | "macos": plan for this OS instead of the report's
    bool cpuOnly = false;
    // The NVIDIA driver must stay as it is (a lab machine without admin rights): a driver that is
    // too old rejects the combination (driver_too_old) instead of adding an update_driver action.
    bool keepDriver = false;
};

// Chooses TensorFlow / CUDA / cuDNN / Python combinations for one machine. Pure: everything it
// knows comes from the catalog and GPU table handed in; it reads no files and runs nothing.
// solve() runs the stages of stages.h: candidates, filters, ranking, explanation.
//
// Ranking, best first:
//   tier 0  accelerated, runs natively on this OS without PTX JIT
//   tier 1  accelerated without JIT, after switching environment (WSL2 from Windows)
//   tier 2  accelerated, but needs PTX JIT for the GPU
//   tier 3  CPU only
//   tier 4  experimental accelerated routes (ROCm, DirectML): offered, never recommended
// then plans whose facts are all verified before those relying on unverified records, then the
// newest TensorFlow, then the fewest actions, then the catalog's route order.
class Solver {
    Q_DECLARE_TR_FUNCTIONS(Solver)

public:
    // gpus may be null: compute capabilities then come from the report alone.
    Solver(const Catalog &catalog, const GpuTable *gpus);

    Solution solve(const HardwareReport &report, const SolverConstraints &constraints = {}) const;

private:
    const Catalog &m_catalog;
    const GpuTable *m_gpus;
};

} // namespace tfsetup::core
