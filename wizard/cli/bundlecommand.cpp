#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "cli/downloadreport.h"
#include "cli/installsources.h"
#include "install/launchers.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "setup/pipeline.h"
#include "sources/bundle.h"
#include "sources/resolver.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

namespace tfsetup::cli {

void addSourceOptions(QCommandLineParser &parser);
std::optional<std::pair<std::unique_ptr<ArtifactResolver>, ResolveRequest>>
resolverFromOptions(const QCommandLineParser &parser, const Knowledge &knowledge, int *exitCode);

namespace {

QJsonObject bundleJson(const Bundle &bundle)
{
    qint64 bytes = 0;
    for (const BundleFile &f : bundle.files())
        bytes += std::max<qint64>(0, f.size);
    QJsonArray wheels;
    for (const LockedWheel &w : bundle.lock().packages) {
        wheels.append(QJsonObject{{QStringLiteral("name"), w.name},
                                  {QStringLiteral("version"), w.version},
                                  {QStringLiteral("file"), w.file},
                                  {QStringLiteral("size"), double(w.size)},
                                  {QStringLiteral("sha256"), QString::fromLatin1(w.sha256)},
                                  {QStringLiteral("url"), w.url},
                                  {QStringLiteral("index"), w.index}});
    }
    return QJsonObject{{QStringLiteral("ok"), true},
                       {QStringLiteral("bundle"), bundle.directory()},
                       {QStringLiteral("route"), bundle.artifacts().route},
                       {QStringLiteral("tensorflow"), bundle.artifacts().tensorflow},
                       {QStringLiteral("os"), bundle.artifacts().os},
                       {QStringLiteral("python"), bundle.python()},
                       {QStringLiteral("files"), int(bundle.files().size())},
                       {QStringLiteral("bytes"), double(bytes)},
                       {QStringLiteral("lock"),
                        bundle.lock().packages.isEmpty()
                            ? QJsonValue(QJsonValue::Null)
                            : QJsonValue(QDir(bundle.directory()).filePath(QStringLiteral("pylock.toml")))},
                       {QStringLiteral("wheels"), wheels}};
}

// The Python that resolves the wheels for a plan's Python on this machine: --pip-python, else
// python<version> from PATH, else python3.
QString lockingPython(const SystemView &system, const QCommandLineParser &parser, const QString &python)
{
    if (parser.isSet(QStringLiteral("pip-python")))
        return system.findExecutable(parser.value(QStringLiteral("pip-python"))).isEmpty()
            ? parser.value(QStringLiteral("pip-python"))
            : system.findExecutable(parser.value(QStringLiteral("pip-python")));
    for (const QString &name : QStringList{QStringLiteral("python") + python, QStringLiteral("python3")}) {
        if (const QString found = system.findExecutable(name); !found.isEmpty())
            return found;
    }
    return QStringLiteral("python3");
}

} // namespace

int runBundle(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("profile"),
                      Cli::tr("Bundle what the lab profile FILE installs: its plan, its extra packages, its Jupyter "
                              "front end, through its mirrors and proxy (the options here go on top)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("out"), Cli::tr("Write the bundle into folder DIR."), QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("verify"),
                      Cli::tr("Only check the bundle in DIR: every file against its checksum."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("cache"),
                      Cli::tr("Download into DIR and keep verified files there (default: the "
                              "user's download cache)."),
                      QStringLiteral("DIR")});
    addMinSpeedOption(parser);
    parser.addOption({QStringLiteral("trust-on-first-use"),
                      Cli::tr("Accept files for which no official checksum exists as they are served now, and record "
                              "their checksums in the bundle.")});
    parser.addOption({QStringLiteral("no-wheelhouse"), Cli::tr("Leave out the Python packages.")});
    parser.addOption({QStringLiteral("pip-python"),
                      Cli::tr("The Python whose pip chooses the packages (default: python<plan's version>, else "
                              "python3)."),
                      QStringLiteral("PROGRAM")});
    parser.addOption({QStringLiteral("pip-platform"),
                      Cli::tr("Choose wheels for this platform tag (win_amd64, manylinux2014_x86_64, …) instead of "
                              "this machine's. May be repeated."),
                      QStringLiteral("TAG")});
    parser.addOption({QStringLiteral("jupyter"),
                      Cli::tr("The Jupyter front end whose wheels join the kernel's: lab (default), notebook, server "
                              "or none."),
                      QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Write a folder with every file a plan needs, their checksums, the Python "
                                             "packages pip's resolver chose and their lock (pylock.toml), for machines "
                                             "without internet (install --offline --from DIR). Served by any web "
                                             "server, the folder is also a lab mirror."));
        code >= 0)
        return code;
    const bool json = parser.isSet(QStringLiteral("json"));

    if (parser.isSet(QStringLiteral("verify"))) {
        const auto bundle = Bundle::open(parser.value(QStringLiteral("verify")));
        if (!bundle)
            return fail(bundle.error(), Failure, json);
        if (const Status ok = bundle->verify(); !ok)
            return fail(ok.error(), Failure, json);
        if (json)
            printJson(QJsonDocument(bundleJson(*bundle)));
        else
            printOut(Cli::tr("All %1 files of the bundle match their checksums.\n").arg(bundle->files().size()));
        return Success;
    }
    std::optional<QString> jupyter;
    if (parser.isSet(QStringLiteral("jupyter"))) {
        jupyter = parser.value(QStringLiteral("jupyter"));
        if (*jupyter == u"none")
            jupyter = QString();
        else if (!JupyterSettings::builtIn().frontEnd(*jupyter)) {
            return fail({QStringLiteral("usage"),
                         Cli::tr("Unknown Jupyter front end %1: use lab, notebook, server or none.").arg(*jupyter),
                         {}},
                        UsageError, json);
        }
    }
    if (!parser.isSet(QStringLiteral("out"))) {
        if (!json)
            printErr(parser.helpText());
        return fail({QStringLiteral("usage"), Cli::tr("Give --out DIR (or --verify DIR)."), {}}, UsageError, json);
    }
    if (!knowledge)
        return fail(knowledge.error(), Failure, json);

    // The network settings from the options: proxy, CA bundle, mirrors in order, speed floor.
    auto network = networkFromOptions(parser, (*knowledge)->sources);
    if (!network)
        return fail(network.error(), UsageError, json);

    RealSystem system;
    Plan plan;
    InstallSpec spec;
    SetupOptions options;
    if (parser.isSet(QStringLiteral("profile"))) {
        auto profile = LabProfile::load(parser.value(QStringLiteral("profile")));
        if (!profile)
            return fail(profile.error(), Failure, json);
        if (parser.isSet(QStringLiteral("pip-python")))
            profile->interpreter = lockingPython(system, parser, profile->python);
        LabSetupOptions lab;
        lab.knowledge = *knowledge;
        lab.network = *network;
        const LabSetup setup(system);
        auto in = setup.inputs(*profile, lab);
        if (!in)
            return fail(in.error(), Failure, json);
        plan = in->plan;
        spec = in->spec;
        options = in->options;
        if (jupyter)
            spec.jupyter = *jupyter;
    } else {
        int exitCode = Success;
        auto resolved = resolverFromOptions(parser, **knowledge, &exitCode);
        // resolverFromOptions reported why; dispatch() answers --json with that error.
        if (!resolved)
            return exitCode;
        const ResolveRequest &request = resolved->second;
        plan.route = request.route;
        plan.tensorflow = request.tensorflow;
        plan.package = request.requirement.section(QStringLiteral("=="), 0, 0).trimmed();
        plan.python = request.python;
        plan.pythonInstalled = request.pythonInstalled;
        plan.cuda = request.cuda;
        plan.cudnn = request.cudnn;
        spec = InstallSpec::fromPlan(plan);
        spec.requirements = {request.requirement};
        spec.jupyter = jupyter.value_or(JupyterSettings::builtIn().defaultFrontEnd);
        spec.pythonInterpreter = lockingPython(system, parser, plan.python);
        options.os = request.os;
        options.network = *network;
    }
    options.knowledge = *knowledge;
    options.trustOnFirstUse = parser.isSet(QStringLiteral("trust-on-first-use"));
    options.pipPlatforms = parser.values(QStringLiteral("pip-platform"));
    if (parser.isSet(QStringLiteral("cache")))
        options.cacheDir = QDir::cleanPath(QDir::current().absoluteFilePath(parser.value(QStringLiteral("cache"))));
    if (options.cacheDir.isEmpty())
        options.cacheDir = DownloadCache::defaultDir();
    const bool wheels = !parser.isSet(QStringLiteral("no-wheelhouse"));
    if (!wheels) {
        spec.requirements.clear();
        spec.jupyter.clear();
    }

    SetupPipeline pipeline(system);
    DownloadReport report([](const QString &line) { printOut(QStringLiteral("    ") + line + u'\n'); });
    if (!json) {
        QObject::connect(&pipeline, &SetupPipeline::message, &pipeline,
                         [](const QString &line) { printOut(line + u'\n'); });
        QObject::connect(&pipeline, &SetupPipeline::fileProgress, &pipeline,
                         [&report](const DownloadProgress &p) { report.onProgress(p); });
    }
    auto prepared = QCoro::waitFor(pipeline.prepare(plan, spec, options));
    if (!prepared)
        return fail(prepared.error(), Failure, json);
    if (!json)
        report.setRequests(prepared->downloads);

    BundleWriter writer(pipeline.downloader(options.network, options.cacheDir));
    BundleOptions bundleOptions;
    bundleOptions.directory = QFileInfo(parser.value(QStringLiteral("out"))).absoluteFilePath();
    bundleOptions.trustOnFirstUse = options.trustOnFirstUse;
    bundleOptions.includeWheelhouse = wheels;
    bundleOptions.pythonVersion = prepared->lock.python.isEmpty() ? plan.python
                                                                  : prepared->lock.python.section(u'.', 0, 1);
    bundleOptions.transfer = options.network.transfer;
    const QList<QUrl> indexes = SetupFlow::pypiIndexes(options.network, (*knowledge)->sources).valueOr({});
    const SourceCatalog sources = (*knowledge)->sources;
    const Result<Bundle> bundle = QCoro::waitFor(
        writer.write(prepared->artifacts, prepared->lock, bundleOptions,
                     [indexes, sources](const LockedWheel &w) { return SetupFlow::wheelUrls(w, indexes, sources); }));
    if (!bundle)
        return fail(bundle.error(), Failure, json);
    if (json) {
        QJsonObject out = bundleJson(*bundle);
        QJsonArray warnings;
        for (const Finding &w : prepared->warnings)
            warnings.append(w.toJson());
        out.insert(QStringLiteral("warnings"), warnings);
        printJson(QJsonDocument(out));
        return Success;
    }
    for (const Finding &w : prepared->warnings)
        printErr(Cli::tr("warning: %1").arg(w.message));
    printOut(Cli::tr("Wrote %1 files to %2\n")
                 .arg(bundle->files().size())
                 .arg(QDir::toNativeSeparators(bundleOptions.directory)));
    return Success;
}

} // namespace tfsetup::cli
