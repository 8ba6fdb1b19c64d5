#include "util/confinedremove.h"

#include "util/confined.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <utility>

#if !defined(Q_OS_WIN)
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace tfsetup::core {

namespace {

class ConfinedRemoveText {
    Q_DECLARE_TR_FUNCTIONS(ConfinedRemove)
};

Error failure(const QString &code, const QString &root, const QString &relative, const QString &detail = {})
{
    QString message;
    if (code == u"path_through_link")
        message = ConfinedRemoveText::tr("%1 lies behind a link that tfsetup did not make; nothing was removed "
                                         "through it.")
                      .arg(confinedPath(root, relative));
    else if (code == u"permission_denied")
        message = ConfinedRemoveText::tr("%1 cannot be removed: permission denied. Close the programs that use it "
                                         "and try again.")
                      .arg(confinedPath(root, relative));
    else if (code == u"not_empty")
        message = ConfinedRemoveText::tr("The folder %1 is not empty.").arg(confinedPath(root, relative));
    else if (code == u"not_found")
        message = ConfinedRemoveText::tr("%1 does not exist.").arg(confinedPath(root, relative));
    else if (code == u"is_folder")
        message = ConfinedRemoveText::tr("%1 is a folder, not a file.").arg(confinedPath(root, relative));
    else
        message = ConfinedRemoveText::tr("%1 could not be removed. Close the programs that use it and try again.")
                      .arg(confinedPath(root, relative));
    return Error{code, message, detail.isEmpty() ? confinedPath(root, relative) : detail};
}

bool validRelative(const QString &relative)
{
    const QStringList parts = relative.split(u'/');
    return !relative.isEmpty() && !relative.startsWith(u'/') && !parts.contains(QStringLiteral(".."))
        && !parts.contains(QString());
}

#if !defined(Q_OS_WIN)

class Fd {
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd(Fd &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    {}
    Fd &operator=(Fd &&other) noexcept
    {
        if (this != &other) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_fd = std::exchange(other.m_fd, -1);
        }
        return *this;
    }
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

QString codeFor(int error)
{
    switch (error) {
    case ELOOP:
    case ENOTDIR:
    case EMLINK: return QStringLiteral("path_through_link");
    case ENOENT: return QStringLiteral("not_found");
    case ENOTEMPTY:
    case EEXIST: return QStringLiteral("not_empty");
    case EISDIR: return QStringLiteral("is_folder");
    case EACCES:
    case EPERM: return QStringLiteral("permission_denied");
    default: return QStringLiteral("remove_failed");
    }
}

constexpr int noFollowFolderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;

// The folder holding root/relative's last component, reached without a link on the way.
Result<Fd> parentOf(const QString &root, const QString &relative)
{
    Fd folder(::open(QFile::encodeName(root).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() < 0)
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    const QStringList parts = relative.split(u'/');
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        Fd next(::openat(folder.get(), QFile::encodeName(parts.at(i)).constData(), noFollowFolderFlags));
        if (next.get() < 0)
            return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
        folder = std::move(next);
    }
    return folder;
}

// Removes everything below the open folder `fd` (which it closes); bytes of plain files removed
// are added to freed. Stops at the first failure.
Status emptyFolder(int fd, const QString &root, const QString &relative, qint64 &freed)
{
    DIR *dir = ::fdopendir(fd);
    if (!dir) {
        ::close(fd);
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    }
    QList<QByteArray> names;
    while (const dirent *entry = ::readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (name != "." && name != "..")
            names.append(name);
    }
    Status result = Ok{};
    for (const QByteArray &name : std::as_const(names)) {
        const QString below = relative + u'/' + QFile::decodeName(name);
        struct stat st {};
        if (::fstatat(::dirfd(dir), name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; // gone meanwhile
        if (S_ISDIR(st.st_mode)) {
            const int child = ::openat(::dirfd(dir), name.constData(), noFollowFolderFlags);
            if (child < 0) {
                result = failure(codeFor(errno), root, below, QString::fromLocal8Bit(strerror(errno)));
                break;
            }
            if (result = emptyFolder(child, root, below, freed); !result)
                break;
            if (::unlinkat(::dirfd(dir), name.constData(), AT_REMOVEDIR) != 0) {
                result = failure(codeFor(errno), root, below, QString::fromLocal8Bit(strerror(errno)));
                break;
            }
        } else {
            if (::unlinkat(::dirfd(dir), name.constData(), 0) != 0) {
                result = failure(codeFor(errno), root, below, QString::fromLocal8Bit(strerror(errno)));
                break;
            }
            if (S_ISREG(st.st_mode))
                freed += st.st_size;
        }
    }
    ::closedir(dir);
    return result;
}

#endif

} // namespace

Status removeFileConfined(const QString &root, const QString &relative)
{
    if (!validRelative(relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
#if !defined(Q_OS_WIN)
    auto parent = parentOf(root, relative);
    if (!parent)
        return parent.error();
    if (::unlinkat(parent->get(), QFile::encodeName(relative.section(u'/', -1)).constData(), 0) != 0) {
        const int error = errno;
        return failure(error == EISDIR || error == EPERM ? QStringLiteral("is_folder") : codeFor(error), root, relative,
                       QString::fromLocal8Bit(strerror(error)));
    }
    return Ok{};
#else
    if (!reachesWithoutLinks(root, relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
    const QString path = root + u'/' + relative;
    const QFileInfo info(path);
    if (!info.exists() && !isLink(path))
        return failure(QStringLiteral("not_found"), root, relative);
    if (info.isDir() && !isLink(path))
        return failure(QStringLiteral("is_folder"), root, relative);
    if (!QFile::remove(path))
        return failure(QStringLiteral("remove_failed"), root, relative);
    return Ok{};
#endif
}

Status removeEmptyFolderConfined(const QString &root, const QString &relative)
{
    if (!validRelative(relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
#if !defined(Q_OS_WIN)
    auto parent = parentOf(root, relative);
    if (!parent)
        return parent.error();
    if (::unlinkat(parent->get(), QFile::encodeName(relative.section(u'/', -1)).constData(), AT_REMOVEDIR) != 0)
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    return Ok{};
#else
    if (!reachesWithoutLinks(root, relative) || isLink(root + u'/' + relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
    if (!QDir(root + u'/' + relative).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
        return failure(QStringLiteral("not_empty"), root, relative);
    if (!QDir(root).rmdir(relative))
        return failure(QStringLiteral("remove_failed"), root, relative);
    return Ok{};
#endif
}

Result<qint64> removeTreeConfined(const QString &root, const QString &relative)
{
    if (!validRelative(relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
    qint64 freed = 0;
#if !defined(Q_OS_WIN)
    auto parent = parentOf(root, relative);
    if (!parent)
        return parent.error();
    const QByteArray name = QFile::encodeName(relative.section(u'/', -1));
    struct stat st {};
    if (::fstatat(parent->get(), name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    if (!S_ISDIR(st.st_mode)) {
        if (::unlinkat(parent->get(), name.constData(), 0) != 0)
            return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
        return qint64(S_ISREG(st.st_mode) ? st.st_size : 0);
    }
    const int folder = ::openat(parent->get(), name.constData(), noFollowFolderFlags);
    if (folder < 0)
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    if (const Status emptied = emptyFolder(folder, root, relative, freed); !emptied)
        return emptied.error();
    if (::unlinkat(parent->get(), name.constData(), AT_REMOVEDIR) != 0)
        return failure(codeFor(errno), root, relative, QString::fromLocal8Bit(strerror(errno)));
    return freed;
#else
    if (!reachesWithoutLinks(root, relative))
        return failure(QStringLiteral("path_through_link"), root, relative);
    const QString path = root + u'/' + relative;
    if (isLink(path) || !QFileInfo(path).isDir()) {
        const qint64 size = isLink(path) ? 0 : QFileInfo(path).size();
        if (const Status removed = removeFileConfined(root, relative); !removed)
            return removed.error();
        return size;
    }
    const QStringList names = QDir(path).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden
                                                   | QDir::System);
    for (const QString &name : names) {
        const auto removed = removeTreeConfined(root, relative + u'/' + name);
        if (!removed)
            return removed.error();
        freed += *removed;
    }
    if (const Status removed = removeEmptyFolderConfined(root, relative); !removed)
        return removed.error();
    return freed;
#endif
}

Result<QByteArray> sha256Confined(const QString &root, const QString &relative)
{
    QFile file;
    if (const Status opened = openConfined(file, root, relative, ConfinedOpen::ReadOnly); !opened)
        return opened.error();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file))
        return failure(QStringLiteral("read_failed"), root, relative);
    return hash.result().toHex();
}

qint64 bytesBelow(const QString &path)
{
    const QFileInfo top(path);
    if (top.isSymLink() || top.isJunction())
        return 0;
    if (top.isFile())
        return top.size();
    qint64 total = 0;
    // QDirIterator does not descend into linked folders unless told to.
    QDirIterator it(path, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        if (!info.isSymLink() && !info.isJunction())
            total += info.size();
    }
    return total;
}

} // namespace tfsetup::core
