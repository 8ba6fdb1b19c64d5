#include "cli/cli.h"

#include "install/installer.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

namespace tfsetup::core::cli {

int runInstall(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("profile"), Cli::tr("Install what the lab profile FILE describes."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("yes"), Cli::tr("Do not ask: install now (for unattended roll-outs).")});
    parser.addOption({QStringLiteral("prefix"), Cli::tr("Put the environment in DIR instead of the profile's folder."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("offline"), Cli::tr("Use only the files of the bundle given with --from; no network.")});
    parser.addOption({QStringLiteral("from"), Cli::tr("The offline bundle folder (with artifacts.json)."), QStringLiteral("BUNDLE")});
    parser.addOption({QStringLiteral("cache"),
                      Cli::tr("Download into DIR and keep verified files there; many machines may share one folder "
                              "(each file is fetched once)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("mirror"),
                      Cli::tr("Fetch NVIDIA's files from this copy of NVIDIA's download tree first (URL or folder)."),
                      QStringLiteral("URL|DIR")});
    addOriginOption(parser);
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://) instead of the profile's."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Install a TensorFlow environment without questions, as a lab profile "
                                             "describes it."));
        code >= 0)
        return code;

    const bool json = parser.isSet(QStringLiteral("json"));
    auto failAs = [json](const Error &error, int code) { return fail(error, code, json); };
    if (!parser.isSet(QStringLiteral("profile"))) {
        return failAs({QStringLiteral("usage"),
                     Cli::tr("Give the lab profile with --profile FILE. Without one, start tfsetup without a command "
                             "to use the wizard."), {}},
                    UsageError);
    }
    if (parser.isSet(QStringLiteral("offline")) != parser.isSet(QStringLiteral("from"))) {
        return failAs({QStringLiteral("usage"), Cli::tr("--offline and --from BUNDLE go together."), {}}, UsageError);
    }
    auto system = systemFromOptions(parser);
    if (!system)
        return failAs(system.error(), UsageError);
    auto profile = LabProfile::load(parser.value(QStringLiteral("profile")));
    if (!profile)
        return failAs(profile.error(), Failure);
    LabSetupOptions options;
    options.prefixOverride = parser.value(QStringLiteral("prefix"));
    // "--prefix envs" means the folder envs where the command runs, as every other tool reads it;
    // a folder imitating another machine (--root) has no working directory to resolve against.
    if (!options.prefixOverride.isEmpty() && QDir::isRelativePath(options.prefixOverride)
        && !parser.isSet(QStringLiteral("root")))
        options.prefixOverride = QDir::cleanPath(QDir::current().absoluteFilePath(options.prefixOverride));
    options.bundleFolder = parser.value(QStringLiteral("from"));
    options.cacheDir = parser.value(QStringLiteral("cache"));
    options.nvidiaMirror = parser.value(QStringLiteral("mirror"));
    options.caBundle = parser.value(QStringLiteral("ca-bundle"));
    options.transfer.proxy = parser.value(QStringLiteral("proxy"));
    const auto origins = originsFromOptions(parser);
    if (!origins)
        return failAs(origins.error(), UsageError);
    options.originOverrides = *origins;
    auto spec = profile->toSpec(**system, options.prefixOverride, options.bundleFolder);
    if (!spec)
        return failAs(spec.error(), Failure);
    if (!parser.isSet(QStringLiteral("yes"))) {
        printOut(Cli::tr("This would install \"%1\" (TensorFlow %2, %3) into %4.\nRun again with --yes to install.\n")
                     .arg(spec->name, spec->tensorflow, spec->route, spec->environmentPath()));
        return UsageError;
    }

    // The NVIDIA files of a toolkit route, through the (shared) cache; nothing for pip routes.
    LabSetup setup(**system);
    QObject::connect(&setup, &LabSetup::message, &setup, [json](const QString &line) {
        if (!json)
            printOut(QStringLiteral("    ") + line + u'\n');
    });
    spec = QCoro::waitFor(setup.prepare(*profile, options));
    if (!spec)
        return failAs(spec.error(), Failure);

    Installer installer(**system);
    const QList<InstallStep> steps = allInstallSteps();
    QObject::connect(&installer, &Installer::stepStarted, &installer, [json, &steps](InstallStep step, const QString &title) {
        if (!json)
            printOut(QStringLiteral("[%1/%2] %3\n").arg(steps.indexOf(step) + 1).arg(steps.size()).arg(title));
    });
    QObject::connect(&installer, &Installer::logLine, &installer, [json](const QString &line) {
        // pip's progress, live; steps and tfsetup's own notes are already in the step lines.
        if (!json && !line.startsWith(QStringLiteral("== ")))
            printOut(QStringLiteral("    ") + line + u'\n');
    });
    const Result<InstallOutcome> outcome = QCoro::waitFor(installer.install(*spec));
    if (!outcome)
        return failAs(outcome.error(), Failure);
    if (json) {
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                            {QStringLiteral("environment"), outcome->environmentPath},
                                            {QStringLiteral("unchanged"), outcome->unchanged},
                                            {QStringLiteral("launchers"), QJsonArray::fromStringList(outcome->launchers)},
                                            {QStringLiteral("kernel_folder"), outcome->kernelFolder},
                                            {QStringLiteral("warnings"), QJsonArray::fromStringList(outcome->warnings)}}));
    } else {
        printOut(outcome->unchanged ? Cli::tr("The environment %1 was already complete; nothing changed.\n").arg(outcome->environmentPath)
                                    : Cli::tr("Installed %1.\n").arg(outcome->environmentPath));
        for (const QString &w : outcome->warnings)
            printErr(Cli::tr("warning: %1").arg(w));
        printOut(Cli::tr("Start it with:\n") + outcome->launchers.filter(QStringLiteral("start-")).join(u'\n') + u'\n');
    }
    return Success;
}

} // namespace tfsetup::core::cli
