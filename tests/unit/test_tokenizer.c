/* Tokenizers (pte/tokenizer.h) against PUBLISHED token ids.
 *
 * The real vocabulary files (50k-200k tokens, megabytes) are not available here, so each test
 * builds a small file holding exactly the tokens the published encodings involve, at their real
 * ids/ranks, and argues (comment at each test) why the subset encodes those strings exactly as
 * the full vocabulary does. Sources of the ids:
 *  [T1] openai/tiktoken tests/test_encoding.py (test_simple, test_simple_repeated,
 *       test_simple_regex, test_basic_encode, test_encode_surrogate_pairs):
 *       https://github.com/openai/tiktoken/blob/main/tests/test_encoding.py
 *  [T2] pytorch-labs/tokenizers test/test_tiktoken.cpp (Llama 3 tokenizer.model: "hello world"
 *       with BOS -> 128000, 15339, 1917; bos 128000, eos 128001):
 *       https://github.com/pytorch-labs/tokenizers/blob/main/test/test_tiktoken.cpp
 *  [T4] zurawiki/tiktoken-rs tiktoken-rs/tests/tiktoken.rs (r50k_base / cl100k_base / o200k_base:
 *       "This is a test         with a lot of spaces" [+ "<|endoftext|>"], and its pieces):
 *       https://github.com/zurawiki/tiktoken-rs/blob/main/tiktoken-rs/tests/tiktoken.rs
 *  [T3] huggingface/transformers tests/models/gpt2/test_tokenization_gpt2.py (the toy vocab and
 *       merges of test_full_tokenizer: "lower newer", add_prefix_space -> 14 15 10 9 3 2 15):
 *       https://github.com/huggingface/transformers/blob/main/tests/models/gpt2/test_tokenization_gpt2.py
 * Byte tokens: GPT-2, r50k and cl100k give the 256 single bytes ranks 0..255 in the byte-level
 * order (printable '!'..'~', 0xA1..0xAC, 0xAE..0xFF, then the 68 others ascending). Published
 * cl100k ids confirm it: ' ' = 220, 'r' = 81, 0x8D = 235, 0x91 = 239, 0xC2 = 126, 0x85 = 227. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pte/tokenizer.h"
#include "test.h"

/* ---- helpers ---- */
static int byte_rank(int b) {
  int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  int r = 0;
  for (int x = 0; x < 256; x++) {
    int px = (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF);
    if (px && printable && x < b) r++;
    if (!printable && (px || x < b)) r++;
  }
  return r;
}

typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;
static void sb_put(sbuf *s, const void *d, size_t n) {
  if (s->n + n + 1 > s->cap) {
    s->cap = (s->n + n + 1) * 2;
    s->p = realloc(s->p, s->cap);
  }
  memcpy(s->p + s->n, d, n);
  s->n += n;
  s->p[s->n] = 0;
}
static void sb_str(sbuf *s, const char *str) { sb_put(s, str, strlen(str)); }

static void b64(const uint8_t *d, size_t n, char *out) {
  static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t w = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t x = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
    out[w++] = al[x >> 18];
    out[w++] = al[(x >> 12) & 63];
    out[w++] = i + 1 < n ? al[(x >> 6) & 63] : '=';
    out[w++] = i + 2 < n ? al[x & 63] : '=';
  }
  out[w] = 0;
}

typedef struct tk_tok {
  const char *bytes;
  int rank;
} tk_tok;

/* A ranks file: the 256 bytes at their byte-level ranks plus the given tokens. */
static char *tiktoken_file(const tk_tok *toks, size_t n, size_t *len) {
  sbuf s = {0};
  char line[256], enc[200];
  for (int b = 0; b < 256; b++) {
    uint8_t byte = (uint8_t)b;
    b64(&byte, 1, enc);
    snprintf(line, sizeof line, "%s %d\n", enc, byte_rank(b));
    sb_str(&s, line);
  }
  for (size_t i = 0; i < n; i++) {
    b64((const uint8_t *)toks[i].bytes, strlen(toks[i].bytes), enc);
    snprintf(line, sizeof line, "%s %d\n", enc, toks[i].rank);
    sb_str(&s, line);
  }
  *len = s.n;
  return s.p;
}

/* Encodes text and compares with want[0..nwant); then decodes the ids back to the text. */
static int check_encode(pte_tokenizer *t, const char *text, size_t len, unsigned flags, const int32_t *want,
                        size_t nwant, int check_roundtrip) {
  int32_t ids[256];
  size_t n = 0;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_encode(t, text, len, flags, ids, 256, &n, &err);
  if (s != PTE_OK) {
    test_fail(__FILE__, __LINE__, "encode \"%s\": %s", text, err.msg);
    return 0;
  }
  int same = n == nwant;
  for (size_t i = 0; same && i < n; i++) same = ids[i] == want[i];
  if (!same) {
    char got[512] = "", exp[512] = "";
    for (size_t i = 0; i < n && strlen(got) < 480; i++) snprintf(got + strlen(got), sizeof got - strlen(got), " %d", (int)ids[i]);
    for (size_t i = 0; i < nwant && strlen(exp) < 480; i++)
      snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %d", (int)want[i]);
    test_fail(__FILE__, __LINE__, "encode \"%s\": got [%s ] want [%s ]", text, got, exp);
    return 0;
  }
  if (check_roundtrip) {
    sbuf out = {0};
    sb_put(&out, "", 0);
    for (size_t i = 0; i < n; i++) {
      const char *p;
      size_t pl;
      if (pte_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i], &p, &pl, &err) != PTE_OK) {
        test_fail(__FILE__, __LINE__, "decode %d: %s", (int)ids[i], err.msg);
        free(out.p);
        return 0;
      }
      sb_put(&out, p, pl);
    }
    /* SentencePiece's dummy prefix: without BOS before it the leading space stays */
    size_t sp = pte_tokenizer_kind_of(t) == PTE_TOKENIZER_SPM_BIN && len > 0;
    int ok = out.n == len + sp && (!sp || out.p[0] == ' ') && memcmp(out.p + sp, text, len) == 0;
    if (!ok) test_fail(__FILE__, __LINE__, "decode(encode(\"%s\")) = \"%s\"", text, out.p);
    free(out.p);
    return ok;
  }
  return 1;
}
#define ENC(t, text, flags, ...)                                                                          \
  do {                                                                                                    \
    static const int32_t _w[] = {__VA_ARGS__};                                                            \
    if (!check_encode(t, text, strlen(text), flags, _w, sizeof _w / sizeof _w[0], !(flags))) goto done; \
  } while (0)

/* ---- tiktoken: cl100k_base [T1] and Llama 3 [T2] ----
 * Subset argument: tiktoken looks a whole pre-token up first, so a pre-token that is one token in
 * the published output ("hello", " world", "today", "rer", "'re", "\n \n", "\n  \n", " ", "\n",
 * "r", "0") needs only that token. "👍" = F0 9F 91 8D -> [9468, 239, 235] merges only F0+9F into
 * 9468; the subset has no other multi-byte token over these bytes, and the published result shows
 * no merge of 9F+91 happens before 9468 or of the rest after, so the subset takes the same steps.
 * " \u0085" splits as " " + "\u0085" (U+0085 is White_Space: \s+(?!\S) gives back its last
 * character) and C2 85 stays two bytes [126, 227]. */
static const tk_tok cl100k_subset[] = {{"hello", 15339}, {" world", 1917}, {"today", 31213}, {"rer", 38149},
                                       {"'re", 2351},    {"\n \n", 27907},  {"\n  \n", 14211}, {"\xF0\x9F", 9468}};

TEST(tiktoken_cl100k_published) {
  size_t len;
  char *file = tiktoken_file(cl100k_subset, sizeof cl100k_subset / sizeof cl100k_subset[0], &len);
  static const char *const specials[] = {"<|endoftext|>"};
  pte_tiktoken_options opt = {"cl100k", specials, 1, 100257, -1, 0};
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_tiktoken(file, len, "cl100k_subset.tiktoken", &opt, &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  CHECK_EQ_INT(pte_tokenizer_kind_of(t), PTE_TOKENIZER_TIKTOKEN);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 100257);
  ENC(t, "hello world", 0, 15339, 1917);
  ENC(t, "hello <|endoftext|>", 0, 15339, 220, 100257);
  ENC(t, "rer", 0, 38149);
  ENC(t, "'rer", 0, 2351, 81);
  ENC(t, "today\n ", 0, 31213, 198, 220);
  ENC(t, "today\n \n", 0, 31213, 27907);
  ENC(t, "today\n  \n", 0, 31213, 14211);
  ENC(t, " \xC2\x85" "0", 0, 220, 126, 227, 15);
  ENC(t, "\xF0\x9F\x91\x8D", 0, 9468, 239, 235);
  {
    const char *p;
    size_t pl;
    CHECK_OK(pte_tokenizer_decode(t, -1, 100257, &p, &pl, &err));
    CHECK(pl == 13 && memcmp(p, "<|endoftext|>", 13) == 0);
    CHECK_OK(pte_tokenizer_decode(t, 15339, 1917, &p, &pl, &err));
    CHECK(pl == 6 && memcmp(p, " world", 6) == 0);
  }
done:
  pte_tokenizer_free(t);
}

/* [T2]: Llama 3's tokenizer.model is recognised by its 128000 ranks; here the subset file is
 * given the Llama 3 specials by the caller (the same 256 names, ids 128000...). */
TEST(tiktoken_llama3_published) {
  size_t len;
  char *file = tiktoken_file(cl100k_subset, 2, &len);
  const char *specials[256];
  char names[256][40];
  static const char *const named[] = {"<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                                      "<|reserved_special_token_1|>", "<|reserved_special_token_2|>",
                                      "<|reserved_special_token_3|>", "<|start_header_id|>", "<|end_header_id|>",
                                      "<|reserved_special_token_4|>", "<|eot_id|>"};
  for (int i = 0; i < 256; i++) {
    if (i < 10) snprintf(names[i], sizeof names[i], "%s", named[i]);
    else snprintf(names[i], sizeof names[i], "<|reserved_special_token_%d|>", i - 5);
    specials[i] = names[i];
  }
  pte_tiktoken_options opt = {"llama3", specials, 256, 128000, 0, 1};
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_tiktoken(file, len, "llama3_subset.model", &opt, &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  CHECK_EQ_INT(pte_tokenizer_bos_id(t), 128000);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 128001);
  CHECK_EQ_INT(pte_tokenizer_vocab_size(t), 128256);
  ENC(t, "hello world", PTE_TOK_ADD_BOS, 128000, 15339, 1917);
  {
    const char *p;
    size_t pl;
    CHECK_OK(pte_tokenizer_decode(t, -1, 128000, &p, &pl, &err));
    CHECK(pl == 17 && memcmp(p, "<|begin_of_text|>", 17) == 0);
    CHECK_STATUS(pte_tokenizer_decode(t, -1, 128256 + 256, &p, &pl, &err), PTE_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.msg, "128512");
  }
done:
  pte_tokenizer_free(t);
}

/* [T1] gpt2/r50k "hello world" and runs of zeros (test_simple_repeated). Subset argument for the
 * zeros: every intermediate of merging a run of '0's is a run of '0's, so only the tokens 0^k
 * matter. The published results show which exist for k <= 17: 1..8 (ids 15, 405, 830, 2388, 20483,
 * 10535, 24598, 8269) and 16 (25645); 0^9..0^15 and 0^17 cannot be tokens, because the published
 * encodings of those lengths end with adjacent pieces that would concatenate to them
 * (e.g. 0^12 -> [8269, 2388] = 0^8 + 0^4), and BPE stops only when no adjacent pair is a token. */
TEST(tiktoken_gpt2_published) {
  static const tk_tok toks[] = {{"hello", 31373},    {" world", 995},     {"00", 405},        {"000", 830},
                                {"0000", 2388},      {"00000", 20483},    {"000000", 10535},  {"0000000", 24598},
                                {"00000000", 8269},  {"0000000000000000", 25645}};
  size_t len;
  char *file = tiktoken_file(toks, sizeof toks / sizeof toks[0], &len);
  static const char *const specials[] = {"<|endoftext|>"};
  pte_tiktoken_options opt = {"gpt2", specials, 1, 50256, -1, 0};
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_tiktoken(file, len, "r50k_subset.tiktoken", &opt, &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  ENC(t, "hello world", 0, 31373, 995);
  ENC(t, "hello <|endoftext|>", 0, 31373, 220, 50256);
  ENC(t, "0", 0, 15);
  ENC(t, "00", 0, 405);
  ENC(t, "000", 0, 830);
  ENC(t, "0000", 0, 2388);
  ENC(t, "00000", 0, 20483);
  ENC(t, "000000", 0, 10535);
  ENC(t, "0000000", 0, 24598);
  ENC(t, "00000000", 0, 8269);
  ENC(t, "000000000", 0, 10535, 830);
  ENC(t, "0000000000", 0, 8269, 405);
  ENC(t, "00000000000", 0, 8269, 830);
  ENC(t, "000000000000", 0, 8269, 2388);
  ENC(t, "0000000000000", 0, 8269, 20483);
  ENC(t, "00000000000000", 0, 8269, 10535);
  ENC(t, "000000000000000", 0, 8269, 24598);
  ENC(t, "0000000000000000", 0, 25645);
  ENC(t, "00000000000000000", 0, 8269, 10535, 830);
done:
  pte_tokenizer_free(t);
}

/* [T4]: every piece of the sentence is one token in cl100k and o200k (the published split has as
 * many pieces as ids), so the subset is those tokens; in r50k the 8-space piece has no token and
 * comes out as 8 single spaces (220), which a subset without space runs reproduces. The o200k
 * case checks the o200k split pattern on published ids. */
static const char spaces_text[] = "This is a test         with a lot of spaces";
static void check_spaces(const char *pattern, const tk_tok *toks, size_t ntok, int32_t eot, const int32_t *want,
                         size_t nwant) {
  size_t len;
  char *file = tiktoken_file(toks, ntok, &len);
  static const char *const specials[] = {"<|endoftext|>"};
  pte_tiktoken_options opt = {pattern, specials, 1, eot, -1, 0};
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_tiktoken(file, len, pattern, &opt, &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  char text[128];
  snprintf(text, sizeof text, "%s<|endoftext|>", spaces_text);
  int32_t w2[32];
  memcpy(w2, want, nwant * sizeof *want);
  w2[nwant] = eot;
  if (check_encode(t, spaces_text, strlen(spaces_text), 0, want, nwant, 1))
    (void)check_encode(t, text, strlen(text), 0, w2, nwant + 1, 1);
  pte_tokenizer_free(t);
}

TEST(tiktoken_rs_published) {
  static const tk_tok cl[] = {{"This", 2028}, {" is", 374}, {" a", 264}, {" test", 1296}, {"        ", 260},
                              {" with", 449}, {" lot", 2763}, {" of", 315}, {" spaces", 12908}};
  static const int32_t cl_ids[] = {2028, 374, 264, 1296, 260, 449, 264, 2763, 315, 12908};
  check_spaces("cl100k", cl, sizeof cl / sizeof cl[0], 100257, cl_ids, 10);
  static const tk_tok o2[] = {{"This", 2500}, {" is", 382}, {" a", 261}, {" test", 1746}, {"        ", 269},
                              {" with", 483}, {" lot", 3261}, {" of", 328}, {" spaces", 18608}};
  static const int32_t o2_ids[] = {2500, 382, 261, 1746, 269, 483, 261, 3261, 328, 18608};
  check_spaces("o200k", o2, sizeof o2 / sizeof o2[0], 199999, o2_ids, 10);
  static const tk_tok r5[] = {{"This", 1212}, {" is", 318}, {" a", 257}, {" test", 1332},
                              {" with", 351}, {" lot", 1256}, {" of", 286}, {" spaces", 9029}};
  static const int32_t r5_ids[] = {1212, 318, 257, 1332, 220, 220, 220, 220, 220, 220, 220, 220, 351, 257, 1256, 286, 9029};
  check_spaces("gpt2", r5, sizeof r5 / sizeof r5[0], 50256, r5_ids, 17);
}

/* ---- Hugging Face tokenizer.json ---- */

/* [T3]: the toy GPT-2 vocab and merges of transformers' test, as a tokenizer.json (ByteLevel with
 * add_prefix_space, as the test's add_prefix_space=True). Published: "lower newer" ->
 * Ġlow er Ġ n e w er = 14 15 10 9 3 2 15. */
static const char hf_toy_head[] =
    "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,"
    "\"added_tokens\":[{\"id\":20,\"content\":\"<|endoftext|>\",\"single_word\":false,\"lstrip\":false,"
    "\"rstrip\":false,\"normalized\":false,\"special\":true}],"
    "\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":true,\"use_regex\":true},"
    "\"post_processor\":{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":false,\"use_regex\":true},"
    "\"decoder\":{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":true,\"use_regex\":true},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":\"<unk>\",\"continuing_subword_prefix\":\"\","
    "\"end_of_word_suffix\":\"\",\"fuse_unk\":false,\"byte_fallback\":false,";
static const char hf_toy_vocab[] =
    "\"vocab\":{\"l\":0,\"o\":1,\"w\":2,\"e\":3,\"r\":4,\"s\":5,\"t\":6,\"i\":7,\"d\":8,\"n\":9,\"\\u0120\":10,"
    "\"\\u0120l\":11,\"\\u0120n\":12,\"\\u0120lo\":13,\"\\u0120low\":14,\"er\":15,\"\\u0120lowest\":16,"
    "\"\\u0120newer\":17,\"\\u0120wider\":18,\"<unk>\":19,\"<|endoftext|>\":20},";

static pte_tokenizer *load_json(const char *a, const char *b, const char *c, const char *d, pte_error_info *err) {
  sbuf s = {0};
  sb_str(&s, a);
  sb_str(&s, b);
  sb_str(&s, c);
  sb_str(&s, d);
  pte_tokenizer *t = NULL;
  if (pte_tokenizer_load_bytes(s.p, s.n, "toy/tokenizer.json", &t, err) != PTE_OK) t = NULL;
  free(s.p);
  return t;
}

TEST(hf_gpt2_toy_published) {
  pte_error_info err = {0};
  /* merges as "a b" strings (older files) */
  pte_tokenizer *t = load_json(hf_toy_head, hf_toy_vocab,
                               "\"merges\":[\"\\u0120 l\",\"\\u0120l o\",\"\\u0120lo w\",\"e r\"]}", "}", &err);
  CHECK_MSG(t, "load: %s", err.msg);
  CHECK_EQ_INT(pte_tokenizer_kind_of(t), PTE_TOKENIZER_HF_BPE);
  CHECK_EQ_INT(pte_tokenizer_vocab_size(t), 21);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 20);
  ENC(t, "lower newer", PTE_TOK_ADD_EOS, 14, 15, 10, 9, 3, 2, 15, 20);
  {
    /* decoding gives the text with the prefix space ByteLevel added */
    static const int32_t ids[] = {14, 15, 10, 9, 3, 2, 15};
    char out[64] = "";
    for (size_t i = 0; i < 7; i++) {
      const char *p;
      size_t pl;
      CHECK_OK(pte_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i], &p, &pl, &err));
      strncat(out, p, pl);
    }
    CHECK_STR(out, " lower newer");
  }
  pte_tokenizer_free(t);
  /* the same merges as [a, b] pairs (newer files): same ids */
  t = load_json(hf_toy_head, hf_toy_vocab,
                "\"merges\":[[\"\\u0120\",\"l\"],[\"\\u0120l\",\"o\"],[\"\\u0120lo\",\"w\"],[\"e\",\"r\"]]}", "}", &err);
  CHECK_MSG(t, "load: %s", err.msg);
  ENC(t, "lower newer", PTE_TOK_ADD_EOS, 14, 15, 10, 9, 3, 2, 15, 20);
  /* hand-derived: an added token is matched before BPE; the text around it is split on its own
   * (each segment gets the prefix space): " low" -> Ġlow; "er" -> "Ġer": Ġ e r -> e r merges -> Ġ er */
  ENC(t, "low<|endoftext|>er", PTE_TOK_ADD_EOS, 14, 20, 10, 15, 20);
  pte_tokenizer_free(t);
  /* hand-derived: with ignore_merges (Llama 3) a pre-token that is in the vocab is taken whole:
   * "Ġnewer" = 17 although the merges cannot build it; "Ġlower" is not in the vocab -> merges. */
  t = load_json(hf_toy_head, "\"ignore_merges\":true,", hf_toy_vocab,
                "\"merges\":[\"\\u0120 l\",\"\\u0120l o\",\"\\u0120lo w\",\"e r\"]}}", &err);
  CHECK_MSG(t, "load: %s", err.msg);
  ENC(t, "lower newer", PTE_TOK_ADD_EOS, 14, 15, 17, 20);
  pte_tokenizer_free(t);
  return;
done:
  pte_tokenizer_free(t);
}

/* Llama 3 layout (Sequence[Split(cl100k pattern), ByteLevel(use_regex false)], ignore_merges,
 * TemplateProcessing naming <|begin_of_text|>, 256 added specials): the Llama 3 vocabulary's first
 * 100256 tokens are cl100k_base's, so the [T1]/[T2] ids and the subset argument above apply. Its
 * one merge (ð Ł = F0 9F) makes "👍" go through BPE. */
static char *llama3_json(size_t *len) {
  sbuf s = {0};
  sb_str(&s, "{\"version\":\"1.0\",\"added_tokens\":[");
  static const char *const named[] = {"<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                                      "<|reserved_special_token_1|>", "<|reserved_special_token_2|>",
                                      "<|reserved_special_token_3|>", "<|start_header_id|>", "<|end_header_id|>",
                                      "<|reserved_special_token_4|>", "<|eot_id|>"};
  char buf[256];
  for (int i = 0; i < 256; i++) {
    char name[48];
    if (i < 10) snprintf(name, sizeof name, "%s", named[i]);
    else snprintf(name, sizeof name, "<|reserved_special_token_%d|>", i - 5);
    snprintf(buf, sizeof buf,
             "%s{\"id\":%d,\"content\":\"%s\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
             "\"normalized\":false,\"special\":true}",
             i ? "," : "", 128000 + i, name);
    sb_str(&s, buf);
  }
  sb_str(&s, "],\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\","
             "\"pattern\":{\"Regex\":\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|"
             "\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
             "\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
             "\"trim_offsets\":true,\"use_regex\":false}]},"
             "\"post_processor\":{\"type\":\"Sequence\",\"processors\":[{\"type\":\"ByteLevel\",\"add_prefix_space\":true,"
             "\"trim_offsets\":false,\"use_regex\":true},{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":"
             "{\"id\":\"<|begin_of_text|>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"pair\":[],"
             "\"special_tokens\":{}}]},\"decoder\":{\"type\":\"ByteLevel\"},"
             "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"continuing_subword_prefix\":null,"
             "\"end_of_word_suffix\":null,\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":true,\"vocab\":{");
  /* byte-level text of each byte */
  int extra = 0;
  unsigned cp_of[256];
  for (int b = 0; b < 256; b++) {
    int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    cp_of[b] = printable ? (unsigned)b : 256u + (unsigned)extra++;
  }
  for (int b = 0; b < 256; b++) {
    const char *q = (b == '"' || b == '\\') ? "\\" : "";
    char ch[8];
    if (cp_of[b] < 0x80) snprintf(ch, sizeof ch, "%s%c", q, (char)b);
    else snprintf(ch, sizeof ch, "\\u%04X", cp_of[b]);
    snprintf(buf, sizeof buf, "%s\"%s\":%d", b ? "," : "", ch, byte_rank(b));
    sb_str(&s, buf);
  }
  /* multi-byte tokens in byte-level text: space = U+0120 (Ġ), \n = U+010A (Ċ), F0 = ð, 9F = U+0141 */
  sb_str(&s, ",\"hello\":15339,\"\\u0120world\":1917,\"today\":31213,\"rer\":38149,\"'re\":2351,"
             "\"\\u010A\\u0120\\u010A\":27907,\"\\u010A\\u0120\\u0120\\u010A\":14211,\"\\u00F0\\u0141\":9468,"
             /* [T4]'s cl100k tokens */
             "\"This\":2028,\"\\u0120is\":374,\"\\u0120a\":264,\"\\u0120test\":1296,"
             "\"\\u0120\\u0120\\u0120\\u0120\\u0120\\u0120\\u0120\\u0120\":260,\"\\u0120with\":449,"
             "\"\\u0120lot\":2763,\"\\u0120of\":315,\"\\u0120spaces\":12908},"
             "\"merges\":[\"\\u00F0 \\u0141\"]}}");
  *len = s.n;
  return s.p;
}

TEST(hf_llama3_layout_published) {
  size_t len;
  char *json = llama3_json(&len);
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_bytes(json, len, "llama3_subset/tokenizer.json", &t, &err);
  free(json);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  CHECK_EQ_INT(pte_tokenizer_bos_id(t), 128000);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 128001);
  CHECK_EQ_INT(pte_tokenizer_vocab_size(t), 128256);
  ENC(t, "hello world", PTE_TOK_ADD_BOS, 128000, 15339, 1917);
  ENC(t, "hello world", 0, 15339, 1917);
  ENC(t, "rer", 0, 38149);
  ENC(t, "'rer", 0, 2351, 81);
  ENC(t, "today\n ", 0, 31213, 198, 220);
  ENC(t, "today\n \n", 0, 31213, 27907);
  ENC(t, "today\n  \n", 0, 31213, 14211);
  ENC(t, " \xC2\x85" "0", 0, 220, 126, 227, 15);
  ENC(t, "\xF0\x9F\x91\x8D", 0, 9468, 239, 235);
  ENC(t, "This is a test         with a lot of spaces", 0, 2028, 374, 264, 1296, 260, 449, 264, 2763, 315, 12908);
  /* special tokens inside the text (hand-derived from the above) */
  ENC(t, "<|begin_of_text|>hello<|eot_id|>", 0, 128000, 15339, 128009);
  pte_tokenizer_free(t);
  t = NULL;
  {
    /* the same split written as behavior Removed + invert (OLMo-style files): same pieces */
    json = llama3_json(&len);
    char *at = strstr(json, "\"behavior\":\"Isolated\",\"invert\":false");
    CHECK(at);
    memcpy(at, "\"behavior\":\"Removed\", \"invert\":true ", strlen("\"behavior\":\"Isolated\",\"invert\":false"));
    s = pte_tokenizer_load_bytes(json, len, "llama3_removed_invert.json", &t, &err);
    free(json);
    CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
    ENC(t, "today\n  \n", 0, 31213, 14211);
  }
done:
  pte_tokenizer_free(t);
}

/* ---- llama2.c tokenizer.bin (hand-derived: no published ids can be reproduced without the
 * 32000-piece Llama 2 vocabulary) ---- */
typedef struct spm_piece {
  const char *s;
  float score;
} spm_piece;

static char *spm_file(const spm_piece *extra, size_t n, size_t *len) {
  sbuf s = {0};
  int32_t maxlen = 16;
  sb_put(&s, &maxlen, 4);
  for (int i = 0; i < 259 + (int)n; i++) {
    char piece[16];
    float score = 0.0f;
    if (i == 0) snprintf(piece, sizeof piece, "<unk>");
    else if (i == 1) snprintf(piece, sizeof piece, "\n<s>\n");
    else if (i == 2) snprintf(piece, sizeof piece, "\n</s>\n");
    else if (i < 259) snprintf(piece, sizeof piece, "<0x%02X>", i - 3);
    else {
      snprintf(piece, sizeof piece, "%s", extra[i - 259].s);
      score = extra[i - 259].score;
    }
    int32_t l = (int32_t)strlen(piece);
    sb_put(&s, &score, 4);
    sb_put(&s, &l, 4);
    sb_put(&s, piece, (size_t)l);
  }
  *len = s.n;
  return s.p;
}

/* ids 259.. */
static const spm_piece spm_toy[] = {
    {" ", -100}, {"h", -100},   {"e", -100},   {"l", -100},      {"o", -100},  {"w", -100},     {"r", -100},
    {"d", -100}, {"ll", -1},    {"he", -2},    {"llo", -3},      {"hello", -4}, {" w", -5},     {"or", -6},
    {" wor", -7}, {"ld", -8},   {" world", -9}, {"\xC3\xA9", -100}, {"a", -100},  {"aa", -1},
};

TEST(spm_hand_derived) {
  size_t len;
  char *file = spm_file(spm_toy, sizeof spm_toy / sizeof spm_toy[0], &len);
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_bytes(file, len, "toy/tokenizer.bin", &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  CHECK_EQ_INT(pte_tokenizer_kind_of(t), PTE_TOKENIZER_SPM_BIN);
  CHECK_EQ_INT(pte_tokenizer_vocab_size(t), 279);
  CHECK_EQ_INT(pte_tokenizer_bos_id(t), 1);
  CHECK_EQ_INT(pte_tokenizer_eos_id(t), 2);
  /* "hello world": symbols [' ' h e l l o ' ' w o r l d]; merges by score, best first:
   * ll(-1), he(-2), llo(-3) [ll+o], hello(-4) [he+llo], " w"(-5), or(-6), " wor"(-7), ld(-8),
   * " world"(-9); " hello" is not a piece -> [' ', hello, ' world'] = 259 270 275. */
  ENC(t, "hello world", PTE_TOK_ADD_BOS | PTE_TOK_ADD_EOS, 1, 259, 270, 275, 2);
  {
    /* decode after BOS drops the dummy prefix space: "" "hello" " world" */
    const char *p;
    size_t pl;
    CHECK_OK(pte_tokenizer_decode(t, 1, 259, &p, &pl, &err));
    CHECK_EQ_INT(pl, 0);
    CHECK_OK(pte_tokenizer_decode(t, 259, 270, &p, &pl, &err));
    CHECK(pl == 5 && memcmp(p, "hello", 5) == 0);
    CHECK_OK(pte_tokenizer_decode(t, 270, 275, &p, &pl, &err));
    CHECK(pl == 6 && memcmp(p, " world", 6) == 0);
    /* a byte piece decodes to its byte */
    CHECK_OK(pte_tokenizer_decode(t, 259, 3 + 0xE2, &p, &pl, &err));
    CHECK(pl == 1 && (unsigned char)p[0] == 0xE2);
  }
  /* byte fallback: "h" 'é' (a piece, 276) '€' (E2 82 AC: no piece -> ids byte+3 = 229 133 175) */
  ENC(t, "h\xC3\xA9\xE2\x82\xAC", 0, 259, 260, 276, 229, 133, 175);
  /* equal scores merge leftmost first: "aaa" -> [' ', aa, a] = 259 278 277 */
  ENC(t, "aaa", 0, 259, 278, 277);
  /* "aaaa" -> aa aa */
  ENC(t, "aaaa", 0, 259, 278, 278);
done:
  pte_tokenizer_free(t);
}

/* Long inputs stay fast (O(n log n) merges): 200000 bytes of one repeated character through each
 * format; the result is checked, not the time. */
TEST(long_inputs) {
  size_t n = 200000;
  char *text = malloc(n + 1);
  CHECK(text);
  memset(text, '0', n);
  text[n] = 0;
  static const tk_tok toks[] = {{"00", 405}, {"000", 830}, {"0000", 2388}, {"00000", 20483}, {"000000", 10535},
                                {"0000000", 24598}, {"00000000", 8269}, {"0000000000000000", 25645}};
  size_t len;
  char *file = tiktoken_file(toks, sizeof toks / sizeof toks[0], &len);
  pte_tiktoken_options opt = {"gpt2", NULL, 0, -1, -1, -1};
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_tiktoken(file, len, "r50k_subset", &opt, &t, &err);
  free(file);
  if (s != PTE_OK) {
    free(text);
    CHECK_MSG(0, "load: %s", err.msg);
  }
  int32_t *ids = malloc(n * sizeof *ids);
  size_t nid = 0;
  s = pte_tokenizer_encode(t, text, n, 0, ids, n, &nid, &err);
  /* hand-derived for this subset: leftmost-first merges by rank pair the run into 00s (405), those
   * into 0^4 (000, rank 830, never forms: no lone 0 is left), then 0^8 (8269), then 0^16
   * (25645); 0^32 is not in the subset: 200000 = 12500 * 16 -> 12500 x 25645. */
  int ok = s == PTE_OK && nid == 12500;
  for (size_t i = 0; ok && i < nid; i++) ok = ids[i] == 25645;
  free(ids);
  free(text);
  pte_tokenizer_free(t);
  CHECK_MSG(ok, "200000 zeros: status %d, %zu ids: %s", (int)s, nid, err.msg);
}

TEST(cap_and_arguments) {
  size_t len;
  char *file = spm_file(spm_toy, sizeof spm_toy / sizeof spm_toy[0], &len);
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  pte_status s = pte_tokenizer_load_bytes(file, len, "toy/tokenizer.bin", &t, &err);
  free(file);
  CHECK_MSG(s == PTE_OK, "load: %s", err.msg);
  int32_t ids[3] = {-7, -7, -7};
  size_t n = 0;
  /* 5 ids needed, room for 2: the first 2 are written, n says 5 */
  CHECK_STATUS(pte_tokenizer_encode(t, "hello world", 11, PTE_TOK_ADD_BOS | PTE_TOK_ADD_EOS, ids, 2, &n, &err),
               PTE_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(n, 5);
  CHECK(ids[0] == 1 && ids[1] == 259 && ids[2] == -7);
  CHECK_CONTAINS(err.msg, "needs 5 ids");
  CHECK_STATUS(pte_tokenizer_encode(t, "x", 1, 0x80, ids, 3, &n, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_tokenizer_encode(t, NULL, 1, 0, ids, 3, &n, &err), PTE_ERR_INVALID_ARGUMENT);
  /* empty text: nothing (not even the dummy prefix) */
  CHECK_OK(pte_tokenizer_encode(t, "", 0, 0, ids, 3, &n, &err));
  CHECK_EQ_INT(n, 0);
  const char *p;
  size_t pl;
  CHECK_STATUS(pte_tokenizer_decode(t, -1, 279, &p, &pl, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(pte_tokenizer_decode(t, -1, -1, &p, &pl, &err), PTE_ERR_INVALID_ARGUMENT);
  CHECK_CONTAINS(err.msg, "token id -1");
  pte_tokenizer_free(t);
  pte_tokenizer_free(NULL);
  CHECK_STATUS(pte_tokenizer_load("/nonexistent/tokenizer.json", &t, &err), PTE_ERR_ACCESS_FAILED);
  CHECK_CONTAINS(err.msg, "/nonexistent/tokenizer.json");
}

/* pte_tokenizer_load recognises the tiktoken encodings by their rank count and adds their special
 * tokens (ids after the ranks, as tiktoken's cl100k_base / o200k_base / gpt2 and Llama 3's
 * tokenizer.model define them). Synthetic rank files of those sizes: the 256 bytes, then distinct
 * 4-byte tokens. */
static char *synthetic_ranks(size_t nranks, size_t *len) {
  sbuf s = {0};
  char line[64], enc[16];
  for (size_t r = 0; r < nranks; r++) {
    uint8_t tok[4] = {(uint8_t)r, 0, 0, 0};
    size_t tl = 1;
    if (r >= 256) tok[0] = 1, tok[1] = (uint8_t)(r >> 16), tok[2] = (uint8_t)(r >> 8), tok[3] = (uint8_t)r, tl = 4;
    b64(tok, tl, enc);
    snprintf(line, sizeof line, "%s %zu\n", enc, r);
    sb_str(&s, line);
  }
  *len = s.n;
  return s.p;
}

TEST(tiktoken_known_encodings_by_rank_count) {
  static const struct {
    size_t nranks;
    int32_t bos, eos, vocab, special_id;
    const char *special;
  } k[] = {{100256, -1, 100257, 100277, 100276, "<|endofprompt|>"},
           {199998, -1, 199999, 200019, 200018, "<|endofprompt|>"},
           {128000, 128000, 128001, 128256, 128009, "<|eot_id|>"},
           {50256, -1, 50256, 50257, 50256, "<|endoftext|>"}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    size_t len;
    char *file = synthetic_ranks(k[i].nranks, &len);
    pte_tokenizer *t = NULL;
    pte_error_info err = {0};
    pte_status s = pte_tokenizer_load_bytes(file, len, "ranks", &t, &err);
    free(file);
    CHECK_MSG(s == PTE_OK, "%zu ranks: %s", k[i].nranks, err.msg);
    int ok = pte_tokenizer_kind_of(t) == PTE_TOKENIZER_TIKTOKEN && pte_tokenizer_bos_id(t) == k[i].bos &&
             pte_tokenizer_eos_id(t) == k[i].eos && pte_tokenizer_vocab_size(t) == (size_t)k[i].vocab;
    int32_t ids[8];
    size_t n = 0;
    char text[64];
    snprintf(text, sizeof text, "a%s", k[i].special);
    ok = ok && pte_tokenizer_encode(t, text, strlen(text), 0, ids, 8, &n, &err) == PTE_OK && n == 2 && ids[0] == 'a' &&
         ids[1] == k[i].special_id;
    pte_tokenizer_free(t);
    CHECK_MSG(ok, "%zu ranks: bos/eos/vocab/special not those of the encoding (%s)", k[i].nranks, err.msg);
  }
}

/* The file path API gives the same as the bytes API. */
TEST(load_from_file) {
  size_t len;
  char *json = llama3_json(&len);
  const char *path = test_tmp_path("tok_llama3_subset.json");
  int w = test_write_file(path, json, len);
  free(json);
  CHECK(w == 0);
  pte_tokenizer *t = NULL;
  pte_error_info err = {0};
  CHECK_MSG(pte_tokenizer_load(path, &t, &err) == PTE_OK, "%s", err.msg);
  ENC(t, "hello world", PTE_TOK_ADD_BOS, 128000, 15339, 1917);
done:
  pte_tokenizer_free(t);
}

int main(void) {
  RUN(tiktoken_cl100k_published);
  RUN(tiktoken_llama3_published);
  RUN(tiktoken_gpt2_published);
  RUN(tiktoken_rs_published);
  RUN(hf_gpt2_toy_published);
  RUN(hf_llama3_layout_published);
  RUN(spm_hand_derived);
  RUN(long_inputs);
  RUN(cap_and_arguments);
  RUN(load_from_file);
  RUN(tiktoken_known_encodings_by_rank_count);
  return test_summary();
}
