#include "detect/versionparsers.h"

#include "catalog/version.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

namespace tfsetup::core::parsers {

namespace {

// Keeps error details short enough for a log line even when a whole binary file was handed in.
QString excerpt(const QByteArray &bytes)
{
    constexpr qsizetype limit = 200;
    QString text = QString::fromUtf8(bytes.left(limit)).trimmed();
    if (bytes.size() > limit)
        text += QLatin1String("…");
    return text;
}

Error unreadable(const char *code, const QString &what, const QString &detail)
{
    return Error{QString::fromLatin1(code),
                 QCoreApplication::translate("VersionParsers",
                                             "Could not read the version from %1. The file may be damaged or "
                                             "from an unsupported release; reinstall that component if the "
                                             "setup needs it.")
                     .arg(what),
                 detail};
}

// "A.B.C" with every part a number; at least `minimumParts` parts.
bool isDottedVersion(const QString &text, int minimumParts)
{
    const QStringList parts = text.split(u'.');
    return parts.size() >= minimumParts
        && std::all_of(parts.begin(), parts.end(), [](const QString &p) { return version::isNumber(p); });
}

QString unquote(QString value)
{
    value = value.trimmed();
    if (value.size() >= 2 && (value.startsWith(u'"') || value.startsWith(u'\'')) && value.endsWith(value.at(0)))
        value = value.mid(1, value.size() - 2);
    return value;
}

std::optional<int> defineValue(const QString &text, const QString &name)
{
    const QRegularExpression re(QStringLiteral("^\\s*#\\s*define\\s+%1\\s+(\\d+)\\b").arg(name),
                                QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const int value = m.captured(1).toInt(&ok);
    return ok ? std::optional<int>(value) : std::nullopt;
}

} // namespace

Result<OsRelease> parseOsRelease(const QByteArray &text)
{
    OsRelease r;
    QString name;
    QString version;
    const QStringList lines = QString::fromUtf8(text).split(u'\n');
    for (const QString &raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        const qsizetype eq = line.indexOf(u'=');
        if (eq <= 0)
            continue;
        const QString key = line.left(eq);
        const QString value = unquote(line.mid(eq + 1));
        if (key == u"PRETTY_NAME")
            r.prettyName = value;
        else if (key == u"NAME")
            name = value;
        else if (key == u"VERSION")
            version = value;
        else if (key == u"ID")
            r.id = value;
        else if (key == u"VERSION_ID")
            r.versionId = value;
    }
    if (r.prettyName.isEmpty() && !name.isEmpty())
        r.prettyName = version.isEmpty() ? name : name + u' ' + version;
    if (r.prettyName.isEmpty())
        return unreadable("os_release_unreadable", QStringLiteral("/etc/os-release"), excerpt(text));
    return r;
}

Result<KernelInfo> parseKernelVersion(const QByteArray &text)
{
    const QString s = QString::fromUtf8(text).trimmed();
    // /proc/version: "Linux version RELEASE (builder) …"; osrelease: just "RELEASE".
    static const QRegularExpression procVersion(QStringLiteral("^Linux version (\\S+)"));
    static const QRegularExpression bareRelease(QStringLiteral("^(\\d+\\.\\d+\\S*)$"));
    KernelInfo k;
    if (const auto m = procVersion.match(s); m.hasMatch())
        k.release = m.captured(1);
    else if (const auto b = bareRelease.match(s); b.hasMatch())
        k.release = b.captured(1);
    else
        return unreadable("kernel_version_unreadable", QStringLiteral("/proc/version"), excerpt(text));

    if (k.release.contains(QLatin1String("WSL2"), Qt::CaseInsensitive)
        || k.release.contains(QLatin1String("microsoft-standard"), Qt::CaseInsensitive))
        k.wsl = 2;
    else if (k.release.contains(QLatin1String("Microsoft"), Qt::CaseInsensitive))
        k.wsl = 1;
    return k;
}

Result<ProcCpuInfo> parseProcCpuInfo(const QByteArray &text)
{
    ProcCpuInfo info;
    const QStringList lines = QString::fromUtf8(text).split(u'\n');
    bool seenProcessor = false;
    for (const QString &line : lines) {
        const qsizetype colon = line.indexOf(u':');
        if (colon < 0) {
            // A blank line ends the first processor block; the rest repeat it.
            if (line.trimmed().isEmpty() && seenProcessor && !info.modelName.isEmpty())
                break;
            continue;
        }
        const QString key = line.left(colon).trimmed();
        const QString value = line.mid(colon + 1).trimmed();
        if (key == u"processor") {
            seenProcessor = true;
        } else if (key == u"model name" && info.modelName.isEmpty()) {
            info.modelName = value;
        } else if (key == u"flags" && !info.hasFlags) {
            const QStringList flags = value.split(u' ', Qt::SkipEmptyParts);
            info.hasFlags = true;
            info.avx = flags.contains(QLatin1String("avx"));
            info.avx2 = flags.contains(QLatin1String("avx2"));
            info.fma = flags.contains(QLatin1String("fma"));
            info.avx512f = flags.contains(QLatin1String("avx512f"));
        }
    }
    if (info.modelName.isEmpty() && !info.hasFlags)
        return unreadable("cpuinfo_unreadable", QStringLiteral("/proc/cpuinfo"), excerpt(text));
    return info;
}

Result<QString> windowsVersionText(const QString &productName, const QString &displayVersion,
                                   const QString &currentBuild)
{
    if (productName.trimmed().isEmpty())
        return unreadable("windows_version_unreadable", QStringLiteral("the Windows registry (ProductName)"), {});
    QString product = productName.trimmed();
    bool buildOk = false;
    const int build = currentBuild.trimmed().toInt(&buildOk);
    // Windows 11 kept "Windows 10" in ProductName; its builds start at 22000
    // (Microsoft: Windows 11 release information, version 21H2 = OS build 22000).
    constexpr int firstWindows11Build = 22000;
    if (buildOk && build >= firstWindows11Build && product.startsWith(QLatin1String("Windows 10")))
        product.replace(0, 10, QStringLiteral("Windows 11"));
    QString text = product;
    if (!displayVersion.trimmed().isEmpty())
        text += u' ' + displayVersion.trimmed();
    if (buildOk)
        text += QStringLiteral(" (build %1)").arg(build);
    return text;
}

Result<int> windowsBuildNumber(const QString &versionText)
{
    // "(build N)" is what windowsVersionText() writes; the NT version is MAJOR.MINOR.BUILD[.REVISION]
    // with major 6 (Vista to 8.1) or 10 (10 and 11). Builds have four or five digits.
    static const QRegularExpression build(QStringLiteral("\\bbuild\\s+(\\d{4,5})\\b"),
                                          QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression ntVersion(
        QStringLiteral("(?<![\\d.])(?:6|10)\\.\\d\\.(\\d{4,5})(?:\\.\\d+)?(?![\\d.])"));
    for (const QRegularExpression *pattern : {&build, &ntVersion}) {
        const QRegularExpressionMatch match = pattern->match(versionText);
        if (match.hasMatch())
            return match.captured(1).toInt();
    }
    return unreadable("windows_build_unreadable", QStringLiteral("the Windows version text"), versionText.left(200));
}

Result<QString> parseCudaVersionJson(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject())
        return unreadable("cuda_version_json_unreadable", QStringLiteral("version.json"),
                          error.errorString() + QLatin1String(": ") + excerpt(json));
    const QJsonObject root = doc.object();
    for (const char *component : {"cuda", "cuda_cudart"}) {
        QString v = root.value(QLatin1String(component)).toObject().value(QLatin1String("version")).toString();
        if (!isDottedVersion(v, 2))
            continue;
        // Some repackaged toolkits stamp a build date as the third part ("12.6.20241114");
        // that is no CUDA update number, so keep major.minor only.
        const QStringList parts = v.split(u'.');
        if (parts.size() >= 3 && parts.at(2).size() >= 8)
            v = parts.at(0) + u'.' + parts.at(1);
        return v;
    }
    return unreadable("cuda_version_json_unreadable", QStringLiteral("version.json"), excerpt(json));
}

Result<QString> parseCudaVersionTxt(const QByteArray &text)
{
    static const QRegularExpression re(QStringLiteral("CUDA Version\\s+(\\d+\\.\\d+(?:\\.\\d+)?)"));
    const auto m = re.match(QString::fromUtf8(text));
    if (!m.hasMatch())
        return unreadable("cuda_version_txt_unreadable", QStringLiteral("version.txt"), excerpt(text));
    return m.captured(1);
}

Result<QString> parseCudaHeaderVersion(const QByteArray &header)
{
    const auto value = defineValue(QString::fromUtf8(header), QStringLiteral("CUDA_VERSION"));
    // cuda.h: CUDA_VERSION = major * 1000 + minor * 10.
    if (!value || *value < 1000)
        return unreadable("cuda_header_unreadable", QStringLiteral("cuda.h"), {});
    return QStringLiteral("%1.%2").arg(*value / 1000).arg((*value % 1000) / 10);
}

Result<QString> cudaVersionFromFolderName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^(?:v|cuda-)(\\d+\\.\\d+)$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(name);
    if (!m.hasMatch())
        return unreadable("cuda_folder_unversioned", name, {});
    return m.captured(1);
}

Result<QString> cudaVersionFromEnvName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^CUDA_PATH_V(\\d+)_(\\d+)$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(name);
    if (!m.hasMatch())
        return unreadable("cuda_env_unversioned", name, {});
    return QString(m.captured(1) + u'.' + m.captured(2));
}

Result<QString> parseCudnnHeader(const QByteArray &header)
{
    const QString text = QString::fromUtf8(header);
    const auto major = defineValue(text, QStringLiteral("CUDNN_MAJOR"));
    const auto minor = defineValue(text, QStringLiteral("CUDNN_MINOR"));
    const auto patch = defineValue(text, QStringLiteral("CUDNN_PATCHLEVEL"));
    if (!major || !minor || !patch)
        return unreadable("cudnn_header_unreadable", QStringLiteral("the cuDNN header"), excerpt(header));
    return QStringLiteral("%1.%2.%3").arg(*major).arg(*minor).arg(*patch);
}

Result<QString> cudnnVersionFromLibraryName(const QString &fileName)
{
    static const QRegularExpression linuxName(QStringLiteral("^libcudnn\\.so\\.(\\d+(?:\\.\\d+)*)$"));
    static const QRegularExpression windowsName(QStringLiteral("^cudnn64_(\\d+)\\.dll$"),
                                                QRegularExpression::CaseInsensitiveOption);
    if (const auto m = linuxName.match(fileName); m.hasMatch())
        return m.captured(1);
    if (const auto m = windowsName.match(fileName); m.hasMatch())
        return m.captured(1);
    return unreadable("cudnn_library_unversioned", fileName, {});
}

Result<QList<PyLauncherEntry>> parsePyLauncherList(const QByteArray &output)
{
    // Tag, optional default star, then the path; the pre-3.11 launcher puts the star last.
    static const QRegularExpression line(QStringLiteral("^\\s*-(V:)?(\\S+)\\s+(\\*\\s+)?(\\S.*?)(\\s+\\*)?\\s*$"));
    static const QRegularExpression cpythonTag(QStringLiteral("^(\\d+\\.\\d+)(?:-(32|64|arm64))?$"));
    QList<PyLauncherEntry> entries;
    const QStringList lines = QString::fromUtf8(output).split(u'\n');
    for (const QString &raw : lines) {
        const auto m = line.match(raw);
        if (!m.hasMatch())
            continue;
        PyLauncherEntry e;
        e.tag = m.captured(2);
        e.path = m.captured(4).trimmed();
        e.isDefault = !m.captured(3).isEmpty() || !m.captured(5).isEmpty();
        // A real entry has a path: a drive letter or a UNC share. Lines such as
        // " -V:3.11 (store)" or " -V:2.7" (no runnable install) do not.
        const bool hasPath = (e.path.size() > 2 && e.path.at(1) == u':') || e.path.startsWith(QLatin1String("\\\\"));
        if (!hasPath)
            continue;
        if (const auto t = cpythonTag.match(e.tag); t.hasMatch()) {
            e.version = t.captured(1);
            if (t.captured(2) == u"64" || t.captured(2) == u"arm64")
                e.bits = 64;
            else if (t.captured(2) == u"32")
                e.bits = 32;
        } else if (e.tag.endsWith(QLatin1String("-64"))) {
            e.bits = 64;
        } else if (e.tag.endsWith(QLatin1String("-32"))) {
            e.bits = 32;
        }
        entries.append(e);
    }
    if (entries.isEmpty())
        return unreadable("py_launcher_unreadable", QStringLiteral("the output of py -0p"), excerpt(output));
    return entries;
}

Result<QString> parsePyvenvCfgVersion(const QByteArray &text)
{
    QString versionInfo;
    const QStringList lines = QString::fromUtf8(text).split(u'\n');
    for (const QString &raw : lines) {
        const qsizetype eq = raw.indexOf(u'=');
        if (eq <= 0)
            continue;
        const QString key = raw.left(eq).trimmed().toLower();
        const QString value = raw.mid(eq + 1).trimmed();
        if (key == u"version" && isDottedVersion(value, 2))
            return value;
        if (key == u"version_info") {
            // virtualenv writes "3.12.1.final.0"; keep the numeric prefix.
            const QStringList parts = value.split(u'.');
            QStringList numeric;
            for (const QString &p : parts) {
                if (!version::isNumber(p))
                    break;
                numeric.append(p);
            }
            if (numeric.size() >= 2)
                versionInfo = numeric.mid(0, 3).join(u'.');
        }
    }
    if (!versionInfo.isEmpty())
        return versionInfo;
    return unreadable("pyvenv_cfg_unreadable", QStringLiteral("pyvenv.cfg"), excerpt(text));
}

Result<QString> pythonVersionFromCondaMetaName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^python-(\\d+\\.\\d+\\.\\d+)-[^-]+\\.json$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return unreadable("conda_meta_unversioned", fileName, {});
    return m.captured(1);
}

Result<QString> parsePythonPatchlevel(const QByteArray &header)
{
    static const QRegularExpression re(QStringLiteral("#\\s*define\\s+PY_VERSION\\s+\"(\\d+\\.\\d+\\.\\d+)[^\"]*\""));
    const auto m = re.match(QString::fromUtf8(header));
    if (!m.hasMatch())
        return unreadable("patchlevel_unreadable", QStringLiteral("patchlevel.h"), {});
    return m.captured(1);
}

Result<QString> pythonVersionFromDllName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^python(\\d)(\\d+)\\.dll$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return unreadable("python_dll_unversioned", fileName, {});
    return QString(m.captured(1) + u'.' + m.captured(2));
}

Result<QString> pythonVersionFromName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^python(\\d+\\.\\d+)$"));
    const auto m = re.match(name);
    if (!m.hasMatch())
        return unreadable("python_name_unversioned", name, {});
    return m.captured(1);
}

Result<PythonProbe> parsePythonProbe(const QByteArray &output)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+\\.\\d+\\.\\d+)\\S*\\s+(32|64)\\s*$"));
    const auto m = re.match(QString::fromUtf8(output));
    if (!m.hasMatch())
        return unreadable("python_probe_unreadable", QStringLiteral("the Python interpreter's answer"),
                          excerpt(output));
    return PythonProbe{m.captured(1), m.captured(2).toInt()};
}

} // namespace tfsetup::core::parsers
