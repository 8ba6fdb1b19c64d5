#include "install/gpuchoice.h"

#include "detect/hardwarereport.h"
#include "install/installspec.h"

#include <QJsonArray>
#include <QSet>

namespace tfsetup::core {

namespace {

const PlanGpu *gpuOf(const Plan &plan, int index)
{
    for (const PlanGpu &g : plan.gpus) {
        if (g.index == index)
            return &g;
    }
    return nullptr;
}

QString indexList(const QList<int> &indices)
{
    QStringList out;
    for (const int i : indices)
        out.append(QString::number(i));
    return out.join(u',');
}

QJsonObject gpuJson(const PlanGpu &g)
{
    return QJsonObject{{QStringLiteral("index"), g.index},
                       {QStringLiteral("name"), g.name},
                       {QStringLiteral("compute_capability"),
                        g.computeCapability.isEmpty() ? QJsonValue() : QJsonValue(g.computeCapability)},
                       {QStringLiteral("use"), PlanGpu::useName(g.use)},
                       {QStringLiteral("reason"), g.reason ? QJsonValue(g.reason->toJson()) : QJsonValue()}};
}

} // namespace

Result<GpuChoice> GpuChoice::parse(const QString &text, const QString &what)
{
    const QString trimmed = text.trimmed().toLower();
    GpuChoice choice;
    if (trimmed == u"default")
        return choice;
    if (trimmed == u"all") {
        choice.kind = Kind::All;
        return choice;
    }
    auto invalid = [&] {
        return Error{QStringLiteral("gpu_choice_invalid"),
                     tr("%1 takes \"default\", \"all\" or GPU numbers as nvidia-smi shows them, separated by commas "
                        "(such as 0,2); \"%2\" is none of these.")
                         .arg(what, text),
                     text};
    };
    choice.kind = Kind::These;
    for (const QString &part : trimmed.split(u',')) {
        bool ok = false;
        const int index = part.trimmed().toInt(&ok);
        if (!ok || index < 0 || index >= HardwareReport::maxGpus)
            return invalid();
        if (choice.indices.contains(index)) {
            return Error{QStringLiteral("gpu_choice_invalid"), tr("%1 names GPU %2 twice.").arg(what).arg(index), text};
        }
        choice.indices.append(index);
    }
    return choice;
}

const JsonShape &GpuChoice::jsonShape()
{
    // One check for both forms: an alternative's own problem would hide the other form's.
    static const JsonShape shape = JsonShape::anything().where([](const QJsonValue &v) {
        const QString expected = tr("must be \"default\", \"all\" or a list of GPU numbers as nvidia-smi shows "
                                    "them, such as [0, 2]");
        if (v.isString())
            return v.toString() == u"default" || v.toString() == u"all" ? QString() : expected;
        if (!v.isArray() || v.toArray().size() > HardwareReport::maxGpus)
            return expected;
        const QJsonArray list = v.toArray();
        if (list.isEmpty())
            return tr("must name at least one GPU (or be \"all\")");
        QSet<int> seen;
        for (const QJsonValue &i : list) {
            const qint64 index = i.toInteger(-1);
            if (!i.isDouble() || index < 0 || index >= HardwareReport::maxGpus || double(index) != i.toDouble())
                return expected;
            if (seen.contains(int(index)))
                return tr("names GPU %1 twice").arg(index);
            seen.insert(int(index));
        }
        return QString();
    });
    return shape;
}

GpuChoice GpuChoice::fromJson(const QJsonValue &value)
{
    GpuChoice choice;
    if (value.isArray()) {
        choice.kind = Kind::These;
        for (const QJsonValue &i : value.toArray())
            choice.indices.append(i.toInt());
    } else if (value.toString() == u"all") {
        choice.kind = Kind::All;
    }
    return choice;
}

Result<GpuChoice::Resolved> GpuChoice::resolve(const Plan &plan, const QString &what) const
{
    Resolved r;
    if (plan.gpus.isEmpty()) {
        // Nothing to check against (a route without CUDA, no GPU detected): the lab's word stands.
        if (kind == Kind::These)
            r.pins = indices;
        return r;
    }
    // Nothing pinned: TensorFlow sees every GPU and itself ignores one it cannot run on, so such
    // a GPU is named as left out with its reason, never silently counted as used. One whose
    // capability could not be checked is not hidden.
    const auto takeWhatTensorflowCan = [&plan](Resolved &out) {
        for (const PlanGpu &g : plan.gpus) {
            const bool knownUnusable = g.use == PlanGpu::Use::Unusable && g.reason
                && g.reason->code != u"gpu_capability_unknown";
            (knownUnusable ? out.leftOut : out.used).append(g);
        }
    };
    QList<int> chosen;
    switch (kind) {
    case Kind::All: takeWhatTensorflowCan(r); return r;
    case Kind::Default:
        chosen = plan.defaultGpuSelection();
        if (chosen.isEmpty()) {
            // No GPU's use could be confirmed: leave the choice to TensorFlow rather than hide one.
            takeWhatTensorflowCan(r);
            return r;
        }
        break;
    case Kind::These:
        for (const int index : indices) {
            const PlanGpu *g = gpuOf(plan, index);
            if (!g) {
                QList<int> present;
                for (const PlanGpu &p : plan.gpus)
                    present.append(p.index);
                return Error{QStringLiteral("gpu_choice_invalid"),
                             tr("%1 names GPU %2, but this computer's NVIDIA GPUs are %3 (as nvidia-smi numbers them).")
                                 .arg(what)
                                 .arg(index)
                                 .arg(indexList(present)),
                             indexList(indices)};
            }
            if (g->use == PlanGpu::Use::Unusable) {
                return Error{QStringLiteral("gpu_choice_invalid"),
                             tr("%1 names %2, which TensorFlow %3 cannot use: %4 Leave it out.")
                                 .arg(what, gpuTitle(*g), plan.tensorflow, g->reason ? g->reason->message : QString()),
                             indexList(indices)};
            }
        }
        chosen = indices;
        break;
    }
    r.pins = InstallSpec::pinnedGpus(chosen, plan.gpus.size());
    for (const int index : chosen)
        r.used.append(*gpuOf(plan, index));
    for (const PlanGpu &g : plan.gpus) {
        if (!chosen.contains(g.index))
            r.leftOut.append(g);
    }
    return r;
}

QString GpuChoice::gpuTitle(const PlanGpu &gpu)
{
    if (gpu.computeCapability.isEmpty())
        return tr("GPU %1, %2").arg(gpu.index).arg(gpu.name);
    return tr("GPU %1, %2 (compute capability %3)").arg(gpu.index).arg(gpu.name, gpu.computeCapability);
}

QStringList GpuChoice::describe(const Resolved &resolved)
{
    QStringList lines;
    if (!resolved.pins.isEmpty()) {
        QStringList used;
        for (const PlanGpu &g : resolved.used)
            used.append(gpuTitle(g));
        lines.append(used.isEmpty()
                         ? tr("The environment uses GPUs %1 (CUDA_VISIBLE_DEVICES).").arg(indexList(resolved.pins))
                         : tr("The environment uses %1 (CUDA_VISIBLE_DEVICES=%2).")
                               .arg(used.join(QStringLiteral("; ")), indexList(resolved.pins)));
    }
    for (const PlanGpu &g : resolved.leftOut) {
        lines.append(g.reason && g.use != PlanGpu::Use::Native
                         ? tr("%1 is left out: %2").arg(gpuTitle(g), g.reason->message)
                         : tr("%1 is left out: it was not chosen.").arg(gpuTitle(g)));
    }
    if (resolved.used.isEmpty() && !resolved.leftOut.isEmpty())
        lines.append(
            tr("No NVIDIA GPU of this computer can be used by this TensorFlow: it will run on the processor."));
    return lines;
}

QJsonObject GpuChoice::toJson(const Resolved &resolved)
{
    QJsonArray used;
    for (const PlanGpu &g : resolved.used)
        used.append(gpuJson(g));
    QJsonArray leftOut;
    // The GPUs this TensorFlow cannot run on, said plainly: which one, and why.
    QJsonArray skipped;
    for (const PlanGpu &g : resolved.leftOut) {
        leftOut.append(gpuJson(g));
        if (g.use == PlanGpu::Use::Unusable) {
            skipped.append(QJsonObject{{QStringLiteral("gpu"), gpuTitle(g)},
                                       {QStringLiteral("index"), g.index},
                                       {QStringLiteral("reason"), g.reason ? g.reason->message : QString()},
                                       {QStringLiteral("code"), g.reason ? QJsonValue(g.reason->code) : QJsonValue()}});
        }
    }
    return QJsonObject{{QStringLiteral("cuda_visible_devices"),
                        resolved.pins.isEmpty() ? QJsonValue() : QJsonValue(indexList(resolved.pins))},
                       {QStringLiteral("used"), used},
                       {QStringLiteral("left_out"), leftOut},
                       {QStringLiteral("skipped"), skipped}};
}

const Plan *matchingPlan(const Solution &solution, const QString &route, const QString &tensorflow,
                         const QString &python)
{
    auto matches = [&](const Plan &p) {
        // A profile names the release pip installs ("2.15.1"), the plan its tested one ("2.15.0").
        return p.route == route
            && (tensorflow.isEmpty() || p.tensorflow.section(u'.', 0, 1) == tensorflow.section(u'.', 0, 1))
            && (python.isEmpty() || p.python == python);
    };
    if (solution.recommended && matches(*solution.recommended))
        return &*solution.recommended;
    for (const Plan &p : solution.alternatives) {
        if (matches(p))
            return &p;
    }
    return nullptr;
}

Plan withGpuAssessment(Plan plan, const HardwareReport &report, const Catalog &catalog, const GpuTable *gpus)
{
    SolverConstraints constraints;
    constraints.tensorflow = plan.tensorflow.section(u'.', 0, 1);
    constraints.python = plan.python;
    constraints.route = plan.route;
    const Solution solution = Solver(catalog, gpus).solve(report, constraints);
    if (const Plan *assessed = matchingPlan(solution, plan.route, plan.tensorflow, plan.python))
        plan.gpus = assessed->gpus;
    return plan;
}

} // namespace tfsetup::core
