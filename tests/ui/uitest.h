#pragma once

// Helpers the wizard's tests share.

#include "catalog/sourcecatalog.h"
#include "system/rootedsystem.h"

#include <QString>
#include <QUrl>
#include <QWidget>

namespace tfsetup::test {

// The child widget of that object name and type; a test that cannot find it stops right there.
template<typename T>
T *child(QWidget *parent, const QString &name)
{
    auto *widget = parent->findChild<T *>(name);
    if (!widget)
        qFatal("no child %s", qPrintable(name));
    return widget;
}

// Every PyPI mirror preset of the sources catalog, as origin overrides that point at a closed
// loopback port: a page that measures the presets (Options in Chinese) then makes no request
// beyond this machine, and finds none of them reachable.
inline QList<std::pair<QString, QUrl>> presetsOnClosedPort()
{
    QList<std::pair<QString, QUrl>> out;
    if (const auto catalog = core::SourceCatalog::load()) {
        for (const core::PypiMirror &m : catalog->pypiMirrors())
            out.append({QStringLiteral("pypi:") + m.name, QUrl(QStringLiteral("http://127.0.0.1:1/simple"))});
    }
    return out;
}

// The fixture machine the page tests share (tests/data/fixtures/windows-two-toolkits): a Windows
// 10 computer with an RTX 3060 and two CUDA toolkits. Null when the fixture cannot be opened.
inline std::unique_ptr<core::RootedSystem> windowsFixture()
{
    const QString fixture = qEnvironmentVariable("TFSETUP_TEST_DATA")
        + QStringLiteral("/fixtures/windows-two-toolkits");
    auto system = core::RootedSystem::open(fixture + QStringLiteral("/root"), core::OsFamily::Windows,
                                           fixture + QStringLiteral("/env"));
    return system ? std::move(system.value()) : nullptr;
}

} // namespace tfsetup::test
