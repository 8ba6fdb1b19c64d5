#include "setup/setupsession.h"

#include "fetch/downloader.h"
#include "install/installspec.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>

namespace tfsetup::core {

namespace {

QList<Finding> findingsFromJson(const QJsonValue &value)
{
    QList<Finding> out;
    for (const QJsonValue &v : value.toArray()) {
        const QJsonObject o = v.toObject();
        out.append({o.value(QStringLiteral("code")).toString(), o.value(QStringLiteral("message")).toString()});
    }
    return out;
}

// The reverse of Plan::toJson(), for the fields a saved setup needs (the ranking is not kept).
QList<PlanGpu> planGpusFromJson(const QJsonValue &value)
{
    QList<PlanGpu> out;
    for (const QJsonValue &v : value.toArray()) {
        const QJsonObject o = v.toObject();
        PlanGpu g;
        g.index = o.value(QStringLiteral("index")).toInt(-1);
        if (g.index < 0)
            continue;
        g.name = o.value(QStringLiteral("name")).toString();
        g.computeCapability = o.value(QStringLiteral("compute_capability")).toString();
        const QString use = o.value(QStringLiteral("use")).toString();
        for (const PlanGpu::Use u : {PlanGpu::Use::Native, PlanGpu::Use::PtxJit, PlanGpu::Use::Unusable}) {
            if (PlanGpu::useName(u) == use)
                g.use = u;
        }
        if (const QJsonObject reason = o.value(QStringLiteral("reason")).toObject(); !reason.isEmpty())
            g.reason = Finding{reason.value(QStringLiteral("code")).toString(),
                               reason.value(QStringLiteral("message")).toString()};
        out.append(g);
    }
    return out;
}

QList<int> indices(const QJsonValue &value)
{
    QList<int> out;
    for (const QJsonValue &v : value.toArray()) {
        if (const int i = v.toInt(-1); i >= 0 && !out.contains(i))
            out.append(i);
    }
    return out;
}

Plan planFromJson(const QJsonObject &o)
{
    Plan p;
    p.route = o.value(QStringLiteral("route")).toString();
    p.tensorflow = o.value(QStringLiteral("tensorflow")).toString();
    p.package = o.value(QStringLiteral("package")).toString();
    p.plugins = textsOf(o.value(QStringLiteral("plugins")));
    p.python = o.value(QStringLiteral("python")).toString();
    p.pythonInstalled = o.value(QStringLiteral("python_installed")).toBool();
    p.cuda = o.value(QStringLiteral("cuda")).toString();
    p.cudnn = o.value(QStringLiteral("cudnn")).toString();
    p.driverMin = o.value(QStringLiteral("driver_min")).toString();
    p.libraries = textsOf(o.value(QStringLiteral("libraries")));
    p.gpus = planGpusFromJson(o.value(QStringLiteral("gpus")));
    p.warnings = findingsFromJson(o.value(QStringLiteral("warnings")));
    p.actions = findingsFromJson(o.value(QStringLiteral("actions")));
    p.unverified = !o.value(QStringLiteral("verified")).toBool(true);
    p.why = o.value(QStringLiteral("why")).toString();
    return p;
}

QJsonObject optionsToJson(const SetupOptions &o)
{
    return {{QStringLiteral("prefix"), o.prefix},
            {QStringLiteral("name"), o.name},
            {QStringLiteral("cache_dir"), o.cacheDir},
            {QStringLiteral("network"), o.network.toJson()},
            {QStringLiteral("jupyter"), o.jupyter}};
}

SetupOptions optionsFromJson(const QJsonObject &o)
{
    SetupOptions s;
    s.prefix = o.value(QStringLiteral("prefix")).toString();
    s.name = o.value(QStringLiteral("name")).toString();
    s.cacheDir = o.value(QStringLiteral("cache_dir")).toString();
    s.network = NetworkSettings::fromJson(o.value(QStringLiteral("network")).toObject());
    s.jupyter = o.value(QStringLiteral("jupyter")).toBool(true);
    return s;
}

ArtifactList artifactsFromJson(const QJsonObject &o)
{
    ArtifactList list;
    list.route = o.value(QStringLiteral("route")).toString();
    list.tensorflow = o.value(QStringLiteral("tensorflow")).toString();
    list.os = o.value(QStringLiteral("os")).toString();
    for (const QJsonValue &v : o.value(QStringLiteral("artifacts")).toArray())
        list.artifacts.append(Artifact::fromJson(v.toObject()));
    list.warnings = findingsFromJson(o.value(QStringLiteral("warnings")));
    return list;
}

// Bytes of a download on disk: the verified file, or what its .part holds. A segmented
// transfer's .part has holes; its .state (fetch/curltransfer.cpp) says how much each segment
// wrote, and only that much is counted.
qint64 bytesOnDisk(const QString &destination)
{
    const QFileInfo done(destination);
    if (done.isFile())
        return done.size();
    const QString part = Downloader::partPathFor(destination);
    if (const auto state = readInputFile(part + QLatin1String(".state"), QStringLiteral("download state"),
                                         1024 * 1024)) {
        const QJsonArray segments = QJsonDocument::fromJson(*state).object().value(QLatin1String("segments")).toArray();
        if (!segments.isEmpty()) {
            qint64 written = 0;
            for (const QJsonValue &s : segments)
                written += std::max<qint64>(0, s.toArray().at(2).toInteger(0));
            return written;
        }
    }
    return QFileInfo(part).isFile() ? QFileInfo(part).size() : 0;
}

} // namespace

QString SetupSession::environmentName() const
{
    return options.name.isEmpty() ? InstallSpec::defaultName(plan) : options.name;
}

QList<DownloadRequest> SetupSession::downloads() const
{
    return artifacts ? SetupFlow::downloadPlan(*artifacts, lock, options).requests : QList<DownloadRequest>();
}

SetupSession::DownloadedBytes SetupSession::downloadedBytes() const
{
    DownloadedBytes bytes;
    for (const DownloadRequest &r : downloads()) {
        const qint64 here = bytesOnDisk(r.destination);
        bytes.done += r.expectedSize > 0 ? std::min(here, r.expectedSize) : here;
        if (r.expectedSize < 0 || bytes.total < 0)
            bytes.total = -1;
        else
            bytes.total += r.expectedSize;
    }
    return bytes;
}

QString SetupSession::stepName(Step step)
{
    switch (step) {
    case Step::Options: return QStringLiteral("options");
    case Step::Download: return QStringLiteral("download");
    case Step::Install: return QStringLiteral("install");
    case Step::Verify: return QStringLiteral("verify");
    }
    return {};
}

std::optional<SetupSession::Step> SetupSession::stepFromName(const QString &name)
{
    for (Step step : {Step::Options, Step::Download, Step::Install, Step::Verify}) {
        if (stepName(step) == name)
            return step;
    }
    return std::nullopt;
}

QJsonObject SetupSession::toJson() const
{
    QJsonObject o{{QStringLiteral("format"), formatVersion},
                  {QStringLiteral("step"), stepName(step)},
                  {QStringLiteral("saved"), saved.toUTC().toString(Qt::ISODate)},
                  {QStringLiteral("plan"), plan.toJson()},
                  {QStringLiteral("hardware"), hardware.toJson()},
                  {QStringLiteral("options"), optionsToJson(options)}};
    QJsonArray pinned;
    for (const int gpu : gpus)
        pinned.append(gpu);
    o.insert(QStringLiteral("gpus"), pinned);
    if (artifacts)
        o.insert(QStringLiteral("artifacts"), artifacts->toJson());
    if (!lock.packages.isEmpty())
        o.insert(QStringLiteral("lock"), QString::fromUtf8(lock.toToml()));
    return o;
}

Result<SetupSession> SetupSession::fromJson(const QJsonObject &json)
{
    const int format = json.value(QStringLiteral("format")).toInt(-1);
    if (format != formatVersion) {
        return Error{QStringLiteral("session_incompatible"),
                     tr("The saved setup was written by another version of tfsetup and cannot be continued."),
                     QStringLiteral("format %1, expected %2").arg(format).arg(formatVersion)};
    }
    const auto step = stepFromName(json.value(QStringLiteral("step")).toString());
    const QJsonObject plan = json.value(QStringLiteral("plan")).toObject();
    if (!step || plan.value(QStringLiteral("route")).toString().isEmpty()
        || plan.value(QStringLiteral("tensorflow")).toString().isEmpty()) {
        return Error{QStringLiteral("session_corrupt"), tr("The saved setup is incomplete and cannot be continued."),
                     QStringLiteral("step or plan missing")};
    }
    SetupSession s;
    s.step = *step;
    s.plan = planFromJson(plan);
    s.hardware = HardwareReport::fromJson(json.value(QStringLiteral("hardware")).toObject());
    s.options = optionsFromJson(json.value(QStringLiteral("options")).toObject());
    s.gpus = indices(json.value(QStringLiteral("gpus")));
    if (json.value(QStringLiteral("artifacts")).isObject())
        s.artifacts = artifactsFromJson(json.value(QStringLiteral("artifacts")).toObject());
    if (const QString lock = json.value(QStringLiteral("lock")).toString(); !lock.isEmpty()) {
        auto read = PyLock::fromToml(lock.toUtf8());
        if (!read)
            return Error{QStringLiteral("session_corrupt"),
                         tr("The saved setup is incomplete and cannot be continued."), read.error().detail};
        s.lock = *read;
    }
    if (s.step != Step::Options && !s.artifacts) {
        return Error{QStringLiteral("session_corrupt"), tr("The saved setup is incomplete and cannot be continued."),
                     QStringLiteral("artifacts missing for step %1").arg(stepName(s.step))};
    }
    s.saved = QDateTime::fromString(json.value(QStringLiteral("saved")).toString(), Qt::ISODate);
    return s;
}

QString SetupSession::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QLatin1String("/tfsetup/setup-session.json");
}

Status SetupSession::save(const QString &path) const
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    SetupSession copy = *this;
    if (!copy.saved.isValid())
        copy.saved = QDateTime::currentDateTimeUtc();
    if (const Status written = writeUserFile(path, QJsonDocument(copy.toJson()).toJson()); !written) {
        return Error{QStringLiteral("session_unwritable"),
                     tr("The setup's progress could not be saved in %1; it cannot be continued after a restart.")
                         .arg(QDir::toNativeSeparators(path)),
                     written.error().message};
    }
    return Ok{};
}

std::optional<SetupSession> SetupSession::load(const QString &path)
{
    if (!QFileInfo::exists(path))
        return std::nullopt;
    // Bounded, plain files only: a FIFO or a device at the name is ignored, never waited on.
    const auto bytes = readInputFile(path, QStringLiteral("setup session"));
    if (!bytes) {
        qWarning().noquote() << "Ignoring the saved setup" << path << "(unreadable:" << bytes.error().code << ')';
        return std::nullopt;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        qWarning().noquote() << "Ignoring the saved setup" << path << "(not JSON:" << error.errorString() << ')';
        return std::nullopt;
    }
    auto session = fromJson(doc.object());
    if (!session) {
        qWarning().noquote() << "Ignoring the saved setup" << path << '(' << session.error().code
                             << session.error().detail << ')';
        return std::nullopt;
    }
    return std::move(*session);
}

bool SetupSession::discard(const QString &path)
{
    return !QFileInfo::exists(path) || QFile::remove(path);
}

} // namespace tfsetup::core
