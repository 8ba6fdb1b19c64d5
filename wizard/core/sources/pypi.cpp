#include "sources/pypi.h"

#include <QJsonArray>
#include <QStringList>

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
        if (file.yanked || !file.filename.endsWith(QStringLiteral(".whl")))
            continue;
        const QStringList parts = file.filename.chopped(4).split(u'-');
        if (parts.size() < 5)
            continue;
        const QString pythonTags = parts.at(parts.size() - 3);
        const QString platformTags = parts.at(parts.size() - 1);
        if (pythonTagFits(pythonTags, python) && platformTagFits(platformTags, os))
            result.matching.append(file);
    }
    return result;
}

} // namespace tfsetup::core
