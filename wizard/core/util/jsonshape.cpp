#include "util/jsonshape.h"

#include <QJsonArray>
#include <QJsonObject>

#include <limits>

namespace tfsetup::core {

struct JsonShape::Data {
    enum class Kind { Anything, Text, Flag, Integer, Number, List, Object, Map, AnyOf };
    Kind kind = Kind::Anything;
    qsizetype maxSize = 0; // characters, items or fields
    qint64 min = 0;
    qint64 max = 0;
    bool nullable = false;
    QList<Field> fields;
    QList<JsonShape> children; // the item / value shape, or the alternatives
    QList<Check> checks;
};

static std::shared_ptr<JsonShape::Data> newData()
{
    return std::make_shared<JsonShape::Data>();
}

JsonShape JsonShape::anything()
{
    return JsonShape(newData());
}

JsonShape JsonShape::text(qsizetype maxLength)
{
    auto d = newData();
    d->kind = Data::Kind::Text;
    d->maxSize = maxLength;
    return JsonShape(std::move(d));
}

JsonShape JsonShape::flag()
{
    auto d = newData();
    d->kind = Data::Kind::Flag;
    return JsonShape(std::move(d));
}

JsonShape JsonShape::integer(qint64 min, qint64 max)
{
    auto d = newData();
    d->kind = Data::Kind::Integer;
    d->min = min;
    d->max = max;
    return JsonShape(std::move(d));
}

JsonShape JsonShape::number()
{
    auto d = newData();
    d->kind = Data::Kind::Number;
    return JsonShape(std::move(d));
}

JsonShape JsonShape::list(const JsonShape &item, qsizetype maxItems)
{
    auto d = newData();
    d->kind = Data::Kind::List;
    d->maxSize = maxItems;
    d->children = {item};
    return JsonShape(std::move(d));
}

JsonShape JsonShape::object(std::initializer_list<Field> fields, qsizetype maxFields)
{
    auto d = newData();
    d->kind = Data::Kind::Object;
    d->maxSize = maxFields;
    d->fields = QList<Field>(fields);
    return JsonShape(std::move(d));
}

JsonShape JsonShape::map(const JsonShape &value, qsizetype maxFields)
{
    auto d = newData();
    d->kind = Data::Kind::Map;
    d->maxSize = maxFields;
    d->children = {value};
    return JsonShape(std::move(d));
}

JsonShape JsonShape::anyOf(std::initializer_list<JsonShape> alternatives)
{
    auto d = newData();
    d->kind = Data::Kind::AnyOf;
    d->children = QList<JsonShape>(alternatives);
    return JsonShape(std::move(d));
}

JsonShape::Field JsonShape::required(const QString &name, const JsonShape &shape)
{
    return Field{name, shape, true};
}

JsonShape::Field JsonShape::optional(const QString &name, const JsonShape &shape)
{
    return Field{name, shape, false};
}

JsonShape JsonShape::nullable() const
{
    auto d = std::make_shared<Data>(*m_data);
    d->nullable = true;
    return JsonShape(std::move(d));
}

JsonShape JsonShape::where(Check check) const
{
    auto d = std::make_shared<Data>(*m_data);
    d->checks.append(std::move(check));
    return JsonShape(std::move(d));
}

std::optional<JsonShape::Problem> JsonShape::check(const QJsonValue &value) const
{
    return check(value, QString());
}

std::optional<JsonShape::Problem> JsonShape::check(const QJsonValue &value, const QString &path) const
{
    const Data &d = *m_data;
    if (value.isNull() && d.nullable)
        return std::nullopt;
    auto fail = [&path](const QString &problem) { return std::optional<Problem>(Problem{path, problem}); };
    switch (d.kind) {
    case Data::Kind::Anything: break;
    case Data::Kind::Text:
        if (!value.isString())
            return fail(tr("must be text"));
        if (value.toString().size() > d.maxSize)
            return fail(tr("is longer than %1 characters").arg(d.maxSize));
        break;
    case Data::Kind::Flag:
        if (!value.isBool())
            return fail(tr("must be true or false"));
        break;
    case Data::Kind::Number:
        if (!value.isDouble())
            return fail(tr("must be a number"));
        break;
    case Data::Kind::Integer: {
        const qint64 n = value.toInteger(std::numeric_limits<qint64>::min());
        if (!value.isDouble() || n == std::numeric_limits<qint64>::min() || n < d.min || n > d.max)
            return fail(tr("must be a whole number from %1 to %2").arg(d.min).arg(d.max));
        break;
    }
    case Data::Kind::List: {
        if (!value.isArray())
            return fail(tr("must be a list"));
        const QJsonArray a = value.toArray();
        if (a.size() > d.maxSize)
            return fail(tr("has more than %1 entries").arg(d.maxSize));
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (auto p = d.children.constFirst().check(a.at(i), path + QStringLiteral("[%1]").arg(i)))
                return p;
        }
        break;
    }
    case Data::Kind::Object:
    case Data::Kind::Map: {
        if (!value.isObject())
            return fail(tr("must be an object"));
        const QJsonObject o = value.toObject();
        if (o.size() > d.maxSize)
            return fail(tr("has more than %1 entries").arg(d.maxSize));
        const QString prefix = path.isEmpty() ? QString() : path + u'.';
        if (d.kind == Data::Kind::Map) {
            for (auto it = o.begin(); it != o.end(); ++it) {
                if (auto p = d.children.constFirst().check(it.value(), prefix + it.key()))
                    return p;
            }
            break;
        }
        for (const Field &f : d.fields) {
            const QJsonValue v = o.value(f.name);
            if (v.isUndefined()) {
                if (f.required)
                    return Problem{prefix + f.name, tr("is missing")};
                continue;
            }
            if (auto p = f.shape.check(v, prefix + f.name))
                return p;
        }
        break;
    }
    case Data::Kind::AnyOf: {
        std::optional<Problem> first;
        for (const JsonShape &alternative : d.children) {
            auto p = alternative.check(value, path);
            if (!p)
                return std::nullopt;
            if (!first)
                first = p;
        }
        return first;
    }
    }
    for (const Check &c : d.checks) {
        if (const QString problem = c(value); !problem.isEmpty())
            return fail(problem);
    }
    return std::nullopt;
}

Error JsonShape::error(const QString &code, const QString &document, const Problem &problem, const QString &advice)
{
    const QString message = problem.field.isEmpty()
        ? tr("%1 cannot be used: it %2. %3").arg(document, problem.problem, advice)
        : tr("%1 cannot be used: its field \"%2\" %3. %4").arg(document, problem.field, problem.problem, advice);
    return Error{code, message, problem.field + u' ' + problem.problem};
}

} // namespace tfsetup::core
