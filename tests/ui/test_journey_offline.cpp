// A student without network, driven by objectName under the offscreen platform. While a loopback
// PyPI-style index is up, `tfsetup bundle` makes an offline bundle of the plan the Choose page
// will offer (a stand-in TensorFlow and the Jupyter packages). Then the test runs itself again,
// under `unshare --net`, in a network namespace of its own: only a loopback interface, no route
// anywhere. There the whole journey runs, Welcome → Detect → Choose → Options (the bundle
// chosen) → Download (nothing) → Install (a real venv, pip from the bundle's wheelhouse only) →
// Verify (the real smoke test) → Finish, while every origin, mirror and proxy setting (and the
// proxy variables pip and curl read) points at a port where a listener counts connections: it
// must count none, and the index outside the namespace must have had no request during the
// journey. Bad bundles (an empty folder, a folder without bundle.json, a broken bundle.json, a
// bundle for another plan) each show their own error on the Options page, and Next stays there.

#include "uitest.h"
#include "journeyhost.h"
#include "install/environmentrecord.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "system/realsystem.h"
#include "ui/choosepage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/wizardstate.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkInterface>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::child;
using tfsetup::test::LoopbackServer;
using tfsetup::test::readFile;
using tfsetup::test::Response;

namespace {

// Set in the child's environment: the parent's folder, which holds the bundle and receives the
// child's result.
const char *const childVariable = "TFSETUP_OFFLINE_JOURNEY_DIR";
const char *const originVariable = "TFSETUP_OFFLINE_JOURNEY_ORIGIN";

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The namespace's loopback interface starts down; the counting listener needs it up.
QString bringLoopbackUp()
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return QString::fromLocal8Bit(std::strerror(errno));
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    QString error;
    if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
        error = QString::fromLocal8Bit(std::strerror(errno));
    } else {
        request.ifr_flags |= IFF_UP;
        if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0)
            error = QString::fromLocal8Bit(std::strerror(errno));
    }
    ::close(fd);
    return error;
}

// Names of this network namespace's interfaces that are up, loopback included. (Not from
// /sys/class/net, which shows the namespace that mounted /sys.)
QStringList interfacesUp()
{
    QStringList up;
    for (const QNetworkInterface &i : QNetworkInterface::allInterfaces()) {
        if (i.flags() & QNetworkInterface::IsUp)
            up.append(i.name());
    }
    return up;
}

// The child's failures and warnings with their places, then its last lines: what a failure
// message has room for.
QString childReport(const QString &output)
{
    const QStringList lines = output.split(u'\n');
    QStringList kept;
    for (const QString &line : lines) {
        if (line.startsWith(u"FAIL!"_s) || line.startsWith(u"QWARN"_s) || line.startsWith(u"   Loc:"_s))
            kept.append(line.left(400));
    }
    kept.append(u"…"_s);
    kept += lines.mid(std::max<qsizetype>(0, lines.size() - 8));
    return kept.join(u'\n');
}

QString describe(const core::Error &e)
{
    return e.code + u": "_s + e.message + u'\n' + e.detail;
}

} // namespace

class TestJourneyOffline final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void offlineJourney_inANetworkNamespace_needsNoNetwork();
    void offlineJourney_child();
    void badBundle_isSaidOnOptions_andNextStaysThere_data();
    void badBundle_isSaidOnOptions_andNextStaysThere();

private:
    bool isChild() const { return !qEnvironmentVariableIsEmpty(childVariable); }
    QString bundleDir() const { return m_root + u"/bundle"_s; }
    // Welcome → Detect → Choose of a new wizard; Options is showing when it returns true.
    bool toOptions(QList<QStringList> *launched);
    QAbstractButton *button(QWizard::WizardButton which) const { return m_wizard->button(which); }
    bool nextEnabled() const { return button(QWizard::NextButton)->isEnabled(); }
    void clickNext() { QTest::mouseClick(button(QWizard::NextButton), Qt::LeftButton); }
    // The Options page's fields: the bundle, and everything else at `origin`.
    void fillOptions(const QString &bundle, const QUrl &origin);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_root; // the parent's folder (in the child too)
    tfsetup::test::JourneyHost m_host;
    QJsonObject m_plan;        // tfsetup plan's recommendation for the journey's machine
    QString m_otherTensorflow; // an alternative of another release line
    std::unique_ptr<LoopbackServer> m_index;
    std::unique_ptr<core::RealSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyOffline::initTestCase()
{
    m_dir = isChild() ? std::make_unique<QTemporaryDir>(qEnvironmentVariable(childVariable) + u"/child-XXXXXX"_s)
                      : std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (isChild())
        m_dir->setAutoRemove(false); // the parent reads the environment, then removes it all
    m_root = isChild() ? qEnvironmentVariable(childVariable) : m_dir->path();
    if (const QString why = m_host.prepare(*m_dir); !why.isEmpty())
        QFAIL(qPrintable(why)); // the packages CI installs (python3-venv, python3-pip) are missing
    QVERIFY(!m_host.python.isEmpty());
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY"), "TFSETUP_BINARY is not set: run through ctest");
    if (isChild())
        return; // the bundle is the parent's

    // The plan the Choose page will offer for the journey's machine, as tfsetup plan says it.
    QJsonObject machine = QJsonDocument::fromJson(
                              readFile(qEnvironmentVariable("TFSETUP_TEST_DATA") + u"/solver/linux_no_gpu.json"_s))
                              .object();
    machine[u"pythons"_s] = QJsonArray{QJsonObject{{u"path"_s, m_host.python},
                                                   {u"version"_s, m_host.pythonVersion},
                                                   {u"kind"_s, u"system"_s},
                                                   {u"bits"_s, 64},
                                                   {u"source"_s, u"path"_s}}};
    const QString hardware = m_root + u"/machine.json"_s;
    QVERIFY(writeFile(hardware, QJsonDocument(machine).toJson()));
    QProcess plan;
    plan.start(qEnvironmentVariable("TFSETUP_BINARY"), {u"plan"_s, u"--hardware"_s, hardware, u"--json"_s});
    QVERIFY(plan.waitForFinished(60'000));
    QVERIFY2(plan.exitCode() == 0, plan.readAllStandardError().constData());
    const QByteArray planJson = plan.readAllStandardOutput();
    const QJsonObject planned = QJsonDocument::fromJson(planJson).object();
    m_plan = planned.value(u"recommended"_s).toObject();
    QVERIFY2(!m_plan.isEmpty(), planJson.constData());
    const QString tensorflow = m_plan.value(u"tensorflow"_s).toString();
    for (const QJsonValue &a : planned.value(u"alternatives"_s).toArray()) {
        const QString other = a.toObject().value(u"tensorflow"_s).toString();
        if (other.section(u'.', 0, 1) != tensorflow.section(u'.', 0, 1)) {
            m_otherTensorflow = other;
            break;
        }
    }
    QVERIFY2(!m_otherTensorflow.isEmpty(), planJson.constData());
    const QString planFile = m_root + u"/plan.json"_s;
    QVERIFY(writeFile(planFile, planJson));

    // The lab's index: a stand-in TensorFlow under the plan's name and version, and the Jupyter
    // packages every environment gets.
    m_index = std::make_unique<LoopbackServer>();
    QVERIFY(m_index->start());
    const QString distribution = m_plan.value(u"package"_s).toString().section(u'[', 0, 0);
    const QString normalized = QString(distribution).replace(u'_', u'-').toLower();
    QByteArray module = readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                 + u"/verify/fake_tensorflow/tensorflow/__init__.py"_s);
    module.replace(QByteArray("__version__ = \"2.99.0\""), QByteArray("__version__ = \"" + tensorflow.toUtf8() + '"'));
    const QString wheelName = QString(distribution).replace(u'-', u'_') + u'-' + tensorflow + u"-py3-none-any.whl"_s;
    const QString wheel = m_dir->filePath(wheelName);
    QVERIFY(tfsetup::test::buildWheel(m_host.python, wheel, distribution, tensorflow, module));
    const QByteArray wheelBytes = readFile(wheel);
    const QByteArray digest = QCryptographicHash::hash(wheelBytes, QCryptographicHash::Sha256).toHex();
    m_index->route("/simple/" + normalized.toUtf8() + "/",
                   Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                       + "#sha256=" + digest + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                   "text/html"));
    m_index->route("/files/" + wheelName.toUtf8(), Response::bytes(wheelBytes));
    QVERIFY(m_host.serveJupyterStandIns(*m_index, *m_dir));

    // The bundle, as a lab administrator makes it on a machine with network.
    QProcess bundle;
    bundle.start(qEnvironmentVariable("TFSETUP_BINARY"),
                 {u"bundle"_s, u"--plan"_s, planFile, u"--out"_s, bundleDir(), u"--pip-python"_s, m_host.python,
                  u"--mirror"_s, u"pypi="_s + m_index->url(u"/simple"_s).toString(), u"--origin"_s,
                  u"pypi-json="_s + m_index->url(u"/pypi"_s).toString()});
    QVERIFY(bundle.waitForFinished(180'000));
    QVERIFY2(bundle.exitCode() == 0,
             QByteArray(bundle.readAllStandardOutput() + bundle.readAllStandardError()).constData());
    QVERIFY(m_index->hits("/files/" + wheelName.toUtf8()) >= 1);
    QVERIFY(QFileInfo::exists(bundleDir() + u"/wheelhouse/"_s + wheelName));
}

bool TestJourneyOffline::toOptions(QList<QStringList> *launched)
{
    m_system = std::make_unique<core::RealSystem>();
    m_wizard = m_host.wizard(*m_system, *m_dir, launched);
    m_wizard->show();
    [&] {
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
        clickNext();
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
        QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 10'000);
        clickNext();
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
        QTRY_VERIFY_WITH_TIMEOUT(m_wizard->choosePage()->chosenPlan().has_value(), 20'000);
        QVERIFY(nextEnabled());
        clickNext();
        QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    }();
    return !QTest::currentTestFailed();
}

void TestJourneyOffline::fillOptions(const QString &bundle, const QUrl &origin)
{
    auto *options = m_wizard->optionsPage();
    child<QComboBox>(options, u"pypiMirrorCombo"_s)->setEditText(origin.resolved(QUrl(u"simple"_s)).toString());
    child<QLineEdit>(options, u"nvidiaMirrorEdit"_s)->setText(origin.resolved(QUrl(u"nvidia"_s)).toString());
    child<QLineEdit>(options, u"proxyEdit"_s)->setText(origin.toString());
    child<QLineEdit>(options, u"bundleEdit"_s)->setText(bundle);
}

void TestJourneyOffline::offlineJourney_inANetworkNamespace_needsNoNetwork()
{
    if (isChild())
        QSKIP("this is the child: the parent's copy runs the journey in the namespace");
    const QString unshare = QStandardPaths::findExecutable(u"unshare"_s);
    QVERIFY2(!unshare.isEmpty(), "unshare (util-linux) is not installed: it removes the journey's network access");
    const int requestsBefore = int(m_index->requests().size());

    // As root (CI) a plain network namespace; otherwise one inside a user namespace, where this
    // user is root and may still bring its loopback up.
    QStringList arguments;
    if (::geteuid() != 0)
        arguments << u"--map-root-user"_s;
    arguments << u"--net"_s << u"--"_s << QCoreApplication::applicationFilePath() << u"offlineJourney_child"_s;
    QProcess journey;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(childVariable), m_root);
    env.insert(QString::fromLatin1(originVariable), m_index->url(u"/"_s).toString());
    journey.setProcessEnvironment(env);
    journey.setProcessChannelMode(QProcess::MergedChannels);
    journey.start(unshare, arguments);
    QVERIFY(journey.waitForStarted());
    // The index keeps answering here, outside the namespace, while the child runs.
    QTRY_VERIFY_WITH_TIMEOUT(journey.state() == QProcess::NotRunning, 240'000);
    const QString output = QString::fromUtf8(journey.readAll());
    if (!output.contains(u"Start testing of TestJourneyOffline"_s)) {
        QFAIL(qPrintable(u"unshare --net could not give the journey a network namespace of its own, so this test "
                         "cannot prove that it needs no network. Run it as root (CI does) or where user namespaces "
                         "are allowed. unshare said:\n"_s
                         + output));
    }
    // What the child saw, and what it left.
    const QJsonObject result = QJsonDocument::fromJson(readFile(m_root + u"/child-result.json"_s)).object();
    QVERIFY2(!result.isEmpty(), qPrintable(childReport(output)));
    const QString seen = u"connection attempts counted in the namespace: %1\n"_s.arg(
        result.value(u"connections"_s).toInt(-1));
    QVERIFY2(journey.exitStatus() == QProcess::NormalExit && journey.exitCode() == 0,
             qPrintable(seen + childReport(output)));
    QVERIFY2(output.contains(u"PASS   : TestJourneyOffline::offlineJourney_child()"_s),
             qPrintable(seen + childReport(output)));
    QCOMPARE(result.value(u"connections"_s).toInt(-1), 0);
    QVERIFY2(result.value(u"interfaces_up"_s).toArray() == QJsonArray{u"lo"_s},
             QJsonDocument(result).toJson().constData());
    QCOMPARE(int(m_index->requests().size()), requestsBefore); // the index outside had no request either
    const QString environment = result.value(u"environment"_s).toString();
    const auto record = core::EnvironmentRecord::read(environment);
    QVERIFY2(record, qPrintable(record ? QString() : describe(record.error())));
    bool fromTheWheelhouse = false;
    for (const core::RecordedCommand &c : record->commands) {
        if (c.arguments.contains(u"install"_s) && c.arguments.contains(u"--no-index"_s)) {
            QVERIFY(c.arguments.contains(u"--require-hashes"_s));
            QCOMPARE(c.exitCode, 0);
            fromTheWheelhouse = true;
        }
    }
    QVERIFY2(fromTheWheelhouse, "pip installed the verified wheels with no index");
    // Every wheel pip installed is one of the bundle's, by its file and hash.
    QVERIFY(!record->lock.packages.isEmpty());
    for (const core::InstallArtifact &a : record->plan().artifacts) {
        if (a.kind != u"wheel"_s)
            continue;
        QVERIFY2(QFileInfo::exists(bundleDir() + u"/wheelhouse/"_s + QUrl(a.origin).fileName()), qPrintable(a.origin));
        const core::LockedWheel *w = record->lock.find(a.component);
        QVERIFY(w);
        QCOMPARE(a.sha256, w->sha256);
    }
}

void TestJourneyOffline::offlineJourney_child()
{
    if (!isChild())
        QSKIP("runs only in the child process, in a network namespace of its own");
    const QUrl origin(qEnvironmentVariable(originVariable));
    QVERIFY(origin.port() > 0);

    // Outside this namespace the index is up; from here nothing reaches it.
    {
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, quint16(origin.port()));
        QVERIFY2(!probe.waitForConnected(3000), "the parent's index is reachable: this is not a namespace of its own");
    }
    // A listener on the index's port (and the proxy's) counts every connection anything tries.
    const QString loopback = bringLoopbackUp();
    QVERIFY2(loopback.isEmpty(), qPrintable(u"cannot bring the namespace's loopback up: "_s + loopback));
    QTcpServer counter;
    QVERIFY2(counter.listen(QHostAddress::LocalHost, quint16(origin.port())), qPrintable(counter.errorString()));
    int connections = 0;
    connect(&counter, &QTcpServer::newConnection, &counter, [&] {
        while (QTcpSocket *s = counter.nextPendingConnection()) {
            ++connections;
            s->close();
            s->deleteLater();
        }
    });
    const QByteArray proxy = origin.toString().toUtf8();
    for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"})
        qputenv(name, proxy);
    qunsetenv("no_proxy");
    qunsetenv("NO_PROXY");
    // What the parent checks, written however this function ends.
    QString environment;
    const auto report = qScopeGuard([&] {
        QTest::qWait(200); // connections still queued are counted too
        const QJsonObject result{{u"connections"_s, connections},
                                 {u"interfaces_up"_s, QJsonArray::fromStringList(interfacesUp())},
                                 {u"environment"_s, environment}};
        writeFile(m_root + u"/child-result.json"_s, QJsonDocument(result).toJson());
    });

    QList<QStringList> launched;
    QVERIFY(toOptions(&launched));
    const core::Plan plan = *m_wizard->choosePage()->chosenPlan();
    const QJsonObject bundled = QJsonDocument::fromJson(readFile(bundleDir() + u"/bundle.json"_s)).object();
    QCOMPARE(plan.route, bundled.value(u"route"_s).toString());
    QCOMPARE(plan.tensorflow, bundled.value(u"tensorflow"_s).toString());

    // Options: the bundle, and every other way out leads to the counter.
    auto *options = m_wizard->optionsPage();
    core::SetupOptions base;
    for (const QString &name : {u"nvidia"_s, u"python"_s, u"python-build-standalone"_s, u"pypi"_s, u"pypi-json"_s})
        base.network.originOverrides.append({name, origin.resolved(QUrl(name))});
    options->suggestOptions(base);
    fillOptions(bundleDir(), origin);
    QVERIFY(nextEnabled());
    QSignalSpy resolved(options, &ui::OptionsPage::resolved);
    clickNext();
    QVERIFY(resolved.count() > 0 || resolved.wait(30'000));
    QVERIFY2(resolved.first().first().toBool(), qPrintable(child<QLabel>(options, u"statusLabel"_s)->text()));
    QCOMPARE(m_wizard->state().options().network.bundleDir, bundleDir());

    // Download: everything is in the bundle.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    QCOMPARE(m_wizard->downloadPage()->rowCount(), 0);
    QVERIFY(nextEnabled());

    // Install: a real venv, pip from the bundle's wheelhouse.
    auto *install = m_wizard->installPage();
    QSignalSpy installed(install, &ui::InstallPage::finished);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId));
    QVERIFY(installed.wait(150'000));
    QVERIFY2(installed.first().first().toBool(),
             qPrintable(install->error() ? describe(*install->error()) : QString()));
    environment = m_wizard->state().installed()->environmentPath;
    QVERIFY(QFileInfo::exists(environment + u"/environment.json"_s));
    QVERIFY(nextEnabled());
    clickNext();

    // Verify: the smoke test through the environment's own launcher.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    QSignalSpy verified(m_wizard->verifyPage(), &ui::VerifyPage::finished);
    QVERIFY(verified.count() > 0 || verified.wait(60'000));
    const auto &verdict = m_wizard->state().verified();
    QVERIFY(verdict);
    const core::VerifyLayer *import = verdict->layer(u"import"_s);
    QVERIFY(import);
    QVERIFY2(import->status == core::VerifyLayer::Status::Passed, qPrintable(import->summary));
    QCOMPARE(verdict->tensorflow, plan.tensorflow);
    QVERIFY(nextEnabled());
    clickNext();

    // Finish.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    QVERIFY(button(QWizard::FinishButton)->isVisible());
    QVERIFY(button(QWizard::FinishButton)->isEnabled());

    QTest::qWait(200);
    QCOMPARE(connections, 0);
}

void TestJourneyOffline::badBundle_isSaidOnOptions_andNextStaysThere_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("words"); // each must be in the Options page's message
    QTest::newRow("empty folder") << u"empty"_s << QStringList{u"is empty"_s, u"tfsetup bundle"_s};
    QTest::newRow("folder without bundle.json")
        << u"no bundle.json"_s << QStringList{u"no bundle.json"_s, u"tfsetup bundle"_s};
    QTest::newRow("broken bundle.json") << u"broken"_s << QStringList{u"bundle.json"_s, u"not valid JSON"_s};
    QTest::newRow("bundle for another plan")
        << u"other plan"_s << QStringList{u"was made for"_s, u"Choose the plan the bundle was made for"_s};
}

void TestJourneyOffline::badBundle_isSaidOnOptions_andNextStaysThere()
{
    if (isChild())
        QSKIP("this is the child: the parent's copy shows the bad bundles");
    QFETCH(QString, kind);
    QFETCH(QStringList, words);
    const QString folder = m_dir->filePath(u"bad-"_s
                                           + QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-'));
    QVERIFY(QDir().mkpath(folder));
    const QString tensorflow = m_plan.value(u"tensorflow"_s).toString();
    if (kind == u"no bundle.json") {
        // What is left of a bundle copied without its description.
        QVERIFY(QFile::copy(bundleDir() + u"/wheelhouse/requirements.txt"_s, folder + u"/requirements.txt"_s));
    } else if (kind == u"broken") {
        const QByteArray good = readFile(bundleDir() + u"/bundle.json"_s);
        QVERIFY(writeFile(folder + u"/bundle.json"_s, good.left(good.size() / 2)));
    } else if (kind == u"other plan") {
        // The same bundle, described as one for another TensorFlow release.
        QVERIFY(QFile::copy(bundleDir() + u"/bundle.json"_s, folder + u"/bundle.json"_s));
        QVERIFY(QDir().mkpath(folder + u"/wheelhouse"_s));
        for (const QString &f : QDir(bundleDir() + u"/wheelhouse"_s).entryList(QDir::Files))
            QVERIFY(QFile::copy(bundleDir() + u"/wheelhouse/"_s + f, folder + u"/wheelhouse/"_s + f));
        QJsonObject root = QJsonDocument::fromJson(readFile(folder + u"/bundle.json"_s)).object();
        root.insert(u"tensorflow"_s, m_otherTensorflow);
        QFile::remove(folder + u"/bundle.json"_s);
        QVERIFY(writeFile(folder + u"/bundle.json"_s, QJsonDocument(root).toJson()));
        words << u"TensorFlow "_s + m_otherTensorflow << u"TensorFlow "_s + tensorflow;
    }
    const int requestsBefore = int(m_index->requests().size());

    QList<QStringList> launched;
    QVERIFY(toOptions(&launched));
    auto *options = m_wizard->optionsPage();
    core::SetupOptions base;
    for (const QString &name : {u"nvidia"_s, u"python"_s, u"python-build-standalone"_s, u"pypi"_s, u"pypi-json"_s})
        base.network.originOverrides.append({name, m_index->url(u"/"_s + name)});
    options->suggestOptions(base);
    fillOptions(folder, m_index->url(u"/"_s));
    QSignalSpy resolved(options, &ui::OptionsPage::resolved);
    clickNext();
    QVERIFY(resolved.count() > 0 || resolved.wait(30'000));
    QCOMPARE(resolved.first().first().toBool(), false);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    auto *status = child<QLabel>(options, u"statusLabel"_s);
    QVERIFY(status->isVisible());
    for (const QString &word : words)
        QVERIFY2(status->text().contains(word), qPrintable(word + u" not in: "_s + status->text()));
    // Nothing went to the network instead, and the page can be tried again.
    QCOMPARE(int(m_index->requests().size()), requestsBefore);
    QVERIFY(!m_wizard->state().artifacts());
    QVERIFY(nextEnabled());
    clickNext();
    QTRY_COMPARE_WITH_TIMEOUT(resolved.count(), 2, 30'000);
    QCOMPARE(resolved.last().first().toBool(), false);
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    m_wizard.reset();
}

QTEST_MAIN(TestJourneyOffline)
#include "test_journey_offline.moc"
