#include "support/coroutinetest.h"

#include <QTimer>

namespace tfsetup::test::detail {

bool waitUntilFinished(AwaitStateBase &state, std::chrono::milliseconds watchdog)
{
    // The coroutine may have completed synchronously before its first suspension.
    if (state.finished)
        return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    timer.start(watchdog);
    state.loop = &loop;
    loop.exec();
    // A coroutine finishing after we leave must not touch the loop on our stack.
    state.loop = nullptr;
    return state.finished;
}

void markFinished(AwaitStateBase &state)
{
    state.finished = true;
    if (state.loop)
        state.loop->quit();
}

void reportTimeout(std::chrono::milliseconds watchdog, const std::source_location &where)
{
    const QByteArray message = QByteArrayLiteral("Coroutine did not finish within ")
        + QByteArray::number(watchdog.count())
        + QByteArrayLiteral(" ms (watchdog); it is left suspended. Look for an await without a timeout or a "
                            "server that never answered.");
    QTest::qFail(message.constData(), where.file_name(), static_cast<int>(where.line()));
}

void reportException(const QString &what, const std::source_location &where)
{
    const QByteArray message = QByteArrayLiteral("Coroutine threw: ") + what.toUtf8();
    QTest::qFail(message.constData(), where.file_name(), static_cast<int>(where.line()));
}

QString describeCurrentException()
{
    try {
        throw;
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return QStringLiteral("an exception not derived from std::exception");
    }
}

} // namespace tfsetup::test::detail
