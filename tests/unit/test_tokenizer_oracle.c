#define _POSIX_C_SOURCE 200809L
/* Tokenizers against an independent reference: tests/support/tokenizer_oracle.py (run here with
 * /usr/bin/python3) writes random small tokenizer files of the three formats, random texts and
 * the ids its own textbook implementation gives (quadratic merge loops; Python's `re` engine on
 * the split patterns' own text with \p{..}/\s expanded into classes), and the pre-token
 * boundaries of random Unicode texts under the GPT-2, cl100k, Qwen2 and o200k patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/tok_regex/pretokenize.h"
#include "pte/tokenizer.h"
#include "test.h"

#ifndef TOKOR_SEEDS
#define TOKOR_SEEDS 3
#endif

static char tokor_dir[512];

static int tokor_hex(const char *h, char *out, size_t cap, size_t *len) {
  if (strcmp(h, "-") == 0) {
    *len = 0;
    return 0;
  }
  size_t n = strlen(h);
  if (n % 2 || n / 2 > cap) return -1;
  for (size_t i = 0; i < n / 2; i++) {
    unsigned v;
    if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
    out[i] = (char)v;
  }
  *len = n / 2;
  return 0;
}

static const char *tokor_path(const char *name) {
  static char p[4][640];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", tokor_dir, name);
  return p[k];
}

/* Generates the cases for one seed; 0 on success. */
static int tokor_generate(int seed) {
  static int done[TOKOR_SEEDS + 1];
  const char *tmp = getenv("PTE_TMP"), *schema = getenv("PTE_SCHEMA_DIR");
  if (!tmp || !schema) return -1; /* run through ctest */
  snprintf(tokor_dir, sizeof tokor_dir, "%s/tokenizer_oracle_%d", tmp, seed);
  if (done[seed]) return 0;
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/../tests/support/tokenizer_oracle.py' '%s' %d", schema, tokor_dir,
           seed);
  int rc = -1;
  char *out = test_run_capture(cmd, &rc);
  free(out);
  if (rc == 0) done[seed] = 1;
  return rc;
}

/* Reads lines "HEXTEXT FLAGS ID..." and compares the encodings. Returns the cases checked. */
static size_t tokor_check_cases(pte_tokenizer *t, const char *cases, char *why, size_t why_cap) {
  FILE *f = fopen(cases, "r");
  if (!f) {
    snprintf(why, why_cap, "cannot open %s", cases);
    return 0;
  }
  static char line[1 << 16];
  static char text[1 << 15], dec[1 << 15];
  int32_t ids[4096], want[4096];
  size_t checked = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "PATTERN", 7) == 0) continue;
    char *save = NULL;
    char *hex = strtok_r(line, " \n", &save), *fl = strtok_r(NULL, " \n", &save), *dhex = strtok_r(NULL, " \n", &save);
    size_t len, dlen, nw = 0, n = 0;
    if (!hex || !fl || !dhex || tokor_hex(hex, text, sizeof text, &len) != 0 ||
        tokor_hex(dhex, dec, sizeof dec, &dlen) != 0) {
      snprintf(why, why_cap, "bad case line in %s", cases);
      checked = 0;
      break;
    }
    for (char *tok; (tok = strtok_r(NULL, " \n", &save)) && nw < 4096;) want[nw++] = (int32_t)atoi(tok);
    pte_error_info err = {0};
    pte_status s = pte_tokenizer_encode(t, text, len, (unsigned)atoi(fl), ids, 4096, &n, &err);
    int same = s == PTE_OK && n == nw;
    for (size_t i = 0; same && i < n; i++) same = ids[i] == want[i];
    if (!same) {
      int w = snprintf(why, why_cap, "%s: text %s: status %d (%s) got", cases, hex, (int)s, err.msg);
      for (size_t i = 0; i < n && i < 40 && w > 0 && (size_t)w < why_cap - 16; i++)
        w += snprintf(why + w, why_cap - (size_t)w, " %d", (int)ids[i]);
      if (w > 0 && (size_t)w < why_cap - 16) w += snprintf(why + w, why_cap - (size_t)w, " want");
      for (size_t i = 0; i < nw && i < 40 && w > 0 && (size_t)w < why_cap - 16; i++)
        w += snprintf(why + w, why_cap - (size_t)w, " %d", (int)want[i]);
      checked = 0;
      break;
    }
    /* decoding the ids (BOS excluded) gives the reference's bytes */
    size_t pos = 0;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
      const char *p;
      size_t pl;
      ok = pte_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i], &p, &pl, &err) == PTE_OK;
      if (ok && !(i == 0 && (atoi(fl) & 1))) {
        ok = pos + pl <= dlen && memcmp(dec + pos, p, pl) == 0;
        pos += pl;
      }
    }
    if (!ok || pos != dlen) {
      snprintf(why, why_cap, "%s: text %s: decode differs from the reference", cases, hex);
      checked = 0;
      break;
    }
    checked++;
  }
  fclose(f);
  return checked;
}

TEST(oracle_pretokenize) {
  for (int seed = 1; seed <= TOKOR_SEEDS; seed++) {
    CHECK_MSG(tokor_generate(seed) == 0, "tokenizer_oracle.py failed (needs /usr/bin/python3; PTE_TMP and PTE_SCHEMA_DIR from ctest)");
    FILE *f = fopen(tokor_path("pretok.cases"), "r");
    CHECK_MSG(f, "no pretok.cases");
    static char line[1 << 14], text[1 << 13];
    size_t checked = 0;
    int bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
      char *save = NULL;
      char *kind = strtok_r(line, " \n", &save), *hex = strtok_r(NULL, " \n", &save), *ends = strtok_r(NULL, " \n", &save);
      size_t len;
      if (!kind || !hex || !ends || tokor_hex(hex, text, sizeof text, &len) != 0) {
        bad = 1;
        test_fail(__FILE__, __LINE__, "bad pretok line");
        break;
      }
      size_t pos = 0;
      char *s2 = NULL;
      for (char *e = strcmp(ends, "-") ? strtok_r(ends, ",", &s2) : NULL; e; e = strtok_r(NULL, ",", &s2)) {
        size_t want = (size_t)atol(e);
        size_t got = pos < len ? pte_pretok_next((pte_pretok_kind)atoi(kind), text, len, pos) : len + 1;
        if (got != want) {
          test_fail(__FILE__, __LINE__, "pattern %s text %s: pre-token from %zu ends at %zu, reference %zu", kind, hex, pos,
                    got, want);
          bad = 1;
          break;
        }
        pos = got;
      }
      if (!bad && pos != len) {
        test_fail(__FILE__, __LINE__, "pattern %s text %s: reference ends early", kind, hex);
        bad = 1;
      }
      checked++;
    }
    fclose(f);
    if (bad) return;
    CHECK_MSG(checked == 1200, "seed %d: %zu pre-token cases (expected 1200)", seed, checked);
  }
}

static void tokor_format(const char *file, const char *cases, int tiktoken) {
  char why[1024] = "";
  for (int seed = 1; seed <= TOKOR_SEEDS; seed++) {
    CHECK_MSG(tokor_generate(seed) == 0, "tokenizer_oracle.py failed (needs /usr/bin/python3; PTE_TMP and PTE_SCHEMA_DIR from ctest)");
    pte_tokenizer *t = NULL;
    pte_error_info err = {0};
    pte_status s;
    if (tiktoken) {
      char pattern[32] = "";
      FILE *f = fopen(tokor_path(cases), "r");
      CHECK_MSG(f, "no %s", cases);
      int got = fscanf(f, "PATTERN %31s", pattern);
      fclose(f);
      CHECK(got == 1);
      size_t size;
      uint8_t *data = test_read_file(tokor_path(file), &size);
      CHECK(data);
      static const char *const specials[] = {"<|end|>", "<|e|>"};
      pte_tiktoken_options opt = {pattern, specials, 2, -1, -1, -1};
      s = pte_tokenizer_load_tiktoken(data, size, file, &opt, &t, &err);
      free(data);
    } else {
      s = pte_tokenizer_load(tokor_path(file), &t, &err);
    }
    CHECK_MSG(s == PTE_OK, "seed %d: load %s: %s", seed, file, err.msg);
    size_t n = tokor_check_cases(t, tokor_path(cases), why, sizeof why);
    pte_tokenizer_free(t);
    CHECK_MSG(n == 150, "seed %d: %s", seed, why);
  }
}

TEST(oracle_tiktoken) { tokor_format("tiktoken.tok", "tiktoken.cases", 1); }
TEST(oracle_hf_json) { tokor_format("hf.tok", "hf.cases", 0); }
TEST(oracle_spm) { tokor_format("spm.tok", "spm.cases", 0); }

/* The checked-in Unicode table is what its generator makes (src/llm/tok_regex/gen_unicode_table.py,
 * from this Python's unicodedata): a differing Unicode version means the table must be regenerated. */
TEST(unicode_table_regenerates) {
  const char *schema = getenv("PTE_SCHEMA_DIR");
  CHECK_MSG(schema, "PTE_SCHEMA_DIR not set (run through ctest)");
  char cmd[1400];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 '%s/../src/llm/tok_regex/gen_unicode_table.py' | cmp - '%s/../src/llm/tok_regex/unicode_table.c'"
           " && echo same",
           schema, schema);
  int rc = -1;
  char *out = test_run_capture(cmd, &rc);
  int same = out && strstr(out, "same") != NULL;
  free(out);
  CHECK_MSG(rc == 0 && same,
            "src/llm/tok_regex/unicode_table.c differs from what gen_unicode_table.py writes with this Python "
            "(table: Unicode %s): regenerate it",
            pte_uc_unicode_version);
}

int main(void) {
  RUN(oracle_pretokenize);
  RUN(oracle_tiktoken);
  RUN(oracle_hf_json);
  RUN(oracle_spm);
  RUN(unicode_table_regenerates);
  return test_summary();
}
