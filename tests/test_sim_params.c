/*
 * test_sim_params.c - schema-driven parameters: every type set, formatted
 * and range-checked, with messages that name the parameter.
 */
#include <stddef.h>
#include <string.h>

#include "sim/status.h"
#include "sim/params.h"
#include "test.h"

typedef struct demo_cfg {
    int64_t count;
    double rate;
    sim_time interval;
    int enabled;
    char name[16];
    int alg;
    sim_dist *latency;
    double profile[SIM_PROFILE_HOURS];
    sim_param_list witnesses;
} demo_cfg;

static const char *const algs[] = {"ed25519", "ml-dsa-44", NULL};

static const sim_param_desc demo_params[] = {
    {"count", SIM_PARAM_INT, offsetof(demo_cfg, count), 0, 1, 100, NULL, "", "a count", 0, 0, 0, NULL},
    {"rate", SIM_PARAM_REAL, offsetof(demo_cfg, rate), 0, 0, 1e9, NULL, "1/h", "a rate", 0, 0, 0, NULL},
    {"interval", SIM_PARAM_DURATION, offsetof(demo_cfg, interval), 0, 1, 86400, NULL, "s", "a period", 0, 0, 0, NULL},
    {"enabled", SIM_PARAM_BOOL, offsetof(demo_cfg, enabled), 0, 0, 1, NULL, "", "a switch", 0, 0, 0, NULL},
    {"name", SIM_PARAM_STRING, offsetof(demo_cfg, name), sizeof(((demo_cfg *)0)->name), 0, 0, NULL, "", "a name", 0, 0, 0, NULL},
    {"alg", SIM_PARAM_ENUM, offsetof(demo_cfg, alg), 0, 0, 0, algs, "", "an algorithm", 0, 0, 0, NULL},
    {"latency", SIM_PARAM_DIST, offsetof(demo_cfg, latency), 0, 0, 3600, NULL, "s", "a delay", 0, 0, 0, NULL},
    {"profile", SIM_PARAM_PROFILE, offsetof(demo_cfg, profile), 0, 0, 0, NULL, "", "a day", 0, 0, 0, NULL},
    {"witnesses", SIM_PARAM_LIST, offsetof(demo_cfg, witnesses), 0, 0, 0, NULL, "", "names", 0, 0, 0, NULL},
};

static int demo_defaults(void *p)
{
    demo_cfg *c = p;
    c->count = 3;
    c->interval = 60 * SIM_SEC;
    for (int i = 0; i < SIM_PROFILE_HOURS; i++)
        c->profile[i] = 1;
    return sim_dist_exponential(&c->latency, 2.0);
}

static const sim_param_schema demo = {
    "demo", "a test entity", sizeof(demo_cfg), demo_params,
    sizeof demo_params / sizeof demo_params[0], demo_defaults, NULL};

TEST(set_and_format_every_type)
{
    void *p;
    ASSERT_OK(sim_param_config_new(&demo, &p));
    demo_cfg *c = p;
    char err[256], buf[512];
    ASSERT_EQ(c->count, 3);
    ASSERT_OK(sim_param_set_number(sim_param_find(&demo, "count"), c, 42, err, sizeof err));
    ASSERT_EQ(c->count, 42);
    ASSERT_OK(sim_param_set_number(sim_param_find(&demo, "interval"), c, 1.5, err, sizeof err));
    ASSERT_EQ(c->interval, 1500000);
    ASSERT_OK(sim_param_set_number(sim_param_find(&demo, "enabled"), c, 1, err, sizeof err));
    ASSERT_EQ(c->enabled, 1);
    ASSERT_OK(sim_param_set_string(sim_param_find(&demo, "name"), c, "LE", err, sizeof err));
    ASSERT_STR_EQ(c->name, "LE");
    ASSERT_OK(sim_param_set_string(sim_param_find(&demo, "alg"), c, "ml-dsa-44", err, sizeof err));
    ASSERT_EQ(c->alg, 1);
    sim_dist *d;
    ASSERT_OK(sim_dist_lognormal(&d, 0.0, 0.5));
    ASSERT_OK(sim_param_set_dist(sim_param_find(&demo, "latency"), c, d, err, sizeof err));
    ASSERT_OK(sim_param_list_append(sim_param_find(&demo, "witnesses"), c, "w1", err, sizeof err));
    ASSERT_OK(sim_param_list_append(sim_param_find(&demo, "witnesses"), c, "w2", err, sizeof err));
    double day[24];
    for (int i = 0; i < 24; i++)
        day[i] = i < 8 ? 0.5 : 1.5;
    ASSERT_OK(sim_param_set_profile(sim_param_find(&demo, "profile"), c, day, 24, err, sizeof err));

    sim_param_format(sim_param_find(&demo, "interval"), c, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "1.5");
    sim_param_format(sim_param_find(&demo, "alg"), c, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "ml-dsa-44");
    sim_param_format(sim_param_find(&demo, "witnesses"), c, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "[w1,w2]");
    sim_param_format(sim_param_find(&demo, "enabled"), c, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "true");
    int n = sim_param_format(sim_param_find(&demo, "profile"), c, buf, sizeof buf);
    ASSERT_EQ(n, (int)strlen(buf));
    ASSERT_TRUE(!strncmp(buf, "[0.5,0.5,", 9));
    /* truncation follows snprintf: the full length is reported */
    char tiny[4];
    ASSERT_EQ(sim_param_format(sim_param_find(&demo, "profile"), c, tiny, sizeof tiny), n);
    ASSERT_EQ(strlen(tiny), 3);
    sim_param_config_free(&demo, p);
}

TEST(errors_name_the_parameter)
{
    void *p;
    ASSERT_OK(sim_param_config_new(&demo, &p));
    char err[256];
    const sim_param_desc *count = sim_param_find(&demo, "count");
    ASSERT_TRUE(sim_param_find(&demo, "cuont") == NULL);
    ASSERT_EQ(sim_param_set_number(count, p, 101, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "count") && strstr(err, "maximum 100"));
    ASSERT_EQ(sim_param_set_number(count, p, 0, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "minimum 1"));
    ASSERT_EQ(sim_param_set_number(count, p, 2.5, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "not an integer"));
    ASSERT_EQ(sim_param_set_string(count, p, "x", err, sizeof err), SIM_ERR_ARG);
    ASSERT_TRUE(strstr(err, "expected an integer"));
    ASSERT_EQ(sim_param_set_number(sim_param_find(&demo, "interval"), p, -1, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "interval: -1 s is below the minimum 1 s"));
    ASSERT_EQ(sim_param_set_string(sim_param_find(&demo, "alg"), p, "rsa", err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "'rsa' is not one of 'ed25519', 'ml-dsa-44'"));
    ASSERT_EQ(sim_param_set_string(sim_param_find(&demo, "name"), p, "a-name-far-too-long", err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_EQ(sim_param_set_number(sim_param_find(&demo, "enabled"), p, 2, err, sizeof err), SIM_ERR_ARG);
    sim_dist *d;
    ASSERT_OK(sim_dist_exponential(&d, 7200));
    ASSERT_EQ(sim_param_set_dist(sim_param_find(&demo, "latency"), p, d, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "latency: mean 7200"));
    double day[24] = {0};
    ASSERT_EQ(sim_param_set_profile(sim_param_find(&demo, "profile"), p, day, 24, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_EQ(sim_param_set_profile(sim_param_find(&demo, "profile"), p, day, 23, err, sizeof err), SIM_ERR_CONFIG);
    day[3] = -1;
    ASSERT_EQ(sim_param_set_profile(sim_param_find(&demo, "profile"), p, day, 24, err, sizeof err), SIM_ERR_CONFIG);
    sim_param_config_free(&demo, p);
    sim_param_config_free(&demo, NULL);
}

static const test_case tests[] = {
    {"set_and_format_every_type", set_and_format_every_type},
    {"errors_name_the_parameter", errors_name_the_parameter},
};

TEST_MAIN(tests)
