#include "detect/scanners.h"

#include "detect/versionparsers.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <vector>

namespace tfsetup::core {

namespace {

struct Candidate {
    PythonInfo info;
    QString key; // host identity, for deduplication
};

QString dirOf(const QString &path)
{
    return path.section(u'/', 0, -2);
}

QString nameOf(const QString &path)
{
    return path.section(u'/', -1);
}

// The installation prefix: where pyvenv.cfg, conda-meta, include/ and lib/ sit. Windows keeps
// python.exe in the prefix itself (venvs in Scripts\), POSIX in bin/.
QString prefixOf(const SystemView &system, const QString &executable)
{
    const QString dir = dirOf(executable);
    const QString last = nameOf(dir);
    if (system.os() == OsFamily::Windows)
        return last.compare(QLatin1String("Scripts"), Qt::CaseInsensitive) == 0 ? dirOf(dir) : dir;
    return last == u"bin" ? dirOf(dir) : dir;
}

bool isStorePackagePath(const QString &path)
{
    return path.contains(QLatin1String("/WindowsApps/PythonSoftwareFoundation.Python."), Qt::CaseInsensitive);
}

QString kindOf(const SystemView &system, const QString &executable)
{
    const QString prefix = prefixOf(system, executable);
    if (system.isFile(SystemView::join(prefix, QStringLiteral("pyvenv.cfg"))))
        return QStringLiteral("venv");
    if (system.isDir(SystemView::join(prefix, QStringLiteral("conda-meta"))))
        return QStringLiteral("conda");
    if (executable.contains(QLatin1String("/.pyenv/")))
        return QStringLiteral("pyenv");
    if (isStorePackagePath(executable))
        return QStringLiteral("store");
    return QStringLiteral("system");
}

// Reads what the installation says about itself, without running it. The first full
// "X.Y.Z" wins; an "X.Y" is kept in case nothing better turns up.
void readVersionFromFiles(const SystemView &system, PythonInfo &info)
{
    const QString prefix = prefixOf(system, info.path);
    QString partial;
    auto consider = [&](const Result<QString> &v) {
        if (!v || !info.version.isEmpty())
            return;
        if (v->count(u'.') >= 2)
            info.version = *v;
        else if (partial.isEmpty())
            partial = *v;
    };

    if (const auto cfg = system.readFile(SystemView::join(prefix, QStringLiteral("pyvenv.cfg")), 64 * 1024))
        consider(parsers::parsePyvenvCfgVersion(*cfg));
    const QString condaMeta = SystemView::join(prefix, QStringLiteral("conda-meta"));
    for (const QString &name : system.entries(condaMeta, {QStringLiteral("python-[0-9]*.json")}, QDir::Files)) {
        consider(parsers::pythonVersionFromCondaMetaName(name));
        // conda records the platform it was built for: "win-64", "linux-64", "win-32".
        if (info.bits == 0) {
            if (const auto json = system.readFile(SystemView::join(condaMeta, name), 4 * 1024 * 1024)) {
                const QString subdir =
                    QJsonDocument::fromJson(*json).object().value(QLatin1String("subdir")).toString();
                if (subdir.endsWith(QLatin1String("-64")))
                    info.bits = 64;
                else if (subdir.endsWith(QLatin1String("-32")))
                    info.bits = 32;
            }
        }
    }
    if (system.os() == OsFamily::Windows) {
        // python310.dll sits beside python.exe in every CPython Windows install.
        for (const QString &name : system.entries(dirOf(info.path), {QStringLiteral("python3*.dll")}, QDir::Files))
            consider(parsers::pythonVersionFromDllName(name));
        if (const auto h = system.readFile(SystemView::join(prefix, QStringLiteral("include/patchlevel.h")), 64 * 1024))
            consider(parsers::parsePythonPatchlevel(*h));
    } else {
        // The minor version from the executable's own name or its lib/python3.X folder; then
        // patchlevel.h in include/python3.X (present when the -dev headers are installed).
        QString minor = parsers::pythonVersionFromName(nameOf(info.path)).valueOr({});
        if (minor.isEmpty()) {
            const QString real = QFileInfo(system.hostPath(info.path)).canonicalFilePath();
            minor = parsers::pythonVersionFromName(QFileInfo(real).fileName()).valueOr({});
        }
        const QStringList libs = system.entries(SystemView::join(prefix, QStringLiteral("lib")),
                                                {QStringLiteral("python3.*")}, QDir::Dirs | QDir::NoDotAndDotDot);
        if (minor.isEmpty() && libs.size() == 1)
            minor = parsers::pythonVersionFromName(libs.first()).valueOr({});
        if (!minor.isEmpty()) {
            const QString header = SystemView::join(prefix, QStringLiteral("include/python%1/patchlevel.h").arg(minor));
            if (const auto h = system.readFile(header, 64 * 1024))
                consider(parsers::parsePythonPatchlevel(*h));
            consider(minor);
        }
    }
    if (info.kind == u"pyenv") {
        // ~/.pyenv/versions/3.10.13/bin/python: the folder is the version pyenv built.
        const QString folder = nameOf(prefix);
        static const QRegularExpression full(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"));
        if (full.match(folder).hasMatch())
            consider(folder);
    }
    if (info.kind == u"store" && info.version.isEmpty()) {
        // PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0 names the minor version.
        static const QRegularExpression store(QStringLiteral("PythonSoftwareFoundation\\.Python\\.(\\d+\\.\\d+)_"),
                                              QRegularExpression::CaseInsensitiveOption);
        if (const auto m = store.match(info.path); m.hasMatch())
            consider(m.captured(1));
    }
    if (info.version.isEmpty())
        info.version = partial;
}

class PythonCollector {
public:
    explicit PythonCollector(SystemView &system)
        : m_system(system)
    {}

    void add(QString path, const QString &source, const QString &version = {}, int bits = 0)
    {
        path = m_system.normalize(path);
        if (!m_system.isFile(path))
            return;
        const QString key = m_system.identity(path);
        for (Candidate &c : m_candidates) {
            if (c.key != key)
                continue;
            // Seen already: only fill in what the other route knew.
            if (c.info.bits == 0)
                c.info.bits = bits;
            if (c.info.version.count(u'.') < version.count(u'.'))
                c.info.version = version;
            return;
        }
        Candidate c;
        c.key = key;
        c.info.path = path;
        c.info.source = source;
        c.info.kind = kindOf(m_system, path);
        c.info.bits = bits;
        readVersionFromFiles(m_system, c.info);
        if (c.info.version.count(u'.') < version.count(u'.'))
            c.info.version = version;
        m_candidates.append(c);
    }

    QList<Candidate> &candidates() { return m_candidates; }

private:
    SystemView &m_system;
    QList<Candidate> m_candidates;
};

// The App Execution Aliases in %LOCALAPPDATA%\Microsoft\WindowsApps are zero-byte reparse
// points. A bare python.exe there opens the Store when no Store Python is installed; an
// installed Store Python adds a PythonSoftwareFoundation.Python.3.X_… folder beside it.
void addFromWindowsAppsDir(SystemView &system, PythonCollector &collector, const QString &dir)
{
    const QStringList packages = system.entries(dir, {QStringLiteral("PythonSoftwareFoundation.Python.*")},
                                                QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &package : packages)
        collector.add(SystemView::join(SystemView::join(dir, package), QStringLiteral("python.exe")),
                      QStringLiteral("path"));
}

void addFromPath(SystemView &system, PythonCollector &collector)
{
    static const QRegularExpression posixName(QStringLiteral("^python(3(\\.\\d+)?)?$"));
    for (const QString &dir : system.pathList()) {
        // pyenv's shims are shell scripts that dispatch to ~/.pyenv/versions/*, which are
        // found (once each, with their real paths) by addFromPyenv.
        if (dir.endsWith(QLatin1String("/.pyenv/shims")) || dir.endsWith(QLatin1String("/.pyenv/pyenv-win/shims")))
            continue;
        if (system.os() == OsFamily::Windows) {
            const bool appsDir = nameOf(dir).compare(QLatin1String("WindowsApps"), Qt::CaseInsensitive) == 0;
            for (const QString &name : {QStringLiteral("python.exe"), QStringLiteral("python3.exe")}) {
                const QString path = SystemView::join(dir, name);
                if (!system.isFile(path))
                    continue;
                if (appsDir && system.fileSize(path) == 0)
                    continue; // an alias stub; the real Store Python (if any) is found below
                collector.add(path, QStringLiteral("path"));
            }
            if (appsDir)
                addFromWindowsAppsDir(system, collector, dir);
            continue;
        }
        for (const QString &name : system.entries(dir, {QStringLiteral("python*")}, QDir::Files | QDir::System)) {
            if (posixName.match(name).hasMatch())
                collector.add(SystemView::join(dir, name), QStringLiteral("path"));
        }
    }
}

// PEP 514: HKCU/HKLM\SOFTWARE\Python\PythonCore\<tag>\InstallPath, with ExecutablePath since
// 3.6 and the default value (the prefix) always.
void addFromRegistry(SystemView &system, PythonCollector &collector)
{
    for (const char *hive : {"HKCU\\SOFTWARE\\Python\\PythonCore", "HKLM\\SOFTWARE\\Python\\PythonCore",
                             "HKLM\\SOFTWARE\\WOW6432Node\\Python\\PythonCore"}) {
        const QString base = QString::fromLatin1(hive);
        for (const QString &tag : system.registrySubkeys(base)) {
            const QString key = base + u'\\' + tag;
            const QString installPath = key + QLatin1String("\\InstallPath");
            QString exe =
                system.registryValue(installPath, QStringLiteral("ExecutablePath")).value_or(QVariant()).toString();
            if (exe.isEmpty()) {
                const QString prefix = system.registryValue(installPath, QString()).value_or(QVariant()).toString();
                if (!prefix.isEmpty())
                    exe = SystemView::join(prefix, QStringLiteral("python.exe"));
            }
            if (exe.isEmpty())
                continue;
            const QString version =
                system.registryValue(key, QStringLiteral("Version")).value_or(QVariant()).toString();
            const QString arch =
                system.registryValue(key, QStringLiteral("SysArchitecture")).value_or(QVariant()).toString();
            int bits = arch == u"64bit" ? 64 : arch == u"32bit" ? 32 : 0;
            if (bits == 0 && tag.endsWith(QLatin1String("-32")))
                bits = 32;
            collector.add(exe, QStringLiteral("registry"), version, bits);
        }
    }
}

void addFromFolders(SystemView &system, PythonCollector &collector)
{
    if (system.os() == OsFamily::Windows) {
        QStringList bases;
        const QString localAppData = system.env(QStringLiteral("LOCALAPPDATA"));
        if (!localAppData.isEmpty())
            bases.append(SystemView::join(system.normalize(localAppData), QStringLiteral("Programs/Python")));
        bases.append(QStringLiteral("C:"));
        QString programFiles = system.env(QStringLiteral("ProgramFiles"));
        bases.append(programFiles.isEmpty() ? QStringLiteral("C:/Program Files") : system.normalize(programFiles));
        for (const QString &base : bases) {
            for (const QString &name :
                 system.entries(base + u'/', {QStringLiteral("Python3*")}, QDir::Dirs | QDir::NoDotAndDotDot))
                collector.add(SystemView::join(SystemView::join(base, name), QStringLiteral("python.exe")),
                              QStringLiteral("folder"));
        }
        return;
    }
    static const QRegularExpression versioned(QStringLiteral("^python3(\\.\\d+)?$"));
    for (const QString &dir : {QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/bin")}) {
        for (const QString &name : system.entries(dir, {QStringLiteral("python3*")}, QDir::Files | QDir::System)) {
            if (versioned.match(name).hasMatch())
                collector.add(SystemView::join(dir, name), QStringLiteral("folder"));
        }
    }
}

QString interpreterIn(const SystemView &system, const QString &prefix)
{
    return system.os() == OsFamily::Windows ? SystemView::join(prefix, QStringLiteral("python.exe"))
                                            : SystemView::join(prefix, QStringLiteral("bin/python"));
}

void addFromConda(SystemView &system, PythonCollector &collector)
{
    QStringList bases;
    const QString active = system.env(QStringLiteral("CONDA_PREFIX"));
    if (!active.isEmpty())
        bases.append(system.normalize(active));
    const QString home = system.homeDir();
    for (const char *name : {"anaconda3", "miniconda3", "miniforge3", "mambaforge"}) {
        if (!home.isEmpty())
            bases.append(SystemView::join(home, QString::fromLatin1(name)));
        if (system.os() == OsFamily::Windows)
            bases.append(SystemView::join(QStringLiteral("C:/ProgramData"), QString::fromLatin1(name)));
    }
    for (const QString &base : bases) {
        if (!system.isDir(SystemView::join(base, QStringLiteral("conda-meta"))))
            continue;
        collector.add(interpreterIn(system, base), QStringLiteral("conda"));
        const QString envs = SystemView::join(base, QStringLiteral("envs"));
        for (const QString &env : system.entries(envs, {}, QDir::Dirs | QDir::NoDotAndDotDot))
            collector.add(interpreterIn(system, SystemView::join(envs, env)), QStringLiteral("conda"));
    }
}

void addFromPyenv(SystemView &system, PythonCollector &collector)
{
    const QString home = system.homeDir();
    if (home.isEmpty())
        return;
    // pyenv on POSIX; pyenv-win keeps its builds under .pyenv\pyenv-win\versions.
    const QString versions = SystemView::join(home,
                                              system.os() == OsFamily::Windows
                                                  ? QStringLiteral(".pyenv/pyenv-win/versions")
                                                  : QStringLiteral(".pyenv/versions"));
    for (const QString &name : system.entries(versions, {}, QDir::Dirs | QDir::NoDotAndDotDot))
        collector.add(interpreterIn(system, SystemView::join(versions, name)), QStringLiteral("pyenv"));
}

QCoro::Task<void> addFromPyLauncher(SystemView &system, PythonCollector &collector, HardwareReport &report,
                                    std::chrono::milliseconds timeout)
{
    QString py = system.findExecutable(QStringLiteral("py"));
    if (py.isEmpty()) {
        QStringList places{QStringLiteral("C:/Windows/py.exe")};
        const QString localAppData = system.env(QStringLiteral("LOCALAPPDATA"));
        if (!localAppData.isEmpty())
            places.prepend(
                SystemView::join(system.normalize(localAppData), QStringLiteral("Programs/Python/Launcher/py.exe")));
        for (const QString &p : places) {
            if (system.isFile(p)) {
                py = p;
                break;
            }
        }
    }
    if (py.isEmpty())
        co_return; // no launcher installed: nothing to ask
    QStringList arguments;
    arguments << QStringLiteral("-0p");
    const ProcessResult result = co_await system.run(py, arguments, timeout);
    if (!result.succeeded()) {
        report.problems.append(
            {QStringLiteral("py-launcher"),
             QStringLiteral("%1 -0p: %2")
                 .arg(py,
                      result.error.isEmpty() ? QStringLiteral("exit code %1").arg(result.exitCode) : result.error)});
        co_return;
    }
    const auto entries = parsers::parsePyLauncherList(result.standardOutput);
    if (!entries) {
        report.problems.append({QStringLiteral("py-launcher"), entries.error().code + u": " + entries.error().detail});
        co_return;
    }
    for (const parsers::PyLauncherEntry &e : *entries)
        collector.add(e.path, QStringLiteral("py-launcher"), e.version, e.bits);
}

QCoro::Task<ProcessResult> probe(SystemView &system, QString path, std::chrono::milliseconds timeout)
{
    // (The argument list is built before the await: g++ 12 rejects braced QStringLiteral
    // lists inside a coroutine's await expression.)
    QStringList arguments;
    arguments << QStringLiteral("-c")
              << QStringLiteral("import sys,struct;print(sys.version.split()[0],struct.calcsize('P')*8)");
    co_return co_await system.run(path, arguments, timeout);
}

} // namespace

QCoro::Task<void> scanPythons(SystemView &system, HardwareReport &report, DetectOptions options)
{
    PythonCollector collector(system);
    // PATH first: it is what "python" means in the user's shell, so its entries keep their source.
    addFromPath(system, collector);
    if (system.os() == OsFamily::Windows) {
        co_await addFromPyLauncher(system, collector, report, options.processTimeout);
        addFromRegistry(system, collector);
    }
    addFromFolders(system, collector);
    addFromConda(system, collector);
    addFromPyenv(system, collector);

    // Ask the interpreters whose files did not give a full version, all at once: each waits
    // at most processTimeout, so the scan as a whole does too.
    QList<Candidate> &candidates = collector.candidates();
    std::vector<std::pair<qsizetype, QCoro::Task<ProcessResult>>> probes;
    for (qsizetype i = 0; i < candidates.size(); ++i) {
        if (candidates[i].info.version.count(u'.') < 2)
            probes.emplace_back(i, probe(system, candidates[i].info.path, options.processTimeout));
    }
    for (auto &[index, task] : probes) {
        const ProcessResult result = co_await task;
        PythonInfo &info = candidates[index].info;
        const auto parsed = result.succeeded()
            ? parsers::parsePythonProbe(result.standardOutput)
            : Result<parsers::PythonProbe>(Error{QStringLiteral("python_not_run"), {}, result.error});
        if (!parsed) {
            // Keep what the files said; only an interpreter we know nothing about is worth a note.
            if (info.version.isEmpty())
                report.problems.append({QStringLiteral("python"), info.path + u": " + parsed.error().detail});
            continue;
        }
        info.version = parsed->version;
        info.bits = parsed->bits;
    }
    for (const Candidate &c : candidates)
        report.pythons.append(c.info);
}

} // namespace tfsetup::core
