#include "sources/simpleindex.h"

#include <QElapsedTimer>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

const QByteArray hashA = "666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5";
const QByteArray hashB = "2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010";
const QByteArray hashC = "0f5d5ac8e2b9a7dc7e3c7a0e0b8d7c1f0d2b8c1e6f1b0c5a8b7d9e2f3a4b5c6d";

// One line per file with the fields that differ from a default IndexFile, so a failing row shows
// what was read.
QStringList describe(const QList<IndexFile> &files)
{
    QStringList lines;
    for (const IndexFile &f : files) {
        QString line = f.filename + u" <"_s + f.url.toString() + u'>';
        if (!f.sha256.isEmpty())
            line += u" sha256="_s + QString::fromLatin1(f.sha256);
        if (!f.requiresPython.isEmpty())
            line += u" requires-python="_s + f.requiresPython;
        if (f.yanked)
            line += u" yanked("_s + f.yankedReason + u')';
        if (f.hasMetadata)
            line += u" metadata("_s + QString::fromLatin1(f.metadataSha256) + u')';
        if (f.size >= 0)
            line += u" size="_s + QString::number(f.size);
        lines.append(line);
    }
    return lines;
}

QString hex(const QByteArray &h)
{
    return QString::fromLatin1(h);
}

// Pages are plain string literals: moc misreads raw string literals that hold quotes and then
// finds no test class.

// Shaped like pypi.org/simple/numpy/ as a mirror (bandersnatch, devpi) serves it: file links
// relative to the page, PEP 592/658/714 attributes, entities in data-requires-python.
const QByteArray mirrorPage =
    "<!DOCTYPE html>\n"
    "<html>\n"
    "  <head>\n"
    "    <meta name=\"pypi:repository-version\" content=\"1.1\">\n"
    "    <title>Links for numpy</title>\n"
    "  </head>\n"
    "  <body>\n"
    "    <h1>Links for numpy</h1>\n"
    "    <a href=\"../../packages/3b/df/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5\" data-requires-python=\"&gt;=3.9\" data-dist-info-metadata=\"sha256=2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010\" data-core-metadata=\"sha256=2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010\">numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl</a><br />\n"
    "    <a href=\"../../packages/65/6e/numpy-1.26.4.tar.gz#sha256=0F5D5AC8E2B9A7DC7E3C7A0E0B8D7C1F0D2B8C1E6F1B0C5A8B7D9E2F3A4B5C6D\" data-requires-python=\"&gt;=3.9\">\n"
    "        numpy-1.26.4.tar.gz\n"
    "    </a><br />\n"
    "    <a href=\"../../packages/aa/bb/numpy-1.26.0-cp312-cp312-win_amd64.whl#md5=0123\" data-requires-python=\"&lt;3.13,&gt;=3.9\" data-yanked=\"Broken on Windows &amp; &#34;cp312&#34;\">numpy-1.26.0-cp312-cp312-win_amd64.whl</a><br />\n"
    "    <a href=\"../../packages/cc/dd/numpy-1.25.0.tar.gz\" data-yanked>numpy-1.25.0.tar.gz</a><br />\n"
    "  </body>\n"
    "</html>\n"
    "<!--SERIAL 21978433-->\n";

const QByteArray oddHtmlPage =
    "<HTML><BODY>\n"
    "<A HREF=https://files.example.org/p/tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl#sha256=666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5 Data-Requires-Python='&gt;=3.9'>tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl</A>\n"
    "<a data-core-metadata=true\n"
    "   href = \"/p/tensorflow-2.15.0-cp310-cp310-win_amd64.whl\"\n"
    "   data-dist-info-metadata=\"sha256=2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010\">tensorflow-2.15.0-cp310-cp310-win_amd64.whl</a>\n"
    "<a name=\"top\">no href, no file</a>\n"
    "<!-- <a href=\"commented-out.whl\">commented-out.whl</a> -->\n"
    "<script>document.write('<a href=\"scripted.whl\">scripted.whl</a>');</script>\n"
    "<a href=\"/p/tf%20nightly-2.16.0.dev1.tar.gz\"></a>\n"
    "<a href=\"/p/odd.tar.gz#sha256=xyz\">odd.tar.gz</a>\n"
    "<a href=\"/p/numbers.tar.gz\" data-requires-python=\"&#62;=3.8,&#x3C;4\">numbers.tar.gz</a>\n"
    "</BODY></HTML>\n";

const QByteArray basePage = "<html><head><base href=\"https://files.example.org/mirror/\"></head><body>\n"
                            "<a href=\"pkg/keras-3.0.0-py3-none-any.whl\">keras-3.0.0-py3-none-any.whl</a>\n"
                            "<base href=\"https://ignored.example.org/\">\n"
                            "<a href=\"../keras-2.15.0-py3-none-any.whl\">keras-2.15.0-py3-none-any.whl</a>\n"
                            "</body></html>\n";

const QByteArray errorPage = "<html><title>404 Not Found</title><body><h1>404 Not Found</h1>\n"
                             "<p>The resource could not be found.</p></body></html>\n";

// Shaped like pypi.org's answer to Accept: application/vnd.pypi.simple.v1+json (PEP 691, PEP 700
// sizes, PEP 714 core-metadata), with one relative URL as a mirror would give.
const QByteArray jsonPage =
    "{\n"
    "  \"meta\": {\"api-version\": \"1.1\", \"_last-serial\": 21978433},\n"
    "  \"name\": \"numpy\",\n"
    "  \"versions\": [\"1.25.0\", \"1.26.4\"],\n"
    "  \"files\": [\n"
    "    {\"filename\": \"numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl\",\n"
    "     \"url\": \"https://files.pythonhosted.org/packages/3b/df/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl\",\n"
    "     \"hashes\": {\"sha256\": \"666dbfb6ec68962c033a450943ded891bed2d54e6755e35e5835d63f4f6931d5\"},\n"
    "     \"requires-python\": \">=3.9\", \"yanked\": false, \"size\": 18277384,\n"
    "     \"core-metadata\": {\"sha256\": \"2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010\"},\n"
    "     \"data-dist-info-metadata\": {\"sha256\": \"2a02aba9ed12e4ac4eb3ea9421c420301a0c6460d9830d74a9df87efa4912010\"},\n"
    "     \"upload-time\": \"2024-02-05T23:48:01.194560Z\"},\n"
    "    {\"filename\": \"numpy-1.26.4.tar.gz\", \"url\": \"../../packages/65/6e/numpy-1.26.4.tar.gz\",\n"
    "     \"hashes\": {\"sha256\": \"0F5D5AC8E2B9A7DC7E3C7A0E0B8D7C1F0D2B8C1E6F1B0C5A8B7D9E2F3A4B5C6D\", \"md5\": \"0123\"},\n"
    "     \"requires-python\": \">=3.9\", \"core-metadata\": false, \"dist-info-metadata\": true, \"size\": 15786129},\n"
    "    {\"filename\": \"numpy-1.25.0.tar.gz\", \"url\": \"https://files.pythonhosted.org/packages/numpy-1.25.0.tar.gz\",\n"
    "     \"hashes\": {}, \"yanked\": \"Wrong metadata\", \"dist-info-metadata\": true},\n"
    "    {\"filename\": \"numpy-1.24.0.tar.gz\", \"url\": \"https://files.pythonhosted.org/packages/numpy-1.24.0.tar.gz\",\n"
    "     \"hashes\": {\"sha256\": 7}, \"requires-python\": 3.9, \"yanked\": \"\", \"core-metadata\": \"yes\", \"size\": -5}\n"
    "  ]\n"
    "}";

const QByteArray wrongTypesJson =
    "{\"meta\": {\"api-version\": \"1.0\"}, \"name\": 12, \"files\": [\n"
    "  {\"filename\": \"no-url.whl\"},\n"
    "  {\"url\": \"https://example.org/no-filename.whl\"},\n"
    "  {\"filename\": 5, \"url\": \"https://example.org/five.whl\"},\n"
    "  {\"filename\": \"url-not-string.whl\", \"url\": {\"href\": \"x\"}},\n"
    "  \"not an object\",\n"
    "  {\"filename\": \"fine.whl\", \"url\": \"https://example.org/fine.whl\", \"hashes\": [1], \"size\": 1e121, \"yanked\": 1,\n"
    "   \"dist-info-metadata\": {\"sha256\": \"short\"}}\n"
    "]}";

} // namespace

class TestSimpleIndex : public QObject {
    Q_OBJECT

private slots:
    void parse_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("contentType");
        QTest::addColumn<QString>("pageUrl");
        QTest::addColumn<QString>("project");
        QTest::addColumn<QStringList>("files");

        const QString packages = u"https://mirror.example.org/packages/"_s;
        QTest::newRow("mirror html page: entities, relative hrefs, yanked, metadata")
            << mirrorPage << "application/vnd.pypi.simple.v1+html"_ba << u"https://mirror.example.org/simple/numpy/"_s
            << QString()
            << QStringList{
                   u"numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl <"_s + packages
                       + u"3b/df/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl> sha256="_s
                       + hex(hashA) + u" requires-python=>=3.9 metadata("_s + hex(hashB) + u')',
                   u"numpy-1.26.4.tar.gz <"_s + packages + u"65/6e/numpy-1.26.4.tar.gz> sha256="_s + hex(hashC)
                       + u" requires-python=>=3.9"_s,
                   u"numpy-1.26.0-cp312-cp312-win_amd64.whl <"_s + packages
                       + u"aa/bb/numpy-1.26.0-cp312-cp312-win_amd64.whl> requires-python=<3.13,>=3.9 "
                         u"yanked(Broken on Windows & \"cp312\")"_s,
                   u"numpy-1.25.0.tar.gz <"_s + packages + u"cc/dd/numpy-1.25.0.tar.gz> yanked()"_s,
               };
        QTest::newRow("uppercase tags, unquoted attributes, comments, scripts")
            << oddHtmlPage << "text/html; charset=utf-8"_ba << u"https://index.example.org/simple/tensorflow/"_s
            << QString()
            << QStringList{
                   u"tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl "
                   u"<https://files.example.org/p/tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl> sha256="_s
                       + hex(hashA) + u" requires-python=>=3.9"_s,
                   u"tensorflow-2.15.0-cp310-cp310-win_amd64.whl "
                   u"<https://index.example.org/p/tensorflow-2.15.0-cp310-cp310-win_amd64.whl> metadata()"_s,
                   u"tf nightly-2.16.0.dev1.tar.gz <https://index.example.org/p/tf nightly-2.16.0.dev1.tar.gz>"_s,
                   u"odd.tar.gz <https://index.example.org/p/odd.tar.gz>"_s,
                   u"numbers.tar.gz <https://index.example.org/p/numbers.tar.gz> requires-python=>=3.8,<4"_s,
               };
        QTest::newRow("base href: the first one counts")
            << basePage << QByteArray() << u"https://index.example.org/simple/keras/"_s << QString()
            << QStringList{
                   u"keras-3.0.0-py3-none-any.whl <https://files.example.org/mirror/pkg/keras-3.0.0-py3-none-any.whl>"_s,
                   u"keras-2.15.0-py3-none-any.whl <https://files.example.org/keras-2.15.0-py3-none-any.whl>"_s,
               };
        QTest::newRow("links nothing could download are skipped")
            << "<base href=\"https:x\"><a href=\"mailto:a@example.org\">a.whl</a><a href=\"javascript:void(0)\">b.whl</a>"
               "<a href=\"data:,x\">c.whl</a><a href=\"file:///srv/wheels/d.whl\">d.whl</a><a href=\"../e.whl\">e.whl</a>"_ba
            << "text/html"_ba << u"https://index.example.org/simple/x/"_s << QString()
            << QStringList{u"d.whl <file:///srv/wheels/d.whl>"_s, u"e.whl <https://index.example.org/simple/e.whl>"_s};
        QTest::newRow("html error page has no files")
            << errorPage << "text/html"_ba << u"https://index.example.org/simple/nothing/"_s << QString()
            << QStringList();
        QTest::newRow("empty body") << QByteArray() << QByteArray() << u"https://index.example.org/simple/x/"_s
                                    << QString() << QStringList();
        QTest::newRow("not html at all") << "\x00\xff\xfe<<<>>>&&&#;;;<a"_ba
                                         << "text/html"_ba << u"https://index.example.org/simple/x/"_s << QString()
                                         << QStringList();

        const QString pythonhosted = u"https://files.pythonhosted.org/packages/"_s;
        QTest::newRow("pep 691 json page")
            << jsonPage << "application/vnd.pypi.simple.v1+json"_ba << u"https://mirror.example.org/simple/numpy/"_s
            << u"numpy"_s
            << QStringList{
                   u"numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl <"_s + pythonhosted
                       + u"3b/df/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl> sha256="_s
                       + hex(hashA) + u" requires-python=>=3.9 metadata("_s + hex(hashB) + u") size=18277384"_s,
                   u"numpy-1.26.4.tar.gz <https://mirror.example.org/packages/65/6e/numpy-1.26.4.tar.gz> sha256="_s
                       + hex(hashC) + u" requires-python=>=3.9 size=15786129"_s,
                   u"numpy-1.25.0.tar.gz <"_s + pythonhosted
                       + u"numpy-1.25.0.tar.gz> yanked(Wrong metadata) metadata()"_s,
                   u"numpy-1.24.0.tar.gz <"_s + pythonhosted + u"numpy-1.24.0.tar.gz>"_s,
               };
        QTest::newRow("json recognised by its first character")
            << QByteArray(" \n" + jsonPage) << QByteArray() << u"https://mirror.example.org/simple/numpy/"_s
            << u"numpy"_s
            << QStringList{
                   u"numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl <"_s + pythonhosted
                       + u"3b/df/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl> sha256="_s
                       + hex(hashA) + u" requires-python=>=3.9 metadata("_s + hex(hashB) + u") size=18277384"_s,
                   u"numpy-1.26.4.tar.gz <https://mirror.example.org/packages/65/6e/numpy-1.26.4.tar.gz> sha256="_s
                       + hex(hashC) + u" requires-python=>=3.9 size=15786129"_s,
                   u"numpy-1.25.0.tar.gz <"_s + pythonhosted
                       + u"numpy-1.25.0.tar.gz> yanked(Wrong metadata) metadata()"_s,
                   u"numpy-1.24.0.tar.gz <"_s + pythonhosted + u"numpy-1.24.0.tar.gz>"_s,
               };
        QTest::newRow("json fields of the wrong type")
            << wrongTypesJson << "application/vnd.pypi.simple.v1+json"_ba << u"https://example.org/simple/x/"_s
            << QString() << QStringList{u"fine.whl <https://example.org/fine.whl> metadata()"_s};
        QTest::newRow("json without meta") << "{\"files\": [{\"filename\": \"a.whl\", \"url\": \"a.whl\"}]}"_ba
                                           << "application/json"_ba << u"https://example.org/simple/a/"_s << QString()
                                           << QStringList{u"a.whl <https://example.org/simple/a/a.whl>"_s};
    }
    void parse()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, contentType);
        QFETCH(QString, pageUrl);
        QFETCH(QString, project);
        QFETCH(QStringList, files);
        const auto page = SimpleIndex::parse(body, contentType, QUrl(pageUrl));
        QVERIFY2(page.ok(), qPrintable(page.ok() ? QString() : page.error().code + u": "_s + page.error().detail));
        QCOMPARE(page->project, project);
        QCOMPARE(describe(page->files), files);
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("contentType");
        QTest::addColumn<QString>("code");
        const QByteArray json = "application/vnd.pypi.simple.v1+json";
        QTest::newRow("json error document")
            << "{\"message\": \"Not Found\", \"code\": \"404 Not Found\"}"_ba << json << u"index_page_malformed"_s;
        QTest::newRow("json error document without a content type")
            << "{\"detail\": \"Not Found\"}"_ba << QByteArray() << u"index_page_malformed"_s;
        QTest::newRow("api version 2") << "{\"meta\": {\"api-version\": \"2.0\"}, \"name\": \"x\", \"files\": []}"_ba
                                       << json << u"index_page_malformed"_s;
        QTest::newRow("api version not a string")
            << "{\"meta\": {\"api-version\": 1}, \"name\": \"x\", \"files\": []}"_ba << json
            << u"index_page_malformed"_s;
        QTest::newRow("files not a list")
            << "{\"meta\": {\"api-version\": \"1.0\"}, \"files\": {}}"_ba << json << u"index_page_malformed"_s;
        QTest::newRow("json array") << "[]"_ba << json << u"index_page_malformed"_s;
        QTest::newRow("truncated json") << "{\"meta\": {\"api-version\": \"1.0\"}, \"files\": ["_ba << json
                                        << u"index_page_malformed"_s;
        QTest::newRow("html served as json") << errorPage << json << u"index_page_malformed"_s;
        QTest::newRow("oversize html") << QByteArray(SimpleIndex::maxPageBytes + 1, ' ') << "text/html"_ba
                                       << u"index_page_too_large"_s;
        QTest::newRow("oversize json") << QByteArray("{" + QByteArray(SimpleIndex::maxPageBytes, ' ') + "}") << json
                                       << u"index_page_too_large"_s;
    }
    void errors()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, contentType);
        QFETCH(QString, code);
        const auto page = SimpleIndex::parse(body, contentType, QUrl(u"https://index.example.org/simple/x/"_s));
        QVERIFY(!page.ok());
        QCOMPARE(page.error().code, code);
        QVERIFY(page.error().message.contains(u"https://index.example.org/simple/x/"_s));
        QVERIFY(!page.error().detail.isEmpty());
    }

    void tooManyLinks()
    {
        const QByteArray page = QByteArray("<a href=x>x</a>").repeated(SimpleIndex::maxFiles + 1);
        const auto read = SimpleIndex::parse(page, "text/html", QUrl(u"https://index.example.org/simple/x/"_s));
        QVERIFY(!read.ok());
        QCOMPARE(read.error().code, u"index_page_too_large"_s);
    }

    void htmlPageReadsBack()
    {
        QList<IndexFile> files;
        IndexFile wheel;
        wheel.filename = u"tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl"_s;
        wheel.url = QUrl(u"http://127.0.0.1:8123/files/tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl"_s);
        wheel.sha256 = hashA;
        wheel.requiresPython = u"<3.12,>=3.9"_s;
        wheel.hasMetadata = true;
        wheel.metadataSha256 = hashB;
        files.append(wheel);
        IndexFile yanked;
        yanked.filename = u"odd \"name\" <&> 'x'.tar.gz"_s;
        yanked.url = QUrl(u"http://127.0.0.1:8123/files/odd%20%22name%22%20%3C&%3E.tar.gz?a=1&b=2"_s);
        yanked.yanked = true;
        yanked.yankedReason = u"Use \"2.0\" & <later>"_s;
        yanked.hasMetadata = true;
        files.append(yanked);
        IndexFile plain;
        plain.filename = u"plain-1.0.tar.gz"_s;
        plain.url = QUrl(u"file:///srv/wheelhouse/plain-1.0.tar.gz"_s);
        plain.yanked = true;
        files.append(plain);

        const QByteArray html = SimpleIndex::htmlPage(u"tensorflow"_s, files);
        const auto read = SimpleIndex::parse(html, "text/html", QUrl(u"http://127.0.0.1:8123/simple/tensorflow/"_s));
        QVERIFY(read.ok());
        QCOMPARE(describe(read->files), describe(files));
        QVERIFY(read->files == files);
        QVERIFY(html.contains(QByteArray("data-core-metadata=\"sha256=" + hashB + '"')));
        QVERIFY(html.contains(QByteArray("data-dist-info-metadata=\"sha256=" + hashB + '"')));
        QVERIFY(html.contains(QByteArray("#sha256=" + hashA + '"')));
    }

    void jsonPageReadsBackAsHtml()
    {
        const QUrl pageUrl(u"https://mirror.example.org/simple/numpy/"_s);
        const auto json = SimpleIndex::parse(jsonPage, "application/vnd.pypi.simple.v1+json", pageUrl);
        QVERIFY(json.ok());
        const auto html = SimpleIndex::parse(SimpleIndex::htmlPage(json->project, json->files), "text/html", pageUrl);
        QVERIFY(html.ok());
        QList<IndexFile> expected = json->files;
        for (IndexFile &f : expected)
            f.size = -1;
        QCOMPARE(describe(html->files), describe(expected));
    }

    void htmlPageEscapes()
    {
        IndexFile file;
        file.filename = u"a\"b<c&d.whl"_s;
        file.url = QUrl(u"https://example.org/x.whl"_s);
        file.requiresPython = u">=3.9\" onclick=\"x"_s;
        file.yanked = true;
        file.yankedReason = u"<script>&"_s;
        const QByteArray html = SimpleIndex::htmlPage(u"p\"<&"_s, {file});
        QVERIFY(html.contains("a&quot;b&lt;c&amp;d.whl</a>"));
        QVERIFY(html.contains("data-requires-python=\"&gt;=3.9&quot; onclick=&quot;x\""));
        QVERIFY(html.contains("data-yanked=\"&lt;script&gt;&amp;\""));
        QVERIFY(html.contains("Links for p&quot;&lt;&amp;"));
        QVERIFY(!html.contains("<script>"));
        QVERIFY(!html.contains("b<c"));
        QVERIFY(!html.contains("onclick=\"x"));
    }

    void normalize_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("normalized");
        QTest::newRow("case") << u"Django"_s << u"django"_s;
        QTest::newRow("dot") << u"zope.interface"_s << u"zope-interface"_s;
        QTest::newRow("underscore") << u"typing_extensions"_s << u"typing-extensions"_s;
        QTest::newRow("runs of separators") << u"My__Pkg.-_Name"_s << u"my-pkg-name"_s;
        QTest::newRow("already normal") << u"tensorflow-intel"_s << u"tensorflow-intel"_s;
    }
    void normalize()
    {
        QFETCH(QString, name);
        QFETCH(QString, normalized);
        QCOMPARE(SimpleIndex::normalize(name), normalized);
    }

    void isWheel_data()
    {
        QTest::addColumn<QString>("filename");
        QTest::addColumn<bool>("wheel");
        QTest::newRow("wheel") << u"keras-3.0.0-py3-none-any.whl"_s << true;
        QTest::newRow("upper case") << u"KERAS-3.0.0-PY3-NONE-ANY.WHL"_s << true;
        QTest::newRow("sdist") << u"keras-3.0.0.tar.gz"_s << false;
        QTest::newRow("whl inside the name") << u"keras.whl.tar.gz"_s << false;
    }
    void isWheel()
    {
        QFETCH(QString, filename);
        QFETCH(bool, wheel);
        IndexFile f;
        f.filename = filename;
        QCOMPARE(f.isWheel(), wheel);
    }

    void acceptHeaderPrefersJson()
    {
        const QByteArray accept = SimpleIndex::acceptHeader();
        QVERIFY(accept.startsWith("application/vnd.pypi.simple.v1+json"));
        QVERIFY(accept.contains("application/vnd.pypi.simple.v1+html"));
        QVERIFY(accept.contains("text/html"));
    }

    // Pages built to make a backtracking or rescanning reader take quadratic time; a linear one
    // reads each in well under a second.
    void hostilePagesReadInLinearTime_data()
    {
        QTest::addColumn<QByteArray>("body");
        const qsizetype n = 4 * 1024 * 1024;
        QTest::newRow("unclosed anchors") << QByteArray("<a href=x>").repeated(n / 10);
        QTest::newRow("unterminated quote") << QByteArray("<a href=\"" + QByteArray(n, 'x'));
        QTest::newRow("unclosed comments") << QByteArray("<!--").repeated(n / 4);
        QTest::newRow("unclosed script") << QByteArray("<script>" + QByteArray("</scrip<").repeated(n / 8));
        QTest::newRow("entity soup") << QByteArray("<a href=\"" + QByteArray("&#&#x&am&#99999999999").repeated(n / 21)
                                                   + "\">" + QByteArray("&lt&gt;&").repeated(n / 9) + "</a>");
        QTest::newRow("many attributes") << QByteArray("<a " + QByteArray("href=x ").repeated(n / 7) + ">");
        QByteArray distinct = "<a href=x";
        for (qsizetype i = 0; distinct.size() < n; ++i)
            distinct += " data-" + QByteArray::number(i) + "=v";
        QTest::newRow("many distinct attributes") << QByteArray(distinct + ">x</a>");
        QTest::newRow("angle brackets") << QByteArray("<").repeated(n);
    }
    void hostilePagesReadInLinearTime()
    {
        QFETCH(QByteArray, body);
        QElapsedTimer timer;
        timer.start();
        const auto page = SimpleIndex::parse(body, "text/html", QUrl(u"https://index.example.org/simple/x/"_s));
        QVERIFY(page.ok() || page.error().code == u"index_page_too_large");
        // Generous: a shared, slow build machine; quadratic behaviour would take hours.
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed()) + u" ms"_s));
    }
};

QTEST_APPLESS_MAIN(TestSimpleIndex)
#include "test_simpleindex.moc"
