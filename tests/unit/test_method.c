/* Method load/execute on hand-built programs: every value kind, tensor placement rules, all five
 * instruction kinds, kernel resolution, delegates through a test backend, inputs/outputs, the
 * event tracer, and the error paths (each with its exact status). Programs are built here with the
 * project's flatbuffer builder, so each case states exactly what the file contains. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include "format/flatbuf.h"
#include "pte/backend.h"
#include "pte/data_loader.h"
#include "pte/method.h"
#include "pte/program.h"

/* ================================================================== program builder */

enum { KT_NULL = 1, KT_INT, KT_BOOL, KT_DOUBLE, KT_TENSOR, KT_STRING, KT_INT_LIST, KT_DOUBLE_LIST, KT_BOOL_LIST,
       KT_TENSOR_LIST, KT_OPT_TENSOR_LIST };
enum { I_KERNEL = 1, I_DELEGATE, I_MOVE, I_JF, I_FREE };

typedef struct tval {
  int kind;
  int64_t i;
  double d;
  const char *s;
  /* tensor */
  int dtype, dim;
  int32_t sizes[4];
  uint8_t order[4];
  int dyn;
  uint32_t dbi;
  int mem_id; /* -1: no allocation_info */
  uint32_t off_lo, off_hi;
  int32_t storage_offset;
  const char *fqn; /* EXTERNAL */
  /* lists */
  const void *items;
  size_t n;
} tval;

typedef struct tinstr {
  int kind;
  int a, b; /* kernel: op; delegate: index; move: from,to; jf: cond,dest; free: value */
  const int32_t *args;
  size_t nargs;
} tinstr;

typedef struct tdel {
  const char *id;
  int loc; /* 0 INLINE, 1 SEGMENT */
  uint32_t index;
  const char *spec_key;
  const char *spec_val;
} tdel;

typedef struct tplan {
  const char *name;
  const tval *vals;
  size_t nv;
  const int32_t *inputs;
  size_t ni;
  const int32_t *outputs;
  size_t no;
  const tinstr *ins;
  size_t nins;
  const char *const *ops; /* name, overload pairs */
  size_t nops;
  const int64_t *ncbs;
  size_t nncbs;
  const tdel *dels;
  size_t ndels;
  bool no_chains, no_delegates_field;
  int n_chains; /* 0 = 1; >1 duplicates the instruction list into each chain */
} tplan;

typedef struct tprog {
  const tplan *plans;
  size_t nplans;
  const void *const *consts; /* constant_buffer[i] (index 0 should be empty) */
  const size_t *const_sizes;
  size_t nconsts;
  const void *const *inline_blobs; /* backend_delegate_data */
  const size_t *blob_sizes;
  size_t nblobs;
} tprog;

static void *heap_realloc(void *ctx, void *p, size_t old, size_t n) {
  (void)ctx;
  (void)old;
  if (!n) {
    free(p);
    return NULL;
  }
  return realloc(p, n);
}

static pte_fb_ref b_str(pte_fb_builder *b, const char *s) { return pte_fb_create_string(b, s, strlen(s)); }

static pte_fb_ref b_value(pte_fb_builder *b, const tval *v) {
  pte_fb_ref val = 0;
  switch (v->kind) {
    case KT_NULL: pte_fb_table_start(b); val = pte_fb_table_end(b); break;
    case KT_INT: pte_fb_table_start(b); pte_fb_add_i64(b, 0, v->i, 0); val = pte_fb_table_end(b); break;
    case KT_BOOL: pte_fb_table_start(b); pte_fb_add_bool(b, 0, v->i != 0, false); val = pte_fb_table_end(b); break;
    case KT_DOUBLE: pte_fb_table_start(b); pte_fb_add_f64(b, 0, v->d, 0); val = pte_fb_table_end(b); break;
    case KT_STRING: {
      pte_fb_ref s = b_str(b, v->s);
      pte_fb_table_start(b);
      pte_fb_add_ref(b, 0, s);
      val = pte_fb_table_end(b);
      break;
    }
    case KT_INT_LIST: case KT_DOUBLE_LIST: case KT_BOOL_LIST: case KT_TENSOR_LIST: case KT_OPT_TENSOR_LIST: {
      size_t es = v->kind == KT_BOOL_LIST ? 1 : (v->kind == KT_TENSOR_LIST || v->kind == KT_OPT_TENSOR_LIST) ? 4 : 8;
      pte_fb_ref items = pte_fb_create_vec(b, v->items, v->n, es, es);
      pte_fb_table_start(b);
      pte_fb_add_ref(b, 0, items);
      val = pte_fb_table_end(b);
      break;
    }
    case KT_TENSOR: {
      pte_fb_ref sizes = pte_fb_create_vec(b, v->sizes, (size_t)v->dim, 4, 4);
      pte_fb_ref order = pte_fb_create_vec(b, v->order, (size_t)v->dim, 1, 1);
      pte_fb_ref alloc = 0, extra = 0;
      if (v->mem_id >= 0) {
        pte_fb_table_start(b);
        pte_fb_add_u32(b, 0, (uint32_t)v->mem_id, 0);
        pte_fb_add_u32(b, 1, v->off_lo, 0);
        pte_fb_add_u32(b, 2, v->off_hi, 0);
        alloc = pte_fb_table_end(b);
      }
      if (v->fqn) {
        pte_fb_ref fqn = b_str(b, v->fqn);
        pte_fb_table_start(b);
        pte_fb_add_ref(b, 1, fqn);
        pte_fb_add_i8(b, 2, 1, 0);
        extra = pte_fb_table_end(b);
      }
      pte_fb_table_start(b);
      pte_fb_add_i8(b, 0, (int8_t)v->dtype, 0);
      pte_fb_add_i32(b, 1, v->storage_offset, 0);
      pte_fb_add_ref(b, 2, sizes);
      pte_fb_add_ref(b, 3, order);
      pte_fb_add_u32(b, 5, v->dbi, 0);
      pte_fb_add_ref(b, 6, alloc);
      pte_fb_add_i8(b, 8, (int8_t)v->dyn, 0);
      pte_fb_add_ref(b, 9, extra);
      val = pte_fb_table_end(b);
      break;
    }
    default: break; /* kind 0 / unknown: no member table */
  }
  pte_fb_table_start(b);
  pte_fb_add_u8(b, 0, (uint8_t)v->kind, 0);
  pte_fb_add_ref(b, 1, val);
  return pte_fb_table_end(b);
}

static pte_fb_ref b_instr(pte_fb_builder *b, const tinstr *in) {
  pte_fb_ref args = 0;
  if (in->kind == I_KERNEL || in->kind == I_DELEGATE) args = pte_fb_create_vec(b, in->args, in->nargs, 4, 4);
  pte_fb_table_start(b);
  switch (in->kind) {
    case I_KERNEL: case I_DELEGATE:
      pte_fb_add_i32(b, 0, in->a, 0);
      pte_fb_add_ref(b, 1, args);
      break;
    case I_MOVE: case I_JF:
      pte_fb_add_i32(b, 0, in->a, 0);
      pte_fb_add_i32(b, 1, in->b, 0);
      break;
    default: pte_fb_add_i32(b, 0, in->a, 0); break;
  }
  pte_fb_ref t = pte_fb_table_end(b);
  pte_fb_table_start(b);
  pte_fb_add_u8(b, 0, (uint8_t)in->kind, 0);
  pte_fb_add_ref(b, 1, t);
  return pte_fb_table_end(b);
}

static pte_fb_ref b_plan(pte_fb_builder *b, const tplan *p) {
  pte_fb_ref name = b_str(b, p->name ? p->name : "forward");
  pte_fb_ref *refs = calloc(p->nv + p->nins + p->nops + p->ndels + 8, sizeof *refs);
  for (size_t i = 0; i < p->nv; i++) refs[i] = b_value(b, &p->vals[i]);
  pte_fb_ref values = pte_fb_create_vec_refs(b, refs, p->nv);
  pte_fb_ref inputs = pte_fb_create_vec(b, p->inputs, p->ni, 4, 4);
  pte_fb_ref outputs = pte_fb_create_vec(b, p->outputs, p->no, 4, 4);
  pte_fb_ref chains = 0;
  if (!p->no_chains) {
    int nc = p->n_chains ? p->n_chains : 1;
    pte_fb_ref cr[4];
    for (int c = 0; c < nc; c++) {
      for (size_t i = 0; i < p->nins; i++) refs[i] = b_instr(b, &p->ins[i]);
      pte_fb_ref ins = pte_fb_create_vec_refs(b, refs, p->nins);
      pte_fb_table_start(b);
      pte_fb_add_ref(b, 2, ins);
      cr[c] = pte_fb_table_end(b);
    }
    chains = pte_fb_create_vec_refs(b, cr, (size_t)nc);
  }
  for (size_t i = 0; i < p->nops; i++) {
    pte_fb_ref n = b_str(b, p->ops[2 * i]), o = b_str(b, p->ops[2 * i + 1]);
    pte_fb_table_start(b);
    pte_fb_add_ref(b, 0, n);
    pte_fb_add_ref(b, 1, o);
    refs[i] = pte_fb_table_end(b);
  }
  pte_fb_ref ops = pte_fb_create_vec_refs(b, refs, p->nops);
  for (size_t i = 0; i < p->ndels; i++) {
    const tdel *d = &p->dels[i];
    pte_fb_ref id = b_str(b, d->id);
    pte_fb_ref specs;
    if (d->spec_key) {
      pte_fb_ref k = b_str(b, d->spec_key);
      pte_fb_ref v = pte_fb_create_vec(b, d->spec_val, strlen(d->spec_val), 1, 1);
      pte_fb_table_start(b);
      pte_fb_add_ref(b, 0, k);
      pte_fb_add_ref(b, 1, v);
      pte_fb_ref s = pte_fb_table_end(b);
      specs = pte_fb_create_vec_refs(b, &s, 1);
    } else {
      specs = pte_fb_create_vec_refs(b, NULL, 0);
    }
    pte_fb_table_start(b);
    pte_fb_add_i8(b, 0, (int8_t)d->loc, 0);
    pte_fb_add_u32(b, 1, d->index, 0);
    pte_fb_ref ref = pte_fb_table_end(b);
    pte_fb_table_start(b);
    pte_fb_add_ref(b, 0, id);
    pte_fb_add_ref(b, 1, ref);
    pte_fb_add_ref(b, 2, specs);
    refs[i] = pte_fb_table_end(b);
  }
  pte_fb_ref dels = p->no_delegates_field ? 0 : pte_fb_create_vec_refs(b, refs, p->ndels);
  static const int64_t def_ncbs[2] = {0, 0};
  pte_fb_ref ncbs = p->ncbs ? pte_fb_create_vec(b, p->ncbs, p->nncbs, 8, 8) : pte_fb_create_vec(b, def_ncbs, 1, 8, 8);
  free(refs);
  pte_fb_table_start(b);
  pte_fb_add_ref(b, 0, name);
  pte_fb_add_ref(b, 2, values);
  pte_fb_add_ref(b, 3, inputs);
  pte_fb_add_ref(b, 4, outputs);
  pte_fb_add_ref(b, 5, chains);
  pte_fb_add_ref(b, 6, ops);
  pte_fb_add_ref(b, 7, dels);
  pte_fb_add_ref(b, 8, ncbs);
  return pte_fb_table_end(b);
}

/* Builds the program into 16-aligned heap memory (free()). */
static uint8_t *build_program(const tprog *tp, size_t *size) {
  pte_fb_builder b;
  pte_fb_builder_init(&b, heap_realloc, NULL);
  pte_fb_ref refs[8];
  for (size_t i = 0; i < tp->nplans; i++) refs[i] = b_plan(&b, &tp->plans[i]);
  pte_fb_ref plans = pte_fb_create_vec_refs(&b, refs, tp->nplans);
  pte_fb_ref consts = 0, blobs = 0;
  if (tp->nconsts) {
    for (size_t i = 0; i < tp->nconsts; i++) {
      pte_fb_ref st = pte_fb_create_vec(&b, tp->consts[i], tp->const_sizes[i], 1, 16);
      pte_fb_table_start(&b);
      pte_fb_add_ref(&b, 0, st);
      refs[i] = pte_fb_table_end(&b);
    }
    consts = pte_fb_create_vec_refs(&b, refs, tp->nconsts);
  }
  if (tp->nblobs) {
    for (size_t i = 0; i < tp->nblobs; i++) {
      pte_fb_ref st = pte_fb_create_vec(&b, tp->inline_blobs[i], tp->blob_sizes[i], 1, 16);
      pte_fb_table_start(&b);
      pte_fb_add_ref(&b, 0, st);
      refs[i] = pte_fb_table_end(&b);
    }
    blobs = pte_fb_create_vec_refs(&b, refs, tp->nblobs);
  }
  pte_fb_table_start(&b);
  pte_fb_add_ref(&b, 1, plans);
  pte_fb_add_ref(&b, 2, consts);
  pte_fb_add_ref(&b, 3, blobs);
  pte_fb_ref root = pte_fb_table_end(&b);
  const uint8_t *out;
  size_t n;
  uint8_t *copy = NULL;
  pte_status fs = pte_fb_finish(&b, root, "ET12", 16, &out, &n);
  if (fs != PTE_OK) fprintf(stderr, "  builder: %s\n", pte_status_name(fs));
  if (fs == PTE_OK && posix_memalign((void **)&copy, 64, n + 64) == 0) {
    memset(copy, 0, n + 64);
    memcpy(copy, out, n);
    *size = n;
  }
  pte_fb_builder_free(&b);
  return copy;
}

/* A built + loaded program with memory for its first method. */
typedef struct fx {
  uint8_t *bytes;
  size_t size;
  pte_buffer_loader bl;
  pte_program prog;
  bool prog_ok;
  uint8_t pool[256 * 1024];
  _Alignas(64) uint8_t planned_mem[2][4096];
  uint8_t temp_mem[16 * 1024];
  pte_allocator ma, temp;
  pte_planned_buffer planned[2];
  pte_memory_manager mm;
  pte_method *m;
  pte_error_info err;
} fx;

static fx g_fx;

/* Builds and loads the program (verification `v`), sets up memory; no method yet. */
static bool fx_prog(const tprog *tp, pte_verification v) {
  fx *f = &g_fx;
  if (f->prog_ok) pte_program_destroy(&f->prog);
  free(f->bytes);
  f->bytes = build_program(tp, &f->size);
  f->prog_ok = false;
  f->m = NULL;
  if (!f->bytes) return false;
  pte_buffer_loader_init(&f->bl, f->bytes, f->size);
  pte_status s = pte_program_load(&f->bl.base, v, &f->prog, &f->err);
  if (s != PTE_OK) {
    fprintf(stderr, "  program load: %s: %s\n", pte_status_name(s), f->err.msg);
    return false;
  }
  f->prog_ok = true;
  memset(f->planned_mem, 0, sizeof f->planned_mem);
  pte_allocator_init(&f->ma, f->pool, sizeof f->pool);
  pte_allocator_init(&f->temp, f->temp_mem, sizeof f->temp_mem);
  for (int i = 0; i < 2; i++) {
    f->planned[i].data = f->planned_mem[i];
    f->planned[i].size = sizeof f->planned_mem[i];
  }
  pte_memory_manager_init(&f->mm, &f->ma, f->planned, 2, &f->temp);
  return true;
}

static pte_status fx_load_ex(const tprog *tp, pte_verification v, const pte_method_options *o) {
  if (!fx_prog(tp, v)) return PTE_ERR_INTERNAL;
  return pte_method_load_ex(&g_fx.prog, tp->plans[0].name ? tp->plans[0].name : "forward", &g_fx.mm, o, &g_fx.m, &g_fx.err);
}

static pte_status fx_load(const tprog *tp) { return fx_load_ex(tp, PTE_VERIFY_INTERNAL_CONSISTENCY, NULL); }

static void fx_done(void) {
  fx *f = &g_fx;
  if (f->m) pte_method_destroy(f->m);
  f->m = NULL;
  if (f->prog_ok) pte_program_destroy(&f->prog);
  f->prog_ok = false;
  free(f->bytes);
  f->bytes = NULL;
}

/* Point (ptr, cnt) at a static array (static: the plan outlives the statement's block). */
#define SETA(ptr, cnt, ...)                                      \
  do {                                                           \
    static const int32_t a_[] = {__VA_ARGS__};                   \
    (ptr) = a_;                                                  \
    (cnt) = sizeof a_ / sizeof a_[0];                            \
  } while (0)
#define SETL(ptr, cnt, ...)                                      \
  do {                                                           \
    static const int64_t l_[] = {__VA_ARGS__};                   \
    (ptr) = l_;                                                  \
    (cnt) = sizeof l_ / sizeof l_[0];                            \
  } while (0)

/* Tensor value helpers. */
static tval T1(int dtype, int32_t n, int mem_id, uint32_t off) {
  tval v = {0};
  v.kind = KT_TENSOR;
  v.dtype = dtype;
  v.dim = 1;
  v.sizes[0] = n;
  v.mem_id = mem_id;
  v.off_lo = off;
  return v;
}
static tval VI(int64_t i) { tval v = {0}; v.kind = KT_INT; v.i = i; v.mem_id = -1; return v; }
static tval VB(bool b) { tval v = {0}; v.kind = KT_BOOL; v.i = b; v.mem_id = -1; return v; }
static tval VD(double d) { tval v = {0}; v.kind = KT_DOUBLE; v.d = d; v.mem_id = -1; return v; }
static tval VS(const char *s) { tval v = {0}; v.kind = KT_STRING; v.s = s; v.mem_id = -1; return v; }
static tval VN(void) { tval v = {0}; v.kind = KT_NULL; v.mem_id = -1; return v; }
static tval VL(int kind, const void *items, size_t n) { tval v = {0}; v.kind = kind; v.items = items; v.n = n; v.mem_id = -1; return v; }

static float *fdata(const pte_evalue *v) { return (float *)v->u.tensor->data; }

/* ================================================================== test kernels */

static int g_kcalls;
static size_t g_temp_seen_used;
static bool g_temp_seen;

/* test::add1.out(x, out): out = x + 1 (float). */
static void k_add1(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  g_kcalls++;
  if (n != 2 || a[0]->tag != PTE_TAG_TENSOR || a[1]->tag != PTE_TAG_TENSOR) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "bad args");
    return;
  }
  pte_tensor *x = a[0]->u.tensor, *o = a[1]->u.tensor;
  if (pte_tensor_resize(o, x->sizes, x->dim) != PTE_OK) {
    pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "resize");
    return;
  }
  for (size_t i = 0; i < x->numel; i++) ((float *)o->data)[i] = ((float *)x->data)[i] + 1.0f;
}

/* Same name, exact key for float[1-D] -> +100 (must win over the fallback). */
static void k_add1_keyed(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  (void)ctx;
  (void)n;
  pte_tensor *x = a[0]->u.tensor, *o = a[1]->u.tensor;
  for (size_t i = 0; i < x->numel; i++) ((float *)o->data)[i] = ((float *)x->data)[i] + 100.0f;
}

static void k_fail(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  (void)a;
  (void)n;
  pte_kernel_fail(ctx, PTE_ERR_INVALID_TYPE, "unsupported dtype %s", "bfloat16");
}

/* test::inc(counter INT[1], cond BOOL[1]): counter++, cond = counter < limit (arg 2, Int). */
static void k_inc(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  (void)ctx;
  (void)n;
  int32_t *c = (int32_t *)a[0]->u.tensor->data;
  (*c)++;
  ((uint8_t *)a[1]->u.tensor->data)[0] = *c < a[2]->u.i;
}

/* test::temp: allocates 1 KiB of temp memory and records the allocator's state. */
static void k_temp(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  (void)a;
  (void)n;
  g_temp_seen = ctx->temp != NULL;
  g_temp_seen_used = ctx->temp ? ctx->temp->used : 0;
  void *p = pte_kernel_alloc_temp(ctx, 1024, 16);
  if (ctx->temp && !p) pte_kernel_fail(ctx, PTE_ERR_MEMORY_ALLOCATION_FAILED, "no temp");
  if (p) memset(p, 0xab, 1024);
}

static void k_nop(pte_kernel_context *ctx, pte_evalue **a, size_t n) {
  (void)ctx;
  (void)a;
  (void)n;
  g_kcalls++;
}

static const pte_kernel k_test_kernels[] = {
    {"test::add1.out", NULL, k_add1},
    {"test::add1.out", "v1/6;0|6;0", k_add1_keyed},
    {"test::fail.out", NULL, k_fail},
    {"test::inc", NULL, k_inc},
    {"test::temp", NULL, k_temp},
    {"test::nop", NULL, k_nop},
};
#define N_TEST_KERNELS (sizeof k_test_kernels / sizeof k_test_kernels[0])

static void register_test_kernels(void) {
  static bool done;
  if (!done) {
    done = true;
    /* Only the fallbacks go global; the keyed kernel is used method-scoped. */
    pte_kernel globals[] = {k_test_kernels[0], k_test_kernels[2], k_test_kernels[3], k_test_kernels[4], k_test_kernels[5]};
    if (pte_register_kernels(globals, 5) != PTE_OK) fprintf(stderr, "kernel registration failed\n");
  }
}

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

/* counter INT[1] @0, cond BOOL[1] @16, limit Int, false Bool.
 * 0: test::inc(counter, cond, limit)   1: JF(cond -> 3)   2: JF(false -> 0)   (3 = end) */
static tprog loop_prog(tplan *p, tval *v, tinstr *in, int64_t limit) {
  static const char *const ops[] = {"test::inc", ""};
  v[0] = T1(PTE_DTYPE_INT, 1, 1, 0);
  v[1] = T1(PTE_DTYPE_BOOL, 1, 1, 16);
  v[2] = VI(limit);
  v[3] = VB(false);
  memset(in, 0, 3 * sizeof *in);
  in[0].kind = I_KERNEL;
  SETA(in[0].args, in[0].nargs, 0, 1, 2);
  in[0].nargs = 3;
  in[1].kind = I_JF;
  in[1].a = 1;
  in[1].b = 3;
  in[2].kind = I_JF;
  in[2].a = 3;
  in[2].b = 0;
  memset(p, 0, sizeof *p);
  p->vals = v;
  p->nv = 4;
  SETA(p->outputs, p->no, 0);
  p->ins = in;
  p->nins = 3;
  p->ops = ops;
  p->nops = 1;
  SETL(p->ncbs, p->nncbs, 0, 32);
  tprog tp = {p, 1, NULL, NULL, 0, NULL, NULL, 0};
  return tp;
}

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

/* ================================================================== tests: delegates */

static int g_inits, g_execs, g_destroys, g_init_fail, g_exec_fail;
static bool g_available = true;
static char g_last_spec[32];
static int g_spec_int;
static const pte_named_data_map *g_seen_map;
static const char *g_seen_method;

static bool tb_available(void) { return g_available; }

static pte_status tb_init(pte_backend_init_context *ctx, pte_freeable_buffer *processed, const pte_compile_spec *specs,
                          size_t n, pte_delegate_handle **handle) {
  g_seen_map = ctx->named_data_map;
  g_seen_method = ctx->method_name;
  if (g_init_fail) return pte_error_set(ctx->err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "blob version %d unsupported", 7);
  g_last_spec[0] = '\0';
  if (n == 1 && specs[0].nbytes < sizeof g_last_spec) {
    memcpy(g_last_spec, specs[0].value, specs[0].nbytes);
    g_last_spec[specs[0].nbytes] = '\0';
  }
  g_spec_int = -1;
  bool b;
  if (pte_backend_runtime_spec_int(ctx, "threads", &g_spec_int) == PTE_OK &&
      pte_backend_runtime_spec_bool(ctx, "threads", &b) != PTE_ERR_INVALID_ARGUMENT) /* type mismatch */
    return PTE_ERR_INTERNAL;
  if (pte_backend_runtime_spec_bool(ctx, "absent", &b) != PTE_ERR_NOT_FOUND) return PTE_ERR_INTERNAL;
  /* The handle: the processed blob's first float (a scale factor). */
  float *h = PTE_ALLOC(ctx->runtime_allocator, float);
  if (!h || processed->size < 4) return PTE_ERR_INVALID_ARGUMENT;
  memcpy(h, processed->data, 4);
  *handle = h;
  g_inits++;
  return PTE_OK;
}

static pte_status tb_execute(pte_backend_execution_context *ctx, pte_delegate_handle *h, pte_evalue **args, size_t n) {
  g_execs++;
  if (g_exec_fail) return pte_error_set(ctx->err, PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED, "device busy");
  if (n != 2) return PTE_ERR_INVALID_ARGUMENT;
  void *scratch = pte_backend_alloc_temp(ctx, 64, 16);
  if (!scratch) return PTE_ERR_MEMORY_ALLOCATION_FAILED;
  pte_tensor *x = args[0]->u.tensor, *o = args[1]->u.tensor;
  for (size_t i = 0; i < x->numel; i++) ((float *)o->data)[i] = ((float *)x->data)[i] * *(float *)h;
  return PTE_OK;
}

static void tb_destroy(pte_delegate_handle *h) {
  (void)h;
  g_destroys++;
}

static const pte_backend k_test_backend = {tb_available, tb_init, tb_execute, tb_destroy, NULL};

static tprog delegate_prog(tplan *p, tval *v, tinstr *in, tdel *d, const void **blobs, size_t *bsz) {
  static const float scale = 3.0f;
  static const char *const ops[] = {"test::fail", "out"};
  v[0] = T1(PTE_DTYPE_FLOAT, 2, 1, 0);
  v[1] = T1(PTE_DTYPE_FLOAT, 2, 1, 16);
  memset(in, 0, sizeof *in);
  in[0].kind = I_DELEGATE;
  in[0].a = 0;
  SETA(in[0].args, in[0].nargs, 0, 1);
  in[0].nargs = 2;
  memset(d, 0, sizeof *d);
  d[0].id = "TestBackend";
  d[0].loc = 0;
  d[0].index = 0;
  d[0].spec_key = "mode";
  d[0].spec_val = "fast";
  blobs[0] = &scale;
  bsz[0] = sizeof scale;
  memset(p, 0, sizeof *p);
  p->vals = v;
  p->nv = 2;
  SETA(p->inputs, p->ni, 0);
  SETA(p->outputs, p->no, 1);
  p->ins = in;
  p->nins = 1;
  p->dels = d;
  p->ndels = 1;
  p->ops = ops;
  p->nops = 1;
  SETL(p->ncbs, p->nncbs, 0, 32);
  tprog tp = {p, 1, NULL, NULL, 0, blobs, bsz, 1};
  return tp;
}

TEST(delegate_lifecycle_inline_blob) {
  register_test_kernels();
  pte_backend_registry_reset();
  tplan p;
  tval v[2];
  tinstr in[2];
  tdel d[1];
  const void *blobs[1];
  size_t bsz[1];
  tprog tp = delegate_prog(&p, v, in, d, blobs, bsz);
  CHECK_STATUS(fx_load(&tp), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "backend 'TestBackend' (delegate 0 of method 'forward') is not registered");
  CHECK_OK(pte_register_backend("TestBackend", &k_test_backend));
  CHECK_STATUS(pte_register_backend("TestBackend", &k_test_backend), PTE_ERR_INVALID_ARGUMENT);
  CHECK(pte_get_backend("TestBackend") == &k_test_backend);
  CHECK(pte_get_backend("Other") == NULL);
  g_inits = g_execs = g_destroys = g_init_fail = g_exec_fail = 0;

  g_available = false;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "not available");
  g_available = true;

  pte_backend_option opt;
  memset(&opt, 0, sizeof opt);
  strcpy(opt.key, "threads");
  opt.type = PTE_BACKEND_OPTION_INT;
  opt.value.i = 4;
  pte_backend_load_options bo = {"TestBackend", &opt, 1};
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.backend_options = &bo;
  o.n_backend_options = 1;
  pte_status s = fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o);
  CHECK_MSG(s == PTE_OK, "load: %s %s", pte_status_name(s), g_fx.err.msg);
  CHECK_EQ_INT(g_inits, 1);
  CHECK_STR(g_last_spec, "fast");
  CHECK_EQ_INT(g_spec_int, 4);
  CHECK(g_seen_map == NULL); /* no external map, no named_data */
  CHECK_STR(g_seen_method, "forward");
  float x[2] = {1.5f, -2};
  int32_t s2[] = {2};
  CHECK_OK(pte_method_set_input_tensor(g_fx.m, 0, PTE_DTYPE_FLOAT, s2, 1, x, sizeof x, &g_fx.err));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK(fdata(pte_method_get_output(g_fx.m, 0))[0] == 4.5f && fdata(pte_method_get_output(g_fx.m, 0))[1] == -6.0f);
  CHECK_EQ_INT(g_execs, 1);
  g_exec_fail = 1;
  CHECK_STATUS(pte_method_execute(g_fx.m, &g_fx.err), PTE_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED);
  CHECK_STR(g_fx.err.msg, "instruction 0 (delegate 0, backend 'TestBackend') failed: device busy");
  g_exec_fail = 0;
  CHECK_EQ_INT(g_destroys, 0);
  pte_method_destroy(g_fx.m);
  g_fx.m = NULL;
  CHECK_EQ_INT(g_destroys, 1);
  fx_done();

  /* Init failure: the backend's message is kept, destroy is not called. */
  g_init_fail = 1;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_DELEGATE_INVALID_COMPATIBILITY);
  CHECK_CONTAINS(g_fx.err.msg, "blob version 7 unsupported");
  CHECK_EQ_INT(g_destroys, 1);
  g_init_fail = 0;

  /* A load failing after delegate init (missing operator) destroys the delegate. */
  tinstr in2[2] = {in[0], in[0]};
  in2[1].kind = I_KERNEL;
  in2[1].a = 0;
  p.ins = in2;
  p.nins = 2;
  p.ops = (const char *const[]){"custom::missing", "out"};
  int before_inits = g_inits;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_OPERATOR_MISSING);
  CHECK_EQ_INT(g_inits, before_inits + 1);
  CHECK_EQ_INT(g_destroys, 2);
  p.ins = in;
  p.nins = 1;

  /* delegate_index out of range is caught at load. */
  in[0].a = 1;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_INVALID_PROGRAM);
  CHECK_CONTAINS(g_fx.err.msg, "delegate index 1");
  CHECK_EQ_INT(g_destroys, 3);
  in[0].a = 0;
  /* Inline data index out of range. */
  d[0].index = 5;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_MINIMAL, NULL), PTE_ERR_NOT_FOUND);
  d[0].index = 0;

  /* An external data map is handed to the backend. */
  pte_merged_data_map dummy;
  pte_merged_data_map_init(&dummy, NULL, NULL);
  memset(&o, 0, sizeof o);
  o.external_data = &dummy.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK(g_seen_map == &dummy.base);
  fx_done();
  CHECK_EQ_INT(g_destroys, 4);
  pte_backend_registry_reset();
}

TEST(backend_registry_limits) {
  pte_backend_registry_reset();
  static char names[PTE_MAX_BACKENDS + 1][8];
  for (int i = 0; i < PTE_MAX_BACKENDS; i++) {
    snprintf(names[i], sizeof names[i], "b%d", i);
    CHECK_OK(pte_register_backend(names[i], &k_test_backend));
  }
  snprintf(names[PTE_MAX_BACKENDS], 8, "extra");
  CHECK_STATUS(pte_register_backend(names[PTE_MAX_BACKENDS], &k_test_backend), PTE_ERR_INTERNAL);
  CHECK_EQ_INT(pte_num_registered_backends(), PTE_MAX_BACKENDS);
  CHECK_STR(pte_registered_backend_name(3), "b3");
  CHECK(pte_registered_backend_name(PTE_MAX_BACKENDS) == NULL);
  pte_backend incomplete = {NULL, NULL, tb_execute, NULL, NULL};
  pte_backend_registry_reset();
  CHECK_STATUS(pte_register_backend("x", &incomplete), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_register_backend(NULL, &k_test_backend), PTE_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pte_num_registered_backends(), 0);
}

/* ================================================================== tests: external data */

typedef struct fake_map {
  pte_named_data_map base;
  int dtype;
  int32_t sizes[1];
  uint8_t order[1];
  float data[4];
  int loads_into;
} fake_map;

static pte_status fm_layout(const pte_named_data_map *m, const char *key, pte_tensor_layout *out) {
  const fake_map *f = (const fake_map *)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  out->dtype = (uint8_t)f->dtype;
  out->dim = 1;
  out->sizes = f->sizes;
  out->dim_order = f->order;
  out->nbytes = (size_t)f->sizes[0] * 4;
  return PTE_OK;
}
static pte_status fm_get(const pte_named_data_map *m, const char *key, pte_freeable_buffer *out) {
  const fake_map *f = (const fake_map *)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  *out = pte_freeable_buffer_view(f->data, sizeof f->data);
  return PTE_OK;
}
static pte_status fm_into(const pte_named_data_map *m, const char *key, void *buf, size_t size) {
  fake_map *f = (fake_map *)(uintptr_t)m;
  if (strcmp(key, "w") != 0) return PTE_ERR_NOT_FOUND;
  if (size != sizeof f->data) return PTE_ERR_INVALID_ARGUMENT;
  memcpy(buf, f->data, size);
  f->loads_into++;
  return PTE_OK;
}
static const pte_named_data_map_vtable k_fm_vt = {fm_layout, fm_get, fm_into, NULL, NULL};

TEST(external_tensors_constant_and_mutable) {
  fake_map fm = {{&k_fm_vt}, PTE_DTYPE_FLOAT, {4}, {0}, {1, 2, 3, 4}, 0};
  tval v[3];
  v[0] = T1(PTE_DTYPE_FLOAT, 4, -1, 0);
  v[0].fqn = "w";
  v[0].dbi = 7; /* meaningless for EXTERNAL */
  v[1] = v[0]; /* same key: shares the buffer */
  v[2] = T1(PTE_DTYPE_FLOAT, 4, 1, 32); /* mutable external: copied into planned memory */
  v[2].fqn = "w";
  tplan p = {0};
  p.vals = v;
  p.nv = 3;
  SETL(p.ncbs, p.nncbs, 0, 64);
  tprog tp = {&p, 1, NULL, NULL, 0, NULL, NULL, 0};
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.external_data = &fm.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  const pte_tensor *t0 = pte_method_get_value(g_fx.m, 0)->u.tensor, *t1 = pte_method_get_value(g_fx.m, 1)->u.tensor;
  CHECK(t0->data == (void *)fm.data && t1->data == t0->data && (t0->flags & PTE_TENSOR_CONST));
  const pte_tensor *t2 = pte_method_get_value(g_fx.m, 2)->u.tensor;
  CHECK(t2->data == g_fx.planned_mem[0] + 32 && memcmp(t2->data, fm.data, 16) == 0);
  CHECK_EQ_INT(fm.loads_into, 1);
  fx_done();
  /* Missing map: constants -> InvalidState. */
  CHECK_STATUS(fx_load(&tp), PTE_ERR_INVALID_STATE);
  CHECK_CONTAINS(g_fx.err.msg, "external data map is null");
  /* Layout mismatch. */
  fm.dtype = PTE_DTYPE_INT;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_INVALID_EXTERNAL_DATA);
  CHECK_CONTAINS(g_fx.err.msg, "'w'");
  fm.dtype = PTE_DTYPE_FLOAT;
  fm.sizes[0] = 3;
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_INVALID_EXTERNAL_DATA);
  fm.sizes[0] = 4;
  /* Unknown key. */
  v[0].fqn = v[1].fqn = "nope";
  CHECK_STATUS(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o), PTE_ERR_NOT_FOUND);
  CHECK_CONTAINS(g_fx.err.msg, "'nope'");
  /* Only a mutable external tensor and no map: InvalidExternalData. */
  p.vals = &v[2];
  p.nv = 1;
  CHECK_STATUS(fx_load(&tp), PTE_ERR_INVALID_EXTERNAL_DATA);
  fx_done();
}

/* ================================================================== tests: tracer, meta */

typedef struct count_tracer {
  pte_event_tracer base;
  int blocks, begins, ends, ops, outputs, intermediates;
  int last_chain;
  int64_t last_handle;
} count_tracer;

static void ct_block(pte_event_tracer *t, const char *name) {
  if (strcmp(name, "Execute") == 0) ((count_tracer *)t)->blocks++;
}
static uint64_t ct_begin(pte_event_tracer *t, const char *name, int32_t chain, int64_t h) {
  count_tracer *c = (count_tracer *)t;
  c->begins++;
  if (strcmp(name, "OPERATOR_CALL") == 0 || strcmp(name, "JF_CALL") == 0) {
    c->ops++;
    c->last_chain = chain;
    c->last_handle = h;
  }
  return (uint64_t)c->begins;
}
static void ct_end(pte_event_tracer *t, uint64_t tok) {
  (void)tok;
  ((count_tracer *)t)->ends++;
}
static void ct_log(pte_event_tracer *t, const pte_evalue *v, pte_evalue_log_kind k) {
  (void)v;
  if (k == PTE_EVALUE_LOG_OUTPUT) ((count_tracer *)t)->outputs++;
  else ((count_tracer *)t)->intermediates++;
}
static const pte_event_tracer_vtable k_ct_vt = {ct_block, ct_begin, ct_end, ct_log};

TEST(event_tracer_scopes) {
  register_test_kernels();
  tplan p;
  tval v[4];
  tinstr in[3];
  tprog tp = loop_prog(&p, v, in, 2);
  count_tracer ct;
  memset(&ct, 0, sizeof ct);
  ct.base.vt = &k_ct_vt;
  pte_method_options o;
  memset(&o, 0, sizeof o);
  o.tracer = &ct.base;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_EQ_INT(ct.begins, 1); /* Method::init */
  CHECK_EQ_INT(ct.ends, 1);
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  CHECK_EQ_INT(ct.blocks, 1);
  CHECK_EQ_INT(ct.ops, 5);
  CHECK_EQ_INT(ct.last_chain, 0);
  CHECK_EQ_INT(ct.last_handle, 1); /* last instruction run: the JF at index 1 */
  CHECK_EQ_INT(ct.begins, ct.ends);
  CHECK_EQ_INT(ct.outputs, 1);
  fx_done();
  /* A vtable with NULL slots is fine. */
  static const pte_event_tracer_vtable empty = {NULL, NULL, NULL, NULL};
  ct.base.vt = &empty;
  CHECK_OK(fx_load_ex(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY, &o));
  CHECK_OK(pte_method_execute(g_fx.m, &g_fx.err));
  fx_done();
}

TEST(method_meta_synthetic) {
  tval v[4];
  v[0] = T1(PTE_DTYPE_LONG, 3, 1, 0);
  v[1] = VD(1.5);
  static const int64_t il[1] = {3};
  v[2] = VL(KT_INT_LIST, il, 1);
  v[3] = VI(5);
  tplan p[2];
  memset(p, 0, sizeof p);
  p[0].name = "first";
  p[0].vals = v;
  p[0].nv = 4;
  SETA(p[0].inputs, p[0].ni, 0, 1);
  SETA(p[0].outputs, p[0].no, 2, 0);
  SETL(p[0].ncbs, p[0].nncbs, 0, 24, 1ll << 33);
  p[1].name = "second";
  p[1].vals = &v[3];
  p[1].nv = 1;
  SETA(p[1].outputs, p[1].no, 0);
  tprog tp = {p, 2, NULL, NULL, 0, NULL, NULL, 0};
  CHECK(fx_prog(&tp, PTE_VERIFY_INTERNAL_CONSISTENCY));
  pte_method_meta meta;
  CHECK_OK(pte_method_meta_get(&g_fx.prog, "first", &meta, &g_fx.err));
  CHECK_STR(pte_method_meta_name(&meta), "first");
  CHECK_EQ_INT(pte_method_meta_num_planned_buffers(&meta), 2);
  uint64_t sz;
  CHECK_OK(pte_method_meta_planned_buffer_size(&meta, 1, &sz));
  CHECK(sz == (1ull << 33));
  pte_tag tag;
  CHECK_OK(pte_method_meta_input_tag(&meta, 1, &tag));
  CHECK_EQ_INT(tag, PTE_TAG_DOUBLE);
  CHECK_STATUS(pte_method_meta_output_tag(&meta, 0, &tag), PTE_ERR_INTERNAL); /* a list */
  CHECK_STATUS(pte_method_meta_input_tensor_info(&meta, 1, NULL), PTE_ERR_INVALID_ARGUMENT);
  pte_tensor_info ti;
  CHECK_STATUS(pte_method_meta_input_tensor_info(&meta, 1, &ti), PTE_ERR_INVALID_ARGUMENT);
  CHECK_OK(pte_method_meta_output_tensor_info(&meta, 1, &ti));
  CHECK(ti.dtype == PTE_DTYPE_LONG && ti.nbytes == 24 && ti.is_memory_planned);
  CHECK_OK(pte_method_meta_get(&g_fx.prog, "second", &meta, &g_fx.err));
  CHECK_EQ_INT(pte_method_meta_num_planned_buffers(&meta), 0);
  CHECK_STATUS(pte_method_meta_get(&g_fx.prog, "third", &meta, &g_fx.err), PTE_ERR_INVALID_ARGUMENT);
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
  RUN(delegate_lifecycle_inline_blob);
  RUN(backend_registry_limits);
  RUN(external_tensors_constant_and_mutable);
  RUN(event_tracer_scopes);
  RUN(method_meta_synthetic);
  fx_done();
  return test_summary();
}
