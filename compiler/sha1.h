/* sha1.h — SHA-1 for external data checksums (sha1.c). */
#ifndef SHA1_H
#define SHA1_H

#include <stddef.h>
#include <stdint.h>

typedef struct Sha1 {
    uint32_t h[5];
    uint64_t len; /* bytes so far */
    uint8_t buf[64];
} Sha1;

void sha1_init(Sha1 *s);
void sha1_update(Sha1 *s, const void *data, size_t n);
void sha1_final(Sha1 *s, uint8_t out[20]);
void sha1_to_hex(const uint8_t digest[20], char hex[41]);
void sha1_hex(const void *data, size_t n, char hex[41]); /* one buffer, as hex */

#endif
