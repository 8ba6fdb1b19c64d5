#include "ui/gpuchooser.h"

#include "install/gpuchoice.h"
#include "solver/plan.h"
#include "ui/pagehelpers.h"

#include <QCheckBox>
#include <QEvent>
#include <QLabel>
#include <QStyle>
#include <QVBoxLayout>

namespace tfsetup::ui {

GpuChooser::GpuChooser(QWidget *parent)
    : QFrame(parent)
    , m_title(new QLabel(this))
    , m_list(new QVBoxLayout)
    , m_hint(new QLabel(this))
{
    setObjectName(QStringLiteral("gpuBox"));
    m_title->setObjectName(QStringLiteral("gpuTitle"));
    m_hint->setObjectName(QStringLiteral("gpuHint"));
    for (QLabel *label : {m_title, m_hint}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    setFrameShape(QFrame::StyledPanel);
    auto *outer = new QVBoxLayout(this);
    outer->addWidget(m_title);
    outer->addLayout(m_list);
    outer->addWidget(m_hint);
    hide();
    retranslate();
}

QList<int> GpuChooser::chosen() const
{
    QList<int> out;
    for (qsizetype i = 0; i < m_checks.size(); ++i) {
        if (m_checks.at(i)->isChecked())
            out.append(m_indexes.at(i));
    }
    return out;
}

void GpuChooser::showPlan(const core::Plan *plan)
{
    while (QLayoutItem *item = m_list->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_checks.clear();
    m_indexes.clear();
    if (!plan || plan->gpus.size() < 2) {
        hide();
        return;
    }
    const QString key = planKey(*plan);
    if (key != m_selectionFor) {
        m_selection = plan->defaultGpuSelection();
        m_selectionFor = key;
    }
    for (const core::PlanGpu &gpu : plan->gpus) {
        auto *check = new QCheckBox(core::GpuChoice::gpuTitle(gpu), this);
        check->setObjectName(QStringLiteral("gpuCheck%1").arg(gpu.index));
        const bool usable = gpu.use != core::PlanGpu::Use::Unusable;
        // No GPU's use could be confirmed (an empty default): every usable one, as TensorFlow would.
        check->setChecked(usable && (m_selection.isEmpty() || m_selection.contains(gpu.index)));
        check->setEnabled(usable);
        const QString reason = gpu.reason ? gpu.reason->message : QString();
        QString note;
        if (!usable) {
            note = tr("TensorFlow %1 cannot use this GPU: %2").arg(plan->tensorflow, reason);
        } else if (gpu.use == core::PlanGpu::Use::PtxJit) {
            note = tr("Slow first start: TensorFlow %1 has no ready-made code for this GPU, so the NVIDIA driver "
                      "compiles it each time a program starts, which can take several minutes.")
                       .arg(plan->tensorflow);
            if (!reason.isEmpty())
                note += u' ' + reason;
        }
        check->setToolTip(note);
        check->setAccessibleDescription(note);
        m_list->addWidget(check);
        m_checks.append(check);
        m_indexes.append(gpu.index);
        if (!note.isEmpty()) {
            auto *label = new QLabel(note, this);
            label->setObjectName(QStringLiteral("gpuNote%1").arg(gpu.index));
            label->setWordWrap(true);
            label->setTextFormat(Qt::PlainText);
            label->setIndent(check->style()->pixelMetric(QStyle::PM_IndicatorWidth, nullptr, check)
                             + check->style()->pixelMetric(QStyle::PM_CheckBoxLabelSpacing, nullptr, check));
            m_list->addWidget(label);
        }
        connect(check, &QCheckBox::toggled, this, &GpuChooser::toggled);
    }
    m_selection = chosen();
    m_hint->setVisible(m_selection.isEmpty());
    show();
}

void GpuChooser::toggled()
{
    m_selection = chosen();
    m_hint->setVisible(m_selection.isEmpty());
    Q_EMIT changed();
}

void GpuChooser::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QFrame::changeEvent(event);
}

void GpuChooser::retranslate()
{
    m_title->setText(tr("GPUs this environment uses (TensorFlow numbers the ticked ones from 0, in this order):"));
    m_hint->setText(tr("Tick at least one GPU, or use the processor only (Advanced)."));
    setAccessibleName(tr("GPUs this environment uses"));
}

} // namespace tfsetup::ui
