#pragma once

#include "system/systemview.h"

namespace tfsetup::core {

// The machine tfsetup runs on. The only place where the host platform is decided at compile
// time; its OS-specific parts live in *_posix.cpp and *_win.cpp files, one per concern.
class RealSystem final : public SystemView {
public:
    RealSystem();

    OsFamily os() const override;
    QString arch() const override;
    QString hostPath(const QString &path) const override;
    QString env(const QString &name) const override;
    QStringList envNames() const override;
    QCoro::Task<ProcessResult> run(QString program, QStringList arguments, std::chrono::milliseconds timeout) override;
    QCoro::Task<ProcessResult> runWatched(ProcessRequest request) override;
    LibraryLoad loadLibrary(const QString &name) override;
    std::optional<QVariant> registryValue(const QString &key, const QString &name) const override;
    QStringList registrySubkeys(const QString &key) const override;
    std::optional<CpuIdFeatures> cpuid() const override;
};

// Implemented per platform (library_posix.cpp / library_win.cpp, registry_win.cpp).
LibraryLoad loadNativeLibrary(const QString &name);
std::optional<QVariant> readNativeRegistryValue(const QString &key, const QString &name);
QStringList readNativeRegistrySubkeys(const QString &key);

} // namespace tfsetup::core
