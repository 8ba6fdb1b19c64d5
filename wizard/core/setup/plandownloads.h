#pragma once

#include "catalog/sourcecatalog.h"
#include "setup/setupflow.h"
#include "solver/plan.h"
#include "sources/artifact.h"
#include "sources/pylock.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QString>

#include <chrono>

namespace tfsetup::core {

// What a plan downloads, as far as it is known at the moment of asking: before its files are
// looked up (the Choose page) only the sources catalog speaks; once the resolver has answered
// for the same plan (Back from Options), its artifact list and pip's lock do.
struct PlanDownloads {
    // The CUDA release whose NVIDIA archives come down; empty when the plan downloads none (pip
    // routes, CPU, or no manifest is known). It is another release than the plan's CUDA when
    // the sources catalog names a fallback manifest (the 11.8 archives standing in for 11.2): the
    // resolver then fetches the fallback's manifest, and the page must say so, not the plan's.
    QString cudaArchives;
    // The plan's route places NVIDIA's CUDA and cuDNN libraries itself (a toolkit route): they are
    // downloaded into the environment even when a toolkit is installed on the machine.
    bool nvidiaArchives = false;
    bool cudaStandIn = false;
    // Only when the plan's own manifest has no pin: the resolver still asks NVIDIA for it first,
    // so the stand-in is what comes unless NVIDIA serves the plan's own (then certain is false).
    bool cudaCertain = true;

    // Bytes of the files whose size is known; filesUnknown counts those whose size is not (yet).
    // sizesResolved: the numbers come from the resolver's list (and the lock), not from nothing.
    qint64 knownBytes = 0;
    int filesKnown = 0;
    int filesUnknown = 0;
    bool sizesResolved = false;
    // Resolved without pip's lock: the TensorFlow wheels are one of the filesUnknown, sized only
    // once pip has locked them (the Options page's Next).
    bool wheelsUnsized = false;

    bool allSizesKnown() const { return sizesResolved && filesUnknown == 0; }
    // The unknown files other than the wheels pip has not locked yet.
    int otherFilesUnknown() const { return filesUnknown - (wheelsUnsized ? 1 : 0); }

    // resolved and lock may be null; a list resolved for another plan (route or release) is ignored.
    static PlanDownloads of(const Plan &plan, const SourceCatalog &sources, const ArtifactList *resolved = nullptr,
                            const PyLock *lock = nullptr);

    // The plan's files and their sizes, looked up before the Options page (the Choose page's
    // total): the resolver through the options' network settings, its documents capped at
    // lookupTimeout each. With an offline bundle its recorded list (bundle.json's sizes) answers,
    // without hashing the bundle's files (the Options page's Next verifies them). Offline without
    // a bundle: an "offline" error, nothing is asked.
    static QCoro::Task<Result<ArtifactList>> lookUp(Plan plan, QString os, SetupOptions options);
    static constexpr std::chrono::milliseconds lookupTimeout{10000};
};

} // namespace tfsetup::core
