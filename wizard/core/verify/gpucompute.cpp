#include "verify/gpucompute.h"

#include "detect/cudadriver.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QMutex>
#include <QMutexLocker>
#include <QThread>
#include <QWaitCondition>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <vector>

// cuda.h, cublas_api.h and cudnn.h declare their entry points CUDAAPI / CUBLASWINAPI /
// CUDNNWINAPI: __stdcall on 32-bit Windows, the default convention everywhere else.
#if defined(_WIN32) && !defined(_WIN64)
#define TFSETUP_NVAPI __stdcall
#else
#define TFSETUP_NVAPI
#endif

namespace tfsetup::core {

namespace {

// The signatures probe.json's "compute" section cites. Handles and descriptors are opaque
// pointers; CUdeviceptr is an unsigned 64-bit integer on 64-bit hosts.
using ApiStatus = int;
using DevicePtr = unsigned long long;
using Handle = void *;

using InitFn = ApiStatus(TFSETUP_NVAPI *)(unsigned int);
using DeviceGetFn = ApiStatus(TFSETUP_NVAPI *)(int *, int);
using CtxRetainFn = ApiStatus(TFSETUP_NVAPI *)(Handle *, int);
using CtxReleaseFn = ApiStatus(TFSETUP_NVAPI *)(int);
using CtxSetFn = ApiStatus(TFSETUP_NVAPI *)(Handle);
using SyncFn = ApiStatus(TFSETUP_NVAPI *)();
using ModuleLoadFn = ApiStatus(TFSETUP_NVAPI *)(Handle *, const void *);
using ModuleUnloadFn = ApiStatus(TFSETUP_NVAPI *)(Handle);
using FunctionFn = ApiStatus(TFSETUP_NVAPI *)(Handle *, Handle, const char *);
using AllocFn = ApiStatus(TFSETUP_NVAPI *)(DevicePtr *, size_t);
using FreeFn = ApiStatus(TFSETUP_NVAPI *)(DevicePtr);
using ToDeviceFn = ApiStatus(TFSETUP_NVAPI *)(DevicePtr, const void *, size_t);
using ToHostFn = ApiStatus(TFSETUP_NVAPI *)(void *, DevicePtr, size_t);
using LaunchFn = ApiStatus(TFSETUP_NVAPI *)(Handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                            unsigned, Handle, void **, void **);
using DriverErrorNameFn = ApiStatus(TFSETUP_NVAPI *)(ApiStatus, const char **);

using CreateFn = ApiStatus(TFSETUP_NVAPI *)(Handle *);
using DestroyFn = ApiStatus(TFSETUP_NVAPI *)(Handle);
using StatusNameFn = const char *(TFSETUP_NVAPI *)(ApiStatus);
using SgemmFn = ApiStatus(TFSETUP_NVAPI *)(Handle, int, int, int, int, int, const float *, const float *, int,
                                           const float *, int, const float *, float *, int);
using TensorSetFn = ApiStatus(TFSETUP_NVAPI *)(Handle, int, int, int, int, int, int);
using ConvSetFn = ApiStatus(TFSETUP_NVAPI *)(Handle, int, int, int, int, int, int, int, int);
using WorkspaceFn = ApiStatus(TFSETUP_NVAPI *)(Handle, Handle, Handle, Handle, Handle, int, size_t *);
using ForwardFn = ApiStatus(TFSETUP_NVAPI *)(Handle, const void *, Handle, const void *, Handle, const void *, Handle,
                                             int, void *, size_t, const void *, Handle, void *);

constexpr ApiStatus success = 0;

// A step ends at its first failing call; Failure carries which and why.
struct Failure {
    QString call;
    QString error;
};

class Resolver {
public:
    Resolver(SharedLibrary *library, const ComputeTable &table)
        : m_library(library)
        , m_table(table)
    {}

    template<typename Fn>
    Fn get(const char *role, QString *missing)
    {
        const QStringList names = m_table.symbols.value(QLatin1String(role));
        for (const QString &name : names) {
            if (void *address = m_library ? m_library->resolve(name.toLatin1().constData()) : nullptr)
                return reinterpret_cast<Fn>(address);
        }
        if (missing && missing->isEmpty())
            *missing = names.isEmpty() ? QString::fromLatin1(role) : names.first();
        return nullptr;
    }

private:
    SharedLibrary *m_library;
    const ComputeTable &m_table;
};

QString notExported(const QString &symbol)
{
    return QStringLiteral("%1 is not exported").arg(symbol);
}

// Inputs exact in float (and in TF32, which cuBLAS may use on Ampere and later): small multiples
// of 1/8, so a correct GPU agrees with the processor to rounding of the sums alone.
float sample(int i, int salt)
{
    return float(((i * 7 + salt * 3) % 11) - 5) * 0.125f;
}

// Largest difference between got and want relative to max(1, |want|); the index of the worst.
double compare(const std::vector<float> &got, const std::vector<float> &want, qsizetype *worst)
{
    double largest = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const double d = std::fabs(double(got[i]) - double(want[i])) / std::max(1.0, std::fabs(double(want[i])));
        if (!(d <= largest)) { // NaN counts as the worst
            largest = std::isnan(d) ? INFINITY : d;
            *worst = qsizetype(i);
        }
    }
    return largest;
}

QString differs(const std::vector<float> &got, const std::vector<float> &want, qsizetype worst)
{
    return QStringLiteral("result differs from the processor's: element %1 is %2, expected %3")
        .arg(worst)
        .arg(double(got[size_t(worst)]))
        .arg(double(want[size_t(worst)]));
}

// The device memory a step allocated, freed whatever path leaves it.
class DeviceBuffers {
public:
    DeviceBuffers(AllocFn alloc, FreeFn free)
        : m_alloc(alloc)
        , m_free(free)
    {}
    ~DeviceBuffers()
    {
        for (DevicePtr p : m_pointers)
            m_free(p);
    }
    DeviceBuffers(const DeviceBuffers &) = delete;
    DeviceBuffers &operator=(const DeviceBuffers &) = delete;

    ApiStatus alloc(DevicePtr *p, size_t bytes)
    {
        const ApiStatus rc = m_alloc(p, bytes);
        if (rc == success)
            m_pointers.push_back(*p);
        return rc;
    }

private:
    AllocFn m_alloc;
    FreeFn m_free;
    std::vector<DevicePtr> m_pointers;
};

struct Driver {
    InitFn init = nullptr;
    DeviceGetFn deviceGet = nullptr;
    CtxRetainFn retain = nullptr;
    CtxReleaseFn release = nullptr;
    CtxSetFn setCurrent = nullptr;
    SyncFn synchronize = nullptr;
    ModuleLoadFn moduleLoad = nullptr;
    ModuleUnloadFn moduleUnload = nullptr;
    FunctionFn function = nullptr;
    AllocFn alloc = nullptr;
    FreeFn free = nullptr;
    ToDeviceFn toDevice = nullptr;
    ToHostFn toHost = nullptr;
    LaunchFn launch = nullptr;
    DriverErrorNameFn errorName = nullptr; // optional

    QString name(ApiStatus rc) const
    {
        const char *text = nullptr;
        if (errorName && errorName(rc, &text) == success && text)
            return QStringLiteral("%1 (%2)").arg(QString::fromLatin1(text)).arg(rc);
        return QStringLiteral("%1 (%2)").arg(cudaErrorName(rc)).arg(rc);
    }
};

QString libraryStatusName(StatusNameFn namer, const ComputeTable &table, const char *library, ApiStatus rc)
{
    const char *text = namer ? namer(rc) : nullptr;
    QString name = text ? QString::fromLatin1(text) : table.statusNames.value(QLatin1String(library)).value(rc);
    if (name.isEmpty())
        name = QStringLiteral("status");
    return QStringLiteral("%1 (%2)").arg(name).arg(rc);
}

QString symbolName(const ComputeTable &table, const char *role)
{
    return table.symbols.value(QLatin1String(role)).value(0);
}

// Copies host data into fresh device memory; the failing call's name on failure.
std::optional<Failure> upload(const Driver &d, DeviceBuffers &buffers, const std::vector<float> &host,
                              DevicePtr *device, const ComputeTable &table)
{
    const size_t bytes = host.size() * sizeof(float);
    if (const ApiStatus rc = buffers.alloc(device, bytes); rc != success)
        return Failure{symbolName(table, "driver.alloc"), d.name(rc)};
    if (const ApiStatus rc = d.toDevice(*device, host.data(), bytes); rc != success)
        return Failure{symbolName(table, "driver.copy_to_device"), d.name(rc)};
    return std::nullopt;
}

// Each host buffer into fresh device memory, in order; the first failure.
std::optional<Failure> uploadAll(const Driver &d, DeviceBuffers &buffers, const ComputeTable &table,
                                 std::initializer_list<std::pair<const std::vector<float> *, DevicePtr *>> copies)
{
    for (const auto &[host, device] : copies) {
        if (auto f = upload(d, buffers, *host, device, table))
            return f;
    }
    return std::nullopt;
}

std::optional<Failure> download(const Driver &d, DevicePtr device, std::vector<float> &host, const ComputeTable &table)
{
    if (const ApiStatus rc = d.synchronize(); rc != success)
        return Failure{symbolName(table, "driver.synchronize"), d.name(rc)};
    if (const ApiStatus rc = d.toHost(host.data(), device, host.size() * sizeof(float)); rc != success)
        return Failure{symbolName(table, "driver.copy_to_host"), d.name(rc)};
    return std::nullopt;
}

// Waits for the GPU, copies its result back and compares it with the processor's; a result too
// far off is a failure of `role`, the call that computed it. *difference: the largest difference.
std::optional<Failure> downloadAndCompare(const Driver &d, DevicePtr device, std::vector<float> &got,
                                          const std::vector<float> &want, const ComputeTable &table, const char *role,
                                          double *difference)
{
    if (auto f = download(d, device, got, table))
        return f;
    qsizetype worst = 0;
    *difference = compare(got, want, &worst);
    if (*difference > table.tolerance)
        return Failure{symbolName(table, role), differs(got, want, worst)};
    return std::nullopt;
}

// --- the three steps; each returns its failure, or fills *difference ---

std::optional<Failure> runKernel(const Driver &d, const ComputeTable &table, const QByteArray &ptx, double *difference)
{
    if (ptx.isEmpty())
        return Failure{symbolName(table, "driver.module_load"), QStringLiteral("the kernel text is missing")};
    Handle module = nullptr;
    if (const ApiStatus rc = d.moduleLoad(&module, ptx.constData()); rc != success)
        return Failure{symbolName(table, "driver.module_load"), d.name(rc)};
    struct Unload {
        const Driver &d;
        Handle m;
        ~Unload() { d.moduleUnload(m); }
    } unload{d, module};
    Handle function = nullptr;
    const QByteArray entry = table.kernelEntry.toLatin1();
    if (const ApiStatus rc = d.function(&function, module, entry.constData()); rc != success)
        return Failure{symbolName(table, "driver.function"), d.name(rc)};

    const int n = table.elements;
    const size_t size = size_t(n);
    std::vector<float> a(size), b(size), want(size), got(size, NAN);
    for (int i = 0; i < n; ++i) {
        a[size_t(i)] = sample(i, 1);
        b[size_t(i)] = sample(i, 2);
        want[size_t(i)] = a[size_t(i)] + b[size_t(i)];
    }
    DeviceBuffers buffers(d.alloc, d.free);
    DevicePtr da = 0, db = 0, dc = 0;
    if (auto f = uploadAll(d, buffers, table, {{&a, &da}, {&b, &db}, {&got, &dc}}))
        return f;
    unsigned count = unsigned(n);
    void *parameters[] = {&da, &db, &dc, &count};
    const unsigned block = unsigned(table.block);
    const unsigned grid = (count + block - 1) / block;
    if (const ApiStatus rc = d.launch(function, grid, 1, 1, block, 1, 1, 0, nullptr, parameters, nullptr);
        rc != success)
        return Failure{symbolName(table, "driver.launch"), d.name(rc)};
    return downloadAndCompare(d, dc, got, want, table, "driver.launch", difference);
}

std::optional<Failure> runGemm(const Driver &d, SharedLibrary &library, const ComputeTable &table, double *difference)
{
    Resolver r(&library, table);
    QString missing;
    const auto create = r.get<CreateFn>("cublas.create", &missing);
    const auto destroy = r.get<DestroyFn>("cublas.destroy", &missing);
    const auto sgemm = r.get<SgemmFn>("cublas.sgemm", &missing);
    const auto namer = r.get<StatusNameFn>("cublas.status_name", nullptr);
    if (!missing.isEmpty())
        return Failure{missing, notExported(missing)};
    const auto name = [&](ApiStatus rc) { return libraryStatusName(namer, table, "cublas", rc); };

    Handle handle = nullptr;
    if (const ApiStatus rc = create(&handle); rc != success)
        return Failure{symbolName(table, "cublas.create"), name(rc)};
    struct Destroy {
        DestroyFn destroy;
        Handle h;
        ~Destroy() { destroy(h); }
    } guard{destroy, handle};

    const int n = table.gemmSize;
    const size_t cells = size_t(n) * size_t(n);
    std::vector<float> a(cells), b(cells), want(cells, 0.0f), got(cells, NAN);
    for (size_t i = 0; i < cells; ++i) {
        a[i] = sample(int(i), 3);
        b[i] = sample(int(i), 4);
    }
    // Column-major, as cuBLAS: element (row, col) at col * n + row.
    for (int col = 0; col < n; ++col) {
        for (int row = 0; row < n; ++row) {
            float sum = 0;
            for (int k = 0; k < n; ++k)
                sum += a[size_t(k) * size_t(n) + size_t(row)] * b[size_t(col) * size_t(n) + size_t(k)];
            want[size_t(col) * size_t(n) + size_t(row)] = sum;
        }
    }
    DeviceBuffers buffers(d.alloc, d.free);
    DevicePtr da = 0, db = 0, dc = 0;
    if (auto f = uploadAll(d, buffers, table, {{&a, &da}, {&b, &db}, {&got, &dc}}))
        return f;
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const int opN = table.values.value(QStringLiteral("CUBLAS_OP_N"));
    if (const ApiStatus rc = sgemm(handle, opN, opN, n, n, n, &alpha, reinterpret_cast<const float *>(da), n,
                                   reinterpret_cast<const float *>(db), n, &beta, reinterpret_cast<float *>(dc), n);
        rc != success)
        return Failure{symbolName(table, "cublas.sgemm"), name(rc)};
    return downloadAndCompare(d, dc, got, want, table, "cublas.sgemm", difference);
}

std::optional<Failure> runConvolution(const Driver &d, SharedLibrary &library, const ComputeTable &table,
                                      double *difference)
{
    Resolver r(&library, table);
    QString missing;
    const auto create = r.get<CreateFn>("cudnn.create", &missing);
    const auto destroy = r.get<DestroyFn>("cudnn.destroy", &missing);
    const auto namer = r.get<StatusNameFn>("cudnn.error_string", nullptr);
    const auto tensorCreate = r.get<CreateFn>("cudnn.tensor_create", &missing);
    const auto tensorSet = r.get<TensorSetFn>("cudnn.tensor_set", &missing);
    const auto tensorDestroy = r.get<DestroyFn>("cudnn.tensor_destroy", &missing);
    const auto filterCreate = r.get<CreateFn>("cudnn.filter_create", &missing);
    const auto filterSet = r.get<TensorSetFn>("cudnn.filter_set", &missing);
    const auto filterDestroy = r.get<DestroyFn>("cudnn.filter_destroy", &missing);
    const auto convCreate = r.get<CreateFn>("cudnn.convolution_create", &missing);
    const auto convSet = r.get<ConvSetFn>("cudnn.convolution_set", &missing);
    const auto convDestroy = r.get<DestroyFn>("cudnn.convolution_destroy", &missing);
    const auto workspace = r.get<WorkspaceFn>("cudnn.workspace_size", &missing);
    const auto forward = r.get<ForwardFn>("cudnn.forward", &missing);
    if (!missing.isEmpty())
        return Failure{missing, notExported(missing)};
    const auto name = [&](ApiStatus rc) { return libraryStatusName(namer, table, "cudnn", rc); };

    // Every object created is destroyed in reverse order, whatever path leaves the step.
    struct Owned {
        DestroyFn destroy;
        Handle h;
    };
    struct Guard {
        std::vector<Owned> owned;
        ~Guard()
        {
            for (auto it = owned.rbegin(); it != owned.rend(); ++it)
                it->destroy(it->h);
        }
    } guard;
    const auto make = [&](CreateFn fn, DestroyFn del, const char *role, Handle *out) -> std::optional<Failure> {
        if (const ApiStatus rc = fn(out); rc != success)
            return Failure{symbolName(table, role), name(rc)};
        guard.owned.push_back({del, *out});
        return std::nullopt;
    };
    Handle handle = nullptr, x = nullptr, w = nullptr, y = nullptr, conv = nullptr;
    if (auto f = make(create, destroy, "cudnn.create", &handle))
        return f;
    if (auto f = make(tensorCreate, tensorDestroy, "cudnn.tensor_create", &x))
        return f;
    if (auto f = make(tensorCreate, tensorDestroy, "cudnn.tensor_create", &y))
        return f;
    if (auto f = make(filterCreate, filterDestroy, "cudnn.filter_create", &w))
        return f;
    if (auto f = make(convCreate, convDestroy, "cudnn.convolution_create", &conv))
        return f;

    const int floatType = table.values.value(QStringLiteral("CUDNN_DATA_FLOAT"));
    const int nchw = table.values.value(QStringLiteral("CUDNN_TENSOR_NCHW"));
    const int crossCorrelation = table.values.value(QStringLiteral("CUDNN_CROSS_CORRELATION"));
    const int algo = table.values.value(QStringLiteral("CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM"));
    const int N = table.convN, C = table.convC, H = table.convH, W = table.convW;
    const int K = table.convK, R = table.convR, S = table.convS;
    const int pad = table.convPad, stride = table.convStride, dil = table.convDilation;
    const int P = (H + 2 * pad - dil * (R - 1) - 1) / stride + 1;
    const int Q = (W + 2 * pad - dil * (S - 1) - 1) / stride + 1;
    if (const ApiStatus rc = tensorSet(x, nchw, floatType, N, C, H, W); rc != success)
        return Failure{symbolName(table, "cudnn.tensor_set"), name(rc)};
    if (const ApiStatus rc = tensorSet(y, nchw, floatType, N, K, P, Q); rc != success)
        return Failure{symbolName(table, "cudnn.tensor_set"), name(rc)};
    if (const ApiStatus rc = filterSet(w, floatType, nchw, K, C, R, S); rc != success)
        return Failure{symbolName(table, "cudnn.filter_set"), name(rc)};
    if (const ApiStatus rc = convSet(conv, pad, pad, stride, stride, dil, dil, crossCorrelation, floatType);
        rc != success)
        return Failure{symbolName(table, "cudnn.convolution_set"), name(rc)};

    const size_t inSize = size_t(N * C * H * W);
    const size_t filterSize = size_t(K * C * R * S);
    const size_t outSize = size_t(N * K * P * Q);
    std::vector<float> in(inSize), filter(filterSize), want(outSize, 0.0f);
    std::vector<float> got(want.size(), NAN);
    for (size_t i = 0; i < in.size(); ++i)
        in[i] = sample(int(i), 5);
    for (size_t i = 0; i < filter.size(); ++i)
        filter[i] = sample(int(i), 6);
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            for (int p = 0; p < P; ++p)
                for (int q = 0; q < Q; ++q) {
                    float sum = 0;
                    for (int c = 0; c < C; ++c)
                        for (int rr = 0; rr < R; ++rr)
                            for (int s = 0; s < S; ++s) {
                                const int h = p * stride - pad + rr * dil;
                                const int wq = q * stride - pad + s * dil;
                                if (h < 0 || h >= H || wq < 0 || wq >= W)
                                    continue;
                                sum += in[size_t(((n * C + c) * H + h) * W + wq)]
                                    * filter[size_t(((k * C + c) * R + rr) * S + s)];
                            }
                    want[size_t(((n * K + k) * P + p) * Q + q)] = sum;
                }

    DeviceBuffers buffers(d.alloc, d.free);
    DevicePtr dx = 0, dw = 0, dy = 0, dws = 0;
    if (auto f = uploadAll(d, buffers, table, {{&in, &dx}, {&filter, &dw}, {&got, &dy}}))
        return f;
    size_t workspaceBytes = 0;
    if (const ApiStatus rc = workspace(handle, x, w, conv, y, algo, &workspaceBytes); rc != success)
        return Failure{symbolName(table, "cudnn.workspace_size"), name(rc)};
    if (workspaceBytes > 0) {
        if (const ApiStatus rc = buffers.alloc(&dws, workspaceBytes); rc != success)
            return Failure{symbolName(table, "driver.alloc"), d.name(rc)};
    }
    const float alpha = 1.0f;
    const float beta = 0.0f;
    if (const ApiStatus rc = forward(handle, &alpha, x, reinterpret_cast<const void *>(dx), w,
                                     reinterpret_cast<const void *>(dw), conv, algo, reinterpret_cast<void *>(dws),
                                     workspaceBytes, &beta, y, reinterpret_cast<void *>(dy));
        rc != success)
        return Failure{symbolName(table, "cudnn.forward"), name(rc)};
    return downloadAndCompare(d, dy, got, want, table, "cudnn.forward", difference);
}

ComputeStep makeStep(const char *step, const QString &library)
{
    ComputeStep s;
    s.step = QString::fromLatin1(step);
    s.library = library;
    return s;
}

void skip(ComputeStep &s, const char *reason, const QString &error = {})
{
    s.status = QStringLiteral("skipped");
    s.reason = QString::fromLatin1(reason);
    s.error = error;
}

void settle(ComputeStep &s, const std::optional<Failure> &failure, double difference)
{
    s.maxDifference = difference;
    if (!failure) {
        s.status = QStringLiteral("passed");
        return;
    }
    s.status = QStringLiteral("failed");
    s.call = failure->call;
    s.error = failure->error;
}

// Steps run in this order; completed, when given, hears each step that finished after a GPU
// context was made (the ones that may then hang).
QList<ComputeStep> run(const ComputeLibraries &libs, const ComputeTable &table, const QByteArray &ptx,
                       const std::function<void(const ComputeStep &)> &completed)
{
    ComputeStep kernel = makeStep("kernel", libs.driverName);
    ComputeStep gemm = makeStep("cublas", libs.cublasName);
    ComputeStep conv = makeStep("cudnn", libs.cudnnName);
    const auto finish = [&]() { return QList<ComputeStep>{kernel, gemm, conv}; };
    const auto skipAll = [&](const char *reason, const QString &error) {
        skip(kernel, reason, error);
        skip(gemm, reason, error);
        skip(conv, reason, error);
    };
    if (!libs.driver) {
        skipAll("driver_missing", {});
        return finish();
    }
    Resolver r(libs.driver.get(), table);
    QString missing;
    Driver d;
    d.init = r.get<InitFn>("driver.init", &missing);
    d.deviceGet = r.get<DeviceGetFn>("driver.device_get", &missing);
    d.retain = r.get<CtxRetainFn>("driver.context_retain", &missing);
    d.release = r.get<CtxReleaseFn>("driver.context_release", &missing);
    d.setCurrent = r.get<CtxSetFn>("driver.context_set", &missing);
    d.synchronize = r.get<SyncFn>("driver.synchronize", &missing);
    d.moduleLoad = r.get<ModuleLoadFn>("driver.module_load", &missing);
    d.moduleUnload = r.get<ModuleUnloadFn>("driver.module_unload", &missing);
    d.function = r.get<FunctionFn>("driver.function", &missing);
    d.alloc = r.get<AllocFn>("driver.alloc", &missing);
    d.free = r.get<FreeFn>("driver.free", &missing);
    d.toDevice = r.get<ToDeviceFn>("driver.copy_to_device", &missing);
    d.toHost = r.get<ToHostFn>("driver.copy_to_host", &missing);
    d.launch = r.get<LaunchFn>("driver.launch", &missing);
    d.errorName = r.get<DriverErrorNameFn>("driver.error_name", nullptr);
    if (!missing.isEmpty()) {
        settle(kernel, Failure{missing, notExported(missing)}, -1);
        skip(gemm, "gpu_unusable");
        skip(conv, "gpu_unusable");
        return finish();
    }

    const auto contextFailure = [&](const char *role, ApiStatus rc) {
        settle(kernel, Failure{symbolName(table, role), d.name(rc)}, -1);
        skip(gemm, "gpu_unusable");
        skip(conv, "gpu_unusable");
        return finish();
    };
    if (const ApiStatus rc = d.init(0); rc != success) {
        if (rc == table.values.value(QStringLiteral("CUDA_ERROR_NO_DEVICE"), -1)) {
            skipAll("no_gpu", d.name(rc));
            return finish();
        }
        return contextFailure("driver.init", rc);
    }
    int device = 0;
    if (const ApiStatus rc = d.deviceGet(&device, 0); rc != success)
        return contextFailure("driver.device_get", rc);
    // The primary context is the one the CUDA runtime inside cuBLAS and cuDNN uses too.
    Handle context = nullptr;
    if (const ApiStatus rc = d.retain(&context, device); rc != success)
        return contextFailure("driver.context_retain", rc);
    struct Release {
        const Driver &d;
        int device;
        ~Release() { d.release(device); }
    } release{d, device};
    if (const ApiStatus rc = d.setCurrent(context); rc != success)
        return contextFailure("driver.context_set", rc);

    double difference = -1;
    // (The failure is taken first: argument order is unspecified, and the difference is its output.)
    const auto kernelFailure = runKernel(d, table, ptx, &difference);
    settle(kernel, kernelFailure, difference);
    if (completed)
        completed(kernel);
    if (!libs.cublas) {
        skip(gemm, "library_missing");
    } else {
        difference = -1;
        const auto failure = runGemm(d, *libs.cublas, table, &difference);
        settle(gemm, failure, difference);
    }
    if (completed)
        completed(gemm);
    if (!libs.cudnn) {
        skip(conv, "library_missing");
    } else {
        difference = -1;
        const auto failure = runConvolution(d, *libs.cudnn, table, &difference);
        settle(conv, failure, difference);
    }
    return finish();
}

} // namespace

QJsonObject ComputeStep::toJson() const
{
    QJsonObject o{{QStringLiteral("step"), step}, {QStringLiteral("status"), status}};
    if (!library.isEmpty())
        o.insert(QStringLiteral("library"), library);
    if (!call.isEmpty())
        o.insert(QStringLiteral("call"), call);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    if (!reason.isEmpty())
        o.insert(QStringLiteral("reason"), reason);
    if (maxDifference >= 0 && std::isfinite(maxDifference))
        o.insert(QStringLiteral("max_difference"), maxDifference);
    return o;
}

ComputeStep ComputeStep::fromJson(const QJsonObject &o)
{
    ComputeStep s;
    s.step = o.value(QLatin1String("step")).toString();
    s.status = o.value(QLatin1String("status")).toString();
    s.library = o.value(QLatin1String("library")).toString();
    s.call = o.value(QLatin1String("call")).toString();
    s.error = o.value(QLatin1String("error")).toString();
    s.reason = o.value(QLatin1String("reason")).toString();
    s.maxDifference = o.value(QLatin1String("max_difference")).toDouble(-1);
    return s;
}

QList<ComputeStep> runComputeChecks(const ComputeLibraries &libraries, const ComputeTable &table, const QByteArray &ptx)
{
    return run(libraries, table, ptx, {});
}

namespace {

// A thread running one function (QThread::create needs std::future, which MinGW's win32 thread
// model lacks as well).
class FunctionThread final : public QThread {
public:
    explicit FunctionThread(std::function<void()> function)
        : m_function(std::move(function))
    {}

protected:
    void run() override { m_function(); }

private:
    std::function<void()> m_function;
};

} // namespace

QList<ComputeStep> runComputeChecksWithin(const ComputeLibraries &libraries, const ComputeTable &table,
                                          const QByteArray &ptx, bool *abandoned)
{
    // Shared with the worker, which may outlive this call. Qt's thread types, not the standard
    // library's: MinGW's win32 thread model has no std::thread, std::mutex or std::future.
    struct Shared {
        QMutex mutex;
        QWaitCondition done;
        bool finished = false;
        QList<ComputeStep> completed; // while running
        QList<ComputeStep> steps;     // when finished
    };
    auto shared = std::make_shared<Shared>();
    auto *worker = new FunctionThread([shared, libraries, table, ptx]() {
        QList<ComputeStep> steps = run(libraries, table, ptx, [shared](const ComputeStep &step) {
            const QMutexLocker lock(&shared->mutex);
            shared->completed.append(step);
        });
        const QMutexLocker lock(&shared->mutex);
        shared->steps = std::move(steps);
        shared->finished = true;
        shared->done.wakeAll();
    });
    worker->start();
    QMutexLocker lock(&shared->mutex);
    QDeadlineTimer deadline(table.timeoutMs);
    while (!shared->finished) {
        if (!shared->done.wait(&shared->mutex, deadline))
            break;
    }
    if (shared->finished) {
        lock.unlock();
        worker->wait();
        delete worker;
        *abandoned = false;
        return shared->steps;
    }
    QList<ComputeStep> steps = shared->completed;
    lock.unlock();
    // Left running inside the driver: the thread object is never deleted (that would wait for it
    // or abort); the process ends without unloading the libraries.
    *abandoned = true;
    const char *names[] = {"kernel", "cublas", "cudnn"};
    const QString libraryNames[] = {libraries.driverName, libraries.cublasName, libraries.cudnnName};
    const qsizetype current = steps.size();
    for (qsizetype i = current; i < 3; ++i) {
        ComputeStep s = makeStep(names[i], libraryNames[i]);
        if (i == current) {
            s.status = QStringLiteral("failed");
            s.reason = QStringLiteral("timed_out");
            s.error = QStringLiteral("no answer within %1 ms").arg(table.timeoutMs);
        } else {
            skip(s, "timed_out");
        }
        steps.append(s);
    }
    return steps;
}

} // namespace tfsetup::core
