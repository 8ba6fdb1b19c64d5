#include "ui/downloadpage.h"

#include "catalog/version.h"
#include "ui/pagehelpers.h"
#include "ui/pagestatus.h"
#include "ui/wizardstate.h"
#include "util/runlog.h"
#include "util/units.h"

#include <QDir>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QWizard>

#include <algorithm>
#include <cmath>

namespace tfsetup::ui {

namespace {

enum Column { NameColumn, ProgressColumn, RateColumn, EtaColumn, MirrorColumn, ChecksumColumn, ColumnCount };

// The time estimated before a download has measured the real speed: 10 Mbit/s, a slow home or
// busy campus connection, so the estimate errs long.
constexpr double assumedBytesPerSecond = 10e6 / 8;

// The sources step's warning that another CUDA release's archives stand in for the tested one.
const QLatin1String substitutionCode("cuda_fallback_untested");

QString identity(const core::DownloadRequest &r)
{
    return r.name + u'\n' + r.destination + u'\n' + QString::fromLatin1(r.checksum.hex);
}

} // namespace

DownloadPage::DownloadPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_overallLabel(new QLabel(this))
    , m_overallProgress(new QProgressBar(this))
    , m_table(new QTableWidget(this))
    , m_status(new PageStatus(this))
    , m_infoScroll(new QScrollArea(this))
    , m_emptyLabel(new QLabel(this))
    , m_notesLabel(new QLabel(this))
    , m_substitutionLabel(new QLabel(this))
    , m_summaryLabel(new QLabel(this))
    , m_pauseButton(new QPushButton(this))
    , m_resumeButton(new QPushButton(this))
    , m_cancelButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("downloadPage"));
    m_overallLabel->setObjectName(QStringLiteral("overallLabel"));
    m_overallProgress->setObjectName(QStringLiteral("overallProgress"));
    m_table->setObjectName(QStringLiteral("downloadTable"));
    m_infoScroll->setObjectName(QStringLiteral("downloadInfoScrollArea"));
    m_emptyLabel->setObjectName(QStringLiteral("emptyLabel"));
    m_notesLabel->setObjectName(QStringLiteral("notesLabel"));
    m_substitutionLabel->setObjectName(QStringLiteral("substitutionLabel"));
    m_summaryLabel->setObjectName(QStringLiteral("downloadSummaryLabel"));
    m_pauseButton->setObjectName(QStringLiteral("pauseButton"));
    m_resumeButton->setObjectName(QStringLiteral("resumeButton"));
    m_cancelButton->setObjectName(QStringLiteral("cancelDownloadsButton"));

    // Every file comes through the setup pipeline's one downloader (the Options page's network
    // settings and download folder); its reports come here.
    connect(&m_state.pipeline(), &core::SetupPipeline::fileProgress, this, &DownloadPage::onProgress);

    for (QLabel *label : {m_overallLabel, m_emptyLabel, m_notesLabel, m_substitutionLabel, m_summaryLabel}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    m_notesLabel->setFrameShape(QFrame::StyledPanel);
    m_notesLabel->setMargin(6);
    m_notesLabel->hide();
    m_substitutionLabel->setFrameShape(QFrame::StyledPanel);
    m_substitutionLabel->setMargin(6);
    m_substitutionLabel->hide();
    m_summaryLabel->hide();
    m_overallProgress->setRange(0, progressScale);

    m_table->setColumnCount(ColumnCount);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->verticalHeader()->setVisible(false);
    QHeaderView *header = m_table->horizontalHeader();
    for (int column = 0; column < ColumnCount; ++column)
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    // Names ("cuDNN 8.9.7 for Windows", a wheel's long file name) get the room; the bar needs
    // enough to show its text. A name too long for a small window loses its middle, so the
    // project and the size at its end stay readable.
    header->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(ProgressColumn, QHeaderView::Fixed);
    header->resizeSection(ProgressColumn, 120);
    m_table->setWordWrap(false); // a wrapped name would hide its size on a second line
    m_table->setTextElideMode(Qt::ElideMiddle);

    connect(m_pauseButton, &QPushButton::clicked, this, &DownloadPage::pause);
    connect(m_resumeButton, &QPushButton::clicked, this, &DownloadPage::resume);
    connect(m_cancelButton, &QPushButton::clicked, this, &DownloadPage::cancelDownloads);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_pauseButton);
    buttons->addWidget(m_resumeButton);
    buttons->addWidget(m_cancelButton);

    // What is said before the downloads (notes, a stand-in CUDA, the summary) scrolls on its own
    // when a small window or a long language has no room for all of it; the table keeps its share.
    auto *info = new QWidget(m_infoScroll);
    info->setObjectName(QStringLiteral("downloadInfo"));
    auto *infoLayout = new QVBoxLayout(info);
    infoLayout->setContentsMargins(0, 0, 0, 0);
    infoLayout->addWidget(m_substitutionLabel);
    infoLayout->addWidget(m_notesLabel);
    infoLayout->addWidget(m_summaryLabel);
    infoLayout->addStretch(1);
    m_infoScroll->setWidget(info);
    m_infoScroll->setWidgetResizable(true);
    m_infoScroll->setFrameShape(QFrame::NoFrame);
    m_infoScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    info->installEventFilter(this);
    m_infoScroll->viewport()->installEventFilter(this);
    installEventFilter(this); // the page's height sets how much of it shows unscrolled

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_infoScroll, 1);
    layout->addWidget(m_overallLabel);
    layout->addWidget(m_overallProgress);
    layout->addWidget(m_emptyLabel);
    layout->addWidget(m_table, 3);
    layout->addWidget(m_status);
    layout->addLayout(buttons);

    retranslate();
    rebuildTable();
}

// The transfers belong to the wizard state's pipeline, which stops them when it goes (what arrived
// stays in the .part files for the next run to resume); the state may be gone before this page.
DownloadPage::~DownloadPage() = default;

DownloadPage::RowState DownloadPage::rowState(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).state : RowState::Waiting;
}

bool DownloadPage::isDownloading() const
{
    return std::any_of(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return r.state == RowState::Running; });
}

bool DownloadPage::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Resize)
        fitInfo();
    return QWizardPage::eventFilter(watched, event);
}

void DownloadPage::fitInfo()
{
    // Never taller than what it holds: a short summary leaves the room to the table.
    QWidget *info = m_infoScroll->widget();
    const bool any = !m_substitutionLabel->isHidden() || !m_notesLabel->isHidden() || !m_summaryLabel->isHidden();
    m_infoScroll->setVisible(any);
    if (!any || !info)
        return;
    const int width = m_infoScroll->viewport()->width();
    const int height = info->hasHeightForWidth() ? info->heightForWidth(width) : info->sizeHint().height();
    const int wanted = height + 2 * m_infoScroll->frameWidth();
    if (wanted > 0 && m_infoScroll->maximumHeight() != wanted)
        m_infoScroll->setMaximumHeight(wanted);
    // Shown whole while it takes no more than two fifths of the page; beyond that it scrolls.
    const int least = std::min(wanted, std::max(fontMetrics().lineSpacing() * 3, this->height() * 2 / 5));
    if (least > 0 && m_infoScroll->minimumHeight() != least)
        m_infoScroll->setMinimumHeight(least);
}

void DownloadPage::initializePage()
{
    updateNotes();
    updateSubstitution();
    syncListed();
    syncRows();
    if (!m_paused && !m_cancelled) {
        for (int i = 0; i < m_rows.size(); ++i) {
            if (m_rows.at(i).state == RowState::Waiting)
                setRowState(i, RowState::Running);
        }
    }
    startPending();
    updateOverall();
    updateButtons();
}

void DownloadPage::cleanupPage()
{
    // Going Back leaves the downloads running (QWizard's default would reset the page).
}

bool DownloadPage::validatePage()
{
    if (!isComplete())
        return false;
    QList<core::DownloadResult> results;
    for (const Row &row : std::as_const(m_rows))
        results.append(*row.result);
    m_state.setDownloaded(std::move(results));
    return true;
}

bool DownloadPage::isComplete() const
{
    return std::all_of(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return r.state == RowState::Verified; });
}

void DownloadPage::pause()
{
    m_paused = true;
    for (int i = 0; i < m_rows.size(); ++i) {
        Row &row = m_rows[i];
        if (row.state != RowState::Running && row.state != RowState::Waiting)
            continue;
        // The downloader keeps the .part file; Resume asks for the rest with a Range request.
        if (row.inFlight)
            m_state.downloader().cancel(row.request.name);
        setRowState(i, RowState::Paused);
    }
    updateButtons();
}

void DownloadPage::resume()
{
    m_paused = false;
    m_cancelled = false;
    for (int i = 0; i < m_rows.size(); ++i) {
        Row &row = m_rows[i];
        if (row.state == RowState::Running || row.state == RowState::Verified)
            continue;
        row.error.reset();
        row.rate = 0;
        setRowState(i, RowState::Running);
    }
    startPending();
    updateOverall();
    updateButtons();
}

void DownloadPage::cancelDownloads()
{
    m_cancelled = true;
    m_paused = false;
    for (int i = 0; i < m_rows.size(); ++i) {
        Row &row = m_rows[i];
        if (row.state == RowState::Verified || row.state == RowState::Mismatch || row.state == RowState::Failed)
            continue;
        if (row.inFlight)
            m_state.downloader().cancel(row.request.name);
        setRowState(i, RowState::Cancelled);
    }
    updateOverall();
    updateButtons();
}

void DownloadPage::syncRows()
{
    // The request list may have changed (Back, another plan): keep the rows that are still
    // wanted exactly as they are, stop the ones that are not, add the new ones.
    QList<core::DownloadRequest> requests = m_state.downloads();
    QSet<QString> names;
    for (core::DownloadRequest &request : requests) {
        if (request.name.isEmpty())
            request.name = QFileInfo(request.destination).fileName();
        // The downloader tells transfers apart by name; two artifacts must not share one.
        const QString base = request.name;
        for (int n = 2; names.contains(request.name); ++n)
            request.name = QStringLiteral("%1 (%2)").arg(base).arg(n);
        names.insert(request.name);
    }

    QList<Row> rows;
    for (const core::DownloadRequest &request : std::as_const(requests)) {
        const auto existing = std::find_if(m_rows.begin(), m_rows.end(),
                                           [&](const Row &r) { return identity(r.request) == identity(request); });
        if (existing != m_rows.end()) {
            rows.append(std::move(*existing));
            m_rows.erase(existing);
            continue;
        }
        Row row;
        row.id = m_nextId++;
        row.request = request;
        row.total = request.expectedSize;
        rows.append(std::move(row));
    }
    // What is left is no longer wanted; its answer will find no row and be dropped.
    for (const Row &gone : std::as_const(m_rows)) {
        if (gone.inFlight)
            m_state.downloader().cancel(gone.request.name);
    }
    m_rows = std::move(rows);
    rebuildTable();
}

void DownloadPage::startPending()
{
    for (Row &row : m_rows) {
        if (row.state != RowState::Running || row.inFlight || m_inFlightNames.contains(row.request.name))
            continue;
        row.inFlight = true;
        row.verifying = false;
        m_inFlightNames.insert(row.request.name);
        ++m_fetches;
        // Started eagerly; the task runs on after this returns and its handle is dropped.
        runFetch(this, &m_state.downloader(), row.request, row.id);
    }
}

QCoro::Task<> DownloadPage::runFetch(QPointer<DownloadPage> page, core::Downloader *downloader,
                                     core::DownloadRequest request, quint64 rowId)
{
    const QString name = request.name;
    auto result = co_await downloader->fetch(std::move(request));
    if (!page)
        co_return;
    page->finishFetch(rowId, name, std::move(result));
}

void DownloadPage::finishFetch(quint64 rowId, const QString &name, core::Result<core::DownloadResult> result)
{
    m_inFlightNames.remove(name);
    const int index = rowIndex(rowId);
    if (index >= 0) {
        Row &row = m_rows[index];
        row.inFlight = false;
        row.rate = 0;
        row.verifying = false;
        if (result) {
            row.result = *result;
            row.received = result->bytes;
            row.total = result->bytes;
            if (result->fromCache)
                row.mirror.clear();
            qInfo().noquote() << "Downloaded" << name << "to" << result->path
                              << (result->fromCache ? QStringLiteral("(already there)")
                                                    : result->source.toDisplayString());
            setRowState(index, RowState::Verified);
        } else if (result.error().code == u"cancelled") {
            // Paused or cancelled: the row already says so. Still Running means Resume came
            // before the transfer had stopped; startPending() below starts it again.
        } else {
            row.error = result.error();
            qWarning().noquote() << "Download of" << name << "failed:" << result.error().code << result.error().message
                                 << result.error().detail;
            setRowState(index, result.error().code == u"checksum_mismatch" ? RowState::Mismatch : RowState::Failed);
        }
    }
    startPending();
    updateOverall();
    updateButtons();
    Q_EMIT completeChanged();
    if (!m_rows.isEmpty() && isComplete() && index >= 0)
        Q_EMIT allVerified();
}

void DownloadPage::onProgress(const core::DownloadProgress &progress)
{
    const int index = rowIndex(progress.name);
    if (index < 0)
        return;
    Row &row = m_rows[index];
    // Done and Failed come with fetch()'s answer, which is what counts; late reports from a
    // transfer that was just paused must not move its row.
    if (row.state != RowState::Running || !row.inFlight)
        return;
    using Stage = core::DownloadProgress::Stage;
    if (progress.stage == Stage::Done || progress.stage == Stage::Failed)
        return;
    row.verifying = progress.stage == Stage::Verifying;
    if (progress.stage == Stage::Downloading) {
        row.received = progress.received;
        if (progress.total > 0)
            row.total = progress.total;
        row.rate = progress.bytesPerSecond;
    }
    if (!progress.mirror.isEmpty())
        row.mirror = progress.mirror;
    updateRow(index);
    updateOverall();
}

void DownloadPage::setRowState(int index, RowState state)
{
    Row &row = m_rows[index];
    if (row.state == state)
        return;
    row.state = state;
    updateRow(index);
    Q_EMIT rowStateChanged(index);
}

int DownloadPage::rowIndex(quint64 id) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).id == id)
            return i;
    }
    return -1;
}

int DownloadPage::rowIndex(const QString &name) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).request.name == name)
            return i;
    }
    return -1;
}

void DownloadPage::rebuildTable()
{
    m_table->clearContents();
    m_table->setRowCount(int(m_rows.size() + m_listed.size()));
    for (int i = 0; i < m_rows.size(); ++i) {
        for (int column = 0; column < ColumnCount; ++column) {
            if (column != ProgressColumn)
                m_table->setItem(i, column, new QTableWidgetItem);
        }
        auto *bar = new QProgressBar;
        bar->setObjectName(QStringLiteral("rowProgress"));
        bar->setRange(0, progressScale);
        m_table->setCellWidget(i, ProgressColumn, bar);
        updateRow(i);
    }
    // Below the downloads, what comes from elsewhere: each with its size and where from.
    for (int i = 0; i < m_listed.size(); ++i) {
        const Listed &l = m_listed.at(i);
        QString name = l.name;
        if (l.size > 0) {
            name = l.estimate ? tr("%1 (about %2)").arg(l.name, core::Units::dataSize(l.size))
                              : tr("%1 (%2)").arg(l.name, core::Units::dataSize(l.size));
        }
        const QStringList cells{name,
                                l.when,
                                QStringLiteral("—"),
                                QStringLiteral("—"),
                                l.from,
                                tr("checked at install", "checksum status")};
        const int row = int(m_rows.size()) + i;
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            item->setToolTip(column == NameColumn ? l.name : cells.at(column));
            m_table->setItem(row, column, item);
        }
    }
    const bool empty = m_rows.isEmpty();
    m_table->setVisible(!empty || !m_listed.isEmpty());
    if (empty) {
        if (!m_bundleDir.isEmpty())
            m_emptyLabel->setText(tr("Nothing to download: every file comes from the offline bundle %1.")
                                      .arg(QDir::toNativeSeparators(m_bundleDir)));
        else if (!m_listed.isEmpty())
            m_emptyLabel->setText(tr("Nothing to download before the install: pip fetches the packages below during "
                                     "the install."));
        else
            m_emptyLabel->setText(tr("There is nothing to download for this choice."));
    }
    m_emptyLabel->setVisible(empty);
}

void DownloadPage::syncListed()
{
    m_listed.clear();
    m_bundleDir = m_state.options().network.bundleDir.trimmed();
    const auto &list = m_state.artifacts();
    const core::PyLock &lock = m_state.lock();
    QSet<QString> downloaded;
    for (const core::DownloadRequest &r : m_state.downloads())
        downloaded.insert(QFileInfo(r.destination).fileName());
    const auto hostOf = [](const QString &url) {
        const QUrl u(url);
        return u.isLocalFile() ? QDir::toNativeSeparators(u.toLocalFile()) : u.host();
    };
    if (!m_bundleDir.isEmpty()) {
        const QString from = tr("offline bundle");
        const QString when = tr("In the bundle");
        if (list) {
            for (const core::Artifact &a : list->artifacts) {
                const QString file = a.fileName().isEmpty() ? a.name : a.fileName();
                if (a.kind == u"wheelhouse" || a.optional || downloaded.contains(file))
                    continue;
                m_listed.append(Listed{file, a.size, from, when, false});
            }
        }
        for (const core::LockedWheel &w : lock.packages) {
            if (!downloaded.contains(w.file))
                m_listed.append(Listed{w.file, w.size, from, when, false});
        }
        return;
    }
    // No lock before the install (python.org's installer brings the Python pip locks with): what
    // pip will fetch then, as far as it is known now.
    if (!list || !lock.packages.isEmpty())
        return;
    for (const core::Artifact &a : list->artifacts) {
        if (a.kind != u"wheelhouse")
            continue;
        const QString what = a.requirement.isEmpty() ? a.name : a.requirement;
        QString from = hostOf(a.indexUrl);
        if (from.isEmpty() && !a.urls.isEmpty())
            from = a.urls.constFirst().host();
        if (from.isEmpty()) {
            // The index the options name: a preset by its name, an address by its host.
            const QString index = m_state.options().network.firstPypiIndex();
            from = index.isEmpty() || index == u"pypi" ? tr("PyPI") : index.contains(u"://") ? hostOf(index) : index;
        }
        m_listed.append(
            Listed{tr("%1 and the packages it needs").arg(what), a.size, from, tr("With the install"), true});
    }
}

void DownloadPage::updateRow(int index)
{
    if (index >= m_table->rowCount())
        return;
    const Row &row = m_rows.at(index);
    auto *bar = qobject_cast<QProgressBar *>(m_table->cellWidget(index, ProgressColumn));
    const bool sizeKnown = row.total > 0;
    const int value = sizeKnown ? int(double(std::min(row.received, row.total)) * progressScale / double(row.total))
                                : 0;
    QString format;
    QString rate = QStringLiteral("—");
    QString eta = QStringLiteral("—");
    QString checksum = tr("pending", "checksum status");
    switch (row.state) {
    case RowState::Waiting: format = tr("Waiting"); break;
    case RowState::Running:
        if (row.verifying)
            format = tr("Checking");
        else if (row.received == 0 && row.rate <= 0)
            format = tr("Waiting"); // queued behind other downloads, or connecting
        else
            format = sizeKnown ? QStringLiteral("%p%") : core::Units::dataSize(row.received);
        if (row.rate > 0) {
            rate = tr("%1/s").arg(core::Units::dataSize(qint64(row.rate)));
            if (sizeKnown)
                eta = core::Units::duration(double(row.total - row.received) / row.rate);
        }
        break;
    case RowState::Paused: format = sizeKnown ? tr("Paused at %p%") : tr("Paused"); break;
    case RowState::Cancelled: format = tr("Stopped"); break;
    case RowState::Verified:
        format = tr("Done");
        checksum = row.result && row.result->weakChecksum ? tr("verified (MD5 only)", "checksum status")
                                                          : tr("verified", "checksum status");
        break;
    case RowState::Mismatch:
        format = tr("Rejected");
        checksum = tr("mismatch", "checksum status");
        break;
    case RowState::Failed: format = tr("Failed"); break;
    }
    if (bar) {
        bar->setValue(row.state == RowState::Verified ? progressScale : value);
        bar->setFormat(format);
        bar->setAccessibleName(row.request.name);
        bar->setAccessibleDescription(format);
    }
    QString mirror;
    // Where it comes from: the server that answers, else the first one it will be asked from.
    const QUrl from = !row.mirror.isEmpty() ? row.mirror : row.request.urls.value(0);
    if (row.result && row.result->fromCache)
        mirror = tr("already downloaded");
    else if (from.isLocalFile())
        mirror = QDir::toNativeSeparators(from.toLocalFile());
    else if (!from.isEmpty())
        mirror = from.port() > 0 ? from.host() + u':' + QString::number(from.port()) : from.host();
    // The size as the lock or manifest gave it, else as the server announced it once it answered.
    QString name = row.request.name;
    if (const qint64 size = row.request.expectedSize > 0 ? row.request.expectedSize : row.total; size > 0)
        name = tr("%1 (%2)").arg(row.request.name, core::Units::dataSize(size));

    const QStringList cells{name, QString(), rate, eta, mirror, checksum};
    for (int column = 0; column < ColumnCount; ++column) {
        if (QTableWidgetItem *item = m_table->item(index, column))
            item->setText(cells.at(column));
    }
    if (QTableWidgetItem *item = m_table->item(index, MirrorColumn))
        item->setToolTip(from.toDisplayString());
    if (QTableWidgetItem *item = m_table->item(index, NameColumn))
        item->setToolTip(row.request.name + u'\n' + QDir::toNativeSeparators(row.request.destination));
    if (QTableWidgetItem *item = m_table->item(index, ChecksumColumn)) {
        item->setToolTip(tr("%1 %2").arg(row.request.checksum.algorithmName().toUpper(),
                                         QString::fromLatin1(row.request.checksum.hex)));
    }
}

void DownloadPage::updateOverall()
{
    qint64 received = 0;
    qint64 total = 0;
    bool totalKnown = true;
    double rate = 0;
    int verified = 0;
    QStringList errors;
    QStringList details;
    QString code;
    for (const Row &row : std::as_const(m_rows)) {
        received += row.state == RowState::Verified ? row.total : row.received;
        if (row.total > 0)
            total += row.total;
        else
            totalKnown = false;
        if (row.state == RowState::Running)
            rate += row.rate;
        if (row.state == RowState::Verified)
            ++verified;
        if (row.error) {
            errors.append(row.error->message);
            details.append(
                QString(row.request.name + QStringLiteral(": ") + row.error->code + u' ' + row.error->detail));
            if (code.isEmpty())
                code = row.error->code;
        }
    }
    const int count = int(m_rows.size());
    if (totalKnown && total > 0)
        m_overallProgress->setValue(int(double(std::min(received, total)) * progressScale / double(total)));
    else
        m_overallProgress->setValue(count > 0 ? verified * progressScale / count : 0);
    m_overallProgress->setVisible(count > 0);

    QString text;
    if (count > 0 && verified == count) {
        text = tr("All %n file(s) are downloaded and their checksums verified.", nullptr, count);
    } else if (m_cancelled) {
        text = tr("Downloads stopped. What arrived is kept: Resume continues where they stopped.");
    } else if (m_paused) {
        text = tr("Paused. Resume continues where the downloads stopped.");
    } else if (count > 0) {
        text = totalKnown ? tr("%1 of %2 downloaded").arg(core::Units::dataSize(received), core::Units::dataSize(total))
                          : tr("%1 downloaded").arg(core::Units::dataSize(received));
        if (rate > 0 && totalKnown && total > received) {
            text += u' '
                + tr("(%1/s, about %2 left)")
                      .arg(core::Units::dataSize(qint64(rate)), core::Units::duration(double(total - received) / rate));
        } else if (rate > 0) {
            text += u' ' + tr("(%1/s)").arg(core::Units::dataSize(qint64(rate)));
        }
    }
    m_overallLabel->setText(text);
    m_overallLabel->setVisible(!text.isEmpty());
    updateSummary(rate);

    updateStatus(errors, details, code);
}

void DownloadPage::updateStatus(const QStringList &errors, const QStringList &details, const QString &code)
{
    if (errors.isEmpty()) {
        m_status->clear();
        return;
    }
    const QString log = core::RunLog::path();
    QString raw = details.join(u'\n');
    if (!log.isEmpty())
        raw += u'\n' + tr("The log file has the details: %1").arg(QDir::toNativeSeparators(log));
    const QString message = errors.join(u'\n');
    // The same failure again (a progress report, a language change): keep the open Details.
    if (m_status->message() == message && m_status->details() == raw)
        return;
    m_status->showMessage(PageStatus::Kind::Error, message, raw);
    static const QStringList network{
        QStringLiteral("dns"),        QStringLiteral("connect"),     QStringLiteral("proxy_unreachable"),
        QStringLiteral("proxy_auth"), QStringLiteral("proxy_error"), QStringLiteral("timeout"),
        QStringLiteral("too_slow"),   QStringLiteral("tls"),         QStringLiteral("http_error"),
        QStringLiteral("html_page"),  QStringLiteral("dropped"),     QStringLiteral("network")};
    if (network.contains(code) && wizard()) {
        // The proxy and the mirrors are set on the page before this one.
        m_status->setAction(tr("Set a proxy or &mirror…"), [this] {
            if (wizard())
                wizard()->back();
        });
    } else if (code == u"checksum_mismatch" || code == u"size_mismatch") {
        m_status->setAction(tr("Download a&gain"), [this] { resume(); });
    } else if (!log.isEmpty()) {
        m_status->setAction(tr("Open the &log"), [log] { QDesktopServices::openUrl(QUrl::fromLocalFile(log)); });
    }
}

void DownloadPage::updateButtons()
{
    bool running = false;
    bool resumable = false;
    for (const Row &row : std::as_const(m_rows)) {
        running = running || row.state == RowState::Running;
        resumable = resumable || (row.state != RowState::Running && row.state != RowState::Verified);
    }
    m_pauseButton->setEnabled(running);
    m_resumeButton->setEnabled(resumable);
    m_cancelButton->setEnabled(running || std::any_of(m_rows.cbegin(), m_rows.cend(), [](const Row &r) {
                                   return r.state == RowState::Paused || r.state == RowState::Waiting;
                               }));
}

void DownloadPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        syncListed();
        rebuildTable();
        updateOverall();
    }
    QWizardPage::changeEvent(event);
}

void DownloadPage::updateNotes()
{
    // The sources step's warnings, shown before anything downloads: a TensorFlow without a wheel
    // for this Python, a CUDA outside TensorFlow's tested set, a checksum weaker than SHA-256.
    QStringList notes;
    if (const auto &list = m_state.artifacts()) {
        for (const core::Finding &w : list->warnings) {
            if (w.code != substitutionCode) // said on its own, more plainly, above
                notes.append(QStringLiteral("• ") + w.message);
        }
    }
    m_notesLabel->setVisible(!notes.isEmpty());
    m_notesLabel->setText(notes.isEmpty() ? QString()
                                          : tr("Please note before the downloads:") + u'\n' + notes.join(u'\n'));
    m_notesLabel->setAccessibleName(tr("Notes about the files"));
    fitInfo();
}

void DownloadPage::updateSubstitution()
{
    const auto &list = m_state.artifacts();
    const core::Finding *warning = nullptr;
    if (list) {
        for (const core::Finding &w : list->warnings) {
            if (w.code == substitutionCode)
                warning = &w;
        }
    }
    if (!warning) {
        m_substitutionLabel->clear();
        m_substitutionLabel->hide();
        fitInfo();
        return;
    }
    // The release whose archives come down is the one in their manifest's name
    // ("redistrib_11.8.0.json"); the tested one is the plan's.
    static const QRegularExpression release(QStringLiteral("(\\d+\\.\\d+)(?:\\.\\d+)*\\.json$"));
    QString used;
    for (const core::Artifact &a : list->artifacts) {
        if (const auto m = release.match(a.manifest); a.kind == u"cuda-redist-archive" && m.hasMatch()) {
            used = m.captured(1);
            break;
        }
    }
    const auto &plan = m_state.plan();
    QString text;
    if (!used.isEmpty() && plan && !plan->cuda.isEmpty()) {
        text = tr("The CUDA libraries below are CUDA %1's, standing in for CUDA %2, the version TensorFlow %3 was "
                  "tested with.")
                   .arg(used, plan->cuda, core::version::majorMinor(plan->tensorflow))
            + u'\n';
    }
    text += tr("Why: %1").arg(warning->message);
    m_substitutionLabel->setText(text);
    m_substitutionLabel->setAccessibleName(tr("CUDA libraries of another release"));
    m_substitutionLabel->show();
    fitInfo();
}

void DownloadPage::updateSummary(double rate)
{
    // Grouped as a student thinks of them: NVIDIA's libraries, Python, the Python packages pip's
    // resolver locked (TensorFlow's wheel among them), the rest. Without a lock yet (no Python to
    // lock with before the install makes one), what pip will fetch on the Install page, from the
    // wheel check's answer where there was one.
    const auto &list = m_state.artifacts();
    const auto artifactFor = [&list](const core::DownloadRequest &request) -> const core::Artifact * {
        if (!list)
            return nullptr;
        const QString file = QFileInfo(request.destination).fileName();
        for (const core::Artifact &a : list->artifacts) {
            if (a.kind != u"wheelhouse" && !a.fileName().isEmpty() && a.fileName() == file)
                return &a;
        }
        return nullptr;
    };
    const core::PyLock &lock = m_state.lock();
    QSet<QString> lockedFiles;
    for (const core::LockedWheel &w : lock.packages)
        lockedFiles.insert(w.file);
    const auto isLockedWheel = [&lockedFiles](const core::DownloadRequest &request) {
        return lockedFiles.contains(QFileInfo(request.destination).fileName());
    };
    qint64 nvidiaBytes = 0, pythonBytes = 0, wheelBytes = 0, otherBytes = 0;
    int nvidia = 0, python = 0, wheels = 0, other = 0;
    bool sizesKnown = true;
    QString pythonVersion;
    for (const Row &row : std::as_const(m_rows)) {
        const qint64 size = row.total > 0 ? row.total : row.request.expectedSize;
        sizesKnown = sizesKnown && size > 0;
        const core::Artifact *a = artifactFor(row.request);
        if (a && a->source.startsWith(QLatin1String("nvidia"))) {
            ++nvidia;
            nvidiaBytes += std::max<qint64>(size, 0);
        } else if (a && a->kind == u"python") {
            ++python;
            pythonBytes += std::max<qint64>(size, 0);
            pythonVersion = a->version;
        } else if (isLockedWheel(row.request)) {
            ++wheels;
            wheelBytes += std::max<qint64>(size, 0);
        } else {
            ++other;
            otherBytes += std::max<qint64>(size, 0);
        }
    }
    const core::Artifact *pip = nullptr;
    // With a bundle pip installs from its wheels: nothing of pip's comes over the network.
    if (list && lock.packages.isEmpty() && m_bundleDir.isEmpty()) {
        for (const core::Artifact &a : list->artifacts) {
            if (a.kind == u"wheelhouse")
                pip = &a;
        }
    }
    qint64 bundleBytes = 0;
    int bundled = 0;
    bool bundleSizesKnown = true;
    if (!m_bundleDir.isEmpty()) {
        for (const Listed &l : std::as_const(m_listed)) {
            ++bundled;
            bundleBytes += std::max<qint64>(l.size, 0);
            bundleSizesKnown = bundleSizesKnown && l.size > 0;
        }
    }
    if (m_rows.isEmpty() && !pip && bundled == 0) {
        m_summaryLabel->clear();
        m_summaryLabel->hide();
        fitInfo();
        return;
    }
    QStringList lines{tr("What comes down:")};
    if (bundled > 0) {
        lines.append(
            QStringLiteral("• ")
            + (bundleSizesKnown
                   ? tr("From the offline bundle: %n file(s), %1, nothing to download.", nullptr, bundled)
                   : tr("From the offline bundle: %n file(s), at least %1, nothing to download.", nullptr, bundled))
                  .arg(core::Units::dataSize(bundleBytes)));
    }
    if (nvidia > 0)
        lines.append(
            QStringLiteral("• ")
            + tr("NVIDIA's libraries: %n archive(s), %1", nullptr, nvidia).arg(core::Units::dataSize(nvidiaBytes)));
    if (python > 0)
        lines.append(QStringLiteral("• ") + tr("Python %1: %2").arg(pythonVersion, core::Units::dataSize(pythonBytes)));
    if (wheels > 0) {
        lines.append(
            QStringLiteral("• ")
            + tr("Python packages (TensorFlow and what it needs, as pip's resolver chose them): %n wheel(s), %1",
                 nullptr, wheels)
                  .arg(core::Units::dataSize(wheelBytes)));
    }
    if (other > 0)
        lines.append(QStringLiteral("• ")
                     + tr("Other files: %n file(s), %1", nullptr, other).arg(core::Units::dataSize(otherBytes)));
    const qint64 files = nvidiaBytes + pythonBytes + wheelBytes + otherBytes;
    qint64 total = files;
    if (pip) {
        const QString tensorflow = pip->requirement.isEmpty() ? pip->name : pip->requirement;
        if (pip->size > 0) {
            total += pip->size;
            lines.append(QStringLiteral("• ")
                         + tr("During the install, pip fetches %1: about %2 for the TensorFlow wheel (an estimate, "
                              "from PyPI's listing; the packages TensorFlow needs come on top).")
                               .arg(tensorflow, core::Units::dataSize(pip->size)));
        } else {
            lines.append(QStringLiteral("• ")
                         + tr("During the install, pip fetches %1 and the packages it needs; their size is known "
                              "only then.")
                               .arg(tensorflow));
        }
    }
    if (total > 0) {
        const bool measured = rate > 0;
        const double speed = measured ? rate : assumedBytesPerSecond;
        const QString time = core::Units::duration(double(total) / speed);
        QString line = pip && pip->size > 0 ? tr("In all about %1").arg(core::Units::dataSize(total))
            : pip                           ? tr("In all %1, plus pip's packages").arg(core::Units::dataSize(total))
                                            : tr("In all %1").arg(core::Units::dataSize(total));
        if (!sizesKnown)
            line = tr("In all at least %1").arg(core::Units::dataSize(total));
        // Once every file is here, how long it would take is no longer news.
        const bool allHere = !pip && !m_rows.isEmpty()
            && std::all_of(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return r.state == RowState::Verified; });
        if (!allHere) {
            line += u' '
                + (measured ? tr("(about %1 at the current %2/s).").arg(time, core::Units::dataSize(qint64(speed)))
                            : tr("(about %1 at %2/s; the real time shows once the downloads run).")
                                  .arg(time, core::Units::dataSize(qint64(speed))));
        }
        lines.append(line);
    }
    // Where the bytes come from: the servers answering now, else the first each file is asked from.
    QStringList sources;
    for (const Row &row : std::as_const(m_rows)) {
        if (row.result && row.result->fromCache)
            continue;
        const QUrl from = !row.mirror.isEmpty() ? row.mirror : row.request.urls.value(0);
        const QString host = from.isLocalFile() ? QDir::toNativeSeparators(from.toLocalFile()) : from.host();
        if (!host.isEmpty() && !sources.contains(host))
            sources.append(host);
    }
    for (const Listed &l : std::as_const(m_listed)) {
        const QString where = l.from == tr("offline bundle") ? QDir::toNativeSeparators(m_bundleDir) : l.from;
        if (!where.isEmpty() && !sources.contains(where))
            sources.append(where);
    }
    if (!sources.isEmpty())
        lines.append(tr("From: %1").arg(sources.join(tr(", "))));
    m_summaryLabel->setText(lines.join(u'\n'));
    m_summaryLabel->show();
    fitInfo();
}

void DownloadPage::retranslate()
{
    setTitle(tr("Downloading"));
    setSubTitle(tr("tfsetup downloads the official files and checks each one against its published checksum. "
                   "You can go back meanwhile; the downloads keep going."));
    m_table->setHorizontalHeaderLabels(
        {tr("File"), tr("Progress"), tr("Speed"), tr("Time left"), tr("From"), tr("Checksum")});
    m_table->setAccessibleName(tr("Downloads"));
    m_emptyLabel->setText(tr("There is nothing to download for this choice."));
    updateNotes();
    updateSubstitution();
    m_summaryLabel->setAccessibleName(tr("What will be downloaded"));
    m_infoScroll->setAccessibleName(tr("About the downloads"));
    m_pauseButton->setText(tr("&Pause"));
    m_pauseButton->setAccessibleName(tr("Pause downloads"));
    m_resumeButton->setText(tr("&Resume"));
    m_resumeButton->setAccessibleName(tr("Resume downloads"));
    m_resumeButton->setToolTip(tr("Continues paused or stopped downloads where they stopped, and tries failed ones "
                                  "again."));
    m_cancelButton->setText(tr("&Stop downloads"));
    m_cancelButton->setAccessibleName(tr("Stop downloads"));
    m_cancelButton->setToolTip(tr("Stops every download. What arrived is kept, so Resume does not start over."));
}

} // namespace tfsetup::ui
