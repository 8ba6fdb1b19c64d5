#include "support/processes.h"

#include "support/files.h"

#include <QCoreApplication>
#include <QDir>
#include <QProcess>

using namespace Qt::StringLiterals;

namespace tfsetup::test {

Ran runProcess(const QString &program, const QStringList &arguments, int timeoutMs,
               const QProcessEnvironment &environment)
{
    QProcess p;
    p.setProcessEnvironment(environment);
    p.start(program, arguments);
    Ran r;
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QStringList processesUsing(const QString &path)
{
    QStringList found;
    const QByteArray needle = path.toUtf8();
    const QString self = QString::number(QCoreApplication::applicationPid());
    for (const QString &pid : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (!pid.front().isDigit() || pid == self)
            continue;
        QByteArray cmdline = readFile(u"/proc/"_s + pid + u"/cmdline"_s);
        cmdline.replace('\0', ' ');
        if (cmdline.contains(needle))
            found.append(pid + u": "_s + QString::fromUtf8(cmdline));
    }
    return found;
}

} // namespace tfsetup::test
