#pragma once

// A recorded environment for the wizard's tests: its record, launchers and registered kernel,
// as tfsetup writes them, without a real venv.

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace tfsetup::test {

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// A recorded environment at root + /home/u/tfsetup-envs/<name>, its kernel registered.
inline bool makeEnvironment(const QString &root, const QString &name)
{
    const QString dir = root + QStringLiteral("/home/u/tfsetup-envs/") + name;
    const QByteArray launcher = "#!/bin/sh\nexec python \"$@\"\n";
    const QByteArray kernel = "{\"display_name\": \"" + name.toUtf8() + "\"}\n";
    QJsonArray files;
    for (const auto &[path, bytes] :
         QList<std::pair<QString, QByteArray>>{{QStringLiteral("start-python"), launcher},
                                               {QStringLiteral("shell"), launcher},
                                               {QStringLiteral("kernel/kernel.json"), kernel}}) {
        if (!writeFile(dir + u'/' + path, bytes))
            return false;
        files.append(
            QJsonObject{{QStringLiteral("path"), path},
                        {QStringLiteral("sha256"),
                         QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex())},
                        {QStringLiteral("size"), bytes.size()}});
    }
    const QJsonObject record{
        {QStringLiteral("schema"), 1},
        {QStringLiteral("name"), name},
        {QStringLiteral("os"), QStringLiteral("linux")},
        {QStringLiteral("python_version"), QStringLiteral("3.11.2")},
        {QStringLiteral("plan"),
         QJsonObject{{QStringLiteral("route"), QStringLiteral("linux-pip")},
                     {QStringLiteral("tensorflow"), QStringLiteral("2.15.1")},
                     {QStringLiteral("kernel_name"), name}}},
        {QStringLiteral("files"), files},
        {QStringLiteral("launchers"), QJsonArray{QStringLiteral("start-python"), QStringLiteral("shell")}},
        {QStringLiteral("kernel_folder"), QString(QStringLiteral("/home/u/.local/share/jupyter/kernels/") + name)}};
    return writeFile(dir + QStringLiteral("/environment.json"), QJsonDocument(record).toJson())
        && writeFile(root + QStringLiteral("/home/u/.local/share/jupyter/kernels/") + name
                         + QStringLiteral("/kernel.json"),
                     kernel);
}

} // namespace tfsetup::test
