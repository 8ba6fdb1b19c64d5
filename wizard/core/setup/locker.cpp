#include "setup/locker.h"

#include "fetch/httpclient.h"
#include "setup/indexbridge.h"
#include "sources/pep440.h"
#include "sources/simpleindex.h"
#include "util/inputfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>

#include <algorithm>
#include <vector>

namespace tfsetup::core {

namespace {

// pip's installation report lists every package with its metadata (descriptions included).
constexpr qint64 maxReportBytes = 64 * 1024 * 1024;

QString lastLines(const QString &text, int count)
{
    QStringList lines = text.split(u'\n', Qt::SkipEmptyParts);
    if (lines.size() > count)
        lines = lines.mid(lines.size() - count);
    return lines.join(u'\n');
}

// "pip 23.0.1 from … (python 3.11)" or a wheel's file name "pip-24.0-py3-none-any.whl".
std::optional<pep440::Version> pipVersionIn(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^pip[ -]([0-9][^ ]*?)(?:-py3-none-any\\.whl)?(?: |$)"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    return pep440::Version::parse(m.captured(1));
}

bool newEnough(const pep440::Version &v)
{
    static const auto minimum = pep440::Version::parse(
        QStringLiteral("%1.%2").arg(Locker::minimumPipMajor).arg(Locker::minimumPipMinor));
    return minimum && pep440::compare(v, *minimum) >= 0;
}

// A lab's hash lock: project → the hashes it allows.
QHash<QString, QSet<QByteArray>> lockHashes(const QString &text)
{
    QString joined = text;
    joined.replace(QStringLiteral("\\\r\n"), QStringLiteral(" ")).replace(QStringLiteral("\\\n"), QStringLiteral(" "));
    static const QRegularExpression hash(QStringLiteral("--hash[= ]sha256:([0-9a-fA-F]{64})"));
    static const QRegularExpression name(QStringLiteral("^\\s*([A-Za-z0-9][A-Za-z0-9._-]*)"));
    QHash<QString, QSet<QByteArray>> out;
    for (const QString &line : joined.split(u'\n')) {
        const QString content = line.section(u'#', 0, 0);
        const auto n = name.match(content);
        if (!n.hasMatch() || content.trimmed().startsWith(u'-'))
            continue;
        QSet<QByteArray> &set = out[SimpleIndex::normalize(n.captured(1))];
        auto it = hash.globalMatch(content);
        while (it.hasNext())
            set.insert(it.next().captured(1).toLower().toLatin1());
    }
    return out;
}

// A hash-checking requirements file without its hashes and options: one requirement a line.
QByteArray pinsOf(const QString &text)
{
    QString joined = text;
    joined.replace(QStringLiteral("\\\r\n"), QStringLiteral(" ")).replace(QStringLiteral("\\\n"), QStringLiteral(" "));
    static const QRegularExpression hash(QStringLiteral("\\s--hash[= ]\\S+"));
    QByteArray out;
    for (const QString &line : joined.split(u'\n')) {
        const QString requirement = line.section(u'#', 0, 0).remove(hash).trimmed();
        if (!requirement.isEmpty() && !requirement.startsWith(u'-'))
            out += requirement.toUtf8() + '\n';
    }
    return out;
}

} // namespace

struct Locker::Pip {
    QStringList command; // after the interpreter: "-m pip" or the wheel's "<file>/pip"
    QString python;      // the interpreter's version, "3.11.2"
};

Locker::Locker(SystemView &system, QObject *parent)
    : QObject(parent)
    , m_system(system)
{}

Locker::~Locker() = default;

Result<PyLock> Locker::fromReport(const QByteArray &report,
                                  const std::function<std::optional<Source>(const QUrl &)> &source)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(report, &parseError);
    const QJsonObject root = document.object();
    if (parseError.error != QJsonParseError::NoError || !root.value(QStringLiteral("install")).isArray()) {
        return Error{QStringLiteral("pip_report_unreadable"),
                     tr("pip's answer could not be read. Update pip in this Python, or report this to the tfsetup "
                        "developers with the log."),
                     parseError.errorString()};
    }
    PyLock lock;
    const QJsonObject environment = root.value(QStringLiteral("environment")).toObject();
    const QString python = environment.value(QStringLiteral("python_full_version")).toString();
    lock.python = python;
    const QString minor = python.section(u'.', 0, 1);
    if (!minor.isEmpty()) {
        lock.requiresPython = QStringLiteral("==%1.*").arg(minor);
        QStringList markers;
        for (const char *key : {"implementation_name", "sys_platform", "platform_machine"}) {
            const QString value = environment.value(QLatin1String(key)).toString();
            if (!value.isEmpty() && !value.contains(u'\'') && !value.contains(u'\\'))
                markers.append(QStringLiteral("%1 == '%2'").arg(QLatin1String(key), value));
        }
        markers.append(QStringLiteral("python_version == '%1'").arg(minor));
        lock.environments = {markers.join(QStringLiteral(" and "))};
    }
    for (const QJsonValue &item : root.value(QStringLiteral("install")).toArray()) {
        const QJsonObject entry = item.toObject();
        const QJsonObject info = entry.value(QStringLiteral("download_info")).toObject();
        const QJsonObject metadata = entry.value(QStringLiteral("metadata")).toObject();
        const QUrl url(info.value(QStringLiteral("url")).toString());
        const QString name = metadata.value(QStringLiteral("name")).toString();
        const std::optional<Source> from = source(url);
        if (!from || name.isEmpty()) {
            return Error{QStringLiteral("pip_report_unreadable"),
                         tr("pip chose %1, which is not a wheel of the package index tfsetup gave it. tfsetup "
                            "installs wheels only; choose another release.")
                             .arg(name.isEmpty() ? url.fileName() : name),
                         url.toString(QUrl::RemoveUserInfo)};
        }
        LockedWheel wheel;
        wheel.name = PyLock::normalizeName(name);
        wheel.version = metadata.value(QStringLiteral("version")).toString();
        wheel.requiresPython = metadata.value(QStringLiteral("requires_python")).toString();
        wheel.requested = entry.value(QStringLiteral("requested")).toBool();
        wheel.file = from->file;
        wheel.url = from->url.toString();
        wheel.index = from->index;
        wheel.size = from->size;
        wheel.hashFromDownload = from->hashFromDownload;
        const QJsonObject archive = info.value(QStringLiteral("archive_info")).toObject();
        QByteArray sha256 =
            archive.value(QStringLiteral("hashes")).toObject().value(QStringLiteral("sha256")).toString().toLatin1();
        const QString legacy = archive.value(QStringLiteral("hash")).toString();
        if (sha256.isEmpty() && legacy.startsWith(QStringLiteral("sha256=")))
            sha256 = legacy.mid(7).toLatin1();
        wheel.sha256 = !from->sha256.isEmpty() ? from->sha256
            : from->reportHashIsReal           ? sha256.toLower()
                                               : QByteArray();
        lock.packages.append(wheel);
    }
    std::sort(lock.packages.begin(), lock.packages.end(),
              [](const LockedWheel &a, const LockedWheel &b) { return a.name < b.name; });
    return lock;
}

QCoro::Task<Result<Locker::Pip>> Locker::findPip(QString python, IndexBridge *bridge, QString workDir)
{
    QPointer<Locker> self(this);
    const QString probe = QStringLiteral(
        "import sys\n"
        "print('%d.%d.%d' % sys.version_info[:3])\n"
        "try:\n"
        "    import pip\n"
        "    print('pip ' + pip.__version__)\n"
        "except Exception:\n"
        "    print('pip none')\n"
        "try:\n"
        "    import ensurepip, glob, os\n"
        "    for d in (os.path.join(os.path.dirname(ensurepip.__file__), '_bundled'), '/usr/share/python-wheels'):\n"
        "        for w in glob.glob(os.path.join(d, 'pip-*.whl')):\n"
        "            print('wheel ' + w)\n"
        "except Exception:\n"
        "    pass\n");
    ProcessRequest request;
    request.program = python;
    request.arguments = {QStringLiteral("-I"), QStringLiteral("-c"), probe};
    request.timeout = std::chrono::seconds(60);
    const ProcessResult r = co_await m_system.runWatched(std::move(request));
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!r.succeeded()) {
        co_return Error{
            QStringLiteral("python_unstartable"),
            tr("The Python %1 could not be started (%2), so the packages could not be chosen. Choose a "
               "Python that is installed (in a lab profile: \"interpreter\"), or install it, then try again.")
                .arg(QDir::toNativeSeparators(python),
                     r.error.isEmpty() ? QString::fromUtf8(r.standardError).trimmed() : r.error),
            r.error + QString::fromUtf8(r.standardError)};
    }
    const QStringList lines = QString::fromUtf8(r.standardOutput).split(u'\n', Qt::SkipEmptyParts);
    Pip pip;
    pip.python = lines.value(0).trimmed();
    if (const auto own = pipVersionIn(lines.value(1)); own && newEnough(*own)) {
        pip.command = {QStringLiteral("-m"), QStringLiteral("pip")};
        co_return pip;
    }
    // A wheel of pip on this machine (ensurepip's, Debian's python-pip-whl), newest first.
    QString best;
    std::optional<pep440::Version> bestVersion;
    for (const QString &line : lines.mid(2)) {
        if (!line.startsWith(QStringLiteral("wheel ")))
            continue;
        const QString path = line.mid(6).trimmed();
        const auto v = pipVersionIn(QFileInfo(path).fileName());
        if (v && newEnough(*v) && (!bestVersion || pep440::compare(*v, *bestVersion) > 0)) {
            best = path;
            bestVersion = v;
        }
    }
    if (!best.isEmpty()) {
        pip.command = {best + QStringLiteral("/pip")};
        co_return pip;
    }
    if (!bridge) {
        co_return Error{QStringLiteral("pip_missing"),
                        tr("The Python %1 has no pip new enough to choose the packages (%2.%3 or newer is needed), "
                           "and without the network none can be fetched. Install pip for it (on Debian and Ubuntu: the "
                           "package python3-pip), then try again.")
                            .arg(QDir::toNativeSeparators(python))
                            .arg(minimumPipMajor)
                            .arg(minimumPipMinor),
                        lines.value(1)};
    }
    // The newest pip wheel the index offers for this Python, fetched and verified like any other.
    Q_EMIT logLine(
        tr("This Python has no pip new enough to choose the packages; fetching pip from the package index."));
    auto files = co_await bridge->projectFiles(QStringLiteral("pip"));
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!files)
        co_return files.error();
    const auto interpreter = pep440::Version::parse(pip.python);
    QUrl chosen;
    std::optional<pep440::Version> chosenVersion;
    for (const QUrl &url : std::as_const(*files)) {
        const std::optional<BridgedFile> f = bridge->fileFor(url);
        if (!f || !f->filename.endsWith(QStringLiteral("-py3-none-any.whl")))
            continue;
        const auto v = pipVersionIn(f->filename);
        if (!v || !newEnough(*v) || v->isPrerelease())
            continue;
        if (!f->requiresPython.isEmpty()) {
            const auto spec = pep440::SpecifierSet::parse(f->requiresPython);
            if (!spec || !interpreter || !spec->contains(*interpreter))
                continue;
        }
        if (!chosenVersion || pep440::compare(*v, *chosenVersion) > 0) {
            chosen = url;
            chosenVersion = v;
        }
    }
    if (chosen.isEmpty()) {
        co_return Error{QStringLiteral("pip_missing"),
                        tr("The Python %1 has no pip new enough to choose the packages, and the package index offers "
                           "none for it. Install pip for it (on Debian and Ubuntu: the package python3-pip), then try "
                           "again.")
                            .arg(QDir::toNativeSeparators(python)),
                        {}};
    }
    auto fetched = co_await bridge->download(chosen);
    if (!self)
        co_return Error{QStringLiteral("cancelled"), {}, {}};
    if (!fetched)
        co_return fetched.error();
    Q_UNUSED(workDir);
    pip.command = {fetched->localPath + QStringLiteral("/pip")};
    co_return pip;
}

Error Locker::pipFailure(const QString &output, const IndexBridge *bridge, const LockRequest &request)
{
    const QString tail = lastLines(output, 40);
    // The network first: pip only sees empty answers when an index could not be reached.
    if (bridge && bridge->lastFailure() && !output.contains(QStringLiteral("ResolutionImpossible"))) {
        const Error cause = *bridge->lastFailure();
        return Error{cause.code,
                     tr("The packages could not be chosen because the package index could not be read: %1")
                         .arg(cause.message.isEmpty() ? cause.detail : cause.message),
                     cause.detail + u'\n' + tail};
    }
    static const QRegularExpression noMatch(QStringLiteral("No matching distribution found for ([^\\s]+)"));
    if (const auto m = noMatch.match(output); m.hasMatch()) {
        if (!request.findLinks.isEmpty()) {
            return Error{QStringLiteral("bundle_incomplete"),
                         tr("The offline bundle does not hold %1, which this environment needs. Make the bundle again "
                            "with tfsetup bundle --profile on a computer with internet.")
                             .arg(m.captured(1)),
                         tail};
        }
        return Error{QStringLiteral("no_matching_distribution"),
                     tr("The package index has no %1 for this Python on this computer. Choose another TensorFlow or "
                        "Python release, or another package index.")
                         .arg(m.captured(1)),
                     tail};
    }
    if (output.contains(QStringLiteral("ResolutionImpossible")) || output.contains(QStringLiteral("conflict"))) {
        return Error{QStringLiteral("pip_conflict"),
                     tr("pip found no set of package versions that fit together for these requirements (%1). Remove "
                        "the extra package that conflicts, or choose another TensorFlow release.")
                         .arg(request.requirements.join(QStringLiteral(", "))),
                     tail};
    }
    if (output.contains(QStringLiteral("--require-hashes")) || output.contains(QStringLiteral("Hashes are required"))) {
        return Error{QStringLiteral("lock_incomplete"),
                     tr("The lab's lock file does not pin every package with its hash. Ask the lab administrator for "
                        "a complete lock file (pip-compile --generate-hashes)."),
                     tail};
    }
    return Error{QStringLiteral("lock_failed"), tr("pip could not choose the packages. The log shows pip's own words."),
                 tail};
}

QCoro::Task<Result<PyLock>> Locker::lock(LockRequest request, IndexBridge *bridge)
{
    QPointer<Locker> self(this);
    const auto stopped = [&] { return !self || (request.cancel && request.cancel->load()); };
    const auto cancelled = [] {
        return Error{QStringLiteral("cancelled"), tr("Choosing the packages was cancelled."), {}};
    };
    if (request.requirements.isEmpty() && request.requirementsLock.isEmpty())
        co_return PyLock{};
    QDir().mkpath(request.workDir);
    QTemporaryDir work(QDir(request.workDir).filePath(QStringLiteral("lock-XXXXXX")));
    if (!work.isValid()) {
        co_return Error{QStringLiteral("write_failed"),
                        tr("tfsetup cannot write into %1. Choose a download folder that is yours.")
                            .arg(QDir::toNativeSeparators(request.workDir)),
                        work.errorString()};
    }
    auto pip = co_await findPip(request.python, request.findLinks.isEmpty() ? bridge : nullptr, work.path());
    if (stopped())
        co_return cancelled();
    if (!pip)
        co_return pip.error();

    const QString report = work.filePath(QStringLiteral("report.json"));
    QStringList arguments{QStringLiteral("-I")};
    arguments += pip->command;
    arguments += {QStringLiteral("install"),
                  QStringLiteral("--dry-run"),
                  QStringLiteral("--ignore-installed"),
                  QStringLiteral("--report"),
                  report,
                  QStringLiteral("--only-binary=:all:"),
                  QStringLiteral("--no-input"),
                  QStringLiteral("--disable-pip-version-check"),
                  QStringLiteral("--no-cache-dir"),
                  QStringLiteral("--progress-bar"),
                  QStringLiteral("off")};
    if (!request.findLinks.isEmpty()) {
        arguments += {QStringLiteral("--no-index"), QStringLiteral("--find-links"), request.findLinks};
    } else {
        // The bridge answers every request; it has its own limits, so pip waits for it.
        arguments += {QStringLiteral("--index-url"), bridge->indexUrl().toString(), QStringLiteral("--retries"),
                      QStringLiteral("0"),           QStringLiteral("--timeout"),   QStringLiteral("3600")};
    }
    if (request.noDeps)
        arguments.append(QStringLiteral("--no-deps"));
    if (!request.platforms.isEmpty()) {
        // pip accepts another target only with a folder to (not) install into.
        arguments += {QStringLiteral("--target"), work.filePath(QStringLiteral("target"))};
        for (const QString &platform : request.platforms)
            arguments += {QStringLiteral("--platform"), platform};
        if (!request.targetPython.isEmpty()) {
            const QString tag = QString(request.targetPython).remove(u'.');
            arguments += {QStringLiteral("--python-version"),
                          request.targetPython,
                          QStringLiteral("--implementation"),
                          QStringLiteral("cp"),
                          QStringLiteral("--abi"),
                          QStringLiteral("cp") + tag,
                          QStringLiteral("--abi"),
                          QStringLiteral("abi3"),
                          QStringLiteral("--abi"),
                          QStringLiteral("none")};
        }
    }
    if (!request.requirementsLock.isEmpty()) {
        const QString lockFile = work.filePath(QStringLiteral("requirements.lock.txt"));
        QFile f(lockFile);
        if (!f.open(QIODevice::WriteOnly) || f.write(pinsOf(request.requirementsLock)) < 0 || !f.flush()) {
            co_return Error{QStringLiteral("write_failed"),
                            tr("tfsetup cannot write into %1. Choose a download folder that is yours.")
                                .arg(QDir::toNativeSeparators(request.workDir)),
                            f.errorString()};
        }
        f.close();
        // pip resolves the lab's pins; the hashes are checked against the lock below (pip would
        // check them against the bridge's stand-ins, which are not the real files).
        arguments += {QStringLiteral("-r"), lockFile};
    } else {
        arguments += request.requirements;
    }

    ProcessRequest run;
    run.program = request.python;
    run.arguments = arguments;
    run.timeout = request.timeout;
    run.cancel = request.cancel;
    // Only the bridge: no configuration file, index, proxy or user site of this machine reaches
    // pip, and the proxy variables must not send its loopback requests elsewhere.
    run.environment = {{QStringLiteral("PIP_CONFIG_FILE"),
                        m_system.os() == OsFamily::Windows ? QStringLiteral("nul") : QStringLiteral("/dev/null")},
                       {QStringLiteral("PYTHONNOUSERSITE"), QStringLiteral("1")},
                       {QStringLiteral("PYTHONHOME"), QString()},
                       {QStringLiteral("NO_PROXY"), QStringLiteral("127.0.0.1,localhost")},
                       {QStringLiteral("no_proxy"), QStringLiteral("127.0.0.1,localhost")}};
    for (const char *name :
         {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_PROXY", "PIP_CERT",
          "PIP_REQUIRE_VIRTUALENV", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
        run.environment.append({QString::fromLatin1(name), QString()});
    // pip's own words go to the run log: what it "downloads" here are the bridge's stand-ins.
    run.onOutputLine = [](const QString &line) {
        if (!line.isEmpty())
            qInfo().noquote() << "pip:" << line;
    };
    qInfo().noquote() << QStringLiteral("$ %1 %2").arg(request.python, arguments.join(u' '));
    const ProcessResult result = co_await m_system.runWatched(std::move(run));
    if (stopped())
        co_return cancelled();
    const QString output = QString::fromUtf8(result.standardOutput + result.standardError);
    if (!result.succeeded()) {
        if (!result.started) {
            co_return Error{QStringLiteral("python_unstartable"),
                            tr("The Python %1 could not be started (%2).")
                                .arg(QDir::toNativeSeparators(request.python), result.error),
                            result.error};
        }
        co_return pipFailure(output + result.error, bridge, request);
    }
    auto bytes = readInputFile(report, tr("pip's report"), maxReportBytes);
    if (!bytes)
        co_return bytes.error();

    // Where each wheel came from: the bridge's record, or (offline) the local wheel by its name.
    QHash<QString, QUrl> bridgeUrls; // wheel file → the bridge's URL pip reported
    const auto source = [bridge, &request, &bridgeUrls](const QUrl &url) -> std::optional<Source> {
        if (bridge && request.findLinks.isEmpty()) {
            const std::optional<BridgedFile> f = bridge->fileFor(url);
            if (!f)
                return std::nullopt;
            bridgeUrls.insert(f->filename, url);
            return Source{f->filename, f->upstream, f->index, f->sha256, f->size, f->hashFromDownload, false};
        }
        if (!url.isLocalFile())
            return std::nullopt;
        const QFileInfo file(url.toLocalFile());
        return Source{file.fileName(), url, {}, {}, file.size(), false, true};
    };
    auto lock = fromReport(*bytes, source);
    if (!lock)
        co_return lock.error();
    lock->requirements = request.requirementsLock.isEmpty() ? request.requirements : QStringList{};

    if (bridge && request.findLinks.isEmpty()) {
        // What the index gave no hash for is hashed on its first download (and marked so); what it
        // gave no size for is asked with HEAD. Each task runs as soon as it is made, so they run
        // together; they are collected in order.
        std::vector<std::pair<qsizetype, QCoro::Task<Result<BridgedFile>>>> downloads;
        std::vector<std::pair<qsizetype, QCoro::Task<Result<HttpResponse>>>> heads;
        const HttpClient client(bridge->transferOptions());
        for (qsizetype i = 0; i < lock->packages.size(); ++i) {
            const LockedWheel &w = lock->packages.at(i);
            if (w.sha256.isEmpty()) {
                downloads.emplace_back(i, bridge->download(bridgeUrls.value(w.file)));
            } else if (w.size < 0) {
                HttpRequest head;
                head.url = QUrl(w.url);
                head.headOnly = true;
                head.timeout = std::chrono::seconds(30);
                heads.emplace_back(i, client.get(std::move(head)));
            }
        }
        for (auto &[i, task] : downloads) {
            const Result<BridgedFile> fetched = co_await task;
            if (stopped())
                co_return cancelled();
            if (!fetched)
                co_return fetched.error();
            LockedWheel &w = lock->packages[i];
            w.sha256 = fetched->sha256;
            w.size = fetched->size;
            w.hashFromDownload = true;
            Q_EMIT logLine(tr("%1: the package index publishes no checksum; SHA-256 %2 was recorded at its first "
                              "download.")
                               .arg(w.file, QString::fromLatin1(w.sha256)));
        }
        for (auto &[i, task] : heads) {
            const Result<HttpResponse> answer = co_await task;
            if (stopped())
                co_return cancelled();
            if (answer && answer->contentLength >= 0)
                lock->packages[i].size = answer->contentLength;
        }
    }
    if (!request.requirementsLock.isEmpty()) {
        // The lab's hashes decide: a wheel the index serves with another hash is not the lab's.
        const QHash<QString, QSet<QByteArray>> allowed = lockHashes(request.requirementsLock);
        for (const LockedWheel &w : std::as_const(lock->packages)) {
            if (!allowed.contains(w.name)) {
                co_return Error{QStringLiteral("lock_incomplete"),
                                tr("The lab's lock file does not pin %1, which the packages it names need. Ask the lab "
                                   "administrator for a complete lock file (pip-compile --generate-hashes).")
                                    .arg(w.name),
                                w.file};
            }
            const QSet<QByteArray> hashes = allowed.value(w.name);
            if (!hashes.contains(w.sha256)) {
                co_return Error{QStringLiteral("pip_hash_mismatch"),
                                tr("A package from the mirror does not match the hash in the lab's lock file (%1). The "
                                   "mirror serves different files: ask the lab administrator.")
                                    .arg(w.file),
                                QString::fromLatin1(w.sha256)};
            }
        }
    }
    co_return *lock;
}

} // namespace tfsetup::core
