#pragma once

#include <QString>

namespace tfsetup::core {

// One log file per run, in the user's data folder (…/tfsetup/logs/tfsetup-<time>-<pid>.log).
// Every qDebug/qInfo/qWarning/qCritical goes there with a time stamp; warnings and worse also
// reach stderr. The UI and the CLI show the path whenever something fails.
class RunLog final {
public:
    // Opens the log and installs the message handler. Returns the path, empty when the log
    // could not be opened (then messages go to stderr only). dir overrides the default folder.
    static QString start(const QString &dir = {});
    static QString path();
    // Where start() puts logs by default (TFSETUP_LOG_DIR, else the data folder's logs/).
    static QString defaultFolder();
    static void stop();
};

} // namespace tfsetup::core
