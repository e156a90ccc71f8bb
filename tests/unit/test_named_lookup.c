/* Named-data key lookup in a .pte (pte_program_named_data_map) and a .ptd (pte_ptd_map): pte's writers emit the keys in
 * byte order and the runtime then finds them by binary search; files whose keys are not sorted
 * (upstream's exporter writes insertion order) are searched linearly. Both must find every key
 * with its own bytes and answer PTE_ERR_NOT_FOUND for every absent one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/named_data_map.h"
#include "pte/ptd.h"
#include "pte/writer.h"
#include "test.h"
#include "test_writer_util.h"

#define NL_N 40

/* key of entry i ("w00".."w39") and its 16 bytes (all equal to 0x40 + i) */
static void nl_key(int i, char out[8]) { snprintf(out, 8, "w%02d", i); }

/* The program bytes: NL_N named blobs added in a scrambled order. */
static uint8_t *nl_write(size_t *n) {
  static uint8_t data[NL_N][16];
  pte_writer *w = NULL;
  pte_error_info err;
  if (pte_writer_create(NULL, &w, &err) != PTE_OK) return NULL;
  pte_status s = PTE_OK;
  for (int j = 0; j < NL_N && s == PTE_OK; j++) {
    const int i = (j * 17) % NL_N; /* 17 is prime to 40: a permutation */
    memset(data[i], 0x40 + i, 16);
    char key[8];
    nl_key(i, key);
    pte_source src = pte_source_memory(data[i], 16);
    uint32_t blob = 0;
    s = pte_writer_add_blob(w, &src, &blob, &err);
    if (s == PTE_OK) s = pte_writer_add_named_data(w, key, blob, 16, &err);
  }
  uint8_t *out = NULL;
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  if (s == PTE_OK) s = pte_writer_write(w, &mw.base, &err);
  if (s == PTE_OK) {
    const uint8_t *d = pte_memory_writer_data(&mw, n);
    out = (uint8_t *)malloc(*n);
    if (out) memcpy(out, d, *n);
  } else {
    fprintf(stderr, "write: %s\n", err.msg);
  }
  pte_data_writer_destroy(&mw.base);
  pte_writer_destroy(w);
  return out;
}

/* Entry `key` must hold 16 bytes equal to v. */
static bool nl_has(const pte_program *p, const char *key, int v) {
  pte_freeable_buffer fb;
  if (pte_ndm_get_data(pte_program_named_data_map(p), key, &fb) != PTE_OK) return false;
  bool ok = fb.size == 16;
  for (size_t i = 0; ok && i < 16; i++) ok = ((const uint8_t *)fb.data)[i] == (uint8_t)v;
  pte_freeable_buffer_free(&fb);
  return ok;
}

static pte_status nl_status(const pte_program *p, const char *key) {
  pte_freeable_buffer fb;
  pte_status s = pte_ndm_get_data(pte_program_named_data_map(p), key, &fb);
  if (s == PTE_OK) pte_freeable_buffer_free(&fb);
  return s;
}

static const char *const nl_absent[] = {"w40", "w0", "w000", "w", "v99", "x00", "W00", "w-1", "w39 ", "\x7f"};

TEST(sorted_keys_binary_search) {
  size_t n = 0;
  uint8_t *b = nl_write(&n);
  CHECK(b);
  if (!b) return;
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, b, n));
  CHECK(p.prog.named_data_sorted); /* inserted scrambled, written in byte order */
  for (int i = 0; i < NL_N; i++) {
    char key[8];
    nl_key(i, key);
    CHECK_MSG(nl_has(&p.prog, key, 0x40 + i), "key %s", key);
  }
  for (size_t i = 0; i < sizeof nl_absent / sizeof nl_absent[0]; i++)
    CHECK_STATUS(nl_status(&p.prog, nl_absent[i]), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(nl_status(&p.prog, ""), PTE_ERR_NOT_FOUND);
  tw_free(&p);
  free(b);
}

TEST(unsorted_keys_linear_search) {
  size_t n = 0;
  uint8_t *b = nl_write(&n);
  CHECK(b);
  if (!b) return;
  /* rename "w03" to "w99" in place: the keys are no longer in order */
  uint8_t *hit = NULL;
  int hits = 0;
  for (size_t i = 0; i + 4 <= n; i++)
    if (!memcmp(b + i, "w03\0", 4)) hit = b + i, hits++;
  CHECK_EQ_INT(hits, 1);
  if (hit) memcpy(hit, "w99", 3);
  tw_prog p;
  CHECK_OK(tw_load_bytes(&p, b, n));
  CHECK(!p.prog.named_data_sorted);
  for (int i = 0; i < NL_N; i++) {
    char key[8];
    nl_key(i == 3 ? 99 : i, key);
    CHECK_MSG(nl_has(&p.prog, key, 0x40 + i), "key %s", key);
  }
  CHECK_STATUS(nl_status(&p.prog, "w03"), PTE_ERR_NOT_FOUND);
  for (size_t i = 0; i < sizeof nl_absent / sizeof nl_absent[0]; i++)
    CHECK_STATUS(nl_status(&p.prog, nl_absent[i]), PTE_ERR_NOT_FOUND);
  tw_free(&p);
  free(b);
}

/* ---- the same for a .ptd written by pte_ptd_writer */

static uint8_t *nl_write_ptd(size_t *n) {
  static uint8_t data[NL_N][16];
  pte_ptd_writer *w = NULL;
  pte_error_info err;
  if (pte_ptd_writer_create(NULL, &w, &err) != PTE_OK) return NULL;
  pte_status s = PTE_OK;
  for (int j = 0; j < NL_N && s == PTE_OK; j++) {
    const int i = (j * 17) % NL_N;
    memset(data[i], 0x40 + i, 16);
    char key[8];
    nl_key(i, key);
    pte_source src = pte_source_memory(data[i], 16);
    s = pte_ptd_writer_add_blob(w, key, &src, 0, &err);
  }
  uint8_t *out = NULL;
  pte_memory_writer mw;
  pte_memory_writer_init(&mw, pte_heap_realloc, NULL, 0);
  if (s == PTE_OK) s = pte_ptd_writer_write(w, &mw.base, &err);
  if (s == PTE_OK) {
    const uint8_t *d = pte_memory_writer_data(&mw, n);
    out = (uint8_t *)aligned_alloc(64, (*n + 63) & ~(size_t)63);
    if (out) memcpy(out, d, *n);
  } else {
    fprintf(stderr, "ptd write: %s\n", err.msg);
  }
  pte_data_writer_destroy(&mw.base);
  pte_ptd_writer_destroy(w);
  return out;
}

static bool nl_ptd_has(const pte_ptd *p, const char *key, int v) {
  pte_freeable_buffer fb;
  if (pte_ndm_get_data(pte_ptd_map(p), key, &fb) != PTE_OK) return false;
  bool ok = fb.size == 16;
  for (size_t i = 0; ok && i < 16; i++) ok = ((const uint8_t *)fb.data)[i] == (uint8_t)v;
  pte_freeable_buffer_free(&fb);
  return ok;
}

static pte_status nl_ptd_status(const pte_ptd *p, const char *key) {
  pte_freeable_buffer fb;
  pte_status s = pte_ndm_get_data(pte_ptd_map(p), key, &fb);
  if (s == PTE_OK) pte_freeable_buffer_free(&fb);
  return s;
}

/* rename_w03: rename "w03" to "w99" in the bytes first (keys then out of order) */
static void nl_ptd_check(bool rename_w03) {
  size_t n = 0;
  uint8_t *b = nl_write_ptd(&n);
  CHECK(b);
  if (!b) return;
  if (rename_w03) {
    int hits = 0;
    for (size_t k = 0; k + 4 <= n; k++)
      if (!memcmp(b + k, "w03\0", 4)) memcpy(b + k, "w99", 3), hits++;
    CHECK_EQ_INT(hits, 1);
  }
  pte_buffer_loader bl;
  pte_buffer_loader_init(&bl, b, n);
  pte_ptd p;
  pte_error_info err;
  CHECK_OK(pte_ptd_load(&bl.base, &p, &err));
  CHECK(p.named_sorted == !rename_w03);
  /* the file's entry order (the map's key index): inserted scrambled, written "w00".."w39" */
  uint32_t nk = 0;
  CHECK_OK(pte_ndm_num_keys(pte_ptd_map(&p), &nk));
  CHECK_EQ_INT((int)nk, NL_N);
  for (uint32_t i = 0; i < nk && i < NL_N; i++) {
    char want[8];
    nl_key(rename_w03 && i == 3 ? 99 : (int)i, want);
    const char *got = NULL;
    CHECK_OK(pte_ndm_get_key(pte_ptd_map(&p), i, &got));
    CHECK_MSG(got && !strcmp(got, want), "entry %u: key %s, expected %s", i, got ? got : "(null)", want);
  }
  for (int i = 0; i < NL_N; i++) {
    char key[8];
    nl_key(rename_w03 && i == 3 ? 99 : i, key);
    CHECK_MSG(nl_ptd_has(&p, key, 0x40 + i), "key %s", key);
  }
  if (rename_w03) CHECK_STATUS(nl_ptd_status(&p, "w03"), PTE_ERR_NOT_FOUND);
  for (size_t i = 0; i < sizeof nl_absent / sizeof nl_absent[0]; i++)
    CHECK_STATUS(nl_ptd_status(&p, nl_absent[i]), PTE_ERR_NOT_FOUND);
  CHECK_STATUS(nl_ptd_status(&p, ""), PTE_ERR_NOT_FOUND);
  pte_ptd_destroy(&p);
  free(b);
}

TEST(ptd_sorted_keys_binary_search) { nl_ptd_check(false); }

TEST(ptd_unsorted_keys_linear_search) { nl_ptd_check(true); }

int main(void) {
  RUN(sorted_keys_binary_search);
  RUN(unsorted_keys_linear_search);
  RUN(ptd_sorted_keys_binary_search);
  RUN(ptd_unsorted_keys_linear_search);
  return test_summary();
}
