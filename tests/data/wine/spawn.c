/* Starts one Windows process the way a Windows program does, for
 * tests/core/test_wine_launchers.cpp: Wine builds a Windows command line from a Unix argv by its
 * own quoting rules and fills PATH from its registry, so a test that needs an exact command line
 * (what a user types into cmd, what Python's subprocess passes) and an exact PATH starts this
 * program instead and gives it both in a file.
 *
 * The file (UTF-8, one item a line): "cmd <command line>" (required), "cwd <folder>",
 * "stdin <file>", "set NAME=VALUE", "unset NAME". The variables are changed in this process and
 * inherited by the child; the exit status is the child's, 120 and up when this program failed.
 *
 * Built with MinGW-w64: x86_64-w64-mingw32-gcc -municode spawn.c -o spawn.exe */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

int wmain(int argc, wchar_t **argv)
{
    if (argc != 2)
        return 120;
    FILE *in = _wfopen(argv[1], L"rb");
    if (!in)
        return 121;
    static char bytes[1 << 20];
    const size_t size = fread(bytes, 1, sizeof bytes - 1, in);
    fclose(in);
    bytes[size] = 0;
    static wchar_t text[1 << 20];
    if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, bytes, -1, text, 1 << 20))
        return 122;

    wchar_t *commandLine = NULL;
    wchar_t *cwd = NULL;
    HANDLE input = INVALID_HANDLE_VALUE;
    for (wchar_t *line = text; line && *line;) {
        wchar_t *next = wcschr(line, L'\n');
        if (next)
            *next++ = 0;
        const size_t length = wcslen(line);
        if (length && line[length - 1] == L'\r')
            line[length - 1] = 0;
        if (wcsncmp(line, L"cmd ", 4) == 0) {
            commandLine = line + 4;
        } else if (wcsncmp(line, L"cwd ", 4) == 0) {
            cwd = line + 4;
        } else if (wcsncmp(line, L"stdin ", 6) == 0) {
            SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
            input = CreateFileW(line + 6, GENERIC_READ, FILE_SHARE_READ, &inherit, OPEN_EXISTING, 0, NULL);
            if (input == INVALID_HANDLE_VALUE)
                return 123;
        } else if (wcsncmp(line, L"set ", 4) == 0) {
            wchar_t *equals = wcschr(line + 5, L'=');
            if (!equals)
                return 124;
            *equals = 0;
            if (!SetEnvironmentVariableW(line + 4, equals + 1))
                return 124;
        } else if (wcsncmp(line, L"unset ", 6) == 0) {
            SetEnvironmentVariableW(line + 6, NULL);
        } else if (*line) {
            return 125;
        }
        line = next;
    }
    if (!commandLine)
        return 126;

    STARTUPINFOW startup;
    ZeroMemory(&startup, sizeof startup);
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = input != INVALID_HANDLE_VALUE ? input : GetStdHandle(STD_INPUT_HANDLE);
    startup.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION process;
    if (!CreateProcessW(NULL, commandLine, NULL, NULL, TRUE, 0, NULL, cwd, &startup, &process))
        return 127;
    WaitForSingleObject(process.hProcess, INFINITE);
    DWORD status = 128;
    GetExitCodeProcess(process.hProcess, &status);
    CloseHandle(process.hThread);
    CloseHandle(process.hProcess);
    return (int)status;
}
