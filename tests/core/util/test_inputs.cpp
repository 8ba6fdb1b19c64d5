// Input documents refused by shape and size: a profile, bundle.json, an environment record, a
// hardware report or a plan whose fields have other types or sizes is refused with the field
// named, never read as empty; every input file is read with a limit, and special files
// (/dev/zero, a FIFO) are refused before they are read. An unattended install whose plan
// cannot be kept (unknown CUDA, a component missing) stops instead of reporting success.

#include "catalog/catalog.h"
#include "detect/hardwarereport.h"
#include "install/environmentrecord.h"
#include "install/labprofile.h"
#include "setup/labsetup.h"
#include "sources/bundle.h"
#include "sources/resolver.h"
#include "support/fixturetree.h"
#include "support/shippedknowledge.h"
#include "util/inputfile.h"
#include "util/jsonshape.h"
#include "util/names.h"
#include "util/text.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStringDecoder>
#include <QStringEncoder>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace tfsetup;
using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

QJsonObject parse(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

const QByteArray goodProfile = R"({"schema": 1, "environment": "tf-lab", "installFolder": "${HOME}/envs",
    "plan": {"route": "linux-pip", "tensorflow": "2.15.1", "requirements": ["tensorflow==2.15.1"]},
    "kernel": {"name": "tf-lab", "displayName": "TF", "register": true}})";

} // namespace

class TestInputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void names_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("safe");
        QTest::newRow("plain") << u"tf2.15-lab"_s << true;
        QTest::newRow("chinese") << u"实验室"_s << true;
        QTest::newRow("dot dot") << u".."_s << false;
        QTest::newRow("parent path") << u"../../../../x"_s << false;
        QTest::newRow("slash") << u"a/b"_s << false;
        QTest::newRow("backslash") << u"a\\b"_s << false;
        QTest::newRow("drive") << u"C:x"_s << false;
        QTest::newRow("leading dot (staging look-alike)") << u".x.staging-1"_s << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("windows device") << u"NUL"_s << false;
        QTest::newRow("control character") << u"a\nb"_s << false;
        QTest::newRow("too long") << QString(256, u'a') << false;
        QTest::newRow("fullwidth solidus") << u"a\uFF0Fb"_s << false;
        QTest::newRow("division slash") << u"..\u2215x"_s << false;
        QTest::newRow("fullwidth backslash") << u"a\uFF3Cb"_s << false;
        QTest::newRow("one dot leaders") << u"\u2024\u2024"_s << false;
        QTest::newRow("two dot leader") << u"\u2025"_s << false;
        QTest::newRow("fullwidth full stops") << u"\uFF0E\uFF0E"_s << false;
        QTest::newRow("right-to-left override") << u"abc\u202Etxt.exe"_s << false;
        QTest::newRow("zero-width space") << u"tf\u200B"_s << false;
        QTest::newRow("NUL inside") << QString::fromUtf16(u"a\0b", 3) << false;
        QTest::newRow("console device") << u"CONIN$"_s << false;
        QTest::newRow("device with an extension") << u"com1.txt"_s << false;
        QTest::newRow("device with a superscript digit") << u"COM\u00B9"_s << false;
        QTest::newRow("home") << u"~"_s << false;
        QTest::newRow("short-name look-alike") << u"TF~1"_s << false;
        QTest::newRow("shell variable") << u"${HOME}"_s << false;
        QTest::newRow("cmd variable") << u"%USERPROFILE%"_s << false;
        QTest::newRow("trailing dot") << u"tf."_s << false;
        QTest::newRow("trailing space") << u"tf "_s << false;
        QTest::newRow("trailing no-break space") << u"tf\u00A0"_s << false;
        QTest::newRow("trailing ideographic space") << u"tf\u3000"_s << false;
        // 255 bytes is the file system's limit, and tfsetup adds to a name.
        QTest::newRow("200 bytes") << QString(200, u'a') << true;
        QTest::newRow("201 bytes") << QString(201, u'a') << false;
        QTest::newRow("66 Chinese characters (198 bytes)") << QString(66, QChar(0x5B9E)) << true;
        QTest::newRow("67 Chinese characters (201 bytes)") << QString(67, QChar(0x5B9E)) << false;
        QTest::newRow("dots and dashes inside") << u"tf-2.15_lab.v2"_s << true;
    }
    void names()
    {
        QFETCH(QString, name);
        QFETCH(bool, safe);
        QCOMPARE(isSafePathName(name), safe);
    }

    // Jupyter lists a kernel only under a name of [a-z0-9._-]: one made from any environment name
    // is such a name, stays the same for the same environment, and differs for two Chinese ones.
    void jupyterKernelNames()
    {
        QVERIFY(isJupyterKernelName(u"tf-2.15_lab"_s));
        // Jupyter folds a kernel's folder name to lower case: a capital would make two kernels one.
        for (const QString &bad : {u"我的环境"_s, u"tf+gpu"_s, u"tf gpu"_s, u""_s, u"tf/x"_s, u"TF210"_s, u"Tf"_s})
            QVERIFY2(!isJupyterKernelName(bad), qPrintable(bad));
        QCOMPARE(jupyterKernelName(u"tf-lab"_s), u"tf-lab"_s);
        QVERIFY(jupyterKernelName(u"TF-Lab"_s).startsWith(u"tf-lab-"_s));
        QVERIFY(jupyterKernelName(u"TF"_s) != jupyterKernelName(u"tf"_s));
        QVERIFY(jupyterKernelName(u"TF"_s) != jupyterKernelName(u"Tf"_s));
        for (const QString &name :
             {u"我的环境"_s, u"tf+gpu"_s, u"深度学习 2.10"_s, u"tf.2.10."_s, QString(300, u'x'), u"MyEnv"_s}) {
            const QString kernel = jupyterKernelName(name);
            QVERIFY2(isJupyterKernelName(kernel), qPrintable(name + u" -> " + kernel));
            QCOMPARE(jupyterKernelName(name), kernel);
        }
        QVERIFY(jupyterKernelName(u"我的环境"_s) != jupyterKernelName(u"你的环境"_s));
        QVERIFY(jupyterKernelName(u"深度学习 2.10"_s).startsWith(u"2.10-"_s));
    }

    // Text from outside is shown, never acted on: every escape, carriage return, C1 control and
    // bidirectional override becomes a visible \uXXXX; a Windows line end is a line end.
    void visibleTextShowsEscapes()
    {
        QCOMPARE(visibleText(u"plain 文本\ttab\nline"_s), u"plain 文本\ttab\nline"_s);
        QCOMPARE(visibleText(u"a\r\nb"_s), u"a\nb"_s);
        const QString hostile = u"cudart\x1b[2J\x1b[H\r[OK] no problems found\x08\x7f\u009b\u202e\u2066"_s;
        const QString shown = visibleText(hostile);
        for (const QChar c : shown)
            QVERIFY2(!needsVisibleEscape(c.unicode()), qPrintable(QString::number(c.unicode(), 16)));
        QVERIFY(shown.startsWith(u"cudart\\u001b[2J\\u001b[H\\u000d[OK]"_s));
        QVERIFY(shown.contains(u"\\u202e"_s));
        // The JSON spelling: a document passed through stays the same document.
        const QByteArray json = QJsonDocument(QJsonObject{{u"t"_s, hostile}}).toJson(QJsonDocument::Compact);
        QCOMPARE(
            QJsonDocument::fromJson(visibleText(QString::fromUtf8(json)).toUtf8()).object().value(u"t"_s).toString(),
            hostile);
    }

    void decodeTextInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QString text = u"2023-01-01 W tensorflow: Could not load dynamic library 'cudart64_110.dll'\r\n"
                             "路径 C:\\Users\\学生\\tf\r\n"_s;
        QTest::newRow("UTF-8") << text.toUtf8();
        QTest::newRow("UTF-8 with BOM") << QByteArray("\xEF\xBB\xBF" + text.toUtf8());
        QStringEncoder le(QStringEncoder::Utf16LE);
        QStringEncoder be(QStringEncoder::Utf16BE);
        const QByteArray utf16le = le(text);
        const QByteArray utf16be = be(text);
        QTest::newRow("UTF-16 LE with BOM (PowerShell 5's >)") << QByteArray("\xFF\xFE" + utf16le);
        QTest::newRow("UTF-16 LE without BOM") << utf16le;
        QTest::newRow("UTF-16 BE with BOM") << QByteArray("\xFE\xFF" + utf16be);
        QTest::newRow("UTF-16 BE without BOM") << utf16be;
    }
    void decodeTextInput()
    {
        QFETCH(QByteArray, bytes);
        const auto text = tfsetup::core::decodeTextInput(bytes, u"The log"_s);
        QVERIFY2(text, qPrintable(text ? QString() : text.error().message));
        QVERIFY(text->contains(u"Could not load dynamic library 'cudart64_110.dll'"_s));
        QVERIFY(text->contains(u"学生"_s));
        QVERIFY(!text->contains(QChar(0)));
    }

    void decodeTextInput_refusesWhatItCannotRead()
    {
        // Random bytes are no text: refused with a message, never read as an empty log.
        QByteArray noise;
        for (int i = 0; i < 4096; ++i)
            noise.append(char(0x80 + (i * 37) % 0x7f));
        const auto refused = tfsetup::core::decodeTextInput(noise, u"The log"_s);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, u"text_encoding_unknown"_s);
        QVERIFY(refused.error().message.contains(u"UTF-8"_s));
        // A few stray bytes in an English log are replaced; the message text survives.
        const auto mostly = tfsetup::core::decodeTextInput(
            "Could not load dynamic library 'cudart64_110.dll' \xB2\xE2\n", u"The log"_s);
        QVERIFY(mostly);
        QVERIFY(mostly->contains(u"cudart64_110.dll"_s));
    }

    void redactSecretsMasksPasswordsAndTokens_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("proxy password") << u"--proxy http://alice:s3cr%40t@proxy.lab:3128"_s
                                        << u"--proxy http://alice:***@proxy.lab:3128"_s;
        QTest::newRow("index token as user")
            << u"https://ghp_TOKEN123@pypi.lab.example/simple/"_s << u"https://***@pypi.lab.example/simple/"_s;
        QTest::newRow("query token") << u"GET https://files.example/x.whl?token=abc&x=1 200"_s
                                     << u"GET https://files.example/x.whl?token=***&x=1 200"_s;
        QTest::newRow("signed URL") << u"https://s3.example/b.whl?X-Amz-Signature=deadbeef"_s
                                    << u"https://s3.example/b.whl?X-Amz-Signature=***"_s;
        QTest::newRow("two URLs in a line") << u"from https://u:p@a.example/ and https://t@b.example/"_s
                                            << u"from https://u:***@a.example/ and https://***@b.example/"_s;
        QTest::newRow("no secret") << u"https://pypi.org/simple/tensorflow/ user@example.org C:\\a@b"_s
                                   << u"https://pypi.org/simple/tensorflow/ user@example.org C:\\a@b"_s;
        QTest::newRow("an @ in the path is no user")
            << u"https://host.example/a@b/c"_s << u"https://host.example/a@b/c"_s;
        QTest::newRow("masked twice is masked once")
            << u"http://alice:***@proxy:3128"_s << u"http://alice:***@proxy:3128"_s;
    }
    void redactSecretsMasksPasswordsAndTokens()
    {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(redactSecrets(in), out);
        QCOMPARE(holdsSecret(in), in != out);
    }

    void readInput_refusesSpecialAndHugeFiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("code");
        QTest::newRow("/dev/zero") << u"zero"_s << u"input_not_file"_s;
        QTest::newRow("/dev/urandom") << u"urandom"_s << u"input_not_file"_s;
        QTest::newRow("a folder") << u"folder"_s << u"input_not_file"_s;
        QTest::newRow("a FIFO") << u"fifo"_s << u"input_not_file"_s;
        QTest::newRow("a sparse file over the limit") << u"huge"_s << u"input_too_large"_s;
        QTest::newRow("missing") << u"missing"_s << u"input_missing"_s;
    }
    void readInput_refusesSpecialAndHugeFiles()
    {
        QFETCH(QString, kind);
        QFETCH(QString, code);
        QString path;
        if (kind == u"zero") {
            path = u"/dev/zero"_s;
        } else if (kind == u"urandom") {
            path = u"/dev/urandom"_s;
        } else if (kind == u"folder") {
            path = m_dir.path();
        } else if (kind == u"fifo") {
            path = m_dir.filePath(u"fifo"_s);
            QFile::remove(path);
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == u"huge") {
            path = m_dir.filePath(u"huge.json"_s);
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(maxDocumentBytes + 1)); // sparse: no disk used
        } else {
            path = m_dir.filePath(u"nothing-here.json"_s);
        }
        QElapsedTimer clock;
        clock.start();
        const auto read = readInputFile(path, u"The test file"_s);
        QVERIFY(!read);
        QCOMPARE(read.error().code, code);
        QVERIFY(!read.error().message.isEmpty());
        QVERIFY(clock.elapsed() < 5000);
        const auto json = readJsonObjectFile(path, u"The test file"_s);
        QVERIFY(!json);
        QCOMPARE(json.error().code, code);
    }

    void profile_wrongTypesNamed_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("cuda as a list") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-toolkit","cuda":["11.8"],"requirements":["tensorflow"]}})")
                                        << u"plan.cuda"_s;
        QTest::newRow("kernel name with ../") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":["tensorflow"]},"kernel":{"name":"../../evil"}})")
                                              << u"kernel.name"_s;
        QTest::newRow("kernel name with capitals") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":["tensorflow"]},"kernel":{"name":"TF-Lab"}})")
                                                   << u"kernel.name"_s;
        QTest::newRow("environment ..") << QByteArray(R"({"schema":1,"environment":"..","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":["tensorflow"]}})")
                                        << u"environment"_s;
        QTest::newRow("requirements as text") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":"tensorflow"}})")
                                              << u"plan.requirements"_s;
        QTest::newRow("register as text") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":["t"]},"kernel":{"register":"yes"}})")
                                          << u"kernel.register"_s;
        QTest::newRow("installFolder a number") << QByteArray(R"({"schema":1,"environment":"e","installFolder":5,
            "plan":{"route":"linux-pip","requirements":["t"]}})")
                                                << u"installFolder"_s;
        QTest::newRow("plan missing") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x"})")
                                      << u"plan"_s;
        QTest::newRow("mirror list of objects") << QByteArray(R"({"schema":1,"environment":"e","installFolder":"/x",
            "plan":{"route":"linux-pip","requirements":["t"]},"mirrors":{"pypi":[{}]}})")
                                                << u"mirrors.pypi[0]"_s;
    }
    void profile_wrongTypesNamed()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const auto p = LabProfile::fromJson(parse(json), u"/lab.json"_s);
        QVERIFY(!p);
        QVERIFY2(p.error().message.contains(u'"' + field + u'"'), qPrintable(p.error().message));
    }

    void profile_installFolderMustExpandToAFullPath_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("code");
        QTest::newRow("undefined variable")
            << u"${TFSETUP_UNDEFINED_VARIABLE}/envs"_s << u"profile_variable_undefined"_s;
        QTest::newRow("relative") << u"envs"_s << u"profile_folder_relative"_s;
        QTest::newRow("defined") << u"${HOME}/envs"_s << QString();
    }
    void profile_installFolderMustExpandToAFullPath()
    {
        QFETCH(QString, folder);
        QFETCH(QString, code);
        test::FixtureTree tree;
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}}));
        const auto view = tree.open(OsFamily::Linux);
        QJsonObject json = parse(goodProfile);
        json.insert(u"installFolder"_s, folder);
        json.insert(u"interpreter"_s, u"none"_s);
        const auto p = LabProfile::fromJson(json, u"/lab.json"_s);
        QVERIFY2(p, qPrintable(p ? QString() : p.error().message));
        const auto spec = p->toSpec(*view);
        if (code.isEmpty()) {
            QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().message));
            QCOMPARE(spec->prefix, u"/home/student/envs"_s);
        } else {
            QVERIFY(!spec);
            QCOMPARE(spec.error().code, code);
        }
        // A prefix given instead must be a full path too (the command line makes it one).
        const auto relative = p->toSpec(*view, u"envs"_s);
        QVERIFY(!relative);
        QCOMPARE(relative.error().code, u"prefix_relative"_s);
    }

    void bundle_wrongShapesRefused_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("field");
        QTest::newRow("files an object") << u"files-object"_s << u"files"_s;
        QTest::newRow("artifacts text") << u"artifacts-text"_s << u"artifacts"_s;
        QTest::newRow("no files") << u"files-empty"_s << u"files"_s;
        QTest::newRow("artifact name leaves the prefix") << u"name-escape"_s << u"artifacts[0].name"_s;
        QTest::newRow("artifact checksum differs from its file") << u"sha-differs"_s << u"artifacts[0]"_s;
        QTest::newRow("archive without a file entry") << u"no-entry"_s << u"artifacts[0]"_s;
        QTest::newRow("size as text") << u"size-text"_s << u"files[0].size"_s;
        QTest::newRow("file path leaves the folder") << u"path-escape"_s << u"files[0].file"_s;
        QTest::newRow("file listed twice") << u"file-twice"_s << u"files[1].file"_s;
        QTest::newRow("file listed twice, other case") << u"file-twice-case"_s << u"files[1].file"_s;
        QTest::newRow("two files for one archive") << u"two-files"_s << u"artifacts[0]"_s;
        QTest::newRow("a field given twice") << u"duplicate-field"_s << u"files[0].sha256"_s;
    }
    void bundle_wrongShapesRefused()
    {
        QFETCH(QString, damage);
        QFETCH(QString, field);
        const QString folder = m_dir.filePath(u"bundle-"_s + damage);
        const QByteArray archive(1000, 'a');
        const QString relative = u"nvidia/cuda_cudart.tar.xz"_s;
        QVERIFY(writeFile(QDir(folder).filePath(relative), archive));
        QJsonObject artifact{{u"name"_s, u"cuda_cudart"_s},
                             {u"kind"_s, u"cuda-redist-archive"_s},
                             {u"sha256"_s, sha256(archive)},
                             {u"size"_s, 1000}};
        QJsonObject file{{u"file"_s, relative},
                         {u"artifact"_s, u"cuda_cudart"_s},
                         {u"sha256"_s, sha256(archive)},
                         {u"size"_s, 1000}};
        QJsonObject root{{u"format"_s, u"tfsetup-bundle"_s}, {u"schema"_s, Bundle::schema}};
        root.insert(u"artifacts"_s, QJsonArray{artifact});
        root.insert(u"files"_s, QJsonArray{file});
        // The good bundle opens and verifies.
        QVERIFY(writeFile(QDir(folder).filePath(u"bundle.json"_s), QJsonDocument(root).toJson()));
        {
            const auto good = Bundle::open(folder);
            QVERIFY2(good, qPrintable(good ? QString() : good.error().message));
            QVERIFY(good->verify());
        }
        if (damage == u"files-object") {
            root.insert(u"files"_s, QJsonObject{});
        } else if (damage == u"artifacts-text") {
            root.insert(u"artifacts"_s, u"nope"_s);
        } else if (damage == u"files-empty") {
            root.insert(u"files"_s, QJsonArray{});
            root.insert(u"artifacts"_s, QJsonArray{});
        } else if (damage == u"name-escape") {
            artifact.insert(u"name"_s, u"../../../../x"_s);
            file.insert(u"artifact"_s, u"../../../../x"_s);
            root.insert(u"artifacts"_s, QJsonArray{artifact});
            root.insert(u"files"_s, QJsonArray{file});
        } else if (damage == u"sha-differs") {
            artifact.insert(u"sha256"_s, QString(64, u'0'));
            root.insert(u"artifacts"_s, QJsonArray{artifact});
        } else if (damage == u"no-entry") {
            file.insert(u"artifact"_s, u"other"_s);
            root.insert(u"files"_s, QJsonArray{file});
        } else if (damage == u"size-text") {
            file.insert(u"size"_s, u"1000"_s);
            root.insert(u"files"_s, QJsonArray{file});
        } else if (damage == u"path-escape") {
            file.insert(u"file"_s, u"../outside"_s);
            root.insert(u"files"_s, QJsonArray{file});
        } else if (damage == u"file-twice") {
            root.insert(u"files"_s, QJsonArray{file, file});
        } else if (damage == u"file-twice-case") {
            QJsonObject upper = file;
            upper.insert(u"file"_s, relative.toUpper());
            root.insert(u"files"_s, QJsonArray{file, upper});
        } else if (damage == u"two-files") {
            QVERIFY(writeFile(QDir(folder).filePath(u"nvidia/other.tar.xz"_s), archive));
            QJsonObject other = file;
            other.insert(u"file"_s, u"nvidia/other.tar.xz"_s);
            root.insert(u"files"_s, QJsonArray{file, other});
        }
        QByteArray written = QJsonDocument(root).toJson(QJsonDocument::Compact);
        if (damage == u"duplicate-field") {
            // The file's own checksum first, then a second one that a reader taking the first
            // would not see (Qt takes the last).
            const QByteArray good = "\"sha256\":\"" + sha256(archive).toLatin1() + '"';
            const qsizetype at = written.lastIndexOf(good);
            QVERIFY(at > 0);
            written.insert(at, good + ',');
        }
        QVERIFY(writeFile(QDir(folder).filePath(u"bundle.json"_s), written));
        const auto bundle = Bundle::open(folder);
        QVERIFY(!bundle);
        QCOMPARE(bundle.error().code, u"bundle_malformed"_s);
        QVERIFY2(bundle.error().message.contains(u'"' + field + u'"'), qPrintable(bundle.error().message));
        // The installer's reading of the bundle is the same check.
        const auto artifacts = readBundleArtifacts(folder);
        QVERIFY(!artifacts);
        QCOMPARE(artifacts.error().code, u"bundle_malformed"_s);
    }

    void documents_fieldGivenTwiceRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("top level") << QByteArray(R"({"schema":1,"schema":2})") << u"schema"_s;
        QTest::newRow("nested") << QByteArray(R"({"plan":{"route":"a","cuda":"11.8","cuda":"12.5"}})")
                                << u"plan.cuda"_s;
        QTest::newRow("in a list") << QByteArray(R"({"files":[{"file":"a"},{"file":"b","size":1,"size":2}]})")
                                   << u"files[1].size"_s;
        QTest::newRow("spelled with an escape") << QByteArray(R"({"name":"a","n\u0061me":"b"})") << u"name"_s;
        QTest::newRow("inside a list of lists") << QByteArray(R"({"a":[[1,{"k":1,"k":2}]]})") << u"a[0][1].k"_s;
        QTest::newRow("a quote inside a value") << QByteArray(R"({"a":"x\"y","b":{"c":1},"b":0})") << u"b"_s;
        QTest::newRow("the same name in other objects")
            << QByteArray(R"({"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":2}]})") << QString();
    }
    void documents_fieldGivenTwiceRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const QString path = m_dir.filePath(u"twice.json"_s);
        QVERIFY(writeFile(path, json));
        const auto read = readJsonObjectFile(path, u"The test file"_s);
        if (field.isEmpty()) {
            QVERIFY2(read, qPrintable(read ? QString() : read.error().message));
            return;
        }
        QVERIFY(!read);
        QCOMPARE(read.error().code, u"input_malformed"_s);
        QVERIFY2(read.error().message.contains(u'"' + field + u'"'), qPrintable(read.error().message));
    }

    void documents_manyFieldsCheckedQuickly()
    {
        // A million fields: refused by the shape check, and the duplicate scan is no slower.
        QByteArray json = "{";
        for (int i = 0; i < 1000000; ++i)
            json += "\"k" + QByteArray::number(i) + "\":1,";
        json += "\"route\":\"linux-pip\"}";
        const QString path = m_dir.filePath(u"million.json"_s);
        QVERIFY(writeFile(path, json));
        QElapsedTimer clock;
        clock.start();
        const auto read = readJsonObjectFile(path, u"The test file"_s);
        QVERIFY(read);
        const auto plan = ResolveRequest::fromPlanJson(*read);
        QVERIFY(!plan);
        QVERIFY(clock.elapsed() < 20000);
    }

    void bundle_installChecksTheSameFilesAsVerify()
    {
        // A wheel altered after the bundle was written: verify refuses it, and so does the
        // installer's reading of the bundle, before pip sees it.
        const QString folder = m_dir.filePath(u"bundle-wheel"_s);
        const QByteArray wheel("wheel bytes");
        QVERIFY(writeFile(QDir(folder).filePath(u"wheelhouse/t-1-py3-none-any.whl"_s), wheel));
        QVERIFY(writeFile(QDir(folder).filePath(u"wheelhouse/requirements.txt"_s), "t==1\n"));
        QJsonArray files{QJsonObject{{u"file"_s, u"wheelhouse/t-1-py3-none-any.whl"_s},
                                     {u"artifact"_s, u"wheelhouse"_s},
                                     {u"sha256"_s, sha256(wheel)},
                                     {u"size"_s, double(wheel.size())}},
                         QJsonObject{{u"file"_s, u"wheelhouse/requirements.txt"_s},
                                     {u"artifact"_s, u"wheelhouse"_s},
                                     {u"sha256"_s, sha256("t==1\n")},
                                     {u"size"_s, 5}}};
        const QJsonObject root{
            {u"format"_s, u"tfsetup-bundle"_s},
            {u"schema"_s, Bundle::schema},
            {u"artifacts"_s, QJsonArray{QJsonObject{{u"name"_s, u"wheelhouse"_s}, {u"kind"_s, u"wheelhouse"_s}}}},
            {u"files"_s, files}};
        QVERIFY(writeFile(QDir(folder).filePath(u"bundle.json"_s), QJsonDocument(root).toJson()));
        QVERIFY(readBundleArtifacts(folder));
        QVERIFY(writeFile(QDir(folder).filePath(u"wheelhouse/t-1-py3-none-any.whl"_s), "other bytes"));
        const auto bundle = Bundle::open(folder);
        QVERIFY(bundle);
        const Status verified = bundle->verify();
        QVERIFY(!verified);
        const auto artifacts = readBundleArtifacts(folder);
        QVERIFY(!artifacts);
        QCOMPARE(artifacts.error().code, verified.error().code);
    }

    void record_wrongShapesRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("files as text") << QByteArray(R"({"schema":1,"files":"all"})") << u"files"_s;
        QTest::newRow("files missing") << QByteArray(R"({"schema":1})") << u"files"_s;
        QTest::newRow("file path with ..")
            << QByteArray(R"({"schema":1,"files":[{"path":"../x","sha256":""}]})") << u"files[0].path"_s;
        QTest::newRow("sha256 a number") << QByteArray(R"({"schema":1,"files":[{"path":"x","sha256":5}]})")
                                         << u"files[0].sha256"_s;
        QTest::newRow("kernel folder elsewhere")
            << QByteArray(R"({"schema":1,"files":[],"kernel_folder":"/etc"})") << u"kernel_folder"_s;
        QTest::newRow("kernel folder climbing out")
            << QByteArray(R"({"schema":1,"files":[],"kernel_folder":"/home/u/kernels/../../.ssh/kernels/x"})")
            << u"kernel_folder"_s;
        QTest::newRow("launcher outside")
            << QByteArray(R"({"schema":1,"files":[],"launchers":["/bin/sh"]})") << u"launchers[0]"_s;
    }
    void record_wrongShapesRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const auto r = EnvironmentRecord::fromJson(parse(json));
        QVERIFY(!r);
        QCOMPARE(r.error().code, u"record_malformed"_s);
        QVERIFY2(r.error().message.contains(u'"' + field + u'"'), qPrintable(r.error().message));
    }

    void hardware_wrongShapesAndSizesRefused()
    {
        QJsonArray gpus;
        for (int i = 0; i < 200000; ++i)
            gpus.append(QJsonObject{{u"vendor"_s, u"nvidia"_s}, {u"name"_s, u"RTX"_s}});
        QElapsedTimer clock;
        clock.start();
        auto many = HardwareReport::parse(QJsonObject{{u"gpus"_s, gpus}}, u"The hardware file"_s);
        QVERIFY(!many);
        QVERIFY2(many.error().message.contains(u"\"gpus\""_s), qPrintable(many.error().message));
        QVERIFY(clock.elapsed() < 5000);
        auto typed = HardwareReport::parse(parse(R"({"gpus":[{"memory_mib":"lots"}]})"), u"The hardware file"_s);
        QVERIFY(!typed);
        QVERIFY2(typed.error().message.contains(u"\"gpus[0].memory_mib\""_s), qPrintable(typed.error().message));
        // The documented shape: nulls and numbers-as-text are fine.
        QVERIFY(HardwareReport::parse(parse(R"({"driver":null,"gpus":[{"compute_capability":8.6}],"os":{"wsl":0}})"),
                                      u"The hardware file"_s));
    }

    void plan_wrongShapesRefused()
    {
        const auto r = ResolveRequest::fromPlanJson(
            parse(R"({"route":"linux-toolkit","tensorflow":"2.15","cuda":["12"]})"));
        QVERIFY(!r);
        QCOMPARE(r.error().code, u"plan_malformed"_s);
        QVERIFY2(r.error().message.contains(u"\"cuda\""_s), qPrintable(r.error().message));
    }

    void promise_unknownCudaOrMissingComponentStops_data()
    {
        QTest::addColumn<QString>("cuda");
        QTest::addColumn<QStringList>("components");
        QTest::addColumn<QString>("missing");
        const QStringList all{u"cuda_cudart"_s, u"libcublas"_s,   u"libcufft"_s,
                              u"libcurand"_s,   u"libcusolver"_s, u"libcusparse"_s};
        QTest::newRow("unknown CUDA") << u"99.9"_s << all << u"99.9"_s;
        QTest::newRow("no CUDA on a toolkit route") << QString() << all << u"plan.cuda"_s;
        QTest::newRow("no cuda_cudart") << u"11.8"_s << all.mid(1) << u"cuda_cudart"_s;
        QTest::newRow("no cuDNN") << u"11.8"_s << all << u"cudnn"_s;
        QTest::newRow("complete") << u"11.8"_s << (all + QStringList{u"cudnn"_s}) << QString();
    }
    void promise_unknownCudaOrMissingComponentStops()
    {
        QFETCH(QString, cuda);
        QFETCH(QStringList, components);
        QFETCH(QString, missing);
        const auto knowledge = test::shippedKnowledge();
        const Route *route = knowledge->catalog.route(u"linux-toolkit"_s);
        QVERIFY(route);
        LabProfile profile;
        profile.route = u"linux-toolkit"_s;
        profile.cuda = cuda;
        profile.cudnn = u"8.6"_s;
        InstallSpec spec;
        for (const QString &c : components) {
            InstallArtifact a;
            a.kind = c == u"cudnn" ? u"cudnn-archive"_s : u"cuda-redist-archive"_s;
            a.component = c;
            spec.artifacts.append(a);
        }
        const Status kept = LabSetup::checkPromise(profile, *route, spec, {}, knowledge.get());
        if (missing.isEmpty()) {
            QVERIFY2(kept, qPrintable(kept ? QString() : kept.error().message));
            return;
        }
        QVERIFY(!kept);
        QCOMPARE(kept.error().code, u"plan_unfulfilled"_s);
        QVERIFY2(kept.error().message.contains(missing), qPrintable(kept.error().message));
    }

    // The command line, bounded: a child that read /dev/zero whole would hit the address-space
    // limit instead of the machine's memory.
    void cli_refusesUnboundedInput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("plan --hardware /dev/zero") << QStringList{u"plan"_s, u"--hardware"_s, u"/dev/zero"_s};
        QTest::newRow("sources --plan /dev/urandom") << QStringList{u"sources"_s, u"--plan"_s, u"/dev/urandom"_s};
        QTest::newRow("install --profile /dev/zero")
            << QStringList{u"install"_s, u"--profile"_s, u"/dev/zero"_s, u"--yes"_s};
        QTest::newRow("repair --log /dev/zero")
            << QStringList{u"repair"_s, u"--env"_s, u"/nonexistent"_s, u"--log"_s, u"/dev/zero"_s};
        QTest::newRow("doctor --log /dev/zero") << QStringList{u"doctor"_s, u"--log"_s, u"/dev/zero"_s};
        QTest::newRow("bundle --verify of a folder whose bundle.json is /dev/zero")
            << QStringList{u"bundle"_s, u"--verify"_s, u"@zero-bundle"_s};
    }
    void cli_refusesUnboundedInput()
    {
        if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY"))
            QSKIP("TFSETUP_BINARY is not set (run through ctest)");
        QFETCH(QStringList, arguments);
        const QString zeroBundle = m_dir.filePath(u"zero-bundle"_s);
        QDir().mkpath(zeroBundle);
        QFile::remove(zeroBundle + u"/bundle.json"_s);
        QVERIFY(QFile::link(u"/dev/zero"_s, zeroBundle + u"/bundle.json"_s));
        arguments.replaceInStrings(u"@zero-bundle"_s, zeroBundle);
        QProcess p;
        QStringList quoted;
        for (const QString &a : arguments)
            quoted.append(u'\'' + a + u'\'');
#if defined(__SANITIZE_ADDRESS__)
        // AddressSanitizer reserves terabytes of address space for its shadow memory, which no
        // address-space limit allows: the sanitizer's own resident-memory limit bounds it instead.
        const QString limit = u"export ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=4000\"; "_s;
#else
        const QString limit = u"ulimit -v 4000000; "_s;
#endif
        p.start(u"bash"_s, {u"-c"_s, limit + u"exec timeout 60 \"$TFSETUP_BINARY\" "_s + quoted.join(u' ')});
        QVERIFY(p.waitForFinished(90000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
        QVERIFY2(p.exitCode() == 1 || p.exitCode() == 2, qPrintable(QString::number(p.exitCode()) + u' ' + out));
        QVERIFY2(out.contains(u"not a plain file"_s), qPrintable(out));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestInputs)
#include "test_inputs.moc"
