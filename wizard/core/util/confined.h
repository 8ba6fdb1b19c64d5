#pragma once

#include <QString>

namespace tfsetup::core {

// Whether root + "/" + relative reaches a place below root without passing through a symbolic
// link (or a Windows junction) on the way: every folder between root and the last component is
// checked with lstat, not followed. The last component itself may be a link: renaming onto it
// or removing it replaces the link, never what it points to. A component that does not exist yet
// is fine (it will be made by tfsetup). Used before every write under an environment or a cache
// a user can change, so a planted link cannot send a write elsewhere.
bool reachesWithoutLinks(const QString &root, const QString &relative);

// Whether the path itself is a link (lstat), a junction on Windows included.
bool isLink(const QString &path);

} // namespace tfsetup::core
