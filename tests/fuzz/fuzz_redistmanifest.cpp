// NVIDIA's redistrib_*.json, from the network or a lab mirror. A manifest that parses may only
// name files below the product's folder, with a well-formed SHA-256 and a plausible size: those
// values decide where tfsetup writes and what it accepts.

#include "fuzzsupport.h"
#include "sources/redistmanifest.h"

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = tfsetup::fuzz::bytes(data, size);
    const auto manifest = RedistManifest::parse(input, QStringLiteral("redistrib_fuzz.json"));
    tfsetup::fuzz::checkResult(manifest);
    if (!manifest.ok())
        return 0;
    for (const RedistComponent &component : manifest->components()) {
        TFSETUP_FUZZ_CHECK(manifest->component(component.key) != nullptr);
        for (const RedistFile &file : component.files) {
            TFSETUP_FUZZ_CHECK(isSafeRelativePath(file.relativePath));
            TFSETUP_FUZZ_CHECK(tfsetup::fuzz::matches(file.sha256, "[0-9a-f]{64}"));
            TFSETUP_FUZZ_CHECK(file.md5.isEmpty() || tfsetup::fuzz::matches(file.md5, "[0-9a-f]{32}"));
            TFSETUP_FUZZ_CHECK(file.size > 0 && file.size <= RedistManifest::maxArchiveBytes);
            TFSETUP_FUZZ_CHECK(component.file(file.platform, file.variant) != nullptr);
        }
    }
    // The path check on its own, with the input as a path.
    const QString path = QString::fromUtf8(input);
    if (isSafeRelativePath(path)) {
        TFSETUP_FUZZ_CHECK(!path.startsWith(u'/') && !path.contains(u'\\'));
        TFSETUP_FUZZ_CHECK(!path.split(u'/').contains(QLatin1String("..")));
        TFSETUP_FUZZ_CHECK(!(path.size() >= 2 && path.at(1) == u':'));
    }
    return 0;
}
