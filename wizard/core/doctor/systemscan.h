#pragma once

#include "catalog/catalog.h"
#include "detect/hardwarereport.h"
#include "doctor/finding.h"
#include "system/systemview.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

struct Knowledge;

// What the doctor checks the machine against: the Python environment a student runs TensorFlow
// in (when --env names one) and the TensorFlow version it holds or that --tf names.
struct DoctorTarget {
    QString envDir;        // target path; empty without --env
    QString envKind;       // "venv" | "conda" | "" (a folder that is neither)
    QString python;        // the environment's interpreter
    QString pythonVersion; // "3.10.11"
    QString tensorflow;    // "2.10.1"; empty when unknown
    QString tensorflowPackage; // "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel"
    QString tensorflowEvidence; // the dist-info folder that told us, or "--tf"
    QStringList pipLibraryDirs; // site-packages/nvidia/*/lib: CUDA from pip wheels
    bool cpuOnly = false;  // the environment is meant to run on the CPU

    QJsonObject toJson() const;
};

// Reads an environment folder (venv or conda) through the view: its Python, its TensorFlow
// distribution and pip-installed NVIDIA libraries. Missing pieces stay empty.
DoctorTarget inspectEnvironment(const SystemView &system, const QString &envDir);

// One folder the loader searches, in order, and why it is searched.
struct LibrarySearchDir {
    QString dir;
    QString origin; // "app" | "conda" | "System32" | "Windows" | "PATH" | "LD_LIBRARY_PATH" | "pip" | "ld.so.conf" | "default"
};

// The folders a bare library name is looked up in, in the loader's order: on Windows the
// standard LoadLibraryExW order TensorFlow relies on (the program's folder, conda's Library\bin
// for conda environments, System32, the Windows folder, PATH); on Linux dlopen's
// (LD_LIBRARY_PATH, the RUNPATH to pip's nvidia/*/lib, ld.so.conf folders, the default folders).
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
