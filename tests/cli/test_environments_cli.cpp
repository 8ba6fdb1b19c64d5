// `tfsetup list`, `remove` and `clean` on real environments: two real installs (`tfsetup install
// --profile … --yes`, a real venv and pip from a loopback index serving stand-in TensorFlow and
// ipykernel wheels) into a temporary home, then list them, verify one, remove the other, and
// clean a download cache.

#include "support/files.h"
#include "support/loopbackserver.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using test::LoopbackServer;
using test::Response;

class TestEnvironmentsCli final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void listVerifyRemove();
    void removeRefusesAFolderTfsetupDidNotMake();
    void cleanFreesTheOldDownloads();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
        QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
    };
    Run tfsetup(const QStringList &arguments, int timeoutMs = 180000) const
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_home.filePath(QStringLiteral("cache")));
        env.remove(QStringLiteral("PYTHONPATH"));
        env.remove(QStringLiteral("VIRTUAL_ENV"));
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
        p.waitForFinished(timeoutMs);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    QString writeProfile(const QString &environment) const;
    bool serve(const QString &distribution, const QString &version, const QByteArray &module);

    QString m_python;
    QTemporaryDir m_home;
    QTemporaryDir m_wheels;
    LoopbackServer m_index;
};

QString TestEnvironmentsCli::writeProfile(const QString &environment) const
{
    const QJsonObject profile{
        {QStringLiteral("schema"), 1},
        {QStringLiteral("title"), QStringLiteral("Environments test")},
        {QStringLiteral("environment"), environment},
        {QStringLiteral("installFolder"), QStringLiteral("${HOME}/courses")},
        {QStringLiteral("interpreter"), m_python},
        {QStringLiteral("plan"),
         QJsonObject{{QStringLiteral("route"), QStringLiteral("linux-pip")},
                     {QStringLiteral("tensorflow"), QStringLiteral("2.15.1")},
                     {QStringLiteral("package"), QStringLiteral("tensorflow")},
                     {QStringLiteral("requirements"), QJsonArray{QStringLiteral("tensorflow==2.15.1")}}}},
        {QStringLiteral("mirrors"),
         QJsonObject{{QStringLiteral("pypi"), QJsonArray{m_index.url(QStringLiteral("/simple/")).toString()}},
                     {QStringLiteral("trustedHosts"), QJsonArray{QStringLiteral("127.0.0.1")}}}},
        {QStringLiteral("jupyter"), false},
        {QStringLiteral("kernel"),
         QJsonObject{{QStringLiteral("name"), environment}, {QStringLiteral("displayName"), environment}}},
        {QStringLiteral("desktopEntry"), true}};
    const QString path = m_home.filePath(environment + QStringLiteral(".json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QJsonDocument(profile).toJson());
    return path;
}

bool TestEnvironmentsCli::serve(const QString &distribution, const QString &version, const QByteArray &module)
{
    const QString wheelName = distribution + u'-' + version + QStringLiteral("-py3-none-any.whl");
    const QString wheel = m_wheels.filePath(wheelName);
    if (!test::buildWheel(m_python, wheel, distribution, version, module, distribution))
        return false;
    const QByteArray bytes = test::readFile(wheel);
    const QByteArray digest = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
    m_index.route("/simple/" + distribution.toUtf8() + "/",
                  Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                      + "#sha256=" + digest + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                  "text/html"));
    m_index.route("/files/" + wheelName.toUtf8(), Response::bytes(bytes));
    return true;
}

void TestEnvironmentsCli::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "run through ctest, which sets TFSETUP_BINARY");
    m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    QVERIFY2(!m_python.isEmpty(), "python3 is in .ci/packages");
    QVERIFY(m_index.start());
    QByteArray tensorflow = test::readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                           + QStringLiteral("/verify/fake_tensorflow/tensorflow/__init__.py"));
    QVERIFY(!tensorflow.isEmpty());
    tensorflow.replace(QByteArray("__version__ = \"2.99.0\""), QByteArray("__version__ = \"2.15.1\""));
    QVERIFY(serve(QStringLiteral("tensorflow"), QStringLiteral("2.15.1"), tensorflow));
    QVERIFY(serve(QStringLiteral("ipykernel"), QStringLiteral("6.0.0"), "VALUE = 42\n"));
    for (const QString &name : {QStringLiteral("tf-course"), QStringLiteral("tf-thesis")}) {
        const Run install = tfsetup(
            {QStringLiteral("install"), QStringLiteral("--profile"), writeProfile(name), QStringLiteral("--yes")});
        QVERIFY2(install.exitCode == 0, qPrintable(install.out + install.err));
    }
}

void TestEnvironmentsCli::listVerifyRemove()
{
    const QString course = m_home.filePath(QStringLiteral("courses/tf-course"));
    const QString thesis = m_home.filePath(QStringLiteral("courses/tf-thesis"));
    const QString data = m_home.filePath(QStringLiteral("data"));
    QVERIFY(QFile::exists(data + QStringLiteral("/jupyter/kernels/tf-course/kernel.json")));
    QVERIFY(QFile::exists(data + QStringLiteral("/applications/tfsetup-tf-course.desktop")));

    // Both listed (found through the index: ~/courses is not the default folder).
    Run list = tfsetup({QStringLiteral("list"), QStringLiteral("--json"), QStringLiteral("--no-updates")});
    QVERIFY2(list.exitCode == 0, qPrintable(list.out + list.err));
    QJsonArray environments = list.json().value(QStringLiteral("environments")).toArray();
    QCOMPARE(environments.size(), 2);
    for (const QJsonValue &v : std::as_const(environments)) {
        const QJsonObject e = v.toObject();
        QCOMPARE(e.value(QStringLiteral("state")).toString(), QStringLiteral("ok"));
        QCOMPARE(e.value(QStringLiteral("route")).toString(), QStringLiteral("linux-pip"));
        QCOMPARE(e.value(QStringLiteral("tensorflow")).toString(), QStringLiteral("2.15.1"));
        QVERIFY(!e.value(QStringLiteral("python")).toString().isEmpty());
        QVERIFY(e.value(QStringLiteral("bytes")).toInteger() > 0);
        QVERIFY(e.value(QStringLiteral("last_verify")).isNull());
    }
    // The newer-release check runs the solver for a described machine.
    list = tfsetup({QStringLiteral("list"), QStringLiteral("--json"), QStringLiteral("--hardware"),
                    qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/linux_h100.json")});
    QVERIFY2(list.exitCode == 0, qPrintable(list.out + list.err));
    QVERIFY(list.json()
                .value(QStringLiteral("environments"))
                .toArray()
                .first()
                .toObject()
                .contains(QStringLiteral("newer_tensorflow")));

    // A verify is remembered, with its result and date, whatever it found.
    const Run verify = tfsetup({QStringLiteral("verify"), QStringLiteral("--env"), thesis, QStringLiteral("--json")},
                               120000);
    QVERIFY2(verify.exitCode == 0 || verify.exitCode == 1, qPrintable(verify.out + verify.err));
    list = tfsetup({QStringLiteral("list"), QStringLiteral("--json"), QStringLiteral("--no-updates")});
    bool seen = false;
    for (const QJsonValue &v : list.json().value(QStringLiteral("environments")).toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value(QStringLiteral("path")).toString() != thesis)
            continue;
        seen = true;
        const QJsonObject last = e.value(QStringLiteral("last_verify")).toObject();
        QCOMPARE(last.value(QStringLiteral("passed")).toBool(), verify.exitCode == 0);
        QVERIFY(!last.value(QStringLiteral("date")).toString().isEmpty());
    }
    QVERIFY(seen);

    // Without --yes, remove only says what it would do.
    QVERIFY(QDir().mkpath(course + QStringLiteral("/notebooks")));
    QFile notes(course + QStringLiteral("/notebooks/week1.ipynb"));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("{}");
    notes.close();
    Run remove = tfsetup({QStringLiteral("remove"), QStringLiteral("--env"), course});
    QCOMPARE(remove.exitCode, 2);
    QVERIFY(remove.out.contains(QStringLiteral("--yes")));
    QVERIFY(QFile::exists(course + QStringLiteral("/environment.json")));

    remove = tfsetup(
        {QStringLiteral("remove"), QStringLiteral("--env"), course, QStringLiteral("--yes"), QStringLiteral("--json")});
    QVERIFY2(remove.exitCode == 0, qPrintable(remove.out + remove.err));
    const QJsonObject removed = remove.json();
    QCOMPARE(removed.value(QStringLiteral("ok")).toBool(), true);
    QCOMPARE(removed.value(QStringLiteral("kept")).toArray(), QJsonArray{QStringLiteral("notebooks/week1.ipynb")});
    QVERIFY(removed.value(QStringLiteral("bytes_freed")).toInteger() > 0);
    // The student's notebook stays, alone; the venv, launchers, kernel and menu entry are gone.
    QCOMPARE(QDir(course).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("notebooks")});
    QVERIFY(QFile::exists(course + QStringLiteral("/notebooks/week1.ipynb")));
    QVERIFY(!QFileInfo::exists(data + QStringLiteral("/jupyter/kernels/tf-course")));
    QVERIFY(!QFileInfo::exists(data + QStringLiteral("/applications/tfsetup-tf-course.desktop")));

    // The other environment is whole and still works.
    QVERIFY(QFile::exists(data + QStringLiteral("/jupyter/kernels/tf-thesis/kernel.json")));
    QVERIFY(QFile::exists(data + QStringLiteral("/applications/tfsetup-tf-thesis.desktop")));
    QProcess python;
    python.start(thesis + QStringLiteral("/start-python"),
                 {QStringLiteral("-c"), QStringLiteral("import tensorflow; print(tensorflow.__version__)")});
    QVERIFY(python.waitForFinished(60000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()).trimmed(), QStringLiteral("2.15.1"));
    list = tfsetup({QStringLiteral("list"), QStringLiteral("--json"), QStringLiteral("--no-updates")});
    environments = list.json().value(QStringLiteral("environments")).toArray();
    QCOMPARE(environments.size(), 1);
    QCOMPARE(environments.first().toObject().value(QStringLiteral("path")).toString(), thesis);
    QCOMPARE(environments.first().toObject().value(QStringLiteral("state")).toString(), QStringLiteral("ok"));
}

void TestEnvironmentsCli::removeRefusesAFolderTfsetupDidNotMake()
{
    const QString mine = m_home.filePath(QStringLiteral("projects"));
    QVERIFY(QDir().mkpath(mine));
    QFile f(mine + QStringLiteral("/main.py"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const Run remove = tfsetup(
        {QStringLiteral("remove"), QStringLiteral("--env"), mine, QStringLiteral("--yes"), QStringLiteral("--json")});
    QCOMPARE(remove.exitCode, 1);
    QCOMPARE(remove.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
             QStringLiteral("not_environment"));
    QVERIFY(QFile::exists(mine + QStringLiteral("/main.py")));
}

void TestEnvironmentsCli::cleanFreesTheOldDownloads()
{
    QTemporaryDir cache;
    const QByteArray content(5000, 'x');
    const QByteArray digest = QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex();
    const QString entry = cache.filePath(QStringLiteral("sha256/") + QString::fromLatin1(digest.left(2)) + u'/'
                                         + QString::fromLatin1(digest));
    QVERIFY(QDir().mkpath(QFileInfo(entry).absolutePath()));
    QFile f(entry);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
    QVERIFY(f.flush()); // written before the time is set, or closing would make it new again
    QVERIFY(f.setFileTime(QDateTime::currentDateTimeUtc().addDays(-200), QFileDevice::FileModificationTime));
    f.close();

    Run clean = tfsetup({QStringLiteral("clean"), QStringLiteral("--cache"), cache.path(), QStringLiteral("--dry-run"),
                         QStringLiteral("--json")});
    QVERIFY2(clean.exitCode == 0, qPrintable(clean.out + clean.err));
    QCOMPARE(clean.json().value(QStringLiteral("cache")).toObject().value(QStringLiteral("bytes_freed")).toInteger(),
             qint64(5000));
    QVERIFY(QFile::exists(entry));
    clean = tfsetup({QStringLiteral("clean"), QStringLiteral("--cache"), cache.path(), QStringLiteral("--max-age"),
                     QStringLiteral("30")});
    QVERIFY2(clean.exitCode == 0, qPrintable(clean.out + clean.err));
    QVERIFY(clean.out.contains(QStringLiteral("Freed")));
    QVERIFY(!QFile::exists(entry));
    QCOMPARE(tfsetup({QStringLiteral("clean"), QStringLiteral("--max-size"), QStringLiteral("lots")}).exitCode, 2);
}

QTEST_GUILESS_MAIN(TestEnvironmentsCli)
#include "test_environments_cli.moc"
