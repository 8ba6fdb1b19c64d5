#include "cli/cli.h"

#include "fetch/cachecleaner.h"
#include "fetch/downloadcache.h"
#include "setup/environments.h"
#include "sources/bundle.h"
#include "system/realsystem.h"
#include "util/runlog.h"

#include <QDir>

namespace tfsetup::cli {

int runClean(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("dry-run"), Cli::tr("Only say what would be removed and how much it frees.")});
    parser.addOption({QStringLiteral("max-age"),
                      Cli::tr("Remove cached downloads not used for more than DAYS days (default 90; 0: all that "
                              "nothing refers to)."),
                      QStringLiteral("DAYS")});
    parser.addOption({QStringLiteral("max-size"),
                      Cli::tr("Then remove the oldest until the cache is at most SIZE (500M, 20G)."),
                      QStringLiteral("SIZE")});
    parser.addOption({QStringLiteral("cache"), Cli::tr("The download cache to clean (default: the user's own)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("bundle"), Cli::tr("Keep every file this offline bundle lists (repeatable)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("json"), Cli::tr("Print the result as one JSON document.")});
    if (const int code = parseOrExit(parser, arguments,
                                     Cli::tr("Free disk space: prune the download cache by age and size, keeping "
                                             "every file an environment or an offline bundle still needs, and "
                                             "remove old run logs."));
        code >= 0)
        return code;
    const bool json = parser.isSet(QStringLiteral("json"));

    CleanOptions options;
    options.dryRun = parser.isSet(QStringLiteral("dry-run"));
    options.cacheDir = QDir(parser.isSet(QStringLiteral("cache")) ? parser.value(QStringLiteral("cache"))
                                                                  : DownloadCache::defaultDir())
                           .absolutePath();
    options.logDir = RunLog::defaultFolder();
    options.currentLog = RunLog::path();
    if (parser.isSet(QStringLiteral("max-age"))) {
        bool ok = false;
        const qint64 days = parser.value(QStringLiteral("max-age")).toLongLong(&ok);
        if (!ok || days < 0) {
            printUsageError(Cli::tr("--max-age takes a number of days, for example 30."));
            return UsageError;
        }
        options.maxAgeDays = days == 0 ? -1 : days;
    }
    if (parser.isSet(QStringLiteral("max-size"))) {
        options.maxBytes = parseSize(parser.value(QStringLiteral("max-size")));
        if (!options.maxBytes) {
            printUsageError(Cli::tr("--max-size takes a size, for example 500M or 20G."));
            return UsageError;
        }
    }
    RealSystem system;
    options.keep = referencedChecksums(system, listEnvironments(system, {{}, false}));
    for (const QString &folder : parser.values(QStringLiteral("bundle"))) {
        const auto bundle = Bundle::open(QDir(folder).absolutePath());
        if (!bundle)
            return fail(bundle.error(), Failure, json);
        for (const BundleFile &f : bundle->files()) {
            for (const QString &digest : {f.sha256, f.md5}) {
                if (!digest.isEmpty())
                    options.keep.insert(digest.toLower().toLatin1());
            }
        }
    }
    const CleanReport report = cleanDownloads(options);
    if (json)
        printJson(QJsonDocument(report.toJson()));
    else
        printOut(report.text());
    return Success;
}

} // namespace tfsetup::cli
