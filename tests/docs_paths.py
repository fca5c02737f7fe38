#!/usr/bin/env python3
"""Prose agrees with the tree (run by tests/sh_docs_paths.sh, from the root).

Four checks, each printing one line per disagreement:
 1. every repository path named in docs/*.md, a README.md or a comment or
    string of a tracked source file exists (a glob matches a file; an
    include-style `sim/x.h` or `mtc/x.h` resolves through the include
    folders; relative paths resolve from the naming file's folder);
 2. every bare file name (`web_site.c`, `DESIGN.md`) that docs/*.md or a
    README.md names, and every bare *.md a source file names, exists;
 3. a tour README (a table whose first column is `file` or `folder`) names
    every tracked file of its folder that no deeper README covers;
 4. every function (`name()`) and identifier (`snake_case`, `UPPER_CASE`)
    that docs/*.md or a README.md names in backticks occurs in a tracked
    source file, so a rename that leaves the prose behind fails here
    (docs/architecture.md's walk-throughs name the functions and files
    they touch, and it and mtc-core/README.md must exist);
 5. the layer table of docs/architecture.md (`| folder | what | uses |`)
    is what the code includes: every C file belongs to a row, and each
    quoted #include resolves to a file of its own row or of a row the
    `uses` cell names, each library header (OpenSSL, GSL, SQLite, Lua,
    MPI) to a library the cell names (`anything` allows all), and a row
    uses only rows above it;
 6. the top README.md names every document in docs/ and every top-level
    folder of the tree.
"""
import fnmatch, os, re, subprocess, sys

TOP = ['.ci', 'mtc-core', 'sim', 'lua', 'analysis', 'validate', 'tests',
       'docs', 'mk', 'scenarios']
SRC_EXT = ('.c', '.h', '.cc', '.lua', '.sh', '.gp', '.mk', '.py', '.mjs')
BARE_EXT = SRC_EXT + ('.md',)
# Bare names prose and code may give that are not ours: each with its reason.
NOT_OURS = {
    'lua.c': "Lua's own interpreter, the host's model",
    'liolib.c': "Lua's io library",
    'lbaselib.c': "Lua's base library",
    'lstrlib.c': "Lua's string library",
    'ltablib.c': "Lua's table library",
    'script_lua.c': "Redis's Lua scripting, the sandbox's model",
    'report.md': 'written by build/validate into results/validation/',
    'facts.md': 'the name tests/sh_scenarios.sh forbids a scenario to cite',
}
# Folders the build and the runs write into: never in the tree.
GENERATED = ('build/', 'results/')

def tree_files():
    """The tree's files: git's list (tracked and new, ignored ones left
    out), or outside a checkout every file but the build's and runs'."""
    try:
        return subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'],
                              capture_output=True, text=True,
                              check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, sub, names in os.walk('.'):
            sub[:] = [x for x in sub if not (d == '.' and x in
                      ('.git', 'build', 'results', 'out', 'node_modules'))]
            out += [os.path.relpath(os.path.join(d, n)) for n in names
                    if not re.search(r'\.db(-wal|-shm)?$', n)]
        return out


files = tree_files()
files = [f for f in files if os.path.exists(f)]
fileset = set(files)
dirs = set()
for f in files:
    d = os.path.dirname(f)
    while d:
        dirs.add(d)
        d = os.path.dirname(d)
basenames = {}
for f in files:
    basenames.setdefault(os.path.basename(f), []).append(f)
include_dirs = ['mtc-core/include'] + sorted(
    d for d in dirs if re.fullmatch(r'sim/[^/]+/include', d))

problems = []


def expand(tok):
    """`x.h/.c` names two files; `x.[ch]` is a glob fnmatch understands."""
    m = re.fullmatch(r'(.*)\.(\w+)/\.(\w+)', tok)
    if m:
        return [m.group(1) + '.' + m.group(2), m.group(1) + '.' + m.group(3)]
    return [tok]


def exists(path, base):
    """Does `path` (named in a file of folder `base`) exist in the tree?"""
    cands = [os.path.normpath(os.path.join(base, path)) if base else path, path]
    if path.startswith('mtc/') or path.startswith('sim/'):
        cands += [i + '/' + path for i in include_dirs]
    for c in cands:
        c = c.rstrip('/')
        if any(ch in c for ch in '*?['):
            if any(fnmatch.fnmatchcase(f, c) for f in files):
                return True
        elif c in fileset or c in dirs:
            return True
    return False


PATH_RE = re.compile(
    r'(?<![\w./$%@-])((?:' + '|'.join(re.escape(t) for t in TOP + ['mtc']) +
    r')/[\w.*\[\]/+-]*)')
REL_RE = re.compile(r'`([\w.*\[\]+-]+/[\w.*\[\]/+-]*\.(?:' +
                    '|'.join(e[1:] for e in SRC_EXT + ('.md',)) + r'))`')
BARE_RE = re.compile(r'(?<![\w./$%@<-])([\w*\[\]-]+(?:\.\w+)?\.(?:' +
                     '|'.join(e[1:] for e in BARE_EXT) + r'))(?![\w/-])')


def clean(tok):
    tok = tok.rstrip('.,:;)')
    if tok.endswith('.') or tok.endswith('-'):
        tok = tok[:-1]
    return tok


def check_paths(f, text, readme):
    base = os.path.dirname(f)
    toks = set()
    for m in PATH_RE.finditer(text):
        # a path that a make or shell variable completes is a pattern
        if text[m.end():m.end() + 1] in ('$', '%', '<', '{'):
            continue
        toks.add(clean(m.group(1)))
    if readme:
        toks |= set(clean(m.group(1)) for m in REL_RE.finditer(text))
    for tok in sorted(toks):
        if tok in ('', '/') or re.search(r'[<>{}$%]', tok) or tok.startswith(GENERATED):
            continue
        if any(re.fullmatch(r'[A-Z][A-Z0-9_]*(\.\w+)?', c) for c in tok.split('/')):
            continue   # NAME.lua, DIR/: a placeholder
        for t in expand(tok):
            if not exists(t, base) and not (
                    '.' not in os.path.basename(t)
                    and (exists(t + '.c', base) or exists(t + '.h', base))):
                problems.append('%s: names %s, which is not in the tree' % (f, t))


def check_bare(f, text, exts):
    base = os.path.dirname(f)
    for m in BARE_RE.finditer(text):
        tok = m.group(1)
        stem = tok.split('.')[0]
        if not tok.endswith(exts) or tok in NOT_OURS or len(stem) < 2 or not tok[0].isalpha() \
                or (re.fullmatch(r'[A-Z][A-Z0-9_]*', stem) and not tok.endswith('.md')):
            continue
        for t in expand(tok):
            if any(ch in t for ch in '*?['):
                ok = any(fnmatch.fnmatchcase(os.path.basename(x), t) for x in files)
            else:
                ok = t in basenames or exists(t, base)
            if not ok:
                problems.append('%s: names %s, which is not in the tree' % (f, t))


def names_in(text):
    """What a README names: tokens that may be paths, files or globs."""
    out = set()
    for tok in re.split(r'[\s`|(),;:"]+', text):
        tok = clean(tok)
        if '.' in tok or '/' in tok:
            out.update(expand(tok))
    return out


def covered(rel, named):
    b = os.path.basename(rel)
    for n in named:
        n = n.rstrip('/')
        if n in (rel, b) or fnmatch.fnmatchcase(rel, n) or fnmatch.fnmatchcase(b, n):
            return True
    return False


def check_tour(readme, text):
    head = re.search(r'^\|\s*(file|folder)\s*\|', text, re.M | re.I)
    if not head:
        return
    base = os.path.dirname(readme)
    readmes = [os.path.dirname(r) for r in files
               if r.endswith('README.md') and r != readme
               and os.path.dirname(r).startswith(base + '/')]
    named = names_in(text)
    for f in files:
        if not f.startswith(base + '/') or f == readme:
            continue
        if any(f.startswith(d + '/') for d in readmes):
            continue
        if not covered(os.path.relpath(f, base), named):
            problems.append('%s: does not name %s' % (readme, f))


def check_idents(doc, text, corpus):
    for m in re.finditer(r'`([^`\n]+)`', text):
        tok = m.group(1)
        fm = re.fullmatch(r'([A-Za-z_]\w*)\(\)', tok)
        if fm:
            name = fm.group(1)
        elif re.fullmatch(r'[A-Za-z]\w*_\w+', tok) or re.fullmatch(r'[A-Z][A-Z0-9_]+', tok):
            name = tok
        else:
            continue
        if name not in corpus:
            problems.append('%s: names `%s`, which no source file has' % (doc, tok))


def comments(f, text):
    """The comments of a source file: what may name a file in prose."""
    if f.endswith(('.c', '.h', '.cc', '.mjs')):
        return '\n'.join(re.findall(r'/\*.*?\*/|//[^\n]*', text, re.S))
    mark = '--' if f.endswith('.lua') else '#'
    return '\n'.join(l[l.index(mark):] for l in text.split('\n') if mark in l)


LIBS = {'openssl': 'OpenSSL', 'gsl': 'GSL', 'sqlite3.h': 'SQLite',
        'lua.h': 'Lua', 'lauxlib.h': 'Lua', 'lualib.h': 'Lua', 'mpi.h': 'MPI'}


def resolve_include(f, name):
    """The tracked file a quoted #include of f names, or None."""
    cands = [os.path.normpath(os.path.join(os.path.dirname(f), name))]
    cands += [i + '/' + name for i in include_dirs]
    for c in cands:
        if c in fileset:
            return c
    hits = [x for x in files if x.endswith('/' + name)]
    return hits[0] if len(hits) == 1 else None


def check_layers(doc, text):
    rows = {}
    for line in text.split('\n'):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 3 or not re.fullmatch(r'`[\w./-]+/`', cells[0]):
            continue
        rows[cells[0].strip('`').rstrip('/')] = cells[-1]
    order = list(rows)
    for r in order:   # dependencies point one way: up the table
        for u in re.findall(r'`([\w./-]+)/`', rows[r]):
            if u not in rows or order.index(u) >= order.index(r):
                problems.append('%s: `%s/` uses `%s/`, which is no row above it'
                                % (doc, r, u))
    if not rows:
        problems.append('%s: no layer table (| `folder/` | what | uses |)' % doc)
        return

    def row_of(path):
        best = None
        for r in rows:
            if path.startswith(r + '/') and (best is None or len(r) > len(best)):
                best = r
        return best

    for f in files:
        if not f.endswith(('.c', '.h')):
            continue
        r = row_of(f)
        if r is None:
            problems.append('%s: %s is in no row of the layer table' % (doc, f))
            continue
        uses = rows[r]
        if uses == 'anything':
            continue
        allowed = set(re.findall(r'`([\w./-]+)/`', uses))
        for m in re.finditer(r'^\s*#\s*include\s*([<"])([^">]+)[">]', read(f), re.M):
            name = m.group(2)
            if m.group(1) == '<':
                lib = LIBS.get(name.split('/')[0])
                if lib and lib not in uses:
                    problems.append('%s: %s includes <%s>, but %s is not in the uses of `%s/`'
                                    % (doc, f, name, lib, r))
                continue
            target = resolve_include(f, name)
            if target is None:
                continue   # not ours (the compiler finds what is missing)
            t = row_of(target)
            if t != r and t not in allowed:
                problems.append('%s: %s includes "%s" (%s), but `%s/` is not in the uses of `%s/`'
                                % (doc, f, name, target, t, r))


def read(f):
    with open(f, encoding='utf-8', errors='replace') as fh:
        return fh.read()


prose = sorted(f for f in files if (f.startswith('docs/') and f.endswith('.md'))
               or os.path.basename(f) == 'README.md')
code = sorted(f for f in files if (f.endswith(SRC_EXT) or f in ('Makefile', '.ci/run'))
              and f != 'tests/docs_paths.py')
for f in prose:
    text = read(f)
    check_paths(f, text, os.path.basename(f) == 'README.md')
    # a scenario file a doc names bare is the reader's own (my.lua)
    check_bare(f, text, tuple(e for e in BARE_EXT if e not in ('.lua', '.cc', '.py', '.mjs')))
    if os.path.basename(f) == 'README.md':
        check_tour(f, text)
for f in code:
    text = read(f)
    check_paths(f, text, False)
    check_bare(f, comments(f, text), ('.md', '.c', '.h'))
corpus = set()   # every word of every source file
for f in code:
    corpus.update(re.findall(r'\w+', read(f)))
for doc in prose:
    check_idents(doc, read(doc), corpus)
if 'README.md' in fileset:
    top = read('README.md')
    for f in files:
        if f.startswith('docs/') and f.endswith('.md') and \
                os.path.basename(f) not in top:
            problems.append('README.md: does not name %s' % f)
    for d in sorted(set(f.split('/')[0] for f in files if '/' in f)):
        if not re.search(r'(^|[\s`(])' + re.escape(d) + r'/', top, re.M):
            problems.append('README.md: does not name the folder %s/' % d)
for doc in ('docs/architecture.md', 'mtc-core/README.md'):
    if doc not in fileset:
        problems.append('%s is missing' % doc)
if 'docs/architecture.md' in fileset:
    check_layers('docs/architecture.md', read('docs/architecture.md'))

for p in problems:
    print(p)
print('%d prose files, %d source files checked; %d disagreements'
      % (len(prose), len(code), len(problems)))
sys.exit(1 if problems else 0)
