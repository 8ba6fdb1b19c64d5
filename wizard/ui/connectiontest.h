#pragma once

#include "sources/originprobe.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QPushButton;
class QTableWidget;

namespace tfsetup::ui {

// The Options page's connection test: a "Test connection" button and the table of what each
// origin answered (reachable, latency, speed, why not), and the background ranking of the PyPI
// mirror presets. It measures what the page's request maker says when asked (the fields as they
// are at that moment, core::OriginProbe) and keeps the last measurement; what the results mean
// for the fields (a preselected mirror, the fix to offer, the status line) is the page's.
//
// A newer test, clear() or stop() retires the answer of an older one; nothing runs on the GUI
// thread but the table.
class ConnectionTest final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionTest)
public:
    using RequestMaker = std::function<core::OriginProbeRequest(std::shared_ptr<const std::atomic<bool>> cancel)>;

    explicit ConnectionTest(RequestMaker makeRequest, QWidget *parent = nullptr);
    ~ConnectionTest() override;

    bool isTesting() const { return m_testing; }
    bool isRanking() const { return m_ranking; }
    // The last test's origins and presets, or a ranking's presets alone; none before either.
    const std::optional<core::ConnectionReport> &report() const { return m_report; }
    // Keeps presets a ranking measured as the report's (for the fix and the words after a
    // language change); the origins stay as they are.
    void keepMirrors(const QList<core::OriginResult> &mirrors);
    // Whether a test may be started now (the page is not busy); while one runs the button stays off.
    void setAvailable(bool available);

    QPushButton *button() const { return m_button; }
    QTableWidget *table() const { return m_table; }

    // Starts a test unless one is running; it takes over from a ranking.
    void test();
    // Ranks the presets in the background; why comes back with the answer.
    void rank(const QString &why);
    void stopRanking();
    // The settings changed: a running test is retired, the origins are dropped (the presets
    // measured stay) and the table is hidden.
    void clear();
    // Nobody waits for an answer now (the page was left): the test and the ranking are retired.
    void stop();

    // Words shared with the page's status lines: an origin's title ("NVIDIA mirror", "PyPI mirror
    // 清华大学 TUNA 镜像"), and what a ranking measured, best first.
    static QString originTitle(const core::OriginResult &result);
    static QString measuredSummary(const QList<core::OriginResult> &measured);

Q_SIGNALS:
    void testStarted();
    // The table is filled (or, on an error, hidden); report() holds what was measured.
    void testFinished(const core::Status &status);
    void rankFinished(const QString &why, const core::Result<QList<core::OriginResult>> &ranked);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runTest(QPointer<ConnectionTest> self, core::OriginProbeRequest request, quint64 generation);
    static QCoro::Task<> runRanking(QPointer<ConnectionTest> self, core::OriginProbeRequest request, quint64 generation,
                                    QString why);
    void finishTest(quint64 generation, core::Result<core::ConnectionReport> report);
    void finishRanking(quint64 generation, const QString &why, core::Result<QList<core::OriginResult>> ranked);
    void retire();
    void showOrigins();
    void retranslate();

    RequestMaker m_makeRequest;
    bool m_available = true;
    bool m_testing = false;
    bool m_ranking = false;
    quint64 m_testGeneration = 0; // a newer test, or the page closing, retires older answers
    quint64 m_rankGeneration = 0;
    std::shared_ptr<std::atomic<bool>> m_cancelTest, m_cancelRanking; // set to stop them
    std::optional<core::ConnectionReport> m_report;

    QPushButton *m_button;
    QTableWidget *m_table;
};

} // namespace tfsetup::ui
