#include "install/archive.h"

#include "fetch/checksum.h"
#include "util/confined.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <archive.h>
#include <archive_entry.h>

namespace tfsetup::core {

namespace {

// RAII owners for libarchive handles.
struct ReadHandle {
    archive *a = archive_read_new();
    ~ReadHandle()
    {
        if (a)
            archive_read_free(a);
    }
    Q_DISABLE_COPY_MOVE(ReadHandle)
    ReadHandle() = default;
};

QString archiveError(archive *a)
{
    const char *text = archive_error_string(a);
    return text ? QString::fromLocal8Bit(text) : QStringLiteral("unknown libarchive error");
}

QString entryName(archive_entry *entry)
{
    if (const char *utf8 = archive_entry_pathname_utf8(entry))
        return QString::fromUtf8(utf8);
    if (const char *local = archive_entry_pathname(entry))
        return QString::fromLocal8Bit(local);
    return {};
}

QString linkName(const char *utf8, const char *local)
{
    if (utf8)
        return QString::fromUtf8(utf8);
    return local ? QString::fromLocal8Bit(local) : QString();
}

bool isAbsoluteName(const QString &name)
{
    static const QRegularExpression drive(QStringLiteral("^[A-Za-z]:"));
    return name.startsWith(u'/') || name.startsWith(u'\\') || drive.match(name).hasMatch();
}

// Splits a stored name into components, '\\' counting as a separator as it does on Windows.
// "." and empty components vanish; ".." is kept for the caller to judge.
QStringList components(QString name)
{
    name.replace(u'\\', u'/');
    QStringList out;
    for (const QString &part : name.split(u'/', Qt::SkipEmptyParts)) {
        if (part != u".")
            out.append(part);
    }
    return out;
}

Error refused(const QString &archivePath, const QString &entry, const QString &why)
{
    return Error{QStringLiteral("archive_unsafe"),
                 ArchiveReader::tr("The archive %1 contains an entry that could write outside its folder, so nothing "
                                   "from it was installed. Download it again from the official site; if this keeps "
                                   "happening, the mirror serves a tampered file.")
                     .arg(QFileInfo(archivePath).fileName()),
                 QStringLiteral("%1: %2").arg(entry, why)};
}

// True when some existing prefix of parts (excluding the last `skipLast` parts) under root is a
// symbolic link or not a folder: writing there would go through a link or collide with a file.
bool parentsAreRealFolders(const QString &root, const QStringList &parts, qsizetype count)
{
    QString path = root;
    for (qsizetype i = 0; i < count; ++i) {
        path += u'/' + parts.at(i);
        const QFileInfo info(path);
        if (info.isSymLink())
            return false;
        if (info.exists() && !info.isDir())
            return false;
    }
    return true;
}

} // namespace

Result<QList<ExtractedEntry>> ArchiveReader::extract(const QString &archivePath, const QString &destination,
                                                     const ExtractOptions &options)
{
    ReadHandle reader;
    archive_read_support_format_all(reader.a);
    archive_read_support_filter_all(reader.a);
    const QByteArray encodedPath = QFile::encodeName(archivePath);
    if (archive_read_open_filename(reader.a, encodedPath.constData(), 64 * 1024) != ARCHIVE_OK) {
        return Error{QStringLiteral("archive_unreadable"),
                     tr("Cannot open the archive %1. Download it again; it may be incomplete.")
                         .arg(QFileInfo(archivePath).fileName()),
                     archiveError(reader.a)};
    }
    const QString root = QDir(destination).absolutePath();
    QList<ExtractedEntry> extracted;
    QHash<QString, qsizetype> fileIndex; // relative path → index in extracted, for hard links
    qint64 written = 0;
    QByteArray buffer(256 * 1024, Qt::Uninitialized);

    archive_entry *entry = nullptr;
    for (;;) {
        const int status = archive_read_next_header(reader.a, &entry);
        if (status == ARCHIVE_EOF)
            break;
        if (status < ARCHIVE_WARN) {
            return Error{QStringLiteral("archive_corrupt"),
                         tr("The archive %1 is damaged. Download it again.").arg(QFileInfo(archivePath).fileName()),
                         archiveError(reader.a)};
        }
        if (options.cancel && options.cancel->load())
            return Error{QStringLiteral("cancelled"), tr("Unpacking was cancelled."), {}};

        const QString name = entryName(entry);
        if (name.isEmpty())
            return refused(archivePath, name, QStringLiteral("empty name"));
        if (isAbsoluteName(name))
            return refused(archivePath, name, QStringLiteral("absolute path"));
        const QStringList parts = components(name);
        if (parts.isEmpty())
            continue; // "./" itself
        if (parts.contains(QStringLiteral("..")))
            return refused(archivePath, name, QStringLiteral("'..' component"));
        if (!parentsAreRealFolders(root, parts, parts.size() - 1))
            return refused(archivePath, name, QStringLiteral("written through a link or over a file"));
        const QString relative = parts.join(u'/');
        const QString target = root + u'/' + relative;
        const QFileInfo existing(target);
        if (existing.isSymLink())
            return refused(archivePath, name, QStringLiteral("replaces a link"));

        const char *hardlink = archive_entry_hardlink(entry);
        const mode_t type = archive_entry_filetype(entry);
        const bool executable = archive_entry_perm(entry) & 0111;
        QDir().mkpath(QFileInfo(target).absolutePath());

        if (hardlink) {
            const QString linkTo = linkName(archive_entry_hardlink_utf8(entry), hardlink);
            const QStringList toParts = components(linkTo);
            if (isAbsoluteName(linkTo) || toParts.isEmpty() || toParts.contains(QStringLiteral("..")))
                return refused(archivePath, name, QStringLiteral("hard link to %1").arg(linkTo));
            const QString toRelative = toParts.join(u'/');
            // The folders on the way must be real ones; the last component is the file itself.
            const QFileInfo linked(root + u'/' + toRelative);
            if (!fileIndex.contains(toRelative) || !parentsAreRealFolders(root, toParts, toParts.size() - 1)
                || linked.isSymLink() || !linked.isFile())
                return refused(archivePath, name,
                               QStringLiteral("hard link to %1, not a file extracted before").arg(linkTo));
            // A copy, not a link: the installed tree must not share inodes with anything.
            QFile::remove(target);
            if (!QFile::copy(root + u'/' + toRelative, target)) {
                return Error{QStringLiteral("write_failed"),
                             tr("Cannot write %1. Check the free space and the "
                                "permissions of the install folder.")
                                 .arg(target),
                             {}};
            }
            ExtractedEntry copy = extracted.at(fileIndex.value(toRelative));
            copy.path = relative;
            fileIndex.insert(relative, extracted.size());
            extracted.append(copy);
            continue;
        }

        if (type == AE_IFDIR) {
            if (existing.exists() && !existing.isDir())
                return refused(archivePath, name, QStringLiteral("folder over a file"));
            if (!QDir().mkpath(target)) {
                return Error{
                    QStringLiteral("write_failed"),
                    tr("Cannot create the folder %1. Check the permissions of the install folder.").arg(target),
                    {}};
            }
            extracted.append({ExtractedEntry::Folder, relative, 0, {}, {}, false});
            continue;
        }

        if (type == AE_IFLNK) {
            const QString linkTo = linkName(archive_entry_symlink_utf8(entry), archive_entry_symlink(entry));
            if (linkTo.isEmpty() || isAbsoluteName(linkTo))
                return refused(archivePath, name, QStringLiteral("link to absolute %1").arg(linkTo));
            // Only "../" steps first, then downward names: the steps then climb real folders
            // (checked above), and every link reached downward was itself checked when written.
            const QStringList toParts = components(linkTo);
            qsizetype ups = 0;
            while (ups < toParts.size() && toParts.at(ups) == u"..")
                ++ups;
            if (toParts.mid(ups).contains(QStringLiteral("..")) || ups > parts.size() - 1)
                return refused(archivePath, name, QStringLiteral("link to %1 leaves the folder").arg(linkTo));
            if (existing.exists())
                return refused(archivePath, name, QStringLiteral("link over an existing entry"));
            if (!QFile::link(linkTo, target)) {
                return Error{QStringLiteral("write_failed"),
                             tr("Cannot create the link %1. The install folder must be on a disk that supports "
                                "links (not FAT or a network share).")
                                 .arg(target),
                             {}};
            }
            ExtractedEntry link{ExtractedEntry::Link, relative, 0, {}, linkTo, false};
            extracted.append(link);
            continue;
        }

        if (type != AE_IFREG)
            return refused(archivePath, name, QStringLiteral("special file (type %1)").arg(int(type), 0, 8));
        if (existing.isDir())
            return refused(archivePath, name, QStringLiteral("file over a folder"));

        // Opened from the extraction folder one folder at a time, never through a link: one
        // swapped in after the checks above is refused (path_through_link), not written through.
        QFile out;
        if (const Status opened = openConfined(out, root, relative, ConfinedOpen::Replace); !opened) {
            if (opened.error().code == u"path_through_link")
                return opened.error();
            return Error{
                QStringLiteral("write_failed"),
                tr("Cannot write %1. Check the free space and the permissions of the install folder.").arg(target),
                opened.error().detail};
        }
        Hasher hasher(Checksum::Algorithm::Sha256);
        qint64 size = 0;
        for (;;) {
            const la_ssize_t n = archive_read_data(reader.a, buffer.data(), size_t(buffer.size()));
            if (n == 0)
                break;
            if (n < 0) {
                return Error{QStringLiteral("archive_corrupt"),
                             tr("The archive %1 is damaged. Download it again.").arg(QFileInfo(archivePath).fileName()),
                             archiveError(reader.a)};
            }
            if (out.write(buffer.constData(), n) != n) {
                return Error{QStringLiteral("write_failed"),
                             tr("Cannot write %1. Check the free space on the disk.").arg(target), out.errorString()};
            }
            hasher.addData(buffer.constData(), qsizetype(n));
            size += n;
            written += n;
            if (options.onProgress)
                options.onProgress(written);
            if (options.cancel && options.cancel->load())
                return Error{QStringLiteral("cancelled"), tr("Unpacking was cancelled."), {}};
        }
        QFile::Permissions permissions = QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther;
        if (executable)
            permissions |= QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther;
        out.setPermissions(permissions); // on the open handle: the file has no name to QFile
        out.close();
        fileIndex.insert(relative, extracted.size());
        extracted.append({ExtractedEntry::File, relative, size, hasher.finalHex(), {}, executable});
    }
    return extracted;
}

Result<QStringList> ArchiveReader::list(const QString &archivePath)
{
    ReadHandle reader;
    archive_read_support_format_all(reader.a);
    archive_read_support_filter_all(reader.a);
    const QByteArray encodedPath = QFile::encodeName(archivePath);
    if (archive_read_open_filename(reader.a, encodedPath.constData(), 64 * 1024) != ARCHIVE_OK) {
        return Error{QStringLiteral("archive_unreadable"),
                     tr("Cannot open the archive %1. Download it again; it may be incomplete.")
                         .arg(QFileInfo(archivePath).fileName()),
                     archiveError(reader.a)};
    }
    QStringList names;
    archive_entry *entry = nullptr;
    int status = ARCHIVE_OK;
    while ((status = archive_read_next_header(reader.a, &entry)) >= ARCHIVE_WARN) {
        names.append(entryName(entry));
        archive_read_data_skip(reader.a);
    }
    if (status != ARCHIVE_EOF) {
        return Error{QStringLiteral("archive_corrupt"),
                     tr("The archive %1 is damaged. Download it again.").arg(QFileInfo(archivePath).fileName()),
                     archiveError(reader.a)};
    }
    return names;
}

Result<QByteArray> ArchiveReader::readMember(const QString &archivePath,
                                             const std::function<bool(const QString &)> &match, qint64 maxBytes)
{
    ReadHandle reader;
    archive_read_support_format_all(reader.a);
    archive_read_support_filter_all(reader.a);
    const QByteArray encodedPath = QFile::encodeName(archivePath);
    const QString file = QFileInfo(archivePath).fileName();
    if (archive_read_open_filename(reader.a, encodedPath.constData(), 64 * 1024) != ARCHIVE_OK) {
        return Error{QStringLiteral("archive_unreadable"),
                     tr("Cannot open the archive %1. Download it again; it may be incomplete.").arg(file),
                     archiveError(reader.a)};
    }
    archive_entry *entry = nullptr;
    int status = ARCHIVE_OK;
    while ((status = archive_read_next_header(reader.a, &entry)) >= ARCHIVE_WARN) {
        if (archive_entry_filetype(entry) != AE_IFREG || !match(entryName(entry))) {
            archive_read_data_skip(reader.a);
            continue;
        }
        if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > maxBytes) {
            return Error{QStringLiteral("archive_member_too_large"),
                         tr("%1 in the archive %2 is larger than expected. The archive is not what it should be; "
                            "download it again.")
                             .arg(entryName(entry), file),
                         QString::number(archive_entry_size(entry))};
        }
        QByteArray data;
        char buffer[64 * 1024];
        for (;;) {
            const la_ssize_t n = archive_read_data(reader.a, buffer, sizeof buffer);
            if (n < 0) {
                return Error{QStringLiteral("archive_corrupt"),
                             tr("The archive %1 is damaged. Download it again.").arg(file), archiveError(reader.a)};
            }
            if (n == 0)
                return data;
            if (data.size() + n > maxBytes) {
                return Error{QStringLiteral("archive_member_too_large"),
                             tr("%1 in the archive %2 is larger than expected. The archive is not what it should "
                                "be; download it again.")
                                 .arg(entryName(entry), file),
                             {}};
            }
            data.append(buffer, qsizetype(n));
        }
    }
    if (status != ARCHIVE_EOF) {
        return Error{QStringLiteral("archive_corrupt"), tr("The archive %1 is damaged. Download it again.").arg(file),
                     archiveError(reader.a)};
    }
    return Error{QStringLiteral("archive_member_missing"),
                 tr("The archive %1 does not contain the file tfsetup looks for. Download it again.").arg(file),
                 {}};
}

struct ArchiveWriter::Impl {
    archive *a = nullptr;
    ~Impl()
    {
        if (a)
            archive_write_free(a);
    }
};

ArchiveWriter::ArchiveWriter()
    : d(std::make_unique<Impl>())
{}
ArchiveWriter::~ArchiveWriter() = default;

Status ArchiveWriter::open(const QString &path, Format format)
{
    d->a = archive_write_new();
    int status = ARCHIVE_OK;
    switch (format) {
    case Zip: status = archive_write_set_format_zip(d->a); break;
    case TarXz:
        status = archive_write_set_format_pax_restricted(d->a);
        if (status == ARCHIVE_OK)
            status = archive_write_add_filter_xz(d->a);
        break;
    case TarGz:
        status = archive_write_set_format_pax_restricted(d->a);
        if (status == ARCHIVE_OK)
            status = archive_write_add_filter_gzip(d->a);
        break;
    }
    const QByteArray encoded = QFile::encodeName(path);
    if (status == ARCHIVE_OK)
        status = archive_write_open_filename(d->a, encoded.constData());
    if (status != ARCHIVE_OK) {
        return Error{QStringLiteral("archive_write_failed"), tr("Cannot create the archive %1.").arg(path),
                     archiveError(d->a)};
    }
    return Ok{};
}

Status ArchiveWriter::add(const Entry &entry)
{
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(), &archive_entry_free);
    const QByteArray name = entry.path.toUtf8();
    archive_entry_set_pathname_utf8(e.get(), name.constData());
    archive_entry_set_perm(e.get(), mode_t(entry.mode));
    archive_entry_set_mtime(e.get(), 1'600'000'000, 0);
    const QByteArray link = entry.linkTarget.toUtf8();
    switch (entry.kind) {
    case Entry::File:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_size(e.get(), entry.contents.size());
        break;
    case Entry::Folder: archive_entry_set_filetype(e.get(), AE_IFDIR); break;
    case Entry::Symlink:
        archive_entry_set_filetype(e.get(), AE_IFLNK);
        archive_entry_set_symlink_utf8(e.get(), link.constData());
        break;
    case Entry::Hardlink:
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_hardlink_utf8(e.get(), link.constData());
        archive_entry_set_size(e.get(), 0);
        break;
    case Entry::CharacterDevice:
        archive_entry_set_filetype(e.get(), AE_IFCHR);
        archive_entry_set_rdevmajor(e.get(), 1);
        archive_entry_set_rdevminor(e.get(), 3);
        break;
    case Entry::Fifo: archive_entry_set_filetype(e.get(), AE_IFIFO); break;
    }
    if (archive_write_header(d->a, e.get()) < ARCHIVE_WARN)
        return Error{QStringLiteral("archive_write_failed"), tr("Cannot add %1 to the archive.").arg(entry.path),
                     archiveError(d->a)};
    if (entry.kind == Entry::File && !entry.contents.isEmpty()) {
        if (archive_write_data(d->a, entry.contents.constData(), size_t(entry.contents.size())) < 0)
            return Error{QStringLiteral("archive_write_failed"), tr("Cannot add %1 to the archive.").arg(entry.path),
                         archiveError(d->a)};
    }
    return Ok{};
}

Status ArchiveWriter::close()
{
    if (!d->a)
        return Ok{};
    const int status = archive_write_close(d->a);
    const QString error = archiveError(d->a);
    archive_write_free(d->a);
    d->a = nullptr;
    if (status != ARCHIVE_OK)
        return Error{QStringLiteral("archive_write_failed"), tr("Cannot finish the archive."), error};
    return Ok{};
}

Status ArchiveWriter::write(const QString &path, Format format, const QList<Entry> &entries)
{
    ArchiveWriter writer;
    if (auto s = writer.open(path, format); !s)
        return s;
    for (const Entry &entry : entries) {
        if (auto s = writer.add(entry); !s)
            return s;
    }
    return writer.close();
}

} // namespace tfsetup::core
