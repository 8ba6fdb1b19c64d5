// The doctor against a corpus of real logs from public trackers (tests/data/doctor/corpus: each
// log with its source and the cause its thread confirmed). Every log is read twice, as a
// maintainer would: on a machine of the log's own kind (its platform, with or without an NVIDIA
// GPU, the CUDA the post names), on a machine without a GPU (a classmate or a teaching assistant
// reading a student's pasted log) and on a Linux machine with a working NVIDIA GPU (a lab's GPU
// server where someone reads a log pasted from elsewhere). Each reading must name the confirmed
// cause as a warning or an error, and a harmless log must raise neither.

#include "catalog/catalog.h"
#include "doctor/doctor.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::Literals::StringLiterals;

namespace {

QString corpusDir()
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/doctor/corpus"_s;
}

struct Case {
    QString name;
    QString log;
    QJsonObject meta;
};

QList<Case> loadCorpus()
{
    QList<Case> out;
    const QDir dir(corpusDir());
    for (const QString &json : dir.entryList({u"*.json"_s}, QDir::Files, QDir::Name)) {
        QFile m(dir.filePath(json));
        QFile l(dir.filePath(json.chopped(5) + u".log"_s));
        if (!m.open(QIODevice::ReadOnly) || !l.open(QIODevice::ReadOnly))
            continue;
        out.append({json.chopped(5), QString::fromUtf8(l.readAll()), QJsonDocument::fromJson(m.readAll()).object()});
    }
    return out;
}

// The machine the log came from, as its post describes it.
HardwareReport ownMachine(const Case &c)
{
    HardwareReport hw;
    const QString platform = c.meta.value("platform"_L1).toString();
    hw.os.family = platform == u"windows" ? u"windows"_s : u"linux"_s;
    hw.os.wsl = platform == u"wsl2" ? 2 : 0;
    const QString cause = c.meta.value("cause"_L1).toString();
    hw.cpu.avx = cause != u"cpu_lacks_avx";
    if (c.meta.value("gpu"_L1).toBool()) {
        const LogMachine seen = inspectLog(c.log);
        GpuInfo gpu;
        gpu.vendor = u"nvidia"_s;
        gpu.name = seen.gpus.isEmpty() ? u"NVIDIA GPU"_s : seen.gpus.first().section(u" ("_s, 0, 0);
        gpu.source = u"nvml"_s;
        hw.gpus.append(gpu);
        hw.driver = DriverInfo{seen.driver.isEmpty() ? u"999.0"_s : seen.driver, {}, u"nvml"_s};
    }
    const QString cuda = c.meta.value("cuda"_L1).toString();
    if (!cuda.isEmpty())
        hw.cudaToolkits.append({u"/usr/local/cuda-"_s + cuda, cuda, u"folder"_s, {}});
    if (hw.os.family == u"windows")
        hw.msvcRuntime = MsvcRuntimeInfo{cause != u"msvc_runtime_missing", {}, {}};
    return hw;
}

HardwareReport machineWithoutGpu()
{
    HardwareReport hw;
    hw.os.family = u"linux"_s;
    hw.cpu.avx = true;
    return hw;
}

// A lab's GPU server: Linux, a data-centre GPU with a current driver, no CUDA toolkit installed.
HardwareReport machineWithGpu()
{
    HardwareReport hw;
    hw.os.family = u"linux"_s;
    hw.cpu.avx = true;
    GpuInfo gpu;
    gpu.vendor = u"nvidia"_s;
    gpu.name = u"NVIDIA H200"_s;
    gpu.computeCapability = u"9.0"_s;
    gpu.source = u"nvml"_s;
    hw.gpus.append(gpu);
    hw.driver = DriverInfo{u"580.95.05"_s, u"13.0"_s, u"nvml"_s};
    return hw;
}

// Empty when the reading is right; else what it said instead ("alarms: …" for a harmless log).
QString judge(const Case &c, const DoctorLogReading &reading)
{
    const QString expected = c.meta.value("cause"_L1).toString();
    QStringList alarms;
    bool named = false;
    for (const DoctorFinding &f : reading.findings) {
        if (f.severity == Severity::Info)
            continue;
        alarms.append(f.cause);
        named = named || f.cause == expected;
    }
    if (expected == u"harmless")
        return alarms.isEmpty() ? QString() : u"alarms: "_s + alarms.join(u", "_s);
    if (named)
        return {};
    QStringList all;
    for (const DoctorFinding &f : reading.findings)
        all.append(f.cause + u':' + severityName(f.severity));
    return u"wanted "_s + expected + u", got: "_s + (all.isEmpty() ? u"nothing"_s : all.join(u", "_s));
}

} // namespace

class TestDoctorCorpus : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const Knowledge> m_knowledge;
    QList<Case> m_cases;

private Q_SLOTS:
    void initTestCase()
    {
        auto knowledge = Knowledge::load();
        QVERIFY2(knowledge.ok(), qPrintable(knowledge.ok() ? QString() : knowledge.error().detail));
        m_knowledge = *knowledge;
        m_cases = loadCorpus();
    }

    // The corpus itself: enough real logs, each with a source, a known cause and its confirmation.
    void corpusIsWhatItClaims()
    {
        QVERIFY2(m_cases.size() >= 100, qPrintable(QString::number(m_cases.size())));
        int chinese = 0, harmless = 0, mixed = 0;
        for (const Case &c : m_cases) {
            QVERIFY2(c.meta.value("source"_L1).toString().startsWith("https://"_L1), qPrintable(c.name));
            QVERIFY2(!c.meta.value("confirmed_fix"_L1).toString().isEmpty(), qPrintable(c.name));
            const QString cause = c.meta.value("cause"_L1).toString();
            QVERIFY2(cause == u"harmless" || m_knowledge->causes.contains(cause), qPrintable(c.name + u' ' + cause));
            QVERIFY2(!c.log.trimmed().isEmpty(), qPrintable(c.name));
            chinese += c.meta.value("language"_L1).toString() == u"zh";
            harmless += cause == u"harmless";
            // A mixed log: harmless lines around the real error.
            if (cause != u"harmless") {
                const auto findings = TfLogReader(m_knowledge->tfLog, m_knowledge->causes).read(c.log);
                mixed += std::any_of(findings.cbegin(), findings.cend(),
                                     [](const DoctorFinding &f) { return f.cause == u"harmless"; });
            }
        }
        QVERIFY2(chinese >= 15, qPrintable(QString::number(chinese)));
        QVERIFY2(harmless >= 10, qPrintable(QString::number(harmless)));
        QVERIFY2(mixed >= 5, qPrintable(QString::number(mixed)));
    }

    void readings_data()
    {
        QTest::addColumn<int>("machineKind");
        QTest::newRow("on the log's own kind of machine") << 0;
        QTest::newRow("on a machine without a GPU") << 1;
        QTest::newRow("on a machine with an NVIDIA GPU") << 2;
    }

    // Every log names its confirmed cause, harmless ones raise nothing.
    void readings()
    {
        QFETCH(int, machineKind);
        const bool ownMachine = machineKind == 0;
        QStringList misses;
        for (const Case &c : m_cases) {
            const HardwareReport machine = ownMachine ? ::ownMachine(c)
                : machineKind == 1                    ? machineWithoutGpu()
                                                      : machineWithGpu();
            // On its own machine the environment's TensorFlow is known (as doctor --env reads it).
            DoctorLogOptions options;
            if (ownMachine)
                options.tensorflow = c.meta.value("tensorflow"_L1).toString();
            const DoctorLogReading reading = readDoctorLog(c.log, machine, *m_knowledge, options);
            const QString miss = judge(c, reading);
            if (!miss.isEmpty())
                misses.append(c.name + u": "_s + miss);
        }
        const double rate = 1.0 - double(misses.size()) / double(m_cases.size());
        qInfo("%d of %d named (%.1f %%)", int(m_cases.size() - misses.size()), int(m_cases.size()), rate * 100);
        for (const QString &m : misses)
            qInfo("miss: %s", qPrintable(m));
        // The bar, on real logs: at least nine in ten named, and never an alarm on a
        // harmless log (judge() counts that as a miss, and it is also checked on its own below).
        QVERIFY2(rate >= 0.9, qPrintable(u"%1 misses"_s.arg(misses.size())));
        for (const QString &m : misses)
            QVERIFY2(!m.contains(u": alarms: "_s), qPrintable(m));
    }
};

QTEST_GUILESS_MAIN(TestDoctorCorpus)
#include "test_doctor_corpus.moc"
