#include "detect/scanners.h"

namespace tfsetup::core {

void scanOs(SystemView &system, HardwareReport &report)
{
    report.os.family = osFamilyName(system.os());
    report.os.arch = system.arch();
}

void scanCpu(SystemView &system, HardwareReport &report)
{
    Q_UNUSED(system);
    Q_UNUSED(report);
}

} // namespace tfsetup::core
