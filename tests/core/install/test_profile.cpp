// Lab profiles: the shipped example parses, folders expand from the target system's environment,
// broken profiles are refused with a message that says what is missing.

#include "install/labprofile.h"
#include "support/fixturetree.h"

#include <QJsonDocument>
#include <QTest>

using namespace tfsetup;
using core::LabProfile;
using core::OsFamily;

class TestProfile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exampleParses();
    void expands_data();
    void expands();
    void refusesIncomplete_data();
    void refusesIncomplete();
    void findsTheInterpreter();
    void jupyterChoice_data();
    void jupyterChoice();
};

void TestProfile::exampleParses()
{
    const auto p = LabProfile::load(QStringLiteral(":/resources/profiles/example-lab.json"));
    QVERIFY2(p, qPrintable(p ? QString() : p.error().detail));
    QCOMPARE(p->environment, QStringLiteral("tf2.15-lab"));
    QCOMPARE(p->route, QStringLiteral("linux-pip"));
    QVERIFY(!p->requirements.isEmpty());
    QCOMPARE(p->indexUrls.size(), 1);
    QCOMPARE(p->jupyter, QStringLiteral("lab"));
}

void TestProfile::jupyterChoice_data()
{
    QTest::addColumn<QByteArray>("value"); // the "jupyter" member, empty: left out
    QTest::addColumn<QString>("frontEnd");
    QTest::addColumn<QString>("error");
    QTest::newRow("left out: JupyterLab") << QByteArray() << QStringLiteral("lab") << QString();
    QTest::newRow("true: JupyterLab") << QByteArray("true") << QStringLiteral("lab") << QString();
    QTest::newRow("false: the kernel only") << QByteArray("false") << QString() << QString();
    QTest::newRow("the classic notebook") << QByteArray("\"notebook\"") << QStringLiteral("notebook") << QString();
    QTest::newRow("jupyter server alone") << QByteArray("\"server\"") << QStringLiteral("server") << QString();
    QTest::newRow("unknown name") << QByteArray("\"jupyter-lab\"") << QString()
                                  << QStringLiteral("profile_jupyter_unknown");
}

void TestProfile::jupyterChoice()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, frontEnd);
    QFETCH(QString, error);
    const QByteArray json = R"({"schema": 1, "environment": "e", "installFolder": "/x",
                                "plan": {"route": "linux-pip", "requirements": ["tensorflow==2.15.1"]})"
        + (value.isEmpty() ? QByteArray() : QByteArray(R"(, "jupyter": )") + value) + "}";
    const auto p = LabProfile::fromJson(QJsonDocument::fromJson(json).object(), QStringLiteral("lab.json"));
    if (!error.isEmpty()) {
        QVERIFY(!p);
        QCOMPARE(p.error().code, error);
        QVERIFY(p.error().message.contains(QStringLiteral("\"notebook\"")));
        return;
    }
    QVERIFY2(p, qPrintable(p ? QString() : p.error().message));
    QCOMPARE(p->jupyter, frontEnd);
}

void TestProfile::expands_data()
{
    QTest::addColumn<int>("os");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expanded");
    QTest::newRow("linux home") << int(OsFamily::Linux) << QStringLiteral("${HOME}/tf-envs")
                                << QStringLiteral("/home/student/tf-envs");
    QTest::newRow("linux tilde") << int(OsFamily::Linux) << QStringLiteral("~/tf-envs")
                                 << QStringLiteral("/home/student/tf-envs");
    QTest::newRow("windows profile, backslashes") << int(OsFamily::Windows) << QStringLiteral("${USERPROFILE}\\tf-envs")
                                                  << QStringLiteral("C:/Users/student/tf-envs");
    QTest::newRow("unknown variable is empty")
        << int(OsFamily::Linux) << QStringLiteral("/srv${NOPE}/tf") << QStringLiteral("/srv/tf");
}

void TestProfile::expands()
{
    QFETCH(int, os);
    QFETCH(QString, text);
    QFETCH(QString, expanded);
    test::FixtureTree tree;
    QVERIFY(tree.writeEnv({{QStringLiteral("HOME"), QStringLiteral("/home/student")},
                           {QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")}}));
    const auto view = tree.open(OsFamily(os));
    QCOMPARE(LabProfile::expand(*view, text), expanded);
}

void TestProfile::refusesIncomplete_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("code");
    QTest::newRow("other schema") << QByteArray(R"({"schema": 2})") << QStringLiteral("profile_schema");
    QTest::newRow("no environment") << QByteArray(
        R"({"schema": 1, "installFolder": "/x", "plan": {"route": "linux-pip", "requirements": ["t"]}})")
                                    << QStringLiteral("profile_incomplete");
    QTest::newRow("environment with a slash") << QByteArray(
        R"({"schema": 1, "environment": "../x", "installFolder": "/x", "plan": {"route": "linux-pip", "requirements": ["t"]}})")
                                              << QStringLiteral("profile_incomplete");
    QTest::newRow("no requirements") << QByteArray(
        R"({"schema": 1, "environment": "e", "installFolder": "/x", "plan": {"route": "linux-pip"}})")
                                     << QStringLiteral("profile_incomplete");
}

void TestProfile::refusesIncomplete()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, code);
    const auto p = LabProfile::fromJson(QJsonDocument::fromJson(json).object(), QStringLiteral("lab.json"));
    QVERIFY(!p);
    QCOMPARE(p.error().code, code);
    QVERIFY(!p.error().message.isEmpty());
}

void TestProfile::findsTheInterpreter()
{
    test::FixtureTree tree;
    QVERIFY(tree.write(QStringLiteral("usr/bin/python3.11"), "#!"));
    QVERIFY(tree.writeEnv({{QStringLiteral("HOME"), QStringLiteral("/home/student")},
                           {QStringLiteral("PATH"), QStringLiteral("/usr/bin")}}));
    const auto view = tree.open(OsFamily::Linux);
    auto p = LabProfile::load(QStringLiteral(":/resources/profiles/example-lab.json"));
    QVERIFY(p);
    const auto spec = p->toSpec(*view);
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
    QCOMPARE(spec->pythonInterpreter, QStringLiteral("/usr/bin/python3.11"));
    QCOMPARE(spec->environmentPath(), QStringLiteral("/home/student/tf-envs/tf2.15-lab"));
    // The profile's indexes are its network settings', asked in its order.
    QCOMPARE(p->networkSettings(*view).pypiIndexes, p->indexUrls);
    QCOMPARE(p->toSpec(*view, QStringLiteral("/opt/labs"))->prefix, QStringLiteral("/opt/labs"));
    p->python = QStringLiteral("3.99");
    QVERIFY(tree.writeEnv({{QStringLiteral("HOME"), QStringLiteral("/home/student")},
                           {QStringLiteral("PATH"), QStringLiteral("/nowhere")}}));
    const auto none = p->toSpec(*tree.open(OsFamily::Linux));
    QVERIFY(!none);
    QCOMPARE(none.error().code, QStringLiteral("python_missing"));
}

QTEST_GUILESS_MAIN(TestProfile)
#include "test_profile.moc"
