// Links planted where tfsetup writes: a .part that is a link does not receive the download, an
// environment folder that is a link is refused (its target keeps its files), a folder inside an
// environment that is a link is not written through. And a relative --prefix works like any
// tool's: against the working folder, on every run.
//
// A link can also appear after every check, just before the write: the confined operations
// (util/confined) are tried with a link planted at that last moment (through their test seam)
// in a folder on the way and at the name itself, and so are the writes that matter: the
// download's .part, a shared cache entry, a staged launcher folder of an install and a repair's
// rename into the environment. Each is refused and the link's target is untouched.

#include "fetch/downloader.h"
#include "install/installer.h"
#include "install/worklock.h"
#include "repair/repair.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"
#include "util/confined.h"

#include <QCoro/QCoroTask>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
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

QStringList entriesOf(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

// Replaces `path` (a folder or nothing) by a link to `target`, as a racing process would.
bool plantFolderLink(const QString &path, const QString &target)
{
    if (QFileInfo(path).isDir() && !QFileInfo(path).isSymLink() && !QDir(path).removeRecursively())
        return false;
    return QFile::link(target, path);
}

} // namespace

class TestLinks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A staging folder replaced by a link to the user's folder, with the owner marker copied in:
    // recovery takes the link for what it is, and the folder it points to keeps every file.
    void stagingReplacedByALink_recoveryLeavesItsTargetAlone()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString prefix = dir.filePath(u"envs"_s);
        const QString victim = dir.filePath(u"thesis"_s);
        QVERIFY(QDir().mkpath(prefix) && QDir().mkpath(victim));
        QFile work(victim + u"/chapter1.tex"_s);
        QVERIFY(work.open(QIODevice::WriteOnly) && work.write("\\section{Intro}") > 0);
        work.close();
        QString staging;
        {
            auto lock = core::WorkLock::acquire(prefix, u"tf"_s, u"tf"_s);
            QVERIFY2(lock.ok(), qPrintable(lock.ok() ? QString() : lock.error().detail));
            auto made = (*lock)->makeStaging();
            QVERIFY(made.ok());
            staging = *made;
            // The run dies here (its lock goes); someone swaps the folder for a link to the
            // user's work, marker and all.
            QVERIFY(
                QFile::copy(staging + u'/' + core::WorkLock::markerName, victim + u'/' + core::WorkLock::markerName));
            QVERIFY(QDir(staging).removeRecursively());
            QVERIFY(QFile::link(victim, staging));
        }
        auto lock = core::WorkLock::acquire(prefix, u"tf"_s, u"tf"_s);
        QVERIFY(lock.ok());
        const QStringList done = (*lock)->recover();
        QVERIFY(QFileInfo::exists(victim + u"/chapter1.tex"_s));
        QVERIFY(QFileInfo::exists(victim + u'/' + core::WorkLock::markerName));
        QVERIFY2(!done.join(u'\n').contains(u"removed"_s), qPrintable(done.join(u'\n')));
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY"))
            QSKIP("TFSETUP_BINARY is not set (run through ctest)");
    }

    void cleanup() { core::setConfinedWalkHook({}); }

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

    // Each confined operation, with a link planted just before it walks: in place of a folder on
    // the way ("folder"), or at the name itself ("name").
    void confined_linkPlantedAtTheLastMomentIsRefused_data()
    {
        QTest::addColumn<QString>("operation");
        QTest::addColumn<QString>("where");
        QTest::addColumn<bool>("refused");
        for (const char *operation :
             {"write", "open new", "open replace", "open read-write", "rename", "link", "place", "relink", "copy"})
            QTest::newRow(qPrintable(QStringLiteral("%1, folder").arg(QLatin1String(operation))))
                << QString::fromLatin1(operation) << u"folder"_s << true;
        QTest::newRow("open new, name") << u"open new"_s << u"name"_s << true;
        QTest::newRow("open replace, name") << u"open replace"_s << u"name"_s << true;
        QTest::newRow("open read-write, name") << u"open read-write"_s << u"name"_s << true;
        QTest::newRow("link, name") << u"link"_s << u"name"_s << true;
        QTest::newRow("copy, name") << u"copy"_s << u"name"_s << true;
        // Replacing the name replaces the link itself; what it pointed to is untouched.
        QTest::newRow("write, name") << u"write"_s << u"name"_s << false;
        QTest::newRow("rename, name") << u"rename"_s << u"name"_s << false;
        QTest::newRow("place, name") << u"place"_s << u"name"_s << false;
    }
    void confined_linkPlantedAtTheLastMomentIsRefused()
    {
        QFETCH(QString, operation);
        QFETCH(QString, where);
        QFETCH(bool, refused);
        const QString base = m_dir.filePath(u"confined-"_s + QString(operation).replace(u' ', u'-') + u'-' + where);
        const QString root = base + u"/root"_s;
        const QString victim = base + u"/victim"_s;
        QVERIFY(QDir().mkpath(root + u"/lib"_s));
        QVERIFY(writeFile(victim + u"/libcudart.so"_s, "the victim's own file"));
        QVERIFY(writeFile(base + u"/source"_s, "new bytes"));
        const QString relative = u"lib/libcudart.so"_s;
        if (operation == u"relink")
            QVERIFY(QFile::link(u"libcudart.so.11.0"_s, root + u'/' + relative)); // tfsetup's own link
        const QString planted = where == u"folder" ? QString(root + u"/lib"_s) : QString(root + u'/' + relative);
        const QString pointsTo = where == u"folder" ? victim : QString(victim + u"/libcudart.so"_s);
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path == root + u'/' + relative)
                fired = plantFolderLink(planted, pointsTo);
        });

        core::Status done = core::Ok{};
        QFile file;
        if (operation == u"write") {
            done = core::writeConfined(root, relative, "new bytes");
        } else if (operation.startsWith(u"open")) {
            const core::ConfinedOpen how = operation == u"open new" ? core::ConfinedOpen::CreateNew
                : operation == u"open replace"                      ? core::ConfinedOpen::Replace
                                                                    : core::ConfinedOpen::ReadWrite;
            done = core::openConfined(file, root, relative, how);
            if (done)
                file.write("new bytes");
            file.close();
        } else if (operation == u"rename") {
            done = core::renameConfined(base, u"source"_s, root, relative);
        } else if (operation == u"link") {
            done = core::linkConfined(root, relative, u"libcudart.so.11.0"_s);
        } else if (operation == u"relink") {
            done = core::relinkConfined(root, relative, base + u"/source"_s);
        } else if (operation == u"copy") {
            done = core::copyConfined(base, u"source"_s, root, relative);
        } else {
            done = core::placeConfined(base + u"/source"_s, root, relative, core::PlaceHow::LinkOrCopy);
        }
        QVERIFY(fired);
        QCOMPARE(readFile(victim + u"/libcudart.so"_s), QByteArray("the victim's own file"));
        QCOMPARE(entriesOf(victim), QStringList{u"libcudart.so"_s});
        if (refused) {
            QVERIFY(!done);
            QVERIFY2(done.error().code == u"path_through_link",
                     qPrintable(done.error().code + u' ' + done.error().detail));
            QVERIFY2(!done.error().message.isEmpty(), "a refusal says what to do");
        } else {
            QVERIFY2(done, qPrintable(done ? QString() : done.error().message));
            QVERIFY(!QFileInfo(root + u'/' + relative).isSymLink());
            QCOMPARE(readFile(root + u'/' + relative), QByteArray("new bytes"));
        }
    }

    // The .part: checked (a link there is removed), and then a link appears just before it is
    // opened. The download fails; the file the link points to receives nothing.
    void fetch_partLinkPlantedAfterTheCheckIsRefused()
    {
        test::LoopbackServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QByteArray payload(64 * 1024, 'p');
        server.route("/late.bin", test::Response::bytes(payload));
        const QString folder = m_dir.filePath(u"fetch-late"_s);
        const QString victim = folder + u"/victim/.bashrc"_s;
        QVERIFY(writeFile(victim, "export PS1='$ '\n"));
        const QString out = folder + u"/out/late.bin"_s;
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path == out + u".part"_s)
                fired = QFile::link(victim, path);
        });
        core::TransferOptions options;
        options.probeMirrors = false;
        core::Downloader downloader(options, core::DownloadCache());
        core::DownloadRequest request;
        request.name = u"late.bin"_s;
        request.urls = {server.url(u"/late.bin"_s)};
        request.checksum = core::Checksum{core::Checksum::Algorithm::Sha256,
                                          QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()};
        request.destination = out;
        const auto fetched = QCoro::waitFor(downloader.fetch(request));
        QVERIFY(fired);
        QVERIFY2(!fetched, "a download that could not be written is no success");
        QCOMPARE(readFile(victim), QByteArray("export PS1='$ '\n"));
        QVERIFY(!QFileInfo::exists(out));
    }

    // A shared cache folder swapped for a link just before a verified file is put in: nothing
    // lands in the other folder.
    void cache_folderLinkPlantedAfterTheCheckReceivesNothing()
    {
        const QByteArray payload(32 * 1024, 'c');
        const QString folder = m_dir.filePath(u"cache-late"_s);
        const QString elsewhere = folder + u"/elsewhere"_s;
        QVERIFY(QDir().mkpath(elsewhere));
        const QString verified = folder + u"/out/cached.bin"_s;
        QVERIFY(writeFile(verified, payload));
        const core::DownloadCache cache(folder + u"/cache"_s);
        const core::Checksum checksum{core::Checksum::Algorithm::Sha256,
                                      QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()};
        const QString entry = cache.pathFor(checksum);
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && QFileInfo(path).absoluteFilePath() == QFileInfo(entry).absoluteFilePath()) {
                QDir().mkpath(QFileInfo(entry).absolutePath());
                fired = plantFolderLink(QFileInfo(entry).absolutePath(), elsewhere);
            }
        });
        cache.putIn(checksum, verified);
        QVERIFY(fired);
        QCOMPARE(entriesOf(elsewhere), QStringList());
        QCOMPARE(readFile(verified), payload);

        // Without the link, the same file goes in.
        core::setConfinedWalkHook({});
        QVERIFY(QFile::remove(QFileInfo(entry).absolutePath()));
        cache.putIn(checksum, verified);
        QVERIFY(!QFileInfo(QFileInfo(entry).absolutePath()).isSymLink());
        QCOMPARE(readFile(entry), payload);
    }

    // An install whose staging folder gets a link where the kernel folder goes, just before
    // kernel/kernel.json is written: the install stops with the link message, the linked folder
    // receives nothing and nothing is left in the install folder.
    void install_stagingFolderLinkPlantedBeforeTheWriteIsRefused()
    {
        const QString prefix = m_dir.filePath(u"install-late/envs"_s);
        const QString victim = m_dir.filePath(u"install-late/victim"_s);
        QVERIFY(writeFile(victim + u"/notes.txt"_s, "mine"));
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path.contains(u"/.tf-late.staging-"_s) && path.endsWith(u"/kernel/kernel.json"_s))
                fired = plantFolderLink(path.section(u'/', 0, -2), victim);
        });
        core::InstallSpec spec;
        spec.name = u"tf-late"_s;
        spec.prefix = prefix;
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.15.1"_s;
        spec.python = u"3.11"_s;
        spec.registerKernel = false;
        spec.desktopEntry = false;
        core::RealSystem system;
        core::Installer installer(system, test::shippedKnowledge());
        const auto installed = QCoro::waitFor(installer.install(spec));
        QVERIFY(fired);
        QVERIFY(!installed);
        QCOMPARE(installed.error().code, u"path_through_link"_s);
        QCOMPARE(entriesOf(victim), QStringList{u"notes.txt"_s});
        QCOMPARE(readFile(victim + u"/notes.txt"_s), QByteArray("mine"));
        QCOMPARE(entriesOf(prefix), QStringList());
    }

    // A repair puts back an altered kernel/kernel.json; just after its check of the way there,
    // the environment's kernel folder becomes a link to another folder. The rename is refused,
    // the other folder is untouched, and the environment's record is unchanged.
    void repair_folderLinkPlantedAfterTheCheckIsRefused()
    {
        const QString home = m_dir.filePath(u"repair-late"_s);
        const Run made = install(home, {u"--prefix"_s, home + u"/envs"_s});
        QVERIFY2(made.exitCode == 0, qPrintable(made.out + made.err));
        const QString env = home + u"/envs/tf-cli"_s;
        QVERIFY(writeFile(env + u"/kernel/kernel.json"_s, R"({"argv": ["edited"]})"));
        const QByteArray record = readFile(env + u"/environment.json"_s);
        const QString victim = home + u"/victim"_s;
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (fired || !path.endsWith(u"/tf-cli/kernel/kernel.json"_s) || path.contains(u".staging-"_s))
                return;
            // The real folder moves away (it becomes the victim) and a link takes its place.
            fired = QDir().rename(env + u"/kernel"_s, victim) && QFile::link(victim, env + u"/kernel"_s);
        });
        // The user's Jupyter folder is the one the install registered the kernel in.
        const QByteArray dataHome = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", QFile::encodeName(home + u"/data"_s));
        core::RealSystem system;
        core::Repairer repairer(system, test::shippedKnowledge());
        core::RepairOptions options;
        options.environmentPath = env;
        const auto repaired = QCoro::waitFor(repairer.repair(options));
        qputenv("XDG_DATA_HOME", dataHome);
        QVERIFY(fired);
        QVERIFY(!repaired);
        QCOMPARE(repaired.error().code, u"path_through_link"_s);
        QCOMPARE(readFile(victim + u"/kernel.json"_s), QByteArray(R"({"argv": ["edited"]})"));
        QVERIFY(!entriesOf(victim).contains(u"kernel.json.user-backup"_s));
        QCOMPARE(readFile(env + u"/environment.json"_s), record);
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

    // Without a link, relink replaces only a link, and copy carries a file's bytes and mode and a
    // link as the link itself.
    void confined_relinkAndCopyWithoutALink()
    {
        const QString root = m_dir.filePath(u"confined-plain"_s);
        QVERIFY(writeFile(root + u"/bin/python3.11"_s, "an interpreter"));
        QVERIFY(
            QFile::setPermissions(root + u"/bin/python3.11"_s, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QVERIFY(QFile::link(u"/old/place/python3.11"_s, root + u"/bin/python"_s));
        QVERIFY(core::relinkConfined(root, u"bin/python"_s, root + u"/bin/python3.11"_s));
        QCOMPARE(QFileInfo(root + u"/bin/python"_s).symLinkTarget(), root + u"/bin/python3.11"_s);
        const core::Status notALink = core::relinkConfined(root, u"bin/python3.11"_s, u"/elsewhere"_s);
        QVERIFY(!notALink);
        QCOMPARE(notALink.error().code, u"path_through_link"_s);
        QCOMPARE(readFile(root + u"/bin/python3.11"_s), QByteArray("an interpreter"));

        QVERIFY(core::copyConfined(root, u"bin/python3.11"_s, root, u"copy/python3.11"_s));
        QCOMPARE(readFile(root + u"/copy/python3.11"_s), QByteArray("an interpreter"));
        QCOMPARE(QFileInfo(root + u"/copy/python3.11"_s).permissions() & QFile::ExeOwner, QFile::ExeOwner);
        QVERIFY(core::copyConfined(root, u"bin/python"_s, root, u"copy/python"_s));
        QCOMPARE(QFileInfo(root + u"/copy/python"_s).symLinkTarget(), root + u"/bin/python3.11"_s);
        QVERIFY(!core::copyConfined(root, u"bin/python3.11"_s, root, u"copy/python3.11"_s)); // never over a name
    }

    // The shared cache's lock file is made by name (QLockFile); a link planted in place of its
    // folder right before the lock is taken, or right after, is refused: no lock, nothing made
    // in (or removed from) the folder the link leads to.
    void cache_lockFolderLinkPlantedAtTheLastMomentIsRefused_data()
    {
        QTest::addColumn<int>("moment"); // the walk hook's call for the lock: 1 before, 2 after
        QTest::newRow("before the lock is taken") << 1;
        QTest::newRow("after the lock is taken") << 2;
    }
    void cache_lockFolderLinkPlantedAtTheLastMomentIsRefused()
    {
        QFETCH(int, moment);
        const QString folder = m_dir.filePath(u"cache-lock-%1"_s.arg(moment));
        const QString elsewhere = folder + u"/elsewhere"_s;
        QVERIFY(writeFile(elsewhere + u"/notes.txt"_s, "mine"));
        const core::DownloadCache cache(folder + u"/cache"_s);
        const core::Checksum checksum{core::Checksum::Algorithm::Sha256,
                                      QCryptographicHash::hash("lock", QCryptographicHash::Sha256).toHex()};
        const QString lockFolder = QFileInfo(cache.pathFor(checksum)).absolutePath();
        int calls = 0;
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!path.endsWith(u".lock"_s) || ++calls != moment)
                return;
            // The real folder moves away and a link takes its place.
            fired = QDir().rename(lockFolder, folder + u"/moved"_s) && QFile::link(elsewhere, lockFolder);
        });
        const std::atomic<bool> cancel{false};
        auto lock = cache.lock(checksum, &cancel, std::chrono::milliseconds(2000));
        QVERIFY(fired);
        QVERIFY(!lock);
        QCOMPARE(entriesOf(elsewhere), QStringList{u"notes.txt"_s});
        QCOMPARE(readFile(elsewhere + u"/notes.txt"_s), QByteArray("mine"));

        // Without the link, the lock is taken.
        core::setConfinedWalkHook({});
        QVERIFY(QFile::remove(lockFolder));
        auto held = cache.lock(checksum, &cancel, std::chrono::milliseconds(2000));
        QVERIFY(held);
        QVERIFY(held->isLocked());
        QVERIFY(QFileInfo(cache.pathFor(checksum) + u".lock"_s).isFile());
    }

    // A download that fails verification is moved into the quarantine folder beside it. A link
    // planted there at the last moment receives nothing; the bad file is deleted instead.
    void fetch_quarantineFolderLinkPlantedAtTheLastMomentIsRefused()
    {
        const QString folder = m_dir.filePath(u"quarantine-late"_s);
        const QString victim = folder + u"/victim"_s;
        QVERIFY(writeFile(victim + u"/notes.txt"_s, "mine"));
        const QString bad = folder + u"/out/a.bin.part"_s;
        QVERIFY(writeFile(bad, "not what was asked for"));
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path.contains(u"/out/quarantine/a.bin.part."_s))
                fired = plantFolderLink(folder + u"/out/quarantine"_s, victim);
        });
        QCOMPARE(core::quarantineFile(bad), QString());
        QVERIFY(fired);
        QVERIFY(!QFileInfo::exists(bad));
        QCOMPARE(entriesOf(victim), QStringList{u"notes.txt"_s});

        // Without the link it is set aside beside the file.
        core::setConfinedWalkHook({});
        QVERIFY(QFile::remove(folder + u"/out/quarantine"_s));
        QVERIFY(writeFile(bad, "not what was asked for"));
        const QString moved = core::quarantineFile(bad);
        QVERIFY2(moved.startsWith(folder + u"/out/quarantine/a.bin.part."_s), qPrintable(moved));
        QCOMPARE(readFile(moved), QByteArray("not what was asked for"));

        // A cache entry that no longer matches: its quarantine folder, in the cache, swapped for a
        // link just before the move.
        const core::DownloadCache cache(folder + u"/cache"_s);
        const core::Checksum checksum{core::Checksum::Algorithm::Sha256,
                                      QCryptographicHash::hash("good", QCryptographicHash::Sha256).toHex()};
        const QString entry = cache.pathFor(checksum);
        QVERIFY(writeFile(entry, "tampered"));
        fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path.contains(u"/quarantine/"_s))
                fired = plantFolderLink(QFileInfo(entry).absolutePath() + u"/quarantine"_s, victim);
        });
        const auto taken = cache.takeOut(checksum, folder + u"/out/good.bin"_s);
        QVERIFY(fired);
        QVERIFY(!taken);
        QCOMPARE(taken.error().code, u"cache_corrupt"_s);
        QVERIFY(!QFileInfo::exists(entry));
        QCOMPARE(entriesOf(victim), QStringList{u"notes.txt"_s});
        QCOMPARE(readFile(victim + u"/notes.txt"_s), QByteArray("mine"));
    }

    // A relative destination would put the download, and its quarantine folder, wherever the
    // process runs: refused by the downloader, and quarantineFile moves nothing there. And
    // `fetch --out --size 10` (the value forgotten) is a usage error, not a file named "--size".
    void fetch_relativeOrOptionLikeDestinationIsRefused()
    {
        const QString work = m_dir.filePath(u"cwd"_s);
        QVERIFY(QDir().mkpath(work));
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(work));
        QVERIFY(writeFile(work + u"/--size.part"_s, "bad"));
        const QString moved = core::quarantineFile(u"--size.part"_s);
        core::DownloadRequest request;
        request.urls = {QUrl(u"http://127.0.0.1:9/a.bin"_s)};
        request.checksum = {core::Checksum::Algorithm::Sha256, QByteArray(64, 'a')};
        request.destination = u"--size"_s;
        core::Downloader downloader(core::TransferOptions{}, core::DownloadCache());
        const auto fetched = QCoro::waitFor(downloader.fetch(request));
        QVERIFY(QDir::setCurrent(before));
        QCOMPARE(moved, QString());
        QVERIFY(!fetched);
        QCOMPARE(fetched.error().code, u"bad_request"_s);
        QVERIFY2(fetched.error().message.contains(u"whole path"_s), qPrintable(fetched.error().message));
        QCOMPARE(entriesOf(work), QStringList{u"--size.part"_s});

        QProcess p;
        p.setWorkingDirectory(work);
        p.start(qEnvironmentVariable("TFSETUP_BINARY"),
                {u"fetch"_s, u"http://127.0.0.1:9/a.bin"_s, u"--sha256"_s, QString(64, u'a'), u"--out"_s, u"--size"_s,
                 u"10"_s, u"--no-cache"_s});
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.contains(u"--out needs the file to save to"_s) && err.contains(u"./--size"_s), qPrintable(err));
        QCOMPARE(entriesOf(work), QStringList{u"--size.part"_s});
    }

    // Replacing an environment: the user's own files are copied into the new one from the old
    // one's folder handle. A folder of theirs swapped for a link just before the copy: refused,
    // the folder the link leads to untouched, the old environment still in place.
    void install_userFolderLinkPlantedBeforeTheCopyIsRefused()
    {
        const QString prefix = m_dir.filePath(u"install-keep/envs"_s);
        const QString env = prefix + u"/tf-keep"_s;
        const QString victim = m_dir.filePath(u"install-keep/victim"_s);
        core::RealSystem system;
        core::Installer installer(system, test::shippedKnowledge());
        core::InstallSpec spec = linuxSpec(u"tf-keep"_s, prefix);
        const auto first = QCoro::waitFor(installer.install(spec));
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message + u' ' + first.error().detail));
        QVERIFY(writeFile(env + u"/notes/thesis.tex"_s, "chapter one"));
        QVERIFY(writeFile(victim + u"/thesis.tex"_s, "the victim's own file"));
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path == env + u"/notes/thesis.tex"_s)
                fired = QDir(env + u"/notes"_s).removeRecursively() && QFile::link(victim, env + u"/notes"_s);
        });
        spec.tensorflow = u"2.15.0"_s; // another plan: the environment is replaced
        const auto second = QCoro::waitFor(installer.install(spec));
        QVERIFY(fired);
        QVERIFY(!second);
        QCOMPARE(second.error().code, u"path_through_link"_s);
        QCOMPARE(entriesOf(victim), QStringList{u"thesis.tex"_s});
        QCOMPARE(readFile(victim + u"/thesis.tex"_s), QByteArray("the victim's own file"));
        QVERIFY(QFileInfo::exists(env + u"/environment.json"_s));

        // Without the link, the user's file (and a link of theirs, as a link) move into the new one.
        core::setConfinedWalkHook({});
        QVERIFY(QFile::remove(env + u"/notes"_s));
        QVERIFY(writeFile(env + u"/notes/thesis.tex"_s, "chapter one"));
        QVERIFY(QFile::link(victim + u"/thesis.tex"_s, env + u"/notes/draft.tex"_s));
        const auto third = QCoro::waitFor(installer.install(spec));
        QVERIFY2(third, qPrintable(third ? QString() : third.error().message + u' ' + third.error().detail));
        QCOMPARE(readFile(env + u"/notes/thesis.tex"_s), QByteArray("chapter one"));
        QCOMPARE(QFileInfo(env + u"/notes/draft.tex"_s).symLinkTarget(), victim + u"/thesis.tex"_s);
        QCOMPARE(readFile(victim + u"/thesis.tex"_s), QByteArray("the victim's own file"));
    }

    // The swap of an environment for its new version: the old one is renamed aside from the
    // prefix's handle. When a link takes the environment's place just before, the link itself is
    // moved aside and removed as a link: the folder it leads to keeps every file.
    void install_environmentSwappedForALinkBeforeTheRenameKeepsItsTarget()
    {
        const QString prefix = m_dir.filePath(u"install-swap/envs"_s);
        const QString env = prefix + u"/tf-swap"_s;
        const QString victim = m_dir.filePath(u"install-swap/victim"_s);
        core::RealSystem system;
        core::Installer installer(system, test::shippedKnowledge());
        core::InstallSpec spec = linuxSpec(u"tf-swap"_s, prefix);
        const auto first = QCoro::waitFor(installer.install(spec));
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message + u' ' + first.error().detail));
        QVERIFY(writeFile(victim + u"/thesis.tex"_s, "the victim's own file"));
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path == env)
                fired = QDir(env).removeRecursively() && QFile::link(victim, env);
        });
        spec.tensorflow = u"2.15.0"_s;
        const auto second = QCoro::waitFor(installer.install(spec));
        QVERIFY(fired);
        QVERIFY2(second, qPrintable(second ? QString() : second.error().message + u' ' + second.error().detail));
        QVERIFY(!QFileInfo(env).isSymLink());
        QCOMPARE(entriesOf(victim), QStringList{u"thesis.tex"_s});
        QCOMPARE(readFile(victim + u"/thesis.tex"_s), QByteArray("the victim's own file"));
    }

    // A moved venv's own links are re-pointed from the venv's handle: its bin folder swapped for
    // a link just before is refused and the folder the link leads to keeps its link as it was.
    void install_venvLinkFolderPlantedBeforeTheRelinkIsRefused()
    {
        const QString base = m_dir.filePath(u"relocate"_s);
        const QString venv = base + u"/env/venv"_s;
        const QString victim = base + u"/victim"_s;
        QVERIFY(QDir().mkpath(venv + u"/bin"_s));
        QVERIFY(QDir().mkpath(victim));
        QVERIFY(QFile::link(base + u"/staging/python/bin/python3"_s, venv + u"/bin/python"_s));
        QVERIFY(QFile::link(base + u"/staging/python/bin/python3"_s, victim + u"/python"_s));
        bool fired = false;
        core::setConfinedWalkHook([&](const QString &path) {
            if (!fired && path == venv + u"/bin/python"_s)
                fired = plantFolderLink(venv + u"/bin"_s, victim);
        });
        const QStringList done = core::Installer::relocateVenv(venv, base + u"/staging"_s, base + u"/env"_s);
        QVERIFY(fired);
        QCOMPARE(done, QStringList());
        QCOMPARE(QFileInfo(victim + u"/python"_s).symLinkTarget(), base + u"/staging/python/bin/python3"_s);

        // Without the link, the venv's link now names the environment.
        core::setConfinedWalkHook({});
        QVERIFY(QFile::remove(venv + u"/bin"_s));
        QVERIFY(QDir().mkpath(venv + u"/bin"_s));
        QVERIFY(QFile::link(base + u"/staging/python/bin/python3"_s, venv + u"/bin/python"_s));
        QCOMPARE(core::Installer::relocateVenv(venv, base + u"/staging"_s, base + u"/env"_s).size(), 1);
        QCOMPARE(QFileInfo(venv + u"/bin/python"_s).symLinkTarget(), base + u"/env/python/bin/python3"_s);
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
    static core::InstallSpec linuxSpec(const QString &name, const QString &prefix)
    {
        core::InstallSpec spec;
        spec.name = name;
        spec.prefix = prefix;
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.15.1"_s;
        spec.python = u"3.11"_s;
        spec.registerKernel = false;
        spec.desktopEntry = false;
        return spec;
    }
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
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLinks)
#include "test_links.moc"
