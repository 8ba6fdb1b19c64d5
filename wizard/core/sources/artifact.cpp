#include "sources/artifact.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace tfsetup::core {

namespace {

struct TrustName {
    Artifact::Trust trust;
    const char16_t *name;
};

constexpr TrustName trustNames[] = {
    {Artifact::Trust::Official, u"official"},
    {Artifact::Trust::OfficialMd5, u"official-md5"},
    {Artifact::Trust::ThirdParty, u"third-party"},
    {Artifact::Trust::IndexHash, u"index-hash"},
    {Artifact::Trust::None, u"none"},
};

QJsonArray toArray(const QStringList &list)
{
    QJsonArray a;
    for (const QString &s : list)
        a.append(s);
    return a;
}

QStringList toStrings(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &v : value.toArray())
        list.append(v.toString());
    return list;
}

} // namespace

QString Artifact::trustName(Trust trust)
{
    for (const TrustName &t : trustNames) {
        if (t.trust == trust)
            return QString::fromUtf16(t.name);
    }
    return QStringLiteral("none");
}

Artifact::Trust Artifact::trustFromName(const QString &name, bool *ok)
{
    for (const TrustName &t : trustNames) {
        if (name == QStringView(t.name)) {
            if (ok)
                *ok = true;
            return t.trust;
        }
    }
    if (ok)
        *ok = false;
    return Trust::None;
}

QString Artifact::fileName() const
{
    const qsizetype slash = relativePath.lastIndexOf(u'/');
    return slash < 0 ? relativePath : relativePath.mid(slash + 1);
}

DownloadRequest Artifact::toDownloadRequest(const QString &destination) const
{
    DownloadRequest request;
    request.name = QStringLiteral("%1 %2 (%3)").arg(name, version, platform);
    request.destination = destination;
    request.expectedSize = size;
    if (!sha256.isEmpty())
        request.checksum = Checksum{Checksum::Algorithm::Sha256, sha256.toLatin1()};
    else if (!md5.isEmpty())
        request.checksum = Checksum{Checksum::Algorithm::Md5, md5.toLatin1()};
    if (kind == u"wheelhouse" || !request.checksum.isValid())
        return request; // no urls: the Downloader refuses it, which is what must happen
    for (const QUrl &url : urls) {
        if (url.scheme() == u"http" || url.scheme() == u"https")
            request.urls.append(url);
    }
    return request;
}

QJsonObject Artifact::toJson() const
{
    QJsonObject o{
        {QStringLiteral("name"), name},         {QStringLiteral("version"), version},
        {QStringLiteral("platform"), platform}, {QStringLiteral("kind"), kind},
        {QStringLiteral("source"), source},     {QStringLiteral("trust"), trustName(trust)},
        {QStringLiteral("optional"), optional}, {QStringLiteral("needs_admin"), needsAdmin},
    };
    QJsonArray urlArray;
    for (const QUrl &u : urls)
        urlArray.append(u.toString());
    o.insert(QStringLiteral("url"),
             urls.isEmpty() ? QJsonValue() : QJsonValue(urls.last().toString())); // the official one
    o.insert(QStringLiteral("urls"), urlArray);
    o.insert(QStringLiteral("sha256"), sha256.isEmpty() ? QJsonValue() : QJsonValue(sha256));
    o.insert(QStringLiteral("md5"), md5.isEmpty() ? QJsonValue() : QJsonValue(md5));
    o.insert(QStringLiteral("size"), size < 0 ? QJsonValue() : QJsonValue(double(size)));
    auto put = [&o](const char *key, const QString &value) {
        if (!value.isEmpty())
            o.insert(QLatin1String(key), value);
    };
    put("manifest", manifest);
    put("archive_format", archiveFormat);
    put("path", relativePath);
    put("requirement", requirement);
    put("index_url", indexUrl);
    put("checksum_url", checksumUrl);
    put("note", note);
    if (!installArguments.isEmpty())
        o.insert(QStringLiteral("install_arguments"), toArray(installArguments));
    return o;
}

Artifact Artifact::fromJson(const QJsonObject &o)
{
    Artifact a;
    a.name = o.value(QStringLiteral("name")).toString();
    a.version = o.value(QStringLiteral("version")).toString();
    a.platform = o.value(QStringLiteral("platform")).toString();
    a.kind = o.value(QStringLiteral("kind")).toString();
    a.source = o.value(QStringLiteral("source")).toString();
    a.trust = trustFromName(o.value(QStringLiteral("trust")).toString());
    a.optional = o.value(QStringLiteral("optional")).toBool();
    a.needsAdmin = o.value(QStringLiteral("needs_admin")).toBool();
    for (const QString &u : toStrings(o.value(QStringLiteral("urls"))))
        a.urls.append(QUrl(u));
    a.sha256 = o.value(QStringLiteral("sha256")).toString();
    a.md5 = o.value(QStringLiteral("md5")).toString();
    a.size = o.value(QStringLiteral("size")).toInteger(-1);
    a.manifest = o.value(QStringLiteral("manifest")).toString();
    a.archiveFormat = o.value(QStringLiteral("archive_format")).toString();
    a.relativePath = o.value(QStringLiteral("path")).toString();
    a.requirement = o.value(QStringLiteral("requirement")).toString();
    a.indexUrl = o.value(QStringLiteral("index_url")).toString();
    a.checksumUrl = o.value(QStringLiteral("checksum_url")).toString();
    a.note = o.value(QStringLiteral("note")).toString();
    a.installArguments = toStrings(o.value(QStringLiteral("install_arguments")));
    return a;
}

const Artifact *ArtifactList::find(const QString &name) const
{
    for (const Artifact &a : artifacts) {
        if (a.name == name)
            return &a;
    }
    return nullptr;
}

bool ArtifactList::hasWarning(const QString &code) const
{
    return std::any_of(warnings.begin(), warnings.end(), [&code](const Finding &f) { return f.code == code; });
}

QJsonObject ArtifactList::toJson() const
{
    QJsonArray a;
    for (const Artifact &artifact : artifacts)
        a.append(artifact.toJson());
    QJsonArray w;
    for (const Finding &f : warnings)
        w.append(f.toJson());
    return QJsonObject{{QStringLiteral("route"), route},
                       {QStringLiteral("tensorflow"), tensorflow},
                       {QStringLiteral("os"), os},
                       {QStringLiteral("artifacts"), a},
                       {QStringLiteral("warnings"), w}};
}

QString ArtifactList::text() const
{
    QString out;
    for (const Artifact &a : artifacts) {
        const QString checksum = !a.sha256.isEmpty()
            ? QStringLiteral("sha256 ") + a.sha256.left(16) + QStringLiteral("…")
            : !a.md5.isEmpty() ? QStringLiteral("md5 ") + a.md5
                               : QCoreApplication::translate("ArtifactList", "no checksum");
        out += QStringLiteral("%1 %2 [%3] %4\n    %5\n    %6 (%7)\n")
                   .arg(a.name, a.version, a.platform,
                        a.optional ? QCoreApplication::translate("ArtifactList", "(optional)") : QString(),
                        a.urls.isEmpty() ? a.requirement : a.urls.last().toString(), checksum,
                        Artifact::trustName(a.trust));
    }
    for (const Finding &f : warnings)
        out += QCoreApplication::translate("ArtifactList", "warning: %1").arg(f.message) + u'\n';
    return out;
}

} // namespace tfsetup::core
