#pragma once

#include "fetch/downloadtypes.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace tfsetup::cli {

// The command line is a client of core, as the wizard is: core's types read unqualified here.
using namespace tfsetup::core;

// What a headless command shows while files arrive: for all files together the bytes so far, the
// total, the speed, the time left, and the file and mirror being fetched, one line at most every
// `interval` ms (and when a file finishes), so a terminal and a log of an unattended roll-out both
// stay readable.
class DownloadReport {
    Q_DECLARE_TR_FUNCTIONS(DownloadReport)

public:
    explicit DownloadReport(std::function<void(const QString &)> print, qint64 interval = 2000);

    // The files to come, with their expected sizes (-1 unknown), for the total.
    void setRequests(const QList<DownloadRequest> &requests);

    void onProgress(const DownloadProgress &progress);

    // "312.0 MB of 1.2 GB (26 %), 8.4 MB/s, about 2 min left — tensorflow-….whl from https://…"
    static QString line(qint64 done, qint64 total, double bytesPerSecond, const QString &file, const QUrl &mirror);

private:
    struct File {
        qint64 received = 0;
        qint64 size = -1;
        double rate = 0;
        bool done = false;
    };
    QHash<QString, File> m_files;
    std::function<void(const QString &)> m_print;
    qint64 m_interval;
    QElapsedTimer m_sinceLine;
    bool m_printed = false;
};

} // namespace tfsetup::cli
