// Placement of extracted archive entries. The input is a list of entries, one per line: a kind
// letter (F file, L link, D folder) and a name as an archive could carry it. Names extraction
// refuses (absolute, "..") are dropped first, as extraction would have refused the archive.
// Whatever the names, every placed path stays inside the environment and no two land together.

#include "fuzzsupport.h"
#include "install/placement.h"

#include <QSet>

using namespace tfsetup::core;

namespace {

bool extractionAccepts(const QString &name)
{
    return !name.isEmpty() && !name.startsWith(u'/') && !name.contains(u'\\')
        && !(name.size() >= 2 && name.at(1) == u':') && !name.split(u'/').contains(QLatin1String(".."));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto rules = PlacementRules::load();
    TFSETUP_FUZZ_CHECK(rules.ok());
    if (size < 1)
        return 0;
    const int cudnnMajor = data[0] % 11;
    QList<ExtractedEntry> entries;
    for (const QByteArray &line : tfsetup::fuzz::bytes(data + 1, size - 1).split('\n')) {
        if (line.size() < 2)
            continue;
        ExtractedEntry entry;
        entry.kind = line.at(0) == 'L' ? ExtractedEntry::Link
            : line.at(0) == 'D'        ? ExtractedEntry::Folder
                                       : ExtractedEntry::File;
        entry.path = QString::fromUtf8(line.mid(1));
        if (entry.kind == ExtractedEntry::Link)
            entry.linkTarget = QStringLiteral("target");
        if (extractionAccepts(entry.path))
            entries.append(entry);
    }
    for (const PlacementLayout &layout : rules->layouts()) {
        for (const QString &route : layout.routes) {
            const auto placed = placeEntries(*rules, layout.os, route, cudnnMajor, QStringLiteral("cuda_cudart"),
                                             entries);
            tfsetup::fuzz::checkResult(placed);
            if (!placed.ok())
                continue;
            QSet<QString> targets;
            QStringList names;
            for (const Placement &p : *placed) {
                TFSETUP_FUZZ_CHECK(!p.to.isEmpty() && !p.to.startsWith(u'/'));
                TFSETUP_FUZZ_CHECK(!p.to.split(u'/').contains(QLatin1String("..")));
                const QString key = layout.os == OsFamily::Windows ? p.to.toLower() : p.to;
                TFSETUP_FUZZ_CHECK(!targets.contains(key));
                targets.insert(key);
                names.append(p.to.section(u'/', -1));
            }
            (void)rules->missingFromSet(layout.os, cudnnMajor, names);
        }
    }
    return 0;
}
