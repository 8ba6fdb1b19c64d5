#include "cli/cli.h"

#include "catalog/catalogkeys.h"
#include "catalog/catalogupdate.h"
#include "util/inputfile.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>

namespace tfsetup::cli {

namespace {

QJsonValue updateJson(const std::optional<CatalogUpdate> &update)
{
    if (!update)
        return QJsonValue::Null;
    return QJsonObject{
        {QStringLiteral("version"), update->version},
        {QStringLiteral("date"), update->date},
        {QStringLiteral("source"), update->source},
        {QStringLiteral("installed"), update->installedAt},
        {QStringLiteral("key_id"), update->keyId},
        {QStringLiteral("signed_by"), update->signedByRelease ? QStringLiteral("release") : QStringLiteral("lab")},
        {QStringLiteral("signer"), update->signerName}};
}

QJsonObject keyJson(const TrustedKey &key, const QString &root)
{
    return QJsonObject{
        {QStringLiteral("name"), key.name},
        {QStringLiteral("key_id"), key.keyId},
        {QStringLiteral("public_key"), QString::fromLatin1(key.publicKey.toHex())},
        {QStringLiteral("added"), key.added},
        {QStringLiteral("path"),
         root.isEmpty() ? QString() : QDir::toNativeSeparators(CatalogKeys::recordPath(root, key.keyId))}};
}

// "the release key" or "the lab key NAME (ID)".
QString signerText(const CatalogUpdate &update)
{
    return update.signedByRelease ? Cli::tr("tfsetup's release key")
                                  : Cli::tr("the lab key \"%1\" (%2)").arg(update.signerName, update.keyId);
}

int runStatus(bool json)
{
    const CatalogUpdateTrust trust = CatalogUpdates::current();
    const CatalogStatus s = CatalogUpdates::status(trust);
    const QList<TrustedKey> labKeys = trust.trustedLabKeys();
    if (json) {
        QJsonArray keys;
        for (const TrustedKey &key : labKeys)
            keys.append(keyJson(key, {}));
        QJsonObject o{
            {QStringLiteral("ok"), true},
            {QStringLiteral("built_in"),
             QJsonObject{{QStringLiteral("version"), s.builtInVersion}, {QStringLiteral("date"), s.builtInDate}}},
            {QStringLiteral("update_present"), s.updatePresent},
            {QStringLiteral("update"), updateJson(s.update)},
            {QStringLiteral("verifies"), s.update.has_value()},
            {QStringLiteral("in_use"), s.inUse() ? QStringLiteral("update") : QStringLiteral("built-in")},
            {QStringLiteral("refused"), s.refused ? QJsonValue(errorJson(*s.refused)) : QJsonValue::Null},
            {QStringLiteral("release_key_id"), CatalogUpdates::keyId(trust.publicKey)},
            {QStringLiteral("lab_keys"), keys}};
        printJson(QJsonDocument(o));
        return Success;
    }
    QString text = Cli::tr("Built-in catalog: version %1 of %2\n").arg(s.builtInVersion).arg(s.builtInDate);
    if (!s.updatePresent) {
        text += Cli::tr("Installed update: none\n");
    } else if (s.update) {
        text += Cli::tr("Installed update: version %1 of %2, from %3, installed %4; signed with %5, its signature "
                        "verifies\n")
                    .arg(s.update->version)
                    .arg(s.update->date, s.update->source, s.update->installedAt, signerText(*s.update));
    } else {
        text += Cli::tr("Installed update: does not verify\n");
    }
    if (s.refused)
        text += Cli::tr("Not used: %1\n").arg(s.refused->message);
    text += s.inUse() ? Cli::tr("In use: the installed update\n") : Cli::tr("In use: the built-in catalog\n");
    if (labKeys.isEmpty())
        text += Cli::tr("Trusted lab keys: none (updates signed by tfsetup's release key only)\n");
    for (const TrustedKey &key : labKeys)
        text += Cli::tr("Trusted lab key: \"%1\" (%2), added %3\n").arg(key.name, key.keyId, key.added);
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
    if (!outcome->published) {
        if (json) {
            printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                                {QStringLiteral("installed"), false},
                                                {QStringLiteral("published"), false},
                                                {QStringLiteral("address"), trust.defaultUrl},
                                                {QStringLiteral("built_in"), trust.builtInVersion}}));
        } else {
            printOut(Cli::tr("tfsetup's release page has not published a catalog update yet (%1 answers \"not "
                             "found\"). The built-in catalog (version %2) stays in use; nothing was changed.\n"
                             "A lab can publish its own signed catalog: sign it with the lab's key "
                             "(resources/catalog/sign_catalog.py), have an administrator run \"tfsetup catalog "
                             "trust\" with the lab's public key, then take it with \"tfsetup catalog update --from "
                             "URL\" or set catalog/updateFrom in tfsetup's settings.\n")
                         .arg(trust.defaultUrl)
                         .arg(trust.builtInVersion));
        }
        return Success;
    }
    if (json) {
        printJson(QJsonDocument(QJsonObject{{QStringLiteral("ok"), true},
                                            {QStringLiteral("installed"), outcome->installed},
                                            {QStringLiteral("published"), true},
                                            {QStringLiteral("previous_version"), outcome->previousVersion},
                                            {QStringLiteral("update"), updateJson(outcome->update)}}));
    } else if (outcome->installed) {
        printOut(Cli::tr("Installed catalog update version %1 of %2 from %3, signed with %4. tfsetup uses it from "
                         "now on.\n")
                     .arg(outcome->update.version)
                     .arg(outcome->update.date, outcome->update.source, signerText(outcome->update)));
    } else {
        printOut(
            Cli::tr("The catalog is up to date (version %1); nothing was changed.\n").arg(outcome->update.version));
    }
    return Success;
}

int runTrust(const QString &keyArgument, const QString &name, bool json)
{
    QByteArray text;
    if (QFileInfo::exists(keyArgument)) {
        const auto bytes = readInputFile(keyArgument, Cli::tr("The public key file"), CatalogKeys::maxRecordBytes);
        if (!bytes)
            return fail(bytes.error(), Failure, json);
        text = *bytes;
    } else {
        text = keyArgument.toLatin1();
    }
    const auto publicKey = CatalogKeys::parsePublicKey(text);
    if (!publicKey)
        return fail(publicKey.error(), Failure, json);
    const CatalogUpdateTrust trust = CatalogUpdates::current();
    const QString root = trust.keyRoots.value(0);
    const auto key = CatalogKeys::trust(root, *publicKey, name);
    if (!key)
        return fail(key.error(), Failure, json);
    if (json) {
        printJson(
            QJsonDocument(QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("key"), keyJson(*key, root)}}));
    } else {
        printOut(Cli::tr("Trusted the lab key \"%1\" (%2) on this computer: recorded in %3. Every account of this "
                         "computer now accepts catalog updates signed with it (\"tfsetup catalog update --from "
                         "URL\").\n")
                     .arg(key->name, key->keyId, QDir::toNativeSeparators(CatalogKeys::recordPath(root, key->keyId))));
    }
    return Success;
}

int runUntrust(const QString &keyId, bool json)
{
    const CatalogUpdateTrust trust = CatalogUpdates::current();
    const auto key = CatalogKeys::untrust(trust.keyRoots, keyId);
    if (!key)
        return fail(key.error(), Failure, json);
    if (json) {
        printJson(
            QJsonDocument(QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("removed"), keyJson(*key, {})}}));
    } else {
        printOut(Cli::tr("The lab key \"%1\" (%2) is no longer trusted on this computer; a catalog update it signed "
                         "is no longer used.\n")
                     .arg(key->name, key->keyId));
    }
    return Success;
}

} // namespace

int runCatalog(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("action"),
                                 Cli::tr("status: which catalog is in use, whether the installed update verifies and "
                                         "which lab keys are trusted; update: fetch, check and install a signed "
                                         "catalog update; trust KEY: trust a lab's public key (PEM file or 64 hex "
                                         "digits) on this computer, as an administrator; untrust KEY_ID: stop "
                                         "trusting it."),
                                 QStringLiteral("status|update|trust KEY|untrust KEY_ID"));
    parser.addOption({QStringLiteral("from"),
                      Cli::tr("Take the update from this address or file (a lab mirror, a downloaded copy) instead "
                              "of tfsetup's release page."),
                      QStringLiteral("URL|FILE")});
    parser.addOption(
        {QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."), QStringLiteral("URL")});
    parser.addOption({QStringLiteral("ca-bundle"), Cli::tr("Also trust the certificates in this PEM file."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("name"), Cli::tr("With trust: the lab key's name, shown by \"catalog status\"."),
                      QStringLiteral("NAME")});
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
    const bool keyAction = action == u"trust" || action == u"untrust";
    if (keyAction) {
        if (positional.size() != 2) {
            printUsageError(
                action == u"trust"
                    ? Cli::tr("tfsetup catalog trust: give the lab's public key, for example \"sudo tfsetup "
                              "catalog trust lab-public.pem --name Lab\".")
                    : Cli::tr("tfsetup catalog untrust: give the key id \"tfsetup catalog status\" lists."));
            return UsageError;
        }
        if (parser.isSet(QStringLiteral("from")) || parser.isSet(QStringLiteral("proxy"))
            || parser.isSet(QStringLiteral("ca-bundle"))
            || (action == u"untrust" && parser.isSet(QStringLiteral("name")))) {
            printUsageError(Cli::tr("tfsetup catalog %1: --from, --proxy and --ca-bundle belong to \"catalog update\", "
                                    "--name to \"catalog trust\".")
                                .arg(action));
            return UsageError;
        }
        return action == u"trust" ? runTrust(positional.at(1), parser.value(QStringLiteral("name")), json)
                                  : runUntrust(positional.at(1), json);
    }
    if (positional.size() != 1 || (action != u"status" && action != u"update")) {
        printUsageError(Cli::tr("tfsetup catalog: say status, update, trust or untrust, for example \"tfsetup catalog "
                                "status\"."));
        return UsageError;
    }
    if (parser.isSet(QStringLiteral("name"))) {
        printUsageError(Cli::tr("tfsetup catalog %1: --name belongs to \"catalog trust\".").arg(action));
        return UsageError;
    }
    if (action == u"status") {
        if (parser.isSet(QStringLiteral("from")) || parser.isSet(QStringLiteral("proxy"))
            || parser.isSet(QStringLiteral("ca-bundle"))) {
            printUsageError(
                Cli::tr("tfsetup catalog status: --from, --proxy and --ca-bundle belong to \"catalog update\"."));
            return UsageError;
        }
        return runStatus(json);
    }
    return runUpdate(parser, json);
}

} // namespace tfsetup::cli
