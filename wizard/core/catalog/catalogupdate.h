#pragma once

#include "catalog/catalogkeys.h"
#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QCoro/QCoroTask>

#include <optional>

namespace tfsetup::core {

// Signed catalog updates. The knowledge files of resources/catalog/ (causes, cuda, gpus,
// libraries, placement, routes, sources, tensorflow, tflog) travel as one JSON document:
//
//   {"format": "tfsetup-catalog-update", "schema": 1, "version": 7, "date": "2027-01-15",
//    "files": {"tensorflow.json": "<the file's text>", …},
//    "signature": {"algorithm": "ed25519", "key_id": "<16 hex>", "value": "<base64>"}}
//
// The signature is Ed25519 over canonicalForm() of version, date and files, made by
// resources/catalog/sign_catalog.py with the release key (only its public half is in the binary)
// or with a lab's own key that an administrator trusted on this machine (catalogkeys.h).
// A document is accepted when its size, shape, signature and every file's contents are right and
// its version is higher than the built-in catalog's (resources/catalog/release.json) and the
// installed update's. The accepted document is stored in the user's data folder
// (<AppDataLocation>/catalog/update.json, written atomically), and Knowledge::load reads every
// catalog file from it after verifying it again; a stored update that no longer verifies, or is
// not newer than the built-in catalog, is ignored with its reason in the log. The parts' own
// loaders (Catalog::load, SourceCatalog::load …) read only the path they are given.

struct CatalogUpdate {
    qint64 version = 0;
    QString date;                    // "2027-01-15"
    QMap<QString, QByteArray> files; // "tensorflow.json" → its UTF-8 text
    QString keyId;
    // Who signed it, as decided when it was verified: the release key, or a trusted lab key.
    bool signedByRelease = false;
    QString signerName; // the lab key's name; empty for the release key
    // Unsigned facts of an installed copy: where it came from and when it was installed.
    QString source;
    QString installedAt;
};

// Whose updates count and where they live. defaults() is what the program uses; tests pass a
// throw-away key and a temporary folder.
struct CatalogUpdateTrust {
    QString folder;            // holds update.json
    QByteArray publicKey;      // raw 32-byte Ed25519 public key: the release key
    QList<TrustedKey> labKeys; // trusted beside it, given directly (tests)
    QStringList keyRoots;      // where lab keys are recorded (CatalogKeys::systemRoots()), the first written
    // labKeys and the records below keyRoots. Read from disk on each call, so only where a key is
    // needed: a signature that is not the release key's, `catalog status`; never on every
    // Knowledge::shared().
    QList<TrustedKey> trustedLabKeys() const;
    qint64 builtInVersion = 0;
    QString builtInDate;
    QString defaultUrl; // where `catalog update` looks without --from
    QString storedPath() const;
};

struct CatalogUpdateOutcome {
    CatalogUpdate update;
    bool installed = false; // false: the same version was already installed
    // false: the default address answered that nothing is published there (404); update is empty.
    bool published = true;
    qint64 previousVersion = 0; // the installed update's, 0 when none was
};

// What `catalog status` and the wizard's notice show.
struct CatalogStatus {
    qint64 builtInVersion = 0;
    QString builtInDate;
    bool updatePresent = false;
    std::optional<CatalogUpdate> update; // the stored update when it verifies
    std::optional<Error> refused;        // why a present update is not used
    bool inUse() const { return update.has_value() && !refused.has_value(); }
};

class CatalogUpdates {
    Q_DECLARE_TR_FUNCTIONS(CatalogUpdates)

public:
    // A document larger than this is refused before it is parsed (the catalog is about 250 KB).
    static constexpr qint64 maxDocumentBytes = 8 * 1024 * 1024;

    // The knowledge files an update must carry.
    static QStringList fileNames();

    // The shipped public key, the lab keys recorded on this machine, the user's data folder, the
    // built-in version and address.
    static CatalogUpdateTrust defaults();
    // What the loaders and the commands use: defaults(), or the trust a test set.
    static CatalogUpdateTrust current();
    // Test seam: tests only. The program never calls it and reads no key from the environment;
    // std::nullopt restores defaults().
    static void setTrustForTesting(std::optional<CatalogUpdateTrust> trust);

    // The bytes the signature covers: a fixed header, the version and date, then each file
    // (sorted by name) as "file NAME LENGTH\n" + its bytes + "\n".
    static QByteArray canonicalForm(qint64 version, const QString &date, const QMap<QString, QByteArray> &files);
    // The key id a document names: the first 16 hex digits of the raw key's SHA-256.
    static QString keyId(const QByteArray &publicKey);

    // Checks one document: size, shape, key, signature, files' contents (not the version).
    // origin names it in messages (a URL or a path).
    static Result<CatalogUpdate> verify(const QByteArray &document, const CatalogUpdateTrust &trust,
                                        const QString &origin);
    // The stored update, verified again; catalog_update_none when there is none.
    static Result<CatalogUpdate> stored(const CatalogUpdateTrust &trust);
    static CatalogStatus status(const CatalogUpdateTrust &trust);
    // The update the loaders use now, if any. A refused one is logged (once per reason) and ignored.
    static std::optional<CatalogUpdate> active(const CatalogUpdateTrust &trust);

    // Verifies a document, checks its version against the built-in and installed ones and stores
    // it atomically. catalog_update_rollback when it is older than either.
    static Result<CatalogUpdateOutcome> install(const QByteArray &document, const QString &source,
                                                const CatalogUpdateTrust &trust);
    // Fetches from an http(s) URL through the one HttpClient (transfer: proxy, CA bundle), or
    // reads a file (a path or file:// URL, as a lab mirror's share offers it), then install().
    // An empty from means trust.defaultUrl; when that answers 404 (nothing published yet) the
    // outcome says so (published false) instead of failing. A 404 elsewhere is an error.
    static QCoro::Task<Result<CatalogUpdateOutcome>> update(QString from, TransferOptions transfer,
                                                            CatalogUpdateTrust trust);
    // A lab's own address for updates: the setting catalog/updateFrom of tfsetup's settings file
    // (tfsetup.conf); empty when not set.
    static QString configuredSource();
};

} // namespace tfsetup::core
