// Knowledge files a lab may override on disk (catalog JSON, GPU table, sources catalog, the
// probe's version queries). The first byte picks which file the input replaces; the others stay
// the shipped ones, so the fuzzer explores one file in a realistic context.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/sourcecatalog.h"
#include "fuzzsupport.h"
#include "verify/libraryprobe.h"

#include <QFile>

using namespace tfsetup::core;

namespace {

QByteArray shipped(const char *name)
{
    QFile f(QStringLiteral(":/resources/catalog/") + QLatin1String(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QByteArray tensorflow = shipped("tensorflow.json");
    static const QByteArray cuda = shipped("cuda.json");
    static const QByteArray libraries = shipped("libraries.json");
    static const QByteArray routes = shipped("routes.json");
    TFSETUP_FUZZ_CHECK(!tensorflow.isEmpty() && !cuda.isEmpty() && !libraries.isEmpty() && !routes.isEmpty());

    const auto [selector, input] = tfsetup::fuzz::select(data, size, 7);
    if (selector <= 3) {
        const auto catalog = Catalog::fromJson(selector == 0 ? input : tensorflow, selector == 1 ? input : cuda,
                                               selector == 2 ? input : libraries, selector == 3 ? input : routes);
        tfsetup::fuzz::checkResult(catalog);
        if (catalog.ok()) {
            (void)catalog->problems();
            for (const QString &os : {QStringLiteral("linux"), QStringLiteral("windows")}) {
                for (const TfRelease &release : catalog->releasesFor(os)) {
                    (void)release.pythonVersions();
                    (void)release.pythonText();
                    (void)catalog->gpuBuild(release.version, os);
                    (void)catalog->cudaLibraries(release.cuda, os);
                    (void)catalog->cudnnLibraries(release.cudnn, os);
                    if (const auto toolkit = catalog->toolkit(release.cuda))
                        (void)catalog->minorCompatibility(toolkit->version);
                }
            }
            for (const Route &route : catalog->routes())
                TFSETUP_FUZZ_CHECK(catalog->route(route.name) != nullptr);
        }
    } else if (selector == 4) {
        const auto table = GpuTable::fromJson(input, QStringLiteral("fuzz"));
        tfsetup::fuzz::checkResult(table);
        if (table.ok()) {
            // Lookups scan the table: a few names are enough (thousands would time out on size alone).
            for (const GpuRecord &record : table->records().mid(0, 16)) {
                for (const QString &id : record.pciIds)
                    TFSETUP_FUZZ_CHECK(table->byPciId(id).has_value());
                (void)table->byName(record.name);
            }
        }
    } else if (selector == 5) {
        tfsetup::fuzz::checkResult(SourceCatalog::fromJson(input));
    } else {
        tfsetup::fuzz::checkResult(VersionQueries::fromJson(input));
    }
    return 0;
}
