#include "cli/downloadreport.h"

#include "util/units.h"

namespace tfsetup::cli {

DownloadReport::DownloadReport(std::function<void(const QString &)> print, qint64 interval)
    : m_print(std::move(print))
    , m_interval(interval)
{
    m_sinceLine.start();
}

void DownloadReport::setRequests(const QList<DownloadRequest> &requests)
{
    m_files.clear();
    for (const DownloadRequest &r : requests)
        m_files.insert(r.name, File{0, r.expectedSize, 0, false});
}

QString DownloadReport::line(qint64 done, qint64 total, double bytesPerSecond, const QString &file, const QUrl &mirror)
{
    QString text = total > 0
        ? tr("%1 of %2 (%3 %)").arg(Units::dataSize(done), Units::dataSize(total)).arg(done * 100 / total)
        : Units::dataSize(done);
    if (bytesPerSecond > 0) {
        text += tr(", %1/s").arg(Units::dataSize(qint64(bytesPerSecond)));
        if (total > done)
            text += tr(", about %1 left").arg(Units::duration(double(total - done) / bytesPerSecond));
    }
    if (!file.isEmpty()) {
        text += mirror.isEmpty()
            ? tr(" — %1").arg(file)
            : tr(" — %1 from %2").arg(file, mirror.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemovePath));
    }
    return text;
}

void DownloadReport::onProgress(const DownloadProgress &progress)
{
    using Stage = DownloadProgress::Stage;
    File &f = m_files[progress.name];
    if (progress.stage == Stage::Downloading) {
        f.received = progress.received;
        if (progress.total > 0)
            f.size = progress.total;
        f.rate = progress.bytesPerSecond;
    } else if (progress.stage == Stage::Done) {
        f.done = true;
        f.rate = 0;
        if (f.size > 0)
            f.received = f.size;
    } else if (progress.stage == Stage::Failed) {
        f.rate = 0;
    }
    if (!progress.note.isEmpty())
        m_print(progress.note);
    if (progress.stage != Stage::Downloading || (m_printed && m_sinceLine.elapsed() < m_interval))
        return;
    qint64 done = 0;
    qint64 total = 0;
    double rate = 0;
    for (const File &file : std::as_const(m_files)) {
        done += file.received;
        total += std::max<qint64>(file.size, file.received);
        rate += file.rate;
    }
    m_print(line(done, total, rate, progress.name, progress.mirror));
    m_sinceLine.restart();
    m_printed = true;
}

} // namespace tfsetup::cli
