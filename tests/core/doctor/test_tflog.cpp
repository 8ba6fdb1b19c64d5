#include "doctor/tflogreader.h"
#include "util/text.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

// The TensorFlow log reader against real logs collected from public issue trackers
// (tests/data/doctor/SOURCES.md): failing logs name their cause, harmless ones never raise an
// error or a warning, and GPU messages on a machine meant for the CPU are only explained.

using namespace tfsetup::core;
using namespace Qt::Literals::StringLiterals;

namespace {

QString readLog(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/"_L1 + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// "cause:severity" for every error and warning, in the reader's order.
QStringList alarms(const QList<DoctorFinding> &findings)
{
    QStringList out;
    for (const DoctorFinding &f : findings) {
        if (f.severity != Severity::Info)
            out.append(f.cause + u':' + severityName(f.severity));
    }
    return out;
}

} // namespace

class TestTfLog : public QObject {
    Q_OBJECT

private:
    CauseRegistry m_causes;
    TfLogReader m_reader;

private slots:
    void initTestCase()
    {
        auto causes = CauseRegistry::load(qEnvironmentVariable("TFSETUP_SOURCE_DIR")
                                          + "/resources/catalog/causes.json"_L1);
        QVERIFY2(causes.ok(), qPrintable(causes.ok() ? QString() : causes.error().detail));
        m_causes = *causes;
        auto rules = TfLogRules::load(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + "/resources/catalog/tflog.json"_L1,
                                      m_causes);
        QVERIFY2(rules.ok(), qPrintable(rules.ok() ? QString() : rules.error().detail));
        m_reader = TfLogReader(*rules, m_causes);
    }

    void everyRuleMatchesItsOwnExample_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("example");
        QFile f(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + "/resources/catalog/tflog.json"_L1);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rules = QJsonDocument::fromJson(f.readAll()).object().value("rules"_L1).toArray();
        QVERIFY(rules.size() > 10);
        for (const QJsonValue &v : rules) {
            const QJsonObject o = v.toObject();
            const QString id = o.value("id"_L1).toString();
            QTest::newRow(qPrintable(id)) << id << o.value("example"_L1).toString();
        }
    }

    // The first rule to match a rule's own example must be that rule: an earlier, broader
    // pattern would otherwise steal its lines (the TensorRT rules sit before the generic dlopen rule).
    void everyRuleMatchesItsOwnExample()
    {
        QFETCH(QString, rule);
        QFETCH(QString, example);
        QVERIFY2(!example.isEmpty(), "every rule carries a real example line");
        const TfLogRule *matched = m_reader.match(example);
        QVERIFY(matched);
        QCOMPARE(matched->id, rule);
        QVERIFY(matched->source.startsWith("https://"_L1));
    }

    void logs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("cpuOnly");
        QTest::addColumn<QStringList>("expectedAlarms");
        QTest::addColumn<QString>("expectedHarmless"); // an explanation that must be there, or empty

        QTest::newRow("windows cudart64_110.dll missing on a GPU machine")
            << u"windows_tf29_cudart_missing.txt"_s << false << QStringList{u"missing_cuda_runtime:error"_s}
            << u"harmless:cudart_stub"_s;
        QTest::newRow("windows cudart64_110.dll missing on a CPU-only machine is harmless")
            << u"windows_tf29_cudart_missing.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("linux libcusolver and libcudnn missing, summary line folded in")
            << u"linux_tf29_cusolver_cudnn_missing.txt"_s << false
            << QStringList{u"missing_cuda_runtime:error"_s, u"missing_cudnn:error"_s} << QString();
        QTest::newRow("libcusolver.so.11 fails on its libnvJitLink.so.12 dependency")
            << u"linux_cusolver_needs_nvjitlink.txt"_s << false << QStringList{u"missing_cuda_runtime:error"_s}
            << QString();
        QTest::newRow("TensorRT libraries missing are harmless")
            << u"colab_tensorrt_missing.txt"_s << false << QStringList{} << u"harmless:tensorrt"_s;
        QTest::newRow("XLA factory registration, CPU notice, TF-TRT and NUMA are harmless")
            << u"xla_factory_registration.txt"_s << false << QStringList{} << u"harmless:factory"_s;
        QTest::newRow("absl-format factory registration lines are harmless")
            << u"absl_factory_registration.txt"_s << false << QStringList{} << u"harmless:factory"_s;
        QTest::newRow("NUMA and AVX2 FMA notices are harmless")
            << u"numa_onednn_tf29.txt"_s << false << QStringList{} << u"harmless:numa"_s;
        QTest::newRow("oneDNN notice is harmless")
            << u"onednn_notice.txt"_s << false << QStringList{} << u"harmless:onednn"_s;
        QTest::newRow("cuInit no device on a GPU machine")
            << u"cuinit_no_device.txt"_s << false << QStringList{u"no_gpu_or_driver:error"_s}
            << u"harmless:cpu_features"_s;
        // The same container log with nothing known of its machine: it shows no GPU and no
        // driver anywhere, the mark of a CPU-only node, so "no CUDA device" is only explained.
        QTest::newRow("cuInit no device, machine unknown and no GPU in the log, is harmless")
            << u"cuinit_no_device.txt"_s << false << QStringList{} << u"harmless:no_gpu"_s;
        QTest::newRow("cuInit no device on a CPU-only machine is harmless")
            << u"cuinit_no_device.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("TF 1.x Windows cuInit on a CPU-only machine is harmless")
            << u"cpu_only_windows_tf1_cuinit.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("cuDNN 8.0.5 loaded, 8.1.0 needed")
            << u"cudnn_805_vs_810.txt"_s << false << QStringList{u"cudnn_version_mismatch:error"_s} << QString();
        QTest::newRow("cuDNN 9.1.0 loaded, 9.3.0 needed")
            << u"cudnn_910_vs_930.txt"_s << false << QStringList{u"cudnn_version_mismatch:error"_s} << QString();
        QTest::newRow("driver older than the CUDA runtime")
            << u"driver_insufficient_windows.txt"_s << false << QStringList{u"driver_too_old:error"_s} << QString();
        QTest::newRow("compute capability 5.3 compiled from PTX")
            << u"ptx_jit_cc53.txt"_s << false << QStringList{u"compute_capability_jit:warning"_s} << u"harmless:numa"_s;
        QTest::newRow("compute capability 5.2 below the minimum")
            << u"gpu_ignored_cc52.txt"_s << false << QStringList{u"compute_capability_unsupported:error"_s}
            << QString();
        QTest::newRow("CPU without AVX2")
            << u"avx_missing.txt"_s << false << QStringList{u"cpu_lacks_avx:error"_s} << QString();
        QTest::newRow("out of GPU memory, one finding for the whole traceback")
            << u"oom_traceback.txt"_s << false << QStringList{u"out_of_memory:error"_s} << QString();
        QTest::newRow("cuDNN 8.4 on Windows without zlibwapi.dll")
            << u"zlibwapi_missing.txt"_s << false << QStringList{u"zlibwapi_missing:error"_s} << QString();
        QTest::newRow("MSVC runtime DLLs missing")
            << u"msvc_runtime_missing.txt"_s << false << QStringList{u"msvc_runtime_missing:error"_s} << QString();
        QTest::newRow("pip finds no TensorFlow for this Python")
            << u"pip_python312.txt"_s << false << QStringList{u"python_version_unsupported:error"_s} << QString();
    }

    void logs()
    {
        QFETCH(QString, file);
        QFETCH(bool, cpuOnly);
        QFETCH(QStringList, expectedAlarms);
        QFETCH(QString, expectedHarmless);
        const QString text = readLog(file);
        QVERIFY2(!text.isEmpty(), qPrintable(file));
        TfLogContext context{cpuOnly};
        // Rows named "on a GPU machine" read the log as that machine's, whose detection found a GPU.
        if (QByteArray(QTest::currentDataTag()).contains("on a GPU machine"))
            context.gpuPresent = true;
        const QList<DoctorFinding> findings = m_reader.read(text, context);
        QCOMPARE(alarms(findings), expectedAlarms);
        if (!expectedHarmless.isEmpty()) {
            const auto it = std::find_if(findings.cbegin(), findings.cend(),
                                         [&](const DoctorFinding &f) { return f.id == expectedHarmless; });
            QVERIFY2(it != findings.cend(), qPrintable(expectedHarmless));
            QCOMPARE(it->severity, Severity::Info);
            QCOMPARE(it->cause, u"harmless"_s);
            QVERIFY(!it->summary.english.isEmpty());
            QVERIFY(it->actions.isEmpty());
        }
        for (const DoctorFinding &f : findings) {
            QVERIFY2(!f.evidence.isEmpty(), qPrintable(f.id));
            QVERIFY2(f.evidence.first().startsWith("line "_L1), qPrintable(f.evidence.first()));
            QVERIFY(!f.summary.english.isEmpty());
            QVERIFY(!f.fix.english.isEmpty());
            if (f.severity == Severity::Error)
                QVERIFY2(!f.actions.isEmpty(), qPrintable(f.id + " has no machine-readable action"_L1));
        }
    }

    // One row per kind of log the doctor used to get wrong, with wordings the corpus does not
    // hold (real logs vary), and the near misses that must stay quiet. Context: the platform and
    // TensorFlow the log is read for, the VC++ runtime and AVX (-1 unknown, 0 no, 1 yes), whether
    // that machine has an NVIDIA GPU, and the CUDA installed there.
    void kinds_data()
    {
        QTest::addColumn<QString>("log");
        QTest::addColumn<QString>("platform");
        QTest::addColumn<QString>("tensorflow");
        QTest::addColumn<int>("msvc");
        QTest::addColumn<int>("avx");
        QTest::addColumn<int>("gpu");
        QTest::addColumn<QStringList>("cuda");
        QTest::addColumn<QStringList>("expected");
        const QStringList none;
        const auto row = [&](const char *name, const QString &log, const QString &platform, const QString &tf, int msvc,
                             int avx, int gpu, const QStringList &cuda, const QStringList &expected) {
            QTest::newRow(name) << log << platform << tf << msvc << avx << gpu << cuda << expected;
        };

        // Native Windows after 2.10: an empty GPU list and no word about CUDA.
        row("windows 2.12: Is GPU Available: []", u"TensorFlow Version: 2.12.1\nIs GPU Available: []\n"_s, u"windows"_s,
            {}, -1, -1, -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("windows 2.15 from pip list, only the CPU listed",
            u"tensorflow-intel             2.15.0\nNum GPUs Available:  0\n[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n"_s,
            {}, {}, -1, -1, -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("windows paths, the environment's 2.13, list on the next line",
            u"(tf) C:\\Users\\amir\\project>python check.py\nprint(tf.config.list_physical_devices('GPU'))\n[]\n"_s, {},
            u"2.13.0"_s, -1, -1, -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("windows 2.11: deprecated is_gpu_available answers False",
            u"WARNING:tensorflow:From C:\\Users\\li\\AppData\\Local\\Temp\\ipykernel_1\\1.py:2: is_gpu_available (from tensorflow.python.framework.test_util) is deprecated and will be removed in a future version.\nFalse\n"_s,
            {}, u"2.11.0"_s, -1, -1, -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("a Mac lists no GPU: not Windows",
            u"/Users/amy/miniforge3/lib/python3.11/site-packages/tensorflow/__init__.py\nNum GPUs Available:  0\n"_s,
            {}, u"2.15.0"_s, -1, -1, -1, none, none);
        row("GPU available: False, TensorFlow 2.14 on Windows",
            u"TensorFlow version: 2.14.0\nGPU available: False\nC:\\Users\\wang\\Desktop\\train.py\n"_s, {}, {}, -1, -1,
            -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("device name empty, nothing else known", u">>> tf.test.gpu_device_name()\n''\n"_s, {}, {}, -1, -1, -1, none,
            {u"windows_native_gpu_unsupported:warning"_s});
        row("a GPU named /device:GPU:0 is not an empty list", u"Num GPUs Available:  1\n/device:GPU:0\n"_s,
            u"windows"_s, u"2.12.0"_s, -1, -1, -1, none, none);
        row("print(tf.__version__) answered on the next line, Windows prompt",
            u"C:\\Users\\ana> python -c \"import tensorflow as tf; print(tf.__version__); print(tf.config.list_physical_devices('GPU'))\"\n2.15.0\n[]\n"_s,
            {}, {}, -1, -1, -1, none, {u"windows_native_gpu_unsupported:error"_s});
        row("is_built_with_cuda False, nothing else known", u">>> tf.test.is_built_with_cuda()\nFalse\n"_s, {}, {}, -1,
            -1, -1, none, {u"windows_native_gpu_unsupported:warning"_s});
        row("windows 2.1 lists only the CPU: not the native limit",
            u"[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n"_s, u"windows"_s, u"2.1.0"_s, -1, -1,
            -1, none, none);
        row("WSL2 lists no GPU: Linux, not the native limit",
            u"$ python3 -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"\n"
            "2023-03-31 11:30:32.107966: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT\n"
            "[]\n$ echo /home/xxx/anaconda3/lib/python3.10/site-packages/nvidia/cudnn\n"_s,
            {}, u"2.12.0"_s, -1, -1, -1, none, none);
        row("windows 2.12 log about something else: no GPU verdict",
            u"  File \"C:\\Users\\li\\venv\\lib\\site-packages\\keras\\src\\saving\\saving_api.py\", line 1, in load_model\n"
            "ValueError: File format not supported: filepath=model. Keras 3 only supports V3 `.keras` files and legacy H5 format files (`.h5` extension).\n"_s,
            u"windows"_s, u"2.16.1"_s, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});

        // The driver, in the words TensorFlow, cuDNN and the CUDA driver use.
        row("cuDNN not initialised, then possibly insufficient driver",
            u"2018-09-27 10:02:39.079409: E tensorflow/stream_executor/cuda/cuda_dnn.cc:352] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"
            "2018-09-27 10:02:39.079563: E tensorflow/stream_executor/cuda/cuda_dnn.cc:360] Possibly insufficient driver version: 396.26.0\n"_s,
            {}, {}, -1, -1, 1, none, {u"driver_too_old:error"_s});
        row("PTX from a newer toolchain than the driver",
            u"INTERNAL: Failed to load PTX text as a module: CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.\n"_s,
            {}, {}, -1, -1, 1, none, {u"driver_too_old:error"_s});
        row("forward compatibility on a GeForce",
            u"E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW\n"_s,
            {}, {}, -1, -1, 1, none, {u"driver_too_old:error"_s});

        // Keras 2 and 3, tf.keras and a standalone Keras.
        row("keras.src.engine under Keras 3", u"ModuleNotFoundError: No module named 'keras.src.engine'\n"_s, {}, {},
            -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("old code on a new Keras",
            u"ImportError: cannot import name 'Adam' from 'keras.optimizers' (/usr/local/lib/python3.10/dist-packages/keras/optimizers/__init__.py)\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("standalone Keras newer than TensorFlow",
            u"ImportError: cannot import name 'get_config' from 'tensorflow.python.eager.context' (/usr/local/lib/python3.7/dist-packages/tensorflow/python/eager/context.py)\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("Keras 2.6+ on TensorFlow 2.5",
            u"AttributeError: module 'tensorflow.compat.v2.__internal__' has no attribute 'register_load_context_function'\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("Keras 3 reading a Keras 2 H5 model",
            u"ValueError: Unrecognized keyword arguments passed to InputLayer: {'batch_input_shape': [None, 28, 28]}\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("legacy optimizers under Keras 3",
            u"ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` package (Keras 2) and set the environment variable `TF_USE_LEGACY_KERAS=True` to configure TensorFlow to use `tf_keras` when accessing `tf.keras`.\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("old layer module path", u"ModuleNotFoundError: No module named 'keras.layers.advanced_activations'\n"_s,
            {}, {}, -1, -1, -1, none, {u"keras_version_mismatch:error"_s});
        row("lr argument removed", u"ValueError: Argument(s) not recognized: {'lr': 0.001}\n"_s, {}, {}, -1, -1, -1,
            none, {u"keras_version_mismatch:error"_s});
        row("Keras not installed at all is not a version conflict", u"ModuleNotFoundError: No module named 'keras'\n"_s,
            {}, {}, -1, -1, -1, none, none);

        // Paths with non-ASCII characters, and ASCII paths next to a Chinese system message.
        row("frozen graph under a Chinese folder",
            u"tensorflow.python.framework.errors_impl.NotFoundError: NewRandomAccessFile failed to Create/Open: D:\\模型\\frozen_inference_graph.pb : 系统找不到指定的路径。\n"_s,
            {}, {}, -1, -1, -1, none, {u"path_non_ascii:error"_s});
        row("h5py 3 under a Chinese user folder",
            u"OSError: Unable to synchronously open file (unable to open file: name = 'C:\\Users\\张伟\\model.h5', errno = 2, error message = 'No such file or directory', flags = 0, o_flags = 0)\n"_s,
            {}, {}, -1, -1, -1, none, {u"path_non_ascii:error"_s});
        row("checkpoint under a new-folder name",
            u"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for D:\\新建文件夹\\ckpt\\model.ckpt\n"_s,
            {}, {}, -1, -1, -1, none, {u"path_non_ascii:error"_s});
        row("ASCII path, Chinese system message: not the path",
            u"NotFoundError: NewRandomAccessFile failed to Create/Open: ./model/frozen.pb : 系统找不到指定的文件。\n"_s,
            {}, {}, -1, -1, -1, none, none);

        // cuDNN that does not start: never memory unless the log shows memory.
        row("cuDNN not initialised alone",
            u"E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"_s,
            {}, {}, -1, -1, 1, none, {u"cudnn_version_mismatch:error"_s});
        row("cuDNN not initialised after an out-of-memory",
            u"E tensorflow/stream_executor/cuda/cuda_driver.cc:936] failed to allocate 3.77G (4046979072 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY\n"
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"_s,
            {}, {}, -1, -1, 1, none, {u"out_of_memory:error"_s});
        row("cuDNN older than the build, handle fails after it",
            u"E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version.\n"
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"_s,
            {}, {}, -1, -1, 1, none, {u"cudnn_version_mismatch:error"_s});

        // DLL load failed where the VC++ runtime was found.
        const QString dll =
            u"ImportError: DLL load failed while importing _pywrap_tensorflow_internal: 找不到指定的模块。\n"_s;
        row("DLL load failed, runtime present, tensorflow-gpu",
            dll + u"C:\\Users\\li\\envs\\tf\\lib\\site-packages\\tensorflow_gpu-2.6.0.dist-info\n"_s, u"windows"_s, {},
            1, -1, 1, none, {u"missing_cuda_runtime:error"_s});
        row("DLL load failed, runtime present, CPU build 2.15", dll, u"windows"_s, u"2.15.0"_s, 1, -1, -1, none,
            {u"dll_load_failed:warning"_s});
        row("DLL load failed, runtime present, nothing else known", dll, u"windows"_s, {}, 1, -1, -1, none,
            {u"dll_load_failed:warning"_s});
        row("DLL load failed, runtime missing", dll, u"windows"_s, {}, 0, 1, -1, none,
            {u"msvc_runtime_missing:error"_s});

        // TensorFlow's own check names the CUDA 8 runtime.
        const QString selfCheck =
            u"ImportError: Could not find 'cudart64_80.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable. Download and install CUDA 8.0 from this URL: https://developer.nvidia.com/cuda-toolkit\n"_s;
        row("self-check cudart64_80.dll, nothing known of that machine", selfCheck, u"windows"_s, {}, -1, -1, 1, none,
            {u"missing_cuda_runtime:error"_s, u"cuda_version_mismatch:warning"_s});
        row("self-check cudart64_80.dll, CUDA 9.0 installed there", selfCheck, u"windows"_s, {}, -1, -1, 1, {u"9.0"_s},
            {u"cuda_version_mismatch:error"_s});
        row("self-check cudart64_80.dll, CUDA 8.0 installed there", selfCheck, u"windows"_s, {}, -1, -1, 1, {u"8.0"_s},
            {u"missing_cuda_runtime:error"_s});

        // cuInit on a CPU-only node, and on a machine with a GPU.
        const QString cuInit303 =
            u"2020-10-08 23:28:14.726991: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)\n"_s;
        row("cuInit 303 on a CPU-only node", cuInit303, u"linux"_s, {}, -1, -1, 0, none, none);
        row("cuInit 303, machine unknown, no GPU in the log", cuInit303, {}, {}, -1, -1, -1, none, none);
        row("cuInit 303 on a machine with a GPU", cuInit303, u"linux"_s, {}, -1, -1, 1, none,
            {u"no_gpu_or_driver:error"_s});
        row("no device, no driver loaded: a CPU-only container",
            u"W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running on this host (3c8a2b9f): /proc/driver/nvidia/version does not exist\n"
            "Num GPUs Available:  0\n"_s,
            {}, {}, -1, -1, -1, none, none);
        const QString ciRunner =
            u"W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
            "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.\n"
            "W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (303)\n"
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running on this host (runner-7): /proc/driver/nvidia/version does not exist\n"_s;
        row("CPU-only runner: CUDA runtime missing, no driver, nothing of a GPU", ciRunner, {}, {}, -1, -1, -1, none,
            none);
        row("the same lines on a machine with a GPU", ciRunner, u"linux"_s, {}, -1, -1, 1, none,
            {u"missing_cuda_runtime:error"_s, u"no_gpu_or_driver:error"_s});
        row("no device while libcuda reports a driver: an error",
            u"E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
            "I external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:145] libcuda reported version is: 535.104.5\n"_s,
            {}, {}, -1, -1, -1, none, {u"no_gpu_or_driver:error"_s});
        row("no device while the kernel driver answers: an error",
            u"E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] kernel reported version is: 375.82.0\n"_s,
            {}, {}, -1, -1, -1, none, {u"no_gpu_or_driver:error"_s});
    }

    void kinds()
    {
        QFETCH(QString, log);
        QFETCH(QString, platform);
        QFETCH(QString, tensorflow);
        QFETCH(int, msvc);
        QFETCH(int, avx);
        QFETCH(int, gpu);
        QFETCH(QStringList, cuda);
        QFETCH(QStringList, expected);
        TfLogContext context;
        context.platform = platform;
        context.tensorflow = tensorflow;
        context.windowsNativeLastGpu = u"2.10"_s; // the catalog's windows-native tf_max, as test data
        context.installedCuda = cuda;
        if (msvc >= 0)
            context.msvcRuntimePresent = msvc == 1;
        if (avx >= 0)
            context.cpuHasAvx = avx == 1;
        if (gpu >= 0)
            context.gpuPresent = gpu == 1;
        const QList<DoctorFinding> findings = m_reader.read(log, context);
        QStringList got = alarms(findings);
        QCOMPARE(got, expected);
        for (const DoctorFinding &f : findings) {
            QVERIFY2(!f.summary.english.contains(u'?'), qPrintable(f.id + u": "_s + f.summary.english));
            QVERIFY(!f.fix.english.isEmpty());
            QVERIFY2(!f.evidence.isEmpty(), qPrintable(f.id));
        }
    }

    void findingNamesTheLibraryAndLine()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"windows_tf29_cudart_missing.txt"_s));
        QCOMPARE(findings.first().id, u"missing_cuda_runtime:cudart64_110.dll"_s);
        QVERIFY(findings.first().summary.english.contains("cudart64_110.dll"_L1));
        QVERIFY(findings.first().evidence.first().startsWith("line 2: 2022-08-11 14:21:29.345331: W "_L1));
        QCOMPARE(findings.first().actions.first().type, u"fetch_library"_s);
        QCOMPARE(findings.first().actions.first().params.value("library"_L1).toString(), u"cudart64_110.dll"_s);
    }

    // Text from the log is copied into the finding as it is, control characters made visible: a
    // library name that looks like a parameter ("{library}"), a marker ("%2") or holds control
    // characters is neither filled in again nor grows without end (a fuzzed log once made one
    // action's text double forever), and never acts on a terminal.
    void logTextIsNeverSubstitutedTwice_data()
    {
        QTest::addColumn<QString>("library");
        QTest::newRow("parameter") << u"cudart{library}64_110.dll"_s;
        QTest::newRow("markers") << u"cudart%1%2%10_110.dll"_s;
        QTest::newRow("control characters") << u"cu\x01"
                                               "1\x02"
                                               "dart\x01\x01.dll"_s;
        QTest::newRow("every kind") << u"{library}\x01library\x02%1{detail}"_s;
    }

    void logTextIsNeverSubstitutedTwice()
    {
        QFETCH(QString, library);
        const QString line = "W dso_loader.cc:64] Could not load dynamic library '"_L1 + library + "'; dlerror: "_L1
            + library + ": cannot open shared object file: No such file or directory"_L1;
        const QList<DoctorFinding> findings = m_reader.read(line);
        QCOMPARE(findings.size(), 1);
        const QString shown = visibleText(library);
        QVERIFY2(findings.first().summary.english.contains(shown), qPrintable(findings.first().summary.english));
        QVERIFY(!findings.first().actions.isEmpty());
        QCOMPARE(findings.first().actions.first().params.value("library"_L1).toString(), shown);
        for (const QChar c : QString(findings.first().summary.english + findings.first().evidence.join(u'\n')))
            QVERIFY(!needsVisibleEscape(c.unicode()));
    }

    void summaryLineFoldsIntoTheLibraryFinding()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"linux_tf29_cusolver_cudnn_missing.txt"_s));
        QCOMPARE(findings.size(), 2);
        QCOMPARE(findings[0].id, u"missing_cuda_runtime:libcusolver.so.11"_s);
        QCOMPARE(findings[1].id, u"missing_cudnn:libcudnn.so.8"_s);
        // The "Cannot dlopen some GPU libraries" line becomes evidence, not a third finding.
        QVERIFY(findings[0].evidence.join(u'\n').contains("Cannot dlopen some GPU libraries"_L1));
    }

    void repeatedLinesBecomeOneFinding()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"cudnn_805_vs_810.txt"_s));
        QCOMPARE(findings.size(), 1);
        QCOMPARE(findings[0].evidence.size(), 2);
        QVERIFY(findings[0].summary.english.contains("8.0.5"_L1));
        QVERIFY(findings[0].summary.english.contains("8.1.0"_L1));
        QCOMPARE(findings[0].actions.first().params.value("min_version"_L1).toString(), u"8.1.0"_s);
    }

    // "DLL load failed" means the Visual C++ runtime only when the machine's detection did not find
    // it: with the runtime there, it is the CPU (no AVX) or a CUDA / cuDNN DLL.
    void dllLoadFailed_followsWhatTheMachineHas_data()
    {
        QTest::addColumn<int>("msvc"); // -1 unknown, 0 missing, 1 present
        QTest::addColumn<int>("avx");
        QTest::addColumn<QString>("cause");
        QTest::newRow("nothing known") << -1 << -1 << u"msvc_runtime_missing"_s;
        QTest::newRow("runtime missing") << 0 << 1 << u"msvc_runtime_missing"_s;
        QTest::newRow("runtime present, no AVX") << 1 << 0 << u"cpu_lacks_avx"_s;
        QTest::newRow("runtime present, AVX") << 1 << 1 << u"missing_cuda_runtime"_s;
    }

    void dllLoadFailed_followsWhatTheMachineHas()
    {
        QFETCH(int, msvc);
        QFETCH(int, avx);
        QFETCH(QString, cause);
        TfLogContext context;
        if (msvc >= 0)
            context.msvcRuntimePresent = msvc == 1;
        if (avx >= 0)
            context.cpuHasAvx = avx == 1;
        // The Chinese Windows wording of the same line (tensorflow/models#2083).
        for (const QString &line : {u"ImportError: DLL load failed: The specified module could not be found."_s,
                                    u"ImportError: DLL load failed: 找不到指定的模块。"_s}) {
            const QList<DoctorFinding> findings = m_reader.read(line, context);
            QCOMPARE(alarms(findings), QStringList{cause + u":error"_s});
            QVERIFY(!findings.first().summary.english.isEmpty());
        }
    }

    void windowsLineEndingsAndEmptyInput()
    {
        QVERIFY(m_reader.read(QString()).isEmpty());
        QString crlf = readLog(u"msvc_runtime_missing.txt"_s);
        crlf.replace(u'\n', "\r\n"_L1);
        const QList<DoctorFinding> findings = m_reader.read(crlf);
        QCOMPARE(findings.size(), 1);
        QVERIFY(!findings[0].evidence.first().endsWith(u'\r'));
    }

    void brokenRuleFilesAreRejected_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("not json") << QByteArray("{");
        QTest::newRow("no rules") << QByteArray("{\"rules\": []}");
        QTest::newRow("bad pattern") << QByteArray(
            "{\"rules\": [{\"id\": \"x\", \"pattern\": \"(\", \"cause\": \"c\", \"severity\": \"error\", \"source\": \"s\"}]}");
        QTest::newRow("no source") << QByteArray(
            "{\"rules\": [{\"id\": \"x\", \"pattern\": \"a\", \"cause\": \"c\", \"severity\": \"error\"}]}");
        QTest::newRow("unknown severity") << QByteArray(
            "{\"rules\": [{\"id\": \"x\", \"pattern\": \"a\", \"cause\": \"c\", \"severity\": \"fatal\", \"source\": \"s\"}]}");
    }

    void brokenRuleFilesAreRejected()
    {
        QFETCH(QByteArray, json);
        const auto reader = TfLogRules::fromJson(json, m_causes);
        QVERIFY(!reader.ok());
        QCOMPARE(reader.error().code, u"tflog_malformed"_s);
    }
};

QTEST_APPLESS_MAIN(TestTfLog)
#include "test_tflog.moc"
