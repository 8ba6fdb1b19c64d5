#include "util/units.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace tfsetup::core {

QString Units::dataSize(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

QString Units::duration(double seconds)
{
    const qint64 s = std::max<qint64>(1, qint64(std::ceil(seconds)));
    if (s < 60)
        return tr("%1 s").arg(s);
    if (s < 3600)
        return tr("%1 min").arg((s + 59) / 60);
    return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600 + 59) / 60);
}

} // namespace tfsetup::core
