#pragma once

// TFSETUP_FAKE_GPU names the fault the fakes play; unset or "ok": everything computes right.
//   no_device      cuInit answers CUDA_ERROR_NO_DEVICE (100)
//   ptx_rejected   cuModuleLoadData answers CUDA_ERROR_INVALID_PTX (218)
//   kernel_wrong   the vector add adds one too many
//   cublas_error   cublasSgemm_v2 answers CUBLAS_STATUS_EXECUTION_FAILED (13)
//   cudnn_wrong    the convolution leaves its output zero
//   hang           cuLaunchKernel takes five seconds, a GPU that stopped answering
// "Device" memory is host memory: a CUdeviceptr is the address malloc returned.

#include <cstdlib>
#include <cstring>

inline bool fakeFault(const char *name)
{
    const char *mode = std::getenv("TFSETUP_FAKE_GPU");
    return mode && std::strcmp(mode, name) == 0;
}
