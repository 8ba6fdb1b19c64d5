// The Windows code is compiled only on Windows, so on a Linux build nothing would notice a typo in
// it. This test runs the MinGW-w64 cross compiler in syntax-only mode over every translation unit
// with a Windows branch: the *_win.cpp files, every .cpp under wizard/ and app/ that tests
// Q_OS_WIN or _WIN32, and (through a one-line file that includes it) every header that does. It
// skips when the cross compiler is not installed (Debian/Ubuntu: g++-mingw-w64-x86-64).
//
// Method: Debian ships no Qt built for Windows, so the files are compiled with the host's Qt
// headers and the include paths and definitions their own target is built with (from
// compile_commands.json), while the compiler targets x86_64-w64-mingw32. The compiler defines
// _WIN32 and _WIN64 and the Windows SDK headers are MinGW's, so qsystemdetection.h selects
// Q_OS_WIN and each #if takes its Windows branch (windowsBranchIsSelected checks exactly that).
// Limits: nothing is linked, so a missing Windows library or an undefined symbol is not found;
// Qt's configuration (qconfig.h, the QT_FEATURE_* values) is the Linux build's, so a Qt feature
// that differs between the two builds is seen as Linux has it; Qt's own Windows-only declarations
// are the ones its headers show under Q_OS_WIN; 32-bit Windows branches (_WIN32 without _WIN64)
// are not taken, as tfsetup is built for 64-bit Windows only. What the Windows code does is not
// checked here: no Windows build of the wizard exists (README.md, "Windows: what has been built
// and run").

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

QString findCompileCommands()
{
    QDir dir(QCoreApplication::applicationDirPath());
    do {
        if (dir.exists(QStringLiteral("compile_commands.json")))
            return dir.filePath(QStringLiteral("compile_commands.json"));
    } while (dir.cdUp());
    return {};
}

// -I, -isystem, -D and -std flags of one compile command.
QStringList compileFlags(const QString &command)
{
    const QStringList args = QProcess::splitCommand(command);
    QStringList flags;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"-isystem" && i + 1 < args.size()) {
            flags << a << args.at(++i);
        } else if (a.startsWith(QLatin1String("-I")) || a.startsWith(QLatin1String("-D"))
                   || a.startsWith(QLatin1String("-std=")) || a == u"-fcoroutines") {
            flags << a;
        }
    }
    return flags;
}

// The flags a source file is built with: its own compile command, or for a file the Linux build
// leaves out (*_win.cpp) and for headers, those of the nearest file compiled in the same library
// folder (wizard/core, wizard/ui, app), or of the library's unity batch files.
QStringList flagsFor(const QString &compileCommands, const QString &source)
{
    QFile f(compileCommands);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString root = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u'/';
    const QString relative = source.mid(root.size());
    const QString library = relative.startsWith(QLatin1String("app/")) ? QStringLiteral("app/")
                                                                       : relative.section(u'/', 0, 1) + u'/';
    const QString build = qEnvironmentVariable("TFSETUP_BUILD_DIR") + u'/';
    QString best;
    qsizetype bestShared = -1;
    for (const QJsonValue &v : QJsonDocument::fromJson(f.readAll()).array()) {
        const QJsonObject entry = v.toObject();
        const QString file = entry.value(QLatin1String("file")).toString();
        if (file.startsWith(build) && file.contains(QLatin1String("/Unity/"))) {
            // A unity build (TFSETUP_UNITY_BUILD) compiles the library's sources through batch
            // files in its build folder, with the flags each of its sources has.
            const QString folder = file.mid(build.size()).section(QStringLiteral("/CMakeFiles/"), 0, 0) + u'/';
            if (folder == library && bestShared < 0) {
                bestShared = 0;
                best = entry.value(QLatin1String("command")).toString();
            }
            continue;
        }
        if (!file.startsWith(root + library) || !file.endsWith(QLatin1String(".cpp")))
            continue;
        if (file == source)
            return compileFlags(entry.value(QLatin1String("command")).toString());
        qsizetype shared = 0;
        while (shared < file.size() && shared < source.size() && file.at(shared) == source.at(shared))
            ++shared;
        if (shared > bestShared) {
            bestShared = shared;
            best = entry.value(QLatin1String("command")).toString();
        }
    }
    return best.isEmpty() ? QStringList{} : compileFlags(best);
}

// The posix-threads variant: its C++ library has std::thread and std::mutex, as MSVC's does (the
// win32 variant, Debian's default x86_64-w64-mingw32-g++, declares neither in GCC 12).
QString crossCompiler()
{
    const QString posix = QStandardPaths::findExecutable(QStringLiteral("x86_64-w64-mingw32-g++-posix"));
    return posix.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("x86_64-w64-mingw32-g++")) : posix;
}

struct Compiled {
    bool ok = false;
    QByteArray output;
};

Compiled compileForWindows(const QStringList &flags, const QString &source)
{
    QProcess gcc;
    gcc.setProcessChannelMode(QProcess::MergedChannels);
    gcc.start(crossCompiler(),
              QStringList{QStringLiteral("-fsyntax-only"), QStringLiteral("-Wall"), QStringLiteral("-Wextra"),
                          QStringLiteral("-Werror")}
                  + flags + QStringList{source});
    if (!gcc.waitForStarted() || !gcc.waitForFinished(240'000))
        return {false, QByteArrayLiteral("the cross compiler did not start or did not finish")};
    return {gcc.exitStatus() == QProcess::NormalExit && gcc.exitCode() == 0, gcc.readAll()};
}

} // namespace

class TestWindowsSyntax : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (crossCompiler().isEmpty())
            QSKIP("x86_64-w64-mingw32-g++ is not installed (package g++-mingw-w64-x86-64)");
        m_commands = findCompileCommands();
        QVERIFY2(!m_commands.isEmpty(), "compile_commands.json not found above the test executable");
        QVERIFY(m_dir.isValid());
        // libcurl's headers are in the host's multiarch folder (/usr/include/x86_64-linux-gnu), which
        // holds glibc's too, so the cross compiler gets a folder with only curl/ in it. curl.h picks
        // its Windows declarations from the compiler's macros.
        const QString curl = QStringLiteral(TFSETUP_CURL_INCLUDE_DIR) + QStringLiteral("/curl");
        QVERIFY2(QFileInfo::exists(curl + QStringLiteral("/curl.h")), qPrintable(curl));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("libs"))));
        QVERIFY(QFile::link(curl, m_dir.filePath(QStringLiteral("libs/curl"))));
    }

    // The method's premise: with the host's Qt headers and MinGW's target, Qt sees Windows.
    void windowsBranchIsSelected()
    {
        const QString core = qEnvironmentVariable("TFSETUP_SOURCE_DIR")
            + QStringLiteral("/wizard/core/system/realsystem.cpp");
        const QStringList flags = flagsFor(m_commands, core);
        QVERIFY2(!flags.isEmpty(), "no compile command for wizard/core");
        const QString probe = m_dir.filePath(QStringLiteral("selects_windows.cpp"));
        QFile f(probe);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#include <QtCore/qglobal.h>\n"
                "#if !defined(Q_OS_WIN) || !defined(Q_OS_WIN64) || defined(Q_OS_LINUX) || defined(Q_OS_UNIX)\n"
                "#error \"the host Qt headers under MinGW do not select the Windows branch\"\n"
                "#endif\n");
        f.close();
        const Compiled compiled = compileForWindows(flags, probe);
        QVERIFY2(compiled.ok, compiled.output.constData());
    }

    void windowsSourcesCompile_data()
    {
        QTest::addColumn<QString>("source");
        const QDir root(qEnvironmentVariable("TFSETUP_SOURCE_DIR"));
        static const QRegularExpression windowsBranch(
            QStringLiteral("^\\s*#\\s*(if|elif|ifdef|ifndef)\\b.*\\b(Q_OS_WIN|_WIN32)\\b"),
            QRegularExpression::MultilineOption);
        QStringList sources;
        for (const QString &folder : {QStringLiteral("wizard"), QStringLiteral("app")}) {
            QDirIterator it(root.filePath(folder), {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                QFile f(path);
                if (path.endsWith(QLatin1String("_win.cpp"))
                    || (f.open(QIODevice::ReadOnly) && windowsBranch.match(QString::fromUtf8(f.readAll())).hasMatch()))
                    sources.append(path);
            }
        }
        sources.sort();
        for (const QString &path : sources)
            QTest::newRow(qPrintable(root.relativeFilePath(path))) << path;
        // Each kind is there: the check would pass vacuously if the search found nothing.
        int windowsOnly = 0;
        int branched = 0;
        int headers = 0;
        for (const QString &path : sources) {
            if (path.endsWith(QLatin1String("_win.cpp")))
                ++windowsOnly;
            else if (path.endsWith(QLatin1String(".cpp")))
                ++branched;
            else
                ++headers;
        }
        QVERIFY(windowsOnly > 0 && branched > 0 && headers > 0);
    }

    void windowsSourcesCompile()
    {
        QFETCH(QString, source);
        const QStringList flags = flagsFor(m_commands, source);
        QVERIFY2(!flags.isEmpty(), qPrintable(QStringLiteral("no compile command near %1").arg(source)));
        QString unit = source;
        if (source.endsWith(QLatin1String(".h"))) {
            // A header is checked as the sources that include it see it.
            unit = m_dir.filePath(QFileInfo(source).completeBaseName() + QStringLiteral("_h.cpp"));
            QFile f(unit);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write("#include \"" + source.toUtf8() + "\"\n");
        }
        const QStringList libs{QStringLiteral("-isystem"), m_dir.filePath(QStringLiteral("libs"))};
        const Compiled compiled = compileForWindows(flags + libs, unit);
        QVERIFY2(compiled.ok, compiled.output.constData());
    }

private:
    QString m_commands;
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestWindowsSyntax)
#include "test_windows_syntax.moc"
