#include "catalog/finding.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

namespace tfsetup::core {

namespace {

// One pass over the text: each %N marker (N from 1 to the number of arguments; of "%10" with
// fewer than ten arguments, "%1" is the marker) becomes its argument, which is copied, never
// searched again, so an argument that itself contains "%2" (a Windows path with an environment
// variable) or any other text stays as it is.
QString fillArguments(const QString &text, const QStringList &arguments)
{
    static const QRegularExpression marker(QStringLiteral("%(\\d+)"));
    QString out;
    qsizetype copied = 0;
    for (auto match = marker.globalMatch(text); match.hasNext();) {
        const QRegularExpressionMatch m = match.next();
        const QStringView digits = m.capturedView(1);
        qsizetype used = std::min<qsizetype>(digits.size(), 3);
        while (used > 0 && (digits.first(used).toInt() < 1 || digits.first(used).toInt() > arguments.size()))
            --used;
        if (used == 0)
            continue;
        out += QStringView(text).sliced(copied, m.capturedStart() - copied);
        out += arguments.at(digits.first(used).toInt() - 1);
        copied = m.capturedStart() + 1 + used;
    }
    out += QStringView(text).sliced(copied);
    return out;
}

} // namespace

DoctorText doctorText(const char *source, const QStringList &arguments)
{
    return {fillArguments(QCoreApplication::translate("tfsetup::core::Doctor", source), arguments),
            fillArguments(QString::fromUtf8(source), arguments)};
}

QString severityName(Severity severity)
{
    switch (severity) {
    case Severity::Error: return QStringLiteral("error");
    case Severity::Warning: return QStringLiteral("warning");
    case Severity::Info: break;
    }
    return QStringLiteral("info");
}

std::optional<Severity> severityFromName(const QString &name)
{
    if (name == u"error")
        return Severity::Error;
    if (name == u"warning")
        return Severity::Warning;
    if (name == u"info")
        return Severity::Info;
    return std::nullopt;
}

QJsonObject DoctorAction::toJson() const
{
    QJsonObject o = params;
    o.insert(QStringLiteral("type"), type);
    return o;
}

QJsonObject DoctorFinding::toJson() const
{
    QJsonArray actionArray;
    for (const DoctorAction &a : actions)
        actionArray.append(a.toJson());
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("severity"), severityName(severity)},
        {QStringLiteral("cause"), cause},
        {QStringLiteral("summary"), summary.translated},
        {QStringLiteral("fix"), fix.translated},
        {QStringLiteral("evidence"), QJsonArray::fromStringList(evidence)},
        {QStringLiteral("actions"), actionArray},
        {QStringLiteral("en"),
         QJsonObject{{QStringLiteral("summary"), summary.english}, {QStringLiteral("fix"), fix.english}}},
    };
}

void sortFindings(QList<DoctorFinding> &findings)
{
    std::stable_sort(findings.begin(), findings.end(),
                     [](const DoctorFinding &a, const DoctorFinding &b) { return int(a.severity) > int(b.severity); });
}

} // namespace tfsetup::core
