// TensorFlow's wheels as tfsetup's own artifacts, from the installed binary: `tfsetup install` of a
// pip-route lab profile against a loopback index (TestIndex) serving a 96 MiB stand-in TensorFlow
// wheel, a lab's extra package and its dependency, each run with a cache folder of its own unless
// it tests the cache.
//
//  - A server that cuts every wheel response at 10 MiB: the install completes, resumed, with at
//    most 1.1 × the wheels' bytes served (tests/bench/ measures the 32 MiB case). The lock (pylock.toml) and environment.json name the
//    wheel's SHA-256, size and index.
//  - A second environment from the same cache fetches no wheel byte.
//  - A dead proxy stops the install before any request reaches the index; a live proxy carries
//    every request (pages, metadata, wheels) when the index is reachable only through it.
//  - `bundle --profile --json` writes the lock and its wheels; `install --offline` installs exactly
//    them without a request, and stops with an error naming a package the bundle lacks.
//  - `repair --env` takes a damaged package's wheel back from the index the lock records.
//  - `doctor --env` names the environment's Python and TensorFlow; `list` gives its size.

#include "install/environmentrecord.h"
#include "sources/pylock.h"
#include "support/files.h"
#include "support/loopbackproxy.h"
#include "support/loopbackserver.h"
#include "support/processes.h"
#include "support/testindex.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::test;
using namespace Qt::StringLiterals;

namespace {

constexpr qint64 wheelSize = 96 << 20;
// Below each of the segments the downloader splits the wheel into (a quarter of it), so every
// segment is cut at least once and resumed.
constexpr qint64 cutAt = 10 << 20;

} // namespace

class TestWheelsCli final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cutResponses_installCompletes_andTheLockKnowsEveryWheel();
    void secondEnvironment_fetchesNoWheel();
    void deadProxy_stopsEveryRequest();
    void liveProxy_carriesEveryRequest();
    void bundleThenOffline_installsExactlyTheLock();
    void offline_missingPackage_isAClearError();
    void repair_takesTheWheelFromTheRecordedIndex();
    void doctorAndList_knowTheEnvironment();

private:
    struct Run {
        int exitCode = -1;
        QString out;
        QString err;
        QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
        QString all() const { return out + err; }
    };
    Run tfsetup(const QStringList &arguments)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                 "no_proxy", "NO_PROXY", "PIP_INDEX_URL", "PIP_PROXY"})
            env.remove(QString::fromLatin1(name));
        env.insert(u"HOME"_s, m_home.path());
        env.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"data"_s));
        env.insert(u"XDG_CACHE_HOME"_s, m_home.filePath(u"cache"_s));
        env.insert(u"TFSETUP_LOG_DIR"_s, m_home.filePath(u"logs"_s));
        const Ran ran = runProcess(qEnvironmentVariable("TFSETUP_BINARY"), arguments, 280000, env);
        return {ran.exitCode, QString::fromUtf8(ran.out), QString::fromUtf8(ran.err)};
    }
    // A lab profile: TensorFlow 2.15.0 and the lab's extra packages from `index`, this machine's
    // Python, no kernel, no front end, no desktop entry.
    QString profile(const QString &name, const QString &index, const QStringList &extra = {u"labtools"_s})
    {
        const QString path = m_home.filePath(name + u".json"_s);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(
            QJsonDocument(
                QJsonObject{{u"schema"_s, 1},
                            {u"title"_s, u"Wheels test"_s},
                            {u"environment"_s, name},
                            {u"installFolder"_s, u"${HOME}/envs"_s},
                            {u"interpreter"_s, m_python},
                            {u"jupyter"_s, false},
                            {u"plan"_s,
                             QJsonObject{{u"route"_s, u"linux-pip"_s},
                                         {u"tensorflow"_s, u"2.15.0"_s},
                                         {u"package"_s, u"tensorflow"_s},
                                         {u"python"_s, m_pythonMinor},
                                         {u"requirements"_s,
                                          QJsonArray::fromStringList(QStringList{u"tensorflow==2.15.0"_s} + extra)}}},
                            {u"mirrors"_s, QJsonObject{{u"pypi"_s, QJsonArray{index}}}},
                            {u"kernel"_s, QJsonObject{{u"register"_s, false}}},
                            {u"desktopEntry"_s, false}})
                .toJson());
        return path;
    }
    QString installed(const QString &name) const { return m_home.filePath(u"envs/"_s + name); }
    QString sitePackages(const QString &environment) const
    {
        QDirIterator it(environment + u"/venv/lib"_s, {u"site-packages"_s}, QDir::Dirs, QDirIterator::Subdirectories);
        return it.hasNext() ? it.next() : QString();
    }
    QString importVersion(const QString &environment, const QString &module) const
    {
        QProcess python;
        python.start(environment + u"/start-python"_s, {u"-c"_s, u"import %1; print(%1.__version__)"_s.arg(module)});
        python.waitForFinished(60000);
        return QString::fromUtf8(python.readAllStandardOutput()).trimmed();
    }
    // The first environment, installed through the cutting server (made once, by the first test).
    QString firstEnvironment() const { return installed(u"tf-first"_s); }

    QTemporaryDir m_home;
    LoopbackServer m_server;
    std::unique_ptr<TestIndex> m_index;
    QString m_python;
    QString m_pythonMinor;
    QString m_tensorflowWheel;
};

void TestWheelsCli::initTestCase()
{
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "TFSETUP_BINARY is not set (run through ctest)");
    m_python = QStandardPaths::findExecutable(u"python3"_s);
    QVERIFY2(!m_python.isEmpty(), "python3 is needed (the .ci/packages list has it)");
    QProcess version;
    version.start(m_python, {u"-c"_s, u"import sys; print('%d.%d' % sys.version_info[:2])"_s});
    QVERIFY(version.waitForFinished(30000));
    m_pythonMinor = QString::fromUtf8(version.readAllStandardOutput()).trimmed();
    QVERIFY(!m_pythonMinor.isEmpty());

    QVERIFY(m_server.start());
    m_index = std::make_unique<TestIndex>(m_server);
    const QString wheels = m_home.filePath(u"wheels"_s);
    QVERIFY(QDir().mkpath(wheels));
    m_tensorflowWheel = u"tensorflow-2.15.0-py3-none-any.whl"_s;
    QVERIFY(buildLargeWheel(m_python, wheels + u'/' + m_tensorflowWheel, u"tensorflow"_s, u"2.15.0"_s, wheelSize));
    QVERIFY(buildWheel(m_python, wheels + u"/labtools-1.0-py3-none-any.whl"_s, u"labtools"_s, u"1.0"_s,
                       "__version__ = \"1.0\"\n", u"labtools"_s, {u"labdep>=2"_s}));
    QVERIFY(buildWheel(m_python, wheels + u"/labdep-2.1-py3-none-any.whl"_s, u"labdep"_s, u"2.1"_s,
                       "__version__ = \"2.1\"\n", u"labdep"_s));
    QVERIFY(buildWheel(m_python, wheels + u"/notinbundle-0.3-py3-none-any.whl"_s, u"notinbundle"_s, u"0.3"_s,
                       "__version__ = \"0.3\"\n", u"notinbundle"_s));
    QCOMPARE(m_index->addWheelsFrom(wheels), 4);
    // The kernel's package (the environment gets it, registered or not).
    QVERIFY(QDir().mkpath(m_home.filePath(u"standins"_s)));
    QVERIFY(addStandIns(*m_index, m_python, m_home.filePath(u"standins"_s), {}));
}

void TestWheelsCli::init()
{
    m_index->setWheelFault({});
    m_index->setMetadata(true);
    m_index->setHashes(true);
    m_server.clearRequests();
}

void TestWheelsCli::cutResponses_installCompletes_andTheLockKnowsEveryWheel()
{
    // Every wheel response ends at 10 MiB: the 96 MiB wheel arrives only by resuming.
    m_index->setWheelFault([](Response &r) { r.dropAfter(cutAt); });
    const Run run = tfsetup({u"install"_s, u"--profile"_s, profile(u"tf-first"_s, m_index->url().toString()),
                             u"--yes"_s, u"--cache"_s, m_home.filePath(u"cache-first"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    const qint64 served = m_index->wheelBytesServed();
    qint64 wheels = 0; // every wheel the lock names, each once
    const auto locked = tfsetup::core::PyLock::read(firstEnvironment() + u"/pylock.toml"_s);
    QVERIFY2(locked, qPrintable(locked ? QString() : locked.error().message));
    for (const auto &w : locked->packages)
        wheels += w.size;
    qInfo("wheel bytes served: %lld of %lld (%.3f x), %d wheel requests", served, wheels, double(served) / wheels,
          m_index->wheelRequests());
    for (const RecordedRequest &r : m_index->requestsFor(m_tensorflowWheel))
        qInfo("  %s %s (connection %d)", r.method.constData(), r.header("range").constData(), r.connection);
    QVERIFY2(served <= wheels * 11 / 10, qPrintable(u"%1 bytes served for %2"_s.arg(served).arg(wheels)));
    QVERIFY(m_index->requestsFor(m_tensorflowWheel).size() >= 3); // no single response carries it whole
    // pip resolved from the index's metadata: nothing fetched a wheel to resolve it.
    QVERIFY(m_index->metadataRequests() >= 3);

    // The install showed the wheel with its size and the total.
    QVERIFY2(run.out.contains(m_tensorflowWheel), qPrintable(run.out));
    QVERIFY2(run.out.contains(m_tensorflowWheel + u" (96.0 MB)"_s), qPrintable(run.out));
    QVERIFY2(run.out.contains(u"96.0 MB in all"_s), qPrintable(run.out));

    QCOMPARE(importVersion(firstEnvironment(), u"tensorflow"_s), u"2.15.0"_s);
    QCOMPARE(importVersion(firstEnvironment(), u"labtools"_s), u"1.0"_s);
    QCOMPARE(importVersion(firstEnvironment(), u"labdep"_s), u"2.1"_s);

    // The lock: every wheel with its URL, size, SHA-256 and index.
    const auto lock = tfsetup::core::PyLock::read(firstEnvironment() + u"/pylock.toml"_s);
    QVERIFY2(lock, qPrintable(lock ? QString() : lock.error().message));
    QStringList names;
    for (const auto &w : lock->packages) {
        names.append(w.name);
        QCOMPARE(w.sha256, m_index->sha256(w.file));
        QVERIFY(w.size > 0);
        QCOMPARE(w.index, m_index->url().toString().chopped(1)); // PEP 751 writes it without the slash
        QVERIFY2(w.url.startsWith(m_server.url(u"/"_s).toString()), qPrintable(w.url));
        QVERIFY(!w.hashFromDownload);
    }
    for (const QString &name : {u"labdep"_s, u"labtools"_s, u"tensorflow"_s})
        QVERIFY2(names.contains(name), qPrintable(names.join(u' ')));
    // environment.json carries the same hashes (the typed record's reader).
    const auto record = tfsetup::core::EnvironmentRecord::read(firstEnvironment());
    QVERIFY(record);
    QCOMPARE(record->packageVersion(u"tensorflow"_s), u"2.15.0"_s);
    QFile json(firstEnvironment() + u"/environment.json"_s);
    QVERIFY(json.open(QIODevice::ReadOnly));
    QVERIFY(json.readAll().contains(m_index->sha256(m_tensorflowWheel)));
}

void TestWheelsCli::secondEnvironment_fetchesNoWheel()
{
    QVERIFY(QFileInfo::exists(firstEnvironment() + u"/environment.json"_s));
    const Run run = tfsetup({u"install"_s, u"--profile"_s, profile(u"tf-second"_s, m_index->url().toString()),
                             u"--yes"_s, u"--cache"_s, m_home.filePath(u"cache-first"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(m_index->wheelRequests(), 0);
    QCOMPARE(m_index->wheelBytesServed(), 0);
    QCOMPARE(importVersion(installed(u"tf-second"_s), u"tensorflow"_s), u"2.15.0"_s);
}

void TestWheelsCli::deadProxy_stopsEveryRequest()
{
    const QString dead = u"http://127.0.0.1:%1"_s.arg(closedLoopbackPort());
    const Run run = tfsetup({u"install"_s, u"--profile"_s, profile(u"tf-deadproxy"_s, m_index->url().toString()),
                             u"--yes"_s, u"--json"_s, u"--proxy"_s, dead, u"--cache"_s,
                             m_home.filePath(u"cache-deadproxy"_s)});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(m_server.requests().isEmpty(), qPrintable(QString::fromUtf8(m_server.requests().value(0).target)));
    const QJsonObject error = run.json().value(u"error"_s).toObject();
    QVERIFY2(error.value(u"message"_s).toString().contains(u"proxy"_s), qPrintable(run.all()));
    QVERIFY(!QFileInfo::exists(installed(u"tf-deadproxy"_s)));
}

void TestWheelsCli::liveProxy_carriesEveryRequest()
{
    // The index has a name that resolves nowhere: only the proxy reaches it. Both carry secrets,
    // as a lab's do: a proxy password and an index token.
    LoopbackProxy proxy;
    QVERIFY(proxy.start());
    proxy.mapHost(u"pypi-lab.invalid"_s, m_server.port());
    QUrl index = m_index->url();
    index.setHost(u"pypi-lab.invalid"_s);
    index.setUserInfo(u"labTOKEN4711"_s);
    QUrl proxyUrl(QString::fromLatin1(proxy.proxyUrl()));
    proxyUrl.setUserInfo(u"alice:proxyPW0815"_s);
    const Run run = tfsetup({u"install"_s, u"--profile"_s, profile(u"tf-proxy"_s, index.toString()), u"--yes"_s,
                             u"--proxy"_s, proxyUrl.toString(), u"--cache"_s, m_home.filePath(u"cache-proxy"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    // Neither secret is in what was printed, the record, the lock, the install log or the run logs;
    // both stay only in the profile and on the command line, where they were put.
    QVERIFY(!run.all().contains(u"labTOKEN4711"_s) && !run.all().contains(u"proxyPW0815"_s));
    QStringList written;
    for (const QString &folder : {installed(u"tf-proxy"_s), m_home.filePath(u"logs"_s)}) {
        QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains(u"/venv/"_s))
                continue; // pip's and Python's own files: pip only ever saw the loopback bridge
            QFile f(path);
            if (f.open(QIODevice::ReadOnly)) {
                const QByteArray bytes = f.readAll();
                if (bytes.contains("labTOKEN4711") || bytes.contains("proxyPW0815"))
                    written.append(path);
            }
        }
    }
    QVERIFY2(written.isEmpty(), qPrintable(written.join(u'\n')));
    QFile lock(installed(u"tf-proxy"_s) + u"/pylock.toml"_s);
    QVERIFY(lock.open(QIODevice::ReadOnly));
    QVERIFY(lock.readAll().contains("http://***@pypi-lab.invalid:"));
    QVERIFY(m_index->wheelRequests() >= 3);
    QVERIFY(m_index->metadataRequests() >= 3);
    // Each request the index answered came through the proxy.
    QCOMPARE(proxy.forwardCount() + proxy.tunnelCount(), m_server.requests().size());
    for (const RecordedRequest &r : proxy.requests())
        QVERIFY2(r.target.startsWith("http://pypi-lab.invalid:"), r.target.constData());
    QCOMPARE(importVersion(installed(u"tf-proxy"_s), u"labtools"_s), u"1.0"_s);
}

void TestWheelsCli::bundleThenOffline_installsExactlyTheLock()
{
    const QString bundle = m_home.filePath(u"bundle"_s);
    const QString lab = profile(u"tf-offline"_s, m_index->url().toString());
    const Run made = tfsetup({u"bundle"_s, u"--profile"_s, lab, u"--out"_s, bundle, u"--json"_s, u"--cache"_s,
                              m_home.filePath(u"cache-first"_s)});
    QVERIFY2(made.exitCode == 0, qPrintable(made.all()));
    QVERIFY2(QJsonDocument::fromJson(made.out.toUtf8()).isObject(), qPrintable(made.out));
    QVERIFY(QFileInfo::exists(bundle + u"/pylock.toml"_s));
    const auto lock = tfsetup::core::PyLock::read(bundle + u"/pylock.toml"_s);
    QVERIFY(lock);
    QVERIFY(lock->packages.size() >= 3);
    const QString files = QString::fromUtf8(QJsonDocument(made.json()).toJson());
    for (const auto &w : lock->packages)
        QVERIFY2(files.contains(w.file), qPrintable(w.file + u" not in\n"_s + files));
    QCOMPARE(m_index->wheelRequests(), 0); // the cache had them all

    m_server.clearRequests();
    const Run run = tfsetup({u"install"_s, u"--profile"_s, lab, u"--yes"_s, u"--offline"_s, u"--from"_s, bundle,
                             u"--cache"_s, m_home.filePath(u"cache-offline"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QVERIFY(m_server.requests().isEmpty());
    QCOMPARE(importVersion(installed(u"tf-offline"_s), u"labdep"_s), u"2.1"_s);
    const auto installedLock = tfsetup::core::PyLock::read(installed(u"tf-offline"_s) + u"/pylock.toml"_s);
    QVERIFY(installedLock);
    QCOMPARE(installedLock->packages, lock->packages);
}

void TestWheelsCli::offline_missingPackage_isAClearError()
{
    const QString bundle = m_home.filePath(u"bundle"_s);
    QVERIFY2(QFileInfo::exists(bundle + u"/pylock.toml"_s), "made by bundleThenOffline_installsExactlyTheLock");
    // The profile asks for a package the bundle does not hold.
    const QString lab = profile(u"tf-offline-more"_s, m_index->url().toString(), {u"labtools"_s, u"notinbundle"_s});
    const Run run = tfsetup({u"install"_s, u"--profile"_s, lab, u"--yes"_s, u"--json"_s, u"--offline"_s, u"--from"_s,
                             bundle, u"--cache"_s, m_home.filePath(u"cache-offline-more"_s)});
    QCOMPARE(run.exitCode, 1);
    const QJsonObject error = run.json().value(u"error"_s).toObject();
    const QString said = error.value(u"message"_s).toString() + u' ' + error.value(u"detail"_s).toString();
    QVERIFY2(said.contains(u"notinbundle"_s), qPrintable(run.all()));
    QVERIFY(m_server.requests().isEmpty());
    QVERIFY(!QFileInfo::exists(installed(u"tf-offline-more"_s)));
}

void TestWheelsCli::repair_takesTheWheelFromTheRecordedIndex()
{
    const QString env = installed(u"tf-second"_s);
    const QString site = sitePackages(env);
    QVERIFY(!site.isEmpty());
    QVERIFY(QFile::remove(site + u"/tensorflow/__init__.py"_s));
    // An empty download folder: the wheel must come from the index the lock names, without --index-url.
    const Run run = tfsetup({u"repair"_s, u"--env"_s, env, u"--no-verify"_s, u"--json"_s, u"--downloads"_s,
                             m_home.filePath(u"repair-downloads"_s)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(m_index->requestsFor(m_tensorflowWheel).isEmpty(), false);
    QCOMPARE(importVersion(env, u"tensorflow"_s), u"2.15.0"_s);
}

void TestWheelsCli::doctorAndList_knowTheEnvironment()
{
    const QString env = firstEnvironment();
    const Run doctor = tfsetup({u"doctor"_s, u"--env"_s, env, u"--json"_s});
    const QJsonObject target = doctor.json().value(u"target"_s).toObject();
    QVERIFY2(target.value(u"python_version"_s).toString().startsWith(m_pythonMinor), qPrintable(doctor.all()));
    QCOMPARE(target.value(u"tensorflow"_s).toString(), u"2.15.0"_s);
    const Run text = tfsetup({u"doctor"_s, u"--env"_s, env});
    QVERIFY2(text.out.contains(u"TensorFlow: tensorflow 2.15.0"_s) || text.out.contains(u"TensorFlow: 2.15.0"_s),
             qPrintable(text.all()));
    QVERIFY2(!text.out.contains(u"Python: -"_s), qPrintable(text.out));

    const Run list = tfsetup({u"list"_s, u"--json"_s, u"--no-updates"_s, u"--folder"_s, m_home.filePath(u"envs"_s)});
    QVERIFY2(list.exitCode == 0, qPrintable(list.all()));
    bool found = false;
    for (const QJsonValue &v : list.json().value(u"environments"_s).toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(u"name"_s).toString() != u"tf-first"_s)
            continue;
        found = true;
        QVERIFY2(o.value(u"bytes"_s).toDouble() >= double(wheelSize), QJsonDocument(o).toJson().constData());
    }
    QVERIFY2(found, qPrintable(list.out));
}

QTEST_GUILESS_MAIN(TestWheelsCli)
#include "test_wheels_cli.moc"
