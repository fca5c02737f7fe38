/*
 * test_web_handshake.c - the web side's invariants on the real-mtc-core
 * PKI fixture (tests/lib/web_pki_fixture.h), every handshake re-checked
 * the slow way (check_invariants: selection from the parsed ClientHello
 * bytes, real re-encodings, verification without the memo):
 *  - no landmarks anywhere: signatureless fraction 0, every handshake a
 *    standalone certificate whose bytes are its real encoding;
 *  - every client perfectly fresh, certificates older than one landmark
 *    interval: signatureless fraction 1;
 *  - no landmark-relative certificate for a landmark the client did not
 *    advertise, unless mis-signalling is injected, and then each such
 *    handshake retries once and succeeds with the standalone certificate;
 *  - memoized verification agrees with fresh verification and runs far
 *    fewer verifications than handshakes;
 *  - sharding: two shards' merged metrics equal one shard's exactly;
 *  - key compromise: standalone only until the new landmark certificate;
 *  - revocation exposure: the exact delay for clients in phase;
 *  - the baseline histograms, recorded late, equal recording each
 *    handshake at once, across a key change;
 *  - schemas reject bad values with messages naming the parameter.
 */
#include <math.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "test.h"

typedef struct setup {
    web_sites_config *site;
    web_browsers_config *co[3];
    size_t nco;
} setup;

static void setup_free(setup *s)
{
    sim_param_config_free(&sim_sites_schema, s->site);
    for (size_t i = 0; i < s->nco; i++)
        sim_param_config_free(&sim_browsers_schema, s->co[i]);
}

/* Always-online clients updating every `upd` seconds (exponential if
 * expo), `n` clients, `sites` sites issued over [0, spread). */
static void setup_basic(setup *s, size_t n, size_t sites, double upd, int expo,
                        sim_time spread)
{
    memset(s, 0, sizeof *s);
    s->site = wrun_sites_new();
    s->site->count = (int64_t)sites;
    s->site->issue_spread = spread;
    s->site->retry_after = SIM_SEC;
    s->co[0] = wrun_browsers_new();
    s->nco = 1;
    web_browsers_config *c = s->co[0];
    snprintf(c->name, sizeof c->name, "main");
    c->count = (int64_t)n;
    c->sessions_per_day = 0;
    c->visits_per_hour = 4;
    c->update_first_delay = 0;
    c->update_fail_prob = 0;
    c->ticket_lifetime = 0;
    sim_dist_destroy(c->update_interval);
    if (expo)
        sim_dist_exponential(&c->update_interval, upd);
    else
        sim_dist_const(&c->update_interval, upd);
}

TEST(no_landmarks_all_standalone)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.landmark_interval = 0;
    pc.nca = 2;
    setup s;
    setup_basic(&s, test_scaled(300), 30, 600, 0, SIM_HOUR);
    s.co[0]->missignal_prob = 0.3; /* nothing to mis-signal */
    s.co[1] = wrun_browsers_new();
    s.nco = 2;
    snprintf(s.co[1]->name, sizeof s.co[1]->name, "unaware");
    s.co[1]->count = (int64_t)test_scaled(100);
    s.co[1]->mtc_aware = 0;
    s.co[1]->sessions_per_day = 6;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 1, 0, 0, 1, SIM_HOUR, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 2));
    wrun_until(&r, 12 * SIM_HOUR);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_TRUE(st.full > 1000 * test_scale());
    ASSERT_EQ(st.signatureless, 0);
    ASSERT_EQ(wrun_counter(&r, "handshake_signatureless"), 0);
    ASSERT_TRUE(wrun_counter(&r, "handshake_full") > 0);
    ASSERT_EQ(st.retries, 0);
    ASSERT_EQ(st.failures, 0);
    ASSERT_EQ(st.lr_unadvertised, 0);
    ASSERT_EQ(st.invariant_violations, 0);
    /* Every byte count is the standalone encoding: with one certificate
     * size per site and the CA IDs advertised, the auth bytes histogram
     * holds only values of that form (checked per handshake by the slow
     * path above); here also: no value below the smallest possible. */
    sim_metric *ab = sim_metrics_find(r.metrics, "auth_bytes");
    ASSERT_TRUE(ab != NULL);
    ASSERT_TRUE(sim_hist_min(ab, SIM_ALL_COHORTS) > 300);
    /* Unaware clients send no extension: their handshakes are smaller by
     * the ClientHello and EncryptedExtensions extensions. */
    ASSERT_TRUE(sim_hist_mean(ab, 1) < sim_hist_mean(ab, 0));
    /* clienthello_trust_anchors_bytes: without landmarks every aware
     * client lists the two CA IDs 32473.1 and 32473.2 (4 bytes each,
     * with a length byte: 5), in a 6-byte extension header and list
     * length: 16 bytes on every full handshake (no retries here);
     * unaware clients send none. */
    sim_metric *ta = sim_metrics_find(r.metrics, "clienthello_trust_anchors_bytes");
    ASSERT_TRUE(ta != NULL);
    ASSERT_TRUE(sim_hist_count(ta, 0) > 0);
    ASSERT_TRUE(sim_hist_min(ta, 0) == 16 && sim_hist_max(ta, 0) == 16);
    ASSERT_TRUE(sim_hist_count(ta, 1) > 0);
    ASSERT_TRUE(sim_hist_max(ta, 1) == 0);
    wrun_free(&r);
    setup_free(&s);
}

TEST(fresh_clients_all_signatureless)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    /* Checks every second; certificates issued in the first 2 h;
     * measured from 3 h + 10 s on: all older than one landmark interval
     * and every client holds the landmark. */
    setup_basic(&s, test_scaled(200), 25, 1, 0, 2 * SIM_HOUR);
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 2, 0, 0, 1, 3 * SIM_HOUR + 10 * SIM_SEC, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1));
    wrun_until(&r, 9 * SIM_HOUR);
    int64_t full = wrun_counter(&r, "handshake_full");
    ASSERT_TRUE(full > 1000 * test_scale());
    ASSERT_EQ(wrun_counter(&r, "handshake_signatureless"), full);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    ASSERT_EQ(st.retries, 0);
    ASSERT_EQ(st.lr_unadvertised, 0);
    /* Signatureless handshakes are smaller than both baselines. Sites
     * serve chains of different profiles, and the MTC leaf carries the
     * same names and extensions as its site's chain, so the comparison is
     * per site: on average, and for the largest of each (the largest leaf
     * content is in the largest chain) */
    sim_metric *ab = sim_metrics_find(r.metrics, "auth_bytes");
    sim_metric *cl = sim_metrics_find(r.metrics, "auth_bytes_baseline_classical");
    sim_metric *pq = sim_metrics_find(r.metrics, "auth_bytes_baseline_mldsa44");
    ASSERT_TRUE(sim_hist_mean(ab, 0) + 1500 < sim_hist_mean(cl, 0));
    ASSERT_TRUE(sim_hist_max(ab, 0) < sim_hist_max(cl, 0));
    ASSERT_TRUE(sim_hist_min(ab, 0) < sim_hist_min(cl, 0));
    ASSERT_TRUE(sim_hist_min(cl, 0) < sim_hist_min(pq, 0));
    ASSERT_TRUE(sim_hist_min(pq, 0) > 7260); /* draft section 1 */
    /* The memo: far fewer verifications than handshakes, and each a
     * distinct (certificate, state). */
    ASSERT_TRUE(st.verify_runs > 0);
    ASSERT_TRUE(st.verify_runs * 10 < st.full);
    ASSERT_EQ(st.verify_runs + st.verify_memo_hits, st.full + st.retries);
    wrun_free(&r);
    setup_free(&s);
}

TEST(missignalling_retries)
{
    for (int inject = 0; inject <= 1; inject++) {
        wfx_config pc;
        wfx_defaults(&pc);
        setup s;
        setup_basic(&s, test_scaled(300), 30, 8 * 3600.0, 1, 6 * SIM_HOUR);
        s.co[0]->missignal_prob = inject ? 0.5 : 0;
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 3, 0, 0, 1, 0, 1,
                              (const web_sites_config *const *)&s.site, 1,
                              (const web_browsers_config *const *)s.co, 1));
        wrun_until(&r, 12 * SIM_HOUR);
        web_stats st;
        web_get_stats(r.wb, &st);
        if (getenv("WEB_TEST_VERBOSE"))
            fprintf(stderr, "missignal=%d full=%llu sigless=%llu retries=%llu unadv=%llu runs=%llu hits=%llu\n",
                    inject, (unsigned long long)st.full, (unsigned long long)st.signatureless,
                    (unsigned long long)st.retries, (unsigned long long)st.lr_unadvertised,
                    (unsigned long long)st.verify_runs, (unsigned long long)st.verify_memo_hits);
        ASSERT_EQ(st.invariant_violations, 0);
        ASSERT_TRUE(st.signatureless > 0);
        if (!inject) {
            ASSERT_EQ(st.lr_unadvertised, 0);
            ASSERT_EQ(st.retries, 0);
        } else {
            /* Each landmark certificate the client could not verify costs
             * exactly one retry, which succeeds with the standalone one. */
            ASSERT_TRUE(st.lr_unadvertised > 0);
            ASSERT_EQ(st.retries, st.lr_unadvertised);
            ASSERT_EQ(wrun_counter(&r, "handshake_retry"), (int64_t)st.retries);
        }
        ASSERT_EQ(st.failures, 0);
        sim_metric *vo = sim_metrics_find(r.metrics, "verify_outcome");
        ASSERT_EQ(sim_counter_value(vo, MTC_RP_COSIGNERS), (int64_t)st.retries);
        ASSERT_EQ(sim_counter_value(vo, MTC_RP_OK), (int64_t)st.full);
        wrun_free(&r);
        setup_free(&s);
    }
}

TEST(memo_agrees_with_fresh_verification_ml_dsa)
{
    /* ML-DSA-44 cosigners and a witness: standalone certificates carry two
     * real ML-DSA-44 signatures; slow updates mix both kinds. */
    wfx_config pc;
    wfx_defaults(&pc);
    pc.alg = MTC_SIG_MLDSA44;
    pc.witnesses = 1;
    pc.background = 50;
    setup s;
    setup_basic(&s, test_scaled(200), 12, 4 * 3600.0, 1, 4 * SIM_HOUR);
    s.site->key_alg = 2; /* ML-DSA-44 subject keys */
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 4, 0, 0, 1, 0, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1));
    wrun_until(&r, 10 * SIM_HOUR);
    web_stats st;
    web_get_stats(r.wb, &st);
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "mldsa full=%llu sigless=%llu runs=%llu hits=%llu auth_mean=%.0f\n",
                (unsigned long long)st.full, (unsigned long long)st.signatureless,
                (unsigned long long)st.verify_runs, (unsigned long long)st.verify_memo_hits,
                (double)st.auth_bytes_sum / (double)st.full);
    ASSERT_EQ(st.invariant_violations, 0);
    ASSERT_TRUE(st.signatureless > 0);
    ASSERT_TRUE(st.signatureless < st.full);
    ASSERT_TRUE(st.verify_memo_hits > 0);
    ASSERT_EQ(st.failures, 0);
    wrun_free(&r);
    setup_free(&s);
}

static int compare_metric(const sim_metric *a, const sim_metric *b)
{
    size_t nc = sim_metric_cohorts(a);
    for (size_t k = 0; k < nc; k++) {
        if (sim_metric_kind(a) == SIM_METRIC_COUNTER &&
            sim_counter_value(a, k) != sim_counter_value(b, k))
            return 0;
        if (sim_metric_kind(a) == SIM_METRIC_HISTOGRAM) {
            for (size_t i = 0; i < sim_hist_nbins(a) + 2; i++)
                if (sim_hist_bin(a, k, i) != sim_hist_bin(b, k, i))
                    return 0;
            if (sim_hist_sum(a, k) != sim_hist_sum(b, k))
                return 0;
        }
    }
    return 1;
}

TEST(shards_merge_to_the_single_run)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    setup_basic(&s, test_scaled(240), 20, 2 * 3600.0, 1, 3 * SIM_HOUR);
    s.co[0]->sessions_per_day = 4;
    s.co[0]->ticket_lifetime = 2 * SIM_HOUR;
    s.co[0]->missignal_prob = 0.1;
    wrun one, part[2];
    ASSERT_OK(wrun_create(&one, &pc, 5, 1, 0, 1, SIM_HOUR, 0,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1));
    wrun_until(&one, 10 * SIM_HOUR);
    for (uint32_t k = 0; k < 2; k++) {
        ASSERT_OK(wrun_create(&part[k], &pc, 5, 1, k, 2, SIM_HOUR, 0,
                              (const web_sites_config *const *)&s.site, 1,
                              (const web_browsers_config *const *)s.co, 1));
        wrun_until(&part[k], 10 * SIM_HOUR);
    }
    ASSERT_OK(sim_metrics_merge(part[0].metrics, part[1].metrics));
    const char *names[] = {"handshake_full", "handshake_signatureless",
                           "handshake_full_by_ca", "handshake_resumed",
                           "handshake_retry", "auth_bytes",
                           "clienthello_trust_anchors_bytes", "extra_rtt_tcp",
                           "extra_rtt_quic", "verify_outcome", "update_bytes",
                           "update_fetch", "acme_polls"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sim_metric *a = sim_metrics_find(one.metrics, names[i]);
        sim_metric *b = sim_metrics_find(part[0].metrics, names[i]);
        ASSERT_TRUE(a && b);
        if (!compare_metric(a, b))
            TEST_FAIL_("metric %s differs between 1 and 2 shards", names[i]);
    }
    ASSERT_TRUE(wrun_counter(&one, "handshake_resumed") > 0);
    ASSERT_TRUE(wrun_counter(&one, "handshake_full") > 0);
    wrun_free(&one);
    wrun_free(&part[0]);
    wrun_free(&part[1]);
    setup_free(&s);
}

/* The event order is a property of the engine, not of its queue: the
 * same scenario on heap4, calendar and ladder gives byte-identical
 * metrics, stats and event counts (the ladder's rungs are exercised by
 * test_sim_engine's hostile distributions). */
TEST(identical_on_every_queue)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    setup_basic(&s, test_scaled(600), 30, 2 * 3600.0, 1, 3 * SIM_HOUR);
    s.co[0]->sessions_per_day = 4;
    s.co[0]->ticket_lifetime = 2 * SIM_HOUR;
    s.co[0]->missignal_prob = 0.05;
    const int queues[] = {SIM_QUEUE_HEAP4, SIM_QUEUE_CALENDAR, SIM_QUEUE_LADDER};
    uint8_t *enc[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    web_stats st[3];
    uint64_t events[3];
    for (int q = 0; q < 3; q++) {
        wrun r;
        ASSERT_OK(wrun_create_q(&r, queues[q], &pc, 11, 0, 0, 1, SIM_HOUR, 0,
                                (const web_sites_config *const *)&s.site, 1,
                                (const web_browsers_config *const *)s.co, 1));
        ASSERT_EQ(sim_engine_queue_kind(r.sim), queues[q]);
        wrun_until(&r, 12 * SIM_HOUR);
        web_get_stats(r.wb, &st[q]);
        events[q] = sim_engine_events_executed(r.sim);
        ASSERT_OK(sim_metrics_encode(r.metrics, &enc[q], &len[q]));
        wrun_free(&r);
    }
    ASSERT_TRUE(st[0].full > 0 && st[0].resumed > 0 && st[0].verify_runs > 0);
    for (int q = 1; q < 3; q++) {
        ASSERT_EQ_U64(events[q], events[0]);
        ASSERT_TRUE(memcmp(&st[q], &st[0], sizeof st[0]) == 0);
        ASSERT_EQ(len[q], len[0]);
        ASSERT_TRUE(memcmp(enc[q], enc[0], len[0]) == 0);
    }
    for (int q = 0; q < 3; q++)
        free(enc[q]);
    setup_free(&s);
}

TEST(key_compromise_standalone_until_new_landmark)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    setup_basic(&s, test_scaled(200), 10, 60, 0, SIM_HOUR);
    /* All sites compromised at 5 h 30 min: revoked, new key, new
     * standalone certificate; the new landmark one comes at 6 h. Clients
     * check every minute: between 5:30 and 6:00 no signatureless
     * handshakes; after 6:02 all again. */
    s.site->compromise_at = 5 * SIM_HOUR + 30 * SIM_MIN;
    s.site->compromise_fraction = 1.0;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 6, 0, 0, 1, 5 * SIM_HOUR + 31 * SIM_MIN, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1));
    wrun_until(&r, 5 * SIM_HOUR + 59 * SIM_MIN);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(wrun_counter(&r, "handshake_signatureless"), 0);
    ASSERT_TRUE(wrun_counter(&r, "handshake_full") > 0);
    ASSERT_EQ(wrun_counter(&r, "revoked_accepted"), 0);
    uint64_t before = st.signatureless;
    sim_engine_set_stop_time(r.sim, 7 * SIM_HOUR);
    sim_engine_run(r.sim);
    web_get_stats(r.wb, &st);
    ASSERT_TRUE(st.signatureless > before);
    ASSERT_EQ(st.failures, 0);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    setup_free(&s);
}

/* The baseline histograms record their observations late (a count per
 * site and cohort, flushed): after every flush they hold exactly what
 * recording each handshake at once would have, also across a key change
 * that changes a site's baseline bytes (a new ECDSA key signs with a
 * signature of another length). check_invariants keeps the per-handshake
 * sums to compare with. */
static int baselines_match(wrun *r, const char **why)
{
    static const char *names[3] = {"auth_bytes_baseline_classical",
                                   "auth_bytes_baseline_mldsa44",
                                   "auth_bytes_today_classical"};
    static const char *rtts[4] = {"extra_rtt_tcp_baseline_classical",
                                  "extra_rtt_tcp_baseline_mldsa44",
                                  "extra_rtt_quic_baseline_classical",
                                  "extra_rtt_quic_baseline_mldsa44"};
    web_stats st;
    web_get_stats(r->wb, &st);
    uint64_t full = (uint64_t)wrun_counter(r, "handshake_full");
    for (int i = 0; i < 3; i++) {
        sim_metric *h = sim_metrics_find(r->metrics, names[i]);
        *why = names[i];
        if (sim_hist_count(h, SIM_ALL_COHORTS) != full ||
            sim_hist_sum(h, SIM_ALL_COHORTS) != (double)st.base_auth_sum[i])
            return 0;
    }
    for (int i = 0; i < 4; i++) {
        *why = rtts[i];
        if (sim_hist_count(sim_metrics_find(r->metrics, rtts[i]),
                           SIM_ALL_COHORTS) != full)
            return 0;
    }
    return 1;
}

TEST(baselines_deferred_exact)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    setup_basic(&s, test_scaled(200), 10, 60, 0, SIM_HOUR);
    s.site->compromise_at = 2 * SIM_HOUR + 30 * SIM_MIN;
    s.site->compromise_fraction = 1.0;
    s.site->key_alg = 1; /* ecdsa-p256: a DER signature of 70-72 bytes */
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 8, 0, 0, 1, SIM_HOUR, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1));
    const char *why = "";
    sim_time stops[] = {2 * SIM_HOUR, 4 * SIM_HOUR};
    for (size_t i = 0; i < 2; i++) {
        sim_engine_set_stop_time(r.sim, stops[i]);
        sim_engine_run(r.sim);
        /* not yet recorded: the handshakes since the last flush */
        sim_metric *cl = sim_metrics_find(r.metrics, "auth_bytes_baseline_classical");
        ASSERT_TRUE(sim_hist_count(cl, SIM_ALL_COHORTS) <
                    (uint64_t)wrun_counter(&r, "handshake_full"));
        sim_metrics_flush(r.metrics);
        if (!baselines_match(&r, &why))
            TEST_FAIL_("%s after the flush at %g h", why, sim_time_to_sec(stops[i]) / 3600);
    }
    wrun_until(&r, 5 * SIM_HOUR);
    if (!baselines_match(&r, &why))
        TEST_FAIL_("%s at the finish", why);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_TRUE(wrun_counter(&r, "handshake_full") > 100 * test_scale());
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    setup_free(&s);
}

TEST(schemas_reject_bad_values)
{
    char err[200];
    web_sites_config *sc = wrun_sites_new();
    ASSERT_TRUE(sc != NULL);
    ASSERT_EQ(sc->renew_fraction, 0.75);
    const sim_param_desc *d = sim_param_find(&sim_sites_schema, "renew_fraction");
    ASSERT_EQ(sim_param_set_number(d, sc, 1.5, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "renew_fraction") != NULL);
    d = sim_param_find(&sim_sites_schema, "ca_shares");
    ASSERT_OK(sim_param_list_append(d, sc, "le", err, sizeof err));
    ASSERT_EQ(sim_sites_schema.validate(sc, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "ca_shares") != NULL);
    d = sim_param_find(&sim_sites_schema, "key_alg");
    ASSERT_OK(sim_param_set_string(d, sc, "ml-dsa-44", err, sizeof err));
    ASSERT_NE(sim_param_set_string(d, sc, "rsa", err, sizeof err), MTC_OK);
    sim_param_config_free(&sim_sites_schema, sc);

    web_browsers_config *bc = wrun_browsers_new();
    d = sim_param_find(&sim_browsers_schema, "missignal_prob");
    ASSERT_EQ(sim_param_set_number(d, bc, -0.1, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "missignal_prob") != NULL);
    double zero[24] = {0};
    d = sim_param_find(&sim_browsers_schema, "online_profile");
    ASSERT_NE(sim_param_set_profile(d, bc, zero, 24, err, sizeof err), MTC_OK);
    ASSERT_TRUE(strstr(err, "online_profile") != NULL);
    sim_dist_destroy(bc->session_duration);
    bc->session_duration = NULL; /* validate() cross-checks it */
    ASSERT_EQ(sim_browsers_schema.validate(bc, err, sizeof err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(err, "session_duration") != NULL);
    sim_param_config_free(&sim_browsers_schema, bc);

    /* An unknown CA in the shares is named. */
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    setup_basic(&s, 10, 3, 60, 0, SIM_HOUR);
    d = sim_param_find(&sim_sites_schema, "ca_shares");
    ASSERT_OK(sim_param_list_append(d, s.site, "nosuchca:1", err, sizeof err));
    wrun r;
    ASSERT_NE(wrun_create(&r, &pc, 1, 0, 0, 1, 0, 0,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 1), MTC_OK);
    ASSERT_TRUE(strstr(r.err, "nosuchca") != NULL);
    wrun_free(&r);
    setup_free(&s);
}

/* revocation_exposure, exactly: clients in step (update_phase "start")
 * checking every 600 s (at 0, 600, ...), every site compromised at 5:31:40 (19,900 s) and the
 * revocations published at once: each client holds each revocation from
 * its check at 20,400 s, 500 s later; one observation per (client,
 * revocation). */
TEST(revocation_exposure_exact)
{
    wfx_config pc;
    wfx_defaults(&pc);
    setup s;
    size_t n = test_scaled(100);
    setup_basic(&s, n, 5, 600, 0, SIM_HOUR);
    s.co[0]->update_phase = WEB_PHASE_START;
    s.site->compromise_at = 19900 * SIM_SEC;
    s.site->compromise_fraction = 1.0;
    /* a second cohort checking every 2 h from 1,800 s (at 16,200 and
     * 23,400 s): publications at 19,900 s (revocations) and at 21,600 s
     * (landmark) lie between its checks, and the revocations' own one
     * must be found: 3,500 s (not 1,800 s from the latest) */
    web_browsers_config *c1 = s.co[1] = wrun_browsers_new();
    s.nco = 2;
    snprintf(c1->name, sizeof c1->name, "slow");
    c1->count = (int64_t)n;
    c1->sessions_per_day = 0;
    c1->visits_per_hour = 4;
    c1->update_first_delay = 1800 * SIM_SEC;
    c1->update_phase = WEB_PHASE_START;
    c1->update_fail_prob = 0;
    c1->ticket_lifetime = 0;
    sim_dist_destroy(c1->update_interval);
    ASSERT_OK(sim_dist_const(&c1->update_interval, 7200));
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 3, 0, 0, 1, 0, 1,
                          (const web_sites_config *const *)&s.site, 1,
                          (const web_browsers_config *const *)s.co, 2));
    wrun_until(&r, 24000 * SIM_SEC);
    const web_pki *p = wfx_pki(r.pki);
    const sim_ca_view *v = p->pub_view(p->ctx, 0, p->pub_latest(p->ctx, 0), 0);
    ASSERT_TRUE(v != NULL);
    ASSERT_TRUE(v->nrevocations >= 5); /* at least one per site */
    const sim_metric *h = sim_metrics_find(r.metrics, "revocation_exposure");
    ASSERT_TRUE(h != NULL);
    ASSERT_EQ(sim_hist_count(h, 0), (uint64_t)2 * n * v->nrevocations);
    ASSERT_NEAR(sim_hist_min(h, 0), 500.0, 1e-9);
    ASSERT_NEAR(sim_hist_max(h, 0), 3500.0, 1e-9);
    ASSERT_NEAR(sim_hist_mean(h, 0), (500.0 + 3500.0) / 2, 1e-9);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    setup_free(&s);
}

static const test_case tests[] = {
    {"no_landmarks_all_standalone", no_landmarks_all_standalone},
    {"fresh_clients_all_signatureless", fresh_clients_all_signatureless},
    {"missignalling_retries", missignalling_retries},
    {"memo_agrees_with_fresh_verification_ml_dsa", memo_agrees_with_fresh_verification_ml_dsa},
    {"shards_merge_to_the_single_run", shards_merge_to_the_single_run},
    {"identical_on_every_queue", identical_on_every_queue},
    {"key_compromise_standalone_until_new_landmark", key_compromise_standalone_until_new_landmark},
    {"revocation_exposure_exact", revocation_exposure_exact},
    {"baselines_deferred_exact", baselines_deferred_exact},
    {"schemas_reject_bad_values", schemas_reject_bad_values},
};
TEST_MAIN(tests)
