// tfsetup verify: reading an environment's record, turning it into a request, and the whole
// command end to end on a made-up environment whose launcher puts a stand-in tensorflow package
// (tests/data/verify/fake_tensorflow) on the path.

#include "catalog/catalog.h"
#include "system/rootedsystem.h"
#include "verify/verifier.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

class TestVerifyCommand : public QObject {
    Q_OBJECT

private slots:
    void readsEnvironment_data();
    void readsEnvironment();
    void readsInstallerRecord();
    void refusesWhatIsNotAnEnvironment_data();
    void refusesWhatIsNotAnEnvironment();
    void requestFillsVersionsFromTheCatalog();
    void processorRouteExpectsNoGpu();
    void endToEnd_data();
    void endToEnd();
    void usageErrors();

private:
    static QString data() { return qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/verify"_s; }
    static RootedSystem fixture() { return RootedSystem(data() + u"/environments"_s, OsFamily::Linux, {}); }
};

void TestVerifyCommand::readsEnvironment_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("tensorflow");
    QTest::addColumn<QString>("cuda");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("launcher");
    QTest::addColumn<QStringList>("libraryDirs");

    QTest::newRow("plan nested, relative paths")
        << "/envs/nested"
        << "2.10.0"
        << "11.2"
        << "linux-toolkit"
        << "/envs/nested/bin/start-python.sh" << QStringList{u"/envs/nested/cuda/lib64"_s};
    QTest::newRow("flat record, path list as text")
        << "/envs/flat"
        << "2.15.1"
        << ""
        << "linux-pip"
        << "/home/student/envs/flat/start-python.sh"
        << QStringList{u"/home/student/envs/flat/nvidia/cudnn/lib"_s, u"/home/student/envs/flat/nvidia/cublas/lib"_s};
    QTest::newRow("no record, launcher on disk") << "/envs/launcher-only"
                                                 << ""
                                                 << ""
                                                 << ""
                                                 << "/envs/launcher-only/bin/start-python.sh" << QStringList{};
}

void TestVerifyCommand::readsEnvironment()
{
    QFETCH(QString, dir);
    QFETCH(QString, tensorflow);
    QFETCH(QString, cuda);
    QFETCH(QString, route);
    QFETCH(QString, launcher);
    QFETCH(QStringList, libraryDirs);

    const RootedSystem system = fixture();
    auto info = EnvironmentInfo::read(system, dir);
    QVERIFY2(info, info ? "" : qPrintable(info.error().message));
    QCOMPARE(info->tensorflow, tensorflow);
    QCOMPARE(info->cuda, cuda);
    QCOMPARE(info->route, route);
    QCOMPARE(info->pythonLauncher, launcher);
    QCOMPARE(info->libraryDirs, libraryDirs);
    QCOMPARE(info->os, u"linux"_s);
}

void TestVerifyCommand::readsInstallerRecord()
{
    // The installer's own record (install/environmentrecord.h): launchers as a list of relative
    // paths, the plan under "plan", placed files under "files".
    const RootedSystem system = fixture();
    auto info = EnvironmentInfo::read(system, u"/envs/installed"_s);
    QVERIFY2(info, info ? "" : qPrintable(info.error().message));
    QCOMPARE(info->os, u"windows"_s);
    QCOMPARE(info->pythonLauncher, u"/envs/installed/start-python.bat"_s);
    QCOMPARE(info->shellLauncher, u"/envs/installed/shell.bat"_s);
    QCOMPARE(info->cuda, u"11.2"_s);
    auto catalog = Catalog::load();
    QVERIFY(catalog);
    const ProbeRequest probe = VerifyRequest::forEnvironment(*info, *catalog).probeRequest(*catalog);
    // The folder holding the placed DLLs is where each copy should come from.
    QCOMPARE(probe.ownDirs, QStringList{u"/envs/installed/cuda/bin"_s});
    QCOMPARE(probe.libraries.first().name, u"cudart64_110.dll"_s);
}

void TestVerifyCommand::refusesWhatIsNotAnEnvironment_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("code");
    QTest::newRow("damaged record") << "/envs/malformed"
                                    << "environment_malformed";
    QTest::newRow("ordinary folder") << "/envs/empty"
                                     << "environment_unrecognised";
    QTest::newRow("no such folder") << "/envs/gone"
                                    << "environment_missing";
}

void TestVerifyCommand::refusesWhatIsNotAnEnvironment()
{
    QFETCH(QString, dir);
    QFETCH(QString, code);
    const RootedSystem system = fixture();
    auto info = EnvironmentInfo::read(system, dir);
    QVERIFY(!info);
    QCOMPARE(info.error().code, code);
    QVERIFY(info.error().message.contains(dir));
}

void TestVerifyCommand::requestFillsVersionsFromTheCatalog()
{
    auto catalog = Catalog::load();
    QVERIFY(catalog);
    const RootedSystem system = fixture();
    auto info = EnvironmentInfo::read(system, u"/envs/flat"_s);
    QVERIFY(info);
    const VerifyRequest request = VerifyRequest::forEnvironment(*info, *catalog);
    const auto release = catalog->release(u"linux"_s, u"2.15"_s);
    QVERIFY(release);
    QCOMPARE(request.cuda, release->cuda);
    QCOMPARE(request.cudnn, release->cudnn);
    QVERIFY(request.expectGpu);
    const ProbeRequest probe = request.probeRequest(*catalog);
    QCOMPARE(probe.ownDirs, info->libraryDirs);
    QCOMPARE(probe.libraries, ProbeRequest::forVersions(*catalog, release->cuda, release->cudnn, u"linux"_s).libraries);
}

void TestVerifyCommand::processorRouteExpectsNoGpu()
{
    auto catalog = Catalog::load();
    QVERIFY(catalog);
    EnvironmentInfo info;
    info.os = u"linux"_s;
    info.route = u"cpu"_s;
    info.tensorflow = u"2.15.0"_s;
    const VerifyRequest request = VerifyRequest::forEnvironment(info, *catalog);
    QVERIFY(!request.expectGpu);
    QVERIFY(request.probeRequest(*catalog).libraries.isEmpty());
}

void TestVerifyCommand::endToEnd_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("route");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("firstFailure");
    QTest::addColumn<QStringList>("statuses"); // per layer, in order

    QTest::newRow("works, libraries found by TensorFlow itself")
        << "ok"
        << "linux-pip" << 0 << QString()
        << QStringList{u"warning"_s, u"passed"_s, u"passed"_s, u"passed"_s, u"passed"_s};
    QTest::newRow("no GPU: the probe names the missing libraries")
        << "no_gpu"
        << "linux-pip" << 1 << "libraries"
        << QStringList{u"failed"_s, u"passed"_s, u"failed"_s, u"skipped"_s, u"skipped"_s};
    QTest::newRow("processor route") << "cpu_build"
                                     << "cpu" << 0 << QString()
                                     << QStringList{u"passed"_s, u"passed"_s, u"passed"_s, u"passed"_s};
}

void TestVerifyCommand::endToEnd()
{
    QFETCH(QString, mode);
    QFETCH(QString, route);
    QFETCH(int, exitCode);
    QFETCH(QString, firstFailure);
    QFETCH(QStringList, statuses);

    const QString python = QStandardPaths::findExecutable(u"python3"_s);
    if (python.isEmpty())
        QSKIP("python3 is not installed");
    QTemporaryDir env;
    QVERIFY(env.isValid());
    QVERIFY(QDir().mkpath(env.filePath(u"site/tensorflow"_s)));
    QVERIFY(QDir().mkpath(env.filePath(u"lib"_s)));
    QVERIFY(QDir().mkpath(env.filePath(u"bin"_s)));
    QVERIFY(QFile::copy(data() + u"/fake_tensorflow/tensorflow/__init__.py"_s,
                        env.filePath(u"site/tensorflow/__init__.py"_s)));
    QFile launcher(env.filePath(u"bin/start-python.sh"_s));
    QVERIFY(launcher.open(QIODevice::WriteOnly));
    launcher.write("#!/bin/sh\nLD_LIBRARY_PATH=\"" + env.filePath(u"lib"_s).toUtf8()
                   + "\"\nexport LD_LIBRARY_PATH\nPYTHONPATH=\"" + env.filePath(u"site"_s).toUtf8()
                   + "\"\nexport PYTHONPATH\nFAKE_TF_MODE=" + mode.toUtf8() + "\nexport FAKE_TF_MODE\nexec \""
                   + python.toUtf8() + "\" \"$@\"\n");
    launcher.close();
    launcher.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QFile record(env.filePath(u"environment.json"_s));
    QVERIFY(record.open(QIODevice::WriteOnly));
    record.write(QJsonDocument(QJsonObject{{u"plan"_s, QJsonObject{{u"route"_s, route}, {u"tensorflow"_s, u"2.4.0"_s}}},
                                           {u"launchers"_s, QJsonObject{{u"python"_s, u"bin/start-python.sh"_s}}},
                                           {u"library_dirs"_s, QJsonArray{u"lib"_s}}})
                     .toJson());
    record.close();

    QProcess p;
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"verify"_s, u"--env"_s, env.path(), u"--json"_s});
    QVERIFY(p.waitForFinished(120000));
    const QByteArray err = p.readAllStandardError();
    const QJsonDocument doc = QJsonDocument::fromJson(p.readAllStandardOutput());
    QVERIFY2(doc.isObject(), err.constData());
    QCOMPARE(p.exitCode(), exitCode);
    const QJsonObject o = doc.object();
    QCOMPARE(o.value(u"passed"_s).toBool(), exitCode == 0);
    QCOMPARE(o.value(u"first_failure"_s).toString(), firstFailure);
    QStringList got;
    for (const QJsonValue &l : o.value(u"layers"_s).toArray())
        got.append(l.toObject().value(u"status"_s).toString());
    QCOMPARE(got, statuses);
    if (route != u"cpu") {
        // The probe ran through the launcher: it saw the launcher's library path, and the
        // libraries TensorFlow 2.15 opens are named (none of them is in the empty lib folder).
        const QJsonObject probe = o.value(u"probe"_s).toObject();
        QCOMPARE(probe.value(u"search_path"_s).toArray().first().toString(), env.filePath(u"lib"_s));
        const QJsonObject first = o.value(u"layers"_s).toArray().first().toObject();
        QCOMPARE(first.value(u"id"_s).toString(), u"libraries"_s);
        QCOMPARE(first.value(u"cause"_s).toString(), u"library_missing"_s);
        QVERIFY(first.value(u"explanation"_s).toString().contains(u"libcudart.so.11.0"_s));
        QCOMPARE(
            o.value(u"smoke_test"_s).toObject().value(u"python"_s).toObject().value(u"version"_s).toString().isEmpty(),
            false);
    }
}

void TestVerifyCommand::usageErrors()
{
    QProcess p;
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"verify"_s});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"verify"_s, u"--env"_s, u"/nonexistent/tfsetup-env"_s});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(p.readAllStandardError().contains("does not exist"));
}

QTEST_GUILESS_MAIN(TestVerifyCommand)
#include "test_verify_command.moc"
