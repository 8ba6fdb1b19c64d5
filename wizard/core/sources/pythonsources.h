#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace tfsetup::core {

// Readers for the two places Python checksums are published. Both take untrusted bytes
// (a server's answer) and never fail loudly: a line or record that does not fit is skipped.

// A SHA256SUMS file as python-build-standalone publishes one per release
// (astral-sh/python-build-standalone src/github.rs: "<sha256>  <file name>\n" per file).
// Returns the lower-case digest of the line naming exactly fileName; empty when there is none,
// or when two lines name the file with different digests (an ambiguous list proves nothing).
QString sha256FromSums(const QByteArray &sums, const QString &fileName);

// python.org's downloads API, version 2 (python/pythondotorg apps/downloads/api.py and
// serializers.py, served under /api/v2/downloads/): a plain JSON array, or a version-1 style
// {"objects": [...]}.

// GET /api/v2/downloads/release/?name=Python%20X.Y.Z → [{"name", "resource_uri": ".../release/<id>/", …}].
// The numeric id of the release named exactly "Python <version>"; empty when absent.
QString pythonOrgReleaseId(const QByteArray &json, const QString &version);

struct PythonOrgChecksum {
    QString sha256; // lower-case hex; empty when python.org has none for the file (older releases)
    QString md5;    // lower-case hex; empty when none
    qint64 size = -1;
};

// GET /api/v2/downloads/release_file/?release=<id> → [{"url", "md5_sum", "sha256_sum", "filesize", …}].
// The checksums of the file whose URL ends in "/" + fileName; nullopt when the release has no such
// file or the file has neither checksum in a well-formed spelling.
std::optional<PythonOrgChecksum> pythonOrgFileChecksum(const QByteArray &json, const QString &fileName);

} // namespace tfsetup::core
