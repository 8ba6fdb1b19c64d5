#pragma once

#include <QtGlobal>

#include <functional>

namespace tfsetup::core {

// A program the real system view starts, with everything it starts in turn (venv's ensurepip,
// pip's build backends), as one unit that never outlives tfsetup, however tfsetup ends: a crash
// or a kill -9 included. RealSystem makes one per program before starting it (and is the only
// one that starts programs); kill() ends the whole unit on cancel or timeout, and the destructor
// ends whatever the program left running when it finished.
//
// POSIX: the program runs in a process group of its own, and a small watchdog process in that
// group waits on a pipe whose write end only tfsetup holds; when tfsetup is gone (the kernel
// closes the pipe), the watchdog kills the group. PR_SET_PDEATHSIG is not used: it fires when the
// *thread* that started the program ends (a pool thread may), and it does not reach
// grandchildren. Windows: a job object that kills its processes when its last handle closes.
// Implemented per platform in processtree_posix.cpp and processtree_win.cpp.
class ProcessTree final {
public:
    ProcessTree();
    ~ProcessTree();
    ProcessTree(const ProcessTree &) = delete;
    ProcessTree &operator=(const ProcessTree &) = delete;

    // POSIX: what the child runs between fork and exec (QProcess::setChildProcessModifier).
    // Empty on Windows.
    std::function<void()> childSetup() const;
    // After the program started, with its process id.
    void started(qint64 pid);
    // Ends everything the program started; the program itself is ended by its starter.
    void kill();

private:
#if defined(Q_OS_WIN)
    void *m_job = nullptr; // the job object
#else
    qint64 m_group = 0; // the process group: the program's own id
#endif
};

} // namespace tfsetup::core
