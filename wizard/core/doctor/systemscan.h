#pragma once

#include "catalog/catalog.h"
#include "catalog/finding.h"
#include "detect/hardwarereport.h"
#include "install/environmentrecord.h"
#include "system/systemview.h"
#include "util/result.h"
#include "verify/libraryprobe.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

struct Knowledge;

// What the doctor checks the machine against: the Python environment a student runs TensorFlow
// in (when --env names one) and the TensorFlow version it holds or that --tf names.
struct DoctorTarget {
    QString envDir;             // target path; empty without --env
    QString envKind;            // "venv" | "conda" | "" (a folder that is neither)
    QString python;             // the environment's interpreter
    QString pythonVersion;      // "3.10.11"
    QString tensorflow;         // "2.10.1"; empty when unknown
    QString tensorflowPackage;  // "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel"
    QString tensorflowEvidence; // the dist-info folder that told us, or "--tf"
    QStringList pipLibraryDirs; // site-packages/nvidia/*/lib: CUDA from pip wheels
    bool cpuOnly = false;       // the environment is meant to run on the CPU

    // An environment tfsetup made, read through its record (environment.json beside venv/).
    bool record = false;    // the record was read; the fields below come from it
    QString recordPath;     // the environment.json read, or the one that could not be read
    QString recordError;    // why it could not be read (translated); the folder was read as a plain one
    QString route;          // the plan's route: "linux-pip", "windows-native", …
    QString cuda;           // the plan's CUDA ("12.2"); empty on a CPU route
    QString cudnn;          // the plan's cuDNN
    QList<int> gpus;        // the GPUs the plan pins (nvidia-smi indices); empty: every GPU
    QString pythonLauncher; // start-python.sh / start-python.bat: what verify starts the probe through
    // The folders the launcher puts first on the library path (resources/templates/launcher.*.in):
    // <env>/cuda/lib or lib64 on Linux, <env>/cuda/bin on Windows, those that exist.
    QStringList launcherLibraryDirs;
    QString kernelName;                // the Jupyter kernel the install registered
    QString kernelFolder;              // where it registered it; empty when it did not
    QList<RecordedFile> recordedFiles; // what the install placed (toJson gives only their number)

    QJsonObject toJson() const;
};

// Reads an environment folder (venv or conda) through the view: its Python, its TensorFlow
// distribution and pip-installed NVIDIA libraries. Missing pieces stay empty. A folder tfsetup
// made (environment.json beside venv/), or its venv/, is read through the record: the plan's
// route, CUDA, cuDNN and GPUs, the TensorFlow pip installed, the launcher's library folders, the
// kernel it registered and the files it placed. A record that cannot be read is said in
// recordError and the folder is read as a plain one.
DoctorTarget inspectEnvironment(const SystemView &system, const QString &envDir);

// Blocking (reads sizes, hashes small files; run it off the GUI thread): every file the record of
// a tfsetup environment lists, checked as repair checks them (repair/repair.h checkRecordedFiles:
// missing, moved, another size, and for files up to recordedHashLimit another SHA-256), and the
// files pip's RECORD lists for the NVIDIA wheels in its venv (missing, another size). One
// environment_damaged finding for each kind of damage, naming the files; none when all are there.
inline constexpr qint64 recordedHashLimit = 16 * 1024 * 1024;
QList<DoctorFinding> checkEnvironmentFiles(const SystemView &system, const Knowledge &knowledge,
                                           const DoctorTarget &target);

// The native load probe's findings (the one verify runs through the environment's launcher) as
// doctor findings: a code the doctor knows becomes its cause (library_missing → missing_cuda_runtime
// or missing_cudnn, …), any other error or warning a library_probe finding with the probe's own
// message, so new probe codes flow through. Ids start with "probe.". hardware: without an NVIDIA
// GPU the driver findings are left to the scan's no_gpu_or_driver.
QList<DoctorFinding> probeFindings(const ProbeReport &report, const HardwareReport &hardware,
                                   const Knowledge &knowledge, const DoctorTarget &target);
// An info finding saying the probe did not run, and why (the helper missing in a test, no launcher).
DoctorFinding probeNotRunFinding(const Error &why, const Knowledge &knowledge, const DoctorTarget &target);

// One folder the loader searches, in order, and why it is searched.
struct LibrarySearchDir {
    QString dir;
    QString
        origin; // "app" | "conda" | "System32" | "Windows" | "launcher" | "PATH" | "LD_LIBRARY_PATH" | "pip" | "ld.so.conf" | "default"
};

// The folders a bare library name is looked up in, in the loader's order: on Windows the
// standard LoadLibraryExW order TensorFlow relies on (the program's folder, conda's Library\bin
// for conda environments, System32, the Windows folder, PATH); on Linux dlopen's
// (LD_LIBRARY_PATH, the RUNPATH to pip's nvidia/*/lib, ld.so.conf folders, the default folders).
// A tfsetup environment is searched as its launcher sets it up: its own folders (origin
// "launcher": cuda/bin on Windows, at the head of PATH; cuda/lib and pip's nvidia/*/lib on Linux,
// ahead of the inherited LD_LIBRARY_PATH).
// The current folder also counts on Windows, but it depends on where the user starts Python and
// cannot be known here. Duplicates (the same folder spelled twice) are dropped.
QList<LibrarySearchDir> librarySearchOrder(const SystemView &system, const DoctorTarget &target);

// Every check of the machine the doctor makes (no log): libraries on the search path and their
// shadowing, toolkits, cuDNN completeness and versions, driver, Python range, native-Windows GPU
// limit, compute capability, AVX, MSVC runtime, awkward paths and Jupyter kernels.
QList<DoctorFinding> scanSystem(const SystemView &system, const HardwareReport &hardware, const Knowledge &knowledge,
                                const DoctorTarget &target);
// The checks another machine's detect --json allows (driver, GPUs and compute capability, CPU,
// MSVC runtime, native-Windows limit, Python): nothing of this machine's files is read.
QList<DoctorFinding> scanHardware(const SystemView &system, const HardwareReport &hardware, const Knowledge &knowledge,
                                  const DoctorTarget &target);

} // namespace tfsetup::core
