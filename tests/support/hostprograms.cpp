#include "support/hostprograms.h"

#include <QCoro/QCoroTask>

namespace tfsetup::test {

QString HostProgramSystem::key(const QString &program) const
{
    const QString path = QString(program).replace(u'\\', u'/');
    return os() == core::OsFamily::Windows ? path.toLower() : path;
}

QString HostProgramSystem::mapped(const QString &program) const
{
    return m_programs.value(key(program));
}

void HostProgramSystem::mapProgram(const QString &viewPath, const QString &hostProgram)
{
    m_programs.insert(key(viewPath), hostProgram);
    // The program may be named by where the fixture keeps it, too.
    if (const QString host = hostPath(viewPath); !host.isEmpty())
        m_programs.insert(key(host), hostProgram);
}

QCoro::Task<core::ProcessResult> HostProgramSystem::run(QString program, QStringList arguments,
                                                        std::chrono::milliseconds timeout)
{
    if (const QString host = mapped(program); !host.isEmpty())
        co_return co_await m_host.run(host, std::move(arguments), timeout);
    co_return co_await RootedSystem::run(std::move(program), std::move(arguments), timeout);
}

QCoro::Task<core::ProcessResult> HostProgramSystem::runWatched(core::ProcessRequest request)
{
    if (const QString host = mapped(request.program); !host.isEmpty()) {
        request.program = host;
        co_return co_await m_host.runWatched(std::move(request));
    }
    co_return co_await RootedSystem::runWatched(std::move(request));
}

} // namespace tfsetup::test
