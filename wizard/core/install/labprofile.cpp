#include "install/labprofile.h"

#include "install/launchers.h"
#include "sources/bundle.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/names.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>

namespace tfsetup::core {

namespace {

// A NUL ends a path where the system reads it; a line break splits a log line or a launcher.
bool hasControlCharacter(const QString &text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; });
}

// Every field a profile may hold, with its type and size (util/jsonshape.h).
const JsonShape &profileShape()
{
    using S = JsonShape;
    static const S name = S::text(maxPathNameBytes).where([](const QJsonValue &v) {
        return v.toString().isEmpty() || isSafePathName(v.toString())
            ? QString()
            : LabProfile::tr("must be a plain name (letters, digits, . _ + -, not starting with a dot, no "
                             "slashes)");
    });
    // Jupyter lists only kernels named [a-z0-9._-]: another name would be registered and never seen.
    static const S kernelName = S::text(100).where([](const QJsonValue &v) {
        return v.toString().isEmpty() || isJupyterKernelName(v.toString())
            ? QString()
            : LabProfile::tr("must be a name Jupyter lists: lower-case letters a-z, digits, . _ - only");
    });
    static const S strings = S::list(S::text(4096), 1000);
    static const S folder = S::text(4096).where([](const QJsonValue &v) {
        return hasControlCharacter(v.toString())
            ? LabProfile::tr("must be a folder without control characters (no line break, no NUL)")
            : QString();
    });
    static const S shape = S::object({
        S::required(QStringLiteral("schema"), S::integer(1, 1)),
        S::optional(QStringLiteral("title"), S::text(1000)),
        S::required(QStringLiteral("environment"), name),
        S::required(QStringLiteral("installFolder"), folder),
        S::required(QStringLiteral("plan"),
                    S::object({S::required(QStringLiteral("route"), S::text(100)),
                               S::optional(QStringLiteral("layout"), S::text(100)),
                               S::optional(QStringLiteral("tensorflow"), S::text(100)),
                               S::optional(QStringLiteral("package"), S::text(200)),
                               S::optional(QStringLiteral("python"), S::text(100)),
                               S::optional(QStringLiteral("cuda"), S::text(100)),
                               S::optional(QStringLiteral("cudnn"), S::text(100)),
                               S::optional(QStringLiteral("requirements"), strings)})),
        S::optional(QStringLiteral("interpreter"), S::text(4096)),
        S::optional(QStringLiteral("mirrors"),
                    S::object({S::optional(QStringLiteral("pypi"), S::list(S::text(4096), 64)),
                               S::optional(QStringLiteral("trustedHosts"), S::list(S::text(1000), 64)),
                               S::optional(QStringLiteral("nvidia"), S::text(4096))})),
        S::optional(QStringLiteral("cache"), folder),
        S::optional(QStringLiteral("proxy"), S::text(4096)),
        S::optional(QStringLiteral("jupyter"), S::anyOf({S::text(100), S::flag()}).nullable()),
        S::optional(QStringLiteral("kernel"),
                    S::object({S::optional(QStringLiteral("name"), kernelName),
                               S::optional(QStringLiteral("displayName"), S::text(1000)),
                               S::optional(QStringLiteral("register"), S::flag())})),
        S::optional(QStringLiteral("desktopEntry"), S::flag()),
        S::optional(QStringLiteral("requirementsLock"), S::text(4096)),
        S::optional(QStringLiteral("gpus"), GpuChoice::jsonShape()),
    });
    return shape;
}

} // namespace

Result<LabProfile> LabProfile::load(const QString &path)
{
    auto json = readJsonObjectFile(path, tr("The lab profile"));
    if (!json) {
        return Error{QStringLiteral("profile_unreadable"),
                     tr("The lab profile %1 cannot be read or is not valid JSON. Ask the lab administrator "
                        "for a working copy.")
                             .arg(path)
                         + u' ' + json.error().message,
                     json.error().detail};
    }
    return fromJson(*json, path);
}

Result<LabProfile> LabProfile::fromJson(const QJsonObject &json, const QString &path)
{
    LabProfile p;
    p.path = path;
    if (json.value(QStringLiteral("schema")).toInt() != 1) {
        return Error{QStringLiteral("profile_schema"),
                     tr("The lab profile %1 is for another version of tfsetup. Update tfsetup.").arg(path),
                     {}};
    }
    if (const auto problem = profileShape().check(json)) {
        return JsonShape::error(QStringLiteral("profile_incomplete"), tr("The lab profile %1").arg(path), *problem,
                                tr("Correct the profile, or ask the lab administrator for a working copy."));
    }
    p.title = json.value(QStringLiteral("title")).toString();
    p.environment = json.value(QStringLiteral("environment")).toString();
    p.installFolder = json.value(QStringLiteral("installFolder")).toString();
    const QJsonObject plan = json.value(QStringLiteral("plan")).toObject();
    p.route = plan.value(QStringLiteral("route")).toString();
    p.layout = plan.value(QStringLiteral("layout")).toString(QStringLiteral("portable"));
    p.tensorflow = plan.value(QStringLiteral("tensorflow")).toString();
    p.package = plan.value(QStringLiteral("package")).toString();
    p.python = plan.value(QStringLiteral("python")).toString();
    p.cuda = plan.value(QStringLiteral("cuda")).toString();
    p.cudnn = plan.value(QStringLiteral("cudnn")).toString();
    p.requirements = textsOf(plan.value(QStringLiteral("requirements")));
    p.interpreter = json.value(QStringLiteral("interpreter")).toString();
    const QJsonObject mirrors = json.value(QStringLiteral("mirrors")).toObject();
    p.indexUrls = textsOf(mirrors.value(QStringLiteral("pypi")));
    p.trustedHosts = textsOf(mirrors.value(QStringLiteral("trustedHosts")));
    p.nvidiaMirror = mirrors.value(QStringLiteral("nvidia")).toString();
    p.cacheFolder = json.value(QStringLiteral("cache")).toString();
    p.proxy = json.value(QStringLiteral("proxy")).toString();
    const JupyterSettings &jupyter = JupyterSettings::builtIn();
    const QJsonValue front = json.value(QStringLiteral("jupyter"));
    if (front.isUndefined() || front.isNull() || front == QJsonValue(true)) {
        p.jupyter = jupyter.defaultFrontEnd;
    } else if (front.isString() && jupyter.frontEnd(front.toString())) {
        p.jupyter = front.toString();
    } else if (front != QJsonValue(false)) {
        QStringList names;
        for (const JupyterSettings::FrontEnd &f : jupyter.frontEnds)
            names.append(u'"' + f.name + u'"');
        return Error{QStringLiteral("profile_jupyter_unknown"),
                     tr("The lab profile %1 asks for the Jupyter front end %2; use one of %3, true or false.")
                         .arg(path,
                              QString::fromUtf8(QJsonDocument(QJsonArray{front}).toJson(QJsonDocument::Compact))
                                  .mid(1)
                                  .chopped(1),
                              names.join(QStringLiteral(", "))),
                     {}};
    }
    const QJsonObject kernel = json.value(QStringLiteral("kernel")).toObject();
    p.kernelName = kernel.value(QStringLiteral("name")).toString();
    p.kernelDisplayName = kernel.value(QStringLiteral("displayName")).toString();
    p.registerKernel = kernel.value(QStringLiteral("register")).toBool(true);
    p.desktopEntry = json.value(QStringLiteral("desktopEntry")).toBool(true);
    p.requirementsLockFile = json.value(QStringLiteral("requirementsLock")).toString();
    p.gpus = GpuChoice::fromJson(json.value(QStringLiteral("gpus")));

    static const QRegularExpression plainName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._+-]*$"));
    if (p.environment.isEmpty() || !plainName.match(p.environment).hasMatch() || p.installFolder.isEmpty()
        || p.route.isEmpty() || (p.requirements.isEmpty() && p.interpreter != u"none")) {
        return Error{QStringLiteral("profile_incomplete"),
                     tr("The lab profile %1 needs \"environment\" (letters, digits, . _ + -), \"installFolder\", "
                        "\"plan.route\" and \"plan.requirements\".")
                         .arg(path),
                     {}};
    }
    return p;
}

namespace {

// ${VAR} replaced in one pass (a value holding "${…}" is not expanded again); names of
// variables that are unset or empty are collected.
QString expandVariables(const SystemView &system, const QString &text, QStringList *undefined)
{
    static const QRegularExpression variable(QStringLiteral("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    QString out;
    qsizetype at = 0;
    for (auto it = variable.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += text.mid(at, m.capturedStart() - at);
        const QString value = system.env(m.captured(1));
        if (value.isEmpty() && undefined)
            undefined->append(m.captured(1));
        out += value;
        at = m.capturedEnd();
    }
    out += text.mid(at);
    if (out == u"~" || out.startsWith(QStringLiteral("~/")))
        out = system.homeDir() + out.mid(1);
    return system.normalize(out);
}

bool isAbsoluteTargetPath(const SystemView &system, const QString &path)
{
    if (system.os() == OsFamily::Windows) {
        return (path.size() >= 3 && path.at(0).isLetter() && path.at(1) == u':'
                && (path.at(2) == u'/' || path.at(2) == u'\\'))
            || path.startsWith(QStringLiteral("//")) || path.startsWith(QStringLiteral("\\\\"));
    }
    return path.startsWith(u'/');
}

} // namespace

QString LabProfile::expand(const SystemView &system, const QString &text)
{
    return expandVariables(system, text, nullptr);
}

Result<QString> LabProfile::expandFolder(const SystemView &system, const QString &text, const QString &field)
{
    QStringList undefined;
    const QString out = expandVariables(system, text, &undefined);
    if (!undefined.isEmpty()) {
        undefined.removeDuplicates();
        return Error{QStringLiteral("profile_variable_undefined"),
                     tr("The lab profile's \"%1\" uses %2, which is not set on this computer. Set it, or change "
                        "\"%1\" in the profile.")
                         .arg(field, QStringLiteral("${") + undefined.join(QStringLiteral("}, ${")) + u'}'),
                     text};
    }
    if (hasControlCharacter(out)) {
        return Error{QStringLiteral("profile_folder_invalid"),
                     tr("The lab profile's \"%1\" becomes a folder with a control character in it (a line break?), "
                        "from %2. Correct \"%1\" in the profile, or the variable it uses.")
                         .arg(field, text),
                     out};
    }
    if (out.isEmpty() || !isAbsoluteTargetPath(system, out)) {
        return Error{QStringLiteral("profile_folder_relative"),
                     tr("The lab profile's \"%1\" is %2, which is not a full path. Give a full path (it may start "
                        "with ${HOME} or ~).")
                         .arg(field, text),
                     out};
    }
    return out;
}

Result<InstallSpec> LabProfile::toSpec(const SystemView &system, const QString &prefixOverride) const
{
    InstallSpec spec;
    spec.name = environment;
    if (prefixOverride.isEmpty()) {
        auto folder = expandFolder(system, installFolder, QStringLiteral("installFolder"));
        if (!folder)
            return folder.error();
        spec.prefix = *folder;
    } else {
        spec.prefix = system.normalize(prefixOverride);
        if (!isAbsoluteTargetPath(system, spec.prefix)) {
            return Error{QStringLiteral("prefix_relative"),
                         tr("The install folder %1 is not a full path. Give a full path.").arg(prefixOverride),
                         prefixOverride};
        }
    }
    spec.route = route;
    spec.layout = layout;
    spec.tensorflow = tensorflow;
    spec.package = package;
    spec.python = python;
    spec.cuda = cuda;
    spec.cudnn = cudnn;
    spec.requirements = requirements;
    spec.jupyter = jupyter;
    spec.kernelName = kernelName;
    spec.kernelDisplayName = kernelDisplayName;
    spec.registerKernel = registerKernel;
    spec.desktopEntry = desktopEntry;
    // Pinned as the profile says until the machine's GPUs are known (GpuChoice::resolve).
    if (gpus.kind == GpuChoice::Kind::These)
        spec.gpus = gpus.indices;
    if (!requirementsLockFile.isEmpty()) {
        const QString lockPath = QFileInfo(path).dir().filePath(requirementsLockFile);
        const auto lock = readInputFile(lockPath, tr("The lock file"), maxTextInputBytes);
        if (!lock) {
            return Error{QStringLiteral("profile_lock_missing"),
                         tr("The lab profile names the lock file %1, which cannot be read. Put it beside the "
                            "profile.")
                                 .arg(requirementsLockFile)
                             + u' ' + lock.error().message,
                         lockPath};
        }
        spec.requirementsLock = QString::fromUtf8(*lock);
    }
    if (interpreter != u"none") {
        spec.pythonInterpreter = interpreter;
        if (spec.pythonInterpreter.isEmpty()) {
            QStringList names;
            if (!python.isEmpty())
                names << QStringLiteral("python") + python;
            names << QStringLiteral("python3") << QStringLiteral("python");
            for (const QString &n : names) {
                spec.pythonInterpreter = system.findExecutable(n);
                if (!spec.pythonInterpreter.isEmpty())
                    break;
            }
        }
        if (spec.pythonInterpreter.isEmpty()) {
            return Error{QStringLiteral("python_missing"),
                         tr("No Python %1 was found on PATH. Install it, or name the interpreter in the profile's "
                            "\"interpreter\".")
                             .arg(python),
                         {}};
        }
    }
    return spec;
}

NetworkSettings LabProfile::networkSettings(const SystemView &system) const
{
    NetworkSettings network;
    network.transfer.proxy = proxy;
    network.pypiIndexes = indexUrls;
    network.nvidiaMirror = expand(system, nvidiaMirror);
    return network;
}

Result<QList<InstallArtifact>> readBundleArtifacts(const QString &bundleFolder)
{
    auto bundle = Bundle::open(bundleFolder);
    if (!bundle)
        return bundle.error();
    // The same check as `tfsetup bundle --verify`: every listed file, wheels and their lock
    // included, by the checksums in "files".
    if (const Status verified = bundle->verify(); !verified)
        return verified.error();
    QList<InstallArtifact> out;
    for (const Artifact &a : bundle->artifacts().artifacts) {
        if (a.kind == u"wheelhouse") {
            if (!bundle->wheelhouse().isEmpty())
                out.append(InstallArtifact{QStringLiteral("wheelhouse"),
                                           a.name,
                                           a.version,
                                           a.platform,
                                           {},
                                           bundle->wheelhouse(),
                                           bundle->directory()});
            continue;
        }
        if (a.kind != u"cuda-redist-archive" && a.kind != u"cudnn-archive")
            continue;
        const BundleFile *file = bundle->fileOf(a.name);
        const QString path = bundle->pathOf(a.name);
        if (!file || path.isEmpty()) {
            if (a.optional)
                continue;
            return Error{QStringLiteral("bundle_incomplete"),
                         QCoreApplication::translate("LabProfile",
                                                     "The offline bundle %1 lacks %2. Make the bundle "
                                                     "again.")
                             .arg(bundleFolder, a.name),
                         {}};
        }
        InstallArtifact artifact{
            a.kind, a.name, a.version, a.platform, file->sha256.toLatin1(), path, bundle->directory()};
        artifact.md5 = file->sha256.isEmpty() ? file->md5.toLatin1() : QByteArray();
        out.append(artifact);
    }
    return out;
}

} // namespace tfsetup::core
