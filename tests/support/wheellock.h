#pragma once

// A lock of local wheels, as pip's resolver would have made it for them, and the installer's
// "wheel" artifacts for the same files: for tests of the Installer and of repair, which start from
// verified files (the setup pipeline's lock and fetch are tested on their own).

#include "install/installspec.h"
#include "sources/pylock.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

namespace tfsetup::test {

struct LockedFiles {
    core::PyLock lock;
    QList<core::InstallArtifact> artifacts;
};

// Project and version from each file name (PEP 427); urlBase + file name as the lock's URL
// (empty: the file's own file:// URL). Files that cannot be read are left out.
inline LockedFiles lockWheels(const QStringList &wheelPaths, const QString &urlBase = {})
{
    LockedFiles out;
    for (const QString &path : wheelPaths) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = f.readAll();
        const QString file = QFileInfo(path).fileName();
        const QStringList parts = file.split(u'-');
        core::LockedWheel w;
        w.name = core::PyLock::normalizeName(parts.value(0));
        w.version = parts.value(1);
        w.file = file;
        w.url = urlBase.isEmpty() ? QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString() : urlBase + file;
        w.size = bytes.size();
        w.sha256 = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        w.requested = true;
        out.lock.packages.append(w);
        out.artifacts.append(
            core::InstallArtifact{QStringLiteral("wheel"), w.name, w.version, {}, w.sha256, path, w.url, {}, {}});
    }
    std::sort(out.lock.packages.begin(), out.lock.packages.end(),
              [](const core::LockedWheel &a, const core::LockedWheel &b) { return a.name < b.name; });
    return out;
}

} // namespace tfsetup::test
