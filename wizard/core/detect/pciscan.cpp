#include "detect/pciscan.h"

#include <QRegularExpression>

namespace tfsetup::core {

namespace {

const QString displayClassKey = QStringLiteral(
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}");

// sysfs attribute files hold "0x10de\n".
QString sysfsHex(const SystemView &system, const QString &path)
{
    const std::optional<QByteArray> data = system.readFile(path, 64);
    if (!data)
        return {};
    QString value = QString::fromLatin1(*data).trimmed().toLower();
    if (value.startsWith(QLatin1String("0x")))
        value = value.mid(2);
    bool ok = false;
    value.toUInt(&ok, 16);
    return ok ? value : QString();
}

} // namespace

QString gpuVendorName(const QString &vendorId)
{
    const QString v = vendorId.toLower();
    if (v == u"10de")
        return QStringLiteral("nvidia");
    if (v == u"1002")
        return QStringLiteral("amd");
    if (v == u"8086")
        return QStringLiteral("intel");
    return {};
}

std::optional<std::pair<QString, QString>> parseMatchingDeviceId(const QString &matchingDeviceId)
{
    static const QRegularExpression pattern(QStringLiteral("ven_([0-9a-f]{4})&dev_([0-9a-f]{4})"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = pattern.match(matchingDeviceId);
    if (!m.hasMatch())
        return std::nullopt;
    return std::make_pair(m.captured(1).toLower(), m.captured(2).toLower());
}

QString nvidiaVersionFromWindows(const QString &windowsVersion)
{
    QString digits;
    for (const QChar c : windowsVersion) {
        if (c.isDigit())
            digits.append(c);
    }
    if (digits.size() < 5)
        return {};
    const QString last = digits.right(5);
    // "30.0.14.7141" → 471.41; a leading zero never occurs in NVIDIA's three-digit branch.
    return QString::number(last.left(3).toInt()) + u'.' + last.right(2);
}

QList<PciDisplayDevice> scanLinuxPci(const SystemView &system)
{
    QList<PciDisplayDevice> devices;
    const QString root = QStringLiteral("/sys/bus/pci/devices");
    for (const QString &entry : system.entries(root)) {
        const QString dir = SystemView::join(root, entry);
        const QString cls = sysfsHex(system, SystemView::join(dir, QStringLiteral("class")));
        // Class 0x03: display controller (VGA 0x0300, XGA 0x0301, 3D 0x0302, other 0x0380).
        if (cls.size() != 6 || !cls.startsWith(QLatin1String("03")))
            continue;
        PciDisplayDevice d;
        d.vendorId = sysfsHex(system, SystemView::join(dir, QStringLiteral("vendor")));
        d.deviceId = sysfsHex(system, SystemView::join(dir, QStringLiteral("device")));
        if (d.vendorId.size() != 4 || d.deviceId.size() != 4)
            continue;
        d.busId = entry;
        d.source = QStringLiteral("pci");
        devices.append(d);
    }
    return devices;
}

QList<PciDisplayDevice> scanWindowsDisplayAdapters(const SystemView &system)
{
    QList<PciDisplayDevice> devices;
    static const QRegularExpression instance(QStringLiteral("^\\d{4}$"));
    for (const QString &sub : system.registrySubkeys(displayClassKey)) {
        if (!instance.match(sub).hasMatch())
            continue; // "Properties" and other non-instance keys
        const QString key = displayClassKey + u'\\' + sub;
        const auto matching = system.registryValue(key, QStringLiteral("MatchingDeviceId"));
        if (!matching)
            continue;
        const auto ids = parseMatchingDeviceId(matching->toString());
        if (!ids)
            continue; // software adapters such as the Basic Render Driver have no PCI id
        PciDisplayDevice d;
        d.vendorId = ids->first;
        d.deviceId = ids->second;
        d.name = system.registryValue(key, QStringLiteral("DriverDesc")).value_or(QVariant()).toString().trimmed();
        d.driverVersion = system.registryValue(key, QStringLiteral("DriverVersion")).value_or(QVariant()).toString();
        d.source = QStringLiteral("registry");
        devices.append(d);
    }
    return devices;
}

QList<PciDisplayDevice> scanDisplayDevices(const SystemView &system)
{
    switch (system.os()) {
    case OsFamily::Windows: return scanWindowsDisplayAdapters(system);
    case OsFamily::Linux: return scanLinuxPci(system);
    case OsFamily::MacOS: break;
    }
    return {};
}

} // namespace tfsetup::core
