/*
 * test_results_harden.c - the results file against damage and contention
 *: a database corrupt past its header is refused before
 * anything is written and left byte-for-byte unchanged; several processes
 * creating the same new file all succeed (one creates, the others append);
 * a file in a directory the reader cannot write is readable (no -shm); a
 * file read immutable does not change under its reader, and readers
 * starting while writers come and go read whole files.
 */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "lib/toy_world.h"

static char tmpdir[256];

/* A fresh path in this test's directory (no leftover -wal/-shm). */
static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/mtc_rharden_XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
    }
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    const char *sfx[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s%s", buf[k], sfx[i]);
        unlink(p);
    }
    return buf[k];
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = INT64_MIN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return v;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* 1 when every page of the database passes quick_check. */
static int pages_sound(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int ok = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) ==
            SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        ok = t && !strcmp((const char *)t, "ok");
    }
    sqlite3_finalize(st);
    return ok;
}

static int exists(const char *path, const char *suffix)
{
    char p[800];
    struct stat sb;
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return stat(p, &sb) == 0;
}

/* A closed results database with a small sweep in it (many pages). */
static int make_db(const char *path)
{
    sim_results *db;
    int64_t exp;
    int rc = sim_results_open(path, SIM_RESULTS_CREATE, &db, NULL, 0);
    if (rc)
        return rc;
    rc = toy_record_sweep(db, 2, 2, &exp);
    int rc2 = sim_results_close(db);
    return rc ? rc : rc2;
}

/* ---- corrupt past the header ---- */

TEST(corrupt_past_header_refused)
{
    const char *path = tmp_path("corrupt.db");
    ASSERT_OK(make_db(path));
    ASSERT_FALSE(exists(path, "-wal"));     /* checkpointed on close */
    sqlite3 *f;
    ASSERT_EQ(sqlite3_open(path, &f), SQLITE_OK);
    int64_t psize = q_int(f, "PRAGMA page_size");
    int64_t pages = q_int(f, "PRAGMA page_count");
    sqlite3_close(f);
    ASSERT_TRUE(pages > 8);
    /* garbage over the second half of the file: page 1 (header, schema)
     * intact, so the identity checks all pass */
    int fd = open(path, O_WRONLY);
    ASSERT_TRUE(fd >= 0);
    unsigned char junk[65536];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 131u + 7u);
    for (int64_t p = pages / 2; p < pages; p++)
        ASSERT_EQ(pwrite(fd, junk, (size_t)psize, (off_t)(p * psize)), psize);
    close(fd);
    char before[65], after[65];
    ASSERT_OK(sim_sha256_file_hex(path, before));
    for (int mode = SIM_RESULTS_APPEND; mode <= SIM_RESULTS_CREATE; mode++) {
        sim_results *db = NULL;
        char err[512] = "";
        int rc = sim_results_open(path, mode, &db, err, sizeof err);
        if (rc == MTC_OK)
            sim_results_close(db);
        ASSERT_EQ(rc, SIM_ERR_DB_NOT_SQLITE);
        ASSERT_TRUE(db == NULL);
        ASSERT_TRUE(strstr(err, "corrupt") != NULL);
        ASSERT_OK(sim_sha256_file_hex(path, after));
        ASSERT_STR_EQ(before, after);
    }
}

/* ---- several processes create the same new file ---- */

/* The child: waits for the start signal, then does what `mtcsim run`
 * does with a new --out file. Exit 0 on success. */
static void create_child(const char *path, int go)
{
    char c;
    if (read(go, &c, 1) != 1)
        _exit(4);
    sim_results *db = NULL;
    char err[512];
    int64_t exp;
    sim_experiment_info ei = {"race", NULL, 1, 1};
    int rc = sim_results_open(path, SIM_RESULTS_CREATE, &db, err, sizeof err);
    if (rc) {
        fprintf(stderr, "child %d: open: %s\n", (int)getpid(), err);
        _exit(1);
    }
    rc = sim_results_experiment_begin(db, &ei, &exp);
    if (rc)
        fprintf(stderr, "child %d: experiment: %s\n", (int)getpid(),
                sim_results_errmsg(db));
    if (sim_results_close(db) != MTC_OK)
        rc = 1;
    _exit(rc ? 2 : 0);
}

TEST(concurrent_create_same_file)
{
    enum { KIDS = 6, TRIALS = 12 };
    for (int trial = 0; trial < TRIALS; trial++) {
        const char *path = tmp_path("race.db");
        int p[2];
        ASSERT_OK(pipe(p));
        pid_t kids[KIDS];
        for (int k = 0; k < KIDS; k++) {
            kids[k] = fork();
            ASSERT_TRUE(kids[k] >= 0);
            if (kids[k] == 0) {
                close(p[1]);
                create_child(path, p[0]);
            }
        }
        close(p[0]);
        char go[KIDS];
        memset(go, 'g', sizeof go);
        ASSERT_EQ(write(p[1], go, sizeof go), KIDS);   /* all start at once */
        close(p[1]);
        int ok = 0;
        for (int k = 0; k < KIDS; k++) {
            int st;
            waitpid(kids[k], &st, 0);
            ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        }
        ASSERT_EQ(ok, KIDS);
        sim_results *db;
        ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &db, NULL, 0));
        int64_t n = q_int(sim_results_sqlite(db), "SELECT count(*) FROM experiment");
        sim_results_close(db);
        ASSERT_EQ(n, KIDS);
    }
}

/* ---- readers while writers come and go ---- */

/* The child: appends an experiment and closes, again and again. Each
 * close is the last connection's, so SQLite copies the log into the
 * database file and removes -wal and -shm: a reader starting between two
 * writers finds nothing beside the file. Exit 0 on success. */
static void append_child(const char *path, int rounds)
{
    /* a long command line: each close copies many pages into the file,
     * a window a reader may fall into */
    static char line[256 * 1024];
    memset(line, 'x', sizeof line - 1);
    for (int i = 0; i < rounds; i++) {
        sim_results *db = NULL;
        char err[512];
        int64_t exp;
        sim_experiment_info ei = {"churn", line, 1, 1};
        if (sim_results_open(path, SIM_RESULTS_APPEND, &db, err, sizeof err)) {
            fprintf(stderr, "writer %d: open: %s\n", (int)getpid(), err);
            _exit(1);
        }
        int rc = sim_results_experiment_begin(db, &ei, &exp);
        if (sim_results_close(db) != MTC_OK || rc)
            _exit(2);
    }
    _exit(0);
}

/* The child: opens the file to read, again and again, and checks that
 * what it reads is whole: every open succeeds, the experiments never
 * decrease, and every page is sound. */
static void read_child(const char *path, int rounds)
{
    int64_t last = 0;
    for (int i = 0; i < rounds; i++) {
        sim_results *db = NULL;
        char err[512];
        if (sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err)) {
            fprintf(stderr, "reader %d: open: %s\n", (int)getpid(), err);
            _exit(1);
        }
        sqlite3 *q = sim_results_sqlite(db);
        int64_t n = q_int(q, "SELECT count(*) FROM experiment");
        int sound = pages_sound(q);
        sim_results_close(db);
        if (n < last || !sound) {
            fprintf(stderr, "reader %d: %lld experiments after %lld, %s\n",
                    (int)getpid(), (long long)n, (long long)last,
                    sound ? "sound" : "pages unsound");
            _exit(2);
        }
        last = n;
    }
    _exit(0);
}

/* The child: appends one experiment and closes (the last connection).
 * Exit 0 on success. */
static void append_once(const char *path)
{
    sim_results *db = NULL;
    int64_t exp;
    sim_experiment_info ei = {"later", NULL, 1, 1};
    if (sim_results_open(path, SIM_RESULTS_APPEND, &db, NULL, 0))
        _exit(1);
    int rc = sim_results_experiment_begin(db, &ei, &exp);
    _exit(sim_results_close(db) != MTC_OK || rc ? 2 : 0);
}

static int run_child_append(const char *path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        append_once(path);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A file read immutable does not change under its reader: a writer that
 * starts meanwhile leaves its log beside the file, and the next writer
 * after the reader copies it in. */
TEST(writer_leaves_immutable_reader_alone)
{
    const char *path = tmp_path("still.db");
    ASSERT_OK(make_db(path));
    ASSERT_FALSE(exists(path, "-wal"));
    sim_results *rd;
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &rd, NULL, 0));
    ASSERT_FALSE(exists(path, "-shm"));         /* read immutable */
    char before[65], after[65];
    ASSERT_OK(sim_sha256_file_hex(path, before));
    ASSERT_EQ(run_child_append(path), 0);
    ASSERT_OK(sim_sha256_file_hex(path, after));
    ASSERT_STR_EQ(before, after);               /* the main file as read */
    ASSERT_TRUE(exists(path, "-wal"));          /* the commit is in the log */
    ASSERT_EQ(q_int(sim_results_sqlite(rd), "SELECT count(*) FROM experiment"), 1);
    sim_results_close(rd);
    /* a reader now reads the log too (a writer's log is beside the file) */
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &rd, NULL, 0));
    ASSERT_EQ(q_int(sim_results_sqlite(rd), "SELECT count(*) FROM experiment"), 2);
    sim_results_close(rd);
    /* the next writer alone copies both commits in and removes the log */
    ASSERT_EQ(run_child_append(path), 0);
    ASSERT_FALSE(exists(path, "-wal"));
    ASSERT_FALSE(exists(path, "-shm"));
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &rd, NULL, 0));
    ASSERT_EQ(q_int(sim_results_sqlite(rd), "SELECT count(*) FROM experiment"), 3);
    ASSERT_TRUE(pages_sound(sim_results_sqlite(rd)));
    sim_results_close(rd);
}

TEST(readers_while_writers_come_and_go)
{
    enum { WRITERS = 3, READERS = 3 };
    /* 20 rounds: the deterministic case above catches the defect; this one
     * is the stress test around it, kept to about 12 s of CPU */
    int rounds = (int)(20 * test_scale()) + 5;
    const char *path = tmp_path("churn.db");
    ASSERT_OK(make_db(path));
    pid_t kids[WRITERS + READERS];
    for (int k = 0; k < WRITERS + READERS; k++) {
        kids[k] = fork();
        ASSERT_TRUE(kids[k] >= 0);
        if (kids[k] == 0) {
            if (k < WRITERS)
                append_child(path, rounds);
            read_child(path, 3 * rounds);
        }
    }
    int ok = 0;
    for (int k = 0; k < WRITERS + READERS; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    ASSERT_EQ(ok, WRITERS + READERS);
    sim_results *db;
    ASSERT_OK(sim_results_open(path, SIM_RESULTS_READ, &db, NULL, 0));
    int64_t n = q_int(sim_results_sqlite(db), "SELECT count(*) FROM experiment");
    sim_results_close(db);
    ASSERT_EQ(n, 1 + WRITERS * rounds);
}

/* ---- a directory the reader cannot write ---- */

/* The child: drops the right to write the directory (another user when
 * run as root, else the directory's mode), then reads the database.
 * Exit 0 when it read the experiment. */
static void reader_child(const char *path)
{
    if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
        _exit(5);
    sim_results *db = NULL;
    char err[512];
    if (sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err)) {
        fprintf(stderr, "read-only reader: %s\n", err);
        _exit(1);
    }
    int64_t n = q_int(sim_results_sqlite(db), "SELECT count(*) FROM run");
    sim_results_close(db);
    if (n != 4) {
        fprintf(stderr, "read-only reader: %lld runs, expected 4\n",
                (long long)n);
        _exit(2);
    }
    _exit(0);
}

TEST(read_only_directory)
{
    char dir[600];
    tmp_path("x");
    snprintf(dir, sizeof dir, "%s/ro", tmpdir);
    mkdir(dir, 0755);
    char path[700];
    snprintf(path, sizeof path, "%.600s/results.db", dir);
    unlink(path);
    ASSERT_OK(make_db(path));
    ASSERT_FALSE(exists(path, "-shm"));
    char before[65], after[65];
    ASSERT_OK(sim_sha256_file_hex(path, before));
    /* readable by everyone, writable by no one but root */
    ASSERT_OK(chmod(tmpdir, 0755));
    ASSERT_OK(chmod(path, 0644));
    ASSERT_OK(chmod(dir, 0555));
    pid_t pid = fork();
    ASSERT_TRUE(pid >= 0);
    if (pid == 0)
        reader_child(path);
    int st;
    waitpid(pid, &st, 0);
    chmod(dir, 0755);
    ASSERT_TRUE(WIFEXITED(st));
    ASSERT_EQ(WEXITSTATUS(st), 0);
    ASSERT_FALSE(exists(path, "-shm"));
    ASSERT_FALSE(exists(path, "-wal"));
    ASSERT_OK(sim_sha256_file_hex(path, after));
    ASSERT_STR_EQ(before, after);
}

static const test_case tests[] = {
    {"corrupt_past_header_refused", corrupt_past_header_refused},
    {"concurrent_create_same_file", concurrent_create_same_file},
    {"writer_leaves_immutable_reader_alone", writer_leaves_immutable_reader_alone},
    {"readers_while_writers_come_and_go", readers_while_writers_come_and_go},
    {"read_only_directory", read_only_directory},
};

/* Removes dir and what is in it (one level of subdirectories). */
static void rm_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[800];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0 && depth > 0)
            rm_tree(p, depth - 1);
    }
    closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    int rc = test_run_all(tests, sizeof tests / sizeof tests[0], argc, argv);
    if (tmpdir[0])
        rm_tree(tmpdir, 1);
    return rc;
}
