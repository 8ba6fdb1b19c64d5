#include "system/rootedsystem.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace tfsetup::core {

namespace {

QString registryKeyNormalized(QString key)
{
    key.replace(u'/', u'\\');
    key = key.toUpper();
    key.replace(QLatin1String("HKEY_LOCAL_MACHINE"), QLatin1String("HKLM"));
    key.replace(QLatin1String("HKEY_CURRENT_USER"), QLatin1String("HKCU"));
    while (key.endsWith(u'\\'))
        key.chop(1);
    return key;
}

} // namespace

RootedSystem::RootedSystem(QString root, OsFamily os, QHash<QString, QString> environment)
    : m_root(QDir::cleanPath(QFileInfo(root).absoluteFilePath()))
    , m_os(os)
{
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        m_env.insert(os == OsFamily::Windows ? it.key().toUpper() : it.key(), it.value());
    loadFixtureDescription();
}

Result<QHash<QString, QString>> RootedSystem::readEnvFile(const QString &path)
{
    QHash<QString, QString> env;
    if (path.isEmpty())
        return env;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        return Error{QStringLiteral("env_file_unreadable"),
                     QCoreApplication::translate("SystemView",
                                                 "Cannot read the environment file %1. "
                                                 "Check the path and that it is readable.")
                         .arg(QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    int lineNumber = 0;
    while (!f.atEnd()) {
        ++lineNumber;
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        const qsizetype eq = line.indexOf(u'=');
        if (eq <= 0) {
            return Error{QStringLiteral("env_file_malformed"),
                         QCoreApplication::translate("SystemView",
                                                     "Line %1 of the environment file %2 is not "
                                                     "KEY=VALUE. Fix or remove that line.")
                             .arg(lineNumber)
                             .arg(QDir::toNativeSeparators(path)),
                         line};
        }
        env.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    return env;
}

Result<std::unique_ptr<RootedSystem>> RootedSystem::open(const QString &root, OsFamily os, const QString &envFile)
{
    if (!QFileInfo(root).isDir()) {
        return Error{QStringLiteral("root_missing"),
                     QCoreApplication::translate("SystemView",
                                                 "The folder %1 given as the system root does not "
                                                 "exist. Give an existing folder.")
                         .arg(QDir::toNativeSeparators(root)),
                     {}};
    }
    auto env = readEnvFile(envFile);
    if (!env)
        return env.error();
    return std::make_unique<RootedSystem>(root, os, std::move(env.value()));
}

void RootedSystem::loadFixtureDescription()
{
    QFile f(m_root + QLatin1String("/.fixture/system.json"));
    if (!f.open(QIODevice::ReadOnly))
        return;
    m_description = QJsonDocument::fromJson(f.readAll()).object();
}

QString RootedSystem::arch() const
{
    const QString a = m_description.value(QLatin1String("arch")).toString();
    return a.isEmpty() ? QStringLiteral("x86_64") : a;
}

QString RootedSystem::resolveCaseInsensitive(const QString &hostPath) const
{
    if (QFileInfo::exists(hostPath))
        return hostPath;
    // Walk component by component below the root, matching names without regard to case.
    const QString rel = hostPath.mid(m_root.size() + 1);
    QString current = m_root;
    const QStringList parts = rel.split(u'/', Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString candidate = current + u'/' + parts[i];
        if (QFileInfo::exists(candidate)) {
            current = candidate;
            continue;
        }
        const QStringList names = QDir(current).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
        auto it = std::find_if(names.cbegin(), names.cend(),
                               [&](const QString &n) { return n.compare(parts[i], Qt::CaseInsensitive) == 0; });
        if (it == names.cend()) {
            // Keep the remaining components as given: the path does not exist.
            return current + u'/' + parts.mid(i).join(u'/');
        }
        current += u'/' + *it;
    }
    return current;
}

QString RootedSystem::hostPath(const QString &path) const
{
    QString p = path;
    p.replace(u'\\', u'/');
    if (m_os == OsFamily::Windows) {
        if (p.size() < 2 || p.at(1) != u':' || !p.at(0).isLetter())
            return {}; // relative or UNC: not part of the fixture
        const QString drive = p.left(1).toUpper();
        const QString rest = QDir::cleanPath(u'/' + p.mid(2));
        if (rest.contains(QLatin1String("..")))
            return {};
        return resolveCaseInsensitive(m_root + u'/' + drive + (rest == u"/" ? QString() : rest));
    }
    if (!p.startsWith(u'/'))
        return {};
    const QString clean = QDir::cleanPath(p);
    if (clean.startsWith(QLatin1String("/..")))
        return {};
    return m_root + (clean == u"/" ? QString() : clean);
}

QString RootedSystem::env(const QString &name) const
{
    return m_env.value(m_os == OsFamily::Windows ? name.toUpper() : name);
}

QStringList RootedSystem::envNames() const
{
    QStringList names = m_env.keys();
    names.sort();
    return names;
}

QCoro::Task<ProcessResult> RootedSystem::run(QString program, QStringList arguments, std::chrono::milliseconds timeout)
{
    Q_UNUSED(timeout);
    ProcessResult result;
    QString base = QFileInfo(QString(program).replace(u'\\', u'/')).fileName();
    if (base.endsWith(QLatin1String(".exe"), Qt::CaseInsensitive))
        base.chop(4);
    const Qt::CaseSensitivity cs = m_os == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
    const QJsonArray commands = m_description.value(QLatin1String("commands")).toArray();
    for (const QJsonValue &v : commands) {
        const QJsonObject c = v.toObject();
        if (c.value(QLatin1String("program")).toString().compare(base, cs) != 0)
            continue;
        if (c.contains(QLatin1String("args"))) {
            const QJsonArray want = c.value(QLatin1String("args")).toArray();
            bool match = true;
            qsizetype i = 0;
            for (; i < want.size(); ++i) {
                const QString w = want.at(i).toString();
                if (w == u"*" && i == want.size() - 1) {
                    i = arguments.size();
                    break;
                }
                if (i >= arguments.size() || arguments.at(i) != w) {
                    match = false;
                    break;
                }
            }
            if (!match || i != arguments.size())
                continue;
        }
        if (c.value(QLatin1String("timeout")).toBool()) {
            result.started = true;
            result.timedOut = true;
            result.error = QStringLiteral("timed out");
            co_return result;
        }
        result.started = true;
        result.exitCode = c.value(QLatin1String("exit")).toInt(0);
        if (c.contains(QLatin1String("stdout_file"))) {
            QFile f(m_root + QLatin1String("/.fixture/") + c.value(QLatin1String("stdout_file")).toString());
            if (f.open(QIODevice::ReadOnly))
                result.standardOutput = f.readAll();
        } else {
            result.standardOutput = c.value(QLatin1String("stdout")).toString().toUtf8();
        }
        result.standardError = c.value(QLatin1String("stderr")).toString().toUtf8();
        co_return result;
    }
    result.error = QStringLiteral("%1: program not found").arg(program);
    co_return result;
}

LibraryLoad RootedSystem::loadLibrary(const QString &name)
{
    return {nullptr, QStringLiteral("%1: cannot load a library from a fixture tree").arg(name)};
}

std::optional<QVariant> RootedSystem::registryValue(const QString &key, const QString &name) const
{
    if (m_os != OsFamily::Windows)
        return std::nullopt;
    const QJsonObject registry = m_description.value(QLatin1String("registry")).toObject();
    const QString wanted = registryKeyNormalized(key);
    for (auto it = registry.constBegin(); it != registry.constEnd(); ++it) {
        if (registryKeyNormalized(it.key()) != wanted)
            continue;
        const QJsonObject values = it.value().toObject();
        for (auto v = values.constBegin(); v != values.constEnd(); ++v) {
            if (v.key().compare(name, Qt::CaseInsensitive) == 0)
                return v.value().toVariant();
        }
    }
    return std::nullopt;
}

QStringList RootedSystem::registrySubkeys(const QString &key) const
{
    if (m_os != OsFamily::Windows)
        return {};
    const QJsonObject registry = m_description.value(QLatin1String("registry")).toObject();
    const QString prefix = registryKeyNormalized(key) + u'\\';
    QStringList subkeys;
    for (auto it = registry.constBegin(); it != registry.constEnd(); ++it) {
        QString k = it.key();
        k.replace(u'/', u'\\');
        if (!registryKeyNormalized(k).startsWith(prefix))
            continue;
        // Keep the original spelling of the child name.
        const QString child = k.mid(prefix.size()).section(u'\\', 0, 0);
        if (!child.isEmpty() && !subkeys.contains(child, Qt::CaseInsensitive))
            subkeys.append(child);
    }
    subkeys.sort(Qt::CaseInsensitive);
    return subkeys;
}

std::optional<CpuIdFeatures> RootedSystem::cpuid() const
{
    if (!m_description.contains(QLatin1String("cpuid")))
        return std::nullopt;
    const QJsonObject c = m_description.value(QLatin1String("cpuid")).toObject();
    CpuIdFeatures f;
    f.vendor = c.value(QLatin1String("vendor")).toString();
    f.brand = c.value(QLatin1String("brand")).toString();
    f.sse42 = c.value(QLatin1String("sse42")).toBool();
    f.avx = c.value(QLatin1String("avx")).toBool();
    f.avx2 = c.value(QLatin1String("avx2")).toBool();
    f.fma = c.value(QLatin1String("fma")).toBool();
    f.avx512f = c.value(QLatin1String("avx512f")).toBool();
    return f;
}

std::optional<DiskSpace> RootedSystem::diskSpace(const QString &path) const
{
    const auto normalized = [this](QString p) {
        p = QDir::cleanPath(p.replace(u'\\', u'/'));
        if (!p.endsWith(u'/'))
            p += u'/';
        return m_os == OsFamily::Windows ? p.toLower() : p;
    };
    const QString wanted = normalized(path);
    std::optional<DiskSpace> found;
    qsizetype longest = -1;
    for (const QJsonValue &value : m_description.value(QLatin1String("disks")).toArray()) {
        const QJsonObject disk = value.toObject();
        const QString declared = disk.value(QLatin1String("path")).toString();
        const QString mount = normalized(declared);
        const double available = disk.value(QLatin1String("available")).toDouble(-1);
        if (declared.isEmpty() || mount.size() <= longest || !wanted.startsWith(mount) || available < 0)
            continue;
        longest = mount.size();
        found = DiskSpace{qint64(available), mount};
    }
    return found;
}

} // namespace tfsetup::core
