#include "repair/piprecord.h"

#include "fetch/checksum.h"
#include "install/launchers.h"
#include "util/confined.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <optional>

namespace tfsetup::core {

namespace {

// One field list per CSV row; quoted fields may hold ',' '"' (doubled) and line breaks.
QList<QStringList> csvRows(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    bool any = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == u'"' && i + 1 < text.size() && text.at(i + 1) == u'"') {
                field += u'"';
                ++i;
            } else if (c == u'"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == u'"') {
            quoted = true;
            any = true;
        } else if (c == u',') {
            row.append(field);
            field.clear();
            any = true;
        } else if (c == u'\n' || c == u'\r') {
            if (any || !field.isEmpty()) {
                row.append(field);
                rows.append(row);
            }
            row.clear();
            field.clear();
            any = false;
        } else {
            field += c;
            any = true;
        }
    }
    if (any || !field.isEmpty()) {
        row.append(field);
        rows.append(row);
    }
    return rows;
}

// A small file of the environment, read without following a link on the way or at the name.
std::optional<QByteArray> readConfined(const QString &root, const QString &relative, qint64 limit = 64 << 20)
{
    QFile file;
    if (!openConfined(file, root, relative, ConfinedOpen::ReadOnly))
        return std::nullopt;
    const QByteArray bytes = file.read(limit);
    return bytes;
}

// METADATA's Name and Version (RFC 822 headers up to the first empty line).
std::pair<QString, QString> nameAndVersion(const QByteArray &metadata)
{
    QString name;
    QString version;
    for (const QByteArray &raw : metadata.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty())
            break;
        if (line.startsWith(QStringLiteral("Name:"), Qt::CaseInsensitive))
            name = line.mid(5).trimmed();
        else if (line.startsWith(QStringLiteral("Version:"), Qt::CaseInsensitive))
            version = line.mid(8).trimmed();
    }
    return {name, version};
}

bool isAbsoluteRecordPath(const QString &path)
{
    return path.startsWith(u'/') || path.startsWith(u'\\') || (path.size() > 1 && path.at(1) == u':');
}

// The RECORD path as a path below the environment, or empty when it leaves the environment.
QString insideEnvironment(const QString &sitePackages, const QString &recordPath)
{
    if (recordPath.isEmpty() || isAbsoluteRecordPath(recordPath) || recordPath.contains(u'\\'))
        return {};
    const QString clean = QDir::cleanPath(sitePackages + u'/' + recordPath);
    if (clean == u".." || clean.startsWith(QStringLiteral("../")) || clean == u"." || isAbsoluteRecordPath(clean))
        return {};
    return clean;
}

QStringList sitePackagesFolders(const QString &hostEnv)
{
    QStringList out;
    auto usable = [&](const QString &relative) {
        const QString host = hostEnv + u'/' + relative;
        return QFileInfo(host).isDir() && !isLink(host) && reachesWithoutLinks(hostEnv, relative);
    };
    if (usable(QStringLiteral("venv/Lib/site-packages")))
        out.append(QStringLiteral("venv/Lib/site-packages"));
    if (usable(QStringLiteral("venv/lib"))) {
        const QStringList pythons = QDir(hostEnv + QStringLiteral("/venv/lib"))
                                        .entryList({QStringLiteral("python*")}, QDir::Dirs | QDir::NoSymLinks,
                                                   QDir::Name);
        for (const QString &python : pythons) {
            const QString relative = QStringLiteral("venv/lib/") + python + QStringLiteral("/site-packages");
            if (usable(relative))
                out.append(relative);
        }
    }
    return out;
}

enum class FileState { Intact, Altered, Missing };

FileState checkOne(const QString &hostEnv, const QString &relative, const PipRecordEntry &entry,
                   const std::atomic<bool> *cancel, qint64 hashLimit)
{
    const QFileInfo info(hostEnv + u'/' + relative);
    if (!info.exists() && !info.isSymLink())
        return FileState::Missing;
    QFile file;
    if (!openConfined(file, hostEnv, relative, ConfinedOpen::ReadOnly))
        return FileState::Altered; // a link on the way or at the name, or unreadable
    if (hashLimit >= 0 && file.size() > hashLimit)
        return entry.size >= 0 && file.size() != entry.size ? FileState::Altered : FileState::Intact;
    Hasher hasher(Checksum::Algorithm::Sha256);
    qint64 size = 0;
    QByteArray block;
    while (!(block = file.read(1 << 20)).isEmpty()) {
        if (cancel && cancel->load())
            return FileState::Intact;
        hasher.addData(block);
        size += block.size();
    }
    if (entry.size >= 0 && size != entry.size)
        return FileState::Altered;
    return QByteArray::fromHex(hasher.finalHex()) == entry.digest ? FileState::Intact : FileState::Altered;
}

} // namespace

QList<PipRecordEntry> parsePipRecord(const QByteArray &csv)
{
    QList<PipRecordEntry> out;
    for (const QStringList &row : csvRows(csv)) {
        if (row.isEmpty() || row.first().isEmpty())
            continue;
        PipRecordEntry entry;
        entry.path = row.first();
        const QString hash = row.value(1);
        if (const qsizetype eq = hash.indexOf(u'='); eq > 0) {
            entry.algorithm = hash.left(eq).toLower();
            entry.digest = QByteArray::fromBase64(hash.mid(eq + 1).toLatin1(), QByteArray::Base64UrlEncoding);
        }
        bool ok = false;
        const qint64 size = row.value(2).toLongLong(&ok);
        entry.size = ok ? size : -1;
        out.append(entry);
    }
    return out;
}

QJsonObject PipDistributionDamage::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("version"), version},
                  {QStringLiteral("dist_info"), distInfo},
                  {QStringLiteral("altered"), QJsonArray::fromStringList(altered)},
                  {QStringLiteral("missing"), QJsonArray::fromStringList(missing)},
                  {QStringLiteral("escaping"), QJsonArray::fromStringList(escaping)},
                  {QStringLiteral("fix"), source.isEmpty() ? QStringLiteral("none") : QStringLiteral("reinstall")}};
    if (!source.isEmpty())
        o.insert(QStringLiteral("source"), source);
    if (!note.isEmpty())
        o.insert(QStringLiteral("note"), note);
    return o;
}

PipRecordScan checkPipRecords(const QString &hostEnv, const std::atomic<bool> *cancel, const PipRecordCheck &check)
{
    PipRecordScan scan;
    for (const QString &site : sitePackagesFolders(hostEnv)) {
        const QStringList infos =
            QDir(hostEnv + u'/' + site).entryList(check.distInfos, QDir::Dirs | QDir::NoSymLinks, QDir::Name);
        for (const QString &info : infos) {
            if (cancel && cancel->load()) {
                scan.cancelled = true;
                return scan;
            }
            const QString distInfo = site + u'/' + info;
            const auto record = readConfined(hostEnv, distInfo + QStringLiteral("/RECORD"));
            if (!record)
                continue; // not installed by an installer that records its files
            ++scan.distributions;
            PipDistributionDamage damage;
            damage.distInfo = distInfo;
            const auto [name, version] = nameAndVersion(
                readConfined(hostEnv, distInfo + QStringLiteral("/METADATA")).value_or(QByteArray()));
            damage.name = name.isEmpty() ? info.section(u'-', 0, 0) : name;
            QString fromFolder = info.section(u'-', 1);
            fromFolder.chop(QStringLiteral(".dist-info").size());
            damage.version = version.isEmpty() ? fromFolder : version;
            for (const PipRecordEntry &entry : parsePipRecord(*record)) {
                if (entry.algorithm.isEmpty())
                    continue;
                const QString relative = insideEnvironment(site, entry.path);
                if (relative.isEmpty()) {
                    damage.escaping.append(entry.path);
                    continue;
                }
                if (entry.algorithm != u"sha256")
                    continue; // sha384 / sha512 are allowed but not written by pip
                switch (checkOne(hostEnv, relative, entry, cancel, check.hashLimit)) {
                case FileState::Intact: break;
                case FileState::Altered: damage.altered.append(relative); break;
                case FileState::Missing: damage.missing.append(relative); break;
                }
                if (cancel && cancel->load()) {
                    scan.cancelled = true;
                    return scan;
                }
            }
            if (damage.damaged())
                scan.damaged.append(damage);
        }
    }
    return scan;
}

bool wheelIsOf(const QString &fileName, const QString &name, const QString &version)
{
    if (!fileName.endsWith(QStringLiteral(".whl"), Qt::CaseInsensitive))
        return false;
    const QStringList parts = fileName.chopped(4).split(u'-');
    if (parts.size() != 5 && parts.size() != 6)
        return false;
    QString wanted = version;
    wanted.replace(u'-', u'_');
    return normalizedProjectName(parts.at(0)) == normalizedProjectName(name)
        && parts.at(1).compare(wanted, Qt::CaseInsensitive) == 0;
}

QStringList wheelCandidates(const QStringList &folders, const QString &name, const QString &version)
{
    QStringList out;
    for (const QString &folder : folders) {
        if (folder.isEmpty())
            continue;
        const QStringList dirs{folder, QString(folder + QStringLiteral("/wheelhouse"))};
        for (const QString &dir : dirs) {
            const QStringList wheels = QDir(dir).entryList({QStringLiteral("*.whl")}, QDir::Files | QDir::NoSymLinks,
                                                           QDir::Name);
            for (const QString &wheel : wheels) {
                if (wheelIsOf(wheel, name, version))
                    out.append(QDir(dir).absoluteFilePath(wheel));
            }
        }
    }
    out.removeDuplicates();
    return out;
}

Result<VerifiedWheel> verifyWheel(const QString &wheelPath, const QString &hostEnv, const PipDistributionDamage &damage,
                                  const QString &unpack, const std::atomic<bool> *cancel)
{
    auto mismatch = [&](const QString &detail) {
        return Error{
            QStringLiteral("wheel_mismatch"), {}, QFileInfo(wheelPath).fileName() + QStringLiteral(": ") + detail};
    };
    ExtractOptions options;
    options.cancel = cancel;
    const auto entries = ArchiveReader::extract(wheelPath, unpack, options);
    if (!entries)
        return entries.error();
    QHash<QString, QByteArray> inWheel; // path → sha256 hex
    for (const ExtractedEntry &e : *entries) {
        if (e.kind == ExtractedEntry::File)
            inWheel.insert(e.path, e.sha256);
    }
    const QString site = damage.distInfo.section(u'/', 0, -2);
    const QString info = damage.distInfo.section(u'/', -1);
    if (!inWheel.contains(info + QStringLiteral("/METADATA")))
        return mismatch(QStringLiteral("no %1/METADATA").arg(info));
    const auto record = readConfined(hostEnv, damage.distInfo + QStringLiteral("/RECORD"));
    if (!record)
        return mismatch(QStringLiteral("the installed RECORD cannot be read"));
    QSet<QString> damaged;
    for (const QString &file : damage.files()) {
        if (file.startsWith(site + u'/'))
            damaged.insert(file.mid(site.size() + 1));
    }
    int compared = 0;
    for (const PipRecordEntry &entry : parsePipRecord(*record)) {
        // pip rewrites its own dist-info files (RECORD, INSTALLER) and the scripts outside site-packages.
        if (entry.algorithm != u"sha256" || entry.path.startsWith(info + u'/')
            || insideEnvironment(site, entry.path).isEmpty()
            || !insideEnvironment(site, entry.path).startsWith(site + u'/'))
            continue;
        const auto found = inWheel.constFind(entry.path);
        if (found == inWheel.cend()) {
            if (damaged.contains(entry.path))
                return mismatch(QStringLiteral("%1 is not in the wheel").arg(entry.path));
            continue;
        }
        if (QByteArray::fromHex(*found) != entry.digest)
            return mismatch(QStringLiteral("%1 differs from the installed record").arg(entry.path));
        ++compared;
    }
    if (compared == 0)
        return mismatch(QStringLiteral("no file in common with the installed record"));
    const auto digest = hashFile(Checksum::Algorithm::Sha256, wheelPath, cancel);
    if (!digest)
        return digest.error();
    return VerifiedWheel{wheelPath, *digest};
}

QStringList restoreFromStaged(const QString &hostEnv, const PipDistributionDamage &damage, const QString &stagedTarget)
{
    QStringList failed;
    const QString site = damage.distInfo.section(u'/', 0, -2);
    QHash<QString, PipRecordEntry> recorded;
    if (const auto csv = readConfined(hostEnv, damage.distInfo + QStringLiteral("/RECORD"))) {
        for (const PipRecordEntry &entry : parsePipRecord(*csv)) {
            if (const QString inside = insideEnvironment(site, entry.path); !inside.isEmpty())
                recorded.insert(inside, entry);
        }
    }
    for (const QString &relative : damage.files()) {
        const PipRecordEntry entry = recorded.value(relative);
        if (entry.algorithm != u"sha256" || entry.digest.size() != 32) {
            failed.append(relative + QStringLiteral(": RECORD gives no SHA-256 for it"));
            continue;
        }
        QString staged;
        if (relative.startsWith(site + u'/'))
            staged = relative.mid(site.size() + 1);
        else if (relative.startsWith(QStringLiteral("venv/bin/"))
                 || relative.startsWith(QStringLiteral("venv/Scripts/")))
            staged = relative.mid(5);
        if (staged.isEmpty()) {
            failed.append(relative
                          + QStringLiteral(": not a file pip installs into site-packages or the scripts folder"));
            continue;
        }
        const QString from = stagedTarget + u'/' + staged;
        const QFileInfo info(from);
        if (isLink(from) || !info.isFile()) {
            failed.append(relative + QStringLiteral(": pip did not make it"));
            continue;
        }
        QFile file;
        if (!openConfined(file, stagedTarget, staged, ConfinedOpen::ReadOnly)) {
            failed.append(relative + QStringLiteral(": pip's copy cannot be read"));
            continue;
        }
        Hasher hasher(Checksum::Algorithm::Sha256);
        qint64 size = 0;
        QByteArray block;
        while (!(block = file.read(1 << 20)).isEmpty()) {
            hasher.addData(block);
            size += block.size();
        }
        file.close();
        if ((entry.size >= 0 && size != entry.size) || QByteArray::fromHex(hasher.finalHex()) != entry.digest) {
            failed.append(relative + QStringLiteral(": pip's copy does not have the digest RECORD lists"));
            continue;
        }
        if (const Status placed = placeConfined(from, hostEnv, relative, PlaceHow::Move); !placed)
            failed.append(relative + QStringLiteral(": ") + placed.error().code + u' ' + placed.error().detail);
    }
    return failed;
}

} // namespace tfsetup::core
