#include "catalog/gputable.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace tfsetup::core;

class TestGpuTable : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        auto loaded = GpuTable::load();
        QVERIFY2(loaded.ok(), qPrintable(loaded.ok() ? QString() : loaded.error().message));
        m_table = loaded.value();
        QVERIFY(m_table.records().size() > 100);
    }

    void embeddedCopyMatchesTheSourceTree()
    {
        QFile source(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + QLatin1String("/resources/catalog/gpus.json"));
        QFile embedded(QStringLiteral(":/resources/catalog/gpus.json"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QVERIFY(embedded.open(QIODevice::ReadOnly));
        QCOMPARE(embedded.readAll(), source.readAll());
    }

    void everyRecordIsWellFormed()
    {
        static const QRegularExpression capability(QStringLiteral("^\\d{1,2}\\.\\d$"));
        static const QRegularExpression pciId(QStringLiteral("^10de:[0-9a-f]{4}$"));
        QSet<QString> names;
        for (const GpuRecord &r : m_table.records()) {
            QCOMPARE(r.vendor, QStringLiteral("nvidia"));
            QVERIFY2(capability.match(r.computeCapability).hasMatch(), qPrintable(r.name));
            QVERIFY2(!r.architecture.isEmpty(), qPrintable(r.name));
            QVERIFY2(r.source.contains(QLatin1String("https://")), qPrintable(r.name));
            for (const QString &id : r.pciIds)
                QVERIFY2(pciId.match(id).hasMatch(), qPrintable(r.name + u' ' + id));
            if (!r.pciIds.isEmpty())
                QVERIFY2(r.source.contains(QLatin1String("pci-ids")), qPrintable(r.name));
            QVERIFY2(!names.contains(r.name), qPrintable(r.name));
            names.insert(r.name);
        }
    }

    void pciIdsAreUniqueExceptSharedBoards()
    {
        QHash<QString, QString> owner;
        for (const GpuRecord &r : m_table.records()) {
            for (const QString &id : r.pciIds) {
                if (owner.contains(id)) {
                    // One id, two boards with the same die and capability (A2 / A16 share 25b6).
                    QCOMPARE(m_table.byName(owner.value(id))->computeCapability, r.computeCapability);
                }
                owner.insert(id, r.name);
            }
        }
    }

    void byName_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("capability");

        QTest::newRow("NVML laptop name") << "NVIDIA GeForce RTX 3060 Laptop GPU"
                                          << "GeForce RTX 3060 Laptop GPU"
                                          << "8.6";
        QTest::newRow("old driver name without NVIDIA") << "GeForce RTX 3060"
                                                        << "GeForce RTX 3060"
                                                        << "8.6";
        QTest::newRow("bare model") << "RTX 3060"
                                    << "GeForce RTX 3060"
                                    << "8.6";
        QTest::newRow("Ti is not the plain card") << "NVIDIA GeForce RTX 3060 Ti"
                                                  << "GeForce RTX 3060 Ti"
                                                  << "8.6";
        QTest::newRow("Kepler data centre") << "Tesla K80"
                                            << "Tesla K80"
                                            << "3.7";
        QTest::newRow("H100 with memory suffix") << "NVIDIA H100 80GB HBM3"
                                                 << "H100"
                                                 << "9.0";
        QTest::newRow("A100 dashed NVML name") << "NVIDIA A100-SXM4-40GB"
                                               << "A100"
                                               << "8.0";
        QTest::newRow("V100 dashed NVML name") << "Tesla V100-SXM2-16GB"
                                               << "Tesla V100"
                                               << "7.0";
        QTest::newRow("Maxwell Titan X") << "GeForce GTX TITAN X"
                                         << "GeForce GTX TITAN X"
                                         << "5.2";
        QTest::newRow("Pascal Titan X") << "NVIDIA TITAN X (Pascal)"
                                        << "TITAN X (Pascal)"
                                        << "6.1";
        QTest::newRow("Max-Q design") << "GeForce GTX 1050 Ti with Max-Q Design"
                                      << "GeForce GTX 1050 Ti Laptop GPU"
                                      << "6.1";
        QTest::newRow("Ada workstation is not Quadro RTX 6000") << "NVIDIA RTX 6000 Ada Generation"
                                                                << "RTX 6000 Ada Generation"
                                                                << "8.9";
        QTest::newRow("Turing Quadro") << "Quadro RTX 6000"
                                       << "Quadro RTX 6000"
                                       << "7.5";
        QTest::newRow("RTX 50 series") << "NVIDIA GeForce RTX 5090"
                                       << "GeForce RTX 5090"
                                       << "12.0";
        QTest::newRow("SUPER refresh") << "NVIDIA GeForce RTX 4070 SUPER"
                                       << "GeForce RTX 4070 SUPER"
                                       << "8.9";
        QTest::newRow("case and spacing") << "  nvidia   geforce   gtx 1080   ti "
                                          << "GeForce GTX 1080 Ti"
                                          << "6.1";
        QTest::newRow("H200") << "NVIDIA H200"
                              << "H200"
                              << "9.0";
        QTest::newRow("B200") << "NVIDIA B200"
                              << "B200"
                              << "10.0";
        QTest::newRow("Jetson") << "Jetson AGX Orin"
                                << "Jetson AGX Orin"
                                << "8.7";
    }

    void byName()
    {
        QFETCH(QString, query);
        const auto record = m_table.byName(query);
        QVERIFY2(record.has_value(), qPrintable(query));
        QTEST(record->name, "name");
        QTEST(record->computeCapability, "capability");
    }

    void byNameUnknown_data()
    {
        QTest::addColumn<QString>("query");
        QTest::newRow("empty") << "";
        QTest::newRow("AMD card") << "AMD Radeon RX 7900 XTX";
        QTest::newRow("Intel iGPU") << "Intel(R) UHD Graphics 630";
        QTest::newRow("prefix of a number") << "RTX 306";
        QTest::newRow("brand only") << "NVIDIA GeForce";
    }

    void byNameUnknown()
    {
        QFETCH(QString, query);
        QVERIFY(!m_table.byName(query).has_value());
    }

    void byPciId_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("name");
        QTest::newRow("RTX 3060 LHR") << "10de:2504"
                                      << "GeForce RTX 3060";
        QTest::newRow("upper case") << "10DE:2504"
                                    << "GeForce RTX 3060";
        QTest::newRow("RTX 3060 laptop") << "10de:2520"
                                         << "GeForce RTX 3060 Laptop GPU";
        QTest::newRow("K80") << "10de:102d"
                             << "Tesla K80";
        QTest::newRow("H200 SXM") << "10de:2335"
                                  << "H200";
        QTest::newRow("RTX 5090") << "10de:2b85"
                                  << "GeForce RTX 5090";
    }

    void byPciId()
    {
        QFETCH(QString, id);
        const auto record = m_table.byPciId(id);
        QVERIFY(record.has_value());
        QTEST(record->name, "name");
    }

    void byPciIdUnknown()
    {
        QVERIFY(!m_table.byPciId(QStringLiteral("1002:744c")).has_value());
        QVERIFY(!m_table.byPciId(QString()).has_value());
    }

    void rejectsBrokenTables_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("code");
        QTest::newRow("not json") << QByteArray("{ nope") << "gpu_table_malformed";
        QTest::newRow("an array") << QByteArray("[]") << "gpu_table_malformed";
        QTest::newRow("unknown schema") << QByteArray(R"({"schema": 2, "records": []})") << "gpu_table_schema";
        QTest::newRow("record without source")
            << QByteArray(R"({"schema": 1, "records": [{"name": "X", "compute_capability": "8.6"}]})")
            << "gpu_table_record";
    }

    void rejectsBrokenTables()
    {
        QFETCH(QByteArray, json);
        const auto table = GpuTable::fromJson(json, QStringLiteral("test"));
        QVERIFY(!table.ok());
        QTEST(table.error().code, "code");
        QVERIFY(!table.error().message.isEmpty());
    }

private:
    GpuTable m_table;
};

QTEST_GUILESS_MAIN(TestGpuTable)
#include "test_gputable.moc"
