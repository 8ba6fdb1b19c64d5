#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

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

// The Python versions ("3.7", "3.10") a release has CPython wheels for on os, oldest first; yanked
// files do not count. Pure wheels (py3-none-any) name no version and are not listed.
QStringList wheelPythons(const QJsonObject &releaseJson, const QString &os);

// From the project document (GET https://pypi.org/pypi/<project>/json, its "releases" object):
// the newest final release whose version starts with prefix ("2.10" → "2.10.1", not "2.10.0rc1"
// and not a release whose files are all yanked); empty when none.
QString newestRelease(const QJsonObject &projectJson, const QString &prefix);
// One release of the project document shaped like the release document ({"urls": [...]}), so
// wheelsFor() reads either.
QJsonObject releaseOf(const QJsonObject &projectJson, const QString &version);

} // namespace tfsetup::core
