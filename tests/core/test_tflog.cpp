#include "doctor/tflogreader.h"
#include "util/text.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

// The TensorFlow log reader against real logs collected from public issue trackers
// (tests/data/doctor/SOURCES.md): failing logs name their cause, harmless ones never raise an
// error or a warning, and GPU messages on a machine meant for the CPU are only explained.

using namespace tfsetup::core;
using namespace Qt::Literals::StringLiterals;

namespace {

QString readLog(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + "/doctor/logs/"_L1 + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// "cause:severity" for every error and warning, in the reader's order.
QStringList alarms(const QList<DoctorFinding> &findings)
{
    QStringList out;
    for (const DoctorFinding &f : findings) {
        if (f.severity != Severity::Info)
            out.append(f.cause + u':' + severityName(f.severity));
    }
    return out;
}

} // namespace

class TestTfLog : public QObject {
    Q_OBJECT

private:
    TfLogReader m_reader;

private slots:
    void initTestCase()
    {
        auto reader = TfLogReader::load(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + "/resources/catalog/tflog.json"_L1);
        QVERIFY2(reader.ok(), qPrintable(reader.ok() ? QString() : reader.error().detail));
        m_reader = *reader;
    }

    void everyRuleMatchesItsOwnExample_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("example");
        QFile f(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + "/resources/catalog/tflog.json"_L1);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray rules = QJsonDocument::fromJson(f.readAll()).object().value("rules"_L1).toArray();
        QVERIFY(rules.size() > 10);
        for (const QJsonValue &v : rules) {
            const QJsonObject o = v.toObject();
            const QString id = o.value("id"_L1).toString();
            QTest::newRow(qPrintable(id)) << id << o.value("example"_L1).toString();
        }
    }

    // The first rule to match a rule's own example must be that rule: an earlier, broader
    // pattern would otherwise steal its lines (the TensorRT rules sit before the generic dlopen rule).
    void everyRuleMatchesItsOwnExample()
    {
        QFETCH(QString, rule);
        QFETCH(QString, example);
        QVERIFY2(!example.isEmpty(), "every rule carries a real example line");
        const TfLogRule *matched = m_reader.match(example);
        QVERIFY(matched);
        QCOMPARE(matched->id, rule);
        QVERIFY(matched->source.startsWith("https://"_L1));
    }

    void logs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("cpuOnly");
        QTest::addColumn<QStringList>("expectedAlarms");
        QTest::addColumn<QString>("expectedHarmless"); // an explanation that must be there, or empty

        QTest::newRow("windows cudart64_110.dll missing on a GPU machine")
            << u"windows_tf29_cudart_missing.txt"_s << false << QStringList{u"missing_cuda_runtime:error"_s}
            << u"harmless:cudart_stub"_s;
        QTest::newRow("windows cudart64_110.dll missing on a CPU-only machine is harmless")
            << u"windows_tf29_cudart_missing.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("linux libcusolver and libcudnn missing, summary line folded in")
            << u"linux_tf29_cusolver_cudnn_missing.txt"_s << false
            << QStringList{u"missing_cuda_runtime:error"_s, u"missing_cudnn:error"_s} << QString();
        QTest::newRow("libcusolver.so.11 fails on its libnvJitLink.so.12 dependency")
            << u"linux_cusolver_needs_nvjitlink.txt"_s << false << QStringList{u"missing_cuda_runtime:error"_s}
            << QString();
        QTest::newRow("TensorRT libraries missing are harmless")
            << u"colab_tensorrt_missing.txt"_s << false << QStringList{} << u"harmless:tensorrt"_s;
        QTest::newRow("XLA factory registration, CPU notice, TF-TRT and NUMA are harmless")
            << u"xla_factory_registration.txt"_s << false << QStringList{} << u"harmless:factory"_s;
        QTest::newRow("absl-format factory registration lines are harmless")
            << u"absl_factory_registration.txt"_s << false << QStringList{} << u"harmless:factory"_s;
        QTest::newRow("NUMA and AVX2 FMA notices are harmless")
            << u"numa_onednn_tf29.txt"_s << false << QStringList{} << u"harmless:numa"_s;
        QTest::newRow("oneDNN notice is harmless") << u"onednn_notice.txt"_s << false << QStringList{}
                                                   << u"harmless:onednn"_s;
        QTest::newRow("cuInit no device on a GPU machine")
            << u"cuinit_no_device.txt"_s << false << QStringList{u"no_gpu_or_driver:error"_s} << u"harmless:cpu_features"_s;
        QTest::newRow("cuInit no device on a CPU-only machine is harmless")
            << u"cuinit_no_device.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("TF 1.x Windows cuInit on a CPU-only machine is harmless")
            << u"cpu_only_windows_tf1_cuinit.txt"_s << true << QStringList{} << u"harmless:cpu_only"_s;
        QTest::newRow("cuDNN 8.0.5 loaded, 8.1.0 needed")
            << u"cudnn_805_vs_810.txt"_s << false << QStringList{u"cudnn_version_mismatch:error"_s} << QString();
        QTest::newRow("cuDNN 9.1.0 loaded, 9.3.0 needed")
            << u"cudnn_910_vs_930.txt"_s << false << QStringList{u"cudnn_version_mismatch:error"_s} << QString();
        QTest::newRow("driver older than the CUDA runtime")
            << u"driver_insufficient_windows.txt"_s << false << QStringList{u"driver_too_old:error"_s} << QString();
        QTest::newRow("compute capability 5.3 compiled from PTX")
            << u"ptx_jit_cc53.txt"_s << false << QStringList{u"compute_capability_jit:warning"_s} << u"harmless:numa"_s;
        QTest::newRow("compute capability 5.2 below the minimum")
            << u"gpu_ignored_cc52.txt"_s << false << QStringList{u"compute_capability_unsupported:error"_s} << QString();
        QTest::newRow("CPU without AVX2") << u"avx_missing.txt"_s << false << QStringList{u"cpu_lacks_avx:error"_s}
                                          << QString();
        QTest::newRow("out of GPU memory, one finding for the whole traceback")
            << u"oom_traceback.txt"_s << false << QStringList{u"out_of_memory:error"_s} << QString();
        QTest::newRow("cuDNN 8.4 on Windows without zlibwapi.dll")
            << u"zlibwapi_missing.txt"_s << false << QStringList{u"zlibwapi_missing:error"_s} << QString();
        QTest::newRow("MSVC runtime DLLs missing")
            << u"msvc_runtime_missing.txt"_s << false << QStringList{u"msvc_runtime_missing:error"_s} << QString();
        QTest::newRow("pip finds no TensorFlow for this Python")
            << u"pip_python312.txt"_s << false << QStringList{u"python_version_unsupported:error"_s} << QString();
    }

    void logs()
    {
        QFETCH(QString, file);
        QFETCH(bool, cpuOnly);
        QFETCH(QStringList, expectedAlarms);
        QFETCH(QString, expectedHarmless);
        const QString text = readLog(file);
        QVERIFY2(!text.isEmpty(), qPrintable(file));
        const QList<DoctorFinding> findings = m_reader.read(text, TfLogContext{cpuOnly});
        QCOMPARE(alarms(findings), expectedAlarms);
        if (!expectedHarmless.isEmpty()) {
            const auto it = std::find_if(findings.cbegin(), findings.cend(),
                                         [&](const DoctorFinding &f) { return f.id == expectedHarmless; });
            QVERIFY2(it != findings.cend(), qPrintable(expectedHarmless));
            QCOMPARE(it->severity, Severity::Info);
            QCOMPARE(it->cause, u"harmless"_s);
            QVERIFY(!it->summary.english.isEmpty());
            QVERIFY(it->actions.isEmpty());
        }
        for (const DoctorFinding &f : findings) {
            QVERIFY2(!f.evidence.isEmpty(), qPrintable(f.id));
            QVERIFY2(f.evidence.first().startsWith("line "_L1), qPrintable(f.evidence.first()));
            QVERIFY(!f.summary.english.isEmpty());
            QVERIFY(!f.fix.english.isEmpty());
            if (f.severity == Severity::Error)
                QVERIFY2(!f.actions.isEmpty(), qPrintable(f.id + " has no machine-readable action"_L1));
        }
    }

    void findingNamesTheLibraryAndLine()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"windows_tf29_cudart_missing.txt"_s));
        QCOMPARE(findings.first().id, u"missing_cuda_runtime:cudart64_110.dll"_s);
        QVERIFY(findings.first().summary.english.contains("cudart64_110.dll"_L1));
        QVERIFY(findings.first().evidence.first().startsWith("line 2: 2022-08-11 14:21:29.345331: W "_L1));
        QCOMPARE(findings.first().actions.first().type, u"fetch_library"_s);
        QCOMPARE(findings.first().actions.first().params.value("library"_L1).toString(), u"cudart64_110.dll"_s);
    }

    // Text from the log is copied into the finding as it is, control characters made visible: a
    // library name that looks like a parameter ("{library}"), a marker ("%2") or holds control
    // characters is neither filled in again nor grows without end (a fuzzed log once made one
    // action's text double forever), and never acts on a terminal.
    void logTextIsNeverSubstitutedTwice_data()
    {
        QTest::addColumn<QString>("library");
        QTest::newRow("parameter") << u"cudart{library}64_110.dll"_s;
        QTest::newRow("markers") << u"cudart%1%2%10_110.dll"_s;
        QTest::newRow("control characters") << u"cu\x01" "1\x02" "dart\x01\x01.dll"_s;
        QTest::newRow("every kind") << u"{library}\x01library\x02%1{detail}"_s;
    }

    void logTextIsNeverSubstitutedTwice()
    {
        QFETCH(QString, library);
        const QString line = "W dso_loader.cc:64] Could not load dynamic library '"_L1 + library
            + "'; dlerror: "_L1 + library + ": cannot open shared object file: No such file or directory"_L1;
        const QList<DoctorFinding> findings = m_reader.read(line);
        QCOMPARE(findings.size(), 1);
        const QString shown = visibleText(library);
        QVERIFY2(findings.first().summary.english.contains(shown), qPrintable(findings.first().summary.english));
        QVERIFY(!findings.first().actions.isEmpty());
        QCOMPARE(findings.first().actions.first().params.value("library"_L1).toString(), shown);
        for (const QChar c : QString(findings.first().summary.english + findings.first().evidence.join(u'\n')))
            QVERIFY(!needsVisibleEscape(c.unicode()));
    }

    void summaryLineFoldsIntoTheLibraryFinding()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"linux_tf29_cusolver_cudnn_missing.txt"_s));
        QCOMPARE(findings.size(), 2);
        QCOMPARE(findings[0].id, u"missing_cuda_runtime:libcusolver.so.11"_s);
        QCOMPARE(findings[1].id, u"missing_cudnn:libcudnn.so.8"_s);
        // The "Cannot dlopen some GPU libraries" line becomes evidence, not a third finding.
        QVERIFY(findings[0].evidence.join(u'\n').contains("Cannot dlopen some GPU libraries"_L1));
    }

    void repeatedLinesBecomeOneFinding()
    {
        const QList<DoctorFinding> findings = m_reader.read(readLog(u"cudnn_805_vs_810.txt"_s));
        QCOMPARE(findings.size(), 1);
        QCOMPARE(findings[0].evidence.size(), 2);
        QVERIFY(findings[0].summary.english.contains("8.0.5"_L1));
        QVERIFY(findings[0].summary.english.contains("8.1.0"_L1));
        QCOMPARE(findings[0].actions.first().params.value("min_version"_L1).toString(), u"8.1.0"_s);
    }

    // "DLL load failed" means the Visual C++ runtime only when the machine's detection did not find
    // it: with the runtime there, it is the CPU (no AVX) or a CUDA / cuDNN DLL.
    void dllLoadFailed_followsWhatTheMachineHas_data()
    {
        QTest::addColumn<int>("msvc"); // -1 unknown, 0 missing, 1 present
        QTest::addColumn<int>("avx");
        QTest::addColumn<QString>("cause");
        QTest::newRow("nothing known") << -1 << -1 << u"msvc_runtime_missing"_s;
        QTest::newRow("runtime missing") << 0 << 1 << u"msvc_runtime_missing"_s;
        QTest::newRow("runtime present, no AVX") << 1 << 0 << u"cpu_lacks_avx"_s;
        QTest::newRow("runtime present, AVX") << 1 << 1 << u"missing_cuda_runtime"_s;
    }

    void dllLoadFailed_followsWhatTheMachineHas()
    {
        QFETCH(int, msvc);
        QFETCH(int, avx);
        QFETCH(QString, cause);
        TfLogContext context;
        if (msvc >= 0)
            context.msvcRuntimePresent = msvc == 1;
        if (avx >= 0)
            context.cpuHasAvx = avx == 1;
        // The Chinese Windows wording of the same line (tensorflow/models#2083).
        for (const QString &line : {u"ImportError: DLL load failed: The specified module could not be found."_s,
                                    u"ImportError: DLL load failed: 找不到指定的模块。"_s}) {
            const QList<DoctorFinding> findings = m_reader.read(line, context);
            QCOMPARE(alarms(findings), QStringList{cause + u":error"_s});
            QVERIFY(!findings.first().summary.english.isEmpty());
        }
    }

    void windowsLineEndingsAndEmptyInput()
    {
        QVERIFY(m_reader.read(QString()).isEmpty());
        QString crlf = readLog(u"msvc_runtime_missing.txt"_s);
        crlf.replace(u'\n', "\r\n"_L1);
        const QList<DoctorFinding> findings = m_reader.read(crlf);
        QCOMPARE(findings.size(), 1);
        QVERIFY(!findings[0].evidence.first().endsWith(u'\r'));
    }

    void brokenRuleFilesAreRejected_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("not json") << QByteArray("{");
        QTest::newRow("no rules") << QByteArray("{\"rules\": []}");
        QTest::newRow("bad pattern")
            << QByteArray("{\"rules\": [{\"id\": \"x\", \"pattern\": \"(\", \"cause\": \"c\", \"severity\": \"error\", \"source\": \"s\"}]}");
        QTest::newRow("no source")
            << QByteArray("{\"rules\": [{\"id\": \"x\", \"pattern\": \"a\", \"cause\": \"c\", \"severity\": \"error\"}]}");
        QTest::newRow("unknown severity")
            << QByteArray("{\"rules\": [{\"id\": \"x\", \"pattern\": \"a\", \"cause\": \"c\", \"severity\": \"fatal\", \"source\": \"s\"}]}");
    }

    void brokenRuleFilesAreRejected()
    {
        QFETCH(QByteArray, json);
        const auto reader = TfLogReader::fromJson(json);
        QVERIFY(!reader.ok());
        QCOMPARE(reader.error().code, u"tflog_malformed"_s);
    }
};

QTEST_APPLESS_MAIN(TestTfLog)
#include "test_tflog.moc"
