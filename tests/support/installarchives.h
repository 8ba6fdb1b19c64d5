#pragma once

// Archives in the shapes NVIDIA publishes, built at test time with tiny stand-in contents.
// Names and folder shapes follow the manifests' relative_path values (redistrib_11.8.0.json,
// redistrib_8.9.7.json, redistrib_9.8.0.json) and facts.md section 7: redist archives and cuDNN
// >= 8.3 have one top folder named like the archive with bin/ include/ lib/ (Windows lib/x64),
// Linux libraries as a real file plus soname links; cuDNN 7.x-8.2 archives have a top folder
// cuda/ (Linux lib64/).

#include "install/archive.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::test {

using Entry = core::ArchiveWriter::Entry;

inline Entry file(const QString &path, const QByteArray &contents = {}, int mode = 0644)
{
    return Entry{Entry::File, path, contents.isEmpty() ? ("stand-in for " + path.toUtf8()) : contents, {}, mode};
}

inline Entry link(const QString &path, const QString &target)
{
    return Entry{Entry::Symlink, path, {}, target, 0777};
}

// A versioned Linux library with its soname link (and the plain .so link when asked).
inline QList<Entry> soLibrary(const QString &dir, const QString &name, const QString &full, const QString &soname,
                              bool devLink = true)
{
    QList<Entry> out{file(dir + u'/' + name + QStringLiteral(".so.") + full),
                     link(dir + u'/' + name + QStringLiteral(".so.") + soname, name + QStringLiteral(".so.") + full)};
    if (devLink)
        out.append(link(dir + u'/' + name + QStringLiteral(".so"), name + QStringLiteral(".so.") + soname));
    return out;
}

// cuda_cudart-<platform>-<version>-archive
inline QList<Entry> cudartArchive(bool windows, const QString &version, const QString &soname, const QString &dll)
{
    const QString top = QStringLiteral("cuda_cudart-%1-%2-archive/")
                            .arg(windows ? QStringLiteral("windows-x86_64") : QStringLiteral("linux-x86_64"), version);
    QList<Entry> e{file(top + QStringLiteral("LICENSE")), file(top + QStringLiteral("include/cuda_runtime_api.h"))};
    if (windows) {
        e += {file(top + QStringLiteral("bin/") + dll), file(top + QStringLiteral("lib/x64/cudart.lib")),
              file(top + QStringLiteral("lib/x64/cudart_static.lib"))};
    } else {
        e += soLibrary(top + QStringLiteral("lib"), QStringLiteral("libcudart"), version, soname);
        e.append(file(top + QStringLiteral("lib/libcudart_static.a")));
    }
    return e;
}

inline QStringList cudnn8Subs()
{
    return {QStringLiteral("ops_infer"), QStringLiteral("ops_train"), QStringLiteral("cnn_infer"),
            QStringLiteral("cnn_train"), QStringLiteral("adv_infer"), QStringLiteral("adv_train")};
}

inline QStringList cudnn9Subs()
{
    return {QStringLiteral("graph"),
            QStringLiteral("engines_precompiled"),
            QStringLiteral("engines_runtime_compiled"),
            QStringLiteral("heuristic"),
            QStringLiteral("ops"),
            QStringLiteral("cnn"),
            QStringLiteral("adv")};
}

// cuDNN archives: major 7 (cuda/ top folder, single library), 8 old (8.0-8.2, cuda/), 8 new
// (8.3+, named top folder), 9. `drop` leaves one library out, to test incomplete sets.
inline QList<Entry> cudnnArchive(bool windows, const QString &version, bool oldShape, const QString &drop = {})
{
    const int major = version.section(u'.', 0, 0).toInt();
    const QString platform = windows ? QStringLiteral("windows-x86_64") : QStringLiteral("linux-x86_64");
    const QString top = oldShape ? QStringLiteral("cuda/")
                                 : QStringLiteral("cudnn-%1-%2_cuda11-archive/").arg(platform, version);
    QList<Entry> e{
        file(top + (oldShape ? QStringLiteral("NVIDIA_SLA_cuDNN_Support.txt") : QStringLiteral("LICENSE"))),
        file(top + (major >= 8 ? QStringLiteral("include/cudnn_version.h") : QStringLiteral("include/cudnn.h")))};
    QStringList subs = major == 8 ? cudnn8Subs() : major >= 9 ? cudnn9Subs() : QStringList();
    subs.prepend(QString());
    const QString full = version.section(u'.', 0, 2);
    for (const QString &sub : subs) {
        const QString base = sub.isEmpty() ? QStringLiteral("cudnn") : QStringLiteral("cudnn_") + sub;
        if (windows) {
            const QString dll = base + QStringLiteral("64_%1.dll").arg(major);
            if (dll != drop)
                e.append(file(top + QStringLiteral("bin/") + dll));
            e.append(file(top + QStringLiteral("lib/x64/") + base + QStringLiteral(".lib")));
        } else {
            const QString so = QStringLiteral("lib") + base;
            if (so + QStringLiteral(".so.%1").arg(major) == drop)
                continue;
            e += soLibrary(top + (oldShape ? QStringLiteral("lib64") : QStringLiteral("lib")), so, full,
                           QString::number(major), sub.isEmpty());
        }
    }
    if (!windows)
        e.append(file(top + (oldShape ? QStringLiteral("lib64") : QStringLiteral("lib"))
                      + QStringLiteral("/libcudnn_static.a")));
    return e;
}

} // namespace tfsetup::test
