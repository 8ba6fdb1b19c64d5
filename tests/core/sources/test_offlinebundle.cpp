// Offline bundles given to the setup flow (the wizard) and to `tfsetup install --offline --from`:
// a complete bundle serves a toolkit plan (NVIDIA's archives, a relocatable Python, pip's
// wheelhouse) without a single request, although every origin, mirror and proxy points at a
// loopback server that counts; and every kind of bad bundle is one clear error that names its
// cause and the next step, in both paths, before anything could reach the network.

#include "fetch/downloader.h"
#include "install/launchers.h"
#include "setup/setupflow.h"
#include "sources/bundle.h"
#include "support/coroutinetest.h"
#include "support/installspec.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <tuple>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::Artifact;
using core::ArtifactList;
using core::Bundle;
using core::Plan;
using core::SetupFlow;
using core::SetupOptions;
using tfsetup::test::LoopbackServer;

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

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What a bundle is made for, as bundle.json records it.
struct Header {
    QString route;
    QString tensorflow;
    QString python;
};

// The plans of this test. Only the bundle's own record is compared with them; no catalog
// knowledge is involved.
Plan toolkitPlan()
{
    Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = false; // the bundle's relocatable Python makes the venv
    p.cuda = u"12.5"_s;
    p.cudnn = u"9.3"_s;
    return p;
}

const QString wheelName = u"tensorflow-2.18.0-py3-none-any.whl"_s;
const QString cudnnFile = u"cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz"_s;

// Writes a bundle as tfsetup bundle lays it out: every artifact's file under its origin's
// folder, the wheelhouse with a hash-pinned requirements file, bundle.json last. `toolkit`
// adds NVIDIA's archives and a relocatable Python; otherwise the wheelhouse is all.
bool writeBundle(const QString &folder, const Header &header, bool toolkit, const QUrl &recordedOrigin)
{
    QJsonArray artifacts, files;
    const auto add = [&](Artifact a, const QString &file, const QByteArray &bytes) {
        a.sha256 = sha256Hex(bytes);
        a.size = bytes.size();
        a.trust = Artifact::Trust::Official;
        a.urls = {recordedOrigin.resolved(QUrl(a.relativePath))};
        QJsonObject o = a.toJson();
        o.insert(u"file"_s, file);
        artifacts.append(o);
        files.append(QJsonObject{
            {u"file"_s, file}, {u"artifact"_s, a.name}, {u"sha256"_s, a.sha256}, {u"size"_s, double(bytes.size())}});
        return writeFile(QDir(folder).filePath(file), bytes);
    };
    if (toolkit) {
        Artifact cudart;
        cudart.name = u"cuda_cudart"_s;
        cudart.version = u"12.5.82"_s;
        cudart.platform = u"linux-x86_64"_s;
        cudart.kind = u"cuda-redist-archive"_s;
        cudart.source = u"nvidia-redist"_s;
        cudart.archiveFormat = u"tar.xz"_s;
        cudart.relativePath =
            u"compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.5.82-archive.tar.xz"_s;
        Artifact cudnn = cudart;
        cudnn.name = u"cudnn"_s;
        cudnn.version = u"9.3.0.75"_s;
        cudnn.kind = u"cudnn-archive"_s;
        cudnn.relativePath = u"compute/cudnn/redist/cudnn/linux-x86_64/"_s + cudnnFile;
        Artifact python;
        python.name = u"python"_s;
        python.version = u"3.11.9"_s;
        python.platform = u"linux-x86_64"_s;
        python.kind = u"python-archive"_s;
        python.source = u"python-build-standalone"_s;
        python.archiveFormat = u"tar.gz"_s;
        python.relativePath = u"20240726/cpython-3.11.9+20240726-x86_64-unknown-linux-gnu-install_only.tar.gz"_s;
        if (!add(cudart, u"nvidia/"_s + cudart.relativePath, QByteArray(4096, 'c'))
            || !add(cudnn, u"nvidia/"_s + cudnn.relativePath, QByteArray(8192, 'd'))
            || !add(python, u"python-build-standalone/"_s + python.relativePath, QByteArray(2048, 'p')))
            return false;
    }
    Artifact wheels;
    wheels.name = u"tensorflow"_s;
    wheels.version = header.tensorflow;
    wheels.platform = u"linux-x86_64"_s;
    wheels.kind = u"wheelhouse"_s;
    wheels.source = u"pypi"_s;
    wheels.archiveFormat = u"wheel"_s;
    wheels.requirement = u"tensorflow==2.18.*"_s;
    wheels.indexUrl = recordedOrigin.resolved(QUrl(u"simple"_s)).toString();
    wheels.trust = Artifact::Trust::IndexHash;
    artifacts.append(wheels.toJson());

    const QByteArray wheel(1024, 'w');
    // The lock pins the kernel's and the front end's packages too, as tfsetup bundle writes it.
    QByteArray lock = "tensorflow==2.18.0 --hash=sha256:" + sha256Hex(wheel).toLatin1() + '\n';
    const core::JupyterSettings &jupyter = core::JupyterSettings::builtIn();
    QStringList projects = jupyter.kernelRequirements;
    if (const core::JupyterSettings::FrontEnd *f = jupyter.frontEnd(jupyter.defaultFrontEnd))
        projects += f->requirements;
    for (const QString &r : projects)
        lock += core::requirementProject(r).toUtf8() + "==1.0 --hash=sha256:" + sha256Hex(wheel).toLatin1() + '\n';
    // And the lock (pylock.toml) of the wheel the bundle holds.
    core::LockedWheel locked;
    locked.name = u"tensorflow"_s;
    locked.version = u"2.18.0"_s;
    locked.file = wheelName;
    locked.url = recordedOrigin.resolved(QUrl(u"packages/"_s + wheelName)).toString();
    locked.size = wheel.size();
    locked.sha256 = sha256Hex(wheel).toLatin1();
    locked.index = wheels.indexUrl;
    core::PyLock pylock;
    pylock.packages = {locked};
    const QList<std::tuple<QString, QString, QByteArray>> wheelhouse{
        {u"wheelhouse/"_s + wheelName, u"wheelhouse"_s, wheel},
        {u"wheelhouse/requirements.txt"_s, u"wheelhouse"_s, lock},
        {u"pylock.toml"_s, u"lock"_s, pylock.toToml()}};
    for (const auto &[file, artifact, bytes] : wheelhouse) {
        if (!writeFile(QDir(folder).filePath(file), bytes))
            return false;
        files.append(QJsonObject{{u"file"_s, file},
                                 {u"artifact"_s, artifact},
                                 {u"sha256"_s, sha256Hex(bytes)},
                                 {u"size"_s, double(bytes.size())}});
    }
    const QJsonObject root{
        {u"format"_s, u"tfsetup-bundle"_s},   {u"schema"_s, Bundle::schema}, {u"route"_s, header.route},
        {u"tensorflow"_s, header.tensorflow}, {u"os"_s, u"linux"_s},         {u"python"_s, header.python},
        {u"artifacts"_s, artifacts},          {u"files"_s, files},           {u"warnings"_s, QJsonArray()}};
    return writeFile(QDir(folder).filePath(u"bundle.json"_s), QJsonDocument(root).toJson());
}

bool editBundleJson(const QString &folder, const QString &key, const QJsonValue &value)
{
    const QString path = QDir(folder).filePath(u"bundle.json"_s);
    QJsonObject root = QJsonDocument::fromJson(readFile(path)).object();
    root.insert(key, value);
    return writeFile(path, QJsonDocument(root).toJson());
}

// Turns a good bundle into the kind of bad one a row names. `needed` is the file a plan needs.
bool damage(const QString &folder, const QString &kind, const QString &needed)
{
    if (kind == u"folder missing")
        return QDir(folder).removeRecursively();
    if (kind == u"empty folder")
        return QDir(folder).removeRecursively() && QDir().mkpath(folder);
    if (kind == u"no bundle.json")
        return QFile::remove(QDir(folder).filePath(u"bundle.json"_s));
    if (kind == u"broken bundle.json") {
        const QString path = QDir(folder).filePath(u"bundle.json"_s);
        const QByteArray bytes = readFile(path);
        return writeFile(path, bytes.left(bytes.size() / 2));
    }
    if (kind == u"wrong-typed field")
        return editBundleJson(folder, u"tensorflow"_s, 2.18);
    if (kind == u"other TensorFlow")
        return editBundleJson(folder, u"tensorflow"_s, u"2.17.0"_s);
    if (kind == u"other route")
        return editBundleJson(folder, u"route"_s, u"cpu"_s);
    if (kind == u"other Python")
        return editBundleJson(folder, u"python"_s, u"3.10"_s);
    const QString path = QDir(folder).filePath(needed);
    if (kind == u"file missing")
        return QFile::remove(path);
    if (kind == u"file changed") {
        QByteArray bytes = readFile(path);
        bytes[bytes.size() / 2] = char(bytes.at(bytes.size() / 2) ^ 0x55);
        return writeFile(path, bytes);
    }
    return false;
}

void addBadKinds()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QStringList>("words"); // each must be in the message
    QTest::newRow("folder missing") << u"folder missing"_s << u"bundle_folder_missing"_s
                                    << QStringList{u"does not exist"_s, u"bundle.json"_s};
    QTest::newRow("empty folder") << u"empty folder"_s << u"bundle_empty"_s
                                  << QStringList{u"empty"_s, u"not an offline bundle"_s, u"tfsetup bundle"_s};
    QTest::newRow("folder without bundle.json")
        << u"no bundle.json"_s << u"bundle_missing"_s << QStringList{u"no bundle.json"_s, u"tfsetup bundle"_s};
    QTest::newRow("broken bundle.json") << u"broken bundle.json"_s << u"bundle_malformed"_s
                                        << QStringList{u"bundle.json"_s, u"not valid JSON"_s, u"tfsetup bundle"_s};
    QTest::newRow("wrong-typed field") << u"wrong-typed field"_s << u"bundle_malformed"_s
                                       << QStringList{u"\"tensorflow\""_s, u"tfsetup bundle"_s};
    QTest::newRow("another TensorFlow") << u"other TensorFlow"_s << u"bundle_other_plan"_s
                                        << QStringList{u"TensorFlow 2.17.0"_s, u"TensorFlow 2.18.0"_s,
                                                       u"tfsetup bundle"_s};
    QTest::newRow("another route") << u"other route"_s << u"bundle_other_plan"_s
                                   << QStringList{u"route cpu"_s, u"Choose the plan the bundle was made for"_s};
    QTest::newRow("another Python") << u"other Python"_s << u"bundle_other_plan"_s
                                    << QStringList{u"Python 3.10"_s, u"Python 3.11"_s};
    QTest::newRow("a needed file missing")
        << u"file missing"_s << u"bundle_incomplete"_s << QStringList{u"missing"_s, u"Copy the whole bundle folder"_s};
    QTest::newRow("a needed file changed")
        << u"file changed"_s << u"bundle_corrupt"_s << QStringList{u"do not match their checksums"_s};
}

QString describe(const core::Error &e)
{
    return e.code + u": "_s + e.message + u'\n' + e.detail;
}

} // namespace

class TestOfflineBundle final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void completeBundle_servesAToolkitPlan_withoutAnyRequest();
    void bundleWithoutWheels_sendsPipToTheChosenIndex_andSaysSo();
    void badBundle_isAClearError_beforeAnyRequest_data() { addBadKinds(); }
    void badBundle_isAClearError_beforeAnyRequest();
    void bundleGoneAfterTheResolve_isAnError_notADownload();
    void installOffline_sharesTheChecks_data() { addBadKinds(); }
    void installOffline_sharesTheChecks();
    void installOffline_goodBundle_installs();

private:
    // Every origin, mirror and the proxy lead to the counting server.
    SetupOptions offlineOptions(const QString &bundle) const;
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Run install(const QString &bundle);

    std::unique_ptr<LoopbackServer> m_server;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestOfflineBundle::init()
{
    m_server = std::make_unique<LoopbackServer>();
    QVERIFY(m_server->start());
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

SetupOptions TestOfflineBundle::offlineOptions(const QString &bundle) const
{
    SetupOptions options;
    options.knowledge = test::shippedKnowledge();
    options.prefix = m_dir->filePath(u"envs"_s);
    options.cacheDir = m_dir->filePath(u"cache"_s);
    options.network.bundleDir = bundle;
    options.network.nvidiaMirror = m_server->url(u"/nvidia"_s).toString();
    options.network.pypiIndexes = QStringList{m_server->url(u"/simple"_s).toString()};
    options.network.transfer.proxy = m_server->url(u"/"_s).toString();
    for (const QString &origin : {u"nvidia"_s, u"python"_s, u"python-build-standalone"_s, u"pypi"_s, u"pypi-json"_s})
        options.network.originOverrides.append({origin, m_server->url(u"/"_s + origin)});
    options.network.resolveTimeout = std::chrono::seconds(5);
    return options;
}

void TestOfflineBundle::completeBundle_servesAToolkitPlan_withoutAnyRequest()
{
    const QString folder = m_dir->filePath(u"bundle"_s);
    QVERIFY(writeBundle(folder, {u"linux-toolkit"_s, u"2.18.0"_s, u"3.11"_s}, true, m_server->url(u"/"_s)));
    SetupOptions options = offlineOptions(folder);

    const auto list = tfsetup::test::awaitTask(SetupFlow::resolveArtifacts(toolkitPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY2(list->ok(), qPrintable(list->ok() ? QString() : describe(list->error())));
    const ArtifactList &artifacts = **list;
    QStringList names;
    for (const Artifact &a : artifacts.artifacts)
        names.append(a.name);
    QCOMPARE(names, (QStringList{u"cuda_cudart"_s, u"cudnn"_s, u"python"_s, u"tensorflow"_s}));
    QVERIFY(!artifacts.hasWarning(u"bundle_no_wheelhouse"_s));

    // Nothing to download, nothing to trust on first use.
    const core::DownloadPlan downloads = SetupFlow::downloadPlan(artifacts, {}, options);
    QVERIFY(downloads.problems.isEmpty());
    QVERIFY(downloads.requests.isEmpty());
    QVERIFY(downloads.firstUse.isEmpty());
    options.trustOnFirstUse = true;
    const auto firstUse = tfsetup::test::awaitTask(SetupFlow::fetchFirstUse(artifacts, options));
    QVERIFY(firstUse && firstUse->ok());

    // The installer takes every file from the bundle, the wheels of its lock included.
    const auto bundle = Bundle::open(folder);
    QVERIFY(bundle);
    QCOMPARE(bundle->lock().packages.size(), 1);
    const auto spec = test::installSpecFor(toolkitPlan(), artifacts, {}, options, core::HardwareReport(),
                                           bundle->lock());
    QVERIFY2(spec, qPrintable(spec ? QString() : describe(spec.error())));
    QCOMPARE(spec->lock, bundle->lock());
    QStringList kinds;
    for (const core::InstallArtifact &a : spec->artifacts) {
        kinds.append(a.kind);
        QVERIFY2(QDir::cleanPath(a.path).startsWith(QDir::cleanPath(folder) + u'/'), qPrintable(a.path));
    }
    QCOMPARE(kinds, (QStringList{u"cuda-redist-archive"_s, u"cudnn-archive"_s, u"python-archive"_s, u"wheel"_s}));
    QCOMPARE(m_server->requests().size(), 0);
}

void TestOfflineBundle::bundleWithoutWheels_sendsPipToTheChosenIndex_andSaysSo()
{
    // tfsetup bundle --no-wheelhouse: NVIDIA's archive only, the wheelhouse recorded without wheels.
    const QByteArray payload(4096, 'c');
    Artifact cudart;
    cudart.name = u"cuda_cudart"_s;
    cudart.version = u"12.5.82"_s;
    cudart.platform = u"linux-x86_64"_s;
    cudart.kind = u"cuda-redist-archive"_s;
    cudart.source = u"nvidia-redist"_s;
    cudart.relativePath = u"compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-archive.tar.xz"_s;
    cudart.urls = {m_server->url(u"/"_s + cudart.relativePath)};
    cudart.sha256 = sha256Hex(payload);
    cudart.size = payload.size();
    cudart.trust = Artifact::Trust::Official;
    m_server->route("/" + cudart.relativePath.toUtf8(), tfsetup::test::Response::bytes(payload));
    Artifact wheels;
    wheels.name = u"tensorflow"_s;
    wheels.kind = u"wheelhouse"_s;
    wheels.source = u"pypi"_s;
    wheels.requirement = u"tensorflow==2.18.*"_s;
    wheels.indexUrl = u"http://admin.lab.example/simple"_s;
    wheels.trust = Artifact::Trust::IndexHash;
    ArtifactList made;
    made.route = u"linux-toolkit"_s;
    made.tensorflow = u"2.18.0"_s;
    made.os = u"linux"_s;
    made.artifacts = {cudart, wheels};
    const QString folder = m_dir->filePath(u"bundle"_s);
    core::TransferOptions transfer;
    transfer.connectTimeout = std::chrono::seconds(5);
    transfer.retriesPerMirror = 0;
    core::Downloader downloader(transfer, core::DownloadCache());
    core::BundleWriter writer(downloader);
    core::BundleOptions bundleOptions;
    bundleOptions.directory = folder;
    bundleOptions.includeWheelhouse = false;
    bundleOptions.pythonVersion = u"3.11"_s;
    const auto written = tfsetup::test::awaitTask(writer.write(made, {}, bundleOptions), std::chrono::seconds(60));
    QVERIFY(written);
    QVERIFY2(written->ok(), qPrintable(written->ok() ? QString() : describe(written->error())));
    QVERIFY((*written)->wheelhouse().isEmpty());
    const qsizetype requestsBefore = m_server->requests().size();

    const SetupOptions options = offlineOptions(folder);
    const auto list = tfsetup::test::awaitTask(SetupFlow::resolveArtifacts(toolkitPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY2(list->ok(), qPrintable(list->ok() ? QString() : describe(list->error())));
    QVERIFY((*list)->hasWarning(u"bundle_no_wheelhouse"_s));
    // Not the index of the machine that wrote the bundle: the one chosen here.
    QCOMPARE((*list)->find(u"tensorflow"_s)->indexUrl, options.network.firstPypiIndex());
    core::HardwareReport machine; // this bundle brings no Python: the machine's makes the venv
    machine.pythons = {core::PythonInfo{u"/usr/bin/python3.11"_s, u"3.11.9"_s, u"system"_s, 64, u"path"_s}};
    const auto spec = test::installSpecFor(toolkitPlan(), **list, {}, options, machine);
    QVERIFY2(spec, qPrintable(spec ? QString() : describe(spec.error())));
    // No wheels in the bundle, so none from it: pip's resolver locks them through the chosen
    // index when the setup is prepared (SetupPipeline::prepare), not from the bundle's record.
    QVERIFY(spec->lock.packages.isEmpty());
    QCOMPARE(m_server->requests().size(), requestsBefore);
}

void TestOfflineBundle::badBundle_isAClearError_beforeAnyRequest()
{
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QFETCH(QStringList, words);
    const QString folder = m_dir->filePath(u"bundle"_s);
    QVERIFY(writeBundle(folder, {u"linux-toolkit"_s, u"2.18.0"_s, u"3.11"_s}, true, m_server->url(u"/"_s)));
    // A good bundle first: what the flow will compare against.
    const auto good = Bundle::open(folder);
    QVERIFY(good);
    const auto list = good->artifacts();
    QVERIFY(damage(folder, kind, u"nvidia/compute/cudnn/redist/cudnn/linux-x86_64/"_s + cudnnFile));

    const SetupOptions options = offlineOptions(folder);
    const auto resolved = tfsetup::test::awaitTask(SetupFlow::resolveArtifacts(toolkitPlan(), u"linux"_s, options));
    QVERIFY(resolved);
    QVERIFY2(!resolved->ok(), "a bad bundle is never worked around");
    const core::Error &error = resolved->error();
    QCOMPARE(error.code, code);
    for (const QString &word : words)
        QVERIFY2(error.message.contains(word), qPrintable(word + u" not in: "_s + error.message));
    if (kind == u"file missing" || kind == u"file changed")
        QVERIFY2(error.message.contains(cudnnFile), qPrintable(error.message));
    // Never the network instead: not the resolver, not a mirror, not the proxy.
    QCOMPARE(m_server->requests().size(), 0);

    // The later steps, given the list from before the damage, refuse too where the folder is not
    // a bundle any more (a folder changed between Options and Install).
    if (code != u"bundle_other_plan" && code != u"bundle_corrupt" && code != u"bundle_incomplete") {
        const core::DownloadPlan downloads = SetupFlow::downloadPlan(list, {}, options);
        QVERIFY(downloads.requests.isEmpty());
        QCOMPARE(downloads.problems.size(), 1);
        QCOMPARE(downloads.problems.first().code, code);
        const auto spec = test::installSpecFor(toolkitPlan(), list, {}, options, core::HardwareReport());
        QVERIFY(!spec);
        QCOMPARE(spec.error().code, code);
    }
}

void TestOfflineBundle::bundleGoneAfterTheResolve_isAnError_notADownload()
{
    // The list the Options page committed names a file this bundle does not hold (another
    // bundle was chosen since): it is missing, not fetched from the URLs the list recorded.
    const QString folder = m_dir->filePath(u"bundle"_s);
    QVERIFY(writeBundle(folder, {u"linux-toolkit"_s, u"2.18.0"_s, u"3.11"_s}, true, m_server->url(u"/"_s)));
    const auto bundle = Bundle::open(folder);
    QVERIFY(bundle);
    ArtifactList list = bundle->artifacts();
    Artifact other = *list.find(u"cudnn"_s);
    other.name = u"libcublas"_s;
    other.sha256 = sha256Hex("another file");
    list.artifacts.append(other);
    const SetupOptions options = offlineOptions(folder);
    const core::DownloadPlan downloads = SetupFlow::downloadPlan(list, {}, options);
    QVERIFY(downloads.requests.isEmpty());
    QCOMPARE(downloads.problems.size(), 1);
    QCOMPARE(downloads.problems.first().code, u"bundle_incomplete"_s);
    QVERIFY(downloads.problems.first().message.contains(cudnnFile));
    const auto spec = test::installSpecFor(toolkitPlan(), list, {}, options, core::HardwareReport());
    QVERIFY(!spec);
    QCOMPARE(spec.error().code, u"bundle_incomplete"_s);
    QCOMPARE(m_server->requests().size(), 0);
}

TestOfflineBundle::Run TestOfflineBundle::install(const QString &bundle)
{
    const QString home = m_dir->filePath(u"home"_s);
    QDir().mkpath(home);
    const QString profile = m_dir->filePath(u"lab.json"_s);
    // Libraries and launchers only (interpreter "none"): the venv and pip are covered by the
    // journeys and core_venv.
    writeFile(profile, R"({"schema": 1, "title": "Offline lab", "environment": "tf-offline",
                           "installFolder": "${HOME}/envs", "interpreter": "none",
                           "plan": {"route": "linux-pip", "tensorflow": "2.18.0", "python": "3.11"},
                           "kernel": {"register": false}, "desktopEntry": false})");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"HOME"_s, home);
    env.insert(u"XDG_DATA_HOME"_s, home + u"/data"_s);
    // Anything that tried the network would meet the counting server.
    for (const QString &name : {u"http_proxy"_s, u"https_proxy"_s, u"HTTPS_PROXY"_s, u"ALL_PROXY"_s})
        env.insert(name, m_server->url(u"/"_s).toString());
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("TFSETUP_BINARY"),
            {u"install"_s, u"--profile"_s, profile, u"--yes"_s, u"--json"_s, u"--offline"_s, u"--from"_s, bundle});
    if (!p.waitForFinished(60000))
        p.kill();
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

void TestOfflineBundle::installOffline_sharesTheChecks()
{
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QFETCH(QStringList, words);
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "TFSETUP_BINARY is not set: run through ctest");
    const QString folder = m_dir->filePath(u"bundle"_s);
    QVERIFY(writeBundle(folder, {u"linux-pip"_s, u"2.18.0"_s, u"3.11"_s}, false, m_server->url(u"/"_s)));
    QVERIFY(damage(folder, kind, u"wheelhouse/"_s + wheelName));

    const Run run = install(folder);
    QVERIFY2(run.exitCode == 1, qPrintable(run.out + run.err));
    const QJsonObject error = QJsonDocument::fromJson(run.out.toUtf8()).object().value(u"error"_s).toObject();
    QVERIFY2(error.value(u"code"_s).toString() == code, qPrintable(run.out + run.err));
    const QString message = error.value(u"message"_s).toString();
    for (const QString &word : words)
        QVERIFY2(message.contains(word), qPrintable(word + u" not in: "_s + message));
    if (kind == u"file missing" || kind == u"file changed")
        QVERIFY2(message.contains(wheelName), qPrintable(message));
    QVERIFY2(run.err.contains(u"error:"_s), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(m_dir->filePath(u"home/envs/tf-offline"_s)));
    QCOMPARE(m_server->requests().size(), 0);
}

void TestOfflineBundle::installOffline_goodBundle_installs()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "TFSETUP_BINARY is not set: run through ctest");
    const QString folder = m_dir->filePath(u"bundle"_s);
    // Made for TensorFlow 2.18.1: the same release line as the profile's 2.18.0, so it serves it.
    QVERIFY(writeBundle(folder, {u"linux-pip"_s, u"2.18.1"_s, u"3.11"_s}, false, m_server->url(u"/"_s)));
    const Run run = install(folder);
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY(QFileInfo::exists(m_dir->filePath(u"home/envs/tf-offline/environment.json"_s)));
    QCOMPARE(m_server->requests().size(), 0);
}

QTEST_GUILESS_MAIN(TestOfflineBundle)
#include "test_offlinebundle.moc"
