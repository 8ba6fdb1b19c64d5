#pragma once

// Shared by the libFuzzer targets. A target hands the bytes to the real parser and checks what
// comes back; a broken invariant aborts with a message, which libFuzzer records as a crash with
// the input that caused it (saved as crash-<sha1> for a regression seed).

#include <QByteArray>
#include <QRegularExpression>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define TFSETUP_FUZZ_CHECK(condition)                                                                                  \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            std::fprintf(stderr, "invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #condition);                   \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (false)

namespace tfsetup::fuzz {

inline QByteArray bytes(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

// The first byte picks which reader of a family gets the rest: one target per family keeps the
// CI fuzzing time per target meaningful.
struct Selected {
    int selector = 0;
    QByteArray rest;
};

inline Selected select(const uint8_t *data, size_t size, int choices)
{
    if (size == 0)
        return {};
    return {int(data[0]) % choices, bytes(data + 1, size - 1)};
}

// An Error that reaches the user must say something; the code is what scripts match on.
template<typename R>
inline void checkResult(const R &result)
{
    if (!result.ok()) {
        TFSETUP_FUZZ_CHECK(!result.error().code.isEmpty());
        TFSETUP_FUZZ_CHECK(!result.error().message.isEmpty());
    }
}

inline bool matches(const QString &text, const char *pattern)
{
    return QRegularExpression(QRegularExpression::anchoredPattern(QString::fromLatin1(pattern))).match(text).hasMatch();
}

} // namespace tfsetup::fuzz
