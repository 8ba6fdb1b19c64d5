#pragma once

#include "util/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// A lab's own catalog key, trusted beside the release key for signed catalog updates. An
// administrator records it once per machine (`tfsetup catalog trust`), where every account reads
// it: <system config folder>/tfsetup/catalog-keys/<key_id>.json, a small JSON file
//
//   {"name": "Physics lab", "key_id": "<16 hex>", "public_key": "<64 hex, raw Ed25519>",
//    "added": "2027-01-15T09:00:00Z"}
//
// The system config folders are the GenericConfigLocation folders other than the user's own
// (Linux: $XDG_CONFIG_DIRS, by default /etc/xdg; Windows: C:/ProgramData): the first one is
// written, all are read. A file there that is not such a record (too large, not JSON, a field of
// the wrong type, a key_id that is not its key's) is ignored with its reason in the log, and a
// link below the folder is never followed.
struct TrustedKey {
    QString name;
    QString keyId;        // CatalogUpdates::keyId(publicKey)
    QByteArray publicKey; // raw, 32 bytes
    QString added;        // ISO date and time
};

class CatalogKeys {
    Q_DECLARE_TR_FUNCTIONS(CatalogKeys)

public:
    // A record file larger than this is not read.
    static constexpr qint64 maxRecordBytes = 16 * 1024;

    // The system config folders, the one `catalog trust` writes first.
    static QStringList systemRoots();
    // Below a root: "tfsetup/catalog-keys".
    static QString folderBelowRoot();
    static QString recordPath(const QString &root, const QString &keyId);

    // Every well-formed record below the roots (the first of a key id wins); ignored files are
    // logged once per reason.
    static QList<TrustedKey> read(const QStringList &roots);

    // A public key as an administrator has it: a PEM file as `openssl pkey -pubout` writes it
    // (Ed25519 SubjectPublicKeyInfo), or the 64 hex digits `sign_catalog.py --print-public-key`
    // prints. catalog_key_invalid when it is neither.
    static Result<QByteArray> parsePublicKey(const QByteArray &text);

    // Records the key below root in one step (a temporary file renamed over the name).
    // catalog_trust_denied when the folder cannot be written (not an administrator).
    static Result<TrustedKey> trust(const QString &root, const QByteArray &publicKey, const QString &name);
    // Removes the record of keyId below the first root that has one, when it is a record tfsetup
    // wrote (a well-formed record of that key id); catalog_key_unknown when there is none.
    static Result<TrustedKey> untrust(const QStringList &roots, const QString &keyId);
};

} // namespace tfsetup::core
