#pragma once

#include "catalog/versionqueries.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <memory>

namespace tfsetup::core {

// The probe's compute check: loading a library proves little about whether it computes. After
// the load probe, a vector add (a PTX kernel through the driver API), one cuBLAS SGEMM and one
// cuDNN convolution run on GPU 0 with the libraries the probe just loaded, each compared with
// the processor. Entry points, enumerators and sizes come from probe.json's "compute" section.

// One step of the check. status: "passed" | "failed" | "skipped".
struct ComputeStep {
    QString step; // "kernel" | "cublas" | "cudnn"
    QString status;
    QString library; // the library file the step used
    QString call;    // failed: the call that failed, "cublasSgemm_v2"
    QString error;   // failed: its status name, "CUBLAS_STATUS_EXECUTION_FAILED (13)", or how the result differs
    // skipped: "no_gpu" | "driver_missing" | "library_missing" | "gpu_unusable" | "timed_out" | "no_table";
    // failed: "timed_out" when the step did not return in time.
    QString reason;
    double maxDifference = -1; // largest difference from the processor's result; -1 when not compared

    bool passed() const { return status == u"passed"; }
    bool failed() const { return status == u"failed"; }
    QJsonObject toJson() const;
    static ComputeStep fromJson(const QJsonObject &json);
};

// The libraries the probe loaded, kept alive by the check (it may outlive a timed-out wait).
struct ComputeLibraries {
    std::shared_ptr<SharedLibrary> driver;
    std::shared_ptr<SharedLibrary> cublas;
    std::shared_ptr<SharedLibrary> cudnn;
    QString driverName;
    QString cublasName;
    QString cudnnName;
};

// Runs the three steps; ptx is the kernel text. Blocking, and a broken driver can hang it:
// runComputeChecksWithin bounds it.
QList<ComputeStep> runComputeChecks(const ComputeLibraries &libraries, const ComputeTable &table,
                                    const QByteArray &ptx);

// As runComputeChecks, on a thread of its own, waiting at most table.timeoutMs. On time-out the
// step in progress is failed with reason "timed_out", the rest skipped, and *abandoned is set:
// the thread is left running inside the driver and the process must end without unloading.
QList<ComputeStep> runComputeChecksWithin(const ComputeLibraries &libraries, const ComputeTable &table,
                                          const QByteArray &ptx, bool *abandoned);

} // namespace tfsetup::core
