// The command line against hostile inputs and faults, second round: each case a real tfsetup
// process in a folder of its own. A relative cache folder keeps its entries where it finds them
// again; a profile's "cache" follows installFolder's rules; a log is read with a limit and a FIFO
// is refused; an interpreter that is not there fails at once and is named; repair's log does not
// follow a "logs" folder swapped for a link, nor an install's kernel registration a kernels/<name>
// folder that is one; a lock held on another computer, a read-only disk and
// a full one are each told apart; a toolkit plan whose cuDNN cannot be had (none named, unknown,
// built for another CUDA) stops before the first archive.

#include "install/worklock.h"
#include "support/loopbackserver.h"
#include "support/processes.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace tfsetup;
using namespace Qt::StringLiterals;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
};

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray profile(const QJsonObject &changes)
{
    QJsonObject p{{u"schema"_s, 1},
                  {u"title"_s, u"Hostile"_s},
                  {u"environment"_s, u"tf-hostile"_s},
                  {u"installFolder"_s, u"${HOME}/envs"_s},
                  {u"interpreter"_s, u"none"_s},
                  {u"plan"_s, QJsonObject{{u"route"_s, u"linux-pip"_s}, {u"tensorflow"_s, u"2.15.1"_s}}},
                  {u"kernel"_s, QJsonObject{{u"register"_s, false}}},
                  {u"desktopEntry"_s, false}};
    for (auto it = changes.begin(); it != changes.end(); ++it)
        p.insert(it.key(), it.value());
    return QJsonDocument(p).toJson();
}

} // namespace

class TestHostile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"));
    }

    void fetch_relativeCacheFolderFindsItsEntries()
    {
        test::LoopbackServer server;
        QVERIFY(server.start());
        const QByteArray payload(300000, 'p');
        server.route("/f.bin", test::Response::bytes(payload));
        const QString sha = QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex());
        const QString work = m_home.filePath(u"relative-cache"_s);
        QVERIFY(QDir().mkpath(work + u"/c"_s));
        for (const char *out : {"first.bin", "second.bin"}) {
            const Run r = tfsetup({u"fetch"_s, server.url(u"/f.bin"_s).toString(), u"--sha256"_s, sha, u"--out"_s,
                                   QLatin1String(out), u"--cache"_s, u"c"_s},
                                  work);
            QVERIFY2(r.exitCode == 0, qPrintable(r.out));
        }
        QCOMPARE(server.hits("/f.bin"), 1); // the second came from the cache
        QVERIFY(QFileInfo::exists(work + u"/c/sha256/"_s + sha.left(2) + u'/' + sha));
        QVERIFY(!QFileInfo::exists(work + u"/c/c"_s));
    }

    void install_profileCacheFollowsInstallFolderRules_data()
    {
        QTest::addColumn<QString>("cache");
        QTest::addColumn<QString>("expected");
        QTest::newRow("undefined variable") << u"${TFSETUP_UNSET_FOR_TEST}/tfsetup-hostile-cache"_s << u"is not set"_s;
        QTest::newRow("relative") << u"hostile-relative-cache"_s << u"not a full path"_s;
    }
    void install_profileCacheFollowsInstallFolderRules()
    {
        QFETCH(QString, cache);
        QFETCH(QString, expected);
        const QString path = m_home.filePath(u"cache-profile.json"_s);
        QVERIFY(writeFile(path,
                          profile({{u"cache"_s, cache},
                                   {u"plan"_s,
                                    QJsonObject{{u"route"_s, u"linux-toolkit"_s},
                                                {u"tensorflow"_s, u"2.18.0"_s},
                                                {u"cuda"_s, u"12.5"_s},
                                                {u"cudnn"_s, u"8.9"_s}}}})));
        const QString work = m_home.filePath(u"cache-work"_s);
        QVERIFY(QDir().mkpath(work));
        const Run r = tfsetup(
            {u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--origin"_s, u"nvidia=http://127.0.0.1:9/"_s}, work);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(u"\"cache\""_s) && r.out.contains(expected), qPrintable(r.out));
        QVERIFY(!QFileInfo::exists(u"/tfsetup-hostile-cache"_s));
        QVERIFY(!QFileInfo::exists(work + u"/hostile-relative-cache"_s));
    }

    void install_cudnnThePlanCannotHaveStopsBeforeAnyArchive_data()
    {
        QTest::addColumn<QString>("cudnn");
        QTest::addColumn<QString>("expected");
        QTest::newRow("none named") << QString() << u"\"plan.cudnn\" names no cuDNN"_s;
        QTest::newRow("unknown") << u"99.0"_s << u"would lack cudnn"_s;
        QTest::newRow("built for another CUDA") << u"8.1"_s << u"built for CUDA 11.2, not for CUDA 12.5"_s;
    }
    void install_cudnnThePlanCannotHaveStopsBeforeAnyArchive()
    {
        QFETCH(QString, cudnn);
        QFETCH(QString, expected);
        // NVIDIA's real (pinned) manifests, re-hosted by the lab; no archive is there, none is asked for.
        test::LoopbackServer lab;
        QVERIFY(lab.start());
        const QString manifests = qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s;
        for (const auto &[route, file] :
             {std::pair{"/compute/cuda/redist/redistrib_12.5.1.json", "cuda/redistrib_12.5.1.json"},
              std::pair{"/compute/cudnn/redist/redistrib_8.9.7.json", "cudnn/redistrib_8.9.7.json"}}) {
            QFile f(manifests + QLatin1String(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            lab.route(route, test::Response::bytes(f.readAll(), "application/json"));
        }
        const QString path = m_home.filePath(u"cudnn.json"_s);
        QVERIFY(writeFile(path,
                          profile({{u"plan"_s,
                                    QJsonObject{{u"route"_s, u"linux-toolkit"_s},
                                                {u"tensorflow"_s, u"2.18.0"_s},
                                                {u"cuda"_s, u"12.5"_s},
                                                {u"cudnn"_s, cudnn}}}})));
        // On a nearly full disk: what is wrong with the plan is said first, not the gigabytes to
        // free for archives that could not make it work anyway.
        const QString disk = m_home.filePath(u"cudnn-disk-"_s + QString::fromLatin1(QTest::currentDataTag()));
        const test::RanOnDisk r = test::runOnDisk(disk, u"16m"_s, qEnvironmentVariable("TFSETUP_BINARY"),
                                                  {u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--prefix"_s,
                                                   disk + u"/envs"_s, u"--cache"_s, disk + u"/lab-cache"_s,
                                                   u"--origin"_s, u"nvidia="_s + lab.url(u"/"_s).toString()},
                                                  60000, environment());
        const QString out = QString::fromUtf8(r.ran.out + r.ran.err);
        QCOMPARE(r.ran.exitCode, 1);
        QVERIFY2(out.contains(expected), qPrintable(out));
        QVERIFY2(!out.contains(u"Not enough free disk space"_s), qPrintable(out));
        QCOMPARE(
            lab.hits("/compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-12.5.82-archive.tar.xz"),
            0);
        QVERIFY2(!r.left.contains(u"envs/tf-hostile"_s), qPrintable(r.left.join(u' ')));
    }

    void doctor_logIsBounded_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a FIFO nobody writes") << u"fifo"_s << u"not a plain file"_s;
        QTest::newRow("/dev/zero") << u"zero"_s << u"not a plain file"_s;
        QTest::newRow("a sparse file over the limit") << u"huge"_s << u"larger than"_s;
    }
    void doctor_logIsBounded()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QString path = u"/dev/zero"_s;
        if (kind == u"fifo") {
            path = m_home.filePath(u"log.fifo"_s);
            QFile::remove(path);
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == u"huge") {
            path = m_home.filePath(u"huge.log"_s);
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(200LL * 1024 * 1024)); // sparse: no disk used
        }
        QElapsedTimer clock;
        clock.start();
        const Run r = tfsetup({u"doctor"_s, u"--log"_s, path}, m_home.path());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(expected), qPrintable(r.out));
        QVERIFY(clock.elapsed() < 20000);
    }

    void install_missingInterpreterFailsAtOnceAndIsNamed()
    {
        const QString path = m_home.filePath(u"interpreter.json"_s);
        QVERIFY(writeFile(path,
                          profile({{u"interpreter"_s, u"/nonexistent/tfsetup-test/python3"_s},
                                   {u"plan"_s,
                                    QJsonObject{{u"route"_s, u"linux-pip"_s},
                                                {u"tensorflow"_s, u"2.15.1"_s},
                                                {u"requirements"_s, QJsonArray{u"tensorflow==2.15.1"_s}}}}})));
        QElapsedTimer clock;
        clock.start();
        const Run r = tfsetup(
            {u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--prefix"_s, m_home.filePath(u"interp"_s)},
            m_home.path());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(clock.elapsed() < 20000, "a program that cannot start is not waited for");
        QVERIFY2(r.out.contains(u"/nonexistent/tfsetup-test/python3 could not be started"_s), qPrintable(r.out));
        QVERIFY2(!r.out.contains(u"python3-venv"_s), qPrintable(r.out));
        QVERIFY(QDir(m_home.filePath(u"interp"_s))
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                    .isEmpty());
    }

    // A ':' in a Linux install folder would split PATH and LD_LIBRARY_PATH in the launchers and
    // the kernel: refused before anything is fetched or written, as is a capital in a kernel name
    // (Jupyter folds it, so two kernels would become one).
    void install_refusesWhatTheLaunchersCannotCarry_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("code");
        QTest::newRow("a colon in the folder") << u"lab:2026"_s << QString() << u"LD_LIBRARY_PATH"_s;
        QTest::newRow("a capital in the kernel name") << u"plain"_s << u"TF-Lab"_s << u"kernel.name"_s;
    }
    void install_refusesWhatTheLaunchersCannotCarry()
    {
        QFETCH(QString, prefix);
        QFETCH(QString, kernel);
        QFETCH(QString, code);
        QJsonObject fields{{u"plan"_s,
                            QJsonObject{{u"route"_s, u"linux-pip"_s},
                                        {u"tensorflow"_s, u"2.15.1"_s},
                                        {u"requirements"_s, QJsonArray{u"tensorflow==2.15.1"_s}}}}};
        if (!kernel.isEmpty())
            fields.insert(u"kernel"_s, QJsonObject{{u"name"_s, kernel}});
        const QString path = m_home.filePath(u"carry.json"_s);
        QVERIFY(writeFile(path, profile(fields)));
        const QString folder = m_home.filePath(prefix);
        const Run r = tfsetup({u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--prefix"_s, folder}, m_home.path());
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        QVERIFY2(r.out.contains(code), qPrintable(r.out));
        QVERIFY(!QFileInfo::exists(folder)
                || QDir(folder).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));
    }

    // A FIFO where a record, a kernelspec or a menu entry belongs would block a read forever, and
    // a kernelspec linked to /dev/zero would never end: every command answers all the same.
    void specialFilesNeverBlockOrRunOn_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("list") << QStringList{u"list"_s, u"--folder"_s, u"@prefix"_s};
        QTest::newRow("doctor --env") << QStringList{u"doctor"_s, u"--env"_s, u"@env"_s};
        QTest::newRow("verify --env") << QStringList{u"verify"_s, u"--env"_s, u"@env"_s};
        QTest::newRow("remove") << QStringList{u"remove"_s, u"--env"_s, u"@env"_s, u"--yes"_s};
        QTest::newRow("repair --dry-run") << QStringList{u"repair"_s, u"--env"_s, u"@env"_s, u"--dry-run"_s};
    }
    void specialFilesNeverBlockOrRunOn()
    {
        QFETCH(QStringList, arguments);
        const QString prefix = m_home.filePath(u"fifo-envs"_s);
        const QString env = prefix + u"/tf-fifo"_s;
        QVERIFY(QDir().mkpath(env + u"/kernel"_s));
        QVERIFY(QDir().mkpath(m_home.filePath(u"data/jupyter/kernels/tf-fifo"_s)));
        QVERIFY(QDir().mkpath(m_home.filePath(u"data/applications"_s)));
        for (const QString &fifo :
             QStringList{env + u"/environment.json"_s, m_home.filePath(u"data/jupyter/kernels/tf-fifo/kernel.json"_s),
                         m_home.filePath(u"data/applications/tfsetup-tf-fifo.desktop"_s)}) {
            QFile::remove(fifo);
            QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        }
        QFile::remove(env + u"/kernel/kernel.json"_s);
        QVERIFY(QFile::link(u"/dev/zero"_s, env + u"/kernel/kernel.json"_s));
        arguments.replaceInStrings(u"@prefix"_s, prefix);
        arguments.replaceInStrings(u"@env"_s, env);
        QElapsedTimer clock;
        clock.start();
        const Run r = tfsetup(arguments, m_home.path());
        QVERIFY2(r.exitCode >= 0, qPrintable(u"killed after 60 s: "_s + r.out));
        QVERIFY2(clock.elapsed() < 30000, qPrintable(r.out));
    }

    void lock_heldOnAnotherComputerSaysWhoseAndHow()
    {
        const QString prefix = m_home.filePath(u"shared-prefix"_s);
        QVERIFY(QDir().mkpath(prefix));
        const QString lockPath = prefix + u"/.tf-hostile.tfsetup-lock"_s;
        QVERIFY(QSysInfo::machineHostName() != u"lab-pc-17.invalid");
        QVERIFY(writeFile(lockPath, "4242\ntfsetup\nlab-pc-17.invalid\n"));
        const auto lock = core::WorkLock::acquire(prefix, u"tf-hostile"_s, prefix + u"/tf-hostile"_s);
        QVERIFY(!lock);
        QCOMPARE(lock.error().code, u"environment_busy"_s);
        const QString message = lock.error().message;
        QVERIFY2(message.contains(u"lab-pc-17.invalid"_s) && message.contains(u"4242"_s) && message.contains(lockPath),
                 qPrintable(message));
        QVERIFY(QFileInfo::exists(lockPath)); // not taken over: that computer may still be at work
    }

    void repair_logFolderSwappedForALinkIsNotWrittenThrough()
    {
        const QString path = m_home.filePath(u"repair.json"_s);
        QVERIFY(writeFile(path, profile({})));
        const QString prefix = m_home.filePath(u"repair-prefix"_s);
        const Run install = tfsetup({u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--prefix"_s, prefix},
                                    m_home.path());
        QVERIFY2(install.exitCode == 0, qPrintable(install.out));
        const QString env = prefix + u"/tf-hostile"_s;
        const QString outside = m_home.filePath(u"someone-elses"_s);
        QVERIFY(QDir().mkpath(outside));
        QVERIFY(QDir().rename(env + u"/logs"_s, env + u"/logs.moved"_s));
        QVERIFY(QFile::link(outside, env + u"/logs"_s));
        const Run repair = tfsetup({u"repair"_s, u"--env"_s, env, u"--no-verify"_s}, m_home.path());
        QVERIFY2(!repair.out.isEmpty(), "repair ran");
        QVERIFY2(QDir(outside).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), qPrintable(repair.out));
        QVERIFY(QFileInfo(env + u"/logs"_s).isSymLink()); // left for the user to look at
    }

    void install_kernelFolderSwappedForALinkIsNotWrittenThrough()
    {
        // Jupyter's kernels/<name> is tfsetup's to make: a link found there is not followed.
        const QString data = m_home.filePath(u"data"_s);
        const QString victim = m_home.filePath(u"victim-kernel"_s);
        QVERIFY(writeFile(victim + u"/kernel.json"_s, "someone else's kernel\n"));
        QVERIFY(QDir().mkpath(data + u"/jupyter/kernels"_s));
        QFile::remove(data + u"/jupyter/kernels/tf-kernel-link"_s);
        QVERIFY(QFile::link(victim, data + u"/jupyter/kernels/tf-kernel-link"_s));
        const QString path = m_home.filePath(u"kernel-link.json"_s);
        QVERIFY(
            writeFile(path,
                      profile({{u"environment"_s, u"tf-kernel-link"_s},
                               {u"kernel"_s, QJsonObject{{u"name"_s, u"tf-kernel-link"_s}, {u"register"_s, true}}}})));
        const Run r = tfsetup(
            {u"install"_s, u"--profile"_s, path, u"--yes"_s, u"--prefix"_s, m_home.filePath(u"kernel-prefix"_s)},
            m_home.path());
        QVERIFY2(r.out.contains(u"could not be registered"_s), qPrintable(r.out));
        QCOMPARE(QDir(victim).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList{u"kernel.json"_s});
        QFile kept(victim + u"/kernel.json"_s);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("someone else's kernel\n"));
    }

    void lock_damagedOrALinkSaysHowToFreeIt_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("damaged") << u"damaged"_s;
        QTest::newRow("empty") << u"empty"_s;
        QTest::newRow("a link to another file") << u"link"_s;
        QTest::newRow("a dangling link") << u"dangling"_s;
    }
    void lock_damagedOrALinkSaysHowToFreeIt()
    {
        QFETCH(QString, kind);
        const QString prefix = m_home.filePath(u"damaged-lock-"_s + kind);
        QVERIFY(QDir().mkpath(prefix));
        const QString lockPath = prefix + u"/.tf-hostile.tfsetup-lock"_s;
        const QString victim = m_home.filePath(u"lock-victim"_s);
        QVERIFY(writeFile(victim, "someone's notes\n"));
        if (kind == u"damaged")
            QVERIFY(writeFile(lockPath, "not a lock\n"));
        else if (kind == u"empty")
            QVERIFY(writeFile(lockPath, QByteArray()));
        else
            QVERIFY(QFile::link(kind == u"link" ? victim : m_home.filePath(u"nothing-there"_s), lockPath));
        const auto lock = core::WorkLock::acquire(prefix, u"tf-hostile"_s, prefix + u"/tf-hostile"_s);
        QVERIFY(!lock);
        QCOMPARE(lock.error().code, u"environment_busy"_s);
        QVERIFY2(lock.error().message.contains(u"delete "_s + lockPath), qPrintable(lock.error().message));
        QFile kept(victim);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("someone's notes\n"));
        QVERIFY(!QFileInfo::exists(m_home.filePath(u"nothing-there"_s)));
    }

    void install_readOnlyAndFullDisksToldApart_data()
    {
        QTest::addColumn<QString>("mount");
        QTest::addColumn<QString>("expected");
        QTest::newRow("read-only") << u"mount -t tmpfs -o size=1m,ro tfsetup-test \"$1\""_s << u"read-only"_s;
        QTest::newRow("full")
            << u"mount -t tmpfs -o size=64k tfsetup-test \"$1\" && head -c 1048576 /dev/zero > \"$1/filler\"; true"_s
            << u"is full"_s;
    }
    void install_readOnlyAndFullDisksToldApart()
    {
        QFETCH(QString, mount);
        QFETCH(QString, expected);
        if (QProcess::execute(u"unshare"_s, {u"-Urm"_s, u"true"_s}) != 0)
            QSKIP("no user namespaces here (unshare -Urm)");
        const QString path = m_home.filePath(u"disk.json"_s);
        QVERIFY(writeFile(path, profile({})));
        const QString disk = m_home.filePath(u"disk-"_s + QString::fromLatin1(QTest::currentDataTag()));
        QVERIFY(QDir().mkpath(disk));
        QProcess p;
        p.setProcessEnvironment(environment());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(u"unshare"_s,
                {u"-Urm"_s, u"sh"_s, u"-c"_s,
                 mount + u" || exit 90\nexec \"$2\" install --profile \"$3\" --yes --prefix \"$1\""_s, u"sh"_s, disk,
                 qEnvironmentVariable("TFSETUP_BINARY"), path});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAll());
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(out.contains(expected), qPrintable(out));
    }

private:
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"HOME"_s, m_home.path());
        env.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"data"_s));
        env.insert(u"XDG_CACHE_HOME"_s, m_home.filePath(u"cache"_s));
        env.remove(u"TFSETUP_UNSET_FOR_TEST"_s);
        return env;
    }
    Run tfsetup(const QStringList &arguments, const QString &workingDirectory)
    {
        QProcess p;
        p.setProcessEnvironment(environment());
        p.setWorkingDirectory(workingDirectory);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"), arguments);
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
    }

    QTemporaryDir m_home;
};

QTEST_GUILESS_MAIN(TestHostile)
#include "test_hostile.moc"
