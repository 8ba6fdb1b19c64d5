#include "support/testindex.h"

#include "install/launchers.h"
#include "support/files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QMutexLocker>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace tfsetup::test {

namespace {

const QByteArray jsonType = QByteArrayLiteral("application/vnd.pypi.simple.v1+json");
const QByteArray htmlType = QByteArrayLiteral("text/html; charset=utf-8");

// PEP 503 normalization.
QString normalizedProject(const QString &name)
{
    static const QRegularExpression runs(u"[-_.]+"_s);
    return QString(name).replace(runs, u"-"_s).toLower();
}

// The highest q the Accept header gives any of types; wildcards count only when allowed.
double acceptQuality(const QByteArray &accept, const QList<QByteArray> &types, bool wildcards)
{
    double best = 0;
    for (const QByteArray &item : accept.split(',')) {
        const QList<QByteArray> parts = item.split(';');
        const QByteArray range = parts.value(0).trimmed().toLower();
        double q = 1;
        for (qsizetype i = 1; i < parts.size(); ++i) {
            const QByteArray parameter = parts[i].trimmed();
            if (parameter.startsWith("q="))
                q = parameter.mid(2).toDouble();
        }
        const bool matches = types.contains(range)
            || (wildcards && (range == "*/*" || std::any_of(types.cbegin(), types.cend(), [&](const QByteArray &t) {
                                  return range.endsWith("/*") && t.startsWith(range.chopped(1));
                              })));
        if (matches)
            best = std::max(best, q);
    }
    return best;
}

// PEP 691: JSON only when asked for by name and not less wanted than HTML; "*/*" gets HTML.
bool wantsJson(const RecordedRequest &request)
{
    const QByteArray accept = request.header("Accept");
    const double json = acceptQuality(accept, {jsonType, QByteArrayLiteral("application/vnd.pypi.simple.latest+json")},
                                      false);
    const double html = acceptQuality(accept,
                                      {QByteArrayLiteral("text/html"),
                                       QByteArrayLiteral("application/vnd.pypi.simple.v1+html"),
                                       QByteArrayLiteral("application/vnd.pypi.simple.latest+html")},
                                      true);
    return json > 0 && json >= html;
}

// A header of METADATA (RFC 822 style, the first occurrence), empty when absent.
QString metadataField(const QByteArray &metadata, const QByteArray &name)
{
    for (const QByteArray &line : metadata.split('\n')) {
        if (line.trimmed().isEmpty())
            break; // the description body follows
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
            return QString::fromUtf8(line.mid(colon + 1).trimmed());
    }
    return {};
}

QByteArray sha256Hex(QIODevice *device)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    return hash.addData(device) ? hash.result().toHex() : QByteArray();
}

} // namespace

struct IndexWheel {
    QString file;
    QString path;
    QString project; // normalized
    QString version;
    QString requiresPython;
    QByteArray sha256;
    qint64 size = 0;
    QByteArray metadata;
    QByteArray metadataSha256;
};

struct IndexState {
    mutable QMutex mutex;
    QByteArray root;
    QList<IndexWheel> wheels;
    bool metadata = true;
    bool json = true;
    bool hashes = true;
    std::function<void(Response &)> fault;

    // Paths a wheel is served under: as named, and percent-encoded the way pip asks for it.
    QList<QByteArray> filePaths(const QString &file) const
    {
        const QByteArray plain = root + "files/" + file.toUtf8();
        const QByteArray encoded = root + "files/" + QUrl::toPercentEncoding(file);
        return plain == encoded ? QList<QByteArray>{plain} : QList<QByteArray>{plain, encoded};
    }

    QStringList projects() const
    {
        QStringList names;
        for (const IndexWheel &w : wheels) {
            if (!names.contains(w.project))
                names.append(w.project);
        }
        names.sort();
        return names;
    }

    QList<IndexWheel> wheelsOf(const QString &project) const
    {
        QList<IndexWheel> files;
        std::copy_if(wheels.cbegin(), wheels.cend(), std::back_inserter(files),
                     [&](const IndexWheel &w) { return w.project == project; });
        std::sort(files.begin(), files.end(), [](const IndexWheel &a, const IndexWheel &b) { return a.file < b.file; });
        return files;
    }

    Response projectList(bool asJson) const
    {
        const QStringList names = projects();
        if (asJson) {
            QJsonArray list;
            for (const QString &name : names)
                list.append(QJsonObject{{u"name"_s, name}});
            const QJsonObject page{{u"meta"_s, QJsonObject{{u"api-version"_s, u"1.1"_s}}}, {u"projects"_s, list}};
            return Response::bytes(QJsonDocument(page).toJson(QJsonDocument::Compact), jsonType)
                .header("Vary", "Accept");
        }
        QByteArray html = "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.1\">"
                          "<title>Simple index</title></head><body>\n";
        for (const QString &name : names)
            html += "<a href=\"" + name.toUtf8() + "/\">" + name.toUtf8() + "</a><br>\n";
        html += "</body></html>\n";
        return Response::bytes(html, htmlType).header("Vary", "Accept");
    }

    Response projectPage(const QString &project, bool asJson) const
    {
        const QList<IndexWheel> files = wheelsOf(project);
        if (asJson) {
            QJsonArray list;
            QStringList versions;
            for (const IndexWheel &w : files) {
                QJsonObject file{
                    {u"filename"_s, w.file},
                    {u"url"_s, QString(u"../../files/"_s + QString::fromUtf8(QUrl::toPercentEncoding(w.file)))},
                    {u"hashes"_s, hashes ? QJsonObject{{u"sha256"_s, QString::fromLatin1(w.sha256)}} : QJsonObject{}},
                    {u"size"_s, w.size}};
                if (!w.requiresPython.isEmpty())
                    file.insert(u"requires-python"_s, w.requiresPython);
                // PEP 714's key only: pip 22.3 to 23.1 crash on the old "dist-info-metadata".
                if (metadata)
                    file.insert(u"core-metadata"_s, QJsonObject{{u"sha256"_s, QString::fromLatin1(w.metadataSha256)}});
                list.append(file);
                if (!versions.contains(w.version))
                    versions.append(w.version);
            }
            const QJsonObject page{{u"meta"_s, QJsonObject{{u"api-version"_s, u"1.1"_s}}},
                                   {u"name"_s, project},
                                   {u"files"_s, list},
                                   {u"versions"_s, QJsonArray::fromStringList(versions)}};
            return Response::bytes(QJsonDocument(page).toJson(QJsonDocument::Compact), jsonType)
                .header("Vary", "Accept");
        }
        QByteArray html = "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.1\">"
                          "<title>Links for "
            + project.toUtf8() + "</title></head><body>\n<h1>Links for " + project.toUtf8() + "</h1>\n";
        for (const IndexWheel &w : files) {
            html += "<a href=\"../../files/" + QUrl::toPercentEncoding(w.file);
            if (hashes)
                html += "#sha256=" + w.sha256;
            html += '"';
            if (!w.requiresPython.isEmpty())
                html += " data-requires-python=\"" + w.requiresPython.toHtmlEscaped().toUtf8() + '"';
            if (metadata) {
                html += " data-dist-info-metadata=\"sha256=" + w.metadataSha256
                    + "\" data-core-metadata=\"sha256=" + w.metadataSha256 + '"';
            }
            html += '>' + w.file.toHtmlEscaped().toUtf8() + "</a><br>\n";
        }
        html += "</body></html>\n";
        return Response::bytes(html, htmlType).header("Vary", "Accept");
    }
};

TestIndex::TestIndex(LoopbackServer &server, QByteArray root)
    : m_server(server)
    , m_state(std::make_shared<IndexState>())
{
    m_state->root = std::move(root);
    std::weak_ptr<IndexState> weak = m_state;
    m_server.handle(m_state->root + "simple/", [weak](const RecordedRequest &request, int) {
        const auto state = weak.lock();
        if (!state)
            return Response::status(404);
        QMutexLocker lock(&state->mutex);
        return state->projectList(state->json && wantsJson(request));
    });
}

bool TestIndex::addWheel(const QString &path, const QString &requiresPython)
{
    // PEP 427: {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
    const QString file = QFileInfo(path).fileName();
    if (!file.endsWith(u".whl"_s))
        return false;
    const QStringList parts = file.chopped(4).split(u'-');
    if (parts.size() < 5 || parts.size() > 6)
        return false;
    QFile wheelFile(path);
    if (!wheelFile.open(QIODevice::ReadOnly))
        return false;
    IndexWheel w;
    w.file = file;
    w.path = QFileInfo(path).absoluteFilePath();
    w.project = normalizedProject(parts[0]);
    w.version = parts[1];
    w.size = wheelFile.size();
    w.sha256 = sha256Hex(&wheelFile);
    w.metadata = wheelMetadata(path);
    if (w.sha256.isEmpty() || w.metadata.isEmpty())
        return false;
    w.metadataSha256 = QCryptographicHash::hash(w.metadata, QCryptographicHash::Sha256).toHex();
    w.requiresPython = requiresPython.isEmpty() ? metadataField(w.metadata, "Requires-Python") : requiresPython;

    QList<QByteArray> paths;
    bool newProject = false;
    {
        QMutexLocker lock(&m_state->mutex);
        newProject = !m_state->projects().contains(w.project);
        m_state->wheels.removeIf([&](const IndexWheel &old) { return old.file == file; });
        m_state->wheels.append(w);
        paths = m_state->filePaths(file);
    }

    std::weak_ptr<IndexState> weak = m_state;
    if (newProject) {
        m_server.handle(m_state->root + "simple/" + w.project.toUtf8() + '/',
                        [weak, project = w.project](const RecordedRequest &request, int) {
                            const auto state = weak.lock();
                            if (!state)
                                return Response::status(404);
                            QMutexLocker lock(&state->mutex);
                            return state->projectPage(project, state->json && wantsJson(request));
                        });
    }
    for (const QByteArray &route : std::as_const(paths)) {
        m_server.handle(route, [weak, file](const RecordedRequest &, int) {
            const auto state = weak.lock();
            if (!state)
                return Response::status(404);
            QString diskPath;
            std::function<void(Response &)> fault;
            {
                QMutexLocker lock(&state->mutex);
                const auto it = std::find_if(state->wheels.cbegin(), state->wheels.cend(),
                                             [&](const IndexWheel &x) { return x.file == file; });
                if (it == state->wheels.cend())
                    return Response::status(404);
                diskPath = it->path;
                fault = state->fault;
            }
            Response response = Response::file(diskPath);
            if (fault)
                fault(response); // outside the lock: a fault may be slow or read the index
            return response;
        });
        m_server.handle(route + ".metadata", [weak, file](const RecordedRequest &, int) {
            const auto state = weak.lock();
            if (!state)
                return Response::status(404);
            QMutexLocker lock(&state->mutex);
            const auto it = std::find_if(state->wheels.cbegin(), state->wheels.cend(),
                                         [&](const IndexWheel &x) { return x.file == file; });
            if (!state->metadata || it == state->wheels.cend())
                return Response::status(404);
            return Response::bytes(it->metadata);
        });
    }
    return true;
}

int TestIndex::addWheelsFrom(const QString &folder)
{
    int added = 0;
    const QDir dir(folder);
    for (const QString &name : dir.entryList({u"*.whl"_s}, QDir::Files, QDir::Name))
        added += addWheel(dir.filePath(name)) ? 1 : 0;
    return added;
}

void TestIndex::setMetadata(bool served)
{
    QMutexLocker lock(&m_state->mutex);
    m_state->metadata = served;
}

void TestIndex::setJson(bool served)
{
    QMutexLocker lock(&m_state->mutex);
    m_state->json = served;
}

void TestIndex::setHashes(bool published)
{
    QMutexLocker lock(&m_state->mutex);
    m_state->hashes = published;
}

void TestIndex::setWheelFault(std::function<void(Response &)> fault)
{
    QMutexLocker lock(&m_state->mutex);
    m_state->fault = std::move(fault);
}

QUrl TestIndex::url() const
{
    return m_server.url(QString::fromUtf8(m_state->root) + u"simple/"_s);
}

QUrl TestIndex::fileUrl(const QString &wheel) const
{
    return QUrl::fromEncoded(m_server.url().toEncoded(QUrl::RemovePath) + m_state->root + "files/"
                             + QUrl::toPercentEncoding(wheel));
}

QStringList TestIndex::wheels() const
{
    QMutexLocker lock(&m_state->mutex);
    QStringList files;
    for (const IndexWheel &w : std::as_const(m_state->wheels))
        files.append(w.file);
    return files;
}

QByteArray TestIndex::sha256(const QString &wheel) const
{
    QMutexLocker lock(&m_state->mutex);
    for (const IndexWheel &w : std::as_const(m_state->wheels)) {
        if (w.file == wheel)
            return w.sha256;
    }
    return {};
}

QList<RecordedRequest> TestIndex::requestsFor(const QString &wheel) const
{
    QList<QByteArray> paths;
    {
        QMutexLocker lock(&m_state->mutex);
        paths = m_state->filePaths(wheel);
    }
    QList<RecordedRequest> found;
    for (const RecordedRequest &r : m_server.requests()) {
        if (paths.contains(r.path))
            found.append(r);
    }
    return found;
}

int TestIndex::wheelRequests() const
{
    return countGets({});
}

int TestIndex::metadataRequests() const
{
    return countGets(QByteArrayLiteral(".metadata"));
}

int TestIndex::countGets(const QByteArray &suffix) const
{
    QSet<QByteArray> paths;
    {
        QMutexLocker lock(&m_state->mutex);
        for (const IndexWheel &w : std::as_const(m_state->wheels)) {
            for (const QByteArray &p : m_state->filePaths(w.file))
                paths.insert(p + suffix);
        }
    }
    const QList<RecordedRequest> log = m_server.requests();
    return int(std::count_if(log.cbegin(), log.cend(),
                             [&](const RecordedRequest &r) { return r.method == "GET" && paths.contains(r.path); }));
}

qint64 TestIndex::wheelBytesServed() const
{
    QList<QByteArray> paths;
    {
        QMutexLocker lock(&m_state->mutex);
        for (const IndexWheel &w : std::as_const(m_state->wheels))
            paths += m_state->filePaths(w.file);
    }
    qint64 total = 0;
    for (const QByteArray &p : std::as_const(paths))
        total += m_server.bodyBytesSent(p);
    return total;
}

bool addStandIns(TestIndex &index, const QString &python, const QString &dir, const QStringList &tensorflowVersions)
{
    for (const QString &version : tensorflowVersions) {
        const QString wheel = QDir(dir).filePath(u"tensorflow-"_s + version + u"-py3-none-any.whl"_s);
        if (!buildWheel(python, wheel, u"tensorflow"_s, version, "__version__ = \"" + version.toUtf8() + "\"\n")
            || !index.addWheel(wheel))
            return false;
    }
    const core::JupyterSettings &jupyter = core::JupyterSettings::builtIn();
    QStringList projects = jupyter.kernelRequirements;
    for (const core::JupyterSettings::FrontEnd &f : jupyter.frontEnds)
        projects += f.requirements;
    QSet<QString> built;
    for (const QString &requirement : std::as_const(projects)) {
        const QString project = core::requirementProject(requirement);
        if (built.contains(project))
            continue;
        built.insert(project);
        const QString module = QString(project).replace(u'-', u'_');
        const QString wheel = QDir(dir).filePath(module + u"-0.1-py3-none-any.whl"_s);
        if (!buildWheel(python, wheel, project, u"0.1"_s, QByteArray(), module) || !index.addWheel(wheel))
            return false;
    }
    return true;
}

} // namespace tfsetup::test
