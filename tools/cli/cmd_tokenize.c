/* pte tokenize FILE --text T [--bos] [--eos] [--decode IDS] [--json] — encode text with a
 * tokenizer file (tokenizer.json, llama2.c tokenizer.bin, tiktoken ranks) or decode ids. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "pte/tokenizer.h"

static void help(FILE *f) {
  fprintf(f,
          "usage: pte tokenize FILE (--text TEXT | --decode IDS) [--bos] [--eos] [--json]\n"
          "\n"
          "Encodes TEXT with the tokenizer in FILE (format detected from its content: a Hugging Face\n"
          "tokenizer.json with a byte-level BPE model, llama2.c's tokenizer.bin, or a tiktoken ranks\n"
          "file), printing the ids and their pieces; or decodes IDS back to text.\n"
          "\n"
          "  --text TEXT     text to encode (UTF-8)\n"
          "  --decode IDS    ids to decode, separated by commas or spaces\n"
          "  --bos, --eos    add the tokenizer's BOS / EOS token when encoding\n"
          "  --json          print one JSON object\n"
          "  -h, --help      this help\n");
}

static const char *kind_name(pte_tokenizer_kind k) {
  switch (k) {
    case PTE_TOKENIZER_HF_BPE: return "hf-bpe";
    case PTE_TOKENIZER_SPM_BIN: return "llama2c-bin";
    case PTE_TOKENIZER_TIKTOKEN: return "tiktoken";
    default: return "unknown";
  }
}

/* Printable form of a piece for the text output: C-style escapes for control and non-UTF-8 bytes. */
static void print_piece(const char *p, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    size_t k = c >= 0x80 ? jw_utf8_len((const unsigned char *)p + i, n - i) : 0;
    if (k) {
      fwrite(p + i, 1, k, stdout);
      i += k - 1;
    } else if (c == '\n') fputs("\\n", stdout);
    else if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20 || c >= 0x7f) printf("\\x%02x", c);
    else putchar(c);
  }
  putchar('"');
}

static int parse_ids(const char *s, int32_t **ids, size_t *n) {
  size_t cap = 16;
  *n = 0;
  *ids = malloc(cap * sizeof **ids);
  if (!*ids) return -1;
  while (*s) {
    while (*s == ',' || *s == ' ') s++;
    if (!*s) break;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno || v < INT32_MIN || v > INT32_MAX || (*end && *end != ',' && *end != ' ')) return -1;
    if (*n == cap) {
      cap *= 2;
      int32_t *p = realloc(*ids, cap * sizeof *p);
      if (!p) return -1;
      *ids = p;
    }
    (*ids)[(*n)++] = (int32_t)v;
    s = end;
  }
  return 0;
}

static int run_tokenize(int argc, char **argv) {
  const char *file = NULL, *text = NULL, *decode = NULL;
  unsigned flags = 0;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help(stdout);
      return PTE_EXIT_OK;
    } else if (!strcmp(a, "--text") || !strcmp(a, "--decode")) {
      if (!v) {
        fprintf(stderr, "pte tokenize: %s needs a value\n", a);
        return PTE_EXIT_USAGE;
      }
      if (a[2] == 't') text = v;
      else decode = v;
      i++;
    } else if (!strcmp(a, "--bos")) {
      flags |= PTE_TOK_ADD_BOS;
    } else if (!strcmp(a, "--eos")) {
      flags |= PTE_TOK_ADD_EOS;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "pte tokenize: unknown option '%s'\n", a);
      return PTE_EXIT_USAGE;
    } else if (!file) {
      file = a;
    } else {
      fprintf(stderr, "pte tokenize: more than one tokenizer file given\n");
      return PTE_EXIT_USAGE;
    }
  }
  if (!file || (!text) == (!decode)) {
    fprintf(stderr, "pte tokenize: %s\n", !file ? "no tokenizer file given" : "give exactly one of --text and --decode");
    return PTE_EXIT_USAGE;
  }
  pte_error_info err;
  memset(&err, 0, sizeof err);
  pte_tokenizer *t = NULL;
  pte_status s = pte_tokenizer_load(file, &t, &err);
  if (s != PTE_OK) {
    fprintf(stderr, "pte tokenize: %s (0x%02x): %s\n", pte_status_name(s), (unsigned)s, err.msg);
    return PTE_EXIT_FAIL;
  }
  int32_t *ids = NULL;
  size_t n = 0;
  int rc = PTE_EXIT_OK;
  if (text) {
    size_t len = strlen(text), cap = len + 3;
    ids = malloc(cap * sizeof *ids);
    if (!ids) s = pte_error_set(&err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
    else s = pte_tokenizer_encode(t, text, len, flags, ids, cap, &n, &err);
  } else if (parse_ids(decode, &ids, &n) != 0) {
    fprintf(stderr, "pte tokenize: --decode: '%s' is not a list of ids\n", decode);
    free(ids);
    pte_tokenizer_free(t);
    return PTE_EXIT_USAGE;
  }
  /* the pieces (also checks every id) */
  const char **pieces = s == PTE_OK ? calloc(n ? n : 1, sizeof *pieces) : NULL;
  size_t *plen = s == PTE_OK ? calloc(n ? n : 1, sizeof *plen) : NULL;
  if (s == PTE_OK && (!pieces || !plen)) s = pte_error_set(&err, PTE_ERR_MEMORY_ALLOCATION_FAILED, "out of memory");
  for (size_t i = 0; s == PTE_OK && i < n; i++) s = pte_tokenizer_decode(t, i ? ids[i - 1] : -1, ids[i], &pieces[i], &plen[i], &err);
  if (s != PTE_OK) {
    fprintf(stderr, "pte tokenize: %s (0x%02x): %s\n", pte_status_name(s), (unsigned)s, err.msg);
    rc = PTE_EXIT_FAIL;
  } else if (json) {
    jsonw w;
    jw_init(&w, stdout);
    jw_obj(&w);
    jw_kstr(&w, "tokenizer", file);
    jw_kstr(&w, "format", kind_name(pte_tokenizer_kind_of(t)));
    jw_kuint(&w, "vocab_size", pte_tokenizer_vocab_size(t));
    jw_kint(&w, "bos_id", pte_tokenizer_bos_id(t));
    jw_kint(&w, "eos_id", pte_tokenizer_eos_id(t));
    jw_key(&w, "ids");
    jw_arr(&w);
    for (size_t i = 0; i < n; i++) jw_int(&w, ids[i]);
    jw_arr_end(&w);
    jw_key(&w, "pieces");
    jw_arr(&w);
    for (size_t i = 0; i < n; i++) jw_strn(&w, pieces[i], plen[i]);
    jw_arr_end(&w);
    if (decode) {
      /* the text as one string (pieces may split UTF-8 sequences) */
      size_t total = 0;
      for (size_t i = 0; i < n; i++) total += plen[i];
      char *all = malloc(total + 1);
      if (all) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) memcpy(all + o, pieces[i], plen[i]), o += plen[i];
        jw_key(&w, "text");
        jw_strn(&w, all, total);
        free(all);
      }
    }
    jw_obj_end(&w);
    jw_end(&w);
  } else if (decode) {
    for (size_t i = 0; i < n; i++) fwrite(pieces[i], 1, plen[i], stdout);
    putchar('\n');
  } else {
    printf("%s: %s, vocab %zu, bos %d, eos %d\n", file, kind_name(pte_tokenizer_kind_of(t)), pte_tokenizer_vocab_size(t),
           (int)pte_tokenizer_bos_id(t), (int)pte_tokenizer_eos_id(t));
    printf("%zu ids:", n);
    for (size_t i = 0; i < n; i++) printf(" %d", (int)ids[i]);
    printf("\npieces:");
    for (size_t i = 0; i < n; i++) {
      putchar(' ');
      print_piece(pieces[i], plen[i]);
    }
    putchar('\n');
  }
  free(pieces);
  free(plen);
  free(ids);
  pte_tokenizer_free(t);
  return rc;
}

const pte_cli_verb pte_cli_verb_tokenize = {"tokenize", "encode text / decode ids with a tokenizer file (tokenizer.json, tokenizer.bin, tiktoken)",
                                            run_tokenize};
