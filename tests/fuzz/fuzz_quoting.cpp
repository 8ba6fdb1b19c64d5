// Launcher quoting: every quoting function must give text its consumer reads back as exactly the
// value (a folder name can hold anything a file system allows). Each consumer's reading rules are
// written out below as an independent decoder; a value that does not survive the round trip, or
// output that would end the consumer's line early, is a bug.

#include "fuzzsupport.h"
#include "install/launchers.h"

#include <optional>

using namespace tfsetup::core;

namespace {

// POSIX sh, "Quoting" (XCU 2.2): inside '…' every character is literal; outside, the quoting
// function may only produce \' between quoted parts.
std::optional<QString> readShell(const QString &text)
{
    QString out;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == u'\'')
                quoted = false;
            else
                out += c;
        } else if (c == u'\'') {
            quoted = true;
        } else if (c == u'\\' && i + 1 < text.size() && text.at(i + 1) == u'\'') {
            out += u'\'';
            ++i;
        } else {
            return std::nullopt; // an unquoted character the shell would interpret
        }
    }
    if (quoted)
        return std::nullopt;
    return out;
}

bool isPowerShellQuote(QChar c)
{
    return c == u'\'' || c == QChar(0x2018) || c == QChar(0x2019) || c == QChar(0x201a) || c == QChar(0x201b);
}

// PowerShell language specification, verbatim-string-literal: a single-quote character (any of
// five) ends the string unless doubled.
std::optional<QString> readPowerShell(const QString &text)
{
    if (text.size() < 2 || !isPowerShellQuote(text.front()) || !isPowerShellQuote(text.back()))
        return std::nullopt;
    const QString inner = text.mid(1, text.size() - 2);
    QString out;
    for (qsizetype i = 0; i < inner.size(); ++i) {
        const QChar c = inner.at(i);
        if (isPowerShellQuote(c)) {
            if (i + 1 >= inner.size() || !isPowerShellQuote(inner.at(i + 1)))
                return std::nullopt;
            ++i;
        }
        out += c;
    }
    return out;
}

// cmd.exe batch line `set "NAME=value"`, delayed expansion off: %% is one %, a lone % would
// start a variable reference; a quote or line break cannot be carried.
std::optional<QString> readBatchSet(const QString &name, const QString &line)
{
    const QString head = QStringLiteral("set \"") + name + u'=';
    if (!line.startsWith(head) || !line.endsWith(u'"') || line.size() < head.size() + 1)
        return std::nullopt;
    const QString inner = line.mid(head.size(), line.size() - head.size() - 1);
    QString out;
    for (qsizetype i = 0; i < inner.size(); ++i) {
        const QChar c = inner.at(i);
        if (c == u'"' || c == u'\n' || c == u'\r')
            return std::nullopt;
        if (c == u'%') {
            if (i + 1 >= inner.size() || inner.at(i + 1) != u'%')
                return std::nullopt;
            ++i;
        }
        out += c;
    }
    return out;
}

// Desktop Entry Specification 1.5: the string escapes (\s \n \t \r \\) apply to the whole value
// first, then the Exec quoting rule (\" \` \$ \\ inside "…"), and %% is a literal percent.
std::optional<QString> readDesktopExec(const QString &text)
{
    if (text.contains(u'\n') || text.contains(u'\r'))
        return std::nullopt; // would end the Exec= line
    QString unescaped;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        const QChar n = i + 1 < text.size() ? text.at(i + 1) : QChar();
        if (c == u'\\' && (n == u's' || n == u'n' || n == u't' || n == u'r' || n == u'\\')) {
            unescaped += n == u's' ? QChar(u' ')
                : n == u'n'        ? QChar(u'\n')
                : n == u't'        ? QChar(u'\t')
                : n == u'r'        ? QChar(u'\r')
                                   : n;
            ++i;
        } else {
            unescaped += c; // not a string escape: left for the quoting rule
        }
    }
    if (unescaped.size() < 2 || unescaped.front() != u'"' || unescaped.back() != u'"')
        return std::nullopt;
    const QString inner = unescaped.mid(1, unescaped.size() - 2);
    QString out;
    for (qsizetype i = 0; i < inner.size(); ++i) {
        QChar c = inner.at(i);
        if (c == u'\\') {
            if (i + 1 >= inner.size())
                return std::nullopt;
            c = inner.at(++i);
            if (c != u'"' && c != u'`' && c != u'$' && c != u'\\')
                return std::nullopt;
        } else if (c == u'"' || c == u'`' || c == u'$') {
            return std::nullopt; // reserved characters must be escaped inside the quotes
        } else if (c == u'%') {
            if (i + 1 >= inner.size() || inner.at(i + 1) != u'%')
                return std::nullopt;
            ++i;
        }
        out += c;
    }
    return out;
}

// The whole launchers, with the value as a profile variable: the templates are filled once, so
// the value appears exactly as its quoting function gave it, whatever placeholder it resembles.
void checkLaunchers(const QString &value, bool carriable)
{
    static const auto loaded = LauncherSettings::load();
    TFSETUP_FUZZ_CHECK(loaded.ok());
    LauncherSettings settings = *loaded;
    const QString name = QStringLiteral("TFSETUP_FUZZ_VALUE");
    settings.variables.append({name, value});

    LauncherContext linux;
    linux.os = OsFamily::Linux;
    linux.environmentPath = QStringLiteral("/envs/tf");
    const auto shFiles = LauncherWriter::launchers(settings, linux);
    TFSETUP_FUZZ_CHECK(shFiles.ok());
    const QByteArray shLine =
        (name + u'=' + quoting::shell(value) + QStringLiteral("\nexport ") + name + u'\n').toUtf8();
    for (const GeneratedFile &f : *shFiles)
        TFSETUP_FUZZ_CHECK(f.contents.contains(shLine));

    LauncherContext windows;
    windows.os = OsFamily::Windows;
    windows.environmentPath = QStringLiteral("C:/envs/tf");
    const auto winFiles = LauncherWriter::launchers(settings, windows);
    tfsetup::fuzz::checkResult(winFiles);
    TFSETUP_FUZZ_CHECK(winFiles.ok() == carriable);
    if (!winFiles.ok())
        return;
    bool ascii = true;
    for (const QChar c : value)
        ascii = ascii && c.unicode() <= 0x7f;
    const QByteArray batLine = (*quoting::batchSet(name, value) + QStringLiteral("\r\n")).toUtf8();
    QString psLine = QStringLiteral("$env:") + name + QStringLiteral(" = ") + quoting::powershell(value) + u'\n';
    psLine.replace(u'\n', QStringLiteral("\r\n"));
    for (const GeneratedFile &f : *winFiles) {
        if (f.path.endsWith(QStringLiteral(".bat"))) {
            TFSETUP_FUZZ_CHECK(f.contents.contains(batLine));
            // The code page switches to UTF-8 exactly when the launcher holds other than ASCII.
            TFSETUP_FUZZ_CHECK(f.contents.startsWith("@echo off")
                               && f.contents.contains("\r\nchcp 65001 >nul\r\n") == !ascii);
        } else if (f.path.endsWith(QStringLiteral(".ps1"))) {
            TFSETUP_FUZZ_CHECK(f.contents.contains(psLine.toUtf8()));
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString value = QString::fromUtf8(tfsetup::fuzz::bytes(data, size));

    TFSETUP_FUZZ_CHECK(readShell(quoting::shell(value)) == value);
    TFSETUP_FUZZ_CHECK(readPowerShell(quoting::powershell(value)) == value);

    const QString name = QStringLiteral("TFSETUP_ENV");
    const auto line = quoting::batchSet(name, value);
    tfsetup::fuzz::checkResult(line);
    const bool carriable = !value.contains(u'"') && !value.contains(u'\n') && !value.contains(u'\r');
    TFSETUP_FUZZ_CHECK(line.ok() == carriable);
    if (line.ok())
        TFSETUP_FUZZ_CHECK(readBatchSet(name, *line) == value);

    TFSETUP_FUZZ_CHECK(readDesktopExec(quoting::desktopExecArgument(value)) == value);

    checkLaunchers(value, carriable);
    return 0;
}
