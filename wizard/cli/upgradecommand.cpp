#include "cli/cli.h"
#include "cli/installsources.h"

#include "catalog/knowledge.h"
#include "setup/upgrade.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QJsonObject>
#include <QStandardPaths>

namespace tfsetup::cli {

int runUpgrade(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("env"),
                      Cli::tr("The environment folder to upgrade (the one holding environment.json)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("tf"),
                      Cli::tr("Upgrade to TensorFlow VERSION (\"2.16\") instead of the newest that fits this machine."),
                      QStringLiteral("VERSION")});
    parser.addOption({QStringLiteral("hardware"),
                      Cli::tr("Plan for the machine described in FILE (the output of tfsetup detect --json) instead "
                              "of detecting this one."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("dry-run"), Cli::tr("Only say what the upgrade would do; change and download nothing.")});
    parser.addOption({QStringLiteral("yes"), Cli::tr("Do not ask: upgrade now.")});
    parser.addOption({QStringLiteral("no-verify"), Cli::tr("Do not run verify after the upgrade.")});
    parser.addOption({QStringLiteral("probe"), Cli::tr("The library probe to use (default: beside tfsetup)."),
                      QStringLiteral("FILE")});
    addInstallSourceOptions(parser);
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(
            parser, arguments,
            Cli::tr("Upgrade an environment to the newest TensorFlow that runs on this machine "
                    "on the same route. The new version is built beside the old one and "
                    "switched in with your files kept; if anything fails, the old one stays "
                    "as it was. Then the launchers and the Jupyter kernel are written "
                    "again and the environment is verified."));
        code >= 0)
        return code;

    const bool json = parser.isSet(QStringLiteral("json"));
    auto failAs = [json](const Error &error, int code) { return fail(error, code, json); };
    if (!parser.isSet(QStringLiteral("env"))) {
        return failAs({QStringLiteral("usage"),
                       Cli::tr("Give the environment to upgrade with --env DIR (tfsetup list shows them)."),
                       {}},
                      UsageError);
    }
    auto system = systemFromOptions(parser);
    if (!system)
        return failAs(system.error(), UsageError);
    if (!knowledge)
        return failAs(knowledge.error(), Failure);
    auto sources = installSourcesFrom(parser, (*knowledge)->sources);
    if (!sources)
        return failAs(sources.error(), UsageError);

    UpgradeRequest request;
    const QString env = parser.value(QStringLiteral("env"));
    // Over a --root folder the path is the imitated machine's; here it is this machine's.
    request.environmentPath = parser.isSet(QStringLiteral("root")) ? env : QDir(env).absolutePath();
    request.tensorflow = parser.value(QStringLiteral("tf"));
    request.setup = sources->setup;
    request.knowledge = *knowledge;
    request.verify = !parser.isSet(QStringLiteral("no-verify"));
    request.probe = parser.isSet(QStringLiteral("probe"))
        ? QDir(parser.value(QStringLiteral("probe"))).absolutePath()
        : QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"), {QCoreApplication::applicationDirPath()});
    if (parser.isSet(QStringLiteral("hardware"))) {
        auto report = readHardwareFile(parser.value(QStringLiteral("hardware")));
        if (!report)
            return failAs(report.error(), Failure);
        request.hardware = *report;
    }

    Upgrader upgrader(**system);
    const Result<UpgradeProposal> proposal = QCoro::waitFor(upgrader.propose(request));
    if (!proposal)
        return failAs(proposal.error(), Failure);
    const bool dryRun = parser.isSet(QStringLiteral("dry-run"));
    const auto report = [json, dryRun](const UpgradeProposal &p, bool ok, const std::optional<Error> &error) {
        if (json) {
            QJsonObject out = p.toJson();
            out.insert(QStringLiteral("ok"), ok);
            out.insert(QStringLiteral("dry_run"), dryRun);
            if (error)
                out.insert(QStringLiteral("error"), errorJson(*error));
            printJson(QJsonDocument(out));
        } else {
            printOut(p.text());
        }
    };
    if (proposal->status == u"current") {
        report(*proposal, true, std::nullopt);
        return Success;
    }
    if (!proposal->canUpgrade()) {
        const Error error{request.tensorflow.isEmpty() ? QStringLiteral("no_upgrade") : QStringLiteral("release_unfit"),
                          proposal->message,
                          {}};
        report(*proposal, false, error);
        printError(error);
        return Failure;
    }
    if (dryRun) {
        report(*proposal, true, std::nullopt);
        return Success;
    }
    if (!parser.isSet(QStringLiteral("yes"))) {
        const Error unconfirmed{QStringLiteral("confirmation_needed"), Cli::tr("Run again with --yes to upgrade."), {}};
        report(*proposal, false, unconfirmed);
        recordError(unconfirmed);
        if (!json)
            printOut(unconfirmed.message + u'\n');
        return UsageError;
    }

    if (!json) {
        printOut(proposal->text());
        QObject::connect(&upgrader, &Upgrader::message, &upgrader,
                         [](const QString &line) { printOut(QStringLiteral("    ") + line + u'\n'); });
        // By value: the connection outlives this block, the upgrade runs after it.
        QObject::connect(
            &upgrader, &Upgrader::stepStarted, &upgrader,
            [steps = allInstallSteps()](InstallStep step, const QString &title) {
                printOut(QStringLiteral("[%1/%2] %3\n").arg(steps.indexOf(step) + 1).arg(steps.size()).arg(title));
            });
        QObject::connect(&upgrader, &Upgrader::logLine, &upgrader, [](const QString &line) {
            if (!line.startsWith(QStringLiteral("== ")))
                printOut(QStringLiteral("    ") + line + u'\n');
        });
    }
    const Result<UpgradeOutcome> outcome = QCoro::waitFor(upgrader.upgrade(*proposal, request));
    if (!outcome) {
        Error error = outcome.error();
        error.message += u' ' + Cli::tr("%1 is as it was before.").arg(proposal->environmentPath);
        return failAs(error, Failure);
    }
    const bool passed = outcome->passed();
    if (json) {
        QJsonObject out = outcome->toJson();
        out.insert(QStringLiteral("ok"), passed);
        out.insert(QStringLiteral("dry_run"), false);
        printJson(QJsonDocument(out));
    } else {
        printOut(outcome->text());
        for (const QString &w : outcome->install.warnings)
            printErr(Cli::tr("warning: %1").arg(w));
    }
    if (!passed) {
        printError({QStringLiteral("verify_failed"),
                    Cli::tr("%1 was upgraded to TensorFlow %2, but it did not pass verification. tfsetup doctor --env "
                            "%1 finds the cause.")
                        .arg(outcome->install.environmentPath, proposal->plan->tensorflow),
                    {}});
        return Failure;
    }
    return Success;
}

} // namespace tfsetup::cli
