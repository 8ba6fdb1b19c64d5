#include "doctor/finding.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <algorithm>

namespace tfsetup::core {

namespace {

// Every marker becomes a private token first, then the tokens become the arguments, so an argument
// that itself contains "%2" (a Windows path with an environment variable) is never re-substituted,
// and "%1" never eats the start of "%10".
QString fillArguments(QString text, const QStringList &arguments)
{
    for (qsizetype i = arguments.size(); i > 0; --i)
        text.replace(u'%' + QString::number(i), QStringLiteral("\x01%1\x02").arg(i));
    for (qsizetype i = 0; i < arguments.size(); ++i)
        text.replace(QStringLiteral("\x01%1\x02").arg(i + 1), arguments[i]);
    return text;
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
    case Severity::Error:
        return QStringLiteral("error");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Info:
        break;
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
        {QStringLiteral("en"), QJsonObject{{QStringLiteral("summary"), summary.english},
                                           {QStringLiteral("fix"), fix.english}}},
    };
}

void sortFindings(QList<DoctorFinding> &findings)
{
    std::stable_sort(findings.begin(), findings.end(),
                     [](const DoctorFinding &a, const DoctorFinding &b) { return int(a.severity) > int(b.severity); });
}

} // namespace tfsetup::core
