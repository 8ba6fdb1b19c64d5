#include "sources/resolver.h"

#include "support/coroutinetest.h"
#include "support/loopbackserver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

QByteArray readData(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Which manifest of tests/data/manifests sits where on NVIDIA's server.
const QList<std::pair<QString, QString>> nvidiaLayout{
    {u"compute/cuda/redist/redistrib_11.8.0.json"_s, u"cuda/redistrib_11.8.0.json"_s},
    {u"compute/cuda/redist/redistrib_12.5.1.json"_s, u"cuda/redistrib_12.5.1.json"_s},
    {u"compute/cudnn/redist/redistrib_8.9.7.json"_s, u"cudnn/redistrib_8.9.7.json"_s},
    {u"compute/cudnn/redist/redistrib_9.8.0.json"_s, u"cudnn/redistrib_9.8.0.json"_s},
};

void serveNvidia(LoopbackServer &server)
{
    for (const auto &[path, file] : nvidiaLayout)
        server.route(u"/"_s.append(path).toUtf8(), Response::bytes(readData(file), "application/json"));
}

bool writeNvidiaFolder(const QString &root)
{
    for (const auto &[path, file] : nvidiaLayout) {
        QDir().mkpath(QFileInfo(root + u'/' + path).absolutePath());
        QFile f(root + u'/' + path);
        if (!f.open(QIODevice::WriteOnly) || f.write(readData(file)) <= 0)
            return false;
    }
    return true;
}

ResolveRequest linuxToolkit()
{
    ResolveRequest r;
    r.route = u"linux-toolkit"_s;
    r.tensorflow = u"2.18.0"_s;
    r.os = u"linux"_s;
    r.python = u"3.11"_s;
    r.cuda = u"12.5"_s;
    r.cudnn = u"8.9"_s; // 8.9 (not TF's 9.3) because the real 8.9.7 manifest is in the test data
    r.requirement = u"tensorflow==2.18.*"_s;
    return r;
}

ResolveRequest windowsNative()
{
    ResolveRequest r;
    r.route = u"windows-native"_s;
    r.tensorflow = u"2.10.0"_s;
    r.os = u"windows"_s;
    r.python = u"3.10"_s;
    r.pythonInstalled = false;
    r.cuda = u"11.2"_s;
    r.cudnn = u"8.1"_s;
    r.requirement = u"tensorflow==2.10.*"_s;
    return r;
}

SourceCatalog catalog()
{
    auto c = SourceCatalog::load();
    return c.ok() ? *c : SourceCatalog();
}

QByteArray why(const Result<ArtifactList> &r)
{
    return r.ok() ? QByteArray() : (r.error().message + u'\n' + r.error().detail).toUtf8();
}

} // namespace

class TestSources : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_official = std::make_unique<LoopbackServer>();
        QVERIFY(m_official->start());
    }
    void cleanup() { m_official.reset(); }

    void linuxToolkit_listsWhatTensorFlowLoadsWithOfficialChecksums()
    {
        serveNvidia(*m_official);
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxToolkit()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        QStringList names;
        for (const Artifact &a : (*list)->artifacts)
            names.append(a.name);
        QCOMPARE(names,
                 (QStringList{u"cuda_cudart"_s, u"libcublas"_s, u"libcufft"_s, u"libcurand"_s, u"libcusolver"_s,
                              u"libcusparse"_s, u"libnvjitlink"_s, u"cuda_nvrtc"_s, u"cuda_nvcc"_s, u"cudnn"_s,
                              u"tensorflow"_s}));
        const Artifact *cudart = (*list)->find(u"cuda_cudart"_s);
        QCOMPARE(cudart->manifest, u"redistrib_12.5.1.json"_s);
        QCOMPARE(cudart->platform, u"linux-x86_64"_s);
        QCOMPARE(cudart->kind, u"cuda-redist-archive"_s);
        QCOMPARE(cudart->archiveFormat, u"tar.xz"_s);
        QCOMPARE(cudart->trust, Artifact::Trust::Official);
        QCOMPARE(cudart->urls.size(), 1);
        QVERIFY(cudart->urls.first().toString().startsWith(
            m_official->url(u"/compute/cuda/redist/cuda_cudart/"_s).toString()));
        const Artifact *cudnn = (*list)->find(u"cudnn"_s);
        QCOMPARE(cudnn->version, u"8.9.7.29"_s);
        QCOMPARE(cudnn->sha256, u"475333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd9c13efb6e21e3bb"_s); // facts §6.1
        QCOMPARE(cudnn->manifest, u"redistrib_8.9.7.json"_s);
        // TF/XLA's label is tried first; the other spelling of the same release answers.
        QCOMPARE(m_official->hits("/compute/cudnn/redist/redistrib_8.9.7.29.json"), 1);
        QVERIFY(!(*list)->hasWarning(u"manifest_unpinned"_s));
        QCOMPARE((*list)->manifestFiles.size(), 2);
        const Artifact *tf = (*list)->find(u"tensorflow"_s);
        QCOMPARE(tf->kind, u"wheelhouse"_s);
        QCOMPARE(tf->indexUrl, u"https://pypi.org/simple"_s);
        QVERIFY(!tf->toDownloadRequest(u"/tmp/x"_s).urls.size());
    }

    void optionalComponents_onlyWhenAsked()
    {
        serveNvidia(*m_official);
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        ResolveRequest r = linuxToolkit();
        r.includeOptional = true;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        const Artifact *cupti = (*list)->find(u"cuda_cupti"_s);
        QVERIFY(cupti);
        QVERIFY(cupti->optional);
    }

    void mirrors_comeFirstAndNeverChangeTheChecksum()
    {
        LoopbackServer mirror;
        QVERIFY(mirror.start());
        QByteArray tampered = readData(u"cuda/redistrib_12.5.1.json"_s);
        tampered.append(' ');
        mirror.route("/nv/compute/cuda/redist/redistrib_12.5.1.json", Response::bytes(tampered));
        serveNvidia(*m_official);
        MirrorSet mirrors;
        const auto parsed = MirrorSet::parse(mirror.url(u"/nv/"_s).toString());
        QVERIFY(parsed.ok());
        mirrors.add(*parsed);
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxToolkit()));
        QVERIFY(list && list->ok());
        QCOMPARE(mirror.hits("/nv/compute/cuda/redist/redistrib_12.5.1.json"), 1);
        QCOMPARE(m_official->hits("/compute/cuda/redist/redistrib_12.5.1.json"), 1); // the mirror's copy failed the pin
        const Artifact *cublas = (*list)->find(u"libcublas"_s);
        QCOMPARE(cublas->urls.size(), 2);
        QVERIFY(
            cublas->urls.first().toString().startsWith(mirror.url(u"/nv/compute/cuda/redist/libcublas/"_s).toString()));
        QVERIFY(cublas->urls.last().toString().startsWith(m_official->url(u"/compute/"_s).toString()));
        const DownloadRequest request = cublas->toDownloadRequest(u"/tmp/libcublas.tar.xz"_s);
        QCOMPARE(request.urls, cublas->urls);
        QCOMPARE(QString::fromLatin1(request.checksum.hex), cublas->sha256);
        QCOMPARE(request.expectedSize, cublas->size);
    }

    void localFolderMirror_laidOutLikeNvidia()
    {
        QTemporaryDir dir;
        QVERIFY(writeNvidiaFolder(dir.path()));
        MirrorSet mirrors;
        const auto parsed = MirrorSet::parse(dir.path());
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
        QVERIFY(parsed->isLocal());
        mirrors.add(*parsed);
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));               // serves nothing
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxToolkit()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *cudart = (*list)->find(u"cuda_cudart"_s);
        QVERIFY(cudart->urls.first().isLocalFile());
        QCOMPARE(m_official->hits("/compute/cuda/redist/redistrib_12.5.1.json"), 0);
        // file:// URLs are for the bundle writer's local copy; the Downloader gets http(s) only.
        QCOMPARE(cudart->toDownloadRequest(u"/tmp/x"_s).urls.size(), 1);
    }

    void cuda112_fallsBackToPinned118_andNeverTakesAnUnpinnedManifestFromAMirror()
    {
        QTemporaryDir dir;
        QVERIFY(writeNvidiaFolder(dir.path()));
        QVERIFY(QFile::copy(dir.filePath(u"compute/cuda/redist/redistrib_11.8.0.json"_s),
                            dir.filePath(u"compute/cuda/redist/redistrib_11.2.2.json"_s)));
        MirrorSet mirrors;
        mirrors.add(*MirrorSet::parse(dir.path()));
        serveNvidia(*m_official);
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        resolver.setOriginBase(u"python"_s,
                               m_official->url(u"/"_s)); // plain http: python.org's checksums are not asked
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsNative()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        QVERIFY((*list)->hasWarning(u"cuda_fallback_untested"_s));
        QCOMPARE(m_official->hits("/compute/cuda/redist/redistrib_11.2.2.json"), 1);
        const Artifact *cudart = (*list)->find(u"cuda_cudart"_s);
        QCOMPARE(cudart->manifest, u"redistrib_11.8.0.json"_s);
        QCOMPARE(cudart->version, u"11.8.89"_s);
        QCOMPARE(cudart->platform, u"windows-x86_64"_s);
        QCOMPARE(cudart->archiveFormat, u"zip"_s);
        QCOMPARE(cudart->sha256, u"988cc9e7d3785d4b1975521f312c57c6814cbf15e73a2b7941d961835f2a945e"_s);
        // cuDNN 8.1 for Windows: no checksum anywhere, so trust on first use only.
        const Artifact *cudnn = (*list)->find(u"cudnn"_s);
        QCOMPARE(cudnn->version, u"8.1.0.77"_s);
        QCOMPARE(cudnn->trust, Artifact::Trust::None);
        QVERIFY(cudnn->needsTrustOnFirstUse());
        QVERIFY((*list)->hasWarning(u"cudnn_no_checksum"_s));
        QVERIFY(!cudnn->toDownloadRequest(u"/tmp/x"_s).checksum.isValid());
        QVERIFY(!(*list)->hasWarning(u"zlibwapi_needed"_s)); // cuDNN 8.1 predates the zlib dependency
        // Python from python.org: silent, per user, PATH untouched.
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->kind, u"python-installer"_s);
        QCOMPARE(python->urls.last().path(), u"/ftp/python/3.10.11/python-3.10.11-amd64.exe"_s);
        QCOMPARE(catalog().pythonWindowsUrl(),
                 u"https://www.python.org/ftp/python/{version}/python-{version}-amd64.exe"_s);
        QVERIFY(python->installArguments.contains(u"PrependPath=0"_s));
        QVERIFY(python->installArguments.contains(u"InstallAllUsers=0"_s));
        QVERIFY(python->needsTrustOnFirstUse());
        QVERIFY((*list)->hasWarning(u"python_no_pin"_s));
        QCOMPARE(m_official->hits("/api/v2/downloads/release/"), 0); // never over plain http
    }

    void unpinnedManifest_fromNvidiaItself_isUsedWithAWarning()
    {
        serveNvidia(*m_official);
        m_official->route("/compute/cuda/redist/redistrib_11.2.2.json",
                          Response::bytes(readData(u"cuda/redistrib_11.8.0.json"_s)));
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        resolver.setOriginBase(u"python"_s,
                               m_official->url(u"/"_s)); // plain http: python.org's checksums are not asked
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsNative()));
        QVERIFY(list && list->ok());
        QVERIFY((*list)->hasWarning(u"manifest_unpinned"_s));
        // The loopback origin is plain http: the warning says so, not "a verified connection".
        for (const auto &w : (*list)->warnings) {
            if (w.code == u"manifest_unpinned") {
                QVERIFY2(w.message.contains(u"plain HTTP"_s) && !w.message.contains(u"verified connection"_s),
                         qPrintable(w.message));
            }
        }
        QVERIFY(!(*list)->hasWarning(u"cuda_fallback_untested"_s));
        QCOMPARE((*list)->find(u"libcublas"_s)->manifest, u"redistrib_11.2.2.json"_s);
    }

    void hostileUnpinnedManifest_isAnError()
    {
        QByteArray evil = readData(u"cuda/redistrib_11.8.0.json"_s);
        evil.replace("cuda_cudart/windows-x86_64/", "../../../../Windows/System32/");
        m_official->route("/compute/cuda/redist/redistrib_11.2.2.json", Response::bytes(evil));
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        resolver.setOriginBase(u"python"_s,
                               m_official->url(u"/"_s)); // plain http: python.org's checksums are not asked
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsNative()));
        QVERIFY(list);
        QVERIFY(!list->ok());
        QCOMPARE(list->error().code, u"manifest_malformed"_s);
        QVERIFY(list->error().detail.contains(u"not a safe relative path"_s));
    }

    void unreachableManifest_namesTheFile()
    {
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxToolkit()));
        QVERIFY(list);
        QVERIFY(!list->ok());
        QCOMPARE(list->error().code, u"manifest_unavailable"_s);
        QVERIFY(list->error().message.contains(u"redistrib_12.5.1.json"_s));
    }

    void fullInstaller_takesMd5FromNvidiaAndNeedsAdmin()
    {
        m_official->route(
            "/compute/cuda/11.2.2/docs/sidebar/md5sum.txt",
            Response::bytes("0123456789abcdef0123456789abcdef  local_installers/cuda_11.2.2_460.32.03_linux.run\n"
                            "fedcba9876543210fedcba9876543210  local_installers/cuda_11.2.2_461.33_win10.exe\n"));
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        ResolveRequest r = windowsNative();
        r.cudaFrom = u"installer"_s;
        r.pythonInstalled = true;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        const Artifact *cuda = (*list)->find(u"cuda"_s);
        QVERIFY(cuda);
        QCOMPARE(cuda->kind, u"cuda-installer"_s);
        QCOMPARE(cuda->md5, u"fedcba9876543210fedcba9876543210"_s);
        QCOMPARE(cuda->trust, Artifact::Trust::OfficialMd5);
        QVERIFY(cuda->needsAdmin);
        QVERIFY(cuda->installArguments.contains(u"cudart_11.2"_s));
        QVERIFY(!cuda->installArguments.join(u' ').contains(u"Driver"_s));
        QVERIFY((*list)->hasWarning(u"installer_needs_admin"_s));
        QCOMPARE(cuda->toDownloadRequest(u"/tmp/x"_s).checksum.algorithm, Checksum::Algorithm::Md5);
        QVERIFY(!(*list)->find(u"python"_s));
    }

    void fullInstaller_withoutMd5List_needsTrust()
    {
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        resolver.setOriginBase(u"python"_s, m_official->url(u"/"_s));
        ResolveRequest r = windowsNative();
        r.cudaFrom = u"installer"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        QVERIFY((*list)->find(u"cuda"_s)->needsTrustOnFirstUse());
        QVERIFY((*list)->hasWarning(u"installer_checksum_unavailable"_s));
    }

    void pipRoute_onlyAWheelhouse_fromAPresetMirror()
    {
        const SourceCatalog c = catalog();
        MirrorSet mirrors;
        const auto tuna = MirrorSet::parse(u"pypi=tuna"_s, &c);
        QVERIFY(tuna.ok());
        mirrors.add(*tuna);
        ArtifactResolver resolver(c, mirrors);
        ResolveRequest r;
        r.route = u"linux-pip"_s;
        r.tensorflow = u"2.18.0"_s;
        r.os = u"linux"_s;
        r.cuda = u"12.5"_s;
        r.cudnn = u"9.3"_s;
        r.requirement = u"tensorflow[and-cuda]==2.18.*"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        QCOMPARE((*list)->artifacts.size(), 1);
        QCOMPARE((*list)->artifacts.first().requirement, u"tensorflow[and-cuda]==2.18.*"_s);
        QCOMPARE((*list)->artifacts.first().indexUrl, u"https://pypi.tuna.tsinghua.edu.cn/simple"_s);
        QCOMPARE(m_official->requests().size(), 0);
    }

    void json_hasTheDocumentedShape()
    {
        serveNvidia(*m_official);
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"nvidia"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxToolkit()));
        QVERIFY(list && list->ok());
        const QJsonObject json = (*list)->toJson();
        const QJsonObject first = json.value(u"artifacts"_s).toArray().first().toObject();
        QCOMPARE(first.value(u"name"_s).toString(), u"cuda_cudart"_s);
        QCOMPARE(first.value(u"version"_s).toString(), u"12.5.82"_s);
        QCOMPARE(first.value(u"platform"_s).toString(), u"linux-x86_64"_s);
        QCOMPARE(first.value(u"source"_s).toString(), u"nvidia-redist"_s);
        QCOMPARE(first.value(u"manifest"_s).toString(), u"redistrib_12.5.1.json"_s);
        QVERIFY(first.value(u"size"_s).isDouble());
        QCOMPARE(first.value(u"sha256"_s).toString().size(), 64);
        QCOMPARE(first.value(u"md5"_s).toString().size(), 32);
        QVERIFY(first.value(u"url"_s).toString().endsWith(u".tar.xz"_s));
        QVERIFY(json.value(u"warnings"_s).isArray());
        // Round trip through JSON, as the installer reads it back from a bundle.
        const Artifact back = Artifact::fromJson(first);
        QCOMPARE(back.toJson(), first);
    }

    void fromPlanJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("code"); // empty: parses
        QTest::newRow("plan document") << QByteArray(
            R"({"recommended": {"route": "windows-native", "tensorflow": "2.10.0",
            "python": "3.10", "python_installed": false, "cuda": "11.2", "cudnn": "8.1", "requirement": "tensorflow==2.10.*"}})")
                                       << QString();
        QTest::newRow("one PLAN") << QByteArray(R"({"route": "linux-pip", "tensorflow": "2.18.0", "cuda": "12.5"})")
                                  << QString();
        QTest::newRow("no recommendation")
            << QByteArray(R"({"recommended": null, "alternatives": []})") << u"plan_empty"_s;
        QTest::newRow("not a plan") << QByteArray(R"({"hello": 1})") << u"plan_malformed"_s;
    }

    void fromPlanJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, code);
        const auto r = ResolveRequest::fromPlanJson(QJsonDocument::fromJson(json).object());
        QCOMPARE(r.ok(), code.isEmpty());
        if (!r.ok()) {
            QCOMPARE(r.error().code, code);
            return;
        }
        QVERIFY(!r->route.isEmpty());
        if (r->route == u"windows-native"_s) {
            QCOMPARE(r->os, u"windows"_s);
            QVERIFY(!r->pythonInstalled);
            QCOMPARE(r->cudnn, u"8.1"_s);
        }
    }

    void mirrorSpec_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("origin"); // empty: rejected
        QTest::addColumn<QString>("base");
        QTest::newRow("bare URL is NVIDIA") << u"http://lab.example/nv/"_s << u"nvidia"_s << u"http://lab.example/nv"_s;
        QTest::newRow("python") << u"python=https://lab.example/py"_s << u"python"_s << u"https://lab.example/py"_s;
        QTest::newRow("python-build-standalone") << u"python-build-standalone=https://lab.example/pbs/"_s
                                                 << u"python-build-standalone"_s << u"https://lab.example/pbs"_s;
        QTest::newRow("pypi preset") << u"pypi=aliyun"_s << u"pypi"_s << u"https://mirrors.aliyun.com/pypi/simple"_s;
        QTest::newRow("file URL") << u"file:///srv/nvidia"_s << u"nvidia"_s << u"file:///srv/nvidia"_s;
        QTest::newRow("unknown kind") << u"conda=http://x"_s << QString() << QString();
        QTest::newRow("missing folder") << u"/no/such/folder/anywhere"_s << QString() << QString();
        QTest::newRow("URL without host") << u"http://"_s << QString() << QString();
    }

    void mirrorSpec()
    {
        QFETCH(QString, spec);
        QFETCH(QString, origin);
        QFETCH(QString, base);
        const SourceCatalog c = catalog();
        const auto mirror = MirrorSet::parse(spec, &c);
        QCOMPARE(mirror.ok(), !origin.isEmpty());
        if (!mirror.ok()) {
            QCOMPARE(mirror.error().code, u"mirror_invalid"_s);
            return;
        }
        QCOMPARE(mirror->origin, origin);
        QCOMPARE(mirror->base.toString(), base);
    }

    // `tfsetup sources` is a public interface; a pip route resolves without any network.
    void command_pipRouteJson()
    {
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                {u"sources"_s, u"--tf"_s, u"2.18"_s, u"--os"_s, u"linux"_s, u"--route"_s, u"linux-pip"_s, u"--mirror"_s,
                 u"pypi=tuna"_s, u"--json"_s});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QJsonObject json = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        const QJsonArray artifacts = json.value(u"artifacts"_s).toArray();
        QCOMPARE(artifacts.size(), 1);
        QCOMPARE(artifacts.first().toObject().value(u"kind"_s).toString(), u"wheelhouse"_s);
        QCOMPARE(artifacts.first().toObject().value(u"index_url"_s).toString(),
                 u"https://pypi.tuna.tsinghua.edu.cn/simple"_s);
    }

    void command_usageErrors()
    {
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"sources"_s, u"--tf"_s, u"2.18"_s});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
    }

private:
    std::unique_ptr<LoopbackServer> m_official;
};

QTEST_GUILESS_MAIN(TestSources)
#include "test_sources.moc"
