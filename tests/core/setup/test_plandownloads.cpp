// PlanDownloads: what a plan downloads as far as it is known, from the sources catalog before the
// files are looked up and from the resolver's list (and pip's lock) after. The CUDA release named
// is the one whose archives come down, so what the Choose page shows is what is fetched.

#include "catalog/sourcecatalog.h"
#include "catalog/version.h"
#include "setup/plandownloads.h"

#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

SourceCatalog sources()
{
    auto c = SourceCatalog::load();
    return c.ok() ? *c : SourceCatalog();
}

Plan toolkitPlan(const QString &cuda)
{
    Plan p;
    p.route = u"windows-native"_s;
    p.tensorflow = u"2.10.0"_s;
    p.python = u"3.10"_s;
    p.cuda = cuda;
    p.cudnn = u"8.1"_s;
    p.libraries = {u"cudart64_110.dll"_s};
    return p;
}

Artifact archive(const QString &manifest, qint64 size)
{
    Artifact a;
    a.name = u"cuda_cudart"_s;
    a.kind = u"cuda-redist-archive"_s;
    a.manifest = manifest;
    a.size = size;
    return a;
}

} // namespace

class TestPlanDownloads final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cudaArchives_data()
    {
        QTest::addColumn<QString>("cuda");
        QTest::addColumn<QString>("archives");
        QTest::addColumn<bool>("standIn");
        QTest::addColumn<bool>("certain");
        // 11.2 has no pinned manifest and names 11.8's as the fallback the resolver takes.
        QTest::newRow("11.2: the 11.8 archives stand in") << u"11.2"_s << u"11.8"_s << true << false;
        QTest::newRow("11.8: its own pinned archives") << u"11.8"_s << u"11.8"_s << false << true;
        QTest::newRow("no manifest known: none") << u"10.1"_s << QString() << false << true;
    }

    void cudaArchives()
    {
        QFETCH(QString, cuda);
        QFETCH(QString, archives);
        QFETCH(bool, standIn);
        QFETCH(bool, certain);
        const SourceCatalog catalog = sources();
        QVERIFY(!catalog.cudaManifests().isEmpty());
        const PlanDownloads d = PlanDownloads::of(toolkitPlan(cuda), catalog);
        QVERIFY(d.nvidiaArchives);
        QCOMPARE(d.cudaArchives, archives);
        QCOMPARE(d.cudaStandIn, standIn);
        QCOMPARE(d.cudaCertain, certain);
        QVERIFY(!d.sizesResolved);
        QVERIFY(!d.allSizesKnown());
    }

    void pipRoute_downloadsNoArchives()
    {
        Plan p = toolkitPlan(u"12.5"_s);
        p.route = u"linux-pip"_s;
        p.libraries.clear(); // pip routes place no libraries: the wheels bring them
        const PlanDownloads d = PlanDownloads::of(p, sources());
        QVERIFY(!d.nvidiaArchives);
        QVERIFY(d.cudaArchives.isEmpty());
    }

    void resolvedList_namesWhatComesAndSumsSizes()
    {
        const Plan plan = toolkitPlan(u"11.2"_s);
        ArtifactList list;
        list.route = plan.route;
        list.tensorflow = plan.tensorflow;
        Artifact optional = archive(u"redistrib_11.8.0.json"_s, 1000);
        optional.name = u"cuda_cupti"_s;
        optional.optional = true; // not fetched unless asked: not counted
        Artifact wheelhouse;
        wheelhouse.kind = u"wheelhouse"_s;
        list.artifacts = {archive(u"redistrib_11.8.0.json"_s, 5'000'000), optional, wheelhouse};

        // Without a lock the wheels are one unknown part: a floor, not a total.
        PlanDownloads d = PlanDownloads::of(plan, sources(), &list);
        QCOMPARE(d.cudaArchives, u"11.8"_s);
        QVERIFY(d.cudaStandIn && d.cudaCertain);
        QVERIFY(d.sizesResolved);
        QCOMPARE(d.knownBytes, qint64(5'000'000));
        QVERIFY(!d.allSizesKnown());
        QVERIFY(d.wheelsUnsized);
        QCOMPARE(d.otherFilesUnknown(), 0);

        PyLock lock;
        LockedWheel w;
        w.name = u"tensorflow"_s;
        w.size = 500'000'000;
        lock.packages = {w};
        d = PlanDownloads::of(plan, sources(), &list, &lock);
        QCOMPARE(d.knownBytes, qint64(505'000'000));
        QCOMPARE(d.filesKnown, 2);
        QVERIFY(d.allSizesKnown());
        QVERIFY(!d.wheelsUnsized);

        // NVIDIA served 11.2 after all: the list says so, and so does the answer.
        list.artifacts = {archive(u"redistrib_11.2.2.json"_s, 4'000'000)};
        d = PlanDownloads::of(plan, sources(), &list, &lock);
        QCOMPARE(d.cudaArchives, u"11.2"_s);
        QVERIFY(!d.cudaStandIn);

        // A list resolved for another release is not this plan's.
        list.tensorflow = u"2.9.0"_s;
        d = PlanDownloads::of(plan, sources(), &list, &lock);
        QVERIFY(!d.sizesResolved);
        QCOMPARE(d.cudaArchives, u"11.8"_s);
        QVERIFY(!d.cudaCertain);
    }

    void lookUp_offlineWithoutBundle_asksNothing()
    {
        SetupOptions options;
        options.network.offline = true;
        // A closed port: were anything asked, the answer would be another error.
        options.network.originOverrides = {{u"nvidia"_s, QUrl(u"http://127.0.0.1:1/"_s)}};
        auto lookup = PlanDownloads::lookUp(toolkitPlan(u"11.8"_s), u"linux"_s, options);
        const auto list = QCoro::waitFor(lookup);
        QVERIFY(!list);
        QCOMPARE(list.error().code, u"offline"_s);
    }

    void lookUp_missingBundle_isItsError()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        SetupOptions options;
        options.network.bundleDir = dir.path(); // no bundle.json
        auto lookup = PlanDownloads::lookUp(toolkitPlan(u"11.8"_s), u"linux"_s, options);
        const auto list = QCoro::waitFor(lookup);
        QVERIFY(!list);
        QVERIFY2(list.error().code.startsWith(u"bundle"_s), qPrintable(list.error().code));
    }
};

QTEST_GUILESS_MAIN(TestPlanDownloads)
#include "test_plandownloads.moc"
