#pragma once

#include "detect/detector.h"

// The individual scanners behind detectHardware(). Each fills its part of the report and appends
// a Problem for every method that failed, with the reason.
namespace tfsetup::core {

// OS family/version/arch, WSL1/WSL2 and its libcuda, Docker.            (platformscan.cpp)
void scanOs(SystemView &system, HardwareReport &report);
// CPU name and AVX/AVX2/FMA/AVX-512 (cpuid, /proc/cpuinfo, registry).    (platformscan.cpp)
void scanCpu(SystemView &system, HardwareReport &report);
// NVIDIA GPUs and driver: NVML, CUDA driver API, nvidia-smi, then PCI ids; other vendors' GPUs.
QCoro::Task<void> scanGpus(SystemView &system, HardwareReport &report, DetectOptions options); // (gpuscan.cpp)
// Python interpreters: PATH, py -0p, common folders, conda, pyenv.      (pythonscan.cpp)
QCoro::Task<void> scanPythons(SystemView &system, HardwareReport &report, DetectOptions options);
// CUDA toolkits, cuDNN copies, MSVC runtime.                             (cudascan.cpp)
void scanCudaToolkits(SystemView &system, HardwareReport &report);
void scanCudnn(SystemView &system, HardwareReport &report);
void scanMsvcRuntime(SystemView &system, HardwareReport &report);

} // namespace tfsetup::core
