// `tfsetup install --profile … [--gpus LIST]` on a machine with a Kepler (too old for TensorFlow
// 2.15) beside an Ampere: by default the launchers and the kernel pin the Ampere, the output says
// why the Kepler is left out; `--gpus all` pins nothing; a GPU the machine lacks or TensorFlow
// cannot use is refused; the record keeps the choice and repair writes it again.

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestInstallGpus final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void byDefault_pinsTheUsableGpu();
    void all_pinsNothing();
    void theProfileChooses();
    void refused_data();
    void refused();
    void withoutYes_saysWhichGpus();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Run tfsetup(const QString &command, const QStringList &arguments)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), QStringList{command} + arguments);
        p.waitForFinished(120000);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    // Libraries and launchers only (no Python): what the GPU choice changes, fast.
    QString writeProfile(const QString &name, const QString &gpus = {})
    {
        const QString path = m_home.filePath(name + QStringLiteral(".json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(R"({"schema": 1, "title": "GPU test", "environment": ")" + name.toUtf8()
                + R"(", "installFolder": "${HOME}/envs", "interpreter": "none",
                    "plan": {"route": "linux-pip", "tensorflow": "2.15.1"},
                    "kernel": {"name": ")"
                + name.toUtf8() + R"(", "displayName": "TF GPUs"})"
                + (gpus.isEmpty() ? QByteArray() : ", \"gpus\": " + gpus.toUtf8()) + "}");
        return path;
    }
    QString environment(const QString &name) const { return m_home.filePath(QStringLiteral("envs/") + name); }
    QString read(const QString &path) const
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
    QJsonObject kernelEnv(const QString &name) const
    {
        return QJsonDocument::fromJson(read(environment(name) + QStringLiteral("/kernel/kernel.json")).toUtf8())
            .object()
            .value(QStringLiteral("env"))
            .toObject();
    }

    QTemporaryDir m_home;
    QString m_hardware;
};

void TestInstallGpus::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "run through ctest, which sets TFSETUP_BINARY");
    m_hardware = qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/gpuchoice/linux_kepler_ampere.json");
    QVERIFY(QFile::exists(m_hardware));
}

void TestInstallGpus::byDefault_pinsTheUsableGpu()
{
    const QString profile = writeProfile(QStringLiteral("tf-default"));
    const Run run = tfsetup(QStringLiteral("install"),
                            {QStringLiteral("--profile"), profile, QStringLiteral("--yes"),
                             QStringLiteral("--hardware"), m_hardware, QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    const QJsonObject gpus =
        QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("gpus")).toObject();
    QCOMPARE(gpus.value(QStringLiteral("cuda_visible_devices")).toString(), QStringLiteral("1"));
    const QJsonArray leftOut = gpus.value(QStringLiteral("left_out")).toArray();
    QCOMPARE(leftOut.size(), 1);
    const QJsonObject kepler = leftOut.at(0).toObject();
    QCOMPARE(kepler.value(QStringLiteral("index")).toInt(), 0);
    QCOMPARE(kepler.value(QStringLiteral("name")).toString(), QStringLiteral("Tesla K80"));
    QCOMPARE(kepler.value(QStringLiteral("use")).toString(), QStringLiteral("unusable"));
    QVERIFY(!kepler.value(QStringLiteral("reason")).toObject().value(QStringLiteral("message")).toString().isEmpty());

    const QString env = environment(QStringLiteral("tf-default"));
    const QString launcher = read(env + QStringLiteral("/start-python"));
    QVERIFY2(launcher.contains(QStringLiteral("CUDA_VISIBLE_DEVICES='1'\nexport CUDA_VISIBLE_DEVICES")),
             qPrintable(launcher));
    QVERIFY(launcher.contains(QStringLiteral("CUDA_DEVICE_ORDER='PCI_BUS_ID'")));
    QCOMPARE(kernelEnv(QStringLiteral("tf-default")).value(QStringLiteral("CUDA_VISIBLE_DEVICES")).toString(),
             QStringLiteral("1"));
    QCOMPARE(kernelEnv(QStringLiteral("tf-default")).value(QStringLiteral("CUDA_DEVICE_ORDER")).toString(),
             QStringLiteral("PCI_BUS_ID"));
    const QJsonObject record =
        QJsonDocument::fromJson(read(env + QStringLiteral("/environment.json")).toUtf8()).object();
    QCOMPARE(record.value(QStringLiteral("plan")).toObject().value(QStringLiteral("gpus")).toArray(), QJsonArray{1});

    // The same install again changes nothing, and says in words why the Kepler is left out.
    const Run again = tfsetup(
        QStringLiteral("install"),
        {QStringLiteral("--profile"), profile, QStringLiteral("--yes"), QStringLiteral("--hardware"), m_hardware});
    QVERIFY2(again.exitCode == 0, qPrintable(again.out + again.err));
    QVERIFY2(again.out.contains(QStringLiteral("already complete")), qPrintable(again.out));
    QVERIFY2(again.out.contains(QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7) is left out: ")),
             qPrintable(again.out));
    QVERIFY2(again.out.contains(
                 QStringLiteral("The environment uses GPU 1, NVIDIA GeForce RTX 3060 (compute capability 8.6) "
                                "(CUDA_VISIBLE_DEVICES=1).")),
             qPrintable(again.out));

    // Repair writes a lost launcher again with the recorded choice. (Its verification fails: this
    // environment has no Python to import TensorFlow with.)
    QVERIFY(QFile::remove(env + QStringLiteral("/start-python")));
    const Run repair = tfsetup(QStringLiteral("repair"), {QStringLiteral("--env"), env});
    QVERIFY2(repair.out.contains(QStringLiteral("start-python: missing")), qPrintable(repair.out + repair.err));
    QVERIFY(read(env + QStringLiteral("/start-python")).contains(QStringLiteral("CUDA_VISIBLE_DEVICES='1'")));
}

void TestInstallGpus::all_pinsNothing()
{
    const QString profile = writeProfile(QStringLiteral("tf-all"));
    const Run run = tfsetup(QStringLiteral("install"),
                            {QStringLiteral("--profile"), profile, QStringLiteral("--yes"),
                             QStringLiteral("--hardware"), m_hardware, QStringLiteral("--gpus"), QStringLiteral("all"),
                             QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    const QJsonObject gpus =
        QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("gpus")).toObject();
    QVERIFY(gpus.value(QStringLiteral("cuda_visible_devices")).isNull());
    // Nothing pinned, yet the Kepler is not counted as used: it is named, with why.
    QCOMPARE(gpus.value(QStringLiteral("used")).toArray().size(), 1);
    const QJsonArray skipped = gpus.value(QStringLiteral("skipped")).toArray();
    QCOMPARE(skipped.size(), 1);
    QVERIFY2(skipped.first().toObject().value(QStringLiteral("gpu")).toString().contains(QStringLiteral("K80")),
             QJsonDocument(gpus).toJson().constData());
    QVERIFY(!skipped.first().toObject().value(QStringLiteral("reason")).toString().isEmpty());
    const QString env = environment(QStringLiteral("tf-all"));
    for (const QString &name :
         {QStringLiteral("start-python"), QStringLiteral("start-jupyter"), QStringLiteral("shell")})
        QVERIFY2(!read(env + u'/' + name).contains(QStringLiteral("CUDA_VISIBLE_DEVICES")), qPrintable(name));
    QVERIFY(!kernelEnv(QStringLiteral("tf-all")).contains(QStringLiteral("CUDA_VISIBLE_DEVICES")));
    QVERIFY(!QJsonDocument::fromJson(read(env + QStringLiteral("/environment.json")).toUtf8())
                 .object()
                 .value(QStringLiteral("plan"))
                 .toObject()
                 .contains(QStringLiteral("gpus")));
}

void TestInstallGpus::theProfileChooses()
{
    // The profile says "all"; --gpus on the command line wins over it.
    const QString profile = writeProfile(QStringLiteral("tf-profile"), QStringLiteral("\"all\""));
    const Run run = tfsetup(QStringLiteral("install"),
                            {QStringLiteral("--profile"), profile, QStringLiteral("--yes"),
                             QStringLiteral("--hardware"), m_hardware, QStringLiteral("--gpus"), QStringLiteral("1")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QVERIFY(read(environment(QStringLiteral("tf-profile")) + QStringLiteral("/shell"))
                .contains(QStringLiteral("CUDA_VISIBLE_DEVICES='1'")));
    // A profile's own list; a GPU it names that the machine lacks stops the install.
    const QString missing = writeProfile(QStringLiteral("tf-missing"), QStringLiteral("[1, 4]"));
    const Run refused = tfsetup(
        QStringLiteral("install"),
        {QStringLiteral("--profile"), missing, QStringLiteral("--yes"), QStringLiteral("--hardware"), m_hardware});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(
        refused.err.contains(QStringLiteral("The lab profile's \"gpus\" names GPU 4, but this computer's NVIDIA GPUs "
                                            "are 0,1")),
        qPrintable(refused.err));
    QVERIFY(!QDir(environment(QStringLiteral("tf-missing"))).exists());
}

void TestInstallGpus::refused_data()
{
    QTest::addColumn<QString>("profileGpus");
    QTest::addColumn<QString>("gpus");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a list") << QString() << QStringLiteral("first") << 2
                                << QStringLiteral("\"first\" is none of these");
    QTest::newRow("twice") << QString() << QStringLiteral("1,1") << 2 << QStringLiteral("--gpus names GPU 1 twice.");
    QTest::newRow("not on this computer")
        << QString() << QStringLiteral("5") << 1 << QStringLiteral("--gpus names GPU 5");
    QTest::newRow("too old") << QString() << QStringLiteral("0,1") << 1
                             << QStringLiteral(
                                    "--gpus names GPU 0, Tesla K80 (compute capability 3.7), which TensorFlow "
                                    "2.15.1 cannot use: ");
    QTest::newRow("a profile's damaged field") << QStringLiteral("\"fastest\"") << QString() << 1
                                               << QStringLiteral("its field \"gpus\" must be \"default\", \"all\"");
}

void TestInstallGpus::refused()
{
    QFETCH(QString, profileGpus);
    QFETCH(QString, gpus);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const QString profile = writeProfile(QStringLiteral("tf-refused"), profileGpus);
    QStringList arguments{QStringLiteral("--profile"), profile, QStringLiteral("--yes"), QStringLiteral("--hardware"),
                          m_hardware};
    if (!gpus.isEmpty())
        arguments << QStringLiteral("--gpus") << gpus;
    const Run run = tfsetup(QStringLiteral("install"), arguments);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY(!QDir(environment(QStringLiteral("tf-refused"))).exists());
}

void TestInstallGpus::withoutYes_saysWhichGpus()
{
    const Run run = tfsetup(QStringLiteral("install"),
                            {QStringLiteral("--profile"), writeProfile(QStringLiteral("tf-ask")),
                             QStringLiteral("--hardware"), m_hardware});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.contains(QStringLiteral("(CUDA_VISIBLE_DEVICES=1)")), qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("GPU 0, Tesla K80 (compute capability 3.7) is left out: ")),
             qPrintable(run.out));
    QVERIFY(!QDir(environment(QStringLiteral("tf-ask"))).exists());
}

QTEST_GUILESS_MAIN(TestInstallGpus)
#include "test_install_gpus.moc"
