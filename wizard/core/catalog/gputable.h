#pragma once

#include "util/result.h"

#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// One GPU model: resources/catalog/gpus.json. Every record names its source.
struct GpuRecord {
    QString vendor;            // "nvidia"
    QString name;              // marketing name as NVIDIA writes it: "GeForce RTX 3060"
    QStringList aliases;       // other spellings / laptop names that map to the same CC
    QStringList pciIds;        // "10de:2504", lower-case hex
    QString computeCapability; // "8.6"
    QString architecture;      // "Ampere"
    QString source;            // URL or repo path the record comes from
};

class GpuTable {
public:
    // Loads the table from JSON text (the embedded :/resources/catalog/gpus.json by default).
    static Result<GpuTable> load(const QString &path = QStringLiteral(":/resources/catalog/gpus.json"));
    static Result<GpuTable> fromJson(const QByteArray &json, const QString &origin);

    std::optional<GpuRecord> byPciId(const QString &pciId) const;
    // Matches "NVIDIA GeForce RTX 3060 Laptop GPU", "GeForce RTX 3060", "RTX 3060" and so on.
    std::optional<GpuRecord> byName(const QString &name) const;
    const QList<GpuRecord> &records() const { return m_records; }

private:
    QList<GpuRecord> m_records;
    QList<QList<QStringList>> m_keyTokens; // per record: the name's and each alias's tokens, made once
};

} // namespace tfsetup::core
