#include "detect/scanners.h"

namespace tfsetup::core {

QCoro::Task<void> scanGpus(SystemView &system, HardwareReport &report, DetectOptions options)
{
    Q_UNUSED(system);
    Q_UNUSED(report);
    Q_UNUSED(options);
    co_return;
}

} // namespace tfsetup::core
