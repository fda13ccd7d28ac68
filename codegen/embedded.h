/* Text of the kernel templates and runtime files, embedded at build time (see
 * cmake/embed_text.cmake). Names are "templates/gemm.c", "runtime_min/harness.c", ... */
#ifndef EMBEDDED_H
#define EMBEDDED_H

typedef struct EmbeddedText {
    const char *name;
    const char *text;
} EmbeddedText;

extern const EmbeddedText embedded_texts[]; /* ends with {0, 0} */

#endif
