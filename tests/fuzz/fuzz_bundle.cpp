// bundle.json of an offline bundle: it comes on a USB stick or a lab share, so it is outside data.
// A bundle that opens may only name files inside its own folder.

#include "fuzzsupport.h"
#include "sources/bundle.h"
#include "sources/redistmanifest.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir folder;
    TFSETUP_FUZZ_CHECK(folder.isValid());
    {
        QFile f(folder.filePath(QStringLiteral("bundle.json")));
        TFSETUP_FUZZ_CHECK(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        TFSETUP_FUZZ_CHECK(f.write(tfsetup::fuzz::bytes(data, size)) == qint64(size));
    }
    const auto bundle = Bundle::open(folder.path());
    tfsetup::fuzz::checkResult(bundle);
    if (!bundle.ok())
        return 0;
    const QString inside = QDir(folder.path()).absolutePath() + u'/';
    for (const BundleFile &file : bundle->files()) {
        TFSETUP_FUZZ_CHECK(isSafeRelativePath(file.file));
        TFSETUP_FUZZ_CHECK(file.size >= 0);
        const QString path = bundle->pathOf(file.artifact);
        TFSETUP_FUZZ_CHECK(QDir::cleanPath(path).startsWith(inside));
    }
    // Nothing in the folder but bundle.json: every file is missing, and verify says so.
    const Status verified = bundle->verify();
    TFSETUP_FUZZ_CHECK(verified.ok() == bundle->files().isEmpty());
    return 0;
}
