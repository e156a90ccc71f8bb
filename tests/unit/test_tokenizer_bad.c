/* Bad tokenizer files get a specific status and a message naming the file and the line/offset;
 * every prefix of a valid file of each format loads or fails cleanly (never a crash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/tokenizer.h"
#include "test.h"

static pte_status load(const char *text, size_t len, pte_error_info *err) {
  pte_tokenizer *t = NULL;
  pte_status s = pte_tokenizer_load_bytes(text, len, "bad/tok", &t, err);
  if (s == PTE_OK && !t) s = PTE_ERR_INTERNAL;
  if (s != PTE_OK && t) s = PTE_ERR_INTERNAL; /* no object on failure */
  pte_tokenizer_free(t);
  return s;
}
#define BAD(text, status, ...)                                          \
  do {                                                                  \
    pte_error_info _e = {0};                                            \
    CHECK_STATUS(load(text, strlen(text), &_e), status);                \
    const char *_want[] = {__VA_ARGS__};                                \
    for (size_t _i = 0; _i < sizeof _want / sizeof _want[0]; _i++) CHECK_CONTAINS(_e.msg, _want[_i]); \
  } while (0)

/* A valid tokenizer.json, one member per line (line numbers in messages). */
#define HF_HEAD "{\n\"added_tokens\": [],\n\"normalizer\": null,\n"
#define HF_PRE "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true},\n"
#define HF_MODEL(type, vocab, merges) \
  "\"model\": {\"type\": \"" type "\",\n\"vocab\": " vocab ",\n\"merges\": " merges "\n}\n}\n"
#define HF_VOCAB "{\"a\": 0, \"b\": 1, \"ab\": 2}"

TEST(hf_json_errors) {
  {
    pte_error_info e = {0};
    const char *ok = HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[\"a b\"]");
    CHECK_MSG(load(ok, strlen(ok), &e) == PTE_OK, "the valid base file: %s", e.msg);
  }
  /* truncated: the file ends inside the vocab */
  BAD("{\n\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0", PTE_ERR_INVALID_ARGUMENT, "bad/tok", "line 2", "bad JSON");
  BAD("{\"a\": 1,}", PTE_ERR_INVALID_ARGUMENT, "line 1 col 9", "expected a member name");
  BAD("{\"a\": [1 2]}", PTE_ERR_INVALID_ARGUMENT, "col 10", "expected ',' or ']'");
  BAD("{\"a\": \"x\\q\"}", PTE_ERR_INVALID_ARGUMENT, "unknown escape");
  BAD("{\"a\": \"\\ud800\"}", PTE_ERR_INVALID_ARGUMENT, "lone UTF-16 surrogate");
  BAD("{\"a\": 01}", PTE_ERR_INVALID_ARGUMENT, "bad JSON");
  BAD("{\"a\": 1} x", PTE_ERR_INVALID_ARGUMENT, "text after the top-level value");
  BAD("{\"a\": \"\n\"}", PTE_ERR_INVALID_ARGUMENT, "control character");
  {
    char deep[1200];
    size_t n = 0;
    deep[n++] = '{';
    memcpy(deep + n, "\"a\":", 4), n += 4;
    for (int i = 0; i < 500; i++) deep[n++] = '[';
    deep[n] = 0;
    BAD(deep, PTE_ERR_INVALID_ARGUMENT, "nested too deeply");
  }
  BAD(HF_HEAD HF_PRE HF_MODEL("WordPiece", HF_VOCAB, "[]"), PTE_ERR_NOT_SUPPORTED, "line 5", "model type (only BPE): WordPiece");
  BAD("{\"pre\": 1}", PTE_ERR_INVALID_ARGUMENT, "no \"model\" object");
  BAD("[1, 2]", PTE_ERR_INVALID_ARGUMENT, "bad/tok", "not a JSON object");
  /* merges naming unknown tokens / giving unknown results / malformed */
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[\"a b\",\n\"a c\"]"), PTE_ERR_INVALID_ARGUMENT, "line 8",
      "merge names a token that is not in the vocab: a c");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[\"b a\"]"), PTE_ERR_INVALID_ARGUMENT, "line 7",
      "merge result is not in the vocab: b a");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[\"ab\"]"), PTE_ERR_INVALID_ARGUMENT, "not two tokens");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[[\"a\"]]"), PTE_ERR_INVALID_ARGUMENT, "neither");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[[\"x\", \"b\"]]"), PTE_ERR_INVALID_ARGUMENT, "not in the vocab: x");
  /* vocab */
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": -1}", "[]"), PTE_ERR_INVALID_ARGUMENT, "line 6", "vocab id", "a");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": 0, \"b\": 0}", "[]"), PTE_ERR_INVALID_ARGUMENT, "vocab id used twice, by token b");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": 0, \"a\": 1}", "[]"), PTE_ERR_INVALID_ARGUMENT, "same bytes");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": 1.5}", "[]"), PTE_ERR_INVALID_ARGUMENT, "vocab id");
  /* a vocab entry that is not byte-level text (a plain-text special token) decodes as written but
   * never comes out of merging; a merge naming it is an error */
  {
    const char *j = HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": 0, \"b\": 1, \"a b\": 2}", "[]");
    pte_tokenizer *t = NULL;
    pte_error_info e = {0};
    CHECK_OK(pte_tokenizer_load_bytes(j, strlen(j), "plain.json", &t, &e));
    const char *p;
    size_t pl;
    CHECK_OK(pte_tokenizer_decode(t, -1, 2, &p, &pl, &e));
    CHECK(pl == 3 && memcmp(p, "a b", 3) == 0);
    int32_t ids[8];
    size_t n;
    CHECK_OK(pte_tokenizer_encode(t, "a b", 3, 0, ids, 8, &n, &e));
    pte_tokenizer_free(t);
    CHECK(n == 2 && ids[0] == 0 && ids[1] == 1); /* "a", " b" -> " " has no token and no unk: dropped */
  }
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{\"a\": 0, \"b\": 1, \"a b\": 2}", "[[\"a b\", \"a\"]]"),
      PTE_ERR_INVALID_ARGUMENT, "merge names a token that is not in the vocab");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "[]", "[]"), PTE_ERR_INVALID_ARGUMENT, "model.vocab is not an object");
  BAD(HF_HEAD HF_PRE HF_MODEL("BPE", "{}", "[]"), PTE_ERR_INVALID_ARGUMENT, "empty vocab");
  /* added tokens */
  BAD("{\n\"added_tokens\": [{\"id\": 1, \"content\": \"<s>\"}],\n" HF_PRE HF_MODEL("BPE", HF_VOCAB, "[]"),
      PTE_ERR_INVALID_ARGUMENT, "line 2", "added token id is a different vocab token: <s>");
  BAD("{\n\"added_tokens\": [{\"id\": 9}],\n" HF_PRE HF_MODEL("BPE", HF_VOCAB, "[]"), PTE_ERR_INVALID_ARGUMENT,
      "added token content");
  /* pre-tokenizers pte does not implement are refused, never run wrongly */
  BAD(HF_HEAD "\"pre_tokenizer\": {\"type\": \"Metaspace\"},\n" HF_MODEL("BPE", HF_VOCAB, "[]"), PTE_ERR_NOT_SUPPORTED,
      "pre_tokenizer type Metaspace");
  BAD(HF_HEAD "\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": "
              "{\"Regex\": \"\\\\w+\"}, \"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", "
              "\"use_regex\": false}]},\n" HF_MODEL("BPE", HF_VOCAB, "[]"),
      PTE_ERR_NOT_SUPPORTED, "Split pattern is not one of");
  BAD(HF_HEAD "\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"'s|'t|'re|'ve|'m|'ll|'d| ?\\\\p{L}+| "
              "?\\\\p{N}+| ?[^\\\\s\\\\p{L}\\\\p{N}]+|\\\\s+(?!\\\\S)|\\\\s+\"}, \"behavior\": \"MergedWithPrevious\", "
              "\"invert\": false},\n" HF_MODEL("BPE", HF_VOCAB, "[]"),
      PTE_ERR_NOT_SUPPORTED, "line 4", "Split other than behavior Isolated");
  BAD(HF_HEAD "\"pre_tokenizer\": null,\n" HF_MODEL("BPE", HF_VOCAB, "[]"), PTE_ERR_NOT_SUPPORTED, "no pre_tokenizer");
  BAD("{\n\"normalizer\": {\"type\": \"Lowercase\"},\n" HF_PRE HF_MODEL("BPE", HF_VOCAB, "[]"), PTE_ERR_NOT_SUPPORTED,
      "normalizer");
  BAD(HF_HEAD HF_PRE "\"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"vocab\": " HF_VOCAB ", \"merges\": []}}",
      PTE_ERR_INVALID_ARGUMENT, "unk_token is not in the vocab");
}

static const char spm_ok[] = "\x08\0\0\0"             /* max_token_length 8 */
                             "\0\0\0\0\x05\0\0\0<unk>" /* score 0, len 5 */
                             "\0\0\0\0\x03\0\0\0<s>"
                             "\0\0\0\0\x04\0\0\0</s>"
                             "\0\0\x80\xbf\x01\0\0\0a"; /* score -1 */

static pte_status load_n(const void *d, size_t n, pte_error_info *err) { return load(d, n, err); }
#define BADN(data, n, status, ...)                                      \
  do {                                                                  \
    pte_error_info _e = {0};                                            \
    CHECK_STATUS(load_n(data, n, &_e), status);                         \
    const char *_want[] = {__VA_ARGS__};                                \
    for (size_t _i = 0; _i < sizeof _want / sizeof _want[0]; _i++) CHECK_CONTAINS(_e.msg, _want[_i]); \
  } while (0)

TEST(spm_bin_errors) {
  size_t n = sizeof spm_ok - 1;
  pte_error_info e = {0};
  CHECK_MSG(load_n(spm_ok, n, &e) == PTE_OK, "valid base: %s", e.msg);
  BADN("", 0, PTE_ERR_INVALID_ARGUMENT, "empty file");
  BADN("\x08\0\0", 3, PTE_ERR_INVALID_ARGUMENT, "offset 0", "too short");
  BADN("\0\0\0\0", 4, PTE_ERR_INVALID_ARGUMENT, "max_token_length 0");
  BADN("\x08\0\0\0", 4, PTE_ERR_INVALID_ARGUMENT, "no tokens");
  /* the last token's length runs past the end (file cut by one byte) */
  BADN(spm_ok, n - 1, PTE_ERR_INVALID_ARGUMENT, "bad/tok", "offset 44", "token 3", "runs past the end");
  /* cut inside the last score/length */
  BADN(spm_ok, 4 + 13 + 11 + 12 + 5, PTE_ERR_INVALID_ARGUMENT, "offset 40", "token 3", "truncated");
  char buf[64];
  memcpy(buf, spm_ok, n);
  memcpy(buf + 8, "\xff\xff\xff\xff", 4); /* token 0 length -1 */
  BADN(buf, n, PTE_ERR_INVALID_ARGUMENT, "offset 8", "token 0", "length -1");
  memcpy(buf, spm_ok, n);
  memcpy(buf + 8, "\x09\0\0\0", 4); /* longer than max_token_length */
  BADN(buf, n, PTE_ERR_INVALID_ARGUMENT, "length 9 outside");
  memcpy(buf, spm_ok, n);
  memcpy(buf + 4, "\0\0\xc0\x7f", 4); /* NaN score */
  BADN(buf, n, PTE_ERR_INVALID_ARGUMENT, "offset 4", "NaN");
  /* empty pieces are legal (found by fuzz_tokenizer: a file whose first piece is empty) */
  static const char empty_first[] = "\x08\0\0\0" "\0\0\0\0\0\0\0\0" "\0\0\0\0\x01\0\0\0a";
  pte_tokenizer *t = NULL;
  CHECK_OK(pte_tokenizer_load_bytes(empty_first, sizeof empty_first - 1, "empty_first.bin", &t, &e));
  int32_t ids[4];
  size_t m = 0;
  CHECK_OK(pte_tokenizer_encode(t, "a", 1, 0, ids, 4, &m, &e));
  CHECK(m == 1 && ids[0] == 1);
  const char *p;
  size_t pl;
  CHECK_OK(pte_tokenizer_decode(t, -1, 0, &p, &pl, &e));
  CHECK_EQ_INT(pl, 0);
  pte_tokenizer_free(t);
}

TEST(tiktoken_errors) {
  BAD("YQ== 0\nYg== 1\n!!!! 2\n", PTE_ERR_INVALID_ARGUMENT, "bad/tok", "line 3", "bad base64");
  BAD("YQ== 0\nYg= 1\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "bad base64");
  BAD("YQ== 0\nY=g= 1\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "bad base64");
  BAD("YQ== 0\nYg== 0\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "duplicate rank 0");
  BAD("YQ== 0\nYg==1\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "no space");
  BAD("YQ== 0\nYg== x1\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "rank is not an integer");
  BAD("YQ== 0\nYg== 99999999999\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "rank is not an integer");
  BAD("YQ== 0\nYg== \n", PTE_ERR_INVALID_ARGUMENT, "line 2", "missing rank");
  BAD("YQ== 0\r\nYQ== 1\r\n", PTE_ERR_INVALID_ARGUMENT, "line 2", "repeat those of rank 0");
  /* options */
  const char *f = "YQ== 0\nYg== 1\n";
  pte_tokenizer *t = NULL;
  pte_error_info e = {0};
  pte_tiktoken_options o = {"perl", NULL, 0, -1, -1, -1};
  CHECK_STATUS(pte_tokenizer_load_tiktoken(f, strlen(f), "x.tiktoken", &o, &t, &e), PTE_ERR_NOT_SUPPORTED);
  CHECK_CONTAINS(e.msg, "perl");
  CHECK(t == NULL);
  static const char *const sp[] = {"<s>", "</s>"};
  pte_tiktoken_options o2 = {NULL, sp, 2, 1, 0, 1};
  CHECK_STATUS(pte_tokenizer_load_tiktoken(f, strlen(f), "x.tiktoken", &o2, &t, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.msg, "would take id 1");
  pte_tiktoken_options o3 = {NULL, sp, 2, -1, 2, 1};
  CHECK_STATUS(pte_tokenizer_load_tiktoken(f, strlen(f), "x.tiktoken", &o3, &t, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.msg, "bos_index 2");
  pte_tiktoken_options o4 = {NULL, sp, 2, -1, 0, 1};
  CHECK_OK(pte_tokenizer_load_tiktoken(f, strlen(f), "x.tiktoken", &o4, &t, &e));
  CHECK_EQ_INT(pte_tokenizer_bos_id(t), 2);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 3);
  /* encoding a byte the ranks do not have is an error, not a dropped byte */
  int32_t ids[8];
  size_t n;
  CHECK_STATUS(pte_tokenizer_encode(t, "abc", 3, 0, ids, 8, &n, &e), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(e.msg, "byte 0x63");
  CHECK_OK(pte_tokenizer_encode(t, "<s>ab", 5, 0, ids, 8, &n, &e));
  CHECK(n == 3 && ids[0] == 2 && ids[1] == 0 && ids[2] == 1);
  pte_tokenizer_free(t);
}

/* Every prefix of a valid file of each format, and every single-byte corruption of a small one:
 * OK or a clean error, never a crash (run under ASan/UBSan in the sanitizer build). */
TEST(prefixes_and_corruptions) {
  const char *hf = HF_HEAD HF_PRE HF_MODEL("BPE", HF_VOCAB, "[\"a b\"]");
  const char *tk = "YQ== 0\nYg== 1\nYWI= 2\n";
  struct {
    const char *d;
    size_t n;
  } files[] = {{hf, strlen(hf)}, {tk, strlen(tk)}, {spm_ok, sizeof spm_ok - 1}};
  size_t loads = 0, oks = 0;
  for (size_t f = 0; f < 3; f++) {
    char *buf = malloc(files[f].n + 1);
    CHECK(buf);
    for (size_t n = 0; n <= files[f].n; n++) {
      memcpy(buf, files[f].d, n);
      pte_error_info e = {0};
      pte_status s = load_n(buf, n, &e);
      if (s == PTE_OK) oks++;
      else if (e.msg[0] == 0) {
        free(buf);
        CHECK_MSG(0, "file %zu prefix %zu: status %d without a message", f, n, (int)s);
      }
      loads++;
    }
    for (size_t i = 0; i < files[f].n; i++) {
      static const unsigned char vals[] = {0, 0xFF, '"', '{', ' ', '\n', '=', 0x80};
      for (size_t v = 0; v < sizeof vals; v++) {
        memcpy(buf, files[f].d, files[f].n);
        buf[i] = (char)vals[v];
        pte_error_info e = {0};
        pte_tokenizer *t = NULL;
        if (pte_tokenizer_load_bytes(buf, files[f].n, "c", &t, &e) == PTE_OK) {
          int32_t ids[64];
          size_t n;
          (void)pte_tokenizer_encode(t, "ab a\xff<s>", 8, 0, ids, 64, &n, &e);
          pte_tokenizer_free(t);
        }
        loads++;
      }
    }
    free(buf);
  }
  /* the whole files load; most prefixes do not */
  CHECK(oks >= 3 && oks < loads / 2);
}

int main(void) {
  RUN(hf_json_errors);
  RUN(spm_bin_errors);
  RUN(tiktoken_errors);
  RUN(prefixes_and_corruptions);
  return test_summary();
}
