/* tests/support/method_fixture.c — see method_fixture.h. */
#define _POSIX_C_SOURCE 200809L
#include "method_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte/io.h"

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
  pte_fb_builder_init(&b, pte_heap_realloc, NULL);
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



fx g_fx;

/* Builds and loads the program (verification `v`), sets up memory; no method yet. */
bool fx_prog(const tprog *tp, pte_verification v) {
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

pte_status fx_load_ex(const tprog *tp, pte_verification v, const pte_method_options *o) {
  if (!fx_prog(tp, v)) return PTE_ERR_INTERNAL;
  return pte_method_load_ex(&g_fx.prog, tp->plans[0].name ? tp->plans[0].name : "forward", &g_fx.mm, o, &g_fx.m, &g_fx.err);
}

pte_status fx_load(const tprog *tp) { return fx_load_ex(tp, PTE_VERIFY_INTERNAL_CONSISTENCY, NULL); }

void fx_done(void) {
  fx *f = &g_fx;
  if (f->m) pte_method_destroy(f->m);
  f->m = NULL;
  if (f->prog_ok) pte_program_destroy(&f->prog);
  f->prog_ok = false;
  free(f->bytes);
  f->bytes = NULL;
}

/* ================================================================== test kernels */

int g_kcalls;
size_t g_temp_seen_used;
bool g_temp_seen;

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

const pte_kernel k_test_kernels[] = {
    {"test::add1.out", NULL, k_add1},
    {"test::add1.out", "v1/6;0|6;0", k_add1_keyed},
    {"test::fail.out", NULL, k_fail},
    {"test::inc", NULL, k_inc},
    {"test::temp", NULL, k_temp},
    {"test::nop", NULL, k_nop},
};
const size_t k_n_test_kernels = sizeof k_test_kernels / sizeof k_test_kernels[0];

void register_test_kernels(void) {
  static bool done;
  if (!done) {
    done = true;
    /* Only the fallbacks go global; the keyed kernel is used method-scoped. */
    pte_kernel globals[] = {k_test_kernels[0], k_test_kernels[2], k_test_kernels[3], k_test_kernels[4], k_test_kernels[5]};
    if (pte_register_kernels(globals, 5) != PTE_OK) fprintf(stderr, "kernel registration failed\n");
  }
}

/* counter INT[1] @0, cond BOOL[1] @16, limit Int, false Bool.
 * 0: test::inc(counter, cond, limit)   1: JF(cond -> 3)   2: JF(false -> 0)   (3 = end) */
tprog loop_prog(tplan *p, tval *v, tinstr *in, int64_t limit) {
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
