// Signed catalog updates: a document signed with a throw-away key made here, accepted, stored
// and read by the loaders; refused for a bad signature, a rollback, a truncated, oversized or
// wrongly typed document and an unreachable origin; a stored update damaged later is ignored.
// Served over loopback HTTP (and a loopback proxy); the command is run as a real process.

#include "catalog/catalog.h"
#include "catalog/catalogkeys.h"
#include "catalog/catalogupdate.h"
#include "catalog/gputable.h"
#include "catalog/knowledge.h"
#include "cli/cli.h"
#include "support/catalogsigning.h"
#include "support/coroutinetest.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <memory>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace tfsetup::core;
using tfsetup::test::awaitTask;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

using TestKey = tfsetup::test::TestSigningKey;

QMap<QString, QByteArray> builtInFiles()
{
    return tfsetup::test::builtInCatalogFiles();
}

// The built-in tensorflow.json without its first release: an update the loaders visibly use.
QMap<QString, QByteArray> changedFiles()
{
    QMap<QString, QByteArray> files = builtInFiles();
    QJsonObject tf = QJsonDocument::fromJson(files.value(u"tensorflow.json"_s)).object();
    QJsonArray releases = tf.value(u"releases"_s).toArray();
    releases.removeFirst();
    tf.insert(u"releases"_s, releases);
    files.insert(u"tensorflow.json"_s, QJsonDocument(tf).toJson());
    return files;
}

QJsonObject documentObject(const TestKey &key, qint64 version, const QMap<QString, QByteArray> &files)
{
    return tfsetup::test::signedCatalogUpdate(key, version, files);
}

QByteArray document(const TestKey &key, qint64 version, const QMap<QString, QByteArray> &files = changedFiles())
{
    return QJsonDocument(documentObject(key, version, files)).toJson();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// QVERIFY2 evaluates its message even when the check passes.
template<typename T>
QByteArray why(const Result<T> &result)
{
    return result ? QByteArray() : (result.error().message + u' ' + result.error().detail).toUtf8();
}

} // namespace

class TestCatalogUpdate : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void goodUpdate_isStoredAndUsedByTheLoaders();
    void builtInFiles_usedWithoutAnUpdate();
    void overHttpThroughProxy_isInstalled();
    void badSignature_isRefused();
    void otherKey_isRefused();
    void olderVersion_isRefused();
    void sameVersion_changesNothing();
    void truncatedDocument_isRefused();
    void oversizedDocument_isRefused();
    void oversizedOverHttp_isRefused();
    void wrongTypedFields_areRefused_data();
    void wrongTypedFields_areRefused();
    void damagedContents_areRefused();
    void unreachableOrigin_namesTheCause();
    void storedUpdateDamagedLater_isIgnored();
    void storedUpdateOlderThanBuiltIn_isIgnored();
    void signingScript_makesADocumentThatVerifies();
    void command_statusAndUpdate_exitStatuses();
    void command_inProcess_installsWithTheTestKey();
    void labKey_isAcceptedBesideTheReleaseKey();
    void keyFiles_malformed_areIgnored();
    void keyFolderThroughLink_isNotFollowed();
    void untrust_removesOnlyRecordsItWrote();
    void trust_deniedFolder_writesNothing();
    void publicKey_pemOrHex_data();
    void publicKey_pemOrHex();
    void defaultAddress404_saysNothingPublished();

private:
    CatalogUpdateTrust trust() const
    {
        CatalogUpdateTrust t;
        t.folder = m_dir->filePath(u"data/catalog"_s);
        t.publicKey = m_key.publicKey();
        t.builtInVersion = 1;
        t.builtInDate = u"2026-12-01"_s;
        return t;
    }
    static Result<CatalogUpdateOutcome> updateFrom(const QString &from, const CatalogUpdateTrust &trust,
                                                   TransferOptions transfer = {})
    {
        auto result = awaitTask(CatalogUpdates::update(from, std::move(transfer), trust), std::chrono::seconds(60));
        return result ? *result : Error{u"watchdog"_s, {}, {}};
    }
    static int builtInReleases()
    {
        return int(Catalog::fromJson(builtInFiles().value(u"tensorflow.json"_s), builtInFiles().value(u"cuda.json"_s),
                                     builtInFiles().value(u"libraries.json"_s), builtInFiles().value(u"routes.json"_s))
                       ->releases()
                       .size());
    }

    TestKey m_key;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestCatalogUpdate::init()
{
    QVERIFY(m_key.isValid());
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    CatalogUpdates::setTrustForTesting(trust());
}

void TestCatalogUpdate::cleanup()
{
    CatalogUpdates::setTrustForTesting(std::nullopt);
    m_dir.reset();
}

void TestCatalogUpdate::goodUpdate_isStoredAndUsedByTheLoaders()
{
    const QString file = m_dir->filePath(u"update.json"_s);
    QVERIFY(writeFile(file, document(m_key, 3)));
    const auto outcome = updateFrom(file, trust());
    QVERIFY2(outcome, why(outcome).constData());
    QVERIFY(outcome->installed);
    QCOMPARE(outcome->update.version, 3);
    QCOMPARE(outcome->previousVersion, 0);
    QVERIFY(QFileInfo::exists(trust().storedPath()));

    const auto knowledge = Knowledge::load();
    QVERIFY(knowledge);
    QVERIFY((*knowledge)->fromUpdate);
    QCOMPARE((*knowledge)->version(), 3);
    QCOMPARE((*knowledge)->catalog.releases().size(), builtInReleases() - 1);
    QVERIFY(!(*knowledge)->gpus.records().isEmpty());
    // A part's own loader reads the path it is given and nothing else: the update reaches a run
    // only through Knowledge::load.
    QCOMPARE(Catalog::load()->releases().size(), builtInReleases());

    const CatalogStatus status = CatalogUpdates::status(trust());
    QVERIFY(status.inUse());
    QCOMPARE(status.update->version, 3);
    QCOMPARE(status.update->date, u"2027-01-15"_s);
    QCOMPARE(status.update->source, QFileInfo(file).absoluteFilePath());
    QVERIFY(!status.update->installedAt.isEmpty());
}

void TestCatalogUpdate::builtInFiles_usedWithoutAnUpdate()
{
    const auto knowledge = Knowledge::load();
    QVERIFY(knowledge);
    QVERIFY(!(*knowledge)->fromUpdate);
    QCOMPARE((*knowledge)->catalog.releases().size(), builtInReleases());
    const CatalogStatus status = CatalogUpdates::status(trust());
    QVERIFY(!status.updatePresent);
    QVERIFY(!status.inUse());
    // A folder other than the built-in catalog is read as it is: a missing file there is named.
    const auto missing = Knowledge::load(m_dir->path());
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, u"catalog_missing"_s);
    QVERIFY(missing.error().message.contains(u"tensorflow.json"_s));
}

void TestCatalogUpdate::overHttpThroughProxy_isInstalled()
{
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/lab/catalog-update.json", Response::bytes(document(m_key, 4), "application/json"));
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    TransferOptions transfer;
    transfer.proxy = QString::fromLatin1(proxy.proxyUrl());
    const QString url = server.url(u"/lab/catalog-update.json"_s).toString();
    const auto outcome = updateFrom(url, trust(), transfer);
    QVERIFY2(outcome, why(outcome).constData());
    QVERIFY(outcome->installed);
    QCOMPARE(outcome->update.source, url);
    QCOMPARE(proxy.forwardCount(), 1);
    QCOMPARE(CatalogUpdates::status(trust()).update->version, 4);
}

void TestCatalogUpdate::badSignature_isRefused()
{
    QJsonObject doc = documentObject(m_key, 3, changedFiles());
    QJsonObject files = doc.value(u"files"_s).toObject();
    files.insert(u"cuda.json"_s, files.value(u"cuda.json"_s).toString().replace(u"11.2"_s, u"11.3"_s));
    doc.insert(u"files"_s, files);
    const auto result = CatalogUpdates::install(QJsonDocument(doc).toJson(), u"lab"_s, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_signature"_s);
    QVERIFY(result.error().message.contains(u"signature"_s));
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
    QCOMPARE((*Knowledge::load())->catalog.releases().size(), builtInReleases());
}

void TestCatalogUpdate::otherKey_isRefused()
{
    const TestKey other;
    const auto result = CatalogUpdates::install(document(other, 3), u"lab"_s, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_signature"_s);
    QVERIFY(result.error().detail.contains(CatalogUpdates::keyId(other.publicKey())));
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
}

void TestCatalogUpdate::olderVersion_isRefused()
{
    QVERIFY(CatalogUpdates::install(document(m_key, 5), u"lab"_s, trust()));
    const auto older = CatalogUpdates::install(document(m_key, 4), u"lab"_s, trust());
    QVERIFY(!older);
    QCOMPARE(older.error().code, u"catalog_update_rollback"_s);
    QCOMPARE(CatalogUpdates::status(trust()).update->version, 5);

    // Below the built-in catalog, with nothing installed.
    CatalogUpdateTrust newer = trust();
    newer.folder = m_dir->filePath(u"other"_s);
    newer.builtInVersion = 9;
    const auto belowBuiltIn = CatalogUpdates::install(document(m_key, 8), u"lab"_s, newer);
    QVERIFY(!belowBuiltIn);
    QCOMPARE(belowBuiltIn.error().code, u"catalog_update_rollback"_s);
    QVERIFY(!QFileInfo::exists(newer.storedPath()));
}

void TestCatalogUpdate::sameVersion_changesNothing()
{
    QVERIFY(CatalogUpdates::install(document(m_key, 5), u"first"_s, trust()));
    const auto again = CatalogUpdates::install(document(m_key, 5), u"second"_s, trust());
    QVERIFY(again);
    QVERIFY(!again->installed);
    QCOMPARE(CatalogUpdates::status(trust()).update->source, u"first"_s);
}

void TestCatalogUpdate::truncatedDocument_isRefused()
{
    const QByteArray whole = document(m_key, 3);
    const QString file = m_dir->filePath(u"cut.json"_s);
    QVERIFY(writeFile(file, whole.left(whole.size() / 2)));
    const auto result = updateFrom(file, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_malformed"_s);
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
}

void TestCatalogUpdate::oversizedDocument_isRefused()
{
    const QString file = m_dir->filePath(u"big.json"_s);
    QVERIFY(writeFile(file, QByteArray(CatalogUpdates::maxDocumentBytes + 1, ' ')));
    const auto result = updateFrom(file, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_too_large"_s);
    const auto direct = CatalogUpdates::verify(QByteArray(CatalogUpdates::maxDocumentBytes + 1, ' '), trust(), u"x"_s);
    QCOMPARE(direct.error().code, u"catalog_update_too_large"_s);
}

void TestCatalogUpdate::oversizedOverHttp_isRefused()
{
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/big.json",
                 Response::bytes(QByteArray(CatalogUpdates::maxDocumentBytes + 4096, ' '), "application/json"));
    const auto result = updateFrom(server.url(u"/big.json"_s).toString(), trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_too_large"_s);
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
}

void TestCatalogUpdate::wrongTypedFields_areRefused_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value"); // Undefined: the field is removed
    QTest::addColumn<QString>("named");
    QTest::newRow("version as text") << u"version"_s << QJsonValue(u"3"_s) << u"version"_s;
    QTest::newRow("version zero") << u"version"_s << QJsonValue(0) << u"version"_s;
    QTest::newRow("files as a list") << u"files"_s << QJsonValue(QJsonArray{u"a"_s}) << u"files"_s;
    QTest::newRow("no files") << u"files"_s << QJsonValue(QJsonValue::Undefined) << u"files"_s;
    QTest::newRow("date not a date") << u"date"_s << QJsonValue(u"15.01.2027"_s) << u"date"_s;
    QTest::newRow("schema 2") << u"schema"_s << QJsonValue(2) << u"schema"_s;
    QTest::newRow("other format") << u"format"_s << QJsonValue(u"something-else"_s) << u"format"_s;
    QTest::newRow("signature as text") << u"signature"_s << QJsonValue(u"AAAA"_s) << u"signature"_s;
}

void TestCatalogUpdate::wrongTypedFields_areRefused()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QString, named);
    QJsonObject doc = documentObject(m_key, 3, changedFiles());
    if (value.isUndefined())
        doc.remove(field);
    else
        doc.insert(field, value);
    const auto result = CatalogUpdates::install(QJsonDocument(doc).toJson(), u"lab"_s, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"catalog_update_malformed"_s);
    QVERIFY2(result.error().message.contains(named), qPrintable(result.error().message));
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
}

void TestCatalogUpdate::damagedContents_areRefused()
{
    // Correctly signed, yet a file is not what its loader reads: never installed.
    QMap<QString, QByteArray> files = changedFiles();
    files.insert(u"gpus.json"_s, "[1, 2, 3]");
    const auto notObject = CatalogUpdates::install(document(m_key, 3, files), u"lab"_s, trust());
    QVERIFY(!notObject);
    QCOMPARE(notObject.error().code, u"catalog_update_contents"_s);
    QVERIFY(notObject.error().message.contains(u"gpus.json"_s));

    files = changedFiles();
    files.remove(u"tflog.json"_s);
    const auto missing = CatalogUpdates::install(document(m_key, 3, files), u"lab"_s, trust());
    QVERIFY(!missing);
    QCOMPARE(missing.error().code, u"catalog_update_malformed"_s);
    QVERIFY(missing.error().message.contains(u"tflog.json"_s));
    QVERIFY(!QFileInfo::exists(trust().storedPath()));
}

void TestCatalogUpdate::unreachableOrigin_namesTheCause()
{
    const QString url = u"http://127.0.0.1:%1/catalog-update.json"_s.arg(tfsetup::test::closedLoopbackPort());
    const auto result = updateFrom(url, trust());
    QVERIFY(!result);
    QCOMPARE(result.error().code, u"connect"_s);
    QVERIFY(!result.error().message.isEmpty());
    QVERIFY(result.error().detail.contains(url));
    QVERIFY(!QFileInfo::exists(trust().storedPath()));

    const auto missingFile = updateFrom(m_dir->filePath(u"nothing.json"_s), trust());
    QVERIFY(!missingFile);
    QCOMPARE(missingFile.error().code, u"catalog_update_unreadable"_s);
}

void TestCatalogUpdate::storedUpdateDamagedLater_isIgnored()
{
    QVERIFY(CatalogUpdates::install(document(m_key, 3), u"lab"_s, trust()));
    QCOMPARE((*Knowledge::load())->catalog.releases().size(), builtInReleases() - 1);

    // One release's version changed on disk, inside the signed text.
    QFile stored(trust().storedPath());
    QVERIFY(stored.open(QIODevice::ReadOnly));
    QByteArray bytes = stored.readAll();
    stored.close();
    const qsizetype at = bytes.indexOf("2.1");
    QVERIFY(at > 0);
    bytes[at + 2] = '9';
    QVERIFY(writeFile(trust().storedPath(), bytes));

    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"installed update is ignored.*signature"_s));
    const auto knowledge = Knowledge::load();
    QVERIFY(knowledge);
    QCOMPARE((*knowledge)->catalog.releases().size(), builtInReleases());
    const CatalogStatus status = CatalogUpdates::status(trust());
    QVERIFY(status.updatePresent);
    QVERIFY(!status.inUse());
    QCOMPARE(status.refused->code, u"catalog_update_signature"_s);

    // Cut short on disk: ignored too.
    QVERIFY(writeFile(trust().storedPath(), bytes.left(100)));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"installed update is ignored"_s));
    QVERIFY(!(*Knowledge::load())->fromUpdate);
    QCOMPARE(CatalogUpdates::status(trust()).refused->code, u"catalog_update_malformed"_s);
}

void TestCatalogUpdate::storedUpdateOlderThanBuiltIn_isIgnored()
{
    QVERIFY(CatalogUpdates::install(document(m_key, 3), u"lab"_s, trust()));
    // A newer tfsetup whose built-in catalog is version 3 or later.
    CatalogUpdateTrust upgraded = trust();
    upgraded.builtInVersion = 3;
    CatalogUpdates::setTrustForTesting(upgraded);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"installed update is ignored"_s));
    QCOMPARE((*Knowledge::load())->catalog.releases().size(), builtInReleases());
    QCOMPARE(CatalogUpdates::status(upgraded).refused->code, u"catalog_update_superseded"_s);
}

void TestCatalogUpdate::signingScript_makesADocumentThatVerifies()
{
    const QString keyFile = m_dir->filePath(u"throwaway.pem"_s);
    QVERIFY(m_key.writePem(keyFile));
    const QString script = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/resources/catalog/sign_catalog.py"_s;
    const QString out = m_dir->filePath(u"signed.json"_s);
    QProcess p;
    p.start(u"python3"_s,
            {script, u"--key"_s, keyFile, u"--version"_s, u"7"_s, u"--date"_s, u"2027-02-01"_s, u"--out"_s, out});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    QProcess pub;
    pub.start(u"python3"_s, {script, u"--key"_s, keyFile, u"--print-public-key"_s});
    QVERIFY(pub.waitForFinished(60000));
    QCOMPARE(pub.readAllStandardOutput().trimmed(), m_key.publicKey().toHex());

    const auto outcome = updateFrom(out, trust());
    QVERIFY2(outcome, why(outcome).constData());
    QCOMPARE(outcome->update.version, 7);
    QCOMPARE(outcome->update.date, u"2027-02-01"_s);
    QCOMPARE(outcome->update.files, builtInFiles());
}

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runBinary(const QStringList &arguments)
{
    QProcess p;
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), QStringList{u"catalog"_s} + arguments);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// Runs a command in this process (where the test key is trusted) with stdout in a file.
Run runInProcess(const QStringList &arguments, const QString &capture)
{
    Run r;
    std::fflush(stdout);
    const int saved = dup(fileno(stdout));
    FILE *f = std::fopen(QFile::encodeName(capture).constData(), "wb");
    if (!f)
        return r;
    dup2(fileno(f), fileno(stdout));
    r.exitCode = tfsetup::cli::dispatch(QStringList{u"tfsetup"_s, u"catalog"_s} + arguments);
    std::fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    std::fclose(f);
    QFile read(capture);
    if (read.open(QIODevice::ReadOnly))
        r.out = read.readAll();
    return r;
}

} // namespace

void TestCatalogUpdate::command_statusAndUpdate_exitStatuses()
{
    // The real binary trusts the release key only, and its data folder is this test's own.
    const Run status = runBinary({u"status"_s, u"--json"_s});
    QCOMPARE(status.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(status.out).object();
    QCOMPARE(o.value(u"ok"_s).toBool(), true);
    QVERIFY(o.value(u"built_in"_s).toObject().value(u"version"_s).toInteger() >= 1);
    QVERIFY(!o.value(u"built_in"_s).toObject().value(u"date"_s).toString().isEmpty());
    QVERIFY(o.value(u"update"_s).isNull());
    QCOMPARE(o.value(u"in_use"_s).toString(), u"built-in"_s);

    const QString file = m_dir->filePath(u"test-signed.json"_s);
    QVERIFY(writeFile(file, document(m_key, 1000)));
    const Run refused = runBinary({u"update"_s, u"--from"_s, file, u"--json"_s});
    QCOMPARE(refused.exitCode, 1);
    QCOMPARE(QJsonDocument::fromJson(refused.out).object().value(u"error"_s).toObject().value(u"code"_s).toString(),
             u"catalog_update_signature"_s);
    QVERIFY(refused.err.contains("error:"));

    QCOMPARE(runBinary({u"update"_s, u"--from"_s, m_dir->filePath(u"nothing.json"_s)}).exitCode, 1);
    const Run device = runBinary({u"update"_s, u"--from"_s, u"/dev/zero"_s, u"--json"_s});
    QCOMPARE(device.exitCode, 1);
    QCOMPARE(QJsonDocument::fromJson(device.out).object().value(u"error"_s).toObject().value(u"code"_s).toString(),
             u"catalog_update_unreadable"_s);
    const QString closed = u"http://127.0.0.1:%1/catalog-update.json"_s.arg(tfsetup::test::closedLoopbackPort());
    const Run unreachable = runBinary({u"update"_s, u"--from"_s, closed, u"--json"_s});
    QCOMPARE(unreachable.exitCode, 1);
    QCOMPARE(QJsonDocument::fromJson(unreachable.out).object().value(u"error"_s).toObject().value(u"code"_s).toString(),
             u"connect"_s);
    QCOMPARE(runBinary({}).exitCode, 2);
    QCOMPARE(runBinary({u"refresh"_s}).exitCode, 2);
    QCOMPARE(runBinary({u"status"_s, u"--from"_s, file}).exitCode, 2);
    const Run help = runBinary({u"--help"_s});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--from"));
}

void TestCatalogUpdate::command_inProcess_installsWithTheTestKey()
{
    const QString file = m_dir->filePath(u"good.json"_s);
    QVERIFY(writeFile(file, document(m_key, 6)));
    const QString capture = m_dir->filePath(u"stdout.txt"_s);
    const Run update = runInProcess({u"update"_s, u"--from"_s, file, u"--json"_s}, capture);
    QCOMPARE(update.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(update.out).object().value(u"installed"_s).toBool(), true);

    const Run status = runInProcess({u"status"_s, u"--json"_s}, capture);
    QCOMPARE(status.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(status.out).object();
    QCOMPARE(o.value(u"verifies"_s).toBool(), true);
    QCOMPARE(o.value(u"in_use"_s).toString(), u"update"_s);
    QCOMPARE(o.value(u"update"_s).toObject().value(u"version"_s).toInteger(), 6);
    QCOMPARE(o.value(u"update"_s).toObject().value(u"source"_s).toString(), QFileInfo(file).absoluteFilePath());

    const Run older = runInProcess({u"update"_s, u"--from"_s, file}, capture);
    QCOMPARE(older.exitCode, 0); // the same version: nothing to do
    QVERIFY(writeFile(file, document(m_key, 2)));
    QCOMPARE(runInProcess({u"update"_s, u"--from"_s, file, u"--json"_s}, capture).exitCode, 1);
}

namespace {

// The PEM `openssl pkey -pubout` writes for a raw Ed25519 key.
QByteArray publicPem(const QByteArray &raw)
{
    const QByteArray der = QByteArray::fromHex("302a300506032b6570032100") + raw;
    return "-----BEGIN PUBLIC KEY-----\n" + der.toBase64() + "\n-----END PUBLIC KEY-----\n";
}

} // namespace

void TestCatalogUpdate::labKey_isAcceptedBesideTheReleaseKey()
{
    const TestKey lab;
    const TestKey stranger;
    CatalogUpdateTrust withLab = trust();
    withLab.labKeys.append(TrustedKey{u"Physics lab"_s, CatalogUpdates::keyId(lab.publicKey()), lab.publicKey(), {}});

    const auto byLab = CatalogUpdates::verify(document(lab, 3), withLab, u"lab"_s);
    QVERIFY2(byLab, why(byLab).constData());
    QVERIFY(!byLab->signedByRelease);
    QCOMPARE(byLab->signerName, u"Physics lab"_s);
    const auto byRelease = CatalogUpdates::verify(document(m_key, 3), withLab, u"release"_s);
    QVERIFY2(byRelease, why(byRelease).constData());
    QVERIFY(byRelease->signedByRelease);

    // A key nobody trusted: the message says who can fix it.
    const auto unknown = CatalogUpdates::install(document(stranger, 3), u"elsewhere"_s, withLab);
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code, u"catalog_update_signature"_s);
    QVERIFY(unknown.error().message.contains(u"tfsetup catalog trust"_s));
    QVERIFY(unknown.error().detail.contains(CatalogUpdates::keyId(lab.publicKey())));

    // A lab-signed document changed afterwards; the lab's id on another key's signature.
    QJsonObject changed = documentObject(lab, 3, changedFiles());
    changed.insert(u"version"_s, 4);
    QCOMPARE(CatalogUpdates::verify(QJsonDocument(changed).toJson(), withLab, u"lab"_s).error().code,
             u"catalog_update_signature"_s);
    QJsonObject forged = documentObject(stranger, 3, changedFiles());
    QJsonObject signature = forged.value(u"signature"_s).toObject();
    signature.insert(u"key_id"_s, CatalogUpdates::keyId(lab.publicKey()));
    forged.insert(u"signature"_s, signature);
    QCOMPARE(CatalogUpdates::verify(QJsonDocument(forged).toJson(), withLab, u"lab"_s).error().code,
             u"catalog_update_signature"_s);

    // Installed, then the key is no longer trusted: the stored update is ignored, never rolled back.
    QVERIFY(CatalogUpdates::install(document(lab, 5), u"lab"_s, withLab));
    QCOMPARE(CatalogUpdates::status(withLab).update->signerName, u"Physics lab"_s);
    QCOMPARE(CatalogUpdates::install(document(lab, 4), u"lab"_s, withLab).error().code, u"catalog_update_rollback"_s);
    QCOMPARE(CatalogUpdates::status(trust()).refused->code, u"catalog_update_signature"_s);
}

void TestCatalogUpdate::keyFiles_malformed_areIgnored()
{
    const QString root = m_dir->filePath(u"etc-xdg"_s);
    const TestKey lab;
    const auto good = CatalogKeys::trust(root, lab.publicKey(), u"Lab"_s);
    QVERIFY2(good, why(good).constData());
    const QString folder = root + u'/' + CatalogKeys::folderBelowRoot();
    const TestKey other;
    const QString otherId = CatalogUpdates::keyId(other.publicKey());
    const auto record = [&](const QString &keyId, const QJsonValue &publicKey) {
        return QJsonDocument(QJsonObject{{u"name"_s, u"X"_s}, {u"key_id"_s, keyId}, {u"public_key"_s, publicKey}})
            .toJson();
    };
    QVERIFY(writeFile(folder + u"/junk.json"_s, "not json {"));
    QVERIFY(writeFile(folder + u"/list.json"_s, "[1, 2]"));
    QVERIFY(writeFile(folder + u"/"_s + otherId + u".json"_s, record(otherId, 5)));
    QVERIFY(writeFile(folder + u"/aaaaaaaaaaaaaaaa.json"_s,
                      record(u"aaaaaaaaaaaaaaaa"_s, QString::fromLatin1(other.publicKey().toHex()))));
    QVERIFY(writeFile(folder + u"/renamed.json"_s, record(otherId, QString::fromLatin1(other.publicKey().toHex()))));
    QVERIFY(writeFile(folder + u"/big.json"_s, QByteArray(CatalogKeys::maxRecordBytes + 10, ' ')));
    // A link to a well-formed record elsewhere is not followed.
    QVERIFY(writeFile(m_dir->filePath(u"elsewhere.json"_s),
                      record(otherId, QString::fromLatin1(other.publicKey().toHex()))));
    QVERIFY(QFile::link(m_dir->filePath(u"elsewhere.json"_s), folder + u"/linked.json"_s));
    for (int i = 0; i < 7; ++i)
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"trusted-key file is ignored"_s));
    const QList<TrustedKey> keys = CatalogKeys::read({root});
    QCOMPARE(keys.size(), 1);
    QCOMPARE(keys.first().keyId, good->keyId);
    QCOMPARE(keys.first().name, u"Lab"_s);
    QCOMPARE(keys.first().publicKey, lab.publicKey());
    // The same reasons are not logged again.
    QCOMPARE(CatalogKeys::read({root}).size(), 1);
}

void TestCatalogUpdate::keyFolderThroughLink_isNotFollowed()
{
    const QString root = m_dir->filePath(u"etc-xdg"_s);
    const QString elsewhere = m_dir->filePath(u"planted"_s);
    const TestKey lab;
    QVERIFY(CatalogKeys::trust(elsewhere, lab.publicKey(), u"Planted"_s));
    QVERIFY(QDir().mkpath(root + u"/tfsetup"_s));
    QVERIFY(
        QFile::link(elsewhere + u'/' + CatalogKeys::folderBelowRoot(), root + u'/' + CatalogKeys::folderBelowRoot()));
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"trusted-key file is ignored.*path_through_link"_s));
    QVERIFY(CatalogKeys::read({root}).isEmpty());

    const TestKey other;
    const auto written = CatalogKeys::trust(root, other.publicKey(), u"Lab"_s);
    QVERIFY(!written);
    QCOMPARE(written.error().code, u"path_through_link"_s);
    QCOMPARE(QDir(elsewhere + u'/' + CatalogKeys::folderBelowRoot()).entryList(QDir::Files).size(), 1);
}

void TestCatalogUpdate::untrust_removesOnlyRecordsItWrote()
{
    const QString first = m_dir->filePath(u"etc-a"_s);
    const QString second = m_dir->filePath(u"etc-b"_s);
    const TestKey lab;
    const auto key = CatalogKeys::trust(second, lab.publicKey(), u"Lab"_s);
    QVERIFY(key);
    QCOMPARE(CatalogKeys::read({first, second}).size(), 1);
    const auto removed = CatalogKeys::untrust({first, second}, key->keyId.toUpper());
    QVERIFY2(removed, why(removed).constData());
    QCOMPARE(removed->name, u"Lab"_s);
    QVERIFY(!QFileInfo::exists(CatalogKeys::recordPath(second, key->keyId)));
    QCOMPARE(CatalogKeys::untrust({first, second}, key->keyId).error().code, u"catalog_key_unknown"_s);
    QCOMPARE(CatalogKeys::untrust({first, second}, u"../../etc/passwd"_s).error().code, u"catalog_key_unknown"_s);

    // A file of that name that is not tfsetup's record stays.
    const QString foreign = CatalogKeys::recordPath(first, key->keyId);
    QVERIFY(QDir().mkpath(QFileInfo(foreign).absolutePath()));
    QVERIFY(writeFile(foreign, "someone else's notes"));
    QCOMPARE(CatalogKeys::untrust({first, second}, key->keyId).error().code, u"catalog_key_not_ours"_s);
    QVERIFY(QFileInfo::exists(foreign));
}

void TestCatalogUpdate::trust_deniedFolder_writesNothing()
{
    const TestKey lab;
    // A file where the key folder belongs: no account, the superuser included, can record there.
    const QString blocked = m_dir->filePath(u"etc-blocked"_s);
    QVERIFY(QDir().mkpath(blocked));
    {
        QFile inTheWay(blocked + u"/tfsetup"_s);
        QVERIFY(inTheWay.open(QIODevice::WriteOnly));
        inTheWay.write("not a folder");
    }
    const auto refused = CatalogKeys::trust(blocked, lab.publicKey(), u"Lab"_s);
    QVERIFY(!refused);
    QVERIFY2(!refused.error().message.isEmpty(), qPrintable(refused.error().code));
    QCOMPARE(QDir(blocked).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{u"tfsetup"_s});
    QVERIFY(CatalogKeys::read({blocked}).isEmpty());

    // A folder the account may not write: the message says to run it as an administrator. The
    // superuser writes any folder, so this half only means something for other accounts.
    if (geteuid() != 0) {
        const QString root = m_dir->filePath(u"etc-readonly"_s);
        QVERIFY(QDir().mkpath(root));
        QVERIFY(QFile::setPermissions(root, QFile::ReadOwner | QFile::ExeOwner));
        const auto denied = CatalogKeys::trust(root, lab.publicKey(), u"Lab"_s);
        QFile::setPermissions(root, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(!denied);
        QCOMPARE(denied.error().code, u"catalog_trust_denied"_s);
        QVERIFY(denied.error().message.contains(u"administrator"_s));
        QVERIFY(QDir(root).isEmpty());
    }
}

void TestCatalogUpdate::publicKey_pemOrHex_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("code"); // empty: accepted
    const TestKey key;
    QTest::newRow("pem") << publicPem(key.publicKey()) << QString();
    QTest::newRow("hex") << QByteArray(key.publicKey().toHex() + '\n') << QString();
    QTest::newRow("hex upper") << key.publicKey().toHex().toUpper() << QString();
    QTest::newRow("private pem") << QByteArray(
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n")
                                 << u"catalog_key_private"_s;
    QTest::newRow("short hex") << key.publicKey().toHex().left(62) << u"catalog_key_invalid"_s;
    QTest::newRow("hex not hex") << QByteArray(64, 'z') << u"catalog_key_invalid"_s;
    QTest::newRow("rsa-like pem") << QByteArray("-----BEGIN PUBLIC KEY-----\n" + QByteArray(60, 'A')
                                                + "\n-----END PUBLIC KEY-----\n")
                                  << u"catalog_key_invalid"_s;
    QTest::newRow("x25519 pem") << QByteArray(
        "-----BEGIN PUBLIC KEY-----\n"
        + QByteArray(QByteArray::fromHex("302a300506032b656e032100") + key.publicKey()).toBase64()
        + "\n-----END PUBLIC KEY-----\n")
                                << u"catalog_key_invalid"_s;
    QTest::newRow("empty") << QByteArray() << u"catalog_key_invalid"_s;
}

void TestCatalogUpdate::publicKey_pemOrHex()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, code);
    const auto key = CatalogKeys::parsePublicKey(text);
    if (code.isEmpty()) {
        QVERIFY2(key, why(key).constData());
        QCOMPARE(key->size(), 32);
    } else {
        QVERIFY(!key);
        QCOMPARE(key.error().code, code);
    }
}

void TestCatalogUpdate::defaultAddress404_saysNothingPublished()
{
    LoopbackServer server;
    QVERIFY(server.start());
    CatalogUpdateTrust withDefault = trust();
    withDefault.defaultUrl = server.url(u"/releases/latest/download/catalog-update.json"_s).toString();
    CatalogUpdates::setTrustForTesting(withDefault);
    const auto nothing = updateFrom({}, withDefault);
    QVERIFY2(nothing, why(nothing).constData());
    QVERIFY(!nothing->published);
    QVERIFY(!nothing->installed);
    QVERIFY(!QFileInfo::exists(trust().storedPath()));

    // The same 404 at an address the user gave is an error.
    const auto explicitly = updateFrom(withDefault.defaultUrl, withDefault);
    QVERIFY(!explicitly);
    QCOMPARE(explicitly.error().code, u"http_error"_s);

    const QString capture = m_dir->filePath(u"stdout.txt"_s);
    const Run json = runInProcess({u"update"_s, u"--json"_s}, capture);
    QCOMPARE(json.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(json.out).object();
    QCOMPARE(o.value(u"ok"_s).toBool(), true);
    QCOMPARE(o.value(u"installed"_s).toBool(true), false);
    QCOMPARE(o.value(u"published"_s).toBool(true), false);
    const Run text = runInProcess({u"update"_s}, capture);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("has not published a catalog update yet") && text.out.contains("--from"),
             text.out.constData());
    QCOMPARE(runInProcess({u"update"_s, u"--from"_s, withDefault.defaultUrl, u"--json"_s}, capture).exitCode, 1);

    // Something published there that does not verify is still refused.
    server.route("/releases/latest/download/catalog-update.json", Response::bytes("{}", "application/json"));
    QCOMPARE(updateFrom({}, withDefault).error().code, u"catalog_update_malformed"_s);
}

QTEST_GUILESS_MAIN(TestCatalogUpdate)
#include "test_catalogupdate.moc"
