#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <compare>
#include <optional>

// Python package versions and version specifiers (PEP 440), with the semantics pip's `packaging`
// gives them: picking a pip wheel by Requires-Python, checking that a lock satisfies requirements.
namespace tfsetup::core::pep440 {

// A PEP 440 version: epoch, release numbers, pre (a/b/rc + n), post, dev, local. Parsed leniently the
// way `packaging` does (case-insensitive, "-", "_", "." separators, "alpha"/"beta"/"c"/"pre"/"preview"/
// "rev"/"r" spellings, leading "v", implicit numbers, surrounding whitespace); invalid → std::nullopt.
struct Version {
    // In PEP 440's order.
    enum class Pre { None, Alpha, Beta, Candidate };

    quint64 epoch = 0;
    QList<quint64> release; // at least one number; trailing zeros kept ("1.0" stays "1.0")
    Pre preKind = Pre::None;
    quint64 pre = 0;
    std::optional<quint64> post;
    std::optional<quint64> dev;
    QStringList local; // lower case; digit-only parts without leading zeros

    // Longer text is refused, and so are numbers past 64 bits: no real version has them, and
    // bounds keep every use linear.
    static constexpr qsizetype maxLength = 256;
    static constexpr qsizetype maxReleaseSegments = 32;

    static std::optional<Version> parse(const QString &text);
    QString toString() const; // normalized: "1.0-RC.1" → "1.0rc1", "v1.0.post" → "1.0.post0"

    bool isPrerelease() const { return preKind != Pre::None || dev.has_value(); }
    bool isPostrelease() const { return post.has_value(); }
    Version publicVersion() const; // without the local label
    Version baseVersion() const;   // epoch and release only
};

// PEP 440 ordering: <0 when a sorts before b. Trailing zeros of the release do not count
// ("1.0" == "1.0.0"); 1.0.dev1 < 1.0a1 < 1.0 < 1.0+local < 1.0.post1.
int compare(const Version &a, const Version &b);
inline bool operator==(const Version &a, const Version &b)
{
    return compare(a, b) == 0;
}
inline std::weak_ordering operator<=>(const Version &a, const Version &b)
{
    return compare(a, b) <=> 0;
}

// A specifier set such as ">=3.9,<3.13", "~=2.15.0", "==2.15.*", "!=3.0.*", "===foo"; whitespace
// tolerated, empty parts between commas ignored.
class SpecifierSet {
public:
    // "" → an empty set; nullopt when any part is not a PEP 440 specifier.
    static std::optional<SpecifierSet> parse(const QString &text);

    // PEP 440 "contains" as `packaging` implements it: pre-releases are excluded unless allowPre or a
    // specifier itself names one (==, ~=, >=, <= or === with a pre-release), so the empty set contains
    // every final release and pre-releases only with allowPre; ==X.* matches by prefix; ~=X.Y is
    // >=X.Y,==X.*; local labels are ignored except by == with a local label; <V excludes pre-releases
    // of V; >V excludes post-releases and local versions of V; === compares the normalized text.
    // One difference: ~= drops the last number of the release as parsed, as PEP 440 says; packaging
    // splits the text as written, which differs for unnormalized spellings ("~=1.0.0.r1", "~=v1.0").
    bool contains(const Version &v, bool allowPre = false) const;
    bool contains(const QString &version, bool allowPre = false) const; // unparsable → false

    bool isEmpty() const { return m_specifiers.isEmpty(); }

private:
    enum class Op { Compatible, Equal, NotEqual, LessEqual, GreaterEqual, Less, Greater, Identity };
    struct Specifier {
        Op op = Op::Equal;
        Version version;       // unused for ===
        bool wildcard = false; // ==X.* / !=X.*
        QString identity;      // the operand of ===
        bool namesPrerelease = false;
    };
    static std::optional<Specifier> parseOne(QStringView text);
    static bool matches(const Specifier &s, const Version &v);

    QList<Specifier> m_specifiers;
};

} // namespace tfsetup::core::pep440
