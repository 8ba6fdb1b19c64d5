#pragma once

#include "sources/pylock.h"
#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <memory>

namespace tfsetup::core {

class IndexBridge;

// What pip resolves.
struct LockRequest {
    QString python;           // host path of the interpreter the environment is made from
    QStringList requirements; // requirement lines ("tensorflow[and-cuda]==2.15.*", "ipykernel")
    // A lab's hash-locked requirements file (its text): pip resolves exactly it, and every wheel
    // chosen must carry one of its hashes.
    QString requirementsLock;
    QString workDir; // host folder for pip's report; a folder of its own is made inside
    // Offline: pip resolves from these local wheels alone (--no-index --find-links), so a bundle's
    // lock is checked against what is asked before anything is installed.
    QString findLinks;
    bool noDeps = false; // the requirements alone, without their dependencies (a repair's one wheel)
    // Wheels for another machine (a bundle): its platform tags and Python ("3.10"); pip then
    // chooses for them (--platform, --python-version) instead of for the interpreter that runs it.
    QStringList platforms;
    QString targetPython;
    std::chrono::milliseconds timeout{std::chrono::minutes(20)};
    std::shared_ptr<const std::atomic<bool>> cancel;
};

// The packages of an environment, locked by pip's own resolver: `pip install --dry-run
// --ignore-installed --report` run by the environment's interpreter against the IndexBridge (so
// every request goes through tfsetup's network settings) gives each wheel, and the bridge tells
// where it came from, its hash and size. The result is a PEP 751 lock of wheels only.
//
// The pip that resolves is the interpreter's own when it has one new enough (22.2: --dry-run and
// --report), else the newest pip wheel its ensurepip carries, else the newest pip wheel the index
// offers for it, downloaded and verified like every other wheel and run from the wheel file.
class Locker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Locker)
public:
    explicit Locker(SystemView &system, QObject *parent = nullptr);
    ~Locker() override;

    // bridge: the index to resolve through (started); null with request.findLinks (offline).
    QCoro::Task<Result<PyLock>> lock(LockRequest request, IndexBridge *bridge);

    // The oldest pip with --dry-run and --report.
    static constexpr int minimumPipMajor = 22;
    static constexpr int minimumPipMinor = 2;

    // Reads pip's installation report (its JSON, format version 1) into a lock; each download URL
    // is looked up with `source` (the bridge's files, or a bundle's wheels by file name). Pure.
    struct Source {
        QString file;
        QUrl url;
        QString index;
        QByteArray sha256;
        qint64 size = -1;
        bool hashFromDownload = false;
        // Whether the hash pip reports is the real file's (a local wheel) rather than a stand-in's
        // (the bridge's): only then may it fill a missing sha256.
        bool reportHashIsReal = false;
    };
    static Result<PyLock> fromReport(const QByteArray &report,
                                     const std::function<std::optional<Source>(const QUrl &)> &source);

Q_SIGNALS:
    // pip's output and tfsetup's notes, one line each.
    void logLine(const QString &line);

private:
    struct Pip;
    QCoro::Task<Result<Pip>> findPip(QString python, IndexBridge *bridge, QString workDir);
    static Error pipFailure(const QString &output, const IndexBridge *bridge, const LockRequest &request);

    SystemView &m_system;
};

} // namespace tfsetup::core
