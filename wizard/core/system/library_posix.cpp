#include "system/realsystem.h"

#include <dlfcn.h>
#include <link.h>

namespace tfsetup::core {

namespace {

class PosixLibrary final : public SharedLibrary {
public:
    explicit PosixLibrary(void *handle)
        : m_handle(handle)
    {}
    ~PosixLibrary() override { dlclose(m_handle); }
    PosixLibrary(const PosixLibrary &) = delete;
    PosixLibrary &operator=(const PosixLibrary &) = delete;

    void *resolve(const char *symbol) override { return dlsym(m_handle, symbol); }

    QString path() const override
    {
        struct link_map *map = nullptr;
        if (dlinfo(m_handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
            return QString::fromLocal8Bit(map->l_name);
        return {};
    }

private:
    void *m_handle;
};

} // namespace

LibraryLoad loadNativeLibrary(const QString &name)
{
    dlerror();
    // RTLD_LOCAL keeps probed symbols out of the global namespace; RTLD_NOW surfaces missing
    // dependencies at load time, as TensorFlow's own loader sees them.
    // RTLD_NODELETE: NVIDIA's libraries are not written to be unloaded (TensorFlow never does);
    // unmapping them strands what they allocated, and can run their destructors twice.
    void *handle = dlopen(name.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
        const char *err = dlerror();
        return {nullptr, err ? QString::fromLocal8Bit(err) : QStringLiteral("dlopen failed")};
    }
    return {std::make_unique<PosixLibrary>(handle), {}};
}

} // namespace tfsetup::core
