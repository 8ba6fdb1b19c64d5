#pragma once

#include "fetch/downloadtypes.h"
#include "sources/artifact.h"
#include "util/result.h"

#include <QCoreApplication>
#include <QCoro/QCoroTask>
#include <QString>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <memory>

namespace tfsetup::core {

struct FirstUseOptions {
    TransferOptions transfer; // the network settings' proxy, CA bundle and limits
    std::chrono::milliseconds stallTimeout{std::chrono::seconds(60)};
    // Set from elsewhere to stop; what arrived stays in DESTINATION.part and a later fetch resumes it.
    std::shared_ptr<const std::atomic<bool>> cancel;
};

struct FirstUseFile {
    QString path;   // the destination
    QString sha256; // what the bytes hashed to, lower-case hex
    qint64 size = 0;
    QUrl source; // where they came from
};

// Fetching a file no one publishes a checksum for ("trust on first use"): only after an explicit
// choice (tfsetup bundle --trust-on-first-use, the wizard's checkbox). The bytes are hashed while
// they arrive; the SHA-256 seen is what every later check compares against.
class FirstUse {
    Q_DECLARE_TR_FUNCTIONS(FirstUse)

public:
    // Tries the artifact's URLs in order (mirrors first, official last): a local file is hashed
    // and copied; a remote one is fetched into DESTINATION.part (resumable; a web page where the
    // file was expected is refused as "html_page"), then moved to DESTINATION.
    // Error "download_failed" names the file; its detail lists each URL and why it failed.
    static QCoro::Task<Result<FirstUseFile>> fetch(Artifact artifact, QString destination, FirstUseOptions options);

    // With nothing to check the bytes against, only TLS vouches for them: the official URL must be
    // https. Mirrors (which the user configured) and loopback may be plain http.
    static bool acceptsUrl(const QUrl &url, bool official);

private:
    static QCoro::Task<Result<FirstUseFile>> fetchRemote(QUrl url, QString destination, FirstUseOptions options);
};

} // namespace tfsetup::core
