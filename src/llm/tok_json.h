/* src/llm/tok_json.h — a small strict JSON reader for tokenizer.json (RFC 8259: no comments, no
 * trailing commas, no NaN). The document is parsed into an array of nodes; strings are decoded
 * in place in a private copy of the text. Errors name the line and column. */
#ifndef PTE_LLM_TOK_JSON_H
#define PTE_LLM_TOK_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "pte/status.h"

typedef enum tj_type { TJ_NULL, TJ_FALSE, TJ_TRUE, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } tj_type;

typedef struct tj_node {
  uint8_t type;
  uint32_t src;   /* offset of the value in the text (for messages) */
  uint32_t str;   /* STR: decoded bytes at buf + str; NUM: its text at buf + str */
  uint32_t len;   /* STR: decoded length; NUM: text length */
  uint32_t first; /* ARR/OBJ: first child (objects: key, value, key, value...), 0 = none */
  uint32_t next;  /* next sibling, 0 = none */
  uint32_t count; /* ARR: elements; OBJ: members */
} tj_node;

typedef struct tj_doc {
  char *buf; /* copy of the text, strings decoded in place */
  size_t size;
  tj_node *nodes; /* nodes[0] is the root */
  size_t n, cap;
  const char *name;
  const char *text; /* the original text (messages) */
} tj_doc;

pte_status tj_parse(tj_doc *d, const char *text, size_t size, const char *name, pte_error_info *err);
void tj_free(tj_doc *d);

/* Member of an object by key (last one when duplicated), 0 when absent or not an object. */
uint32_t tj_get(const tj_doc *d, uint32_t obj, const char *key);
/* Compares a STR node with a C string. */
int tj_str_is(const tj_doc *d, uint32_t node, const char *s);
/* Integer value of a NUM node (no fraction/exponent, within [INT64_MIN, INT64_MAX]). 0 or -1. */
int tj_int(const tj_doc *d, uint32_t node, int64_t *out);
/* "line L col C" of a node / offset. */
void tj_where(const tj_doc *d, size_t off, size_t *line, size_t *col);

#endif
