#pragma once

#include "system/systemview.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace tfsetup::core {

// One step of the proof that an environment works, as the Verify page shows it (✓ / ✗ and
// details). Layers run in order; after the first failure the rest are skipped, and the first
// failure carries the explanation.
struct VerifyLayer {
    enum class Status { Passed, Warning, Failed, Skipped };

    QString id; // "libraries" | "import" | "devices" | "cudnn" | "compute"
    Status status = Status::Skipped;
    QString title;       // translated: "Import TensorFlow"
    QString summary;     // translated one-liner: "TensorFlow 2.15.0 imported in 2.1 s"
    QString explanation; // translated plain words for a failure or warning, with what to do
    QString cause;       // stable code for the doctor and tests: "no_gpu_visible", "cudnn_missing", …
    QStringList details; // evidence: error text, log lines, paths (untranslated)

    bool failed() const { return status == Status::Failed; }
    static QString statusName(Status status);
    QJsonObject toJson() const;
};

// The smoke test's JSON document, read into layers.
struct SmokeResult {
    Q_DECLARE_TR_FUNCTIONS(SmokeResult)

public:
    bool produced = false; // the script printed its document
    QJsonObject document;  // as printed
    QString tensorflowVersion;
    QStringList gpus;
    QList<VerifyLayer> layers; // import, devices, cudnn, compute

    const VerifyLayer *layer(const QString &id) const;
    const VerifyLayer *firstFailure() const;
    // A TensorFlow device path as a student reads it: "GPU 0: NVIDIA GeForce RTX 3060", "the
    // processor"; anything else as it is.
    QString deviceTitle(const QString &device) const;

    // Reads what the script printed (its last JSON line) and how the process ended. expectGpu is
    // false on routes planned for the processor, where an empty GPU list is the expected result.
    static SmokeResult parse(const ProcessResult &process, bool expectGpu = true);

private:
    // One reader per layer of parse(); each returns whether the next layer is read.
    static void failWithoutDocument(VerifyLayer &import, const ProcessResult &process, const QString &stderrTail);
    bool readImport(VerifyLayer &import, const QStringList &log);
    bool readDevices(VerifyLayer &devices, VerifyLayer &import, const QStringList &log, bool expectGpu);
    bool readConvolution(VerifyLayer &cudnn, const QStringList &log, const QString &stderrTail) const;
    void readMatrixProduct(VerifyLayer &compute, const QStringList &log) const;
    bool placedAsPlanned(const QJsonObject &step) const;
    static bool failedToCompute(VerifyLayer &l, const QJsonObject &step, const QStringList &log);
};

// The script itself (resources/verify/verify_tf.py).
QByteArray smokeTestScript();

} // namespace tfsetup::core
