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

// A program run on a disk of a known size: a tmpfs of `size` (mount's notation: "16m", "64g")
// mounted at `folder` for that program alone, in a user and mount namespace of its own
// (unshare -Urm), so what it measures and writes there does not depend on the host's free space:
// a nearly full disk on demand, or room for NVIDIA's gigabytes that a test never downloads.
// Where namespaces are not to be had, the program runs on the host's disk at `folder`.
struct RanOnDisk {
    Ran ran;
    QStringList left; // what it left in `folder` (relative paths, sorted), read before the disk goes
};
RanOnDisk runOnDisk(const QString &folder, const QString &size, const QString &program, const QStringList &arguments,
                    int timeoutMs, const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

// "PID: command line" of every other process whose command line names `path` (a server or
// kernel still running from a folder); Linux only (/proc).
QStringList processesUsing(const QString &path);

} // namespace tfsetup::test
