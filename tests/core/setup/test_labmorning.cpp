// The lab morning: fifty machines start the same unattended install at once, each into its own
// folder, all from one lab mirror and one shared download cache. Every install succeeds, every
// archive is fetched from the mirror exactly once, and the cache holds only verified files (no
// half-written copies, no leftover locks). Each "machine" is a separate process
// (tests/drill/labmachine.cpp), so the cache's file locks are exercised across processes.

#include "support/labmirror.h"

#include "fetch/checksum.h"
#include "fetch/downloadcache.h"
#include "install/environmentrecord.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

using namespace tfsetup;
using tfsetup::test::LabMirror;
using tfsetup::test::LoopbackServer;

class TestLabMorning : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("TFSETUP_LABMACHINE"))
            QSKIP("TFSETUP_LABMACHINE is not set (run through ctest)");
    }

    void fiftyMachines_shareOneCache_eachArchiveFetchedOnce()
    {
        const int machines = qEnvironmentVariableIsSet("TFSETUP_LAB_MACHINES")
            ? qEnvironmentVariableIntValue("TFSETUP_LAB_MACHINES")
            : 50;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LoopbackServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        LabMirror mirror;
        QVERIFY(mirror.create(dir.filePath(QStringLiteral("mirror")), server));
        const QString profile = mirror.writeProfile(QStringLiteral("lab"), QStringLiteral("tf-lab"),
                                                    QStringLiteral("8.6"));
        QVERIFY(!profile.isEmpty());
        const QString cache = dir.filePath(QStringLiteral("shared-cache"));

        QElapsedTimer clock;
        clock.start();
        std::vector<std::unique_ptr<QProcess>> running;
        for (int i = 0; i < machines; ++i) {
            auto p = std::make_unique<QProcess>();
            p->setProcessChannelMode(QProcess::SeparateChannels);
            p->start(qEnvironmentVariable("TFSETUP_LABMACHINE"),
                     mirror.machineArguments(profile, dir.filePath(QStringLiteral("machine%1").arg(i)), cache, server));
            running.push_back(std::move(p));
        }
        int fetched = 0;
        int fromCache = 0;
        for (int i = 0; i < machines; ++i) {
            QProcess &p = *running[std::size_t(i)];
            QVERIFY2(p.waitForFinished(240000), qPrintable(QStringLiteral("machine %1 did not finish").arg(i)));
            const QByteArray out = p.readAllStandardOutput();
            const QJsonObject result = QJsonDocument::fromJson(out.trimmed().split('\n').constLast()).object();
            QVERIFY2(p.exitCode() == 0 && result.value(QStringLiteral("ok")).toBool(),
                     qPrintable(QStringLiteral("machine %1: %2 %3")
                                    .arg(i)
                                    .arg(QString::fromUtf8(out), QString::fromUtf8(p.readAllStandardError()))));
            fetched += result.value(QStringLiteral("fetched")).toInt();
            fromCache += result.value(QStringLiteral("from_cache")).toInt();

            // The environment is complete: every recorded file is there with its checksum.
            const QString env = dir.filePath(QStringLiteral("machine%1/tf-lab").arg(i));
            const auto record = core::EnvironmentRecord::read(env);
            QVERIFY2(record, qPrintable(env));
            int libraries = 0;
            for (const core::RecordedFile &f : record->files) {
                if (!f.linkTarget.isEmpty() || f.sha256.isEmpty())
                    continue;
                const auto digest = core::hashFile(core::Checksum::Algorithm::Sha256, env + u'/' + f.path);
                QVERIFY2(digest && *digest == f.sha256, qPrintable(env + u'/' + f.path));
                libraries += f.path.contains(QStringLiteral(".so")) ? 1 : 0;
            }
            QVERIFY(libraries > 0);
        }
        qInfo("%d machines installed in %lld ms", machines, qint64(clock.elapsed()));

        // Each archive left the mirror once; everybody else took it from the cache.
        const auto &archives = mirror.archives();
        const int needed = int(archives.size()) - 1; // the cuDNN 8.9 archive is not in this plan
        for (const LabMirror::Archive &a : archives) {
            const int expected = a.urlPath.contains(QStringLiteral("8.9.7")) ? 0 : 1;
            QCOMPARE(server.hits(a.urlPath.toUtf8()), expected);
        }
        QCOMPARE(fetched, needed);
        QCOMPARE(fromCache, needed * (machines - 1));

        // The cache holds exactly the verified archives, nothing half-written, no lock left.
        const core::DownloadCache shared(cache);
        for (const LabMirror::Archive &a : archives) {
            if (a.urlPath.contains(QStringLiteral("8.9.7")))
                continue;
            const core::Checksum checksum{core::Checksum::Algorithm::Sha256, a.sha256};
            const auto digest = core::hashFile(checksum.algorithm, shared.pathFor(checksum));
            QVERIFY2(digest && *digest == a.sha256, qPrintable(shared.pathFor(checksum)));
        }
        QDirIterator it(cache, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString name = QFileInfo(it.next()).fileName();
            QVERIFY2(!name.endsWith(QStringLiteral(".lock")) && !name.contains(QStringLiteral(".tfsetup-tmp"))
                         && !name.endsWith(QStringLiteral(".part"))
                         && !it.filePath().contains(QStringLiteral("quarantine")),
                     qPrintable(it.filePath()));
        }
    }
};

QTEST_GUILESS_MAIN(TestLabMorning)
#include "test_labmorning.moc"
