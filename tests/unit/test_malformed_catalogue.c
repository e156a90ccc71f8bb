#define _POSIX_C_SOURCE 200809L
/* The malformed-input catalogue runner (docs/robustness.md describes the catalogue).
 *
 * Reads every tests/malformed/<name>.cases file. Each case names a base input (a corpus file, a
 * segment of a corpus file, or a program generated here), applies byte-level mutations (raw
 * offsets or schema paths such as execution_plan[0].values[1].val.sizes[0], resolved through the
 * generated field descriptors), runs one entry point (program load, method load, execute, .ptd
 * load, .bpte load...) and asserts the exact status and a message substring. Inputs are copied
 * into heap memory of their exact size, so under ASan (make test-asan) any out-of-bounds read,
 * leak or UB in the entry point fails the case.
 *
 *   test_malformed_catalogue                 run every case
 *   test_malformed_catalogue --list          one line per case (id, entry point, expectation)
 *   test_malformed_catalogue --markdown      the catalogue table of docs/robustness.md
 *   test_malformed_catalogue --write ID OUT  write case ID's mutated input to OUT (for debugging)
 *   test_malformed_catalogue --write-all DIR every case's input as DIR/<id>.<ext> (fuzzing seeds)
 *   test_malformed_catalogue SUBSTRING       run only the cases whose id contains SUBSTRING
 */
#include <dirent.h>
#include <errno.h>

#include "format/flatbuf.h"
#include "format/fb_json.h"
#include "fuzz/fuzz_util.h"
#include "pte/backend_xnnpack.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/method.h"
#include "pte/portable_kernels.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte/data_writer.h"
#include "pte/writer.h"
#include "pte_gen/bundled_program_gen.h"
#include "pte_gen/flat_tensor_gen.h"
#include "pte_gen/program_gen.h"
#include "pte_gen/xnnpack_gen.h"
#include "test.h"

#include "fb_path.h"
#include "malformed_catalogue.h"

/* ================================================================== building a case's input */

static const fbp_schema *schema_of(const mcase *c) {
  if (c->act == A_PTD) return &fbp_schema_ptd;
  if (c->act == A_XNN) return &fbp_schema_xnn;
  if (c->act == A_BPTE || c->act == A_BPTE_PROGRAM || c->act == A_BPTE_METHOD) return &fbp_schema_bpte;
  return &fbp_schema_pte;
}

/* Base bytes of the case (heap, caller frees); NULL with a message on failure. */
static uint8_t *base_input(const mcase *c, size_t *n, char *why, size_t why_cap) {
  if (strncmp(c->file, "gen:", 4) == 0) {
    if (strcmp(c->file + 4, "control") == 0) return mc_gen_control(n, 0);
    if (strcmp(c->file + 4, "unplanned-output") == 0) return mc_gen_control(n, 1);
    if (strncmp(c->file + 4, "op-", 3) == 0) {
      uint8_t *d = mc_gen_op(c->file + 4, n);
      if (!d) snprintf(why, why_cap, "generator %s failed", c->file);
      return d;
    }
    snprintf(why, why_cap, "unknown generator %s", c->file);
    return NULL;
  }
  const char *path = test_corpus_path(c->file);
  size_t sz = 0;
  uint8_t *d = path ? test_read_file(path, &sz) : NULL;
  if (!d) {
    snprintf(why, why_cap, "cannot read corpus file %s", c->file);
    return NULL;
  }
  if (c->segment < 0) {
    *n = sz;
    return d;
  }
  /* The input is one segment of a program (e.g. a delegate blob). */
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, sz);
  pte_program p;
  uint8_t *out = NULL;
  if (pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, NULL) == PTE_OK) {
    uint64_t off, size;
    if (pte_program_segment(&p, (size_t)c->segment, &off, &size) == PTE_OK) {
      uint64_t abs = pte_program_get_header(&p)->segment_base_offset + off;
      out = (uint8_t *)malloc(size ? (size_t)size : 1);
      if (out) memcpy(out, d + abs, (size_t)size);
      *n = (size_t)size;
    }
    pte_program_destroy(&p);
  }
  free(d);
  if (!out) snprintf(why, why_cap, "%s has no segment %d", c->file, c->segment);
  return out;
}

/* Applies the patches; returns NULL or an error message. May change *n (truncate). */
/* Where the flatbuffer that schema paths address starts: 0, or an XNNPACK blob's flatbuffer
 * offset (XH00 header). */
static size_t flatbuffer_base(const mcase *c, const uint8_t *d, size_t n) {
  if (c->act != A_XNN || n < 18 || memcmp(d + 4, "XH00", 4) != 0) return 0;
  size_t off = pte_fb_ld_u32(d + 10);
  return off < n ? off : 0;
}

static const char *apply_patches(const mcase *c, uint8_t **dp, size_t *n) {
  static char msg[300];
  uint8_t *d = *dp;
  const fbp_schema *sc = schema_of(c);
  for (int i = 0; i < c->n_patches; i++) {
    const patch *p = &c->patches[i];
    fbp_resolved r;
    memset(&r, 0, sizeof r);
    const char *e;
    switch (p->op) {
      case P_TRUNCATE:
        if ((uint64_t)p->value > *n) return "truncate past the end";
        *n = (size_t)p->value;
        break;
      case P_APPEND: {
        uint8_t *g = (uint8_t *)realloc(d, *n + (size_t)p->value);
        if (!g) return "out of memory";
        memset(g + *n, 0, (size_t)p->value);
        *dp = d = g;
        *n += (size_t)p->value;
        break;
      }
      case P_RAW:
        if (p->offset + (uint64_t)p->width > *n) return "raw write past the end";
        mc_st_le(d + p->offset, (uint64_t)p->value, p->width);
        break;
      case P_BYTES:
        if (p->offset + strlen(p->text) > *n) return "bytes past the end";
        memcpy(d + p->offset, p->text, strlen(p->text));
        break;
      case P_HDR: {
        uint64_t off = 0;
        int w = 0;
        if (mc_header_field(p->path, &off, &w) != 0) return "unknown header field";
        if (off + (uint64_t)w > *n) return "header field past the end";
        mc_st_le(d + off, (uint64_t)p->value, w);
        break;
      }
      case P_FIELD:
        if ((e = fbp_resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind == PTE_FBGEN_VECTOR || r.kind == PTE_FBGEN_STRING) return "set needs a scalar path";
        mc_st_le(d + flatbuffer_base(c, d, *n) + r.pos, (uint64_t)p->value, (int)pte_fbgen_kind_size((pte_fbgen_kind)r.kind));
        break;
      case P_VLEN:
        if ((e = fbp_resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind != PTE_FBGEN_VECTOR) return "vlen needs a vector path";
        mc_st_le(d + flatbuffer_base(c, d, *n) + r.vec.data - 4, (uint64_t)p->value, 4);
        break;
      case P_STR: {
        if ((e = fbp_resolve(sc, d + flatbuffer_base(c, d, *n), *n - flatbuffer_base(c, d, *n), p->path, &r)) != NULL) {
          snprintf(msg, sizeof msg, "path %s: %s", p->path, e);
          return msg;
        }
        if (r.kind != PTE_FBGEN_STRING) return "str needs a string path";
        size_t l = strlen(p->text);
        if (l > r.str.len) return "str: the new text must not be longer";
        uint8_t *sp = (uint8_t *)(uintptr_t)r.str.ptr;
        mc_st_le(sp - 4, l, 4);
        memcpy(sp, p->text, l);
        sp[l] = 0;
        break;
      }
    }
  }
  return NULL;
}

/* ================================================================== running a case */

static uint8_t *g_pool, *g_temp;

/* Result of running an entry point: status + message. */
typedef struct outcome {
  pte_status s;
  char msg[PTE_ERROR_MSG_MAX];
  char setup[200]; /* non-empty: the case could not reach its entry point */
} outcome;

static void touch_program(const pte_program *p) {
  size_t nm = pte_program_num_methods(p);
  for (size_t i = 0; i <= nm; i++) (void)pte_program_method_name(p, i);
  const void *cd;
  for (size_t i = 0; i < 4; i++) (void)pte_program_constant_data(p, i, 4, &cd);
  for (size_t i = 0; i < pte_program_num_segments(p) && i < 64; i++) {
    pte_freeable_buffer b;
    if (pte_program_load_segment(p, i, NULL, &b) == PTE_OK) pte_freeable_buffer_free(&b);
  }
}

static void run_method_action(const mcase *c, const pte_program *prog, const pte_named_data_map *ext, outcome *o) {
  pte_method_meta meta;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_method_meta_get(prog, c->method, &meta, &err);
  if (s != PTE_OK) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    return;
  }
  size_t np = pte_method_meta_num_planned_buffers(&meta);
  pte_planned_buffer pb[8];
  memset(pb, 0, sizeof pb);
  size_t provided = c->planned == 1 ? 0 : np;
  if (provided > 8) {
    snprintf(o->setup, sizeof o->setup, "%zu planned buffers", np);
    return;
  }
  for (size_t i = 0; i < provided; i++) {
    uint64_t sz = 0;
    if (pte_method_meta_planned_buffer_size(&meta, i, &sz) != PTE_OK || sz > (64u << 20)) {
      snprintf(o->setup, sizeof o->setup, "planned buffer %zu unusable", i);
      goto out;
    }
    if (c->planned == 2) sz = sz > c->shrink ? sz - c->shrink : 0;
    pb[i].size = (size_t)sz;
    pb[i].data = sz ? calloc(1, (size_t)sz) : NULL;
  }
  pte_allocator ma, ta;
  pte_allocator_init(&ma, g_pool, c->pool);
  pte_allocator_init(&ta, g_temp, 1u << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, pb, provided, &ta);
  pte_method_options mo;
  memset(&mo, 0, sizeof mo);
  mo.external_data = ext;
  mo.max_instructions = c->max_instructions;
  pte_method *m = NULL;
  s = pte_method_load_ex(prog, c->method, &mm, &mo, &m, &err);
  if (s != PTE_OK && (ma.used != 0 || m != NULL)) { /* documented: a failed load rewinds the allocator */
    snprintf(o->setup, sizeof o->setup, "failed load left %zu bytes allocated (or set *out)", ma.used);
    goto out;
  }
  if (c->act == A_METHOD) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) pte_method_destroy(m);
    goto out;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "method load failed: %s (%.150s)", pte_status_name(s), err.msg);
    goto out;
  }
  {
    size_t nin = pte_method_num_inputs(m), nout = pte_method_num_outputs(m);
    void **inb = (void **)calloc(nin + 1, sizeof(void *));
    void **outb = (void **)calloc(nout + 1, sizeof(void *));
    s = c->bind_outputs ? fz_bind_outputs(m, &meta, 64u << 20, outb, &err) : PTE_OK;
    if (s != PTE_OK) snprintf(o->setup, sizeof o->setup, "binding outputs failed: %.150s", err.msg);
    for (int k = 0; k < c->runs && s == PTE_OK; k++) {
      memset(&err, 0, sizeof err);
      s = fz_set_inputs(m, &meta, 64u << 20, inb, (unsigned)k, &err);
      if (s != PTE_OK) { /* refusing an input is a valid outcome (e.g. after a FreeCall) */
        o->s = s;
        snprintf(o->msg, sizeof o->msg, "set_input: %.200s", err.msg);
        break;
      }
      memset(&err, 0, sizeof err);
      s = pte_method_execute(m, &err);
      o->s = s;
      memcpy(o->msg, err.msg, sizeof o->msg);
      if (s == PTE_OK) fz_touch_outputs(m);
    }
    pte_method_destroy(m);
    fz_free_all(inb, nin);
    fz_free_all(outb, nout);
  }
out:
  for (size_t i = 0; i < provided; i++) free(pb[i].data);
}

static void run_program_level(const mcase *c, const uint8_t *d, size_t n, int level, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_program_load(&bl.base, (pte_verification)level, &p, &err);
  if (c->act == A_PROGRAM) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) {
      touch_program(&p);
      pte_program_destroy(&p);
    }
    return;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "program load failed: %s (%.150s)", pte_status_name(s), err.msg);
    return;
  }
  if (c->act == A_NAMED_DATA) {
    const pte_named_data_map *m = pte_program_named_data_map(&p);
    uint32_t nk = 0;
    o->s = PTE_OK;
    if (!m || pte_named_data_map_num_keys(m, &nk) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "program has no named data");
    }
    for (uint32_t k = 0; k < nk && o->s == PTE_OK; k++) {
      const char *key;
      pte_freeable_buffer b;
      if ((o->s = pte_named_data_map_get_key(m, k, &key)) != PTE_OK) break;
      if ((o->s = pte_named_data_map_get_data(m, key, &b)) == PTE_OK) pte_freeable_buffer_free(&b);
      else snprintf(o->msg, sizeof o->msg, "named data key %u ('%s'): get_data failed", k, key);
    }
    pte_program_destroy(&p);
    return;
  }
  /* method / execute, with an optional (unpatched) .ptd companion */
  pte_ptd ptd;
  uint8_t *pd = NULL;
  const pte_named_data_map *ext = NULL;
  pte_buffer_loader pl;
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    pd = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader_init(&pl, pd, pn);
    if (!pd || pte_ptd_load(&pl.base, &ptd, NULL) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
      free(pd);
      pte_program_destroy(&p);
      return;
    }
    ext = pte_ptd_map(&ptd);
  }
  run_method_action(c, &p, ext, o);
  if (ext) pte_ptd_destroy(&ptd);
  free(pd);
  pte_program_destroy(&p);
}

static void run_ptd(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_ptd ptd;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  o->s = pte_ptd_load(&bl.base, &ptd, &err);
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (o->s != PTE_OK) return;
  /* A .ptd that loads must also serve a program that uses it (companion .pte, unpatched). */
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    uint8_t *pp = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader pl;
    pte_buffer_loader_init(&pl, pp, pn);
    pte_program prog;
    if (pp && pte_program_load(&pl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL) == PTE_OK) {
      mcase mc = *c;
      mc.act = A_METHOD; /* first the load (its failure is the outcome)... */
      snprintf(mc.method, sizeof mc.method, "%s", "forward");
      outcome o2;
      memset(&o2, 0, sizeof o2);
      run_method_action(&mc, &prog, pte_ptd_map(&ptd), &o2);
      if (!o2.setup[0] && o2.s == PTE_OK) { /* ...then a run */
        mc.act = A_EXECUTE;
        memset(&o2, 0, sizeof o2);
        run_method_action(&mc, &prog, pte_ptd_map(&ptd), &o2);
      }
      if (o2.setup[0]) {
        o->s = PTE_ERR_INTERNAL; /* report the first failure of the companion run */
        snprintf(o->msg, sizeof o->msg, "companion: %.200s", o2.setup);
      } else if (o2.s != PTE_OK) {
        o->s = o2.s;
        memcpy(o->msg, o2.msg, sizeof o->msg);
      }
      pte_program_destroy(&prog);
    } else {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
    }
    free(pp);
  }
  pte_ptd_destroy(&ptd);
}

static void run_bpte(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_bundled_program bp;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_status s = pte_bundled_program_load(&bl.base, &bp, &err);
  if (c->act == A_BPTE) {
    o->s = s;
    memcpy(o->msg, err.msg, sizeof o->msg);
    if (s == PTE_OK) pte_bundled_program_destroy(&bp);
    return;
  }
  if (s != PTE_OK) {
    snprintf(o->setup, sizeof o->setup, "bundled load failed: %s (%.150s)", pte_status_name(s), err.msg);
    return;
  }
  pte_program p;
  memset(&err, 0, sizeof err);
  pte_status ps = pte_program_load(pte_bundled_program_loader(&bp), (pte_verification)(c->level < 0 ? 1 : c->level), &p, &err);
  o->s = ps;
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (ps == PTE_OK) {
    if (c->act == A_BPTE_METHOD) {
      mcase mc = *c;
      mc.act = A_METHOD;
      run_method_action(&mc, &p, NULL, o);
    }
    pte_program_destroy(&p);
  } else if (c->act == A_BPTE_METHOD) {
    snprintf(o->setup, sizeof o->setup, "embedded program load failed: %s (%.150s)", pte_status_name(ps), err.msg);
  }
  pte_bundled_program_destroy(&bp);
}

static void run_xnn(const mcase *c, const uint8_t *d, size_t n, outcome *o) {
  pte_program prog;
  uint8_t *pp = NULL;
  const pte_named_data_map *ndm = NULL;
  pte_buffer_loader pl;
  if (c->companion[0]) {
    size_t pn = 0;
    uint8_t *raw = test_read_corpus(c->companion, &pn);
    pp = raw ? fz_aligned_copy(raw, pn) : NULL;
    free(raw);
    pte_buffer_loader_init(&pl, pp, pn);
    if (!pp || pte_program_load(&pl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &prog, NULL) != PTE_OK) {
      snprintf(o->setup, sizeof o->setup, "companion %s does not load", c->companion);
      free(pp);
      return;
    }
    ndm = pte_program_named_data_map(&prog);
  }
  pte_xnn_header h;
  pte_error_info err;
  memset(&err, 0, sizeof err);
  o->s = pte_xnn_parse_header(d, n, &h, &err);
  if (o->s == PTE_OK) {
    pte_xnnpack_options xo = {1, PTE_XNN_ISA_SCALAR};
    pte_xnn_delegate *del = NULL;
    o->s = pte_xnn_delegate_init(d, n, ndm, &xo, &del, &err);
    if (o->s == PTE_OK) pte_xnn_delegate_destroy(del);
  }
  memcpy(o->msg, err.msg, sizeof o->msg);
  if (pp) {
    pte_program_destroy(&prog);
    free(pp);
  }
}

/* Builds the case's input. Returns exact-size heap bytes (free) or NULL with *why. */
static uint8_t *case_input(const mcase *c, size_t *n, char *why, size_t why_cap) {
  uint8_t *d = base_input(c, n, why, why_cap);
  if (!d) return NULL;
  const char *e = apply_patches(c, &d, n);
  if (e) {
    snprintf(why, why_cap, "%s", e);
    free(d);
    return NULL;
  }
  uint8_t *exact = fz_aligned_copy(d, *n);
  free(d);
  return exact;
}

static const mcase *g_case;

static void check_outcome(const mcase *c, const outcome *o, const char *what) {
  if (getenv("PTE_CATALOGUE_VERBOSE"))
    printf("  %s [%s]: %s: %s%s\n", c->id, what, mc_status_word(o->s), o->msg, o->setup[0] ? " (SETUP FAILED)" : "");
  CHECK_MSG(!o->setup[0], "%s [%s]: %s", c->id, what, o->setup);
  CHECK_MSG(o->s == c->expect, "%s [%s]: got %s (%s), expected %s", c->id, what, pte_status_name(o->s), o->msg,
            pte_status_name(c->expect));
  if (c->expect != PTE_OK) CHECK_MSG(strstr(o->msg, c->expect_msg) != NULL, "%s [%s]: message \"%s\" lacks \"%s\"", c->id,
                                     what, o->msg, c->expect_msg);
}

static void run_case(void) {
  const mcase *c = g_case;
  size_t n = 0;
  char why[300] = "";
  uint8_t *d = case_input(c, &n, why, sizeof why);
  CHECK_MSG(d, "%s (%s): cannot build the input: %s", c->id, c->source, why);
  outcome o;
  switch (c->act) {
    case A_PROGRAM:
      for (int lv = 0; lv < 2; lv++) {
        if (c->level >= 0 && c->level != lv) continue;
        memset(&o, 0, sizeof o);
        run_program_level(c, d, n, lv, &o);
        check_outcome(c, &o, lv ? "internal" : "minimal");
        if (test_current_failed) break;
      }
      break;
    case A_METHOD:
    case A_EXECUTE:
    case A_NAMED_DATA:
      memset(&o, 0, sizeof o);
      run_program_level(c, d, n, c->level, &o);
      check_outcome(c, &o, c->level ? "internal" : "minimal");
      break;
    case A_PTD:
      memset(&o, 0, sizeof o);
      run_ptd(c, d, n, &o);
      check_outcome(c, &o, "ptd");
      break;
    case A_BPTE:
    case A_BPTE_PROGRAM:
    case A_BPTE_METHOD:
      memset(&o, 0, sizeof o);
      run_bpte(c, d, n, &o);
      check_outcome(c, &o, "bpte");
      break;
    case A_XNN:
      memset(&o, 0, sizeof o);
      run_xnn(c, d, n, &o);
      check_outcome(c, &o, "xnn");
      break;
  }
  free(d);
}

/* ================================================================== meta checks */

/* Every case id appears in docs/robustness.md (the catalogue is documented). */
static void docs_list_every_case(void) {
  char path[1200];
  snprintf(path, sizeof path, "%s/../../docs/robustness.md", mc_catalogue_dir());
  size_t n = 0;
  uint8_t *doc = test_read_file(path, &n);
  CHECK_MSG(doc, "cannot read %s", path);
  int missing = 0;
  for (int i = 0; i < mc_n_cases; i++) {
    char needle[80];
    snprintf(needle, sizeof needle, "`%s`", mc_cases[i].id);
    if (!strstr((const char *)doc, needle)) {
      fprintf(stderr, "  docs/robustness.md does not list %s\n", mc_cases[i].id);
      missing++;
    }
  }
  free(doc);
  CHECK_MSG(missing == 0, "%d catalogue cases are missing from docs/robustness.md (run --markdown)", missing);
}

/* The catalogue covers every format and entry point, with at least 40 cases. */
static void catalogue_coverage(void) {
  int per_action[16] = {0};
  for (int i = 0; i < mc_n_cases; i++) per_action[mc_cases[i].act]++;
  CHECK_MSG(mc_n_cases >= 40, "only %d cases", mc_n_cases);
  for (int a = A_PROGRAM; a <= A_XNN; a++)
    CHECK_MSG(per_action[a] > 0, "no case for entry point %s", mc_action_name((action)a));
}

/* The generated program is itself valid and computes y = x + [1, 2]. */
static void generated_control_program_runs(void) {
  size_t n = 0;
  uint8_t *raw = mc_gen_control(&n, 0);
  CHECK(raw);
  uint8_t *d = fz_aligned_copy(raw, n);
  free(raw);
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  pte_error_info err;
  CHECK_OK(pte_program_load(&bl.base, PTE_VERIFY_INTERNAL_CONSISTENCY, &p, &err));
  float planned[8] = {0};
  pte_planned_buffer pb = {planned, sizeof planned};
  pte_allocator ma;
  pte_allocator_init(&ma, g_pool, 1u << 20);
  pte_memory_manager mm;
  pte_memory_manager_init(&mm, &ma, &pb, 1, NULL);
  pte_method *m = NULL;
  CHECK_OK(pte_method_load(&p, "forward", &mm, NULL, NULL, &m, &err));
  float x[2] = {10.0f, 20.0f};
  int32_t sizes[1] = {2};
  CHECK_OK(pte_method_set_input_tensor(m, 0, PTE_DTYPE_FLOAT, sizes, 1, x, sizeof x, &err));
  for (int k = 0; k < 3; k++) CHECK_OK(pte_method_execute(m, &err)); /* FreeCall is jumped over */
  const pte_evalue *y = pte_method_get_output(m, 0);
  CHECK(y && y->tag == PTE_TAG_TENSOR);
  CHECK_NEAR(((const float *)y->u.tensor->data)[0], 11.0, 0);
  CHECK_NEAR(((const float *)y->u.tensor->data)[1], 22.0, 0);
  CHECK_EQ_INT(pte_method_get_value(m, 4)->u.i, 1); /* MoveCall v3 -> v4 ran */
  pte_method_destroy(m);
  pte_program_destroy(&p);
  free(d);
}

/* ================================================================== main */

static void print_markdown(void) {
  char file[96] = "";
  for (int i = 0; i < mc_n_cases; i++) {
    const mcase *c = &mc_cases[i];
    size_t fl = strcspn(c->source, ":");
    if (strncmp(file, c->source, fl) != 0 || file[fl] != '\0') {
      snprintf(file, sizeof file, "%.*s", (int)fl, c->source);
      printf("%s#### tests/malformed/%s\n\n", i ? "\n" : "", file);
      printf("| id | input | entry point | expected status | message contains | what it checks |\n");
      printf("|---|---|---|---|---|---|\n");
    }
    char input[160];
    if (c->segment >= 0) snprintf(input, sizeof input, "%s seg %d", c->file, c->segment);
    else snprintf(input, sizeof input, "%s", c->file);
    const char *lv = "";
    if (c->act == A_PROGRAM && c->level == 0) lv = " (minimal)";
    else if (c->act == A_PROGRAM && c->level == 1) lv = " (internal)";
    else if ((c->act == A_METHOD || c->act == A_EXECUTE || c->act == A_BPTE_METHOD) && c->level == 0) lv = " (minimal)";
    printf("| `%s` | %s | %s%s | %s | %s | %s |\n", c->id, input, mc_action_name(c->act), lv, mc_status_word(c->expect),
           c->expect_msg[0] ? c->expect_msg : "-", c->desc);
  }
}

int main(int argc, char **argv) {
  if (mc_load_catalogue() != 0) {
    fprintf(stderr, "catalogue has errors\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < mc_n_cases; i++)
      printf("%-40s %-12s %-26s %s\n", mc_cases[i].id, mc_action_name(mc_cases[i].act), mc_status_word(mc_cases[i].expect),
             mc_cases[i].expect_msg);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--markdown") == 0) {
    print_markdown();
    return 0;
  }
  if (argc > 3 && strcmp(argv[1], "--write") == 0) {
    for (int i = 0; i < mc_n_cases; i++) {
      if (strcmp(mc_cases[i].id, argv[2]) != 0) continue;
      size_t n;
      char why[300];
      uint8_t *d = case_input(&mc_cases[i], &n, why, sizeof why);
      if (!d) {
        fprintf(stderr, "%s\n", why);
        return 1;
      }
      int rc = test_write_file(argv[3], d, n);
      free(d);
      return rc ? 1 : 0;
    }
    fprintf(stderr, "no case %s\n", argv[2]);
    return 1;
  }
  if (argc > 2 && strcmp(argv[1], "--write-all") == 0) {
    /* Every case's input, named <id>.<pte|ptd|bpte> (fuzzing seeds: tests/fuzz/run.sh). */
    int written = 0;
    for (int i = 0; i < mc_n_cases; i++) {
      size_t n;
      char why[300], path[1200];
      uint8_t *d = case_input(&mc_cases[i], &n, why, sizeof why);
      if (!d) continue;
      const char *ext = mc_cases[i].act == A_PTD ? "ptd" : mc_cases[i].act == A_XNN ? "xnn" : schema_of(&mc_cases[i]) == &fbp_schema_bpte ? "bpte" : "pte";
      snprintf(path, sizeof path, "%s/%s.%s", argv[2], mc_cases[i].id, ext);
      if (test_write_file(path, d, n) == 0) written++;
      free(d);
    }
    printf("%d inputs written to %s\n", written, argv[2]);
    return written ? 0 : 1;
  }
  (void)pte_register_portable_kernels();
  (void)pte_register_xnnpack_backend(); /* the real backend for XnnpackBackend delegates */
  fz_register_stub_backends();          /* stubs for the other ids (FuzzBackend, OpenvinoBackend) */
  g_pool = (uint8_t *)malloc(8u << 20);
  g_temp = (uint8_t *)malloc(1u << 20);
  const char *only = argc > 1 ? argv[1] : NULL;
  RUN(catalogue_coverage);
  RUN(docs_list_every_case);
  RUN(generated_control_program_runs);
  for (int i = 0; i < mc_n_cases; i++) {
    if (only && !strstr(mc_cases[i].id, only)) continue;
    g_case = &mc_cases[i];
    test_run(mc_cases[i].id, run_case);
  }
  free(g_pool);
  free(g_temp);
  return test_summary();
}
