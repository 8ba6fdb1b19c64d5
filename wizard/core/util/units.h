#pragma once

#include <QCoreApplication>
#include <QString>

namespace tfsetup::core {

// How sizes and waiting times read wherever downloads are shown: the Download page, the command
// line's progress lines.
class Units {
    Q_DECLARE_TR_FUNCTIONS(Units)

public:
    // "96.0 MB", in the user's locale.
    static QString dataSize(qint64 bytes);
    // "45 s", "3 min", "1 h 5 min": rounded up, so "1 min" never hides another minute of waiting.
    static QString duration(double seconds);
};

} // namespace tfsetup::core
