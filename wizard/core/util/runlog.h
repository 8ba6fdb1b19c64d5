#pragma once

#include <QDateTime>
#include <QFileInfo>
#include <QList>
#include <QString>

#include <optional>

namespace tfsetup::core {

// Which of tfsetup's own run logs stay. One rule for the rotation at every start and for
// `tfsetup clean` (fetch/cachecleaner), with different numbers: walking the logs newest first, a
// log stays while fewer than `kept` newer ones stayed and they hold together no more than
// `maxBytes`; of the others, only those older than `olderThanDays` (when set) go. The run's own
// log always stays.
struct LogRetention {
    int kept = 20;
    qint64 maxBytes = 50LL * 1024 * 1024;
    std::optional<qint64> olderThanDays;
};

// One log file per run, in the user's data folder (…/tfsetup/logs/tfsetup-<time>-<pid>.log).
// It starts with the command line (secrets masked), tfsetup's version and the host system;
// every qDebug/qInfo/qWarning/qCritical goes there with a time stamp, and so does every error the
// commands report (cli::printError); warnings and worse also reach stderr. The UI and the CLI
// show the path whenever something fails.
class RunLog final {
public:
    // Opens the log, writes its header, installs the message handler, then prunes the folder's
    // older logs by LogRetention's defaults (20 logs, 50 MiB). Returns the path, empty when the
    // log could not be opened (then messages go to stderr only). dir overrides the default folder.
    static QString start(const QString &dir = {});
    // The log's path once it holds something (flushed first); empty when there is no log, it is
    // empty or it is gone, so nobody is sent to a file that does not help.
    static QString path();
    // A line for the log only (not stderr), with a time stamp and a level ("error", "info", …).
    static void write(const char *level, const QString &text);
    // A warning (log and stderr) said once per process: the same text again says nothing, so a
    // file read by several loaders is reported once, not at each read.
    static void warnOnce(const QString &text);
    // Where start() puts logs by default (TFSETUP_LOG_DIR, else the data folder's logs/).
    static QString defaultFolder();
    static void stop();

    // Whether a file name is one start() gives its logs: tfsetup-YYYYMMDD-HHMMSS-<pid>.log.
    static bool isOwnLogName(const QString &fileName);
    // tfsetup's own logs in folder, newest first: plain files named like start()'s, never a link
    // (nor anything in a folder that is one).
    static QList<QFileInfo> ownLogs(const QString &folder);
    // Of ownLogs(folder), those the retention lets go (never `current`).
    static QList<QFileInfo> expired(const QString &folder, const LogRetention &retention, const QString &current = {},
                                    const QDateTime &now = QDateTime::currentDateTime());
    // Deletes expired(folder, …) without following a link (util/confinedremove); returns the names removed.
    static QStringList rotate(const QString &folder, const LogRetention &retention, const QString &current = {});
};

} // namespace tfsetup::core
