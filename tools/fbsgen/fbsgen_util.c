#define _POSIX_C_SOURCE 200809L
/* fbsgen_util.c — memory, text buffers, files, the model's globals and scalar base types. */
#include "fbsgen.h"

void die(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "fbsgen: error: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

void *xmalloc(size_t n) {
  void *p = calloc(1, n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

char *xstrdup(const char *s) {
  size_t n = strlen(s);
  char *p = xmalloc(n + 1);
  memcpy(p, s, n + 1);
  return p;
}

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}



void bputs(Buf *b, const char *s) {
  size_t n = strlen(s);
  if (b->len + n + 1 > b->cap) {
    while (b->len + n + 1 > b->cap) b->cap = b->cap ? b->cap * 2 : 4096;
    b->p = xrealloc(b->p, b->cap);
  }
  memcpy(b->p + b->len, s, n + 1);
  b->len += n;
}

void bprintf(Buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) die("format error");
  if ((size_t)n < sizeof tmp) {
    bputs(b, tmp);
    return;
  }
  char *big = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  bputs(b, big);
  free(big);
}

char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    if (memchr(chunk, 0, n)) die("%s: NUL byte in schema", path);
    bputs(&b, chunk);
  }
  fclose(f);
  if (!b.p) bputs(&b, "");
  return b.p;
}

void write_text(const char *path, const Buf *b) {
  /* Always rewritten (so the build system sees fresh outputs). */
  FILE *f = fopen(path, "wb");
  if (!f) die("cannot write %s: %s", path, strerror(errno));
  if (b->len && fwrite(b->p, 1, b->len, f) != b->len) die("cannot write %s", path);
  if (fclose(f) != 0) die("cannot write %s", path);
}

const char *path_base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

char *path_dir(const char *path) {
  const char *s = strrchr(path, '/');
  if (!s) return xstrdup(".");
  return xstrndup(path, (size_t)(s - path));
}

char *strip_ext(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot ? xstrndup(name, (size_t)(dot - name)) : xstrdup(name);
}


Def **g_defs;
int g_ndefs, g_capdefs;
FileInfo **g_files;
int g_nfiles, g_capfiles;
char **g_incdirs;
int g_nincdirs, g_capincdirs;

unsigned base_size(int b) {
  switch (b) {
    case B_BOOL: case B_I8: case B_U8: case B_UTYPE: return 1;
    case B_I16: case B_U16: return 2;
    case B_I32: case B_U32: case B_F32: return 4;
    case B_I64: case B_U64: case B_F64: return 8;
    default: return 4; /* offsets */
  }
}

const char *base_ctype(int b) {
  switch (b) {
    case B_BOOL: return "bool";
    case B_I8: return "int8_t";
    case B_U8: case B_UTYPE: return "uint8_t";
    case B_I16: return "int16_t";
    case B_U16: return "uint16_t";
    case B_I32: return "int32_t";
    case B_U32: return "uint32_t";
    case B_I64: return "int64_t";
    case B_U64: return "uint64_t";
    case B_F32: return "float";
    case B_F64: return "double";
    default: return "?";
  }
}

/* Suffix of the pte_fb_get_* / pte_fb_add_* functions. */
const char *base_fn(int b) {
  switch (b) {
    case B_BOOL: return "bool";
    case B_I8: return "i8";
    case B_U8: case B_UTYPE: return "u8";
    case B_I16: return "i16";
    case B_U16: return "u16";
    case B_I32: return "i32";
    case B_U32: return "u32";
    case B_I64: return "i64";
    case B_U64: return "u64";
    case B_F32: return "f32";
    case B_F64: return "f64";
    default: return "?";
  }
}

/* pte_fbgen_kind constant name (src/format/fb_json.h). */
const char *base_kind(int b) {
  switch (b) {
    case B_BOOL: return "PTE_FBGEN_BOOL";
    case B_I8: return "PTE_FBGEN_I8";
    case B_U8: return "PTE_FBGEN_U8";
    case B_I16: return "PTE_FBGEN_I16";
    case B_U16: return "PTE_FBGEN_U16";
    case B_I32: return "PTE_FBGEN_I32";
    case B_U32: return "PTE_FBGEN_U32";
    case B_I64: return "PTE_FBGEN_I64";
    case B_U64: return "PTE_FBGEN_U64";
    case B_F32: return "PTE_FBGEN_F32";
    case B_F64: return "PTE_FBGEN_F64";
    case B_STRING: return "PTE_FBGEN_STRING";
    case B_UTYPE: return "PTE_FBGEN_UNION_TYPE";
    default: return "PTE_FBGEN_NONE";
  }
}
