#include "sources/pep440.h"

#include <QTest>

using namespace tfsetup::core::pep440;
using namespace Qt::StringLiterals;

namespace {

Version parsed(const QString &text)
{
    const auto v = Version::parse(text);
    if (!v)
        qFatal("test version %s does not parse", qPrintable(text));
    return *v;
}

// PEP 440's own example of the order ("Summary of permitted suffixes and relative ordering"),
// with a release between the post releases and the next minor.
const QStringList pepOrder{
    u"1.0.dev456"_s,    u"1.0a1"_s,         u"1.0a2.dev456"_s, u"1.0a12.dev456"_s,
    u"1.0a12"_s,        u"1.0b1.dev456"_s,  u"1.0b2"_s,        u"1.0b2.post345.dev456"_s,
    u"1.0b2.post345"_s, u"1.0rc1.dev456"_s, u"1.0rc1"_s,       u"1.0"_s,
    u"1.0+abc.5"_s,     u"1.0+abc.7"_s,     u"1.0+5"_s,        u"1.0.post456.dev34"_s,
    u"1.0.post456"_s,   u"1.0.15"_s,        u"1.1.dev1"_s,
};

} // namespace

class TestPep440 : public QObject {
    Q_OBJECT

private slots:
    void compare_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("expected");
        for (qsizetype i = 0; i + 1 < pepOrder.size(); ++i) {
            const QByteArray name = (pepOrder[i] + u" < "_s + pepOrder[i + 1]).toUtf8();
            QTest::newRow(name.constData()) << pepOrder[i] << pepOrder[i + 1] << -1;
        }
        QTest::newRow("epoch beats a larger release") << u"2013.10"_s << u"1!1.0"_s << -1;
        QTest::newRow("epochs compare first") << u"1!2.0"_s << u"2!1.0"_s << -1;
        QTest::newRow("epoch 0 is no epoch") << u"0!1.0"_s << u"1.0"_s << 0;
        QTest::newRow("trailing zeros do not count") << u"1.0"_s << u"1.0.0.0"_s << 0;
        QTest::newRow("release numbers compare numerically") << u"1.9"_s << u"1.10"_s << -1;
        QTest::newRow("leading zeros do not count") << u"01.002"_s << u"1.2"_s << 0;
        QTest::newRow("spellings compare equal") << u"1.0-RC.1"_s << u"1.0rc1"_s << 0;
        QTest::newRow("c is rc") << u"1.0c1"_s << u"1.0rc1"_s << 0;
        QTest::newRow("dev of a post release is after the release") << u"1.0"_s << u"1.0.post1.dev1"_s << -1;
        QTest::newRow("dev of a pre-release is before it") << u"1.0a1.dev1"_s << u"1.0a1"_s << -1;
        QTest::newRow("implicit post release") << u"1.0-1"_s << u"1.0.post1"_s << 0;
        QTest::newRow("local: numbers after letters") << u"1.0+abc"_s << u"1.0+1"_s << -1;
        QTest::newRow("local: longer after its prefix") << u"1.0+abc"_s << u"1.0+abc.0"_s << -1;
        QTest::newRow("local: case and separators") << u"1.0+Ubuntu-1"_s << u"1.0+ubuntu.1"_s << 0;
        QTest::newRow("local: numbers by value") << u"1.0+9"_s << u"1.0+10"_s << -1;
        QTest::newRow("local: numbers past 64 bits")
            << u"1.0+99999999999999999999"_s << u"1.0+100000000000000000000"_s << -1;
        QTest::newRow("python release candidate") << u"3.13.0rc1"_s << u"3.13.0"_s << -1;
    }
    void compare()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, expected);
        const Version va = parsed(a);
        const Version vb = parsed(b);
        QCOMPARE(tfsetup::core::pep440::compare(va, vb), expected);
        QCOMPARE(tfsetup::core::pep440::compare(vb, va), -expected);
        QCOMPARE(va == vb, expected == 0);
        QCOMPARE(va < vb, expected < 0);
    }

    void pepExamplesAreTotallyOrdered()
    {
        for (qsizetype i = 0; i < pepOrder.size(); ++i) {
            for (qsizetype j = 0; j < pepOrder.size(); ++j) {
                const int c = tfsetup::core::pep440::compare(parsed(pepOrder[i]), parsed(pepOrder[j]));
                QVERIFY2(c == (i < j ? -1 : (i > j ? 1 : 0)), qPrintable(pepOrder[i] + u" vs "_s + pepOrder[j]));
            }
        }
    }

    void normalize_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("normalized");
        QTest::newRow("already normal") << u"1.0"_s << u"1.0"_s;
        QTest::newRow("case") << u"1.1RC1"_s << u"1.1rc1"_s;
        QTest::newRow("pre separator dot") << u"1.1.a1"_s << u"1.1a1"_s;
        QTest::newRow("pre separator dash") << u"1.1-a1"_s << u"1.1a1"_s;
        QTest::newRow("pre number separator") << u"1.0a.1"_s << u"1.0a1"_s;
        QTest::newRow("alpha") << u"1.1alpha1"_s << u"1.1a1"_s;
        QTest::newRow("beta") << u"1.1beta2"_s << u"1.1b2"_s;
        QTest::newRow("c") << u"1.1c3"_s << u"1.1rc3"_s;
        QTest::newRow("pre") << u"1.1pre4"_s << u"1.1rc4"_s;
        QTest::newRow("preview") << u"1.1preview5"_s << u"1.1rc5"_s;
        QTest::newRow("implicit pre number") << u"1.2a"_s << u"1.2a0"_s;
        QTest::newRow("post with dash") << u"1.2-post2"_s << u"1.2.post2"_s;
        QTest::newRow("post without separator") << u"1.2post2"_s << u"1.2.post2"_s;
        QTest::newRow("post number separator") << u"1.2.post.2"_s << u"1.2.post2"_s;
        QTest::newRow("r") << u"1.0-r4"_s << u"1.0.post4"_s;
        QTest::newRow("rev") << u"1.0-rev4"_s << u"1.0.post4"_s;
        QTest::newRow("implicit post number") << u"1.2.post"_s << u"1.2.post0"_s;
        QTest::newRow("implicit post release") << u"1.0-1"_s << u"1.0.post1"_s;
        QTest::newRow("dev with dash") << u"1.2-dev2"_s << u"1.2.dev2"_s;
        QTest::newRow("dev without separator") << u"1.2dev2"_s << u"1.2.dev2"_s;
        QTest::newRow("implicit dev number") << u"1.2.dev"_s << u"1.2.dev0"_s;
        QTest::newRow("local separators") << u"1.0+ubuntu-1"_s << u"1.0+ubuntu.1"_s;
        QTest::newRow("local case") << u"1.0+Ubuntu_1"_s << u"1.0+ubuntu.1"_s;
        QTest::newRow("local leading zeros") << u"1.0+007.abc"_s << u"1.0+7.abc"_s;
        QTest::newRow("leading v") << u"v1.0"_s << u"1.0"_s;
        QTest::newRow("leading V") << u"V1.0"_s << u"1.0"_s;
        QTest::newRow("whitespace around") << u" \t1.0\n"_s << u"1.0"_s;
        QTest::newRow("leading zeros") << u"01.02.003"_s << u"1.2.3"_s;
        QTest::newRow("epoch 0 dropped") << u"0!1.0"_s << u"1.0"_s;
        QTest::newRow("epoch kept") << u"1!1.0"_s << u"1!1.0"_s;
        QTest::newRow("everything") << u"v2!1.0-RC_1.POST-2.DEV_3+Local-7"_s << u"2!1.0rc1.post2.dev3+local.7"_s;
        QTest::newRow("dangling separator after a label") << u"1.0a-"_s << u"1.0a0"_s;
        QTest::newRow("largest 64-bit number") << u"18446744073709551615"_s << u"18446744073709551615"_s;
    }
    void normalize()
    {
        QFETCH(QString, text);
        QFETCH(QString, normalized);
        const auto v = Version::parse(text);
        QVERIFY2(v, qPrintable(text));
        QCOMPARE(v->toString(), normalized);
        const auto again = Version::parse(v->toString());
        QVERIFY(again);
        QCOMPARE(again->toString(), normalized);
    }

    void invalid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("whitespace") << u"  "_s;
        QTest::newRow("words") << u"french toast"_s;
        QTest::newRow("trailing dot") << u"1.0."_s;
        QTest::newRow("leading dot") << u".1"_s;
        QTest::newRow("empty release number") << u"1..0"_s;
        QTest::newRow("empty local") << u"1.0+"_s;
        QTest::newRow("trailing local separator") << u"1.0+abc."_s;
        QTest::newRow("empty local part") << u"1.0+abc..1"_s;
        QTest::newRow("non-ascii local") << u"1.0+ünicode"_s;
        QTest::newRow("dev before post") << u"1.0.dev1.post1"_s;
        QTest::newRow("two pre-releases") << u"1.0a1b2"_s;
        QTest::newRow("epoch without release") << u"1!"_s;
        QTest::newRow("release-less epoch mark") << u"!1.0"_s;
        QTest::newRow("v after epoch") << u"1!v1.0"_s;
        QTest::newRow("space inside") << u"1.0 beta"_s;
        QTest::newRow("bare v") << u"v"_s;
        QTest::newRow("wildcard") << u"1.0.*"_s;
        QTest::newRow("number past 64 bits") << u"18446744073709551616"_s;
        QTest::newRow("pre number past 64 bits") << u"1.0rc99999999999999999999"_s;
        QTest::newRow("33 release numbers") << QString(u"1."_s.repeated(32) + u'1');
        QTest::newRow("over 256 characters") << QString(u"1."_s + QString(255, u'0'));
    }
    void invalid()
    {
        QFETCH(QString, text);
        QVERIFY(!Version::parse(text));
    }

    void limits()
    {
        QVERIFY(Version::parse(u"1."_s.repeated(31) + u'1'));
        QVERIFY(Version::parse(u"1."_s + QString(254, u'0')));
    }

    void contains_data()
    {
        QTest::addColumn<QString>("specifiers");
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("allowPre");
        QTest::addColumn<bool>("expected");
        QTest::newRow("requires-python: inside") << u">=3.9,<3.13"_s << u"3.12.1"_s << false << true;
        QTest::newRow("requires-python: lower bound") << u">=3.9,<3.13"_s << u"3.9"_s << false << true;
        QTest::newRow("requires-python: below") << u">=3.9,<3.13"_s << u"3.8.18"_s << false << false;
        QTest::newRow("requires-python: upper bound") << u">=3.9,<3.13"_s << u"3.13.0"_s << false << false;
        QTest::newRow("requires-python: rc of the bound") << u">=3.9,<3.13"_s << u"3.13.0rc1"_s << false << false;
        QTest::newRow("requires-python: rc of the bound, pre allowed")
            << u">=3.9,<3.13"_s << u"3.13.0rc1"_s << true << false;
        QTest::newRow("requires-python: whitespace") << u"  >= 3.9 ,  < 3.13 "_s << u"3.10"_s << false << true;
        QTest::newRow("~=2.15.0 takes 2.15.7") << u"~=2.15.0"_s << u"2.15.7"_s << false << true;
        QTest::newRow("~=2.15.0 takes 2.15.0") << u"~=2.15.0"_s << u"2.15"_s << false << true;
        QTest::newRow("~=2.15.0 refuses 2.16.0") << u"~=2.15.0"_s << u"2.16.0"_s << false << false;
        QTest::newRow("~=2.15.0 refuses 2.14.9") << u"~=2.15.0"_s << u"2.14.9"_s << false << false;
        QTest::newRow("~=2.15 takes 2.16") << u"~=2.15"_s << u"2.16"_s << false << true;
        QTest::newRow("~=2.15 refuses 3.0") << u"~=2.15"_s << u"3.0"_s << false << false;
        QTest::newRow("~=2.15 ignores local") << u"~=2.15"_s << u"2.15.1+cu121"_s << false << true;
        QTest::newRow("~=1.4.5a4 names a pre-release") << u"~=1.4.5a4"_s << u"1.4.5b1"_s << false << true;
        QTest::newRow("~=1.4.5a4 refuses 1.5") << u"~=1.4.5a4"_s << u"1.5.0"_s << false << false;
        QTest::newRow("==2.15.* takes 2.15.1") << u"==2.15.*"_s << u"2.15.1"_s << false << true;
        QTest::newRow("==2.15.* takes 2.15") << u"==2.15.*"_s << u"2.15"_s << false << true;
        QTest::newRow("==2.15.* takes a post release") << u"==2.15.*"_s << u"2.15.0.post1"_s << false << true;
        QTest::newRow("==2.15.* takes a local version") << u"==2.15.*"_s << u"2.15.0+cpu"_s << false << true;
        QTest::newRow("==2.15.* refuses 2.16.0") << u"==2.15.*"_s << u"2.16.0"_s << false << false;
        QTest::newRow("==2.15.* refuses 2.1") << u"==2.15.*"_s << u"2.1"_s << false << false;
        QTest::newRow("==2.15.* refuses its rc") << u"==2.15.*"_s << u"2.15.0rc1"_s << false << false;
        QTest::newRow("==2.15.* takes its rc, pre allowed") << u"==2.15.*"_s << u"2.15.0rc1"_s << true << true;
        QTest::newRow("==2.0.* takes 2") << u"==2.0.*"_s << u"2"_s << false << true;
        QTest::newRow("==1!2.* refuses epoch 0") << u"==1!2.*"_s << u"2.0"_s << false << false;
        QTest::newRow("!=3.0.* refuses 3.0.5") << u"!=3.0.*"_s << u"3.0.5"_s << false << false;
        QTest::newRow("!=3.0.* takes 3.1") << u"!=3.0.*"_s << u"3.1"_s << false << true;
        QTest::newRow("!=3.0.* takes 2.9") << u"!=3.0.*"_s << u"2.9"_s << false << true;
        QTest::newRow("==1.0 takes 1.0.0") << u"==1.0"_s << u"1.0.0"_s << false << true;
        QTest::newRow("==1.0 ignores local") << u"==1.0"_s << u"1.0+ubuntu1"_s << false << true;
        QTest::newRow("==1.0+a takes only 1.0+a") << u"==1.0+a"_s << u"1.0+a"_s << false << true;
        QTest::newRow("==1.0+a refuses 1.0") << u"==1.0+a"_s << u"1.0"_s << false << false;
        QTest::newRow("==1.0+a refuses 1.0+b") << u"==1.0+a"_s << u"1.0+b"_s << false << false;
        QTest::newRow("!=1.5 refuses 1.5") << u">=1.0,!=1.5"_s << u"1.5"_s << false << false;
        QTest::newRow("<2.0 refuses 2.0rc1") << u"<2.0"_s << u"2.0rc1"_s << false << false;
        QTest::newRow("<2.0 refuses 2.0rc1, pre allowed") << u"<2.0"_s << u"2.0rc1"_s << true << false;
        QTest::newRow("<2.0 refuses 2.0.dev1, pre allowed") << u"<2.0"_s << u"2.0.dev1"_s << true << false;
        QTest::newRow("<2.0 takes 1.9rc1, pre allowed") << u"<2.0"_s << u"1.9rc1"_s << true << true;
        QTest::newRow("<2.0 takes 1.9") << u"<2.0"_s << u"1.9"_s << false << true;
        QTest::newRow("<2.0rc2 names no pre-release for <") << u"<2.0rc2"_s << u"2.0rc1"_s << false << false;
        QTest::newRow("<2.0rc2 takes 2.0rc1, pre allowed") << u"<2.0rc2"_s << u"2.0rc1"_s << true << true;
        QTest::newRow("<1.0 refuses 1.0+local") << u"<1.0"_s << u"1.0+local"_s << false << false;
        QTest::newRow(">1.0 refuses 1.0.post1") << u">1.0"_s << u"1.0.post1"_s << false << false;
        QTest::newRow(">1.0 refuses 1.0+local") << u">1.0"_s << u"1.0+local"_s << false << false;
        QTest::newRow(">1.0 takes 1.0.1") << u">1.0"_s << u"1.0.1"_s << false << true;
        QTest::newRow(">1.0 takes 1.1.post1") << u">1.0"_s << u"1.1.post1"_s << false << true;
        QTest::newRow(">1.0.post1 takes 1.0.post2") << u">1.0.post1"_s << u"1.0.post2"_s << false << true;
        QTest::newRow("<=2.0 ignores local") << u"<=2.0"_s << u"2.0+local"_s << false << true;
        QTest::newRow(">=1.0a1 names a pre-release") << u">=1.0a1"_s << u"1.0a2"_s << false << true;
        QTest::newRow(">=1.0 takes a later epoch") << u">=1.0"_s << u"1!0.5"_s << false << true;
        QTest::newRow("===1.0 takes 1.0") << u"===1.0"_s << u"1.0"_s << false << true;
        QTest::newRow("===1.0 refuses 1.0.0") << u"===1.0"_s << u"1.0.0"_s << false << false;
        QTest::newRow("===1.0 compares normalized text") << u"===1.0"_s << u"v1.0"_s << false << true;
        QTest::newRow("===foo matches no version") << u"===foo"_s << u"1.0"_s << false << false;
        QTest::newRow("empty set takes a release") << QString() << u"1.0"_s << false << true;
        QTest::newRow("empty set refuses a pre-release") << QString() << u"1.0a1"_s << false << false;
        QTest::newRow("empty set takes a pre-release, pre allowed") << QString() << u"1.0a1"_s << true << true;
        QTest::newRow("empty parts between commas") << u",>=1.0,,"_s << u"1.1"_s << false << true;
        QTest::newRow("unparsable version") << u">=1.0"_s << u"french toast"_s << false << false;
    }
    void contains()
    {
        QFETCH(QString, specifiers);
        QFETCH(QString, version);
        QFETCH(bool, allowPre);
        QFETCH(bool, expected);
        const auto set = SpecifierSet::parse(specifiers);
        QVERIFY2(set, qPrintable(specifiers));
        QCOMPARE(set->contains(version, allowPre), expected);
        if (const auto v = Version::parse(version))
            QCOMPARE(set->contains(*v, allowPre), expected);
    }

    void invalidSpecifiers_data()
    {
        QTest::addColumn<QString>("specifiers");
        QTest::newRow("operator without version") << u">="_s;
        QTest::newRow("reversed operator") << u"=>1.0"_s;
        QTest::newRow("no operator") << u"1.0"_s;
        QTest::newRow("single =") << u"=1.0"_s;
        QTest::newRow("~= with one number") << u"~=1"_s;
        QTest::newRow("~= with a wildcard") << u"~=1.0.*"_s;
        QTest::newRow(">= with a wildcard") << u">=1.0.*"_s;
        QTest::newRow("two wildcards") << u"==1.0.*.*"_s;
        QTest::newRow("wildcard after a pre-release") << u"==1.0a1.*"_s;
        QTest::newRow("< with a local label") << u"<1.0+local"_s;
        QTest::newRow("~= with a local label") << u"~=1.0+local"_s;
        QTest::newRow("space inside the version") << u">= 1 .0"_s;
        QTest::newRow("space before the wildcard") << u"==1.0 .*"_s;
        QTest::newRow("marker semicolon") << u">=1.0;"_s;
        QTest::newRow("=== with a space") << u"=== foo bar"_s;
        QTest::newRow("one bad part spoils the set") << u">=3.9,<4,lots"_s;
        QTest::newRow("words") << u"french toast"_s;
    }
    void invalidSpecifiers()
    {
        QFETCH(QString, specifiers);
        QVERIFY(!SpecifierSet::parse(specifiers));
    }
};

QTEST_APPLESS_MAIN(TestPep440)
#include "test_pep440.moc"
