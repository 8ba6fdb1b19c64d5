#include "util/text.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringDecoder>

#include <algorithm>
#include <optional>

namespace tfsetup::core {

namespace {

struct TextInput {
    Q_DECLARE_TR_FUNCTIONS(TextInput)
};

// How much of a decoded text is U+FFFD (bytes the encoding could not read), in per mille.
int replacedPerMille(const QString &text)
{
    if (text.isEmpty())
        return 0;
    const qsizetype replaced = text.count(QChar::ReplacementCharacter) + text.count(QChar(0));
    return int(replaced * 1000 / text.size());
}

std::optional<QString> decodeWith(QStringDecoder decoder, QByteArrayView bytes)
{
    if (!decoder.isValid())
        return std::nullopt;
    QString text = decoder(bytes);
    if (decoder.hasError())
        return std::nullopt;
    return text;
}

} // namespace

bool needsVisibleEscape(char32_t c)
{
    if (c == U'\n' || c == U'\t')
        return false;
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x200e || c == 0x200f || c == 0x2028 || c == 0x2029
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

QString visibleText(QStringView text)
{
    const bool clean = std::none_of(text.begin(), text.end(), [](QChar c) { return needsVisibleEscape(c.unicode()); });
    if (clean)
        return text.toString();
    QString out;
    out.reserve(text.size() + 16);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == u'\n')
            continue; // a Windows line end
        if (needsVisibleEscape(c.unicode()))
            out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

Result<QString> decodeTextInput(const QByteArray &bytes, const QString &what)
{
    if (bytes.isEmpty())
        return QString();
    const auto utf16 = [&](QStringDecoder::Encoding encoding, qsizetype skip) -> Result<QString> {
        QStringDecoder decoder(encoding, QStringDecoder::Flag::Stateless);
        QString text = decoder(QByteArrayView(bytes).sliced(skip));
        if (replacedPerMille(text) > 100) {
            return Error{QStringLiteral("text_encoding_unknown"),
                         TextInput::tr("%1 looks like UTF-16 text but is damaged. Save it again as UTF-8 (in "
                                       "PowerShell: Out-File -Encoding utf8) and try again.")
                             .arg(what),
                         {}};
        }
        return text;
    };
    const QByteArrayView view(bytes);
    if (view.startsWith("\xEF\xBB\xBF"))
        return QString::fromUtf8(view.sliced(3));
    if (view.startsWith("\xFF\xFE"))
        return utf16(QStringDecoder::Utf16LE, 2);
    if (view.startsWith("\xFE\xFF"))
        return utf16(QStringDecoder::Utf16BE, 2);
    // UTF-16 without a BOM: ASCII text has a NUL in every other byte.
    const qsizetype sample = std::min<qsizetype>(bytes.size() & ~qsizetype(1), 8192);
    qsizetype evenNul = 0, oddNul = 0;
    for (qsizetype i = 0; i < sample; ++i) {
        if (bytes.at(i) == '\0')
            ++(i % 2 == 0 ? evenNul : oddNul);
    }
    const qsizetype pairs = sample / 2;
    if (pairs > 0 && oddNul * 10 > pairs * 3 && evenNul * 10 < pairs)
        return utf16(QStringDecoder::Utf16LE, 0);
    if (pairs > 0 && evenNul * 10 > pairs * 3 && oddNul * 10 < pairs)
        return utf16(QStringDecoder::Utf16BE, 0);

    if (auto text = decodeWith(QStringDecoder(QStringDecoder::Utf8), view); text && !text->contains(QChar(0)))
        return *text;
    // Not UTF-8: the local code page (what cmd and older tools write on Windows), when it reads
    // every byte; else UTF-8 with the unreadable bytes replaced, as long as they are few (a
    // path in another encoding inside an English log leaves the message text intact).
    if (auto text = decodeWith(QStringDecoder(QStringDecoder::System), view); text && !text->contains(QChar(0)))
        return *text;
    QString lenient = QString::fromUtf8(view);
    if (replacedPerMille(lenient) <= 100)
        return lenient;
    return Error{QStringLiteral("text_encoding_unknown"),
                 TextInput::tr("%1 is not text tfsetup can read (not UTF-8, UTF-16 or this computer's code page). "
                               "Open it in an editor, save it as UTF-8 and try again.")
                     .arg(what),
                 {}};
}

QString redactSecrets(const QString &text)
{
    if (!text.contains(QLatin1String("://")) && !text.contains(u'='))
        return text;
    // scheme://userinfo@ : the userinfo has neither '/' nor '@' nor white space.
    static const QRegularExpression userinfo(QStringLiteral("\\b([A-Za-z][A-Za-z0-9+.-]*://)([^/@\\s?#\"'<>]+)@"));
    static const QRegularExpression secretQuery(
        QStringLiteral("([?&;](?:access_token|token|auth|password|passwd|pwd|secret|key|api_key|apikey|private_token|"
                       "signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token)=)([^&#\\s\"'<>]+)"),
        QRegularExpression::CaseInsensitiveOption);
    QString out;
    qsizetype last = 0;
    for (auto it = userinfo.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const QString info = m.captured(2);
        const qsizetype colon = info.indexOf(u':');
        // user:password -> user:***; a lone token (pip's https://TOKEN@host/) -> ***
        const QString masked = colon > 0 ? info.left(colon) + QStringLiteral(":***") : QStringLiteral("***");
        out += QStringView(text).mid(last, m.capturedStart(2) - last);
        out += masked;
        last = m.capturedEnd(2);
    }
    out += QStringView(text).mid(last);
    out.replace(secretQuery, QStringLiteral("\\1***"));
    return out;
}

bool holdsSecret(const QString &text)
{
    return redactSecrets(text) != text;
}

} // namespace tfsetup::core
