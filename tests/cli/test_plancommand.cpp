#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;

// Runs the real tfsetup binary: `tfsetup plan` is a public interface (lab scripts read its JSON).
class TestPlanCommand : public QObject {
    Q_OBJECT

private slots:
    void json_data();
    void json();
    void text_namesTheRecommendation();
    void unknownRoute_isAUsageError();
    void missingHardwareFile_fails();
    void osOption_withAnotherOsReport_saysWhatItPlans();
    void hardwareWithRoot_isAUsageError();
    void askedRoute_directml_isTheAnswer();

private:
    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    static Run run(const QStringList &arguments);
    static QString profile(const QString &name)
    {
        return qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/solver/"_s + name + u".json"_s;
    }
};

TestPlanCommand::Run TestPlanCommand::run(const QStringList &arguments)
{
    QProcess p;
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), QStringList{u"plan"_s} + arguments);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

void TestPlanCommand::json_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("route"); // empty: no recommendation
    QTest::addColumn<QString>("tensorflow");
    QTest::newRow("linux RTX 3060") << QStringList{u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s)} << 0
                                    << u"linux-pip"_s << u"2.20"_s;
    QTest::newRow("pinned route and TF") << QStringList{u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s),
                                                        u"--route"_s,    u"linux-toolkit"_s,
                                                        u"--tf"_s,       u"2.15"_s}
                                         << 0 << u"linux-toolkit"_s << u"2.15"_s;
    QTest::newRow("--os windows plans the same hardware for Windows")
        << QStringList{u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s), u"--os"_s, u"windows"_s} << 0
        << u"windows-native"_s << u"2.10"_s;
    QTest::newRow("--cpu-only") << QStringList{u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s), u"--cpu-only"_s}
                                << 0 << u"cpu"_s << u"2.21"_s;
    QTest::newRow("no AVX: nothing, exit 1")
        << QStringList{u"--hardware"_s, profile(u"linux_cpu_without_avx"_s)} << 1 << u""_s << u""_s;
    QTest::newRow("--python 3.12 with --tf 2.13: nothing")
        << QStringList{u"--hardware"_s, profile(u"linux_python312_only"_s), u"--tf"_s, u"2.13"_s, u"--python"_s,
                       u"3.12"_s}
        << 1 << u""_s << u""_s;
}

void TestPlanCommand::json()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, route);
    QFETCH(QString, tensorflow);
    const Run r = run(arguments + QStringList{u"--json"_s});
    QCOMPARE(r.exitCode, exitCode);
    QJsonParseError error;
    const QJsonObject doc = QJsonDocument::fromJson(r.out, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, r.out.left(400).constData());
    for (const char *key : {"recommended", "alternatives", "rejected", "actions", "warnings"})
        QVERIFY2(doc.contains(QLatin1String(key)), key);
    const QJsonValue recommended = doc.value(u"recommended"_s);
    if (route.isEmpty()) {
        QVERIFY(recommended.isNull());
        QVERIFY(!doc.value(u"rejected"_s).toArray().isEmpty());
        return;
    }
    QCOMPARE(recommended[u"route"_s].toString(), route);
    QVERIFY2(recommended[u"tensorflow"_s].toString().startsWith(tensorflow + u'.'),
             qPrintable(recommended[u"tensorflow"_s].toString()));
}

void TestPlanCommand::text_namesTheRecommendation()
{
    const Run r = run({u"--hardware"_s, profile(u"windows_gtx1060_old_driver"_s)});
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.contains(u"tensorflow==2.10.*"_s), qPrintable(text));
    QVERIFY2(text.contains(u"452.39"_s), qPrintable(text));
    QVERIFY2(text.contains(u"windows-native"_s), qPrintable(text));
}

void TestPlanCommand::unknownRoute_isAUsageError()
{
    const Run r = run({u"--hardware"_s, profile(u"linux_no_gpu"_s), u"--route"_s, u"tpu"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("linux-pip"));
}

void TestPlanCommand::missingHardwareFile_fails()
{
    const Run r = run({u"--hardware"_s, u"/nonexistent/hardware.json"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("hardware.json"));
}

// `--os windows` with a Linux report plans that hardware for Windows, and says so: the report's
// Python and driver are Linux's, so the Windows plan installs its own and names the driver it needs.
void TestPlanCommand::osOption_withAnotherOsReport_saysWhatItPlans()
{
    const Run r = run({u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s), u"--os"_s, u"windows"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    const QJsonObject best = doc.value(u"recommended"_s).toObject();
    QCOMPARE(best.value(u"route"_s).toString(), u"windows-native"_s);
    QCOMPARE(best.value(u"python_installed"_s).toBool(true), false);
    QStringList actions;
    for (const QJsonValue &a : best.value(u"actions"_s).toArray())
        actions.append(a[u"code"_s].toString());
    QVERIFY2(actions.contains(u"install_driver"_s) && actions.contains(u"install_python"_s),
             qPrintable(actions.join(u' ')));
    QString note;
    for (const QJsonValue &w : doc.value(u"warnings"_s).toArray()) {
        if (w[u"code"_s].toString() == u"os_from_option")
            note = w[u"message"_s].toString();
    }
    QVERIFY2(note.contains(u"Linux"_s) && note.contains(u"Windows"_s) && note.contains(u"--os"_s), qPrintable(note));

    const Run text = run({u"--hardware"_s, profile(u"linux_rtx3060_driver535"_s), u"--os"_s, u"windows"_s});
    QVERIFY2(!QString::fromUtf8(text.out).contains(u"installed Python"_s), text.out.constData());
}

void TestPlanCommand::hardwareWithRoot_isAUsageError()
{
    const Run r = run({u"--hardware"_s, profile(u"linux_no_gpu"_s), u"--root"_s,
                       qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/fixtures/linux-cuda118/root"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--root"), r.err.constData());
}

// The route the student asked for is the answer even when it is experimental; the text never says
// that nothing fits, nor points at an empty list of rejections.
void TestPlanCommand::askedRoute_directml_isTheAnswer()
{
    const Run r = run({u"--hardware"_s, profile(u"windows_rtx3060_cuda124"_s), u"--route"_s, u"directml"_s});
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.contains(u"tensorflow-cpu==2.10.*"_s), qPrintable(text));
    QVERIFY2(!text.contains(u"No TensorFlow combination fits"_s), qPrintable(text));
    QVERIFY2(!text.contains(u"say why"_s), qPrintable(text));
}

QTEST_GUILESS_MAIN(TestPlanCommand)
#include "test_plancommand.moc"
