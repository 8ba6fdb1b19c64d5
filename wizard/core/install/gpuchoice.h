#pragma once

#include "solver/plan.h"
#include "solver/solver.h"
#include "util/jsonshape.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// Which NVIDIA GPUs an environment uses, as a user or a lab profile asked: the plan's default
// (Plan::defaultGpuSelection), every GPU (nothing pinned: TensorFlow takes what it can), or these,
// by nvidia-smi index, in the order TensorFlow is to number them. Resolved against a plan's
// assessment of the machine's GPUs into InstallSpec::gpus.
struct GpuChoice {
    Q_DECLARE_TR_FUNCTIONS(GpuChoice)
public:
    enum class Kind { Default, All, These };
    Kind kind = Kind::Default;
    QList<int> indices; // These only

    // "default", "all" or indices separated by commas ("0,2"), as `--gpus` takes them. `what`
    // names the source for the message ("--gpus").
    static Result<GpuChoice> parse(const QString &text, const QString &what);
    // A lab profile's "gpus" (checked by jsonShape() first): "default", "all" or [0, 2].
    static GpuChoice fromJson(const QJsonValue &value);
    static const JsonShape &jsonShape();

    struct Resolved {
        QList<int> pins;        // for InstallSpec::gpus: empty = nothing pinned
        QList<PlanGpu> used;    // the GPUs the environment sees, in TensorFlow's order; empty when unknown
        QList<PlanGpu> leftOut; // GPUs of the machine it does not see, each with its reason
    };
    // This choice on the machine `plan` was solved for. Without an assessment of the GPUs (a route
    // without CUDA, none detected, or a plan the solver did not make for this machine) indices are
    // pinned as given, and nothing else is. Error "gpu_choice_invalid" for an index the machine
    // lacks or a GPU this TensorFlow cannot use, with its reason.
    Result<Resolved> resolve(const Plan &plan, const QString &what) const;

    // "GPU 1, Tesla K80 (compute capability 3.7)"; translated.
    static QString gpuTitle(const PlanGpu &gpu);
    // One line for each GPU left out, with its reason, and which ones are used; translated.
    // Empty when nothing is pinned and nothing left out.
    static QStringList describe(const Resolved &resolved);
    // Resolved as JSON for `--json` outputs: {"cuda_visible_devices": "0" | null, "used": [...],
    // "left_out": [{"index", "name", "compute_capability", "use", "reason"}]}.
    static QJsonObject toJson(const Resolved &resolved);
};

// The plan among a solution's recommendation and alternatives that a lab profile pins (route,
// TensorFlow release, Python), with the solver's assessment of this machine's GPUs; null when
// the solver made none like it here.
const Plan *matchingPlan(const Solution &solution, const QString &route, const QString &tensorflow,
                         const QString &python);
// `plan` (a lab profile's, LabSetup::planOf) with the GPUs assessed as the solver assesses them
// for the plan it makes like it on the machine of `report`; unchanged when it makes none.
Plan withGpuAssessment(Plan plan, const HardwareReport &report, const Catalog &catalog, const GpuTable *gpus);

} // namespace tfsetup::core
