#include "fetch/curltransfer.h"
#include "fetch/downloader.h"

#include "support/coroutinetest.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <unistd.h>

using namespace tfsetup::core;
using tfsetup::test::LoopbackProxy;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;
using namespace std::chrono_literals;

namespace {

QByteArray randomBytes(qsizetype size)
{
    QByteArray data(size, Qt::Uninitialized);
    QRandomGenerator generator(42);
    generator.fillRange(reinterpret_cast<quint32 *>(data.data()), size / 4);
    for (qsizetype i = size / 4 * 4; i < size; ++i)
        data[i] = char(generator.generate());
    return data;
}

Checksum sha256Of(const QByteArray &data)
{
    return Checksum{Checksum::Algorithm::Sha256, QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex()};
}

// QVERIFY2 evaluates its message even when the check passes: never touch error() of a success.
QByteArray why(const Result<DownloadResult> &result)
{
    return result.ok() ? QByteArray() : (result.error().message + u'\n' + result.error().detail).toUtf8();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestDownloader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_payload = randomBytes(3 * 1024 * 1024 + 123);
        m_server = std::make_unique<LoopbackServer>();
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void fetch_verifiesAndLeavesNothingElse()
    {
        m_server->route("/a.bin", Response::bytes(m_payload));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(result->path), m_payload);
        QCOMPARE(result->bytes, m_payload.size());
        QVERIFY(!result->fromCache);
        QVERIFY(!QFile::exists(Downloader::partPathFor(destination())));
        QVERIFY(!QFile::exists(Downloader::partPathFor(destination()) + QStringLiteral(".state")));
    }

    void fetch_checksumMismatchQuarantinesTheFile()
    {
        m_server->route("/a.bin", Response::bytes(m_payload).corruptAt(1000));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, QStringLiteral("checksum_mismatch"));
        QVERIFY(!QFile::exists(destination()));
        QVERIFY(!QFile::exists(Downloader::partPathFor(destination())));
        const QStringList quarantined = QDir(m_dir->filePath(QStringLiteral("out/quarantine"))).entryList(QDir::Files);
        QCOMPARE(quarantined.size(), 1);
        QVERIFY(result.error().message.contains(quarantined.first()));
    }

    void fetch_mirrorsFailOverAndNeverChangeWhatIsAccepted()
    {
        LoopbackServer bad;
        QVERIFY(bad.start());
        bad.route("/a.bin", Response::bytes(m_payload).corruptAt(5)); // a mirror serving other bytes
        m_server->route("/a.bin", Response::bytes(m_payload));
        TransferOptions inOrder = fastOptions();
        inOrder.probeMirrors = false; // take the mirrors in the order given, bad ones first
        Downloader downloader(inOrder, DownloadCache(cacheDir()));
        const QUrl missing = m_server->url(QStringLiteral("/missing.bin")); // 404
        const auto result = fetch(
            downloader, request({missing, bad.url(QStringLiteral("/a.bin")), m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(result->source, m_server->url(QStringLiteral("/a.bin")));
        QCOMPARE(readAll(destination()), m_payload);
        QCOMPARE(QDir(m_dir->filePath(QStringLiteral("out/quarantine"))).entryList(QDir::Files).size(), 1);
    }

    void fetch_resumesAfterDroppedConnection_data()
    {
        QTest::addColumn<bool>("rangeSupported");
        QTest::newRow("server with Range") << true;
        QTest::newRow("server ignoring Range") << false;
    }

    void fetch_resumesAfterDroppedConnection()
    {
        QFETCH(bool, rangeSupported);
        const QByteArray payload = m_payload;
        m_server->handle("/a.bin", [payload, rangeSupported](const tfsetup::test::RecordedRequest &, int hit) {
            Response r = Response::bytes(payload);
            if (!rangeSupported)
                r.ignoreRange();
            if (hit == 1)
                r.dropAfter(1024 * 1024);
            return r;
        });
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
        const auto requests = m_server->requests("/a.bin");
        QCOMPARE(requests.size(), 2);
        QVERIFY(requests.first().header("range").isEmpty());
        QVERIFY2(requests.last().header("range").startsWith("bytes=1048576-"),
                 requests.last().header("range").constData());
    }

    void fetch_serverCuttingEveryResponse_data()
    {
        QTest::addColumn<bool>("rangeSupported");
        QTest::newRow("server with Range: finished by resuming") << true;
        QTest::newRow("server ignoring Range: fails after the retries") << false;
    }

    void fetch_serverCuttingEveryResponse()
    {
        // Every response ends after 1 MiB, many more times than the retries allowed: each resume
        // brings the file further, so none counts as a failure in a row and the file arrives,
        // each byte served about once. A server that starts again from zero makes no progress:
        // its drops are counted and the fetch ends.
        QFETCH(bool, rangeSupported);
        const QByteArray payload = randomBytes(8 * 1024 * 1024 + 77);
        m_server->handle("/a.bin", [payload, rangeSupported](const tfsetup::test::RecordedRequest &, int) {
            Response r = Response::bytes(payload);
            if (!rangeSupported)
                r.ignoreRange();
            r.dropAfter(1024 * 1024);
            return r;
        });
        TransferOptions options = fastOptions();
        options.retriesPerMirror = 1;
        options.progressBytes = 512 * 1024;
        Downloader downloader(options, DownloadCache(cacheDir()));
        DownloadRequest r = request({m_server->url(QStringLiteral("/a.bin"))});
        r.checksum = sha256Of(payload);
        r.expectedSize = payload.size();
        const auto result = fetch(downloader, r);
        if (rangeSupported) {
            QVERIFY2(result.ok(), why(result).constData());
            QCOMPARE(readAll(destination()), payload);
            QVERIFY(m_server->hits("/a.bin") >= 8);
            QVERIFY2(m_server->bodyBytesSent("/a.bin") <= payload.size() * 11 / 10,
                     QByteArray::number(m_server->bodyBytesSent("/a.bin")).constData());
        } else {
            QVERIFY(!result.ok());
            QCOMPARE(result.error().code, QStringLiteral("dropped"));
            QVERIFY2(m_server->hits("/a.bin") <= 6, QByteArray::number(m_server->hits("/a.bin")).constData());
            QVERIFY(!QFile::exists(destination()));
        }
    }

    void fetch_droppedRangeGoesOnWhileTheOthersRun()
    {
        // Four ranges, every response cut after 2 MiB, no retry allowed: a range whose connection
        // closed after bringing bytes goes on over a new connection at once, within the same
        // attempt, and the ranges still running are not stopped (stopping them would throw away
        // what their connections had under way).
        const QByteArray payload = randomBytes(16 * 1024 * 1024 + 5);
        m_server->handle("/a.bin", [payload](const tfsetup::test::RecordedRequest &, int) {
            return Response::bytes(payload).dropAfter(2 * 1024 * 1024);
        });
        TransferOptions options = fastOptions();
        options.retriesPerMirror = 0;
        Downloader downloader(options, DownloadCache(cacheDir()));
        DownloadRequest r = request({m_server->url(QStringLiteral("/a.bin"))});
        r.checksum = sha256Of(payload);
        r.expectedSize = payload.size();
        r.segments = 4;
        const auto result = fetch(downloader, r);
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), payload);
        QVERIFY(m_server->hits("/a.bin") >= 8);
        QVERIFY2(m_server->bodyBytesSent("/a.bin") <= payload.size() * 11 / 10,
                 QByteArray::number(m_server->bodyBytesSent("/a.bin")).constData());
    }

    void fetch_segmentsFetchRangesInParallel_data()
    {
        QTest::addColumn<bool>("rangeSupported");
        QTest::newRow("ranges honoured") << true;
        QTest::newRow("ranges ignored: falls back to one stream") << false;
    }

    void fetch_segmentsFetchRangesInParallel()
    {
        QFETCH(bool, rangeSupported);
        Response r = Response::bytes(m_payload);
        if (!rangeSupported)
            r.ignoreRange();
        m_server->route("/a.bin", r);
        TransferOptions options = fastOptions();
        options.minSegmentBytes = 256 * 1024;
        Downloader downloader(options, DownloadCache(cacheDir()));
        DownloadRequest req = request({m_server->url(QStringLiteral("/a.bin"))});
        req.segments = 4;
        const auto result = fetch(downloader, req);
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
        const auto requests = m_server->requests("/a.bin");
        if (rangeSupported) {
            // Four ranges, and perhaps more when a finished connection took over part of a slower one.
            QVERIFY(requests.size() >= 4);
            QStringList ranges;
            for (const auto &rq : requests)
                ranges.append(QString::fromLatin1(rq.header("range")));
            QVERIFY(ranges.contains(QStringLiteral("bytes=0-%1").arg(m_payload.size() / 4 - 1)));
        } else {
            QCOMPARE(requests.last().header("range"), QByteArray());
        }
    }

    void fetch_finishedConnectionTakesOverASlowRange()
    {
        const QByteArray payload = m_payload;
        // The first range asked for crawls; the others are fast.
        m_server->handle("/a.bin", [payload](const tfsetup::test::RecordedRequest &, int hit) {
            Response r = Response::bytes(payload);
            if (hit == 1)
                r.throttle(100 * 1024);
            return r;
        });
        TransferOptions options = fastOptions();
        options.minSegmentBytes = 256 * 1024;
        Downloader downloader(options, DownloadCache(cacheDir()));
        DownloadRequest req = request({m_server->url(QStringLiteral("/a.bin"))});
        req.segments = 4;
        const auto result = fetch(downloader, req);
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
        // Four ranges plus at least one taken over from the slow one.
        QVERIFY2(m_server->requests("/a.bin").size() >= 5,
                 QByteArray::number(m_server->requests("/a.bin").size()).constData());
    }

    void fetch_refusesWhatIsNotTheFile_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("code");
        QTest::newRow("HTML page with 200") << QStringLiteral("html") << QStringLiteral("html_page");
        QTest::newRow("wrong Content-Length") << QStringLiteral("length") << QStringLiteral("size_mismatch");
        QTest::newRow("404") << QStringLiteral("404") << QStringLiteral("http_error");
    }

    void fetch_refusesWhatIsNotTheFile()
    {
        QFETCH(QString, kind);
        QFETCH(QString, code);
        if (kind == u"html")
            m_server->route("/a.bin", Response::htmlErrorPage());
        else if (kind == u"length")
            m_server->route("/a.bin", Response::bytes(m_payload).announceLength(m_payload.size() + 10));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, code);
        QVERIFY(!result.error().message.isEmpty());
        QVERIFY(!QFile::exists(destination()));
    }

    void fetch_stalledMirrorIsLeft()
    {
        LoopbackServer slow;
        QVERIFY(slow.start());
        slow.route("/a.bin", Response::bytes(m_payload).delayHeaders(5s));
        m_server->route("/a.bin", Response::bytes(m_payload));
        TransferOptions options = fastOptions();
        options.stallTimeout = 1s;
        options.retriesPerMirror = 0;
        Downloader downloader(options, DownloadCache(cacheDir()));
        const auto result = fetch(
            downloader, request({slow.url(QStringLiteral("/a.bin")), m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(result->source, m_server->url(QStringLiteral("/a.bin")));
    }

    void speedFloor_isOnByDefault()
    {
        // On for every download unless turned off, and low enough for a slow campus link: a
        // 256 kbit/s share (32 KB/s) stays well above it, judged over a window of half a minute
        // or more.
        const TransferOptions defaults;
        QVERIFY(defaults.lowSpeedBytesPerSecond > 0);
        QVERIFY(defaults.lowSpeedBytesPerSecond <= 32000 / 2);
        QVERIFY(defaults.lowSpeedTime >= 30s);
        QCOMPARE(Downloader(defaults).options().lowSpeedBytesPerSecond, defaults.lowSpeedBytesPerSecond);
    }

    void speedFloor_optionIsRead_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qint64>("floor");
        QTest::addColumn<qint64>("seconds");
        const qint64 defaultSeconds = TransferOptions{}.lowSpeedTime.count();
        QTest::newRow("bytes only") << QStringLiteral("20000") << true << qint64(20000) << defaultSeconds;
        QTest::newRow("KiB and seconds") << QStringLiteral("10k:60") << true << qint64(10240) << qint64(60);
        QTest::newRow("MiB") << QStringLiteral("1M:5") << true << qint64(1048576) << qint64(5);
        QTest::newRow("off") << QStringLiteral("0") << true << qint64(0) << defaultSeconds;
        QTest::newRow("no window") << QStringLiteral("10k:0") << false << qint64(-1) << qint64(-1);
        QTest::newRow("negative") << QStringLiteral("-5") << false << qint64(-1) << qint64(-1);
        QTest::newRow("words") << QStringLiteral("fast") << false << qint64(-1) << qint64(-1);
        QTest::newRow("empty") << QString() << false << qint64(-1) << qint64(-1);
    }

    void speedFloor_optionIsRead()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(qint64, floor);
        QFETCH(qint64, seconds);
        TransferOptions options;
        const TransferOptions before = options;
        const Status read = Downloader::parseSpeedFloor(text, &options);
        QCOMPARE(read.ok(), ok);
        if (ok) {
            QCOMPARE(options.lowSpeedBytesPerSecond, floor);
            QCOMPARE(qint64(options.lowSpeedTime.count()), seconds);
        } else {
            QVERIFY(read.error().message.contains(QLatin1String("0 turns the floor off")));
            QCOMPARE(options.lowSpeedBytesPerSecond, before.lowSpeedBytesPerSecond);
            QCOMPARE(options.lowSpeedTime, before.lowSpeedTime);
        }
    }

    void speedFloor_tricklingMirrorIsDroppedAndTheNextContinues()
    {
        LoopbackServer trickle;
        QVERIFY(trickle.start());
        trickle.route("/a.bin", Response::bytes(m_payload).throttle(64 * 1024));
        m_server->route("/a.bin", Response::bytes(m_payload));
        Downloader downloader(floorOptions(), DownloadCache());
        QStringList notes;
        QObject::connect(&downloader, &Downloader::progress, &downloader, [&notes](const DownloadProgress &p) {
            if (!p.note.isEmpty())
                notes.append(p.note);
        });
        const QUrl slowUrl = trickle.url(QStringLiteral("/a.bin"));
        const QUrl fastUrl = m_server->url(QStringLiteral("/a.bin"));
        const auto result = fetch(downloader, request({slowUrl, fastUrl}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(result->source, fastUrl);
        QCOMPARE(readAll(destination()), m_payload);

        // The bytes the trickle brought were kept: the second mirror was asked for the rest only
        // and sent exactly that.
        const qint64 fromTrickle = trickle.bodyBytesSent("/a.bin");
        const qint64 fromSecond = m_server->bodyBytesSent("/a.bin");
        QVERIFY2(fromTrickle > 0, "the trickle sent something before it was dropped");
        QCOMPARE(m_server->hits("/a.bin"), 1);
        const qint64 kept = m_payload.size() - fromSecond;
        QVERIFY2(kept > 0 && kept <= fromTrickle,
                 qPrintable(QStringLiteral("kept %1 of the %2 the trickle sent").arg(kept).arg(fromTrickle)));
        const QByteArray range = m_server->requests("/a.bin").first().header("range");
        QVERIFY2(range.startsWith(QByteArray("bytes=" + QByteArray::number(kept) + '-')), range.constData());

        // Said in the progress (and the log) with the translated words, naming both mirrors.
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.first().contains(QLatin1String("too slowly")), qPrintable(notes.first()));
        QVERIFY(notes.first().contains(slowUrl.toDisplayString()));
        QVERIFY(notes.first().contains(fastUrl.toDisplayString()));
    }

    void speedFloor_segmentsDroppedTogetherAndResumedAsSegments()
    {
        // Four ranges from a trickle: the floor holds for all of them together, and the next
        // mirror continues each range where it stopped.
        LoopbackServer trickle;
        QVERIFY(trickle.start());
        trickle.route("/a.bin", Response::bytes(m_payload).throttle(16 * 1024));
        m_server->route("/a.bin", Response::bytes(m_payload));
        TransferOptions options = floorOptions();
        options.minSegmentBytes = 256 * 1024;
        Downloader downloader(options, DownloadCache());
        DownloadRequest req = request({trickle.url(QStringLiteral("/a.bin")), m_server->url(QStringLiteral("/a.bin"))});
        req.segments = 4;
        const auto result = fetch(downloader, req);
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
        QVERIFY(trickle.bodyBytesSent("/a.bin") > 0);
        // Each of the four ranges went on past its start (a connection that takes over half of
        // another's range starts in its middle, never at one of these).
        const QList<tfsetup::test::RecordedRequest> second = m_server->requests("/a.bin");
        QVERIFY(second.size() >= 4);
        const qint64 quarter = m_payload.size() / 4;
        for (const auto &rq : second) {
            const QByteArray range = rq.header("range");
            QVERIFY2(range.startsWith("bytes="), range.constData());
            const qint64 start = range.mid(6, range.indexOf('-') - 6).toLongLong();
            QVERIFY2(start % quarter != 0, range.constData());
        }
    }

    void speedFloor_slowButAboveTheFloorIsKept_data()
    {
        QTest::addColumn<int>("segments");
        QTest::addColumn<qint64>("perConnection");
        // One connection above the floor; and four that are each below it but together above:
        // the floor is for the mirror, not for each connection.
        QTest::newRow("one connection") << 1 << qint64(768 * 1024);
        QTest::newRow("four connections, each below the floor") << 4 << qint64(256 * 1024);
    }

    void speedFloor_slowButAboveTheFloorIsKept()
    {
        QFETCH(int, segments);
        QFETCH(qint64, perConnection);
        LoopbackServer slow;
        QVERIFY(slow.start());
        slow.route("/a.bin", Response::bytes(m_payload).throttle(perConnection));
        m_server->route("/a.bin", Response::bytes(m_payload));
        TransferOptions options = floorOptions();
        options.lowSpeedBytesPerSecond = 512 * 1024;
        options.minSegmentBytes = 256 * 1024;
        Downloader downloader(options, DownloadCache());
        QStringList notes;
        QObject::connect(&downloader, &Downloader::progress, &downloader, [&notes](const DownloadProgress &p) {
            if (!p.note.isEmpty())
                notes.append(p.note);
        });
        DownloadRequest req = request({slow.url(QStringLiteral("/a.bin")), m_server->url(QStringLiteral("/a.bin"))});
        req.segments = segments;
        QElapsedTimer clock;
        clock.start();
        const auto result = fetch(downloader, req);
        QVERIFY2(result.ok(), why(result).constData());
        // It took several windows of the floor, all of them from the slow mirror.
        QVERIFY2(clock.elapsed() > 2 * 1000, QByteArray::number(clock.elapsed()).constData());
        QCOMPARE(result->source, slow.url(QStringLiteral("/a.bin")));
        QCOMPARE(readAll(destination()), m_payload);
        QCOMPARE(m_server->hits("/a.bin"), 0);
        // (A connection that gave half its range to another may have been sent a little more.)
        QVERIFY(slow.bodyBytesSent("/a.bin") >= m_payload.size());
        QVERIFY2(notes.isEmpty(), qPrintable(notes.join(u'\n')));
    }

    void speedFloor_lastSourceIsResumedThenReportedTooSlow()
    {
        // Nothing else to go to: the only mirror is resumed (its bytes kept) as often as a
        // stalled one would be, and only then does the download fail, saying why.
        m_server->route("/a.bin", Response::bytes(m_payload).throttle(64 * 1024));
        TransferOptions options = floorOptions();
        options.retriesPerMirror = 1;
        Downloader downloader(options, DownloadCache());
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, QStringLiteral("too_slow"));
        QVERIFY2(result.error().message.contains(QLatin1String("too slowly")), qPrintable(result.error().message));
        const auto requests = m_server->requests("/a.bin");
        QCOMPARE(requests.size(), 2);
        QVERIFY(requests.first().header("range").isEmpty());
        QVERIFY2(requests.last().header("range").startsWith("bytes=")
                     && !requests.last().header("range").startsWith("bytes=0-"),
                 requests.last().header("range").constData());
        QVERIFY(QFile::exists(Downloader::partPathFor(destination())));
        QVERIFY(!QFile::exists(destination()));
    }

    void cache_verifiedFileIsNeverFetchedTwice()
    {
        m_server->route("/a.bin", Response::bytes(m_payload));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        QVERIFY(fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))})).ok());
        DownloadRequest again = request({m_server->url(QStringLiteral("/a.bin"))});
        again.destination = m_dir->filePath(QStringLiteral("elsewhere/a.bin"));
        const auto second = fetch(downloader, again);
        QVERIFY(second.ok());
        QVERIFY(second->fromCache);
        QCOMPARE(readAll(again.destination), m_payload);
        QCOMPARE(m_server->hits("/a.bin"), 1);
        // The destination itself, already verified, is not fetched again either.
        QVERIFY(fetch(downloader, again).ok());
        QCOMPARE(m_server->hits("/a.bin"), 1);
    }

    void cache_tamperedCopyIsRefusedAndRefetched()
    {
        m_server->route("/a.bin", Response::bytes(m_payload));
        const DownloadCache cache(cacheDir());
        Downloader downloader(fastOptions(), cache);
        QVERIFY(fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))})).ok());
        const QString cached = cache.pathFor(sha256Of(m_payload));
        {
            QFile f(cached);
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(10);
            f.write("tampered");
        }
        DownloadRequest again = request({m_server->url(QStringLiteral("/a.bin"))});
        again.destination = m_dir->filePath(QStringLiteral("elsewhere/a.bin"));
        const auto second = fetch(downloader, again);
        QVERIFY(second.ok());
        QVERIFY(!second->fromCache);
        QCOMPARE(readAll(again.destination), m_payload);
        QCOMPARE(m_server->hits("/a.bin"), 2);
        QCOMPARE(QDir(cacheDir() + QStringLiteral("/sha256/") + QString::fromLatin1(sha256Of(m_payload).hex.left(2))
                      + QStringLiteral("/quarantine"))
                     .entryList(QDir::Files)
                     .size(),
                 1);
    }

    void cancel_thenResumeInANewDownloader()
    {
        m_server->route("/a.bin", Response::bytes(m_payload).throttle(1024 * 1024));
        {
            Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
            DownloadRequest req = request({m_server->url(QStringLiteral("/a.bin"))});
            QObject::connect(&downloader, &Downloader::progress, &downloader, [&](const DownloadProgress &p) {
                if (p.received > 512 * 1024)
                    downloader.cancel(req.name);
            });
            const auto result = fetch(downloader, req);
            QVERIFY(!result.ok());
            QCOMPARE(result.error().code, QStringLiteral("cancelled"));
            QVERIFY(!QFile::exists(destination()));
            QVERIFY(QFile::exists(Downloader::partPathFor(destination())));
        }
        // A new Downloader (as after a restart of the program) continues from the part file.
        m_server->route("/a.bin", Response::bytes(m_payload));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
        const QByteArray range = m_server->requests("/a.bin").last().header("range");
        QVERIFY2(range.startsWith("bytes=") && !range.startsWith("bytes=0-"), range.constData());
    }

    void concurrent_severalArtifactsAtOnce()
    {
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        downloader.setMaxParallel(3);
        QList<QByteArray> payloads;
        std::vector<QCoro::Task<Result<DownloadResult>>> tasks;
        for (int i = 0; i < 3; ++i) {
            payloads.append(randomBytes(512 * 1024 + i));
            payloads.last()[0] = char(i);
            const QByteArray path = "/f" + QByteArray::number(i);
            m_server->route(path, Response::bytes(payloads.last()).throttle(2 * 1024 * 1024));
            DownloadRequest req;
            req.name = QStringLiteral("f%1").arg(i);
            req.urls = {m_server->url(QString::fromLatin1(path))};
            req.checksum = sha256Of(payloads.last());
            req.expectedSize = payloads.last().size();
            req.destination = m_dir->filePath(QStringLiteral("out/f%1").arg(i));
            tasks.push_back(downloader.fetch(req));
        }
        for (int i = 0; i < 3; ++i) {
            const auto result = tfsetup::test::awaitTask(std::move(tasks[i]), 20s);
            QVERIFY(result.has_value());
            QVERIFY(result->ok());
            QCOMPARE(readAll(m_dir->filePath(QStringLiteral("out/f%1").arg(i))), payloads[i]);
        }
    }

    void tls_selfSignedRejectedUnlessTrusted()
    {
        LoopbackServer tls(LoopbackServer::Https);
        QVERIFY2(tls.start(), qPrintable(tls.errorString()));
        tls.route("/a.bin", Response::bytes(m_payload));
        {
            Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
            const auto result = fetch(downloader, request({tls.url(QStringLiteral("/a.bin"))}));
            QVERIFY(!result.ok());
            QCOMPARE(result.error().code, QStringLiteral("tls"));
            QVERIFY(!QFile::exists(destination()));
        }
        const QString ca = m_dir->filePath(QStringLiteral("ca.pem"));
        QVERIFY(tls.writeCaCertificate(ca));
        TransferOptions options = fastOptions();
        options.caBundle = ca;
        Downloader downloader(options, DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({tls.url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(readAll(destination()), m_payload);
    }

    void tls_redirectToPlainHttpIsRefused()
    {
        LoopbackServer tls(LoopbackServer::Https);
        QVERIFY(tls.start());
        m_server->route("/a.bin", Response::bytes(m_payload));
        tls.route("/a.bin", Response::redirect(m_server->url(QStringLiteral("/a.bin"))));
        const QString ca = m_dir->filePath(QStringLiteral("ca.pem"));
        QVERIFY(tls.writeCaCertificate(ca));
        TransferOptions options = fastOptions();
        options.caBundle = ca;
        Downloader downloader(options, DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({tls.url(QStringLiteral("/a.bin"))}));
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, QStringLiteral("insecure_redirect"));
        QCOMPARE(m_server->hits("/a.bin"), 0);
    }

    void proxy_explicitProxyCarriesTheTransfer()
    {
        LoopbackProxy proxy;
        QVERIFY2(proxy.start(), qPrintable(proxy.errorString()));
        m_server->route("/a.bin", Response::bytes(m_payload));
        TransferOptions options = fastOptions();
        options.proxy = QString::fromLatin1(proxy.proxyUrl());
        Downloader downloader(options, DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QVERIFY(proxy.forwardCount() + proxy.tunnelCount() >= 1);
    }

    void local_unwritableDestinationIsAClearError()
    {
        if (::geteuid() == 0)
            QSKIP("root may write anywhere; the system-view fault tests cover this case");
        m_server->route("/a.bin", Response::bytes(m_payload));
        const QString locked = m_dir->filePath(QStringLiteral("locked"));
        QDir().mkpath(locked);
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner);
        Downloader downloader(fastOptions(), DownloadCache());
        DownloadRequest req = request({m_server->url(QStringLiteral("/a.bin"))});
        req.destination = locked + QStringLiteral("/a.bin");
        const auto result = fetch(downloader, req);
        QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, QStringLiteral("permission_denied"));
    }

    void mirrors_probeOrdersFastestFirstAndMissingLast()
    {
        LoopbackServer slow;
        LoopbackServer fast;
        QVERIFY(slow.start());
        QVERIFY(fast.start());
        slow.route("/a.bin", Response::bytes(m_payload).delayHeaders(600ms));
        fast.route("/a.bin", Response::bytes(m_payload));
        const QUrl missing = m_server->url(QStringLiteral("/missing.bin"));
        const QList<QUrl> ordered = orderMirrorsByLatency(
            {missing, slow.url(QStringLiteral("/a.bin")), fast.url(QStringLiteral("/a.bin"))}, fastOptions(), 3s);
        QCOMPARE(ordered,
                 (QList<QUrl>{fast.url(QStringLiteral("/a.bin")), slow.url(QStringLiteral("/a.bin")), missing}));
        QCOMPARE(slow.requests("/a.bin").first().method, QByteArray("HEAD"));

        // The downloader uses that order: the fast mirror serves the file, the slow one only a HEAD.
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto result = fetch(downloader,
                                  request({slow.url(QStringLiteral("/a.bin")), fast.url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), why(result).constData());
        QCOMPARE(result->source, fast.url(QStringLiteral("/a.bin")));
    }

    void proxy_explicitSettingWinsOverEnvironment()
    {
        TransferOptions options;
        options.proxy = QStringLiteral("http://127.0.0.1:3128");
        QCOMPARE(proxyFor(QUrl(QStringLiteral("https://developer.download.nvidia.com/x")), options), options.proxy);
        qputenv("https_proxy", "http://127.0.0.1:9");
        // The environment's proxy is left to libcurl, which also honours no_proxy.
        QVERIFY(proxyFor(QUrl(QStringLiteral("https://developer.download.nvidia.com/x")), TransferOptions{}).isEmpty());
        qunsetenv("https_proxy");
    }

    void request_invalidChecksumIsRefusedUpFront()
    {
        QVERIFY(!Checksum::parse(Checksum::Algorithm::Sha256, QStringLiteral("abc")).ok());
        QVERIFY(Checksum::parse(Checksum::Algorithm::Md5, QStringLiteral("D41D8CD98F00B204E9800998ECF8427E")).ok());
        Downloader downloader(fastOptions(), DownloadCache());
        DownloadRequest req;
        req.urls = {m_server->url(QStringLiteral("/a.bin"))};
        req.destination = destination();
        const auto result = fetch(downloader, req);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, QStringLiteral("bad_request"));
        QCOMPARE(m_server->hits("/a.bin"), 0);
    }

private:
    TransferOptions fastOptions() const
    {
        TransferOptions o;
        o.connectTimeout = 5s;
        o.stallTimeout = 5s;
        o.retriesPerMirror = 2;
        return o;
    }

    // A floor of 256 KiB/s over 1 s: a trickle is found in about a second.
    TransferOptions floorOptions() const
    {
        TransferOptions o = fastOptions();
        o.probeMirrors = false; // the mirrors in the order given
        o.lowSpeedBytesPerSecond = 256 * 1024;
        o.lowSpeedTime = 1s;
        return o;
    }

    QString destination() const { return m_dir->filePath(QStringLiteral("out/a.bin")); }
    QString cacheDir() const { return m_dir->filePath(QStringLiteral("cache")); }

    DownloadRequest request(const QList<QUrl> &urls) const
    {
        DownloadRequest r;
        r.name = QStringLiteral("a.bin");
        r.urls = urls;
        r.expectedSize = m_payload.size();
        r.checksum = sha256Of(m_payload);
        r.destination = destination();
        return r;
    }

    Result<DownloadResult> fetch(Downloader &downloader, const DownloadRequest &request)
    {
        auto result = tfsetup::test::awaitTask(downloader.fetch(request), 30s);
        if (!result)
            return Error{QStringLiteral("watchdog"), QStringLiteral("the download did not finish"), {}};
        return *result;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    QByteArray m_payload;
};

QTEST_GUILESS_MAIN(TestDownloader)
#include "test_downloader.moc"
