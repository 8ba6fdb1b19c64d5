// pip's failures read for their cause: one row per cause, each with pip's output as pip prints
// it (retry warnings, the final ERROR lines), the cause, the one fix the Install page offers and
// words in the message a student can act on. The network causes come first, because pip ends
// every unreadable index with the same "No matching distribution found".

#include "install/pipfailure.h"

#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(tfsetup::core::PipCause)
Q_DECLARE_METATYPE(tfsetup::core::PipFix)

namespace {

// What pip 23/24 prints after its retries when no index page could be read.
const QString noDistribution = u"ERROR: Could not find a version that satisfies the requirement tensorflow==2.21.* "
                               u"(from versions: none)\n"
                               u"ERROR: No matching distribution found for tensorflow==2.21.*\n"_s;

QString retried(const QString &brokenBy)
{
    QString out = u"Looking in indexes: https://pypi.tuna.tsinghua.edu.cn/simple\n"_s;
    for (int total = 4; total >= 0; --total) {
        out += u"WARNING: Retrying (Retry(total=%1, connect=None, read=None, redirect=None, status=None)) after "
               u"connection broken by '%2': /simple/tensorflow/\n"_s.arg(total)
                   .arg(brokenBy);
    }
    return out + noDistribution;
}

} // namespace

class TestPipFailure final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void builtin_loads();
    void read_namesTheCause_data();
    void read_namesTheCause();
    void noWheel_saysForWhichPythonAndPlatform();
    void errorCode_decidesBeforePipsWords();
    void damagedData_isRefused_data();
    void damagedData_isRefused();
    void fixLabels_haveDistinctMnemonics();
};

void TestPipFailure::builtin_loads()
{
    const auto reader = PipFailureReader::load();
    QVERIFY2(reader, qPrintable(reader ? QString() : reader.error().detail));
}

void TestPipFailure::read_namesTheCause_data()
{
    QTest::addColumn<QString>("output");
    QTest::addColumn<PipCause>("cause");
    QTest::addColumn<PipFix>("fix");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QStringList>("words");

    QTest::newRow("proxy refused") << retried(
        u"ProxyError('Cannot connect to proxy.', NewConnectionError('<pip._vendor.urllib3.connection."
        u"HTTPSConnection object at 0x7f3a1c2b5d90>: Failed to establish a new connection: [Errno 111] "
        u"Connection refused'))"_s) << PipCause::ProxyRefused
                                   << PipFix::SetProxy << u"pypi.tuna.tsinghua.edu.cn"_s
                                   << QStringList{u"proxy"_s, u"host and port"_s};
    QTest::newRow("proxy wants a password (407)")
        << retried(u"ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 407 Proxy "
                   u"Authentication Required'))"_s)
        << PipCause::ProxyAuth << PipFix::SetProxy << u"pypi.tuna.tsinghua.edu.cn"_s
        << QStringList{u"407"_s, u"user name and password"_s};
    QTest::newRow("name not resolved (Linux)")
        << retried(u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f0e2a1b3c10>: "
                   u"Failed to establish a new connection: [Errno -2] Name or service not known')"_s)
        << PipCause::NameNotResolved << PipFix::ChooseMirror << u"pypi.tuna.tsinghua.edu.cn"_s
        << QStringList{u"pypi.tuna.tsinghua.edu.cn"_s, u"offline"_s};
    QTest::newRow("name not resolved (no DNS yet)")
        << retried(u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f0e2a1b3c10>: "
                   u"Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')"_s)
        << PipCause::NameNotResolved << PipFix::ChooseMirror << u"pypi.tuna.tsinghua.edu.cn"_s
        << QStringList{u"could not be found"_s};
    QTest::newRow("name not resolved (Windows)")
        << retried(u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at "
                   u"0x000001F5A3C2E550>: "
                   u"Failed to establish a new connection: [Errno 11001] getaddrinfo failed')"_s)
        << PipCause::NameNotResolved << PipFix::ChooseMirror << u"pypi.tuna.tsinghua.edu.cn"_s << QStringList{u"DNS"_s};
    QTest::newRow("name not resolved (macOS)")
        << retried(u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x1048a2f10>: "
                   u"Failed to establish a new connection: [Errno 8] nodename nor servname provided, or not known')"_s)
        << PipCause::NameNotResolved << PipFix::ChooseMirror << u"pypi.tuna.tsinghua.edu.cn"_s
        << QStringList{u"mirror"_s};
    QTest::newRow("connection refused") << retried(
        u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f9b3d2e4c40>: "
        u"Failed to establish a new connection: [Errno 111] Connection refused')"_s)
                                        << PipCause::ConnectionFailed << PipFix::SetProxy
                                        << u"pypi.tuna.tsinghua.edu.cn"_s << QStringList{u"refused"_s, u"proxy"_s};
    QTest::newRow("connection refused (Windows)")
        << retried(u"NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at "
                   u"0x0000020B9A4C1D90>: "
                   u"Failed to establish a new connection: [WinError 10061] No connection could be made because the "
                   u"target machine actively refused it')"_s)
        << PipCause::ConnectionFailed << PipFix::SetProxy << u"pypi.tuna.tsinghua.edu.cn"_s
        << QStringList{u"refused"_s};
    QTest::newRow("connect timeout")
        << u"WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
           u"broken by 'ConnectTimeoutError(<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f5d9c8e1a50>, "
           u"'Connection to pypi.org timed out. (connect timeout=15)')': /simple/tensorflow/\n"_s
            + noDistribution
        << PipCause::Timeout << PipFix::ChooseMirror << u"pypi.org"_s << QStringList{u"pypi.org"_s, u"in time"_s};
    QTest::newRow("read timeout")
        << u"Collecting tensorflow==2.15.1\n"
           u"  Downloading tensorflow-2.15.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (475.2 MB)\n"
           u"ERROR: Exception:\n"
           u"pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', "
           u"port=443): Read timed out.\n"_s
        << PipCause::Timeout << PipFix::ChooseMirror << u"files.pythonhosted.org"_s
        << QStringList{u"files.pythonhosted.org"_s};
    QTest::newRow("certificate not trusted")
        << u"Looking in indexes: https://pypi.org/simple\n"
           u"Could not fetch URL https://pypi.org/simple/tensorflow/: There was a problem confirming the ssl "
           u"certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: "
           u"/simple/tensorflow/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
           u"certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)'))) - skipping\n"_s
            + noDistribution
        << PipCause::Tls << PipFix::ChooseMirror << u"pypi.org"_s << QStringList{u"certificate"_s, u"pypi.org"_s};
    QTest::newRow("index page missing (404)")
        << u"Looking in indexes: https://mirror.example.edu/pypi/simple\n"
           u"Could not fetch URL https://mirror.example.edu/pypi/simple/tensorflow/: 404 Client Error: Not Found for "
           u"url: https://mirror.example.edu/pypi/simple/tensorflow/ - skipping\n"_s
            + noDistribution
        << PipCause::IndexMissing << PipFix::ChooseMirror << u"mirror.example.edu"_s
        << QStringList{u"404"_s, u"mirror.example.edu"_s};
    QTest::newRow("no wheel for this Python")
        << u"Looking in indexes: https://pypi.org/simple\n"_s + noDistribution << PipCause::NoWheel
        << PipFix::ChoosePlan << u"pypi.org"_s << QStringList{u"no wheel"_s, u"tensorflow==2.21.*"_s};
    QTest::newRow("hash mismatch")
        << u"Processing ./.wheels/tensorflow-2.15.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl\n"
           u"ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package "
           u"versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have "
           u"tampered with them.\n"
           u"    tensorflow==2.15.1 from file:///home/student/tf-envs/.staging/.wheels/tensorflow-2.15.1-cp311-cp311-"
           u"manylinux_2_17_x86_64.manylinux2014_x86_64.whl:\n"
           u"        Expected sha256 0d1a6bf36d0bbbfb7a98b4b4ea4ec1c3aa5b8d1ef2f6fc1f4f3b65c5d76b8a0c\n"
           u"             Got        9e4f2fa1b7e43f0e9ad3b5c2e1d0c9b8a7f6e5d4c3b2a1908f7e6d5c4b3a2910\n"_s
        << PipCause::HashMismatch << PipFix::TryAgain << QString() << QStringList{u"hash"_s};
    QTest::newRow("disk full")
        << u"Installing collected packages: libclang, flatbuffers, tensorflow\n"
           u"ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n"_s
        << PipCause::DiskFull << PipFix::ChooseFolder << QString() << QStringList{u"disk is full"_s};
    QTest::newRow("disk full (Windows)")
        << u"ERROR: Could not install packages due to an OSError: [WinError 112] There is not enough space on the "
           u"disk\n"_s
        << PipCause::DiskFull << PipFix::ChooseFolder << QString() << QStringList{u"another disk"_s};
    QTest::newRow("permission denied")
        << u"Installing collected packages: numpy\n"
           u"ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
           u"'/opt/tf-envs/tf2.15/venv/lib/python3.11/site-packages/numpy'\n"
           u"Consider using the `--user` option or check the permissions.\n"_s
        << PipCause::PermissionDenied << PipFix::ChooseFolder << QString() << QStringList{u"permission denied"_s};
    QTest::newRow("permission denied (Windows)")
        << u"ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: "
           u"'C:\\\\Users\\\\student\\\\tfsetup-envs\\\\tf2.10\\\\venv\\\\Lib\\\\site-packages\\\\~umpy'\n"_s
        << PipCause::PermissionDenied << PipFix::ChooseFolder << QString() << QStringList{u"user folder"_s};
    QTest::newRow("something else")
        << u"ERROR: Exception:\nTraceback (most recent call last):\n  File \"pip/_internal/cli/base_command.py\", "
           u"line 180, in exc_logging_wrapper\nKeyError: 'dist-info'\n"_s
        << PipCause::Unknown << PipFix::OpenLog << QString() << QStringList{u"log"_s};
}

void TestPipFailure::read_namesTheCause()
{
    QFETCH(QString, output);
    QFETCH(PipCause, cause);
    QFETCH(PipFix, fix);
    QFETCH(QString, host);
    QFETCH(QStringList, words);
    const PipFailure f = PipFailureReader::builtin().read(output, {u"3.11"_s, u"Linux x86-64"_s});
    QCOMPARE(PipFailureReader::causeName(f.cause), PipFailureReader::causeName(cause));
    QCOMPARE(f.code, PipFailureReader::causeName(cause));
    QCOMPARE(int(f.fix), int(fix));
    QCOMPARE(f.host, host);
    for (const QString &w : words)
        QVERIFY2(f.message.contains(w, Qt::CaseInsensitive), qPrintable(w + u" not in: "_s + f.message));
    // Never pip's closing line as the student's explanation.
    QVERIFY(!f.message.contains(u"No matching distribution"_s));
    if (cause != PipCause::Unknown) {
        QVERIFY(!f.rule.isEmpty());
        QVERIFY2(output.contains(f.evidence) && !f.evidence.isEmpty(), qPrintable(f.evidence));
    } else {
        QVERIFY(f.evidence.isEmpty());
    }
}

void TestPipFailure::noWheel_saysForWhichPythonAndPlatform()
{
    const QString output = u"Looking in indexes: https://pypi.org/simple\n"
                           u"ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.1 (from "
                           u"versions: 2.16.0rc0, 2.16.1, 2.16.2, 2.17.0)\n"
                           u"ERROR: No matching distribution found for tensorflow==2.10.1\n"_s;
    const PipFailure f = PipFailureReader::builtin().read(output, {u"3.12"_s, u"Windows x86-64"_s});
    QCOMPARE(f.cause, PipCause::NoWheel);
    QCOMPARE(f.requirement, u"tensorflow==2.10.1"_s);
    QCOMPARE(f.versions, u"2.16.0rc0, 2.16.1, 2.16.2, 2.17.0"_s);
    QVERIFY2(f.message.contains(u"Python 3.12"_s), qPrintable(f.message));
    QVERIFY(f.message.contains(u"Windows x86-64"_s));
    QVERIFY(f.message.contains(u"does not mean the release does not exist"_s));
    QCOMPARE(f.evidence,
             u"ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.1 (from "
             u"versions: 2.16.0rc0, 2.16.1, 2.16.2, 2.17.0)"_s);
}

void TestPipFailure::errorCode_decidesBeforePipsWords()
{
    // pip talks to tfsetup's bridge: the bridge knows the proxy refused, pip only sees no pages.
    const Error bridged{u"proxy_unreachable"_s, u"The proxy could not be reached."_s,
                        u"Couldn't connect to proxy\n"_s + noDistribution};
    const PipFailure f = PipFailureReader::builtin().read(bridged, {u"3.11"_s, u"Linux x86-64"_s});
    QCOMPARE(f.cause, PipCause::ProxyRefused);
    QCOMPARE(f.fix, PipFix::SetProxy);
    // A code the data does not name: pip's words decide.
    const Error pip{u"pip_failed"_s, u"pip could not install the verified packages."_s,
                    u"ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n"_s};
    const PipFailure disk = PipFailureReader::builtin().read(pip);
    QCOMPARE(disk.cause, PipCause::DiskFull);
    QCOMPARE(disk.evidence,
             u"ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device"_s);
    // Neither: the log is the way on.
    const PipFailure unknown = PipFailureReader::builtin().read(Error{u"drill"_s, u"x"_s, {}});
    QCOMPARE(unknown.cause, PipCause::Unknown);
    QCOMPARE(unknown.fix, PipFix::OpenLog);
}

void TestPipFailure::damagedData_isRefused_data()
{
    QTest::addColumn<QByteArray>("json");
    const QByteArray causes = R"("causes": {"proxy_refused": {"fix": "set_proxy", "source": "s"},
        "proxy_auth": {"fix": "set_proxy", "source": "s"}, "name_not_resolved": {"fix": "choose_mirror", "source": "s"},
        "connection_failed": {"fix": "set_proxy", "source": "s"}, "timeout": {"fix": "choose_mirror", "source": "s"},
        "tls": {"fix": "choose_mirror", "source": "s"}, "index_missing": {"fix": "choose_mirror", "source": "s"},
        "no_wheel": {"fix": "choose_plan", "source": "s"}, "hash_mismatch": {"fix": "try_again", "source": "s"},
        "disk_full": {"fix": "choose_folder", "source": "s"},
        "permission_denied": {"fix": "choose_folder", "source": "s"},
        "unknown": {"fix": "open_log", "source": "s"}})";
    QTest::newRow("not JSON") << QByteArray("{");
    QTest::newRow("no rules") << QByteArray("{" + causes + ", \"rules\": []}");
    QTest::newRow("a cause without its fix") << QByteArray(R"({"causes": {}, "rules": [{"id": "a", "pattern": "x",
        "cause": "tls", "example": "x", "source": "s"}]})");
    QTest::newRow("an unknown cause") << QByteArray("{" + causes + R"(, "rules": [{"id": "a", "pattern": "x",
        "cause": "solar_flare", "example": "x", "source": "s"}]})");
    QTest::newRow("a broken pattern") << QByteArray("{" + causes + R"(, "rules": [{"id": "a", "pattern": "(",
        "cause": "tls", "example": "(", "source": "s"}]})");
    QTest::newRow("an example its pattern misses") << QByteArray("{" + causes + R"(, "rules": [{"id": "a",
        "pattern": "SSLError", "cause": "tls", "example": "Connection refused", "source": "s"}]})");
    QTest::newRow("a rule without its source") << QByteArray("{" + causes + R"(, "rules": [{"id": "a", "pattern": "x",
        "cause": "tls", "example": "x"}]})");
    // The same minimal list, whole, loads: each row above fails for its own reason.
    QVERIFY(PipFailureReader::fromJson(QByteArray("{" + causes + R"(, "rules": [{"id": "a", "pattern": "x",
        "cause": "tls", "example": "x", "source": "s"}]})")));
    QTest::newRow("a code for an unknown cause") << QByteArray("{" + causes + R"(, "codes": {"dns": "nope"},
        "rules": [{"id": "a", "pattern": "x", "cause": "tls", "example": "x", "source": "s"}]})");
}

void TestPipFailure::damagedData_isRefused()
{
    QFETCH(QByteArray, json);
    const auto reader = PipFailureReader::fromJson(json);
    QVERIFY(!reader);
    QCOMPARE(reader.error().code, u"pipfailures_malformed"_s);
    QVERIFY(reader.error().message.contains(u"Reinstall"_s));
}

void TestPipFailure::fixLabels_haveDistinctMnemonics()
{
    // The wizard's buttons own B, N, I, F and H; the Install page's Stop and Details own S and D.
    // Try again is the page's own retry button, which the fix reuses, not a second one.
    QString seen = u"bnifhsd"_s;
    for (PipFix fix : {PipFix::SetProxy, PipFix::ChooseMirror, PipFix::UseBundle, PipFix::ChoosePlan,
                       PipFix::ChooseFolder, PipFix::OpenLog}) {
        const QString label = PipFailureReader::fixLabel(fix);
        const qsizetype amp = label.indexOf(u'&');
        QVERIFY2(amp >= 0 && amp + 1 < label.size(), qPrintable(label));
        const QChar key = label.at(amp + 1).toLower();
        QVERIFY2(!seen.contains(key), qPrintable(label));
        seen += key;
    }
    QVERIFY(PipFailureReader::fixLabel(PipFix::TryAgain).contains(u"&T"_s));
}

QTEST_APPLESS_MAIN(TestPipFailure)
#include "test_pipfailure.moc"
