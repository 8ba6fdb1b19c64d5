#pragma once

// Small file helpers the tests share.

#include <QByteArray>
#include <QString>

namespace tfsetup::test {

// The whole file, or empty when it cannot be read.
QByteArray readFile(const QString &path);

// A pure-Python wheel (PEP 427 layout) of a stand-in package (by default "tensorflow") whose
// <package>/__init__.py is `module`, named and versioned as a plan's requirement asks. Built with
// `python` (the zipfile module); true when the wheel was written.
bool buildWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                const QByteArray &module, const QString &package = QStringLiteral("tensorflow"));

} // namespace tfsetup::test
