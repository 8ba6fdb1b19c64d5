#pragma once

// The generated file (launcher, kernelspec) at `path` in a list that LauncherWriter made, or
// nullptr: tests look one up by the path the product gives it.

#include "install/launchers.h"

#include <algorithm>

namespace tfsetup::test {

inline const core::GeneratedFile *findGenerated(const QList<core::GeneratedFile> &files, const QString &path)
{
    const auto found = std::find_if(files.begin(), files.end(),
                                    [&](const core::GeneratedFile &f) { return f.path == path; });
    return found == files.end() ? nullptr : &*found;
}

} // namespace tfsetup::test
