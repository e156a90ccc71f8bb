/* tests/unit/test_malformed_util.h — helpers of the bad-input tests (test_malformed_program.c,
 * test_malformed_corpus.c): little-endian stores, loading with a verification level and the
 * EXPECT_* status + message checks, reader-based locators on a mutable corpus copy. static inline
 * so a test that does not use one does not warn. */
#ifndef PTE_TEST_MALFORMED_UTIL_H
#define PTE_TEST_MALFORMED_UTIL_H

#include "format/flatbuf.h"
#include "pte/bundled.h"
#include "pte/headers.h"
#include "pte/io.h"
#include "pte/program.h"
#include "pte/ptd.h"
#include "pte_gen/program_gen.h"
#include "test.h"

static inline void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void st32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void st64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Loads bytes as a program; returns the status and leaves the message in *err. */
static inline pte_status try_load(const uint8_t *d, size_t n, pte_verification lv, pte_error_info *err) {
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, d, n);
  pte_program p;
  memset(err, 0, sizeof *err);
  pte_status s = pte_program_load(&bl.base, lv, &p, err);
  if (s == PTE_OK) {
    /* Exercise the accessors on whatever loaded (must stay in bounds). */
    size_t nm = pte_program_num_methods(&p);
    for (size_t i = 0; i <= nm; i++) (void)pte_program_method_name(&p, i);
    const void *c;
    for (size_t i = 0; i < 4; i++) (void)pte_program_constant_data(&p, i, 4, &c);
    for (size_t i = 0; i < pte_program_num_segments(&p) && i < 64; i++) {
      pte_freeable_buffer b;
      if (pte_program_load_segment(&p, i, NULL, &b) == PTE_OK) pte_freeable_buffer_free(&b);
    }
    uint8_t tmp[16];
    (void)pte_program_load_mutable_into(&p, 0, 1, 4, tmp);
    const pte_named_data_map *m = pte_program_named_data_map(&p);
    uint32_t nk = 0;
    if (m && pte_named_data_map_num_keys(m, &nk) == PTE_OK) {
      for (uint32_t k = 0; k < nk && k < 64; k++) {
        const char *key;
        pte_freeable_buffer b;
        if (pte_named_data_map_get_key(m, k, &key) == PTE_OK && pte_named_data_map_get_data(m, key, &b) == PTE_OK)
          pte_freeable_buffer_free(&b);
      }
    }
    pte_program_destroy(&p);
  }
  return s;
}

/* Asserts status + message substring at one level. */
#define EXPECT_AT(d, n, lv, status, needle)                                                       \
  do {                                                                                            \
    pte_error_info e_;                                                                            \
    pte_status s_ = try_load((d), (n), (lv), &e_);                                                \
    CHECK_MSG(s_ == (status), "level %d: got %s (%s), expected %s", (int)(lv), pte_status_name(s_), \
              e_.msg, pte_status_name(status));                                                   \
    if ((status) != PTE_OK) CHECK_CONTAINS(e_.msg, (needle));                                     \
  } while (0)
/* Fails only with full verification; loads with PTE_VERIFY_MINIMAL (accessors stay safe). */
#define EXPECT_INTERNAL(d, n, status, needle)                                                     \
  do {                                                                                            \
    EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, status, needle);                             \
    EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, PTE_OK, "");                                              \
  } while (0)
/* Fails the same way at both levels. */
#define EXPECT_BOTH(d, n, status, needle)                                                         \
  do {                                                                                            \
    EXPECT_AT(d, n, PTE_VERIFY_INTERNAL_CONSISTENCY, status, needle);                             \
    EXPECT_AT(d, n, PTE_VERIFY_MINIMAL, status, needle);                                          \
  } while (0)

static inline uint8_t *corpus_copy(const char *name, size_t *n) { return test_read_corpus(name, n); }

/* Reader-based locators on a (mutable) corpus copy. */
static inline pte_fb_table plan_of(const uint8_t *d, size_t n, uint32_t i) {
  return pte_fb_vec_table(pte_fb_get_vec(pte_fb_root(d, n), 1), i);
}
static inline pte_fb_table evalue_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t j) {
  return pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, plan), 2), j);
}
static inline pte_fb_table value_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t j) {
  return pte_fb_get_table(evalue_of(d, n, plan, j), 1);
}
static inline pte_fb_table instr_args_of(const uint8_t *d, size_t n, uint32_t plan, uint32_t k) {
  pte_fb_table chain = pte_fb_vec_table(pte_fb_get_vec(plan_of(d, n, plan), 5), 0);
  return pte_fb_get_table(pte_fb_vec_table(pte_fb_get_vec(chain, 2), k), 1);
}
/* Absolute position of element i of vector field `slot` of table t. */
static inline uint32_t vec_elem(pte_fb_table t, unsigned slot, uint32_t i, uint32_t esize) {
  pte_fb_vec v = pte_fb_get_vec(t, slot);
  return v.present ? v.data + i * esize : 0;
}

#endif
