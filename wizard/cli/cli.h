#pragma once

#include "detect/hardwarereport.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace tfsetup::core {
struct Knowledge;
}

namespace tfsetup::cli {

// The command line is a client of core, as the wizard is: core's types read unqualified here.
using namespace tfsetup::core;

// Translation context for command-line texts.
class Cli {
    Q_DECLARE_TR_FUNCTIONS(Cli)
};

enum ExitCode { Success = 0, Failure = 1, UsageError = 2 };

using KnowledgeResult = Result<std::shared_ptr<const Knowledge>>;

struct Command {
    const char *name;
    std::function<QString()> summary;                     // translated on demand
    std::function<int(const QStringList &arguments)> run; // arguments[0] is "tfsetup <name>"
    // Instead of run, for a command that uses the knowledge catalog: dispatch() loads the bundle
    // once (Knowledge::shared()) and passes it, or why it could not be loaded, to the command.
    std::function<int(const QStringList &arguments, const KnowledgeResult &knowledge)> runWithKnowledge = {};
};

// Every headless subcommand, in the order `tfsetup --help` lists them.
const QList<Command> &commands();
const Command *findCommand(const QString &name);

// Runs `tfsetup <subcommand> …`. arguments[0] is the program, arguments[1] the subcommand.
int dispatch(const QStringList &arguments);
// The top-level help text (program usage and the list of subcommands).
QString topLevelHelp();

// --root DIR, --env-file FILE, --os windows|linux: the system view every scanning command uses.
void addSystemOptions(QCommandLineParser &parser);
Result<std::unique_ptr<SystemView>> systemFromOptions(const QCommandLineParser &parser);

// A machine's tfsetup detect --json (plan --hardware, doctor --hardware), size- and shape-checked.
Result<HardwareReport> readHardwareFile(const QString &path);

// --origin ORIGIN=URL (repeatable): serve an origin (nvidia, python, pypi) from a re-hosted copy.
void addOriginOption(QCommandLineParser &parser);
Result<QList<std::pair<QString, QUrl>>> originsFromOptions(const QCommandLineParser &parser);

// --min-speed BYTES[:SECONDS]: the downloads' speed floor (Downloader::parseSpeedFloor reads it).
void addMinSpeedOption(QCommandLineParser &parser);

// Parses arguments; on --help prints help and returns Success, on a bad option prints the
// error (as the JSON error object, code "usage", when --json is among the arguments) and returns
// UsageError; otherwise returns -1 to let the command go on.
int parseOrExit(QCommandLineParser &parser, const QStringList &arguments, const QString &description);

// Output helpers: UTF-8 on stdout/stderr whatever the console code page.
void printOut(const QString &text);
void printErr(const QString &text);
void printJson(const QJsonDocument &document);
// Whether --json is among the options (before a "--"), parsed or not.
bool asksForJson(const QStringList &arguments);

// Every failure a command reports goes through these (directly or through fail()): the error is
// written to the run log and kept as the run's error, so that dispatch() can answer a --json run
// that failed without printing a JSON document with {"ok": false, "error": …} from it.
// "error: <message>" plus the log path, so a user can attach it.
void printError(const Error &error);
// The message of a usage problem found after parsing (plus help, when given) on stderr, kept as
// the run's error with code "usage".
void printUsageError(const QString &message, const QString &help = {});
// Keeps the error as the run's error and writes it to the run log, printing nothing.
void recordError(const Error &error);
// {"code", "message", "detail"}: how every --json output spells an error.
QJsonObject errorJson(const Error &error);
// Reports a failure the way a command's --json asked for ({"ok": false, "error": …} on stdout,
// always the message on stderr) and returns code.
int fail(const Error &error, int code, bool json);
// A command's outcome, printed once: with --json the document with "ok" (and "error" when it
// failed, then the message on stderr), else the text, its failure kept as the run's error.
// Returns Success, or Failure when there is a failure.
int printOutcome(bool json, QJsonObject document, const QString &text, const std::optional<Error> &failure);

} // namespace tfsetup::cli
