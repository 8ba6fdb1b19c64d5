#pragma once

// Happens-before edges that ThreadSanitizer cannot see. Qt is not built with TSan, and it hands
// values between threads (a QtConcurrent task's result through its QFuture) under futex-based
// locks that TSan does not know, so a value made on a worker thread and used after co_await on
// the caller's looks like a race. Mark the hand-over: release where the worker is done with the
// value, acquire where the caller takes it. Outside TSan builds these are nothing.

#if defined(__SANITIZE_THREAD__)
#define TFSETUP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TFSETUP_TSAN 1
#endif
#endif

#ifdef TFSETUP_TSAN
#include <sanitizer/tsan_interface.h>
#define TFSETUP_HANDOVER_RELEASE(address) __tsan_release(const_cast<void *>(static_cast<const void *>(address)))
#define TFSETUP_HANDOVER_ACQUIRE(address) __tsan_acquire(const_cast<void *>(static_cast<const void *>(address)))
#else
#define TFSETUP_HANDOVER_RELEASE(address) static_cast<void>(address)
#define TFSETUP_HANDOVER_ACQUIRE(address) static_cast<void>(address)
#endif
