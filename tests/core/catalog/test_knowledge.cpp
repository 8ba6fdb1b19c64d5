// The knowledge bundle: every part of the catalog read once, from one catalog. The built-in
// catalog loads; the process-wide bundle is one object until an update is installed; a copied
// catalog with one damaged file fails with one error naming that file; a signed update (made with
// a throw-away key) supplies every part at once. And no code outside the bundle and the loaders
// loads a catalog part on its own.

#include "catalog/catalogupdate.h"
#include "catalog/knowledge.h"
#include "support/catalogsigning.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#ifndef TFSETUP_SOURCE_ROOT
#error "tests/CMakeLists.txt defines TFSETUP_SOURCE_ROOT for this test"
#endif

using namespace Qt::StringLiterals;
using namespace tfsetup::core;

namespace {

// QVERIFY2 evaluates its message even when the check passes.
template<typename T>
QByteArray why(const Result<T> &result)
{
    return result
        ? QByteArray()
        : (result.error().code + u": "_s + result.error().message + u" | "_s + result.error().detail).toUtf8();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// The JSON file with the first element of one of its arrays removed.
QByteArray withoutFirst(const QByteArray &json, const QString &array)
{
    QJsonObject root = QJsonDocument::fromJson(json).object();
    QJsonArray list = root.value(array).toArray();
    list.removeFirst();
    root.insert(array, list);
    return QJsonDocument(root).toJson();
}

} // namespace

class TestKnowledge : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void builtIn_loadsEveryPart();
    void shared_isOneObject();
    void shared_reloadsAfterAnUpdateIsInstalled();
    void copiedFolder_loadsLikeTheBuiltIn();
    void brokenFile_namesIt_data();
    void brokenFile_namesIt();
    void signedUpdate_suppliesEveryPart();
    void sources_noOtherCodeLoadsACatalogPart();

private:
    CatalogUpdateTrust trust() const
    {
        CatalogUpdateTrust t;
        t.folder = m_dir->filePath(u"data/catalog"_s);
        t.publicKey = m_key.publicKey();
        t.builtInVersion = 1;
        t.builtInDate = u"2026-12-01"_s;
        return t;
    }
    // The built-in catalog's files copied into a folder of the temporary directory.
    QString copyOfBuiltIn() const
    {
        const QString folder = m_dir->filePath(u"catalog-copy"_s);
        if (!QDir().mkpath(folder))
            return {};
        const QMap<QString, QByteArray> files = tfsetup::test::builtInCatalogFiles();
        for (auto it = files.cbegin(); it != files.cend(); ++it) {
            if (!writeFile(folder + u'/' + it.key(), it.value()))
                return {};
        }
        return folder;
    }
    // A signed update of version 2 whose tensorflow, gpus, sources and tflog files each lack
    // their first record, installed through CatalogUpdates::install.
    Status installUpdate() const
    {
        QMap<QString, QByteArray> files = tfsetup::test::builtInCatalogFiles();
        files.insert(u"tensorflow.json"_s, withoutFirst(files.value(u"tensorflow.json"_s), u"releases"_s));
        files.insert(u"gpus.json"_s, withoutFirst(files.value(u"gpus.json"_s), u"records"_s));
        files.insert(u"sources.json"_s, withoutFirst(files.value(u"sources.json"_s), u"pypi_mirrors"_s));
        files.insert(u"tflog.json"_s, withoutFirst(files.value(u"tflog.json"_s), u"rules"_s));
        const QByteArray document =
            QJsonDocument(tfsetup::test::signedCatalogUpdate(m_key, 2, files, u"2027-02-01"_s)).toJson();
        auto outcome = CatalogUpdates::install(document, u"test"_s, trust());
        if (!outcome)
            return outcome.error();
        return Ok{};
    }

    tfsetup::test::TestSigningKey m_key;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestKnowledge::init()
{
    QVERIFY(m_key.isValid());
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    CatalogUpdates::setTrustForTesting(trust());
}

void TestKnowledge::cleanup()
{
    CatalogUpdates::setTrustForTesting(std::nullopt);
    m_dir.reset();
}

void TestKnowledge::builtIn_loadsEveryPart()
{
    const auto knowledge = Knowledge::load();
    QVERIFY2(knowledge, why(knowledge).constData());
    const Knowledge &k = **knowledge;
    QVERIFY(!k.catalog.releases().isEmpty());
    QVERIFY(!k.catalog.routeNames().isEmpty());
    QVERIFY(!k.gpus.records().isEmpty());
    QVERIFY(!k.sources.pypiMirrors().isEmpty());
    QVERIFY(!k.placement.layouts().isEmpty());
    QVERIFY(!k.causes.causes().isEmpty());
    QVERIFY(!k.tfLog.rules().isEmpty());
    QVERIFY(!k.versionQueries.all().isEmpty());
    // The log rules name causes of this very registry.
    for (const TfLogRule &rule : k.tfLog.rules()) {
        if (!rule.cause.isEmpty())
            QVERIFY2(k.causes.contains(rule.cause), qPrintable(rule.id + u" → "_s + rule.cause));
    }
    QVERIFY(!k.fromUpdate);
    QCOMPARE(k.builtInVersion, 1);
    QCOMPARE(k.version(), 1);
    QCOMPARE(k.date(), u"2026-12-01"_s);
    QCOMPARE(k.folder, QString::fromLatin1(Knowledge::builtInFolder));
}

void TestKnowledge::shared_isOneObject()
{
    const auto first = Knowledge::shared();
    QVERIFY2(first, why(first).constData());
    const auto second = Knowledge::shared();
    QVERIFY2(second, why(second).constData());
    QVERIFY(*first);
    QCOMPARE(first->get(), second->get());
}

void TestKnowledge::shared_reloadsAfterAnUpdateIsInstalled()
{
    const auto before = Knowledge::shared();
    QVERIFY2(before, why(before).constData());
    QVERIFY(!(*before)->fromUpdate);

    const Status installed = installUpdate();
    QVERIFY2(installed, why(installed).constData());
    const auto after = Knowledge::shared();
    QVERIFY2(after, why(after).constData());
    QVERIFY(after->get() != before->get());
    QVERIFY((*after)->fromUpdate);
    QCOMPARE((*after)->updateVersion, 2);
    QCOMPARE(Knowledge::shared()->get(), after->get());
    // Whoever holds the earlier bundle keeps it whole.
    QVERIFY(!(*before)->fromUpdate);
    QCOMPARE((*before)->catalog.releases().size(), (*after)->catalog.releases().size() + 1);
}

void TestKnowledge::copiedFolder_loadsLikeTheBuiltIn()
{
    const QString folder = copyOfBuiltIn();
    QVERIFY(!folder.isEmpty());
    const auto copy = Knowledge::load(folder);
    QVERIFY2(copy, why(copy).constData());
    const auto builtIn = Knowledge::load();
    QVERIFY2(builtIn, why(builtIn).constData());
    QCOMPARE((*copy)->folder, folder);
    QVERIFY(!(*copy)->fromUpdate);
    QCOMPARE((*copy)->catalog.releases().size(), (*builtIn)->catalog.releases().size());
    QCOMPARE((*copy)->gpus.records().size(), (*builtIn)->gpus.records().size());
    QCOMPARE((*copy)->tfLog.rules().size(), (*builtIn)->tfLog.rules().size());
}

void TestKnowledge::brokenFile_namesIt_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("remove"); // false: the file is there but not JSON

    for (const QString &name : CatalogUpdates::fileNames()) {
        QTest::newRow(qPrintable(name + u" damaged"_s)) << name << false;
        QTest::newRow(qPrintable(name + u" missing"_s)) << name << true;
    }
}

void TestKnowledge::brokenFile_namesIt()
{
    QFETCH(QString, file);
    QFETCH(bool, remove);
    const QString folder = copyOfBuiltIn();
    QVERIFY(!folder.isEmpty());
    const QString path = folder + u'/' + file;
    if (remove)
        QVERIFY(QFile::remove(path));
    else
        QVERIFY(writeFile(path, "{ \"schema\": 1, this is not JSON"));

    const auto knowledge = Knowledge::load(folder);
    QVERIFY(!knowledge);
    const Error &e = knowledge.error();
    QVERIFY(!e.code.isEmpty());
    QVERIFY(!e.message.isEmpty());
    const QString said = e.message + u" | "_s + e.detail;
    QVERIFY2(said.contains(file), qPrintable(said));
    // Only the damaged file is named: the error is about it, not about the catalog as a whole.
    for (const QString &other : CatalogUpdates::fileNames()) {
        if (other != file)
            QVERIFY2(!said.contains(other), qPrintable(other + u": "_s + said));
    }
}

void TestKnowledge::signedUpdate_suppliesEveryPart()
{
    const auto builtIn = Knowledge::load();
    QVERIFY2(builtIn, why(builtIn).constData());
    const Status installed = installUpdate();
    QVERIFY2(installed, why(installed).constData());

    const auto updated = Knowledge::load();
    QVERIFY2(updated, why(updated).constData());
    const Knowledge &u = **updated;
    const Knowledge &b = **builtIn;
    QVERIFY(u.fromUpdate);
    QCOMPARE(u.updateVersion, 2);
    QCOMPARE(u.updateDate, u"2027-02-01"_s);
    QCOMPARE(u.version(), 2);
    QCOMPARE(u.builtInVersion, 1);
    // Every changed part comes from the update, in the same load.
    QCOMPARE(u.catalog.releases().size(), b.catalog.releases().size() - 1);
    QCOMPARE(u.gpus.records().size(), b.gpus.records().size() - 1);
    QCOMPARE(u.sources.pypiMirrors().size(), b.sources.pypiMirrors().size() - 1);
    QCOMPARE(u.tfLog.rules().size(), b.tfLog.rules().size() - 1);
    // The unchanged parts are the update's copies of the same data.
    QCOMPARE(u.placement.layouts().size(), b.placement.layouts().size());
    QCOMPARE(u.causes.causes().size(), b.causes.causes().size());

    // A folder other than the built-in one is read as it is, update or not.
    const QString folder = copyOfBuiltIn();
    QVERIFY(!folder.isEmpty());
    const auto copy = Knowledge::load(folder);
    QVERIFY2(copy, why(copy).constData());
    QVERIFY(!(*copy)->fromUpdate);
    QCOMPARE((*copy)->catalog.releases().size(), b.catalog.releases().size());
}

void TestKnowledge::sources_noOtherCodeLoadsACatalogPart()
{
    const QString root = QStringLiteral(TFSETUP_SOURCE_ROOT);
    QVERIFY2(QFileInfo(root + u"/wizard/core/catalog/knowledge.cpp"_s).isFile(), qPrintable(root));
    // The loaders' own files (their definitions, default arguments and tests of themselves)
    // and the bundle may name them; everything else takes the bundle.
    const QSet<QString> allowed{
        u"wizard/core/catalog/knowledge.cpp"_s,      u"wizard/core/catalog/knowledge.h"_s,
        u"wizard/core/catalog/catalog.cpp"_s,        u"wizard/core/catalog/catalog.h"_s,
        u"wizard/core/catalog/gputable.cpp"_s,       u"wizard/core/catalog/gputable.h"_s,
        u"wizard/core/catalog/sourcecatalog.cpp"_s,  u"wizard/core/catalog/sourcecatalog.h"_s,
        u"wizard/core/catalog/placementrules.cpp"_s, u"wizard/core/catalog/placementrules.h"_s,
        u"wizard/core/catalog/tflogrules.cpp"_s,     u"wizard/core/catalog/tflogrules.h"_s,
        u"wizard/core/catalog/causes.cpp"_s,         u"wizard/core/catalog/causes.h"_s,
        u"wizard/core/catalog/versionqueries.cpp"_s, u"wizard/core/catalog/versionqueries.h"_s,
    };
    static const QRegularExpression call(
        uR"((?<![A-Za-z0-9_])(Catalog|GpuTable|SourceCatalog|PlacementRules|CauseRegistry|TfLogRules|VersionQueries)\s*::\s*load\s*\()"_s);
    QStringList offenders;
    int scanned = 0;
    for (const QString &top : {u"wizard"_s, u"app"_s}) {
        QDirIterator it(root + u'/' + top, {u"*.cpp"_s, u"*.h"_s}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const QString relative = QDir(root).relativeFilePath(path);
            QFile f(path);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
            ++scanned;
            if (allowed.contains(relative))
                continue;
            const QString text = QString::fromUtf8(f.readAll());
            auto matches = call.globalMatch(text);
            while (matches.hasNext()) {
                const auto m = matches.next();
                const int line = int(text.left(m.capturedStart()).count(u'\n')) + 1;
                offenders.append(u"%1:%2: %3"_s.arg(relative).arg(line).arg(m.captured()));
            }
        }
    }
    QVERIFY2(scanned > 100, qPrintable(u"only %1 source files found under %2"_s.arg(scanned).arg(root)));
    QVERIFY2(offenders.isEmpty(),
             qPrintable(u"take the knowledge bundle (catalog/knowledge.h) instead:\n"_s + offenders.join(u'\n')));
}

QTEST_GUILESS_MAIN(TestKnowledge)
#include "test_knowledge.moc"
