#include "install/transaction.h"

#include "util/text.h"

#include <QDebug>
#include <QDir>

namespace tfsetup::core {

Transaction::Transaction(QObject *owner, QString logPrefix, CancelFlag cancel, Error cancelled)
    : m_owner(owner)
    , m_prefix(std::move(logPrefix))
    , m_cancel(std::move(cancel))
    , m_cancelled(std::move(cancelled))
{}

Transaction::~Transaction()
{
    // The staging folder first: its record is in the lock's work file.
    removeStaging();
    m_lock.reset();
}

void Transaction::setLogSink(std::function<void(const QString &)> sink)
{
    m_sink = std::move(sink);
}

bool Transaction::stopped() const
{
    return m_owner.isNull() || (m_cancel && m_cancel->load());
}

void Transaction::log(const QString &line)
{
    m_log.append(line);
    qInfo().noquote() << (m_prefix + u':') << line;
    if (m_sink && alive())
        m_sink(line);
}

QString Transaction::logText(const QString &staging, const QString &final) const
{
    QString text = m_log.join(u'\n') + u'\n';
    if (!staging.isEmpty())
        text.replace(staging, final);
    // pip's and the servers' words, as they were, but never a password or an escape sequence.
    return visibleText(redactSecrets(text));
}

Status Transaction::enter(const QString &id, const std::function<void()> &announce,
                          const std::function<Status()> &checkpoint)
{
    if (stopped())
        return m_cancelled;
    ++m_entered;
    if (announce)
        announce();
    log(QStringLiteral("== %1").arg(id));
    // A slot connected to the announcement may have deleted the owner.
    if (!alive())
        return m_cancelled;
    if (checkpoint) {
        if (auto s = checkpoint(); !s)
            return s;
    }
    return stopped() ? Status(m_cancelled) : Status(Ok{});
}

QString Transaction::stepLabel(int number, int total, const QString &title)
{
    return QStringLiteral("[%1/%2] %3").arg(number).arg(total).arg(title);
}

Error Transaction::fail(const Error &error)
{
    log(QStringLiteral("failed: %1 (%2)").arg(error.message, error.detail));
    return error;
}

Status Transaction::lock(const QString &hostPrefix, const QString &name, const QString &environmentPath)
{
    auto acquired = WorkLock::acquire(hostPrefix, name, environmentPath);
    if (!acquired)
        return acquired.error();
    m_lock = std::move(*acquired);
    for (const QString &line : m_lock->recover())
        log(line);
    return Ok{};
}

Result<QString> Transaction::makeStaging(const QString &tag)
{
    if (!m_lock)
        return Error{QStringLiteral("write_failed"), {}, tag};
    auto staging = m_lock->makeStaging(tag);
    if (staging)
        m_staging = *staging;
    return staging;
}

void Transaction::removeStaging()
{
    if (m_staging.isEmpty())
        return;
    if (QDir(m_staging).removeRecursively() && m_lock)
        m_lock->forget(m_staging);
    m_staging.clear();
}

void Transaction::released()
{
    if (m_lock && !m_staging.isEmpty())
        m_lock->forget(m_staging);
    m_staging.clear();
}

} // namespace tfsetup::core
