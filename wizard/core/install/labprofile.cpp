#include "install/labprofile.h"

#include "install/launchers.h"
#include "sources/bundle.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

QStringList strings(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out.append(v.toString());
    return out;
}

Result<QJsonObject> readObject(const QString &path, const QString &code, const QString &message)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Error{code, message, f.fileName() + QStringLiteral(": ") + f.errorString()};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (!doc.isObject())
        return Error{code, message, f.fileName() + QStringLiteral(": ") + error.errorString()};
    return doc.object();
}

} // namespace

Result<LabProfile> LabProfile::load(const QString &path)
{
    auto json = readObject(path, QStringLiteral("profile_unreadable"),
                           tr("The lab profile %1 cannot be read or is not valid JSON. Ask the lab administrator "
                              "for a working copy.").arg(path));
    if (!json)
        return json.error();
    return fromJson(*json, path);
}

Result<LabProfile> LabProfile::fromJson(const QJsonObject &json, const QString &path)
{
    LabProfile p;
    p.path = path;
    if (json.value(QStringLiteral("schema")).toInt() != 1) {
        return Error{QStringLiteral("profile_schema"),
                     tr("The lab profile %1 is for another version of tfsetup. Update tfsetup.").arg(path), {}};
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
    p.requirements = strings(plan.value(QStringLiteral("requirements")));
    p.interpreter = json.value(QStringLiteral("interpreter")).toString();
    const QJsonObject mirrors = json.value(QStringLiteral("mirrors")).toObject();
    p.indexUrls = strings(mirrors.value(QStringLiteral("pypi")));
    p.trustedHosts = strings(mirrors.value(QStringLiteral("trustedHosts")));
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
                         .arg(path, QString::fromUtf8(QJsonDocument(QJsonArray{front}).toJson(QJsonDocument::Compact))
                                        .mid(1).chopped(1),
                              names.join(QStringLiteral(", "))),
                     {}};
    }
    const QJsonObject kernel = json.value(QStringLiteral("kernel")).toObject();
    p.kernelName = kernel.value(QStringLiteral("name")).toString();
    p.kernelDisplayName = kernel.value(QStringLiteral("displayName")).toString();
    p.registerKernel = kernel.value(QStringLiteral("register")).toBool(true);
    p.desktopEntry = json.value(QStringLiteral("desktopEntry")).toBool(true);
    p.requirementsLockFile = json.value(QStringLiteral("requirementsLock")).toString();

    static const QRegularExpression plainName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._+-]*$"));
    if (p.environment.isEmpty() || !plainName.match(p.environment).hasMatch() || p.installFolder.isEmpty()
        || p.route.isEmpty() || (p.requirements.isEmpty() && p.interpreter != u"none")) {
        return Error{QStringLiteral("profile_incomplete"),
                     tr("The lab profile %1 needs \"environment\" (letters, digits, . _ + -), \"installFolder\", "
                        "\"plan.route\" and \"plan.requirements\".").arg(path),
                     {}};
    }
    return p;
}

QString LabProfile::expand(const SystemView &system, const QString &text)
{
    static const QRegularExpression variable(QStringLiteral("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    QString out = text;
    QRegularExpressionMatch m;
    while ((m = variable.match(out)).hasMatch())
        out.replace(m.capturedStart(), m.capturedLength(), system.env(m.captured(1)));
    if (out == u"~" || out.startsWith(QStringLiteral("~/")))
        out = system.homeDir() + out.mid(1);
    return system.normalize(out);
}

Result<InstallSpec> LabProfile::toSpec(const SystemView &system, const QString &prefixOverride,
                                       const QString &bundleFolder) const
{
    InstallSpec spec;
    spec.name = environment;
    spec.prefix = prefixOverride.isEmpty() ? expand(system, installFolder) : system.normalize(prefixOverride);
    spec.route = route;
    spec.layout = layout;
    spec.tensorflow = tensorflow;
    spec.package = package;
    spec.python = python;
    spec.cuda = cuda;
    spec.cudnn = cudnn;
    spec.requirements = requirements;
    spec.indexUrls = indexUrls;
    spec.trustedHosts = trustedHosts;
    spec.proxy = proxy;
    spec.jupyter = jupyter;
    spec.kernelName = kernelName;
    spec.kernelDisplayName = kernelDisplayName;
    spec.registerKernel = registerKernel;
    spec.desktopEntry = desktopEntry;
    if (!requirementsLockFile.isEmpty()) {
        QFile lock(QFileInfo(path).dir().filePath(requirementsLockFile));
        if (!lock.open(QIODevice::ReadOnly)) {
            return Error{QStringLiteral("profile_lock_missing"),
                         tr("The lab profile names the lock file %1, which cannot be read. Put it beside the "
                            "profile.").arg(requirementsLockFile),
                         lock.fileName()};
        }
        spec.requirementsLock = QString::fromUtf8(lock.readAll());
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
                            "\"interpreter\".").arg(python),
                         {}};
        }
    }
    if (!bundleFolder.isEmpty()) {
        auto artifacts = readBundleArtifacts(bundleFolder);
        if (!artifacts)
            return artifacts.error();
        spec.artifacts = *artifacts;
        spec.offline = true;
        spec.indexUrls.clear();
        // The bundle's pinned wheel list wins over the profile's looser requirements.
        const auto bundle = Bundle::open(bundleFolder);
        if (bundle && !bundle->wheelhouse().isEmpty()) {
            QFile lock(bundle->requirementsFile());
            if (lock.open(QIODevice::ReadOnly))
                spec.requirementsLock = QString::fromUtf8(lock.readAll());
        }
    }
    return spec;
}

Result<QList<InstallArtifact>> readBundleArtifacts(const QString &bundleFolder)
{
    auto bundle = Bundle::open(bundleFolder);
    if (!bundle)
        return bundle.error();
    QList<InstallArtifact> out;
    for (const Artifact &a : bundle->artifacts().artifacts) {
        if (a.kind == u"wheelhouse") {
            if (!bundle->wheelhouse().isEmpty())
                out.append(InstallArtifact{QStringLiteral("wheelhouse"), a.name, a.version, a.platform, {},
                                           bundle->wheelhouse(), bundle->directory()});
            continue;
        }
        if (a.kind != u"cuda-redist-archive" && a.kind != u"cudnn-archive")
            continue;
        const QString path = bundle->pathOf(a.name);
        if (path.isEmpty()) {
            if (a.optional)
                continue;
            return Error{QStringLiteral("bundle_incomplete"),
                         QCoreApplication::translate("LabProfile", "The offline bundle %1 lacks %2. Make the bundle "
                                                                   "again.").arg(bundleFolder, a.name),
                         {}};
        }
        out.append(InstallArtifact{a.kind, a.name, a.version, a.platform, a.sha256.toLatin1(), path,
                                   bundle->directory()});
    }
    return out;
}

} // namespace tfsetup::core
