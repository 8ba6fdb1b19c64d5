#include "sources/pypi.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::StringLiterals;

namespace {

// The shape of PyPI's JSON API "urls" entries (pypi/warehouse docs/user/api/json.md); the file
// names follow PEP 427. The digests are placeholders: only the tags are under test.
QJsonObject release(const QStringList &filenames, const QString &yanked = {})
{
    QJsonArray urls;
    for (const QString &name : filenames) {
        urls.append(QJsonObject{{u"filename"_s, name},
                                {u"packagetype"_s, name.endsWith(u".whl"_s) ? u"bdist_wheel"_s : u"sdist"_s},
                                {u"url"_s, QString(u"https://files.example/"_s + name)},
                                {u"digests"_s, QJsonObject{{u"sha256"_s, QString(64, u'a')}}},
                                {u"size"_s, 10},
                                {u"yanked"_s, name == yanked}});
    }
    return QJsonObject{{u"urls"_s, urls}};
}

const QStringList tf210{
    u"tensorflow-2.10.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"_s,
    u"tensorflow-2.10.0-cp310-cp310-win_amd64.whl"_s,
    u"tensorflow-2.10.0-cp39-cp39-win_amd64.whl"_s,
    u"tensorflow-2.10.0-cp310-cp310-macosx_10_14_x86_64.whl"_s,
    u"tensorflow-2.10.0.tar.gz"_s,
};

} // namespace

class TestSourcesPypi : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wheelsFor_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("python");
        QTest::addColumn<QString>("os");
        QTest::addColumn<int>("matching");
        QTest::newRow("linux 3.10: the manylinux wheel") << tf210 << u"3.10"_s << u"linux"_s << 1;
        QTest::newRow("windows 3.9") << tf210 << u"3.9"_s << u"windows"_s << 1;
        QTest::newRow("windows 3.11: none, warn early") << tf210 << u"3.11"_s << u"windows"_s << 0;
        QTest::newRow("pure wheel fits everywhere") << QStringList{u"absl_py-2.1.0-py3-none-any.whl"_s} << u"3.12"_s
                                                   << u"windows"_s << 1;
        QTest::newRow("aarch64 is not x86_64")
            << QStringList{u"tensorflow-2.16.1-cp311-cp311-manylinux_2_17_aarch64.manylinux2014_aarch64.whl"_s} << u"3.11"_s
            << u"linux"_s << 0;
        QTest::newRow("only an sdist") << QStringList{u"tensorflow-2.10.0.tar.gz"_s} << u"3.10"_s << u"linux"_s << 0;
        QTest::newRow("build tag") << QStringList{u"pkg-1.0-1-cp310-cp310-win_amd64.whl"_s} << u"3.10"_s << u"windows"_s << 1;
    }

    void wheelsFor()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, python);
        QFETCH(QString, os);
        QFETCH(int, matching);
        const WheelAvailability result = tfsetup::core::wheelsFor(release(files), python, os);
        QCOMPARE(result.matching.size(), matching);
        QCOMPARE(result.any(), matching > 0);
        for (const PypiFile &f : result.matching)
            QCOMPARE(f.sha256.size(), 64);
    }

    void yankedWheels_doNotCount()
    {
        const QString wheel = u"tensorflow-2.10.0-cp310-cp310-win_amd64.whl"_s;
        const WheelAvailability result = tfsetup::core::wheelsFor(release({wheel}, wheel), u"3.10"_s, u"windows"_s);
        QCOMPARE(result.wheels.size(), 1);
        QVERIFY(!result.any());
    }
};

QTEST_APPLESS_MAIN(TestSourcesPypi)
#include "test_sources_pypi.moc"
