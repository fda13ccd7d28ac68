/* sha1.c — SHA-1 (FIPS 180-4), for the `checksum` of external data (the ONNX spec gives a
 * SHA-1 digest). Self-contained so that tests/unit/test_sha1.c checks it on its own; the
 * compiler links only protobuf-c and libc. Streaming: sha1_init, sha1_update any number of
 * times, sha1_final. */
#include "sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

/* One 64-byte block into the state. */
static void sha1_block(Sha1 *s, const uint8_t *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20)
            f = (b & c) | (~b & d), k = 0x5a827999;
        else if (i < 40)
            f = b ^ c ^ d, k = 0x6ed9eba1;
        else if (i < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
        else
            f = b ^ c ^ d, k = 0xca62c1d6;
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rol(b, 30), b = a, a = t;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d, s->h[4] += e;
}

void sha1_init(Sha1 *s)
{
    *s = (Sha1){.h = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}};
}

void sha1_update(Sha1 *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0) {
        size_t used = (size_t)(s->len % 64), take = 64 - used < n ? 64 - used : n;
        memcpy(s->buf + used, p, take);
        s->len += take;
        p += take;
        n -= take;
        if (s->len % 64 == 0)
            sha1_block(s, s->buf);
    }
}

/* Pads with 0x80, zeros and the length in bits (big-endian), then writes the digest. */
void sha1_final(Sha1 *s, uint8_t out[20])
{
    uint64_t bits = s->len * 8;
    uint8_t pad[72] = {0x80};
    size_t used = (size_t)(s->len % 64), npad = used < 56 ? 56 - used : 120 - used;
    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(s, pad, npad + 8);
    for (int i = 0; i < 20; i++)
        out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* The 40 lowercase hex digits of data's digest, into hex[41]. */
void sha1_hex(const void *data, size_t n, char hex[41])
{
    Sha1 s;
    uint8_t d[20];
    sha1_init(&s);
    sha1_update(&s, data, n);
    sha1_final(&s, d);
    sha1_to_hex(d, hex);
}

void sha1_to_hex(const uint8_t digest[20], char hex[41])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 20; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[40] = '\0';
}
