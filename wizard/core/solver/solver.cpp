#include "solver/solver.h"

#include "solver/stages.h"

namespace tfsetup::core {

Solver::Solver(const Catalog &catalog, const GpuTable *gpus)
    : m_catalog(catalog)
    , m_gpus(gpus)
{}

Solution Solver::solve(const HardwareReport &report, const SolverConstraints &constraints) const
{
    const stages::Context context = stages::makeContext(m_catalog, m_gpus, report, constraints);
    QList<Plan> plans;
    QList<Rejection> rejected;
    bool anyRelease = false;
    for (const stages::Candidate &route : stages::routeCandidates(context)) {
        const stages::Verdict fit = stages::screen(stages::routeFilters(), context, route);
        if (fit.rejected()) {
            rejected.append({QString(), route.route->name, fit.reasons});
            continue;
        }
        for (const stages::Candidate &candidate : stages::releaseCandidates(context, *route.route)) {
            anyRelease = true;
            const stages::Verdict verdict = stages::screen(stages::releaseFilters(), context, candidate);
            if (verdict.rejected())
                rejected.append({candidate.release->version, route.route->name, verdict.reasons});
            else
                plans.append(stages::planFor(context, candidate, verdict));
        }
    }
    stages::rank(plans, m_catalog.routeNames(), constraints.keepDriver);
    return stages::explain(context, plans, rejected, anyRelease);
}

} // namespace tfsetup::core
