#include "catalog/knowledge.h"
#include "detect/hardwarereport.h"
#include "doctor/tflogreader.h"
#include "solver/solver.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QVersionNumber>

#include <functional>
#include <optional>

using namespace Qt::StringLiterals;
using namespace tfsetup::core;

// The recipes of docs/architecture.md, followed step by step on a copy of the shipped catalog:
// if a recipe leaves out a file the change needs, or names one the code no longer reads, these
// fail. Each test does what the recipe's steps say, with fixture records, and nothing more.
class TestRecipes : public QObject {
    Q_OBJECT

private slots:
    void init();
    void addTensorFlowRelease_isPlannedWithNoCodeChange();
    void addDoctorCause_isFoundInALog();

private:
    QJsonObject readJson(const QString &name) const;
    void writeJson(const QString &name, const QJsonObject &object) const;
    HardwareReport report(const QString &profile) const;

    std::optional<QTemporaryDir> m_dir;
    QString m_catalog; // the copy of resources/catalog the recipe edits
};

void TestRecipes::init()
{
    m_dir.emplace();
    QVERIFY(m_dir->isValid());
    m_catalog = m_dir->filePath(u"catalog"_s);
    QVERIFY(QDir().mkpath(m_catalog));
    const QString shipped = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/resources/catalog"_s;
    const QStringList files = QDir(shipped).entryList({u"*.json"_s}, QDir::Files);
    QVERIFY2(files.contains(u"tensorflow.json"_s), qPrintable(shipped));
    for (const QString &name : files)
        QVERIFY(QFile::copy(shipped + u'/' + name, m_catalog + u'/' + name));
}

QJsonObject TestRecipes::readJson(const QString &name) const
{
    QFile file(m_catalog + u'/' + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

void TestRecipes::writeJson(const QString &name, const QJsonObject &object) const
{
    QFile file(m_catalog + u'/' + name);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QVERIFY(file.write(QJsonDocument(object).toJson()) > 0);
}

HardwareReport TestRecipes::report(const QString &profile) const
{
    QFile file(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/solver/"_s + profile + u".json"_s);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing hardware report %s", qPrintable(file.fileName()));
    return HardwareReport::fromJson(QJsonDocument::fromJson(file.readAll()).object());
}

// Recipe (b): a new TensorFlow release is data. Steps 1-3 on a fake 2.99.0 that repeats the
// newest Linux release's tested configuration; the solver then recommends it on a machine whose
// driver allows it, with no line of code changed.
void TestRecipes::addTensorFlowRelease_isPlannedWithNoCodeChange()
{
    const QString fake = u"2.99.0"_s;
    const QString fakeMinor = u"2.99"_s;

    // 1. tensorflow.json releases: one record per OS, with its source.
    QJsonObject tensorflow = readJson(u"tensorflow.json"_s);
    QJsonArray releases = tensorflow.value(u"releases"_s).toArray();
    QJsonObject newestLinux;
    for (const QJsonValue &r : releases) {
        const QJsonObject o = r.toObject();
        if (o.value(u"os"_s).toString() == u"linux"
            && (newestLinux.isEmpty()
                || QVersionNumber::fromString(o.value(u"version"_s).toString())
                    > QVersionNumber::fromString(newestLinux.value(u"version"_s).toString())))
            newestLinux = o;
    }
    QVERIFY(!newestLinux.isEmpty());
    const QString newestMinor = newestLinux.value(u"version"_s).toString().section(u'.', 0, 1);
    QJsonObject added = newestLinux;
    added[u"version"_s] = fake;
    added[u"source"_s] = u"test fixture: the recipe's own release"_s;
    releases.append(added);
    tensorflow[u"releases"_s] = releases;

    // 2. gpu_builds: a record of the release's own architectures, with its source and verified
    // (here the newest verified record's lists, as a release that changes none would have).
    QJsonArray builds = tensorflow.value(u"gpu_builds"_s).toArray();
    QJsonObject newestVerified;
    for (const QJsonValue &b : builds) {
        const QJsonObject o = b.toObject();
        if (o.value(u"verified"_s).toBool() && o.value(u"os"_s).toArray().contains(u"linux"_s)
            && (newestVerified.isEmpty()
                || QVersionNumber::fromString(o.value(u"tf_max"_s).toString())
                    > QVersionNumber::fromString(newestVerified.value(u"tf_max"_s).toString())))
            newestVerified = o;
    }
    QVERIFY(!newestVerified.isEmpty());
    QJsonObject build = newestVerified;
    build[u"tf_min"_s] = fakeMinor;
    build[u"tf_max"_s] = fakeMinor;
    build[u"source"_s] = u"test fixture: the recipe's release's build configuration"_s;
    build.remove(u"note"_s);
    builds.append(build);
    tensorflow[u"gpu_builds"_s] = builds;
    writeJson(u"tensorflow.json"_s, tensorflow);

    // 3. routes.json: route limits that end at the newest release move with it.
    QJsonObject routes = readJson(u"routes.json"_s);
    const std::function<QJsonValue(const QJsonValue &)> moveLimits = [&](const QJsonValue &v) -> QJsonValue {
        if (v.isArray()) {
            QJsonArray a = v.toArray();
            for (qsizetype i = 0; i < a.size(); ++i)
                a[i] = moveLimits(a.at(i));
            return a;
        }
        if (!v.isObject())
            return v;
        QJsonObject o = v.toObject();
        const bool plugin = o.contains(u"broken_from"_s); // a plug-in's own bound is its own fact
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.key() == u"tf_max" && !plugin && it.value().toString() == newestMinor)
                it.value() = fakeMinor;
            else if (it.value().isObject() || it.value().isArray())
                it.value() = moveLimits(it.value());
        }
        return o;
    };
    writeJson(u"routes.json"_s, moveLimits(routes).toObject());

    // The catalog loads as a whole, and the solver plans the new release.
    const auto knowledge = Knowledge::load(m_catalog);
    QVERIFY2(knowledge, qPrintable(knowledge ? QString() : knowledge.error().message));
    const HardwareReport machine = report(u"linux_rtx3060_driver535"_s);
    QVERIFY(!machine.gpus.isEmpty());
    const Solution s = Solver((*knowledge)->catalog, &(*knowledge)->gpus).solve(machine, {});
    QVERIFY2(s.recommended, qPrintable(s.text()));
    QCOMPARE(s.recommended->tensorflow, fake);

    // And the shipped catalog, untouched, still plans its own newest release there.
    const auto shipped = Knowledge::load(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/resources/catalog"_s);
    QVERIFY(shipped);
    const Solution before = Solver((*shipped)->catalog, &(*shipped)->gpus).solve(machine, {});
    QVERIFY(before.recommended);
    QVERIFY2(before.recommended->tensorflow != fake, qPrintable(before.recommended->tensorflow));
}

// Recipe (a): a new doctor cause is a causes.json record and a tflog.json rule that names it,
// with an example line the rule must match.
void TestRecipes::addDoctorCause_isFoundInALog()
{
    const QString code = u"recipe_fixture_cause"_s;
    const QString example = u"E recipe/fixture.cc:1] The recipe's fixture failure happened on device 0"_s;

    // 1. causes.json: code, severity, texts (default summary and fix), source.
    QJsonObject causes = readJson(u"causes.json"_s);
    QJsonArray list = causes.value(u"causes"_s).toArray();
    list.append(QJsonObject{{u"code"_s, code},
                            {u"severity"_s, u"error"_s},
                            {u"texts"_s,
                             QJsonObject{{u"default"_s,
                                          QJsonObject{{u"summary"_s, u"The fixture failure happened."_s},
                                                      {u"fix"_s, u"Follow the fixture's fix."_s}}}}},
                            {u"source"_s, u"test fixture: the recipe's own cause"_s}});
    causes[u"causes"_s] = list;
    writeJson(u"causes.json"_s, causes);

    // 2. tflog.json: a rule with id, pattern, cause, severity, example and source. Rules are
    // tried in order; the new one goes first so that no broader rule takes its line.
    QJsonObject tflog = readJson(u"tflog.json"_s);
    QJsonArray rules = tflog.value(u"rules"_s).toArray();
    rules.prepend(QJsonObject{{u"id"_s, u"recipe_fixture"_s},
                              {u"pattern"_s, u"The recipe's fixture failure happened"_s},
                              {u"cause"_s, code},
                              {u"severity"_s, u"error"_s},
                              {u"example"_s, example},
                              {u"source"_s, u"test fixture"_s}});
    tflog[u"rules"_s] = rules;
    writeJson(u"tflog.json"_s, tflog);

    const auto knowledge = Knowledge::load(m_catalog);
    QVERIFY2(knowledge, qPrintable(knowledge ? QString() : knowledge.error().message));
    const TfLogRule *rule = (*knowledge)->tfLog.match(example);
    QVERIFY(rule);
    QCOMPARE(rule->id, u"recipe_fixture"_s);

    const QList<DoctorFinding> findings =
        TfLogReader((*knowledge)->tfLog, (*knowledge)->causes).read(u"2026-01-01 12:00:00.0: "_s + example);
    bool found = false;
    for (const DoctorFinding &f : findings) {
        if (f.cause == code) {
            found = true;
            QCOMPARE(f.severity, Severity::Error);
        }
    }
    QVERIFY2(found, "the log reader did not name the recipe's cause");
}

QTEST_GUILESS_MAIN(TestRecipes)
#include "test_recipes.moc"
