#pragma once

// Helpers the wizard's tests share.

#include <QString>
#include <QWidget>

namespace tfsetup::test {

// The child widget of that object name and type; a test that cannot find it stops right there.
template<typename T>
T *child(QWidget *parent, const QString &name)
{
    auto *widget = parent->findChild<T *>(name);
    if (!widget)
        qFatal("no child %s", qPrintable(name));
    return widget;
}

} // namespace tfsetup::test
