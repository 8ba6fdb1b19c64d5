// The GPU smoke test: canned script outputs read into layers, and the real script run against a
// stand-in tensorflow package (tests/data/verify/fake_tensorflow) so no TensorFlow is needed.

#include "verify/smoketest.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tfsetup::core;
using LayerStatus = VerifyLayer::Status;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(tfsetup::core::VerifyLayer::Status)

class TestVerifySmoke : public QObject {
    Q_OBJECT

private slots:
    void parsesCannedOutput_data();
    void parsesCannedOutput();
    void findsDocumentAfterOtherOutput();
    void explainsProcessWithoutDocument_data();
    void explainsProcessWithoutDocument();
    void scriptIsEmbedded();
    void runsScriptAgainstFakeTensorflow_data();
    void runsScriptAgainstFakeTensorflow();

private:
    static QString dataDir() { return qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/verify"); }
};

void TestVerifySmoke::parsesCannedOutput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("expectGpu");
    QTest::addColumn<QString>("failedLayer"); // empty: every layer passes
    QTest::addColumn<QString>("cause");
    QTest::addColumn<QString>("mentions"); // the explanation names this

    QTest::newRow("success") << "success" << true << QString() << QString() << QString();
    QTest::newRow("cuda libraries missing") << "no_gpu" << true << "devices"
                                            << "missing_cuda_runtime"
                                            << "libcudart.so.11.0, libcudnn.so.8";
    QTest::newRow("no driver") << "no_driver" << true << "devices"
                               << "no_gpu_or_driver"
                               << "CUDA_ERROR_NO_DEVICE";
    QTest::newRow("cuDNN older than the build") << "cudnn_failure" << true << "cudnn"
                                                << "cudnn_version_mismatch"
                                                << "8.2.4";
    QTest::newRow("import error") << "import_error" << true << "import"
                                  << "missing_cuda_runtime"
                                  << "libcublas.so.11";
    QTest::newRow("windows build without CUDA") << "windows_cpu_build" << true << "devices"
                                                << "not_cuda_build"
                                                << "WSL2";
    QTest::newRow("cpu route") << "cpu_route" << false << QString() << QString() << QString();
    // Named as a student reads it; TensorFlow's device path is the evidence.
    QTest::newRow("soft placement on the processor") << "ran_on_cpu" << true << "cudnn"
                                                     << "ran_on_cpu"
                                                     << "ran on the processor";
}

void TestVerifySmoke::parsesCannedOutput()
{
    QFETCH(QString, file);
    QFETCH(bool, expectGpu);
    QFETCH(QString, failedLayer);
    QFETCH(QString, cause);
    QFETCH(QString, mentions);

    QFile f(dataDir() + QStringLiteral("/smoke/") + file + QStringLiteral(".json"));
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
    ProcessResult process;
    process.started = true;
    process.exitCode = 0;
    // The script prints its document on one line.
    process.standardOutput = QJsonDocument::fromJson(f.readAll()).toJson(QJsonDocument::Compact) + '\n';

    const SmokeResult r = SmokeResult::parse(process, expectGpu);
    QVERIFY(r.produced);
    QCOMPARE(r.layers.size(), 4);
    QCOMPARE(r.layers[0].id, u"import"_s);
    QCOMPARE(r.layers[3].id, u"compute"_s);
    const VerifyLayer *failed = r.firstFailure();
    if (failedLayer.isEmpty()) {
        QVERIFY2(!failed, failed ? qPrintable(failed->explanation) : "");
        for (const VerifyLayer &l : r.layers)
            QCOMPARE(l.status, LayerStatus::Passed);
        QVERIFY(!r.layer(QStringLiteral("compute"))->summary.isEmpty());
        return;
    }
    QVERIFY(failed);
    QCOMPARE(failed->id, failedLayer);
    QCOMPARE(failed->cause, cause);
    QVERIFY2(failed->explanation.contains(mentions), qPrintable(failed->explanation));
    if (cause == u"ran_on_cpu")
        QVERIFY(failed->details.join(u'\n').contains(QLatin1String("device:CPU:0")));
    // Layers before the failure passed; the ones after it were not judged.
    bool after = false;
    for (const VerifyLayer &l : r.layers) {
        if (&l == failed) {
            after = true;
            continue;
        }
        QCOMPARE(l.status, after ? LayerStatus::Skipped : LayerStatus::Passed);
    }
}

void TestVerifySmoke::findsDocumentAfterOtherOutput()
{
    ProcessResult process;
    process.started = true;
    process.exitCode = 0;
    process.standardOutput = "Welcome to the lab's sitecustomize\n{not json\n"
                             "{\"schema\": 1, \"tool\": \"tfsetup-verify\", \"device\": \"/GPU:0\", \"import\": "
                             "{\"ok\": false, \"error\": {\"type\": \"ModuleNotFoundError\", \"message\": \"No module "
                             "named 'tensorflow'\"}}, \"log\": []}\n";
    const SmokeResult r = SmokeResult::parse(process);
    QVERIFY(r.produced);
    QCOMPARE(r.firstFailure()->cause, u"tensorflow_not_installed"_s);
}

void TestVerifySmoke::explainsProcessWithoutDocument_data()
{
    QTest::addColumn<bool>("started");
    QTest::addColumn<bool>("timedOut");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<QString>("cause");

    QTest::newRow("launcher missing") << false << false << -1 << QByteArray() << "launcher_failed";
    QTest::newRow("timed out") << true << true << -1 << QByteArray() << "timed_out";
    QTest::newRow("illegal instruction") << true << false << 132 << QByteArray("Illegal instruction (core dumped)\n")
                                         << "cpu_lacks_avx";
    QTest::newRow("segfault") << true << false << 139 << QByteArray("Segmentation fault\n") << "crashed";
}

void TestVerifySmoke::explainsProcessWithoutDocument()
{
    QFETCH(bool, started);
    QFETCH(bool, timedOut);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, standardError);
    QFETCH(QString, cause);

    ProcessResult process;
    process.started = started;
    process.timedOut = timedOut;
    process.exitCode = exitCode;
    process.standardError = standardError;
    process.error = started ? QString() : QStringLiteral("No such file or directory");
    const SmokeResult r = SmokeResult::parse(process);
    QVERIFY(!r.produced);
    QCOMPARE(r.firstFailure()->id, u"import"_s);
    QCOMPARE(r.firstFailure()->cause, cause);
    QVERIFY(!r.firstFailure()->explanation.isEmpty());
}

void TestVerifySmoke::scriptIsEmbedded()
{
    const QByteArray script = smokeTestScript();
    QVERIFY(script.contains("get_build_info"));
    QVERIFY(script.contains("list_physical_devices(\"GPU\")"));
    QVERIFY(script.contains("set_memory_growth"));
}

void TestVerifySmoke::runsScriptAgainstFakeTensorflow_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<bool>("expectGpu");
    QTest::addColumn<QString>("failedLayer");
    QTest::addColumn<QString>("cause");

    QTest::newRow("gpu works") << "ok" << true << QString() << QString();
    QTest::newRow("cuDNN missing at run time") << "no_gpu" << true << "devices"
                                               << "missing_cudnn";
    QTest::newRow("convolution fails") << "cudnn_fail" << true << "cudnn"
                                       << "missing_cudnn";
    QTest::newRow("out of memory") << "oom" << true << "compute"
                                   << "out_of_memory";
    QTest::newRow("import error") << "import_error" << true << "import"
                                  << "missing_cuda_runtime";
    QTest::newRow("build without CUDA") << "cpu_build" << true << "devices"
                                        << "not_cuda_build";
    QTest::newRow("processor route") << "cpu_build" << false << QString() << QString();
}

void TestVerifySmoke::runsScriptAgainstFakeTensorflow()
{
    QFETCH(QString, mode);
    QFETCH(bool, expectGpu);
    QFETCH(QString, failedLayer);
    QFETCH(QString, cause);

    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("python3 is not installed");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // The stand-in package is copied so Python's byte-code cache lands in the temporary folder.
    const QString package = dir.filePath(QStringLiteral("site/tensorflow"));
    QVERIFY(QDir().mkpath(package));
    QVERIFY(QFile::copy(dataDir() + QStringLiteral("/fake_tensorflow/tensorflow/__init__.py"),
                        package + QStringLiteral("/__init__.py")));
    const QString script = dir.filePath(QStringLiteral("verify_tf.py"));
    QFile out(script);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(smokeTestScript());
    out.close();

    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), dir.filePath(QStringLiteral("site")));
    env.insert(QStringLiteral("FAKE_TF_MODE"), mode);
    p.setProcessEnvironment(env);
    QStringList args{script, QStringLiteral("--size"), QStringLiteral("64")};
    if (!expectGpu)
        args << QStringLiteral("--device") << QStringLiteral("/CPU:0");
    p.start(python, args);
    QVERIFY(p.waitForFinished(60000));
    ProcessResult process;
    process.started = true;
    process.exitCode = p.exitCode();
    process.standardOutput = p.readAllStandardOutput();
    process.standardError = p.readAllStandardError();
    QCOMPARE(process.exitCode, 0);

    const SmokeResult r = SmokeResult::parse(process, expectGpu);
    QVERIFY2(r.produced, process.standardOutput.constData());
    QCOMPARE(
        r.document.value(QLatin1String("python")).toObject().value(QLatin1String("executable")).toString().isEmpty(),
        false);
    const VerifyLayer *failed = r.firstFailure();
    if (failedLayer.isEmpty()) {
        QVERIFY2(!failed, failed ? qPrintable(failed->explanation) : "");
        if (expectGpu) {
            QCOMPARE(r.tensorflowVersion, u"2.99.0"_s);
            QCOMPARE(r.gpus, QStringList{u"Fake GeForce"_s});
            QVERIFY(r.document.value(QLatin1String("matmul"))
                        .toObject()
                        .value(QLatin1String("device"))
                        .toString()
                        .contains(QLatin1String("GPU")));
        }
        return;
    }
    QVERIFY(failed);
    QCOMPARE(failed->id, failedLayer);
    QCOMPARE(failed->cause, cause);
    if (mode == u"no_gpu") {
        // The C++-level log line was captured from file descriptor 2 and is the evidence.
        QVERIFY(failed->explanation.contains(QLatin1String("libcudnn.so.8")));
        QVERIFY(process.standardError.contains("Could not load dynamic library"));
    }
}

QTEST_GUILESS_MAIN(TestVerifySmoke)
#include "test_verify_smoke.moc"
