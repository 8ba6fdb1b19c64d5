#pragma once

#include "catalog/sourcecatalog.h"
#include "fetch/downloadtypes.h"
#include "setup/setupflow.h"
#include "util/result.h"

#include <QCommandLineParser>

namespace tfsetup::cli {

// The command line is a client of core, as the wizard is: core's types read unqualified here.
using namespace tfsetup::core;

// Where a command that fetches and installs takes its files from, as `install` spells it:
// --offline --from BUNDLE, --cache DIR, --mirror URL|DIR (NVIDIA's tree; pypi=PRESET|URL for
// pip's index), --origin ORIGIN=URL, --ca-bundle FILE, --proxy URL, --min-speed BYTES[:SECONDS].
void addInstallSourceOptions(QCommandLineParser &parser);

// The network settings the options give: --proxy, --ca-bundle, --mirror (in the order given),
// --origin, --min-speed. Made once per command and handed down whole. Usage errors as above.
Result<NetworkSettings> networkFromOptions(const QCommandLineParser &parser, const SourceCatalog &sources);

struct InstallSources {
    SetupOptions setup; // the cache folder and the network settings; prefix, name and jupyter are the caller's
};
// Usage errors (code "usage" or the parser's) for a caller to report with exit status 2. Mirror
// presets (pypi=tuna) are looked up in the knowledge bundle's sources catalog.
Result<InstallSources> installSourcesFrom(const QCommandLineParser &parser, const SourceCatalog &sources);

} // namespace tfsetup::cli
