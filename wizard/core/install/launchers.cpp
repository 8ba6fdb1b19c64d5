#include "install/launchers.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>

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

// One pass over a template: each @KEY@ of `values` becomes its value, which is copied and never
// searched again (a variable's value or a folder may itself contain "@RUN@"); any other '@' of the
// template stays as it is. A key of `dropWhenEmpty` that expands to nothing takes its line ending
// with it, so a placeholder alone on its line leaves no empty line.
QString fill(const QString &text, const QList<std::pair<QString, QString>> &values,
             const QStringList &dropWhenEmpty = {})
{
    QString out;
    qsizetype copied = 0;
    for (qsizetype open = text.indexOf(u'@'); open >= 0;) {
        const qsizetype close = text.indexOf(u'@', open + 1);
        if (close < 0)
            break;
        const QStringView key = QStringView(text).sliced(open + 1, close - open - 1);
        const auto found = std::find_if(values.begin(), values.end(), [&](const auto &v) { return v.first == key; });
        if (found == values.end()) {
            open = close;
            continue;
        }
        out += QStringView(text).sliced(copied, open - copied);
        out += found->second;
        copied = close + 1;
        if (found->second.isEmpty() && dropWhenEmpty.contains(key) && copied < text.size() && text.at(copied) == u'\n')
            ++copied;
        open = text.indexOf(u'@', copied);
    }
    out += QStringView(text).sliced(copied);
    return out;
}

bool isAscii(const QString &text)
{
    for (const QChar c : text) {
        if (c.unicode() > 0x7f)
            return false;
    }
    return true;
}

bool isModuleName(const QString &module)
{
    static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"));
    return name.match(module).hasMatch();
}

QStringList stringList(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out.append(v.toString());
    return out;
}

Result<JupyterSettings> parseJupyter(const QJsonObject &jupyter)
{
    JupyterSettings j;
    const QJsonObject kernel = jupyter.value(QStringLiteral("kernel")).toObject();
    j.kernelRequirements = stringList(kernel.value(QStringLiteral("requirements")));
    j.kernelModule = kernel.value(QStringLiteral("module")).toString();
    if (j.kernelRequirements.isEmpty() || !isModuleName(j.kernelModule)
        || kernel.value(QStringLiteral("source")).toString().isEmpty())
        return settingsError(QStringLiteral("jupyter.kernel"));
    for (const QJsonValue &value : jupyter.value(QStringLiteral("frontEnds")).toArray()) {
        const QJsonObject o = value.toObject();
        JupyterSettings::FrontEnd f;
        f.name = o.value(QStringLiteral("name")).toString();
        f.title = o.value(QStringLiteral("title")).toString();
        f.requirements = stringList(o.value(QStringLiteral("requirements")));
        f.module = o.value(QStringLiteral("module")).toString();
        f.arguments = stringList(o.value(QStringLiteral("arguments")));
        // The module goes into an import line of each shell's script; only plain names pass.
        if (f.name.isEmpty() || f.requirements.isEmpty() || !isModuleName(f.module) || f.arguments.isEmpty()
            || o.value(QStringLiteral("source")).toString().isEmpty())
            return settingsError(QStringLiteral("jupyter front end %1").arg(f.name));
        j.frontEnds.append(f);
    }
    j.defaultFrontEnd = jupyter.value(QStringLiteral("default")).toString();
    if (j.frontEnds.isEmpty() || !j.frontEnd(j.defaultFrontEnd))
        return settingsError(QStringLiteral("jupyter front ends"));
    return j;
}

// Text that cmd's echo prints as is: ^ & | < > escaped with ^, % doubled (delayed expansion is off).
QString batchEcho(const QString &text)
{
    QString out;
    for (const QChar c : text) {
        if (c == u'^' || c == u'&' || c == u'|' || c == u'<' || c == u'>')
            out += u'^';
        if (c == u'%')
            out += u'%';
        out += c;
    }
    return QStringLiteral("echo ") + out + QStringLiteral(" 1>&2");
}

QString noFrontEndMessage(const JupyterSettings &jupyter)
{
    QStringList titles;
    for (const JupyterSettings::FrontEnd &f : jupyter.frontEnds)
        titles.append(f.title);
    return QCoreApplication::translate("LauncherWriter",
                                       "This environment has no Jupyter server (%1). Run tfsetup again with "
                                       "Jupyter chosen, or install JupyterLab into the environment.")
        .arg(titles.join(QStringLiteral(", ")));
}

} // namespace

const JupyterSettings::FrontEnd *JupyterSettings::frontEnd(const QString &name) const
{
    for (const FrontEnd &f : frontEnds) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

QList<JupyterSettings::FrontEnd> JupyterSettings::preferring(const QString &first) const
{
    QList<FrontEnd> out;
    if (const FrontEnd *f = frontEnd(first))
        out.append(*f);
    for (const FrontEnd &f : frontEnds) {
        if (f.name != first)
            out.append(f);
    }
    return out;
}

Result<JupyterSettings> JupyterSettings::load(const QString &folder)
{
    QFile f(folder + QStringLiteral("/launchers.json"));
    if (!f.open(QIODevice::ReadOnly))
        return settingsError(f.fileName());
    return parseJupyter(QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("jupyter")).toObject());
}

const JupyterSettings &JupyterSettings::builtIn()
{
    // Immutable data compiled into the program; reading it once is as pure as reading it each time.
    static const JupyterSettings settings = [] {
        auto loaded = load();
        return loaded ? *loaded : JupyterSettings{};
    }();
    return settings;
}

QString normalizedProjectName(const QString &name)
{
    static const QRegularExpression separators(QStringLiteral("[-_.]+"));
    return QString(name).replace(separators, QStringLiteral("-")).toLower();
}

QString requirementProject(const QString &requirement)
{
    // PEP 508: the name is the leading run of letters, digits, "-", "_", "."; extras, versions,
    // markers and URLs follow it.
    static const QRegularExpression name(QStringLiteral("^\\s*([A-Za-z0-9][A-Za-z0-9._-]*)"));
    const QRegularExpressionMatch m = name.match(requirement);
    return m.hasMatch() ? normalizedProjectName(m.captured(1)) : QString();
}

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
        if (l.name.isEmpty() || (l.run != u"python" && l.run != u"shell" && l.run != u"jupyter"))
            return settingsError(QStringLiteral("launcher %1").arg(l.name));
        s.launchers.append(l);
    }
    if (s.launchers.isEmpty())
        return settingsError(QStringLiteral("no launchers"));
    auto jupyter = parseJupyter(root.value(QStringLiteral("jupyter")).toObject());
    if (!jupyter)
        return jupyter.error();
    s.jupyter = *jupyter;
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
                                                 "a folder whose name has no double quote.")
                         .arg(name),
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

Status LauncherWriter::checkEnvironmentPath(OsFamily os, const QString &environmentPath)
{
    const bool windows = os == OsFamily::Windows;
    QString bad;
    for (const QChar c : environmentPath) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            bad = tr("a control character (such as a line break)");
            break;
        }
        if (windows && (c == u';' || c == u'"')) {
            bad = QStringLiteral("\"%1\"").arg(c);
            break;
        }
        if (!windows && c == u':') {
            bad = QStringLiteral("\":\"");
            break;
        }
    }
    if (bad.isEmpty())
        return Ok{};
    return Error{QStringLiteral("environment_path_unusable"),
                 windows ? tr("The environment folder %1 has %2 in its path. Windows reads \";\" in PATH as the "
                              "end of one folder, and a batch file cannot hold a double quote, so the environment's "
                              "launchers and Jupyter kernel could not find its own libraries. Choose a folder "
                              "without it.")
                               .arg(QDir::toNativeSeparators(environmentPath), bad)
                         : tr("The environment folder %1 has %2 in its path. PATH and LD_LIBRARY_PATH read \":\" as "
                              "the end of one folder, so the environment's launchers and Jupyter kernel could not "
                              "find its own libraries. Choose a folder without it.")
                               .arg(environmentPath, bad),
                 environmentPath};
}

QString LauncherWriter::venvPython(OsFamily os, const QString &environmentPath)
{
    if (os == OsFamily::Windows)
        return windowsPath(SystemView::join(environmentPath, QStringLiteral("venv/Scripts/python.exe")));
    return SystemView::join(environmentPath, QStringLiteral("venv/bin/python"));
}

QList<std::pair<QString, QString>> LauncherWriter::gpuVariables(const QList<int> &visibleGpus)
{
    if (visibleGpus.isEmpty())
        return {};
    // CUDA C Programming Guide, "CUDA Environment Variables": CUDA_VISIBLE_DEVICES lists the
    // visible devices, enumerated in its order; CUDA_DEVICE_ORDER=PCI_BUS_ID orders devices by
    // PCI bus id, as nvidia-smi and NVML number them (the default, FASTEST_FIRST, ranks them by a
    // speed heuristic). TensorFlow numbers the GPUs it sees from 0 in that order.
    QStringList indices;
    for (const int index : visibleGpus)
        indices.append(QString::number(index));
    return {{QStringLiteral("CUDA_DEVICE_ORDER"), QStringLiteral("PCI_BUS_ID")},
            {QStringLiteral("CUDA_VISIBLE_DEVICES"), indices.join(u',')}};
}

Result<QList<GeneratedFile>> LauncherWriter::launchers(const LauncherSettings &settings, const LauncherContext &context)
{
    QList<GeneratedFile> files;
    const QList<std::pair<QString, QString>> settingsVariables = settings.variables + gpuVariables(context.visibleGpus);
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
        for (const auto &[name, value] : settingsVariables) {
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
            } else if (l.run == u"jupyter") {
                // The first front end whose module imports runs; none: say so and fail.
                const QString python = QStringLiteral("\"%TFSETUP_ENV%\\venv\\Scripts\\python.exe\"");
                const QList<JupyterSettings::FrontEnd> fronts = settings.jupyter.preferring(context.jupyterFrontEnd);
                QStringList checks;
                QStringList runs;
                QStringList psFronts;
                for (int i = 0; i < fronts.size(); ++i) {
                    const JupyterSettings::FrontEnd &f = fronts.at(i);
                    checks.append(python + QStringLiteral(" -c \"import %1\" >nul 2>&1").arg(f.module));
                    checks.append(QStringLiteral("if not errorlevel 1 goto tfsetup_front_%1").arg(i + 1));
                    QStringList batArgs;
                    QStringList psArgs{quoting::powershell(f.module)};
                    for (const QString &a : f.arguments + l.arguments) {
                        batArgs.append(u'"' + a + u'"');
                        psArgs.append(quoting::powershell(a));
                    }
                    runs.append(QStringLiteral(":tfsetup_front_%1").arg(i + 1));
                    runs.append(python + u' ' + batArgs.join(u' ') + QStringLiteral(" %*"));
                    if (i + 1 < fronts.size())
                        runs.append(QStringLiteral("exit /b %ERRORLEVEL%"));
                    psFronts.append(
                        QStringLiteral("    $TfsetupFronts += ,@(%1)").arg(psArgs.join(QStringLiteral(", "))));
                }
                const QString message = noFrontEndMessage(settings.jupyter);
                batRun = (checks + QStringList{batchEcho(message), QStringLiteral("exit /b 1")} + runs).join(u'\n');
                psRun =
                    QStringLiteral("$TfsetupFronts = @()\n") + psFronts.join(u'\n')
                    + QStringLiteral(
                        "\n"
                        "    $TfsetupRan = $false\n"
                        "    foreach ($TfsetupFront in $TfsetupFronts) {\n"
                        "        & \"$TfsetupEnv\\venv\\Scripts\\python.exe\" -c ('import ' + $TfsetupFront[0]) 2>$null | Out-Null\n"
                        "        if ($LASTEXITCODE -eq 0) {\n"
                        "            $TfsetupArgs = $TfsetupFront[1..($TfsetupFront.Count - 1)]\n"
                        "            & \"$TfsetupEnv\\venv\\Scripts\\python.exe\" @TfsetupArgs @args\n"
                        "            $TfsetupRan = $true\n"
                        "            break\n"
                        "        }\n"
                        "    }\n"
                        "    if (-not $TfsetupRan) {\n"
                        "        [Console]::Error.WriteLine(")
                    + quoting::powershell(message)
                    + QStringLiteral(")\n"
                                     "        $global:LASTEXITCODE = 1\n"
                                     "    }");
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
            QList<std::pair<QString, QString>> batValues{{QStringLiteral("SHADOW"), batShadow.join(u'\n')},
                                                         {QStringLiteral("VARIABLES"), batVariables.join(u'\n')},
                                                         {QStringLiteral("RUN"), batRun}};
            // cmd reads a batch file in the console code page; switch to UTF-8 only when needed,
            // the launchers themselves are ASCII (the folder comes from %~dp0 at run time).
            const bool ascii = isAscii(settings.batTemplate)
                && std::all_of(batValues.begin(), batValues.end(), [](const auto &v) { return isAscii(v.second); });
            batValues.append({QStringLiteral("CODEPAGE"), ascii ? QString() : QStringLiteral("chcp 65001 >nul")});
            QString bat = fill(settings.batTemplate, batValues, {QStringLiteral("CODEPAGE")});
            bat.replace(u'\n', QStringLiteral("\r\n"));
            files.append({l.name + QStringLiteral(".bat"), bat.toUtf8(), false});

            const QString ps1 = fill(settings.ps1Template,
                                     {{QStringLiteral("SHADOW"), psShadow.join(QStringLiteral(", "))},
                                      {QStringLiteral("VARIABLE_NAMES"), psNames.join(QStringLiteral(", "))},
                                      {QStringLiteral("VARIABLES"), psVariables.join(u'\n')},
                                      {QStringLiteral("RUN"), psRun}});
            // Windows PowerShell 5.1 reads a script without a byte order mark in the ANSI code page.
            QByteArray psBytes = QByteArrayLiteral("\xEF\xBB\xBF")
                + QString(ps1).replace(u'\n', QStringLiteral("\r\n")).toUtf8();
            files.append({l.name + QStringLiteral(".ps1"), psBytes, false});
        }
        return files;
    }

    QStringList shadow;
    for (const QString &p : settings.linuxShadow)
        shadow.append(QStringLiteral("\"$tfsetup_dir\"/") + p);
    QStringList variables;
    for (const auto &[name, value] : settingsVariables)
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
        } else if (l.run == u"jupyter") {
            // The first front end whose module imports runs; none: say so and fail.
            QStringList lines;
            for (const JupyterSettings::FrontEnd &f : settings.jupyter.preferring(context.jupyterFrontEnd)) {
                QStringList args;
                for (const QString &a : f.arguments + l.arguments)
                    args.append(quoting::shell(a));
                lines.append(QStringLiteral("if \"$TFSETUP_ENV/venv/bin/python\" -c %1 >/dev/null 2>&1; then\n"
                                            "    exec \"$TFSETUP_ENV/venv/bin/python\" %2 \"$@\"\n"
                                            "fi")
                                 .arg(quoting::shell(QStringLiteral("import ") + f.module), args.join(u' ')));
            }
            lines.append(QStringLiteral("printf '%s\\n' ") + quoting::shell(noFrontEndMessage(settings.jupyter))
                         + QStringLiteral(" >&2\nexit 1"));
            run = lines.join(u'\n');
        } else {
            QStringList args;
            for (const QString &a : l.arguments)
                args.append(quoting::shell(a));
            run = QStringLiteral("exec \"$TFSETUP_ENV/venv/bin/python\" ") + args.join(u' ')
                + (args.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("\"$@\"");
        }
        const QString sh = fill(settings.shTemplate,
                                {{QStringLiteral("LIBRARY_DIRS"), libraryDirs},
                                 {QStringLiteral("SHADOW"), shadow.join(u' ')},
                                 {QStringLiteral("VARIABLES"), variables.join(u'\n')},
                                 {QStringLiteral("XLA"), xla},
                                 {QStringLiteral("RUN"), run}},
                                {QStringLiteral("XLA")});
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
        const QString bin = SystemView::join(root, QStringLiteral("venv/bin"));
        QStringList path{bin};
        for (const QString &entry : context.inheritedPath) {
            if (entry != bin)
                path.append(entry);
        }
        env.append({QStringLiteral("PATH"), path.join(u':')});
        env.append({QStringLiteral("VIRTUAL_ENV"), SystemView::join(root, QStringLiteral("venv"))});
        if (context.xlaDataDir) {
            env.append({QStringLiteral("XLA_FLAGS"),
                        QStringLiteral("--xla_gpu_cuda_data_dir=") + SystemView::join(root, QStringLiteral("cuda"))});
        }
    }
    env += settings.variables + gpuVariables(context.visibleGpus);
    return env;
}

QJsonObject LauncherWriter::kernelSpec(const LauncherSettings &settings, const LauncherContext &context)
{
    QJsonObject env;
    for (const auto &[name, value] : kernelEnvironment(settings, context))
        env.insert(name, value);
    return QJsonObject{
        {QStringLiteral("argv"),
         QJsonArray{venvPython(context.os, context.environmentPath), QStringLiteral("-m"),
                    settings.jupyter.kernelModule, QStringLiteral("-f"), QStringLiteral("{connection_file}")}},
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
    text += QStringLiteral("Comment=")
        + stringValue(tr("A shell with this TensorFlow environment's Python and CUDA "
                         "libraries first"))
        + u'\n';
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

namespace {

// The environment folder the kernelspec registered under `kernelName` names in its metadata
// (view spelling); empty when none is there or it names none (not tfsetup's: the installer keeps
// such a file beside its own, as it keeps an edited launcher).
QString kernelOwner(const SystemView &system, const QString &kernelName)
{
    const QString spec = SystemView::join(LauncherWriter::userKernelFolder(system, kernelName),
                                          QStringLiteral("kernel.json"));
    if (!system.exists(spec))
        return {};
    const auto bytes = system.readFile(spec, 1024 * 1024);
    if (!bytes)
        return {};
    const QString owner = QJsonDocument::fromJson(*bytes)
                              .object()
                              .value(QStringLiteral("metadata"))
                              .toObject()
                              .value(QStringLiteral("tfsetup_environment"))
                              .toString();
    return owner.isEmpty() ? QString() : system.normalize(owner);
}

} // namespace

QString LauncherWriter::ownKernelName(const SystemView &system, const QString &wanted, const QString &environmentPath,
                                      QString *why)
{
    const Qt::CaseSensitivity cs = system.os() == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
    const QString self = system.normalize(environmentPath);
    // The environment holding `name`, empty when it is free for this one.
    auto heldBy = [&](const QString &name) -> QString {
        const QString owner = kernelOwner(system, name);
        if (owner.isEmpty() || owner.compare(self, cs) == 0
            || !system.exists(SystemView::join(owner, QStringLiteral("environment.json"))))
            return {};
        return owner;
    };
    const QString holder = heldBy(wanted);
    if (holder.isEmpty())
        return wanted;
    const QString made = wanted.left(51) + u'-'
        + QString::fromLatin1(QCryptographicHash::hash(self.toUtf8(), QCryptographicHash::Sha256).toHex().left(8));
    const bool free = heldBy(made).isEmpty();
    if (why) {
        *why = free ? tr("The Jupyter kernel \"%1\" belongs to the environment in %2, which keeps it; this "
                         "environment's kernel is registered as \"%3\".")
                          .arg(wanted, holder, made)
                    : tr("The Jupyter kernels \"%1\" and \"%2\" belong to other environments (%3), which keep "
                         "them; this environment's kernel was not registered. Install it again with another kernel "
                         "name.")
                          .arg(wanted, made, holder);
    }
    return free ? made : QString();
}

QString LauncherWriter::desktopEntryPath(const SystemView &system, const QString &kernelName)
{
    if (system.os() != OsFamily::Linux)
        return {};
    QString xdg = system.env(QStringLiteral("XDG_DATA_HOME"));
    if (xdg.isEmpty())
        xdg = SystemView::join(system.homeDir(), QStringLiteral(".local/share"));
    return SystemView::join(system.normalize(xdg),
                            QStringLiteral("applications/tfsetup-") + kernelName + QStringLiteral(".desktop"));
}

} // namespace tfsetup::core
