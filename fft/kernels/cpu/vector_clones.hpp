// TESSERA_VECTOR_CLONES before a hot loop's function: GCC compiles it twice, for
// x86-64-v3 (AVX2 and FMA: two complex doubles to a register where the baseline's SSE2
// holds one, and fused products) and for the baseline, and the dynamic loader picks the one
// the processor runs (an ifunc). The library itself stays built for the baseline. Nothing elsewhere: other
// compilers and processors, and the sanitizer builds (whose checks then see the one loop
// every machine runs). Internal.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__ELF__) &&         \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define TESSERA_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TESSERA_VECTOR_CLONES
#endif
