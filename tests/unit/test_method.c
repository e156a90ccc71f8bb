/* Method load/execute on hand-built programs (tests/support/method_fixture.h): every value kind,
 * tensor placement rules, all five instruction kinds, kernel resolution, inputs/outputs, temp
 * memory, and the error paths (each with its exact status). Delegates, external data, the event
 * tracer and method meta: test_method_hooks.c. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "format/flatbuf.h"
#include "pte/backend.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/program.h"

#include "method_fixture.h"

/* ================================================================== tests: values */

TEST(every_value_kind) {
  static const int64_t il[3] = {1, 2, 1}; /* value indices of Int values */
  static const double dl[3] = {0.5, -1.0, 3.25};
  static const uint8_t bl[2] = {1, 0};
  static const int32_t tl[2] = {6, 7};
  static const int32_t otl[3] = {6, -1, 0};
  tval v[12];
  v[0] = VN();
  v[1] = VI(-42);
  v[2] = VI(7);
  v[3] = VD(2.5);
  v[4] = VB(true);
  v[5] = VS("hello");
  v[6] = T1(PTE_DTYPE_FLOAT, 3, 1, 0);
  v[7] = T1(PTE_DTYPE_INT, 2, 1, 64);
  /* channels-last [1,2,2,3] */
  v[8] = T1(PTE_DTYPE_FLOAT, 1, 1, 128);
  v[8].dim = 4;
  v[8].sizes[1] = 2; v[8].sizes[2] = 2; v[8].sizes[3] = 3;
  v[8].order[0] = 0; v[8].order[1] = 2; v[8].order[2] = 3; v[8].order[3] = 1;
  v[9] = VL(KT_INT_LIST, il, 3);
  v[10] = VL(KT_DOUBLE_LIST, dl, 3);
  v[11] = VL(KT_BOOL_LIST, bl, 2);
  tval w[14];
  memcpy(w, v, sizeof v);
  w[12] = VL(KT_TENSOR_LIST, tl, 2);
  w[13] = VL(KT_OPT_TENSOR_LIST, otl, 3);
  tplan p = {0};
  p.vals = w;
  p.nv = 14;
  SETA(p.outputs, p.no, 1, 3, 4, 5, 6);
  SETL(p.ncbs, p.nncbs, 0, 4096);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  pte_status s = fx_load(&tp);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), g_fx.err.msg);
  pte_method *m = g_fx.m;
  CHECK_EQ_INT(pte_method_num_values(m), 14);
  CHECK_EQ_INT(pte_method_get_value(m, 0)->tag, PTE_TAG_NONE);
  CHECK(pte_method_get_value(m, 1)->tag == PTE_TAG_INT && pte_method_get_value(m, 1)->u.i == -42);
  CHECK(pte_method_get_value(m, 3)->tag == PTE_TAG_DOUBLE && pte_method_get_value(m, 3)->u.d == 2.5);
  CHECK(pte_method_get_value(m, 4)->tag == PTE_TAG_BOOL && pte_method_get_value(m, 4)->u.b);
  const pte_evalue *str = pte_method_get_value(m, 5);
  CHECK(str->tag == PTE_TAG_STRING && str->u.str.len == 5 && memcmp(str->u.str.ptr, "hello", 5) == 0);
  const pte_evalue *t6 = pte_method_get_value(m, 6);
  CHECK(t6->tag == PTE_TAG_TENSOR && t6->u.tensor->numel == 3 && t6->u.tensor->dtype == PTE_DTYPE_FLOAT);
  CHECK(t6->u.tensor->data == g_fx.planned_mem[0]);
  CHECK(t6->u.tensor->flags & PTE_TENSOR_PLANNED);
  CHECK(pte_method_get_value(m, 7)->u.tensor->data == g_fx.planned_mem[0] + 64);
  const pte_tensor *cl = pte_method_get_value(m, 8)->u.tensor;
  CHECK(cl->dim == 4 && pte_dim_order_is_channels_last(cl->dim_order, 4));
  /* NHWC strides for N=1,C=2,H=2,W=3: C stride 1, W stride C=2, H stride W*C=6, N 12. */
  CHECK(cl->strides[0] == 12 && cl->strides[1] == 1 && cl->strides[2] == 6 && cl->strides[3] == 2);
  pte_evalue *il_v = (pte_evalue *)pte_method_get_value(m, 9);
  size_t len = 0;
  const int64_t *ints = pte_evalue_int_list(il_v, &len);
  CHECK(ints && len == 3 && ints[0] == -42 && ints[1] == 7 && ints[2] == -42);
  CHECK(il_v->u.int_list.items[1] == pte_method_get_value(m, 2)); /* boxed: points at the value */
  const pte_evalue *dl_v = pte_method_get_value(m, 10);
  CHECK(dl_v->tag == PTE_TAG_LIST_DOUBLE && dl_v->u.double_list.len == 3 && dl_v->u.double_list.items[2] == 3.25);
  const pte_evalue *bl_v = pte_method_get_value(m, 11);
  CHECK(bl_v->tag == PTE_TAG_LIST_BOOL && bl_v->u.bool_list.len == 2 && bl_v->u.bool_list.items[0] == 1);
  const pte_evalue *tl_v = pte_method_get_value(m, 12);
  CHECK(tl_v->tag == PTE_TAG_LIST_TENSOR && tl_v->u.tensor_list.len == 2);
  CHECK(tl_v->u.tensor_list.items[1] == pte_method_get_value(m, 7));
  const pte_evalue *otl_v = pte_method_get_value(m, 13);
  CHECK(otl_v->tag == PTE_TAG_LIST_OPTIONAL_TENSOR && otl_v->u.opt_tensor_list.len == 3);
  CHECK(otl_v->u.opt_tensor_list.items[0] == t6 && otl_v->u.opt_tensor_list.items[1] == NULL &&
        otl_v->u.opt_tensor_list.items[2] == NULL); /* value 0 is None */
  /* Zero-instruction method: outputs are the values themselves. */
  CHECK_OK(pte_method_execute(m, &g_fx.err));
  CHECK(pte_method_get_output(m, 0)->u.i == -42);
  CHECK(pte_method_get_output(m, 4) == t6);
  CHECK(pte_method_get_output(m, 5) == NULL);
  fx_done();
}

TEST(bad_value_tables) {
  static const int64_t bad_il[1] = {5};
  static const int32_t later_tl[1] = {1};
  static const int32_t nontensor_tl[1] = {0};
  tval v[2];
  tplan p = {0};
  p.vals = v;
  p.nv = 2;
  SETL(p.ncbs, p.nncbs, 0, 4096);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};

  v[0] = VL(KT_INT_LIST, bad_il, 1);
  v[1] = VI(1);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "IntList");
  CHECK_EQ_INT(g_fx.ma.used, 0); /* allocator rewound */

  v[0] = VL(KT_TENSOR_LIST, later_tl, 1); /* refers to a later value */
  v[1] = T1(PTE_DTYPE_FLOAT, 1, 1, 0);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "earlier");

  v[0] = VI(3);
  v[1] = VL(KT_TENSOR_LIST, nontensor_tl, 1); /* refers to an Int */
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "Int");

  v[0] = VI(3);
  v[1] = VI(4);
  v[1].kind = 0; /* NONE union tag */
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);

  /* Output index out of range. */
  v[1] = VI(4);
  SETA(p.outputs, p.no, 2);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "output 0");
  p.outputs = NULL;
  p.no = 0;

  /* No chains; missing delegates field. */
  p.no_chains = true;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "no chains");
  p.no_chains = false;
  p.no_delegates_field = true;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "delegates");
  fx_done();
}

/* ================================================================== tests: tensor placement */

TEST(tensor_placement_rules) {
  static const float c1[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  const void *consts[2] = {"", c1};
  size_t csz[2] = {0, sizeof c1};
  tval v[5];
  v[0] = T1(PTE_DTYPE_FLOAT, 4, -1, 0); /* constant */
  v[0].dbi = 1;
  v[1] = T1(PTE_DTYPE_FLOAT, 4, 1, 16); /* planned */
  v[2] = T1(PTE_DTYPE_FLOAT, 4, 1, 16); /* aliases v1 */
  v[3] = T1(PTE_DTYPE_FLOAT, 4, -1, 0); /* unplanned: supplied at run time */
  v[4] = T1(PTE_DTYPE_FLOAT, 2, 2, 8);  /* second planned buffer */
  tplan p = {0};
  p.vals = v;
  p.nv = 5;
  SETL(p.ncbs, p.nncbs, 0, 64, 64);
  tprog tp = {&p, 1, consts, csz, 2, NULL, NULL, 0};
  pte_status s = fx_load(&tp);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), g_fx.err.msg);
  pte_method *m = g_fx.m;
  const pte_tensor *t0 = pte_method_get_value(m, 0)->u.tensor;
  CHECK(t0->flags & PTE_TENSOR_CONST);
  CHECK(memcmp(t0->data, c1, sizeof c1) == 0);
  CHECK((const uint8_t *)t0->data >= g_fx.bytes && (const uint8_t *)t0->data < g_fx.bytes + g_fx.size); /* zero copy */
  CHECK(pte_method_get_value(m, 1)->u.tensor->data == g_fx.planned_mem[0] + 16);
  CHECK(pte_method_get_value(m, 2)->u.tensor->data == pte_method_get_value(m, 1)->u.tensor->data);
  CHECK(pte_method_get_value(m, 3)->u.tensor->data == NULL);
  CHECK(pte_method_get_value(m, 4)->u.tensor->data == g_fx.planned_mem[1] + 8);
  fx_done();

  /* memory_id 0 -> InvalidProgram; memory_id beyond the declared buffers -> InvalidProgram;
   * declared but not provided -> InvalidArgument; past the end -> MemoryAllocationFailed. */
  tval w[1];
  p.vals = w;
  p.nv = 1;
  tp.nconsts = 0;
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 0, 0);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "memory_id 0");
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 3, 0);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "declares 2 planned buffers");
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 2, 0);
  CHECK(fx_prog(&tp, PTE_VERIFY_MINIMAL));
  g_fx.mm.n_planned = 1;
  CHECK_STATUS(pte_method_load(&g_fx.prog, "forward", &g_fx.mm, NULL, NULL, &g_fx.m, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(g_fx.err.msg, "provides 1 planned buffers");
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 1, 4096 - 12); /* 16 bytes at 4084 in a 4096-byte buffer */
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 1, 4096 - 16); /* exactly fits */
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL));
  CHECK(pte_method_get_value(g_fx.m, 0)->u.tensor->data == g_fx.planned_mem[0] + 4080);
  fx_done();
  /* 64-bit offset: high word counts (offset 2^32 + 0 is past a 4 KiB buffer). */
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 1, 0);
  w[0].off_hi = 1;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_MEMORY_ALLOCATION_FAILED);
  CHECK_CONTAINS(g_fx.err.msg, "4294967296");
  fx_done();
}

TEST(tensor_dynamism_and_shape_errors) {
  tval w[1];
  tplan p = {0};
  p.vals = w;
  p.nv = 1;
  SETL(p.ncbs, p.nncbs, 0, 4096);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  w[0] = T1(PTE_DTYPE_FLOAT, 4, 1, 0);
  w[0].dyn = PTE_SHAPE_DYNAMIC_UNBOUND;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(g_fx.err.msg, "DYNAMIC_UNBOUND");
  w[0].dyn = PTE_SHAPE_DYNAMIC_BOUND;
  CHECK_OK(fx_load(&tp));
  const pte_tensor *t = pte_method_get_value(g_fx.m, 0)->u.tensor;
  CHECK(t->dynamism == PTE_SHAPE_DYNAMIC_BOUND && t->capacity_bytes == 16);
  fx_done();
  w[0].dyn = 0;
  w[0].storage_offset = 4;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_NOT_SUPPORTED);
  w[0].storage_offset = 0;
  w[0].dim = 2;
  w[0].sizes[1] = 2;
  w[0].order[0] = 1;
  w[0].order[1] = 1; /* not a permutation */
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  w[0].order[0] = 0;
  w[0].sizes[1] = -2;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  w[0] = T1(40, 4, 1, 0); /* invalid scalar type */
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  fx_done();
}

/* ================================================================== tests: kernels */

static const char *const k_ops_add1[] = {"test::add1", "out"};

static tprog add1_prog(tplan *p, tval *v, tinstr *in) {
  v[0] = T1(PTE_DTYPE_FLOAT, 3, 1, 0);
  v[1] = T1(PTE_DTYPE_FLOAT, 3, 1, 16);
  in[0].kind = I_KERNEL;
  in[0].a = 0;
  SETA(in[0].args, in[0].nargs, 0, 1);
  in[0].nargs = 2;
  memset(p, 0, sizeof *p);
  p->vals = v;
  p->nv = 2;
  SETA(p->inputs, p->ni, 0);
  SETA(p->outputs, p->no, 1);
  p->ins = in;
  p->nins = 1;
  p->ops = k_ops_add1;
  p->nops = 1;
  SETL(p->ncbs, p->nncbs, 0, 32);
  tprog tp = {p, 1, NULL, NULL, 0, NULL, NULL, 0};
  return tp;
}

TEST(kernel_call_and_key_resolution) {
  register_test_kernels();
  tplan p;
  tval v[2];
  tinstr in[1];
  tprog tp = add1_prog(&p, v, in);
  CHECK_OK(fx_load(&tp));
  float x[3] = {1, 2, 3};
  int32_t s3[] = {3};
  CHECK_OK(pte_method_set_input_tensor(g_fx.m, 0, PTE_DTYPE_FLOAT, s3, 1, x, sizeof x, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(fdata(pte_method_get_output(g_fx.m, 0))[2] == 4.0f); /* global fallback */
  fx_done();
  /* Method-scoped table with an exact-key kernel wins over the global fallback. */
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.kernels = k_test_kernels;
  o.n_kernels = N_TEST_KERNELS;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_OK(pte_method_set_input_tensor(g_fx.m, 0, PTE_DTYPE_FLOAT, s3, 1, x, sizeof x, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(fdata(pte_method_get_output(g_fx.m, 0))[0] == 101.0f);
  fx_done();
  /* An INT tensor has another key: the method-scoped fallback applies. */
  v[0].dtype = v[1].dtype = PTE_DTYPE_INT;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  fx_done();
}

TEST(missing_operators_listed_once) {
  register_test_kernels();
  static const char *const ops[] = {"custom::a", "out", "test::nop", "", "custom::b", ""};
  tval v[1] = {T1(PTE_DTYPE_FLOAT, 1, 1, 0)};
  tinstr in[4];
  memset(in, 0, sizeof in);
  for (int i = 0; i < 4; i++) {
    in[i].kind = I_KERNEL;
    SETA(in[i].args, in[i].nargs, 0);
  }
  in[0].a = 0;
  in[1].a = 1;
  in[2].a = 2;
  in[3].a = 0;
  tplan p = {0};
  p.vals = v;
  p.nv = 1;
  p.ins = in;
  p.nins = 4;
  p.ops = ops;
  p.nops = 3;
  SETL(p.ncbs, p.nncbs, 0, 16);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  CHECK_STATUS(fx_load(&tp), PTE_ERR_OPERATOR_MISSING);
  CHECK_CONTAINS(g_fx.err.msg, "missing operators: custom::a.out, custom::b (");
  CHECK_CONTAINS(g_fx.err.msg, "3 instructions");
  CHECK(g_fx.m == NULL);
  /* Operator index out of range. */
  in[3].a = 3;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "operator index 3");
  /* Argument index out of range. */
  in[3].a = 1;
  SETA(in[3].args, in[3].nargs, 1);
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  fx_done();
}

TEST(kernel_failure_message_and_state) {
  register_test_kernels();
  static const char *const ops[] = {"test::nop", "", "test::fail", "out"};
  tval v[1] = {T1(PTE_DTYPE_FLOAT, 1, 1, 0)};
  tinstr in[2];
  memset(in, 0, sizeof in);
  in[0].kind = in[1].kind = I_KERNEL;
  in[0].a = 0;
  in[1].a = 1;
  SETA(in[1].args, in[1].nargs, 0);
  in[0].args = in[1].args;
  in[0].nargs = in[1].nargs = 1;
  tplan p = {0};
  p.vals = v;
  p.nv = 1;
  p.ins = in;
  p.nins = 2;
  p.ops = ops;
  p.nops = 2;
  SETL(p.ncbs, p.nncbs, 0, 16);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  CHECK_OK(fx_load(&tp));
  g_kcalls = 0;
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_TYPE);
  CHECK_STR(g_fx.err.msg, "instruction 1 (test::fail.out) failed: unsupported dtype bfloat16");
  CHECK_EQ_INT(g_kcalls, 1);
  /* State was reset: execute again reaches the same failure (not InvalidState). */
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_TYPE);
  CHECK_EQ_INT(g_kcalls, 2);
  /* step(): first instruction fine, second fails. */
  CHECK_OK(pte_method_step(g_fx.m, &g_fx.err));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_STATE); /* mid step */
  CHECK_STATUS(pte_method_step(g_fx.m, &g_fx.err), PTE_ERR_INVALID_TYPE);
  fx_done();
  /* Two chains: the message names the chain. */
  p.n_chains = 2;
  CHECK_OK(fx_load(&tp));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_TYPE);
  CHECK_STR(g_fx.err.msg, "chain 0 instruction 1 (test::fail.out) failed: unsupported dtype bfloat16");
  fx_done();
}

/* ================================================================== tests: control flow */


TEST(jump_false_loop_and_instruction_cap) {
  register_test_kernels();
  tplan p;
  tval v[4];
  tinstr in[3];
  tprog tp = loop_prog(&p, v, in, 5);
  CHECK_OK(fx_load(&tp));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK_EQ_INT(((int32_t *)pte_method_get_output(g_fx.m, 0)->u.tensor->data)[0], 5);
  fx_done();
  /* 5 iterations = 14 instructions: a cap of 13 trips, 14 passes. */
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.max_instructions = 13;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "instruction limit (13)");
  /* State reset after the failure. */
  CHECK_OK(pte_method_step(g_fx.m, &g_fx.err));
  fx_done();
  o.max_instructions = 14;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  fx_done();
  /* Infinite loop (limit never reached) hits the cap. */
  tp = loop_prog(&p, v, in, 1000000000);
  o.max_instructions = 1000;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_PROGRAM);
  fx_done();
  /* A destination past the end ends the chain; a negative one too. */
  tp = loop_prog(&p, v, in, 5);
  in[2].b = 99; /* the program verifier would reject this: load unverified */
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK_EQ_INT(((int32_t *)pte_method_get_output(g_fx.m, 0)->u.tensor->data)[0], 1);
  fx_done();
  in[2].b = -1;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  fx_done();
  /* Condition of the wrong kind: Int, float tensor. */
  tp = loop_prog(&p, v, in, 5);
  in[2].a = 2;
  CHECK_OK(fx_load(&tp));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "instruction 2 (JumpFalseCall)");
  fx_done();
  tp = loop_prog(&p, v, in, 5);
  v[1].dtype = PTE_DTYPE_FLOAT;
  in[0].kind = I_MOVE; /* keep the kernel off the float cond */
  in[0].a = 2;
  in[0].b = 2;
  CHECK_OK(fx_load(&tp));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "bool");
  fx_done();
  /* Condition index out of range: caught at load. */
  tp = loop_prog(&p, v, in, 5);
  in[1].a = 4;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  fx_done();
}

TEST(move_and_free_calls) {
  tval v[4];
  v[0] = VI(7);
  v[1] = VI(9);
  v[2] = T1(PTE_DTYPE_FLOAT, 2, 1, 0);
  v[3] = T1(PTE_DTYPE_FLOAT, 2, 1, 8);
  tinstr in[3];
  memset(in, 0, sizeof in);
  in[0].kind = I_MOVE;
  in[0].a = 0;
  in[0].b = 1;
  in[1].kind = I_MOVE;
  in[1].a = 2;
  in[1].b = 3;
  in[2].kind = I_FREE;
  in[2].a = 2;
  tplan p = {0};
  p.vals = v;
  p.nv = 4;
  SETA(p.outputs, p.no, 1, 3, 2);
  p.ins = in;
  p.nins = 3;
  SETL(p.ncbs, p.nncbs, 0, 16);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  CHECK_OK(fx_load(&tp));
  const pte_tensor *t2 = pte_method_get_value(g_fx.m, 2)->u.tensor;
  CHECK(t2->data == g_fx.planned_mem[0]);
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(pte_method_get_output(g_fx.m, 0)->u.i == 7);
  /* v3 now aliases v2's tensor; FreeCall cleared its data pointer (nothing freed). */
  CHECK(pte_method_get_output(g_fx.m, 1)->u.tensor == t2);
  CHECK(t2->data == NULL);
  fx_done();
  /* FreeCall on a non-tensor fails at execute; indices are checked at load. */
  in[2].a = 0;
  CHECK_OK(fx_load(&tp));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "FreeCall");
  fx_done();
  in[2].a = 4;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  in[2].a = 2;
  in[0].b = -1;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "MoveCall destination");
  fx_done();
}

TEST(step_through_instructions) {
  register_test_kernels();
  tplan p;
  tval v[4];
  tinstr in[3];
  tprog tp = loop_prog(&p, v, in, 2);
  CHECK_OK(fx_load(&tp));
  /* inc, JF(cond true: continue), JF(false -> 0), inc, JF(cond false -> 3: end). */
  for (int i = 0; i < 5; i++) CHECK_OK(pte_method_step(g_fx.m, &g_fx.err));
  CHECK_STATUS(pte_method_step(g_fx.m, &g_fx.err), PTE_END_OF_METHOD);
  CHECK_EQ_INT(((int32_t *)pte_method_get_output(g_fx.m, 0)->u.tensor->data)[0], 2);
  CHECK_OK(pte_method_reset_execution(g_fx.m));
  CHECK_STATUS(pte_method_reset_execution(g_fx.m), PTE_ERR_INVALID_STATE);
  fx_done();
}

/* ================================================================== tests: inputs / outputs */

TEST(inputs_planned_copy_unplanned_share_dynamic_resize) {
  tval v[7];
  v[0] = T1(PTE_DTYPE_FLOAT, 4, 1, 0); /* planned, dynamic bound 4 */
  v[0].dyn = PTE_SHAPE_DYNAMIC_BOUND;
  v[1] = T1(PTE_DTYPE_FLOAT, 4, -1, 0); /* unplanned */
  v[2] = VI(3);
  v[3] = VS("mode");
  v[4] = VN();
  v[5] = VB(true);
  static const int64_t il[1] = {2};
  v[6] = VL(KT_INT_LIST, il, 1);
  tplan p = {0};
  p.vals = v;
  p.nv = 7;
  SETA(p.inputs, p.ni, 0, 1, 2, 3, 4, 5, 6);
  SETA(p.outputs, p.no, 0, 1);
  SETL(p.ncbs, p.nncbs, 0, 16);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  CHECK_OK(fx_load(&tp));
  pte_method *m = g_fx.m;
  pte_error_info *e = &g_fx.err;
  float a[2] = {1, 2}, b[4] = {5, 6, 7, 8};
  int32_t s2[] = {2}, s4[] = {4}, s5[] = {5};
  CHECK_OK(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, s2, 1, a, sizeof a, e));
  const pte_tensor *t0 = pte_method_get_input(m, 0)->u.tensor;
  CHECK(t0->sizes[0] == 2 && t0->numel == 2 && t0->data == g_fx.planned_mem[0]);
  CHECK(memcmp(t0->data, a, sizeof a) == 0);
  float big[5] = {0};
  CHECK_STATUS(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, s5, 1, big, sizeof big, e), PTE_ERR_NOT_SUPPORTED);
  CHECK_OK(pte_method_set_input_tensor(m, 1, PTE_DTYPE_FLOAT, s4, 1, b, sizeof b, e));
  CHECK(pte_method_get_input(m, 1)->u.tensor->data == (void *)b); /* shared, not copied */
  CHECK_STATUS(pte_method_set_input_tensor(m, 1, PTE_DTYPE_FLOAT, s4, 1, b, 12, e), PTE_ERR_INVALID_ARGUMENT);
  pte_evalue ev;
  memset(&ev, 0, sizeof ev);
  ev.tag = PTE_TAG_INT;
  ev.u.i = 4;
  CHECK_STATUS(pte_method_set_input(m, 2, &ev, e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e->msg, "traced value 3");
  ev.u.i = 3;
  CHECK_OK(pte_method_set_input(m, 2, &ev, e));
  ev.tag = PTE_TAG_STRING;
  ev.u.str.ptr = "mod";
  ev.u.str.len = 3;
  CHECK_STATUS(pte_method_set_input(m, 3, &ev, e), PTE_ERR_INVALID_ARGUMENT);
  ev.u.str.ptr = "mode";
  ev.u.str.len = 4;
  CHECK_OK(pte_method_set_input(m, 3, &ev, e));
  memset(&ev, 0, sizeof ev);
  ev.tag = PTE_TAG_NONE;
  CHECK_OK(pte_method_set_input(m, 4, &ev, e));
  ev.tag = PTE_TAG_BOOL;
  ev.u.b = false;
  CHECK_STATUS(pte_method_set_input(m, 5, &ev, e), PTE_ERR_INVALID_ARGUMENT);
  ev.u.b = true;
  CHECK_OK(pte_method_set_input(m, 5, &ev, e));
  CHECK_STATUS(pte_method_set_input(m, 4, &ev, e), PTE_ERR_INVALID_ARGUMENT); /* tag mismatch */
  CHECK_CONTAINS(e->msg, "expects a None");
  CHECK_STATUS(pte_method_set_input(m, 6, &ev, e), PTE_ERR_INVALID_ARGUMENT); /* list input */
  CHECK_STATUS(pte_method_set_input(m, 7, &ev, e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_method_execute(m, e), PTE_ERR_INVALID_ARGUMENT); /* input 6 never set */
  CHECK_CONTAINS(e->msg, "input 6");
  /* Layout mismatch: a channels-last source for a contiguous input. */
  fx_done();
  tval w[1];
  w[0] = T1(PTE_DTYPE_FLOAT, 1, 1, 0);
  w[0].dim = 4;
  w[0].sizes[1] = 2; w[0].sizes[2] = 2; w[0].sizes[3] = 2;
  w[0].order[1] = 1; w[0].order[2] = 2; w[0].order[3] = 3;
  p.vals = w;
  p.nv = 1;
  SETA(p.inputs, p.ni, 0);
  SETA(p.outputs, p.no, 0);
  SETL(p.ncbs, p.nncbs, 0, 64);
  CHECK_OK(fx_load(&tp));
  float d8[8] = {0};
  int32_t sz4[4] = {1, 2, 2, 2}, st4[4];
  uint8_t cl[4] = {0, 2, 3, 1};
  pte_strides_from_dim_order(sz4, cl, 4, st4);
  pte_tensor src = {d8, sz4, cl, st4, 8, 32, 4, PTE_DTYPE_FLOAT, 0, 0, 0};
  memset(&ev, 0, sizeof ev);
  ev.tag = PTE_TAG_TENSOR;
  ev.u.tensor = &src;
  CHECK_STATUS(pte_method_set_input(g_fx.m, 0, &ev, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(g_fx.err.msg, "dim order");
  uint8_t co[4] = {0, 1, 2, 3};
  src.dim_order = co;
  CHECK_OK(pte_method_set_input(g_fx.m, 0, &ev, &g_fx.err));
  fx_done();
}

TEST(unplanned_output_needs_data_ptr) {
  register_test_kernels();
  tplan p;
  tval v[2];
  tinstr in[1];
  tprog tp = add1_prog(&p, v, in);
  v[1].mem_id = -1; /* unplanned output */
  CHECK_OK(fx_load(&tp));
  float x[3] = {1, 2, 3}, out[3] = {0};
  int32_t s3[] = {3};
  CHECK_OK(pte_method_set_input_tensor(g_fx.m, 0, PTE_DTYPE_FLOAT, s3, 1, x, sizeof x, &g_fx.err));
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(g_fx.err.msg, "output 0");
  CHECK_STATUS(pte_method_set_output_data_ptr(g_fx.m, 0, out, 8, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_method_set_output_data_ptr(g_fx.m, 1, out, 12, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_method_set_output_data_ptr(g_fx.m, 0, out, sizeof out, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(out[0] == 2 && out[2] == 4);
  fx_done();
}

/* ================================================================== tests: temp memory */

TEST(temp_allocator_reset_and_arena) {
  register_test_kernels();
  static const char *const ops[] = {"test::temp", ""};
  tval v[1] = {VI(0)};
  tinstr in[2];
  memset(in, 0, sizeof in);
  in[0].kind = in[1].kind = I_KERNEL;
  SETA(in[1].args, in[1].nargs, 0);
  in[0].args = in[1].args;
  in[0].nargs = in[1].nargs = 1;
  tplan p = {0};
  p.vals = v;
  p.nv = 1;
  p.ins = in;
  p.nins = 2;
  p.ops = ops;
  p.nops = 1;
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  CHECK_OK(fx_load(&tp));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(g_temp_seen && g_temp_seen_used == 0); /* second kernel saw a reset allocator */
  CHECK(g_fx.temp.peak >= 1024);
  fx_done();
  /* No temp allocator, no arena: kernels get NULL. */
  CHECK(fx_prog(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY));
  g_fx.mm.temp_allocator = NULL;
  CHECK_OK(pte_method_load(&g_fx.prog, "forward", &g_fx.mm, NULL, NULL, &g_fx.m, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(!g_temp_seen);
  pte_method_destroy(g_fx.m);
  g_fx.m = NULL;
  /* An arena carved from the method allocator. */
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.temp_arena_size = 4096;
  size_t before = g_fx.ma.used;
  CHECK_OK(pte_method_load_ex(&g_fx.prog, "forward", &g_fx.mm, &o, &g_fx.m, &g_fx.err));
  CHECK(g_fx.ma.used - before >= 4096);
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(g_temp_seen && g_temp_seen_used == 0);
  pte_method_destroy(g_fx.m);
  g_fx.m = NULL;
  /* Same allocator for method and temp: refused. */
  g_fx.mm.temp_allocator = &g_fx.ma;
  CHECK_STATUS(pte_method_load(&g_fx.prog, "forward", &g_fx.mm, NULL, NULL, &g_fx.m, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
  fx_done();
}

int main(void) {
  RUN(every_value_kind);
  RUN(bad_value_tables);
  RUN(tensor_placement_rules);
  RUN(tensor_dynamism_and_shape_errors);
  RUN(kernel_call_and_key_resolution);
  RUN(missing_operators_listed_once);
  RUN(kernel_failure_message_and_state);
  RUN(jump_false_loop_and_instruction_cap);
  RUN(move_and_free_calls);
  RUN(step_through_instructions);
  RUN(inputs_planned_copy_unplanned_share_dynamic_resize);
  RUN(unplanned_output_needs_data_ptr);
  RUN(temp_allocator_reset_and_arena);
  fx_done();
  return test_summary();
}
