#include "catalog/catalog.h"
#include "catalog/version.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

class TestCatalog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void embedded_loadsAndHoldsItsInvariants();
    void everyRecord_namesItsSource_data();
    void everyRecord_namesItsSource();
    void knownTraps_data();
    void knownTraps();
    void driverFloors_keepBothSources();
    void jetson_notOfferedSaysWhy();
    void brokenRoutes_areReported_data();
    void brokenRoutes_areReported();
    void pythonRanges_data();
    void pythonRanges();
    void versions_data();
    void versions();
    void brokenCatalog_isReported_data();
    void brokenCatalog_isReported();

private:
    QByteArray file(const QString &name) const;
    std::optional<Catalog> m_catalog;
};

QByteArray TestCatalog::file(const QString &name) const
{
    QFile f(u":/resources/catalog/"_s + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

void TestCatalog::initTestCase()
{
    auto c = Catalog::load();
    QVERIFY2(c.ok(), qPrintable(c.ok() ? QString() : c.error().message + u' ' + c.error().detail));
    m_catalog = *c;
}

void TestCatalog::embedded_loadsAndHoldsItsInvariants()
{
    const QStringList problems = m_catalog->problems();
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    QVERIFY(m_catalog->releasesFor(u"linux"_s).size() >= 26);
    QVERIFY(m_catalog->releasesFor(u"windows"_s).size() >= 15);
    for (const char *route :
         {"windows-native", "linux-pip", "linux-toolkit", "wsl2", "cpu", "rocm", "directml", "metal"})
        QVERIFY2(m_catalog->route(QLatin1String(route)), route);
}

void TestCatalog::everyRecord_namesItsSource_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("array");
    QTest::newRow("tensorflow releases") << u"tensorflow.json"_s << u"releases"_s;
    QTest::newRow("tensorflow gpu builds") << u"tensorflow.json"_s << u"gpu_builds"_s;
    QTest::newRow("tensorflow cpu requirements") << u"tensorflow.json"_s << u"cpu_requirements"_s;
    QTest::newRow("cuda toolkits") << u"cuda.json"_s << u"toolkits"_s;
    QTest::newRow("cuda minor compatibility") << u"cuda.json"_s << u"minor_compatibility"_s;
    QTest::newRow("driver branches per GPU architecture") << u"cuda.json"_s << u"driver_branches"_s;
    QTest::newRow("cuda libraries") << u"libraries.json"_s << u"cuda"_s;
    QTest::newRow("cudnn libraries") << u"libraries.json"_s << u"cudnn"_s;
    QTest::newRow("driver libraries") << u"libraries.json"_s << u"driver"_s;
    QTest::newRow("routes") << u"routes.json"_s << u"routes"_s;
    QTest::newRow("routes looked into and not offered") << u"routes.json"_s << u"not_offered"_s;
    QTest::newRow("plug-ins and their last releases") << u"routes.json"_s << u"plugins"_s;
}

void TestCatalog::everyRecord_namesItsSource()
{
    QFETCH(QString, file);
    QFETCH(QString, array);
    const QJsonObject root = QJsonDocument::fromJson(this->file(file)).object();
    const QJsonArray records = root.value(array).toArray();
    QVERIFY(!records.isEmpty());
    for (const QJsonValue &v : records) {
        const QJsonObject o = v.toObject();
        QVERIFY2(!o.value(u"source"_s).toString().trimmed().isEmpty(), QJsonDocument(o).toJson().constData());
        QVERIFY2(o.value(u"verified"_s).isBool(), QJsonDocument(o).toJson().constData());
        // An unverified record says what is uncertain.
        if (!o.value(u"verified"_s).toBool())
            QVERIFY2(o.contains(u"note"_s) || o.contains(u"cc_note"_s), QJsonDocument(o).toJson().constData());
    }
}

void TestCatalog::knownTraps_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expected");
    QTest::newRow("TF 2.5-2.10 on Windows open cudart64_110.dll, never cudart64_112.dll")
        << u"cuda-libraries 11.2 windows 0"_s << u"cudart64_110.dll"_s;
    QTest::newRow("TF 2.4 on Windows needs cuSOLVER 10 from CUDA 11.0")
        << u"cuda-libraries 11.0 windows 5"_s << u"cusolver64_10.dll"_s;
    QTest::newRow("CUDA 11.x on Linux: libcudart.so.11.0")
        << u"cuda-libraries 11.8 linux 0"_s << u"libcudart.so.11.0"_s;
    QTest::newRow("CUDA 12 on Linux: libcudart.so.12") << u"cuda-libraries 12.5 linux 0"_s << u"libcudart.so.12"_s;
    QTest::newRow("cuDNN 8 on Windows: cudnn64_8.dll") << u"cudnn-libraries 8.1 windows 0"_s << u"cudnn64_8.dll"_s;
    QTest::newRow("cuDNN 8 on Linux: libcudnn.so.8") << u"cudnn-libraries 8.6 linux 0"_s << u"libcudnn.so.8"_s;
    QTest::newRow("native Windows GPU ends at 2.10") << u"route-max windows-native"_s << u"2.10"_s;
    QTest::newRow("newest Windows tested release is 2.10") << u"newest windows"_s << u"2.10.0"_s;
    QTest::newRow("TF 2.14 is the first with tensorflow[and-cuda]") << u"extra linux 2.14"_s << u"and-cuda"_s;
    QTest::newRow("TF 2.13 has no and-cuda extra") << u"extra linux 2.13"_s << u""_s;
    QTest::newRow("TF 2.0 installs as tensorflow-gpu") << u"package linux 2.0"_s << u"tensorflow-gpu"_s;
    QTest::newRow("TF 2.1 and newer install as tensorflow") << u"package windows 2.1"_s << u"tensorflow"_s;
    QTest::newRow("TF 2.10 on Windows: CUDA 11.2") << u"cuda windows 2.10"_s << u"11.2"_s;
    QTest::newRow("TF 2.10 needs driver 452.39 on Windows by minor compatibility")
        << u"compat-driver windows 11.2"_s << u"452.39"_s;
    QTest::newRow("CUDA 12 minor compatibility on Linux: 525.60.13") << u"compat-driver linux 12.5"_s << u"525.60.13"_s;
    QTest::newRow("RTX 50 series (12.0) needs CUDA 12.8") << u"first-cuda 12.0"_s << u"12.8"_s;
    QTest::newRow("Ada (8.9) needs CUDA 11.8") << u"first-cuda 8.9"_s << u"11.8"_s;
    QTest::newRow("CUDA 12 drops Kepler") << u"cc-min 12.2"_s << u"5.0"_s;
    // NVIDIA release notes, Table 3: "CUDA 11.8 GA >=520.61.05 >=520.06".
    QTest::newRow("CUDA 11.8 on Windows: Table 3's 520.06") << u"toolkit-driver windows 11.8"_s << u"520.06"_s;
    QTest::newRow("CUDA 11.8 on Linux: 520.61.05") << u"toolkit-driver linux 11.8"_s << u"520.61.05"_s;
    // Table 3 "CUDA 11.4.0 GA >=470.42.01 >=471.11"; CMake's table adds sm_87 (Jetson Orin) with 11.4.
    QTest::newRow("Orin (8.7) needs CUDA 11.4") << u"first-cuda 8.7"_s << u"11.4"_s;
    QTest::newRow("CUDA 11.4 on Windows: 471.11") << u"toolkit-driver windows 11.4"_s << u"471.11"_s;
    QTest::newRow("CUDA 12 minor compatibility applied on Windows: TF's 528.33")
        << u"compat-driver windows 12.5"_s << u"528.33"_s;
    // RELEASE.md 2.3.0: "TF 2.3 includes PTX kernels only for compute capability 7.0 ... Earlier releases
    // included PTX for a variety of older compute capabilities."
    QTest::newRow("TF 2.3 carries PTX for 7.0 only") << u"ptx linux 2.3"_s << u"7.0"_s;
    QTest::newRow("TF 2.2 carries PTX for older capabilities") << u"ptx windows 2.2"_s << u"3.5,3.7,5.2,6.0,6.1,7.0"_s;
    QTest::newRow("TF 2.1 carries PTX for older capabilities") << u"ptx linux 2.1"_s << u"3.5,3.7,5.2,6.0,6.1,7.0"_s;
    // pip.md: Linux Arm64 CPU builds from 2.10; "TensorFlow 2.16 was the last TensorFlow release that
    // supported macOS x86"; Windows CPU wheels for 2.19-2.21 (and source_windows.md's CPU table).
    QTest::newRow("linux arm64 CPU from 2.10") << u"platform linux arm64 2.10"_s << u"2.10-,true"_s;
    QTest::newRow("no linux arm64 CPU build before 2.10") << u"platform linux arm64 2.9"_s << u"none"_s;
    QTest::newRow("macOS x86 ends at 2.16") << u"platform macos x86_64 2.16"_s << u"1.12-2.16,true"_s;
    QTest::newRow("no macOS x86 build after 2.16") << u"platform macos x86_64 2.17"_s << u"none"_s;
    QTest::newRow("windows CPU 2.19 verified") << u"platform windows x86_64 2.19"_s << u"2.19-2.21,true"_s;
    QTest::newRow("windows CPU 2.21 verified") << u"platform windows x86_64 2.21"_s << u"2.19-2.21,true"_s;
    QTest::newRow("windows CPU 2.18 verified") << u"platform windows x86_64 2.18"_s << u"1.12-2.18,true"_s;
    // microsoft/tensorflow-directml-plugin README: Python 3.7 to 3.10, Windows and WSL only.
    QTest::newRow("DirectML plugin: Python 3.7-3.10") << u"route-python directml"_s << u"3.7-3.10"_s;
    QTest::newRow("DirectML plugin: Windows or WSL2, never plain Linux")
        << u"route-wsl directml"_s << u"windows_or_wsl2"_s;
}

void TestCatalog::knownTraps()
{
    QFETCH(QString, what);
    QFETCH(QString, expected);
    const QStringList w = what.split(u' ');
    QString got;
    const QString kind = w.at(0);
    if (kind == u"cuda-libraries")
        got = m_catalog->cudaLibraries(w.at(1), w.at(2)).value(w.at(3).toInt());
    else if (kind == u"cudnn-libraries")
        got = m_catalog->cudnnLibraries(w.at(1), w.at(2)).value(w.at(3).toInt());
    else if (kind == u"route-max")
        got = m_catalog->route(w.at(1))->tfMax;
    else if (kind == u"newest")
        got = m_catalog->releasesFor(w.at(1)).first().version;
    else if (kind == u"extra")
        got = m_catalog->release(w.at(1), w.at(2))->pipCudaExtra;
    else if (kind == u"package")
        got = m_catalog->release(w.at(1), w.at(2))->package;
    else if (kind == u"cuda")
        got = m_catalog->release(w.at(1), w.at(2))->cuda;
    else if (kind == u"compat-driver")
        got = m_catalog->minorCompatibility(w.at(2))->driverMin.forOs(w.at(1));
    else if (kind == u"first-cuda")
        got = m_catalog->firstToolkitTargeting(w.at(1))->version;
    else if (kind == u"cc-min")
        got = m_catalog->toolkit(w.at(1))->ccMin;
    else if (kind == u"toolkit-driver")
        got = m_catalog->toolkit(w.at(2))->driverMin.forOs(w.at(1));
    else if (kind == u"ptx")
        got = m_catalog->gpuBuild(w.at(2), w.at(1))->ptx.join(u',');
    else if (kind == u"platform") {
        const RoutePlatform *p = m_catalog->route(u"cpu"_s)->platformFor(w.at(1), w.at(2), w.at(3));
        got = p ? p->tfMin + u'-' + p->tfMax + (p->verified ? u",true"_s : u",false"_s) : u"none"_s;
    } else if (kind == u"route-python")
        got = m_catalog->route(w.at(1))->pythonMin + u'-' + m_catalog->route(w.at(1))->pythonMax;
    else if (kind == u"route-wsl")
        got = m_catalog->route(w.at(1))->wsl;
    QCOMPARE(got, expected);
    // Nothing in the catalog may name the mythical DLL.
    QVERIFY(!file(u"libraries.json"_s).contains("\"cudart64_112.dll\""));
}

void TestCatalog::driverFloors_keepBothSources()
{
    // For CUDA 12.x on Windows TensorFlow's pip.md (">= 528.33 for WSL on Windows") and NVIDIA's tables
    // (Table 2 ">= 525", Table 3 CUDA 12.0 GA ">=527.41") differ: both are recorded, and which one applies.
    const QJsonObject root = QJsonDocument::fromJson(file(u"cuda.json"_s)).object();
    QJsonObject cuda12;
    for (const QJsonValue &v : root.value(u"minor_compatibility"_s).toArray()) {
        if (v.toObject().value(u"major"_s).toString() == u"12")
            cuda12 = v.toObject();
    }
    QVERIFY(!cuda12.isEmpty());
    QVERIFY(cuda12.value(u"source"_s).toString().contains(u"tensorflow/docs"_s));
    const QJsonObject nvidia = cuda12.value(u"nvidia"_s).toObject();
    QVERIFY(nvidia.value(u"source"_s).toString().contains(u"docs.nvidia.com"_s));
    QVERIFY(nvidia.value(u"verified"_s).isBool());
    QCOMPARE(nvidia.value(u"driver_min"_s).toObject().value(u"windows"_s).toString(), u"527.41"_s);
    QCOMPARE(cuda12.value(u"driver_min"_s).toObject().value(u"windows"_s).toString(), u"528.33"_s);
    QVERIFY(cuda12.value(u"applied"_s).toString().startsWith(u"driver_min"_s));
    // The applied floor is what the loaded catalog hands the solver.
    QCOMPARE(m_catalog->minorCompatibility(u"12.3"_s)->driverMin.windows, u"528.33"_s);
}

void TestCatalog::jetson_notOfferedSaysWhy()
{
    const QJsonObject root = QJsonDocument::fromJson(file(u"routes.json"_s)).object();
    const QJsonArray notOffered = root.value(u"not_offered"_s).toArray();
    const auto jetson = std::find_if(notOffered.begin(), notOffered.end(), [](const QJsonValue &v) {
        return v.toObject().value(u"name"_s).toString() == u"jetson";
    });
    QVERIFY(jetson != notOffered.end());
    QVERIFY(!jetson->toObject().value(u"why"_s).toString().isEmpty());
    // Not offered means no route by that name the solver could pick.
    QVERIFY(!m_catalog->route(u"jetson"_s));
}

void TestCatalog::brokenRoutes_areReported_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("problem");
    QTest::newRow("overlapping platform records")
        << u"\"tf_min\": \"2.19\""_s << u"\"tf_min\": \"2.18\""_s << u"platform records for windows/x86_64 overlap"_s;
    QTest::newRow("an unknown wsl value")
        << u"\"wsl\": \"windows_or_wsl2\""_s << u"\"wsl\": \"sometimes\""_s << u"unknown wsl value"_s;
    QTest::newRow("an inverted route python range")
        << u"\"python_max\": \"3.10\""_s << u"\"python_max\": \"3.6\""_s << u"bad python range"_s;
}

void TestCatalog::brokenRoutes_areReported()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, problem);
    QByteArray routes = file(u"routes.json"_s);
    QVERIFY(routes.contains(from.toUtf8()));
    routes.replace(from.toUtf8(), to.toUtf8());
    auto broken = Catalog::fromJson(file(u"tensorflow.json"_s), file(u"cuda.json"_s), file(u"libraries.json"_s),
                                    routes);
    QVERIFY(broken.ok());
    const QStringList problems = broken->problems();
    QVERIFY2(std::any_of(problems.cbegin(), problems.cend(), [&](const QString &p) { return p.contains(problem); }),
             qPrintable(problems.join(u'\n')));
}

void TestCatalog::pythonRanges_data()
{
    QTest::addColumn<QString>("release"); // os version
    QTest::addColumn<QString>("python");
    QTest::addColumn<bool>("supported");
    QTest::newRow("1.15 takes Python 2.7") << u"linux 1.15"_s << u"2.7"_s << true;
    QTest::newRow("1.15 takes 3.3") << u"linux 1.15"_s << u"3.3"_s << true;
    QTest::newRow("1.15 does not take 3.0") << u"linux 1.15"_s << u"3.0"_s << false;
    QTest::newRow("1.15 does not take 3.2") << u"linux 1.15"_s << u"3.2"_s << false;
    QTest::newRow("1.15 does not take 3.8") << u"linux 1.15"_s << u"3.8"_s << false;
    QTest::newRow("2.10 takes 3.10 (not 3.1)") << u"windows 2.10"_s << u"3.10"_s << true;
    QTest::newRow("2.10 does not take 3.11") << u"windows 2.10"_s << u"3.11"_s << false;
    QTest::newRow("2.13 does not take 3.12") << u"linux 2.13"_s << u"3.12.3"_s << false;
    QTest::newRow("2.21 takes 3.13") << u"linux 2.21"_s << u"3.13"_s << true;
    QTest::newRow("2.21 does not take 3.9") << u"linux 2.21"_s << u"3.9"_s << false;
}

void TestCatalog::pythonRanges()
{
    QFETCH(QString, release);
    QFETCH(QString, python);
    QFETCH(bool, supported);
    const auto r = m_catalog->release(release.section(u' ', 0, 0), release.section(u' ', 1, 1));
    QVERIFY(r);
    QCOMPARE(r->supportsPython(python), supported);
    QCOMPARE(r->pythonVersions().contains(tfsetup::core::version::majorMinor(python)), supported);
}

void TestCatalog::versions_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("order");
    QTest::newRow("2.10 after 2.9") << u"2.10"_s << u"2.9"_s << 1;
    QTest::newRow("2.10 equals 2.10.0") << u"2.10"_s << u"2.10.0"_s << 0;
    QTest::newRow("driver 535.104.05 after 535.54.03") << u"535.104.05"_s << u"535.54.03"_s << 1;
    QTest::newRow("driver 457.30 before 460.82") << u"457.30"_s << u"460.82"_s << -1;
    QTest::newRow("Python 3.9 before 3.10") << u"3.9"_s << u"3.10"_s << -1;
}

void TestCatalog::versions()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, order);
    QCOMPARE(tfsetup::core::version::compare(a, b), order);
    QVERIFY(tfsetup::core::version::matchesPrefix(u"2.13"_s, u"2.13.1"_s));
    QVERIFY(!tfsetup::core::version::matchesPrefix(u"2.1"_s, u"2.13.0"_s));
    // Digits only: a sign or white space inside is no version, though toInt() would take the part.
    QVERIFY(tfsetup::core::version::isValid(u"3.10"_s));
    for (const QString &bad : {u"3.+10"_s, u"3.-1"_s, u"3. 10"_s, u"+3"_s, u"3..10"_s, u"3.10a"_s})
        QVERIFY2(!tfsetup::core::version::isValid(bad), qPrintable(bad));
}

void TestCatalog::brokenCatalog_isReported_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("problem");
    QTest::newRow("a release without source")
        << u"\"source\": \"https://github.com/tensorflow/docs/blob/7c3650212740204359d4ceae481abc79345541be/site/en/install/source.md#gpu\""_s
        << u"\"source\": \"\""_s << u"no source"_s;
    QTest::newRow("a CUDA version the toolkit table lacks")
        << u"\"cuda\": \"11.8\""_s << u"\"cuda\": \"11.9\""_s << u"is not in cuda.json"_s;
    QTest::newRow("an inverted Python range") << u"\"3.7-3.10\""_s << u"\"3.10-3.7\""_s << u"bad python range"_s;
}

void TestCatalog::brokenCatalog_isReported()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, problem);
    QByteArray tf = file(u"tensorflow.json"_s);
    QVERIFY(tf.contains(from.toUtf8()));
    tf.replace(from.toUtf8(), to.toUtf8());
    auto broken = Catalog::fromJson(tf, file(u"cuda.json"_s), file(u"libraries.json"_s), file(u"routes.json"_s));
    QVERIFY(broken.ok());
    const QStringList problems = broken->problems();
    QVERIFY2(std::any_of(problems.cbegin(), problems.cend(), [&](const QString &p) { return p.contains(problem); }),
             qPrintable(problems.join(u'\n')));

    auto damaged = Catalog::fromJson("{", file(u"cuda.json"_s), file(u"libraries.json"_s), file(u"routes.json"_s));
    QVERIFY(!damaged.ok());
    QCOMPARE(damaged.error().code, u"catalog_malformed"_s);
}

QTEST_APPLESS_MAIN(TestCatalog)
#include "test_catalog.moc"
