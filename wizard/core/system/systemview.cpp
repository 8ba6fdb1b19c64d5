#include "system/systemview.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStorageInfo>

namespace tfsetup::core {

QString osFamilyName(OsFamily os)
{
    switch (os) {
    case OsFamily::Linux: return QStringLiteral("linux");
    case OsFamily::Windows: return QStringLiteral("windows");
    case OsFamily::MacOS: return QStringLiteral("macos");
    }
    return {};
}

std::optional<OsFamily> osFamilyFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    if (n == u"linux" || n == u"wsl" || n == u"wsl2")
        return OsFamily::Linux;
    if (n == u"windows" || n == u"win" || n == u"win32")
        return OsFamily::Windows;
    if (n == u"macos" || n == u"darwin" || n == u"osx")
        return OsFamily::MacOS;
    return std::nullopt;
}

SystemView::~SystemView() = default;

std::optional<DiskSpace> SystemView::diskSpace(const QString &path) const
{
    QString host = hostPath(path);
    if (host.isEmpty())
        return std::nullopt;
    QFileInfo info(QDir::cleanPath(QDir(host).absolutePath()));
    while (!info.exists()) {
        const QString parent = info.absolutePath();
        if (parent == info.absoluteFilePath())
            return std::nullopt;
        info.setFile(parent);
    }
    const QStorageInfo storage(info.absoluteFilePath());
    if (!storage.isValid() || !storage.isReady())
        return std::nullopt;
    return DiskSpace{storage.bytesAvailable(), storage.rootPath() + u'|' + QString::fromUtf8(storage.device())};
}

QCoro::Task<ProcessResult> SystemView::runWatched(ProcessRequest request)
{
    if (request.cancel && request.cancel->load()) {
        ProcessResult cancelled;
        cancelled.error = QStringLiteral("cancelled before it started");
        co_return cancelled;
    }
    ProcessResult result = co_await run(request.program, request.arguments, request.timeout);
    if (request.onOutputLine) {
        const QByteArray all = result.standardOutput + result.standardError;
        for (const QByteArray &line : all.split('\n')) {
            if (!line.isEmpty())
                request.onOutputLine(QString::fromUtf8(line).trimmed());
        }
    }
    co_return result;
}

bool SystemView::exists(const QString &path) const
{
    const QString host = hostPath(path);
    return !host.isEmpty() && QFileInfo::exists(host);
}

bool SystemView::isDir(const QString &path) const
{
    const QString host = hostPath(path);
    return !host.isEmpty() && QFileInfo(host).isDir();
}

bool SystemView::isFile(const QString &path) const
{
    const QString host = hostPath(path);
    return !host.isEmpty() && QFileInfo(host).isFile();
}

QStringList SystemView::entries(const QString &dir, const QStringList &nameFilters, QDir::Filters filters) const
{
    const QString host = hostPath(dir);
    if (host.isEmpty())
        return {};
    QDir d(host);
    // Windows names match case-insensitively, as they do on the real file system.
    QDir::Filters f = filters & ~QDir::CaseSensitive;
    if (os() != OsFamily::Windows)
        f |= QDir::CaseSensitive;
    d.setFilter(f);
    d.setNameFilters(nameFilters);
    d.setSorting(QDir::Name);
    return d.entryList();
}

std::optional<QByteArray> SystemView::readFile(const QString &path, qint64 maxBytes) const
{
    const QString host = hostPath(path);
    if (host.isEmpty())
        return std::nullopt;
    // Plain files only: a FIFO planted where a kernelspec or a record belongs would block the
    // read forever, a device (/dev/zero behind a link) never ends. isFile() is false for both.
    if (!QFileInfo(host).isFile())
        return std::nullopt;
    QFile f(host);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    return f.read(maxBytes);
}

qint64 SystemView::fileSize(const QString &path) const
{
    const QString host = hostPath(path);
    return host.isEmpty() ? -1 : QFileInfo(host).size();
}

QChar SystemView::pathListSeparator() const
{
    return os() == OsFamily::Windows ? u';' : u':';
}

QStringList SystemView::pathList(const QString &variable) const
{
    QStringList out;
    const QStringList parts = env(variable).split(pathListSeparator(), Qt::SkipEmptyParts);
    for (const QString &p : parts) {
        QString t = p.trimmed();
        if (t.size() >= 2 && t.startsWith(u'"') && t.endsWith(u'"'))
            t = t.mid(1, t.size() - 2);
        if (!t.isEmpty())
            out.append(normalize(t));
    }
    return out;
}

QString SystemView::join(const QString &dir, const QString &name)
{
    QString d = dir;
    d.replace(u'\\', u'/');
    if (d.isEmpty())
        return name;
    if (d.endsWith(u'/'))
        return d + name;
    return d + u'/' + name;
}

QString SystemView::normalize(const QString &path) const
{
    QString p = path;
    p.replace(u'\\', u'/');
    while (p.size() > 1 && p.endsWith(u'/') && !(p.size() == 3 && p.at(1) == u':'))
        p.chop(1);
    if (os() == OsFamily::Windows && p.size() >= 2 && p.at(1) == u':')
        p[0] = p.at(0).toUpper();
    return p;
}

QString SystemView::findExecutable(const QString &name) const
{
    QStringList candidates{name};
    if (os() == OsFamily::Windows && !name.endsWith(QLatin1String(".exe"), Qt::CaseInsensitive))
        candidates.prepend(name + QLatin1String(".exe"));
    for (const QString &dir : pathList()) {
        for (const QString &c : candidates) {
            const QString p = join(dir, c);
            if (isFile(p))
                return p;
        }
    }
    return {};
}

QString SystemView::identity(const QString &path) const
{
    const QString host = hostPath(path);
    QString key = host.isEmpty() ? path : QFileInfo(host).canonicalFilePath();
    if (key.isEmpty())
        key = host;
    return os() == OsFamily::Windows ? key.toLower() : key;
}

QString SystemView::homeDir() const
{
    if (os() == OsFamily::Windows) {
        const QString profile = env(QStringLiteral("USERPROFILE"));
        return profile.isEmpty() ? QString() : normalize(profile);
    }
    return normalize(env(QStringLiteral("HOME")));
}

} // namespace tfsetup::core
