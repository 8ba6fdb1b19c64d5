#pragma once

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "detect/hardwarereport.h"
#include "solver/plan.h"
#include "solver/solver.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

// The solver's stages, in the order Solver::solve runs them:
//   0. machine      the facts of the report the solver uses, read once;
//   1. candidates   the routes, and per route the (TensorFlow release, Python, CUDA / cuDNN)
//                   combinations the catalog offers, with how each can use the machine's GPUs;
//   2. filters      independent checks, each accepting a candidate (perhaps with actions and
//                   warnings) or rejecting it with reason codes (solver/README.md);
//   3. ranking      the order of the accepted plans (solver.h);
//   4. explanation  the Plan of each accepted candidate and the Solution: recommendation,
//                   alternatives, rejections, actions, warnings and why.
// Every message keeps the Solver translation context.
namespace tfsetup::core::stages {

// ---- 0. machine ----------------------------------------------------------------------------

struct MachineGpu {
    QString name;
    QString vendor; // "nvidia" | "amd" | "intel" | "apple" | ""
    QString cc;     // empty when unknown
    // NVIDIA GPUs: TensorFlow's device number under CUDA_DEVICE_ORDER=PCI_BUS_ID, that is the
    // position in ascending PCI bus id order. When any NVIDIA GPU lacks a bus id the report's
    // order is kept (detection lists NVML's order first, which is nvidia-smi's). -1 otherwise.
    int index = -1;
};

struct Machine {
    QString os;
    bool osAssumed = false;
    // The report's own OS when the constraints plan its hardware for another one (--os windows with
    // a Linux report); its Pythons, CUDA, cuDNN, driver and runtime belong to that OS and are left out.
    QString otherReportOs;
    QString arch;
    int wsl = 0;
    int windowsBuild = 0;     // 0 = unknown
    QList<MachineGpu> nvidia; // in the report's order
    QList<MachineGpu> others;
    bool appleGpu = false;
    std::optional<bool> avx;
    QString cpuName;
    QStringList pythons; // installed, major.minor, newest first; 32-bit ones left out
    QString driverVersion;
    QString driverCuda;
    QStringList toolkits; // major.minor
    QStringList cudnn;    // full versions
    std::optional<bool> msvcPresent;

    bool hasGpu() const { return !nvidia.isEmpty() || !others.isEmpty(); }
};

// gpus may be null: compute capabilities then come from the report alone.
Machine readMachine(const HardwareReport &report, const SolverConstraints &constraints, const GpuTable *gpus);

// What every stage reads. The catalog outlives the context.
struct Context {
    const Catalog &catalog;
    Machine machine;
    SolverConstraints constraints;
    QString lastWindowsNative; // the last native-Windows GPU release, for messages sending users to WSL2
};

Context makeContext(const Catalog &catalog, const GpuTable *gpus, const HardwareReport &report,
                    const SolverConstraints &constraints);

// ---- 1. candidates -------------------------------------------------------------------------

enum class GpuFit { Native, Jit, TooOld, Unsupported, Unknown };

struct AssessedGpu {
    MachineGpu gpu;
    GpuFit fit = GpuFit::Unknown;
    Finding finding; // empty code when native
};

// How TensorFlow `release` can use one NVIDIA GPU: natively when the packages carry SASS of its
// major version at or below its capability and the CUDA can target it; through PTX JIT when only
// PTX fits or the GPU is newer than the CUDA's newest target of the same major; not at all below
// the lowest capability or above the CUDA's major.
AssessedGpu assessGpu(const Context &context, const MachineGpu &gpu, const TfRelease &release);

struct Candidate {
    const Route *route = nullptr;
    std::optional<TfRelease> release; // empty: the route itself, checked before its releases
    QStringList pythons;              // Pythons the release supports on this route, Python 3 first
    QString python; // the pinned one if offered, else the newest installed one offered, else the newest
    bool pythonInstalled = false;
    QList<AssessedGpu> gpus; // NVIDIA routes: every NVIDIA GPU, in the machine's order

    bool isRoute() const { return !release.has_value(); }
    // Some GPU may be used (natively, with JIT, or with a capability tfsetup cannot check).
    bool anyUsableGpu() const;
    // Usable GPUs exist, none natively, and one through JIT: the plan needs PTX JIT.
    bool needsJit() const;
};

// The routes to try: the catalog's, in order, less those the constraints exclude.
QList<Candidate> routeCandidates(const Context &context);
// A route's releases, newest first: those within its range (and its platform records), plus,
// to be rejected by name, the releases past its end where the route names a reason and those past
// the last release published for the machine's OS and processor. Releases that do not match the
// pinned TensorFlow or lack what the route needs (pip CUDA) are not candidates.
QList<Candidate> releaseCandidates(const Context &context, const Route &route);

// ---- 2. filters ----------------------------------------------------------------------------

// What one filter says about one candidate: rejected when reasons is not empty. An accepted
// candidate may still need actions first or carry warnings.
struct Verdict {
    QList<Finding> reasons;
    QList<Finding> warnings;
    QList<Finding> actions;

    bool rejected() const { return !reasons.isEmpty(); }
};

struct Filter {
    QString name;
    // A decisive filter's rejection is the whole answer and the later filters are not asked:
    // a release past the route's end is rejected for that alone, not also for its Python.
    bool decisive = false;
    Verdict (*check)(const Context &, const Candidate &) = nullptr;
};

// Route filters, in order: "platform" (OS, processor, WSL), "accelerator" (GPU presence), "cpu" (AVX).
const QList<Filter> &routeFilters();
// Release filters, in order: "release_window", "platform_release" and "plugin_release" (decisive), "python", "gpu"
// (compute capability, PTX JIT), "driver", "cuda_libraries", "msvc_runtime", "windows_build".
const QList<Filter> &releaseFilters();
// One filter of either list by name, or nullptr.
const Filter *filterNamed(const QString &name);

// Runs filters in order and joins their verdicts.
Verdict screen(const QList<Filter> &filters, const Context &context, const Candidate &candidate);

// The driver a plan needs: the minor-version-compatibility floor for the CUDA family or the
// toolkit's own driver, whichever is lower; the toolkit's when the plan needs PTX JIT. Empty on
// routes without CUDA.
QString driverFloor(const Context &context, const Candidate &candidate);

// ---- 3. ranking ----------------------------------------------------------------------------

// 0 GPU natively, 1 GPU after switching to WSL2, 2 GPU through PTX JIT, 3 CPU, 4 experimental.
int tierOf(const Route &route, bool needsJit, bool switchesToWsl2);
// Whether a ranks before b: tier; with preferPipCuda (the driver must stay as it is) CUDA from pip
// before a toolkit to install; verified before unverified; newest TensorFlow; fewest actions;
// routeOrder (the catalog's route names).
bool rankedBefore(const Plan &a, const Plan &b, const QStringList &routeOrder, bool preferPipCuda = false);
void rank(QList<Plan> &plans, const QStringList &routeOrder, bool preferPipCuda = false);

// ---- 4. explanation ------------------------------------------------------------------------

// The plan of an accepted release candidate: its facts, the filters' actions and warnings with
// the route's own, the per-GPU assessment, its tier and why.
Plan planFor(const Context &context, const Candidate &candidate, const Verdict &verdict);
// The per-GPU assessment in index order.
QList<PlanGpu> planGpus(const Candidate &candidate);

// The Solution from ranked plans and the rejections in the order they were made. anyRelease says
// whether any release was a candidate on a route that fits (else a pinned release is reported
// missing).
Solution explain(const Context &context, const QList<Plan> &rankedPlans, const QList<Rejection> &rejected,
                 bool anyRelease);

} // namespace tfsetup::core::stages
