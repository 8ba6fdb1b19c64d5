#pragma once

// The install spec the wizard's Install page makes: SetupFlow::baseSpec from the plan, options and
// machine, then SetupFlow::completeSpec with the verified downloads and the lock.

#include "setup/setupflow.h"

namespace tfsetup::test {

inline core::Result<core::InstallSpec>
installSpecFor(const core::Plan &plan, const core::ArtifactList &list, const QList<core::DownloadResult> &downloaded,
               const core::SetupOptions &options, const core::HardwareReport &hardware, const core::PyLock &lock = {})
{
    auto base = core::SetupFlow::baseSpec(plan, options, hardware, &list);
    if (!base)
        return base;
    return core::SetupFlow::completeSpec(*base, list, lock, downloaded, options);
}

} // namespace tfsetup::test
