#include "catalog/placementrules.h"

#include "util/names.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>

namespace tfsetup::core {

QRegularExpression PlacementRules::globPattern(const QString &glob, bool caseSensitive)
{
    QString rx = QStringLiteral("^");
    for (qsizetype i = 0; i < glob.size(); ++i) {
        const QChar c = glob.at(i);
        if (c == u'*' && i + 1 < glob.size() && glob.at(i + 1) == u'*') {
            rx += QStringLiteral(".*");
            ++i;
        } else if (c == u'*') {
            rx += QStringLiteral("[^/]*");
        } else if (c == u'?') {
            rx += QStringLiteral("[^/]");
        } else {
            rx += QRegularExpression::escape(QString(c));
        }
    }
    rx += u'$';
    return QRegularExpression(
        rx, caseSensitive ? QRegularExpression::NoPatternOption : QRegularExpression::CaseInsensitiveOption);
}

Result<PlacementRules> PlacementRules::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{QStringLiteral("placement_missing"),
                     tr("The placement rules %1 cannot be read. Reinstall tfsetup.").arg(path), f.errorString()};
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (!doc.isObject()) {
        return Error{QStringLiteral("placement_malformed"),
                     tr("The placement rules %1 are damaged. Reinstall tfsetup.").arg(path), error.errorString()};
    }
    return fromJson(doc.object());
}

Result<PlacementRules> PlacementRules::fromJson(const QJsonObject &json)
{
    PlacementRules rules;
    auto malformed = [](const QString &detail) {
        return Error{QStringLiteral("placement_malformed"), tr("The placement rules are damaged. Reinstall tfsetup."),
                     detail};
    };
    for (const QJsonValue &value : json.value(QStringLiteral("layouts")).toArray()) {
        const QJsonObject o = value.toObject();
        PlacementLayout layout;
        const auto os = osFamilyFromName(o.value(QStringLiteral("os")).toString());
        if (!os)
            return malformed(QStringLiteral("layout without a known os"));
        layout.os = *os;
        for (const QJsonValue &r : o.value(QStringLiteral("route")).toArray())
            layout.routes.append(r.toString());
        layout.source = o.value(QStringLiteral("source")).toString();
        if (layout.source.isEmpty() || layout.routes.isEmpty())
            return malformed(QStringLiteral("layout without source or route"));
        for (const QJsonValue &r : o.value(QStringLiteral("rules")).toArray()) {
            const QJsonObject ro = r.toObject();
            PlacementRule rule;
            rule.from = ro.value(QStringLiteral("from")).toString();
            rule.to = ro.value(QStringLiteral("to")).toString();
            if (rule.from.isEmpty() || rule.to.isEmpty() || rule.to.contains(QStringLiteral("..")))
                return malformed(QStringLiteral("rule without from/to: %1").arg(rule.from));
            for (const QJsonValue &m : ro.value(QStringLiteral("cudnnMajors")).toArray())
                rule.cudnnMajors.append(m.toInt());
            rule.pattern = globPattern(rule.from, layout.os != OsFamily::Windows);
            const QStringList parts = rule.from.split(u'/');
            QStringList base;
            for (const QString &p : parts) {
                if (p.contains(u'*') || p.contains(u'?') || &p == &parts.last())
                    break;
                base.append(p);
            }
            rule.base = base.join(u'/');
            layout.rules.append(rule);
        }
        rules.m_layouts.append(layout);
    }
    for (const QJsonValue &value : json.value(QStringLiteral("completeSets")).toArray()) {
        const QJsonObject o = value.toObject();
        CompleteSet set;
        const auto os = osFamilyFromName(o.value(QStringLiteral("os")).toString());
        if (!os)
            return malformed(QStringLiteral("complete set without a known os"));
        set.os = *os;
        set.cudnnMajor = o.value(QStringLiteral("cudnnMajor")).toInt();
        for (const QJsonValue &f : o.value(QStringLiteral("files")).toArray())
            set.files.append(f.toString());
        set.source = o.value(QStringLiteral("source")).toString();
        if (set.source.isEmpty() || set.files.isEmpty())
            return malformed(QStringLiteral("complete set without files or source"));
        rules.m_sets.append(set);
    }
    if (rules.m_layouts.isEmpty())
        return malformed(QStringLiteral("no layouts"));
    return rules;
}

const PlacementLayout *PlacementRules::layout(OsFamily os, const QString &route) const
{
    for (const PlacementLayout &l : m_layouts) {
        if (l.os == os && l.routes.contains(route))
            return &l;
    }
    return nullptr;
}

QStringList PlacementRules::missingFromSet(OsFamily os, int cudnnMajor, const QStringList &placedFileNames) const
{
    const Qt::CaseSensitivity cs = os == OsFamily::Windows ? Qt::CaseInsensitive : Qt::CaseSensitive;
    for (const CompleteSet &set : m_sets) {
        if (set.os != os || set.cudnnMajor != cudnnMajor)
            continue;
        QStringList missing;
        for (const QString &f : set.files) {
            if (!placedFileNames.contains(f, cs))
                missing.append(f);
        }
        return missing;
    }
    return {};
}

} // namespace tfsetup::core
