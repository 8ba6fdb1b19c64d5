#include "catalog/tflogrules.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::Literals::StringLiterals;

namespace tfsetup::core {
namespace {

QRegularExpression compile(const QString &pattern)
{
    QRegularExpression re(pattern);
    re.optimize();
    return re;
}

} // namespace

Result<TfLogRules> TfLogRules::load(const QString &path, const CauseRegistry &causes)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{u"tflog_unreadable"_s,
                     tr("The list of TensorFlow log messages (%1) cannot be read. Reinstall tfsetup.").arg(path),
                     f.errorString()};
    }
    return fromJson(f.read(4 * 1024 * 1024), causes);
}

Result<TfLogRules> TfLogRules::fromJson(const QByteArray &json, const CauseRegistry &causes)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    const Error malformed{
        u"tflog_malformed"_s, tr("The list of TensorFlow log messages is damaged. Reinstall tfsetup."), {}};
    if (!doc.isObject())
        return Error{malformed.code, malformed.message, parseError.errorString()};
    TfLogRules reader;
    for (const QJsonValue &value : doc.object().value(u"rules"_s).toArray()) {
        const QJsonObject o = value.toObject();
        TfLogRule rule;
        rule.id = o.value(u"id"_s).toString();
        rule.pattern = compile(o.value(u"pattern"_s).toString());
        rule.cause = o.value(u"cause"_s).toString();
        rule.variant = o.value(u"variant"_s).toString();
        const auto severity = severityFromName(o.value(u"severity"_s).toString());
        rule.cpuOnlyCause = o.value(u"cpu_only"_s).toString();
        rule.explain = o.value(u"explain"_s).toString();
        rule.summaryOnly = o.value(u"summary_only"_s).toBool();
        for (const QJsonValue &c : o.value(u"folds_into"_s).toArray())
            rule.foldsInto.append(c.toString());
        if (o.contains(u"needs_in_log"_s))
            rule.needsInLog = compile(o.value(u"needs_in_log"_s).toString());
        rule.source = o.value(u"source"_s).toString();
        rule.harmlessWithoutGpu = o.value(u"harmless_without_gpu"_s).toBool();
        rule.missingWhenUnknown = o.value(u"missing_when_unknown"_s).toBool();
        QStringList causesNamed{rule.cause};
        if (!rule.cpuOnlyCause.isEmpty())
            causesNamed.append(rule.cpuOnlyCause);
        causesNamed.append(rule.foldsInto);
        for (const QJsonValue &lc : o.value(u"library_causes"_s).toArray()) {
            const QJsonObject l = lc.toObject();
            rule.libraryCauses.append({compile(l.value(u"match"_s).toString()), l.value(u"cause"_s).toString()});
            causesNamed.append(l.value(u"cause"_s).toString());
        }
        if (rule.id.isEmpty() || rule.cause.isEmpty() || !severity || !rule.pattern.isValid()
            || rule.pattern.pattern().isEmpty() || rule.source.isEmpty() || !rule.needsInLog.isValid()
            || (o.contains(u"needs_in_log"_s) && rule.needsInLog.pattern().isEmpty())) {
            return Error{malformed.code, malformed.message,
                         u"rule \"%1\": needs id, cause, severity, source and a valid pattern (%2)"_s.arg(
                             rule.id, rule.pattern.errorString())};
        }
        for (const QString &c : causesNamed) {
            if (!causes.contains(c)) {
                return Error{malformed.code, malformed.message,
                             u"rule \"%1\": the cause \"%2\" is not in the cause registry"_s.arg(rule.id, c)};
            }
        }
        rule.severity = rule.cause == u"harmless" ? Severity::Info : *severity;
        reader.m_rules.append(std::move(rule));
    }
    if (reader.m_rules.isEmpty())
        return Error{malformed.code, malformed.message, u"no rules"_s};
    return reader;
}

const TfLogRule *TfLogRules::match(const QString &line) const
{
    for (const TfLogRule &rule : m_rules) {
        if (rule.pattern.match(line).hasMatch())
            return &rule;
    }
    return nullptr;
}

} // namespace tfsetup::core
