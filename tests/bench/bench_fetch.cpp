// Fetches one file through tfsetup's Downloader and reports wall time, bytes per second and the
// longest stall of the event loop that awaited it (the GUI thread's view of a download).
//
//     bench_fetch URL SHA256 OUT [--size N] [--segments N]
//
// Without --size the size is unknown until the first response, as for `aria2c URL`: with several
// segments the first connection's answer tells it and the rest is split among new connections.
// Prints one JSON line: {"seconds": …, "bytes": …, "mib_per_s": …, "max_loop_stall_ms": …}.

#include "fetch/downloader.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <cstdio>

using namespace tfsetup::core;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("url"), QStringLiteral("where to fetch from"));
    parser.addPositionalArgument(QStringLiteral("sha256"), QStringLiteral("the file's SHA-256"));
    parser.addPositionalArgument(QStringLiteral("out"), QStringLiteral("where to write it"));
    parser.addOption(
        {QStringLiteral("size"), QStringLiteral("the expected size; unknown when left out"), QStringLiteral("N")});
    parser.addOption(
        {QStringLiteral("segments"), QStringLiteral("parallel connections"), QStringLiteral("N"), QStringLiteral("1")});
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    bool segmentsOk = false;
    bool sizeOk = true;
    DownloadRequest request;
    request.segments = parser.value(QStringLiteral("segments")).toInt(&segmentsOk);
    if (parser.isSet(QStringLiteral("size")))
        request.expectedSize = parser.value(QStringLiteral("size")).toLongLong(&sizeOk);
    if (args.size() != 3 || !segmentsOk || !sizeOk) {
        fprintf(stderr, "usage: bench_fetch URL SHA256 OUT [--size N] [--segments N]\n");
        return 2;
    }
    request.name = QStringLiteral("bench");
    request.urls = {QUrl(args[0])};
    request.checksum = Checksum{Checksum::Algorithm::Sha256, args[1].toLatin1()};
    request.destination = args[2];
    QFile::remove(request.destination);

    Downloader downloader(TransferOptions{}, DownloadCache()); // no cache: measure the wire and the hash
    downloader.setMaxConnections(16);

    // A 10 ms ticker stands in for the GUI: the longest gap between ticks is the worst stall.
    QElapsedTimer sinceTick;
    qint64 maxStall = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, &app, [&] { maxStall = std::max(maxStall, sinceTick.restart() - 10); });
    sinceTick.start();
    ticker.start();

    QElapsedTimer wall;
    wall.start();
    const auto result = QCoro::waitFor(downloader.fetch(request));
    const double seconds = double(wall.nsecsElapsed()) / 1e9;
    if (!result) {
        fprintf(stderr, "%s\n%s\n", qPrintable(result.error().message), qPrintable(result.error().detail));
        return 1;
    }
    const QJsonObject o{{QStringLiteral("seconds"), seconds},
                        {QStringLiteral("bytes"), double(result->bytes)},
                        {QStringLiteral("mib_per_s"), double(result->bytes) / seconds / 1048576.0},
                        {QStringLiteral("max_loop_stall_ms"), double(std::max<qint64>(0, maxStall))}};
    printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    return 0;
}
