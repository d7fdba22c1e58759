// The gemm symbols' fast path in assembly (x86-64 ELF). gemm_ has fifteen arguments, nine of
// them on the stack; GCC's tail call from a C++ function copies those nine out and back in
// (40 instructions, 3 ns of a 16 ns dgemm_ at n = 1). The gate below reads m, n, k through
// the argument registers, compares m n k with the crossover, and jumps to the next library
// with the stack and the registers as the caller left them; every other case (counting, a
// negative dimension, above the crossover, the next definition not yet resolved) jumps to the
// C++ definition, which has the same signature and decides as before. Internal to
// libtessera_lapack.
#pragma once

#if defined(__x86_64__) && defined(__ELF__)
#define TESSERA_DROPIN_HAS_GATES 1

#if defined(__CET__)
#define TESSERA_DROPIN_GATE_ENDBR "  endbr64\n"
#else
#define TESSERA_DROPIN_GATE_ENDBR ""
#endif

/// Defines the exported `symbol` (gemm's argument list: m, n and k are its third, fourth
/// and fifth arguments, pointers to int, in rdx, rcx and r8) in assembly. It reads
/// `tessera_dropin_counting`, the crossover at byte `volume_offset` of
/// `tessera_dropin_crossover_volumes`, and the next definition at offset 0 of the entry
/// `tessera_dropin_entry_<symbol>`, and falls back on `tessera_dropin_slow_<symbol>`. Only
/// rax, xmm0 and xmm1 change, none of which carries an argument of these calls.
#define TESSERA_DROPIN_GATE(symbol, volume_offset)                                                 \
    __asm__(".pushsection .text\n" /* and back: the compiler's own section stays current */        \
            ".p2align 4\n"                                                                         \
            ".globl " #symbol "\n"                                                                 \
            ".type " #symbol ", @function\n" #symbol ":\n" TESSERA_DROPIN_GATE_ENDBR               \
            "  cmpb $0, tessera_dropin_counting(%rip)\n"                                           \
            "  jne 1f\n"                                                                           \
            "  movl (%rdx), %eax\n" /* m | n | k < 0: a bad argument, for the C++ side */          \
            "  orl (%rcx), %eax\n"                                                                 \
            "  orl (%r8), %eax\n"                                                                  \
            "  js 1f\n"                                                                            \
            "  cvtsi2sdl (%rdx), %xmm0\n" /* (m n) k in double, as volume_of computes it */        \
            "  cvtsi2sdl (%rcx), %xmm1\n"                                                          \
            "  mulsd %xmm1, %xmm0\n"                                                               \
            "  cvtsi2sdl (%r8), %xmm1\n"                                                           \
            "  mulsd %xmm1, %xmm0\n"                                                               \
            "  ucomisd tessera_dropin_crossover_volumes+" #volume_offset "(%rip), %xmm0\n"         \
            "  jae 1f\n" /* at or above the crossover: Tessera may run it */                       \
            "  movq tessera_dropin_entry_" #symbol "(%rip), %rax\n"                                \
            "  testq %rax, %rax\n"                                                                 \
            "  je 1f\n"                                                                            \
            "  jmp *%rax\n"                                                                        \
            "1:\n"                                                                                 \
            "  jmp tessera_dropin_slow_" #symbol "\n"                                              \
            ".size " #symbol ", .-" #symbol "\n"                                                   \
            ".popsection\n");

#endif
