#include "ui/connectiontest.h"

#include "util/units.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

// Columns of the table.
enum OriginTableColumn {
    OriginColumn,
    HostColumn,
    ReachableColumn,
    LatencyColumn,
    SpeedColumn,
    ReasonColumn,
    OriginColumns
};

QString speedText(qint64 bytesPerSecond)
{
    if (bytesPerSecond <= 0)
        return QStringLiteral("—");
    // In the wizard's language's number format, as the Download page shows it.
    return ConnectionTest::tr("%1/s").arg(core::Units::dataSize(bytesPerSecond));
}

// The cause in a few words, for the table; the full sentence is the cell's tool tip and the
// page's status line.
QString causeWords(const QString &c)
{
    if (c == u"dns")
        return ConnectionTest::tr("name not found");
    if (c == u"connect")
        return ConnectionTest::tr("connection refused");
    if (c == u"proxy_unreachable")
        return ConnectionTest::tr("proxy not reachable");
    if (c == u"timeout")
        return ConnectionTest::tr("no answer in time");
    if (c == u"too_slow")
        return ConnectionTest::tr("too slow");
    if (c == u"tls")
        return ConnectionTest::tr("certificate not trusted");
    if (c == u"proxy_auth")
        return ConnectionTest::tr("proxy asks for a password");
    if (c == u"proxy_error")
        return ConnectionTest::tr("the proxy could not reach it");
    if (c == u"http_error")
        return ConnectionTest::tr("the server refused the request");
    if (c == u"html_page")
        return ConnectionTest::tr("a web page instead (log in?)");
    if (c == u"folder_missing")
        return ConnectionTest::tr("folder missing");
    return ConnectionTest::tr("failed");
}

QString shortReason(const core::OriginResult &r)
{
    if (r.code.isEmpty())
        return r.needed ? QString() : ConnectionTest::tr("not needed for this plan");
    return r.needed ? causeWords(r.code) : ConnectionTest::tr("%1 (not needed for this plan)").arg(causeWords(r.code));
}

} // namespace

ConnectionTest::ConnectionTest(RequestMaker makeRequest, QWidget *parent)
    : QWidget(parent)
    , m_makeRequest(std::move(makeRequest))
    , m_button(new QPushButton(this))
    , m_table(new QTableWidget(0, OriginColumns, this))
{
    setObjectName(QStringLiteral("connectionTest"));
    m_button->setObjectName(QStringLiteral("testConnectionButton"));
    m_table->setObjectName(QStringLiteral("connectionTable"));
    m_table->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::TabFocus);
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ReasonColumn, QHeaderView::Stretch);

    auto *buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_button);
    buttonRow->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttonRow);
    layout->addWidget(m_table);

    connect(m_button, &QPushButton::clicked, this, &ConnectionTest::test);
    retranslate();
}

ConnectionTest::~ConnectionTest()
{
    for (const auto &cancel : {m_cancelTest, m_cancelRanking}) {
        if (cancel)
            cancel->store(true);
    }
}

void ConnectionTest::keepMirrors(const QList<core::OriginResult> &mirrors)
{
    if (!m_report)
        m_report = core::ConnectionReport{};
    if (&m_report->mirrors != &mirrors)
        m_report->mirrors = mirrors;
}

void ConnectionTest::setAvailable(bool available)
{
    m_available = available;
    m_button->setEnabled(available && !m_testing);
}

void ConnectionTest::test()
{
    if (m_testing)
        return;
    const quint64 generation = ++m_testGeneration;
    // The test measures the presets too, with the fields as they are now: it takes over from a
    // ranking still running.
    stopRanking();
    m_cancelTest = std::make_shared<std::atomic<bool>>(false);
    m_testing = true;
    m_button->setEnabled(false);
    Q_EMIT testStarted();
    runTest(this, m_makeRequest(m_cancelTest), generation);
}

QCoro::Task<> ConnectionTest::runTest(QPointer<ConnectionTest> self, core::OriginProbeRequest request,
                                      quint64 generation)
{
    auto report = co_await core::OriginProbe::probe(std::move(request), true);
    if (!self)
        co_return;
    self->finishTest(generation, std::move(report));
}

void ConnectionTest::finishTest(quint64 generation, core::Result<core::ConnectionReport> report)
{
    if (generation != m_testGeneration)
        return;
    m_testing = false;
    m_button->setEnabled(m_available);
    if (!report) {
        m_report.reset();
        m_table->setRowCount(0);
        m_table->hide();
        Q_EMIT testFinished(report.error());
        return;
    }
    m_report = std::move(*report);
    showOrigins();
    Q_EMIT testFinished(core::Ok{});
}

void ConnectionTest::rank(const QString &why)
{
    stopRanking();
    const quint64 generation = m_rankGeneration;
    m_cancelRanking = std::make_shared<std::atomic<bool>>(false);
    m_ranking = true;
    runRanking(this, m_makeRequest(m_cancelRanking), generation, why);
}

void ConnectionTest::stopRanking()
{
    if (m_cancelRanking)
        m_cancelRanking->store(true);
    ++m_rankGeneration;
    m_ranking = false;
}

QCoro::Task<> ConnectionTest::runRanking(QPointer<ConnectionTest> self, core::OriginProbeRequest request,
                                         quint64 generation, QString why)
{
    auto ranked = co_await core::OriginProbe::rankPypiMirrors(std::move(request));
    if (!self)
        co_return;
    self->finishRanking(generation, why, std::move(ranked));
}

void ConnectionTest::finishRanking(quint64 generation, const QString &why,
                                   core::Result<QList<core::OriginResult>> ranked)
{
    if (generation != m_rankGeneration)
        return;
    m_ranking = false;
    Q_EMIT rankFinished(why, ranked);
}

void ConnectionTest::retire()
{
    if (m_cancelTest)
        m_cancelTest->store(true);
    ++m_testGeneration;
    m_testing = false;
}

void ConnectionTest::clear()
{
    if (m_testing) {
        retire();
        m_button->setEnabled(m_available);
    }
    if (m_report)
        m_report->origins.clear(); // the ranked presets stay for the page's line about them
    m_table->setRowCount(0);
    m_table->hide();
}

void ConnectionTest::stop()
{
    retire();
    stopRanking();
    setAvailable(true);
}

QString ConnectionTest::originTitle(const core::OriginResult &r)
{
    if (r.origin == u"nvidia")
        return r.name == u"nvidia" ? tr("NVIDIA") : tr("NVIDIA mirror");
    if (r.origin == u"python")
        return tr("python.org");
    if (r.name == u"pypi")
        return tr("PyPI");
    return tr("PyPI mirror %1").arg(r.displayName);
}

// "清华大学 TUNA 镜像 2.3 MB/s, 阿里云 not reachable, …"
QString ConnectionTest::measuredSummary(const QList<core::OriginResult> &measured)
{
    QStringList parts;
    for (const core::OriginResult &r : measured) {
        const QString name = r.name == u"pypi" ? tr("PyPI") : r.displayName;
        if (!r.reachable)
            parts.append(tr("%1 not reachable").arg(name));
        else if (r.bytesPerSecond > 0)
            parts.append(r.slow ? tr("%1 %2 (slow)").arg(name, speedText(r.bytesPerSecond))
                                : tr("%1 %2").arg(name, speedText(r.bytesPerSecond)));
        else
            parts.append(tr("%1 answered in %2 ms").arg(name).arg(r.latency.count()));
    }
    return parts.join(tr(", "));
}

void ConnectionTest::showOrigins()
{
    // A ranking alone measured no origins: there is no table to show.
    if (!m_report || m_report->origins.isEmpty())
        return;
    const QList<core::OriginResult> &origins = m_report->origins;
    m_table->setRowCount(int(origins.size()));
    for (int row = 0; row < origins.size(); ++row) {
        const core::OriginResult &r = origins.at(row);
        const QString reachable = r.reachable ? (r.slow ? tr("yes, slowly") : tr("yes")) : tr("no");
        const QStringList cells{originTitle(r),
                                r.local ? r.url.toLocalFile() : r.host(),
                                reachable,
                                r.local || !r.reachable
                                    ? QStringLiteral("—")
                                    : tr("%1 ms").arg(QLocale().toString(qint64(r.latency.count()))),
                                speedText(r.bytesPerSecond),
                                shortReason(r)};
        for (int column = 0; column < OriginColumns; ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (!r.message.isEmpty())
                item->setToolTip(r.message);
            m_table->setItem(row, column, item);
        }
    }
    // As tall as its rows: the form around it scrolls, the table does not.
    m_table->resizeRowsToContents();
    int height = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int row = 0; row < m_table->rowCount(); ++row)
        height += m_table->rowHeight(row);
    // Room for the scroll bar a narrow window gives its columns.
    height += m_table->horizontalScrollBar()->sizeHint().height();
    m_table->setFixedHeight(height);
    m_table->show();
}

void ConnectionTest::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ConnectionTest::retranslate()
{
    m_button->setText(tr("Test &connection"));
    m_button->setToolTip(tr("Checks whether PyPI (or the mirror above), NVIDIA and python.org answer through "
                            "the proxy above, and how fast."));
    m_table->setHorizontalHeaderLabels(
        {tr("Origin"), tr("Host"), tr("Reachable"), tr("Latency"), tr("Speed"), tr("Why not")});
    m_table->setAccessibleName(tr("Connection test results"));
    showOrigins();
}

} // namespace tfsetup::ui
