#include "detect/nvidiasmi.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace tfsetup::core::nvidiasmi {

namespace {

// Raw output can be anything; keep error details short enough for a log line.
QString excerpt(const QByteArray &output)
{
    QString text = QString::fromUtf8(output.left(400)).trimmed();
    if (output.size() > 400)
        text += QStringLiteral(" …");
    return text;
}

// nvidia-smi writes "[N/A]", "N/A", "[Not Supported]" or "[Unknown Error]" for values it
// cannot read.
bool isMissing(const QString &value)
{
    return value.isEmpty() || value.startsWith(u'[') || value.compare(QLatin1String("N/A"), Qt::CaseInsensitive) == 0;
}

enum class Field { Other, Name, ComputeCap, MemoryTotal, BusId, DeviceId, Uuid, DriverVersion };

Field fieldKind(const QString &field)
{
    const QString f = field.trimmed().toLower();
    if (f == u"name" || f == u"gpu_name")
        return Field::Name;
    if (f == u"compute_cap")
        return Field::ComputeCap;
    if (f == u"memory.total")
        return Field::MemoryTotal;
    if (f == u"pci.bus_id" || f == u"gpu_bus_id")
        return Field::BusId;
    if (f == u"pci.device_id")
        return Field::DeviceId;
    if (f == u"uuid" || f == u"gpu_uuid")
        return Field::Uuid;
    if (f == u"driver_version")
        return Field::DriverVersion;
    return Field::Other;
}

Error failure(const QString &code, const QString &message, const QByteArray &output)
{
    return Error{code, message, excerpt(output)};
}

QString noDriverMessage()
{
    return QCoreApplication::translate("NvidiaSmi",
                                       "nvidia-smi cannot reach the NVIDIA driver. Install the NVIDIA "
                                       "driver for your GPU (or repair it) and restart the computer.");
}

bool mentionsNoDriver(const QByteArray &output)
{
    return output.contains("couldn't communicate with the NVIDIA driver")
        || output.contains("Failed to initialize NVML") || output.contains("No devices were found");
}

} // namespace

QStringList queryFields(bool withComputeCapability)
{
    QStringList fields = {QStringLiteral("name")};
    if (withComputeCapability)
        fields.append(QStringLiteral("compute_cap"));
    fields += {QStringLiteral("memory.total"), QStringLiteral("pci.bus_id"), QStringLiteral("pci.device_id"),
               QStringLiteral("uuid"), QStringLiteral("driver_version")};
    return fields;
}

QStringList queryArguments(bool withComputeCapability)
{
    return {QStringLiteral("--query-gpu=") + queryFields(withComputeCapability).join(u','),
            QStringLiteral("--format=csv,noheader,nounits")};
}

QString pciIdFromDeviceId(const QString &deviceId)
{
    QString hex = deviceId.trimmed().toLower();
    if (hex.startsWith(QLatin1String("0x")))
        hex = hex.mid(2);
    bool ok = false;
    const quint32 value = hex.toUInt(&ok, 16);
    if (!ok || hex.size() > 8 || value == 0)
        return {};
    return QStringLiteral("%1:%2")
        .arg(value & 0xffffu, 4, 16, QLatin1Char('0'))
        .arg(value >> 16, 4, 16, QLatin1Char('0'));
}

bool isUnknownFieldError(const QByteArray &output)
{
    return output.contains("is not a valid field to query");
}

Result<QList<SmiGpu>> parseQueryCsv(const QByteArray &output, const QStringList &fields)
{
    if (mentionsNoDriver(output))
        return failure(QStringLiteral("nvidia_smi_no_driver"), noDriverMessage(), output);
    if (isUnknownFieldError(output)) {
        return failure(QStringLiteral("nvidia_smi_unknown_field"),
                       QCoreApplication::translate("NvidiaSmi",
                                                   "This NVIDIA driver's nvidia-smi does not know one of "
                                                   "the queried fields. Updating the driver helps."),
                       output);
    }
    QList<Field> kinds;
    for (const QString &f : fields)
        kinds.append(fieldKind(f));

    QList<SmiGpu> gpus;
    const QList<QByteArray> lines = output.split('\n');
    for (const QByteArray &rawLine : lines) {
        const QString line = QString::fromUtf8(rawLine).trimmed();
        if (line.isEmpty())
            continue;
        // Names never contain commas in nvidia-smi output, so a plain split is enough.
        const QStringList values = line.split(u',');
        if (values.size() != fields.size()) {
            return failure(QStringLiteral("nvidia_smi_malformed"),
                           QCoreApplication::translate("NvidiaSmi",
                                                       "nvidia-smi printed something tfsetup cannot "
                                                       "read. Run nvidia-smi yourself to see whether "
                                                       "the driver works."),
                           output);
        }
        SmiGpu gpu;
        bool header = true;
        for (qsizetype i = 0; i < values.size(); ++i) {
            const QString v = values.at(i).trimmed();
            // With ",noheader" omitted the first row repeats the field names (with units).
            header = header && v.section(u' ', 0, 0).compare(fields.at(i).trimmed(), Qt::CaseInsensitive) == 0;
            if (isMissing(v))
                continue;
            switch (kinds.at(i)) {
            case Field::Name: gpu.name = v; break;
            case Field::ComputeCap: gpu.computeCapability = v; break;
            case Field::MemoryTotal: {
                bool ok = false;
                const qint64 mib = v.section(u' ', 0, 0).toLongLong(&ok);
                if (ok && mib >= 0)
                    gpu.memoryMiB = mib;
                break;
            }
            case Field::BusId: gpu.pciBusId = v; break;
            case Field::DeviceId: gpu.pciId = pciIdFromDeviceId(v); break;
            case Field::Uuid: gpu.uuid = v; break;
            case Field::DriverVersion: gpu.driverVersion = v; break;
            case Field::Other: break;
            }
        }
        if (header)
            continue;
        static const QRegularExpression capability(QStringLiteral("^\\d{1,2}\\.\\d$"));
        if (!gpu.computeCapability.isEmpty() && !capability.match(gpu.computeCapability).hasMatch())
            gpu.computeCapability.clear(); // errors printed in the column, not a capability
        if (gpu.name.isEmpty() && gpu.pciBusId.isEmpty() && gpu.uuid.isEmpty()) {
            return failure(QStringLiteral("nvidia_smi_malformed"),
                           QCoreApplication::translate("NvidiaSmi",
                                                       "nvidia-smi printed something tfsetup cannot "
                                                       "read. Run nvidia-smi yourself to see whether "
                                                       "the driver works."),
                           output);
        }
        gpus.append(gpu);
    }
    if (gpus.isEmpty()) {
        return failure(QStringLiteral("nvidia_smi_no_gpus"),
                       QCoreApplication::translate("NvidiaSmi",
                                                   "nvidia-smi lists no NVIDIA GPU. Check that the GPU is "
                                                   "seated and enabled, and that the driver is installed."),
                       output);
    }
    return gpus;
}

Result<SmiHeader> parseHeader(const QByteArray &output)
{
    if (mentionsNoDriver(output))
        return failure(QStringLiteral("nvidia_smi_no_driver"), noDriverMessage(), output);
    // "Driver Version: 535.104.05   CUDA Version: 12.2" in the banner; older drivers (before
    // CUDA 10) print no CUDA version at all.
    static const QRegularExpression driver(QStringLiteral("Driver Version:\\s*([0-9]+(?:\\.[0-9]+){1,2})"));
    static const QRegularExpression cuda(QStringLiteral("CUDA Version:\\s*([0-9]+\\.[0-9]+)"));
    const QString text = QString::fromUtf8(output);
    const QRegularExpressionMatch d = driver.match(text);
    if (!d.hasMatch()) {
        return failure(QStringLiteral("nvidia_smi_malformed"),
                       QCoreApplication::translate("NvidiaSmi",
                                                   "nvidia-smi printed no driver version. Run nvidia-smi "
                                                   "yourself to see whether the driver works."),
                       output);
    }
    SmiHeader header;
    header.driverVersion = d.captured(1);
    const QRegularExpressionMatch c = cuda.match(text);
    if (c.hasMatch())
        header.cudaVersion = c.captured(1);
    return header;
}

} // namespace tfsetup::core::nvidiasmi
