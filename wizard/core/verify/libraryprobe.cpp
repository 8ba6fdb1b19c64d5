#include "verify/libraryprobe.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "util/jsonshape.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

#include <cstddef>
#include <cstdio>

namespace tfsetup::core {

namespace {

QJsonArray toArray(const QStringList &list)
{
    QJsonArray a;
    for (const QString &s : list)
        a.append(s);
    return a;
}

// The folder of a target path, in the view's spelling.
QString parentDir(const SystemView &system, const QString &path)
{
    const QString normalized = system.normalize(path);
    const qsizetype slash = normalized.lastIndexOf(u'/');
    return slash > 0 ? normalized.left(slash) : normalized;
}

// Signatures from the NVIDIA headers cited in probe.json. All return 0 on success.
using IntOutFn = int (*)(int *);
using SizeFn = size_t (*)();
using PropertyFn = int (*)(int, int *);
using MajorMinorFn = int (*)(unsigned *, unsigned *);

struct VersionAnswer {
    QString version;
    qint64 raw = -1;
    QString error;
};

VersionAnswer askVersion(SharedLibrary &library, const VersionQuery &query)
{
    VersionAnswer answer;
    const QByteArray symbol = query.symbol.toLatin1();
    void *address = library.resolve(symbol.constData());
    if (!address) {
        answer.error = QStringLiteral("%1 is not exported").arg(query.symbol);
        return answer;
    }
    if (query.call == u"int_out") {
        int value = 0;
        const int status = reinterpret_cast<IntOutFn>(address)(&value);
        if (status != 0) {
            answer.error = QStringLiteral("%1 returned status %2").arg(query.symbol).arg(status);
            return answer;
        }
        answer.raw = value;
        answer.version = decodeVersion(query.encoding, value);
    } else if (query.call == u"size_t") {
        const size_t value = reinterpret_cast<SizeFn>(address)();
        answer.raw = qint64(value);
        answer.version = decodeVersion(query.encoding, qint64(value));
    } else if (query.call == u"property") {
        // libraryPropertyType: MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2.
        int parts[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i) {
            const int status = reinterpret_cast<PropertyFn>(address)(i, &parts[i]);
            if (status != 0) {
                answer.error = QStringLiteral("%1(%2) returned status %3").arg(query.symbol).arg(i).arg(status);
                return answer;
            }
        }
        answer.raw = qint64(parts[0]) * 10000 + parts[1] * 100 + parts[2];
        answer.version = QStringLiteral("%1.%2.%3").arg(parts[0]).arg(parts[1]).arg(parts[2]);
    } else if (query.call == u"major_minor_out") {
        unsigned major = 0;
        unsigned minor = 0;
        const int status = reinterpret_cast<MajorMinorFn>(address)(&major, &minor);
        if (status != 0) {
            answer.error = QStringLiteral("%1 returned status %2").arg(query.symbol).arg(status);
            return answer;
        }
        answer.raw = qint64(major) * 1000 + minor;
        answer.version = QStringLiteral("%1.%2").arg(major).arg(minor);
    } else {
        answer.error = QStringLiteral("unknown call kind %1").arg(query.call);
    }
    return answer;
}

} // namespace

QString sonameMajor(const QString &fileName)
{
    static const QRegularExpression soname(QStringLiteral("\\.so\\.(\\d+)"));
    const auto m = soname.match(QFileInfo(fileName).fileName());
    return m.hasMatch() ? m.captured(1) : QString();
}

QString decodeVersion(const QString &encoding, qint64 raw)
{
    if (raw < 0)
        return {};
    if (encoding == u"cuda")
        return QStringLiteral("%1.%2").arg(raw / 1000).arg((raw % 1000) / 10);
    if (encoding == u"cudnn") {
        // cuDNN 9 moved to five digits (90100 = 9.1.0); up to 8 it was four (8907 = 8.9.7).
        const qint64 majorUnit = raw >= 10000 ? 10000 : 1000;
        return QStringLiteral("%1.%2.%3").arg(raw / majorUnit).arg((raw % majorUnit) / 100).arg(raw % 100);
    }
    return QString::number(raw);
}

// --- request ---

ProbeRequest ProbeRequest::forVersions(const Catalog &catalog, const QString &cuda, const QString &cudnn,
                                       const QString &os)
{
    ProbeRequest r;
    r.cuda = cuda;
    r.cudnn = cudnn;
    if (!cuda.isEmpty()) {
        for (const QString &f : catalog.cudaLibraries(cuda, os))
            r.libraries.append({f, QStringLiteral("cuda"), {}});
    }
    if (!cudnn.isEmpty()) {
        // The catalog lists the library TensorFlow opens first, then the parts it loads itself.
        const QStringList files = catalog.cudnnLibraries(cudnn, os);
        for (qsizetype i = 0; i < files.size(); ++i)
            r.libraries.append({files[i], QStringLiteral("cudnn"), i == 0 ? QString() : files.first()});
    }
    // Without CUDA there is no driver library to open either.
    if (!r.libraries.isEmpty()) {
        for (const QString &f : catalog.driverLibraries(os))
            r.libraries.append({f, QStringLiteral("driver"), {}});
    }
    return r;
}

QStringList ProbeRequest::toArguments() const
{
    QStringList args;
    for (const ProbeLibrary &l : libraries) {
        if (!l.parent.isEmpty())
            args << QStringLiteral("--sublibrary") << l.parent + u'>' + l.name;
        else
            args << QStringLiteral("--library") << l.group + u':' + l.name;
    }
    for (const QString &d : ownDirs)
        args << QStringLiteral("--own-dir") << d;
    if (!cuda.isEmpty())
        args << QStringLiteral("--cuda") << cuda;
    if (!cudnn.isEmpty())
        args << QStringLiteral("--cudnn") << cudnn;
    if (compute)
        args << QStringLiteral("--compute");
    return args;
}

Result<ProbeRequest> ProbeRequest::fromArguments(const QStringList &arguments)
{
    // Options keep their order on the command line, which is the order the report lists.
    ProbeRequest r;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &option = arguments[i];
        if (option == u"--compute") { // the one option without a value
            r.compute = true;
            continue;
        }
        if (i + 1 >= arguments.size()) {
            return Error{QStringLiteral("usage"),
                         QCoreApplication::translate("Probe", "The option %1 needs a value.").arg(option),
                         {}};
        }
        const QString value = arguments[++i];
        if (option == u"--library") {
            // GROUP:NAME; a bare NAME is an extra library.
            const qsizetype colon = value.indexOf(u':');
            if (colon > 0)
                r.libraries.append({value.mid(colon + 1), value.left(colon), {}});
            else
                r.libraries.append({value, QStringLiteral("extra"), {}});
        } else if (option == u"--sublibrary") {
            // PARENT>NAME
            const qsizetype gt = value.indexOf(u'>');
            if (gt <= 0) {
                return Error{
                    QStringLiteral("usage"),
                    QCoreApplication::translate("Probe", "--sublibrary takes PARENT>NAME, not \"%1\".").arg(value),
                    {}};
            }
            QString group = QStringLiteral("extra");
            for (const ProbeLibrary &l : std::as_const(r.libraries)) {
                if (l.name == value.left(gt))
                    group = l.group;
            }
            r.libraries.append({value.mid(gt + 1), group, value.left(gt)});
        } else if (option == u"--own-dir") {
            r.ownDirs.append(value);
        } else if (option == u"--cuda") {
            r.cuda = value;
        } else if (option == u"--cudnn") {
            r.cudnn = value;
        } else {
            return Error{
                QStringLiteral("usage"), QCoreApplication::translate("Probe", "Unknown option %1.").arg(option), {}};
        }
    }
    return r;
}

// --- results ---

QJsonObject ProbedLibrary::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), library.name},
                  {QStringLiteral("group"), library.group},
                  {QStringLiteral("loaded"), loaded}};
    if (!library.parent.isEmpty())
        o.insert(QStringLiteral("parent"), library.parent);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    if (!path.isEmpty())
        o.insert(QStringLiteral("path"), path);
    if (!version.isEmpty())
        o.insert(QStringLiteral("version"), version);
    if (versionRaw >= 0)
        o.insert(QStringLiteral("version_raw"), versionRaw);
    if (!versionError.isEmpty())
        o.insert(QStringLiteral("version_error"), versionError);
    if (!otherCopies.isEmpty())
        o.insert(QStringLiteral("other_copies"), toArray(otherCopies));
    return o;
}

ProbedLibrary ProbedLibrary::fromJson(const QJsonObject &o)
{
    ProbedLibrary l;
    l.library = {textOf(o, "name"), textOf(o, "group"), textOf(o, "parent")};
    l.loaded = o.value(QLatin1String("loaded")).toBool();
    l.error = textOf(o, "error");
    l.path = textOf(o, "path");
    l.version = textOf(o, "version");
    l.versionRaw = o.value(QLatin1String("version_raw")).toInteger(-1);
    l.versionError = textOf(o, "version_error");
    l.otherCopies = textsOf(o.value(QLatin1String("other_copies")));
    return l;
}

QString ProbeFinding::message() const
{
    if (code == u"library_missing") {
        if (!path.isEmpty()) {
            return tr("%1 is in %2 but could not be loaded: %3. A library it depends on is probably missing, or "
                      "the file is damaged; run tfsetup repair.")
                .arg(library, path, other);
        }
        return tr("%1 could not be loaded: %2. TensorFlow will not use the GPU without it. Run tfsetup repair, "
                  "or add the folder that holds it to the environment's library path.")
            .arg(library, other);
    }
    if (code == u"sublibrary_missing") {
        return tr("%1, a part of %2, could not be loaded: %3. cuDNN loads its parts only when it needs them, so "
                  "TensorFlow starts but convolutions fail. Put the complete cuDNN set in one folder (tfsetup "
                  "repair does this).")
            .arg(library, expected, other);
    }
    if (code == u"shadowed") {
        return tr("%1 was loaded from %2, not from the environment's own copy %3. Remove the other folder from "
                  "the library path (LD_LIBRARY_PATH or PATH), or start TensorFlow through the environment's "
                  "launcher.")
            .arg(library, path, other);
    }
    if (code == u"version_below_build") {
        return tr("%1 (%2) is version %3, older than the %4 this TensorFlow was built with. Install version %4 "
                  "or newer of it (tfsetup repair).")
            .arg(library, path, version, expected);
    }
    if (code == u"version_name_mismatch") {
        return tr("%1 at %2 says it is version %3, but its name promises version %4: this file is not what its "
                  "name says. Delete it and let tfsetup repair put the genuine library back.")
            .arg(library, path, version, expected);
    }
    if (code == u"driver_missing") {
        return tr("The NVIDIA driver library %1 could not be loaded: %2. Install the NVIDIA driver; without it "
                  "TensorFlow can only use the processor.")
            .arg(library, other);
    }
    if (code == u"driver_too_old") {
        return tr("The NVIDIA driver supports CUDA up to %1, but this TensorFlow needs CUDA %2. Update the NVIDIA "
                  "driver.")
            .arg(version, expected);
    }
    if (code == u"driver_older_than_cuda") {
        return tr("The NVIDIA driver supports CUDA %1, older than the CUDA %2 this TensorFlow was built with. It "
                  "usually still works (CUDA minor-version compatibility), but code compiled at run time can "
                  "fail; update the driver if it does.")
            .arg(version, expected);
    }
    if (code == u"gpu_kernel_failed") {
        return tr("The GPU could not run a small test computation through the NVIDIA driver %1 (%2). TensorFlow "
                  "cannot compute on this GPU either. Restart the computer; if that does not help, update or "
                  "reinstall the NVIDIA driver.")
            .arg(library, other);
    }
    if (code == u"cublas_failed") {
        return tr("%1 loaded, but a matrix multiplication with it on the GPU failed (%2). TensorFlow's dense "
                  "layers will fail the same way. Run tfsetup repair to reinstall it; if that does not help, "
                  "update the NVIDIA driver.")
            .arg(library, other);
    }
    if (code == u"cudnn_failed") {
        return tr("%1 loaded, but a convolution with it on the GPU failed (%2). TensorFlow's convolution layers "
                  "will fail the same way. Run tfsetup repair so that all cuDNN parts are one version that suits "
                  "this CUDA; if that does not help, update the NVIDIA driver.")
            .arg(library, other);
    }
    if (code == u"gpu_not_found") {
        return tr("The NVIDIA driver %1 loaded but reports no usable GPU (%2), so nothing was computed on a GPU. "
                  "TensorFlow will use the processor only.")
            .arg(library, other);
    }
    if (code == u"other_copies") {
        return tr("%1 was loaded from %2; other copies exist: %3. Another program's library path may pick a "
                  "different one.")
            .arg(library, path, other);
    }
    return code;
}

QJsonObject ProbeFinding::toJson() const
{
    QJsonObject o{
        {QStringLiteral("code"), code}, {QStringLiteral("severity"), severity}, {QStringLiteral("library"), library}};
    if (!path.isEmpty())
        o.insert(QStringLiteral("path"), path);
    if (!other.isEmpty())
        o.insert(QStringLiteral("other"), other);
    if (!version.isEmpty())
        o.insert(QStringLiteral("version"), version);
    if (!expected.isEmpty())
        o.insert(QStringLiteral("expected"), expected);
    return o;
}

ProbeFinding ProbeFinding::fromJson(const QJsonObject &o)
{
    ProbeFinding f;
    f.code = textOf(o, "code");
    f.severity = textOf(o, "severity");
    f.library = textOf(o, "library");
    f.path = textOf(o, "path");
    f.other = textOf(o, "other");
    f.version = textOf(o, "version");
    f.expected = textOf(o, "expected");
    return f;
}

const ComputeStep *ProbeReport::computeStep(const QString &step) const
{
    for (const ComputeStep &s : compute) {
        if (s.step == step)
            return &s;
    }
    return nullptr;
}

const ProbedLibrary *ProbeReport::library(const QString &name) const
{
    for (const ProbedLibrary &l : libraries) {
        if (l.library.name == name)
            return &l;
    }
    return nullptr;
}

const ProbeFinding *ProbeReport::finding(const QString &code, const QString &library) const
{
    for (const ProbeFinding &f : findings) {
        if (f.code == code && (library.isEmpty() || f.library == library))
            return &f;
    }
    return nullptr;
}

bool ProbeReport::has(const QString &code, const QString &library) const
{
    return finding(code, library) != nullptr;
}

bool ProbeReport::hasErrors() const
{
    for (const ProbeFinding &f : findings) {
        if (f.severity == u"error")
            return true;
    }
    return false;
}

QJsonObject ProbeReport::toJson() const
{
    QJsonArray libs;
    for (const ProbedLibrary &l : libraries)
        libs.append(l.toJson());
    QJsonArray found;
    for (const ProbeFinding &f : findings)
        found.append(f.toJson());
    QJsonObject build;
    if (!request.cuda.isEmpty())
        build.insert(QStringLiteral("cuda"), request.cuda);
    if (!request.cudnn.isEmpty())
        build.insert(QStringLiteral("cudnn"), request.cudnn);
    QJsonObject o{{QStringLiteral("schema"), 1},
                  {QStringLiteral("tool"), QStringLiteral("tfsetup-probe")},
                  {QStringLiteral("os"), os},
                  {QStringLiteral("search_path"), toArray(searchPath)},
                  {QStringLiteral("own_dirs"), toArray(request.ownDirs)},
                  {QStringLiteral("build"), build},
                  {QStringLiteral("libraries"), libs},
                  {QStringLiteral("findings"), found}};
    if (request.compute) {
        QJsonArray steps;
        for (const ComputeStep &s : compute)
            steps.append(s.toJson());
        o.insert(QStringLiteral("compute"), steps);
    }
    return o;
}

Result<ProbeReport> ProbeReport::fromJson(const QJsonObject &o)
{
    if (textOf(o, "tool") != u"tfsetup-probe" || !o.value(QLatin1String("libraries")).isArray()) {
        return Error{QStringLiteral("probe_output_malformed"),
                     QCoreApplication::translate("Probe",
                                                 "The library probe answered with something that is not "
                                                 "its report; reinstall tfsetup."),
                     QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)).left(2000)};
    }
    ProbeReport r;
    r.os = textOf(o, "os");
    r.searchPath = textsOf(o.value(QLatin1String("search_path")));
    r.request.ownDirs = textsOf(o.value(QLatin1String("own_dirs")));
    const QJsonObject build = o.value(QLatin1String("build")).toObject();
    r.request.cuda = textOf(build, "cuda");
    r.request.cudnn = textOf(build, "cudnn");
    for (const QJsonValue &v : o.value(QLatin1String("libraries")).toArray()) {
        r.libraries.append(ProbedLibrary::fromJson(v.toObject()));
        r.request.libraries.append(r.libraries.last().library);
    }
    for (const QJsonValue &v : o.value(QLatin1String("findings")).toArray())
        r.findings.append(ProbeFinding::fromJson(v.toObject()));
    r.request.compute = o.contains(QLatin1String("compute"));
    for (const QJsonValue &v : o.value(QLatin1String("compute")).toArray())
        r.compute.append(ComputeStep::fromJson(v.toObject()));
    return r;
}

// --- the probe ---

namespace {

void judge(const SystemView &system, const ProbeRequest &request, const VersionQuery *query, const ProbedLibrary &p,
           QList<ProbeFinding> &findings)
{
    const QString &name = p.library.name;
    if (!p.loaded) {
        QString ownCopy;
        for (const QString &dir : request.ownDirs) {
            if (system.exists(SystemView::join(dir, name))) {
                ownCopy = SystemView::join(dir, name);
                break;
            }
        }
        if (p.library.group == u"driver")
            findings.append({QStringLiteral("driver_missing"), QStringLiteral("error"), name, {}, p.error, {}, {}});
        else if (!p.library.parent.isEmpty())
            findings.append({QStringLiteral("sublibrary_missing"),
                             QStringLiteral("error"),
                             name,
                             ownCopy,
                             p.error,
                             {},
                             p.library.parent});
        else
            findings.append(
                {QStringLiteral("library_missing"), QStringLiteral("error"), name, ownCopy, p.error, {}, {}});
        return;
    }

    if (!request.ownDirs.isEmpty() && !p.path.isEmpty()) {
        const QString loadedDir = system.identity(parentDir(system, p.path));
        bool fromOwnDir = false;
        QString ownCopy;
        for (const QString &dir : request.ownDirs) {
            if (system.identity(dir) == loadedDir)
                fromOwnDir = true;
            else if (ownCopy.isEmpty() && system.exists(SystemView::join(dir, name)))
                ownCopy = SystemView::join(dir, name);
        }
        // A copy outside the environment is only a problem when the environment has its own.
        if (!fromOwnDir && !ownCopy.isEmpty() && system.identity(ownCopy) != system.identity(p.path))
            findings.append(
                {QStringLiteral("shadowed"), QStringLiteral("warning"), name, p.path, ownCopy, p.version, {}});
    } else if (!p.otherCopies.isEmpty()) {
        findings.append({QStringLiteral("other_copies"),
                         QStringLiteral("info"),
                         name,
                         p.path,
                         p.otherCopies.join(QStringLiteral(", ")),
                         p.version,
                         {}});
    }

    if (!query || p.version.isEmpty())
        return;
    const QString promised = sonameMajor(name);
    if (query->compare != u"driver" && !promised.isEmpty() && version::major(p.version) != promised) {
        findings.append(
            {QStringLiteral("version_name_mismatch"), QStringLiteral("error"), name, p.path, {}, p.version, promised});
    }
    const QString built = query->compare == u"cudnn" ? request.cudnn : request.cuda;
    if (query->compare.isEmpty() || built.isEmpty())
        return;
    if (query->compare == u"driver") {
        if (version::less(version::major(p.version), version::major(built)))
            findings.append(
                {QStringLiteral("driver_too_old"), QStringLiteral("error"), name, p.path, {}, p.version, built});
        else if (version::less(version::majorMinor(p.version), version::majorMinor(built)))
            findings.append({QStringLiteral("driver_older_than_cuda"),
                             QStringLiteral("warning"),
                             name,
                             p.path,
                             {},
                             p.version,
                             built});
    } else if (version::less(version::majorMinor(p.version), version::majorMinor(built))) {
        findings.append(
            {QStringLiteral("version_below_build"), QStringLiteral("error"), name, p.path, {}, p.version, built});
    }
}

// The compute check uses the driver library, the main cuBLAS and the main cuDNN (its shim loads
// the parts), the first of each the probe loaded.
void noteForCompute(ComputeLibraries &c, const ProbeLibrary &library, const std::shared_ptr<SharedLibrary> &loaded)
{
    if (!library.parent.isEmpty())
        return;
    const QString stem = libraryStem(library.name);
    if (!c.driver && (stem == u"cuda" || stem == u"nvcuda")) {
        c.driver = loaded;
        c.driverName = library.name;
    } else if (!c.cublas && stem == u"cublas") {
        c.cublas = loaded;
        c.cublasName = library.name;
    } else if (!c.cudnn && stem == u"cudnn") {
        c.cudnn = loaded;
        c.cudnnName = library.name;
    }
}

void computeOnGpu(ProbeReport &report, const ComputeLibraries &libraries, const ComputeTable &table)
{
    if (table.isEmpty()) {
        for (const char *step : {"kernel", "cublas", "cudnn"}) {
            ComputeStep s;
            s.step = QString::fromLatin1(step);
            s.status = QStringLiteral("skipped");
            s.reason = QStringLiteral("no_table");
            report.compute.append(s);
        }
        return;
    }
    // Program data beside probe.json, read from the resources like it, not from the machine.
    QByteArray ptx;
    QFile kernel(QStringLiteral(":/resources/verify/") + table.kernelFile);
    if (kernel.open(QIODevice::ReadOnly))
        ptx = kernel.readAll();
    report.compute = runComputeChecksWithin(libraries, table, ptx, &report.computeAbandoned);
    for (const ComputeStep &s : std::as_const(report.compute)) {
        if (s.reason == u"no_gpu" && s.step == u"kernel")
            report.findings.append(
                {QStringLiteral("gpu_not_found"), QStringLiteral("info"), s.library, {}, s.error, {}, {}});
        if (!s.failed())
            continue;
        const QString code = s.step == u"kernel" ? QStringLiteral("gpu_kernel_failed")
            : s.step == u"cublas"                ? QStringLiteral("cublas_failed")
                                                 : QStringLiteral("cudnn_failed");
        const QString other = s.call.isEmpty() ? s.error : s.call + u": " + s.error;
        QString path;
        if (const ProbedLibrary *l = report.library(s.library))
            path = l->path;
        report.findings.append({code, QStringLiteral("error"), s.library, path, other, {}, {}});
    }
}

} // namespace

ProbeReport probeLibraries(SystemView &system, const ProbeRequest &request, const VersionQueries &queries,
                           const std::function<void(const QString &)> &beforeLoad)
{
    ProbeReport report;
    report.os = osFamilyName(system.os());
    report.request = request;
    report.searchPath = system.pathList(system.os() == OsFamily::Windows ? QStringLiteral("PATH")
                                                                         : QStringLiteral("LD_LIBRARY_PATH"));
    // Loaded libraries stay loaded while the probe runs, as in TensorFlow: later sub-libraries
    // resolve against the earlier ones.
    std::vector<std::shared_ptr<SharedLibrary>> loaded;
    ComputeLibraries forCompute;
    for (const ProbeLibrary &library : request.libraries) {
        ProbedLibrary p;
        p.library = library;
        if (beforeLoad)
            beforeLoad(library.name);
        LibraryLoad load = system.loadLibrary(library.name);
        const VersionQuery *query = queries.forLibrary(library.name);
        if (load.library) {
            p.loaded = true;
            p.path = load.library->path();
            // Sub-libraries have no version call of their own; the parent speaks for the set.
            if (query && library.parent.isEmpty()) {
                const VersionAnswer answer = askVersion(*load.library, *query);
                p.version = answer.version;
                p.versionRaw = answer.raw;
                p.versionError = answer.error;
            }
            std::shared_ptr<SharedLibrary> kept = std::move(load.library);
            noteForCompute(forCompute, library, kept);
            loaded.push_back(std::move(kept));
        } else {
            p.error = load.error;
        }
        // Every other copy the loader could have found instead: the search path, then the
        // environment's own folders.
        QSet<QString> seen;
        if (!p.path.isEmpty())
            seen.insert(system.identity(p.path));
        for (const QString &dir : report.searchPath + request.ownDirs) {
            const QString candidate = SystemView::join(dir, library.name);
            if (!system.isFile(candidate))
                continue;
            const QString id = system.identity(candidate);
            if (seen.contains(id))
                continue;
            seen.insert(id);
            p.otherCopies.append(system.normalize(candidate));
        }
        judge(system, request, query, p, report.findings);
        report.libraries.append(p);
    }
    if (request.compute)
        computeOnGpu(report, forCompute, queries.compute());
    return report;
}

ProbeOutcome runProbeHelper(SystemView &system, const Knowledge &knowledge, const QStringList &arguments)
{
    ProbeOutcome outcome;
    auto request = ProbeRequest::fromArguments(arguments);
    if (!request) {
        outcome.exitCode = 2;
        outcome.usageError = request.error().message;
        return outcome;
    }
    if (request->libraries.isEmpty() && (!request->cuda.isEmpty() || !request->cudnn.isEmpty())) {
        // Only versions given: the names come from the catalog, as for a plan.
        const ProbeRequest derived = ProbeRequest::forVersions(knowledge.catalog, request->cuda, request->cudnn,
                                                               osFamilyName(system.os()));
        request->libraries = derived.libraries;
    }
    if (request->libraries.isEmpty()) {
        outcome.exitCode = 2;
        outcome.usageError = QCoreApplication::translate("Probe",
                                                         "Name the libraries to load (--library GROUP:NAME) "
                                                         "or the versions TensorFlow was built with "
                                                         "(--cuda VERSION --cudnn VERSION).");
        return outcome;
    }
    const ProbeReport report = probeLibraries(system, *request, knowledge.versionQueries, [](const QString &name) {
        const QByteArray line = "tfsetup-probe: loading " + name.toUtf8() + '\n';
        fwrite(line.constData(), 1, size_t(line.size()), stderr);
        fflush(stderr);
    });
    outcome.json = QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented);
    outcome.exitCode = report.hasErrors() ? 1 : 0;
    outcome.exitWithoutCleanup = report.computeAbandoned;
    return outcome;
}

QString probeCrashCulprit(const QByteArray &standardError)
{
    static const QByteArray marker("tfsetup-probe: loading ");
    const qsizetype at = standardError.lastIndexOf(marker);
    if (at < 0)
        return {};
    const qsizetype start = at + marker.size();
    const qsizetype end = standardError.indexOf('\n', start);
    return QString::fromUtf8(standardError.mid(start, end < 0 ? -1 : end - start)).trimmed();
}

} // namespace tfsetup::core
