#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace tfsetup::core {

// Reading and writing archives (zip, tar.xz, tgz). This pair of classes is the only place that
// talks to libarchive.
//
// Extraction is defensive because the archives come from the network: every entry name is
// checked before anything is written. Refused, and the whole extraction fails: absolute names
// ("/x", "C:x", "\\x"), names with a ".." component, links whose target leaves the destination
// (absolute, or climbing out, or passing through another link), entries written through a link,
// hard links to names not yet extracted, device files, FIFOs and sockets. Regular files are
// streamed block by block and hashed on the way.

struct ExtractedEntry {
    enum Kind { File, Folder, Link };
    Kind kind = File;
    QString path;       // relative to the destination, '/'-separated
    qint64 size = 0;    // files only
    QByteArray sha256;  // files only, lower-case hex
    QString linkTarget; // links only, as stored
    bool executable = false;
};

struct ExtractOptions {
    // Stop early when set (checked between blocks). The result is then the error "cancelled".
    const std::atomic<bool> *cancel = nullptr;
    // Called with the bytes written so far, after each block.
    std::function<void(qint64 bytesWritten)> onProgress;
};

class ArchiveReader final {
    Q_DECLARE_TR_FUNCTIONS(ArchiveReader)
public:
    // Extracts archivePath into destination (which must exist and should be empty). On failure
    // what was written stays in destination: callers extract into a staging folder they remove.
    static Result<QList<ExtractedEntry>> extract(const QString &archivePath, const QString &destination,
                                                 const ExtractOptions &options = {});

    // Lists entry names without writing anything (no safety checks): for reports and tests.
    static Result<QStringList> list(const QString &archivePath);

    // The contents of the first regular file whose name `match` accepts (a wheel's
    // "*.dist-info/METADATA"), read into memory and never past maxBytes. Nothing is written.
    // Errors: "archive_unreadable", "archive_corrupt", "archive_member_missing",
    // "archive_member_too_large".
    static Result<QByteArray> readMember(const QString &archivePath, const std::function<bool(const QString &)> &match,
                                         qint64 maxBytes);
};

// Writes archives. Used for support bundles and, in tests, to build archives in the exact shapes
// NVIDIA publishes (and in shapes no honest archive has).
class ArchiveWriter final {
    Q_DECLARE_TR_FUNCTIONS(ArchiveWriter)
public:
    enum Format { Zip, TarXz, TarGz };

    struct Entry {
        enum Kind { File, Folder, Symlink, Hardlink, CharacterDevice, Fifo };
        Kind kind = File;
        QString path;        // stored exactly as given (may be hostile in tests)
        QByteArray contents; // files
        QString linkTarget;  // symlinks and hard links
        int mode = 0644;
    };

    ArchiveWriter();
    ~ArchiveWriter();
    Q_DISABLE_COPY_MOVE(ArchiveWriter)

    Status open(const QString &path, Format format);
    Status add(const Entry &entry);
    Status close();

    // Convenience: writes a whole archive from a list of entries.
    static Status write(const QString &path, Format format, const QList<Entry> &entries);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tfsetup::core
