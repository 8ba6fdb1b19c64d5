#pragma once

#include "catalog/catalog.h"

#include <QCoreApplication>
#include <QString>

namespace tfsetup::core {

// What a student calls a route. A route's id ("linux-pip") is a key for files and the command
// line; sentences and tables name the route by what it is (its accelerator, where its CUDA
// libraries come from, whether it runs inside WSL2), so two routes that differ only in where CUDA
// comes from read differently, and a route added to routes.json gets a name without a code change.
class RouteNames {
    Q_DECLARE_TR_FUNCTIONS(RouteNames)

public:
    // The full name, for a sentence or a table cell: "NVIDIA GPU, CUDA as pip wheels from NVIDIA".
    static QString title(const Route &route);
    // A few words that still tell the routes of one machine apart, for a column header.
    static QString shortName(const Route &route);
    // By id, through the catalog; the id itself when the catalog does not know it.
    static QString title(const Catalog &catalog, const QString &routeId);
    static QString shortName(const Catalog &catalog, const QString &routeId);
};

} // namespace tfsetup::core
