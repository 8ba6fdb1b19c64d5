// Jupyter that works, with real programs only: `tfsetup install --profile … --yes` makes a real
// venv and pip installs from a loopback index serving wheels built from Debian's own ipykernel,
// Notebook and their dependencies (tests/support/debian_wheelhouse.py) plus a stand-in
// TensorFlow. Debian's jupyter_client then starts the kernel the install registered and runs code
// in it; the generated start-jupyter launcher, run by /bin/sh, starts a server that answers
// HTTP; nothing is left running. The same profile with a hash lock that lacks ipykernel is
// refused before anything is made.

#include "support/files.h"
#include "support/loopbackserver.h"
#include "support/processes.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using tfsetup::test::buildWheel;
using tfsetup::test::LoopbackServer;
using tfsetup::test::processesUsing;
using tfsetup::test::Ran;
using tfsetup::test::readFile;
using tfsetup::test::Response;
using tfsetup::test::runProcess;

namespace {

// Debian's interpreter: its dist-packages hold the jupyter_client that plays the client and the
// distributions the wheelhouse is built from.
const QString debianPython = u"/usr/bin/python3"_s;
const QString environmentName = u"tf-jupyter"_s;

} // namespace

class TestJupyter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void installRegistersAKernelThatStarts();
    void kernelRunsInTheEnvironment();
    void startJupyterServesHttp();
    void lockWithoutIpykernelIsRefused();
    void cleanupTestCase();

private:
    QProcessEnvironment environment() const;
    Ran run(const QString &program, const QStringList &arguments, int timeoutMs) const
    {
        return runProcess(program, arguments, timeoutMs, environment());
    }
    QString writeProfile(const QString &file, const QString &environment, const QString &lock = {}) const;
    QString envPath() const { return m_home.filePath(u"home/envs/"_s + environmentName); }
    QString kernelFolder() const { return m_home.filePath(u"home/.local/share/jupyter/kernels/"_s + environmentName); }

    QTemporaryDir m_home;
    LoopbackServer m_index;
    QString m_tfWheel;
    QStringList m_wheels;
    bool m_installed = false;
};

QProcessEnvironment TestJupyter::environment() const
{
    // The user's folders, Jupyter's data and pip's configuration all inside the temporary folder;
    // the machine's pip settings (find-links, index) must not reach these installs.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"HOME"_s, m_home.filePath(u"home"_s));
    env.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"home/.local/share"_s));
    env.insert(u"XDG_CONFIG_HOME"_s, m_home.filePath(u"home/.config"_s));
    env.insert(u"XDG_CACHE_HOME"_s, m_home.filePath(u"home/.cache"_s));
    env.insert(u"JUPYTER_DATA_DIR"_s, m_home.filePath(u"home/.local/share/jupyter"_s));
    env.insert(u"JUPYTER_CONFIG_DIR"_s, m_home.filePath(u"home/.jupyter"_s));
    env.insert(u"JUPYTER_RUNTIME_DIR"_s, m_home.filePath(u"home/.local/share/jupyter/runtime"_s));
    env.insert(u"IPYTHONDIR"_s, m_home.filePath(u"home/.ipython"_s));
    env.insert(u"TFSETUP_CACHE_DIR"_s, m_home.filePath(u"cache"_s));
    env.insert(u"PIP_CONFIG_FILE"_s, u"/dev/null"_s);
    for (const QString &name : env.keys()) {
        if (name.startsWith(u"PIP_"_s) && name != u"PIP_CONFIG_FILE"_s)
            env.remove(name);
    }
    env.remove(u"JUPYTER_PATH"_s);
    env.remove(u"PYTHONPATH"_s);
    env.remove(u"VIRTUAL_ENV"_s);
    return env;
}

QString TestJupyter::writeProfile(const QString &file, const QString &environment, const QString &lock) const
{
    QJsonObject profile{{u"schema"_s, 1},
                        {u"title"_s, u"Jupyter test"_s},
                        {u"environment"_s, environment},
                        {u"installFolder"_s, u"${HOME}/envs"_s},
                        {u"interpreter"_s, debianPython},
                        {u"plan"_s,
                         QJsonObject{{u"route"_s, u"linux-pip"_s},
                                     {u"tensorflow"_s, u"2.15.1"_s},
                                     {u"package"_s, u"tensorflow"_s},
                                     {u"python"_s, u"3.11"_s},
                                     {u"requirements"_s, QJsonArray{u"tensorflow==2.15.1"_s}}}},
                        {u"mirrors"_s,
                         QJsonObject{{u"pypi"_s, QJsonArray{m_index.url(u"/simple/"_s).toString()}},
                                     {u"trustedHosts"_s, QJsonArray{u"127.0.0.1"_s}}}},
                        // Debian has no JupyterLab: the lab chooses the classic Notebook.
                        {u"jupyter"_s, u"notebook"_s},
                        {u"kernel"_s, QJsonObject{{u"name"_s, environment}, {u"displayName"_s, u"TF Jupyter test"_s}}},
                        {u"desktopEntry"_s, false}};
    if (!lock.isEmpty())
        profile.insert(u"requirementsLock"_s, lock);
    const QString path = m_home.filePath(file);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QJsonDocument(profile).toJson());
    return path;
}

void TestJupyter::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("TFSETUP_BINARY") || qEnvironmentVariableIsEmpty("TFSETUP_SOURCE_DIR"))
        QSKIP("TFSETUP_BINARY / TFSETUP_SOURCE_DIR are not set (run through ctest)");
    QVERIFY(m_home.isValid());
    QVERIFY(QDir().mkpath(m_home.filePath(u"home"_s)));
    const Ran probe = run(debianPython, {u"-c"_s, u"import venv, ensurepip, jupyter_client, ipykernel, notebook"_s},
                          60000);
    if (!probe.finished || probe.exitCode != 0) {
        QSKIP("Debian's python3 lacks venv or the Jupyter packages (.ci/packages-test: python3-venv, "
              "python3-ipykernel, python3-jupyter-client, python3-notebook)");
    }

    // Real wheels of Debian's ipykernel and Notebook with everything they need, and an index.
    const QString wheelhouse = m_home.filePath(u"wheelhouse"_s);
    const Ran built = run(debianPython,
                          {qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/tests/support/debian_wheelhouse.py"_s,
                           wheelhouse, u"ipykernel"_s, u"notebook"_s},
                          180000);
    QVERIFY2(built.finished && built.exitCode == 0, built.err.constData());
    const QJsonObject summary = QJsonDocument::fromJson(built.out).object();
    for (const QJsonValue &w : summary.value(u"wheels"_s).toArray())
        m_wheels.append(w.toString());
    QVERIFY2(m_wheels.size() > 10, built.out.constData());
    QVERIFY(std::any_of(m_wheels.cbegin(), m_wheels.cend(),
                        [](const QString &w) { return w.startsWith(u"ipykernel-"_s); }));
    QVERIFY(
        std::any_of(m_wheels.cbegin(), m_wheels.cend(), [](const QString &w) { return w.startsWith(u"notebook-"_s); }));

    QVERIFY(m_index.start());
    QDirIterator pages(wheelhouse + u"/simple"_s, {u"index.html"_s}, QDir::Files, QDirIterator::Subdirectories);
    while (pages.hasNext()) {
        const QString page = pages.next();
        const QString folder = QDir(wheelhouse).relativeFilePath(QFileInfo(page).path());
        m_index.route("/" + folder.toUtf8() + "/", Response::bytes(readFile(page), "text/html"));
    }
    for (const QString &wheel : std::as_const(m_wheels)) {
        const QByteArray bytes = readFile(wheelhouse + u"/wheels/"_s + wheel);
        QVERIFY(!bytes.isEmpty());
        // pip asks for the link percent-encoded ("+" in a local version becomes %2B).
        m_index.route("/wheels/" + wheel.toUtf8(), Response::bytes(bytes));
        m_index.route("/wheels/" + QUrl::toPercentEncoding(wheel), Response::bytes(bytes));
        // PEP 658: each wheel's METADATA beside it, which the index's pages announce.
        const QByteArray metadata = readFile(wheelhouse + u"/wheels/"_s + wheel + u".metadata"_s);
        m_index.route("/wheels/" + wheel.toUtf8() + ".metadata", Response::bytes(metadata));
        m_index.route("/wheels/" + QUrl::toPercentEncoding(wheel) + ".metadata", Response::bytes(metadata));
    }

    // The stand-in TensorFlow, from the same index.
    m_tfWheel = m_home.filePath(u"tensorflow-2.15.1-py3-none-any.whl"_s);
    QVERIFY(buildWheel(debianPython, m_tfWheel, u"tensorflow"_s, u"2.15.1"_s, "__version__ = \"2.15.1\"\n"));
    const QByteArray tf = readFile(m_tfWheel);
    const QByteArray digest = QCryptographicHash::hash(tf, QCryptographicHash::Sha256).toHex();
    m_index.route("/simple/tensorflow/",
                  Response::bytes("<!DOCTYPE html><html><body><a href=\"/wheels/"
                                  "tensorflow-2.15.1-py3-none-any.whl#sha256="
                                      + digest
                                      + "\">tensorflow-2.15.1-py3-none-any.whl</a>"
                                        "</body></html>",
                                  "text/html"));
    m_index.route("/wheels/tensorflow-2.15.1-py3-none-any.whl", Response::bytes(tf));
}

void TestJupyter::installRegistersAKernelThatStarts()
{
    const QString profile = writeProfile(u"lab.json"_s, environmentName);
    QVERIFY(!profile.isEmpty());
    const Ran install = run(qEnvironmentVariable("TFSETUP_BINARY"), {u"install"_s, u"--profile"_s, profile, u"--yes"_s},
                            280000);
    QVERIFY2(install.finished && install.exitCode == 0,
             QByteArray(install.out.right(4000) + install.err.right(4000)).constData());
    m_installed = true;

    // pip took the kernel and the chosen front end from the index, not only TensorFlow.
    QVERIFY(m_index.hits("/wheels/tensorflow-2.15.1-py3-none-any.whl") >= 1);
    for (const QString &prefix : {u"ipykernel-"_s, u"notebook-"_s}) {
        const auto wheel = std::find_if(m_wheels.cbegin(), m_wheels.cend(),
                                        [&](const QString &w) { return w.startsWith(prefix); });
        QVERIFY(wheel != m_wheels.cend());
        QVERIFY2(m_index.hits("/wheels/" + wheel->toUtf8()) >= 1, qPrintable(*wheel));
    }
    const QJsonObject record = QJsonDocument::fromJson(readFile(envPath() + u"/environment.json"_s)).object();
    const QString packages = QString::fromUtf8(QJsonDocument(record).toJson());
    QVERIFY2(packages.contains(u"ipykernel=="_s) && packages.contains(u"notebook=="_s),
             qPrintable(packages.left(3000)));

    // The kernelspec went into the isolated Jupyter data folder and runs the venv's Python.
    const QJsonObject spec = QJsonDocument::fromJson(readFile(kernelFolder() + u"/kernel.json"_s)).object();
    const QJsonArray argv = spec.value(u"argv"_s).toArray();
    QVERIFY2(argv.size() >= 3, qPrintable(kernelFolder()));
    QCOMPARE(argv.at(0).toString(), envPath() + u"/venv/bin/python"_s);
    QCOMPARE(argv.at(2).toString(), u"ipykernel_launcher"_s);
}

void TestJupyter::kernelRunsInTheEnvironment()
{
    if (!m_installed)
        QSKIP("the install failed (see installRegistersAKernelThatStarts)");
    // Debian's jupyter_client as the client: finds the kernelspec the install registered (through
    // JUPYTER_DATA_DIR), starts it, runs code, shuts it down. Every wait is bounded.
    const QString script = uR"py(
import json, sys
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import start_new_kernel
name = sys.argv[1]
ksm = KernelSpecManager()
spec = ksm.get_kernel_spec(name)
km, kc = start_new_kernel(kernel_name=name, startup_timeout=90)
out = []
try:
    code = ("import json, os, sys, tensorflow\n"
            "print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix,"
            " 'path': os.environ.get('PATH', ''), 'ld': os.environ.get('LD_LIBRARY_PATH', ''),"
            " 'tf': tensorflow.__version__, 'tf_file': tensorflow.__file__}))")
    def hook(msg):
        if msg['msg_type'] == 'stream' and msg['content'].get('name') == 'stdout':
            out.append(msg['content']['text'])
    reply = kc.execute_interactive(code, timeout=90, output_hook=hook)
    status = reply['content']['status']
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print(json.dumps({'status': status, 'resource_dir': spec.resource_dir, 'output': ''.join(out)}))
)py"_s;
    const Ran client = run(debianPython, {u"-c"_s, script, environmentName}, 240000);
    QVERIFY2(client.finished && client.exitCode == 0, client.err.right(1500).constData());
    const QJsonObject result = QJsonDocument::fromJson(client.out.trimmed().split('\n').last()).object();
    QCOMPARE(result.value(u"status"_s).toString(), u"ok"_s);
    QCOMPARE(result.value(u"resource_dir"_s).toString(), kernelFolder());
    const QJsonObject inside = QJsonDocument::fromJson(result.value(u"output"_s).toString().toUtf8()).object();
    QVERIFY2(!inside.isEmpty(), client.out.constData());

    const QString venv = envPath() + u"/venv"_s;
    QCOMPARE(inside.value(u"executable"_s).toString(), venv + u"/bin/python"_s);
    QCOMPARE(inside.value(u"prefix"_s).toString(), venv);
    QCOMPARE(inside.value(u"tf"_s).toString(), u"2.15.1"_s);
    QVERIFY2(inside.value(u"tf_file"_s).toString().startsWith(venv + u"/lib/"_s),
             qPrintable(inside.value(u"tf_file"_s).toString()));
    // The environment's folders come first on both search paths.
    const QStringList path = inside.value(u"path"_s).toString().split(u':');
    QCOMPARE(path.value(0), venv + u"/bin"_s);
    const QStringList ld = inside.value(u"ld"_s).toString().split(u':', Qt::SkipEmptyParts);
    int firstForeign = ld.size();
    for (int i = 0; i < ld.size(); ++i) {
        if (!ld.at(i).startsWith(envPath() + u'/')) {
            firstForeign = i;
            break;
        }
    }
    for (int i = firstForeign; i < ld.size(); ++i)
        QVERIFY2(!ld.at(i).startsWith(envPath() + u'/'), qPrintable(inside.value(u"ld"_s).toString()));
    QVERIFY2(processesUsing(envPath()).isEmpty(), qPrintable(processesUsing(envPath()).join(u'\n')));
}

void TestJupyter::startJupyterServesHttp()
{
    if (!m_installed)
        QSKIP("the install failed (see installRegistersAKernelThatStarts)");
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    // Extra arguments go through to the server; both spellings of the token option, since the
    // launcher picks JupyterLab / Jupyter Server (ServerApp) or Notebook 6 (NotebookApp).
    QStringList arguments{envPath() + u"/start-jupyter"_s, u"--no-browser"_s,     u"--ip=127.0.0.1"_s,
                          u"--port=%1"_s.arg(port),        u"--port-retries=0"_s, u"--ServerApp.token="_s,
                          u"--NotebookApp.token="_s};
    if (geteuid() == 0)
        arguments.append(u"--allow-root"_s); // the servers refuse root without it (CI runs as root)
    QProcess server;
    server.setProcessEnvironment(environment());
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start(u"/bin/sh"_s, arguments);
    QVERIFY(server.waitForStarted(10000));

    QByteArray answer;
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired() && server.state() == QProcess::Running) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        if (socket.waitForConnected(1000)) {
            socket.write("GET /api HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
            QDeadlineTimer reading(10000);
            while (socket.state() == QAbstractSocket::ConnectedState && !reading.hasExpired())
                socket.waitForReadyRead(500);
            answer = socket.readAll();
            if (answer.startsWith("HTTP/1.1 200") || answer.startsWith("HTTP/1.0 200"))
                break;
        }
        server.waitForFinished(500); // also reads the output
    }
    const QByteArray log = server.readAll();
    QVERIFY2(answer.contains(" 200 "), QByteArray(answer + "\n" + log.right(4000)).constData());
    const QJsonObject api = QJsonDocument::fromJson(answer.mid(answer.indexOf("\r\n\r\n") + 4)).object();
    QVERIFY2(!api.value(u"version"_s).toString().isEmpty(), answer.constData());

    // The launcher exec'd into the server: terminating the process stops the server.
    server.terminate();
    if (!server.waitForFinished(30000)) {
        server.kill();
        QVERIFY(server.waitForFinished(10000));
        QFAIL("the server did not stop on SIGTERM");
    }
    QDeadlineTimer gone(20000);
    while (!processesUsing(envPath()).isEmpty() && !gone.hasExpired())
        QThread::msleep(200);
    QVERIFY2(processesUsing(envPath()).isEmpty(), qPrintable(processesUsing(envPath()).join(u'\n')));
    QTcpSocket after;
    after.connectToHost(QHostAddress::LocalHost, port);
    QVERIFY(!after.waitForConnected(2000));
}

void TestJupyter::lockWithoutIpykernelIsRefused()
{
    // A lab's hash lock is all pip may install: one without ipykernel would give an environment
    // whose registered kernel can never start, so the install refuses before anything is made.
    QFile lock(m_home.filePath(u"requirements.lock.txt"_s));
    QVERIFY(lock.open(QIODevice::WriteOnly));
    lock.write("tensorflow==2.15.1 \\\n    --hash=sha256:"
               + QCryptographicHash::hash(readFile(m_tfWheel), QCryptographicHash::Sha256).toHex() + "\n");
    lock.close();
    const QString name = u"tf-locked"_s;
    const QString profile = writeProfile(u"locked.json"_s, name, u"requirements.lock.txt"_s);
    const Ran install = run(qEnvironmentVariable("TFSETUP_BINARY"),
                            {u"install"_s, u"--profile"_s, profile, u"--yes"_s, u"--json"_s}, 120000);
    QVERIFY(install.finished);
    QCOMPARE(install.exitCode, 1);
    const QString text = QString::fromUtf8(install.out + install.err);
    QVERIFY2(text.contains(u"lock_lacks_jupyter"_s), qPrintable(text));
    QVERIFY2(text.contains(u"ipykernel"_s) && text.contains(u"notebook"_s), qPrintable(text));
    QVERIFY(!QFileInfo::exists(m_home.filePath(u"home/envs/"_s + name)));
    QVERIFY(!QFileInfo::exists(m_home.filePath(u"home/.local/share/jupyter/kernels/"_s + name)));
}

void TestJupyter::cleanupTestCase()
{
    QVERIFY2(processesUsing(m_home.path()).isEmpty(), qPrintable(processesUsing(m_home.path()).join(u'\n')));
}

QTEST_GUILESS_MAIN(TestJupyter)
#include "test_jupyter.moc"
