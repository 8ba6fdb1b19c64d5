#include "cli/cli.h"

#include "detect/detector.h"
#include "detect/reportsummary.h"

#include <QCoro/QCoroTask>

namespace tfsetup::cli {

int runDetect(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the report as one JSON document.")});
    parser.addOption({QStringLiteral("no-pythons"), Cli::tr("Skip the search for Python interpreters.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Report this machine's GPUs, driver, CPU, Pythons, "
                                             "CUDA toolkits and cuDNN copies."));
        code >= 0)
        return code;

    auto system = systemFromOptions(parser);
    if (!system) {
        printError(system.error());
        return UsageError;
    }
    DetectOptions options;
    options.scanPythons = !parser.isSet(QStringLiteral("no-pythons"));
    // Detection never fails: without the bundle the GPU table's absence is one of the report's problems.
    if (knowledge)
        options.knowledge = *knowledge;
    const HardwareReport report = QCoro::waitFor(detectHardware(**system, options));
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonDocument(report.toJson()));
    else
        printOut(ReportSummary::text(report));
    return Success;
}

} // namespace tfsetup::cli
