// Trust: bytes that did not verify are never used, and the user is told which file was refused.
// A tampered copy in a shared lab cache, a mirror serving other bytes, a tampered offline bundle,
// a downloaded archive changed after it verified. And no code path runs a program or loads a
// library before the files it comes from verified: every run and load goes through the system
// view (checked in the sources), and the installer, watched through a recording view, refuses a
// changed archive before anything runs.

#include "fetch/downloader.h"
#include "install/archive.h"
#include "install/installer.h"
#include "sources/bundle.h"

#include "support/coroutinetest.h"
#include "support/fixturetree.h"
#include "support/loopbackserver.h"
#include "support/shippedknowledge.h"
#include "support/treesnapshot.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using tfsetup::test::FixtureTree;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;
using tfsetup::test::TreeSnapshot;
using namespace std::chrono_literals;
using namespace Qt::Literals::StringLiterals;

namespace {

QByteArray sha256(const QByteArray &data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

// A shell script: if anything ever ran a downloaded file, the marker would appear.
QByteArray trap(const QString &marker)
{
    return "#!/bin/sh\ntouch '" + marker.toUtf8() + "'\n" + QByteArray(64 * 1024, '#') + '\n';
}

// Forwards to a fixture view and writes down every program run and library load, in order,
// into a log shared with the installer's checkpoint, so a test sees what happened before what.
class RecordingSystem final : public SystemView {
public:
    RecordingSystem(SystemView &inner, QStringList &log)
        : m_inner(inner)
        , m_log(log)
    {}

    OsFamily os() const override { return m_inner.os(); }
    QString arch() const override { return m_inner.arch(); }
    QString hostPath(const QString &path) const override { return m_inner.hostPath(path); }
    QString env(const QString &name) const override { return m_inner.env(name); }
    QStringList envNames() const override { return m_inner.envNames(); }
    QCoro::Task<ProcessResult> run(QString program, QStringList arguments, std::chrono::milliseconds) override
    {
        m_log.append(u"run "_s + program + u' ' + arguments.join(u' '));
        ProcessResult refused;
        refused.error = QStringLiteral("refused by the test");
        co_return refused;
    }
    QCoro::Task<ProcessResult> runWatched(ProcessRequest request) override
    {
        return run(request.program, request.arguments, request.timeout);
    }
    LibraryLoad loadLibrary(const QString &name) override
    {
        m_log.append(u"load "_s + name);
        return {nullptr, QStringLiteral("refused by the test")};
    }
    std::optional<QVariant> registryValue(const QString &key, const QString &name) const override
    {
        return m_inner.registryValue(key, name);
    }
    QStringList registrySubkeys(const QString &key) const override { return m_inner.registrySubkeys(key); }
    std::optional<CpuIdFeatures> cpuid() const override { return m_inner.cpuid(); }

private:
    SystemView &m_inner;
    QStringList &m_log;
};

} // namespace

class TestTrust : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_marker = m_dir->filePath(QStringLiteral("RAN"));
        m_payload = trap(m_marker);
        m_server = std::make_unique<LoopbackServer>();
        QVERIFY(m_server->start());
    }

    void cleanup()
    {
        QVERIFY2(!QFile::exists(m_marker), "a downloaded file was run");
        m_server.reset();
        m_dir.reset();
    }

    void cache_tamperedCopyIsRefusedAndNamed()
    {
        m_server->route("/a.sh", Response::bytes(m_payload));
        const DownloadCache cache(m_dir->filePath(QStringLiteral("lab-cache")));
        {
            Downloader downloader(options(), cache);
            QVERIFY(fetch(downloader, request(m_dir->filePath(QStringLiteral("first/a.sh")))).ok());
        }
        const QString cached = cache.pathFor(checksum());
        QVERIFY(QFile::exists(cached));
        QByteArray tampered = m_payload;
        tampered.replace("touch", "rm -f");
        QVERIFY(writeFile(cached, tampered));

        // The mirror is gone: the cache is the only source, and it is refused, by name.
        m_server->removeRoute("/a.sh");
        Downloader downloader(options(), cache);
        const QString destination = m_dir->filePath(QStringLiteral("second/a.sh"));
        const auto result = fetch(downloader, request(destination));
        QVERIFY(!result.ok());
        QVERIFY(!QFile::exists(destination));
        QVERIFY(!QFile::exists(cached));
        const QString told = result.error().message + u'\n' + result.error().detail;
        QVERIFY2(told.contains(QDir::toNativeSeparators(cached)),
                 qPrintable(u"the tampered cache file is not named:\n"_s + told));
        const QStringList quarantined =
            QDir(QFileInfo(cached).absolutePath() + QStringLiteral("/quarantine")).entryList(QDir::Files);
        QCOMPARE(quarantined.size(), 1);
        QCOMPARE(readAll(QFileInfo(cached).absolutePath() + QStringLiteral("/quarantine/") + quarantined.first()),
                 tampered);

        // With the mirror back, the good bytes come from it, and the cache is whole again.
        m_server->route("/a.sh", Response::bytes(m_payload));
        const auto again = fetch(downloader, request(destination));
        QVERIFY(again.ok());
        QVERIFY(!again->fromCache);
        QCOMPARE(readAll(destination), m_payload);
        QCOMPARE(readAll(cached), m_payload);
    }

    void mirror_otherBytesAreRefusedAndTheFileNamed()
    {
        QByteArray other = m_payload;
        other.replace("touch", "echo ");
        m_server->route("/a.sh", Response::bytes(other));
        const QString destination = m_dir->filePath(QStringLiteral("out/a.sh"));
        QProcess child;
        child.start(qEnvironmentVariable("TFSETUP_BINARY"),
                    {u"fetch"_s, m_server->url(u"/a.sh"_s).toString(), u"--sha256"_s,
                     QString::fromLatin1(sha256(m_payload)), u"--out"_s, destination, u"--no-cache"_s, u"--json"_s});
        QVERIFY(child.waitForFinished(60'000));
        QVERIFY(child.exitCode() != 0);
        const QJsonObject error =
            QJsonDocument::fromJson(child.readAllStandardOutput()).object().value(u"error"_s).toObject();
        QCOMPARE(error.value(u"code"_s).toString(), u"checksum_mismatch"_s);
        const QString message = error.value(u"message"_s).toString();
        QVERIFY2(message.contains(u"a.sh"_s), qPrintable(message));
        QVERIFY(!QFile::exists(destination));
        QVERIFY(!QFile::exists(Downloader::partPathFor(destination)));
        // The refused bytes are kept for inspection, named in the message, and not executable.
        const QDir quarantine(m_dir->filePath(QStringLiteral("out/quarantine")));
        const QStringList kept = quarantine.entryList(QDir::Files);
        QCOMPARE(kept.size(), 1);
        QVERIFY2(message.contains(kept.first()), qPrintable(message));
        QCOMPARE(readAll(quarantine.filePath(kept.first())), other);
        QVERIFY(!(QFile::permissions(quarantine.filePath(kept.first()))
                  & (QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther)));
    }

    void download_verifiedFileIsNotMadeExecutable()
    {
        m_server->route("/a.sh", Response::bytes(m_payload));
        Downloader downloader(options(), DownloadCache(m_dir->filePath(QStringLiteral("cache"))));
        const QString destination = m_dir->filePath(QStringLiteral("out/a.sh"));
        const auto result = fetch(downloader, request(destination));
        QVERIFY(result.ok());
        // Fetching stores bytes; whether a file runs is the installer's decision, after its own check.
        QVERIFY(!(QFile::permissions(destination) & (QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther)));
    }

    void bundle_tamperedFileIsRefusedAndNamed_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("code");
        QTest::newRow("one byte changed, same size") << u"flip"_s << u"bundle_corrupt"_s;
        QTest::newRow("file replaced by another of the same size") << u"replace"_s << u"bundle_corrupt"_s;
        QTest::newRow("file truncated") << u"truncate"_s << u"bundle_corrupt"_s;
        QTest::newRow("file missing") << u"remove"_s << u"bundle_incomplete"_s;
    }

    void bundle_tamperedFileIsRefusedAndNamed()
    {
        QFETCH(QString, damage);
        QFETCH(QString, code);
        const QString folder = m_dir->filePath(QStringLiteral("bundle"));
        const QString relative = u"nvidia/compute/cuda/redist/cuda_cudart/linux-x86_64/cuda_cudart-archive.tar.xz"_s;
        const QByteArray good(4096, 'c');
        QVERIFY(writeBundle(folder, {{relative, good}, {u"wheelhouse/requirements.txt"_s, "tensorflow==2.15.0\n"}}));
        const auto bundle = Bundle::open(folder);
        QVERIFY2(bundle.ok(), qPrintable(bundle.ok() ? QString() : bundle.error().detail));
        QVERIFY(bundle->verify().ok());

        const QString path = QDir(folder).filePath(relative);
        if (damage == u"flip") {
            QByteArray bad = good;
            bad[100] = 'd';
            QVERIFY(writeFile(path, bad));
        } else if (damage == u"replace") {
            QVERIFY(writeFile(path, QByteArray(good.size(), 'x')));
        } else if (damage == u"truncate") {
            QVERIFY(writeFile(path, good.left(10)));
        } else {
            QVERIFY(QFile::remove(path));
        }
        const Status verified = bundle->verify();
        QVERIFY(!verified.ok());
        QCOMPARE(verified.error().code, code);
        QVERIFY2(verified.error().message.contains(relative)
                     || verified.error().message.contains(QDir::toNativeSeparators(relative)),
                 qPrintable(verified.error().message));
        QVERIFY(!verified.error().message.contains(u"requirements.txt"_s));

        // The command line says the same and fails.
        QProcess child;
        child.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"bundle"_s, u"--verify"_s, folder});
        QVERIFY(child.waitForFinished(60'000));
        QVERIFY(child.exitCode() != 0);
        QVERIFY2(QString::fromUtf8(child.readAllStandardError() + child.readAllStandardOutput())
                     .contains(u"cuda_cudart-archive.tar.xz"_s),
                 "tfsetup bundle --verify names the damaged file");
    }

    void bundle_pathLeavingTheFolderIsRefused_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("parent folder") << u"../outside.tar.xz"_s;
        QTest::newRow("parent inside the path") << u"nvidia/../../outside.tar.xz"_s;
        QTest::newRow("absolute") << u"/etc/passwd"_s;
        QTest::newRow("drive letter") << u"C:/Windows/System32/nvcuda.dll"_s;
        QTest::newRow("backslashes") << u"..\\outside.tar.xz"_s;
    }

    void bundle_pathLeavingTheFolderIsRefused()
    {
        QFETCH(QString, file);
        const QString folder = m_dir->filePath(QStringLiteral("bundle"));
        const QJsonObject entry{{u"file"_s, file},
                                {u"artifact"_s, u"cuda_cudart"_s},
                                {u"sha256"_s, QString::fromLatin1(sha256("x"))},
                                {u"size"_s, 1}};
        QVERIFY(writeFile(folder + u"/bundle.json"_s,
                          QJsonDocument(QJsonObject{{u"format"_s, u"tfsetup-bundle"_s},
                                                    {u"schema"_s, Bundle::schema},
                                                    {u"files"_s, QJsonArray{entry}}})
                              .toJson()));
        const auto bundle = Bundle::open(folder);
        QVERIFY(!bundle.ok());
        QCOMPARE(bundle.error().code, u"bundle_malformed"_s);
        QVERIFY(bundle.error().message.contains(u"bundle.json"_s));
    }

    void install_changedArchiveIsRefusedBeforeAnythingRuns()
    {
        FixtureTree tree;
        QVERIFY(tree.write({{u"home/student/"_s, {}}, {u"usr/bin/python3.10"_s, "#!"}}));
        QVERIFY(tree.writeEnv({{u"HOME"_s, u"/home/student"_s}, {u"PATH"_s, u"/usr/bin"_s}}));
        auto fixture = tree.open(OsFamily::Linux);
        QVERIFY(fixture);
        QStringList log;
        RecordingSystem view(*fixture, log);

        const QString archivePath = m_dir->filePath(
            QStringLiteral("downloads/cuda_cudart-linux-x86_64-12.4.127-archive.tar.xz"));
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        const QString top = u"cuda_cudart-linux-x86_64-12.4.127-archive/"_s;
        using Entry = ArchiveWriter::Entry;
        QVERIFY(ArchiveWriter::write(
                    archivePath, ArchiveWriter::TarXz,
                    {Entry{Entry::File, top + u"lib/libcudart.so.12.4.127"_s, m_payload, {}, 0755},
                     Entry{Entry::Symlink, top + u"lib/libcudart.so.12"_s, {}, u"libcudart.so.12.4.127"_s, 0777}})
                    .ok());
        InstallArtifact artifact{u"cuda-redist-archive"_s,
                                 u"cuda_cudart"_s,
                                 u"12.4.127"_s,
                                 u"linux-x86_64"_s,
                                 sha256(readAll(archivePath)),
                                 archivePath,
                                 u"https://developer.download.nvidia.com/compute/cuda/redist/"_s};
        // Changed after it verified (a shared download folder, a disk error): same size, other bytes.
        QByteArray changed = readAll(archivePath);
        changed[changed.size() / 2] = char(changed.at(changed.size() / 2) ^ 0x55);
        QVERIFY(writeFile(archivePath, changed));

        InstallSpec spec;
        spec.name = u"tf2.16-cuda12.4"_s;
        spec.prefix = u"/home/student/envs"_s;
        spec.route = u"linux-toolkit"_s;
        spec.layout = u"portable"_s;
        spec.tensorflow = u"2.16.1"_s;
        spec.python = u"3.10"_s;
        spec.cuda = u"12.4"_s;
        spec.pythonInterpreter = u"/usr/bin/python3.10"_s;
        spec.artifacts = {artifact};
        QVERIFY(QDir().mkpath(view.hostPath(spec.prefix)));
        const TreeSnapshot before = TreeSnapshot::take(view.hostPath(u"/home/student"_s));

        Installer installer(view, tfsetup::test::shippedKnowledge());
        installer.setCheckpoint([&log](InstallStep step) -> Status {
            log.append(u"step "_s + installStepId(step));
            return Ok{};
        });
        const auto result = tfsetup::test::awaitTask(installer.install(spec), 60s);
        QVERIFY(result);
        QVERIFY(!result->ok());
        QCOMPARE(result->error().code, u"artifact_changed"_s);
        QVERIFY2(result->error().message.contains(QFileInfo(archivePath).fileName()),
                 qPrintable(result->error().message));
        const QStringList ranOrLoaded = log.filter(QRegularExpression(u"^(run|load) "_s));
        QVERIFY2(ranOrLoaded.isEmpty(), qPrintable(ranOrLoaded.join(u'\n')));
        QVERIFY(!log.contains(u"step extract"_s));
        const QString difference = TreeSnapshot::take(view.hostPath(u"/home/student"_s)).differenceFrom(before);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    void sources_programsAndLibrariesOnlyThroughTheSystemView()
    {
        // Every way to start a program or load a library, and the only files allowed to use one:
        // the real system view. Everything else asks the view, which tests can watch and refuse.
        const QRegularExpression door(
            uR"(\bQProcess\b|\bQLibrary\b|\bdlopen\s*\(|\bLoadLibrary\w*\s*\(|\bexec[lv]p?e?\s*\(|\bposix_spawnp?\s*\(|)"
            uR"(\bpopen\s*\(|(?<![\w.])system\s*\(|\bCreateProcess\w*\s*\(|\bShellExecute\w*\s*\(|\bWinExec\s*\()"_s);
        const QStringList allowed{u"system/realsystem.cpp"_s, u"system/realsystem.h"_s, u"system/library_posix.cpp"_s,
                                  u"system/library_win.cpp"_s, u"system/registry_win.cpp"_s};
        const QString core = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/wizard/core"_s;
        QStringList offenders;
        int scanned = 0;
        QDirIterator it(core, {u"*.cpp"_s, u"*.h"_s}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const QString relative = QDir(core).relativeFilePath(path);
            ++scanned;
            if (allowed.contains(relative))
                continue;
            const QStringList lines = QString::fromUtf8(readAll(path)).split(u'\n');
            for (qsizetype i = 0; i < lines.size(); ++i) {
                const QString code = lines.at(i).section(u"//"_s, 0, 0); // comments may name them
                if (door.match(code).hasMatch())
                    offenders.append(QStringLiteral("%1:%2: %3").arg(relative).arg(i + 1).arg(lines.at(i).trimmed()));
            }
        }
        QVERIFY(scanned > 50);
        QVERIFY2(offenders.isEmpty(), qPrintable(offenders.join(u'\n')));
    }

private:
    static TransferOptions options()
    {
        TransferOptions o;
        o.connectTimeout = 5s;
        o.stallTimeout = 5s;
        o.retriesPerMirror = 0;
        o.probeMirrors = false;
        return o;
    }

    Checksum checksum() const { return Checksum{Checksum::Algorithm::Sha256, sha256(m_payload)}; }

    DownloadRequest request(const QString &destination) const
    {
        DownloadRequest r;
        r.name = QStringLiteral("a.sh");
        r.urls = {m_server->url(QStringLiteral("/a.sh"))};
        r.expectedSize = m_payload.size();
        r.checksum = checksum();
        r.destination = destination;
        return r;
    }

    static Result<DownloadResult> fetch(Downloader &downloader, const DownloadRequest &request)
    {
        auto result = tfsetup::test::awaitTask(downloader.fetch(request), 30s);
        if (!result)
            return Error{QStringLiteral("watchdog"), QStringLiteral("the download did not finish"), {}};
        return *result;
    }

    // A bundle folder as BundleWriter leaves it: the files, then bundle.json describing them.
    static bool writeBundle(const QString &folder, const QList<std::pair<QString, QByteArray>> &files)
    {
        QJsonArray described;
        for (const auto &[relative, contents] : files) {
            if (!writeFile(QDir(folder).filePath(relative), contents))
                return false;
            described.append(
                QJsonObject{{u"file"_s, relative},
                            {u"artifact"_s, relative.startsWith(u"wheelhouse/"_s) ? u"wheelhouse"_s : u"cuda_cudart"_s},
                            {u"sha256"_s, QString::fromLatin1(sha256(contents))},
                            {u"size"_s, double(contents.size())}});
        }
        const QJsonObject root{
            {u"format"_s, u"tfsetup-bundle"_s}, {u"schema"_s, Bundle::schema}, {u"files"_s, described}};
        return writeFile(QDir(folder).filePath(u"bundle.json"_s), QJsonDocument(root).toJson());
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    QString m_marker;
    QByteArray m_payload;
};

QTEST_GUILESS_MAIN(TestTrust)
#include "test_trust.moc"
