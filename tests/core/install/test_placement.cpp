// Placement rules as data: where NVIDIA's files land per OS, route and cuDNN major version,
// and that cuDNN's sub-libraries are only accepted as a complete set.

#include "install/placement.h"
#include "support/installarchives.h"

#include <QTest>

using namespace tfsetup;
using namespace tfsetup::test;
using core::ExtractedEntry;
using core::OsFamily;
using core::PlacementRules;

namespace {

QList<ExtractedEntry> asExtracted(const QList<Entry> &entries)
{
    QList<ExtractedEntry> out;
    for (const Entry &e : entries) {
        ExtractedEntry x;
        x.path = e.path;
        x.kind = e.kind == Entry::Symlink ? ExtractedEntry::Link : ExtractedEntry::File;
        x.linkTarget = e.linkTarget;
        out.append(x);
    }
    return out;
}

} // namespace

class TestPlacement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyRecordHasASource();
    void places_data();
    void places();
    void incompleteCudnnSetIsReported_data();
    void incompleteCudnnSetIsReported();
    void conflictingFilesAreRefused();
    void unknownLayoutIsAnError();
    void globs_data();
    void globs();

private:
    PlacementRules m_rules;
};

void TestPlacement::initTestCase()
{
    auto rules = PlacementRules::load();
    QVERIFY2(rules, qPrintable(rules ? QString() : rules.error().detail));
    m_rules = *rules;
}

void TestPlacement::everyRecordHasASource()
{
    QVERIFY(m_rules.layouts().size() >= 3);
    for (const auto &l : m_rules.layouts())
        QVERIFY(!l.source.isEmpty());
    for (const auto &s : m_rules.completeSets())
        QVERIFY(!s.source.isEmpty());
    // Broken input is refused, not half-loaded.
    QVERIFY(!PlacementRules::fromJson(QJsonObject{}));
}

void TestPlacement::places_data()
{
    QTest::addColumn<int>("os");
    QTest::addColumn<QString>("route");
    QTest::addColumn<int>("cudnnMajor");
    QTest::addColumn<QList<Entry>>("archive");
    QTest::addColumn<QStringList>("expected"); // "from-inside-top -> to"
    QTest::addColumn<QStringList>("absent");   // destinations that must not appear

    const int win = int(OsFamily::Windows);
    const int lin = int(OsFamily::Linux);
    QTest::newRow("windows cudart 11.8: dll to bin, lib to lib/x64, headers, license")
        << win << QStringLiteral("portable") << 0
        << cudartArchive(true, QStringLiteral("11.8.89"), {}, QStringLiteral("cudart64_110.dll"))
        << QStringList{QStringLiteral("bin/cudart64_110.dll -> cuda/bin/cudart64_110.dll"),
                       QStringLiteral("lib/x64/cudart.lib -> cuda/lib/x64/cudart.lib"),
                       QStringLiteral("include/cuda_runtime_api.h -> cuda/include/cuda_runtime_api.h"),
                       QStringLiteral("LICENSE -> licenses/cuda_cudart/LICENSE")}
        << QStringList{};
    QTest::newRow("linux cudart 11.8 portable: lib with links, static library left out")
        << lin << QStringLiteral("portable") << 0
        << cudartArchive(false, QStringLiteral("11.8.89"), QStringLiteral("11.0"), {})
        << QStringList{QStringLiteral("lib/libcudart.so.11.8.89 -> cuda/lib/libcudart.so.11.8.89"),
                       QStringLiteral("lib/libcudart.so.11.0 -> cuda/lib/libcudart.so.11.0"),
                       QStringLiteral("lib/libcudart.so -> cuda/lib/libcudart.so")}
        << QStringList{QStringLiteral("cuda/lib/libcudart_static.a")};
    QTest::newRow("linux cudart 11.8 toolkit route: lib64 as NVIDIA's toolkit")
        << lin << QStringLiteral("toolkit") << 0
        << cudartArchive(false, QStringLiteral("11.8.89"), QStringLiteral("11.0"), {})
        << QStringList{QStringLiteral("lib/libcudart.so.11.0 -> cuda/lib64/libcudart.so.11.0")} << QStringList{};
    QTest::newRow("windows cudnn 7 (cuda/ top folder)")
        << win << QStringLiteral("portable") << 7 << cudnnArchive(true, QStringLiteral("7.6.5.32"), true)
        << QStringList{QStringLiteral("bin/cudnn64_7.dll -> cuda/bin/cudnn64_7.dll"),
                       QStringLiteral("lib/x64/cudnn.lib -> cuda/lib/x64/cudnn.lib"),
                       QStringLiteral("include/cudnn.h -> cuda/include/cudnn.h")}
        << QStringList{};
    QTest::newRow("linux cudnn 7 (cuda/lib64 to lib)")
        << lin << QStringLiteral("portable") << 7 << cudnnArchive(false, QStringLiteral("7.6.5.32"), true)
        << QStringList{QStringLiteral("lib64/libcudnn.so.7 -> cuda/lib/libcudnn.so.7")}
        << QStringList{QStringLiteral("cuda/lib/libcudnn_static.a"), QStringLiteral("NVIDIA_SLA_cuDNN_Support.txt")};
    QTest::newRow("windows cudnn 8.1 (cuda/ top folder), every sub-library")
        << win << QStringLiteral("portable") << 8 << cudnnArchive(true, QStringLiteral("8.1.0.77"), true)
        << QStringList{QStringLiteral("bin/cudnn64_8.dll -> cuda/bin/cudnn64_8.dll"),
                       QStringLiteral("bin/cudnn_ops_infer64_8.dll -> cuda/bin/cudnn_ops_infer64_8.dll"),
                       QStringLiteral("bin/cudnn_cnn_infer64_8.dll -> cuda/bin/cudnn_cnn_infer64_8.dll"),
                       QStringLiteral("bin/cudnn_adv_train64_8.dll -> cuda/bin/cudnn_adv_train64_8.dll")}
        << QStringList{};
    QTest::newRow("windows cudnn 8.9 (named top folder)")
        << win << QStringLiteral("portable") << 8 << cudnnArchive(true, QStringLiteral("8.9.7.29"), false)
        << QStringList{QStringLiteral("bin/cudnn_ops_train64_8.dll -> cuda/bin/cudnn_ops_train64_8.dll"),
                       QStringLiteral("include/cudnn_version.h -> cuda/include/cudnn_version.h"),
                       QStringLiteral("LICENSE -> licenses/cudnn/LICENSE")}
        << QStringList{};
    QTest::newRow("linux cudnn 8.9 (lib/, not lib64)")
        << lin << QStringLiteral("portable") << 8 << cudnnArchive(false, QStringLiteral("8.9.7.29"), false)
        << QStringList{QStringLiteral("lib/libcudnn_cnn_infer.so.8 -> cuda/lib/libcudnn_cnn_infer.so.8"),
                       QStringLiteral("lib/libcudnn_cnn_infer.so.8.9.7 -> cuda/lib/libcudnn_cnn_infer.so.8.9.7")}
        << QStringList{};
    QTest::newRow("linux cudnn 9.8 toolkit route")
        << lin << QStringLiteral("toolkit") << 9 << cudnnArchive(false, QStringLiteral("9.8.0.87"), false)
        << QStringList{QStringLiteral("lib/libcudnn_graph.so.9 -> cuda/lib64/libcudnn_graph.so.9"),
                       QStringLiteral(
                           "lib/libcudnn_engines_runtime_compiled.so.9 -> cuda/lib64/libcudnn_engines_runtime_compiled.so.9")}
        << QStringList{};
    QTest::newRow("windows cudnn 9.8")
        << win << QStringLiteral("portable") << 9 << cudnnArchive(true, QStringLiteral("9.8.0.87"), false)
        << QStringList{QStringLiteral(
                           "bin/cudnn_engines_precompiled64_9.dll -> cuda/bin/cudnn_engines_precompiled64_9.dll"),
                       QStringLiteral("lib/x64/cudnn_graph.lib -> cuda/lib/x64/cudnn_graph.lib")}
        << QStringList{};
    QTest::newRow("windows: .lib directly in lib/ still goes to lib/x64")
        << win << QStringLiteral("portable") << 0
        << QList<Entry>{file(QStringLiteral("cudnn-windows-x86_64-8.9.7.29_cuda12-archive/lib/cudnn.lib")),
                        file(QStringLiteral("cudnn-windows-x86_64-8.9.7.29_cuda12-archive/bin/cudnn64_8.dll"))}
        << QStringList{QStringLiteral("lib/cudnn.lib -> cuda/lib/x64/cudnn.lib")} << QStringList{};
    QTest::newRow("linux nvcc: ptxas and libdevice for XLA")
        << lin << QStringLiteral("portable") << 0
        << QList<Entry>{file(QStringLiteral("cuda_nvcc-linux-x86_64-11.8.89-archive/bin/ptxas"), {}, 0755),
                        file(QStringLiteral("cuda_nvcc-linux-x86_64-11.8.89-archive/nvvm/libdevice/libdevice.10.bc"))}
        << QStringList{QStringLiteral("bin/ptxas -> cuda/bin/ptxas"),
                       QStringLiteral("nvvm/libdevice/libdevice.10.bc -> cuda/nvvm/libdevice/libdevice.10.bc")}
        << QStringList{};
}

void TestPlacement::places()
{
    QFETCH(int, os);
    QFETCH(QString, route);
    QFETCH(int, cudnnMajor);
    QFETCH(QList<Entry>, archive);
    QFETCH(QStringList, expected);
    QFETCH(QStringList, absent);

    const QString component = archive.first().path.startsWith(QStringLiteral("cuda_cudart"))
        ? QStringLiteral("cuda_cudart")
        : QStringLiteral("cudnn");
    const auto placed = placeEntries(m_rules, OsFamily(os), route, cudnnMajor, component, asExtracted(archive));
    QVERIFY2(placed, qPrintable(placed ? QString() : placed.error().detail));
    const QString top = commonTopFolder(asExtracted(archive));
    QVERIFY(!top.isEmpty());
    QStringList got;
    for (const auto &p : *placed)
        got.append(p.from.mid(top.size() + 1) + QStringLiteral(" -> ") + p.to);
    for (const QString &e : expected)
        QVERIFY2(got.contains(e), qPrintable(e + QStringLiteral("\n got: ") + got.join(u'\n')));
    for (const QString &a : absent) {
        for (const auto &p : *placed)
            QVERIFY2(!p.to.endsWith(a), qPrintable(a));
    }
    if (cudnnMajor > 0) {
        QStringList names;
        for (const auto &p : *placed)
            names.append(p.to.section(u'/', -1));
        QCOMPARE(m_rules.missingFromSet(OsFamily(os), cudnnMajor, names), QStringList{});
    }
}

void TestPlacement::incompleteCudnnSetIsReported_data()
{
    QTest::addColumn<int>("os");
    QTest::addColumn<QString>("version");
    QTest::addColumn<QString>("dropped");
    QTest::newRow("windows 8.1 without cudnn_cnn_infer64_8.dll")
        << int(OsFamily::Windows) << QStringLiteral("8.1.0.77") << QStringLiteral("cudnn_cnn_infer64_8.dll");
    QTest::newRow("windows 9.8 without cudnn_heuristic64_9.dll")
        << int(OsFamily::Windows) << QStringLiteral("9.8.0.87") << QStringLiteral("cudnn_heuristic64_9.dll");
    QTest::newRow("linux 8.9 without libcudnn_ops_infer.so.8")
        << int(OsFamily::Linux) << QStringLiteral("8.9.7.29") << QStringLiteral("libcudnn_ops_infer.so.8");
    QTest::newRow("linux 9.8 without libcudnn_engines_precompiled.so.9")
        << int(OsFamily::Linux) << QStringLiteral("9.8.0.87") << QStringLiteral("libcudnn_engines_precompiled.so.9");
}

void TestPlacement::incompleteCudnnSetIsReported()
{
    QFETCH(int, os);
    QFETCH(QString, version);
    QFETCH(QString, dropped);
    const auto archive = cudnnArchive(OsFamily(os) == OsFamily::Windows, version, version.startsWith(u'7'), dropped);
    const int major = version.section(u'.', 0, 0).toInt();
    const auto placed = placeEntries(m_rules, OsFamily(os), QStringLiteral("portable"), major, QStringLiteral("cudnn"),
                                     asExtracted(archive));
    QVERIFY(placed);
    QStringList names;
    for (const auto &p : *placed)
        names.append(p.to.section(u'/', -1));
    QCOMPARE(m_rules.missingFromSet(OsFamily(os), major, names), QStringList{dropped});
}

void TestPlacement::conflictingFilesAreRefused()
{
    // Windows names are case-insensitive: two spellings of one DLL collide.
    const QList<Entry> archive{file(QStringLiteral("top/bin/cudart64_110.dll")),
                               file(QStringLiteral("top/bin/CUDART64_110.DLL"))};
    const auto placed = placeEntries(m_rules, OsFamily::Windows, QStringLiteral("portable"), 0, QStringLiteral("x"),
                                     asExtracted(archive));
    QVERIFY(!placed);
    QCOMPARE(placed.error().code, QStringLiteral("placement_conflict"));
    // On Linux they are two files.
    QVERIFY(
        placeEntries(m_rules, OsFamily::Linux, QStringLiteral("portable"), 0, QStringLiteral("x"),
                     asExtracted({file(QStringLiteral("top/lib/libA.so")), file(QStringLiteral("top/lib/liba.so"))})));
}

void TestPlacement::unknownLayoutIsAnError()
{
    const auto placed = placeEntries(m_rules, OsFamily::MacOS, QStringLiteral("portable"), 0, QStringLiteral("x"), {});
    QVERIFY(!placed);
    QCOMPARE(placed.error().code, QStringLiteral("placement_no_layout"));
}

void TestPlacement::globs_data()
{
    QTest::addColumn<QString>("glob");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("matches");
    QTest::newRow("star stays in one folder")
        << QStringLiteral("bin/*.dll") << QStringLiteral("bin/x64/a.dll") << false;
    QTest::newRow("star matches a name") << QStringLiteral("bin/*.dll") << QStringLiteral("bin/a.dll") << true;
    QTest::newRow("double star goes deep")
        << QStringLiteral("include/**") << QStringLiteral("include/crt/host.h") << true;
    QTest::newRow("dots are literal") << QStringLiteral("lib/*.so*") << QStringLiteral("lib/libxso") << false;
    QTest::newRow("versioned soname") << QStringLiteral("lib/*.so*") << QStringLiteral("lib/libcudnn.so.8.9.7") << true;
}

void TestPlacement::globs()
{
    QFETCH(QString, glob);
    QFETCH(QString, path);
    QFETCH(bool, matches);
    QCOMPARE(PlacementRules::globPattern(glob, true).match(path).hasMatch(), matches);
}

QTEST_GUILESS_MAIN(TestPlacement)
#include "test_placement.moc"
