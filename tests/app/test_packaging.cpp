// `cmake --install` lays out a proper application, and CPack turns it into a .deb.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray output;
};

Run run(const QString &program, const QStringList &arguments, int timeoutMs = 300'000)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs))
        return {-1, "timed out: " + p.readAll()};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAll()};
}

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_buildDir = qEnvironmentVariable("TFSETUP_BUILD_DIR");
        if (m_buildDir.isEmpty() || !QFile::exists(m_buildDir + QStringLiteral("/CPackConfig.cmake")))
            QSKIP("TFSETUP_BUILD_DIR does not point at a configured build");
        QVERIFY(m_dir.isValid());
    }

    void install_laysOutTheApplication()
    {
        const QString prefix = m_dir.filePath(QStringLiteral("prefix"));
        const Run install = run(QStringLiteral("cmake"),
                                {QStringLiteral("--install"), m_buildDir, QStringLiteral("--prefix"), prefix});
        QVERIFY2(install.exitCode == 0, install.output.constData());
        for (const char *path :
             {"bin/tfsetup", "share/applications/io.github.tfsetup.tfsetup.desktop",
              "share/metainfo/io.github.tfsetup.tfsetup.metainfo.xml",
              "share/icons/hicolor/scalable/apps/io.github.tfsetup.tfsetup.svg", "share/doc/tfsetup/README.md"}) {
            QVERIFY2(QFile::exists(prefix + u'/' + QLatin1String(path)), path);
        }
        // The installed program runs from anywhere: resources and translations are inside it.
        const Run version = run(prefix + QStringLiteral("/bin/tfsetup"), {QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.output.startsWith("tfsetup "));

        const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        QVERIFY2(!validator.isEmpty(), "desktop-file-validate is not installed (package desktop-file-utils)");
        {
            const Run check = run(validator,
                                  {prefix + QStringLiteral("/share/applications/io.github.tfsetup.tfsetup.desktop")});
            QVERIFY2(check.exitCode == 0, check.output.constData());
        }
        const QString appstream = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
        QVERIFY2(!appstream.isEmpty(), "appstreamcli is not installed (package appstream)");
        {
            const Run check = run(appstream,
                                  {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                   prefix + QStringLiteral("/share/metainfo/io.github.tfsetup.tfsetup.metainfo.xml")});
            QVERIFY2(check.exitCode == 0, check.output.constData());
        }
    }

    void cpack_buildsADebianPackage()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("dpkg-deb")).isEmpty())
            QSKIP("dpkg-deb is not installed");
        const QString out = m_dir.filePath(QStringLiteral("packages"));
        const Run pack = run(QStringLiteral("cpack"),
                             {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("-B"), out,
                              QStringLiteral("--config"), m_buildDir + QStringLiteral("/CPackConfig.cmake")});
        QVERIFY2(pack.exitCode == 0, pack.output.constData());
        const QStringList debs = QDir(out).entryList({QStringLiteral("*.deb")});
        QCOMPARE(debs.size(), 1);
        const Run contents = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-c"), out + u'/' + debs.first()});
        QVERIFY(contents.output.contains("./usr/bin/tfsetup"));
        QVERIFY(contents.output.contains("io.github.tfsetup.tfsetup.desktop"));
        const Run fields = run(QStringLiteral("dpkg-deb"),
                               {QStringLiteral("-f"), out + u'/' + debs.first(), QStringLiteral("Depends")});
        QVERIFY2(fields.output.contains("libqt6widgets6"), fields.output.constData());

        // Every library the installed programs link comes from a package the .deb depends on,
        // and so does what is loaded at run time without being linked: Qt's SVG image plugin
        // (icon and logo) and python3-venv (environments).
        QStringList depends;
        for (const QString &alternatives : QString::fromUtf8(fields.output).split(u',')) {
            for (const QString &one : alternatives.split(u'|'))
                depends.append(one.trimmed().section(u' ', 0, 0));
        }
        for (const char *runtime : {"libqt6svg6", "python3-venv", "python3"})
            QVERIFY2(depends.contains(QLatin1String(runtime)), runtime);
        // What only some commands need: pip for `tfsetup bundle`'s wheelhouse, a CJK font.
        const Run recommends = run(QStringLiteral("dpkg-deb"),
                                   {QStringLiteral("-f"), out + u'/' + debs.first(), QStringLiteral("Recommends")});
        QVERIFY2(recommends.output.contains("python3-pip") && recommends.output.contains("fonts-noto-cjk"),
                 recommends.output.constData());
        const QString installed = m_dir.filePath(QStringLiteral("prefix-deps"));
        QCOMPARE(run(QStringLiteral("cmake"),
                     {QStringLiteral("--install"), m_buildDir, QStringLiteral("--prefix"), installed})
                     .exitCode,
                 0);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        // A sanitizer build links its programs without --as-needed (they name libGLX and more
        // directly); what the package ships is the plain build, checked there.
        const QList<const char *> binaries;
#else
        const QList<const char *> binaries{"bin/tfsetup", "bin/tfsetup-probe"};
#endif
        for (const char *binary : binaries) {
            const QString file = installed + u'/' + QLatin1String(binary);
            // The libraries it names itself (NEEDED), where the loader finds them (ldd).
            const Run dynamic = run(QStringLiteral("readelf"), {QStringLiteral("-d"), file});
            QCOMPARE(dynamic.exitCode, 0);
            const Run ldd = run(QStringLiteral("ldd"), {file});
            QCOMPARE(ldd.exitCode, 0);
            QHash<QString, QString> found; // "libQt6Widgets.so.6" -> "/lib/x86_64-linux-gnu/libQt6Widgets.so.6"
            for (const QString &line : QString::fromUtf8(ldd.output).split(u'\n', Qt::SkipEmptyParts)) {
                if (line.contains(QLatin1String(" => /"))) {
                    found.insert(line.section(QStringLiteral(" => "), 0, 0).trimmed(),
                                 line.section(QStringLiteral(" => "), 1).section(u' ', 0, 0));
                } else if (const QString path = line.trimmed().section(u' ', 0, 0); path.startsWith(u'/')) {
                    found.insert(QFileInfo(path).fileName(), path); // the loader: "\t/lib64/ld-linux-x86-64.so.2 (0x…)"
                }
            }
            static const QRegularExpression needed(QStringLiteral("\\(NEEDED\\).*\\[(.+)\\]"));
            int checked = 0;
            for (auto it = needed.globalMatch(QString::fromUtf8(dynamic.output)); it.hasNext();) {
                const QString name = it.next().captured(1);
                if (name.startsWith(QLatin1String("libasan")) || name.startsWith(QLatin1String("libubsan"))
                    || name.startsWith(QLatin1String("libtsan")))
                    continue; // a sanitizer build's own runtime
                QVERIFY2(found.contains(name), qPrintable(name));
                // dpkg knows each file under one spelling: /lib/… or /usr/lib/… (merged /usr).
                const QString real = QFileInfo(found.value(name)).canonicalFilePath();
                Run owner = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), real});
                if (owner.exitCode != 0) {
                    QString other = real;
                    other = other.startsWith(QLatin1String("/usr/")) ? other.mid(4) : QStringLiteral("/usr") + other;
                    owner = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), other});
                }
                QVERIFY2(owner.exitCode == 0, qPrintable(real + u": " + QString::fromUtf8(owner.output)));
                const QString package = QString::fromUtf8(owner.output).section(u':', 0, 0).trimmed();
                QVERIFY2(depends.contains(package),
                         qPrintable(QStringLiteral("%1 needs %2 from %3, which the .deb does not depend on (%4)")
                                        .arg(QLatin1String(binary), name, package, depends.join(u' '))));
                ++checked;
            }
            QVERIFY2(checked >= 5, binary);
        }
    }

private:
    QString m_buildDir;
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
