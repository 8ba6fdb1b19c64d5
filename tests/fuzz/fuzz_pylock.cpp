// pylock.toml, as another tool, a damaged disk or a student's editor may leave it. Reads to a lock
// or an Error; an accepted lock writes, reads back to the same lock and writes the same bytes, and
// names only wheel files that stay one plain file name on disk.

#include "fuzzsupport.h"
#include "sources/pylock.h"

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto lock = PyLock::fromToml(tfsetup::fuzz::bytes(data, size));
    tfsetup::fuzz::checkResult(lock);
    if (!lock.ok())
        return 0;
    const QByteArray written = lock->toToml();
    TFSETUP_FUZZ_CHECK(written.endsWith('\n'));
    const auto again = PyLock::fromToml(written);
    TFSETUP_FUZZ_CHECK(again.ok());
    TFSETUP_FUZZ_CHECK(*again == *lock);
    TFSETUP_FUZZ_CHECK(again->toToml() == written);
    TFSETUP_FUZZ_CHECK(lock->packages.size() <= PyLock::maxPackages);
    for (const LockedWheel &w : lock->packages) {
        TFSETUP_FUZZ_CHECK(w.file.endsWith(QStringLiteral(".whl")) && w.file.size() > 4);
        TFSETUP_FUZZ_CHECK(!w.file.contains(u'/') && !w.file.contains(u'\\') && !w.file.startsWith(u'.'));
        TFSETUP_FUZZ_CHECK(w.sha256.size() == 64);
        TFSETUP_FUZZ_CHECK(w.name == PyLock::normalizeName(w.name));
        TFSETUP_FUZZ_CHECK(lock->find(w.name) == &w);
    }
    // pip reads one requirement per line: no name or version may add a line or an option.
    const QByteArray requirements = lock->requirementsText();
    TFSETUP_FUZZ_CHECK(requirements.count('\n') == lock->packages.size());
    TFSETUP_FUZZ_CHECK(requirements.count(" --hash=") == lock->packages.size());
    (void)lock->totalBytes();
    (void)lock->allSizesKnown();
    return 0;
}
