#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoro/QCoroTask>
#include <QDir>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace tfsetup::core {

enum class OsFamily { Linux, Windows, MacOS };

QString osFamilyName(OsFamily os);
std::optional<OsFamily> osFamilyFromName(const QString &name);

struct ProcessResult {
    bool started = false;
    bool timedOut = false;
    int exitCode = -1;
    QByteArray standardOutput;
    QByteArray standardError;
    QString error; // why it did not start or did not finish, untranslated
    bool succeeded() const { return started && !timedOut && exitCode == 0; }
};

// A long command the user watches (pip, venv): its own environment changes and working folder,
// output line by line as it arrives, and a way to stop it.
struct ProcessRequest {
    QString program;
    QStringList arguments;
    QList<std::pair<QString, QString>> environment; // set on top of the view's; an empty value removes
    QString workingDirectory;                       // target path; empty = inherited
    std::chrono::milliseconds timeout{std::chrono::minutes(30)};
    std::function<void(const QString &line)> onOutputLine; // stdout and stderr lines, merged
    std::shared_ptr<const std::atomic<bool>> cancel;       // stops (kills) the command when set
};

// A loaded shared library. Unloaded when destroyed.
class SharedLibrary {
public:
    virtual ~SharedLibrary() = default;
    virtual void *resolve(const char *symbol) = 0;
    // The file the loader actually opened, when it can tell (dlinfo / GetModuleFileNameW).
    virtual QString path() const = 0;
};

struct LibraryLoad {
    std::unique_ptr<SharedLibrary> library;
    QString error; // the loader's own words (dlerror / FormatMessage) when library is null
};

// Free space where a folder is (or would be created).
struct DiskSpace {
    qint64 available = -1; // bytes this user may still write
    QString volume;        // equal for two folders on the same file system
};

struct CpuIdFeatures {
    QString vendor;
    QString brand;
    bool sse42 = false;
    bool avx = false;
    bool avx2 = false;
    bool fma = false;
    bool avx512f = false;
};

// The one door to the machine. Every scanner reads files, environment, processes, libraries and
// the registry through this, so it can be pointed at a fixture tree that imitates another OS.
//
// Paths given to and returned from a view are *target* paths in the imitated OS's spelling:
// "/usr/local/cuda" on Linux, "C:/Program Files/NVIDIA GPU Computing Toolkit" on Windows
// (backslashes are accepted on input; forward slashes are returned).
class SystemView {
public:
    virtual ~SystemView();

    virtual OsFamily os() const = 0;
    virtual QString arch() const = 0; // "x86_64" | "arm64" | …

    // Where a target path is on this host, for reading. Empty when it maps nowhere.
    virtual QString hostPath(const QString &path) const = 0;

    virtual QString env(const QString &name) const = 0;
    virtual QStringList envNames() const = 0;

    // Runs a program (a bare name is looked up on the view's PATH) and collects its output.
    virtual QCoro::Task<ProcessResult> run(QString program, QStringList arguments,
                                           std::chrono::milliseconds timeout) = 0;

    // Runs a watched command. The default runs it with run() and passes the output on when it
    // ends (fixture views answer from canned outputs); the real system streams it.
    virtual QCoro::Task<ProcessResult> runWatched(ProcessRequest request);

    // Loads a library by the name a program would pass to dlopen / LoadLibraryExW.
    virtual LibraryLoad loadLibrary(const QString &name) = 0;

    // Windows registry: "HKLM\\SOFTWARE\\…". Always empty on other systems.
    virtual std::optional<QVariant> registryValue(const QString &key, const QString &name) const = 0;
    virtual QStringList registrySubkeys(const QString &key) const = 0;

    // Processor identification straight from the CPU where the view can ask it.
    virtual std::optional<CpuIdFeatures> cpuid() const = 0;

    // The free space of the file system holding path (a target path; a folder not made yet is
    // measured at its nearest existing parent). nullopt when it cannot be told. The default asks
    // the host for hostPath(path); a fixture view answers what its fixture declares.
    virtual std::optional<DiskSpace> diskSpace(const QString &path) const;

    // --- Conveniences over hostPath(); not virtual. ---
    bool exists(const QString &path) const;
    bool isDir(const QString &path) const;
    bool isFile(const QString &path) const;
    // Names (not paths) of the entries of a directory, sorted.
    QStringList entries(const QString &dir, const QStringList &nameFilters = {},
                        QDir::Filters filters = QDir::AllEntries | QDir::NoDotAndDotDot) const;
    // At most maxBytes of a file; nullopt when it cannot be read.
    std::optional<QByteArray> readFile(const QString &path, qint64 maxBytes = 16 * 1024 * 1024) const;
    qint64 fileSize(const QString &path) const;

    // Path list variables split with the imitated OS's separator; empty entries dropped.
    QStringList pathList(const QString &variable = QStringLiteral("PATH")) const;
    QChar pathListSeparator() const;
    // Joins with '/', normalising backslashes.
    static QString join(const QString &dir, const QString &name);
    // Normalises a target path: backslashes to '/', no trailing '/', drive letter upper-case.
    QString normalize(const QString &path) const;
    // First PATH entry holding name (with .exe tried on Windows); empty when none.
    QString findExecutable(const QString &name) const;
    // A key equal for two target paths that name the same file: the /usr/local/cuda -> cuda-13.0
    // symlink, or "c:\\program files" against "C:/Program Files". For deduplicating findings.
    QString identity(const QString &path) const;
    // The user's home folder in the imitated OS (USERPROFILE on Windows, HOME elsewhere).
    QString homeDir() const;
};

} // namespace tfsetup::core
