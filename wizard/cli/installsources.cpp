#include "cli/installsources.h"

#include "catalog/sourcecatalog.h"
#include "cli/cli.h"
#include "fetch/downloader.h"
#include "sources/mirrors.h"

#include <QDir>

namespace tfsetup::cli {

void addInstallSourceOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {QStringLiteral("offline"), Cli::tr("Use only the files of the bundle given with --from; no network.")});
    parser.addOption({QStringLiteral("from"), Cli::tr("The offline bundle folder (with artifacts.json)."),
                      QStringLiteral("BUNDLE")});
    parser.addOption({QStringLiteral("cache"),
                      Cli::tr("Download into DIR and keep verified files there; many machines may share one folder "
                              "(each file is fetched once)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("mirror"),
                      Cli::tr("Fetch NVIDIA's files from this copy of NVIDIA's download tree first (URL or folder); "
                              "pypi=URL or a PyPI preset (pypi=tuna) for the Python packages, asked in the order "
                              "given. May be repeated."),
                      QStringLiteral("URL|DIR")});
    addOriginOption(parser);
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."), QStringLiteral("URL")});
    addMinSpeedOption(parser);
}

Result<NetworkSettings> networkFromOptions(const QCommandLineParser &parser, const SourceCatalog &sources)
{
    NetworkSettings network;
    const QString caBundle = parser.value(QStringLiteral("ca-bundle"));
    network.transfer.caBundle = caBundle.isEmpty() ? caBundle
                                                   : QDir::cleanPath(QDir::current().absoluteFilePath(caBundle));
    network.transfer.proxy = parser.value(QStringLiteral("proxy"));
    for (const QString &spec : parser.values(QStringLiteral("mirror"))) {
        auto mirror = MirrorSet::parse(spec, &sources);
        if (!mirror)
            return Error{QStringLiteral("usage"), mirror.error().message, mirror.error().detail};
        const QString value = spec.mid(spec.indexOf(u'=') + 1);
        if (mirror->origin == u"pypi")
            network.pypiIndexes.append(sources.pypiMirror(value) ? value : mirror->base.toString());
        else if (mirror->origin == u"nvidia")
            network.nvidiaMirror = mirror->base.isLocalFile() ? mirror->base.toLocalFile() : mirror->base.toString();
        else
            network.fileMirrors.append(spec);
    }
    if (parser.isSet(QStringLiteral("min-speed"))) {
        if (const Status floor = Downloader::parseSpeedFloor(parser.value(QStringLiteral("min-speed")),
                                                             &network.transfer);
            !floor)
            return floor.error();
    }
    const auto origins = originsFromOptions(parser);
    if (!origins)
        return origins.error();
    network.originOverrides = *origins;
    return network;
}

Result<InstallSources> installSourcesFrom(const QCommandLineParser &parser, const SourceCatalog &sources)
{
    InstallSources out;
    if (parser.isSet(QStringLiteral("offline")) != parser.isSet(QStringLiteral("from")))
        return Error{QStringLiteral("usage"), Cli::tr("--offline and --from BUNDLE go together."), {}};
    auto network = networkFromOptions(parser, sources);
    if (!network)
        return network.error();
    out.setup.network = *network;
    const auto absolute = [](const QString &path) {
        return path.isEmpty() ? path : QDir::cleanPath(QDir::current().absoluteFilePath(path));
    };
    out.setup.network.bundleDir = absolute(parser.value(QStringLiteral("from")));
    out.setup.network.offline = parser.isSet(QStringLiteral("offline"));
    out.setup.cacheDir = absolute(parser.value(QStringLiteral("cache")));
    return out;
}

} // namespace tfsetup::cli
