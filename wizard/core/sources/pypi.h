#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace tfsetup::core {

// One file of a release in the PyPI JSON API (pypi/warehouse docs/user/api/json.md): GET
// https://pypi.org/pypi/<project>/<version>/json, the "urls" array.
struct PypiFile {
    QString filename;
    QString url;
    QString sha256;
    qint64 size = -1;
    bool yanked = false;
};

// Which wheels of a release install on a target, to warn before pip fails.
struct WheelAvailability {
    QList<PypiFile> matching; // wheels whose tags fit the Python and OS
    QList<PypiFile> wheels;   // every wheel of the release
    bool any() const { return !matching.isEmpty(); }
};

// python: "3.10"; os: "linux" | "windows"; x86_64 only, as every GPU route is.
// Tags are read from the wheel file name (PEP 427: name-version[-build]-python-abi-platform.whl).
WheelAvailability wheelsFor(const QJsonObject &releaseJson, const QString &python, const QString &os);

} // namespace tfsetup::core
