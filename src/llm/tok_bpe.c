/* src/llm/tok_bpe.c — the BPE core shared by the three tokenizer formats: the vocabulary hash,
 * the merge-pair hash and the merge loop (a binary heap of candidate pairs, lazily invalidated,
 * so one pre-token of n symbols costs O(n log n)). */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

static uint64_t tb_hash(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

void tok_vocab_free(tok_vocab *v) {
  free(v->pool);
  free(v->off);
  free(v->len);
  free(v->defined);
  free(v->score);
  free(v->slots);
  memset(v, 0, sizeof *v);
}

int tok_vocab_set(tok_vocab *v, int32_t id, const void *bytes, size_t len) {
  if (id < 0 || len > UINT32_MAX) return -1;
  if ((size_t)id >= v->cap) {
    size_t nc = v->cap ? v->cap : 256;
    while (nc <= (size_t)id) nc *= 2;
    uint32_t *o = realloc(v->off, nc * sizeof *o);
    if (!o) return -1;
    v->off = o;
    uint32_t *l = realloc(v->len, nc * sizeof *l);
    if (!l) return -1;
    v->len = l;
    uint8_t *d = realloc(v->defined, nc);
    if (!d) return -1;
    v->defined = d;
    float *s = realloc(v->score, nc * sizeof *s);
    if (!s) return -1;
    v->score = s;
    memset(v->defined + v->cap, 0, nc - v->cap);
    memset(v->len + v->cap, 0, (nc - v->cap) * sizeof *l);
    memset(v->off + v->cap, 0, (nc - v->cap) * sizeof *o);
    memset(v->score + v->cap, 0, (nc - v->cap) * sizeof *s);
    v->cap = nc;
  }
  if (v->pool_len + len > v->pool_cap || !v->pool) { /* allocated even for empty tokens: never NULL + 0 */
    size_t nc = v->pool_cap ? v->pool_cap : 4096;
    while (nc < v->pool_len + len) nc *= 2;
    if (nc > UINT32_MAX) return -1;
    uint8_t *p = realloc(v->pool, nc);
    if (!p) return -1;
    v->pool = p;
    v->pool_cap = nc;
  }
  if (len) memcpy(v->pool + v->pool_len, bytes, len);
  v->off[id] = (uint32_t)v->pool_len;
  v->len[id] = (uint32_t)len;
  v->defined[id] = 1;
  v->pool_len += len;
  if ((size_t)id >= v->n) v->n = (size_t)id + 1;
  return 0;
}

static int tb_rehash(tok_vocab *v, size_t nslots) {
  int32_t *s = malloc(nslots * sizeof *s);
  if (!s) return -1;
  for (size_t i = 0; i < nslots; i++) s[i] = -1;
  for (size_t i = 0; i < v->nslots; i++) {
    int32_t id = v->slots[i];
    if (id < 0) continue;
    size_t j = (size_t)tb_hash(v->pool + v->off[id], v->len[id]) & (nslots - 1);
    while (s[j] >= 0) j = (j + 1) & (nslots - 1);
    s[j] = id;
  }
  free(v->slots);
  v->slots = s;
  v->nslots = nslots;
  return 0;
}

int tok_vocab_index(tok_vocab *v, int32_t id, int32_t *existing) {
  if ((v->count + 1) * 2 > v->nslots && tb_rehash(v, v->nslots ? v->nslots * 2 : 1024) != 0) return -1;
  const uint8_t *b = v->pool + v->off[id];
  size_t n = v->len[id];
  size_t j = (size_t)tb_hash(b, n) & (v->nslots - 1);
  while (v->slots[j] >= 0) {
    int32_t o = v->slots[j];
    if (v->len[o] == n && memcmp(v->pool + v->off[o], b, n) == 0) {
      *existing = o;
      return 0;
    }
    j = (j + 1) & (v->nslots - 1);
  }
  v->slots[j] = id;
  v->count++;
  return 1;
}

int32_t tok_vocab_find(const tok_vocab *v, const void *bytes, size_t len) {
  if (!v->nslots) return -1;
  size_t j = (size_t)tb_hash(bytes, len) & (v->nslots - 1);
  while (v->slots[j] >= 0) {
    int32_t o = v->slots[j];
    if (v->len[o] == len && memcmp(v->pool + v->off[o], bytes, len) == 0) return o;
    j = (j + 1) & (v->nslots - 1);
  }
  return -1;
}

/* ---- merge pairs ---- */
static uint64_t tb_pair_key(int32_t a, int32_t b) { return (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) + 1; }
static size_t tb_pair_slot(uint64_t k, size_t nslots) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (size_t)k & (nslots - 1);
}

void tok_pairs_free(tok_pairs *p) {
  free(p->keys);
  free(p->rank);
  free(p->merged);
  memset(p, 0, sizeof *p);
}

static int tb_pairs_grow(tok_pairs *p) {
  size_t ns = p->nslots ? p->nslots * 2 : 1024;
  uint64_t *k = calloc(ns, sizeof *k);
  uint32_t *r = malloc(ns * sizeof *r);
  int32_t *m = malloc(ns * sizeof *m);
  if (!k || !r || !m) {
    free(k);
    free(r);
    free(m);
    return -1;
  }
  for (size_t i = 0; i < p->nslots; i++) {
    if (!p->keys[i]) continue;
    size_t j = tb_pair_slot(p->keys[i], ns);
    while (k[j]) j = (j + 1) & (ns - 1);
    k[j] = p->keys[i];
    r[j] = p->rank[i];
    m[j] = p->merged[i];
  }
  free(p->keys);
  free(p->rank);
  free(p->merged);
  p->keys = k;
  p->rank = r;
  p->merged = m;
  p->nslots = ns;
  return 0;
}

int tok_pairs_add(tok_pairs *p, int32_t a, int32_t b, uint32_t rank, int32_t merged) {
  if ((p->count + 1) * 2 > p->nslots && tb_pairs_grow(p) != 0) return -1;
  uint64_t key = tb_pair_key(a, b);
  size_t j = tb_pair_slot(key, p->nslots);
  while (p->keys[j]) {
    if (p->keys[j] == key) return 0;
    j = (j + 1) & (p->nslots - 1);
  }
  p->keys[j] = key;
  p->rank[j] = rank;
  p->merged[j] = merged;
  p->count++;
  return 1;
}

int tok_pairs_find(const tok_pairs *p, int32_t a, int32_t b, uint32_t *rank, int32_t *merged) {
  if (!p->nslots) return 0;
  uint64_t key = tb_pair_key(a, b);
  size_t j = tb_pair_slot(key, p->nslots);
  while (p->keys[j]) {
    if (p->keys[j] == key) {
      *rank = p->rank[j];
      *merged = p->merged[j];
      return 1;
    }
    j = (j + 1) & (p->nslots - 1);
  }
  return 0;
}

int tok_out_push(tok_out *o, int32_t id) {
  if (o->n == o->cap) {
    size_t nc = o->cap ? o->cap * 2 : 64;
    int32_t *p = realloc(o->ids, nc * sizeof *p);
    if (!p) return -1;
    o->ids = p;
    o->cap = nc;
  }
  o->ids[o->n++] = id;
  return 0;
}

/* ---- merge loop ---- */
typedef struct tb_sym {
  int32_t id;
  int32_t prev, next; /* -1 at the ends */
} tb_sym;
typedef struct tb_cand {
  double prio;
  int32_t left; /* symbol index = original position: leftmost first on equal priority */
  int32_t left_id, right_id, merged;
} tb_cand;

static int tb_less(const tb_cand *a, const tb_cand *b) {
  if (a->prio != b->prio) return a->prio < b->prio;
  return a->left < b->left;
}

static void tb_push(tb_cand *h, size_t *n, tb_cand c) {
  size_t i = (*n)++;
  h[i] = c;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!tb_less(&h[i], &h[p])) break;
    tb_cand t = h[i];
    h[i] = h[p];
    h[p] = t;
    i = p;
  }
}

static tb_cand tb_pop(tb_cand *h, size_t *n) {
  tb_cand top = h[0];
  h[0] = h[--(*n)];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < *n && tb_less(&h[l], &h[m])) m = l;
    if (r < *n && tb_less(&h[r], &h[m])) m = r;
    if (m == i) break;
    tb_cand t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top;
}

static void tb_consider(tb_sym *s, int32_t left, tok_pair_fn fn, const void *ctx, tb_cand *heap, size_t *nh) {
  int32_t right = s[left].next;
  if (right < 0) return;
  tb_cand c;
  if (!fn(ctx, s[left].id, s[right].id, &c.prio, &c.merged)) return;
  c.left = left;
  c.left_id = s[left].id;
  c.right_id = s[right].id;
  tb_push(heap, nh, c);
}

int tok_bpe_merge(const int32_t *ids, size_t n, tok_pair_fn fn, const void *ctx, tok_out *out) {
  if (n == 0) return 0;
  if (n == 1) return tok_out_push(out, ids[0]);
  if (n > INT32_MAX / 2) return -1;
  /* Each merge pushes at most two candidates: the heap never holds more than 3n. */
  tb_sym *s = malloc(n * sizeof *s);
  tb_cand *heap = malloc(3 * n * sizeof *heap);
  if (!s || !heap) {
    free(s);
    free(heap);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    s[i].id = ids[i];
    s[i].prev = (int32_t)i - 1;
    s[i].next = i + 1 < n ? (int32_t)i + 1 : -1;
  }
  size_t nh = 0;
  for (size_t i = 0; i + 1 < n; i++) tb_consider(s, (int32_t)i, fn, ctx, heap, &nh);
  while (nh) {
    tb_cand c = tb_pop(heap, &nh);
    int32_t l = c.left;
    if (s[l].id != c.left_id) continue; /* stale: the left symbol changed or died (id -1) */
    int32_t r = s[l].next;
    if (r < 0 || s[r].id != c.right_id) continue;
    s[l].id = c.merged;
    s[l].next = s[r].next;
    if (s[r].next >= 0) s[s[r].next].prev = l;
    s[r].id = -1;
    if (s[l].prev >= 0) tb_consider(s, s[l].prev, fn, ctx, heap, &nh);
    tb_consider(s, l, fn, ctx, heap, &nh);
  }
  int rc = 0;
  for (int32_t i = 0; i >= 0 && rc == 0; i = s[i].next) rc = tok_out_push(out, s[i].id);
  free(s);
  free(heap);
  return rc;
}
