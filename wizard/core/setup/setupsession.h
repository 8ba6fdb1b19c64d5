#pragma once

#include "detect/hardwarereport.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace tfsetup::core {

// An unfinished setup, saved so that it can be continued after the program or the machine
// restarted: the plan, the machine it was made for, the options and the artifacts they resolved
// to, and how far the setup got. Everything else is derived again: the download requests from
// artifacts + options (SetupFlow::downloadPlan), the bytes already there from the disk. The
// downloader resumes from its .part files and the installer clears staging leftovers, so
// continuing never needs more than this.
struct SetupSession {
    Q_DECLARE_TR_FUNCTIONS(SetupSession)

public:
    // Bumped when a field changes meaning; a file of another version is ignored, not migrated.
    static constexpr int formatVersion = 2;

    // How far the setup got, in the wizard's order. Names are stable: they are in the file.
    enum class Step { Options, Download, Install, Verify };

    Step step = Step::Options;
    Plan plan;
    HardwareReport hardware;
    SetupOptions options;
    std::optional<ArtifactList> artifacts; // set from Download on
    PyLock lock;                           // the wheels pip's resolver chose, with the artifacts
    QList<int> gpus;                       // the GPUs the environment pins (InstallSpec::gpus); empty: none
    QDateTime saved;                       // UTC, when the file was written

    // The environment the setup makes, in the view's spelling.
    QString environmentPath() const { return options.environmentPath(plan); }
    QString environmentName() const;

    // What the Download step fetches, again (empty before the artifacts are known).
    QList<DownloadRequest> downloads() const;
    // Bytes of those downloads on disk now (finished files and resumable .part files) and the
    // bytes they total; total is -1 when a size is unknown.
    struct DownloadedBytes {
        qint64 done = 0;
        qint64 total = 0;
    };
    DownloadedBytes downloadedBytes() const;

    static QString stepName(Step step);
    static std::optional<Step> stepFromName(const QString &name);

    QJsonObject toJson() const;
    // Refuses another format version and anything without a plan.
    static Result<SetupSession> fromJson(const QJsonObject &json);

    // <user data folder>/tfsetup/setup-session.json, next to the logs (XDG_DATA_HOME on Linux,
    // %APPDATA% on Windows).
    static QString defaultPath();

    // Written atomically (QSaveFile): a crash while saving leaves the previous file.
    Status save(const QString &path) const;
    // nullopt when there is no file; a corrupt or incompatible file is ignored with a log line.
    static std::optional<SetupSession> load(const QString &path);
    // Forgets the saved setup. Never touches downloaded files.
    static bool discard(const QString &path);
};

} // namespace tfsetup::core
