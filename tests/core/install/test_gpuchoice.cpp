// Choosing the GPUs an environment uses: `--gpus` and a lab profile's "gpus" read, checked and
// resolved against a plan's assessment of the machine's GPUs into what the launchers pin, with
// the reason for every GPU left out; and the solver's assessment of a Kepler beside an Ampere.

#include "catalog/catalog.h"
#include "catalog/gputable.h"
#include "install/gpuchoice.h"
#include "install/installspec.h"
#include "install/labprofile.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup;
using core::GpuChoice;
using core::PlanGpu;

namespace {

PlanGpu gpu(int index, const QString &name, const QString &cc, PlanGpu::Use use, const QString &code = {})
{
    PlanGpu g;
    g.index = index;
    g.name = name;
    g.computeCapability = cc;
    g.use = use;
    if (!code.isEmpty())
        g.reason = core::Finding{code, QStringLiteral("because of ") + code + u'.'};
    return g;
}

// A Kepler too old for the release, an Ampere it runs natively, a GPU it runs only through PTX JIT.
core::Plan threeGpus()
{
    core::Plan plan;
    plan.route = QStringLiteral("linux-pip");
    plan.tensorflow = QStringLiteral("2.15.0");
    plan.cuda = QStringLiteral("12.2");
    plan.gpus = {gpu(0, QStringLiteral("Tesla K80"), QStringLiteral("3.7"), PlanGpu::Use::Unusable,
                     QStringLiteral("gpu_too_old")),
                 gpu(1, QStringLiteral("NVIDIA GeForce RTX 3060"), QStringLiteral("8.6"), PlanGpu::Use::Native),
                 gpu(2, QStringLiteral("Future GPU"), QStringLiteral("9.9"), PlanGpu::Use::PtxJit,
                     QStringLiteral("gpu_needs_ptx_jit"))};
    return plan;
}

QJsonObject profileWith(const QJsonValue &gpus)
{
    QJsonObject p{{QStringLiteral("schema"), 1},
                  {QStringLiteral("environment"), QStringLiteral("tf")},
                  {QStringLiteral("installFolder"), QStringLiteral("/envs")},
                  {QStringLiteral("interpreter"), QStringLiteral("none")},
                  {QStringLiteral("plan"), QJsonObject{{QStringLiteral("route"), QStringLiteral("linux-pip")}}}};
    if (!gpus.isUndefined())
        p.insert(QStringLiteral("gpus"), gpus);
    return p;
}

} // namespace

class TestGpuChoice final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parse_data();
    void parse();
    void parseRefuses_data();
    void parseRefuses();
    void profileField_data();
    void profileField();
    void profileFieldRefused_data();
    void profileFieldRefused();
    void pinnedGpus_data();
    void pinnedGpus();
    void resolve_data();
    void resolve();
    void resolveRefuses_data();
    void resolveRefuses();
    void withoutAssessment_theLabsWordStands();
    void describeAndJson_giveTheReasons();
    void solver_keplerBesideAmpere();
};

void TestGpuChoice::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<int>>("indices");
    QTest::newRow("default") << QStringLiteral("default") << int(GpuChoice::Kind::Default) << QList<int>{};
    QTest::newRow("all") << QStringLiteral("all") << int(GpuChoice::Kind::All) << QList<int>{};
    QTest::newRow("ALL, any case") << QStringLiteral("ALL") << int(GpuChoice::Kind::All) << QList<int>{};
    QTest::newRow("one") << QStringLiteral("1") << int(GpuChoice::Kind::These) << QList<int>{1};
    QTest::newRow("two, order kept") << QStringLiteral("2,0") << int(GpuChoice::Kind::These) << QList<int>{2, 0};
    QTest::newRow("spaces") << QStringLiteral(" 0 , 2 ") << int(GpuChoice::Kind::These) << QList<int>{0, 2};
}

void TestGpuChoice::parse()
{
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(QList<int>, indices);
    const auto choice = GpuChoice::parse(text, QStringLiteral("--gpus"));
    QVERIFY2(choice, qPrintable(choice ? QString() : choice.error().message));
    QCOMPARE(int(choice->kind), kind);
    QCOMPARE(choice->indices, indices);
}

void TestGpuChoice::parseRefuses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("a word") << QStringLiteral("fast") << QStringLiteral("\"fast\" is none of these");
    QTest::newRow("empty") << QString() << QStringLiteral("--gpus takes \"default\", \"all\"");
    QTest::newRow("negative") << QStringLiteral("-1") << QStringLiteral("is none of these");
    QTest::newRow("an empty item") << QStringLiteral("0,,1") << QStringLiteral("is none of these");
    QTest::newRow("beyond any machine") << QStringLiteral("64") << QStringLiteral("is none of these");
    QTest::newRow("a UUID") << QStringLiteral("GPU-8932f937") << QStringLiteral("nvidia-smi shows them");
    QTest::newRow("twice") << QStringLiteral("1,0,1") << QStringLiteral("--gpus names GPU 1 twice.");
}

void TestGpuChoice::parseRefuses()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto choice = GpuChoice::parse(text, QStringLiteral("--gpus"));
    QVERIFY(!choice);
    QCOMPARE(choice.error().code, QStringLiteral("gpu_choice_invalid"));
    QVERIFY2(choice.error().message.contains(message), qPrintable(choice.error().message));
}

void TestGpuChoice::profileField_data()
{
    QTest::addColumn<QJsonValue>("gpus");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QList<int>>("indices");
    QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << int(GpuChoice::Kind::Default) << QList<int>{};
    QTest::newRow("default") << QJsonValue(QStringLiteral("default")) << int(GpuChoice::Kind::Default) << QList<int>{};
    QTest::newRow("all") << QJsonValue(QStringLiteral("all")) << int(GpuChoice::Kind::All) << QList<int>{};
    QTest::newRow("a list") << QJsonValue(QJsonArray{2, 0}) << int(GpuChoice::Kind::These) << QList<int>{2, 0};
}

void TestGpuChoice::profileField()
{
    QFETCH(QJsonValue, gpus);
    QFETCH(int, kind);
    QFETCH(QList<int>, indices);
    const auto profile = core::LabProfile::fromJson(profileWith(gpus), QStringLiteral("lab.json"));
    QVERIFY2(profile, qPrintable(profile ? QString() : profile.error().message));
    QCOMPARE(int(profile->gpus.kind), kind);
    QCOMPARE(profile->gpus.indices, indices);
}

void TestGpuChoice::profileFieldRefused_data()
{
    QTest::addColumn<QJsonValue>("gpus");
    QTest::addColumn<QString>("problem");
    QTest::newRow("another word") << QJsonValue(QStringLiteral("fastest"))
                                  << QStringLiteral("must be \"default\", \"all\"");
    QTest::newRow("a number") << QJsonValue(1) << QStringLiteral("must be");
    QTest::newRow("indices as text") << QJsonValue(QStringLiteral("0,2")) << QStringLiteral("must be \"default\"");
    QTest::newRow("an empty list") << QJsonValue(QJsonArray{}) << QStringLiteral("must name at least one GPU");
    QTest::newRow("twice") << QJsonValue(QJsonArray{0, 0}) << QStringLiteral("names GPU 0 twice");
    QTest::newRow("negative") << QJsonValue(QJsonArray{-1}) << QStringLiteral("such as [0, 2]");
    QTest::newRow("a fraction") << QJsonValue(QJsonArray{1.5}) << QStringLiteral("such as [0, 2]");
    QTest::newRow("text in the list") << QJsonValue(QJsonArray{QStringLiteral("0")})
                                      << QStringLiteral("such as [0, 2]");
}

void TestGpuChoice::profileFieldRefused()
{
    QFETCH(QJsonValue, gpus);
    QFETCH(QString, problem);
    const auto profile = core::LabProfile::fromJson(profileWith(gpus), QStringLiteral("lab.json"));
    QVERIFY(!profile);
    QCOMPARE(profile.error().code, QStringLiteral("profile_incomplete"));
    // The message names the field, so the administrator knows what to correct.
    QVERIFY2(profile.error().message.contains(QStringLiteral("\"gpus")), qPrintable(profile.error().message));
    QVERIFY2(profile.error().message.contains(problem), qPrintable(profile.error().message));
}

void TestGpuChoice::pinnedGpus_data()
{
    QTest::addColumn<QList<int>>("chosen");
    QTest::addColumn<int>("count");
    QTest::addColumn<QList<int>>("pinned");
    QTest::newRow("the only GPU") << QList<int>{0} << 1 << QList<int>{};
    QTest::newRow("every GPU in order") << QList<int>{0, 1, 2} << 3 << QList<int>{};
    QTest::newRow("one of two") << QList<int>{1} << 2 << QList<int>{1};
    QTest::newRow("every GPU, another order") << QList<int>{1, 0} << 2 << QList<int>{1, 0};
    QTest::newRow("none known") << QList<int>{} << 0 << QList<int>{};
}

void TestGpuChoice::pinnedGpus()
{
    QFETCH(QList<int>, chosen);
    QFETCH(int, count);
    QFETCH(QList<int>, pinned);
    QCOMPARE(core::InstallSpec::pinnedGpus(chosen, count), pinned);
}

void TestGpuChoice::resolve_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("pins");
    QTest::addColumn<QList<int>>("leftOut");
    // The Ampere alone: the Kepler cannot be used, the JIT GPU would start slowly.
    QTest::newRow("default") << QStringLiteral("default") << QList<int>{1} << QList<int>{0, 2};
    // Nothing pinned, but the Kepler this TensorFlow cannot run on is named as left out.
    QTest::newRow("all pins nothing") << QStringLiteral("all") << QList<int>{} << QList<int>{0};
    QTest::newRow("the JIT one asked for") << QStringLiteral("2,1") << QList<int>{2, 1} << QList<int>{0};
}

void TestGpuChoice::resolve()
{
    QFETCH(QString, text);
    QFETCH(QList<int>, pins);
    QFETCH(QList<int>, leftOut);
    const auto choice = GpuChoice::parse(text, QStringLiteral("--gpus"));
    QVERIFY(choice);
    const auto resolved = choice->resolve(threeGpus(), QStringLiteral("--gpus"));
    QVERIFY2(resolved, qPrintable(resolved ? QString() : resolved.error().message));
    QCOMPARE(resolved->pins, pins);
    QList<int> out;
    for (const PlanGpu &g : resolved->leftOut)
        out.append(g.index);
    QCOMPARE(out, leftOut);
}

void TestGpuChoice::resolveRefuses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not on this computer")
        << QStringLiteral("1,3")
        << QStringLiteral("--gpus names GPU 3, but this computer's NVIDIA GPUs are 0,1,2 "
                          "(as nvidia-smi numbers them).");
    QTest::newRow("too old for this TensorFlow")
        << QStringLiteral("0")
        << QStringLiteral("--gpus names GPU 0, Tesla K80 (compute capability 3.7), which TensorFlow 2.15.0 cannot use: "
                          "because of gpu_too_old. Leave it out.");
}

void TestGpuChoice::resolveRefuses()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto resolved =
        GpuChoice::parse(text, QStringLiteral("--gpus"))->resolve(threeGpus(), QStringLiteral("--gpus"));
    QVERIFY(!resolved);
    QCOMPARE(resolved.error().code, QStringLiteral("gpu_choice_invalid"));
    QCOMPARE(resolved.error().message, message);
}

void TestGpuChoice::withoutAssessment_theLabsWordStands()
{
    core::Plan plan = threeGpus();
    plan.gpus.clear();
    const auto these = GpuChoice::parse(QStringLiteral("3,1"), QStringLiteral("--gpus"))->resolve(plan, {});
    QVERIFY(these);
    QCOMPARE(these->pins, (QList<int>{3, 1}));
    const auto byDefault = GpuChoice{}.resolve(plan, {});
    QVERIFY(byDefault);
    QVERIFY(byDefault->pins.isEmpty());
    // Nothing confirmed about any GPU (every capability unknown): nothing hidden either.
    core::Plan unknown = threeGpus();
    for (PlanGpu &g : unknown.gpus) {
        g.use = PlanGpu::Use::Unusable;
        g.reason = core::Finding{QStringLiteral("gpu_capability_unknown"), QStringLiteral("unknown.")};
    }
    const auto unconfirmed = GpuChoice{}.resolve(unknown, {});
    QVERIFY(unconfirmed);
    QVERIFY(unconfirmed->pins.isEmpty());
    QVERIFY(unconfirmed->leftOut.isEmpty());
}

void TestGpuChoice::describeAndJson_giveTheReasons()
{
    const auto resolved = GpuChoice{}.resolve(threeGpus(), {});
    QVERIFY(resolved);
    const QStringList lines = GpuChoice::describe(*resolved);
    QCOMPARE(lines,
             (QStringList{
                 QStringLiteral("The environment uses GPU 1, NVIDIA GeForce RTX 3060 (compute capability 8.6) "
                                "(CUDA_VISIBLE_DEVICES=1)."),
                 QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7) is left out: because of gpu_too_old."),
                 QStringLiteral("GPU 2, Future GPU (compute capability 9.9) is left out: because of "
                                "gpu_needs_ptx_jit."),
             }));
    const QJsonObject json = GpuChoice::toJson(*resolved);
    QCOMPARE(json.value(QStringLiteral("cuda_visible_devices")).toString(), QStringLiteral("1"));
    const QJsonArray leftOut = json.value(QStringLiteral("left_out")).toArray();
    QCOMPARE(leftOut.size(), 2);
    QCOMPARE(leftOut.at(0).toObject().value(QStringLiteral("use")).toString(), QStringLiteral("unusable"));
    QCOMPARE(
        leftOut.at(0).toObject().value(QStringLiteral("reason")).toObject().value(QStringLiteral("code")).toString(),
        QStringLiteral("gpu_too_old"));
    QCOMPARE(leftOut.at(1).toObject().value(QStringLiteral("use")).toString(), QStringLiteral("ptx_jit"));
    // A machine whose only GPU is too old, with every GPU asked for: which one, why, and that the
    // environment runs on the processor, in text and JSON.
    core::Plan keplerOnly = threeGpus();
    keplerOnly.gpus = {keplerOnly.gpus.first()};
    const auto all = GpuChoice::parse(QStringLiteral("all"), QStringLiteral("--gpus"))->resolve(keplerOnly, {});
    QVERIFY(all);
    QVERIFY(all->used.isEmpty() && all->pins.isEmpty());
    const QStringList allLines = GpuChoice::describe(*all);
    QCOMPARE(allLines.size(), 2);
    QCOMPARE(allLines.first(),
             QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7) is left out: because of gpu_too_old."));
    QVERIFY2(allLines.last().contains(QStringLiteral("run on the processor")), qPrintable(allLines.last()));
    const QJsonArray skipped = GpuChoice::toJson(*all).value(QStringLiteral("skipped")).toArray();
    QCOMPARE(skipped.size(), 1);
    QCOMPARE(skipped.first().toObject().value(QStringLiteral("gpu")).toString(),
             QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7)"));
    QCOMPARE(skipped.first().toObject().value(QStringLiteral("reason")).toString(),
             QStringLiteral("because of gpu_too_old."));
    QCOMPARE(skipped.first().toObject().value(QStringLiteral("code")).toString(), QStringLiteral("gpu_too_old"));
    // The same machine with the default choice says the same.
    const auto byDefault = GpuChoice{}.resolve(keplerOnly, {});
    QVERIFY(byDefault);
    QCOMPARE(GpuChoice::describe(*byDefault), allLines);

    // Nothing pinned and nothing left out: nothing to say.
    QVERIFY(GpuChoice::describe(GpuChoice::Resolved{}).isEmpty());
    QVERIFY(GpuChoice::toJson(GpuChoice::Resolved{}).value(QStringLiteral("cuda_visible_devices")).isNull());
}

void TestGpuChoice::solver_keplerBesideAmpere()
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/gpuchoice/linux_kepler_ampere.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto report = core::HardwareReport::fromJson(QJsonDocument::fromJson(f.readAll()).object());
    const auto catalog = core::Catalog::load();
    QVERIFY(catalog);
    const auto table = core::GpuTable::load();
    core::Plan profilePlan;
    profilePlan.route = QStringLiteral("linux-pip");
    profilePlan.tensorflow = QStringLiteral("2.15.1");
    const core::Plan plan = core::withGpuAssessment(profilePlan, report, *catalog, table ? &*table : nullptr);
    QCOMPARE(plan.gpus.size(), 2);
    QCOMPARE(plan.gpus.at(0).name, QStringLiteral("Tesla K80"));
    QCOMPARE(plan.gpus.at(0).use, PlanGpu::Use::Unusable);
    QVERIFY(plan.gpus.at(0).reason);
    QCOMPARE(plan.gpus.at(1).use, PlanGpu::Use::Native);
    const auto resolved = GpuChoice{}.resolve(plan, {});
    QVERIFY(resolved);
    QCOMPARE(resolved->pins, QList<int>{1});
}

QTEST_GUILESS_MAIN(TestGpuChoice)
#include "test_gpuchoice.moc"
