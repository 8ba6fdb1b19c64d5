// cuBLAS's version and SGEMM entry points, on the processor, column-major as cuBLAS.
#include "fakegpu.h"

#include <cstdint>

namespace {
int handleToken = 0;
}

extern "C" {

int cublasGetProperty(int type, int *value)
{
    const int parts[] = {12, 4, 5};
    if (type < 0 || type > 2)
        return 7;
    *value = parts[type];
    return 0;
}

const char *cublasGetStatusName(int status)
{
    switch (status) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

int cublasCreate_v2(void **handle)
{
    *handle = &handleToken;
    return 0;
}

int cublasDestroy_v2(void *handle)
{
    return handle == &handleToken ? 0 : 1;
}

int cublasSgemm_v2(void *handle, int transa, int transb, int m, int n, int k, const float *alpha, const float *a,
                   int lda, const float *b, int ldb, const float *beta, float *c, int ldc)
{
    if (handle != &handleToken)
        return 1;
    if (transa != 0 || transb != 0 || m < 0 || n < 0 || k < 0)
        return 7;
    if (fakeFault("cublas_error"))
        return 13;
    for (int col = 0; col < n; ++col)
        for (int row = 0; row < m; ++row) {
            float sum = 0;
            for (int i = 0; i < k; ++i)
                sum += a[i * lda + row] * b[col * ldb + i];
            c[col * ldc + row] = *alpha * sum + (*beta != 0 ? *beta * c[col * ldc + row] : 0);
        }
    return 0;
}

} // extern "C"
