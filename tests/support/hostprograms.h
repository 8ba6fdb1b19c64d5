#pragma once

// A fixture machine (RootedSystem) on which some programs are this machine's own. A page test over
// an imitated machine whose Python is "/usr/bin/python3.11" maps that path to the host's python3,
// so pip's resolver can still lock for real, against a loopback index; every other program, file,
// variable and registry value is the fixture's.
//
//     tfsetup::test::HostProgramSystem system(root, core::OsFamily::Linux, env);
//     system.mapProgram(u"/usr/bin/python3.11"_s, QStandardPaths::findExecutable(u"python3"_s));

#include "system/realsystem.h"
#include "system/rootedsystem.h"

#include <QHash>
#include <QString>

namespace tfsetup::test {

class HostProgramSystem : public core::RootedSystem {
public:
    using RootedSystem::RootedSystem;

    // viewPath: the program as the imitated machine names it (either slash; on Windows the case
    // does not matter); hostProgram: the executable on this machine that runs in its place.
    void mapProgram(const QString &viewPath, const QString &hostProgram);

    QCoro::Task<core::ProcessResult> run(QString program, QStringList arguments,
                                         std::chrono::milliseconds timeout) override;
    QCoro::Task<core::ProcessResult> runWatched(core::ProcessRequest request) override;

private:
    QString key(const QString &program) const;
    QString mapped(const QString &program) const;

    QHash<QString, QString> m_programs;
    core::RealSystem m_host;
};

} // namespace tfsetup::test
