#pragma once

#include <QString>
#include <QStringView>

// Dotted version numbers as the catalog and the hardware report write them ("2.10.0", "535.104.05",
// "3.10"). Components compare numerically; a missing component counts as 0, so "2.10" == "2.10.0".
namespace tfsetup::core::version {

int compare(QStringView a, QStringView b);
bool less(QStringView a, QStringView b);
// "2.13" matches "2.13.0" and "2.13.1" but not "2.1.0"; an empty prefix matches everything.
bool matchesPrefix(QStringView prefix, QStringView version);
// "3.10.11" -> "3.10", "9" -> "9.0"
QString majorMinor(QStringView version);
QString major(QStringView version);
// min and max are inclusive; an empty bound is open. Compared on the components both sides have.
bool inRange(QStringView version, QStringView min, QStringView max);
// Dotted numbers of ASCII digits only: no sign, no white space inside ("3.10", not "3.+10").
bool isValid(QStringView version);
// One component: ASCII digits only, in int's range. (toInt() alone takes " 12" and "+3".)
bool isNumber(QStringView part);

} // namespace tfsetup::core::version
