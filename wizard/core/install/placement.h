#pragma once

#include "catalog/placementrules.h"
#include "install/archive.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QList>
#include <QString>

namespace tfsetup::core {

// Placing an extracted NVIDIA archive by the catalog's placement rules (catalog/placementrules.h).

// One file (or link) to put in place.
struct Placement {
    QString from; // relative to the extracted archive folder, top folder included
    QString to;   // relative to the environment
    ExtractedEntry entry;
};

// Where each extracted entry goes. A single top folder common to every entry is removed first.
// Entries no rule matches are left out. Fails when no layout fits, or when two entries would land
// on the same path.
Result<QList<Placement>> placeEntries(const PlacementRules &rules, OsFamily os, const QString &route, int cudnnMajor,
                                      const QString &component, const QList<ExtractedEntry> &entries);

// The shared top folder of the entries ("cuda", "cudnn-…-archive"), empty when there is none.
QString commonTopFolder(const QList<ExtractedEntry> &entries);

} // namespace tfsetup::core
