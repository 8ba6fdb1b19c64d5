#include "sources/pypi.h"

#include "catalog/version.h"

#include <QJsonArray>
#include <QStringList>

#include <algorithm>

namespace tfsetup::core {

namespace {

bool pythonTagFits(const QString &tags, const QString &python)
{
    const QString cp = QStringLiteral("cp") + QString(python).remove(u'.');
    const QString major = QStringLiteral("py") + python.section(u'.', 0, 0);
    const QStringList list = tags.split(u'.');
    return list.contains(cp) || list.contains(major) || list.contains(QStringLiteral("py2.py3"));
}

bool platformTagFits(const QString &tags, const QString &os)
{
    for (const QString &tag : tags.split(u'.')) {
        if (tag == u"any")
            return true;
        if (os == u"windows" && tag == u"win_amd64")
            return true;
        if (os == u"linux" && (tag.startsWith(QStringLiteral("manylinux")) || tag.startsWith(QStringLiteral("linux")))
            && tag.endsWith(QStringLiteral("_x86_64")))
            return true;
    }
    return false;
}

// A wheel's python and platform tag sets (PEP 427: name-version[-build]-python-abi-platform.whl);
// false for anything else.
bool wheelTags(const QString &filename, QString *pythonTags, QString *platformTags)
{
    if (!filename.endsWith(QStringLiteral(".whl")))
        return false;
    const QStringList parts = filename.chopped(4).split(u'-');
    if (parts.size() < 5)
        return false;
    *pythonTags = parts.at(parts.size() - 3);
    *platformTags = parts.at(parts.size() - 1);
    return true;
}

} // namespace

WheelAvailability wheelsFor(const QJsonObject &releaseJson, const QString &python, const QString &os)
{
    WheelAvailability result;
    for (const QJsonValue &v : releaseJson.value(QStringLiteral("urls")).toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("packagetype")).toString() != u"bdist_wheel")
            continue;
        PypiFile file;
        file.filename = o.value(QStringLiteral("filename")).toString();
        file.url = o.value(QStringLiteral("url")).toString();
        file.sha256 = o.value(QStringLiteral("digests")).toObject().value(QStringLiteral("sha256")).toString();
        file.size = o.value(QStringLiteral("size")).toInteger(-1);
        file.yanked = o.value(QStringLiteral("yanked")).toBool();
        result.wheels.append(file);
        QString pythonTags, platformTags;
        if (file.yanked || !wheelTags(file.filename, &pythonTags, &platformTags))
            continue;
        if (pythonTagFits(pythonTags, python) && platformTagFits(platformTags, os))
            result.matching.append(file);
    }
    return result;
}

QStringList wheelPythons(const QJsonObject &releaseJson, const QString &os)
{
    QStringList out;
    for (const QJsonValue &v : releaseJson.value(QStringLiteral("urls")).toArray()) {
        const QJsonObject o = v.toObject();
        QString pythonTags, platformTags;
        if (o.value(QStringLiteral("yanked")).toBool()
            || !wheelTags(o.value(QStringLiteral("filename")).toString(), &pythonTags, &platformTags)
            || !platformTagFits(platformTags, os))
            continue;
        for (const QString &tag : pythonTags.split(u'.')) {
            // "cp310" → "3.10"; the first digit is the major version (CPython 3.x tags).
            if (!tag.startsWith(QStringLiteral("cp")) || tag.size() < 4)
                continue;
            const QString digits = tag.mid(2);
            const QString python = digits.left(1) + u'.' + digits.mid(1);
            if (version::isNumber(digits) && !out.contains(python))
                out.append(python);
        }
    }
    std::sort(out.begin(), out.end(), [](const QString &a, const QString &b) { return version::less(a, b); });
    return out;
}

QString newestRelease(const QJsonObject &projectJson, const QString &prefix)
{
    const QJsonObject releases = projectJson.value(QStringLiteral("releases")).toObject();
    QString newest;
    for (auto it = releases.begin(); it != releases.end(); ++it) {
        const QString candidate = it.key();
        if (!version::isValid(candidate) || !version::matchesPrefix(prefix, candidate))
            continue;
        const QJsonArray files = it.value().toArray();
        const bool available = std::any_of(files.begin(), files.end(), [](const QJsonValue &f) {
            return !f.toObject().value(QStringLiteral("yanked")).toBool();
        });
        if (available && (newest.isEmpty() || version::less(newest, candidate)))
            newest = candidate;
    }
    return newest;
}

QJsonObject releaseOf(const QJsonObject &projectJson, const QString &version)
{
    return QJsonObject{
        {QStringLiteral("urls"), projectJson.value(QStringLiteral("releases")).toObject().value(version).toArray()}};
}

} // namespace tfsetup::core
