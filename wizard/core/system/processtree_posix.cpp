#include "system/processtree.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#if defined(Q_OS_LINUX)
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

namespace tfsetup::core {

namespace {

// The lifeline: tfsetup holds both ends for as long as it runs and never writes; close-on-exec
// keeps them out of every program it starts. A watchdog reading the other end gets end-of-file
// exactly when the last holder of the write end, tfsetup, is gone.
int g_lifelineRead = -1;
int g_lifelineWrite = -1;

void makeLifeline()
{
    static const bool made = [] {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return false;
        g_lifelineRead = fds[0];
        g_lifelineWrite = fds[1];
        return true;
    }();
    Q_UNUSED(made);
}

#if defined(Q_OS_LINUX)

// fork() without the C library: Qt may make the child without fork() (no atfork handlers ran, a
// lock another thread held stays held), so the child calls nothing but the kernel. Both
// architectures take (flags, stack, …) first; the rest is zero either way.
long rawFork(int exitSignal)
{
    return ::syscall(SYS_clone, long(exitSignal), 0L, 0L, 0L, 0L);
}

[[noreturn]] void watchdog(int lifeline, long group)
{
    // Nothing of tfsetup's is kept open but the lifeline (held as 0): no pipe of the program's
    // output, no lock file, no socket stays open because of the watchdog.
    if (lifeline != 0)
        ::syscall(SYS_dup3, long(lifeline), 0L, 0L);
    if (::syscall(SYS_close_range, 1L, long(~0U), 0L) != 0) {
        for (long fd = 1; fd < 65536; ++fd)
            ::syscall(SYS_close, fd);
    }
    char byte = 0;
    while (::syscall(SYS_read, 0L, &byte, 1L) < 0 && errno == EINTR) {}
    ::syscall(SYS_kill, -group, long(SIGKILL));
    ::syscall(SYS_exit_group, 0L);
    __builtin_unreachable();
}

#endif

// Runs in the child between fork and exec: system calls only.
void prepareChild()
{
    ::setpgid(0, 0);
#if defined(Q_OS_LINUX)
    const int lifeline = g_lifelineRead;
    if (lifeline < 0)
        return;
    const long group = ::syscall(SYS_getpid);
    // Twice, so that the watchdog is nobody's child but init's: the program never sees a child
    // it did not make. Without a watchdog (no process left) the program still runs, unguarded.
    const long first = rawFork(0);
    if (first == 0) {
        if (rawFork(SIGCHLD) != 0)
            ::syscall(SYS_exit_group, 0L);
        watchdog(lifeline, group);
    }
    if (first > 0) {
        int status = 0;
        ::syscall(SYS_wait4, first, &status, long(__WALL), 0L);
    }
#endif
}

} // namespace

ProcessTree::ProcessTree()
{
    makeLifeline();
}

ProcessTree::~ProcessTree()
{
    // The group outlives its leader while the watchdog is in it, so the id still names this group.
    // Without a watchdog (not Linux) nothing vouches for an id whose leader is gone.
#if defined(Q_OS_LINUX)
    kill();
#endif
}

std::function<void()> ProcessTree::childSetup() const
{
    return &prepareChild;
}

void ProcessTree::started(qint64 pid)
{
    m_group = pid;
}

void ProcessTree::kill()
{
    if (m_group > 0)
        ::kill(-pid_t(m_group), SIGKILL);
}

} // namespace tfsetup::core
