#pragma once

#include "system/systemview.h"
#include "util/result.h"
#include "verify/libraryprobe.h"
#include "verify/smoketest.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace tfsetup::core {

class Catalog;

// What verify needs to know about an installed environment, read from DIR/environment.json
// (written by the installer). Read defensively: every field is optional, paths may be relative
// to DIR, and a launcher that exists on disk is found even when the record does not name it.
struct EnvironmentInfo {
    Q_DECLARE_TR_FUNCTIONS(EnvironmentInfo)

public:
    QString directory;
    QString os; // "linux" | "windows"; empty = the view's
    QString route;
    QString tensorflow; // "2.15.0"
    QString cuda;       // what TensorFlow was built with, "12.2"
    QString cudnn;
    QString pythonLauncher; // runs the environment's Python with the environment's library path
    QString shellLauncher;
    QStringList libraryDirs;   // the environment's own library folders
    QStringList recordedFiles; // every file the installer recorded, as target paths

    static Result<EnvironmentInfo> read(const SystemView &system, const QString &directory);
};

struct VerifyRequest {
    QString pythonLauncher; // empty: run the probe directly and skip the smoke test
    QString probe;          // the tfsetup-probe helper
    QString os;             // "linux" | "windows"
    QString tensorflow;
    QString cuda;
    QString cudnn;
    QString route;
    bool expectGpu = true;
    QStringList libraryDirs;
    // Files the installer placed: the folder of each one that is a probed library is an own folder.
    QStringList recordedFiles;
    QStringList libraries; // overrides the catalog's names
    std::chrono::milliseconds probeTimeout{std::chrono::seconds(60)};
    // The first GPU use can compile kernels for a new card for many minutes.
    std::chrono::milliseconds smokeTimeout{std::chrono::minutes(15)};

    // Fills versions from the environment record and, where only TensorFlow is known, from the
    // catalog's tested table; decides expectGpu from the route.
    static VerifyRequest forEnvironment(const EnvironmentInfo &environment, const Catalog &catalog);
    // The probe request these fields ask for: the catalog's names for cuda / cudnn / os.
    ProbeRequest probeRequest(const Catalog &catalog) const;
};

struct VerifyReport {
    Q_DECLARE_TR_FUNCTIONS(VerifyReport)

public:
    std::optional<ProbeReport> probe;
    SmokeResult smoke;
    QList<VerifyLayer> layers; // libraries, import, devices, cudnn, compute
    QString tensorflow;

    bool passed() const;
    const VerifyLayer *layer(const QString &id) const;
    const VerifyLayer *firstFailure() const;
    QJsonObject toJson() const;
    QString text() const; // for the terminal: one ✓/✗ line per layer, then the explanation
};

// Runs the native load probe (through the launcher, so it sees the environment's library path)
// and the GPU smoke test, and reads both into layers. Every process await has a timeout.
QCoro::Task<VerifyReport> verifyEnvironment(SystemView &system, VerifyRequest request, Catalog catalog);

// The two halves, for pages that show progress between them.
QCoro::Task<Result<ProbeReport>> runLibraryProbe(SystemView &system, VerifyRequest request, ProbeRequest probe);
QCoro::Task<SmokeResult> runSmokeTest(SystemView &system, VerifyRequest request);

// The libraries layer from a probe (or why the probe could not run).
VerifyLayer librariesLayer(const Result<ProbeReport> &probe, bool smokePassed);

} // namespace tfsetup::core
