// Python's checksums come from the publisher: python.org's downloads API for the Windows installer
// at resolve time; for the relocatable Linux build the catalog's pin, cross-checked against the
// release's SHA256SUMS when that answers (and without a pin, the SHA256SUMS alone). Both over
// verified TLS from the official origin only (loopback HTTPS servers here), never from a mirror.
// The relocatable build is installed end to end from a real archive built here.

#include "fetch/downloader.h"
#include "install/archive.h"
#include "install/environmentrecord.h"
#include "install/installer.h"
#include "sources/bundle.h"
#include "sources/pythonsources.h"
#include "sources/resolver.h"
#include "support/coroutinetest.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;
using tfsetup::test::LoopbackServer;
using tfsetup::test::RecordedRequest;
using tfsetup::test::Response;

namespace {

const QString installer31011 = u"python-3.10.11-amd64.exe"_s;
const QString standalone31114 = u"cpython-3.11.14+20251031-x86_64-unknown-linux-gnu-install_only.tar.gz"_s;
const QByteArray standalonePath = "/20251031/cpython-3.11.14+20251031-x86_64-unknown-linux-gnu-install_only.tar.gz";
const QByteArray sha = "6b2f0c1f2a2b4f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e";
const QByteArray md5 = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";

// python.org's API as pythondotorg serves it: a plain JSON array per query.
QByteArray releaseAnswer(int id)
{
    return "[{\"name\": \"Python 3.10.11\", \"slug\": \"python-31011\", \"version\": 3, \"is_published\": true, "
           "\"resource_uri\": \"https://www.python.org/api/v2/downloads/release/"
        + QByteArray::number(id) + "/\"}]";
}

QByteArray filesAnswer(const QByteArray &sha256, const QByteArray &md5sum)
{
    return "[{\"name\": \"Gzipped source tarball\", \"url\": \"https://www.python.org/ftp/python/3.10.11/Python-3.10.11.tgz\", "
           "\"md5_sum\": \"7e25e2f158b1259e271a45a249cb24bb\", \"sha256_sum\": \"\", \"filesize\": 26006589},"
           "{\"name\": \"Windows installer (64-bit)\", \"url\": \"https://www.python.org/ftp/python/3.10.11/python-3.10.11-amd64.exe\", "
           "\"md5_sum\": \""
        + md5sum + "\", \"sha256_sum\": \"" + sha256 + "\", \"filesize\": 28969344}]";
}

// Answers only the exact queries the resolver must ask.
void servePythonOrg(LoopbackServer &server, const QByteArray &sha256, const QByteArray &md5sum)
{
    server.handle("/api/v2/downloads/release/", [](const RecordedRequest &r, int) {
        return r.target.endsWith("?name=Python%203.10.11") ? Response::bytes(releaseAnswer(830), "application/json")
                                                           : Response::bytes("[]", "application/json");
    });
    server.handle("/api/v2/downloads/release_file/", [sha256, md5sum](const RecordedRequest &r, int) {
        return r.target.endsWith("?release=830") ? Response::bytes(filesAnswer(sha256, md5sum), "application/json")
                                                 : Response::bytes("[]", "application/json");
    });
}

int apiHits(const LoopbackServer &server)
{
    return server.hits("/api/v2/downloads/release/") + server.hits("/api/v2/downloads/release_file/");
}

ResolveRequest windowsPlan()
{
    ResolveRequest r;
    r.route = u"windows-native"_s;
    r.tensorflow = u"2.10.0"_s;
    r.os = u"windows"_s;
    r.python = u"3.10"_s;
    r.pythonInstalled = false;
    r.requirement = u"tensorflow==2.10.*"_s;
    return r;
}

ResolveRequest linuxPlan()
{
    ResolveRequest r;
    r.route = u"linux-pip"_s;
    r.tensorflow = u"2.18.0"_s;
    r.os = u"linux"_s;
    r.python = u"3.11"_s;
    r.pythonInstalled = false;
    r.requirement = u"tensorflow[and-cuda]==2.18.*"_s;
    return r;
}

SourceCatalog catalog()
{
    auto c = SourceCatalog::load();
    return c.ok() ? *c : SourceCatalog();
}

// The shipped sources catalog with the pin of the relocatable Python `minor` (every one when
// empty) replaced by `pin`, or removed when `pin` is undefined.
QByteArray sourcesWithPin(const QString &minor, const QJsonValue &pin)
{
    QFile f(u":/resources/catalog/sources.json"_s);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    QJsonObject python = root.value(u"python"_s).toObject();
    QJsonObject standalone = python.value(u"standalone"_s).toObject();
    QJsonArray releases = standalone.value(u"releases"_s).toArray();
    for (qsizetype i = 0; i < releases.size(); ++i) {
        QJsonObject r = releases.at(i).toObject();
        if (!minor.isEmpty() && r.value(u"minor"_s).toString() != minor)
            continue;
        if (pin.isUndefined())
            r.remove(u"sha256"_s);
        else
            r.insert(u"sha256"_s, pin);
        releases.replace(i, r);
    }
    standalone.insert(u"releases"_s, releases);
    python.insert(u"standalone"_s, standalone);
    root.insert(u"python"_s, python);
    return QJsonDocument(root).toJson();
}

// Today's behaviour before pins: the release's SHA256SUMS alone decides.
SourceCatalog unpinnedCatalog()
{
    auto c = SourceCatalog::fromJson(sourcesWithPin({}, QJsonValue(QJsonValue::Undefined)));
    return c.ok() ? *c : SourceCatalog();
}

// Python 3.11's archive pinned to `sha256` (an archive built here, or a digest a test serves).
SourceCatalog catalogPinning(const QByteArray &sha256)
{
    auto c = SourceCatalog::fromJson(sourcesWithPin(u"3.11"_s, QString::fromLatin1(sha256)));
    return c.ok() ? *c : SourceCatalog();
}

QByteArray shippedPin(const QString &minor)
{
    const auto build = catalog().standalonePython(minor);
    return build ? build->sha256.toLatin1() : QByteArray();
}

QByteArray why(const Result<ArtifactList> &r)
{
    return r.ok() ? QByteArray() : (r.error().message + u'\n' + r.error().detail).toUtf8();
}

QByteArray sha256Of(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestSourcesPython : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_files.isValid());
        m_caFile = m_files.filePath(u"ca.pem"_s);
    }

    void init()
    {
        m_official = std::make_unique<LoopbackServer>(LoopbackServer::Https);
        QVERIFY(m_official->start());
        QVERIFY(m_official->writeCaCertificate(m_caFile));
        m_mirror = std::make_unique<LoopbackServer>();
        QVERIFY(m_mirror->start());
    }

    void cleanup()
    {
        m_official.reset();
        m_mirror.reset();
    }

    // --- The readers, on their own ---------------------------------------------------------

    void sha256Sums_data()
    {
        QTest::addColumn<QByteArray>("sums");
        QTest::addColumn<QString>("expected");
        const QByteArray line = sha + "  " + standalone31114.toUtf8();
        QTest::newRow("text mode") << QByteArray("ffff  other.tar.gz\n" + line + "\n") << QString::fromLatin1(sha);
        QTest::newRow("binary mode, CRLF")
            << QByteArray(sha + " *" + standalone31114.toUtf8() + "\r\n") << QString::fromLatin1(sha);
        QTest::newRow("upper-case digest")
            << QByteArray(sha.toUpper() + "  " + standalone31114.toUtf8()) << QString::fromLatin1(sha);
        QTest::newRow("a longer name is another file")
            << QByteArray(sha + "  " + standalone31114.toUtf8() + ".sig") << QString();
        QTest::newRow("a path ending in the name is another file")
            << QByteArray(sha + "  evil/" + standalone31114.toUtf8()) << QString();
        QTest::newRow("short digest") << QByteArray(sha.left(63) + "  " + standalone31114.toUtf8()) << QString();
        QTest::newRow("not hex") << QByteArray(QByteArray(64, 'g') + "  " + standalone31114.toUtf8()) << QString();
        QTest::newRow("two different digests")
            << QByteArray(line + "\n" + QByteArray(64, 'a') + "  " + standalone31114.toUtf8()) << QString();
        QTest::newRow("the same line twice") << QByteArray(line + "\n" + line + "\n") << QString::fromLatin1(sha);
        QTest::newRow("empty") << QByteArray() << QString();
        QTest::newRow("binary noise") << QByteArray("\0\xff\n\n  \t", 7) << QString();
    }

    void sha256Sums()
    {
        QFETCH(QByteArray, sums);
        QFETCH(QString, expected);
        QCOMPARE(sha256FromSums(sums, standalone31114), expected);
    }

    void pythonOrgAnswers()
    {
        QCOMPARE(pythonOrgReleaseId(releaseAnswer(830), u"3.10.11"_s), u"830"_s);
        QCOMPARE(pythonOrgReleaseId(releaseAnswer(830), u"3.10.1"_s), QString()); // names are compared exactly
        QCOMPARE(pythonOrgReleaseId("{\"objects\": " + releaseAnswer(12) + "}", u"3.10.11"_s), u"12"_s); // API v1
        QCOMPARE(pythonOrgReleaseId("[{\"name\": \"Python 3.10.11\", \"resource_uri\": \"https://x/release/abc/\"}]",
                                    u"3.10.11"_s),
                 QString());
        QCOMPARE(pythonOrgReleaseId("not json", u"3.10.11"_s), QString());

        const auto both = pythonOrgFileChecksum(filesAnswer(sha, md5), installer31011);
        QVERIFY(both);
        QCOMPARE(both->sha256, QString::fromLatin1(sha));
        QCOMPARE(both->md5, QString::fromLatin1(md5));
        QCOMPARE(both->size, 28969344);
        const auto md5Only = pythonOrgFileChecksum(filesAnswer("", md5), installer31011);
        QVERIFY(md5Only);
        QVERIFY(md5Only->sha256.isEmpty());
        QVERIFY(!pythonOrgFileChecksum(filesAnswer("", ""), installer31011));
        QVERIFY(!pythonOrgFileChecksum(filesAnswer("nothex", "short"), installer31011));
        QVERIFY(!pythonOrgFileChecksum(filesAnswer(sha, md5), u"python-3.10.11.exe"_s));
        QVERIFY(!pythonOrgFileChecksum("{\"objects\": 5}", installer31011));
    }

    // --- Windows: python.org's downloads API ------------------------------------------------

    void windowsInstaller_takesSha256FromPythonOrg_neverFromTheMirror()
    {
        servePythonOrg(*m_official, sha, md5);
        servePythonOrg(*m_mirror, QByteArray(64, 'e'), QByteArray(32, 'e')); // a mirror that would lie
        MirrorSet mirrors;
        mirrors.add(*MirrorSet::parse(u"python="_s + m_mirror->url(u"/"_s).toString()));
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"python"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsPlan()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->kind, u"python-installer"_s);
        QCOMPARE(python->sha256, QString::fromLatin1(sha));
        QCOMPARE(python->md5, QString::fromLatin1(md5));
        QCOMPARE(python->size, 28969344);
        QCOMPARE(python->trust, Artifact::Trust::Official);
        QVERIFY(!python->needsTrustOnFirstUse());
        QVERIFY(python->checksumUrl.endsWith(u"/api/v2/downloads/release_file/?release=830"_s));
        QVERIFY(!(*list)->hasWarning(u"python_no_pin"_s));
        // The mirror serves the installer, first; python.org stays last.
        QCOMPARE(python->urls.size(), 2);
        QCOMPARE(python->urls.first().host(), u"127.0.0.1"_s);
        QCOMPARE(python->urls.first().port(), int(m_mirror->port()));
        QVERIFY(python->urls.last().toString().endsWith(u"/ftp/python/3.10.11/python-3.10.11-amd64.exe"_s));
        QCOMPARE(python->toDownloadRequest(u"/tmp/x"_s).checksum.algorithm, Checksum::Algorithm::Sha256);
        QCOMPARE(apiHits(*m_official), 2);
        QCOMPARE(apiHits(*m_mirror), 0);
    }

    void windowsInstaller_md5Only_isOfficialMd5AndSaysSo()
    {
        servePythonOrg(*m_official, "", md5);
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"python"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsPlan()));
        QVERIFY(list && list->ok());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python->sha256.isEmpty());
        QCOMPARE(python->md5, QString::fromLatin1(md5));
        QCOMPARE(python->trust, Artifact::Trust::OfficialMd5);
        QVERIFY(!python->note.isEmpty());
        QVERIFY((*list)->hasWarning(u"python_md5_only"_s));
        QVERIFY(!(*list)->hasWarning(u"python_no_pin"_s));
        QCOMPARE(python->toDownloadRequest(u"/tmp/x"_s).checksum.algorithm, Checksum::Algorithm::Md5);
    }

    void windowsInstaller_withoutAnAnswer_needsTrustOnFirstUse_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("unreachable") << u"unreachable"_s;
        QTest::newRow("release unknown") << u"no release"_s;
        QTest::newRow("file not listed") << u"no file"_s;
        QTest::newRow("no checksum listed") << u"no checksum"_s;
        QTest::newRow("not JSON") << u"html"_s;
        QTest::newRow("plain http origin") << u"http"_s;
        QTest::newRow("only the mirror answers") << u"mirror"_s;
    }

    void windowsInstaller_withoutAnAnswer_needsTrustOnFirstUse()
    {
        QFETCH(QString, how);
        MirrorSet mirrors;
        QUrl origin = m_official->url(u"/"_s);
        if (how == u"no release") {
            m_official->route("/api/v2/downloads/release/", Response::bytes("[]", "application/json"));
        } else if (how == u"no file") {
            servePythonOrg(*m_official, sha, md5);
            m_official->route(
                "/api/v2/downloads/release_file/",
                Response::bytes(
                    "[{\"url\": \"https://www.python.org/ftp/python/3.10.11/python-3.10.11.exe\",\n"
                    "                                                   \"md5_sum\": \"0a1b2c3d4e5f60718293a4b5c6d7e8f9\"}]"));
        } else if (how == u"no checksum") {
            servePythonOrg(*m_official, "", "");
        } else if (how == u"html") {
            m_official->route("/api/v2/downloads/release/", Response::htmlErrorPage());
        } else if (how == u"http") {
            servePythonOrg(*m_mirror, sha, md5);
            origin = m_mirror->url(u"/"_s);
        } else if (how == u"mirror") {
            servePythonOrg(*m_mirror, sha, md5); // the official origin serves nothing
            mirrors.add(*MirrorSet::parse(u"python="_s + m_mirror->url(u"/"_s).toString()));
        } else {
            m_official.reset(); // nothing listens on the origin any more
        }
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"python"_s, m_official ? origin : QUrl(u"https://127.0.0.1:9/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        resolver.setTimeout(std::chrono::seconds(5));
        const auto list = tfsetup::test::awaitTask(resolver.resolve(windowsPlan()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->trust, Artifact::Trust::None);
        QVERIFY(python->sha256.isEmpty() && python->md5.isEmpty());
        QVERIFY(python->needsTrustOnFirstUse());
        QVERIFY((*list)->hasWarning(u"python_no_pin"_s));
        QVERIFY(!python->toDownloadRequest(u"/tmp/x"_s).checksum.isValid());
        QVERIFY(python->note.contains(u"python.org"_s));
        if (how == u"http" || how == u"mirror")
            QCOMPARE(apiHits(*m_mirror), 0); // never asked: checksums are taken over https from python.org only
    }

    // --- Linux: python-build-standalone ------------------------------------------------------

    // Without a pin in the catalog (a lab's own catalog, a new minor), SHA256SUMS alone decides.
    void linux_unpinned_takesItsSha256FromTheRelease_neverFromTheMirror()
    {
        m_official->route("/20251031/SHA256SUMS",
                          Response::bytes(QByteArray(64, 'c')
                                          + "  cpython-3.11.14+20251031-aarch64-unknown-linux-gnu-install_only.tar.gz\n"
                                          + sha + "  " + standalone31114.toUtf8() + "\n"));
        m_mirror->route("/20251031/SHA256SUMS",
                        Response::bytes(QByteArray(64, 'e') + "  " + standalone31114.toUtf8() + "\n"));
        MirrorSet mirrors;
        mirrors.add(*MirrorSet::parse(u"python-build-standalone="_s + m_mirror->url(u"/"_s).toString()));
        ArtifactResolver resolver(unpinnedCatalog(), mirrors);
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->kind, u"python-archive"_s);
        QCOMPARE(python->source, u"python-build-standalone"_s);
        QCOMPARE(python->version, u"3.11.14"_s);
        QCOMPARE(python->platform, u"linux-x86_64"_s);
        QCOMPARE(python->archiveFormat, u"tar.gz"_s);
        QCOMPARE(python->relativePath, u"20251031/"_s + standalone31114);
        QCOMPARE(python->fileName(), standalone31114);
        QCOMPARE(python->sha256, QString::fromLatin1(sha));
        QCOMPARE(python->trust, Artifact::Trust::Official);
        QVERIFY(python->checksumUrl.endsWith(u"/20251031/SHA256SUMS"_s));
        QCOMPARE(python->urls.size(), 2);
        QCOMPARE(python->urls.first().port(), int(m_mirror->port()));
        QCOMPARE(python->urls.last().port(), int(m_official->port()));
        QVERIFY((*list)->hasWarning(u"python_relocatable"_s));
        QVERIFY(!(*list)->hasWarning(u"python_not_provided"_s));
        QVERIFY(!(*list)->hasWarning(u"python_checksum_unavailable"_s));
        QCOMPARE(m_official->hits("/20251031/SHA256SUMS"), 1);
        QCOMPARE(m_mirror->hits("/20251031/SHA256SUMS"), 0);
        // The download request carries the release's digest; the mirror is tried first.
        const DownloadRequest request = python->toDownloadRequest(u"/tmp/x"_s);
        QCOMPARE(request.checksum.algorithm, Checksum::Algorithm::Sha256);
        QCOMPARE(request.checksum.hex, sha);
        QCOMPARE(request.urls.size(), 2);
    }

    void linux_unpinned_withoutTheSums_needsTrustOnFirstUse_data()
    {
        QTest::addColumn<QByteArray>("sums"); // empty: not served
        QTest::newRow("no SHA256SUMS") << QByteArray();
        QTest::newRow("file not listed") << QByteArray(
            sha + "  cpython-3.11.13+20251031-x86_64-unknown-linux-gnu-install_only.tar.gz\n");
        QByteArray hostile = "../../etc/passwd  " + standalone31114.toUtf8() + "\n";
        hostile += QByteArray("\0\0\n", 3) + QByteArray(5000, 'f') + "  " + standalone31114.toUtf8() + "\n";
        hostile += sha + standalone31114.toUtf8() + "\n" + sha + "\t" + standalone31114.toUtf8() + "\n";
        QTest::newRow("hostile lines") << hostile;
    }

    void linux_unpinned_withoutTheSums_needsTrustOnFirstUse()
    {
        QFETCH(QByteArray, sums);
        if (!sums.isEmpty())
            m_official->route("/20251031/SHA256SUMS", Response::bytes(sums));
        ArtifactResolver resolver(unpinnedCatalog(), MirrorSet());
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()));
        QVERIFY(list && list->ok());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->kind, u"python-archive"_s);
        QVERIFY(python->needsTrustOnFirstUse());
        QVERIFY((*list)->hasWarning(u"python_checksum_unavailable"_s));
        QVERIFY(!python->toDownloadRequest(u"/tmp/x"_s).checksum.isValid());
    }

    void linux_unknownMinor_orInstalled_offersNothing()
    {
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        ResolveRequest old = linuxPlan();
        old.python = u"3.6"_s;
        const auto list = tfsetup::test::awaitTask(resolver.resolve(old));
        QVERIFY(list && list->ok());
        QVERIFY(!(*list)->find(u"python"_s));
        QVERIFY((*list)->hasWarning(u"python_not_provided"_s));
        ResolveRequest installed = linuxPlan();
        installed.pythonInstalled = true;
        const auto none = tfsetup::test::awaitTask(resolver.resolve(installed));
        QVERIFY(none && none->ok());
        QVERIFY(!(*none)->find(u"python"_s));
        QCOMPARE(m_official->requests().size(), 0);
    }

    // --- Linux: the catalog's pin, cross-checked against the release when it answers -------

    void shippedCatalog_pinsEveryRelocatablePython()
    {
        const auto shipped = SourceCatalog::load();
        QVERIFY(shipped);
        QVERIFY2(shipped->problems().isEmpty(), qPrintable(shipped->problems().join(u'\n')));
        for (const char *minor : {"3.8", "3.9", "3.10", "3.11", "3.12", "3.13"}) {
            const auto build = shipped->standalonePython(QLatin1String(minor));
            QVERIFY2(build, minor);
            QCOMPARE(build->sha256.size(), 64);
            QCOMPARE(build->sha256, build->sha256.toLower());
            QVERIFY2(!build->sha256Source.isEmpty(), minor);
            QVERIFY2(build->verified, minor);
        }
        // Read in two places (rules_python's TOOL_VERSIONS and a second pins file); see the catalog record.
        QCOMPARE(shipped->standalonePython(u"3.11"_s)->sha256,
                 u"60f0bd473d861cc45d3401d9914e47ccb9fa037f88a91879ed517a62042b8477"_s);
    }

    void linux_pinned_githubUnreachable_resolvesWithThePin_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("nothing listens") << u"unreachable"_s;
        QTest::newRow("no SHA256SUMS") << u"404"_s;
        QTest::newRow("server error") << u"503"_s;
        QTest::newRow("a web page instead") << u"html"_s;
        QTest::newRow("never answers") << u"stall"_s;
        QTest::newRow("plain http origin") << u"http"_s;
    }

    void linux_pinned_githubUnreachable_resolvesWithThePin()
    {
        QFETCH(QString, how);
        const QByteArray pin = shippedPin(u"3.11"_s);
        QVERIFY(!pin.isEmpty());
        // A mirror that would vouch for another digest: never asked for checksums.
        m_mirror->route("/20251031/SHA256SUMS",
                        Response::bytes(QByteArray(64, 'e') + "  " + standalone31114.toUtf8() + "\n"));
        MirrorSet mirrors;
        mirrors.add(*MirrorSet::parse(u"python-build-standalone="_s + m_mirror->url(u"/"_s).toString()));
        QUrl origin = m_official->url(u"/"_s);
        if (how == u"unreachable")
            origin = QUrl(u"https://127.0.0.1:9/"_s);
        else if (how == u"503")
            m_official->route("/20251031/SHA256SUMS", Response::status(503));
        else if (how == u"html")
            m_official->route("/20251031/SHA256SUMS", Response::htmlErrorPage());
        else if (how == u"stall")
            m_official->route(
                "/20251031/SHA256SUMS",
                Response::bytes(pin + "  " + standalone31114.toUtf8() + "\n").delayHeaders(std::chrono::seconds(60)));
        else if (how == u"http")
            origin = m_mirror->url(u"/"_s);
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"python-build-standalone"_s, origin);
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        // The resolver's own timeout stays its default (30 s): a pinned archive must not wait for it.
        QElapsedTimer clock;
        clock.start();
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()), std::chrono::seconds(40));
        const qint64 took = clock.elapsed();
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->kind, u"python-archive"_s);
        QCOMPARE(python->sha256, QString::fromLatin1(pin));
        QCOMPARE(python->trust, Artifact::Trust::Official);
        QVERIFY(!python->needsTrustOnFirstUse());
        QVERIFY(python->checksumUrl.isEmpty()); // nothing confirmed it
        QVERIFY2(python->note.contains(u"could not be read"_s), qPrintable(python->note));
        QVERIFY(python->note.contains(u"rules_python"_s)); // where the pin came from
        QVERIFY((*list)->hasWarning(u"python_relocatable"_s));
        QVERIFY(!(*list)->hasWarning(u"python_checksum_unavailable"_s));
        const DownloadRequest request = python->toDownloadRequest(u"/tmp/x"_s);
        QCOMPARE(request.checksum.algorithm, Checksum::Algorithm::Sha256);
        QCOMPARE(request.checksum.hex, pin);
        QVERIFY2(took < ArtifactResolver::pinCrossCheckTimeout.count() + 5000, qPrintable(QString::number(took)));
        QCOMPARE(m_mirror->hits("/20251031/SHA256SUMS"), 0);
        if (how != u"unreachable" && how != u"http") // the one request: SHA256SUMS, once, no retry
            QCOMPARE(m_official->requests().size(), 1);
        if (how == u"http")
            QCOMPARE(m_official->requests().size(), 0);
    }

    void linux_pinned_sumsThatAgree_confirmThePin()
    {
        const QByteArray pin = shippedPin(u"3.11"_s);
        QVERIFY(!pin.isEmpty());
        m_official->route("/20251031/SHA256SUMS",
                          Response::bytes(QByteArray(64, 'c')
                                          + "  cpython-3.11.14+20251031-aarch64-unknown-linux-gnu-install_only.tar.gz\n"
                                          + pin + "  " + standalone31114.toUtf8() + "\n"));
        ArtifactResolver resolver(catalog(), MirrorSet());
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()));
        QVERIFY(list);
        QVERIFY2(list->ok(), why(*list).constData());
        const Artifact *python = (*list)->find(u"python"_s);
        QVERIFY(python);
        QCOMPARE(python->sha256, QString::fromLatin1(pin));
        QCOMPARE(python->trust, Artifact::Trust::Official);
        QVERIFY(python->checksumUrl.endsWith(u"/20251031/SHA256SUMS"_s));
        QVERIFY2(python->note.contains(u"confirmed"_s), qPrintable(python->note));
        QVERIFY(!(*list)->hasWarning(u"python_checksum_unavailable"_s));
        QCOMPARE(m_official->hits("/20251031/SHA256SUMS"), 1);
    }

    void linux_pinned_sumsThatDisagree_refuseTheArchiveNamingBoth()
    {
        const QByteArray pin = shippedPin(u"3.11"_s);
        QVERIFY(!pin.isEmpty());
        m_official->route("/20251031/SHA256SUMS", Response::bytes(sha + "  " + standalone31114.toUtf8() + "\n"));
        // A mirror that agrees with the pin changes nothing: only the publisher's list is read.
        m_mirror->route("/20251031/SHA256SUMS", Response::bytes(pin + "  " + standalone31114.toUtf8() + "\n"));
        MirrorSet mirrors;
        mirrors.add(*MirrorSet::parse(u"python-build-standalone="_s + m_mirror->url(u"/"_s).toString()));
        ArtifactResolver resolver(catalog(), mirrors);
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()));
        QVERIFY(list);
        QVERIFY(!list->ok());
        const Error &e = list->error();
        QCOMPARE(e.code, u"python_checksum_mismatch"_s);
        QVERIFY2(e.message.contains(QString::fromLatin1(sha)), qPrintable(e.message));
        QVERIFY2(e.message.contains(QString::fromLatin1(pin)), qPrintable(e.message));
        QVERIFY(e.message.contains(standalone31114));
        QVERIFY(e.message.contains(u"20251031"_s));
        QVERIFY(e.detail.contains(u"/20251031/SHA256SUMS"_s));
        QCOMPARE(m_mirror->hits("/20251031/SHA256SUMS"), 0);
    }

    void catalog_malformedPin_isRefusedNamingTheRecord_data()
    {
        QTest::addColumn<QJsonValue>("pin");
        const QString good = QString::fromLatin1(sha);
        QTest::newRow("upper case") << QJsonValue(good.toUpper());
        QTest::newRow("63 digits") << QJsonValue(good.left(63));
        QTest::newRow("65 digits") << QJsonValue(good + u'0');
        QTest::newRow("not hex") << QJsonValue(QString(64, u'g'));
        QTest::newRow("spaces around") << QJsonValue(u' ' + good + u' ');
        QTest::newRow("empty") << QJsonValue(QString());
        QTest::newRow("a number") << QJsonValue(5);
        QTest::newRow("an object") << QJsonValue(QJsonObject{{u"sha256"_s, good}});
        QTest::newRow("very long") << QJsonValue(QString(100000, u'a'));
    }

    void catalog_malformedPin_isRefusedNamingTheRecord()
    {
        QFETCH(QJsonValue, pin);
        const auto broken = SourceCatalog::fromJson(sourcesWithPin(u"3.11"_s, pin));
        QVERIFY(!broken.ok());
        QCOMPARE(broken.error().code, u"catalog_malformed"_s);
        QVERIFY2(broken.error().message.contains(u"3.11.14"_s), qPrintable(broken.error().message));
        QVERIFY(broken.error().message.contains(u"20251031"_s));
        QVERIFY(broken.error().message.size() < 600); // a hostile value is not echoed whole
        QVERIFY(broken.error().detail.contains(u"minor 3.11"_s));
    }

    void catalog_pinWithoutItsSource_isAProblem_nullIsNoPin()
    {
        QJsonObject root = QJsonDocument::fromJson(sourcesWithPin({}, QJsonValue(QJsonValue::Undefined))).object();
        QJsonObject python = root.value(u"python"_s).toObject();
        QJsonObject standalone = python.value(u"standalone"_s).toObject();
        QJsonArray releases = standalone.value(u"releases"_s).toArray();
        QJsonObject first = releases.at(0).toObject();
        first.insert(u"sha256"_s, QString::fromLatin1(sha));
        first.remove(u"sha256_source"_s);
        releases.replace(0, first);
        QJsonObject second = releases.at(1).toObject();
        second.insert(u"sha256"_s, QJsonValue(QJsonValue::Null));
        releases.replace(1, second);
        standalone.insert(u"releases"_s, releases);
        python.insert(u"standalone"_s, standalone);
        root.insert(u"python"_s, python);
        const auto c = SourceCatalog::fromJson(QJsonDocument(root).toJson());
        QVERIFY(c.ok());
        const QStringList problems = c->problems();
        QVERIFY2(problems.size() == 1 && problems.first().contains(u"sha256 without sha256_source"_s),
                 qPrintable(problems.join(u'\n')));
        QVERIFY(problems.first().contains(first.value(u"version"_s).toString()));
        const auto unpinned = c->standalonePython(second.value(u"minor"_s).toString());
        QVERIFY(unpinned);
        QVERIFY(unpinned->sha256.isEmpty());
    }

    // --- End to end: resolve, download, install, venv from the unpacked interpreter -------

    void linux_relocatableBuild_installsAndTheVenvIsMadeFromIt()
    {
        const QString system = QStandardPaths::findExecutable(u"python3"_s);
        if (system.isEmpty())
            QSKIP("python3 is not installed");
        QTemporaryDir probe;
        QProcess venvProbe;
        venvProbe.start(system, {u"-m"_s, u"venv"_s, probe.filePath(u"v"_s)});
        if (!venvProbe.waitForFinished(120000) || venvProbe.exitCode() != 0)
            QSKIP("python3 -m venv does not work here (Debian/Ubuntu: install python3-venv)");

        // An archive shaped like python-build-standalone's install_only: one python/ folder whose
        // bin/python3 is a stand-in that runs this machine's Python.
        const QString archive = m_files.filePath(u"built-"_s + standalone31114);
        const QByteArray wrapper = "#!/bin/sh\nexec '" + system.toUtf8() + "' \"$@\"\n";
        QVERIFY(ArchiveWriter::write(
            archive, ArchiveWriter::TarGz,
            {{ArchiveWriter::Entry::Folder, u"python/"_s, {}, {}, 0755},
             {ArchiveWriter::Entry::Folder, u"python/bin/"_s, {}, {}, 0755},
             {ArchiveWriter::Entry::File, u"python/bin/python3.11"_s, wrapper, {}, 0755},
             {ArchiveWriter::Entry::Symlink, u"python/bin/python3"_s, {}, u"python3.11"_s, 0777},
             {ArchiveWriter::Entry::File, u"python/lib/python3.11/os.py"_s, "# stand-in\n", {}, 0644}}));
        QFile built(archive);
        QVERIFY(built.open(QIODevice::ReadOnly));
        const QByteArray bytes = built.readAll();
        m_official->route(standalonePath, Response::bytes(bytes, "application/gzip"));
        m_official->route("/20251031/SHA256SUMS",
                          Response::bytes(sha256Of(bytes) + "  " + standalone31114.toUtf8() + "\n"));

        const auto artifact = resolveStandalone(catalogPinning(sha256Of(bytes)));
        QVERIFY(artifact);
        QCOMPARE(artifact->sha256, QString::fromLatin1(sha256Of(bytes)));
        QTemporaryDir cache;
        const auto downloaded = download(*artifact, cache.filePath(artifact->fileName()));
        QVERIFY(downloaded);
        QVERIFY2(downloaded->ok(), qPrintable(downloaded->ok() ? QString() : downloaded->error().message));

        QTemporaryDir prefix;
        InstallSpec spec;
        spec.name = u"tf-python"_s;
        spec.prefix = prefix.path();
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.18.0"_s;
        spec.python = u"3.11"_s;
        spec.registerKernel = false;
        spec.desktopEntry = false;
        spec.artifacts.append(InstallArtifact{artifact->kind, artifact->name, artifact->version, artifact->platform,
                                              artifact->sha256.toLatin1(), (*downloaded)->path,
                                              artifact->urls.constLast().toString()});
        RealSystem real;
        Installer installer(real, tfsetup::test::shippedKnowledge());
        const auto outcome = tfsetup::test::awaitTask(installer.install(spec), std::chrono::seconds(180));
        QVERIFY(outcome);
        QVERIFY2(outcome->ok(),
                 qPrintable(outcome->ok() ? QString() : outcome->error().message + u'\n' + outcome->error().detail));

        const QString env = prefix.filePath(u"tf-python"_s);
        QVERIFY(QFileInfo(env + u"/python/bin/python3.11"_s).isExecutable());
        QVERIFY(QFileInfo(env + u"/python/bin/python3"_s).isSymLink());
        QVERIFY(!QFileInfo::exists(env + u"/.unpack-python"_s));
        const auto record = EnvironmentRecord::read(env);
        QVERIFY(record);
        bool madeFromIt = false;
        for (const auto &c : record->commands)
            madeFromIt = madeFromIt || (c.program == env + u"/python/bin/python3"_s && c.arguments.contains(u"venv"_s));
        QVERIFY2(madeFromIt, "the venv was not made from the unpacked interpreter");
        bool recorded = false;
        for (const RecordedFile &f : record->files)
            recorded = recorded || (f.path == u"python/bin/python3.11"_s && f.sha256 == sha256Of(wrapper));
        QVERIFY(recorded);
        QProcess venvPython;
        venvPython.start(env + u"/venv/bin/python"_s, {u"-c"_s, u"import sys; print(sys.prefix != sys.base_prefix)"_s});
        QVERIFY(venvPython.waitForFinished(60000));
        QCOMPARE(venvPython.readAllStandardOutput().trimmed(), QByteArray("True"));

        // The same archive again: the environment is complete, nothing is rebuilt.
        Installer again(real, tfsetup::test::shippedKnowledge());
        const auto second = tfsetup::test::awaitTask(again.install(spec), std::chrono::seconds(180));
        QVERIFY(second && second->ok());
        QVERIFY((*second)->unchanged);
    }

    void linux_archiveThatDoesNotMatchThePin_isRefusedByName()
    {
        const QByteArray bytes = "not the archive that was published";
        m_official->route(standalonePath, Response::bytes(bytes, "application/gzip"));
        const auto artifact = resolveStandalone(catalogPinning(sha)); // no SHA256SUMS: the pin alone decides
        QVERIFY(artifact);
        QCOMPARE(artifact->sha256, QString::fromLatin1(sha));
        QCOMPARE(m_official->hits("/20251031/SHA256SUMS"), 1);
        QVERIFY(artifact);
        QTemporaryDir cache;
        const QString destination = cache.filePath(artifact->fileName());
        const auto downloaded = download(*artifact, destination);
        QVERIFY(downloaded);
        QVERIFY(!downloaded->ok());
        QCOMPARE(downloaded->error().code, u"checksum_mismatch"_s);
        QVERIFY2(downloaded->error().message.contains(u"3.11.14"_s)
                     || downloaded->error().message.contains(standalone31114),
                 qPrintable(downloaded->error().message));
        QVERIFY(!QFileInfo::exists(destination));
    }

    void linux_archiveThatIsNotRelocatable_isRefused()
    {
        const QString archive = m_files.filePath(u"flat.tar.gz"_s);
        QVERIFY(ArchiveWriter::write(archive, ArchiveWriter::TarGz,
                                     {{ArchiveWriter::Entry::File, u"bin/python3"_s, "#!/bin/sh\n", {}, 0755}}));
        QFile f(archive);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QTemporaryDir prefix;
        InstallSpec spec;
        spec.name = u"tf-flat"_s;
        spec.prefix = prefix.path();
        spec.route = u"linux-pip"_s;
        spec.tensorflow = u"2.18.0"_s;
        spec.registerKernel = false;
        spec.desktopEntry = false;
        spec.artifacts.append(InstallArtifact{
            u"python-archive"_s, u"python"_s, u"3.11.14"_s, u"linux-x86_64"_s, sha256Of(f.readAll()), archive, {}});
        RealSystem real;
        Installer installer(real, tfsetup::test::shippedKnowledge());
        const auto outcome = tfsetup::test::awaitTask(installer.install(spec), std::chrono::seconds(60));
        QVERIFY(outcome);
        QVERIFY(!outcome->ok());
        QCOMPARE(outcome->error().code, u"python_archive_layout"_s);
        QVERIFY(outcome->error().message.contains(u"flat.tar.gz"_s));
        QVERIFY(!QFileInfo::exists(prefix.filePath(u"tf-flat"_s)));
    }

    void relocateVenv_rewritesWhatNamedTheStagingFolder()
    {
        QTemporaryDir dir;
        const QString staging = dir.filePath(u".env.staging-x"_s);
        const QString target = dir.filePath(u"env"_s);
        QVERIFY(QDir().mkpath(target + u"/venv/bin"_s));
        QVERIFY(QDir().mkpath(target + u"/python/bin"_s));
        QFile cfg(target + u"/venv/pyvenv.cfg"_s);
        QVERIFY(cfg.open(QIODevice::WriteOnly));
        cfg.write("home = " + staging.toUtf8()
                  + "/python/bin\ninclude-system-site-packages = false\nversion = 3.11.14\n");
        cfg.close();
        QVERIFY(QFile::link(staging + u"/python/bin/python3"_s, target + u"/venv/bin/python"_s));
        QVERIFY(QFile::link(u"/usr/bin/env"_s, target + u"/venv/bin/other"_s));
        const QStringList done = Installer::relocateVenv(target + u"/venv"_s, staging, target);
        QCOMPARE(done.size(), 2);
        QVERIFY(cfg.open(QIODevice::ReadOnly));
        const QByteArray text = cfg.readAll();
        QVERIFY(text.contains(QByteArray("home = " + target.toUtf8() + "/python/bin\n")));
        QVERIFY(!text.contains(".staging-"));
        QCOMPARE(QFileInfo(target + u"/venv/bin/python"_s).symLinkTarget(), target + u"/python/bin/python3"_s);
        QCOMPARE(QFileInfo(target + u"/venv/bin/other"_s).symLinkTarget(), u"/usr/bin/env"_s);
    }

    // --- Bundles carry the relocatable build in its own folder -------------------------------

    void bundle_keepsTheArchiveUnderItsOrigin()
    {
        const QByteArray bytes = "a python archive";
        m_official->route(standalonePath, Response::bytes(bytes, "application/gzip"));
        m_official->route("/20251031/SHA256SUMS", Response::status(503)); // GitHub does not answer: the pin carries it
        const auto artifact = resolveStandalone(catalogPinning(sha256Of(bytes)));
        QVERIFY(artifact);
        QCOMPARE(artifact->sha256, QString::fromLatin1(sha256Of(bytes)));
        QVERIFY(!artifact->needsTrustOnFirstUse());
        ArtifactList list;
        list.route = u"linux-pip"_s;
        list.tensorflow = u"2.18.0"_s;
        list.os = u"linux"_s;
        list.artifacts.append(*artifact);
        QCOMPARE(BundleWriter::bundlePathOf(*artifact), u"python-build-standalone/20251031/"_s + standalone31114);
        QTemporaryDir out;
        Downloader downloader(transferOptions(), DownloadCache());
        BundleWriter writer(downloader);
        BundleOptions options;
        options.directory = out.path();
        options.includeWheelhouse = false;
        options.transfer = transferOptions();
        const auto bundle = tfsetup::test::awaitTask(writer.write(list, {}, options), std::chrono::seconds(60));
        QVERIFY(bundle);
        QVERIFY2(bundle->ok(),
                 qPrintable(bundle->ok() ? QString() : bundle->error().message + u'\n' + bundle->error().detail));
        QFile kept(out.filePath(u"python-build-standalone/20251031/"_s + standalone31114));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), bytes);
        QVERIFY((*bundle)->verify().ok());
        const Artifact *back = (*bundle)->artifacts().find(u"python"_s);
        QVERIFY(back);
        QCOMPARE(back->kind, u"python-archive"_s);
        QCOMPARE(back->sha256, artifact->sha256);
        QCOMPARE(back->trust, Artifact::Trust::Official);
        QFile record(out.filePath(u"bundle.json"_s));
        QVERIFY(record.open(QIODevice::ReadOnly));
        QVERIFY(record.readAll().contains(sha256Of(bytes))); // the pin travels with the bundle
    }

private:
    TransferOptions transferOptions() const
    {
        TransferOptions options;
        options.caBundle = m_caFile;
        options.connectTimeout = std::chrono::seconds(5);
        options.stallTimeout = std::chrono::seconds(5);
        options.retriesPerMirror = 0;
        return options;
    }

    std::optional<Artifact> resolveStandalone(SourceCatalog sources)
    {
        ArtifactResolver resolver(std::move(sources), MirrorSet());
        resolver.setOriginBase(u"python-build-standalone"_s, m_official->url(u"/"_s));
        resolver.setOriginBase(u"pypi-json"_s, QUrl(u"http://127.0.0.1:9/pypi"_s)); // no wheel check on the internet
        {
            TransferOptions withCa = resolver.transferOptions();
            withCa.caBundle = m_caFile;
            resolver.setTransferOptions(withCa);
        }
        const auto list = tfsetup::test::awaitTask(resolver.resolve(linuxPlan()));
        if (!list || !list->ok() || !(*list)->find(u"python"_s))
            return std::nullopt;
        return *(*list)->find(u"python"_s);
    }

    std::optional<Result<DownloadResult>> download(const Artifact &artifact, const QString &destination)
    {
        Downloader downloader(transferOptions(), DownloadCache());
        return tfsetup::test::awaitTask(downloader.fetch(artifact.toDownloadRequest(destination)),
                                        std::chrono::seconds(60));
    }

    QTemporaryDir m_files;
    QString m_caFile;
    std::unique_ptr<LoopbackServer> m_official;
    std::unique_ptr<LoopbackServer> m_mirror;
};

QTEST_GUILESS_MAIN(TestSourcesPython)
#include "test_sources_python.moc"
