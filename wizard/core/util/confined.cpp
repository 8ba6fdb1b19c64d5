#include "util/confined.h"

#include <QFileInfo>
#include <QStringList>

namespace tfsetup::core {

bool isLink(const QString &path)
{
    const QFileInfo info(path);
    return info.isSymLink() || info.isJunction();
}

bool reachesWithoutLinks(const QString &root, const QString &relative)
{
    const QStringList parts = relative.split(u'/', Qt::SkipEmptyParts);
    if (parts.contains(QStringLiteral("..")))
        return false;
    QString at = root;
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        at += u'/' + parts.at(i);
        const QFileInfo info(at);
        if (info.isSymLink() || info.isJunction())
            return false;
        if (!info.exists())
            return true; // below a folder that does not exist yet, nothing can be a link
        if (!info.isDir())
            return false;
    }
    return true;
}

} // namespace tfsetup::core
