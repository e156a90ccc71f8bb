/* The primitive operators built into the runtime (src/runtime/prim_ops.c).
 *
 * Every lookup here goes through pte_kernel_lookup() with an EMPTY registry: the prim ops must be
 * available without any kernel library. Expected values:
 *   - Python's own semantics, computed at test time by /usr/bin/python3 over a grid of operands
 *     (floor division, modulo, true division, round half-to-even, ceil, trunc, int(), min/max),
 *   - hand-derived values in the comments for the tensor ops.
 */
#include "pte/kernel.h"
#include "support/ktest.h"
#include "test.h"

#define IV(v) ktest_ev_int(v)
#define DV(v) ktest_ev_double(v)
#define BV(v) ktest_ev_bool(v)

/* The 28 names of upstream's prim_ops registry (../shared/reference/upstream-ops.md). */
static const char *const k_prim_names[] = {
    "aten::_local_scalar_dense",         "aten::sym_numel",
    "aten::sym_size.int",                "executorch_prim::add.Scalar",
    "executorch_prim::ceil.Scalar",      "executorch_prim::eq.Scalar",
    "executorch_prim::et_copy_index.tensor", "executorch_prim::et_view.default",
    "executorch_prim::floordiv.Scalar",  "executorch_prim::floordiv.int",
    "executorch_prim::ge.Scalar",        "executorch_prim::gt.Scalar",
    "executorch_prim::le.Scalar",        "executorch_prim::lt.Scalar",
    "executorch_prim::mod.Scalar",       "executorch_prim::mod.int",
    "executorch_prim::mul.Scalar",       "executorch_prim::neg.Scalar",
    "executorch_prim::round.Scalar",     "executorch_prim::sub.Scalar",
    "executorch_prim::sym_float.Scalar", "executorch_prim::sym_int.Scalar",
    "executorch_prim::sym_ite.Scalar",   "executorch_prim::sym_max.Scalar",
    "executorch_prim::sym_min.Scalar",   "executorch_prim::sym_not.Scalar",
    "executorch_prim::truediv.Scalar",   "executorch_prim::trunc.Scalar",
};

static pte_op_fn op(const char *name) { return pte_kernel_lookup(name, NULL, NULL, 0); }

static pte_status run2(const char *name, pte_evalue *a, pte_evalue *out) {
  pte_evalue *args[] = {a, out};
  return ktest_run(op(name), args, 2);
}
static pte_status run3(const char *name, pte_evalue *a, pte_evalue *b, pte_evalue *out) {
  pte_evalue *args[] = {a, b, out};
  return ktest_run(op(name), args, 3);
}

TEST(all_28_always_available) {
  pte_kernel_registry_reset();
  CHECK_EQ_INT(pte_num_registered_kernels(), 0);
  CHECK_EQ_INT(pte_prim_kernel_count(), 28);
  for (size_t i = 0; i < 28; i++) {
    CHECK_MSG(op(k_prim_names[i]) != NULL, "missing %s", k_prim_names[i]);
    CHECK(pte_prim_lookup(k_prim_names[i]) == op(k_prim_names[i]));
  }
  /* the table holds exactly those names, once each */
  for (size_t i = 0; i < 28; i++) {
    int found = 0;
    for (size_t j = 0; j < 28; j++) found += strcmp(pte_prim_kernel(i)->name, k_prim_names[j]) == 0;
    CHECK_MSG(found == 1, "%s", pte_prim_kernel(i)->name);
  }
  CHECK(pte_prim_kernel(28) == NULL);
  CHECK(op("executorch_prim::nope.Scalar") == NULL);
}

TEST(upstream_list_matches) {
  /* The reference list, if this checkout can see it, names the same 28 primitive ops. */
  const char *c = getenv("PTE_CORPUS");
  CHECK_MSG(c != NULL, "PTE_CORPUS must be set (run through ctest)");
  char path[1024];
  snprintf(path, sizeof path, "%s/../reference/upstream-ops.md", c);
  size_t n = 0;
  uint8_t *txt = test_read_file(path, &n);
  CHECK_MSG(txt != NULL, "cannot read %s", path);
  char *s = (char *)realloc(txt, n + 1);
  CHECK(s != NULL);
  s[n] = '\0';
  char *sec = strstr(s, "## Primitive ops");
  CHECK(sec != NULL);
  char *end = strstr(sec + 4, "## ");
  if (end) *end = '\0';
  int count = 0;
  for (char *line = strtok(sec, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "aten::", 6) != 0 && strncmp(line, "executorch_prim::", 17) != 0) continue;
    count++;
    pte_kernel_registry_reset();
    if (!op(line)) {
      test_fail(__FILE__, __LINE__, "no kernel for %s", line);
      free(s);
      return;
    }
  }
  free(s);
  CHECK_EQ_INT(count, 28);
}

/* ---- python oracle --------------------------------------------------------------------------- */

/* Splits off the next line of *p (NUL-terminating it); NULL at the end. */
static char *next_line(char **p) {
  char *s = *p;
  if (!s || !*s) return NULL;
  char *nl = strchr(s, '\n');
  if (nl) {
    *nl = '\0';
    *p = nl + 1;
  } else {
    *p = s + strlen(s);
  }
  return s;
}

/* Runs a python3 program printing one value per line; returns the captured output or NULL. */
static char *python(const char *prog) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c '%s'", prog);
  int code = -1;
  char *out = test_run_capture(cmd, &code);
  if (code != 0) {
    free(out);
    return NULL;
  }
  return out;
}

static const int64_t k_ints[] = {-9, -7, -3, -2, -1, 0, 1, 2, 3, 7, 9, 1000000007};
#define N_INTS (sizeof k_ints / sizeof k_ints[0])

TEST(int_floordiv_mod_match_python) {
  char *out = python(
      "xs=[-9,-7,-3,-2,-1,0,1,2,3,7,9,1000000007]\n"
      "for a in xs:\n"
      "  for b in xs:\n"
      "    print(\"%d %d\" % ((a//b, a%b) if b else (0, 0)))\n");
  CHECK_MSG(out != NULL, "python3 oracle unavailable");
  const char *p = out;
  const char *ops_div[] = {"executorch_prim::floordiv.int", "executorch_prim::floordiv.Scalar"};
  const char *ops_mod[] = {"executorch_prim::mod.int", "executorch_prim::mod.Scalar"};
  int checked = 0;
  for (size_t i = 0; i < N_INTS; i++)
    for (size_t j = 0; j < N_INTS; j++) {
      long long q, r;
      int used = 0;
      if (sscanf(p, "%lld %lld%n", &q, &r, &used) != 2) {
        free(out);
        CHECK_MSG(0, "bad python output");
      }
      p += used;
      int64_t a = k_ints[i], b = k_ints[j];
      for (int k = 0; k < 2; k++) {
        pte_evalue *o1 = IV(0), *o2 = IV(0);
        pte_status s1 = run3(ops_div[k], IV(a), IV(b), o1), s2 = run3(ops_mod[k], IV(a), IV(b), o2);
        if (b == 0) {
          CHECK_STATUS(s1, PTE_ERR_INVALID_ARGUMENT);
          CHECK_CONTAINS(ktest_last_msg(), "division by zero");
          CHECK_STATUS(s2, PTE_ERR_INVALID_ARGUMENT);
          continue;
        }
        CHECK_OK(s1);
        CHECK_OK(s2);
        CHECK_MSG(o1->tag == PTE_TAG_INT && o1->u.i == q, "%s(%lld, %lld) = %lld, python %lld", ops_div[k],
                  (long long)a, (long long)b, (long long)o1->u.i, q);
        CHECK_MSG(o2->tag == PTE_TAG_INT && o2->u.i == r, "%s(%lld, %lld) = %lld, python %lld", ops_mod[k],
                  (long long)a, (long long)b, (long long)o2->u.i, r);
        checked++;
      }
    }
  free(out);
  CHECK_EQ_INT(checked, 2 * N_INTS * (N_INTS - 1));
}

static const double k_dbls[] = {-7.5, -2.5, -0.5, 0.5, 1.5, 2.5, 3.25, 7.0, -1e-300, 123456.75, 1e300, 4503599627370497.0};
#define N_DBLS (sizeof k_dbls / sizeof k_dbls[0])

TEST(double_ops_match_python) {
  /* per a: round ceil trunc int float(-a); per (a, b): a//b a%b a/b min max, repr'd exactly */
  char *out = python(
      "import math\n"
      "xs=[-7.5,-2.5,-0.5,0.5,1.5,2.5,3.25,7.0,-1e-300,123456.75,1e300,4503599627370497.0]\n"
      "c = lambda v: v if -2**63 <= v < 2**63 else 0\n"
      "for a in xs:\n"
      "  print(c(round(a)), c(math.ceil(a)), c(math.trunc(a)), c(int(a)), repr(-a))\n"
      "for a in xs:\n"
      "  for b in xs:\n"
      "    print(repr(a//b), repr(a%b), repr(a/b), repr(min(a,b)), repr(max(a,b)), int(a<b), int(a==b))\n");
  CHECK_MSG(out != NULL, "python3 oracle unavailable");
  char *cur = out;
  char *line = next_line(&cur);
  for (size_t i = 0; i < N_DBLS; i++) {
    CHECK(line != NULL);
    long long r, c, t, iv;
    double neg;
    CHECK(sscanf(line, "%lld %lld %lld %lld %lf", &r, &c, &t, &iv, &neg) == 5);
    line = next_line(&cur);
    double a = k_dbls[i];
    pte_evalue *o = IV(0);
    if (fabs(a) >= 9.2e18) { /* beyond int64: an error, not a wrapped value */
      CHECK_STATUS(run2("executorch_prim::round.Scalar", DV(a), o), PTE_ERR_INVALID_ARGUMENT);
      CHECK_STATUS(run2("executorch_prim::sym_int.Scalar", DV(a), o), PTE_ERR_INVALID_ARGUMENT);
      continue;
    }
    CHECK_OK(run2("executorch_prim::round.Scalar", DV(a), o));
    CHECK_MSG(o->tag == PTE_TAG_INT && o->u.i == r, "round(%g) = %lld, python %lld", a, (long long)o->u.i, r);
    CHECK_OK(run2("executorch_prim::ceil.Scalar", DV(a), o));
    CHECK_EQ_INT(o->u.i, c);
    CHECK_OK(run2("executorch_prim::trunc.Scalar", DV(a), o));
    CHECK_EQ_INT(o->u.i, t);
    CHECK_OK(run2("executorch_prim::sym_int.Scalar", DV(a), o));
    CHECK(o->tag == PTE_TAG_INT);
    CHECK_EQ_INT(o->u.i, iv);
    CHECK_OK(run2("executorch_prim::neg.Scalar", DV(a), o));
    CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == neg);
  }
  for (size_t i = 0; i < N_DBLS; i++)
    for (size_t j = 0; j < N_DBLS; j++) {
      CHECK(line != NULL);
      double fd, md, td, mn, mx;
      int lt, eq;
      CHECK(sscanf(line, "%lf %lf %lf %lf %lf %d %d", &fd, &md, &td, &mn, &mx, &lt, &eq) == 7);
      line = next_line(&cur);
      double a = k_dbls[i], b = k_dbls[j];
      pte_evalue *o = DV(0);
      CHECK_OK(run3("executorch_prim::floordiv.Scalar", DV(a), DV(b), o));
      CHECK_MSG(o->tag == PTE_TAG_DOUBLE && o->u.d == fd, "%g // %g = %.17g, python %.17g", a, b, o->u.d, fd);
      (void)md; /* mod.Scalar takes Ints only, as upstream */
      CHECK_STATUS(run3("executorch_prim::mod.Scalar", DV(a), DV(b), o), PTE_ERR_INVALID_TYPE);
      CHECK_OK(run3("executorch_prim::truediv.Scalar", DV(a), DV(b), o));
      CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == td);
      CHECK_OK(run3("executorch_prim::sym_min.Scalar", DV(a), DV(b), o));
      CHECK(o->u.d == mn);
      CHECK_OK(run3("executorch_prim::sym_max.Scalar", DV(a), DV(b), o));
      CHECK(o->u.d == mx);
      CHECK_OK(run3("executorch_prim::lt.Scalar", DV(a), DV(b), o));
      CHECK(o->tag == PTE_TAG_BOOL && o->u.b == (lt != 0));
      CHECK_OK(run3("executorch_prim::eq.Scalar", DV(a), DV(b), o));
      CHECK(o->tag == PTE_TAG_BOOL && o->u.b == (eq != 0));
    }
  free(out);
}

TEST(int_arithmetic_and_mixed) {
  pte_evalue *o = IV(0);
  CHECK_OK(run3("executorch_prim::add.Scalar", IV(3), IV(4), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == 7);
  CHECK_OK(run3("executorch_prim::sub.Scalar", IV(3), IV(4), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == -1);
  CHECK_OK(run3("executorch_prim::mul.Scalar", IV(-3), IV(4), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == -12);
  /* int64 wrap, no UB: INT64_MAX + 1 = INT64_MIN */
  CHECK_OK(run3("executorch_prim::add.Scalar", IV(INT64_MAX), IV(1), o));
  CHECK(o->u.i == INT64_MIN);
  /* mixed Int/Double -> Double */
  CHECK_OK(run3("executorch_prim::mul.Scalar", IV(3), DV(0.5), o));
  CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == 1.5);
  /* 3 / 4 = 0.75 (truediv of ints is a Double) */
  CHECK_OK(run3("executorch_prim::truediv.Scalar", IV(3), IV(4), o));
  CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == 0.75);
  /* comparisons: Int/Int, mixed, Bool/Bool */
  CHECK_OK(run3("executorch_prim::ge.Scalar", IV(4), IV(4), o));
  CHECK(o->tag == PTE_TAG_BOOL && o->u.b);
  CHECK_OK(run3("executorch_prim::gt.Scalar", IV(4), IV(4), o));
  CHECK(o->tag == PTE_TAG_BOOL && !o->u.b);
  CHECK_OK(run3("executorch_prim::le.Scalar", IV(2), DV(2.5), o));
  CHECK(o->u.b);
  CHECK_OK(run3("executorch_prim::eq.Scalar", BV(true), BV(true), o));
  CHECK(o->u.b);
  CHECK_OK(run3("executorch_prim::lt.Scalar", DV(NAN), DV(1.0), o));
  CHECK(!o->u.b);
  /* neg, min/max on ints */
  CHECK_OK(run2("executorch_prim::neg.Scalar", IV(5), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == -5);
  CHECK_OK(run3("executorch_prim::sym_max.Scalar", IV(-5), IV(3), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == 3);
  CHECK_OK(run3("executorch_prim::sym_min.Scalar", IV(-5), IV(3), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == -5);
  /* sym_float / sym_not / sym_ite */
  CHECK_OK(run2("executorch_prim::sym_float.Scalar", IV(3), o));
  CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == 3.0);
  CHECK_OK(run2("executorch_prim::sym_not.Scalar", BV(false), o));
  CHECK(o->tag == PTE_TAG_BOOL && o->u.b);
  pte_evalue *ite[] = {BV(true), IV(11), IV(22), IV(0)};
  CHECK_OK(ktest_run(op("executorch_prim::sym_ite.Scalar"), ite, 4));
  CHECK(ite[3]->tag == PTE_TAG_INT && ite[3]->u.i == 11);
  ite[0] = BV(false);
  CHECK_OK(ktest_run(op("executorch_prim::sym_ite.Scalar"), ite, 4));
  CHECK(ite[3]->u.i == 22);
  /* INT64_MIN // -1 overflows: an error, not a trap; INT64_MIN % -1 == 0 */
  CHECK_STATUS(run3("executorch_prim::floordiv.int", IV(INT64_MIN), IV(-1), o), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(run3("executorch_prim::mod.int", IV(INT64_MIN), IV(-1), o));
  CHECK(o->u.i == 0);
}

TEST(bad_arguments_name_the_argument) {
  pte_evalue *o = IV(0);
  CHECK_STATUS(run3("executorch_prim::add.Scalar", BV(true), IV(1), o), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "a is Bool");
  CHECK_STATUS(run3("executorch_prim::floordiv.int", IV(1), DV(1.0), o), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "b is Double");
  CHECK_STATUS(run2("executorch_prim::sym_not.Scalar", IV(1), o), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "a is Int");
  CHECK_STATUS(run2("executorch_prim::round.Scalar", DV(INFINITY), o), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(run2("executorch_prim::ceil.Scalar", DV(NAN), o), PTE_ERR_INVALID_ARGUMENT);
  /* wrong argument count */
  pte_evalue *one[] = {IV(1)};
  CHECK_STATUS(ktest_run(op("executorch_prim::add.Scalar"), one, 1), PTE_ERR_INVALID_PROGRAM);
  /* the result slot must be a scalar slot, never a tensor */
  int32_t sz[] = {2};
  pte_evalue *tslot = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 1, sz, NULL, NULL));
  CHECK_STATUS(run3("executorch_prim::add.Scalar", IV(1), IV(2), tslot), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "out");
}

TEST(tensor_queries) {
  int32_t sz[] = {2, 3, 5};
  pte_tensor *t = ktest_tensor(PTE_DTYPE_FLOAT, 3, sz, NULL, NULL);
  pte_evalue *o = IV(0);
  CHECK_OK(run3("aten::sym_size.int", ktest_ev_tensor(t), IV(1), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == 3);
  CHECK_OK(run3("aten::sym_size.int", ktest_ev_tensor(t), IV(-1), o));
  CHECK(o->u.i == 5);
  CHECK_STATUS(run3("aten::sym_size.int", ktest_ev_tensor(t), IV(3), o), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "dim 3 out of range");
  CHECK_STATUS(run3("aten::sym_size.int", IV(1), IV(0), o), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "self");
  CHECK_OK(run2("aten::sym_numel", ktest_ev_tensor(t), o));
  CHECK(o->u.i == 30);
  /* _local_scalar_dense: int32 -> Int, float -> Double, bool -> Bool, half 1.5 (0x3e00) */
  int32_t one[] = {1};
  CHECK_OK(run2("aten::_local_scalar_dense", ktest_ev_tensor(ktest_tensor(PTE_DTYPE_INT, 1, one, NULL, (double[]){-42})), o));
  CHECK(o->tag == PTE_TAG_INT && o->u.i == -42);
  CHECK_OK(run2("aten::_local_scalar_dense", ktest_ev_tensor(ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, (double[]){2.25})), o));
  CHECK(o->tag == PTE_TAG_DOUBLE && o->u.d == 2.25);
  CHECK_OK(run2("aten::_local_scalar_dense", ktest_ev_tensor(ktest_tensor(PTE_DTYPE_BOOL, 1, one, NULL, (double[]){1})), o));
  CHECK(o->tag == PTE_TAG_BOOL && o->u.b);
  /* float16 is not one of upstream's dtypes for this op: a specific error */
  pte_tensor *h = ktest_tensor(PTE_DTYPE_HALF, 1, one, NULL, NULL);
  CHECK_STATUS(run2("aten::_local_scalar_dense", ktest_ev_tensor(h), o), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "float16");
  int32_t zero[] = {0};
  CHECK_STATUS(run2("aten::_local_scalar_dense", ktest_ev_tensor(ktest_tensor(PTE_DTYPE_INT, 1, zero, NULL, NULL)), o),
               PTE_ERR_INVALID_ARGUMENT);
}

TEST(et_copy_index_grows_first_dim) {
  /* copy_to: dynamic int32 [0, 2] with room for [3, 2]; rows {3,4} at 0, {5,6} at 1 */
  int32_t s0[] = {0, 2}, s1[] = {2};
  pte_tensor *dst = ktest_tensor_dyn(PTE_DTYPE_INT, 2, s0, NULL, 6);
  pte_tensor *r0 = ktest_tensor(PTE_DTYPE_INT, 1, s1, NULL, (double[]){3, 4});
  pte_tensor *r1 = ktest_tensor(PTE_DTYPE_INT, 1, s1, NULL, (double[]){5, 6});
  pte_evalue *a[] = {ktest_ev_tensor(dst), ktest_ev_tensor(r0), IV(0)};
  CHECK_OK(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3));
  CHECK(ktest_expect_shape(dst, 2, (int32_t[]){1, 2}));
  a[1] = ktest_ev_tensor(r1);
  a[2] = IV(1);
  CHECK_OK(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3));
  CHECK(ktest_expect_shape(dst, 2, (int32_t[]){2, 2}));
  CHECK(ktest_expect_i64(dst, (int64_t[]){3, 4, 5, 6}, 4));
  /* index 0 again (the next run of a stacking loop): back to 1 row */
  a[1] = ktest_ev_tensor(r1);
  a[2] = IV(0);
  CHECK_OK(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3));
  CHECK(ktest_expect_shape(dst, 2, (int32_t[]){1, 2}));
  CHECK(ktest_expect_i64(dst, (int64_t[]){5, 6}, 2));
  /* index 3 needs 4 rows: beyond the bound */
  a[2] = IV(3);
  CHECK_STATUS(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "copy_to");
  /* shape mismatch */
  int32_t s3[] = {3};
  a[1] = ktest_ev_tensor(ktest_tensor(PTE_DTYPE_INT, 1, s3, NULL, (double[]){1, 2, 3}));
  a[2] = IV(0);
  CHECK_STATUS(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3), PTE_ERR_INVALID_ARGUMENT);
  a[2] = DV(0.0);
  CHECK_STATUS(ktest_run(op("executorch_prim::et_copy_index.tensor"), a, 3), PTE_ERR_INVALID_TYPE);
  CHECK_CONTAINS(ktest_last_msg(), "index");
}

TEST(et_view_without_any_library) {
  pte_kernel_registry_reset();
  int32_t s[] = {2, 3};
  pte_tensor *x = ktest_tensor(PTE_DTYPE_FLOAT, 2, s, NULL, (double[]){1, 2, 3, 4, 5, 6});
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, (int32_t[]){1, 1}, NULL, 0);
  o->data = NULL;
  o->capacity_bytes = 0;
  pte_evalue *a[] = {ktest_ev_tensor(x), ktest_ev_int_list((int64_t[]){3, -1}, 2), ktest_ev_tensor(o)};
  CHECK_OK(ktest_run(op("executorch_prim::et_view.default"), a, 3));
  CHECK(o->data == x->data);
  CHECK(ktest_expect_shape(o, 2, (int32_t[]){3, 2}));
  CHECK_EQ_INT(o->strides[0], 2);
  a[1] = ktest_ev_int_list((int64_t[]){4, 2}, 2);
  CHECK_STATUS(ktest_run(op("executorch_prim::et_view.default"), a, 3), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(ktest_last_msg(), "size");
}

int main(void) {
  RUN(all_28_always_available);
  RUN(upstream_list_matches);
  RUN(int_floordiv_mod_match_python);
  RUN(double_ops_match_python);
  RUN(int_arithmetic_and_mixed);
  RUN(bad_arguments_name_the_argument);
  RUN(tensor_queries);
  RUN(et_copy_index_grows_first_dim);
  RUN(et_view_without_any_library);
  ktest_free_all();
  return test_summary();
}
