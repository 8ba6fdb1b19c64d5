// Links planted where tfsetup writes: a .part that is a link does not receive the download, an
// environment folder that is a link is refused (its target keeps its files), a folder inside an
// environment that is a link is not written through. And a relative --prefix works like any
// tool's: against the working folder, on every run.

#include "support/loopbackserver.h"
#include "util/confined.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestLinks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY"))
            QSKIP("TFSETUP_BINARY is not set (run through ctest)");
    }

    void reachesWithoutLinks_componentsChecked()
    {
        const QString root = m_dir.filePath(u"env"_s);
        QVERIFY(QDir().mkpath(root + u"/cuda/lib"_s));
        QVERIFY(QDir().mkpath(m_dir.filePath(u"elsewhere"_s)));
        QVERIFY(QFile::link(m_dir.filePath(u"elsewhere"_s), root + u"/venv"_s));
        QVERIFY(core::reachesWithoutLinks(root, u"cuda/lib/libcudart.so"_s));
        QVERIFY(core::reachesWithoutLinks(root, u"new/folder/file"_s));
        QVERIFY(core::reachesWithoutLinks(root, u"venv"_s)); // the link itself may be replaced
        QVERIFY(!core::reachesWithoutLinks(root, u"venv/bin/python"_s));
        QVERIFY(!core::reachesWithoutLinks(root, u"cuda/../venv/x"_s));
        QVERIFY(core::isLink(root + u"/venv"_s));
        QVERIFY(!core::isLink(root + u"/cuda"_s));
    }

    void fetch_partThatIsALinkDoesNotReceiveTheDownload_data()
    {
        QTest::addColumn<bool>("withState");
        QTest::newRow(".part link") << false;
        QTest::newRow(".part link and a .part.state") << true;
    }
    void fetch_partThatIsALinkDoesNotReceiveTheDownload()
    {
        QFETCH(bool, withState);
        test::LoopbackServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QByteArray payload(64 * 1024, 'p');
        server.route("/file.bin", test::Response::bytes(payload));
        const QString folder = m_dir.filePath(withState ? u"fetch-state"_s : u"fetch"_s);
        const QString victim = folder + u"/victim/.bashrc"_s;
        const QByteArray victimBytes("export PS1='$ '\n");
        QVERIFY(writeFile(victim, victimBytes));
        const QString out = folder + u"/out/file.bin"_s;
        QVERIFY(QDir().mkpath(QFileInfo(out).absolutePath()));
        QVERIFY(QFile::link(victim, out + u".part"_s));
        if (withState)
            QVERIFY(writeFile(out + u".part.state"_s, R"({"segments":[{"start":0,"end":100,"done":16}]})"));
        QProcess p;
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                {u"fetch"_s, server.url(u"/file.bin"_s).toString(), u"--sha256"_s,
                 QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()), u"--out"_s,
                 out, u"--no-cache"_s});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QCOMPARE(readFile(victim), victimBytes);
        QCOMPARE(readFile(out), payload);
        QVERIFY(!QFileInfo(out).isSymLink());
    }

    void install_environmentFolderThatIsALinkIsRefused()
    {
        const QString home = m_dir.filePath(u"home-link"_s);
        const QString victim = m_dir.filePath(u"other-disk/tf-cli"_s);
        QVERIFY(writeFile(victim + u"/thesis.tex"_s, "chapter one"));
        QVERIFY(writeFile(victim + u"/environment.json"_s, R"({"schema":1,"files":[]})"));
        QVERIFY(QDir().mkpath(home + u"/envs"_s));
        QVERIFY(QFile::link(victim, home + u"/envs/tf-cli"_s));
        const Run run = install(home, {u"--prefix"_s, home + u"/envs"_s});
        QVERIFY2(run.exitCode == 1, qPrintable(run.out + run.err));
        QVERIFY2(QString(run.out + run.err).contains(u"link"_s), qPrintable(run.out + run.err));
        QCOMPARE(readFile(victim + u"/thesis.tex"_s), QByteArray("chapter one"));
    }

    void install_relativePrefixWorksOnEveryRun()
    {
        const QString home = m_dir.filePath(u"home-relative"_s);
        QVERIFY(QDir().mkpath(home + u"/work"_s));
        for (int i = 0; i < 2; ++i) {
            const Run run = install(home, {u"--prefix"_s, u"envs"_s, u"--json"_s}, home + u"/work"_s);
            QVERIFY2(run.exitCode == 0, qPrintable(QString::number(i) + u' ' + run.out + run.err));
            const QJsonObject result = QJsonDocument::fromJson(run.out.toUtf8()).object();
            QCOMPARE(result.value(u"environment"_s).toString(), QDir::cleanPath(home + u"/work/envs/tf-cli"_s));
            QCOMPARE(result.value(u"unchanged"_s).toBool(), i == 1);
        }
        QVERIFY(QFile::exists(home + u"/work/envs/tf-cli/environment.json"_s));
    }

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Run install(const QString &home, const QStringList &extra, const QString &workingDirectory = {})
    {
        const QString profile = home + u"/lab.json"_s;
        writeFile(profile, R"({"schema": 1, "environment": "tf-cli", "installFolder": "${HOME}/envs",
                    "interpreter": "none", "plan": {"route": "linux-pip", "tensorflow": "2.15.1"},
                    "kernel": {"name": "tf-cli", "displayName": "TF CLI"}})");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"HOME"_s, home);
        env.insert(u"XDG_DATA_HOME"_s, home + u"/data"_s);
        p.setProcessEnvironment(env);
        if (!workingDirectory.isEmpty())
            p.setWorkingDirectory(workingDirectory);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                QStringList{u"install"_s, u"--profile"_s, profile, u"--yes"_s} + extra);
        p.waitForFinished(60000);
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLinks)
#include "test_links.moc"
