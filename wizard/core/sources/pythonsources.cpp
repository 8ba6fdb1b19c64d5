#include "sources/pythonsources.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tfsetup::core {

namespace {

bool isHex(QByteArrayView s, qsizetype length)
{
    if (s.size() != length)
        return false;
    for (const char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

bool isHex(const QString &s, qsizetype length)
{
    return isHex(QByteArrayView(s.toLatin1()), length) && s.size() == length;
}

QJsonArray recordsOf(const QByteArray &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (doc.isArray())
        return doc.array();
    if (doc.isObject())
        return doc.object().value(QStringLiteral("objects")).toArray();
    return {};
}

} // namespace

QString sha256FromSums(const QByteArray &sums, const QString &fileName)
{
    if (fileName.isEmpty())
        return {};
    const QByteArray wanted = fileName.toUtf8();
    QByteArray found;
    for (QByteArray line : sums.split('\n')) {
        if (line.endsWith('\r'))
            line.chop(1);
        // "<digest>  <name>" (text mode) or "<digest> *<name>" (binary mode, as sha256sum writes it).
        if (line.size() < 66 || !isHex(QByteArrayView(line).first(64), 64) || line.at(64) != ' ')
            continue;
        QByteArrayView name = QByteArrayView(line).sliced(65);
        if (name.startsWith(' ') || name.startsWith('*'))
            name = name.sliced(1);
        if (name != wanted)
            continue;
        const QByteArray digest = line.left(64).toLower();
        if (!found.isEmpty() && found != digest)
            return {};
        found = digest;
    }
    return QString::fromLatin1(found);
}

QString pythonOrgReleaseId(const QByteArray &json, const QString &version)
{
    const QString name = QStringLiteral("Python ") + version;
    for (const QJsonValue &v : recordsOf(json)) {
        const QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("name")).toString() != name)
            continue;
        QString uri = o.value(QStringLiteral("resource_uri")).toString();
        while (uri.endsWith(u'/'))
            uri.chop(1);
        const QString id = uri.section(u'/', -1);
        bool ok = false;
        if (id.toULongLong(&ok) > 0 && ok)
            return id;
    }
    return {};
}

std::optional<PythonOrgChecksum> pythonOrgFileChecksum(const QByteArray &json, const QString &fileName)
{
    if (fileName.isEmpty())
        return std::nullopt;
    for (const QJsonValue &v : recordsOf(json)) {
        const QJsonObject o = v.toObject();
        QString url = o.value(QStringLiteral("url")).toString();
        while (url.endsWith(u'/'))
            url.chop(1);
        if (url.section(u'/', -1) != fileName)
            continue;
        PythonOrgChecksum c;
        const QString sha = o.value(QStringLiteral("sha256_sum")).toString().trimmed().toLower();
        const QString md5 = o.value(QStringLiteral("md5_sum")).toString().trimmed().toLower();
        if (isHex(sha, 64))
            c.sha256 = sha;
        if (isHex(md5, 32))
            c.md5 = md5;
        const qint64 size = o.value(QStringLiteral("filesize")).toInteger(-1);
        c.size = size > 0 ? size : -1;
        if (c.sha256.isEmpty() && c.md5.isEmpty())
            return std::nullopt;
        return c;
    }
    return std::nullopt;
}

} // namespace tfsetup::core
