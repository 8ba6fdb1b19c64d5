#include "util/runlog.h"

#include "util/confined.h"
#include "util/confinedremove.h"
#include "util/text.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QMutex>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QSysInfo>

#include <algorithm>
#include <cstdio>

namespace tfsetup::core {

namespace {

struct LogState {
    QMutex mutex;
    QFile file;
    QString path;
    QtMessageHandler previous = nullptr;
};

LogState &state()
{
    static LogState s;
    return s;
}

// Callers hold s.mutex.
void writeLine(LogState &s, const char *level, const char *category, const QString &message)
{
    if (!s.file.isOpen())
        return;
    const QByteArray line = QDateTime::currentDateTime().toString(Qt::ISODateWithMs).toUtf8() + ' ' + level
        + (category && qstrcmp(category, "default") != 0 ? QByteArray(" [") + category + ']' : QByteArray()) + ' '
        + message.toUtf8() + '\n';
    s.file.write(line);
    s.file.flush();
}

void handler(QtMsgType type, const QMessageLogContext &context, const QString &raw)
{
    LogState &s = state();
    // A message may quote pip, a server or a log: no escape reaches the file or the terminal,
    // and no proxy password or index token is written down.
    const QString message = visibleText(redactSecrets(raw));
    const char *level = "debug";
    switch (type) {
    case QtDebugMsg: level = "debug"; break;
    case QtInfoMsg: level = "info"; break;
    case QtWarningMsg: level = "warning"; break;
    case QtCriticalMsg: level = "error"; break;
    case QtFatalMsg: level = "fatal"; break;
    }
    {
        QMutexLocker lock(&s.mutex);
        writeLine(s, level, context.category, message);
    }
    const bool serious = type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg;
    if (serious && qEnvironmentVariableIsEmpty("TFSETUP_QUIET_LOG")) {
        fprintf(stderr, "%s\n", message.toLocal8Bit().constData());
        fflush(stderr);
    }
}

} // namespace

QString RunLog::start(const QString &dir)
{
    LogState &s = state();
    QString folder = dir;
    if (folder.isEmpty())
        folder = defaultFolder();
    QDir().mkpath(folder);
    const QString name = QStringLiteral("tfsetup-%1-%2.log")
                             .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                             .arg(QCoreApplication::applicationPid());
    {
        QMutexLocker lock(&s.mutex);
        if (s.file.isOpen())
            s.file.close();
        s.file.setFileName(folder + u'/' + name);
        if (!s.file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text)) {
            s.path.clear();
            return {};
        }
        s.path = QDir::toNativeSeparators(s.file.fileName());
        // What a reader of the log needs before any message: what was run, by which tfsetup, where.
        // The host's own description, whatever machine a --root folder imitates.
        writeLine(s, "info", nullptr,
                  QStringLiteral("command: ")
                      + visibleText(redactSecrets(
                          QCoreApplication::instance() ? QCoreApplication::arguments().join(u' ') : QString())));
        writeLine(s, "info", nullptr,
                  QStringLiteral("tfsetup %1 on %2 (%3, kernel %4 %5)")
                      .arg(QCoreApplication::applicationVersion(), QSysInfo::prettyProductName(),
                           QSysInfo::currentCpuArchitecture(), QSysInfo::kernelType(), QSysInfo::kernelVersion()));
    }
    // Started again (tests do), the handler already in place is not its own predecessor.
    if (const QtMessageHandler before = qInstallMessageHandler(handler); before != handler)
        s.previous = before;
    const QStringList pruned = rotate(folder, LogRetention{}, s.path);
    if (!pruned.isEmpty())
        write("info",
              QStringLiteral("removed %1 older log(s): %2").arg(pruned.size()).arg(pruned.join(QStringLiteral(", "))));
    return s.path;
}

void RunLog::warnOnce(const QString &text)
{
    static QMutex mutex;
    static QSet<QString> said;
    {
        const QMutexLocker lock(&mutex);
        if (said.contains(text))
            return;
        said.insert(text);
    }
    qWarning().noquote() << text;
}

void RunLog::write(const char *level, const QString &text)
{
    LogState &s = state();
    const QString message = visibleText(redactSecrets(text));
    QMutexLocker lock(&s.mutex);
    writeLine(s, level, nullptr, message);
}

bool RunLog::isOwnLogName(const QString &fileName)
{
    static const QRegularExpression pattern(QStringLiteral("^tfsetup-\\d{8}-\\d{6}-\\d+\\.log$"));
    return pattern.match(fileName).hasMatch();
}

QList<QFileInfo> RunLog::ownLogs(const QString &folder)
{
    QList<QFileInfo> logs;
    if (folder.isEmpty() || isLink(folder) || !QFileInfo(folder).isDir())
        return logs;
    for (const QFileInfo &info :
         QDir(folder).entryInfoList(QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        if (!info.isSymLink() && !info.isJunction() && isOwnLogName(info.fileName()))
            logs.append(info);
    }
    // Newest first; the name (its time, then pid) breaks ties of one second.
    std::sort(logs.begin(), logs.end(), [](const QFileInfo &a, const QFileInfo &b) {
        const QDateTime ma = a.lastModified(), mb = b.lastModified();
        return ma != mb ? ma > mb : a.fileName() > b.fileName();
    });
    return logs;
}

QList<QFileInfo> RunLog::expired(const QString &folder, const LogRetention &retention, const QString &current,
                                 const QDateTime &now)
{
    const QString currentPath = current.isEmpty() ? QString() : QFileInfo(current).absoluteFilePath();
    QList<QFileInfo> gone;
    int stayed = 0;
    qint64 bytes = 0;
    bool full = false; // once one log does not fit, no older one does either
    for (const QFileInfo &log : ownLogs(folder)) {
        const bool isCurrent = log.absoluteFilePath() == currentPath;
        const bool fits = !full && stayed < retention.kept && bytes + log.size() <= retention.maxBytes;
        full = full || (!fits && !isCurrent);
        const bool young = retention.olderThanDays && log.lastModified().daysTo(now) <= *retention.olderThanDays;
        if (isCurrent || fits || young) {
            ++stayed;
            bytes += log.size();
            continue;
        }
        gone.append(log);
    }
    return gone;
}

QStringList RunLog::rotate(const QString &folder, const LogRetention &retention, const QString &current)
{
    QStringList removed;
    for (const QFileInfo &log : expired(folder, retention, current)) {
        if (removeFileConfined(folder, log.fileName()))
            removed.append(log.fileName());
    }
    return removed;
}

QString RunLog::defaultFolder()
{
    const QString overridden = qEnvironmentVariable("TFSETUP_LOG_DIR");
    return overridden.isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QLatin1String("/tfsetup/logs")
        : overridden;
}

QString RunLog::path()
{
    LogState &s = state();
    QMutexLocker lock(&s.mutex);
    if (s.path.isEmpty() || !s.file.isOpen())
        return {};
    s.file.flush();
    const QFileInfo info(s.file.fileName());
    return info.exists() && info.size() > 0 ? s.path : QString();
}

void RunLog::stop()
{
    LogState &s = state();
    qInstallMessageHandler(s.previous);
    QMutexLocker lock(&s.mutex);
    s.file.close();
    s.path.clear();
}

} // namespace tfsetup::core
