#include "catalog/gputable.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

QStringList stringList(const QJsonValue &value)
{
    QStringList list;
    const QJsonArray array = value.toArray();
    for (const QJsonValue &v : array) {
        if (v.isString())
            list.append(v.toString());
    }
    return list;
}

// Words that only brand or package a product; leaving them out lets "NVIDIA GeForce RTX 3060",
// "GeForce RTX 3060" and "RTX 3060" meet. Not dropped: "quadro" and "tesla", which are part of
// how NVIDIA tells, say, "Quadro RTX 6000" from "RTX 6000 Ada Generation" apart.
bool isBrandWord(const QString &word)
{
    return word == u"nvidia" || word == u"geforce" || word == u"r" || word == u"tm" || word == u"corporation";
}

// A token after a matched name that makes it a different product: "RTX 3060 Ti" is not an
// "RTX 3060", "RTX 6000 Ada" is not a "Quadro RTX 6000" variant.
bool isVariantWord(const QString &word)
{
    static const QStringList words = {QStringLiteral("ti"),     QStringLiteral("super"),    QStringLiteral("d"),
                                      QStringLiteral("xp"),     QStringLiteral("black"),    QStringLiteral("z"),
                                      QStringLiteral("ada"),    QStringLiteral("ultra"),    QStringLiteral("boost"),
                                      QStringLiteral("pascal"), QStringLiteral("blackwell")};
    return words.contains(word);
}

struct Match {
    qsizetype tokens = 0;
    qsizetype chars = 0;
    bool operator>(const Match &o) const { return tokens != o.tokens ? tokens > o.tokens : chars > o.chars; }
};

// Where key occurs in query as whole tokens, not followed by a variant word.
bool containsTokens(const QStringList &query, const QStringList &key)
{
    if (key.isEmpty() || key.size() > query.size())
        return false;
    for (qsizetype start = 0; start + key.size() <= query.size(); ++start) {
        bool equal = true;
        for (qsizetype i = 0; i < key.size() && equal; ++i)
            equal = query.at(start + i) == key.at(i);
        if (!equal)
            continue;
        const qsizetype after = start + key.size();
        if (after < query.size() && isVariantWord(query.at(after)))
            continue;
        return true;
    }
    return false;
}

// Lower-case alphanumeric tokens without brand words: "NVIDIA A100-SXM4-40GB" → a100 sxm4 40gb.
QStringList nameTokens(const QString &name)
{
    static const QRegularExpression separators(QStringLiteral("[^a-z0-9]+"));
    QStringList tokens = name.toLower().split(separators, Qt::SkipEmptyParts);
    tokens.removeIf(isBrandWord);
    return tokens;
}

} // namespace

Result<GpuTable> GpuTable::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("gpu_table_unreadable"),
                     QCoreApplication::translate("GpuTable",
                                                 "Cannot read the GPU table %1. Reinstall tfsetup or "
                                                 "point it at a readable catalog.")
                         .arg(path),
                     f.errorString()};
    }
    return fromJson(f.readAll(), path);
}

Result<GpuTable> GpuTable::fromJson(const QByteArray &json, const QString &origin)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        return Error{QStringLiteral("gpu_table_malformed"),
                     QCoreApplication::translate("GpuTable",
                                                 "The GPU table %1 is not valid JSON. Reinstall tfsetup "
                                                 "or fix the catalog file.")
                         .arg(origin),
                     parseError.errorString()};
    }
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("schema")).toInt() != 1) {
        return Error{QStringLiteral("gpu_table_schema"),
                     QCoreApplication::translate("GpuTable",
                                                 "The GPU table %1 has a format this version of tfsetup "
                                                 "does not know. Use the catalog that came with it.")
                         .arg(origin),
                     QStringLiteral("schema %1").arg(root.value(QLatin1String("schema")).toInt())};
    }
    GpuTable table;
    const QJsonArray records = root.value(QLatin1String("records")).toArray();
    for (const QJsonValue &v : records) {
        const QJsonObject o = v.toObject();
        GpuRecord r;
        r.vendor = o.value(QLatin1String("vendor")).toString();
        r.name = o.value(QLatin1String("name")).toString();
        r.aliases = stringList(o.value(QLatin1String("aliases")));
        for (const QString &id : stringList(o.value(QLatin1String("pci_ids")))) {
            if (const QString normal = id.trimmed().toLower(); !normal.isEmpty()) // as byPciId() compares
                r.pciIds.append(normal);
        }
        r.computeCapability = o.value(QLatin1String("compute_capability")).toString();
        r.architecture = o.value(QLatin1String("architecture")).toString();
        r.source = o.value(QLatin1String("source")).toString();
        // A record without a name or a source cannot be matched or trusted.
        if (r.name.isEmpty() || r.source.isEmpty()) {
            return Error{QStringLiteral("gpu_table_record"),
                         QCoreApplication::translate("GpuTable",
                                                     "A record of the GPU table %1 lacks a name or a "
                                                     "source. Fix the catalog file.")
                             .arg(origin),
                         QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))};
        }
        QList<QStringList> keys{nameTokens(r.name)};
        for (const QString &alias : std::as_const(r.aliases))
            keys.append(nameTokens(alias));
        table.m_keyTokens.append(keys);
        table.m_records.append(std::move(r));
    }
    return table;
}

std::optional<GpuRecord> GpuTable::byPciId(const QString &pciId) const
{
    const QString wanted = pciId.trimmed().toLower();
    for (const GpuRecord &r : m_records) {
        if (r.pciIds.contains(wanted))
            return r;
    }
    return std::nullopt;
}

std::optional<GpuRecord> GpuTable::byName(const QString &name) const
{
    const QStringList query = nameTokens(name);
    if (query.isEmpty())
        return std::nullopt;
    const GpuRecord *best = nullptr;
    Match bestMatch;
    for (qsizetype i = 0; i < m_records.size(); ++i) {
        for (const QStringList &tokens : m_keyTokens.at(i)) {
            if (!containsTokens(query, tokens))
                continue;
            const Match m{tokens.size(), tokens.join(QString()).size()};
            if (!best || m > bestMatch) {
                best = &m_records.at(i);
                bestMatch = m;
            }
        }
    }
    if (!best)
        return std::nullopt;
    return *best;
}

} // namespace tfsetup::core
