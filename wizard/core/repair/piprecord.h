#pragma once

#include "install/archive.h"
#include "util/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <atomic>

namespace tfsetup::core {

// What pip installed, checked against each distribution's own record of its files.
//
// An installed distribution (PEP 376, the "Recording installed projects" specification) is a
// `<name>-<version>.dist-info` folder in site-packages whose RECORD lists every installed file as
// CSV rows `path,hash,size`: the path '/'-separated and relative to site-packages (it may climb
// out with "../", e.g. into the venv's bin/ for console scripts), the hash `<algorithm>=<digest>`
// with the digest urlsafe-base64 without "=" padding, the size in bytes. Rows without a hash
// (RECORD itself, the .pyc files pip compiles) are not checked.

struct PipRecordEntry {
    QString path;      // as written in RECORD
    QString algorithm; // "sha256"; empty when the row has no hash
    QByteArray digest; // the raw digest bytes (decoded from urlsafe base64)
    qint64 size = -1;  // -1 when not given
};

// The rows of a RECORD (Python's csv dialect: ',' separated, '"' quoted with "" inside). Rows
// without a path are dropped.
QList<PipRecordEntry> parsePipRecord(const QByteArray &csv);

// One installed distribution whose files are not as its RECORD says.
struct PipDistributionDamage {
    QString name;         // from METADATA's Name:, else the dist-info folder's name
    QString version;      // from METADATA's Version:
    QString distInfo;     // relative to the environment: venv/lib/python3.11/site-packages/x-1.0.dist-info
    QStringList altered;  // relative to the environment: content or size differs, or a link where a file was
    QStringList missing;  // relative to the environment
    QStringList escaping; // RECORD paths that leave the environment (absolute, or too many "../"): not read
    // Filled by repair: where a verified wheel comes from (a wheel's file name, or "index"), and
    // a translated note when none can be had.
    QString source;
    QString note;

    bool damaged() const { return !altered.isEmpty() || !missing.isEmpty() || !escaping.isEmpty(); }
    QStringList files() const { return altered + missing; } // relative to the environment
    QJsonObject toJson() const;
};

struct PipRecordScan {
    QList<PipDistributionDamage> damaged;
    int distributions = 0; // how many dist-info folders were checked
    bool cancelled = false;
};

// Which distributions checkPipRecords reads, and how closely.
struct PipRecordCheck {
    // dist-info folder names (QDir wildcards): every distribution, or e.g. NVIDIA's wheels alone.
    QStringList distInfos = {QStringLiteral("*.dist-info")};
    // Files larger than this are compared by size only (a quick look, as the doctor takes);
    // negative: every file is hashed (repair, before it changes anything).
    qint64 hashLimit = -1;
};

// Blocking (a worker's job): every distribution in the environment's site-packages (venv/lib/
// python*/site-packages, venv/Lib/site-packages) checked against its RECORD. Every file is opened
// from the environment's folder without following a link (util/confined.h); a link on the way or
// at the name counts as altered, never as the file it points to.
PipRecordScan checkPipRecords(const QString &hostEnv, const std::atomic<bool> *cancel = nullptr,
                              const PipRecordCheck &check = {});

// Whether a wheel's file name (PEP 427: name-version[-build]-python-abi-platform.whl) is of this
// distribution and version.
bool wheelIsOf(const QString &fileName, const QString &name, const QString &version);
// Wheels of the distribution below folders (each folder and its wheelhouse/ subfolder), by file name.
QStringList wheelCandidates(const QStringList &folders, const QString &name, const QString &version);

struct VerifiedWheel {
    QString path;      // host path of the .whl
    QByteArray sha256; // lower-case hex of the whole file: pip's --hash
};

// Blocking: whether the wheel is the one the distribution was installed from. It is unpacked into
// `unpack` (an empty folder in the staging folder) and every file the installed RECORD lists
// inside site-packages that the wheel holds must have the recorded digest, the damaged ones among
// them; the wheel must carry the same dist-info folder. Error "wheel_mismatch" when not.
Result<VerifiedWheel> verifyWheel(const QString &wheelPath, const QString &hostEnv, const PipDistributionDamage &damage,
                                  const QString &unpack, const std::atomic<bool> *cancel = nullptr);

// Blocking: puts the damaged files of `damage` back from `stagedTarget`, the folder `pip install
// --target` filled inside tfsetup's own staging folder (site-packages files at its top, console
// scripts in bin/ or Scripts/). Each file is put back only when its bytes have the size and the
// SHA-256 the installed RECORD lists, and moved into the environment in one step
// (util/confined.h's placeConfined): never through a link planted in site-packages or on the way,
// never by pip writing into the environment. Returns what could not be put back, one line each
// ("<path>: <why>", untranslated); empty when every file is back.
QStringList restoreFromStaged(const QString &hostEnv, const PipDistributionDamage &damage, const QString &stagedTarget);

} // namespace tfsetup::core
