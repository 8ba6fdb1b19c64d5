#include "catalog/knowledge.h"

#include "catalog/catalogupdate.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QMutexLocker>

#include <optional>

using namespace Qt::StringLiterals;

namespace tfsetup::core {
namespace {

// The version table of the native probe is program data: it travels with the binary, not
// with catalog updates.
constexpr auto kVersionQueries = ":/resources/verify/probe.json";
// A catalog file is a few hundred kilobytes; this bounds what a damaged copy makes us read.
constexpr qint64 kMaxFileBytes = 8 * 1024 * 1024;

// The files of one catalog, read at one moment from one place.
class Snapshot {
public:
    Snapshot(QString folder, std::optional<CatalogUpdate> update)
        : m_folder(std::move(folder))
        , m_update(std::move(update))
    {}

    // The path (or the update's name for it) used in messages.
    QString origin(const QString &name) const
    {
        if (m_update)
            return Knowledge::tr("%1 of the catalog update (version %2)").arg(name).arg(m_update->version);
        return QDir::toNativeSeparators(m_folder + u'/' + name);
    }

    Result<QByteArray> read(const QString &name) const
    {
        if (m_update) {
            const auto it = m_update->files.constFind(name);
            if (it != m_update->files.cend())
                return *it;
            return unreadable(name, u"the update carries no such file"_s);
        }
        QFile f(m_folder + u'/' + name);
        if (!f.open(QIODevice::ReadOnly))
            return unreadable(name, f.errorString());
        return f.read(kMaxFileBytes);
    }

    // A loader's error, made to name the file it was about.
    template<typename T>
    Result<T> named(const QString &name, Result<T> loaded) const
    {
        if (loaded)
            return loaded;
        Error e = loaded.error();
        const QString where = origin(name);
        if (!e.message.contains(name) && !e.detail.contains(name))
            e.detail = e.detail.isEmpty() ? where : where + u": "_s + e.detail;
        return e;
    }

private:
    Error unreadable(const QString &name, const QString &why) const
    {
        return Error{u"catalog_missing"_s,
                     Knowledge::tr("The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the "
                                   "catalog folder you gave.")
                         .arg(origin(name)),
                     why};
    }

    QString m_folder;
    std::optional<CatalogUpdate> m_update;
};

Result<PlacementRules> placementFromJson(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject()) {
        return Error{u"placement_malformed"_s, Knowledge::tr("The placement rules are damaged. Reinstall tfsetup."),
                     error.errorString()};
    }
    return PlacementRules::fromJson(doc.object());
}

// What decides whether the shared bundle is still the one to use: whose updates count, and the
// stored update file as it is on disk (a stat, not a verification).
struct SharedKey {
    QString folder;
    QByteArray publicKey;
    qint64 builtInVersion = 0;
    bool present = false;
    qint64 size = -1;
    qint64 modified = 0;

    static SharedKey now()
    {
        const CatalogUpdateTrust trust = CatalogUpdates::current();
        SharedKey k{trust.folder, trust.publicKey, trust.builtInVersion};
        const QFileInfo stored(trust.storedPath());
        k.present = stored.exists();
        if (k.present) {
            k.size = stored.size();
            k.modified = stored.lastModified().toMSecsSinceEpoch();
        }
        return k;
    }
    bool operator==(const SharedKey &) const = default;
};

QMutex s_sharedMutex;
std::optional<SharedKey> s_sharedKey;
KnowledgePtr s_shared;

} // namespace

Result<KnowledgePtr> Knowledge::load(const QString &folder)
{
    const CatalogUpdateTrust trust = CatalogUpdates::current();
    std::optional<CatalogUpdate> update;
    // The one verification of this load: every file below comes from this update or none does.
    if (QDir::cleanPath(folder) == QLatin1String(builtInFolder))
        update = CatalogUpdates::active(trust);
    const Snapshot files(folder, update);

    auto k = std::make_shared<Knowledge>();
    k->folder = folder;
    k->builtInVersion = trust.builtInVersion;
    k->builtInDate = trust.builtInDate;
    if (update) {
        k->fromUpdate = true;
        k->updateVersion = update->version;
        k->updateDate = update->date;
    }

    QList<QByteArray> catalogFiles;
    for (const QString &name : {u"tensorflow.json"_s, u"cuda.json"_s, u"libraries.json"_s, u"routes.json"_s}) {
        auto bytes = files.read(name);
        if (!bytes)
            return bytes.error();
        catalogFiles.append(*bytes);
    }
    {
        // Catalog's errors name the file (tensorflow.json …) they are about.
        auto catalog = Catalog::fromJson(catalogFiles.at(0), catalogFiles.at(1), catalogFiles.at(2),
                                         catalogFiles.at(3));
        if (!catalog) {
            Error e = catalog.error();
            if (!update)
                e.detail = QDir::toNativeSeparators(folder) + u": "_s + e.detail;
            return e;
        }
        k->catalog = std::move(*catalog);
    }

    auto gpusJson = files.read(u"gpus.json"_s);
    if (!gpusJson)
        return gpusJson.error();
    auto gpus = files.named(u"gpus.json"_s, GpuTable::fromJson(*gpusJson, files.origin(u"gpus.json"_s)));
    if (!gpus)
        return gpus.error();
    k->gpus = std::move(*gpus);

    auto sourcesJson = files.read(u"sources.json"_s);
    if (!sourcesJson)
        return sourcesJson.error();
    auto sources = files.named(u"sources.json"_s, SourceCatalog::fromJson(*sourcesJson));
    if (!sources)
        return sources.error();
    k->sources = std::move(*sources);

    auto placementJson = files.read(u"placement.json"_s);
    if (!placementJson)
        return placementJson.error();
    auto placement = files.named(u"placement.json"_s, placementFromJson(*placementJson));
    if (!placement)
        return placement.error();
    k->placement = std::move(*placement);

    auto causesJson = files.read(u"causes.json"_s);
    if (!causesJson)
        return causesJson.error();
    auto causes = files.named(u"causes.json"_s, CauseRegistry::fromJson(*causesJson));
    if (!causes)
        return causes.error();
    k->causes = std::move(*causes);

    auto tflogJson = files.read(u"tflog.json"_s);
    if (!tflogJson)
        return tflogJson.error();
    auto tfLog = files.named(u"tflog.json"_s, TfLogRules::fromJson(*tflogJson, k->causes));
    if (!tfLog)
        return tfLog.error();
    k->tfLog = std::move(*tfLog);

    QFile probe(QString::fromLatin1(kVersionQueries));
    if (!probe.open(QIODevice::ReadOnly)) {
        return Error{u"probe_table_unreadable"_s,
                     tr("The library version table %1 cannot be read; the program files are damaged, reinstall "
                        "tfsetup.")
                         .arg(probe.fileName()),
                     probe.errorString()};
    }
    auto queries = VersionQueries::fromJson(probe.read(kMaxFileBytes));
    if (!queries) {
        Error e = queries.error();
        e.detail = probe.fileName() + u": "_s + e.detail;
        return e;
    }
    k->versionQueries = std::move(*queries);

    return KnowledgePtr(std::move(k));
}

Result<SourceCatalog> Knowledge::sourcesOr(const QString &path) const
{
    if (path.isEmpty())
        return sources;
    return SourceCatalog::load(path);
}

Result<KnowledgePtr> Knowledge::shared()
{
    const SharedKey key = SharedKey::now();
    const QMutexLocker lock(&s_sharedMutex);
    if (s_shared && s_sharedKey == key)
        return s_shared;
    auto loaded = load();
    if (!loaded)
        return loaded.error();
    s_shared = *loaded;
    s_sharedKey = key;
    return s_shared;
}

Error Knowledge::notGiven()
{
    return Error{u"catalog_not_given"_s,
                 tr("tfsetup's knowledge catalog was not loaded, so nothing was changed. Start tfsetup again; if "
                    "this repeats, reinstall it."),
                 {}};
}

} // namespace tfsetup::core
