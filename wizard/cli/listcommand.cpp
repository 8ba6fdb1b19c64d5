#include "cli/cli.h"

#include "catalog/knowledge.h"
#include "detect/detector.h"
#include "setup/environments.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QJsonArray>

namespace tfsetup::cli {

int runList(const QStringList &arguments, const KnowledgeResult &knowledge)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("folder"),
                      Cli::tr("Also look in DIR, an environment or a folder of environments (repeatable)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("hardware"),
                      Cli::tr("Look for newer TensorFlow releases for the machine described in FILE (the output of "
                              "tfsetup detect --json) instead of this one."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("no-updates"), Cli::tr("Do not look for newer TensorFlow releases (no hardware detection).")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    addSystemOptions(parser);
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("List every environment tfsetup made: route, TensorFlow, Python, CUDA "
                                             "and cuDNN, size on disk, the last verify, and whether a newer "
                                             "TensorFlow fits this machine on the same route."));
        code >= 0)
        return code;
    const bool json = parser.isSet(QStringLiteral("json"));

    auto system = systemFromOptions(parser);
    if (!system)
        return fail(system.error(), UsageError, json);
    ListOptions options;
    for (const QString &folder : parser.values(QStringLiteral("folder")))
        options.folders.append(
            QDir::fromNativeSeparators(parser.isSet(QStringLiteral("root")) ? folder : QDir(folder).absolutePath()));
    QList<EnvironmentListing> listings = listEnvironments(**system, options);

    if (!parser.isSet(QStringLiteral("no-updates"))) {
        if (!knowledge)
            return fail(knowledge.error(), Failure, json);
        HardwareReport report;
        if (parser.isSet(QStringLiteral("hardware"))) {
            auto parsed = readHardwareFile(parser.value(QStringLiteral("hardware")));
            if (!parsed)
                return fail(parsed.error(), Failure, json);
            report = *parsed;
        } else {
            report = QCoro::waitFor(detectHardware(**system));
        }
        findNewerTensorflow(listings, (*knowledge)->catalog, &(*knowledge)->gpus, report);
    }

    if (json) {
        QJsonArray list;
        for (const EnvironmentListing &l : std::as_const(listings))
            list.append(l.toJson());
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("environments"), list}}));
    } else {
        printOut(listText(listings));
    }
    return Success;
}

} // namespace tfsetup::cli
