// The edges of what the catalog models, read as a student or a lab administrator reads them:
// plug-ins whose last release stops at some TensorFlow and Python, drivers that drop GPUs NVIDIA
// no longer supports, a driver that must stay, and sentences that must send a first-year student
// the right way. Every case solves a hardware report with a frozen copy of the shipped catalog
// and reads the sentences, not only the codes.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "catalog/version.h"
#include "detect/hardwarereport.h"
#include "solver/solver.h"
#include "support/frozencatalog.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

class TestSolverEdges : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void metal_stopsWhereItsLastReleaseStops();
    void metal_pinnedToAPythonItHasNoPackageFor();
    void directml_pluginBoundsComeFromItsRecord();
    void driverUpdate_namesTheGpuItDrops();
    void driverUpdate_boundedByTheNewestGpusLastBranch();
    void keepDriver_prefersCudaFromPip();
    void blackwell_isNotToldToInstallCuda();
    void windowsCuda124_toldThatCuda112InstallsBeside();
    void askedRoute_directmlIsTheAnswer();

private:
    HardwareReport report(const QString &name) const;
    Solution solve(const QString &name, const SolverConstraints &constraints = {}) const;
    static QString dump(const Solution &s);
    // The message of the finding with this code; empty when there is none.
    static QString messageOf(const QList<Finding> &findings, const QString &code);

    std::optional<Catalog> m_catalog;
    std::optional<GpuTable> m_gpus;
};

void TestSolverEdges::initTestCase()
{
    auto catalog = Catalog::load(tfsetup::test::frozenCatalog());
    QVERIFY2(catalog.ok(), qPrintable(catalog.ok() ? QString() : catalog.error().message));
    m_catalog = *catalog;
    auto gpus = GpuTable::load(tfsetup::test::frozenCatalog() + u"/gpus.json"_s);
    QVERIFY2(gpus.ok(), qPrintable(gpus.ok() ? QString() : gpus.error().message));
    m_gpus = *gpus;
}

HardwareReport TestSolverEdges::report(const QString &name) const
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/solver/"_s + name + u".json"_s);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing hardware report %s", qPrintable(f.fileName()));
    return HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
}

Solution TestSolverEdges::solve(const QString &name, const SolverConstraints &constraints) const
{
    return Solver(*m_catalog, &*m_gpus).solve(report(name), constraints);
}

QString TestSolverEdges::messageOf(const QList<Finding> &findings, const QString &code)
{
    for (const Finding &f : findings) {
        if (f.code == code)
            return f.message;
    }
    return {};
}

QString TestSolverEdges::dump(const Solution &s)
{
    return QString::fromUtf8(QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact)).left(6000);
}

// macOS 15, M3, Python 3.13 only. tensorflow-metal's last release has no package past its Python
// range and fails with TensorFlow releases after its last working one: never metal on 3.13, never
// metal with a TensorFlow past the plug-in's end.
void TestSolverEdges::metal_stopsWhereItsLastReleaseStops()
{
    const auto metal = m_catalog->plugin(u"tensorflow-metal"_s);
    QVERIFY(metal);
    QVERIFY(!metal->tfMax.isEmpty());
    QVERIFY(!metal->pythonMax.isEmpty());
    QVERIFY(!metal->brokenFrom.isEmpty());
    QVERIFY(version::less(metal->pythonMax, u"3.13"_s));

    const Solution s = solve(u"macos_m3_python313_only"_s);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QList<Plan> plans = s.alternatives;
    plans.prepend(*s.recommended);
    bool cpuOn313 = false;
    for (const Plan &p : plans) {
        if (p.route == u"metal") {
            QVERIFY2(!version::less(metal->tfMax, version::majorMinor(p.tensorflow)), qPrintable(p.tensorflow));
            QVERIFY2(version::inRange(p.python, metal->pythonMin, metal->pythonMax), qPrintable(p.python));
            QVERIFY(!p.pythonInstalled);
        }
        if (p.route == u"cpu" && p.python == u"3.13" && p.pythonInstalled)
            cpuOn313 = true;
    }
    QVERIFY2(cpuOn313, qPrintable(dump(s)));

    // Metal with a Python tfsetup installs, or the CPU with the Python the Mac has.
    const Plan &best = *s.recommended;
    if (best.route == u"metal") {
        QCOMPARE(best.python, metal->pythonMax);
        const Finding *install = nullptr;
        for (const Finding &a : best.actions) {
            if (a.code == u"install_python")
                install = &a;
        }
        QVERIFY2(install, qPrintable(dump(s)));
        // The student learns why 3.13 is not enough: the plug-in, not TensorFlow.
        QVERIFY2(install->message.contains(u"tensorflow-metal"_s) && install->message.contains(metal->lastRelease)
                     && install->message.contains(metal->pythonMax) && install->message.contains(u"3.13"_s),
                 qPrintable(install->message));
        QVERIFY(best.why.contains(u"tfsetup installs"_s));
    } else {
        QCOMPARE(best.route, u"cpu"_s);
        QCOMPARE(best.python, u"3.13"_s);
    }

    // The release the plug-in breaks with is rejected by name, with what happens and what works.
    const Rejection *broken = s.rejection(u"metal"_s, version::majorMinor(metal->brokenFrom));
    QVERIFY2(broken, qPrintable(dump(s)));
    QVERIFY(broken->has(u"plugin_unsupported"_s));
    const QString why = broken->reasons.first().message;
    for (const QString &part :
         {metal->name, metal->lastRelease, metal->released, metal->tfMax, version::majorMinor(metal->brokenFrom)})
        QVERIFY2(why.contains(part), qPrintable(part + u": "_s + why));
    QVERIFY2(why.contains(u"fails"_s), qPrintable(why));
    // The warning the old catalog gave instead of an answer is gone for metal plans.
    for (const Plan &p : plans) {
        if (p.route != u"metal")
            continue;
        for (const Finding &w : p.warnings)
            QVERIFY2(!w.message.contains(u"every detail"_s), qPrintable(w.message));
    }
}

void TestSolverEdges::metal_pinnedToAPythonItHasNoPackageFor()
{
    SolverConstraints c;
    c.python = u"3.13"_s;
    const Solution s = solve(u"macos_m3_python313_only"_s, c);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QCOMPARE(s.recommended->route, u"cpu"_s);
    QCOMPARE(s.recommended->python, u"3.13"_s);
    const auto metal = m_catalog->plugin(u"tensorflow-metal"_s);
    const Rejection *r = s.rejection(u"metal"_s, metal->tfMax);
    QVERIFY2(r && r->has(u"python_unsupported"_s), qPrintable(dump(s)));
    const QString why = r->reasons.first().message;
    QVERIFY2(why.contains(u"tensorflow-metal"_s) && why.contains(metal->pythonMax) && why.contains(u"3.13"_s),
             qPrintable(why));
}

void TestSolverEdges::directml_pluginBoundsComeFromItsRecord()
{
    const auto directml = m_catalog->plugin(u"tensorflow-directml-plugin"_s);
    QVERIFY(directml);
    QVERIFY(!directml->tfMax.isEmpty());
    QVERIFY(!directml->pythonMax.isEmpty());
    QVERIFY(!directml->source.isEmpty());
    // Every plug-in a route installs has a record, and every record says where it comes from.
    for (const Route &r : m_catalog->routes()) {
        for (const QString &name : r.plugins)
            QVERIFY2(m_catalog->plugin(name), qPrintable(name));
    }
    QVERIFY2(m_catalog->problems().isEmpty(), qPrintable(m_catalog->problems().join(u'\n')));

    SolverConstraints c;
    c.route = u"directml"_s;
    c.python = u"3.11"_s;
    const Solution s = solve(u"windows_rtx3060_cuda124"_s, c);
    QVERIFY(!s.recommended);
    QVERIFY2(s.anyRejectionHas(u"python_unsupported"_s), qPrintable(dump(s)));
}

// A lab server: Tesla K40c (Kepler) and V100 on driver 470. TensorFlow 2.20 needs a driver
// past R470, the last branch for Kepler: that update turns the K40c off for every program.
void TestSolverEdges::driverUpdate_namesTheGpuItDrops()
{
    const Solution s = solve(u"linux_k40c_v100_driver470"_s);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    const Plan &best = *s.recommended;
    QVERIFY(best.hasAction(u"update_driver"_s));
    const QString action = messageOf(best.actions, u"update_driver"_s);
    QVERIFY2(action.contains(u"Tesla K40c"_s) && action.contains(u"R470"_s) && action.contains(u"Kepler"_s),
             qPrintable(action));
    QVERIFY2(action.contains(u"every program"_s), qPrintable(action));

    // The warning names the GPU and the plan that keeps it, which comes first among the alternatives.
    QVERIFY(s.hasWarning(u"driver_drops_gpu"_s));
    const QString warning = messageOf(s.warnings, u"driver_drops_gpu"_s);
    QVERIFY(!s.alternatives.isEmpty());
    const Plan &keeper = s.alternatives.first();
    QVERIFY2(!keeper.hasWarning(u"driver_drops_gpu"_s), qPrintable(dump(s)));
    QVERIFY(!keeper.hasAction(u"update_driver"_s));
    QVERIFY(keeper.tier < 3);
    QVERIFY2(warning.contains(u"Tesla K40c"_s) && warning.contains(version::majorMinor(keeper.tensorflow))
                 && warning.contains(u"first alternative"_s) && warning.contains(u"driver you have"_s),
             qPrintable(warning));
    // Which GPUs that plan uses is stated per GPU, the K40c included.
    QCOMPARE(keeper.gpus.size(), 2);

    // With the driver kept, nothing proposes to drop a GPU.
    SolverConstraints keep;
    keep.keepDriver = true;
    const Solution kept = solve(u"linux_k40c_v100_driver470"_s, keep);
    QVERIFY(kept.recommended);
    QVERIFY(!kept.hasWarning(u"driver_drops_gpu"_s));
    QVERIFY(!kept.recommended->hasAction(u"update_driver"_s));
}

// "Or newer" has a bound: Maxwell, Pascal and Volta end with a branch too.
void TestSolverEdges::driverUpdate_boundedByTheNewestGpusLastBranch()
{
    const auto volta = m_catalog->driverBranchEnd(u"7.0"_s);
    QVERIFY(volta);
    const auto kepler = m_catalog->driverBranchEnd(u"3.5"_s);
    QVERIFY(kepler);
    QVERIFY(kepler->lastBranch < volta->lastBranch);
    QVERIFY(m_catalog->driverBranchEnd(u"5.2"_s));
    QVERIFY(m_catalog->driverBranchEnd(u"6.1"_s));
    QVERIFY(!m_catalog->driverBranchEnd(u"8.6"_s));
    for (const DriverBranchEnd &d : m_catalog->driverBranchEnds())
        QVERIFY2(d.verified && d.source.startsWith(u"https://"_s), qPrintable(d.architecture + u' ' + d.source));

    const Solution s = solve(u"linux_k40c_v100_driver470"_s);
    QVERIFY(s.recommended);
    const QString action = messageOf(s.recommended->actions, u"update_driver"_s);
    const QString ceiling = u"R"_s + QString::number(volta->lastBranch);
    QVERIFY2(action.contains(ceiling) && action.contains(u"Tesla V100"_s), qPrintable(action));

    // A machine with only a Pascal card and an old driver is told the same bound, and no GPU is dropped.
    const Solution pascal = solve(u"windows_gtx1060_old_driver"_s);
    QVERIFY(pascal.recommended);
    QVERIFY(!pascal.hasWarning(u"driver_drops_gpu"_s));
    for (const Finding &a : pascal.recommended->actions) {
        if (a.code == u"update_driver")
            QVERIFY2(a.message.contains(ceiling) && a.message.contains(u"Pascal"_s), qPrintable(a.message));
    }
}

// Ubuntu 24.04, GTX 1650, driver 470 that must stay: TensorFlow from pip with CUDA 11.8 (minor
// version compatibility), not a hand-installed CUDA 11.2 with an older TensorFlow.
void TestSolverEdges::keepDriver_prefersCudaFromPip()
{
    SolverConstraints c;
    c.keepDriver = true;
    const Solution s = solve(u"linux_gtx1650_driver470_ubuntu2404"_s, c);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QCOMPARE(s.recommended->route, u"linux-pip"_s);
    QCOMPARE(s.recommended->cudaFrom, u"pip"_s);
    QCOMPARE(s.recommended->cuda, u"11.8"_s);
    QVERIFY2(s.recommended->tensorflow.startsWith(u"2.14."_s), qPrintable(s.recommended->tensorflow));
    QVERIFY(!s.recommended->hasAction(u"install_cuda"_s));
    QVERIFY(!s.recommended->hasAction(u"update_driver"_s));
    // An unconfirmed record of the GPU code in 2.14 no longer sends the student to a toolkit and an
    // older release; the plan still says what it assumes.
    QCOMPARE(s.recommended->unverified, s.recommended->hasWarning(u"record_unverified"_s));
}

// RTX 5070 (compute capability 12.0): "needs CUDA 12.8 or newer" reads as "install CUDA 12.8",
// which changes nothing; the student must learn that TensorFlow's packages lack its code.
void TestSolverEdges::blackwell_isNotToldToInstallCuda()
{
    const Solution s = solve(u"linux_rtx5070"_s);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QCOMPARE(s.recommended->route, u"cpu"_s);
    const Rejection *r = s.rejection(u"linux-pip"_s, u"2.21"_s);
    QVERIFY2(r && r->has(u"gpu_arch_unsupported"_s), qPrintable(dump(s)));
    const QString why = r->reasons.first().message;
    QVERIFY2(!why.contains(u"needs CUDA"_s), qPrintable(why));
    QVERIFY2(why.contains(u"RTX 5070"_s) && why.contains(u"12.0"_s) && why.contains(u"12.5"_s)
                 && why.contains(u"12.8"_s),
             qPrintable(why));
    QVERIFY2(why.contains(u"does not change"_s), qPrintable(why));
    QVERIFY(s.hasWarning(u"gpu_unused"_s));
}

// Windows with CUDA 12.4 and TensorFlow 2.10 pinned: CUDA 11.2 goes beside 12.4, which stays.
void TestSolverEdges::windowsCuda124_toldThatCuda112InstallsBeside()
{
    SolverConstraints c;
    c.tensorflow = u"2.10"_s;
    const Solution s = solve(u"windows_rtx3060_cuda124"_s, c);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QCOMPARE(s.recommended->route, u"windows-native"_s);
    QCOMPARE(s.recommended->cuda, u"11.2"_s);
    const QString install = messageOf(s.recommended->actions, u"install_cuda"_s);
    QVERIFY2(install.contains(u"11.2"_s) && install.contains(u"12.4"_s) && install.contains(u"beside"_s)
                 && install.contains(u"stays"_s),
             qPrintable(install));

    // Without another CUDA there is nothing to reassure about.
    const Solution bare = solve(u"windows_build_19041_nt_version"_s, c);
    QVERIFY(bare.recommended);
    for (const Finding &a : bare.recommended->actions)
        QVERIFY2(!a.message.contains(u"beside"_s), qPrintable(a.message));
}

// `--route directml` on that machine: the answer is the DirectML plan, marked experimental, not
// "no combination fits" over an empty list of rejections.
void TestSolverEdges::askedRoute_directmlIsTheAnswer()
{
    SolverConstraints c;
    c.route = u"directml"_s;
    const Solution s = solve(u"windows_rtx3060_cuda124"_s, c);
    QVERIFY2(s.recommended, qPrintable(dump(s)));
    QCOMPARE(s.recommended->route, u"directml"_s);
    QVERIFY(s.hasWarning(u"route_experimental"_s));
    QVERIFY(!s.hasWarning(u"gpu_unused"_s));
    const QString text = s.text();
    QVERIFY2(!text.contains(u"No TensorFlow combination fits"_s), qPrintable(text));
    QVERIFY2(!text.contains(u"rejected combinations say why"_s), qPrintable(text));

    // Unasked, an experimental route is never the recommendation.
    const Solution unasked = solve(u"windows_rtx3060_cuda124"_s);
    QVERIFY(unasked.recommended);
    QVERIFY(unasked.recommended->route != u"directml");

    // A route that cannot use the GPU says so without pointing at a list that is empty.
    SolverConstraints cpu;
    cpu.route = u"cpu"_s;
    const Solution cpuOnly = solve(u"windows_rtx3060_cuda124"_s, cpu);
    QVERIFY(cpuOnly.recommended);
    for (const Finding &w : cpuOnly.warnings) {
        if (w.code == u"gpu_unused") {
            QVERIFY(cpuOnly.rejected.isEmpty() || !w.message.contains(u"rejected"_s));
            if (cpuOnly.rejected.isEmpty())
                QVERIFY2(w.message.contains(u"--route"_s), qPrintable(w.message));
        }
    }
}

QTEST_GUILESS_MAIN(TestSolverEdges)
#include "test_solver_edges.moc"
