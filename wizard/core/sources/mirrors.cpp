#include "sources/mirrors.h"

#include "catalog/sourcecatalog.h"

#include <QDir>
#include <QFileInfo>

namespace tfsetup::core {

QUrl Mirror::urlFor(const QString &relativePath) const
{
    QUrl url = base;
    url.setPath(base.path() + u'/' + relativePath);
    return url;
}

QString Mirror::localPathFor(const QString &relativePath) const
{
    if (!isLocal())
        return {};
    return QDir(base.toLocalFile()).filePath(relativePath);
}

Result<Mirror> MirrorSet::parse(const QString &spec, const SourceCatalog *catalog)
{
    Mirror mirror;
    mirror.origin = QStringLiteral("nvidia");
    QString rest = spec.trimmed();
    const qsizetype eq = rest.indexOf(u'=');
    const qsizetype colon = rest.indexOf(u':');
    if (eq > 0 && (colon < 0 || eq < colon)) {
        mirror.origin = rest.left(eq);
        rest = rest.mid(eq + 1);
        if (mirror.origin != u"nvidia" && mirror.origin != u"python" && mirror.origin != u"pypi"
            && mirror.origin != u"python-build-standalone") {
            return Error{QStringLiteral("mirror_invalid"),
                         tr("Unknown mirror kind \"%1\": use nvidia=, python=, python-build-standalone= or pypi=.")
                             .arg(mirror.origin),
                         spec};
        }
        if (mirror.origin == u"pypi" && catalog) {
            if (const auto preset = catalog->pypiMirror(rest))
                rest = preset->url;
        }
    }
    if (rest.startsWith(QStringLiteral("http://")) || rest.startsWith(QStringLiteral("https://"))
        || rest.startsWith(QStringLiteral("file://"))) {
        mirror.base = QUrl(rest, QUrl::StrictMode);
        if (!mirror.base.isValid() || mirror.base.host().isEmpty() != mirror.base.isLocalFile()) {
            return Error{QStringLiteral("mirror_invalid"),
                         tr("The mirror \"%1\" is not a valid address. Give an http(s):// or file:// URL or a folder.")
                             .arg(spec),
                         mirror.base.errorString()};
        }
    } else {
        const QFileInfo dir(rest);
        if (!dir.isDir()) {
            return Error{
                QStringLiteral("mirror_invalid"),
                tr("The mirror folder \"%1\" does not exist. Check the path, or give an http(s):// URL.").arg(rest),
                {}};
        }
        mirror.base = QUrl::fromLocalFile(dir.absoluteFilePath());
    }
    QString path = mirror.base.path();
    // A local root keeps its "/"; a server's root ("http://mirror/") is the empty path, so that
    // urlFor() makes "/compute/…", not "//compute/…".
    while (path.endsWith(u'/') && (path.size() > 1 || !mirror.isLocal()))
        path.chop(1);
    mirror.base.setPath(path);
    return mirror;
}

QList<Mirror> MirrorSet::forOrigin(const QString &origin) const
{
    QList<Mirror> list;
    for (const Mirror &m : m_mirrors) {
        if (m.origin == origin)
            list.append(m);
    }
    return list;
}

} // namespace tfsetup::core
