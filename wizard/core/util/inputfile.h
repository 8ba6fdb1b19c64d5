#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace tfsetup::core {

// Input documents (profiles, bundle.json, records, hardware reports, plans, manifests) are a few
// kilobytes to a few megabytes; nothing tfsetup reads as a description is ever larger.
constexpr qint64 maxDocumentBytes = 16 * 1024 * 1024;
// A pasted TensorFlow log or a requirements lock: larger, still bounded.
constexpr qint64 maxTextInputBytes = 64 * 1024 * 1024;

// Reads a file given as input, whole, but never more than maxBytes: a path that is not a plain
// file (a folder, /dev/zero, a FIFO, a socket) or one larger than the limit is refused before
// anything is read, and the read itself stops at the limit (files such as those under /proc
// report no size). what names the file for the message ("the lab profile").
// Error codes: input_missing, input_not_file, input_too_large, input_unreadable.
Result<QByteArray> readInputFile(const QString &path, const QString &what, qint64 maxBytes = maxDocumentBytes);

// The same for standard input ("-"): at most maxBytes, then input_too_large.
Result<QByteArray> readStandardInput(const QString &what, qint64 maxBytes = maxTextInputBytes);

// The first field a JSON document names twice in one object ("files[0].sha256"), if any. The
// document must have parsed already (QJsonDocument bounds its nesting).
std::optional<QString> duplicateJsonKey(const QByteArray &json);

// readInputFile, then JSON that must be an object, naming no field twice; input_malformed
// otherwise.
Result<QJsonObject> readJsonObjectFile(const QString &path, const QString &what, qint64 maxBytes = maxDocumentBytes);

} // namespace tfsetup::core
