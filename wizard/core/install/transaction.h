#pragma once

#include "install/worklock.h"
#include "util/result.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace tfsetup::core {

// The part every staged change of an environment shares (install, repair, and the commands
// built the same way): the run's log, the step announcements, the environment's work lock, the
// staging folder beside the environment and its removal on every way out, and the one question
// each coroutine asks after each co_await: may it go on?
//
// A Transaction lives in the coroutine frame of the run (never in the QObject that started
// it), so it outlives its owner: when the owner is deleted while the run waits (a page closed
// mid-repair), stopped() says so, the run returns `cancelled` without touching the owner, and
// the Transaction's destructor removes the staging folder and releases the lock, leaving the
// environment as it was. The owner's destructor sets the cancel flag, so work on the thread pool
// and child processes stop too.
class Transaction final {
    Q_DISABLE_COPY_MOVE(Transaction)
public:
    using CancelFlag = std::shared_ptr<std::atomic<bool>>;

    // logPrefix: "install" | "repair" (for qInfo); cancelled: the owner's translated "cancelled" error.
    Transaction(QObject *owner, QString logPrefix, CancelFlag cancel, Error cancelled);
    ~Transaction();

    // Where log lines go besides the run's log (the owner's logLine signal); only called while the
    // owner exists.
    void setLogSink(std::function<void(const QString &)> sink);

    bool alive() const { return !m_owner.isNull(); } // the owner still exists
    bool stopped() const;                            // the owner is gone, or a cancel was asked
    const Error &cancelledError() const { return m_cancelled; }
    const CancelFlag &cancelFlag() const { return m_cancel; }

    void log(const QString &line);
    const QStringList &logLines() const { return m_log; }
    // The log as one text; the staging folder's path, when given, reads as the final one.
    QString logText(const QString &staging = {}, const QString &final = {}) const;

    // Starts a step: stopped() checked, the step announced (the owner's stepStarted), "== <id>"
    // logged, the test checkpoint asked, stopped() checked again. Step n of total is counted for
    // stepLabel().
    Status enter(const QString &id, const std::function<void()> &announce, const std::function<Status()> &checkpoint);
    int stepsEntered() const { return m_entered; }
    // "[n/N] title", as the commands print a step.
    static QString stepLabel(int number, int total, const QString &title);

    // The failure of the run: logged as "failed: <message> (<detail>)", returned as it is.
    Error fail(const Error &error);

    // One install or repair per environment: the lock of <hostPrefix>/<name>, and what a killed
    // run left finished or undone (each line logged).
    Status lock(const QString &hostPrefix, const QString &name, const QString &environmentPath);
    WorkLock *workLock() const { return m_lock.get(); }
    std::unique_ptr<WorkLock> &lockHandle() { return m_lock; } // for a guard released before the lock's folder

    // The staging folder beside the environment (`.<name>.<tag>-<random>`), removed by removeStaging()
    // or the destructor unless released() (it became the environment).
    Result<QString> makeStaging(const QString &tag = QStringLiteral("staging"));
    const QString &staging() const { return m_staging; }
    void removeStaging();
    void released(); // the staging folder was renamed into place: no longer ours to remove

private:
    QPointer<QObject> m_owner;
    QString m_prefix;
    CancelFlag m_cancel;
    Error m_cancelled;
    std::function<void(const QString &)> m_sink;
    QStringList m_log;
    int m_entered = 0;
    std::unique_ptr<WorkLock> m_lock;
    QString m_staging;
};

} // namespace tfsetup::core
