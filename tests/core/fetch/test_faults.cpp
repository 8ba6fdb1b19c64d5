// Fault injection: what a download meets on a bad day (connections reset or stalled halfway,
// servers lying about lengths, bytes flipped on the way, redirect loops, TLS that does not
// verify) and what a disk does (full, a file-size limit, a folder the user may not write, a
// read-only mount). After every fault: the error says what happened, nothing unverified sits at
// the destination, and a rerun against a healthy server completes with the right bytes.
//
// The system view has no write path (it reads machines); the downloader and the installer write
// host files directly. So the disk faults are made by the operating system itself, in a child
// `tfsetup fetch`: a tiny tmpfs in a private mount namespace (real ENOSPC), RLIMIT_FSIZE, another
// user, a read-only bind mount. Each one is skipped, saying why, where the machine cannot set it up.

#include "fetch/downloader.h"

#include "support/coroutinetest.h"
#include "support/loopbackserver.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>

using namespace tfsetup::core;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Response;
using namespace std::chrono_literals;
using namespace Qt::Literals::StringLiterals;

namespace {

QByteArray randomBytes(qsizetype size, quint32 seed)
{
    QByteArray data(size, Qt::Uninitialized);
    QRandomGenerator generator(seed);
    for (qsizetype i = 0; i < size; ++i)
        data[i] = char(generator.generate());
    return data;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What LoopbackServer cannot do, because Qt closes sockets politely: a TCP reset (RST, not FIN)
// after some body bytes, and a connection that goes silent halfway through the body.
class RawServer {
public:
    enum Mode { ResetAfter, StallAfter };

    RawServer(Mode mode, QByteArray body, qint64 sendBytes)
        : m_mode(mode)
        , m_body(std::move(body))
        , m_send(sendBytes)
    {}
    ~RawServer()
    {
        m_stop = true;
        if (m_listener >= 0)
            ::shutdown(m_listener, SHUT_RDWR);
        if (m_thread.joinable())
            m_thread.join();
        if (m_listener >= 0)
            ::close(m_listener);
    }
    Q_DISABLE_COPY_MOVE(RawServer)

    bool start()
    {
        m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (m_listener < 0 || ::bind(m_listener, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
            || ::listen(m_listener, 8) != 0
            || ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&address), &length) != 0)
            return false;
        m_port = ntohs(address.sin_port);
        m_thread = std::thread([this] { serve(); });
        return true;
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/a.bin").arg(m_port)); }
    int connections() const { return m_connections; }

private:
    void serve()
    {
        while (!m_stop) {
            const int client = ::accept(m_listener, nullptr, nullptr);
            if (client < 0)
                return;
            ++m_connections;
            answer(client);
        }
    }

    void answer(int client)
    {
        QByteArray request;
        char buffer[4096];
        while (!request.contains("\r\n\r\n")) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            request.append(buffer, n);
        }
        // Ranges are ignored on purpose: a 200 with the whole body, like many simple servers.
        const QByteArray head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
            + QByteArray::number(m_body.size()) + "\r\nConnection: close\r\n\r\n";
        sendAll(client, head);
        sendAll(client, m_body.left(m_send));
        if (m_mode == ResetAfter) {
            const linger resetOnClose{1, 0};
            ::setsockopt(client, SOL_SOCKET, SO_LINGER, &resetOnClose, sizeof resetOnClose);
        } else {
            // Silent until the client gives up (or the test ends).
            pollfd p{client, POLLIN, 0};
            while (!m_stop) {
                if (::poll(&p, 1, 100) > 0 && ::recv(client, buffer, sizeof buffer, MSG_DONTWAIT) <= 0)
                    break;
            }
        }
        ::close(client);
    }

    static void sendAll(int socket, const QByteArray &data)
    {
        qsizetype sent = 0;
        while (sent < data.size()) {
            const ssize_t n = ::send(socket, data.constData() + sent, size_t(data.size() - sent), MSG_NOSIGNAL);
            if (n <= 0)
                return;
            sent += n;
        }
    }

    Mode m_mode;
    QByteArray m_body;
    qint64 m_send;
    int m_listener = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_connections{0};
    std::thread m_thread;
};

// Figures for the reliability section of the README, printed at the end of the run.
int g_faultsTried = 0;
int g_faultsSurvived = 0;

} // namespace

class TestFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_payload = randomBytes(2 * 1024 * 1024 + 77, 9);
        m_server = std::make_unique<LoopbackServer>();
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void cleanupTestCase()
    {
        qInfo("faults tried: %d, survived (clean error, nothing unverified kept, rerun completed): %d", g_faultsTried,
              g_faultsSurvived);
    }

    void server_faultIsAClearErrorAndARerunCompletes_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QStringList>("codes"); // any of these is a correct diagnosis
        const auto row = [](const char *name, const char *fault, QStringList codes) {
            QTest::newRow(name) << QString::fromLatin1(fault) << codes;
        };
        row("connection reset (RST) mid-body on every attempt", "rst", {u"dropped"_s, u"network"_s});
        row("connection closed mid-body on every attempt", "drop", {u"dropped"_s});
        row("stall mid-body", "stall-body", {u"timeout"_s});
        row("stall before the headers", "stall-headers", {u"timeout"_s});
        row("announced length longer than the body", "length-long", {u"size_mismatch"_s, u"dropped"_s});
        row("announced length shorter than the body", "length-short", {u"size_mismatch"_s});
        row("first byte corrupted", "corrupt-first", {u"checksum_mismatch"_s});
        row("last byte corrupted", "corrupt-last", {u"checksum_mismatch"_s});
        row("file replaced between a drop and the resume", "changed-on-resume", {u"checksum_mismatch"_s});
        row("redirect to itself", "redirect-self", {u"redirect_loop"_s});
        row("redirects back and forth between two servers", "redirect-pingpong", {u"redirect_loop"_s});
        row("HTTPS redirected to plain HTTP", "redirect-insecure", {u"insecure_redirect"_s});
        row("TLS: certificate from an unknown authority", "tls-untrusted", {u"tls"_s});
        row("TLS: certificate of another trusted server's authority", "tls-other-ca", {u"tls"_s});
        // The plain server waits for a request line that never comes: a stall is a fair diagnosis.
        row("TLS: https:// to a plain HTTP port", "tls-plain-port",
            {u"tls"_s, u"connect"_s, u"network"_s, u"timeout"_s});
        row("HTML page instead of the file", "html", {u"html_page"_s});
        row("HTTP 500", "500", {u"http_error"_s});
        row("HTTP 404", "404", {u"http_error"_s});
    }

    void server_faultIsAClearErrorAndARerunCompletes()
    {
        QFETCH(QString, fault);
        QFETCH(QStringList, codes);
        ++g_faultsTried;
        TransferOptions options = fastOptions();
        LoopbackServer other;
        LoopbackServer tls(LoopbackServer::Https);
        LoopbackServer otherTls(LoopbackServer::Https);
        std::unique_ptr<RawServer> raw;
        QUrl url = m_server->url(QStringLiteral("/a.bin"));
        const QByteArray other_payload = randomBytes(m_payload.size(), 10);

        if (fault == u"rst" || fault == u"stall-body") {
            raw = std::make_unique<RawServer>(fault == u"rst" ? RawServer::ResetAfter : RawServer::StallAfter,
                                              m_payload, 300 * 1024);
            QVERIFY(raw->start());
            url = raw->url();
        } else if (fault == u"drop") {
            m_server->route("/a.bin", Response::bytes(m_payload).dropAfter(300 * 1024));
        } else if (fault == u"stall-headers") {
            m_server->route("/a.bin", Response::bytes(m_payload).delayHeaders(4s));
        } else if (fault == u"length-long") {
            m_server->route("/a.bin", Response::bytes(m_payload).announceLength(m_payload.size() + 4096));
        } else if (fault == u"length-short") {
            m_server->route("/a.bin", Response::bytes(m_payload).announceLength(m_payload.size() - 4096));
        } else if (fault == u"corrupt-first") {
            m_server->route("/a.bin", Response::bytes(m_payload).corruptAt(0));
        } else if (fault == u"corrupt-last") {
            m_server->route("/a.bin", Response::bytes(m_payload).corruptAt(m_payload.size() - 1));
        } else if (fault == u"changed-on-resume") {
            const QByteArray first = m_payload;
            m_server->handle("/a.bin", [first, other_payload](const tfsetup::test::RecordedRequest &, int hit) {
                return hit == 1 ? Response::bytes(first).dropAfter(512 * 1024) : Response::bytes(other_payload);
            });
        } else if (fault == u"redirect-self") {
            m_server->route("/a.bin", Response::redirect(url));
        } else if (fault == u"redirect-pingpong") {
            QVERIFY(other.start());
            m_server->route("/a.bin", Response::redirect(other.url(QStringLiteral("/a.bin"))));
            other.route("/a.bin", Response::redirect(url, 301));
        } else if (fault == u"redirect-insecure") {
            QVERIFY(tls.start());
            tls.route("/a.bin", Response::redirect(url));
            m_server->route("/a.bin", Response::bytes(m_payload));
            options.caBundle = m_dir->filePath(QStringLiteral("ca.pem"));
            QVERIFY(tls.writeCaCertificate(options.caBundle));
            url = tls.url(QStringLiteral("/a.bin"));
        } else if (fault == u"tls-untrusted" || fault == u"tls-other-ca") {
            QVERIFY(tls.start());
            tls.route("/a.bin", Response::bytes(m_payload));
            if (fault == u"tls-other-ca") {
                QVERIFY(otherTls.start());
                options.caBundle = m_dir->filePath(QStringLiteral("other-ca.pem"));
                QVERIFY(otherTls.writeCaCertificate(options.caBundle));
            }
            url = tls.url(QStringLiteral("/a.bin"));
        } else if (fault == u"tls-plain-port") {
            m_server->route("/a.bin", Response::bytes(m_payload));
            url.setScheme(QStringLiteral("https"));
        } else if (fault == u"html") {
            m_server->route("/a.bin", Response::htmlErrorPage());
        } else if (fault == u"500") {
            m_server->route("/a.bin", Response::status(500, "Internal Server Error"));
        } // 404: no route at all

        {
            Downloader downloader(options, DownloadCache(cacheDir()));
            const auto result = fetch(downloader, request({url}));
            QVERIFY2(!result.ok(), "a faulty server must not yield a verified file");
            QVERIFY2(codes.contains(result.error().code),
                     qPrintable(result.error().code + u": " + result.error().message + u'\n' + result.error().detail));
            QVERIFY(!result.error().message.isEmpty());
            QVERIFY2(!QFile::exists(destination()), "nothing unverified may sit at the destination");
            if (result.error().code == u"checksum_mismatch")
                QVERIFY2(result.error().message.contains(QStringLiteral("quarantine")),
                         qPrintable(result.error().message));
        }

        // The rerun, against a healthy server, completes: resuming what was kept where it can.
        m_server->removeRoute("/a.bin");
        m_server->route("/a.bin", Response::bytes(m_payload));
        Downloader downloader(fastOptions(), DownloadCache(cacheDir()));
        const auto rerun = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(rerun.ok(), qPrintable(rerun.ok() ? QString() : rerun.error().message + u'\n' + rerun.error().detail));
        QCOMPARE(readAll(destination()), m_payload);
        QVERIFY(!QFile::exists(Downloader::partPathFor(destination())));
        ++g_faultsSurvived;
    }

    void server_transientResetsAreSurvivedWithinOneFetch()
    {
        ++g_faultsTried;
        const QByteArray payload = m_payload;
        m_server->handle("/a.bin", [payload](const tfsetup::test::RecordedRequest &, int hit) {
            return hit <= 2 ? Response::bytes(payload).dropAfter(256 * 1024 * hit) : Response::bytes(payload);
        });
        TransferOptions patient = fastOptions();
        patient.retriesPerMirror = 3;
        Downloader downloader(patient, DownloadCache(cacheDir()));
        const auto result = fetch(downloader, request({m_server->url(QStringLiteral("/a.bin"))}));
        QVERIFY2(result.ok(), qPrintable(result.ok() ? QString() : result.error().message));
        QCOMPARE(readAll(destination()), m_payload);
        const auto requests = m_server->requests("/a.bin");
        QVERIFY(requests.size() >= 3);
        QVERIFY2(requests.last().header("range").startsWith("bytes=")
                     && !requests.last().header("range").startsWith("bytes=0-"),
                 "the last attempt resumes instead of starting over");
        ++g_faultsSurvived;
    }

    // --- Disk faults, in a child `tfsetup fetch` ---

    void disk_fullIsNamedAndTheRerunResumes()
    {
        if (!canUseMountNamespace())
            QSKIP("no private mount namespace here (unshare -Urm is refused), so no small tmpfs to fill");
        ++g_faultsTried;
        m_server->route("/a.bin", Response::bytes(m_payload));
        const QString mount = m_dir->filePath(QStringLiteral("tiny"));
        QVERIFY(QDir().mkpath(mount));
        const QString out = mount + QStringLiteral("/a.bin");
        // One namespace for both runs: the tmpfs exists only inside it. 1 MiB is too small for the
        // 2 MiB payload; then it is made larger, as a student would free space, and fetch runs again.
        const QString script = QStringLiteral(
            "mount -t tmpfs -o size=1m tfsetup-test \"$1\" || exit 90\n"
            "\"$2\" fetch \"$3\" --sha256 \"$4\" --size \"$5\" --out \"$6\" --no-cache --json > \"$7/first.json\"\n"
            "echo $? > \"$7/first.rc\"\n"
            "ls -a \"$1\" > \"$7/first.ls\"\n"
            "mount -o remount,size=8m \"$1\" || exit 91\n"
            "\"$2\" fetch \"$3\" --sha256 \"$4\" --size \"$5\" --out \"$6\" --no-cache --json > \"$7/second.json\"\n"
            "echo $? > \"$7/second.rc\"\n"
            "cmp -s \"$6\" \"$8\"; echo $? > \"$7/same\"\n");
        const QString expected = m_dir->filePath(QStringLiteral("expected.bin"));
        writeFile(expected, m_payload);
        QProcess child;
        child.setProcessEnvironment(childEnvironment());
        child.start(QStringLiteral("unshare"),
                    {QStringLiteral("-Urm"), QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh"),
                     mount, binary(), m_server->url(QStringLiteral("/a.bin")).toString(), sha256Hex(),
                     QString::number(m_payload.size()), out, m_dir->path(), expected});
        QVERIFY(child.waitForFinished(120'000));
        QCOMPARE(child.exitCode(), 0);
        QVERIFY2(readAll(m_dir->filePath(QStringLiteral("first.rc"))).trimmed() != "0",
                 "a full disk cannot yield a file");
        const QJsonObject first =
            QJsonDocument::fromJson(readAll(m_dir->filePath(QStringLiteral("first.json")))).object();
        const QJsonObject error = first.value(u"error"_s).toObject();
        QCOMPARE(error.value(u"code"_s).toString(), u"disk_full"_s);
        QVERIFY2(error.value(u"message"_s).toString().contains(QStringLiteral("a.bin")), "the message names the file");
        QVERIFY2(!readAll(m_dir->filePath(QStringLiteral("first.ls"))).split('\n').contains("a.bin"),
                 "no unverified a.bin after a full disk");
        QCOMPARE(readAll(m_dir->filePath(QStringLiteral("second.rc"))).trimmed(), QByteArray("0"));
        QCOMPARE(readAll(m_dir->filePath(QStringLiteral("same"))).trimmed(), QByteArray("0"));
        ++g_faultsSurvived;
    }

    void disk_fileSizeLimitIsAnErrorAndTheRerunResumes()
    {
        ++g_faultsTried;
        m_server->route("/a.bin", Response::bytes(m_payload));
        const QString out = m_dir->filePath(QStringLiteral("limited/a.bin"));
        QProcess child;
        child.setProcessEnvironment(childEnvironment());
        // A file-size limit, as on a FAT32 stick or a quota: writes past it fail with EFBIG.
        child.setChildProcessModifier([] {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{1024 * 1024, 1024 * 1024};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        child.start(binary(), fetchArguments(out));
        QVERIFY(child.waitForFinished(120'000));
        QVERIFY2(child.exitCode() != 0, "a file-size limit cannot yield a file");
        const QJsonObject error =
            QJsonDocument::fromJson(child.readAllStandardOutput()).object().value(u"error"_s).toObject();
        QVERIFY2(QStringList({u"write_failed"_s, u"disk_full"_s}).contains(error.value(u"code"_s).toString()),
                 qPrintable(error.value(u"code"_s).toString()));
        QVERIFY(error.value(u"message"_s).toString().contains(QStringLiteral("a.bin")));
        QVERIFY(!QFile::exists(out));
        QVERIFY2(QFile::exists(Downloader::partPathFor(out)), "what arrived is kept for the rerun");

        m_server->clearRequests();
        QProcess rerun;
        rerun.setProcessEnvironment(childEnvironment());
        rerun.start(binary(), fetchArguments(out));
        QVERIFY(rerun.waitForFinished(120'000));
        QCOMPARE(rerun.exitCode(), 0);
        QCOMPARE(readAll(out), m_payload);
        const QByteArray range = m_server->requests("/a.bin").last().header("range");
        QVERIFY2(range.startsWith("bytes=") && !range.startsWith("bytes=0-"), range.constData());
        ++g_faultsSurvived;
    }

    void disk_permissionDeniedIsNamed()
    {
        ++g_faultsTried;
        m_server->route("/a.bin", Response::bytes(m_payload));
        const QString locked = m_dir->filePath(QStringLiteral("locked"));
        QVERIFY(QDir().mkpath(locked));
        QVERIFY(QFile::setPermissions(locked,
                                      QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup
                                          | QFile::ReadOther | QFile::ExeOther));
        const QString out = locked + QStringLiteral("/a.bin");
        QProcess child;
        QProcessEnvironment environment = childEnvironment();
        QString program = binary();
        if (::geteuid() == 0) {
            // Root ignores permission bits: the child drops to "nobody", like a student's account.
            // A build under root's home is out of nobody's reach: it runs a copy from the test's
            // folder (the program needs only the system's libraries).
            QVERIFY(QFileInfo(program).isExecutable());
            if (!traversableByOthers(program)) {
                const QString copy = m_dir->filePath(QStringLiteral("bin/tfsetup"));
                QVERIFY(QDir().mkpath(QFileInfo(copy).path()));
                QFile::remove(copy);
                QVERIFY(QFile::copy(program, copy));
                QVERIFY(QFile::setPermissions(copy, QFile::Permissions(0x7755)));
                QVERIFY(QFile::setPermissions(QFileInfo(copy).path(), QFile::Permissions(0x7755)));
                program = copy;
            }
            const QString home = m_dir->filePath(QStringLiteral("nobody-home"));
            QVERIFY(QDir().mkpath(home));
            QVERIFY(QFile::setPermissions(home, QFile::Permissions(0x7777)));
            QVERIFY(QFile::setPermissions(m_dir->path(), QFile::Permissions(0x7755)));
            environment.insert(QStringLiteral("HOME"), home);
            child.setChildProcessModifier([] {
                if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                    ::_exit(97);
            });
        }
        child.setProcessEnvironment(environment);
        child.start(program, fetchArguments(out));
        QVERIFY(child.waitForFinished(120'000));
        QVERIFY2(child.exitCode() != 97, "could not drop privileges");
        QVERIFY(child.exitCode() != 0);
        const QJsonObject error =
            QJsonDocument::fromJson(child.readAllStandardOutput()).object().value(u"error"_s).toObject();
        QCOMPARE(error.value(u"code"_s).toString(), u"permission_denied"_s);
        QVERIFY(error.value(u"message"_s).toString().contains(QStringLiteral("a.bin")));
        QVERIFY(!QFile::exists(out));
        ++g_faultsSurvived;
    }

    void disk_readOnlyTargetIsNamed()
    {
        if (!canUseMountNamespace())
            QSKIP("no private mount namespace here (unshare -Urm is refused), so no read-only bind mount");
        ++g_faultsTried;
        m_server->route("/a.bin", Response::bytes(m_payload));
        const QString target = m_dir->filePath(QStringLiteral("readonly"));
        QVERIFY(QDir().mkpath(target));
        const QString out = target + QStringLiteral("/a.bin");
        const QString script = QStringLiteral(
            "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" || exit 90\n"
            "shift; exec \"$@\"\n");
        QStringList arguments{QStringLiteral("-Urm"),
                              QStringLiteral("sh"),
                              QStringLiteral("-c"),
                              script,
                              QStringLiteral("sh"),
                              target,
                              binary()};
        arguments += fetchArguments(out);
        QProcess child;
        child.setProcessEnvironment(childEnvironment());
        child.start(QStringLiteral("unshare"), arguments);
        QVERIFY(child.waitForFinished(120'000));
        QVERIFY2(child.exitCode() != 90, "could not make the read-only mount");
        QVERIFY(child.exitCode() != 0);
        const QJsonObject error =
            QJsonDocument::fromJson(child.readAllStandardOutput()).object().value(u"error"_s).toObject();
        QCOMPARE(error.value(u"code"_s).toString(), u"permission_denied"_s);
        QVERIFY(error.value(u"message"_s).toString().contains(QStringLiteral("a.bin")));
        QVERIFY(QDir(target).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));
        ++g_faultsSurvived;
    }

private:
    static TransferOptions fastOptions()
    {
        TransferOptions o;
        o.connectTimeout = 5s;
        o.stallTimeout = 1s;
        o.retriesPerMirror = 1;
        o.probeMirrors = false;
        return o;
    }

    static QString binary() { return qEnvironmentVariable("TFSETUP_BINARY"); }

    static bool canUseMountNamespace()
    {
        QProcess probe;
        probe.start(QStringLiteral("unshare"), {QStringLiteral("-Urm"), QStringLiteral("true")});
        return probe.waitForFinished(10'000) && probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0;
    }

    static bool traversableByOthers(const QString &path)
    {
        for (QFileInfo info(QFileInfo(path).absolutePath()); !info.isRoot(); info = QFileInfo(info.absolutePath())) {
            if (!(info.permissions() & QFile::ExeOther))
                return false;
        }
        return true;
    }

    // Children inherit the test's environment; a leak report at their exit (where a sanitizer
    // build cannot stop the world inside a user namespace) is not what these tests look at.
    static QProcessEnvironment childEnvironment()
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString asan = environment.value(QStringLiteral("ASAN_OPTIONS"));
        environment.insert(QStringLiteral("ASAN_OPTIONS"),
                           asan.isEmpty() ? QStringLiteral("detect_leaks=0")
                                          : asan + QStringLiteral(":detect_leaks=0"));
        return environment;
    }

    static void writeFile(const QString &path, const QByteArray &data)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(data), data.size());
    }

    QString sha256Hex() const
    {
        return QString::fromLatin1(QCryptographicHash::hash(m_payload, QCryptographicHash::Sha256).toHex());
    }

    QStringList fetchArguments(const QString &out) const
    {
        return {QStringLiteral("fetch"),      m_server->url(QStringLiteral("/a.bin")).toString(),
                QStringLiteral("--sha256"),   sha256Hex(),
                QStringLiteral("--size"),     QString::number(m_payload.size()),
                QStringLiteral("--out"),      out,
                QStringLiteral("--no-cache"), QStringLiteral("--json")};
    }

    QString destination() const { return m_dir->filePath(QStringLiteral("out/a.bin")); }
    QString cacheDir() const { return m_dir->filePath(QStringLiteral("cache")); }

    DownloadRequest request(const QList<QUrl> &urls) const
    {
        DownloadRequest r;
        r.name = QStringLiteral("a.bin");
        r.urls = urls;
        r.expectedSize = m_payload.size();
        r.checksum = Checksum{Checksum::Algorithm::Sha256, sha256Hex().toLatin1()};
        r.destination = destination();
        return r;
    }

    Result<DownloadResult> fetch(Downloader &downloader, const DownloadRequest &request)
    {
        auto result = tfsetup::test::awaitTask(downloader.fetch(request), 60s);
        if (!result)
            return Error{QStringLiteral("watchdog"), QStringLiteral("the download did not finish"), {}};
        return *result;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LoopbackServer> m_server;
    QByteArray m_payload;
};

QTEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
