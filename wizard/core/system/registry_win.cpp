#include "system/realsystem.h"

#include <windows.h>

#include <vector>

namespace tfsetup::core {

namespace {

struct OpenKey {
    HKEY handle = nullptr;
    ~OpenKey()
    {
        if (handle)
            RegCloseKey(handle);
    }
};

bool openKey(const QString &key, OpenKey &out)
{
    QString k = key;
    k.replace(u'/', u'\\');
    const QString rootName = k.section(u'\\', 0, 0).toUpper();
    const QString sub = k.section(u'\\', 1);
    HKEY root = nullptr;
    if (rootName == u"HKLM" || rootName == u"HKEY_LOCAL_MACHINE")
        root = HKEY_LOCAL_MACHINE;
    else if (rootName == u"HKCU" || rootName == u"HKEY_CURRENT_USER")
        root = HKEY_CURRENT_USER;
    else
        return false;
    return RegOpenKeyExW(root, reinterpret_cast<LPCWSTR>(sub.utf16()), 0, KEY_READ | KEY_WOW64_64KEY, &out.handle)
        == ERROR_SUCCESS;
}

} // namespace

std::optional<QVariant> readNativeRegistryValue(const QString &key, const QString &name)
{
    OpenKey k;
    if (!openKey(key, k))
        return std::nullopt;
    const std::wstring valueName = name.toStdWString();
    DWORD type = 0;
    DWORD size = 0;
    if (RegQueryValueExW(k.handle, valueName.c_str(), nullptr, &type, nullptr, &size) != ERROR_SUCCESS)
        return std::nullopt;
    std::vector<BYTE> data(size + sizeof(wchar_t) * 2, 0);
    if (RegQueryValueExW(k.handle, valueName.c_str(), nullptr, &type, data.data(), &size) != ERROR_SUCCESS)
        return std::nullopt;
    switch (type) {
    case REG_SZ:
    case REG_EXPAND_SZ: return QVariant(QString::fromWCharArray(reinterpret_cast<const wchar_t *>(data.data())));
    case REG_MULTI_SZ: {
        QStringList list;
        const wchar_t *p = reinterpret_cast<const wchar_t *>(data.data());
        while (*p) {
            const QString s = QString::fromWCharArray(p);
            list.append(s);
            p += s.size() + 1;
        }
        return QVariant(list);
    }
    case REG_DWORD: return QVariant(qulonglong(*reinterpret_cast<const DWORD *>(data.data())));
    case REG_QWORD: return QVariant(qulonglong(*reinterpret_cast<const unsigned long long *>(data.data())));
    default: return QVariant(QByteArray(reinterpret_cast<const char *>(data.data()), int(size)));
    }
}

QStringList readNativeRegistrySubkeys(const QString &key)
{
    OpenKey k;
    if (!openKey(key, k))
        return {};
    QStringList names;
    wchar_t buffer[256];
    for (DWORD i = 0;; ++i) {
        DWORD len = DWORD(std::size(buffer));
        if (RegEnumKeyExW(k.handle, i, buffer, &len, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS)
            break;
        names.append(QString::fromWCharArray(buffer, int(len)));
    }
    names.sort(Qt::CaseInsensitive);
    return names;
}

} // namespace tfsetup::core
