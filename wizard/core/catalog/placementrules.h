#pragma once

#include "system/systemview.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// Placement rules (resources/catalog/placement.json): which files of an extracted NVIDIA archive
// go where inside an environment, per OS, route and cuDNN major version, and which cuDNN files
// must arrive together.

struct PlacementRule {
    QString from;           // glob relative to the archive's content: "bin/*.dll", "include/**"
    QString to;             // folder relative to the environment: "cuda/bin", "licenses/{component}"
    QList<int> cudnnMajors; // empty = any
    QRegularExpression pattern;
    QString base; // the literal folder part of `from` ("include"), stripped from placed paths
};

struct PlacementLayout {
    OsFamily os = OsFamily::Linux;
    QStringList routes;
    QList<PlacementRule> rules;
    QString source;
};

struct CompleteSet {
    OsFamily os = OsFamily::Linux;
    int cudnnMajor = 0;
    QStringList files;
    QString source;
};

class PlacementRules final {
    Q_DECLARE_TR_FUNCTIONS(PlacementRules)
public:
    static Result<PlacementRules> load(const QString &path = QStringLiteral(":/resources/catalog/placement.json"));
    static Result<PlacementRules> fromJson(const QJsonObject &json);

    const QList<PlacementLayout> &layouts() const { return m_layouts; }
    const QList<CompleteSet> &completeSets() const { return m_sets; }
    const PlacementLayout *layout(OsFamily os, const QString &route) const;

    // Checks that every file of the cuDNN set for (os, major) is among the placed names.
    // Returns the missing names (empty: complete, or no set known for that major).
    QStringList missingFromSet(OsFamily os, int cudnnMajor, const QStringList &placedFileNames) const;

    // Glob to regular expression: "**" any depth, "*" and "?" within one name.
    static QRegularExpression globPattern(const QString &glob, bool caseSensitive);

private:
    QList<PlacementLayout> m_layouts;
    QList<CompleteSet> m_sets;
};

} // namespace tfsetup::core
