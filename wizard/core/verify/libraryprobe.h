#pragma once

#include "catalog/versionqueries.h"
#include "system/systemview.h"
#include "util/result.h"
#include "verify/gpucompute.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace tfsetup::core {

class Catalog;
struct Knowledge;

// The native load probe: opens every library TensorFlow will open, by the exact names TensorFlow
// uses and the way it opens them (SystemView::loadLibrary), and asks each for its own version.
// It runs in the tfsetup-probe helper started through an environment's launcher, so the loader
// sees the launcher's LD_LIBRARY_PATH / PATH; a library that crashes while answering takes down
// the helper, not tfsetup.

// The major version a Linux soname promises ("libcudart.so.13" -> "13"); empty when the name
// carries none or is a Windows DLL (whose digits mix major and minor: cudart64_110).
QString sonameMajor(const QString &fileName);
// Decodes the integer a version call returned: ("cuda", 13000) -> "13.0", ("cudnn", 8907) ->
// "8.9.7", ("cudnn", 91900) -> "9.19.0".
QString decodeVersion(const QString &encoding, qint64 raw);

// One library to open. A sub-library belongs to a parent (cuDNN 8/9 split into several files
// that libcudnn opens lazily; TensorFlow only reports the parent).
struct ProbeLibrary {
    QString name;   // exactly as TensorFlow passes it to the loader
    QString group;  // "cuda" | "cudnn" | "driver" | "extra"
    QString parent; // for sub-libraries: the parent's name

    bool operator==(const ProbeLibrary &) const = default;
};

struct ProbeRequest {
    QList<ProbeLibrary> libraries;
    QStringList ownDirs; // the environment's own library folders, where each copy should come from
    QString cuda;        // what TensorFlow was built with, "11.2"; empty = not compared
    QString cudnn;       // "8.1"
    // After loading, compute on the GPU with the loaded driver, cuBLAS and cuDNN (--compute).
    bool compute = false;

    // The libraries a TensorFlow built with these CUDA / cuDNN versions opens on os, from the
    // catalog; empty lists where the catalog has no record.
    static ProbeRequest forVersions(const Catalog &catalog, const QString &cuda, const QString &cudnn,
                                    const QString &os);

    // The helper's command line (without the program) and back.
    QStringList toArguments() const;
    static Result<ProbeRequest> fromArguments(const QStringList &arguments);

    bool operator==(const ProbeRequest &) const = default;
};

struct ProbedLibrary {
    ProbeLibrary library;
    bool loaded = false;
    QString error;           // the loader's own words
    QString path;            // the file the loader opened
    QString version;         // "13.0", "9.19.0"; empty when the library has no version call
    qint64 versionRaw = -1;  // as returned, for the log
    QString versionError;    // why the version could not be read
    QStringList otherCopies; // the same name elsewhere on the search path or in ownDirs

    QJsonObject toJson() const;
    static ProbedLibrary fromJson(const QJsonObject &json);
};

// Something the probe found worth naming. Codes:
//   library_missing, sublibrary_missing, shadowed, version_below_build, version_name_mismatch,
//   driver_missing, driver_too_old, driver_older_than_cuda, other_copies;
//   from the compute check: gpu_kernel_failed, cublas_failed, cudnn_failed (other = "call: status"),
//   gpu_not_found (info: the driver loaded but sees no GPU).
struct ProbeFinding {
    Q_DECLARE_TR_FUNCTIONS(ProbeFinding)

public:
    QString code;
    QString severity; // "error" | "warning" | "info"
    QString library;
    QString path;     // the file involved
    QString other;    // the other copy (shadowing), the loader's error, or the parent library
    QString version;  // what the library reported
    QString expected; // what the plan needs

    // Plain words naming the library, the evidence and what to do; translated.
    QString message() const;

    QJsonObject toJson() const;
    static ProbeFinding fromJson(const QJsonObject &json);
};

struct ProbeReport {
    QString os;
    QStringList searchPath; // LD_LIBRARY_PATH (Linux) or PATH (Windows) as the helper saw it
    ProbeRequest request;
    QList<ProbedLibrary> libraries;
    QList<ProbeFinding> findings;
    QList<ComputeStep> compute; // when request.compute: kernel, cublas, cudnn in that order
    // Not in the JSON: the compute check timed out and left a thread inside the driver, so the
    // helper must end without unloading the libraries.
    bool computeAbandoned = false;

    const ProbedLibrary *library(const QString &name) const;
    const ComputeStep *computeStep(const QString &step) const;
    bool has(const QString &code, const QString &library = {}) const;
    const ProbeFinding *finding(const QString &code, const QString &library = {}) const;
    bool hasErrors() const;

    QJsonObject toJson() const;
    static Result<ProbeReport> fromJson(const QJsonObject &json);
};

// Opens each requested library through the view and judges what it found; with request.compute,
// then runs the compute check (gpucompute.h) with what it loaded. Blocking (dlopen runs
// constructors, the check waits on the GPU): call it in the helper or off the GUI thread.
// beforeLoad, when set, hears each name before the loader runs: a library whose constructor or
// version call crashes the helper is then named by the last line the helper wrote.
ProbeReport probeLibraries(SystemView &system, const ProbeRequest &request, const VersionQueries &queries,
                           const std::function<void(const QString &)> &beforeLoad = {});

// The helper's whole life: arguments in, JSON document and exit code out. Exit 0 when nothing
// is an error, 1 when something is, 2 for bad arguments. Kept here so it is testable.
// Progress lines go to stderr as "tfsetup-probe: loading NAME" (see probeCrashCulprit).
struct ProbeOutcome {
    int exitCode = 0;
    QByteArray json;
    QString usageError;
    bool exitWithoutCleanup = false; // see ProbeReport::computeAbandoned
};
// knowledge: the catalog's library names and the version table.
ProbeOutcome runProbeHelper(SystemView &system, const Knowledge &knowledge, const QStringList &arguments);
// The library the helper was loading when it stopped, from its stderr; empty when none.
QString probeCrashCulprit(const QByteArray &standardError);

} // namespace tfsetup::core
