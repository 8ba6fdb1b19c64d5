// Package index pages as any index, mirror, proxy or captive portal may send them, and the PEP 440
// versions and specifier sets read from them. First byte: 0 HTML page, 1 JSON page, 2 versions
// (parse, normalize, compare), 3 a specifier set and versions it is asked about.
// Pages read to files or to an error with a code and a message; every file read is one the
// loopback index can serve back (htmlPage) and read again to the same thing. Versions normalize to
// text that reads back to the same version, and compare as a total order does.

#include "fuzzsupport.h"
#include "sources/pep440.h"
#include "sources/simpleindex.h"

using namespace tfsetup::core;
using namespace tfsetup::core::pep440;

namespace {

bool isLowerHex64(const QByteArray &h)
{
    if (h.size() != 64)
        return false;
    for (const char c : h) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

void checkPage(const Result<IndexPage> &page, bool json)
{
    tfsetup::fuzz::checkResult(page);
    if (!page.ok()) {
        TFSETUP_FUZZ_CHECK(page.error().code == u"index_page_too_large"
                           || page.error().code == u"index_page_malformed");
        TFSETUP_FUZZ_CHECK(json || page.error().code == u"index_page_too_large");
        return;
    }
    TFSETUP_FUZZ_CHECK(page->files.size() <= SimpleIndex::maxFiles);
    for (const IndexFile &f : page->files) {
        TFSETUP_FUZZ_CHECK(!f.filename.isEmpty());
        TFSETUP_FUZZ_CHECK(f.url.isValid() && !f.url.isEmpty() && !f.url.hasFragment());
        TFSETUP_FUZZ_CHECK(f.sha256.isEmpty() || isLowerHex64(f.sha256));
        TFSETUP_FUZZ_CHECK(f.metadataSha256.isEmpty() || isLowerHex64(f.metadataSha256));
        TFSETUP_FUZZ_CHECK(f.hasMetadata || f.metadataSha256.isEmpty());
        TFSETUP_FUZZ_CHECK(f.yanked || f.yankedReason.isEmpty());
        TFSETUP_FUZZ_CHECK(json ? f.size >= -1 : f.size == -1);
    }

    // What the loopback index would serve from these files reads back to them. HTML trims link
    // text and has no sizes, and text that is not valid UTF-16 cannot be written.
    QList<IndexFile> expected = page->files;
    QList<IndexFile> served;
    for (IndexFile &f : expected) {
        f.size = -1;
        const bool writable = f.filename == f.filename.trimmed() && f.filename.isValidUtf16()
            && f.requiresPython.isValidUtf16() && f.yankedReason.isValidUtf16();
        if (writable)
            served.append(f);
    }
    const QUrl pageUrl(QStringLiteral("https://index.example.org/simple/project/"));
    const auto again = SimpleIndex::parse(SimpleIndex::htmlPage(page->project, served), "text/html", pageUrl);
    TFSETUP_FUZZ_CHECK(again.ok());
    TFSETUP_FUZZ_CHECK(again->files.size() == served.size());
    for (qsizetype i = 0; i < served.size(); ++i) {
        const IndexFile &a = served[i];
        const IndexFile &b = again->files[i];
        TFSETUP_FUZZ_CHECK(a.filename == b.filename);
        TFSETUP_FUZZ_CHECK(a.url == b.url);
        TFSETUP_FUZZ_CHECK(a.sha256 == b.sha256);
        TFSETUP_FUZZ_CHECK(a.requiresPython == b.requiresPython);
        TFSETUP_FUZZ_CHECK(a.yanked == b.yanked && a.yankedReason == b.yankedReason);
        TFSETUP_FUZZ_CHECK(a.hasMetadata == b.hasMetadata && a.metadataSha256 == b.metadataSha256);
    }
}

void checkVersion(const std::optional<Version> &v)
{
    if (!v)
        return;
    const QString normal = v->toString();
    TFSETUP_FUZZ_CHECK(!normal.isEmpty());
    TFSETUP_FUZZ_CHECK(v->release.size() >= 1 && v->release.size() <= Version::maxReleaseSegments);
    const auto again = Version::parse(normal);
    TFSETUP_FUZZ_CHECK(again && again->toString() == normal);
    TFSETUP_FUZZ_CHECK(compare(*v, *again) == 0);
    TFSETUP_FUZZ_CHECK(compare(v->publicVersion(), *v) <= 0);
    TFSETUP_FUZZ_CHECK(compare(v->baseVersion(), v->publicVersion()) == 0 || v->isPrerelease() || v->isPostrelease());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto [selector, input] = tfsetup::fuzz::select(data, size, 4);
    const QUrl pageUrl(QStringLiteral("https://index.example.org/simple/project/"));
    switch (selector) {
    case 0: checkPage(SimpleIndex::parse(input, "text/html", pageUrl), input.trimmed().startsWith('{')); break;
    case 1: checkPage(SimpleIndex::parse(input, "application/vnd.pypi.simple.v1+json", pageUrl), true); break;
    case 2: {
        // Up to three versions, one a line.
        const QStringList lines = QString::fromUtf8(input).split(u'\n');
        QList<Version> versions;
        for (const QString &line : lines.mid(0, 3)) {
            const auto v = Version::parse(line);
            checkVersion(v);
            if (v)
                versions.append(*v);
        }
        for (const Version &a : versions) {
            TFSETUP_FUZZ_CHECK(compare(a, a) == 0);
            for (const Version &b : versions) {
                TFSETUP_FUZZ_CHECK(compare(a, b) == -compare(b, a));
                for (const Version &c : versions) {
                    if (compare(a, b) <= 0 && compare(b, c) <= 0)
                        TFSETUP_FUZZ_CHECK(compare(a, c) <= 0);
                }
            }
        }
        break;
    }
    case 3: {
        // A specifier set, then versions to ask it about, one a line.
        const QStringList lines = QString::fromUtf8(input).split(u'\n');
        const auto set = SpecifierSet::parse(lines.value(0));
        if (!set)
            break;
        const SpecifierSet everything = *SpecifierSet::parse(QString());
        for (const QString &line : lines.mid(1, 8)) {
            const auto v = Version::parse(line);
            const bool strict = set->contains(line);
            const bool withPre = set->contains(line, true);
            if (!v) {
                TFSETUP_FUZZ_CHECK(!strict && !withPre);
                continue;
            }
            TFSETUP_FUZZ_CHECK(strict == set->contains(*v));
            // Allowing pre-releases only adds versions, and only pre-releases.
            TFSETUP_FUZZ_CHECK(!strict || withPre);
            TFSETUP_FUZZ_CHECK(v->isPrerelease() || strict == withPre);
            TFSETUP_FUZZ_CHECK(everything.contains(*v) == !v->isPrerelease());
            // The normalized spelling is the same version to every specifier.
            TFSETUP_FUZZ_CHECK(set->contains(v->toString(), true) == withPre);
        }
        break;
    }
    }
    return 0;
}
