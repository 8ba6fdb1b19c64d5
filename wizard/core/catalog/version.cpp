#include "catalog/version.h"

#include <QList>

#include <algorithm>

namespace tfsetup::core::version {

namespace {

QList<int> parts(QStringView v)
{
    QList<int> out;
    for (QStringView piece : v.trimmed().split(u'.')) {
        bool ok = false;
        const int n = piece.toInt(&ok);
        out.append(ok ? n : 0);
    }
    return out;
}

} // namespace

int compare(QStringView a, QStringView b)
{
    const QList<int> pa = parts(a);
    const QList<int> pb = parts(b);
    const qsizetype n = std::max(pa.size(), pb.size());
    for (qsizetype i = 0; i < n; ++i) {
        const int x = pa.value(i, 0);
        const int y = pb.value(i, 0);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

bool less(QStringView a, QStringView b)
{
    return compare(a, b) < 0;
}

bool matchesPrefix(QStringView prefix, QStringView version)
{
    const QStringView p = prefix.trimmed();
    if (p.isEmpty())
        return true;
    const QList<QStringView> want = p.split(u'.');
    const QList<QStringView> have = version.trimmed().split(u'.');
    for (qsizetype i = 0; i < want.size(); ++i) {
        if (compare(want.at(i), have.value(i, u"0")) != 0)
            return false;
    }
    return true;
}

QString majorMinor(QStringView v)
{
    const QList<int> p = parts(v);
    if (v.trimmed().isEmpty())
        return {};
    return QString::number(p.value(0)) + u'.' + QString::number(p.value(1, 0));
}

QString major(QStringView v)
{
    if (v.trimmed().isEmpty())
        return {};
    return QString::number(parts(v).value(0));
}

bool inRange(QStringView v, QStringView min, QStringView max)
{
    if (!min.isEmpty() && compare(v, min) < 0)
        return false;
    if (!max.isEmpty() && compare(v, max) > 0)
        return false;
    return true;
}

bool isValid(QStringView v)
{
    const QStringView t = v.trimmed();
    if (t.isEmpty())
        return false;
    const auto pieces = t.split(u'.');
    return std::all_of(pieces.begin(), pieces.end(), isNumber);
}

bool isNumber(QStringView part)
{
    if (part.isEmpty() || !std::all_of(part.begin(), part.end(), [](QChar c) { return c >= u'0' && c <= u'9'; }))
        return false;
    bool ok = false;
    (void)part.toInt(&ok);
    return ok;
}

} // namespace tfsetup::core::version
