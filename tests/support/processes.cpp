#include "support/processes.h"

#include "support/files.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
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

namespace {

// After the program: what it left, one "tfsetup-test-left: PATH" line each on standard error.
constexpr QByteArrayView leftMarker = "tfsetup-test-left: ";

bool namespacesAvailable()
{
    static const bool available = [] {
        QProcess p;
        p.start(u"unshare"_s, {u"-Urm"_s, u"sh"_s, u"-c"_s, u"mount -t tmpfs -o size=1m tfsetup-test /tmp"_s});
        return p.waitForFinished(10000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    }();
    return available;
}

QStringList leftIn(const QString &folder)
{
    QStringList left;
    QDirIterator it(folder, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        left.append(QDir(folder).relativeFilePath(it.next()));
    left.sort();
    return left;
}

} // namespace

RanOnDisk runOnDisk(const QString &folder, const QString &size, const QString &program, const QStringList &arguments,
                    int timeoutMs, const QProcessEnvironment &environment)
{
    RanOnDisk r;
    QDir().mkpath(folder);
    if (!namespacesAvailable()) {
        r.ran = runProcess(program, arguments, timeoutMs, environment);
        r.left = leftIn(folder);
        return r;
    }
    const QString script = uR"(mount -t tmpfs -o "size=$1" tfsetup-test "$2" || exit 90
folder=$2
shift 2
"$@"
rc=$?
(cd "$folder" && find . -mindepth 1 | sed 's|^\./|)"_s
        + QString::fromLatin1(leftMarker) + uR"(|' >&2)
exit $rc)"_s;
    r.ran = runProcess(u"unshare"_s,
                       QStringList{u"-Urm"_s, u"sh"_s, u"-c"_s, script, u"sh"_s, size, folder, program} + arguments,
                       timeoutMs, environment);
    QByteArray err;
    for (const QByteArray &line : r.ran.err.split('\n')) {
        if (line.startsWith(leftMarker))
            r.left.append(QString::fromUtf8(line.mid(leftMarker.size())));
        else
            err += line + '\n';
    }
    err.chop(1);
    r.ran.err = err;
    r.left.sort();
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
