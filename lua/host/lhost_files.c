/*
 * lhost_files.c - what a sandboxed scenario may read and write, and the
 * descriptors its loaders read from (lhost_load.c).
 *
 * The output folder is refused when it is a symbolic link, and opened once
 * (lhost__open_folder, or on the first write): every file of it is opened
 * relative to that descriptor, one component at a time with O_NOFOLLOW,
 * so nothing in it is resolved by name later.
 * Reading: regular files that resolve inside the scenario's directory or
 * the output folder, no dotfiles. Writing: only inside the output folder,
 * new files created exclusively and listed in the folder's manifest, existing files opened
 * only when listed there (under the folder's lock: runs of several
 * processes share the folder), and every byte counted against max_output on
 * its way to the disk (a FILE from fopencookie). The run's results
 * database lives beside the folder, never in it.
 */
#define _GNU_SOURCE     /* fopencookie: a FILE whose writes are counted */

#include "lhost_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <openssl/evp.h>

#include "mtc/error.h"

/* The folder's list of the files sandboxed runs created (a dotfile, so
 * scenarios can neither read nor write it). */
#define MANIFEST ".mtcsim-files"
#define MANIFEST_MAX ((size_t)LHOST_MAX_FILES * 256)

/* ---- paths ------------------------------------------------------------- */

/* 1 when resolved path p is dir or lies below it. */
static int below(const char *dir, const char *p)
{
    size_t n = strlen(dir);
    if (!*dir || strncmp(dir, p, n))
        return 0;
    return p[n] == 0 || p[n] == '/' || (n == 1 && dir[0] == '/');
}

/* base + "/" + path, or path when absolute. */
static int join(const char *base, const char *path, char *out, size_t cap)
{
    int n = path[0] == '/' ? snprintf(out, cap, "%s", path)
                           : snprintf(out, cap, "%s/%s", base, path);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* 1 when a component of rel (a relative path) starts with '.'. */
static int has_dot_component(const char *rel)
{
    for (const char *c = rel; *c; c++)
        if (*c == '.' && (c == rel || c[-1] == '/'))
            return 1;
    return 0;
}

/* Results of the resolvers: a refusal carries its reason in why. */

/*
 * Resolves `path` (relative ones against the scenario's directory) for
 * reading: it must resolve inside the scenario's directory or the output
 * folder, with no component below them starting with '.'. P_OK with the
 * resolved name in out; P_ERRNO (errno set) when it does not exist;
 * P_REFUSED.
 */
static int resolve_read(lhost *h, const char *path, char out[LHOST_PATH_MAX],
                        const char **why)
{
    char joined[LHOST_PATH_MAX];
    *why = "the sandbox allows reading only inside the scenario's directory "
           "and the output folder";
    if (join(h->scenario_dir, path, joined, sizeof joined)) {
        errno = ENAMETOOLONG;
        return P_ERRNO;
    }
    if (!realpath(joined, out)) {
        /* missing: say so only when it would have been inside, judged by
         * its nearest existing ancestor ('~/x' is a missing '~' below the
         * scenario's directory, not a way out) */
        int e = errno;
        if (e != ENOENT && e != ENOTDIR)
            return P_REFUSED;
        char *slash;
        while ((slash = strrchr(joined, '/')) != NULL) {
            *slash = 0;
            if (realpath(*joined ? joined : "/", out))
                break;
        }
        if (!slash || !(below(h->scenario_dir, out) || below(h->out_dir, out)))
            return P_REFUSED;
        errno = e;
        return P_ERRNO;
    }
    /* the folder first: it may lie inside the scenario's directory, and
     * its files are opened from its descriptor (open_read) */
    const char *base = below(h->out_dir, out)        ? h->out_dir
                       : below(h->scenario_dir, out) ? h->scenario_dir
                                                     : NULL;
    if (!base)
        return P_REFUSED;
    const char *rel = out + strlen(base);
    rel += *rel == '/';
    if (has_dot_component(rel)) {
        *why = "the sandbox never reads dotfiles";
        return P_REFUSED;
    }
    return P_OK;
}

/* Opens a resolved name for reading: regular files only (a FIFO would
 * block the run forever, a device could be endless). */
int lhost__open_regular(const char *res, int flags, const char **why)
{
    int fd = open(res, flags | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ELOOP ? (*why = "symbolic link", P_REFUSED) : P_ERRNO;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "the sandbox opens only regular files";
        return P_REFUSED;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static int open_in_folder(lhost *h, const char *rel, const char **why);

/* SHA-256 of what fd holds (read with pread: its offset stays), as hex.
 * 0, or -1 on a read or library error. */
static int hash_fd(int fd, char hex[65])
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned char buf[65536], md[32];
    unsigned len = 0;
    off_t at = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (ssize_t n; ok && (n = pread(fd, buf, sizeof buf, at)) != 0; at += n)
        ok = n > 0 && EVP_DigestUpdate(c, buf, (size_t)n);
    ok = ok && EVP_DigestFinal_ex(c, md, &len) && len == 32;
    EVP_MD_CTX_free(c);
    for (unsigned i = 0; ok && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return ok ? 0 : -1;
}

/* Records (rel, SHA-256 of fd) among the files the state loaded, once per
 * name and content. 0, or -1 with why (too many, or out of memory). */
static int note_loaded(lhost *h, const char *rel, int fd, const char **why)
{
    char sha[65];
    if (hash_fd(fd, sha)) {
        *why = "it cannot be read to be hashed";
        return -1;
    }
    for (size_t i = 0; i < h->nloaded; i++)
        if (!strcmp(h->loaded[i].rel, rel) && !strcmp(h->loaded[i].sha, sha))
            return 0;
    if (h->nloaded == LHOST_MAX_LOADED) {
        *why = "a run may load or read at most 1000 distinct files of its "
               "directory (each is hashed and recorded with the run)";
        return -1;
    }
    if (h->nloaded == h->caploaded) {
        size_t cap = h->caploaded ? 2 * h->caploaded : 8;
        struct lhost_loaded *p = realloc(h->loaded, cap * sizeof *p);
        if (!p) {
            *why = "out of memory";
            return -1;
        }
        h->loaded = p;
        h->caploaded = cap;
    }
    char *copy = strdup(rel);
    if (!copy) {
        *why = "out of memory";
        return -1;
    }
    h->loaded[h->nloaded].rel = copy;
    memcpy(h->loaded[h->nloaded].sha, sha, sizeof sha);
    h->nloaded++;
    return 0;
}

size_t lhost_loaded_files(const lhost *h,
                          void (*fn)(void *ctx, const char *name, const char *sha),
                          void *ctx)
{
    for (size_t i = 0; i < h->nloaded; i++)
        fn(ctx, h->loaded[i].rel, h->loaded[i].sha);
    return h->nloaded;
}

/* Opens a file the sandbox may read: from the output folder's handle, or
 * inside the scenario's directory, hashed and recorded there (what a
 * resume compares: the scenario is its file and every file it reads). */
int lhost__open_read(lua_State *L, lhost *h, const char *path, const char **why)
{
    char res[LHOST_PATH_MAX];
    int rc = resolve_read(h, path, res, why);
    if (rc != P_OK)
        return rc;
    /* the work of hashing, like any C work for the scenario (charged
     * before anything is open: the charge may raise) */
    struct stat pre;
    if (below(h->scenario_dir, res) && !stat(res, &pre))
        lhost_count(L, (uint64_t)pre.st_size / 64);
    if (h->out_dir[0] && below(h->out_dir, res)) {
        const char *rel = res + strlen(h->out_dir);
        return open_in_folder(h, rel + (*rel == '/'), why);
    }
    int fd = lhost__open_regular(res, O_RDONLY | O_NOFOLLOW, why);
    if (fd >= 0 && below(h->scenario_dir, res)) {
        const char *rel = res + strlen(h->scenario_dir);
        rel += *rel == '/';
        if (note_loaded(h, rel, fd, why)) {
            close(fd);
            return P_REFUSED;
        }
    }
    return fd;
}

/* ---- the output folder ---------------------------------------------------- */

int lhost_output_folder(const char *db_path, char *folder, size_t cap)
{
    size_t n = strlen(db_path);
    if (n > 3 && !strcmp(db_path + n - 3, ".db") && db_path[n - 4] != '/')
        n -= 3;
    int w = snprintf(folder, cap, "%.*s.files", (int)n, db_path);
    return w < 0 || (size_t)w >= cap ? MTC_ERR_ARG : MTC_OK;
}

/* Names a scenario may never write, even inside its folder: those of
 * SQLite databases and their journals (with the folder beside the
 * database they cannot be the results file, but a host that was given
 * the database's own directory must still not let a scenario plant a hot
 * journal that SQLite would replay into it). */
static int is_database_name(const char *name)
{
    static const char *const ends[] = {".db", ".sqlite", ".sqlite3",
                                       "-journal", "-wal", "-shm", NULL};
    size_t n = strlen(name);
    for (const char *const *e = ends; *e; e++) {
        size_t k = strlen(*e);
        if (n >= k && !strcmp(name + n - k, *e))
            return 1;
    }
    return 0;
}

/* Reads the manifest (NUL-terminated, malloc'ed; "" when absent). */
static char *manifest_read(int dirfd)
{
    int fd = openat(dirfd, MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return errno == ENOENT ? calloc(1, 1) : NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > MANIFEST_MAX) {
        close(fd);
        return NULL;
    }
    char *b = malloc((size_t)st.st_size + 1);
    ssize_t n = b ? read(fd, b, (size_t)st.st_size) : -1;
    close(fd);
    if (n < 0) {
        free(b);
        return NULL;
    }
    b[n] = 0;
    return b;
}

/* 1 when rel is a line of manifest m. */
static int manifest_has(const char *m, const char *rel)
{
    size_t n = strlen(rel);
    for (const char *l = m; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len == n && !memcmp(l, rel, n))
            return 1;
        if (!e)
            break;
        l = e + 1;
    }
    return 0;
}

static size_t manifest_lines(const char *m)
{
    size_t n = 0;
    for (; *m; m++)
        n += *m == '\n';
    return n;
}

static int manifest_add(int dirfd, const char *rel)
{
    int fd = openat(dirfd, MANIFEST,
                    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(rel);
    char line[LHOST_PATH_MAX + 1];
    memcpy(line, rel, n);
    line[n] = '\n';
    ssize_t w = write(fd, line, n + 1);     /* O_APPEND: one write, atomic */
    return close(fd) || w != (ssize_t)(n + 1) ? -1 : 0;
}

/* The bytes the folder's listed files hold (what the cap counts). */
static uint64_t manifest_usage(int dirfd, const char *m)
{
    uint64_t sum = 0;
    char rel[LHOST_PATH_MAX];
    for (const char *l = m; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        struct stat st;
        if (len < sizeof rel) {
            memcpy(rel, l, len);
            rel[len] = 0;
            if (!fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) &&
                S_ISREG(st.st_mode))
                sum += (uint64_t)st.st_size;
        }
        if (!e)
            break;
        l = e + 1;
    }
    return sum;
}

/* The folder's descriptor (the host's: not to be closed), the folder made
 * first when missing and create is set. -1 with why (or errno ENOENT when
 * it is missing and create is 0). */
static int folder_fd(lhost *h, int create, const char **why)
{
    if (h->folder_fd >= 0)
        return h->folder_fd;
    const char *name = strrchr(h->out_dir, '/');
    name = name ? name + 1 : h->out_dir;
    if (h->parent_fd < 0 || !*name) {
        *why = "there is no output folder";
        return -1;
    }
    if (create && mkdirat(h->parent_fd, name, 0777) && errno != EEXIST) {
        *why = "the output folder cannot be created";
        return -1;
    }
    int fd = openat(h->parent_fd, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && !create)
            return -1;
        *why = errno == ELOOP || errno == ENOTDIR
                   ? "the output folder is a symbolic link or not a directory"
                   : "the output folder cannot be opened";
        return -1;
    }
    h->folder_fd = fd;
    return fd;
}

/* Opens the directory holding the last component of rel (a relative path
 * below the folder fd), every component with O_NOFOLLOW; *last is that
 * component. A new descriptor, or -1 (errno; why set when a component is
 * a link or no directory). */
static int walk_to_parent(int folder, const char *rel, const char **last,
                          const char **why)
{
    const char *l = strrchr(rel, '/');
    *last = l ? l + 1 : rel;
    int dir = dup(folder);
    const char *c = rel;
    char comp[LHOST_PATH_MAX];
    while (dir >= 0 && c != *last) {
        const char *sl = strchr(c, '/');
        size_t n = (size_t)(sl - c);
        if (n >= sizeof comp) {
            close(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, c, n);
        comp[n] = 0;
        int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && (errno == ELOOP || errno == ENOTDIR))
            *why = "the sandbox never opens a file of the output folder through "
                   "a symbolic link";
        int e = errno;
        close(dir);
        errno = e;
        dir = next;
        c = sl + 1;
    }
    return dir;
}

/* Opens rel (below the output folder, resolved: no link in it when it was
 * resolved) for reading from the folder's descriptor, never through a
 * link that replaced a component since. A descriptor, P_ERRNO or
 * P_REFUSED (why). */
static int open_in_folder(lhost *h, const char *rel, const char **why)
{
    const char *fwhy = NULL, *last;
    int folder = folder_fd(h, 0, &fwhy);
    if (folder < 0) {
        if (!fwhy)
            return P_ERRNO;     /* not made yet: ENOENT */
        *why = fwhy;
        return P_REFUSED;
    }
    if (!*rel) {
        *why = "the sandbox opens only regular files";
        return P_REFUSED;
    }
    const char *wwhy = NULL;
    int dir = walk_to_parent(folder, rel, &last, &wwhy);
    if (dir < 0) {
        if (wwhy)
            *why = wwhy;
        return wwhy ? P_REFUSED : P_ERRNO;
    }
    int fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int e = errno;
    close(dir);
    if (fd < 0) {
        errno = e;
        if (e == ELOOP) {
            *why = "the sandbox never opens a file of the output folder through "
                   "a symbolic link";
            return P_REFUSED;
        }
        return P_ERRNO;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "the sandbox opens only regular files";
        return P_REFUSED;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int lhost__open_folder(lhost *h, const char *cfg_dir, char *err, size_t errlen)
{
    char tmp[LHOST_PATH_MAX], parent[LHOST_PATH_MAX];
    size_t n = (size_t)snprintf(tmp, sizeof tmp, "%s", cfg_dir);
    if (n >= sizeof tmp) {
        snprintf(err, errlen, "output folder %s: %s", cfg_dir, strerror(ENAMETOOLONG));
        return -1;
    }
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    char *slash = strrchr(tmp, '/');
    const char *name = slash ? slash + 1 : tmp, *pdir = ".";
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(err, errlen, "output folder %s: not a folder name", cfg_dir);
        return -1;
    }
    if (slash) {
        *slash = 0;
        pdir = *tmp ? tmp : "/";
    }
    /* the parent is the directory the user named (--out): resolved once */
    if (!realpath(pdir, parent) ||
        snprintf(h->out_dir, sizeof h->out_dir, "%s/%s",
                 strcmp(parent, "/") ? parent : "", name) >= (int)sizeof h->out_dir) {
        snprintf(err, errlen, "output folder %s: %s", cfg_dir, strerror(errno));
        h->out_dir[0] = 0;
        return -1;
    }
    h->parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (h->parent_fd < 0) {
        snprintf(err, errlen, "output folder %s: %s: %s", cfg_dir, parent,
                 strerror(errno));
        return -1;
    }
    /* the folder itself: never a link (an unpacked archive's
     * NAME.files -> ~/.ssh would hand the scenario that directory) */
    struct stat st;
    if (fstatat(h->parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "the output folder %s is %s: refused (it must be a "
                                  "directory of its own; move it away or choose "
                                  "another --out)", h->out_dir,
                     S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
            return -1;
        }
        const char *why = NULL;
        if (folder_fd(h, 0, &why) < 0) {
            snprintf(err, errlen, "the output folder %s: %s", h->out_dir,
                     why ? why : strerror(errno));
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "output folder %s: %s", h->out_dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* A file open for writing: every byte written is charged to the folder's
 * account (lhost_account) against max_output. */
typedef struct out_file {
    lhost *h;
    int fd;
} out_file;

static ssize_t out_read(void *c, char *buf, size_t n)
{
    return read(((out_file *)c)->fd, buf, n);
}

/* Takes n bytes from the account a, capped at max (0: none): 1, or 0 when
 * they do not fit. Atomic: -j workers share the account. */
static int account_take(lhost_account *a, uint64_t n, uint64_t max)
{
    uint64_t cur = __atomic_load_n(&a->used, __ATOMIC_RELAXED);
    do {
        if (max && (n > max || cur > max - n))
            return 0;
    } while (!__atomic_compare_exchange_n(&a->used, &cur, cur + n, 0,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return 1;
}

static ssize_t out_write(void *c, const char *buf, size_t n)
{
    out_file *o = c;
    if (!account_take(o->h->account, n, o->h->max_output)) {
        errno = EFBIG;      /* "File too large": the folder is full */
        return 0;
    }
    ssize_t w = write(o->fd, buf, n);
    /* bytes not written were not used; bytes written stay charged
     * whatever happens to the file later */
    uint64_t unused = w > 0 ? n - (size_t)w : n;
    if (unused)
        __atomic_fetch_sub(&o->h->account->used, unused, __ATOMIC_RELAXED);
    return w > 0 ? w : 0;
}

static int out_seek(void *c, off64_t *off, int whence)
{
    off_t r = lseek(((out_file *)c)->fd, (off_t)*off, whence);
    if (r < 0)
        return -1;
    *off = r;
    return 0;
}

static int out_close(void *c)
{
    out_file *o = c;
    int rc = close(o->fd);
    free(o);
    return rc;
}

/*
 * Opens path (relative to the output folder, or absolute inside it) for
 * writing with Lua mode `mode`. Every component is opened with
 * O_NOFOLLOW from the folder's descriptor, so no symbolic link is ever
 * followed whatever the path says; a new file is created exclusively and
 * listed in the manifest; an existing one is opened only if listed.
 * Returns a FILE, or NULL with why (refused) or errno set.
 */
static FILE *open_write(lhost *h, const char *path, const char *mode,
                        const char **why)
{
    *why = NULL;
    if (!h->out_dir[0]) {
        *why = "the sandbox allows writes only in the run's output folder "
               "(beside --out), and there is none";
        return NULL;
    }
    const char *rel = path;
    if (path[0] == '/') {
        size_t n = strlen(h->out_dir);
        if (strncmp(path, h->out_dir, n) || path[n] != '/') {
            *why = "the sandbox allows writes only inside the run's output "
                   "folder";
            return NULL;
        }
        rel = path + n + 1;
    }
    size_t rl = strlen(rel);
    if (rl == 0 || rl >= LHOST_PATH_MAX || rel[rl - 1] == '/') {
        *why = "not a file name";
        return NULL;
    }
    for (const char *c = rel; *c; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f || (*c == '/' && c[1] == '/')) {
            *why = "control characters or empty components in the name";
            return NULL;
        }
        if (*c == '.' && (c == rel || c[-1] == '/')) {
            *why = "the sandbox never writes dotfiles (nor '.' or '..')";
            return NULL;
        }
    }
    const char *last = strrchr(rel, '/');
    last = last ? last + 1 : rel;
    if (is_database_name(last)) {
        *why = "the sandbox never writes a database or journal file "
               "(*.db, *.sqlite, *-journal, *-wal, *-shm)";
        return NULL;
    }
    int flags = (strchr(mode, '+') ? O_RDWR : O_WRONLY) | O_NOFOLLOW | O_CLOEXEC;
    if (mode[0] == 'a')
        flags |= O_APPEND;

    int folder = folder_fd(h, 1, why);
    if (folder < 0)
        return NULL;
    /* One writer of the manifest at a time (runs of other processes
     * write into the same folder): a file created by another run is
     * listed before this one looks for it, and the account is measured
     * once. Released at the end of this function, or by the kernel. */
    while (flock(folder, LOCK_EX) && errno == EINTR)
        ;
    char *man = manifest_read(folder);
    if (!man) {
        flock(folder, LOCK_UN);
        *why = "the output folder's manifest is unreadable";
        return NULL;
    }
    lhost_account *acc = h->account;
    if (!__atomic_load_n(&acc->measured, __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(&acc->used, manifest_usage(folder, man), __ATOMIC_RELAXED);
        __atomic_store_n(&acc->measured, 1, __ATOMIC_RELEASE);
    }
    /* walk the directories below the folder, never through a link */
    const char *wwhy = NULL;
    int dir = walk_to_parent(folder, rel, &last, &wwhy);
    if (dir < 0 && wwhy)
        *why = "the sandbox never writes through a symbolic link";
    FILE *f = NULL;
    int fd = -1, created = 0;
    if (dir < 0)
        goto done;
    if (mode[0] != 'r') {   /* w, a, w+, a+: may create */
        fd = openat(dir, last, flags | O_CREAT | O_EXCL, 0666);
        created = fd >= 0;
        if (created && (manifest_lines(man) >= LHOST_MAX_FILES ||
                        manifest_add(folder, rel))) {
            close(fd);
            unlinkat(dir, last, 0);
            fd = -1;
            *why = "the output folder lists too many files, or its manifest "
                   "cannot be written";
            goto done;
        }
    }
    if (!created) {
        if (mode[0] != 'r' && errno != EEXIST) {
            if (errno == ELOOP)
                *why = "the sandbox never writes through a symbolic link";
            goto done;
        }
        struct stat st;
        if (fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW))
            goto done;      /* r+ of a missing file: ENOENT */
        if (S_ISLNK(st.st_mode)) {
            *why = "the sandbox never writes through a symbolic link";
            goto done;
        }
        if (!manifest_has(man, rel)) {
            *why = "it exists and no sandboxed run created it: the sandbox "
                   "never overwrites a file it did not create";
            goto done;
        }
        fd = openat(dir, last, flags | O_NONBLOCK);
        if (fd < 0)
            goto done;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
            *why = "not a regular file with a single link";
            goto done;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        /* truncated, its bytes stay charged: they were written */
        if (mode[0] == 'w' && ftruncate(fd, 0))
            goto done;
    }
    out_file *o = malloc(sizeof *o);
    if (!o)
        goto done;
    *o = (out_file){h, fd};
    cookie_io_functions_t io = {out_read, out_write, out_seek, out_close};
    f = fopencookie(o, mode, io);
    if (!f)
        free(o);
    else
        fd = -1;    /* owned by f */
done:;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (dir >= 0)
        close(dir);
    flock(folder, LOCK_UN);
    free(man);
    errno = e;
    return f;
}

/* ---- sandboxed functions ------------------------------------------------ */

static int sb_fclose(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    errno = 0;
    return luaL_fileresult(L, fclose(p->f) == 0, NULL);
}

/* A file handle of the io library over f (whose methods then work). */
static void push_stream(lua_State *L, FILE *f)
{
    luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->closef = NULL;       /* "closed" until f is in place */
    luaL_setmetatable(L, LUA_FILEHANDLE);
    p->f = f;
    p->closef = sb_fclose;
}

/* Lua's own mode check: [rwa]%+?b* */
static int valid_mode(const char *m)
{
    if (!*m || !strchr("rwa", *m++))
        return 0;
    if (*m == '+')
        m++;
    return strspn(m, "b") == strlen(m);
}

/* io.open(path [, mode]): reads inside the scenario's directory or the
 * output folder (relative names: the scenario's directory), writes only
 * inside the output folder (relative names: the folder). */
int lhost__io_open(lua_State *L)
{
    lhost *h = lhost_of(L);
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    luaL_argcheck(L, valid_mode(mode), 2, "invalid mode");
    int write = mode[0] != 'r' || strchr(mode, '+');
    const char *why = NULL;
    FILE *f = NULL;
    errno = 0;
    if (write) {
        f = open_write(h, path, mode, &why);
    } else {
        const char *rwhy;
        int fd = lhost__open_read(L, h, path, &rwhy);
        if (fd == P_REFUSED)
            why = rwhy;
        else if (fd >= 0 && !(f = fdopen(fd, mode)))
            close(fd);
    }
    if (!f && why)
        return luaL_error(L, "io.open: %s '%s' refused: %s",
                          write ? "writing" : "reading", path, why);
    if (!f) {
        int e = errno ? errno : ENOENT;
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s%s", path, strerror(e),
                        path[0] == '~' ? " ('~' is not expanded: names are taken in "
                        "the scenario's directory, or for writing in the output "
                        "folder)" : "");
        lua_pushinteger(L, e);
        return 3;
    }
    push_stream(L, f);
    return 1;
}
