#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "system/realsystem.h"
#include "system/rootedsystem.h"
#include "util/inputfile.h"
#include "util/runlog.h"
#include "util/text.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <optional>

namespace tfsetup::cli {

int runDetect(const QStringList &arguments, const KnowledgeResult &knowledge);
int runPlan(const QStringList &arguments, const KnowledgeResult &knowledge);
int runFetch(const QStringList &arguments);
int runInstall(const QStringList &arguments, const KnowledgeResult &knowledge);
int runVerify(const QStringList &arguments, const KnowledgeResult &knowledge);
int runSources(const QStringList &arguments, const KnowledgeResult &knowledge);
int runBundle(const QStringList &arguments, const KnowledgeResult &knowledge);
int runDoctor(const QStringList &arguments, const KnowledgeResult &knowledge);
int runRepair(const QStringList &arguments, const KnowledgeResult &knowledge);
int runCatalog(const QStringList &arguments);
int runUpgrade(const QStringList &arguments, const KnowledgeResult &knowledge);
int runList(const QStringList &arguments, const KnowledgeResult &knowledge);
int runRemove(const QStringList &arguments);
int runClean(const QStringList &arguments);

const QList<Command> &commands()
{
    static const QList<Command> list{
        // Opened by main(), which owns the GUI; listed here for the help text.
        {"wizard", [] { return Cli::tr("Open the setup wizard (the default), also over a --root folder"); },
         [](const QStringList &) { return int(UsageError); }},
        {"detect",
         [] { return Cli::tr("Report this machine's GPUs, driver, CPU, Pythons, CUDA and cuDNN"); },
         {},
         runDetect},
        {"plan",
         [] { return Cli::tr("Choose a working TensorFlow / CUDA / cuDNN / Python combination"); },
         {},
         runPlan},
        {"fetch",
         [] { return Cli::tr("Download a file and verify its official checksum (resumable, mirrors, cache)"); },
         runFetch},
        {"install",
         [] { return Cli::tr("Install an environment as a lab profile describes it, without questions"); },
         {},
         runInstall},
        {"verify",
         [] { return Cli::tr("Prove an environment works: load its GPU libraries, then compute on the GPU"); },
         {},
         runVerify},
        {"sources",
         [] { return Cli::tr("List the official files of a plan with their checksums (mirrors, lab servers)"); },
         {},
         runSources},
        {"bundle",
         [] { return Cli::tr("Write an offline bundle of a plan's files for machines without internet"); },
         {},
         runBundle},
        {"doctor",
         [] { return Cli::tr("Explain why TensorFlow does not use the GPU, from this machine and a log"); },
         {},
         runDoctor},
        {"repair",
         [] {
             return Cli::tr("Repair an environment: restore damaged or moved files, launchers and kernel, then verify");
         },
         {},
         runRepair},
        {"upgrade",
         [] {
             return Cli::tr(
                 "Upgrade an environment to the newest TensorFlow that fits this machine, keeping your files");
         },
         {},
         runUpgrade},
        {"catalog",
         [] {
             return Cli::tr(
                 "Show the knowledge catalog in use, install a signed catalog update, or trust a lab's catalog key");
         },
         runCatalog},
        {"list",
         [] { return Cli::tr("List the environments tfsetup made, their versions, size and last verify"); },
         {},
         runList},
        {"remove",
         [] { return Cli::tr("Remove an environment tfsetup made, with its launchers, kernel and menu entry"); },
         runRemove},
        {"clean",
         [] { return Cli::tr("Free space: prune the download cache and old logs, keeping what is still needed"); },
         runClean},
    };
    return list;
}

const Command *findCommand(const QString &name)
{
    for (const Command &c : commands()) {
        if (name == QLatin1String(c.name))
            return &c;
    }
    return nullptr;
}

QString topLevelHelp()
{
    QString text = Cli::tr("Usage: tfsetup [COMMAND] [OPTIONS]\n"
                           "Without a command, tfsetup opens the setup wizard.\n\n"
                           "Commands:\n");
    for (const Command &c : commands())
        text += QStringLiteral("  %1%2\n").arg(QLatin1String(c.name), -10).arg(c.summary());
    text += Cli::tr("\nOptions:\n"
                    "  -h, --help     Show this help\n"
                    "  -v, --version  Show the version\n\n"
                    "Run \"tfsetup COMMAND --help\" for the options of one command.\n");
    return text;
}

namespace {

// What one command printed and reported: dispatch() answers --json for a failure that printed no
// JSON document (every command, every failure path), from the last error the command reported.
struct RunOutput {
    bool json = false;
    bool documentPrinted = false;
    std::optional<Error> lastError;
};

RunOutput &runOutput()
{
    static RunOutput output;
    return output;
}

// The error a failed command leaves when it reported none through printError / fail.
Error unreportedError(const QString &command, int code)
{
    return code == UsageError ? Error{QStringLiteral("usage"),
                                      Cli::tr("tfsetup %1: the command line is not complete or not valid; "
                                              "see tfsetup %1 --help.")
                                          .arg(command),
                                      {}}
                              : Error{QStringLiteral("failed"), Cli::tr("tfsetup %1 failed.").arg(command), {}};
}

} // namespace

bool asksForJson(const QStringList &arguments)
{
    // arguments[0] is the program; "--" ends the options, so a file named --json after it is not one.
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        if (arguments.at(i) == u"--")
            return false;
        if (arguments.at(i) == u"--json")
            return true;
    }
    return false;
}

int dispatch(const QStringList &arguments)
{
    const QString name = arguments.value(1);
    const Command *command = findCommand(name);
    RunOutput &output = runOutput();
    output = RunOutput{};
    output.json = asksForJson(arguments.mid(1));
    if (!command) {
        const Error error{QStringLiteral("usage"), Cli::tr("tfsetup: unknown command \"%1\".").arg(name), {}};
        if (output.json)
            return fail(error, UsageError, true);
        printErr(error.message + u'\n' + topLevelHelp());
        return UsageError;
    }
    QStringList rest = arguments.mid(2);
    rest.prepend(arguments.value(0) + u' ' + name);
    const int code = command->runWithKnowledge ? command->runWithKnowledge(rest, Knowledge::shared())
                                               : command->run(rest);
    RunLog::write("info", QStringLiteral("tfsetup %1 exits with %2").arg(name).arg(code));
    if (code != Success && output.json && !output.documentPrinted) {
        if (output.lastError) {
            printJson(QJsonDocument(
                QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), errorJson(*output.lastError)}}));
        } else {
            // A path that reported nothing: still the error object, and the message for a person.
            fail(unreportedError(name, code), code, true);
        }
    }
    return code;
}

void addSystemOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("root"),
                      Cli::tr("Scan the folder DIR as if it were the file-system root (a Windows drive C: is DIR/C)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("env-file"),
                      Cli::tr("Take environment variables from FILE (KEY=VALUE lines) instead of this process."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("os"), Cli::tr("The system the --root folder imitates: windows or linux."),
                      QStringLiteral("windows|linux")});
}

void addOriginOption(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("origin"),
                      Cli::tr("Treat URL as the official server of ORIGIN (nvidia, python, pypi), for labs that "
                              "re-host it under the same layout."),
                      QStringLiteral("ORIGIN=URL")});
}

Result<QList<std::pair<QString, QUrl>>> originsFromOptions(const QCommandLineParser &parser)
{
    QList<std::pair<QString, QUrl>> origins;
    for (const QString &spec : parser.values(QStringLiteral("origin"))) {
        const qsizetype eq = spec.indexOf(u'=');
        const QUrl url(spec.mid(eq + 1), QUrl::StrictMode);
        if (eq <= 0 || !url.isValid() || url.scheme().isEmpty()) {
            return Error{QStringLiteral("usage"),
                         Cli::tr("--origin takes ORIGIN=URL, for example nvidia=https://lab.example/nvidia."), spec};
        }
        origins.append({spec.left(eq), url});
    }
    return origins;
}

Result<HardwareReport> readHardwareFile(const QString &path)
{
    const auto json = readJsonObjectFile(path, Cli::tr("The hardware file"));
    if (!json) {
        return Error{json.error().code == u"input_malformed" ? QStringLiteral("hardware_malformed")
                                                             : QStringLiteral("hardware_unreadable"),
                     Cli::tr("Cannot use the hardware file %1: %2 Give the output of tfsetup detect --json.")
                         .arg(path, json.error().message),
                     json.error().detail};
    }
    return HardwareReport::parse(*json, Cli::tr("The hardware file %1").arg(path));
}

Result<std::unique_ptr<SystemView>> systemFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("root"))) {
        if (parser.isSet(QStringLiteral("env-file")) || parser.isSet(QStringLiteral("os"))) {
            return Error{QStringLiteral("usage"),
                         Cli::tr("--env-file and --os describe a --root folder; give --root DIR as well."),
                         {}};
        }
        return std::unique_ptr<SystemView>(std::make_unique<RealSystem>());
    }
    OsFamily os = OsFamily::Linux;
    if (parser.isSet(QStringLiteral("os"))) {
        const auto parsed = osFamilyFromName(parser.value(QStringLiteral("os")));
        if (!parsed || *parsed == OsFamily::MacOS) {
            return Error{QStringLiteral("usage"),
                         Cli::tr("Unknown --os \"%1\": use windows or linux.").arg(parser.value(QStringLiteral("os"))),
                         {}};
        }
        os = *parsed;
    }
    auto view = RootedSystem::open(parser.value(QStringLiteral("root")), os, parser.value(QStringLiteral("env-file")));
    if (!view)
        return view.error();
    return std::unique_ptr<SystemView>(std::move(view.value()));
}

int parseOrExit(QCommandLineParser &parser, const QStringList &arguments, const QString &description)
{
    parser.setApplicationDescription(description);
    const QCommandLineOption help = parser.addHelpOption();
    // QCommandLineParser's usage line names the program by its full path and without the
    // command; show what to type instead: "tfsetup repair [options]".
    const QString program = arguments.value(0).section(u' ', 0, 0);
    const QString command = arguments.value(0).section(u' ', 1);
    const QString typed = QFileInfo(program).fileName() + (command.isEmpty() ? QString() : u' ' + command);
    const auto helpText = [&] {
        QString text = parser.helpText();
        const QString shown = QCoreApplication::arguments().value(0);
        if (const qsizetype at = shown.isEmpty() ? -1 : text.indexOf(shown); at >= 0)
            text.replace(at, shown.size(), typed);
        return text;
    };
    if (!parser.parse(arguments)) {
        const Error error{QStringLiteral("usage"), parser.errorText(), {}};
        // --json is asked for even when the line around it does not parse.
        if (asksForJson(arguments))
            return fail(error, UsageError, true);
        recordError(error);
        printErr(parser.errorText() + u'\n' + helpText());
        return UsageError;
    }
    if (parser.isSet(help)) {
        printOut(helpText());
        return Success;
    }
    return -1;
}

// Every line tfsetup prints may quote text from outside (a log, pip, a record): escapes and
// control characters are shown, never acted on, and a URL's password or token is masked.
namespace {
QByteArray terminalBytes(const QString &text)
{
    return visibleText(redactSecrets(text)).toUtf8();
}
} // namespace

void printOut(const QString &text)
{
    const QByteArray bytes = terminalBytes(text);
    fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    fflush(stdout);
}

void printErr(const QString &text)
{
    const QByteArray bytes = terminalBytes(text);
    fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    if (!text.endsWith(u'\n'))
        fputc('\n', stderr);
    fflush(stderr);
}

void printJson(const QJsonDocument &document)
{
    runOutput().documentPrinted = true;
    printOut(QString::fromUtf8(document.toJson(QJsonDocument::Indented)));
}

void recordError(const Error &error)
{
    runOutput().lastError = error;
    RunLog::write("error",
                  QStringLiteral("[%1] %2").arg(error.code, error.message)
                      + (error.detail.isEmpty() ? QString() : QStringLiteral(" (") + error.detail + u')'));
}

void printUsageError(const QString &message, const QString &help)
{
    recordError({QStringLiteral("usage"), message, {}});
    printErr(help.isEmpty() ? message : message + u'\n' + help);
}

void printError(const Error &error)
{
    recordError(error);
    QString text = Cli::tr("error: %1").arg(error.message);
    if (!error.detail.isEmpty())
        text += u'\n' + Cli::tr("details: %1").arg(error.detail);
    const QString log = RunLog::path();
    if (!log.isEmpty())
        text += u'\n' + Cli::tr("The log of this run is %1").arg(log);
    printErr(text);
}

QJsonObject errorJson(const Error &error)
{
    return QJsonObject{{QStringLiteral("code"), error.code},
                       {QStringLiteral("message"), error.message},
                       {QStringLiteral("detail"), error.detail}};
}

int fail(const Error &error, int code, bool json)
{
    if (json)
        printJson(
            QJsonDocument(QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), errorJson(error)}}));
    printError(error);
    return code;
}

int printOutcome(bool json, QJsonObject document, const QString &text, const std::optional<Error> &failure)
{
    if (json) {
        document.insert(QStringLiteral("ok"), !failure);
        if (failure)
            document.insert(QStringLiteral("error"), errorJson(*failure));
        printJson(QJsonDocument(document));
        if (failure)
            printError(*failure);
    } else {
        printOut(text);
        if (failure)
            recordError(*failure);
    }
    return failure ? Failure : Success;
}

} // namespace tfsetup::cli
