#include "util/inputfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cstdio>

namespace tfsetup::core {

namespace {

struct InputFile {
    Q_DECLARE_TR_FUNCTIONS(InputFile)
};

Error tooLarge(const QString &what, const QString &path, qint64 maxBytes)
{
    return Error{QStringLiteral("input_too_large"),
                 InputFile::tr("%1 %2 is larger than %3 MB, more than such a file ever holds. Check that you gave the right file.")
                     .arg(what, QDir::toNativeSeparators(path))
                     .arg(maxBytes / (1024 * 1024)),
                 path};
}

} // namespace

Result<QByteArray> readInputFile(const QString &path, const QString &what, qint64 maxBytes)
{
    const QFileInfo info(path);
    if (path.isEmpty() || !info.exists()) {
        return Error{QStringLiteral("input_missing"),
                     InputFile::tr("%1 %2 does not exist. Check the path.").arg(what, QDir::toNativeSeparators(path)), path};
    }
    // isFile() is false for folders, devices, FIFOs and sockets: none is read, none can block.
    if (!info.isFile()) {
        return Error{QStringLiteral("input_not_file"),
                     InputFile::tr("%1 %2 is not a plain file (it is a folder, a device or a pipe). Give the path of the file "
                        "itself.")
                         .arg(what, QDir::toNativeSeparators(path)),
                     path};
    }
    if (info.size() > maxBytes)
        return tooLarge(what, path, maxBytes);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("input_unreadable"),
                     InputFile::tr("%1 %2 cannot be read. Check that it is yours to read.").arg(what, QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    // Read one byte past the limit: a file that grew since, or one that reports no size, is
    // refused instead of read without end.
    QByteArray bytes = f.read(maxBytes + 1);
    if (bytes.size() > maxBytes)
        return tooLarge(what, path, maxBytes);
    if (f.error() != QFileDevice::NoError) {
        return Error{QStringLiteral("input_unreadable"),
                     InputFile::tr("%1 %2 cannot be read. Check that it is yours to read.").arg(what, QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    return bytes;
}

Result<QByteArray> readStandardInput(const QString &what, qint64 maxBytes)
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly)) {
        return Error{QStringLiteral("input_unreadable"), InputFile::tr("%1 cannot be read from standard input.").arg(what),
                     in.errorString()};
    }
    QByteArray bytes;
    while (bytes.size() <= maxBytes) {
        const QByteArray chunk = in.read(std::min<qint64>(1 << 20, maxBytes + 1 - bytes.size()));
        if (chunk.isEmpty())
            break;
        bytes += chunk;
    }
    if (bytes.size() > maxBytes)
        return tooLarge(what, QStringLiteral("-"), maxBytes);
    return bytes;
}

Result<QJsonObject> readJsonObjectFile(const QString &path, const QString &what, qint64 maxBytes)
{
    auto bytes = readInputFile(path, what, maxBytes);
    if (!bytes)
        return bytes.error();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &error);
    if (!doc.isObject()) {
        return Error{QStringLiteral("input_malformed"),
                     InputFile::tr("%1 %2 is not a JSON object. Give a file that tfsetup wrote, or correct it.")
                         .arg(what, QDir::toNativeSeparators(path)),
                     error.error != QJsonParseError::NoError ? error.errorString() : QStringLiteral("not an object")};
    }
    return doc.object();
}

} // namespace tfsetup::core
