#include "install/launchers.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

Error settingsError(const QString &detail)
{
    return Error{QStringLiteral("launcher_templates"),
                 QCoreApplication::translate("LauncherWriter",
                                             "The launcher templates inside tfsetup are damaged. Reinstall tfsetup."),
                 detail};
}

std::optional<QString> readText(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    return QString::fromUtf8(f.readAll());
}

// Shadow patterns go into scripts unquoted (they must glob), so only plain name characters pass.
bool isPlainPattern(const QString &pattern)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9._*?\\\\-]+$"));
    return plain.match(pattern).hasMatch();
}

QString windowsPath(QString path)
{
    path.replace(u'/', u'\\');
    return path;
}

QString fill(QString text, const QList<std::pair<QString, QString>> &values)
{
    for (const auto &[key, value] : values)
        text.replace(u'@' + key + u'@', value);
    return text;
}

// A placeholder alone on its line that expands to nothing takes its line with it.
QString dropEmptyPlaceholderLines(QString text, const QStringList &keys)
{
    for (const QString &key : keys)
        text.replace(u'@' + key + QStringLiteral("@\n"), QString());
    return text;
}

bool isAscii(const QString &text)
{
    for (const QChar c : text) {
        if (c.unicode() > 0x7f)
            return false;
    }
    return true;
}

} // namespace

Result<LauncherSettings> LauncherSettings::load(const QString &folder)
{
    LauncherSettings s;
    const auto json = readText(folder + QStringLiteral("/launchers.json"));
    const auto sh = readText(folder + QStringLiteral("/launcher.sh.in"));
    const auto bat = readText(folder + QStringLiteral("/launcher.bat.in"));
    const auto ps1 = readText(folder + QStringLiteral("/launcher.ps1.in"));
    if (!json || !sh || !bat || !ps1)
        return settingsError(folder);
    s.shTemplate = *sh;
    s.batTemplate = *bat;
    s.ps1Template = *ps1;
    const QJsonObject root = QJsonDocument::fromJson(json->toUtf8()).object();
    const QJsonObject variables = root.value(QStringLiteral("variables")).toObject();
    // QJsonObject sorts keys; the order only has to be stable.
    for (auto it = variables.begin(); it != variables.end(); ++it) {
        const QJsonObject v = it.value().toObject();
        if (v.value(QStringLiteral("source")).toString().isEmpty())
            return settingsError(QStringLiteral("variable %1 has no source").arg(it.key()));
        s.variables.append({it.key(), v.value(QStringLiteral("value")).toString()});
    }
    const QJsonObject shadow = root.value(QStringLiteral("shadow")).toObject();
    for (const QJsonValue &p : shadow.value(QStringLiteral("windows")).toArray())
        s.windowsShadow.append(p.toString());
    for (const QJsonValue &p : shadow.value(QStringLiteral("linux")).toArray())
        s.linuxShadow.append(p.toString());
    for (const QString &p : s.windowsShadow + s.linuxShadow) {
        if (!isPlainPattern(p))
            return settingsError(QStringLiteral("shadow pattern %1").arg(p));
    }
    for (const QJsonValue &value : root.value(QStringLiteral("launchers")).toArray()) {
        const QJsonObject o = value.toObject();
        Launcher l;
        l.name = o.value(QStringLiteral("name")).toString();
        l.run = o.value(QStringLiteral("run")).toString();
        for (const QJsonValue &a : o.value(QStringLiteral("arguments")).toArray())
            l.arguments.append(a.toString());
        if (l.name.isEmpty() || (l.run != u"python" && l.run != u"shell"))
            return settingsError(QStringLiteral("launcher %1").arg(l.name));
        s.launchers.append(l);
    }
    if (s.launchers.isEmpty())
        return settingsError(QStringLiteral("no launchers"));
    return s;
}

namespace quoting {

QString shell(const QString &value)
{
    QString out = value;
    out.replace(u'\'', QStringLiteral("'\\''"));
    return u'\'' + out + u'\'';
}

QString powershell(const QString &value)
{
    QString out = value;
    // PowerShell also takes the typographic single quotes as quote characters.
    for (const QChar q : {QChar(u'\''), QChar(0x2018), QChar(0x2019), QChar(0x201a), QChar(0x201b)})
        out.replace(q, QString(q) + q);
    return u'\'' + out + u'\'';
}

Result<QString> batchSet(const QString &name, const QString &value)
{
    if (value.contains(u'"') || value.contains(u'\n') || value.contains(u'\r') || name.contains(u'=')
        || name.contains(u'"') || name.contains(u'%')) {
        return Error{QStringLiteral("launcher_unquotable"),
                     QCoreApplication::translate("LauncherWriter",
                                                 "The value of %1 cannot be written into a Windows batch file. Choose "
                                                 "a folder whose name has no double quote.").arg(name),
                     value};
    }
    // Inside set "…" the characters & | < > ( ) ^ are literal; with delayed expansion off, so is
    // '!'. Percent signs are expanded even there and must be doubled.
    QString escaped = value;
    escaped.replace(u'%', QStringLiteral("%%"));
    return QStringLiteral("set \"%1=%2\"").arg(name, escaped);
}

QString desktopExecArgument(const QString &value)
{
    // Quoting rule first: inside "…" the characters " ` $ \ take a backslash. Then the string
    // rule for every value (a backslash doubled again), and '%' doubled as field codes demand.
    QString quoted;
    for (const QChar c : value) {
        if (c == u'"' || c == u'`' || c == u'$' || c == u'\\')
            quoted += u'\\';
        quoted += c;
    }
    quoted = u'"' + quoted + u'"';
    quoted.replace(u'\\', QStringLiteral("\\\\"));
    // A raw line break would end the Exec= line and start a new key (a folder named
    // "x\nExec=…" could inject one); the string rule spells them as escapes.
    quoted.replace(u'\n', QStringLiteral("\\n"));
    quoted.replace(u'\r', QStringLiteral("\\r"));
    quoted.replace(u'%', QStringLiteral("%%"));
    return quoted;
}

} // namespace quoting

QString LauncherWriter::venvPython(OsFamily os, const QString &environmentPath)
{
    if (os == OsFamily::Windows)
        return windowsPath(SystemView::join(environmentPath, QStringLiteral("venv/Scripts/python.exe")));
    return SystemView::join(environmentPath, QStringLiteral("venv/bin/python"));
}

Result<QList<GeneratedFile>> LauncherWriter::launchers(const LauncherSettings &settings, const LauncherContext &context)
{
    QList<GeneratedFile> files;
    if (context.os == OsFamily::Windows) {
        QStringList batShadow;
        for (const QString &p : settings.windowsShadow)
            batShadow.append(QStringLiteral("if exist \"%TFSETUP_ENTRY%\\%1\" set \"TFSETUP_KEEP=\"").arg(p));
        QStringList psShadow;
        for (const QString &p : settings.windowsShadow)
            psShadow.append(quoting::powershell(p));
        QStringList batVariables;
        QStringList psVariables;
        QStringList psNames;
        for (const auto &[name, value] : settings.variables) {
            auto line = quoting::batchSet(name, value);
            if (!line)
                return line.error();
            batVariables.append(*line);
            psVariables.append(QStringLiteral("$env:%1 = %2").arg(name, quoting::powershell(value)));
            psNames.append(quoting::powershell(name));
        }
        for (const LauncherSettings::Launcher &l : settings.launchers) {
            QString batRun;
            QString psRun;
            if (l.run == u"shell") {
                batRun = QStringLiteral("cmd /k");
                psRun = QStringLiteral("& powershell.exe -NoExit -NoLogo");
            } else {
                QStringList batArgs;
                QStringList psArgs;
                for (const QString &a : l.arguments) {
                    batArgs.append(u'"' + a + u'"');
                    psArgs.append(quoting::powershell(a));
                }
                batRun = QStringLiteral("\"%TFSETUP_ENV%\\venv\\Scripts\\python.exe\" ") + batArgs.join(u' ')
                         + (batArgs.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("%*");
                psRun = QStringLiteral("& \"$TfsetupEnv\\venv\\Scripts\\python.exe\" ") + psArgs.join(u' ')
                        + (psArgs.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("@args");
            }
            QString bat = fill(settings.batTemplate, {{QStringLiteral("SHADOW"), batShadow.join(u'\n')},
                                                      {QStringLiteral("VARIABLES"), batVariables.join(u'\n')},
                                                      {QStringLiteral("RUN"), batRun}});
            // cmd reads a batch file in the console code page; switch to UTF-8 only when needed,
            // the launchers themselves are ASCII (the folder comes from %~dp0 at run time).
            bat = isAscii(bat) ? dropEmptyPlaceholderLines(bat, {QStringLiteral("CODEPAGE")})
                               : fill(bat, {{QStringLiteral("CODEPAGE"), QStringLiteral("chcp 65001 >nul")}});
            bat.replace(u'\n', QStringLiteral("\r\n"));
            files.append({l.name + QStringLiteral(".bat"), bat.toUtf8(), false});

            const QString ps1 = fill(settings.ps1Template, {{QStringLiteral("SHADOW"), psShadow.join(QStringLiteral(", "))},
                                                            {QStringLiteral("VARIABLE_NAMES"), psNames.join(QStringLiteral(", "))},
                                                            {QStringLiteral("VARIABLES"), psVariables.join(u'\n')},
                                                            {QStringLiteral("RUN"), psRun}});
            // Windows PowerShell 5.1 reads a script without a byte order mark in the ANSI code page.
            QByteArray psBytes = QByteArrayLiteral("\xEF\xBB\xBF") + QString(ps1).replace(u'\n', QStringLiteral("\r\n")).toUtf8();
            files.append({l.name + QStringLiteral(".ps1"), psBytes, false});
        }
        return files;
    }

    QStringList shadow;
    for (const QString &p : settings.linuxShadow)
        shadow.append(QStringLiteral("\"$tfsetup_dir\"/") + p);
    QStringList variables;
    for (const auto &[name, value] : settings.variables)
        variables.append(QStringLiteral("%1=%2\nexport %1").arg(name, quoting::shell(value)));
    const QString libraryDirs = context.libraryFolder.isEmpty()
                                    ? QString()
                                    : QStringLiteral("\"$TFSETUP_ENV/%1\"").arg(context.libraryFolder);
    const QString xla = context.xlaDataDir
                            ? QStringLiteral("XLA_FLAGS=\"--xla_gpu_cuda_data_dir=$TFSETUP_ENV/cuda${XLA_FLAGS:+ $XLA_FLAGS}\"\n"
                                             "export XLA_FLAGS")
                            : QString();
    for (const LauncherSettings::Launcher &l : settings.launchers) {
        QString run;
        if (l.run == u"shell") {
            run = QStringLiteral("exec \"${SHELL:-/bin/sh}\" \"$@\"");
        } else {
            QStringList args;
            for (const QString &a : l.arguments)
                args.append(quoting::shell(a));
            run = QStringLiteral("exec \"$TFSETUP_ENV/venv/bin/python\" ") + args.join(u' ')
                  + (args.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("\"$@\"");
        }
        QString sh = fill(settings.shTemplate, {{QStringLiteral("LIBRARY_DIRS"), libraryDirs},
                                                {QStringLiteral("SHADOW"), shadow.join(u' ')},
                                                {QStringLiteral("VARIABLES"), variables.join(u'\n')},
                                                {QStringLiteral("RUN"), run}});
        sh = xla.isEmpty() ? dropEmptyPlaceholderLines(sh, {QStringLiteral("XLA")})
                           : fill(sh, {{QStringLiteral("XLA"), xla}});
        files.append({l.name, sh.toUtf8(), true});
    }
    return files;
}

QList<std::pair<QString, QString>> LauncherWriter::kernelEnvironment(const LauncherSettings &settings,
                                                                     const LauncherContext &context)
{
    QList<std::pair<QString, QString>> env;
    const QString root = context.environmentPath;
    if (context.os == OsFamily::Windows) {
        QStringList path{windowsPath(SystemView::join(root, QStringLiteral("cuda/bin"))),
                         windowsPath(SystemView::join(root, QStringLiteral("venv/Scripts")))};
        path += context.inheritedSearchPath;
        env.append({QStringLiteral("PATH"), path.join(u';')});
        env.append({QStringLiteral("CUDA_PATH"), windowsPath(SystemView::join(root, QStringLiteral("cuda")))});
        env.append({QStringLiteral("VIRTUAL_ENV"), windowsPath(SystemView::join(root, QStringLiteral("venv")))});
    } else {
        QStringList libs;
        if (!context.libraryFolder.isEmpty())
            libs.append(SystemView::join(root, context.libraryFolder));
        for (const QString &p : context.pipLibraryFolders)
            libs.append(SystemView::join(root, p));
        libs += context.inheritedSearchPath;
        env.append({QStringLiteral("LD_LIBRARY_PATH"), libs.join(u':')});
        env.append({QStringLiteral("VIRTUAL_ENV"), SystemView::join(root, QStringLiteral("venv"))});
        if (context.xlaDataDir) {
            env.append({QStringLiteral("XLA_FLAGS"),
                        QStringLiteral("--xla_gpu_cuda_data_dir=") + SystemView::join(root, QStringLiteral("cuda"))});
        }
    }
    env += settings.variables;
    return env;
}

QJsonObject LauncherWriter::kernelSpec(const LauncherSettings &settings, const LauncherContext &context)
{
    QJsonObject env;
    for (const auto &[name, value] : kernelEnvironment(settings, context))
        env.insert(name, value);
    return QJsonObject{
        {QStringLiteral("argv"), QJsonArray{venvPython(context.os, context.environmentPath), QStringLiteral("-m"),
                                            QStringLiteral("ipykernel_launcher"), QStringLiteral("-f"),
                                            QStringLiteral("{connection_file}")}},
        {QStringLiteral("display_name"), context.displayName},
        {QStringLiteral("language"), QStringLiteral("python")},
        {QStringLiteral("env"), env},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("tfsetup_environment"), context.environmentPath}}}};
}

QByteArray LauncherWriter::desktopEntry(const LauncherContext &context)
{
    auto stringValue = [](QString v) {
        v.replace(u'\\', QStringLiteral("\\\\"));
        v.replace(u'\n', QStringLiteral("\\n"));
        return v;
    };
    QString text = QStringLiteral("[Desktop Entry]\nType=Application\nVersion=1.0\n");
    text += QStringLiteral("Name=") + stringValue(context.displayName) + u'\n';
    text += QStringLiteral("Comment=") + stringValue(tr("A shell with this TensorFlow environment's Python and CUDA "
                                                        "libraries first")) + u'\n';
    text += QStringLiteral("Exec=")
            + quoting::desktopExecArgument(SystemView::join(context.environmentPath, QStringLiteral("shell"))) + u'\n';
    text += QStringLiteral("Terminal=true\nCategories=Development;Science;\n");
    return text.toUtf8();
}

QString LauncherWriter::userKernelFolder(const SystemView &system, const QString &kernelName)
{
    // Jupyter's user data folder ("Common Directories and File Locations",
    // docs.jupyter.org/en/latest/use/jupyter-directories.html; the same rules in jupyter_core's
    // jupyter_data_dir): JUPYTER_DATA_DIR, else %APPDATA%\jupyter, ~/Library/Jupyter, or
    // $XDG_DATA_HOME/jupyter (default ~/.local/share/jupyter). Kernel specs sit in kernels/<name>.
    QString data = system.env(QStringLiteral("JUPYTER_DATA_DIR"));
    if (data.isEmpty()) {
        if (system.os() == OsFamily::Windows) {
            data = SystemView::join(system.env(QStringLiteral("APPDATA")), QStringLiteral("jupyter"));
        } else if (system.os() == OsFamily::MacOS) {
            data = SystemView::join(system.homeDir(), QStringLiteral("Library/Jupyter"));
        } else {
            QString xdg = system.env(QStringLiteral("XDG_DATA_HOME"));
            if (xdg.isEmpty())
                xdg = SystemView::join(system.homeDir(), QStringLiteral(".local/share"));
            data = SystemView::join(xdg, QStringLiteral("jupyter"));
        }
    }
    return SystemView::join(system.normalize(data), QStringLiteral("kernels/") + kernelName);
}

QString LauncherWriter::desktopEntryPath(const SystemView &system, const QString &kernelName)
{
    if (system.os() != OsFamily::Linux)
        return {};
    QString xdg = system.env(QStringLiteral("XDG_DATA_HOME"));
    if (xdg.isEmpty())
        xdg = SystemView::join(system.homeDir(), QStringLiteral(".local/share"));
    return SystemView::join(system.normalize(xdg), QStringLiteral("applications/tfsetup-") + kernelName
                                                       + QStringLiteral(".desktop"));
}

} // namespace tfsetup::core
