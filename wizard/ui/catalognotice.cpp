#include "ui/catalognotice.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace tfsetup::ui {

CatalogNotice::CatalogNotice(std::function<core::TransferOptions()> transfer, QWidget *parent)
    : QWidget(parent)
    , m_transfer(std::move(transfer))
    , m_notice(new QLabel(this))
    , m_button(new QPushButton(this))
{
    setObjectName(QStringLiteral("catalogNotice"));
    m_notice->setObjectName(QStringLiteral("catalogNoticeText"));
    m_notice->setWordWrap(true);
    m_button->setObjectName(QStringLiteral("catalogUpdateButton"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_notice, 1);
    layout->addWidget(m_button);
    connect(m_button, &QPushButton::clicked, this, &CatalogNotice::check);
    retranslate();
}

void CatalogNotice::refresh()
{
    m_result.clear();
    retranslate();
}

void CatalogNotice::check()
{
    if (m_checking)
        return;
    m_checking = true;
    m_button->setEnabled(false);
    m_result = tr("Checking for a catalog update…");
    retranslate();
    const QString from = m_from.isEmpty() ? core::CatalogUpdates::configuredSource() : m_from;
    runCheck(QPointer<CatalogNotice>(this), from, m_transfer ? m_transfer() : core::TransferOptions{},
             core::CatalogUpdates::current());
}

QCoro::Task<> CatalogNotice::runCheck(QPointer<CatalogNotice> self, QString from, core::TransferOptions transfer,
                                      core::CatalogUpdateTrust trust)
{
    const core::Result<core::CatalogUpdateOutcome> outcome = co_await core::CatalogUpdates::update(
        std::move(from), std::move(transfer), std::move(trust));
    if (self)
        self->finish(outcome);
}

void CatalogNotice::finish(const core::Result<core::CatalogUpdateOutcome> &outcome)
{
    m_checking = false;
    m_button->setEnabled(true);
    if (!outcome) {
        m_result = outcome.error().message;
    } else if (!outcome->published) {
        m_result = tr("tfsetup's release page has not published a catalog update yet; the built-in catalog "
                      "(version %1) stays in use.")
                       .arg(core::CatalogUpdates::current().builtInVersion);
    } else if (outcome->installed) {
        m_result = tr("Catalog update version %1 of %2 is installed; tfsetup uses it from now on.")
                       .arg(outcome->update.version)
                       .arg(outcome->update.date);
    } else {
        m_result = tr("The knowledge catalog is up to date (version %1).").arg(outcome->update.version);
    }
    retranslate();
    Q_EMIT checked(outcome.ok());
}

void CatalogNotice::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void CatalogNotice::retranslate()
{
    m_button->setText(tr("Chec&k for catalog updates"));
    m_button->setToolTip(tr("Fetch the signed update of tfsetup's knowledge (TensorFlow's tested versions, "
                            "NVIDIA's tables, GPUs) through the proxy above."));
    QString text = m_result;
    if (text.isEmpty()) {
        const core::CatalogStatus status = core::CatalogUpdates::status(core::CatalogUpdates::current());
        if (status.inUse()) {
            text = tr("The knowledge catalog is updated: version %1 of %2.")
                       .arg(status.update->version)
                       .arg(status.update->date);
        } else if (status.refused && status.refused->code != u"catalog_update_superseded") {
            text = tr("The installed catalog update was refused, so tfsetup uses its built-in catalog: %1")
                       .arg(status.refused->message);
        }
    }
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

} // namespace tfsetup::ui
