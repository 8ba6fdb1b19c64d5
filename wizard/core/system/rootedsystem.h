#pragma once

#include "system/systemview.h"

#include <QHash>
#include <QJsonObject>
#include <QList>

namespace tfsetup::core {

// A system view over a fixture directory, imitating Windows or Linux whatever the host is.
//
// Conventions (relied on by tests and the CLI's --root/--env-file/--os):
//  - ROOT is the file-system root: Linux "/usr/local/cuda" is ROOT/usr/local/cuda; a Windows
//    drive "C:" is the folder ROOT/C, looked up case-insensitively as Windows does.
//  - The environment comes from an env file of KEY=VALUE lines ('#' comments; Windows PATH
//    separated by ';').
//  - What is not a file lives in ROOT/.fixture/system.json (all optional):
//      { "arch": "x86_64",
//        "registry": { "HKLM\\SOFTWARE\\…": { "ValueName": "text" | number | ["multi", "sz"] } },
//        "cpuid": { "vendor": "GenuineIntel", "brand": "…", "avx": true, … },
//        "commands": [ { "program": "nvidia-smi", "args": ["--query-gpu=…", "*"],
//                        "stdout": "…" | "stdout_file": "relative/to/.fixture",
//                        "stderr": "…", "exit": 0, "timeout": false } ],
//        "disks": [ { "path": "C:/", "available": 500000000000 } ] }
//    A command's program matches by base name (".exe" ignored, case-insensitive on Windows);
//    "args" absent matches any arguments, "*" as the last argument matches any rest.
//  - Free disk space is what "disks" declares (bytes; the longest matching "path" holds a folder);
//    a folder on no declared disk cannot be measured, as on a volume that does not say. The
//    host's own free space never shows through: a fixture's outcome must not depend on it.
//  - Shared libraries cannot be loaded from a fixture; loadLibrary reports why. Tests that need
//    a loadable library subclass this view and override loadLibrary().
class RootedSystem : public SystemView {
public:
    RootedSystem(QString root, OsFamily os, QHash<QString, QString> environment);

    // Reads KEY=VALUE lines. Keys are case-insensitive on Windows.
    static Result<QHash<QString, QString>> readEnvFile(const QString &path);
    static Result<std::unique_ptr<RootedSystem>> open(const QString &root, OsFamily os, const QString &envFile);

    QString root() const { return m_root; }

    OsFamily os() const override { return m_os; }
    QString arch() const override;
    QString hostPath(const QString &path) const override;
    QString env(const QString &name) const override;
    QStringList envNames() const override;
    QCoro::Task<ProcessResult> run(QString program, QStringList arguments, std::chrono::milliseconds timeout) override;
    LibraryLoad loadLibrary(const QString &name) override;
    std::optional<QVariant> registryValue(const QString &key, const QString &name) const override;
    QStringList registrySubkeys(const QString &key) const override;
    std::optional<CpuIdFeatures> cpuid() const override;
    std::optional<DiskSpace> diskSpace(const QString &path) const override;

private:
    void loadFixtureDescription();
    QString resolveCaseInsensitive(const QString &hostPath) const;

    QString m_root;
    OsFamily m_os;
    QHash<QString, QString> m_env; // keys upper-cased on Windows
    QJsonObject m_description;
};

} // namespace tfsetup::core
