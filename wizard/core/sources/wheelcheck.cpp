#include "sources/wheelcheck.h"

#include "catalog/version.h"
#include "sources/pypi.h"
#include "sources/resolver.h"

#include "fetch/httpclient.h"

#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <memory>

namespace tfsetup::core {

namespace {

struct Fetched {
    QJsonObject document;
    QString problem; // untranslated detail when there is no document
};

QCoro::Task<Fetched> fetchJson(QUrl url, std::chrono::milliseconds timeout, TransferOptions transfer)
{
    const HttpClient client(std::move(transfer));
    HttpRequest request;
    request.url = url;
    request.accept = "application/json";
    request.maxBytes = WheelCheck::maxDocumentBytes;
    request.timeout = timeout;
    auto response = co_await client.get(std::move(request));
    if (!response) {
        const bool slow = response.error().code == u"timeout";
        co_return Fetched{{},
                          slow ? url.toString() + QStringLiteral(": no answer in time (") + response.error().detail
                                  + u')'
                               : response.error().detail};
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(response->body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        co_return Fetched{{}, url.toString() + QStringLiteral(": not a JSON API answer")};
    co_return Fetched{document.object(), {}};
}

QString osTitle(const QString &os)
{
    return os == u"windows" ? QStringLiteral("Windows") : QStringLiteral("Linux");
}

Artifact *wheelhouse(ArtifactList *list)
{
    for (Artifact &a : list->artifacts) {
        if (a.kind == u"wheelhouse")
            return &a;
    }
    return nullptr;
}

void addNote(ArtifactList *list, const QString &note)
{
    if (Artifact *a = wheelhouse(list))
        a->note = a->note.isEmpty() ? note : a->note + u'\n' + note;
}

} // namespace

std::optional<WheelQuery> WheelQuery::fromRequirement(const QString &requirement)
{
    // PEP 508 name, optional extras, one "==" specifier with an optional ".*" (PEP 440).
    static const QRegularExpression pattern(QStringLiteral(
        R"(^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*==\s*(\d+(?:\.\d+)*)(\.\*)?\s*$)"));
    const QRegularExpressionMatch m = pattern.match(requirement);
    if (!m.hasMatch())
        return std::nullopt;
    WheelQuery q;
    static const QRegularExpression separators(QStringLiteral("[-_.]+"));
    q.project = m.captured(1).toLower().replace(separators, QStringLiteral("-"));
    if (m.captured(3).isEmpty())
        q.version = m.captured(2);
    else
        q.prefix = m.captured(2);
    return q;
}

QUrl WheelCheck::jsonBase(const QUrl &pypiOrigin)
{
    QString base = pypiOrigin.toString();
    while (base.endsWith(u'/'))
        base.chop(1);
    if (base.endsWith(QStringLiteral("/simple")))
        base.chop(7);
    return QUrl(base + QStringLiteral("/pypi"));
}

QCoro::Task<> WheelCheck::run(ResolveRequest request, WheelCheckOptions options, ArtifactList *list)
{
    if (request.python.isEmpty() || !wheelhouse(list))
        co_return;
    for (const QString &origin : {QStringLiteral("nvidia"), QStringLiteral("python"), QStringLiteral("pypi")}) {
        for (const Mirror &m : options.mirrors.forOrigin(origin)) {
            if (m.isLocal())
                co_return; // an offline bundle or a folder share: no network is assumed
        }
    }
    const QString python = version::majorMinor(request.python);
    const QString requirement = wheelhouse(list)->requirement;
    const auto query = WheelQuery::fromRequirement(requirement);
    if (!query) {
        addNote(list,
                tr("Whether PyPI has a wheel of %1 for Python %2 was not checked: tfsetup reads only "
                   "\"name==version\" requirements.")
                    .arg(requirement, python));
        co_return;
    }
    QUrl base = WheelCheck::jsonBase(options.pypiOrigin);
    for (const auto &[origin, url] : options.originOverrides) {
        if (origin == u"pypi-json")
            base = QUrl(url.toString(QUrl::StripTrailingSlash));
    }
    const QUrl url(query->version.isEmpty()
                       ? QStringLiteral("%1/%2/json").arg(base.toString(), query->project)
                       : QStringLiteral("%1/%2/%3/json").arg(base.toString(), query->project, query->version));
    const std::chrono::milliseconds timeout = std::min(options.timeout, WheelCheckOptions::maxTimeout);
    auto fetch = fetchJson(url, timeout, options.transfer);
    const Fetched fetched = co_await fetch;
    if (fetched.document.isEmpty()) {
        addNote(list,
                tr("Whether PyPI has a wheel of %1 for Python %2 on %3 was not checked (%4); pip will tell "
                   "when it installs.")
                    .arg(requirement, python, osTitle(request.os), fetched.problem));
        co_return;
    }

    QString release = query->version;
    QJsonObject releaseJson = fetched.document;
    if (release.isEmpty()) {
        release = newestRelease(fetched.document, query->prefix);
        if (release.isEmpty()) {
            list->warnings.append(Finding{QStringLiteral("no_wheel"),
                                          tr("PyPI has no release of %1 matching %2, so pip cannot install it. "
                                             "Choose another TensorFlow version or check the plan.")
                                              .arg(query->project, requirement)});
            co_return;
        }
        releaseJson = releaseOf(fetched.document, release);
    }
    if (const WheelAvailability available = wheelsFor(releaseJson, python, request.os); available.any()) {
        // The TensorFlow wheel pip will fetch, as PyPI lists it: the Download page's estimate of
        // pip's share (its dependencies come on top).
        if (Artifact *a = wheelhouse(list); a && a->size < 0) {
            for (const PypiFile &file : available.matching)
                a->size = std::max(a->size, file.size);
        }
        co_return;
    }
    const QStringList pythons = wheelPythons(releaseJson, request.os);
    if (pythons.isEmpty()) {
        list->warnings.append(Finding{QStringLiteral("no_wheel"),
                                      tr("%1 %2 has no wheel for %3 at all, so pip cannot install it there. Choose "
                                         "another TensorFlow version or route.")
                                          .arg(query->project, release, osTitle(request.os))});
        co_return;
    }
    list->warnings.append(Finding{QStringLiteral("no_wheel"),
                                  tr("%1 %2 has no wheel for Python %3 on %4; its %4 wheels are for Python %5. "
                                     "Choose Python %6.")
                                      .arg(query->project, release, python, osTitle(request.os),
                                           pythons.join(QStringLiteral(", ")), pythons.last())});
}

} // namespace tfsetup::core
