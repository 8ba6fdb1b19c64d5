#include "solver/routenames.h"

namespace tfsetup::core {

namespace {

enum class Kind { Cpu, NvidiaPip, NvidiaWsl2, NvidiaToolkitWindows, NvidiaToolkit, Amd, DirectMl, Apple, Other };

Kind kindOf(const Route &route)
{
    if (!route.isAccelerated())
        return Kind::Cpu;
    if (route.accelerator == u"nvidia") {
        if (route.wsl == u"required")
            return Kind::NvidiaWsl2;
        if (route.cudaLibraries == u"pip")
            return Kind::NvidiaPip;
        return route.driverOs == u"windows" || route.os == QStringList{QStringLiteral("windows")}
            ? Kind::NvidiaToolkitWindows
            : Kind::NvidiaToolkit;
    }
    if (route.accelerator == u"amd")
        return Kind::Amd;
    if (route.accelerator == u"directx12")
        return Kind::DirectMl;
    if (route.accelerator == u"apple")
        return Kind::Apple;
    return Kind::Other;
}

} // namespace

QString RouteNames::title(const Route &route)
{
    switch (kindOf(route)) {
    case Kind::Cpu: return tr("Processor only (no GPU)");
    case Kind::NvidiaPip: return tr("NVIDIA GPU, CUDA as pip wheels with NVIDIA's CUDA packages");
    case Kind::NvidiaWsl2: return tr("NVIDIA GPU inside WSL2 (Linux in Windows), CUDA as pip wheels");
    case Kind::NvidiaToolkitWindows: return tr("NVIDIA GPU on Windows, CUDA libraries from NVIDIA's archives");
    case Kind::NvidiaToolkit: return tr("NVIDIA GPU, CUDA toolkit libraries from NVIDIA's archives");
    case Kind::Amd: return tr("AMD GPU with ROCm (experimental)");
    case Kind::DirectMl: return tr("DirectX 12 GPU with DirectML (experimental)");
    case Kind::Apple: return tr("Apple GPU with Metal");
    case Kind::Other: break;
    }
    return route.experimental ? tr("Another GPU route (experimental)") : tr("Another GPU route");
}

QString RouteNames::shortName(const Route &route)
{
    switch (kindOf(route)) {
    case Kind::Cpu: return tr("Processor only");
    case Kind::NvidiaPip: return tr("GPU, CUDA from pip");
    case Kind::NvidiaWsl2: return tr("GPU in WSL2");
    case Kind::NvidiaToolkitWindows: return tr("GPU on Windows");
    case Kind::NvidiaToolkit: return tr("GPU, CUDA archives");
    case Kind::Amd: return tr("AMD GPU (ROCm)");
    case Kind::DirectMl: return tr("DirectML");
    case Kind::Apple: return tr("Apple GPU (Metal)");
    case Kind::Other: break;
    }
    return tr("Another GPU route");
}

QString RouteNames::title(const Catalog &catalog, const QString &routeId)
{
    const Route *route = catalog.route(routeId);
    return route ? title(*route) : routeId;
}

QString RouteNames::shortName(const Catalog &catalog, const QString &routeId)
{
    const Route *route = catalog.route(routeId);
    return route ? shortName(*route) : routeId;
}

} // namespace tfsetup::core
