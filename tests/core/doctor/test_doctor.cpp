#include "doctor/doctor.h"
#include "support/coroutinetest.h"
#include "support/fixturetree.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStringEncoder>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

// The doctor's system scan on broken machines, one cause per machine. Each machine is a student
// PC built as a fixture tree: a TensorFlow environment, the CUDA toolkit folders NVIDIA's
// installer makes, cuDNN copied in by hand, and the PATH order users end up with
// (tests/data/doctor/SOURCES.md). Also the report: redacted, in the user's language and English.

using namespace tfsetup::core;
using namespace tfsetup::test;
using namespace Qt::Literals::StringLiterals;

namespace {

const QString toolkitDir = u"C/Program Files/NVIDIA GPU Computing Toolkit/CUDA"_s;
const QString toolkitPath = u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"_s;

// A Windows 10 PC with an RTX 3060 and a TensorFlow 2.10 venv; every field can be broken.
struct WindowsPc {
    QString driver = u"531.14"_s;
    QString computeCapability = u"8.6"_s;
    QString tensorflow = u"2.10.1"_s;
    QString python = u"3.10.11"_s;
    QString env = u"C/Users/student/tf210"_s;
    QStringList cudaFiles{u"cudart64_110.dll"_s, u"cublas64_11.dll"_s,   u"cublasLt64_11.dll"_s, u"cufft64_10.dll"_s,
                          u"curand64_10.dll"_s,  u"cusolver64_11.dll"_s, u"cusparse64_11.dll"_s};
    QStringList cudnnFiles{u"cudnn64_8.dll"_s,           u"cudnn_ops_infer64_8.dll"_s, u"cudnn_ops_train64_8.dll"_s,
                           u"cudnn_cnn_infer64_8.dll"_s, u"cudnn_cnn_train64_8.dll"_s, u"cudnn_adv_infer64_8.dll"_s,
                           u"cudnn_adv_train64_8.dll"_s};
    QString cudnnHeader = u"8.1.1"_s;
    bool toolkitOnPath = true;
    bool msvc = true;
    QStringList pathFirst; // folders users put before the toolkit
    TreeEntries extra;     // DLLs copied by hand, other toolkits, kernels

    std::unique_ptr<RootedSystem> build(FixtureTree &tree) const
    {
        TreeEntries files{
            {u"C/Windows/System32/nvcuda.dll"_s, "MZ"},
            {u"C/Windows/System32/nvidia-smi.exe"_s, "MZ"},
            {u"C/Users/student/AppData/Local/Programs/Python/Python310/python.exe"_s, "MZ"},
            {toolkitDir + u"/v11.2/bin/nvcc.exe"_s, "MZ"},
        };
        for (const char *dll : {"vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll", "msvcp140_1.dll"}) {
            if (msvc || QByteArray(dll) != "msvcp140_1.dll")
                files.append({u"C/Windows/System32/"_s + QLatin1String(dll), "MZ"});
        }
        for (const QString &f : cudaFiles)
            files.append({toolkitDir + u"/v11.2/bin/"_s + f, "MZ"});
        for (const QString &f : cudnnFiles)
            files.append({toolkitDir + u"/v11.2/bin/"_s + f, "MZ"});
        if (!cudnnHeader.isEmpty()) {
            const QStringList v = cudnnHeader.split(u'.');
            files.append({toolkitDir + u"/v11.2/include/cudnn_version.h"_s,
                          "#define CUDNN_MAJOR " + v[0].toLatin1() + "\n#define CUDNN_MINOR " + v[1].toLatin1()
                              + "\n#define CUDNN_PATCHLEVEL " + v[2].toLatin1() + "\n"});
        }
        if (!env.isEmpty()) {
            files.append({env + u"/pyvenv.cfg"_s,
                          "home = C:\\Users\\student\\AppData\\Local\\Programs\\Python\\Python310\n"
                          "include-system-site-packages = false\nversion = "
                              + python.toLatin1() + "\n"});
            files.append({env + u"/Scripts/python.exe"_s, "MZ"});
            if (!tensorflow.isEmpty())
                files.append({env + u"/Lib/site-packages/tensorflow-"_s + tensorflow + u".dist-info/METADATA"_s,
                              "Name: tensorflow\nVersion: " + tensorflow.toLatin1() + "\n"});
        }
        files.append(extra);
        if (!tree.write(files))
            return nullptr;

        QStringList path = pathFirst;
        if (toolkitOnPath)
            path << toolkitPath + u"\\v11.2\\bin"_s << toolkitPath + u"\\v11.2\\libnvvp"_s;
        path << u"C:\\Windows\\system32"_s << u"C:\\Windows"_s << u"C:\\Windows\\System32\\Wbem"_s
             << u"C:\\Users\\student\\AppData\\Local\\Programs\\Python\\Python310\\Scripts\\"_s
             << u"C:\\Users\\student\\AppData\\Local\\Programs\\Python\\Python310\\"_s
             << u"C:\\Users\\student\\AppData\\Local\\Microsoft\\WindowsApps"_s;
        if (!tree.writeEnv({{u"USERPROFILE"_s, u"C:\\Users\\student"_s},
                            {u"USERNAME"_s, u"student"_s},
                            {u"COMPUTERNAME"_s, u"DESKTOP-7Q2K9LM"_s},
                            {u"APPDATA"_s, u"C:\\Users\\student\\AppData\\Roaming"_s},
                            {u"SystemRoot"_s, u"C:\\Windows"_s},
                            {u"ProgramFiles"_s, u"C:\\Program Files"_s},
                            {u"CUDA_PATH"_s, toolkitPath + u"\\v11.2"_s},
                            {u"PATH"_s, path.join(u';')}}))
            return nullptr;
        const QByteArray smi = driver.isEmpty() ? QByteArray()
                                                : ("NVIDIA GeForce RTX 3060, " + computeCapability.toLatin1()
                                                   + ", 12288, 00000000:01:00.0, 0x250410DE, "
                                                     "GPU-00000000-0000-0000-0000-00000000a001, "
                                                   + driver.toLatin1() + "\n");
        SystemDescription system;
        system.arch(u"x86_64"_s)
            .registry(u"HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"_s, u"ProductName"_s, u"Windows 10 Pro"_s)
            .registry(u"HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0"_s, u"ProcessorNameString"_s,
                      u"Intel(R) Core(TM) i5-10400F CPU @ 2.90GHz"_s)
            .command(u"nvidia-smi"_s,
                     {u"--query-gpu=name,compute_cap,memory.total,pci.bus_id,pci.device_id,uuid,driver_version"_s,
                      u"--format=csv,noheader,nounits"_s},
                     smi, smi.isEmpty() ? 9 : 0);
        if (!tree.writeSystem(system))
            return nullptr;
        return tree.open(OsFamily::Windows);
    }
};

struct Doctor {
    std::shared_ptr<const Knowledge> knowledge;

    std::optional<DoctorReport> run(SystemView &system, const QString &env, DoctorOptions options = {}) const
    {
        options.envDir = env;
        options.detect.scanPythons = false;
        return awaitTask(runDoctor(system, knowledge, options));
    }
};

const DoctorFinding *find(const DoctorReport &report, const QString &cause)
{
    for (const DoctorFinding &f : report.findings) {
        if (f.cause == cause)
            return &f;
    }
    return nullptr;
}

// "cause:severity" for every error and warning.
QStringList alarms(const DoctorReport &report)
{
    QStringList out;
    for (const DoctorFinding &f : report.findings) {
        if (f.severity != Severity::Info)
            out.append(f.cause + u':' + severityName(f.severity));
    }
    out.sort();
    return out;
}

// Every translated text becomes "ZH[" + English + "]": enough to tell the two languages apart.
class MarkingTranslator final : public QTranslator {
public:
    QString translate(const char *context, const char *sourceText, const char *, int) const override
    {
        if (QByteArray(context) != "tfsetup::core::Doctor")
            return {};
        return u"ZH["_s + QString::fromUtf8(sourceText) + u']';
    }
    bool isEmpty() const override { return false; }
};

} // namespace

Q_DECLARE_METATYPE(WindowsPc)

class TestDoctor : public QObject {
    Q_OBJECT

private:
    Doctor m_doctor;

private slots:
    void initTestCase()
    {
        const QString source = qEnvironmentVariable("TFSETUP_SOURCE_DIR");
        auto knowledge = Knowledge::load(source + "/resources/catalog"_L1);
        QVERIFY2(knowledge.ok(), qPrintable(knowledge.ok() ? QString() : knowledge.error().detail));
        m_doctor = {*knowledge};
    }

    void windowsMachines_data()
    {
        QTest::addColumn<WindowsPc>("pc");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("healthy TF 2.10 with CUDA 11.2 and cuDNN 8.1.1") << WindowsPc{} << QStringList{};
        {
            WindowsPc pc;
            pc.toolkitOnPath = false;
            QTest::newRow("toolkit installed but not on PATH")
                << pc << QStringList{u"missing_cuda_runtime:error"_s, u"missing_cudnn:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudaFiles = {u"cudart64_101.dll"_s, u"cublas64_10.dll"_s};
            QTest::newRow("only CUDA 10.1 libraries") << pc << QStringList{u"cuda_version_mismatch:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnFiles.clear();
            pc.cudnnHeader.clear();
            QTest::newRow("cuDNN never installed") << pc << QStringList{u"missing_cudnn:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnFiles = {u"cudnn64_8.dll"_s};
            QTest::newRow("only cudnn64_8.dll copied") << pc << QStringList{u"missing_cudnn:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnFiles = {u"cudnn64_7.dll"_s};
            pc.cudnnHeader = u"7.6.5"_s;
            QTest::newRow("cuDNN 7 where TF needs 8") << pc << QStringList{u"cudnn_version_mismatch:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnHeader = u"8.0.5"_s;
            QTest::newRow("cuDNN 8.0.5 where TF needs 8.1") << pc << QStringList{u"cudnn_version_mismatch:error"_s};
        }
        {
            WindowsPc pc;
            pc.extra = {{u"C/Windows/System32/cudart64_110.dll"_s, "MZ"}};
            QTest::newRow("cudart64_110.dll copied into System32") << pc << QStringList{u"path_shadowing:warning"_s};
        }
        {
            WindowsPc pc;
            pc.extra = {{toolkitDir + u"/v11.0/bin/nvcc.exe"_s, "MZ"},
                        {toolkitDir + u"/v11.0/bin/cudnn64_8.dll"_s, "MZ"}};
            pc.pathFirst = {toolkitPath + u"\\v11.0\\bin"_s};
            QTest::newRow("older toolkit's cuDNN first on PATH") << pc << QStringList{u"path_shadowing:error"_s};
        }
        {
            WindowsPc pc;
            pc.driver = u"451.48"_s;
            QTest::newRow("driver older than CUDA 11 needs") << pc << QStringList{u"driver_too_old:error"_s};
        }
        {
            WindowsPc pc;
            pc.python = u"3.11.4"_s;
            QTest::newRow("Python 3.11 venv with TF 2.10") << pc << QStringList{u"python_version_unsupported:error"_s};
        }
        {
            WindowsPc pc;
            pc.tensorflow = u"2.15.0"_s;
            pc.python = u"3.10.11"_s;
            QTest::newRow("TF 2.15 on native Windows") << pc << QStringList{u"windows_native_gpu_unsupported:error"_s};
        }
        {
            WindowsPc pc;
            pc.msvc = false;
            QTest::newRow("msvcp140_1.dll missing") << pc << QStringList{u"msvc_runtime_missing:error"_s};
        }
        {
            WindowsPc pc;
            pc.computeCapability = u"9.0"_s;
            QTest::newRow("compute capability 9.0 only as PTX")
                << pc << QStringList{u"compute_capability_jit:warning"_s};
        }
        {
            WindowsPc pc;
            pc.computeCapability = u"3.0"_s;
            QTest::newRow("compute capability 3.0 below every build")
                << pc << QStringList{u"compute_capability_unsupported:error"_s};
        }
        {
            WindowsPc pc;
            pc.env = u"C/Users/学生/tf210"_s;
            QTest::newRow("environment under a Chinese user name") << pc << QStringList{u"path_non_ascii:warning"_s};
        }
        {
            WindowsPc pc;
            pc.extra = {
                {u"C/Users/student/AppData/Roaming/jupyter/kernels/tf/kernel.json"_s,
                 "{\"argv\": [\"C:\\\\Users\\\\student\\\\old-tf\\\\Scripts\\\\python.exe\", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"], \"display_name\": \"TF old\", \"language\": \"python\"}"}};
            QTest::newRow("Jupyter kernel of a deleted environment")
                << pc << QStringList{u"jupyter_kernel_mismatch:warning"_s, u"jupyter_kernel_mismatch:warning"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnHeader = u"8.9.7"_s;
            QTest::newRow("cuDNN 8.9 without zlibwapi.dll") << pc << QStringList{u"zlibwapi_missing:error"_s};
        }
        {
            WindowsPc pc;
            pc.cudnnHeader = u"8.9.7"_s;
            pc.extra = {{toolkitDir + u"/v11.2/bin/zlibwapi.dll"_s, "MZ"}};
            QTest::newRow("cuDNN 8.9 with zlibwapi.dll beside it") << pc << QStringList{};
        }
        {
            WindowsPc pc;
            pc.cudnnHeader = u"8.2.4"_s;
            QTest::newRow("cuDNN 8.2 needs no zlibwapi.dll") << pc << QStringList{};
        }
        {
            WindowsPc pc;
            pc.tensorflow = u"2.15.0"_s;
            pc.cudnnHeader = u"8.9.7"_s;
            QTest::newRow("cuDNN 8.9 under TF 2.15, which cannot use the GPU on native Windows")
                << pc << QStringList{u"windows_native_gpu_unsupported:error"_s};
        }
    }

    void windowsMachines()
    {
        QFETCH(WindowsPc, pc);
        QFETCH(QStringList, expected);
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, SystemView::join(u"C:"_s, pc.env.mid(2)));
        QVERIFY(report);
        expected.sort();
        if (alarms(*report) != expected)
            qWarning().noquote() << report->text();
        QCOMPARE(alarms(*report), expected);
        // The machine's summary says whether the Visual C++ runtime TensorFlow's DLLs need is there.
        const QString text = report->text();
        QVERIFY2(text.contains(pc.msvc ? u"\n  Visual C++ runtime: present"_s : u"\n  Visual C++ runtime: missing"_s),
                 qPrintable(text));
        for (const DoctorFinding &f : report->findings) {
            QVERIFY2(!f.evidence.isEmpty(), qPrintable(f.id));
            QVERIFY2(!f.summary.english.isEmpty() && !f.fix.english.isEmpty(), qPrintable(f.id));
            if (f.severity == Severity::Error)
                QVERIFY2(!f.actions.isEmpty(), qPrintable(f.id + " has no action"_L1));
        }
    }

    void environmentIsRead()
    {
        FixtureTree tree;
        auto view = WindowsPc{}.build(tree);
        QVERIFY(view);
        const DoctorTarget target = inspectEnvironment(*view, u"C:\\Users\\student\\tf210"_s);
        QCOMPARE(target.envDir, u"C:/Users/student/tf210"_s);
        QCOMPARE(target.envKind, u"venv"_s);
        QCOMPARE(target.python, u"C:/Users/student/tf210/Scripts/python.exe"_s);
        QCOMPARE(target.pythonVersion, u"3.10.11"_s);
        QCOMPARE(target.tensorflow, u"2.10.1"_s);
        QCOMPARE(target.tensorflowPackage, u"tensorflow"_s);
        // The venv relays to the base interpreter, whose folder Windows searches first.
        const QList<LibrarySearchDir> order = librarySearchOrder(*view, target);
        QCOMPARE(order.size(), 4); // libnvvp, Wbem, Scripts do not exist; the rest are repeats
        QCOMPARE(order[0].origin, u"app"_s);
        QCOMPARE(order[0].dir, u"C:/Users/student/AppData/Local/Programs/Python/Python310"_s);
        QCOMPARE(order[1].origin, u"System32"_s);
        QCOMPARE(order[2].origin, u"Windows"_s);
        QCOMPARE(order[3].origin, u"PATH"_s);
        QVERIFY(order[3].dir.endsWith("/v11.2/bin"_L1));
    }

    void notOnPathSaysWhereTheFilesAre()
    {
        WindowsPc pc;
        pc.toolkitOnPath = false;
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"missing_cuda_runtime"_s);
        QVERIFY(f);
        QVERIFY(f->evidence.first().startsWith(
            "cudart64_110.dll: not on PATH; a copy is at C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cudart64_110.dll"_L1));
        QCOMPARE(f->actions.first().type, u"prepend_path"_s);
        QCOMPARE(f->actions.first().params.value("variable"_L1).toString(), u"PATH"_s);
        QCOMPARE(f->actions.first().params.value("dir"_L1).toString(),
                 u"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin"_s);
    }

    void shadowingListsCopiesInLoadOrder()
    {
        WindowsPc pc;
        pc.extra = {{u"C/Windows/System32/cudart64_110.dll"_s, "MZ"}};
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"path_shadowing"_s);
        QVERIFY(f);
        QCOMPARE(f->id, u"path_shadowing:cudart64_110.dll"_s);
        QCOMPARE(f->evidence.size(), 2);
        QCOMPARE(f->evidence[0], u"1. C:/Windows/System32/cudart64_110.dll (System32) <- loaded"_s);
        QCOMPARE(
            f->evidence[1],
            u"2. C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cudart64_110.dll (PATH, CUDA 11.2)"_s);
        QCOMPARE(f->actions.last().type, u"remove_copy"_s);
        QCOMPARE(f->actions.last().params.value("path"_L1).toString(), u"C:/Windows/System32/cudart64_110.dll"_s);
    }

    void wrongToolkitFirstIsAnError()
    {
        // CUDA 10.1 ships cudnn64_7.dll-era files; here a student copied cuDNN 8 into v10.1 too,
        // and v10.1 comes first: TensorFlow 2.10 loads the wrong toolkit's copy.
        WindowsPc pc;
        pc.extra = {{toolkitDir + u"/v10.1/bin/nvcc.exe"_s, "MZ"}, {toolkitDir + u"/v10.1/bin/cudnn64_8.dll"_s, "MZ"}};
        pc.pathFirst = {toolkitPath + u"\\v10.1\\bin"_s};
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"path_shadowing"_s);
        QVERIFY(f);
        QCOMPARE(f->severity, Severity::Error);
        QVERIFY(f->evidence[0].contains("v10.1"_L1));
        QCOMPARE(f->actions.first().type, u"prepend_path"_s);
        QVERIFY(f->actions.first().params.value("dir"_L1).toString().endsWith("/v11.2/bin"_L1));
    }

    void zlibwapiMissingNamesTheCopyTheFoldersAndTheFix()
    {
        WindowsPc pc;
        pc.cudnnHeader = u"8.9.7"_s;
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"zlibwapi_missing"_s);
        QVERIFY(f);
        QCOMPARE(f->id, u"zlibwapi_missing:cudnn64_8.dll"_s);
        QCOMPARE(f->severity, Severity::Error);
        const QString bin = u"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin"_s;
        QCOMPARE(f->evidence[0], u"loads: %1/cudnn64_8.dll (PATH)"_s.arg(bin));
        QCOMPARE(
            f->evidence[1],
            u"cuDNN 8.9.7 according to C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/include/cudnn_version.h"_s);
        QVERIFY2(f->evidence[2].startsWith(u"zlibwapi.dll: not found in "_s)
                     && f->evidence[2].contains(bin + u" (PATH)"_s)
                     && f->evidence[2].contains(u"C:/Windows/System32 (System32)"_s),
                 qPrintable(f->evidence[2]));
        // TensorFlow 2.10 was tested with cuDNN 8.1, which needs no zlibwapi.dll.
        QVERIFY2(f->fix.english.contains(u"cuDNN 8.1"_s) && f->fix.english.contains(bin + u"/cudnn64_8.dll"_s),
                 qPrintable(f->fix.english));
        QCOMPARE(f->actions.size(), 2);
        QCOMPARE(f->actions[0].type, u"fetch_library"_s);
        QCOMPARE(f->actions[0].params.value("library"_L1).toString(), u"cudnn64_8.dll"_s);
        QCOMPARE(f->actions[1].type, u"install_cudnn"_s);
        QCOMPARE(f->actions[1].params.value("version"_L1).toString(), u"8.1"_s);
    }

    void zlibwapiInSystem32IsFound()
    {
        WindowsPc pc;
        pc.cudnnHeader = u"8.9.7"_s;
        pc.extra = {{u"C/Windows/System32/zlibwapi.dll"_s, "MZ"}};
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        QVERIFY(!find(*report, u"zlibwapi_missing"_s));
    }

    // A tfsetup environment: its launchers put <env>\cuda\bin first on PATH, so the cuDNN there
    // is the one that loads, whatever the toolkit on PATH holds.
    void zlibwapiOnTheLauncherPath_data()
    {
        QTest::addColumn<QString>("envCudnn");
        QTest::addColumn<bool>("zlibInEnv");
        QTest::addColumn<bool>("finding");
        QTest::newRow("cuDNN 8.9 swapped into the environment") << u"8.9.7"_s << false << true;
        QTest::newRow("with a zlibwapi.dll beside it") << u"8.9.7"_s << true << false;
        QTest::newRow("the environment's own cuDNN 8.1") << u"8.1.0"_s << false << false;
    }

    void zlibwapiOnTheLauncherPath()
    {
        QFETCH(QString, envCudnn);
        QFETCH(bool, zlibInEnv);
        QFETCH(bool, finding);
        WindowsPc pc;
        const QString env = u"C/Users/student/tfsetup/tf210"_s;
        const QStringList v = envCudnn.split(u'.');
        pc.extra = {
            {env + u"/environment.json"_s, "{}"},
            {env + u"/cuda/bin/cudnn64_8.dll"_s, "MZ"},
            {env + u"/cuda/include/cudnn_version.h"_s,
             "#define CUDNN_MAJOR " + v[0].toLatin1() + "\n#define CUDNN_MINOR " + v[1].toLatin1()
                 + "\n#define CUDNN_PATCHLEVEL " + v[2].toLatin1() + "\n"},
            {env + u"/venv/pyvenv.cfg"_s, "home = C:\\Users\\student\\AppData\\Local\\Programs\\Python\\Python310\n"}};
        if (zlibInEnv)
            pc.extra.append({env + u"/cuda/bin/zlibwapi.dll"_s, "MZ"});
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tfsetup/tf210"_s);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"zlibwapi_missing"_s);
        QCOMPARE(f != nullptr, finding);
        if (!f)
            return;
        QCOMPARE(f->evidence[0], u"loads: C:/Users/student/tfsetup/tf210/cuda/bin/cudnn64_8.dll (launcher)"_s);
        QVERIFY(f->evidence[2].contains(u"C:/Users/student/tfsetup/tf210/cuda/bin (launcher)"_s));
        // No TensorFlow version is known here: the fix names the tested cuDNN in words, and repair
        // puts the environment's recorded cudnn64_8.dll back.
        QCOMPARE(f->actions.first().type, u"fetch_library"_s);
    }

    void cpuOnlyMachineHasNoAlarms()
    {
        // A laptop with integrated graphics only: TensorFlow's GPU messages are expected there.
        FixtureTree tree;
        QVERIFY(tree.write({{u"usr/bin/python3"_s, "ELF"}, {u"home/student/"_s, {}}}));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin:/bin"_s}}));
        CpuIdFeatures cpu;
        cpu.vendor = u"GenuineIntel"_s;
        cpu.brand = u"11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz"_s;
        cpu.sse42 = cpu.avx = cpu.avx2 = cpu.fma = true;
        QVERIFY(tree.writeSystem(SystemDescription().arch(u"x86_64"_s).cpuid(cpu)));
        auto view = tree.open(OsFamily::Linux);
        QVERIFY(view);
        QFile log(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/cuinit_no_device.txt"_L1);
        QVERIFY(log.open(QIODevice::ReadOnly));
        DoctorOptions options;
        options.cpuOnly = true;
        options.log = QString::fromUtf8(log.readAll());
        const auto report = m_doctor.run(*view, {}, options);
        QVERIFY(report);
        QVERIFY2(alarms(*report).isEmpty(), qPrintable(report->text()));
        QVERIFY(find(*report, u"harmless"_s));
        const DoctorFinding *gpu = find(*report, u"no_gpu_or_driver"_s);
        QVERIFY(gpu);
        QCOMPARE(gpu->severity, Severity::Info);
    }

    // The verdict on a log is the log's alone: read on a Linux laptop without a GPU, a student's
    // Windows log names its own cause, and this laptop's "no NVIDIA GPU" stays out of it (out of
    // the verdict's causes, its text and its section of the report); a harmless log is "nothing
    // wrong" even where this machine's scan has warnings of its own.
    void logVerdictKeepsThisMachineOut()
    {
        FixtureTree tree;
        QVERIFY(tree.write({{u"usr/bin/python3"_s, "ELF"}, {u"home/student/"_s, {}}}));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin:/bin"_s}}));
        CpuIdFeatures cpu;
        cpu.vendor = u"GenuineIntel"_s;
        cpu.brand = u"11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz"_s;
        cpu.sse42 = cpu.avx = cpu.avx2 = cpu.fma = true;
        QVERIFY(tree.writeSystem(SystemDescription().arch(u"x86_64"_s).cpuid(cpu)));
        auto view = tree.open(OsFamily::Linux);
        QVERIFY(view);
        const auto readLog = [](const QString &name) {
            QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/"_L1 + name);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };

        DoctorOptions options;
        options.log = readLog(u"windows_tf29_cudart_missing.txt"_s);
        QVERIFY(!options.log->isEmpty());
        auto report = m_doctor.run(*view, {}, options);
        QVERIFY(report);
        QVERIFY(report->log);
        QVERIFY(report->log->otherMachine);
        const DoctorLogVerdict &verdict = report->log->verdict;
        QCOMPARE(verdict.status, u"cause"_s);
        QCOMPARE(verdict.causes.first(), u"missing_cuda_runtime"_s);
        QVERIFY2(!verdict.causes.contains(u"no_gpu_or_driver"_s), qPrintable(verdict.causes.join(u", "_s)));
        for (const QString &id : verdict.findingIds)
            QVERIFY2(id.startsWith("log."_L1), qPrintable(id));
        QVERIFY(!verdict.summary.english.contains("No NVIDIA GPU"_L1));
        const QJsonObject json = report->toJson().value("log_verdict"_L1).toObject();
        QCOMPARE(json.value("status"_L1).toString(), u"cause"_s);
        QCOMPARE(json.value("causes"_L1).toArray().first().toString(), u"missing_cuda_runtime"_s);
        QVERIFY(!json.value("en"_L1).toObject().value("summary"_L1).toString().isEmpty());
        const QString text = report->text();
        const qsizetype logAt = text.indexOf("This log"_L1);
        const qsizetype machineAt = text.indexOf("This machine"_L1);
        QVERIFY2(logAt >= 0 && machineAt > logAt, qPrintable(text));
        QVERIFY2(!text.left(machineAt).contains("No NVIDIA GPU"_L1), qPrintable(text));

        // Now with this machine's scan in the report too (--env asks for it): still apart.
        options.log = readLog(u"numa_onednn_tf29.txt"_s);
        report = m_doctor.run(*view, {}, options);
        QVERIFY(report);
        QVERIFY(report->log);
        QCOMPARE(report->log->verdict.status, u"nothing_wrong"_s);
        QVERIFY(report->log->verdict.causes.isEmpty());
        const QString harmless = report->text();
        const qsizetype machineSection = harmless.indexOf("This machine"_L1);
        QVERIFY(machineSection > 0);
        QVERIFY2(!harmless.left(machineSection).contains("[WARNING]"_L1), qPrintable(harmless));
        QVERIFY2(!harmless.left(machineSection).contains("[ERROR]"_L1), qPrintable(harmless));

        // A log of nothing the doctor knows: it says so rather than "no problems".
        options.log = u"Epoch 1/10\n313/313 [==============================] - 3s 8ms/step - loss: 0.29\n"_s;
        report = m_doctor.run(*view, {}, options);
        QVERIFY(report);
        QCOMPARE(report->log->verdict.status, u"unknown"_s);
    }

    void linuxWithoutAvx()
    {
        FixtureTree tree;
        QVERIFY(tree.write({{u"usr/bin/python3"_s,
                             "\x7f"
                             "ELF"},
                            {u"home/student/"_s, {}}}));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin:/bin"_s}}));
        CpuIdFeatures cpu;
        cpu.vendor = u"GenuineIntel"_s;
        cpu.brand = u"Intel(R) Pentium(R) CPU G640 @ 2.80GHz"_s;
        cpu.sse42 = true;
        QVERIFY(tree.writeSystem(SystemDescription().arch(u"x86_64"_s).cpuid(cpu)));
        auto view = tree.open(OsFamily::Linux);
        DoctorOptions options;
        options.tensorflow = u"2.12"_s;
        const auto report = m_doctor.run(*view, {}, options);
        QVERIFY(report);
        const DoctorFinding *f = find(*report, u"cpu_lacks_avx"_s);
        QVERIFY(f);
        QCOMPARE(f->severity, Severity::Error);
        QVERIFY(f->evidence.first().contains("Pentium"_L1));
    }

    void linuxLdLibraryPathOrder()
    {
        // CUDA 11.8 and an old 10.2 with cuDNN 8.0 copied in; LD_LIBRARY_PATH names 10.2 first.
        FixtureTree tree;
        TreeEntries files{{u"usr/bin/nvidia-smi"_s, "ELF"},
                          {u"usr/local/cuda-11.8/bin/nvcc"_s, "ELF"},
                          {u"usr/local/cuda-10.2/bin/nvcc"_s, "ELF"},
                          {u"usr/local/cuda-10.2/lib64/libcudnn.so.8"_s, "ELF"},
                          {u"usr/local/cuda-10.2/include/cudnn_version.h"_s,
                           "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 0\n#define CUDNN_PATCHLEVEL 5\n"},
                          {u"home/student/tf/pyvenv.cfg"_s, "home = /usr/bin\nversion = 3.10.12\n"},
                          {u"home/student/tf/bin/python3"_s, "ELF"},
                          {u"home/student/tf/lib/python3.10/site-packages/tensorflow-2.12.0.dist-info/METADATA"_s,
                           "Name: tensorflow\n"}};
        for (const char *f : {"libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11", "libcufft.so.10",
                              "libcurand.so.10", "libcusolver.so.11", "libcusparse.so.11", "libcudnn.so.8",
                              "libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8", "libcudnn_cnn_infer.so.8",
                              "libcudnn_cnn_train.so.8", "libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8"})
            files.append({u"usr/local/cuda-11.8/lib64/"_s + QLatin1String(f), "ELF"});
        files.append({u"usr/local/cuda-11.8/include/cudnn_version.h"_s,
                      "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 0\n"});
        QVERIFY(tree.write(files));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s},
                               {u"PATH"_s, u"/usr/local/cuda-11.8/bin:/usr/bin:/bin"_s},
                               {u"LD_LIBRARY_PATH"_s, u"/usr/local/cuda-10.2/lib64:/usr/local/cuda-11.8/lib64"_s}}));
        QVERIFY(tree.writeSystem(
            SystemDescription()
                .arch(u"x86_64"_s)
                .command(u"nvidia-smi"_s,
                         {u"--query-gpu=name,compute_cap,memory.total,pci.bus_id,pci.device_id,uuid,driver_version"_s,
                          u"--format=csv,noheader,nounits"_s},
                         "NVIDIA GeForce RTX 3060, 8.6, 12288, 00000000:01:00.0, 0x250410DE, GPU-1, 535.104.05\n")));
        auto view = tree.open(OsFamily::Linux);
        const auto report = m_doctor.run(*view, u"/home/student/tf"_s);
        QVERIFY(report);
        QCOMPARE(report->target.tensorflow, u"2.12.0"_s);
        QCOMPARE(report->target.pythonVersion, u"3.10.12"_s);
        const DoctorFinding *shadow = find(*report, u"path_shadowing"_s);
        QVERIFY2(shadow, qPrintable(report->text()));
        QCOMPARE(shadow->id, u"path_shadowing:libcudnn.so.8"_s);
        QCOMPARE(shadow->severity, Severity::Error);
        QVERIFY(shadow->evidence[0].startsWith(
            "1. /usr/local/cuda-10.2/lib64/libcudnn.so.8 (LD_LIBRARY_PATH, CUDA 10.2)"_L1));
        QCOMPARE(shadow->actions.first().params.value("variable"_L1).toString(), u"LD_LIBRARY_PATH"_s);
        // The copy that loads is 10.2's cuDNN 8.0.5, older than the 8.6 TensorFlow 2.12 was built with.
        const DoctorFinding *version = find(*report, u"cudnn_version_mismatch"_s);
        QVERIFY2(version, qPrintable(report->text()));
        QVERIFY(version->summary.english.contains("8.0.5"_L1));
    }

    void reportIsRedactedAndBilingual()
    {
        MarkingTranslator translator;
        QVERIFY(QCoreApplication::installTranslator(&translator));
        WindowsPc pc;
        pc.toolkitOnPath = false;
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        DoctorOptions options;
        QFile log(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/cpu_only_windows_tf1_cuinit.txt"_L1);
        QVERIFY(log.open(QIODevice::ReadOnly));
        options.log = QString::fromUtf8(log.readAll())
            + "\nC:\\Users\\student\\tf210\\Scripts\\python.exe train.py\n"_L1;
        const auto report = m_doctor.run(*view, u"C:\\Users\\student\\tf210"_s, options);
        QCoreApplication::removeTranslator(&translator);
        QVERIFY(report);

        const QString text = report->reportText(Redactor(*view));
        QVERIFY2(!text.contains("student"_L1, Qt::CaseInsensitive), qPrintable(text));
        QVERIFY(!text.contains("DESKTOP-7Q2K9LM"_L1));
        QVERIFY(!text.contains("Vincent"_L1)); // the host name TensorFlow printed
        QVERIFY(text.contains("<home>/tf210"_L1));
        // The user's language first, then English.
        const qsizetype english = text.indexOf("----- English -----"_L1);
        QVERIFY(english > 0);
        QVERIFY(text.left(english).contains("ZH[TensorFlow 2.10.1 cannot load"_L1));
        QVERIFY(text.mid(english).contains("\nTensorFlow 2.10.1 cannot load"_L1)
                || text.mid(english).contains("] TensorFlow 2.10.1 cannot load"_L1));
        QVERIFY(!text.mid(english).contains("ZH["_L1));

        QTemporaryDir dir;
        const QString path = dir.filePath(u"report.txt"_s);
        QVERIFY(writeDoctorReport(path, text).ok());
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(written.readAll()), text);
        QVERIFY(!writeDoctorReport(dir.filePath(u"missing/dir/report.txt"_s), text).ok());
    }

    void englishOnlyWithoutTranslation()
    {
        FixtureTree tree;
        auto view = WindowsPc{}.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const QString text = report->reportText(Redactor(*view));
        QVERIFY(!text.contains("----- English -----"_L1));
        QVERIFY(text.contains("This machine"_L1));
    }

    // Each %N is filled once, with its argument copied as it is: an argument holding "%2" (a
    // Windows path with an environment variable) or control characters is not filled again.
    void textArgumentsAreFilledOnce_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("marker in an argument")
            << u"%1 then %2"_s << QStringList{u"C:/%2/x"_s, u"two"_s} << u"C:/%2/x then two"_s;
        QTest::newRow("control characters in an argument") << u"[%1] [%2]"_s
                                                           << QStringList{u"\x01"
                                                                          "2\x02"_s,
                                                                          u"b"_s}
                                                           << u"[\x01"
                                                              "2\x02] [b]"_s;
        QTest::newRow("%10 with fewer than ten arguments is %1 and a 0")
            << u"%10 %2"_s << QStringList{u"a"_s, u"b"_s} << u"a0 b"_s;
        QTest::newRow("%10 with ten arguments")
            << u"%10|%1"_s
            << QStringList{u"1"_s, u"2"_s, u"3"_s, u"4"_s, u"5"_s, u"6"_s, u"7"_s, u"8"_s, u"9"_s, u"ten"_s}
            << u"ten|1"_s;
        QTest::newRow("marker without an argument stays")
            << u"100% and %3"_s << QStringList{u"a"_s} << u"100% and %3"_s;
    }

    void textArgumentsAreFilledOnce()
    {
        QFETCH(QString, source);
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const QByteArray utf8 = source.toUtf8();
        const DoctorText text = doctorText(utf8.constData(), arguments);
        QCOMPARE(text.english, expected);
        QCOMPARE(text.translated, expected);
    }

    void redactorKeepsShortNamesAndWords()
    {
        const Redactor r({u"/home/al"_s}, {u"al"_s, u"bob"_s});
        QCOMPARE(r.apply(u"/home/al/tf and bobcat by bob"_s), u"<home>/tf and bobcat by <user>"_s);
        // TensorFlow's CUDA diagnostics print the host name.
        QCOMPARE(r.apply(u"cuda_diagnostics.cc:165] hostname: p04295"_s),
                 u"cuda_diagnostics.cc:165] hostname: <host>"_s);
    }

    void jsonDocument()
    {
        WindowsPc pc;
        pc.driver = u"451.48"_s;
        FixtureTree tree;
        auto view = pc.build(tree);
        QVERIFY(view);
        const auto report = m_doctor.run(*view, u"C:/Users/student/tf210"_s);
        QVERIFY(report);
        const QJsonObject json = report->toJson();
        QCOMPARE(json.value("schema"_L1).toInt(), 1);
        QCOMPARE(json.value("target"_L1).toObject().value("tensorflow"_L1).toString(), u"2.10.1"_s);
        QCOMPARE(json.value("counts"_L1).toObject().value("error"_L1).toInt(), 1);
        const QJsonObject f = json.value("findings"_L1).toArray().first().toObject();
        QCOMPARE(f.value("cause"_L1).toString(), u"driver_too_old"_s);
        QCOMPARE(f.value("severity"_L1).toString(), u"error"_s);
        QCOMPARE(f.value("id"_L1).toString(), u"driver_too_old:451.48"_s);
        QVERIFY(!f.value("summary"_L1).toString().isEmpty());
        QVERIFY(!f.value("en"_L1).toObject().value("fix"_L1).toString().isEmpty());
        QCOMPARE(f.value("evidence"_L1).toArray().first().toString(), u"driver 451.48 (nvidia-smi)"_s);
        const QJsonObject a = f.value("actions"_L1).toArray().first().toObject();
        QCOMPARE(a.value("type"_L1).toString(), u"install_driver"_s);
        QCOMPARE(a.value("min_version"_L1).toString(), u"452.39"_s);
    }

    void commandLine()
    {
        const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
        if (!QFileInfo::exists(binary))
            QSKIP("tfsetup is not built");
        WindowsPc pc;
        pc.cudnnFiles = {u"cudnn64_8.dll"_s};
        FixtureTree tree;
        QVERIFY(pc.build(tree));
        QTemporaryDir out;
        const QString reportPath = out.filePath(u"doctor.txt"_s);
        QProcess p;
        p.start(binary,
                {u"doctor"_s, u"--root"_s, tree.path(), u"--os"_s, u"windows"_s, u"--env-file"_s,
                 tree.filePath(u"env"_s), u"--env"_s, u"C:\\Users\\student\\tf210"_s, u"--json"_s, u"--report"_s,
                 reportPath, u"--log"_s,
                 qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/numa_onednn_tf29.txt"_L1});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1); // an error finding
        const QJsonObject json = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        const QJsonArray findings = json.value("findings"_L1).toArray();
        QVERIFY(!findings.isEmpty());
        QCOMPARE(findings.first().toObject().value("id"_L1).toString(), u"missing_cudnn:incomplete"_s);
        bool numa = false;
        for (const QJsonValue &v : findings)
            numa = numa || v.toObject().value("id"_L1).toString() == u"log.harmless:numa";
        QVERIFY(numa);
        QFile report(reportPath);
        QVERIFY(report.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(report.readAll());
        QVERIFY(text.contains("cudnn_ops_infer64_8.dll"_L1));
        QVERIFY(!text.contains("student"_L1));

        QProcess missing;
        missing.start(binary,
                      {u"doctor"_s, u"--root"_s, tree.path(), u"--os"_s, u"windows"_s, u"--env-file"_s,
                       tree.filePath(u"env"_s), u"--env"_s, u"C:\\nowhere"_s});
        QVERIFY(missing.waitForFinished(60000));
        QCOMPARE(missing.exitCode(), 2);
    }

    // Logs as Windows tools save them, and logs that try to act on the terminal: the same cause
    // is read from every encoding, escapes reach neither the terminal nor the report, and the
    // report is never written through a link.
    void hostileLogsAndReportPaths()
    {
        const QString binary = qEnvironmentVariable("TFSETUP_BINARY");
        if (!QFileInfo::exists(binary))
            QSKIP("tfsetup is not built");
        WindowsPc pc;
        FixtureTree tree;
        QVERIFY(pc.build(tree));
        QTemporaryDir out;
        QFile source(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/windows_tf29_cudart_missing.txt"_L1);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QString log = QString::fromUtf8(source.readAll());
        const auto run = [&](const QStringList &extra, QByteArray *stdoutBytes = nullptr) {
            QProcess p;
            p.start(binary,
                    QStringList{u"doctor"_s, u"--root"_s, tree.path(), u"--os"_s, u"windows"_s, u"--env-file"_s,
                                tree.filePath(u"env"_s)}
                        + extra);
            p.waitForFinished(60000);
            if (stdoutBytes)
                *stdoutBytes = p.readAllStandardOutput() + p.readAllStandardError();
            return p.exitCode();
        };
        const auto logIds = [&](const QString &path) {
            QByteArray bytes;
            run({u"--json"_s, u"--log"_s, path}, &bytes);
            QStringList ids;
            const QJsonArray findings =
                QJsonDocument::fromJson(bytes.left(bytes.indexOf("\n}\n") + 3)).object().value("findings"_L1).toArray();
            for (const QJsonValue &v : findings) {
                if (v.toObject().value("id"_L1).toString().startsWith("log."_L1))
                    ids.append(v.toObject().value("id"_L1).toString());
            }
            return ids;
        };
        const auto write = [&](const QString &name, const QByteArray &bytes) {
            QFile f(out.filePath(name));
            return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() ? f.fileName() : QString();
        };
        const QStringList expected = logIds(source.fileName());
        QVERIFY(!expected.isEmpty());
        QStringEncoder le(QStringEncoder::Utf16LE);
        QStringEncoder be(QStringEncoder::Utf16BE);
        const QString crlf = QString(log).replace(u"\n"_s, u"\r\n"_s);
        QCOMPARE(logIds(write(u"bom-le.txt"_s, "\xFF\xFE" + QByteArray(le(crlf)))), expected);
        QCOMPARE(logIds(write(u"no-bom-le.txt"_s, QByteArray(le(crlf)))), expected);
        QCOMPARE(logIds(write(u"bom-be.txt"_s, "\xFE\xFF" + QByteArray(be(crlf)))), expected);
        // What cannot be read is refused, never "0 errors".
        QByteArray noise;
        for (int i = 0; i < 4096; ++i)
            noise.append(char(0x80 + (i * 37) % 0x7f));
        QByteArray refused;
        QCOMPARE(run({u"--log"_s, write(u"noise.bin"_s, noise)}, &refused), 1);
        QVERIFY(refused.contains("UTF-8"));

        // A log line that would clear the screen and print a verdict of its own.
        const QString hostile = QString(log).replace(
            u"cudart64_110.dll not found"_s, u"cudart64_110.dll not found\x1b[2J\x1b[H\r[OK] no problems found"_s);
        const QString hostilePath = write(u"hostile.txt"_s, hostile.toUtf8());
        const QString report = out.filePath(u"report.txt"_s);
        QByteArray shown;
        run({u"--log"_s, hostilePath, u"--report"_s, report}, &shown);
        QVERIFY(!shown.contains('\x1b'));
        QVERIFY(!shown.contains('\r'));
        QVERIFY(shown.contains("\\u001b[2J"));
        QFile written(report);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray reportBytes = written.readAll();
        QVERIFY(!reportBytes.contains('\x1b'));
        QVERIFY(!reportBytes.contains('\r'));
        QVERIFY(reportBytes.contains("\\u001b[2J"));

        // A link at the report path: refused, and what it points to stays as it was.
        const QString victim = out.filePath(u"victim.txt"_s);
        QVERIFY(!write(u"victim.txt"_s, "mine\n").isEmpty());
        const QString linked = out.filePath(u"linked-report.txt"_s);
        QVERIFY(QFile::link(victim, linked));
        QByteArray linkAnswer;
        QVERIFY(run({u"--log"_s, source.fileName(), u"--report"_s, linked}, &linkAnswer) != 0);
        QVERIFY(QFileInfo(linked).isSymLink());
        QFile v(victim);
        QVERIFY(v.open(QIODevice::ReadOnly));
        QCOMPARE(v.readAll(), QByteArray("mine\n"));
        QVERIFY(linkAnswer.contains("link"));
    }
};

QTEST_GUILESS_MAIN(TestDoctor)
#include "test_doctor.moc"
