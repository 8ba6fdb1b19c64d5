#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QString>

#include <functional>

class QFile;

namespace tfsetup::core {

// Whether root + "/" + relative reaches a place below root without passing through a symbolic
// link (or a Windows junction) on the way: every folder between root and the last component is
// checked with lstat, not followed. The last component itself may be a link: renaming onto it
// or removing it replaces the link, never what it points to. A component that does not exist yet
// is fine (it will be made by tfsetup). A check only: the *Confined operations below are what
// make a write safe, because a check is always followed by a moment in which a link can appear.
bool reachesWithoutLinks(const QString &root, const QString &relative);

// Whether the path itself is a link (lstat), a junction on Windows included.
bool isLink(const QString &path);

// root/relative as a message shows it: native separators, root alone for an empty relative.
QString confinedPath(const QString &root, const QString &relative);

// --- Writes confined below a root ---
//
// Each operation reaches root/relative from an open handle of root, one folder at a time, and
// never follows a link below root: on POSIX every folder is opened relative to the one before
// with O_NOFOLLOW | O_DIRECTORY (made first when missing and the operation makes folders), and the
// file itself is opened, made, renamed or linked relative to its folder's handle. A link planted
// at any moment, before or after a check, makes the operation fail (error code
// "path_through_link"); it is never written through. root itself may be a link: it is the
// folder the user chose. relative is '/'-separated and has no "..". On Windows each component is
// checked with reachesWithoutLinks / isLink just before the operation instead.
//
// Errors carry a translated message naming root/relative; codes: path_through_link,
// permission_denied, disk_full, write_failed (read_failed for ConfinedOpen::ReadOnly).

enum class ConfinedOpen {
    CreateNew, // a new file; any existing entry of that name (a link included) is refused
    Replace,   // write, emptied when it exists; a link at the name is refused
    ReadWrite, // read and write, made when missing, kept when it exists (a resumable .part)
    ReadOnly,  // an existing file; a link at the name is refused
};

// Opens `file` on root/relative (folders made as needed, except for ReadOnly). The QFile owns the
// handle afterwards; its fileName() is empty.
Status openConfined(QFile &file, const QString &root, const QString &relative, ConfinedOpen how);

// Replaces root/relative with `bytes` in one step: a new temporary file in the same folder,
// written and synced, then renamed over the name (a link at the name is replaced, never written
// through). Folders are made as needed. executable adds the execute bits.
Status writeConfined(const QString &root, const QString &relative, const QByteArray &bytes, bool executable = false);

// Writes a file at a path the user named (a report, a saved profile, a bundle's record): its
// folder is the root (the user chose it; it may be a link; it must exist), and the file is replaced in one step
// as writeConfined() does. A link at the name itself is refused (path_is_link), and so is a
// folder, a device or a pipe there (not_plain_file): never written through, never replaced.
Status writeUserFile(const QString &path, const QByteArray &bytes);

// Renames fromRoot/fromRelative to toRoot/toRelative (replacing what is there, as rename(2)
// does: a link at the target name is replaced, not followed); the target's folders are made as
// needed. The entry moved may itself be a link (it moves as a link).
Status renameConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                      const QString &toRelative);

// Makes the symbolic link root/relative -> linkTarget (a name in the same folder: no '/').
// Folders are made as needed; an existing entry at the name is refused.
Status linkConfined(const QString &root, const QString &relative, const QString &linkTarget);

// Puts the plain file `source` at root/relative in one step: moved there (Move), or hard-linked
// where the file system allows it and else copied (LinkOrCopy), under a temporary name beside the
// target first, then renamed over it. What arrives under the temporary name must be a plain file
// (a source swapped for a link is refused and nothing is placed).
enum class PlaceHow { Move, LinkOrCopy };
Status placeConfined(const QString &source, const QString &root, const QString &relative, PlaceHow how);

// Replaces the link root/relative with a link to linkTarget in one step (a new link under a
// temporary name beside it, renamed over it), as when an environment moved and its own links are
// re-pointed. What is at the name must be a link; anything else is refused (path_through_link),
// and so is a link on the way.
Status relinkConfined(const QString &root, const QString &relative, const QString &linkTarget);

// Copies fromRoot/fromRelative to the new name toRoot/toRelative (folders made as needed, an
// existing entry refused), each reached as above. A plain file is copied with its permissions; a
// link is copied as the link itself (the same target text), never followed; anything else is
// refused.
Status copyConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                    const QString &toRelative);

// A folder below root, reached as the operations above reach it (made as needed, never through
// a link below root) and held open while a library that opens files only by name works in it
// (QLockFile): right before, leadsHere() says whether the folder's name still leads to this very
// folder; right after, holdsPlainFile() whether the file the library made by name is a plain
// file in this folder. Either false means a link was planted on the way: do not use the file.
class ConfinedFolder {
public:
    static Result<ConfinedFolder> open(const QString &root, const QString &relative);
    ConfinedFolder(ConfinedFolder &&other) noexcept;
    ConfinedFolder &operator=(ConfinedFolder &&other) noexcept;
    ConfinedFolder(const ConfinedFolder &) = delete;
    ConfinedFolder &operator=(const ConfinedFolder &) = delete;
    ~ConfinedFolder();

    QString path() const { return m_path; } // root/relative, as given
    // The walk hook is called with path()/name first, in both.
    bool leadsHere(const QString &name) const;
    bool holdsPlainFile(const QString &name) const;

private:
    ConfinedFolder() = default;
    QString m_path;
    QString m_root;
    QString m_relative;
    int m_fd = -1; // POSIX: the folder's handle
};

// Test seam: called with root/relative right before a confined operation walks to it (after
// any check its caller made), so a test can plant a link at the last moment, as a racing process
// would. Empty by default.
void setConfinedWalkHook(std::function<void(const QString &path)> hook);

} // namespace tfsetup::core
