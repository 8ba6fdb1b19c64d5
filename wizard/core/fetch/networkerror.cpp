#include "fetch/networkerror.h"

namespace tfsetup::core {

bool NetworkError::isWrongHost(const QString &detail)
{
    return detail.contains(QLatin1String("subject name"), Qt::CaseInsensitive)
        || detail.contains(QLatin1String("does not match target host"), Qt::CaseInsensitive)
        || detail.contains(QLatin1String("doesn't match target host"), Qt::CaseInsensitive);
}

QString NetworkError::message(const QString &code, int status, const QString &what, const QString &detail)
{
    if (code == u"dns")
        return tr("The server's name could not be resolved while fetching %1: this computer is offline, or its network "
                  "reaches the internet only through a proxy. Check the connection, or set the proxy.")
            .arg(what);
    if (code == u"connect")
        return tr("The server refused the connection or could not be reached for %1. Check the internet connection and "
                  "the proxy setting, or choose a mirror.")
            .arg(what);
    if (code == u"proxy_unreachable")
        return tr("The proxy could not be reached while fetching %1. Check the proxy address (host and port), or leave "
                  "it empty to connect directly.")
            .arg(what);
    if (code == u"timeout")
        return tr("The server did not answer in time for %1. The network may be slow or the server blocked here: try "
                  "again, choose a mirror, set a proxy, or use an offline bundle.")
            .arg(what);
    if (code == u"too_slow")
        return tr("%1 came too slowly from this server (below the speed floor), so it was dropped. Choose a nearer "
                  "mirror or use an offline bundle.")
            .arg(what);
    if (code == u"tls") {
        if (isWrongHost(detail))
            return tr("The server's certificate for %1 belongs to another name, so nothing was downloaded. Something "
                      "between you and the server (a proxy or a captive portal) answers in its place; check the address "
                      "or the network.")
                .arg(what);
        return tr("The server's certificate for %1 could not be verified, so nothing was downloaded. A lab or company "
                  "proxy may need its certificate added (CA bundle setting).")
            .arg(what);
    }
    if (code == u"proxy_auth")
        return tr("The proxy asks for a user name and password (407) for %1. Give them in the proxy address: "
                  "http://user:password@host:port.")
            .arg(what);
    if (code == u"proxy_error")
        return tr("The proxy could not reach the server for %1 (HTTP %2). The server may be blocked from this network: "
                  "choose a mirror or use an offline bundle.")
            .arg(what)
            .arg(status);
    if (code == u"http_error") {
        if (status == 404)
            return tr("%1 is not on the server (404 Not Found). The mirror may be incomplete; try another mirror.")
                .arg(what);
        if (status == 403)
            return tr("The server refused %1 (403 Forbidden). The mirror may not serve this file or this network; try "
                      "another mirror.")
                .arg(what);
        if (status == 407)
            return message(QStringLiteral("proxy_auth"), status, what, detail);
        if (status >= 500)
            return tr("The server had an error with %1 (HTTP %2). Try again later or choose another mirror.")
                .arg(what)
                .arg(status);
        return tr("The server answered HTTP %2 for %1. Try another mirror.").arg(what).arg(status);
    }
    if (code == u"html_page")
        return tr("The server sent a web page instead of %1 (often a login page of the campus, hotel or company network, "
                  "or an error page). Log in with a web browser and try again, or try another mirror.")
            .arg(what);
    if (code == u"insecure_redirect")
        return tr("The server tried to send %1 over an unencrypted connection; that was refused.").arg(what);
    if (code == u"redirect_loop")
        return tr("The server for %1 redirects in a loop. Try another mirror.").arg(what);
    if (code == u"dropped")
        return tr("The connection kept stalling or dropping while fetching %1. What arrived is kept; try again to resume.")
            .arg(what);
    if (code == u"size_mismatch")
        return tr("The server's %1 has a different size than the official one. Try another mirror.").arg(what);
    if (code == u"too_large")
        return tr("The server sent more for %1 than such a document can be. Check the address or the mirror.")
            .arg(what);
    if (code == u"checksum_mismatch")
        return tr("%1 does not match its official checksum, so it was not used. Try again later or another mirror; if it "
                  "keeps happening, something between you and the server changes the file.")
            .arg(what);
    if (code == u"disk_full")
        return tr("The disk is full while saving %1. Free some space or choose another folder, then try again.")
            .arg(what);
    if (code == u"permission_denied")
        return tr("You may not write to the folder of %1. Choose a folder in your own user folder.").arg(what);
    if (code == u"write_failed")
        return tr("Saving %1 failed. Check the disk and the folder's permissions.").arg(what);
    if (code == u"cancelled")
        return tr("Fetching %1 was cancelled.").arg(what);
    return tr("%1 could not be fetched. Check the internet connection, the proxy and the mirror settings.").arg(what);
}

Error NetworkError::make(const QString &code, int httpStatus, const QString &what, const QString &detail)
{
    return Error{code, message(code, httpStatus, what, detail), detail, httpStatus >= 300 ? httpStatus : 0};
}

} // namespace tfsetup::core
