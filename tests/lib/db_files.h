/*
 * tests/lib/db_files.h - a results database's files, for the tests that
 * make one in their scratch folder: the file and the -wal and -shm SQLite
 * keeps beside it, removed together (a -wal left from an earlier case
 * would be replayed into the next file of that name).
 */
#ifndef MTC_TESTS_LIB_DB_FILES_H
#define MTC_TESTS_LIB_DB_FILES_H

/* Removes path, path-wal and path-shm, whichever exist. */
void test_db_remove(const char *path);

#endif
