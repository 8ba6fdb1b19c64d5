#pragma once

#include "catalog/catalogupdate.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;

namespace tfsetup::ui {

// The knowledge catalog's line on the Options page: says when a catalog update is in use or an
// installed one was refused (the built-in catalog is then used), and offers "Check for catalog
// updates", which runs the same update as `tfsetup catalog update` through the page's proxy,
// awaited without blocking the window.
class CatalogNotice final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CatalogNotice)
public:
    // transfer: the proxy and CA bundle as the page's fields say when the button is pressed.
    CatalogNotice(std::function<core::TransferOptions()> transfer, QWidget *parent = nullptr);

    QPushButton *button() const { return m_button; }
    QLabel *notice() const { return m_notice; }
    bool isChecking() const { return m_checking; }
    // Reads the installed update's state again and shows it.
    void refresh();
    // The update comes from here instead of the configured or official address (labs, tests).
    void setSource(const QString &from) { m_from = from; }

Q_SIGNALS:
    void checked(bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runCheck(QPointer<CatalogNotice> self, QString from, core::TransferOptions transfer,
                                  core::CatalogUpdateTrust trust);
    void check();
    void finish(const core::Result<core::CatalogUpdateOutcome> &outcome);
    void retranslate();

    std::function<core::TransferOptions()> m_transfer;
    QLabel *m_notice;
    QPushButton *m_button;
    QString m_from;
    QString m_result; // what the last check found; empty before one
    bool m_checking = false;
};

} // namespace tfsetup::ui
