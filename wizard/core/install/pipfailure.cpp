#include "install/pipfailure.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace tfsetup::core {

namespace {

constexpr qint64 maxDataBytes = 1024 * 1024;

struct CauseName {
    PipCause cause;
    const char16_t *name;
};

constexpr CauseName causeNames[] = {
    {PipCause::ProxyRefused, u"proxy_refused"},
    {PipCause::ProxyAuth, u"proxy_auth"},
    {PipCause::NameNotResolved, u"name_not_resolved"},
    {PipCause::ConnectionFailed, u"connection_failed"},
    {PipCause::Timeout, u"timeout"},
    {PipCause::Tls, u"tls"},
    {PipCause::IndexMissing, u"index_missing"},
    {PipCause::NoWheel, u"no_wheel"},
    {PipCause::HashMismatch, u"hash_mismatch"},
    {PipCause::DiskFull, u"disk_full"},
    {PipCause::PermissionDenied, u"permission_denied"},
    {PipCause::Unknown, u"unknown"},
};

std::optional<PipCause> causeFromName(const QString &name)
{
    for (const CauseName &c : causeNames) {
        if (name == QStringView(c.name))
            return c.cause;
    }
    return std::nullopt;
}

std::optional<PipFix> fixFromName(const QString &name)
{
    static const QHash<QString, PipFix> fixes{
        {u"set_proxy"_s, PipFix::SetProxy},         {u"choose_mirror"_s, PipFix::ChooseMirror},
        {u"use_bundle"_s, PipFix::UseBundle},       {u"choose_plan"_s, PipFix::ChoosePlan},
        {u"choose_folder"_s, PipFix::ChooseFolder}, {u"try_again"_s, PipFix::TryAgain},
        {u"open_log"_s, PipFix::OpenLog},
    };
    const auto it = fixes.constFind(name);
    return it == fixes.cend() ? std::nullopt : std::optional<PipFix>(*it);
}

// The whole line a match lies in, "ERROR: " and all: evidence reads as pip printed it.
QString lineAt(const QString &output, qsizetype position)
{
    const qsizetype start = output.lastIndexOf(u'\n', position) + 1;
    qsizetype end = output.indexOf(u'\n', position);
    if (end < 0)
        end = output.size();
    return output.mid(start, end - start).trimmed();
}

// The server pip was talking to: urllib3's "host='…'", a fetched URL, or the index pip names.
QString hostIn(const QString &output)
{
    static const QRegularExpression patterns[] = {
        QRegularExpression(u"host='([^']+)'"_s),
        QRegularExpression(u"Could not fetch URL https?://([^/:\\s]+)"_s),
        QRegularExpression(u"Connection to (\\S+) timed out"_s),
        QRegularExpression(u"(?:Looking in indexes|Looking in links): https?://(?:[^@/\\s]*@)?([^/:,\\s]+)"_s),
        QRegularExpression(u"while getting https?://([^/:\\s]+)"_s),
    };
    for (const QRegularExpression &p : patterns) {
        if (const auto m = p.match(output); m.hasMatch())
            return m.captured(1);
    }
    return {};
}

} // namespace

QString PipFailureReader::causeName(PipCause cause)
{
    for (const CauseName &c : causeNames) {
        if (c.cause == cause)
            return QString::fromUtf16(c.name);
    }
    return u"unknown"_s;
}

QString PipFailureReader::fixLabel(PipFix fix)
{
    // Mnemonics: none of the wizard's own (B, N, I, F, H) nor the Install page's (S, T, D).
    switch (fix) {
    case PipFix::SetProxy: return tr("Set a &proxy…");
    case PipFix::ChooseMirror: return tr("Choose a &mirror…");
    case PipFix::UseBundle: return tr("Use an offline b&undle…");
    case PipFix::ChoosePlan: return tr("Choose another &version…");
    case PipFix::ChooseFolder: return tr("Choose another f&older…");
    case PipFix::TryAgain: return tr("&Try again");
    case PipFix::OpenLog: return tr("Open the &log");
    }
    return {};
}

Result<PipFailureReader> PipFailureReader::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{u"pipfailures_missing"_s, tr("The list of pip's failure messages is missing. Reinstall tfsetup."),
                     path + u": "_s + f.errorString()};
    }
    return fromJson(f.read(maxDataBytes));
}

Result<PipFailureReader> PipFailureReader::fromJson(const QByteArray &json)
{
    const Error malformed{
        u"pipfailures_malformed"_s, tr("The list of pip's failure messages is damaged. Reinstall tfsetup."), {}};
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isObject())
        return Error{malformed.code, malformed.message, parseError.errorString()};
    const QJsonObject root = doc.object();
    PipFailureReader reader;
    const QJsonObject causes = root.value(u"causes"_s).toObject();
    for (const CauseName &c : causeNames) {
        const QJsonObject o = causes.value(QString::fromUtf16(c.name)).toObject();
        const auto fix = fixFromName(o.value(u"fix"_s).toString());
        if (!fix || o.value(u"source"_s).toString().isEmpty()) {
            return Error{malformed.code, malformed.message,
                         u"cause \"%1\": needs a known fix and a source"_s.arg(QString::fromUtf16(c.name))};
        }
        reader.m_fixes.insert(c.cause, *fix);
    }
    const QJsonObject codes = root.value(u"codes"_s).toObject();
    for (auto it = codes.constBegin(); it != codes.constEnd(); ++it) {
        const auto cause = causeFromName(it.value().toString());
        if (!cause)
            return Error{malformed.code, malformed.message, u"code \"%1\": unknown cause"_s.arg(it.key())};
        reader.m_codes.insert(it.key(), *cause);
    }
    for (const QJsonValue &value : root.value(u"rules"_s).toArray()) {
        const QJsonObject o = value.toObject();
        Rule rule;
        rule.id = o.value(u"id"_s).toString();
        rule.pattern = QRegularExpression(o.value(u"pattern"_s).toString());
        const auto cause = causeFromName(o.value(u"cause"_s).toString());
        const QString example = o.value(u"example"_s).toString();
        if (rule.id.isEmpty() || !cause || rule.pattern.pattern().isEmpty() || !rule.pattern.isValid()
            || o.value(u"source"_s).toString().isEmpty()) {
            return Error{malformed.code, malformed.message,
                         u"rule \"%1\": needs id, a known cause, a source and a valid pattern (%2)"_s.arg(
                             rule.id, rule.pattern.errorString())};
        }
        // Each rule's own example is what it was written for: one that no longer matches it is a
        // broken edit, found when the data loads rather than by a student.
        if (example.isEmpty() || !rule.pattern.match(example).hasMatch())
            return Error{malformed.code, malformed.message, u"rule \"%1\": its example does not match"_s.arg(rule.id)};
        rule.cause = *cause;
        reader.m_rules.append(std::move(rule));
    }
    if (reader.m_rules.isEmpty())
        return Error{malformed.code, malformed.message, u"no rules"_s};
    return reader;
}

const PipFailureReader &PipFailureReader::builtin()
{
    static const PipFailureReader reader = [] {
        auto loaded = load();
        if (!loaded)
            qFatal("%s: %s", qPrintable(loaded.error().message), qPrintable(loaded.error().detail));
        return *loaded;
    }();
    return reader;
}

PipFailure PipFailureReader::read(const QString &output, const PipFailureContext &context) const
{
    for (const Rule &rule : m_rules) {
        const QRegularExpressionMatch m = rule.pattern.match(output);
        if (!m.hasMatch())
            continue;
        PipFailure failure = make(rule.cause, output, context);
        failure.rule = rule.id;
        failure.evidence = lineAt(output, m.capturedStart());
        return failure;
    }
    return make(PipCause::Unknown, output, context);
}

PipFailure PipFailureReader::read(const Error &error, const PipFailureContext &context) const
{
    // tfsetup's own code first: pip reaches the index through tfsetup's bridge (setup/indexbridge.h),
    // so a refused proxy or a missing name shows in pip's output only as the bridge's answer.
    const auto it = m_codes.constFind(error.code);
    if (it == m_codes.cend())
        return read(error.detail, context);
    PipFailure failure = make(*it, error.detail, context);
    // The line that says it, when pip's output has one for the same cause.
    const PipFailure byOutput = read(error.detail, context);
    if (byOutput.cause == failure.cause) {
        failure.rule = byOutput.rule;
        failure.evidence = byOutput.evidence;
    }
    return failure;
}

PipFailure PipFailureReader::make(PipCause cause, const QString &output, const PipFailureContext &context) const
{
    PipFailure f;
    f.cause = cause;
    f.code = causeName(cause);
    f.fix = m_fixes.value(cause, PipFix::OpenLog);
    f.host = hostIn(output);
    const QString server = f.host.isEmpty() ? tr("the package index") : f.host;
    const QString serverAtStart = f.host.isEmpty() ? tr("The package index") : f.host;
    switch (cause) {
    case PipCause::ProxyRefused:
        f.message = tr("pip could not get through the proxy: the proxy refused the connection or could not be "
                       "reached. Check the proxy address (host and port) on the Options page, or leave it empty if "
                       "this network needs none.");
        break;
    case PipCause::ProxyAuth:
        f.message = tr("The proxy asks for a user name and password (407), so pip was turned away. Give them in the "
                       "proxy address on the Options page: http://user:password@proxy:port.");
        break;
    case PipCause::NameNotResolved:
        f.message = tr("The name %1 could not be found (no DNS answer): this computer is offline, the address is "
                       "mistyped, or this network only reaches outside through a proxy. Check the mirror address, or "
                       "choose another mirror.")
                        .arg(server);
        break;
    case PipCause::ConnectionFailed:
        f.message = tr("%1 refused the connection or could not be reached. Networks that only let traffic out "
                       "through a proxy do this: set the proxy your lab or company gives.")
                        .arg(serverAtStart);
        break;
    case PipCause::Timeout:
        f.message = tr("%1 did not answer in time. The network is slow or the server is blocked here: choose a "
                       "nearer mirror.")
                        .arg(serverAtStart);
        break;
    case PipCause::Tls:
        f.message = tr("The certificate of %1 could not be verified, so pip refused to use it. A lab or company "
                       "network that inspects encrypted traffic does this; so does a mirror with a broken "
                       "certificate. Choose another mirror, or ask for the network's proxy settings.")
                        .arg(server);
        break;
    case PipCause::IndexMissing:
        f.message = tr("%1 has no page for the package pip asked for (404 Not Found): the mirror address is wrong "
                       "or the mirror is incomplete. Check the address, or choose another mirror.")
                        .arg(serverAtStart);
        break;
    case PipCause::NoWheel: {
        static const QRegularExpression wanted(
            u"Could not find a version that satisfies the requirement (\\S+)(?: \\(from versions: ([^)]*)\\))?|"
            u"No matching distribution found for (\\S+)"_s);
        auto it = wanted.globalMatch(output);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            if (f.requirement.isEmpty())
                f.requirement = m.captured(1).isEmpty() ? m.captured(3) : m.captured(1);
            if (f.versions.isEmpty())
                f.versions = m.captured(2).trimmed();
        }
        const QString what = f.requirement.isEmpty() ? tr("the package") : f.requirement;
        const QString python = context.python.isEmpty() ? tr("this Python") : tr("Python %1").arg(context.python);
        const QString platform = context.platform.isEmpty() ? tr("this computer") : context.platform;
        // pip's "No matching distribution" reads as "that version does not exist"; what it means
        // is that no file fits this interpreter and platform.
        f.message = tr("%1 offers no wheel of %2 for %3 on %4. That does not mean the release does not exist: "
                       "it has no file built for this Python version and platform. Choose another TensorFlow or "
                       "Python version.")
                        .arg(serverAtStart, what, python, platform);
        break;
    }
    case PipCause::HashMismatch:
        f.message = tr("A downloaded file no longer matches the hash it was checked with, so it was refused. The "
                       "disk or another program changed it; try again to check and fetch it anew.");
        break;
    case PipCause::DiskFull:
        f.message = tr("The disk is full (or your disk quota is used up), so the environment could not be written. "
                       "Free some space, or choose a folder on another disk.");
        break;
    case PipCause::PermissionDenied:
        f.message = tr("The environment's folder may not be written to (permission denied). Choose a folder in "
                       "your own user folder.");
        break;
    case PipCause::Unknown:
        f.message = tr("pip stopped with an error this wizard does not recognise. The log has pip's own words.");
        break;
    }
    return f;
}

} // namespace tfsetup::core
