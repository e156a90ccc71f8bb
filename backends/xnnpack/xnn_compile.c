/* Delegate init/destroy (parse, prepare, fuse) and memory planning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pte_gen/xnnpack_gen.h"
#include "xnn_compile_ctx.h"

/* ============================================================================ planning */

typedef struct plan_item {
  uint32_t vi;
  size_t size;
} plan_item;

static int plan_cmp(const void *a, const void *b) {
  const plan_item *x = (const plan_item *)a, *y = (const plan_item *)b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->vi < y->vi ? -1 : (x->vi > y->vi ? 1 : 0);
}

pte_status pte_xnn_plan(pte_xnn_delegate *d, bool check_decl, pte_error_info *err) {
  size_t scratch = 0, shared = 0;
  for (size_t i = 0; i < d->n_nodes; i++) {
    if (d->nodes[i].fuse == PTE_XNN_FUSE_SKIP) continue;
    pte_status s = pte_xnn_infer_node(d, i, check_decl, err);
    if (s != PTE_OK) return s;
    if (d->nodes[i].scratch > scratch) scratch = d->nodes[i].scratch;
    if (d->nodes[i].shared_scratch > shared) shared = d->nodes[i].shared_scratch;
  }
  /* greedy first-fit by decreasing size over values whose lifetimes overlap */
  size_t n_int = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    v->nbytes = pte_xnn_value_bytes(v);
    v->plan_last = v->last_use;
  }
  for (size_t i = 0; i < d->n_values; i++) { /* a storage lives until its aliases' last use */
    pte_xnn_value *v = &d->values[i], *r = v->aliased ? &d->values[v->alias] : NULL;
    if (r && v->last_use > r->plan_last) r->plan_last = v->last_use;
  }
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output && !v->is_const && v->def_node >= 0 && !v->aliased) n_int++;
  }
  plan_item *items = (plan_item *)malloc((n_int ? n_int : 1) * sizeof(plan_item));
  if (!items) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  size_t k = 0;
  for (size_t i = 0; i < d->n_values; i++) {
    pte_xnn_value *v = &d->values[i];
    if (!v->is_input && !v->is_output && !v->is_const && v->def_node >= 0 && !v->aliased) {
      items[k].vi = (uint32_t)i;
      items[k].size = (v->nbytes + 63) & ~(size_t)63;
      k++;
    }
  }
  qsort(items, n_int, sizeof(plan_item), plan_cmp);
  size_t total = 0;
  for (size_t a = 0; a < n_int; a++) {
    pte_xnn_value *v = &d->values[items[a].vi];
    size_t off = 0;
    /* find the lowest offset that does not collide with an already placed, overlapping value */
    bool moved = true;
    while (moved) {
      moved = false;
      for (size_t b = 0; b < a; b++) {
        pte_xnn_value *u = &d->values[items[b].vi];
        bool live = !(u->plan_last < v->def_node || v->plan_last < u->def_node);
        if (!live) continue;
        size_t u0 = u->offset, u1 = u->offset + items[b].size;
        if (off < u1 && u0 < off + items[a].size) {
          off = u1;
          moved = true;
        }
      }
    }
    v->offset = off;
    if (off + items[a].size > total) total = off + items[a].size;
  }
  free(items);
  d->scratch_per_thread = (scratch + 63) & ~(size_t)63;
  d->shared_scratch = (shared + 63) & ~(size_t)63;
  size_t need = total + d->shared_scratch + d->scratch_per_thread * (size_t)d->threads + 64;
  if (need > d->arena_cap) {
    uint8_t *p = (uint8_t *)pte_xnn_packed_alloc(need); /* >= 4 MiB: huge pages */
    if (!p) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: cannot allocate a %zu-byte arena", need);
    pte_xnn_aligned_free(d->arena);
    d->arena = p;
    d->arena_cap = need;
  }
  d->arena_size = total;
  d->planned = true;
  return PTE_OK;
}

/* ============================================================================ init / destroy */

void pte_xnn_delegate_destroy(pte_xnn_delegate *d) {
  if (!d) return;
  for (size_t i = 0; i < d->n_nodes; i++)
    if (!d->nodes[i].packed_borrowed) pte_xnn_packed_free(&d->nodes[i].packed);
  for (size_t i = 0; i < d->n_nodes; i++) free(d->nodes[i].dwq);
  for (size_t i = 0; i < d->n_bufs; i++) pte_freeable_buffer_free(&d->bufs[i]);
  for (size_t i = 0; i < d->n_owned; i++) free(d->owned[i]);
  pte_xnn_pool_release(d->pool);
  pte_xnn_aligned_free(d->arena);
  free(d->prof_ns);
  free(d->prof_calls);
  free(d->bufs);
  free(d->owned);
  free(d->values);
  free(d->nodes);
  free(d->inputs);
  free(d->outputs);
  free(d);
}

/* Prepared constants may only be FullyConnected / convolution filters that were consumed as
 * packed weights: any other use would read packed bytes as a tensor. */
static pte_status check_prepared_uses(pte_xnn_delegate *d, pte_error_info *err) {
  for (size_t i = 0; i < d->n_nodes; i++) {
    const pte_xnn_node *n = &d->nodes[i];
    for (unsigned k = 0; k < n->n_in; k++) {
      if (n->in[k] == PTE_XNN_INVALID_ID) continue;
      const pte_xnn_value *v = &d->values[n->in[k]];
      if (!v->prep) continue;
      const bool gemm = n->type == pte_xn_XNodeUnion_XNNFullyConnected || n->type == pte_xn_XNodeUnion_XNNConv2d ||
                        n->type == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
      if (!gemm || k != 1 || !n->packed.bytes)
        return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                             "xnnpack: node %zu (%s) reads value %u, whose constant %u holds prepared (packed) weights, "
                             "as a tensor",
                             i, pte_xnn_node_name(n->type), v->id, v->const_index);
    }
  }
  for (size_t i = 0; i < d->n_values; i++)
    if (d->values[i].prep && d->values[i].raw_needed)
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM,
                           "xnnpack: value %u: constant %u holds prepared (packed) weights but is read unpacked",
                           d->values[i].id, d->values[i].const_index);
  return PTE_OK;
}

/* XN00 or XN01 at bytes 4..8 of the flatbuffer (`present`: the blob had an XH00 header). */
static pte_status check_graph_id(const uint8_t *f, size_t n, bool present, pte_error_info *err) {
  if (n < 8) return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: flatbuffer too small");
  if (memcmp(f + 4, "XN00", 4) == 0 || memcmp(f + 4, "XN01", 4) == 0) return PTE_OK;
  char id[5];
  for (int i = 0; i < 4; i++) id[i] = (f[4 + i] >= 32 && f[4 + i] < 127) ? (char)f[4 + i] : '?';
  id[4] = 0;
  return pte_error_set(err, PTE_ERR_DELEGATE_INVALID_COMPATIBILITY, "xnnpack: graph identifier '%s' is not XN00 or XN01%s",
                       id, present ? "" : " (and the blob has no XH00 header)");
}

pte_status pte_xnn_parse_portable(const void *blob, size_t size, pte_xnn_header *h, const uint8_t **fb, size_t *fb_size,
                                  pte_error_info *err) {
  pte_xnn_header hh;
  if (!h) h = &hh;
  pte_status s = pte_xnn_parse_header(blob, size, h, err);
  if (s != PTE_OK) return s;
  const uint8_t *f = (const uint8_t *)blob + h->flatbuffer_offset;
  s = check_graph_id(f, h->flatbuffer_size, h->present, err);
  if (s != PTE_OK) return s;
  if (fb) *fb = f;
  if (fb_size) *fb_size = h->flatbuffer_size;
  return PTE_OK;
}

pte_status pte_xnn_delegate_init_internal(const void *blob, size_t size, const pte_named_data_map *ndm,
                                          const pte_xnn_init_cfg *cfg, pte_xnn_delegate **out, pte_error_info *err) {
  *out = NULL;
  if (!cfg || !cfg->k) return pte_error_set(err, PTE_ERR_INVALID_ARGUMENT, "xnnpack: no kernels");
  const pte_xnn_kernels *k = cfg->k;
  const int threads = cfg->threads;
  pte_xnn_header h;
  pte_xnn_xpb xpb;
  bool has_xpb = false, xpb_foreign = false;
  const uint8_t *fb;
  size_t fb_size;
  pte_status s;
  memset(&h, 0, sizeof h);
  memset(&xpb, 0, sizeof xpb);
  /* prepared (pte prepare): an XPB1 container, or the portable blob sealed in the envelope */
  const uint8_t *pb;
  size_t pbs;
  s = pte_xnn_unwrap_blob(blob, size, k, cfg->repack_prepared, &pb, &pbs, &xpb, &has_xpb, &xpb_foreign, err);
  if (s != PTE_OK) return s;
  if (has_xpb) {
    h.present = true;
    fb = xpb.fb;
    fb_size = xpb.fb_size;
    s = check_graph_id(fb, fb_size, true, err);
  } else {
    blob = pb;
    size = pbs;
    s = pte_xnn_parse_portable(blob, size, &h, &fb, &fb_size, err);
  }
  if (s != PTE_OK) return s;
  /* the flatbuffer must be 4-aligned in memory for the verifier's alignment rules */
  uint8_t *copy = NULL;
  if (((uintptr_t)fb & 3u) != 0) {
    copy = (uint8_t *)pte_xnn_aligned_alloc(fb_size);
    if (!copy) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    memcpy(copy, fb, fb_size);
    fb = copy;
  }
  pte_fb_verifier v;
  pte_fb_verifier_init(&v, fb, fb_size, err);
  uint32_t root_pos = 0;
  s = pte_fb_verify_root(&v, NULL, &root_pos);
  if (s == PTE_OK) s = pte_xn_XNNGraph_verify(&v, root_pos);
  if (s != PTE_OK) {
    /* a newer exporter's node kind shows up as an unknown union tag: say so */
    pte_fb_table r = pte_fb_root(fb, fb_size);
    pte_fb_vec nodes = pte_xn_XNNGraph_xnodes(r);
    for (uint32_t i = 0; nodes.present && i < nodes.len; i++) {
      uint8_t t = pte_xn_XNode_xnode_union_type(pte_fb_vec_table(nodes, i));
      if (t >= pte_xn_XNodeUnion_COUNT) {
        pte_xnn_aligned_free(copy);
        return pte_error_set(err, PTE_ERR_NOT_IMPLEMENTED, "xnnpack: node %u has unknown kind %u (newer exporter?)", i, t);
      }
    }
    pte_xnn_aligned_free(copy);
    if (err && err->msg[0]) {
      char tmp[PTE_ERROR_MSG_MAX];
      memcpy(tmp, err->msg, sizeof tmp);
      tmp[sizeof tmp - 1] = 0;
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph verification failed: %s", tmp);
    }
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: graph verification failed");
  }

  pte_xnn_delegate *d = (pte_xnn_delegate *)calloc(1, sizeof *d);
  if (!d) {
    pte_xnn_aligned_free(copy);
    return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  }
  d->k = k;
  d->threads = threads < 1 ? 1 : threads;
  if (d->threads > 1) { /* before packing: large weights are packed in parallel */
    d->pool = pte_xnn_pool_acquire(d->threads);
    d->threads = pte_xnn_pool_threads(d->pool);
  }
  d->repack_prepared = cfg->repack_prepared;
  d->blob_persistent = cfg->blob_persistent;
  d->lazy_pack = cfg->lazy_pack;
  d->lazy_node = cfg->pack_node;
  d->lazy_buf = cfg->lazy_pack ? cfg->pack_buf : NULL;
  d->lazy_buf_size = cfg->lazy_pack && cfg->pack_buf ? cfg->pack_buf_size : 0;
  cctx c;
  memset(&c, 0, sizeof c);
  c.d = d;
  c.fb = fb;
  c.fb_size = fb_size;
  c.root = pte_fb_table_at(fb, fb_size, root_pos);
  c.has_header = h.present;
  c.cdata = has_xpb ? NULL : (const uint8_t *)blob + h.constant_data_offset;
  c.csize = (h.present && !has_xpb) ? h.constant_data_size : 0;
  c.xpb = has_xpb ? &xpb : NULL;
  c.xpb_foreign = xpb_foreign;
  c.ndm = ndm;
  c.err = err;

  pte_fb_vec xvalues = pte_xn_XNNGraph_xvalues(c.root), xnodes = pte_xn_XNNGraph_xnodes(c.root);
  uint32_t n_legacy = 0;
  /* one allocation each for the values and nodes the graph declares (a few more may be added) */
  if ((xvalues.present && !pte_xnn_reserve((void **)&d->values, &d->cap_values, (size_t)xvalues.len + 4,
                                        sizeof(pte_xnn_value))) ||
      (xnodes.present && !pte_xnn_reserve((void **)&d->nodes, &d->cap_nodes, (size_t)xnodes.len + 4, sizeof(pte_xnn_node))))
    s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  for (uint32_t i = 0; s == PTE_OK && xvalues.present && i < xvalues.len; i++)
    s = pte_xnn_cc_parse_value(&c, i, pte_fb_vec_table(xvalues, i), &n_legacy);
  if (s == PTE_OK && n_legacy) s = pte_xnn_cc_expand_legacy_dq(&c, xvalues);
  if (s == PTE_OK) s = pte_xnn_cc_build_idmap(&c);
  for (uint32_t i = 0; s == PTE_OK && xnodes.present && i < xnodes.len; i++)
    s = pte_xnn_cc_parse_node(&c, d->n_nodes, pte_fb_vec_table(xnodes, i));
  if (s == PTE_OK) s = pte_xnn_cc_check_graph(&c);
  if (s == PTE_OK) s = pte_xnn_cc_collect_externals(&c);
  for (size_t i = 0; s == PTE_OK && i < d->n_nodes; i++) s = pte_xnn_prepare_node(d, i, err);
  if (s == PTE_OK) s = check_prepared_uses(d, err);
  if (s == PTE_OK) pte_xnn_fuse(d);
  if (s == PTE_OK && !d->lazy_pack) s = pte_xnn_plan(d, true, err);
  /* keep what execute reads unpacked; drop the rest */
  if (s == PTE_OK) {
    bool *keep = (bool *)calloc(c.n_tmp ? c.n_tmp : 1, sizeof(bool));
    if (!keep) s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    for (size_t i = 0; s == PTE_OK && i < d->n_values; i++) {
      pte_xnn_value *val = &d->values[i];
      if (!val->is_const) continue;
      if (!val->raw_needed) {
        val->cdata = NULL;
        continue;
      }
      /* a named-data buffer stays alive; bytes inside the blob are copied */
      bool from_buf = false;
      for (size_t b = 0; b < c.n_tmp; b++) {
        const uint8_t *p0 = (const uint8_t *)c.tmp[b].data;
        if (p0 && val->cdata >= p0 && val->cdata < p0 + c.tmp[b].size) {
          keep[b] = true;
          from_buf = true;
        }
      }
      if (!from_buf) {
        uint8_t *cp = (uint8_t *)pte_xnn_aligned_alloc(val->csize);
        if (!cp || !pte_xnn_cc_own(d, cp)) {
          pte_xnn_aligned_free(cp);
          s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
          break;
        }
        memcpy(cp, val->cdata, val->csize);
        val->cdata = cp;
      }
    }
    /* packed weights used in place keep their named-data buffer (a view into the mapped file
     * with the mmap loader) alive until destroy; never written */
    for (size_t i = 0; s == PTE_OK && i < d->n_nodes; i++) {
      const pte_xnn_node *n = &d->nodes[i];
      if (!n->packed_borrowed) continue;
      bool in_buf = false;
      for (size_t b = 0; b < c.n_tmp; b++) {
        const uint8_t *p0 = (const uint8_t *)c.tmp[b].data;
        if (p0 && n->packed.bytes >= p0 && n->packed.bytes < p0 + c.tmp[b].size) {
          keep[b] = true;
          in_buf = true;
        }
      }
      if (!in_buf) d->borrows_blob = true;
    }
    for (size_t b = 0; s == PTE_OK && b < c.n_tmp; b++) {
      if (!keep[b]) continue;
      if (!pte_xnn_grow((void **)&d->bufs, &d->cap_bufs, d->n_bufs + 1, sizeof(pte_freeable_buffer))) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        break;
      }
      d->bufs[d->n_bufs++] = c.tmp[b];
      memset(&c.tmp[b], 0, sizeof c.tmp[b]);
    }
    free(keep);
  }

  pte_xnn_cc_release(&c);
  pte_xnn_aligned_free(copy);
  if (s != PTE_OK) {
    pte_xnn_delegate_destroy(d);
    return s;
  }
  *out = d;
  return PTE_OK;
}

size_t pte_xnn_delegate_num_inputs(const pte_xnn_delegate *d) { return d ? d->n_inputs : 0; }
size_t pte_xnn_delegate_num_outputs(const pte_xnn_delegate *d) { return d ? d->n_outputs : 0; }
size_t pte_xnn_delegate_num_args(const pte_xnn_delegate *d) { return d ? d->num_externs : 0; }
int pte_xnn_delegate_threads(const pte_xnn_delegate *d) { return d ? d->threads : 0; }
pte_xnn_isa pte_xnn_delegate_isa(const pte_xnn_delegate *d) {
  if (!d) return PTE_XNN_ISA_AUTO;
  switch (d->k->isa) {
    case PTE_XNN_KISA_AVX512: return PTE_XNN_ISA_AVX512;
    case PTE_XNN_KISA_AVX2: return PTE_XNN_ISA_AVX2;
    default: return PTE_XNN_ISA_SCALAR;
  }
}
size_t pte_xnn_delegate_packed_bytes(const pte_xnn_delegate *d) {
  size_t t = 0;
  for (size_t i = 0; d && i < d->n_nodes; i++) t += d->nodes[i].packed.size;
  return t;
}
size_t pte_xnn_delegate_arena_bytes(const pte_xnn_delegate *d) { return d ? d->arena_cap : 0; }
