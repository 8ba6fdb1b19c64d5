#include "ui/downloadpreview.h"

#include "catalog/knowledge.h"
#include "catalog/version.h"
#include "setup/plandownloads.h"
#include "ui/pagehelpers.h"
#include "ui/wizardstate.h"

#include <QLocale>

namespace tfsetup::ui {

namespace {

// Why the download size is not known, in one clause of the total's sentence; the log has the
// whole error.
QString sizeFailureClause(const QString &code)
{
    if (code.startsWith(QLatin1String("bundle")))
        return DownloadPreview::tr("the offline bundle cannot serve this combination");
    if (code == u"manifest_unavailable")
        return DownloadPreview::tr("NVIDIA could not be reached; a proxy or mirror can be set on the next page");
    return DownloadPreview::tr("the lookup failed; the log has why");
}

} // namespace

DownloadPreview::DownloadPreview(WizardState &state, QWidget *parent)
    : QLabel(parent)
    , m_state(state)
{
    setObjectName(QStringLiteral("downloadsLabel"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    connect(&m_state, &WizardState::optionsChanged, this, &DownloadPreview::forgetSizes);
}

void DownloadPreview::setKnowledge(core::KnowledgePtr knowledge)
{
    m_knowledge = std::move(knowledge);
}

void DownloadPreview::showPlan(const core::Plan *plan)
{
    if (!plan) {
        m_plan.reset();
        clear();
        return;
    }
    m_plan = *plan;
    lookUpSizes(*plan);
    setText(downloadsText(*plan));
}

const core::ArtifactList *DownloadPreview::resolvedFor(const core::Plan &plan) const
{
    // The Options page's answer, once it has looked this very plan's files up (Back from there);
    // else this page's own lookup of the plan.
    if (lockFor(plan))
        return &*m_state.artifacts();
    if (const auto it = m_sized.constFind(planKey(plan)); it != m_sized.cend())
        return &*it;
    return nullptr;
}

const core::PyLock *DownloadPreview::lockFor(const core::Plan &plan) const
{
    // Only the Options page's list comes with pip's lock.
    const auto &list = m_state.artifacts();
    const auto &committed = m_state.plan();
    if (!list || !committed || planKey(*committed) != planKey(plan))
        return nullptr;
    return &m_state.lock();
}

bool DownloadPreview::maySizeLookUp() const
{
    // Only through network settings the wizard was given (the Options page's, a lab profile's, a
    // continued setup's): before them nothing says whether this computer may reach NVIDIA at all
    // (an offline install, a proxy still to be typed), and tests on fixture machines stay offline.
    const core::NetworkSettings &network = m_state.options().network;
    if (!network.bundleDir.trimmed().isEmpty())
        return true;
    return m_networkGiven && !network.offline;
}

void DownloadPreview::forgetSizes()
{
    // Other network settings (a proxy, a mirror, a bundle) may answer otherwise: ask again.
    m_networkGiven = true;
    ++m_sizeGeneration;
    m_lookup = Lookup::None;
    m_sizedPlan.clear();
    m_sized.clear();
    m_sizeFailure.clear();
}

void DownloadPreview::lookUpSizes(const core::Plan &plan)
{
    const QString key = planKey(plan);
    if (lockFor(plan) || !m_knowledge || m_sized.contains(key) || (m_sizedPlan == key && m_lookup != Lookup::None))
        return;
    ++m_sizeGeneration; // a lookup for another plan is ignored when it answers
    m_sizeFailure.clear();
    m_sizedPlan = key;
    if (!maySizeLookUp()) {
        m_lookup = Lookup::None;
        return;
    }
    m_lookup = Lookup::Running;
    core::SetupOptions options = m_state.options();
    if (!options.knowledge)
        options.knowledge = m_knowledge;
    const QString os = options.os.isEmpty() ? core::osFamilyName(m_state.system().os()) : options.os;
    runSizeLookup(this, plan, os, std::move(options), m_sizeGeneration);
}

QCoro::Task<> DownloadPreview::runSizeLookup(QPointer<DownloadPreview> self, core::Plan plan, QString os,
                                             core::SetupOptions options, quint64 generation)
{
    auto looked = co_await core::PlanDownloads::lookUp(std::move(plan), std::move(os), std::move(options));
    if (!self || self->m_sizeGeneration != generation)
        co_return;
    if (looked) {
        self->m_sized.insert(self->m_sizedPlan, std::move(*looked));
        self->m_lookup = Lookup::Done;
    } else {
        qInfo().noquote() << "Choose page: the download size was not looked up:" << looked.error().code
                          << looked.error().message << looked.error().detail;
        self->m_sizeFailure = looked.error().code;
        self->m_lookup = Lookup::Failed;
    }
    if (self->m_plan && planKey(*self->m_plan) == self->m_sizedPlan) {
        self->setText(self->downloadsText(*self->m_plan));
        Q_EMIT self->sizesChanged();
    }
}

QString DownloadPreview::cudaText(const core::Plan &plan) const
{
    if (plan.cuda.isEmpty())
        return tr("none");
    // The release whose files come down, beside the tested one, where they differ.
    const core::PlanDownloads files = m_knowledge
        ? core::PlanDownloads::of(plan, m_knowledge->sources, resolvedFor(plan), lockFor(plan))
        : core::PlanDownloads{};
    return files.cudaStandIn
        ? tr("%1 (%2's files)", "CUDA tested with (CUDA whose files are downloaded)").arg(plan.cuda, files.cudaArchives)
        : plan.cuda;
}

QString DownloadPreview::totalSizeText(const core::Plan &plan) const
{
    if (!m_knowledge)
        return {};
    const core::PlanDownloads files = core::PlanDownloads::of(plan, m_knowledge->sources, resolvedFor(plan),
                                                              lockFor(plan));
    const QString bytes = QLocale().formattedDataSize(files.knownBytes, 1, QLocale::DataSizeTraditionalFormat);
    if (files.allSizesKnown())
        return tr("Total download: %1.").arg(bytes);
    // Before pip's lock (the next page) PyPI gives no wheel sizes: said, not guessed.
    if (files.sizesResolved && files.wheelsUnsized) {
        if (files.otherFilesUnknown() > 0)
            return tr("Total download: at least %1; %n more file(s) of unknown size, plus the TensorFlow wheels, "
                      "sized on the next page.",
                      nullptr, files.otherFilesUnknown())
                .arg(bytes);
        if (files.knownBytes > 0)
            return tr("Total download: %1, plus the TensorFlow wheels, sized on the next page.").arg(bytes);
        return tr("Total download: the TensorFlow wheels, sized on the next page.");
    }
    if (files.sizesResolved && files.knownBytes > 0)
        return tr("Total download: at least %1; %n more file(s) of unknown size.", nullptr, files.filesUnknown)
            .arg(bytes);
    const bool thisPlan = m_sizedPlan == planKey(plan);
    if (thisPlan && m_lookup == Lookup::Running)
        return tr("Total download: looking up the size of each file…");
    if (thisPlan && m_lookup == Lookup::Failed)
        return tr("Total download: not known yet (%1). tfsetup looks up each file and its size on the next page, "
                  "before anything is downloaded.")
            .arg(sizeFailureClause(m_sizeFailure));
    // Before the files are looked up nothing tfsetup knows has a size: say so rather than guess.
    return tr("Total download: not known yet. tfsetup looks up each file and its size on the next page, before "
              "anything is downloaded.");
}

QString DownloadPreview::downloadsText(const core::Plan &plan) const
{
    return tr("What will be downloaded:") + u'\n' + bulletList(downloadItems(plan)) + u'\n' + totalSizeText(plan);
}

QStringList DownloadPreview::downloadItems(const core::Plan &plan) const
{
    const QString tf = core::version::majorMinor(plan.tensorflow);
    const core::Route *route = m_knowledge ? m_knowledge->catalog.route(plan.route) : nullptr;
    QStringList items;
    if (route && route->cudaLibraries == u"pip" && !plan.cuda.isEmpty())
        items.append(tr("TensorFlow %1 with CUDA %2 and cuDNN %3, as pip packages (%4)")
                         .arg(tf, plan.cuda, plan.cudnn, plan.requirement()));
    else
        items.append(tr("TensorFlow %1, as a pip package (%2)").arg(tf, plan.requirement()));
    for (const QString &plugin : plan.plugins)
        items.append(tr("%1, as a pip package").arg(plugin));
    // What the resolver will fetch, not only what the plan was tested with: a toolkit route
    // brings its own CUDA and cuDNN even beside an installed toolkit, and where NVIDIA has no
    // archives of the plan's CUDA the sources catalog's stand-in comes (11.8's for 11.2).
    const core::PlanDownloads files = m_knowledge
        ? core::PlanDownloads::of(plan, m_knowledge->sources, resolvedFor(plan), lockFor(plan))
        : core::PlanDownloads{};
    if (files.nvidiaArchives) {
        if (files.cudaArchives.isEmpty())
            items.append(tr("CUDA %1 libraries from NVIDIA").arg(plan.cuda));
        else if (!files.cudaStandIn)
            items.append(tr("CUDA %1 libraries from NVIDIA").arg(files.cudaArchives));
        else if (files.cudaCertain)
            items.append(tr("CUDA %1 libraries from NVIDIA, standing in for CUDA %2 (NVIDIA publishes no portable "
                            "archives of %2; the library names are the same)")
                             .arg(files.cudaArchives, plan.cuda));
        else
            items.append(tr("CUDA %1 libraries from NVIDIA, standing in for CUDA %2: NVIDIA is not known to publish "
                            "portable archives of %2 (if it does, those come instead)")
                             .arg(files.cudaArchives, plan.cuda));
        items.append(tr("cuDNN %1 libraries from NVIDIA").arg(plan.cudnn));
    }
    if (!plan.pythonInstalled)
        items.append(tr("Python %1").arg(plan.python));
    return items;
}

} // namespace tfsetup::ui
