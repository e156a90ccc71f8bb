/* tests/support/fb_path.h — schema paths into a FlatBuffer (the malformed catalogue's patches),
 * resolved through the generated field descriptors (pte_gen/ *_gen.h).
 *
 * PATH := step ('.' step)*;  step := field | field '[' index ']'
 * Fields are looked up by name in the generated descriptors, starting at the root table of the
 * input's schema (Program, FlatTensor, BundledProgram or XNNGraph). A union field ('val',
 * 'instr_args') continues in the member table its tag selects. The path must end at a scalar
 * field, an element of a scalar vector, or (for vlen/str patches) a vector or string field. */
#ifndef PTE_TESTS_FB_PATH_H
#define PTE_TESTS_FB_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "format/flatbuf.h"
#include "format/fb_json.h"

typedef struct fbp_schema {
  const pte_fbgen_type *types;
  size_t n_types;
  const char *root;
} fbp_schema;

extern const fbp_schema fbp_schema_pte, fbp_schema_ptd, fbp_schema_bpte, fbp_schema_xnn;

typedef struct fbp_resolved {
  uint32_t pos;  /* scalar / element position, or the uoffset field position for vectors/strings */
  uint8_t kind;  /* pte_fbgen_kind of the scalar (or PTE_FBGEN_VECTOR / PTE_FBGEN_STRING) */
  pte_fb_vec vec;
  pte_fb_str str;
} fbp_resolved;

/* Resolves path; returns NULL on success or a static error message. */
const char *fbp_resolve(const fbp_schema *sc, const uint8_t *buf, size_t size, const char *path, fbp_resolved *out);

#endif
