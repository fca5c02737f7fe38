/*
 * cmd_params.c - `mtcsim params [KIND] [--markdown]`: the entity kinds a
 * scenario can declare, every parameter with type, unit, range, default,
 * whether it may change during a run (live: sim:set), its plausible range
 * (outside it a declaration earns a warning) and documentation, and the
 * what-if actions - all read from the world's schemas and the parameters'
 * descriptors, so this listing is always the model's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "mtc/error.h"
#include "sim/world.h"

static const char *type_name(sim_param_type t)
{
    static const char *const n[] = {"?", "int", "real", "duration", "bool",
                                     "string", "enum", "dist", "profile",
                                     "list"};
    return t >= SIM_PARAM_INT && t <= SIM_PARAM_LIST ? n[t] : "?";
}

/* The range; md: an enum's choices separated by "\|", which a Markdown
 * table cell needs (a bare "|" ends the cell). */
static void range(const sim_param_desc *d, int md, char *buf, size_t n)
{
    buf[0] = 0;
    if (d->type == SIM_PARAM_INT || d->type == SIM_PARAM_REAL ||
        d->type == SIM_PARAM_DURATION)
        snprintf(buf, n, "%g..%g", d->min, d->max);
    else if (d->type == SIM_PARAM_DIST)
        snprintf(buf, n, "mean %g..%g", d->min, d->max);
    else if (d->type == SIM_PARAM_ENUM && d->choices) {
        size_t k = 0;
        for (int i = 0; d->choices[i] && k < n; i++)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", !i ? "" : md ? "\\|" : "|",
                                  d->choices[i]);
    }
}

/* HOST_OK, or HOST_FAIL (printed) when memory runs out. */
static int print_kind(const sim_param_schema *s, int md)
{
    void *cfg = NULL;
    sim_param_config_new(s, &cfg);
    if (md) {
        printf("### `mtcsim.%s{...}`\n\n%s.\n\n", s->kind, s->doc);
        printf("| parameter | type | unit | range | default | live | plausible | meaning |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
    } else {
        printf("%s: %s\n", s->kind, s->doc);
    }
    for (size_t i = 0; i < s->count; i++) {
        const sim_param_desc *d = &s->params[i];
        char rg[256], pl[160];
        /* a list default can be long (the chain mix): measured, never cut */
        int dn = cfg ? sim_param_format(d, cfg, NULL, 0) : 0;
        char *def = malloc((size_t)dn + 1);
        if (!def) {
            fprintf(stderr, "mtcsim params: out of memory\n");
            sim_param_config_free(s, cfg);
            return HOST_FAIL;
        }
        def[0] = 0;
        if (cfg)
            sim_param_format(d, cfg, def, (size_t)dn + 1);
        range(d, md, rg, sizeof rg);
        sim_param_plaus_format(d, pl, sizeof pl);
        const char *live = d->flags & SIM_PARAM_LIVE ? "live" : "";
        if (md)
            printf("| `%s` | %s | %s | %s | `%s` | %s | %s | %s |\n", d->name,
                   type_name(d->type), d->unit ? d->unit : "", rg, def, live, pl,
                   d->doc ? d->doc : "");
        else
            printf("  %-22s %-8s %-8s %-22s default %-14s %-4s %s%s%s\n", d->name,
                   type_name(d->type), d->unit ? d->unit : "", rg, def, live,
                   d->doc ? d->doc : "", pl[0] ? "; plausible " : "", pl);
        free(def);
    }
    printf("\n");
    sim_param_config_free(s, cfg);
    return HOST_OK;
}

int cmd_params(int argc, char **argv)
{
    int md = 0;
    const char *kind = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: mtcsim params [KIND] [--markdown]\n\n"
                   "Lists the entity kinds a scenario declares with mtcsim.KIND{...},\n"
                   "their parameters (type, unit, range, default, 'live' when sim:set\n"
                   "may change it during a run, the plausible range outside which a\n"
                   "declaration earns a warning, meaning) and the actions sim:at can\n"
                   "schedule.\n");
            return HOST_OK;
        } else if (!strcmp(argv[i], "--markdown")) {
            md = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "mtcsim params: unknown option '%s'\n", argv[i]);
            return HOST_USAGE;
        } else if (!kind) {
            kind = argv[i];
        } else {
            fprintf(stderr, "mtcsim params: unexpected argument '%s'\n", argv[i]);
            return HOST_USAGE;
        }
    }
    if (kind) {
        const sim_param_schema *s = sim_world_schema(kind);
        if (!s) {
            fprintf(stderr, "mtcsim params: unknown kind '%s'\n", kind);
            return HOST_USAGE;
        }
        return print_kind(s, md);
    }
    size_t n;
    n = sim_world_kind_count();
    for (size_t i = 0; i < n; i++)
        if (print_kind(sim_world_kind(i), md) != HOST_OK)
            return HOST_FAIL;
    n = sim_world_action_count();
    if (md)
        printf("### Actions\n\n| action | target | arguments | meaning |\n"
               "|---|---|---|---|\n");
    else
        printf("actions (sim:at(t, ACTION, TARGET, ARGS...)):\n");
    for (size_t i = 0; i < n; i++) {
        const sim_world_action *a = sim_world_action_at(i);
        if (md)
            printf("| `%s` | %s | %s | %s |\n", a->name, a->kind,
                   a->args_doc ? a->args_doc : "", a->doc ? a->doc : "");
        else
            printf("  %-18s %-15s %-26s %s\n", a->name, a->kind,
                   a->args_doc ? a->args_doc : "", a->doc ? a->doc : "");
    }
    return HOST_OK;
}
