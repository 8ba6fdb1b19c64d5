#pragma once

#include "fetch/checksum.h"
#include "util/result.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <memory>

class QLockFile;

namespace tfsetup::core {

// Content-addressed store of verified files: DIR/<algorithm>/<first two hex digits>/<digest>.
// A lab can point every machine at one shared folder. Files enter only after their checksum
// verified, and are verified again when taken out (a cache on a shared drive can be tampered
// with): a file that no longer matches is moved to DIR/quarantine and reported.
class DownloadCache {
public:
    explicit DownloadCache(QString dir = {});

    static QString defaultDir();
    QString dir() const { return m_dir; }
    bool isEnabled() const { return !m_dir.isEmpty(); }

    QString pathFor(const Checksum &checksum) const;
    // Copies (or hard-links) the cached file to destination when it verifies. Returns false when
    // not cached; an error when it was cached but corrupt (then it was quarantined) or the copy failed.
    Result<bool> takeOut(const Checksum &checksum, const QString &destination,
                         const std::atomic<bool> *cancel = nullptr) const;
    // Adds a verified file; best effort (a read-only shared cache is fine).
    void putIn(const Checksum &checksum, const QString &verifiedFile) const;

    // Several tfsetup processes (a lab's machines on one shared folder, or unattended installs
    // started together) agree through a lock file per checksum that only one of them fetches a
    // file; the others wait, then take it out of the cache. Blocks (call it off the GUI thread)
    // until the lock is held, `cancel` is set, or `patience` ran out. A lock whose process died
    // is taken over. Null when there is nothing to lock (cache disabled, read-only shared cache,
    // cancelled, or out of patience: then go ahead without it).
    std::unique_ptr<QLockFile> lock(const Checksum &checksum, const std::atomic<bool> *cancel,
                                    std::chrono::milliseconds patience) const;

private:
    QString m_dir;
};

// Moves a file that failed verification out of the way, next to where it was, into a
// "quarantine" folder, so it can never be used by mistake. Returns the new path (empty if it
// could not be moved, in which case it was deleted). path must be absolute: a relative one is
// not moved anywhere (and empty is returned). The move never follows a link (renameConfined:
// from the file's folder into its quarantine folder).
QString quarantineFile(const QString &path);
// The same for root/relative, every folder on the way from root checked (the cache's own
// folder as root).
QString quarantineFile(const QString &root, const QString &relative);

// Puts `source` at `destination` atomically: hard link or copy to a temporary name beside the
// destination, then rename over it.
Status placeFile(const QString &source, const QString &destination, bool move);

} // namespace tfsetup::core
