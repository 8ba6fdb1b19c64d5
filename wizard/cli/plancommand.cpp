#include "cli/cli.h"

#include "util/inputfile.h"

#include "catalog/knowledge.h"
#include "detect/detector.h"
#include "solver/solver.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QFile>
#include <QJsonObject>

namespace tfsetup::cli {

int runPlan(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("hardware"),
                      Cli::tr("Plan for the machine described in FILE (the output of tfsetup detect --json) instead "
                              "of this one."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("tf"), Cli::tr("Only consider TensorFlow VERSION (\"2.13\" or \"2.13.0\")."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("python"), Cli::tr("Use Python VERSION (\"3.10\")."), QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("route"),
                      Cli::tr("Only consider ROUTE: windows-native, linux-pip, linux-toolkit, wsl2, cpu, rocm, "
                              "directml or metal."),
                      QStringLiteral("ROUTE")});
    parser.addOption({QStringLiteral("cpu-only"), Cli::tr("Plan without a GPU.")});
    parser.addOption({QStringLiteral("keep-driver"),
                      Cli::tr("The NVIDIA driver cannot be changed here: reject combinations it is too old for.")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the plan as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Choose a TensorFlow / CUDA / cuDNN / Python combination that works on "
                                             "this machine, and say why the others do not."));
        code >= 0)
        return code;

    if (!knowledge) {
        printError(knowledge.error());
        return Failure;
    }
    const Catalog *catalog = &(*knowledge)->catalog;

    SolverConstraints constraints;
    constraints.tensorflow = parser.value(QStringLiteral("tf"));
    constraints.python = parser.value(QStringLiteral("python"));
    constraints.route = parser.value(QStringLiteral("route"));
    constraints.cpuOnly = parser.isSet(QStringLiteral("cpu-only"));
    constraints.keepDriver = parser.isSet(QStringLiteral("keep-driver"));
    if (!constraints.route.isEmpty() && !catalog->route(constraints.route)) {
        printUsageError(Cli::tr("Unknown --route \"%1\": use one of %2.")
                            .arg(constraints.route, catalog->routeNames().join(QStringLiteral(", "))));
        return UsageError;
    }
    const bool rooted = parser.isSet(QStringLiteral("root"));
    // Both describe the machine to plan for; one of them would be dropped without a word.
    if (parser.isSet(QStringLiteral("hardware")) && (rooted || parser.isSet(QStringLiteral("env-file")))) {
        printUsageError(Cli::tr("--hardware describes the machine already: leave out --root and --env-file, or "
                                "leave out --hardware to detect the folder --root gives."));
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("os"))) {
        const QString os = parser.value(QStringLiteral("os")).toLower();
        if (os != u"windows" && os != u"linux") {
            printUsageError(Cli::tr("Unknown --os \"%1\": use windows or linux.").arg(os));
            return UsageError;
        }
        // With --root, --os says what the folder imitates; otherwise it is the system to plan for.
        if (!rooted)
            constraints.os = os;
    }

    HardwareReport report;
    if (parser.isSet(QStringLiteral("hardware"))) {
        auto parsed = readHardwareFile(parser.value(QStringLiteral("hardware")));
        if (!parsed) {
            printError(parsed.error());
            return Failure;
        }
        report = *parsed;
    } else {
        std::unique_ptr<SystemView> system;
        if (rooted || parser.isSet(QStringLiteral("env-file"))) {
            auto view = systemFromOptions(parser);
            if (!view) {
                printError(view.error());
                return UsageError;
            }
            system = std::move(*view);
        } else {
            system = std::make_unique<RealSystem>();
        }
        DetectOptions detect;
        detect.knowledge = *knowledge;
        report = QCoro::waitFor(detectHardware(*system, detect));
    }

    const Solver solver(*catalog, &(*knowledge)->gpus);
    const Solution solution = solver.solve(report, constraints);
    // No combination fits: a failed command, whose JSON says so the way every command does.
    std::optional<Error> none;
    if (!solution.recommended) {
        none = Error{QStringLiteral("no_plan"),
                     Cli::tr("No TensorFlow / CUDA / cuDNN / Python combination fits this machine with these options; "
                             "each rejected one says why."),
                     {}};
    }
    return printOutcome(parser.isSet(QStringLiteral("json")), solution.toJson(), solution.text(), none);
}

} // namespace tfsetup::cli
