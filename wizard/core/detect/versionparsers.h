#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

// Pure readers for the files and program outputs the platform scanners look at. None of them
// touches the machine: each takes the bytes a scanner read and returns what they say, or an
// Error whose detail quotes what could not be understood. Garbage never crashes a parser.
namespace tfsetup::core::parsers {

// /etc/os-release (freedesktop.org os-release(5)): KEY=VALUE lines, values optionally quoted.
struct OsRelease {
    QString prettyName; // PRETTY_NAME, or NAME + VERSION when PRETTY_NAME is missing
    QString id;         // ID
    QString versionId;  // VERSION_ID
};
Result<OsRelease> parseOsRelease(const QByteArray &text);

// /proc/version or /proc/sys/kernel/osrelease. WSL1 kernels say "4.4.0-19041-Microsoft";
// WSL2 kernels say "…-microsoft-standard-WSL2" (older ones "…-microsoft-standard").
struct KernelInfo {
    QString release; // "5.10.60.1-microsoft-standard-WSL2"
    int wsl = 0;     // 0 = not WSL, 1 or 2
};
Result<KernelInfo> parseKernelVersion(const QByteArray &text);

// The first processor block of /proc/cpuinfo: its model name and the AVX family flags.
// Features stay unknown (nullopt in the report) when the block has no "flags" line.
struct ProcCpuInfo {
    QString modelName;
    bool hasFlags = false;
    bool avx = false;
    bool avx2 = false;
    bool fma = false;
    bool avx512f = false;
};
Result<ProcCpuInfo> parseProcCpuInfo(const QByteArray &text);

// Windows HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion values to one readable line:
// "Windows 11 Pro 23H2 (build 22631)". ProductName says "Windows 10" on Windows 11 too.
Result<QString> windowsVersionText(const QString &productName, const QString &displayVersion,
                                   const QString &currentBuild);
// The Windows build number a version line carries, in any of the forms detection, a hand-written
// hardware report or a pasted log gives: "Windows 10 Pro 22H2 (build 19045)", the NT version
// "10.0.19045" (also "10.0.19045.3803", as `ver` prints it inside "[Version …]"), or "Build 19045".
Result<int> windowsBuildNumber(const QString &versionText);

// CUDA toolkit version.json (CUDA >= 11.1): "cuda" → "version", else "cuda_cudart" → "version".
Result<QString> parseCudaVersionJson(const QByteArray &json);
// CUDA toolkit version.txt (CUDA <= 11.0): "CUDA Version 10.1.243".
Result<QString> parseCudaVersionTxt(const QByteArray &text);
// include/cuda.h: "#define CUDA_VERSION 11080" → "11.8".
Result<QString> parseCudaHeaderVersion(const QByteArray &header);
// The version a toolkit folder name carries: "v11.2", "cuda-11.8" → "11.2", "11.8".
Result<QString> cudaVersionFromFolderName(const QString &name);
// "CUDA_PATH_V11_2" → "11.2".
Result<QString> cudaVersionFromEnvName(const QString &name);

// cudnn_version.h (cuDNN >= 8) or cudnn.h (cuDNN <= 7): CUDNN_MAJOR/MINOR/PATCHLEVEL → "8.1.1".
Result<QString> parseCudnnHeader(const QByteArray &header);
// "libcudnn.so.8.6.0" → "8.6.0", "libcudnn.so.8" → "8", "cudnn64_8.dll" → "8".
Result<QString> cudnnVersionFromLibraryName(const QString &fileName);

// One line of `py -0p` (alias `py --list-paths`). Two formats exist:
//   launcher before 3.11: " -3.10-64        C:\...\python.exe *"  (the star after the path)
//   launcher 3.11 and up: " -V:3.12 *        C:\...\python.exe"   (the star after the tag)
// and other distributions register PEP 514 tags: " -V:ContinuumAnalytics/Anaconda39-64 C:\...".
struct PyLauncherEntry {
    QString tag;     // "3.10-64", "3.12", "ContinuumAnalytics/Anaconda39-64"
    QString version; // "3.10" when the tag names a CPython version, else empty
    int bits = 0;    // 64 / 32 from a "-64"/"-32" suffix; 0 when the tag does not say
    QString path;    // as printed (backslashes kept)
    bool isDefault = false;
};
// Lines without a path (an install the launcher cannot run, headers, "No installed Pythons
// found!") are skipped; an output with no usable line at all is an error.
Result<QList<PyLauncherEntry>> parsePyLauncherList(const QByteArray &output);

// pyvenv.cfg: "version = 3.10.11" (venv) or "version_info = 3.12.1" (virtualenv, uv).
Result<QString> parsePyvenvCfgVersion(const QByteArray &text);
// conda-meta record file name of the python package: "python-3.10.11-h966fe2a_2.json".
Result<QString> pythonVersionFromCondaMetaName(const QString &fileName);
// include/patchlevel.h: '#define PY_VERSION "3.10.11"'.
Result<QString> parsePythonPatchlevel(const QByteArray &header);
// "python310.dll" → "3.10" (not "python3.dll", the stable-ABI forwarder).
Result<QString> pythonVersionFromDllName(const QString &fileName);
// "python3.10" (an executable or a lib/ folder) → "3.10".
Result<QString> pythonVersionFromName(const QString &name);

// What the interpreter probe prints: sys.version.split()[0] and the pointer size in bits.
struct PythonProbe {
    QString version;
    int bits = 0;
};
Result<PythonProbe> parsePythonProbe(const QByteArray &output);

} // namespace tfsetup::core::parsers
