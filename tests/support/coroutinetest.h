#pragma once

// Running QCoro coroutines from Qt Test functions without ever hanging the suite.
//
// A test function is a plain function, so it cannot co_await. awaitTask() runs a task in a
// nested QEventLoop (the test thread keeps serving timers, sockets and queued signals while it
// waits) and gives up after a watchdog interval: the test then FAILS with a message that names
// the call site, instead of sitting until CTest's timeout kills the whole executable.
//
//     void TestDownloads::fetchesWholeFile()
//     {
//         auto bytes = tfsetup::test::awaitTask(fetch(url));     // 10 s watchdog
//         QVERIFY(bytes);                                         // false only on timeout
//         QCOMPARE(bytes->size(), 1024);
//     }
//
// Test bodies written as coroutines use TFSETUP_CO_VERIFY / TFSETUP_CO_COMPARE /
// TFSETUP_CO_FAIL, which record the failure exactly like QVERIFY and then co_return:
//
//     void TestDownloads::resumes() { TFSETUP_CO_TEST(resumesBody()); }
//     QCoro::Task<> TestDownloads::resumesBody()
//     {
//         const auto reply = co_await something(…);
//         TFSETUP_CO_VERIFY(reply.ok());
//     }
//
// What happens to a coroutine the watchdog gave up on: it stays suspended and its frame is
// leaked on purpose. Destroying a suspended frame would leave whatever it awaits (a reply, a
// socket, a timer) holding a dangling handle; if that operation completes later the coroutine
// finishes and cleans itself up, writing only into state it owns. The test has failed anyway.
//
// Exceptions escaping the coroutine are caught and reported as a test failure.

#include <QCoro/QCoroTask>
#include <QEventLoop>
#include <QString>
#include <QTest>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <type_traits>
#include <utility>

namespace tfsetup::test {

// Long enough for a loaded CI machine, short enough that a hang is noticed within one test.
inline constexpr std::chrono::milliseconds defaultWatchdog{10'000};

namespace detail {

// Shared between the waiting function and the runner coroutine, so a runner resumed after the
// watchdog fired writes into live memory.
struct AwaitStateBase {
    bool finished = false;
    QString exception;          // null unless the coroutine threw
    QEventLoop *loop = nullptr; // set only while awaitTask is waiting
};

template<typename T>
struct AwaitState : AwaitStateBase {
    std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
};

// Runs a nested event loop until the state is finished or the watchdog expires. Returns false
// on timeout.
bool waitUntilFinished(AwaitStateBase &state, std::chrono::milliseconds watchdog);
void markFinished(AwaitStateBase &state);

void reportTimeout(std::chrono::milliseconds watchdog, const std::source_location &where);
void reportException(const QString &what, const std::source_location &where);
QString describeCurrentException();

template<typename T>
QCoro::Task<> runTask(QCoro::Task<T> task, std::shared_ptr<AwaitState<T>> state)
{
    try {
        if constexpr (std::is_void_v<T>) {
            co_await task;
            state->value = true;
        } else {
            state->value.emplace(co_await task);
        }
    } catch (...) {
        state->exception = describeCurrentException();
    }
    markFinished(*state);
}

// Keeps a coroutine lambda (and its captures) alive for as long as the coroutine frame may run:
// a lambda temporary would otherwise be destroyed at its first suspension, leaving its captures
// dangling inside the frame.
template<typename F>
auto invokeKeepingAlive(std::shared_ptr<F> callable) -> decltype((*callable)())
{
    co_return co_await (*callable)();
}

} // namespace detail

// Runs task to completion with a watchdog. Returns the result, or nullopt after recording a test
// failure (timeout or exception). For QCoro::Task<void> the optional holds `true` on success.
template<typename T>
auto awaitTask(QCoro::Task<T> task, std::chrono::milliseconds watchdog = defaultWatchdog,
               std::source_location where = std::source_location::current())
    -> std::optional<std::conditional_t<std::is_void_v<T>, bool, T>>
{
    auto state = std::make_shared<detail::AwaitState<T>>();
    auto runner = detail::runTask<T>(std::move(task), state);
    if (!detail::waitUntilFinished(*state, watchdog)) {
        detail::reportTimeout(watchdog, where);
        return std::nullopt;
    }
    if (!state->exception.isNull()) {
        detail::reportException(state->exception, where);
        return std::nullopt;
    }
    return std::move(state->value);
}

// Calls a coroutine callable (typically a lambda returning QCoro::Task<T>) and awaits it as
// awaitTask does, keeping the callable alive while the coroutine runs.
template<typename F>
auto awaitCall(F &&callable, std::chrono::milliseconds watchdog = defaultWatchdog,
               std::source_location where = std::source_location::current())
{
    auto kept = std::make_shared<std::decay_t<F>>(std::forward<F>(callable));
    return awaitTask(detail::invokeKeepingAlive(std::move(kept)), watchdog, where);
}

} // namespace tfsetup::test

// Inside a coroutine test body: record a failure like QVERIFY/QCOMPARE/QFAIL, then co_return.
// Only for coroutines returning QCoro::Task<void>.
#define TFSETUP_CO_VERIFY(statement)                                                                                   \
    do {                                                                                                               \
        if (!QTest::qVerify(static_cast<bool>(statement), #statement, "", __FILE__, __LINE__))                         \
            co_return;                                                                                                 \
    } while (false)

#define TFSETUP_CO_VERIFY2(statement, description)                                                                     \
    do {                                                                                                               \
        if (!QTest::qVerify(static_cast<bool>(statement), #statement, static_cast<const char *>(description),          \
                            __FILE__, __LINE__))                                                                       \
            co_return;                                                                                                 \
    } while (false)

#define TFSETUP_CO_COMPARE(actual, expected)                                                                           \
    do {                                                                                                               \
        if (!QTest::qCompare(actual, expected, #actual, #expected, __FILE__, __LINE__))                                \
            co_return;                                                                                                 \
    } while (false)

#define TFSETUP_CO_FAIL(message)                                                                                       \
    do {                                                                                                               \
        QTest::qFail(static_cast<const char *>(message), __FILE__, __LINE__);                                          \
        co_return;                                                                                                     \
    } while (false)

// In a plain test function: run a coroutine test body (an expression of type QCoro::Task<>)
// under the default watchdog, and stop the test function when the body failed or timed out
// (a failure inside the body has already been recorded).
#define TFSETUP_CO_TEST(task)                                                                                          \
    do {                                                                                                               \
        if (!::tfsetup::test::awaitTask(task) || QTest::currentTestFailed())                                           \
            return;                                                                                                    \
    } while (false)

#define TFSETUP_CO_TEST_WITHIN(task, watchdog)                                                                         \
    do {                                                                                                               \
        if (!::tfsetup::test::awaitTask(task, watchdog) || QTest::currentTestFailed())                                 \
            return;                                                                                                    \
    } while (false)
