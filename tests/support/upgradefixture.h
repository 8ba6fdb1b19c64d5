#pragma once

// What the upgrade tests share: a loopback index of stand-in wheels (TensorFlow 2.15.0 and 2.16.1,
// the kernel's package; under /bad/ 2.16.1 is listed with a SHA-256 that is not its own), a fixture
// machine (an RTX 3060, a current driver, this machine's Python), fixture catalogs (2.15.0, 2.16.1
// and 2.17.0, whose wheels carry code for Hopper only; and 2.15.0 alone), and an environment with
// TensorFlow 2.15.0 made once by the Installer and copied for each test.

#include "catalog/knowledge.h"
#include "detect/hardwarereport.h"
#include "install/installer.h"
#include "setup/pipeline.h"
#include "setup/upgrade.h"
#include "support/coroutinetest.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <tuple>

namespace tfsetup::test::upgrade {

using namespace Qt::StringLiterals;

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QJsonObject release(const QString &version, const QString &cuda)
{
    return QJsonObject{{u"version"_s, version},
                       {u"os"_s, u"linux"_s},
                       {u"python"_s, QJsonArray{u"3.8-3.14"_s}},
                       {u"cuda"_s, cuda},
                       {u"cudnn"_s, u"8.9"_s},
                       {u"source"_s, u"test fixture"_s},
                       {u"verified"_s, true},
                       {u"package"_s, u"tensorflow"_s},
                       {u"package_source"_s, u"test fixture"_s},
                       {u"pip_cuda_extra"_s, u"and-cuda"_s},
                       {u"pip_cuda_source"_s, u"test fixture"_s}};
}

QJsonObject gpuBuild(const QString &min, const QString &max, const QJsonArray &sass, const QJsonArray &ptx)
{
    return QJsonObject{{u"tf_min"_s, min},   {u"tf_max"_s, max}, {u"os"_s, QJsonArray{u"linux"_s}},
                       {u"sass"_s, sass},    {u"ptx"_s, ptx},    {u"source"_s, u"test fixture"_s},
                       {u"verified"_s, true}};
}

// The built-in catalog with its TensorFlow table replaced: the releases given, 2.15 and 2.16
// built for the fixture GPU (compute capability 8.6), 2.17 only for Hopper (9.0).
bool writeCatalog(const QString &folder, const QStringList &versions)
{
    QDirIterator it(QString::fromLatin1(core::Knowledge::builtInFolder), QDir::Files);
    while (it.hasNext()) {
        const QString from = it.next();
        const QString to = folder + u'/' + it.fileName();
        QFile::remove(to);
        if (!QFile::copy(from, to))
            return false;
        QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner);
    }
    QFile f(folder + u"/tensorflow.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    QJsonObject table = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QJsonArray releases;
    for (const QString &v : versions)
        releases.append(release(v, v == u"2.15.0" ? u"12.2"_s : u"12.3"_s));
    table.insert(u"releases"_s, releases);
    table.insert(u"gpu_builds"_s,
                 QJsonArray{gpuBuild(u"2.15"_s, u"2.16"_s, {u"7.0"_s, u"8.0"_s, u"9.0"_s}, {u"9.0"_s}),
                            gpuBuild(u"2.17"_s, u"2.17"_s, {u"9.0"_s}, {u"9.0"_s})});
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(QJsonDocument(table).toJson()) > 0;
}

QString pythonVersion(const QString &python)
{
    QProcess p;
    p.start(python, {u"-c"_s, u"import platform; print(platform.python_version())"_s});
    p.waitForFinished(30000);
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// Fails the calling test function (through the caller's QVERIFY on the returned bool).
#define UPGRADE_FIXTURE_VERIFY(cond)                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            qWarning("fixture: %s", #cond);                                                                            \
            return false;                                                                                              \
        }                                                                                                              \
    } while (false)
#define UPGRADE_FIXTURE_VERIFY2(cond, text)                                                                            \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            qWarning("fixture: %s: %s", #cond, text);                                                                  \
            return false;                                                                                              \
        }                                                                                                              \
    } while (false)

class Fixture {
public:
    // Call from initTestCase: QVERIFY(fixture.start()).
    bool start()
    {
        m_python = QStandardPaths::findExecutable(u"python3"_s);
        UPGRADE_FIXTURE_VERIFY2(!m_python.isEmpty(), "python3 is needed (the .ci/packages list has it)");
        m_pythonMinor = pythonVersion(m_python).section(u'.', 0, 1);
        UPGRADE_FIXTURE_VERIFY(!m_pythonMinor.isEmpty());
        UPGRADE_FIXTURE_VERIFY(m_server.start());

        // Stand-in wheels: TensorFlow 2.15.0 and 2.16.1, and the kernel's package.
        const QList<std::tuple<QString, QString>> wheels{
            {u"tensorflow"_s, u"2.15.0"_s}, {u"tensorflow"_s, u"2.16.1"_s}, {u"ipykernel"_s, u"6.0.0"_s}};
        QMap<QString, QByteArray> pages;
        QMap<QString, QByteArray> badPages; // TensorFlow 2.16.1 under a SHA-256 that is not its own
        for (const auto &[dist, version] : wheels) {
            const QString file = dist + u'-' + version + u"-py3-none-any.whl"_s;
            const QString path = m_files.filePath(file);
            const QByteArray module = "__version__ = \"" + version.toUtf8() + "\"\n";
            UPGRADE_FIXTURE_VERIFY(buildWheel(m_python, path, dist, version, module, dist));
            const QByteArray bytes = readFile(path);
            UPGRADE_FIXTURE_VERIFY(!bytes.isEmpty());
            m_server.route("/files/" + file.toUtf8(), Response::bytes(bytes));
            const QByteArray link = "<a href=\"/files/" + file.toUtf8() + "#sha256=" + sha256Hex(bytes) + "\">"
                + file.toUtf8() + "</a>";
            pages[dist] += link;
            badPages[dist] += version == u"2.16.1" ? "<a href=\"/files/" + file.toUtf8()
                    + "#sha256=" + QByteArray(64, '0') + "\">" + file.toUtf8() + "</a>"
                                                   : link;
        }
        for (auto it = pages.cbegin(); it != pages.cend(); ++it) {
            m_server.route("/simple/" + it.key().toUtf8() + "/",
                           Response::bytes("<html><body>" + it.value() + "</body></html>", "text/html"));
            m_server.route("/bad/" + it.key().toUtf8() + "/",
                           Response::bytes("<html><body>" + badPages[it.key()] + "</body></html>", "text/html"));
        }

        const QJsonObject machine{
            {u"os"_s,
             QJsonObject{
                 {u"family"_s, u"linux"_s}, {u"version"_s, u"Debian 12"_s}, {u"arch"_s, u"x86_64"_s}, {u"wsl"_s, 0}}},
            {u"cpu"_s,
             QJsonObject{{u"name"_s, u"Fixture CPU"_s}, {u"avx"_s, true}, {u"avx2"_s, true}, {u"fma"_s, true}}},
            {u"gpus"_s,
             QJsonArray{QJsonObject{{u"vendor"_s, u"nvidia"_s},
                                    {u"name"_s, u"NVIDIA GeForce RTX 3060"_s},
                                    {u"compute_capability"_s, u"8.6"_s},
                                    {u"source"_s, u"nvml"_s}}}},
            {u"driver"_s,
             QJsonObject{{u"version"_s, u"550.54.14"_s}, {u"cuda"_s, u"12.4"_s}, {u"source"_s, u"nvml"_s}}},
            {u"pythons"_s,
             QJsonArray{QJsonObject{{u"path"_s, m_python},
                                    {u"version"_s, pythonVersion(m_python)},
                                    {u"kind"_s, u"system"_s},
                                    {u"bits"_s, 64},
                                    {u"source"_s, u"path"_s}}}}};
        const auto report = core::HardwareReport::parse(machine, u"fixture"_s);
        UPGRADE_FIXTURE_VERIFY2(report, qPrintable(report ? QString() : report.error().message));
        m_hardware = *report;

        UPGRADE_FIXTURE_VERIFY(QDir().mkpath(m_files.filePath(u"catalog"_s)));
        UPGRADE_FIXTURE_VERIFY(writeCatalog(m_files.filePath(u"catalog"_s), {u"2.17.0"_s, u"2.16.1"_s, u"2.15.0"_s}));
        auto knowledge = core::Knowledge::load(m_files.filePath(u"catalog"_s));
        UPGRADE_FIXTURE_VERIFY2(
            knowledge, qPrintable(knowledge ? QString() : knowledge.error().message + u' ' + knowledge.error().detail));
        m_knowledge = *knowledge;
        UPGRADE_FIXTURE_VERIFY(QDir().mkpath(m_files.filePath(u"oldest"_s)));
        UPGRADE_FIXTURE_VERIFY(writeCatalog(m_files.filePath(u"oldest"_s), {u"2.15.0"_s}));
        auto oldest = core::Knowledge::load(m_files.filePath(u"oldest"_s));
        UPGRADE_FIXTURE_VERIFY(oldest);
        m_oldestKnowledge = *oldest;

        UPGRADE_FIXTURE_VERIFY(QDir().mkpath(m_files.filePath(u"base"_s)));
        m_base = installBase(m_files.filePath(u"base"_s));
        UPGRADE_FIXTURE_VERIFY(!m_base.isEmpty());
        return true;
    }

    // Made once by the Installer, copied (links as links) for each test: the venv's links are
    // absolute (the system's Python), the launchers find their folder from where they are.
    QString makeEnvironment(const QString &prefix)
    {
        QProcess copy;
        copy.start(u"cp"_s, {u"-a"_s, m_base, prefix + u"/tf-env"_s});
        if (!copy.waitForFinished(60000) || copy.exitCode() != 0)
            return {};
        return prefix + u"/tf-env"_s;
    }

    QString installBase(const QString &prefix)
    {
        core::InstallSpec spec;
        spec.name = u"tf-env"_s;
        spec.prefix = prefix;
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.15.0"_s;
        spec.package = u"tensorflow[and-cuda]"_s;
        spec.python = m_pythonMinor;
        spec.cuda = u"12.2"_s;
        spec.cudnn = u"8.9"_s;
        spec.pythonInterpreter = m_python;
        spec.requirements = {u"tensorflow[and-cuda]==2.15.*"_s};
        spec.jupyter.clear(); // the kernel alone: no front end to stand in for
        spec.kernelName = u"tf-upgrade-test"_s;
        spec.registerKernel = true;
        spec.desktopEntry = false;
        // Through the setup pipeline, as an install is made: pip's resolver locks the wheels
        // through the bridge to this index, the downloader fetches them.
        core::Plan plan;
        plan.route = spec.route;
        plan.tensorflow = spec.tensorflow;
        plan.package = spec.package;
        plan.python = spec.python;
        plan.pythonInstalled = true;
        plan.cuda = spec.cuda;
        plan.cudnn = spec.cudnn;
        core::SetupOptions options;
        options.prefix = prefix;
        options.name = spec.name;
        options.cacheDir = m_files.filePath(u"cache"_s);
        options.knowledge = m_knowledge;
        options.network.pypiIndexes = {m_server.url(u"/simple/"_s).toString()};
        core::SetupPipeline pipeline(m_system);
        auto done = awaitTask(pipeline.run(plan, spec, options), std::chrono::seconds(180));
        if (!done || !*done) {
            qWarning("%s", qPrintable(done ? done->error().message + u'\n' + done->error().detail : u"timeout"_s));
            return {};
        }
        return spec.environmentPath();
    }

    core::UpgradeRequest request(const QString &environment,
                                 const std::shared_ptr<const core::Knowledge> &knowledge) const
    {
        core::UpgradeRequest r;
        r.environmentPath = environment;
        r.hardware = m_hardware;
        r.knowledge = knowledge;
        r.setup.cacheDir = m_files.filePath(u"cache"_s);
        r.verify = false; // the stand-in TensorFlow has no GPU libraries to load (core_upgrade_cli verifies)
        return r;
    }
    core::Result<core::UpgradeProposal> propose(core::Upgrader &upgrader, const core::UpgradeRequest &r)
    {
        auto out = awaitTask(upgrader.propose(r), std::chrono::seconds(60));
        return out ? *out : core::Result<core::UpgradeProposal>(core::Error{u"timeout"_s, {}, {}});
    }
    core::Result<core::UpgradeOutcome> upgrade(core::Upgrader &upgrader, const core::UpgradeProposal &p,
                                               const core::UpgradeRequest &r)
    {
        auto out = awaitTask(upgrader.upgrade(p, r), std::chrono::seconds(180));
        return out ? *out : core::Result<core::UpgradeOutcome>(core::Error{u"timeout"_s, {}, {}});
    }
    static QString kernelsFolder()
    {
        return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + u"/jupyter/kernels"_s;
    }

    QString m_python;
    QString m_pythonMinor;
    QString m_base; // the environment makeEnvironment() copies
    QTemporaryDir m_files;
    LoopbackServer m_server;
    core::RealSystem m_system;
    core::HardwareReport m_hardware;
    std::shared_ptr<const core::Knowledge> m_knowledge;       // 2.15.0, 2.16.1, 2.17.0
    std::shared_ptr<const core::Knowledge> m_oldestKnowledge; // 2.15.0 alone
};

} // namespace tfsetup::test::upgrade
