// The setup flow shared by the wizard and the command line: plan + options to the resolver's
// request and mirrors, artifacts to download requests, verified downloads to the installer's
// spec, and the advice on install folders. Resolution runs against NVIDIA's layout on loopback.

#include "fetch/downloader.h"
#include "catalog/knowledge.h"
#include "setup/pipeline.h"
#include "setup/setupflow.h"
#include "setup/setupsession.h"
#include "sources/firstuse.h"
#include "support/coroutinetest.h"
#include "support/installspec.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/rootedsystem.h"

#include <QCryptographicHash>
#include <QDate>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using core::Artifact;
using core::ArtifactList;
using core::DownloadResult;
using core::HardwareReport;
using core::LockedWheel;
using core::Plan;
using core::PyLock;
using core::SetupFlow;
using core::SetupOptions;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

Q_DECLARE_METATYPE(tfsetup::core::Plan)
Q_DECLARE_METATYPE(tfsetup::core::ArtifactList)
Q_DECLARE_METATYPE(tfsetup::core::OsFamily)
Q_DECLARE_METATYPE(tfsetup::core::PyLock)

namespace {

Plan gpuPlan()
{
    Plan p;
    p.route = u"linux-toolkit"_s;
    p.tensorflow = u"2.18.0"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    p.cuda = u"12.5"_s;
    p.cudnn = u"8.9"_s; // the real 8.9.7 manifest is in the test data
    p.driverMin = u"525.60.13"_s;
    return p;
}

Plan cpuPlan()
{
    Plan p;
    p.route = u"cpu"_s;
    p.tensorflow = u"2.16.1"_s;
    p.package = u"tensorflow"_s;
    p.python = u"3.11"_s;
    p.pythonInstalled = true;
    return p;
}

HardwareReport machineWith(const QList<core::PythonInfo> &pythons)
{
    HardwareReport r;
    r.os.family = u"linux"_s;
    r.pythons = pythons;
    r.driver = core::DriverInfo{u"550.54.14"_s, u"12.4"_s, u"nvml"_s};
    return r;
}

Artifact archive(const QString &name, const QString &kind, const QString &file, const QString &sha256)
{
    Artifact a;
    a.name = name;
    a.version = u"1.2.3"_s;
    a.platform = u"linux-x86_64"_s;
    a.kind = kind;
    a.relativePath = u"compute/cuda/redist/"_s + name + u'/' + file;
    a.urls = {QUrl(u"https://mirror.example/"_s + a.relativePath),
              QUrl(u"https://developer.download.nvidia.com/"_s + a.relativePath)};
    a.sha256 = sha256;
    a.size = 1234;
    a.trust = sha256.isEmpty() ? Artifact::Trust::None : Artifact::Trust::Official;
    return a;
}

Artifact wheelhouse(const QString &indexUrl)
{
    Artifact a;
    a.name = u"tensorflow"_s;
    a.kind = u"wheelhouse"_s;
    a.requirement = u"tensorflow==2.18.*"_s;
    a.indexUrl = indexUrl;
    a.trust = Artifact::Trust::IndexHash;
    return a;
}

const QString sha = u"aa00000000000000000000000000000000000000000000000000000000000000"_s;
const QString sha2 = u"bb00000000000000000000000000000000000000000000000000000000000000"_s;

// A lock of one wheel, as pip's resolver made it through the index `index`.
PyLock lockOf(const QString &index)
{
    core::LockedWheel wheel;
    wheel.name = u"tensorflow"_s;
    wheel.version = u"2.18.0"_s;
    wheel.file = u"tensorflow-2.18.0-py3-none-any.whl"_s;
    wheel.url = index.section(u"/simple"_s, 0, 0) + u"/packages/ab/cd/tensorflow-2.18.0-py3-none-any.whl"_s;
    wheel.size = 4096;
    wheel.sha256 = "cc00000000000000000000000000000000000000000000000000000000000000";
    wheel.index = index;
    wheel.requested = true;
    PyLock lock;
    lock.packages = {wheel};
    return lock;
}

QByteArray readManifest(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSetupFlow final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void resolveRequest_copiesThePlan_data();
    void resolveRequest_copiesThePlan();
    void mirrors_followTheOptions_data();
    void mirrors_followTheOptions();
    void mirrors_catalogNamed_comeAfterTheOptions();
    void mirrors_catalogList_wrongShape_isRefused_data();
    void mirrors_catalogList_wrongShape_isRefused();
    void downloadPlan_fetchesOnlyVerifiableFiles_data();
    void downloadPlan_fetchesOnlyVerifiableFiles();
    void installSpec_mapsDownloadsToArtifacts_data();
    void installSpec_mapsDownloadsToArtifacts();
    void installSpec_relocatablePythonStandsInForAMissingOne();
    void installSpec_pythonOrgInstallerWithItsMd5();
    void pythonFor_prefersARealInstallation_data();
    void pythonFor_prefersARealInstallation();
    void adviseOnPath_warnsWhereWindowsToolsBreak_data();
    void adviseOnPath_warnsWhereWindowsToolsBreak();
    void toolkitPlan_onLoopback_reachesAnInstallSpec();
    void withoutKnowledge_nothingIsAskedOrWritten();
    void defaultPrefix_isUnderHome();
    void firstUse_acceptsPlainHttpOnlyFromMirrorsAndLoopback_data();
    void firstUse_acceptsPlainHttpOnlyFromMirrorsAndLoopback();
    void noChecksumAnywhere_isFetchedOnlyWithTrustOnFirstUse();
    void firstUse_missingFile_namesIt();
    void firstUse_stopsOnCancelAndOnStall();
    void wheelUrls_takeCredentialsFromTheConfiguredIndexOnly();
};

void TestSetupFlow::resolveRequest_copiesThePlan_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<QString>("os");
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("requirement");

    QTest::newRow("gpu toolkit plan") << gpuPlan() << u"linux"_s << u"12.5"_s << u"tensorflow==2.18.*"_s;
    Plan windows = gpuPlan();
    windows.route = u"windows-native"_s;
    windows.tensorflow = u"2.10.1"_s;
    windows.cuda = u"11.2"_s;
    windows.pythonInstalled = false;
    QTest::newRow("windows native plan") << windows << u"windows"_s << u"11.2"_s << u"tensorflow==2.10.*"_s;
    QTest::newRow("cpu plan has no cuda") << cpuPlan() << u"linux"_s << QString() << u"tensorflow==2.16.*"_s;
}

void TestSetupFlow::resolveRequest_copiesThePlan()
{
    QFETCH(Plan, plan);
    QFETCH(QString, os);
    QFETCH(QString, cuda);
    QFETCH(QString, requirement);
    const core::ResolveRequest r = SetupFlow::resolveRequest(plan, os);
    QCOMPARE(r.route, plan.route);
    QCOMPARE(r.tensorflow, plan.tensorflow);
    QCOMPARE(r.os, os);
    QCOMPARE(r.cuda, cuda);
    QCOMPARE(r.cudnn, plan.cudnn);
    QCOMPARE(r.python, plan.python);
    QCOMPARE(r.pythonInstalled, plan.pythonInstalled);
    QCOMPARE(r.requirement, requirement);
}

namespace {

// The built-in sources catalog with a "mirrors" list, as a lab's signed copy carries it.
QByteArray sourcesWithMirrors(const QJsonValue &mirrors)
{
    QFile f(u":/resources/catalog/sources.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    root.insert(u"mirrors"_s, mirrors);
    return QJsonDocument(root).toJson();
}

} // namespace

void TestSetupFlow::mirrors_catalogNamed_comeAfterTheOptions()
{
    const auto catalog = core::SourceCatalog::fromJson(sourcesWithMirrors(QJsonArray{
        QJsonObject{{u"origin"_s, u"nvidia"_s}, {u"url"_s, u"http://mirror.lab.example/"_s}, {u"note"_s, u"lab"_s}},
        QJsonObject{{u"origin"_s, u"python"_s}, {u"url"_s, u"file:///srv/python"_s}}}));
    QVERIFY2(catalog, qPrintable(catalog ? QString() : catalog.error().message));
    QCOMPARE(catalog->mirrors().size(), 2);
    SetupOptions options;
    options.network.nvidiaMirror = u"https://nv.option.example"_s;
    const auto set = SetupFlow::mirrors(options, *catalog);
    QVERIFY(set);
    QStringList bases;
    for (const core::Mirror &m : set->forOrigin(u"nvidia"_s))
        bases.append(m.urlFor(u"compute/cuda/redist/x.json"_s).toString());
    QCOMPARE(bases,
             (QStringList{u"https://nv.option.example/compute/cuda/redist/x.json"_s,
                          u"http://mirror.lab.example/compute/cuda/redist/x.json"_s}));
    QCOMPARE(set->forOrigin(u"python"_s).size(), 1);

    // Offline, the bundle alone serves.
    QTemporaryDir bundle;
    options.network.nvidiaMirror.clear();
    options.network.offline = true;
    const auto offline = SetupFlow::mirrors(options, *catalog);
    QVERIFY(offline);
    QVERIFY(offline->isEmpty());
    // The built-in catalog names none.
    QVERIFY(core::SourceCatalog::load()->mirrors().isEmpty());
}

void TestSetupFlow::mirrors_catalogList_wrongShape_isRefused_data()
{
    QTest::addColumn<QJsonValue>("mirrors");
    QTest::addColumn<QString>("named");
    QTest::newRow("not a list") << QJsonValue(u"http://m"_s) << u"mirrors"_s;
    QTest::newRow("entry not an object") << QJsonValue(QJsonArray{1}) << u"mirrors[0]"_s;
    QTest::newRow("unknown origin") << QJsonValue(
        QJsonArray{QJsonObject{{u"origin"_s, u"conda"_s}, {u"url"_s, u"http://m"_s}}})
                                    << u"mirrors[0].origin"_s;
    QTest::newRow("pypi is an option") << QJsonValue(
        QJsonArray{QJsonObject{{u"origin"_s, u"pypi"_s}, {u"url"_s, u"http://m"_s}}})
                                       << u"mirrors[0].origin"_s;
    QTest::newRow("url a number") << QJsonValue(QJsonArray{QJsonObject{{u"origin"_s, u"nvidia"_s}, {u"url"_s, 5}}})
                                  << u"mirrors[0].url"_s;
    QTest::newRow("ftp url") << QJsonValue(
        QJsonArray{QJsonObject{{u"origin"_s, u"nvidia"_s}, {u"url"_s, u"ftp://m/x"_s}}})
                             << u"mirrors[0].url"_s;
    QTest::newRow("note a list") << QJsonValue(
        QJsonArray{QJsonObject{{u"origin"_s, u"nvidia"_s}, {u"url"_s, u"http://m"_s}, {u"note"_s, QJsonArray{}}}})
                                 << u"mirrors[0].note"_s;
}

void TestSetupFlow::mirrors_catalogList_wrongShape_isRefused()
{
    QFETCH(QJsonValue, mirrors);
    QFETCH(QString, named);
    const auto catalog = core::SourceCatalog::fromJson(sourcesWithMirrors(mirrors));
    QVERIFY(!catalog);
    QCOMPARE(catalog.error().code, u"catalog_malformed"_s);
    QVERIFY2(catalog.error().message.contains(u'"' + named + u'"'), qPrintable(catalog.error().message));
}

void TestSetupFlow::mirrors_followTheOptions_data()
{
    QTest::addColumn<QString>("nvidia");
    QTest::addColumn<QString>("pypi");
    QTest::addColumn<bool>("withBundle");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QStringList>("nvidiaBases"); // in order
    QTest::addColumn<QString>("pypiBase");

    QTest::newRow("none") << QString() << QString() << false << QString() << QStringList() << QString();
    QTest::newRow("pypi preset is not a mirror")
        << QString() << u"pypi"_s << false << QString() << QStringList() << QString();
    QTest::newRow("nvidia url") << u"https://nv.lab.example/nvidia/"_s << QString() << false << QString()
                                << QStringList{u"https://nv.lab.example/nvidia"_s} << QString();
    QTest::newRow("tuna preset") << QString() << u"tuna"_s << false << QString() << QStringList()
                                 << u"https://pypi.tuna.tsinghua.edu.cn/simple"_s;
    QTest::newRow("index url") << QString() << u"http://10.0.0.5:8080/simple"_s << false << QString() << QStringList()
                               << u"http://10.0.0.5:8080/simple"_s;
    QTest::newRow("missing nvidia folder")
        << u"/no/such/folder"_s << QString() << false << u"mirror_invalid"_s << QStringList() << QString();
    QTest::newRow("bundle first, then the lab mirror")
        << u"https://nv.lab.example"_s << QString() << true << QString()
        << QStringList{u"BUNDLE/nvidia"_s, u"https://nv.lab.example"_s} << QString();
}

void TestSetupFlow::mirrors_followTheOptions()
{
    QFETCH(QString, nvidia);
    QFETCH(QString, pypi);
    QFETCH(bool, withBundle);
    QFETCH(QString, error);
    QFETCH(QStringList, nvidiaBases);
    QFETCH(QString, pypiBase);

    const auto catalog = core::SourceCatalog::load();
    QVERIFY(catalog);
    QTemporaryDir bundle;
    SetupOptions options;
    options.network.nvidiaMirror = nvidia;
    options.network.pypiIndexes = QStringList{pypi};
    if (withBundle)
        options.network.bundleDir = bundle.path();
    const auto set = SetupFlow::mirrors(options, *catalog);
    if (!error.isEmpty()) {
        QVERIFY(!set);
        QCOMPARE(set.error().code, error);
        QVERIFY(!set.error().message.isEmpty());
        return;
    }
    QVERIFY2(set, qPrintable(set ? QString() : set.error().message));
    QStringList bases;
    for (const core::Mirror &m : set->forOrigin(u"nvidia"_s))
        bases.append(m.base.toString().replace(QUrl::fromLocalFile(bundle.path()).toString(), u"BUNDLE"_s));
    QCOMPARE(bases, nvidiaBases);
    const auto pypiMirrors = set->forOrigin(u"pypi"_s);
    QCOMPARE(pypiMirrors.isEmpty() ? QString() : pypiMirrors.first().base.toString(), pypiBase);
}

void TestSetupFlow::downloadPlan_fetchesOnlyVerifiableFiles_data()
{
    QTest::addColumn<ArtifactList>("list");
    QTest::addColumn<QStringList>("destinations"); // file names below the cache folder
    QTest::addColumn<QStringList>("problems");

    ArtifactList toolkit;
    toolkit.artifacts = {archive(u"cuda_cudart"_s, u"cuda-redist-archive"_s, u"cudart-archive.tar.xz"_s, sha),
                         archive(u"cudnn"_s, u"cudnn-archive"_s, u"cudnn-archive.tar.xz"_s, sha2),
                         wheelhouse(u"https://pypi.org/simple"_s)};
    QTest::newRow("archives are fetched, the wheelhouse is pip's")
        << toolkit << QStringList{u"cudart-archive.tar.xz"_s, u"cudnn-archive.tar.xz"_s} << QStringList();

    ArtifactList unverifiable = toolkit;
    unverifiable.artifacts[1].sha256.clear();
    unverifiable.artifacts[1].trust = Artifact::Trust::None;
    QTest::newRow("no checksum anywhere is a problem, not a download")
        << unverifiable << QStringList{u"cudart-archive.tar.xz"_s} << QStringList{u"artifact_unverifiable"_s};

    ArtifactList optional = unverifiable;
    optional.artifacts[1].optional = true;
    QTest::newRow("an optional unverifiable file is left out")
        << optional << QStringList{u"cudart-archive.tar.xz"_s} << QStringList();

    ArtifactList cpu;
    cpu.artifacts = {wheelhouse(u"https://pypi.org/simple"_s)};
    QTest::newRow("cpu plan downloads nothing itself") << cpu << QStringList() << QStringList();
}

void TestSetupFlow::downloadPlan_fetchesOnlyVerifiableFiles()
{
    QFETCH(ArtifactList, list);
    QFETCH(QStringList, destinations);
    QFETCH(QStringList, problems);

    SetupOptions options;
    options.cacheDir = u"/var/cache/tfsetup"_s;
    const core::DownloadPlan plan = SetupFlow::downloadPlan(list, {}, options);
    QStringList names;
    for (const core::DownloadRequest &r : plan.requests) {
        QCOMPARE(QFileInfo(r.destination).absolutePath(), options.cacheDir);
        QVERIFY(!r.urls.isEmpty());
        QCOMPARE(r.urls.constLast().host(), u"developer.download.nvidia.com"_s); // official last
        QCOMPARE(r.checksum.algorithm, core::Checksum::Algorithm::Sha256);
        QCOMPARE(r.expectedSize, qint64(1234));
        names.append(QFileInfo(r.destination).fileName());
    }
    QCOMPARE(names, destinations);
    QStringList codes;
    for (const core::Finding &f : plan.problems) {
        codes.append(f.code);
        QVERIFY(!f.message.isEmpty());
    }
    QCOMPARE(codes, problems);
}

void TestSetupFlow::installSpec_mapsDownloadsToArtifacts_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<ArtifactList>("list");
    QTest::addColumn<PyLock>("lock");
    QTest::addColumn<bool>("downloadAll");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QStringList>("artifactPaths"); // file names

    ArtifactList toolkit;
    toolkit.artifacts = {archive(u"cuda_cudart"_s, u"cuda-redist-archive"_s, u"cudart-archive.tar.xz"_s, sha),
                         archive(u"cudnn"_s, u"cudnn-archive"_s, u"cudnn-archive.tar.xz"_s, sha2),
                         wheelhouse(u"https://pypi.tuna.tsinghua.edu.cn/simple"_s)};
    const PyLock tuna = lockOf(u"https://pypi.tuna.tsinghua.edu.cn/simple"_s);
    QTest::newRow("verified archives and the locked wheels")
        << gpuPlan() << toolkit << tuna << true << QString()
        << QStringList{u"cudart-archive.tar.xz"_s, u"cudnn-archive.tar.xz"_s, u"tensorflow-2.18.0-py3-none-any.whl"_s};
    QTest::newRow("a missing download stops the install")
        << gpuPlan() << toolkit << tuna << false << u"artifact_not_downloaded"_s << QStringList();

    ArtifactList lab;
    lab.artifacts = {wheelhouse(u"http://10.0.0.5:8080/simple"_s)};
    QTest::newRow("a plain-http lab index's wheel, verified like any other")
        << cpuPlan() << lab << lockOf(u"http://10.0.0.5:8080/simple"_s) << true << QString()
        << QStringList{u"tensorflow-2.18.0-py3-none-any.whl"_s};

    ArtifactList installer = toolkit;
    installer.artifacts[0].kind = u"cuda-installer"_s;
    QTest::newRow("a full installer is not run by the wizard")
        << gpuPlan() << installer << tuna << true << u"artifact_unsupported"_s << QStringList();

    Plan noPython = cpuPlan();
    noPython.python = u"3.9"_s;
    QTest::newRow("no interpreter of the plan's python")
        << noPython << lab << PyLock() << true << u"python_missing"_s << QStringList();
}

void TestSetupFlow::installSpec_mapsDownloadsToArtifacts()
{
    QFETCH(Plan, plan);
    QFETCH(ArtifactList, list);
    QFETCH(PyLock, lock);
    QFETCH(bool, downloadAll);
    QFETCH(QString, error);
    QFETCH(QStringList, artifactPaths);

    SetupOptions options;
    options.prefix = u"/home/student/tfsetup-envs"_s;
    options.name = u"  my-env "_s;
    options.cacheDir = u"/var/cache/tfsetup"_s;
    options.network.transfer.proxy = u"http://proxy.campus:3128"_s;
    QList<DownloadResult> results;
    const core::DownloadPlan downloads = SetupFlow::downloadPlan(list, lock, options);
    for (const core::DownloadRequest &r : downloads.requests) {
        if (!downloadAll && !results.isEmpty())
            break;
        results.append(DownloadResult{r.destination, 1234, r.urls.first(), false, false});
    }
    const HardwareReport machine = machineWith(
        {{u"/home/student/venvs/old/bin/python"_s, u"3.11.2"_s, u"venv"_s, 64, u"path"_s},
         {u"/usr/bin/python3.11"_s, u"3.11.2"_s, u"system"_s, 64, u"path"_s}});

    const auto spec = test::installSpecFor(plan, list, results, options, machine, lock);
    if (!error.isEmpty()) {
        QVERIFY(!spec);
        QCOMPARE(spec.error().code, error);
        QVERIFY(!spec.error().message.isEmpty());
        return;
    }
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->name, u"my-env"_s);
    QCOMPARE(spec->prefix, options.prefix);
    QCOMPARE(spec->route, plan.route);
    QCOMPARE(spec->tensorflow, plan.tensorflow);
    QCOMPARE(spec->driver, u"550.54.14"_s);
    QCOMPARE(spec->pythonInterpreter, u"/usr/bin/python3.11"_s);
    QStringList paths;
    for (const core::InstallArtifact &a : spec->artifacts) {
        paths.append(QFileInfo(a.path).fileName());
        if (a.kind == u"wheel") {
            // The lock's wheel, with its hash; the origin is the lock's URL, whichever copy served it.
            const LockedWheel *w = lock.find(a.component);
            QVERIFY(w);
            QCOMPARE(a.sha256, w->sha256);
            QCOMPARE(a.origin, w->url);
            continue;
        }
        const Artifact *source = list.find(a.component);
        QVERIFY(source);
        QCOMPARE(QString::fromLatin1(a.sha256), source->sha256);
        QCOMPARE(a.kind, source->kind);
        QVERIFY(a.origin.startsWith(u"https://mirror.example/"_s)); // the mirror it came from
    }
    QCOMPARE(paths, artifactPaths);
    QCOMPARE(spec->lock, lock);
    // The Jupyter kernel and, as the Options page's default, JupyterLab join the plan's TensorFlow.
    QCOMPARE(spec->effectiveRequirements(), (QStringList{plan.requirement(), u"ipykernel"_s, u"jupyterlab"_s}));
    SetupOptions withoutJupyter = options;
    withoutJupyter.jupyter = false;
    const auto kernelOnly = test::installSpecFor(plan, list, results, withoutJupyter, machine, lock);
    QVERIFY(kernelOnly);
    QCOMPARE(kernelOnly->effectiveRequirements(), (QStringList{plan.requirement(), u"ipykernel"_s}));
    QVERIFY(kernelOnly->fingerprint() != spec->fingerprint());
}

void TestSetupFlow::installSpec_relocatablePythonStandsInForAMissingOne()
{
    Plan plan = cpuPlan();
    plan.python = u"3.9"_s; // the machine has only 3.11
    plan.pythonInstalled = false;
    ArtifactList list;
    list.artifacts = {archive(u"python"_s, u"python-archive"_s,
                              u"cpython-3.9.25+20251031-x86_64-unknown-linux-gnu-install_only.tar.gz"_s, sha),
                      wheelhouse(u"https://pypi.tuna.tsinghua.edu.cn/simple"_s)};
    SetupOptions options;
    options.prefix = u"/home/student/tfsetup-envs"_s;
    options.cacheDir = u"/var/cache/tfsetup"_s;
    const core::DownloadPlan downloads = SetupFlow::downloadPlan(list, {}, options);
    QCOMPARE(downloads.requests.size(), 1); // the Python archive goes through the downloader
    const QList<DownloadResult> results{
        {downloads.requests.first().destination, 1234, downloads.requests.first().urls.first(), false, false}};
    const auto spec = test::installSpecFor(
        plan, list, results, options,
        machineWith({{u"/usr/bin/python3.11"_s, u"3.11.2"_s, u"system"_s, 64, u"path"_s}}));
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QVERIFY(spec->pythonInterpreter.isEmpty());
    QCOMPARE(spec->artifacts.size(), 1);
    QCOMPARE(spec->artifacts.first().kind, u"python-archive"_s);
    QCOMPARE(QString::fromLatin1(spec->artifacts.first().sha256), sha);
}

void TestSetupFlow::installSpec_pythonOrgInstallerWithItsMd5()
{
    Plan plan = cpuPlan();
    plan.python = u"3.10"_s;
    plan.pythonInstalled = false;
    Artifact setup = archive(u"python"_s, u"python-installer"_s, u"python-3.10.11-amd64.exe"_s, QString());
    setup.md5 = u"0123456789abcdef0123456789abcdef"_s; // python.org published no SHA-256 for it
    setup.trust = Artifact::Trust::OfficialMd5;
    setup.installArguments = {u"/quiet"_s, u"TargetDir={prefix}"_s};
    ArtifactList list;
    list.artifacts = {setup, wheelhouse(u"https://pypi.tuna.tsinghua.edu.cn/simple"_s)};
    SetupOptions options;
    options.prefix = u"C:/Users/student/tfsetup-envs"_s;
    options.cacheDir = u"/var/cache/tfsetup"_s;
    const core::DownloadPlan downloads = SetupFlow::downloadPlan(list, {}, options);
    QCOMPARE(downloads.requests.size(), 1);
    const QList<DownloadResult> results{
        {downloads.requests.first().destination, 1234, downloads.requests.first().urls.first(), false, true}};
    const auto spec = test::installSpecFor(plan, list, results, options, machineWith({}));
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->artifacts.size(), 1);
    const core::InstallArtifact &a = spec->artifacts.first();
    QCOMPARE(a.kind, u"python-installer"_s);
    QVERIFY(a.sha256.isEmpty());
    QCOMPARE(a.md5, QByteArray("0123456789abcdef0123456789abcdef"));
    QCOMPARE(a.arguments, setup.installArguments);
}

void TestSetupFlow::pythonFor_prefersARealInstallation_data()
{
    QTest::addColumn<QList<core::PythonInfo>>("pythons");
    QTest::addColumn<QString>("expected");

    const core::PythonInfo venv{u"/home/s/venv/bin/python"_s, u"3.11.4"_s, u"venv"_s, 64, u"path"_s};
    const core::PythonInfo system{u"/usr/bin/python3.11"_s, u"3.11.4"_s, u"system"_s, 64, u"path"_s};
    const core::PythonInfo other{u"/usr/bin/python3.12"_s, u"3.12.3"_s, u"system"_s, 64, u"path"_s};
    const core::PythonInfo thirtyTwo{u"C:/Python311-32/python.exe"_s, u"3.11.4"_s, u"system"_s, 32, u"registry"_s};
    const core::PythonInfo eleven{u"/opt/python3.110"_s, u"3.110.0"_s, u"system"_s, 64, u"path"_s};

    QTest::newRow("system over venv") << QList<core::PythonInfo>{venv, system} << system.path;
    QTest::newRow("a venv when nothing else") << QList<core::PythonInfo>{other, venv} << venv.path;
    QTest::newRow("32-bit never") << QList<core::PythonInfo>{thirtyTwo} << QString();
    QTest::newRow("minor must match exactly, 3.110 is not 3.11") << QList<core::PythonInfo>{eleven} << QString();
    QTest::newRow("none") << QList<core::PythonInfo>{} << QString();
}

void TestSetupFlow::pythonFor_prefersARealInstallation()
{
    QFETCH(QList<core::PythonInfo>, pythons);
    QFETCH(QString, expected);
    QCOMPARE(SetupFlow::pythonFor(cpuPlan(), machineWith(pythons)), expected);
}

void TestSetupFlow::adviseOnPath_warnsWhereWindowsToolsBreak_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<core::OsFamily>("os");
    QTest::addColumn<QStringList>("codes");
    QTest::addColumn<bool>("blocking");

    QTest::newRow("plain windows folder")
        << u"C:/Users/student/tfsetup-envs"_s << core::OsFamily::Windows << QStringList() << false;
    QTest::newRow("chinese user name on windows")
        << u"C:\\Users\\张三\\tfsetup-envs"_s << core::OsFamily::Windows << QStringList{u"non_ascii"_s} << false;
    QTest::newRow("very long windows folder")
        << (u"C:\\"_s + QString(150, u'x')) << core::OsFamily::Windows << QStringList{u"too_long"_s} << false;
    QTest::newRow("relative folder") << u"tfsetup-envs"_s << core::OsFamily::Windows << QStringList{u"not_absolute"_s}
                                     << true;
    QTest::newRow("chinese folder on linux is fine")
        << u"/home/张三/tfsetup-envs"_s << core::OsFamily::Linux << QStringList() << false;
    QTest::newRow("relative on linux") << u"envs"_s << core::OsFamily::Linux << QStringList{u"not_absolute"_s} << true;
}

void TestSetupFlow::adviseOnPath_warnsWhereWindowsToolsBreak()
{
    QFETCH(QString, path);
    QFETCH(core::OsFamily, os);
    QFETCH(QStringList, codes);
    QFETCH(bool, blocking);
    const auto advice = SetupFlow::adviseOnPath(path, os);
    QStringList found;
    bool anyBlocking = false;
    for (const core::PathAdvice &a : advice) {
        found.append(a.code);
        anyBlocking = anyBlocking || a.blocking;
        QVERIFY(!a.message.isEmpty());
    }
    QCOMPARE(found, codes);
    QCOMPARE(anyBlocking, blocking);
}

void TestSetupFlow::withoutKnowledge_nothingIsAskedOrWritten()
{
    // A driver that did not load the catalog: the files are not looked up, the pipeline neither
    // asks the network nor makes the download folder, and says so in one sentence.
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    QTemporaryDir dir;
    SetupOptions options;
    options.prefix = dir.filePath(u"envs"_s);
    options.cacheDir = dir.filePath(u"cache"_s);
    options.network.originOverrides = {{u"nvidia"_s, nvidia.url(u"/"_s)}, {u"pypi-json"_s, nvidia.url(u"/pypi"_s)}};
    const auto list = tfsetup::test::awaitTask(SetupFlow::resolveArtifacts(gpuPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY(!list->ok());
    QCOMPARE(list->error().code, u"catalog_not_given"_s);

    core::RootedSystem system(dir.filePath(u"machine"_s), core::OsFamily::Linux, {{u"HOME"_s, u"/home/student"_s}});
    core::SetupPipeline pipeline(system);
    core::InstallSpec spec;
    spec.prefix = options.prefix;
    spec.name = u"tf2.18-cuda12.5"_s;
    const auto prepared = tfsetup::test::awaitTask(pipeline.prepare(gpuPlan(), spec, options));
    QVERIFY(prepared);
    QVERIFY(!prepared->ok());
    QCOMPARE(prepared->error().code, u"catalog_not_given"_s);
    QVERIFY2(prepared->error().message.contains(u"knowledge catalog"_s), qPrintable(prepared->error().message));
    QVERIFY(nvidia.requests().isEmpty());
    QVERIFY(!QFileInfo::exists(options.cacheDir));
    QVERIFY(!QFileInfo::exists(options.prefix));
}

void TestSetupFlow::toolkitPlan_onLoopback_reachesAnInstallSpec()
{
    LoopbackServer nvidia;
    QVERIFY(nvidia.start());
    nvidia.route("/compute/cuda/redist/redistrib_12.5.1.json",
                 Response::bytes(readManifest(u"cuda/redistrib_12.5.1.json"_s), "application/json"));
    nvidia.route("/compute/cudnn/redist/redistrib_8.9.7.json",
                 Response::bytes(readManifest(u"cudnn/redistrib_8.9.7.json"_s), "application/json"));

    QTemporaryDir cache;
    SetupOptions options;
    options.knowledge = test::shippedKnowledge();
    options.prefix = u"/home/student/tfsetup-envs"_s;
    options.cacheDir = cache.path();
    options.network.pypiIndexes = QStringList{u"tuna"_s};
    options.network.originOverrides = {{u"nvidia"_s, nvidia.url(u"/"_s)}, {u"pypi-json"_s, nvidia.url(u"/pypi"_s)}};
    options.network.resolveTimeout = std::chrono::seconds(5);

    const auto list = tfsetup::test::awaitTask(SetupFlow::resolveArtifacts(gpuPlan(), u"linux"_s, options));
    QVERIFY(list);
    QVERIFY2(list->ok(), qPrintable(list->ok() ? QString() : list->error().message + u'\n' + list->error().detail));
    const ArtifactList &artifacts = **list;
    QVERIFY(artifacts.find(u"cuda_cudart"_s));
    QVERIFY(artifacts.find(u"cudnn"_s));
    QCOMPARE(artifacts.find(u"tensorflow"_s)->indexUrl, u"https://pypi.tuna.tsinghua.edu.cn/simple"_s);

    const core::DownloadPlan downloads = SetupFlow::downloadPlan(artifacts, {}, options);
    QVERIFY(downloads.problems.isEmpty());
    QCOMPARE(downloads.requests.size(), artifacts.artifacts.size() - 1); // all but the wheelhouse
    QList<DownloadResult> results;
    for (const core::DownloadRequest &r : downloads.requests) {
        QVERIFY(r.destination.startsWith(cache.path()));
        QCOMPARE(r.urls.constLast().host(), u"127.0.0.1"_s); // the overridden official origin
        results.append(DownloadResult{r.destination, r.expectedSize, r.urls.constLast(), false, false});
    }
    const auto spec = test::installSpecFor(
        gpuPlan(), artifacts, results, options,
        machineWith({{u"/usr/bin/python3.11"_s, u"3.11.9"_s, u"system"_s, 64, u"path"_s}}));
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->artifacts.size(), downloads.requests.size());
    QCOMPARE(spec->name, u"tf2.18-cuda12.5"_s);
    // pip's resolver asks the chosen preset (through tfsetup's bridge) for the wheels.
    const auto knowledge = core::Knowledge::shared();
    QVERIFY(knowledge);
    QCOMPARE(SetupFlow::pypiIndexes(options.network, (*knowledge)->sources).valueOr({}),
             QList<QUrl>{QUrl(u"https://pypi.tuna.tsinghua.edu.cn/simple"_s)});
    QVERIFY(spec->cudnnMajor() == 8);
}

void TestSetupFlow::defaultPrefix_isUnderHome()
{
    QTemporaryDir root;
    core::RootedSystem windows(root.path(), core::OsFamily::Windows, {{u"USERPROFILE"_s, u"C:\\Users\\student"_s}});
    QCOMPARE(SetupOptions::defaultPrefix(windows), u"C:/Users/student/tfsetup-envs"_s);
    core::RootedSystem linux(root.path(), core::OsFamily::Linux, {{u"HOME"_s, u"/home/student"_s}});
    QCOMPARE(SetupOptions::defaultPrefix(linux), u"/home/student/tfsetup-envs"_s);
    SetupOptions options;
    options.prefix = u"/home/student/tfsetup-envs"_s;
    QCOMPARE(options.environmentPath(cpuPlan()), u"/home/student/tfsetup-envs/tf2.16-cpu"_s);
}

void TestSetupFlow::firstUse_acceptsPlainHttpOnlyFromMirrorsAndLoopback_data()
{
    QTest::addColumn<QUrl>("url");
    QTest::addColumn<bool>("official");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("official over https") << QUrl(u"https://developer.download.nvidia.com/x.zip"_s) << true << true;
    QTest::newRow("official over plain http") << QUrl(u"http://developer.download.nvidia.com/x.zip"_s) << true << false;
    QTest::newRow("official on loopback") << QUrl(u"http://127.0.0.1:8080/x.zip"_s) << true << true;
    QTest::newRow("a lab mirror over plain http") << QUrl(u"http://mirror.lab.example/x.zip"_s) << false << true;
    QTest::newRow("ftp") << QUrl(u"ftp://mirror.lab.example/x.zip"_s) << false << false;
}

void TestSetupFlow::firstUse_acceptsPlainHttpOnlyFromMirrorsAndLoopback()
{
    QFETCH(QUrl, url);
    QFETCH(bool, official);
    QFETCH(bool, accepted);
    QCOMPARE(core::FirstUse::acceptsUrl(url, official), accepted);
}

void TestSetupFlow::noChecksumAnywhere_isFetchedOnlyWithTrustOnFirstUse()
{
    LoopbackServer server;
    QVERIFY(server.start());
    QByteArray payload;
    for (int i = 0; i < 200'000; ++i)
        payload.append(char(i * 7 % 251));
    const QString rel = u"compute/redist/cudnn/v8.1.0/cudnn-11.2-windows-x64-v8.1.0.77.zip"_s;
    server.route("/" + rel.toUtf8(), Response::bytes(payload));
    Artifact cudnn = archive(u"cudnn"_s, u"cudnn-archive"_s, u"unused.zip"_s, QString());
    cudnn.relativePath = rel;
    cudnn.urls = {server.url(u"/"_s + rel)};
    cudnn.size = -1;
    ArtifactList list;
    list.artifacts = {archive(u"cuda_cudart"_s, u"cuda-redist-archive"_s, u"cudart-archive.tar.xz"_s, sha), cudnn,
                      wheelhouse(u"https://pypi.org/simple"_s)};
    QTemporaryDir cache;
    SetupOptions options;
    options.cacheDir = cache.path();
    const QString destination = SetupFlow::destinationFor(cudnn, cache.path());

    // Without the choice: a problem, and nothing is fetched.
    const core::DownloadPlan refused = SetupFlow::downloadPlan(list, {}, options);
    QCOMPARE(refused.problems.size(), 1);
    QCOMPARE(refused.problems.first().code, u"artifact_unverifiable"_s);
    QVERIFY(refused.firstUse.isEmpty());
    const auto untouched = tfsetup::test::awaitTask(SetupFlow::fetchFirstUse(list, options));
    QVERIFY(untouched && untouched->ok());
    QVERIFY((*untouched)->find(u"cudnn"_s)->sha256.isEmpty());
    QCOMPARE(server.hits("/" + rel.toUtf8()), 0);

    // With it: listed apart, fetched once, and what was seen is recorded.
    options.trustOnFirstUse = true;
    const core::DownloadPlan chosen = SetupFlow::downloadPlan(list, {}, options);
    QVERIFY(chosen.problems.isEmpty());
    QCOMPARE(chosen.firstUse.size(), 1);
    QCOMPARE(chosen.firstUse.first().name, u"cudnn"_s);
    QCOMPARE(chosen.requests.size(), 1); // cudart only, for now
    const auto fetched = tfsetup::test::awaitTask(SetupFlow::fetchFirstUse(list, options));
    QVERIFY(fetched);
    QVERIFY2(fetched->ok(),
             qPrintable(fetched->ok() ? QString() : fetched->error().message + u'\n' + fetched->error().detail));
    const ArtifactList &trusted = **fetched;
    const Artifact *recorded = trusted.find(u"cudnn"_s);
    const QString seen = QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex());
    QCOMPARE(recorded->sha256, seen);
    QCOMPARE(recorded->trust, Artifact::Trust::None); // still shown as what it is
    QCOMPARE(recorded->size, qint64(payload.size()));
    QVERIFY2(recorded->note.contains(u"first use"_s), qPrintable(recorded->note));
    QVERIFY2(recorded->note.contains(QDate::currentDate().toString(Qt::ISODate).left(7)), qPrintable(recorded->note));
    QCOMPARE(server.hits("/" + rel.toUtf8()), 1);
    QVERIFY(QFileInfo(destination).isFile());
    QVERIFY(!QFileInfo::exists(destination + u".part"_s));

    // From now on an ordinary, checked download, even without the choice: the Downloader finds
    // the file in place and verifies it without asking the server again.
    options.trustOnFirstUse = false;
    const core::DownloadPlan after = SetupFlow::downloadPlan(trusted, {}, options);
    QVERIFY(after.problems.isEmpty());
    QVERIFY(after.firstUse.isEmpty());
    QCOMPARE(after.requests.size(), 2);
    const auto request = std::find_if(after.requests.cbegin(), after.requests.cend(),
                                      [&](const core::DownloadRequest &r) { return r.destination == destination; });
    QVERIFY(request != after.requests.cend());
    QCOMPARE(request->checksum.algorithm, core::Checksum::Algorithm::Sha256);
    QCOMPARE(QString::fromLatin1(request->checksum.hex), seen);
    core::Downloader downloader(core::TransferOptions{}, core::DownloadCache());
    const auto downloaded = tfsetup::test::awaitTask(downloader.fetch(*request));
    QVERIFY(downloaded);
    QVERIFY2(downloaded->ok(), qPrintable(downloaded->ok() ? QString() : downloaded->error().message));
    QVERIFY((*downloaded)->fromCache);
    QCOMPARE((*downloaded)->path, destination);
    QCOMPARE(server.hits("/" + rel.toUtf8()), 1);

    // A saved setup keeps the recorded checksum, and its downloads are checked against it.
    core::SetupSession session;
    session.step = core::SetupSession::Step::Download;
    session.plan = gpuPlan();
    session.options = options;
    session.artifacts = trusted;
    const auto loaded = core::SetupSession::fromJson(session.toJson());
    QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().message + u'\n' + loaded.error().detail));
    QVERIFY(loaded->artifacts);
    const Artifact *reloaded = loaded->artifacts->find(u"cudnn"_s);
    QCOMPARE(reloaded->sha256, seen);
    QCOMPARE(reloaded->note, recorded->note);
    QCOMPARE(reloaded->trust, Artifact::Trust::None);
    QCOMPARE(loaded->downloads().size(), 2);
}

void TestSetupFlow::firstUse_missingFile_namesIt()
{
    LoopbackServer server;
    QVERIFY(server.start());
    const QString rel = u"compute/redist/cudnn/v8.1.0/cudnn-11.2-windows-x64-v8.1.0.77.zip"_s;
    Artifact cudnn = archive(u"cudnn"_s, u"cudnn-archive"_s, u"unused.zip"_s, QString());
    cudnn.relativePath = rel;
    cudnn.urls = {server.url(u"/"_s + rel)}; // not routed: 404
    ArtifactList list;
    list.artifacts = {cudnn};
    QTemporaryDir cache;
    SetupOptions options;
    options.cacheDir = cache.path();
    options.trustOnFirstUse = true;
    const auto fetched = tfsetup::test::awaitTask(SetupFlow::fetchFirstUse(list, options));
    QVERIFY(fetched);
    QVERIFY(!fetched->ok());
    QCOMPARE(fetched->error().code, u"download_failed"_s);
    QVERIFY2(fetched->error().message.contains(u"cudnn-11.2-windows-x64-v8.1.0.77.zip"_s),
             qPrintable(fetched->error().message));
    QVERIFY2(fetched->error().detail.contains(rel), qPrintable(fetched->error().detail));
    const QString destination = SetupFlow::destinationFor(cudnn, cache.path());
    QVERIFY(!QFileInfo::exists(destination));
    QVERIFY(!QFileInfo::exists(destination + u".part"_s));
}

void TestSetupFlow::firstUse_stopsOnCancelAndOnStall()
{
    LoopbackServer server;
    QVERIFY(server.start());
    server.route("/slow.zip", Response::bytes(QByteArray(1024 * 1024, 's')).throttle(16 * 1024));
    server.route("/silent.zip", Response::bytes(QByteArray(1024, 's')).delayHeaders(std::chrono::seconds(5)));
    QTemporaryDir cache;
    Artifact a = archive(u"cudnn"_s, u"cudnn-archive"_s, u"slow.zip"_s, QString());
    const QString destination = cache.filePath(u"slow.zip"_s);

    // Cancelled: stops within moments; what arrived is kept in the part file, nothing unverified
    // at the destination, and the next fetch resumes from there.
    const QByteArray payload(1024 * 1024, 's');
    a.urls = {server.url(u"/slow.zip"_s)};
    core::FirstUseOptions options;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    options.cancel = cancel;
    QTimer::singleShot(300, [cancel] { cancel->store(true); });
    const auto cancelled = tfsetup::test::awaitTask(core::FirstUse::fetch(a, destination, options));
    QVERIFY(cancelled);
    QVERIFY(!cancelled->ok());
    QCOMPARE(cancelled->error().code, u"cancelled"_s);
    QVERIFY(cancelled->error().message.contains(u"slow.zip"_s));
    QVERIFY(!QFileInfo::exists(destination));
    const qint64 kept = QFileInfo(destination + u".part"_s).size();
    QVERIFY2(kept > 0 && kept < payload.size(), qPrintable(QString::number(kept)));
    server.route("/slow.zip", Response::bytes(payload));
    const auto resumed = tfsetup::test::awaitTask(core::FirstUse::fetch(a, destination, core::FirstUseOptions{}));
    QVERIFY(resumed);
    QVERIFY2(resumed->ok(), qPrintable(resumed->ok() ? QString() : resumed->error().detail));
    QCOMPARE((*resumed)->size, qint64(payload.size()));
    QCOMPARE((*resumed)->sha256,
             QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()));
    const QByteArray range = server.requests("/slow.zip").last().header("range");
    QVERIFY2(range.startsWith(QByteArray("bytes=" + QByteArray::number(kept) + "-")),
             range.constData()); // only the rest
    QVERIFY(!QFileInfo::exists(destination + u".part"_s));
    QFile::remove(destination);

    // A web page where the file was expected (a captive portal's login page) is refused.
    server.route("/portal.zip", Response::bytes("<html><body>Please log in</body></html>", "text/html"));
    a.urls = {server.url(u"/portal.zip"_s)};
    const auto portal = tfsetup::test::awaitTask(core::FirstUse::fetch(a, destination, core::FirstUseOptions{}));
    QVERIFY(portal);
    QVERIFY(!portal->ok());
    QVERIFY2(portal->error().detail.contains(u"html_page"_s), qPrintable(portal->error().detail));
    QVERIFY2(portal->error().message.contains(u"web page"_s), qPrintable(portal->error().message));
    QVERIFY(!QFileInfo::exists(destination));
    QVERIFY(!QFileInfo::exists(destination + u".part"_s));

    // Stalled: no byte for the stall timeout, this source is given up and the error names the file.
    a.urls = {server.url(u"/silent.zip"_s)};
    core::FirstUseOptions stalling;
    stalling.stallTimeout = std::chrono::milliseconds(600);
    const auto stalled = tfsetup::test::awaitTask(core::FirstUse::fetch(a, destination, stalling));
    QVERIFY(stalled);
    QVERIFY(!stalled->ok());
    QCOMPARE(stalled->error().code, u"download_failed"_s);
    QVERIFY2(stalled->error().detail.contains(u"stalled"_s), qPrintable(stalled->error().detail));
    QVERIFY(!QFileInfo::exists(destination + u".part"_s));
}

// Records keep no credentials (the lock says "https://***@…"); a wheel gets them back from the
// index the user configured for this run, on the same scheme, host and port, and from nowhere else.
void TestSetupFlow::wheelUrls_takeCredentialsFromTheConfiguredIndexOnly()
{
    core::LockedWheel wheel;
    wheel.file = u"tinypkg-0.1-py3-none-any.whl"_s;
    wheel.url = u"https://***@pypi.lab.example/packages/ab/tinypkg-0.1-py3-none-any.whl"_s;
    wheel.index = u"https://***@pypi.lab.example/simple/"_s;
    const core::SourceCatalog catalog;
    const QList<QUrl> configured{QUrl(u"https://student:s3cret@pypi.lab.example/simple/"_s)};
    const QList<QUrl> urls = core::SetupFlow::wheelUrls(wheel, configured, catalog);
    QVERIFY(!urls.isEmpty());
    QCOMPARE(urls.first().userInfo(), u"student:s3cret"_s);
    QCOMPARE(urls.first().path(), u"/packages/ab/tinypkg-0.1-py3-none-any.whl"_s);
    // Another host never gets them, and "***" is never sent.
    const QList<QUrl> other = core::SetupFlow::wheelUrls(
        wheel, {QUrl(u"https://student:s3cret@mirror.example/simple/"_s)}, catalog);
    QVERIFY(!other.isEmpty());
    for (const QUrl &url : other) {
        QVERIFY2(url.host() != u"pypi.lab.example" || url.userInfo().isEmpty(), qPrintable(url.toString()));
        QVERIFY(!url.toString().contains(u"***"_s));
    }
}

QTEST_GUILESS_MAIN(TestSetupFlow)
#include "test_setupflow.moc"
