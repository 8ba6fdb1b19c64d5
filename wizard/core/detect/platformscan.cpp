#include "detect/scanners.h"

#include "detect/versionparsers.h"

namespace tfsetup::core {

namespace {

QString registryString(SystemView &system, const QString &key, const QString &name)
{
    const auto value = system.registryValue(key, name);
    return value ? value->toString().trimmed() : QString();
}

void scanWindowsVersion(SystemView &system, HardwareReport &report)
{
    const QString key = QStringLiteral("HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion");
    QString build = registryString(system, key, QStringLiteral("CurrentBuild"));
    if (build.isEmpty())
        build = registryString(system, key, QStringLiteral("CurrentBuildNumber"));
    // DisplayVersion ("22H2") appeared with 20H2; older releases only have ReleaseId ("2004").
    QString display = registryString(system, key, QStringLiteral("DisplayVersion"));
    if (display.isEmpty())
        display = registryString(system, key, QStringLiteral("ReleaseId"));
    const auto text = parsers::windowsVersionText(registryString(system, key, QStringLiteral("ProductName")), display,
                                                  build);
    if (text)
        report.os.version = *text;
    else
        report.problems.append({QStringLiteral("registry"), text.error().code + u": " + key});
}

void scanLinuxVersion(SystemView &system, HardwareReport &report)
{
    // os-release(5): /etc/os-release, falling back to /usr/lib/os-release.
    std::optional<QByteArray> text = system.readFile(QStringLiteral("/etc/os-release"), 64 * 1024);
    if (!text)
        text = system.readFile(QStringLiteral("/usr/lib/os-release"), 64 * 1024);
    if (!text) {
        report.problems.append({QStringLiteral("os-release"), QStringLiteral("/etc/os-release: not readable")});
        return;
    }
    const auto parsed = parsers::parseOsRelease(*text);
    if (parsed)
        report.os.version = parsed->prettyName;
    else
        report.problems.append({QStringLiteral("os-release"), parsed.error().code + u": " + parsed.error().detail});
}

void scanWsl(SystemView &system, HardwareReport &report)
{
    std::optional<parsers::KernelInfo> kernel;
    QString firstError;
    for (const QString &path : {QStringLiteral("/proc/version"), QStringLiteral("/proc/sys/kernel/osrelease")}) {
        const auto text = system.readFile(path, 4096);
        if (!text)
            continue;
        const auto parsed = parsers::parseKernelVersion(*text);
        if (parsed) {
            kernel = *parsed;
            break;
        }
        if (firstError.isEmpty())
            firstError = path + u": " + parsed.error().detail;
    }
    report.os.wslCudaLibrary = system.isFile(QStringLiteral("/usr/lib/wsl/lib/libcuda.so.1"));
    if (kernel) {
        report.os.wsl = kernel->wsl;
    } else if (!system.env(QStringLiteral("WSL_DISTRO_NAME")).isEmpty()) {
        // The kernel could not be read but WSL announced itself. Only WSL2 maps the Windows
        // driver's libcuda into /usr/lib/wsl/lib, so that is the best remaining hint.
        report.os.wsl = report.os.wslCudaLibrary ? 2 : 1;
        report.problems.append({QStringLiteral("proc-version"),
                                firstError.isEmpty() ? QStringLiteral("/proc/version: not readable") : firstError});
    } else if (!firstError.isEmpty()) {
        report.problems.append({QStringLiteral("proc-version"), firstError});
    }
}

void scanDocker(SystemView &system, HardwareReport &report)
{
    if (system.exists(QStringLiteral("/.dockerenv"))) {
        report.os.docker = true;
        return;
    }
    const auto cgroup = system.readFile(QStringLiteral("/proc/1/cgroup"), 64 * 1024);
    report.os.docker = cgroup && cgroup->contains("docker");
}

} // namespace

void scanOs(SystemView &system, HardwareReport &report)
{
    report.os.family = osFamilyName(system.os());
    report.os.arch = system.arch();
    switch (system.os()) {
    case OsFamily::Windows: scanWindowsVersion(system, report); break;
    case OsFamily::Linux:
        scanLinuxVersion(system, report);
        scanWsl(system, report);
        scanDocker(system, report);
        break;
    case OsFamily::MacOS: break;
    }
}

void scanCpu(SystemView &system, HardwareReport &report)
{
    if (const auto id = system.cpuid()) {
        report.cpu.name = id->brand.simplified();
        report.cpu.avx = id->avx;
        report.cpu.avx2 = id->avx2;
        report.cpu.fma = id->fma;
        report.cpu.avx512f = id->avx512f;
        report.cpu.source = QStringLiteral("cpuid");
        if (!report.cpu.name.isEmpty())
            return;
        // cpuid without a brand string (some hypervisors): keep its features, name it below.
    }
    const bool haveFeatures = report.cpu.source == u"cpuid";

    if (system.os() == OsFamily::Windows) {
        const QString name = registryString(system,
                                            QStringLiteral("HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0"),
                                            QStringLiteral("ProcessorNameString"));
        if (name.isEmpty()) {
            report.problems.append(
                {QStringLiteral("registry"), QStringLiteral("CentralProcessor\\0\\ProcessorNameString: missing")});
            return;
        }
        report.cpu.name = name.simplified();
        if (!haveFeatures)
            report.cpu.source = QStringLiteral("registry");
        return;
    }

    const auto text = system.readFile(QStringLiteral("/proc/cpuinfo"), 4 * 1024 * 1024);
    if (!text) {
        if (!haveFeatures)
            report.problems.append({QStringLiteral("cpuinfo"), QStringLiteral("/proc/cpuinfo: not readable")});
        return;
    }
    const auto parsed = parsers::parseProcCpuInfo(*text);
    if (!parsed) {
        report.problems.append({QStringLiteral("cpuinfo"), parsed.error().code + u": " + parsed.error().detail});
        return;
    }
    report.cpu.name = parsed->modelName.simplified();
    if (haveFeatures)
        return;
    report.cpu.source = QStringLiteral("proc-cpuinfo");
    if (parsed->hasFlags) {
        report.cpu.avx = parsed->avx;
        report.cpu.avx2 = parsed->avx2;
        report.cpu.fma = parsed->fma;
        report.cpu.avx512f = parsed->avx512f;
    }
}

} // namespace tfsetup::core
