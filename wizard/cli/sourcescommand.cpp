#include "cli/cli.h"

#include "util/inputfile.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "sources/originprobe.h"
#include "sources/resolver.h"
#include "util/i18n.h"

#include <QCoro/QCoroTask>
#include <QFile>
#include <QJsonObject>

namespace tfsetup::cli {

// Shared with `tfsetup bundle`: the options that say what to resolve and where from.
void addSourceOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("plan"), Cli::tr("Resolve the plan in FILE (the output of tfsetup plan --json)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("tf"), Cli::tr("Without --plan: the TensorFlow VERSION (\"2.10\")."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("os"), Cli::tr("Without --plan: the target system, windows or linux."),
                      QStringLiteral("windows|linux")});
    parser.addOption({QStringLiteral("route"),
                      Cli::tr("Without --plan: the ROUTE (windows-native, linux-toolkit, linux-pip, …)."),
                      QStringLiteral("ROUTE")});
    parser.addOption({QStringLiteral("python"),
                      Cli::tr("Without --plan: a Python VERSION to install as well (\"3.10\")."),
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
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."), QStringLiteral("URL")});
}

// Builds the resolver and the request from the options; prints the problem and returns nullopt
// (with *exitCode set) on failure.
std::optional<std::pair<std::unique_ptr<ArtifactResolver>, ResolveRequest>>
resolverFromOptions(const QCommandLineParser &parser, const Knowledge &knowledge, int *exitCode)
{
    const SourceCatalog *sources = &knowledge.sources;
    ResolveRequest request;
    if (parser.isSet(QStringLiteral("plan"))) {
        const QString path = parser.value(QStringLiteral("plan"));
        const auto json = readJsonObjectFile(path, Cli::tr("The plan file"));
        if (!json) {
            printError({QStringLiteral("plan_unreadable"),
                        Cli::tr("Cannot read the plan file %1.").arg(path) + u' ' + json.error().message,
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
            printUsageError(Cli::tr("Give --plan FILE, or all of --tf VERSION, --os windows|linux and --route ROUTE."),
                            parser.helpText());
            *exitCode = UsageError;
            return std::nullopt;
        }
        const Catalog *catalog = &knowledge.catalog;
        const Route *route = catalog->route(routeName);
        if (!route) {
            printUsageError(Cli::tr("Unknown --route \"%1\": use one of %2.")
                                .arg(routeName, catalog->routeNames().join(QStringLiteral(", "))));
            *exitCode = UsageError;
            return std::nullopt;
        }
        const auto release = catalog->release(route->releases, tf);
        if (!release) {
            printUsageError(
                Cli::tr("TensorFlow %1 is not in the tested configurations for %2.").arg(tf, route->releases));
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
        request.requirement = package + QStringLiteral("==") + version::majorMinor(release->version)
            + QStringLiteral(".*");
        request.python = parser.value(QStringLiteral("python"));
        request.pythonInstalled = request.python.isEmpty();
    }
    request.cudaFrom = parser.value(QStringLiteral("cuda-from"));
    if (request.cudaFrom != u"redist" && request.cudaFrom != u"installer") {
        printUsageError(Cli::tr("--cuda-from takes redist or installer."));
        *exitCode = UsageError;
        return std::nullopt;
    }
    request.includeOptional = parser.isSet(QStringLiteral("optional"));

    MirrorSet mirrors;
    for (const QString &spec : parser.values(QStringLiteral("mirror"))) {
        auto mirror = MirrorSet::parse(spec, sources);
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
        printUsageError(origins.error().message);
        *exitCode = UsageError;
        return std::nullopt;
    }
    for (const auto &[origin, url] : *origins)
        resolver->setOriginBase(origin, url);
    TransferOptions transfer;
    transfer.proxy = parser.value(QStringLiteral("proxy"));
    transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    resolver->setTransferOptions(std::move(transfer));
    return std::make_pair(std::move(resolver), request);
}

namespace {

// `tfsetup sources --test-connection`: the Options page's "Test connection" from the command
// line. Exit 0 when every origin the setup needs answered (a plan narrows which ones do).
int runConnectionTest(const QCommandLineParser &parser, const KnowledgePtr &knowledge)
{
    const bool json = parser.isSet(QStringLiteral("json"));
    OriginProbeRequest request;
    request.transfer.proxy = parser.value(QStringLiteral("proxy"));
    request.transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    request.language = Translations::bestFor(QLocale());
    request.knowledge = knowledge;
    const SourceCatalog *sources = &knowledge->sources;
    for (const QString &spec : parser.values(QStringLiteral("mirror"))) {
        auto mirror = MirrorSet::parse(spec, sources);
        if (!mirror)
            return fail(mirror.error(), UsageError, json);
        // The probe asks a preset by its name, so its display name and ranking line up.
        const QString value = spec.mid(spec.indexOf(u'=') + 1);
        if (mirror->origin == u"pypi")
            request.pypiMirror = sources->pypiMirror(value) ? value : mirror->base.toString();
        else if (mirror->origin == u"nvidia")
            request.nvidiaMirror = mirror->base.isLocalFile() ? mirror->base.toLocalFile() : mirror->base.toString();
        // python= and python-build-standalone= mirrors serve files only: python.org's checksums
        // are always read from python.org, which is what is tested.
    }
    const auto origins = originsFromOptions(parser);
    if (!origins)
        return fail(origins.error(), UsageError, json);
    request.originOverrides = *origins;
    if (parser.isSet(QStringLiteral("plan")) || parser.isSet(QStringLiteral("tf"))) {
        int exitCode = Success;
        auto setup = resolverFromOptions(parser, *knowledge, &exitCode);
        if (!setup)
            return exitCode;
        request.plan = setup->second;
    }
    const Result<ConnectionReport> report = QCoro::waitFor(OriginProbe::probe(request, true));
    if (!report)
        return fail(report.error(), Failure, json);
    const Error unreachable{
        QStringLiteral("origin_unreachable"),
        Cli::tr("Not every place this setup downloads from could be reached. Each origin above says "
                "why and what to do: set --proxy, choose a mirror (--mirror pypi=%1), or use an "
                "offline bundle.")
            .arg(report->bestMirror() ? report->bestMirror()->name : QStringLiteral("URL")),
        {}};
    if (json) {
        QJsonObject out = report->toJson();
        if (!report->neededReachable())
            out.insert(QStringLiteral("error"), errorJson(unreachable));
        printJson(QJsonDocument(out));
    } else {
        printOut(report->text());
    }
    if (report->neededReachable())
        return Success;
    printError(unreachable);
    return Failure;
}

} // namespace

int runSources(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the artifact list as one JSON document.")});
    parser.addOption({QStringLiteral("test-connection"),
                      Cli::tr("Instead of listing files, test whether PyPI (or the --mirror pypi=…), NVIDIA (or its "
                              "mirror) and python.org answer, through --proxy, how fast, and rank the PyPI mirror "
                              "presets. Exit status 0 when every place the setup needs answered.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("List the exact official files a plan needs, each with the checksum that "
                                             "will be accepted, and where they are fetched from."));
        code >= 0)
        return code;
    if (!knowledge)
        return fail(knowledge.error(), Failure, parser.isSet(QStringLiteral("json")));
    if (parser.isSet(QStringLiteral("test-connection")))
        return runConnectionTest(parser, *knowledge);
    int exitCode = Success;
    auto setup = resolverFromOptions(parser, **knowledge, &exitCode);
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

} // namespace tfsetup::cli
