/*
 * replay_main.c - runs a libFuzzer target without libFuzzer: feeds every
 * file named on the command line to LLVMFuzzerTestOneInput once. Built
 * with the normal compiler (and under ASan+UBSan in build/san), so `make
 * test` replays each committed corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 2;
        }
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        size_t r;
        while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
            n += r;
            if (n == cap) {
                uint8_t *nb = realloc(buf, cap *= 2);
                if (!nb) {
                    free(buf);
                    buf = NULL;
                }
                buf = nb;
            }
        }
        fclose(f);
        if (!buf)
            return 2;
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        count++;
    }
    printf("replayed %d inputs\n", count);
    return 0;
}
