#define _POSIX_C_SOURCE 200809L
/* tests/support/fb_path.c — see fb_path.h. */
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

#include "fb_path.h"

const fbp_schema fbp_schema_pte = {pte_et_types, sizeof pte_et_types / sizeof pte_et_types[0],
                                    "executorch_flatbuffer.Program"};
const fbp_schema fbp_schema_ptd = {pte_ft_types, sizeof pte_ft_types / sizeof pte_ft_types[0],
                                    "flat_tensor_flatbuffer.FlatTensor"};
const fbp_schema fbp_schema_bpte = {pte_bp_types, sizeof pte_bp_types / sizeof pte_bp_types[0],
                                     "bundled_program_flatbuffer.BundledProgram"};
const fbp_schema fbp_schema_xnn = {pte_xn_types, sizeof pte_xn_types / sizeof pte_xn_types[0], "fb_xnnpack.XNNGraph"};

static const pte_fbgen_type *find_type(const fbp_schema *sc, const char *name, size_t len) {
  for (size_t i = 0; i < sc->n_types; i++)
    if (sc->types[i].name && strlen(sc->types[i].name) == len && strncmp(sc->types[i].name, name, len) == 0)
      return &sc->types[i];
  return NULL;
}

/* Type of union member `member` when the schema declares it as an alias ("XNNAdd: _XNNNode2x1" in
 * schema/xnnpack.fbs); `member` itself otherwise. Reads $PTE_SCHEMA_DIR/xnnpack.fbs once. */
static const char *union_alias(const char *member, char *buf, size_t cap) {
  static char *text;
  static int loaded;
  if (!loaded) {
    loaded = 1;
    const char *dir = getenv("PTE_SCHEMA_DIR");
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, "%s/xnnpack.fbs", dir ? dir : "schema");
    text = (char *)test_read_file(path, &n); /* NUL-padded by test_read_file; kept for the process */
  }
  if (!text) return member;
  char pat[96];
  snprintf(pat, sizeof pat, "  %s: ", member);
  const char *hit = strstr(text, pat);
  if (!hit) return member;
  hit += strlen(pat);
  size_t i = 0;
  while (hit[i] && hit[i] != ',' && hit[i] != '\n' && hit[i] != ' ' && i + 1 < cap) {
    buf[i] = hit[i];
    i++;
  }
  buf[i] = '\0';
  return buf;
}

static const char *union_member(const char *union_type, uint8_t tag, char *buf, size_t cap) {
  if (strcmp(union_type, "executorch_flatbuffer.KernelTypes") == 0) return pte_et_KernelTypes_name(tag);
  if (strcmp(union_type, "executorch_flatbuffer.InstructionArguments") == 0) return pte_et_InstructionArguments_name(tag);
  if (strcmp(union_type, "bundled_program_flatbuffer.ValueUnion") == 0) return pte_bp_ValueUnion_name(tag);
  const char *m = NULL;
  if (strcmp(union_type, "fb_xnnpack.XNodeUnion") == 0) m = pte_xn_XNodeUnion_name(tag);
  if (strcmp(union_type, "fb_xnnpack.XValueUnion") == 0) m = pte_xn_XValueUnion_name(tag);
  return m ? union_alias(m, buf, cap) : NULL;
}


const char *fbp_resolve(const fbp_schema *sc, const uint8_t *buf, size_t size, const char *path, fbp_resolved *out) {
  static char msg[256];
  const pte_fbgen_type *ty = find_type(sc, sc->root, strlen(sc->root));
  pte_fb_table t = pte_fb_root(buf, size);
  const char *p = path;
  if (!ty || !pte_fb_table_present(t)) return "no root table";
  for (;;) {
    const char *end = p;
    while (*end && *end != '.' && *end != '[') end++;
    size_t nlen = (size_t)(end - p);
    const pte_fbgen_field *f = NULL;
    for (const pte_fbgen_field *g = ty->fields; g->name; g++)
      if (strlen(g->name) == nlen && strncmp(g->name, p, nlen) == 0) f = g;
    if (!f) {
      snprintf(msg, sizeof msg, "%s has no field '%.*s'", ty->name, (int)nlen, p);
      return msg;
    }
    long idx = -1;
    if (*end == '[') {
      idx = strtol(end + 1, (char **)&end, 10);
      if (*end != ']') return "bad index";
      end++;
    }
    int last = *end == '\0';
    uint8_t kind = (uint8_t)(f->kind);
    if (kind == PTE_FBGEN_TABLE || kind == PTE_FBGEN_UNION) {
      const char *tname = f->type;
      size_t tlen = strlen(tname);
      char member[160];
      if (kind == PTE_FBGEN_UNION) {
        uint8_t tag = pte_fb_get_u8(t, (unsigned)f->slot - 1u, 0);
        char alias[64];
        const char *mn = union_member(f->type, tag, alias, sizeof alias);
        const char *dot = strrchr(f->type, '.');
        if (!mn || !dot) return "union member not found";
        snprintf(member, sizeof member, "%.*s.%s", (int)(dot - f->type), f->type, mn);
        tname = member;
        tlen = strlen(member);
      }
      ty = find_type(sc, tname, tlen);
      t = pte_fb_get_table(t, f->slot);
      if (!ty || !pte_fb_table_present(t) || last || idx >= 0) {
        snprintf(msg, sizeof msg, "field '%s' is absent or not a leaf", f->name);
        return msg;
      }
    } else if (kind == PTE_FBGEN_VECTOR) {
      pte_fb_vec v = pte_fb_get_vec(t, f->slot);
      if (!v.present) {
        snprintf(msg, sizeof msg, "vector '%s' is absent", f->name);
        return msg;
      }
      if (idx < 0) {
        if (!last) return "vector step without an index";
        out->pos = pte_fb_field_pos(t, f->slot);
        out->kind = PTE_FBGEN_VECTOR;
        out->vec = v;
        return NULL;
      }
      if ((uint32_t)idx >= v.len) {
        snprintf(msg, sizeof msg, "index %ld past the %u elements of '%s'", idx, v.len, f->name);
        return msg;
      }
      if (f->elem_kind == PTE_FBGEN_TABLE) {
        const char *tn = f->type + 1; /* "[name]" */
        ty = find_type(sc, tn, strlen(tn) - 1);
        t = pte_fb_vec_table(v, (uint32_t)idx);
        if (!ty || !pte_fb_table_present(t) || last) return "bad table vector step";
      } else {
        size_t es = pte_fbgen_kind_size((pte_fbgen_kind)f->elem_kind);
        if (!es || !last) return "scalar vector element must end the path";
        out->pos = v.data + (uint32_t)idx * (uint32_t)es;
        out->kind = f->elem_kind;
        return NULL;
      }
    } else if (kind == PTE_FBGEN_STRING) {
      if (!last) return "string must end the path";
      out->str = pte_fb_get_str(t, f->slot);
      out->pos = pte_fb_field_pos(t, f->slot);
      out->kind = PTE_FBGEN_STRING;
      if (!out->str.ptr) return "string is absent";
      return NULL;
    } else {
      if (!last) return "scalar must end the path";
      out->pos = pte_fb_field_pos(t, f->slot);
      out->kind = kind;
      if (!out->pos) {
        snprintf(msg, sizeof msg, "field '%s' is not stored in the buffer (default value)", f->name);
        return msg;
      }
      return NULL;
    }
    p = end + 1;
  }
}
