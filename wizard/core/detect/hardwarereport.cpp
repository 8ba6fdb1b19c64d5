#include "detect/hardwarereport.h"

#include <QJsonArray>

namespace tfsetup::core {

namespace {

void putString(QJsonObject &o, const char *key, const QString &value)
{
    o.insert(QLatin1String(key), value.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(value));
}

void putBool(QJsonObject &o, const char *key, std::optional<bool> value)
{
    o.insert(QLatin1String(key), value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null));
}

QString getString(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble());
    return {};
}

std::optional<bool> getBool(const QJsonObject &o, const char *key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isBool())
        return v.toBool();
    return std::nullopt;
}

template<typename T, typename F>
QJsonArray toArray(const QList<T> &items, F convert)
{
    QJsonArray a;
    for (const T &item : items)
        a.append(convert(item));
    return a;
}

template<typename T, typename F>
QList<T> fromArray(const QJsonValue &value, F convert)
{
    QList<T> out;
    const QJsonArray a = value.toArray();
    for (const QJsonValue &v : a) {
        if (v.isObject())
            out.append(convert(v.toObject()));
    }
    return out;
}

} // namespace

QJsonObject HardwareReport::toJson() const
{
    QJsonObject root;

    QJsonObject o;
    putString(o, "family", os.family);
    putString(o, "version", os.version);
    putString(o, "arch", os.arch);
    o.insert(QLatin1String("wsl"), os.wsl);
    o.insert(QLatin1String("wsl_cuda_library"), os.wslCudaLibrary);
    o.insert(QLatin1String("docker"), os.docker);
    root.insert(QLatin1String("os"), o);

    QJsonObject c;
    putString(c, "name", cpu.name);
    putBool(c, "avx", cpu.avx);
    putBool(c, "avx2", cpu.avx2);
    putBool(c, "fma", cpu.fma);
    putBool(c, "avx512f", cpu.avx512f);
    putString(c, "source", cpu.source);
    root.insert(QLatin1String("cpu"), c);

    root.insert(QLatin1String("gpus"), toArray(gpus, [](const GpuInfo &g) {
                    QJsonObject j;
                    putString(j, "vendor", g.vendor);
                    putString(j, "name", g.name);
                    putString(j, "compute_capability", g.computeCapability);
                    j.insert(QLatin1String("memory_mib"),
                             g.memoryMiB >= 0 ? QJsonValue(double(g.memoryMiB)) : QJsonValue(QJsonValue::Null));
                    putString(j, "pci_id", g.pciId);
                    putString(j, "pci_bus_id", g.pciBusId);
                    putString(j, "uuid", g.uuid);
                    putString(j, "source", g.source);
                    return j;
                }));

    if (driver) {
        QJsonObject d;
        putString(d, "version", driver->version);
        putString(d, "cuda", driver->cuda);
        putString(d, "source", driver->source);
        root.insert(QLatin1String("driver"), d);
    } else {
        root.insert(QLatin1String("driver"), QJsonValue(QJsonValue::Null));
    }

    root.insert(QLatin1String("pythons"), toArray(pythons, [](const PythonInfo &p) {
                    QJsonObject j;
                    putString(j, "path", p.path);
                    putString(j, "version", p.version);
                    putString(j, "kind", p.kind);
                    j.insert(QLatin1String("bits"), p.bits > 0 ? QJsonValue(p.bits) : QJsonValue(QJsonValue::Null));
                    putString(j, "source", p.source);
                    return j;
                }));
    root.insert(QLatin1String("cuda_toolkits"), toArray(cudaToolkits, [](const CudaToolkitInfo &t) {
                    QJsonObject j;
                    putString(j, "path", t.path);
                    putString(j, "version", t.version);
                    putString(j, "source", t.source);
                    j.insert(QLatin1String("aliases"), QJsonArray::fromStringList(t.aliases));
                    return j;
                }));
    root.insert(QLatin1String("cudnn"), toArray(cudnn, [](const CudnnInfo &t) {
                    QJsonObject j;
                    putString(j, "path", t.path);
                    putString(j, "version", t.version);
                    putString(j, "source", t.source);
                    return j;
                }));
    if (msvcRuntime) {
        QJsonObject m;
        m.insert(QLatin1String("present"), msvcRuntime->present);
        putString(m, "version", msvcRuntime->version);
        m.insert(QLatin1String("missing"), QJsonArray::fromStringList(msvcRuntime->missing));
        root.insert(QLatin1String("msvc_runtime"), m);
    } else {
        root.insert(QLatin1String("msvc_runtime"), QJsonValue(QJsonValue::Null));
    }
    root.insert(QLatin1String("problems"), toArray(problems, [](const Problem &p) {
                    QJsonObject j;
                    j.insert(QLatin1String("method"), p.method);
                    j.insert(QLatin1String("error"), p.error);
                    return j;
                }));
    return root;
}

const JsonShape &HardwareReport::shape()
{
    using S = JsonShape;
    // `detect --json`: every field may be null or missing; text fields may be numbers ("8.6").
    static const S text = S::anyOf({S::text(4096), S::number()}).nullable();
    static const S flag = S::flag().nullable();
    static const S count = S::integer(-1, qint64(1) << 40).nullable();
    auto list = [](const S &item, qsizetype max) { return S::list(item, max).nullable(); };
    static const S shape = S::object({
        S::optional(QStringLiteral("os"),
                    S::object({S::optional(QStringLiteral("family"), text),
                               S::optional(QStringLiteral("version"), text), S::optional(QStringLiteral("arch"), text),
                               S::optional(QStringLiteral("wsl"), S::integer(0, 100).nullable()),
                               S::optional(QStringLiteral("wsl_cuda_library"), flag),
                               S::optional(QStringLiteral("docker"), flag)})
                        .nullable()),
        S::optional(
            QStringLiteral("cpu"),
            S::object({S::optional(QStringLiteral("name"), text), S::optional(QStringLiteral("avx"), flag),
                       S::optional(QStringLiteral("avx2"), flag), S::optional(QStringLiteral("fma"), flag),
                       S::optional(QStringLiteral("avx512f"), flag), S::optional(QStringLiteral("source"), text)})
                .nullable()),
        S::optional(
            QStringLiteral("gpus"),
            list(
                S::object({S::optional(QStringLiteral("vendor"), text), S::optional(QStringLiteral("name"), text),
                           S::optional(QStringLiteral("compute_capability"), text),
                           S::optional(QStringLiteral("memory_mib"), count),
                           S::optional(QStringLiteral("pci_id"), text), S::optional(QStringLiteral("pci_bus_id"), text),
                           S::optional(QStringLiteral("uuid"), text), S::optional(QStringLiteral("source"), text)}),
                maxGpus)),
        S::optional(QStringLiteral("driver"),
                    S::object({S::optional(QStringLiteral("version"), text), S::optional(QStringLiteral("cuda"), text),
                               S::optional(QStringLiteral("source"), text)})
                        .nullable()),
        S::optional(
            QStringLiteral("pythons"),
            list(S::object({S::optional(QStringLiteral("path"), text), S::optional(QStringLiteral("version"), text),
                            S::optional(QStringLiteral("kind"), text),
                            S::optional(QStringLiteral("bits"), S::integer(0, 128).nullable()),
                            S::optional(QStringLiteral("source"), text)}),
                 maxListed)),
        S::optional(
            QStringLiteral("cuda_toolkits"),
            list(S::object({S::optional(QStringLiteral("path"), text), S::optional(QStringLiteral("version"), text),
                            S::optional(QStringLiteral("source"), text),
                            S::optional(QStringLiteral("aliases"), list(S::text(4096), maxListed))}),
                 maxListed)),
        S::optional(
            QStringLiteral("cudnn"),
            list(S::object({S::optional(QStringLiteral("path"), text), S::optional(QStringLiteral("version"), text),
                            S::optional(QStringLiteral("source"), text)}),
                 maxListed)),
        S::optional(
            QStringLiteral("msvc_runtime"),
            S::object({S::optional(QStringLiteral("present"), flag), S::optional(QStringLiteral("version"), text),
                       S::optional(QStringLiteral("missing"), list(S::text(4096), maxListed))})
                .nullable()),
        S::optional(
            QStringLiteral("problems"),
            list(S::object({S::optional(QStringLiteral("method"), text), S::optional(QStringLiteral("error"), text)}),
                 maxListed)),
    });
    return shape;
}

Result<HardwareReport> HardwareReport::parse(const QJsonObject &json, const QString &document)
{
    if (const auto problem = shape().check(json)) {
        return JsonShape::error(QStringLiteral("hardware_malformed"), document, *problem,
                                tr("Give the output of tfsetup detect --json."));
    }
    return fromJson(json);
}

HardwareReport HardwareReport::fromJson(const QJsonObject &json)
{
    HardwareReport r;
    const QJsonObject o = json.value(QLatin1String("os")).toObject();
    r.os.family = getString(o, "family");
    r.os.version = getString(o, "version");
    r.os.arch = getString(o, "arch");
    r.os.wsl = o.value(QLatin1String("wsl")).toInt(0);
    r.os.wslCudaLibrary = o.value(QLatin1String("wsl_cuda_library")).toBool(false);
    r.os.docker = o.value(QLatin1String("docker")).toBool(false);

    const QJsonObject c = json.value(QLatin1String("cpu")).toObject();
    r.cpu.name = getString(c, "name");
    r.cpu.avx = getBool(c, "avx");
    r.cpu.avx2 = getBool(c, "avx2");
    r.cpu.fma = getBool(c, "fma");
    r.cpu.avx512f = getBool(c, "avx512f");
    r.cpu.source = getString(c, "source");

    r.gpus = fromArray<GpuInfo>(json.value(QLatin1String("gpus")), [](const QJsonObject &j) {
        GpuInfo g;
        g.vendor = getString(j, "vendor");
        g.name = getString(j, "name");
        g.computeCapability = getString(j, "compute_capability");
        const QJsonValue mem = j.value(QLatin1String("memory_mib"));
        g.memoryMiB = mem.toInteger(-1);
        g.pciId = getString(j, "pci_id").toLower();
        g.pciBusId = getString(j, "pci_bus_id");
        g.uuid = getString(j, "uuid");
        g.source = getString(j, "source");
        return g;
    });

    const QJsonValue d = json.value(QLatin1String("driver"));
    if (d.isObject()) {
        const QJsonObject dj = d.toObject();
        DriverInfo di;
        di.version = getString(dj, "version");
        di.cuda = getString(dj, "cuda");
        di.source = getString(dj, "source");
        if (!di.version.isEmpty() || !di.cuda.isEmpty())
            r.driver = di;
    }

    r.pythons = fromArray<PythonInfo>(json.value(QLatin1String("pythons")), [](const QJsonObject &j) {
        PythonInfo p;
        p.path = getString(j, "path");
        p.version = getString(j, "version");
        p.kind = getString(j, "kind");
        p.bits = j.value(QLatin1String("bits")).toInt(0);
        p.source = getString(j, "source");
        return p;
    });
    r.cudaToolkits = fromArray<CudaToolkitInfo>(json.value(QLatin1String("cuda_toolkits")), [](const QJsonObject &j) {
        QStringList aliases;
        for (const QJsonValue &v : j.value(QLatin1String("aliases")).toArray())
            aliases.append(v.toString());
        return CudaToolkitInfo{getString(j, "path"), getString(j, "version"), getString(j, "source"), aliases};
    });
    r.cudnn = fromArray<CudnnInfo>(json.value(QLatin1String("cudnn")), [](const QJsonObject &j) {
        return CudnnInfo{getString(j, "path"), getString(j, "version"), getString(j, "source")};
    });
    const QJsonValue m = json.value(QLatin1String("msvc_runtime"));
    if (m.isObject()) {
        const QJsonObject mj = m.toObject();
        MsvcRuntimeInfo mi;
        mi.present = mj.value(QLatin1String("present")).toBool(false);
        mi.version = getString(mj, "version");
        for (const QJsonValue &v : mj.value(QLatin1String("missing")).toArray())
            mi.missing.append(v.toString());
        r.msvcRuntime = mi;
    }
    r.problems = fromArray<Problem>(json.value(QLatin1String("problems")), [](const QJsonObject &j) {
        return Problem{getString(j, "method"), getString(j, "error")};
    });
    return r;
}

QList<GpuInfo> HardwareReport::nvidiaGpus() const
{
    QList<GpuInfo> out;
    for (const GpuInfo &g : gpus) {
        if (g.vendor == u"nvidia")
            out.append(g);
    }
    return out;
}

} // namespace tfsetup::core
