// A real venv and a real pip against a loopback index serving a wheel built here: live log
// lines, hash-locked installs, an offline wheelhouse, and cancel while pip waits.

#include "install/installer.h"
#include "install/archive.h"
#include "support/coroutinetest.h"
#include "support/loopbackserver.h"
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
// pip; tests/core/test_jupyter.cpp runs the real one).
const QString kernelWheelName = QStringLiteral("ipykernel-0.1-py3-none-any.whl");

QByteArray recordHash(const QByteArray &data)
{
    return "sha256=" + QCryptographicHash::hash(data, QCryptographicHash::Sha256)
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
    void installsFromALoopbackIndex();
    void hashLockRefusesOtherFiles();
    void offlineWheelhouse();
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
        s.indexUrls = {m_server.url(QStringLiteral("/simple/")).toString()};
        s.registerKernel = false;
        s.desktopEntry = false;
        return s;
    }
    core::Result<core::InstallOutcome> install(Installer &installer, const InstallSpec &s)
    {
        auto r = awaitTask(installer.install(s), std::chrono::seconds(120));
        return r ? *r : core::Result<core::InstallOutcome>(core::Error{QStringLiteral("timeout"), {}, {}});
    }

    QString m_python;
    QTemporaryDir m_files;
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
    const QByteArray page = "<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8() + "#sha256="
                            + fileSha256(m_wheel) + "\">" + wheelName.toUtf8() + "</a></body></html>";
    m_server.route("/simple/tinypkg/", Response::bytes(page, "text/html"));
    m_server.route("/files/" + wheelName.toUtf8(), Response::bytes(bytes));
    m_kernelWheel = m_files.filePath(kernelWheelName);
    QVERIFY(buildWheel(m_kernelWheel, "ipykernel"));
    m_kernelLock = QStringLiteral("ipykernel==0.1 --hash=sha256:") + QString::fromLatin1(fileSha256(m_kernelWheel)) + u'\n';
    m_server.route("/simple/ipykernel/", Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + kernelWheelName.toUtf8()
                                                             + "#sha256=" + fileSha256(m_kernelWheel) + "\">"
                                                             + kernelWheelName.toUtf8() + "</a></body></html>",
                                                         "text/html"));
    QFile kernel(m_kernelWheel);
    QVERIFY(kernel.open(QIODevice::ReadOnly));
    m_server.route("/files/" + kernelWheelName.toUtf8(), Response::bytes(kernel.readAll()));
}

void TestVenv::installsFromALoopbackIndex()
{
    QTemporaryDir prefix;
    Installer installer(m_system);
    QStringList lines;
    connect(&installer, &Installer::logLine, this, [&](const QString &l) { lines.append(l); });
    InstallSpec s = spec(prefix.path());
    s.requirementsLock = QStringLiteral("tinypkg==0.1 --hash=sha256:") + QString::fromLatin1(fileSha256(m_wheel)) + u'\n'
                         + m_kernelLock;
    const auto outcome = install(installer, s);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().message + u'\n' + outcome.error().detail));
    QVERIFY(m_server.hits("/simple/tinypkg/") >= 1);
    // pip's own words reached the log as they came.
    QVERIFY2(lines.join(u'\n').contains(QStringLiteral("Successfully installed ipykernel-0.1 tinypkg-0.1")), qPrintable(lines.join(u'\n')));

    const QString env = prefix.filePath(QStringLiteral("tf-test"));
    const auto record = core::EnvironmentRecord::read(env);
    QVERIFY(record);
    QVERIFY(record->packages.contains(QStringLiteral("tinypkg==0.1")));
    QVERIFY(record->packages.contains(QStringLiteral("ipykernel==0.1")));
    QVERIFY(!record->pythonVersion.isEmpty());
    bool ranPip = false;
    for (const auto &c : record->commands) {
        // Commands are recorded with the final folder, not the staging one.
        QVERIFY(!c.program.contains(QStringLiteral(".staging-")));
        ranPip = ranPip || c.arguments.contains(QStringLiteral("--require-hashes"));
    }
    QVERIFY(ranPip);
    // The venv works after the staging folder was renamed into place, through the launcher.
    QProcess python;
    python.start(env + QStringLiteral("/start-python"), {QStringLiteral("-c"), QStringLiteral("import sys, tinypkg; print(tinypkg.VALUE, sys.prefix)")});
    QVERIFY(python.waitForFinished(30000));
    const QString out = QString::fromUtf8(python.readAllStandardOutput()).trimmed();
    QVERIFY2(out.startsWith(QStringLiteral("42 ")), qPrintable(out + QString::fromUtf8(python.readAllStandardError())));
    QCOMPARE(QFileInfo(out.mid(3)).canonicalFilePath(), QFileInfo(env + QStringLiteral("/venv")).canonicalFilePath());
}

void TestVenv::hashLockRefusesOtherFiles()
{
    QTemporaryDir prefix;
    Installer installer(m_system);
    InstallSpec s = spec(prefix.path());
    s.requirementsLock = QStringLiteral("tinypkg==0.1 --hash=sha256:") + QString(64, u'0') + u'\n' + m_kernelLock;
    const auto outcome = install(installer, s);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("pip_hash_mismatch"));
    QCOMPARE(QDir(prefix.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{});
}

void TestVenv::offlineWheelhouse()
{
    QTemporaryDir prefix;
    QTemporaryDir wheelhouse;
    QVERIFY(QFile::copy(m_wheel, wheelhouse.filePath(wheelName)));
    QVERIFY(QFile::copy(m_kernelWheel, wheelhouse.filePath(kernelWheelName)));
    Installer installer(m_system);
    InstallSpec s = spec(prefix.path());
    s.offline = true;
    s.indexUrls.clear();
    s.artifacts.append({QStringLiteral("wheelhouse"), QStringLiteral("wheels"), {}, QStringLiteral("linux-x86_64"), {}, wheelhouse.path(), QStringLiteral("bundle")});
    m_server.clearRequests();
    const auto outcome = install(installer, s);
    QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().detail));
    QCOMPARE(m_server.requests().size(), 0);
    QVERIFY(core::EnvironmentRecord::read(prefix.filePath(QStringLiteral("tf-test")))->packages.contains(QStringLiteral("tinypkg==0.1")));
}

void TestVenv::cancelWhilePipWaits()
{
    QTemporaryDir prefix;
    m_server.route("/slow/tinypkg/", Response::bytes("<html></html>", "text/html").delayHeaders(std::chrono::seconds(60)));
    Installer installer(m_system);
    InstallSpec s = spec(prefix.path());
    s.indexUrls = {m_server.url(QStringLiteral("/slow/")).toString()};
    connect(&installer, &Installer::stepStarted, this, [&](InstallStep step, const QString &) {
        if (step == InstallStep::Packages)
            QTimer::singleShot(1500, &installer, &Installer::cancel);
    });
    QElapsedTimer timer;
    timer.start();
    const auto outcome = install(installer, s);
    QVERIFY(!outcome);
    QCOMPARE(outcome.error().code, QStringLiteral("cancelled"));
    QVERIFY(timer.elapsed() < 50'000);
    QCOMPARE(QDir(prefix.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{});
}

QTEST_GUILESS_MAIN(TestVenv)
#include "test_venv.moc"
