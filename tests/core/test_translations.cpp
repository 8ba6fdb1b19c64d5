// Translation completeness: every string the sources mark for translation is in
// translations/tfsetup_zh_CN.ts with a finished, non-empty Chinese translation. Runs lupdate the
// way the build's update_translations target does, into a temporary file, and compares.

#include <QDirIterator>
#include <QFile>
#include <QLibraryInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <optional>

namespace {

struct TsMessage {
    QString context;
    QString source;
    QString comment; // the disambiguation; part of the key
    QString translationType; // "", "unfinished", "vanished", "obsolete"
    QStringList translations; // one, or one per numerus form
    bool numerus = false;

    QString key() const { return context + u'\x1f' + source + u'\x1f' + comment; }
    QString describe() const
    {
        QString text = context + QStringLiteral(": \"") + source + u'"';
        if (!comment.isEmpty())
            text += QStringLiteral(" (") + comment + u')';
        return text;
    }
    // Why this message would show English (or nothing) to a zh_CN user; empty when it is fine.
    QString defect() const
    {
        if (translationType == u"unfinished")
            return QStringLiteral("unfinished");
        if (translationType == u"vanished" || translationType == u"obsolete")
            return {}; // no longer in the sources; lupdate -no-obsolete drops it
        if (translations.isEmpty())
            return QStringLiteral("empty");
        for (const QString &t : translations) {
            if (t.trimmed().isEmpty())
                return QStringLiteral("empty");
        }
        return {};
    }
};

struct TsFile {
    QString language;
    QList<TsMessage> messages;
    QString error;
};

TsFile parseTs(const QByteArray &xml)
{
    TsFile file;
    QXmlStreamReader reader(xml);
    QString context;
    std::optional<TsMessage> message;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement()) {
            const auto name = reader.name();
            if (name == u"TS") {
                file.language = reader.attributes().value(QLatin1String("language")).toString();
            } else if (name == u"context") {
                context.clear();
            } else if (name == u"name" && !message) {
                context = reader.readElementText();
            } else if (name == u"message") {
                message = TsMessage{};
                message->context = context;
                message->numerus = reader.attributes().value(QLatin1String("numerus")) == u"yes";
            } else if (message && name == u"source") {
                message->source = reader.readElementText();
            } else if (message && name == u"comment") {
                message->comment = reader.readElementText();
            } else if (message && name == u"translation") {
                message->translationType = reader.attributes().value(QLatin1String("type")).toString();
                if (!message->numerus)
                    message->translations.append(reader.readElementText());
            } else if (message && name == u"numerusform") {
                message->translations.append(reader.readElementText());
            }
        } else if (reader.isEndElement() && reader.name() == u"message" && message) {
            file.messages.append(*message);
            message.reset();
        }
    }
    if (reader.hasError())
        file.error = QStringLiteral("line %1: %2").arg(reader.lineNumber()).arg(reader.errorString());
    return file;
}

QString findLupdate()
{
    const QStringList dirs{QLibraryInfo::path(QLibraryInfo::LibraryExecutablesPath),
                           QLibraryInfo::path(QLibraryInfo::BinariesPath), QStringLiteral("/usr/lib/qt6/bin")};
    for (const QString &dir : dirs) {
        const QString found = QStandardPaths::findExecutable(QStringLiteral("lupdate"), {dir});
        if (!found.isEmpty())
            return found;
    }
    return QStandardPaths::findExecutable(QStringLiteral("lupdate6"));
}

// The same files translations/CMakeLists.txt hands to qt_add_lupdate.
QStringList translatableSources(const QString &sourceDir)
{
    QStringList files;
    const auto collect = [&files](const QString &dir, const QStringList &patterns) {
        QDirIterator it(dir, patterns, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files.append(it.next());
    };
    collect(sourceDir + QStringLiteral("/wizard"), {QStringLiteral("*.cpp"), QStringLiteral("*.h")});
    collect(sourceDir + QStringLiteral("/app"), {QStringLiteral("*.cpp")});
    files.sort();
    return files;
}

// Qt Test cuts long failure messages short, so each entry is logged on its own line first.
void logEach(const char *what, const QStringList &lines)
{
    for (const QString &line : lines)
        qWarning().noquote() << what << line;
}

} // namespace

class TestTranslations final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void defect_data();
    void defect();

    void sources_yieldMessages();
    void catalogue_hasEverySourceString();
    void catalogue_hasNoUnfinishedMessage();

private:
    TsFile m_extracted;
    TsFile m_catalogue;
};

void TestTranslations::initTestCase()
{
    const QString sourceDir = qEnvironmentVariable("TFSETUP_SOURCE_DIR");
    QVERIFY2(!sourceDir.isEmpty(), "TFSETUP_SOURCE_DIR is not set; run through ctest");

    QFile catalogue(sourceDir + QStringLiteral("/translations/tfsetup_zh_CN.ts"));
    QVERIFY2(catalogue.open(QIODevice::ReadOnly), qPrintable(catalogue.fileName()));
    m_catalogue = parseTs(catalogue.readAll());
    QVERIFY2(m_catalogue.error.isEmpty(), qPrintable(m_catalogue.error));
    QCOMPARE(m_catalogue.language, QStringLiteral("zh_CN"));

    const QString lupdate = findLupdate();
    if (lupdate.isEmpty())
        QSKIP("lupdate was not found next to Qt's tools; install Qt's Linguist tools");

    QTemporaryDir work;
    QVERIFY(work.isValid());
    const QStringList sources = translatableSources(sourceDir);
    QVERIFY(!sources.isEmpty());
    // A list file keeps the command line short however many sources there are.
    QFile list(work.filePath(QStringLiteral("sources.lst")));
    QVERIFY(list.open(QIODevice::WriteOnly));
    list.write((QStringLiteral("-I") + sourceDir + QStringLiteral("/wizard/core\n-I") + sourceDir
                + QStringLiteral("/wizard\n") + sources.join(u'\n') + u'\n')
                   .toUtf8());
    list.close();

    const QString extractedPath = work.filePath(QStringLiteral("extracted_zh_CN.ts"));
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(lupdate, {QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                            QStringLiteral("-target-language"), QStringLiteral("zh_CN"),
                            u'@' + list.fileName(), QStringLiteral("-ts"), extractedPath});
    QVERIFY2(process.waitForFinished(120'000), "lupdate did not finish within two minutes");
    const QString output = QString::fromLocal8Bit(process.readAll());
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, qPrintable(output));

    QFile extracted(extractedPath);
    QVERIFY2(extracted.open(QIODevice::ReadOnly), qPrintable(output));
    m_extracted = parseTs(extracted.readAll());
    QVERIFY2(m_extracted.error.isEmpty(), qPrintable(m_extracted.error));
}

void TestTranslations::defect_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<QString>("defect");

    QTest::newRow("finished") << QByteArray("<message><source>Yes</source><translation>是</translation></message>")
                              << QString();
    QTest::newRow("unfinished with text")
        << QByteArray("<message><source>Yes</source><translation type=\"unfinished\">是</translation></message>")
        << QStringLiteral("unfinished");
    QTest::newRow("empty") << QByteArray("<message><source>Yes</source><translation></translation></message>")
                           << QStringLiteral("empty");
    QTest::newRow("no translation element") << QByteArray("<message><source>Yes</source></message>")
                                            << QStringLiteral("empty");
    QTest::newRow("vanished") << QByteArray("<message><source>Old</source><translation type=\"vanished\">旧"
                                            "</translation></message>")
                              << QString();
    QTest::newRow("numerus complete")
        << QByteArray("<message numerus=\"yes\"><source>%n found</source><translation>"
                      "<numerusform>找到 %n 个</numerusform></translation></message>")
        << QString();
    QTest::newRow("numerus with empty form")
        << QByteArray("<message numerus=\"yes\"><source>%n found</source><translation>"
                      "<numerusform></numerusform></translation></message>")
        << QStringLiteral("empty");
}

void TestTranslations::defect()
{
    QFETCH(QByteArray, message);
    QFETCH(QString, defect);
    const TsFile file = parseTs("<TS version=\"2.1\" language=\"zh_CN\"><context><name>tfsetup::X</name>"
                                + message + "</context></TS>");
    QVERIFY2(file.error.isEmpty(), qPrintable(file.error));
    QCOMPARE(file.messages.size(), 1);
    QCOMPARE(file.messages.first().context, QStringLiteral("tfsetup::X"));
    QCOMPARE(file.messages.first().defect(), defect);
}

void TestTranslations::sources_yieldMessages()
{
    // Guards the comparison below against an lupdate run that silently read nothing.
    bool sawWizardTitle = false;
    for (const TsMessage &m : std::as_const(m_extracted.messages)) {
        if (m.context == u"tfsetup::ui::SetupWizard" && m.source == u"TensorFlow GPU setup")
            sawWizardTitle = true;
    }
    QVERIFY2(sawWizardTitle, qPrintable(QStringLiteral("lupdate found %1 messages").arg(m_extracted.messages.size())));
}

void TestTranslations::catalogue_hasEverySourceString()
{
    QSet<QString> inCatalogue;
    for (const TsMessage &m : std::as_const(m_catalogue.messages)) {
        if (m.translationType != u"vanished" && m.translationType != u"obsolete")
            inCatalogue.insert(m.key());
    }
    QStringList missing;
    for (const TsMessage &m : std::as_const(m_extracted.messages)) {
        if (!inCatalogue.contains(m.key()))
            missing.append(m.describe());
    }
    logEach("missing:", missing);
    QVERIFY2(missing.isEmpty(),
             qPrintable(QStringLiteral("%1 of %2 source strings are missing from translations/tfsetup_zh_CN.ts "
                                       "(listed above as \"missing:\"; run the update_translations target, then "
                                       "translate them)")
                            .arg(missing.size())
                            .arg(m_extracted.messages.size())));
}

void TestTranslations::catalogue_hasNoUnfinishedMessage()
{
    QSet<QString> inSources;
    for (const TsMessage &m : std::as_const(m_extracted.messages))
        inSources.insert(m.key());
    QStringList defects;
    for (const TsMessage &m : std::as_const(m_catalogue.messages)) {
        // Messages no longer in the sources are the other test's concern (lupdate drops them).
        if (!inSources.contains(m.key()))
            continue;
        if (const QString d = m.defect(); !d.isEmpty())
            defects.append(m.describe() + QStringLiteral(" [") + d + u']');
    }
    logEach("untranslated:", defects);
    QVERIFY2(defects.isEmpty(),
             qPrintable(QStringLiteral("%1 zh_CN messages are unfinished or empty (listed above as "
                                       "\"untranslated:\")")
                            .arg(defects.size())));
}

QTEST_GUILESS_MAIN(TestTranslations)
#include "test_translations.moc"
