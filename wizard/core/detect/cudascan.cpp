#include "detect/scanners.h"

namespace tfsetup::core {

void scanCudaToolkits(SystemView &system, HardwareReport &report)
{
    Q_UNUSED(system);
    Q_UNUSED(report);
}

void scanCudnn(SystemView &system, HardwareReport &report)
{
    Q_UNUSED(system);
    Q_UNUSED(report);
}

void scanMsvcRuntime(SystemView &system, HardwareReport &report)
{
    Q_UNUSED(system);
    Q_UNUSED(report);
}

} // namespace tfsetup::core
