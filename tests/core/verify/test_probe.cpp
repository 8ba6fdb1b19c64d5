// The native load probe's judgement, over fixture trees whose "libraries" answer version calls
// from this test: names, versions, shadowing, sub-libraries and driver findings on Linux and
// Windows without any NVIDIA file. test_probe_real.cpp loads the real toolkit.

#include "catalog/catalog.h"
#include "catalog/knowledge.h"
#include "system/realsystem.h"
#include "system/rootedsystem.h"
#include "verify/libraryprobe.h"
#include "verify/verifier.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

// What each fake library answers; set per test row.
int g_runtimeVersion = 0;
int g_driverVersion = 0;
size_t g_cudnnVersion = 0;

extern "C" int fakeRuntimeVersion(int *v)
{
    *v = g_runtimeVersion;
    return 0;
}
extern "C" int fakeDriverVersion(int *v)
{
    *v = g_driverVersion;
    return 0;
}
extern "C" size_t fakeCudnnVersion()
{
    return g_cudnnVersion;
}
extern "C" int fakeCublasProperty(int type, int *v)
{
    const int parts[] = {11, 11, 3};
    *v = parts[type];
    return 0;
}

class FakeLibrary final : public SharedLibrary {
public:
    explicit FakeLibrary(QString path)
        : m_path(std::move(path))
    {}
    void *resolve(const char *symbol) override
    {
        const QByteArray s(symbol);
        if (s == "cudaRuntimeGetVersion")
            return reinterpret_cast<void *>(&fakeRuntimeVersion);
        if (s == "cuDriverGetVersion")
            return reinterpret_cast<void *>(&fakeDriverVersion);
        if (s == "cudnnGetVersion")
            return reinterpret_cast<void *>(&fakeCudnnVersion);
        if (s == "cublasGetProperty")
            return reinterpret_cast<void *>(&fakeCublasProperty);
        return nullptr;
    }
    QString path() const override { return m_path; }

private:
    QString m_path;
};

// A fixture machine whose loader finds a name in the first folder of the search path (or the
// extra "system" folders) that holds it, like dlopen / LoadLibraryExW.
class FakeLoaderSystem final : public RootedSystem {
public:
    FakeLoaderSystem(QString root, OsFamily os, QHash<QString, QString> env, QStringList systemDirs)
        : RootedSystem(std::move(root), os, std::move(env))
        , m_systemDirs(std::move(systemDirs))
    {}
    LibraryLoad loadLibrary(const QString &name) override
    {
        const QString variable = os() == OsFamily::Windows ? u"PATH"_s : u"LD_LIBRARY_PATH"_s;
        for (const QString &dir : pathList(variable) + m_systemDirs) {
            const QString candidate = join(dir, name);
            if (isFile(candidate))
                return {std::make_unique<FakeLibrary>(candidate), {}};
        }
        return {nullptr, name + u": cannot open shared object file: No such file or directory"_s};
    }

private:
    QStringList m_systemDirs;
};

} // namespace

class TestProbe : public QObject {
    Q_OBJECT

private slots:
    void stems_data();
    void stems();
    void decodesVersions_data();
    void decodesVersions();
    void versionTableCoversTheCatalog();
    void requestFromCatalog();
    void argumentsRoundTrip();
    void judges_data();
    void judges();
    void reportRoundTrip();
    void crashCulprit();
    void computeTableFromProbeJson();
    void computeArgumentRoundTrips();
    void computesWithFakeGpu_data();
    void computesWithFakeGpu();
    void computeWithoutLibraries_data();
    void computeWithoutLibraries();
    void computeReportRoundTrip();
    void computeHangIsBounded();
    void verifyAsksAGpuPlanToCompute();
    void verifyShowsWhatComputed_data();
    void verifyShowsWhatComputed();

private:
    struct HelperRun {
        int exitCode = -1;
        QByteArray err;
        ProbeReport report;
    };
    // The real tfsetup-probe, with the fake GPU libraries (tests/fakegpu) first on the loader's
    // path and TFSETUP_FAKE_GPU set to the fault they play.
    static HelperRun runHelper(const QString &fault, const QStringList &arguments);
    static QString fakeGpuDir() { return qEnvironmentVariable("TFSETUP_BUILD_DIR") + u"/tests/fakegpu"_s; }

    static void touch(const QString &path)
    {
        QDir().mkpath(QFileInfo(path).path());
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not really a library");
    }
};

void TestProbe::stems_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("stem");
    QTest::addColumn<QString>("soname");

    QTest::newRow("linux cudart") << "libcudart.so.11.0"
                                  << "cudart"
                                  << "11";
    QTest::newRow("linux cudnn part") << "libcudnn_ops_infer.so.8"
                                      << "cudnn_ops_infer"
                                      << "8";
    QTest::newRow("linux driver") << "libcuda.so.1"
                                  << "cuda"
                                  << "1";
    QTest::newRow("linux cublasLt") << "libcublasLt.so.12"
                                    << "cublasLt"
                                    << "12";
    QTest::newRow("windows cudart") << "cudart64_110.dll"
                                    << "cudart"
                                    << "";
    QTest::newRow("windows cudnn part") << "cudnn_cnn_infer64_8.dll"
                                        << "cudnn_cnn_infer"
                                        << "";
    QTest::newRow("windows nvJitLink") << "nvJitLink_120_0.dll"
                                       << "nvJitLink"
                                       << "";
    QTest::newRow("windows driver") << "nvcuda.dll"
                                    << "nvcuda"
                                    << "";
    QTest::newRow("windows cublasLt") << "cublasLt64_11.dll"
                                      << "cublasLt"
                                      << "";
}

void TestProbe::stems()
{
    QFETCH(QString, file);
    QFETCH(QString, stem);
    QFETCH(QString, soname);
    QCOMPARE(libraryStem(file), stem);
    QCOMPARE(sonameMajor(file), soname);
}

void TestProbe::decodesVersions_data()
{
    QTest::addColumn<QString>("encoding");
    QTest::addColumn<qint64>("raw");
    QTest::addColumn<QString>("version");

    QTest::newRow("cuda 13.0") << "cuda" << qint64(13000) << "13.0";
    QTest::newRow("cuda 11.2") << "cuda" << qint64(11020) << "11.2";
    QTest::newRow("cuda 9.2 (header example)") << "cuda" << qint64(9020) << "9.2";
    QTest::newRow("cudnn 7.6.5") << "cudnn" << qint64(7605) << "7.6.5";
    QTest::newRow("cudnn 8.9.7") << "cudnn" << qint64(8907) << "8.9.7";
    QTest::newRow("cudnn 9.1.0") << "cudnn" << qint64(90100) << "9.1.0";
    QTest::newRow("cudnn 9.19.0") << "cudnn" << qint64(91900) << "9.19.0";
}

void TestProbe::decodesVersions()
{
    QFETCH(QString, encoding);
    QFETCH(qint64, raw);
    QFETCH(QString, version);
    QCOMPARE(decodeVersion(encoding, raw), version);
}

void TestProbe::versionTableCoversTheCatalog()
{
    auto queries = VersionQueries::load();
    QVERIFY2(queries, queries ? "" : qPrintable(queries.error().detail));
    for (const VersionQuery &q : queries->all())
        QVERIFY2(!q.source.isEmpty() && !q.symbol.isEmpty(), qPrintable(q.stems.join(u',')));
    auto catalog = Catalog::load();
    QVERIFY(catalog);
    // Every main library of the newest CUDA / cuDNN sets can be asked for its version.
    for (const QString &os : {u"linux"_s, u"windows"_s}) {
        const ProbeRequest r = ProbeRequest::forVersions(*catalog, u"12.3"_s, u"8.9"_s, os);
        QVERIFY(!r.libraries.isEmpty());
        for (const ProbeLibrary &l : r.libraries) {
            if (l.parent.isEmpty())
                QVERIFY2(queries->forLibrary(l.name), qPrintable(l.name));
        }
    }
}

void TestProbe::requestFromCatalog()
{
    auto catalog = Catalog::load();
    QVERIFY(catalog);
    const ProbeRequest linux = ProbeRequest::forVersions(*catalog, u"11.2"_s, u"8.1"_s, u"linux"_s);
    QCOMPARE(linux.libraries.first(), (ProbeLibrary{u"libcudart.so.11.0"_s, u"cuda"_s, {}}));
    QVERIFY(linux.libraries.contains(ProbeLibrary{u"libcudnn.so.8"_s, u"cudnn"_s, {}}));
    QVERIFY(linux.libraries.contains(ProbeLibrary{u"libcudnn_cnn_infer.so.8"_s, u"cudnn"_s, u"libcudnn.so.8"_s}));
    QCOMPARE(linux.libraries.last(), (ProbeLibrary{u"libcuda.so.1"_s, u"driver"_s, {}}));

    const ProbeRequest windows = ProbeRequest::forVersions(*catalog, u"11.2"_s, u"8.1"_s, u"windows"_s);
    QCOMPARE(windows.libraries.first().name, u"cudart64_110.dll"_s);
    QCOMPARE(windows.libraries.last().name, u"nvcuda.dll"_s);
}

void TestProbe::argumentsRoundTrip()
{
    ProbeRequest r;
    r.libraries = {{u"libcudart.so.12"_s, u"cuda"_s, {}},
                   {u"libcudnn.so.9"_s, u"cudnn"_s, {}},
                   {u"libcudnn_ops.so.9"_s, u"cudnn"_s, u"libcudnn.so.9"_s},
                   {u"libextra.so"_s, u"extra"_s, {}}};
    r.ownDirs = {u"/home/s/env/lib"_s};
    r.cuda = u"12.3"_s;
    r.cudnn = u"9.1"_s;
    auto back = ProbeRequest::fromArguments(r.toArguments());
    QVERIFY(back);
    QCOMPARE(*back, r);
    QVERIFY(!ProbeRequest::fromArguments({u"--nonsense"_s, u"x"_s}));
    QVERIFY(!ProbeRequest::fromArguments({u"--cuda"_s}));
    QVERIFY(!ProbeRequest::fromArguments({u"--sublibrary"_s, u"no-parent"_s}));
}

void TestProbe::judges_data()
{
    QTest::addColumn<QString>("os");
    QTest::addColumn<QStringList>("files");      // created in the fixture root
    QTest::addColumn<QString>("searchPath");     // LD_LIBRARY_PATH / PATH
    QTest::addColumn<QStringList>("systemDirs"); // ldconfig cache / System32
    QTest::addColumn<QStringList>("ownDirs");
    QTest::addColumn<QStringList>("libraries"); // GROUP:NAME or PARENT>NAME
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("cudnn");
    QTest::addColumn<int>("runtime");
    QTest::addColumn<int>("driver");
    QTest::addColumn<int>("cudnnRaw");
    QTest::addColumn<QStringList>("expected"); // CODE:LIBRARY, in order; nothing else

    const QString env = u"/home/student/envs/tf/lib"_s;
    const QStringList linuxSet{u"cuda:libcudart.so.11.0"_s, u"cudnn:libcudnn.so.8"_s,
                               u"libcudnn.so.8>libcudnn_ops_infer.so.8"_s, u"driver:libcuda.so.1"_s};
    const QStringList linuxFiles{env + u"/libcudart.so.11.0"_s, env + u"/libcudnn.so.8"_s,
                                 env + u"/libcudnn_ops_infer.so.8"_s, u"/usr/lib/x86_64-linux-gnu/libcuda.so.1"_s};
    const QStringList linuxSystem{u"/usr/lib/x86_64-linux-gnu"_s};

    QTest::newRow("linux complete") << "linux" << linuxFiles << env << linuxSystem << QStringList{env} << linuxSet
                                    << "11.2"
                                    << "8.1" << 11080 << 12020 << 8600 << QStringList{};
    QTest::newRow("linux cuDNN part missing")
        << "linux" << linuxFiles.mid(0, 2) + linuxFiles.mid(3) << env << linuxSystem << QStringList{env} << linuxSet
        << "11.2"
        << "8.1" << 11080 << 12020 << 8600 << QStringList{u"sublibrary_missing:libcudnn_ops_infer.so.8"_s};
    QTest::newRow("linux cudart shadowed by an older toolkit")
        << "linux" << linuxFiles + QStringList{u"/usr/local/cuda-11.0/lib64/libcudart.so.11.0"_s}
        << u"/usr/local/cuda-11.0/lib64:"_s + env << linuxSystem << QStringList{env} << linuxSet << "11.2"
        << "8.1" << 11000 << 12020 << 8600
        << QStringList{u"shadowed:libcudart.so.11.0"_s, u"version_below_build:libcudart.so.11.0"_s};
    QTest::newRow("linux cuDNN older than the build")
        << "linux" << linuxFiles << env << linuxSystem << QStringList{env} << linuxSet << "11.8"
        << "8.6" << 11080 << 12020 << 8100 << QStringList{u"version_below_build:libcudnn.so.8"_s};
    QTest::newRow("linux file not what its name says")
        << "linux" << linuxFiles << env << linuxSystem << QStringList{env} << linuxSet << "11.2"
        << "8.1" << 10020 << 12020 << 8600
        << QStringList{u"version_name_mismatch:libcudart.so.11.0"_s, u"version_below_build:libcudart.so.11.0"_s};
    QTest::newRow("linux other copies without own folders")
        << "linux" << linuxFiles + QStringList{u"/opt/conda/lib/libcudart.so.11.0"_s} << env + u":/opt/conda/lib"_s
        << linuxSystem << QStringList{} << linuxSet.mid(0, 1) << "11.2"
        << "" << 11020 << 0 << 0 << QStringList{u"other_copies:libcudart.so.11.0"_s};

    const QString bin = u"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin"_s;
    const QStringList windowsSet{u"cuda:cudart64_110.dll"_s, u"cuda:cublas64_11.dll"_s, u"cudnn:cudnn64_8.dll"_s,
                                 u"driver:nvcuda.dll"_s};
    const QStringList windowsFiles{u"C/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cudart64_110.dll"_s,
                                   u"C/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cublas64_11.dll"_s,
                                   u"C/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cudnn64_8.dll"_s,
                                   u"C/Windows/System32/nvcuda.dll"_s};
    const QStringList system32{u"C:/Windows/System32"_s};
    QTest::newRow("windows complete") << "windows" << windowsFiles << bin << system32 << QStringList{bin} << windowsSet
                                      << "11.2"
                                      << "8.1" << 11020 << 12020 << 8100 << QStringList{};
    QTest::newRow("windows driver too old")
        << "windows" << windowsFiles << bin << system32 << QStringList{bin} << windowsSet << "11.2"
        << "8.1" << 11020 << 10020 << 8100 << QStringList{u"driver_too_old:nvcuda.dll"_s};
    QTest::newRow("windows driver a minor behind")
        << "windows" << windowsFiles << bin << system32 << QStringList{bin} << windowsSet << "11.2"
        << "8.1" << 11020 << 11010 << 8100 << QStringList{u"driver_older_than_cuda:nvcuda.dll"_s};
    QTest::newRow("windows no driver") << "windows" << windowsFiles.mid(0, 3) << bin << system32 << QStringList{bin}
                                       << windowsSet << "11.2"
                                       << "8.1" << 11020 << 0 << 8100 << QStringList{u"driver_missing:nvcuda.dll"_s};
    QTest::newRow("windows cuDNN missing")
        << "windows" << windowsFiles.mid(0, 2) + windowsFiles.mid(3) << bin << system32 << QStringList{bin}
        << windowsSet << "11.2"
        << "8.1" << 11020 << 12020 << 0 << QStringList{u"library_missing:cudnn64_8.dll"_s};
}

void TestProbe::judges()
{
    QFETCH(QString, os);
    QFETCH(QStringList, files);
    QFETCH(QString, searchPath);
    QFETCH(QStringList, systemDirs);
    QFETCH(QStringList, ownDirs);
    QFETCH(QStringList, libraries);
    QFETCH(QString, cuda);
    QFETCH(QString, cudnn);
    QFETCH(int, runtime);
    QFETCH(int, driver);
    QFETCH(int, cudnnRaw);
    QFETCH(QStringList, expected);

    QTemporaryDir root;
    QVERIFY(root.isValid());
    for (const QString &f : files)
        touch(root.path() + u'/' + f);
    g_runtimeVersion = runtime;
    g_driverVersion = driver;
    g_cudnnVersion = size_t(cudnnRaw);

    const OsFamily family = os == u"windows" ? OsFamily::Windows : OsFamily::Linux;
    QHash<QString, QString> env;
    env.insert(family == OsFamily::Windows ? u"PATH"_s : u"LD_LIBRARY_PATH"_s, searchPath);
    FakeLoaderSystem system(root.path(), family, env, systemDirs);

    QStringList arguments;
    for (const QString &l : libraries)
        arguments << (l.contains(u'>') ? u"--sublibrary"_s : u"--library"_s) << l;
    auto request = ProbeRequest::fromArguments(arguments);
    QVERIFY(request);
    request->ownDirs = ownDirs;
    request->cuda = cuda;
    request->cudnn = cudnn;
    auto queries = VersionQueries::load();
    QVERIFY(queries);

    const ProbeReport report = probeLibraries(system, *request, *queries);
    QStringList found;
    for (const ProbeFinding &f : report.findings) {
        found.append(f.code + u':' + f.library);
        const QString message = f.message();
        QVERIFY2(message.contains(f.library) || f.code.startsWith(u"driver_"), qPrintable(message));
        QVERIFY(message != f.code);
    }
    QCOMPARE(found, expected);
    QCOMPARE(report.libraries.size(), libraries.size());
    if (const ProbedLibrary *cudart = report.library(libraries.first().section(u':', 1))) {
        if (cudart->loaded && runtime)
            QCOMPARE(cudart->version, decodeVersion(u"cuda"_s, runtime));
    }
    if (expected.contains(u"shadowed:libcudart.so.11.0"_s)) {
        const ProbeFinding *f = report.finding(u"shadowed"_s);
        QCOMPARE(f->path, u"/usr/local/cuda-11.0/lib64/libcudart.so.11.0"_s);
        QCOMPARE(f->other, env.value(u"LD_LIBRARY_PATH"_s).section(u':', 1) + u"/libcudart.so.11.0"_s);
    }
}

void TestProbe::reportRoundTrip()
{
    ProbeReport r;
    r.os = u"linux"_s;
    r.searchPath = {u"/a"_s};
    r.request.ownDirs = {u"/env/lib"_s};
    r.request.cuda = u"12.3"_s;
    r.request.cudnn = u"8.9"_s;
    ProbedLibrary l;
    l.library = {u"libcudnn_ops_infer.so.8"_s, u"cudnn"_s, u"libcudnn.so.8"_s};
    l.error = u"not found"_s;
    r.libraries = {l};
    r.request.libraries = {l.library};
    r.findings = {{u"sublibrary_missing"_s, u"error"_s, l.library.name, {}, l.error, {}, l.library.parent}};
    auto back = ProbeReport::fromJson(r.toJson());
    QVERIFY(back);
    QCOMPARE(back->toJson(), r.toJson());
    QCOMPARE(back->request, r.request);
    QVERIFY(back->hasErrors());
    QVERIFY(!ProbeReport::fromJson(QJsonObject{{u"tool"_s, u"something else"_s}}));
}

void TestProbe::crashCulprit()
{
    QCOMPARE(probeCrashCulprit("tfsetup-probe: loading libcudart.so.12\ntfsetup-probe: loading libcublas.so.12\n"
                               "Segmentation fault\n"),
             u"libcublas.so.12"_s);
    QCOMPARE(probeCrashCulprit("nothing"), QString());
}

TestProbe::HelperRun TestProbe::runHelper(const QString &fault, const QStringList &arguments)
{
    HelperRun r;
    const QString helper = QFileInfo(qEnvironmentVariable("TFSETUP_BINARY")).dir().filePath(u"tfsetup-probe"_s);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"LD_LIBRARY_PATH"_s, fakeGpuDir());
    env.insert(u"TFSETUP_FAKE_GPU"_s, fault);
    p.setProcessEnvironment(env);
    p.start(helper, arguments);
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = p.readAllStandardError();
    const QJsonDocument doc = QJsonDocument::fromJson(p.readAllStandardOutput());
    if (auto report = ProbeReport::fromJson(doc.object()))
        r.report = *report;
    return r;
}

void TestProbe::computeTableFromProbeJson()
{
    auto queries = VersionQueries::load();
    QVERIFY2(queries, qPrintable(queries ? QString() : queries.error().detail));
    const ComputeTable &t = queries->compute();
    QVERIFY(!t.isEmpty());
    QCOMPARE(t.symbols.value(u"cublas.sgemm"_s), QStringList{u"cublasSgemm_v2"_s});
    // Older drivers export only the plain name: both are tried, the _v2 first.
    QCOMPARE(t.symbols.value(u"driver.context_release"_s),
             (QStringList{u"cuDevicePrimaryCtxRelease_v2"_s, u"cuDevicePrimaryCtxRelease"_s}));
    QCOMPARE(t.values.value(u"CUDNN_CROSS_CORRELATION"_s), 1);
    QCOMPARE(t.statusNames.value(u"cublas"_s).value(13), u"CUBLAS_STATUS_EXECUTION_FAILED"_s);
    QFile kernel(u":/resources/verify/"_s + t.kernelFile);
    QVERIFY(kernel.open(QIODevice::ReadOnly));
    const QByteArray ptx = kernel.readAll();
    QVERIFY(ptx.contains(QByteArray(".entry " + t.kernelEntry.toLatin1() + '(')));
    QVERIFY(ptx.contains(".version"));

    // A table missing an entry point the check needs is refused when it is read.
    auto broken = VersionQueries::fromJson(R"({"libraries": [], "compute": {"symbols": []}})");
    QVERIFY(!broken);
    QCOMPARE(broken.error().code, u"probe_table_malformed"_s);
    QVERIFY(broken.error().detail.contains(u"cudnn.forward"_s));
}

void TestProbe::computeArgumentRoundTrips()
{
    ProbeRequest r;
    r.libraries = {{u"libcuda.so.1"_s, u"driver"_s, {}}};
    r.cuda = u"12.2"_s;
    r.compute = true;
    const QStringList args = r.toArguments();
    QVERIFY(args.contains(u"--compute"_s));
    auto back = ProbeRequest::fromArguments(args);
    QVERIFY(back);
    QCOMPARE(*back, r);
    // A flag, wherever it stands: it takes no value.
    auto first = ProbeRequest::fromArguments({u"--compute"_s, u"--cuda"_s, u"12.2"_s});
    QVERIFY(first);
    QVERIFY(first->compute);
    QCOMPARE(first->cuda, u"12.2"_s);
}

void TestProbe::computesWithFakeGpu_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("statuses"); // kernel, cublas, cudnn
    QTest::addColumn<QString>("finding");
    QTest::addColumn<QString>("call");
    QTest::addColumn<QString>("error");

    QTest::newRow("all compute") << "ok" << 0 << QStringList{u"passed"_s, u"passed"_s, u"passed"_s} << ""
                                 << ""
                                 << "";
    QTest::newRow("no gpu") << "no_device" << 0 << QStringList{u"skipped"_s, u"skipped"_s, u"skipped"_s}
                            << "gpu_not_found"
                            << ""
                            << "CUDA_ERROR_NO_DEVICE (100)";
    QTest::newRow("ptx rejected") << "ptx_rejected" << 1 << QStringList{u"failed"_s, u"passed"_s, u"passed"_s}
                                  << "gpu_kernel_failed"
                                  << "cuModuleLoadData"
                                  << "CUDA_ERROR_INVALID_PTX (218)";
    QTest::newRow("kernel wrong") << "kernel_wrong" << 1 << QStringList{u"failed"_s, u"passed"_s, u"passed"_s}
                                  << "gpu_kernel_failed"
                                  << "cuLaunchKernel"
                                  << "differs from the processor";
    QTest::newRow("cublas error") << "cublas_error" << 1 << QStringList{u"passed"_s, u"failed"_s, u"passed"_s}
                                  << "cublas_failed"
                                  << "cublasSgemm_v2"
                                  << "CUBLAS_STATUS_EXECUTION_FAILED (13)";
    QTest::newRow("cudnn wrong") << "cudnn_wrong" << 1 << QStringList{u"passed"_s, u"passed"_s, u"failed"_s}
                                 << "cudnn_failed"
                                 << "cudnnConvolutionForward"
                                 << "differs from the processor";
}

void TestProbe::computesWithFakeGpu()
{
    QFETCH(QString, fault);
    QFETCH(int, exitCode);
    QFETCH(QStringList, statuses);
    QFETCH(QString, finding);
    QFETCH(QString, call);
    QFETCH(QString, error);
    const HelperRun r = runHelper(fault,
                                  {u"--library"_s, u"cuda:libcublas.so.12"_s, u"--library"_s, u"cudnn:libcudnn.so.9"_s,
                                   u"--library"_s, u"driver:libcuda.so.1"_s, u"--compute"_s});
    QVERIFY2(r.exitCode == exitCode, r.err.constData());
    for (const ProbedLibrary &l : r.report.libraries) {
        QVERIFY2(l.loaded, qPrintable(l.error));
        QCOMPARE(QFileInfo(l.path).canonicalPath(), QFileInfo(fakeGpuDir()).canonicalFilePath());
    }
    QVERIFY(r.report.request.compute);
    QCOMPARE(r.report.compute.size(), 3);
    const QStringList steps{u"kernel"_s, u"cublas"_s, u"cudnn"_s};
    const QStringList libraries{u"libcuda.so.1"_s, u"libcublas.so.12"_s, u"libcudnn.so.9"_s};
    for (qsizetype i = 0; i < 3; ++i) {
        const ComputeStep &s = r.report.compute.at(i);
        QCOMPARE(s.step, steps.at(i));
        QCOMPARE(s.library, libraries.at(i));
        QCOMPARE(s.status, statuses.at(i));
        if (s.passed()) {
            QCOMPARE(s.maxDifference, 0.0); // inputs exact in float: nothing to round
            QVERIFY(s.call.isEmpty() && s.error.isEmpty());
        }
    }
    const QList<ProbeFinding> computeFindings = [&] {
        QList<ProbeFinding> out;
        for (const ProbeFinding &f : r.report.findings) {
            if (f.code == u"gpu_kernel_failed" || f.code == u"cublas_failed" || f.code == u"cudnn_failed"
                || f.code == u"gpu_not_found")
                out.append(f);
        }
        return out;
    }();
    if (finding.isEmpty()) {
        QVERIFY(r.report.findings.isEmpty());
        return;
    }
    QCOMPARE(computeFindings.size(), 1);
    const ProbeFinding &f = computeFindings.first();
    QCOMPARE(f.code, finding);
    QCOMPARE(f.severity, finding == u"gpu_not_found" ? u"info"_s : u"error"_s);
    QVERIFY2(f.other.contains(error), qPrintable(f.other));
    if (!call.isEmpty()) {
        QVERIFY2(f.other.startsWith(call + u": "_s), qPrintable(f.other));
        const ComputeStep *failed = r.report.computeStep(steps.at(statuses.indexOf(u"failed"_s)));
        QCOMPARE(failed->call, call);
        QVERIFY(!f.path.isEmpty());
    } else {
        for (const ComputeStep &s : r.report.compute)
            QCOMPARE(s.reason, u"no_gpu"_s);
    }
    // The message names the library and the evidence, in words a user can act on.
    QVERIFY(f.message().contains(f.library));
    QVERIFY(f.message().contains(f.other));
}

void TestProbe::computeWithoutLibraries_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("reasons"); // kernel, cublas, cudnn; empty = ran

    // A driver name no machine has: what the probe meets where no NVIDIA driver is installed.
    QTest::newRow("no driver") << QStringList{u"--library"_s, u"cuda:libcublas.so.12"_s, u"--library"_s,
                                              u"driver:libcuda_absent_for_test.so.1"_s}
                               << QStringList{u"driver_missing"_s, u"driver_missing"_s, u"driver_missing"_s};
    QTest::newRow("no cublas, no cudnn") << QStringList{u"--library"_s, u"driver:libcuda.so.1"_s}
                                         << QStringList{u""_s, u"library_missing"_s, u"library_missing"_s};
}

void TestProbe::computeWithoutLibraries()
{
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, reasons);
    const HelperRun r = runHelper(u"ok"_s, arguments + QStringList{u"--compute"_s});
    QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
    QCOMPARE(r.report.compute.size(), 3);
    for (qsizetype i = 0; i < 3; ++i) {
        const ComputeStep &s = r.report.compute.at(i);
        QCOMPARE(s.reason, reasons.at(i));
        QCOMPARE(s.status, reasons.at(i).isEmpty() ? u"passed"_s : u"skipped"_s);
    }
    // Skipping is not a compute failure; a missing driver is already its own finding.
    QVERIFY(!r.report.has(u"gpu_kernel_failed"_s));
    QVERIFY(!r.report.has(u"cublas_failed"_s));
    QCOMPARE(r.report.has(u"driver_missing"_s), reasons.first() == u"driver_missing");
}

void TestProbe::computeReportRoundTrip()
{
    ProbeReport r;
    r.os = u"linux"_s;
    r.request.compute = true;
    ComputeStep s;
    s.step = u"cublas"_s;
    s.status = u"failed"_s;
    s.library = u"libcublas.so.12"_s;
    s.call = u"cublasSgemm_v2"_s;
    s.error = u"CUBLAS_STATUS_EXECUTION_FAILED (13)"_s;
    s.maxDifference = 0.5;
    r.compute = {s};
    auto back = ProbeReport::fromJson(r.toJson());
    QVERIFY(back);
    QVERIFY(back->request.compute);
    QCOMPARE(back->compute.size(), 1);
    QCOMPARE(back->compute.first().toJson(), s.toJson());
    // Without --compute the report has no compute section, and reads back so.
    r.request.compute = false;
    QVERIFY(!r.toJson().contains(u"compute"_s));
    QVERIFY(!ProbeReport::fromJson(r.toJson())->request.compute);
}

void TestProbe::computeHangIsBounded()
{
    RealSystem system;
    LibraryLoad driver = system.loadLibrary(fakeGpuDir() + u"/libcuda.so.1"_s);
    QVERIFY2(driver.library, qPrintable(driver.error));
    auto queries = VersionQueries::load();
    QVERIFY(queries);
    ComputeTable table = queries->compute();
    table.timeoutMs = 300;
    QFile kernel(u":/resources/verify/"_s + table.kernelFile);
    QVERIFY(kernel.open(QIODevice::ReadOnly));
    ComputeLibraries libraries;
    libraries.driver = std::move(driver.library);
    libraries.driverName = u"libcuda.so.1"_s;
    qputenv("TFSETUP_FAKE_GPU", "hang");
    QElapsedTimer timer;
    timer.start();
    bool abandoned = false;
    const QList<ComputeStep> steps = runComputeChecksWithin(libraries, table, kernel.readAll(), &abandoned);
    const qint64 elapsed = timer.elapsed();
    qunsetenv("TFSETUP_FAKE_GPU");
    QVERIFY2(elapsed < 3000, qPrintable(QString::number(elapsed)));
    QVERIFY(abandoned);
    QCOMPARE(steps.size(), 3);
    QCOMPARE(steps.at(0).status, u"failed"_s);
    QCOMPARE(steps.at(0).reason, u"timed_out"_s);
    QCOMPARE(steps.at(1).status, u"skipped"_s);
    QCOMPARE(steps.at(2).reason, u"timed_out"_s);
}

void TestProbe::verifyAsksAGpuPlanToCompute()
{
    auto knowledge = Knowledge::shared();
    QVERIFY(knowledge);
    VerifyRequest request;
    request.os = u"linux"_s;
    request.libraries = {u"libcuda.so.1"_s, u"libcublas.so.12"_s};
    request.expectGpu = true;
    const ProbeRequest gpu = request.probeRequest((*knowledge)->catalog);
    QVERIFY(gpu.compute);
    QVERIFY(gpu.toArguments().contains(u"--compute"_s));
    request.expectGpu = false;
    QVERIFY(!request.probeRequest((*knowledge)->catalog).compute);
}

void TestProbe::verifyShowsWhatComputed_data()
{
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("cause");
    QTest::addColumn<QString>("detail");

    QTest::newRow("all compute") << "ok"
                                 << "passed"
                                 << ""
                                 << "cuDNN convolution on the GPU: correct";
    QTest::newRow("cublas fails") << "cublas_error"
                                  << "failed"
                                  << "cublas_failed"
                                  << "cuBLAS matrix multiplication on the GPU: failed in cublasSgemm_v2: "
                                     "CUBLAS_STATUS_EXECUTION_FAILED (13)";
    QTest::newRow("kernel wrong") << "kernel_wrong"
                                  << "failed"
                                  << "gpu_kernel_failed"
                                  << "GPU test kernel through the driver: failed in cuLaunchKernel: result differs";
    QTest::newRow("no gpu") << "no_device"
                            << "passed"
                            << ""
                            << "GPU test kernel through the driver: not run, no GPU found (CUDA_ERROR_NO_DEVICE (100))";
}

void TestProbe::verifyShowsWhatComputed()
{
    QFETCH(QString, fault);
    QFETCH(QString, status);
    QFETCH(QString, cause);
    QFETCH(QString, detail);
    const HelperRun r = runHelper(fault,
                                  {u"--library"_s, u"cuda:libcublas.so.12"_s, u"--library"_s, u"cudnn:libcudnn.so.9"_s,
                                   u"--library"_s, u"driver:libcuda.so.1"_s, u"--compute"_s});
    QCOMPARE(r.report.compute.size(), 3);
    const VerifyLayer layer = librariesLayer(r.report, false);
    QCOMPARE(layer.id, u"libraries"_s);
    QCOMPARE(layer.status == VerifyLayer::Status::Failed ? u"failed"_s : u"passed"_s, status);
    QCOMPARE(layer.cause, cause);
    const QString details = layer.details.join(u'\n');
    QVERIFY2(details.contains(detail), qPrintable(details));
    // Only when everything computed does the layer say so, pointing a later TensorFlow failure
    // at TensorFlow rather than at the GPU libraries.
    const bool allComputed = fault == u"ok";
    QCOMPARE(layer.summary.contains(u"the GPU computed correctly"_s), allComputed);
    QCOMPARE(layer.explanation.contains(u"TensorFlow's own setup"_s), allComputed);
    if (!cause.isEmpty())
        QCOMPARE(layer.explanation, r.report.finding(cause)->message());
}

QTEST_GUILESS_MAIN(TestProbe)
#include "test_probe.moc"
