#include "install/environmentrecord.h"
#include "catalog/version.h"

#include "install/launchers.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/names.h"
#include "util/text.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace tfsetup::core {

namespace {

// A path below the environment folder, as the record names its files and launchers.
QString insideEnvironment(const QJsonValue &v)
{
    return isSafeRelativeName(v.toString())
        ? QString()
        : EnvironmentRecord::tr("must be a path inside the environment folder (no \"..\", not absolute)");
}

} // namespace

const JsonShape &EnvironmentRecord::shape()
{
    using S = JsonShape;
    static const S hex64 = S::text(64).where([](const QJsonValue &v) {
        const QString t = v.toString();
        const bool ok = t.isEmpty() || (t.size() == 64 && std::all_of(t.begin(), t.end(), [](QChar c) {
                                            return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
                                        }));
        return ok ? QString() : tr("must be 64 lower-case hexadecimal digits");
    });
    static const S file = S::object({
        S::required(QStringLiteral("path"), S::text(4096).where(&insideEnvironment)),
        S::optional(QStringLiteral("origin"), S::text(8192)),
        S::optional(QStringLiteral("link"), S::text(4096)),
        S::optional(QStringLiteral("sha256"), hex64),
        S::optional(QStringLiteral("size"), S::integer(0, qint64(1) << 50)),
    });
    static const S command = S::object({
        S::optional(QStringLiteral("program"), S::text(8192)),
        S::optional(QStringLiteral("arguments"), S::list(S::text(65536), 10000)),
        S::optional(QStringLiteral("exit_code"), S::integer(-(qint64(1) << 32), qint64(1) << 32)),
    });
    static const S shape = S::object({
        S::required(QStringLiteral("schema"), S::integer(1, 1000)),
        S::optional(QStringLiteral("name"), S::text(255)),
        S::optional(QStringLiteral("created"), S::text(100)),
        S::optional(QStringLiteral("tfsetup_version"), S::text(100)),
        S::optional(QStringLiteral("os"), S::text(100)),
        S::optional(QStringLiteral("arch"), S::text(100)),
        S::optional(QStringLiteral("fingerprint"), S::text(200)),
        S::optional(QStringLiteral("plan"), S::object({}, 10000)),
        S::optional(QStringLiteral("python_version"), S::text(100)),
        S::optional(QStringLiteral("driver"), S::text(100)),
        S::optional(QStringLiteral("packages"), S::list(S::text(1000), 100000)),
        S::required(QStringLiteral("files"), S::list(file, 1000000)),
        S::optional(QStringLiteral("commands"), S::list(command, 10000)),
        S::optional(QStringLiteral("launchers"), S::list(S::text(4096).where(&insideEnvironment), 1000)),
        S::optional(QStringLiteral("kernel_folder"), S::text(4096).where([](const QJsonValue &v) {
            // Jupyter's kernels/<name> folder (LauncherWriter::userKernelFolder), or nothing.
            QString t = v.toString();
            t.replace(u'\\', u'/');
            const QStringList parts = t.split(u'/');
            const bool ok = t.isEmpty()
                || (parts.size() >= 3 && parts.at(parts.size() - 2) == u"kernels" && isSafePathName(parts.constLast())
                    && !parts.contains(QStringLiteral("..")) && !parts.contains(QStringLiteral(".")));
            return ok ? QString() : tr("must be a Jupyter kernel folder (…/kernels/NAME)");
        })),
    });
    return shape;
}

QJsonObject EnvironmentRecord::toJson() const
{
    QJsonArray fileList;
    for (const RecordedFile &f : files) {
        QJsonObject o{{QStringLiteral("path"), f.path}, {QStringLiteral("origin"), redactSecrets(f.origin)}};
        if (f.linkTarget.isEmpty()) {
            o.insert(QStringLiteral("sha256"), QString::fromLatin1(f.sha256));
            o.insert(QStringLiteral("size"), f.size);
        } else {
            o.insert(QStringLiteral("link"), f.linkTarget);
        }
        fileList.append(o);
    }
    QJsonArray commandList;
    for (const RecordedCommand &c : commands) {
        // A proxy's password or an index token on a command line stays where the user put it (the
        // settings, the profile), never in the record.
        QStringList arguments;
        for (const QString &a : c.arguments)
            arguments.append(redactSecrets(a));
        commandList.append(QJsonObject{{QStringLiteral("program"), c.program},
                                       {QStringLiteral("arguments"), QJsonArray::fromStringList(arguments)},
                                       {QStringLiteral("exit_code"), c.exitCode}});
    }
    return QJsonObject{{QStringLiteral("schema"), schema},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("created"), created},
                       {QStringLiteral("tfsetup_version"), tfsetupVersion},
                       {QStringLiteral("os"), os},
                       {QStringLiteral("arch"), arch},
                       {QStringLiteral("fingerprint"), QString::fromLatin1(fingerprint)},
                       {QStringLiteral("plan"), spec},
                       {QStringLiteral("python_version"), pythonVersion},
                       {QStringLiteral("driver"), driver},
                       {QStringLiteral("packages"), QJsonArray::fromStringList(packages)},
                       {QStringLiteral("files"), fileList},
                       {QStringLiteral("commands"), commandList},
                       {QStringLiteral("launchers"), QJsonArray::fromStringList(launchers)},
                       {QStringLiteral("kernel_folder"), kernelFolder}};
}

Result<EnvironmentRecord> EnvironmentRecord::fromJson(const QJsonObject &json)
{
    EnvironmentRecord r;
    r.schema = json.value(QStringLiteral("schema")).toInt();
    if (r.schema < 1 || r.schema > currentSchema) {
        return Error{QStringLiteral("record_schema"),
                     tr("This environment was made by a newer tfsetup. Update tfsetup to change it."),
                     QStringLiteral("schema %1").arg(r.schema)};
    }
    if (const auto problem = shape().check(json)) {
        return JsonShape::error(QStringLiteral("record_malformed"), tr("The environment record"), *problem,
                                tr("Install the environment again."));
    }
    r.name = json.value(QStringLiteral("name")).toString();
    r.created = json.value(QStringLiteral("created")).toString();
    r.tfsetupVersion = json.value(QStringLiteral("tfsetup_version")).toString();
    r.os = json.value(QStringLiteral("os")).toString();
    r.arch = json.value(QStringLiteral("arch")).toString();
    r.fingerprint = json.value(QStringLiteral("fingerprint")).toString().toLatin1();
    r.spec = json.value(QStringLiteral("plan")).toObject();
    r.pythonVersion = json.value(QStringLiteral("python_version")).toString();
    r.driver = json.value(QStringLiteral("driver")).toString();
    for (const QJsonValue &p : json.value(QStringLiteral("packages")).toArray())
        r.packages.append(p.toString());
    for (const QJsonValue &v : json.value(QStringLiteral("files")).toArray()) {
        const QJsonObject o = v.toObject();
        RecordedFile f;
        f.path = o.value(QStringLiteral("path")).toString();
        f.origin = o.value(QStringLiteral("origin")).toString();
        f.linkTarget = o.value(QStringLiteral("link")).toString();
        f.sha256 = o.value(QStringLiteral("sha256")).toString().toLatin1();
        f.size = o.value(QStringLiteral("size")).toInteger();
        if (f.path.isEmpty() || f.path.contains(QStringLiteral("..")) || f.path.startsWith(u'/'))
            return Error{QStringLiteral("record_malformed"),
                         tr("The environment record is damaged. Install the environment again."), f.path};
        r.files.append(f);
    }
    for (const QJsonValue &v : json.value(QStringLiteral("commands")).toArray()) {
        const QJsonObject o = v.toObject();
        RecordedCommand c;
        c.program = o.value(QStringLiteral("program")).toString();
        for (const QJsonValue &a : o.value(QStringLiteral("arguments")).toArray())
            c.arguments.append(a.toString());
        c.exitCode = o.value(QStringLiteral("exit_code")).toInt(-1);
        r.commands.append(c);
    }
    for (const QJsonValue &l : json.value(QStringLiteral("launchers")).toArray())
        r.launchers.append(l.toString());
    r.kernelFolder = json.value(QStringLiteral("kernel_folder")).toString();
    return r;
}

Result<EnvironmentRecord> EnvironmentRecord::read(const QString &hostFolder)
{
    const QString path = hostFolder + QStringLiteral("/environment.json");
    if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink()) {
        return Error{QStringLiteral("record_missing"),
                     tr("This folder has no environment record. Install the environment again."), path};
    }
    const auto json = readJsonObjectFile(path, tr("The environment record"));
    if (!json) {
        return Error{QStringLiteral("record_malformed"),
                     tr("The environment record is damaged. Install the environment again.") + u' '
                         + json.error().message,
                     json.error().detail};
    }
    auto record = fromJson(*json);
    if (!record)
        return record;
    const QString lockPath = hostFolder + QStringLiteral("/pylock.toml");
    if (QFileInfo(lockPath).isFile() && !QFileInfo(lockPath).isSymLink()) {
        if (auto lock = PyLock::read(lockPath))
            record->lock = *lock;
        else
            qInfo().noquote() << "the environment's lock is not readable:" << lock.error().message;
    }
    return record;
}

const QStringList &EnvironmentRecord::companionFiles()
{
    static const QStringList files{QStringLiteral("logs/install.log"), QStringLiteral("logs/repair.log"),
                                   QStringLiteral("logs/last-verify.json"), QStringLiteral(".tfsetup-owner")};
    return files;
}

QString EnvironmentRecord::kernelName() const
{
    const QString asked = plan().kernelName;
    return asked.isEmpty() ? name : asked;
}

QString EnvironmentRecord::tensorflowVersion() const
{
    const InstallSpec asked = plan();
    const QString project = requirementProject(asked.package.isEmpty() ? QStringLiteral("tensorflow") : asked.package);
    for (const QString &candidate :
         {project, QStringLiteral("tensorflow"), QStringLiteral("tensorflow-gpu"), QStringLiteral("tensorflow-cpu")}) {
        if (const QString v = packageVersion(candidate); !v.isEmpty())
            return v;
        if (const LockedWheel *w = lock.find(candidate))
            return w->version;
    }
    return asked.tensorflow;
}

QString EnvironmentRecord::packageVersion(const QString &package) const
{
    const QString wanted = package.toLower().replace(u'_', u'-');
    for (const QString &line : packages) {
        const qsizetype eq = line.indexOf(QStringLiteral("=="));
        if (eq < 0)
            continue;
        if (line.left(eq).trimmed().toLower().replace(u'_', u'-') == wanted)
            return line.mid(eq + 2).trimmed();
    }
    return {};
}

EnvironmentRecord::CudaInUse EnvironmentRecord::cudaInUse() const
{
    // The wheels TensorFlow's "and-cuda" extra pulls in (resources/catalog/sources.json names the
    // source): nvidia-cuda-runtime-cuNN carries the CUDA runtime, nvidia-cudnn-cuNN cuDNN. Their
    // versions are the libraries' own (12.3.101, 8.9.4.25): the major.minor is the CUDA / cuDNN.
    static const QRegularExpression runtimeWheel(QStringLiteral("^nvidia-cuda-runtime-cu\\d+$"));
    static const QRegularExpression cudnnWheel(QStringLiteral("^nvidia-cudnn-cu\\d+$"));
    static const QRegularExpression cudaExtra(QStringLiteral("\\[[^\\]]*cuda[^\\]]*\\]"));
    const auto wheelVersion = [this](const QRegularExpression &pattern) -> QString {
        for (const QString &line : packages) {
            const qsizetype eq = line.indexOf(QStringLiteral("=="));
            if (eq > 0 && pattern.match(line.left(eq).trimmed().toLower().replace(u'_', u'-')).hasMatch())
                return line.mid(eq + 2).trimmed();
        }
        for (const LockedWheel &w : lock.packages) {
            if (pattern.match(w.name).hasMatch())
                return w.version;
        }
        return {};
    };
    const InstallSpec asked = plan();
    CudaInUse in;
    const QString runtime = wheelVersion(runtimeWheel);
    const QString cudnnWheelVersion = wheelVersion(cudnnWheel);
    bool extra = cudaExtra.match(asked.package).hasMatch();
    for (const QString &r : asked.requirements)
        extra = extra || cudaExtra.match(r).hasMatch();
    in.fromPipWheels = extra || !runtime.isEmpty() || !cudnnWheelVersion.isEmpty();
    in.cuda = !asked.cuda.isEmpty() ? asked.cuda : runtime.isEmpty() ? QString() : version::majorMinor(runtime);
    in.cudnn = !asked.cudnn.isEmpty() ? asked.cudnn
        : cudnnWheelVersion.isEmpty() ? QString()
                                      : version::majorMinor(cudnnWheelVersion);
    return in;
}

QString EnvironmentRecord::summary() const
{
    auto orUnknown = [](const QString &v) { return v.isEmpty() ? tr("unknown") : v; };
    const QString none = tr("none (this environment runs on the CPU)");
    const InstallSpec asked = plan();
    const QString tf = tensorflowVersion();
    const CudaInUse libraries = cudaInUse();
    // A pip-route environment's CUDA is pip's: said so, never "none" while it runs on the GPU.
    const auto shown = [&](const QString &v) {
        if (libraries.cpuOnly())
            return none;
        if (!libraries.fromPipWheels)
            return orUnknown(v);
        return v.isEmpty() ? tr("from pip's nvidia-* wheels (version not recorded)")
                           : tr("%1 (from pip's nvidia-* wheels)").arg(v);
    };
    const QString cuda = shown(libraries.cuda);
    const QString cudnn = shown(libraries.cudnn);
    QString text = QStringLiteral("# %1\n\n").arg(tr("TensorFlow environment \"%1\"").arg(name));
    text += tr("Paste this into a help request: it says what was installed.") + QStringLiteral("\n\n");
    text += QStringLiteral("- %1: %2 %3\n").arg(tr("Operating system"), os, arch);
    text += QStringLiteral("- %1: %2\n").arg(tr("Python"), orUnknown(pythonVersion));
    text += QStringLiteral("- %1: %2\n").arg(tr("TensorFlow"), orUnknown(tf));
    text += QStringLiteral("- %1: %2\n").arg(tr("CUDA"), cuda);
    text += QStringLiteral("- %1: %2\n").arg(tr("cuDNN"), cudnn);
    text += QStringLiteral("- %1: %2\n").arg(tr("NVIDIA driver"), orUnknown(driver));
    text += QStringLiteral("- %1: %2\n").arg(tr("Route"), orUnknown(asked.route));
    text += QStringLiteral("- %1: %2\n").arg(tr("Installed"), created);
    text += QStringLiteral("- %1: %2\n").arg(tr("tfsetup"), tfsetupVersion);
    return text;
}

} // namespace tfsetup::core
