#include "ui/repairpage.h"

#include "catalog/catalog.h"
#include "doctor/doctor.h"
#include "fetch/downloadcache.h"
#include "install/environmentrecord.h"

#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

QCoro::Task<QList<core::DoctorFinding>> runDefaultDoctor(core::SystemView *system, core::KnowledgePtr knowledge,
                                                         QString environment, QString log, core::LogOrigin origin)
{
    if (!knowledge)
        co_return QList<core::DoctorFinding>{};
    core::DoctorOptions options;
    options.envDir = environment;
    if (!log.trimmed().isEmpty())
        options.log = log;
    options.logOrigin = origin;
    const core::DoctorReport report = co_await core::runDoctor(*system, knowledge, options);
    co_return report.findings;
}

QCoro::Task<QString> makeDefaultReport(core::SystemView *system, core::KnowledgePtr knowledge, QString environment,
                                       QString log, core::LogOrigin origin)
{
    if (!knowledge)
        co_return QString();
    core::DoctorOptions options;
    options.envDir = environment;
    if (!log.trimmed().isEmpty())
        options.log = log;
    options.logOrigin = origin;
    const core::DoctorReport report = co_await core::runDoctor(*system, knowledge, options);
    co_return report.reportText(core::Redactor(*system));
}

} // namespace

RepairPage::RepairPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_intro(new QLabel(this))
    , m_environmentList(new QListWidget(this))
    , m_browseButton(new QPushButton(this))
    , m_brokenCheck(new QCheckBox(this))
    , m_logEdit(new QPlainTextEdit(this))
    , m_originLabel(new QLabel(this))
    , m_originCombo(new QComboBox(this))
    , m_checkButton(new QPushButton(this))
    , m_fixButton(new QPushButton(this))
    , m_reportButton(new QPushButton(this))
    , m_progress(new QProgressBar(this))
    , m_statusLabel(new QLabel(this))
    , m_problemTree(new QTreeWidget(this))
    , m_logView(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("repairPage"));
    m_intro->setObjectName(QStringLiteral("repairIntro"));
    m_environmentList->setObjectName(QStringLiteral("repairEnvironmentList"));
    m_browseButton->setObjectName(QStringLiteral("repairBrowseButton"));
    m_brokenCheck->setObjectName(QStringLiteral("repairBrokenCheck"));
    m_logEdit->setObjectName(QStringLiteral("repairLogEdit"));
    m_originCombo->setObjectName(QStringLiteral("repairLogOriginCombo"));
    for (const core::LogOrigin origin : {core::LogOrigin::Unknown, core::LogOrigin::ThisMachine, core::LogOrigin::OtherMachine})
        m_originCombo->addItem(QString(), int(origin));
    m_originLabel->setBuddy(m_originCombo);
    m_originCombo->setEnabled(false);
    m_checkButton->setObjectName(QStringLiteral("repairCheckButton"));
    m_fixButton->setObjectName(QStringLiteral("repairFixButton"));
    m_reportButton->setObjectName(QStringLiteral("repairReportButton"));
    m_progress->setObjectName(QStringLiteral("repairProgress"));
    m_statusLabel->setObjectName(QStringLiteral("repairStatusLabel"));
    m_problemTree->setObjectName(QStringLiteral("repairProblemTree"));
    m_logView->setObjectName(QStringLiteral("repairLogView"));

    m_intro->setWordWrap(true);
    m_statusLabel->setWordWrap(true);
    m_environmentList->setMaximumHeight(110);
    m_logEdit->setMaximumHeight(90);
    m_logEdit->setEnabled(false);
    m_logView->setReadOnly(true);
    m_logView->setMaximumHeight(80);
    m_logView->hide();
    m_progress->hide();
    m_fixButton->setEnabled(false);
    m_problemTree->setColumnCount(2);
    m_problemTree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_problemTree->setWordWrap(true);

    auto *pickRow = new QHBoxLayout;
    pickRow->addWidget(m_environmentList, 1);
    pickRow->addWidget(m_browseButton, 0, Qt::AlignTop);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_checkButton);
    buttons->addWidget(m_fixButton);
    buttons->addStretch(1);
    buttons->addWidget(m_reportButton);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(pickRow);
    layout->addWidget(m_brokenCheck);
    layout->addWidget(m_logEdit);
    auto *originRow = new QHBoxLayout;
    originRow->addWidget(m_originLabel);
    originRow->addWidget(m_originCombo, 1);
    layout->addLayout(originRow);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_problemTree, 1);
    layout->addWidget(m_logView);

    m_doctor = [this](QString environment, QString log) {
        return runDefaultDoctor(&m_state.system(), m_state.knowledgeOrNull(), std::move(environment), std::move(log),
                                logOrigin());
    };
    m_pickFolder = [this] {
        return QFileDialog::getExistingDirectory(this, tr("Choose the environment's folder"));
    };
    m_makeReport = [this](QString environment, QString log) {
        return makeDefaultReport(&m_state.system(), m_state.knowledgeOrNull(), std::move(environment), std::move(log),
                                 logOrigin());
    };
    m_pickSavePath = [this] {
        return QFileDialog::getSaveFileName(this, tr("Save the diagnostic report"),
                                            QDir::homePath() + QStringLiteral("/tfsetup-report.txt"),
                                            tr("Text files (*.txt)"));
    };
    connect(m_reportButton, &QPushButton::clicked, this, &RepairPage::saveReport);
    connect(m_browseButton, &QPushButton::clicked, this, &RepairPage::addFolder);
    connect(m_checkButton, &QPushButton::clicked, this, &RepairPage::startCheck);
    connect(m_fixButton, &QPushButton::clicked, this, &RepairPage::startFix);
    connect(m_brokenCheck, &QCheckBox::toggled, m_logEdit, &QWidget::setEnabled);
    connect(m_brokenCheck, &QCheckBox::toggled, m_originCombo, &QWidget::setEnabled);
    connect(m_environmentList, &QListWidget::currentRowChanged, this, [this] {
        m_report.reset();
        m_diagnosed = false;
        m_fixed = false;
        m_fixButton->setEnabled(false);
        m_problemTree->clear();
        m_statusLabel->clear();
        Q_EMIT completeChanged();
    });
    retranslate();
}

RepairPage::~RepairPage() = default;

void RepairPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        showReport();
    }
    QWizardPage::changeEvent(event);
}

void RepairPage::retranslate()
{
    setTitle(tr("Repair an environment"));
    setSubTitle(tr("tfsetup checks every file it installed and puts back what is missing, damaged or moved."));
    m_intro->setText(tr("Choose the environment that stopped working, or add its folder (a conda or venv one is "
                        "examined but not repaired). With none chosen, Check reads the error you paste."));
    m_browseButton->setText(tr("Add a folder…"));
    m_brokenCheck->setText(tr("My TensorFlow is broken: here is the error it printed"));
    m_logEdit->setPlaceholderText(tr("Paste the error or the whole output of the failing program here."));
    m_originLabel->setText(tr("&Where the error comes from:"));
    m_originCombo->setItemText(0, tr("I am not sure (tfsetup tells from the error)"));
    m_originCombo->setItemText(1, tr("This computer"));
    m_originCombo->setItemText(2, tr("Another computer (a classmate's, a lab machine)"));
    m_originCombo->setToolTip(tr("An error from another computer is read as that computer's: what this computer has "
                                 "or lacks (a GPU, CUDA) does not change what the error means."));
    m_checkButton->setText(tr("&Check"));
    m_fixButton->setText(tr("&Fix"));
    m_reportButton->setText(tr("Save a &report…"));
    m_reportButton->setToolTip(tr("Writes what tfsetup found into a text file you can paste into a chat or a forum "
                                  "post. Your user name and home folder are masked."));
    m_problemTree->setHeaderLabels({tr("What"), tr("Details")});
    m_problemTree->setAccessibleName(tr("What the check found"));
    m_environmentList->setAccessibleName(tr("Environments"));
    m_logEdit->setAccessibleName(tr("The error TensorFlow printed"));
}

core::LogOrigin RepairPage::logOrigin() const
{
    return core::LogOrigin(m_originCombo->currentData().toInt());
}

void RepairPage::saveReport()
{
    const QString path = m_pickSavePath ? m_pickSavePath() : QString();
    if (path.isEmpty())
        return;
    m_statusLabel->setText(tr("Writing the report…"));
    m_reportButton->setEnabled(false);
    const QString log = m_brokenCheck->isChecked() ? m_logEdit->toPlainText() : QString();
    writeReport(this, m_makeReport, selectedEnvironment(), log, path);
}

QCoro::Task<> RepairPage::writeReport(QPointer<RepairPage> page, ReportFunction make, QString environment, QString log,
                                      QString path)
{
    const QString text = co_await make(std::move(environment), std::move(log));
    if (!page)
        co_return;
    page->m_reportButton->setEnabled(true);
    const core::Status written = text.isEmpty()
                                     ? core::Status(core::Error{QStringLiteral("report_empty"),
                                                                tr("The report could not be made: tfsetup's catalog did "
                                                                   "not load. Reinstall tfsetup."),
                                                                {}})
                                     : core::writeDoctorReport(path, text);
    if (!written) {
        page->m_statusLabel->setText(written.error().message);
        co_return;
    }
    page->m_statusLabel->setText(tr("The report is in %1. Your user name and home folder are masked; read it "
                                    "before you share it.")
                                     .arg(QDir::toNativeSeparators(path)));
    Q_EMIT page->reportSaved(path);
}

void RepairPage::initializePage()
{
    refreshEnvironments();
}

void RepairPage::refreshEnvironments()
{
    const QString previous = m_preselected.isEmpty() ? selectedEnvironment() : std::exchange(m_preselected, QString());
    QStringList folders{core::SetupOptions::defaultPrefix(m_state.system())};
    if (!m_state.options().prefix.isEmpty())
        folders.append(m_state.options().prefix);
    folders += m_extraFolders;
    folders += m_userFolders;
    const QStringList found = core::Repairer::discover(m_state.system(), folders);
    m_environmentList->clear();
    for (const QString &environment : found) {
        QString label = QDir::toNativeSeparators(environment);
        const QString host = m_state.system().hostPath(environment);
        if (const auto record = core::EnvironmentRecord::read(host); record) {
            const QString tensorflow = record->tensorflowVersion();
            if (!tensorflow.isEmpty())
                label = tr("%1 — TensorFlow %2").arg(label, tensorflow);
        }
        auto *item = new QListWidgetItem(label, m_environmentList);
        item->setData(Qt::UserRole, environment);
        if (environment == previous)
            m_environmentList->setCurrentItem(item);
    }
    for (const QString &folder : std::as_const(m_foreignFolders)) {
        if (found.contains(folder))
            continue;
        auto *item = new QListWidgetItem(tr("%1 — not made by tfsetup: examined, not repaired")
                                             .arg(QDir::toNativeSeparators(folder)),
                                         m_environmentList);
        item->setData(Qt::UserRole, folder);
        item->setData(Qt::UserRole + 1, true);
        if (folder == previous)
            m_environmentList->setCurrentItem(item);
    }
    if (!m_environmentList->currentItem() && m_environmentList->count() > 0)
        m_environmentList->setCurrentRow(0);
    if (m_environmentList->count() == 0)
        m_statusLabel->setText(tr("No environment made by tfsetup was found. Add the folder that holds yours, or "
                                  "paste the error TensorFlow printed and press Check."));
    Q_EMIT completeChanged();
}

void RepairPage::addFolder()
{
    const QString folder = m_pickFolder ? m_pickFolder() : QString();
    if (folder.isEmpty())
        return;
    const QString picked = QDir::fromNativeSeparators(folder);
    m_userFolders.append(picked);
    // A conda or venv environment of the student's own: the doctor can still look at it.
    const core::SystemView &system = m_state.system();
    const bool python = system.isFile(core::SystemView::join(picked, QStringLiteral("pyvenv.cfg")))
                        || system.isDir(core::SystemView::join(picked, QStringLiteral("conda-meta")));
    if (python && core::Repairer::discover(m_state.system(), {picked}).isEmpty() && !m_foreignFolders.contains(picked))
        m_foreignFolders.append(picked);
    refreshEnvironments();
    // The folder just added is what the student means.
    for (int row = 0; row < m_environmentList->count(); ++row) {
        const QString environment = m_environmentList->item(row)->data(Qt::UserRole).toString();
        if (environment == QDir::fromNativeSeparators(folder)
            || environment.startsWith(QDir::fromNativeSeparators(folder) + u'/'))
            m_environmentList->setCurrentRow(row);
    }
}

QString RepairPage::selectedEnvironment() const
{
    const QListWidgetItem *item = m_environmentList->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

bool RepairPage::selectedIsForeign() const
{
    const QListWidgetItem *item = m_environmentList->currentItem();
    return item && item->data(Qt::UserRole + 1).toBool();
}

core::RepairOptions RepairPage::repairOptions(bool dryRun) const
{
    core::RepairOptions options;
    options.environmentPath = selectedEnvironment();
    options.dryRun = dryRun;
    options.cacheDir = m_state.options().cacheDir.isEmpty() ? core::DownloadCache::defaultDir()
                                                             : m_state.options().cacheDir;
    options.network = m_state.options().network;
    options.findings = m_findings;
    return options;
}

void RepairPage::setBusy(bool busy)
{
    m_busy = busy;
    for (QWidget *w : std::initializer_list<QWidget *>{m_environmentList, m_browseButton, m_brokenCheck, m_checkButton})
        w->setEnabled(!busy);
    m_logEdit->setEnabled(!busy && m_brokenCheck->isChecked());
    m_originCombo->setEnabled(!busy && m_brokenCheck->isChecked());
    m_fixButton->setEnabled(!busy && m_report && m_report->dryRun && m_report->changed());
    m_progress->setVisible(busy);
    Q_EMIT completeChanged();
}

void RepairPage::startCheck()
{
    const QString log = m_brokenCheck->isChecked() ? m_logEdit->toPlainText() : QString();
    const bool doctorOnly = selectedEnvironment().isEmpty() || selectedIsForeign();
    if (m_busy || (selectedEnvironment().isEmpty() && log.trimmed().isEmpty()))
        return;
    m_findings.clear();
    m_report.reset();
    m_fixed = false;
    m_diagnosed = false;
    m_problemTree->clear();
    m_logView->clear();
    if (doctorOnly) {
        m_statusLabel->setText(selectedEnvironment().isEmpty() ? tr("Reading the error you pasted…")
                                                               : tr("Examining the environment…"));
        m_progress->setRange(0, 0);
        setBusy(true);
        runDiagnosis(this, m_doctor, selectedEnvironment(), log, ++m_generation);
        return;
    }
    m_statusLabel->setText(tr("Checking every file of the environment…"));
    m_progress->setRange(0, 0);
    setBusy(true);
    runRepair(this, repairOptions(true), m_brokenCheck->isChecked(), m_logEdit->toPlainText(), ++m_generation);
}

void RepairPage::startFix()
{
    if (m_busy || !m_report || selectedEnvironment().isEmpty())
        return;
    m_statusLabel->setText(tr("Repairing…"));
    m_logView->clear();
    m_logView->show();
    m_progress->setRange(0, 0);
    setBusy(true);
    runRepair(this, repairOptions(false), false, {}, ++m_generation);
}

QCoro::Task<> RepairPage::runRepair(QPointer<RepairPage> page, core::RepairOptions options, bool withDoctor, QString log,
                                    quint64 generation)
{
    QList<core::DoctorFinding> findings = options.findings;
    if (withDoctor && page->m_doctor) {
        const DoctorFunction doctor = page->m_doctor;
        findings = co_await doctor(options.environmentPath, log);
        if (!page)
            co_return;
        options.findings = findings;
    }
    auto *repairer = new core::Repairer(page->m_state.system(), page->m_state.knowledgeOrNull(), nullptr, page);
    page->m_repairer = repairer;
    QObject::connect(repairer, &core::Repairer::stepStarted, page, [page](core::RepairStep, const QString &title) {
        page->m_statusLabel->setText(title);
    });
    QObject::connect(repairer, &core::Repairer::logLine, page, [page](const QString &line) {
        page->m_logView->appendPlainText(line);
    });
    QObject::connect(repairer, &core::Repairer::progress, page, [page](qint64 done, qint64 total) {
        page->m_progress->setRange(0, int(total));
        page->m_progress->setValue(int(done));
    });
    core::Result<core::RepairReport> report = co_await repairer->repair(std::move(options));
    if (!page)
        co_return;
    repairer->deleteLater();
    page->finishRepair(generation, std::move(findings), std::move(report));
}

void RepairPage::finishRepair(quint64 generation, QList<core::DoctorFinding> findings,
                              core::Result<core::RepairReport> report)
{
    if (generation != m_generation)
        return;
    if (!report) {
        m_report.reset();
        setBusy(false);
        m_statusLabel->setText(report.error().message);
        qWarning().noquote() << "repair:" << report.error().code << report.error().detail;
        Q_EMIT repaired(false);
        return;
    }
    const bool wasFix = !report->dryRun;
    m_findings = std::move(findings);
    m_report = std::move(*report);
    m_fixed = wasFix && m_report->after.isEmpty();
    setBusy(false);
    showReport();
    if (wasFix)
        Q_EMIT repaired(m_fixed);
    else
        Q_EMIT checked(!m_report->before.isEmpty() || !m_report->packages.isEmpty() || !m_findings.isEmpty());
}

QCoro::Task<> RepairPage::runDiagnosis(QPointer<RepairPage> page, DoctorFunction doctor, QString environment,
                                        QString log, quint64 generation)
{
    QList<core::DoctorFinding> findings;
    if (doctor)
        findings = co_await doctor(std::move(environment), std::move(log));
    if (!page)
        co_return;
    page->finishDiagnosis(generation, std::move(findings));
}

void RepairPage::finishDiagnosis(quint64 generation, QList<core::DoctorFinding> findings)
{
    if (generation != m_generation)
        return;
    m_findings = std::move(findings);
    m_diagnosed = true;
    setBusy(false);
    showReport();
    Q_EMIT checked(!m_findings.isEmpty());
}

void RepairPage::showFindings(const core::RepairReport *report)
{
    if (m_findings.isEmpty())
        return;
    auto *group = new QTreeWidgetItem(m_problemTree, {tr("What the diagnosis found"), QString::number(m_findings.size())});
    for (const core::DoctorFinding &finding : std::as_const(m_findings)) {
        auto *item = new QTreeWidgetItem(group, {finding.summary.translated, finding.fix.translated});
        if (report) {
            for (const core::RepairFindingOutcome &outcome : report->findings) {
                if (outcome.id == finding.id && outcome.handled)
                    item->setText(1, outcome.note);
            }
        }
        for (const QString &evidence : finding.evidence)
            new QTreeWidgetItem(item, {tr("Evidence"), evidence});
        item->setExpanded(true);
    }
    group->setExpanded(true);
}

void RepairPage::showReport()
{
    if (m_diagnosed && !m_report) {
        // The doctor alone: nothing here is tfsetup's to repair.
        m_problemTree->clear();
        showFindings(nullptr);
        QString status;
        if (selectedIsForeign()) {
            status = tr("tfsetup did not make this environment, so it only examines it: it repairs only "
                        "environments it installed itself, whose record of every file (environment.json) proves "
                        "what belongs there.");
            status += u' ' + (m_findings.isEmpty() ? tr("Nothing wrong was found.")
                                                   : tr("The findings below say what to do."));
        } else {
            status = m_findings.isEmpty() ? tr("Nothing in the pasted error points to a known cause. Save a report "
                                               "and ask for help with it.")
                                          : tr("The findings below come from the error you pasted. Choose the "
                                               "environment as well to check its files.");
        }
        m_statusLabel->setText(status);
        m_fixButton->setEnabled(false);
        return;
    }
    if (!m_report)
        return;
    m_problemTree->clear();
    const core::RepairReport &r = *m_report;
    if (!r.before.isEmpty()) {
        auto *files = new QTreeWidgetItem(m_problemTree, {tr("Damaged files"), QString::number(r.before.size())});
        for (const core::RepairItem &item : r.before) {
            QString problem;
            switch (item.problem) {
            case core::RepairItem::Problem::Missing: problem = tr("missing"); break;
            case core::RepairItem::Problem::Altered: problem = tr("changed since the install"); break;
            case core::RepairItem::Problem::Misplaced: problem = tr("moved to %1").arg(item.foundAt); break;
            }
            QString fix;
            switch (item.fix) {
            case core::RepairItem::Fix::MoveBack: fix = tr("move it back"); break;
            case core::RepairItem::Fix::FromArchive: fix = tr("take it again from %1").arg(item.source); break;
            case core::RepairItem::Fix::Regenerate: fix = tr("write it again"); break;
            case core::RepairItem::Fix::Relink: fix = tr("link it again"); break;
            case core::RepairItem::Fix::None: fix = item.note; break;
            }
            new QTreeWidgetItem(files, {item.path, problem + QStringLiteral(" → ") + fix});
        }
        files->setExpanded(true);
    }
    if (!r.packages.isEmpty()) {
        auto *packages = new QTreeWidgetItem(m_problemTree, {tr("Damaged Python packages"), QString::number(r.packages.size())});
        for (const core::PipDistributionDamage &p : r.packages) {
            QString fix = p.note;
            if (p.source == u"index")
                fix = tr("reinstall it from the package index");
            else if (!p.source.isEmpty())
                fix = tr("reinstall it from %1").arg(p.source);
            auto *item = new QTreeWidgetItem(packages, {QStringLiteral("%1 %2").arg(p.name, p.version), fix});
            for (const QString &file : p.altered)
                new QTreeWidgetItem(item, {tr("Evidence"), tr("%1 changed since pip installed it").arg(file)});
            for (const QString &file : p.missing)
                new QTreeWidgetItem(item, {tr("Evidence"), tr("%1 is missing").arg(file)});
            for (const QString &file : p.escaping)
                new QTreeWidgetItem(item, {tr("Evidence"), tr("the package's record names %1, outside the environment; "
                                                              "it was not read").arg(file)});
            item->setExpanded(true);
        }
        packages->setExpanded(true);
    }
    showFindings(&r);
    for (const QString &line : r.outside)
        new QTreeWidgetItem(m_problemTree, {tr("Outside the environment"), line});

    if (!r.dryRun) {
        m_statusLabel->setText(m_fixed ? tr("Repaired. Next verifies that TensorFlow works again.")
                                       : tr("Some files could not be repaired: %1").arg(r.after.join(QStringLiteral(", "))));
    } else if (r.before.isEmpty() && r.outside.isEmpty() && r.packages.isEmpty()) {
        m_statusLabel->setText(m_findings.isEmpty()
                                   ? tr("Every installed file is in place and unchanged. Next verifies the environment.")
                                   : tr("Every installed file is in place. The findings below say what else to do."));
    } else {
        m_statusLabel->setText(tr("Press Fix to repair what is listed. Only these files change."));
        m_fixButton->setEnabled(true);
    }
}

bool RepairPage::isComplete() const
{
    if (m_busy || !m_report)
        return false;
    return m_fixed || (m_report->dryRun && m_report->before.isEmpty() && m_report->packages.isEmpty());
}

bool RepairPage::validatePage()
{
    if (!isComplete())
        return false;
    // The Verify and Finish pages read the environment as the installer would have left it.
    core::InstallOutcome outcome;
    outcome.environmentPath = selectedEnvironment();
    if (const auto record = core::EnvironmentRecord::read(m_state.system().hostPath(outcome.environmentPath)); record) {
        for (const QString &launcher : record->launchers)
            outcome.launchers.append(core::SystemView::join(outcome.environmentPath, launcher));
        outcome.summary = record->summary();
        outcome.kernelFolder = record->kernelFolder;
    }
    m_state.setInstalled(outcome);
    return true;
}

} // namespace tfsetup::ui
