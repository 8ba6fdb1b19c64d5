// The loopback package index (support/testindex.h) as Debian's own pip sees it: pip resolves
// from its PEP 658 metadata files when the pages are HTML, from the wheels when metadata is off,
// reads PEP 691 JSON when it is served, and fails on a wheel cut short. Wheels are real (built
// with zipfile), pip is /usr/bin/python3 -m pip (23.0.1 on bookworm), nothing leaves 127.0.0.1.

#include "support/coroutinetest.h"
#include "support/files.h"
#include "support/httpclient.h"
#include "support/loopbackserver.h"
#include "support/processes.h"
#include "support/testindex.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QVersionNumber>

using namespace Qt::StringLiterals;
using tfsetup::test::awaitTask;
using tfsetup::test::buildLargeWheel;
using tfsetup::test::buildWheel;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Ran;
using tfsetup::test::readFile;
using tfsetup::test::RecordedRequest;
using tfsetup::test::Response;
using tfsetup::test::runProcess;
using tfsetup::test::TestIndex;
using tfsetup::test::wheelMetadata;

namespace {

const QString debianPython = u"/usr/bin/python3"_s;
constexpr qint64 mebibyte = 1 << 20;
constexpr qint64 bigWheelBytes = 4 * mebibyte;

// alpha needs beta_two, gamma and delta; gamma 2.0 wants a Python that does not exist, so pip
// must take gamma 1.0 from data-requires-python alone; delta's local version puts a "+" in a
// file name. bigwheel is for the transfer tests.
const QString alphaWheel = u"alpha-1.0-py3-none-any.whl"_s;
const QString betaWheel = u"beta_two-2.0-py3-none-any.whl"_s;
const QString gammaWheel = u"gamma-1.0-py3-none-any.whl"_s;
const QString gammaFutureWheel = u"gamma-2.0-py3-none-any.whl"_s;
const QString deltaWheel = u"delta-1.0+local-py3-none-any.whl"_s;
const QString bigWheel = u"bigwheel-1.0-py3-none-any.whl"_s;
const QString futurePython = u">=3.99, <4"_s;

QByteArray sha256Of(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

struct Resolved {
    QString version;
    QString url;
    QByteArray sha256;
};

// pip's installation report (--report): project name -> what it would install, from where.
QHash<QString, Resolved> readReport(const QString &path)
{
    QHash<QString, Resolved> resolved;
    const QJsonArray install = QJsonDocument::fromJson(readFile(path)).object().value(u"install"_s).toArray();
    for (const QJsonValue &item : install) {
        const QJsonObject o = item.toObject();
        const QJsonObject download = o.value(u"download_info"_s).toObject();
        const QString hash = download.value(u"archive_info"_s).toObject().value(u"hash"_s).toString();
        resolved.insert(o.value(u"metadata"_s).toObject().value(u"name"_s).toString(),
                        {o.value(u"metadata"_s).toObject().value(u"version"_s).toString(),
                         download.value(u"url"_s).toString(),
                         hash.startsWith(u"sha256="_s) ? hash.mid(7).toLatin1() : QByteArray()});
    }
    return resolved;
}

// Position of the first (or last) request whose path ends with suffix; -1 when none.
qsizetype firstRequest(const QList<RecordedRequest> &log, const QByteArray &suffix)
{
    for (qsizetype i = 0; i < log.size(); ++i) {
        if (log[i].path.endsWith(suffix))
            return i;
    }
    return -1;
}

qsizetype lastRequest(const QList<RecordedRequest> &log, const QByteArray &suffix)
{
    for (qsizetype i = log.size() - 1; i >= 0; --i) {
        if (log[i].path.endsWith(suffix))
            return i;
    }
    return -1;
}

} // namespace

class TestSupportIndex final : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void resolve_htmlWithMetadata_readsMetadataBeforeAnyWheel();
    void resolve_metadataOff_downloadsWheelsToResolve();
    void pages_html_carryHashesRequiresPythonAndMetadata();
    void pages_json_whenAsked_withSizesAndHashes();
    void resolve_jsonPages_pipTakesJson();
    void fault_dropAfter_failsPipDownload_andRangeStillHonoured();
    void fault_throttle_takesTheTimeItShould();
    void largeWheel_isDeterministicIncompressibleAndInstalls();

private:
    Ran pip(const QStringList &arguments) const;
    QString path(const QString &name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    LoopbackServer m_server;
    std::unique_ptr<TestIndex> m_index;
    QNetworkAccessManager m_manager;
    QVersionNumber m_pipVersion;
};

Ran TestSupportIndex::pip(const QStringList &arguments) const
{
    // Nothing of the machine's pip configuration, caches or proxies may reach these runs.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &name : env.keys()) {
        if (name.startsWith(u"PIP_"_s) || name.startsWith(u"PYTHON"_s) || name.toLower().endsWith(u"_proxy"_s))
            env.remove(name);
    }
    env.insert(u"HOME"_s, path(u"home"_s));
    env.insert(u"XDG_CACHE_HOME"_s, path(u"home/.cache"_s));
    env.insert(u"PIP_CONFIG_FILE"_s, u"/dev/null"_s);
    env.insert(u"NO_PROXY"_s, u"127.0.0.1,localhost"_s);
    return runProcess(debianPython,
                      QStringList{u"-m"_s, u"pip"_s, u"--isolated"_s, u"--no-cache-dir"_s,
                                  u"--disable-pip-version-check"_s, u"--no-input"_s, u"--retries"_s, u"0"_s,
                                  u"--timeout"_s, u"30"_s}
                          + arguments,
                      180000, env);
}

void TestSupportIndex::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir().mkpath(path(u"home"_s)));
    QVERIFY(QDir().mkpath(path(u"wheels"_s)));
    const Ran version = pip({u"--version"_s});
    if (!version.finished || version.exitCode != 0)
        QSKIP("Debian's python3 has no pip (.ci/packages-test: python3-pip)");
    static const QRegularExpression number(u"^pip (\\S+)"_s);
    m_pipVersion = QVersionNumber::fromString(number.match(QString::fromUtf8(version.out)).captured(1));
    QVERIFY2(!m_pipVersion.isNull(), version.out.constData());

    const auto wheel = [this](const QString &file) { return path(u"wheels/"_s + file); };
    QVERIFY(buildWheel(debianPython, wheel(alphaWheel), u"alpha"_s, u"1.0"_s, "", u"alpha"_s,
                       {u"beta_two>=1"_s, u"gamma"_s, u"delta"_s}));
    QVERIFY(buildWheel(debianPython, wheel(betaWheel), u"beta_two"_s, u"2.0"_s, "", u"beta_two"_s, {}));
    QVERIFY(buildWheel(debianPython, wheel(gammaWheel), u"gamma"_s, u"1.0"_s, "", u"gamma"_s, {}));
    QVERIFY(buildWheel(debianPython, wheel(gammaFutureWheel), u"gamma"_s, u"2.0"_s, "", u"gamma"_s, {}, futurePython));
    QVERIFY(buildWheel(debianPython, wheel(deltaWheel), u"delta"_s, u"1.0+local"_s, "", u"delta"_s, {}));
    QVERIFY(buildLargeWheel(debianPython, wheel(bigWheel), u"bigwheel"_s, u"1.0"_s, bigWheelBytes));
    // buildWheel leaves the module source next to the wheel; the index takes only *.whl.
    QVERIFY(m_server.start());
    m_index = std::make_unique<TestIndex>(m_server);
    QCOMPARE(m_index->addWheelsFrom(path(u"wheels"_s)), 6);
}

void TestSupportIndex::init()
{
    m_index->setMetadata(true);
    m_index->setJson(true);
    m_index->setHashes(true);
    m_index->setWheelFault({});
    m_server.clearRequests();
}

void TestSupportIndex::resolve_htmlWithMetadata_readsMetadataBeforeAnyWheel()
{
    // pip 23.0 finds PEP 658 metadata only on HTML pages (see pages_json_…).
    m_index->setJson(false);
    const QString report = path(u"report-metadata.json"_s);
    const Ran ran = pip({u"install"_s, u"--dry-run"_s, u"--ignore-installed"_s, u"--report"_s, report, u"--index-url"_s,
                         m_index->url().toString(), u"alpha"_s});
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());

    // The whole resolution ran on metadata: one file per chosen wheel, all before any wheel;
    // gamma 2.0 was ruled out by data-requires-python without a request.
    QCOMPARE(m_index->metadataRequests(), 4);
    const QList<RecordedRequest> log = m_server.requests();
    for (const QString &w : {alphaWheel, betaWheel, gammaWheel, deltaWheel})
        QVERIFY2(firstRequest(log, QUrl::toPercentEncoding(w) + ".metadata") >= 0, qPrintable(w));
    QVERIFY(firstRequest(log, gammaFutureWheel.toUtf8() + ".metadata") < 0);
    QVERIFY(m_index->requestsFor(gammaFutureWheel).isEmpty());
    const qsizetype lastMetadata = lastRequest(log, ".metadata");
    for (qsizetype i = 0; i < lastMetadata; ++i)
        QVERIFY2(!log[i].path.endsWith(".whl"), log[i].path.constData());
    // pip up to 25.2 still fetches every wheel after a dry-run resolve (pypa/pip#12603), and
    // 23.0 fetches each twice (pypa/pip#11847): a reason for tfsetup not to rely on it.
    qInfo("pip %s: %d metadata files, then %d wheel downloads", qPrintable(m_pipVersion.toString()),
          m_index->metadataRequests(), m_index->wheelRequests());

    const QHash<QString, Resolved> resolved = readReport(report);
    QCOMPARE(resolved.size(), 4);
    const QList<std::pair<QString, QString>> expected{
        {u"alpha"_s, alphaWheel}, {u"beta_two"_s, betaWheel}, {u"gamma"_s, gammaWheel}, {u"delta"_s, deltaWheel}};
    for (const auto &[name, file] : expected) {
        QVERIFY2(resolved.contains(name), qPrintable(name));
        QCOMPARE(resolved[name].url, QString::fromUtf8(m_index->fileUrl(file).toEncoded()));
        QCOMPARE(resolved[name].sha256, m_index->sha256(file));
    }
    QCOMPARE(resolved[u"gamma"_s].version, u"1.0"_s);
    QCOMPARE(resolved[u"delta"_s].version, u"1.0+local"_s);
    QVERIFY(resolved[u"delta"_s].url.contains(u"%2B"_s));
}

void TestSupportIndex::resolve_metadataOff_downloadsWheelsToResolve()
{
    m_index->setJson(false);
    m_index->setMetadata(false);
    const QString report = path(u"report-wheels.json"_s);
    const Ran ran = pip({u"install"_s, u"--dry-run"_s, u"--ignore-installed"_s, u"--report"_s, report, u"--index-url"_s,
                         m_index->url().toString(), u"alpha"_s});
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());

    // Without metadata pip learns alpha's dependencies from alpha's wheel: it is downloaded
    // before the dependencies' pages are asked for.
    QCOMPARE(m_index->metadataRequests(), 0);
    const QList<RecordedRequest> log = m_server.requests();
    const qsizetype alpha = firstRequest(log, alphaWheel.toUtf8());
    QVERIFY(alpha >= 0);
    QVERIFY(alpha < firstRequest(log, "/simple/beta-two/"));
    QVERIFY(m_index->wheelRequests() >= 4);

    const QHash<QString, Resolved> resolved = readReport(report);
    QCOMPARE(resolved.size(), 4);
    QCOMPARE(resolved[u"beta_two"_s].sha256, m_index->sha256(betaWheel));
    QCOMPARE(resolved[u"gamma"_s].version, u"1.0"_s);
}

void TestSupportIndex::pages_html_carryHashesRequiresPythonAndMetadata()
{
    // A second index under a prefix, on the same server, for the switches' effect on the page.
    TestIndex lab(m_server, "/lab/");
    QVERIFY(lab.addWheel(path(u"wheels/"_s + gammaFutureWheel)));
    QVERIFY(lab.addWheel(path(u"wheels/"_s + deltaWheel)));
    QCOMPARE(lab.url(), m_server.url(u"/lab/simple/"_s));

    const auto page = [&](const QString &project) {
        return awaitTask(tfsetup::test::fetch(&m_manager, QNetworkRequest(lab.url().resolved(QUrl(project)))));
    };
    const QByteArray metadataDigest = sha256Of(wheelMetadata(path(u"wheels/"_s + gammaFutureWheel)));
    auto gamma = page(u"gamma/"_s);
    QVERIFY(gamma);
    QCOMPARE(gamma->status, 200);
    QVERIFY(gamma->header("Content-Type").startsWith("text/html"));
    const QByteArray link = "href=\"../../files/" + gammaFutureWheel.toUtf8()
        + "#sha256=" + lab.sha256(gammaFutureWheel) + '"';
    QVERIFY2(gamma->body.contains(link), gamma->body.constData());
    QVERIFY(gamma->body.contains("data-requires-python=\"&gt;=3.99, &lt;4\""));
    QVERIFY(gamma->body.contains(QByteArray("data-dist-info-metadata=\"sha256=" + metadataDigest + '"')));
    QVERIFY(gamma->body.contains(QByteArray("data-core-metadata=\"sha256=" + metadataDigest + '"')));

    // The metadata file is the wheel's METADATA, byte for byte; the "+" name answers both ways.
    auto metadata = awaitTask(tfsetup::test::fetch(
        &m_manager, QNetworkRequest(QUrl(lab.fileUrl(gammaFutureWheel).toString() + u".metadata"_s))));
    QVERIFY(metadata);
    QCOMPARE(metadata->status, 200);
    QCOMPARE(sha256Of(metadata->body), metadataDigest);
    QVERIFY(metadata->body.contains("Requires-Python: >=3.99, <4"));
    for (const QByteArray &spelling : {QByteArray("/lab/files/delta-1.0+local-py3-none-any.whl"),
                                       QByteArray("/lab/files/delta-1.0%2Blocal-py3-none-any.whl")}) {
        auto wheel = awaitTask(tfsetup::test::fetch(
            &m_manager, QNetworkRequest(QUrl::fromEncoded(m_server.url().toEncoded(QUrl::RemovePath) + spelling))));
        QVERIFY(wheel);
        QCOMPARE(wheel->status, 200);
        QCOMPARE(sha256Of(wheel->body), lab.sha256(deltaWheel));
    }

    lab.setMetadata(false);
    lab.setHashes(false);
    gamma = page(u"gamma/"_s);
    QVERIFY(gamma);
    QVERIFY(!gamma->body.contains("metadata"));
    QVERIFY(!gamma->body.contains("#sha256="));
    metadata = awaitTask(tfsetup::test::fetch(
        &m_manager, QNetworkRequest(QUrl(lab.fileUrl(gammaFutureWheel).toString() + u".metadata"_s))));
    QVERIFY(metadata);
    QCOMPARE(metadata->status, 404);

    auto list = page(QString());
    QVERIFY(list);
    QVERIFY(list->body.contains("<a href=\"delta/\">delta</a>"));
    QVERIFY(list->body.contains("<a href=\"gamma/\">gamma</a>"));
    // The first index's projects are not the second's.
    QVERIFY(!list->body.contains("alpha"));
}

void TestSupportIndex::pages_json_whenAsked_withSizesAndHashes()
{
    const auto get = [&](const QUrl &url, const QByteArray &accept) {
        QNetworkRequest request(url);
        if (!accept.isEmpty())
            request.setRawHeader("Accept", accept);
        return awaitTask(tfsetup::test::fetch(&m_manager, request));
    };
    const QByteArray pipAccept = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, "
                                 "text/html; q=0.01";
    auto reply = get(m_index->url().resolved(QUrl(u"gamma/"_s)), pipAccept);
    QVERIFY(reply);
    QCOMPARE(reply->status, 200);
    QCOMPARE(reply->header("Content-Type"), "application/vnd.pypi.simple.v1+json");
    const QJsonObject page = QJsonDocument::fromJson(reply->body).object();
    QCOMPARE(page.value(u"meta"_s).toObject().value(u"api-version"_s).toString(), u"1.1"_s);
    QCOMPARE(page.value(u"name"_s).toString(), u"gamma"_s);
    QCOMPARE(page.value(u"versions"_s).toArray(), (QJsonArray{u"1.0"_s, u"2.0"_s}));
    const QJsonArray files = page.value(u"files"_s).toArray();
    QCOMPARE(files.size(), 2);
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString name = file.value(u"filename"_s).toString();
        const QString onDisk = path(u"wheels/"_s + name);
        QCOMPARE(file.value(u"size"_s).toInteger(), QFileInfo(onDisk).size());
        QCOMPARE(file.value(u"hashes"_s).toObject().value(u"sha256"_s).toString().toLatin1(), m_index->sha256(name));
        QCOMPARE(m_index->url().resolved(QUrl(file.value(u"url"_s).toString())), m_index->fileUrl(name));
        QCOMPARE(file.value(u"core-metadata"_s).toObject().value(u"sha256"_s).toString().toLatin1(),
                 sha256Of(wheelMetadata(onDisk)));
        // PEP 714: never the old key, on which pip 22.3 to 23.1 crash.
        QVERIFY(!file.contains(u"dist-info-metadata"_s));
        QCOMPARE(file.value(u"requires-python"_s).toString(), name == gammaFutureWheel ? futurePython : QString());
    }

    reply = get(m_index->url(), pipAccept);
    QVERIFY(reply);
    const QJsonArray projects = QJsonDocument::fromJson(reply->body).object().value(u"projects"_s).toArray();
    QCOMPARE(projects.size(), 5);
    QVERIFY(projects.contains(QJsonObject{{u"name"_s, u"beta-two"_s}}));

    // Who does not ask, or prefers HTML, gets HTML; so does everyone when JSON is off.
    for (const QByteArray &accept :
         {QByteArray(), QByteArray("*/*"), QByteArray("text/html, application/vnd.pypi.simple.v1+json; q=0.5")}) {
        reply = get(m_index->url().resolved(QUrl(u"gamma/"_s)), accept);
        QVERIFY(reply);
        QVERIFY2(reply->header("Content-Type").startsWith("text/html"), accept.constData());
    }
    m_index->setJson(false);
    reply = get(m_index->url().resolved(QUrl(u"gamma/"_s)), pipAccept);
    QVERIFY(reply);
    QVERIFY(reply->header("Content-Type").startsWith("text/html"));
}

void TestSupportIndex::resolve_jsonPages_pipTakesJson()
{
    const QString report = path(u"report-json.json"_s);
    const Ran ran = pip({u"install"_s, u"--dry-run"_s, u"--ignore-installed"_s, u"--report"_s, report, u"--index-url"_s,
                         m_index->url().toString(), u"alpha"_s});
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());
    const QList<RecordedRequest> pages = m_server.requests("/simple/alpha/");
    QCOMPARE(pages.size(), 1);
    QVERIFY(pages.first().header("Accept").startsWith("application/vnd.pypi.simple.v1+json"));

    // PEP 714's "core-metadata" is read from pip 23.2 on; before that, pip resolves from the
    // wheels whenever the index speaks JSON, as pip 23.0 does against PyPI.
    if (m_pipVersion < QVersionNumber(23, 2)) {
        QCOMPARE(m_index->metadataRequests(), 0);
        const QList<RecordedRequest> log = m_server.requests();
        const qsizetype alpha = firstRequest(log, alphaWheel.toUtf8());
        QVERIFY(alpha >= 0);
        QVERIFY(alpha < firstRequest(log, "/simple/beta-two/"));
    } else {
        QCOMPARE(m_index->metadataRequests(), 4);
    }
    const QHash<QString, Resolved> resolved = readReport(report);
    QCOMPARE(resolved.size(), 4);
    QCOMPARE(resolved[u"delta"_s].url, QString::fromUtf8(m_index->fileUrl(deltaWheel).toEncoded()));
    QCOMPARE(resolved[u"delta"_s].sha256, m_index->sha256(deltaWheel));
}

void TestSupportIndex::fault_dropAfter_failsPipDownload_andRangeStillHonoured()
{
    m_index->setWheelFault([](Response &r) { r.dropAfter(mebibyte); });
    const QString dest = path(u"dropped"_s);
    Ran ran = pip(
        {u"download"_s, u"--no-deps"_s, u"--dest"_s, dest, u"--index-url"_s, m_index->url().toString(), u"bigwheel"_s});
    QVERIFY(ran.finished);
    QVERIFY2(ran.exitCode != 0, ran.out.constData());
    QVERIFY(!QFileInfo::exists(dest + u'/' + bigWheel));
    // Every response stopped at exactly 1 MiB, however often pip asked.
    QVERIFY(m_index->wheelRequests() >= 1);
    QCOMPARE(m_index->wheelBytesServed(), m_index->wheelRequests() * mebibyte);
    // pip 23.0 (urllib3 1.26) takes a body cut short for the whole file: the published hash
    // is what stops it; without one, only the broken zip does.
    QVERIFY2(ran.err.contains(m_index->sha256(bigWheel)), ran.err.constData());
    m_index->setHashes(false);
    ran = pip(
        {u"download"_s, u"--no-deps"_s, u"--dest"_s, dest, u"--index-url"_s, m_index->url().toString(), u"bigwheel"_s});
    QVERIFY(ran.finished);
    QVERIFY2(ran.exitCode != 0, ran.out.constData());
    QVERIFY(!QFileInfo::exists(dest + u'/' + bigWheel));
    m_index->setHashes(true);

    // A resumed request through the same fault: the asked range, and another 1 MiB of it.
    const QByteArray bytes = readFile(path(u"wheels/"_s + bigWheel));
    QCOMPARE(qint64(bytes.size()), bigWheelBytes);
    QNetworkRequest resume(m_index->fileUrl(bigWheel));
    resume.setRawHeader("Range", "bytes=" + QByteArray::number(mebibyte) + '-');
    const auto reply = awaitTask(tfsetup::test::fetch(&m_manager, resume));
    QVERIFY(reply);
    QCOMPARE(reply->status, 206);
    QCOMPARE(reply->header("Content-Range"),
             "bytes " + QByteArray::number(mebibyte) + '-' + QByteArray::number(bigWheelBytes - 1) + '/'
                 + QByteArray::number(bigWheelBytes));
    QCOMPARE(qint64(reply->body.size()), mebibyte);
    QVERIFY(reply->body == bytes.mid(mebibyte, mebibyte));
    QCOMPARE(m_index->requestsFor(bigWheel).last().header("Range"), "bytes=1048576-");

    // The fault lifted, the same download succeeds.
    m_index->setWheelFault({});
    ran = pip(
        {u"download"_s, u"--no-deps"_s, u"--dest"_s, dest, u"--index-url"_s, m_index->url().toString(), u"bigwheel"_s});
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());
    QCOMPARE(sha256Of(readFile(dest + u'/' + bigWheel)), m_index->sha256(bigWheel));
}

void TestSupportIndex::fault_throttle_takesTheTimeItShould()
{
    constexpr qint64 rate = 2 * mebibyte;
    m_index->setWheelFault([](Response &r) { r.throttle(rate); });
    const QString dest = path(u"throttled"_s);
    QElapsedTimer clock;
    clock.start();
    const Ran ran = pip(
        {u"download"_s, u"--no-deps"_s, u"--dest"_s, dest, u"--index-url"_s, m_index->url().toString(), u"bigwheel"_s});
    const qint64 elapsed = clock.elapsed();
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());
    QCOMPARE(sha256Of(readFile(dest + u'/' + bigWheel)), m_index->sha256(bigWheel));
    // 4 MiB at 2 MiB/s: two seconds at least; pip's own start-up is well under the slack.
    qInfo("4 MiB at 2 MiB/s through pip: %lld ms", elapsed);
    QVERIFY2(elapsed >= 1000 * bigWheelBytes / rate - 50, qPrintable(QString::number(elapsed)));
    QVERIFY2(elapsed < 1000 * bigWheelBytes / rate + 20000, qPrintable(QString::number(elapsed)));
    QCOMPARE(m_index->wheelRequests(), 1);
}

void TestSupportIndex::largeWheel_isDeterministicIncompressibleAndInstalls()
{
    // TensorFlow's size, at the cost the download tests can afford.
    constexpr qint64 size = 96 * mebibyte;
    const QString large = path(u"tensorflow-2.15.1-py3-none-any.whl"_s);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(buildLargeWheel(debianPython, large, u"tensorflow"_s, u"2.15.1"_s, size));
    qInfo("96 MiB wheel built in %lld ms", clock.elapsed());
    QCOMPARE(QFileInfo(large).size(), size);

    // Same arguments, same bytes; another version, other bytes.
    const QString a = path(u"small-a/tensorflow-2.15.1-py3-none-any.whl"_s);
    const QString b = path(u"small-b/tensorflow-2.15.1-py3-none-any.whl"_s);
    const QString c = path(u"small-c/tensorflow-2.15.0-py3-none-any.whl"_s);
    for (const QString &p : {a, b, c})
        QVERIFY(QDir().mkpath(QFileInfo(p).path()));
    QVERIFY(buildLargeWheel(debianPython, a, u"tensorflow"_s, u"2.15.1"_s, 256 * 1024));
    QVERIFY(buildLargeWheel(debianPython, b, u"tensorflow"_s, u"2.15.1"_s, 256 * 1024));
    QVERIFY(buildLargeWheel(debianPython, c, u"tensorflow"_s, u"2.15.0"_s, 256 * 1024));
    QCOMPARE(sha256Of(readFile(a)), sha256Of(readFile(b)));
    QVERIFY(sha256Of(readFile(a)) != sha256Of(readFile(c)));

    // Stored, not deflated, and random: no transfer encoding can make it smaller.
    QFile f(large);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.seek(size / 2));
    const QByteArray middle = f.read(mebibyte);
    QVERIFY(qCompress(middle, 9).size() > middle.size());

    // Served from disk through the index, and installed by pip.
    QVERIFY(m_index->addWheel(large));
    const QString target = path(u"target"_s);
    const Ran ran = pip({u"install"_s, u"--no-deps"_s, u"--target"_s, target, u"--index-url"_s,
                         m_index->url().toString(), u"tensorflow==2.15.1"_s});
    QVERIFY2(ran.finished && ran.exitCode == 0, ran.err.constData());
    QVERIFY(QFileInfo(target + u"/tensorflow/_payload.bin"_s).size() > size - 4096);
    QCOMPARE(readFile(target + u"/tensorflow/__init__.py"_s), "__version__ = \"2.15.1\"\n");
    QVERIFY(m_index->wheelBytesServed() >= size);
}

QTEST_GUILESS_MAIN(TestSupportIndex)
#include "test_index.moc"
