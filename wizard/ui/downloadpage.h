#pragma once

#include "fetch/downloader.h"
#include "fetch/downloadtypes.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QWizardPage>

#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QTableWidget;

namespace tfsetup::ui {

class PageStatus;
class WizardState;

// Fetches the artifacts in WizardState::downloads(): a row per artifact with progress, rate,
// time left, mirror and checksum status, overall progress, and Pause / Resume / Cancel. The
// downloads belong to the page, not to its visit: going Back lets them run on, coming back shows
// them where they are, and a verified artifact is never fetched again. Next is enabled once every
// artifact verified; the results are committed to WizardState::setDownloaded().
//
// Files that do not come down here are listed too, each with its size and where it comes from:
// an offline bundle's (nothing to download), and the packages pip fetches during the install
// when no lock could be made before it. A failure is said in the one status area, with one
// button that does the fix and the raw words folded under Details.
class DownloadPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DownloadPage)
public:
    enum class RowState { Waiting, Running, Paused, Cancelled, Verified, Mismatch, Failed };
    Q_ENUM(RowState)

    explicit DownloadPage(WizardState &state, QWidget *parent = nullptr);
    ~DownloadPage() override;

    int rowCount() const { return int(m_rows.size()); }
    // Rows below the downloads for files that come from elsewhere (a bundle, pip at install).
    int listedCount() const { return int(m_listed.size()); }
    RowState rowState(int row) const;
    bool isPaused() const { return m_paused; }
    // Some file is still on its way (not paused, stopped, failed or verified).
    bool isDownloading() const;
    // fetch() calls started so far; a finished artifact never adds one.
    int fetchCount() const { return m_fetches; }

    void initializePage() override;
    void cleanupPage() override;
    bool validatePage() override;
    bool isComplete() const override;

public Q_SLOTS:
    void pause();
    void resume();
    void cancelDownloads();

Q_SIGNALS:
    void rowStateChanged(int row);
    void allVerified();

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Row {
        quint64 id = 0;
        core::DownloadRequest request;
        RowState state = RowState::Waiting;
        bool inFlight = false;
        bool verifying = false;
        qint64 received = 0;
        qint64 total = -1;
        double rate = 0;
        QUrl mirror;
        std::optional<core::DownloadResult> result;
        std::optional<core::Error> error;
    };

    // Inputs are parameters, the page is guarded: it may be gone when the download answers.
    static QCoro::Task<> runFetch(QPointer<DownloadPage> page, core::Downloader *downloader,
                                  core::DownloadRequest request, quint64 rowId);
    void finishFetch(quint64 rowId, const QString &name, core::Result<core::DownloadResult> result);
    void onProgress(const core::DownloadProgress &progress);
    void syncRows();
    void startPending();
    void setRowState(int row, RowState state);
    int rowIndex(quint64 id) const;
    int rowIndex(const QString &name) const;
    void rebuildTable();
    void updateRow(int row);
    void updateOverall();
    void updateButtons();
    void retranslate();
    void updateNotes();
    // What comes down in all (these files, and pip's share during the install) and how long it
    // may take; and, when CUDA libraries of another release stand in for the tested one, which.
    void updateSummary(double rate);
    void updateSubstitution();
    // The files of the plan that are not downloaded here (m_listed), from the state.
    void syncListed();
    void updateStatus(const QStringList &errors, const QStringList &details, const QString &code);
    void fitInfo();

    struct Listed {
        QString name;
        qint64 size = -1;
        QString from; // "offline bundle", the index's host
        QString when; // "in the bundle", "with the install"
        bool estimate = false;
    };

    WizardState &m_state;
    QList<Row> m_rows;
    QList<Listed> m_listed;
    QString m_bundleDir;           // the options' offline bundle; empty: none
    QSet<QString> m_inFlightNames; // the downloader tells transfers apart by name
    quint64 m_nextId = 1;
    int m_fetches = 0;
    bool m_paused = false;
    bool m_cancelled = false;

    QLabel *m_overallLabel;
    QProgressBar *m_overallProgress;
    QTableWidget *m_table;
    PageStatus *m_status;
    QScrollArea *m_infoScroll; // notes, substitution, summary: long in some languages
    QLabel *m_emptyLabel;
    QLabel *m_notesLabel;        // what the sources step warned about (no wheel for this Python, a weak checksum, …)
    QLabel *m_substitutionLabel; // CUDA archives of another release standing in for the tested one
    QLabel *m_summaryLabel;
    QPushButton *m_pauseButton;
    QPushButton *m_resumeButton;
    QPushButton *m_cancelButton;
};

} // namespace tfsetup::ui
