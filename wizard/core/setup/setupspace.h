#pragma once

#include "fetch/downloadtypes.h"
#include "system/diskspace.h"

#include <QList>

namespace tfsetup::core {

struct ArtifactList;
struct Plan;
struct PyLock;
struct SetupOptions;

// A setup's needs, for DiskSpaceCheck::check (system/diskspace.h): the cache takes the downloads
// not yet there (less what a part file already holds); the environment takes the archives and
// the wheels unpacked (DiskSpaceCheck::unpackFactor × their size).
QList<SpaceNeed> setupSpaceNeeds(const Plan &plan, const ArtifactList &list, const PyLock &lock,
                                 const DownloadPlan &downloads, const SetupOptions &options);

} // namespace tfsetup::core
