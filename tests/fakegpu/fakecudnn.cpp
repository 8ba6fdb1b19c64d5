// cuDNN's version call and the legacy convolution API (cuDNN 8 and 9), on the processor.
#include "fakegpu.h"

#include <cstddef>

namespace {

struct Tensor {
    int format = -1, type = -1, n = 0, c = 0, h = 0, w = 0;
};
struct Convolution {
    int padH = 0, padW = 0, u = 1, v = 1, dilH = 1, dilW = 1, mode = -1, type = -1;
};
int handleToken = 0;

} // namespace

extern "C" {

std::size_t cudnnGetVersion()
{
    return 90100;
}

const char *cudnnGetErrorString(int status)
{
    switch (status) {
    case 0: return "CUDNN_STATUS_SUCCESS";
    case 2000: return "CUDNN_STATUS_BAD_PARAM";
    default: return "CUDNN_STATUS_UNKNOWN";
    }
}

int cudnnCreate(void **handle)
{
    *handle = &handleToken;
    return 0;
}
int cudnnDestroy(void *)
{
    return 0;
}

int cudnnCreateTensorDescriptor(void **d)
{
    *d = new Tensor;
    return 0;
}
int cudnnDestroyTensorDescriptor(void *d)
{
    delete static_cast<Tensor *>(d);
    return 0;
}
int cudnnSetTensor4dDescriptor(void *d, int format, int type, int n, int c, int h, int w)
{
    if (format != 0 || type != 0 || n <= 0 || c <= 0 || h <= 0 || w <= 0)
        return 2000;
    *static_cast<Tensor *>(d) = {format, type, n, c, h, w};
    return 0;
}
int cudnnCreateFilterDescriptor(void **d)
{
    return cudnnCreateTensorDescriptor(d);
}
int cudnnDestroyFilterDescriptor(void *d)
{
    return cudnnDestroyTensorDescriptor(d);
}
// Data type before format, unlike the tensor call.
int cudnnSetFilter4dDescriptor(void *d, int type, int format, int k, int c, int h, int w)
{
    return cudnnSetTensor4dDescriptor(d, format, type, k, c, h, w);
}
int cudnnCreateConvolutionDescriptor(void **d)
{
    *d = new Convolution;
    return 0;
}
int cudnnDestroyConvolutionDescriptor(void *d)
{
    delete static_cast<Convolution *>(d);
    return 0;
}
int cudnnSetConvolution2dDescriptor(void *d, int padH, int padW, int u, int v, int dilH, int dilW, int mode, int type)
{
    if (u <= 0 || v <= 0 || dilH <= 0 || dilW <= 0 || (mode != 0 && mode != 1) || type != 0)
        return 2000;
    *static_cast<Convolution *>(d) = {padH, padW, u, v, dilH, dilW, mode, type};
    return 0;
}
int cudnnGetConvolutionForwardWorkspaceSize(void *, void *, void *, void *, void *, int algo, std::size_t *bytes)
{
    if (algo != 0)
        return 2000;
    *bytes = 0;
    return 0;
}

int cudnnConvolutionForward(void *handle, const void *alpha, void *xd, const void *xp, void *wd, const void *wp,
                            void *cd, int algo, void *, std::size_t, const void *beta, void *yd, void *yp)
{
    const Tensor &x = *static_cast<Tensor *>(xd);
    const Tensor &f = *static_cast<Tensor *>(wd);
    const Tensor &y = *static_cast<Tensor *>(yd);
    const Convolution &cv = *static_cast<Convolution *>(cd);
    if (handle != &handleToken || algo != 0 || x.c != f.c || y.c != f.n || y.n != x.n)
        return 2000;
    const float a = *static_cast<const float *>(alpha);
    const float b = *static_cast<const float *>(beta);
    const float *in = static_cast<const float *>(xp);
    const float *w = static_cast<const float *>(wp);
    float *out = static_cast<float *>(yp);
    const bool wrong = fakeFault("cudnn_wrong");
    for (int n = 0; n < y.n; ++n)
        for (int k = 0; k < y.c; ++k)
            for (int p = 0; p < y.h; ++p)
                for (int q = 0; q < y.w; ++q) {
                    float sum = 0;
                    for (int c = 0; c < x.c; ++c)
                        for (int r = 0; r < f.h; ++r)
                            for (int s = 0; s < f.w; ++s) {
                                // Cross-correlation; true convolution flips the filter.
                                const int rr = cv.mode == 1 ? r : f.h - 1 - r;
                                const int ss = cv.mode == 1 ? s : f.w - 1 - s;
                                const int h = p * cv.u - cv.padH + r * cv.dilH;
                                const int ww = q * cv.v - cv.padW + s * cv.dilW;
                                if (h < 0 || h >= x.h || ww < 0 || ww >= x.w)
                                    continue;
                                sum += in[((n * x.c + c) * x.h + h) * x.w + ww]
                                    * w[((k * f.c + c) * f.h + rr) * f.w + ss];
                            }
                    float &o = out[((n * y.c + k) * y.h + p) * y.w + q];
                    o = wrong ? 0.0f : a * sum + (b != 0 ? b * o : 0);
                }
    return 0;
}

} // extern "C"
