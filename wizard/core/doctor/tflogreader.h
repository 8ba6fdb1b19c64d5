#pragma once

#include "catalog/causes.h"
#include "catalog/finding.h"
#include "catalog/tflogrules.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QRegularExpression>
#include <QString>

#include <optional>

namespace tfsetup::core {

// What a log says about the machine it came from: the platform its paths and library names
// belong to, the TensorFlow, CUDA and cuDNN it asked for, the GPUs and driver it saw. Every
// conclusion keeps the line that led to it.
struct LogMachine {
    QString platform; // "windows" | "linux" | "" (cannot tell)
    bool wsl = false;
    bool macos = false;        // macOS paths or packages (tensorflow-macos, /Users/…): never native Windows
    QString tensorflow;        // "2.10.0"
    QStringList cudaWanted;    // CUDA versions of the runtime libraries it tried ("11.0", "10.1")
    QStringList cudaInstalled; // CUDA versions its folders name (/usr/local/cuda-9.0, CUDA\v10.1)
    QString cudnnLoaded, cudnnCompiled;
    QStringList gpus;       // "GeForce GTX 1080 Ti (6.1)"
    QString driver;         // "470.57.2"
    bool gpuSeen = false;   // the log shows an NVIDIA GPU or a working driver
    bool noGpuSeen = false; // the log says no CUDA device or no driver
    // The log says its machine has no NVIDIA driver at all: libcuda missing, the kernel driver not
    // running, cuInit's 303 (what TensorFlow prints when libcuda cannot be loaded). A machine
    // whose driver answers cannot have written that.
    bool noDriverSeen = false;
    bool gpuDeviceCreated = false;
    // TensorFlow itself answered that it sees no GPU ("Num GPUs Available: 0", `[]` from
    // list_physical_devices('GPU'), only a CPU device listed) or is built without CUDA.
    bool gpuListEmpty = false;
    bool builtWithoutCuda = false;
    bool gpuBuild = false;     // the log names a GPU package (tensorflow-gpu, tensorflow[and-cuda])
    bool cudaMessages = false; // TensorFlow printed anything about CUDA libraries, cuInit or the driver
    QStringList evidence;      // "line 3: …" per conclusion

    // "Windows, TensorFlow 2.10.0, asks for CUDA 11.0, GeForce GTX 1080 Ti (6.1), driver 470.57.2"
    QString describe() const;
};

LogMachine inspectLog(const QString &text);

// The CUDA version a runtime library's file name asks for: cudart64_110.dll → "11.0",
// cudart64_101.dll → "10.1", cublas64_11.dll → "11", libcudart.so.10.0 → "10.0"; empty for
// libraries that do not carry the CUDA version (cuDNN, the driver).
QString cudaVersionOfLibrary(const QString &library);

// What the log reader knows about the machine the log is read for.
struct TfLogContext {
    // The environment is meant to run on the CPU (no NVIDIA GPU, or the CPU route was chosen):
    // GPU-library failures are then expected and only explained.
    bool cpuOnly = false;
    // The machine the log is from, as far as it is known (this machine's detection when the log
    // is this machine's): empty when unknown.
    QStringList installedCuda;                 // CUDA toolkit versions present there ("10.2", "11.8")
    QHash<QString, QString> tensorflowForCuda; // "11.2" → "2.5 – 2.11": releases tested with that CUDA
    std::optional<bool> msvcRuntimePresent;    // Windows: the Visual C++ runtime was found there
    std::optional<bool> cpuHasAvx;
    // Whether the log's machine has an NVIDIA GPU, as its detection says (only for a log read as
    // that machine's): a "no CUDA device" line there is an error, on a CPU-only machine harmless.
    std::optional<bool> gpuPresent;
    QString platform;                  // "windows" | "linux": the machine the log is read as
    bool platformConfirmed = false;    // the log is said to be that machine's (--log-from this)
    QString windowsNativeLastGpu;      // the last TensorFlow with GPU on native Windows ("2.10")
    QString tensorflow;                // the environment's TensorFlow, when the log does not say
    std::optional<LogMachine> machine; // inspectLog() of this very log, when the caller has it
};

class TfLogReader {
public:
    TfLogReader() = default;
    // rules and the causes they name: the same knowledge's (Knowledge::tfLog, Knowledge::causes).
    TfLogReader(TfLogRules rules, CauseRegistry causes);

    const QList<TfLogRule> &rules() const { return m_rules.rules(); }

    // Names the causes in a pasted log or traceback. Repeated lines with one meaning become one
    // finding whose evidence lists them ("line 12: …"); harmless lines give info findings only.
    QList<DoctorFinding> read(const QString &text, const TfLogContext &context = {}) const;
    // The rule a single line matches, or nullptr. For tests and the data-driven corpus.
    const TfLogRule *match(const QString &line) const { return m_rules.match(line); }

private:
    TfLogRules m_rules;
    CauseRegistry m_causes;
};

} // namespace tfsetup::core
