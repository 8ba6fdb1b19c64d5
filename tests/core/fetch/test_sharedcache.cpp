// A download cache shared by several downloaders (a lab's machines on one folder, unattended
// installs started together): each file is fetched once per cache, the others wait and take it
// out of the cache; a lock left by a process that died does not block anyone; waiting can be
// cancelled. Many processes at once: core_labmorning.

#include "fetch/downloader.h"

#include "support/coroutinetest.h"
#include "support/loopbackserver.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLockFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/wait.h>
#include <unistd.h>

using namespace tfsetup::core;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;
using namespace std::chrono_literals;

namespace {

Checksum sha256Of(const QByteArray &data)
{
    return Checksum{Checksum::Algorithm::Sha256, QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex()};
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

TransferOptions quickOptions()
{
    TransferOptions o;
    o.probeMirrors = false;
    o.connectTimeout = 5s;
    o.stallTimeout = 5s;
    return o;
}

} // namespace

class TestSharedCache : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_payload = QByteArray(768 * 1024, 'x');
        for (qsizetype i = 0; i < m_payload.size(); i += 97)
            m_payload[i] = char(i % 251);
        m_server = std::make_unique<LoopbackServer>();
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void sharedCache_fetchesOnceWhileOthersWait()
    {
        // Slow enough that all four ask while the first is still fetching.
        m_server->route("/lib.tar.xz", Response::bytes(m_payload).throttle(1024 * 1024));
        const DownloadCache cache(m_dir->filePath(QStringLiteral("shared")));
        std::vector<std::unique_ptr<Downloader>> downloaders;
        std::vector<QCoro::Task<Result<DownloadResult>>> tasks;
        for (int i = 0; i < 4; ++i) {
            downloaders.push_back(std::make_unique<Downloader>(quickOptions(), cache));
            tasks.push_back(downloaders.back()->fetch(request(i)));
        }
        int fromCache = 0;
        for (int i = 0; i < 4; ++i) {
            auto result = tfsetup::test::awaitTask(std::move(tasks[std::size_t(i)]), 30s);
            QVERIFY(result);
            QVERIFY2(result->ok(), result->ok() ? "" : qPrintable(result->error().message));
            QCOMPARE(readAll((*result)->path), m_payload);
            fromCache += (*result)->fromCache ? 1 : 0;
        }
        QCOMPARE(m_server->hits("/lib.tar.xz"), 1);
        QCOMPARE(fromCache, 3);
        QCOMPARE(readAll(cache.pathFor(sha256Of(m_payload))), m_payload);
        // Nothing half-written is left beside the cached file.
        const QStringList left =
            QDir(QFileInfo(cache.pathFor(sha256Of(m_payload))).absolutePath()).entryList(QDir::Files | QDir::Hidden);
        for (const QString &name : left)
            QVERIFY2(!name.contains(QStringLiteral("tfsetup-tmp")), qPrintable(name));
    }

    void sharedCache_lockOfADeadProcessIsTakenOver()
    {
        m_server->route("/lib.tar.xz", Response::bytes(m_payload));
        const DownloadCache cache(m_dir->filePath(QStringLiteral("shared")));
        const QString lockPath = cache.pathFor(sha256Of(m_payload)) + QStringLiteral(".lock");
        QVERIFY(QDir().mkpath(QFileInfo(lockPath).absolutePath()));
        // A child takes the lock and dies without releasing it (as a killed install would).
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            QLockFile held(lockPath);
            _exit(held.tryLock(0) ? 0 : 1);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(QFile::exists(lockPath));

        Downloader downloader(quickOptions(), cache);
        auto result = tfsetup::test::awaitTask(downloader.fetch(request(0)));
        QVERIFY(result);
        QVERIFY2(result->ok(), result->ok() ? "" : qPrintable(result->error().message));
        QCOMPARE(m_server->hits("/lib.tar.xz"), 1);
        QVERIFY(!QFile::exists(lockPath));
    }

    void sharedCache_waitingCanBeCancelled()
    {
        m_server->route("/lib.tar.xz", Response::bytes(m_payload));
        const DownloadCache cache(m_dir->filePath(QStringLiteral("shared")));
        const QString lockPath = cache.pathFor(sha256Of(m_payload)) + QStringLiteral(".lock");
        QVERIFY(QDir().mkpath(QFileInfo(lockPath).absolutePath()));
        QLockFile busy(lockPath); // another live fetcher
        QVERIFY(busy.tryLock(0));

        Downloader downloader(quickOptions(), cache);
        QTimer::singleShot(300ms, &downloader, [&downloader] { downloader.cancelAll(); });
        QElapsedTimer clock;
        clock.start();
        auto result = tfsetup::test::awaitTask(downloader.fetch(request(0)));
        QVERIFY(result);
        QVERIFY(!result->ok());
        QCOMPARE(result->error().code, QStringLiteral("cancelled"));
        QVERIFY(clock.elapsed() < 5000);
        QCOMPARE(m_server->hits("/lib.tar.xz"), 0);
    }

    void sharedCache_patienceRunsOutThenFetchesAnyway()
    {
        m_server->route("/lib.tar.xz", Response::bytes(m_payload));
        const DownloadCache cache(m_dir->filePath(QStringLiteral("shared")));
        const QString lockPath = cache.pathFor(sha256Of(m_payload)) + QStringLiteral(".lock");
        QVERIFY(QDir().mkpath(QFileInfo(lockPath).absolutePath()));
        QLockFile stuck(lockPath); // a holder that never finishes (another machine that hung)
        QVERIFY(stuck.tryLock(0));

        TransferOptions impatient = quickOptions();
        impatient.cacheLockPatience = 500ms;
        Downloader downloader(impatient, cache);
        auto result = tfsetup::test::awaitTask(downloader.fetch(request(0)));
        QVERIFY(result);
        QVERIFY2(result->ok(), result->ok() ? "" : qPrintable(result->error().message));
        QCOMPARE(readAll((*result)->path), m_payload);
        QCOMPARE(m_server->hits("/lib.tar.xz"), 1);
    }

    // A link planted as the cache entry (pointing at a victim's file with the same bytes) is not
    // a cache hit: the download is a plain file, the link is gone, the victim untouched.
    void sharedCache_plantedEntryLinkIsNotTakenOut()
    {
        const QString shared = m_dir->filePath(QStringLiteral("shared"));
        const DownloadCache cache(shared);
        const Checksum sum = sha256Of(m_payload);
        const QString victim = m_dir->filePath(QStringLiteral("victim/.bashrc"));
        QVERIFY(QDir().mkpath(QFileInfo(victim).absolutePath()));
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly) && v.write(m_payload) == m_payload.size());
        v.close();
        const QString entry = cache.pathFor(sum);
        QVERIFY(QDir().mkpath(QFileInfo(entry).absolutePath()));
        QVERIFY(QFile::link(victim, entry));
        const QString out = m_dir->filePath(QStringLiteral("downloads/a.bin"));
        const auto taken = cache.takeOut(sum, out);
        QVERIFY(taken);
        QVERIFY(!*taken);
        QVERIFY(!QFileInfo(entry).isSymLink());
        QVERIFY(!QFileInfo(out).isSymLink());
        // Put in again: the entry is the verified file itself, not a way to the victim.
        const QString verified = m_dir->filePath(QStringLiteral("verified.bin"));
        QFile f(verified);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(m_payload) == m_payload.size());
        f.close();
        QVERIFY(QFile::link(victim, entry));
        cache.putIn(sum, verified);
        QVERIFY(!QFileInfo(entry).isSymLink());
        QCOMPARE(readAll(entry), m_payload);
        QCOMPARE(readAll(victim), m_payload);
        QCOMPARE(QFileInfo(victim).size(), m_payload.size());
    }

    // A folder of the cache replaced by a link to another place: nothing is written there.
    void sharedCache_plantedFolderLinkIsNotWrittenThrough()
    {
        const QString shared = m_dir->filePath(QStringLiteral("shared"));
        const DownloadCache cache(shared);
        const Checksum sum = sha256Of(m_payload);
        const QString elsewhere = m_dir->filePath(QStringLiteral("elsewhere"));
        QVERIFY(QDir().mkpath(elsewhere));
        const QString folder = QFileInfo(cache.pathFor(sum)).absolutePath();
        QVERIFY(QDir().mkpath(QFileInfo(folder).absolutePath()));
        QVERIFY(QFile::link(elsewhere, folder));
        const QString verified = m_dir->filePath(QStringLiteral("verified.bin"));
        QFile f(verified);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(m_payload) == m_payload.size());
        f.close();
        cache.putIn(sum, verified);
        QVERIFY(QDir(elsewhere).isEmpty());
        const auto taken = cache.takeOut(sum, m_dir->filePath(QStringLiteral("downloads/a.bin")));
        QVERIFY(taken);
        QVERIFY(!*taken);
    }

private:
    DownloadRequest request(int worker) const
    {
        DownloadRequest r;
        r.name = QStringLiteral("lib.tar.xz");
        r.urls = {m_server->url(QStringLiteral("/lib.tar.xz"))};
        r.expectedSize = m_payload.size();
        r.checksum = sha256Of(m_payload);
        r.destination = m_dir->filePath(QStringLiteral("machine%1/lib.tar.xz").arg(worker));
        return r;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    QByteArray m_payload;
};

QTEST_GUILESS_MAIN(TestSharedCache)
#include "test_sharedcache.moc"
