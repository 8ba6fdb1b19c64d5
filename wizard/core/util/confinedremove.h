#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QString>

namespace tfsetup::core {

// Deletions confined below a root, the counterpart of util/confined.h's writes: root/relative is
// reached one folder at a time from root's own handle, never through a link below root (on POSIX
// each folder opened relative to the one before with O_NOFOLLOW | O_DIRECTORY, the entry removed
// relative to its folder's handle with unlinkat). A link at the name itself is removed as the
// link; what it points to is never touched. On Windows each component is checked with
// reachesWithoutLinks / isLink just before the operation instead.
//
// Error codes: path_through_link, not_found, not_empty, is_folder, permission_denied,
// remove_failed; the message is translated and names root/relative.

// Removes the file (or link) root/relative. A folder there is refused (is_folder).
Status removeFileConfined(const QString &root, const QString &relative);

// Removes the folder root/relative when it is empty (not_empty otherwise).
Status removeEmptyFolderConfined(const QString &root, const QString &relative);

// Removes root/relative and everything below it. A link met on the way down is removed as the
// link, never descended into. Returns the bytes of the plain files removed.
Result<qint64> removeTreeConfined(const QString &root, const QString &relative);

// The SHA-256 (lower-case hex) of the plain file root/relative, opened without following a link
// (util/confined.h's ReadOnly).
Result<QByteArray> sha256Confined(const QString &root, const QString &relative);

// The bytes of the plain files below path (path itself may be a file), links neither followed nor
// counted. Blocking: call it off the GUI thread.
qint64 bytesBelow(const QString &path);

} // namespace tfsetup::core
