#pragma once

#include "util/result.h"

#include <QCoreApplication>
#include <QString>

namespace tfsetup::core {

// The words for a failed request, shared by every request of the program (documents and
// downloads), so the same cause reads the same everywhere and says what to do next.
//
// Codes: "dns" (name not resolved), "connect" (refused / unreachable), "proxy_unreachable",
// "timeout" (no answer, or a stall), "too_slow" (below the speed floor), "tls" (certificate not
// trusted, or for another host: the detail tells which), "proxy_auth" (407), "proxy_error" (the
// proxy's 502 / 504, or a refused tunnel), "http_error" (403, 404, 5xx, … in httpStatus),
// "html_page" (a web page where a file was expected: often a captive portal), "insecure_redirect",
// "redirect_loop", "dropped", "size_mismatch", "too_large", "checksum_mismatch", "disk_full",
// "permission_denied", "write_failed", "cancelled", "network" (anything else).
class NetworkError {
    Q_DECLARE_TR_FUNCTIONS(NetworkError)

public:
    // what: the file or document, as the user knows it ("cudnn 8.9.7", "NVIDIA's manifest
    // redistrib_12.5.1.json"). detail: untranslated (curl's words), read for the TLS cause.
    static QString message(const QString &code, int httpStatus, const QString &what, const QString &detail = {});
    static Error make(const QString &code, int httpStatus, const QString &what, const QString &detail);

    // A certificate for another name than the server's (curl's words for it).
    static bool isWrongHost(const QString &detail);
};

} // namespace tfsetup::core
