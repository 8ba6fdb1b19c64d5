#include "detect/reportsummary.h"

namespace tfsetup::core {

namespace {

QString osName(const OsInfo &os)
{
    QString name = os.version.isEmpty() ? os.family : os.version;
    if (os.wsl == 2)
        name = ReportSummary::tr("%1 under WSL2").arg(name);
    else if (os.wsl == 1)
        name = ReportSummary::tr("%1 under WSL1").arg(name);
    return name;
}

// Paths in the imitated system's spelling: the report may describe another machine (a fixture, a
// report file), so the host's separator says nothing.
QString displayPath(const HardwareReport &report, QString path)
{
    if (report.os.family == u"windows")
        path.replace(u'/', u'\\');
    return path;
}

} // namespace

QStringList ReportSummary::lines(const HardwareReport &report)
{
    QStringList out;
    out.append(report.os.arch.isEmpty() ? tr("System: %1").arg(osName(report.os))
                                        : tr("System: %1, %2").arg(osName(report.os), report.os.arch));

    const QList<GpuInfo> nvidia = report.nvidiaGpus();
    if (nvidia.isEmpty())
        out.append(tr("No NVIDIA GPU was found. TensorFlow can still run on the CPU."));
    for (const GpuInfo &g : nvidia) {
        QString line = g.computeCapability.isEmpty()
            ? tr("Your GPU: %1 (compute capability unknown)").arg(g.name)
            : tr("Your GPU: %1, compute capability %2").arg(g.name, g.computeCapability);
        if (g.memoryMiB > 0)
            line += tr(", %1 GiB of memory").arg(QString::number(double(g.memoryMiB) / 1024.0, 'f', 1));
        out.append(line);
    }
    for (const GpuInfo &g : report.gpus) {
        if (g.vendor != u"nvidia")
            out.append(tr("Other graphics: %1 (%2); TensorFlow's CUDA build cannot use it.").arg(g.name, g.vendor));
    }
    if (report.driver && !report.driver->version.isEmpty()) {
        out.append(
            report.driver->cuda.isEmpty()
                ? tr("NVIDIA driver %1").arg(report.driver->version)
                : tr("NVIDIA driver %1 supports CUDA up to %2").arg(report.driver->version, report.driver->cuda));
    } else if (!nvidia.isEmpty()) {
        out.append(tr("No working NVIDIA driver was found. Install the driver for your GPU from NVIDIA first."));
    }

    const QString cpuName = report.cpu.name.isEmpty() ? tr("unknown processor") : report.cpu.name;
    // AVX is what decides whether official wheels run at all; AVX2 and the rest are in the details.
    if (!report.cpu.avx)
        out.append(tr("Processor: %1 (whether it has the AVX instructions TensorFlow needs could not be checked)")
                       .arg(cpuName));
    else if (*report.cpu.avx)
        out.append(tr("Processor: %1, with the AVX instructions TensorFlow needs").arg(cpuName));
    else
        out.append(tr("Processor: %1. It lacks AVX, which official TensorFlow builds since 1.6 need.").arg(cpuName));

    if (report.pythons.isEmpty())
        out.append(tr("No Python was found; tfsetup can install one."));
    else {
        QStringList versions;
        for (const PythonInfo &p : report.pythons) {
            if (!versions.contains(p.version))
                versions.append(p.version);
        }
        out.append(tr("Python found: %1").arg(versions.join(QLatin1String(", "))));
    }
    if (report.cudaToolkits.isEmpty())
        out.append(tr("No CUDA toolkit is installed (tfsetup can bring the parts TensorFlow needs)."));
    for (const CudaToolkitInfo &t : report.cudaToolkits)
        out.append(tr("CUDA toolkit %1 in %2").arg(t.version, displayPath(report, t.path)));
    for (const CudnnInfo &c : report.cudnn)
        out.append(tr("cuDNN %1 in %2").arg(c.version, displayPath(report, c.path)));
    // Windows only: TensorFlow's DLLs load only beside the Visual C++ runtime, so it is always said.
    if (const auto &msvc = report.msvcRuntime) {
        const QString missing = msvc->missing.join(QLatin1String(", "));
        if (msvc->present) {
            out.append(msvc->version.isEmpty()
                           ? tr("Microsoft Visual C++ runtime: present (its version is not registered)")
                           : tr("Microsoft Visual C++ runtime: present, version %1").arg(msvc->version));
        } else if (msvc->version.isEmpty()) {
            out.append(tr("The Microsoft Visual C++ runtime is missing (%1).").arg(missing));
        } else {
            out.append(tr("The Microsoft Visual C++ runtime %1 is registered, but %2 is missing.")
                           .arg(msvc->version, missing));
        }
    }
    return out;
}

QStringList ReportSummary::notes(const HardwareReport &report)
{
    QStringList out;
    for (const Problem &p : report.problems) {
        QString note;
        if (p.method == u"nvml")
            note = tr("tfsetup could not ask the NVIDIA driver library (NVML) about your GPU.");
        else if (p.method == u"cuda-driver")
            note = tr("tfsetup could not ask the CUDA driver about your GPU.");
        else if (p.method == u"nvidia-smi" && p.error.contains(QLatin1String("not found")))
            note = tr("nvidia-smi, the tool that comes with the NVIDIA driver, is not installed here.");
        else if (p.method == u"nvidia-smi")
            note = tr("The nvidia-smi tool that comes with the NVIDIA driver did not answer.");
        else if (p.method == u"pci")
            note = tr("tfsetup could not read the list of devices plugged into the computer.");
        else if (p.method == u"python")
            note = tr("tfsetup could not check every Python installation.");
        else
            note = tr("The check \"%1\" did not work.").arg(p.method);
        // Several methods answer the same question; one failing is harmless when another worked.
        if (!out.contains(note))
            out.append(note);
    }
    return out;
}

QString ReportSummary::text(const HardwareReport &report)
{
    QString out = lines(report).join(u'\n') + u'\n';
    if (!report.problems.isEmpty()) {
        out += u'\n' + tr("What could not be checked:") + u'\n';
        for (const Problem &p : report.problems)
            out += QStringLiteral("  %1: %2\n").arg(p.method, p.error);
    }
    return out;
}

} // namespace tfsetup::core
