/*
 * tests/lib/seed_file.c - a fuzz seed as a file (seed_file.h).
 */
#include <stdio.h>

#include "seed_file.h"

int seed_file_write(const char *dir, const char *name, const uint8_t *b,
                    size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(b, 1, n, f) != n;
    return fclose(f) != 0 || bad ? -1 : 0;
}
