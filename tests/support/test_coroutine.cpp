// Tests of the coroutine test helper itself. The failing cases (a hung coroutine, a thrown
// exception, a failed TFSETUP_CO_VERIFY) must fail a test, so they run in a child process: this
// same executable started with one child test function selected and TFSETUP_SUPPORT_CHILD=1.

#include "support/coroutinetest.h"

#include <QCoro/QCoroTimer>
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>
#include <QtTest>

#include <coroutine>
#include <stdexcept>

using namespace std::chrono_literals;

namespace {

// An awaitable that never resumes its coroutine.
struct Never {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>) const noexcept {}
    void await_resume() const noexcept {}
};

QCoro::Task<int> answerLater(std::chrono::milliseconds delay)
{
    QTimer timer;
    timer.setSingleShot(true);
    timer.start(delay);
    co_await qCoro(timer).waitForTimeout();
    co_return 42;
}

QCoro::Task<int> answerNow()
{
    co_return 7;
}

QCoro::Task<> neverEnding()
{
    co_await Never{};
}

QCoro::Task<int> throwsLater()
{
    co_await answerLater(10ms);
    throw std::runtime_error("boom from the coroutine");
}

bool isChild()
{
    return qEnvironmentVariableIsSet("TFSETUP_SUPPORT_CHILD");
}

} // namespace

class TestSupportCoroutine final : public QObject {
    Q_OBJECT

private slots:
    void awaitTask_valueAfterSuspension_returnsValue();
    void awaitTask_completesSynchronously_returnsValue();
    void awaitTask_voidTask_returnsTrue();
    void awaitCall_lambdaCaptures_surviveSuspension();
    void coTest_passingBody_runsToEnd();
    void childFailure_data();
    void childFailure();

    // Run only in the child process; skipped in the normal run.
    void childNeverEnding();
    void childThrows();
    void childCoVerifyFails();

private:
    QCoro::Task<> passingBody();
    QCoro::Task<> failingBody();
    bool m_bodyReachedEnd = false;
};

void TestSupportCoroutine::awaitTask_valueAfterSuspension_returnsValue()
{
    const auto value = tfsetup::test::awaitTask(answerLater(20ms));
    QVERIFY(value);
    QCOMPARE(*value, 42);
}

void TestSupportCoroutine::awaitTask_completesSynchronously_returnsValue()
{
    const auto value = tfsetup::test::awaitTask(answerNow(), 100ms);
    QVERIFY(value);
    QCOMPARE(*value, 7);
}

void TestSupportCoroutine::awaitTask_voidTask_returnsTrue()
{
    const auto done = tfsetup::test::awaitTask([]() -> QCoro::Task<> { co_await answerLater(5ms); }());
    QVERIFY(done.has_value());
    QVERIFY(*done);
}

void TestSupportCoroutine::awaitCall_lambdaCaptures_surviveSuspension()
{
    const QString prefix = QStringLiteral("value=");
    // The capture is read after the first suspension: it must still be alive then.
    const auto text = tfsetup::test::awaitCall([prefix]() -> QCoro::Task<QString> {
        const int v = co_await answerLater(10ms);
        co_return prefix + QString::number(v);
    });
    QVERIFY(text);
    QCOMPARE(*text, QStringLiteral("value=42"));
}

QCoro::Task<> TestSupportCoroutine::passingBody()
{
    const int v = co_await answerLater(5ms);
    TFSETUP_CO_COMPARE(v, 42);
    TFSETUP_CO_VERIFY(v > 0);
    TFSETUP_CO_VERIFY2(v != 0, "an answer");
    m_bodyReachedEnd = true;
}

void TestSupportCoroutine::coTest_passingBody_runsToEnd()
{
    m_bodyReachedEnd = false;
    TFSETUP_CO_TEST(passingBody());
    QVERIFY(m_bodyReachedEnd);
}

void TestSupportCoroutine::childFailure_data()
{
    QTest::addColumn<QString>("function");
    QTest::addColumn<QStringList>("expectedInOutput");
    QTest::addColumn<QStringList>("notInOutput");

    QTest::newRow("never ending coroutine fails after watchdog")
        << QStringLiteral("childNeverEnding")
        << QStringList{QStringLiteral("FAIL!"), QStringLiteral("did not finish within 300 ms")}
        << QStringList{QStringLiteral("after the await")};
    QTest::newRow("exception becomes a failure")
        << QStringLiteral("childThrows")
        << QStringList{QStringLiteral("FAIL!"), QStringLiteral("Coroutine threw"),
                       QStringLiteral("boom from the coroutine")}
        << QStringList{QStringLiteral("after the await")};
    QTest::newRow("co verify failure stops the body")
        << QStringLiteral("childCoVerifyFails") << QStringList{QStringLiteral("FAIL!"), QStringLiteral("v == 41")}
        << QStringList{QStringLiteral("body continued")};
}

void TestSupportCoroutine::childFailure()
{
    QFETCH(QString, function);
    QFETCH(QStringList, expectedInOutput);
    QFETCH(QStringList, notInOutput);

    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TFSETUP_SUPPORT_CHILD"), QStringLiteral("1"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer elapsed;
    elapsed.start();
    child.start(QCoreApplication::applicationFilePath(), {function});
    QVERIFY2(child.waitForFinished(30'000), "the child test process hung");
    const QString output = QString::fromUtf8(child.readAll());

    QCOMPARE(child.exitStatus(), QProcess::NormalExit);
    QVERIFY2(child.exitCode() != 0, qPrintable(output));
    for (const QString &expected : expectedInOutput)
        QVERIFY2(output.contains(expected), qPrintable(expected + QStringLiteral(" missing in:\n") + output));
    for (const QString &unexpected : notInOutput)
        QVERIFY2(!output.contains(unexpected), qPrintable(unexpected + QStringLiteral(" found in:\n") + output));
    // Well under the default watchdog: the helper honoured the short one.
    QVERIFY2(elapsed.elapsed() < 8'000, qPrintable(QString::number(elapsed.elapsed())));
}

void TestSupportCoroutine::childNeverEnding()
{
    if (!isChild())
        QSKIP("runs only in the child process started by childFailure");
    const auto done = tfsetup::test::awaitTask(neverEnding(), 300ms);
    if (done)
        qInfo("after the await");
}

void TestSupportCoroutine::childThrows()
{
    if (!isChild())
        QSKIP("runs only in the child process started by childFailure");
    const auto value = tfsetup::test::awaitTask(throwsLater());
    if (value)
        qInfo("after the await");
}

QCoro::Task<> TestSupportCoroutine::failingBody()
{
    const int v = co_await answerLater(5ms);
    TFSETUP_CO_VERIFY(v == 41);
    qInfo("body continued");
}

void TestSupportCoroutine::childCoVerifyFails()
{
    if (!isChild())
        QSKIP("runs only in the child process started by childFailure");
    TFSETUP_CO_TEST(failingBody());
}

QTEST_GUILESS_MAIN(TestSupportCoroutine)
#include "test_coroutine.moc"
