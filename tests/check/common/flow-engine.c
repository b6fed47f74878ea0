/* gst-cudaflow — common/flow-engine.c: the CPU flow engine
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU engine is the common/ reference steps behind the engine
 * interface, so everything it computes is compared bit for bit with the
 * same steps called directly: luma (GRAY8 and RGBA) into level 0, the
 * pyramid built in place, each method's solve (cold and warm started) and
 * the interleaved output. Also pinned: the luma range it records per slot
 * (before presmoothing), the iteration counts it reports, the motion
 * statistics, the zero field, and the argument checks. Sizes are odd and
 * small (61×47, 3 levels) to keep every solve under a second.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#include "cf-test-util.h"
#include "flow-test-util.h"
#include "common/flow-engine.h"

/* odd, and three levels with flow_test_small_pyramid */
#define WIDTH 61
#define HEIGHT 47

/* What the engine does, step by step with common/: luma into level 0,
 * then the pyramid built from it in place. */
static cf_pyramid *
direct_pyramid (guint8 * gray, const cf_pyramid_params * pp)
{
  cf_pyramid *p = cf_pyramid_new (WIDTH, HEIGHT, pp);
  cf_channel ch = flow_test_gray8_channel (gray, WIDTH, HEIGHT);

  fail_unless (p != NULL);
  fail_unless_equals_int (cf_luma_from_channel (&ch, p->level[0]), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (p, p->level[0], pp), CF_OK);
  return p;
}

/* The engine's flow, interleaved, equals @ref's bit for bit. */
static void
assert_engine_flow_is (cf_flow_engine * engine, const cf_flow * ref,
    const char *what)
{
  size_t stride = 2 * sizeof (float) * WIDTH;
  float *got = g_new (float, 2 * WIDTH * HEIGHT);
  float *want = g_new (float, 2 * WIDTH * HEIGHT);

  memset (got, 0xff, stride * HEIGHT);
  fail_unless_equals_int (cf_flow_engine_write_flow (engine, got, stride),
      CF_OK);
  cf_flow_to_interleaved (ref, want, stride);
  fail_unless (memcmp (got, want, stride * HEIGHT) == 0,
      "%s: the engine's flow differs from the direct call's", what);
  g_free (got);
  g_free (want);
}

/* The method's reference solver on host pyramids; @iterations as the
 * engine should report it. */
static cf_status
direct_solve (const cf_flow_solver * solver, const cf_pyramid * p0,
    const cf_pyramid * p1, int use_initial, cf_flow * flow, long *iterations)
{
  *iterations = cf_flow_solver_iterations (solver, p0->n_levels);
  switch (solver->method) {
    case CF_FLOW_METHOD_HS:
      return cf_hs_flow (p0, p1, &solver->params.hs, use_initial, flow);
    case CF_FLOW_METHOD_CLG:
      return cf_clg_flow (p0, p1, &solver->params.clg, use_initial, flow);
    case CF_FLOW_METHOD_TVL1:
      return cf_tvl1_flow_counted (p0, p1, &solver->params.tvl1,
          use_initial, flow, iterations);
  }
  return CF_ERROR_INVALID;
}

static const char *const method_names[] = { "HS", "CLG", "TV-L1" };

GST_START_TEST (test_solve_matches_direct_calls_bit_for_bit)
{
  static const cf_flow_method methods[] = { CF_FLOW_METHOD_HS,
    CF_FLOW_METHOD_CLG, CF_FLOW_METHOD_TVL1
  };
  guint8 *f0 = g_new (guint8, WIDTH * HEIGHT);
  guint8 *f1 = g_new (guint8, WIDTH * HEIGHT);
  cf_pyramid_params pp;
  guint m;

  flow_test_gray8_pair (WIDTH, HEIGHT, 1.25f, -0.5f, f0, f1);
  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    cf_flow_engine *engine = NULL;
    cf_flow_solver solver;
    cf_flow_pair pair = { 0 };
    cf_pyramid *p0, *p1;
    cf_flow *flow = cf_flow_new (WIDTH, HEIGHT);
    long want_iterations;

    flow_test_solver_init (&solver, methods[m]);
    /* TV-L1 and CLG presmooth; HS does not */
    flow_test_small_pyramid (&pp,
        methods[m] == CF_FLOW_METHOD_HS ? 0.0f : 0.8f);
    fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp,
            methods[m] == CF_FLOW_METHOD_TVL1, &engine), CF_OK);
    fail_unless_equals_int (engine->n_levels, 3);

    /* frame t-1 in slot 1, frame t in slot 0: slots are only names */
    flow_test_engine_load (engine, 1, f0);
    flow_test_engine_load (engine, 0, f1);
    pair.prev = 1;
    pair.cur = 0;
    pair.want_iterations = 1;
    fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
        CF_OK);

    p0 = direct_pyramid (f0, &pp);
    p1 = direct_pyramid (f1, &pp);
    fail_unless_equals_int (direct_solve (&solver, p0, p1, 0, flow,
            &want_iterations), CF_OK);
    assert_engine_flow_is (engine, flow, method_names[m]);
    fail_unless (pair.iterations == want_iterations,
        "%s: %ld iterations reported, %ld run", method_names[m],
        pair.iterations, want_iterations);
    fail_unless (pair.iterations > 0);
    /* TV-L1: ε ended some warps before max_iterations (40) */
    if (methods[m] == CF_FLOW_METHOD_TVL1)
      fail_unless (pair.iterations < 3 * 2 * 40, "%ld", pair.iterations);

    /* warm start: the same pair again, from the flow just computed */
    pair.use_initial = 1;
    fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
        CF_OK);
    fail_unless_equals_int (direct_solve (&solver, p0, p1, 1, flow,
            &want_iterations), CF_OK);
    assert_engine_flow_is (engine, flow, method_names[m]);
    fail_unless (pair.iterations == want_iterations);

    cf_pyramid_free (p0);
    cf_pyramid_free (p1);
    cf_flow_free (flow);
    cf_flow_engine_free (engine);
  }
  g_free (f0);
  g_free (f1);
}

GST_END_TEST;

GST_START_TEST (test_rgb_luma_is_cf_luma_from_rgb)
{
  cf_flow_engine *engine = NULL;
  cf_flow_solver solver;
  cf_flow_pair pair = { 0 };
  cf_pyramid_params pp;
  guint8 *bgra = g_new (guint8, 4 * WIDTH * HEIGHT);
  guint8 *gray = g_new (guint8, WIDTH * HEIGHT);
  cf_pyramid *p0, *p1;
  cf_flow *flow = cf_flow_new (WIDTH, HEIGHT);
  long iterations;
  int i;

  /* BGRA: R at byte 2, G at 1, B at 0; the second frame is grey */
  for (i = 0; i < 4 * WIDTH * HEIGHT; i++)
    bgra[i] = (guint8) ((i * 37 + (i / 7) * 11) & 0xff);
  for (i = 0; i < WIDTH * HEIGHT; i++)
    gray[i] = (guint8) ((i * 13) & 0xff);
  flow_test_small_pyramid (&pp, 0.0f);
  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 0,
          &engine), CF_OK);
  fail_unless_equals_int (cf_flow_engine_luma_from_rgb (engine, 0, bgra,
          4 * WIDTH, 4, 2, 1, 0), CF_OK);
  fail_unless_equals_int (cf_flow_engine_build_pyramid (engine, 0), CF_OK);
  flow_test_engine_load (engine, 1, gray);
  pair.prev = 0;
  pair.cur = 1;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_OK);

  p0 = cf_pyramid_new (WIDTH, HEIGHT, &pp);
  fail_unless_equals_int (cf_luma_from_rgb (bgra, 4 * WIDTH, 4, 2, 1, 0,
          p0->level[0]), CF_OK);
  fail_unless_equals_int (cf_pyramid_build (p0, p0->level[0], &pp), CF_OK);
  p1 = direct_pyramid (gray, &pp);
  fail_unless_equals_int (direct_solve (&solver, p0, p1, 0, flow,
          &iterations), CF_OK);
  assert_engine_flow_is (engine, flow, "BGRA");

  cf_pyramid_free (p0);
  cf_pyramid_free (p1);
  cf_flow_free (flow);
  cf_flow_engine_free (engine);
  g_free (bgra);
  g_free (gray);
}

GST_END_TEST;

GST_START_TEST (test_range_is_recorded_per_slot_before_presmoothing)
{
  cf_flow_engine *engine = NULL;
  cf_pyramid_params pp;
  guint8 *a = g_new0 (guint8, WIDTH * HEIGHT);
  guint8 *b = g_new0 (guint8, WIDTH * HEIGHT);
  float lo, hi;
  int i;

  /* single extreme pixels, which presmoothing (σ 3) would flatten */
  for (i = 0; i < WIDTH * HEIGHT; i++) {
    a[i] = 100;
    b[i] = 120;
  }
  a[5 + 9 * WIDTH] = 10;
  a[40 + 30 * WIDTH] = 200;
  b[0] = 50;
  b[WIDTH * HEIGHT - 1] = 250;
  flow_test_small_pyramid (&pp, 3.0f);

  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 1,
          &engine), CF_OK);
  flow_test_engine_load (engine, 0, a);
  flow_test_engine_load (engine, 1, b);
  fail_unless_equals_float (engine->range[0][0], 10.0f);
  fail_unless_equals_float (engine->range[0][1], 200.0f);
  fail_unless_equals_float (engine->range[1][0], 50.0f);
  fail_unless_equals_float (engine->range[1][1], 250.0f);
  cf_flow_engine_pair_range (engine, &lo, &hi);
  fail_unless_equals_float (lo, 10.0f);
  fail_unless_equals_float (hi, 250.0f);
  /* the next frame replaces its slot's range only */
  flow_test_engine_load (engine, 0, b);
  cf_flow_engine_pair_range (engine, &lo, &hi);
  fail_unless_equals_float (lo, 50.0f);
  fail_unless_equals_float (hi, 250.0f);
  cf_flow_engine_free (engine);

  /* without with_range nothing is recorded */
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 0,
          &engine), CF_OK);
  flow_test_engine_load (engine, 0, a);
  flow_test_engine_load (engine, 1, b);
  cf_flow_engine_pair_range (engine, &lo, &hi);
  fail_unless_equals_float (lo, 0.0f);
  fail_unless_equals_float (hi, 0.0f);
  cf_flow_engine_free (engine);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

GST_START_TEST (test_zero_flow_writes_zeros_and_no_motion)
{
  cf_flow_engine *engine = NULL;
  cf_pyramid_params pp;
  size_t stride = 2 * sizeof (float) * WIDTH + 24;      /* padded rows */
  float *uv = g_malloc (stride * HEIGHT);
  double mean = -1.0, max = -1.0;
  int x, y;

  flow_test_small_pyramid (&pp, 0.0f);
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 0,
          &engine), CF_OK);
  fail_unless_equals_int (cf_flow_engine_zero_flow (engine), CF_OK);
  memset (uv, 0x7f, stride * HEIGHT);
  fail_unless_equals_int (cf_flow_engine_write_flow (engine, uv, stride),
      CF_OK);
  for (y = 0; y < HEIGHT; y++) {
    const float *row = (const float *) ((const guint8 *) uv + y * stride);
    const guint8 *pad = (const guint8 *) (row + 2 * WIDTH);
    for (x = 0; x < 2 * WIDTH; x++)
      fail_unless (row[x] == 0.0f, "row %d sample %d: %g", y, x, row[x]);
    /* the padding past each row is left alone */
    fail_unless (pad[0] == 0x7f && pad[23] == 0x7f);
  }
  fail_unless_equals_int (cf_flow_engine_motion (engine, &mean, &max), CF_OK);
  fail_unless_equals_float (mean, 0.0);
  fail_unless_equals_float (max, 0.0);
  fail_unless_equals_int (cf_flow_engine_wait (engine), CF_OK);
  cf_flow_engine_free (engine);
  g_free (uv);
}

GST_END_TEST;

GST_START_TEST (test_motion_is_mean_and_largest_vector_length)
{
  cf_flow *flow = cf_flow_new (4, 3);
  double mean, max;
  int i;

  /* ten (3, 4) vectors of length 5, one (0, 0) and one (-6, 8) of 10 */
  for (i = 0; i < 12; i++) {
    int x = i % 4, y = i / 4;
    flow->u[x + y * flow->pitch] = 3.0f;
    flow->v[x + y * flow->pitch] = 4.0f;
  }
  flow->u[1 + 2 * flow->pitch] = flow->v[1 + 2 * flow->pitch] = 0.0f;
  flow->u[3] = -6.0f;
  flow->v[3] = 8.0f;
  cf_flow_motion (flow, &mean, &max);
  fail_unless_equals_float (mean, (10 * 5.0 + 0.0 + 10.0) / 12.0);
  fail_unless_equals_float (max, 10.0);
  cf_flow_free (flow);
}

GST_END_TEST;

GST_START_TEST (test_fixed_iteration_counts)
{
  cf_flow_solver s;
  cf_error err = { {0} };

  flow_test_solver_init (&s, CF_FLOW_METHOD_HS);
  s.params.hs.warps = 3;
  s.params.hs.iterations = 500;
  /* cuda-samples: 5 levels × 3 warps × 500 */
  fail_unless_equals_int (cf_flow_solver_iterations (&s, 5), 7500);

  flow_test_solver_init (&s, CF_FLOW_METHOD_CLG);
  s.params.clg.iterations = 200;
  fail_unless_equals_int (cf_flow_solver_iterations (&s, 3), 600);
  /* per-level list, finest first; levels past it reuse its last entry */
  fail_unless_equals_int (cf_clg_parse_iterations_per_level (&s.params.clg,
          "60,120", &err), CF_OK);
  fail_unless_equals_int (cf_flow_solver_iterations (&s, 4),
      60 + 120 + 120 + 120);

  /* ε decides for TV-L1: not a fixed count */
  flow_test_solver_init (&s, CF_FLOW_METHOD_TVL1);
  fail_unless_equals_int (cf_flow_solver_iterations (&s, 5), -1);
}

GST_END_TEST;

GST_START_TEST (test_rejects_bad_arguments)
{
  cf_flow_engine *engine = (cf_flow_engine *) 0x1;
  cf_flow_solver solver;
  cf_flow_pair pair = { 0 };
  cf_pyramid_params pp;
  guint8 *gray = g_new0 (guint8, WIDTH * HEIGHT);
  cf_channel ch = flow_test_gray8_channel (gray, WIDTH, HEIGHT);
  float uv[2 * WIDTH];
  double mean, max;

  flow_test_small_pyramid (&pp, 0.0f);
  fail_unless_equals_int (cf_flow_engine_new_cpu (0, HEIGHT, &pp, 0,
          &engine), CF_ERROR_INVALID);
  fail_unless (engine == NULL);
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, NULL, 0,
          &engine), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 0,
          NULL), CF_ERROR_INVALID);
  cf_flow_engine_free (NULL);

  fail_unless_equals_int (cf_flow_engine_new_cpu (WIDTH, HEIGHT, &pp, 0,
          &engine), CF_OK);
  fail_unless_equals_string (cf_flow_engine_device (engine), "CPU");
  fail_unless (!cf_flow_engine_on_device (engine));
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (engine, 2, &ch),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (engine, -1, &ch),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (engine, 0, NULL),
      CF_ERROR_INVALID);
  /* a frame of another size than the engine's */
  ch.width = WIDTH - 1;
  fail_unless_equals_int (cf_flow_engine_luma_from_channel (engine, 0, &ch),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_build_pyramid (engine, 2),
      CF_ERROR_INVALID);

  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  pair.prev = pair.cur = 0;
  pair.iterations = 12;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);
  fail_unless (pair.iterations == -1);
  pair.cur = 1;
  solver.method = (cf_flow_method) 7;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);
  /* the method's own check: HS warps start at 1 */
  flow_test_solver_init (&solver, CF_FLOW_METHOD_HS);
  solver.params.hs.warps = 0;
  fail_unless_equals_int (cf_flow_engine_solve (engine, &solver, &pair),
      CF_ERROR_INVALID);

  fail_unless_equals_int (cf_flow_engine_write_flow (engine, uv,
          2 * sizeof (float) * WIDTH - 1), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_write_flow (engine, NULL,
          2 * sizeof (float) * WIDTH), CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_motion (engine, NULL, &max),
      CF_ERROR_INVALID);
  fail_unless_equals_int (cf_flow_engine_motion (engine, &mean, NULL),
      CF_ERROR_INVALID);
  cf_flow_engine_free (engine);
  fail_unless_equals_int (cf_flow_engine_wait (NULL), CF_ERROR_INVALID);
  g_free (gray);
}

GST_END_TEST;

static Suite *
common_flow_engine_suite (void)
{
  Suite *s = suite_create ("common-flow-engine");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_solve_matches_direct_calls_bit_for_bit);
  tcase_add_test (tc, test_rgb_luma_is_cf_luma_from_rgb);
  tcase_add_test (tc, test_range_is_recorded_per_slot_before_presmoothing);
  tcase_add_test (tc, test_zero_flow_writes_zeros_and_no_motion);
  tcase_add_test (tc, test_motion_is_mean_and_largest_vector_length);
  tcase_add_test (tc, test_fixed_iteration_counts);
  tcase_add_test (tc, test_rejects_bad_arguments);
  return s;
}

GST_CHECK_MAIN (common_flow_engine);
