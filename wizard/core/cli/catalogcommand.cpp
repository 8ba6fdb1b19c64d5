#include "cli/cli.h"

#include "catalog/catalogupdate.h"

#include <QCoro/QCoroTask>
#include <QJsonObject>

namespace tfsetup::core::cli {

namespace {

QJsonValue updateJson(const std::optional<CatalogUpdate> &update)
{
    if (!update)
        return QJsonValue::Null;
    return QJsonObject{{QStringLiteral("version"), update->version},
                       {QStringLiteral("date"), update->date},
                       {QStringLiteral("source"), update->source},
                       {QStringLiteral("installed"), update->installedAt},
                       {QStringLiteral("key_id"), update->keyId}};
}

int runStatus(bool json)
{
    const CatalogStatus s = CatalogUpdates::status(CatalogUpdates::current());
    if (json) {
        QJsonObject o{{QStringLiteral("ok"), true},
                      {QStringLiteral("built_in"), QJsonObject{{QStringLiteral("version"), s.builtInVersion},
                                                               {QStringLiteral("date"), s.builtInDate}}},
                      {QStringLiteral("update_present"), s.updatePresent},
                      {QStringLiteral("update"), updateJson(s.update)},
                      {QStringLiteral("verifies"), s.update.has_value()},
                      {QStringLiteral("in_use"), s.inUse() ? QStringLiteral("update") : QStringLiteral("built-in")},
                      {QStringLiteral("refused"), s.refused ? QJsonValue(errorJson(*s.refused)) : QJsonValue::Null}};
        printJson(QJsonDocument(o));
        return Success;
    }
    QString text = Cli::tr("Built-in catalog: version %1 of %2\n").arg(s.builtInVersion).arg(s.builtInDate);
    if (!s.updatePresent) {
        text += Cli::tr("Installed update: none\n");
    } else if (s.update) {
        text += Cli::tr("Installed update: version %1 of %2, from %3, installed %4; its signature verifies\n")
                    .arg(s.update->version)
                    .arg(s.update->date, s.update->source, s.update->installedAt);
    } else {
        text += Cli::tr("Installed update: does not verify\n");
    }
    if (s.refused)
        text += Cli::tr("Not used: %1\n").arg(s.refused->message);
    text += s.inUse() ? Cli::tr("In use: the installed update\n") : Cli::tr("In use: the built-in catalog\n");
    printOut(text);
    return Success;
}

int runUpdate(const QCommandLineParser &parser, bool json)
{
    TransferOptions transfer;
    transfer.proxy = parser.value(QStringLiteral("proxy"));
    transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    const CatalogUpdateTrust trust = CatalogUpdates::current();
    QString from = parser.value(QStringLiteral("from"));
    if (from.isEmpty())
        from = CatalogUpdates::configuredSource();
    const Result<CatalogUpdateOutcome> outcome = QCoro::waitFor(CatalogUpdates::update(from, transfer, trust));
    if (!outcome)
        return fail(outcome.error(), Failure, json);
    if (json) {
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                            {QStringLiteral("installed"), outcome->installed},
                                            {QStringLiteral("previous_version"), outcome->previousVersion},
                                            {QStringLiteral("update"), updateJson(outcome->update)}}));
    } else if (outcome->installed) {
        printOut(Cli::tr("Installed catalog update version %1 of %2 from %3. tfsetup uses it from now on.\n")
                     .arg(outcome->update.version)
                     .arg(outcome->update.date, outcome->update.source));
    } else {
        printOut(Cli::tr("The catalog is up to date (version %1); nothing was changed.\n").arg(outcome->update.version));
    }
    return Success;
}

} // namespace

int runCatalog(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"),
                                 Cli::tr("status: which catalog is in use and whether the installed update verifies; "
                                         "update: fetch, check and install a signed catalog update."),
                                 QStringLiteral("status|update"));
    parser.addOption({QStringLiteral("from"),
                      Cli::tr("Take the update from this address or file (a lab mirror, a downloaded copy) instead "
                              "of tfsetup's release page."),
                      QStringLiteral("URL|FILE")});
    parser.addOption({QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Show or update the knowledge catalog (TensorFlow's tested "
                                             "configurations, NVIDIA's tables, GPUs, sources). Updates are signed; "
                                             "one that does not verify, or is older than the catalog in use, is "
                                             "refused and the catalog in use stays."));
        code >= 0)
        return code;
    const bool json = parser.isSet(QStringLiteral("json"));
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 1 || (action != u"status" && action != u"update")) {
        printUsageError(Cli::tr("tfsetup catalog: say status or update, for example \"tfsetup catalog status\"."));
        return UsageError;
    }
    if (action == u"status") {
        if (parser.isSet(QStringLiteral("from")) || parser.isSet(QStringLiteral("proxy"))
            || parser.isSet(QStringLiteral("ca-bundle"))) {
            printUsageError(Cli::tr("tfsetup catalog status: --from, --proxy and --ca-bundle belong to \"catalog update\"."));
            return UsageError;
        }
        return runStatus(json);
    }
    return runUpdate(parser, json);
}

} // namespace tfsetup::core::cli
