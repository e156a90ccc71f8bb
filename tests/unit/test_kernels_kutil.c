/* Tests for kernels/portable/util (kutil + elementwise helpers) and tests/support/ktest. */
#include "portable/util/elementwise.h"
#include "portable/util/kutil.h"
#include "support/ktest.h"
#include "test.h"

static float f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

TEST(half_from_float_exact_and_limits) {
  CHECK_EQ_INT(pte_k_float_to_half(1.0f), 0x3C00);
  CHECK_EQ_INT(pte_k_float_to_half(-2.0f), 0xC000);
  CHECK_EQ_INT(pte_k_float_to_half(0.0f), 0x0000);
  CHECK_EQ_INT(pte_k_float_to_half(-0.0f), 0x8000);
  CHECK_EQ_INT(pte_k_float_to_half(65504.0f), 0x7BFF);    /* max half */
  CHECK_EQ_INT(pte_k_float_to_half(65519.0f), 0x7BFF);    /* below the midpoint */
  CHECK_EQ_INT(pte_k_float_to_half(65520.0f), 0x7C00);    /* midpoint ties to even = inf */
  CHECK_EQ_INT(pte_k_float_to_half(1e10f), 0x7C00);
  CHECK_EQ_INT(pte_k_float_to_half(-1e10f), 0xFC00);
  CHECK_EQ_INT(pte_k_float_to_half(f32(0x7F800000u)), 0x7C00); /* inf */
  uint16_t nan = pte_k_float_to_half(f32(0x7FC00000u));
  CHECK((nan & 0x7C00) == 0x7C00 && (nan & 0x3FF) != 0);
  CHECK_EQ_INT(pte_k_float_to_half(6.103515625e-05f), 0x0400); /* 2^-14, smallest normal */
  CHECK_EQ_INT(pte_k_float_to_half(5.9604644775390625e-08f), 0x0001); /* 2^-24 */
  CHECK_EQ_INT(pte_k_float_to_half(2.98023223876953125e-08f), 0x0000); /* 2^-25: tie -> 0 */
  CHECK_EQ_INT(pte_k_float_to_half(4.470348358154297e-08f), 0x0001);  /* 1.5*2^-25 -> 2^-24 */
  CHECK_EQ_INT(pte_k_float_to_half(8.940696716308594e-08f), 0x0002);  /* 1.5*2^-24: tie -> even 2 */
  CHECK_EQ_INT(pte_k_float_to_half(6.0975551605224609e-05f), 0x03FF); /* largest subnormal */
}

TEST(half_round_ties_to_even) {
  /* 1 + 2^-11 lies halfway between 0x3C00 (even) and 0x3C01 */
  CHECK_EQ_INT(pte_k_float_to_half(1.00048828125f), 0x3C00);
  /* 1 + 3*2^-11 lies halfway between 0x3C01 (odd) and 0x3C02 (even) */
  CHECK_EQ_INT(pte_k_float_to_half(1.00146484375f), 0x3C02);
  /* just above the first midpoint rounds up */
  CHECK_EQ_INT(pte_k_float_to_half(f32(0x3F801001u)), 0x3C01);
  /* mantissa carry into the exponent: 2 - 2^-12 rounds to 2.0 */
  CHECK_EQ_INT(pte_k_float_to_half(1.999755859375f), 0x4000);
}

TEST(half_to_float_values) {
  CHECK(pte_k_half_to_float(0x3C00) == 1.0f);
  CHECK(pte_k_half_to_float(0x7BFF) == 65504.0f);
  CHECK(pte_k_half_to_float(0x0001) == 5.9604644775390625e-08f);
  CHECK(pte_k_half_to_float(0x8001) == -5.9604644775390625e-08f);
  CHECK(pte_k_half_to_float(0x3555) == 0.333251953125f);
  CHECK(isinf(pte_k_half_to_float(0xFC00)) && pte_k_half_to_float(0xFC00) < 0);
  CHECK(isnan(pte_k_half_to_float(0x7E00)));
}

TEST(bf16_conversions) {
  CHECK_EQ_INT(pte_k_float_to_bf16(1.0f), 0x3F80);
  CHECK_EQ_INT(pte_k_float_to_bf16(-2.0f), 0xC000);
  CHECK_EQ_INT(pte_k_float_to_bf16(f32(0x3F808000u)), 0x3F80); /* tie, keep even */
  CHECK_EQ_INT(pte_k_float_to_bf16(f32(0x3F818000u)), 0x3F82); /* tie, round up to even */
  CHECK_EQ_INT(pte_k_float_to_bf16(f32(0x3F808001u)), 0x3F81); /* above the tie */
  CHECK_EQ_INT(pte_k_float_to_bf16(f32(0x7F7FFFFFu)), 0x7F80);  /* FLT_MAX rounds to inf */
  uint16_t nan = pte_k_float_to_bf16(f32(0x7F800001u));         /* signalling NaN stays NaN */
  CHECK((nan & 0x7F80) == 0x7F80 && (nan & 0x7F) != 0);
  CHECK(pte_k_bf16_to_float(0x3F80) == 1.0f);
  CHECK(pte_k_bf16_to_float(0x4049) == 3.140625f);
}

TEST(promotion_table) {
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_CHAR, PTE_DTYPE_BYTE), PTE_DTYPE_SHORT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BYTE, PTE_DTYPE_CHAR), PTE_DTYPE_SHORT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BYTE, PTE_DTYPE_INT), PTE_DTYPE_INT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BYTE, PTE_DTYPE_SHORT), PTE_DTYPE_SHORT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BOOL, PTE_DTYPE_BOOL), PTE_DTYPE_BOOL);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BOOL, PTE_DTYPE_CHAR), PTE_DTYPE_CHAR);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BYTE, PTE_DTYPE_BOOL), PTE_DTYPE_BYTE);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_INT, PTE_DTYPE_LONG), PTE_DTYPE_LONG);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_HALF, PTE_DTYPE_FLOAT), PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_HALF, PTE_DTYPE_BFLOAT16), PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BFLOAT16, PTE_DTYPE_DOUBLE), PTE_DTYPE_DOUBLE);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_LONG, PTE_DTYPE_HALF), PTE_DTYPE_HALF);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_BOOL, PTE_DTYPE_BFLOAT16), PTE_DTYPE_BFLOAT16);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_FLOAT, PTE_DTYPE_DOUBLE), PTE_DTYPE_DOUBLE);
  CHECK_EQ_INT(pte_k_promote(PTE_DTYPE_UINT16, PTE_DTYPE_INT), PTE_K_DTYPE_INVALID);
}

TEST(scalar_promotion) {
  pte_evalue *i = ktest_ev_int(3), *d = ktest_ev_double(0.5), *b = ktest_ev_bool(true);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_INT, d), PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_BOOL, d), PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_HALF, d), PTE_DTYPE_HALF);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_DOUBLE, d), PTE_DTYPE_DOUBLE);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_BOOL, i), PTE_DTYPE_LONG);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_CHAR, i), PTE_DTYPE_CHAR);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_FLOAT, i), PTE_DTYPE_FLOAT);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_BOOL, b), PTE_DTYPE_BOOL);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_BYTE, b), PTE_DTYPE_BYTE);
  CHECK_EQ_INT(pte_k_promote_scalar(PTE_DTYPE_INT, ktest_ev_none()), PTE_K_DTYPE_INVALID);
  CHECK(pte_k_can_cast(PTE_DTYPE_INT, PTE_DTYPE_FLOAT));
  CHECK(pte_k_can_cast(PTE_DTYPE_DOUBLE, PTE_DTYPE_HALF));
  CHECK(pte_k_can_cast(PTE_DTYPE_BOOL, PTE_DTYPE_CHAR));
  CHECK(!pte_k_can_cast(PTE_DTYPE_FLOAT, PTE_DTYPE_LONG));
  CHECK(!pte_k_can_cast(PTE_DTYPE_INT, PTE_DTYPE_BOOL));
  CHECK(!pte_k_can_cast(PTE_DTYPE_HALF, PTE_DTYPE_BOOL));
}

TEST(load_store_conversions) {
  uint8_t buf[16];
  memset(buf, 0, sizeof buf);
  pte_k_store_int64(buf, PTE_DTYPE_CHAR, 0, 300);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_CHAR, 0), 44);
  pte_k_store_int64(buf, PTE_DTYPE_BYTE, 0, -1);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_BYTE, 0), 255);
  pte_k_store_int64(buf, PTE_DTYPE_SHORT, 0, 40000);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_SHORT, 0), -25536);
  pte_k_store_int64(buf, PTE_DTYPE_INT, 1, 0x180000000LL);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_INT, 1), INT32_MIN);
  pte_k_store_double(buf, PTE_DTYPE_INT, 0, -2.7);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_INT, 0), -2);
  pte_k_store_double(buf, PTE_DTYPE_LONG, 0, NAN);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_LONG, 0), 0);
  pte_k_store_double(buf, PTE_DTYPE_BOOL, 3, 0.25);
  CHECK_EQ_INT(buf[3], 1);
  pte_k_store_double(buf, PTE_DTYPE_BOOL, 3, -0.0);
  CHECK_EQ_INT(buf[3], 0);
  pte_k_store_double(buf, PTE_DTYPE_HALF, 0, 1.00048828125);
  CHECK_EQ_INT(((uint16_t *)buf)[0], 0x3C00);
  pte_k_store_double(buf, PTE_DTYPE_FLOAT, 0, 1e300); /* beyond float range: inf, no UB */
  CHECK(isinf(pte_k_load_double(buf, PTE_DTYPE_FLOAT, 0)));
  pte_k_store_int64(buf, PTE_DTYPE_LONG, 0, INT64_MIN);
  CHECK(pte_k_load_double(buf, PTE_DTYPE_LONG, 0) == -9223372036854775808.0);
  pte_k_store_double(buf, PTE_DTYPE_FLOAT, 0, 2.5);
  CHECK_EQ_INT(pte_k_load_int64(buf, PTE_DTYPE_FLOAT, 0), 2);
  CHECK_EQ_INT(pte_k_double_to_int64(1e30), INT64_MAX);
  CHECK_EQ_INT(pte_k_double_to_int64(-1e30), INT64_MIN);
  CHECK(pte_k_round_to_dtype(0.1, PTE_DTYPE_FLOAT) == (double)0.1f);
  CHECK(pte_k_round_to_dtype(3.9, PTE_DTYPE_CHAR) == 3.0);
}

TEST(broadcast_shapes) {
  int32_t out[PTE_MAX_RANK], dim;
  CHECK_OK(pte_k_broadcast_sizes((int32_t[]){2, 1, 3}, 3, (int32_t[]){4, 1}, 2, out, &dim));
  CHECK_EQ_INT(dim, 3);
  CHECK(out[0] == 2 && out[1] == 4 && out[2] == 3);
  CHECK_OK(pte_k_broadcast_sizes((int32_t[]){3}, 1, NULL, 0, out, &dim));
  CHECK(dim == 1 && out[0] == 3);
  CHECK_OK(pte_k_broadcast_sizes(NULL, 0, NULL, 0, out, &dim));
  CHECK_EQ_INT(dim, 0);
  CHECK_OK(pte_k_broadcast_sizes((int32_t[]){0, 1}, 2, (int32_t[]){1, 5}, 2, out, &dim));
  CHECK(out[0] == 0 && out[1] == 5);
  CHECK_STATUS(pte_k_broadcast_sizes((int32_t[]){2}, 1, (int32_t[]){3}, 1, out, &dim),
               PTE_ERR_INVALID_ARGUMENT);
  pte_tensor *t = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){1, 3}, NULL, NULL);
  CHECK(pte_k_broadcastable_to(t, (int32_t[]){4, 2, 3}, 3));
  CHECK(!pte_k_broadcastable_to(t, (int32_t[]){4, 2, 2}, 3));
  CHECK(!pte_k_broadcastable_to(t, (int32_t[]){3}, 1));
}

TEST(channels_last_layout_and_offsets) {
  /* N=1, C=2, H=2, W=3 in channels-last: strides C=1, H=6, W=2 */
  const uint8_t cl[] = {0, 2, 3, 1};
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i;
  pte_tensor *t = ktest_tensor(PTE_DTYPE_FLOAT, 4, (int32_t[]){1, 2, 2, 3}, cl, v);
  CHECK_EQ_INT(t->strides[0], 12);
  CHECK_EQ_INT(t->strides[1], 1);
  CHECK_EQ_INT(t->strides[2], 6);
  CHECK_EQ_INT(t->strides[3], 2);
  CHECK(pte_k_is_dense(t));
  CHECK(!pte_k_is_contiguous(t));
  /* logical element (0,1,0,2) = 1*6 + 0*3 + 2 = 8 lives at offset 1 + 0 + 4 = 5 */
  CHECK_EQ_INT(pte_k_offset_of_linear(t, 8), 5);
  CHECK(((float *)t->data)[5] == 8.0f);
  /* memory order: (c fastest) 0,6,1,7,2,8,3,9,4,10,5,11 */
  const float *d = (const float *)t->data;
  const float expect[12] = {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11};
  for (int i = 0; i < 12; i++) CHECK_MSG(d[i] == expect[i], "mem[%d] = %g", i, d[i]);
  CHECK_EQ_INT(pte_k_offset_of_index(t, (int64_t[]){0, 1, 1, 2}), 1 + 6 + 4);
}

TEST(iterator_visits_each_element_once) {
  const uint8_t cl[] = {0, 2, 3, 1};
  pte_tensor *a = ktest_tensor(PTE_DTYPE_FLOAT, 4, (int32_t[]){2, 3, 2, 2}, cl, NULL);
  pte_tensor *b = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){2, 1}, NULL, NULL); /* bcast */
  pte_k_iter it;
  const pte_tensor *ops[2] = {a, b};
  int seen[24] = {0};
  int visits = 0;
  CHECK(pte_k_iter_init(&it, a->sizes, a->dim, ops, 2));
  do {
    for (int64_t j = 0; j < it.inner; j++) {
      int64_t oa = it.off[0] + j * it.istride[0];
      int64_t ob = it.off[1] + j * it.istride[1];
      CHECK(oa >= 0 && oa < 24 && ob >= 0 && ob < 2);
      seen[oa]++;
      visits++;
    }
  } while (pte_k_iter_next(&it));
  CHECK_EQ_INT(visits, 24);
  for (int i = 0; i < 24; i++) CHECK_EQ_INT(seen[i], 1);
  /* contiguous, same-shape operands coalesce into one run */
  pte_tensor *c = ktest_tensor(PTE_DTYPE_FLOAT, 3, (int32_t[]){2, 3, 4}, NULL, NULL);
  const pte_tensor *ops2[2] = {c, c};
  CHECK(pte_k_iter_init(&it, c->sizes, c->dim, ops2, 2));
  CHECK_EQ_INT(it.inner, 24);
  CHECK_EQ_INT(it.ndim, 0);
  CHECK(!pte_k_iter_next(&it));
  /* empty shape: nothing to visit; rank 0: one element */
  pte_tensor *e = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){0, 3}, NULL, NULL);
  const pte_tensor *ops3[1] = {e};
  CHECK(!pte_k_iter_init(&it, e->sizes, e->dim, ops3, 1));
  pte_tensor *z = ktest_tensor(PTE_DTYPE_FLOAT, 0, NULL, NULL, (double[]){4});
  const pte_tensor *ops4[1] = {z};
  CHECK(pte_k_iter_init(&it, z->sizes, 0, ops4, 1));
  CHECK_EQ_INT(it.inner, 1);
}

TEST(copy_convert_layouts) {
  const uint8_t cl[] = {0, 2, 3, 1};
  double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  pte_tensor *src = ktest_tensor(PTE_DTYPE_LONG, 4, (int32_t[]){1, 2, 2, 2}, NULL, v);
  pte_tensor *dst = ktest_tensor(PTE_DTYPE_HALF, 4, (int32_t[]){1, 2, 2, 2}, cl, NULL);
  pte_k_copy_convert(src, dst);
  CHECK(ktest_expect(dst, v, 8, 0));
  /* channels-last memory: c fastest -> 1,5,2,6,3,7,4,8 */
  const uint16_t *h = (const uint16_t *)dst->data;
  CHECK_EQ_INT(h[0], 0x3C00); /* 1.0 */
  CHECK_EQ_INT(h[1], 0x4500); /* 5.0 */
  CHECK_EQ_INT(h[2], 0x4000); /* 2.0 */
}

TEST(ktest_evalues_and_args) {
  pte_evalue *l = ktest_ev_int_list((int64_t[]){3, -1, 7}, 3);
  size_t len = 0;
  const int64_t *vals = pte_evalue_int_list(l, &len);
  CHECK(vals != NULL);
  CHECK_EQ_INT(len, 3);
  CHECK(vals[0] == 3 && vals[1] == -1 && vals[2] == 7);
  l->u.int_list.items[1]->u.i = 42; /* SymInt changed at run time */
  vals = pte_evalue_int_list(l, &len);
  CHECK_EQ_INT(vals[1], 42);

  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  pte_evalue *args[4] = {ktest_ev_int(5), ktest_ev_double(2.5), ktest_ev_bool(true), l};
  double d;
  int64_t i;
  bool b;
  CHECK(pte_k_arg_double(&ctx, args, 4, 0, &d) && d == 5.0);
  CHECK(pte_k_arg_int(&ctx, args, 4, 0, &i) && i == 5);
  CHECK(pte_k_arg_bool(&ctx, args, 4, 2, &b) && b);
  CHECK_EQ_INT(ctx.failure, PTE_OK);
  CHECK(!pte_k_arg_int(&ctx, args, 4, 1, &i)); /* 2.5 is not an int */
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);
  memset(&ctx, 0, sizeof ctx);
  CHECK(pte_k_arg_tensor(&ctx, args, 4, 0) == NULL);
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);
  memset(&ctx, 0, sizeof ctx);
  CHECK(pte_k_arg_tensor(&ctx, args, 4, 9) == NULL); /* out of range */
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);
  memset(&ctx, 0, sizeof ctx);
  CHECK(pte_k_arg_int_list(&ctx, args, 4, 3, &len) != NULL);
  CHECK(pte_k_arg_int_list(&ctx, args, 4, 0, &len) == NULL);
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);

  pte_tensor *t = ktest_tensor(PTE_DTYPE_INT, 1, (int32_t[]){2}, NULL, (double[]){1, 2});
  pte_evalue *out = ktest_ev_tensor(t), *ret = ktest_ev_none();
  pte_evalue *a2[3] = {ktest_ev_none(), out, ret};
  pte_k_set_return(a2, 3, 1);
  CHECK_EQ_INT(ret->tag, PTE_TAG_TENSOR);
  CHECK(ret->u.tensor == t);
}

TEST(resize_out_rules) {
  pte_kernel_context ctx;
  memset(&ctx, 0, sizeof ctx);
  pte_tensor *s = ktest_tensor(PTE_DTYPE_FLOAT, 2, (int32_t[]){2, 2}, NULL, NULL);
  CHECK(pte_k_resize_out(&ctx, s, (int32_t[]){2, 2}, 2));
  CHECK(!pte_k_resize_out(&ctx, s, (int32_t[]){2, 3}, 2));
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);
  memset(&ctx, 0, sizeof ctx);
  pte_tensor *d = ktest_tensor_dyn(PTE_DTYPE_FLOAT, 2, (int32_t[]){1, 1}, NULL, 6);
  CHECK(pte_k_resize_out(&ctx, d, (int32_t[]){2, 3}, 2));
  CHECK_EQ_INT(d->numel, 6);
  CHECK_EQ_INT(d->strides[0], 3);
  CHECK(!pte_k_resize_out(&ctx, d, (int32_t[]){2, 4}, 2)); /* over capacity */
  CHECK_EQ_INT(ctx.failure, PTE_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN(half_from_float_exact_and_limits);
  RUN(half_round_ties_to_even);
  RUN(half_to_float_values);
  RUN(bf16_conversions);
  RUN(promotion_table);
  RUN(scalar_promotion);
  RUN(load_store_conversions);
  RUN(broadcast_shapes);
  RUN(channels_last_layout_and_offsets);
  RUN(iterator_visits_each_element_once);
  RUN(copy_convert_layouts);
  RUN(ktest_evalues_and_args);
  RUN(resize_out_rules);
  ktest_free_all();
  return test_summary();
}
