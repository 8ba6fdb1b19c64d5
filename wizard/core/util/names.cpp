#include "util/names.h"

#include <QCryptographicHash>
#include <QRegularExpression>

#include <QStringList>

namespace tfsetup::core {

namespace {

// Characters that read as a path separator, a drive colon or a dot to a person, or to a system
// that folds them (Windows' best-fit code pages turn U+FF0F into '/', NFKC turns U+2024 into '.').
bool looksLikeSeparatorOrDot(char32_t c)
{
    switch (c) {
    case 0x2215: // DIVISION SLASH
    case 0x2044: // FRACTION SLASH
    case 0x29F8: // BIG SOLIDUS
    case 0x29F9: // BIG REVERSE SOLIDUS
    case 0x2216: // SET MINUS
    case 0xFF0F: // FULLWIDTH SOLIDUS
    case 0xFF3C: // FULLWIDTH REVERSE SOLIDUS
    case 0xFE68: // SMALL REVERSE SOLIDUS
    case 0xFF1A: // FULLWIDTH COLON
    case 0x2024: // ONE DOT LEADER
    case 0x2025: // TWO DOT LEADER
    case 0x2026: // HORIZONTAL ELLIPSIS
    case 0xFF0E: // FULLWIDTH FULL STOP
    case 0xFE52: // SMALL FULL STOP
        return true;
    default: return false;
    }
}

bool isSafeComponentText(const QString &name, bool allowLeadingDot)
{
    if (name.isEmpty() || name == u"." || name == u"..")
        return false;
    if (!allowLeadingDot && name.startsWith(u'.'))
        return false;
    // '~' is the home folder to a shell and to a profile's installFolder, and "NAME~1" is a
    // Windows short name of another folder; '$', '%' and '`' are variables or commands to a
    // shell or cmd. A name is taken literally everywhere, so none of them is in one.
    static const QString forbidden = QStringLiteral("/\\:*?\"<>|~$%`");
    for (QChar c : name) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f || forbidden.contains(c))
            return false;
    }
    for (char32_t c : name.toUcs4()) {
        // Bidirectional overrides and zero-width characters make a name read as another one;
        // unpaired surrogates and unassigned code points have no file name on every system.
        const QChar::Category category = QChar::category(c);
        if (category == QChar::Other_Format || category == QChar::Other_Control || category == QChar::Other_Surrogate
            || category == QChar::Other_NotAssigned || category == QChar::Other_PrivateUse
            || category == QChar::Separator_Line || category == QChar::Separator_Paragraph
            || looksLikeSeparatorOrDot(c))
            return false;
    }
    // Windows ignores a trailing dot or space, so "a." is "a" there; any other space at either end
    // (no-break, ideographic) is invisible in a folder list.
    if (name.endsWith(u'.') || name.front().isSpace() || name.back().isSpace())
        return false;
    static const QStringList devices{QStringLiteral("CON"),   QStringLiteral("PRN"),    QStringLiteral("AUX"),
                                     QStringLiteral("NUL"),   QStringLiteral("CONIN$"), QStringLiteral("CONOUT$"),
                                     QStringLiteral("CLOCK$")};
    const QString stem = name.section(u'.', 0, 0).trimmed().toUpper();
    if (devices.contains(stem))
        return false;
    // COM1-9 and LPT1-9, also with a superscript digit (Windows treats "COM¹" as a device too).
    if (stem.size() == 4 && (stem.startsWith(QStringLiteral("COM")) || stem.startsWith(QStringLiteral("LPT")))
        && (stem.at(3).isDigit() || stem.at(3) == QChar(0x00B9) || stem.at(3) == QChar(0x00B2)
            || stem.at(3) == QChar(0x00B3)))
        return false;
    return true;
}

bool isSafeComponent(const QString &name, bool allowLeadingDot)
{
    // tfsetup adds to a name (".NAME.staging-XXXXXXXXX", ".NAME.tfsetup-work.json",
    // "tfsetup-NAME.desktop"), and file systems count bytes: 255 on Linux and macOS. 200 bytes of
    // UTF-8 leave room for every addition (and are fewer than Windows' 255 UTF-16 units).
    if (name.size() > 255 || name.toUtf8().size() > maxPathNameBytes)
        return false;
    if (!isSafeComponentText(name, allowLeadingDot))
        return false;
    // The same rules for the name as a system that folds compatibility characters reads it
    // ("COM¹" → "COM1", "\u2024\u2024" → "..").
    const QString folded = name.normalized(QString::NormalizationForm_KC);
    return folded == name || isSafeComponentText(folded, allowLeadingDot);
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

bool isJupyterKernelName(const QString &name)
{
    // Lower case only: Jupyter lists kernels by their folder name folded to lower case, so "TF"
    // and "tf" would be one kernel and the other would vanish from every list.
    static const QRegularExpression pattern(QStringLiteral("^[a-z0-9._-]+$"));
    return name.size() <= 100 && pattern.match(name).hasMatch() && isSafePathName(name);
}

QString jupyterKernelName(const QString &environmentName)
{
    QString out;
    bool replaced = false;
    for (const QChar c : environmentName) {
        const bool upper = c >= u'A' && c <= u'Z';
        const bool kept = upper || (c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'.' || c == u'_'
            || c == u'-';
        // A capital is folded, and counts as a change: "TF" and "tf" must not share a kernel.
        replaced = replaced || !kept || upper;
        if (kept)
            out += c.toLower();
        else if (!out.endsWith(u'-'))
            out += u'-';
    }
    while (out.startsWith(u'.') || out.startsWith(u'-'))
        out.remove(0, 1);
    while (out.endsWith(u'.') || out.endsWith(u'-'))
        out.chop(1);
    out.truncate(60);
    if (replaced || out.isEmpty()) {
        const QByteArray hash =
            QCryptographicHash::hash(environmentName.toUtf8(), QCryptographicHash::Sha256).toHex().left(8);
        out = (out.isEmpty() ? QStringLiteral("env") : out) + u'-' + QString::fromLatin1(hash);
    }
    return out;
}

} // namespace tfsetup::core
