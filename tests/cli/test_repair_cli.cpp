// `tfsetup repair --env DIR [--dry-run] [--json]`: an environment installed by `tfsetup install`
// (libraries and launchers only) loses a launcher; the dry run names it and changes nothing, the
// repair writes it back and exits 0; a folder without environment.json fails with advice.

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestRepairCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void dryRunThenRepair();
    void withoutEnvIsAUsageError();
    void folderWithoutRecordFails();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Run tfsetup(const QStringList &arguments)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
        p.waitForFinished(60000);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    static QByteArray digest(const QString &path)
    {
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
    }
    QTemporaryDir m_home;
    QString m_env;
};

void TestRepairCli::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY"))
        QSKIP("TFSETUP_BINARY is not set (run through ctest)");
    const QString profile = m_home.filePath(QStringLiteral("lab.json"));
    QFile f(profile);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": 1, "title": "Repair CLI test", "environment": "tf-repair", "installFolder": "${HOME}/envs",
                "interpreter": "none", "plan": {"route": "linux-pip", "tensorflow": "2.15.1"},
                "kernel": {"name": "tf-repair", "displayName": "TF repair"}})");
    f.close();
    const Run install = tfsetup(
        {QStringLiteral("install"), QStringLiteral("--profile"), profile, QStringLiteral("--yes")});
    QVERIFY2(install.exitCode == 0, qPrintable(install.out + install.err));
    m_env = m_home.filePath(QStringLiteral("envs/tf-repair"));
    QVERIFY(QFile::exists(m_env + QStringLiteral("/environment.json")));
}

void TestRepairCli::dryRunThenRepair()
{
    const QString launcher = m_env + QStringLiteral("/start-python");
    const QByteArray installed = digest(launcher);
    QVERIFY(QFile::remove(launcher));

    const Run dry = tfsetup({QStringLiteral("repair"), QStringLiteral("--env"), m_env, QStringLiteral("--dry-run"),
                             QStringLiteral("--json")});
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.out + dry.err));
    const QJsonObject planned = QJsonDocument::fromJson(dry.out.toUtf8()).object();
    QVERIFY(planned.value(QStringLiteral("dry_run")).toBool());
    const QJsonArray before = planned.value(QStringLiteral("before")).toArray();
    QCOMPARE(before.size(), 1);
    QCOMPARE(before.first().toObject().value(QStringLiteral("path")).toString(), QStringLiteral("start-python"));
    QCOMPARE(before.first().toObject().value(QStringLiteral("fix")).toString(), QStringLiteral("regenerate"));
    QVERIFY(!QFile::exists(launcher));
    QVERIFY(!QFile::exists(m_env + QStringLiteral("/logs/repair.log")));

    const Run fixed = tfsetup(
        {QStringLiteral("repair"), QStringLiteral("--env"), m_env, QStringLiteral("--no-verify")});
    QVERIFY2(fixed.exitCode == 0, qPrintable(fixed.out + fixed.err));
    QVERIFY(fixed.out.contains(QStringLiteral("start-python")));
    QCOMPARE(digest(launcher), installed);
    QVERIFY(QFileInfo(launcher).isExecutable());

    const Run again = tfsetup({QStringLiteral("repair"), QStringLiteral("--env"), m_env, QStringLiteral("--no-verify"),
                               QStringLiteral("--json")});
    QCOMPARE(again.exitCode, 0);
    const QJsonObject clean = QJsonDocument::fromJson(again.out.toUtf8()).object();
    QVERIFY(clean.value(QStringLiteral("before")).toArray().isEmpty());
    QVERIFY(clean.value(QStringLiteral("healthy")).toBool());
}

void TestRepairCli::withoutEnvIsAUsageError()
{
    const Run r = tfsetup({QStringLiteral("repair")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QStringLiteral("--env")));
}

void TestRepairCli::folderWithoutRecordFails()
{
    const Run r = tfsetup({QStringLiteral("repair"), QStringLiteral("--env"), m_home.path(), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject error =
        QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("not_environment"));
}

QTEST_GUILESS_MAIN(TestRepairCli)
#include "test_repair_cli.moc"
