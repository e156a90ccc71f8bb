#define _POSIX_C_SOURCE 200809L
/* libFuzzer target: tokenizer files (pte/tokenizer.h) of any format from untrusted bytes, then
 * encode/decode with the loaded tokenizer, and the pre-tokenizer patterns on arbitrary text.
 * First input byte: bit 0 = load as a tiktoken file with caller options, bits 1-2 = the pattern
 * used for the direct pre-tokenizer run; the rest is the file (and, for encode, also the text). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "llm/tok_regex/pretokenize.h"
#include "pte/tokenizer.h"

static volatile uint32_t fz_tok_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t mode = data[0];
  uint8_t *buf = fz_aligned_copy(data + 1, size - 1);
  if (!buf) return 0;
  size_t n = size - 1;
  /* the pre-tokenizer alone: every pre-token advances and stays inside the text */
  pte_pretok_kind k = (pte_pretok_kind)(1 + ((mode >> 1) & 3));
  for (size_t pos = 0; pos < n;) {
    size_t e = pte_pretok_next(k, (const char *)buf, n, pos);
    if (e <= pos || e > n) abort();
    pos = e;
  }
  pte_tokenizer *t = NULL;
  pte_error_info err;
  pte_status s;
  if (mode & 1) {
    static const char *const sp[] = {"<|endoftext|>", "<s>", "</s>"};
    pte_tiktoken_options opt = {(mode & 8) ? "gpt2" : "o200k", sp, 3, -1, 1, 2};
    s = pte_tokenizer_load_tiktoken(buf, n, "fuzz", &opt, &t, &err);
  } else {
    s = pte_tokenizer_load_bytes(buf, n, "fuzz", &t, &err);
  }
  if (s == PTE_OK) {
    static const char *const texts[] = {"Hello world", " \302\2050 'S 'll\n\n  x", "<s>a</s><|endoftext|>",
                                        "\xF0\x9F\x91\x8D\xE2\x82", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0000000000"};
    int32_t ids[512];
    for (size_t i = 0; i < sizeof texts / sizeof *texts + 1; i++) {
      const char *txt = i < sizeof texts / sizeof *texts ? texts[i] : (const char *)buf;
      size_t len = i < sizeof texts / sizeof *texts ? strlen(txt) : (n < 256 ? n : 256);
      size_t m = 0;
      unsigned flags = (unsigned)i & 3;
      if (pte_tokenizer_bos_id(t) < 0) flags &= ~PTE_TOK_ADD_BOS;
      if (pte_tokenizer_eos_id(t) < 0) flags &= ~PTE_TOK_ADD_EOS;
      if (pte_tokenizer_encode(t, txt, len, flags, ids, 512, &m, &err) != PTE_OK) continue;
      for (size_t j = 0; j < m; j++) {
        const char *p;
        size_t pl;
        if (pte_tokenizer_decode(t, j ? ids[j - 1] : -1, ids[j], &p, &pl, &err) != PTE_OK) abort(); /* own ids decode */
        if (pl) fz_tok_sink += (uint8_t)p[0] + (uint8_t)p[pl - 1];
      }
    }
    size_t vs = pte_tokenizer_vocab_size(t);
    for (int32_t id = -1; id < 300; id++) {
      const char *p;
      size_t pl;
      if (pte_tokenizer_decode(t, id - 1, id, &p, &pl, &err) == PTE_OK && pl) fz_tok_sink += (uint8_t)p[pl - 1];
    }
    (void)pte_tokenizer_decode(t, -1, (int32_t)vs, &(const char *){0}, &(size_t){0}, &err);
    pte_tokenizer_free(t);
  }
  free(buf);
  return 0;
}
