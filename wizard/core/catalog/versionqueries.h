#pragma once

#include "util/result.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// The native probe's tables (resources/verify/probe.json): how each library family tells its
// version, and what the compute check calls (verify/libraryprobe.h, verify/gpucompute.h use them).
// Program data: it travels with the binary, not with catalog updates.

// What the compute check runs: entry points, enumerators and sizes (probe.json's "compute").
struct ComputeTable {
    // role ("driver.init", "cublas.sgemm") -> exported names, in order of preference.
    QHash<QString, QStringList> symbols;
    // enumerator name -> value ("CUDNN_TENSOR_NCHW" -> 0).
    QHash<QString, int> values;
    // "cublas" -> status -> "CUBLAS_STATUS_EXECUTION_FAILED", for libraries without a naming call.
    QHash<QString, QHash<int, QString>> statusNames;
    QString kernelFile;  // beside probe.json in the resources
    QString kernelEntry; // the .entry name in it
    int elements = 0;
    int block = 0;
    int gemmSize = 0;
    int convN = 0, convC = 0, convH = 0, convW = 0, convK = 0, convR = 0, convS = 0;
    int convPad = 0, convStride = 1, convDilation = 1;
    double tolerance = 0;
    int timeoutMs = 0;

    bool isEmpty() const { return symbols.isEmpty(); }
    static Result<ComputeTable> fromJson(const QJsonObject &json);
};

// How one library family answers "which version are you" (resources/verify/probe.json).
struct VersionQuery {
    QStringList stems; // "cudart", "cuda", "nvcuda"
    QString symbol;    // "cudaRuntimeGetVersion"
    QString call;      // "int_out" | "size_t" | "property" | "major_minor_out"
    QString encoding;  // "cuda" | "cudnn" | empty (the call gives the parts)
    QString compare;   // "cuda" | "cudnn" | "driver" | empty
    QString source;
};

class VersionQueries {
public:
    static Result<VersionQueries> load(const QString &path = QStringLiteral(":/resources/verify/probe.json"));
    static Result<VersionQueries> fromJson(const QByteArray &json);

    const VersionQuery *forLibrary(const QString &fileName) const;
    const QList<VersionQuery> &all() const { return m_queries; }
    // probe.json's "compute" section; empty in a table without one.
    const ComputeTable &compute() const { return m_compute; }

private:
    QList<VersionQuery> m_queries;
    ComputeTable m_compute;
};

// "libcudnn_ops.so.9" -> "cudnn_ops", "cudart64_110.dll" -> "cudart", "nvJitLink_120_0.dll" ->
// "nvJitLink", "libcuda.so.1" -> "cuda".
QString libraryStem(const QString &fileName);

} // namespace tfsetup::core
