#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>

namespace tfsetup::core {

// The text at key in an object already checked against its shape; empty when absent.
inline QString textOf(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

// The texts of a JSON list (an item that is not text reads as empty); empty when not a list.
inline QStringList textsOf(const QJsonValue &value)
{
    QStringList out;
    for (const QJsonValue &v : value.toArray())
        out.append(v.toString());
    return out;
}

// A text as JSON, or null when it is empty: how reports write a field that is not known.
inline QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

// The shape of one input document: every field its reader takes, with its type and size. A
// document is checked against its shape once, before anything in it is used, so a reader never
// meets a list where it expects text ("files": {}), and a document that fails names the field.
//
//   const JsonShape shape = JsonShape::object({
//       JsonShape::required("schema", JsonShape::integer(1, 1)),
//       JsonShape::optional("files", JsonShape::list(fileShape, 100000)),
//   });
//   if (auto problem = shape.check(json)) …  // {"files[3].sha256", "must be text"}
//
// Fields a shape does not name are ignored (newer writers may add some); every field it names
// must have its type when present.
class JsonShape {
    Q_DECLARE_TR_FUNCTIONS(JsonShape)
public:
    struct Field;
    struct Problem {
        QString field;   // "artifacts[2].name"; empty for the document itself
        QString problem; // translated: "must be text", "is missing", …
    };
    // Returns a translated problem, or an empty string when the value is acceptable.
    using Check = std::function<QString(const QJsonValue &)>;

    static JsonShape text(qsizetype maxLength = 4096);
    static JsonShape flag();
    static JsonShape integer(qint64 min, qint64 max);
    static JsonShape number();
    static JsonShape list(const JsonShape &item, qsizetype maxItems);
    static JsonShape object(std::initializer_list<Field> fields, qsizetype maxFields = 1000);
    // An object whose keys are data (a manifest's components): every value has this shape.
    static JsonShape map(const JsonShape &value, qsizetype maxFields);
    // The first alternative whose type matches decides ("size": a number or a numeric string).
    static JsonShape anyOf(std::initializer_list<JsonShape> alternatives);
    static JsonShape anything();

    static Field required(const QString &name, const JsonShape &shape);
    static Field optional(const QString &name, const JsonShape &shape);

    // null is also accepted.
    JsonShape nullable() const;
    // A further condition on a value of the right type (a safe name, a known version).
    JsonShape where(Check check) const;

    std::optional<Problem> check(const QJsonValue &value) const;

    // The error a reader returns: "<document>: the field "<field>" <problem>. <advice>".
    static Error error(const QString &code, const QString &document, const Problem &problem, const QString &advice);

    struct Data; // opaque

private:
    explicit JsonShape(std::shared_ptr<const Data> data)
        : m_data(std::move(data))
    {}

    std::shared_ptr<const Data> m_data;
    std::optional<Problem> check(const QJsonValue &value, const QString &path) const;
};

struct JsonShape::Field {
    QString name;
    JsonShape shape;
    bool required = false;
};

} // namespace tfsetup::core
