#pragma once

#include "catalog/catalog.h"
#include "catalog/causes.h"
#include "catalog/gputable.h"
#include "catalog/placementrules.h"
#include "catalog/sourcecatalog.h"
#include "catalog/tflogrules.h"
#include "catalog/versionqueries.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QString>

#include <memory>

namespace tfsetup::core {

// Everything tfsetup knows from its knowledge catalog (resources/catalog/), read at one moment
// from one catalog: every part comes from the installed signed update when one is valid, or every
// part from the built-in files; never a mix. Loaded once and passed to whoever needs it (the
// commands at dispatch, the wizard's state, the installer, the doctor …), so a run sees one
// catalog from start to end even if an update is installed meanwhile.
//
// The loaders' own load() functions stay for tests and for files a user names (--sources-catalog);
// production code takes its knowledge from here.
struct Knowledge {
    Q_DECLARE_TR_FUNCTIONS(Knowledge)

public:
    static constexpr const char *builtInFolder = ":/resources/catalog";

    Catalog catalog;               // tensorflow, cuda, libraries, routes
    GpuTable gpus;                 // gpus.json
    SourceCatalog sources;         // sources.json
    PlacementRules placement;      // placement.json
    CauseRegistry causes;          // causes.json
    TfLogRules tfLog;              // tflog.json, naming the causes above
    VersionQueries versionQueries; // resources/verify/probe.json: program data, not updated with the catalog

    // Where the parts were read from: the folder given to load(), or the update when fromUpdate.
    QString folder;
    bool fromUpdate = false;
    qint64 updateVersion = 0; // the update's, when fromUpdate
    QString updateDate;
    // The catalog built into this tfsetup (resources/catalog/release.json).
    qint64 builtInVersion = 0;
    QString builtInDate;

    // The version and date of the catalog in use: the update's, or the built-in one's.
    qint64 version() const { return fromUpdate ? updateVersion : builtInVersion; }
    QString date() const { return fromUpdate ? updateDate : builtInDate; }

    // The sources catalog a user named (--sources-catalog, a lab's file), or this bundle's when
    // path is empty.
    Result<SourceCatalog> sourcesOr(const QString &path) const;

    // Reads every part. From the built-in folder, the installed update (CatalogUpdates::active)
    // is verified once and, when valid, supplies every catalog file; any other folder is read as
    // it is (a copy of resources/catalog, for tests and lab checks). A failure is one error
    // naming the file that could not be used, in the message or the detail.
    static Result<std::shared_ptr<const Knowledge>> load(const QString &folder = QString::fromLatin1(builtInFolder));

    // The process-wide bundle of the built-in folder: loaded on first use, the same object on
    // every later call, loaded again when the installed update changes (installed, replaced or
    // removed) or tests set another trust. Holders of an earlier bundle keep it alive.
    static Result<std::shared_ptr<const Knowledge>> shared();
    // What a part that takes knowledge (the installer, the repairer, the pipeline) returns when it
    // was handed none: its driver did not load the catalog first. The part changed nothing. Only
    // the drivers (the command line, the wizard, the lab drill) load it.
    static Error notGiven();
};

using KnowledgePtr = std::shared_ptr<const Knowledge>;

} // namespace tfsetup::core
