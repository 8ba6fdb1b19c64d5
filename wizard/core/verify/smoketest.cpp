#include "verify/smoketest.h"

#include "util/jsonshape.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

// The last line of stdout that is the script's document. TensorFlow or site hooks may print
// other things first.
std::optional<QJsonObject> findDocument(const QByteArray &out)
{
    const QList<QByteArray> lines = out.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QByteArray line = it->trimmed();
        if (!line.startsWith('{'))
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (doc.isObject() && doc.object().value(QLatin1String("tool")).toString() == u"tfsetup-verify")
            return doc.object();
    }
    return std::nullopt;
}

QStringList logLines(const QJsonObject &doc)
{
    QStringList out;
    for (const QJsonValue &v : doc.value(QLatin1String("log")).toArray())
        out.append(v.toString());
    return out;
}

QString errorText(const QJsonObject &step)
{
    const QJsonObject e = step.value(QLatin1String("error")).toObject();
    if (e.isEmpty())
        return {};
    return textOf(e, "type") + QStringLiteral(": ") + textOf(e, "message");
}

// Everything a failure might be explained by: the error, its traceback and the native log.
QString evidence(const QJsonObject &step, const QStringList &log)
{
    const QJsonObject e = step.value(QLatin1String("error")).toObject();
    return textOf(e, "message") + u'\n' + textOf(e, "traceback") + u'\n' + log.join(u'\n');
}

// A GPU's name when get_device_details() gave none (older TensorFlow): the script's device
// descriptions ("device: 0, name: NVIDIA GeForce RTX 3060, pci bus id: …"), else TensorFlow's own
// "Created device …/device:GPU:0 with … -> device: 0, name: …, pci bus id" log line.
QString describedName(const QJsonObject &doc, const QStringList &log, int index)
{
    static const QRegularExpression named(QStringLiteral("name: (.+?), (?:pci bus id|compute capability)"));
    const QString suffix = QStringLiteral("GPU:%1").arg(index);
    for (const QJsonValue &v : doc.value(QLatin1String("device_descriptions")).toArray()) {
        const QJsonObject d = v.toObject();
        if (!d.value(QLatin1String("name")).toString().endsWith(suffix))
            continue;
        if (const auto m = named.match(d.value(QLatin1String("description")).toString()); m.hasMatch())
            return m.captured(1);
    }
    const QString created = QStringLiteral("device:") + suffix + QStringLiteral(" with");
    for (const QString &line : log) {
        if (!line.contains(QLatin1String("Created device")) || !line.contains(created))
            continue;
        if (const auto m = named.match(line); m.hasMatch())
            return m.captured(1);
    }
    return {};
}

QString seconds(double s)
{
    return QString::number(s, 'f', s < 10 ? 2 : 1);
}

VerifyLayer makeLayer(const char *id, const QString &title)
{
    VerifyLayer l;
    l.id = QLatin1String(id);
    l.title = title;
    return l;
}

void fail(VerifyLayer &l, const char *cause, const QString &explanation, const QStringList &details = {})
{
    l.status = VerifyLayer::Status::Failed;
    l.cause = QLatin1String(cause);
    l.explanation = explanation;
    l.details += details;
}

QStringList matchingLines(const QStringList &log, const QRegularExpression &re)
{
    QStringList out;
    for (const QString &line : log) {
        if (re.match(line).hasMatch())
            out.append(line);
    }
    return out;
}

} // namespace

QString VerifyLayer::statusName(Status status)
{
    switch (status) {
    case Status::Passed: return QStringLiteral("passed");
    case Status::Warning: return QStringLiteral("warning");
    case Status::Failed: return QStringLiteral("failed");
    case Status::Skipped: return QStringLiteral("skipped");
    }
    return {};
}

QJsonObject VerifyLayer::toJson() const
{
    QJsonObject o{{QStringLiteral("id"), id},
                  {QStringLiteral("status"), statusName(status)},
                  {QStringLiteral("title"), title},
                  {QStringLiteral("summary"), summary}};
    if (!cause.isEmpty())
        o.insert(QStringLiteral("cause"), cause);
    if (!explanation.isEmpty())
        o.insert(QStringLiteral("explanation"), explanation);
    if (!details.isEmpty())
        o.insert(QStringLiteral("details"), QJsonArray::fromStringList(details));
    return o;
}

const VerifyLayer *SmokeResult::layer(const QString &id) const
{
    for (const VerifyLayer &l : layers) {
        if (l.id == id)
            return &l;
    }
    return nullptr;
}

const VerifyLayer *SmokeResult::firstFailure() const
{
    for (const VerifyLayer &l : layers) {
        if (l.failed())
            return &l;
    }
    return nullptr;
}

QString SmokeResult::deviceTitle(const QString &device) const
{
    // "/job:localhost/replica:0/task:0/device:GPU:0" → "GPU 0: NVIDIA GeForce RTX 3060".
    static const QRegularExpression pattern(QStringLiteral("(?:^|/)(?:device:)?(GPU|CPU):(\\d+)$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const auto m = pattern.match(device);
    if (!m.hasMatch())
        return device;
    if (m.captured(1).compare(QLatin1String("CPU"), Qt::CaseInsensitive) == 0)
        return tr("the processor");
    const int index = m.captured(2).toInt();
    const QString name = gpus.value(index);
    return name.isEmpty() || name.startsWith(u'/') ? tr("GPU %1").arg(index) : tr("GPU %1: %2").arg(index).arg(name);
}

SmokeResult SmokeResult::parse(const ProcessResult &process, bool expectGpu)
{
    SmokeResult r;
    VerifyLayer import = makeLayer("import", tr("Import TensorFlow"));
    VerifyLayer devices = makeLayer("devices", tr("Find the GPU"));
    VerifyLayer cudnn = makeLayer("cudnn", tr("Run a convolution (cuDNN)"));
    VerifyLayer compute = makeLayer("compute", tr("Compute on the GPU"));
    if (!expectGpu) {
        devices.title = tr("Check the devices");
        cudnn.title = tr("Run a convolution");
        compute.title = tr("Compute on the processor");
    }
    const QString stderrTail = QString::fromUtf8(process.standardError.right(4000)).trimmed();
    if (const auto doc = findDocument(process.standardOutput)) {
        r.produced = true;
        r.document = *doc;
        const QStringList log = logLines(*doc);
        // Each layer is read only when the one before it passed; the rest stay "not run".
        if (r.readImport(import, log) && r.readDevices(devices, import, log, expectGpu)
            && r.readConvolution(cudnn, log, stderrTail))
            r.readMatrixProduct(compute, log);
    } else {
        failWithoutDocument(import, process, stderrTail);
    }
    r.layers = {import, devices, cudnn, compute};
    return r;
}

void SmokeResult::failWithoutDocument(VerifyLayer &import, const ProcessResult &process, const QString &stderrTail)
{
    if (!process.started) {
        fail(import, "launcher_failed",
             tr("The environment's Python could not be started: %1. Run tfsetup repair to rewrite the "
                "launchers.")
                 .arg(process.error));
    } else if (process.timedOut) {
        fail(import, "timed_out",
             tr("The check did not finish in time. TensorFlow may be compiling GPU code for this card the "
                "first time (this can take many minutes); run tfsetup verify again."),
             {stderrTail});
    } else if (process.exitCode == 132 || process.standardError.contains("Illegal instruction")) {
        fail(import, "cpu_lacks_avx",
             tr("Python stopped with \"Illegal instruction\" while loading TensorFlow. This processor "
                "probably lacks an instruction set (AVX) the official TensorFlow packages require; use an "
                "older TensorFlow built without it or another computer."),
             {stderrTail});
    } else {
        fail(import, "crashed",
             tr("Python stopped before the check could report (exit code %1). The details below show its "
                "last words; run tfsetup doctor with them.")
                 .arg(process.exitCode),
             {stderrTail});
    }
}

bool SmokeResult::readImport(VerifyLayer &import, const QStringList &log)
{
    const QJsonObject imp = document.value(QLatin1String("import")).toObject();
    if (!imp.value(QLatin1String("ok")).toBool()) {
        const QString text = evidence(imp, log);
        const QString error = errorText(imp);
        static const QRegularExpression soMissing(QStringLiteral("([\\w.+-]+\\.so[\\w.]*): cannot open shared "
                                                                 "object file"));
        if (text.contains(QLatin1String("No module named 'tensorflow'"))) {
            fail(import, "tensorflow_not_installed",
                 tr("TensorFlow is not installed in this environment's Python. Run tfsetup repair, or install "
                    "the environment again."),
                 {error});
        } else if (const auto m = soMissing.match(text); m.hasMatch()) {
            fail(import, "missing_cuda_runtime",
                 tr("TensorFlow could not be imported because the library %1 is missing. Run tfsetup repair, "
                    "or add the folder that holds it to the environment's library path.")
                     .arg(m.captured(1)),
                 {error});
        } else if (text.contains(QLatin1String("DLL load failed"))) {
            fail(import, "import_dll_failed",
                 tr("Windows could not load a DLL TensorFlow needs. Install the Microsoft Visual C++ "
                    "Redistributable (x64); if that does not help, run tfsetup doctor."),
                 {error});
        } else if (text.contains(QLatin1String("_ARRAY_API not found"))
                   || text.contains(QLatin1String("numpy.core.multiarray failed to import"))
                   || text.contains(QLatin1String("compiled using NumPy 1.x"))) {
            fail(import, "numpy_incompatible",
                 tr("TensorFlow was built against an older NumPy than the one installed. Install the NumPy "
                    "version this TensorFlow release names (tfsetup repair does)."),
                 {error});
        } else {
            fail(import, "import_failed",
                 tr("TensorFlow could not be imported: %1. Run tfsetup doctor with the details below.").arg(error),
                 {textOf(imp.value(QLatin1String("error")).toObject(), "traceback")});
        }
        return false;
    }
    tensorflowVersion = textOf(imp, "version");
    import.status = VerifyLayer::Status::Passed;
    import.summary = tr("TensorFlow %1 imported in %2 s")
                         .arg(tensorflowVersion, seconds(imp.value(QLatin1String("seconds")).toDouble()));
    return true;
}

bool SmokeResult::readDevices(VerifyLayer &devices, VerifyLayer &import, const QStringList &log, bool expectGpu)
{
    const QJsonObject dev = document.value(QLatin1String("devices")).toObject();
    for (const QJsonValue &g : dev.value(QLatin1String("gpus")).toArray()) {
        const QJsonObject gpu = g.toObject();
        QString name = textOf(gpu.value(QLatin1String("details")).toObject(), "device_name");
        if (name.isEmpty())
            name = describedName(document, log, int(gpus.size()));
        gpus.append(name.isEmpty() ? textOf(gpu, "name") : name);
    }
    // What a student recognises: the card's name, not TensorFlow's device path.
    QStringList gpuTitles;
    for (int i = 0; i < gpus.size(); ++i) {
        const QString &name = gpus.at(i);
        gpuTitles.append(name.startsWith(u'/') ? tr("GPU %1").arg(i) : tr("GPU %1: %2").arg(i).arg(name));
    }
    const QJsonObject build = document.value(QLatin1String("build_info")).toObject();
    if (!build.isEmpty()) {
        import.details.append(QStringLiteral("cuda_version=%1 cudnn_version=%2 is_cuda_build=%3")
                                  .arg(build.value(QLatin1String("cuda_version")).toVariant().toString(),
                                       build.value(QLatin1String("cudnn_version")).toVariant().toString(),
                                       build.value(QLatin1String("is_cuda_build")).toVariant().toString()));
    }
    if (!dev.value(QLatin1String("ok")).toBool()) {
        fail(devices, "devices_failed",
             tr("TensorFlow could not list its devices: %1. Run tfsetup doctor with the details below.")
                 .arg(errorText(dev)),
             {evidence(dev, log).trimmed()});
        return false;
    }
    if (gpus.isEmpty() && expectGpu) {
        static const QRegularExpression couldNotLoad(QStringLiteral("Could not load dynamic library '([^']+)'"));
        static const QRegularExpression cuInit(QStringLiteral("failed call to cuInit: (\\S+)"));
        QStringList missing;
        for (const QString &line : log) {
            const auto m = couldNotLoad.match(line);
            if (m.hasMatch() && !missing.contains(m.captured(1)))
                missing.append(m.captured(1));
        }
        const QStringList evidenceLines = matchingLines(
            log, QRegularExpression(QStringLiteral("dso_loader|Cannot dlopen|cuInit|cuda_diagnostics")));
        const QJsonValue cudaBuild = build.value(QLatin1String("is_cuda_build"));
        if (cudaBuild.isBool() && !cudaBuild.toBool()) {
            fail(devices, "not_cuda_build",
                 tr("This TensorFlow package was built without GPU support (TensorFlow 2.11 and newer on native "
                    "Windows, or a CPU-only package). Use WSL2 or TensorFlow 2.10 on Windows, or the GPU "
                    "package on Linux."),
                 evidenceLines);
        } else if (!missing.isEmpty()) {
            const bool cudnnMissing = std::any_of(missing.cbegin(), missing.cend(), [](const QString &name) {
                return name.contains(QLatin1String("cudnn"));
            });
            fail(devices, cudnnMissing && missing.size() == 1 ? "missing_cudnn" : "missing_cuda_runtime",
                 tr("TensorFlow could not load %1, so it ignores the GPU. Run tfsetup repair, or add the folder "
                    "that holds these files to the environment's library path.")
                     .arg(missing.join(QStringLiteral(", "))),
                 evidenceLines);
        } else if (const auto m = cuInit.match(log.join(u'\n')); m.hasMatch()) {
            fail(devices, "no_gpu_or_driver",
                 tr("The NVIDIA driver did not start (%1). Check that the NVIDIA driver is installed and the "
                    "GPU is enabled, then restart the computer.")
                     .arg(m.captured(1)),
                 evidenceLines);
        } else {
            fail(devices, "no_gpu_visible",
                 tr("TensorFlow imported but sees no GPU. Run tfsetup doctor to find out which part is "
                    "missing."),
                 evidenceLines);
        }
        return false;
    }
    devices.status = VerifyLayer::Status::Passed;
    devices.summary = gpus.isEmpty() ? tr("No GPU, as planned: TensorFlow uses the processor")
                                     : tr("TensorFlow sees %1").arg(gpuTitles.join(QStringLiteral(", ")));
    const QJsonObject growth = document.value(QLatin1String("memory_growth")).toObject();
    if (!growth.isEmpty() && !growth.value(QLatin1String("ok")).toBool()) {
        devices.status = VerifyLayer::Status::Warning;
        devices.cause = QStringLiteral("memory_growth_failed");
        devices.explanation = tr("Memory growth could not be switched on, so TensorFlow may reserve all GPU "
                                 "memory at once: %1")
                                  .arg(errorText(growth));
    }
    return true;
}

// The step ran where the plan put it: on the GPU when the script chose one.
bool SmokeResult::placedAsPlanned(const QJsonObject &step) const
{
    const QString where = textOf(step, "device");
    return !textOf(document, "device").startsWith(QLatin1String("/GPU"), Qt::CaseInsensitive)
        || where.contains(QLatin1String("GPU"), Qt::CaseInsensitive);
}

// A failure of the GPU itself rather than of a library: memory, or no code for its architecture.
bool SmokeResult::failedToCompute(VerifyLayer &l, const QJsonObject &step, const QStringList &log)
{
    const QString text = evidence(step, log);
    if (text.contains(QLatin1String("OOM when allocating")) || text.contains(QLatin1String("RESOURCE_EXHAUSTED"))
        || text.contains(QLatin1String("CUDA_ERROR_OUT_OF_MEMORY"))) {
        fail(l, "out_of_memory",
             tr("The GPU ran out of memory. Close other programs that use the GPU (including other Jupyter "
                "notebooks) and run the check again."),
             {errorText(step)});
        return true;
    }
    if (text.contains(QLatin1String("no kernel image is available"))
        || text.contains(QLatin1String("CUDA_ERROR_NO_BINARY_FOR_GPU"))) {
        fail(l, "compute_capability_jit",
             tr("This TensorFlow build has no code for this GPU's architecture. Choose a TensorFlow "
                "release that supports the card (tfsetup plan lists them)."),
             {errorText(step)});
        return true;
    }
    return false;
}

bool SmokeResult::readConvolution(VerifyLayer &cudnn, const QStringList &log, const QString &stderrTail) const
{
    const QJsonObject conv = document.value(QLatin1String("conv2d")).toObject();
    if (conv.isEmpty()) {
        fail(cudnn, "not_run", tr("The convolution did not run; see the details below."), {stderrTail});
        return false;
    }
    if (!conv.value(QLatin1String("ok")).toBool()) {
        static const QRegularExpression mismatch(
            QStringLiteral("Loaded runtime CuDNN library: ([\\d.]+) but source was compiled with: ([\\d.]+)"));
        const QString text = evidence(conv, log);
        if (const auto m = mismatch.match(text); m.hasMatch()) {
            fail(cudnn, "cudnn_version_mismatch",
                 tr("TensorFlow found cuDNN %1 but was built with cuDNN %2; it needs the same major version and "
                    "at least that minor version. Install cuDNN %2 or newer of that major version (tfsetup "
                    "repair).")
                     .arg(m.captured(1), m.captured(2)),
                 {m.captured(0), errorText(conv)});
        } else if (failedToCompute(cudnn, conv, log)) {
            // named by failedToCompute
        } else if (text.contains(QLatin1String("DNN library is not found"))
                   || text.contains(QLatin1String("DNN library initialization failed"))
                   || text.contains(QLatin1String("Could not load library libcudnn"))
                   || text.contains(QLatin1String("Failed to get convolution algorithm"))
                   || text.contains(QLatin1String("CUDNN_STATUS_"))) {
            fail(cudnn, "missing_cudnn",
                 tr("The GPU works but cuDNN could not be used, so convolutions fail. cuDNN is missing, "
                    "incomplete, or a different version than TensorFlow needs; run tfsetup repair."),
                 {errorText(conv)});
        } else {
            fail(cudnn, "cudnn_failed",
                 tr("The convolution failed: %1. Run tfsetup doctor with the details below.").arg(errorText(conv)),
                 {textOf(conv.value(QLatin1String("error")).toObject(), "traceback")});
        }
        return false;
    }
    if (!placedAsPlanned(conv)) {
        fail(cudnn, "ran_on_cpu",
             tr("The convolution ran on %1 instead of the GPU. Run tfsetup doctor.")
                 .arg(deviceTitle(textOf(conv, "device"))),
             {textOf(conv, "device")});
        return false;
    }
    cudnn.status = conv.value(QLatin1String("correct")).toBool(true) ? VerifyLayer::Status::Passed
                                                                     : VerifyLayer::Status::Failed;
    cudnn.summary = tr("Convolution in %1 s on %2")
                        .arg(seconds(conv.value(QLatin1String("seconds")).toDouble()),
                             deviceTitle(textOf(conv, "device")));
    if (cudnn.failed()) {
        fail(cudnn, "wrong_result",
             tr("The convolution gave a wrong result. The GPU or its driver is unreliable; update the driver "
                "and run the check again."));
        return false;
    }
    return true;
}

void SmokeResult::readMatrixProduct(VerifyLayer &compute, const QStringList &log) const
{
    const QJsonObject mm = document.value(QLatin1String("matmul")).toObject();
    if (mm.isEmpty() || !mm.value(QLatin1String("ok")).toBool()) {
        if (!failedToCompute(compute, mm, log)) {
            fail(compute, "compute_failed",
                 tr("The matrix product failed: %1. Run tfsetup doctor with the details below.").arg(errorText(mm)),
                 {textOf(mm.value(QLatin1String("error")).toObject(), "traceback")});
        }
        return;
    }
    if (!placedAsPlanned(mm)) {
        fail(compute, "ran_on_cpu",
             tr("The matrix product ran on %1 instead of the GPU. Run tfsetup doctor.")
                 .arg(deviceTitle(textOf(mm, "device"))),
             {textOf(mm, "device")});
        return;
    }
    if (!mm.value(QLatin1String("correct")).toBool(true)) {
        fail(compute, "wrong_result",
             tr("The matrix product gave a wrong result. The GPU or its driver is unreliable; update the driver "
                "and run the check again."));
        return;
    }
    compute.status = VerifyLayer::Status::Passed;
    const int size = mm.value(QLatin1String("size")).toInt();
    compute.summary = tr("%1×%1 matrix product in %2 s (first run %3 s)")
                          .arg(size)
                          .arg(seconds(mm.value(QLatin1String("seconds")).toDouble()),
                               seconds(mm.value(QLatin1String("first_seconds")).toDouble()));
}

QByteArray smokeTestScript()
{
    QFile f(QStringLiteral(":/resources/verify/verify_tf.py"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace tfsetup::core
