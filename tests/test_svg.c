/* core/svg.c: nice tick steps (1, 2 or 5 times a power of ten) and ranges widened to whole
 * steps, the mapping of data to pixels, categorical axes, escaping, broken lines, and the
 * axes' labels in the output. */
#include "ck.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* step is 1, 2 or 5 times a power of ten. */
static int nice_step(double step) {
  double m = step / pow(10, floor(log10(step) + 1e-9));
  return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

START_TEST(ticks_are_nice_and_cover_the_range) {
  ck_assert_double_eq_tol(svg_axis_num(0, 100, 6, "x").step, 20, 1e-12);
  svg_axis a = svg_axis_num(0.0, 0.87, 6, "x");
  ck_assert_double_eq_tol(a.step, 0.2, 1e-12);
  ck_assert_double_eq_tol(a.lo, 0, 1e-12);
  ck_assert_double_eq_tol(a.hi, 1.0, 1e-12);
  a = svg_axis_num(886.2, 1978.0, 8, "x");
  ck_assert_double_eq_tol(a.step, 200, 1e-9);
  ck_assert_double_eq_tol(a.lo, 800, 1e-9);
  ck_assert_double_eq_tol(a.hi, 2000, 1e-9);
  /* Random ranges: a nice step, the range inside [lo, hi], at most 2 steps of slack. */
  srand(7);
  for (int i = 0; i < 2000; i++) {
    double lo = (rand() / (double)RAND_MAX - 0.5) * pow(10, rand() % 12 - 6);
    double w = rand() / (double)RAND_MAX * pow(10, rand() % 12 - 6);
    int n = 2 + rand() % 10;
    a = svg_axis_num(lo, lo + w, n, "x");
    ck_assert_msg(nice_step(a.step), "step %g for [%g, %g]", a.step, lo, lo + w);
    ck_assert(a.lo <= lo + 1e-8 * a.step && a.hi >= lo + w - 1e-8 * a.step);
    if (w > 1e-9 * fabs(lo))
      ck_assert_msg((a.hi - a.lo) / a.step <= 2.5 * n + 2, "%g steps for %d", (a.hi - a.lo) / a.step, n);
  }
  /* A single value is widened, not a zero-width axis. */
  a = svg_axis_num(5, 5, 5, "x");
  ck_assert(a.lo < 5 && a.hi > 5);
  a = svg_axis_num(NAN, 1, 5, "x");
  ck_assert(isfinite(a.lo) && isfinite(a.hi) && a.hi > a.lo);
}
END_TEST

START_TEST(pixels_map_linearly_and_categories_sit_on_slots) {
  ps_buf b = {0};
  svg_axis x = svg_axis_num(0, 10, 6, "time (s)");
  static const char *const cats[] = {"a", "b", "c"};
  svg_axis y = svg_axis_cat(cats, 3, "rows");
  svg_plot p;
  svg_begin(&p, &b, 600, 300, &x, &y, "t");
  double l = svg_px(&p, 0), r = svg_px(&p, 10);
  ck_assert_double_eq_tol(l, p.ml, 1e-9);
  ck_assert_double_eq_tol(r, 600 - p.mr, 1e-9);
  ck_assert_double_eq_tol(svg_px(&p, 5), (l + r) / 2, 1e-9);
  ck_assert_double_eq_tol(svg_px(&p, 20), r, 1e-9); /* clamped */
  /* Category 0 at the bottom, 2 at the top, evenly spaced. */
  double y0 = svg_py(&p, 0), y1 = svg_py(&p, 1), y2 = svg_py(&p, 2);
  ck_assert(y0 > y1 && y1 > y2);
  ck_assert_double_eq_tol(y0 - y1, y1 - y2, 1e-9);
  svg_axes(&p);
  svg_end(&p);
  ck_assert_ptr_nonnull(strstr(b.p, "class=\"axis-label x-label\""));
  ck_assert_ptr_nonnull(strstr(b.p, ">time (s)</text>"));
  ck_assert_ptr_nonnull(strstr(b.p, ">rows</text>"));
  ck_assert_ptr_nonnull(strstr(b.p, ">b</text>"));
  ck_assert_ptr_nonnull(strstr(b.p, ">10</text>"));
  ps_buf_free(&b);
}
END_TEST

START_TEST(text_is_escaped_and_lines_break_at_gaps) {
  ps_buf b = {0};
  svg_escape(&b, "a<b & \"c\" 'd'>\x01");
  ck_assert_str_eq(b.p, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt; ");
  ps_buf_free(&b);
  svg_axis x = svg_axis_num(0, 4, 5, "x"), y = svg_axis_num(0, 4, 5, "y");
  svg_plot p;
  svg_begin(&p, &b, 400, 300, &x, &y, "<title>");
  ck_assert_ptr_nonnull(strstr(b.p, "<title>&lt;title&gt;</title>"));
  double xs[] = {0, 1, 2, 3, 4}, ys[] = {0, 1, NAN, 3, 4};
  svg_line(&p, xs, ys, 5, "#000", NULL);
  svg_end(&p);
  int n = 0;
  for (const char *q = b.p; (q = strstr(q, "<polyline")); q++) n++;
  ck_assert_int_eq(n, 2);
  ps_buf_free(&b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("svg");
  TCase *tc = tcase_create("svg");
  tcase_add_test(tc, ticks_are_nice_and_cover_the_range);
  tcase_add_test(tc, pixels_map_linearly_and_categories_sit_on_slots);
  tcase_add_test(tc, text_is_escaped_and_lines_break_at_gaps);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
