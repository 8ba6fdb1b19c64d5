#pragma once

#include "catalog/finding.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace tfsetup::core {

// The named parameters of a cause's texts and actions: "library" → "cudart64_110.dll".
using CauseParams = QHash<QString, QString>;

// One text of a cause: the English source (translated through the program's translations, in
// the context "tfsetup::core::Doctor") and the parameters that fill its %1, %2, … in order.
struct CauseText {
    QString source;
    QStringList args;

    bool isEmpty() const { return source.isEmpty(); }
};

struct CauseVariant {
    CauseText summary;
    CauseText fix;
};

// One cause of resources/catalog/causes.json: what the doctor says about it wherever it was
// found (the system scan or a log), and what a repair can do.
struct Cause {
    QString code;
    Severity severity = Severity::Error;
    QHash<QString, CauseVariant> variants; // "default" always present
    QList<QJsonObject> actions;            // templates: values "{name}" are parameters
    QString source;
};

// The one registry of causes, shared by the system scan and the log reader, so a cause reads the
// same wherever it is found. Loaded from data; every text is also listed in causetexts.cpp so
// the translation tools see it.
class CauseRegistry {
    Q_DECLARE_TR_FUNCTIONS(CauseRegistry)

public:
    static Result<CauseRegistry> load(const QString &path = QStringLiteral(":/resources/catalog/causes.json"));
    static Result<CauseRegistry> fromJson(const QByteArray &json);

    const Cause *find(const QString &code) const;
    const QList<Cause> &causes() const { return m_causes; }
    bool contains(const QString &code) const { return find(code) != nullptr; }

    // The variant's text (the default's when the variant has none), with parameters filled in;
    // a parameter that was not given is left as "?" so a gap shows instead of a wrong word.
    DoctorText summary(const QString &code, const QString &variant = {}, const CauseParams &params = {}) const;
    DoctorText fix(const QString &code, const QString &variant = {}, const CauseParams &params = {}) const;
    // The cause's actions with parameters filled in; a field whose parameter is missing is left
    // out, and an action is left out when the parameter it "needs" is missing.
    QList<DoctorAction> actions(const QString &code, const CauseParams &params = {}) const;
    Severity severity(const QString &code) const;

    // A finding with cause, default severity, summary, fix and actions from the registry.
    DoctorFinding finding(const QString &code, const QString &variant = {}, const CauseParams &params = {}) const;

private:
    const CauseVariant *variantOf(const QString &code, const QString &variant) const;

    QList<Cause> m_causes;
    QHash<QString, qsizetype> m_index;
};

} // namespace tfsetup::core
