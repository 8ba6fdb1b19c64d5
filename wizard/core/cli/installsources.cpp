#include "cli/installsources.h"

#include "cli/cli.h"
#include "fetch/downloader.h"
#include "sources/mirrors.h"
#include "sources/sourcecatalog.h"

#include <QDir>

namespace tfsetup::core::cli {

void addInstallSourceOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("offline"), Cli::tr("Use only the files of the bundle given with --from; no network.")});
    parser.addOption({QStringLiteral("from"), Cli::tr("The offline bundle folder (with artifacts.json)."), QStringLiteral("BUNDLE")});
    parser.addOption({QStringLiteral("cache"),
                      Cli::tr("Download into DIR and keep verified files there; many machines may share one folder "
                              "(each file is fetched once)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("mirror"),
                      Cli::tr("Fetch NVIDIA's files from this copy of NVIDIA's download tree first (URL or folder); "
                              "pypi=URL or a PyPI preset (pypi=tuna) for pip's packages. May be repeated."),
                      QStringLiteral("URL|DIR")});
    addOriginOption(parser);
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."),
                      QStringLiteral("URL")});
    addMinSpeedOption(parser);
}

Result<InstallSources> installSourcesFrom(const QCommandLineParser &parser, const SourceCatalog &sources)
{
    InstallSources out;
    if (parser.isSet(QStringLiteral("offline")) != parser.isSet(QStringLiteral("from")))
        return Error{QStringLiteral("usage"), Cli::tr("--offline and --from BUNDLE go together."), {}};
    const auto absolute = [](const QString &path) {
        return path.isEmpty() ? path : QDir::cleanPath(QDir::current().absoluteFilePath(path));
    };
    out.setup.bundleDir = absolute(parser.value(QStringLiteral("from")));
    out.setup.cacheDir = absolute(parser.value(QStringLiteral("cache")));
    out.setup.caBundle = absolute(parser.value(QStringLiteral("ca-bundle")));
    out.setup.proxy = parser.value(QStringLiteral("proxy"));
    if (parser.isSet(QStringLiteral("mirror"))) {
        for (const QString &spec : parser.values(QStringLiteral("mirror"))) {
            auto mirror = MirrorSet::parse(spec, &sources);
            if (!mirror)
                return Error{QStringLiteral("usage"), mirror.error().message, mirror.error().detail};
            const QString value = spec.mid(spec.indexOf(u'=') + 1);
            if (mirror->origin == u"pypi")
                out.setup.pypiMirror = sources.pypiMirror(value) ? value : mirror->base.toString();
            else if (mirror->origin == u"nvidia")
                out.setup.nvidiaMirror = mirror->base.isLocalFile() ? mirror->base.toLocalFile() : mirror->base.toString();
        }
    }
    if (parser.isSet(QStringLiteral("min-speed"))) {
        if (const Status floor = Downloader::parseSpeedFloor(parser.value(QStringLiteral("min-speed")), &out.transfer);
            !floor)
            return floor.error();
    }
    const auto origins = originsFromOptions(parser);
    if (!origins)
        return origins.error();
    out.setup.originOverrides = *origins;
    return out;
}

} // namespace tfsetup::core::cli
