#include "sources/pep440.h"

#include <algorithm>
#include <initializer_list>

namespace tfsetup::core::pep440 {

namespace {

// Python's str.isspace(), which both `packaging`'s "\s" and str.strip() use.
bool isPySpace(char16_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

QStringView pyStrip(QStringView s)
{
    qsizetype begin = 0;
    qsizetype end = s.size();
    while (begin < end && isPySpace(s[begin].unicode()))
        ++begin;
    while (end > begin && isPySpace(s[end - 1].unicode()))
        --end;
    return s.sliced(begin, end - begin);
}

bool isDigit(char16_t c)
{
    return c >= u'0' && c <= u'9';
}

bool isAsciiAlnum(char16_t c)
{
    return isDigit(c) || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

bool isSeparator(char16_t c)
{
    return c == u'-' || c == u'_' || c == u'.';
}

char16_t asciiLower(char16_t c)
{
    return (c >= u'A' && c <= u'Z') ? char16_t(c + (u'a' - u'A')) : c;
}

// A hand-written reader of packaging's VERSION_PATTERN. Each optional part consumes greedily; the
// pattern never needs to give back what a part took (a separator a part took without a number
// after it is one the next part may go without), so no backtracking is needed.
class Reader {
public:
    explicit Reader(QStringView text)
        : m_text(text)
    {}

    bool atEnd() const { return m_pos == m_text.size(); }
    char16_t peek(qsizetype ahead = 0) const
    {
        return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead].unicode() : char16_t(0);
    }
    void skip(qsizetype n = 1) { m_pos += n; }
    qsizetype pos() const { return m_pos; }
    void setPos(qsizetype pos) { m_pos = pos; }

    // [0-9]+; false when there is none or it does not fit 64 bits.
    bool number(quint64 *out)
    {
        if (!isDigit(peek()))
            return false;
        quint64 value = 0;
        bool fits = true;
        while (isDigit(peek())) {
            const quint64 digit = peek() - u'0';
            if (value > (~quint64(0) - digit) / 10)
                fits = false;
            else
                value = value * 10 + digit;
            skip();
        }
        *out = value;
        return fits;
    }

    // The first of words found here, ASCII case-insensitively; its length, or 0.
    qsizetype word(std::initializer_list<const char16_t *> words, int *which) const
    {
        int index = 0;
        for (const char16_t *w : words) {
            qsizetype n = 0;
            while (w[n] && asciiLower(peek(n)) == w[n])
                ++n;
            if (!w[n]) {
                *which = index;
                return n;
            }
            ++index;
        }
        return 0;
    }

    // "[-_.]?LABEL[-_.]?N?" with LABEL one of words: the label's index and N (0 when absent).
    bool labelled(std::initializer_list<const char16_t *> words, int *which, quint64 *n, bool *overflow)
    {
        const qsizetype start = m_pos;
        if (isSeparator(peek()))
            skip();
        const qsizetype length = word(words, which);
        if (length == 0) {
            m_pos = start;
            return false;
        }
        skip(length);
        if (isSeparator(peek()))
            skip();
        *n = 0;
        if (isDigit(peek()) && !number(n))
            *overflow = true;
        return true;
    }

private:
    QStringView m_text;
    qsizetype m_pos = 0;
};

std::optional<Version> parseStrict(QStringView text)
{
    if (text.isEmpty() || text.size() > Version::maxLength)
        return std::nullopt;
    Reader r(text);
    Version v;
    if (r.peek() == u'v' || r.peek() == u'V')
        r.skip();
    quint64 n = 0;
    if (!r.number(&n))
        return std::nullopt;
    if (r.peek() == u'!') {
        v.epoch = n;
        r.skip();
        if (!r.number(&n))
            return std::nullopt;
    }
    v.release.append(n);
    while (r.peek() == u'.' && isDigit(r.peek(1))) {
        r.skip();
        if (!r.number(&n) || v.release.size() == Version::maxReleaseSegments)
            return std::nullopt;
        v.release.append(n);
    }

    bool overflow = false;
    int which = 0;
    // "alpha|a|beta|b|preview|pre|c|rc": longer spellings first, as the pattern's alternation finds them.
    if (r.labelled({u"alpha", u"a", u"beta", u"b", u"preview", u"pre", u"c", u"rc"}, &which, &v.pre, &overflow)) {
        static constexpr Version::Pre kinds[] = {
            Version::Pre::Alpha,     Version::Pre::Alpha,     Version::Pre::Beta,      Version::Pre::Beta,
            Version::Pre::Candidate, Version::Pre::Candidate, Version::Pre::Candidate, Version::Pre::Candidate};
        v.preKind = kinds[which];
    }
    if (r.peek() == u'-' && isDigit(r.peek(1))) {
        r.skip();
        quint64 post = 0;
        overflow |= !r.number(&post);
        v.post = post;
    } else if (quint64 post = 0; r.labelled({u"post", u"rev", u"r"}, &which, &post, &overflow)) {
        v.post = post;
    }
    if (quint64 dev = 0; r.labelled({u"dev"}, &which, &dev, &overflow))
        v.dev = dev;
    if (overflow)
        return std::nullopt;

    if (r.peek() == u'+') {
        r.skip();
        for (;;) {
            const qsizetype start = r.pos();
            QString part;
            bool digits = true;
            while (isAsciiAlnum(r.peek())) {
                digits = digits && isDigit(r.peek());
                part.append(QChar(asciiLower(r.peek())));
                r.skip();
            }
            if (r.pos() == start)
                return std::nullopt;
            if (digits) {
                // packaging reads these as integers: "007" is 7.
                qsizetype zeros = 0;
                while (zeros + 1 < part.size() && part[zeros] == u'0')
                    ++zeros;
                part.remove(0, zeros);
            }
            v.local.append(part);
            if (!isSeparator(r.peek()))
                break;
            r.skip();
        }
    }
    if (!r.atEnd())
        return std::nullopt;
    return v;
}

int compareNumbers(quint64 a, quint64 b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

// Digit strings without leading zeros, compared as the numbers they are, at any length.
int compareDigits(const QString &a, const QString &b)
{
    if (a.size() != b.size())
        return a.size() < b.size() ? -1 : 1;
    return a.compare(b);
}

bool allDigits(const QString &s)
{
    return std::all_of(s.cbegin(), s.cend(), [](QChar c) { return isDigit(c.unicode()); });
}

// packaging's _cmpkey: a pre-release key where a dev release of a plain release sorts before its
// alpha, and a release without pre-release after its candidates.
struct PreKey {
    int rank;
    quint64 n;
};

PreKey preKey(const Version &v)
{
    if (v.preKind == Version::Pre::None)
        return {!v.post && v.dev ? 0 : 4, 0};
    return {int(v.preKind), v.pre};
}

int compareLocal(const QStringList &a, const QStringList &b)
{
    // No local label sorts before any; numeric parts after alphanumeric ones.
    if (a.isEmpty() || b.isEmpty())
        return a.isEmpty() == b.isEmpty() ? 0 : (a.isEmpty() ? -1 : 1);
    const qsizetype common = std::min(a.size(), b.size());
    for (qsizetype i = 0; i < common; ++i) {
        const bool na = allDigits(a[i]);
        const bool nb = allDigits(b[i]);
        int c = 0;
        if (na != nb)
            c = na ? 1 : -1;
        else
            c = na ? compareDigits(a[i], b[i]) : a[i].compare(b[i]);
        if (c != 0)
            return c < 0 ? -1 : 1;
    }
    return compareNumbers(quint64(a.size()), quint64(b.size()));
}

// ==P.* with P an epoch and release: the version's release, padded with zeros, starts with P's.
bool prefixMatches(const Version &prefix, qsizetype length, const Version &v)
{
    if (v.epoch != prefix.epoch)
        return false;
    for (qsizetype i = 0; i < length; ++i) {
        if (v.release.value(i, 0) != prefix.release.value(i, 0))
            return false;
    }
    return true;
}

} // namespace

std::optional<Version> Version::parse(const QString &text)
{
    return parseStrict(pyStrip(text));
}

QString Version::toString() const
{
    QString out;
    if (epoch != 0)
        out += QString::number(epoch) + u'!';
    for (qsizetype i = 0; i < release.size(); ++i) {
        if (i > 0)
            out += u'.';
        out += QString::number(release[i]);
    }
    switch (preKind) {
    case Pre::None: break;
    case Pre::Alpha: out += u'a' + QString::number(pre); break;
    case Pre::Beta: out += u'b' + QString::number(pre); break;
    case Pre::Candidate: out += QStringLiteral("rc") + QString::number(pre); break;
    }
    if (post)
        out += QStringLiteral(".post") + QString::number(*post);
    if (dev)
        out += QStringLiteral(".dev") + QString::number(*dev);
    if (!local.isEmpty())
        out += u'+' + local.join(u'.');
    return out;
}

Version Version::publicVersion() const
{
    Version v = *this;
    v.local.clear();
    return v;
}

Version Version::baseVersion() const
{
    Version v;
    v.epoch = epoch;
    v.release = release;
    return v;
}

int compare(const Version &a, const Version &b)
{
    if (const int c = compareNumbers(a.epoch, b.epoch))
        return c;
    const qsizetype length = std::max(a.release.size(), b.release.size());
    for (qsizetype i = 0; i < length; ++i) {
        if (const int c = compareNumbers(a.release.value(i, 0), b.release.value(i, 0)))
            return c;
    }
    const PreKey pa = preKey(a);
    const PreKey pb = preKey(b);
    if (pa.rank != pb.rank)
        return pa.rank < pb.rank ? -1 : 1;
    if (const int c = compareNumbers(pa.n, pb.n))
        return c;
    // No post release sorts before any; no dev release after any.
    if (a.post.has_value() != b.post.has_value())
        return a.post ? 1 : -1;
    if (const int c = compareNumbers(a.post.value_or(0), b.post.value_or(0)))
        return c;
    if (a.dev.has_value() != b.dev.has_value())
        return a.dev ? -1 : 1;
    if (const int c = compareNumbers(a.dev.value_or(0), b.dev.value_or(0)))
        return c;
    return compareLocal(a.local, b.local);
}

std::optional<SpecifierSet::Specifier> SpecifierSet::parseOne(QStringView text)
{
    Specifier s;
    qsizetype opLength = 2;
    if (text.startsWith(u"===")) {
        s.op = Op::Identity;
        opLength = 3;
    } else if (text.startsWith(u"~=")) {
        s.op = Op::Compatible;
    } else if (text.startsWith(u"==")) {
        s.op = Op::Equal;
    } else if (text.startsWith(u"!=")) {
        s.op = Op::NotEqual;
    } else if (text.startsWith(u"<=")) {
        s.op = Op::LessEqual;
    } else if (text.startsWith(u">=")) {
        s.op = Op::GreaterEqual;
    } else if (text.startsWith(u'<')) {
        s.op = Op::Less;
        opLength = 1;
    } else if (text.startsWith(u'>')) {
        s.op = Op::Greater;
        opLength = 1;
    } else {
        return std::nullopt;
    }
    const QStringView operand = pyStrip(text.sliced(opLength));
    if (operand.size() > Version::maxLength)
        return std::nullopt;
    const bool hasSpace = std::any_of(operand.cbegin(), operand.cend(), [](QChar c) { return isPySpace(c.unicode()); });
    if (s.op == Op::Identity) {
        // Anything but whitespace, ';' and ')' (which end a requirement's version part).
        if (hasSpace || operand.contains(u';') || operand.contains(u')'))
            return std::nullopt;
        s.identity = operand.toString();
        const auto v = parseStrict(operand);
        s.namesPrerelease = v && v->isPrerelease();
        return s;
    }
    if (hasSpace)
        return std::nullopt;
    s.wildcard = (s.op == Op::Equal || s.op == Op::NotEqual) && operand.endsWith(u".*");
    const auto v = parseStrict(s.wildcard ? operand.chopped(2) : operand);
    if (!v)
        return std::nullopt;
    s.version = *v;
    if (s.wildcard && (v->preKind != Version::Pre::None || v->post || v->dev || !v->local.isEmpty()))
        return std::nullopt;
    if (!v->local.isEmpty() && s.op != Op::Equal && s.op != Op::NotEqual)
        return std::nullopt;
    if (s.op == Op::Compatible && v->release.size() < 2)
        return std::nullopt;
    s.namesPrerelease = (s.op == Op::Equal || s.op == Op::GreaterEqual || s.op == Op::LessEqual
                         || s.op == Op::Compatible)
        && v->isPrerelease();
    return s;
}

std::optional<SpecifierSet> SpecifierSet::parse(const QString &text)
{
    SpecifierSet set;
    for (const QStringView part : QStringView(text).split(u',')) {
        const QStringView trimmed = pyStrip(part);
        if (trimmed.isEmpty())
            continue;
        auto s = parseOne(trimmed);
        if (!s)
            return std::nullopt;
        set.m_specifiers.append(std::move(*s));
    }
    return set;
}

bool SpecifierSet::matches(const Specifier &s, const Version &v)
{
    const Version &spec = s.version;
    switch (s.op) {
    case Op::Compatible:
        // ~=X.Y.Z is >=X.Y.Z together with ==X.Y.*.
        return compare(v.publicVersion(), spec) >= 0 && prefixMatches(spec, spec.release.size() - 1, v);
    case Op::Equal:
    case Op::NotEqual: {
        bool equal = false;
        if (s.wildcard)
            equal = prefixMatches(spec, spec.release.size(), v);
        else
            equal = compare(spec.local.isEmpty() ? v.publicVersion() : v, spec) == 0;
        return equal == (s.op == Op::Equal);
    }
    case Op::LessEqual: return compare(v.publicVersion(), spec) <= 0;
    case Op::GreaterEqual: return compare(v.publicVersion(), spec) >= 0;
    case Op::Less:
        // <3.1 does not take 3.1.dev0 or 3.1rc1, unless it names a pre-release itself.
        if (compare(v, spec) >= 0)
            return false;
        return spec.isPrerelease() || !v.isPrerelease() || compare(v.baseVersion(), spec.baseVersion()) != 0;
    case Op::Greater:
        // >3.1 does not take 3.1.post1 (unless it names a post release) nor 3.1+local.
        if (compare(v, spec) <= 0)
            return false;
        if (!spec.isPostrelease() && v.isPostrelease() && compare(v.baseVersion(), spec.baseVersion()) == 0)
            return false;
        return v.local.isEmpty() || compare(v.baseVersion(), spec.baseVersion()) != 0;
    case Op::Identity: return v.toString().compare(s.identity, Qt::CaseInsensitive) == 0;
    }
    return false;
}

bool SpecifierSet::contains(const Version &v, bool allowPre) const
{
    const bool prereleases = allowPre
        || std::any_of(m_specifiers.cbegin(), m_specifiers.cend(),
                       [](const Specifier &s) { return s.namesPrerelease; });
    if (v.isPrerelease() && !prereleases)
        return false;
    return std::all_of(m_specifiers.cbegin(), m_specifiers.cend(), [&v](const Specifier &s) { return matches(s, v); });
}

bool SpecifierSet::contains(const QString &version, bool allowPre) const
{
    const auto v = Version::parse(version);
    return v && contains(*v, allowPre);
}

} // namespace tfsetup::core::pep440
