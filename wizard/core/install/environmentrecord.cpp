#include "install/environmentrecord.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace tfsetup::core {

QJsonObject EnvironmentRecord::toJson() const
{
    QJsonArray fileList;
    for (const RecordedFile &f : files) {
        QJsonObject o{{QStringLiteral("path"), f.path}, {QStringLiteral("origin"), f.origin}};
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
        commandList.append(QJsonObject{{QStringLiteral("program"), c.program},
                                       {QStringLiteral("arguments"), QJsonArray::fromStringList(c.arguments)},
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
    QFile f(hostFolder + QStringLiteral("/environment.json"));
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("record_missing"),
                     tr("This folder has no environment record. Install the environment again."), f.fileName()};
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (!doc.isObject()) {
        return Error{QStringLiteral("record_malformed"),
                     tr("The environment record is damaged. Install the environment again."), error.errorString()};
    }
    return fromJson(doc.object());
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

QString EnvironmentRecord::summary() const
{
    auto orUnknown = [](const QString &v) { return v.isEmpty() ? tr("unknown") : v; };
    const QString none = tr("none (this environment runs on the CPU)");
    QString tf = packageVersion(QStringLiteral("tensorflow"));
    if (tf.isEmpty())
        tf = packageVersion(QStringLiteral("tensorflow-gpu"));
    if (tf.isEmpty())
        tf = spec.value(QStringLiteral("tensorflow")).toString();
    const QString cuda = spec.value(QStringLiteral("cuda")).toString();
    const QString cudnn = spec.value(QStringLiteral("cudnn")).toString();
    QString text = QStringLiteral("# %1\n\n").arg(tr("TensorFlow environment \"%1\"").arg(name));
    text += tr("Paste this into a help request: it says what was installed.") + QStringLiteral("\n\n");
    text += QStringLiteral("- %1: %2 %3\n").arg(tr("Operating system"), os, arch);
    text += QStringLiteral("- %1: %2\n").arg(tr("Python"), orUnknown(pythonVersion));
    text += QStringLiteral("- %1: %2\n").arg(tr("TensorFlow"), orUnknown(tf));
    text += QStringLiteral("- %1: %2\n").arg(tr("CUDA"), cuda.isEmpty() ? none : cuda);
    text += QStringLiteral("- %1: %2\n").arg(tr("cuDNN"), cudnn.isEmpty() ? none : cudnn);
    text += QStringLiteral("- %1: %2\n").arg(tr("NVIDIA driver"), orUnknown(driver));
    text += QStringLiteral("- %1: %2\n").arg(tr("Route"), orUnknown(spec.value(QStringLiteral("route")).toString()));
    text += QStringLiteral("- %1: %2\n").arg(tr("Installed"), created);
    text += QStringLiteral("- %1: %2\n").arg(tr("tfsetup"), tfsetupVersion);
    return text;
}

} // namespace tfsetup::core
