/* Kinds of stack frames, shared by the symbolizer and the profile trie. */
#ifndef PERFREPORT_FRAME_KIND_H
#define PERFREPORT_FRAME_KIND_H

enum frame_kind {
    FRAME_USER = 0, /* user-space function from an ELF symbol table (or module+0xoff) */
    FRAME_KERNEL,   /* kernel function from kallsyms (or "[kernel]" when hidden) */
    FRAME_JIT,      /* JIT-compiled code named by /tmp/perf-PID.map */
    FRAME_INLINE,   /* a function inlined into the frame that follows it */
    FRAME_UNKNOWN,  /* no name: "[unknown]", "[pid N exited]" ... */
    FRAME_PROCESS,  /* the comm/pid pseudo-frame at a stack's root */
    FRAME_KIND_COUNT
};

#endif
