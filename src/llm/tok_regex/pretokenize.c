/* src/llm/tok_regex/pretokenize.c — hand-written matchers for the pre-tokenizer split patterns.
 *
 * Each matcher tries the pattern's alternatives in order at one position and returns the end of
 * the first that matches, reproducing the backtracking a regex engine does for these particular
 * patterns (see the comment at each alternative). */
#include "tok_regex/pretokenize.h"

#include <string.h>

static const char pt_gpt2[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char pt_cl100k[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";
static const char pt_qwen2[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
    "\\s+(?!\\S)|\\s+";
static const char pt_o200k[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

pte_pretok_kind pte_pretok_from_pattern(const char *p, size_t len) {
  static const struct {
    const char *s;
    pte_pretok_kind k;
  } known[] = {{pt_gpt2, PTE_PRETOK_GPT2}, {pt_cl100k, PTE_PRETOK_CL100K}, {pt_qwen2, PTE_PRETOK_QWEN2},
               {pt_o200k, PTE_PRETOK_O200K}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i].s) == len && memcmp(known[i].s, p, len) == 0) return known[i].k;
  return PTE_PRETOK_NONE;
}

const char *pte_pretok_pattern(pte_pretok_kind k) {
  switch (k) {
    case PTE_PRETOK_GPT2: return pt_gpt2;
    case PTE_PRETOK_CL100K: return pt_cl100k;
    case PTE_PRETOK_QWEN2: return pt_qwen2;
    case PTE_PRETOK_O200K: return pt_o200k;
    default: return "";
  }
}

int pte_uc_class(uint32_t cp) {
  if (cp < 0x80) {
    if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return cp >= 'a' ? PTE_UC_LL : PTE_UC_LU;
    if (cp >= '0' && cp <= '9') return PTE_UC_N;
    return PTE_UC_OTHER;
  }
  size_t lo = 0, hi = pte_uc_range_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cp < pte_uc_ranges[mid].lo) hi = mid;
    else if (cp > pte_uc_ranges[mid].hi) lo = mid + 1;
    else return pte_uc_ranges[mid].cls;
  }
  return PTE_UC_OTHER;
}

int pte_uc_is_space(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  if (cp < 0x85) return 0;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

size_t pte_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t need;
  uint32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) need = 1, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) need = 2, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) need = 3, v = c & 0x07, min = 0x10000;
  else goto bad;
  if (n < need + 1) goto bad;
  for (size_t i = 1; i <= need; i++) {
    if ((s[i] & 0xC0) != 0x80) goto bad;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) goto bad;
  *cp = v;
  return need + 1;
bad:
  *cp = 0xFFFFFFFFu;
  return 1;
}

/* A cursor over the text: the code point at pos and its length (cp = NONE past the end). */
#define PT_NONE 0xFFFFFFFEu
typedef struct pt_text {
  const unsigned char *s;
  size_t n;
} pt_text;

static uint32_t pt_at(const pt_text *t, size_t pos, size_t *len) {
  if (pos >= t->n) {
    *len = 0;
    return PT_NONE;
  }
  uint32_t cp;
  *len = pte_utf8_decode(t->s + pos, t->n - pos, &cp);
  return cp;
}

static int pt_is_l(uint32_t c) {
  int k = pte_uc_class(c);
  return k >= PTE_UC_LU && k <= PTE_UC_LO;
}
static int pt_is_n(uint32_t c) { return pte_uc_class(c) == PTE_UC_N; }
static int pt_is_s(uint32_t c) { return c != PT_NONE && pte_uc_is_space(c); }
/* [^\s\p{L}\p{N}] */
static int pt_is_p(uint32_t c) { return c != PT_NONE && !pte_uc_is_space(c) && !pt_is_l(c) && !pt_is_n(c); }
/* [^\r\n\p{L}\p{N}] */
static int pt_is_pre(uint32_t c) { return c != PT_NONE && c != '\r' && c != '\n' && !pt_is_l(c) && !pt_is_n(c); }
/* o200k's classes: A = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], B = [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
static int pt_is_a(uint32_t c) {
  int k = pte_uc_class(c);
  return k == PTE_UC_LU || k == PTE_UC_LT || k == PTE_UC_LM || k == PTE_UC_LO || k == PTE_UC_M;
}
static int pt_is_b(uint32_t c) {
  int k = pte_uc_class(c);
  return k == PTE_UC_LL || k == PTE_UC_LM || k == PTE_UC_LO || k == PTE_UC_M;
}

/* End of the run of characters satisfying pred from pos (pos itself when none). */
static size_t pt_run(const pt_text *t, size_t pos, int (*pred)(uint32_t)) {
  size_t l;
  for (;;) {
    uint32_t c = pt_at(t, pos, &l);
    if (c == PT_NONE || !pred(c)) return pos;
    pos += l;
  }
}

/* Contractions 's 't 're 've 'm 'll 'd at pos; ci = ASCII case-insensitive. Returns the end or 0. */
static size_t pt_contraction(const pt_text *t, size_t pos, int ci) {
  if (pos + 1 >= t->n || t->s[pos] != '\'') return 0;
  unsigned a = t->s[pos + 1];
  /* (?i) folds with Unicode simple case folding: 's' also matches U+017F LATIN SMALL LETTER LONG S */
  if (ci && a == 0xC5 && pos + 2 < t->n && t->s[pos + 2] == 0xBF) return pos + 3;
  if (ci && a >= 'A' && a <= 'Z') a += 32;
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return pos + 2;
  if (pos + 2 >= t->n) return 0;
  unsigned b = t->s[pos + 2];
  if (ci && b >= 'A' && b <= 'Z') b += 32;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return pos + 3;
  return 0;
}

/* \s+(?!\S) then \s+ at pos (a whitespace character): the run, giving back its last character
 * when a non-space follows and the run has more than one character. */
static size_t pt_space_tail(const pt_text *t, size_t pos) {
  size_t l, last = pos, p = pos;
  for (;;) {
    uint32_t c = pt_at(t, p, &l);
    if (!pt_is_s(c)) break;
    last = p;
    p += l;
  }
  if (p >= t->n) return p;   /* \s+(?!\S) at the end of the text */
  if (last > pos) return last; /* \s+(?!\S) backs off one character */
  return p;                    /* \s+ */
}

/* \s*[\r\n]+ at pos: the whitespace run up to and including its last \r or \n; 0 when none. */
static size_t pt_space_newlines(const pt_text *t, size_t pos) {
  size_t l, p = pos, end = 0;
  for (;;) {
    uint32_t c = pt_at(t, p, &l);
    if (!pt_is_s(c)) break;
    p += l;
    if (c == '\r' || c == '\n') end = p;
  }
  return end;
}

static size_t pt_gpt2_next(const pt_text *t, size_t pos) {
  size_t l0, l1, e;
  if ((e = pt_contraction(t, pos, 0))) return e;
  uint32_t c0 = pt_at(t, pos, &l0);
  uint32_t c1 = pt_at(t, pos + l0, &l1);
  /* ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+': with the space when the class follows it */
  if (pt_is_l(c0)) return pt_run(t, pos, pt_is_l);
  if (c0 == ' ' && pt_is_l(c1)) return pt_run(t, pos + 1, pt_is_l);
  if (pt_is_n(c0)) return pt_run(t, pos, pt_is_n);
  if (c0 == ' ' && pt_is_n(c1)) return pt_run(t, pos + 1, pt_is_n);
  if (pt_is_p(c0)) return pt_run(t, pos, pt_is_p);
  if (c0 == ' ' && pt_is_p(c1)) return pt_run(t, pos + 1, pt_is_p);
  if (pt_is_s(c0)) return pt_space_tail(t, pos);
  return pos + l0;
}

static int pt_is_crlf(uint32_t c) { return c == '\r' || c == '\n'; }
static int pt_is_crlf_slash(uint32_t c) { return c == '\r' || c == '\n' || c == '/'; }

/* ' ?[^\s\p{L}\p{N}]+' followed by a run of tail characters; 0 when it does not match. */
static size_t pt_punct(const pt_text *t, size_t pos, uint32_t c0, size_t l0, int (*tail)(uint32_t)) {
  size_t l1;
  size_t p = pos;
  if (c0 == ' ' && pt_is_p(pt_at(t, pos + l0, &l1))) p = pos + l0;
  else if (!pt_is_p(c0)) return 0;
  p = pt_run(t, p, pt_is_p);
  return pt_run(t, p, tail);
}

static size_t pt_cl100k_next(const pt_text *t, size_t pos, unsigned max_digits) {
  size_t l0, l1, e;
  if ((e = pt_contraction(t, pos, 1))) return e;
  uint32_t c0 = pt_at(t, pos, &l0);
  /* [^\r\n\p{L}\p{N}]?\p{L}+ (a letter cannot be the optional prefix, so the cases are disjoint) */
  if (pt_is_l(c0)) return pt_run(t, pos, pt_is_l);
  if (pt_is_pre(c0) && pt_is_l(pt_at(t, pos + l0, &l1))) return pt_run(t, pos + l0, pt_is_l);
  /* \p{N}{1,max} */
  if (pt_is_n(c0)) {
    size_t p = pos;
    for (unsigned k = 0; k < max_digits; k++) {
      uint32_t c = pt_at(t, p, &l1);
      if (!pt_is_n(c)) break;
      p += l1;
    }
    return p;
  }
  if ((e = pt_punct(t, pos, c0, l0, pt_is_crlf))) return e;
  if (pt_is_s(c0)) {
    if ((e = pt_space_newlines(t, pos))) return e;
    return pt_space_tail(t, pos);
  }
  return pos + l0;
}

/* o200k: A*B+ from p (greedy A*, backing off until B+ can match); 0 when it cannot. */
static size_t pt_o200k_ab(const pt_text *t, size_t p) {
  size_t l;
  size_t a_end = pt_run(t, p, pt_is_a);
  uint32_t c = pt_at(t, a_end, &l);
  if (pt_is_b(c)) return pt_run(t, a_end, pt_is_b);
  /* back off: the last character of the A run that is also in B ends the match */
  size_t q = p, best = 0;
  while (q < a_end) {
    uint32_t d = pt_at(t, q, &l);
    if (pt_is_b(d)) best = q + l;
    q += l;
  }
  return best;
}

static size_t pt_o200k_letters(const pt_text *t, size_t pos, uint32_t c0, size_t l0, int second) {
  size_t e = 0;
  if (pt_is_pre(c0)) { /* the optional prefix taken first, then without it */
    if (!second) e = pt_o200k_ab(t, pos + l0);
    else if (pt_is_a(pt_at(t, pos + l0, &(size_t){0}))) e = pt_run(t, pt_run(t, pos + l0, pt_is_a), pt_is_b);
  }
  if (!e) {
    if (!second) e = pt_o200k_ab(t, pos);
    else if (pt_is_a(c0)) e = pt_run(t, pt_run(t, pos, pt_is_a), pt_is_b);
  }
  if (!e) return 0;
  size_t c = pt_contraction(t, e, 1);
  return c ? c : e;
}

static size_t pt_o200k_next(const pt_text *t, size_t pos) {
  size_t l0, l1, e;
  uint32_t c0 = pt_at(t, pos, &l0);
  if ((e = pt_o200k_letters(t, pos, c0, l0, 0))) return e;
  if ((e = pt_o200k_letters(t, pos, c0, l0, 1))) return e;
  if (pt_is_n(c0)) {
    size_t p = pos;
    for (unsigned k = 0; k < 3; k++) {
      uint32_t c = pt_at(t, p, &l1);
      if (!pt_is_n(c)) break;
      p += l1;
    }
    return p;
  }
  if ((e = pt_punct(t, pos, c0, l0, pt_is_crlf_slash))) return e;
  if (pt_is_s(c0)) {
    if ((e = pt_space_newlines(t, pos))) return e;
    return pt_space_tail(t, pos);
  }
  return pos + l0;
}

size_t pte_pretok_next(pte_pretok_kind k, const char *text, size_t len, size_t pos) {
  pt_text t = {(const unsigned char *)text, len};
  size_t e;
  switch (k) {
    case PTE_PRETOK_GPT2: e = pt_gpt2_next(&t, pos); break;
    case PTE_PRETOK_CL100K: e = pt_cl100k_next(&t, pos, 3); break;
    case PTE_PRETOK_QWEN2: e = pt_cl100k_next(&t, pos, 1); break;
    case PTE_PRETOK_O200K: e = pt_o200k_next(&t, pos); break;
    default: e = len; break;
  }
  return e > pos ? e : pos + 1;
}
