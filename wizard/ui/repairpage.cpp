#include "ui/repairpage.h"

#include "catalog/catalog.h"
#include "doctor/doctor.h"
#include "fetch/downloadcache.h"
#include "install/environmentrecord.h"
#include "setup/environments.h"

#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace tfsetup::ui {

namespace {

// What the Repair page asks the doctor: as `tfsetup doctor --env DIR [--log FILE]`, with the
// library probe beside the binary, as the Verify page uses it.
core::DoctorOptions doctorOptions(const QString &environment, const QString &log, core::LogOrigin origin)
{
    core::DoctorOptions options;
    options.envDir = environment;
    if (!log.trimmed().isEmpty())
        options.log = log;
    options.logOrigin = origin;
    options.probe = QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"),
                                                   {QCoreApplication::applicationDirPath()});
    return options;
}

QCoro::Task<QList<core::DoctorFinding>> runDefaultDoctor(core::SystemView *system, core::KnowledgePtr knowledge,
                                                         QString environment, QString log, core::LogOrigin origin)
{
    if (!knowledge)
        co_return QList<core::DoctorFinding>{};
    const core::DoctorReport report = co_await core::runDoctor(*system, knowledge,
                                                               doctorOptions(environment, log, origin));
    co_return report.findings;
}

QCoro::Task<QString> makeDefaultReport(core::SystemView *system, core::KnowledgePtr knowledge, QString environment,
                                       QString log, core::LogOrigin origin)
{
    if (!knowledge)
        co_return QString();
    const core::DoctorReport report = co_await core::runDoctor(*system, knowledge,
                                                               doctorOptions(environment, log, origin));
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
    , m_problemList(new StatusList(QStringLiteral("finding"), this))
    , m_logToggle(new QToolButton(this))
    , m_logView(new QPlainTextEdit(this))
    , m_inputs(new QWidget(this))
    , m_chosenLabel(new QLabel(this))
    , m_chooseAgainButton(new QPushButton(this))
{
    setObjectName(QStringLiteral("repairPage"));
    m_intro->setObjectName(QStringLiteral("repairIntro"));
    m_environmentList->setObjectName(QStringLiteral("repairEnvironmentList"));
    m_browseButton->setObjectName(QStringLiteral("repairBrowseButton"));
    m_brokenCheck->setObjectName(QStringLiteral("repairBrokenCheck"));
    m_logEdit->setObjectName(QStringLiteral("repairLogEdit"));
    m_originCombo->setObjectName(QStringLiteral("repairLogOriginCombo"));
    for (const core::LogOrigin origin :
         {core::LogOrigin::Unknown, core::LogOrigin::ThisMachine, core::LogOrigin::OtherMachine})
        m_originCombo->addItem(QString(), int(origin));
    m_originLabel->setBuddy(m_originCombo);
    m_originCombo->setEnabled(false);
    m_checkButton->setObjectName(QStringLiteral("repairCheckButton"));
    m_fixButton->setObjectName(QStringLiteral("repairFixButton"));
    m_reportButton->setObjectName(QStringLiteral("repairReportButton"));
    m_progress->setObjectName(QStringLiteral("repairProgress"));
    m_statusLabel->setObjectName(QStringLiteral("repairStatusLabel"));
    m_logToggle->setObjectName(QStringLiteral("repairLogToggle"));
    m_inputs->setObjectName(QStringLiteral("repairInputs"));
    m_chosenLabel->setObjectName(QStringLiteral("repairChosenLabel"));
    m_chooseAgainButton->setObjectName(QStringLiteral("repairChooseAgainButton"));
    m_logView->setObjectName(QStringLiteral("repairLogView"));

    m_intro->setWordWrap(true);
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    // A few rows of choices and of pasted text: what was found takes the rest of the height.
    const int line = fontMetrics().lineSpacing();
    const auto rows = [line](QWidget *w, int least, int most) {
        const int floor = qMax(line * least + 12, w->minimumSizeHint().height());
        w->setMinimumHeight(floor);
        w->setMaximumHeight(qMax(floor, line * most + 12));
    };
    rows(m_environmentList, 2, 4);
    rows(m_logEdit, 2, 4);
    rows(m_logView, 3, 6);
    m_logEdit->setEnabled(false);
    m_logView->setReadOnly(true);
    m_logView->hide();
    m_logToggle->setCheckable(true);
    m_logToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_logToggle->setArrowType(Qt::RightArrow);
    m_logToggle->setAutoRaise(true);
    m_logToggle->hide();
    m_progress->hide();
    m_fixButton->setEnabled(false);

    // What to check. Once something was found it folds into one line, so the findings get the
    // page's height; "Choose again" opens it.
    auto *pickRow = new QHBoxLayout;
    pickRow->setContentsMargins(0, 0, 0, 0);
    pickRow->addWidget(m_environmentList, 1);
    pickRow->addWidget(m_browseButton, 0, Qt::AlignTop);
    auto *originRow = new QHBoxLayout;
    originRow->addWidget(m_originLabel);
    originRow->addWidget(m_originCombo, 1);
    auto *inputsLayout = new QVBoxLayout(m_inputs);
    inputsLayout->setContentsMargins(0, 0, 0, 0);
    inputsLayout->addWidget(m_intro);
    inputsLayout->addLayout(pickRow);
    inputsLayout->addWidget(m_brokenCheck);
    inputsLayout->addWidget(m_logEdit);
    inputsLayout->addLayout(originRow);
    for (QWidget *w : std::initializer_list<QWidget *>{m_intro, m_environmentList, m_browseButton, m_brokenCheck,
                                                       m_logEdit, m_originLabel, m_originCombo})
        w->setParent(m_inputs);
    auto *chosenRow = new QHBoxLayout;
    chosenRow->addWidget(m_chosenLabel, 1);
    chosenRow->addWidget(m_chooseAgainButton, 0, Qt::AlignTop);
    m_chosenLabel->setWordWrap(true);
    m_chosenLabel->setTextFormat(Qt::PlainText);
    m_chosenLabel->hide();
    m_chooseAgainButton->hide();

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_checkButton);
    buttons->addWidget(m_fixButton);
    buttons->addStretch(1);
    buttons->addWidget(m_reportButton);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_inputs);
    layout->addLayout(chosenRow);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_problemList, 1);
    layout->addWidget(m_logToggle);
    layout->addWidget(m_logView);

    m_doctor = [this](QString environment, QString log) {
        return runDefaultDoctor(&m_state.system(), m_state.knowledgeOrNull(), std::move(environment), std::move(log),
                                logOrigin());
    };
    m_pickFolder = [this] { return QFileDialog::getExistingDirectory(this, tr("Choose the environment's folder")); };
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
    connect(m_brokenCheck, &QCheckBox::toggled, this, &RepairPage::updateInputs);
    connect(m_logToggle, &QToolButton::toggled, this, [this](bool open) {
        m_logView->setVisible(open);
        m_logToggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    });
    connect(m_problemList, &StatusList::actionTriggered, this, &RepairPage::startFix);
    connect(m_chooseAgainButton, &QPushButton::clicked, this, [this] {
        m_inputsFolded = false;
        updateInputs();
        m_environmentList->setFocus();
    });
    connect(m_environmentList, &QListWidget::currentRowChanged, this, [this] {
        m_report.reset();
        m_diagnosed = false;
        m_fixed = false;
        m_fixButton->setEnabled(false);
        m_problemList->clear();
        m_statusLabel->clear();
        m_inputsFolded = false;
        updateInputs();
        Q_EMIT completeChanged();
    });
    retranslate();
    updateInputs();
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
    // F and the other wizard buttons' letters are taken (Back, Next, Install, Finish, Help).
    m_fixButton->setText(tr("Re&pair"));
    m_reportButton->setText(tr("Save a &report…"));
    m_reportButton->setToolTip(tr("Writes what tfsetup found into a text file you can paste into a chat or a forum "
                                  "post. Your user name and home folder are masked."));
    m_problemList->setAccessibleName(tr("What the check found"));
    m_logToggle->setText(tr("Details of the repair"));
    m_chooseAgainButton->setText(tr("Choose &again…"));
    m_chooseAgainButton->setToolTip(tr("Choose another environment, or paste another error."));
    updateInputs();
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
    // Where the Welcome page looks: tfsetup's index of the environments it made (wherever they
    // were installed), the default and chosen folders; and the one Repair was pressed on.
    QStringList folders{core::SetupOptions::defaultPrefix(m_state.system())};
    if (!m_state.options().prefix.isEmpty())
        folders.append(m_state.options().prefix);
    folders += core::EnvironmentIndex::folders(m_state.system());
    if (!previous.isEmpty())
        folders.append(previous);
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
        auto *item = new QListWidgetItem(
            tr("%1 — not made by tfsetup: examined, not repaired").arg(QDir::toNativeSeparators(folder)),
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
    updateInputs();
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
    m_problemList->clear();
    m_logView->clear();
    m_logToggle->hide();
    m_logView->hide();
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
    m_logToggle->show();
    m_logView->setVisible(m_logToggle->isChecked());
    m_progress->setRange(0, 0);
    setBusy(true);
    runRepair(this, repairOptions(false), false, {}, ++m_generation);
}

QCoro::Task<> RepairPage::runRepair(QPointer<RepairPage> page, core::RepairOptions options, bool withDoctor,
                                    QString log, quint64 generation)
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
    QObject::connect(repairer, &core::Repairer::stepStarted, page,
                     [page](core::RepairStep, const QString &title) { page->m_statusLabel->setText(title); });
    QObject::connect(repairer, &core::Repairer::logLine, page,
                     [page](const QString &line) { page->m_logView->appendPlainText(line); });
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

void RepairPage::updateInputs()
{
    m_inputs->setVisible(!m_inputsFolded);
    m_chosenLabel->setVisible(m_inputsFolded);
    m_chooseAgainButton->setVisible(m_inputsFolded);
    if (m_inputsFolded) {
        const QString log = m_brokenCheck->isChecked() ? m_logEdit->toPlainText().trimmed() : QString();
        const QString environment = QDir::toNativeSeparators(selectedEnvironment());
        m_chosenLabel->setText(environment.isEmpty() ? tr("Checked: the error you pasted.")
                                   : log.isEmpty()   ? tr("Checked: %1.").arg(environment)
                                                     : tr("Checked: %1, with the error you pasted.").arg(environment));
    }
    // The pasted error is asked for only when the student says there is one.
    const bool broken = m_brokenCheck->isChecked();
    m_logEdit->setVisible(broken);
    m_originLabel->setVisible(broken);
    m_originCombo->setVisible(broken);
    m_logEdit->setEnabled(!m_busy && broken);
    m_originCombo->setEnabled(!m_busy && broken);
}

QList<StatusRow> RepairPage::findingRows(const core::RepairReport *report) const
{
    QList<StatusRow> rows;
    // A button on the row only where Repair would act: the wizard never asks for a command.
    const bool canRepair = report && report->dryRun && report->changed() && !m_busy;
    if (report && !report->before.isEmpty()) {
        StatusRow row;
        row.id = QStringLiteral("files");
        row.kind = StatusRow::Kind::Failed;
        row.title = tr("Installed files damaged, missing or moved: %1").arg(QLocale().toString(report->before.size()));
        QStringList lines;
        int unfixable = 0;
        for (const core::RepairItem &item : report->before) {
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
            case core::RepairItem::Fix::None:
                fix = item.note;
                ++unfixable;
                break;
            }
            lines.append(QStringLiteral("%1: %2 → %3").arg(item.path, problem, fix));
        }
        row.text = unfixable == 0 ? tr("Repair puts each one back as it was installed.")
                                  : tr("Repair puts back what it can; %1 of them it cannot (the details say why).")
                                        .arg(QLocale().toString(unfixable));
        if (!report->dryRun) {
            // After the repair the same list says what was done.
            row.kind = report->after.isEmpty() ? StatusRow::Kind::Passed : StatusRow::Kind::Warning;
            row.title = tr("Installed files put back: %1").arg(QLocale().toString(report->before.size() - unfixable));
            row.text.clear();
        }
        row.details = lines.join(u'\n');
        if (canRepair)
            row.actionText = tr("Repair these files");
        rows.append(row);
    }
    if (report && !report->packages.isEmpty()) {
        StatusRow row;
        row.id = QStringLiteral("packages");
        row.kind = StatusRow::Kind::Failed;
        row.title = tr("Damaged Python packages: %1").arg(QLocale().toString(report->packages.size()));
        QStringList names;
        QStringList lines;
        for (const core::PipDistributionDamage &p : report->packages) {
            names.append(QStringLiteral("%1 %2").arg(p.name, p.version));
            QString fix = p.note;
            if (p.source == u"index")
                fix = tr("reinstall it from the package index");
            else if (!p.source.isEmpty())
                fix = tr("reinstall it from %1").arg(p.source);
            lines.append(QStringLiteral("%1 %2 → %3").arg(p.name, p.version, fix));
            for (const QString &file : p.altered)
                lines.append(QStringLiteral("  ") + tr("%1 changed since pip installed it").arg(file));
            for (const QString &file : p.missing)
                lines.append(QStringLiteral("  ") + tr("%1 is missing").arg(file));
            for (const QString &file : p.escaping)
                lines.append(QStringLiteral("  ")
                             + tr("the package's record names %1, outside the environment; it was not read").arg(file));
        }
        row.text = tr("%1. Repair reinstalls each one from a copy that matches what pip installed.")
                       .arg(names.join(QStringLiteral(", ")));
        if (!report->dryRun) {
            row.kind = report->after.isEmpty() ? StatusRow::Kind::Passed : StatusRow::Kind::Warning;
            row.title = tr("Python packages reinstalled: %1").arg(QLocale().toString(report->packages.size()));
            row.text = names.join(QStringLiteral(", "));
        }
        row.details = lines.join(u'\n');
        if (canRepair)
            row.actionText = tr("Reinstall these packages");
        rows.append(row);
    }
    for (const core::DoctorFinding &finding : m_findings) {
        StatusRow row;
        row.id = finding.id;
        row.kind = finding.severity == core::Severity::Error ? StatusRow::Kind::Failed
            : finding.severity == core::Severity::Warning    ? StatusRow::Kind::Warning
                                                             : StatusRow::Kind::Info;
        row.title = finding.summary.translated;
        const core::RepairFindingOutcome *outcome = nullptr;
        if (report) {
            for (const core::RepairFindingOutcome &o : report->findings) {
                if (o.id == finding.id && o.handled)
                    outcome = &o;
            }
        }
        if (outcome) {
            row.fix = report->dryRun ? tr("Repair does this: %1").arg(outcome->note) : outcome->note;
            if (!report->dryRun && report->after.isEmpty())
                row.kind = StatusRow::Kind::Passed;
            if (canRepair)
                row.actionText = tr("Repair this");
        } else if (!finding.fix.translated.isEmpty()) {
            row.fix = tr("What to do: %1").arg(finding.fix.translated);
        }
        row.details = finding.evidence.join(u'\n');
        rows.append(row);
    }
    if (report && !report->dryRun && !report->after.isEmpty()) {
        StatusRow row;
        row.id = QStringLiteral("after");
        row.kind = StatusRow::Kind::Failed;
        row.title = tr("Files that could not be repaired: %1").arg(QLocale().toString(report->after.size()));
        row.text = tr("Install the environment again, or save a report and ask for help with it.");
        row.details = report->after.join(u'\n');
        rows.append(row);
    }
    if (report && !report->outside.isEmpty()) {
        StatusRow row;
        row.id = QStringLiteral("outside");
        row.kind = StatusRow::Kind::Info;
        row.title = tr("Outside the environment");
        row.text = report->outside.join(u'\n');
        rows.append(row);
    }
    return rows;
}

void RepairPage::showReport()
{
    if (m_diagnosed && !m_report) {
        // The doctor alone: nothing here is tfsetup's to repair.
        m_problemList->setRows(findingRows(nullptr));
        QString status;
        if (selectedIsForeign()) {
            status = tr("tfsetup did not make this environment, so it only examines it: it repairs only "
                        "environments it installed itself, whose record of every file (environment.json) proves "
                        "what belongs there.");
            status += u' '
                + (m_findings.isEmpty() ? tr("Nothing wrong was found.") : tr("The findings below say what to do."));
        } else {
            status = m_findings.isEmpty() ? tr("Nothing in the pasted error points to a known cause. Save a report "
                                               "and ask for help with it.")
                                          : tr("The findings below come from the error you pasted. Choose the "
                                               "environment as well to check its files.");
        }
        m_statusLabel->setText(status);
        m_fixButton->setEnabled(false);
        m_inputsFolded = true;
        updateInputs();
        return;
    }
    if (!m_report)
        return;
    m_inputsFolded = true;
    updateInputs();
    const core::RepairReport &r = *m_report;
    if (!r.dryRun) {
        m_statusLabel->setText(m_fixed ? tr("Repaired. Next verifies that TensorFlow works again.")
                                       : tr("Some files could not be repaired; the list below names them."));
    } else if (r.before.isEmpty() && r.outside.isEmpty() && r.packages.isEmpty()) {
        m_statusLabel->setText(
            m_findings.isEmpty() ? tr("Every installed file is in place and unchanged. Next verifies the environment.")
                                 : tr("Every installed file is in place. The findings below say what else to do."));
    } else {
        m_statusLabel->setText(tr("Press Repair to put right what is listed. Only these files change."));
        m_fixButton->setEnabled(true);
    }
    m_problemList->setRows(findingRows(&r));
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
