#include "sources/pypi.h"
#include "sources/resolver.h"
#include "sources/wheelcheck.h"

#include "support/coroutinetest.h"
#include "support/loopbackserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;

namespace {

// The shape of PyPI's JSON API "urls" entries (pypi/warehouse docs/user/api/json.md); the file
// names follow PEP 427. The digests are placeholders: only the tags are under test.
QJsonObject release(const QStringList &filenames, const QString &yanked = {})
{
    QJsonArray urls;
    for (const QString &name : filenames) {
        urls.append(QJsonObject{{u"filename"_s, name},
                                {u"packagetype"_s, name.endsWith(u".whl"_s) ? u"bdist_wheel"_s : u"sdist"_s},
                                {u"url"_s, QString(u"https://files.example/"_s + name)},
                                {u"digests"_s, QJsonObject{{u"sha256"_s, QString(64, u'a')}}},
                                {u"size"_s, 10},
                                {u"yanked"_s, name == yanked}});
    }
    return QJsonObject{{u"urls"_s, urls}};
}

const QStringList tf210{
    u"tensorflow-2.10.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"_s,
    u"tensorflow-2.10.0-cp310-cp310-win_amd64.whl"_s,
    u"tensorflow-2.10.0-cp39-cp39-win_amd64.whl"_s,
    u"tensorflow-2.10.0-cp310-cp310-macosx_10_14_x86_64.whl"_s,
    u"tensorflow-2.10.0.tar.gz"_s,
};

// TensorFlow 2.10.1's CPython wheels were cp37 to cp310 (the last native-Windows GPU release);
// file names as PEP 427 spells them.
QStringList tf2101Wheels()
{
    QStringList names;
    for (const char *cp : {"cp37", "cp38", "cp39", "cp310"}) {
        const QString tag = QString::fromLatin1(cp);
        names.append(u"tensorflow-2.10.1-%1-%1-win_amd64.whl"_s.arg(tag));
        names.append(u"tensorflow-2.10.1-%1-%1-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"_s.arg(tag));
    }
    names.append(u"tensorflow-2.10.1.tar.gz"_s);
    return names;
}

QByteArray json(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// The project document: "releases" keyed by version, each the list of that release's files.
QJsonObject project(const QList<std::pair<QString, QJsonObject>> &releases)
{
    QJsonObject map;
    for (const auto &[version, release] : releases)
        map.insert(version, release.value(u"urls"_s));
    return QJsonObject{{u"info"_s, QJsonObject{{u"name"_s, u"tensorflow"_s}}}, {u"releases"_s, map}};
}

ResolveRequest windowsRequest(const QString &python, const QString &requirement)
{
    ResolveRequest r;
    r.route = u"windows-native"_s;
    r.tensorflow = u"2.10.1"_s;
    r.os = u"windows"_s;
    r.python = python;
    r.requirement = requirement;
    return r;
}

ArtifactList listWithWheelhouse(const QString &requirement)
{
    ArtifactList list;
    Artifact a;
    a.name = u"tensorflow"_s;
    a.kind = u"wheelhouse"_s;
    a.requirement = requirement;
    list.artifacts.append(a);
    return list;
}

} // namespace

class TestSourcesPypi : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wheelsFor_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("os");
        QTest::addColumn<int>("matching");
        QTest::newRow("linux 3.10: the manylinux wheel") << tf210 << u"3.10"_s << u"linux"_s << 1;
        QTest::newRow("windows 3.9") << tf210 << u"3.9"_s << u"windows"_s << 1;
        QTest::newRow("windows 3.11: none, warn early") << tf210 << u"3.11"_s << u"windows"_s << 0;
        QTest::newRow("pure wheel fits everywhere")
            << QStringList{u"absl_py-2.1.0-py3-none-any.whl"_s} << u"3.12"_s << u"windows"_s << 1;
        QTest::newRow("aarch64 is not x86_64")
            << QStringList{u"tensorflow-2.16.1-cp311-cp311-manylinux_2_17_aarch64.manylinux2014_aarch64.whl"_s}
            << u"3.11"_s << u"linux"_s << 0;
        QTest::newRow("only an sdist") << QStringList{u"tensorflow-2.10.0.tar.gz"_s} << u"3.10"_s << u"linux"_s << 0;
        QTest::newRow("build tag") << QStringList{u"pkg-1.0-1-cp310-cp310-win_amd64.whl"_s} << u"3.10"_s << u"windows"_s
                                   << 1;
    }

    void wheelsFor()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, python);
        QFETCH(QString, os);
        QFETCH(int, matching);
        const WheelAvailability result = tfsetup::core::wheelsFor(release(files), python, os);
        QCOMPARE(result.matching.size(), matching);
        QCOMPARE(result.any(), matching > 0);
        for (const PypiFile &f : result.matching)
            QCOMPARE(f.sha256.size(), 64);
    }

    void yankedWheels_doNotCount()
    {
        const QString wheel = u"tensorflow-2.10.0-cp310-cp310-win_amd64.whl"_s;
        const WheelAvailability result = tfsetup::core::wheelsFor(release({wheel}, wheel), u"3.10"_s, u"windows"_s);
        QCOMPARE(result.wheels.size(), 1);
        QVERIFY(!result.any());
    }

    void wheelPythons_perOperatingSystem()
    {
        QCOMPARE(wheelPythons(release(tf2101Wheels()), u"windows"_s),
                 (QStringList{u"3.7"_s, u"3.8"_s, u"3.9"_s, u"3.10"_s}));
        QCOMPARE(wheelPythons(release(tf210), u"windows"_s), (QStringList{u"3.9"_s, u"3.10"_s}));
        QCOMPARE(wheelPythons(release(tf210), u"linux"_s), QStringList{u"3.10"_s});
        const QString yanked = u"tensorflow-2.10.0-cp39-cp39-win_amd64.whl"_s;
        QCOMPARE(wheelPythons(release(tf210, yanked), u"windows"_s), QStringList{u"3.10"_s});
    }

    void newestRelease_finalAndNotYanked()
    {
        const QString only = u"tensorflow-2.10.2-cp310-cp310-win_amd64.whl"_s;
        const QJsonObject doc = project({{u"2.10.0"_s, release(tf210)},
                                         {u"2.10.1"_s, release(tf2101Wheels())},
                                         {u"2.10.2"_s, release({only}, only)}, // every file yanked
                                         {u"2.10.3rc0"_s, release(tf2101Wheels())},
                                         {u"2.11.0"_s, release(tf2101Wheels())},
                                         {u"2.1.0"_s, release(tf2101Wheels())}});
        QCOMPARE(newestRelease(doc, u"2.10"_s), u"2.10.1"_s);
        QCOMPARE(newestRelease(doc, u"2.1"_s), u"2.1.0"_s);
        QCOMPARE(newestRelease(doc, u"2.12"_s), QString());
        QCOMPARE(releaseOf(doc, u"2.10.1"_s).value(u"urls"_s).toArray().size(), tf2101Wheels().size());
    }

    void wheelQuery_data()
    {
        QTest::addColumn<QString>("requirement");
        QTest::addColumn<bool>("readable");
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("minor range") << u"tensorflow==2.10.*"_s << true << u"tensorflow"_s << QString() << u"2.10"_s;
        QTest::newRow("extras") << u"tensorflow[and-cuda]==2.17.*"_s << true << u"tensorflow"_s << QString()
                                << u"2.17"_s;
        QTest::newRow("exact pin, old package name")
            << u"tensorflow-gpu==2.10.0"_s << true << u"tensorflow-gpu"_s << u"2.10.0"_s << QString();
        QTest::newRow("normalized name") << u"TensorFlow_CPU == 2.10.*"_s << true << u"tensorflow-cpu"_s << QString()
                                         << u"2.10"_s;
        QTest::newRow("other operator") << u"tensorflow>=2.10,<2.11"_s << false << QString() << QString() << QString();
        QTest::newRow("marker") << u"tensorflow==2.10.* ; sys_platform == 'win32'"_s << false << QString() << QString()
                                << QString();
        QTest::newRow("empty") << QString() << false << QString() << QString() << QString();
    }

    void wheelQuery()
    {
        QFETCH(QString, requirement);
        QFETCH(bool, readable);
        QFETCH(QString, project);
        QFETCH(QString, version);
        QFETCH(QString, prefix);
        const auto q = WheelQuery::fromRequirement(requirement);
        QCOMPARE(q.has_value(), readable);
        if (!q)
            return;
        QCOMPARE(q->project, project);
        QCOMPARE(q->version, version);
        QCOMPARE(q->prefix, prefix);
    }

    void jsonBase()
    {
        QCOMPARE(WheelCheck::jsonBase(QUrl(u"https://pypi.org/simple/"_s)), QUrl(u"https://pypi.org/pypi"_s));
        QCOMPARE(WheelCheck::jsonBase(QUrl(u"https://pypi.org/simple"_s)), QUrl(u"https://pypi.org/pypi"_s));
        QCOMPARE(WheelCheck::jsonBase(QUrl(u"http://127.0.0.1:8080/"_s)), QUrl(u"http://127.0.0.1:8080/pypi"_s));
    }

    // The JSON API on loopback, as PyPI serves it (pypi/warehouse docs/user/api/json.md).
    void check_data()
    {
        QTest::addColumn<QString>("requirement");
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("os");
        QTest::addColumn<bool>("warns");
        QTest::addColumn<QByteArray>("asked");
        QTest::newRow("range, Python 3.12 on Windows: warn")
            << u"tensorflow==2.10.*"_s << u"3.12"_s << u"windows"_s << true << QByteArray("/pypi/tensorflow/json");
        QTest::newRow("range, Python 3.10: fine")
            << u"tensorflow==2.10.*"_s << u"3.10.11"_s << u"windows"_s << false << QByteArray("/pypi/tensorflow/json");
        QTest::newRow("exact pin, release document") << u"tensorflow==2.10.1"_s << u"3.12"_s << u"windows"_s << true
                                                     << QByteArray("/pypi/tensorflow/2.10.1/json");
        QTest::newRow("exact pin, Linux 3.9: fine")
            << u"tensorflow==2.10.1"_s << u"3.9"_s << u"linux"_s << false << QByteArray("/pypi/tensorflow/2.10.1/json");
        QTest::newRow("yanked cp311 wheel does not count")
            << u"tensorflow==2.10.*"_s << u"3.11"_s << u"windows"_s << true << QByteArray("/pypi/tensorflow/json");
        QTest::newRow("no matching release")
            << u"tensorflow==2.99.*"_s << u"3.10"_s << u"windows"_s << true << QByteArray("/pypi/tensorflow/json");
    }

    void check()
    {
        QFETCH(QString, requirement);
        QFETCH(QString, python);
        QFETCH(QString, os);
        QFETCH(bool, warns);
        QFETCH(QByteArray, asked);
        QStringList files = tf2101Wheels();
        const QString yanked = u"tensorflow-2.10.1-cp311-cp311-win_amd64.whl"_s;
        files.append(yanked);
        const QJsonObject tf2101 = release(files, yanked);
        LoopbackServer server;
        QVERIFY(server.start());
        server.route(
            "/pypi/tensorflow/json",
            Response::bytes(json(project({{u"2.10.0"_s, release(tf210)}, {u"2.10.1"_s, tf2101}})), "application/json"));
        server.route("/pypi/tensorflow/2.10.1/json", Response::bytes(json(tf2101), "application/json"));

        ArtifactList list = listWithWheelhouse(requirement);
        WheelCheckOptions options;
        options.pypiOrigin = server.url(u"/simple"_s);
        ResolveRequest request = windowsRequest(python, requirement);
        request.os = os;
        QVERIFY(tfsetup::test::awaitTask(WheelCheck::run(request, options, &list)));
        QCOMPARE(server.hits(asked), 1);
        QCOMPARE(list.hasWarning(u"no_wheel"_s), warns);
        QVERIFY2(list.artifacts.first().note.isEmpty(), qPrintable(list.artifacts.first().note));
        // A wheel that fits gives the Download page its size; none leaves the size unknown.
        QCOMPARE(list.artifacts.first().size, warns ? qint64(-1) : qint64(10));
    }

    void check_namesPythonAndOsAndTheWheelsThatExist()
    {
        LoopbackServer server;
        QVERIFY(server.start());
        server.route("/pypi/tensorflow/json",
                     Response::bytes(json(project({{u"2.10.1"_s, release(tf2101Wheels())}})), "application/json"));
        ArtifactList list = listWithWheelhouse(u"tensorflow==2.10.*"_s);
        WheelCheckOptions options;
        options.pypiOrigin = server.url(u"/simple/"_s);
        QVERIFY(tfsetup::test::awaitTask(
            WheelCheck::run(windowsRequest(u"3.12"_s, u"tensorflow==2.10.*"_s), options, &list)));
        QCOMPARE(list.warnings.size(), 1);
        const QString message = list.warnings.first().message;
        QVERIFY2(message.contains(u"2.10.1"_s) && message.contains(u"Python 3.12"_s) && message.contains(u"Windows"_s)
                     && message.contains(u"3.7, 3.8, 3.9, 3.10"_s) && message.contains(u"Choose Python 3.10"_s),
                 qPrintable(message));
    }

    void check_noWheelForTheOperatingSystemAtAll()
    {
        LoopbackServer server;
        QVERIFY(server.start());
        const QStringList linuxOnly{u"tensorflow-2.12.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"_s};
        server.route("/pypi/tensorflow-gpu/2.12.0/json", Response::bytes(json(release(linuxOnly)), "application/json"));
        ArtifactList list = listWithWheelhouse(u"tensorflow-gpu==2.12.0"_s);
        WheelCheckOptions options;
        options.pypiOrigin = server.url(u"/simple"_s);
        QVERIFY(tfsetup::test::awaitTask(
            WheelCheck::run(windowsRequest(u"3.10"_s, u"tensorflow-gpu==2.12.0"_s), options, &list)));
        QVERIFY(list.hasWarning(u"no_wheel"_s));
        QVERIFY2(list.warnings.first().message.contains(u"no wheel for Windows"_s),
                 qPrintable(list.warnings.first().message));
    }

    // A mirror or server without the JSON API, one that never answers, or an answer that is not
    // the API's: no warning, the resolve goes on, and the wheelhouse says the check was not made.
    void check_unanswered_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("404") << 0;
        QTest::newRow("timeout") << 1;
        QTest::newRow("html page") << 2;
        QTest::newRow("refused") << 3;
    }

    void check_unanswered()
    {
        QFETCH(int, kind);
        LoopbackServer server;
        QVERIFY(server.start());
        if (kind == 1)
            server.route("/pypi/tensorflow/json",
                         Response::bytes("{}", "application/json").delayHeaders(std::chrono::seconds(5)));
        if (kind == 2)
            server.route("/pypi/tensorflow/json", Response::htmlErrorPage());
        QUrl origin = server.url(u"/simple"_s);
        if (kind == 3) {
            auto gone = std::make_unique<LoopbackServer>();
            QVERIFY(gone->start());
            origin = gone->url(u"/simple"_s); // nothing listens there any more
        }
        ArtifactList list = listWithWheelhouse(u"tensorflow==2.10.*"_s);
        WheelCheckOptions options;
        options.pypiOrigin = origin;
        options.timeout = std::chrono::milliseconds(300);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(tfsetup::test::awaitTask(
            WheelCheck::run(windowsRequest(u"3.12"_s, u"tensorflow==2.10.*"_s), options, &list)));
        QVERIFY(clock.elapsed() < 4000);
        QVERIFY(list.warnings.isEmpty());
        QVERIFY2(list.artifacts.first().note.contains(u"not checked"_s), qPrintable(list.artifacts.first().note));
    }

    void check_skippedOffline()
    {
        LoopbackServer server;
        QVERIFY(server.start());
        QTemporaryDir bundle;
        QVERIFY(bundle.isValid());
        ArtifactList list = listWithWheelhouse(u"tensorflow==2.10.*"_s);
        WheelCheckOptions options;
        options.pypiOrigin = server.url(u"/simple"_s);
        options.mirrors.add(Mirror{u"nvidia"_s, QUrl::fromLocalFile(bundle.path())});
        QVERIFY(tfsetup::test::awaitTask(
            WheelCheck::run(windowsRequest(u"3.12"_s, u"tensorflow==2.10.*"_s), options, &list)));
        QCOMPARE(server.requests().size(), 0);
        QVERIFY(list.warnings.isEmpty());
    }

    // Through the resolver: the "pypi" origin, overridden as labs and tests do, is where the JSON
    // API is asked; the warning is in the list before anything downloads.
    void resolver_warnsInTheList()
    {
        LoopbackServer server;
        QVERIFY(server.start());
        server.route("/pypi/tensorflow/json",
                     Response::bytes(json(project({{u"2.10.1"_s, release(tf2101Wheels())}})), "application/json"));
        auto catalog = SourceCatalog::load();
        QVERIFY(catalog);
        ArtifactResolver resolver(*catalog, MirrorSet());
        resolver.setOriginBase(u"pypi"_s, server.url(u"/simple"_s));
        ResolveRequest r;
        r.route = u"linux-pip"_s;
        r.tensorflow = u"2.10.1"_s;
        r.os = u"linux"_s;
        r.python = u"3.12"_s;
        r.requirement = u"tensorflow==2.10.*"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list);
        QVERIFY(list->ok());
        QVERIFY((*list)->hasWarning(u"no_wheel"_s));
        QCOMPARE(server.hits("/pypi/tensorflow/json"), 1);
    }

    // A lab's own index (not a public mirror preset) is asked itself: such a machine may not
    // reach pypi.org, and the lab's index is what pip installs from. A preset still asks pypi.org.
    void resolver_asksALabsOwnIndex()
    {
        LoopbackServer lab;
        QVERIFY(lab.start());
        lab.route("/pypi/tensorflow/2.10.1/json", Response::bytes(json(release(tf2101Wheels())), "application/json"));
        auto catalog = SourceCatalog::load();
        QVERIFY(catalog);
        MirrorSet mirrors;
        auto index = MirrorSet::parse(u"pypi="_s + lab.url(u"/simple/"_s).toString(), &*catalog);
        QVERIFY(index);
        mirrors.add(*index);
        ArtifactResolver resolver(*catalog, mirrors);
        ResolveRequest r;
        r.route = u"linux-pip"_s;
        r.tensorflow = u"2.10.1"_s;
        r.os = u"linux"_s;
        r.python = u"3.12"_s;
        r.requirement = u"tensorflow==2.10.1"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        QVERIFY((*list)->hasWarning(u"no_wheel"_s));
        QCOMPARE(lab.hits("/pypi/tensorflow/2.10.1/json"), 1);
    }

    // "pypi-json" moves only the JSON API; pip's index stays where it was.
    void resolver_jsonApiOverride()
    {
        LoopbackServer server;
        QVERIFY(server.start());
        server.route("/api/tensorflow/2.10.1/json", Response::bytes(json(release(tf2101Wheels())), "application/json"));
        auto catalog = SourceCatalog::load();
        QVERIFY(catalog);
        ArtifactResolver resolver(*catalog, MirrorSet());
        resolver.setOriginBase(u"pypi-json"_s, server.url(u"/api/"_s));
        ResolveRequest r;
        r.route = u"linux-pip"_s;
        r.tensorflow = u"2.10.1"_s;
        r.os = u"linux"_s;
        r.python = u"3.12"_s;
        r.requirement = u"tensorflow==2.10.1"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(r));
        QVERIFY(list && list->ok());
        QVERIFY((*list)->hasWarning(u"no_wheel"_s));
        QCOMPARE(server.hits("/api/tensorflow/2.10.1/json"), 1);
        QCOMPARE((*list)->find(u"tensorflow"_s)->indexUrl, u"https://pypi.org/simple"_s);
    }

    // `tfsetup sources` shows the warning in its text and JSON output.
    void command_showsTheWarning_data()
    {
        QTest::addColumn<bool>("asJson");
        QTest::newRow("json") << true;
        QTest::newRow("text") << false;
    }

    void command_showsTheWarning()
    {
        QFETCH(bool, asJson);
        LoopbackServer server;
        QVERIFY(server.start());
        server.route("/pypi/tensorflow/json",
                     Response::bytes(json(project({{u"2.10.1"_s, release(tf2101Wheels())}})), "application/json"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile plan(dir.filePath(u"plan.json"_s));
        QVERIFY(plan.open(QIODevice::WriteOnly));
        plan.write(R"({"route": "linux-pip", "tensorflow": "2.10.1", "os": "linux", "python": "3.12",
                       "python_installed": true, "requirement": "tensorflow==2.10.*"})");
        plan.close();
        QStringList arguments{u"sources"_s, u"--plan"_s, plan.fileName(), u"--origin"_s,
                              u"pypi="_s + server.url(u"/simple"_s).toString()};
        if (asJson)
            arguments.append(u"--json"_s);
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        if (asJson) {
            const QJsonArray warnings = QJsonDocument::fromJson(out).object().value(u"warnings"_s).toArray();
            QCOMPARE(warnings.size(), 1);
            QCOMPARE(warnings.first().toObject().value(u"code"_s).toString(), u"no_wheel"_s);
        } else {
            QVERIFY2(out.contains("warning: tensorflow 2.10.1 has no wheel for Python 3.12 on Linux"), out.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestSourcesPypi)
#include "test_sources_pypi.moc"
