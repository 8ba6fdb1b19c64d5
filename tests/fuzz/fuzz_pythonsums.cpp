// Python checksum sources: python-build-standalone's SHA256SUMS (selector 0) and python.org's
// downloads API answers (1: release list, 2: release files). A digest that comes back is always
// well-formed lower-case hex, and an id is always a positive number.

#include "fuzzsupport.h"
#include "sources/pythonsources.h"

using namespace tfsetup::core;

namespace {

bool isLowerHex(const QString &s, qsizetype length)
{
    if (s.size() != length)
        return false;
    for (const QChar c : s) {
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')))
            return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto [selector, rest] = tfsetup::fuzz::select(data, size, 3);
    const QString names[] = {QStringLiteral("cpython-3.11.14+20251031-x86_64-unknown-linux-gnu-install_only.tar.gz"),
                             QStringLiteral("python-3.10.11-amd64.exe"), QString()};
    switch (selector) {
    case 0:
        for (const QString &name : names) {
            const QString digest = sha256FromSums(rest, name);
            TFSETUP_FUZZ_CHECK(digest.isEmpty() || isLowerHex(digest, 64));
            TFSETUP_FUZZ_CHECK(!name.isEmpty() || digest.isEmpty());
        }
        break;
    case 1: {
        const QString id = pythonOrgReleaseId(rest, QStringLiteral("3.10.11"));
        bool ok = false;
        TFSETUP_FUZZ_CHECK(id.isEmpty() || (id.toULongLong(&ok) > 0 && ok));
        break;
    }
    default:
        for (const QString &name : names) {
            const auto sums = pythonOrgFileChecksum(rest, name);
            if (!sums)
                continue;
            TFSETUP_FUZZ_CHECK(!name.isEmpty());
            TFSETUP_FUZZ_CHECK(!sums->sha256.isEmpty() || !sums->md5.isEmpty());
            TFSETUP_FUZZ_CHECK(sums->sha256.isEmpty() || isLowerHex(sums->sha256, 64));
            TFSETUP_FUZZ_CHECK(sums->md5.isEmpty() || isLowerHex(sums->md5, 32));
            TFSETUP_FUZZ_CHECK(sums->size == -1 || sums->size > 0);
        }
        break;
    }
    return 0;
}
