#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace tfsetup::core {

class SystemView;

// Bytes a folder will have to take.
struct SpaceNeed {
    QString folder; // in the view's spelling (on the real machine: the host's)
    qint64 bytes = 0;
    QString purpose; // translated: "the downloads", "the unpacked libraries"
};

// Checked before anything starts, so a full disk is a clear error at the start, not a failed
// write half-way through. Needs on the same file system add up.
class DiskSpaceCheck {
    Q_DECLARE_TR_FUNCTIONS(DiskSpaceCheck)

public:
    // Error "disk_full" naming the folder, what it needs and what is free. A folder whose free
    // space cannot be told passes (the write will say it, as before). margin: kept free on each
    // file system beyond the needs (one file alone: none).
    static Status check(const SystemView &system, const QList<SpaceNeed> &needs, qint64 margin = marginBytes);

    // CUDA and cuDNN archives (xz / gzip / zip of shared libraries) unpack to at most about this
    // many times their size; measured on NVIDIA's 12.x and cuDNN 8.9 / 9 archives, rounded up.
    static constexpr int unpackFactor = 3;
    // Kept free beyond the estimate: logs, pip's temporary files, the file system's own needs.
    static constexpr qint64 marginBytes = 200LL * 1024 * 1024;
};

} // namespace tfsetup::core
