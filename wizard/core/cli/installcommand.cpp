#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "detect/detector.h"
#include "fetch/downloader.h"
#include "install/environments.h"
#include "install/gpuchoice.h"
#include "install/installer.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

namespace tfsetup::core::cli {

int runInstall(const QStringList &arguments, const KnowledgeResult &knowledge)
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
    addMinSpeedOption(parser);
    parser.addOption({QStringLiteral("gpus"),
                      Cli::tr("The NVIDIA GPUs the environment uses, by nvidia-smi's numbers in the order TensorFlow "
                              "is to number them (0,2), or all, instead of the profile's \"gpus\" (default: those "
                              "this TensorFlow runs on without a slow first start)."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("hardware"),
                      Cli::tr("Choose the GPUs from this report (tfsetup detect --json) instead of detecting this "
                              "computer."),
                      QStringLiteral("FILE")});
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
    std::optional<GpuChoice> gpuOverride;
    if (parser.isSet(QStringLiteral("gpus"))) {
        auto parsed = GpuChoice::parse(parser.value(QStringLiteral("gpus")), QStringLiteral("--gpus"));
        if (!parsed)
            return failAs(parsed.error(), UsageError);
        gpuOverride = *parsed;
    }
    auto system = systemFromOptions(parser);
    if (!system)
        return failAs(system.error(), UsageError);
    if (!knowledge)
        return failAs(knowledge.error(), Failure);
    auto profile = LabProfile::load(parser.value(QStringLiteral("profile")));
    if (!profile)
        return failAs(profile.error(), Failure);
    // The GPUs, from what the profile's TensorFlow can make of this machine's (solver/plan.h).
    const GpuChoice gpuChoice = gpuOverride.value_or(profile->gpus);
    GpuChoice::Resolved gpus;
    if (gpuChoice.kind != GpuChoice::Kind::All) {
        HardwareReport report;
        if (parser.isSet(QStringLiteral("hardware"))) {
            auto parsed = readHardwareFile(parser.value(QStringLiteral("hardware")));
            if (!parsed)
                return failAs(parsed.error(), Failure);
            report = *parsed;
        } else {
            DetectOptions detect;
            detect.scanPythons = false;
            detect.knowledge = *knowledge;
            report = QCoro::waitFor(detectHardware(**system, detect));
        }
        const Plan plan = withGpuAssessment(LabSetup::planOf(*profile), report, (*knowledge)->catalog,
                                            &(*knowledge)->gpus);
        const auto resolved =
            gpuChoice.resolve(plan, gpuOverride ? QStringLiteral("--gpus") : Cli::tr("The lab profile's \"gpus\""));
        if (!resolved)
            return failAs(resolved.error(), Failure);
        gpus = *resolved;
    }
    LabSetupOptions options;
    options.knowledge = *knowledge;
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
    if (parser.isSet(QStringLiteral("min-speed"))) {
        if (const Status floor = Downloader::parseSpeedFloor(parser.value(QStringLiteral("min-speed")), &options.transfer);
            !floor)
            return failAs(floor.error(), UsageError);
    }
    const auto origins = originsFromOptions(parser);
    if (!origins)
        return failAs(origins.error(), UsageError);
    options.originOverrides = *origins;
    auto spec = profile->toSpec(**system, options.prefixOverride, options.bundleFolder);
    if (!spec)
        return failAs(spec.error(), Failure);
    const QStringList gpuLines = GpuChoice::describe(gpus);
    if (!parser.isSet(QStringLiteral("yes"))) {
        for (const QString &line : gpuLines)
            printOut(line + u'\n');
        printOut(Cli::tr("This would install \"%1\" (TensorFlow %2, %3) into %4.\nRun again with --yes to install.\n")
                     .arg(spec->name, spec->tensorflow, spec->route, spec->environmentPath()));
        return UsageError;
    }
    if (!json) {
        for (const QString &line : gpuLines)
            printOut(line + u'\n');
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
    spec->gpus = gpus.pins;

    Installer installer(**system, *knowledge);
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
    // Listed for `tfsetup list` and the Welcome page; the environment works without it.
    if (const Status listed = EnvironmentIndex::add(**system, outcome->environmentPath); !listed)
        qWarning().noquote() << "not added to the list of environments:" << listed.error().message;
    // The profile promised a Jupyter kernel: an environment without it is not what was asked for,
    // so an unattended roll-out must not report it green. The environment itself stays; a rerun
    // registers the kernel once the cause is fixed.
    if (spec->registerKernel && outcome->kernelFolder.isEmpty()) {
        return failAs({QStringLiteral("kernel_not_registered"),
                       Cli::tr("%1 was installed, but its Jupyter kernel could not be registered, so notebooks "
                               "will not find it. %2 Fix that and run the same install again; it only registers "
                               "the kernel.")
                           .arg(outcome->environmentPath,
                                outcome->warnings.isEmpty() ? QString() : outcome->warnings.join(u' ')),
                       outcome->environmentPath},
                      Failure);
    }
    if (json) {
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                            {QStringLiteral("environment"), outcome->environmentPath},
                                            {QStringLiteral("unchanged"), outcome->unchanged},
                                            {QStringLiteral("launchers"), QJsonArray::fromStringList(outcome->launchers)},
                                            {QStringLiteral("kernel_folder"), outcome->kernelFolder},
                                            {QStringLiteral("gpus"), GpuChoice::toJson(gpus)},
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
