// A real venv and a real pip against a loopback index serving a wheel built here, through the
// setup pipeline: pip's resolver through the bridge, every wheel through the downloader, pip
// installing the verified files alone; a lab's hash lock that the index does not match; an
// install from verified files with no network; and cancel while pip waits on the index.

#include "install/archive.h"
#include "install/environmentrecord.h"
#include "install/installer.h"
#include "setup/pipeline.h"
#include "support/coroutinetest.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "support/wheellock.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace tfsetup;
using namespace tfsetup::test;
using core::Installer;
using core::InstallSpec;
using core::InstallStep;

namespace {

const QString wheelName = QStringLiteral("tinypkg-0.1-py3-none-any.whl");
// Every environment gets the kernel's package: a stand-in under its name (these tests are about
// pip; tests/core/install/test_jupyter.cpp runs the real one).
const QString kernelWheelName = QStringLiteral("ipykernel-0.1-py3-none-any.whl");

QByteArray recordHash(const QByteArray &data)
{
    return "sha256="
        + QCryptographicHash::hash(data, QCryptographicHash::Sha256)
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// The smallest valid wheel (PEP 427): a module, METADATA, WHEEL and a RECORD with real digests.
bool buildWheel(const QString &path, const QByteArray &name = "tinypkg")
{
    const QString info = QString::fromLatin1(name) + QStringLiteral("-0.1.dist-info/");
    const QList<std::pair<QString, QByteArray>> files{
        {QString::fromLatin1(name) + QStringLiteral("/__init__.py"), "VALUE = 42\n"},
        {info + QStringLiteral("METADATA"), "Metadata-Version: 2.1\nName: " + name + "\nVersion: 0.1\n"},
        {info + QStringLiteral("WHEEL"),
         "Wheel-Version: 1.0\nGenerator: tfsetup-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}};
    QList<core::ArchiveWriter::Entry> entries;
    QByteArray record;
    for (const auto &[name, data] : files) {
        entries.append({core::ArchiveWriter::Entry::File, name, data, {}, 0644});
        record += name.toUtf8() + ',' + recordHash(data) + ',' + QByteArray::number(data.size()) + '\n';
    }
    record += info.toUtf8() + "RECORD,,\n";
    entries.append({core::ArchiveWriter::Entry::File, info + QStringLiteral("RECORD"), record, {}, 0644});
    return bool(core::ArchiveWriter::write(path, core::ArchiveWriter::Zip, entries));
}

QByteArray fileSha256(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestVenv : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void installsThroughTheBridgeAndTheDownloader();
    void hashLockRefusesOtherFiles();
    void verifiedWheelsWithoutNetwork();
    void cancelWhilePipWaits();

private:
    InstallSpec spec(const QString &prefix) const
    {
        InstallSpec s;
        s.name = QStringLiteral("tf-test");
        s.prefix = prefix;
        s.route = QStringLiteral("linux-pip");
        s.tensorflow = QStringLiteral("0.1");
        s.pythonInterpreter = m_python;
        s.requirements = {QStringLiteral("tinypkg==0.1")};
        s.registerKernel = false;
        s.desktopEntry = false;
        return s;
    }
    core::Plan plan() const
    {
        core::Plan p;
        p.route = QStringLiteral("cpu");
        p.tensorflow = QStringLiteral("0.1");
        p.package = QStringLiteral("tinypkg");
        p.python = QStringLiteral("3");
        p.pythonInstalled = true;
        return p;
    }
    core::SetupOptions options(const QString &prefix, const QString &index) const
    {
        core::SetupOptions o;
        o.knowledge = test::shippedKnowledge();
        o.prefix = prefix;
        o.name = QStringLiteral("tf-test");
        o.cacheDir = m_cache.path();
        o.network.pypiIndexes = {index};
        return o;
    }
    core::Result<core::InstallOutcome> install(Installer &installer, const InstallSpec &s)
    {
        auto r = awaitTask(installer.install(s), std::chrono::seconds(120));
        return r ? *r : core::Result<core::InstallOutcome>(core::Error{QStringLiteral("timeout"), {}, {}});
    }
    core::Result<core::InstallOutcome> run(core::SetupPipeline &pipeline, const InstallSpec &s,
                                           const core::SetupOptions &o)
    {
        auto r = awaitTask(pipeline.run(plan(), s, o), std::chrono::seconds(180));
        return r ? *r : core::Result<core::InstallOutcome>(core::Error{QStringLiteral("timeout"), {}, {}});
    }

    QString m_python;
    QTemporaryDir m_files;
    QTemporaryDir m_cache;
    QString m_wheel;
    QString m_kernelWheel;
    QString m_kernelLock; // the stand-in kernel's line of a hash lock
    LoopbackServer m_server;
    core::RealSystem m_system;
};

void TestVenv::initTestCase()
{
    m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (m_python.isEmpty())
        QSKIP("python3 is not installed");
    QTemporaryDir probe;
    QProcess venv;
    venv.start(m_python, {QStringLiteral("-m"), QStringLiteral("venv"), probe.filePath(QStringLiteral("v"))});
    if (!venv.waitForFinished(120000) || venv.exitCode() != 0)
        QSKIP("python3 -m venv does not work here (Debian/Ubuntu: install python3-venv)");
    m_wheel = m_files.filePath(wheelName);
    QVERIFY(buildWheel(m_wheel));
    QFile wheel(m_wheel);
    QVERIFY(wheel.open(QIODevice::ReadOnly));
    const QByteArray bytes = wheel.readAll();
    QVERIFY(m_server.start());
    const QByteArray page = "<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
        + "#sha256=" + fileSha256(m_wheel) + "\">" + wheelName.toUtf8() + "</a></body></html>";
    m_server.route("/simple/tinypkg/", Response::bytes(page, "text/html"));
    m_server.route("/files/" + wheelName.toUtf8(), Response::bytes(bytes));
    m_kernelWheel = m_files.filePath(kernelWheelName);
    QVERIFY(buildWheel(m_kernelWheel, "ipykernel"));
    m_kernelLock = QStringLiteral("ipykernel==0.1 --hash=sha256:") + QString::fromLatin1(fileSha256(m_kernelWheel))
        + u'\n';
    m_server.route("/simple/ipykernel/",
                   Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + kernelWheelName.toUtf8()
                                       + "#sha256=" + fileSha256(m_kernelWheel) + "\">" + kernelWheelName.toUtf8()
                                       + "</a></body></html>",
                                   "text/html"));
    QFile kernel(m_kernelWheel);
    QVERIFY(kernel.open(QIODevice::ReadOnly));
    m_server.route("/files/" + kernelWheelName.toUtf8(), Response::bytes(kernel.readAll()));
}

void TestVenv::installsThroughTheBridgeAndTheDownloader()
{
    QTemporaryDir prefix;
    core::SetupPipeline pipeline(m_system);
    QStringList lines;
    connect(&pipeline, &core::SetupPipeline::logLine, this, [&](const QString &l) { lines.append(l); });
    InstallSpec s = spec(prefix.path());
    s.requirementsLock = QStringLiteral("tinypkg==0.1 --hash=sha256:") + QString::fromLatin1(fileSha256(m_wheel))
        + u'\n' + m_kernelLock;
    m_server.clearRequests();
    const auto outcome = run(pipeline, s, options(prefix.path(), m_server.url(QStringLiteral("/simple/")).toString()));
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().message + u'\n' + outcome.error().detail));
    QVERIFY(m_server.hits("/simple/tinypkg/") >= 1);
    // Each wheel left the index once, fetched by tfsetup's downloader, never by pip.
    QCOMPARE(m_server.hits("/files/" + wheelName.toUtf8()), 1);
    QCOMPARE(m_server.hits("/files/" + kernelWheelName.toUtf8()), 1);
    for (const RecordedRequest &r : m_server.requests())
        QVERIFY2(!r.header("user-agent").startsWith("pip/"), r.target.constData());
    // pip's own words reached the log as they came.
    QVERIFY2(lines.join(u'\n').contains(QStringLiteral("Successfully installed ipykernel-0.1 tinypkg-0.1")),
             qPrintable(lines.join(u'\n')));

    const QString env = prefix.filePath(QStringLiteral("tf-test"));
    const auto record = core::EnvironmentRecord::read(env);
    QVERIFY(record);
    QVERIFY(record->packages.contains(QStringLiteral("tinypkg==0.1")));
    QVERIFY(record->packages.contains(QStringLiteral("ipykernel==0.1")));
    QVERIFY(!record->pythonVersion.isEmpty());
    // The lock beside the record: each wheel with the index's URL and its hash.
    const core::LockedWheel *locked = record->lock.find(QStringLiteral("tinypkg"));
    QVERIFY(locked);
    QCOMPARE(locked->url, m_server.url(QStringLiteral("/files/")).toString() + wheelName);
    QCOMPARE(locked->sha256, fileSha256(m_wheel));
    QCOMPARE(locked->size, QFileInfo(m_wheel).size());
    bool ranPip = false;
    for (const auto &c : record->commands) {
        // Commands are recorded with the final folder, not the staging one.
        QVERIFY(!c.program.contains(QStringLiteral(".staging-")));
        ranPip = ranPip
            || (c.arguments.contains(QStringLiteral("--require-hashes"))
                && c.arguments.contains(QStringLiteral("--no-index")));
    }
    QVERIFY(ranPip);
    // The venv works after the staging folder was renamed into place, through the launcher.
    QProcess python;
    python.start(env + QStringLiteral("/start-python"),
                 {QStringLiteral("-c"), QStringLiteral("import sys, tinypkg; print(tinypkg.VALUE, sys.prefix)")});
    QVERIFY(python.waitForFinished(30000));
    const QString out = QString::fromUtf8(python.readAllStandardOutput()).trimmed();
    QVERIFY2(out.startsWith(QStringLiteral("42 ")), qPrintable(out + QString::fromUtf8(python.readAllStandardError())));
    QCOMPARE(QFileInfo(out.mid(3)).canonicalFilePath(), QFileInfo(env + QStringLiteral("/venv")).canonicalFilePath());
}

void TestVenv::hashLockRefusesOtherFiles()
{
    QTemporaryDir prefix;
    core::SetupPipeline pipeline(m_system);
    InstallSpec s = spec(prefix.path());
    s.requirementsLock = QStringLiteral("tinypkg==0.1 --hash=sha256:") + QString(64, u'0') + u'\n' + m_kernelLock;
    const auto outcome = run(pipeline, s, options(prefix.path(), m_server.url(QStringLiteral("/simple/")).toString()));
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("pip_hash_mismatch"));
    QCOMPARE(QDir(prefix.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{});
}

void TestVenv::verifiedWheelsWithoutNetwork()
{
    QTemporaryDir prefix;
    const LockedFiles locked = lockWheels({m_wheel, m_kernelWheel});
    Installer installer(m_system, test::shippedKnowledge());
    InstallSpec s = spec(prefix.path());
    s.lock = locked.lock;
    s.artifacts = locked.artifacts;
    m_server.clearRequests();
    const auto outcome = install(installer, s);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().detail));
    QCOMPARE(m_server.requests().size(), 0);
    const auto record = core::EnvironmentRecord::read(prefix.filePath(QStringLiteral("tf-test")));
    QVERIFY(record);
    QVERIFY(record->packages.contains(QStringLiteral("tinypkg==0.1")));
    QCOMPARE(record->lock, locked.lock);
    // No wheel folder stays behind in the environment.
    QVERIFY(!QFileInfo::exists(prefix.filePath(QStringLiteral("tf-test/.wheels"))));

    // A wheel changed after it was verified is not installed.
    QTemporaryDir other;
    QFile::copy(m_wheel, other.filePath(wheelName));
    LockedFiles tampered = lockWheels({other.filePath(wheelName), m_kernelWheel});
    QFile f(other.filePath(wheelName));
    QVERIFY(f.open(QIODevice::Append));
    f.write("x");
    f.close();
    InstallSpec t = spec(other.filePath(QStringLiteral("envs")));
    t.lock = tampered.lock;
    t.artifacts = tampered.artifacts;
    const auto refused = install(installer, t);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("artifact_changed"));
}

void TestVenv::cancelWhilePipWaits()
{
    QTemporaryDir prefix;
    m_server.route("/slow/tinypkg/",
                   Response::bytes("<html></html>", "text/html").delayHeaders(std::chrono::seconds(60)));
    core::SetupPipeline pipeline(m_system);
    InstallSpec s = spec(prefix.path());
    connect(&pipeline, &core::SetupPipeline::message, this, [&](const QString &line) {
        if (line.contains(QStringLiteral("pip")))
            QTimer::singleShot(1500, &pipeline, &core::SetupPipeline::cancel);
    });
    QElapsedTimer timer;
    timer.start();
    const auto outcome = run(pipeline, s, options(prefix.path(), m_server.url(QStringLiteral("/slow/")).toString()));
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("cancelled"));
    QVERIFY(timer.elapsed() < 50'000);
    QCOMPARE(QDir(prefix.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{});
}

QTEST_GUILESS_MAIN(TestVenv)
#include "test_venv.moc"
