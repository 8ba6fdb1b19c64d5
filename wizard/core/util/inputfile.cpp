#include "util/inputfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QList>
#include <QSet>

#include <cstdio>

namespace tfsetup::core {

namespace {

struct InputFile {
    Q_DECLARE_TR_FUNCTIONS(InputFile)
};

Error tooLarge(const QString &what, const QString &path, qint64 maxBytes)
{
    return Error{
        QStringLiteral("input_too_large"),
        InputFile::tr(
            "%1 %2 is larger than %3 MB, more than such a file ever holds. Check that you gave the right file.")
            .arg(what, QDir::toNativeSeparators(path))
            .arg(maxBytes / (1024 * 1024)),
        path};
}

// The text of a JSON string literal starting at bytes[at] (the quote), escapes decoded; *end is
// the index after its closing quote. The document was parsed already, so the literal is whole.
QString stringLiteral(const QByteArray &bytes, qsizetype at, qsizetype *end)
{
    qsizetype i = at + 1;
    bool escaped = false;
    while (i < bytes.size() && bytes.at(i) != '"') {
        if (bytes.at(i) == '\\') {
            escaped = true;
            ++i;
        }
        ++i;
    }
    *end = i + 1;
    const QByteArray literal = bytes.mid(at, i + 1 - at);
    if (!escaped)
        return QString::fromUtf8(literal.mid(1, literal.size() - 2));
    // "\u0061" and "a" are the same name: let the parser decode it.
    return QJsonDocument::fromJson('[' + literal + ']').array().at(0).toString();
}

} // namespace

std::optional<QString> duplicateJsonKey(const QByteArray &bytes)
{
    struct Frame {
        bool object = false;
        bool expectKey = false;
        qsizetype index = 0;
        QString path;
        QString key; // the member whose value comes next
        QSet<QString> keys;
    };
    QList<Frame> stack;
    const auto childPath = [&stack]() -> QString {
        if (stack.isEmpty())
            return QString();
        const Frame &top = stack.constLast();
        if (top.object)
            return top.path.isEmpty() ? top.key : top.path + u'.' + top.key;
        return top.path + QStringLiteral("[%1]").arg(top.index);
    };
    for (qsizetype i = 0; i < bytes.size();) {
        const char c = bytes.at(i);
        switch (c) {
        case '{':
        case '[': {
            Frame frame;
            frame.object = c == '{';
            frame.expectKey = frame.object;
            frame.path = childPath();
            stack.append(std::move(frame));
            ++i;
            break;
        }
        case '}':
        case ']':
            if (!stack.isEmpty())
                stack.removeLast();
            ++i;
            break;
        case ',':
            if (!stack.isEmpty()) {
                if (stack.last().object)
                    stack.last().expectKey = true;
                else
                    ++stack.last().index;
            }
            ++i;
            break;
        case ':':
            if (!stack.isEmpty())
                stack.last().expectKey = false;
            ++i;
            break;
        case '"': {
            qsizetype end = i;
            const QString text = stringLiteral(bytes, i, &end);
            if (!stack.isEmpty() && stack.last().object && stack.last().expectKey) {
                Frame &top = stack.last();
                top.key = text;
                if (top.keys.contains(text))
                    return childPath();
                top.keys.insert(text);
            }
            i = end;
            break;
        }
        default: ++i; break;
        }
    }
    return std::nullopt;
}

Result<QByteArray> readInputFile(const QString &path, const QString &what, qint64 maxBytes)
{
    const QFileInfo info(path);
    if (path.isEmpty() || !info.exists()) {
        return Error{QStringLiteral("input_missing"),
                     InputFile::tr("%1 %2 does not exist. Check the path.").arg(what, QDir::toNativeSeparators(path)),
                     path};
    }
    // isFile() is false for folders, devices, FIFOs and sockets: none is read, none can block.
    if (!info.isFile()) {
        return Error{
            QStringLiteral("input_not_file"),
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
                     InputFile::tr("%1 %2 cannot be read. Check that it is yours to read.")
                         .arg(what, QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    // Read one byte past the limit: a file that grew since, or one that reports no size, is
    // refused instead of read without end.
    QByteArray bytes = f.read(maxBytes + 1);
    if (bytes.size() > maxBytes)
        return tooLarge(what, path, maxBytes);
    if (f.error() != QFileDevice::NoError) {
        return Error{QStringLiteral("input_unreadable"),
                     InputFile::tr("%1 %2 cannot be read. Check that it is yours to read.")
                         .arg(what, QDir::toNativeSeparators(path)),
                     f.errorString()};
    }
    return bytes;
}

Result<QByteArray> readStandardInput(const QString &what, qint64 maxBytes)
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly)) {
        return Error{QStringLiteral("input_unreadable"),
                     InputFile::tr("%1 cannot be read from standard input.").arg(what), in.errorString()};
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
    // Readers disagree on which of two equal names counts (Qt and Python take the last, others the
    // first), so a document that names a field twice means two things: it is refused.
    if (const auto twice = duplicateJsonKey(*bytes)) {
        return Error{
            QStringLiteral("input_malformed"),
            InputFile::tr("%1 %2 gives the field \"%3\" twice, so it is unclear which one counts. Remove one of "
                          "them, or give a file that tfsetup wrote.")
                .arg(what, QDir::toNativeSeparators(path), *twice),
            QStringLiteral("the field \"%1\" is given twice").arg(*twice)};
    }
    return doc.object();
}

} // namespace tfsetup::core
