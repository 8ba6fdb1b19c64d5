#include "util/confined.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QStringList>

#include <optional>
#include <utility>

#if defined(Q_OS_WIN)
#include <QSaveFile>

#include <filesystem>
#else
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace tfsetup::core {

bool isLink(const QString &path)
{
    const QFileInfo info(path);
    return info.isSymLink() || info.isJunction();
}

bool reachesWithoutLinks(const QString &root, const QString &relative)
{
    const QStringList parts = relative.split(u'/', Qt::SkipEmptyParts);
    if (parts.contains(QStringLiteral("..")))
        return false;
    QString at = root;
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        at += u'/' + parts.at(i);
        const QFileInfo info(at);
        if (info.isSymLink() || info.isJunction())
            return false;
        if (!info.exists())
            return true; // below a folder that does not exist yet, nothing can be a link
        if (!info.isDir())
            return false;
    }
    return true;
}

namespace {

std::function<void(const QString &)> &walkHook()
{
    static std::function<void(const QString &)> hook;
    return hook;
}

void beforeWalk(const QString &root, const QString &relative)
{
    if (walkHook())
        walkHook()(root + u'/' + relative);
}

// The components of a relative name: no "..", no empty name.
std::optional<QStringList> componentsOf(const QString &relative)
{
    QStringList parts;
    for (const QString &part : relative.split(u'/', Qt::SkipEmptyParts)) {
        if (part == u"..")
            return std::nullopt;
        if (part != u".")
            parts.append(part);
    }
    if (parts.isEmpty())
        return std::nullopt;
    return parts;
}

Error linkError(const QString &path, const QString &detail)
{
    return Error{QStringLiteral("path_through_link"),
                 QCoreApplication::translate("Confined",
                                             "tfsetup does not write %1: the way there leads through a "
                                             "link (or a file stands where a folder belongs), so the "
                                             "write could land outside the folder it belongs to. Remove "
                                             "the link or the file, or choose another folder, then try "
                                             "again.")
                     .arg(path),
                 detail};
}

Error writeFailed(const QString &path, const QString &detail)
{
    return Error{QStringLiteral("write_failed"),
                 QCoreApplication::translate("Confined",
                                             "Cannot write %1. Check the free space and that the folder "
                                             "is yours, then try again.")
                     .arg(path),
                 detail};
}

Error readFailed(const QString &path, const QString &detail)
{
    return Error{QStringLiteral("read_failed"),
                 QCoreApplication::translate("Confined",
                                             "Cannot read %1. Check that the file is there and that you "
                                             "may read it.")
                     .arg(path),
                 detail};
}

} // namespace

void setConfinedWalkHook(std::function<void(const QString &path)> hook)
{
    walkHook() = std::move(hook);
}

#if !defined(Q_OS_WIN)

namespace {

#if defined(O_PATH)
constexpr int folderFlags = O_PATH | O_DIRECTORY | O_CLOEXEC; // no read permission needed to pass through
#else
constexpr int folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
#endif

class Handle {
public:
    Handle() = default;
    explicit Handle(int fd)
        : m_fd(fd)
    {}
    Handle(Handle &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    {}
    Handle &operator=(Handle &&other) noexcept
    {
        std::swap(m_fd, other.m_fd);
        return *this;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    ~Handle()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    int fd() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd = -1;
};

Error errnoError(int error, const QString &path, bool reading)
{
    const QString detail = QString::fromLocal8Bit(std::strerror(error));
    switch (error) {
    case ELOOP:
    case ENOTDIR:
    case EMLINK: // what some systems answer O_NOFOLLOW on a link
        return linkError(path, detail);
    case EACCES:
    case EPERM:
    case EROFS:
        if (reading)
            return readFailed(path, detail);
        return Error{QStringLiteral("permission_denied"),
                     QCoreApplication::translate("Confined",
                                                 "You may not write %1. Choose a folder that is yours, "
                                                 "or ask its owner for write permission.")
                         .arg(path),
                     detail};
    case ENOSPC:
    case EDQUOT:
        return Error{QStringLiteral("disk_full"),
                     QCoreApplication::translate("Confined",
                                                 "The disk holding %1 is full (or your disk quota is used "
                                                 "up). Free some space, then try again.")
                         .arg(path),
                     detail};
    default: return reading ? readFailed(path, detail) : writeFailed(path, detail);
    }
}

// A folder below root, held open, and the last component's name in it.
struct Reached {
    Handle folder;
    QByteArray name;
};

Result<Reached> reach(const QString &root, const QString &relative, bool makeFolders, bool reading)
{
    const auto parts = componentsOf(relative);
    if (!parts)
        return linkError(confinedPath(root, relative), QStringLiteral("not a name below the folder: %1").arg(relative));
    // root itself is followed: it is the folder the user chose (a link to another disk is fine).
    Handle folder(::open(QFile::encodeName(root).constData(), folderFlags));
    if (folder.fd() < 0) {
        const int error = errno;
        if (error == ENOENT && makeFolders && QDir().mkpath(root))
            folder = Handle(::open(QFile::encodeName(root).constData(), folderFlags));
        if (folder.fd() < 0)
            return errnoError(error, confinedPath(root, relative), reading);
    }
    for (qsizetype i = 0; i + 1 < parts->size(); ++i) {
        const QByteArray name = QFile::encodeName(parts->at(i));
        int next = ::openat(folder.fd(), name.constData(), folderFlags | O_NOFOLLOW);
        if (next < 0 && errno == ENOENT && makeFolders) {
            if (::mkdirat(folder.fd(), name.constData(), 0777) == 0 || errno == EEXIST)
                next = ::openat(folder.fd(), name.constData(), folderFlags | O_NOFOLLOW);
        }
        if (next < 0)
            return errnoError(errno, confinedPath(root, relative), reading);
        folder = Handle(next);
    }
    return Reached{std::move(folder), QFile::encodeName(parts->constLast())};
}

QByteArray temporaryName(const QByteArray &name)
{
    return '.' + name.left(100) + ".tfsetup-tmp-" + QByteArray::number(QRandomGenerator::global()->generate64(), 36);
}

bool writeAll(int fd, const char *data, qint64 size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= n;
    }
    return true;
}

// Opens an existing plain file for reading (a link at the name refused, a FIFO never waited on).
int openPlainFile(int folder, const char *name)
{
    const int fd = ::openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

bool isPlainFileAt(int folder, const char *name)
{
    struct stat st {};
    return ::fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

// An error making a new entry: one that exists because a link was planted there says so.
Error creationError(int error, int folder, const char *name, const QString &path)
{
    struct stat st {};
    if (error == EEXIST && ::fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return linkError(path, QString::fromLocal8Bit(std::strerror(error)));
    return errnoError(error, path, false);
}

} // namespace

Status openConfined(QFile &file, const QString &root, const QString &relative, ConfinedOpen how)
{
    beforeWalk(root, relative);
    const bool reading = how == ConfinedOpen::ReadOnly;
    auto at = reach(root, relative, !reading, reading);
    if (!at)
        return at.error();
    int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    QIODevice::OpenMode mode = QIODevice::Unbuffered;
    switch (how) {
    case ConfinedOpen::CreateNew:
        flags |= O_WRONLY | O_CREAT | O_EXCL;
        mode |= QIODevice::WriteOnly;
        break;
    case ConfinedOpen::Replace:
        flags |= O_WRONLY | O_CREAT | O_TRUNC;
        mode |= QIODevice::WriteOnly;
        break;
    case ConfinedOpen::ReadWrite:
        flags |= O_RDWR | O_CREAT;
        mode |= QIODevice::ReadWrite;
        break;
    case ConfinedOpen::ReadOnly:
        flags |= O_RDONLY;
        mode |= QIODevice::ReadOnly;
        break;
    }
    Handle fd(::openat(at->folder.fd(), at->name.constData(), flags, 0666));
    if (fd.fd() < 0)
        return reading ? errnoError(errno, confinedPath(root, relative), true)
                       : creationError(errno, at->folder.fd(), at->name.constData(), confinedPath(root, relative));
    // O_NONBLOCK only so that a FIFO planted at the name is not waited on; it is no file.
    struct stat st {};
    if (::fstat(fd.fd(), &st) != 0 || !S_ISREG(st.st_mode))
        return linkError(confinedPath(root, relative), QStringLiteral("not a plain file"));
    ::fcntl(fd.fd(), F_SETFL, ::fcntl(fd.fd(), F_GETFL) & ~O_NONBLOCK);
    if (!file.open(fd.fd(), mode, QFileDevice::AutoCloseHandle)) {
        return reading ? readFailed(confinedPath(root, relative), file.errorString())
                       : writeFailed(confinedPath(root, relative), file.errorString());
    }
    fd.release();
    return Ok{};
}

Status writeConfined(const QString &root, const QString &relative, const QByteArray &bytes, bool executable)
{
    beforeWalk(root, relative);
    auto at = reach(root, relative, true, false);
    if (!at)
        return at.error();
    const int folder = at->folder.fd();
    const QByteArray temp = temporaryName(at->name);
    Handle fd(::openat(folder, temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       executable ? 0777 : 0666));
    if (fd.fd() < 0)
        return errnoError(errno, confinedPath(root, relative), false);
    bool written = writeAll(fd.fd(), bytes.constData(), bytes.size());
    if (written && executable) {
        struct stat st {};
        written = ::fstat(fd.fd(), &st) == 0 && ::fchmod(fd.fd(), (st.st_mode & 07777) | 0111) == 0;
    }
    // Synced before the rename: after a crash the name holds the old text or the new, never a part.
    written = written && ::fsync(fd.fd()) == 0;
    const int error = errno;
    if (::close(fd.release()) != 0)
        written = false;
    if (!written || ::renameat(folder, temp.constData(), folder, at->name.constData()) != 0) {
        const int failure = written ? errno : error;
        ::unlinkat(folder, temp.constData(), 0);
        return errnoError(failure, confinedPath(root, relative), false);
    }
    return Ok{};
}

Status renameConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                      const QString &toRelative)
{
    beforeWalk(fromRoot, fromRelative);
    beforeWalk(toRoot, toRelative);
    auto from = reach(fromRoot, fromRelative, false, false);
    if (!from)
        return from.error();
    auto to = reach(toRoot, toRelative, true, false);
    if (!to)
        return to.error();
    if (::renameat(from->folder.fd(), from->name.constData(), to->folder.fd(), to->name.constData()) != 0)
        return errnoError(errno, confinedPath(toRoot, toRelative), false);
    return Ok{};
}

Status linkConfined(const QString &root, const QString &relative, const QString &linkTarget)
{
    beforeWalk(root, relative);
    if (linkTarget.isEmpty() || linkTarget.contains(u'/'))
        return writeFailed(confinedPath(root, relative),
                           QStringLiteral("link to %1 is not a name in the same folder").arg(linkTarget));
    auto at = reach(root, relative, true, false);
    if (!at)
        return at.error();
    if (::symlinkat(QFile::encodeName(linkTarget).constData(), at->folder.fd(), at->name.constData()) != 0)
        return creationError(errno, at->folder.fd(), at->name.constData(), confinedPath(root, relative));
    return Ok{};
}

Status placeConfined(const QString &source, const QString &root, const QString &relative, PlaceHow how)
{
    beforeWalk(root, relative);
    auto at = reach(root, relative, true, false);
    if (!at)
        return at.error();
    const int folder = at->folder.fd();
    const QByteArray temp = temporaryName(at->name);
    const QByteArray from = QFile::encodeName(source);
    bool moved = how == PlaceHow::Move && ::renameat(AT_FDCWD, from.constData(), folder, temp.constData()) == 0;
    // A hard link where the file system allows it (the cache and the download folder are usually
    // on one disk: no second copy of a gigabyte archive), else a copy.
    if (!moved && ::linkat(AT_FDCWD, from.constData(), folder, temp.constData(), 0) != 0) {
        const Handle in(openPlainFile(AT_FDCWD, from.constData()));
        if (in.fd() < 0)
            return errnoError(errno, QDir::toNativeSeparators(source), true);
        const Handle out(
            ::openat(folder, temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
        if (out.fd() < 0)
            return errnoError(errno, confinedPath(root, relative), false);
        QByteArray buffer(1024 * 1024, Qt::Uninitialized);
        for (;;) {
            const ssize_t n = ::read(in.fd(), buffer.data(), size_t(buffer.size()));
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0)
                break;
            if (n < 0 || !writeAll(out.fd(), buffer.constData(), n)) {
                const int error = errno;
                ::unlinkat(folder, temp.constData(), 0);
                return errnoError(error, confinedPath(root, relative), false);
            }
        }
    }
    // Whatever arrived under the temporary name must be a plain file: a source that was swapped
    // for a link moves (or hard-links) as the link itself, and would make the target one.
    if (!isPlainFileAt(folder, temp.constData())) {
        if (moved)
            ::renameat(folder, temp.constData(), AT_FDCWD, from.constData());
        else
            ::unlinkat(folder, temp.constData(), 0);
        return linkError(QDir::toNativeSeparators(source), QStringLiteral("not a plain file"));
    }
    if (::renameat(folder, temp.constData(), folder, at->name.constData()) != 0) {
        const int error = errno;
        if (moved)
            ::renameat(folder, temp.constData(), AT_FDCWD, from.constData());
        else
            ::unlinkat(folder, temp.constData(), 0);
        return errnoError(error, confinedPath(root, relative), false);
    }
    // Renaming a hard link over another link to the same file does nothing (POSIX): the target
    // already is that file, and the temporary name goes.
    ::unlinkat(folder, temp.constData(), 0);
    if (how == PlaceHow::Move && !moved)
        ::unlink(from.constData());
    return Ok{};
}

namespace {

// Copies what is left of `in` into `out`; false with errno set on failure.
bool copyBytes(int in, int out)
{
    QByteArray buffer(1024 * 1024, Qt::Uninitialized);
    for (;;) {
        const ssize_t n = ::read(in, buffer.data(), size_t(buffer.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return true;
        if (n < 0 || !writeAll(out, buffer.constData(), n))
            return false;
    }
}

// The text of the link `name` in `folder`; empty with errno set when it cannot be read.
QByteArray readLinkAt(int folder, const char *name)
{
    QByteArray text(4096, Qt::Uninitialized);
    for (;;) {
        const ssize_t n = ::readlinkat(folder, name, text.data(), size_t(text.size()));
        if (n < 0)
            return {};
        if (n < text.size()) {
            text.truncate(n);
            return text;
        }
        text.resize(text.size() * 2);
    }
}

bool sameEntry(const struct stat &a, const struct stat &b)
{
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

Status relinkConfined(const QString &root, const QString &relative, const QString &linkTarget)
{
    beforeWalk(root, relative);
    if (linkTarget.isEmpty())
        return writeFailed(confinedPath(root, relative), QStringLiteral("no link target"));
    auto at = reach(root, relative, false, false);
    if (!at)
        return at.error();
    const int folder = at->folder.fd();
    struct stat st {};
    if (::fstatat(folder, at->name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoError(errno, confinedPath(root, relative), false);
    if (!S_ISLNK(st.st_mode))
        return linkError(confinedPath(root, relative), QStringLiteral("not a link: only a link is re-pointed"));
    const QByteArray temp = temporaryName(at->name);
    if (::symlinkat(QFile::encodeName(linkTarget).constData(), folder, temp.constData()) != 0)
        return errnoError(errno, confinedPath(root, relative), false);
    if (::renameat(folder, temp.constData(), folder, at->name.constData()) != 0) {
        const int error = errno;
        ::unlinkat(folder, temp.constData(), 0);
        return errnoError(error, confinedPath(root, relative), false);
    }
    return Ok{};
}

Status copyConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                    const QString &toRelative)
{
    beforeWalk(fromRoot, fromRelative);
    beforeWalk(toRoot, toRelative);
    auto from = reach(fromRoot, fromRelative, false, true);
    if (!from)
        return from.error();
    auto to = reach(toRoot, toRelative, true, false);
    if (!to)
        return to.error();
    const int source = from->folder.fd();
    const int folder = to->folder.fd();
    struct stat st {};
    if (::fstatat(source, from->name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoError(errno, confinedPath(fromRoot, fromRelative), true);
    if (S_ISLNK(st.st_mode)) {
        // A link moves on as the link itself: what it points to is never read.
        const QByteArray text = readLinkAt(source, from->name.constData());
        if (text.isEmpty())
            return errnoError(errno, confinedPath(fromRoot, fromRelative), true);
        if (::symlinkat(text.constData(), folder, to->name.constData()) != 0)
            return creationError(errno, folder, to->name.constData(), confinedPath(toRoot, toRelative));
        return Ok{};
    }
    const Handle in(openPlainFile(source, from->name.constData()));
    if (in.fd() < 0)
        return errnoError(errno, confinedPath(fromRoot, fromRelative), true);
    if (::fstat(in.fd(), &st) != 0)
        return errnoError(errno, confinedPath(fromRoot, fromRelative), true);
    const Handle out(
        ::openat(folder, to->name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.fd() < 0)
        return creationError(errno, folder, to->name.constData(), confinedPath(toRoot, toRelative));
    if (!copyBytes(in.fd(), out.fd()) || ::fchmod(out.fd(), st.st_mode & 07777) != 0) {
        const int error = errno;
        ::unlinkat(folder, to->name.constData(), 0);
        return errnoError(error, confinedPath(toRoot, toRelative), false);
    }
    return Ok{};
}

Result<ConfinedFolder> ConfinedFolder::open(const QString &root, const QString &relative)
{
    beforeWalk(root, relative);
    auto at = reach(root, relative, true, false);
    if (!at)
        return at.error();
    int fd = ::openat(at->folder.fd(), at->name.constData(), folderFlags | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT) {
        if (::mkdirat(at->folder.fd(), at->name.constData(), 0777) == 0 || errno == EEXIST)
            fd = ::openat(at->folder.fd(), at->name.constData(), folderFlags | O_NOFOLLOW);
    }
    if (fd < 0)
        return errnoError(errno, confinedPath(root, relative), false);
    ConfinedFolder held;
    held.m_path = root + u'/' + relative;
    held.m_root = root;
    held.m_relative = relative;
    held.m_fd = fd;
    return held;
}

ConfinedFolder::~ConfinedFolder()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool ConfinedFolder::leadsHere(const QString &name) const
{
    beforeWalk(m_path, name);
    // Followed by name, as the library will follow it: it must arrive at the folder held.
    struct stat held {};
    struct stat named {};
    return m_fd >= 0 && ::fstat(m_fd, &held) == 0 && ::stat(QFile::encodeName(m_path).constData(), &named) == 0
        && S_ISDIR(named.st_mode) && sameEntry(held, named);
}

bool ConfinedFolder::holdsPlainFile(const QString &name) const
{
    beforeWalk(m_path, name);
    const QByteArray entry = QFile::encodeName(name);
    if (m_fd < 0 || entry.contains('/'))
        return false;
    struct stat inFolder {};
    struct stat named {};
    return ::fstatat(m_fd, entry.constData(), &inFolder, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(inFolder.st_mode)
        && ::lstat(QFile::encodeName(m_path + u'/' + name).constData(), &named) == 0 && sameEntry(inFolder, named);
}

#else // Q_OS_WIN: no openat family here; each component is checked just before the operation.

namespace {

Status checked(const QString &root, const QString &relative)
{
    const auto parts = componentsOf(relative);
    if (!parts || !reachesWithoutLinks(root, relative) || isLink(root + u'/' + relative))
        return linkError(confinedPath(root, relative), relative);
    return Ok{};
}

Error fileError(const QFileDevice &file, const QString &path, bool reading)
{
    if (reading)
        return readFailed(path, file.errorString());
    if (file.error() == QFileDevice::PermissionsError) {
        return Error{QStringLiteral("permission_denied"),
                     QCoreApplication::translate("Confined",
                                                 "You may not write %1. Choose a folder that is yours, "
                                                 "or ask its owner for write permission.")
                         .arg(path),
                     file.errorString()};
    }
    return writeFailed(path, file.errorString());
}

bool replaceName(const QString &from, const QString &to)
{
    std::error_code error;
    std::filesystem::rename(QFile(from).filesystemFileName(), QFile(to).filesystemFileName(), error);
    return !error;
}

} // namespace

Status openConfined(QFile &file, const QString &root, const QString &relative, ConfinedOpen how)
{
    beforeWalk(root, relative);
    if (auto s = checked(root, relative); !s)
        return s;
    const QString path = root + u'/' + relative;
    const bool reading = how == ConfinedOpen::ReadOnly;
    if (!reading)
        QDir().mkpath(QFileInfo(path).absolutePath());
    QIODevice::OpenMode mode = QIODevice::Unbuffered;
    switch (how) {
    case ConfinedOpen::CreateNew: mode |= QIODevice::WriteOnly | QIODevice::NewOnly; break;
    case ConfinedOpen::Replace: mode |= QIODevice::WriteOnly | QIODevice::Truncate; break;
    case ConfinedOpen::ReadWrite: mode |= QIODevice::ReadWrite; break;
    case ConfinedOpen::ReadOnly: mode |= QIODevice::ReadOnly | QIODevice::ExistingOnly; break;
    }
    file.setFileName(path);
    if (!file.open(mode))
        return fileError(file, confinedPath(root, relative), reading);
    return Ok{};
}

Status writeConfined(const QString &root, const QString &relative, const QByteArray &bytes, bool executable)
{
    beforeWalk(root, relative);
    if (auto s = checked(root, relative); !s)
        return s;
    const QString path = root + u'/' + relative;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return fileError(f, confinedPath(root, relative), false);
    if (executable)
        QFile::setPermissions(path, QFile::permissions(path) | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther);
    return Ok{};
}

Status renameConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                      const QString &toRelative)
{
    beforeWalk(fromRoot, fromRelative);
    beforeWalk(toRoot, toRelative);
    if (!componentsOf(fromRelative) || !reachesWithoutLinks(fromRoot, fromRelative))
        return linkError(confinedPath(fromRoot, fromRelative), fromRelative);
    if (!componentsOf(toRelative) || !reachesWithoutLinks(toRoot, toRelative))
        return linkError(confinedPath(toRoot, toRelative), toRelative);
    const QString to = toRoot + u'/' + toRelative;
    QDir().mkpath(QFileInfo(to).absolutePath());
    if (!replaceName(fromRoot + u'/' + fromRelative, to))
        return writeFailed(confinedPath(toRoot, toRelative), fromRoot + u'/' + fromRelative);
    return Ok{};
}

Status linkConfined(const QString &root, const QString &relative, const QString &linkTarget)
{
    beforeWalk(root, relative);
    if (linkTarget.isEmpty() || linkTarget.contains(u'/') || linkTarget.contains(u'\\'))
        return writeFailed(confinedPath(root, relative),
                           QStringLiteral("link to %1 is not a name in the same folder").arg(linkTarget));
    if (auto s = checked(root, relative); !s)
        return s;
    const QString path = root + u'/' + relative;
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (!QFile::link(linkTarget, path))
        return writeFailed(confinedPath(root, relative), QStringLiteral("link -> %1").arg(linkTarget));
    return Ok{};
}

Status placeConfined(const QString &source, const QString &root, const QString &relative, PlaceHow how)
{
    beforeWalk(root, relative);
    if (!componentsOf(relative) || !reachesWithoutLinks(root, relative))
        return linkError(confinedPath(root, relative), relative);
    if (isLink(source))
        return linkError(QDir::toNativeSeparators(source), QStringLiteral("not a plain file"));
    const QString path = root + u'/' + relative;
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (how == PlaceHow::Move && replaceName(source, path))
        return Ok{};
    const QString temp = path + QStringLiteral(".tfsetup-tmp-")
        + QString::number(QRandomGenerator::global()->generate64(), 36);
    std::error_code hardLinkError;
    std::filesystem::create_hard_link(QFile(source).filesystemFileName(), QFile(temp).filesystemFileName(),
                                      hardLinkError);
    if (hardLinkError && !QFile::copy(source, temp)) {
        QFile::remove(temp);
        return writeFailed(confinedPath(root, relative), source);
    }
    const bool replaced = replaceName(temp, path);
    QFile::remove(temp);
    if (!replaced)
        return writeFailed(confinedPath(root, relative), temp);
    if (how == PlaceHow::Move)
        QFile::remove(source);
    return Ok{};
}

Status relinkConfined(const QString &root, const QString &relative, const QString &linkTarget)
{
    beforeWalk(root, relative);
    if (!componentsOf(relative) || !reachesWithoutLinks(root, relative))
        return linkError(confinedPath(root, relative), relative);
    const QString path = root + u'/' + relative;
    if (!isLink(path))
        return linkError(confinedPath(root, relative), QStringLiteral("not a link: only a link is re-pointed"));
    if (linkTarget.isEmpty() || !QFile::remove(path) || !QFile::link(linkTarget, path))
        return writeFailed(confinedPath(root, relative), QStringLiteral("link -> %1").arg(linkTarget));
    return Ok{};
}

Status copyConfined(const QString &fromRoot, const QString &fromRelative, const QString &toRoot,
                    const QString &toRelative)
{
    beforeWalk(fromRoot, fromRelative);
    beforeWalk(toRoot, toRelative);
    if (!componentsOf(fromRelative) || !reachesWithoutLinks(fromRoot, fromRelative))
        return linkError(confinedPath(fromRoot, fromRelative), fromRelative);
    if (auto s = checked(toRoot, toRelative); !s)
        return s;
    const QString from = fromRoot + u'/' + fromRelative;
    const QString to = toRoot + u'/' + toRelative;
    QDir().mkpath(QFileInfo(to).absolutePath());
    if (QFileInfo::exists(to) || isLink(to))
        return writeFailed(confinedPath(toRoot, toRelative), QStringLiteral("exists"));
    const bool copied = isLink(from) ? QFile::link(QFileInfo(from).symLinkTarget(), to) : QFile::copy(from, to);
    if (!copied)
        return writeFailed(confinedPath(toRoot, toRelative), from);
    return Ok{};
}

Result<ConfinedFolder> ConfinedFolder::open(const QString &root, const QString &relative)
{
    beforeWalk(root, relative);
    if (auto s = checked(root, relative); !s)
        return s.error();
    const QString path = root + u'/' + relative;
    if (!QDir().mkpath(path))
        return writeFailed(confinedPath(root, relative), path);
    ConfinedFolder held;
    held.m_path = path;
    held.m_root = root;
    held.m_relative = relative;
    return held;
}

ConfinedFolder::~ConfinedFolder() = default;

bool ConfinedFolder::leadsHere(const QString &name) const
{
    beforeWalk(m_path, name);
    return reachesWithoutLinks(m_root, m_relative + u'/' + name) && !isLink(m_path);
}

bool ConfinedFolder::holdsPlainFile(const QString &name) const
{
    beforeWalk(m_path, name);
    const QString path = m_path + u'/' + name;
    return reachesWithoutLinks(m_root, m_relative + u'/' + name) && !isLink(m_path) && !isLink(path)
        && QFileInfo(path).isFile();
}

#endif

// Both systems: a move hands the open folder over (the handle is -1 on Windows).
ConfinedFolder::ConfinedFolder(ConfinedFolder &&other) noexcept
    : m_path(std::move(other.m_path))
    , m_root(std::move(other.m_root))
    , m_relative(std::move(other.m_relative))
    , m_fd(std::exchange(other.m_fd, -1))
{}

ConfinedFolder &ConfinedFolder::operator=(ConfinedFolder &&other) noexcept
{
    std::swap(m_path, other.m_path);
    std::swap(m_root, other.m_root);
    std::swap(m_relative, other.m_relative);
    std::swap(m_fd, other.m_fd);
    return *this;
}

Status writeUserFile(const QString &path, const QByteArray &bytes)
{
    const QFileInfo info(path);
    const QString shownPath = QDir::toNativeSeparators(path);
    if (isLink(path)) {
        return Error{QStringLiteral("path_is_link"),
                     QCoreApplication::translate("Confined",
                                                 "%1 is a link to another file. tfsetup does not write "
                                                 "through links: give the path of a new file, or of a "
                                                 "plain file to replace.")
                         .arg(shownPath),
                     info.symLinkTarget()};
    }
    if (info.exists() && !info.isFile()) {
        return Error{QStringLiteral("not_plain_file"),
                     QCoreApplication::translate("Confined",
                                                 "%1 is not a plain file (a folder, a device or a pipe), "
                                                 "so tfsetup does not write there. Give the path of a new "
                                                 "file.")
                         .arg(shownPath),
                     path};
    }
    if (!QFileInfo(info.absolutePath()).isDir()) {
        return Error{QStringLiteral("write_failed"),
                     QCoreApplication::translate("Confined",
                                                 "The folder of %1 does not exist. Choose a folder that "
                                                 "exists.")
                         .arg(shownPath),
                     info.absolutePath()};
    }
    // The folder is the user's choice and may itself be a link; the name is replaced in one step,
    // and a link planted there meanwhile is replaced, never written through.
    return writeConfined(info.absolutePath(), info.fileName(), bytes);
}

QString confinedPath(const QString &root, const QString &relative)
{
    return QDir::toNativeSeparators(relative.isEmpty() ? root : root + u'/' + relative);
}

} // namespace tfsetup::core
