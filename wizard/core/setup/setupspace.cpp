#include "setup/setupspace.h"

#include "fetch/downloader.h"
#include "setup/setupflow.h"
#include "sources/artifact.h"
#include "sources/pylock.h"

#include <QFileInfo>

namespace tfsetup::core {

QList<SpaceNeed> setupSpaceNeeds(const Plan &plan, const ArtifactList &list, const PyLock &lock,
                                 const DownloadPlan &downloads, const SetupOptions &options)
{
    qint64 download = 0;
    for (const DownloadRequest &r : downloads.requests) {
        if (r.expectedSize <= 0 || QFileInfo::exists(r.destination))
            continue;
        download += std::max<qint64>(0, r.expectedSize - QFileInfo(Downloader::partPathFor(r.destination)).size());
    }
    qint64 unpacked = 0;
    for (const Artifact &a : list.artifacts) {
        if (a.size > 0
            && (a.kind == u"cuda-redist-archive" || a.kind == u"cudnn-archive" || a.kind == u"python-archive"))
            unpacked += a.size * DiskSpaceCheck::unpackFactor;
    }
    // Wheels are zip archives of libraries and Python files: they unpack like NVIDIA's archives.
    unpacked += lock.totalBytes() * DiskSpaceCheck::unpackFactor;
    QList<SpaceNeed> needs;
    if (download > 0)
        needs.append({options.cacheDir, download, DiskSpaceCheck::tr("the downloads")});
    if (unpacked > 0)
        needs.append({options.environmentPath(plan), unpacked, DiskSpaceCheck::tr("the unpacked libraries")});
    return needs;
}

} // namespace tfsetup::core
