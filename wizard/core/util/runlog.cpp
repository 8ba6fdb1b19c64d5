#include "util/runlog.h"

#include "util/text.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QMutex>
#include <QStandardPaths>

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

void handler(QtMsgType type, const QMessageLogContext &context, const QString &raw)
{
    LogState &s = state();
    // A message may quote pip, a server or a log: no escape reaches the file or the terminal,
    // and no proxy password or index token is written down.
    const QString message = visibleText(redactSecrets(raw));
    const char *level = "debug";
    switch (type) {
    case QtDebugMsg:
        level = "debug";
        break;
    case QtInfoMsg:
        level = "info";
        break;
    case QtWarningMsg:
        level = "warning";
        break;
    case QtCriticalMsg:
        level = "error";
        break;
    case QtFatalMsg:
        level = "fatal";
        break;
    }
    {
        QMutexLocker lock(&s.mutex);
        if (s.file.isOpen()) {
            const QByteArray line = QDateTime::currentDateTime().toString(Qt::ISODateWithMs).toUtf8() + ' ' + level
                                    + (context.category && qstrcmp(context.category, "default") != 0
                                           ? QByteArray(" [") + context.category + ']'
                                           : QByteArray())
                                    + ' ' + message.toUtf8() + '\n';
            s.file.write(line);
            s.file.flush();
        }
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
        s.file.setFileName(folder + u'/' + name);
        if (!s.file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text)) {
            s.path.clear();
            return {};
        }
        s.path = QDir::toNativeSeparators(s.file.fileName());
    }
    s.previous = qInstallMessageHandler(handler);
    return s.path;
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
    return s.path;
}

void RunLog::stop()
{
    LogState &s = state();
    qInstallMessageHandler(s.previous);
    QMutexLocker lock(&s.mutex);
    s.file.close();
}

} // namespace tfsetup::core
