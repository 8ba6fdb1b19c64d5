#include "cli/cli.h"

#include "cli/installsources.h"

#include "catalog/knowledge.h"
#include "util/inputfile.h"
#include "doctor/doctor.h"
#include "fetch/downloadcache.h"
#include "repair/repair.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QStandardPaths>

namespace tfsetup::cli {

int runRepair(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("env"),
                      Cli::tr("The environment folder to repair (the one holding environment.json)."),
                      QStringLiteral("DIR")});
    parser.addOption(
        {QStringLiteral("dry-run"), Cli::tr("Only say what would be repaired; change and download nothing.")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    parser.addOption({QStringLiteral("log"),
                      Cli::tr("A TensorFlow log or traceback (FILE): the doctor reads it and repair acts on what "
                              "applies to the environment."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("downloads"),
                      Cli::tr("The folder with earlier downloads (default: tfsetup's download folder); the same as "
                              "--cache."),
                      QStringLiteral("DIR")});
    addInstallSourceOptions(parser);
    parser.addOption({QStringLiteral("no-verify"), Cli::tr("Do not run verify after the repair.")});
    parser.addOption({QStringLiteral("index-url"),
                      Cli::tr("A package index to take a damaged Python package's wheel from when the environment's "
                              "lock names none that answers (the same as --mirror pypi=URL; may be repeated)."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("probe"), Cli::tr("The library probe to use (default: beside tfsetup)."),
                      QStringLiteral("FILE")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Repair an environment: check every installed file against "
                                             "environment.json, take back what is missing or damaged from NVIDIA's "
                                             "archives, move misplaced files back, write the launchers and the "
                                             "Jupyter kernel again, then verify."));
        code >= 0)
        return code;

    const bool json = parser.isSet(QStringLiteral("json"));
    auto failAs = [json](const Error &error, int code) { return fail(error, code, json); };
    if (!parser.isSet(QStringLiteral("env"))) {
        return failAs({QStringLiteral("usage"),
                       Cli::tr("Give the environment to repair with --env DIR. \"tfsetup wizard\" finds them for you."),
                       {}},
                      UsageError);
    }
    auto system = systemFromOptions(parser);
    if (!system)
        return failAs(system.error(), UsageError);
    const bool rooted = parser.isSet(QStringLiteral("root"));
    const QString env = parser.value(QStringLiteral("env"));

    RepairOptions options;
    // Over a --root folder the path is the imitated machine's; here it is this machine's.
    options.environmentPath = rooted ? env : QDir(env).absolutePath();
    options.dryRun = parser.isSet(QStringLiteral("dry-run"));
    if (!knowledge)
        return failAs(knowledge.error(), Failure);
    auto sources = installSourcesFrom(parser, (*knowledge)->sources);
    if (!sources)
        return failAs(sources.error(), UsageError);
    options.network = sources->setup.network;
    options.network.pypiIndexes += parser.values(QStringLiteral("index-url"));
    options.cacheDir = parser.isSet(QStringLiteral("downloads"))
        ? QDir(parser.value(QStringLiteral("downloads"))).absolutePath()
        : !sources->setup.cacheDir.isEmpty() ? sources->setup.cacheDir
                                             : DownloadCache::defaultDir();
    if (parser.isSet(QStringLiteral("log"))) {
        const auto logText = readLogInput(parser.value(QStringLiteral("log")));
        if (!logText)
            return failAs(logText.error(), UsageError);
        DoctorOptions doctor;
        doctor.envDir = options.environmentPath;
        doctor.log = *logText;
        const DoctorReport report = QCoro::waitFor(runDoctor(**system, *knowledge, doctor));
        options.findings = report.findings;
    }
    if (!parser.isSet(QStringLiteral("no-verify"))) {
        options.catalog = &(*knowledge)->catalog;
        options.probe = parser.isSet(QStringLiteral("probe"))
            ? QDir(parser.value(QStringLiteral("probe"))).absolutePath()
            : QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"), {QCoreApplication::applicationDirPath()});
    }

    Repairer repairer(**system, *knowledge);
    if (!json) {
        QObject::connect(&repairer, &Repairer::stepStarted, &repairer,
                         [](RepairStep, const QString &title) { printOut(title + QStringLiteral("…\n")); });
    }
    const Result<RepairReport> report = QCoro::waitFor(repairer.repair(options));
    if (!report)
        return failAs(report.error(), Failure);
    if (json) {
        QJsonObject out = report->toJson();
        out.insert(QStringLiteral("ok"), report->healthy() || (report->dryRun && report->after.isEmpty()));
        printJson(QJsonDocument(out));
    } else {
        printOut(report->text());
    }
    if (report->dryRun)
        return Success;
    return report->healthy() ? Success : Failure;
}

} // namespace tfsetup::cli
