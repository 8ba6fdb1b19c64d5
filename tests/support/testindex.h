#pragma once

// A Python package index (PEP 503 simple API) over a LoopbackServer, for tests that run pip or
// tfsetup's own downloads against real wheels. It behaves like PyPI where that matters to pip:
//
//   <root>simple/                   the project list
//   <root>simple/<project>/         each project's page: HTML links with "#sha256=",
//                                   data-requires-python and PEP 658/714 data-dist-info-metadata /
//                                   data-core-metadata; PEP 691 JSON (api-version 1.1, with each
//                                   file's size) instead when the Accept header prefers
//                                   application/vnd.pypi.simple.v1+json and JSON is on
//   <root>files/<wheel>             the wheel, streamed from disk with Range support; also under
//                                   its percent-encoded name (pip asks for "+" as %2B)
//   <root>files/<wheel>.metadata    the wheel's *.dist-info/METADATA byte for byte (PEP 658)
//
//     tfsetup::test::LoopbackServer server;
//     QVERIFY(server.start());
//     tfsetup::test::TestIndex index(server);
//     QVERIFY(index.addWheel(wheelPath));
//     index.setWheelFault([](Response &r) { r.dropAfter(32 << 20); });
//     … pip install --index-url index.url().toString() …
//     QCOMPARE(index.wheelRequests(), 1);
//
// Links are relative ("../../files/…"), as PEP 503 and 691 allow and static mirrors write them.
// Every switch and every added wheel takes effect with the next request (the handlers read them
// on the server thread). The server may serve other routes besides; it must outlive the index.
//
// What Debian's pip 23.0.1 makes of it (tests/support/test_index.cpp shows most):
//  - It asks for JSON first, and in JSON it only knows the key "dist-info-metadata", which PEP 714
//    replaced by "core-metadata" (pip 22.3 to 23.1 crash on the old key's PEP 691 form, so it is
//    not sent). It uses PEP 658 metadata only from HTML pages: setJson(false).
//  - It rejects a metadata file whose Name is spelled otherwise than the requirement naming it
//    ("jupyter-client" against "jupyter_client"), though both normalize alike.
//  - "install --dry-run" still downloads every wheel after resolving from metadata, twice each.
//  - It takes a wheel cut short for the whole file: only the "#sha256=" hash (or, without one, the
//    broken zip) makes it fail.

#include "support/loopbackserver.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>

namespace tfsetup::test {

struct IndexState;

class TestIndex final {
public:
    // root: the prefix of every path, "/" or e.g. "/lab/" (with both slashes).
    explicit TestIndex(LoopbackServer &server, QByteArray root = QByteArrayLiteral("/"));
    Q_DISABLE_COPY_MOVE(TestIndex)

    // Publishes a wheel under its file name: project and version from the name (PEP 427), METADATA
    // read from the wheel, Requires-Python from the argument or else from METADATA. False when
    // the name is not a wheel's or the wheel cannot be read. A wheel of the same name is replaced.
    bool addWheel(const QString &path, const QString &requiresPython = {});
    // Every *.whl in folder; how many were added.
    int addWheelsFrom(const QString &folder);

    void setMetadata(bool served);  // PEP 658/714 attributes and .metadata files (default on)
    void setJson(bool served);      // PEP 691 JSON when asked for (default on)
    void setHashes(bool published); // "#sha256=" and JSON hashes (default on; off: an index without)
    // Applied to every wheel response (not pages, not metadata), e.g.
    // [](Response &r) { r.dropAfter(1 << 20); } or r.throttle(4 << 20). Range is still honoured,
    // and dropAfter counts per response, so a resumed request gets as far again. {}: no fault.
    void setWheelFault(std::function<void(Response &)> fault);

    QUrl url() const;                              // http(s)://127.0.0.1:PORT<root>simple/
    QUrl fileUrl(const QString &wheel) const;      // the wheel's URL as pip reports it (percent-encoded)
    QStringList wheels() const;                    // file names, in the order added
    QByteArray sha256(const QString &wheel) const; // lower-case hex; empty for an unknown wheel

    // From the server's request log (LoopbackServer::clearRequests() resets them too):
    QList<RecordedRequest> requestsFor(const QString &wheel) const; // of the wheel file, either spelling
    int wheelRequests() const;                                      // GETs of wheel files
    int metadataRequests() const;                                   // GETs of .metadata files
    qint64 wheelBytesServed() const;                                // body bytes of all wheel responses

private:
    int countGets(const QByteArray &suffix) const; // GETs of wheel paths + suffix

    LoopbackServer &m_server;
    // The handlers on the server thread hold it weakly: after the index is gone they answer 404.
    std::shared_ptr<IndexState> m_state;
};

// Stand-ins (empty packages, "__version__" set) for TensorFlow at each of `tensorflowVersions`
// and for every Jupyter package tfsetup installs (the kernel's and each front end's, version 0.1),
// built with `python` into `dir` and published on `index`: what a page or journey test needs for
// pip's resolver to lock a plan. False when a wheel could not be built or published.
bool addStandIns(TestIndex &index, const QString &python, const QString &dir, const QStringList &tensorflowVersions);

} // namespace tfsetup::test
