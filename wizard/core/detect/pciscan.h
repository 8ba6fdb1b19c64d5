#pragma once

#include "system/systemview.h"

#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace tfsetup::core {

// A display adapter as the bus or the OS's device database lists it, before any driver is
// asked: present even when no NVIDIA driver is installed.
struct PciDisplayDevice {
    QString vendorId;      // "10de", lower-case hex
    QString deviceId;      // "2504"
    QString name;          // DriverDesc on Windows; empty from Linux sysfs
    QString busId;         // "0000:01:00.0" from sysfs; empty from the registry
    QString driverVersion; // Windows DriverVersion as written: "31.0.15.3114"
    QString source;        // "pci" (sysfs) | "registry"

    QString pciId() const { return vendorId + u':' + deviceId; }
};

// Display controllers (PCI class 0x03xxxx) under /sys/bus/pci/devices.
QList<PciDisplayDevice> scanLinuxPci(const SystemView &system);
// Adapters under the display class key HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-…}.
QList<PciDisplayDevice> scanWindowsDisplayAdapters(const SystemView &system);
// Whichever of the two the view's OS has.
QList<PciDisplayDevice> scanDisplayDevices(const SystemView &system);

// "PCI\VEN_10DE&DEV_2504&SUBSYS_…" → {"10de", "2504"}.
std::optional<std::pair<QString, QString>> parseMatchingDeviceId(const QString &matchingDeviceId);
// Windows driver version "31.0.15.3114" → NVIDIA's "531.14": the last five digits read as
// NNN.NN. Empty when the text has fewer than five digits.
QString nvidiaVersionFromWindows(const QString &windowsVersion);
// "10de" → "nvidia", "1002" → "amd", "8086" → "intel"; empty for other vendors.
QString gpuVendorName(const QString &vendorId);

} // namespace tfsetup::core
