#include "ui/optionspage.h"

#include "catalog/sourcecatalog.h"
#include "fetch/downloadcache.h"
#include "install/installspec.h"
#include "ui/catalognotice.h"
#include "ui/connectiontest.h"
#include "ui/pagestatus.h"
#include "ui/wizardstate.h"
#include "util/i18n.h"
#include "util/names.h"
#include "util/runlog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QWizard>

namespace tfsetup::ui {

namespace {

// Help topics, in the order of the form's rows.
const QStringList topics{QStringLiteral("folder"), QStringLiteral("name"),  QStringLiteral("pypi"),
                         QStringLiteral("nvidia"), QStringLiteral("proxy"), QStringLiteral("cache"),
                         QStringLiteral("bundle")};

// The installer's own rule (util/names.h), so a name the page takes is never refused at Install.
bool validName(const QString &name)
{
    return core::isSafePathName(name);
}

} // namespace

OptionsPage::OptionsPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_settings([] { return std::make_unique<QSettings>(); })
    , m_folderEdit(new QLineEdit(this))
    , m_folderBrowse(new QPushButton(this))
    , m_folderAdvice(new QLabel(this))
    , m_nameEdit(new QLineEdit(this))
    , m_pypiCombo(new QComboBox(this))
    , m_nvidiaEdit(new QLineEdit(this))
    , m_proxyEdit(new QLineEdit(this))
    , m_cacheEdit(new QLineEdit(this))
    , m_bundleEdit(new QLineEdit(this))
    , m_bundleBrowse(new QPushButton(this))
    , m_helpLabel(new QLabel(this))
    , m_jupyterCheck(new QCheckBox(this))
    , m_trustCheck(new QCheckBox(this))
    , m_trustRisk(new QLabel(this))
    , m_status(new PageStatus(this))
    , m_busy(new QProgressBar(this))
    , m_connection(new ConnectionTest(
          [this](std::shared_ptr<const std::atomic<bool>> cancel) { return probeRequest(std::move(cancel)); }, this))
    , m_scroll(new QScrollArea(this))
{
    setObjectName(QStringLiteral("optionsPage"));
    m_folderEdit->setObjectName(QStringLiteral("folderEdit"));
    m_folderBrowse->setObjectName(QStringLiteral("folderBrowseButton"));
    m_folderAdvice->setObjectName(QStringLiteral("folderAdviceLabel"));
    m_nameEdit->setObjectName(QStringLiteral("nameEdit"));
    m_pypiCombo->setObjectName(QStringLiteral("pypiMirrorCombo"));
    m_nvidiaEdit->setObjectName(QStringLiteral("nvidiaMirrorEdit"));
    m_proxyEdit->setObjectName(QStringLiteral("proxyEdit"));
    m_cacheEdit->setObjectName(QStringLiteral("cacheEdit"));
    m_bundleEdit->setObjectName(QStringLiteral("bundleEdit"));
    m_bundleBrowse->setObjectName(QStringLiteral("bundleBrowseButton"));
    m_helpLabel->setObjectName(QStringLiteral("helpLabel"));
    m_jupyterCheck->setObjectName(QStringLiteral("jupyterCheck"));
    m_jupyterCheck->setChecked(true);
    m_trustCheck->setObjectName(QStringLiteral("trustOnFirstUseCheck"));
    m_trustRisk->setObjectName(QStringLiteral("trustOnFirstUseRiskLabel"));
    m_busy->setObjectName(QStringLiteral("resolveProgress"));
    m_scroll->setObjectName(QStringLiteral("optionsScrollArea"));

    for (QLabel *label : {m_folderAdvice, m_helpLabel, m_trustRisk}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_helpLabel->setFrameShape(QFrame::StyledPanel);
    m_helpLabel->setMargin(6);
    m_helpLabel->hide();
    m_folderAdvice->hide();
    showTrustChoice(false);
    m_busy->setRange(0, 0);
    m_busy->hide();

    m_pypiCombo->setEditable(true);
    m_pypiCombo->setInsertPolicy(QComboBox::NoInsert);
    m_pypiCombo->addItem(QString(), QStringLiteral("pypi"));
    if (const core::KnowledgePtr knowledge = m_state.knowledgeOrNull()) {
        for (const core::PypiMirror &m : knowledge->sources.pypiMirrors()) {
            if (m.name != u"pypi")
                m_pypiCombo->addItem(QString(), m.name);
        }
    }

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const QList<QWidget *> fields{m_folderEdit, m_nameEdit,  m_pypiCombo, m_nvidiaEdit,
                                  m_proxyEdit,  m_cacheEdit, m_bundleEdit};
    for (int i = 0; i < topics.size(); ++i) {
        auto *label = new QLabel(this);
        label->setBuddy(fields.at(i));
        m_rowLabels.append(label);
        // A flat button drawn as a link: reachable with Tab, and its text is plain translated text.
        auto *help = new QPushButton(this);
        help->setObjectName(topics.at(i) + QStringLiteral("Help"));
        help->setFlat(true);
        help->setCursor(Qt::PointingHandCursor);
        help->setStyleSheet(QStringLiteral("QPushButton { color: palette(link); text-decoration: underline; "
                                           "border: none; padding: 0 2px; }"));
        const QString topic = topics.at(i);
        connect(help, &QPushButton::clicked, this, [this, topic] { showHelp(topic); });
        m_helpLinks.append(help);

        auto *row = new QHBoxLayout;
        row->addWidget(fields.at(i), 1);
        if (i == 0)
            row->addWidget(m_folderBrowse);
        if (i == topics.size() - 1)
            row->addWidget(m_bundleBrowse);
        row->addWidget(help);
        form->addRow(label, row);
        if (i == 0)
            form->addRow(QString(), m_folderAdvice);
    }

    // Tab goes along each row (field, Browse, What is this?) before the next row, as it reads;
    // creation order would visit every field first and all the help links last.
    QList<QWidget *> chain;
    for (int i = 0; i < topics.size(); ++i) {
        chain.append(fields.at(i));
        if (i == 0)
            chain.append(m_folderBrowse);
        if (i == topics.size() - 1)
            chain.append(m_bundleBrowse);
        chain.append(m_helpLinks.at(i));
    }
    // The knowledge catalog's notice; its update check goes through the proxy field above.
    auto *catalogNotice = new CatalogNotice([this] { return options().network.transfer; }, this);
    // An update installed here is the knowledge of the pages that follow.
    connect(catalogNotice, &CatalogNotice::checked, this, [this](bool ok) {
        if (ok)
            m_state.setKnowledge(core::Knowledge::shared());
    });
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_connection->button(), m_connection->table(), catalogNotice->button()})
        chain.append(w);
    chain.append(m_jupyterCheck);
    chain.append(m_trustCheck);
    chain.append(m_status->findChild<QWidget *>(QStringLiteral("statusDetailsToggle")));
    chain.append(m_status->findChild<QWidget *>(QStringLiteral("statusActionButton")));
    for (int i = 1; i < chain.size(); ++i)
        setTabOrder(chain.at(i - 1), chain.at(i));

    // The form scrolls rather than squashing its fields in a small window or a long language;
    // the status area stays in sight below it.
    auto *content = new QWidget(m_scroll);
    content->setObjectName(QStringLiteral("optionsContent"));
    auto *inner = new QVBoxLayout(content);
    inner->setContentsMargins(0, 0, 0, 0);
    inner->addLayout(form);
    inner->addWidget(m_connection);
    inner->addWidget(catalogNotice);
    inner->addWidget(m_jupyterCheck);
    inner->addWidget(m_helpLabel);
    inner->addWidget(m_trustCheck);
    inner->addWidget(m_trustRisk);
    inner->addStretch(1);
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_busy);
    layout->addWidget(m_status);

    // The test's results hold for the settings it measured, no longer.
    for (QLineEdit *edit : {m_nvidiaEdit, m_proxyEdit, m_bundleEdit})
        connect(edit, &QLineEdit::textChanged, this, &OptionsPage::clearConnection);
    connect(m_pypiCombo, &QComboBox::currentTextChanged, this, [this] {
        if (!m_applyingPick)
            clearConnection();
    });
    connect(m_folderEdit, &QLineEdit::textChanged, this, [this] {
        updateAdvice();
        Q_EMIT completeChanged();
    });
    connect(m_nameEdit, &QLineEdit::textChanged, this, &OptionsPage::completeChanged);
    connect(m_folderBrowse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for environments"),
                                                              m_folderEdit->text());
        if (!dir.isEmpty())
            m_folderEdit->setText(dir);
    });
    connect(m_bundleBrowse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Offline bundle folder"), m_bundleEdit->text());
        if (!dir.isEmpty())
            m_bundleEdit->setText(dir);
    });
    // Only what the student does makes the mirror theirs; the page's own preselection does not.
    connect(m_pypiCombo, &QComboBox::activated, this, &OptionsPage::markPypiChosen);
    connect(m_pypiCombo->lineEdit(), &QLineEdit::textEdited, this, &OptionsPage::markPypiChosen);
    connect(m_connection, &ConnectionTest::testStarted, this, [this] {
        m_warnedNext = false;
        m_status->showMessage(PageStatus::Kind::Busy, tr("Testing the connection to PyPI, NVIDIA and python.org…"));
        m_status->setTag(QStringLiteral("connection"));
    });
    connect(m_connection, &ConnectionTest::testFinished, this, &OptionsPage::finishTest);
    connect(m_connection, &ConnectionTest::rankFinished, this, &OptionsPage::finishRanking);

    retranslate();
}

OptionsPage::~OptionsPage() = default;

bool OptionsPage::isTestingConnection() const
{
    return m_connection->isTesting();
}

bool OptionsPage::isRankingMirrors() const
{
    return m_connection->isRanking();
}

void OptionsPage::setTranslations(const core::Translations *translations)
{
    m_translations = translations;
    retranslatePresets();
}

QString OptionsPage::language() const
{
    return m_translations ? m_translations->language() : QStringLiteral("en");
}

core::SetupOptions OptionsPage::options() const
{
    core::SetupOptions o = m_base;
    o.prefix = m_folderEdit->text().trimmed();
    o.name = m_nameEdit->text().trimmed();
    const int index = m_pypiCombo->findText(m_pypiCombo->currentText());
    const QString pypi = index >= 0 ? m_pypiCombo->itemData(index).toString() : m_pypiCombo->currentText().trimmed();
    o.network.pypiIndexes = pypi.isEmpty() ? QStringList{} : QStringList{pypi};
    o.network.nvidiaMirror = m_nvidiaEdit->text().trimmed();
    o.network.transfer.proxy = m_proxyEdit->text().trimmed();
    o.cacheDir = m_cacheEdit->text().trimmed();
    o.network.bundleDir = m_bundleEdit->text().trimmed();
    o.trustOnFirstUse = !m_trustCheck->isHidden() && m_trustCheck->isChecked();
    o.jupyter = m_jupyterCheck->isChecked();
    return o;
}

void OptionsPage::initializePage()
{
    load();
    // The name follows the plan: another plan is another environment.
    if (m_state.plan())
        m_nameEdit->setText(core::InstallSpec::defaultName(*m_state.plan()));
    applySuggestion();
    if (m_status->tag() != u"connection" && m_status->tag() != u"mirror")
        m_status->clear();
    m_warnedNext = false;
    // Trusting files without a checksum is chosen each time, never carried over.
    showTrustChoice(false);
    updateAdvice();
    // In Chinese, PyPI itself is often slow or blocked: measure the presets and take the fastest,
    // unless the student chose one.
    if (language().startsWith(QLatin1String("zh")) && mayChooseMirror())
        m_connection->rank(QStringLiteral("language"));
}

void OptionsPage::suggestOptions(core::SetupOptions options)
{
    m_base = options;
    m_suggested = std::move(options);
    m_suggestedPlan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson()) : QString();
}

void OptionsPage::applySuggestion()
{
    if (!m_suggested)
        return;
    const core::SetupOptions &o = *m_suggested;
    const auto fill = [](QLineEdit *edit, const QString &value) {
        if (!value.isEmpty())
            edit->setText(value);
    };
    fill(m_folderEdit, o.prefix);
    const QString plan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson())
                                        : QString();
    if (plan == m_suggestedPlan)
        fill(m_nameEdit, o.name);
    if (const QString pypi = o.network.firstPypiIndex(); !pypi.isEmpty()) {
        m_pypiChosen = true; // the lab's or the continued setup's
        const int index = m_pypiCombo->findData(pypi);
        if (index >= 0)
            m_pypiCombo->setCurrentIndex(index);
        else
            m_pypiCombo->setEditText(pypi);
    }
    fill(m_nvidiaEdit, o.network.nvidiaMirror);
    fill(m_proxyEdit, o.network.transfer.proxy);
    fill(m_cacheEdit, o.cacheDir);
    fill(m_bundleEdit, o.network.bundleDir);
    // The Jupyter choice made for this setup wins over the remembered one, either way.
    m_jupyterCheck->setChecked(o.jupyter);
}

void OptionsPage::keepResolved()
{
    if (m_state.artifacts())
        m_resolvedKey = optionsKey(options());
}

void OptionsPage::cleanupPage()
{
    // Back while the files are being looked up: the answer is for nobody now.
    ++m_generation;
    if (m_resolving)
        setBusy(false);
    // A test or ranking still running answers nobody now.
    m_connection->stop();
    QWizardPage::cleanupPage();
}

bool OptionsPage::isComplete() const
{
    if (m_resolving || !m_state.plan() || !validName(m_nameEdit->text().trimmed()))
        return false;
    const auto advice = core::SetupFlow::adviseOnPath(m_folderEdit->text(), m_state.system().os());
    return std::none_of(advice.cbegin(), advice.cend(), [](const core::PathAdvice &a) { return a.blocking; });
}

QString OptionsPage::optionsKey(const core::SetupOptions &o) const
{
    const QString plan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson())
                                        : QString();
    return QStringList{plan,
                       o.prefix,
                       o.name,
                       o.network.pypiIndexes.join(u' '),
                       o.network.nvidiaMirror,
                       o.network.transfer.proxy,
                       o.cacheDir,
                       o.network.bundleDir,
                       o.jupyter ? QStringLiteral("jupyter") : QString(),
                       o.trustOnFirstUse ? QStringLiteral("trust") : QString()}
        .join(u'\n');
}

bool OptionsPage::validatePage()
{
    if (!isComplete())
        return false;
    // The page's own test found a place the setup needs out of reach: the downloads would fail
    // the same way. Said once, with the fix; Next pressed again goes on (the test can be wrong).
    if (const QList<core::OriginResult> failed = failures(); !m_warnedNext
        && std::any_of(failed.cbegin(), failed.cend(), [](const core::OriginResult &r) { return !r.reachable; })) {
        m_warnedNext = true;
        QStringList places;
        QStringList details;
        for (const core::OriginResult &r : failed) {
            if (!r.reachable && !places.contains(ConnectionTest::originTitle(r)))
                places.append(ConnectionTest::originTitle(r));
            details.append(QStringLiteral("%1 %2: %3 %4")
                               .arg(ConnectionTest::originTitle(r), r.url.toDisplayString(), r.code, r.detail)
                               .trimmed());
        }
        m_status->showMessage(PageStatus::Kind::Error,
                              tr("The connection test could not reach %1, and this setup downloads from there: the "
                                 "downloads would fail the same way. Fix it with the button, or test again. To go on "
                                 "anyway, press Next once more.")
                                  .arg(places.join(tr(", "))),
                              details.join(u'\n'));
        m_status->setTag(QStringLiteral("next"));
        offerFix(failed);
        return false;
    }
    const core::SetupOptions current = options();
    if (m_state.artifacts() && optionsKey(current) == m_resolvedKey) {
        // Name and folder may be edited without resolving again; both are in the key anyway.
        m_state.setOptions(current);
        return true;
    }
    const quint64 generation = ++m_generation;
    // What is resolved now is what the fields say; a ranking arriving later changes nothing.
    m_connection->stopRanking();
    core::SetupOptions preparing = current;
    preparing.knowledge = m_state.knowledgeOrNull();
    auto spec = core::SetupFlow::baseSpec(*m_state.plan(), preparing,
                                          m_state.hardware().value_or(core::HardwareReport{}));
    if (!spec) {
        m_status->showMessage(PageStatus::Kind::Error, spec.error().message, spec.error().detail);
        m_status->setTag(QStringLiteral("resolve"));
        Q_EMIT resolved(false);
        return false;
    }
    spec->gpus = m_state.gpus();
    setBusy(true);
    m_status->showMessage(PageStatus::Kind::Busy, tr("Looking up the official files for this plan…"));
    m_status->setTag(QStringLiteral("resolve"));
    runPrepare(this, *m_state.plan(), *spec, std::move(preparing), generation);
    return false;
}

QCoro::Task<> OptionsPage::runPrepare(QPointer<OptionsPage> page, core::Plan plan, core::InstallSpec spec,
                                      core::SetupOptions options, quint64 generation)
{
    // The pipeline's steps say where it is (the official files, pip choosing the packages).
    const QMetaObject::Connection told = connect(&page->m_state.pipeline(), &core::SetupPipeline::message, page.data(),
                                                 [page, generation](const QString &line) {
                                                     if (page && generation == page->m_generation && page->m_resolving)
                                                         page->m_status->showMessage(PageStatus::Kind::Busy, line);
                                                 });
    auto prepared = co_await page->m_state.pipeline().prepare(std::move(plan), std::move(spec), options);
    if (!page)
        co_return;
    disconnect(told);
    page->finishPrepare(generation, std::move(options), std::move(prepared));
}

void OptionsPage::finishPrepare(quint64 generation, core::SetupOptions options,
                                core::Result<core::PreparedSetup> prepared)
{
    if (generation != m_generation)
        return;
    setBusy(false);
    if (!prepared) {
        qWarning().noquote() << "Preparing the setup failed:" << prepared.error().code << prepared.error().detail;
        QString problem = prepared.error().message;
        const bool unverifiable = prepared.error().code == u"artifact_unverifiable";
        if (unverifiable)
            problem += u'\n' + tr("To download them anyway, tick the box below.");
        showTrustChoice(unverifiable);
        m_status->showMessage(PageStatus::Kind::Error, problem, prepared.error().detail);
        m_status->setTag(QStringLiteral("resolve"));
        const QString code = prepared.error().code;
        static const QStringList network{QStringLiteral("dns"),        QStringLiteral("connect"),
                                         QStringLiteral("timeout"),    QStringLiteral("too_slow"),
                                         QStringLiteral("tls"),        QStringLiteral("proxy_error"),
                                         QStringLiteral("http_error"), QStringLiteral("html_page"),
                                         QStringLiteral("dropped"),    QStringLiteral("network")};
        const QString log = core::RunLog::path();
        if (code == u"proxy_auth" || code == u"proxy_unreachable") {
            m_status->setAction(tr("Set a p&roxy…"), [this] { focusProxy(); });
        } else if (network.contains(code)) {
            // Which place failed and the fix for it: the test measures each one.
            m_status->setAction(tr("Find out wh&y"), [this] { testConnection(); });
        } else if (code.startsWith(QLatin1String("bundle"))) {
            m_status->setAction(tr("Use an offline bund&le…"), [this] { focusBundle(); });
        } else if (!unverifiable && !log.isEmpty()) {
            m_status->setAction(tr("Open the &log"), [log] { QDesktopServices::openUrl(QUrl::fromLocalFile(log)); });
        }
        if (unverifiable)
            m_scroll->ensureWidgetVisible(m_trustRisk);
        Q_EMIT resolved(false);
        return;
    }
    commit(options, *prepared);
}

void OptionsPage::commit(const core::SetupOptions &options, const core::PreparedSetup &prepared)
{
    if (m_status->tag() == u"resolve")
        m_status->clear();
    m_resolvedKey = optionsKey(options);
    save(options);
    m_state.setOptions(options);
    m_state.setArtifacts(prepared.artifacts);
    m_state.setLock(prepared.lock);
    m_state.setDownloads(prepared.downloads);
    Q_EMIT resolved(true);
    if (wizard() && wizard()->currentPage() == this)
        wizard()->next();
}

void OptionsPage::setBusy(bool busy)
{
    m_resolving = busy;
    m_busy->setVisible(busy);
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_folderEdit, m_nameEdit, m_pypiCombo, m_nvidiaEdit, m_proxyEdit, m_cacheEdit,
                                          m_bundleEdit, m_folderBrowse, m_bundleBrowse, m_jupyterCheck, m_trustCheck})
        w->setEnabled(!busy);
    m_connection->setAvailable(!busy);
    Q_EMIT completeChanged();
}

void OptionsPage::showTrustChoice(bool show)
{
    if (!show)
        m_trustCheck->setChecked(false); // unchecked whenever it appears again
    m_trustCheck->setVisible(show);
    m_trustRisk->setVisible(show);
}

void OptionsPage::focusProxy()
{
    showHelp(QStringLiteral("proxy"));
    m_scroll->ensureWidgetVisible(m_proxyEdit);
    m_proxyEdit->setFocus(Qt::OtherFocusReason);
    m_proxyEdit->selectAll();
}

void OptionsPage::focusBundle()
{
    showHelp(QStringLiteral("bundle"));
    m_scroll->ensureWidgetVisible(m_bundleEdit);
    m_bundleEdit->setFocus(Qt::OtherFocusReason);
    m_bundleEdit->selectAll();
}

void OptionsPage::chooseMirror()
{
    m_scroll->ensureWidgetVisible(m_pypiCombo);
    m_pypiCombo->setFocus(Qt::OtherFocusReason);
    m_pypiCombo->showPopup();
}

void OptionsPage::useFastestMirror()
{
    if (!m_connection->report())
        return;
    const auto best = m_connection->report()->bestMirror();
    const int index = best ? m_pypiCombo->findData(best->name) : -1;
    if (index < 0)
        return;
    // The student pressed it: from now on the mirror is theirs. The test's rows still hold: the
    // mirror was measured in the same round.
    m_pypiChosen = true;
    m_pickedPreset.clear();
    m_pickedWhy.clear();
    m_pickedLine.clear();
    m_applyingPick = true;
    m_pypiCombo->setCurrentIndex(index);
    m_applyingPick = false;
    m_pypiCombo->setFocus(Qt::OtherFocusReason);
    showReport();
}

void OptionsPage::clearConnection()
{
    m_warnedNext = false;
    m_connection->clear();
    // A ranking's "no mirror answered" was measured with the old settings too; the line about a
    // preselection still says why the combo shows what it shows.
    const bool staleRanking = m_status->tag() == u"mirror" && m_status->kind() != PageStatus::Kind::Info;
    if (m_status->tag() == u"connection" || m_status->tag() == u"next" || staleRanking)
        m_status->clear();
}

QList<core::OriginResult> OptionsPage::failures() const
{
    QList<core::OriginResult> out;
    const auto &report = m_connection->report();
    if (!report)
        return out;
    const QString pypi = options().network.firstPypiIndex();
    for (const core::OriginResult &r : report->origins) {
        if (!r.needed || r.code.isEmpty())
            continue;
        // PyPI failed, but the mirror chosen since answered in the same round.
        if (r.origin == u"pypi" && pypi != r.name
            && std::any_of(report->mirrors.cbegin(), report->mirrors.cend(),
                           [&pypi](const core::OriginResult &m) { return m.name == pypi && m.reachable; }))
            continue;
        out.append(r);
    }
    return out;
}

bool OptionsPage::offerFix(const QList<core::OriginResult> &failed)
{
    QSet<QString> fixes;
    for (const core::OriginResult &r : failed)
        fixes.insert(r.fix);
    // The proxy first: every other place is reached through it. A captive portal's page: log in
    // with a browser (the message says so), or the network wants its proxy.
    if (fixes.contains(QStringLiteral("proxy")) || fixes.contains(QStringLiteral("login"))) {
        m_status->setAction(tr("Set a p&roxy…"), [this] { focusProxy(); });
        return true;
    }
    if (fixes.contains(QStringLiteral("mirror"))) {
        const auto &report = m_connection->report();
        const auto best = report ? report->bestMirror() : std::nullopt;
        if (best && best->name != options().network.firstPypiIndex()) {
            m_status->setAction(
                tr("Use the fastest &mirror: %1").arg(best->name == u"pypi" ? tr("PyPI") : best->displayName),
                [this] { useFastestMirror(); });
            return true;
        }
        if (!best && report && !report->mirrors.isEmpty()) {
            // No mirror answered either: nothing on the network serves this setup.
            m_status->setAction(tr("Use an offline bund&le…"), [this] { focusBundle(); });
            return true;
        }
        m_status->setAction(tr("Choose a &mirror…"), [this] { chooseMirror(); });
        return true;
    }
    if (fixes.contains(QStringLiteral("bundle"))) {
        m_status->setAction(tr("Use an offline bund&le…"), [this] { focusBundle(); });
        return true;
    }
    return false;
}

QString OptionsPage::pickedText() const
{
    const int index = m_pypiCombo->findText(m_pypiCombo->currentText());
    const bool shown = !m_pickedPreset.isEmpty() && index >= 0
        && m_pypiCombo->itemData(index).toString() == m_pickedPreset;
    return shown ? m_pickedLine : QString();
}

void OptionsPage::showHelp(const QString &topic)
{
    m_helpTopic = topic;
    QString text;
    if (topic == u"folder") {
        text = tr("The folder where tfsetup creates your environment: a private copy of Python with TensorFlow and "
                  "the NVIDIA libraries it needs. Nothing outside this folder is changed, and deleting the folder "
                  "removes everything again.");
    } else if (topic == u"name") {
        text = tr("The name of the environment's folder. Jupyter lists it under this name, so you can keep several "
                  "environments side by side, for example one per course.");
    } else if (topic == u"pypi") {
        text = tr("PyPI is where pip downloads Python packages such as TensorFlow. A mirror is a copy of it on a "
                  "nearer server: in mainland China, Tsinghua (tuna), Alibaba Cloud (aliyun) or USTC are usually "
                  "much faster. You can also type the address of your lab's own index.");
    } else if (topic == u"nvidia") {
        text = tr("A copy of NVIDIA's download server, for example one your lab runs, or a folder with the same "
                  "layout. Leave it empty to download from NVIDIA. Wherever a file comes from, it must match "
                  "NVIDIA's published checksum.");
    } else if (topic == u"proxy") {
        text = tr("Some campus and company networks reach the internet only through a proxy server. If your "
                  "browser is set up with one, enter the same address here, like http://proxy.example.edu:3128. "
                  "Otherwise leave it empty.");
    } else if (topic == u"cache") {
        text = tr("Where downloaded files are kept. They are checked again before use, and a second install does "
                  "not download them again.");
    } else if (topic == u"bundle") {
        text = tr("An offline bundle is a folder made with \"tfsetup bundle\" on a computer with internet. It holds "
                  "every file one plan needs, so you can install without internet. Leave it empty to download.");
    }
    m_helpLabel->setText(text);
    m_helpLabel->setVisible(!text.isEmpty());
    if (!text.isEmpty())
        m_scroll->ensureWidgetVisible(m_helpLabel);
}

void OptionsPage::updateAdvice()
{
    // An empty field needs no sermon; Next stays off until it has a folder.
    const auto advice = m_folderEdit->text().trimmed().isEmpty()
        ? QList<core::PathAdvice>()
        : core::SetupFlow::adviseOnPath(m_folderEdit->text(), m_state.system().os());
    QStringList lines;
    for (const core::PathAdvice &a : advice)
        lines.append(a.message);
    m_folderAdvice->setText(lines.join(u'\n'));
    m_folderAdvice->setVisible(!lines.isEmpty());
}

void OptionsPage::load()
{
    const std::unique_ptr<QSettings> settings = m_settings();
    settings->beginGroup(QStringLiteral("options"));
    const auto text = [&](const char *key, const QString &fallback) {
        const QString value = settings->value(QLatin1String(key)).toString();
        return value.isEmpty() ? fallback : value;
    };
    m_folderEdit->setText(
        text("prefix", m_base.prefix.isEmpty() ? core::SetupOptions::defaultPrefix(m_state.system()) : m_base.prefix));
    // A remembered mirror is the student's own choice, even PyPI itself.
    m_pypiChosen = !settings->value(QStringLiteral("pypiMirror")).toString().isEmpty();
    m_pickedPreset.clear();
    m_pickedWhy.clear();
    m_pickedLine.clear();
    if (m_status->tag() == u"mirror")
        m_status->clear();
    const QString pypi = text("pypiMirror", QStringLiteral("pypi"));
    const int index = m_pypiCombo->findData(pypi);
    if (index >= 0)
        m_pypiCombo->setCurrentIndex(index);
    else
        m_pypiCombo->setEditText(pypi);
    m_nvidiaEdit->setText(settings->value(QStringLiteral("nvidiaMirror")).toString());
    m_proxyEdit->setText(settings->value(QStringLiteral("proxy")).toString());
    // The download folder of the machine the wizard looks at (a fixture tree with --root), not
    // necessarily this one's.
    m_cacheEdit->setText(
        text("cacheDir",
             m_base.cacheDir.isEmpty() ? core::SetupOptions::defaultCacheDir(m_state.system()) : m_base.cacheDir));
    m_bundleEdit->setText(settings->value(QStringLiteral("bundleDir")).toString());
    m_jupyterCheck->setChecked(settings->value(QStringLiteral("jupyter"), true).toBool());
    settings->endGroup();
}

void OptionsPage::save(const core::SetupOptions &o)
{
    const std::unique_ptr<QSettings> settings = m_settings();
    settings->beginGroup(QStringLiteral("options"));
    settings->setValue(QStringLiteral("prefix"), o.prefix);
    settings->setValue(QStringLiteral("pypiMirror"), o.network.firstPypiIndex());
    settings->setValue(QStringLiteral("nvidiaMirror"), o.network.nvidiaMirror);
    settings->setValue(QStringLiteral("proxy"), o.network.transfer.proxy);
    settings->setValue(QStringLiteral("cacheDir"), o.cacheDir);
    settings->setValue(QStringLiteral("bundleDir"), o.network.bundleDir);
    settings->setValue(QStringLiteral("jupyter"), o.jupyter);
    settings->endGroup();
    settings->sync();
}

void OptionsPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        updateAdvice();
        if (!m_helpTopic.isEmpty())
            showHelp(m_helpTopic);
    }
    QWizardPage::changeEvent(event);
}

void OptionsPage::retranslate()
{
    setTitle(tr("Options"));
    setSubTitle(tr("Where the environment goes and where files come from. The suggestions work for most students."));
    // B, N, I, F and H are the wizard's own buttons: the folder, name and bundle rows use other letters.
    const QStringList labels{tr("F&older:"), tr("N&ame:"),      tr("&PyPI mirror:"),   tr("N&VIDIA mirror:"),
                             tr("Pro&xy:"),  tr("&Downloads:"), tr("Offline b&undle:")};
    for (int i = 0; i < m_rowLabels.size(); ++i)
        m_rowLabels.at(i)->setText(labels.at(i));
    for (QPushButton *help : std::as_const(m_helpLinks)) {
        help->setText(tr("What is this?"));
        help->setAccessibleDescription(m_rowLabels.at(m_helpLinks.indexOf(help))->text().remove(u'&'));
    }
    m_folderBrowse->setText(tr("Bro&wse…"));
    m_jupyterCheck->setText(tr("Install &Jupyter: JupyterLab, to work in notebooks"));
    m_jupyterCheck->setAccessibleName(tr("Install JupyterLab"));
    m_jupyterCheck->setToolTip(tr("Every environment gets a Jupyter kernel. This adds JupyterLab, which "
                                  "start-jupyter and the Finish page open."));
    m_trustCheck->setText(
        tr("Download the files without a published checksum anyway, and record their SHA-256 (&trust on first use)"));
    m_trustCheck->setAccessibleName(tr("Trust files without a published checksum on first use"));
    m_trustRisk->setText(tr("Nothing can prove these files are the originals: a hostile network or mirror could "
                            "swap them. Their SHA-256 is recorded, so any later change is caught."));
    m_bundleBrowse->setText(tr("Brow&se…"));
    m_folderEdit->setToolTip(tr("The environment is created in a folder inside this one."));
    m_nameEdit->setToolTip(tr("Letters, digits, dots and dashes; no slashes."));
    m_nvidiaEdit->setPlaceholderText(tr("empty: download from NVIDIA"));
    m_proxyEdit->setPlaceholderText(tr("empty: no proxy, or the system's"));
    m_bundleEdit->setPlaceholderText(tr("empty: download over the internet"));
    m_scroll->setAccessibleName(tr("Options"));
    retranslatePresets();
    const auto &report = m_connection->report();
    if (report)
        showReport();
    if (!m_pickedWhy.isEmpty() && report) {
        // The status line about the preselection is rebuilt from what was measured, in the new language.
        if (const auto best = report->bestMirror())
            pickMirror(*best, report->mirrors, m_pickedWhy);
    }
}

void OptionsPage::retranslatePresets()
{
    const core::KnowledgePtr knowledge = m_state.knowledgeOrNull();
    if (!knowledge)
        return;
    const core::SourceCatalog *catalog = &knowledge->sources;
    const QString lang = language();
    // The same presets in other words: not a network change, so the connection test's results stay.
    const QScopedValueRollback applying(m_applyingPick, true);
    for (int i = 0; i < m_pypiCombo->count(); ++i) {
        const QString name = m_pypiCombo->itemData(i).toString();
        const auto mirror = catalog->pypiMirror(name);
        if (name == u"pypi") {
            m_pypiCombo->setItemText(i, tr("PyPI (pypi.org, official)"));
        } else if (mirror) {
            const QString host = QUrl(mirror->url).host();
            // In Chinese the institution's own name (data: the catalog's label_zh / label_zh_TW).
            const QString shown = mirror->displayName(lang);
            if (shown != mirror->name)
                m_pypiCombo->setItemText(i, tr("%1 (%2)").arg(shown, host));
            else
                m_pypiCombo->setItemText(
                    i, mirror->region == u"cn" ? tr("%1 (%2, China)").arg(name, host) : tr("%1 (%2)").arg(name, host));
        }
    }
}

core::OriginProbeRequest OptionsPage::probeRequest(std::shared_ptr<const std::atomic<bool>> cancel) const
{
    const core::SetupOptions o = options();
    core::OriginProbeRequest r;
    r.transfer = o.network.transfer;
    r.pypiMirror = o.network.firstPypiIndex();
    r.nvidiaMirror = o.network.nvidiaMirror;
    r.bundleDir = o.network.bundleDir;
    r.originOverrides = o.network.originOverrides;
    r.sourcesCatalog = o.sourcesCatalog;
    r.knowledge = m_state.knowledgeOrNull();
    if (m_state.plan())
        r.plan = core::SetupFlow::resolveRequest(*m_state.plan(), core::osFamilyName(m_state.system().os()));
    r.language = language();
    r.cancel = std::move(cancel);
    return r;
}

void OptionsPage::markPypiChosen()
{
    m_pypiChosen = true;
    // The line about a preselection no longer describes what the combo shows.
    const int index = m_pypiCombo->findText(m_pypiCombo->currentText());
    if (index < 0 || m_pypiCombo->itemData(index).toString() != m_pickedPreset) {
        m_pickedPreset.clear();
        m_pickedWhy.clear();
        m_pickedLine.clear();
        if (m_status->tag() == u"mirror")
            m_status->clear();
    }
    m_connection->stopRanking(); // a ranking still running must not undo it
}

bool OptionsPage::mayChooseMirror() const
{
    if (m_pypiChosen || m_resolving)
        return false;
    // Only over PyPI itself or the page's own earlier preselection.
    const QString current = options().network.firstPypiIndex();
    return current == u"pypi" || (!m_pickedPreset.isEmpty() && current == m_pickedPreset);
}

void OptionsPage::testConnection()
{
    m_connection->test();
}

void OptionsPage::finishTest(const core::Status &status)
{
    if (!status) {
        m_status->showMessage(PageStatus::Kind::Error, status.error().message, status.error().detail);
        m_status->setTag(QStringLiteral("connection"));
        Q_EMIT connectionTested(false);
        return;
    }
    showReport();
    // PyPI not answering, or slowly (or the wizard speaks Chinese), and no choice of the
    // student's: take the fastest preset the same round measured.
    const core::ConnectionReport &report = *m_connection->report();
    const core::OriginResult *pypi = report.origin(QStringLiteral("pypi"));
    const bool pypiPoor = pypi && (!pypi->reachable || pypi->slow);
    if ((pypiPoor || language().startsWith(QLatin1String("zh"))) && mayChooseMirror()) {
        if (const auto best = report.bestMirror())
            pickMirror(*best, report.mirrors, pypiPoor ? QStringLiteral("pypi") : QStringLiteral("language"));
    }
    Q_EMIT connectionTested(report.neededReachable());
}

void OptionsPage::showReport()
{
    // A ranking alone measured no origins: there is nothing to say about them.
    const auto &report = m_connection->report();
    if (!report || report->origins.isEmpty())
        return;
    // One sentence per cause; the other origins it hit are named after it.
    const QList<core::OriginResult> failed = failures();
    QStringList advice, adviceCodes, details;
    QList<QStringList> alsoAt;
    for (const core::OriginResult &r : failed) {
        if (const qsizetype seen = adviceCodes.indexOf(r.code); seen >= 0) {
            alsoAt[seen].append(ConnectionTest::originTitle(r));
        } else {
            adviceCodes.append(r.code);
            advice.append(r.message);
            alsoAt.append(QStringList());
        }
        details.append(QStringLiteral("%1 %2: %3 %4")
                           .arg(ConnectionTest::originTitle(r), r.url.toDisplayString(), r.code, r.detail)
                           .trimmed());
    }
    for (qsizetype i = 0; i < advice.size(); ++i) {
        if (!alsoAt.at(i).isEmpty())
            advice[i] += u' ' + tr("The same for %1.").arg(alsoAt.at(i).join(tr(", ")));
    }
    const QString picked = pickedText();
    if (!picked.isEmpty())
        advice.append(picked);
    const bool unreachable = std::any_of(failed.cbegin(), failed.cend(),
                                         [](const core::OriginResult &r) { return !r.reachable; });
    if (failed.isEmpty()) {
        if (advice.isEmpty())
            advice.append(tr("Everything this setup downloads from answered."));
        m_status->showMessage(PageStatus::Kind::Ok, advice.join(u'\n'));
    } else {
        m_status->showMessage(unreachable ? PageStatus::Kind::Error : PageStatus::Kind::Warning, advice.join(u'\n'),
                              details.join(u'\n'));
        offerFix(failed);
    }
    m_status->setTag(QStringLiteral("connection"));
}

void OptionsPage::finishRanking(const QString &why, const core::Result<QList<core::OriginResult>> &ranked)
{
    if (!ranked || !mayChooseMirror() || (wizard() && wizard()->currentPage() != this)) {
        if (!ranked)
            qWarning().noquote() << "Ranking the PyPI mirrors failed:" << ranked.error().code << ranked.error().detail;
        Q_EMIT mirrorRanked(QString());
        return;
    }
    core::ConnectionReport measured;
    measured.mirrors = *ranked;
    if (const auto best = measured.bestMirror()) {
        pickMirror(*best, measured.mirrors, why);
    } else {
        m_pickedWhy.clear();
        m_pickedLine.clear();
        if (m_status->tag().isEmpty() || m_status->tag() == u"mirror") {
            m_status->showMessage(PageStatus::Kind::Warning,
                                  tr("No PyPI mirror answered from here (%1). Test the connection to see why, or set "
                                     "a proxy.")
                                      .arg(ConnectionTest::measuredSummary(measured.mirrors)));
            m_status->setTag(QStringLiteral("mirror"));
            m_status->setAction(tr("Set a p&roxy…"), [this] { focusProxy(); });
        }
        Q_EMIT mirrorRanked(QString());
        return;
    }
    Q_EMIT mirrorRanked(m_pickedPreset);
}

void OptionsPage::pickMirror(const core::OriginResult &best, const QList<core::OriginResult> &measured,
                             const QString &why)
{
    const int index = m_pypiCombo->findData(best.name);
    if (index < 0)
        return;
    // Keep what was measured, for the fix button and the status line after a language change.
    m_connection->keepMirrors(measured);
    const core::ConnectionReport &report = *m_connection->report();
    m_applyingPick = true;
    m_pypiCombo->setCurrentIndex(index);
    m_applyingPick = false;
    m_pickedPreset = best.name;
    m_pickedWhy = why;
    const QString summary = ConnectionTest::measuredSummary(report.mirrors);
    const QString name = best.name == u"pypi" ? tr("PyPI") : best.displayName;
    if (best.name == u"pypi")
        m_pickedLine = tr("PyPI itself answered fastest from here (%1), so it stays chosen.").arg(summary);
    else if (why == u"pypi")
        m_pickedLine =
            tr("PyPI did not answer well from here, so %1 was chosen: the fastest PyPI mirror measured (%2). "
               "You can choose another above.")
                .arg(name, summary);
    else
        m_pickedLine =
            tr("%1 was chosen: the fastest PyPI mirror measured from here (%2). You can choose another above.")
                .arg(name, summary);
    if (!report.origins.isEmpty()) {
        showReport();
    } else if (m_status->tag().isEmpty() || m_status->tag() == u"mirror") {
        // A ranking alone: its line, unless the page is saying something else.
        m_status->showMessage(PageStatus::Kind::Info, m_pickedLine);
        m_status->setTag(QStringLiteral("mirror"));
    }
}

} // namespace tfsetup::ui
