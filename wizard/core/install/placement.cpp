#include "install/placement.h"

#include "util/names.h"

#include <QHash>

namespace tfsetup::core {

QString commonTopFolder(const QList<ExtractedEntry> &entries)
{
    QString top;
    for (const ExtractedEntry &e : entries) {
        const qsizetype slash = e.path.indexOf(u'/');
        if (slash < 0) {
            // A file at the top level: no common folder (a folder entry named like it is fine).
            if (e.kind != ExtractedEntry::Folder)
                return {};
            if (top.isEmpty())
                top = e.path;
            else if (top != e.path)
                return {};
            continue;
        }
        const QString first = e.path.left(slash);
        if (top.isEmpty())
            top = first;
        else if (top != first)
            return {};
    }
    return top;
}

Result<QList<Placement>> placeEntries(const PlacementRules &rules, OsFamily os, const QString &route, int cudnnMajor,
                                      const QString &component, const QList<ExtractedEntry> &entries)
{
    // The component becomes a folder name ("licenses/{component}"): a plain name or nothing.
    if (!isSafePathName(component)) {
        return Error{QStringLiteral("placement_bad_component"),
                     PlacementRules::tr(
                         "The NVIDIA component name \"%1\" cannot be a folder name. The plan or bundle is damaged; "
                         "make it again.")
                         .arg(component),
                     component};
    }
    const PlacementLayout *l = rules.layout(os, route);
    if (!l) {
        return Error{QStringLiteral("placement_no_layout"),
                     PlacementRules::tr(
                         "tfsetup does not know where NVIDIA's files go for %1 with the \"%2\" layout. Choose another "
                         "route or update tfsetup.")
                         .arg(osFamilyName(os), route),
                     {}};
    }
    const QString top = commonTopFolder(entries);
    const Qt::CaseSensitivity cs = os == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
    QList<Placement> out;
    QHash<QString, QString> taken; // destination (case-folded on Windows) → source
    for (const ExtractedEntry &e : entries) {
        if (e.kind == ExtractedEntry::Folder)
            continue;
        const QString inner = top.isEmpty() ? e.path : e.path.mid(top.size() + 1);
        for (const PlacementRule &rule : l->rules) {
            if (!rule.cudnnMajors.isEmpty() && !rule.cudnnMajors.contains(cudnnMajor))
                continue;
            if (!rule.pattern.match(inner).hasMatch())
                continue;
            QString rest = inner;
            if (!rule.base.isEmpty())
                rest = inner.mid(rule.base.size() + 1);
            QString to = rule.to;
            to.replace(QStringLiteral("{component}"), component);
            to += u'/' + rest;
            const QString key = cs == Qt::CaseInsensitive ? to.toLower() : to;
            if (taken.contains(key)) {
                return Error{QStringLiteral("placement_conflict"),
                             PlacementRules::tr(
                                 "Two files from NVIDIA's archives would land on %1. The downloaded archives do not "
                                 "belong together; plan again.")
                                 .arg(to),
                             QStringLiteral("%1 and %2").arg(taken.value(key), e.path)};
            }
            taken.insert(key, e.path);
            out.append({e.path, to, e});
            break;
        }
    }
    return out;
}

} // namespace tfsetup::core
