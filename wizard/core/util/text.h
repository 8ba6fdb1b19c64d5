#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QString>
#include <QStringView>

namespace tfsetup::core {

// Text from outside tfsetup (a pasted log, pip's output, a record, a name) shown on a terminal,
// saved in a report or put on a page. Every character that could act instead of being read is
// made visible as a \uXXXX escape: control characters but line feed and tab (ESC starts a
// terminal's escape sequences, CR returns to the start of the line and lets a later text
// overwrite an earlier one, BS erases), DEL, the C1 controls (U+009B is a CSI on some
// terminals), the line and paragraph separators and the bidirectional overrides and isolates
// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F) that reorder what is shown. A CR right before a
// line feed is a Windows line end and is dropped. "\u001b" is also the JSON spelling of that
// character, so JSON text passed through stays the same document.
QString visibleText(QStringView text);
bool needsVisibleEscape(char32_t c);

// A log as a Windows or Linux tool saved it: UTF-8 (with or without its BOM), UTF-16 with a BOM
// (little or big endian), UTF-16 without one (what PowerShell 5's `>` and Out-File write, found
// by its NUL bytes), and else the machine's local code page. Text that none of these reads
// (replacement characters in most lines) is refused (code text_encoding_unknown) rather than read
// as nothing: a log that yields no lines must never come out as "no problems found".
Result<QString> decodeTextInput(const QByteArray &bytes, const QString &what);

// Secrets a URL may carry, masked for every record, log and report: the password of a
// user:password@ (a proxy's or an index's; a lone user name before @ is an index token too, as
// pip's docs show, and is masked), and the values of query parameters that name a secret
// (token, access_token, password, key, api_key, auth, signature, …). Everything else stays
// ("https://***@pypi.example.org/simple/"). Applies to each URL in a longer text.
QString redactSecrets(const QString &text);
// Whether a text holds a URL secret redactSecrets() would mask.
bool holdsSecret(const QString &text);

} // namespace tfsetup::core
