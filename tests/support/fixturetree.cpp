#include "support/fixturetree.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTest>

namespace tfsetup::test {

namespace {

bool fail(const QString &what, const QString &path, const QString &why)
{
    qWarning("%s %s: %s", qPrintable(what), qPrintable(QDir::toNativeSeparators(path)), qPrintable(why));
    return false;
}

bool isSafeRelative(const QString &relative)
{
    // Fixture descriptions must stay inside the root: no absolute paths, no "..".
    const QString clean = QDir::cleanPath(relative);
    return !relative.isEmpty() && !QDir::isAbsolutePath(relative) && clean != u".." && !clean.startsWith(u"../");
}

bool writeFile(const QString &path, const QByteArray &contents)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return fail(QStringLiteral("Cannot create the folder of"), path, QStringLiteral("mkpath failed"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(QStringLiteral("Cannot write"), path, f.errorString());
    if (f.write(contents) != contents.size())
        return fail(QStringLiteral("Cannot write"), path, f.errorString());
    return true;
}

} // namespace

// ---- SystemDescription ----

SystemDescription &SystemDescription::arch(const QString &arch)
{
    m_json.insert(QStringLiteral("arch"), arch);
    return *this;
}

static SystemDescription &setRegistry(SystemDescription &self, QJsonObject &json, const QString &key,
                                      const QString &name, const QJsonValue &value)
{
    QJsonObject registry = json.value(QStringLiteral("registry")).toObject();
    QJsonObject values = registry.value(key).toObject();
    values.insert(name, value);
    registry.insert(key, values);
    json.insert(QStringLiteral("registry"), registry);
    return self;
}

SystemDescription &SystemDescription::registry(const QString &key, const QString &name, const QString &text)
{
    return setRegistry(*this, m_json, key, name, text);
}

SystemDescription &SystemDescription::registry(const QString &key, const QString &name, qint64 number)
{
    return setRegistry(*this, m_json, key, name, number);
}

SystemDescription &SystemDescription::registry(const QString &key, const QString &name, const QStringList &multi)
{
    return setRegistry(*this, m_json, key, name, QJsonArray::fromStringList(multi));
}

SystemDescription &SystemDescription::cpuid(const tfsetup::core::CpuIdFeatures &features)
{
    m_json.insert(QStringLiteral("cpuid"),
                  QJsonObject{
                      {QStringLiteral("vendor"), features.vendor},
                      {QStringLiteral("brand"), features.brand},
                      {QStringLiteral("sse42"), features.sse42},
                      {QStringLiteral("avx"), features.avx},
                      {QStringLiteral("avx2"), features.avx2},
                      {QStringLiteral("fma"), features.fma},
                      {QStringLiteral("avx512f"), features.avx512f},
                  });
    return *this;
}

SystemDescription &SystemDescription::addCommand(QJsonObject command, const QStringList &args)
{
    if (!args.isEmpty())
        command.insert(QStringLiteral("args"), QJsonArray::fromStringList(args));
    QJsonArray commands = m_json.value(QStringLiteral("commands")).toArray();
    commands.append(command);
    m_json.insert(QStringLiteral("commands"), commands);
    return *this;
}

SystemDescription &SystemDescription::command(const QString &program, const QStringList &args,
                                              const QByteArray &standardOutput, int exitCode,
                                              const QByteArray &standardError)
{
    return addCommand(QJsonObject{{QStringLiteral("program"), program},
                                  {QStringLiteral("stdout"), QString::fromUtf8(standardOutput)},
                                  {QStringLiteral("stderr"), QString::fromUtf8(standardError)},
                                  {QStringLiteral("exit"), exitCode}},
                      args);
}

SystemDescription &SystemDescription::commandFromFile(const QString &program, const QStringList &args,
                                                      const QString &stdoutFile, int exitCode)
{
    return addCommand(QJsonObject{{QStringLiteral("program"), program},
                                  {QStringLiteral("stdout_file"), stdoutFile},
                                  {QStringLiteral("exit"), exitCode}},
                      args);
}

SystemDescription &SystemDescription::commandTimesOut(const QString &program, const QStringList &args)
{
    return addCommand(QJsonObject{{QStringLiteral("program"), program}, {QStringLiteral("timeout"), true}}, args);
}

// ---- free functions ----

bool writeTree(const QString &root, const TreeEntries &entries)
{
    for (const auto &[relative, contents] : entries) {
        if (!isSafeRelative(relative))
            return fail(QStringLiteral("Refusing fixture path"), relative,
                        QStringLiteral("must be relative, without .."));
        const QString path = root + u'/' + relative;
        if (relative.endsWith(u'/')) {
            if (!QDir().mkpath(path))
                return fail(QStringLiteral("Cannot create folder"), path, QStringLiteral("mkpath failed"));
        } else if (!writeFile(path, contents)) {
            return false;
        }
    }
    return true;
}

bool writeEnvFile(const QString &path, const EnvEntries &environment)
{
    QByteArray text;
    for (const auto &[name, value] : environment) {
        if (name.isEmpty() || name.contains(u'=') || value.contains(u'\n'))
            return fail(QStringLiteral("Cannot express in an env file"), name, QStringLiteral("bad name or value"));
        text += name.toUtf8() + '=' + value.toUtf8() + '\n';
    }
    return writeFile(path, text);
}

bool writeSystemJson(const QString &root, const QJsonObject &description)
{
    return writeFile(root + QStringLiteral("/.fixture/system.json"), QJsonDocument(description).toJson());
}

// ---- FixtureTree ----

FixtureTree::FixtureTree()
{
    if (!m_dir.isValid())
        fail(QStringLiteral("Cannot create a temporary folder"), m_dir.path(), m_dir.errorString());
}

QString FixtureTree::filePath(const QString &relative) const
{
    return m_dir.filePath(relative);
}

bool FixtureTree::write(const TreeEntries &entries)
{
    return isValid() && writeTree(path(), entries);
}

bool FixtureTree::write(const QString &relative, const QByteArray &contents)
{
    return write(TreeEntries{{relative, contents}});
}

bool FixtureTree::mkdir(const QString &relative)
{
    return write(TreeEntries{{relative.endsWith(u'/') ? relative : relative + u'/', {}}});
}

bool FixtureTree::writeEnv(const EnvEntries &environment, const QString &relative)
{
    if (!isValid() || !isSafeRelative(relative))
        return false;
    const QString file = filePath(relative);
    if (!writeEnvFile(file, environment))
        return false;
    m_envFile = file;
    return true;
}

bool FixtureTree::writeSystem(const SystemDescription &description)
{
    return isValid() && writeSystemJson(path(), description.toJson());
}

std::unique_ptr<tfsetup::core::RootedSystem> FixtureTree::open(tfsetup::core::OsFamily os) const
{
    auto opened = tfsetup::core::RootedSystem::open(path(), os, m_envFile);
    if (!opened) {
        fail(QStringLiteral("Cannot open fixture"), path(), opened.error().message);
        return nullptr;
    }
    return std::move(opened.value());
}

} // namespace tfsetup::test
