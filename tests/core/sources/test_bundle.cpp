#include "fetch/networksettings.h"
#include "setup/indexbridge.h"
#include "setup/locker.h"
#include "sources/bundle.h"
#include "support/coroutinetest.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

QString sha256Hex(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

using tfsetup::test::readFile;

Artifact archive(const QString &name, const QString &relativePath, const QByteArray &payload, const QUrl &url)
{
    Artifact a;
    a.name = name;
    a.version = u"1.0"_s;
    a.platform = u"linux-x86_64"_s;
    a.kind = u"cuda-redist-archive"_s;
    a.source = u"nvidia-redist"_s;
    a.relativePath = relativePath;
    a.urls = {url};
    a.sha256 = sha256Hex(payload);
    a.size = payload.size();
    return a;
}

QString why(const Result<Bundle> &r)
{
    return r.ok() ? QString() : r.error().message + u'\n' + r.error().detail;
}

// A pure-Python wheel of one module, built by the test itself (PEP 427 layout).
bool buildWheel(const QString &python, const QString &path, const QString &module = u"tfsetup_probe"_s,
                const QString &project = u"tfsetup-probe"_s)
{
    const QString script = uR"(
import base64, hashlib, sys, zipfile
module, project = sys.argv[2], sys.argv[3]
files = {
  f"{module}/__init__.py": b"VALUE = 42\n",
  f"{module}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: 1.0\n".encode(),
  f"{module}-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
  for name, data in files.items():
    z.writestr(name, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")
  record.append(f"{module}-1.0.dist-info/RECORD,,")
  z.writestr(f"{module}-1.0.dist-info/RECORD", "\n".join(record) + "\n")
)"_s;
    QProcess p;
    p.start(python, {u"-c"_s, script, path, module, project});
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

} // namespace

class TestBundle : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_server = std::make_unique<LoopbackServer>();
        QVERIFY(m_server->start());
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void roundTrip_writeOpenVerify_thenACorruptFileIsRefusedAndNamed()
    {
        const QByteArray cudart(200 * 1024, 'r');
        const QByteArray cublas(300 * 1024, 'b');
        m_server->route("/compute/cuda/redist/cuda_cudart/linux-x86_64/cudart-archive.tar.xz", Response::bytes(cudart));
        m_server->route("/compute/cuda/redist/libcublas/linux-x86_64/cublas-archive.tar.xz", Response::bytes(cublas));
        ArtifactList list;
        list.route = u"linux-toolkit"_s;
        list.tensorflow = u"2.18.0"_s;
        list.os = u"linux"_s;
        list.artifacts = {
            archive(u"cuda_cudart"_s, u"compute/cuda/redist/cuda_cudart/linux-x86_64/cudart-archive.tar.xz"_s, cudart,
                    m_server->url(u"/compute/cuda/redist/cuda_cudart/linux-x86_64/cudart-archive.tar.xz"_s)),
            archive(u"libcublas"_s, u"compute/cuda/redist/libcublas/linux-x86_64/cublas-archive.tar.xz"_s, cublas,
                    m_server->url(u"/compute/cuda/redist/libcublas/linux-x86_64/cublas-archive.tar.xz"_s))};
        list.manifestFiles = {{u"compute/cuda/redist/redistrib_test.json"_s, QByteArray("{}")}};
        list.warnings = {{u"manifest_unpinned"_s, u"m"_s}};

        const auto written = writeBundle(list, false);
        QVERIFY(written);
        QVERIFY2(written->ok(), qPrintable(why(*written)));

        const auto bundle = Bundle::open(bundleDir());
        QVERIFY(bundle.ok());
        QCOMPARE(bundle->files().size(), 3); // two archives and the manifest
        QCOMPARE(bundle->artifacts().artifacts.size(), 2);
        QCOMPARE(bundle->artifacts().route, u"linux-toolkit"_s);
        QVERIFY(bundle->artifacts().hasWarning(u"manifest_unpinned"_s));
        const QString cudartPath = bundle->pathOf(u"cuda_cudart"_s);
        // Laid out like NVIDIA's server below nvidia/, so the folder doubles as a lab mirror.
        QCOMPARE(
            cudartPath,
            QDir(bundleDir()).filePath(u"nvidia/compute/cuda/redist/cuda_cudart/linux-x86_64/cudart-archive.tar.xz"_s));
        QCOMPARE(readFile(cudartPath), cudart);
        QVERIFY(QFile::exists(QDir(bundleDir()).filePath(u"nvidia/compute/cuda/redist/redistrib_test.json"_s)));
        QVERIFY(bundle->verify().ok());
        const auto asyncOk = tfsetup::test::awaitTask(bundle->verifyAsync());
        QVERIFY(asyncOk && asyncOk->ok());

        // One flipped byte: refused, and the message names the file.
        QByteArray damaged = cudart;
        damaged[1000] = 'X';
        QVERIFY(writeFile(cudartPath, damaged));
        const Status corrupt = bundle->verify();
        QVERIFY(!corrupt.ok());
        QCOMPARE(corrupt.error().code, u"bundle_corrupt"_s);
        QVERIFY2(corrupt.error().message.contains(u"cudart-archive.tar.xz"_s), qPrintable(corrupt.error().message));
        QVERIFY(!corrupt.error().message.contains(u"cublas-archive.tar.xz"_s));

        // A missing file is named too.
        QVERIFY(writeFile(cudartPath, cudart));
        QVERIFY(QFile::remove(bundle->pathOf(u"libcublas"_s)));
        const Status missing = bundle->verify();
        QCOMPARE(missing.error().code, u"bundle_incomplete"_s);
        QVERIFY(missing.error().message.contains(u"cublas-archive.tar.xz"_s));
    }

    void localMirror_isCopiedOnlyWhenItVerifies()
    {
        const QByteArray payload(64 * 1024, 'p');
        const QString rel = u"compute/cuda/redist/cuda_cudart/linux-x86_64/a.tar.xz"_s;
        QTemporaryDir share;
        QVERIFY(writeFile(share.filePath(rel), QByteArray(payload).replace(0, 1, "Q"))); // a bad copy on the share
        m_server->route("/" + rel.toUtf8(), Response::bytes(payload));
        ArtifactList list;
        Artifact a = archive(u"cuda_cudart"_s, rel, payload, m_server->url(u"/"_s + rel));
        a.urls.prepend(QUrl::fromLocalFile(share.filePath(rel)));
        list.artifacts = {a};
        const auto written = writeBundle(list, false);
        QVERIFY(written && written->ok());
        QCOMPARE(m_server->hits("/" + rel.toUtf8()), 1); // the share's copy failed, the server's was used
        QCOMPARE(readFile((*written)->pathOf(u"cuda_cudart"_s)), payload);

        QVERIFY(writeFile(share.filePath(rel), payload)); // now a good copy
        m_server->clearRequests();
        const auto again = writeBundle(list, false);
        QVERIFY(again && again->ok());
        QCOMPARE(m_server->hits("/" + rel.toUtf8()), 0);
    }

    void noChecksumAnywhere_needsTrustOnFirstUse()
    {
        const QByteArray payload(10 * 1024, 'z');
        const QString rel = u"compute/redist/cudnn/v8.1.0/cudnn-11.2-windows-x64-v8.1.0.77.zip"_s;
        m_server->route("/" + rel.toUtf8(), Response::bytes(payload));
        Artifact a = archive(u"cudnn"_s, rel, payload, m_server->url(u"/"_s + rel));
        a.sha256.clear();
        a.size = -1;
        a.trust = Artifact::Trust::None;
        ArtifactList list;
        list.artifacts = {a};

        const auto refused = writeBundle(list, false);
        QVERIFY(refused);
        QVERIFY(!refused->ok());
        QCOMPARE(refused->error().code, u"trust_required"_s);
        QVERIFY(refused->error().message.contains(u"cudnn-11.2-windows-x64-v8.1.0.77.zip"_s));
        QCOMPARE(m_server->hits("/" + rel.toUtf8()), 0); // nothing was downloaded

        const auto trusted = writeBundle(list, true);
        QVERIFY(trusted);
        QVERIFY2(trusted->ok(), qPrintable(why(*trusted)));
        const Bundle &bundle = trusted->value();
        QCOMPARE(bundle.files().first().sha256, sha256Hex(payload));
        const Artifact &recorded = bundle.artifacts().artifacts.first();
        QCOMPARE(recorded.sha256, sha256Hex(payload)); // what was seen is recorded, and checked from now on
        QCOMPARE(recorded.trust, Artifact::Trust::None);
        QVERIFY(recorded.note.contains(u"first use"_s));
        QVERIFY(bundle.verify().ok());
    }

    void hostileBundleDescription_isRejected_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("code");
        QTest::newRow("empty folder") << QByteArray() << u"bundle_empty"_s;
        QTest::newRow("not JSON") << QByteArray("{") << u"bundle_malformed"_s;
        QTest::newRow("other format") << QByteArray(R"({"format": "zip", "schema": 1})") << u"bundle_malformed"_s;
        QTest::newRow("path leaves the folder") << QByteArray(
            R"({"format": "tfsetup-bundle", "schema": 1, "files": [{"file": "../../etc/passwd", "artifact": "x",
                 "sha256": "56129e0c42df03ecb50a7bb23fc3285fa39af1a818f8826b183cf793529098bb", "size": 1}]})")
                                                << u"bundle_malformed"_s;
        QTest::newRow("no checksum") << QByteArray(
            R"({"format": "tfsetup-bundle", "schema": 1, "files": [{"file": "a", "size": 1}]})")
                                     << u"bundle_malformed"_s;
    }

    void hostileBundleDescription_isRejected()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, code);
        if (!json.isEmpty())
            QVERIFY(writeFile(QDir(bundleDir()).filePath(u"bundle.json"_s), json));
        QDir().mkpath(bundleDir());
        const auto bundle = Bundle::open(bundleDir());
        QVERIFY(!bundle.ok());
        QCOMPARE(bundle.error().code, code);
    }

    // pip download against a PyPI-style "simple" index on loopback; then pip installs from the
    // wheelhouse with no index at all and every hash required, as the offline install will.
    void wheelhouse_fromALocalSimpleIndex_installsOfflineWithRequiredHashes()
    {
        const QString python = QStandardPaths::findExecutable(u"python3"_s);
        if (python.isEmpty())
            QSKIP("python3 is not installed");
        QProcess probe;
        probe.start(python, {u"-m"_s, u"pip"_s, u"--version"_s});
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0)
            QSKIP("pip is not available for python3");

        const QString wheelName = u"tfsetup_probe-1.0-py3-none-any.whl"_s;
        const QString built = m_dir->filePath(wheelName);
        QVERIFY(buildWheel(python, built));
        const QByteArray wheel = readFile(built);
        const QString digest = sha256Hex(wheel);
        m_server->route("/simple/tfsetup-probe/",
                        Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8() + "#sha256="
                                            + digest.toLatin1() + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                        "text/html"));
        m_server->route("/files/" + wheelName.toUtf8(), Response::bytes(wheel));
        // The kernel's and the default front end's packages join every wheelhouse: stand-ins here.
        for (const QString &project : {u"ipykernel"_s, u"jupyterlab"_s}) {
            const QString name = project + u"-1.0-py3-none-any.whl"_s;
            QVERIFY(buildWheel(python, m_dir->filePath(name), project, project));
            const QByteArray bytes = readFile(m_dir->filePath(name));
            m_server->route("/simple/" + project.toUtf8() + "/",
                            Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + name.toUtf8()
                                                + "#sha256=" + sha256Hex(bytes).toLatin1() + "\">" + name.toUtf8()
                                                + "</a></body></html>",
                                            "text/html"));
            m_server->route("/files/" + name.toUtf8(), Response::bytes(bytes));
        }

        Artifact tf;
        tf.name = u"tfsetup-probe"_s;
        tf.kind = u"wheelhouse"_s;
        tf.source = u"pypi"_s;
        tf.trust = Artifact::Trust::IndexHash;
        tf.requirement = u"tfsetup-probe==1.0"_s;
        tf.indexUrl = m_server->url(u"/simple"_s).toString();
        ArtifactList list;
        list.artifacts = {tf};
        // The lock pip's resolver makes through the bridge to this index, as tfsetup bundle does.
        RealSystem system;
        Locker locker(system);
        IndexBridge::Options bridgeOptions;
        bridgeOptions.indexes = {m_server->url(u"/simple/"_s)};
        Downloader downloader;
        bridgeOptions.downloader = &downloader;
        bridgeOptions.cacheDir = m_dir->filePath(u"lock-downloads"_s);
        IndexBridge bridge(bridgeOptions);
        QVERIFY(bridge.start());
        LockRequest request;
        request.python = python;
        request.requirements = {tf.requirement, u"ipykernel"_s, u"jupyterlab"_s};
        request.workDir = m_dir->filePath(u"lock"_s);
        const auto lock = tfsetup::test::awaitTask(locker.lock(request, &bridge), std::chrono::seconds(120));
        QVERIFY(lock && lock->ok());
        QCOMPARE(lock->value().packages.size(), 3);
        const auto written = writeBundle(list, false, lock->value());
        QVERIFY(written);
        QVERIFY2(written->ok(), qPrintable(why(*written)));
        QVERIFY(m_server->hits("/files/" + wheelName.toUtf8()) >= 1);
        const Bundle &bundle = written->value();
        QVERIFY(bundle.verify().ok());
        QCOMPARE(readFile(QDir(bundle.wheelhouse()).filePath(wheelName)), wheel);
        // The bundle carries the lock, each wheel with its index URL and hash.
        QCOMPARE(bundle.lock().packages.size(), 3);
        QCOMPARE(bundle.lock().find(u"tfsetup-probe"_s)->sha256, digest.toLatin1());
        QCOMPARE(bundle.lock().find(u"tfsetup-probe"_s)->url, m_server->url(u"/files/"_s).toString() + wheelName);
        const QByteArray requirements = readFile(bundle.requirementsFile());
        QVERIFY2(requirements.contains("tfsetup-probe==1.0"), requirements.constData());
        QVERIFY(requirements.contains(QByteArray("--hash=sha256:" + digest.toLatin1())));
        QVERIFY2(requirements.contains("ipykernel==1.0") && requirements.contains("jupyterlab==1.0"),
                 requirements.constData());

        QTemporaryDir target;
        QProcess install;
        install.start(python,
                      {u"-m"_s, u"pip"_s, u"install"_s, u"--disable-pip-version-check"_s, u"--no-index"_s,
                       u"--find-links"_s, bundle.wheelhouse(), u"--require-hashes"_s, u"-r"_s,
                       bundle.requirementsFile(), u"--target"_s, target.path()});
        QVERIFY(install.waitForFinished(120000));
        QVERIFY2(install.exitCode() == 0, install.readAllStandardError().constData());
        QVERIFY(QFile::exists(target.filePath(u"tfsetup_probe/__init__.py"_s)));
        QVERIFY(QFile::exists(target.filePath(u"ipykernel/__init__.py"_s)));
    }

private:
    QString bundleDir() const { return m_dir->filePath(u"bundle"_s); }

    std::optional<Result<Bundle>> writeBundle(const ArtifactList &list, bool trust, const PyLock &lock = {})
    {
        NetworkSettings network;
        network.transfer.connectTimeout = std::chrono::seconds(5);
        network.transfer.stallTimeout = std::chrono::seconds(5);
        network.transfer.retriesPerMirror = 0;
        const std::unique_ptr<Downloader> downloader = network.makeDownloader({});
        BundleWriter writer(*downloader);
        BundleOptions bundleOptions;
        bundleOptions.directory = bundleDir();
        bundleOptions.trustOnFirstUse = trust;
        bundleOptions.transfer = network.transfer;
        return tfsetup::test::awaitTask(writer.write(list, lock, bundleOptions), std::chrono::seconds(120));
    }

    std::unique_ptr<LoopbackServer> m_server;
    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(TestBundle)
#include "test_bundle.moc"
