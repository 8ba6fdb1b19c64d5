#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "setup/environments.h"
#include "system/realsystem.h"
#include "verify/verifier.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QStandardPaths>

namespace tfsetup::cli {

int runVerify(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("env"),
                      Cli::tr("The environment folder to verify (the one holding environment.json)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("launcher"),
                      Cli::tr("Run Python through FILE (the environment's start-python launcher) instead of the "
                              "one the environment names."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("tf"),
                      Cli::tr("The TensorFlow version to check for, when the environment does not say."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("os"), Cli::tr("Whose library names to load: windows or linux."),
                      QStringLiteral("windows|linux")});
    parser.addOption(
        {QStringLiteral("cuda"), Cli::tr("The CUDA version TensorFlow was built with."), QStringLiteral("VERSION")});
    parser.addOption(
        {QStringLiteral("cudnn"), Cli::tr("The cuDNN version TensorFlow was built with."), QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("library-dir"),
                      Cli::tr("A folder that holds the environment's own copies of the libraries (repeatable)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("cpu"), Cli::tr("The environment is meant to run on the processor.")});
    parser.addOption({QStringLiteral("probe"), Cli::tr("The library probe to use (default: beside tfsetup)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Prove that an environment works: load every GPU library "
                                             "TensorFlow will load, then import TensorFlow and compute on the "
                                             "GPU. Names the first step that fails and what to do."));
        code >= 0)
        return code;

    if (!knowledge) {
        printError(knowledge.error());
        return Failure;
    }
    const Catalog &catalog = (*knowledge)->catalog;
    RealSystem system;
    EnvironmentInfo environment;
    environment.os = osFamilyName(system.os());
    if (parser.isSet(QStringLiteral("env"))) {
        auto read = EnvironmentInfo::read(system, QDir(parser.value(QStringLiteral("env"))).absolutePath());
        if (!read) {
            printError(read.error());
            return Failure;
        }
        environment = *read;
    } else if (!parser.isSet(QStringLiteral("launcher")) && !parser.isSet(QStringLiteral("tf"))
               && !parser.isSet(QStringLiteral("cuda"))) {
        printUsageError(Cli::tr("Give --env DIR, or say what to check with --launcher FILE and --tf VERSION."),
                        parser.helpText());
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("launcher")))
        environment.pythonLauncher = QDir(parser.value(QStringLiteral("launcher"))).absolutePath();
    if (parser.isSet(QStringLiteral("tf")))
        environment.tensorflow = parser.value(QStringLiteral("tf"));
    if (parser.isSet(QStringLiteral("os"))) {
        const QString os = parser.value(QStringLiteral("os")).toLower();
        if (os != u"windows" && os != u"linux") {
            printUsageError(Cli::tr("Unknown --os \"%1\": use windows or linux.").arg(os));
            return UsageError;
        }
        environment.os = os;
    }
    if (parser.isSet(QStringLiteral("cuda")))
        environment.cuda = parser.value(QStringLiteral("cuda"));
    if (parser.isSet(QStringLiteral("cudnn")))
        environment.cudnn = parser.value(QStringLiteral("cudnn"));
    environment.libraryDirs += parser.values(QStringLiteral("library-dir"));

    VerifyRequest request = VerifyRequest::forEnvironment(environment, catalog);
    if (parser.isSet(QStringLiteral("cpu")))
        request.expectGpu = false;
    request.probe = parser.isSet(QStringLiteral("probe"))
        ? QDir(parser.value(QStringLiteral("probe"))).absolutePath()
        : QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"), {QCoreApplication::applicationDirPath()});

    const VerifyReport report = QCoro::waitFor(verifyEnvironment(system, request, catalog));
    // Kept beside the record for `tfsetup list` and the Welcome page.
    if (parser.isSet(QStringLiteral("env"))) {
        const QString folder = QDir(parser.value(QStringLiteral("env"))).absolutePath();
        if (const Status kept = recordVerifyResult(folder, report); !kept)
            qWarning().noquote() << "the verify result was not kept:" << kept.error().message;
    }
    // A failed verification is a failed command: its JSON says so the way every command does.
    std::optional<Error> failure;
    if (!report.passed()) {
        const VerifyLayer *first = report.firstFailure();
        failure = Error{
            first && !first->cause.isEmpty() ? first->cause : QStringLiteral("verify_failed"),
            first ? Cli::tr("The environment did not pass verification: %1: %2").arg(first->title, first->summary)
                  : Cli::tr("The environment did not pass verification."),
            first ? first->explanation : QString()};
    }
    return printOutcome(parser.isSet(QStringLiteral("json")), report.toJson(), report.text(), failure);
}

} // namespace tfsetup::cli
