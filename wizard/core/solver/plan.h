#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// One reason, warning or action: a stable code (see solver/README.md) and a translated message
// that names the numbers.
struct Finding {
    QString code;
    QString message;

    QJsonObject toJson() const;
};

// How one plan's TensorFlow can use one NVIDIA GPU of the machine.
struct PlanGpu {
    enum class Use {
        Native,   // machine code for the GPU is in the packages
        PtxJit,   // only through the driver's PTX JIT: minutes at the first start
        Unusable, // too old, an architecture the CUDA cannot target, or a capability tfsetup cannot check
    };

    // TensorFlow's device number when CUDA_DEVICE_ORDER=PCI_BUS_ID (what the launchers set): the
    // position among the machine's NVIDIA GPUs in PCI bus order, which is nvidia-smi's index.
    int index = 0;
    QString name;
    QString computeCapability; // "8.6"; empty when unknown
    Use use = Use::Unusable;
    // Why not natively (gpu_needs_ptx_jit, gpu_too_old, gpu_arch_unsupported, gpu_capability_unknown).
    std::optional<Finding> reason;

    static QString useName(Use use); // "native" | "ptx_jit" | "unusable"
};

// A combination that is expected to work on this machine, with what it takes to get there.
struct Plan {
    QString route;       // "linux-pip", "windows-native", …
    QString tensorflow;  // the tested release, "2.10.0"
    QString package;     // "tensorflow", "tensorflow[and-cuda]", "tensorflow-gpu"
    QStringList plugins; // "tensorflow-metal", …
    QString python;      // "3.10"
    bool pythonInstalled = false;
    QString cuda;          // empty on routes without CUDA
    QString cudnn;         // empty on routes without CUDA
    QString driverMin;     // empty on routes without CUDA
    QString cudaFrom;      // where the CUDA libraries come from: "pip" | "toolkit"; empty without CUDA
    QStringList libraries; // files TensorFlow opens, where tfsetup provides them (toolkit routes)
    // Every NVIDIA GPU of the machine, by index; empty on routes without CUDA.
    QList<PlanGpu> gpus;
    QList<Finding> warnings;
    QList<Finding> actions; // what must change on the machine first
    QString why;

    // Ranking inputs, see Solver. Lower tier is better.
    int tier = 0;
    bool unverified = false; // relies on a catalog record marked "verified": false

    // The pip requirement: "tensorflow[and-cuda]==2.21.*".
    QString requirement() const;
    bool hasWarning(const QString &code) const;
    bool hasAction(const QString &code) const;
    // The GPUs to use unless the user chooses: those this TensorFlow runs on without JIT, or, when
    // there are none, those it runs on with JIT. Indices into gpus' numbering, ascending. Empty
    // when no GPU's use could be confirmed (for example an unknown compute capability): then
    // leave the choice to TensorFlow rather than hide a GPU.
    QList<int> defaultGpuSelection() const;
    QJsonObject toJson() const;
};

struct Rejection {
    QString tensorflow; // empty when the whole route does not fit
    QString route;
    QList<Finding> reasons;

    bool has(const QString &code) const;
    QJsonObject toJson() const;
};

struct Solution {
    std::optional<Plan> recommended;
    QList<Plan> alternatives;
    QList<Rejection> rejected;
    QList<Finding> actions;
    QList<Finding> warnings;

    // The document `tfsetup plan --json` prints (solver/README.md).
    QJsonObject toJson() const;
    // Human-readable report for the terminal.
    QString text() const;

    // For tests and pages: the rejection of one release on one route (tensorflow empty = route level).
    const Rejection *rejection(const QString &route, const QString &tensorflowPrefix = {}) const;
    bool anyRejectionHas(const QString &code) const;
    bool hasAction(const QString &code) const;
    bool hasWarning(const QString &code) const;
};

} // namespace tfsetup::core
