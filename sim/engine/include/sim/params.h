/*
 * sim/params.h - self-describing parameters of world-model entities.
 *
 * Every configurable thing in the world model (a CA, a cosigner, a browser
 * cohort...) is a plain C config struct plus a schema: a table of
 * parameter descriptors giving each field's name, type, offset, unit,
 * allowed range and documentation. The Lua layer, the results database
 * (which records every effective parameter of a run) and the docs all work
 * from the schema, so a parameter added to the model is validated, recorded
 * and documented without touching them, and an unknown name, a wrong type
 * or an out-of-range value is always an error, never ignored.
 *
 * Field storage by type:
 *   SIM_PARAM_INT       int64_t
 *   SIM_PARAM_REAL      double
 *   SIM_PARAM_DURATION  sim_time (set and shown in seconds)
 *   SIM_PARAM_BOOL      int (0/1)
 *   SIM_PARAM_STRING    char[size] (NUL-terminated; longer input is an error)
 *   SIM_PARAM_ENUM      int, index into `choices` (set by name)
 *   SIM_PARAM_DIST      sim_dist * (owned by the struct; replaced values
 *                       are destroyed; sim_param_free_fields() frees)
 *   SIM_PARAM_PROFILE   double[24]: a daily profile, relative weight per
 *                       hour (mean normalised to 1 when used)
 *   SIM_PARAM_LIST      sim_param_list: a list of strings (e.g. the names
 *                       of the witnesses a CA uses)
 */
#ifndef SIM_PARAMS_H
#define SIM_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/dist.h"
#include "sim/engine.h"

typedef enum sim_param_type {
    SIM_PARAM_INT = 1,
    SIM_PARAM_REAL,
    SIM_PARAM_DURATION,
    SIM_PARAM_BOOL,
    SIM_PARAM_STRING,
    SIM_PARAM_ENUM,
    SIM_PARAM_DIST,
    SIM_PARAM_PROFILE,
    SIM_PARAM_LIST
} sim_param_type;

#define SIM_PROFILE_HOURS 24
#define SIM_PARAM_LIST_MAX 32
#define SIM_PARAM_NAME_MAX 64

/* Storage of a SIM_PARAM_LIST field. */
typedef struct sim_param_list {
    size_t count;
    char item[SIM_PARAM_LIST_MAX][SIM_PARAM_NAME_MAX];
} sim_param_list;

typedef struct sim_param_desc {
    const char *name;       /* lower_snake_case, unique within a schema */
    sim_param_type type;
    size_t offset;          /* offsetof(config struct, field) */
    size_t size;            /* STRING: sizeof the char array; else 0 */
    double min, max;        /* INT/REAL/DURATION (seconds): inclusive range */
    const char *const *choices; /* ENUM: NULL-terminated names */
    const char *unit;       /* "s", "1/h", "bytes", "" ... */
    const char *doc;        /* one line: what it is, and its source if any */
    unsigned flags;         /* SIM_PARAM_LIVE */
    /* DURATION, REAL, DIST (its mean): the plausible range in seconds, and
     * what the value is ("a certificate lifetime"). A value outside it is
     * legal, merely improbable (a unit slip: seconds where hours were
     * meant), and earns a warning from the host; zero is never judged.
     * plaus_hi == 0: none. */
    double plaus_lo, plaus_hi;
    const char *plaus_what;
} sim_param_desc;

/* The parameter may change during a run (sim_world_set, `sim:set`); the
 * owning module's set hook applies it. */
#define SIM_PARAM_LIVE 1u

/* Units of plausible ranges, in seconds. */
#define SIM_PLAUS_MIN 60.0
#define SIM_PLAUS_HOUR 3600.0
#define SIM_PLAUS_DAY 86400.0

typedef struct sim_param_schema {
    const char *kind;       /* "ca", "cosigner", "browsers", ... */
    const char *doc;        /* what an entity of this kind is */
    size_t config_size;     /* sizeof the config struct */
    const sim_param_desc *params;
    size_t count;
    /* Writes the defaults into a zeroed struct of config_size bytes.
     * SIM_OK or SIM_ERR_NOMEM (defaults may allocate distributions). */
    int (*init_defaults)(void *cfg);
    /* Cross-field checks after all fields are set (e.g. renewal before
     * expiry); writes a message naming the fields. SIM_OK or
     * SIM_ERR_CONFIG. NULL when there are none. */
    int (*validate)(const void *cfg, char *err, size_t errlen);
} sim_param_schema;

/* The descriptor called `name`, or NULL. */
const sim_param_desc *sim_param_find(const sim_param_schema *s,
                                     const char *name);

/*
 * Setters. Each checks the type and range and, on error, writes a message
 * naming the parameter and the problem ("landmark_interval: -5 s is below
 * the minimum 1 s") into err and returns SIM_ERR_CONFIG (value out of
 * range or not allowed) or SIM_ERR_ARG (wrong type for this parameter).
 */
int sim_param_set_number(const sim_param_desc *d, void *cfg, double v,
                         char *err, size_t errlen);  /* INT, REAL, DURATION, BOOL */
int sim_param_set_string(const sim_param_desc *d, void *cfg, const char *v,
                         char *err, size_t errlen);  /* STRING, ENUM */
/* Takes ownership of dist on success and on failure. */
int sim_param_set_dist(const sim_param_desc *d, void *cfg, sim_dist *dist,
                       char *err, size_t errlen);
int sim_param_set_profile(const sim_param_desc *d, void *cfg,
                          const double *hours, size_t n, char *err,
                          size_t errlen);  /* n must be 24, values >= 0 */
int sim_param_list_append(const sim_param_desc *d, void *cfg, const char *v,
                          char *err, size_t errlen);

/* A duration as people say it: "90 s", "5 min", "2 h", "3 d" (the
 * largest of these units that divides it). snprintf convention. */
int sim_format_seconds(double s, char *buf, size_t buflen);

/* The plausible range of d as "1 min .. 30 d (the time between
 * landmarks)", or "" when d has none (plaus_hi == 0). snprintf
 * convention. */
int sim_param_plaus_format(const sim_param_desc *d, char *buf, size_t buflen);

/* Formats the current value as text for the results database ("3600",
 * "ml-dsa-44", "lognormal(mu=1,sigma=0.5)", "[w1,w2]"). Returns the
 * length that would have been written (snprintf convention). */
int sim_param_format(const sim_param_desc *d, const void *cfg, char *buf,
                     size_t buflen);

/* Creates a config struct with defaults / frees it (and its owned
 * distributions). free accepts NULL. */
int sim_param_config_new(const sim_param_schema *s, void **out);
void sim_param_config_free(const sim_param_schema *s, void *cfg);

/* Frees owned fields (DIST) of a struct without freeing the struct. */
void sim_param_free_fields(const sim_param_schema *s, void *cfg);

#endif
