#include "cli/cli.h"

#include "setup/environments.h"

#include <QDir>

namespace tfsetup::cli {

int runRemove(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("env"),
                      Cli::tr("The environment folder to remove (the one holding environment.json)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("yes"), Cli::tr("Remove it; without --yes, only say what would be removed.")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Remove an environment tfsetup made, with its launchers, Jupyter kernel "
                                             "and menu entry. Only files whose record proves tfsetup made them go; "
                                             "anything else in the folder is kept and named."));
        code >= 0)
        return code;
    const bool json = parser.isSet(QStringLiteral("json"));
    if (!parser.isSet(QStringLiteral("env"))) {
        printUsageError(Cli::tr("Give the environment to remove with --env DIR."), parser.helpText());
        return UsageError;
    }
    auto system = systemFromOptions(parser);
    if (!system)
        return fail(system.error(), UsageError, json);
    const QString given = parser.value(QStringLiteral("env"));
    const QString environment = QDir::fromNativeSeparators(
        parser.isSet(QStringLiteral("root")) ? given : QDir(given).absolutePath());
    const bool apply = parser.isSet(QStringLiteral("yes"));
    const auto report = removeEnvironment(**system, environment, !apply);
    if (!report)
        return fail(report.error(), Failure, json);
    const Error unconfirmed{
        QStringLiteral("confirmation_needed"), Cli::tr("Nothing was removed. Run again with --yes to remove it."), {}};
    if (json) {
        QJsonObject out = report->toJson();
        // Without --yes nothing was done: the dry run's report, and why the command did not go on.
        if (!apply) {
            out.insert(QStringLiteral("ok"), false);
            out.insert(QStringLiteral("error"), errorJson(unconfirmed));
        }
        printJson(QJsonDocument(out));
    } else {
        printOut(report->text());
    }
    if (!apply) {
        recordError(unconfirmed);
        if (!json)
            printOut(unconfirmed.message + u'\n');
        return UsageError;
    }
    return Success;
}

} // namespace tfsetup::cli
