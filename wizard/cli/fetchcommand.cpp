#include "cli/cli.h"

#include "fetch/downloader.h"
#include "fetch/networksettings.h"
#include "system/diskspace.h"
#include "system/realsystem.h"

#include <QCoro/QCoroTask>
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>

#include <cstdio>
#if defined(Q_OS_WIN)
#include <io.h>
#define TFSETUP_ISATTY _isatty
#define TFSETUP_FILENO _fileno
#else
#include <unistd.h>
#define TFSETUP_ISATTY isatty
#define TFSETUP_FILENO fileno
#endif

namespace tfsetup::cli {

namespace {

QString humanBytes(double bytes)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    return QString::number(bytes, 'f', u == 0 ? 0 : 1) + u' ' + QLatin1String(units[u]);
}

} // namespace

// --min-speed BYTES[:SECONDS], shared by fetch and install; the default is TransferOptions'.
void addMinSpeedOption(QCommandLineParser &parser)
{
    const TransferOptions defaults;
    parser.addOption({QStringLiteral("min-speed"),
                      Cli::tr("Drop a mirror that stays below BYTES per second (k, M: KiB, MiB) for SECONDS and go on "
                              "from the next one, keeping what arrived; default %1:%2, 0 turns it off.")
                          .arg(defaults.lowSpeedBytesPerSecond)
                          .arg(defaults.lowSpeedTime.count()),
                      QStringLiteral("BYTES[:SECONDS]")});
}

int runFetch(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("url"),
                                 Cli::tr("Where to fetch from; further URLs are mirrors tried in order."),
                                 QStringLiteral("URL [URL...]"));
    parser.addOption({QStringLiteral("sha256"), Cli::tr("The official SHA-256 checksum the file must have."),
                      QStringLiteral("HEX")});
    parser.addOption({QStringLiteral("md5"),
                      Cli::tr("An MD5 checksum, only where the official source publishes nothing stronger."),
                      QStringLiteral("HEX")});
    parser.addOption({QStringLiteral("size"), Cli::tr("The expected size in bytes."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("out"), Cli::tr("Where to save the verified file."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("segments"), Cli::tr("Fetch over N parallel connections."), QStringLiteral("N"),
                      QStringLiteral("1")});
    parser.addOption(
        {QStringLiteral("proxy"), Cli::tr("Use this proxy (http://, https:// or socks5h://)."), QStringLiteral("URL")});
    addMinSpeedOption(parser);
    parser.addOption({QStringLiteral("ca-bundle"),
                      Cli::tr("Also trust the certificates in this PEM file (lab or company proxies)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("cache"), Cli::tr("Keep verified files in this folder and reuse them."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("no-cache"), Cli::tr("Do not use the download cache.")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as JSON.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Download a file and verify its checksum. Exits 0 only "
                                             "when the file at --out is verified."));
        code >= 0)
        return code;

    // "--out --size 10" gives --out the value "--size" (and "10" becomes a URL): a file named
    // like an option is a forgotten value, not a place to save. Said first, as the cause.
    if (const QString out = parser.value(QStringLiteral("out"));
        parser.isSet(QStringLiteral("out")) && (out.isEmpty() || out.startsWith(u'-'))) {
        printUsageError(Cli::tr("--out needs the file to save to, not \"%1\" (is its value missing?). For a file whose "
                                "name starts with \"-\", write ./%1.")
                            .arg(out),
                        parser.helpText());
        return UsageError;
    }
    DownloadRequest request;
    for (const QString &u : parser.positionalArguments()) {
        const QUrl url(u, QUrl::StrictMode);
        if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https")) {
            printUsageError(Cli::tr("\"%1\" is not an http:// or https:// address.").arg(u));
            return UsageError;
        }
        request.urls.append(url);
    }
    if (request.urls.isEmpty() || !parser.isSet(QStringLiteral("out"))
        || parser.isSet(QStringLiteral("sha256")) == parser.isSet(QStringLiteral("md5"))) {
        printUsageError(Cli::tr("Give at least one URL, --out FILE, and exactly one of --sha256 or --md5."),
                        parser.helpText());
        return UsageError;
    }
    const bool sha = parser.isSet(QStringLiteral("sha256"));
    auto checksum = Checksum::parse(sha ? Checksum::Algorithm::Sha256 : Checksum::Algorithm::Md5,
                                    parser.value(sha ? QStringLiteral("sha256") : QStringLiteral("md5")));
    if (!checksum) {
        printError(checksum.error());
        return UsageError;
    }
    request.checksum = *checksum;
    request.destination = QFileInfo(parser.value(QStringLiteral("out"))).absoluteFilePath();
    request.name = QFileInfo(request.destination).fileName();
    bool ok = true;
    if (parser.isSet(QStringLiteral("size"))) {
        request.expectedSize = parser.value(QStringLiteral("size")).toLongLong(&ok);
        if (!ok || request.expectedSize < 0) {
            printUsageError(Cli::tr("--size needs a number of bytes."));
            return UsageError;
        }
    }
    request.segments = parser.value(QStringLiteral("segments")).toInt(&ok);
    if (!ok || request.segments < 1 || request.segments > 16) {
        printUsageError(Cli::tr("--segments needs a number from 1 to 16."));
        return UsageError;
    }

    NetworkSettings network;
    network.transfer.proxy = parser.value(QStringLiteral("proxy"));
    network.transfer.caBundle = parser.value(QStringLiteral("ca-bundle"));
    if (parser.isSet(QStringLiteral("min-speed"))) {
        if (const Status floor = Downloader::parseSpeedFloor(parser.value(QStringLiteral("min-speed")),
                                                             &network.transfer);
            !floor) {
            printError(floor.error());
            return UsageError;
        }
    }
    const QString cacheDir = parser.isSet(QStringLiteral("no-cache"))
        ? QString()
        : (parser.isSet(QStringLiteral("cache")) ? parser.value(QStringLiteral("cache")) : DownloadCache::defaultDir());
    const std::unique_ptr<Downloader> made = network.makeDownloader(cacheDir);
    Downloader &downloader = *made;
    downloader.setMaxConnections(std::max(8, request.segments));

    const bool json = parser.isSet(QStringLiteral("json"));
    // A full disk is said before the first byte, not when a write fails.
    if (request.expectedSize > 0) {
        RealSystem system;
        const QString folder = QFileInfo(request.destination).absolutePath();
        const QString file = QFileInfo(request.destination).fileName();
        if (const Status space = DiskSpaceCheck::check(system, {{folder, request.expectedSize, file}}, 0); !space) {
            if (json)
                printJson(QJsonDocument(
                    QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), errorJson(space.error())}}));
            else
                printError(space.error());
            return Failure;
        }
    }
    const bool terminal = TFSETUP_ISATTY(TFSETUP_FILENO(stderr));
    // What the downloader had to do (a mirror dropped as too slow) is said whatever the output.
    QObject::connect(&downloader, &Downloader::progress, &downloader, [terminal, json](const DownloadProgress &p) {
        if (!p.note.isEmpty())
            printErr((terminal && !json ? QStringLiteral("\n") : QString()) + p.note);
    });
    if (terminal && !json) {
        QObject::connect(&downloader, &Downloader::progress, &downloader, [](const DownloadProgress &p) {
            if (p.stage != DownloadProgress::Stage::Downloading || !p.note.isEmpty())
                return;
            const QString total = p.total > 0 ? humanBytes(double(p.total)) : QStringLiteral("?");
            const QString eta = p.total > 0 && p.bytesPerSecond > 0
                ? Cli::tr("%1 s left").arg(qint64(double(p.total - p.received) / p.bytesPerSecond))
                : QString();
            fprintf(stderr, "\r%s / %s  %s/s  %s    ", qPrintable(humanBytes(double(p.received))), qPrintable(total),
                    qPrintable(humanBytes(p.bytesPerSecond)), qPrintable(eta));
            fflush(stderr);
        });
    }

    const Result<DownloadResult> result = QCoro::waitFor(downloader.fetch(request));
    if (terminal && !json)
        fputc('\n', stderr);
    if (json) {
        QJsonObject o{{QStringLiteral("ok"), result.ok()}};
        if (result) {
            o.insert(QStringLiteral("path"), result->path);
            o.insert(QStringLiteral("bytes"), double(result->bytes));
            o.insert(QStringLiteral("source"), result->fromCache ? QStringLiteral("cache") : result->source.toString());
            o.insert(QStringLiteral("algorithm"), request.checksum.algorithmName());
            o.insert(QStringLiteral("weak_checksum"), result->weakChecksum);
        } else {
            o.insert(QStringLiteral("error"), errorJson(result.error()));
        }
        printJson(QJsonDocument(o));
    }
    if (!result) {
        if (!json)
            printError(result.error());
        return Failure;
    }
    if (!json) {
        printOut(Cli::tr("Verified %1 (%2, %3)\n")
                     .arg(QDir::toNativeSeparators(result->path), humanBytes(double(result->bytes)),
                          result->fromCache ? Cli::tr("from the cache") : result->source.toDisplayString()));
        if (result->weakChecksum)
            printErr(Cli::tr("Note: only an MD5 checksum was available for this file; MD5 is weaker than SHA-256."));
    }
    return Success;
}

} // namespace tfsetup::cli
