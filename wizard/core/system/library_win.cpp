#include "system/realsystem.h"

#include <windows.h>

namespace tfsetup::core {

namespace {

QString lastErrorText(DWORD code)
{
    wchar_t *buffer = nullptr;
    const DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM
                                       | FORMAT_MESSAGE_IGNORE_INSERTS,
                                   nullptr, code, 0, reinterpret_cast<LPWSTR>(&buffer), 0, nullptr);
    QString text = n ? QString::fromWCharArray(buffer, int(n)).trimmed() : QString();
    if (buffer)
        LocalFree(buffer);
    return QStringLiteral("error %1: %2").arg(code).arg(text);
}

class WindowsLibrary final : public SharedLibrary {
public:
    explicit WindowsLibrary(HMODULE module)
        : m_module(module)
    {}
    ~WindowsLibrary() override { FreeLibrary(m_module); }
    WindowsLibrary(const WindowsLibrary &) = delete;
    WindowsLibrary &operator=(const WindowsLibrary &) = delete;

    void *resolve(const char *symbol) override { return reinterpret_cast<void *>(GetProcAddress(m_module, symbol)); }

    QString path() const override
    {
        wchar_t buffer[32768];
        const DWORD n = GetModuleFileNameW(m_module, buffer, DWORD(std::size(buffer)));
        return n ? QString::fromWCharArray(buffer, int(n)) : QString();
    }

private:
    HMODULE m_module;
};

} // namespace

LibraryLoad loadNativeLibrary(const QString &name)
{
    // TensorFlow opens its DLLs with LOAD_WITH_ALTERED_SEARCH_PATH and a bare name, so the
    // standard search order (application folder, System32, Windows, current folder, PATH)
    // applies; probing the same way finds the same copy TensorFlow would.
    const std::wstring wide = name.toStdWString();
    const UINT oldMode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
    HMODULE module = LoadLibraryExW(wide.c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
    const DWORD err = module ? 0 : GetLastError();
    SetErrorMode(oldMode);
    if (!module)
        return {nullptr, lastErrorText(err)};
    return {std::make_unique<WindowsLibrary>(module), {}};
}

} // namespace tfsetup::core
