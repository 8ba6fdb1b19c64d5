#include "util/names.h"

#include <QStringList>

namespace tfsetup::core {

namespace {

bool isSafeComponent(const QString &name, bool allowLeadingDot)
{
    if (name.isEmpty() || name.size() > 255 || name == u"." || name == u"..")
        return false;
    if (!allowLeadingDot && name.startsWith(u'.'))
        return false;
    static const QString forbidden = QStringLiteral("/\\:*?\"<>|");
    for (QChar c : name) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f || forbidden.contains(c))
            return false;
    }
    // Windows ignores a trailing dot or space, so "a." is "a" there.
    if (name.endsWith(u'.') || name.endsWith(u' ') || name.startsWith(u' '))
        return false;
    static const QStringList devices{QStringLiteral("CON"), QStringLiteral("PRN"), QStringLiteral("AUX"),
                                     QStringLiteral("NUL")};
    const QString stem = name.section(u'.', 0, 0).toUpper();
    if (devices.contains(stem))
        return false;
    if (stem.size() == 4 && (stem.startsWith(QStringLiteral("COM")) || stem.startsWith(QStringLiteral("LPT")))
        && stem.at(3).isDigit())
        return false;
    return true;
}

} // namespace

bool isSafePathName(const QString &name)
{
    return isSafeComponent(name, false);
}

bool isSafeRelativeName(const QString &path)
{
    if (path.isEmpty() || path.size() > 4096 || path.startsWith(u'/') || path.contains(u'\\'))
        return false;
    const QStringList parts = path.split(u'/');
    // "C:x" is relative to a drive's current folder on Windows: no colon before the first slash.
    if (parts.constFirst().contains(u':'))
        return false;
    for (const QString &p : parts) {
        if (p.isEmpty() || p == u"." || p == u"..")
            return false;
        for (QChar c : p) {
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                return false;
        }
    }
    return true;
}

} // namespace tfsetup::core
