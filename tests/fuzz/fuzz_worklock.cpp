// The files a killed install or repair leaves beside an environment, read back by the next run
// (install/worklock.h): the work record (.<name>.tfsetup-work.json), a repair's commit journal and
// a folder's owner marker. Anyone who can write the install folder can write them, so they are
// outside data. The first byte picks which one the rest of the input replaces:
//   0  the work record;  1  the commit journal of a recorded, marked staging folder;
//   2  that staging folder's owner marker.
// Whatever the input, recovery changes nothing outside the install folder (a folder a link leads
// to stays as it was), removes no folder that does not carry its recorded id (a look-alike of the
// student's, another environment's staging folder), and puts nothing into the environment that
// did not come from the staging folder.

#include "fuzzsupport.h"
#include "install/worklock.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QSet>
#include <QTemporaryDir>

using namespace tfsetup::core;

namespace {

const QString ownId = QStringLiteral("0123456789abcdef0123456789abcdef");
const QString otherId = QStringLiteral("fedcba9876543210fedcba9876543210");

void put(const QString &path, const QByteArray &bytes)
{
    TFSETUP_FUZZ_CHECK(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile f(path);
    TFSETUP_FUZZ_CHECK(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    TFSETUP_FUZZ_CHECK(f.write(bytes) == bytes.size());
}

// Every entry below root, links by target (not followed), files by digest.
QMap<QString, QByteArray> tree(const QString &root)
{
    QMap<QString, QByteArray> out;
    QDirIterator it(root, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        const QString rel = QDir(root).relativeFilePath(info.filePath());
        if (info.isSymLink()) {
            out.insert(rel, "link " + info.symLinkTarget().toUtf8());
        } else if (info.isDir()) {
            out.insert(rel, "folder");
        } else {
            QFile f(info.filePath());
            TFSETUP_FUZZ_CHECK(f.open(QIODevice::ReadOnly));
            out.insert(rel, QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256));
        }
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // On tmpfs where there is one: every record is written with QSaveFile, which syncs to disk,
    // and a disk's sync would make each input take tens of milliseconds.
    static QTemporaryDir sandbox(QDir(QStringLiteral("/dev/shm")).exists()
                                     ? QStringLiteral("/dev/shm/tfsetup-fuzz-worklock-XXXXXX")
                                     : QDir::tempPath() + QStringLiteral("/tfsetup-fuzz-worklock-XXXXXX"));
    TFSETUP_FUZZ_CHECK(sandbox.isValid());
    const auto [selector, input] = tfsetup::fuzz::select(data, size, 3);

    const QString run = sandbox.filePath(QStringLiteral("run"));
    QDir(run).removeRecursively();
    const QString prefix = run + QStringLiteral("/envs");
    const QString env = prefix + QStringLiteral("/tf");
    const QString victim = run + QStringLiteral("/victim");
    const QString staging = prefix + QStringLiteral("/.tf.staging-repair-fz");
    const QString lookAlike = prefix + QStringLiteral("/.tf.staging-keep");
    const QString otherStaging = prefix + QStringLiteral("/.other.staging-fz");

    // A folder of the student's outside the install folder, reachable only through planted links.
    put(victim + QStringLiteral("/secret.txt"), "the student's own file");
    put(victim + QStringLiteral("/sub/kernel.json"), "{}");
    // The environment: one file in place, one missing (its repair was interrupted), a link out.
    put(env + QStringLiteral("/start-python"), "#!/bin/sh\n");
    put(env + QStringLiteral("/environment.json"), "{}");
    TFSETUP_FUZZ_CHECK(QFile::link(victim, env + QStringLiteral("/linkdir")));
    // The interrupted repair's staging folder: replacements in files/, the replaced in old/, and
    // a link out planted among them.
    put(staging + u'/' + WorkLock::markerName, selector == 2 ? input : ownId.toLatin1());
    put(staging + QStringLiteral("/files/start-python"), "#!/bin/sh\n# repaired\n");
    put(staging + QStringLiteral("/files/cuda/bin/libcudart.so"), "repaired library");
    put(staging + QStringLiteral("/old/start-python"), "#!/bin/sh\n# edited\n");
    put(staging + QStringLiteral("/old/cuda/bin/libcudart.so"), "damaged library");
    TFSETUP_FUZZ_CHECK(QFile::link(victim, staging + QStringLiteral("/lnk")));
    put(staging + u'/' + WorkLock::journalName,
        selector == 1 ? input
                      : QByteArray("{\"renames\": [{\"path\": \"start-python\", \"staged\": \"files/start-python\", "
                                   "\"keepOld\": true}, {\"path\": \"cuda/bin/libcudart.so\", \"staged\": "
                                   "\"files/cuda/bin/libcudart.so\", \"keepOld\": false}]}"));
    // Folders that only look like tfsetup's: no marker, or another environment's.
    put(lookAlike + QStringLiteral("/notes.txt"), "mine");
    put(otherStaging + u'/' + WorkLock::markerName, otherId.toLatin1());
    put(otherStaging + QStringLiteral("/x"), "other");
    put(prefix + QStringLiteral("/.tf.tfsetup-work.json"),
        selector == 0 ? input
                      : QByteArray("{\"folders\": [{\"name\": \".tf.staging-repair-fz\", \"id\": \"" + ownId.toLatin1()
                                   + "\", \"role\": \"staging\"}, {\"name\": \".tf.staging-keep\", \"id\": \""
                                   + otherId.toLatin1() + "\", \"role\": \"staging\"}]}"));

    const QMap<QString, QByteArray> victimBefore = tree(victim);
    const QMap<QString, QByteArray> lookAlikeBefore = tree(lookAlike);
    const QMap<QString, QByteArray> otherBefore = tree(otherStaging);
    const QMap<QString, QByteArray> stagingBefore = tree(staging);
    const QMap<QString, QByteArray> envBefore = tree(env);
    {
        auto lock = WorkLock::acquire(prefix, QStringLiteral("tf"), QStringLiteral("/envs/tf"));
        tfsetup::fuzz::checkResult(lock);
        TFSETUP_FUZZ_CHECK(lock.ok());
        (void)(*lock)->recover();
    }

    TFSETUP_FUZZ_CHECK(tree(victim) == victimBefore);
    TFSETUP_FUZZ_CHECK(tree(lookAlike) == lookAlikeBefore);
    TFSETUP_FUZZ_CHECK(tree(otherStaging) == otherBefore);
    TFSETUP_FUZZ_CHECK(QDir(run).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                       == (QStringList{QStringLiteral("envs"), QStringLiteral("victim")}));
    // Everything in the environment now was there before or came from the staging folder (a
    // replacement moved in, a replaced file moved back or kept as <file>.user-backup).
    QSet<QByteArray> fromStaging;
    for (const QByteArray &entry : stagingBefore)
        fromStaging.insert(entry);
    const QMap<QString, QByteArray> envAfter = tree(env);
    for (auto it = envAfter.cbegin(); it != envAfter.cend(); ++it) {
        if (envBefore.value(it.key()) != it.value() && it.value() != "folder")
            TFSETUP_FUZZ_CHECK(fromStaging.contains(it.value()));
    }
    // The staging folder itself is removed exactly when it carries its recorded id (the work
    // record decides which folders are recorded, so that case is left to the checks above).
    if (selector != 0) {
        const bool owned = selector == 1 || input.trimmed() == ownId.toLatin1();
        TFSETUP_FUZZ_CHECK(QFileInfo::exists(staging) != owned);
    }
    QDir(run).removeRecursively();
    return 0;
}
