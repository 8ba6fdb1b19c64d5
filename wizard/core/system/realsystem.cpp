#include "system/realsystem.h"

#include "system/processtree.h"

#include <QCoro/QCoroProcess>
#include <QCoro/QCoroSignal>
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QSysInfo>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#define TFSETUP_HAVE_CPUID 1
#endif

namespace tfsetup::core {

namespace {

// The program and all it starts end with tfsetup (system/processtree.h).
void confine(QProcess &process, const ProcessTree &tree)
{
#if defined(Q_OS_UNIX)
    process.setChildProcessModifier(tree.childSetup());
#else
    Q_UNUSED(process);
    Q_UNUSED(tree);
#endif
}

// QProcess's private signals (stateChanged, started) carry a QPrivateSignal that moc passes as
// a null pointer; awaiting one with qCoro(object, signal) binds a reference to it, which is
// undefined behaviour. The relay's own signal carries nothing, so it is what is awaited.
class StateRelay : public QObject {
    Q_OBJECT
public:
    explicit StateRelay(QProcess *process) { connect(process, &QProcess::stateChanged, this, &StateRelay::changed); }

Q_SIGNALS:
    void changed();
};

// QCoro's waitForStarted waits for started() alone, so a program that cannot be executed (an
// interpreter that is not there, a script whose #! names none) was waited for until the
// timeout; a failed start ends the wait as soon as QProcess knows.
QCoro::Task<bool> startedOrFailed(QProcess *process, std::chrono::milliseconds timeout)
{
    QElapsedTimer clock;
    clock.start();
    StateRelay relay(process);
    while (process->state() == QProcess::Starting) {
        const auto left = timeout - std::chrono::milliseconds(clock.elapsed());
        if (left <= std::chrono::milliseconds(0))
            break;
        if (!co_await qCoro(&relay, &StateRelay::changed, left))
            break;
    }
    co_return process->state() == QProcess::Running;
}

} // namespace

RealSystem::RealSystem() = default;

OsFamily RealSystem::os() const
{
#if defined(Q_OS_WIN)
    return OsFamily::Windows;
#elif defined(Q_OS_MACOS)
    return OsFamily::MacOS;
#else
    return OsFamily::Linux;
#endif
}

QString RealSystem::arch() const
{
    const QString a = QSysInfo::currentCpuArchitecture();
    if (a == u"arm64" || a == u"aarch64")
        return QStringLiteral("arm64");
    return a;
}

QString RealSystem::hostPath(const QString &path) const
{
    return path;
}

QString RealSystem::env(const QString &name) const
{
    return qEnvironmentVariable(name.toLocal8Bit().constData());
}

QStringList RealSystem::envNames() const
{
    QStringList names = QProcessEnvironment::systemEnvironment().keys();
    names.sort();
    return names;
}

QCoro::Task<ProcessResult> RealSystem::run(QString program, QStringList arguments, std::chrono::milliseconds timeout)
{
    ProcessResult result;
    const QString resolved = program.contains(u'/') || program.contains(u'\\')
        ? program
        : QStandardPaths::findExecutable(program);
    if (resolved.isEmpty()) {
        result.error = QStringLiteral("%1: not found on PATH").arg(program);
        co_return result;
    }
    QProcess process;
    ProcessTree tree; // destroyed first: ends what the program left running
    confine(process, tree);
    process.setProgram(resolved);
    process.setArguments(arguments);
    process.setStandardInputFile(QProcess::nullDevice());
    auto coro = qCoro(process);
    process.start();
    const bool started = co_await startedOrFailed(&process, timeout);
    if (!started) {
        result.error = process.errorString();
        co_return result;
    }
    tree.started(process.processId());
    result.started = true;
    const bool finished = co_await coro.waitForFinished(timeout);
    if (!finished) {
        result.timedOut = process.state() != QProcess::NotRunning;
        result.error = result.timedOut ? QStringLiteral("timed out after %1 ms").arg(timeout.count())
                                       : process.errorString();
        tree.kill();
        process.kill();
        process.waitForFinished(1000);
        co_return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    if (process.exitStatus() != QProcess::NormalExit)
        result.error = QStringLiteral("crashed");
    result.standardOutput = process.readAllStandardOutput();
    result.standardError = process.readAllStandardError();
    co_return result;
}

QCoro::Task<ProcessResult> RealSystem::runWatched(ProcessRequest request)
{
    ProcessResult result;
    const QString resolved = request.program.contains(u'/') || request.program.contains(u'\\')
        ? request.program
        : QStandardPaths::findExecutable(request.program);
    if (resolved.isEmpty()) {
        result.error = QStringLiteral("%1: not found on PATH").arg(request.program);
        co_return result;
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : request.environment) {
        if (value.isEmpty())
            environment.remove(name);
        else
            environment.insert(name, value);
    }
    QProcess process;
    ProcessTree tree; // destroyed first: ends what the program left running
    confine(process, tree);
    process.setProgram(resolved);
    process.setArguments(request.arguments);
    process.setProcessEnvironment(environment);
    if (!request.workingDirectory.isEmpty())
        process.setWorkingDirectory(request.workingDirectory);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setStandardInputFile(QProcess::nullDevice());
    auto coro = qCoro(process);
    process.start();
    if (!co_await startedOrFailed(&process, std::min(request.timeout, std::chrono::milliseconds(60'000)))) {
        result.error = process.errorString();
        co_return result;
    }
    tree.started(process.processId());
    result.started = true;
    QByteArray pending;
    auto deliver = [&](bool flush) {
        const QByteArray chunk = process.readAllStandardOutput();
        result.standardOutput += chunk;
        pending += chunk;
        qsizetype newline = -1;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QByteArray line = pending.left(newline);
            pending.remove(0, newline + 1);
            if (request.onOutputLine)
                request.onOutputLine(QString::fromUtf8(line).trimmed());
        }
        if (flush && !pending.isEmpty() && request.onOutputLine)
            request.onOutputLine(QString::fromUtf8(pending).trimmed());
    };
    // Short waits in a loop, so a cancel is noticed within a fifth of a second and lines show
    // as they come.
    const auto deadline = std::chrono::steady_clock::now() + request.timeout;
    while (process.state() != QProcess::NotRunning) {
        co_await coro.waitForFinished(std::chrono::milliseconds(200));
        deliver(false);
        const bool cancelled = request.cancel && request.cancel->load();
        if (cancelled || std::chrono::steady_clock::now() > deadline) {
            result.timedOut = !cancelled;
            result.error = cancelled ? QStringLiteral("cancelled")
                                     : QStringLiteral("timed out after %1 ms").arg(request.timeout.count());
            tree.kill(); // venv's ensurepip, pip's builds: the whole group, not only the program
            process.kill();
            process.waitForFinished(2000);
            deliver(true);
            co_return result;
        }
    }
    deliver(true);
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    if (process.exitStatus() != QProcess::NormalExit)
        result.error = QStringLiteral("crashed");
    co_return result;
}

LibraryLoad RealSystem::loadLibrary(const QString &name)
{
    return loadNativeLibrary(name);
}

std::optional<QVariant> RealSystem::registryValue(const QString &key, const QString &name) const
{
#if defined(Q_OS_WIN)
    return readNativeRegistryValue(key, name);
#else
    Q_UNUSED(key);
    Q_UNUSED(name);
    return std::nullopt;
#endif
}

QStringList RealSystem::registrySubkeys(const QString &key) const
{
#if defined(Q_OS_WIN)
    return readNativeRegistrySubkeys(key);
#else
    Q_UNUSED(key);
    return {};
#endif
}

std::optional<CpuIdFeatures> RealSystem::cpuid() const
{
#if defined(TFSETUP_HAVE_CPUID)
    auto query = [](unsigned leaf, unsigned subleaf, unsigned regs[4]) {
#if defined(_MSC_VER)
        int r[4];
        __cpuidex(r, int(leaf), int(subleaf));
        for (int i = 0; i < 4; ++i)
            regs[i] = unsigned(r[i]);
#else
        __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
#endif
    };
    CpuIdFeatures f;
    unsigned r[4] = {};
    query(0, 0, r);
    const unsigned maxLeaf = r[0];
    char vendor[13] = {};
    std::memcpy(vendor, &r[1], 4);
    std::memcpy(vendor + 4, &r[3], 4);
    std::memcpy(vendor + 8, &r[2], 4);
    f.vendor = QString::fromLatin1(vendor);

    query(1, 0, r);
    const bool osxsave = r[2] & (1u << 27);
    f.sse42 = r[2] & (1u << 20);
    f.fma = r[2] & (1u << 12);
    bool avxCpu = r[2] & (1u << 28);
    // AVX is usable only when the OS saves the YMM state (XGETBV bit 1 and 2).
    unsigned long long xcr0 = 0;
    if (osxsave) {
#if defined(_MSC_VER)
        xcr0 = _xgetbv(0);
#else
        unsigned eax = 0, edx = 0;
        __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
        xcr0 = (static_cast<unsigned long long>(edx) << 32) | eax;
#endif
    }
    const bool ymm = (xcr0 & 0x6) == 0x6;
    const bool zmm = (xcr0 & 0xe6) == 0xe6;
    f.avx = avxCpu && ymm;
    f.fma = f.fma && ymm;
    if (maxLeaf >= 7) {
        query(7, 0, r);
        f.avx2 = (r[1] & (1u << 5)) && ymm;
        f.avx512f = (r[1] & (1u << 16)) && zmm;
    }
    query(0x80000000u, 0, r);
    if (r[0] >= 0x80000004u) {
        char brand[49] = {};
        for (unsigned i = 0; i < 3; ++i) {
            query(0x80000002u + i, 0, r);
            std::memcpy(brand + 16 * i, r, 16);
        }
        f.brand = QString::fromLatin1(brand).simplified();
    }
    return f;
#else
    return std::nullopt;
#endif
}

} // namespace tfsetup::core

#include "realsystem.moc"
