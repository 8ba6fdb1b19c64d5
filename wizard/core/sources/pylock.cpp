#include "sources/pylock.h"

#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/names.h"
#include "util/text.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace tfsetup::core {

namespace {

// Arrays and inline tables inside each other, and the parts of a table header.
constexpr int maxNesting = 32;
// Tables, arrays and values in one document: a lock of maxPackages wheels holds about 20 each.
// Bounds the memory an 8 MB file of "[],[],…" can take.
constexpr qsizetype maxValues = 1000000;
constexpr qint64 maxWheelBytes = qint64(1) << 50;

bool isAsciiAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

bool isAsciiDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

int hexValue(QChar c)
{
    if (isAsciiDigit(c))
        return c.unicode() - u'0';
    if (c >= u'a' && c <= u'f')
        return c.unicode() - u'a' + 10;
    if (c >= u'A' && c <= u'F')
        return c.unicode() - u'A' + 10;
    return -1;
}

bool isControl(QChar c)
{
    return c.unicode() < 0x20 || c.unicode() == 0x7f;
}

QString controlInText(QChar c)
{
    return PyLock::tr("text holds the control character U+%1, which must be written as an escape in double quotes")
        .arg(QString::number(c.unicode(), 16).rightJustified(4, u'0').toUpper());
}

// PEP 508: ASCII letters and digits, with '.', '_' or '-' between them. The name goes into pip's
// requirements file, so nothing else may be in it.
bool isProjectName(const QString &name)
{
    if (name.isEmpty())
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        const bool inner = i > 0 && i < name.size() - 1 && (c == u'.' || c == u'_' || c == u'-');
        if (!isAsciiAlnum(c) && !inner)
            return false;
    }
    return true;
}

// The characters of a PEP 440 version ("2.15.1", "1!2.0rc1.post2+cu121"): it follows "==" in
// pip's requirements file.
bool isVersionText(const QString &version)
{
    if (version.isEmpty() || !isAsciiAlnum(version.front()))
        return false;
    return std::all_of(version.begin(), version.end(), [](QChar c) {
        return isAsciiAlnum(c) || c == u'.' || c == u'!' || c == u'+' || c == u'_' || c == u'-';
    });
}

// The wheel is saved under this name: one plain path component.
bool isWheelFileName(const QString &file)
{
    return file.size() > 4 && file.endsWith(QStringLiteral(".whl")) && isSafePathName(file);
}

bool isDownloadUrl(const QString &url)
{
    const bool scheme = url.startsWith(QStringLiteral("https://"), Qt::CaseInsensitive)
        || url.startsWith(QStringLiteral("http://"), Qt::CaseInsensitive)
        || url.startsWith(QStringLiteral("file:"), Qt::CaseInsensitive);
    return scheme
        && std::none_of(url.begin(), url.end(), [](QChar c) { return c.unicode() <= 0x20 || c.unicode() == 0x7f; });
}

bool isLowerHex64(const QString &text)
{
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](QChar c) {
               return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
           });
}

// The wheel's file name: its "name", else the last part of its URL (PEP 751 lets a writer leave
// the name out when the URL ends in it).
QString wheelFile(const QJsonObject &wheel)
{
    const QJsonValue name = wheel.value(QStringLiteral("name"));
    if (name.isString())
        return name.toString();
    return QUrl(wheel.value(QStringLiteral("url")).toString()).fileName();
}

const JsonShape &lockShape()
{
    using S = JsonShape;
    static const S url = S::text(8192).where([](const QJsonValue &v) {
        return isDownloadUrl(v.toString()) ? QString() : PyLock::tr("must be an http, https or file URL");
    });
    static const S wheel =
        S::object({
                      S::optional(QStringLiteral("name"), S::text(255).where([](const QJsonValue &v) {
                          return isWheelFileName(v.toString())
                              ? QString()
                              : PyLock::tr("must be a wheel's file name (NAME.whl, no folder, no \"..\")");
                      })),
                      S::optional(QStringLiteral("url"), url),
                      S::optional(QStringLiteral("size"), S::integer(0, maxWheelBytes)),
                      S::required(QStringLiteral("hashes"),
                                  S::object({
                                      S::required(QStringLiteral("sha256"), S::text(64).where([](const QJsonValue &v) {
                                          return isLowerHex64(v.toString())
                                              ? QString()
                                              : PyLock::tr("must be 64 lower-case hexadecimal digits");
                                      })),
                                  })),
                  })
            .where([](const QJsonValue &v) {
                const QJsonObject o = v.toObject();
                if (o.contains(QStringLiteral("name")))
                    return QString();
                if (!o.contains(QStringLiteral("url")))
                    return PyLock::tr("has neither a \"name\" nor a \"url\"");
                return isWheelFileName(wheelFile(o))
                    ? QString()
                    : PyLock::tr("has no \"name\" and its URL does not end in a wheel's file name");
            });
    static const S package = S::object({
        S::required(QStringLiteral("name"), S::text(200).where([](const QJsonValue &v) {
            return isProjectName(v.toString())
                ? QString()
                : PyLock::tr("must be a project name (letters, digits, '.', '_' and '-')");
        })),
        S::required(QStringLiteral("version"), S::text(200).where([](const QJsonValue &v) {
            return isVersionText(v.toString()) ? QString() : PyLock::tr("must be a version such as 2.15.1");
        })),
        S::optional(QStringLiteral("requires-python"), S::text(1000)),
        S::optional(QStringLiteral("index"), url),
        S::required(QStringLiteral("wheels"), S::list(wheel, 1).where([](const QJsonValue &v) {
            return v.toArray().size() == 1 ? QString() : PyLock::tr("must hold exactly one wheel");
        })),
        S::optional(QStringLiteral("tool"),
                    S::object({
                        S::optional(QStringLiteral("tfsetup"),
                                    S::object({
                                        S::optional(QStringLiteral("requested"), S::flag()),
                                        S::optional(QStringLiteral("hash-source"), S::text(100)),
                                    })),
                    })),
    });
    static const S shape = S::object({
        S::required(QStringLiteral("lock-version"), S::text(100)),
        S::optional(QStringLiteral("environments"), S::list(S::text(4096), 1000)),
        S::optional(QStringLiteral("requires-python"), S::text(1000)),
        S::required(QStringLiteral("created-by"), S::text(200)),
        S::optional(QStringLiteral("packages"), S::list(package, PyLock::maxPackages)),
        S::optional(QStringLiteral("tool"),
                    S::object({
                        S::optional(QStringLiteral("tfsetup"),
                                    S::object({
                                        S::optional(QStringLiteral("requirements"), S::list(S::text(4096), 10000)),
                                        S::optional(QStringLiteral("python"), S::text(100)),
                                    })),
                    })),
    });
    return shape;
}

// ---- reading: the TOML a lock needs, into a tree that keeps what TOML forbids redefining ----

struct Node {
    enum class Kind { Table, TableArray, Array, Scalar };
    Kind kind = Kind::Table;
    bool headerDefined = false; // a table named by its own [header]
    bool inlineTable = false;   // { … }: complete as written, no header may add to it
    QJsonValue scalar;
    std::map<QString, std::unique_ptr<Node>> members; // Table
    std::vector<std::unique_ptr<Node>> items;         // TableArray, Array
};

QJsonValue toJson(const Node &node)
{
    switch (node.kind) {
    case Node::Kind::Scalar: return node.scalar;
    case Node::Kind::Table: {
        // Keys arrive sorted, so each insert appends.
        QJsonObject object;
        for (const auto &[key, member] : node.members)
            object.insert(key, toJson(*member));
        return object;
    }
    case Node::Kind::TableArray:
    case Node::Kind::Array: {
        QJsonArray array;
        for (const auto &item : node.items)
            array.append(toJson(*item));
        return array;
    }
    }
    return {};
}

// The first byte that is not UTF-8 (overlong forms and surrogates included), or -1.
qsizetype invalidUtf8At(const QByteArray &text)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text.constData());
    const qsizetype n = text.size();
    qsizetype i = 0;
    while (i < n) {
        const unsigned char b = s[i];
        if (b < 0x80) {
            ++i;
            continue;
        }
        int continuation = 0;
        unsigned char low = 0x80;
        unsigned char high = 0xbf;
        if (b >= 0xc2 && b <= 0xdf) {
            continuation = 1;
        } else if (b >= 0xe0 && b <= 0xef) {
            continuation = 2;
            low = b == 0xe0 ? 0xa0 : 0x80;
            high = b == 0xed ? 0x9f : 0xbf;
        } else if (b >= 0xf0 && b <= 0xf4) {
            continuation = 3;
            low = b == 0xf0 ? 0x90 : 0x80;
            high = b == 0xf4 ? 0x8f : 0xbf;
        } else {
            return i;
        }
        if (i + continuation >= n)
            return i;
        if (s[i + 1] < low || s[i + 1] > high)
            return i;
        for (int k = 2; k <= continuation; ++k) {
            if (s[i + k] < 0x80 || s[i + k] > 0xbf)
                return i;
        }
        i += continuation + 1;
    }
    return -1;
}

class TomlReader {
public:
    explicit TomlReader(const QString &text)
        : m_text(text)
    {}

    bool read(Node &root);
    int line() const { return m_line; }
    qsizetype column() const { return m_pos - m_lineStart + 1; }
    const QString &problem() const { return m_problem; }
    bool unsupported() const { return m_unsupported; }

private:
    bool atEnd() const { return m_pos >= m_text.size(); }
    QChar peek(qsizetype ahead = 0) const { return m_pos + ahead < m_text.size() ? m_text.at(m_pos + ahead) : QChar(); }
    bool atNewline() const { return !atEnd() && (peek() == u'\n' || peek() == u'\r'); }

    bool fail(const QString &problem)
    {
        if (m_problem.isEmpty())
            m_problem = problem;
        return false;
    }
    bool refuse(const QString &problem)
    {
        m_unsupported = true;
        return fail(problem);
    }

    void skipSpaces();
    bool newline();
    bool comment();
    bool endOfLine();
    bool skipBlankLines();
    bool key(QString &out);
    bool header(Node &root, Node *&current);
    bool keyValue(Node &table, int depth = 0); // key = value, into table
    bool value(std::unique_ptr<Node> &out, int depth);
    bool basicString(QString &out);
    bool literalString(QString &out);
    bool escape(QString &out);
    bool bareValue(std::unique_ptr<Node> &out);
    bool array(std::unique_ptr<Node> &out, int depth);
    bool inlineTable(std::unique_ptr<Node> &out, int depth);
    std::unique_ptr<Node> newNode(Node::Kind kind);

    const QString &m_text;
    qsizetype m_pos = 0;
    qsizetype m_lineStart = 0;
    int m_line = 1;
    qsizetype m_nodes = 0;
    QString m_problem;
    bool m_unsupported = false;
};

std::unique_ptr<Node> TomlReader::newNode(Node::Kind kind)
{
    if (++m_nodes > maxValues) {
        fail(PyLock::tr("it holds more than %1 values").arg(maxValues));
        return nullptr;
    }
    auto node = std::make_unique<Node>();
    node->kind = kind;
    return node;
}

void TomlReader::skipSpaces()
{
    while (!atEnd() && (peek() == u' ' || peek() == u'\t'))
        ++m_pos;
}

bool TomlReader::newline()
{
    if (peek() == u'\r') {
        if (peek(1) != u'\n')
            return fail(PyLock::tr("a carriage return without a line feed"));
        ++m_pos;
    }
    ++m_pos;
    ++m_line;
    m_lineStart = m_pos;
    return true;
}

bool TomlReader::comment()
{
    // TOML allows no control character but the tab in a comment.
    ++m_pos;
    while (!atEnd() && !atNewline()) {
        if (isControl(peek()) && peek() != u'\t')
            return fail(PyLock::tr("a control character in a comment"));
        ++m_pos;
    }
    return true;
}

bool TomlReader::endOfLine()
{
    if (peek() == u'#' && !comment())
        return false;
    if (atEnd())
        return true;
    if (!atNewline())
        return fail(PyLock::tr("more text after the value (a new line or a # comment must follow)"));
    return newline();
}

// Inside an array: spaces, line breaks and comments.
bool TomlReader::skipBlankLines()
{
    for (;;) {
        skipSpaces();
        if (atEnd())
            return true;
        if (peek() == u'#') {
            if (!comment())
                return false;
        } else if (atNewline()) {
            if (!newline())
                return false;
        } else {
            return true;
        }
    }
}

bool TomlReader::read(Node &root)
{
    if (peek() == QChar(0xfeff))
        ++m_pos;
    Node *current = &root;
    for (;;) {
        skipSpaces();
        if (atEnd())
            return true;
        if (peek() == u'[') {
            if (!header(root, current))
                return false;
        } else if (peek() != u'#' && !atNewline()) {
            if (!keyValue(*current))
                return false;
        }
        skipSpaces();
        if (!endOfLine())
            return false;
    }
}

bool TomlReader::key(QString &out)
{
    out.clear();
    const QChar c = peek();
    if (atEnd() || atNewline())
        return fail(PyLock::tr("a key is missing"));
    if (c == u'"' || c == u'\'') {
        if (peek(1) == c && peek(2) == c)
            return refuse(PyLock::tr("multi-line strings are not used in a lock file"));
        return c == u'"' ? basicString(out) : literalString(out);
    }
    const qsizetype start = m_pos;
    while (!atEnd() && (isAsciiAlnum(peek()) || peek() == u'_' || peek() == u'-'))
        ++m_pos;
    if (m_pos == start)
        return fail(PyLock::tr("a key must be letters, digits, '_' and '-', or text in quotes"));
    out = m_text.mid(start, m_pos - start);
    return true;
}

bool TomlReader::header(Node &root, Node *&current)
{
    ++m_pos;
    const bool arrayOfTables = peek() == u'[';
    if (arrayOfTables)
        ++m_pos;
    QStringList parts;
    for (;;) {
        skipSpaces();
        QString part;
        if (!key(part))
            return false;
        parts.append(part);
        if (parts.size() > maxNesting)
            return fail(PyLock::tr("tables are nested more than %1 deep").arg(maxNesting));
        skipSpaces();
        if (peek() != u'.')
            break;
        ++m_pos;
    }
    const QString name = parts.join(u'.');
    if (peek() != u']' || (arrayOfTables && peek(1) != u']'))
        return fail(PyLock::tr("the header %1 is not closed")
                        .arg((arrayOfTables ? QStringLiteral("[[") : QStringLiteral("[")) + name));
    m_pos += arrayOfTables ? 2 : 1;

    Node *table = &root;
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        auto it = table->members.find(parts.at(i));
        if (it == table->members.end()) {
            auto created = newNode(Node::Kind::Table);
            if (!created)
                return false;
            it = table->members.emplace(parts.at(i), std::move(created)).first;
        }
        Node &next = *it->second;
        if (next.kind == Node::Kind::TableArray) {
            table = next.items.back().get();
        } else if (next.kind == Node::Kind::Table && !next.inlineTable) {
            table = &next;
        } else {
            return fail(PyLock::tr("[%1] adds to \"%2\", which is defined already as a value").arg(name, parts.at(i)));
        }
    }
    const QString &last = parts.constLast();
    auto it = table->members.find(last);
    if (arrayOfTables) {
        if (it == table->members.end()) {
            auto created = newNode(Node::Kind::TableArray);
            if (!created)
                return false;
            it = table->members.emplace(last, std::move(created)).first;
        } else if (it->second->kind != Node::Kind::TableArray) {
            return fail(PyLock::tr("[[%1]] names something defined already").arg(name));
        }
        auto entry = newNode(Node::Kind::Table);
        if (!entry)
            return false;
        entry->headerDefined = true;
        current = entry.get();
        it->second->items.push_back(std::move(entry));
        return true;
    }
    if (it == table->members.end()) {
        auto created = newNode(Node::Kind::Table);
        if (!created)
            return false;
        it = table->members.emplace(last, std::move(created)).first;
    } else if (it->second->kind != Node::Kind::Table || it->second->headerDefined || it->second->inlineTable) {
        return fail(PyLock::tr("the table [%1] is defined twice").arg(name));
    }
    it->second->headerDefined = true;
    current = it->second.get();
    return true;
}

bool TomlReader::keyValue(Node &table, int depth)
{
    QString name;
    if (!key(name))
        return false;
    skipSpaces();
    if (peek() == u'.')
        return refuse(PyLock::tr("dotted keys (%1.…) are not used in a lock file").arg(name));
    if (peek() != u'=')
        return fail(PyLock::tr("\"=\" is missing after the key \"%1\"").arg(name));
    ++m_pos;
    skipSpaces();
    std::unique_ptr<Node> v;
    if (!value(v, depth))
        return false;
    if (!table.members.emplace(name, std::move(v)).second)
        return fail(PyLock::tr("the key \"%1\" is defined twice").arg(name));
    return true;
}

bool TomlReader::value(std::unique_ptr<Node> &out, int depth)
{
    if (atEnd() || atNewline())
        return fail(PyLock::tr("a value is missing"));
    const QChar c = peek();
    if (c == u'"' || c == u'\'') {
        if (peek(1) == c && peek(2) == c)
            return refuse(PyLock::tr("multi-line strings are not used in a lock file"));
        QString text;
        if (!(c == u'"' ? basicString(text) : literalString(text)))
            return false;
        out = newNode(Node::Kind::Scalar);
        if (!out)
            return false;
        out->scalar = text;
        return true;
    }
    if (c == u'[' || c == u'{') {
        if (depth >= maxNesting)
            return fail(PyLock::tr("lists and tables are nested more than %1 deep").arg(maxNesting));
        return c == u'[' ? array(out, depth + 1) : inlineTable(out, depth + 1);
    }
    return bareValue(out);
}

bool TomlReader::basicString(QString &out)
{
    ++m_pos;
    for (;;) {
        if (atEnd() || atNewline())
            return fail(PyLock::tr("text in quotes does not end on its line"));
        const QChar c = peek();
        if (c == u'"') {
            ++m_pos;
            return true;
        }
        if (c == u'\\') {
            if (!escape(out))
                return false;
            continue;
        }
        if (isControl(c) && c != u'\t')
            return fail(controlInText(c));
        out += c;
        ++m_pos;
    }
}

bool TomlReader::literalString(QString &out)
{
    ++m_pos;
    const qsizetype start = m_pos;
    for (;;) {
        if (atEnd() || atNewline())
            return fail(PyLock::tr("text in quotes does not end on its line"));
        const QChar c = peek();
        if (c == u'\'')
            break;
        if (isControl(c) && c != u'\t')
            return fail(controlInText(c));
        ++m_pos;
    }
    out = m_text.mid(start, m_pos - start);
    ++m_pos;
    return true;
}

bool TomlReader::escape(QString &out)
{
    ++m_pos;
    const QChar c = peek();
    const auto simple = [this, &out](char16_t decoded) {
        out += QChar(decoded);
        ++m_pos;
        return true;
    };
    switch (c.unicode()) {
    case u'"': return simple(u'"');
    case u'\\': return simple(u'\\');
    case u'b': return simple(u'\b');
    case u't': return simple(u'\t');
    case u'n': return simple(u'\n');
    case u'f': return simple(u'\f');
    case u'r': return simple(u'\r');
    case u'u':
    case u'U': {
        const int digits = c == u'u' ? 4 : 8;
        char32_t code = 0;
        for (int i = 1; i <= digits; ++i) {
            const int d = m_pos + i < m_text.size() ? hexValue(peek(i)) : -1;
            if (d < 0)
                return fail(PyLock::tr("\\%1 must be followed by %2 hexadecimal digits").arg(c).arg(digits));
            code = code * 16 + char32_t(d);
        }
        // Unicode scalar values only: no surrogate halves, nothing past U+10FFFF.
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
            return fail(
                PyLock::tr("\\%1%2 is not a Unicode character").arg(c).arg(QStringView(m_text).mid(m_pos + 1, digits)));
        out += QString::fromUcs4(&code, 1);
        m_pos += digits + 1;
        return true;
    }
    default:
        return fail(atEnd() || isControl(c) ? PyLock::tr("a backslash must start an escape such as \\n or \\u00e9")
                                            : PyLock::tr("\\%1 is not a valid escape").arg(c));
    }
}

bool TomlReader::bareValue(std::unique_ptr<Node> &out)
{
    const qsizetype start = m_pos;
    while (!atEnd()) {
        const QChar c = peek();
        if (!isAsciiAlnum(c) && c != u'_' && c != u'-' && c != u'+' && c != u'.' && c != u':')
            break;
        ++m_pos;
    }
    const QString token = m_text.mid(start, m_pos - start);
    if (token.isEmpty())
        return fail(
            PyLock::tr("a value must be text in quotes, a whole number, true, false, a list [ … ] or a table { … }"));
    if (token == u"true" || token == u"false") {
        out = newNode(Node::Kind::Scalar);
        if (!out)
            return false;
        out->scalar = token == u"true";
        return true;
    }
    const bool sign = token.front() == u'+' || token.front() == u'-';
    const QStringView digits = QStringView(token).mid(sign ? 1 : 0);
    if (digits == u"inf" || digits == u"nan")
        return refuse(PyLock::tr("floating-point numbers (%1) are not used in a lock file").arg(token));
    if (digits.startsWith(u"0x") || digits.startsWith(u"0o") || digits.startsWith(u"0b"))
        return refuse(PyLock::tr("hexadecimal, octal and binary numbers (%1) are not used in a lock file").arg(token));
    // 1979-05-27, 07:32:00, 1979-05-27T07:32:00Z
    const bool date = token.size() >= 5 && token.at(4) == u'-'
        && std::all_of(token.begin(), token.begin() + 4, &isAsciiDigit);
    if (date || token.contains(u':'))
        return refuse(PyLock::tr("dates and times (%1) are not used in a lock file").arg(token));
    const bool isFloat = std::all_of(digits.begin(), digits.end(),
                                     [](QChar c) {
                                         return isAsciiDigit(c) || c == u'_' || c == u'.' || c == u'e' || c == u'E'
                                             || c == u'+' || c == u'-';
                                     })
        && (digits.contains(u'.') || digits.contains(u'e') || digits.contains(u'E'));
    if (isFloat && !digits.isEmpty() && isAsciiDigit(digits.front()))
        return refuse(PyLock::tr("floating-point numbers (%1) are not used in a lock file").arg(token));

    const QString shown = token.size() > 40 ? token.left(40) + QStringLiteral("…") : token;
    const auto notAValue = [this, &shown]() {
        return fail(PyLock::tr("\"%1\" is not a value: text must be in quotes, numbers whole").arg(shown));
    };
    if (digits.isEmpty() || (digits.size() > 1 && digits.front() == u'0'))
        return notAValue();
    // Decimal digits, '_' only between two digits, within qint64.
    const bool negative = token.front() == u'-';
    const quint64 limit = negative ? quint64(std::numeric_limits<qint64>::max()) + 1
                                   : quint64(std::numeric_limits<qint64>::max());
    quint64 magnitude = 0;
    for (qsizetype i = 0; i < digits.size(); ++i) {
        const QChar c = digits.at(i);
        if (c == u'_') {
            if (i == 0 || i + 1 == digits.size() || !isAsciiDigit(digits.at(i - 1)) || !isAsciiDigit(digits.at(i + 1)))
                return notAValue();
            continue;
        }
        if (!isAsciiDigit(c))
            return notAValue();
        const quint64 d = c.unicode() - u'0';
        if (magnitude > (limit - d) / 10)
            return fail(PyLock::tr("the number %1 is too large").arg(shown));
        magnitude = magnitude * 10 + d;
    }
    out = newNode(Node::Kind::Scalar);
    if (!out)
        return false;
    const qint64 n = !negative ? qint64(magnitude)
        : magnitude == limit   ? std::numeric_limits<qint64>::min()
                               : -qint64(magnitude);
    out->scalar = QJsonValue(n);
    return true;
}

bool TomlReader::array(std::unique_ptr<Node> &out, int depth)
{
    ++m_pos;
    out = newNode(Node::Kind::Array);
    if (!out)
        return false;
    for (;;) {
        if (!skipBlankLines())
            return false;
        if (peek() == u']' && !atEnd()) {
            ++m_pos;
            return true;
        }
        if (atEnd())
            return fail(PyLock::tr("the list [ … ] is not closed"));
        std::unique_ptr<Node> item;
        if (!value(item, depth))
            return false;
        out->items.push_back(std::move(item));
        if (!skipBlankLines())
            return false;
        if (atEnd())
            return fail(PyLock::tr("the list [ … ] is not closed"));
        if (peek() == u',') {
            ++m_pos;
        } else if (peek() != u']') {
            return fail(PyLock::tr("\",\" or \"]\" is missing in the list"));
        }
    }
}

bool TomlReader::inlineTable(std::unique_ptr<Node> &out, int depth)
{
    ++m_pos;
    out = newNode(Node::Kind::Table);
    if (!out)
        return false;
    out->inlineTable = true;
    const auto oneLine = [this]() { return fail(PyLock::tr("a table { … } must be on one line")); };
    skipSpaces();
    if (peek() == u'}' && !atEnd()) {
        ++m_pos;
        return true;
    }
    for (;;) {
        skipSpaces();
        if (atEnd() || atNewline())
            return oneLine();
        if (!keyValue(*out, depth))
            return false;
        skipSpaces();
        if (atEnd() || atNewline())
            return oneLine();
        if (peek() == u'}') {
            ++m_pos;
            return true;
        }
        if (peek() != u',')
            return fail(PyLock::tr("\",\" or \"}\" is missing in the table { … }"));
        ++m_pos;
        skipSpaces();
        if (peek() == u'}')
            return fail(PyLock::tr("a table { … } may not end with \",\""));
    }
}

// ---- writing ----

QString quoted(const QString &text)
{
    // TOML's basic string: its short escapes, \u00XX for the other control characters.
    static constexpr std::pair<char16_t, const char16_t *> shortEscapes[] = {
        {u'"', u"\\\""}, {u'\\', u"\\\\"}, {u'\b', u"\\b"}, {u'\t', u"\\t"},
        {u'\n', u"\\n"}, {u'\f', u"\\f"},  {u'\r', u"\\r"}};
    QString out;
    out.reserve(text.size() + 2);
    out += u'"';
    for (const QChar c : text) {
        const auto *escape = std::find_if(std::begin(shortEscapes), std::end(shortEscapes),
                                          [c](const auto &e) { return e.first == c.unicode(); });
        if (escape != std::end(shortEscapes))
            out += QString::fromUtf16(escape->second);
        else if (isControl(c))
            out += QStringLiteral("\\u00") + QString::number(c.unicode(), 16).rightJustified(2, u'0').toUpper();
        else
            out += c;
    }
    out += u'"';
    return out;
}

QString quotedList(const QStringList &items)
{
    QStringList parts;
    parts.reserve(items.size());
    for (const QString &item : items)
        parts.append(quoted(item));
    return u'[' + parts.join(QStringLiteral(", ")) + u']';
}

bool byNameThenVersion(const LockedWheel *a, const LockedWheel *b)
{
    return a->name != b->name ? a->name < b->name : a->version < b->version;
}

QList<const LockedWheel *> sortedPackages(const QList<LockedWheel> &packages)
{
    QList<const LockedWheel *> sorted;
    sorted.reserve(packages.size());
    for (const LockedWheel &w : packages)
        sorted.append(&w);
    std::stable_sort(sorted.begin(), sorted.end(), &byNameThenVersion);
    return sorted;
}

Error malformed(const QString &problem, int line, const QString &detail, bool unsupported)
{
    const QString message = unsupported
        ? PyLock::tr("The lock file uses TOML that tfsetup does not read, at line %1: %2. Lock the packages "
                     "again with tfsetup.")
              .arg(line)
              .arg(problem)
        : PyLock::tr("The lock file is not valid TOML at line %1: %2. Write it again with tfsetup.")
              .arg(line)
              .arg(problem);
    return Error{QStringLiteral("lock_malformed"), message, detail};
}

} // namespace

QString PyLock::normalizeName(const QString &name)
{
    QString out;
    out.reserve(name.size());
    for (const QChar c : name) {
        if (c == u'-' || c == u'_' || c == u'.') {
            if (!out.endsWith(u'-'))
                out += u'-';
        } else {
            out += c.toLower();
        }
    }
    return out;
}

QByteArray PyLock::toToml() const
{
    QString out;
    const auto line = [&out](QLatin1String key, const QString &value) {
        out += key + QStringLiteral(" = ") + value + u'\n';
    };
    line(QLatin1String("lock-version"), QStringLiteral("\"1.0\""));
    if (!environments.isEmpty())
        line(QLatin1String("environments"), quotedList(environments));
    if (!requiresPython.isEmpty())
        line(QLatin1String("requires-python"), quoted(requiresPython));
    line(QLatin1String("created-by"), quoted(createdBy));
    for (const LockedWheel *w : sortedPackages(packages)) {
        out += QStringLiteral("\n[[packages]]\n");
        line(QLatin1String("name"), quoted(w->name));
        line(QLatin1String("version"), quoted(w->version));
        if (!w->requiresPython.isEmpty())
            line(QLatin1String("requires-python"), quoted(w->requiresPython));
        if (!w->index.isEmpty())
            line(QLatin1String("index"), quoted(redactSecrets(w->index)));
        out += QStringLiteral("\n[[packages.wheels]]\n");
        if (!w->file.isEmpty())
            line(QLatin1String("name"), quoted(w->file));
        if (!w->url.isEmpty())
            line(QLatin1String("url"), quoted(redactSecrets(w->url)));
        if (w->size >= 0)
            line(QLatin1String("size"), QString::number(w->size));
        line(QLatin1String("hashes"), QStringLiteral("{sha256 = %1}").arg(quoted(QString::fromLatin1(w->sha256))));
        if (w->requested || w->hashFromDownload) {
            out += QStringLiteral("\n[packages.tool.tfsetup]\n");
            if (w->requested)
                line(QLatin1String("requested"), QStringLiteral("true"));
            if (w->hashFromDownload)
                line(QLatin1String("hash-source"), QStringLiteral("\"download\""));
        }
    }
    if (!requirements.isEmpty() || !python.isEmpty()) {
        out += QStringLiteral("\n[tool.tfsetup]\n");
        if (!requirements.isEmpty())
            line(QLatin1String("requirements"), quotedList(requirements));
        if (!python.isEmpty())
            line(QLatin1String("python"), quoted(python));
    }
    return out.toUtf8();
}

Result<PyLock> PyLock::fromToml(const QByteArray &text)
{
    if (text.size() > maxBytes) {
        return Error{QStringLiteral("input_too_large"),
                     tr("The lock file is larger than %1 MB, more than a lock ever holds. Check that you gave the "
                        "right file.")
                         .arg(maxBytes / (1024 * 1024)),
                     QStringLiteral("%1 bytes").arg(text.size())};
    }
    if (const qsizetype bad = invalidUtf8At(text); bad >= 0) {
        const int line = int(std::count(text.begin(), text.begin() + bad, '\n')) + 1;
        return malformed(tr("the text is not UTF-8"), line, QStringLiteral("byte %1 is not UTF-8").arg(bad), false);
    }
    const QString decoded = QString::fromUtf8(text);
    Node root;
    TomlReader reader(decoded);
    if (!reader.read(root)) {
        return malformed(reader.problem(), reader.line(),
                         QStringLiteral("line %1, column %2").arg(reader.line()).arg(reader.column()),
                         reader.unsupported());
    }
    const QJsonObject json = toJson(root).toObject();

    // PEP 751: a reader refuses a major version it does not know; minor versions only add.
    const QJsonValue lockVersion = json.value(QStringLiteral("lock-version"));
    if (lockVersion.isString()) {
        const QString version = lockVersion.toString();
        const QString minor = version.section(u'.', 1);
        const bool known = version.section(u'.', 0, 0) == u"1" && !minor.isEmpty()
            && std::all_of(minor.begin(), minor.end(), &isAsciiDigit);
        if (!known) {
            return Error{QStringLiteral("lock_version"),
                         tr("The lock file is of version %1, which this tfsetup cannot read. Update tfsetup, or lock "
                            "the packages again with this one.")
                             .arg(version.left(100)),
                         QStringLiteral("lock-version %1").arg(version.left(100))};
        }
    }
    const QString document = tr("The lock file");
    const QString advice = tr("Write it again with tfsetup.");
    if (const auto problem = lockShape().check(json))
        return JsonShape::error(QStringLiteral("lock_invalid"), document, *problem, advice);

    PyLock lock;
    lock.createdBy = json.value(QStringLiteral("created-by")).toString();
    lock.requiresPython = json.value(QStringLiteral("requires-python")).toString();
    for (const QJsonValue &e : json.value(QStringLiteral("environments")).toArray())
        lock.environments.append(e.toString());
    const QJsonObject tool = json.value(QStringLiteral("tool")).toObject().value(QStringLiteral("tfsetup")).toObject();
    for (const QJsonValue &r : tool.value(QStringLiteral("requirements")).toArray())
        lock.requirements.append(r.toString());
    lock.python = tool.value(QStringLiteral("python")).toString();

    const QJsonArray packages = json.value(QStringLiteral("packages")).toArray();
    lock.packages.reserve(packages.size());
    QSet<QString> seen;
    for (qsizetype i = 0; i < packages.size(); ++i) {
        const QJsonObject p = packages.at(i).toObject();
        const QJsonObject wheel = p.value(QStringLiteral("wheels")).toArray().at(0).toObject();
        LockedWheel w;
        w.name = normalizeName(p.value(QStringLiteral("name")).toString());
        w.version = p.value(QStringLiteral("version")).toString();
        w.requiresPython = p.value(QStringLiteral("requires-python")).toString();
        // A lock never carries a secret: one a file holds is masked as toToml() masks it, so the lock
        // read is the lock written (credentials come from the configured index, never the lock).
        w.index = redactSecrets(p.value(QStringLiteral("index")).toString());
        w.file = wheelFile(wheel);
        w.url = redactSecrets(wheel.value(QStringLiteral("url")).toString());
        w.size = wheel.contains(QStringLiteral("size")) ? wheel.value(QStringLiteral("size")).toInteger() : -1;
        w.sha256 =
            wheel.value(QStringLiteral("hashes")).toObject().value(QStringLiteral("sha256")).toString().toLatin1();
        const QJsonObject ours = p.value(QStringLiteral("tool")).toObject().value(QStringLiteral("tfsetup")).toObject();
        w.requested = ours.value(QStringLiteral("requested")).toBool();
        w.hashFromDownload = ours.value(QStringLiteral("hash-source")).toString() == u"download";
        if (seen.contains(w.name)) {
            return JsonShape::error(
                QStringLiteral("lock_invalid"), document,
                {QStringLiteral("packages[%1].name").arg(i), tr("names %1, which is listed before").arg(w.name)},
                advice);
        }
        seen.insert(w.name);
        // pip finds the wheel by its file name: one of another project would never install.
        if (normalizeName(w.file.section(u'-', 0, 0)) != w.name) {
            return JsonShape::error(QStringLiteral("lock_invalid"), document,
                                    {QStringLiteral("packages[%1].wheels[0].name").arg(i),
                                     tr("is a wheel of another project than %1").arg(w.name)},
                                    advice);
        }
        lock.packages.append(std::move(w));
    }
    std::sort(lock.packages.begin(), lock.packages.end(),
              [](const LockedWheel &a, const LockedWheel &b) { return byNameThenVersion(&a, &b); });
    return lock;
}

Result<PyLock> PyLock::read(const QString &path)
{
    auto bytes = readInputFile(path, tr("the lock file"), maxBytes);
    if (!bytes)
        return bytes.error();
    auto lock = fromToml(*bytes);
    if (!lock) {
        Error error = lock.error();
        error.detail = path + QStringLiteral(": ") + error.detail;
        return error;
    }
    return lock;
}

const LockedWheel *PyLock::find(const QString &project) const
{
    const QString wanted = normalizeName(project);
    for (const LockedWheel &w : packages) {
        if (w.name == wanted)
            return &w;
    }
    return nullptr;
}

qint64 PyLock::totalBytes() const
{
    qint64 total = 0;
    for (const LockedWheel &w : packages)
        total += std::max<qint64>(w.size, 0);
    return total;
}

bool PyLock::allSizesKnown() const
{
    return std::all_of(packages.begin(), packages.end(), [](const LockedWheel &w) { return w.size >= 0; });
}

QByteArray PyLock::requirementsText() const
{
    QByteArray out;
    for (const LockedWheel *w : sortedPackages(packages)) {
        out += w->name.toUtf8() + "==" + w->version.toUtf8() + " --hash=sha256:" + w->sha256 + '\n';
    }
    return out;
}

} // namespace tfsetup::core
