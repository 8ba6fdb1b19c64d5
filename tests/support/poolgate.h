#pragma once

// Holds every thread of Qt's global thread pool until released, so that work a coroutine hands
// to QtConcurrent::run is surely still waiting when the test acts: the coroutine is suspended in
// its co_await, not finished before it got there.
//
//     tfsetup::test::PoolGate gate;          // every pool thread busy from here
//     …start the coroutine, act on it…
//     gate.release();                        // (also on destruction)

#include <QCoreApplication>
#include <QSemaphore>
#include <QThreadPool>

#include <memory>

namespace tfsetup::test {

class PoolGate {
public:
    PoolGate()
        : m_threads(QThreadPool::globalInstance()->maxThreadCount())
    {
        auto started = std::make_shared<QSemaphore>();
        for (int i = 0; i < m_threads; ++i) {
            QThreadPool::globalInstance()->start([started, gate = m_gate] {
                started->release();
                gate->acquire();
            });
        }
        // A thread busy with earlier work may need this thread's event loop to finish it.
        while (!started->tryAcquire(m_threads, 10))
            QCoreApplication::processEvents();
    }
    ~PoolGate() { release(); }
    PoolGate(const PoolGate &) = delete;
    PoolGate &operator=(const PoolGate &) = delete;

    void release()
    {
        if (!m_released)
            m_gate->release(m_threads);
        m_released = true;
    }

private:
    std::shared_ptr<QSemaphore> m_gate = std::make_shared<QSemaphore>();
    int m_threads = 0;
    bool m_released = false;
};

} // namespace tfsetup::test
