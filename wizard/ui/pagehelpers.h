#pragma once

#include "solver/plan.h"

#include <QString>
#include <QStringList>

namespace tfsetup::ui {

// What the pages share that is too small for a widget of its own.

// A progress bar's range, per mille: bars hold ints, and artifacts of several GiB do not fit as bytes.
constexpr int progressScale = 1000;

// Lines as a bulleted list, one per line, for a label or a tooltip.
inline QString bulletList(const QStringList &lines)
{
    QStringList out;
    for (const QString &line : lines)
        out.append(QStringLiteral("• ") + line);
    return out.join(u'\n');
}

// Route, release and Python name one plan across solves (a language switch solves again): what
// the student chose for it (GPUs, sizes looked up) is kept while the key stays.
inline QString planKey(const core::Plan &plan)
{
    return plan.route + u'|' + plan.tensorflow + u'|' + plan.python;
}

} // namespace tfsetup::ui
