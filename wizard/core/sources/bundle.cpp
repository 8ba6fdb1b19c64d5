#include "sources/bundle.h"

#include "catalog/version.h"
#include "fetch/checksum.h"
#include "fetch/downloadcache.h"
#include "sources/firstuse.h"
#include "sources/redistmanifest.h"
#include "util/confined.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/names.h"

#include <QCoro/QCoroFuture>
#include <QCoro/QCoroIODevice>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QCryptographicHash>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <memory>
#include <vector>

namespace tfsetup::core {

namespace {

const QString bundleFileName = QStringLiteral("bundle.json");
const QString lockFileName = QStringLiteral("pylock.toml");
const QString formatName = QStringLiteral("tfsetup-bundle");

QJsonObject toJson(const BundleFile &f)
{
    QJsonObject o{{QStringLiteral("file"), f.file},
                  {QStringLiteral("artifact"), f.artifact},
                  {QStringLiteral("size"), double(f.size)}};
    if (!f.sha256.isEmpty())
        o.insert(QStringLiteral("sha256"), f.sha256);
    if (!f.md5.isEmpty())
        o.insert(QStringLiteral("md5"), f.md5);
    return o;
}

Status writeFileAtomically(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    // Never through a link planted at bundle.json or pylock.toml.
    if (const Status written = writeUserFile(path, bytes); !written) {
        if (written.error().code == u"path_is_link" || written.error().code == u"not_plain_file")
            return written;
        return Error{QStringLiteral("bundle_write_failed"),
                     Bundle::tr("Cannot write %1. Check that the bundle folder is writable and has free space.")
                         .arg(QDir::toNativeSeparators(path)),
                     written.error().message};
    }
    return Ok{};
}

} // namespace

// ---- Bundle -------------------------------------------------------------------------------------

const JsonShape &Bundle::shape()
{
    using S = JsonShape;
    auto hex = [](int length) {
        return S::text(length).where([length](const QJsonValue &v) {
            const QString t = v.toString();
            const bool ok = t.isEmpty() || (t.size() == length && std::all_of(t.begin(), t.end(), [](QChar c) {
                                                return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')
                                                    || (c >= u'A' && c <= u'F');
                                            }));
            return ok ? QString() : tr("must be %1 hexadecimal digits").arg(length);
        });
    };
    static const S name = S::text(maxPathNameBytes).where([](const QJsonValue &v) {
        return isSafePathName(v.toString()) ? QString()
                                            : tr("must be a plain name (no slashes, not \".\" or \"..\", not starting "
                                                 "with a dot)");
    });
    static const S size = S::integer(0, maxBundleFileBytes);
    static const S strings = S::list(S::text(8192), 1000);
    static const S artifact = S::object({
        S::required(QStringLiteral("name"), name),
        S::optional(QStringLiteral("version"), S::text(200)),
        S::optional(QStringLiteral("platform"), S::text(200)),
        S::required(QStringLiteral("kind"), S::text(100)),
        S::optional(QStringLiteral("source"), S::text(1000)),
        S::optional(QStringLiteral("trust"), S::text(100)),
        S::optional(QStringLiteral("optional"), S::flag()),
        S::optional(QStringLiteral("needs_admin"), S::flag()),
        S::optional(QStringLiteral("url"), S::text(8192).nullable()),
        S::optional(QStringLiteral("urls"), strings),
        S::optional(QStringLiteral("sha256"), hex(64).nullable()),
        S::optional(QStringLiteral("md5"), hex(32).nullable()),
        S::optional(QStringLiteral("size"), size.nullable()),
        S::optional(QStringLiteral("manifest"), S::text(4096)),
        S::optional(QStringLiteral("archive_format"), S::text(100)),
        S::optional(QStringLiteral("path"), S::text(4096)),
        S::optional(QStringLiteral("requirement"), S::text(8192)),
        S::optional(QStringLiteral("index_url"), S::text(8192)),
        S::optional(QStringLiteral("checksum_url"), S::text(8192)),
        S::optional(QStringLiteral("note"), S::text(8192)),
        S::optional(QStringLiteral("install_arguments"), strings),
    });
    static const S file = S::object({
        S::required(QStringLiteral("file"), S::text(1024).where([](const QJsonValue &v) {
            return isSafeRelativePath(v.toString()) ? QString() : tr("must be a path inside the bundle folder");
        })),
        S::required(QStringLiteral("artifact"), S::text(255)),
        S::optional(QStringLiteral("sha256"), hex(64)),
        S::optional(QStringLiteral("md5"), hex(32)),
        S::required(QStringLiteral("size"), size),
    });
    static const S shape = S::object({
        S::required(QStringLiteral("format"), S::text(100)),
        S::required(QStringLiteral("schema"), S::integer(schema, schema)),
        S::optional(QStringLiteral("route"), S::text(100)),
        S::optional(QStringLiteral("tensorflow"), S::text(100)),
        S::optional(QStringLiteral("os"), S::text(100)),
        S::optional(QStringLiteral("python"), S::text(100)),
        S::optional(QStringLiteral("artifacts"), S::list(artifact, maxBundleEntries)),
        S::required(QStringLiteral("files"), S::list(file, maxBundleEntries)),
        S::optional(QStringLiteral("warnings"),
                    S::list(S::object({S::optional(QStringLiteral("code"), S::text(200)),
                                       S::optional(QStringLiteral("message"), S::text(8192))}),
                            maxBundleEntries)),
    });
    return shape;
}

Status Bundle::checkFolder(const QString &directory)
{
    if (!QFileInfo(directory).isDir()) {
        return Error{QStringLiteral("bundle_folder_missing"),
                     tr("The offline bundle folder %1 does not exist. Choose the folder that tfsetup bundle wrote "
                        "(the one that holds bundle.json).")
                         .arg(QDir::toNativeSeparators(directory)),
                     directory};
    }
    return Ok{};
}

Result<Bundle> Bundle::open(const QString &directory)
{
    if (const Status folder = checkFolder(directory); !folder)
        return folder.error();
    const QString path = QDir(directory).filePath(bundleFileName);
    const QString native = QDir::toNativeSeparators(directory);
    if (QDir(directory).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
        return Error{QStringLiteral("bundle_empty"),
                     tr("The folder %1 is empty, so it is not an offline bundle. Make one with tfsetup bundle --out "
                        "FOLDER on a computer with internet, copy the whole folder here and choose it.")
                         .arg(native),
                     directory};
    }
    if (!QFileInfo::exists(path)) {
        return Error{QStringLiteral("bundle_missing"),
                     tr("The folder %1 is not an offline bundle: it has no bundle.json. Make one with tfsetup bundle "
                        "--out FOLDER on a computer with internet, or choose the folder that tfsetup bundle wrote.")
                         .arg(native),
                     path};
    }
    const QString document = tr("The bundle description %1").arg(QDir::toNativeSeparators(path));
    const QString advice = tr("Make the bundle again with tfsetup bundle, or copy the whole folder again from the "
                              "computer that made it.");
    const auto read = readJsonObjectFile(path, tr("The bundle description"), RedistManifest::maxManifestBytes);
    if (!read) {
        if (read.error().code == u"input_malformed") {
            return Error{QStringLiteral("bundle_malformed"),
                         tr("%1 is damaged: it is not valid JSON (%2). %3").arg(document, read.error().detail, advice),
                         read.error().detail};
        }
        Error e = read.error(); // unreadable or too large: its own message names the cause
        e.code = QStringLiteral("bundle_malformed");
        e.message += u' ' + advice;
        return e;
    }
    const QJsonObject root = *read;
    if (root.value(QStringLiteral("format")).toString() != formatName) {
        return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                {QStringLiteral("format"), tr("is not \"%1\"").arg(formatName)}, advice);
    }
    if (root.value(QStringLiteral("schema")).toInt() != schema) {
        return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                {QStringLiteral("schema"),
                                 tr("is not %1, the only one this tfsetup reads (the bundle comes from another "
                                    "tfsetup version)")
                                     .arg(schema)},
                                advice);
    }
    if (const auto problem = shape().check(root))
        return JsonShape::error(QStringLiteral("bundle_malformed"), document, *problem, advice);

    Bundle b;
    b.m_directory = QFileInfo(directory).absoluteFilePath();
    b.m_python = root.value(QStringLiteral("python")).toString();
    b.m_list.route = root.value(QStringLiteral("route")).toString();
    b.m_list.tensorflow = root.value(QStringLiteral("tensorflow")).toString();
    b.m_list.os = root.value(QStringLiteral("os")).toString();
    for (const QJsonValue &v : root.value(QStringLiteral("artifacts")).toArray())
        b.m_list.artifacts.append(Artifact::fromJson(v.toObject()));
    for (const QJsonValue &v : root.value(QStringLiteral("warnings")).toArray()) {
        const QJsonObject o = v.toObject();
        b.m_list.warnings.append(
            {o.value(QStringLiteral("code")).toString(), o.value(QStringLiteral("message")).toString()});
    }
    const QJsonArray files = root.value(QStringLiteral("files")).toArray();
    // A file listed twice is checked twice and counted twice; on a case-insensitive disk
    // "nvidia/X" is "nvidia/x" too.
    QSet<QString> listed;
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QJsonObject o = files.at(i).toObject();
        BundleFile file;
        file.file = o.value(QStringLiteral("file")).toString();
        file.artifact = o.value(QStringLiteral("artifact")).toString();
        file.sha256 = o.value(QStringLiteral("sha256")).toString().toLower();
        file.md5 = o.value(QStringLiteral("md5")).toString().toLower();
        file.size = o.value(QStringLiteral("size")).toInteger(-1);
        const QString field = QStringLiteral("files[%1]").arg(i);
        if (!Checksum::parse(Checksum::Algorithm::Sha256, file.sha256)
            && !Checksum::parse(Checksum::Algorithm::Md5, file.md5)) {
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field, tr("has neither a SHA-256 nor an MD5 checksum")}, advice);
        }
        if (const QString key = file.file.toLower(); listed.contains(key)) {
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field + QStringLiteral(".file"), tr("is listed twice")}, advice);
        } else {
            listed.insert(key);
        }
        if (file.artifact == u"wheelhouse")
            b.m_hasWheelhouse = true;
        b.m_files.append(file);
    }
    if (b.m_files.isEmpty())
        return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                {QStringLiteral("files"), tr("lists no file")}, advice);
    if (const BundleFile *lockFile = b.fileAt(lockFileName);
        lockFile && QFileInfo::exists(QDir(directory).filePath(lockFile->file))) {
        // Its bytes are checked against "files" by verify() (which also names it when it is
        // missing); here it must at least be a lock.
        auto lock = PyLock::read(QDir(directory).filePath(lockFile->file));
        if (!lock) {
            return Error{QStringLiteral("bundle_malformed"),
                         tr("%1 is damaged: %2 %3").arg(document, lock.error().message, advice), lock.error().detail};
        }
        b.m_lock = *lock;
    }
    // One check for everyone who reads a bundle: every file an artifact needs is listed, and an
    // artifact's own checksum, when it has one, is the one its file is checked against (bundle
    // --verify and install --offline both use the "files" entry).
    const QList<Artifact> &artifacts = b.m_list.artifacts;
    for (qsizetype i = 0; i < artifacts.size(); ++i) {
        const Artifact &a = artifacts.at(i);
        const QString field = QStringLiteral("artifacts[%1]").arg(i);
        for (qsizetype j = 0; j < i; ++j) {
            if (artifacts.at(j).name == a.name)
                return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                        {field + QStringLiteral(".name"), tr("is listed twice")}, advice);
        }
        if (a.kind == u"wheelhouse") {
            if (!b.m_hasWheelhouse && !a.optional)
                return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                        {field, tr("has no files in \"files\"")}, advice);
            continue;
        }
        const BundleFile *f = b.fileOf(a.name);
        // One archive or installer is one file: with two, verify would pass both and the
        // installer would take whichever comes first.
        if (std::count_if(b.m_files.cbegin(), b.m_files.cend(),
                          [&a](const BundleFile &e) { return e.artifact == a.name; })
            > 1) {
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field, tr("has more than one entry in \"files\"")}, advice);
        }
        if (!f) {
            static const QStringList consumed{QStringLiteral("cuda-redist-archive"), QStringLiteral("cudnn-archive"),
                                              QStringLiteral("python-archive"), QStringLiteral("python-installer")};
            if (a.optional || !consumed.contains(a.kind))
                continue;
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field, tr("has no entry in \"files\"")}, advice);
        }
        const bool shaDiffers = !a.sha256.isEmpty() && a.sha256.toLower() != f->sha256;
        const bool md5Differs = a.sha256.isEmpty() && !a.md5.isEmpty() && a.md5.toLower() != f->md5;
        if (shaDiffers || md5Differs) {
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field, tr("has another checksum than its entry in \"files\"")}, advice);
        }
        if (a.size >= 0 && a.size != f->size) {
            return JsonShape::error(QStringLiteral("bundle_malformed"), document,
                                    {field + QStringLiteral(".size"), tr("differs from its entry in \"files\"")},
                                    advice);
        }
    }
    return b;
}

Status Bundle::servesPlan(const QString &route, const QString &tensorflow, const QString &os,
                          const QString &python) const
{
    const bool pythonDiffers = !m_python.isEmpty() && !python.isEmpty()
        && version::majorMinor(m_python) != version::majorMinor(python);
    if (m_list.route == route && m_list.os == os
        && version::majorMinor(m_list.tensorflow) == version::majorMinor(tensorflow) && !pythonDiffers)
        return Ok{};
    const auto describe = [](const QString &tf, const QString &r, const QString &system, const QString &py) {
        const QString shownTf = tf.isEmpty() ? tr("no TensorFlow") : tr("TensorFlow %1").arg(tf);
        return py.isEmpty() ? tr("%1 (route %2, %3)").arg(shownTf, r, system)
                            : tr("%1 for Python %2 (route %3, %4)").arg(shownTf, py, r, system);
    };
    const QString held = describe(m_list.tensorflow, m_list.route, m_list.os, m_python);
    const QString chosen = describe(tensorflow, route, os, m_python.isEmpty() ? QString() : python);
    return Error{QStringLiteral("bundle_other_plan"),
                 tr("The offline bundle %1 was made for %2, but the plan chosen is %3. Choose the plan the bundle was "
                    "made for, or make a bundle for this plan with tfsetup bundle on a computer with internet.")
                     .arg(QDir::toNativeSeparators(m_directory), held, chosen),
                 QStringLiteral("bundle: %1 %2 %3 %4; plan: %5 %6 %7 %8")
                     .arg(m_list.route, m_list.tensorflow, m_list.os, m_python, route, tensorflow, os, python)};
}

const BundleFile *Bundle::fileOf(const QString &artifactName) const
{
    for (const BundleFile &f : m_files) {
        if (f.artifact == artifactName)
            return &f;
    }
    return nullptr;
}

QString Bundle::wheelhouse() const
{
    return m_hasWheelhouse ? QDir(m_directory).filePath(QStringLiteral("wheelhouse")) : QString();
}

QString Bundle::requirementsFile() const
{
    return m_hasWheelhouse ? QDir(m_directory).filePath(QStringLiteral("wheelhouse/requirements.txt")) : QString();
}

QString Bundle::wheelPath(const QString &file) const
{
    const BundleFile *f = fileAt(QStringLiteral("wheelhouse/") + file);
    return f && f->artifact == u"wheelhouse" ? QDir(m_directory).filePath(f->file) : QString();
}

const BundleFile *Bundle::fileAt(const QString &relative) const
{
    for (const BundleFile &f : m_files) {
        if (f.file == relative)
            return &f;
    }
    return nullptr;
}

QString Bundle::pathOf(const QString &artifactName) const
{
    for (const BundleFile &f : m_files) {
        if (f.artifact == artifactName)
            return QDir(m_directory).filePath(f.file);
    }
    return {};
}

Status Bundle::verify(const std::atomic<bool> *cancel) const
{
    QStringList missing, corrupt;
    for (const BundleFile &f : m_files) {
        if (cancel && cancel->load())
            return Error{QStringLiteral("cancelled"), tr("Checking the bundle was cancelled."), {}};
        const QString path = QDir(m_directory).filePath(f.file);
        const QFileInfo info(path);
        if (!info.isFile()) {
            missing.append(f.file);
            continue;
        }
        if (info.size() != f.size) {
            corrupt.append(f.file);
            continue;
        }
        const bool sha = !f.sha256.isEmpty();
        const auto digest = hashFile(sha ? Checksum::Algorithm::Sha256 : Checksum::Algorithm::Md5, path, cancel);
        if (!digest || QString::fromLatin1(*digest) != (sha ? f.sha256 : f.md5).toLower())
            corrupt.append(f.file);
    }
    if (!corrupt.isEmpty()) {
        return Error{QStringLiteral("bundle_corrupt"),
                     tr("These files in the bundle do not match their checksums and were not used: %1. Copy the bundle "
                        "again from the machine that wrote it.")
                         .arg(corrupt.join(QStringLiteral(", "))),
                     corrupt.join(u'\n')};
    }
    if (!missing.isEmpty()) {
        return Error{QStringLiteral("bundle_incomplete"),
                     tr("These files are missing from the bundle: %1. Copy the whole bundle folder.")
                         .arg(missing.join(QStringLiteral(", "))),
                     missing.join(u'\n')};
    }
    return Ok{};
}

QCoro::Task<Status> Bundle::verifyAsync() const
{
    const Bundle copy = *this;
    QFuture<Status> checking = QtConcurrent::run([copy] { return copy.verify(); });
    co_return co_await checking;
}

// ---- BundleWriter -------------------------------------------------------------------------------

QString BundleWriter::bundlePathOf(const Artifact &artifact)
{
    // One folder per origin, laid out like it, so the bundle serves as a mirror of each.
    const QString origin = artifact.source == u"python.org" ? QStringLiteral("python")
        : artifact.source == u"python-build-standalone"     ? QStringLiteral("python-build-standalone")
                                                            : QStringLiteral("nvidia");
    return origin + u'/' + artifact.relativePath;
}

QCoro::Task<Result<Bundle>> BundleWriter::write(ArtifactList list, PyLock lock, BundleOptions options,
                                                std::function<QList<QUrl>(const LockedWheel &)> wheelUrls)
{
    const QDir dir(options.directory);
    if (!QDir().mkpath(dir.absolutePath())) {
        co_return Error{QStringLiteral("bundle_write_failed"),
                        tr("Cannot create the bundle folder %1.").arg(QDir::toNativeSeparators(options.directory)),
                        {}};
    }
    // Refuse before downloading anything: a half-written bundle helps no one.
    QStringList untrusted;
    for (const Artifact &a : list.artifacts) {
        if (a.kind != u"wheelhouse" && a.needsTrustOnFirstUse())
            untrusted.append(a.fileName());
        if (a.kind != u"wheelhouse" && !isSafeRelativePath(a.relativePath)) {
            co_return Error{QStringLiteral("artifact_invalid"), tr("The artifact %1 has an unsafe path.").arg(a.name),
                            a.relativePath};
        }
    }
    if (!untrusted.isEmpty() && !options.trustOnFirstUse) {
        co_return Error{QStringLiteral("trust_required"),
                        tr("No official checksum exists for %1. Nothing was downloaded. If you accept these files as "
                           "they are served now, run again with --trust-on-first-use; their checksums will be "
                           "recorded in the bundle.")
                            .arg(untrusted.join(QStringLiteral(", "))),
                        {}};
    }
    (void)QFile::remove(dir.filePath(bundleFileName));

    QList<BundleFile> files;
    for (Artifact &a : list.artifacts) {
        if (a.kind == u"wheelhouse") {
            if (!options.includeWheelhouse) {
                // Recorded without files: optional, so open() takes the bundle and pip uses an index.
                a.optional = true;
                continue;
            }
            auto wheels = co_await fetchWheels(lock, options, wheelUrls);
            if (!wheels)
                co_return wheels.error();
            files += *wheels;
            continue;
        }
        auto file = co_await fetchArtifact(a, options);
        if (!file)
            co_return file.error();
        if (a.needsTrustOnFirstUse()) {
            a.sha256 = file->sha256;
            a.note = tr("Trusted on first use: no published checksum exists; this SHA-256 was recorded when the "
                        "bundle was written.");
        }
        files.append(*file);
    }
    for (const auto &[relative, bytes] : list.manifestFiles) {
        if (!isSafeRelativePath(relative))
            continue;
        const QString file = QStringLiteral("nvidia/") + relative;
        if (const Status s = writeFileAtomically(dir.filePath(file), bytes); !s)
            co_return s.error();
        files.append({file,
                      QStringLiteral("manifest"),
                      QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()),
                      {},
                      bytes.size()});
    }

    QJsonArray artifacts, fileArray, warnings;
    for (const Artifact &a : list.artifacts) {
        QJsonObject o = a.toJson();
        if (a.kind != u"wheelhouse")
            o.insert(QStringLiteral("file"), bundlePathOf(a));
        artifacts.append(o);
    }
    for (const BundleFile &f : files)
        fileArray.append(toJson(f));
    for (const Finding &w : list.warnings)
        warnings.append(w.toJson());
    const QJsonObject root{{QStringLiteral("format"), formatName},   {QStringLiteral("schema"), Bundle::schema},
                           {QStringLiteral("route"), list.route},    {QStringLiteral("tensorflow"), list.tensorflow},
                           {QStringLiteral("os"), list.os},          {QStringLiteral("python"), options.pythonVersion},
                           {QStringLiteral("artifacts"), artifacts}, {QStringLiteral("files"), fileArray},
                           {QStringLiteral("warnings"), warnings}};
    if (const Status s = writeFileAtomically(dir.filePath(bundleFileName), QJsonDocument(root).toJson()); !s)
        co_return s.error();
    co_return Bundle::open(dir.absolutePath());
}

QCoro::Task<Result<BundleFile>> BundleWriter::fetchArtifact(Artifact artifact, BundleOptions options)
{
    const QString relative = bundlePathOf(artifact);
    const QString destination = QDir(options.directory).filePath(relative);
    QDir().mkpath(QFileInfo(destination).absolutePath());
    BundleFile out{relative, artifact.name, artifact.sha256, artifact.sha256.isEmpty() ? artifact.md5 : QString(),
                   artifact.size};
    const bool trustFirstUse = artifact.needsTrustOnFirstUse();
    const Checksum::Algorithm algorithm = artifact.sha256.isEmpty() && !trustFirstUse ? Checksum::Algorithm::Md5
                                                                                      : Checksum::Algorithm::Sha256;
    // Local mirrors first: verified exactly as a download would be.
    for (const QUrl &url : artifact.urls) {
        if (!url.isLocalFile() || !QFileInfo(url.toLocalFile()).isFile())
            continue;
        // Named future: GCC 12 mishandles temporaries (a lambda) inside a co_await expression.
        const QString path = url.toLocalFile();
        QFuture<Result<QByteArray>> hashing = QtConcurrent::run(
            [algorithm, path] { return hashFile(algorithm, path); });
        const Result<QByteArray> digest = co_await hashing;
        if (!digest)
            continue;
        const QString expected = algorithm == Checksum::Algorithm::Sha256 ? artifact.sha256 : artifact.md5;
        if (!trustFirstUse && QString::fromLatin1(*digest) != expected)
            continue; // a bad copy on a lab share: try the next source
        if (const Status s = placeFile(path, destination, false); !s)
            co_return s.error();
        out.size = QFileInfo(destination).size();
        if (trustFirstUse)
            out.sha256 = QString::fromLatin1(*digest);
        co_return out;
    }
    if (trustFirstUse) {
        Artifact remote = artifact; // the local copies were tried above
        remote.urls.removeIf([](const QUrl &url) { return url.isLocalFile(); });
        FirstUseOptions firstUse;
        firstUse.transfer = options.transfer;
        firstUse.stallTimeout = options.stallTimeout;
        auto fetched = co_await FirstUse::fetch(std::move(remote), destination, std::move(firstUse));
        if (!fetched)
            co_return fetched.error();
        out.sha256 = fetched->sha256;
        out.size = fetched->size;
        co_return out;
    }
    auto result = co_await m_downloader.fetch(artifact.toDownloadRequest(destination));
    if (!result)
        co_return result.error();
    out.size = result->bytes;
    co_return out;
}

QCoro::Task<Result<QList<BundleFile>>>
BundleWriter::fetchWheels(PyLock lock, BundleOptions options, std::function<QList<QUrl>(const LockedWheel &)> wheelUrls)
{
    if (lock.packages.isEmpty()) {
        co_return Error{QStringLiteral("lock_missing"),
                        tr("No Python packages were chosen for the bundle, so it could not hold any. Check the "
                           "requirements and the package index."),
                        {}};
    }
    const QString wheelhouse = QDir(options.directory).filePath(QStringLiteral("wheelhouse"));
    QDir().mkpath(wheelhouse);
    // Each wheel through the downloader (the cache first, several at once), verified by the lock.
    std::vector<QCoro::Task<Result<DownloadResult>>> running;
    for (const LockedWheel &w : std::as_const(lock.packages)) {
        if (!isSafePathName(w.file))
            co_return Error{QStringLiteral("artifact_invalid"), tr("The wheel %1 has an unsafe name.").arg(w.file),
                            w.file};
        DownloadRequest request;
        request.name = w.file;
        request.urls = wheelUrls ? wheelUrls(w) : QList<QUrl>{QUrl(w.url)};
        request.expectedSize = w.size;
        request.checksum = Checksum{Checksum::Algorithm::Sha256, w.sha256};
        request.destination = QDir(wheelhouse).filePath(w.file);
        request.segments = 4;
        running.push_back(m_downloader.fetch(std::move(request)));
    }
    QList<BundleFile> files;
    std::optional<Error> failure;
    for (qsizetype i = 0; i < qsizetype(running.size()); ++i) {
        const Result<DownloadResult> fetched = co_await running[size_t(i)];
        if (!fetched) {
            if (!failure) {
                failure = fetched.error();
                m_downloader.cancelAll();
            }
            continue;
        }
        const LockedWheel &w = lock.packages.at(i);
        files.append({QStringLiteral("wheelhouse/") + w.file,
                      QStringLiteral("wheelhouse"),
                      QString::fromLatin1(w.sha256),
                      {},
                      fetched->bytes});
        lock.packages[i].size = fetched->bytes;
    }
    if (failure)
        co_return *failure;
    // pip's own form too, for a lab that installs without tfsetup: every wheel pinned by hash.
    const QByteArray requirements = lock.requirementsText();
    const QString reqPath = QDir(wheelhouse).filePath(QStringLiteral("requirements.txt"));
    if (const Status s = writeFileAtomically(reqPath, requirements); !s)
        co_return s.error();
    files.append({QStringLiteral("wheelhouse/requirements.txt"),
                  QStringLiteral("wheelhouse"),
                  QString::fromLatin1(QCryptographicHash::hash(requirements, QCryptographicHash::Sha256).toHex()),
                  {},
                  requirements.size()});
    const QByteArray lockText = lock.toToml();
    if (const Status s = writeFileAtomically(QDir(options.directory).filePath(lockFileName), lockText); !s)
        co_return s.error();
    files.append({lockFileName,
                  QStringLiteral("lock"),
                  QString::fromLatin1(QCryptographicHash::hash(lockText, QCryptographicHash::Sha256).toHex()),
                  {},
                  lockText.size()});
    co_return files;
}

} // namespace tfsetup::core
