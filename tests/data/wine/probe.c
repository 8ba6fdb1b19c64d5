/* Stands in for an environment's python.exe when tests/core/test_wine_launchers.cpp runs the
 * Windows launchers and the kernelspec under Wine. Each run appends one JSON line to the file
 * named by TFSETUP_PROBE_OUT: the command line as the process received it, its arguments as the
 * C runtime split them (the same rules Python's own start-up uses), the working folder and every
 * environment variable, all as UTF-8.
 *
 * "-c" "import <module>" is answered as Python would: exit status 0 when <module> is listed in
 * TFSETUP_PROBE_IMPORTS (comma-separated), 1 otherwise. Any other run exits with
 * TFSETUP_PROBE_EXIT (default 0), so a test sees whether the launcher passes the status on.
 *
 * Built with MinGW-w64: x86_64-w64-mingw32-gcc -municode probe.c -o python.exe */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static void writeJsonString(FILE *out, const wchar_t *text)
{
    fputc('"', out);
    for (const wchar_t *p = text; *p; ++p) {
        const wchar_t c = *p;
        if (c == L'"' || c == L'\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", (unsigned)c);
        } else {
            /* One UTF-16 unit or a surrogate pair at a time. */
            int units = (c >= 0xD800 && c <= 0xDBFF && p[1] >= 0xDC00 && p[1] <= 0xDFFF) ? 2 : 1;
            char bytes[8];
            const int n = WideCharToMultiByte(CP_UTF8, 0, p, units, bytes, sizeof bytes, NULL, NULL);
            fwrite(bytes, 1, (size_t)(n > 0 ? n : 0), out);
            p += units - 1;
        }
    }
    fputc('"', out);
}

static int listed(const wchar_t *list, const wchar_t *name)
{
    const size_t length = wcslen(name);
    for (const wchar_t *p = list; p && *p;) {
        const wchar_t *end = wcschr(p, L',');
        const size_t n = end ? (size_t)(end - p) : wcslen(p);
        if (n == length && wcsncmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int wmain(int argc, wchar_t **argv)
{
    wchar_t outPath[32768];
    if (!GetEnvironmentVariableW(L"TFSETUP_PROBE_OUT", outPath, 32768))
        return 90;
    FILE *out = _wfopen(outPath, L"ab");
    if (!out)
        return 91;

    fputs("{\"commandLine\":", out);
    writeJsonString(out, GetCommandLineW());
    fputs(",\"argv\":[", out);
    for (int i = 0; i < argc; ++i) {
        if (i)
            fputc(',', out);
        writeJsonString(out, argv[i]);
    }
    wchar_t module[32768];
    fputs("],\"module\":", out);
    writeJsonString(out, GetModuleFileNameW(NULL, module, 32768) ? module : L"");
    wchar_t cwd[32768];
    fputs(",\"cwd\":", out);
    writeJsonString(out, GetCurrentDirectoryW(32768, cwd) ? cwd : L"");
    fputs(",\"env\":{", out);
    wchar_t *block = GetEnvironmentStringsW();
    int first = 1;
    for (wchar_t *entry = block; *entry; entry += wcslen(entry) + 1) {
        /* Entries such as "=C:=C:\\" (a drive's current folder) start with '='. */
        wchar_t *equals = wcschr(entry + 1, L'=');
        if (entry[0] == L'=' || !equals)
            continue;
        *equals = 0;
        if (!first)
            fputc(',', out);
        first = 0;
        writeJsonString(out, entry);
        fputc(':', out);
        writeJsonString(out, equals + 1);
        *equals = L'=';
    }
    FreeEnvironmentStringsW(block);
    fputs("}}\n", out);
    fclose(out);

    if (argc == 3 && wcscmp(argv[1], L"-c") == 0 && wcsncmp(argv[2], L"import ", 7) == 0) {
        wchar_t imports[32768];
        if (!GetEnvironmentVariableW(L"TFSETUP_PROBE_IMPORTS", imports, 32768))
            imports[0] = 0;
        return listed(imports, argv[2] + 7) ? 0 : 1;
    }
    wchar_t status[32];
    if (GetEnvironmentVariableW(L"TFSETUP_PROBE_EXIT", status, 32))
        return _wtoi(status);
    return 0;
}
