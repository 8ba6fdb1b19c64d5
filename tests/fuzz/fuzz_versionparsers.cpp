// The readers of files and outputs the platform scanners look at (os-release, /proc, version.json,
// version.txt, cuda.h, cudnn headers, `py -0p`, pyvenv.cfg, patchlevel.h, the interpreter probe)
// and of the names they take versions from. Every version that comes back is dotted numbers.

#include "detect/versionparsers.h"
#include "fuzzsupport.h"

using namespace tfsetup::core;
using tfsetup::fuzz::matches;

namespace {

void checkVersion(const Result<QString> &version, const char *pattern)
{
    tfsetup::fuzz::checkResult(version);
    if (version.ok())
        TFSETUP_FUZZ_CHECK(matches(*version, pattern));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto [selector, input] = tfsetup::fuzz::select(data, size, 8);
    const QString text = QString::fromUtf8(input);
    switch (selector) {
    case 0: {
        const auto os = parsers::parseOsRelease(input);
        tfsetup::fuzz::checkResult(os);
        const auto kernel = parsers::parseKernelVersion(input);
        tfsetup::fuzz::checkResult(kernel);
        if (kernel.ok())
            TFSETUP_FUZZ_CHECK(kernel->wsl >= 0 && kernel->wsl <= 2);
        break;
    }
    case 1: {
        const auto cpu = parsers::parseProcCpuInfo(input);
        tfsetup::fuzz::checkResult(cpu);
        if (cpu.ok() && !cpu->hasFlags)
            TFSETUP_FUZZ_CHECK(!cpu->avx && !cpu->avx2 && !cpu->fma && !cpu->avx512f);
        break;
    }
    case 2:
        checkVersion(parsers::parseCudaVersionJson(input), "\\d+\\.\\d+(\\.\\d+)*");
        checkVersion(parsers::parseCudaVersionTxt(input), "\\d+\\.\\d+(\\.\\d+)?");
        break;
    case 3:
        checkVersion(parsers::parseCudaHeaderVersion(input), "\\d+\\.\\d+");
        checkVersion(parsers::parseCudnnHeader(input), "\\d+\\.\\d+\\.\\d+");
        checkVersion(parsers::parsePythonPatchlevel(input), "\\d+\\.\\d+\\.\\d+");
        break;
    case 4: {
        const auto list = parsers::parsePyLauncherList(input);
        tfsetup::fuzz::checkResult(list);
        if (list.ok()) {
            TFSETUP_FUZZ_CHECK(!list->isEmpty());
            for (const parsers::PyLauncherEntry &entry : *list) {
                TFSETUP_FUZZ_CHECK(!entry.path.isEmpty());
                TFSETUP_FUZZ_CHECK(entry.bits == 0 || entry.bits == 32 || entry.bits == 64);
                TFSETUP_FUZZ_CHECK(entry.version.isEmpty() || matches(entry.version, "\\d+\\.\\d+"));
            }
        }
        break;
    }
    case 5: {
        checkVersion(parsers::parsePyvenvCfgVersion(input), "\\d+(\\.\\d+)*.*");
        const auto probe = parsers::parsePythonProbe(input);
        tfsetup::fuzz::checkResult(probe);
        if (probe.ok())
            TFSETUP_FUZZ_CHECK(probe->bits == 32 || probe->bits == 64);
        break;
    }
    case 6:
        checkVersion(parsers::cudaVersionFromFolderName(text), "\\d+\\.\\d+");
        checkVersion(parsers::cudaVersionFromEnvName(text), "\\d+\\.\\d+");
        checkVersion(parsers::cudnnVersionFromLibraryName(text), "\\d+(\\.\\d+)*");
        checkVersion(parsers::pythonVersionFromCondaMetaName(text), "\\d+\\.\\d+\\.\\d+");
        checkVersion(parsers::pythonVersionFromDllName(text), "\\d\\.\\d+");
        checkVersion(parsers::pythonVersionFromName(text), "\\d+\\.\\d+");
        break;
    case 7: {
        // Registry values: three strings separated by NUL bytes.
        const QList<QByteArray> parts = input.split('\0');
        const auto line = parsers::windowsVersionText(
            QString::fromUtf8(parts.value(0)), QString::fromUtf8(parts.value(1)), QString::fromUtf8(parts.value(2)));
        tfsetup::fuzz::checkResult(line);
        if (line.ok())
            TFSETUP_FUZZ_CHECK(!line->isEmpty());
        break;
    }
    }
    return 0;
}
