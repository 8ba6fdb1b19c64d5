#pragma once

#include "catalog/knowledge.h"

#include <QtGlobal>

namespace tfsetup::test {

// The built-in catalog (resources/catalog), loaded once per test program: what a test hands to
// the parts that take knowledge, as the wizard and the command line hand theirs. A catalog that
// does not load ends the test program with the reason.
inline core::KnowledgePtr shippedKnowledge()
{
    static const core::KnowledgePtr knowledge = [] {
        auto loaded = core::Knowledge::load();
        if (!loaded)
            qFatal("the built-in catalog does not load: %s", qPrintable(loaded.error().message));
        return *loaded;
    }();
    return knowledge;
}

} // namespace tfsetup::test
