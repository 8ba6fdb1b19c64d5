// Translation completeness: every string the sources mark for translation is in each catalogue
// (translations/tfsetup_zh_CN.ts, tfsetup_zh_TW.ts) with a finished, non-empty translation that
// keeps the source's placeholders and accelerator. Runs lupdate the way the build's
// update_translations target does, into a temporary file, and compares. Also: the Traditional
// catalogue holds no Simplified-only character, and the system locale picks the right catalogue.

#include "util/i18n.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QLibraryInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <optional>

using namespace tfsetup;

namespace {

struct TsMessage {
    QString context;
    QString source;
    QString comment;          // the disambiguation; part of the key
    QString translationType;  // "", "unfinished", "vanished", "obsolete"
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
    // Why this message would show English (or nothing) to a reader of the catalogue; empty when fine.
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

// The catalogues the build embeds; each is held to the same standard.
const QStringList catalogueLanguages{QStringLiteral("zh_CN"), QStringLiteral("zh_TW")};

// Placeholders (%1, %n, %L1, %p) and the accelerator letter (&F, compared case-insensitively; "&&" is
// a literal ampersand) that a translation must keep from its source.
QString markers(const QString &text)
{
    static const QRegularExpression placeholder(QStringLiteral("%(?:L?\\d+|n|p)"));
    static const QRegularExpression accelerator(QStringLiteral("&([^&\\s])"));
    QStringList found;
    for (const auto &m : placeholder.globalMatch(text))
        found.append(m.captured());
    found.removeDuplicates(); // "%2" may rightly appear twice in one language and once in another
    found.sort();
    QString withoutLiteral = text;
    withoutLiteral.replace(QStringLiteral("&&"), QString());
    for (const auto &m : accelerator.globalMatch(withoutLiteral))
        found.append(u'&' + m.captured(1).toUpper());
    return found.join(u' ');
}

// Characters that exist only in Simplified Chinese: each has a different Traditional form and is
// not itself Traditional (OpenCC's STCharacters and TSCharacters tables). The list is every such
// character tfsetup_zh_CN.ts used when zh_TW was added, most frequent first; one of them in zh_TW
// means a conversion was missed.
const QString simplifiedOnly = QStringLiteral(
    "请装环动个载无验没夹运会驱该检线启时选计这机库从为内复实写择处录显离过并将镜发径网压开读来构创坏损组"
    "缩证报与务现细脚输问项试详导统对带换络设败进错间题备数记还测结认权点码说单应当盘称续让误连旧样积终继"
    "编们关册员获变断暂经译钟页则删帮贴较预仅击号块属户扫节识释长两么书况头档规询语软边链闭须骤决响条标浏"
    "缓联览阵隐顺优别够携独给课锁东办围国学尝杀电类绝绪脑虑论访赖随临传侧减华参双园图坛声层强执拟栏横欢溃"
    "滞满状稳笔签紧约级议许诊调转销门陆");

// How to catch up a catalogue that fell behind.
QString draftHint(const QString &language)
{
    return language == u"zh_TW" ? QStringLiteral("; translations/zh_tw_from_zh_cn.py drafts them from finished zh_CN "
                                                 "translations")
                                : QString();
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

    void markers_data();
    void markers();

    void sources_yieldMessages();
    void catalogue_hasEverySourceString_data();
    void catalogue_hasEverySourceString();
    void catalogue_hasNoUnfinishedMessage_data();
    void catalogue_hasNoUnfinishedMessage();
    void catalogue_keepsPlaceholdersAndAccelerators_data();
    void catalogue_keepsPlaceholdersAndAccelerators();
    void traditionalCatalogue_hasNoSimplifiedOnlyCharacter();

    void embedded_everyCatalogueLoads_data();
    void embedded_everyCatalogueLoads();
    void bestFor_data();
    void bestFor();

private:
    void addLanguageRows();

    const char *m_noLupdate = nullptr; // why the comparisons with the sources cannot run
    TsFile m_extracted;
    QHash<QString, TsFile> m_catalogues;
};

void TestTranslations::addLanguageRows()
{
    QTest::addColumn<QString>("language");
    for (const QString &language : catalogueLanguages)
        QTest::newRow(qPrintable(language)) << language;
}

void TestTranslations::initTestCase()
{
    const QString sourceDir = qEnvironmentVariable("TFSETUP_SOURCE_DIR");
    QVERIFY2(!sourceDir.isEmpty(), "TFSETUP_SOURCE_DIR is not set; run through ctest");

    for (const QString &language : catalogueLanguages) {
        QFile catalogue(sourceDir + QStringLiteral("/translations/tfsetup_%1.ts").arg(language));
        QVERIFY2(catalogue.open(QIODevice::ReadOnly), qPrintable(catalogue.fileName()));
        const TsFile parsed = parseTs(catalogue.readAll());
        QVERIFY2(parsed.error.isEmpty(), qPrintable(catalogue.fileName() + QStringLiteral(": ") + parsed.error));
        QCOMPARE(parsed.language, language);
        m_catalogues.insert(language, parsed);
    }

    const QString lupdate = findLupdate();
    if (lupdate.isEmpty()) {
        // The checks of the catalogues themselves and of the embedded files still run.
        m_noLupdate = "lupdate was not found next to Qt's tools; install Qt's Linguist tools";
        return;
    }

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
    process.start(lupdate,
                  {QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                   QStringLiteral("-target-language"), QStringLiteral("zh_CN"), u'@' + list.fileName(),
                   QStringLiteral("-ts"), extractedPath});
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
    QTest::newRow("no translation element")
        << QByteArray("<message><source>Yes</source></message>") << QStringLiteral("empty");
    QTest::newRow("vanished") << QByteArray("<message><source>Old</source><translation type=\"vanished\">旧"
                                            "</translation></message>")
                              << QString();
    QTest::newRow("numerus complete") << QByteArray("<message numerus=\"yes\"><source>%n found</source><translation>"
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
    const TsFile file = parseTs("<TS version=\"2.1\" language=\"zh_CN\"><context><name>tfsetup::X</name>" + message
                                + "</context></TS>");
    QVERIFY2(file.error.isEmpty(), qPrintable(file.error));
    QCOMPARE(file.messages.size(), 1);
    QCOMPARE(file.messages.first().context, QStringLiteral("tfsetup::X"));
    QCOMPARE(file.messages.first().defect(), defect);
}

void TestTranslations::markers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QStringLiteral("Cancel") << QString();
    QTest::newRow("placeholders sorted, repeats once")
        << QStringLiteral("%2 needs %1, and %2 again") << QStringLiteral("%1 %2");
    QTest::newRow("numerus and percent") << QStringLiteral("%n files, %p%") << QStringLiteral("%n %p");
    QTest::newRow("accelerator upper-cased") << QStringLiteral("Scan a&gain") << QStringLiteral("&G");
    QTest::newRow("translated accelerator") << QStringLiteral("重新掃描(&G)") << QStringLiteral("&G");
    QTest::newRow("literal ampersand") << QStringLiteral("Tom && Jerry") << QString();
    QTest::newRow("both") << QStringLiteral("Save %1 &as…") << QStringLiteral("%1 &A");
}

void TestTranslations::markers()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QCOMPARE(::markers(text), expected);
}

void TestTranslations::sources_yieldMessages()
{
    if (m_noLupdate)
        QSKIP(m_noLupdate);
    // Guards the comparison below against an lupdate run that silently read nothing.
    bool sawWizardTitle = false;
    for (const TsMessage &m : std::as_const(m_extracted.messages)) {
        if (m.context == u"tfsetup::ui::SetupWizard" && m.source == u"TensorFlow GPU setup")
            sawWizardTitle = true;
    }
    QVERIFY2(sawWizardTitle, qPrintable(QStringLiteral("lupdate found %1 messages").arg(m_extracted.messages.size())));
}

void TestTranslations::catalogue_hasEverySourceString_data()
{
    addLanguageRows();
}

void TestTranslations::catalogue_hasEverySourceString()
{
    if (m_noLupdate)
        QSKIP(m_noLupdate);
    QFETCH(QString, language);
    QSet<QString> inCatalogue;
    for (const TsMessage &m : std::as_const(m_catalogues[language].messages)) {
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
             qPrintable(QStringLiteral("%1 of %2 source strings are missing from translations/tfsetup_%3.ts "
                                       "(listed above as \"missing:\"; run the update_translations target, then "
                                       "translate them%4)")
                            .arg(missing.size())
                            .arg(m_extracted.messages.size())
                            .arg(language, draftHint(language))));
}

void TestTranslations::catalogue_hasNoUnfinishedMessage_data()
{
    addLanguageRows();
}

void TestTranslations::catalogue_hasNoUnfinishedMessage()
{
    if (m_noLupdate)
        QSKIP(m_noLupdate);
    QFETCH(QString, language);
    QSet<QString> inSources;
    for (const TsMessage &m : std::as_const(m_extracted.messages))
        inSources.insert(m.key());
    QStringList defects;
    for (const TsMessage &m : std::as_const(m_catalogues[language].messages)) {
        // Messages no longer in the sources are the other test's concern (lupdate drops them).
        if (!inSources.contains(m.key()))
            continue;
        if (const QString d = m.defect(); !d.isEmpty())
            defects.append(m.describe() + QStringLiteral(" [") + d + u']');
    }
    logEach("untranslated:", defects);
    QVERIFY2(defects.isEmpty(),
             qPrintable(QStringLiteral("%1 %2 messages are unfinished or empty (listed above as "
                                       "\"untranslated:\"%3)")
                            .arg(defects.size())
                            .arg(language, draftHint(language))));
}

void TestTranslations::catalogue_keepsPlaceholdersAndAccelerators_data()
{
    addLanguageRows();
}

void TestTranslations::catalogue_keepsPlaceholdersAndAccelerators()
{
    QFETCH(QString, language);
    QStringList mismatches;
    for (const TsMessage &m : std::as_const(m_catalogues[language].messages)) {
        if (!m.defect().isEmpty() || m.translationType == u"vanished" || m.translationType == u"obsolete")
            continue; // the completeness tests report these
        const QString expected = ::markers(m.source);
        for (const QString &t : m.translations) {
            if (const QString got = ::markers(t); got != expected)
                mismatches.append(m.describe()
                                  + QStringLiteral(" [expected \"%1\", translation has \"%2\"]").arg(expected, got));
        }
    }
    logEach("markers:", mismatches);
    QVERIFY2(mismatches.isEmpty(),
             qPrintable(QStringLiteral("%1 %2 translations lose or add a placeholder or accelerator (listed above "
                                       "as \"markers:\")")
                            .arg(mismatches.size())
                            .arg(language)));
}

void TestTranslations::traditionalCatalogue_hasNoSimplifiedOnlyCharacter()
{
    QStringList simplified;
    for (const TsMessage &m : std::as_const(m_catalogues[QStringLiteral("zh_TW")].messages)) {
        for (const QString &t : m.translations) {
            QString found;
            for (const QChar c : t) {
                if (simplifiedOnly.contains(c) && !found.contains(c))
                    found.append(c);
            }
            if (!found.isEmpty())
                simplified.append(m.describe() + QStringLiteral(" [") + found + u']');
        }
    }
    logEach("simplified:", simplified);
    QVERIFY2(simplified.isEmpty(),
             qPrintable(QStringLiteral("%1 zh_TW translations contain Simplified-only characters (listed above as "
                                       "\"simplified:\")")
                            .arg(simplified.size())));
}

void TestTranslations::embedded_everyCatalogueLoads_data()
{
    addLanguageRows();
}

void TestTranslations::embedded_everyCatalogueLoads()
{
    QFETCH(QString, language);
    QVERIFY2(core::Translations::available().contains(language),
             qPrintable(core::Translations::available().join(u' ')));
    QString welcome;
    for (const TsMessage &m : std::as_const(m_catalogues[language].messages)) {
        if (m.context == u"tfsetup::ui::WelcomePage" && m.source == u"Welcome")
            welcome = m.translations.value(0);
    }
    QVERIFY2(!welcome.isEmpty(), "the catalogue has no translation of the Welcome page's title");

    core::Translations translations;
    QVERIFY(translations.setLanguage(language));
    QCOMPARE(translations.language(), language);
    // The embedded .qm is this catalogue, not the other Chinese one.
    QCOMPARE(QCoreApplication::translate("tfsetup::ui::WelcomePage", "Welcome"), welcome);
    QVERIFY(translations.setLanguage(QStringLiteral("en")));
    QCOMPARE(QCoreApplication::translate("tfsetup::ui::WelcomePage", "Welcome"), QStringLiteral("Welcome"));
}

void TestTranslations::bestFor_data()
{
    QTest::addColumn<QString>("locale");
    QTest::addColumn<QString>("language");

    QTest::newRow("mainland China") << QStringLiteral("zh_CN") << QStringLiteral("zh_CN");
    QTest::newRow("Singapore") << QStringLiteral("zh_SG") << QStringLiteral("zh_CN");
    QTest::newRow("Simplified script") << QStringLiteral("zh_Hans") << QStringLiteral("zh_CN");
    QTest::newRow("Simplified in Hong Kong") << QStringLiteral("zh_Hans_HK") << QStringLiteral("zh_CN");
    QTest::newRow("Chinese alone") << QStringLiteral("zh") << QStringLiteral("zh_CN");
    QTest::newRow("Taiwan") << QStringLiteral("zh_TW") << QStringLiteral("zh_TW");
    QTest::newRow("Hong Kong") << QStringLiteral("zh_HK") << QStringLiteral("zh_TW");
    QTest::newRow("Macau") << QStringLiteral("zh_MO") << QStringLiteral("zh_TW");
    QTest::newRow("Traditional script") << QStringLiteral("zh_Hant") << QStringLiteral("zh_TW");
    QTest::newRow("BCP 47 Traditional") << QStringLiteral("zh-Hant-HK") << QStringLiteral("zh_TW");
    QTest::newRow("English") << QStringLiteral("en_US") << QStringLiteral("en");
    QTest::newRow("no catalogue") << QStringLiteral("de_DE") << QStringLiteral("en");
    QTest::newRow("C locale") << QStringLiteral("C") << QStringLiteral("en");
}

void TestTranslations::bestFor()
{
    QFETCH(QString, locale);
    QFETCH(QString, language);
    QCOMPARE(core::Translations::bestFor(QLocale(locale)), language);
    if (language.startsWith(u"zh"))
        QCOMPARE(core::Translations::nativeName(language),
                 language == u"zh_TW" ? QStringLiteral("繁體中文") : QStringLiteral("简体中文"));
}

QTEST_GUILESS_MAIN(TestTranslations)
#include "test_translations.moc"
