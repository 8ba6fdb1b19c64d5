#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "doctor/doctor.h"
#include "util/inputfile.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QStandardPaths>

#include <cstdio>

namespace tfsetup::cli {

int runDoctor(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("env"),
                      Cli::tr("Check the Python environment in DIR: a folder tfsetup installed (or its venv), a venv "
                              "or a conda environment."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("tf"),
                      Cli::tr("The TensorFlow VERSION meant to run, when no --env says it (\"2.10\")."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("cpu-only"),
                      Cli::tr("The environment is meant to run on the CPU: GPU messages are only explained.")});
    parser.addOption({QStringLiteral("log"),
                      Cli::tr("Read a TensorFlow log or traceback from FILE (\"-\" reads it from the input) and name "
                              "its causes."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("log-from"),
         Cli::tr("Where the log comes from: \"this\" computer, an \"other\" one, or \"auto\" (the default: "
                 "a log that shows another machine is read as that machine's)."),
         QStringLiteral("this|other|auto"), QStringLiteral("auto")});
    parser.addOption({QStringLiteral("hardware"),
                      Cli::tr("Check the machine described in FILE (the output of tfsetup detect --json there) instead "
                              "of this one, for example the computer a log comes from."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("report"),
                      Cli::tr("Also write a report to FILE with your user name and home folder masked, in your "
                              "language and in English, ready to paste into a chat or an issue."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the findings as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Find out why TensorFlow does not use the GPU: check the machine, an "
                                             "environment and a log, and say what to do."));
        code >= 0)
        return code;

    auto system = systemFromOptions(parser);
    if (!system) {
        printError(system.error());
        return UsageError;
    }
    if (!knowledge) {
        printError(knowledge.error());
        return Failure;
    }

    DoctorOptions options;
    options.envDir = parser.value(QStringLiteral("env"));
    // A relative folder is the current folder's on this machine; under --root every path is the
    // fixture's own spelling and stays as given.
    if (!options.envDir.isEmpty() && !parser.isSet(QStringLiteral("root")) && QDir::isRelativePath(options.envDir))
        options.envDir = QDir(options.envDir).absolutePath();
    options.probe = QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"),
                                                   {QCoreApplication::applicationDirPath()});
    options.tensorflow = parser.value(QStringLiteral("tf"));
    options.cpuOnly = parser.isSet(QStringLiteral("cpu-only"));
    // The doctor checks the named environment; the list of every Python on the machine is not needed.
    options.detect.scanPythons = false;
    if (!options.envDir.isEmpty() && !(*system)->isDir((*system)->normalize(options.envDir))) {
        printError({QStringLiteral("env_missing"),
                    Cli::tr("The environment folder %1 does not exist. Give the folder that holds the "
                            "environment's python.")
                        .arg(options.envDir),
                    {}});
        return UsageError;
    }
    const QString logFrom = parser.value(QStringLiteral("log-from"));
    if (logFrom == u"this") {
        options.logOrigin = LogOrigin::ThisMachine;
    } else if (logFrom == u"other") {
        options.logOrigin = LogOrigin::OtherMachine;
    } else if (logFrom != u"auto") {
        printError({QStringLiteral("usage"),
                    Cli::tr("--log-from takes \"this\", \"other\" or \"auto\", not \"%1\".").arg(logFrom),
                    {}});
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("hardware"))) {
        auto hardware = readHardwareFile(parser.value(QStringLiteral("hardware")));
        if (!hardware) {
            printError(hardware.error());
            return Failure;
        }
        options.hardware = *hardware;
    }
    if (parser.isSet(QStringLiteral("log"))) {
        auto log = readLogInput(parser.value(QStringLiteral("log")));
        if (!log) {
            printError(log.error());
            return Failure;
        }
        options.log = *log;
    }

    const DoctorReport report = QCoro::waitFor(tfsetup::core::runDoctor(**system, *knowledge, options));
    if (parser.isSet(QStringLiteral("report"))) {
        const Redactor redactor(**system);
        const Status written = writeDoctorReport(parser.value(QStringLiteral("report")), report.reportText(redactor));
        if (!written) {
            printError(written.error());
            return Failure;
        }
    }
    if (parser.isSet(QStringLiteral("json")))
        printJson(QJsonDocument(report.toJson()));
    else
        printOut(report.text());
    return report.hasErrors() ? Failure : Success;
}

} // namespace tfsetup::cli
