#pragma once

// Small file helpers the tests share.

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace tfsetup::test {

// The whole file, or empty when it cannot be read.
QByteArray readFile(const QString &path);

// A pure-Python wheel (PEP 427 layout) of a stand-in package (by default "tensorflow") whose
// <package>/__init__.py is `module`, named and versioned as a plan's requirement asks. Built with
// `python` (the zipfile module); true when the wheel was written.
bool buildWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                const QByteArray &module, const QString &package = QStringLiteral("tensorflow"));

// The same with dependencies: METADATA gets one "Requires-Dist:" line per entry of requiresDist
// (as written, e.g. "numpy>=1.23"), and "Requires-Python:" when requiresPython is not empty.
bool buildWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                const QByteArray &module, const QString &package, const QStringList &requiresDist,
                const QString &requiresPython = {});

// A valid pure wheel of about `bytes` bytes (within a few hundred) that pip installs, for
// download tests that need TensorFlow's size: its payload, <package>/_payload.bin, is stored
// uncompressed and is pseudo-random from a seed fixed by distribution and version, so the same
// call always gives the same file and no transfer can shrink it. About a second per 100 MiB.
bool buildLargeWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                     qint64 bytes);

// The bytes of the wheel's *.dist-info/METADATA (what an index serves as PEP 658 metadata),
// read with Debian's Python's zipfile; empty when the wheel cannot be read or has none.
QByteArray wheelMetadata(const QString &wheelPath);

} // namespace tfsetup::test
