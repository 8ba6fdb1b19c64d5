#include "fetch/networksettings.h"

#include "fetch/downloadcache.h"
#include "fetch/downloader.h"

#include <QJsonArray>

namespace tfsetup::core {

std::unique_ptr<Downloader> NetworkSettings::makeDownloader(const QString &cacheDir) const
{
    return std::make_unique<Downloader>(transfer, DownloadCache(cacheDir));
}

QJsonObject NetworkSettings::toJson() const
{
    QJsonArray overrides;
    for (const auto &[origin, url] : originOverrides)
        overrides.append(QJsonArray{origin, url.toString()});
    return {{QStringLiteral("proxy"), transfer.proxy},
            {QStringLiteral("ca_bundle"), transfer.caBundle},
            {QStringLiteral("min_speed"), double(transfer.lowSpeedBytesPerSecond)},
            {QStringLiteral("min_speed_seconds"), double(transfer.lowSpeedTime.count())},
            {QStringLiteral("nvidia_mirror"), nvidiaMirror},
            {QStringLiteral("pypi_indexes"), QJsonArray::fromStringList(pypiIndexes)},
            {QStringLiteral("file_mirrors"), QJsonArray::fromStringList(fileMirrors)},
            {QStringLiteral("bundle_dir"), bundleDir},
            {QStringLiteral("offline"), offline},
            {QStringLiteral("origin_overrides"), overrides},
            {QStringLiteral("resolve_timeout_ms"), double(resolveTimeout.count())}};
}

NetworkSettings NetworkSettings::fromJson(const QJsonObject &json)
{
    NetworkSettings s;
    s.transfer.proxy = json.value(QStringLiteral("proxy")).toString();
    s.transfer.caBundle = json.value(QStringLiteral("ca_bundle")).toString();
    if (const qint64 floor = json.value(QStringLiteral("min_speed")).toInteger(-1); floor >= 0)
        s.transfer.lowSpeedBytesPerSecond = floor;
    if (const qint64 window = json.value(QStringLiteral("min_speed_seconds")).toInteger(0); window > 0)
        s.transfer.lowSpeedTime = std::chrono::seconds(window);
    s.nvidiaMirror = json.value(QStringLiteral("nvidia_mirror")).toString();
    for (const QJsonValue &v : json.value(QStringLiteral("pypi_indexes")).toArray()) {
        if (v.isString() && !v.toString().isEmpty())
            s.pypiIndexes.append(v.toString());
    }
    for (const QJsonValue &v : json.value(QStringLiteral("file_mirrors")).toArray()) {
        if (v.isString() && !v.toString().isEmpty())
            s.fileMirrors.append(v.toString());
    }
    s.bundleDir = json.value(QStringLiteral("bundle_dir")).toString();
    s.offline = json.value(QStringLiteral("offline")).toBool(false);
    for (const QJsonValue &v : json.value(QStringLiteral("origin_overrides")).toArray()) {
        const QJsonArray pair = v.toArray();
        if (pair.size() == 2 && pair.at(0).isString() && pair.at(1).isString())
            s.originOverrides.append({pair.at(0).toString(), QUrl(pair.at(1).toString())});
    }
    if (const qint64 timeout = json.value(QStringLiteral("resolve_timeout_ms")).toInteger(0); timeout > 0)
        s.resolveTimeout = std::chrono::milliseconds(timeout);
    return s;
}

} // namespace tfsetup::core
