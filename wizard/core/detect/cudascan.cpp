#include "detect/scanners.h"

#include "detect/versionparsers.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace tfsetup::core {

namespace {

QString lastComponent(const QString &path)
{
    return path.section(u'/', -1);
}

bool isVersionedFolder(const QString &path)
{
    return parsers::cudaVersionFromFolderName(lastComponent(path)).ok();
}

bool looksLikeToolkit(const SystemView &system, const QString &dir)
{
    if (!system.isDir(dir))
        return false;
    for (const char *marker : {"version.json", "version.txt", "include/cuda.h", "bin/nvcc", "bin/nvcc.exe"}) {
        if (system.isFile(SystemView::join(dir, QString::fromLatin1(marker))))
            return true;
    }
    return false;
}

// The toolkit's own word first (version.json since 11.1, version.txt before), then the header
// every toolkit ships, and only then the folder name, which a user may have chosen.
Result<QString> toolkitVersion(const SystemView &system, const QString &dir)
{
    std::optional<Error> firstError;
    auto remember = [&firstError](const Error &e) {
        if (!firstError)
            firstError = e;
    };
    if (const auto json = system.readFile(SystemView::join(dir, QStringLiteral("version.json")), 1024 * 1024)) {
        const auto v = parsers::parseCudaVersionJson(*json);
        if (v)
            return v;
        remember(v.error());
    }
    if (const auto txt = system.readFile(SystemView::join(dir, QStringLiteral("version.txt")), 64 * 1024)) {
        const auto v = parsers::parseCudaVersionTxt(*txt);
        if (v)
            return v;
        remember(v.error());
    }
    if (const auto header = system.readFile(SystemView::join(dir, QStringLiteral("include/cuda.h")))) {
        const auto v = parsers::parseCudaHeaderVersion(*header);
        if (v)
            return v;
        remember(v.error());
    }
    const auto fromName = parsers::cudaVersionFromFolderName(lastComponent(dir));
    if (fromName)
        return fromName;
    if (firstError)
        return *firstError;
    return fromName.error();
}

struct Candidate {
    QString path;
    QString source;
};

QList<Candidate> toolkitCandidates(SystemView &system, HardwareReport &report)
{
    QList<Candidate> out;
    auto fromEnv = [&](const QString &name) {
        const QString value = system.env(name).trimmed();
        if (value.isEmpty())
            return;
        const QString path = system.normalize(value);
        if (!system.isDir(path)) {
            report.problems.append(
                {QStringLiteral("cuda-toolkit"), QStringLiteral("%1=%2: folder does not exist").arg(name, value)});
            return;
        }
        out.append({path, name});
    };
    fromEnv(QStringLiteral("CUDA_PATH"));
    QStringList versioned;
    for (const QString &name : system.envNames()) {
        if (parsers::cudaVersionFromEnvName(name))
            versioned.append(name);
    }
    versioned.sort(Qt::CaseInsensitive);
    for (const QString &name : versioned)
        fromEnv(name);
    fromEnv(QStringLiteral("CUDA_HOME"));

    if (system.os() == OsFamily::Windows) {
        QString programFiles = system.env(QStringLiteral("ProgramFiles"));
        if (programFiles.isEmpty())
            programFiles = QStringLiteral("C:/Program Files");
        const QString base = SystemView::join(system.normalize(programFiles),
                                              QStringLiteral("NVIDIA GPU Computing Toolkit/CUDA"));
        for (const QString &name : system.entries(base, {QStringLiteral("v*")}, QDir::Dirs | QDir::NoDotAndDotDot))
            out.append({SystemView::join(base, name), QStringLiteral("folder")});
    } else {
        out.append({QStringLiteral("/usr/local/cuda"), QStringLiteral("folder")});
        for (const QString &name : system.entries(QStringLiteral("/usr/local"), {QStringLiteral("cuda-*")},
                                                  QDir::Dirs | QDir::NoDotAndDotDot))
            out.append({SystemView::join(QStringLiteral("/usr/local"), name), QStringLiteral("folder")});
        out.append({QStringLiteral("/opt/cuda"), QStringLiteral("folder")});
    }
    return out;
}

} // namespace

void scanCudaToolkits(SystemView &system, HardwareReport &report)
{
    QList<QString> keys; // identity of report.cudaToolkits[i]
    for (const Candidate &c : toolkitCandidates(system, report)) {
        if (!looksLikeToolkit(system, c.path))
            continue;
        const QString key = system.identity(c.path);
        const qsizetype at = keys.indexOf(key);
        if (at < 0) {
            keys.append(key);
            report.cudaToolkits.append(CudaToolkitInfo{c.path, {}, c.source, {}});
            continue;
        }
        // The same toolkit again: report it under its versioned name, keep the other spelling.
        CudaToolkitInfo &known = report.cudaToolkits[at];
        if (known.path == c.path || known.aliases.contains(c.path))
            continue;
        if (!isVersionedFolder(known.path) && isVersionedFolder(c.path)) {
            known.aliases.append(known.path);
            known.path = c.path;
        } else {
            known.aliases.append(c.path);
        }
    }
    for (CudaToolkitInfo &t : report.cudaToolkits) {
        const auto version = toolkitVersion(system, t.path);
        if (version)
            t.version = *version;
        else
            report.problems.append({QStringLiteral("cuda-toolkit"), t.path + u": " + version.error().code});
    }
}

namespace {

// One place cuDNN may have been put: a toolkit (copied in, as NVIDIA's 7.x/8.x guides say),
// the system prefix of the Debian/Ubuntu packages, or a folder on PATH.
struct CudnnRoot {
    QStringList includeDirs;
    QStringList libraryDirs;
};

QList<CudnnRoot> cudnnRoots(const SystemView &system, const HardwareReport &report)
{
    QList<CudnnRoot> roots;
    QSet<QString> seen;
    auto addPrefix = [&](const QString &prefix) {
        if (!system.isDir(prefix) || seen.contains(system.identity(prefix)))
            return;
        seen.insert(system.identity(prefix));
        roots.append(
            {{SystemView::join(prefix, QStringLiteral("include"))},
             {SystemView::join(prefix, QStringLiteral("bin")), SystemView::join(prefix, QStringLiteral("lib64")),
              SystemView::join(prefix, QStringLiteral("lib")), SystemView::join(prefix, QStringLiteral("lib/x64"))}});
    };
    for (const CudaToolkitInfo &t : report.cudaToolkits)
        addPrefix(t.path);
    if (system.os() == OsFamily::Linux) {
        for (const QString &name :
             system.entries(QStringLiteral("/usr/local"), {QStringLiteral("cuda*")}, QDir::Dirs | QDir::NoDotAndDotDot))
            addPrefix(SystemView::join(QStringLiteral("/usr/local"), name));
        // libcudnn8-dev / libcudnn9-dev install the headers here (with update-alternatives links).
        roots.append({{QStringLiteral("/usr/include"), QStringLiteral("/usr/include/x86_64-linux-gnu")},
                      {QStringLiteral("/usr/lib/x86_64-linux-gnu")}});
    } else if (system.os() == OsFamily::Windows) {
        // TensorFlow loads cudnn64_N.dll through PATH, so any folder there counts.
        for (const QString &dir : system.pathList())
            roots.append({{}, {dir}});
    }
    return roots;
}

std::optional<CudnnInfo> cudnnFromLibraries(const SystemView &system, const QString &dir)
{
    const QStringList names = system.entries(dir, {QStringLiteral("libcudnn.so.*"), QStringLiteral("cudnn64_*.dll")},
                                             QDir::Files | QDir::System | QDir::NoDotAndDotDot);
    std::optional<CudnnInfo> best;
    for (const QString &name : names) {
        const auto version = parsers::cudnnVersionFromLibraryName(name);
        if (!version)
            continue;
        // libcudnn.so.8 and libcudnn.so.8.6.0 are one copy; the longer name says more.
        if (!best || version->count(u'.') > best->version.count(u'.'))
            best = CudnnInfo{SystemView::join(dir, name), *version, QStringLiteral("library-name")};
    }
    return best;
}

} // namespace

void scanCudnn(SystemView &system, HardwareReport &report)
{
    // cudnn_version.h since 8.0 (cudnn_version_v8.h / _v9.h are the Debian alternatives'
    // real files); before that the numbers were in cudnn.h, which 8+ no longer carries.
    const QStringList headers{QStringLiteral("cudnn_version.h"), QStringLiteral("cudnn_version_v9.h"),
                              QStringLiteral("cudnn_version_v8.h"), QStringLiteral("cudnn.h")};
    QSet<QString> seenFiles;
    QSet<QString> seenLibraryDirs;
    for (const CudnnRoot &root : cudnnRoots(system, report)) {
        bool foundHeader = false;
        for (const QString &dir : root.includeDirs) {
            QString unreadable;
            for (const QString &header : headers) {
                const QString path = SystemView::join(dir, header);
                const auto bytes = system.readFile(path, 1024 * 1024);
                if (!bytes)
                    continue;
                const auto version = parsers::parseCudnnHeader(*bytes);
                if (!version) {
                    if (unreadable.isEmpty())
                        unreadable = path;
                    continue;
                }
                foundHeader = true;
                const QString key = system.identity(path);
                if (!seenFiles.contains(key)) {
                    seenFiles.insert(key);
                    report.cudnn.append({path, *version, QStringLiteral("header")});
                }
                unreadable.clear();
                break;
            }
            if (!unreadable.isEmpty())
                report.problems.append({QStringLiteral("cudnn"), unreadable + u": no CUDNN_MAJOR/MINOR/PATCHLEVEL"});
        }
        for (const QString &dir : root.libraryDirs) {
            const QString key = system.identity(dir);
            if (seenLibraryDirs.contains(key) || !system.isDir(dir))
                continue;
            seenLibraryDirs.insert(key);
            if (foundHeader)
                continue; // the header already named this copy's version
            if (auto info = cudnnFromLibraries(system, dir))
                report.cudnn.append(*info);
        }
    }
}

void scanMsvcRuntime(SystemView &system, HardwareReport &report)
{
    MsvcRuntimeInfo info;
    QString systemRoot = system.env(QStringLiteral("SystemRoot"));
    if (systemRoot.isEmpty())
        systemRoot = QStringLiteral("C:/Windows");
    const QString system32 = SystemView::join(system.normalize(systemRoot), QStringLiteral("System32"));
    // TensorFlow's Windows build info lists msvcp140.dll and msvcp140_1.dll; every MSVC 14.x
    // binary also needs vcruntime140.dll, and x64 ones vcruntime140_1.dll.
    for (const char *dll : {"vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll", "msvcp140_1.dll"}) {
        const QString name = QString::fromLatin1(dll);
        if (!system.isFile(SystemView::join(system32, name)))
            info.missing.append(name);
    }
    info.present = info.missing.isEmpty();

    const QString key = QStringLiteral("HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64");
    if (const auto version = system.registryValue(key, QStringLiteral("Version"))) {
        // Written as "v14.36.32532.00".
        info.version = version->toString().trimmed();
        if (info.version.startsWith(u'v', Qt::CaseInsensitive))
            info.version.remove(0, 1);
    } else {
        const auto major = system.registryValue(key, QStringLiteral("Major"));
        const auto minor = system.registryValue(key, QStringLiteral("Minor"));
        const auto build = system.registryValue(key, QStringLiteral("Bld"));
        if (major && minor && build)
            info.version = QStringLiteral("%1.%2.%3").arg(major->toInt()).arg(minor->toInt()).arg(build->toInt());
    }
    report.msvcRuntime = info;
}

} // namespace tfsetup::core
