#pragma once

// Running a program to its end, and finding processes left behind, for the tests that start real
// programs (tfsetup, Python, Jupyter).

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tfsetup::test {

struct Ran {
    bool finished = false; // false: it was still running after the timeout and was killed
    int exitCode = -1;     // -1 when it crashed or was killed
    QByteArray out;
    QByteArray err;
};

// Runs `program` with `arguments` in `environment` and waits at most `timeoutMs`.
Ran runProcess(const QString &program, const QStringList &arguments, int timeoutMs,
               const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

// "PID: command line" of every other process whose command line names `path` (a server or
// kernel still running from a folder); Linux only (/proc).
QStringList processesUsing(const QString &path);

} // namespace tfsetup::test
