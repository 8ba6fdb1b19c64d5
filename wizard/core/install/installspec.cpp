#include "install/installspec.h"

#include "install/launchers.h"
#include "solver/plan.h"
#include "util/text.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace tfsetup::core {

namespace {

QString majorMinor(const QString &version)
{
    const QStringList parts = version.split(u'.');
    return parts.size() >= 2 ? parts.at(0) + u'.' + parts.at(1) : version;
}

QJsonArray toArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

} // namespace

bool InstallArtifact::isArchive() const
{
    return kind == u"cuda-redist-archive" || kind == u"cudnn-archive";
}

QJsonObject InstallArtifact::toJson() const
{
    return QJsonObject{{QStringLiteral("kind"), kind},
                       {QStringLiteral("component"), component},
                       {QStringLiteral("version"), version},
                       {QStringLiteral("platform"), platform},
                       {QStringLiteral("sha256"), QString::fromLatin1(sha256)},
                       {QStringLiteral("md5"), QString::fromLatin1(md5)},
                       {QStringLiteral("origin"), redactSecrets(origin)},
                       {QStringLiteral("arguments"), toArray(arguments)}};
}

InstallArtifact InstallArtifact::fromJson(const QJsonObject &json)
{
    InstallArtifact a;
    a.kind = json.value(QStringLiteral("kind")).toString();
    a.component = json.value(QStringLiteral("component")).toString();
    a.version = json.value(QStringLiteral("version")).toString();
    a.platform = json.value(QStringLiteral("platform")).toString();
    a.sha256 = json.value(QStringLiteral("sha256")).toString().toLower().toLatin1();
    a.md5 = json.value(QStringLiteral("md5")).toString().toLower().toLatin1();
    a.path = json.value(QStringLiteral("path")).toString();
    a.origin = json.value(QStringLiteral("origin")).toString();
    for (const QJsonValue &v : json.value(QStringLiteral("arguments")).toArray())
        a.arguments.append(v.toString());
    return a;
}

QStringList InstallSpec::jupyterRequirements() const
{
    const JupyterSettings &data = JupyterSettings::builtIn();
    QStringList out = data.kernelRequirements;
    if (const JupyterSettings::FrontEnd *f = data.frontEnd(jupyter))
        out += f->requirements;
    return out;
}

QStringList InstallSpec::effectiveRequirements() const
{
    if (requirements.isEmpty())
        return requirements;
    QStringList out = requirements;
    QSet<QString> named;
    for (const QString &r : requirements)
        named.insert(requirementProject(r));
    for (const QString &r : jupyterRequirements()) {
        if (!named.contains(requirementProject(r))) {
            named.insert(requirementProject(r));
            out.append(r);
        }
    }
    return out;
}

QStringList InstallSpec::missingFromLock() const
{
    if (requirementsLock.isEmpty())
        return {};
    // A requirements file: one requirement per logical line ("\" continues it), "#" comments,
    // options such as --hash after the requirement.
    QString text = requirementsLock;
    text.replace(QStringLiteral("\\\r\n"), QStringLiteral(" ")).replace(QStringLiteral("\\\n"), QStringLiteral(" "));
    QSet<QString> pinned;
    for (const QString &line : text.split(u'\n')) {
        const QString trimmed = line.section(u'#', 0, 0).trimmed();
        if (!trimmed.isEmpty() && !trimmed.startsWith(u'-'))
            pinned.insert(requirementProject(trimmed));
    }
    QStringList missing;
    for (const QString &r : jupyterRequirements()) {
        if (!pinned.contains(requirementProject(r)))
            missing.append(requirementProject(r));
    }
    return missing;
}

int InstallSpec::cudnnMajor() const
{
    for (const InstallArtifact &a : artifacts) {
        if (a.kind == u"cudnn-archive")
            return a.version.section(u'.', 0, 0).toInt();
    }
    return cudnn.isEmpty() ? 0 : cudnn.section(u'.', 0, 0).toInt();
}

InstallSpec InstallSpec::fromPlan(const Plan &plan)
{
    InstallSpec spec;
    spec.route = plan.route;
    spec.tensorflow = plan.tensorflow;
    spec.package = plan.package;
    spec.python = plan.python;
    spec.cuda = plan.cuda;
    spec.cudnn = plan.cudnn;
    spec.driverMin = plan.driverMin;
    spec.requirements = QStringList{plan.requirement()} + plan.plugins;
    spec.jupyter = JupyterSettings::builtIn().defaultFrontEnd;
    spec.name = defaultName(plan);
    return spec;
}

QString InstallSpec::defaultName(const Plan &plan)
{
    QString name = u"tf" + majorMinor(plan.tensorflow);
    name += plan.cuda.isEmpty() ? QStringLiteral("-cpu") : u"-cuda" + majorMinor(plan.cuda);
    return name;
}

QList<int> InstallSpec::pinnedGpus(const QList<int> &chosen, qsizetype gpuCount)
{
    bool everyGpuInOrder = chosen.size() == gpuCount;
    for (qsizetype i = 0; everyGpuInOrder && i < chosen.size(); ++i)
        everyGpuInOrder = chosen.at(i) == i;
    return everyGpuInOrder ? QList<int>{} : chosen;
}

QJsonObject InstallSpec::toJson() const
{
    QJsonArray artifactList;
    for (const InstallArtifact &a : artifacts)
        artifactList.append(a.toJson());
    QJsonObject json{{QStringLiteral("name"), name},
                     {QStringLiteral("route"), route},
                     {QStringLiteral("layout"), layout},
                     {QStringLiteral("tensorflow"), tensorflow},
                     {QStringLiteral("package"), package},
                     {QStringLiteral("python"), python},
                     {QStringLiteral("cuda"), cuda},
                     {QStringLiteral("cudnn"), cudnn},
                     {QStringLiteral("driver_min"), driverMin},
                     {QStringLiteral("requirements"), toArray(effectiveRequirements())},
                     {QStringLiteral("requirements_lock_sha256"),
                      requirementsLock.isEmpty()
                          ? QString()
                          : QString::fromLatin1(
                              QCryptographicHash::hash(requirementsLock.toUtf8(), QCryptographicHash::Sha256).toHex())},
                     {QStringLiteral("jupyter"), jupyter},
                     {QStringLiteral("kernel_name"), kernelName},
                     {QStringLiteral("artifacts"), artifactList}};
    // Only a selection is written: an environment without one keeps the fingerprint it had.
    if (!gpus.isEmpty()) {
        QJsonArray list;
        for (const int index : gpus)
            list.append(index);
        json.insert(QStringLiteral("gpus"), list);
    }
    return json;
}

InstallSpec InstallSpec::fromJson(const QJsonObject &json)
{
    const auto text = [&json](const char *key) { return json.value(QLatin1String(key)).toString(); };
    InstallSpec spec;
    spec.name = text("name");
    spec.route = text("route");
    if (const QString layout = text("layout"); !layout.isEmpty())
        spec.layout = layout;
    spec.tensorflow = text("tensorflow");
    spec.package = text("package");
    spec.python = text("python");
    spec.cuda = text("cuda");
    spec.cudnn = text("cudnn");
    spec.driverMin = text("driver_min");
    for (const QJsonValue &v : json.value(QStringLiteral("requirements")).toArray()) {
        if (v.isString())
            spec.requirements.append(v.toString());
    }
    spec.jupyter = text("jupyter");
    spec.kernelName = text("kernel_name");
    spec.requirementsLockSha256 = text("requirements_lock_sha256");
    for (const QJsonValue &v : json.value(QStringLiteral("artifacts")).toArray())
        spec.artifacts.append(InstallArtifact::fromJson(v.toObject()));
    for (const QJsonValue &v : json.value(QStringLiteral("gpus")).toArray()) {
        if (v.isDouble() && v.toInt(-1) >= 0)
            spec.gpus.append(v.toInt());
    }
    return spec;
}

QStringList InstallSpec::extraRequirements() const
{
    QSet<QString> standard;
    standard.insert(requirementProject(package.isEmpty() ? QStringLiteral("tensorflow") : package));
    for (const QString &r : jupyterRequirements())
        standard.insert(requirementProject(r));
    const JupyterSettings &data = JupyterSettings::builtIn();
    for (const JupyterSettings::FrontEnd &f : data.frontEnds) {
        for (const QString &r : f.requirements)
            standard.insert(requirementProject(r));
    }
    QStringList out;
    for (const QString &r : requirements) {
        if (!standard.contains(requirementProject(r)))
            out.append(r);
    }
    return out;
}

QByteArray InstallSpec::fingerprint() const
{
    // Mirrors, proxy and the interpreter's location do not change what gets installed.
    return QCryptographicHash::hash(QJsonDocument(toJson()).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256)
        .toHex();
}

} // namespace tfsetup::core
