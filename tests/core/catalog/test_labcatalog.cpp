// A lab's own catalog, end to end with the shipped binary: the lab makes an Ed25519 key, signs a
// copy of the catalog that names its loopback mirror and pins the manifests it serves
// (sign_catalog.py), an administrator trusts the public key (`tfsetup catalog trust`, recorded in
// the machine's config folder: XDG_CONFIG_DIRS here), the machine takes the update and installs a
// toolkit route (CUDA 11.8 + cuDNN 8.6 archives) from the mirror without --origin, --mirror or
// --sources. Before the key is trusted, and for a tampered copy, the update is refused. The
// release script makes an update the binary accepts once its key is trusted.

#include "support/labmirror.h"

#include "install/environmentrecord.h"
#include "support/catalogsigning.h"

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using tfsetup::test::LabMirror;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    QString errorCode() const { return json().value(u"error"_s).toObject().value(u"code"_s).toString(); }
    QByteArray all() const { return out + err; }
};

Run runProcess(const QString &program, const QStringList &arguments, const QProcessEnvironment &env = {})
{
    QProcess p;
    if (!env.isEmpty())
        p.setProcessEnvironment(env);
    p.start(program, arguments);
    Run r;
    if (!p.waitForFinished(180000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

qint64 builtInVersion()
{
    return QJsonDocument::fromJson(readFile(u":/resources/catalog/release.json"_s))
        .object()
        .value(u"version"_s)
        .toInteger();
}

} // namespace

class TestLabCatalog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void labSignedCatalog_installsToolkitRouteFromTheLabMirror();

private:
    Run tfsetup(const QStringList &arguments) const
    {
        return runProcess(qEnvironmentVariable("TFSETUP_BINARY"), arguments, m_env);
    }
    Run script(const QString &name, const QStringList &arguments) const
    {
        return runProcess(u"python3"_s, QStringList{m_source + u"/resources/catalog/"_s + name} + arguments);
    }
    // A copy of the built-in catalog (as this build embeds it) with release.json's version.
    bool writeCatalog(const QString &dir, qint64 version) const;

    QTemporaryDir m_dir;
    QProcessEnvironment m_env;
    QString m_source;
};

void TestLabCatalog::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY") || qEnvironmentVariableIsEmpty("TFSETUP_SOURCE_DIR"))
        QSKIP("TFSETUP_BINARY and TFSETUP_SOURCE_DIR are not set (run through ctest)");
    if (QStandardPaths::findExecutable(u"openssl"_s).isEmpty()
        || QStandardPaths::findExecutable(u"python3"_s).isEmpty())
        QSKIP("openssl and python3 are needed to make and use the lab's key");
    QVERIFY(m_dir.isValid());
    m_source = qEnvironmentVariable("TFSETUP_SOURCE_DIR");
    // The machine: its own home, its own data folders and its own system config folder, where
    // `catalog trust` records the lab key for every account.
    m_env = QProcessEnvironment::systemEnvironment();
    m_env.insert(u"HOME"_s, m_dir.filePath(u"home"_s));
    m_env.insert(u"XDG_DATA_HOME"_s, m_dir.filePath(u"home/data"_s));
    m_env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"home/config"_s));
    m_env.insert(u"XDG_CACHE_HOME"_s, m_dir.filePath(u"home/cache"_s));
    m_env.insert(u"XDG_CONFIG_DIRS"_s, m_dir.filePath(u"etc-xdg"_s));
    QVERIFY(QDir().mkpath(m_dir.filePath(u"home"_s)));
}

bool TestLabCatalog::writeCatalog(const QString &dir, qint64 version) const
{
    if (!QDir().mkpath(dir))
        return false;
    const QMap<QString, QByteArray> files = tfsetup::test::builtInCatalogFiles();
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        if (!writeFile(dir + u'/' + it.key(), it.value()))
            return false;
    }
    QJsonObject release = QJsonDocument::fromJson(readFile(u":/resources/catalog/release.json"_s)).object();
    release.insert(u"version"_s, version);
    return writeFile(dir + u"/release.json"_s, QJsonDocument(release).toJson());
}

void TestLabCatalog::labSignedCatalog_installsToolkitRouteFromTheLabMirror()
{
    // The lab's key pair.
    const QString key = m_dir.filePath(u"lab.pem"_s);
    const QString publicKey = m_dir.filePath(u"lab-public.pem"_s);
    QCOMPARE(runProcess(u"openssl"_s, {u"genpkey"_s, u"-algorithm"_s, u"ed25519"_s, u"-out"_s, key}).exitCode, 0);
    QCOMPARE(runProcess(u"openssl"_s, {u"pkey"_s, u"-in"_s, key, u"-pubout"_s, u"-out"_s, publicKey}).exitCode, 0);

    // The lab's mirror and its signed catalog, naming the mirror and pinning its manifests.
    LoopbackServer server;
    QVERIFY2(server.start(), qPrintable(server.errorString()));
    LabMirror mirror;
    QVERIFY(mirror.create(m_dir.filePath(u"mirror"_s), server));
    const QString catalog = m_dir.filePath(u"lab-catalog"_s);
    QVERIFY(writeCatalog(catalog, builtInVersion() + 1));
    const QString update = m_dir.filePath(u"catalog-update.json"_s);
    QStringList sign{u"--key"_s, key,    u"--catalog"_s, catalog,
                     u"--out"_s, update, u"--mirror"_s,  u"nvidia="_s + server.url(u"/"_s).toString()};
    for (const QString &pin : mirror.manifestPins())
        sign << u"--pin"_s << pin;
    const Run signing = script(u"sign_catalog.py"_s, sign);
    QVERIFY2(signing.exitCode == 0, signing.all().constData());
    // The files on disk are unchanged: only the signed copy names the mirror.
    QVERIFY(!readFile(catalog + u"/sources.json"_s).contains("\"mirrors\""));
    const QByteArray signedBytes = readFile(update);
    server.route("/lab/catalog-update.json", Response::bytes(signedBytes, "application/json"));
    QJsonObject tampered = QJsonDocument::fromJson(signedBytes).object();
    QJsonObject tamperedFiles = tampered.value(u"files"_s).toObject();
    tamperedFiles.insert(u"sources.json"_s,
                         tamperedFiles.value(u"sources.json"_s).toString().replace(u"127.0.0.1"_s, u"127.0.0.2"_s));
    tampered.insert(u"files"_s, tamperedFiles);
    server.route("/lab/tampered.json", Response::bytes(QJsonDocument(tampered).toJson(), "application/json"));
    const QString from = server.url(u"/lab/catalog-update.json"_s).toString();

    // Not trusted yet: refused, and the message says what to do.
    const Run untrusted = tfsetup({u"catalog"_s, u"update"_s, u"--from"_s, from, u"--json"_s});
    QCOMPARE(untrusted.exitCode, 1);
    QCOMPARE(untrusted.errorCode(), u"catalog_update_signature"_s);
    QVERIFY2(untrusted.err.contains("tfsetup catalog trust"), untrusted.err.constData());

    // The administrator trusts the lab's public key, for every account of the machine.
    const Run trust = tfsetup({u"catalog"_s, u"trust"_s, publicKey, u"--name"_s, u"Lab"_s, u"--json"_s});
    QVERIFY2(trust.exitCode == 0, trust.all().constData());
    const QString keyId = trust.json().value(u"key"_s).toObject().value(u"key_id"_s).toString();
    QCOMPARE(keyId.size(), 16);
    QVERIFY(QFileInfo::exists(m_dir.filePath(u"etc-xdg/tfsetup/catalog-keys/"_s + keyId + u".json"_s)));
    QVERIFY(!QFileInfo::exists(m_dir.filePath(u"home/config/tfsetup/catalog-keys"_s)));

    // A copy changed after the lab signed it is refused even so.
    const Run changed = tfsetup(
        {u"catalog"_s, u"update"_s, u"--from"_s, server.url(u"/lab/tampered.json"_s).toString(), u"--json"_s});
    QCOMPARE(changed.exitCode, 1);
    QCOMPARE(changed.errorCode(), u"catalog_update_signature"_s);

    const Run installed = tfsetup({u"catalog"_s, u"update"_s, u"--from"_s, from, u"--json"_s});
    QVERIFY2(installed.exitCode == 0, installed.all().constData());
    QCOMPARE(installed.json().value(u"installed"_s).toBool(), true);
    const QJsonObject signer = installed.json().value(u"update"_s).toObject();
    QCOMPARE(signer.value(u"signed_by"_s).toString(), u"lab"_s);
    QCOMPARE(signer.value(u"signer"_s).toString(), u"Lab"_s);
    QCOMPARE(signer.value(u"version"_s).toInteger(), builtInVersion() + 1);
    const Run status = tfsetup({u"catalog"_s, u"status"_s});
    QCOMPARE(status.exitCode, 0);
    QVERIFY2(status.out.contains("In use: the installed update") && status.out.contains("\"Lab\""),
             status.out.constData());

    // Every machine installs from the lab's mirror with no further options.
    const QString profile = mirror.writeProfile(u"lab"_s, u"tf-lab"_s, u"8.6"_s);
    QVERIFY(!profile.isEmpty());
    const QString prefix = m_dir.filePath(u"envs"_s);
    const Run install = tfsetup({u"install"_s, u"--profile"_s, profile, u"--yes"_s, u"--cache"_s,
                                 m_dir.filePath(u"cache"_s), u"--prefix"_s, prefix});
    QVERIFY2(install.exitCode == 0, install.all().constData());
    // Each archive of the plan was downloaded from the mirror once (a HEAD may rank it first).
    for (const LabMirror::Archive &a : mirror.archives()) {
        const auto requests = server.requests(a.urlPath.toUtf8());
        const auto gets = std::count_if(requests.cbegin(), requests.cend(),
                                        [](const tfsetup::test::RecordedRequest &r) { return r.method == "GET"; });
        QCOMPARE(int(gets), a.urlPath.contains(u"8.9.7"_s) ? 0 : 1);
    }
    QVERIFY(server.hits("/compute/cuda/redist/redistrib_11.8.0.json") >= 1);
    QVERIFY(server.hits("/compute/cudnn/redist/redistrib_8.6.0.json") >= 1);

    const QString env = prefix + u"/tf-lab"_s;
    const auto record = tfsetup::core::EnvironmentRecord::read(env);
    QVERIFY2(record, qPrintable(env));
    QCOMPARE(record->cudaInUse().cuda, u"11.8"_s);
    QCOMPARE(record->cudaInUse().cudnn, u"8.6"_s);
    bool cudart = false;
    bool cudnn = false;
    for (const tfsetup::core::RecordedFile &f : record->files) {
        if (!QFileInfo::exists(env + u'/' + f.path))
            QFAIL(qPrintable(u"recorded but missing: "_s + f.path));
        cudart = cudart || f.path.contains(u"libcudart.so"_s);
        cudnn = cudnn || f.path.contains(u"libcudnn"_s);
    }
    QVERIFY(cudart);
    QVERIFY(cudnn);

    // The release procedure's script makes an update this machine accepts (its key is trusted
    // here: a throw-away stand-in for the release key), and refuses a version not raised.
    const QString next = m_dir.filePath(u"next-catalog"_s);
    QVERIFY(writeCatalog(next, builtInVersion() + 2));
    const QString out = m_dir.filePath(u"release-out"_s);
    const Run stale = script(u"release_catalog.py"_s,
                             {u"--key"_s, key, u"--catalog"_s, catalog, u"--out"_s, out, u"--previous"_s, update});
    QCOMPARE(stale.exitCode, 1);
    QVERIFY2(stale.err.contains("raise"), stale.err.constData());
    const Run release = script(u"release_catalog.py"_s,
                               {u"--key"_s, key, u"--catalog"_s, next, u"--out"_s, out, u"--previous"_s, update});
    QVERIFY2(release.exitCode == 0, release.all().constData());
    QVERIFY2(release.out.contains("releases/latest/download/catalog-update.json"), release.out.constData());
    const QByteArray released = readFile(out + u"/catalog-update.json"_s);
    QVERIFY(readFile(out + u"/catalog-update.json.sha256"_s)
                .startsWith(QByteArray(QCryptographicHash::hash(released, QCryptographicHash::Sha256).toHex()
                                       + "  catalog-update.json")));
    const Run accepted = tfsetup(
        {u"catalog"_s, u"update"_s, u"--from"_s, out + u"/catalog-update.json"_s, u"--json"_s});
    QVERIFY2(accepted.exitCode == 0, accepted.all().constData());
    QCOMPARE(accepted.json().value(u"update"_s).toObject().value(u"version"_s).toInteger(), builtInVersion() + 2);

    // Once the key is no longer trusted, its update is no longer used.
    QCOMPARE(tfsetup({u"catalog"_s, u"untrust"_s, keyId}).exitCode, 0);
    const Run after = tfsetup({u"catalog"_s, u"status"_s, u"--json"_s});
    QCOMPARE(after.json().value(u"in_use"_s).toString(), u"built-in"_s);
    QCOMPARE(after.json().value(u"refused"_s).toObject().value(u"code"_s).toString(), u"catalog_update_signature"_s);
}

QTEST_GUILESS_MAIN(TestLabCatalog)
#include "test_labcatalog.moc"
