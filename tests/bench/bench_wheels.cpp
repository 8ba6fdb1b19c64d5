// The wheels of a pip-route install, against a loopback package index, three ways:
//
//   speed   Each wheel response paced at 4 MiB/s per connection (as mirrors that cap each
//           connection do). `python3 -m venv` + `pip install --no-cache-dir` of the same
//           requirements, pip resolving from the plain index (no PEP 658 metadata, so it fetches
//           each wheel once, to resolve and install) against `tfsetup install --profile` of a lab
//           profile with the same requirements from the index with metadata (as PyPI serves it),
//           from an empty download cache. Target: tfsetup <= 0.6 x pip.
//   cuts    Every wheel response cut at 32 MiB: tfsetup install completes; bytes served / the
//           wheels' bytes. Target: <= 1.1.
//   again   A second environment from the same cache: wheel bytes fetched. Target: 0.
//
//     bench_wheels TFSETUP [--tensorflow-mib N] [--nvidia-mib N] [--rate-mib N] [--runs N]
//
// The wheels: a stand-in TensorFlow of N MiB (default 192) needing two stand-in nvidia-* wheels
// of M MiB each (default 64) and a small one; all incompressible, all installable. Each row is
// the best of --runs (default 1) runs. Prints a Markdown table (| key | measurement | value |
// unit |) and "met" or "MISSED" per target; exit status 1 when a target is missed.

#include "support/files.h"
#include "support/loopbackserver.h"
#include "support/testindex.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>

using namespace tfsetup::test;
using namespace Qt::StringLiterals;

namespace {

struct Timed {
    bool ok = false;
    double seconds = 0;
    QByteArray output;
};

Timed runTimed(const QString &program, const QStringList &arguments,
               const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer clock;
    clock.start();
    p.start(program, arguments);
    const bool finished = p.waitForFinished(30 * 60 * 1000);
    Timed t;
    t.seconds = double(clock.elapsed()) / 1000.0;
    t.output = p.readAll();
    t.ok = finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    return t;
}

bool writeProfile(const QString &path, const QString &name, const QString &python, const QString &minor,
                  const QString &index, const QStringList &requirements)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    f.write(QJsonDocument(QJsonObject{{u"schema"_s, 1},
                                      {u"title"_s, u"Wheels benchmark"_s},
                                      {u"environment"_s, name},
                                      {u"installFolder"_s, u"${HOME}/envs"_s},
                                      {u"interpreter"_s, python},
                                      {u"jupyter"_s, false},
                                      {u"plan"_s,
                                       QJsonObject{{u"route"_s, u"linux-pip"_s},
                                                   {u"tensorflow"_s, u"2.15.0"_s},
                                                   {u"package"_s, u"tensorflow"_s},
                                                   {u"python"_s, minor},
                                                   {u"requirements"_s, QJsonArray::fromStringList(requirements)}}},
                                      {u"mirrors"_s, QJsonObject{{u"pypi"_s, QJsonArray{index}}}},
                                      {u"kernel"_s, QJsonObject{{u"register"_s, false}}},
                                      {u"desktopEntry"_s, false}})
                .toJson());
    return true;
}

void row(const char *key, const QString &measurement, double value, const char *unit)
{
    printf("| %s | %s | %.3f | %s |\n", key, qPrintable(measurement), value, unit);
    fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addPositionalArgument(u"tfsetup"_s, u"the tfsetup binary"_s);
    parser.addOption({u"tensorflow-mib"_s, u"size of the stand-in TensorFlow wheel"_s, u"N"_s, u"192"_s});
    parser.addOption({u"nvidia-mib"_s, u"size of each stand-in nvidia-* wheel"_s, u"N"_s, u"64"_s});
    parser.addOption({u"rate-mib"_s, u"MiB/s per connection in the speed row"_s, u"N"_s, u"4"_s});
    parser.addOption({u"runs"_s, u"runs per row (best kept)"_s, u"N"_s, u"1"_s});
    parser.process(app);
    if (parser.positionalArguments().size() != 1) {
        fprintf(stderr,
                "usage: bench_wheels TFSETUP [--tensorflow-mib N] [--nvidia-mib N] [--rate-mib N] [--runs N]\n");
        return 2;
    }
    const QString tfsetup = QFileInfo(parser.positionalArguments().first()).absoluteFilePath();
    const qint64 tensorflowBytes = parser.value(u"tensorflow-mib"_s).toLongLong() << 20;
    const qint64 nvidiaBytes = parser.value(u"nvidia-mib"_s).toLongLong() << 20;
    const qint64 rate = parser.value(u"rate-mib"_s).toLongLong() << 20;
    const int runs = std::max(1, parser.value(u"runs"_s).toInt());
    const QString python = QStandardPaths::findExecutable(u"python3"_s);
    QProcess version;
    version.start(python, {u"-c"_s, u"import sys; print('%d.%d' % sys.version_info[:2])"_s});
    version.waitForFinished();
    const QString minor = QString::fromUtf8(version.readAllStandardOutput()).trimmed();

    QTemporaryDir work;
    const QString wheels = work.filePath(u"wheels"_s);
    QDir().mkpath(wheels);
    // TensorFlow needs the nvidia-* wheels, as tensorflow[and-cuda] does; pip finds that only by
    // reading TensorFlow's metadata.
    const bool built = buildWheel(python, wheels + u"/smallpkg-1.0-py3-none-any.whl"_s, u"smallpkg"_s, u"1.0"_s, "\n",
                                  u"smallpkg"_s)
        && buildLargeWheel(python, wheels + u"/nvidia_one_cu12-12.0-py3-none-any.whl"_s, u"nvidia-one-cu12"_s,
                           u"12.0"_s, nvidiaBytes)
        && buildLargeWheel(python, wheels + u"/nvidia_two_cu12-12.0-py3-none-any.whl"_s, u"nvidia-two-cu12"_s,
                           u"12.0"_s, nvidiaBytes)
        && buildLargeWheel(python, wheels + u"/tensorflow_core-2.15.0-py3-none-any.whl"_s, u"tensorflow-core"_s,
                           u"2.15.0"_s, tensorflowBytes)
        && buildWheel(python, wheels + u"/tensorflow-2.15.0-py3-none-any.whl"_s, u"tensorflow"_s, u"2.15.0"_s,
                      "__version__ = \"2.15.0\"\n", u"tensorflow"_s,
                      {u"tensorflow-core==2.15.0"_s, u"nvidia-one-cu12"_s, u"nvidia-two-cu12"_s, u"smallpkg"_s});
    if (!built) {
        fprintf(stderr, "could not build the wheels with %s\n", qPrintable(python));
        return 1;
    }
    qint64 wheelBytes = 0;
    for (const QFileInfo &w : QDir(wheels).entryInfoList({u"*.whl"_s}))
        wheelBytes += w.size();

    LoopbackServer server;
    if (!server.start()) {
        fprintf(stderr, "%s\n", qPrintable(server.errorString()));
        return 1;
    }
    TestIndex withMetadata(server);                        // as PyPI serves it
    TestIndex plain(server, QByteArrayLiteral("/plain/")); // no PEP 658 metadata: pip fetches each wheel once
    plain.setMetadata(false);
    for (TestIndex *index : {&withMetadata, &plain}) {
        index->addWheelsFrom(wheels);
        // The kernel's package, built for each index into a folder of its own (a wheel built
        // again differs in its timestamps, and an index publishes the hash of what it was given).
        const QString standIns = work.filePath(index == &plain ? u"standins-plain"_s : u"standins"_s);
        QDir().mkpath(standIns);
        if (!addStandIns(*index, python, standIns, {})) {
            fprintf(stderr, "could not build the stand-in wheels\n");
            return 1;
        }
    }
    const QStringList requirements{u"tensorflow==2.15.0"_s, u"ipykernel"_s};

    int attempt = 0;
    const auto home = [&] { return work.filePath(u"home-%1"_s.arg(++attempt)); };
    const auto environment = [](const QString &homeDir) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
            env.remove(QString::fromLatin1(name));
        env.insert(u"HOME"_s, homeDir);
        env.insert(u"XDG_DATA_HOME"_s, homeDir + u"/data"_s);
        env.insert(u"XDG_CACHE_HOME"_s, homeDir + u"/cache"_s);
        env.insert(u"PIP_NO_CACHE_DIR"_s, u"1"_s);
        return env;
    };
    const auto tfsetupInstall = [&](const QString &homeDir, const QString &cache, const QString &name) {
        QDir().mkpath(homeDir);
        const QString profile = homeDir + u"/lab.json"_s;
        writeProfile(profile, name, python, minor, withMetadata.url().toString(), requirements);
        return runTimed(tfsetup, {u"install"_s, u"--profile"_s, profile, u"--yes"_s, u"--cache"_s, cache},
                        environment(homeDir));
    };

    printf("| key | measurement | value | unit |\n|---|---|---|---|\n");
    row("wheels_mib", u"the wheels of the lock, together"_s, double(wheelBytes) / (1 << 20), "MiB");

    // Speed: both from nothing, each wheel paced per connection.
    const QString rateText = u"%1 MiB/s per connection"_s.arg(rate >> 20);
    withMetadata.setWheelFault([rate](Response &r) { r.throttle(rate); });
    plain.setWheelFault([rate](Response &r) { r.throttle(rate); });
    double pipBest = 0;
    double tfsetupBest = 0;
    for (int i = 0; i < runs; ++i) {
        const QString pipHome = home();
        QDir().mkpath(pipHome);
        QElapsedTimer clock;
        clock.start();
        const Timed venv = runTimed(python, {u"-m"_s, u"venv"_s, pipHome + u"/venv"_s}, environment(pipHome));
        const Timed pip = runTimed(pipHome + u"/venv/bin/python"_s,
                                   QStringList{u"-m"_s, u"pip"_s, u"install"_s, u"--no-cache-dir"_s,
                                               u"--disable-pip-version-check"_s, u"--index-url"_s,
                                               plain.url().toString()}
                                       + requirements,
                                   environment(pipHome));
        if (!venv.ok || !pip.ok) {
            fprintf(stderr, "pip failed:\n%s%s\n", venv.output.constData(), pip.output.constData());
            return 1;
        }
        const double pipSeconds = double(clock.elapsed()) / 1000.0;
        pipBest = i == 0 ? pipSeconds : std::min(pipBest, pipSeconds);

        const QString ours = home();
        const Timed install = tfsetupInstall(ours, ours + u"/downloads"_s, u"tf-speed"_s);
        if (!install.ok) {
            fprintf(stderr, "tfsetup install failed:\n%s\n", install.output.constData());
            return 1;
        }
        tfsetupBest = i == 0 ? install.seconds : std::min(tfsetupBest, install.seconds);
    }
    row("pip_venv_install", u"%1: python3 -m venv + pip install, plain index"_s.arg(rateText), pipBest, "s");
    row("tfsetup_install", u"%1: tfsetup install, empty cache"_s.arg(rateText), tfsetupBest, "s");
    const double speedRatio = tfsetupBest / pipBest;
    row("tfsetup_vs_pip", u"tfsetup_install / pip_venv_install"_s, speedRatio, "x");

    // Cuts: every wheel response ends at 32 MiB; nothing paced.
    withMetadata.setWheelFault([](Response &r) { r.dropAfter(32 << 20); });
    server.clearRequests();
    const QString cutHome = home();
    const QString sharedCache = cutHome + u"/downloads"_s;
    const Timed cut = tfsetupInstall(cutHome, sharedCache, u"tf-cut"_s);
    if (!cut.ok) {
        fprintf(stderr, "tfsetup install through cuts failed:\n%s\n", cut.output.constData());
        return 1;
    }
    const double cutRatio = double(withMetadata.wheelBytesServed()) / double(wheelBytes);
    row("tfsetup_cut_bytes", u"responses cut at 32 MiB: wheel bytes served / wheel bytes"_s, cutRatio, "x");
    row("tfsetup_cut_requests", u"responses cut at 32 MiB: wheel requests"_s, withMetadata.wheelRequests(), "requests");

    // Again: a second environment from the same cache.
    withMetadata.setWheelFault({});
    server.clearRequests();
    const Timed again = runTimed(tfsetup,
                                 {u"install"_s, u"--profile"_s, cutHome + u"/lab.json"_s, u"--yes"_s, u"--cache"_s,
                                  sharedCache, u"--prefix"_s, cutHome + u"/second"_s},
                                 environment(cutHome));
    if (!again.ok) {
        fprintf(stderr, "second install failed:\n%s\n", again.output.constData());
        return 1;
    }
    row("tfsetup_again_bytes", u"second environment, same cache: wheel bytes fetched"_s,
        double(withMetadata.wheelBytesServed()), "bytes");
    row("tfsetup_again_s", u"second environment, same cache: tfsetup install"_s, again.seconds, "s");

    const bool speedMet = speedRatio <= 0.6;
    const bool cutMet = cutRatio <= 1.1;
    const bool againMet = withMetadata.wheelBytesServed() == 0;
    printf("\ntfsetup_vs_pip <= 0.6: %s (%.3f)\ntfsetup_cut_bytes <= 1.1: %s (%.3f)\ntfsetup_again_bytes == 0: %s\n",
           speedMet ? "met" : "MISSED", speedRatio, cutMet ? "met" : "MISSED", cutRatio, againMet ? "met" : "MISSED");
    return speedMet && cutMet && againMet ? 0 : 1;
}
