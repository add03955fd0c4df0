/* The test suites' one include of Check. Check's ck_assert_msg, which every ck_assert_*
 * macro expands to, calls _mark_point on every assertion that holds: a write to the
 * pipe or file through which the forked test reports to its runner, so that a crash can
 * name the last assertion passed. In the suites' inner loops (a sort's every bucket, a
 * network's every twiddle slot) that was a system call each, most of their run time
 * (test_msm_group: 17.5 of 25 s in the kernel), several times more under the sanitizers.
 * Here an assertion that holds costs a branch and one that fails reports as Check's does;
 * a crash is still reported against its test, and ASan and UBSan name its line. */
#ifndef PROVESIM_TESTS_CK_H
#define PROVESIM_TESTS_CK_H

#include <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                              \
  do {                                                                                        \
    if (!(expr)) _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__); \
  } while (0)

/* a equals b within the relative tolerance tol */
#define REL_EQ(a, b, tol) \
  ck_assert_msg(fabs((a) - (b)) <= (tol) * fabs(b), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

#endif
