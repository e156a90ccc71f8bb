/* planner.c — greedy-by-lifetime memory planner for built methods. */
#include <stdlib.h>
#include <string.h>

#include "writer/writer_pte.h"

typedef struct pl_item {
  int32_t value;
  uint32_t mem_id;
  uint64_t size;
  int64_t first, last; /* lifetime in linear instruction indices */
  uint64_t offset;
  bool fixed;          /* explicit tensor or scratch: already placed */
} pl_item;

typedef struct pl_iv {
  uint64_t start, end;
} pl_iv;

static int cmp_item(const void *pa, const void *pb) {
  const pl_item *a = (const pl_item *)pa, *b = (const pl_item *)pb;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return a->value < b->value ? -1 : (a->value > b->value);
}

static int cmp_iv(const void *pa, const void *pb) {
  const pl_iv *a = (const pl_iv *)pa, *b = (const pl_iv *)pb;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return a->end < b->end ? -1 : (a->end > b->end);
}

static int32_t uf_find(int32_t *parent, int32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

static void touch(wr_method *m, int64_t *first, int64_t *last, int32_t v, int64_t g) {
  if (v < 0 || (size_t)v >= m->values.n) return;
  if (g < first[v]) first[v] = g;
  if (g > last[v]) last[v] = g;
  wr_value *x = &PTE_WR_AT(m->values, wr_value, v);
  if (x->kind == WR_V_TENSOR_LIST || x->kind == WR_V_OPT_TENSOR_LIST) {
    const int32_t *items = (const int32_t *)x->u.list.items;
    for (size_t i = 0; i < x->u.list.n; i++) {
      int32_t t = items[i];
      if (t < 0 || (size_t)t >= m->values.n) continue;
      if (g < first[t]) first[t] = g;
      if (g > last[t]) last[t] = g;
    }
  }
}

pte_status pte_wr_plan_method(pte_writer *w, wr_method *m, const char *what, pte_error_info *err) {
  size_t nv = m->values.n;
  size_t n_auto = 0, n_fixed = 0;
  for (size_t i = 0; i < nv; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind != WR_V_TENSOR) continue;
    if (v->u.t->plan == PTE_WR_PLAN_AUTO) {
      v->u.t->placed = false;
      n_auto++;
    } else if (v->u.t->plan == PTE_WR_PLAN_EXPLICIT) {
      n_fixed++;
    }
  }
  for (size_t i = 0; i < m->delegates.n; i++) n_fixed += PTE_WR_AT(m->delegates, wr_delegate, i).n_scratch;
  if (n_auto == 0) {
    m->planned = true;
    return PTE_OK;
  }
  /* Scratch memory for the planner comes from the output arena (reset per write). */
  pte_wr_arena *a = &w->out_arena;
  int64_t *first = (int64_t *)pte_wr_alloc(a, (nv ? nv : 1) * sizeof(int64_t));
  int64_t *last = (int64_t *)pte_wr_alloc(a, (nv ? nv : 1) * sizeof(int64_t));
  int32_t *parent = (int32_t *)pte_wr_alloc(a, (nv ? nv : 1) * sizeof(int32_t));
  pl_item *items = (pl_item *)pte_wr_alloc(a, (n_auto + n_fixed) * sizeof(pl_item));
  pl_iv *ivs = (pl_iv *)pte_wr_alloc(a, (n_auto + n_fixed) * sizeof(pl_iv));
  if (!first || !last || !parent || !items || !ivs)
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "memory planner: out of memory");
  for (size_t i = 0; i < nv; i++) {
    first[i] = INT64_MAX;
    last[i] = -1;
    parent[i] = (int32_t)i;
  }
  /* linear instruction order over all chains */
  int64_t g = 0;
  bool has_jump = false;
  for (size_t c = 0; c < m->chains.n; c++) {
    wr_chain *ch = &PTE_WR_AT(m->chains, wr_chain, c);
    for (size_t k = 0; k < ch->instrs.n; k++, g++) {
      wr_instr *in = &PTE_WR_AT(ch->instrs, wr_instr, k);
      switch (in->kind) {
        case WR_I_KERNEL:
        case WR_I_DELEGATE:
          for (size_t j = 0; j < in->n_args; j++) touch(m, first, last, in->args[j], g);
          break;
        case WR_I_MOVE:
          touch(m, first, last, in->a, g);
          touch(m, first, last, in->b, g);
          if (in->a >= 0 && (size_t)in->a < nv && in->b >= 0 && (size_t)in->b < nv) {
            int32_t ra = uf_find(parent, in->a), rb = uf_find(parent, in->b);
            if (ra != rb) parent[rb] = ra;
          }
          break;
        case WR_I_JUMP_FALSE:
          has_jump = true;
          touch(m, first, last, in->a, g);
          break;
        case WR_I_FREE:
          touch(m, first, last, in->a, g);
          break;
        default: break;
      }
    }
  }
  int64_t end = g > 0 ? g - 1 : 0;
  for (size_t i = 0; i < m->n_inputs; i++) touch(m, first, last, m->inputs[i], 0);
  for (size_t i = 0; i < m->n_outputs; i++) touch(m, first, last, m->outputs[i], end);
  for (size_t i = 0; i < nv; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind == WR_V_TENSOR && v->u.t->mutable_init) {
      first[i] = 0;
      last[i] = end;
    }
    if (first[i] > last[i]) { /* never used: an empty lifetime at the start */
      first[i] = 0;
      last[i] = 0;
    }
  }
  /* MoveCall groups share one lifetime (the union). */
  for (size_t i = 0; i < nv; i++) {
    int32_t r = uf_find(parent, (int32_t)i);
    if ((size_t)r == i) continue;
    if (first[i] < first[r]) first[r] = first[i];
    if (last[i] > last[r]) last[r] = last[i];
  }
  size_t n = 0;
  for (size_t i = 0; i < nv; i++) {
    wr_value *v = &PTE_WR_AT(m->values, wr_value, i);
    if (v->kind != WR_V_TENSOR || v->u.t->plan == PTE_WR_PLAN_NONE) continue;
    int32_t r = uf_find(parent, (int32_t)i);
    pl_item *it = &items[n++];
    it->value = (int32_t)i;
    it->mem_id = v->u.t->mem_id;
    it->size = v->u.t->nbytes;
    it->fixed = v->u.t->plan == PTE_WR_PLAN_EXPLICIT;
    it->offset = v->u.t->mem_offset;
    if (it->fixed || has_jump) {
      it->first = 0;
      it->last = end;
    } else {
      it->first = first[r];
      it->last = last[r];
    }
  }
  for (size_t i = 0; i < m->delegates.n; i++) {
    wr_delegate *d = &PTE_WR_AT(m->delegates, wr_delegate, i);
    for (size_t k = 0; k < d->n_scratch; k++) {
      pl_item *it = &items[n++];
      it->value = INT32_MAX;
      it->mem_id = d->scratch[k].mem_id;
      it->size = d->scratch[k].size;
      it->offset = d->scratch[k].offset;
      it->fixed = true;
      it->first = 0;
      it->last = end;
    }
  }
  qsort(items, n, sizeof *items, cmp_item);
  uint64_t align = w->opt.plan_alignment;
  for (size_t i = 0; i < n; i++) {
    pl_item *it = &items[i];
    if (it->fixed) continue;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
      pl_item *o = &items[j];
      if (j == i || o->mem_id != it->mem_id || o->size == 0) continue;
      bool placed = o->fixed || j < i; /* larger ones are placed first */
      if (!placed) continue;
      if (o->last < it->first || it->last < o->first) continue;
      ivs[k].start = o->offset;
      ivs[k].end = o->offset + o->size;
      k++;
    }
    qsort(ivs, k, sizeof *ivs, cmp_iv);
    uint64_t x = 0;
    if (it->size > 0) {
      for (size_t j = 0; j < k; j++) {
        if (x + it->size <= ivs[j].start) break;
        if (ivs[j].end > x) x = pte_wr_align(ivs[j].end, align);
      }
    }
    it->offset = x;
    wr_tensor *t = PTE_WR_AT(m->values, wr_value, it->value).u.t;
    t->mem_offset = x;
    t->placed = true;
  }
  (void)what;
  m->planned = true;
  return PTE_OK;
}
