#include "sources/simpleindex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <array>
#include <cmath>
#include <cstring>
#include <optional>

namespace tfsetup::core {

namespace {

bool isHexDigit(char16_t c)
{
    return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}

// 64 hex digits, lower-cased; empty for anything else.
QByteArray sha256Hex(QStringView value)
{
    if (value.size() != 64)
        return {};
    for (const QChar c : value) {
        if (!isHexDigit(c.unicode()))
            return {};
    }
    return value.toLatin1().toLower();
}

// "sha256=HEX" out of a fragment such as "sha256=…" or "egg=x&sha256=…".
QByteArray fragmentSha256(const QString &fragment)
{
    for (const QStringView part : QStringView(fragment).split(u'&')) {
        if (part.startsWith(u"sha256="))
            return sha256Hex(part.sliced(7));
    }
    return {};
}

// Relative references are resolved against base. A file must be somewhere a download can go: a
// host, or a file: path. Anything else ("https:x" after a stray <base href="https:">, "mailto:",
// a relative page URL) gives an empty URL.
QUrl resolveUrl(const QUrl &base, const QString &reference)
{
    const QUrl relative(reference, QUrl::TolerantMode);
    if (!relative.isValid())
        return {};
    const QUrl url = base.resolved(relative);
    if (!url.isValid() || url.isRelative())
        return {};
    if (url.host().isEmpty() && !(url.scheme() == u"file" && url.path().startsWith(u'/')))
        return {};
    // QUrl keeps some characters (noncharacters, say) decoded or encoded as it was given them, and
    // compares that form: reading back the encoded URL gives one form for one address.
    return QUrl::fromEncoded(url.toEncoded());
}

// ---- HTML ---------------------------------------------------------------------------------

// Named references pages are seen to use; others stay as written.
std::optional<char16_t> namedEntity(QStringView name)
{
    static constexpr struct {
        const char16_t *name;
        char16_t value;
    } entities[] = {{u"amp", u'&'}, {u"AMP", u'&'},  {u"lt", u'<'},   {u"LT", u'<'},    {u"gt", u'>'},
                    {u"GT", u'>'},  {u"quot", u'"'}, {u"QUOT", u'"'}, {u"apos", u'\''}, {u"nbsp", u'\u00a0'}};
    for (const auto &e : entities) {
        if (name == QStringView(e.name))
            return e.value;
    }
    return std::nullopt;
}

// Decodes &name; &#NN; &#xHH; (the semicolon optional after a number, as browsers allow).
// Invalid code points become U+FFFD, as in a browser.
QString decodeEntities(const QString &text)
{
    if (!text.contains(u'&'))
        return text;
    QString out;
    out.reserve(text.size());
    const qsizetype n = text.size();
    qsizetype i = 0;
    while (i < n) {
        const QChar c = text[i];
        if (c != u'&') {
            out += c;
            ++i;
            continue;
        }
        if (i + 1 < n && text[i + 1] == u'#') {
            qsizetype j = i + 2;
            const bool hex = j < n && (text[j] == u'x' || text[j] == u'X');
            if (hex)
                ++j;
            const qsizetype digitsStart = j;
            char32_t value = 0;
            bool tooLarge = false;
            while (j < n && (hex ? isHexDigit(text[j].unicode()) : (text[j] >= u'0' && text[j] <= u'9'))) {
                const char16_t d = text[j].unicode();
                const char32_t digit = d <= u'9' ? d - u'0' : (d | 0x20) - u'a' + 10;
                if (!tooLarge) {
                    value = value * (hex ? 16 : 10) + digit;
                    tooLarge = value > 0x10ffff;
                }
                ++j;
            }
            if (j == digitsStart) {
                out += c;
                ++i;
                continue;
            }
            if (j < n && text[j] == u';')
                ++j;
            if (tooLarge || value == 0 || (value >= 0xd800 && value <= 0xdfff))
                value = 0xfffd;
            out += QString::fromUcs4(&value, 1);
            i = j;
            continue;
        }
        // Named: letters up to ';' (the longest known name is short, so look only a few ahead).
        qsizetype j = i + 1;
        while (j < n && j - i <= 8 && text[j].isLetter() && text[j].unicode() < 0x80)
            ++j;
        if (j < n && text[j] == u';') {
            if (const auto value = namedEntity(QStringView(text).sliced(i + 1, j - i - 1))) {
                out += QChar(*value);
                i = j + 1;
                continue;
            }
        }
        out += c;
        ++i;
    }
    return out;
}

bool isHtmlSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

bool isAsciiLetter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char lowerAscii(char c)
{
    return (c >= 'A' && c <= 'Z') ? char(c + ('a' - 'A')) : c;
}

bool startsWithNoCase(const char *p, const char *end, const char *word)
{
    for (; *word; ++word, ++p) {
        if (p == end || lowerAscii(*p) != *word)
            return false;
    }
    return true;
}

// The attributes links are read from. Others are skipped unread: a tag may carry any number of
// them, and keeping them would make looking one up cost more with each.
enum class Attribute { Href, RequiresPython, Yanked, DistInfoMetadata, CoreMetadata, Count };
using Attributes = std::array<std::optional<QString>, size_t(Attribute::Count)>;

std::optional<Attribute> attributeNamed(const QByteArray &lowerCaseName)
{
    static constexpr std::pair<const char *, Attribute> known[] = {
        {"href", Attribute::Href},
        {"data-requires-python", Attribute::RequiresPython},
        {"data-yanked", Attribute::Yanked},
        {"data-dist-info-metadata", Attribute::DistInfoMetadata},
        {"data-core-metadata", Attribute::CoreMetadata},
    };
    for (const auto &[name, attribute] : known) {
        if (lowerCaseName == name)
            return attribute;
    }
    return std::nullopt;
}

struct Tag {
    QByteArray name;       // lower case
    Attributes attributes; // decoded values; the first of a name wins, as in browsers
    bool complete = false; // false when the page ended inside it (browsers drop such a tag)

    const std::optional<QString> &operator[](Attribute a) const { return attributes[size_t(a)]; }
};

struct RawLink {
    Attributes attributes;
    QString text;

    const std::optional<QString> &operator[](Attribute a) const { return attributes[size_t(a)]; }
};

// The HTML tokenizer's start-tag states, reduced to what links need. p points after "<".
Tag readTag(const char *&p, const char *end)
{
    Tag tag;
    const char *start = p;
    while (p < end && !isHtmlSpace(*p) && *p != '/' && *p != '>')
        ++p;
    tag.name = QByteArray(start, p - start).toLower();
    for (;;) {
        while (p < end && (isHtmlSpace(*p) || *p == '/'))
            ++p;
        if (p == end)
            return tag;
        if (*p == '>') {
            ++p;
            tag.complete = true;
            return tag;
        }
        const char *nameStart = p++; // a name may start with '='
        while (p < end && !isHtmlSpace(*p) && *p != '/' && *p != '>' && *p != '=')
            ++p;
        const QByteArray name = QByteArray(nameStart, p - nameStart).toLower();
        const char *q = p;
        while (q < end && isHtmlSpace(*q))
            ++q;
        QByteArray raw;
        if (q < end && *q == '=') {
            p = q + 1;
            while (p < end && isHtmlSpace(*p))
                ++p;
            if (p < end && (*p == '"' || *p == '\'')) {
                const char quote = *p++;
                const char *valueStart = p;
                while (p < end && *p != quote)
                    ++p;
                if (p == end)
                    return tag;
                raw = QByteArray(valueStart, p - valueStart);
                ++p;
            } else {
                const char *valueStart = p;
                while (p < end && !isHtmlSpace(*p) && *p != '>')
                    ++p;
                raw = QByteArray(valueStart, p - valueStart);
            }
        }
        if (const auto known = attributeNamed(name); known && !tag.attributes[size_t(*known)])
            tag.attributes[size_t(*known)] = decodeEntities(QString::fromUtf8(raw));
    }
}

// Past the end tag of a raw-text element ("</script"), or to the end of the page.
const char *skipRawText(const char *p, const char *end, const QByteArray &name)
{
    const QByteArray close = "</" + name;
    while (p < end) {
        const char *lt = static_cast<const char *>(std::memchr(p, '<', size_t(end - p)));
        if (!lt)
            return end;
        if (startsWithNoCase(lt, end, close.constData())) {
            const char *q = lt + close.size();
            if (q == end || isHtmlSpace(*q) || *q == '/' || *q == '>') {
                const char *gt = static_cast<const char *>(std::memchr(q, '>', size_t(end - q)));
                return gt ? gt + 1 : end;
            }
        }
        p = lt + 1;
    }
    return end;
}

struct HtmlLinks {
    QList<RawLink> links;
    std::optional<QString> baseHref;
    bool tooMany = false;
};

// One pass over the page: every '<' is looked at once and every byte belongs to at most one
// tag, comment or text run, so the time is linear in the page size.
HtmlLinks scanHtml(const QByteArray &body)
{
    HtmlLinks out;
    const char *p = body.constData();
    const char *end = p + body.size();
    RawLink *open = nullptr;
    auto addText = [&open](const char *from, const char *to) {
        if (open && to > from)
            open->text += decodeEntities(QString::fromUtf8(from, to - from));
    };
    while (p < end) {
        const char *lt = static_cast<const char *>(std::memchr(p, '<', size_t(end - p)));
        if (!lt) {
            addText(p, end);
            break;
        }
        addText(p, lt);
        p = lt + 1;
        if (p == end) {
            addText(lt, end);
            break;
        }
        if (startsWithNoCase(p, end, "!--")) {
            const qsizetype close = body.indexOf("-->", (p + 3) - body.constData());
            p = close < 0 ? end : body.constData() + close + 3;
        } else if (*p == '!' || *p == '?') {
            const char *gt = static_cast<const char *>(std::memchr(p, '>', size_t(end - p)));
            p = gt ? gt + 1 : end;
        } else if (*p == '/' && p + 1 < end && isAsciiLetter(p[1])) {
            ++p;
            const Tag tag = readTag(p, end);
            if (tag.name == "a")
                open = nullptr;
        } else if (isAsciiLetter(*p)) {
            const Tag tag = readTag(p, end);
            if (!tag.complete)
                break;
            if (tag.name == "a") {
                open = nullptr;
                if (!tag[Attribute::Href])
                    continue;
                if (out.links.size() == SimpleIndex::maxFiles) {
                    out.tooMany = true;
                    return out;
                }
                out.links.append(RawLink{tag.attributes, {}});
                open = &out.links.last();
            } else if (tag.name == "base") {
                if (tag[Attribute::Href] && !out.baseHref)
                    out.baseHref = tag[Attribute::Href];
            } else if (tag.name == "script" || tag.name == "style" || tag.name == "title" || tag.name == "textarea") {
                p = skipRawText(p, end, tag.name);
            }
        } else {
            addText(lt, p); // a '<' that starts no tag is text
        }
    }
    return out;
}

// data-core-metadata / data-dist-info-metadata: "true", or "NAME=HEX" (pip reads any NAME=VALUE
// as "metadata available, with this hash").
void readMetadataAttribute(const QString &value, IndexFile *file)
{
    if (value.compare(QStringLiteral("true"), Qt::CaseInsensitive) == 0) {
        file->hasMetadata = true;
        return;
    }
    const qsizetype equals = value.indexOf(u'=');
    if (equals < 0)
        return;
    file->hasMetadata = true;
    if (QStringView(value).first(equals) == u"sha256")
        file->metadataSha256 = sha256Hex(QStringView(value).sliced(equals + 1));
}

QString lastPathSegment(const QUrl &url)
{
    const QString path = url.path(QUrl::FullyDecoded);
    return path.sliced(path.lastIndexOf(u'/') + 1).trimmed();
}

Result<IndexPage> parseHtml(const QByteArray &body, const QUrl &pageUrl, const Error &tooMany)
{
    const HtmlLinks scanned = scanHtml(body);
    if (scanned.tooMany)
        return tooMany;
    QUrl base = pageUrl;
    if (scanned.baseHref) {
        if (const QUrl url = resolveUrl(pageUrl, scanned.baseHref->trimmed()); !url.isEmpty())
            base = url;
    }
    IndexPage page;
    page.files.reserve(scanned.links.size());
    for (const RawLink &link : scanned.links) {
        IndexFile file;
        file.url = resolveUrl(base, link[Attribute::Href]->trimmed());
        if (file.url.isEmpty())
            continue;
        file.sha256 = fragmentSha256(file.url.fragment(QUrl::FullyDecoded));
        file.url = file.url.adjusted(QUrl::RemoveFragment);
        file.filename = link.text.trimmed();
        if (file.filename.isEmpty())
            file.filename = lastPathSegment(file.url);
        if (file.filename.isEmpty())
            continue;
        file.requiresPython = link[Attribute::RequiresPython].value_or(QString());
        file.yanked = link[Attribute::Yanked].has_value();
        file.yankedReason = link[Attribute::Yanked].value_or(QString());
        const auto &core = link[Attribute::CoreMetadata];
        if (const auto &metadata = core ? core : link[Attribute::DistInfoMetadata])
            readMetadataAttribute(*metadata, &file);
        page.files.append(std::move(file));
    }
    return page;
}

// ---- JSON ---------------------------------------------------------------------------------

// A size as JSON gives it: a non-negative whole number a double holds exactly.
qint64 jsonSize(const QJsonValue &value)
{
    if (!value.isDouble())
        return -1;
    const double d = value.toDouble();
    if (!(d >= 0 && d <= 9007199254740992.0) || std::floor(d) != d)
        return -1;
    return qint64(d);
}

// "core-metadata" (PEP 714), else "dist-info-metadata" (PEP 658): true, false, or an object of hashes.
bool readMetadataValue(const QJsonValue &value, IndexFile *file)
{
    if (value.isBool()) {
        file->hasMetadata = value.toBool();
        return true;
    }
    if (value.isObject()) {
        file->hasMetadata = true;
        const QJsonValue sha = value.toObject().value(QStringLiteral("sha256"));
        if (sha.isString())
            file->metadataSha256 = sha256Hex(sha.toString());
        return true;
    }
    return false;
}

// api-version "1.x" (PEP 691/629: a client refuses a major version it does not know).
bool knownApiVersion(const QString &version)
{
    const QStringView major = QStringView(version).split(u'.').constFirst();
    return major == u"1";
}

} // namespace

bool IndexFile::isWheel() const
{
    return filename.endsWith(QStringLiteral(".whl"), Qt::CaseInsensitive);
}

QByteArray SimpleIndex::acceptHeader()
{
    return "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";
}

Result<IndexPage> SimpleIndex::parse(const QByteArray &body, const QByteArray &contentType, const QUrl &pageUrl)
{
    const QString where = pageUrl.toDisplayString();
    const auto tooLarge = [&where](const QString &detail) {
        return Error{QStringLiteral("index_page_too_large"),
                     tr("The package index sent a page for %1 larger than any real project page (more than %2 MB or "
                        "%3 files). Check the package index address.")
                         .arg(where)
                         .arg(maxPageBytes / (1024 * 1024))
                         .arg(maxFiles),
                     detail};
    };
    const auto malformed = [&where](const QString &detail) {
        return Error{QStringLiteral("index_page_malformed"),
                     tr("The package index answered %1 with something that is not a package list. Check the package "
                        "index address.")
                         .arg(where),
                     where + QStringLiteral(": ") + detail};
    };
    if (body.size() > maxPageBytes)
        return tooLarge(where + QStringLiteral(": %1 bytes").arg(body.size()));
    const Error tooMany = tooLarge(where + QStringLiteral(": more than %1 links").arg(maxFiles));

    const QByteArray mediaType = contentType.split(';').constFirst().trimmed().toLower();
    bool json = mediaType.endsWith("+json") || mediaType == "application/json";
    if (!json) {
        qsizetype i = 0;
        while (i < body.size() && isHtmlSpace(body[i]))
            ++i;
        json = i < body.size() && body[i] == '{';
    }
    if (!json)
        return parseHtml(body, pageUrl, tooMany);

    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return malformed(
            QStringLiteral("not JSON (%1 at offset %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (!document.isObject())
        return malformed(QStringLiteral("not a JSON object"));
    const QJsonObject root = document.object();
    const QJsonValue meta = root.value(QStringLiteral("meta"));
    if (meta.isObject()) {
        const QJsonValue version = meta.toObject().value(QStringLiteral("api-version"));
        if (!version.isUndefined() && (!version.isString() || !knownApiVersion(version.toString())))
            return malformed(
                QStringLiteral("meta.api-version %1, this reader knows 1.x")
                    .arg(version.isString() ? version.toString() : QStringLiteral("that is not a string")));
    }
    const QJsonValue files = root.value(QStringLiteral("files"));
    if (!files.isArray())
        return malformed(QStringLiteral("no \"files\" list"));
    const QJsonArray list = files.toArray();
    if (list.size() > maxFiles)
        return tooMany;

    IndexPage page;
    page.project = root.value(QStringLiteral("name")).toString();
    page.files.reserve(list.size());
    for (const QJsonValue &entry : list) {
        const QJsonObject o = entry.toObject();
        const QJsonValue filename = o.value(QStringLiteral("filename"));
        const QJsonValue url = o.value(QStringLiteral("url"));
        if (!filename.isString() || filename.toString().isEmpty() || !url.isString())
            continue;
        IndexFile file;
        file.filename = filename.toString();
        file.url = resolveUrl(pageUrl, url.toString().trimmed());
        if (file.url.isEmpty())
            continue;
        const QByteArray fromFragment = fragmentSha256(file.url.fragment(QUrl::FullyDecoded));
        file.url = file.url.adjusted(QUrl::RemoveFragment);
        const QJsonValue sha = o.value(QStringLiteral("hashes")).toObject().value(QStringLiteral("sha256"));
        file.sha256 = sha.isString() ? sha256Hex(sha.toString()) : QByteArray();
        if (file.sha256.isEmpty())
            file.sha256 = fromFragment;
        const QJsonValue requiresPython = o.value(QStringLiteral("requires-python"));
        if (requiresPython.isString())
            file.requiresPython = requiresPython.toString();
        // pip's reading: true, or a non-empty reason; false and "" are not yanked.
        const QJsonValue yanked = o.value(QStringLiteral("yanked"));
        if (yanked.isBool()) {
            file.yanked = yanked.toBool();
        } else if (yanked.isString() && !yanked.toString().isEmpty()) {
            file.yanked = true;
            file.yankedReason = yanked.toString();
        }
        if (!readMetadataValue(o.value(QStringLiteral("core-metadata")), &file))
            readMetadataValue(o.value(QStringLiteral("dist-info-metadata")), &file);
        file.size = jsonSize(o.value(QStringLiteral("size")));
        page.files.append(std::move(file));
    }
    return page;
}

QByteArray SimpleIndex::htmlPage(const QString &project, const QList<IndexFile> &files)
{
    // Every value sits in a double-quoted attribute or in text: Qt's escaping of &, <, > and "
    // is all it takes.
    const auto escape = [](const QString &text) { return text.toHtmlEscaped(); };
    const QString title = escape(project);
    QString page = QStringLiteral("<!DOCTYPE html>\n<html>\n  <head>\n"
                                  "    <meta name=\"pypi:repository-version\" content=\"1.0\">\n"
                                  "    <title>Links for ")
        + title + QStringLiteral("</title>\n  </head>\n  <body>\n    <h1>Links for ") + title
        + QStringLiteral("</h1>\n");
    for (const IndexFile &file : files) {
        QString href = file.url.adjusted(QUrl::RemoveFragment).toString(QUrl::FullyEncoded);
        if (!file.sha256.isEmpty())
            href += QStringLiteral("#sha256=") + QString::fromLatin1(file.sha256);
        page += QStringLiteral("    <a href=\"") + escape(href) + u'"';
        if (!file.requiresPython.isEmpty())
            page += QStringLiteral(" data-requires-python=\"") + escape(file.requiresPython) + u'"';
        if (file.yanked)
            page += QStringLiteral(" data-yanked=\"") + escape(file.yankedReason) + u'"';
        if (file.hasMetadata) {
            // Both names: pip before 23.2 reads only the PEP 658 one.
            const QString value = file.metadataSha256.isEmpty()
                ? QStringLiteral("true")
                : QStringLiteral("sha256=") + QString::fromLatin1(file.metadataSha256);
            page += QStringLiteral(" data-dist-info-metadata=\"") + escape(value)
                + QStringLiteral("\" data-core-metadata=\"") + escape(value) + u'"';
        }
        page += u'>' + escape(file.filename) + QStringLiteral("</a><br />\n");
    }
    page += QStringLiteral("  </body>\n</html>\n");
    return page.toUtf8();
}

QString SimpleIndex::normalize(const QString &project)
{
    QString out;
    out.reserve(project.size());
    bool inRun = false;
    for (const QChar c : project) {
        if (c == u'-' || c == u'_' || c == u'.') {
            if (!inRun)
                out += u'-';
            inRun = true;
        } else {
            out += c;
            inRun = false;
        }
    }
    return out.toLower();
}

} // namespace tfsetup::core
