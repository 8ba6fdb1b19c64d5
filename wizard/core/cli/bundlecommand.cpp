#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "fetch/downloader.h"
#include "install/launchers.h"
#include "sources/bundle.h"
#include "sources/resolver.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QFileInfo>

namespace tfsetup::core::cli {

void addSourceOptions(QCommandLineParser &parser);
std::optional<std::pair<std::unique_ptr<ArtifactResolver>, ResolveRequest>> resolverFromOptions(const QCommandLineParser &parser,
                                                                                                const Knowledge &knowledge,
                                                                                                int *exitCode);

int runBundle(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    addSourceOptions(parser);
    parser.addOption({QStringLiteral("out"), Cli::tr("Write the bundle into folder DIR."), QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("verify"), Cli::tr("Only check the bundle in DIR: every file against its checksum."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("trust-on-first-use"),
                      Cli::tr("Accept files for which no official checksum exists as they are served now, and record "
                              "their checksums in the bundle.")});
    parser.addOption({QStringLiteral("no-wheelhouse"), Cli::tr("Leave out the pip wheels.")});
    parser.addOption({QStringLiteral("pip-python"), Cli::tr("The Python that runs pip download (default python3)."),
                      QStringLiteral("PROGRAM"), QStringLiteral("python3")});
    parser.addOption({QStringLiteral("pip-platform"),
                      Cli::tr("Download wheels for this platform tag (win_amd64, manylinux2014_x86_64, …). May be repeated."),
                      QStringLiteral("TAG")});
    parser.addOption({QStringLiteral("jupyter"),
                      Cli::tr("The Jupyter front end whose wheels join the kernel's: lab (default), notebook, server "
                              "or none."),
                      QStringLiteral("NAME")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Write a folder with every file a plan needs, their checksums and a pip "
                                             "wheelhouse, for machines without internet (install --offline --from DIR). "
                                             "Served by any web server, the folder is also a lab mirror."));
        code >= 0)
        return code;

    if (parser.isSet(QStringLiteral("verify"))) {
        const auto bundle = Bundle::open(parser.value(QStringLiteral("verify")));
        if (!bundle) {
            printError(bundle.error());
            return Failure;
        }
        const Status ok = bundle->verify();
        if (!ok) {
            printError(ok.error());
            return Failure;
        }
        printOut(Cli::tr("All %1 files of the bundle match their checksums.\n").arg(bundle->files().size()));
        return Success;
    }
    std::optional<QString> jupyter;
    if (parser.isSet(QStringLiteral("jupyter"))) {
        jupyter = parser.value(QStringLiteral("jupyter"));
        if (*jupyter == u"none")
            jupyter = QString();
        else if (!JupyterSettings::builtIn().frontEnd(*jupyter)) {
            printErr(Cli::tr("Unknown Jupyter front end %1: use lab, notebook, server or none.\n").arg(*jupyter));
            return UsageError;
        }
    }
    if (!parser.isSet(QStringLiteral("out"))) {
        printErr(Cli::tr("Give --out DIR (or --verify DIR).\n") + parser.helpText());
        return UsageError;
    }
    if (!knowledge) {
        printError(knowledge.error());
        return Failure;
    }
    int exitCode = Success;
    auto setup = resolverFromOptions(parser, **knowledge, &exitCode);
    if (!setup)
        return exitCode;
    const ResolveRequest request = setup->second;
    const Result<ArtifactList> list = QCoro::waitFor(setup->first->resolve(request));
    if (!list) {
        printError(list.error());
        return Failure;
    }
    TransferOptions transfer;
    transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    transfer.proxy = parser.value(QStringLiteral("proxy"));
    Downloader downloader(transfer, DownloadCache(DownloadCache::defaultDir()));
    RealSystem system;
    BundleWriter writer(downloader, system);
    BundleOptions options;
    options.directory = QFileInfo(parser.value(QStringLiteral("out"))).absoluteFilePath();
    options.trustOnFirstUse = parser.isSet(QStringLiteral("trust-on-first-use"));
    options.includeWheelhouse = !parser.isSet(QStringLiteral("no-wheelhouse"));
    options.python = parser.value(QStringLiteral("pip-python"));
    options.pythonVersion = request.python;
    options.pipPlatforms = parser.values(QStringLiteral("pip-platform"));
    options.jupyter = jupyter;
    options.caBundle = transfer.caBundle;
    const Result<Bundle> bundle = QCoro::waitFor(writer.write(*list, options));
    if (!bundle) {
        printError(bundle.error());
        return Failure;
    }
    for (const Finding &w : list->warnings)
        printErr(Cli::tr("warning: %1").arg(w.message));
    printOut(Cli::tr("Wrote %1 files to %2\n").arg(bundle->files().size()).arg(QDir::toNativeSeparators(options.directory)));
    return Success;
}

} // namespace tfsetup::core::cli
