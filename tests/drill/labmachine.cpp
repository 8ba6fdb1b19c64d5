// One unattended lab install in its own process, as `tfsetup install --profile FILE --yes` does it
// (LabSetup fetches the NVIDIA archives through the shared cache, the Installer builds the
// environment), with what a drill needs on top: another sources catalog (so fixture manifests
// can stand in for NVIDIA's pinned ones), and a SIGKILL at a chosen install step or drill point.
//
//   tfsetup_labmachine --profile FILE --prefix DIR --cache DIR --origin nvidia=URL
//                      [--sources sources.json] [--kill-at STEP|POINT]
//   tfsetup_labmachine --repair ENV --cache DIR [--kill-at STEP|POINT]
//   tfsetup_labmachine --remove ENV [--kill-at tombstoned|halfway]
//
// Prints one JSON line: {"ok": true, "environment": …, "unchanged": …, "from_cache": N, "fetched": N}
// or {"ok": false, "code": …, "message": …}. Exit code 0 on success. With --repair, the
// environment is repaired instead: {"ok": true, "healthy": …, "changed": …}; with --remove,
// removed: {"ok": true, "files_removed": N, "kept": [...], "folder_kept": …}.

#include "catalog/knowledge.h"
#include "install/installer.h"
#include "install/labprofile.h"
#include "repair/repair.h"
#include "setup/environments.h"
#include "setup/labsetup.h"
#include "system/realsystem.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>
#include <cstdio>

using namespace tfsetup::core;

namespace {

int report(const QJsonObject &object, int code)
{
    std::fputs(QJsonDocument(object).toJson(QJsonDocument::Compact).constData(), stdout);
    std::fputs("\n", stdout);
    std::fflush(stdout);
    return code;
}

int failure(const Error &error)
{
    return report({{QStringLiteral("ok"), false},
                   {QStringLiteral("code"), error.code},
                   {QStringLiteral("message"), error.message},
                   {QStringLiteral("detail"), error.detail}},
                  1);
}

[[noreturn]] void die()
{
    std::fflush(stdout);
    std::raise(SIGKILL);
    std::abort();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({{QStringLiteral("profile"), QStringLiteral("lab profile"), QStringLiteral("FILE")},
                       {QStringLiteral("prefix"), QStringLiteral("install folder"), QStringLiteral("DIR")},
                       {QStringLiteral("cache"), QStringLiteral("shared download cache"), QStringLiteral("DIR")},
                       {QStringLiteral("origin"), QStringLiteral("ORIGIN=URL"), QStringLiteral("ORIGIN=URL")},
                       {QStringLiteral("sources"), QStringLiteral("sources catalog"), QStringLiteral("FILE")},
                       {QStringLiteral("kill-at"), QStringLiteral("step id or drill point"), QStringLiteral("WHERE")},
                       {QStringLiteral("repair"), QStringLiteral("environment to repair"), QStringLiteral("ENV")},
                       {QStringLiteral("remove"), QStringLiteral("environment to remove"), QStringLiteral("ENV")}});
    parser.process(app);

    RealSystem system;
    const QString killAt = parser.value(QStringLiteral("kill-at"));
    if (parser.isSet(QStringLiteral("remove"))) {
        // A real SIGKILL at the drill point, not the drill's own stop.
        const auto removed = removeEnvironment(system, parser.value(QStringLiteral("remove")), false,
                                               [killAt](const QString &point) {
                                                   if (point == killAt)
                                                       die();
                                                   return false;
                                               });
        if (!removed)
            return failure(removed.error());
        return report({{QStringLiteral("ok"), true},
                       {QStringLiteral("files_removed"), removed->filesRemoved},
                       {QStringLiteral("kept"), QJsonArray::fromStringList(removed->kept)},
                       {QStringLiteral("folder_kept"), removed->folderKept}},
                      0);
    }
    // Loaded as the command line loads it: the built-in catalog or the installed update.
    const auto knowledge = Knowledge::shared();
    if (!knowledge)
        return failure(knowledge.error());
    if (parser.isSet(QStringLiteral("repair"))) {
        Repairer repairer(system, *knowledge);
        if (!killAt.isEmpty()) {
            repairer.setCheckpoint([killAt](RepairStep step) -> Status {
                if (repairStepId(step) == killAt)
                    die();
                return Ok{};
            });
            repairer.setDrillPoint([killAt](const QString &point) {
                if (point == killAt)
                    die();
            });
        }
        RepairOptions options;
        options.environmentPath = parser.value(QStringLiteral("repair"));
        options.cacheDir = parser.value(QStringLiteral("cache"));
        const auto repaired = QCoro::waitFor(repairer.repair(options));
        if (!repaired)
            return failure(repaired.error());
        return report({{QStringLiteral("ok"), true},
                       {QStringLiteral("healthy"), repaired->healthy()},
                       {QStringLiteral("changed"), repaired->changed()}},
                      0);
    }
    auto profile = LabProfile::load(parser.value(QStringLiteral("profile")));
    if (!profile)
        return failure(profile.error());

    LabSetupOptions options;
    options.knowledge = *knowledge;
    options.prefixOverride = parser.value(QStringLiteral("prefix"));
    options.cacheDir = parser.value(QStringLiteral("cache"));
    options.network.resolveTimeout = std::chrono::seconds(60);
    options.network.transfer.probeMirrors = false;
    for (const QString &origin : parser.values(QStringLiteral("origin"))) {
        const qsizetype eq = origin.indexOf(u'=');
        options.network.originOverrides.append({origin.left(eq), QUrl(origin.mid(eq + 1))});
    }
    options.sourcesCatalog = parser.value(QStringLiteral("sources"));

    LabSetup setup(system);
    int fromCache = 0;
    int fetched = 0;
    QObject::connect(&setup, &LabSetup::message, &setup, [&](const QString &line) {
        // The messages are translated; count by the untranslated build's wording.
        if (line.contains(QStringLiteral("already in the download folder, checksum verified")))
            ++fromCache;
        else if (line.contains(QStringLiteral("downloaded from")))
            ++fetched;
    });
    if (!killAt.isEmpty()) {
        setup.pipeline().setInstallCheckpoint([killAt](InstallStep step) -> Status {
            if (installStepId(step) == killAt)
                die();
            return Ok{};
        });
        setup.pipeline().setInstallDrillPoint([killAt](const QString &point) {
            if (point == killAt)
                die();
        });
    }
    const auto outcome = QCoro::waitFor(setup.install(*profile, options));
    if (!outcome)
        return failure(outcome.error());
    return report({{QStringLiteral("ok"), true},
                   {QStringLiteral("environment"), outcome->environmentPath},
                   {QStringLiteral("unchanged"), outcome->unchanged},
                   {QStringLiteral("from_cache"), fromCache},
                   {QStringLiteral("fetched"), fetched}},
                  0);
}
