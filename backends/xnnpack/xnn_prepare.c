/* Prepared data ("pte prepare", pte/prepare.h): the XnnpackBackend initialize_backend_data hook,
 * the device fingerprint, the XPB1 container of prepared inline blobs, and the init counters.
 *
 * What the hook stores (docs/xnnpack.md section 11):
 *   - a named-data weight whose every use in every blob of this backend is the filter of a
 *     FullyConnected / convolution node packed into the SAME bytes (same weights, bias, kind)
 *     becomes those packed bytes (XPW1 blob(s), bias fused) inside the envelope; the key is
 *     unchanged. Weights needed in two packed forms, or read as tensors anywhere, stay portable;
 *     biases and scales always stay portable;
 *   - a processed blob with constants in its own constant region (older exports) becomes an
 *     XPB1 container: the XNNGraph flatbuffer, then every inline constant, packed when it
 *     qualifies as above (within the blob), as is otherwise.
 * The envelope names format PTE_XNN_PREPARED_FORMAT and the fingerprint of the ISA init would
 * choose with the process defaults (pte_xnnpack_set_default_options; AUTO: this CPU's best).
 *
 * Memory (issue 14 item 6): the walk compiles each blob lazily (pte_xnn_init_cfg.lazy_pack:
 * parsed and checked, nothing packed, packed sizes known); the writes then pack ONE weight at a
 * time (lazy compile selecting that node) into one reused buffer, hand it to
 * pte_write_named_data and move on. fp32 weights read from a file mapping are packed in slices
 * whose input pages are dropped from the process as they are consumed (pte_xnn_release_pages),
 * so peak RSS stays near the largest packed value. Packed bytes are compared (hash) only for a
 * constant with two packing uses; inline constants (in the blob, in memory anyway) are packed
 * with a full compile. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "format/flatbuf.h"
#include "pte_gen/xnnpack_gen.h"
#include "xnn_internal.h"

/* ============================================================================ counters */

static _Atomic uint64_t g_stats[PTE_XNN_STAT_COUNT];

void pte_xnn_stat_add(int which, uint64_t n) {
  if (which >= 0 && which < PTE_XNN_STAT_COUNT) atomic_fetch_add_explicit(&g_stats[which], n, memory_order_relaxed);
}

void pte_xnnpack_stats_get(pte_xnnpack_stats *out) {
  if (!out) return;
  out->packs = atomic_load_explicit(&g_stats[PTE_XNN_STAT_PACKS], memory_order_relaxed);
  out->packed_bytes = atomic_load_explicit(&g_stats[PTE_XNN_STAT_PACKED_BYTES], memory_order_relaxed);
  out->prepared = atomic_load_explicit(&g_stats[PTE_XNN_STAT_PREPARED], memory_order_relaxed);
  out->prepared_copies = atomic_load_explicit(&g_stats[PTE_XNN_STAT_PREPARED_COPIES], memory_order_relaxed);
  out->repacks = atomic_load_explicit(&g_stats[PTE_XNN_STAT_REPACKS], memory_order_relaxed);
}

void pte_xnnpack_stats_reset(void) {
  for (int i = 0; i < PTE_XNN_STAT_COUNT; i++) atomic_store_explicit(&g_stats[i], 0, memory_order_relaxed);
}

/* ============================================================================ fingerprint */

static size_t put_str(char *buf, size_t o, const char *s) {
  while (*s && o < 32) buf[o++] = *s++;
  return o;
}

static size_t put_uint(char *buf, size_t o, uint32_t x) {
  char tmp[12];
  int t = 0;
  do {
    tmp[t++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (t && o < 32) buf[o++] = tmp[--t];
  return o;
}

static size_t put_tile(char *buf, size_t o, uint32_t mr, uint32_t nr) {
  o = put_uint(buf, o, mr);
  o = put_str(buf, o, "x");
  return put_uint(buf, o, nr);
}

size_t pte_xnn_fingerprint(const pte_xnn_kernels *k, char buf[33]) {
  static const char *names[] = {"scalar", "avx2", "avx512"};
  size_t o = 0;
  o = put_str(buf, o, (unsigned)k->isa < 3 ? names[k->isa] : "unknown");
  o = put_str(buf, o, " ");
  o = put_tile(buf, o, k->f32_mr, k->f32_nr);
  if (k->f32n_gemm) {
    o = put_str(buf, o, "+");
    o = put_tile(buf, o, k->f32n_mr, k->f32n_nr);
  }
  o = put_str(buf, o, " i8 ");
  o = put_tile(buf, o, k->i8_mr, k->i8_nr);
  buf[o] = 0;
  return o;
}

size_t pte_xnnpack_fingerprint(pte_xnn_isa isa, char buf[33]) {
  if (!buf) return 0;
  return pte_xnn_fingerprint(pte_xnnpack_kernels_for_isa(isa), buf);
}

pte_status pte_xnn_envelope_check(const void *data, size_t size, const pte_xnn_kernels *k, bool repack,
                                  pte_prepared_info *pi, bool *foreign, pte_error_info *err) {
  char fp[33];
  const size_t n = pte_xnn_fingerprint(k, fp);
  pte_error_info e;
  memset(&e, 0, sizeof e);
  *foreign = false;
  pte_status s = pte_prepared_envelope_check(data, size, PTE_XNNPACK_BACKEND_ID, PTE_XNN_PREPARED_FORMAT, fp, n, pi, &e);
  if (s == PTE_OK) return PTE_OK;
  if (s == PTE_ERR_DELEGATE_INVALID_COMPATIBILITY && pi->payload &&
      strcmp(pi->backend_id, PTE_XNNPACK_BACKEND_ID) == 0 && pi->format_version == PTE_XNN_PREPARED_FORMAT) {
    if (repack) {
      *foreign = true; /* same format, another machine: re-laid out at init */
      return PTE_OK;
    }
    /* pte_prepared_envelope_check's message, shortened so that it survives the method runtime's
     * prefix ("backend 'X' init failed for delegate N of method 'M': ") within 255 characters */
    char have[2 * PTE_PREPARED_FINGERPRINT_MAX + 4], mine[2 * PTE_PREPARED_FINGERPRINT_MAX + 4];
    pte_prepared_fingerprint_text(pi->fingerprint, pi->fingerprint_size, have, sizeof have);
    pte_prepared_fingerprint_text(fp, n, mine, sizeof mine);
    return pte_error_set(err, s,
                         "prepared for %s format %u on %s, this machine is %s: run pte prepare again on the portable "
                         "model (or set repack_prepared)",
                         pi->backend_id, pi->format_version, have, mine);
  }
  return pte_error_set(err, s, "%s", e.msg);
}

pte_status pte_xnn_unwrap_blob(const void *blob, size_t size, const pte_xnn_kernels *k, bool repack,
                               const uint8_t **portable, size_t *portable_size, pte_xnn_xpb *xpb, bool *has_xpb,
                               bool *foreign, pte_error_info *err) {
  *has_xpb = *foreign = false;
  *portable = (const uint8_t *)blob;
  *portable_size = size;
  if (!blob || !pte_prepared_is_envelope(blob, size)) return PTE_OK;
  pte_prepared_info pi;
  pte_status s = pte_xnn_envelope_check(blob, size, k, repack, &pi, foreign, err);
  if (s != PTE_OK) return s;
  if (pi.payload_size >= 4 && memcmp(pi.payload, PTE_XNN_XPB_MAGIC, 4) == 0) {
    *has_xpb = true;
    return pte_xnn_xpb_parse((const uint8_t *)pi.payload, (size_t)pi.payload_size, xpb, err);
  }
  *portable = (const uint8_t *)pi.payload; /* sealed portable blob */
  *portable_size = (size_t)pi.payload_size;
  return PTE_OK;
}

/* ============================================================================ XPB1 */

static uint32_t ld32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | ((uint64_t)ld32(p + 4) << 32); }
static void st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

pte_status pte_xnn_xpb_parse(const uint8_t *p, size_t size, pte_xnn_xpb *o, pte_error_info *err) {
  memset(o, 0, sizeof *o);
  if (!p || size < PTE_XNN_XPB_HEADER_SIZE || memcmp(p, PTE_XNN_XPB_MAGIC, 4) != 0)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: prepared blob: payload is not an XPB1 container");
  if (ld32(p + 4) != 1 || ld32(p + 8) != PTE_XNN_XPB_HEADER_SIZE)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: prepared blob: XPB1 version %u / header %u not supported",
                         ld32(p + 4), ld32(p + 8));
  const uint32_t n = ld32(p + 12);
  const uint64_t fo = ld64(p + 16), fs = ld64(p + 24), to = ld64(p + 32);
  if (fo % 64 || fo < PTE_XNN_XPB_HEADER_SIZE || fo > size || fs < 8 || fs > size - fo || fs > 0xFFFFFFFFu)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: prepared blob: flatbuffer [%llu, +%llu) outside %zu bytes",
                         (unsigned long long)fo, (unsigned long long)fs, size);
  if (to % 8 || to < PTE_XNN_XPB_HEADER_SIZE || to > size || n > (size - to) / PTE_XNN_XPB_ENTRY_SIZE)
    return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: prepared blob: %u entries at %llu outside %zu bytes", n,
                         (unsigned long long)to, size);
  const uint8_t *t = p + to;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *e = t + (size_t)i * PTE_XNN_XPB_ENTRY_SIZE;
    const uint32_t idx = ld32(e), kind = ld32(e + 4);
    const uint64_t off = ld64(e + 8), sz = ld64(e + 16);
    const bool named = kind == PTE_XNN_XPB_NAMED; /* no bytes in the container: offset 0 */
    if ((i > 0 && idx <= ld32(e - PTE_XNN_XPB_ENTRY_SIZE)) || idx == 0 || kind > PTE_XNN_XPB_NAMED ||
        (named ? off != 0 || sz == 0 || sz > ((uint64_t)1 << 48)
               : off % 64 || off < PTE_XNN_XPB_HEADER_SIZE || off > size || sz > size - off))
      return pte_error_set(err, PTE_ERR_INVALID_PROGRAM, "xnnpack: prepared blob: entry %u (constant %u) is malformed", i,
                           idx);
  }
  o->base = p;
  o->size = size;
  o->fb = p + fo;
  o->fb_size = (size_t)fs;
  o->table = t;
  o->n_entries = n;
  return PTE_OK;
}

bool pte_xnn_xpb_find(const pte_xnn_xpb *x, uint32_t idx, uint32_t *kind, const uint8_t **data, size_t *size) {
  uint32_t lo = 0, hi = x->n_entries;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const uint8_t *e = x->table + (size_t)mid * PTE_XNN_XPB_ENTRY_SIZE;
    const uint32_t v = ld32(e);
    if (v == idx) {
      *kind = ld32(e + 4);
      *data = x->base + ld64(e + 8);
      *size = (size_t)ld64(e + 16);
      return true;
    }
    if (v < idx) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/* ============================================================================ the hook */

/* 128-bit fingerprint of packed bytes (equality test between two packings of one constant). */
static void hash128(const uint8_t *p, size_t n, uint64_t h[2]) {
  uint64_t a = 0x243F6A8885A308D3ull ^ (uint64_t)n, b = 0x13198A2E03707344ull + (uint64_t)n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    a = (a ^ w) * 0x9E3779B97F4A7C15ull;
    a ^= a >> 29;
    b = (b + w) * 0xC2B2AE3D27D4EB4Full;
    b ^= b >> 31;
  }
  for (; i < n; i++) {
    a = (a ^ p[i]) * 0x100000001B3ull;
    b = (b + p[i]) * 0xC2B2AE3D27D4EB4Full;
  }
  h[0] = a ^ (a >> 33);
  h[1] = b ^ (b >> 29);
}

typedef struct pk_key { /* a named-data key some blob of this backend reads */
  char *key;
  bool portable;        /* keep the stored value (read as a tensor, two packed forms, ...) */
  bool prepared;        /* already holds prepared data */
  bool hashed;          /* h is known (computed only when a second use must be compared) */
  uint64_t h[2];        /* packed form */
  size_t size;
  size_t rec, node;     /* the blob record and node that pack it */
} pk_key;

typedef struct pk_rec { /* a blob some of whose weights are written at the end (a heap copy) */
  uint8_t *blob;
  size_t size;
} pk_rec;

typedef struct pk_named { /* a portable blob whose constants are all named data */
  uint32_t item;  /* its pte_backend_data.index */
  uint8_t *fb;    /* verified copy of its flatbuffer (aligned) */
  size_t fb_size;
} pk_named;

typedef struct pk_state {
  const pte_xnn_kernels *k;
  const pte_named_data_map *ndm;
  pte_error_info *err;
  pk_key *keys;
  size_t n_keys, cap_keys;
  pk_rec *recs;
  size_t n_recs, cap_recs;
  pk_named *named;
  size_t n_named, cap_named;
  uint8_t *buf; /* the packed weights of one key at a time (write_keys), reused */
  size_t buf_size;
} pk_state;

typedef struct slot_use {
  bool any, other, prepared, differ, hashed;
  int node;      /* first node packing it, -1 none */
  uint64_t h[2];
  size_t size;
} slot_use;

static bool grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *p = realloc(*arr, nc * elem);
  if (!p) return false;
  *arr = p;
  *cap = nc;
  return true;
}

static pk_key *find_key(pk_state *st, const char *key) {
  for (size_t i = 0; i < st->n_keys; i++)
    if (strcmp(st->keys[i].key, key) == 0) return &st->keys[i];
  return NULL;
}

static pk_key *add_key(pk_state *st, const char *key, size_t len) {
  if (!grow((void **)&st->keys, &st->cap_keys, st->n_keys + 1, sizeof(pk_key))) return NULL;
  char *c = (char *)malloc(len + 1);
  if (!c) return NULL;
  memcpy(c, key, len);
  c[len] = 0;
  pk_key *e = &st->keys[st->n_keys++];
  memset(e, 0, sizeof *e);
  e->key = c;
  return e;
}

/* Compiles a blob. lazy: nothing is packed except node pack_node - 1 (0: none), so that the hook
 * holds at most one packed weight at a time (and reads only that weight's pages). */
static pte_status compile(pk_state *st, const void *blob, size_t size, bool lazy, size_t pack_node,
                          pte_xnn_delegate **d, pte_error_info *err) {
  pte_xnn_init_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.threads = 1;
  cfg.k = st->k;
  cfg.blob_persistent = false; /* nothing may point into the blob after this call */
  cfg.lazy_pack = lazy;
  cfg.pack_node = pack_node;
  cfg.pack_buf = lazy ? st->buf : NULL;
  cfg.pack_buf_size = lazy ? st->buf_size : 0;
  return pte_xnn_delegate_init_internal(blob, size, st->ndm, &cfg, d, err);
}

/* The fingerprint of node ni's packed weights (packs that node alone, then drops it). */
static pte_status node_hash(pk_state *st, const uint8_t *blob, size_t size, size_t ni, uint64_t h[2], size_t *psize) {
  pte_xnn_delegate *d = NULL;
  pte_error_info cerr;
  memset(&cerr, 0, sizeof cerr);
  pte_status s = compile(st, blob, size, true, ni + 1, &d, &cerr);
  if (s != PTE_OK) return pte_error_set(st->err, s, "xnnpack: %s", cerr.msg);
  if (ni >= d->n_nodes || !d->nodes[ni].packed.bytes) {
    pte_xnn_delegate_destroy(d);
    return pte_error_set(st->err, PTE_ERR_INTERNAL, "xnnpack: node %zu packs nothing on its own", ni);
  }
  hash128(d->nodes[ni].packed.bytes, d->nodes[ni].packed.size, h);
  if (psize) *psize = d->nodes[ni].packed.size;
  pte_xnn_delegate_destroy(d);
  return PTE_OK;
}

/* The verified XNNGraph of a (portable or XPB1) blob, copied to aligned heap memory (*copy, free
 * it). Only called on blobs init accepted or that failed past verification. */
static pte_status graph_of(const uint8_t *blob, size_t size, const pte_xnn_kernels *k, uint8_t **copy,
                           pte_fb_table *root, bool *xpb, pte_error_info *err) {
  const uint8_t *fb;
  size_t fbs;
  pte_status s;
  *copy = NULL;
  *xpb = false;
  pte_xnn_xpb x;
  bool foreign;
  const uint8_t *pb;
  size_t pbs;
  s = pte_xnn_unwrap_blob(blob, size, k, false, &pb, &pbs, &x, xpb, &foreign, err);
  if (s != PTE_OK) return s;
  if (*xpb) {
    fb = x.fb;
    fbs = x.fb_size;
  } else {
    pte_xnn_header h;
    s = pte_xnn_parse_header(pb, pbs, &h, err);
    if (s != PTE_OK) return s;
    fb = pb + h.flatbuffer_offset;
    fbs = h.flatbuffer_size;
  }
  *copy = (uint8_t *)pte_xnn_aligned_alloc(fbs);
  if (!*copy) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  memcpy(*copy, fb, fbs);
  pte_fb_verifier v;
  pte_fb_verifier_init(&v, *copy, fbs, err);
  uint32_t pos = 0;
  s = pte_fb_verify_root(&v, NULL, &pos);
  if (s == PTE_OK) s = pte_xn_XNNGraph_verify(&v, pos);
  if (s != PTE_OK) return s;
  *root = pte_fb_table_at(*copy, fbs, pos);
  return PTE_OK;
}

static bool is_gemm_node(unsigned t) {
  return t == pte_xn_XNodeUnion_XNNFullyConnected || t == pte_xn_XNodeUnion_XNNConv2d ||
         t == pte_xn_XNodeUnion_XNNDepthwiseConv2d;
}

/* Which constants of a (lazily) compiled blob could be stored packed (see the top of this file).
 * Two packings of one constant are compared by packing each alone, only when there are two. */
static pte_status analyse(pk_state *st, const uint8_t *blob, size_t size, const pte_xnn_delegate *d, slot_use *u,
                          uint32_t n_slots) {
  for (uint32_t i = 0; i < n_slots; i++) u[i].node = -1;
  for (size_t i = 0; i < d->n_values; i++) {
    const pte_xnn_value *v = &d->values[i];
    if (v->is_const && v->const_index && v->const_index < n_slots) {
      slot_use *s = &u[v->const_index];
      s->any = true;
      if (v->prep) s->prepared = true;
      if (v->raw_needed) s->other = true;
    }
    if (v->scale_index && v->scale_index < n_slots) u[v->scale_index].other = u[v->scale_index].any = true;
  }
  for (size_t ni = 0; ni < d->n_nodes; ni++) {
    const pte_xnn_node *n = &d->nodes[ni];
    for (unsigned k = 0; k < n->n_in; k++) {
      if (n->in[k] == PTE_XNN_INVALID_ID) continue;
      const pte_xnn_value *v = &d->values[n->in[k]];
      if (!v->is_const || !v->const_index || v->const_index >= n_slots) continue;
      slot_use *s = &u[v->const_index];
      if (k != 1 || !is_gemm_node(n->type) || !n->packed.size) {
        s->other = true;
        continue;
      }
      if (n->packed_borrowed || v->prep) continue; /* already prepared */
      if (s->node < 0) {
        s->node = (int)ni;
        s->size = n->packed.size;
      } else if (!s->differ && s->size != n->packed.size) {
        s->differ = true;
      } else if (!s->differ) {
        uint64_t h[2];
        pte_status e = PTE_OK;
        if (!s->hashed) e = node_hash(st, blob, size, (size_t)s->node, s->h, NULL);
        if (e == PTE_OK) e = node_hash(st, blob, size, ni, h, NULL);
        if (e != PTE_OK) return e;
        s->hashed = true;
        if (s->h[0] != h[0] || s->h[1] != h[1]) s->differ = true;
      }
    }
  }
  return PTE_OK;
}

static bool packable(const slot_use *s) { return s->node >= 0 && !s->other && !s->differ && !s->prepared; }

/* The XPB1 header (the rest of the first PTE_XNN_XPB_HEADER_SIZE bytes must be zero): n entries
 * in the table right after it, the flatbuffer of fbs bytes at fbo. */
static void xpb_header(uint8_t *p, uint32_t n, size_t fbo, size_t fbs) {
  memcpy(p, PTE_XNN_XPB_MAGIC, 4);
  st32(p + 4, 1);
  st32(p + 8, PTE_XNN_XPB_HEADER_SIZE);
  st32(p + 12, n);
  st64(p + 16, fbo);
  st64(p + 24, fbs);
  st64(p + 32, PTE_XNN_XPB_HEADER_SIZE);
}

/* Table entry j: constant idx of `kind`, its bytes at off (0 for NAMED), size bytes. */
static void xpb_entry(uint8_t *p, uint32_t j, uint32_t idx, uint32_t kind, uint64_t off, uint64_t size) {
  uint8_t *e = p + PTE_XNN_XPB_HEADER_SIZE + (size_t)j * PTE_XNN_XPB_ENTRY_SIZE;
  st32(e, idx);
  st32(e + 4, kind);
  st64(e + 8, off);
  st64(e + 16, size);
}

/* XPB1 container for a blob whose inline constants include packable ones. */
static pte_status build_xpb(const uint8_t *blob, size_t size, const pte_xnn_header *h, const uint8_t *fb, size_t fbs,
                            pte_fb_table root, const pte_xnn_delegate *d, const slot_use *u, uint32_t n_slots,
                            uint8_t **out, size_t *out_size, pte_error_info *err) {
  (void)size;
  pte_fb_vec cd = pte_xn_XNNGraph_constant_data(root);
  uint32_t n = 0;
  size_t data = 0;
  for (uint32_t i = 1; i < n_slots; i++) {
    pte_fb_table e = pte_fb_vec_table(cd, i);
    if (!pte_fb_table_present(e)) continue;
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
    if (key.ptr && key.len) continue;
    const uint64_t off = pte_xn_ConstantDataOffset_offset(e), sz = pte_xn_ConstantDataOffset_size(e);
    if (off > h->constant_data_size || sz > h->constant_data_size - off) continue; /* unused: init would refuse it */
    n++;
    data += align64(packable(&u[i]) ? d->nodes[u[i].node].packed.size : (size_t)sz);
  }
  const size_t table = PTE_XNN_XPB_HEADER_SIZE, fbo = align64(table + (size_t)n * PTE_XNN_XPB_ENTRY_SIZE);
  const size_t total = align64(fbo + fbs) + data;
  uint8_t *p = (uint8_t *)pte_xnn_aligned_alloc(total);
  if (!p) return pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  memset(p, 0, total);
  xpb_header(p, n, fbo, fbs);
  memcpy(p + fbo, fb, fbs);
  size_t at = align64(fbo + fbs);
  uint32_t j = 0;
  const uint8_t *cdata = blob + h->constant_data_offset;
  for (uint32_t i = 1; i < n_slots; i++) {
    pte_fb_table e = pte_fb_vec_table(cd, i);
    if (!pte_fb_table_present(e)) continue;
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
    if (key.ptr && key.len) continue;
    const uint64_t off = pte_xn_ConstantDataOffset_offset(e), sz = pte_xn_ConstantDataOffset_size(e);
    if (off > h->constant_data_size || sz > h->constant_data_size - off) continue;
    if (packable(&u[i])) {
      const pte_xnn_node *nd = &d->nodes[u[i].node];
      xpb_entry(p, j++, i, PTE_XNN_XPB_PACKED, at, nd->packed.size);
      memcpy(p + at, nd->packed.bytes, nd->packed.size);
      at += align64(nd->packed.size);
    } else {
      xpb_entry(p, j++, i, PTE_XNN_XPB_RAW, at, sz);
      if (sz) memcpy(p + at, cdata + off, (size_t)sz);
      at += align64((size_t)sz);
    }
  }
  *out = p;
  *out_size = total;
  return PTE_OK;
}

/* Key k's packed fingerprint (packs it alone when not known yet). */
static pte_status key_hash(pk_state *st, pk_key *k) {
  if (k->hashed) return PTE_OK;
  const pk_rec *r = &st->recs[k->rec];
  pte_status s = node_hash(st, r->blob, r->size, k->node, k->h, NULL);
  if (s == PTE_OK) k->hashed = true;
  return s;
}

/* One blob: analyse it, replace it when it has packable inline constants, record its named keys.
 * The blob is compiled lazily (nothing packed); packed bytes are made only for the comparisons
 * of a constant used twice and for inline constants (already in memory with the blob). */
static pte_status prepare_blob(pk_state *st, pte_backend_data_output *out, const pte_backend_data *item) {
  const uint8_t *blob = (const uint8_t *)item->processed;
  size_t size = item->processed_size;
  pte_error_info *err = st->err;
  {
    /* a sealed portable blob (an earlier prepare replaced named data): work on its payload */
    const uint8_t *pb;
    size_t pbs;
    pte_xnn_xpb x;
    bool has_xpb = false, foreign;
    if (pte_xnn_unwrap_blob(blob, size, st->k, false, &pb, &pbs, &x, &has_xpb, &foreign, NULL) == PTE_OK && !has_xpb) {
      blob = pb;
      size = pbs;
    }
  }
  pte_xnn_header h;
  memset(&h, 0, sizeof h);
  if (!pte_prepared_is_envelope(blob, size)) {
    if (size >= PTE_XNN_HEADER_MIN_SIZE && pte_xnn_parse_header(blob, size, &h, NULL) == PTE_OK && !h.present)
      return PTE_OK; /* bare flatbuffer (oldest exports): constants inside the graph, kept as is */
  }
  pte_xnn_delegate *d = NULL;
  pte_error_info cerr;
  memset(&cerr, 0, sizeof cerr);
  pte_status cs = compile(st, blob, size, true, 0, &d, &cerr);
  if (cs != PTE_OK && cs != PTE_ERR_NOT_FOUND)
    return pte_error_set(err, cs, "xnnpack: delegate %u of method '%s': %s", item->delegate_index, item->method_name,
                         cerr.msg);
  uint8_t *fbcopy = NULL;
  pte_fb_table root;
  bool is_xpb = false;
  pte_status s = graph_of(blob, size, st->k, &fbcopy, &root, &is_xpb, err);
  pte_fb_vec cd = s == PTE_OK ? pte_xn_XNNGraph_constant_data(root) : (pte_fb_vec){0};
  const uint32_t n_slots = cd.present ? cd.len : 0;
  slot_use *u = (slot_use *)calloc(n_slots ? n_slots : 1, sizeof(slot_use));
  if (s == PTE_OK && !u) s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
  /* the blob's record (a copy: packed again from it at the end), dropped if no key needs it */
  const size_t rec = st->n_recs;
  if (s == PTE_OK && d) {
    if (!grow((void **)&st->recs, &st->cap_recs, st->n_recs + 1, sizeof(pk_rec)) ||
        !(st->recs[rec].blob = (uint8_t *)pte_xnn_aligned_alloc(size ? size : 1))) {
      s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    } else {
      memcpy(st->recs[rec].blob, blob, size);
      st->recs[rec].size = size;
      st->n_recs++;
    }
  }
  if (s == PTE_OK && d) s = analyse(st, st->recs[rec].blob, size, d, u, n_slots);
  /* named keys */
  bool new_keys = false;
  for (uint32_t i = 1; s == PTE_OK && i < n_slots; i++) {
    pte_fb_table e = pte_fb_vec_table(cd, i);
    if (!pte_fb_table_present(e)) continue;
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
    if (!key.ptr || !key.len) continue;
    pk_key *k = find_key(st, key.ptr);
    if (!d) { /* the blob needs named data the program does not have (a .ptd): leave its keys */
      if (!k && !(k = add_key(st, key.ptr, key.len))) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        break;
      }
      k->portable = true;
      continue;
    }
    if (!u[i].any) continue;
    if (!k) {
      if (!(k = add_key(st, key.ptr, key.len))) {
        s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
        break;
      }
      if (u[i].prepared) k->prepared = true;
      else if (!packable(&u[i])) k->portable = true;
      else {
        k->hashed = u[i].hashed;
        k->h[0] = u[i].h[0], k->h[1] = u[i].h[1];
        k->size = u[i].size;
        k->rec = rec;
        k->node = (size_t)u[i].node;
        new_keys = true;
      }
    } else if (u[i].prepared) {
      k->prepared = true;
    } else if (!packable(&u[i]) || k->size != u[i].size) {
      k->portable = true; /* needed in two forms: stays portable */
    } else if (!k->portable && !k->prepared) {
      s = key_hash(st, k);
      if (s == PTE_OK && !u[i].hashed) s = node_hash(st, st->recs[rec].blob, size, (size_t)u[i].node, u[i].h, NULL);
      if (s != PTE_OK) break;
      u[i].hashed = true;
      if (k->h[0] != u[i].h[0] || k->h[1] != u[i].h[1]) k->portable = true;
    }
  }
  /* a portable blob all of whose constants are named: its flatbuffer is kept, to be stored at
   * the end as an XPB1 container listing the keys written packed (named_containers) */
  bool all_named = s == PTE_OK && d && !is_xpb && n_slots > 1;
  for (uint32_t i = 1; all_named && i < n_slots; i++) {
    pte_fb_table e = pte_fb_vec_table(cd, i);
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(e);
    if (pte_fb_table_present(e) && (!key.ptr || !key.len)) all_named = false;
  }
  if (all_named) {
    uint8_t *copy = (uint8_t *)pte_xnn_aligned_alloc(h.flatbuffer_size ? h.flatbuffer_size : 1);
    if (!copy || !grow((void **)&st->named, &st->cap_named, st->n_named + 1, sizeof(pk_named))) {
      pte_xnn_aligned_free(copy);
      s = pte_error_set(err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    } else {
      memcpy(copy, fbcopy, h.flatbuffer_size);
      st->named[st->n_named++] = (pk_named){item->index, copy, h.flatbuffer_size};
    }
  }
  /* inline constants of a portable XH00 blob */
  bool inline_packable = false;
  for (uint32_t i = 1; s == PTE_OK && d && !is_xpb && i < n_slots; i++) {
    pte_fb_str key = pte_xn_ConstantDataOffset_named_key(pte_fb_vec_table(cd, i));
    if ((!key.ptr || !key.len) && packable(&u[i])) inline_packable = true;
  }
  if (s == PTE_OK && inline_packable) {
    /* inline constants live in the blob (in memory already): compiled with everything packed */
    pte_xnn_delegate *full = NULL;
    memset(&cerr, 0, sizeof cerr);
    s = compile(st, blob, size, false, 0, &full, &cerr);
    if (s != PTE_OK) s = pte_error_set(err, s, "xnnpack: %s", cerr.msg);
    uint8_t *x = NULL;
    size_t xs = 0;
    const uint8_t *fb = blob + h.flatbuffer_offset;
    if (s == PTE_OK) s = build_xpb(blob, size, &h, fb, h.flatbuffer_size, root, full, u, n_slots, &x, &xs, err);
    if (s == PTE_OK) s = pte_replace_backend_data(out, item->index, x, xs);
    pte_xnn_aligned_free(x);
    pte_xnn_delegate_destroy(full);
  }
  if (!new_keys && st->n_recs == rec + 1) { /* nothing to write from this blob */
    pte_xnn_aligned_free(st->recs[rec].blob);
    st->n_recs = rec;
  }
  free(u);
  pte_xnn_aligned_free(fbcopy);
  pte_xnn_delegate_destroy(d);
  return s;
}

/* Writes the packed weights of every key that qualified, one at a time: the weight's node is
 * packed alone (lazy compile), written (the output copies it), and released. */
static pte_status write_keys(pk_state *st, pte_backend_data_output *out) {
  pte_status s = PTE_OK;
  size_t most = 0;
  for (size_t i = 0; i < st->n_keys; i++)
    if (!st->keys[i].portable && !st->keys[i].prepared && st->keys[i].size > most) most = st->keys[i].size;
  if (most && !(st->buf = (uint8_t *)pte_xnn_packed_alloc(most)))
    return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory (%zu bytes for packing)", most);
  st->buf_size = most;
  for (size_t i = 0; s == PTE_OK && i < st->n_keys; i++) {
    const pk_key *k = &st->keys[i];
    if (!k->size || k->portable || k->prepared) continue;
    const pk_rec *rec = &st->recs[k->rec];
    pte_xnn_delegate *d = NULL;
    pte_error_info cerr;
    memset(&cerr, 0, sizeof cerr);
    s = compile(st, rec->blob, rec->size, true, k->node + 1, &d, &cerr);
    if (s != PTE_OK) return pte_error_set(st->err, s, "xnnpack: %s", cerr.msg);
    const pte_xnn_node *n = k->node < d->n_nodes ? &d->nodes[k->node] : NULL;
    uint64_t h[2] = {0, 0};
    if (k->hashed && n && n->packed.bytes) hash128(n->packed.bytes, n->packed.size, h);
    if (!n || !n->packed.bytes || n->packed.size != k->size || (k->hashed && (h[0] != k->h[0] || h[1] != k->h[1]))) {
      pte_xnn_delegate_destroy(d);
      return pte_error_set(st->err, PTE_ERR_INTERNAL, "xnnpack: packed weights of '%s' changed between passes", k->key);
    }
    const char *key = k->key;
    pte_prepared_value v = {n->packed.bytes, n->packed.size};
    s = pte_write_named_data(out, &key, &v, 1);
    pte_xnn_delegate_destroy(d);
  }
  return s;
}

/* Replaces each all-named portable blob by an XPB1 container: its flatbuffer and a NAMED entry
 * (payload size) per constant whose value is now packed, so that init takes those values as
 * prepared without reading them (their envelopes and panel headers are checked at the first
 * execute). Blobs without such a constant stay as they are. */
static pte_status named_containers(pk_state *st, pte_backend_data_output *out) {
  pte_status s = PTE_OK;
  for (size_t b = 0; s == PTE_OK && b < st->n_named; b++) {
    const pk_named *nb = &st->named[b];
    pte_fb_vec cd = pte_xn_XNNGraph_constant_data(pte_fb_root(nb->fb, nb->fb_size));
    const uint32_t n_slots = cd.present ? cd.len : 0;
    uint8_t *p = (uint8_t *)pte_xnn_aligned_alloc(align64(PTE_XNN_XPB_HEADER_SIZE + (size_t)n_slots * PTE_XNN_XPB_ENTRY_SIZE) +
                                                  align64(nb->fb_size));
    if (!p) return pte_error_set(st->err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "xnnpack: out of memory");
    uint32_t n = 0;
    for (uint32_t i = 1; s == PTE_OK && i < n_slots; i++) {
      pte_fb_str key = pte_xn_ConstantDataOffset_named_key(pte_fb_vec_table(cd, i));
      const pk_key *k = key.ptr ? find_key(st, key.ptr) : NULL;
      if (!k || k->portable || (!k->prepared && !k->size)) continue;
      uint64_t payload = k->size;
      if (k->prepared) { /* packed by an earlier prepare: its envelope says how much */
        pte_freeable_buffer w;
        pte_prepared_info pi;
        bool foreign;
        memset(&w, 0, sizeof w);
        if (pte_named_data_map_get_data(st->ndm, key.ptr, &w) != PTE_OK) continue;
        bool ok = pte_xnn_envelope_check(w.data, w.size, st->k, false, &pi, &foreign, NULL) == PTE_OK &&
                  pi.payload_offset == PTE_PREPARED_HEADER_SIZE;
        payload = pi.payload_size;
        pte_freeable_buffer_free(&w);
        if (!ok) continue;
      }
      xpb_entry(p, n++, i, PTE_XNN_XPB_NAMED, 0, payload);
    }
    const size_t fbo = align64(PTE_XNN_XPB_HEADER_SIZE + (size_t)n * PTE_XNN_XPB_ENTRY_SIZE);
    const size_t total = align64(fbo + nb->fb_size);
    if (n) {
      memset(p, 0, PTE_XNN_XPB_HEADER_SIZE);
      xpb_header(p, n, fbo, nb->fb_size);
      const size_t te = PTE_XNN_XPB_HEADER_SIZE + (size_t)n * PTE_XNN_XPB_ENTRY_SIZE;
      memset(p + te, 0, fbo - te);
      memcpy(p + fbo, nb->fb, nb->fb_size);
      memset(p + fbo + nb->fb_size, 0, total - fbo - nb->fb_size);
      s = pte_replace_backend_data(out, nb->item, p, total);
    }
    pte_xnn_aligned_free(p);
  }
  return s;
}

pte_status pte_xnn_initialize_backend_data(pte_backend_data_context *ctx, pte_backend_data_output *out) {
  if (!ctx || !out) return PTE_ERR_INVALID_ARGUMENT;
  pte_xnnpack_options o;
  pte_xnnpack_get_default_options(&o);
  pk_state st;
  memset(&st, 0, sizeof st);
  st.k = pte_xnnpack_kernels_for_isa(o.isa);
  st.ndm = ctx->named_data_map;
  st.err = ctx->err;
  char fp[33];
  const size_t fpn = pte_xnn_fingerprint(st.k, fp);
  pte_status s = pte_backend_data_set_envelope(out, PTE_XNN_PREPARED_FORMAT, fp, fpn);
  pte_backend_data item;
  while (s == PTE_OK && (s = pte_next_backend_data(ctx, &item)) == PTE_OK) s = prepare_blob(&st, out, &item);
  if (s == PTE_PREPARE_END_OF_INPUT) s = write_keys(&st, out);
  if (s == PTE_OK) s = named_containers(&st, out);
  for (size_t i = 0; i < st.n_named; i++) pte_xnn_aligned_free(st.named[i].fb);
  free(st.named);
  for (size_t i = 0; i < st.n_keys; i++) free(st.keys[i].key);
  for (size_t i = 0; i < st.n_recs; i++) pte_xnn_aligned_free(st.recs[i].blob);
  pte_xnn_aligned_free(st.buf);
  free(st.keys);
  free(st.recs);
  return s;
}
