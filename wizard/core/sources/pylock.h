#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// pylock.toml (PEP 751): the wheels pip installs into an environment, each with its URL, size and
// SHA-256, so an install can be repeated and repaired with exactly the same files.
//
// The reader takes the part of TOML a lock needs and nothing more (no floats, dates or multi-line
// strings), checks the document against its shape (a field of another type or size is refused by
// name: "packages[3].wheels[0].size"), and ignores what other tools add ([tool.other], markers,
// sdists). Every name it accepts is a project name, a version and a wheel file name that are safe
// to put on pip's command line and on disk.

// One locked wheel: a PEP 751 [[packages]] entry with exactly one [[packages.wheels]] entry.
struct LockedWheel {
    QString name;           // PEP 503-normalized project name: "tensorflow", "nvidia-cublas-cu12"
    QString version;        // "2.15.1"
    QString file;           // the wheel's file name ("tensorflow-2.15.1-cp311-cp311-manylinux_2_17_x86_64.whl")
    QString url;            // where the wheel is downloaded from (the index's link to it); http(s) or file URL
    qint64 size = -1;       // bytes; -1 when not known
    QByteArray sha256;      // 64 lower-case hex digits (always present: PEP 751 requires hashes)
    QString index;          // the simple index base URL it was resolved from ("https://pypi.org/simple/"), may be empty
    QString requiresPython; // the package's Requires-Python, may be empty
    bool requested = false; // named by a requirement, not only pulled in as a dependency
    bool hashFromDownload = false; // the index published no hash: sha256 is what tfsetup hashed at the first download

    bool operator==(const LockedWheel &) const = default;
};

struct PyLock {
    Q_DECLARE_TR_FUNCTIONS(PyLock)
public:
    static constexpr qint64 maxBytes = 8 * 1024 * 1024; // a lock of thousands of wheels stays far below
    static constexpr qsizetype maxPackages = 20000;

    QString createdBy = QStringLiteral("tfsetup");
    QString requiresPython;      // e.g. "==3.11.2"; empty: not written
    QStringList environments;    // PEP 508 marker strings the lock was made for; empty: not written
    QList<LockedWheel> packages; // written sorted by name (then version)
    // [tool.tfsetup]: what the lock was made from
    QStringList requirements; // the requirement lines pip resolved ("tensorflow[and-cuda]==2.15.*", "ipykernel")
    QString python;           // full version of the interpreter that resolved it ("3.11.2")

    // Deterministic: the same lock gives the same bytes (UTF-8, ending in "\n").
    QByteArray toToml() const;
    // Error codes: input_too_large (over maxBytes), lock_malformed (not the TOML this reads; the
    // message names the line), lock_version (another major lock-version), lock_invalid (a field
    // of another type or size, named). Packages come back sorted by name; a project listed twice
    // is refused (pip takes one line per project).
    static Result<PyLock> fromToml(const QByteArray &text);
    // readInputFile (input_* codes), then fromToml.
    static Result<PyLock> read(const QString &path);
    // The wheel of a project, its name normalized first ("TensorFlow_IO" finds "tensorflow-io").
    const LockedWheel *find(const QString &project) const;
    qint64 totalBytes() const; // sum of the known sizes
    bool allSizesKnown() const;
    // pip's hash-checking form: one line per wheel "name==version --hash=sha256:HEX\n", sorted by name;
    // pip installs exactly these with --require-hashes.
    QByteArray requirementsText() const;
    // PEP 503: lower case, runs of '-', '_' and '.' become one '-'.
    static QString normalizeName(const QString &name);

    bool operator==(const PyLock &) const = default;
};

} // namespace tfsetup::core
