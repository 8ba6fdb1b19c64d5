#pragma once

#include "detect/hardwarereport.h"

#include <QCoreApplication>
#include <QStringList>

namespace tfsetup::core {

// Plain words a first-year student understands, shared by `tfsetup detect` and the Detect page.
class ReportSummary {
    Q_DECLARE_TR_FUNCTIONS(ReportSummary)
public:
    // One sentence per finding: "Your GPU: GeForce RTX 3060, compute capability 8.6; …".
    static QStringList lines(const HardwareReport &report);
    // One friendly note per check that did not work (report.problems), without the raw error,
    // which belongs in the details view and the log.
    static QStringList notes(const HardwareReport &report);
    // The whole report as plain text for "copy report" and the CLI, findings then details.
    static QString text(const HardwareReport &report);
};

} // namespace tfsetup::core
