#include "doctor/doctor.h"

#include "catalog/causes.h"
#include "catalog/version.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/text.h"
#include "verify/verifier.h"

#include <QCoro/QCoroFuture>
#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

namespace tfsetup::core {

namespace {

using namespace Qt::Literals::StringLiterals;

QString pick(const DoctorText &text, bool english)
{
    return english ? text.english : text.translated;
}

DoctorText severityLabel(Severity severity)
{
    switch (severity) {
    case Severity::Error: return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "ERROR"));
    case Severity::Warning: return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "WARNING"));
    case Severity::Info: break;
    }
    return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "INFO"));
}

QString renderSystem(const DoctorReport &r, bool english)
{
    const HardwareReport &hw = r.hardware;
    QString out;
    auto line = [&](const DoctorText &label, const QString &value) {
        out += u"  "_s + pick(label, english) + u": " + (value.isEmpty() ? u"-"_s : value) + u'\n';
    };
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "System")),
         QStringList{hw.os.version.isEmpty() ? hw.os.family : hw.os.version, hw.os.arch,
                     hw.os.wsl ? u"WSL%1"_s.arg(hw.os.wsl) : QString()}
             .filter(QRegularExpression(u"."_s))
             .join(u", "_s));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Processor")),
         hw.cpu.name + (hw.cpu.avx.has_value() ? (*hw.cpu.avx ? u" (AVX)"_s : u" (no AVX)"_s) : QString()));
    QStringList gpus;
    for (const GpuInfo &g : hw.gpus)
        gpus.append(g.computeCapability.isEmpty() ? g.name : u"%1 (%2)"_s.arg(g.name, g.computeCapability));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "GPUs")), gpus.join(u", "_s));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "NVIDIA driver")),
         !hw.driver                      ? QString()
             : hw.driver->cuda.isEmpty() ? hw.driver->version
                                         : u"%1 (CUDA %2)"_s.arg(hw.driver->version, hw.driver->cuda));
    QStringList toolkits;
    for (const CudaToolkitInfo &t : hw.cudaToolkits)
        toolkits.append(u"%1 %2"_s.arg(t.version, t.path));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "CUDA toolkits")), toolkits.join(u"; "_s));
    QStringList cudnn;
    for (const CudnnInfo &c : hw.cudnn)
        cudnn.append(u"%1 %2"_s.arg(c.version, c.path));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "cuDNN")), cudnn.join(u"; "_s));
    // Windows only: TensorFlow's DLLs load only beside the Visual C++ runtime.
    if (const auto &msvc = hw.msvcRuntime) {
        const DoctorText state = msvc->present ? doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "present"))
                                               : doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "missing"));
        QString value = pick(state, english);
        if (!msvc->version.isEmpty())
            value += u' ' + msvc->version;
        if (!msvc->missing.isEmpty())
            value += u" ("_s + msvc->missing.join(u", "_s) + u')';
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Visual C++ runtime")), value);
    }
    if (!r.target.envDir.isEmpty() || !r.target.tensorflow.isEmpty()) {
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Environment")),
             QStringList{r.target.envDir, r.target.envKind}.filter(QRegularExpression(u"."_s)).join(u", "_s));
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Python")), r.target.pythonVersion);
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "TensorFlow")),
             r.target.tensorflow.isEmpty()              ? QString()
                 : r.target.tensorflowPackage.isEmpty() ? r.target.tensorflow
                                                        : r.target.tensorflowPackage + u' ' + r.target.tensorflow);
        // A tfsetup environment: what its record says it runs on.
        if (r.target.record) {
            line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Route")), r.target.route);
            if (!r.target.cuda.isEmpty() || !r.target.cudnn.isEmpty()) {
                line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Its CUDA / cuDNN")),
                     u"%1 / %2"_s.arg(r.target.cuda.isEmpty() ? u"-"_s : r.target.cuda,
                                      r.target.cudnn.isEmpty() ? u"-"_s : r.target.cudnn));
            }
            if (!r.target.cpuOnly && (!r.target.cuda.isEmpty() || !r.target.gpus.isEmpty())) {
                QStringList pinned;
                for (int gpu : r.target.gpus)
                    pinned.append(QString::number(gpu));
                line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Its GPUs")),
                     pinned.isEmpty() ? pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "all")), english)
                                      : pinned.join(u", "_s));
            }
        }
    }
    return out;
}

bool isLogFinding(const DoctorFinding &f)
{
    return f.id.startsWith(u"log.");
}

// The verdict's own findings are the log's; the machine's log_other_machine notes stay with the log.
QList<DoctorFinding> findingsOf(const DoctorReport &r, bool log)
{
    QList<DoctorFinding> out;
    for (const DoctorFinding &f : r.findings) {
        if (isLogFinding(f) == log)
            out.append(f);
    }
    return out;
}

QString countsLine(const QList<DoctorFinding> &findings, bool english)
{
    const auto count = [&](Severity s) {
        return QString::number(
            std::count_if(findings.cbegin(), findings.cend(), [&](const DoctorFinding &f) { return f.severity == s; }));
    };
    return pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Findings: %1 errors, %2 warnings, %3 notes"),
                           {count(Severity::Error), count(Severity::Warning), count(Severity::Info)}),
                english)
        + u'\n';
}

QString renderFindings(const QList<DoctorFinding> &findings, bool english)
{
    QString out;
    if (findings.isEmpty()) {
        out += u"  "_s + pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "No problems found.")), english)
            + u'\n';
        return out;
    }
    for (const DoctorFinding &f : findings) {
        out += u"["_s + pick(severityLabel(f.severity), english) + u"] " + pick(f.summary, english) + u"  (" + f.cause
            + u")\n";
        for (const QString &e : f.evidence)
            out += u"    "_s + e + u'\n';
        if (!f.fix.isEmpty())
            out += u"  -> "_s + pick(f.fix, english) + u'\n';
    }
    return out;
}

QString renderLog(const DoctorReport &r, bool english)
{
    QString out = pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "This log")), english) + u'\n';
    out += u"  "_s + pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Verdict")), english) + u": "
        + pick(r.log->verdict.summary, english) + u'\n';
    if (!r.log->machine.describe().isEmpty()) {
        out += u"  "_s + pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "The log's machine")), english)
            + u": " + r.log->machine.describe() + u'\n';
    }
    const QList<DoctorFinding> findings = findingsOf(r, true);
    out += countsLine(findings, english);
    out += renderFindings(findings, english);
    return out;
}

QString render(const DoctorReport &r, bool english)
{
    QString out;
    // The log's verdict first and on its own: what this machine's scan found (no GPU here, a
    // missing library here) is another question and never part of it.
    if (r.log) {
        out += renderLog(r, english);
        out += u'\n';
    }
    if (!r.machineChecked) {
        out += pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                                                 "This machine was not checked: the log comes from another machine.")),
                    english)
            + u'\n';
    } else {
        out += pick(r.hardwareFromFile
                        ? doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "The machine of the hardware file"))
                        : doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "This machine")),
                    english)
            + u'\n';
        out += renderSystem(r, english);
        out += u'\n';
        const QList<DoctorFinding> findings = r.log ? findingsOf(r, false) : r.findings;
        out += countsLine(findings, english);
        out += renderFindings(findings, english);
    }
    return out;
}

bool hasTranslation(const DoctorReport &r)
{
    const DoctorText probe = doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "This machine"));
    if (probe.translated != probe.english)
        return true;
    return std::any_of(r.findings.cbegin(), r.findings.cend(), [](const DoctorFinding &f) {
        return f.summary.translated != f.summary.english || f.fix.translated != f.fix.english;
    });
}

} // namespace

Redactor::Redactor(const SystemView &system)
{
    m_caseInsensitive = system.os() == OsFamily::Windows;
    const QString home = system.homeDir();
    if (!home.isEmpty())
        m_homes.append(home);
    for (const char *var : {"USERNAME", "USER", "LOGNAME"}) {
        const QString name = system.env(QString::fromLatin1(var)).trimmed();
        if (!name.isEmpty() && !m_names.contains(name))
            m_names.append(name);
    }
    const QString last = home.section(u'/', -1);
    if (!last.isEmpty() && !m_names.contains(last))
        m_names.append(last);
    for (const char *var : {"COMPUTERNAME", "HOSTNAME"}) {
        const QString name = system.env(QString::fromLatin1(var)).trimmed();
        if (!name.isEmpty() && !m_names.contains(name))
            m_names.append(name);
    }
}

Redactor::Redactor(QStringList homes, QStringList names)
    : m_homes(std::move(homes))
    , m_names(std::move(names))
{}

QString Redactor::apply(const QString &text) const
{
    QString out = text;
    const auto cs = m_caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    for (const QString &home : m_homes) {
        if (home.size() < 2)
            continue;
        QString backslashed = home;
        backslashed.replace(u'/', u'\\');
        out.replace(home, u"<home>"_s, cs);
        out.replace(backslashed, u"<home>"_s, cs);
    }
    for (const QString &name : m_names) {
        // Whole words only, and not one- or two-letter names that would mask half the report.
        if (name.size() < 3)
            continue;
        QRegularExpression word(u"(?<![\\w])"_s + QRegularExpression::escape(name) + u"(?![\\w])"_s,
                                m_caseInsensitive ? QRegularExpression::CaseInsensitiveOption
                                                  : QRegularExpression::NoPatternOption);
        out.replace(word, u"<user>"_s);
    }
    // TensorFlow's CUDA diagnostics print the host name ("hostname: p04295").
    static const QRegularExpression host(uR"((hostname:|for host:)\s*\S+)"_s);
    out.replace(host, u"\\1 <host>"_s);
    return out;
}

int DoctorReport::count(Severity severity) const
{
    return int(std::count_if(findings.cbegin(), findings.cend(),
                             [&](const DoctorFinding &f) { return f.severity == severity; }));
}

QJsonObject DoctorReport::toJson() const
{
    QJsonArray list;
    for (const DoctorFinding &f : findings)
        list.append(f.toJson());
    QJsonObject out{{u"schema"_s, 1},
                    {u"target"_s, target.toJson()},
                    {u"hardware"_s, hardware.toJson()},
                    {u"hardware_from_file"_s, hardwareFromFile},
                    {u"machine_checked"_s, machineChecked},
                    {u"findings"_s, list},
                    {u"counts"_s,
                     QJsonObject{{u"error"_s, count(Severity::Error)},
                                 {u"warning"_s, count(Severity::Warning)},
                                 {u"info"_s, count(Severity::Info)}}}};
    if (log) {
        out.insert(u"log"_s, log->toJson());
        out.insert(u"log_verdict"_s, log->verdict.toJson());
    }
    return out;
}

QString DoctorReport::text() const
{
    return render(*this, false);
}

QString DoctorReport::reportText(const Redactor &redactor) const
{
    QString out = u"tfsetup doctor\n"_s;
    out += QStringLiteral("==========\n\n");
    if (hasTranslation(*this)) {
        out += render(*this, false);
        out += u"\n----- English -----\n\n"_s;
    }
    out += render(*this, true);
    return redactor.apply(out);
}

namespace {

QString platformOf(const HardwareReport &hw)
{
    return hw.os.family == u"windows" ? u"windows"_s : hw.os.family.isEmpty() ? QString() : u"linux"_s;
}

// Which TensorFlow releases were tested with each CUDA: "11.2" → "2.5 – 2.11".
QHash<QString, QString> tensorflowByCuda(const Catalog &catalog, const QString &os)
{
    QHash<QString, QStringList> minors;
    for (const TfRelease &r : catalog.releasesFor(os.isEmpty() ? u"linux"_s : os)) {
        if (r.cuda.isEmpty())
            continue;
        QStringList &list = minors[version::majorMinor(r.cuda)];
        if (!list.contains(r.minor()))
            list.append(r.minor());
    }
    QHash<QString, QString> out;
    for (auto it = minors.begin(); it != minors.end(); ++it) {
        QStringList &list = it.value();
        std::sort(list.begin(), list.end(), [](const QString &a, const QString &b) { return version::less(a, b); });
        out.insert(it.key(), list.size() == 1 ? list.first() : list.first() + u" – " + list.last());
    }
    return out;
}

// Where the log and the machine it is read for disagree.
QStringList conflictsBetween(const LogMachine &log, const HardwareReport &hw)
{
    QStringList out;
    const QList<GpuInfo> nvidia = hw.nvidiaGpus();
    if (log.gpuSeen && nvidia.isEmpty()) {
        out.append(u"the log shows an NVIDIA GPU or driver%1; the machine checked has no NVIDIA GPU"_s.arg(
            log.gpus.isEmpty() ? QString() : u" (%1)"_s.arg(log.gpus.join(u", "_s))));
    }
    // The log's machine had no NVIDIA driver at all; this one's driver answers.
    if (log.noDriverSeen && !log.gpuSeen && log.gpus.isEmpty() && !nvidia.isEmpty() && hw.driver
        && !hw.driver->version.isEmpty()) {
        out.append(u"the log's machine has no NVIDIA driver; the machine checked has %1 with driver %2"_s.arg(
            nvidia.first().name, hw.driver->version));
    }
    const QString here = platformOf(hw);
    if (!log.platform.isEmpty() && !here.isEmpty() && log.platform != here) {
        // A WSL2 log is Linux; a Windows machine can run it, so only native Windows vs Linux counts.
        if (!(log.platform == u"linux" && hw.os.wsl == 2))
            out.append(u"the log's paths and libraries are %1's; the machine checked runs %2"_s.arg(
                log.platform == u"windows" ? u"Windows"_s : u"Linux"_s,
                here == u"windows" ? u"Windows"_s : u"Linux"_s));
    }
    if (!log.gpus.isEmpty() && !nvidia.isEmpty()) {
        const bool same = std::any_of(nvidia.cbegin(), nvidia.cend(), [&](const GpuInfo &g) {
            const QString name = g.name.section(u' ', -2).trimmed(); // "RTX 3060", "1080 Ti"
            return std::any_of(log.gpus.cbegin(), log.gpus.cend(), [&](const QString &l) { return l.contains(name); });
        });
        if (!same) {
            QStringList names;
            for (const GpuInfo &g : nvidia)
                names.append(g.name);
            out.append(
                u"the log's GPU is %1; the machine checked has %2"_s.arg(log.gpus.join(u", "_s), names.join(u", "_s)));
        }
    }
    return out;
}

} // namespace

QJsonObject DoctorLogVerdict::toJson() const
{
    return {{u"status"_s, status},
            {u"causes"_s, QJsonArray::fromStringList(causes)},
            {u"finding_ids"_s, QJsonArray::fromStringList(findingIds)},
            {u"summary"_s, summary.translated},
            {u"en"_s, QJsonObject{{u"summary"_s, summary.english}}}};
}

DoctorLogVerdict logVerdict(const QList<DoctorFinding> &findings)
{
    DoctorLogVerdict v;
    QList<DoctorFinding> sorted;
    bool recognised = false;
    for (const DoctorFinding &f : findings) {
        // Where the log comes from is not what is wrong in it.
        if (!isLogFinding(f) || f.cause == u"log_other_machine")
            continue;
        recognised = true;
        if (f.severity != Severity::Info)
            sorted.append(f);
    }
    sortFindings(sorted);
    for (const DoctorFinding &f : sorted) {
        if (!v.causes.contains(f.cause))
            v.causes.append(f.cause);
        v.findingIds.append(f.id);
    }
    if (!sorted.isEmpty()) {
        v.status = u"cause"_s;
        const DoctorText first = sorted.first().summary;
        const DoctorText label = doctorText(
            QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "The log shows what went wrong (%1)."),
            {v.causes.join(u", "_s)});
        v.summary = {label.translated + u' ' + first.translated, label.english + u' ' + first.english};
    } else if (recognised) {
        v.status = u"nothing_wrong"_s;
        v.summary = doctorText(QT_TRANSLATE_NOOP(
            "tfsetup::core::Doctor",
            "Nothing is wrong in this log: its messages are harmless notices or show the GPU at work."));
    } else {
        v.summary = doctorText(
            QT_TRANSLATE_NOOP("tfsetup::core::Doctor",
                              "The log holds no message the doctor knows, so it cannot say what went "
                              "wrong. Run \"tfsetup doctor --env DIR\" on the machine that wrote it."));
    }
    return v;
}

QJsonObject DoctorLogMachine::toJson() const
{
    return {{u"other_machine"_s, otherMachine},
            {u"conflicts"_s, QJsonArray::fromStringList(conflicts)},
            {u"platform"_s, machine.platform},
            {u"tensorflow"_s, machine.tensorflow},
            {u"cuda"_s, QJsonArray::fromStringList(machine.cudaWanted)},
            {u"gpus"_s, QJsonArray::fromStringList(machine.gpus)},
            {u"driver"_s, machine.driver},
            {u"gpu_seen"_s, machine.gpuSeen},
            {u"evidence"_s, QJsonArray::fromStringList(machine.evidence)}};
}

DoctorLogReading readDoctorLog(const QString &log, const HardwareReport &machine, const Knowledge &knowledge,
                               const DoctorLogOptions &options)
{
    const Catalog &catalog = knowledge.catalog;
    const TfLogReader logReader(knowledge.tfLog, knowledge.causes);
    DoctorLogReading out;
    DoctorLogMachine &lm = out.machine;
    lm.machine = inspectLog(log);
    lm.conflicts = conflictsBetween(lm.machine, machine);
    lm.otherMachine = options.origin == LogOrigin::OtherMachine
        || (options.origin == LogOrigin::Unknown && !lm.conflicts.isEmpty());
    // A log of another machine than the one described is read on its own terms; a log of the
    // machine described (this one, or the one of --hardware) is read with what is known of it.
    const bool ownTerms = lm.otherMachine;

    TfLogContext context;
    const Route *native = catalog.route(u"windows-native"_s);
    context.windowsNativeLastGpu = native ? native->tfMax : QString();
    // GPU messages become harmless only for an environment meant for the CPU (--cpu-only, the
    // tensorflow-cpu package): a machine without a GPU reading someone's log is no such statement.
    context.cpuOnly = options.cpuOnly;
    context.tensorflow = options.tensorflow;
    if (ownTerms) {
        context.platform = lm.machine.platform;
    } else {
        context.platform = platformOf(machine);
        context.platformConfirmed = options.origin == LogOrigin::ThisMachine;
        for (const CudaToolkitInfo &t : machine.cudaToolkits)
            context.installedCuda.append(t.version);
        if (machine.msvcRuntime)
            context.msvcRuntimePresent = machine.msvcRuntime->present;
        context.cpuHasAvx = machine.cpu.avx;
        // Only for the log's own machine: whether "no CUDA device" is an error there.
        context.gpuPresent = !machine.nvidiaGpus().isEmpty();
    }
    // The CUDA the log's own folders name stands in when the machine's toolkits are not known.
    if (context.installedCuda.isEmpty())
        context.installedCuda = lm.machine.cudaInstalled;
    context.tensorflowForCuda = tensorflowByCuda(catalog, context.platform);
    context.machine = lm.machine; // read once: the reader needs it for the native-Windows limit
    for (DoctorFinding f : logReader.read(log, context)) {
        f.id.prepend(u"log."_s);
        out.findings.append(std::move(f));
    }
    const CauseRegistry &causes = knowledge.causes;
    if (lm.otherMachine) {
        DoctorFinding f = causes.finding(u"log_other_machine"_s);
        f.id = u"log.log_other_machine"_s;
        f.evidence = lm.conflicts;
        if (const QString described = lm.machine.describe(); !described.isEmpty())
            f.evidence.append(u"the log's machine: "_s + described);
        f.evidence.append(lm.machine.evidence.mid(0, 5));
        out.findings.append(std::move(f));
    } else if (!lm.conflicts.isEmpty()) {
        // Said to be this machine's, yet it disagrees with it: both are shown, neither wins.
        DoctorFinding f = causes.finding(u"log_other_machine"_s, u"conflict"_s);
        f.id = u"log.log_machine_conflict"_s;
        f.severity = Severity::Warning;
        f.evidence = lm.conflicts;
        f.evidence.append(lm.machine.evidence.mid(0, 5));
        out.findings.append(std::move(f));
    }
    lm.verdict = logVerdict(out.findings);
    return out;
}

namespace {

// Blocking work for the thread pool; a plain function, not a lambda (g++ 12 miscompiles lambdas
// with init-captures inside coroutines).
QList<DoctorFinding> checkFilesOnPool(const SystemView *system, std::shared_ptr<const Knowledge> knowledge,
                                      DoctorTarget target)
{
    return checkEnvironmentFiles(*system, *knowledge, target);
}

// The load probe verify runs, through the environment's launcher, read as doctor findings.
QCoro::Task<QList<DoctorFinding>> probeEnvironment(SystemView &system, std::shared_ptr<const Knowledge> knowledge,
                                                   DoctorTarget target, HardwareReport hardware, QString probe)
{
    const auto environment = EnvironmentInfo::read(system, target.envDir);
    if (!environment)
        co_return QList<DoctorFinding>{probeNotRunFinding(environment.error(), *knowledge, target)};
    VerifyRequest request = VerifyRequest::forEnvironment(*environment, knowledge->catalog);
    request.probe = probe;
    const ProbeRequest libraries = request.probeRequest(knowledge->catalog);
    if (libraries.libraries.isEmpty() || !request.expectGpu)
        co_return QList<DoctorFinding>{};
    const Result<ProbeReport> probed = co_await runLibraryProbe(system, request, libraries);
    if (!probed)
        co_return QList<DoctorFinding>{probeNotRunFinding(probed.error(), *knowledge, target)};
    co_return probeFindings(*probed, hardware, *knowledge, target);
}

// A probe finding that confirms one of the scan's (same cause, same library) adds its evidence
// there instead of saying the same thing twice.
void mergeProbeFindings(QList<DoctorFinding> &findings, const QList<DoctorFinding> &probed)
{
    for (const DoctorFinding &p : probed) {
        const QString library = p.id.section(u':', 1);
        DoctorFinding *same = nullptr;
        for (DoctorFinding &f : findings) {
            if (f.cause != p.cause || library.isEmpty() || f.id.startsWith(u"probe."_s))
                continue;
            if (f.summary.english.contains(library) || f.evidence.join(u'\n').contains(library)) {
                same = &f;
                break;
            }
        }
        if (!same) {
            findings.append(p);
            continue;
        }
        same->evidence += p.evidence;
        if (p.severity > same->severity)
            same->severity = p.severity;
    }
}

} // namespace

QCoro::Task<DoctorReport> runDoctor(SystemView &system, std::shared_ptr<const Knowledge> knowledge,
                                    DoctorOptions options)
{
    DoctorReport report;
    if (!options.detect.knowledge)
        options.detect.knowledge = knowledge;
    if (options.hardware) {
        report.hardware = *options.hardware;
        report.hardwareFromFile = true;
    } else {
        report.hardware = co_await detectHardware(system, options.detect);
    }
    report.target = inspectEnvironment(system, options.envDir);
    if (!options.tensorflow.isEmpty()) {
        report.target.tensorflow = options.tensorflow;
        report.target.tensorflowEvidence = u"--tf"_s;
    }
    if (options.cpuOnly)
        report.target.cpuOnly = true;

    // The log is evidence about its own machine. When it contradicts the machine checked (a GPU in
    // the log, none here; Windows libraries read on Linux) and nobody said where it came from, it
    // is another machine's: read on its own terms, and this machine's scan is not mixed into it.
    std::optional<DoctorLogReading> reading;
    if (options.log) {
        reading = readDoctorLog(*options.log, report.hardware, *knowledge,
                                {options.logOrigin, report.target.cpuOnly, report.target.tensorflow});
    }
    if (reading && reading->machine.otherMachine && options.envDir.isEmpty()) {
        report.machineChecked = false;
    } else if (options.hardware) {
        report.findings = scanHardware(system, report.hardware, *knowledge, report.target);
    } else {
        report.findings = scanSystem(system, report.hardware, *knowledge, report.target);
        // A tfsetup environment: every file its record lists, and its libraries loaded the way
        // verify loads them, so the doctor and verify agree.
        if (report.target.record) {
            report.findings += co_await QtConcurrent::run(&checkFilesOnPool, &std::as_const(system), knowledge,
                                                          report.target);
            if (!options.probe.isEmpty() && !report.target.cpuOnly) {
                mergeProbeFindings(
                    report.findings,
                    co_await probeEnvironment(system, knowledge, report.target, report.hardware, options.probe));
            }
        }
    }
    if (reading) {
        report.findings.append(reading->findings);
        report.log = reading->machine;
    }
    sortFindings(report.findings);
    co_return report;
}

Status writeDoctorReport(const QString &path, const QString &text)
{
    // The report quotes logs: their escapes are shown, their secrets masked. A link at the path
    // is refused, never written through.
    const Status written = writeUserFile(path, visibleText(redactSecrets(text)).toUtf8());
    if (!written && (written.error().code == u"path_is_link" || written.error().code == u"not_plain_file"))
        return written;
    if (!written) {
        return Error{u"report_unwritable"_s,
                     QCoreApplication::translate("tfsetup::core::Doctor",
                                                 "Cannot write the report to %1. Choose a folder you can write to.")
                         .arg(QDir::toNativeSeparators(path)),
                     written.error().message};
    }
    return Ok{};
}

Result<QString> readLogInput(const QString &source)
{
    const QString what = QCoreApplication::translate("tfsetup::core::Doctor", "The log");
    // Bounded like every input: a FIFO or a device is refused before it is read (it could block
    // or never end), and a log larger than the limit is refused instead of read in part, which
    // could drop the very lines with the error.
    const auto bytes = source == u"-" ? readStandardInput(what, maxTextInputBytes)
                                      : readInputFile(source, what, maxTextInputBytes);
    if (!bytes) {
        return Error{u"log_unreadable"_s,
                     QCoreApplication::translate("tfsetup::core::Doctor",
                                                 "Cannot read the log %1. Check the path, or paste the log into a "
                                                 "text file first.")
                             .arg(QDir::toNativeSeparators(source))
                         + u' ' + bytes.error().message,
                     bytes.error().detail};
    }
    // In whatever encoding the tool that saved it wrote (PowerShell 5 writes UTF-16), or refused:
    // a log read as nothing would come out as "no problems found".
    auto text = decodeTextInput(*bytes, what);
    if (!text)
        return Error{u"log_unreadable"_s, text.error().message, QDir::toNativeSeparators(source)};
    return text;
}

} // namespace tfsetup::core
