#include "catalog/causes.h"

#include "util/jsonshape.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace tfsetup::core {

namespace {

using namespace Qt::Literals::StringLiterals;

const QString defaultVariant = u"default"_s;

JsonShape textShape()
{
    return JsonShape::anyOf(
        {JsonShape::text(2000),
         JsonShape::object({JsonShape::required(u"text"_s, JsonShape::text(2000)),
                            JsonShape::optional(u"args"_s, JsonShape::list(JsonShape::text(64), 9))})});
}

JsonShape registryShape()
{
    const JsonShape variant = JsonShape::object(
        {JsonShape::optional(u"summary"_s, textShape()), JsonShape::optional(u"fix"_s, textShape())});
    const JsonShape cause = JsonShape::object({
        JsonShape::required(u"code"_s, JsonShape::text(64)),
        JsonShape::required(u"severity"_s, JsonShape::text(16)),
        JsonShape::required(u"texts"_s, JsonShape::map(variant, 64)),
        JsonShape::optional(u"actions"_s, JsonShape::list(JsonShape::map(JsonShape::text(256), 16), 16)),
        JsonShape::required(u"source"_s, JsonShape::text(4000)),
    });
    return JsonShape::object({JsonShape::required(u"schema"_s, JsonShape::integer(1, 1)),
                              JsonShape::required(u"causes"_s, JsonShape::list(cause, 500))});
}

CauseText textOf(const QJsonValue &value)
{
    if (value.isString())
        return {value.toString(), {}};
    const QJsonObject o = value.toObject();
    QStringList args;
    for (const QJsonValue &a : o.value(u"args"_s).toArray())
        args.append(a.toString());
    return {o.value(u"text"_s).toString(), args};
}

// The number of %N markers a text uses (the highest N).
int markers(const QString &text)
{
    static const QRegularExpression marker(u"%(\\d)"_s);
    int highest = 0;
    for (auto it = marker.globalMatch(text); it.hasNext();)
        highest = std::max(highest, it.next().captured(1).toInt());
    return highest;
}

DoctorText render(const CauseText &text, const CauseParams &params)
{
    QStringList arguments;
    for (const QString &name : text.args) {
        const QString value = params.value(name);
        arguments.append(value.isEmpty() ? u"?"_s : value);
    }
    const QByteArray source = text.source.toUtf8();
    return doctorText(source.constData(), arguments);
}

} // namespace

Result<CauseRegistry> CauseRegistry::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{u"causes_unreadable"_s,
                     tr("The list of causes the doctor knows (%1) cannot be read. Reinstall tfsetup.").arg(path),
                     f.errorString()};
    }
    return fromJson(f.read(4 * 1024 * 1024));
}

Result<CauseRegistry> CauseRegistry::fromJson(const QByteArray &json)
{
    const QString advice = tr("Reinstall tfsetup.");
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isObject()) {
        return Error{u"causes_malformed"_s, tr("The list of causes the doctor knows is damaged. Reinstall tfsetup."),
                     parseError.errorString()};
    }
    if (const auto problem = registryShape().check(doc.object()))
        return JsonShape::error(u"causes_malformed"_s, u"causes.json"_s, *problem, advice);

    CauseRegistry registry;
    const QJsonArray list = doc.object().value(u"causes"_s).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list[i].toObject();
        auto fail = [&](const QString &why) {
            return Error{u"causes_malformed"_s,
                         tr("The list of causes the doctor knows is damaged. Reinstall tfsetup."),
                         u"causes[%1] (%2): %3"_s.arg(i).arg(o.value(u"code"_s).toString(), why)};
        };
        Cause cause;
        cause.code = o.value(u"code"_s).toString();
        cause.source = o.value(u"source"_s).toString();
        const auto severity = severityFromName(o.value(u"severity"_s).toString());
        if (cause.code.isEmpty() || !severity)
            return fail(u"needs a code and a severity of error, warning or info"_s);
        if (registry.m_index.contains(cause.code))
            return fail(u"the code appears twice"_s);
        cause.severity = *severity;
        const QJsonObject texts = o.value(u"texts"_s).toObject();
        for (auto it = texts.begin(); it != texts.end(); ++it) {
            const QJsonObject v = it.value().toObject();
            CauseVariant variant{textOf(v.value(u"summary"_s)), textOf(v.value(u"fix"_s))};
            for (const CauseText *t : {&variant.summary, &variant.fix}) {
                if (markers(t->source) > t->args.size())
                    return fail(u"variant \"%1\" uses more %N markers than it names args"_s.arg(it.key()));
            }
            cause.variants.insert(it.key(), variant);
        }
        const auto def = cause.variants.constFind(defaultVariant);
        if (def == cause.variants.cend() || def->summary.isEmpty() || def->fix.isEmpty())
            return fail(u"needs a \"default\" variant with a summary and a fix"_s);
        for (const QJsonValue &a : o.value(u"actions"_s).toArray()) {
            if (a.toObject().value(u"type"_s).toString().isEmpty())
                return fail(u"an action without a type"_s);
            cause.actions.append(a.toObject());
        }
        registry.m_index.insert(cause.code, registry.m_causes.size());
        registry.m_causes.append(std::move(cause));
    }
    return registry;
}

const Cause *CauseRegistry::find(const QString &code) const
{
    const auto it = m_index.constFind(code);
    return it == m_index.cend() ? nullptr : &m_causes[*it];
}

const CauseVariant *CauseRegistry::variantOf(const QString &code, const QString &variant) const
{
    const Cause *cause = find(code);
    if (!cause)
        return nullptr;
    const auto it = cause->variants.constFind(variant.isEmpty() ? defaultVariant : variant);
    return it != cause->variants.cend() ? &*it : &*cause->variants.constFind(defaultVariant);
}

DoctorText CauseRegistry::summary(const QString &code, const QString &variant, const CauseParams &params) const
{
    const CauseVariant *v = variantOf(code, variant);
    if (!v)
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "TensorFlow reported a problem (%1)."), {code});
    return render(v->summary.isEmpty() ? variantOf(code, defaultVariant)->summary : v->summary, params);
}

DoctorText CauseRegistry::fix(const QString &code, const QString &variant, const CauseParams &params) const
{
    const CauseVariant *v = variantOf(code, variant);
    if (!v)
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Nothing to do."));
    return render(v->fix.isEmpty() ? variantOf(code, defaultVariant)->fix : v->fix, params);
}

QList<DoctorAction> CauseRegistry::actions(const QString &code, const CauseParams &params) const
{
    QList<DoctorAction> out;
    const Cause *cause = find(code);
    if (!cause)
        return out;
    static const QRegularExpression parameter(u"\\{(\\w+)\\}"_s);
    for (const QJsonObject &templ : cause->actions) {
        DoctorAction action{templ.value(u"type"_s).toString(), {}};
        // "needs": the parameter without which the action says nothing ("fetch_library" without a
        // library); other fields whose parameter is missing are left out.
        const QString needs = templ.value(u"needs"_s).toString();
        if (!needs.isEmpty() && params.value(needs).isEmpty())
            continue;
        for (auto it = templ.begin(); it != templ.end(); ++it) {
            if (it.key() == u"type" || it.key() == u"needs")
                continue;
            // One pass over the template: a parameter's value (text from a log) is copied, never
            // searched again for "{name}".
            const QString templateText = it.value().toString();
            QString value;
            bool missing = false;
            qsizetype copied = 0;
            for (auto match = parameter.globalMatch(templateText); match.hasNext();) {
                const QRegularExpressionMatch m = match.next();
                const QString filled = params.value(m.captured(1));
                missing = missing || filled.isEmpty();
                value += QStringView(templateText).sliced(copied, m.capturedStart() - copied);
                value += filled;
                copied = m.capturedEnd();
            }
            value += QStringView(templateText).sliced(copied);
            if (!missing)
                action.params.insert(it.key(), value);
        }
        out.append(std::move(action));
    }
    return out;
}

Severity CauseRegistry::severity(const QString &code) const
{
    const Cause *cause = find(code);
    return cause ? cause->severity : Severity::Info;
}

DoctorFinding CauseRegistry::finding(const QString &code, const QString &variant, const CauseParams &params) const
{
    DoctorFinding f;
    f.cause = code;
    f.severity = severity(code);
    f.summary = summary(code, variant, params);
    f.fix = fix(code, variant, params);
    f.actions = actions(code, params);
    return f;
}

} // namespace tfsetup::core
