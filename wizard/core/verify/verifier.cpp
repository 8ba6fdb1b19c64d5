#include "verify/verifier.h"

#include "install/environmentrecord.h"

#include "catalog/catalog.h"
#include "catalog/version.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

namespace tfsetup::core {

namespace {

// Started through the Python launcher, this hands over to the probe with the environment the
// launcher set up (LD_LIBRARY_PATH, PATH), whatever shell language the launcher is written in.
const char probeBootstrap[] = "import subprocess, sys\n"
                              "sys.exit(subprocess.call(sys.argv[1:]))\n";

QString firstString(const QJsonObject &o, std::initializer_list<const char *> keys)
{
    for (const char *key : keys) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isString() && !v.toString().isEmpty())
            return v.toString();
        if (v.isObject()) {
            const QString path = v.toObject().value(QLatin1String("path")).toString();
            if (!path.isEmpty())
                return path;
        }
    }
    return {};
}

QStringList stringList(const QJsonValue &v, QChar separator)
{
    if (v.isString())
        return v.toString().split(separator, Qt::SkipEmptyParts);
    QStringList out;
    for (const QJsonValue &e : v.toArray()) {
        if (e.isString())
            out.append(e.toString());
    }
    return out;
}

bool isAbsolute(const QString &path)
{
    return path.startsWith(u'/') || path.startsWith(u'\\') || (path.size() > 2 && path[1] == u':');
}

QString layerMark(VerifyLayer::Status status)
{
    switch (status) {
    case VerifyLayer::Status::Passed: return QStringLiteral("✓");
    case VerifyLayer::Status::Warning: return QStringLiteral("!");
    case VerifyLayer::Status::Failed: return QStringLiteral("✗");
    case VerifyLayer::Status::Skipped: return QStringLiteral("-");
    }
    return {};
}

QString pythonFor(const SystemView &system, const VerifyRequest &request)
{
    if (!request.pythonLauncher.isEmpty())
        return request.pythonLauncher;
    const QString python3 = system.findExecutable(QStringLiteral("python3"));
    return python3.isEmpty() ? system.findExecutable(QStringLiteral("python")) : python3;
}

} // namespace

Result<EnvironmentInfo> EnvironmentInfo::read(const SystemView &system, const QString &directory)
{
    EnvironmentInfo info;
    info.directory = system.normalize(directory);
    info.os = osFamilyName(system.os());
    if (!system.isDir(info.directory)) {
        return Error{
            QStringLiteral("environment_missing"),
            tr("The environment folder %1 does not exist. Give the folder tfsetup installed into.").arg(info.directory),
            {}};
    }
    const QString recordPath = SystemView::join(info.directory, QStringLiteral("environment.json"));
    const auto bytes = system.readFile(recordPath);
    QJsonObject record;
    if (bytes) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &error);
        if (!doc.isObject()) {
            return Error{
                QStringLiteral("environment_malformed"),
                tr("%1 is damaged (not a JSON object). Run tfsetup repair --env %2.").arg(recordPath, info.directory),
                error.errorString()};
        }
        record = doc.object();
    }
    // The plan's fields may sit at the top or under "plan".
    const QJsonObject plan = record.value(QLatin1String("plan")).toObject();
    for (const QJsonObject &o : {plan, record}) {
        if (info.tensorflow.isEmpty())
            info.tensorflow = firstString(o, {"tensorflow", "tensorflow_version", "tf"});
        if (info.cuda.isEmpty())
            info.cuda = firstString(o, {"cuda", "cuda_version"});
        if (info.cudnn.isEmpty())
            info.cudnn = firstString(o, {"cudnn", "cudnn_version"});
        if (info.route.isEmpty())
            info.route = firstString(o, {"route"});
        const QString os = firstString(o, {"os"}).toLower();
        if (os == u"linux" || os == u"windows")
            info.os = os;
    }

    // An environment tfsetup made is read through its record's one reader: what was installed
    // (pip's TensorFlow, the plan's CUDA and cuDNN) wins over what the tolerant reading above found.
    if (const QString host = system.hostPath(info.directory); !host.isEmpty() && bytes) {
        if (const auto typed = EnvironmentRecord::read(host)) {
            const InstallSpec asked = typed->plan();
            info.tensorflow = typed->tensorflowVersion();
            if (!asked.route.isEmpty())
                info.route = asked.route;
            info.cuda = asked.cuda;
            info.cudnn = asked.cudnn;
            if (typed->os == u"linux" || typed->os == u"windows")
                info.os = typed->os;
        }
    }

    // The installer records launchers as relative paths ("start-python.sh", "start-python.bat",
    // "start-python.ps1", "shell.sh"); the shell language this OS runs directly is preferred.
    const QString scriptSuffix = info.os == u"windows" ? QStringLiteral(".bat") : QStringLiteral(".sh");
    for (const QJsonValue &v : record.value(QLatin1String("launchers")).toArray()) {
        const QString path = v.toString();
        const QString name = path.section(u'/', -1);
        if (!name.endsWith(scriptSuffix, Qt::CaseInsensitive))
            continue;
        if (name.startsWith(QLatin1String("start-python"), Qt::CaseInsensitive) && info.pythonLauncher.isEmpty())
            info.pythonLauncher = path;
        else if (name.startsWith(QLatin1String("shell"), Qt::CaseInsensitive) && info.shellLauncher.isEmpty())
            info.shellLauncher = path;
    }
    for (const QJsonValue &v : record.value(QLatin1String("files")).toArray()) {
        const QString path = v.isObject() ? v.toObject().value(QLatin1String("path")).toString() : v.toString();
        if (!path.isEmpty())
            info.recordedFiles.append(path);
    }
    const QJsonObject launchers = record.value(QLatin1String("launchers")).toObject();
    for (auto it = launchers.constBegin(); it != launchers.constEnd(); ++it) {
        const QString path = it.value().isObject() ? it.value().toObject().value(QLatin1String("path")).toString()
                                                   : it.value().toString();
        if (it.key().contains(QLatin1String("python"), Qt::CaseInsensitive) && info.pythonLauncher.isEmpty())
            info.pythonLauncher = path;
        else if (it.key().contains(QLatin1String("shell"), Qt::CaseInsensitive) && info.shellLauncher.isEmpty())
            info.shellLauncher = path;
    }
    if (info.pythonLauncher.isEmpty())
        info.pythonLauncher = firstString(record, {"python_launcher", "launcher_python", "start_python"});
    if (info.shellLauncher.isEmpty())
        info.shellLauncher = firstString(record, {"shell_launcher", "launcher_shell", "start_shell"});

    const QChar separator = info.os == u"windows" ? u';' : u':';
    for (const char *key : {"library_dirs", "lib_dirs", "library_path", "ld_library_path"}) {
        info.libraryDirs += stringList(record.value(QLatin1String(key)), separator);
        info.libraryDirs += stringList(plan.value(QLatin1String(key)), separator);
    }

    const auto resolve = [&info](QString &path) {
        if (!path.isEmpty() && !isAbsolute(path))
            path = SystemView::join(info.directory, path);
    };
    resolve(info.pythonLauncher);
    resolve(info.shellLauncher);
    for (QString &dir : info.libraryDirs)
        resolve(dir);
    for (QString &file : info.recordedFiles)
        resolve(file);

    if (info.pythonLauncher.isEmpty()) {
        const QStringList names = info.os == u"windows"
            ? QStringList{QStringLiteral("start-python.bat"), QStringLiteral("start-python.cmd")}
            : QStringList{QStringLiteral("start-python.sh"), QStringLiteral("start-python")};
        for (const QString &sub : {QString(), QStringLiteral("bin"), QStringLiteral("launchers")}) {
            for (const QString &name : names) {
                const QString candidate = SystemView::join(
                    sub.isEmpty() ? info.directory : SystemView::join(info.directory, sub), name);
                if (info.pythonLauncher.isEmpty() && system.isFile(candidate))
                    info.pythonLauncher = candidate;
            }
        }
    }
    if (record.isEmpty() && info.pythonLauncher.isEmpty()) {
        return Error{QStringLiteral("environment_unrecognised"),
                     tr("%1 has neither an environment.json nor a start-python launcher, so it is not an environment "
                        "tfsetup made. Give the right folder, or name a launcher with --launcher.")
                         .arg(info.directory),
                     {}};
    }
    return info;
}

VerifyRequest VerifyRequest::forEnvironment(const EnvironmentInfo &environment, const Catalog &catalog)
{
    VerifyRequest r;
    r.pythonLauncher = environment.pythonLauncher;
    r.os = environment.os;
    r.tensorflow = environment.tensorflow;
    r.cuda = environment.cuda;
    r.cudnn = environment.cudnn;
    r.route = environment.route;
    r.libraryDirs = environment.libraryDirs;
    r.recordedFiles = environment.recordedFiles;
    if (r.cuda.isEmpty() && r.cudnn.isEmpty() && !r.tensorflow.isEmpty()) {
        if (const auto release = catalog.release(r.os, version::majorMinor(r.tensorflow))) {
            r.cuda = release->cuda;
            r.cudnn = release->cudnn;
        }
    }
    if (const Route *route = catalog.route(r.route)) {
        r.expectGpu = route->isAccelerated();
        if (route->cudaLibraries == u"none") {
            r.cuda.clear();
            r.cudnn.clear();
        }
    }
    return r;
}

ProbeRequest VerifyRequest::probeRequest(const Catalog &catalog) const
{
    ProbeRequest p;
    if (libraries.isEmpty()) {
        p = ProbeRequest::forVersions(catalog, cuda, cudnn, os);
    } else {
        p.cuda = cuda;
        p.cudnn = cudnn;
        for (const QString &name : libraries)
            p.libraries.append({name, QStringLiteral("extra"), {}});
    }
    p.ownDirs = libraryDirs;
    // A GPU plan also computes with what it loaded, telling "the GPU libraries work" apart from
    // "TensorFlow cannot use them".
    p.compute = expectGpu;
    const Qt::CaseSensitivity cs = os == u"windows" ? Qt::CaseInsensitive : Qt::CaseSensitive;
    for (const QString &file : recordedFiles) {
        const qsizetype slash = file.lastIndexOf(u'/');
        const QString name = file.mid(slash + 1);
        const bool probed = std::any_of(p.libraries.cbegin(), p.libraries.cend(),
                                        [&](const ProbeLibrary &l) { return l.name.compare(name, cs) == 0; });
        if (probed && slash > 0 && !p.ownDirs.contains(file.left(slash), cs))
            p.ownDirs.append(file.left(slash));
    }
    return p;
}

// --- running ---

QCoro::Task<Result<ProbeReport>> runLibraryProbe(SystemView &system, VerifyRequest request, ProbeRequest probe)
{
    if (request.probe.isEmpty() || !system.isFile(request.probe)) {
        co_return Error{QStringLiteral("probe_missing"),
                        VerifyReport::tr("The library probe tfsetup-probe is not next to tfsetup (%1). Reinstall "
                                         "tfsetup.")
                            .arg(request.probe),
                        {}};
    }
    QString program = request.probe;
    QStringList arguments = probe.toArguments();
    QTemporaryDir scratch;
    const QString python = request.pythonLauncher;
    if (!python.isEmpty()) {
        const QString bootstrap = QDir(scratch.path()).filePath(QStringLiteral("run_probe.py"));
        QFile f(bootstrap);
        if (!scratch.isValid() || !f.open(QIODevice::WriteOnly) || f.write(probeBootstrap) < 0) {
            co_return Error{QStringLiteral("scratch_unwritable"),
                            VerifyReport::tr("tfsetup cannot write to the temporary folder; free some disk space."),
                            f.errorString()};
        }
        f.close();
        arguments = QStringList{bootstrap, request.probe} + arguments;
        program = python;
    }
    const ProcessResult run = co_await system.run(program, arguments, request.probeTimeout);
    const auto doc = QJsonDocument::fromJson(run.standardOutput);
    if (!run.started || run.timedOut || !doc.isObject()) {
        const QString culprit = probeCrashCulprit(run.standardError);
        const QString detail = run.error + u'\n' + QString::fromUtf8(run.standardError.right(4000));
        if (!run.started) {
            co_return Error{QStringLiteral("launcher_failed"),
                            VerifyReport::tr("The environment's launcher %1 could not be started: %2. Run tfsetup "
                                             "repair to rewrite it.")
                                .arg(program, run.error),
                            detail};
        }
        if (run.timedOut) {
            co_return Error{QStringLiteral("probe_timed_out"),
                            VerifyReport::tr("Loading the GPU libraries did not finish in time%1.")
                                .arg(culprit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(culprit)),
                            detail};
        }
        if (!culprit.isEmpty()) {
            co_return Error{QStringLiteral("probe_crashed"),
                            VerifyReport::tr("Loading %1 crashed the library probe: that file is damaged or not "
                                             "a genuine NVIDIA library. Run tfsetup repair.")
                                .arg(culprit),
                            detail};
        }
        co_return Error{QStringLiteral("probe_failed"),
                        VerifyReport::tr("The library probe gave no report (exit code %1).").arg(run.exitCode), detail};
    }
    co_return ProbeReport::fromJson(doc.object());
}

QCoro::Task<SmokeResult> runSmokeTest(SystemView &system, VerifyRequest request)
{
    ProcessResult failed;
    const QString python = pythonFor(system, request);
    if (python.isEmpty()) {
        failed.error = QStringLiteral("no Python launcher and no python on PATH");
        co_return SmokeResult::parse(failed, request.expectGpu);
    }
    QTemporaryDir scratch;
    const QString script = QDir(scratch.path()).filePath(QStringLiteral("verify_tf.py"));
    QFile f(script);
    if (!scratch.isValid() || !f.open(QIODevice::WriteOnly) || f.write(smokeTestScript()) <= 0) {
        failed.error = QStringLiteral("cannot write %1: %2").arg(script, f.errorString());
        co_return SmokeResult::parse(failed, request.expectGpu);
    }
    f.close();
    QStringList arguments{script};
    if (!request.expectGpu)
        arguments << QStringLiteral("--device") << QStringLiteral("/CPU:0");
    const ProcessResult run = co_await system.run(python, arguments, request.smokeTimeout);
    co_return SmokeResult::parse(run, request.expectGpu);
}

QString computeStepTitle(const QString &step)
{
    if (step == u"kernel")
        return VerifyReport::tr("GPU test kernel through the driver");
    if (step == u"cublas")
        return VerifyReport::tr("cuBLAS matrix multiplication on the GPU");
    if (step == u"cudnn")
        return VerifyReport::tr("cuDNN convolution on the GPU");
    return step;
}

QString computeSkipReason(const ComputeStep &s)
{
    if (s.reason == u"no_gpu")
        return VerifyReport::tr("no GPU found (%1)").arg(s.error);
    if (s.reason == u"driver_missing")
        return VerifyReport::tr("the NVIDIA driver library did not load");
    if (s.reason == u"library_missing")
        return VerifyReport::tr("the library did not load");
    if (s.reason == u"gpu_unusable")
        return VerifyReport::tr("the GPU could not be used");
    if (s.reason == u"timed_out")
        return VerifyReport::tr("an earlier step did not finish in time");
    return s.reason;
}

// The compute check's steps, one detail line each; when all computed, the summary and the
// explanation say so, so that a TensorFlow failure below is read as TensorFlow's, not the GPU's.
void addComputeSteps(VerifyLayer &l, const ProbeReport &probe)
{
    if (probe.compute.isEmpty())
        return;
    bool allPassed = true;
    for (const ComputeStep &s : probe.compute) {
        allPassed = allPassed && s.passed();
        QString line;
        if (s.passed())
            line = VerifyReport::tr("%1: correct").arg(computeStepTitle(s.step));
        else if (s.failed())
            line = VerifyReport::tr("%1: failed in %2: %3")
                       .arg(computeStepTitle(s.step), s.call.isEmpty() ? s.library : s.call, s.error);
        else
            line = VerifyReport::tr("%1: not run, %2").arg(computeStepTitle(s.step), computeSkipReason(s));
        l.details.append(line);
    }
    if (!allPassed)
        return;
    l.summary += QStringLiteral("; ")
        + VerifyReport::tr("the GPU computed correctly with the driver, cuBLAS and cuDNN");
    if (l.explanation.isEmpty()) {
        l.explanation = VerifyReport::tr("The GPU, its driver, cuBLAS and cuDNN computed correctly in this "
                                         "environment. If TensorFlow still does not use the GPU, the cause is in "
                                         "TensorFlow's own setup, not in these libraries.");
    }
}

VerifyLayer librariesLayer(const Result<ProbeReport> &probe, bool smokePassed)
{
    VerifyLayer l;
    l.id = QStringLiteral("libraries");
    l.title = VerifyReport::tr("Load the GPU libraries");
    if (!probe) {
        l.status = probe.error().code == u"probe_crashed" ? VerifyLayer::Status::Failed : VerifyLayer::Status::Warning;
        l.cause = probe.error().code;
        l.explanation = probe.error().message;
        l.details.append(probe.error().detail.trimmed());
        return l;
    }
    int loaded = 0;
    QStringList versions;
    for (const ProbedLibrary &p : probe->libraries) {
        loaded += p.loaded ? 1 : 0;
        if (!p.version.isEmpty())
            versions.append(QStringLiteral("%1 %2").arg(libraryStem(p.library.name), p.version));
        l.details.append(p.loaded ? QStringLiteral("%1 -> %2").arg(p.library.name, p.path)
                                  : QStringLiteral("%1: %2").arg(p.library.name, p.error));
    }
    l.summary = VerifyReport::tr("%1 of %2 libraries loaded").arg(loaded).arg(probe->libraries.size());
    if (!versions.isEmpty())
        l.summary += QStringLiteral(" (%1)").arg(versions.join(QStringLiteral(", ")));
    const ProbeFinding *first = nullptr;
    for (const char *severity : {"error", "warning"}) {
        for (const ProbeFinding &f : probe->findings) {
            if (!first && f.severity == QLatin1String(severity))
                first = &f;
        }
    }
    l.status = VerifyLayer::Status::Passed;
    if (first) {
        l.cause = first->code;
        l.explanation = first->message();
        l.status = first->severity == u"error" ? VerifyLayer::Status::Failed : VerifyLayer::Status::Warning;
        // TensorFlow found what it needs on its own (pip packages carry their own search path):
        // what the probe missed is worth knowing, not a failure.
        if (l.failed() && smokePassed) {
            l.status = VerifyLayer::Status::Warning;
            l.explanation += u' '
                + VerifyReport::tr("TensorFlow itself found working libraries, so this only matters "
                                   "to other programs that use this library path.");
        }
    }
    for (const ProbeFinding &f : probe->findings)
        l.details.append(f.message());
    addComputeSteps(l, *probe);
    return l;
}

QCoro::Task<VerifyReport> verifyEnvironment(SystemView &system, VerifyRequest request, Catalog catalog)
{
    VerifyReport report;
    report.tensorflow = request.tensorflow;
    const ProbeRequest probe = request.probeRequest(catalog);
    Result<ProbeReport> probed = Error{QStringLiteral("not_run"), {}, {}};
    if (!probe.libraries.isEmpty())
        probed = co_await runLibraryProbe(system, request, probe);
    report.smoke = co_await runSmokeTest(system, request);
    if (!report.smoke.tensorflowVersion.isEmpty())
        report.tensorflow = report.smoke.tensorflowVersion;
    if (!probe.libraries.isEmpty()) {
        if (probed)
            report.probe = probed.value();
        report.layers.append(librariesLayer(probed, report.smoke.produced && !report.smoke.firstFailure()));
    }
    report.layers += report.smoke.layers;
    co_return report;
}

// --- report ---

bool VerifyReport::passed() const
{
    return !layers.isEmpty() && !firstFailure();
}

const VerifyLayer *VerifyReport::layer(const QString &id) const
{
    for (const VerifyLayer &l : layers) {
        if (l.id == id)
            return &l;
    }
    return nullptr;
}

const VerifyLayer *VerifyReport::firstFailure() const
{
    for (const VerifyLayer &l : layers) {
        if (l.failed())
            return &l;
    }
    return nullptr;
}

QJsonObject VerifyReport::toJson() const
{
    QJsonArray list;
    for (const VerifyLayer &l : layers)
        list.append(l.toJson());
    QJsonObject o{{QStringLiteral("schema"), 1},
                  {QStringLiteral("passed"), passed()},
                  {QStringLiteral("tensorflow"), tensorflow},
                  {QStringLiteral("layers"), list}};
    if (const VerifyLayer *f = firstFailure())
        o.insert(QStringLiteral("first_failure"), f->id);
    if (probe)
        o.insert(QStringLiteral("probe"), probe->toJson());
    if (smoke.produced)
        o.insert(QStringLiteral("smoke_test"), smoke.document);
    return o;
}

QString VerifyReport::text() const
{
    QString out;
    for (const VerifyLayer &l : layers) {
        out += QStringLiteral("%1 %2").arg(layerMark(l.status), l.title);
        if (!l.summary.isEmpty())
            out += QStringLiteral(": ") + l.summary;
        out += u'\n';
        if (!l.explanation.isEmpty() && l.status != VerifyLayer::Status::Passed)
            out += QStringLiteral("    ") + l.explanation + u'\n';
    }
    if (passed())
        out += tr("The environment works: TensorFlow ran on the expected device.") + u'\n';
    else if (const VerifyLayer *f = firstFailure())
        out += tr("Verification failed at \"%1\". Details: tfsetup verify --json.").arg(f->title) + u'\n';
    return out;
}

} // namespace tfsetup::core
