// A lab profile (install/labprofile.h) comes from a lab server, a share or a USB stick, and
// decides where tfsetup installs, under which names and with which mirrors: outside data. The
// first byte picks the computer it is read on (0: Linux, 1: Windows; each with a home folder,
// a Python on PATH, and no USERPROFILE on Linux, so "${USERPROFILE}/envs" is undefined there).
// An accepted profile names its environment and kernel with plain names; the install it makes
// lies below a full install folder; a refused one says why, and a refusal by the shape check
// names the field.

#include "fuzzsupport.h"
#include "install/labprofile.h"
#include "system/rootedsystem.h"
#include "util/names.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>

using namespace tfsetup::core;

namespace {

void put(const QString &path, const QByteArray &bytes)
{
    TFSETUP_FUZZ_CHECK(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile f(path);
    TFSETUP_FUZZ_CHECK(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    TFSETUP_FUZZ_CHECK(f.write(bytes) == bytes.size());
}

bool isFullPath(const QString &path, OsFamily os)
{
    if (os == OsFamily::Windows) {
        return (path.size() >= 3 && path.at(0).isLetter() && path.at(1) == u':' && path.at(2) == u'/')
            || path.startsWith(QStringLiteral("//"));
    }
    return path.startsWith(u'/');
}

bool hasControlCharacter(const QString &text)
{
    for (const QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return true;
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir sandbox;
    static bool made = false;
    TFSETUP_FUZZ_CHECK(sandbox.isValid());
    if (!made) {
        put(sandbox.filePath(QStringLiteral("linux/usr/bin/python3.11")), "#!/bin/sh\n");
        put(sandbox.filePath(QStringLiteral("linux/home/student/.keep")), {});
        put(sandbox.filePath(QStringLiteral("windows/C/Python311/python.exe")), "MZ");
        put(sandbox.filePath(QStringLiteral("windows/C/Users/student/.keep")), {});
        // The profile's folder, with the lock file a profile may name beside it.
        put(sandbox.filePath(QStringLiteral("profiles/requirements.lock.txt")),
            "tensorflow==2.15.1 --hash=sha256:" + QByteArray(64, 'a') + '\n');
        made = true;
    }
    const auto [selector, input] = tfsetup::fuzz::select(data, size, 2);
    const OsFamily os = selector == 1 ? OsFamily::Windows : OsFamily::Linux;
    static const RootedSystem linuxView(sandbox.filePath(QStringLiteral("linux")), OsFamily::Linux,
                                        {{QStringLiteral("HOME"), QStringLiteral("/home/student")},
                                         {QStringLiteral("PATH"), QStringLiteral("/usr/bin")}});
    static const RootedSystem windowsView(
        sandbox.filePath(QStringLiteral("windows")), OsFamily::Windows,
        {{QStringLiteral("USERPROFILE"), QStringLiteral("C:\\Users\\student")},
         {QStringLiteral("APPDATA"), QStringLiteral("C:\\Users\\student\\AppData\\Roaming")},
         {QStringLiteral("PATH"), QStringLiteral("C:\\Python311")}});
    const SystemView &system = os == OsFamily::Windows ? static_cast<const SystemView &>(windowsView)
                                                       : static_cast<const SystemView &>(linuxView);

    const QJsonDocument document = QJsonDocument::fromJson(input);
    const QString path = sandbox.filePath(QStringLiteral("profiles/lab.json"));
    const auto profile = LabProfile::fromJson(document.object(), path);
    tfsetup::fuzz::checkResult(profile);
    if (!profile.ok()) {
        // JsonShape::error: the detail is "<field> <problem>", and the message names the field.
        const QString field = profile.error().detail.section(u' ', 0, 0);
        if (profile.error().code == u"profile_incomplete" && !field.isEmpty())
            TFSETUP_FUZZ_CHECK(profile.error().message.contains(u'"' + field + u'"'));
        return 0;
    }
    TFSETUP_FUZZ_CHECK(isSafePathName(profile->environment));
    TFSETUP_FUZZ_CHECK(profile->kernelName.isEmpty() || isSafePathName(profile->kernelName));
    TFSETUP_FUZZ_CHECK(!profile->route.isEmpty());

    const auto spec = profile->toSpec(system);
    tfsetup::fuzz::checkResult(spec);
    if (spec.ok()) {
        // Below a full install folder, in a folder of its own; no variable left unexpanded.
        TFSETUP_FUZZ_CHECK(isFullPath(spec->prefix, os));
        TFSETUP_FUZZ_CHECK(!hasControlCharacter(spec->prefix));
        TFSETUP_FUZZ_CHECK(spec->environmentPath() == SystemView::join(spec->prefix, spec->name));
        TFSETUP_FUZZ_CHECK(isSafePathName(spec->name));
        TFSETUP_FUZZ_CHECK(spec->kernelName.isEmpty() || isSafePathName(spec->kernelName));
    } else if (spec.error().code == u"profile_variable_undefined") {
        TFSETUP_FUZZ_CHECK(spec.error().message.contains(QStringLiteral("${")));
    }
    // The same install folder given on the command line instead.
    const auto overridden = profile->toSpec(system, profile->installFolder);
    tfsetup::fuzz::checkResult(overridden);
    if (overridden.ok())
        TFSETUP_FUZZ_CHECK(isFullPath(overridden->prefix, os));
    return 0;
}
