#pragma once

#include <QString>

#include <optional>
#include <utility>
#include <variant>

namespace tfsetup::core {

// An error that crosses an API boundary: a stable machine code (for JSON, tests and the doctor),
// a translated message that says what the user can do, untranslated detail (paths, errno text,
// the raw output) for the log and the details view, and for a request a server refused, its
// HTTP status.
struct Error {
    QString code;
    QString message;
    QString detail;
    int httpStatus = 0; // a network failure's HTTP answer (404, 407, 502 …); 0 when there was none
};

// Expected value or Error. Deliberately small: g++ 12 has no std::expected in C++20.
template<typename T>
class [[nodiscard]] Result {
public:
    // QCoro::waitFor() needs a default-constructible result; such a Result holds an error
    // until a real value or error is assigned.
    Result()
        : m_data(std::in_place_index<1>, Error{QStringLiteral("unset"), {}, {}})
    {}
    Result(T value)
        : m_data(std::in_place_index<0>, std::move(value))
    {}
    Result(Error error)
        : m_data(std::in_place_index<1>, std::move(error))
    {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(m_data); }
    const T &value() const & { return std::get<0>(m_data); }
    T &&value() && { return std::get<0>(std::move(m_data)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const { return std::get<1>(m_data); }

    T valueOr(T fallback) const { return ok() ? value() : std::move(fallback); }

private:
    std::variant<T, Error> m_data;
};

struct Ok {};
using Status = Result<Ok>;

} // namespace tfsetup::core
