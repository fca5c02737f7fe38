/*
 * params.c - schema-driven setting, checking and formatting of parameters.
 *
 * The one place that turns untyped user input into model configuration;
 * every message names the parameter, the offending value and the bound.
 */
#include "sim/params.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"

#define FIELD(cfg, d, T) ((T *)((char *)(cfg) + (d)->offset))
#define CFIELD(cfg, d, T) ((const T *)((const char *)(cfg) + (d)->offset))

static const char *type_name(sim_param_type t)
{
    switch (t) {
    case SIM_PARAM_INT: return "an integer";
    case SIM_PARAM_REAL: return "a number";
    case SIM_PARAM_DURATION: return "a duration in seconds";
    case SIM_PARAM_BOOL: return "a boolean";
    case SIM_PARAM_STRING: return "a string";
    case SIM_PARAM_ENUM: return "one of its names";
    case SIM_PARAM_DIST: return "a distribution";
    case SIM_PARAM_PROFILE: return "a 24-hour profile";
    case SIM_PARAM_LIST: return "a list of names";
    }
    return "?";
}

static int wrong_type(const sim_param_desc *d, const char *given, char *err,
                      size_t errlen)
{
    snprintf(err, errlen, "%s: expected %s, got %s", d->name,
             type_name(d->type), given);
    return SIM_ERR_ARG;
}

const sim_param_desc *sim_param_find(const sim_param_schema *s,
                                     const char *name)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->params[i].name, name))
            return &s->params[i];
    return NULL;
}

int sim_param_set_number(const sim_param_desc *d, void *cfg, double v,
                         char *err, size_t errlen)
{
    const char *unit = d->unit && *d->unit ? d->unit : "";
    const char *sep = *unit ? " " : "";
    if (d->type == SIM_PARAM_BOOL) {
        if (v != 0 && v != 1)
            return wrong_type(d, "a number other than 0 or 1", err, errlen);
        *FIELD(cfg, d, int) = v != 0;
        return SIM_OK;
    }
    if (d->type != SIM_PARAM_INT && d->type != SIM_PARAM_REAL &&
        d->type != SIM_PARAM_DURATION)
        return wrong_type(d, "a number", err, errlen);
    if (!isfinite(v)) {
        snprintf(err, errlen, "%s: %g is not a finite number", d->name, v);
        return SIM_ERR_CONFIG;
    }
    if (d->type == SIM_PARAM_INT && v != floor(v)) {
        snprintf(err, errlen, "%s: %g is not an integer", d->name, v);
        return SIM_ERR_CONFIG;
    }
    if (v < d->min) {
        snprintf(err, errlen, "%s: %g%s%s is below the minimum %g%s%s",
                 d->name, v, sep, unit, d->min, sep, unit);
        return SIM_ERR_CONFIG;
    }
    if (v > d->max) {
        snprintf(err, errlen, "%s: %g%s%s is above the maximum %g%s%s",
                 d->name, v, sep, unit, d->max, sep, unit);
        return SIM_ERR_CONFIG;
    }
    switch (d->type) {
    case SIM_PARAM_INT: *FIELD(cfg, d, int64_t) = (int64_t)v; break;
    case SIM_PARAM_REAL: *FIELD(cfg, d, double) = v; break;
    default: *FIELD(cfg, d, sim_time) = sim_time_from_sec(v); break;
    }
    return SIM_OK;
}

int sim_param_set_string(const sim_param_desc *d, void *cfg, const char *v,
                         char *err, size_t errlen)
{
    if (d->type == SIM_PARAM_ENUM) {
        for (int i = 0; d->choices && d->choices[i]; i++)
            if (!strcmp(d->choices[i], v)) {
                *FIELD(cfg, d, int) = i;
                return SIM_OK;
            }
        int n = snprintf(err, errlen, "%s: '%s' is not one of", d->name, v);
        for (int i = 0; d->choices && d->choices[i] && n >= 0 &&
                        (size_t)n < errlen; i++)
            n += snprintf(err + n, errlen - (size_t)n, "%s '%s'",
                          i ? "," : "", d->choices[i]);
        return SIM_ERR_CONFIG;
    }
    if (d->type != SIM_PARAM_STRING)
        return wrong_type(d, "a string", err, errlen);
    size_t len = strlen(v);
    if (len == 0 || len >= d->size) {
        snprintf(err, errlen, "%s: '%s' must be 1 to %zu characters", d->name,
                 v, d->size - 1);
        return SIM_ERR_CONFIG;
    }
    memcpy(FIELD(cfg, d, char), v, len + 1);
    return SIM_OK;
}

int sim_param_set_dist(const sim_param_desc *d, void *cfg, sim_dist *dist,
                       char *err, size_t errlen)
{
    if (d->type != SIM_PARAM_DIST) {
        sim_dist_destroy(dist);
        return wrong_type(d, "a distribution", err, errlen);
    }
    double mean = sim_dist_mean(dist);
    /* Distributions here are of durations, sizes or counts: negative
     * means make no sense, and a bound on the mean catches unit slips
     * (minutes given where seconds were meant, say). */
    if (!(mean >= d->min && mean <= d->max)) {
        snprintf(err, errlen, "%s: mean %g is outside [%g, %g]", d->name, mean,
                 d->min, d->max);
        sim_dist_destroy(dist);
        return SIM_ERR_CONFIG;
    }
    /* The mean alone lets extreme values through (uniform{lo = -1e308,
     * hi = 1e308} has mean 0): a distribution's values must lie in
     * [min(0, min), max] as far as they are bounded. Unbounded tails
     * (exponential, lognormal...) are saturated where they are sampled
     * (sim_dist_sample_duration). */
    double lo, hi, floor_ = d->min < 0 ? d->min : 0;
    sim_dist_support(dist, &lo, &hi);
    if (!(lo >= floor_) || (isfinite(hi) && !(hi <= d->max))) {
        snprintf(err, errlen, "%s: values from %g to %g are outside [%g, %g]",
                 d->name, lo, hi, floor_, d->max);
        sim_dist_destroy(dist);
        return SIM_ERR_CONFIG;
    }
    sim_dist **slot = FIELD(cfg, d, sim_dist *);
    sim_dist_destroy(*slot);
    *slot = dist;
    return SIM_OK;
}

int sim_param_set_profile(const sim_param_desc *d, void *cfg,
                          const double *hours, size_t n, char *err,
                          size_t errlen)
{
    if (d->type != SIM_PARAM_PROFILE)
        return wrong_type(d, "a list of 24 numbers", err, errlen);
    if (n != SIM_PROFILE_HOURS) {
        snprintf(err, errlen, "%s: a daily profile has 24 hourly values, got %zu",
                 d->name, n);
        return SIM_ERR_CONFIG;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(hours[i] >= 0) || !isfinite(hours[i])) {
            snprintf(err, errlen, "%s: hour %zu has weight %g (must be >= 0)",
                     d->name, i, hours[i]);
            return SIM_ERR_CONFIG;
        }
        sum += hours[i];
    }
    if (sum <= 0) {
        snprintf(err, errlen, "%s: all 24 weights are zero", d->name);
        return SIM_ERR_CONFIG;
    }
    memcpy(FIELD(cfg, d, double), hours, n * sizeof *hours);
    return SIM_OK;
}

int sim_param_list_append(const sim_param_desc *d, void *cfg, const char *v,
                          char *err, size_t errlen)
{
    if (d->type != SIM_PARAM_LIST)
        return wrong_type(d, "a list", err, errlen);
    sim_param_list *l = FIELD(cfg, d, sim_param_list);
    if (l->count >= SIM_PARAM_LIST_MAX) {
        snprintf(err, errlen, "%s: more than %d items", d->name,
                 SIM_PARAM_LIST_MAX);
        return SIM_ERR_CONFIG;
    }
    size_t len = strlen(v);
    if (len == 0 || len >= SIM_PARAM_NAME_MAX) {
        snprintf(err, errlen, "%s: item '%s' must be 1 to %d characters",
                 d->name, v, SIM_PARAM_NAME_MAX - 1);
        return SIM_ERR_CONFIG;
    }
    memcpy(l->item[l->count++], v, len + 1);
    return SIM_OK;
}

/* snprintf at offset *n, advancing *n by what would have been written. */
__attribute__((format(printf, 4, 5)))
static void appendf(char *buf, size_t buflen, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(*n < buflen ? buf + *n : NULL,
                      *n < buflen ? buflen - *n : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n += (size_t)k;
}

int sim_format_seconds(double s, char *buf, size_t buflen)
{
    static const struct { double f; const char *u; } units[] = {
        {SIM_PLAUS_DAY, "d"}, {SIM_PLAUS_HOUR, "h"}, {SIM_PLAUS_MIN, "min"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (s >= units[i].f && fmod(s, units[i].f) == 0)
            return snprintf(buf, buflen, "%g %s", s / units[i].f, units[i].u);
    return snprintf(buf, buflen, "%g s", s);
}

int sim_param_plaus_format(const sim_param_desc *d, char *buf, size_t buflen)
{
    if (!(d->plaus_hi > 0))
        return snprintf(buf, buflen, "%s", "");
    char lo[32], hi[32];
    sim_format_seconds(d->plaus_lo, lo, sizeof lo);
    sim_format_seconds(d->plaus_hi, hi, sizeof hi);
    return snprintf(buf, buflen, "%s .. %s (%s)", lo, hi,
                    d->plaus_what ? d->plaus_what : "");
}

int sim_param_format(const sim_param_desc *d, const void *cfg, char *buf,
                     size_t buflen)
{
    switch (d->type) {
    case SIM_PARAM_INT:
        return snprintf(buf, buflen, "%lld",
                        (long long)*CFIELD(cfg, d, int64_t));
    case SIM_PARAM_REAL:
        return snprintf(buf, buflen, "%.17g", *CFIELD(cfg, d, double));
    case SIM_PARAM_DURATION:
        return snprintf(buf, buflen, "%.17g",
                        sim_time_to_sec(*CFIELD(cfg, d, sim_time)));
    case SIM_PARAM_BOOL:
        return snprintf(buf, buflen, "%s",
                        *CFIELD(cfg, d, int) ? "true" : "false");
    case SIM_PARAM_STRING:
        return snprintf(buf, buflen, "%s", CFIELD(cfg, d, char));
    case SIM_PARAM_ENUM: {
        int i = *CFIELD(cfg, d, int);
        return snprintf(buf, buflen, "%s", d->choices ? d->choices[i] : "?");
    }
    case SIM_PARAM_DIST: {
        const sim_dist *dist = *CFIELD(cfg, d, sim_dist *const);
        if (!dist)
            return snprintf(buf, buflen, "none");
        return sim_dist_format(dist, buf, buflen);
    }
    case SIM_PARAM_PROFILE: {
        const double *h = CFIELD(cfg, d, double);
        size_t n = 0;
        for (int i = 0; i < SIM_PROFILE_HOURS; i++)
            appendf(buf, buflen, &n, "%s%g", i ? "," : "[", h[i]);
        appendf(buf, buflen, &n, "]");
        return (int)n;
    }
    case SIM_PARAM_LIST: {
        const sim_param_list *l = CFIELD(cfg, d, sim_param_list);
        size_t n = 0;
        appendf(buf, buflen, &n, "[");
        for (size_t i = 0; i < l->count; i++)
            appendf(buf, buflen, &n, "%s%s", i ? "," : "", l->item[i]);
        appendf(buf, buflen, &n, "]");
        return (int)n;
    }
    }
    return snprintf(buf, buflen, "?");
}

void sim_param_free_fields(const sim_param_schema *s, void *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < s->count; i++)
        if (s->params[i].type == SIM_PARAM_DIST) {
            sim_dist **slot = FIELD(cfg, &s->params[i], sim_dist *);
            sim_dist_destroy(*slot);
            *slot = NULL;
        }
}

int sim_param_config_new(const sim_param_schema *s, void **out)
{
    void *cfg = calloc(1, s->config_size);
    if (!cfg)
        return SIM_ERR_NOMEM;
    int rc = s->init_defaults ? s->init_defaults(cfg) : SIM_OK;
    if (rc != SIM_OK) {
        sim_param_config_free(s, cfg);
        return rc;
    }
    *out = cfg;
    return SIM_OK;
}

void sim_param_config_free(const sim_param_schema *s, void *cfg)
{
    if (!cfg)
        return;
    sim_param_free_fields(s, cfg);
    free(cfg);
}
