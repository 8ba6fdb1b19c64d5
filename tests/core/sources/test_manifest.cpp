#include "catalog/sourcecatalog.h"
#include "sources/redistmanifest.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

QByteArray readData(const QString &relative)
{
    QFile f(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/manifests/"_s + relative);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A minimal valid CUDA manifest with one field replaced, for the hostile rows.
QByteArray cudaManifestWith(const QByteArray &file)
{
    return R"({"release_date": "2024-01-01", "cuda_cudart": {"name": "CUDA Runtime", "version": "12.0.1",
              "linux-x86_64": )"
        + file + "}}";
}

const QByteArray goodFile = R"({"relative_path": "cuda_cudart/linux-x86_64/a-archive.tar.xz",
    "sha256": "56129e0c42df03ecb50a7bb23fc3285fa39af1a818f8826b183cf793529098bb",
    "md5": "1087b1284b033511c34ac3f1d42e1ecd", "size": "913876"})";

} // namespace

class TestManifest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void realManifests_parseEveryPlatformAndComponent_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("product");
        for (const char *f : {"cuda/redistrib_11.4.4.json", "cuda/redistrib_11.8.0.json", "cuda/redistrib_12.4.0.json",
                              "cuda/redistrib_12.5.1.json"})
            QTest::newRow(f) << QString::fromLatin1(f) << u"cuda"_s;
        for (const char *f : {"cudnn/redistrib_8.9.7.json", "cudnn/redistrib_9.8.0.json"})
            QTest::newRow(f) << QString::fromLatin1(f) << u"cudnn"_s;
    }

    void realManifests_parseEveryPlatformAndComponent()
    {
        QFETCH(QString, file);
        QFETCH(QString, product);
        const QByteArray bytes = readData(file);
        QVERIFY(!bytes.isEmpty());
        const auto manifest = RedistManifest::parse(bytes, file.section(u'/', 1));
        QVERIFY2(manifest.ok(), manifest.ok() ? "" : qPrintable(manifest.error().detail));
        QVERIFY(!manifest->releaseDate().isEmpty());
        int files = 0;
        for (const RedistComponent &c : manifest->components()) {
            QVERIFY2(!c.version.isEmpty(), qPrintable(c.key));
            for (const RedistFile &f : c.files) {
                ++files;
                QVERIFY(isSafeRelativePath(f.relativePath));
                QCOMPARE(f.sha256.size(), 64);
                QVERIFY(f.size > 0);
                // Windows ships zip, every Linux platform tar.xz.
                if (f.platform.startsWith(u"windows"_s))
                    QVERIFY2(f.relativePath.endsWith(u".zip"_s), qPrintable(f.relativePath));
                else
                    QVERIFY2(f.relativePath.endsWith(u".tar.xz"_s), qPrintable(f.relativePath));
                // CUDA components have one file per platform, cuDNN one per CUDA major (its samples
                // also have a platform-free "source" archive).
                if (product == u"cuda"_s)
                    QVERIFY(f.variant.isEmpty());
                else if (c.key == u"cudnn"_s)
                    QVERIFY2(f.variant.startsWith(u"cuda"_s), qPrintable(c.key + u'/' + f.platform));
            }
        }
        QVERIFY(files > 0);
        if (product == u"cuda"_s) {
            for (const char *key : {"cuda_cudart", "libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse",
                                    "cuda_nvcc", "cuda_cupti"}) {
                const RedistComponent *c = manifest->component(QLatin1String(key));
                QVERIFY2(c, key);
                QVERIFY2(c->file(u"linux-x86_64"_s), key);
                QVERIFY2(c->file(u"windows-x86_64"_s), key);
            }
        } else {
            const RedistComponent *c = manifest->component(u"cudnn"_s);
            QVERIFY(c);
            QVERIFY(c->file(u"windows-x86_64"_s, u"cuda12"_s));
            QVERIFY(c->file(u"linux-x86_64"_s, u"cuda11"_s));
        }
    }

    void realManifests_knownValues_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("component");
        QTest::addColumn<QString>("platform");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("sha256");
        QTest::addColumn<qint64>("size");
        // Values quoted in facts §6.1 from the nixpkgs copies.
        QTest::newRow("11.8 cudart linux")
            << u"cuda/redistrib_11.8.0.json"_s << u"cuda_cudart"_s << u"linux-x86_64"_s << QString() << u"11.8.89"_s
            << u"56129e0c42df03ecb50a7bb23fc3285fa39af1a818f8826b183cf793529098bb"_s << qint64(913876);
        QTest::newRow("11.8 cudart windows")
            << u"cuda/redistrib_11.8.0.json"_s << u"cuda_cudart"_s << u"windows-x86_64"_s << QString() << u"11.8.89"_s
            << u"988cc9e7d3785d4b1975521f312c57c6814cbf15e73a2b7941d961835f2a945e"_s << qint64(2987306);
        QTest::newRow("11.8 cublas windows")
            << u"cuda/redistrib_11.8.0.json"_s << u"libcublas"_s << u"windows-x86_64"_s << QString() << u"11.11.3.6"_s
            << u"67b0934a6359e4ee26fff823c356021589d392c4fd49ca12624f570edc08e2b9"_s << qint64(420850025);
        QTest::newRow("cudnn 8.9.7 windows cuda11")
            << u"cudnn/redistrib_8.9.7.json"_s << u"cudnn"_s << u"windows-x86_64"_s << u"cuda11"_s << u"8.9.7.29"_s
            << u"5e45478efe71a96329e6c0d2a3a2f79c747c15b2a51fead4b84c89b02cbf1671"_s << qint64(704240064);
        QTest::newRow("cudnn 9.8.0 linux cuda12")
            << u"cudnn/redistrib_9.8.0.json"_s << u"cudnn"_s << u"linux-x86_64"_s << u"cuda12"_s << u"9.8.0.87"_s
            << u"321b9b33bb1287404d93d5672d352f16feabc4b220ac6ae0b86e4b27f257dcf4"_s << qint64(923946888);
    }

    void realManifests_knownValues()
    {
        QFETCH(QString, file);
        QFETCH(QString, component);
        QFETCH(QString, platform);
        QFETCH(QString, variant);
        QFETCH(QString, version);
        QFETCH(QString, sha256);
        QFETCH(qint64, size);
        const auto manifest = RedistManifest::parse(readData(file), file);
        QVERIFY(manifest.ok());
        const RedistComponent *c = manifest->component(component);
        QVERIFY(c);
        QCOMPARE(c->version, version);
        const RedistFile *f = c->file(platform, variant);
        QVERIFY(f);
        QCOMPARE(f->sha256, sha256);
        QCOMPARE(f->size, size);
    }

    // The catalog's pins are the SHA-256 of these exact bytes.
    void catalogPins_matchTheRealFiles_data()
    {
        QTest::addColumn<QString>("product");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("file");
        QTest::newRow("CUDA 11.8") << u"cuda"_s << u"11.8"_s << u"11.8.0"_s << u"cuda/redistrib_11.8.0.json"_s;
        QTest::newRow("CUDA 12.4") << u"cuda"_s << u"12.4"_s << u"12.4.0"_s << u"cuda/redistrib_12.4.0.json"_s;
        QTest::newRow("CUDA 12.5 is 12.5.1")
            << u"cuda"_s << u"12.5"_s << u"12.5.1"_s << u"cuda/redistrib_12.5.1.json"_s;
        QTest::newRow("cuDNN 8.9 as 8.9.7") << u"cudnn"_s << u"8.9"_s << u"8.9.7"_s << u"cudnn/redistrib_8.9.7.json"_s;
        QTest::newRow("cuDNN 9.8") << u"cudnn"_s << u"9.8"_s << u"9.8.0"_s << u"cudnn/redistrib_9.8.0.json"_s;
    }

    void catalogPins_matchTheRealFiles()
    {
        QFETCH(QString, product);
        QFETCH(QString, version);
        QFETCH(QString, label);
        QFETCH(QString, file);
        const auto catalog = SourceCatalog::load();
        QVERIFY(catalog.ok());
        QList<ManifestPin> pins;
        if (product == u"cuda"_s) {
            if (const auto p = catalog->cudaManifest(version))
                pins.append(*p);
        } else {
            pins = catalog->cudnnManifests(version);
        }
        const auto pin = std::find_if(pins.begin(), pins.end(), [&](const ManifestPin &p) { return p.label == label; });
        QVERIFY(pin != pins.end());
        QCOMPARE(pin->sha256,
                 QString::fromLatin1(QCryptographicHash::hash(readData(file), QCryptographicHash::Sha256).toHex()));
    }

    void catalog_isSane()
    {
        const auto catalog = SourceCatalog::load();
        QVERIFY(catalog.ok());
        QVERIFY2(catalog->problems().isEmpty(), qPrintable(catalog->problems().join(u'\n')));
        // CUDA 11.2, the native-Windows toolkit, has no pin and falls back to a pinned 11.x manifest.
        const auto cuda112 = catalog->cudaManifest(u"11.2"_s);
        QVERIFY(cuda112);
        QVERIFY(cuda112->sha256.isEmpty());
        const auto fallback = catalog->cudaManifest(cuda112->fallback);
        QVERIFY(fallback);
        QVERIFY(!fallback->sha256.isEmpty());
        QVERIFY(catalog->needsZlibwapi(u"8.9"_s, u"windows"_s));
        QVERIFY(!catalog->needsZlibwapi(u"8.1"_s, u"windows"_s));
        QVERIFY(!catalog->needsZlibwapi(u"8.9"_s, u"linux"_s));
        QVERIFY(!catalog->needsZlibwapi(u"9.3"_s, u"windows"_s));
    }

    void hostile_isRejectedWithAClearError_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("detail");
        QTest::newRow("not JSON") << QByteArray("{\"release_date\": ") << u"not a JSON object"_s;
        QTest::newRow("array at the top") << QByteArray("[]") << u"not a JSON object"_s;
        QTest::newRow("no components") << QByteArray(R"({"release_date": "2024-01-01"})") << u"lists no component"_s;
        QTest::newRow("component is a number")
            << QByteArray(R"({"cuda_cudart": 5})") << u"cuda_cudart must be text or a component object"_s;
        QTest::newRow("component without version")
            << QByteArray(R"({"cuda_cudart": {"linux-x86_64": )" + goodFile + "}}")
            << u"cuda_cudart.version must be text"_s;
        QTest::newRow("missing sha256") << cudaManifestWith(R"({"relative_path": "a/b.tar.xz", "size": "10"})")
                                        << u"cuda_cudart.linux-x86_64.sha256 must be text"_s;
        QTest::newRow("absolute path") << cudaManifestWith(
            QByteArray(goodFile).replace("cuda_cudart/linux", "/etc/linux"))
                                       << u"relative_path is not a safe relative path"_s;
        QTest::newRow("dot-dot path") << cudaManifestWith(QByteArray(goodFile).replace("cuda_cudart/", "../../"))
                                      << u"relative_path is not a safe relative path"_s;
        QTest::newRow("backslash path") << cudaManifestWith(QByteArray(goodFile).replace("cuda_cudart/", "a\\\\b/"))
                                        << u"relative_path is not a safe relative path"_s;
        QTest::newRow("drive letter") << cudaManifestWith(QByteArray(goodFile).replace("cuda_cudart/", "C:/"))
                                      << u"relative_path is not a safe relative path"_s;
        QTest::newRow("sha256 too short") << cudaManifestWith(QByteArray(goodFile).replace("56129e0c", ""))
                                          << u"sha256 is not 64 hexadecimal digits"_s;
        QTest::newRow("md5 not hex") << cudaManifestWith(QByteArray(goodFile).replace("1087b128", "zzzzzzzz"))
                                     << u"md5 is not 32 hexadecimal digits"_s;
        QTest::newRow("size is an object")
            << cudaManifestWith(QByteArray(goodFile).replace("\"913876\"", "{}")) << u"size"_s;
        QTest::newRow("huge size") << cudaManifestWith(QByteArray(goodFile).replace("913876", "99999999999999999999"))
                                   << u"size"_s;
        QTest::newRow("size beyond any archive")
            << cudaManifestWith(QByteArray(goodFile).replace("913876", "999999999999")) << u"size"_s;
        QTest::newRow("negative size") << cudaManifestWith(QByteArray(goodFile).replace("913876", "-1")) << u"size"_s;
        QTest::newRow("platform is a string") << cudaManifestWith("\"x\"") << u"must be an object"_s;
        QTest::newRow("huge document") << QByteArray(RedistManifest::maxManifestBytes + 1, ' ') << u"bytes"_s;
    }

    void hostile_isRejectedWithAClearError()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, detail);
        const auto manifest = RedistManifest::parse(json, u"redistrib_evil.json"_s);
        QVERIFY(!manifest.ok());
        QCOMPARE(manifest.error().code, u"manifest_malformed"_s);
        QVERIFY(manifest.error().message.contains(u"redistrib_evil.json"_s));
        QVERIFY2(manifest.error().detail.contains(detail), qPrintable(manifest.error().detail));
        // The message names the field that failed, as every input document's check does.
        const QString field = manifest.error().detail.section(u' ', 0, 0);
        if (!field.isEmpty())
            QVERIFY2(manifest.error().message.contains(u'"' + field + u'"'), qPrintable(manifest.error().message));
    }

    void goodMinimalManifest_parses()
    {
        const auto manifest = RedistManifest::parse(cudaManifestWith(goodFile), u"x.json"_s);
        QVERIFY(manifest.ok());
        QCOMPARE(manifest->component(u"cuda_cudart"_s)->file(u"linux-x86_64"_s)->size, qint64(913876));
        // A number is accepted for size as well as NVIDIA's string.
        QVERIFY(
            RedistManifest::parse(cudaManifestWith(QByteArray(goodFile).replace("\"913876\"", "913876")), u"x"_s).ok());
    }

    void safeRelativePath_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("safe");
        QTest::newRow("nested") << u"cudnn/windows-x86_64/cudnn-9.zip"_s << true;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("absolute") << u"/etc/passwd"_s << false;
        QTest::newRow("parent") << u"a/../../b"_s << false;
        QTest::newRow("dot") << u"a/./b"_s << false;
        QTest::newRow("double slash") << u"a//b"_s << false;
        QTest::newRow("backslash") << u"a\\b"_s << false;
        QTest::newRow("drive") << u"C:/x"_s << false;
        QTest::newRow("space") << u"a b"_s << false;
        QTest::newRow("non-ASCII") << u"caf\u00e9"_s << false;
    }

    void safeRelativePath()
    {
        QFETCH(QString, path);
        QFETCH(bool, safe);
        QCOMPARE(isSafeRelativePath(path), safe);
    }
};

QTEST_GUILESS_MAIN(TestManifest)
#include "test_manifest.moc"
