#include "catalog/sourcecatalog.h"

#include "catalog/version.h"
#include "util/jsonshape.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <algorithm>

namespace tfsetup::core {

namespace {

bool verifiedOf(const QJsonObject &o)
{
    return o.value(QStringLiteral("verified")).toBool(true);
}

bool isSha256(const QString &s)
{
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](QChar c) {
               return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
           });
}

// "mirrors": absent, or a list of {"origin", "url", "note"?}. A mirror is where every machine with
// this catalog fetches first, so a wrong one refuses the whole catalog instead of turning into
// failed downloads.
Result<QList<CatalogMirror>> readMirrors(const QJsonValue &value, const QList<std::pair<QString, QString>> &origins)
{
    QList<CatalogMirror> out;
    if (value.isUndefined() || value.isNull())
        return out;
    const auto wrong = [](const QString &field, const QString &problem) {
        return Error{QStringLiteral("catalog_malformed"),
                     SourceCatalog::tr("The sources catalog's mirror list is not usable: \"%1\" %2. Correct the "
                                       "\"mirrors\" list of the catalog (each entry: an \"origin\" such as nvidia and "
                                       "an http://, https:// or file:// \"url\"), or reinstall tfsetup.")
                         .arg(field, problem),
                     QStringLiteral("mirrors")};
    };
    if (!value.isArray())
        return wrong(QStringLiteral("mirrors"), SourceCatalog::tr("is not a list"));
    const QJsonArray list = value.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString field = QStringLiteral("mirrors[%1]").arg(i);
        if (!list.at(i).isObject())
            return wrong(field, SourceCatalog::tr("is not an object"));
        const QJsonObject o = list.at(i).toObject();
        const QJsonValue origin = o.value(QStringLiteral("origin"));
        const QJsonValue url = o.value(QStringLiteral("url"));
        const QJsonValue note = o.value(QStringLiteral("note"));
        const bool knownOrigin = origin.isString() && origin.toString() != u"pypi"
            && std::any_of(origins.cbegin(), origins.cend(),
                           [&origin](const auto &known) { return known.first == origin.toString(); });
        if (!knownOrigin) {
            return wrong(field + QStringLiteral(".origin"),
                         SourceCatalog::tr("must name an origin whose files a mirror copies (nvidia, python, "
                                           "python-build-standalone); PyPI mirrors are chosen in the options"));
        }
        const QUrl parsed(url.toString(), QUrl::StrictMode);
        const QString scheme = parsed.scheme();
        const bool goodUrl = url.isString() && url.toString().size() <= 2048 && parsed.isValid()
            && (((scheme == u"http" || scheme == u"https") && !parsed.host().isEmpty())
                || (scheme == u"file" && !parsed.path().isEmpty()));
        if (!goodUrl)
            return wrong(field + QStringLiteral(".url"),
                         SourceCatalog::tr("must be an http://, https:// or file:// address"));
        if (!note.isUndefined() && !note.isString())
            return wrong(field + QStringLiteral(".note"), SourceCatalog::tr("must be text"));
        out.append({origin.toString(), url.toString(), note.toString()});
    }
    return out;
}

} // namespace

Result<SourceCatalog> SourceCatalog::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("catalog_unreadable"),
                     tr("The sources catalog %1 cannot be read. Reinstall tfsetup.").arg(path), f.errorString()};
    }
    return fromJson(f.readAll());
}

Result<SourceCatalog> SourceCatalog::fromJson(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (!doc.isObject()) {
        return Error{QStringLiteral("catalog_malformed"),
                     tr("The sources catalog is not valid JSON. Reinstall tfsetup."), error.errorString()};
    }
    const QJsonObject root = doc.object();
    SourceCatalog c;
    auto needSource = [&c](const QJsonObject &o, const QString &what) {
        if (textOf(o, "source").isEmpty())
            c.m_problems.append(what + QStringLiteral(": no source"));
    };

    for (const QJsonValue &v : root.value(QStringLiteral("origins")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("origin ") + textOf(o, "name"));
        c.m_origins.append({textOf(o, "name"), textOf(o, "base")});
    }
    auto readPins = [&](const char *key, const char *versionKey, QList<ManifestPin> *out) {
        for (const QJsonValue &v : root.value(QLatin1String(key)).toArray()) {
            const QJsonObject o = v.toObject();
            ManifestPin p{textOf(o, versionKey), textOf(o, "label"),  textOf(o, "sha256"),
                          textOf(o, "fallback"), textOf(o, "source"), verifiedOf(o)};
            needSource(o, QStringLiteral("manifest ") + p.label);
            if (!p.sha256.isEmpty() && !isSha256(p.sha256))
                c.m_problems.append(QStringLiteral("manifest %1: sha256 is not 64 lower-case hex digits").arg(p.label));
            if (p.label.isEmpty() || p.version.isEmpty())
                c.m_problems.append(QStringLiteral("manifest without label or version"));
            out->append(p);
        }
    };
    readPins("cuda_manifests", "cuda", &c.m_cudaManifests);
    readPins("cudnn_manifests", "cudnn", &c.m_cudnnManifests);

    for (const QJsonValue &v : root.value(QStringLiteral("cuda_components")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("components ") + textOf(o, "cuda_min"));
        c.m_components.append({textOf(o, "cuda_min"), textOf(o, "cuda_max"),
                               textsOf(o.value(QStringLiteral("components"))),
                               textsOf(o.value(QStringLiteral("optional"))), textOf(o, "source")});
    }
    for (const QJsonValue &v : root.value(QStringLiteral("cudnn_archives")).toArray()) {
        const QJsonObject o = v.toObject();
        CudnnArchive a{textOf(o, "cudnn"), textOf(o, "version"), textOf(o, "platform"),        textOf(o, "cuda"),
                       textOf(o, "url"),   textOf(o, "sha256"),  textOf(o, "checksum_origin"), textOf(o, "source"),
                       verifiedOf(o)};
        needSource(o, QStringLiteral("cudnn archive ") + a.version);
        if (!a.sha256.isEmpty() && !isSha256(a.sha256))
            c.m_problems.append(
                QStringLiteral("cudnn archive %1: sha256 is not 64 lower-case hex digits").arg(a.version));
        if (a.sha256.isEmpty() != (a.checksumOrigin == u"none"))
            c.m_problems.append(
                QStringLiteral("cudnn archive %1: checksum_origin must be \"none\" exactly when there is no sha256")
                    .arg(a.version));
        c.m_cudnnArchives.append(a);
    }
    for (const QJsonValue &v : root.value(QStringLiteral("cuda_installers")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("installer ") + textOf(o, "version"));
        c.m_installers.append({textOf(o, "cuda"), textOf(o, "version"), textOf(o, "windows"), textOf(o, "linux"),
                               textOf(o, "md5sum_url"), textOf(o, "source"), verifiedOf(o)});
    }
    for (const QJsonValue &v : root.value(QStringLiteral("installer_arguments")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("installer arguments ") + textOf(o, "os"));
        c.m_installerArguments.append(
            {textOf(o, "os"), textsOf(o.value(QStringLiteral("arguments"))), textOf(o, "source"), verifiedOf(o)});
    }
    const QJsonObject python = root.value(QStringLiteral("python")).toObject();
    c.m_pythonWindowsUrl = textOf(python, "windows_url");
    c.m_pythonWindowsArguments = textsOf(python.value(QStringLiteral("windows_arguments")));
    c.m_pythonChecksumNote = textOf(python, "checksum_note");
    if (textOf(python, "arguments_source").isEmpty())
        c.m_problems.append(QStringLiteral("python: no arguments_source"));
    for (const QJsonValue &v : python.value(QStringLiteral("releases")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("python ") + textOf(o, "version"));
        c.m_pythonReleases.append({textOf(o, "minor"), textOf(o, "version"), textOf(o, "source"), verifiedOf(o)});
    }
    const QJsonObject api = python.value(QStringLiteral("checksum_api")).toObject();
    c.m_pythonChecksumApi = {textOf(api, "release"), textOf(api, "release_files"), textOf(api, "source")};
    if (!api.isEmpty())
        needSource(api, QStringLiteral("python checksum_api"));
    const QJsonObject standalone = python.value(QStringLiteral("standalone")).toObject();
    c.m_standaloneLayout = {textOf(standalone, "origin"),    textOf(standalone, "platform"),
                            textOf(standalone, "file"),      textOf(standalone, "path"),
                            textOf(standalone, "checksums"), textOf(standalone, "interpreter"),
                            textOf(standalone, "source")};
    if (!standalone.isEmpty()) {
        needSource(standalone, QStringLiteral("python standalone"));
        const StandaloneLayout &l = c.m_standaloneLayout;
        if (l.origin.isEmpty() || l.file.isEmpty() || l.path.isEmpty() || l.checksums.isEmpty()
            || l.interpreter.isEmpty())
            c.m_problems.append(
                QStringLiteral("python standalone: origin, file, path, checksums and interpreter are all needed"));
    }
    for (const QJsonValue &v : standalone.value(QStringLiteral("releases")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("python standalone ") + textOf(o, "version"));
        StandalonePython p{
            textOf(o, "minor"), textOf(o, "version"), textOf(o, "tag"), textOf(o, "source"), verifiedOf(o), {}, {}};
        if (p.minor.isEmpty() || p.version.isEmpty() || p.tag.isEmpty())
            c.m_problems.append(
                QStringLiteral("python standalone %1: minor, version and tag are all needed").arg(p.version));
        // A pin is what the archive is checked against even when GitHub cannot be reached, so a
        // malformed one refuses the whole catalog rather than turning into a failed download.
        const QJsonValue pin = o.value(QStringLiteral("sha256"));
        if (!pin.isUndefined() && !pin.isNull()) {
            if (!pin.isString() || !isSha256(pin.toString())) {
                const QString shown = pin.isString()
                    ? pin.toString()
                    : QString::fromUtf8(QJsonDocument(QJsonArray{pin}).toJson(QJsonDocument::Compact))
                          .chopped(1)
                          .mid(1);
                return Error{
                    QStringLiteral("catalog_malformed"),
                    tr("The sources catalog pins the relocatable Python %1 (python-build-standalone release %2) "
                       "to the SHA-256 \"%3\", which is not 64 lower-case hexadecimal digits. Correct that record "
                       "in the sources catalog, or reinstall tfsetup.")
                        .arg(p.version, p.tag, shown.size() > 80 ? shown.left(80) + QStringLiteral("…") : shown),
                    QStringLiteral("python.standalone.releases: minor %1, version %2, tag %3: sha256")
                        .arg(p.minor, p.version, p.tag)};
            }
            p.sha256 = pin.toString();
            p.sha256Source = textOf(o, "sha256_source");
            if (p.sha256Source.trimmed().isEmpty())
                c.m_problems.append(
                    QStringLiteral("python standalone %1: sha256 without sha256_source").arg(p.version));
        }
        c.m_standalonePythons.append(p);
    }
    for (const QJsonValue &v : root.value(QStringLiteral("pypi_mirrors")).toArray()) {
        const QJsonObject o = v.toObject();
        needSource(o, QStringLiteral("pypi mirror ") + textOf(o, "name"));
        c.m_pypiMirrors.append({textOf(o, "name"), textOf(o, "url"), textOf(o, "region"), textOf(o, "source"),
                                verifiedOf(o), textOf(o, "label_zh"), textOf(o, "label_zh_TW"), textOf(o, "files")});
        if (!textOf(o, "files").isEmpty() && textOf(o, "files_source").trimmed().isEmpty())
            c.m_problems.append(QStringLiteral("pypi mirror %1: files without files_source").arg(textOf(o, "name")));
    }
    if (auto mirrors = readMirrors(root.value(QStringLiteral("mirrors")), c.m_origins); mirrors)
        c.m_mirrors = std::move(*mirrors);
    else
        return mirrors.error();
    const QJsonObject zlib = root.value(QStringLiteral("zlibwapi")).toObject();
    c.m_zlibMin = textOf(zlib, "cudnn_min");
    c.m_zlibMax = textOf(zlib, "cudnn_max");
    c.m_zlibOs = textOf(zlib, "os");
    c.m_zlibSource = textOf(zlib, "source");
    return c;
}

QStringList SourceCatalog::problems() const
{
    return m_problems;
}

QString SourceCatalog::originBase(const QString &origin) const
{
    for (const auto &[name, base] : m_origins) {
        if (name == origin)
            return base;
    }
    return {};
}

std::optional<ManifestPin> SourceCatalog::cudaManifest(const QString &cudaMajorMinor) const
{
    const QString mm = version::majorMinor(cudaMajorMinor);
    for (const ManifestPin &p : m_cudaManifests) {
        if (version::majorMinor(p.version) == mm)
            return p;
    }
    return std::nullopt;
}

QList<ManifestPin> SourceCatalog::cudnnManifests(const QString &cudnnMajorMinor) const
{
    const QString mm = version::majorMinor(cudnnMajorMinor);
    QList<ManifestPin> pinned, unpinned;
    for (const ManifestPin &p : m_cudnnManifests) {
        if (version::majorMinor(p.version) == mm)
            (p.verified && !p.sha256.isEmpty() ? pinned : unpinned).append(p);
    }
    return pinned + unpinned;
}

std::optional<ComponentSet> SourceCatalog::components(const QString &cuda) const
{
    for (const ComponentSet &s : m_components) {
        if (version::inRange(cuda, s.cudaMin, s.cudaMax))
            return s;
    }
    return std::nullopt;
}

QList<CudnnArchive> SourceCatalog::cudnnArchives(const QString &cudnnMajorMinor, const QString &platform) const
{
    QList<CudnnArchive> list;
    for (const CudnnArchive &a : m_cudnnArchives) {
        if (version::majorMinor(a.cudnn) == version::majorMinor(cudnnMajorMinor) && a.platform == platform)
            list.append(a);
    }
    return list;
}

std::optional<CudaInstaller> SourceCatalog::installer(const QString &cudaMajorMinor) const
{
    for (const CudaInstaller &i : m_installers) {
        if (version::majorMinor(i.cuda) == version::majorMinor(cudaMajorMinor))
            return i;
    }
    return std::nullopt;
}

std::optional<InstallerArguments> SourceCatalog::installerArguments(const QString &os) const
{
    for (const InstallerArguments &a : m_installerArguments) {
        if (a.os == os)
            return a;
    }
    return std::nullopt;
}

std::optional<PythonRelease> SourceCatalog::pythonRelease(const QString &minor) const
{
    for (const PythonRelease &r : m_pythonReleases) {
        if (r.minor == minor)
            return r;
    }
    return std::nullopt;
}

std::optional<StandalonePython> SourceCatalog::standalonePython(const QString &minor) const
{
    for (const StandalonePython &p : m_standalonePythons) {
        if (p.minor == minor)
            return p;
    }
    return std::nullopt;
}

QString PypiMirror::displayName(const QString &language) const
{
    if (language == u"zh_TW" && !labelZhTw.isEmpty())
        return labelZhTw;
    if (language.startsWith(QLatin1String("zh")) && !labelZh.isEmpty())
        return labelZh;
    return name;
}

std::optional<PypiMirror> SourceCatalog::pypiMirror(const QString &name) const
{
    for (const PypiMirror &m : m_pypiMirrors) {
        if (m.name == name)
            return m;
    }
    return std::nullopt;
}

bool SourceCatalog::needsZlibwapi(const QString &cudnn, const QString &os) const
{
    return !m_zlibMin.isEmpty() && os == m_zlibOs && version::inRange(cudnn, m_zlibMin, m_zlibMax);
}

} // namespace tfsetup::core
