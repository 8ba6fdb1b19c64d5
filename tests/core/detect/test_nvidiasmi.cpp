#include "detect/nvidiasmi.h"

#include <QFile>
#include <QTest>

using namespace tfsetup::core;

namespace {

QByteArray sample(const QString &name)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QLatin1String("/gpu/smi/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing sample %s", qPrintable(name));
    return f.readAll();
}

QStringList fields(const char *commaSeparated)
{
    return QString::fromLatin1(commaSeparated).split(u',');
}

} // namespace

class TestNvidiaSmi : public QObject {
    Q_OBJECT

private slots:
    void queryArgumentsAskForComputeCapabilityOnlyWhenWanted()
    {
        const QStringList with = nvidiasmi::queryArguments(true);
        const QStringList without = nvidiasmi::queryArguments(false);
        QCOMPARE(with.last(), QStringLiteral("--format=csv,noheader,nounits"));
        QCOMPARE(with.first(),
                 QStringLiteral("--query-gpu=name,compute_cap,memory.total,pci.bus_id,pci.device_id,"
                                "uuid,driver_version"));
        QVERIFY(!without.first().contains(QLatin1String("compute_cap")));
    }

    void csv_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("fields");
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("capability");
        QTest::addColumn<qlonglong>("memory");
        QTest::addColumn<QString>("busId");
        QTest::addColumn<QString>("pciId");
        QTest::addColumn<QString>("driver");

        const QStringList ours = nvidiasmi::queryFields(true);
        QTest::newRow("two identical GPUs, our query")
            << "csv_535_129_03_two_quadro_assembled.txt" << ours << 2 << "Quadro RTX 4000"
            << "7.5" << 8192LL << "00000000:06:00.0"
            << "10de:1eb1"
            << "535.129.03";
        QTest::newRow("old driver, query without compute_cap")
            << "csv_470_no_compute_cap_assembled.txt" << nvidiasmi::queryFields(false) << 1 << "NVIDIA GeForce RTX 3060"
            << "" << 12288LL << "00000000:01:00.0"
            << "10de:2504"
            << "470.182.03";
        QTest::newRow("long field list with N/A, unknown fields skipped")
            << "csv_440_64_rtx2080_noheader.txt"
            << fields("power.limit,power.min_limit,power.max_limit,memory.total,vbios_version,driver_version,name,"
                      "gpu_uuid,power.draw,temperature.gpu,temperature.memory,clocks.current.graphics,clocks.sm,"
                      "clocks.mem,utilization.gpu,utilization.memory,fan.speed,pcie.link.width.current,pstate")
            << 1 << "GeForce RTX 2080"
            << "" << 7979LL << ""
            << ""
            << "440.64";
        QTest::newRow("header row skipped, two different GPUs")
            << "csv_570_86_two_gpus_header.txt" << fields("compute_cap,compute_mode,driver_version,name,index") << 2
            << "NVIDIA TITAN V"
            << "7.0" << -1LL << ""
            << ""
            << "570.86.15";
    }

    void csv()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, fields);
        const auto parsed = nvidiasmi::parseQueryCsv(sample(file), fields);
        QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().detail));
        QTEST(int(parsed->size()), "count");
        const nvidiasmi::SmiGpu &first = parsed->first();
        QTEST(first.name, "name");
        QTEST(first.computeCapability, "capability");
        QTEST(qlonglong(first.memoryMiB), "memory");
        QTEST(first.pciBusId, "busId");
        QTEST(first.pciId, "pciId");
        QTEST(first.driverVersion, "driver");
    }

    void secondRowOfMultiGpuOutput()
    {
        const auto two = nvidiasmi::parseQueryCsv(sample(QStringLiteral("csv_570_86_two_gpus_header.txt")),
                                                  fields("compute_cap,compute_mode,driver_version,name,index"));
        QVERIFY(two.ok());
        QCOMPARE(two->at(1).name, QStringLiteral("NVIDIA RTX 5880 Ada Generation"));
        QCOMPARE(two->at(1).computeCapability, QStringLiteral("8.9"));
        const auto quadros = nvidiasmi::parseQueryCsv(sample(QStringLiteral("csv_535_129_03_two_quadro_assembled.txt")),
                                                      nvidiasmi::queryFields(true));
        QVERIFY(quadros.ok());
        QCOMPARE(quadros->at(1).pciBusId, QStringLiteral("00000000:07:00.0"));
        QCOMPARE(quadros->at(1).uuid, QStringLiteral("GPU-d6de6afc-bdfe-75c4-5273-0544439153fc"));
    }

    void csvFailures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("code");
        QTest::newRow("driver unreachable") << "no_driver.txt"
                                            << "nvidia_smi_no_driver";
        QTest::newRow("compute_cap unknown to old driver") << "unknown_field_compute_cap.txt"
                                                           << "nvidia_smi_unknown_field";
        QTest::newRow("empty output") << "empty.txt"
                                      << "nvidia_smi_no_gpus";
        QTest::newRow("garbage") << "garbage.bin"
                                 << "nvidia_smi_malformed";
        QTest::newRow("a banner instead of csv") << "banner_535_129_03.txt"
                                                 << "nvidia_smi_malformed";
    }

    void csvFailures()
    {
        QFETCH(QString, file);
        const auto parsed = nvidiasmi::parseQueryCsv(sample(file), nvidiasmi::queryFields(true));
        QVERIFY(!parsed.ok());
        QTEST(parsed.error().code, "code");
        QVERIFY(!parsed.error().message.isEmpty());
    }

    void header_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("driver");
        QTest::addColumn<QString>("cuda");
        QTest::newRow("535 classic layout") << "banner_535_129_03.txt"
                                            << "535.129.03"
                                            << "12.2";
        QTest::newRow("570 wide layout") << "banner_570_133_07.txt"
                                         << "570.133.07"
                                         << "12.8";
        QTest::newRow("old tool, newer driver: the driver counts") << "banner_470_tool_580_driver.txt"
                                                                   << "580.95.05"
                                                                   << "13.0";
    }

    void header()
    {
        QFETCH(QString, file);
        const auto parsed = nvidiasmi::parseHeader(sample(file));
        QVERIFY(parsed.ok());
        QTEST(parsed->driverVersion, "driver");
        QTEST(parsed->cudaVersion, "cuda");
    }

    void headerFailures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("code");
        QTest::newRow("driver unreachable") << "no_driver.txt"
                                            << "nvidia_smi_no_driver";
        QTest::newRow("empty") << "empty.txt"
                               << "nvidia_smi_malformed";
        QTest::newRow("garbage") << "garbage.bin"
                                 << "nvidia_smi_malformed";
        QTest::newRow("csv instead of a banner") << "csv_570_86_two_gpus_header.txt"
                                                 << "nvidia_smi_malformed";
    }

    void headerFailures()
    {
        QFETCH(QString, file);
        const auto parsed = nvidiasmi::parseHeader(sample(file));
        QVERIFY(!parsed.ok());
        QTEST(parsed.error().code, "code");
    }

    void pciDeviceId_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("upper case") << "0x250410DE"
                                    << "10de:2504";
        QTest::newRow("lower case") << "0x1eb110de"
                                    << "10de:1eb1";
        QTest::newRow("no prefix") << "1DB610DE"
                                   << "10de:1db6";
        QTest::newRow("not hex") << "[N/A]"
                                 << "";
        QTest::newRow("too long") << "0x1234567890"
                                  << "";
        QTest::newRow("zero") << "0x00000000"
                              << "";
    }

    void pciDeviceId()
    {
        QFETCH(QString, input);
        QTEST(nvidiasmi::pciIdFromDeviceId(input), "expected");
    }

    void randomBytesNeverCrash()
    {
        // Whatever comes back, the parsers answer with a value or an error.
        QByteArray bytes;
        quint32 state = 12345;
        for (int round = 0; round < 200; ++round) {
            bytes.resize(round * 3);
            for (char &c : bytes) {
                state = state * 1664525u + 1013904223u;
                c = char(state >> 24);
                if ((state >> 8) % 7 == 0)
                    c = ',';
                if ((state >> 12) % 11 == 0)
                    c = '\n';
            }
            const auto csv = nvidiasmi::parseQueryCsv(bytes, nvidiasmi::queryFields(true));
            const auto banner = nvidiasmi::parseHeader(bytes);
            QVERIFY(csv.ok() || !csv.error().code.isEmpty());
            QVERIFY(banner.ok() || !banner.error().code.isEmpty());
        }
    }
};

QTEST_APPLESS_MAIN(TestNvidiaSmi)
#include "test_nvidiasmi.moc"
