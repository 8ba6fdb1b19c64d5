// A PyPI JSON API answer (or a lab index pretending to be one): which wheels fit a target.
// Every wheel said to match is one of the release's wheels and carries a .whl name.

#include "fuzzsupport.h"
#include "sources/pypi.h"

#include <QJsonDocument>

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(tfsetup::fuzz::bytes(data, size));
    if (!document.isObject())
        return 0;
    for (const char *os : {"linux", "windows"}) {
        for (const char *python : {"3.9", "3.10", "3.12"}) {
            const WheelAvailability found = wheelsFor(document.object(), QLatin1String(python), QLatin1String(os));
            TFSETUP_FUZZ_CHECK(found.matching.size() <= found.wheels.size());
            for (const PypiFile &file : found.matching)
                TFSETUP_FUZZ_CHECK(file.filename.endsWith(QLatin1String(".whl")));
        }
    }
    return 0;
}
