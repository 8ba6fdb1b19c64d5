#include "solver/plan.h"

#include "catalog/version.h"
#include "util/jsonshape.h"

#include <QJsonArray>

#include <algorithm>

namespace tfsetup::core {

namespace {

class PlanText {
    Q_DECLARE_TR_FUNCTIONS(PlanText)
};

QJsonArray findings(const QList<Finding> &list)
{
    QJsonArray a;
    for (const Finding &f : list)
        a.append(f.toJson());
    return a;
}

bool contains(const QList<Finding> &list, const QString &code)
{
    return std::any_of(list.cbegin(), list.cend(), [&](const Finding &f) { return f.code == code; });
}

} // namespace

QJsonObject Finding::toJson() const
{
    return {{QStringLiteral("code"), code}, {QStringLiteral("message"), message}};
}

QString PlanGpu::useName(Use use)
{
    switch (use) {
    case Use::Native: return QStringLiteral("native");
    case Use::PtxJit: return QStringLiteral("ptx_jit");
    case Use::Unusable: break;
    }
    return QStringLiteral("unusable");
}

QString Plan::requirement() const
{
    return package + QStringLiteral("==") + version::majorMinor(tensorflow) + QStringLiteral(".*");
}

bool Plan::hasWarning(const QString &code) const
{
    return contains(warnings, code);
}

bool Plan::hasAction(const QString &code) const
{
    return contains(actions, code);
}

QList<int> Plan::defaultGpuSelection() const
{
    QList<int> selection;
    for (const PlanGpu::Use use : {PlanGpu::Use::Native, PlanGpu::Use::PtxJit}) {
        for (const PlanGpu &g : gpus) {
            if (g.use == use)
                selection.append(g.index);
        }
        if (!selection.isEmpty())
            break;
    }
    std::sort(selection.begin(), selection.end());
    return selection;
}

QJsonObject Plan::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("route"), route);
    o.insert(QStringLiteral("tensorflow"), tensorflow);
    o.insert(QStringLiteral("package"), package);
    o.insert(QStringLiteral("requirement"), requirement());
    o.insert(QStringLiteral("plugins"), QJsonArray::fromStringList(plugins));
    o.insert(QStringLiteral("python"), textOrNull(python));
    o.insert(QStringLiteral("python_installed"), pythonInstalled);
    o.insert(QStringLiteral("cuda"), textOrNull(cuda));
    o.insert(QStringLiteral("cudnn"), textOrNull(cudnn));
    o.insert(QStringLiteral("driver_min"), textOrNull(driverMin));
    o.insert(QStringLiteral("cuda_from"), textOrNull(cudaFrom));
    o.insert(QStringLiteral("libraries"), QJsonArray::fromStringList(libraries));
    const QList<int> selected = defaultGpuSelection();
    QJsonArray gpuArray;
    for (const PlanGpu &g : gpus) {
        gpuArray.append(
            QJsonObject{{QStringLiteral("index"), g.index},
                        {QStringLiteral("name"), g.name},
                        {QStringLiteral("compute_capability"), textOrNull(g.computeCapability)},
                        {QStringLiteral("use"), PlanGpu::useName(g.use)},
                        {QStringLiteral("reason"), g.reason ? QJsonValue(g.reason->toJson()) : QJsonValue()},
                        {QStringLiteral("selected_by_default"), selected.contains(g.index)}});
    }
    o.insert(QStringLiteral("gpus"), gpuArray);
    o.insert(QStringLiteral("warnings"), findings(warnings));
    o.insert(QStringLiteral("actions"), findings(actions));
    o.insert(QStringLiteral("verified"), !unverified);
    o.insert(QStringLiteral("why"), why);
    return o;
}

bool Rejection::has(const QString &code) const
{
    return contains(reasons, code);
}

QJsonObject Rejection::toJson() const
{
    return {{QStringLiteral("tensorflow"), textOrNull(tensorflow)},
            {QStringLiteral("route"), route},
            {QStringLiteral("reasons"), findings(reasons)}};
}

QJsonObject Solution::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("recommended"), recommended ? QJsonValue(recommended->toJson()) : QJsonValue());
    QJsonArray alt;
    for (const Plan &p : alternatives)
        alt.append(p.toJson());
    o.insert(QStringLiteral("alternatives"), alt);
    QJsonArray rej;
    for (const Rejection &r : rejected)
        rej.append(r.toJson());
    o.insert(QStringLiteral("rejected"), rej);
    o.insert(QStringLiteral("actions"), findings(actions));
    o.insert(QStringLiteral("warnings"), findings(warnings));
    return o;
}

const Rejection *Solution::rejection(const QString &route, const QString &tensorflowPrefix) const
{
    for (const Rejection &r : rejected) {
        if (r.route != route)
            continue;
        if (tensorflowPrefix.isEmpty()
                ? r.tensorflow.isEmpty()
                : !r.tensorflow.isEmpty() && version::matchesPrefix(tensorflowPrefix, r.tensorflow))
            return &r;
    }
    return nullptr;
}

bool Solution::anyRejectionHas(const QString &code) const
{
    return std::any_of(rejected.cbegin(), rejected.cend(), [&](const Rejection &r) { return r.has(code); });
}

bool Solution::hasAction(const QString &code) const
{
    return contains(actions, code);
}

bool Solution::hasWarning(const QString &code) const
{
    return contains(warnings, code);
}

QString Solution::text() const
{
    QString t;
    auto planLine = [](const Plan &p) {
        QString line = PlanText::tr("%1 on %2 with Python %3").arg(p.requirement(), p.route, p.python);
        if (!p.cuda.isEmpty())
            line += PlanText::tr(", CUDA %1, cuDNN %2, driver %3 or newer").arg(p.cuda, p.cudnn, p.driverMin);
        return line;
    };
    if (recommended) {
        t += PlanText::tr("Recommended: %1\n").arg(planLine(*recommended));
        t += PlanText::tr("Why: %1\n").arg(recommended->why);
    } else {
        t += PlanText::tr("No TensorFlow combination fits this machine.\n");
    }
    if (!actions.isEmpty()) {
        t += PlanText::tr("\nFirst:\n");
        for (const Finding &a : actions)
            t += QStringLiteral("  - ") + a.message + u'\n';
    }
    if (!warnings.isEmpty()) {
        t += PlanText::tr("\nWarnings:\n");
        for (const Finding &w : warnings)
            t += QStringLiteral("  - ") + w.message + u'\n';
    }
    if (!alternatives.isEmpty()) {
        t += PlanText::tr("\nAlternatives:\n");
        const qsizetype shown = std::min<qsizetype>(alternatives.size(), 6);
        for (qsizetype i = 0; i < shown; ++i)
            t += QStringLiteral("  - ") + planLine(alternatives.at(i)) + u'\n';
        if (alternatives.size() > shown)
            t += PlanText::tr("  (%n more; use --json to see all)\n", nullptr, int(alternatives.size() - shown));
    }
    if (!rejected.isEmpty()) {
        t += PlanText::tr("\nNot possible here:\n");
        // Route-level rejections first, then one line per route for its newest rejected release.
        QStringList routesShown;
        for (const Rejection &r : rejected) {
            if (r.tensorflow.isEmpty()) {
                t += PlanText::tr("  - %1: %2\n").arg(r.route, r.reasons.value(0).message);
                routesShown.append(r.route);
            }
        }
        for (const Rejection &r : rejected) {
            if (r.tensorflow.isEmpty() || routesShown.contains(r.route))
                continue;
            routesShown.append(r.route);
            QStringList messages;
            for (const Finding &f : r.reasons)
                messages.append(f.message);
            t += PlanText::tr("  - TensorFlow %1 on %2: %3\n").arg(r.tensorflow, r.route, messages.join(u' '));
        }
    }
    return t;
}

} // namespace tfsetup::core
