// tfsetup-probe against the real CUDA toolkit and cuDNN in /usr/local/cuda, started through a
// launcher script the way verify starts it, with decoys placed first on LD_LIBRARY_PATH: a copy
// of the real library, a symbolic link to it, and a library compiled here that lies about its
// version. Skipped where no toolkit is installed.

#include "catalog/version.h"
#include "verify/libraryprobe.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

class TestProbeReal : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void loadsTheToolkit();
    void namesADecoyCopyFirstOnThePath();
    void aLinkToTheSameFileIsNotShadowing();
    void catchesALibraryThatLiesAboutItsVersion();
    void namesTheLibraryThatCrashedIt();
    void namesAMissingSubLibrary();

private:
    struct Run {
        int exitCode = -1;
        QByteArray err;
        ProbeReport report;
    };
    // Runs the probe through a launcher that puts libraryPath first, as an environment's would.
    Run probe(const QString &libraryPath, const QStringList &arguments);
    QString compileFake(const QString &dir, const QString &soname, const QByteArray &body);

    QString m_toolkit = u"/usr/local/cuda/lib64"_s;
    QString m_probe;
    QString m_cudart; // "libcudart.so.13"
    QString m_cudnn;  // "libcudnn.so.9"
    QString m_cublas;
    QString m_cudartMajor;
    QTemporaryDir m_dir;
};

namespace {

// The one versioned name of a library in dir: "libcudart.so.13" (not .so, not .so.13.0.96).
QString sonameIn(const QString &dir, const QString &stem)
{
    const QStringList names = QDir(dir).entryList({u"lib"_s + stem + u".so.*"_s}, QDir::Files | QDir::System);
    for (const QString &n : names) {
        if (n.count(u'.') == 2)
            return n;
    }
    return {};
}

} // namespace

void TestProbeReal::initTestCase()
{
    m_cudart = sonameIn(m_toolkit, u"cudart"_s);
    m_cudnn = sonameIn(m_toolkit, u"cudnn"_s);
    m_cublas = sonameIn(m_toolkit, u"cublas"_s);
    if (m_cudart.isEmpty() || m_cudnn.isEmpty() || m_cublas.isEmpty())
        QSKIP("no CUDA toolkit with cuDNN in /usr/local/cuda");
    m_cudartMajor = sonameMajor(m_cudart);
    m_probe = QFileInfo(qEnvironmentVariable("TFSETUP_BINARY")).dir().filePath(u"tfsetup-probe"_s);
    QVERIFY2(QFileInfo(m_probe).isExecutable(), qPrintable(m_probe + u" is not built"_s));
    QVERIFY(m_dir.isValid());
}

TestProbeReal::Run TestProbeReal::probe(const QString &libraryPath, const QStringList &arguments)
{
    const QString launcher = m_dir.filePath(u"start-shell.sh"_s);
    QFile f(launcher);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("#!/bin/sh\nLD_LIBRARY_PATH=\"" + libraryPath.toUtf8() + "\"\nexport LD_LIBRARY_PATH\nexec \"$@\"\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);

    QProcess p;
    p.start(launcher, QStringList{m_probe} + arguments);
    Run r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = p.readAllStandardError();
    const QJsonDocument doc = QJsonDocument::fromJson(p.readAllStandardOutput());
    if (doc.isObject()) {
        auto report = ProbeReport::fromJson(doc.object());
        if (report)
            r.report = *report;
    }
    return r;
}

QString TestProbeReal::compileFake(const QString &dir, const QString &soname, const QByteArray &body)
{
    const QString cc = QStandardPaths::findExecutable(u"cc"_s);
    if (cc.isEmpty())
        return {};
    QDir().mkpath(dir);
    const QString source = dir + u"/fake.c"_s;
    QFile f(source);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(body);
    f.close();
    const QString out = dir + u'/' + soname;
    QProcess p;
    p.start(cc, {u"-shared"_s, u"-fPIC"_s, u"-o"_s, out, u"-Wl,-soname,"_s + soname, source});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return out;
}

void TestProbeReal::loadsTheToolkit()
{
    const Run r = probe(m_toolkit,
                        {u"--library"_s, u"cuda:"_s + m_cudart, u"--library"_s, u"cuda:"_s + m_cublas, u"--library"_s,
                         u"cudnn:"_s + m_cudnn, u"--sublibrary"_s,
                         m_cudnn + u">libcudnn_ops.so."_s + sonameMajor(m_cudnn), u"--own-dir"_s, m_toolkit,
                         u"--cuda"_s, m_cudartMajor + u".0"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.report.libraries.size(), 4);
    for (const ProbedLibrary &l : r.report.libraries) {
        QVERIFY2(l.loaded, qPrintable(l.error));
        QVERIFY2(QFileInfo(l.path).isAbsolute(), qPrintable(l.path));
        QCOMPARE(QFileInfo(l.path).canonicalPath(), QFileInfo(m_toolkit).canonicalFilePath());
    }
    const ProbedLibrary *cudart = r.report.library(m_cudart);
    QCOMPARE(version::major(cudart->version), m_cudartMajor);
    QVERIFY(cudart->versionRaw >= m_cudartMajor.toInt() * 1000);
    QCOMPARE(version::major(r.report.library(m_cudnn)->version), sonameMajor(m_cudnn));
    QCOMPARE(version::major(r.report.library(m_cublas)->version), sonameMajor(m_cublas));
    QVERIFY(r.report.findings.isEmpty());
    QCOMPARE(r.report.searchPath, QStringList{m_toolkit});
}

void TestProbeReal::namesADecoyCopyFirstOnThePath()
{
    const QString decoy = m_dir.filePath(u"decoy-copy"_s);
    QVERIFY(QDir().mkpath(decoy));
    QVERIFY(QFile::copy(m_toolkit + u'/' + m_cudart, decoy + u'/' + m_cudart));
    const Run r = probe(decoy + u':' + m_toolkit, {u"--library"_s, u"cuda:"_s + m_cudart, u"--own-dir"_s, m_toolkit});
    QCOMPARE(r.exitCode, 0); // shadowing is a warning: the copy works
    const ProbedLibrary *cudart = r.report.library(m_cudart);
    QVERIFY(cudart && cudart->loaded);
    QCOMPARE(cudart->path, decoy + u'/' + m_cudart);
    QCOMPARE(version::major(cudart->version), m_cudartMajor);
    const ProbeFinding *shadowed = r.report.finding(u"shadowed"_s, m_cudart);
    QVERIFY(shadowed);
    QCOMPARE(shadowed->path, decoy + u'/' + m_cudart);
    QCOMPARE(shadowed->other, m_toolkit + u'/' + m_cudart);
    QVERIFY(shadowed->message().contains(decoy));
}

void TestProbeReal::aLinkToTheSameFileIsNotShadowing()
{
    const QString linked = m_dir.filePath(u"decoy-link"_s);
    QVERIFY(QDir().mkpath(linked));
    QVERIFY(QFile::link(m_toolkit + u'/' + m_cudart, linked + u'/' + m_cudart));
    const Run r = probe(linked + u':' + m_toolkit, {u"--library"_s, u"cuda:"_s + m_cudart, u"--own-dir"_s, m_toolkit});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.report.library(m_cudart)->path, linked + u'/' + m_cudart);
    QVERIFY(r.report.findings.isEmpty());
}

void TestProbeReal::catchesALibraryThatLiesAboutItsVersion()
{
    const QString dir = m_dir.filePath(u"decoy-fake"_s);
    const int lie = (m_cudartMajor.toInt() - 1) * 1000;
    const QString fake = compileFake(
        dir, m_cudart, "int cudaRuntimeGetVersion(int *v) { *v = " + QByteArray::number(lie) + "; return 0; }\n");
    if (fake.isEmpty())
        QSKIP("no C compiler to build the decoy");
    const QString built = m_cudartMajor + u".0"_s;
    const Run r = probe(dir + u':' + m_toolkit,
                        {u"--library"_s, u"cuda:"_s + m_cudart, u"--own-dir"_s, m_toolkit, u"--cuda"_s, built});
    QCOMPARE(r.exitCode, 1);
    const ProbedLibrary *cudart = r.report.library(m_cudart);
    QCOMPARE(cudart->path, fake);
    QCOMPARE(cudart->version, decodeVersion(u"cuda"_s, lie));
    QVERIFY(r.report.has(u"shadowed"_s, m_cudart));
    const ProbeFinding *misnamed = r.report.finding(u"version_name_mismatch"_s, m_cudart);
    QVERIFY(misnamed);
    QCOMPARE(misnamed->expected, m_cudartMajor);
    const ProbeFinding *old = r.report.finding(u"version_below_build"_s, m_cudart);
    QVERIFY(old);
    QCOMPARE(old->expected, built);
}

void TestProbeReal::namesTheLibraryThatCrashedIt()
{
    const QString dir = m_dir.filePath(u"decoy-crash"_s);
    const QString fake = compileFake(dir, m_cudart,
                                     "#include <stdlib.h>\nint cudaRuntimeGetVersion(int *v) { (void)v; abort(); }\n");
    if (fake.isEmpty())
        QSKIP("no C compiler to build the decoy");
    const Run r = probe(dir, {u"--library"_s, u"cuda:"_s + m_cublas, u"--library"_s, u"cuda:"_s + m_cudart});
    QVERIFY(r.exitCode != 0 && r.exitCode != 1);
    QVERIFY(r.report.libraries.isEmpty());
    QCOMPARE(probeCrashCulprit(r.err), m_cudart);
}

void TestProbeReal::namesAMissingSubLibrary()
{
    // A cuDNN set whose folder lacks one part: the main library loads, the part does not.
    const QString major = sonameMajor(m_cudnn);
    const Run r = probe(m_toolkit,
                        {u"--library"_s, u"cudnn:"_s + m_cudnn, u"--sublibrary"_s,
                         m_cudnn + u">libcudnn_no_such_part.so."_s + major, u"--own-dir"_s, m_toolkit});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.report.library(m_cudnn)->loaded);
    const ProbeFinding *missing = r.report.finding(u"sublibrary_missing"_s);
    QVERIFY(missing);
    QCOMPARE(missing->expected, m_cudnn);
    QVERIFY(missing->other.contains(u"cannot open shared object file"_s));
}

QTEST_GUILESS_MAIN(TestProbeReal)
#include "test_probe_real.moc"
