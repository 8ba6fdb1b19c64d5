#include "sources/redistmanifest.h"

#include "util/jsonshape.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace tfsetup::core {

namespace {

bool isHex(const QString &s, int length)
{
    if (s.size() != length)
        return false;
    return std::all_of(s.begin(), s.end(), [](QChar c) {
        return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
    });
}

// Keys of a component object that are metadata, not platforms.
bool isMetadataKey(const QString &key)
{
    static const QStringList keys{QStringLiteral("name"), QStringLiteral("license"), QStringLiteral("license_path"),
                                  QStringLiteral("version"), QStringLiteral("cuda_variant")};
    return keys.contains(key);
}

// The manifest's one check, field by field: a refusal names the field and what is wrong with it
// in the words every input document's check uses (util/jsonshape.h), so none of its checksums
// is used. NVIDIA's manifests mix metadata strings and component objects at the top, and
// metadata and platform objects inside a component, which a fixed shape cannot say.
Error malformed(const QString &fileName, const QString &field, const QString &problem)
{
    return JsonShape::error(
        QStringLiteral("manifest_malformed"), RedistManifest::tr("The NVIDIA manifest %1").arg(fileName),
        JsonShape::Problem{field, problem},
        RedistManifest::tr("None of its checksums is used. Try again later, or use another mirror."));
}

} // namespace

bool isSafeRelativePath(const QString &path)
{
    if (path.isEmpty() || path.size() > 1024 || path.startsWith(u'/') || path.contains(u'\\') || path.contains(u':'))
        return false;
    for (QChar c : path) {
        if (c.unicode() < 0x21 || c.unicode() > 0x7e)
            return false;
    }
    const QStringList segments = path.split(u'/');
    return std::none_of(segments.begin(), segments.end(),
                        [](const QString &s) { return s.isEmpty() || s == u"." || s == u".."; });
}

const RedistFile *RedistComponent::file(const QString &platform, const QString &variant) const
{
    for (const RedistFile &f : files) {
        if (f.platform == platform && f.variant == variant)
            return &f;
    }
    return nullptr;
}

const RedistComponent *RedistManifest::component(const QString &key) const
{
    for (const RedistComponent &c : m_components) {
        if (c.key == key)
            return &c;
    }
    return nullptr;
}

Result<RedistManifest> RedistManifest::parse(const QByteArray &json, const QString &fileName)
{
    if (json.size() > maxManifestBytes)
        return malformed(fileName, {}, RedistManifest::tr("is larger than %1 bytes").arg(maxManifestBytes));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isObject())
        return malformed(fileName, {}, RedistManifest::tr("is not a JSON object (%1)").arg(parseError.errorString()));
    const QJsonObject root = doc.object();

    RedistManifest manifest;
    manifest.m_fileName = fileName;

    auto readFile = [&fileName](const QJsonObject &o, const QString &where, RedistFile *file) -> std::optional<Error> {
        const QJsonValue path = o.value(QStringLiteral("relative_path"));
        const QJsonValue sha = o.value(QStringLiteral("sha256"));
        const QJsonValue md5 = o.value(QStringLiteral("md5"));
        const QJsonValue size = o.value(QStringLiteral("size"));
        if (!path.isString())
            return malformed(fileName, where + u".relative_path", RedistManifest::tr("must be text"));
        if (!sha.isString())
            return malformed(fileName, where + u".sha256", RedistManifest::tr("must be text"));
        if (!isSafeRelativePath(path.toString()))
            return malformed(fileName, where + u".relative_path",
                             RedistManifest::tr("is not a safe relative path (\"%1\")").arg(path.toString().left(200)));
        if (!isHex(sha.toString(), 64))
            return malformed(fileName, where + u".sha256", RedistManifest::tr("is not 64 hexadecimal digits"));
        if (!md5.isUndefined() && !(md5.isString() && isHex(md5.toString(), 32)))
            return malformed(fileName, where + u".md5", RedistManifest::tr("is not 32 hexadecimal digits"));
        qint64 bytes = -1;
        if (size.isString()) {
            bool ok = false;
            bytes = size.toString().toLongLong(&ok);
            if (!ok)
                bytes = -1;
        } else if (size.isDouble()) {
            bytes = size.toInteger(-1); // -1 for fractions and values beyond 64 bits
        }
        if (bytes <= 0 || bytes > maxArchiveBytes)
            return malformed(
                fileName, where + u".size",
                RedistManifest::tr("is missing, not a number, or outside 1 byte to %1 bytes").arg(maxArchiveBytes));
        file->relativePath = path.toString();
        file->sha256 = sha.toString().toLower();
        file->md5 = md5.toString().toLower();
        file->size = bytes;
        return std::nullopt;
    };

    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString key = it.key();
        if (it.value().isString()) {
            if (key == u"release_date")
                manifest.m_releaseDate = it.value().toString();
            else if (key == u"release_label")
                manifest.m_releaseLabel = it.value().toString();
            else if (key == u"release_product")
                manifest.m_releaseProduct = it.value().toString();
            continue;
        }
        if (!it.value().isObject())
            return malformed(fileName, key, RedistManifest::tr("must be text or a component object"));
        const QJsonObject c = it.value().toObject();
        RedistComponent component;
        component.key = key;
        component.name = c.value(QStringLiteral("name")).toString();
        if (!c.value(QStringLiteral("version")).isString() || c.value(QStringLiteral("version")).toString().isEmpty())
            return malformed(fileName, key + u".version", RedistManifest::tr("must be text and not empty"));
        component.version = c.value(QStringLiteral("version")).toString();
        for (auto p = c.begin(); p != c.end(); ++p) {
            if (isMetadataKey(p.key()))
                continue;
            if (!p.value().isObject())
                return malformed(fileName, key + u'.' + p.key(), RedistManifest::tr("must be an object"));
            const QJsonObject platform = p.value().toObject();
            if (platform.contains(QStringLiteral("relative_path"))) {
                RedistFile f;
                f.platform = p.key();
                if (auto error = readFile(platform, key + u'.' + p.key(), &f))
                    return *error;
                component.files.append(f);
                continue;
            }
            // cuDNN: one file per CUDA variant.
            for (auto v = platform.begin(); v != platform.end(); ++v) {
                if (!v.value().isObject())
                    return malformed(fileName, key + u'.' + p.key() + u'.' + v.key(),
                                     RedistManifest::tr("must be an object"));
                RedistFile f;
                f.platform = p.key();
                f.variant = v.key();
                if (auto error = readFile(v.value().toObject(), key + u'.' + p.key() + u'.' + v.key(), &f))
                    return *error;
                component.files.append(f);
            }
        }
        manifest.m_components.append(component);
    }
    if (manifest.m_components.isEmpty())
        return malformed(fileName, {}, RedistManifest::tr("lists no component"));
    return manifest;
}

} // namespace tfsetup::core
