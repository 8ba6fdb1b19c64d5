#include "system/processtree.h"

#include <windows.h>

namespace tfsetup::core {

ProcessTree::ProcessTree()
{
    // Closing the job's last handle (ours; tfsetup's exit closes it too) ends every process in it.
    HANDLE job = CreateJobObjectW(nullptr, nullptr);
    if (job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
            CloseHandle(job);
            job = nullptr;
        }
    }
    m_job = job;
}

ProcessTree::~ProcessTree()
{
    if (m_job)
        CloseHandle(static_cast<HANDLE>(m_job));
}

std::function<void()> ProcessTree::childSetup() const
{
    return {};
}

void ProcessTree::started(qint64 pid)
{
    // Processes the program starts from now on belong to the job as well.
    if (!m_job)
        return;
    HANDLE process = OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, FALSE, DWORD(pid));
    if (process) {
        AssignProcessToJobObject(static_cast<HANDLE>(m_job), process);
        CloseHandle(process);
    }
}

void ProcessTree::kill()
{
    if (m_job)
        TerminateJobObject(static_cast<HANDLE>(m_job), 1);
}

} // namespace tfsetup::core
