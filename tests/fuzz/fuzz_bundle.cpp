// bundle.json of an offline bundle: it comes on a USB stick or a lab share, so it is outside data.
// A bundle that opens may only name files inside its own folder; one refused by its shape check
// ("files": {}, "artifacts": "nope", a name with "..") says which field.

#include "fuzzsupport.h"
#include "sources/bundle.h"
#include "sources/redistmanifest.h"
#include "util/inputfile.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
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
    if (!bundle.ok()) {
        // A document refused by the shape check is named by its field ("files[3].size").
        const QJsonDocument document = QJsonDocument::fromJson(tfsetup::fuzz::bytes(data, size));
        const QJsonObject json = document.object();
        // A field given twice is refused first, and named instead.
        if (const auto twice = duplicateJsonKey(tfsetup::fuzz::bytes(data, size)); twice && document.isObject()) {
            TFSETUP_FUZZ_CHECK(bundle.error().code == u"bundle_malformed");
            TFSETUP_FUZZ_CHECK(bundle.error().message.contains(u'"' + *twice + u'"'));
            return 0;
        }
        if (document.isObject() && json.value(QStringLiteral("format")).toString() == u"tfsetup-bundle"
            && json.value(QStringLiteral("schema")).toInt() == 1) {
            if (const auto problem = Bundle::shape().check(json)) {
                TFSETUP_FUZZ_CHECK(bundle.error().code == u"bundle_malformed");
                if (!problem->field.isEmpty())
                    TFSETUP_FUZZ_CHECK(bundle.error().message.contains(u'"' + problem->field + u'"'));
            }
        }
        return 0;
    }
    // A bundle that opens names no field twice and lists no file twice.
    TFSETUP_FUZZ_CHECK(!duplicateJsonKey(tfsetup::fuzz::bytes(data, size)));
    QSet<QString> listed;
    const QString inside = QDir(folder.path()).absolutePath() + u'/';
    for (const BundleFile &file : bundle->files()) {
        TFSETUP_FUZZ_CHECK(!listed.contains(file.file.toLower()));
        listed.insert(file.file.toLower());
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
