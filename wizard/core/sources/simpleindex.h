#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>

namespace tfsetup::core {

// One file a project page of a simple repository lists (PEP 503 / PEP 691 / PEP 592 / PEP 658 / PEP 714).
struct IndexFile {
    QString filename;       // the link text / "filename": "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl"
    QUrl url;               // absolute (relative hrefs resolved against the page URL, fragment removed)
    QByteArray sha256;      // lower-case hex from "#sha256=…" or JSON hashes.sha256; empty when none
    QString requiresPython; // data-requires-python / "requires-python", HTML entities decoded ("&gt;=3.9" → ">=3.9")
    bool yanked = false;    // data-yanked present / "yanked": true or a reason string
    QString yankedReason;
    // PEP 658/714: the index serves <url>.metadata. metadataSha256 empty with hasMetadata true means "true" without a hash.
    bool hasMetadata = false;
    QByteArray metadataSha256;
    qint64 size = -1; // PEP 700 "size" in JSON pages; -1 otherwise

    bool isWheel() const; // filename ends with ".whl" (case-insensitive)
    friend bool operator==(const IndexFile &, const IndexFile &) = default;
};

struct IndexPage {
    QString project; // as the page names it (JSON "name"), may be empty for HTML
    QList<IndexFile> files;
};

// Reads and writes the project pages of a "simple" package index: what pip reads from PyPI, a
// mirror or a lab's own index, and what a loopback index serves to pip.
class SimpleIndex {
    Q_DECLARE_TR_FUNCTIONS(SimpleIndex)

public:
    static constexpr qint64 maxPageBytes = 64 * 1024 * 1024; // PyPI's largest project pages are tens of MB
    static constexpr qsizetype maxFiles = 500000;

    // The Accept header pip sends (PEP 691): JSON preferred, HTML accepted.
    static QByteArray acceptHeader();

    // Parses a project page; the content type decides ("application/vnd.pypi.simple.v1+json" → JSON,
    // "application/vnd.pypi.simple.v1+html" / "text/html" / empty → HTML; a body that starts with '{'
    // after whitespace is JSON whatever the type says).
    // Errors: "index_page_too_large" (more than maxPageBytes, or links to more than maxFiles files),
    // "index_page_malformed" (JSON that is not a PEP 691 page, or names an api-version other than 1.x);
    // never an exception. HTML is read the tolerant way browsers read it: an error page or any other
    // HTML gives a page with the links it has (often none), not an error.
    // HTML: every <a> element, attributes in any order, quoted or unquoted, names in any case; the
    // entities &amp; &lt; &gt; &quot; &apos; &#NN; &#xHH; (and &nbsp;) decoded in attribute values and
    // link text; the first <base href> sets the base URL; anchors without href, or with neither link
    // text nor a last path segment to name the file, are skipped; script, style, title and textarea
    // contents and comments hold no links. "#sha256=" gives sha256 (other hash names are ignored; a
    // value that is not 64 hex digits leaves it empty). data-core-metadata (else data-dist-info-metadata)
    // "true" or "NAME=HEX" gives hasMetadata, and metadataSha256 when NAME is sha256.
    // filename: HTML: the link text, trimmed, or when empty the URL's last path segment (percent-decoded);
    // JSON: "filename". JSON fields of the wrong type are ignored one by one; a file without a string
    // "filename" and "url" is skipped. A file whose URL resolves to no host (nor to a file: path) is
    // skipped: nothing could download it. Runs in time linear in the page size.
    static Result<IndexPage> parse(const QByteArray &body, const QByteArray &contentType, const QUrl &pageUrl);

    // A PEP 503 page (with PEP 592/658/714 attributes: data-requires-python, data-yanked,
    // data-dist-info-metadata and data-core-metadata) listing files with the given URLs: what a loopback
    // index serves to pip. Every attribute value and link text HTML-escaped; href = the URL with
    // "#sha256=…" when known. parse() reads back the same files (sizes aside: HTML has none).
    static QByteArray htmlPage(const QString &project, const QList<IndexFile> &files);

    // The project name in a page path: PEP 503 normalization (lower case, runs of "-_." → "-").
    static QString normalize(const QString &project);
};

} // namespace tfsetup::core
