// Repair of what pip installed: a real venv and a real pip installing wheels built here from a
// loopback index, then a file deleted inside the package and another altered. Repair names both
// (dry run, text and JSON), reinstalls the distribution from a wheel whose contents match its
// RECORD (the download folder, else the index) with pip's hash checking, and the RECORD verifies
// afterwards; a RECORD that names a place outside the environment, or a file swapped for a link,
// is reported and never read through.

#include "install/archive.h"
#include "install/installer.h"
#include "repair/piprecord.h"
#include "repair/repair.h"
#include "setup/pipeline.h"
#include "support/coroutinetest.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "system/realsystem.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace tfsetup::test;
using core::Installer;
using core::InstallSpec;
using core::PipDistributionDamage;
using core::Repairer;
using core::RepairOptions;
using core::RepairReport;

namespace {

const QString wheelName = QStringLiteral("tinypkg-0.1-py3-none-any.whl");
const QString kernelWheelName = QStringLiteral("ipykernel-0.1-py3-none-any.whl");

QByteArray recordHash(const QByteArray &data)
{
    return "sha256="
        + QCryptographicHash::hash(data, QCryptographicHash::Sha256)
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray fileSha256(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A valid wheel (PEP 427): two modules, a script pip installs into the venv's bin/ (so the
// installed RECORD climbs out of site-packages with "../"), METADATA, WHEEL and a RECORD with
// real digests. `value` changes the first module: the same name and version with other contents.
bool buildWheel(const QString &path, const QByteArray &name, const QByteArray &value = "42",
                const QList<std::pair<QString, QByteArray>> &extra = {})
{
    const QString info = QString::fromLatin1(name) + QStringLiteral("-0.1.dist-info/");
    QList<std::pair<QString, QByteArray>> files{
        {QString::fromLatin1(name) + QStringLiteral("/__init__.py"), "VALUE = " + value + "\n"},
        {QString::fromLatin1(name) + QStringLiteral("/data.py"), "TABLE = [1, 2, 3]\n"},
        {QString::fromLatin1(name) + QStringLiteral("-0.1.data/scripts/") + QString::fromLatin1(name)
             + QStringLiteral("-tool"),
         "#!python\nprint('tool')\n"},
        {info + QStringLiteral("METADATA"), "Metadata-Version: 2.1\nName: " + name + "\nVersion: 0.1\n"},
        {info + QStringLiteral("WHEEL"),
         "Wheel-Version: 1.0\nGenerator: tfsetup-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}};
    files += extra;
    QList<core::ArchiveWriter::Entry> entries;
    QByteArray record;
    for (const auto &[file, data] : files) {
        entries.append({core::ArchiveWriter::Entry::File, file, data, {}, 0644});
        record += file.toUtf8() + ',' + recordHash(data) + ',' + QByteArray::number(data.size()) + '\n';
    }
    record += info.toUtf8() + "RECORD,,\n";
    entries.append({core::ArchiveWriter::Entry::File, info + QStringLiteral("RECORD"), record, {}, 0644});
    return bool(core::ArchiveWriter::write(path, core::ArchiveWriter::Zip, entries));
}

QByteArray indexPage(const QString &file, const QByteArray &sha256)
{
    return "<!DOCTYPE html><html><body><a href=\"/files/" + file.toUtf8() + "#sha256=" + sha256 + "\">" + file.toUtf8()
        + "</a></body></html>";
}

} // namespace

class TestRepairPip : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    // Each makes a real venv: the checks share environments to keep the test short.
    void freshEnvironmentMatches_recordLeavingItIsReportedNotFollowed();
    void dryRunNamesTheFiles_repairReinstallsFromTheIndex();
    void reinstallsFromTheDownloadFolder();
    void aPlantedWheelIsNeverInstalled();
    void aLinkInSitePackagesIsNeverWrittenThrough();

private:
    core::Result<RepairReport> repair(const RepairOptions &o)
    {
        Repairer repairer(m_system, test::shippedKnowledge());
        auto r = awaitTask(repairer.repair(o), std::chrono::seconds(180));
        return r ? *r : core::Result<RepairReport>(core::Error{QStringLiteral("timeout"), {}, {}});
    }
    RepairOptions options(bool dryRun) const
    {
        RepairOptions o;
        o.environmentPath = m_env;
        o.dryRun = dryRun;
        o.cacheDir = m_downloads->path();
        o.network.transfer.probeMirrors = false;
        o.network.pypiIndexes = {m_server.url(QStringLiteral("/simple/")).toString()};
        return o;
    }
    // Deletes tinypkg/data.py and alters tinypkg/__init__.py; their paths, relative to the environment.
    std::pair<QString, QString> damage()
    {
        const QString altered = m_site + QStringLiteral("/tinypkg/__init__.py");
        const QString missing = m_site + QStringLiteral("/tinypkg/data.py");
        QFile f(m_env + u'/' + altered);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Append))
            return {};
        f.write("VALUE = 0  # edited by hand\n");
        f.close();
        if (!QFile::remove(m_env + u'/' + missing))
            return {};
        return {altered, missing};
    }
    const PipDistributionDamage *tinypkg(const RepairReport &report) const
    {
        for (const PipDistributionDamage &p : report.packages) {
            if (p.name == u"tinypkg")
                return &p;
        }
        return nullptr;
    }

    QString m_python;
    QTemporaryDir m_files;
    QString m_wheel;
    LoopbackServer m_server;
    core::RealSystem m_system;
    std::unique_ptr<QTemporaryDir> m_prefix;
    std::unique_ptr<QTemporaryDir> m_downloads;
    QTemporaryDir m_installCache;
    QString m_env;
    QString m_site; // the venv's site-packages, relative to the environment
};

void TestRepairPip::initTestCase()
{
    m_python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    QVERIFY2(!m_python.isEmpty(), "python3 (with python3-venv) is part of the build's packages");
    m_wheel = m_files.filePath(wheelName);
    QVERIFY(buildWheel(m_wheel, "tinypkg"));
    const QString kernelWheel = m_files.filePath(kernelWheelName);
    QVERIFY(buildWheel(kernelWheel, "ipykernel"));
    QVERIFY(m_server.start());
    m_server.route("/simple/tinypkg/", Response::bytes(indexPage(wheelName, fileSha256(m_wheel)), "text/html"));
    m_server.route("/files/" + wheelName.toUtf8(), Response::bytes(readAll(m_wheel)));
    m_server.route("/simple/ipykernel/",
                   Response::bytes(indexPage(kernelWheelName, fileSha256(kernelWheel)), "text/html"));
    m_server.route("/files/" + kernelWheelName.toUtf8(), Response::bytes(readAll(kernelWheel)));
}

void TestRepairPip::init()
{
    m_prefix = std::make_unique<QTemporaryDir>();
    m_downloads = std::make_unique<QTemporaryDir>();
    InstallSpec s;
    s.name = QStringLiteral("tf-pip");
    s.prefix = m_prefix->path();
    s.route = QStringLiteral("linux-pip");
    s.tensorflow = QStringLiteral("0.1");
    s.pythonInterpreter = m_python;
    s.requirements = {QStringLiteral("tinypkg==0.1")};
    s.registerKernel = false;
    s.desktopEntry = false;
    // Installed as the setup pipeline installs: its lock names each wheel's URL and hash, which
    // is what repair takes a damaged package back from. The install's downloads go elsewhere, so
    // the download folder the repair is given starts empty.
    core::Plan plan;
    plan.route = QStringLiteral("cpu");
    plan.tensorflow = QStringLiteral("0.1");
    plan.package = QStringLiteral("tinypkg");
    core::SetupOptions setup;
    setup.knowledge = test::shippedKnowledge();
    setup.prefix = s.prefix;
    setup.name = s.name;
    setup.cacheDir = m_installCache.path();
    setup.network.pypiIndexes = {m_server.url(QStringLiteral("/simple/")).toString()};
    core::SetupPipeline pipeline(m_system);
    const auto outcome = awaitTask(pipeline.run(plan, s, setup), std::chrono::seconds(180));
    QVERIFY(outcome);
    QVERIFY2(*outcome,
             qPrintable(*outcome ? QString() : (*outcome).error().message + u'\n' + (*outcome).error().detail));
    m_env = m_prefix->filePath(QStringLiteral("tf-pip"));
    QDirIterator it(m_env + QStringLiteral("/venv/lib"), {QStringLiteral("site-packages")}, QDir::Dirs,
                    QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
    m_site = QDir(m_env).relativeFilePath(it.next());
    QVERIFY(QFile::exists(m_env + u'/' + m_site + QStringLiteral("/tinypkg/data.py")));
    QVERIFY(QFile::exists(m_env + QStringLiteral("/venv/bin/tinypkg-tool")));
    m_server.clearRequests();
}

void TestRepairPip::cleanup()
{
    m_prefix.reset();
    m_downloads.reset();
}

void TestRepairPip::dryRunNamesTheFiles_repairReinstallsFromTheIndex()
{
    const auto [altered, missing] = damage();
    QVERIFY(!altered.isEmpty());
    const QByteArray edited = readAll(m_env + u'/' + altered);
    const auto dry = repair(options(true));
    QVERIFY2(dry, qPrintable(dry ? QString() : dry.error().message + u' ' + dry.error().detail));
    QCOMPARE(dry->packages.size(), 1);
    const PipDistributionDamage *p = tinypkg(*dry);
    QVERIFY(p);
    QCOMPARE(p->version, QStringLiteral("0.1"));
    QCOMPARE(p->altered, QStringList{altered});
    QCOMPARE(p->missing, QStringList{missing});
    QVERIFY(p->escaping.isEmpty());
    // The exact wheel the environment's lock names, from the index it was installed from.
    const QString lockedUrl = m_server.url(QStringLiteral("/files/") + wheelName).toString();
    QCOMPARE(p->source, lockedUrl);
    QVERIFY(dry->changed());
    QVERIFY(!dry->healthy());

    const QString text = dry->text();
    QVERIFY2(text.contains(QStringLiteral("tinypkg 0.1")) && text.contains(altered) && text.contains(missing),
             qPrintable(text));
    const QJsonObject json = dry->toJson();
    const QJsonObject package = json.value(QStringLiteral("packages")).toArray().first().toObject();
    QCOMPARE(package.value(QStringLiteral("name")).toString(), QStringLiteral("tinypkg"));
    QCOMPARE(package.value(QStringLiteral("version")).toString(), QStringLiteral("0.1"));
    QCOMPARE(package.value(QStringLiteral("altered")).toArray(), QJsonArray{altered});
    QCOMPARE(package.value(QStringLiteral("missing")).toArray(), QJsonArray{missing});
    QCOMPARE(package.value(QStringLiteral("fix")).toString(), QStringLiteral("reinstall"));

    // A dry run changes and downloads nothing.
    QCOMPARE(readAll(m_env + u'/' + altered), edited);
    QVERIFY(!QFile::exists(m_env + u'/' + missing));
    QVERIFY(m_server.requests().isEmpty());

    // A wheel of the same name and version with other contents in the download folder is not used.
    QVERIFY(buildWheel(m_downloads->filePath(wheelName), "tinypkg", "13"));
    const auto report = repair(options(false));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));
    const PipDistributionDamage *reinstalled = tinypkg(*report);
    QVERIFY(reinstalled);
    QVERIFY2(reinstalled->note.isEmpty(), qPrintable(reinstalled->note));
    QCOMPARE(reinstalled->source, lockedUrl);
    QVERIFY2(report->after.isEmpty(), qPrintable(report->after.join(u',')));
    QVERIFY(report->healthy());
    QVERIFY(m_server.hits("/files/" + wheelName.toUtf8()) >= 1);

    QCOMPARE(readAll(m_env + u'/' + altered), QByteArray("VALUE = 42\n"));
    QCOMPARE(readAll(m_env + u'/' + missing), QByteArray("TABLE = [1, 2, 3]\n"));
    const core::PipRecordScan after = core::checkPipRecords(m_env);
    QVERIFY(after.damaged.isEmpty());
    // The package imports again through the launcher.
    QProcess python;
    python.start(m_env + QStringLiteral("/start-python"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import tinypkg.data, tinypkg; print(tinypkg.VALUE, len(tinypkg.data.TABLE))")});
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()).trimmed(), QStringLiteral("42 3"));
    // Nothing is left beside the environment.
    QCOMPARE(QDir(m_prefix->path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("tf-pip")});
}

void TestRepairPip::reinstallsFromTheDownloadFolder()
{
    const auto [altered, missing] = damage();
    QVERIFY(!altered.isEmpty());
    QVERIFY(QFile::copy(m_wheel, m_downloads->filePath(wheelName)));
    RepairOptions o = options(false);
    o.network.pypiIndexes = {m_server.url(QStringLiteral("/nothing-here/")).toString()};
    const auto report = repair(o);
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));
    const PipDistributionDamage *p = tinypkg(*report);
    QVERIFY(p);
    QCOMPARE(p->source, wheelName);
    QVERIFY2(report->after.isEmpty(), qPrintable(report->after.join(u',')));
    QVERIFY(m_server.requests().isEmpty());
    QCOMPARE(readAll(m_env + u'/' + missing), QByteArray("TABLE = [1, 2, 3]\n"));
    QVERIFY(core::checkPipRecords(m_env).damaged.isEmpty());
}

// A wheel in the download folder with every file the installed RECORD names, right to the byte,
// and one more: a .pth, which Python runs at every start. Its hash is not the lock's, so it is
// never installed: the locked wheel is fetched from the locked URL instead.
void TestRepairPip::aPlantedWheelIsNeverInstalled()
{
    const auto [altered, missing] = damage();
    QVERIFY(!altered.isEmpty());
    QTemporaryDir witness;
    const QString ran = witness.filePath(QStringLiteral("ran"));
    QVERIFY(buildWheel(
        m_downloads->filePath(wheelName), "tinypkg", "42",
        {{QStringLiteral("zz_planted.pth"), "import os; open(" + ('\'' + ran.toUtf8() + '\'') + ", 'w')\n"}}));
    RepairOptions o = options(false);
    o.network.pypiIndexes = {m_server.url(QStringLiteral("/nothing-here/")).toString()};
    const auto report = repair(o);
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));
    const PipDistributionDamage *p = tinypkg(*report);
    QVERIFY(p);
    QVERIFY2(p->note.isEmpty(), qPrintable(p->note));
    QCOMPARE(p->source, m_server.url(QStringLiteral("/files/") + wheelName).toString());
    QVERIFY(m_server.hits("/files/" + wheelName.toUtf8()) >= 1);
    QVERIFY(report->healthy());
    QVERIFY(!QFileInfo::exists(m_env + u'/' + m_site + QStringLiteral("/zz_planted.pth")));
    QProcess python;
    python.start(m_env + QStringLiteral("/start-python"), {QStringLiteral("-c"), QStringLiteral("pass")});
    QVERIFY(python.waitForFinished(30000));
    QVERIFY(!QFileInfo::exists(ran));
}

// The package's folder in site-packages replaced by a link to a folder elsewhere (another
// project's copy): pip installs into tfsetup's staging folder, and nothing is moved through the
// link, so the folder it points to keeps its bytes; repair says what it could not put back.
void TestRepairPip::aLinkInSitePackagesIsNeverWrittenThrough()
{
    const QString package = m_env + u'/' + m_site + QStringLiteral("/tinypkg");
    QTemporaryDir outside;
    const QString elsewhere = outside.filePath(QStringLiteral("tinypkg"));
    QVERIFY(QDir().rename(package, elsewhere));
    QVERIFY(QFile::link(elsewhere, package));
    {
        QFile edited(elsewhere + QStringLiteral("/__init__.py"));
        QVERIFY(edited.open(QIODevice::WriteOnly | QIODevice::Truncate));
        edited.write("VALUE = 'theirs'\n");
    }
    QVERIFY(QFile::remove(elsewhere + QStringLiteral("/data.py")));
    const auto report = repair(options(false));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message + u' ' + report.error().detail));
    const PipDistributionDamage *p = tinypkg(*report);
    QVERIFY(p);
    QVERIFY(!p->note.isEmpty());
    QVERIFY(!report->healthy());
    QCOMPARE(readAll(elsewhere + QStringLiteral("/__init__.py")), QByteArray("VALUE = 'theirs'\n"));
    QVERIFY(!QFileInfo::exists(elsewhere + QStringLiteral("/data.py")));
    QCOMPARE(QDir(elsewhere).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("__init__.py")});
    QVERIFY(QFileInfo(package).isSymLink());
}

void TestRepairPip::freshEnvironmentMatches_recordLeavingItIsReportedNotFollowed()
{
    // pip's own distribution (from ensurepip), tinypkg with its script in bin/, the kernel's stand-in.
    const core::PipRecordScan fresh = core::checkPipRecords(m_env);
    QVERIFY2(fresh.distributions >= 3, qPrintable(QString::number(fresh.distributions)));
    QStringList damaged;
    for (const PipDistributionDamage &p : fresh.damaged)
        damaged.append(p.name + u' ' + (p.altered + p.missing + p.escaping).join(u','));
    QVERIFY2(damaged.isEmpty(), qPrintable(damaged.join(u'\n')));

    const auto clean = repair(options(true));
    QVERIFY2(clean, qPrintable(clean ? QString() : clean.error().message));
    QVERIFY(clean->packages.isEmpty());
    QVERIFY(clean->healthy());

    // Outside the environment: a file the RECORD now names with its true digest, and the file a
    // planted link points to, with the bytes the package's data.py had.
    QTemporaryDir outside;
    const QByteArray secret = "not the environment's\n";
    const QString secretPath = outside.filePath(QStringLiteral("outside"));
    {
        QFile f(secretPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(secret);
    }
    const QString site = m_env + u'/' + m_site;
    const QString escape = QDir(site).relativeFilePath(secretPath);
    QVERIFY(escape.startsWith(QStringLiteral("../../")));
    {
        QFile record(site + QStringLiteral("/tinypkg-0.1.dist-info/RECORD"));
        QVERIFY(record.open(QIODevice::Append));
        record.write(escape.toUtf8() + ',' + recordHash(secret) + ',' + QByteArray::number(secret.size()) + '\n');
    }
    const QString decoy = outside.filePath(QStringLiteral("data.py"));
    QVERIFY(QFile::copy(site + QStringLiteral("/tinypkg/data.py"), decoy));
    QVERIFY(QFile::remove(site + QStringLiteral("/tinypkg/data.py")));
    QVERIFY(QFile::link(decoy, site + QStringLiteral("/tinypkg/data.py")));

    const core::PipRecordScan scan = core::checkPipRecords(m_env);
    QCOMPARE(scan.damaged.size(), 1);
    const PipDistributionDamage &p = scan.damaged.first();
    QCOMPARE(p.escaping, QStringList{escape});
    // The link is not the file, whatever it points to.
    QCOMPARE(p.altered, QStringList{m_site + QStringLiteral("/tinypkg/data.py")});
    QVERIFY(p.missing.isEmpty());

    const auto report = repair(options(true));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().message));
    QVERIFY(tinypkg(*report));
    QCOMPARE(tinypkg(*report)->escaping, QStringList{escape});
    QVERIFY(report->text().contains(escape));
    QCOMPARE(readAll(secretPath), secret);
}

QTEST_GUILESS_MAIN(TestRepairPip)
#include "test_repair_pip.moc"
