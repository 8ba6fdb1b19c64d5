#include "catalog/versionqueries.h"

#include "util/jsonshape.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

int integer(const QJsonObject &o, const char *key, int fallback = 0)
{
    return o.value(QLatin1String(key)).toInt(fallback);
}

} // namespace

Result<ComputeTable> ComputeTable::fromJson(const QJsonObject &json)
{
    ComputeTable t;
    for (const QJsonValue &v : json.value(QLatin1String("symbols")).toArray()) {
        const QJsonObject o = v.toObject();
        QStringList names;
        for (const QJsonValue &n : o.value(QLatin1String("symbols")).toArray())
            names.append(n.toString());
        t.symbols.insert(o.value(QLatin1String("role")).toString(), names);
    }
    for (const QJsonValue &v : json.value(QLatin1String("values")).toArray()) {
        const QJsonObject o = v.toObject();
        t.values.insert(o.value(QLatin1String("name")).toString(), o.value(QLatin1String("value")).toInt());
    }
    for (const QJsonValue &v : json.value(QLatin1String("status_names")).toArray()) {
        const QJsonObject o = v.toObject();
        t.statusNames[o.value(QLatin1String("library")).toString()].insert(o.value(QLatin1String("value")).toInt(),
                                                                           o.value(QLatin1String("name")).toString());
    }
    const QJsonObject kernel = json.value(QLatin1String("kernel")).toObject();
    t.kernelFile = kernel.value(QLatin1String("file")).toString();
    t.kernelEntry = kernel.value(QLatin1String("entry")).toString();
    t.elements = integer(kernel, "elements");
    t.block = integer(kernel, "block");
    t.gemmSize = integer(json.value(QLatin1String("gemm")).toObject(), "size");
    const QJsonObject conv = json.value(QLatin1String("convolution")).toObject();
    t.convN = integer(conv, "n");
    t.convC = integer(conv, "c");
    t.convH = integer(conv, "h");
    t.convW = integer(conv, "w");
    t.convK = integer(conv, "k");
    t.convR = integer(conv, "r");
    t.convS = integer(conv, "s");
    t.convPad = integer(conv, "pad");
    t.convStride = integer(conv, "stride", 1);
    t.convDilation = integer(conv, "dilation", 1);
    t.tolerance = json.value(QLatin1String("tolerance")).toDouble();
    t.timeoutMs = integer(json, "timeout_ms");
    if (json.isEmpty())
        return t;
    // A table the code cannot run with is a damaged installation, said once at load.
    static const char *const roles[] = {"driver.init",           "driver.device_get",
                                        "driver.context_retain", "driver.context_release",
                                        "driver.context_set",    "driver.synchronize",
                                        "driver.module_load",    "driver.module_unload",
                                        "driver.function",       "driver.alloc",
                                        "driver.free",           "driver.copy_to_device",
                                        "driver.copy_to_host",   "driver.launch",
                                        "cublas.create",         "cublas.destroy",
                                        "cublas.sgemm",          "cudnn.create",
                                        "cudnn.destroy",         "cudnn.tensor_create",
                                        "cudnn.tensor_set",      "cudnn.tensor_destroy",
                                        "cudnn.filter_create",   "cudnn.filter_set",
                                        "cudnn.filter_destroy",  "cudnn.convolution_create",
                                        "cudnn.convolution_set", "cudnn.convolution_destroy",
                                        "cudnn.workspace_size",  "cudnn.forward"};
    QStringList problems;
    for (const char *role : roles) {
        if (t.symbols.value(QLatin1String(role)).isEmpty())
            problems.append(QString::fromLatin1(role));
    }
    if (t.kernelFile.isEmpty() || t.kernelEntry.isEmpty() || t.elements <= 0 || t.block <= 0 || t.gemmSize <= 0
        || t.convN <= 0 || t.convC <= 0 || t.convK <= 0 || t.convH < t.convR || t.convW < t.convS || t.convStride <= 0
        || t.convDilation <= 0 || t.tolerance <= 0 || t.timeoutMs <= 0)
        problems.append(QStringLiteral("sizes"));
    if (!problems.isEmpty()) {
        return Error{QStringLiteral("probe_table_malformed"),
                     QCoreApplication::translate("Probe",
                                                 "The library version table is not valid JSON; reinstall "
                                                 "tfsetup."),
                     QStringLiteral("compute: missing or invalid %1").arg(problems.join(QStringLiteral(", ")))};
    }
    return t;
}

Result<VersionQueries> VersionQueries::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("probe_table_unreadable"),
                     QCoreApplication::translate("Probe",
                                                 "The library version table %1 cannot be read; the "
                                                 "program files are damaged, reinstall tfsetup.")
                         .arg(path),
                     f.errorString()};
    }
    return fromJson(f.readAll());
}

Result<VersionQueries> VersionQueries::fromJson(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject()) {
        return Error{QStringLiteral("probe_table_malformed"),
                     QCoreApplication::translate("Probe",
                                                 "The library version table is not valid JSON; reinstall "
                                                 "tfsetup."),
                     error.errorString()};
    }
    VersionQueries q;
    for (const QJsonValue &v : doc.object().value(QLatin1String("libraries")).toArray()) {
        const QJsonObject o = v.toObject();
        q.m_queries.append({textsOf(o.value(QLatin1String("stems"))), textOf(o, "symbol"), textOf(o, "call"),
                            textOf(o, "encoding"), textOf(o, "compare"), textOf(o, "source")});
    }
    auto compute = ComputeTable::fromJson(doc.object().value(QLatin1String("compute")).toObject());
    if (!compute)
        return compute.error();
    q.m_compute = std::move(*compute);
    return q;
}

const VersionQuery *VersionQueries::forLibrary(const QString &fileName) const
{
    const QString stem = libraryStem(fileName);
    for (const VersionQuery &q : m_queries) {
        if (q.stems.contains(stem))
            return &q;
    }
    return nullptr;
}

QString libraryStem(const QString &fileName)
{
    QString name = QFileInfo(fileName).fileName();
    if (name.endsWith(QLatin1String(".dll"), Qt::CaseInsensitive)) {
        name.chop(4);
        // cudart64_110, cudnn_ops64_9, nvJitLink_120_0, cublasLt64_12: drop "64" and the numbers.
        static const QRegularExpression suffix(QStringLiteral("(64)?(_\\d+)*$"));
        name.remove(suffix);
        return name;
    }
    const qsizetype so = name.indexOf(QLatin1String(".so"));
    if (so >= 0)
        name.truncate(so);
    if (name.startsWith(QLatin1String("lib")))
        name.remove(0, 3);
    return name;
}

} // namespace tfsetup::core
