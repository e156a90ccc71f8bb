/* Tests for the shape / copy kernels (kernels/portable/op_shape.c). Expected values are written
 * out by hand. */
#include "test.h"

#include "portable/portable_shape.h"
#include "support/ktest.h"
#include "support/ktest_sugar.h"

static pte_status run(const char *name, pte_evalue **args, size_t n) {
  return ktest_run(ktest_find(pte_portable_shape_kernels, pte_portable_shape_kernels_count, name), args, n);
}

TEST(table_names) {
  const char *names[] = {"aten::view_copy.out", "executorch_prim::et_view.default",
                         "aten::permute_copy.out", "aten::expand_copy.out",
                         "aten::squeeze_copy.dim_out", "aten::squeeze_copy.dims_out",
                         "aten::unsqueeze_copy.out", "aten::select_copy.int_out",
                         "aten::slice_copy.Tensor_out", "aten::cat.out", "aten::stack.out",
                         "aten::split_with_sizes_copy.out", "aten::split_copy.Tensor_out",
                         "aten::constant_pad_nd.out", "aten::arange.out", "aten::arange.start_out",
                         "aten::repeat.out", "aten::transpose_copy.int_out", "aten::t_copy.out",
                         "aten::flip.out"};
  CHECK(ktest_table_is(pte_portable_shape_kernels, pte_portable_shape_kernels_count, names, sizeof names / sizeof names[0]));
}

/* ---- view_copy / et_view ---- */

TEST(view_copy_infer_and_return_slot) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(3, 1, 2), NULL, NULL);
  pte_evalue *out = EV(o), *ret = ktest_ev_none();
  pte_evalue *args[] = {EV(a), IL(3, -1, 2), out, ret};
  CHECK_OK(run("aten::view_copy.out", args, 4));
  CHECK(ktest_expect_shape(o, 3, SZ(3, 1, 2)));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6), 6, 0));
  CHECK_EQ_INT(ret->tag, PTE_TAG_TENSOR);
  CHECK(ret->u.tensor == o);
}

TEST(view_copy_channels_last_input) {
  /* logical [1,2,2,2] = 0..7 stored channels-last; the view is in logical order */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), ktest_cl4, DV(0, 1, 2, 3, 4, 5, 6, 7));
  /* memory order of channels-last: (h,w,c) -> 0,4,1,5,2,6,3,7 */
  CHECK_EQ_INT(((float *)a->data)[1], 4);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 4), NULL, NULL);
  pte_evalue *args[] = {EV(a), IL(2, 4), EV(o)};
  CHECK_OK(run("aten::view_copy.out", args, 3));
  CHECK(ktest_expect(o, DV(0, 1, 2, 3, 4, 5, 6, 7), 8, 0));
  /* into a column-major out */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(4, 2), ktest_t2, NULL);
  pte_evalue *args2[] = {EV(a), IL(4, 2), EV(o2)};
  CHECK_OK(run("aten::view_copy.out", args2, 3));
  CHECK(ktest_expect(o2, DV(0, 1, 2, 3, 4, 5, 6, 7), 8, 0));
  CHECK_EQ_INT(((float *)o2->data)[1], 2); /* memory: column 0 = 0,2,4,6 */
}

TEST(view_copy_all_dtypes) {
  for (size_t k = 0; k < KTEST_N_ALL_DTYPES; k++) {
    int dt = ktest_all_dtypes[k];
    double v[6] = {1, 0, 1, 1, 0, 1};
    if (dt != PTE_DTYPE_BOOL)
      for (int i = 0; i < 6; i++) v[i] = i * 3 - 4; /* -4 .. 11; uint8 wraps */
    if (dt == PTE_DTYPE_BYTE)
      for (int i = 0; i < 6; i++) v[i] = i * 3;
    pte_tensor *a = ktest_tensor(dt, 2, SZ(3, 2), NULL, v);
    pte_tensor *o = ktest_tensor(dt, 1, SZ(6), NULL, NULL);
    pte_evalue *args[] = {EV(a), IL(-1), EV(o), NULL};
    args[3] = args[2];
    CHECK_OK(run("aten::view_copy.out", args, 4));
    CHECK_MSG(ktest_expect(o, v, 6, 0), "dtype %s", pte_dtype_name(dt));
  }
}

TEST(view_copy_errors) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 2), NULL, NULL);
  pte_evalue *a1[] = {EV(a), IL(-1, -1), EV(o)};
  CHECK_STATUS(run("aten::view_copy.out", a1, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a2[] = {EV(a), IL(4, 2), EV(o)};
  CHECK_STATUS(run("aten::view_copy.out", a2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *oi = ktest_tensor(PTE_DTYPE_INT, 2, SZ(3, 2), NULL, NULL);
  pte_evalue *a3[] = {EV(a), IL(3, 2), EV(oi)};
  CHECK_STATUS(run("aten::view_copy.out", a3, 3), PTE_ERR_INVALID_ARGUMENT);
  /* static out of the wrong shape cannot be resized */
  pte_evalue *a4[] = {EV(a), IL(1, 6), EV(o)};
  CHECK_STATUS(run("aten::view_copy.out", a4, 3), PTE_ERR_INVALID_ARGUMENT);
  /* wrong arg count / tag */
  CHECK_STATUS(run("aten::view_copy.out", a4, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a5[] = {EV(a), ktest_ev_int(6), EV(o)};
  CHECK_STATUS(run("aten::view_copy.out", a5, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(view_copy_empty_and_scalar) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 3), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 3, 4);
  pte_evalue *args[] = {EV(a), IL(3, 0, 5), EV(o)};
  CHECK_OK(run("aten::view_copy.out", args, 3));
  CHECK(ktest_expect_shape(o, 3, SZ(3, 0, 5)));
  /* -1 cannot be inferred with a zero dim */
  pte_evalue *args2[] = {EV(a), IL(0, -1, 1), EV(o)};
  CHECK_STATUS(run("aten::view_copy.out", args2, 3), PTE_ERR_INVALID_ARGUMENT);
  /* 0-dim -> [1,1] and back */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, DV(42));
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(1, 1), NULL, NULL);
  pte_evalue *args3[] = {EV(s), IL(1, -1), EV(o2)};
  CHECK_OK(run("aten::view_copy.out", args3, 3));
  CHECK(ktest_expect(o2, DV(42), 1, 0));
  pte_tensor *o3 = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, NULL);
  pte_evalue *args4[] = {EV(o2), ktest_ev_int_list(NULL, 0), EV(o3)};
  CHECK_OK(run("aten::view_copy.out", args4, 3));
  CHECK(ktest_expect(o3, DV(42), 1, 0));
}

TEST(et_view_aliases_data) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, SZ(1, 1), NULL, 0);
  o->data = NULL;
  o->capacity_bytes = 0;
  pte_evalue *args[] = {EV(a), IL(-1, 2), EV(o)};
  CHECK_OK(run("executorch_prim::et_view.default", args, 3));
  CHECK(o->data == a->data);
  CHECK(ktest_expect_shape(o, 2, SZ(3, 2)));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6), 6, 0));
  CHECK_EQ_INT(o->strides[0], 2);
  /* a static out of the right shape with no data */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(6), NULL, NULL);
  o2->data = NULL;
  pte_evalue *args2[] = {EV(a), IL(6), EV(o2)};
  CHECK_OK(run("executorch_prim::et_view.default", args2, 3));
  CHECK(o2->data == a->data);
  /* wrong numel / dtype */
  pte_evalue *args3[] = {EV(a), IL(7), EV(o2)};
  CHECK_STATUS(run("executorch_prim::et_view.default", args3, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *oi = ktest_tensor(PTE_DTYPE_INT, 1, SZ(6), NULL, NULL);
  pte_evalue *args4[] = {EV(a), IL(6), EV(oi)};
  CHECK_STATUS(run("executorch_prim::et_view.default", args4, 3), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- permute / transpose / t ---- */

TEST(permute_copy_values) {
  /* a[i][j][k] = 100i + 10j + k, shape [2,3,2]; permute (2,0,1) -> [2,2,3], out[k][i][j] */
  double v[12];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 2; k++) v[i * 6 + j * 2 + k] = 100 * i + 10 * j + k;
  pte_tensor *a = ktest_tensor(PTE_DTYPE_DOUBLE, 3, SZ(2, 3, 2), NULL, v);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_DOUBLE, 3, 12);
  pte_evalue *args[] = {EV(a), IL(-1, 0, 1), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::permute_copy.out", args, 4));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 2, 3)));
  CHECK(ktest_expect(o, DV(0, 10, 20, 100, 110, 120, 1, 11, 21, 101, 111, 121), 12, 0));
  pte_evalue *bad[] = {EV(a), IL(0, 0, 1), EV(o)};
  CHECK_STATUS(run("aten::permute_copy.out", bad, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(a), IL(0, 1), EV(o)};
  CHECK_STATUS(run("aten::permute_copy.out", bad2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad3[] = {EV(a), IL(0, 1, 3), EV(o)};
  CHECK_STATUS(run("aten::permute_copy.out", bad3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(permute_copy_channels_last_to_nchw) {
  /* NCHW->NHWC permute of a channels-last input is a plain memcpy of its memory */
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i;
  pte_tensor *a = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 3, 2, 2), ktest_cl4, v);
  pte_tensor *o = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 2, 3), NULL, NULL);
  pte_evalue *args[] = {EV(a), IL(0, 2, 3, 1), EV(o)};
  CHECK_OK(run("aten::permute_copy.out", args, 3));
  /* out[0][h][w][c] = a[0][c][h][w] = c*4 + h*2 + w */
  CHECK(ktest_expect(o, DV(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11), 12, 0));
  CHECK(memcmp(o->data, a->data, 24) == 0);
  /* channels-last out too: out memory order (n,w?)... check logical values only */
  pte_tensor *o2 = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 2, 3), ktest_cl4, NULL);
  pte_evalue *args2[] = {EV(a), IL(0, 2, 3, 1), EV(o2)};
  CHECK_OK(run("aten::permute_copy.out", args2, 3));
  CHECK(ktest_expect(o2, DV(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11), 12, 0));
}

TEST(transpose_and_t) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_INT, 2, 6);
  pte_evalue *args[] = {EV(a), ktest_ev_int(-1), ktest_ev_int(0), EV(o)};
  CHECK_OK(run("aten::transpose_copy.int_out", args, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 2)));
  CHECK(ktest_expect(o, DV(1, 4, 2, 5, 3, 6), 6, 0));
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_INT, 2, 6);
  pte_evalue *args2[] = {EV(a), EV(o2), NULL};
  args2[2] = args2[1];
  CHECK_OK(run("aten::t_copy.out", args2, 3));
  CHECK(ktest_expect(o2, DV(1, 4, 2, 5, 3, 6), 6, 0));
  /* 1-D t is a copy; 3-D t is an error */
  pte_tensor *v = ktest_tensor(PTE_DTYPE_INT, 1, SZ(3), NULL, DV(7, 8, 9));
  pte_tensor *o3 = ktest_tensor(PTE_DTYPE_INT, 1, SZ(3), NULL, NULL);
  pte_evalue *args3[] = {EV(v), EV(o3)};
  CHECK_OK(run("aten::t_copy.out", args3, 2));
  CHECK(ktest_expect(o3, DV(7, 8, 9), 3, 0));
  pte_tensor *c = ktest_tensor(PTE_DTYPE_INT, 3, SZ(1, 1, 1), NULL, NULL);
  pte_evalue *args4[] = {EV(c), EV(c)};
  CHECK_STATUS(run("aten::t_copy.out", args4, 2), PTE_ERR_INVALID_ARGUMENT);
  /* transpose of a 0-dim tensor with dims 0/-1 */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_INT, 0, NULL, NULL, DV(5));
  pte_tensor *so = ktest_tensor(PTE_DTYPE_INT, 0, NULL, NULL, NULL);
  pte_evalue *args5[] = {EV(s), ktest_ev_int(0), ktest_ev_int(-1), EV(so)};
  CHECK_OK(run("aten::transpose_copy.int_out", args5, 4));
  CHECK(ktest_expect(so, DV(5), 1, 0));
  pte_evalue *args6[] = {EV(a), ktest_ev_int(2), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::transpose_copy.int_out", args6, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- expand ---- */

TEST(expand_copy_values) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 1), NULL, DV(1, 2, 3));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 3, 64);
  pte_evalue *args[] = {EV(a), IL(2, -1, 4), ktest_ev_bool(false), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::expand_copy.out", args, 5));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 3, 4)));
  CHECK(ktest_expect(o, DV(1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3), 24, 0));
  /* middle broadcast: [2,1,2] -> [2,3,2] */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_SHORT, 3, SZ(2, 1, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_SHORT, 3, 12);
  pte_evalue *args2[] = {EV(b), IL(2, 3, 2), ktest_ev_bool(true), EV(ob)};
  CHECK_OK(run("aten::expand_copy.out", args2, 4));
  CHECK(ktest_expect(ob, DV(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4), 12, 0));
}

TEST(expand_copy_non_contiguous) {
  /* input column-major [2,1]... use a channels-last input [1,2,1,1]->[2,2,3,1] into a
   * channels-last out */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 1), ktest_cl4, DV(5, 6));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(2, 2, 3, 1), ktest_cl4, NULL);
  pte_evalue *args[] = {EV(a), IL(2, 2, 3, 1), ktest_ev_bool(false), EV(o)};
  CHECK_OK(run("aten::expand_copy.out", args, 4));
  CHECK(ktest_expect(o, DV(5, 5, 5, 6, 6, 6, 5, 5, 5, 6, 6, 6), 12, 0));
  /* column-major input [2,3] expanded to [2,2,3] */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *ob = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(2, 2, 3), NULL, NULL);
  pte_evalue *args2[] = {EV(b), IL(2, 2, 3), ktest_ev_bool(false), EV(ob)};
  CHECK_OK(run("aten::expand_copy.out", args2, 4));
  CHECK(ktest_expect(ob, DV(1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6), 12, 0));
}

TEST(expand_copy_large_broadcast) {
  /* the djl_spike_med_output pattern (FLOAT[1] -> FLOAT[N]), at 2^22 elements */
  const int32_t n = 1 << 22;
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(1), NULL, DV(2.5));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 1, &n, NULL, NULL);
  pte_evalue *args[] = {EV(a), IL(n), ktest_ev_bool(false), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::expand_copy.out", args, 5));
  const float *f = (const float *)o->data;
  for (int32_t i = 0; i < n; i++)
    if (f[i] != 2.5f) CHECK_MSG(0, "element %d = %g", (int)i, f[i]);
  /* a row broadcast to many rows */
  double row[5] = {1, 2, 3, 4, 5};
  pte_tensor *r = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, SZ(1, 5), NULL, row);
  pte_tensor *ro = ktest_tensor(PTE_DTYPE_BFLOAT16, 3, SZ(7, 1000, 5), NULL, NULL);
  pte_evalue *args2[] = {EV(r), IL(7, 1000, 5), ktest_ev_bool(false), EV(ro)};
  CHECK_OK(run("aten::expand_copy.out", args2, 4));
  for (size_t i = 0; i < ro->numel; i++)
    if (ktest_get(ro, i) != (double)(i % 5 + 1)) CHECK_MSG(0, "element %zu", i);
}

TEST(expand_copy_errors) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(3, 2), NULL, NULL);
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 64);
  pte_evalue *a1[] = {EV(a), IL(3, 3), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::expand_copy.out", a1, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *a2[] = {EV(a), IL(2), ktest_ev_bool(false), EV(o)};
  CHECK_STATUS(run("aten::expand_copy.out", a2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *o3 = ktest_dyn(PTE_DTYPE_FLOAT, 3, 64);
  pte_evalue *a3[] = {EV(a), IL(-1, 3, 2), ktest_ev_bool(false), EV(o3)};
  CHECK_STATUS(run("aten::expand_copy.out", a3, 4), PTE_ERR_INVALID_ARGUMENT);
  /* out too small for the dynamic capacity */
  pte_tensor *o4 = ktest_dyn(PTE_DTYPE_FLOAT, 3, 10);
  pte_evalue *a4[] = {EV(a), IL(2, 3, 2), ktest_ev_bool(false), EV(o4)};
  CHECK_STATUS(run("aten::expand_copy.out", a4, 4), PTE_ERR_INVALID_ARGUMENT);
  /* expanding an empty dim: [0,2] -> [3,0,2] */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(0, 2), NULL, NULL);
  pte_evalue *a5[] = {EV(e), IL(3, 0, 2), ktest_ev_bool(false), EV(o3)};
  CHECK_OK(run("aten::expand_copy.out", a5, 4));
  CHECK(ktest_expect_shape(o3, 3, SZ(3, 0, 2)));
}

/* ---- squeeze / unsqueeze ---- */

TEST(squeeze_unsqueeze) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_CHAR, 4, SZ(1, 3, 1, 2), NULL, DV(-1, 2, -3, 4, -5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_CHAR, 2, 6);
  pte_evalue *args[] = {EV(a), IL(0, -2), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::squeeze_copy.dims_out", args, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 2)));
  CHECK(ktest_expect(o, DV(-1, 2, -3, 4, -5, 6), 6, 0));
  /* a listed dim that is not 1 stays */
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_CHAR, 3, 6);
  pte_evalue *args2[] = {EV(a), IL(0, 1), EV(o2)};
  CHECK_OK(run("aten::squeeze_copy.dims_out", args2, 3));
  CHECK(ktest_expect_shape(o2, 3, SZ(3, 1, 2)));
  pte_evalue *args3[] = {EV(a), ktest_ev_int(2), EV(o2)};
  CHECK_OK(run("aten::squeeze_copy.dim_out", args3, 3));
  CHECK(ktest_expect_shape(o2, 3, SZ(1, 3, 2)));
  CHECK(ktest_expect(o2, DV(-1, 2, -3, 4, -5, 6), 6, 0));
  pte_evalue *bad[] = {EV(a), IL(0, -4), EV(o)};
  CHECK_STATUS(run("aten::squeeze_copy.dims_out", bad, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(a), ktest_ev_int(4), EV(o2)};
  CHECK_STATUS(run("aten::squeeze_copy.dim_out", bad2, 3), PTE_ERR_INVALID_ARGUMENT);
  /* 0-dim squeeze */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_CHAR, 0, NULL, NULL, DV(9));
  pte_tensor *so = ktest_tensor(PTE_DTYPE_CHAR, 0, NULL, NULL, NULL);
  pte_evalue *args4[] = {EV(s), ktest_ev_int(-1), EV(so)};
  CHECK_OK(run("aten::squeeze_copy.dim_out", args4, 3));
  CHECK(ktest_expect(so, DV(9), 1, 0));
  /* unsqueeze: [3] at -1 -> [3,1]; at 0 -> [1,3]; 0-dim -> [1] */
  pte_tensor *v = ktest_tensor(PTE_DTYPE_BOOL, 1, SZ(3), NULL, DV(1, 0, 1));
  pte_tensor *u = ktest_dyn(PTE_DTYPE_BOOL, 2, 3);
  pte_evalue *args5[] = {EV(v), ktest_ev_int(-1), EV(u)};
  CHECK_OK(run("aten::unsqueeze_copy.out", args5, 3));
  CHECK(ktest_expect_shape(u, 2, SZ(3, 1)));
  CHECK(ktest_expect(u, DV(1, 0, 1), 3, 0));
  pte_evalue *args6[] = {EV(v), ktest_ev_int(0), EV(u)};
  CHECK_OK(run("aten::unsqueeze_copy.out", args6, 3));
  CHECK(ktest_expect_shape(u, 2, SZ(1, 3)));
  pte_evalue *args7[] = {EV(v), ktest_ev_int(2), EV(u)};
  CHECK_STATUS(run("aten::unsqueeze_copy.out", args7, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *u1 = ktest_dyn(PTE_DTYPE_CHAR, 1, 1);
  pte_evalue *args8[] = {EV(s), ktest_ev_int(0), EV(u1)};
  CHECK_OK(run("aten::unsqueeze_copy.out", args8, 3));
  CHECK(ktest_expect(u1, DV(9), 1, 0));
}

TEST(squeeze_channels_last) {
  /* [1,2,1,3] channels-last squeezed to [2,3] */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 1, 3), ktest_cl4, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *args[] = {EV(a), IL(0, 2), EV(o)};
  CHECK_OK(run("aten::squeeze_copy.dims_out", args, 3));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6), 6, 0));
  /* unsqueeze of a column-major matrix */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *ob = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(2, 1, 3), NULL, NULL);
  pte_evalue *args2[] = {EV(b), ktest_ev_int(1), EV(ob)};
  CHECK_OK(run("aten::unsqueeze_copy.out", args2, 3));
  CHECK(ktest_expect(ob, DV(1, 2, 3, 4, 5, 6), 6, 0));
}

/* ---- select / slice ---- */

TEST(select_copy) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 1, 3);
  pte_evalue *args[] = {EV(a), ktest_ev_int(1), ktest_ev_int(-1), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::select_copy.int_out", args, 5));
  CHECK(ktest_expect_shape(o, 1, SZ(2)));
  CHECK(ktest_expect(o, DV(3, 6), 2, 0));
  pte_evalue *args2[] = {EV(a), ktest_ev_int(0), ktest_ev_int(1), EV(o)};
  CHECK_OK(run("aten::select_copy.int_out", args2, 4));
  CHECK(ktest_expect(o, DV(4, 5, 6), 3, 0));
  pte_evalue *bad[] = {EV(a), ktest_ev_int(0), ktest_ev_int(2), EV(o)};
  CHECK_STATUS(run("aten::select_copy.int_out", bad, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(a), ktest_ev_int(1), ktest_ev_int(-4), EV(o)};
  CHECK_STATUS(run("aten::select_copy.int_out", bad2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *s = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, DV(1));
  pte_evalue *bad3[] = {EV(s), ktest_ev_int(0), ktest_ev_int(0), EV(s)};
  CHECK_STATUS(run("aten::select_copy.int_out", bad3, 4), PTE_ERR_INVALID_ARGUMENT);
  /* select of a 1-D tensor gives a 0-dim tensor */
  pte_tensor *v = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(3), NULL, DV(7, 8, 9));
  pte_tensor *so = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, NULL);
  pte_evalue *args3[] = {EV(v), ktest_ev_int(0), ktest_ev_int(-2), EV(so)};
  CHECK_OK(run("aten::select_copy.int_out", args3, 4));
  CHECK(ktest_expect(so, DV(8), 1, 0));
  /* channels-last input: select channel 1 of [1,2,2,2] */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), ktest_cl4, DV(0, 1, 2, 3, 4, 5, 6, 7));
  pte_tensor *co = ktest_tensor(PTE_DTYPE_FLOAT, 3, SZ(1, 2, 2), NULL, NULL);
  pte_evalue *args4[] = {EV(c), ktest_ev_int(1), ktest_ev_int(1), EV(co)};
  CHECK_OK(run("aten::select_copy.int_out", args4, 4));
  CHECK(ktest_expect(co, DV(4, 5, 6, 7), 4, 0));
}

TEST(slice_copy) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_INT, 1, SZ(6), NULL, DV(0, 1, 2, 3, 4, 5));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_INT, 1, 6);
  pte_evalue *args[] = {EV(a), ktest_ev_int(0), ktest_ev_none(), ktest_ev_none(), ktest_ev_int(2), EV(o), NULL};
  args[6] = args[5];
  CHECK_OK(run("aten::slice_copy.Tensor_out", args, 7));
  CHECK(ktest_expect(o, DV(0, 2, 4), 3, 0));
  pte_evalue *args2[] = {EV(a), ktest_ev_int(-1), ktest_ev_int(-3), ktest_ev_int(INT64_MAX), ktest_ev_int(1), EV(o)};
  CHECK_OK(run("aten::slice_copy.Tensor_out", args2, 6));
  CHECK(ktest_expect(o, DV(3, 4, 5), 3, 0));
  pte_evalue *args3[] = {EV(a), ktest_ev_int(0), ktest_ev_int(-100), ktest_ev_int(4), ktest_ev_int(3), EV(o)};
  CHECK_OK(run("aten::slice_copy.Tensor_out", args3, 6));
  CHECK(ktest_expect(o, DV(0, 3), 2, 0));
  /* end before start: empty */
  pte_evalue *args4[] = {EV(a), ktest_ev_int(0), ktest_ev_int(4), ktest_ev_int(1), ktest_ev_int(1), EV(o)};
  CHECK_OK(run("aten::slice_copy.Tensor_out", args4, 6));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  pte_evalue *bad[] = {EV(a), ktest_ev_int(0), ktest_ev_none(), ktest_ev_none(), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::slice_copy.Tensor_out", bad, 6), PTE_ERR_INVALID_ARGUMENT);
  /* 2-D, dim 1, column-major input */
  pte_tensor *m = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 4), ktest_t2, DV(1, 2, 3, 4, 5, 6, 7, 8));
  pte_tensor *mo = ktest_dyn(PTE_DTYPE_DOUBLE, 2, 8);
  pte_evalue *args5[] = {EV(m), ktest_ev_int(1), ktest_ev_int(1), ktest_ev_int(3), ktest_ev_int(1), EV(mo)};
  CHECK_OK(run("aten::slice_copy.Tensor_out", args5, 6));
  CHECK(ktest_expect_shape(mo, 2, SZ(2, 2)));
  CHECK(ktest_expect(mo, DV(2, 3, 6, 7), 4, 0));
}

/* ---- cat / split ---- */

TEST(cat_values_and_promotion) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 1), NULL, DV(1, 2));
  pte_tensor *b = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 2), NULL, DV(3, 4, 5, 6));
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 1, SZ(0), NULL, NULL); /* skipped legacy empty */
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 6);
  pte_tensor *ts[] = {a, e, b};
  pte_evalue *args[] = {ktest_ev_tensor_list(ts, 3), ktest_ev_int(-1), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::cat.out", args, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 3)));
  CHECK(ktest_expect(o, DV(1, 3, 4, 2, 5, 6), 6, 0));
  /* dim 0 */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 2), NULL, DV(7, 8));
  pte_tensor *ts2[] = {c, ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), ktest_t2, DV(1, 2, 3, 4))};
  pte_tensor *o2 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 6);
  pte_evalue *args2[] = {ktest_ev_tensor_list(ts2, 2), ktest_ev_int(0), EV(o2)};
  CHECK_OK(run("aten::cat.out", args2, 3));
  CHECK(ktest_expect_shape(o2, 2, SZ(3, 2)));
  CHECK(ktest_expect(o2, DV(7, 8, 1, 2, 3, 4), 6, 0));
  /* float cannot be cast into an int out */
  pte_tensor *oi = ktest_dyn(PTE_DTYPE_INT, 2, 6);
  pte_evalue *args3[] = {ktest_ev_tensor_list(ts, 3), ktest_ev_int(1), EV(oi)};
  CHECK_STATUS(run("aten::cat.out", args3, 3), PTE_ERR_INVALID_ARGUMENT);
  /* mismatched sizes */
  pte_tensor *ts4[] = {a, c};
  pte_evalue *args4[] = {ktest_ev_tensor_list(ts4, 2), ktest_ev_int(1), EV(o)};
  CHECK_STATUS(run("aten::cat.out", args4, 3), PTE_ERR_INVALID_ARGUMENT);
  /* empty list */
  pte_evalue *args5[] = {ktest_ev_tensor_list(NULL, 0), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::cat.out", args5, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(cat_channels_last) {
  /* two [1,1,2,2] channels-last tensors along C into a channels-last [1,2,2,2] */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), ktest_cl4, DV(1, 2, 3, 4));
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 1, 2, 2), ktest_cl4, DV(5, 6, 7, 8));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_FLOAT, 4, SZ(1, 2, 2, 2), ktest_cl4, NULL);
  pte_tensor *ts[] = {a, b};
  pte_evalue *args[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(1), EV(o)};
  CHECK_OK(run("aten::cat.out", args, 3));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6, 7, 8), 8, 0));
  const float *f = (const float *)o->data;
  CHECK(f[0] == 1 && f[1] == 5 && f[2] == 2 && f[3] == 6);
}

TEST(stack) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *b = ktest_tensor(PTE_DTYPE_INT, 2, SZ(2, 2), ktest_t2, DV(5, 6, 7, 8));
  pte_tensor *ts[] = {a, b};
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 3, 16);
  pte_evalue *args[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(0), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::stack.out", args, 4));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 2, 2)));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6, 7, 8), 8, 0));
  pte_evalue *args2[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(-1), EV(o)};
  CHECK_OK(run("aten::stack.out", args2, 3));
  CHECK(ktest_expect(o, DV(1, 5, 2, 6, 3, 7, 4, 8), 8, 0));
  pte_evalue *args3[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(1), EV(o)};
  CHECK_OK(run("aten::stack.out", args3, 3));
  CHECK(ktest_expect(o, DV(1, 2, 5, 6, 3, 4, 7, 8), 8, 0));
  /* 0-dim inputs stack into a vector */
  pte_tensor *s1 = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, DV(3));
  pte_tensor *s2 = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, DV(-4));
  pte_tensor *ss[] = {s1, s2, s1};
  pte_tensor *so = ktest_dyn(PTE_DTYPE_LONG, 1, 4);
  pte_evalue *args4[] = {ktest_ev_tensor_list(ss, 3), ktest_ev_int(0), EV(so)};
  CHECK_OK(run("aten::stack.out", args4, 3));
  CHECK(ktest_expect(so, DV(3, -4, 3), 3, 0));
  /* errors: shape mismatch, dim out of range, float into int */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 1), NULL, NULL);
  pte_tensor *bad[] = {a, c};
  pte_evalue *b1[] = {ktest_ev_tensor_list(bad, 2), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::stack.out", b1, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *b2[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(3), EV(o)};
  CHECK_STATUS(run("aten::stack.out", b2, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *oi = ktest_dyn(PTE_DTYPE_INT, 3, 16);
  pte_evalue *b3[] = {ktest_ev_tensor_list(ts, 2), ktest_ev_int(0), EV(oi)};
  CHECK_STATUS(run("aten::stack.out", b3, 3), PTE_ERR_INVALID_ARGUMENT);
}

TEST(split_with_sizes_and_split) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 5), NULL, DV(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  pte_tensor *o1 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 10), *o2 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 10);
  pte_tensor *outs[] = {o1, o2};
  pte_evalue *args[] = {EV(a), IL(2, 3), ktest_ev_int(-1), ktest_ev_tensor_list(outs, 2)};
  CHECK_OK(run("aten::split_with_sizes_copy.out", args, 4));
  CHECK(ktest_expect_shape(o1, 2, SZ(2, 2)));
  CHECK(ktest_expect(o1, DV(0, 1, 5, 6), 4, 0));
  CHECK(ktest_expect(o2, DV(2, 3, 4, 7, 8, 9), 6, 0));
  pte_evalue *bad[] = {EV(a), IL(2, 2), ktest_ev_int(1), ktest_ev_tensor_list(outs, 2)};
  CHECK_STATUS(run("aten::split_with_sizes_copy.out", bad, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(a), IL(2, 3, 0), ktest_ev_int(1), ktest_ev_tensor_list(outs, 2)};
  CHECK_STATUS(run("aten::split_with_sizes_copy.out", bad2, 4), PTE_ERR_INVALID_ARGUMENT);
  /* split_copy: size 2 along dim 1 -> [2,2],[2,2],[2,1] */
  pte_tensor *p1 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 10), *p2 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 10), *p3 = ktest_dyn(PTE_DTYPE_FLOAT, 2, 10);
  pte_tensor *pouts[] = {p1, p2, p3};
  pte_evalue *args2[] = {EV(a), ktest_ev_int(2), ktest_ev_int(1), ktest_ev_tensor_list(pouts, 3)};
  CHECK_OK(run("aten::split_copy.Tensor_out", args2, 4));
  CHECK(ktest_expect(p1, DV(0, 1, 5, 6), 4, 0));
  CHECK(ktest_expect(p2, DV(2, 3, 7, 8), 4, 0));
  CHECK(ktest_expect_shape(p3, 2, SZ(2, 1)));
  CHECK(ktest_expect(p3, DV(4, 9), 2, 0));
  pte_evalue *bad3[] = {EV(a), ktest_ev_int(3), ktest_ev_int(1), ktest_ev_tensor_list(pouts, 3)};
  CHECK_STATUS(run("aten::split_copy.Tensor_out", bad3, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad4[] = {EV(a), ktest_ev_int(0), ktest_ev_int(1), ktest_ev_tensor_list(pouts, 3)};
  CHECK_STATUS(run("aten::split_copy.Tensor_out", bad4, 4), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- constant_pad_nd ---- */

TEST(constant_pad_nd) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(2, 2), NULL, DV(1, 2, 3, 4));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 2, 32);
  pte_evalue *args[] = {EV(a), IL(1, 0), ktest_ev_double(9.5), EV(o), NULL};
  args[4] = args[3];
  CHECK_OK(run("aten::constant_pad_nd.out", args, 5));
  CHECK(ktest_expect_shape(o, 2, SZ(2, 3)));
  CHECK(ktest_expect(o, DV(9.5, 1, 2, 9.5, 3, 4), 6, 0));
  pte_evalue *args2[] = {EV(a), IL(0, 1, 1, 0), ktest_ev_int(0), EV(o)};
  CHECK_OK(run("aten::constant_pad_nd.out", args2, 4));
  CHECK(ktest_expect_shape(o, 2, SZ(3, 3)));
  CHECK(ktest_expect(o, DV(0, 0, 0, 1, 2, 0, 3, 4, 0), 9, 0));
  /* negative padding crops */
  pte_evalue *args3[] = {EV(a), IL(-1, 1), ktest_ev_int(7), EV(o)};
  CHECK_OK(run("aten::constant_pad_nd.out", args3, 4));
  CHECK(ktest_expect(o, DV(2, 7, 4, 7), 4, 0));
  pte_evalue *bad[] = {EV(a), IL(1), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::constant_pad_nd.out", bad, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(a), IL(-3, 0), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::constant_pad_nd.out", bad2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad3[] = {EV(a), IL(0, 0, 0, 0, 0, 0), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::constant_pad_nd.out", bad3, 4), PTE_ERR_INVALID_ARGUMENT);
  /* int8 with an overflowing value */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_CHAR, 1, SZ(2), NULL, DV(1, 2));
  pte_tensor *co = ktest_dyn(PTE_DTYPE_CHAR, 1, 8);
  pte_evalue *bad4[] = {EV(c), IL(1, 1), ktest_ev_int(300), EV(co)};
  CHECK_STATUS(run("aten::constant_pad_nd.out", bad4, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *args4[] = {EV(c), IL(2, 1), ktest_ev_int(-128), EV(co)};
  CHECK_OK(run("aten::constant_pad_nd.out", args4, 4));
  CHECK(ktest_expect(co, DV(-128, -128, 1, 2, -128), 5, 0));
}

TEST(constant_pad_nd_channels_last) {
  /* pad W by (1,1) on a channels-last [1,2,1,2] */
  pte_tensor *a = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 1, 2), ktest_cl4, DV(1, 2, 3, 4));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_HALF, 4, SZ(1, 2, 1, 4), ktest_cl4, NULL);
  pte_evalue *args[] = {EV(a), IL(1, 1), ktest_ev_double(-0.5), EV(o)};
  CHECK_OK(run("aten::constant_pad_nd.out", args, 4));
  CHECK(ktest_expect(o, DV(-0.5, 1, 2, -0.5, -0.5, 3, 4, -0.5), 8, 0));
}

/* ---- arange ---- */

TEST(arange) {
  pte_tensor *o = ktest_dyn(PTE_DTYPE_LONG, 1, 16);
  pte_evalue *args[] = {ktest_ev_int(5), EV(o), NULL};
  args[2] = args[1];
  CHECK_OK(run("aten::arange.out", args, 3));
  CHECK(ktest_expect(o, DV(0, 1, 2, 3, 4), 5, 0));
  pte_tensor *f = ktest_dyn(PTE_DTYPE_FLOAT, 1, 16);
  pte_evalue *args2[] = {ktest_ev_int(1), ktest_ev_int(2), ktest_ev_double(0.3), EV(f), NULL};
  args2[4] = args2[3];
  CHECK_OK(run("aten::arange.start_out", args2, 5));
  CHECK(ktest_expect(f, DV(1, 1.3, 1.6, 1.9), 4, 1e-6));
  /* descending */
  pte_evalue *args3[] = {ktest_ev_int(3), ktest_ev_int(-3), ktest_ev_int(-2), EV(o)};
  CHECK_OK(run("aten::arange.start_out", args3, 4));
  CHECK(ktest_expect(o, DV(3, 1, -1), 3, 0));
  /* int64 out truncates a fractional end first (2.5 -> 2); int32 sizes with the double span */
  pte_evalue *args4[] = {ktest_ev_double(2.5), EV(o)};
  CHECK_OK(run("aten::arange.out", args4, 2));
  CHECK(ktest_expect(o, DV(0, 1), 2, 0));
  pte_tensor *i = ktest_dyn(PTE_DTYPE_INT, 1, 16);
  pte_evalue *args5[] = {ktest_ev_double(2.5), EV(i)};
  CHECK_OK(run("aten::arange.out", args5, 2));
  CHECK(ktest_expect(i, DV(0, 1, 2), 3, 0));
  /* half */
  pte_tensor *h = ktest_dyn(PTE_DTYPE_HALF, 1, 16);
  pte_evalue *args6[] = {ktest_ev_double(0), ktest_ev_double(1), ktest_ev_double(0.25), EV(h)};
  CHECK_OK(run("aten::arange.start_out", args6, 4));
  CHECK(ktest_expect(h, DV(0, 0.25, 0.5, 0.75), 4, 0));
  /* empty range */
  pte_evalue *args7[] = {ktest_ev_int(0), EV(o)};
  CHECK_OK(run("aten::arange.out", args7, 2));
  CHECK(ktest_expect_shape(o, 1, SZ(0)));
  /* errors */
  pte_evalue *bad[] = {ktest_ev_int(0), ktest_ev_int(5), ktest_ev_int(0), EV(o)};
  CHECK_STATUS(run("aten::arange.start_out", bad, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {ktest_ev_int(0), ktest_ev_int(5), ktest_ev_int(-1), EV(o)};
  CHECK_STATUS(run("aten::arange.start_out", bad2, 4), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *b = ktest_dyn(PTE_DTYPE_BOOL, 1, 16);
  pte_evalue *bad3[] = {ktest_ev_int(2), EV(b)};
  CHECK_STATUS(run("aten::arange.out", bad3, 2), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *small = ktest_tensor(PTE_DTYPE_LONG, 1, SZ(3), NULL, NULL);
  pte_evalue *bad4[] = {ktest_ev_int(5), EV(small)};
  CHECK_STATUS(run("aten::arange.out", bad4, 2), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- repeat ---- */

TEST(repeat) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 2, SZ(1, 2), NULL, DV(1, 2));
  pte_tensor *o = ktest_dyn(PTE_DTYPE_FLOAT, 3, 64);
  pte_evalue *args[] = {EV(a), IL(2, 2, 3), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::repeat.out", args, 4));
  CHECK(ktest_expect_shape(o, 3, SZ(2, 2, 6)));
  double e[24];
  for (int i = 0; i < 24; i++) e[i] = (i % 2) + 1;
  CHECK(ktest_expect(o, e, 24, 0));
  /* [2,2] column-major, repeats [2,1] */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_LONG, 2, SZ(2, 2), ktest_t2, DV(1, 2, 3, 4));
  pte_tensor *ob = ktest_dyn(PTE_DTYPE_LONG, 2, 8);
  pte_evalue *args2[] = {EV(b), IL(2, 1), EV(ob)};
  CHECK_OK(run("aten::repeat.out", args2, 3));
  CHECK(ktest_expect(ob, DV(1, 2, 3, 4, 1, 2, 3, 4), 8, 0));
  /* 0-dim repeat */
  pte_tensor *s = ktest_tensor(PTE_DTYPE_LONG, 0, NULL, NULL, DV(3));
  pte_tensor *os = ktest_dyn(PTE_DTYPE_LONG, 1, 8);
  pte_evalue *args3[] = {EV(s), IL(4), EV(os)};
  CHECK_OK(run("aten::repeat.out", args3, 3));
  CHECK(ktest_expect(os, DV(3, 3, 3, 3), 4, 0));
  /* zero repeat */
  pte_evalue *args4[] = {EV(b), IL(0, 3), EV(ob)};
  CHECK_OK(run("aten::repeat.out", args4, 3));
  CHECK(ktest_expect_shape(ob, 2, SZ(0, 6)));
  pte_evalue *bad[] = {EV(b), IL(2), EV(ob)};
  CHECK_STATUS(run("aten::repeat.out", bad, 3), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue *bad2[] = {EV(b), IL(2, -1), EV(ob)};
  CHECK_STATUS(run("aten::repeat.out", bad2, 3), PTE_ERR_INVALID_ARGUMENT);
}

/* ---- flip ---- */

TEST(flip) {
  pte_tensor *a = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *o = ktest_tensor(PTE_DTYPE_DOUBLE, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *args[] = {EV(a), IL(0, -1), EV(o), NULL};
  args[3] = args[2];
  CHECK_OK(run("aten::flip.out", args, 4));
  CHECK(ktest_expect(o, DV(6, 5, 4, 3, 2, 1), 6, 0));
  pte_evalue *args2[] = {EV(a), IL(1), EV(o)};
  CHECK_OK(run("aten::flip.out", args2, 3));
  CHECK(ktest_expect(o, DV(3, 2, 1, 6, 5, 4), 6, 0));
  pte_evalue *args3[] = {EV(a), ktest_ev_int_list(NULL, 0), EV(o)};
  CHECK_OK(run("aten::flip.out", args3, 3));
  CHECK(ktest_expect(o, DV(1, 2, 3, 4, 5, 6), 6, 0));
  pte_evalue *bad[] = {EV(a), IL(1, -1), EV(o)};
  CHECK_STATUS(run("aten::flip.out", bad, 3), PTE_ERR_INVALID_ARGUMENT);
  /* column-major in, row-major out */
  pte_tensor *b = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, SZ(2, 3), ktest_t2, DV(1, 2, 3, 4, 5, 6));
  pte_tensor *ob = ktest_tensor(PTE_DTYPE_BFLOAT16, 2, SZ(2, 3), NULL, NULL);
  pte_evalue *args4[] = {EV(b), IL(0), EV(ob)};
  CHECK_OK(run("aten::flip.out", args4, 3));
  CHECK(ktest_expect(ob, DV(4, 5, 6, 1, 2, 3), 6, 0));
}

int main(void) {
  RUN(table_names);
  RUN(view_copy_infer_and_return_slot);
  RUN(view_copy_channels_last_input);
  RUN(view_copy_all_dtypes);
  RUN(view_copy_errors);
  RUN(view_copy_empty_and_scalar);
  RUN(et_view_aliases_data);
  RUN(permute_copy_values);
  RUN(permute_copy_channels_last_to_nchw);
  RUN(transpose_and_t);
  RUN(expand_copy_values);
  RUN(expand_copy_non_contiguous);
  RUN(expand_copy_large_broadcast);
  RUN(expand_copy_errors);
  RUN(squeeze_unsqueeze);
  RUN(squeeze_channels_last);
  RUN(select_copy);
  RUN(slice_copy);
  RUN(cat_values_and_promotion);
  RUN(cat_channels_last);
  RUN(stack);
  RUN(split_with_sizes_and_split);
  RUN(constant_pad_nd);
  RUN(constant_pad_nd_channels_last);
  RUN(arange);
  RUN(repeat);
  RUN(flip);
  ktest_free_all();
  return test_summary();
}
