#include "cli/cli.h"

#include "util/inputfile.h"

#include "catalog/catalog.h"
#include "catalog/version.h"
#include "sources/resolver.h"

#include <QCoro/QCoroTask>
#include <QFile>
#include <QJsonObject>

namespace tfsetup::core::cli {

// Shared with `tfsetup bundle`: the options that say what to resolve and where from.
void addSourceOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("plan"), Cli::tr("Resolve the plan in FILE (the output of tfsetup plan --json)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("tf"), Cli::tr("Without --plan: the TensorFlow VERSION (\"2.10\")."), QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("os"), Cli::tr("Without --plan: the target system, windows or linux."),
                      QStringLiteral("windows|linux")});
    parser.addOption({QStringLiteral("route"), Cli::tr("Without --plan: the ROUTE (windows-native, linux-toolkit, linux-pip, …)."),
                      QStringLiteral("ROUTE")});
    parser.addOption({QStringLiteral("python"), Cli::tr("Without --plan: a Python VERSION to install as well (\"3.10\")."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("mirror"),
                      Cli::tr("Fetch from this mirror first: a URL or folder laid out like NVIDIA's server, or "
                              "python=URL, pypi=URL or a PyPI preset (pypi=tuna). May be repeated."),
                      QStringLiteral("URL|DIR")});
    parser.addOption({QStringLiteral("cuda-from"),
                      Cli::tr("redist: portable archives, no administrator rights (default); installer: NVIDIA's full "
                              "installer, with nvcc, needs administrator rights."),
                      QStringLiteral("redist|installer"), QStringLiteral("redist")});
    parser.addOption({QStringLiteral("optional"), Cli::tr("Also list optional parts (CUPTI for the profiler).")});
    addOriginOption(parser);
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."), QStringLiteral("URL")});
}

// Builds the resolver and the request from the options; prints the problem and returns nullopt
// (with *exitCode set) on failure.
std::optional<std::pair<std::unique_ptr<ArtifactResolver>, ResolveRequest>> resolverFromOptions(const QCommandLineParser &parser,
                                                                                                int *exitCode)
{
    auto sources = SourceCatalog::load();
    if (!sources) {
        printError(sources.error());
        *exitCode = Failure;
        return std::nullopt;
    }
    ResolveRequest request;
    if (parser.isSet(QStringLiteral("plan"))) {
        const QString path = parser.value(QStringLiteral("plan"));
        const auto json = readJsonObjectFile(path, Cli::tr("The plan file"));
        if (!json) {
            printError({QStringLiteral("plan_unreadable"), Cli::tr("Cannot read the plan file %1.").arg(path) + u' '
                                                               + json.error().message,
                        json.error().detail});
            *exitCode = Failure;
            return std::nullopt;
        }
        auto parsed = ResolveRequest::fromPlanJson(*json);
        if (!parsed) {
            printError(parsed.error());
            *exitCode = Failure;
            return std::nullopt;
        }
        request = *parsed;
    } else {
        const QString tf = parser.value(QStringLiteral("tf"));
        const QString os = parser.value(QStringLiteral("os")).toLower();
        const QString routeName = parser.value(QStringLiteral("route"));
        if (tf.isEmpty() || (os != u"windows" && os != u"linux") || routeName.isEmpty()) {
            printErr(Cli::tr("Give --plan FILE, or all of --tf VERSION, --os windows|linux and --route ROUTE.\n")
                     + parser.helpText());
            *exitCode = UsageError;
            return std::nullopt;
        }
        auto catalog = Catalog::load();
        if (!catalog) {
            printError(catalog.error());
            *exitCode = Failure;
            return std::nullopt;
        }
        const Route *route = catalog->route(routeName);
        if (!route) {
            printErr(Cli::tr("Unknown --route \"%1\": use one of %2.").arg(routeName, catalog->routeNames().join(QStringLiteral(", "))));
            *exitCode = UsageError;
            return std::nullopt;
        }
        const auto release = catalog->release(route->releases, tf);
        if (!release) {
            printErr(Cli::tr("TensorFlow %1 is not in the tested configurations for %2.").arg(tf, route->releases));
            *exitCode = UsageError;
            return std::nullopt;
        }
        request.route = routeName;
        request.tensorflow = release->version;
        request.os = os;
        if (route->cudaLibraries != u"none") {
            request.cuda = release->cuda;
            request.cudnn = release->cudnn;
        }
        QString package = route->package.isEmpty() ? release->package : route->package;
        if (route->cudaLibraries == u"pip" && !release->pipCudaExtra.isEmpty())
            package += u'[' + release->pipCudaExtra + u']';
        request.requirement = package + QStringLiteral("==") + version::majorMinor(release->version) + QStringLiteral(".*");
        request.python = parser.value(QStringLiteral("python"));
        request.pythonInstalled = request.python.isEmpty();
    }
    request.cudaFrom = parser.value(QStringLiteral("cuda-from"));
    if (request.cudaFrom != u"redist" && request.cudaFrom != u"installer") {
        printErr(Cli::tr("--cuda-from takes redist or installer."));
        *exitCode = UsageError;
        return std::nullopt;
    }
    request.includeOptional = parser.isSet(QStringLiteral("optional"));

    MirrorSet mirrors;
    for (const QString &spec : parser.values(QStringLiteral("mirror"))) {
        auto mirror = MirrorSet::parse(spec, &sources.value());
        if (!mirror) {
            printError(mirror.error());
            *exitCode = UsageError;
            return std::nullopt;
        }
        mirrors.add(*mirror);
    }
    auto resolver = std::make_unique<ArtifactResolver>(*sources, mirrors);
    const auto origins = originsFromOptions(parser);
    if (!origins) {
        printErr(origins.error().message);
        *exitCode = UsageError;
        return std::nullopt;
    }
    for (const auto &[origin, url] : *origins)
        resolver->setOriginBase(origin, url);
    resolver->setCaBundle(parser.value(QStringLiteral("ca-bundle")));
    TransferOptions transfer;
    transfer.proxy = parser.value(QStringLiteral("proxy"));
    transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    resolver->setTransferOptions(std::move(transfer));
    return std::make_pair(std::move(resolver), request);
}

int runSources(const QStringList &arguments)
{
    QCommandLineParser parser;
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the artifact list as one JSON document.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("List the exact official files a plan needs, each with the checksum that "
                                             "will be accepted, and where they are fetched from."));
        code >= 0)
        return code;
    int exitCode = Success;
    auto setup = resolverFromOptions(parser, &exitCode);
    if (!setup)
        return exitCode;
    const Result<ArtifactList> list = QCoro::waitFor(setup->first->resolve(setup->second));
    if (!list) {
        printError(list.error());
        return Failure;
    }
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonDocument(list->toJson()));
    else
        printOut(list->text());
    return Success;
}

} // namespace tfsetup::core::cli
