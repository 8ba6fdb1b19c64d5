#pragma once

// A lab mirror on loopback laid out like NVIDIA's download server, with tiny stand-in archives
// (support/installarchives.h) for CUDA 11.8 and cuDNN 8.6 / 8.9 on Linux, manifests in NVIDIA's
// redistrib format that list them, a sources catalog that takes those manifests unpinned (the
// built-in one pins NVIDIA's real manifest bytes), and lab profiles that install from it with
// tfsetup_labmachine. Used by the many-machines and kill-drill tests.

#include "support/installarchives.h"

#include "support/loopbackserver.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace tfsetup::test {

class LabMirror {
public:
    struct Archive {
        QString urlPath; // "/compute/cuda/redist/cuda_cudart/linux-x86_64/…"
        QString file;    // on disk
        QByteArray sha256;
    };

    // Writes everything under `dir` and routes it on `server` (which must be started).
    bool create(const QString &dir, LoopbackServer &server)
    {
        m_dir = dir;
        const QString redist = QStringLiteral("/compute/cuda/redist");
        QJsonObject cuda{{QStringLiteral("release_date"), QStringLiteral("2022-10-03")},
                         {QStringLiteral("release_label"), QStringLiteral("11.8.0")},
                         {QStringLiteral("release_product"), QStringLiteral("cuda")}};
        const QList<std::pair<QString, QString>> components{
            {QStringLiteral("cuda_cudart"), QStringLiteral("11.8.89")},
            {QStringLiteral("libcublas"), QStringLiteral("11.11.3.6")},
            {QStringLiteral("libcufft"), QStringLiteral("10.9.0.58")},
            {QStringLiteral("libcurand"), QStringLiteral("10.3.0.86")},
            {QStringLiteral("libcusolver"), QStringLiteral("11.4.1.48")},
            {QStringLiteral("libcusparse"), QStringLiteral("11.7.5.86")}};
        for (const auto &[name, version] : components) {
            const QString top = QStringLiteral("%1-linux-x86_64-%2-archive").arg(name, version);
            QList<Entry> entries;
            if (name == u"cuda_cudart") {
                entries = cudartArchive(false, version, QStringLiteral("11.0"), {});
            } else {
                const QString lib = name == u"libcublas" ? QStringLiteral("libcublas") : name;
                entries = soLibrary(top + QStringLiteral("/lib"), lib, version, version.section(u'.', 0, 0));
                entries.append(file(top + QStringLiteral("/LICENSE")));
            }
            const QString relative = QStringLiteral("%1/linux-x86_64/%2.tar.xz").arg(name, top);
            const auto archive = add(redist + u'/' + relative, entries, server);
            if (!archive)
                return false;
            cuda.insert(name,
                        QJsonObject{{QStringLiteral("name"), name},
                                    {QStringLiteral("license"), QStringLiteral("CUDA Toolkit")},
                                    {QStringLiteral("version"), version},
                                    {QStringLiteral("linux-x86_64"), entry(relative, *archive)}});
        }
        routeManifest(server, QStringLiteral("11.8.0"), redist + QStringLiteral("/redistrib_11.8.0.json"),
                      QJsonDocument(cuda).toJson());

        for (const auto &[label, version] : {std::pair{QStringLiteral("8.6.0"), QStringLiteral("8.6.0.163")},
                                             std::pair{QStringLiteral("8.9.7.29"), QStringLiteral("8.9.7.29")}}) {
            const QString relative =
                QStringLiteral("cudnn/linux-x86_64/cudnn-linux-x86_64-%1_cuda11-archive.tar.xz").arg(version);
            const auto archive = add(QStringLiteral("/compute/cudnn/redist/") + relative,
                                     cudnnArchive(false, version, false), server);
            if (!archive)
                return false;
            const QJsonObject manifest{
                {QStringLiteral("release_date"), QStringLiteral("2022-10-03")},
                {QStringLiteral("release_label"), label},
                {QStringLiteral("release_product"), QStringLiteral("cudnn")},
                {QStringLiteral("cudnn"),
                 QJsonObject{{QStringLiteral("name"), QStringLiteral("NVIDIA CUDA Deep Neural Network library")},
                             {QStringLiteral("license"), QStringLiteral("cudnn")},
                             {QStringLiteral("version"), version},
                             {QStringLiteral("cuda_variant"), QJsonArray{QStringLiteral("11")}},
                             {QStringLiteral("linux-x86_64"),
                              QJsonObject{{QStringLiteral("cuda11"), entry(relative, *archive)}}}}}};
            routeManifest(server, label, QStringLiteral("/compute/cudnn/redist/redistrib_%1.json").arg(label),
                          QJsonDocument(manifest).toJson());
        }
        return writeSources();
    }

    const QList<Archive> &archives() const { return m_archives; }
    // The manifests served here as "LABEL=SHA256" ("11.8.0=…"): the pins a lab's signed catalog
    // gives them (sign_catalog.py --pin).
    QStringList manifestPins() const { return m_manifestPins; }
    QString sourcesPath() const { return m_dir + QStringLiteral("/sources.json"); }

    // A lab profile for the linux-toolkit route with CUDA 11.8 and the given cuDNN, no Python
    // (libraries, launchers and the record only: the venv and pip are covered elsewhere).
    QString writeProfile(const QString &file, const QString &name, const QString &cudnn,
                         const QString &displayName = {}) const
    {
        const QString path = m_dir + u'/' + file + QStringLiteral(".json");
        const QJsonObject profile{
            {QStringLiteral("schema"), 1},
            {QStringLiteral("title"), QStringLiteral("Lab morning")},
            {QStringLiteral("environment"), name},
            {QStringLiteral("installFolder"), QStringLiteral("${HOME}/envs")},
            {QStringLiteral("interpreter"), QStringLiteral("none")},
            {QStringLiteral("plan"),
             QJsonObject{{QStringLiteral("route"), QStringLiteral("linux-toolkit")},
                         {QStringLiteral("tensorflow"), QStringLiteral("2.13.1")},
                         {QStringLiteral("package"), QStringLiteral("tensorflow")},
                         {QStringLiteral("python"), QStringLiteral("3.11")},
                         {QStringLiteral("cuda"), QStringLiteral("11.8")},
                         {QStringLiteral("cudnn"), cudnn}}},
            {QStringLiteral("kernel"),
             QJsonObject{{QStringLiteral("name"), name},
                         {QStringLiteral("displayName"), displayName.isEmpty() ? name : displayName},
                         {QStringLiteral("register"), false}}},
            {QStringLiteral("desktopEntry"), false}};
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QJsonDocument(profile).toJson());
        return path;
    }

    // tfsetup_labmachine's arguments for one machine.
    QStringList machineArguments(const QString &profile, const QString &prefix, const QString &cache,
                                 const LoopbackServer &server) const
    {
        return {
            QStringLiteral("--profile"), profile,
            QStringLiteral("--prefix"),  prefix,
            QStringLiteral("--cache"),   cache,
            QStringLiteral("--origin"),  QStringLiteral("nvidia=") + server.url(QStringLiteral("/")).toString(),
            QStringLiteral("--origin"),  QStringLiteral("pypi-json=") + server.url(QStringLiteral("/pypi")).toString(),
            QStringLiteral("--sources"), sourcesPath()};
    }

private:
    std::optional<Archive> add(const QString &urlPath, const QList<Entry> &entries, LoopbackServer &server)
    {
        const QString path = m_dir + QStringLiteral("/files") + urlPath;
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (!core::ArchiveWriter::write(path, core::ArchiveWriter::TarXz, entries))
            return std::nullopt;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return std::nullopt;
        const QByteArray bytes = f.readAll();
        Archive a{urlPath, path, QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()};
        server.route(urlPath.toUtf8(), Response::bytes(bytes));
        m_archives.append(a);
        m_sizes.insert(urlPath, bytes.size());
        m_md5.insert(urlPath, QCryptographicHash::hash(bytes, QCryptographicHash::Md5).toHex());
        return a;
    }

    QJsonObject entry(const QString &relative, const Archive &a) const
    {
        return {{QStringLiteral("relative_path"), relative},
                {QStringLiteral("sha256"), QString::fromLatin1(a.sha256)},
                {QStringLiteral("md5"), QString::fromLatin1(m_md5.value(a.urlPath))},
                {QStringLiteral("size"), QString::number(m_sizes.value(a.urlPath))}};
    }

    void routeManifest(LoopbackServer &server, const QString &label, const QString &path, const QByteArray &json)
    {
        server.route(path.toUtf8(), Response::bytes(json, "application/json"));
        m_manifestPins.append(
            label + u'=' + QString::fromLatin1(QCryptographicHash::hash(json, QCryptographicHash::Sha256).toHex()));
    }

    // The built-in sources catalog without the pins of the manifests served here: the resolver
    // then takes them from the (overridden) official origin only, as it does any unpinned manifest.
    bool writeSources() const
    {
        QFile builtIn(QStringLiteral(":/resources/catalog/sources.json"));
        if (!builtIn.open(QIODevice::ReadOnly))
            return false;
        QJsonObject root = QJsonDocument::fromJson(builtIn.readAll()).object();
        for (const QString &key : {QStringLiteral("cuda_manifests"), QStringLiteral("cudnn_manifests")}) {
            QJsonArray list = root.value(key).toArray();
            for (qsizetype i = 0; i < list.size(); ++i) {
                QJsonObject pin = list.at(i).toObject();
                const QString label = pin.value(QStringLiteral("label")).toString();
                if (label == u"11.8.0" || label == u"8.6.0" || label == u"8.9.7.29")
                    pin.insert(QStringLiteral("sha256"), QJsonValue::Null);
                list.replace(i, pin);
            }
            root.insert(key, list);
        }
        QFile out(sourcesPath());
        return out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(root).toJson()) > 0;
    }

    QString m_dir;
    QList<Archive> m_archives;
    QHash<QString, qint64> m_sizes;
    QHash<QString, QByteArray> m_md5;
    QStringList m_manifestPins;
};

} // namespace tfsetup::test
