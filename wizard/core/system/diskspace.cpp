#include "system/diskspace.h"

#include "system/systemview.h"

#include <QDir>
#include <QHash>

namespace tfsetup::core {

namespace {

QString megabytes(qint64 bytes)
{
    return QString::number((bytes + 1024 * 1024 - 1) / (1024 * 1024));
}

} // namespace

Status DiskSpaceCheck::check(const SystemView &system, const QList<SpaceNeed> &needs, qint64 margin)
{
    struct Volume {
        DiskSpace space;
        qint64 needed = 0;
        QStringList folders;
        QStringList purposes;
    };
    QList<Volume> volumes; // in the order of the needs, for a stable message
    for (const SpaceNeed &need : needs) {
        if (need.bytes <= 0 || need.folder.isEmpty())
            continue;
        const std::optional<DiskSpace> space = system.diskSpace(need.folder);
        if (!space || space->available < 0)
            continue;
        auto it = std::find_if(volumes.begin(), volumes.end(),
                               [&](const Volume &v) { return v.space.volume == space->volume; });
        if (it == volumes.end()) {
            volumes.append(Volume{*space, 0, {}, {}});
            it = volumes.end() - 1;
        }
        it->needed += need.bytes;
        it->folders.append(QDir::toNativeSeparators(need.folder));
        it->purposes.append(need.purpose);
    }
    for (const Volume &v : std::as_const(volumes)) {
        const qint64 wanted = v.needed + std::max<qint64>(0, margin);
        if (v.space.available >= wanted)
            continue;
        return Error{QStringLiteral("disk_full"),
                     tr("Not enough free disk space: %1 needs about %2 MB for %3, but only %4 MB are free there. Free "
                        "%5 MB or choose a folder on another disk, then try again.")
                         .arg(v.folders.join(QStringLiteral(", ")), megabytes(wanted),
                              v.purposes.join(QStringLiteral(", ")), megabytes(v.space.available),
                              megabytes(wanted - v.space.available)),
                     QStringLiteral("volume %1: %2 bytes needed (margin included), %3 available")
                         .arg(v.space.volume)
                         .arg(wanted)
                         .arg(v.space.available)};
    }
    return Ok{};
}

} // namespace tfsetup::core
