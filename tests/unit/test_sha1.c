/* test_sha1.c — compiler/sha1.c against the FIPS 180 example digests, and streaming in odd
 * pieces against one call. */
#include "../../compiler/sha1.c"

#include <stdio.h>
#include <stdlib.h>

static int failures;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want)) {
        printf("FAIL %s: %s, want %s\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    char hex[41];
    sha1_hex("", 0, hex);
    expect("empty", hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    sha1_hex("abc", 3, hex);
    expect("abc", hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 448 bits */
    sha1_hex(two, strlen(two), hex);
    expect("two blocks", hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    /* a million 'a', fed in pieces of 1..97 bytes */
    static char a[1000000];
    memset(a, 'a', sizeof a);
    Sha1 s;
    uint8_t d[20];
    sha1_init(&s);
    for (size_t at = 0, step = 1; at < sizeof a; at += step, step = step % 97 + 1)
        sha1_update(&s, a + at, at + step <= sizeof a ? step : sizeof a - at);
    sha1_final(&s, d);
    sha1_to_hex(d, hex);
    expect("million a", hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    /* 55, 56 and 64 bytes: the padding spills into a second block at 56 */
    sha1_hex(a, 55, hex);
    expect("55 a", hex, "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    sha1_hex(a, 56, hex);
    expect("56 a", hex, "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    sha1_hex(a, 64, hex);
    expect("64 a", hex, "0098ba824b5c16427bd7a1122a5a442a25ec644d");
    if (failures)
        return 1;
    printf("ok: sha1\n");
    return 0;
}
