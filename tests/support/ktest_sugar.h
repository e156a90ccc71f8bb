/* tests/support/ktest_sugar.h — short literal/EValue macros shared by the kernel unit tests.
 *
 * Test-only. Include after support/ktest.h:
 *   SZ(2, 3)      int32_t[] sizes literal          DV(1, 2.5)  double[] values literal
 *   NARR(1, 2)    number of int64 items             IL(0, 1)    IntList EValue, EMPTY_IL() empty
 *   EV(t)         tensor EValue                     I(v) D(v) B(v)  Int / Double / Bool EValues
 *   NONE()        None EValue                       STR("s")    String EValue
 *   VI(1, 2)      int64_t[] values literal          ARGS(a, b) / NARGS(a, b)  pte_evalue *[] and its length
 *   T(dtype, dim, sizes, values) / TI(...)  contiguous tensor from doubles / int64s
 */
#ifndef PTE_TESTS_SUPPORT_KTEST_SUGAR_H
#define PTE_TESTS_SUPPORT_KTEST_SUGAR_H

#include "support/ktest.h"

#define SZ(...) ((int32_t[]){__VA_ARGS__})
#define DV(...) ((double[]){__VA_ARGS__})
#define NARR(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define IL(...) ktest_ev_int_list((int64_t[]){__VA_ARGS__}, NARR(__VA_ARGS__))
#define EMPTY_IL() ktest_ev_int_list(NULL, 0)
#define EV(t) ktest_ev_tensor(t)
#define I(v) ktest_ev_int(v)
#define D(v) ktest_ev_double(v)
#define B(v) ktest_ev_bool(v)
#define NONE() ktest_ev_none()
#define STR(s) ktest_ev_string(s)
#define VI(...) ((int64_t[]){__VA_ARGS__})
#define ARGS(...) ((pte_evalue *[]){__VA_ARGS__})
#define NARGS(...) (sizeof((pte_evalue *[]){__VA_ARGS__}) / sizeof(pte_evalue *))

static inline pte_tensor *T(int dtype, int32_t dim, const int32_t *sizes, const double *v) {
  return ktest_tensor(dtype, dim, sizes, NULL, v);
}
static inline pte_tensor *TI(int dtype, int32_t dim, const int32_t *sizes, const int64_t *v) {
  return ktest_tensor_i64(dtype, dim, sizes, NULL, v);
}

#endif
