#pragma once

#include "system/systemview.h"
#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace tfsetup::core {

// What Jupyter needs in an environment: launchers.json's "jupyter" section. Package names are
// pip requirement specifiers; modules are what `python -m` runs and what an import looks for.
struct JupyterSettings {
    struct FrontEnd {
        QString name;             // "lab" | "notebook" | "server"
        QString title;            // "JupyterLab"
        QStringList requirements; // "jupyterlab"
        QString module;           // "jupyterlab": start-jupyter runs this front end when it imports
        QStringList arguments;    // after the interpreter: "-m", "jupyterlab"
    };
    QStringList kernelRequirements; // "ipykernel": in every environment with Python
    QString kernelModule;           // "ipykernel_launcher", run by the kernelspec
    QList<FrontEnd> frontEnds;      // in the order start-jupyter tries them
    QString defaultFrontEnd;        // "lab"

    const FrontEnd *frontEnd(const QString &name) const;
    // Front ends with `first` (when known) moved to the front.
    QList<FrontEnd> preferring(const QString &first) const;

    static Result<JupyterSettings> load(const QString &folder = QStringLiteral(":/resources/templates"));
    // The built-in data, read once; empty lists if it is damaged (LauncherSettings::load reports that).
    static const JupyterSettings &builtIn();
};

// PEP 503 normalized project name: lower case, runs of "-", "_", "." as one "-".
QString normalizedProjectName(const QString &name);
// The project a requirement specifier names ("ipykernel>=6" → "ipykernel"), normalized.
QString requirementProject(const QString &requirement);

// What every launcher sets, what counts as shadowing, and which launchers exist: data from
// resources/templates/launchers.json plus the launcher.{sh,bat,ps1}.in templates.
struct LauncherSettings {
    struct Launcher {
        QString name;          // "start-python"
        QString run;           // "python" | "shell" | "jupyter" (the first front end that imports)
        QStringList arguments; // after the interpreter, for "python": "-m", "idlelib"
    };
    JupyterSettings jupyter;
    QList<std::pair<QString, QString>> variables; // name, value, in file order
    QStringList windowsShadow;                    // patterns relative to a PATH entry
    QStringList linuxShadow;                      // patterns relative to an LD_LIBRARY_PATH entry
    QList<Launcher> launchers;
    QString shTemplate;
    QString batTemplate;
    QString ps1Template;

    static Result<LauncherSettings> load(const QString &folder = QStringLiteral(":/resources/templates"));
};

// The environment a set of launchers is written for.
struct LauncherContext {
    OsFamily os = OsFamily::Linux;
    QString environmentPath; // final target path (the launchers themselves find it from their own location)
    QString libraryFolder;   // Linux, relative to the environment: "cuda/lib" or "cuda/lib64"; empty = none
    bool xlaDataDir = false; // CUDA's nvvm/libdevice is in the environment: point XLA at it
    QString displayName;     // "TensorFlow 2.10 (GPU)"
    QString kernelName;      // "tf2.10-cuda11.2"
    // For the kernelspec, which cannot run code: the inherited search path at install time
    // (Windows PATH, Linux LD_LIBRARY_PATH) and pip's nvidia/*/lib folders, relative to the environment.
    QStringList inheritedSearchPath;
    QStringList pipLibraryFolders;
    // Linux, for the kernelspec: the inherited PATH at install time; the venv's bin goes first,
    // so a notebook's `!pip` and subprocesses find the environment's own programs.
    QStringList inheritedPath;
    // The Jupyter front end chosen for the environment: start-jupyter tries it first. Empty: the
    // data's order.
    QString jupyterFrontEnd;
    // The NVIDIA GPUs the environment uses, by nvidia-smi index (the detection report's order),
    // in the order TensorFlow numbers them (/GPU:0 is the first). Empty: no selection, and a
    // caller's CUDA_VISIBLE_DEVICES is left as it is.
    QList<int> visibleGpus;
};

struct GeneratedFile {
    QString path; // relative to the environment (or absolute for files outside it)
    QByteArray contents;
    bool executable = false;
};

// Quoting, one function per consumer. Each returns text that the consumer reads back as exactly
// `value`, whatever it contains (spaces, & % ! ^ ( ) ' and non-ASCII).
namespace quoting {
QString shell(const QString &value);      // POSIX sh: '…' with ' as '\''
QString powershell(const QString &value); // '…' with ' doubled
// A cmd.exe line `set "NAME=value"` (with delayed expansion off, as the launchers run): '%'
// doubled. Fails for values no batch file can carry (a double quote, a line break).
Result<QString> batchSet(const QString &name, const QString &value);
// One argument of a .desktop Exec key (Desktop Entry Specification, "The Exec key").
QString desktopExecArgument(const QString &value);
} // namespace quoting

class LauncherWriter final {
    Q_DECLARE_TR_FUNCTIONS(LauncherWriter)
public:
    // start-python, start-jupyter, shell: .bat and .ps1 on Windows, sh scripts elsewhere. Pure.
    static Result<QList<GeneratedFile>> launchers(const LauncherSettings &settings, const LauncherContext &context);

    // Whether an environment at environmentPath can be carried into the variables its launchers
    // and kernel set: PATH and LD_LIBRARY_PATH list folders separated by ':' on Linux, WSL2 and
    // macOS and by ';' on Windows, so a folder with that character in its path would be read as
    // two folders, neither of them right; a double quote cannot stand in a batch file, and a
    // control character in none of them. Checked before anything is downloaded or written (code
    // environment_path_unusable, translated, naming the character and what to do).
    static Status checkEnvironmentPath(OsFamily os, const QString &environmentPath);

    // CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES for a GPU selection; none without one.
    static QList<std::pair<QString, QString>> gpuVariables(const QList<int> &visibleGpus);

    // The environment a kernel gets: the same variables the launchers set.
    static QList<std::pair<QString, QString>> kernelEnvironment(const LauncherSettings &settings,
                                                                const LauncherContext &context);
    // kernel.json for this environment.
    static QJsonObject kernelSpec(const LauncherSettings &settings, const LauncherContext &context);
    // A freedesktop.org entry that opens the environment's shell in a terminal.
    static QByteArray desktopEntry(const LauncherContext &context);

    // Where the user's Jupyter kernels live (JUPYTER_DATA_DIR, else the per-OS default).
    static QString userKernelFolder(const SystemView &system, const QString &kernelName);
    static QString desktopEntryPath(const SystemView &system, const QString &kernelName);

    // The kernel name an environment registers: `wanted`, unless the kernelspec under it is
    // another environment's (its metadata names a folder other than `environmentPath` that still
    // holds an environment record: a copy made with cp -a carries the original's); then one made
    // from `wanted` and the environment's folder. Another environment's kernel, and its menu entry
    // (same name), is never replaced. `why`, when the wanted name is held, says by whom and what
    // was done; the answer is empty when the made name is held too.
    static QString ownKernelName(const SystemView &system, const QString &wanted, const QString &environmentPath,
                                 QString *why = nullptr);

    // The environment's Python in the OS's spelling.
    static QString venvPython(OsFamily os, const QString &environmentPath);
};

} // namespace tfsetup::core
