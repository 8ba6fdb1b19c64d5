#pragma once

#include <QString>

namespace tfsetup::core {

// The most bytes (UTF-8) a name may have: what tfsetup adds to it still fits a file system's 255.
constexpr qsizetype maxPathNameBytes = 200;

// A name that becomes one component of a path tfsetup writes (an environment, a kernel, a
// bundle artifact): non-empty, at most maxPathNameBytes of UTF-8, no '/', '\\', ':', control
// characters or characters Windows forbids, no '~', '$', '%' or '`' (a shell or cmd would read
// them), no look-alike of a slash or a dot (U+FF0F, U+2215, U+2024, …), no bidirectional or
// zero-width character, not "." or "..", not starting with a dot (tfsetup's own staging and
// backup folders do), no trailing dot or space and not a Windows device name (CON, NUL, COM1,
// CONIN$, …); the same rules hold for its NFKC form. Checked once, where the name is read from a
// document or the command line.
bool isSafePathName(const QString &name);

// A relative path that stays below the folder it is joined to: '/'-separated, not absolute, no
// drive, no backslash, no empty, "." or ".." component, no control characters. (Other characters
// are allowed: pip installs files with any name.)
bool isSafeRelativeName(const QString &path);

// Jupyter lists a kernel only when its folder name matches [a-z0-9._-]+, and it folds the name to
// lower case first (jupyter_client's kernelspec._list_kernels_in), so "TF" and "tf" are one kernel
// and one of them disappears. isJupyterKernelName says whether a name is one Jupyter lists as
// itself: lower case only. jupyterKernelName makes one from an environment name: lower case,
// every other character a '-', and, when characters were replaced or folded, a short hash of the
// original, so "TF" and "tf", or two Chinese names, do not become the same kernel.
bool isJupyterKernelName(const QString &name);
QString jupyterKernelName(const QString &environmentName);

} // namespace tfsetup::core
