#pragma once
// Which sanitizer a test program was built with, on GCC (which defines __SANITIZE_*__) and on
// Clang (which answers __has_feature instead): a test that cannot run under one skips with
// its reason on both compilers.

#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINDLING_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define KINDLING_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KINDLING_TSAN 1
#endif
#endif

#if defined(KINDLING_ASAN) || defined(KINDLING_TSAN)
#define KINDLING_SANITIZED 1
#endif
