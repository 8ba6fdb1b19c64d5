#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "cli/downloadreport.h"
#include "cli/installsources.h"
#include "detect/detector.h"
#include "install/gpuchoice.h"
#include "install/installer.h"
#include "install/labprofile.h"
#include "setup/environments.h"
#include "setup/labsetup.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

namespace tfsetup::cli {

int runInstall(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption(
        {QStringLiteral("profile"), Cli::tr("Install what the lab profile FILE describes."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("yes"), Cli::tr("Do not ask: install now (for unattended roll-outs).")});
    parser.addOption({QStringLiteral("prefix"), Cli::tr("Put the environment in DIR instead of the profile's folder."),
                      QStringLiteral("DIR")});
    addInstallSourceOptions(parser);
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
                               "to use the wizard."),
                       {}},
                      UsageError);
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
    auto sources = installSourcesFrom(parser, (*knowledge)->sources);
    if (!sources)
        return failAs(sources.error(), UsageError);
    auto profile = LabProfile::load(parser.value(QStringLiteral("profile")));
    if (!profile)
        return failAs(profile.error(), Failure);
    // The GPUs, from what the profile's TensorFlow can make of this machine's (solver/plan.h).
    const GpuChoice gpuChoice = gpuOverride.value_or(profile->gpus);
    GpuChoice::Resolved gpus;
    // Every choice, "all" too, is resolved: a GPU this TensorFlow cannot use is named with its reason.
    {
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
        const auto resolved = gpuChoice.resolve(
            plan, gpuOverride ? QStringLiteral("--gpus") : Cli::tr("The lab profile's \"gpus\""));
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
    options.cacheDir = sources->setup.cacheDir;
    options.network = sources->setup.network;

    LabSetup setup(**system);
    auto in = setup.inputs(*profile, options);
    if (!in)
        return failAs(in.error(), Failure);
    const QStringList gpuLines = GpuChoice::describe(gpus);
    if (!parser.isSet(QStringLiteral("yes"))) {
        if (json) {
            return failAs({QStringLiteral("confirmation_needed"),
                           Cli::tr("Nothing was installed: add --yes to install \"%1\" (TensorFlow %2, %3) into %4.")
                               .arg(in->spec.name, in->spec.tensorflow, in->spec.route, in->spec.environmentPath()),
                           gpuLines.join(u'\n')},
                          UsageError);
        }
        for (const QString &line : gpuLines)
            printOut(line + u'\n');
        printOut(Cli::tr("This would install \"%1\" (TensorFlow %2, %3) into %4.\nRun again with --yes to install.\n")
                     .arg(in->spec.name, in->spec.tensorflow, in->spec.route, in->spec.environmentPath()));
        recordError({QStringLiteral("confirmation_needed"), Cli::tr("Run again with --yes to install."), {}});
        return UsageError;
    }
    if (!json) {
        for (const QString &line : gpuLines)
            printOut(line + u'\n');
    }

    // Every file, wheels too: its name and size as it starts, the total, speed, time left and
    // mirror while files arrive, and where each came from.
    DownloadReport report([](const QString &line) { printOut(QStringLiteral("    ") + line + u'\n'); });
    SetupPipeline &pipeline = setup.pipeline();
    if (!json) {
        QObject::connect(&setup, &LabSetup::message, &setup,
                         [](const QString &line) { printOut(QStringLiteral("    ") + line + u'\n'); });
        QObject::connect(&pipeline, &SetupPipeline::fetchStarted, &setup,
                         [&report](const QList<DownloadRequest> &downloads) { report.setRequests(downloads); });
        QObject::connect(&pipeline, &SetupPipeline::fileProgress, &setup,
                         [&report](const DownloadProgress &progress) { report.onProgress(progress); });
    }
    const QList<InstallStep> steps = allInstallSteps();
    QObject::connect(
        &pipeline, &SetupPipeline::stepStarted, &setup, [json, &steps](InstallStep step, const QString &title) {
            if (!json)
                printOut(QStringLiteral("[%1/%2] %3\n").arg(steps.indexOf(step) + 1).arg(steps.size()).arg(title));
        });
    QObject::connect(&pipeline, &SetupPipeline::logLine, &setup, [json](const QString &line) {
        // pip's words, live; steps and tfsetup's own notes are already in the step lines.
        if (!json && !line.startsWith(QStringLiteral("== ")))
            printOut(QStringLiteral("    ") + line + u'\n');
    });
    const Result<InstallOutcome> outcome = QCoro::waitFor(setup.install(*profile, options, gpus.pins));
    if (!outcome)
        return failAs(outcome.error(), Failure);
    // Listed for `tfsetup list` and the Welcome page; the environment works without it.
    if (const Status listed = EnvironmentIndex::add(**system, outcome->environmentPath); !listed)
        qWarning().noquote() << "not added to the list of environments:" << listed.error().message;
    // The profile promised a Jupyter kernel: an environment without it is not what was asked for,
    // so an unattended roll-out must not report it green. The environment itself stays; a rerun
    // registers the kernel once the cause is fixed.
    if (in->spec.registerKernel && outcome->kernelFolder.isEmpty()) {
        return failAs(
            {QStringLiteral("kernel_not_registered"),
             Cli::tr("%1 was installed, but its Jupyter kernel could not be registered, so notebooks "
                     "will not find it. %2 Fix that and run the same install again; it only registers "
                     "the kernel.")
                 .arg(outcome->environmentPath, outcome->warnings.isEmpty() ? QString() : outcome->warnings.join(u' ')),
             outcome->environmentPath},
            Failure);
    }
    if (json) {
        printJson(
            QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                      {QStringLiteral("environment"), outcome->environmentPath},
                                      {QStringLiteral("unchanged"), outcome->unchanged},
                                      {QStringLiteral("launchers"), QJsonArray::fromStringList(outcome->launchers)},
                                      {QStringLiteral("kernel_folder"), outcome->kernelFolder},
                                      {QStringLiteral("gpus"), GpuChoice::toJson(gpus)},
                                      {QStringLiteral("warnings"), QJsonArray::fromStringList(outcome->warnings)}}));
    } else {
        printOut(
            outcome->unchanged
                ? Cli::tr("The environment %1 was already complete; nothing changed.\n").arg(outcome->environmentPath)
                : Cli::tr("Installed %1.\n").arg(outcome->environmentPath));
        for (const QString &w : outcome->warnings)
            printErr(Cli::tr("warning: %1").arg(w));
        printOut(Cli::tr("Start it with:\n") + outcome->launchers.filter(QStringLiteral("start-")).join(u'\n') + u'\n');
    }
    return Success;
}

} // namespace tfsetup::cli
