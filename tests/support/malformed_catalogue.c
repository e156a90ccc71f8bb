#define _POSIX_C_SOURCE 200809L
/* tests/support/malformed_catalogue.c — reading the catalogue (malformed_catalogue.h). */
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

#include "malformed_catalogue.h"

mcase mc_cases[256];
int mc_n_cases;

/* Bounded copy (truncates; always NUL-terminates). */
void mc_copy_str(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = '\0';
}


const char *mc_catalogue_dir(void) {
  static char dir[1024];
  const char *env = getenv("PTE_MALFORMED_DIR");
  if (env) return env;
  /* This file is tests/support/malformed_catalogue.c: the catalogue is ../malformed. */
  snprintf(dir, sizeof dir, "%s", __FILE__);
  char *slash = strrchr(dir, '/');
  if (!slash) return "tests/malformed";
  *slash = '\0';
  slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  strncat(dir, "/malformed", sizeof dir - strlen(dir) - 1);
  return dir;
}

static const struct {
  const char *name;
  pte_status s;
} k_status[] = {
    {"OK", PTE_OK},
    {"INTERNAL", PTE_ERR_INTERNAL},
    {"INVALID_STATE", PTE_ERR_INVALID_STATE},
    {"NOT_SUPPORTED", PTE_ERR_NOT_SUPPORTED},
    {"NOT_IMPLEMENTED", PTE_ERR_NOT_IMPLEMENTED},
    {"INVALID_ARGUMENT", PTE_ERR_INVALID_ARGUMENT},
    {"INVALID_TYPE", PTE_ERR_INVALID_TYPE},
    {"OPERATOR_MISSING", PTE_ERR_OPERATOR_MISSING},
    {"NOT_FOUND", PTE_ERR_NOT_FOUND},
    {"MEMORY_ALLOCATION_FAILED", PTE_ERR_MEMORY_ALLOCATION_FAILED},
    {"ACCESS_FAILED", PTE_ERR_ACCESS_FAILED},
    {"INVALID_PROGRAM", PTE_ERR_INVALID_PROGRAM},
    {"INVALID_EXTERNAL_DATA", PTE_ERR_INVALID_EXTERNAL_DATA},
    {"OUT_OF_RESOURCES", PTE_ERR_OUT_OF_RESOURCES},
    {"DELEGATE_INVALID_COMPATIBILITY", PTE_ERR_DELEGATE_INVALID_COMPATIBILITY},
};

static int parse_status(const char *s, pte_status *out) {
  for (size_t i = 0; i < sizeof k_status / sizeof k_status[0]; i++)
    if (strcmp(s, k_status[i].name) == 0) {
      *out = k_status[i].s;
      return 0;
    }
  return -1;
}

const char *mc_status_word(pte_status s) {
  for (size_t i = 0; i < sizeof k_status / sizeof k_status[0]; i++)
    if (k_status[i].s == s) return k_status[i].name;
  return "?";
}

const char *mc_action_name(action a) {
  switch (a) {
    case A_PROGRAM: return "program";
    case A_METHOD: return "method";
    case A_EXECUTE: return "execute";
    case A_NAMED_DATA: return "named-data";
    case A_PTD: return "ptd";
    case A_BPTE: return "bpte";
    case A_BPTE_PROGRAM: return "bpte-program";
    case A_BPTE_METHOD: return "bpte-method";
    case A_XNN: return "xnn";
  }
  return "?";
}

/* Header fields: eh00.* at byte 8 of a .pte; fh01.* at byte 8 of a .ptd. */
int mc_header_field(const char *name, uint64_t *off, int *width) {
  static const struct {
    const char *n;
    uint64_t off;
    int w;
  } k[] = {{"eh00.header_length", 12, 4},     {"eh00.program_size", 16, 8},      {"eh00.segment_base_offset", 24, 8},
           {"eh00.segment_data_size", 32, 8}, {"fh01.header_length", 12, 4},     {"fh01.flatbuffer_offset", 16, 8},
           {"fh01.flatbuffer_size", 24, 8},   {"fh01.segment_base_offset", 32, 8}, {"fh01.segment_data_size", 40, 8}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(k[i].n, name) == 0) {
      *off = k[i].off;
      *width = k[i].w;
      return 0;
    }
  return -1;
}

/* ================================================================== catalogue parsing */

/* Next token of *s: a "quoted string" or a run of non-blanks. Returns 0 when none. */
static int next_token(const char **s, char *out, size_t cap) {
  const char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p || *p == '\n' || *p == '#') return 0;
  size_t n = 0;
  if (*p == '"') {
    p++;
    while (*p && *p != '"') {
      char c = *p++;
      if (c == '\\' && *p) c = *p++;
      if (n + 1 < cap) out[n++] = c;
    }
    if (*p == '"') p++;
  } else {
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
      if (n + 1 < cap) out[n++] = *p;
      p++;
    }
  }
  out[n] = '\0';
  *s = p;
  return 1;
}

static int parse_int(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  if (s[0] == '-') *out = (int64_t)strtoll(s, &end, 0);
  else *out = (int64_t)strtoull(s, &end, 0);
  return (errno || *end) ? -1 : 0;
}

static int load_catalogue_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int lineno = 0;
  mcase *c = NULL;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    const char *s = line;
    char kw[64], a1[200], a2[200], a3[200];
    if (!next_token(&s, kw, sizeof kw)) continue;
#define BAD(...)                                                       \
  do {                                                                 \
    fprintf(stderr, "%s:%d: ", path, lineno);                          \
    fprintf(stderr, __VA_ARGS__);                                      \
    fputc('\n', stderr);                                               \
    fclose(f);                                                         \
    return -1;                                                         \
  } while (0)
    if (strcmp(kw, "case") == 0) {
      if (mc_n_cases >= (int)(sizeof mc_cases / sizeof mc_cases[0])) BAD("too many cases");
      c = &mc_cases[mc_n_cases++];
      memset(c, 0, sizeof *c);
      if (!next_token(&s, c->id, sizeof c->id)) BAD("case without id");
      snprintf(c->source, sizeof c->source, "%.80s:%d", base, lineno); /* names are short */
      c->segment = -1;
      c->level = -1;
      c->pool = 1u << 20;
      c->max_instructions = 10000;
      c->runs = 1;
      c->bind_outputs = 1;
      c->expect = (pte_status)-1;
      continue;
    }
    if (!c) BAD("'%s' outside a case", kw);
    if (strcmp(kw, "desc") == 0) {
      while (*s == ' ' || *s == '\t') s++;
      mc_copy_str(c->desc, sizeof c->desc, s);
      size_t l = strlen(c->desc);
      while (l && (c->desc[l - 1] == '\n' || c->desc[l - 1] == '\r')) c->desc[--l] = '\0';
    } else if (strcmp(kw, "file") == 0) {
      if (!next_token(&s, c->file, sizeof c->file)) BAD("file needs a name");
      if (next_token(&s, a1, sizeof a1)) {
        int64_t v;
        if (strcmp(a1, "segment") != 0 || !next_token(&s, a2, sizeof a2) || parse_int(a2, &v)) BAD("file X [segment N]");
        c->segment = (int)v;
      }
    } else if (strcmp(kw, "with") == 0) {
      if (!next_token(&s, c->companion, sizeof c->companion)) BAD("with needs a file");
    } else if (strcmp(kw, "truncate") == 0 || strcmp(kw, "append") == 0 || strcmp(kw, "u8") == 0 || strcmp(kw, "u16") == 0 ||
               strcmp(kw, "u32") == 0 || strcmp(kw, "u64") == 0 || strcmp(kw, "bytes") == 0 || strcmp(kw, "set") == 0 ||
               strcmp(kw, "vlen") == 0 || strcmp(kw, "str") == 0) {
      if (c->n_patches >= MAX_PATCHES) BAD("too many patches");
      patch *p = &c->patches[c->n_patches++];
      memset(p, 0, sizeof *p);
      int64_t v;
      if (!next_token(&s, a1, sizeof a1)) BAD("%s needs arguments", kw);
      if (strcmp(kw, "truncate") == 0 || strcmp(kw, "append") == 0) {
        if (parse_int(a1, &v) || v < 0 || v > 4096) BAD("bad size");
        p->op = kw[0] == 't' ? P_TRUNCATE : P_APPEND;
        p->value = v;
        continue;
      }
      if (!next_token(&s, a2, sizeof a2)) BAD("%s needs two arguments", kw);
      if (kw[0] == 'u') { /* u32 @OFFSET VALUE */
        if (a1[0] != '@' || parse_int(a1 + 1, &v)) BAD("raw writes take @OFFSET");
        p->op = P_RAW;
        p->offset = (uint64_t)v;
        p->width = atoi(kw + 1) / 8;
        if (parse_int(a2, &p->value)) BAD("bad value '%s'", a2);
      } else if (strcmp(kw, "bytes") == 0) {
        if (a1[0] != '@' || parse_int(a1 + 1, &v)) BAD("bytes takes @OFFSET");
        p->op = P_BYTES;
        p->offset = (uint64_t)v;
        mc_copy_str(p->text, sizeof p->text, a2);
      } else {
        mc_copy_str(p->path, sizeof p->path, a1);
        if (strcmp(kw, "str") == 0) {
          p->op = P_STR;
          mc_copy_str(p->text, sizeof p->text, a2);
        } else {
          uint64_t ho;
          int hw;
          p->op = strcmp(kw, "vlen") == 0 ? P_VLEN : (mc_header_field(a1, &ho, &hw) == 0 ? P_HDR : P_FIELD);
          if (parse_int(a2, &p->value)) BAD("bad value '%s'", a2);
        }
      }
    } else if (strcmp(kw, "run") == 0) {
      if (!next_token(&s, a1, sizeof a1)) BAD("run needs an entry point");
      if (strcmp(a1, "program") == 0) c->act = A_PROGRAM;
      else if (strcmp(a1, "method") == 0) c->act = A_METHOD;
      else if (strcmp(a1, "execute") == 0) c->act = A_EXECUTE;
      else if (strcmp(a1, "named-data") == 0) c->act = A_NAMED_DATA;
      else if (strcmp(a1, "ptd") == 0) c->act = A_PTD;
      else if (strcmp(a1, "bpte") == 0) c->act = A_BPTE;
      else if (strcmp(a1, "bpte-program") == 0) c->act = A_BPTE_PROGRAM;
      else if (strcmp(a1, "bpte-method") == 0) c->act = A_BPTE_METHOD;
      else if (strcmp(a1, "xnn") == 0) c->act = A_XNN;
      else BAD("unknown entry point '%s'", a1);
      if (c->act == A_METHOD || c->act == A_EXECUTE || c->act == A_BPTE_METHOD) {
        if (!next_token(&s, c->method, sizeof c->method)) BAD("method name missing");
        c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
      }
      if (c->act == A_NAMED_DATA) c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
      while (next_token(&s, a3, sizeof a3)) {
        char *eq = strchr(a3, '=');
        if (!eq) BAD("option '%s' is not key=value", a3);
        *eq = '\0';
        const char *val = eq + 1;
        int64_t v = 0;
        if (strcmp(a3, "level") == 0) {
          if (strcmp(val, "minimal") == 0) c->level = PTE_VERIFY_MINIMAL;
          else if (strcmp(val, "internal") == 0) c->level = PTE_VERIFY_INTERNAL_CONSISTENCY;
          else if (strcmp(val, "both") == 0 && c->act == A_PROGRAM) c->level = -1;
          else BAD("bad level");
        } else if (strcmp(a3, "planned") == 0) {
          if (strcmp(val, "exact") == 0) c->planned = 0;
          else if (strcmp(val, "none") == 0) c->planned = 1;
          else BAD("planned=exact|none");
        } else if (strcmp(a3, "shrink") == 0 && parse_int(val, &v) == 0) {
          c->planned = 2;
          c->shrink = (uint64_t)v;
        } else if (strcmp(a3, "pool") == 0 && parse_int(val, &v) == 0 && v > 0 && v <= (8 << 20)) {
          c->pool = (size_t)v;
        } else if (strcmp(a3, "max_instructions") == 0 && parse_int(val, &v) == 0) {
          c->max_instructions = (uint64_t)v;
        } else if (strcmp(a3, "runs") == 0 && parse_int(val, &v) == 0) {
          c->runs = (int)v;
        } else if (strcmp(a3, "bind_outputs") == 0) {
          c->bind_outputs = strcmp(val, "no") != 0;
        } else {
          BAD("unknown option '%s'", a3);
        }
      }
    } else if (strcmp(kw, "expect") == 0) {
      if (!next_token(&s, a1, sizeof a1) || parse_status(a1, &c->expect)) BAD("expect STATUS \"message\"");
      if (next_token(&s, a2, sizeof a2)) mc_copy_str(c->expect_msg, sizeof c->expect_msg, a2);
      if (c->expect != PTE_OK && !c->expect_msg[0]) BAD("an error expectation needs a message substring");
    } else {
      BAD("unknown keyword '%s'", kw);
    }
#undef BAD
  }
  fclose(f);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int mc_load_catalogue(void) {
  const char *dir = mc_catalogue_dir();
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "cannot open the catalogue directory %s\n", dir);
    return -1;
  }
  char *names[64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 64) {
    size_t l = strlen(e->d_name);
    if (l > 6 && strcmp(e->d_name + l - 6, ".cases") == 0) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  /* Open findings (bugs reported to their owners, tests/malformed/pending/): only on request. */
  if (getenv("PTE_CATALOGUE_PENDING")) {
    char pdir[1200];
    snprintf(pdir, sizeof pdir, "%s/pending", dir);
    DIR *pd = opendir(pdir);
    while (pd && (e = readdir(pd)) != NULL && n < 64) {
      size_t l = strlen(e->d_name);
      if (l > 6 && strcmp(e->d_name + l - 6, ".cases") == 0) {
        char rel[300];
        snprintf(rel, sizeof rel, "pending/%s", e->d_name);
        names[n++] = strdup(rel);
      }
    }
    if (pd) closedir(pd);
  }
  qsort(names, (size_t)n, sizeof names[0], cmp_str);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (load_catalogue_file(path) != 0) rc = -1;
    free(names[i]);
  }
  for (int i = 0; i < mc_n_cases && rc == 0; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(mc_cases[i].id, mc_cases[j].id) == 0) {
        fprintf(stderr, "%s: duplicate case id %s\n", mc_cases[i].source, mc_cases[i].id);
        rc = -1;
      }
    if (!mc_cases[i].act || (int)mc_cases[i].expect < 0 || !mc_cases[i].file[0] || !mc_cases[i].desc[0]) {
      fprintf(stderr, "%s: case %s needs file, desc, run and expect\n", mc_cases[i].source, mc_cases[i].id);
      rc = -1;
    }
  }
  return rc;
}
