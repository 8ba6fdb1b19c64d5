#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

// Parsers for nvidia-smi output. Pure functions: they never run anything, and whatever bytes
// they are handed (garbage, an error message, a truncated table) end in a value or an Error.
namespace tfsetup::core::nvidiasmi {

struct SmiGpu {
    QString name;
    QString computeCapability; // "8.6"; empty when the field was not asked or is "[N/A]"
    qint64 memoryMiB = -1;
    QString pciBusId; // "00000000:01:00.0" as printed
    QString pciId;    // "10de:2504", from pci.device_id "0x250410DE"
    QString uuid;
    QString driverVersion;
};

struct SmiHeader {
    QString driverVersion; // "535.104.05"
    QString cudaVersion;   // "12.2": the newest CUDA the driver supports, not an installed toolkit
};

// The fields scanGpus asks for, in order; compute_cap is left out for drivers that lack it.
QStringList queryFields(bool withComputeCapability);
// The arguments for `nvidia-smi --query-gpu=… --format=csv,noheader,nounits`.
QStringList queryArguments(bool withComputeCapability);

// Parses CSV rows written for the given --query-gpu fields (names as nvidia-smi accepts them;
// unknown fields are read past). A header row, if present, is skipped.
Result<QList<SmiGpu>> parseQueryCsv(const QByteArray &output, const QStringList &fields);

// Parses the banner of plain `nvidia-smi` for "Driver Version: … CUDA Version: …".
Result<SmiHeader> parseHeader(const QByteArray &output);

// True when nvidia-smi rejected a --query-gpu field ("Field "compute_cap" is not a valid field
// to query."), which drivers older than the field print instead of data.
bool isUnknownFieldError(const QByteArray &output);

// "0x250410DE" (device id in the high 16 bits, vendor in the low) → "10de:2504".
QString pciIdFromDeviceId(const QString &deviceId);

} // namespace tfsetup::core::nvidiasmi
