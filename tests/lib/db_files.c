/*
 * tests/lib/db_files.c - a results database's files removed together
 * (contract in db_files.h).
 */
#include "db_files.h"

#include <stdio.h>
#include <unistd.h>

void test_db_remove(const char *path)
{
    char side[1100];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}
