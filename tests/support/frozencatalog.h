#pragma once

#include <QString>

namespace tfsetup::test {

// The catalog the solver's cases are solved over: a frozen copy of the shipped one
// (tests/data/solver/catalog-2026-12/README.md), so a new release in resources/catalog moves
// none of their answers. gpus.json is in the same folder.
inline QString frozenCatalog()
{
    return qEnvironmentVariable("TFSETUP_TEST_DATA") + QStringLiteral("/solver/catalog-2026-12");
}

} // namespace tfsetup::test
