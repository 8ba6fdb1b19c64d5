// Every command answers --json when it fails: the real tfsetup binary, one row per way a command
// fails (a usage error, a missing or unusable input, a missing confirmation), each checked for
// the JSON error object on stdout, the message on stderr, the exit status, and a run log that
// holds the run. Then the run log's own rules: its header and the rotation at start.

#include "util/runlog.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <optional>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

class TestCliJson final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void failureAnswersJson_data();
    void failureAnswersJson();
    void unknownOptionWithJsonIsUsage_data();
    void unknownOptionWithJsonIsUsage();
    void successOutputUnchanged();
    void textFailure_pointsToANonEmptyLog();
    void runLog_rotatesOwnLogsOnly();
    void runLog_sizeCapAndCurrentKept();
    void runLog_retentionForClean();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
        QString logDir;
    };
    Run tfsetup(const QStringList &arguments) const;

    QTemporaryDir m_home;
    QTemporaryDir m_scratch;
};

void TestCliJson::initTestCase()
{
    QVERIFY(m_home.isValid() && m_scratch.isValid());
    QVERIFY2(QFile::exists(qEnvironmentVariable("TFSETUP_BINARY")), "TFSETUP_BINARY names the built tfsetup");
    QFile notAnEnvironment(m_scratch.filePath(u"plain/readme.txt"_s));
    QVERIFY(QDir().mkpath(m_scratch.filePath(u"plain"_s)));
    QVERIFY(notAnEnvironment.open(QIODevice::WriteOnly));
    notAnEnvironment.write("not an environment\n");
}

TestCliJson::Run TestCliJson::tfsetup(const QStringList &arguments) const
{
    static int runs = 0;
    const QString logDir = m_home.filePath(u"logs-%1"_s.arg(++runs));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"HOME"_s, m_home.path());
    env.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"data"_s));
    env.insert(u"XDG_CONFIG_HOME"_s, m_home.filePath(u"config"_s));
    env.insert(u"XDG_CACHE_HOME"_s, m_home.filePath(u"cache"_s));
    env.insert(u"TFSETUP_LOG_DIR"_s, logDir);
    // No proxy from the machine running the tests: nothing here reaches the network.
    for (const QString &v : {u"http_proxy"_s, u"https_proxy"_s, u"HTTP_PROXY"_s, u"HTTPS_PROXY"_s, u"ALL_PROXY"_s})
        env.remove(v);
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
    if (!p.waitForFinished(120'000))
        p.kill();
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()),
            logDir};
}

void TestCliJson::failureAnswersJson_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("status");

    const QString missing = m_scratch.filePath(u"missing"_s);
    const QString missingJson = m_scratch.filePath(u"missing.json"_s);
    const QString plain = m_scratch.filePath(u"plain"_s);
    const QString aFile = m_scratch.filePath(u"plain/readme.txt"_s);
    const QString data = qEnvironmentVariable("TFSETUP_TEST_DATA");

    QTest::newRow("detect, --root missing")
        << QStringList{u"detect"_s, u"--root"_s, missing, u"--json"_s} << u"root_missing"_s << 2;
    QTest::newRow("detect, --root a file")
        << QStringList{u"detect"_s, u"--root"_s, aFile, u"--json"_s} << u"root_missing"_s << 2;
    QTest::newRow("detect, --os without --root")
        << QStringList{u"detect"_s, u"--os"_s, u"linux"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("plan, --hardware missing")
        << QStringList{u"plan"_s, u"--hardware"_s, missingJson, u"--json"_s} << u"hardware_unreadable"_s << 1;
    QTest::newRow("plan, --hardware not JSON")
        << QStringList{u"plan"_s, u"--hardware"_s, aFile, u"--json"_s} << u"hardware_malformed"_s << 1;
    QTest::newRow("plan, no combination fits")
        << QStringList{u"plan"_s, u"--hardware"_s, data + u"/gpuchoice/linux_kepler_ampere.json"_s,
                       u"--tf"_s, u"0.1"_s,        u"--json"_s}
        << u"no_plan"_s << 1;
    QTest::newRow("plan, unknown --route")
        << QStringList{u"plan"_s, u"--route"_s, u"no-such-route"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("fetch, no URL") << QStringList{u"fetch"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("fetch, not http") << QStringList{u"fetch"_s,    u"ftp://example.org/a"_s, u"--out"_s, missing,
                                                    u"--sha256"_s, QString(64, u'a'),        u"--json"_s}
                                     << u"usage"_s << 2;
    QTest::newRow("install, no --profile") << QStringList{u"install"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("install, profile missing")
        << QStringList{u"install"_s, u"--profile"_s, missingJson, u"--json"_s} << u"profile_unreadable"_s << 1;
    QTest::newRow("install, without --yes") << QStringList{u"install"_s,
                                                           u"--profile"_s,
                                                           data + u"/labprofile/lab.json"_s,
                                                           u"--prefix"_s,
                                                           m_scratch.filePath(u"envs"_s),
                                                           u"--gpus"_s,
                                                           u"all"_s,
                                                           u"--hardware"_s,
                                                           data + u"/gpuchoice/linux_kepler_ampere.json"_s,
                                                           u"--json"_s}
                                            << u"confirmation_needed"_s << 2;
    QTest::newRow("verify, nothing to verify") << QStringList{u"verify"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("verify, --env not an environment")
        << QStringList{u"verify"_s, u"--env"_s, plain, u"--json"_s} << u"environment_unrecognised"_s << 1;
    QTest::newRow("verify, unknown --os")
        << QStringList{u"verify"_s, u"--tf"_s, u"2.15"_s, u"--os"_s, u"beos"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("sources, nothing to resolve") << QStringList{u"sources"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("sources, --plan missing")
        << QStringList{u"sources"_s, u"--plan"_s, missingJson, u"--json"_s} << u"plan_unreadable"_s << 1;
    QTest::newRow("bundle, no --out") << QStringList{u"bundle"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("bundle, --verify missing")
        << QStringList{u"bundle"_s, u"--verify"_s, missing, u"--json"_s} << u"bundle_folder_missing"_s << 1;
    QTest::newRow("bundle, no plan") << QStringList{u"bundle"_s, u"--out"_s, m_scratch.filePath(u"bundle"_s),
                                                    u"--json"_s}
                                     << u"usage"_s << 2;
    QTest::newRow("doctor, --root missing")
        << QStringList{u"doctor"_s, u"--root"_s, missing, u"--json"_s} << u"root_missing"_s << 2;
    QTest::newRow("doctor, --hardware missing")
        << QStringList{u"doctor"_s, u"--hardware"_s, missingJson, u"--json"_s} << u"hardware_unreadable"_s << 1;
    QTest::newRow("repair, no --env") << QStringList{u"repair"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("repair, --root missing")
        << QStringList{u"repair"_s, u"--env"_s, plain, u"--root"_s, missing, u"--json"_s} << u"root_missing"_s << 2;
    QTest::newRow("upgrade, no --env") << QStringList{u"upgrade"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("catalog, no action") << QStringList{u"catalog"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("catalog status, update's option")
        << QStringList{u"catalog"_s, u"status"_s, u"--from"_s, missing, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("list, --root missing")
        << QStringList{u"list"_s, u"--root"_s, missing, u"--json"_s} << u"root_missing"_s << 2;
    QTest::newRow("list, --hardware missing")
        << QStringList{u"list"_s, u"--hardware"_s, missingJson, u"--json"_s} << u"hardware_unreadable"_s << 1;
    QTest::newRow("remove, no --env") << QStringList{u"remove"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("remove, not an environment")
        << QStringList{u"remove"_s, u"--env"_s, plain, u"--yes"_s, u"--json"_s} << u"not_environment"_s << 1;
    QTest::newRow("clean, bad --max-age")
        << QStringList{u"clean"_s, u"--dry-run"_s, u"--max-age"_s, u"soon"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("clean, bad --max-size")
        << QStringList{u"clean"_s, u"--dry-run"_s, u"--max-size"_s, u"big"_s, u"--json"_s} << u"usage"_s << 2;
    QTest::newRow("unknown command") << QStringList{u"no-such-command"_s, u"--json"_s} << u"usage"_s << 2;
}

void TestCliJson::failureAnswersJson()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, code);
    QFETCH(int, status);

    const Run run = tfsetup(arguments);
    const QString seen = u"exit %1\nstdout:\n%2\nstderr:\n%3"_s.arg(run.exitCode).arg(run.out, run.err);
    QCOMPARE(run.exitCode, status);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(run.out.toUtf8(), &parseError);
    QVERIFY2(parseError.error == QJsonParseError::NoError && document.isObject(),
             qPrintable(u"stdout is one JSON object\n"_s + seen));
    const QJsonObject json = document.object();
    QVERIFY2(json.contains(u"ok"_s) && !json.value(u"ok"_s).toBool(), qPrintable(seen));
    const QJsonObject error = json.value(u"error"_s).toObject();
    QVERIFY2(error.contains(u"code"_s) && error.contains(u"message"_s) && error.contains(u"detail"_s),
             qPrintable(seen));
    QVERIFY2(error.value(u"code"_s).toString() == code, qPrintable(seen));
    const QString message = error.value(u"message"_s).toString();
    QVERIFY2(!message.isEmpty(), qPrintable(seen));
    // The message on stderr too, for a person watching a script run.
    QVERIFY2(run.err.contains(message.left(40)), qPrintable(seen));

    // The run's log holds the command line and the error, and exists whenever stderr names it.
    const QFileInfoList logs = QDir(run.logDir).entryInfoList({u"tfsetup-*.log"_s}, QDir::Files);
    QCOMPARE(logs.size(), 1);
    QFile log(logs.first().absoluteFilePath());
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(log.readAll());
    QVERIFY2(text.contains(u"command: "_s) && text.contains(arguments.first()), qPrintable(text));
    QVERIFY2(text.contains(u"error [%1]"_s.arg(code)), qPrintable(text));
}

void TestCliJson::unknownOptionWithJsonIsUsage_data()
{
    QTest::addColumn<QString>("command");
    for (const char *c : {"detect", "plan", "fetch", "install", "verify", "sources", "bundle", "doctor", "repair",
                          "upgrade", "catalog", "list", "remove", "clean", "wizard"})
        QTest::newRow(c) << QString::fromLatin1(c);
}

void TestCliJson::unknownOptionWithJsonIsUsage()
{
    QFETCH(QString, command);
    // The unknown option before --json, and a missing value after it: neither line parses.
    for (const QStringList &arguments :
         {QStringList{command, u"--no-such-option"_s, u"--json"_s}, QStringList{command, u"--json"_s, u"--root"_s}}) {
        const Run run = tfsetup(arguments);
        const QString seen = u"%1: exit %2\nstdout:\n%3\nstderr:\n%4"_s.arg(arguments.join(u' '))
                                 .arg(run.exitCode)
                                 .arg(run.out, run.err);
        QVERIFY2(run.exitCode == 2, qPrintable(seen));
        const QJsonObject json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        QVERIFY2(json.value(u"ok"_s) == QJsonValue(false), qPrintable(seen));
        QVERIFY2(json.value(u"error"_s).toObject().value(u"code"_s).toString() == u"usage", qPrintable(seen));
        QVERIFY2(!json.value(u"error"_s).toObject().value(u"message"_s).toString().isEmpty(), qPrintable(seen));
    }
}

void TestCliJson::successOutputUnchanged()
{
    // A command that succeeds prints its own document, once, and no error object.
    const Run run = tfsetup({u"clean"_s, u"--dry-run"_s, u"--json"_s, u"--cache"_s, m_scratch.filePath(u"cache"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QJsonObject json = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(json.value(u"ok"_s), QJsonValue(true));
    QVERIFY(!json.contains(u"error"_s));
    QCOMPARE(run.out.count(u"\"ok\""_s), 1);
}

void TestCliJson::textFailure_pointsToANonEmptyLog()
{
    const Run run = tfsetup({u"detect"_s, u"--root"_s, m_scratch.filePath(u"missing"_s)});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    static const QRegularExpression named(u"The log of this run is (\\S+)"_s);
    const auto match = named.match(run.err);
    QVERIFY2(match.hasMatch(), qPrintable(run.err));
    const QFileInfo log(match.captured(1));
    QVERIFY2(log.isFile() && log.size() > 0, qPrintable(log.filePath()));
    QFile file(log.filePath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY2(text.contains(u"command: "_s) && text.contains(u"detect --root"_s), qPrintable(text));
    QVERIFY2(text.contains(u"tfsetup "_s + QString::fromLatin1(TFSETUP_VERSION_STRING)), qPrintable(text));
    QVERIFY2(text.contains(u"error [root_missing]"_s), qPrintable(text));
}

namespace {

void writeLog(const QString &path, qint64 bytes, int minutesAgo)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(bytes, 'x'));
    f.close();
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-60LL * minutesAgo), QFileDevice::FileModificationTime));
}

QString logName(int i)
{
    return u"tfsetup-20260101-%1-%2.log"_s.arg(100000 + i).arg(4000 + i);
}

} // namespace

void TestCliJson::runLog_rotatesOwnLogsOnly()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    for (int i = 0; i < 25; ++i)
        writeLog(folder.filePath(logName(i)), 100, 100 - i); // logName(24) is the newest
    // Not tfsetup's: kept whatever their age.
    writeLog(folder.filePath(u"notes.log"_s), 100, 10'000);
    writeLog(folder.filePath(u"tfsetup-mine.log"_s), 100, 10'000);
    QTemporaryDir elsewhere;
    writeLog(elsewhere.filePath(u"target.log"_s), 100, 10'000);
    QVERIFY(QFile::link(elsewhere.filePath(u"target.log"_s), folder.filePath(logName(90))));

    QVERIFY(RunLog::isOwnLogName(logName(1)));
    QVERIFY(!RunLog::isOwnLogName(u"tfsetup-mine.log"_s));
    QVERIFY(!RunLog::isOwnLogName(u"tfsetup-20260101-100000-1.log.bak"_s));

    const QString current = RunLog::start(folder.path());
    QVERIFY(!current.isEmpty());
    RunLog::write("info", u"a line"_s);
    QCOMPARE(RunLog::path(), current);
    RunLog::stop();

    QStringList own;
    for (const QFileInfo &info : RunLog::ownLogs(folder.path()))
        own.append(info.fileName());
    // The newest 20: the run's own and the 19 newest before it.
    QCOMPARE(own.size(), 20);
    QVERIFY(own.contains(QFileInfo(current).fileName()));
    QVERIFY(own.contains(logName(24)) && own.contains(logName(6)));
    QVERIFY(!QFile::exists(folder.filePath(logName(5))) && !QFile::exists(folder.filePath(logName(0))));
    QVERIFY(QFile::exists(folder.filePath(u"notes.log"_s)));
    QVERIFY(QFile::exists(folder.filePath(u"tfsetup-mine.log"_s)));
    // The link is neither counted nor followed: it and what it points to stay.
    QVERIFY(QFileInfo(folder.filePath(logName(90))).isSymLink());
    QVERIFY(QFile::exists(elsewhere.filePath(u"target.log"_s)));

    QFile log(current);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(log.readAll());
    QVERIFY2(text.contains(u"command: "_s) && text.contains(u"a line"_s) && text.contains(u"removed 6 older log(s)"_s),
             qPrintable(text));
}

void TestCliJson::runLog_sizeCapAndCurrentKept()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    for (int i = 0; i < 5; ++i)
        writeLog(folder.filePath(logName(i)), 1000, 100 - i);
    // Three of 1000 bytes fit under 3500; the older two go, the current one stays whatever it holds.
    const LogRetention retention{20, 3500, std::nullopt};
    const QList<QFileInfo> gone = RunLog::expired(folder.path(), retention, folder.filePath(logName(0)));
    QStringList names;
    for (const QFileInfo &g : gone)
        names.append(g.fileName());
    QCOMPARE(names, (QStringList{logName(1)}));
    QCOMPARE(RunLog::rotate(folder.path(), retention), (QStringList{logName(1), logName(0)}));
    QCOMPARE(RunLog::ownLogs(folder.path()).size(), 3);
}

void TestCliJson::runLog_retentionForClean()
{
    // tfsetup clean's numbers on the same rule: beyond the newest 2, only those older than 30 days go.
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    writeLog(folder.filePath(logName(0)), 10, 60 * 24 * 40);
    writeLog(folder.filePath(logName(1)), 10, 60 * 24 * 35);
    writeLog(folder.filePath(logName(2)), 10, 60 * 24 * 3);
    writeLog(folder.filePath(logName(3)), 10, 60 * 24 * 2);
    writeLog(folder.filePath(logName(4)), 10, 60 * 24 * 1);
    const LogRetention retention{2, std::numeric_limits<qint64>::max(), 30};
    QStringList names;
    for (const QFileInfo &g : RunLog::expired(folder.path(), retention))
        names.append(g.fileName());
    QCOMPARE(names, (QStringList{logName(1), logName(0)}));
}

QTEST_GUILESS_MAIN(TestCliJson)
#include "test_cli_json.moc"
