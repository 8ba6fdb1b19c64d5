// The CUDA driver API entry points tfsetup's detection and load probe call, on the processor.
#include "fakegpu.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <chrono>
#include <string>
#include <thread>

namespace {

struct Function {
    std::string name;
};
// A function handle lives as long as its module, as the driver's do.
struct Module {
    std::string ptx;
    Function function;
};
int contextToken = 0;
bool initialized = false;

} // namespace

extern "C" {

int cuDriverGetVersion(int *version)
{
    *version = 12020;
    return 0;
}

int cuInit(unsigned int)
{
    if (fakeFault("no_device"))
        return 100;
    initialized = true;
    return 0;
}

int cuGetErrorName(int error, const char **name)
{
    switch (error) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 3: *name = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
    case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
    case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
    default: *name = nullptr; return 1;
    }
}

int cuDeviceGetCount(int *count)
{
    *count = initialized ? 1 : 0;
    return initialized ? 0 : 3;
}

int cuDeviceGet(int *device, int ordinal)
{
    if (!initialized)
        return 3;
    if (ordinal != 0)
        return 101;
    *device = 0;
    return 0;
}

int cuDeviceGetName(char *name, int length, int)
{
    std::snprintf(name, std::size_t(length), "Fake GPU");
    return 0;
}

int cuDeviceTotalMem_v2(std::size_t *bytes, int)
{
    *bytes = std::size_t(1) << 30;
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, int)
{
    *value = attribute == 75 ? 9 : 0;
    return 0;
}

int cuDeviceGetPCIBusId(char *busId, int length, int)
{
    std::snprintf(busId, std::size_t(length), "0000:01:00.0");
    return 0;
}

int cuDevicePrimaryCtxRetain(void **context, int)
{
    if (!initialized)
        return 3;
    *context = &contextToken;
    return 0;
}

int cuDevicePrimaryCtxRelease_v2(int)
{
    return 0;
}

int cuCtxSetCurrent(void *context)
{
    return context == &contextToken ? 0 : 1;
}

int cuCtxSynchronize()
{
    return 0;
}

int cuModuleLoadData(void **module, const void *image)
{
    if (!image)
        return 1;
    if (fakeFault("ptx_rejected"))
        return 218;
    const char *text = static_cast<const char *>(image);
    // Only checks it was given PTX: a version, a target and an entry.
    if (!std::strstr(text, ".version") || !std::strstr(text, ".target") || !std::strstr(text, ".entry"))
        return 218;
    *module = new Module{text, {}};
    return 0;
}

int cuModuleUnload(void *module)
{
    delete static_cast<Module *>(module);
    return 0;
}

int cuModuleGetFunction(void **function, void *module, const char *name)
{
    Module *m = static_cast<Module *>(module);
    if (m->ptx.find(std::string(".entry ") + name + "(") == std::string::npos)
        return 500;
    m->function.name = name;
    *function = &m->function;
    return 0;
}

int cuMemAlloc_v2(unsigned long long *pointer, std::size_t bytes)
{
    void *p = std::malloc(bytes);
    if (!p)
        return 2;
    *pointer = reinterpret_cast<std::uintptr_t>(p);
    return 0;
}

int cuMemFree_v2(unsigned long long pointer)
{
    std::free(reinterpret_cast<void *>(std::uintptr_t(pointer)));
    return 0;
}

int cuMemcpyHtoD_v2(unsigned long long device, const void *host, std::size_t bytes)
{
    std::memcpy(reinterpret_cast<void *>(std::uintptr_t(device)), host, bytes);
    return 0;
}

int cuMemcpyDtoH_v2(void *host, unsigned long long device, std::size_t bytes)
{
    std::memcpy(host, reinterpret_cast<const void *>(std::uintptr_t(device)), bytes);
    return 0;
}

// Runs the one kernel the probe ships, c[i] = a[i] + b[i], over the grid as the GPU would.
int cuLaunchKernel(void *function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX, unsigned blockY,
                   unsigned blockZ, unsigned, void *, void **parameters, void **)
{
    if (!function || !parameters || static_cast<Function *>(function)->name != "tfsetup_vector_add")
        return 1;
    if (fakeFault("hang"))
        std::this_thread::sleep_for(std::chrono::seconds(5));
    const auto a = reinterpret_cast<const float *>(std::uintptr_t(*static_cast<unsigned long long *>(parameters[0])));
    const auto b = reinterpret_cast<const float *>(std::uintptr_t(*static_cast<unsigned long long *>(parameters[1])));
    const auto c = reinterpret_cast<float *>(std::uintptr_t(*static_cast<unsigned long long *>(parameters[2])));
    const unsigned n = *static_cast<unsigned *>(parameters[3]);
    const unsigned threads = gridX * gridY * gridZ * blockX * blockY * blockZ;
    const float extra = fakeFault("kernel_wrong") ? 1.0f : 0.0f;
    for (unsigned i = 0; i < threads && i < n; ++i)
        c[i] = a[i] + b[i] + extra;
    return 0;
}

} // extern "C"
