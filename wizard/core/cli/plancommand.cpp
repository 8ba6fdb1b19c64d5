#include "cli/cli.h"

namespace tfsetup::core::cli {

int runPlan(const QStringList &arguments)
{
    Q_UNUSED(arguments);
    printErr(Cli::tr("tfsetup plan is not available yet."));
    return Failure;
}

} // namespace tfsetup::core::cli
