// tfsetup doctor --env on an environment tfsetup made, read through its record: Python,
// TensorFlow, the plan's CUDA, cuDNN and GPUs, the launcher's library folders first on the search
// order; every recorded file checked (a deleted or changed library is an error repair can act on,
// pip's NVIDIA wheels checked against their RECORD); a record that cannot be read said as such;
// the native load probe's findings mapped by code; and, end to end through the real binaries, the
// doctor and verify agreeing that a deleted libcudart.so.12 breaks a pip-route environment.

#include "doctor/doctor.h"
#include "install/environmentrecord.h"
#include "support/coroutinetest.h"
#include "support/fixturetree.h"
#include "verify/verifier.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace tfsetup::test;
using namespace Qt::Literals::StringLiterals;

namespace {

const QString envDir = u"/home/student/envs/tf215"_s;
const QString site = u"venv/lib/python3.11/site-packages"_s;
const QString kernels = u"/home/student/.local/share/jupyter/kernels"_s;

QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// pip's RECORD for one file: path,sha256=<urlsafe base64>,size.
QByteArray recordRow(const QString &path, const QByteArray &bytes)
{
    return path.toUtf8() + ",sha256="
        + QCryptographicHash::hash(bytes, QCryptographicHash::Sha256)
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
        + ',' + QByteArray::number(bytes.size()) + '\n';
}

const DoctorFinding *findingWithId(const QList<DoctorFinding> &findings, const QString &id)
{
    for (const DoctorFinding &f : findings) {
        if (f.id == id)
            return &f;
    }
    return nullptr;
}

const DoctorFinding *findingWithCause(const QList<DoctorFinding> &findings, const QString &cause)
{
    for (const DoctorFinding &f : findings) {
        if (f.cause == cause)
            return &f;
    }
    return nullptr;
}

QString describe(const QList<DoctorFinding> &findings)
{
    QStringList out;
    for (const DoctorFinding &f : findings)
        out.append(severityName(f.severity) + u' ' + f.id + u": " + f.summary.english);
    return out.join(u'\n');
}

} // namespace

class TestDoctorEnv final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pipRoute_readThroughTheRecord();
    void venvFolder_findsTheRecordOneLevelUp();
    void pipRoute_deletedRuntimeIsAnError_data();
    void pipRoute_deletedRuntimeIsAnError();
    void pipRoute_libraryReplacedByALinkIsAltered();
    void toolkitRoute_recordedFilesChecked();
    void pinnedGpuThisMachineLacks();
    void toolkitRoute_launcherFolderSearchedFirst();
    void corruptRecord_saidAndFolderStillRead();
    void probeFindings_mappedByCode();
    void probeThatCannotStart_isInfo();
    void endToEnd_doctorAndVerifyAgree();

private:
    // A Linux PC with an RTX 3060 and a pip-route (or toolkit-route) tfsetup environment.
    std::unique_ptr<RootedSystem> build(FixtureTree &tree, bool toolkit = false, bool gpu = true);
    std::optional<DoctorReport> doctor(SystemView &system, const QString &env, const QString &probe = {});

    std::shared_ptr<const Knowledge> m_knowledge;
    int m_pinned = 0; // the GPU the record pins
    std::optional<TfRelease> m_release;
    QStringList m_cuda;
    QStringList m_cudnn;
};

void TestDoctorEnv::initTestCase()
{
    auto knowledge = Knowledge::shared();
    QVERIFY2(knowledge, knowledge ? "" : qPrintable(knowledge.error().message));
    m_knowledge = *knowledge;
    m_release = m_knowledge->catalog.release(u"linux"_s, u"2.15"_s);
    QVERIFY(m_release);
    m_cuda = m_knowledge->catalog.cudaLibraries(m_release->cuda, u"linux"_s);
    m_cudnn = m_knowledge->catalog.cudnnLibraries(m_release->cudnn, u"linux"_s);
    QVERIFY(m_cuda.contains(u"libcudart.so.12"_s));
    QVERIFY(!m_cudnn.isEmpty());
}

std::unique_ptr<RootedSystem> TestDoctorEnv::build(FixtureTree &tree, bool toolkit, bool gpu)
{
    const QString env = envDir.mid(1);
    TreeEntries files{{u"usr/bin/python3.11"_s, "ELF"},
                      {env + u"/venv/pyvenv.cfg"_s, "home = /usr/bin\nversion = 3.11.2\n"},
                      {env + u"/venv/bin/python3"_s, "ELF"},
                      {env + u"/venv/bin/python"_s, "ELF"},
                      {env + u'/' + site + u"/tensorflow-2.15.1.dist-info/METADATA"_s, "Name: tensorflow\n"},
                      {env + u"/start-python.sh"_s, "#!/bin/sh\n"}};
    if (gpu)
        files.append({u"usr/bin/nvidia-smi"_s, "ELF"});
    EnvironmentRecord record;
    record.name = u"tf215"_s;
    record.os = u"linux"_s;
    record.pythonVersion = u"3.11.2"_s;
    record.packages = {u"tensorflow==2.15.1"_s};
    record.launchers = {u"start-python.sh"_s};
    record.kernelFolder = kernels + u"/tf215"_s;
    record.spec = QJsonObject{{u"route"_s, toolkit ? u"linux-toolkit"_s : u"linux-pip"_s},
                              {u"tensorflow"_s, u"2.15.1"_s},
                              {u"package"_s, toolkit ? u"tensorflow"_s : u"tensorflow[and-cuda]"_s},
                              {u"python"_s, u"3.11"_s},
                              {u"cuda"_s, m_release->cuda},
                              {u"cudnn"_s, m_release->cudnn},
                              {u"gpus"_s, QJsonArray{m_pinned}}};
    if (toolkit) {
        // The installer's placement: every library in cuda/lib, each recorded with size and digest.
        for (const QString &name : m_cuda + m_cudnn) {
            const QByteArray bytes = "ELF " + name.toUtf8();
            files.append({env + u"/cuda/lib/"_s + name, bytes});
            RecordedFile f;
            f.path = u"cuda/lib/"_s + name;
            f.size = bytes.size();
            f.sha256 = sha256(bytes);
            f.origin = u"cuda_cudart 12.2.140 (linux-x86_64): lib/"_s + name;
            record.files.append(f);
        }
        RecordedFile launcher;
        launcher.path = u"start-python.sh"_s;
        launcher.size = 10;
        launcher.sha256 = sha256("#!/bin/sh\n");
        launcher.origin = u"tfsetup"_s;
        record.files.append(launcher);
    } else {
        // pip's NVIDIA wheels, each with its RECORD.
        QHash<QString, QByteArray> rows;
        for (const QString &name : m_cuda + m_cudnn) {
            const QString package = name.startsWith(u"libcudnn"_s) ? u"cudnn"_s
                : name.startsWith(u"libcudart"_s)                  ? u"cuda_runtime"_s
                                                                   : name.section(u'.', 0, 0).mid(3);
            const QString path = u"nvidia/"_s + package + u"/lib/"_s + name;
            const QByteArray bytes = "ELF " + name.toUtf8();
            files.append({env + u'/' + site + u'/' + path, bytes});
            rows[package] += recordRow(path, bytes);
        }
        for (auto it = rows.constBegin(); it != rows.constEnd(); ++it) {
            files.append({env + u'/' + site + u"/nvidia_"_s + it.key() + u"_cu12-12.2.140.dist-info/RECORD"_s,
                          it.value() + "nvidia_" + it.key().toUtf8() + "_cu12-12.2.140.dist-info/RECORD,,\n"});
        }
    }
    files.append({env + u"/environment.json"_s, QJsonDocument(record.toJson()).toJson()});
    // The kernel the install registered names the venv's bin/python; the doctor examines bin/python3.
    files.append({kernels.mid(1) + u"/tf215/kernel.json"_s,
                  (u"{\"argv\": [\""_s + envDir
                   + u"/venv/bin/python\", \"-m\", \"ipykernel_launcher\", \"-f\", "
                     u"\"{connection_file}\"], \"display_name\": \"TF 2.15\", "
                     u"\"language\": \"python\"}"_s)
                      .toUtf8()});
    // Another kernel, so "no kernel runs the environment" could be said at all.
    files.append({u"usr/share/jupyter/kernels/python3/kernel.json"_s,
                  R"({"argv": ["/usr/bin/python3.11", "-m", "ipykernel_launcher"], "display_name": "Python 3"})"});
    if (!tree.write(files))
        return nullptr;
    if (!tree.writeEnv({{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin:/bin"_s}}))
        return nullptr;
    if (!tree.writeSystem(
            SystemDescription()
                .arch(u"x86_64"_s)
                .command(u"nvidia-smi"_s,
                         {u"--query-gpu=name,compute_cap,memory.total,pci.bus_id,pci.device_id,uuid,driver_version"_s,
                          u"--format=csv,noheader,nounits"_s},
                         "NVIDIA GeForce RTX 3060, 8.6, 12288, 00000000:01:00.0, 0x250410DE, GPU-1, 550.54.14\n")))
        return nullptr;
    return tree.open(OsFamily::Linux);
}

std::optional<DoctorReport> TestDoctorEnv::doctor(SystemView &system, const QString &env, const QString &probe)
{
    DoctorOptions options;
    options.envDir = env;
    options.probe = probe;
    options.detect.scanPythons = false;
    return awaitTask(runDoctor(system, m_knowledge, options));
}

void TestDoctorEnv::pipRoute_readThroughTheRecord()
{
    FixtureTree tree;
    auto system = build(tree);
    QVERIFY(system);
    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    const DoctorTarget &t = report->target;
    QVERIFY(t.record);
    QCOMPARE(t.envDir, envDir);
    QCOMPARE(t.python, envDir + u"/venv/bin/python3"_s);
    QCOMPARE(t.pythonVersion, u"3.11.2"_s);
    QCOMPARE(t.tensorflow, u"2.15.1"_s);
    QCOMPARE(t.tensorflowPackage, u"tensorflow"_s);
    QCOMPARE(t.route, u"linux-pip"_s);
    QCOMPARE(t.cuda, m_release->cuda);
    QCOMPARE(t.cudnn, m_release->cudnn);
    QCOMPARE(t.gpus, QList<int>{0});
    QVERIFY(!t.cpuOnly);
    QCOMPARE(t.pythonLauncher, envDir + u"/start-python.sh"_s);
    QCOMPARE(t.kernelFolder, kernels + u"/tf215"_s);
    QVERIFY(t.pipLibraryDirs.contains(envDir + u'/' + site + u"/nvidia/cuda_runtime/lib"_s));
    const QJsonObject json = t.toJson();
    QCOMPARE(json.value("record"_L1).toBool(), true);
    QCOMPARE(json.value("route"_L1).toString(), u"linux-pip"_s);
    QCOMPARE(json.value("cuda"_L1).toString(), m_release->cuda);
    QCOMPARE(json.value("gpus"_L1).toArray(), QJsonArray{0});
    QCOMPARE(json.value("python_version"_L1).toString(), u"3.11.2"_s); // the old fields stay
    // The launcher puts pip's libraries first: that is where the search begins.
    const QList<LibrarySearchDir> order = librarySearchOrder(*system, t);
    QVERIFY(!order.isEmpty());
    QCOMPARE(order.first().origin, u"launcher"_s);
    // Everything in place: no error, and the environment's own kernel is its kernel although it
    // names bin/python and the doctor examined bin/python3.
    QVERIFY2(!report->hasErrors(), qPrintable(describe(report->findings)));
    QVERIFY2(!findingWithId(report->findings, u"jupyter_kernel_mismatch:env"_s),
             qPrintable(describe(report->findings)));
    QVERIFY(!findingWithId(report->findings, u"jupyter_kernel_mismatch:tf215"_s));
    // The text names what the record says.
    const QString text = report->text();
    QVERIFY2(text.contains(u"3.11.2"_s) && text.contains(u"2.15.1"_s), qPrintable(text));
    QVERIFY2(text.contains(u"linux-pip"_s), qPrintable(text));
    QVERIFY2(text.contains(u"%1 / %2"_s.arg(m_release->cuda, m_release->cudnn)), qPrintable(text));
    QVERIFY2(text.contains(u"  Its GPUs: 0\n"_s), qPrintable(text));
    QVERIFY2(text.contains(u"  Python: 3.11.2\n"_s) && !text.contains(u"TensorFlow: -"_s), qPrintable(text));
}

void TestDoctorEnv::venvFolder_findsTheRecordOneLevelUp()
{
    FixtureTree tree;
    auto system = build(tree);
    QVERIFY(system);
    const DoctorTarget t = inspectEnvironment(*system, envDir + u"/venv"_s);
    QVERIFY(t.record);
    QCOMPARE(t.envDir, envDir);
    QCOMPARE(t.route, u"linux-pip"_s);
    QCOMPARE(t.tensorflow, u"2.15.1"_s);
}

void TestDoctorEnv::pipRoute_deletedRuntimeIsAnError_data()
{
    QTest::addColumn<bool>("gpu");
    QTest::newRow("GPU seen") << true;
    QTest::newRow("no GPU seen (driver broken since)") << false;
}

void TestDoctorEnv::pipRoute_deletedRuntimeIsAnError()
{
    QFETCH(bool, gpu);
    FixtureTree tree;
    auto system = build(tree, false, gpu);
    QVERIFY(system);
    QVERIFY(QFile::remove(tree.filePath(envDir.mid(1) + u'/' + site + u"/nvidia/cuda_runtime/lib/libcudart.so.12"_s)));
    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    QVERIFY2(report->hasErrors(), qPrintable(report->text()));
    // The scan: pip's folder is on the search order, so the runtime is missing from it.
    const DoctorFinding *missing = findingWithCause(report->findings, u"missing_cuda_runtime"_s);
    QVERIFY2(missing, qPrintable(describe(report->findings)));
    QCOMPARE(missing->severity, Severity::Error);
    QVERIFY(missing->summary.english.contains(u"libcudart.so.12"_s));
    // pip's RECORD: the wheel that lost it, named with the file, reinstallable.
    const DoctorFinding *damaged = findingWithId(report->findings, u"environment_damaged:packages"_s);
    QVERIFY2(damaged, qPrintable(describe(report->findings)));
    QCOMPARE(damaged->severity, Severity::Error);
    QVERIFY(damaged->summary.english.contains(u"libcudart.so.12"_s));
    QVERIFY(damaged->summary.english.contains(u"nvidia-cuda-runtime-cu12 12.2.140"_s));
    QVERIFY(damaged->evidence.join(u'\n').contains(u"missing: "_s + envDir + u'/' + site
                                                   + u"/nvidia/cuda_runtime/lib/libcudart.so.12"_s));
    QCOMPARE(damaged->actions.first().type, u"pip_install"_s);
    QCOMPARE(damaged->actions.first().params.value("requirement"_L1).toString(),
             u"nvidia-cuda-runtime-cu12==12.2.140"_s);
}

void TestDoctorEnv::pipRoute_libraryReplacedByALinkIsAltered()
{
    FixtureTree tree;
    auto system = build(tree);
    QVERIFY(system);
    // The same bytes elsewhere, linked in where pip put the file: the doctor reads pip's RECORD as
    // repair does, never through a link it did not make.
    const QString lib = tree.filePath(envDir.mid(1) + u'/' + site + u"/nvidia/cuda_runtime/lib/libcudart.so.12"_s);
    const QString copy = tree.filePath(u"tmp/libcudart.so.12"_s);
    QVERIFY(QDir().mkpath(QFileInfo(copy).absolutePath()));
    QVERIFY(QFile::copy(lib, copy));
    QVERIFY(QFile::remove(lib));
    QVERIFY(QFile::link(copy, lib));
    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    const DoctorFinding *damaged = findingWithId(report->findings, u"environment_damaged:packages"_s);
    QVERIFY2(damaged, qPrintable(describe(report->findings)));
    QVERIFY2(damaged->evidence.join(u'\n').contains(u"altered: "_s + envDir + u'/' + site
                                                    + u"/nvidia/cuda_runtime/lib/libcudart.so.12"_s),
             qPrintable(damaged->evidence.join(u'\n')));
}

void TestDoctorEnv::toolkitRoute_recordedFilesChecked()
{
    FixtureTree tree;
    auto system = build(tree, true);
    QVERIFY(system);
    const auto intact = doctor(*system, envDir);
    QVERIFY(intact);
    QVERIFY2(!findingWithCause(intact->findings, u"environment_damaged"_s), qPrintable(describe(intact->findings)));
    QVERIFY2(!intact->hasErrors(), qPrintable(describe(intact->findings)));

    const QString lib = tree.filePath(envDir.mid(1) + u"/cuda/lib/"_s);
    QVERIFY(QFile::remove(lib + u"libcudart.so.12"_s));
    // Same size, other bytes: found by its digest (a small file is hashed).
    const QString cudnn = m_cudnn.first();
    QFile same(lib + cudnn);
    QVERIFY(same.open(QIODevice::ReadWrite));
    const QByteArray bytes = same.readAll();
    same.seek(0);
    same.write(QByteArray(bytes.size(), 'x'));
    same.close();
    // Another size: found without reading it.
    QFile launcher(tree.filePath(envDir.mid(1) + u"/start-python.sh"_s));
    QVERIFY(launcher.open(QIODevice::Append));
    launcher.write("echo hi\n");
    launcher.close();

    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    const DoctorFinding *f = findingWithId(report->findings, u"environment_damaged:files"_s);
    QVERIFY2(f, qPrintable(describe(report->findings)));
    QCOMPARE(f->severity, Severity::Error);
    QVERIFY2(f->summary.english.startsWith(u"3 of the files"_s), qPrintable(f->summary.english));
    const QString evidence = f->evidence.join(u'\n');
    QVERIFY2(evidence.contains(u"missing: "_s + envDir + u"/cuda/lib/libcudart.so.12"_s), qPrintable(evidence));
    QVERIFY2(evidence.contains(u"altered: "_s + envDir + u"/cuda/lib/"_s + cudnn), qPrintable(evidence));
    QVERIFY2(evidence.contains(u"altered: "_s + envDir + u"/start-python.sh"_s), qPrintable(evidence));
    // What repair puts back from NVIDIA's archives (repair.cpp judgeFindings: fetch_library of a
    // recorded file); the launcher it writes again anyway.
    QStringList fetched;
    for (const DoctorAction &a : f->actions) {
        QCOMPARE(a.type, u"fetch_library"_s);
        fetched.append(a.params.value("library"_L1).toString());
    }
    QCOMPARE(fetched, (QStringList{u"libcudart.so.12"_s, cudnn}));
    // And the scan agrees that the runtime is gone from the launcher's folder.
    QVERIFY2(findingWithCause(report->findings, u"missing_cuda_runtime"_s), qPrintable(describe(report->findings)));
}

void TestDoctorEnv::pinnedGpuThisMachineLacks()
{
    // Made on a two-GPU machine for its second GPU; this one has one.
    m_pinned = 1;
    FixtureTree tree;
    auto system = build(tree);
    m_pinned = 0;
    QVERIFY(system);
    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    QCOMPARE(report->target.gpus, QList<int>{1});
    const DoctorFinding *f = findingWithId(report->findings, u"no_gpu_or_driver:pinned"_s);
    QVERIFY2(f, qPrintable(describe(report->findings)));
    QCOMPARE(f->severity, Severity::Error);
    QVERIFY(f->summary.english.contains(u"GPU 1"_s));
    QVERIFY(f->evidence.join(u'\n').contains(u"gpu 0: NVIDIA GeForce RTX 3060"_s));
}

void TestDoctorEnv::toolkitRoute_launcherFolderSearchedFirst()
{
    FixtureTree tree;
    auto system = build(tree, true);
    QVERIFY(system);
    const DoctorTarget t = inspectEnvironment(*system, envDir);
    QCOMPARE(t.launcherLibraryDirs, QStringList{envDir + u"/cuda/lib"_s});
    QCOMPARE(t.recordedFiles.size(), m_cuda.size() + m_cudnn.size() + 1);
    const QList<LibrarySearchDir> order = librarySearchOrder(*system, t);
    QCOMPARE(order.first().dir, envDir + u"/cuda/lib"_s);
    QCOMPARE(order.first().origin, u"launcher"_s);
    QCOMPARE(t.toJson().value("recorded_files"_L1).toInt(), int(t.recordedFiles.size()));
}

void TestDoctorEnv::corruptRecord_saidAndFolderStillRead()
{
    FixtureTree tree;
    auto system = build(tree);
    QVERIFY(system);
    QVERIFY(tree.write(envDir.mid(1) + u"/environment.json"_s, "{\"schema\": 1, \"files\": [ {\"path\": "));
    const auto report = doctor(*system, envDir);
    QVERIFY(report);
    const DoctorTarget &t = report->target;
    QVERIFY(!t.record);
    QVERIFY(!t.recordError.isEmpty());
    QCOMPARE(t.envDir, envDir);
    // Read as today: the venv's Python and TensorFlow.
    QCOMPARE(t.pythonVersion, u"3.11.2"_s);
    QCOMPARE(t.tensorflow, u"2.15.1"_s);
    const DoctorFinding *f = findingWithId(report->findings, u"environment_damaged:record"_s);
    QVERIFY2(f, qPrintable(describe(report->findings)));
    QCOMPARE(f->severity, Severity::Error);
    QVERIFY(f->summary.english.contains(envDir + u"/environment.json"_s));
    QVERIFY(f->evidence.first().startsWith(envDir + u"/environment.json: "_s));
    QCOMPARE(t.toJson().value("record_error"_L1).toString(), t.recordError);
}

void TestDoctorEnv::probeFindings_mappedByCode()
{
    ProbeReport report;
    report.os = u"linux"_s;
    report.searchPath = {envDir + u"/venv/lib/nvidia/cudnn/lib"_s};
    const auto library = [&](const QString &name, const QString &group) {
        ProbedLibrary p;
        p.library = {name, group, {}};
        report.libraries.append(p);
    };
    library(u"libcudart.so.12"_s, u"cuda"_s);
    library(u"libcudnn.so.8"_s, u"cudnn"_s);
    library(u"libcuda.so.1"_s, u"driver"_s);
    const auto finding = [&](const QString &code, const QString &severity, const QString &name) {
        ProbeFinding f;
        f.code = code;
        f.severity = severity;
        f.library = name;
        f.other = u"cannot open shared object file: No such file or directory"_s;
        report.findings.append(f);
    };
    library(u"libcublas.so.12"_s, u"cuda"_s);
    finding(u"library_missing"_s, u"error"_s, u"libcudart.so.12"_s);
    finding(u"library_missing"_s, u"error"_s, u"libcublas.so.12"_s); // one finding with libcudart's
    finding(u"library_missing"_s, u"error"_s, u"libcudnn.so.8"_s);
    finding(u"sublibrary_missing"_s, u"error"_s, u"libcudnn_cnn_infer.so.8"_s);
    finding(u"driver_missing"_s, u"error"_s, u"libcuda.so.1"_s);
    finding(u"gpu_compute_failed"_s, u"error"_s, u"libcublas.so.12"_s); // a code the doctor does not know
    finding(u"other_copies"_s, u"info"_s, u"libcudart.so.12"_s);

    DoctorTarget target;
    target.envDir = envDir;
    HardwareReport hardware;
    GpuInfo gpu;
    gpu.name = u"NVIDIA GeForce RTX 3060"_s;
    gpu.vendor = u"nvidia"_s;
    hardware.gpus.append(gpu);
    const bool seen = !hardware.nvidiaGpus().isEmpty();

    const QList<DoctorFinding> findings = probeFindings(report, hardware, *m_knowledge, target);
    QStringList got;
    for (const DoctorFinding &f : findings)
        got.append(f.id + u" → "_s + f.cause);
    QStringList expected{u"probe.library_missing:libcudart.so.12 → missing_cuda_runtime"_s,
                         u"probe.library_missing:libcudnn.so.8 → missing_cudnn"_s,
                         u"probe.sublibrary_missing:libcudnn_cnn_infer.so.8 → missing_cudnn"_s,
                         u"probe.driver_missing:libcuda.so.1 → no_gpu_or_driver"_s,
                         u"probe.gpu_compute_failed:libcublas.so.12 → library_probe"_s};
    if (!seen)
        expected.removeAt(3);
    QCOMPARE(got, expected);
    for (const DoctorFinding &f : findings)
        QCOMPARE(f.severity, Severity::Error);
    const DoctorFinding *cudart = findingWithId(findings, u"probe.library_missing:libcudart.so.12"_s);
    QVERIFY2(cudart->summary.english.contains(u"(libcudart.so.12, libcublas.so.12)"_s),
             qPrintable(cudart->summary.english));
    QCOMPARE(cudart->actions.size(), 2);
    QCOMPARE(cudart->actions.first().type, u"fetch_library"_s);
    QCOMPARE(cudart->actions.last().params.value("library"_L1).toString(), u"libcublas.so.12"_s);
    QVERIFY(cudart->evidence.join(u'\n').contains(u"LD_LIBRARY_PATH as the launcher set it"_s));
    // The unknown code speaks in the probe's own words.
    const DoctorFinding *compute = findingWithId(findings, u"probe.gpu_compute_failed:libcublas.so.12"_s);
    QVERIFY(compute->summary.translated.contains(report.findings[5].message()));

    // Without an NVIDIA GPU the driver is the scan's no_gpu_or_driver; for a CPU environment all is info.
    target.cpuOnly = true;
    const QList<DoctorFinding> cpu = probeFindings(report, HardwareReport{}, *m_knowledge, target);
    QCOMPARE(cpu.size(), 4);
    for (const DoctorFinding &f : cpu)
        QCOMPARE(f.severity, Severity::Info);
}

void TestDoctorEnv::probeThatCannotStart_isInfo()
{
    FixtureTree tree;
    auto system = build(tree);
    QVERIFY(system);
    // A fixture root cannot start a helper: said as info, and the doctor goes on.
    const auto report = doctor(*system, envDir, u"/nonexistent/tfsetup-probe"_s);
    QVERIFY(report);
    const DoctorFinding *f = findingWithId(report->findings, u"library_probe:not_run"_s);
    QVERIFY2(f, qPrintable(describe(report->findings)));
    QCOMPARE(f->severity, Severity::Info);
    QVERIFY2(!report->hasErrors(), qPrintable(describe(report->findings)));
}

void TestDoctorEnv::endToEnd_doctorAndVerifyAgree()
{
    const QString python = QStandardPaths::findExecutable(u"python3"_s);
    if (python.isEmpty())
        QSKIP("python3 is not installed");
    const QString tfsetup = qEnvironmentVariable("TFSETUP_BINARY");
    QVERIFY(QFileInfo(tfsetup).isExecutable());
    QVERIFY(QFileInfo(QFileInfo(tfsetup).dir().filePath(u"tfsetup-probe"_s)).isExecutable());

    // A pip-route environment as the installer leaves it: venv/ whose python links to the host's,
    // pip's NVIDIA libraries with their RECORD, the launcher, the record. The libraries are
    // stand-ins, so the probe cannot load them; what matters is that both commands name the same
    // missing runtime.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString env = dir.filePath(u"tf215"_s);
    const QString sitePath = env + u'/' + site;
    QVERIFY(QDir().mkpath(env + u"/venv/bin"_s));
    QVERIFY(QFile::link(python, env + u"/venv/bin/python3"_s));
    QVERIFY(QFile::link(u"python3"_s, env + u"/venv/bin/python"_s));
    QFile cfg(env + u"/venv/pyvenv.cfg"_s);
    QVERIFY(cfg.open(QIODevice::WriteOnly));
    cfg.write("home = " + QFileInfo(python).absolutePath().toUtf8() + "\nversion = 3.11.2\n");
    cfg.close();
    QByteArray rows;
    for (const QString &name : m_cuda + m_cudnn) {
        const QString package = name.startsWith(u"libcudnn"_s) ? u"cudnn"_s : u"cuda_runtime"_s;
        const QString path = u"nvidia/"_s + package + u"/lib/"_s + name;
        QVERIFY(QDir().mkpath(QFileInfo(sitePath + u'/' + path).absolutePath()));
        QFile lib(sitePath + u'/' + path);
        QVERIFY(lib.open(QIODevice::WriteOnly));
        lib.write("not a library");
        lib.close();
        if (package == u"cuda_runtime")
            rows += recordRow(path, "not a library");
    }
    QVERIFY(QDir().mkpath(sitePath + u"/nvidia_cuda_runtime_cu12-12.2.140.dist-info"_s));
    QFile pipRecord(sitePath + u"/nvidia_cuda_runtime_cu12-12.2.140.dist-info/RECORD"_s);
    QVERIFY(pipRecord.open(QIODevice::WriteOnly));
    pipRecord.write(rows);
    pipRecord.close();
    QFile launcher(env + u"/start-python.sh"_s);
    QVERIFY(launcher.open(QIODevice::WriteOnly));
    launcher.write("#!/bin/sh\nTFSETUP_ENV=$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd -P) || exit 1\n"
                   "tfsetup_libs=\nfor d in \"$TFSETUP_ENV\"/venv/lib/python*/site-packages/nvidia/*/lib; do\n"
                   "    [ -d \"$d\" ] && tfsetup_libs=\"${tfsetup_libs:+$tfsetup_libs:}$d\"\ndone\n"
                   "LD_LIBRARY_PATH=\"$tfsetup_libs\"\nexport LD_LIBRARY_PATH\n"
                   "exec \"$TFSETUP_ENV/venv/bin/python\" \"$@\"\n");
    launcher.close();
    launcher.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    EnvironmentRecord record;
    record.name = u"tf215"_s;
    record.os = u"linux"_s;
    record.pythonVersion = u"3.11.2"_s;
    record.packages = {u"tensorflow==2.15.1"_s};
    record.launchers = {u"start-python.sh"_s};
    record.spec = QJsonObject{{u"route"_s, u"linux-pip"_s},
                              {u"tensorflow"_s, u"2.15.1"_s},
                              {u"cuda"_s, m_release->cuda},
                              {u"cudnn"_s, m_release->cudnn}};
    QFile json(env + u"/environment.json"_s);
    QVERIFY(json.open(QIODevice::WriteOnly));
    json.write(QJsonDocument(record.toJson()).toJson());
    json.close();
    QVERIFY(QFile::remove(sitePath + u"/nvidia/cuda_runtime/lib/libcudart.so.12"_s));

    const auto runJson = [&](const QStringList &arguments, int *exitCode) {
        QProcess p;
        p.start(tfsetup, arguments);
        if (!p.waitForFinished(180000))
            return QJsonObject();
        *exitCode = p.exitCode();
        return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    };
    int verifyExit = -1;
    const QJsonObject verify = runJson({u"verify"_s, u"--env"_s, env, u"--json"_s}, &verifyExit);
    QCOMPARE(verifyExit, 1);
    QCOMPARE(verify.value("passed"_L1).toBool(true), false);
    const QJsonObject libraries = verify.value("layers"_L1).toArray().first().toObject();
    QCOMPARE(libraries.value("id"_L1).toString(), u"libraries"_s);
    QVERIFY(QJsonDocument(libraries).toJson().contains("libcudart.so.12"));

    // Given as the venv, relative to the current folder: the record is found one level up.
    int doctorExit = -1;
    QProcess p;
    p.setWorkingDirectory(dir.path());
    p.start(tfsetup, {u"doctor"_s, u"--env"_s, u"tf215/venv"_s, u"--json"_s});
    QVERIFY(p.waitForFinished(180000));
    doctorExit = p.exitCode();
    const QJsonObject doctor = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(doctorExit, 1);
    const QJsonObject target = doctor.value("target"_L1).toObject();
    QCOMPARE(target.value("record"_L1).toBool(), true);
    QCOMPARE(target.value("env"_L1).toString(), QFileInfo(env).absoluteFilePath());
    QCOMPARE(target.value("tensorflow"_L1).toString(), u"2.15.1"_s);
    QCOMPARE(target.value("python_version"_L1).toString(), u"3.11.2"_s);
    // The probe ran through the launcher (a machine whose loader finds another libcudart.so.12
    // elsewhere may load that one), and pip's RECORD names the file that is gone.
    bool probeRan = false;
    bool damagedSaysCudart = false;
    for (const QJsonValue &v : doctor.value("findings"_L1).toArray()) {
        const QJsonObject f = v.toObject();
        const QByteArray text = QJsonDocument(f).toJson();
        QVERIFY2(f.value("id"_L1).toString() != u"library_probe:not_run", text.constData());
        if (text.contains("tfsetup-probe: "))
            probeRan = true;
        if (f.value("severity"_L1).toString() == u"error"
            && f.value("id"_L1).toString() == u"environment_damaged:packages" && text.contains("libcudart.so.12"))
            damagedSaysCudart = true;
    }
    QVERIFY2(probeRan, QJsonDocument(doctor).toJson().constData());
    QVERIFY2(damagedSaysCudart, QJsonDocument(doctor).toJson().constData());
}

QTEST_GUILESS_MAIN(TestDoctorEnv)
#include "test_doctor_env.moc"
