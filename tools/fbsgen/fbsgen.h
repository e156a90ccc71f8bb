/* fbsgen.h — the schema model and the interfaces between the files of fbsgen (host tool):
 * fbsgen_util.c (memory, text buffers, files, scalar base types), fbsgen_parse.c (lexer, parser),
 * fbsgen_layout.c (name resolution, slots, struct layout, default values), fbsgen_gen.c (the C
 * generators), fbsgen.c (command line). */
#ifndef PTE_TOOLS_FBSGEN_H
#define PTE_TOOLS_FBSGEN_H

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- utilities (fbsgen_util.c) */

/* Growable text buffer. */
typedef struct Buf {
  char *p;
  size_t len, cap;
} Buf;

_Noreturn void die(const char *fmt, ...);
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void bputs(Buf *b, const char *s);
void bprintf(Buf *b, const char *fmt, ...);
char *read_text(const char *path);
void write_text(const char *path, const Buf *b);
const char *path_base(const char *path);
char *path_dir(const char *path);
char *strip_ext(const char *name);

#define GROW(arr, n, cap)                                   \
  do {                                                      \
    if ((n) >= (cap)) {                                     \
      (cap) = (cap) ? (cap) * 2 : 8;                        \
      (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr)); \
    }                                                       \
  } while (0)


/* ---- schema model */

enum Base {
  B_NONE = 0,
  B_BOOL,
  B_I8,
  B_U8,
  B_I16,
  B_U16,
  B_I32,
  B_U32,
  B_I64,
  B_U64,
  B_F32,
  B_F64,
  B_STRING,
  B_VECTOR,
  B_NAMED, /* enum, union, table or struct (see Type.def) */
  B_UTYPE  /* the u8 tag slot of a union field (synthesised) */
};


enum DefKind { K_ENUM = 1, K_UNION, K_TABLE, K_STRUCT };

typedef struct Def Def;
typedef struct FileInfo FileInfo;

typedef struct Type {
  int base;      /* enum Base */
  int elem;      /* for B_VECTOR: base of the element (B_NAMED for defs) */
  Def *def;      /* for B_NAMED (or a vector of B_NAMED) */
  char *ref;     /* unresolved name */
  const char *ns;/* namespace the reference was written in */
} Type;

typedef struct EnumVal {
  char *name;
  int64_t sv;      /* value (as signed) */
  uint64_t uv;     /* value (as unsigned) */
  char *type_ref;  /* union member type name (NULL: same as name) */
  Def *member;     /* union member table */
} EnumVal;

typedef struct Field {
  char *name;
  Type type;
  char *def_text; /* default as written (NULL: none) */
  bool deprecated, required;
  unsigned force_align;
  long id;       /* -1: none */
  int slot;      /* tables: vtable slot (for unions: the value slot) */
  unsigned offset; /* structs: byte offset */
  int line;
} Field;

struct Def {
  int kind;
  char *name;
  char *ns;   /* "" for the global namespace */
  char *full; /* ns.name */
  int base;   /* enums: underlying type */
  bool bit_flags;
  EnumVal *vals;
  int nvals, capvals;
  Field *fields;
  int nfields, capfields;
  unsigned size, align; /* structs */
  unsigned force_align; /* structs: force_align attribute */
  FileInfo *file;
  int line;
  bool laid_out, laying_out;
  char *cname; /* "<prefix>_<name>" (set on first use) */
};

struct FileInfo {
  char *path;
  char *stem;   /* file name without .fbs */
  char *prefix; /* from `// fbsgen: prefix X` */
  bool is_main;
  char *ident, *ext, *root;
  char *root_ns;
  int order;
};

extern Def **g_defs;
extern int g_ndefs, g_capdefs;
extern FileInfo **g_files;
extern int g_nfiles, g_capfiles;
extern char **g_incdirs;
extern int g_nincdirs, g_capincdirs;

static inline bool base_is_scalar(int b) { return b >= B_BOOL && b <= B_F64; }
static inline bool base_is_int(int b) { return b >= B_I8 && b <= B_U64; }
static inline bool base_is_signed(int b) { return b == B_I8 || b == B_I16 || b == B_I32 || b == B_I64; }
static inline bool base_is_float(int b) { return b == B_F32 || b == B_F64; }
static inline bool is_ident_char(int c) { return isalnum(c) || c == '_'; }

unsigned base_size(int b);
const char *base_ctype(int b);
const char *base_fn(int b);
const char *base_kind(int b);

/* ---- fbsgen_parse.c */
bool parse_int_literal(const char *s, bool *neg, uint64_t *mag);
FileInfo *parse_file(const char *path, bool is_main);

/* ---- fbsgen_layout.c */
Def *lookup(const char *name, const char *ns);
void resolve_all(void);
int scalar_base(const Type *t);
void int_literal(char *out, size_t n, int b, bool neg, uint64_t mag);
void default_expr(const Def *owner, const Field *f, char *out, size_t n);

/* ---- fbsgen_gen.c */
typedef struct NameSet {
  char **n;
  int len, cap;
} NameSet;
extern const char *g_prefix; /* --prefix of the main schema */
const char *cname(const Def *cd);
char *upper_ident(const char *s);
void gen_enum_h(Buf *h, Def *d, NameSet *names);
void gen_enum_c(Buf *c, Buf *j, Def *d);
void gen_struct_h(Buf *h, Def *d, NameSet *names);
void gen_struct_c(Buf *c, Def *d);
int n_desc(const Def *d);
void gen_table_h(Buf *h, Def *d, NameSet *names);
void gen_table_c(Buf *c, Buf *j, Def *d);

#endif
