#pragma once

#include <QString>

namespace tfsetup::core {

// A name that becomes one component of a path tfsetup writes (an environment, a kernel, a
// bundle artifact): non-empty, at most 255 characters, no '/', '\\', ':', control characters or
// characters Windows forbids, not "." or "..", not starting with a dot (tfsetup's own staging and
// backup folders do) and not a Windows device name (CON, NUL, COM1, …). Checked once, where the
// name is read from a document or the command line.
bool isSafePathName(const QString &name);

// A relative path that stays below the folder it is joined to: '/'-separated, not absolute, no
// drive, no backslash, no empty, "." or ".." component, no control characters. (Other characters
// are allowed: pip installs files with any name.)
bool isSafeRelativeName(const QString &path);

} // namespace tfsetup::core
