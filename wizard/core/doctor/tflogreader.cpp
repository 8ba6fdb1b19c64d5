#include "doctor/tflogreader.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tfsetup::core {

namespace {

constexpr qsizetype maxEvidenceLines = 5;

QRegularExpression compile(const QString &pattern)
{
    QRegularExpression re(pattern);
    re.optimize();
    return re;
}

QList<DoctorAction> actionsFor(const QString &cause, const QString &subject, const QString &detail)
{
    auto action = [](const char *type, QJsonObject params = {}) {
        return DoctorAction{QString::fromLatin1(type), std::move(params)};
    };
    if (cause == u"missing_cuda_runtime" || cause == u"missing_cudnn") {
        if (subject.isEmpty())
            return {action("verify")};
        return {action("fetch_library", {{QStringLiteral("library"), subject}})};
    }
    if (cause == u"cudnn_version_mismatch")
        return {action("install_cudnn", detail.isEmpty() ? QJsonObject{} : QJsonObject{{QStringLiteral("min_version"), detail}})};
    if (cause == u"no_gpu_or_driver" || cause == u"driver_too_old")
        return {action("install_driver")};
    if (cause == u"msvc_runtime_missing")
        return {action("install_msvc_runtime")};
    if (cause == u"zlibwapi_missing")
        return {action("install_cudnn")}; // the cuDNN TensorFlow was tested with (8.1 for native Windows) needs no zlib
    if (cause == u"python_version_unsupported")
        return {action("recreate_env")};
    if (cause == u"out_of_memory") {
        // TensorFlow's GPU guide: setting TF_FORCE_GPU_ALLOW_GROWTH=true makes it allocate on demand.
        return {action("set_env", {{QStringLiteral("variable"), QStringLiteral("TF_FORCE_GPU_ALLOW_GROWTH")},
                                   {QStringLiteral("value"), QStringLiteral("true")}})};
    }
    if (cause == u"compute_capability_unsupported" || cause == u"cpu_lacks_avx"
        || cause == u"windows_native_gpu_unsupported" || cause == u"cuda_version_mismatch")
        return {action("replan", {{QStringLiteral("reason"), cause}})};
    return {};
}

} // namespace

Result<TfLogReader> TfLogReader::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("tflog_unreadable"),
                     tr("The list of TensorFlow log messages (%1) cannot be read. Reinstall tfsetup.").arg(path),
                     f.errorString()};
    }
    return fromJson(f.readAll());
}

Result<TfLogReader> TfLogReader::fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    const Error malformed{QStringLiteral("tflog_malformed"),
                          tr("The list of TensorFlow log messages is damaged. Reinstall tfsetup."), {}};
    if (!doc.isObject())
        return Error{malformed.code, malformed.message, parseError.errorString()};
    TfLogReader reader;
    for (const QJsonValue &value : doc.object().value(QStringLiteral("rules")).toArray()) {
        const QJsonObject o = value.toObject();
        TfLogRule rule;
        rule.id = o.value(QStringLiteral("id")).toString();
        rule.pattern = compile(o.value(QStringLiteral("pattern")).toString());
        rule.cause = o.value(QStringLiteral("cause")).toString();
        const auto severity = severityFromName(o.value(QStringLiteral("severity")).toString());
        rule.cpuOnlyCause = o.value(QStringLiteral("cpu_only")).toString();
        rule.explain = o.value(QStringLiteral("explain")).toString();
        rule.summaryOnly = o.value(QStringLiteral("summary_only")).toBool();
        rule.source = o.value(QStringLiteral("source")).toString();
        for (const QJsonValue &lc : o.value(QStringLiteral("library_causes")).toArray()) {
            const QJsonObject l = lc.toObject();
            rule.libraryCauses.append({compile(l.value(QStringLiteral("match")).toString()),
                                       l.value(QStringLiteral("cause")).toString()});
        }
        if (rule.id.isEmpty() || rule.cause.isEmpty() || !severity || !rule.pattern.isValid()
            || rule.pattern.pattern().isEmpty() || rule.source.isEmpty()) {
            return Error{malformed.code, malformed.message,
                         QStringLiteral("rule \"%1\": needs id, cause, severity, source and a valid pattern (%2)")
                             .arg(rule.id, rule.pattern.errorString())};
        }
        rule.severity = rule.cause == u"harmless" ? Severity::Info : *severity;
        reader.m_rules.append(std::move(rule));
    }
    if (reader.m_rules.isEmpty())
        return Error{malformed.code, malformed.message, QStringLiteral("no rules")};
    return reader;
}

const TfLogRule *TfLogReader::match(const QString &line) const
{
    for (const TfLogRule &rule : m_rules) {
        if (rule.pattern.match(line).hasMatch())
            return &rule;
    }
    return nullptr;
}

QList<DoctorFinding> TfLogReader::read(const QString &text, const TfLogContext &context) const
{
    QList<DoctorFinding> findings;
    QHash<QString, qsizetype> byId;
    QList<qsizetype> summaryLines; // indices of findings made by summary-only rules
    const QStringList lines = text.split(u'\n');
    for (qsizetype n = 0; n < lines.size(); ++n) {
        QString line = lines[n];
        if (line.endsWith(u'\r'))
            line.chop(1);
        const TfLogRule *rule = nullptr;
        QRegularExpressionMatch m;
        for (const TfLogRule &r : m_rules) {
            m = r.pattern.match(line);
            if (m.hasMatch()) {
                rule = &r;
                break;
            }
        }
        if (!rule)
            continue;

        const QString library = m.captured(QStringLiteral("library"));
        QString cause = rule->cause;
        for (const auto &[re, libraryCause] : rule->libraryCauses) {
            if (!library.isEmpty() && re.match(library).hasMatch()) {
                cause = libraryCause;
                break;
            }
        }
        Severity severity = rule->severity;
        QString explain = rule->explain;
        if (context.cpuOnly && !rule->cpuOnlyCause.isEmpty()) {
            cause = rule->cpuOnlyCause;
            explain = QStringLiteral("cpu_only");
        }
        if (cause == u"harmless")
            severity = Severity::Info;

        QString subject = library;
        QString detail = m.captured(QStringLiteral("detail"));
        if (cause == u"cudnn_version_mismatch") {
            subject = m.captured(QStringLiteral("loaded"));
            detail = m.captured(QStringLiteral("compiled"));
        } else if (cause == u"compute_capability_jit" || cause == u"compute_capability_unsupported") {
            subject = m.captured(QStringLiteral("cc"));
            detail = m.captured(QStringLiteral("compiled"));
        }

        const QString id = cause == u"harmless" ? QString(QStringLiteral("harmless:") + explain)
                                                 : (subject.isEmpty() ? cause : QString(cause + u':' + subject));
        const QString evidence = QStringLiteral("line %1: %2").arg(n + 1).arg(line.trimmed());
        if (const auto it = byId.constFind(id); it != byId.cend()) {
            DoctorFinding &f = findings[*it];
            if (f.evidence.size() < maxEvidenceLines)
                f.evidence.append(evidence);
            continue;
        }
        DoctorFinding f;
        f.id = id;
        f.cause = cause;
        f.severity = severity;
        f.evidence = {evidence};
        if (cause == u"harmless") {
            f.summary = harmlessExplanation(explain);
            f.fix = doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Nothing to do."));
        } else {
            f.summary = causeSummary(cause, subject, detail);
            f.fix = causeFix(cause, subject, detail);
            f.actions = actionsFor(cause, subject, detail);
        }
        byId.insert(id, findings.size());
        if (rule->summaryOnly && cause != u"harmless")
            summaryLines.append(findings.size());
        findings.append(std::move(f));
    }

    // "Cannot dlopen some GPU libraries" only repeats what the lines above it said: fold it into
    // the finding that names a library, and keep it alone only when the log lost those lines.
    for (auto it = summaryLines.crbegin(); it != summaryLines.crend(); ++it) {
        const qsizetype at = *it;
        for (qsizetype i = 0; i < findings.size(); ++i) {
            if (i == at || findings[i].severity != Severity::Error)
                continue;
            const QString &c = findings[i].cause;
            if (c == u"missing_cuda_runtime" || c == u"missing_cudnn" || c == u"no_gpu_or_driver") {
                findings[i].evidence.append(findings[at].evidence);
                findings.removeAt(at);
                break;
            }
        }
    }
    sortFindings(findings);
    return findings;
}

DoctorText causeSummary(const QString &cause, const QString &subject, const QString &detail)
{
    if (cause == u"missing_cuda_runtime") {
        if (subject.isEmpty())
            return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                "TensorFlow could not load some CUDA libraries, so it runs on the CPU."));
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow could not load the CUDA library %1, so it runs on the CPU."),
                          {subject});
    }
    if (cause == u"missing_cudnn") {
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow could not load the cuDNN library %1, so it runs on the CPU."),
                          {subject.isEmpty() ? QStringLiteral("cuDNN") : subject});
    }
    if (cause == u"cudnn_version_mismatch") {
        if (!subject.isEmpty() && !detail.isEmpty())
            return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                "TensorFlow loaded cuDNN %1 but was built with cuDNN %2; it needs the "
                                                "same major version and an equal or newer minor version."),
                              {subject, detail});
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "The cuDNN found is not the version this TensorFlow was built with."));
    }
    if (cause == u"cuda_version_mismatch")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "The CUDA installed is not the version this TensorFlow was built with."));
    if (cause == u"driver_too_old")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "The NVIDIA driver is too old for the CUDA version TensorFlow uses."));
    if (cause == u"no_gpu_or_driver")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow found no usable NVIDIA GPU: the driver is missing or not "
                                            "running, or there is no NVIDIA GPU."));
    if (cause == u"python_version_unsupported")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "pip found no TensorFlow for this Python version (%1)."),
                          {subject.isEmpty() ? QStringLiteral("tensorflow") : subject});
    if (cause == u"compute_capability_jit")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "This TensorFlow has no ready-made GPU code for compute capability %1; "
                                            "the driver compiles it on first use, which can take 30 minutes or more."),
                          {subject});
    if (cause == u"compute_capability_unsupported")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow ignores this GPU: its compute capability %1 is below the %2 "
                                            "this TensorFlow needs."),
                          {subject, detail.isEmpty() ? QStringLiteral("?") : detail});
    if (cause == u"cpu_lacks_avx")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "This processor lacks the %1 instructions the official TensorFlow builds "
                                            "use, so TensorFlow stops as soon as it is imported."),
                          {detail.isEmpty() ? QStringLiteral("AVX") : detail});
    if (cause == u"msvc_runtime_missing")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Windows could not load TensorFlow's native module: the Microsoft Visual "
                                            "C++ runtime (%1) is missing."),
                          {subject.isEmpty() ? QStringLiteral("msvcp140.dll, msvcp140_1.dll") : subject});
    if (cause == u"zlibwapi_missing")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "cuDNN could not find zlibwapi.dll, which cuDNN 8.3 and newer need on "
                                            "Windows, so the first GPU computation that uses cuDNN stops the program."));
    if (cause == u"out_of_memory")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "The GPU ran out of memory."));
    if (cause == u"gpu_working")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "TensorFlow created a GPU device: the GPU is in use."));
    return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "TensorFlow reported a problem (%1)."), {cause});
}

DoctorText causeFix(const QString &cause, const QString &subject, const QString &detail)
{
    Q_UNUSED(detail);
    if (cause == u"missing_cuda_runtime" || cause == u"missing_cudnn")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Run \"tfsetup doctor --env DIR\" on the environment to see where %1 is "
                                            "expected and which copies exist, then let tfsetup repair it. Do not "
                                            "download single DLL files from websites."),
                          {subject.isEmpty() ? QStringLiteral("the library") : subject});
    if (cause == u"cudnn_version_mismatch")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Install the cuDNN version listed for this TensorFlow (tfsetup plan shows "
                                            "it) and remove older cuDNN copies that come first on the search path."));
    if (cause == u"cuda_version_mismatch")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Install the CUDA version this TensorFlow was built with, or choose a "
                                            "TensorFlow that matches the CUDA you have (tfsetup plan)."));
    if (cause == u"driver_too_old" || cause == u"no_gpu_or_driver")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Install or update the NVIDIA driver from nvidia.com (or your Linux "
                                            "distribution's driver package), restart, and check that nvidia-smi "
                                            "lists the GPU."));
    if (cause == u"python_version_unsupported")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Create the environment with a Python version this TensorFlow supports "
                                            "(tfsetup plan lists them)."));
    if (cause == u"compute_capability_jit")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Wait for the first run to finish once: later runs reuse the compiled code. "
                                            "Or choose a TensorFlow built for this GPU (tfsetup plan)."));
    if (cause == u"compute_capability_unsupported" || cause == u"cpu_lacks_avx"
        || cause == u"windows_native_gpu_unsupported")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Run \"tfsetup plan\" to choose a TensorFlow and route that work on this "
                                            "machine."));
    if (cause == u"msvc_runtime_missing")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Install the latest Microsoft Visual C++ Redistributable for Visual Studio "
                                            "2015-2022 (x64) from microsoft.com, then start a new terminal."));
    if (cause == u"zlibwapi_missing")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Run \"tfsetup doctor --env DIR\" to see which cuDNN loads, then use the "
                                            "cuDNN your TensorFlow was tested with (8.1 for TensorFlow 2.5 to 2.10 on "
                                            "Windows), which needs no zlibwapi.dll; tfsetup repair puts it back. Or "
                                            "place a zlibwapi.dll you trust next to cudnn64_8.dll. NVIDIA does not ship "
                                            "it; do not download it from random websites."));
    if (cause == u"out_of_memory")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Use a smaller batch size, close other programs using the GPU (nvidia-smi "
                                            "lists them), or set TF_FORCE_GPU_ALLOW_GROWTH=true so TensorFlow takes "
                                            "memory only as needed."));
    return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Nothing to do."));
}

DoctorText harmlessExplanation(const QString &explain)
{
    if (explain == u"tensorrt")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorRT is an optional NVIDIA inference library; TensorFlow works on the "
                                            "GPU without it. This message is harmless."));
    if (explain == u"cudart_stub")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow's own note that a missing CUDA runtime does not matter on a "
                                            "machine without a GPU. Harmless by itself."));
    if (explain == u"cpu_features")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "A notice about optional CPU instructions (AVX2, FMA, …) TensorFlow could "
                                            "use with a custom build. Harmless."));
    if (explain == u"onednn")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "A notice that oneDNN speed-ups are on; results may differ in the last "
                                            "digits. Harmless."));
    if (explain == u"numa")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "The firmware or kernel does not say which NUMA node the GPU sits on, so "
                                            "TensorFlow assumes node 0. Harmless on a desktop or laptop."));
    if (explain == u"factory")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "Two parts of TensorFlow registered the same CUDA plugin; the second is "
                                            "ignored. Harmless, the GPU still works."));
    if (explain == u"cpu_only")
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                            "TensorFlow looked for a GPU and CUDA libraries; this environment is meant "
                                            "to run on the CPU, so these messages are expected and harmless."));
    return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "A harmless notice."));
}

} // namespace tfsetup::core
